/* `dpbo compare CONFIG` (issue #6): what privacy costs, against simpler
 * private methods, at equal total (ε, δ) by each method's own accounting.
 *
 * On the svm objective (gain = validation accuracy, sensitivity 1/m for m
 * validation records) or the logreg objective (gain f_V = −mean validation
 * loss g ∈ [0, g*], sensitivity g* / m at a fixed λ) or a command objective
 * (your program's validation accuracy, sensitivity 1/m for the m =
 * objective.validation_size it counts; objective.compare_command replies
 * "VAL TEST" for the table, compare_table.h), for every ε of
 * [compare] epsilons and R = [compare] repetitions with fresh noise, the
 * validation and held-out test accuracy (objective.test_rows: the rows after
 * the validation rows of the same split) and the gain of the hyper-parameter
 * each method releases, and the value it releases (units of the gain):
 *
 *   dpbo            Algorithm 1 (or 2) of the paper on a GP-UCB run of T steps:
 *                   λ̃ by the exponential mechanism (or permute-and-flip) over
 *                   μ_T with Δ_λ, ṽ by Laplace with Δ_v; (split ε, split δ) +
 *                   ((1 − split) ε, (1 − split) δ), basic composition.
 *   random_search   T candidates drawn uniformly from Λ (data-independent; the
 *                   same set for every ε of one repetition), the best chosen by
 *                   the exponential mechanism on accuracy (Δ = 1/m, split ε) and
 *                   its accuracy + Lap(1/(m (1 − split) ε)): (ε, 0).
 *   liu_talwar      random stopping, γ = 1/T (T evaluations in expectation),
 *                   base ε0 from the privacy profile of the geometric
 *                   stopping at δ, (ε, δ), when it exceeds the pure ε/3 of
 *                   (ε, 0) (always for T >= 2).
 *   papernot_steinke  K ~ truncated negative binomial (η = [compare] ps_eta,
 *                   E[K] = T), base ε0 from the tighter of the Rényi and
 *                   the privacy-profile accounting: (ε, δ).
 *   gp_ucb          non-private reference: the best observed point of a
 *                   noise-free GP-UCB run of T steps on the exact gains,
 *                   one per repetition from that repetition's public start
 *                   (its validation accuracy released as is); the run of
 *                   the privatized evaluations below, without their noise.
 *   random_search_nonprivate  non-private reference: the best of the same T
 *                   random candidates.
 *   dpbo_algorithm3 logreg only: Algorithm 3's f~_L = max_t f_V(w_λt) +
 *                   Lap(Δ_f3/ε) over the same GP-UCB run (any acquisition is
 *                   allowed there), the whole ε on the value: (ε, 0). It
 *                   releases no hyper-parameter: its accuracies are NaN.
 *   private_evaluations_mean  GP-UCB on privatized evaluations (`dpbo run`'s
 *                   privacy.algorithm = private_evaluations,
 *                   compare_evals.h): per repetition and ε a run of T steps
 *                   in which every gain is released by the discrete Gaussian
 *                   (σ calibrated for K = T releases of the baselines'
 *                   sensitivity at (ε, δ); the GP's noise √(gp.noise_std² +
 *                   σ²)); λ̃ = argmax μ_T, value μ_T(λ̃): (ε, δ).
 *   private_evaluations_best  the same run, λ̃ = its best noisy observation,
 *                   value that observation: (ε, δ).
 *   gp_ucb_mean     non-private reference for private_evaluations_mean:
 *                   argmax μ_T of gp_ucb's run (value μ_T(λ̃)); gp_ucb is
 *                   the reference for private_evaluations_best. Both are
 *                   R cells (one run per repetition, the same at every ε),
 *                   and neither depends on privacy.delta: their β_t takes
 *                   δ = 0.05 as the privatized run's does (compare_evals.h).
 *   guided          GP-guided private selection (run/guided.h, privacy.guided_*):
 *                   privacy.guided_evaluations privatized GP-UCB steps at a
 *                   share of (ε, δ), then privacy.guided_base with E[K] = T
 *                   − T1 runs (random_search: exactly T − T1 candidates,
 *                   privacy.split and privacy.selection) whose candidates
 *                   follow a law fixed from their posterior, all from the
 *                   repetition's noise stream: (ε, δ) by basic composition
 *                   of the two stages. With privacy.guided_proxy_rows = K
 *                   >= 1 (svm objective) stage 1 runs instead on the
 *                   table's proxy column (a model trained on the first
 *                   train_rows − K training rows, scored on the last K:
 *                   table/proxy_accuracy, trained once like the table or
 *                   read from compare.table's file when it holds this K's)
 *                   and spends nothing; stage 2 has all of (ε, δ) and T
 *                   candidates.
 * The baselines select on the gain with the sensitivity above; released
 * values are clamped to the gain's range (objective.value_range).
 * baseline.h states the baselines' formulas. The candidates of the
 * baselines are drawn from the same Λ as GP-UCB, so every method chooses
 * from the same set.
 *
 * Evaluation: LIBSVM is deterministic for a fixed split, so the validation
 * and test accuracy of every candidate of Λ are computed once (a task farm,
 * run/farm.h: rank 0 hands the candidates to ranks 1..P-1 one at a time)
 * and every method reads them from that table: a
 * method's evaluations are its table look-ups, counted per repetition. The
 * GP-UCB run of dpbo (Algorithm 1 or 2) on the table is the run `dpbo run`
 * would make (β_t at the budget's δ_β, from privacy.delta). Then the
 * repetitions are spread over the ranks (repetition r on rank r mod P), each
 * with its own noise stream (seeded: stream 1000 + r; labelled not for
 * publication) and its own public streams (PCG, seed run.seed: random
 * search's, Liu–Talwar's and Papernot–Steinke's candidates, and the start
 * of the repetition's GP-UCB runs, gp_ucb's and the privatized ones).
 *
 * Output <output.dir>/<output.name>.h5, sensitive (it holds validation
 * accuracies): /table (gain, val_accuracy, test_accuracy, lambda per
 * candidate), /gp_ucb (dpbo's GP-UCB run: index and gain per step, μ_T over
 * Λ; not the references' runs), /methods ([method][ε][repetition]: val_accuracy,
 * test_accuracy, gain, released_value, evaluations, index),
 * /accounting ([method][ε]; sigma and gp_noise_std_used for the privatized
 * evaluations, 0 elsewhere) and /utility (the exact distribution of the
 * dpbo λ̃ at each ε: regret curve and expected accuracies). */
