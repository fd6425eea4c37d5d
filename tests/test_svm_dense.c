/* dpbo_svm_predict_dense against LIBSVM's svm_predict and svm_predict_values,
 * row by row, on:
 *  - hand-built models: an exact tie (decision value 0, which LIBSVM gives to
 *    the second class), a three-class vote tie (LIBSVM picks the first class),
 *    random coefficients on random rows;
 *  - a synthetic binary problem whose pool repeats training rows (distance 0,
 *    the worst cancellation of ‖x‖² + ‖v‖² − 2x·v) and holds an all-zero row;
 *  - digits (10 classes, 64 features) and, when the shared file is there,
 *    Covertype (7 classes, 54 features), each with two (C, γ).
 * Every label must equal svm_predict's; every decision value must be within
 * the bound dpbo_svm_predict_dense derives (svm.c) of svm_predict_values';
 * the rows with a decision value within 1e-9 of 0, and those predicted again
 * by svm_predict, are counted and printed. */
#define _POSIX_C_SOURCE 200809L

#include <libsvm/svm.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dpbo/rng.h"
#include "objectives/dataset.h"
#include "objectives/sparse_private.h"
#include "objectives/svm.h"

#define DIGITS_DEFAULT "/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz"

/* Compares the dense prediction of the rows of `pool` (dense n × d, with the
 * same rows as LIBSVM nodes in `rows`) with svm_predict row by row. */
static void compare(const char *name, const struct svm_model *model, const double *x, int64_t n,
                    int d, struct svm_node **rows, int64_t want_near_ties) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_svm_pool *pool = NULL;
  const int nr = svm_get_nr_class(model), pairs = nr * (nr - 1) / 2;
  double *labels = calloc((size_t)n, sizeof *labels);
  double *dec = calloc((size_t)(n * pairs) + 1, sizeof *dec);
  double *bound = calloc((size_t)(n * pairs) + 1, sizeof *bound);
  double *ref = calloc((size_t)pairs + 1, sizeof *ref);
  dpbo_svm_dense_counts counts = {0};
  CHECK_OK(dpbo_svm_pool_create(x, n, d, &pool, &err));
  CHECK_OK(dpbo_svm_predict_dense(pool, model, labels, dec, bound, &counts, &err));
  int64_t mismatch = 0, outside = 0, near_ref = 0;
  double worst = 0.0, widest = 0.0;
  for (int64_t i = 0; i < n; i++) {
    const double want = svm_predict(model, rows[i]);
    svm_predict_values(model, rows[i], ref);
    mismatch += labels[i] != want;
    int near = 0;
    for (int p = 0; p < pairs; p++) {
      const double diff = fabs(dec[i * pairs + p] - ref[p]), b = bound[i * pairs + p];
      if (!(diff <= b)) {
        outside++;
        if (outside <= 5)
          fprintf(stderr, "  %s row %lld pair %d: ours %.17g libsvm %.17g bound %.3g\n", name,
                  (long long)i, p, dec[i * pairs + p], ref[p], b);
      }
      if (b > 0 && diff / b > worst) worst = diff / b;
      if (b > widest) widest = b;
      near |= fabs(ref[p]) <= DPBO_SVM_NEAR_TIE;
    }
    near_ref += near;
  }
  printf("  %-34s %6lld rows, %2d classes, %5d SVs: labels differ %lld, decision values "
         "outside the bound %lld (largest |diff|/bound %.2g, largest bound %.2g), near-ties "
         "%lld (LIBSVM's: %lld), rechecked %lld\n",
         name, (long long)n, nr, svm_get_nr_sv(model), (long long)mismatch, (long long)outside,
         worst, widest, (long long)counts.near_ties, (long long)near_ref,
         (long long)counts.rechecked);
  CHECK_MSG(mismatch == 0, "%s: %lld labels differ from svm_predict's", name, (long long)mismatch);
  CHECK_MSG(outside == 0, "%s: %lld decision values outside the bound", name, (long long)outside);
  CHECK(counts.rows == n);
  if (want_near_ties >= 0)
    CHECK_MSG(counts.near_ties == want_near_ties && near_ref == want_near_ties,
              "%s: near-ties %lld (LIBSVM's %lld), expected %lld", name,
              (long long)counts.near_ties, (long long)near_ref, (long long)want_near_ties);
  /* A near-tie row is one whose sign the bound cannot settle (bounds are
   * far below 1e-9 on these problems), so it is predicted by svm_predict. */
  CHECK(counts.rechecked >= 0 && counts.rechecked <= n);
  dpbo_svm_pool_destroy(pool);
  free(labels);
  free(dec);
  free(bound);
  free(ref);
}

