/* The `logreg` objective (paper Algorithm 3): L2-regularized logistic
 * regression from LIBLINEAR, scored with a bounded Lipschitz validation
 * loss. The data is read, labelled ±1, split and scaled once; every
 * evaluation trains one model on the prepared LIBLINEAR problem, copies w
 * out, frees the model and averages g over the validation rows. */
#include "objectives/logreg.h"

#include <float.h>
#include <limits.h>
#include <linear.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "objectives/sparse_private.h"

typedef struct logreg_impl {
  dpbo_dataset *train;              /* scaled, labels ±1, dense (gradient check) */
  dpbo_dataset *valid;              /* scaled, labels ±1, dense (gain) */
  dpbo_dataset *pool;               /* scaled rows in neither split; NULL unless asked for */
  struct problem problem;           /* LIBLINEAR view of train */
  struct feature_node *train_nodes; /* problem.x[i] point in here */
  dpbo_logreg_options options;
} logreg_impl;

/* LIBLINEAR prints solver progress to stdout by default; library code must
 * not print (docs/layers.md). */
static void logreg_print_nothing(const char *text) { (void)text; }

void dpbo_logreg_options_default(dpbo_logreg_options *options) {
  memset(options, 0, sizeof *options);
  options->format = DPBO_FORMAT_AUTO;
  options->positive_label = NAN;
  options->loss = DPBO_LOGREG_LOSS_SIGMOID;
  options->tolerance = 1e-6;
  options->swap_validation_row = -1;
  options->swap_with_row = -1;
  options->max_features = DPBO_DATASET_MAX_FEATURES;
}

const char *const dpbo_logreg_loss_names[] = {"sigmoid", "ramp", NULL};

const char *dpbo_logreg_loss_name(dpbo_logreg_loss loss) {
  const size_t count = sizeof dpbo_logreg_loss_names / sizeof *dpbo_logreg_loss_names - 1;
  return (size_t)loss < count ? dpbo_logreg_loss_names[loss] : NULL;
}

dpbo_status dpbo_logreg_loss_parse(const char *name, dpbo_logreg_loss *loss, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!name || !loss) DPBO_RAISE(DPBO_ERR_ARG, "dpbo_logreg_loss_parse: NULL argument");
  for (int i = 0; dpbo_logreg_loss_names[i]; i++)
    if (strcmp(name, dpbo_logreg_loss_names[i]) == 0) {
      *loss = (dpbo_logreg_loss)i;
      goto done;
    }
  DPBO_RAISE(DPBO_ERR_CONFIG, "unknown validation loss '%s' (expected sigmoid or ramp)", name);
done:
  return status;
}

void dpbo_logreg_loss_constants(dpbo_logreg_loss loss, double *L, double *gstar) {
  double lipschitz = NAN, sup = NAN;
  switch (loss) {
  case DPBO_LOGREG_LOSS_SIGMOID:
    /* g(z) = 1/(1+e^z): g'(z) = −e^z/(1+e^z)², largest in size at z = 0,
     * where it is −1/4; g ∈ (0, 1) with sup 1 (z → −∞). */
    lipschitz = 0.25;
    sup = 1.0;
    break;
  case DPBO_LOGREG_LOSS_RAMP:
    /* g(z) = clip((1−z)/2, 0, 1): slope −1/2 on [−1, 1], 0 elsewhere;
     * g = 1 for z ≤ −1. */
    lipschitz = 0.5;
    sup = 1.0;
    break;
  }
  if (L) *L = lipschitz;
  if (gstar) *gstar = sup;
}

/* g(z) for z = y wᵀx, without overflow: e^{−|z|} ≤ 1 is all that is ever
 * exponentiated. */
static double logreg_validation_loss(dpbo_logreg_loss loss, double z) {
  if (loss == DPBO_LOGREG_LOSS_RAMP) {
    double g = 0.5 * (1.0 - z);
    return g < 0.0 ? 0.0 : g > 1.0 ? 1.0 : g;
  }
  if (z > 0.0) {
    double e = exp(-z);
    return e / (1.0 + e);
  }
  return 1.0 / (1.0 + exp(z));
}

