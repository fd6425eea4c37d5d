/* GP-guided private selection (issue #26; docs/privacy-proofs.md section
 * "GP-guided selection"): `[privacy] algorithm = guided`, and `dpbo
 * compare`'s method `guided`.
 *
 *  Stage 1  T1 = privacy.guided_evaluations steps of GP-UCB on privatized
 *           evaluations (run/private_evals.h): every gain through the
 *           discrete Gaussian, σ calibrated for K = T1 releases at
 *           (ε1, δ1) = (share_ε ε, share_δ δ), accounted as
 *           private_evaluations is (dpbo_private_evals_account).
 *           Or, with privacy.guided_proxy_rows = K >= 1, T1 steps of
 *           GP-UCB on a proxy task that never reads the validation set
 *           (a model trained on the first train_rows − K training rows,
 *           scored on the last K), not privatized: a function of the
 *           training rows alone, which every guarantee of dpbo holds
 *           fixed (it protects the validation set), so (ε1, δ1) = (0, 0).
 *  π        Post-processing of stage 1's release alone: the GP on the noisy
 *           values, its UCB u(λ) = μ(λ) + √β σ(λ) over Λ (β =
 *           dpbo_privacy_beta(|Λ|, T1 + 1, ucb.delta); units of v), and
 *           π = w·uniform(Λ) + (1 − w)·softmax(u / τ), as integer weights
 *           with every candidate's weight at least w/|Λ| of the total.
 *           Fixed before stage 2 starts.
 *  Stage 2  privacy.guided_base, with every candidate drawn from π:
 *           liu_talwar or papernot_steinke at (ε2, δ2) = (ε − ε1, δ − δ1)
 *           with E[K] = T − T1: K secret, each run's candidate from π, its
 *           gain + discrete Laplace noise, the best noisy score and its
 *           candidate released (dpbo_selection_stopping; the law,
 *           run/selection.h); or random_search at (ε2, δ2) = (ε − ε1, 0)
 *           (pure: δ − δ1 stays unspent): exactly T2 = T − T1 candidates
 *           i.i.d. from π, the selection over their gains and the chosen
 *           gain + discrete Laplace noise, privacy.split sharing ε2 between
 *           them (dpbo_selection_random_search).
 *
 * The total is basic composition of the two stages' accounted (ε, δ):
 * (ε1' + ε2', δ1 + δ2') <= (ε, δ) exactly (δ2' = 0 for random_search), the
 * one number a release reports and the ledger is charged. Every draw of the
 * mechanism (stage 1's noise, K, stage 2's candidates and its noise) comes
 * from the one secret noise source the caller passes. Released: stage 1's
 * trace (λ_t, noisy v_t), λ̃ and its noisy score; never K, stage 2's
 * candidates or a raw gain. */
#ifndef DPBO_GUIDED_H
#define DPBO_GUIDED_H

#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/noise.h"
#include "run/config.h"
#include "run/run.h"
#include "run/selection.h"

/* What π's softmax scores: the posterior UCB μ + √β σ (it favours
 * candidates stage 1 knows little of as much as good ones), or the
 * posterior mean μ alone (the ones stage 1 believes best). */
typedef enum dpbo_guided_score {
  DPBO_GUIDED_SCORE_UCB = 0,
  DPBO_GUIDED_SCORE_MEAN = 1
} dpbo_guided_score;

/* The guided method's settings (config->guided_*), for the unit tests and
 * compare. */
typedef struct dpbo_guided_settings {
  int stage1_evaluations;  /* T1 */
  double epsilon_share;    /* ε1 / ε, in (0, 1) */
  double delta_share;      /* δ1 / δ, in (0, 1) */
  double weight;           /* w, in (0, 1] */
  double temperature;      /* τ > 0, units of v */
  dpbo_algorithm base;     /* liu_talwar | papernot_steinke | random_search */
  double ps_eta;           /* papernot_steinke's η */
  double split;            /* random_search: the selection's share of ε2 (privacy.split) */
  int64_t proxy_rows;      /* K >= 1: stage 1 on the proxy task, spending nothing; 0: privatized */
  dpbo_guided_score score; /* what π's softmax scores */
} dpbo_guided_settings;

/* The settings of a config. */
void dpbo_guided_settings_from(const dpbo_config *config, dpbo_guided_settings *out);

/* Whether stage 2 with this base is private random search (T2 fixed
 * candidates, pure) rather than a stopping search (a secret K): the base's
 * row of the registry says. */