/* LIBSVM rows of a dense dataset (zeros omitted, as dpbo's svm objective). */
typedef struct sparse_rows {
  struct svm_node **rows;
  struct svm_node *nodes;
} sparse_rows;

static sparse_rows sparse_make(const dpbo_dataset *data) {
  sparse_rows s;
  s.rows = calloc((size_t)data->n + 1, sizeof *s.rows);
  s.nodes = calloc(dpbo__sparse_count(data), sizeof *s.nodes);
  DPBO__SPARSE_FILL(data, s.rows, s.nodes);
  return s;
}

static void sparse_free(sparse_rows *s) {
  free(s->rows);
  free(s->nodes);
}

/* A hand-built RBF C-SVC model over 1-feature support vectors. */
typedef struct hand_model {
  struct svm_model model;
  struct svm_node nodes[64][2];
  struct svm_node *sv[64];
  double *coef[8];
  double coef_space[8][64];
  double rho[28];
  int label[8], nsv[8];
} hand_model;

static void hand_init(hand_model *h, int nr, const int *nsv, const double *sv, double gamma) {
  memset(h, 0, sizeof *h);
  h->model.param.svm_type = C_SVC;
  h->model.param.kernel_type = RBF;
  h->model.param.gamma = gamma;
  h->model.nr_class = nr;
  int l = 0;
  for (int i = 0; i < nr; i++) {
    h->nsv[i] = nsv[i];
    h->label[i] = 10 * i + 3;
    l += nsv[i];
  }
  for (int s = 0; s < l; s++) {
    h->nodes[s][0].index = 1;
    h->nodes[s][0].value = sv[s];
    h->nodes[s][1].index = -1;
    h->sv[s] = h->nodes[s];
  }
  for (int k = 0; k < nr - 1; k++)
    h->coef[k] = h->coef_space[k];
  h->model.l = l;
  h->model.SV = h->sv;
  h->model.sv_coef = h->coef;
  h->model.rho = h->rho;
  h->model.label = h->label;
  h->model.nSV = h->nsv;
}