static double logreg_dot(const double *a, const double *b, size_t d) {
  double s = 0.0;
  for (size_t j = 0; j < d; j++)
    s += a[j] * b[j];
  return s;
}

/* ‖x‖₂ without overflow or underflow in the squares. */
static double logreg_norm2(const double *x, size_t d) {
  double amax = 0.0;
  for (size_t j = 0; j < d; j++)
    amax = fmax(amax, fabs(x[j]));
  if (amax == 0.0 || !isfinite(amax)) return amax;
  double s = 0.0;
  for (size_t j = 0; j < d; j++) {
    double t = x[j] / amax;
    s += t * t;
  }
  return amax * sqrt(s);
}

/* Scales the min-max-scaled rows by 1/√d' and projects any row with
 * ‖x‖₂ > 1 onto the unit ball; `which` names the split in messages. */
static dpbo_status logreg_scale_to_unit_ball(dpbo_dataset *data, int d_eff, const char *which,
                                             int64_t *projected, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  size_t d = (size_t)data->d;
  double shrink = d_eff > 0 ? 1.0 / sqrt((double)d_eff) : 1.0;
  *projected = 0;
  for (int64_t i = 0; i < data->n; i++) {
    double *row = data->x + (size_t)i * d;
    for (size_t j = 0; j < d; j++)
      row[j] *= shrink;
    /* Finite: dpbo_scaling_apply refused any non-finite scaled value, the
     * shrink is at most 1 and logreg_norm2 does not overflow. */
    double norm = logreg_norm2(row, d);
    if (norm <= 1.0) continue;
    (*projected)++;
    for (size_t j = 0; j < d; j++)
      row[j] /= norm;
    /* x/‖x‖ can come out at 1 + a few ulps; shrink by ulps until the
     * computed norm is ≤ 1. */
    for (int k = 0; k < 8 && logreg_norm2(row, d) > 1.0; k++)
      for (size_t j = 0; j < d; j++)
        row[j] *= 1.0 - 4.0 * DBL_EPSILON;
    if (logreg_norm2(row, d) > 1.0)
      DPBO_RAISE(DPBO_ERR_NUMERIC, "%s row %lld: could not project onto the unit ball", which,
                 (long long)i + 1);
  }
done:
  return status;
}

/* Maps labels to ±1 in place (whole dataset, before the split, so that the
 * class meaning does not depend on the split). */
static dpbo_status logreg_label_plus_minus(dpbo_dataset *data, double positive, const char *path,
                                           dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (data->n < 1) DPBO_RAISE(DPBO_ERR_DATA, "%s: no rows", path);
  if (isnan(positive)) {
    double a = data->y[0], b = NAN;
    for (int64_t i = 1; i < data->n; i++) {
      double y = data->y[i];
      if (y == a || y == b) continue;
      if (isnan(b)) {
        b = y;
        continue;
      }
      DPBO_RAISE(DPBO_ERR_DATA,
                 "%s: the logreg objective is binary; the data has more than two labels (%.17g, "
                 "%.17g, %.17g, ...): set positive_label to choose one class against the rest",
                 path, a, b, y);
    }
    if (isnan(b))
      DPBO_RAISE(DPBO_ERR_DATA, "%s: every row has label %.17g; logreg needs two classes", path, a);
    positive = fmax(a, b);
  } else if (!isfinite(positive)) {
    DPBO_RAISE(DPBO_ERR_CONFIG, "logreg objective: positive_label must be finite, got %g",
               positive);
  }
  int64_t n_pos = 0;
  for (int64_t i = 0; i < data->n; i++)
    n_pos += data->y[i] == positive;
  if (n_pos == 0)
    DPBO_RAISE(DPBO_ERR_DATA, "%s: no row has the positive label %.17g", path, positive);
  if (n_pos == data->n)
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s: every row has the positive label %.17g; logreg needs a negative class", path,
               positive);
  for (int64_t i = 0; i < data->n; i++)
    data->y[i] = data->y[i] == positive ? 1.0 : -1.0;
