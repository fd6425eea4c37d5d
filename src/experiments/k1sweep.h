/* The k1 experiment of the paper's Results (Figure 1), `dpbo k1sweep`.
 *
 * Pipeline:
 *  1. Data: `train_rows` rows of the dataset drawn by `seed` train every
 *     model; the remaining rows (at most `pool_rows`) form the pool that
 *     validation sets are drawn from. Features are scaled to [0,1] with the
 *     ranges of the training rows.
 *  2. Models: `models` settings λ_j = (C, γ) are the first points of the
 *     Sobol sequence over [space] (log ranges); one LIBSVM RBF C-SVC each.
 *     With model = logreg, λ_j is the regularisation over log [lambda_min,
 *     lambda_max] and each model is the logreg objective's (objectives/
 *     logreg.h: dpbo_logreg_objective_from_data, dpbo_logreg_classify).
 *     Rank 0 hands trainings out one at a time to worker ranks 1..P-1 as they
 *     become free (training times differ 10×); with one rank, rank 0 trains.
 *     A worker predicts the whole pool once per model.
 *  3. Validation sets (valset.h): for every size m in `sizes`, `sets` sets V_i
 *     and neighbours V_i', each (m, i) from its own PCG stream. The workers
 *     generate the index sets from the seed themselves and return, per model,
 *     the accuracies on every V_i and V_i' (F_V and F_V' columns) together
 *     with the pool's correctness bits (kept so the file can be audited:
 *     every accuracy is re-derivable from bits and stored index sets), the
 *     training and prediction time, the number of support vectors and the
 *     pool accuracy. With neighbour = adversarial, rank 0 chooses every
 *     V_i' from all models' bits once they are in (valset.h), recomputes
 *     the V_i' accuracies and sends the choices to every rank. Deriving the accuracies where the
 * predictions are keeps rank 0 (which shares a core with a worker) idle and the work spread.
 *  4. Likelihood (k1lik.h), per m: the multi-task GP log-likelihood over a
 *     k1 sweep with m0, s, σn and ℓ profiled at each k1; the MLE of k1, its
 *     likelihood-ratio interval, the boundary flag and Algorithm 1's c with
 *     N = models and δ = likelihood.delta.
 *  6. Does the assumption hold (k1gof.h), per m: the standardised residuals
 *     of F_V' given F_V under the fit and their KS test against N(0, 1);
 *     max_λ |F_V − F_V'| per pair against s·c and the exceedance rate over
 *     δ; GP-UCB (run/run.h's step, the demo's prior, T =
 *     likelihood.pipeline_iterations, default 30) on F_V and on F_V' with
 *     max_λ |μ_T − μ'_T| against the release's Δ_λ; and a percentile
 *     bootstrap over the pairs (B = likelihood.bootstrap, default 100; 0
 *     skips it) of the k1 MLE and s²(1 − k1), each resample a whole sweep.
 *  5. Output (h5io.h, parallel HDF5, atomic): <dir>/<name>.h5 with
 *       /            attributes: config.<section>.<key>, seed, fingerprint
 *                    (resolved settings that determine the models' results)
 *                    and config_hash, mode (svm | logreg | synthetic), ranks, sizes,
 *                    sets, models, neighbour, pool_rows, data_rows, wall_seconds
 *       /performance the stages' times: totals, <stage>_median_seconds and
 *                    <stage>_max_seconds per model (train, predict, score),
 *                    libsvm_cache_mb (the kernel cache of the training ranks)
 *       /models      lambda, unit (N × d), train_seconds, predict_seconds,
 *                    score_seconds, support_vectors, pool_accuracy, worker
 *                    (N), correct_bits
 *                    (N × ceil(pool/8), uint8, bit r = pool row r predicted
 *                    right, least significant bit first)
 *       /m<m>        likelihood_seconds, gof_seconds (attributes); F_V, F_Vp
 *                    (sets × N); valid_rows (sets × m, pool rows,
 *                    ascending); neighbour_op (−1 remove, 0 swap, +1 add),
 *                    neighbour_slot, neighbour_row, neighbour_size (sets)
 *       /m<m>/likelihood  k1, one_minus_k1, loglik, m0, s, sigma_n,
 *                    lengthscale, ell_at_bound, ratio_at_bound (per k1 of
 *                    the sweep); attributes k1_mle (and its profiled
 *                    parameters), k1_lo, k1_hi, t_lo, t_hi, lo_open,
 *                    hi_open, boundary, c_mle, c_upper, N, delta.
 *       /m<m>/residuals, exceedance, pipeline, bootstrap  the statistics
 *                    that test Assumption 1 (k1gof.h, step 6): z (sets × N)
 *                    with ks_statistic, ks_pvalue, max_abs_z; max_diff
 *                    (sets), delta, bound, rate (the δ grid) with
 *                    bound_at_delta, rate_at_delta; max_mean_diff (sets) with
 *                    lambda_sensitivity, beta_T1, c_lambda, signal_std, max,
 *                    slack, violations, iterations (absent with
 *                    pipeline_iterations = 0); k1, one_minus_k1,
 *                    s2_one_minus_k1, boundary (B), index (B × sets) with B,
 *                    stream, at_boundary, s2_one_minus_k1_mle and the 95%
 *                    percentile intervals k1_lo, k1_hi, s2_one_minus_k1_lo,
 *                    s2_one_minus_k1_hi (the interval to report: the pairs
 *                    share the models, so likelihood/k1_lo, k1_hi is too
 *                    narrow). Each group's note attribute says what it holds.
 *
 * Checkpoint and restart. Every model that arrives is added to
 * <dir>/<name>.partial.h5, rewritten atomically each time (so a kill at any
 * moment leaves the previous whole file). A rerun of the same command skips
 * the models found there. The checkpoint records the fingerprint; a rerun
 * whose fingerprint differs is refused with the first differing key
 * (likelihood, output and cache settings may change). The checkpoint is
 * removed once the final file is written.
 *
 * Stopping early. A stop request (dpbo_farm_request_stop in run/farm.h,
 * async-signal-safe; `dpbo k1sweep` calls it on SIGTERM and SIGUSR1) stops
 * handing out trainings; trainings in progress finish and are checkpointed,
 * then the run returns with *interrupted set. A second request stops waiting for them
 * (*abandoned set; the caller must then abort the job, as the busy workers
 * cannot join collective calls).
 *
 * Synthetic mode (`synthetic_models = N`): no data and no SVMs. For each
 * set, F_V = μ + s·g + ε and F_V' = μ + s·g' + ε' with (g, g') drawn from
 * the multi-task GP with kernel [[1, k1], [k1, 1]] ⊗ K2 at the known
 * synthetic_k1, K2 the likelihood's kernel with synthetic_lengthscale, and
 * ε of standard deviation √(μ(1−μ)/m) (the sampling noise of an accuracy on
 * m records), so the sweep must recover synthetic_k1; with N at or above
 * likelihood.eigen_threshold it runs the ScaLAPACK eigensolver. */
