/* The `svm` objective: LIBSVM C-SVC with an RBF kernel, gain = validation
 * accuracy. The data is read, split and scaled once; every evaluation
 * trains one model on the prepared svm_problem, predicts the validation
 * rows and frees the model. */
#include "objectives/svm.h"

#include <libsvm/svm.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "objectives/sparse_private.h"

/* A training problem and rows to predict, in LIBSVM's sparse layout. */
struct dpbo_svm_data {
  struct svm_problem train;     /* l, y and x[i] pointing into train_nodes */
  struct svm_node *train_nodes; /* all training rows, each ended by index -1 */
  struct svm_node **eval_x;     /* rows to predict, same layout */
  struct svm_node *eval_nodes;
  double *eval_y;
  int n_eval;
};

typedef struct svm_impl {
  dpbo_svm_data *data; /* train = training split, eval = validation split */
  dpbo_svm_options options;
} svm_impl;

/* LIBSVM prints its optimization progress to stdout by default; library
 * code must not print (DESIGN.md section 7). */
static void svm_print_nothing(const char *text) { (void)text; }

void dpbo_svm_options_default(dpbo_svm_options *options) {
  memset(options, 0, sizeof *options);
  options->format = DPBO_FORMAT_AUTO;
  /* svm-train's defaults for -m, -e and -h. */
  options->cache_mb = 100.0;
  options->tolerance = 0.001;
  options->shrinking = 1;
  options->max_features = DPBO_DATASET_MAX_FEATURES;
}

/* Sparse LIBSVM rows of data (sparse_private.h). */
static dpbo_status build_nodes(const dpbo_dataset *data, struct svm_node ***rows_out,
                               struct svm_node **nodes_out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  struct svm_node **rows = NULL;
  struct svm_node *nodes = NULL;
  DPBO_ALLOC(rows, (size_t)data->n, "the LIBSVM row pointers");
  DPBO_ALLOC(nodes, dpbo__sparse_count(data), "the LIBSVM nodes");
  DPBO__SPARSE_FILL(data, rows, nodes);
  *rows_out = rows;
  *nodes_out = nodes;
  rows = NULL;
  nodes = NULL;
done:
  free(rows);
  free(nodes);
  return status;
}

void dpbo_svm_data_destroy(dpbo_svm_data *data) {
  if (!data) return;
  free(data->train.x);
  free(data->train.y);
  free(data->train_nodes);
  free(data->eval_x);
  free(data->eval_nodes);
  free(data->eval_y);
  free(data);
}

dpbo_status dpbo_svm_data_create(const dpbo_dataset *train, const dpbo_dataset *eval,
                                 dpbo_svm_data **out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_svm_data *data = NULL;
  *out = NULL;
  if (train->n < 1 || train->n > INT_MAX || eval->n > INT_MAX)
    DPBO_RAISE(DPBO_ERR_CONFIG, "LIBSVM takes 1 to %d rows per split, got %lld and %lld", INT_MAX,
               (long long)train->n, (long long)eval->n);
  DPBO_ALLOC(data, 1, "the LIBSVM data");
  data->train.l = (int)train->n;
  DPBO_TRY(build_nodes(train, &data->train.x, &data->train_nodes, err));
  DPBO_ALLOC(data->train.y, (size_t)train->n, "the training labels");
  memcpy(data->train.y, train->y, (size_t)train->n * sizeof *train->y);
  data->n_eval = (int)eval->n;
  DPBO_TRY(build_nodes(eval, &data->eval_x, &data->eval_nodes, err));
  DPBO_ALLOC(data->eval_y, (size_t)eval->n, "the labels to predict");
  memcpy(data->eval_y, eval->y, (size_t)eval->n * sizeof *eval->y);
  svm_set_print_string_function(svm_print_nothing);
  *out = data;
  data = NULL;
done:
  dpbo_svm_data_destroy(data);
  return status;
}