done:
  return status;
}

/* Sparse LIBLINEAR rows of data (sparse_private.h). No bias node:
 * problem.bias = −1. */
static dpbo_status logreg_build_problem(const dpbo_dataset *data, struct problem *problem,
                                        struct feature_node **nodes_out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  struct feature_node *nodes = NULL;
  DPBO_ALLOC(problem->x, (size_t)data->n, "the LIBLINEAR row pointers");
  DPBO_ALLOC(nodes, dpbo__sparse_count(data), "the LIBLINEAR nodes");
  DPBO__SPARSE_FILL(data, problem->x, nodes);
  problem->l = (int)data->n;
  problem->n = data->d;
  problem->y = data->y; /* ±1, owned by the dataset */
  problem->bias = -1.0; /* the paper's w has no intercept */
  *nodes_out = nodes;
  nodes = NULL;
done:
  free(nodes);
  return status;
}

static void logreg_destroy(void *impl_ptr) {
  logreg_impl *impl = impl_ptr;
  if (!impl) return;
  free(impl->problem.x);
  free(impl->train_nodes);
  dpbo_dataset_destroy(impl->train);
  dpbo_dataset_destroy(impl->valid);
  dpbo_dataset_destroy(impl->pool);
  free(impl);
}

/* w_λ from LIBLINEAR (see logreg.h). */
static dpbo_status logreg_train_w(const logreg_impl *impl, double lambda, double *w,
                                  dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  struct model *model = NULL;
  if (!isfinite(lambda) || lambda <= 0.0)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE,
               "logreg objective at lambda=%.17g: lambda must be positive "
               "and finite",
               lambda);
  /* λ/2‖w‖² + (1/n)Σℓ = λ (½‖w‖² + C Σℓ) with C = 1/(λn): same minimizer. */
  double C = 1.0 / (lambda * (double)impl->problem.l);
  if (!isfinite(C) || C <= 0.0)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE,
               "logreg objective at lambda=%.17g: C = 1/(lambda n) = %g is out of range", lambda,
               C);
  struct parameter param = {
      .solver_type = L2R_LR,
      .eps = impl->options.tolerance,
      .C = C,
      .nr_weight = 0,
      .weight_label = NULL,
      .weight = NULL,
      .p = 0.1,
      /* No warm start: w_λ must not depend on which λ a worker saw before,
       * so results do not depend on the number of ranks. */
      .init_sol = NULL,
  };
  const char *problem = check_parameter(&impl->problem, &param);
  if (problem)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE,
               "logreg objective at lambda=%.17g: LIBLINEAR rejects the parameters: %s", lambda,
               problem);
  /* Set every time: the print hook is LIBLINEAR global state that other
   * code in the process could have changed. */
  set_print_string_function(logreg_print_nothing);
  model = train(&impl->problem, &param);
  if (!model || !model->w || !model->label)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "logreg objective at lambda=%.17g: LIBLINEAR train failed",
               lambda);
  if (model->nr_class != 1 && model->nr_class != 2)
    DPBO_RAISE(DPBO_ERR_LIBRARY, "logreg objective: LIBLINEAR returned %d classes for ±1 labels",
               model->nr_class);
  /* LIBLINEAR's w scores class label[0] positive (it puts +1 first when the
   * labels are ±1; a training split with one class has just that label),
   * so flip w when label[0] is −1. */
  double sign = model->label[0] == 1 ? 1.0 : -1.0;
  for (int j = 0; j < impl->problem.n; j++)
    w[j] = sign * model->w[j];
done:
  if (model) free_and_destroy_model(&model);
  return status;
}

/* A certified bound on ‖w − w_λ‖: O_λ is λ-strongly convex, so
 * ‖w − w_λ‖ ≤ ‖∇O_λ(w)‖/λ. */
