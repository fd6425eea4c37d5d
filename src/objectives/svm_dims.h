/* Which dimension of the space is which hyper-parameter of the svm
 * objective: "C", "gamma" and any number of feature weights "weight.K".
 *
 * A feature weight w_K multiplies feature K (1-based, as LIBSVM numbers
 * features; after the [0,1] scaling) in every training and predicted row,
 * so the RBF kernel becomes exp(−γ Σ_k w_k² (x_k − v_k)²): ARD-style
 * feature weighting, which can switch off a feature that only adds noise
 * (w = 0 drops it). Features without a weight dimension keep weight 1.
 * Names are parsed here for the svm objective (`dpbo run`), dpbo compare
 * and the config checks, so all three read them one way. */
#ifndef DPBO_SVM_DIMS_H
#define DPBO_SVM_DIMS_H

#include "dpbo/error.h"
#include "dpbo/space.h"

#define DPBO_SVM_WEIGHT_PREFIX "weight."

typedef struct dpbo_svm_dims {
  int c, gamma;                     /* positions of C and gamma among the dimensions */
  int weights;                      /* weight dimensions, in the space's order: */
  int weight_dim[DPBO_MAX_DIM];     /* the position of each */
  int weight_feature[DPBO_MAX_DIM]; /* the feature it weighs, 1-based */
} dpbo_svm_dims;

/* The feature K of a dimension named "weight.K" (K written 1, 2, ... without
 * sign, blanks or leading zeros, at most INT_MAX); 0 for a name that does not
 * begin with "weight."; -1 for one that does but names no feature. */
int dpbo_svm_weight_feature(const char *name);

/* What is wrong with a dimension of the svm (takes_weights = 1) or logreg
 * (0) objective's space, or NULL: a range of C, gamma or lambda that
 * reaches 0 or below (LIBSVM and LIBLINEAR refuse every such value, so each
 * evaluation there would fail and a release would spend epsilon on a space
 * of failures), a weight of an objective that takes none, a malformed
 * "weight." name, a weight range reaching below 0. For the config checks,
 * which name the line before any data is read. Other names are checked by
 * dpbo_svm_dims_find once the objective is built. */
const char *dpbo_svm_dim_problem(const dpbo_dim *dim, int takes_weights);

/* Finds C, gamma and the weights among names[d]. Any other name, a name
 * given twice (or two names of one feature), a missing C or gamma is a
 * DPBO_ERR_CONFIG error naming the dimension as the config writes it
 * (space.dim.NAME). features > 0 also refuses a weight of a feature beyond
 * the data's `features` (read from `path`, for the message). */
dpbo_status dpbo_svm_dims_find(int d, const char *const *names, int features, const char *path,
                               dpbo_svm_dims *out, dpbo_error *err);

#endif
