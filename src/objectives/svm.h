/* The `svm` objective: LIBSVM C-SVC with an RBF kernel, hyper-parameters C
 * and γ (dimensions named "C" and "gamma") and optional feature weights
 * ("weight.K", svm_dims.h), gain = accuracy on the validation split.
 * Features are scaled to [0,1] with ranges from the training split. */
#ifndef DPBO_SVM_H
#define DPBO_SVM_H

#include <stdint.h>

#include "objectives/dataset.h"
#include "objectives/objective.h"
#include "objectives/svm_dims.h"

typedef struct dpbo_svm_options {
  char data_path[4096];
  dpbo_data_format format;
  int64_t train_rows;      /* rows drawn for training */
  int64_t validation_rows; /* rows drawn for validation (disjoint) */
  int64_t test_rows;       /* held-out rows after the validation rows of the same
                              permutation (0: none; only dpbo compare reads them) */
  uint64_t split_seed;
  double cache_mb;        /* LIBSVM kernel cache (svm-train -m), default 100 */
  double tolerance;       /* LIBSVM stopping tolerance (-e), default 0.001 */
  int shrinking;          /* LIBSVM -h, default 1 */
  int64_t max_features;   /* the data may have at most this many (DPBO_DATASET_MAX_FEATURES) */
  dpbo_csv_header header; /* CSV: a header row? (default auto) */
  int label_column;       /* CSV: 0 = last column (default), k >= 1 = the k-th */
  char labels_path[4096]; /* IDX: the labels file ("" for the other formats) */
  /* Optional (NULL: none): the space the objective will be evaluated on;
   * dpbo_svm_objective_create then checks its dimension names (svm_dims.h)
   * against the data, before any evaluation. Not kept. */
  const dpbo_space *space;
} dpbo_svm_options;

void dpbo_svm_options_default(dpbo_svm_options *options);

/* Reads the dataset, splits and scales it, and prepares LIBSVM problems. */
dpbo_status dpbo_svm_objective_create(const dpbo_svm_options *options, dpbo_objective *objective,
                                      dpbo_error *err);

/* The LIBSVM layer underneath, for callers that train many models on one
 * prepared problem (the k1 sweep): a training set and rows to predict, in
 * LIBSVM's sparse layout (zeros omitted, as svm-scale writes them). */
typedef struct dpbo_svm_data dpbo_svm_data;

dpbo_status dpbo_svm_data_create(const dpbo_dataset *train, const dpbo_dataset *eval,
                                 dpbo_svm_data **out, dpbo_error *err);
void dpbo_svm_data_destroy(dpbo_svm_data *data);

/* How a data set is split (dpbo_dataset_split): under `seed`, train_rows
 * training rows, the next eval_rows rows to predict. */
typedef struct dpbo_svm_split {
  uint64_t seed;
  int64_t train_rows, eval_rows;
} dpbo_svm_split;

/* The preparation shared by the svm objective and the k1 sweep: splits data
 * as `split` says, scales both parts with ranges from the training rows
 * alone and builds the LIBSVM data. A split error is prefixed "<what> on
 * <path>". */
dpbo_status dpbo_svm_data_split(const dpbo_dataset *data, const dpbo_svm_split *split,
                                const char *what, const char *path, dpbo_svm_data **out,
                                dpbo_error *err);

/* The most classes the svm objective takes (DPBO_SVM_MAX_CLASSES). A
 * label column with more distinct values is almost always the wrong
 * column (a CSV whose label is first, read with the default label_column =
 * last, turns a feature into hundreds of "classes" and every accuracy into
 * 0): refused, like a column where more than half of the rows would be a
 * class of their own. */
#define DPBO_SVM_MAX_CLASSES 100

/* Refuses labels LIBSVM would mangle ((int)label groups classes) and label
 * columns that cannot be classes (above). */
dpbo_status dpbo_svm_check_labels(const dpbo_dataset *data, const char *path, dpbo_error *err);

/* The dense predictor's counts (dpbo_svm_predict_dense). */
typedef struct dpbo_svm_dense_counts {
  int64_t rows;      /* rows predicted */
  int64_t near_ties; /* rows with a decision value within DPBO_SVM_NEAR_TIE of 0 */
  int64_t rechecked; /* rows with a decision value within its error bound of 0:
                        predicted by svm_predict instead */
} dpbo_svm_dense_counts;

