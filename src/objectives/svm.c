/* The `svm` objective: LIBSVM C-SVC with an RBF kernel, gain = validation
 * accuracy. The data is read, split and scaled once; every evaluation
 * trains one model on the prepared svm_problem, predicts the validation
 * rows and frees the model. */
#include "objectives/svm.h"

#include <cblas.h>
#include <float.h>
#include <libsvm/svm.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "objectives/sparse_private.h"

#if defined(DPBO_HAVE_LIBMVEC) && defined(__x86_64__)
#include <immintrin.h>
/* glibc's vector exp (libmvec), 4 doubles with AVX2: the symbol GCC calls
 * when it vectorizes exp under -ffast-math, called here directly so that
 * nothing else is compiled with reassociation. */
__attribute__((target("avx2"))) __m256d _ZGVdN4v_exp(__m256d x);
#define SVM_VECTOR_EXP 1
#endif

/* A training problem and rows to predict, in LIBSVM's sparse layout. */
struct dpbo_svm_data {
  struct svm_problem train;     /* l, y and x[i] pointing into train_nodes */
  struct svm_node *train_nodes; /* all training rows, each ended by index -1 */
  struct svm_node **eval_x;     /* rows to predict, same layout */
  struct svm_node *eval_nodes;
  double *eval_y;
  int n_eval;
  int d;               /* features */
  dpbo_svm_pool *pool; /* dense eval rows, made by the first dense prediction */
  double *eval_labels; /* the latest predictions, n_eval */
  /* Feature weights (dpbo_svm_data_weigh): the rows as prepared, and the
   * weighted copies train.x and eval_x point to while a weight is not 1. */
  size_t train_count, eval_count; /* nodes of each, terminators included */
  struct svm_node **plain_train_x, **plain_eval_x;
  struct svm_node **weighted_train_x, **weighted_eval_x;
  struct svm_node *weighted_train_nodes, *weighted_eval_nodes;
  double *weight; /* d + 1: weight[k] for feature k (NULL: never weighted) */
  int weighted;   /* train.x and eval_x point to the weighted copies */
};

typedef struct svm_impl {
  dpbo_svm_data *data; /* train = training split, eval = validation split */
  dpbo_svm_options options;
} svm_impl;

/* LIBSVM prints its optimization progress to stdout by default; library
 * code must not print (docs/layers.md). */
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
static dpbo_status svm_build_nodes(const dpbo_dataset *data, struct svm_node ***rows_out,
                                   struct svm_node **nodes_out, size_t *count, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  struct svm_node **rows = NULL;
  struct svm_node *nodes = NULL;
  *count = dpbo__sparse_count(data);
  DPBO_ALLOC(rows, (size_t)data->n, "the LIBSVM row pointers");
  DPBO_ALLOC(nodes, *count, "the LIBSVM nodes");
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
  if (data->weighted) { /* the plain rows own the memory */
    data->train.x = data->plain_train_x;
    data->eval_x = data->plain_eval_x;
  }
  free(data->weighted_train_x);
  free(data->weighted_eval_x);
  free(data->weighted_train_nodes);
  free(data->weighted_eval_nodes);
  free(data->weight);
  free(data->train.x);
  free(data->train.y);
  free(data->train_nodes);
  free(data->eval_x);
  free(data->eval_nodes);
  free(data->eval_y);
  dpbo_svm_pool_destroy(data->pool);
  free(data->eval_labels);
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
  DPBO_TRY(svm_build_nodes(train, &data->train.x, &data->train_nodes, &data->train_count, err));
  DPBO_ALLOC(data->train.y, (size_t)train->n, "the training labels");
  memcpy(data->train.y, train->y, (size_t)train->n * sizeof *train->y);
  data->n_eval = (int)eval->n;
  data->d = eval->d;
  DPBO_TRY(svm_build_nodes(eval, &data->eval_x, &data->eval_nodes, &data->eval_count, err));
  DPBO_ALLOC(data->eval_y, (size_t)eval->n, "the labels to predict");
  memcpy(data->eval_y, eval->y, (size_t)eval->n * sizeof *eval->y);
  DPBO_ALLOC(data->eval_labels, (size_t)eval->n, "the predicted labels");
  svm_set_print_string_function(svm_print_nothing);
  *out = data;
  data = NULL;
done:
  dpbo_svm_data_destroy(data);
  return status;
}

dpbo_status dpbo_svm_data_split(const dpbo_dataset *data, const dpbo_svm_split *split,
                                const char *what, const char *path, dpbo_svm_data **out,
                                dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_dataset *train = NULL, *eval = NULL;
  dpbo_scaling scaling;
  memset(&scaling, 0, sizeof scaling);
  *out = NULL;
  status = dpbo_dataset_split(data, split->seed, split->train_rows, split->eval_rows, &train, &eval,
                              err);
  if (status != DPBO_OK) {
    dpbo_error_prefix(err, "%s on %s", what, path);
    goto done;
  }
  /* Ranges from the training rows only, applied to both. */
  DPBO_TRY(dpbo_scaling_fit(train, &scaling, err));
  status = dpbo_scaling_apply(&scaling, train, "training", err);
  if (status == DPBO_OK) status = dpbo_scaling_apply(&scaling, eval, "evaluation", err);
  if (status != DPBO_OK) {
    dpbo_error_prefix(err, "%s on %s", what, path);
    goto done;
  }
  DPBO_TRY(dpbo_svm_data_create(train, eval, out, err));
done:
  dpbo_scaling_free(&scaling);
  dpbo_dataset_destroy(train);
  dpbo_dataset_destroy(eval);
  return status;
}

