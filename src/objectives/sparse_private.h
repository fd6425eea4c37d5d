/* Sparse rows of a dataset for LIBSVM and LIBLINEAR (svm.c, logreg.c).
 *
 * Both libraries take rows as arrays of {int index; double value} nodes:
 * the nonzero entries with 1-based feature indices, then a terminator with
 * index -1. Zeros are omitted as svm-scale writes them, so the in-process
 * problem equals the one the command-line tools build from
 * dpbo_dataset_write_libsvm output. The two node types are distinct
 * (struct svm_node, struct feature_node), so the fill is a macro over
 * either; the double underscore marks it private to src/. */
#ifndef DPBO_SPARSE_PRIVATE_H
#define DPBO_SPARSE_PRIVATE_H

#include <stddef.h>

#include "objectives/dataset.h"

/* Nodes a sparse copy of data needs: its nonzeros and one terminator a row. */
static inline size_t dpbo__sparse_count(const dpbo_dataset *data) {
  size_t count = (size_t)data->n;
  for (size_t k = 0; k < (size_t)data->n * (size_t)data->d; k++)
    count += data->x[k] != 0.0;
  return count;
}

/* Fills nodes[0 .. dpbo__sparse_count(data)) and points rows[i] at row i. */
#define DPBO__SPARSE_FILL(data, rows, nodes)                                                       \
  do {                                                                                             \
    const size_t dpbo__d = (size_t)(data)->d;                                                      \
    size_t dpbo__next = 0;                                                                         \
    for (int64_t dpbo__i = 0; dpbo__i < (data)->n; dpbo__i++) {                                    \
      const double *dpbo__row = (data)->x + (size_t)dpbo__i * dpbo__d;                             \
      (rows)[dpbo__i] = &(nodes)[dpbo__next];                                                      \
      for (size_t dpbo__j = 0; dpbo__j < dpbo__d; dpbo__j++) {                                     \
        if (dpbo__row[dpbo__j] == 0.0) continue;                                                   \
        (nodes)[dpbo__next].index = (int)dpbo__j + 1;                                              \
        (nodes)[dpbo__next].value = dpbo__row[dpbo__j];                                            \
        dpbo__next++;                                                                              \
      }                                                                                            \
      (nodes)[dpbo__next].index = -1;                                                              \
      (nodes)[dpbo__next].value = 0.0;                                                             \
      dpbo__next++;                                                                                \
    }                                                                                              \
  } while (0)

#endif