int dpbo_guided_base_is_search(dpbo_algorithm base);

/* Checks the settings against T (run.iterations) and the budget: one
 * error naming the key (config_key: the path prefix of messages), before
 * anything is evaluated or spent. */
dpbo_status dpbo_guided_check(const dpbo_guided_settings *s, int T, double epsilon, double delta,
                              dpbo_error *err);

/* How the guided method spends a total (ε, δ). */
typedef struct dpbo_guided_accounting {
  double epsilon, delta;                       /* the total asked for */
  double epsilon1, delta1;                     /* stage 1's share (0, 0 on the proxy task) */
  double epsilon1_accounted, delta1_accounted; /* the discrete Gaussian's proven (<= share) */
  double sigma, gp_noise_std_used;             /* stage 1's mechanism and the GP's noise */
  int stage1_evaluations;                      /* T1 = its K mechanisms */
  int stage2_runs; /* E[K] = T − T1 (random_search: exactly T2 = T − T1 candidates) */
  /* The base's calibration at (ε − ε1, δ − δ1), random_search's at (ε − ε1, 0). */
  dpbo_selection_accounting stage2;
  double epsilon_accounted, delta_accounted; /* basic composition: the total charged */
} dpbo_guided_accounting;

/* What the guided method is accounted at: the total (ε, δ), T expected
 * evaluations, the gain's sensitivity Δ and the GP's configured noise. */
typedef struct dpbo_guided_budget {
  double epsilon, delta;
  int T;
  double sensitivity, gp_noise_std;
} dpbo_guided_budget;

/* The accounting at a budget. epsilon_accounted <= ε and delta_accounted <=
 * δ hold exactly (basic composition, rounded up). */
dpbo_status dpbo_guided_account(const dpbo_guided_settings *s, const dpbo_guided_budget *at,
                                dpbo_guided_accounting *out, dpbo_error *err);

/* π as integer cumulative weights cdf[0..n) from u[0..n) (units of v), w
 * and τ: weight_i = F + floor((1 − w) U p_i) with p = softmax(u / τ),
 * U = 2^40 and F the least integer with n F >= w U, so that weight_i /
 * total >= w / n exactly (and = 1/n for every i when w = 1). */
dpbo_status dpbo_guided_law(const double *u, int64_t n, double weight, double temperature,
                            uint64_t *cdf, dpbo_error *err);

/* Stage 1's config (out: a shallow copy of config, never freed with
 * dpbo_config_free): privacy.algorithm = private_evaluations with T1
 * steps at (ε1, δ1), σ and the GP's noise of acc, Δ = sensitivity, batch
 * 1. On the proxy task a plain GP-UCB run (privacy.algorithm = none: no
 * mechanism) of T1 steps on the exact proxy gains (the GP's noise
 * gp.noise_std), the svm objective's split moved onto the training rows:
 * train_rows − K to train, the last K to score.
 * dpbo_guided_table runs it on a table, `dpbo run` through the driver. */
void dpbo_guided_stage1_config(const dpbo_config *config, const dpbo_guided_settings *s,
                               const dpbo_guided_accounting *acc, double sensitivity,
                               dpbo_config *out);

/* The scores π is built from (dpbo_guided_law), units of v, over the block
 * of Λ that stage 1's run holds on this rank (dpbo_ucb_count(run->ucb)
 * values, from dpbo_ucb_begin): u(λ) = m0 + s (μ(λ) + √β σ(λ)), β =
 * dpbo_privacy_beta(|Λ|, T1 + 1, ucb.delta), or u(λ) = m0 + s μ(λ). A
 * function of stage 1's trace and public settings only. */
void dpbo_guided_scores(const dpbo_config *stage1, const dpbo_run *run, dpbo_guided_score score,
                        double *u);

/* What one guided release gives. */
typedef struct dpbo_guided_pick {
  dpbo_selection_pick stage2; /* λ̃ (index), its released score, K (secret) */
  int64_t stage1_best_index;  /* stage 1's best noisy observation (released with its trace) */
  double stage1_best_value;
  double pi_max, pi_min; /* π's largest and smallest probability (reported) */
} dpbo_guided_pick;

/* Where a release on a table reads the raw gains of Λ: the validation
 * set's, and (proxy_rows >= 1) the proxy task's, which stage 1 reads
 * instead (never the validation set's). */