static int svm_compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The class-count half of dpbo_svm_check_labels (svm.h says why). */
static dpbo_status svm_check_classes(const dpbo_dataset *data, const char *path, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *sorted = NULL;
  if (data->n < 1) goto done;
  DPBO_ALLOC(sorted, (size_t)data->n, "the labels' copy");
  memcpy(sorted, data->y, sizeof *sorted * (size_t)data->n);
  qsort(sorted, (size_t)data->n, sizeof *sorted, svm_compare_doubles);
  int64_t classes = 1;
  for (int64_t i = 1; i < data->n; i++)
    classes += sorted[i] != sorted[i - 1];
  /* Ten classes in twenty rows is a small data set, not a wrong column. */
  if (classes > DPBO_SVM_MAX_CLASSES || (classes > 10 && 2 * classes > data->n))
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s: the label column holds %lld distinct values in %lld rows, which cannot be "
               "class labels (the svm objective takes at most %d classes, and not more classes "
               "than half the rows): it is probably a feature. For a CSV whose label is not the "
               "last column, set objective.label_column to the label's column (1 = the first)",
               path, (long long)classes, (long long)data->n, DPBO_SVM_MAX_CLASSES);
done:
  free(sorted);
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
  return svm_check_classes(data, path, err);
}

/* ---------------------------------------------------------------------------
 * Prediction through BLAS (dpbo_svm_predict_dense).
 *
 * The error bound on |dec_ours − dec_libsvm| for one pool row x and one
 * pair's decision value. u = 2^-53 is the unit roundoff and
 * γ_k = k·u/(1 − k·u) (Higham, Accuracy and Stability of Numerical
 * Algorithms, ch. 3); d features, v a support vector, s = ‖x − v‖²:
 *  1. LIBSVM's distance (Kernel::k_function: Σ (x_k − v_k)² over the merged
 *     nonzeros, at most d terms of one subtraction and one product each) is
 *     within γ_{d+2}·s of s. Ours, (‖x‖² + ‖v‖²) + (−2 x·v), with the norms
 *     summed here (γ_d) and the dot product from dgemm in whatever order
 *     (γ_d Σ|x_k v_k| ≤ γ_d ‖x‖‖v‖) and two more roundings, is within
 *     γ_{d+2}(‖x‖ + ‖v‖)² of s; clamping it at 0 only moves it closer.
 *     Since s ≤ (‖x‖ + ‖v‖)²: |s_ours − s_libsvm| ≤ 2γ_{d+2}(‖x‖ + ‖v‖)².
 *  2. Both take exp(−γ·s) after one rounding of the product. e^{−t} is
 *     1-Lipschitz on t ≥ 0, and the product's rounding moves e^{−t} by at most
 *     u·t·e^{−t(1−u)} < u/2 on each side. exp itself is within a relative
 *     e_l of the exact value for LIBSVM (glibc's exp, at most 1 ulp: 2u) and
 *     e_o for us (libmvec's vector exp, whose stated goal is 4 ulp: 8u; glibc's
 *     exp where there is no AVX2), plus DBL_MIN absolute should a subnormal
 *     result be flushed. With K our kernel value and c the coefficient of v,
 *     summed over the pair:
 *       Σ|c||K_ours − K_libsvm| ≤ P + e_o·Σ|c|K/(1 − e_o) + e_l·(Σ|c|K/(1 − e_o) + P),
 *       P = γ·2γ_{d+2}·Σ|c|(‖x‖ + ‖v‖)² + (u + 2·DBL_MIN)·Σ|c|.
 *  3. The decision value Σ c·K − ρ over the pair's n support vectors: LIBSVM
 *     sums them in order, we add two dgemm dot products (one per class);
 *     rounding adds at most γ_{n+1}(Σ|c|K_libsvm + |ρ|) and γ_{n+2}(Σ|c|K + |ρ|).
 * The bound is the sum of 2 and 3, times 1 + 4γ_{nSV+d+4} for the rounding
 * in evaluating the bound itself (sums of at most nSV + d nonnegative terms).
 * Σ|c|(‖x‖ + ‖v‖)² = ‖x‖²Σ|c| + 2‖x‖Σ|c|‖v‖ + Σ|c|‖v‖²: three sums per pair,
 * computed once per model. */

struct dpbo_svm_pool {
  int64_t n;
  int d;
  double *x;     /* n × d, row-major */
  double *norm2; /* ‖x_i‖², summed in feature order */
};

/* Kernel values held at once: a block of rows × every support vector. */
#define SVM_DENSE_BLOCK_VALUES (1 << 18)
#define SVM_DENSE_BLOCK_ROWS 32

static double svm_gamma_k(double k) {
  const double u = DBL_EPSILON / 2;
  return k * u / (1.0 - k * u);
}

/* v[i] = exp(v[i]) for i < n: libmvec's AVX2 exp where the CPU has AVX2
 * (exp is most of the dense prediction's time), glibc's exp otherwise. */
