/* The svm objective's dimensions by name (svm_dims.h). */
#include "objectives/svm_dims.h"

#include <limits.h>
#include <string.h>

int dpbo_svm_weight_feature(const char *name) {
  const size_t prefix = strlen(DPBO_SVM_WEIGHT_PREFIX);
  if (strncmp(name, DPBO_SVM_WEIGHT_PREFIX, prefix) != 0) return 0;
  const char *p = name + prefix;
  /* Digits only, no leading zero: one spelling per feature, so two names
   * can never weigh one feature unnoticed ("weight.3" and "weight.03"). */
  if (*p < '1' || *p > '9') return -1;
  long long k = 0;
  for (; *p; p++) {
    if (*p < '0' || *p > '9') return -1;
    k = 10 * k + (*p - '0');
    if (k > INT_MAX) return -1;
  }
  return (int)k;
}

const char *dpbo_svm_dim_problem(const dpbo_dim *dim, int takes_weights) {
  /* Every built-in dimension is a number (C, gamma, lambda, a weight). */
  if (dim->type == DPBO_DIM_CATEGORICAL)
    return takes_weights ? "is categorical, but the svm objective's dimensions (C, gamma, "
                           "weight.K) are numbers: use linear, log, integer or log_integer"
                         : "is categorical, but the logreg objective's dimension lambda is a "
                           "number: use linear, log, integer or log_integer";
  const int positive = takes_weights
                           ? strcmp(dim->name, "C") == 0 || strcmp(dim->name, "gamma") == 0
                           : strcmp(dim->name, "lambda") == 0;
  if (positive && !(dim->lo > 0.0))
    return "reaches 0 or below: the cost C, the kernel width gamma and the regularisation lambda "
           "are positive, so its range must lie in (0, infinity), e.g. 'log 1e-3 1e3'";
  const int feature = dpbo_svm_weight_feature(dim->name);
  if (feature == 0) return NULL;
  if (!takes_weights)
    return "is a feature weight, which only objective.kind = svm takes (the logreg objective "
           "takes exactly 'lambda')";
  if (feature < 0)
    return "is not a feature weight: name it weight.K with K = 1, 2, ... the feature's number "
           "(1-based, as in LIBSVM files)";
  /* A negative weight would act as its absolute value (the kernel sees w²):
   * a range reaching below 0 searches one setting twice. */
  if (dim->lo < 0.0)
    return "reaches below 0: a feature weight scales its feature (0 drops it, 1 leaves it), so "
           "its range must lie in [0, infinity)";
  return NULL;
}

dpbo_status dpbo_svm_dims_find(int d, const char *const *names, int features, const char *path,
                               dpbo_svm_dims *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(out, 0, sizeof *out);
  out->c = out->gamma = -1;
  if (d < 0 || d > DPBO_MAX_DIM)
    DPBO_RAISE(DPBO_ERR_ARG, "svm objective: %d dimensions (at most %d)", d, DPBO_MAX_DIM);
  for (int i = 0; i < d; i++) {
    const char *name = names && names[i] ? names[i] : "(unnamed)";
    const int feature = dpbo_svm_weight_feature(name);
    int *slot = strcmp(name, "C") == 0 ? &out->c : strcmp(name, "gamma") == 0 ? &out->gamma : NULL;
    if (slot) {
      if (*slot >= 0)
        DPBO_RAISE(DPBO_ERR_CONFIG, "svm objective: dimension '%s' appears twice", name);
      *slot = i;
    } else if (feature > 0) {
      for (int j = 0; j < out->weights; j++)
        if (out->weight_feature[j] == feature)
          DPBO_RAISE(DPBO_ERR_CONFIG, "svm objective: dimension '%s' appears twice", name);
      if (features > 0 && feature > features)
        DPBO_RAISE(DPBO_ERR_CONFIG,
                   "svm objective: space.dim.%s weighs feature %d, but %s has %d feature%s", name,
                   feature, path ? path : "the data", features, features == 1 ? "" : "s");
      out->weight_dim[out->weights] = i;
      out->weight_feature[out->weights] = feature;
      out->weights++;
    } else {
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "svm objective: unknown dimension '%s' (space.dim.%s): the svm objective takes "
                 "'C', 'gamma' and feature weights 'weight.K' (K = 1, 2, ...)",
                 name, name);
    }
  }
  if (out->c < 0 || out->gamma < 0)
    DPBO_RAISE(DPBO_ERR_CONFIG, "svm objective: the space has no dimension named '%s'",
               out->c >= 0 ? "gamma" : "C");
done:
  return status;
}
