/* The `svm` objective: LIBSVM C-SVC with an RBF kernel, hyper-parameters C
 * and γ (dimensions named "C" and "gamma"), gain = accuracy on the
 * validation split. Features are scaled to [0,1] with ranges from the
 * training split. */
#ifndef DPBO_SVM_H
#define DPBO_SVM_H

#include <stdint.h>

#include "dpbo/dataset.h"
#include "dpbo/objective.h"

typedef struct dpbo_svm_options {
  char data_path[4096];
  dpbo_data_format format;
  int64_t train_rows;      /* rows drawn for training */
  int64_t validation_rows; /* rows drawn for validation (disjoint) */
  uint64_t split_seed;
  double cache_mb;         /* LIBSVM kernel cache (svm-train -m), default 100 */
  double tolerance;        /* LIBSVM stopping tolerance (-e), default 0.001 */
  int shrinking;           /* LIBSVM -h, default 1 */
} dpbo_svm_options;

void dpbo_svm_options_default(dpbo_svm_options *options);

/* Reads the dataset, splits and scales it, and prepares LIBSVM problems. */
dpbo_status dpbo_svm_objective_create(const dpbo_svm_options *options, dpbo_objective *objective,
                                      dpbo_error *err);

#endif