#ifdef SVM_VECTOR_EXP
__attribute__((target("avx2"))) static void svm_exp_avx2(double *v, int n) {
  int i = 0;
  for (; i + 4 <= n; i += 4)
    _mm256_storeu_pd(v + i, _ZGVdN4v_exp(_mm256_loadu_pd(v + i)));
  for (; i < n; i++)
    v[i] = exp(v[i]);
}
#endif

static void svm_exp(double *v, int n) {
#ifdef SVM_VECTOR_EXP
  if (__builtin_cpu_supports("avx2")) {
    svm_exp_avx2(v, n);
    return;
  }
#endif
  for (int i = 0; i < n; i++)
    v[i] = exp(v[i]);
}

static double svm_sum_squares(const double *v, int d) {
  double sum = 0.0;
  for (int k = 0; k < d; k++)
    sum += v[k] * v[k];
  return sum;
}

void dpbo_svm_pool_destroy(dpbo_svm_pool *pool) {
  if (!pool) return;
  free(pool->x);
  free(pool->norm2);
  free(pool);
}

dpbo_status dpbo_svm_pool_create(const double *x, int64_t n, int d, dpbo_svm_pool **out,
                                 dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_svm_pool *pool = NULL;
  *out = NULL;
  if (n < 0 || d < 1 || (n > 0 && !x) || (uint64_t)n > SIZE_MAX / sizeof(double) / (size_t)d)
    DPBO_RAISE(DPBO_ERR_ARG, "dpbo_svm_pool_create: cannot hold %lld rows of %d features",
               (long long)n, d);
  DPBO_ALLOC(pool, 1, "the dense pool");
  pool->n = n;
  pool->d = d;
  DPBO_ALLOC(pool->x, (size_t)n * (size_t)d, "the dense pool rows");
  if (n > 0) memcpy(pool->x, x, (size_t)n * (size_t)d * sizeof *x);
  DPBO_ALLOC(pool->norm2, (size_t)n, "the pool's squared norms");
  for (int64_t i = 0; i < n; i++)
    pool->norm2[i] = svm_sum_squares(pool->x + i * d, d);
  *out = pool;
  pool = NULL;
done:
  dpbo_svm_pool_destroy(pool);
  return status;
}

/* A LIBSVM model laid out for the two dgemms. */
typedef struct svm_dense_model {
  int nsv, pairs;
  double *sv;       /* nsv × d, dense support vectors */
  double *sv_norm2; /* ‖v‖² */
  int *start;       /* the first support vector of each class */
  double *coef;     /* nsv × 2(nr_class − 1): row s holds sv_coef[k][s] for every k,
                       then their absolute values */
  int *pair_terms;  /* support vectors in pair p (LIBSVM's sum has as many terms) */
  double *abs_sum, *norm_sum, *norm2_sum; /* per pair: Σ|c|, Σ|c|‖v‖, Σ|c|‖v‖² */
} svm_dense_model;

static void svm_dense_model_free(svm_dense_model *m) {
  free(m->sv);
  free(m->sv_norm2);
  free(m->start);
  free(m->coef);
  free(m->pair_terms);
  free(m->abs_sum);
  free(m->norm_sum);
  free(m->norm2_sum);
}

static dpbo_status svm_dense_model_make(const struct svm_model *model, int d, svm_dense_model *m,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int nr = model->nr_class;
  if ((model->param.svm_type != C_SVC && model->param.svm_type != NU_SVC) ||
      model->param.kernel_type != RBF)
    DPBO_RAISE(DPBO_ERR_ARG,
               "dpbo_svm_predict_dense takes C-SVC and nu-SVC models with the RBF kernel");
  if (nr < 1 || model->l < 0 || !model->label || !model->nSV || (model->l > 0 && !model->SV) ||
      !isfinite(model->param.gamma))
    DPBO_RAISE(DPBO_ERR_ARG, "dpbo_svm_predict_dense: incomplete model");
  m->nsv = model->l;
  m->pairs = nr * (nr - 1) / 2;
  const int nsv = m->nsv, pairs = m->pairs, cols = 2 * (nr - 1);
  DPBO_ALLOC(m->start, (size_t)nr, "the model's class offsets");
  int64_t total = 0;
  for (int i = 0; i < nr; i++) {
    m->start[i] = (int)total;
    total += model->nSV[i];
  }
  if (total != nsv)
    DPBO_RAISE(DPBO_ERR_ARG, "dpbo_svm_predict_dense: nSV adds up to %lld, not l = %d",
               (long long)total, nsv);
  DPBO_ALLOC(m->sv, (size_t)nsv * (size_t)d, "the dense support vectors");
  DPBO_ALLOC(m->sv_norm2, (size_t)nsv, "the support vectors' norms");
  for (int s = 0; s < nsv; s++) {
    for (const struct svm_node *node = model->SV[s]; node->index != -1; node++) {
      if (node->index < 1 || node->index > d)
        DPBO_RAISE(DPBO_ERR_ARG,
                   "dpbo_svm_predict_dense: support vector %d has feature index %d; the pool "
                   "has features 1 to %d",
                   s, node->index, d);
      m->sv[(size_t)s * (size_t)d + (size_t)(node->index - 1)] = node->value;
    }
    m->sv_norm2[s] = svm_sum_squares(m->sv + (size_t)s * (size_t)d, d);
  }
  DPBO_ALLOC(m->coef, (size_t)nsv * (size_t)cols, "the decision weights");
  for (int s = 0; s < nsv; s++)
    for (int k = 0; k < nr - 1; k++) {
      m->coef[(size_t)s * (size_t)cols + (size_t)k] = model->sv_coef[k][s];
      m->coef[(size_t)s * (size_t)cols + (size_t)(nr - 1 + k)] = fabs(model->sv_coef[k][s]);
    }
  DPBO_ALLOC(m->pair_terms, (size_t)pairs, "the decision weights");
  DPBO_ALLOC(m->abs_sum, (size_t)pairs, "the decision weights");
  DPBO_ALLOC(m->norm_sum, (size_t)pairs, "the decision weights");
  DPBO_ALLOC(m->norm2_sum, (size_t)pairs, "the decision weights");
  /* Pair (i, j) as svm_predict_values has it: class i's support vectors
   * with coefficients sv_coef[j − 1], class j's with sv_coef[i]. */
  int p = 0;
  for (int i = 0; i < nr; i++)
    for (int j = i + 1; j < nr; j++, p++) {
      const int side_class[2] = {i, j};
      const double *side_coef[2] = {model->sv_coef[j - 1], model->sv_coef[i]};
      m->pair_terms[p] = model->nSV[i] + model->nSV[j];
      for (int side = 0; side < 2; side++) {
        const int first = m->start[side_class[side]], count = model->nSV[side_class[side]];
        for (int s = first; s < first + count; s++) {
          const double a = fabs(side_coef[side][s]);
          m->abs_sum[p] += a;
          m->norm_sum[p] += a * sqrt(m->sv_norm2[s]);
          m->norm2_sum[p] += a * m->sv_norm2[s];
        }
      }
    }
done:
  return status;
}

