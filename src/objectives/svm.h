/* The `svm` objective: LIBSVM C-SVC with an RBF kernel, hyper-parameters C
 * and γ (dimensions named "C" and "gamma"), gain = accuracy on the
 * validation split. Features are scaled to [0,1] with ranges from the
 * training split. */
#ifndef DPBO_SVM_H
#define DPBO_SVM_H

#include <stdint.h>

#include "objectives/dataset.h"
#include "objectives/objective.h"

typedef struct dpbo_svm_options {
  char data_path[4096];
  dpbo_data_format format;
  int64_t train_rows;      /* rows drawn for training */
  int64_t validation_rows; /* rows drawn for validation (disjoint) */
  int64_t test_rows;       /* held-out rows after the validation rows of the same
                              permutation (0: none; only dpbo compare reads them) */
  uint64_t split_seed;
  double cache_mb;      /* LIBSVM kernel cache (svm-train -m), default 100 */
  double tolerance;     /* LIBSVM stopping tolerance (-e), default 0.001 */
  int shrinking;        /* LIBSVM -h, default 1 */
  int64_t max_features; /* the data may have at most this many (DPBO_DATASET_MAX_FEATURES) */
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

/* The preparation shared by the svm objective and the k1 sweep: splits data
 * (dpbo_dataset_split: n_train training rows, the next n_eval rows to
 * predict), scales both with ranges from the training rows alone and builds
 * the LIBSVM data. A split error is prefixed "<what> on <path>". */
dpbo_status dpbo_svm_data_split(const dpbo_dataset *data, uint64_t seed, int64_t n_train,
                                int64_t n_eval, const char *what, const char *path,
                                dpbo_svm_data **out, dpbo_error *err);

/* Refuses labels LIBSVM would mangle ((int)label groups classes). */
dpbo_status dpbo_svm_check_labels(const dpbo_dataset *data, const char *path, dpbo_error *err);

/* Trains one C-SVC RBF model with C, γ and options' cache_mb, tolerance and
 * shrinking (svm-train's defaults otherwise), predicts every eval row and
 * frees the model. Outputs may be NULL: correct[i] = 1 where row i is
 * predicted right, the accuracy over the eval rows, the number of support
 * vectors, the wall time of svm_train alone. */
dpbo_status dpbo_svm_fit_predict(dpbo_svm_data *data, const dpbo_svm_options *options, double C,
                                 double gamma, unsigned char *correct, double *accuracy,
                                 int64_t *support_vectors, double *train_seconds, dpbo_error *err);

#endif