static void hand_models(void) {
  printf("hand-built models\n");
  /* An exact tie: x = 0.5 between support vectors 0.25 and 0.75 with
   * coefficients +1 and −1; every difference and square is exact. */
  hand_model h;
  const int two[2] = {1, 1};
  const double sv2[2] = {0.25, 0.75};
  hand_init(&h, 2, two, sv2, 3.0);
  h.coef_space[0][0] = 1.0;
  h.coef_space[0][1] = -1.0;
  double x[3] = {0.5, 0.1, 0.9};
  struct svm_node nodes[3][2] = {{{1, 0.5}, {-1, 0}}, {{1, 0.1}, {-1, 0}}, {{1, 0.9}, {-1, 0}}};
  struct svm_node *rows[3] = {nodes[0], nodes[1], nodes[2]};
  CHECK(svm_predict(&h.model, rows[0]) == 13); /* the tie goes to the second class */
  compare("exact tie (binary)", &h.model, x, 3, 1, rows, 1);

  /* A three-way vote tie: no coefficients, decision values −ρ = (1, −1, 1)
   * give one vote to each class; LIBSVM picks the first. */
  const int three[3] = {1, 1, 1};
  const double sv3[3] = {0.2, 0.5, 0.8};
  hand_init(&h, 3, three, sv3, 1.0);
  h.rho[0] = -1.0, h.rho[1] = 1.0, h.rho[2] = -1.0;
  CHECK(svm_predict(&h.model, rows[1]) == 3);
  compare("three-way vote tie", &h.model, x, 3, 1, rows, 0);

  /* Random coefficients, ρ and rows, 4 classes. */
  dpbo_rng rng;
  dpbo_rng_seed(&rng, 14, 4);
  const int four[4] = {5, 3, 7, 4};
  double sv4[19];
  for (int s = 0; s < 19; s++)
    sv4[s] = dpbo_rng_uniform(&rng);
  hand_init(&h, 4, four, sv4, 7.0);
  for (int k = 0; k < 3; k++)
    for (int s = 0; s < 19; s++)
      h.coef_space[k][s] = 20.0 * (dpbo_rng_uniform(&rng) - 0.5);
  for (int p = 0; p < 6; p++)
    h.rho[p] = dpbo_rng_uniform(&rng) - 0.5;
  enum { N = 2000 };
  static double xr[N];
  static struct svm_node nr_nodes[N][2];
  static struct svm_node *r_rows[N];
  for (int i = 0; i < N; i++) {
    xr[i] = i % 97 == 0 ? 0.0 : 1.5 * dpbo_rng_uniform(&rng) - 0.25;
    nr_nodes[i][0].index = xr[i] != 0.0 ? 1 : -1;
    nr_nodes[i][0].value = xr[i];
    nr_nodes[i][1].index = -1;
    r_rows[i] = nr_nodes[i];
  }
  compare("random 4-class", &h.model, xr, N, 1, r_rows, -1);
}

/* Trains a C-SVC RBF model on train and compares the predictions of eval. */
static void trained(const char *name, dpbo_dataset *train, dpbo_dataset *eval, double C,
                    double gamma) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_svm_data *data = NULL;
  struct svm_model *model = NULL;
  dpbo_svm_options options;
  dpbo_svm_options_default(&options);
  CHECK_OK(dpbo_svm_data_create(train, eval, &data, &err));
  CHECK_OK(dpbo_svm_data_train(data, &options, C, gamma, &model, NULL, &err));
  if (model) {
    sparse_rows rows = sparse_make(eval);
    char label[96];
    snprintf(label, sizeof label, "%s C=%g gamma=%g", name, C, gamma);
    compare(label, model, eval->x, eval->n, eval->d, rows.rows, -1);
    /* dpbo_svm_data_predict through both paths gives the same labels. */
    double *a = calloc((size_t)eval->n, sizeof *a), *b = calloc((size_t)eval->n, sizeof *b);
    CHECK_OK(dpbo_svm_data_predict(data, model, 0, a, NULL, &err));
    CHECK_OK(dpbo_svm_data_predict(data, model, 1, b, NULL, &err));
    CHECK(memcmp(a, b, (size_t)eval->n * sizeof *a) == 0);
    /* And so do the k1 sweep's correctness flags (dpbo_svm_fit_predict_dense)
     * and the svm objective's (dpbo_svm_fit_predict). */
    unsigned char *fa = calloc((size_t)eval->n, 1), *fb = calloc((size_t)eval->n, 1);
    dpbo_svm_fit fit_a = {.accuracy = -1}, fit_b = {.accuracy = -2};
    CHECK_OK(dpbo_svm_fit_predict(data, &options, C, gamma, fa, &fit_a, &err));
    CHECK_OK(dpbo_svm_fit_predict_dense(data, &options, C, gamma, fb, &fit_b, &err));
    CHECK(memcmp(fa, fb, (size_t)eval->n) == 0 && fit_a.accuracy == fit_b.accuracy &&
          fit_a.support_vectors == fit_b.support_vectors);
    free(fa);
    free(fb);
    free(a);
    free(b);
    sparse_free(&rows);
    svm_free_and_destroy_model(&model);
  }
  dpbo_svm_data_destroy(data);
}

