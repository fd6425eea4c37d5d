/* The `logreg` objective of the paper's Algorithm 3 (section "Without the GP
 * assumption"): L2-regularized logistic regression trained on a public
 * training set, scored on a private validation set with a bounded,
 * L-Lipschitz validation loss g.
 *
 * One hyper-parameter, the dimension named "lambda" (λ > 0). An evaluation
 * trains
 *
 *     w_λ = argmin_w  λ/2 ‖w‖² + (1/n) Σ_i log(1 + exp(−y_i wᵀx_i))
 *
 * (paper eq. opt_train; no intercept, since the paper's w has none) with
 * LIBLINEAR's primal solver L2R_LR, which minimizes ½‖w‖² + C Σ_i ℓ_i, the
 * same problem scaled by 1/λ when C = 1/(λ n). The gain is the paper's
 * validation score f_V(w_λ) = −(1/m) Σ_j g(w_λ, x̄_j, ȳ_j), in [−1, 0].
 *
 * Validation losses (z = y wᵀx, labels y ∈ {−1, +1}, ‖x‖₂ ≤ 1):
 *   sigmoid: g = 1/(1 + e^z)           |dg/dz| ≤ 1/4 → L = 1/4, g* = sup g = 1
 *   ramp:    g = clip((1 − z)/2, 0, 1) |dg/dz| ≤ 1/2 → L = 1/2, g* = 1
 * (∇_w g = (dg/dz) y x, so ‖∇_w g‖ ≤ |dg/dz| ‖x‖ ≤ |dg/dz|.) The logistic
 * training loss has |dℓ/dz| < 1, so it is convex and 1-Lipschitz in w, as
 * Assumption 2 requires; both facts need ‖x‖₂ ≤ 1 on every row.
 *
 * Inputs: per-feature min-max scaling to [0,1] with ranges from the training
 * split, then division by √d' (d' = number of features that are not constant
 * on the training split; constant ones map to 0 for every row), so every row
 * inside the training ranges has ‖x‖₂ ≤ 1. A validation row with values
 * outside the training ranges can still exceed 1; it is projected onto the
 * unit ball (x ← x/‖x‖), because the sensitivity of Theorem 6 holds only for
 * validation records with ‖x‖₂ ≤ 1. Training rows are projected the same way,
 * which only ever removes rounding error there.
 *
 * Privacy note: the training split and every choice above (split seed,
 * scaling ranges from the training split) are public; only the validation
 * rows are private, as in the paper. w_λ is computed to LIBLINEAR's stopping
 * tolerance, not exactly; since g is L-Lipschitz in w, an error r in w moves
 * the gain by at most L·r (see dpbo_logreg_train for a certified r). Every
 * evaluation checks that certificate against r ≤ tolerance/(4λ), what
 * LIBLINEAR's stopping rule promises and what Algorithm 3's corrected
 * sensitivity adds (privacy.h, docs/privacy-proofs.md), and fails when the
 * solver stopped short of it (e.g. at its iteration limit). */
#ifndef DPBO_LOGREG_H
#define DPBO_LOGREG_H

#include <stdint.h>

#include "objectives/dataset.h"
#include "objectives/objective.h"

typedef enum { DPBO_LOGREG_LOSS_SIGMOID = 0, DPBO_LOGREG_LOSS_RAMP = 1 } dpbo_logreg_loss;

typedef struct dpbo_logreg_options {
  char data_path[4096];
  dpbo_data_format format;
  int64_t max_features;    /* the data may have at most this many (DPBO_DATASET_MAX_FEATURES) */
  dpbo_csv_header header;  /* CSV: a header row? (default auto) */
  int label_column;        /* CSV: 0 = last column (default), k >= 1 = the k-th */
  char labels_path[4096];  /* IDX: the labels file ("" for the other formats) */
  int64_t train_rows;      /* n: public rows drawn for training */
  int64_t validation_rows; /* m: private rows drawn for validation (disjoint) */
  int64_t test_rows;       /* held-out rows after the validation rows (dpbo compare only) */
  uint64_t split_seed;
  /* Rows with this label are y = +1, all others y = −1. NaN (the default):
   * the data must have exactly two distinct labels, and the larger is +1. */
  double positive_label;
  dpbo_logreg_loss loss; /* validation loss g, default sigmoid */
  /* LIBLINEAR's stopping tolerance (-e) for L2R_LR: stop when
   * ‖∇f(w)‖ ≤ eps · max(min(#pos, #neg), 1)/n · ‖∇f(0)‖. Default 1e-6, far
   * below LIBLINEAR's 0.01, so w_λ is a minimizer to about six digits and
   * the gain's error (≤ L·‖w − w_λ‖) is negligible next to the Laplace
   * noise of Algorithm 3; the trust-region Newton solver converges fast, so the
   * extra digits cost a few iterations. */
  double tolerance;
  /* A neighbouring validation set (paper Definition 1: one record swapped),
   * for the whole-pipeline audit (`dpbo audit --pipeline`). The rows that
   * are in neither split form the pool, in the split's random order. When
   * swap_validation_row >= 0, validation record swap_validation_row
   * (0-based, in split order) is replaced, in place, by pool row
   * swap_with_row, so the validation set differs from the default one in
   * exactly that record and the training set is untouched (hence so are the
   * scaling ranges). -1 (the default) for both: no swap. */
  int64_t swap_validation_row;
  int64_t swap_with_row;
} dpbo_logreg_options;