/* The decision sums of pool rows [b0, b0 + rows) into dec, class by class
 * (dpbo_svm_predict_dense's layout); kv is scratch for the kernel values. */
static void svm_dense_block(const dpbo_svm_pool *pool, const struct svm_model *model,
                            const svm_dense_model *m, int64_t b0, int rows, double *kv,
                            double *dec) {
  const int d = pool->d, nr = model->nr_class, nsv = m->nsv, cols = 2 * (nr - 1);
  const int64_t stride = (int64_t)nr * cols;
  const double gamma = model->param.gamma;
  const double *x = pool->x + b0 * d;
  if (nsv > 0 && cols > 0) {
    /* −2 x·v for the block; the scaling by a power of 2 is exact. */
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, nsv, d, -2.0, x, d, m->sv, d, 0.0,
                kv, nsv);
    for (int r = 0; r < rows; r++) {
      const double xx = pool->norm2[b0 + r];
      double *k = kv + (size_t)r * (size_t)nsv;
      for (int s = 0; s < nsv; s++) {
        double dist = (xx + m->sv_norm2[s]) + k[s];
        if (dist < 0.0) dist = 0.0; /* cancellation; the true distance is >= 0 */
        k[s] = -gamma * dist;       /* as Kernel::k_function writes it */
      }
    }
    svm_exp(kv, rows * nsv);
    /* Per class i, Σ c·K and Σ|c|·K over its support vectors with each
     * coefficient row k: pair (i, j) takes class i's sum with row j − 1
     * and class j's with row i, as svm_predict_values. */
    for (int i = 0; i < nr; i++)
      if (model->nSV[i] > 0)
        cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, rows, cols, model->nSV[i], 1.0,
                    kv + m->start[i], nsv, m->coef + (size_t)m->start[i] * (size_t)cols, cols, 0.0,
                    dec + (size_t)i * (size_t)cols, (int)stride);
      else
        for (int r = 0; r < rows; r++)
          memset(dec + r * stride + (int64_t)i * cols, 0, (size_t)cols * sizeof *dec);
  } else {
    memset(dec, 0, (size_t)rows * (size_t)stride * sizeof *dec);
  }
}

/* LIBSVM's own prediction for pool row `row`, with the row in the sparse
 * layout it was trained on; nodes holds d + 1 entries. */
static double svm_dense_recheck(const dpbo_svm_pool *pool, const struct svm_model *model,
                                int64_t row, struct svm_node *nodes) {
  const int d = pool->d;
  int next = 0;
  for (int k = 0; k < d; k++) {
    const double v = pool->x[row * d + k];
    if (v == 0.0) continue;
    nodes[next].index = k + 1;
    nodes[next].value = v;
    next++;
  }
  nodes[next].index = -1;
  nodes[next].value = 0.0;
  return svm_predict(model, nodes);
}