#ifndef DPBO_COMPARE_H
#define DPBO_COMPARE_H

#include <mpi.h>

#include "experiments/compare_options.h"
#include "run/config.h"
#include "run/selection.h"
#include "dpbo/error.h"

enum {
  DPBO_COMPARE_DPBO = 0,
  DPBO_COMPARE_RANDOM_SEARCH = 1,
  DPBO_COMPARE_LIU_TALWAR = 2,
  DPBO_COMPARE_PAPERNOT_STEINKE = 3,
  DPBO_COMPARE_GP_UCB = 4,
  DPBO_COMPARE_RANDOM_SEARCH_NONPRIVATE = 5,
  DPBO_COMPARE_ALGORITHM3 = 6,
  DPBO_COMPARE_PRIVATE_EVALS_MEAN = 7,
  DPBO_COMPARE_PRIVATE_EVALS_BEST = 8,
  DPBO_COMPARE_GP_UCB_MEAN = 9,
  DPBO_COMPARE_GUIDED = 10,
  DPBO_COMPARE_METHODS = 11
};

/* How one method spends a total (ε, δ): the selection methods' record
 * (run/selection.h), which dpbo's own and Algorithm 3's fill as well. */
typedef dpbo_selection_accounting dpbo_compare_accounting;

/* The budget a method is accounted at: total (ε, δ), the split (dpbo and
 * random_search), the number of evaluations T and Papernot-Steinke's η. */
typedef struct dpbo_compare_budget {
  double epsilon, delta, split;
  int T;
  double ps_eta;
} dpbo_compare_budget;

/* The accounting of `method` at the budget. Non-private methods report
 * zeros. The privatized evaluations need the gain's sensitivity as well:
 * they are refused here (dpbo_compare_evals_account, compare_evals.h). */
dpbo_status dpbo_compare_account(int method, const dpbo_compare_budget *at,
                                 dpbo_compare_accounting *out, dpbo_error *err);

/* The whole comparison (collective over comm) of the run config and its
 * [compare] options (dpbo_compare_options_read); writes the output file on
 * rank 0. */
dpbo_status dpbo_compare_run(MPI_Comm comm, const dpbo_config *config,
                             const dpbo_compare_options *options, dpbo_error *err);

#endif