static dpbo_status logreg_train_certificate(const logreg_impl *impl, double lambda, const double *w,
                                            double *bound, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *grad = NULL;
  /* ∇O_λ(w) = λw − (1/n) Σ y x / (1 + e^{y wᵀx}). */
  const dpbo_dataset *t = impl->train;
  size_t d = (size_t)t->d;
  DPBO_ALLOC(grad, d, "the logreg gradient");
  for (int64_t i = 0; i < t->n; i++) {
    const double *x = t->x + (size_t)i * d;
    double coef =
        t->y[i] * logreg_validation_loss(DPBO_LOGREG_LOSS_SIGMOID, t->y[i] * logreg_dot(w, x, d));
    for (size_t j = 0; j < d; j++)
      grad[j] -= coef * x[j];
  }
  for (size_t j = 0; j < d; j++)
    grad[j] = lambda * w[j] + grad[j] / (double)t->n;
  *bound = logreg_norm2(grad, d) / lambda;
done:
  free(grad);
  return status;
}

/* Trains w at λ and checks it is within the solver-error bound that
 * Algorithm 3's corrected sensitivity assumes: ‖ŵ − w_λ‖ ≤ tol/(4λ), what
 * LIBLINEAR's stopping rule gives (privacy.c). Its iteration limit can stop
 * it earlier, so every evaluation checks its certificate. The check sees only
 * λ and the public training set, so a failure reveals nothing of V. */
static dpbo_status logreg_train_checked(const logreg_impl *impl, double lambda, double *w,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double distance;
  DPBO_TRY(logreg_train_w(impl, lambda, w, err));
  DPBO_TRY(logreg_train_certificate(impl, lambda, w, &distance, err));
  if (!(distance <= impl->options.tolerance / (4.0 * lambda)))
    DPBO_RAISE(DPBO_ERR_OBJECTIVE,
               "logreg objective at lambda=%.17g: LIBLINEAR stopped %.3g from the minimizer, more "
               "than tolerance/(4 lambda) = %.3g (Algorithm 3's bound on the solver error)",
               lambda, distance, impl->options.tolerance / (4.0 * lambda));
done:
  return status;
}

/* g(w, x̄, ȳ) of row i of a scaled split. */
static double logreg_record_loss(const logreg_impl *impl, const dpbo_dataset *v, int64_t i,
                                 const double *w) {
  size_t d = (size_t)v->d;
  return logreg_validation_loss(impl->options.loss,
                                v->y[i] * logreg_dot(w, v->x + (size_t)i * d, d));
}

/* f_V(w) = −(1/m) Σ g(w, x̄, ȳ). */
static double logreg_validation_gain(const logreg_impl *impl, const double *w) {
  const dpbo_dataset *v = impl->valid;
  double sum = 0.0;
  for (int64_t i = 0; i < v->n; i++)
    sum += logreg_record_loss(impl, v, i, w);
  return -sum / (double)v->n;
}

/* Finds λ among the dimensions by name; any other dimension is an error,
 * since the logreg objective could not honour it. */
static dpbo_status logreg_find_lambda(int d, const char *const *names, const double *values,
                                      double *lambda, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int have = 0;
  for (int i = 0; i < d; i++) {
    const char *name = names && names[i] ? names[i] : "(unnamed)";
    if (strcmp(name, "lambda") != 0)
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "logreg objective: unknown dimension '%s' (the logreg objective takes exactly "
                 "'lambda')",
                 name);
    if (have) DPBO_RAISE(DPBO_ERR_CONFIG, "logreg objective: dimension 'lambda' appears twice");
    *lambda = values[i];
    have = 1;
  }
  if (!have)
    DPBO_RAISE(DPBO_ERR_CONFIG, "logreg objective: the space has no dimension named 'lambda'");
done:
  return status;
}

