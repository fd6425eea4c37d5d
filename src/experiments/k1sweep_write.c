/* `dpbo k1sweep`: the output file (collective, parallel HDF5, atomic) and
 * rank 0's account of where the time went. */
#include "experiments/k1sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/h5io.h"
#include "base/log.h"
#include "base/blas.h"
#include "dpbo/space.h"
#include "dpbo/version.h"
#include "run/output.h"
#include "experiments/k1sweep_private.h"

/* ---------------------------------------------------------------------------
 * The output file (collective, parallel HDF5, atomic). */

static dpbo_status k1sweep_write_models(hid_t file, const dpbo__k1sweep_state *st,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int synthetic = st->config->synthetic_models > 0;
  hid_t group = H5Gcreate2(file, "models", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create group /models");
  hsize_t d1[1] = {(hsize_t)st->n}, d2[2] = {(hsize_t)st->n, (hsize_t)st->d};
  DPBO_TRY(dpbo_output_write_dims(group, st->d, st->config->dim, err));
  DPBO_TRY(dpbo_h5io_attr_string(
      group, "note",
      st->config->model == DPBO_K1SWEEP_LOGREG
          ? "lambda_j = Sobol point j (unscrambled, from the origin) over log [lambda_min, "
            "lambda_max]; one L2-regularised logistic regression per setting (LIBLINEAR, the "
            "logreg objective's training and scaling; a pool row is right when sign(w'x) is "
            "its label, 0 counting as the negative class); support_vectors is 0, and the libsvm_* "
            "timings of /performance are LIBLINEAR's"
          : "lambda_j = Sobol point j (unscrambled, from the origin) over the "
            "[space] ranges; one LIBSVM RBF C-SVC per setting",
      err));
  DPBO_TRY(dpbo_h5io_write_small(group, &(dpbo_h5io_array){"lambda", H5T_NATIVE_DOUBLE, 2, d2},
                                 st->values, st->rank, err));
  DPBO_TRY(dpbo_h5io_write_small(group, &(dpbo_h5io_array){"unit", H5T_NATIVE_DOUBLE, 2, d2},
                                 st->unit, st->rank, err));
  if (!synthetic) {
    const dpbo_h5io_columns columns = {sizeof *st->model, dpbo__k1sweep_columns,
                                       DPBO__K1SWEEP_COLUMNS};
    DPBO_TRY(dpbo_h5io_write_fields(group, st->model, d1[0], &columns, st->rank, err));
    hsize_t db[2] = {(hsize_t)st->n, (hsize_t)st->nbytes};
    DPBO_TRY(
        dpbo_h5io_write_small(group, &(dpbo_h5io_array){"correct_bits", H5T_NATIVE_UINT8, 2, db},
                              st->rank == 0 ? (const void *)st->bits : st->values, st->rank, err));
  }
done:
  if (group >= 0) H5Gclose(group);
  return status;
}

static dpbo_status k1sweep_write_likelihood(hid_t parent, const dpbo_k1lik_result *res, int rank,
                                            dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int64_t *ibuf = NULL;
  hid_t group = H5Gcreate2(parent, "likelihood", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create group likelihood");
  const int K = res->count;
  hsize_t dk[1] = {(hsize_t)K};
  DPBO_ALLOC(ibuf, K, "the likelihood sweep");
  static const dpbo_h5io_field columns[] = {
      {"k1", offsetof(dpbo_k1lik_fit, k1), 0},
      {"one_minus_k1", offsetof(dpbo_k1lik_fit, one_minus_k1), 0},
      {"loglik", offsetof(dpbo_k1lik_fit, loglik), 0},
      {"m0", offsetof(dpbo_k1lik_fit, m0), 0},
      {"s", offsetof(dpbo_k1lik_fit, s), 0},
      {"sigma_n", offsetof(dpbo_k1lik_fit, sigma_n), 0},
      {"lengthscale", offsetof(dpbo_k1lik_fit, lengthscale), 0}};
  const dpbo_h5io_columns fits = {sizeof *res->grid, columns, sizeof columns / sizeof columns[0]};
  DPBO_TRY(dpbo_h5io_write_fields(group, res->grid, dk[0], &fits, rank, err));
  for (int k = 0; k < K; k++)
    ibuf[k] = res->grid[k].ell_at_bound;
  DPBO_TRY(dpbo_h5io_write_small(group, &(dpbo_h5io_array){"ell_at_bound", H5T_NATIVE_INT64, 1, dk},
                                 ibuf, rank, err));
  for (int k = 0; k < K; k++)
    ibuf[k] = res->grid[k].ratio_at_bound;
  DPBO_TRY(dpbo_h5io_write_small(
      group, &(dpbo_h5io_array){"ratio_at_bound", H5T_NATIVE_INT64, 1, dk}, ibuf, rank, err));
  const dpbo_k1lik_fit *m = &res->mle;
  const struct {
    const char *name;
    double value;
  } scalars[] = {{"k1_mle", m->k1},
                 {"one_minus_k1_mle", m->one_minus_k1},
                 {"loglik_mle", m->loglik},
                 {"m0_mle", m->m0},
                 {"s_mle", m->s},
                 {"sigma_n_mle", m->sigma_n},
                 {"lengthscale_mle", m->lengthscale},
                 {"k1_lo", res->k1_lo},
                 {"k1_hi", res->k1_hi},
                 {"t_lo", res->t_lo},
                 {"t_hi", res->t_hi},
                 {"c_mle", res->c_mle},
                 {"c_upper", res->c_upper},
                 {"delta", res->delta}};
  for (size_t k = 0; k < sizeof scalars / sizeof scalars[0]; k++)
    DPBO_TRY(dpbo_h5io_attr_doubles(group, scalars[k].name, &scalars[k].value, 1, err));
  const struct {
    const char *name;
    int64_t value;
  } flags[] = {{"boundary", res->boundary},
               {"lo_open", res->lo_open},
               {"hi_open", res->hi_open},
               {"N", res->N},
               {"mle_ell_at_bound", m->ell_at_bound},
               {"mle_ratio_at_bound", m->ratio_at_bound}};
  for (size_t k = 0; k < sizeof flags / sizeof flags[0]; k++)
    DPBO_TRY(dpbo_h5io_attr_int64(group, flags[k].name, &flags[k].value, 1, err));
  DPBO_TRY(
      dpbo_h5io_attr_string(group, "note",
                            "profile log-likelihood of the multi-task GP k1 (x) k2 over the "
                            "sets (paper, Results); boundary +1: maximum at the largest k1 "
                            "searched (a lower bound), -1: at the smallest; [k1_lo, k1_hi] "
                            "likelihood-ratio 95% interval; c = 2 sqrt((1 - k1) log(3N/delta)) "
                            "(Algorithm 1) at the MLE and at k1_lo",
                            err));
done:
  free(ibuf);
  if (group >= 0) H5Gclose(group);
  return status;
}

static dpbo_status k1sweep_write_size(hid_t file, const dpbo__k1sweep_state *st, int s,
                                      const dpbo_k1lik_result *res, const dpbo_k1gof_result *gof,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  const int64_t m = c->size[s], R = c->sets;
  int32_t *ibuf = NULL;
  char name[64];
  snprintf(name, sizeof name, "m%lld", (long long)m);
  hid_t group = H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create group /%s", name);
  DPBO_TRY(dpbo_h5io_attr_int64(group, "m", &m, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(group, "sets", &R, 1, err));
  DPBO_TRY(dpbo_h5io_attr_string(group, "neighbour", dpbo_neighbour_kind_name(c->neighbour), err));
  DPBO_TRY(dpbo_h5io_attr_doubles(group, "likelihood_seconds", &st->perf_size[s][0], 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(group, "gof_seconds", &st->perf_size[s][1], 1, err));
  hsize_t dF[2] = {(hsize_t)R, (hsize_t)st->n};
  const double *dummy = st->unit;
  DPBO_TRY(dpbo_h5io_write_small(group, &(dpbo_h5io_array){"F_V", H5T_NATIVE_DOUBLE, 2, dF},
                                 st->rank == 0 ? st->fv[s] : dummy, st->rank, err));
  DPBO_TRY(dpbo_h5io_write_small(group, &(dpbo_h5io_array){"F_Vp", H5T_NATIVE_DOUBLE, 2, dF},
                                 st->rank == 0 ? st->fvp[s] : dummy, st->rank, err));
  if (st->rows) {
    /* Each rank writes its block of sets (every rank holds them all). */
    int64_t begin, count;
    dpbo_space_block(R, st->size, st->rank, &begin, &count);
    hsize_t dV[2] = {(hsize_t)R, (hsize_t)m}, d1[1] = {(hsize_t)R};
    const dpbo_h5io_blocks valid = {.name = "valid_rows",
                                    .type = H5T_NATIVE_INT32,
                                    .ndims = 2,
                                    .dims = dV,
                                    .offset = (hsize_t)begin,
                                    .rows = (hsize_t)count};
    DPBO_TRY(dpbo_h5io_write_block(group, &valid, st->rows[s] + begin * m, err));
    DPBO_ALLOC(ibuf, R, "the neighbours");
    for (int64_t i = 0; i < R; i++)
      ibuf[i] = (int32_t)st->change[s][i].op;
    DPBO_TRY(dpbo_h5io_write_small(
        group, &(dpbo_h5io_array){"neighbour_op", H5T_NATIVE_INT32, 1, d1}, ibuf, st->rank, err));
    for (int64_t i = 0; i < R; i++)
      ibuf[i] = st->change[s][i].slot;
    DPBO_TRY(dpbo_h5io_write_small(
        group, &(dpbo_h5io_array){"neighbour_slot", H5T_NATIVE_INT32, 1, d1}, ibuf, st->rank, err));
    for (int64_t i = 0; i < R; i++)
      ibuf[i] = st->change[s][i].row;
    DPBO_TRY(dpbo_h5io_write_small(
        group, &(dpbo_h5io_array){"neighbour_row", H5T_NATIVE_INT32, 1, d1}, ibuf, st->rank, err));
    for (int64_t i = 0; i < R; i++)
      ibuf[i] = (int32_t)dpbo_valset_neighbour_size(m, &st->change[s][i]);
    DPBO_TRY(dpbo_h5io_write_small(
        group, &(dpbo_h5io_array){"neighbour_size", H5T_NATIVE_INT32, 1, d1}, ibuf, st->rank, err));
  }
  DPBO_TRY(k1sweep_write_likelihood(group, res, st->rank, err));
  DPBO_TRY(dpbo_k1gof_write(group, gof, st->rank, err));
done:
  free(ibuf);
  if (group >= 0) H5Gclose(group);
  return status;
}

/* Where this invocation's wall time went (models resumed from a checkpoint
 * are not counted): the share of the workers' time spent inside LIBSVM. */
static double k1sweep_libsvm_share(const dpbo__k1sweep_state *st, double wall_seconds) {
  const int workers = st->size > 1 ? st->size - 1 : 1;
  return wall_seconds > 0 ? (st->perf_train + st->perf_predict) / (workers * wall_seconds) : 0.0;
}

/* The per-model stages: training, predicting the pool, scoring the sets. */
enum { K1SWEEP__STAGES = 3 };
static const char *const k1sweep_stage_names[K1SWEEP__STAGES] = {"train", "predict", "score"};

typedef struct k1sweep_stage {
  double total, median, max;
} k1sweep_stage;

static int k1sweep_compare_doubles(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Total, median and max per model of each stage over the models trained in
 * this invocation (rank 0; zeros when none, NaN without memory for the sort:
 * a report, not worth failing the run). */
static void k1sweep_stages(const dpbo__k1sweep_state *st, k1sweep_stage stage[K1SWEEP__STAGES]) {
  memset(stage, 0, K1SWEEP__STAGES * sizeof *stage);
  if (st->rank != 0 || !st->fresh || st->perf_models == 0) return;
  double *v = malloc((size_t)st->n * sizeof *v);
  for (int k = 0; k < K1SWEEP__STAGES && !v; k++)
    stage[k].total = stage[k].median = stage[k].max = NAN;
  for (int k = 0; k < K1SWEEP__STAGES && v; k++) {
    int64_t count = 0;
    for (int64_t j = 0; j < st->n; j++) {
      if (!st->fresh[j]) continue;
      const dpbo__k1sweep_model *m = &st->model[j];
      v[count++] = k == 0 ? m->train_seconds : k == 1 ? m->predict_seconds : m->score_seconds;
    }
    qsort(v, (size_t)count, sizeof *v, k1sweep_compare_doubles);
    for (int64_t i = 0; i < count; i++)
      stage[k].total += v[i];
    stage[k].median = count % 2 ? v[count / 2] : 0.5 * (v[count / 2 - 1] + v[count / 2]);
    stage[k].max = v[count - 1];
  }
  free(v);
}

static dpbo_status k1sweep_write_performance(hid_t f, const dpbo__k1sweep_state *st,
                                             double wall_seconds, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t group = -1;
  k1sweep_stage stage[K1SWEEP__STAGES];
  k1sweep_stages(st, stage);
  /* Every rank writes the same attribute values: rank 0's. */
  DPBO_MPI_TRY(MPI_Bcast(stage, (int)sizeof stage, MPI_BYTE, 0, st->comm));
  group = H5Gcreate2(f, "performance", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create group /performance");
  int64_t workers = st->size > 1 ? st->size - 1 : 1;
  const double libsvm_share = k1sweep_libsvm_share(st, wall_seconds);
  DPBO_TRY(dpbo_h5io_attr_int64(group, "models_trained", &st->perf_models, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(group, "workers", &workers, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(group, "wall_seconds", &wall_seconds, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(group, "libsvm_train_seconds", &st->perf_train, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(group, "libsvm_predict_seconds", &st->perf_predict, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(group, "scoring_seconds", &st->perf_score, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(group, "load_seconds", &st->perf_load, 1, err));
  DPBO_TRY(
      dpbo_h5io_attr_doubles(group, "training_phase_seconds", &st->perf_training_phase, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(group, "likelihood_seconds", &st->perf_likelihood, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(group, "libsvm_share", &libsvm_share, 1, err));
  /* Per model (this invocation's models): <stage>_median_seconds and
   * <stage>_max_seconds; the totals are the attributes above. */
  for (int k = 0; k < K1SWEEP__STAGES; k++) {
    char name[64];
    snprintf(name, sizeof name, "%s_median_seconds", k1sweep_stage_names[k]);
    DPBO_TRY(dpbo_h5io_attr_doubles(group, name, &stage[k].median, 1, err));
    snprintf(name, sizeof name, "%s_max_seconds", k1sweep_stage_names[k]);
    DPBO_TRY(dpbo_h5io_attr_doubles(group, name, &stage[k].max, 1, err));
  }
  if (st->config->synthetic_models == 0 && st->config->model == DPBO_K1SWEEP_SVM) {
    const double cache[2] = {st->cache_mb[0], st->cache_mb[1]};
    const int64_t automatic = st->config->svm.cache_mb == DPBO_SVM_CACHE_AUTO;
    DPBO_TRY(dpbo_h5io_attr_doubles(group, "libsvm_cache_mb", cache, 2, err));
    DPBO_TRY(dpbo_h5io_attr_int64(group, "libsvm_cache_auto", &automatic, 1, err));
    DPBO_TRY(dpbo_h5io_attr_doubles(group, "libsvm_cache_full_mb", &st->cache_full_mb, 1, err));
  }
  DPBO_TRY(dpbo_h5io_attr_string(group, "note",
                                 "libsvm_share = (libsvm_train_seconds + libsvm_predict_seconds) / "
                                 "(workers x wall_seconds), for the models trained in this "
                                 "invocation; everything else (loading, scoring the sets, "
                                 "messages, idle workers, the likelihood) is 1 - libsvm_share; "
                                 "<stage>_median_seconds and <stage>_max_seconds per model of this "
                                 "invocation (train: svm_train, predict: the pool, score: the "
                                 "sets); libsvm_cache_mb: the smallest and largest kernel cache "
                                 "(MiB) of the training ranks (libsvm_cache_auto = 1: sized from "
                                 "MemAvailable), libsvm_cache_full_mb: what the whole kernel "
                                 "matrix needs; /m<m>@likelihood_seconds and gof_seconds: each "
                                 "size's likelihood sweep and statistics",
                                 err));
done:
  if (group >= 0) H5Gclose(group);
  return status;
}

dpbo_status dpbo__k1sweep_write(const dpbo__k1sweep_state *st, const char *path,
                                const dpbo_k1lik_result *results, const dpbo_k1gof_result *gof,
                                double wall_seconds, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  dpbo_h5io_file out;
  DPBO_TRY(dpbo_h5io_create(st->comm, path, &out, err));
  hid_t f = out.id;
  DPBO_TRY(dpbo_h5io_attr_string(f, "dpbo_version", DPBO_VERSION_STRING, err));
  /* The BLAS kernels beside the version: the stage times depend on them
   * (issue #24). Rank 0's line, so that every rank writes the same value. */
  char blas[512];
  int blas_warn = 0;
  dpbo_blas_describe(blas, sizeof blas, &blas_warn);
  DPBO_MPI_TRY(MPI_Bcast(blas, (int)sizeof blas, MPI_CHAR, 0, st->comm));
  DPBO_TRY(dpbo_h5io_attr_string(f, "blas", blas, err));
  DPBO_TRY(dpbo_h5io_attr_string(f, "command", "k1sweep", err));
  DPBO_TRY(dpbo_h5io_attr_string(f, "config_file", c->settings.path, err));
  DPBO_TRY(dpbo_output_write_settings(f, &c->settings, err));
  DPBO_TRY(dpbo_h5io_attr_string(f, "fingerprint", st->fingerprint, err));
  DPBO_TRY(dpbo_h5io_attr_string(f, "config_hash", st->hash, err));
  const int synthetic = c->synthetic_models > 0;
  DPBO_TRY(dpbo_h5io_attr_string(
      f, "mode", synthetic ? "synthetic" : dpbo_k1sweep_model_names[c->model], err));
  int64_t seed = (int64_t)c->seed, ranks = st->size;
  DPBO_TRY(dpbo_h5io_attr_int64(f, "seed", &seed, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(f, "ranks", &ranks, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(f, "models", &st->n, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(f, "sets", &c->sets, 1, err));
  DPBO_TRY(
      dpbo_h5io_attr_array(f, "sizes", H5T_NATIVE_INT64, c->size, (hsize_t)c->size_count, err));
  DPBO_TRY(dpbo_h5io_attr_string(f, "neighbour", dpbo_neighbour_kind_name(c->neighbour), err));
  DPBO_TRY(dpbo_h5io_attr_doubles(f, "wall_seconds", &wall_seconds, 1, err));
  DPBO_TRY(k1sweep_write_performance(f, st, wall_seconds, err));
  if (synthetic) {
    const double truth[5] = {c->synthetic_k1, c->synthetic_mean, c->synthetic_signal_std,
                             c->synthetic_lengthscale, st->synthetic_jitter};
    DPBO_TRY(dpbo_h5io_attr_doubles(f, "synthetic_truth", truth, 5, err));
    DPBO_TRY(
        dpbo_h5io_attr_string(f, "synthetic_truth_names",
                              "k1,mean,signal_std,lengthscale,jitter (noise std of F at size m: "
                              "sqrt(mean (1 - mean) / m))",
                              err));
  } else {
    int64_t train = c->train_rows;
    DPBO_TRY(dpbo_h5io_attr_int64(f, "train_rows", &train, 1, err));
    DPBO_TRY(dpbo_h5io_attr_int64(f, "pool_rows", &st->pool, 1, err));
    DPBO_TRY(dpbo_h5io_attr_int64(f, "data_rows", &st->data_rows, 1, err));
    DPBO_TRY(dpbo_h5io_attr_string(f, "data", c->data_path, err));
  }
  DPBO_TRY(dpbo_h5io_attr_string(f, "note",
                                 "k1 is a prior hyper-parameter: estimate it on public or proxy "
                                 "data; fitted on the sensitive validation data it voids the "
                                 "privacy guarantee (docs/design.md section 1)",
                                 err));
  DPBO_TRY(k1sweep_write_models(f, st, err));
  for (int s = 0; s < c->size_count; s++)
    DPBO_TRY(k1sweep_write_size(f, st, s, &results[s], &gof[s], err));
  DPBO_TRY(dpbo_h5io_commit(&out, err));
done:
  if (status != DPBO_OK) dpbo_h5io_discard(&out);
  return status;
}

/* Rank 0's account of where the time went (svm and logreg modes). */
void dpbo__k1sweep_log_performance(const dpbo__k1sweep_state *st, double wall) {
  const dpbo_k1sweep_config *c = st->config;
  /* The perf_* counters time whichever library trains the models (the HDF5
   * attributes keep their libsvm_* names for existing readers). */
  const char *library = c->model == DPBO_K1SWEEP_LOGREG ? "LIBLINEAR" : "LIBSVM";
  dpbo_log_info("k1sweep: %lld models trained in this run: %.1f s inside %s (%.1f training, %.1f "
                "predicting the pool), %.1f s scoring the sets, on %d worker(s) over %.1f s wall "
                "(training phase %.1f s, likelihood %.1f s, loading %.1f s): %s %.1f%% of the "
                "workers' time, everything else %.1f%%",
                (long long)st->perf_models, st->perf_train + st->perf_predict, library,
                st->perf_train, st->perf_predict, st->perf_score, st->size > 1 ? st->size - 1 : 1,
                wall, st->perf_training_phase, st->perf_likelihood, st->perf_load, library,
                100.0 * k1sweep_libsvm_share(st, wall),
                100.0 * (1.0 - k1sweep_libsvm_share(st, wall)));
  k1sweep_stage stage[K1SWEEP__STAGES];
  k1sweep_stages(st, stage);
  const int workers = st->size > 1 ? st->size - 1 : 1;
  static const char *const what[K1SWEEP__STAGES] = {"training", "pool prediction", "scoring"};
  /* A worker stage's share: its time over the workers' (workers x wall). */
  for (int k = 0; k < K1SWEEP__STAGES; k++)
    dpbo_log_info("k1sweep: stage %-15s %9.1f s total, %7.2f s median, %7.2f s max per model, "
                  "%5.1f%% of the workers' wall time",
                  what[k], stage[k].total, stage[k].median, stage[k].max,
                  100.0 * stage[k].total / (workers * wall));
  for (int s = 0; s < c->size_count; s++)
    dpbo_log_info("k1sweep: stage likelihood m = %-6lld %7.1f s (+ %.1f s statistics), %5.1f%% "
                  "of the wall time",
                  (long long)c->size[s], st->perf_size[s][0], st->perf_size[s][1],
                  100.0 * (st->perf_size[s][0] + st->perf_size[s][1]) / wall);
}