dpbo_status dpbo_svm_predict_dense(const dpbo_svm_pool *pool, const struct svm_model *model,
                                   double *labels, double *dec_values, double *dec_bounds,
                                   dpbo_svm_dense_counts *counts, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  svm_dense_model m;
  memset(&m, 0, sizeof m);
  double *kv = NULL, *dec = NULL;
  int *vote = NULL;
  struct svm_node *nodes = NULL;
  int64_t near_ties = 0, rechecked = 0;
  if (!pool || !model || !labels) DPBO_RAISE(DPBO_ERR_ARG, "dpbo_svm_predict_dense: NULL argument");
  const int d = pool->d;
  DPBO_TRY(svm_dense_model_make(model, d, &m, err));
  const int nr = model->nr_class, nsv = m.nsv, pairs = m.pairs, cols = 2 * (nr - 1);
  const int64_t stride = (int64_t)nr * cols; /* a row's partial sums, class by class */
  const double gamma = model->param.gamma;
  const double u = DBL_EPSILON / 2;
  const double exp_ours = 8 * u, exp_libsvm = 2 * u; /* 4 ulp (libmvec), 1 ulp (glibc) */
  const double dist_err = 2.0 * svm_gamma_k(d + 2.0);
  const double slack = 1.0 + 4.0 * svm_gamma_k((double)nsv + d + 4.0);
  int64_t block = nsv > 0 ? SVM_DENSE_BLOCK_VALUES / nsv : pool->n;
  if (block < SVM_DENSE_BLOCK_ROWS) block = SVM_DENSE_BLOCK_ROWS; /* dgemm needs some rows */
  if (block > pool->n) block = pool->n;
  DPBO_ALLOC(kv, (size_t)block * (size_t)nsv, "the kernel values");
  DPBO_ALLOC(dec, (size_t)block * (size_t)stride, "the decision values");
  DPBO_ALLOC(vote, (size_t)nr, "the votes");
  DPBO_ALLOC(nodes, (size_t)d + 1, "a sparse row");

  for (int64_t b0 = 0; b0 < pool->n; b0 += block) {
    const int rows = (int)(pool->n - b0 < block ? pool->n - b0 : block);
    svm_dense_block(pool, model, &m, b0, rows, kv, dec);
    for (int r = 0; r < rows; r++) {
      const int64_t row = b0 + r;
      const double xx = pool->norm2[row], xn = sqrt(xx);
      int uncertain = 0, near = 0;
      memset(vote, 0, (size_t)nr * sizeof *vote);
      int p = 0;
      for (int i = 0; i < nr; i++)
        for (int j = i + 1; j < nr; j++, p++) {
          const double *di = dec + r * stride + (int64_t)i * cols;
          const double *dj = dec + r * stride + (int64_t)j * cols;
          const double value = (di[j - 1] + dj[i]) - model->rho[p];
          const double mag = di[nr - 1 + j - 1] + dj[nr - 1 + i];
          const double reach = xx * m.abs_sum[p] + 2.0 * xn * m.norm_sum[p] + m.norm2_sum[p];
          const double P = gamma * dist_err * reach + (u + 2.0 * DBL_MIN) * m.abs_sum[p];
          const double k_ours = mag / (1.0 - exp_ours);
          const double dk = P + exp_ours * k_ours + exp_libsvm * (k_ours + P);
          const double rho = fabs(model->rho[p]);
          const double bound = slack * (dk + svm_gamma_k(m.pair_terms[p] + 1.0) * (mag + dk + rho) +
                                        svm_gamma_k(m.pair_terms[p] + 2.0) * (mag + rho));
          if (dec_values) dec_values[row * pairs + p] = value;
          if (dec_bounds) dec_bounds[row * pairs + p] = bound;
          if (fabs(value) <= bound) uncertain = 1;
          if (fabs(value) <= DPBO_SVM_NEAR_TIE) near = 1;
          /* svm_predict's vote: a decision value of exactly 0 goes to j. */
          if (value > 0)
            ++vote[i];
          else
            ++vote[j];
        }
      int best = 0;
      for (int i = 1; i < nr; i++)
        if (vote[i] > vote[best]) best = i; /* the first of tied classes, as LIBSVM */
      labels[row] = model->label[best];
      near_ties += near;
      if (uncertain) {
        /* The sign of a decision value is not certain: ask LIBSVM itself. */
        labels[row] = svm_dense_recheck(pool, model, row, nodes);
        rechecked++;
      }
    }
  }
  if (counts) {
    counts->rows += pool->n;
    counts->near_ties += near_ties;
    counts->rechecked += rechecked;
  }
done:
  svm_dense_model_free(&m);
  free(kv);
  free(dec);
  free(vote);
  free(nodes);
  return status;
}

/* The dense copy of data's eval rows (dpbo_svm_predict_dense), made once. */
static dpbo_status svm_data_pool(dpbo_svm_data *data, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *x = NULL;
  if (data->pool) return DPBO_OK;
  const size_t d = (size_t)data->d;
  DPBO_ALLOC(x, (size_t)data->n_eval * d, "the dense eval rows");
  for (int i = 0; i < data->n_eval; i++)
    for (const struct svm_node *node = data->eval_x[i]; node->index != -1; node++)
      x[(size_t)i * d + (size_t)(node->index - 1)] = node->value;
  DPBO_TRY(dpbo_svm_pool_create(x, data->n_eval, data->d, &data->pool, err));
done:
  free(x);
  return status;
}