dpbo_status dpbo_svm_data_split(const dpbo_dataset *data, uint64_t seed, int64_t n_train,
                                int64_t n_eval, const char *what, const char *path,
                                dpbo_svm_data **out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_dataset *train = NULL, *eval = NULL;
  dpbo_scaling scaling;
  memset(&scaling, 0, sizeof scaling);
  *out = NULL;
  status = dpbo_dataset_split(data, seed, n_train, n_eval, &train, &eval, err);
  if (status != DPBO_OK) {
    dpbo_error_prefix(err, "%s on %s", what, path);
    goto done;
  }
  /* Ranges from the training rows only, applied to both. */
  DPBO_TRY(dpbo_scaling_fit(train, &scaling, err));
  dpbo_scaling_apply(&scaling, train);
  dpbo_scaling_apply(&scaling, eval);
  DPBO_TRY(dpbo_svm_data_create(train, eval, out, err));
done:
  dpbo_scaling_free(&scaling);
  dpbo_dataset_destroy(train);
  dpbo_dataset_destroy(eval);
  return status;
}

dpbo_status dpbo_svm_check_labels(const dpbo_dataset *data, const char *path, dpbo_error *err) {
  /* LIBSVM groups classes by (int)label, so a fractional label would be
   * silently merged with another class; refuse it instead. */
  for (int64_t i = 0; i < data->n; i++) {
    double y = data->y[i];
    if (y != floor(y) || y < INT_MIN || y > INT_MAX)
      return DPBO_ERROR_SET(err, DPBO_ERR_DATA,
                            "%s: the svm objective needs integer class labels; data row %lld has "
                            "label %.17g",
                            path, (long long)i + 1, y);
  }
  return DPBO_OK;
}

dpbo_status dpbo_svm_fit_predict(dpbo_svm_data *data, const dpbo_svm_options *options, double C,
                                 double gamma, unsigned char *correct, double *accuracy,
                                 int64_t *support_vectors, double *train_seconds, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  struct svm_model *model = NULL;
  /* svm_check_parameter lets γ = 0 through (svm-train reads -g 0 as
   * "1/features"), and non-finite values would train a meaningless model. */
  if (!isfinite(C) || !isfinite(gamma) || gamma <= 0.0)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE,
               "at C=%.17g, gamma=%.17g: C and gamma must be positive and finite", C, gamma);

  /* svm-train's defaults except C, γ and the three options. */
  struct svm_parameter param;
  memset(&param, 0, sizeof param);
  param.svm_type = C_SVC;
  param.kernel_type = RBF;
  param.degree = 3;
  param.gamma = gamma;
  param.coef0 = 0.0;
  param.nu = 0.5;
  param.cache_size = options->cache_mb;
  param.C = C;
  param.eps = options->tolerance;
  param.p = 0.1;
  param.shrinking = options->shrinking;
  param.probability = 0;
  param.nr_weight = 0;
  param.weight_label = NULL;
  param.weight = NULL;

  const char *problem = svm_check_parameter(&data->train, &param);
  if (problem)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "at C=%.17g, gamma=%.17g: LIBSVM rejects the parameters: %s", C,
               gamma, problem);
  /* Set every time: the print hook is LIBSVM global state that other code
   * in the process could have changed. */
  svm_set_print_string_function(svm_print_nothing);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  model = svm_train(&data->train, &param);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (train_seconds)
    *train_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (!model) DPBO_RAISE(DPBO_ERR_OBJECTIVE, "at C=%.17g, gamma=%.17g: svm_train failed", C, gamma);
  int64_t right = 0;
  for (int i = 0; i < data->n_eval; i++) {
    /* Exact comparison, as svm-predict counts accuracy. */
    int ok = svm_predict(model, data->eval_x[i]) == data->eval_y[i];
    right += ok;
    if (correct) correct[i] = (unsigned char)ok;
  }
  if (accuracy) *accuracy = data->n_eval ? (double)right / (double)data->n_eval : 0.0;
  if (support_vectors) *support_vectors = svm_get_nr_sv(model);
done:
  if (model) svm_free_and_destroy_model(&model);
  return status;
}