/* A split of a data file, scaled as the svm objective scales it. */
static void from_file(const char *name, const char *path, int64_t n_train, int64_t n_eval,
                      const double (*settings)[2], int count) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_dataset *data = NULL, *train = NULL, *eval = NULL;
  dpbo_scaling scaling;
  memset(&scaling, 0, sizeof scaling);
  CHECK_OK(dpbo_dataset_read(path, DPBO_FORMAT_AUTO, &data, &err));
  if (!data) return;
  CHECK_OK(dpbo_dataset_split(data, 20150706u, n_train, n_eval, &train, &eval, &err));
  CHECK_OK(dpbo_scaling_fit(train, &scaling, &err));
  CHECK_OK(dpbo_scaling_apply(&scaling, train, "training", &err));
  CHECK_OK(dpbo_scaling_apply(&scaling, eval, "evaluation", &err));
  for (int i = 0; i < count; i++)
    trained(name, train, eval, settings[i][0], settings[i][1]);
  dpbo_scaling_free(&scaling);
  dpbo_dataset_destroy(train);
  dpbo_dataset_destroy(eval);
  dpbo_dataset_destroy(data);
}

/* Two noisy classes in 5 features; the pool repeats the training rows
 * (distance 0 to every support vector among them) and adds new rows and an
 * all-zero row. */
static void synthetic(void) {
  enum { D = 5, TRAIN = 400, NEW = 400 };
  dpbo_rng rng;
  dpbo_rng_seed(&rng, 14, 5);
  dpbo_dataset train = {TRAIN, D, NULL, NULL}, eval = {TRAIN + NEW + 1, D, NULL, NULL};
  train.x = calloc(TRAIN * D, sizeof *train.x);
  train.y = calloc(TRAIN, sizeof *train.y);
  eval.x = calloc((TRAIN + NEW + 1) * D, sizeof *eval.x);
  eval.y = calloc(TRAIN + NEW + 1, sizeof *eval.y);
  for (int i = 0; i < TRAIN + NEW; i++) {
    double *row = eval.x + i * D, score = 0.0;
    for (int k = 0; k < D; k++) {
      row[k] = k == 4 && i % 3 == 0 ? 0.0 : dpbo_rng_uniform(&rng);
      score += (k % 2 ? 1.0 : -1.0) * row[k];
    }
    eval.y[i] = score + 0.3 * dpbo_rng_normal(&rng) > 0 ? 1.0 : -1.0;
    if (i < TRAIN) {
      memcpy(train.x + i * D, row, D * sizeof *row);
      train.y[i] = eval.y[i];
    }
  }
  printf("synthetic binary\n");
  trained("synthetic", &train, &eval, 10.0, 2.0);
  trained("synthetic", &train, &eval, 1000.0, 30.0);
  free(train.x);
  free(train.y);
  free(eval.x);
  free(eval.y);
}

int main(void) {
  hand_models();
  synthetic();

  const char *digits = getenv("DPBO_DIGITS") ? getenv("DPBO_DIGITS") : DIGITS_DEFAULT;
  const double digit_settings[2][2] = {{10.0, 0.02}, {1000.0, 0.5}};
  printf("digits\n");
  from_file("digits", digits, 500, 1297, digit_settings, 2);

  const char *shared = getenv("DPBO_SHARED_DIR");
  char covtype[4096];
  snprintf(covtype, sizeof covtype, "%s/data/covtype-206k.data.gz", shared ? shared : "../shared");
  FILE *probe = fopen(covtype, "rb");
  if (probe) {
    fclose(probe);
    const double cov_settings[2][2] = {{10.0, 0.1}, {1000.0, 10.0}};
    printf("covtype\n");
    from_file("covtype", covtype, 2000, 5000, cov_settings, 2);
  } else {
    printf("covtype: %s not found, skipped\n", covtype);
  }
  return dpbo_test_summary("test_svm_dense");
}