static dpbo_status logreg_evaluate(void *impl_ptr, int d, const char *const *names,
                                   const double *values, double *gain, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  logreg_impl *impl = impl_ptr;
  double *w = NULL;
  double lambda = 0.0;
  DPBO_TRY(logreg_find_lambda(d, names, values, &lambda, err));
  DPBO_ALLOC(w, (size_t)impl->problem.n, "the logreg weights");
  DPBO_TRY(logreg_train_checked(impl, lambda, w, err));
  *gain = logreg_validation_gain(impl, w);
done:
  free(w);
  return status;
}

static const dpbo_objective_ops logreg_ops = {
    .name = "logreg", .evaluate = logreg_evaluate, .destroy = logreg_destroy};

/* The splits of the labelled data: training rows, validation rows (with
 * the swap of options->swap_* applied) and, when pool is not NULL, the pool
 * (rows in neither split). Without a swap or a pool this is exactly
 * dpbo_dataset_split. With one, the split is drawn with every remaining row
 * on the validation side: the permutation depends only on the seed and the
 * number of rows, so its first m rows there are the same validation set and
 * the rest, in order, is the pool. */
static dpbo_status logreg_split(const dpbo_dataset *data, const dpbo_logreg_options *options,
                                dpbo_dataset **train, dpbo_dataset **valid, dpbo_dataset **pool,
                                dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_dataset *rest = NULL;
  int64_t *rows = NULL;
  const int64_t n_train = options->train_rows, m = options->validation_rows;
  const int swap = options->swap_validation_row >= 0 || options->swap_with_row >= 0;
  if (!swap && !pool) {
    DPBO_TRY(dpbo_dataset_split(data, options->split_seed, n_train, m, train, valid, err));
    goto done;
  }
  if (n_train < 1 || m < 1 || n_train > data->n || m > data->n - n_train)
    DPBO_RAISE(DPBO_ERR_ARG,
               "split asks for %lld training + %lld validation rows but the dataset has %lld",
               (long long)n_train, (long long)m, (long long)data->n);
  DPBO_TRY(
      dpbo_dataset_split(data, options->split_seed, n_train, data->n - n_train, train, &rest, err));
  const int64_t pool_rows = rest->n - m;
  if (swap && (options->swap_validation_row < 0 || options->swap_validation_row >= m))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "logreg objective: swap_validation_row = %lld is not a validation row (0..%lld)",
               (long long)options->swap_validation_row, (long long)m - 1);
  if (swap && (options->swap_with_row < 0 || options->swap_with_row >= pool_rows))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "logreg objective: swap_with_row = %lld is not a row of the pool of %lld rows in "
               "neither split",
               (long long)options->swap_with_row, (long long)pool_rows);
  DPBO_ALLOC(rows, (size_t)rest->n, "the validation rows");
  for (int64_t i = 0; i < rest->n; i++)
    rows[i] = i;
  if (pool) DPBO_TRY(dpbo_dataset_subset(rest, rows + m, pool_rows, pool, err));
  if (swap) rows[options->swap_validation_row] = m + options->swap_with_row;
  DPBO_TRY(dpbo_dataset_subset(rest, rows, m, valid, err));
done:
  free(rows);
  dpbo_dataset_destroy(rest);
  return status;
}

/* The option checks every preparation makes (the data path aside). */
static dpbo_status logreg_check_options(const dpbo_logreg_options *options, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (options->train_rows < 1 || options->validation_rows < 1)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "logreg objective: needs at least 1 training and 1 validation row, got %lld and "
               "%lld",
               (long long)options->train_rows, (long long)options->validation_rows);
  if (options->train_rows > INT_MAX)
    DPBO_RAISE(DPBO_ERR_CONFIG, "logreg objective: LIBLINEAR takes at most %d training rows",
               INT_MAX);
  if (!(options->tolerance > 0.0) || !isfinite(options->tolerance))
    DPBO_RAISE(DPBO_ERR_CONFIG, "logreg objective: tolerance must be positive, got %g",
               options->tolerance);
  if (!dpbo_logreg_loss_name(options->loss))
    DPBO_RAISE(DPBO_ERR_CONFIG, "logreg objective: unknown validation loss code %d",
               (int)options->loss);
done:
  return status;
}