/* What one model trained and scored on the eval rows reports
 * (dpbo_svm_fit_predict). */
typedef struct dpbo_svm_fit {
  double accuracy;         /* over the eval rows */
  int64_t support_vectors; /* the model's */
  double train_seconds;    /* the wall time of svm_train alone */
  /* dpbo_svm_fit_predict_dense: the dense predictor's counts of this fit
   * (dpbo_svm_predict_dense); zeros otherwise */
  dpbo_svm_dense_counts counts;
} dpbo_svm_fit;

/* Trains one C-SVC RBF model with C, γ and options' cache_mb, tolerance and
 * shrinking (svm-train's defaults otherwise), predicts every eval row and
 * frees the model: correct[i] = 1 where row i is predicted right (correct
 * may be NULL), and the fit's numbers. */
dpbo_status dpbo_svm_fit_predict(dpbo_svm_data *data, const dpbo_svm_options *options, double C,
                                 double gamma, unsigned char *correct, dpbo_svm_fit *fit,
                                 dpbo_error *err);

/* LIBSVM's kernel cache sized from memory (k1sweep.cache_mb = auto).
 * options.cache_mb = DPBO_SVM_CACHE_AUTO asks the caller to resolve it with
 * dpbo_svm_cache_auto_mb before training (dpbo_svm_data_train refuses it). */
#define DPBO_SVM_CACHE_AUTO (-1.0)
/* The share of MemAvailable the ranks on a node may give their caches
 * together: LIBSVM fills its cache during training, after the measurement,
 * so half is left to the system and to whatever else starts meanwhile. */
#define DPBO_SVM_CACHE_MEM_FRACTION 0.5
/* The smallest cache auto chooses: svm-train's default -m. */
#define DPBO_SVM_CACHE_FLOOR_MB 100.0

/* MiB that hold LIBSVM's whole kernel matrix Q for `rows` training rows:
 * rows² Qfloats (float) and one list head per row (LIBSVM 3.x's Cache,
 * which counts both against -m), rounded up. */
double dpbo_svm_cache_full_mb(int64_t rows);

/* The cache of one training rank: min(the whole Q, fraction ·
 * available_mb / node_ranks − data_mb), at least DPBO_SVM_CACHE_FLOOR_MB.
 * available_mb: MemAvailable of the node before the data was loaded;
 * node_ranks (>= 1): the ranks on the node that train; data_mb: this rank's
 * data (dpbo_svm_data_bytes). Pure. */
double dpbo_svm_cache_auto_mb(int64_t rows, double available_mb, int node_ranks, double data_mb,
                              double fraction);

/* The node's MemAvailable in MiB (/proc/meminfo; DPBO_ERR_IO when absent),
 * or less where this process's memory cgroup (a batch job's memory limit)
 * leaves less: its limit less its usage, for it and each ancestor. */
dpbo_status dpbo_svm_mem_available_mb(double *mb, dpbo_error *err);

/* Bytes data holds now and will hold once the pool is predicted densely
 * (rows, labels, the dense pool copy). */
int64_t dpbo_svm_data_bytes(const dpbo_svm_data *data);

/* The true labels of the eval rows (n_eval of them). */
const double *dpbo_svm_data_eval_y(const dpbo_svm_data *data);

/* Writes data's training rows to train_path and its eval rows to eval_path
 * in LIBSVM's text format, exactly as LIBSVM sees them (scaled; %.17g), for
 * other SVM implementations to train on the same rows (bench/). */
dpbo_status dpbo_svm_data_write_libsvm(const dpbo_svm_data *data, const char *train_path,
                                       const char *eval_path, dpbo_error *err);

/* The number of features of data's rows. */
int dpbo_svm_data_features(const dpbo_svm_data *data);

/* Feature weights for the fits that follow (svm_dims.h): feature
 * features[j] (1-based) of every training and eval row is multiplied by
 * weights[j] (finite, >= 0), the other features keep weight 1. Each call
 * replaces the previous weights; with every weight 1 (or count = 0) the
 * prepared rows are used as they are, without a copy. */