static void svm_destroy(void *impl_ptr) {
  svm_impl *impl = impl_ptr;
  if (!impl) return;
  dpbo_svm_data_destroy(impl->data);
  free(impl);
}

/* Finds C and γ among the dimensions by name; any other dimension is an
 * error, since the svm objective could not honour it. */
static dpbo_status find_c_gamma(int d, const char *const *names, const double *values, double *C,
                                double *gamma, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int have_c = 0, have_gamma = 0;
  for (int i = 0; i < d; i++) {
    const char *name = names && names[i] ? names[i] : "(unnamed)";
    if (strcmp(name, "C") == 0 && !have_c) {
      *C = values[i];
      have_c = 1;
    } else if (strcmp(name, "gamma") == 0 && !have_gamma) {
      *gamma = values[i];
      have_gamma = 1;
    } else if (strcmp(name, "C") == 0 || strcmp(name, "gamma") == 0) {
      DPBO_RAISE(DPBO_ERR_CONFIG, "svm objective: dimension '%s' appears twice", name);
    } else {
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "svm objective: unknown dimension '%s' (the svm objective takes exactly 'C' "
                 "and 'gamma')",
                 name);
    }
  }
  if (!have_c || !have_gamma)
    DPBO_RAISE(DPBO_ERR_CONFIG, "svm objective: the space has no dimension named '%s'",
               have_c ? "gamma" : "C");
done:
  return status;
}

static dpbo_status svm_evaluate(void *impl_ptr, int d, const char *const *names,
                                const double *values, double *gain, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  svm_impl *impl = impl_ptr;
  double C = 0.0, gamma = 0.0;
  DPBO_TRY(find_c_gamma(d, names, values, &C, &gamma, err));
  status = dpbo_svm_fit_predict(impl->data, &impl->options, C, gamma, NULL, gain, NULL, NULL, err);
  if (status != DPBO_OK) dpbo_error_prefix(err, "svm objective");
done:
  return status;
}

static const dpbo_objective_ops svm_ops = {
    .name = "svm", .evaluate = svm_evaluate, .destroy = svm_destroy};

dpbo_status dpbo_svm_objective_create(const dpbo_svm_options *options, dpbo_objective *objective,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_dataset *data = NULL;
  svm_impl *impl = NULL;
  if (!options || !objective) DPBO_RAISE(DPBO_ERR_ARG, "dpbo_svm_objective_create: NULL argument");
  objective->ops = NULL;
  objective->impl = NULL;
  DPBO_TRY(dpbo_dataset_check_source("svm objective", options->data_path, sizeof options->data_path,
                                     options->train_rows, options->validation_rows, err));
  if (options->train_rows > INT_MAX || options->validation_rows > INT_MAX)
    DPBO_RAISE(DPBO_ERR_CONFIG, "svm objective: LIBSVM takes at most %d rows per split", INT_MAX);
  if (!(options->cache_mb > 0.0) || !(options->tolerance > 0.0))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "svm objective: cache size (%g MB) and tolerance (%g) must be positive",
               options->cache_mb, options->tolerance);
  if (options->shrinking != 0 && options->shrinking != 1)
    DPBO_RAISE(DPBO_ERR_CONFIG, "svm objective: shrinking must be 0 or 1, got %d",
               options->shrinking);

  DPBO_TRY(dpbo_dataset_read_max(options->data_path, options->format, options->max_features, &data,
                                 err));
  DPBO_TRY(dpbo_svm_check_labels(data, options->data_path, err));
  DPBO_ALLOC(impl, 1, "the svm objective");
  impl->options = *options;
  DPBO_TRY(dpbo_svm_data_split(data, options->split_seed, options->train_rows,
                               options->validation_rows, "svm objective", options->data_path,
                               &impl->data, err));

  objective->ops = &svm_ops;
  objective->impl = impl;
  impl = NULL;
done:
  svm_destroy(impl);
  dpbo_dataset_destroy(data);
  return status;
}