/* Labels (in place), splits and scales data already read (see logreg.h)
 * into a new implementation; keeps the scaled pool when keep_pool is set. */
static dpbo_status logreg_prepare_data(dpbo_dataset *data, const dpbo_logreg_options *options,
                                       int keep_pool, logreg_impl **out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_dataset *train = NULL, *valid = NULL, *pool = NULL;
  dpbo_scaling scaling;
  memset(&scaling, 0, sizeof scaling);
  logreg_impl *impl = NULL;
  *out = NULL;
  DPBO_TRY(logreg_check_options(options, err));
  if (data->d >= INT_MAX) DPBO_RAISE(DPBO_ERR_DATA, "%s: too many features", options->data_path);
  DPBO_TRY(logreg_label_plus_minus(data, options->positive_label, options->data_path, err));
  status = logreg_split(data, options, &train, &valid, keep_pool ? &pool : NULL, err);
  if (status != DPBO_OK) {
    dpbo_error_prefix(err, "logreg objective on %s", options->data_path);
    goto done;
  }
  /* Ranges from the (public) training split only, applied to every split. */
  DPBO_TRY(dpbo_scaling_fit(train, &scaling, err));
  status = dpbo_scaling_apply(&scaling, train, "training", err);
  if (status == DPBO_OK) status = dpbo_scaling_apply(&scaling, valid, "validation", err);
  if (status == DPBO_OK && pool) status = dpbo_scaling_apply(&scaling, pool, "pool", err);
  if (status != DPBO_OK) {
    dpbo_error_prefix(err, "logreg objective on %s", options->data_path);
    goto done;
  }
  int d_eff = 0;
  for (int j = 0; j < scaling.d; j++)
    d_eff += scaling.max[j] > scaling.min[j];
  int64_t projected_train = 0, projected_valid = 0, projected_pool = 0;
  DPBO_TRY(logreg_scale_to_unit_ball(train, d_eff, "training", &projected_train, err));
  DPBO_TRY(logreg_scale_to_unit_ball(valid, d_eff, "validation", &projected_valid, err));
  if (pool) DPBO_TRY(logreg_scale_to_unit_ball(pool, d_eff, "pool", &projected_pool, err));

  DPBO_ALLOC(impl, 1, "the logreg objective");
  impl->options = *options;
  DPBO_TRY(logreg_build_problem(train, &impl->problem, &impl->train_nodes, err));
  impl->train = train;
  impl->valid = valid;
  impl->pool = pool;
  train = valid = pool = NULL;
  set_print_string_function(logreg_print_nothing);
  *out = impl;
  impl = NULL;
done:
  logreg_destroy(impl);
  dpbo_scaling_free(&scaling);
  dpbo_dataset_destroy(train);
  dpbo_dataset_destroy(valid);
  dpbo_dataset_destroy(pool);
  return status;
}

/* Reads the data of options and prepares it (logreg_prepare_data). */
static dpbo_status logreg_prepare(const dpbo_logreg_options *options, int keep_pool,
                                  logreg_impl **out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_dataset *data = NULL;
  *out = NULL;
  DPBO_TRY(dpbo_dataset_check_source("logreg objective", options->data_path,
                                     sizeof options->data_path, options->train_rows,
                                     options->validation_rows, err));
  DPBO_TRY(logreg_check_options(options, err));
  dpbo_dataset_options read = {options->format, options->max_features, options->header,
                               options->label_column, options->labels_path};
  DPBO_TRY(dpbo_dataset_read_options(options->data_path, &read, &data, err));
  DPBO_TRY(logreg_prepare_data(data, options, keep_pool, out, err));
done:
  dpbo_dataset_destroy(data);
  return status;
}