dpbo_status dpbo_svm_data_train(dpbo_svm_data *data, const dpbo_svm_options *options, double C,
                                double gamma, struct svm_model **out, double *train_seconds,
                                dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  *out = NULL;
  /* svm_check_parameter lets γ = 0 through (svm-train reads -g 0 as
   * "1/features"), and non-finite values would train a meaningless model. */
  if (!isfinite(C) || !isfinite(gamma) || gamma <= 0.0)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE,
               "at C=%.17g, gamma=%.17g: C and gamma must be positive and finite", C, gamma);
  if (!(options->cache_mb > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "LIBSVM's cache (%g MiB) must be resolved to a positive size",
               options->cache_mb);

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
  *out = svm_train(&data->train, &param);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  if (train_seconds)
    *train_seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  if (!*out) DPBO_RAISE(DPBO_ERR_OBJECTIVE, "at C=%.17g, gamma=%.17g: svm_train failed", C, gamma);
done:
  return status;
}

double dpbo_svm_cache_full_mb(int64_t rows) {
  /* LIBSVM 3.x (svm.cpp, Cache::Cache): size = cache_size MiB in Qfloats,
   * minus l · sizeof(head_t) for the list heads (two pointers, a data
   * pointer and an int: 32 bytes on LP64); a row of Q holds l Qfloats. */
  const double bytes = (double)rows * (double)rows * (double)sizeof(float) + (double)rows * 32.0;
  return ceil(bytes / (1024.0 * 1024.0));
}

double dpbo_svm_cache_auto_mb(int64_t rows, double available_mb, int node_ranks, double data_mb,
                              double fraction) {
  const double share = fraction * available_mb / (node_ranks > 0 ? node_ranks : 1) - data_mb;
  if (isnan(share)) return DPBO_SVM_CACHE_FLOOR_MB; /* fmin would drop it */
  return fmax(DPBO_SVM_CACHE_FLOOR_MB, fmin(dpbo_svm_cache_full_mb(rows), floor(share)));
}

/* One number from a file (cgroup's "max" or a missing file: NaN). */
static double svm_read_number(const char *path) {
  double v = NAN;
  FILE *f = fopen(path, "r");
  if (f) {
    if (fscanf(f, "%lf", &v) != 1) v = NAN;
    fclose(f);
  }
  return v;
}

/* The memory this process's cgroup and its ancestors still allow (a Slurm
 * job's --mem limit is one), in MiB; +inf without a limit. Version 2
 * ("0::/path": memory.max, memory.current) or version 1 (the memory
 * controller's line: memory.limit_in_bytes, memory.usage_in_bytes). */
static double svm_cgroup_headroom_mb(void) {
  double headroom = INFINITY;
  char line[4096], dir[4200];
  FILE *f = fopen("/proc/self/cgroup", "r");
  if (!f) return headroom;
  while (fgets(line, sizeof line, f)) {
    line[strcspn(line, "\n")] = '\0';
    char *controllers = strchr(line, ':'),
         *path = controllers ? strchr(controllers + 1, ':') : NULL;
    if (!path) continue;
    *path++ = '\0';
    controllers++;
    const int v2 = strcmp(line, "0") == 0 && controllers[0] == '\0';
    int v1 = 0;
    for (char *c = controllers; !v2 && c && *c; c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL)
      v1 |= strncmp(c, "memory", 6) == 0 && (c[6] == ',' || c[6] == '\0');
    if (!v1 && !v2) continue;
    /* From the process's cgroup up to the hierarchy's root. */
    for (size_t len = strlen(path);;) {
      snprintf(dir, sizeof dir, "/sys/fs/cgroup%s%.*s", v1 ? "/memory" : "", (int)len, path);
      char file[4300];
      snprintf(file, sizeof file, "%s/%s", dir, v1 ? "memory.limit_in_bytes" : "memory.max");
      const double limit = svm_read_number(file);
      snprintf(file, sizeof file, "%s/%s", dir, v1 ? "memory.usage_in_bytes" : "memory.current");
      const double used = svm_read_number(file);
      /* v1 reports "no limit" as a number near 2^63. */
      if (isfinite(limit) && limit < 0x1p60 && isfinite(used))
        headroom = fmin(headroom, (limit - used) / (1024.0 * 1024.0));
      while (len > 0 && path[len - 1] != '/')
        len--;
      if (len == 0) break;
      len--; /* the slash: "/a/b" -> "/a" -> "" (the root) */
    }
  }
  fclose(f);
  return headroom;
}

dpbo_status dpbo_svm_mem_available_mb(double *mb, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char line[256];
  long long kb = -1;
  FILE *f = fopen("/proc/meminfo", "r");
  if (!f) DPBO_RAISE(DPBO_ERR_IO, "cannot read /proc/meminfo (set k1sweep.cache_mb to a number)");
  while (kb < 0 && fgets(line, sizeof line, f))
    if (sscanf(line, "MemAvailable: %lld kB", &kb) != 1) kb = -1;
  if (kb < 0)
    DPBO_RAISE(DPBO_ERR_IO,
               "/proc/meminfo has no MemAvailable line (Linux >= 3.14; set k1sweep.cache_mb to a "
               "number)");
  *mb = fmin((double)kb / 1024.0, svm_cgroup_headroom_mb());
done:
  if (f) fclose(f);
  return status;
}

int64_t dpbo_svm_data_bytes(const dpbo_svm_data *data) {
  const int64_t rows = (int64_t)data->train.l + data->n_eval;
  int64_t bytes =
      (int64_t)(data->train_count + data->eval_count) * (int64_t)sizeof(struct svm_node);
  bytes += rows * (int64_t)(sizeof(struct svm_node *) + 2 * sizeof(double)); /* x, y, labels */
  bytes += (int64_t)data->n_eval * (data->d + 1) * (int64_t)sizeof(double);  /* dense pool, norms */
  return bytes;
}