typedef struct dpbo_guided_gains {
  dpbo_run_evaluate_fn gain;
  void *context;
  dpbo_run_evaluate_fn proxy;
  void *proxy_context;
} dpbo_guided_gains;

/* Whether stage 1 runs on the proxy task (spending nothing). */
int dpbo_guided_stage1_is_proxy(const dpbo_guided_settings *s);

/* Stage 2's runs at T = run.iterations: E[K] of a stopping base, or random
 * search's candidates: T − T1 after a privatized stage 1, T after the proxy
 * task (whose T1 fits read no validation record). */
int dpbo_guided_stage2_runs(const dpbo_guided_settings *s, int T);

/* privacy.guided_score's names, indexed by dpbo_guided_score (NULL-ended),
 * and one of them. */
extern const char *const dpbo_guided_score_names[];
const char *dpbo_guided_score_name(dpbo_guided_score score);

/* The proxy task's split, in place of the objective's (svm or logreg):
 * train_rows − K rows to train and the last K training rows scored, no
 * test rows. dpbo_dataset_split draws the rows in one seeded order, so
 * these are exactly the rows the full split trains on: no validation or
 * test row is read. */
void dpbo_guided_proxy_split(dpbo_config *config, int64_t proxy_rows);

/* With privacy.guided_proxy_rows = K >= 1: the svm or logreg objective and
 * 1 <= K <= objective.train_rows − 2 (the proxy model trains on at least
 * two rows), else one error naming the key. */
dpbo_status dpbo_guided_proxy_check(const dpbo_config *config, dpbo_error *err);

/* One whole guided release on a table: stage 1 on MPI_COMM_SELF over
 * config's Λ with the raw gains (privatized here with acc->sigma), π from
 * its posterior, stage 2 at acc->stage2 over the raw gains again. Used by
 * dpbo compare, dpbo audit and the tests. How it draws (run/selection.h):
 * every draw from the secret draw->noise; the gain's sensitivity Δ; the
 * range [lo, hi] the released score is clamped to; noise_scale, 1 except in
 * the audit's broken variant (it scales stage 2's noise); draw->kind, the
 * selection mechanism of random_search (unused by the stopping bases). */
dpbo_status dpbo_guided_table(const dpbo_config *config, const dpbo_guided_settings *s,
                              const dpbo_guided_accounting *acc, const dpbo_guided_gains *gains,
                              const dpbo_selection_draw *draw, dpbo_guided_pick *out,
                              dpbo_error *err);

/* `dpbo run` of privacy.algorithm = guided (collective; run/guided_run.c):
 *  1. the total (ε1' + ε2', δ1 + δ2') of dpbo_guided_account charged to the
 *     validation set's ledger before stage 1's first mechanism (every
 *     invocation draws afresh and is charged: a guided run is never
 *     resumed; `dpbo run --resume` refuses it, its row's resume_refusal);
 *  2. stage 1 through the driver: a private_evaluations run of T1 steps at
 *     (ε1, δ1) (dpbo_guided_stage1_config), no checkpoint;
 *  3. π from its posterior (dpbo_guided_scores on every rank's block, gathered
 *     on rank 0, dpbo_guided_law), fixed before stage 2;
 *  4. stage 2 through the driver: privacy.guided_base at (ε2, δ2) with E[K]
 *     = T − T1 (random_search: T2 = T − T1 candidates at (ε2, 0)), K and
 *     every candidate (from π) drawn from the secret noise on rank 0
 *     (dpbo_selection_planned, dpbo_selection_candidates_law);
 *  5. the run file at options->checkpoint: stage 2's runs in /trace as the base's run
 *     keeps them, stage 1's trace and the accounting in /guided;
 *  6. the release (the base's release over stage 2's runs, the guided total
 *     and guarantee) through the release transaction, which only notes the
 *     spend charged in 1.
 * Nothing is written before both stages are in: a stop request (or
 * options->stop_after results, for the tests) ends it with *interrupted
 * set, the charge standing. The rest of options is not read (nothing is
 * resumed). Its row's run hook (run/algorithm.h): dpbo_session_run calls
 * it in place of the driver and dpbo_session_publish. */
struct dpbo_driver_options;

dpbo_status dpbo_guided_run(MPI_Comm comm, const dpbo_config *config,
                            const struct dpbo_driver_options *options, int *interrupted,
                            dpbo_error *err);

#endif