dpbo_status dpbo_logreg_objective_from_data(dpbo_dataset *data, const dpbo_logreg_options *options,
                                            dpbo_objective *objective, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  logreg_impl *impl = NULL;
  if (!data || !options || !objective)
    DPBO_RAISE(DPBO_ERR_ARG, "dpbo_logreg_objective_from_data: NULL argument");
  objective->ops = NULL;
  objective->impl = NULL;
  if (options->swap_validation_row >= 0 || options->swap_with_row >= 0)
    DPBO_RAISE(DPBO_ERR_ARG, "dpbo_logreg_objective_from_data: no swap allowed");
  DPBO_TRY(logreg_prepare_data(data, options, 0, &impl, err));
  objective->ops = &logreg_ops;
  objective->impl = impl;
done:
  return status;
}

dpbo_status dpbo_logreg_objective_create(const dpbo_logreg_options *options,
                                         dpbo_objective *objective, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  logreg_impl *impl = NULL;
  if (!options || !objective)
    DPBO_RAISE(DPBO_ERR_ARG, "dpbo_logreg_objective_create: NULL argument");
  objective->ops = NULL;
  objective->impl = NULL;
  DPBO_TRY(logreg_prepare(options, 0, &impl, err));
  objective->ops = &logreg_ops;
  objective->impl = impl;
done:
  return status;
}

static dpbo_status logreg_get_impl(const dpbo_objective *objective, logreg_impl **impl,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!objective || objective->ops != &logreg_ops || !objective->impl)
    DPBO_RAISE(DPBO_ERR_ARG, "not a logreg objective");
  *impl = objective->impl;
done:
  return status;
}

dpbo_status dpbo_logreg_scaled_data(const dpbo_objective *objective, const dpbo_dataset **train,
                                    const dpbo_dataset **valid, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  logreg_impl *impl = NULL;
  DPBO_TRY(logreg_get_impl(objective, &impl, err));
  if (train) *train = impl->train;
  if (valid) *valid = impl->valid;
done:
  return status;
}

dpbo_status dpbo_logreg_train(const dpbo_objective *objective, double lambda, double *w,
                              double *error_bound, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  logreg_impl *impl = NULL;
  DPBO_TRY(logreg_get_impl(objective, &impl, err));
  if (!w) DPBO_RAISE(DPBO_ERR_ARG, "dpbo_logreg_train: NULL w");
  DPBO_TRY(logreg_train_w(impl, lambda, w, err));
  if (error_bound) DPBO_TRY(logreg_train_certificate(impl, lambda, w, error_bound, err));
done:
  return status;
}

dpbo_status dpbo_logreg_record_losses(const dpbo_logreg_options *options, double lambda,
                                      double **valid_loss, int64_t *m, double **pool_loss,
                                      int64_t *pool_rows, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  logreg_impl *impl = NULL;
  double *w = NULL, *vl = NULL, *pl = NULL;
  if (!options || !valid_loss || !m || !pool_loss || !pool_rows)
    DPBO_RAISE(DPBO_ERR_ARG, "dpbo_logreg_record_losses: NULL argument");
  *valid_loss = *pool_loss = NULL;
  *m = *pool_rows = 0;
  if (options->swap_validation_row >= 0 || options->swap_with_row >= 0)
    DPBO_RAISE(DPBO_ERR_ARG, "dpbo_logreg_record_losses: the options already swap a record");
  DPBO_TRY(logreg_prepare(options, 1, &impl, err));
  DPBO_ALLOC(w, (size_t)impl->problem.n, "the logreg weights");
  DPBO_TRY(logreg_train_w(impl, lambda, w, err));
  DPBO_ALLOC(vl, (size_t)impl->valid->n, "the validation losses");
  DPBO_ALLOC(pl, (size_t)impl->pool->n, "the pool losses");
  for (int64_t i = 0; i < impl->valid->n; i++)
    vl[i] = logreg_record_loss(impl, impl->valid, i, w);
  for (int64_t i = 0; i < impl->pool->n; i++)
    pl[i] = logreg_record_loss(impl, impl->pool, i, w);
  *m = impl->valid->n;
  *pool_rows = impl->pool->n;
  *valid_loss = vl;
  *pool_loss = pl;
  vl = pl = NULL;
done:
  logreg_destroy(impl);
  free(w);
  free(vl);
  free(pl);
  return status;
}