static dpbo_status svm_write_rows(const char *path, int n, struct svm_node *const *x,
                                  const double *y, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  FILE *f = fopen(path, "w");
  if (!f) DPBO_RAISE(DPBO_ERR_IO, "cannot write %s", path);
  for (int i = 0; i < n; i++) {
    fprintf(f, "%.17g", y[i]);
    for (const struct svm_node *node = x[i]; node->index != -1; node++)
      fprintf(f, " %d:%.17g", node->index, node->value);
    fputc('\n', f);
  }
  if (ferror(f)) DPBO_RAISE(DPBO_ERR_IO, "writing %s failed", path);
done:
  if (f && fclose(f) != 0 && status == DPBO_OK)
    status = DPBO_ERROR_SET(err, DPBO_ERR_IO, "writing %s failed", path);
  return status;
}

dpbo_status dpbo_svm_data_write_libsvm(const dpbo_svm_data *data, const char *train_path,
                                       const char *eval_path, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_TRY(svm_write_rows(train_path, data->train.l, data->train.x, data->train.y, err));
  DPBO_TRY(svm_write_rows(eval_path, data->n_eval, data->eval_x, data->eval_y, err));
done:
  return status;
}

const double *dpbo_svm_data_eval_y(const dpbo_svm_data *data) { return data->eval_y; }

int dpbo_svm_data_eval_rows(const dpbo_svm_data *data) { return data->n_eval; }

int dpbo_svm_data_features(const dpbo_svm_data *data) { return data->d; }

/* rows[0..n) from plain[0..n), each value times weight[its feature], with
 * the zeros a weight of 0 makes omitted, as the prepared rows omit theirs
 * (sparse_private.h): a weight of 0 then equals a column never read. */
static void svm_weigh_rows(int n, struct svm_node *const *plain, const double *weight,
                           struct svm_node **rows, struct svm_node *nodes) {
  size_t next = 0;
  for (int i = 0; i < n; i++) {
    rows[i] = nodes + next;
    for (const struct svm_node *p = plain[i]; p->index != -1; p++) {
      const double value = p->value * weight[p->index];
      if (value == 0.0) continue;
      nodes[next].index = p->index;
      nodes[next].value = value;
      next++;
    }
    nodes[next].index = -1;
    nodes[next].value = 0.0;
    next++;
  }
}

dpbo_status dpbo_svm_data_weigh(dpbo_svm_data *data, int count, const int *features,
                                const double *weights, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int plain = 1;
  for (int j = 0; j < count; j++) {
    if (features[j] < 1 || features[j] > data->d)
      DPBO_RAISE(DPBO_ERR_ARG,
                 "feature weight: feature %d is not among the data's features 1 to %d", features[j],
                 data->d);
    if (!isfinite(weights[j]) || weights[j] < 0.0)
      DPBO_RAISE(DPBO_ERR_OBJECTIVE,
                 "at weight.%d=%.17g: a feature weight must be finite and at least 0", features[j],
                 weights[j]);
    if (weights[j] != 1.0) plain = 0;
  }
  if (plain) {
    /* Every weight 1: the prepared rows themselves (x * 1 == x), so a space
     * without weights trains on exactly what it always did, with no copy. */
    if (data->weighted) {
      data->train.x = data->plain_train_x;
      data->eval_x = data->plain_eval_x;
      data->weighted = 0;
      dpbo_svm_pool_destroy(data->pool); /* made from the weighted rows */
      data->pool = NULL;
    }
    goto done;
  }
  if (!data->weight) {
    DPBO_ALLOC(data->weight, (size_t)data->d + 1, "the feature weights");
    DPBO_ALLOC(data->weighted_train_x, (size_t)data->train.l, "the weighted training rows");
    DPBO_ALLOC(data->weighted_eval_x, (size_t)(data->n_eval > 0 ? data->n_eval : 1),
               "the weighted rows to predict");
    DPBO_ALLOC(data->weighted_train_nodes, data->train_count, "the weighted training rows");
    DPBO_ALLOC(data->weighted_eval_nodes, data->eval_count, "the weighted rows to predict");
    data->plain_train_x = data->train.x;
    data->plain_eval_x = data->eval_x;
  }
  for (int k = 0; k <= data->d; k++)
    data->weight[k] = 1.0;
  for (int j = 0; j < count; j++)
    data->weight[features[j]] = weights[j];
  svm_weigh_rows(data->train.l, data->plain_train_x, data->weight, data->weighted_train_x,
                 data->weighted_train_nodes);
  svm_weigh_rows(data->n_eval, data->plain_eval_x, data->weight, data->weighted_eval_x,
                 data->weighted_eval_nodes);
  data->train.x = data->weighted_train_x;
  data->eval_x = data->weighted_eval_x;
  data->weighted = 1;
  dpbo_svm_pool_destroy(data->pool); /* the dense copy holds the previous weights */
  data->pool = NULL;
done:
  return status;
}