void dpbo_logreg_options_default(dpbo_logreg_options *options);

/* "sigmoid", "ramp", indexed by dpbo_logreg_loss and NULL-terminated. */
extern const char *const dpbo_logreg_loss_names[];
/* "sigmoid" / "ramp" (NULL for an unknown value), and the reverse. */
const char *dpbo_logreg_loss_name(dpbo_logreg_loss loss);
dpbo_status dpbo_logreg_loss_parse(const char *name, dpbo_logreg_loss *loss, dpbo_error *err);

/* Algorithm 3's constants for the validation loss: L, the Lipschitz
 * constant of g in w (for ‖x‖₂ ≤ 1), and g* = sup g. An unknown loss code
 * gives NaN for both, so no sensitivity can silently be computed from it. */
void dpbo_logreg_loss_constants(dpbo_logreg_loss loss, double *L, double *gstar);

/* Reads the dataset, maps labels to ±1, splits, scales (see above) and
 * prepares the LIBLINEAR problem. */
dpbo_status dpbo_logreg_objective_create(const dpbo_logreg_options *options,
                                         dpbo_objective *objective, dpbo_error *err);

/* For callers that train many models on data they have read already (the
 * k1 sweep, experiments/k1sweep.h): the objective prepared from `data` as
 * dpbo_logreg_objective_create prepares what it reads (labels mapped to ±1
 * in place, split by split_seed into train_rows and validation_rows,
 * scaled); data_path only names the data in messages, and the reading
 * options do not apply. No swap. The caller still owns and frees data. */
dpbo_status dpbo_logreg_objective_from_data(dpbo_dataset *data, const dpbo_logreg_options *options,
                                            dpbo_objective *objective, dpbo_error *err);

/* Trains w_λ as an evaluation does (with its solver-error check) and
 * classifies every validation row by sign(wᵀx) (0 counts as −1), the rule
 * of dpbo_logreg_compare_evaluate's accuracies: correct[i] = 1 where row i
 * is classified right, *accuracy the fraction right, *train_seconds the
 * wall time of the training and its check. Outputs may be NULL. */
dpbo_status dpbo_logreg_classify(const dpbo_objective *objective, double lambda,
                                 unsigned char *correct, double *accuracy, double *train_seconds,
                                 dpbo_error *err);

/* --- inspection (tests, diagnostics); `objective` must be a logreg one --- */

/* The scaled splits the objective trains and validates on (labels ±1),
 * owned by the objective. */
dpbo_status dpbo_logreg_scaled_data(const dpbo_objective *objective, const dpbo_dataset **train,
                                    const dpbo_dataset **valid, dpbo_error *err);

/* Trains w_λ (w has room for the number of features) exactly as an
 * evaluation does. If error_bound is not NULL it receives a certified bound
 * on the distance to the exact minimizer: O_λ is λ-strongly convex, so
 * ‖w − w_λ‖ ≤ ‖∇O_λ(w)‖/λ. */
dpbo_status dpbo_logreg_train(const dpbo_objective *objective, double lambda, double *w,
                              double *error_bound, dpbo_error *err);

/* For choosing a neighbouring validation set (dpbo audit --pipeline):
 * prepares the data exactly as dpbo_logreg_objective_create does (options
 * must not ask for a swap), trains w_λ as an evaluation does, and returns
 * the validation loss g(w_λ, x̄, ȳ) of every validation row (*valid_loss,
 * *m entries) and of every pool row (*pool_loss, *pool_rows entries; the
 * rows in neither split, indexed as swap_with_row counts them). Swapping
 * validation row j for pool row k changes the gain f_V(w_λ) by
 * (valid_loss[j] − pool_loss[k])/m. Both arrays are malloc'ed; the caller
 * frees them (also on failure, where they are NULL). */
dpbo_status dpbo_logreg_record_losses(const dpbo_logreg_options *options, double lambda,
                                      double **valid_loss, int64_t *m, double **pool_loss,
                                      int64_t *pool_rows, dpbo_error *err);

/* For dpbo compare: the objective prepared as dpbo_logreg_objective_create
 * does, keeping as held-out test rows the first test_rows rows after the
 * validation rows of the split (the pool above: scaled and projected like
 * the validation rows; the training and validation rows are unchanged). */
dpbo_status dpbo_logreg_compare_create(const dpbo_logreg_options *options, int64_t test_rows,
                                       dpbo_objective *objective, dpbo_error *err);

/* Trains w_λ as an evaluation does and returns the gain f_V(w_λ) and the
 * classification accuracy of sign(wᵀx) (0 counts as −1) on the validation
 * and on the test rows. */
dpbo_status dpbo_logreg_compare_evaluate(const dpbo_objective *objective, double lambda,
                                         double *gain, double *val_accuracy, double *test_accuracy,
                                         dpbo_error *err);

#endif