dpbo_status dpbo_logreg_compare_create(const dpbo_logreg_options *options, int64_t test_rows,
                                       dpbo_objective *objective, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  logreg_impl *impl = NULL;
  dpbo_dataset *test = NULL;
  int64_t *rows = NULL;
  if (!options || !objective) DPBO_RAISE(DPBO_ERR_ARG, "dpbo_logreg_compare_create: NULL argument");
  objective->ops = NULL;
  objective->impl = NULL;
  if (options->swap_validation_row >= 0 || options->swap_with_row >= 0)
    DPBO_RAISE(DPBO_ERR_ARG, "dpbo_logreg_compare_create: no swap allowed");
  DPBO_TRY(logreg_prepare(options, 1, &impl, err));
  if (test_rows < 1 || test_rows > impl->pool->n)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "logreg objective on %s: test_rows = %lld, but %lld rows are in neither the "
               "training nor the validation split",
               options->data_path, (long long)test_rows, (long long)impl->pool->n);
  /* The pool, in the split's order, begins with the held-out rows. */
  DPBO_ALLOC(rows, (size_t)test_rows, "the test rows");
  for (int64_t i = 0; i < test_rows; i++)
    rows[i] = i;
  DPBO_TRY(dpbo_dataset_subset(impl->pool, rows, test_rows, &test, err));
  dpbo_dataset_destroy(impl->pool);
  impl->pool = test;
  test = NULL;
  objective->ops = &logreg_ops;
  objective->impl = impl;
  impl = NULL;
done:
  logreg_destroy(impl);
  dpbo_dataset_destroy(test);
  free(rows);
  return status;
}

/* The fraction of rows of v that sign(wᵀx) classifies right (0 counts as
 * −1); correct[i] (when not NULL) = 1 where row i is right. The one
 * classification rule of the logreg models. */
static double logreg_accuracy(const dpbo_dataset *v, const double *w, unsigned char *correct) {
  size_t d = (size_t)v->d;
  int64_t right = 0;
  for (int64_t i = 0; i < v->n; i++) {
    double label = logreg_dot(w, v->x + (size_t)i * d, d) > 0.0 ? 1.0 : -1.0;
    right += label == v->y[i];
    if (correct) correct[i] = label == v->y[i];
  }
  return v->n ? (double)right / (double)v->n : 0.0;
}

dpbo_status dpbo_logreg_compare_evaluate(const dpbo_objective *objective, double lambda,
                                         double *gain, double *val_accuracy, double *test_accuracy,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  logreg_impl *impl = NULL;
  double *w = NULL;
  DPBO_TRY(logreg_get_impl(objective, &impl, err));
  if (!impl->pool) DPBO_RAISE(DPBO_ERR_ARG, "not a logreg objective made for dpbo compare");
  DPBO_ALLOC(w, (size_t)impl->problem.n, "the logreg weights");
  DPBO_TRY(logreg_train_checked(impl, lambda, w, err));
  *gain = logreg_validation_gain(impl, w);
  *val_accuracy = logreg_accuracy(impl->valid, w, NULL);
  *test_accuracy = logreg_accuracy(impl->pool, w, NULL);
done:
  free(w);
  return status;
}

dpbo_status dpbo_logreg_classify(const dpbo_objective *objective, double lambda,
                                 unsigned char *correct, double *accuracy, double *train_seconds,
                                 dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  logreg_impl *impl = NULL;
  double *w = NULL;
  struct timespec t0, t1;
  DPBO_TRY(logreg_get_impl(objective, &impl, err));
  DPBO_ALLOC(w, (size_t)impl->problem.n, "the logreg weights");
  clock_gettime(CLOCK_MONOTONIC, &t0);
  DPBO_TRY(logreg_train_checked(impl, lambda, w, err));
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (train_seconds)
    *train_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  const double right = logreg_accuracy(impl->valid, w, correct);
  if (accuracy) *accuracy = right;
done:
  free(w);
  return status;
}