#ifndef DPBO_K1SWEEP_H
#define DPBO_K1SWEEP_H

#include <mpi.h>
#include <stdint.h>

#include "base/settings.h"
#include "objectives/dataset.h"
#include "dpbo/space.h"
#include "dpbo/error.h"
#include "experiments/k1gof.h"
#include "experiments/k1lik.h"
#include "objectives/logreg.h"
#include "objectives/svm.h"
#include "objectives/valset.h"

#define DPBO_K1SWEEP_MAX_SIZES 32

/* The models of the sweep (k1sweep.model): LIBSVM RBF C-SVCs over (C, γ)
 * from [space], or the logreg objective's L2-regularised logistic
 * regression (LIBLINEAR, objectives/logreg.h) over λ in
 * [k1sweep.lambda_min, k1sweep.lambda_max] on a log scale. */
typedef enum { DPBO_K1SWEEP_SVM = 0, DPBO_K1SWEEP_LOGREG = 1 } dpbo_k1sweep_model;

/* "svm", "logreg", indexed by dpbo_k1sweep_model and NULL-terminated. */
extern const char *const dpbo_k1sweep_model_names[];

typedef struct dpbo_k1sweep_config {
  dpbo_settings settings; /* entries as written (with locations) and the file's path */
  /* [space] */
  int dims;
  dpbo_dim dim[DPBO_MAX_DIM];
  /* [k1sweep] */
  uint64_t seed;
  char data_path[DPBO_PATH_MAX];
  dpbo_data_format format;
  int64_t train_rows;
  int64_t pool_rows; /* 0: every row not drawn for training */
  int64_t models;
  dpbo_k1sweep_model model;
  char labels_path[DPBO_PATH_MAX]; /* IDX: the labels file ("" otherwise) */
  dpbo_svm_options svm;            /* cache_mb, tolerance, shrinking, max_features */
  /* model = logreg: tolerance and positive_label (the rest comes from the
   * [k1sweep] keys when the data is read) */
  dpbo_logreg_options logreg;
  int64_t synthetic_models; /* > 0: synthetic mode with that many settings */
  double synthetic_k1, synthetic_mean, synthetic_signal_std, synthetic_lengthscale;
  int size_count;
  int64_t size[DPBO_K1SWEEP_MAX_SIZES];
  int64_t sets;
  dpbo_neighbour_kind neighbour;
  /* [likelihood] */
  dpbo_k1lik_options likelihood;
  double delta;
  int64_t bootstrap;       /* B resamples of the pairs (k1gof.h); 0: none */
  int pipeline_iterations; /* T of the pipeline's GP-UCB runs (k1gof.h); 0: none */
  /* [output] */
  char output_dir[DPBO_PATH_MAX];
  char output_name[256];
} dpbo_k1sweep_config;

/* Reads an INI file with sections [k1sweep], [space], [likelihood] and
 * [output] plus --set overrides; strict like dpbo_config_load (unknown
 * sections and keys are errors naming file and line). On failure nothing is
 * left to free; on success dpbo_k1sweep_config_free releases the stored
 * settings. */
dpbo_status dpbo_k1sweep_config_load(const char *path, int override_count,
                                     const char *const *overrides, dpbo_k1sweep_config *config,
                                     dpbo_error *err);
void dpbo_k1sweep_config_free(dpbo_k1sweep_config *config);

/* Number of settings: models, or synthetic_models in synthetic mode. */
int64_t dpbo_k1sweep_settings(const dpbo_k1sweep_config *config);

/* <dir>/<name>.h5 and <dir>/<name>.partial.h5 */
void dpbo_k1sweep_output_path(const dpbo_k1sweep_config *config, char *path, size_t size);
void dpbo_k1sweep_checkpoint_path(const dpbo_k1sweep_config *config, char *path, size_t size);

typedef struct dpbo_k1sweep_outcome {
  int interrupted; /* stopped early; the checkpoint holds every finished model */
  int abandoned;   /* stopped without waiting for trainings in progress */
  int64_t trained; /* models trained by this call */
  int64_t resumed; /* models taken from the checkpoint */
} dpbo_k1sweep_outcome;

/* Collective over comm: the whole pipeline. stop_after > 0 (a test knob)
 * stops as a signal would once that many models have been trained by this
 * call. */
dpbo_status dpbo_k1sweep_run(MPI_Comm comm, const dpbo_k1sweep_config *config, int64_t stop_after,
                             dpbo_k1sweep_outcome *outcome, dpbo_error *err);

#endif