dpbo_status dpbo_svm_data_weigh(dpbo_svm_data *data, int count, const int *features,
                                const double *weights, dpbo_error *err);

/* One evaluation at a point of the space: values[] in the space's order,
 * dims from dpbo_svm_dims_find. Applies the weights (dpbo_svm_data_weigh)
 * and runs dpbo_svm_fit_predict with its C and γ (correct and fit as
 * there). The svm objective and dpbo compare both evaluate through this. */
dpbo_status dpbo_svm_evaluate_at(dpbo_svm_data *data, const dpbo_svm_options *options,
                                 const dpbo_svm_dims *dims, const double *values,
                                 unsigned char *correct, dpbo_svm_fit *fit, dpbo_error *err);

/* ---------------------------------------------------------------------------
 * Predicting many rows at once through BLAS, with LIBSVM's model as input.
 *
 * svm_predict computes one kernel value at a time from sparse rows; here a
 * block of dense rows meets every support vector in one dgemm
 * (‖x − v‖² = ‖x‖² + ‖v‖² − 2 x·v), then the RBF kernel, then the
 * one-vs-one decision values summed in LIBSVM's order and its vote (ties to
 * the class listed first). The reassociated distance differs from LIBSVM's
 * sum of squared differences by rounding, so every decision value comes with
 * a forward-error bound on |ours − LIBSVM's| (derived in svm.c); a row with a
 * decision value within its bound of 0 is predicted again by svm_predict.
 * The labels are therefore svm_predict's for every row. */
struct svm_model; /* LIBSVM's */

/* Dense rows (n × d, row-major) and their squared norms, computed once for
 * many models. */
typedef struct dpbo_svm_pool dpbo_svm_pool;

dpbo_status dpbo_svm_pool_create(const double *x, int64_t n, int d, dpbo_svm_pool **out,
                                 dpbo_error *err);
void dpbo_svm_pool_destroy(dpbo_svm_pool *pool);

/* The threshold for a near-tie: a decision value within 1e-9 of 0. */
#define DPBO_SVM_NEAR_TIE 1e-9

/* Predicts every pool row with a C-SVC or ν-SVC RBF model (as svm_predict
 * would: labels[n]). Optional (may be NULL): dec_values and dec_bounds, n ×
 * nr_class·(nr_class − 1)/2 each, row-major: our decision values and the
 * bound on their distance from svm_predict_values'; counts (added to).
 * Other model types are refused (DPBO_ERR_ARG), as are support vectors with
 * a feature index past the pool's d. */
dpbo_status dpbo_svm_predict_dense(const dpbo_svm_pool *pool, const struct svm_model *model,
                                   double *labels, double *dec_values, double *dec_bounds,
                                   dpbo_svm_dense_counts *counts, dpbo_error *err);

/* The two halves of dpbo_svm_fit_predict, for callers that time or compare
 * them (bench/svm_predict.c). Trains the model dpbo_svm_fit_predict trains;
 * free it with svm_free_and_destroy_model. */
dpbo_status dpbo_svm_data_train(dpbo_svm_data *data, const dpbo_svm_options *options, double C,
                                double gamma, struct svm_model **model, double *train_seconds,
                                dpbo_error *err);
/* The number of eval rows, and their predicted labels: dense = 0 through
 * svm_predict row by row, 1 through dpbo_svm_predict_dense (the same labels;
 * the dense copy of the eval rows is made on the first call and kept with
 * data). counts may be NULL (added to; dense only). */
int dpbo_svm_data_eval_rows(const dpbo_svm_data *data);
dpbo_status dpbo_svm_data_predict(dpbo_svm_data *data, const struct svm_model *model, int dense,
                                  double *labels, dpbo_svm_dense_counts *counts, dpbo_error *err);

/* dpbo_svm_fit_predict predicting the eval rows with dpbo_svm_predict_dense:
 * the same correct[] and accuracy, and fit->counts. */
dpbo_status dpbo_svm_fit_predict_dense(dpbo_svm_data *data, const dpbo_svm_options *options,
                                       double C, double gamma, unsigned char *correct,
                                       dpbo_svm_fit *fit, dpbo_error *err);

#endif
