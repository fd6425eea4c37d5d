/* GP-UCB on privatized evaluations: `[privacy] algorithm =
 * private_evaluations` (issue #13 item 1; docs/privacy-proofs.md section
 * "Privatized evaluations").
 *
 * Every evaluation's gain f_V(λ_t) goes through the discrete Gaussian
 * mechanism (dpbo_mech_gaussian, sensitivity Δ, σ calibrated to the total
 * (ε, δ) for K = privacy.max_evaluations mechanisms) ON THE RANK THAT
 * EVALUATED IT, before rank 0, the GP, the log or any file sees it. GP-UCB
 * then runs on the noisy values (its noise variance gp.noise_std² + σ²),
 * and everything after the mechanisms — the next λ, the posterior, the
 * final λ̃ and ṽ — is post-processing: the whole trace (λ_t, noisy v_t) is
 * publishable and no further budget is spent. The guarantee rests on no
 * GP assumption: it holds for any objective whose evaluations have
 * sensitivity Δ.
 *
 * Accounting. Every dispatched evaluation is one mechanism, charged by rank
 * 0 in the run file (the checkpoint, attribute evaluations_charged) BEFORE
 * the select event that lets a worker start it: a draw lost in a crash or a
 * stop is charged and is never redrawn for free (a resumed run continues
 * the count and charges the evaluations it repeats again). When the count
 * reaches K the run stops (no more budget). The ledger of the validation
 * set (run/ledger.h) charges the run's (ε, δ) once, before the first
 * mechanism; `dpbo release` on such a run redraws nothing and adds nothing.
 *
 * Noise: the operating system's CSPRNG on every evaluating rank, or (
 * privacy.noise = seeded, "not for publication") PCG32 with the run's
 * noise_seed and one stream per draw number, so every rank and every draw
 * has its own stream and a run's noise does not depend on which rank drew. */
#ifndef DPBO_PRIVATE_EVALS_H
#define DPBO_PRIVATE_EVALS_H

#include <mpi.h>
#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/noise.h"
#include "dpbo/privacy.h"
#include "objectives/evaluator.h"
#include "run/config.h"
#include "run/release_warn.h"
#include "run/ledger.h"
#include "run/run.h"

struct dpbo_release; /* run/release.h */

/* ---------------------------------------------------------------------------
 * During the run (driver.c's hooks). */

typedef struct dpbo_private_evals dpbo_private_evals;

/* This rank's state for a run of config; *out is NULL (and nothing is
 * needed) when the config's algorithm is another. */
dpbo_status dpbo_private_evals_create(const dpbo_config *config, dpbo_private_evals **out,
                                      dpbo_error *err);
void dpbo_private_evals_destroy(dpbo_private_evals *pe);

/* Rank 0: whether K = privacy.max_evaluations allows one more mechanism. */
int dpbo_private_evals_can_charge(const dpbo_private_evals *pe, const dpbo_run *run);

/* Rank 0, before it announces an evaluation: charges one mechanism and,
 * with a checkpoint path, rewrites the checkpoint with the new count before
 * returning (so no worker can draw a value the file does not charge).
 * *draw: the draw's number (1-based), for dpbo_private_evals_assign. */
dpbo_status dpbo_private_evals_charge(dpbo_private_evals *pe, const char *checkpoint,
                                      const dpbo_config *config, dpbo_run *run, int nranks,
                                      int64_t *draw, dpbo_error *err);

/* Every rank, on the select event of step t (1-based): that evaluation is
 * draw `draw`; the run's charged count follows it. */
void dpbo_private_evals_assign(dpbo_private_evals *pe, dpbo_run *run, int t, int64_t draw);

/* The evaluating rank, before the result leaves it: replaces the gain by
 * its Gaussian release, or a failure's message by a fixed text (a message
 * may quote validation data). Never fails: a mechanism that cannot draw
 * turns the result into a failure. */
void dpbo_private_evals_privatize(dpbo_private_evals *pe, dpbo_eval_result *result);

/* Collective, when a run starts: with a checkpoint at `checkpoint` (a
 * resume: `dpbo run` refuses to start over an existing file otherwise) the
 * charged count is restored from it on every rank. */
dpbo_status dpbo_private_evals_resume(MPI_Comm comm, const char *checkpoint, dpbo_run *run,
                                      dpbo_error *err);

/* Collective, when a run starts or resumes, before its first mechanism:
 * rank 0 charges the run's (ε, δ) for K mechanisms to the ledger of its
 * validation set (run/ledger.h: once per run file path; refused past
 * privacy.budget, nothing evaluated). No checkpoint path: nothing to charge
 * (an experiment that publishes nothing). */
dpbo_status dpbo_private_evals_charge_ledger(MPI_Comm comm, const dpbo_config *config,
                                             const char *checkpoint, dpbo_error *err);

/* Rank 0's log line at the start: Δ, K, σ, the GP's noise. */
void dpbo_private_evals_log_start(const dpbo_config *config, const dpbo_run *run);

/* The stop message when K is reached, into buf. */
void dpbo_private_evals_exhausted(const dpbo_config *config, const dpbo_run *run, char *buf,
                                  size_t size);

/* ---------------------------------------------------------------------------
 * The release (post-processing of the noisy trace). */

/* λ̃ and ṽ by privacy.final_choice into a release (run/release.h: its
 * evals fields and the common ones), with every number the files state
 * (collective: argmax μ_T over the ranks' blocks). Refuses a run whose
 * failures a command objective may have tied to the validation data
 * (privacy.failures_public). Written by dpbo_release_write in this
 * algorithm's layout. */
dpbo_status dpbo_private_evals_release_make(MPI_Comm comm, const dpbo_config *config,
                                            const dpbo_run *run, struct dpbo_release *out,
                                            dpbo_error *err);

/* Rank 0's log of the release. */
void dpbo_private_evals_release_log(const struct dpbo_release *release);

/* `dpbo run`'s release (collective): charges the run's (ε, δ) once in the
 * run file's ledger (refused past privacy.budget), then writes the pair
 * <name>.release.h5/.json and logs it on rank 0. */
dpbo_status dpbo_private_evals_after_run(MPI_Comm comm, const dpbo_config *config,
                                         const dpbo_run *run, const char *runfile, dpbo_error *err);

/* `dpbo release` on such a run (collective): the release again, under the
 * given final choice, into PREFIX.h5/.json or <stem>.release-K.h5/.json (the
 * first K >= 2 free); the ledger is read, never added to, and so is the
 * run's charged count (into run). */
dpbo_status dpbo_private_evals_redraw(MPI_Comm comm, const dpbo_config *config, dpbo_run *run,
                                      const char *runfile, const char *prefix, dpbo_error *err);

/* Which `dpbo release --set` overrides a private_evaluations run accepts:
 * privacy.final_choice (post-processing) and ucb.memory_limit_mb; anything
 * that would change the accounting (ε, δ, K, Δ, the algorithm, the noise,
 * which was drawn already) or the GP (the posterior the final choice reads)
 * is refused with the reason. */
dpbo_status dpbo_private_evals_check_overrides(int count, const char *const *overrides,
                                               dpbo_error *err);

#endif