dpbo_status dpbo_svm_data_predict(dpbo_svm_data *data, const struct svm_model *model, int dense,
                                  double *labels, dpbo_svm_dense_counts *counts, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (dense) {
    DPBO_TRY(svm_data_pool(data, err));
    DPBO_TRY(dpbo_svm_predict_dense(data->pool, model, labels, NULL, NULL, counts, err));
  } else {
    for (int i = 0; i < data->n_eval; i++)
      labels[i] = svm_predict(model, data->eval_x[i]);
  }
done:
  return status;
}

/* The eval rows' predicted labels (data->eval_labels) against their
 * labels: correct[] (may be NULL), fit's accuracy and support vectors. */
static void svm_fit_score(const dpbo_svm_data *data, const struct svm_model *model,
                          unsigned char *correct, dpbo_svm_fit *fit) {
  int64_t right = 0;
  for (int i = 0; i < data->n_eval; i++) {
    /* Exact comparison, as svm-predict counts accuracy. */
    int ok = data->eval_labels[i] == data->eval_y[i];
    right += ok;
    if (correct) correct[i] = (unsigned char)ok;
  }
  fit->accuracy = data->n_eval ? (double)right / (double)data->n_eval : 0.0;
  fit->support_vectors = svm_get_nr_sv(model);
}

dpbo_status dpbo_svm_fit_predict(dpbo_svm_data *data, const dpbo_svm_options *options, double C,
                                 double gamma, unsigned char *correct, dpbo_svm_fit *fit,
                                 dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  struct svm_model *model = NULL;
  memset(fit, 0, sizeof *fit);
  DPBO_TRY(dpbo_svm_data_train(data, options, C, gamma, &model, &fit->train_seconds, err));
  DPBO_TRY(dpbo_svm_data_predict(data, model, 0, data->eval_labels, NULL, err));
  svm_fit_score(data, model, correct, fit);
done:
  if (model) svm_free_and_destroy_model(&model);
  return status;
}

dpbo_status dpbo_svm_fit_predict_dense(dpbo_svm_data *data, const dpbo_svm_options *options,
                                       double C, double gamma, unsigned char *correct,
                                       dpbo_svm_fit *fit, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  struct svm_model *model = NULL;
  memset(fit, 0, sizeof *fit);
  DPBO_TRY(dpbo_svm_data_train(data, options, C, gamma, &model, &fit->train_seconds, err));
  DPBO_TRY(dpbo_svm_data_predict(data, model, 1, data->eval_labels, &fit->counts, err));
  svm_fit_score(data, model, correct, fit);
done:
  if (model) svm_free_and_destroy_model(&model);
  return status;
}

dpbo_status dpbo_svm_evaluate_at(dpbo_svm_data *data, const dpbo_svm_options *options,
                                 const dpbo_svm_dims *dims, const double *values,
                                 unsigned char *correct, dpbo_svm_fit *fit, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double weights[DPBO_MAX_DIM];
  for (int j = 0; j < dims->weights; j++)
    weights[j] = values[dims->weight_dim[j]];
  DPBO_TRY(dpbo_svm_data_weigh(data, dims->weights, dims->weight_feature, weights, err));
  DPBO_TRY(
      dpbo_svm_fit_predict(data, options, values[dims->c], values[dims->gamma], correct, fit, err));
done:
  return status;
}

static void svm_destroy(void *impl_ptr) {
  svm_impl *impl = impl_ptr;
  if (!impl) return;
  dpbo_svm_data_destroy(impl->data);
  free(impl);
}

static dpbo_status svm_evaluate(void *impl_ptr, int d, const char *const *names,
                                const double *values, double *gain, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  svm_impl *impl = impl_ptr;
  dpbo_svm_dims dims;
  DPBO_TRY(dpbo_svm_dims_find(d, names, impl->data->d, impl->options.data_path, &dims, err));
  dpbo_svm_fit fit;
  status = dpbo_svm_evaluate_at(impl->data, &impl->options, &dims, values, NULL, &fit, err);
  if (status == DPBO_OK) *gain = fit.accuracy;
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

  dpbo_dataset_options read = {options->format, options->max_features, options->header,
                               options->label_column, options->labels_path};
  DPBO_TRY(dpbo_dataset_read_options(options->data_path, &read, &data, err));
  DPBO_TRY(dpbo_svm_check_labels(data, options->data_path, err));
  DPBO_ALLOC(impl, 1, "the svm objective");
  impl->options = *options;
  impl->options.space = NULL; /* not kept: the objective does not own it */
  const dpbo_svm_split split = {options->split_seed, options->train_rows, options->validation_rows};
  DPBO_TRY(
      dpbo_svm_data_split(data, &split, "svm objective", options->data_path, &impl->data, err));
  if (options->space) {
    /* The space's names now, so that a weight of a feature the data lacks
     * stops the run before its first evaluation. */
    const char *names[DPBO_MAX_DIM];
    const int d = dpbo_space_dims(options->space);
    for (int i = 0; i < d && i < DPBO_MAX_DIM; i++)
      names[i] = dpbo_space_dim(options->space, i)->name;
    dpbo_svm_dims dims;
    DPBO_TRY(dpbo_svm_dims_find(d, names, impl->data->d, options->data_path, &dims, err));
  }

  objective->ops = &svm_ops;
  objective->impl = impl;
  impl = NULL;
done:
  svm_destroy(impl);
  dpbo_dataset_destroy(data);
  return status;
}
