/* `dpbo k1sweep`: the k1 experiment of the paper's Results (Figure 1); the
 * pipeline is described in include/dpbo/k1sweep.h. */
#include "experiments/k1sweep.h"

#include <errno.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/comm.h"
#include "base/h5io.h"
#include "base/settings.h"
#include "dpbo/kernel.h"
#include "base/log.h"
#include "base/blas.h"
#include "dpbo/rng.h"
#include "dpbo/space.h"
#include "dpbo/version.h"
#include "run/config.h"
#include "run/output.h"
#include "run/farm.h"
#include "experiments/k1sweep_keys.h"

/* ---------------------------------------------------------------------------
 * Configuration. */

static const char *const k1sweep_sections[] = {"k1sweep", "space", "likelihood", "output", NULL};

/* "1000 2000, 3000" -> sizes; each at least 2, strictly ascending. */
static dpbo_status k1sweep_parse_sizes(dpbo_k1sweep_config *c, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char text[1024];
  DPBO_TRY(
      dpbo_settings_get_string(&c->settings, "k1sweep", "sizes", NULL, text, sizeof text, err));
  c->size_count = 0;
  int ok = 1;
  for (char *cursor = text;;) {
    while (*cursor == ' ' || *cursor == ',' || *cursor == '\t')
      cursor++;
    if (!*cursor) break;
    char *end;
    errno = 0;
    long long v = strtoll(cursor, &end, 10);
    if (end == cursor || errno == ERANGE || (*end && *end != ' ' && *end != ',' && *end != '\t') ||
        c->size_count >= DPBO_K1SWEEP_MAX_SIZES || v < 2 || v > DPBO_VALSET_MAX_M ||
        (c->size_count > 0 && v <= c->size[c->size_count - 1])) {
      ok = 0;
      break;
    }
    c->size[c->size_count++] = v;
    cursor = end;
  }
  char what[200];
  snprintf(what, sizeof what,
           "must list 1 to %d validation-set sizes m, ascending, each in [2, %lld]",
           DPBO_K1SWEEP_MAX_SIZES, (long long)DPBO_VALSET_MAX_M);
  DPBO_TRY(
      dpbo_settings_require(&c->settings, "k1sweep", "sizes", ok && c->size_count > 0, what, err));
done:
  return status;
}

static dpbo_status k1sweep_config_likelihood(dpbo_k1sweep_config *c, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_settings *settings = &c->settings;
  dpbo_k1lik_options *o = &c->likelihood;
  int choice;
  int64_t i64;
  dpbo_k1lik_options_default(o);
  DPBO_TRY(dpbo_settings_get_choice(settings, "likelihood", "kernel",
                                    dpbo_kernel_kind_name(o->kernel), dpbo_kernel_kind_names,
                                    &choice, err));
  o->kernel = (dpbo_kernel_kind)choice;
  DPBO_TRY(
      dpbo_settings_get_double(settings, "likelihood", "ell_min", o->ell_min, 0, &o->ell_min, err));
  DPBO_TRY(
      dpbo_settings_get_double(settings, "likelihood", "ell_max", o->ell_max, 0, &o->ell_max, err));
  DPBO_TRY(dpbo_settings_require(settings, "likelihood", "ell_max",
                                 o->ell_min > 0 && o->ell_max > o->ell_min,
                                 "must exceed likelihood.ell_min > 0", err));
  DPBO_TRY(dpbo_settings_get_double(settings, "likelihood", "ell_step", o->ell_step, 0,
                                    &o->ell_step, err));
  DPBO_TRY(dpbo_settings_require(settings, "likelihood", "ell_step", o->ell_step > 0,
                                 "must be positive", err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "likelihood", "ell_grid", o->ell_grid, 2, 10000, &i64,
                                   err));
  o->ell_grid = (int)i64;
  DPBO_TRY(dpbo_settings_get_double(settings, "likelihood", "ratio_min", o->ratio_min, 0,
                                    &o->ratio_min, err));
  DPBO_TRY(dpbo_settings_get_double(settings, "likelihood", "ratio_max", o->ratio_max, 0,
                                    &o->ratio_max, err));
  DPBO_TRY(dpbo_settings_require(settings, "likelihood", "ratio_max",
                                 o->ratio_min > 0 && o->ratio_max > o->ratio_min,
                                 "must exceed likelihood.ratio_min > 0", err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "likelihood", "ratio_per_decade", o->ratio_per_decade,
                                   1, 1000, &i64, err));
  o->ratio_per_decade = (int)i64;
  DPBO_TRY(
      dpbo_settings_get_double(settings, "likelihood", "k1_step", o->k1_step, 0, &o->k1_step, err));
  DPBO_TRY(dpbo_settings_require(settings, "likelihood", "k1_step",
                                 o->k1_step > 0 && o->k1_step < 0.5, "must lie in (0, 0.5)", err));
  DPBO_TRY(dpbo_settings_get_double(settings, "likelihood", "t_min", o->t_min, 0, &o->t_min, err));
  DPBO_TRY(dpbo_settings_require(settings, "likelihood", "t_min",
                                 o->t_min > 0 && o->t_min < o->k1_step,
                                 "(the smallest 1 - k1 searched) must lie in (0, k1_step)", err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "likelihood", "t_per_decade", o->t_per_decade, 1, 1000,
                                   &i64, err));
  o->t_per_decade = (int)i64;
  DPBO_TRY(dpbo_settings_get_int64(settings, "likelihood", "eigen_threshold", o->eigen_threshold, 0,
                                   INT32_MAX, &i64, err));
  o->eigen_threshold = (int)i64;
  DPBO_TRY(dpbo_settings_get_double(settings, "likelihood", "delta", 0.05, 0, &c->delta, err));
  DPBO_TRY(dpbo_settings_require(settings, "likelihood", "delta", c->delta > 0 && c->delta < 1,
                                 "(δ of Algorithm 1's c) must lie in (0, 1)", err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "likelihood", "bootstrap", 100, 0, 100000,
                                   &c->bootstrap, err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "likelihood", "pipeline_iterations", 30, 0, 1000, &i64,
                                   err));
  c->pipeline_iterations = (int)i64;
done:
  return status;
}

const char *const dpbo_k1sweep_model_names[] = {"svm", "logreg", NULL};

/* model = logreg: LIBLINEAR's tolerance, the positive class and the range
 * of λ, which becomes the sweep's one (log) dimension "lambda". */
static dpbo_status k1sweep_config_logreg(dpbo_k1sweep_config *c, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_settings *settings = &c->settings;
  dpbo_logreg_options *o = &c->logreg;
  DPBO_TRY(dpbo_settings_get_double(settings, "k1sweep", "tolerance", o->tolerance, 0,
                                    &o->tolerance, err));
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "tolerance",
                                 o->tolerance > 0 && isfinite(o->tolerance), "must be positive",
                                 err));
  DPBO_TRY(dpbo_settings_get_double(settings, "k1sweep", "positive_label", o->positive_label, 0,
                                    &o->positive_label, err));
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "positive_label",
                                 isnan(o->positive_label) || isfinite(o->positive_label),
                                 "must be a label of the data", err));
  dpbo_dim *dim = &c->dim[0];
  memset(dim, 0, sizeof *dim);
  snprintf(dim->name, sizeof dim->name, "lambda");
  dim->scale = DPBO_SCALE_LOG;
  DPBO_TRY(dpbo_settings_get_double(settings, "k1sweep", "lambda_min", 1e-6, 0, &dim->lo, err));
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "lambda_min",
                                 dim->lo > 0 && isfinite(dim->lo), "must be positive", err));
  DPBO_TRY(dpbo_settings_get_double(settings, "k1sweep", "lambda_max", 1.0, 0, &dim->hi, err));
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "lambda_max",
                                 dim->hi > dim->lo && isfinite(dim->hi),
                                 "must exceed k1sweep.lambda_min", err));
  c->dims = 1;
done:
  return status;
}

/* k1sweep.cache_mb: "auto" (sized from the memory per rank when the data
 * is loaded, k1sweep_cache_resolve) or a positive number of MiB. */
static dpbo_status k1sweep_config_cache(dpbo_k1sweep_config *c, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char text[64], *end = text;
  DPBO_TRY(dpbo_settings_get_string(&c->settings, "k1sweep", "cache_mb", "auto", text, sizeof text,
                                    err));
  const int automatic = strcmp(text, "auto") == 0;
  errno = 0;
  const double mb = automatic ? DPBO_SVM_CACHE_AUTO : strtod(text, &end);
  while (*end == ' ' || *end == '\t')
    end++;
  DPBO_TRY(dpbo_settings_require(
      &c->settings, "k1sweep", "cache_mb",
      automatic || (end != text && *end == '\0' && errno != ERANGE && isfinite(mb) && mb > 0),
      "must be auto or a positive number of MiB", err));
  c->svm.cache_mb = mb;
done:
  return status;
}

/* dpbo_settings_check_used, saying when a known key of the other model was
 * written (e.g. cache_mb with model = logreg). */
static dpbo_status k1sweep_check_used(const dpbo_k1sweep_config *c, dpbo_error *err) {
  const dpbo_settings_entry *e = dpbo_settings_unused(&c->settings);
  const dpbo_settings_key *row =
      e ? dpbo_settings_schema_row(dpbo_k1sweep_keys, e->section, e->key) : NULL;
  if (row && row->applies[0]) {
    char where[DPBO_PATH_MAX + 32];
    dpbo_settings_where(&c->settings, e, where, sizeof where);
    return DPBO_ERROR_SET(
        err, DPBO_ERR_CONFIG, "%s: %s.%s is read only when %s (this config has k1sweep.model = %s)",
        where, e->section, e->key, row->applies, dpbo_k1sweep_model_names[c->model]);
  }
  return dpbo_settings_check_used(&c->settings, err);
}

/* k1sweep.data, format, labels and the row counts: where the models'
 * records come from. */
static dpbo_status k1sweep_config_data(dpbo_k1sweep_config *c, int synthetic, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_settings *settings = &c->settings;
  int choice;
  DPBO_TRY(dpbo_settings_get_string(settings, "k1sweep", "data", synthetic ? "" : NULL,
                                    c->data_path, sizeof c->data_path, err));
  DPBO_TRY(dpbo_settings_get_choice(settings, "k1sweep", "format", "auto", dpbo_data_format_names,
                                    &choice, err));
  c->format = (dpbo_data_format)choice;
  /* IDX keeps its labels in a second file (as objective.labels). */
  DPBO_TRY(dpbo_settings_get_string(settings, "k1sweep", "labels", "", c->labels_path,
                                    sizeof c->labels_path, err));
  if (c->format == DPBO_FORMAT_AUTO && c->labels_path[0]) c->format = DPBO_FORMAT_IDX;
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "labels",
                                 synthetic || c->format != DPBO_FORMAT_IDX || c->labels_path[0],
                                 "is required with k1sweep.format = idx (the labels file)", err));
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "labels",
                                 c->format == DPBO_FORMAT_IDX || !c->labels_path[0],
                                 "applies to IDX files (k1sweep.format = idx)", err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "train_rows", 0, 0, INT32_MAX,
                                   &c->train_rows, err));
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "train_rows", synthetic || c->train_rows >= 1,
                                 "is required (the number of training rows, >= 1)", err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "pool_rows", 0, 0, INT32_MAX, &c->pool_rows,
                                   err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "models", 100, 1, DPBO_EIGEN_MAX_N,
                                   &c->models, err));
done:
  return status;
}

/* The trainer's options: LIBLINEAR's for logreg, LIBSVM's otherwise. */
static dpbo_status k1sweep_config_model(dpbo_k1sweep_config *c, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_settings *settings = &c->settings;
  int64_t i64;
  dpbo_svm_options_default(&c->svm);
  dpbo_logreg_options_default(&c->logreg);
  if (c->model == DPBO_K1SWEEP_LOGREG) {
    DPBO_TRY(k1sweep_config_logreg(c, err));
  } else {
    DPBO_TRY(k1sweep_config_cache(c, err));
    DPBO_TRY(dpbo_settings_get_double(settings, "k1sweep", "tolerance", c->svm.tolerance, 0,
                                      &c->svm.tolerance, err));
    DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "tolerance", c->svm.tolerance > 0,
                                   "must be positive", err));
    DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "shrinking", 1, 0, 1, &i64, err));
    c->svm.shrinking = (int)i64;
  }
done:
  return status;
}

/* synthetic_*: the GP that draws accuracies when k1sweep.synthetic_models > 0. */
static dpbo_status k1sweep_config_synthetic(dpbo_k1sweep_config *c, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_settings *settings = &c->settings;
  DPBO_TRY(
      dpbo_settings_get_double(settings, "k1sweep", "synthetic_k1", 0.9, 0, &c->synthetic_k1, err));
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "synthetic_k1",
                                 c->synthetic_k1 >= 0 && c->synthetic_k1 <= 1, "must lie in [0, 1]",
                                 err));
  DPBO_TRY(dpbo_settings_get_double(settings, "k1sweep", "synthetic_mean", 0.8, 0,
                                    &c->synthetic_mean, err));
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "synthetic_mean",
                                 c->synthetic_mean > 0 && c->synthetic_mean < 1,
                                 "(an accuracy) must lie in (0, 1)", err));
  DPBO_TRY(dpbo_settings_get_double(settings, "k1sweep", "synthetic_signal_std", 0.05, 0,
                                    &c->synthetic_signal_std, err));
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "synthetic_signal_std",
                                 c->synthetic_signal_std > 0, "must be positive", err));
  DPBO_TRY(dpbo_settings_get_double(settings, "k1sweep", "synthetic_lengthscale", 0.3, 0,
                                    &c->synthetic_lengthscale, err));
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "synthetic_lengthscale",
                                 c->synthetic_lengthscale > 0, "must be positive", err));
done:
  return status;
}

/* [space]: Sobol settings over the dimensions; the SVMs need C and γ.
 * The logreg models' one dimension, λ, comes from [k1sweep]. */
static dpbo_status k1sweep_config_space(dpbo_k1sweep_config *c, int synthetic, int logreg,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_settings *settings = &c->settings;
  if (logreg) {
    for (int i = 0; i < settings->count; i++)
      if (strcmp(settings->entry[i].section, "space") == 0) {
        char where[DPBO_PATH_MAX + 32];
        dpbo_settings_where(settings, &settings->entry[i], where, sizeof where);
        DPBO_RAISE(DPBO_ERR_CONFIG,
                   "%s: [space] sets the SVMs' (C, gamma); with k1sweep.model = logreg the range "
                   "of lambda is k1sweep.lambda_min and k1sweep.lambda_max",
                   where);
      }
  } else {
    DPBO_TRY(dpbo_config_get_dims(settings, DPBO_SPACE_SOBOL, c->dim, &c->dims, err));
    /* The sweep's SVMs, synthetic models and length-scale fits take numbers. */
    for (int i = 0; i < c->dims; i++)
      if (c->dim[i].type == DPBO_DIM_CATEGORICAL)
        DPBO_RAISE(DPBO_ERR_CONFIG,
                   "%s: space.dim.%s: the k1 sweep takes numeric dimensions only, not categorical",
                   settings->path, c->dim[i].name);
  }
  if (!synthetic && !logreg) {
    int have_c = 0, have_gamma = 0;
    for (int i = 0; i < c->dims; i++) {
      have_c += strcmp(c->dim[i].name, "C") == 0;
      have_gamma += strcmp(c->dim[i].name, "gamma") == 0;
    }
    if (c->dims != 2 || have_c != 1 || have_gamma != 1)
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "%s: [space] must have exactly the dimensions dim.C and dim.gamma for the SVMs "
                 "(any dimensions are allowed with k1sweep.synthetic_models)",
                 settings->path);
  }
done:
  return status;
}

dpbo_status dpbo_k1sweep_config_load(const char *path, int override_count,
                                     const char *const *overrides, dpbo_k1sweep_config *c,
                                     dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_settings *settings = &c->settings;
  int64_t i64;
  int choice;
  memset(c, 0, sizeof *c);
  DPBO_TRY(dpbo_settings_read(settings, path, override_count, overrides, err));
  DPBO_TRY(dpbo_settings_check_sections(settings, k1sweep_sections, err));
  /* Every getter checks its key against the table (k1sweep_keys.h). */
  settings->schema = dpbo_k1sweep_keys;

  /* [k1sweep] */
  DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "seed", 1, 0, INT64_MAX, &i64, err));
  c->seed = (uint64_t)i64;
  DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "synthetic_models", 0, 0, DPBO_EIGEN_MAX_N,
                                   &c->synthetic_models, err));
  const int synthetic = c->synthetic_models > 0;
  DPBO_TRY(dpbo_settings_get_choice(settings, "k1sweep", "model", "svm", dpbo_k1sweep_model_names,
                                    &choice, err));
  c->model = (dpbo_k1sweep_model)choice;
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "model",
                                 !synthetic || c->model == DPBO_K1SWEEP_SVM,
                                 "= logreg trains models; synthetic mode (k1sweep.synthetic_models "
                                 "> 0) has none",
                                 err));
  const int logreg = c->model == DPBO_K1SWEEP_LOGREG;
  DPBO_TRY(k1sweep_config_data(c, synthetic, err));
  DPBO_TRY(k1sweep_config_model(c, err));
  /* Only accepts or refuses the data (dataset.h), so not a setting a rerun
   * must repeat. */
  DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "max_features", DPBO_DATASET_MAX_FEATURES,
                                   1, INT32_MAX, &c->svm.max_features, err));
  DPBO_TRY(k1sweep_parse_sizes(c, err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "sets", 100, 1, DPBO_VALSET_MAX_SETS,
                                   &c->sets, err));
  DPBO_TRY(dpbo_settings_get_choice(settings, "k1sweep", "neighbour", "add_remove",
                                    dpbo_neighbour_kind_names, &choice, err));
  c->neighbour = (dpbo_neighbour_kind)choice;
  /* The adversarial record is the one whose removal spreads the models'
   * accuracies most: it needs models, and two or more for a spread. */
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "neighbour",
                                 c->neighbour != DPBO_NEIGHBOUR_ADVERSARIAL ||
                                     (!synthetic && c->models >= 2),
                                 "= adversarial chooses the record from the trained models' "
                                 "correctness: it needs k1sweep.models >= 2 and no synthetic mode",
                                 err));
  DPBO_TRY(k1sweep_config_synthetic(c, err));
  DPBO_TRY(k1sweep_config_space(c, synthetic, logreg, err));
  DPBO_TRY(k1sweep_config_likelihood(c, err));

  /* [output] */
  DPBO_TRY(dpbo_config_get_output(settings, c->output_dir, sizeof c->output_dir, c->output_name,
                                  sizeof c->output_name, err));
  DPBO_TRY(k1sweep_check_used(c, err));
done:
  if (status != DPBO_OK) dpbo_k1sweep_config_free(c);
  return status;
}

void dpbo_k1sweep_config_free(dpbo_k1sweep_config *config) {
  if (config) dpbo_settings_free(&config->settings);
}

int64_t dpbo_k1sweep_settings(const dpbo_k1sweep_config *config) {
  return config->synthetic_models > 0 ? config->synthetic_models : config->models;
}

void dpbo_k1sweep_output_path(const dpbo_k1sweep_config *config, char *path, size_t size) {
  snprintf(path, size, "%s/%s.h5", config->output_dir, config->output_name);
}

void dpbo_k1sweep_checkpoint_path(const dpbo_k1sweep_config *config, char *path, size_t size) {
  snprintf(path, size, "%s/%s.partial.h5", config->output_dir, config->output_name);
}

/* The resolved settings that determine every model's result (and the sets
 * it is scored on), one "key=value" per line. The checkpoint is valid for a
 * rerun exactly when this text is unchanged; the LIBSVM cache size, the
 * likelihood and the output settings do not enter. */
static void k1sweep_fingerprint(const dpbo_k1sweep_config *c, char *text, size_t size) {
  size_t used = 0;
#define K1SWEEP__LINE(...)                                                                         \
  do {                                                                                             \
    if (used < size) used += (size_t)snprintf(text + used, size - used, __VA_ARGS__);              \
  } while (0)
  K1SWEEP__LINE("k1sweep.seed=%llu\n", (unsigned long long)c->seed);
  K1SWEEP__LINE("k1sweep.synthetic_models=%lld\n", (long long)c->synthetic_models);
  K1SWEEP__LINE("k1sweep.data=%s\n", c->data_path);
  K1SWEEP__LINE("k1sweep.format=%s\n", dpbo_data_format_name(c->format));
  K1SWEEP__LINE("k1sweep.train_rows=%lld\n", (long long)c->train_rows);
  K1SWEEP__LINE("k1sweep.pool_rows=%lld\n", (long long)c->pool_rows);
  K1SWEEP__LINE("k1sweep.models=%lld\n", (long long)c->models);
  /* Lines that a sweep of RBF-SVMs on a non-IDX file does not have, so
   * that the hashes (and checkpoints) of such sweeps stay as they were. */
  if (c->labels_path[0]) K1SWEEP__LINE("k1sweep.labels=%s\n", c->labels_path);
  if (c->model == DPBO_K1SWEEP_LOGREG) {
    K1SWEEP__LINE("k1sweep.model=%s\n", dpbo_k1sweep_model_names[c->model]);
    K1SWEEP__LINE("k1sweep.tolerance=%.17g\n", c->logreg.tolerance);
    K1SWEEP__LINE("k1sweep.positive_label=%.17g\n", c->logreg.positive_label);
  } else {
    K1SWEEP__LINE("k1sweep.tolerance=%.17g\n", c->svm.tolerance);
    K1SWEEP__LINE("k1sweep.shrinking=%d\n", c->svm.shrinking);
  }
  K1SWEEP__LINE("k1sweep.sizes=");
  for (int s = 0; s < c->size_count; s++)
    K1SWEEP__LINE("%s%lld", s ? " " : "", (long long)c->size[s]);
  K1SWEEP__LINE("\n");
  K1SWEEP__LINE("k1sweep.sets=%lld\n", (long long)c->sets);
  K1SWEEP__LINE("k1sweep.neighbour=%s\n", dpbo_neighbour_kind_name(c->neighbour));
  for (int i = 0; i < c->dims; i++) {
    const dpbo_dim *dim = &c->dim[i];
    K1SWEEP__LINE("space.dim.%s=%s %.17g %.17g\n", dim->name, dpbo_scale_name(dim->scale), dim->lo,
                  dim->hi);
  }
#undef K1SWEEP__LINE
}

/* FNV-1a, 64 bits, printed in hex: a short name for the fingerprint. */
static void k1sweep_hash(const char *text, char *hex, size_t size) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    h ^= *p;
    h *= UINT64_C(0x100000001b3);
  }
  snprintf(hex, size, "%016llx", (unsigned long long)h);
}

/* The first line whose key or value differs between two fingerprints, as an
 * error naming the key. */
static dpbo_status k1sweep_compare(const char *stored, const char *current, const char *checkpoint,
                                   dpbo_error *err) {
  const char *a = stored, *b = current;
  while (*a || *b) {
    const char *ea = strchr(a, '\n'), *eb = strchr(b, '\n');
    size_t la = ea ? (size_t)(ea - a) : strlen(a), lb = eb ? (size_t)(eb - b) : strlen(b);
    if (la != lb || memcmp(a, b, la) != 0) {
      const char *eqa = memchr(a, '=', la), *eqb = memchr(b, '=', lb);
      size_t ka = eqa ? (size_t)(eqa - a) : la, kb = eqb ? (size_t)(eqb - b) : lb;
      if (ka == kb && memcmp(a, b, ka) == 0 && eqa && eqb)
        return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG,
                              "%s was written with %.*s = '%.*s'; this run has '%.*s'. Restore the "
                              "setting to continue that sweep, or delete the checkpoint to start "
                              "over",
                              checkpoint, (int)ka, a, (int)(la - ka - 1), eqa + 1,
                              (int)(lb - kb - 1), eqb + 1);
      return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG,
                            "%s was written with different settings ('%.*s' against '%.*s'); "
                            "restore them, or delete the checkpoint to start over",
                            checkpoint, (int)la, a, (int)lb, b);
    }
    a += la + (ea ? 1 : 0);
    b += lb + (eb ? 1 : 0);
  }
  return DPBO_OK;
}

/* ---------------------------------------------------------------------------
 * The run's state. */

/* One model's result as a worker sends it: this header, then `acc_count`
 * doubles (for each size s and set i: accuracy on V_i at s·2·sets + i, on
 * V_i' at s·2·sets + sets + i), then the pool's correctness bits. */
typedef struct k1sweep_model {
  int64_t worker, support_vectors;
  double train_seconds, predict_seconds, pool_accuracy;
  double score_seconds; /* deriving the set accuracies from the predictions */
} k1sweep_model;

typedef struct k1sweep_head {
  int64_t model;
  k1sweep_model result;
  int32_t code, pad;
  char message[DPBO_ERROR_MSG_MAX];
} k1sweep_head;

/* A model's numbers as columns: one table for the checkpoint (written and
 * read back) and the output file's /models. */
static const dpbo_h5io_field k1sweep_columns[] = {
    {"worker", offsetof(k1sweep_model, worker), 1},
    {"support_vectors", offsetof(k1sweep_model, support_vectors), 1},
    {"train_seconds", offsetof(k1sweep_model, train_seconds), 0},
    {"predict_seconds", offsetof(k1sweep_model, predict_seconds), 0},
    {"pool_accuracy", offsetof(k1sweep_model, pool_accuracy), 0},
    /* last: checkpoints written before it have the columns above only */
    {"score_seconds", offsetof(k1sweep_model, score_seconds), 0}};
#define K1SWEEP__COLUMNS (sizeof k1sweep_columns / sizeof k1sweep_columns[0])

typedef struct k1sweep_state {
  const dpbo_k1sweep_config *config;
  MPI_Comm comm;
  int rank, size;
  int64_t n; /* settings */
  int d;
  double *unit;   /* n × d */
  double *values; /* n × d: (C, γ) in config order */
  int c_dim, gamma_dim;
  /* data (on the ranks that train): LIBSVM's, or the logreg objective's */
  dpbo_svm_data *svm;
  dpbo_objective logreg;
  int64_t data_rows, pool, nbytes;
  /* validation sets (svm mode; every rank) */
  int32_t **rows;              /* [size] sets × m */
  dpbo_valset_change **change; /* [size] sets */
  int64_t acc_count;           /* size_count · 2 · sets */
  /* results (rank 0) */
  unsigned char *done;
  int64_t done_count;
  k1sweep_model *model;
  double *accuracy; /* n × acc_count */
  uint8_t *bits;    /* n × nbytes */
  /* F matrices (rank 0): [size] sets × n */
  double **fv, **fvp;
  double synthetic_jitter;
  /* where this invocation's time went (rank 0): inside LIBSVM (training and
   * predicting the pool, summed over workers), scoring the sets, phases */
  double perf_train, perf_predict, perf_score;
  int64_t perf_models;
  double perf_load, perf_training_phase, perf_likelihood;
  double perf_size[DPBO_K1SWEEP_MAX_SIZES][2]; /* per size: likelihood, goodness of fit */
  unsigned char *fresh;                        /* rank 0: trained in this invocation */
  /* LIBSVM's options on the ranks that train: the config's, with an
   * automatic cache resolved (k1sweep_cache_resolve); rank 0 holds the
   * smallest and largest cache of the training ranks and the inputs. */
  dpbo_svm_options svm_options;
  double cache_mb[2], cache_full_mb, cache_available_mb;
  int cache_node_ranks;
  char fingerprint[8192];
  char hash[32];
} k1sweep_state;

static void k1sweep_state_free(k1sweep_state *st) {
  dpbo_svm_data_destroy(st->svm);
  dpbo_objective_destroy(&st->logreg);
  free(st->unit);
  free(st->values);
  for (int s = 0; s < DPBO_K1SWEEP_MAX_SIZES; s++) {
    if (st->rows) free(st->rows[s]);
    if (st->change) free(st->change[s]);
    if (st->fv) free(st->fv[s]);
    if (st->fvp) free(st->fvp[s]);
  }
  free(st->rows);
  free(st->change);
  free(st->fv);
  free(st->fvp);
  free(st->done);
  free(st->fresh);
  free(st->model);
  free(st->accuracy);
  free(st->bits);
}

/* The settings: Sobol points over [space], the same on every rank. */
static dpbo_status k1sweep_settings(k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_space *space = NULL;
  const dpbo_k1sweep_config *c = st->config;
  DPBO_TRY(dpbo_space_create_sobol(c->dims, c->dim, st->n, &space, err));
  DPBO_ALLOC(st->unit, (size_t)(st->n * st->d), "the settings");
  DPBO_ALLOC(st->values, (size_t)(st->n * st->d), "the settings");
  for (int64_t j = 0; j < st->n; j++) {
    DPBO_TRY(dpbo_space_unit(space, j, st->unit + j * st->d, err));
    dpbo_space_to_values(space, st->unit + j * st->d, st->values + j * st->d);
  }
  st->c_dim = st->gamma_dim = -1;
  for (int i = 0; i < st->d; i++) {
    if (strcmp(c->dim[i].name, "C") == 0) st->c_dim = i;
    if (strcmp(c->dim[i].name, "gamma") == 0) st->gamma_dim = i;
  }
done:
  dpbo_space_destroy(space);
  return status;
}

/* Reads, splits and scales the data and prepares LIBSVM or the logreg
 * objective (ranks that train). Both models split with dpbo_dataset_split
 * and the same seed, so they train on the same rows and share the pool. */
static dpbo_status k1sweep_load_data(k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  dpbo_dataset *data = NULL;
  dpbo_dataset_options read;
  dpbo_dataset_options_default(&read);
  read.format = c->format;
  read.max_features = c->svm.max_features;
  read.labels = c->labels_path;
  DPBO_TRY(dpbo_dataset_read_options(c->data_path, &read, &data, err));
  if (c->model == DPBO_K1SWEEP_SVM) DPBO_TRY(dpbo_svm_check_labels(data, c->data_path, err));
  if (c->train_rows >= data->n)
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s has %lld rows: k1sweep.train_rows = %lld leaves none for validation",
               c->data_path, (long long)data->n, (long long)c->train_rows);
  st->data_rows = data->n;
  st->pool = data->n - c->train_rows;
  if (c->pool_rows > 0 && c->pool_rows < st->pool) st->pool = c->pool_rows;
  if (c->model == DPBO_K1SWEEP_LOGREG) {
    dpbo_logreg_options o = c->logreg;
    snprintf(o.data_path, sizeof o.data_path, "%s", c->data_path);
    o.train_rows = c->train_rows;
    o.validation_rows = st->pool; /* the pool is the objective's validation split */
    o.split_seed = c->seed;
    DPBO_TRY(dpbo_logreg_objective_from_data(data, &o, &st->logreg, err));
  } else {
    DPBO_TRY(dpbo_svm_data_split(data, c->seed, c->train_rows, st->pool, "k1sweep", c->data_path,
                                 &st->svm, err));
  }
done:
  dpbo_dataset_destroy(data);
  return status;
}

/* LIBSVM's options of the ranks that train (collective, after the data is
 * loaded). k1sweep.cache_mb = auto: each training rank takes min(the whole
 * kernel matrix Q, DPBO_SVM_CACHE_MEM_FRACTION x MemAvailable / the training
 * ranks on its node - its data), at least 100 MiB (dpbo_svm_cache_auto_mb).
 * available_mb was read before the data was loaded, so the data is counted
 * once. The cache only saves recomputing kernel rows: LIBSVM computes each
 * entry of Q the same way whether it is cached or not, so the models and
 * every result are the same bits at any size. */
static dpbo_status k1sweep_cache_resolve(k1sweep_state *st, int trainer, double available_mb,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  MPI_Comm node = MPI_COMM_NULL;
  st->svm_options = c->svm;
  if (c->model != DPBO_K1SWEEP_SVM) return DPBO_OK;
  const int automatic = c->svm.cache_mb == DPBO_SVM_CACHE_AUTO;
  int node_trainers = 1, mine = trainer;
  if (automatic) {
    DPBO_MPI_TRY(
        MPI_Comm_split_type(st->comm, MPI_COMM_TYPE_SHARED, st->rank, MPI_INFO_NULL, &node));
    DPBO_MPI_TRY(MPI_Allreduce(&mine, &node_trainers, 1, MPI_INT, MPI_SUM, node));
    if (trainer)
      st->svm_options.cache_mb = dpbo_svm_cache_auto_mb(
          c->train_rows, available_mb, node_trainers,
          (double)dpbo_svm_data_bytes(st->svm) / (1024.0 * 1024.0), DPBO_SVM_CACHE_MEM_FRACTION);
  }
  /* Rank 0 learns the smallest and largest choice and the inputs. */
  double in[4] = {trainer ? st->svm_options.cache_mb : INFINITY,
                  trainer ? -st->svm_options.cache_mb : INFINITY, trainer ? available_mb : INFINITY,
                  trainer ? -(double)node_trainers : INFINITY},
         out[4];
  DPBO_MPI_TRY(MPI_Allreduce(in, out, 4, MPI_DOUBLE, MPI_MIN, st->comm));
  st->cache_mb[0] = out[0];
  st->cache_mb[1] = -out[1];
  st->cache_available_mb = automatic ? out[2] : NAN;
  st->cache_node_ranks = automatic ? (int)-out[3] : 0;
  st->cache_full_mb = dpbo_svm_cache_full_mb(c->train_rows);
  char range[64] = "";
  if (st->cache_mb[1] > st->cache_mb[0]) snprintf(range, sizeof range, " to %.0f", st->cache_mb[1]);
  if (automatic)
    dpbo_log_info("k1sweep: LIBSVM kernel cache (cache_mb = auto): %.0f%s MiB per training rank; "
                  "the whole Q of %lld rows needs %.0f MiB; %.2f of the available %.0f MiB over "
                  "%d training rank(s) on the node is %.0f MiB each, less its data (floor %.0f)",
                  st->cache_mb[0], range, (long long)c->train_rows, st->cache_full_mb,
                  DPBO_SVM_CACHE_MEM_FRACTION, st->cache_available_mb, st->cache_node_ranks,
                  DPBO_SVM_CACHE_MEM_FRACTION * st->cache_available_mb / st->cache_node_ranks,
                  DPBO_SVM_CACHE_FLOOR_MB);
  else
    dpbo_log_info("k1sweep: LIBSVM kernel cache (cache_mb): %.0f MiB per training rank; the whole "
                  "Q of %lld rows needs %.0f MiB",
                  st->cache_mb[0], (long long)c->train_rows, st->cache_full_mb);
done:
  if (node != MPI_COMM_NULL) MPI_Comm_free(&node);
  return status;
}

/* Every validation set and neighbour, from the seed (every rank). */
static dpbo_status k1sweep_valsets(k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  DPBO_ALLOC(st->rows, DPBO_K1SWEEP_MAX_SIZES, "the validation sets");
  DPBO_ALLOC(st->change, DPBO_K1SWEEP_MAX_SIZES, "the validation sets");
  for (int s = 0; s < c->size_count; s++) {
    const int64_t m = c->size[s];
    DPBO_ALLOC(st->rows[s], (size_t)(c->sets * m), "the validation sets");
    DPBO_ALLOC(st->change[s], (size_t)c->sets, "the neighbours");
    for (int64_t i = 0; i < c->sets; i++)
      DPBO_TRY(dpbo_valset_draw(c->seed, st->pool, m, i, c->neighbour, st->rows[s] + i * m,
                                &st->change[s][i], err));
  }
done:
  return status;
}

static dpbo_status k1sweep_alloc_results(k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const size_t n = (size_t)st->n;
  DPBO_ALLOC(st->done, n, "the results");
  DPBO_ALLOC(st->fresh, n, "the results");
  DPBO_ALLOC(st->model, n, "the results");
  DPBO_ALLOC(st->accuracy, n * (size_t)st->acc_count, "the accuracies");
  DPBO_ALLOC(st->bits, n * (size_t)st->nbytes, "the correctness bits");
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * One model: train, predict the pool, score every set. */

static size_t k1sweep_message_size(const k1sweep_state *st) {
  return sizeof(k1sweep_head) + (size_t)st->acc_count * sizeof(double) + (size_t)st->nbytes;
}

static void k1sweep_train(k1sweep_state *st, int64_t j, unsigned char *flags,
                          unsigned char *message) {
  const dpbo_k1sweep_config *c = st->config;
  k1sweep_head head;
  memset(&head, 0, sizeof head);
  double *acc = (double *)(message + sizeof head);
  uint8_t *bits = message + sizeof head + (size_t)st->acc_count * sizeof(double);
  dpbo_error err;
  dpbo_error_clear(&err);
  head.model = j;
  head.result.worker = st->rank;
  double t0 = MPI_Wtime();
  k1sweep_model *r = &head.result;
  dpbo_status code;
  if (c->model == DPBO_K1SWEEP_LOGREG) {
    /* The logreg objective's own training and classification rule. */
    code = dpbo_logreg_classify(&st->logreg, st->values[j], flags, &r->pool_accuracy,
                                &r->train_seconds, &err);
  } else {
    const double C = st->values[j * st->d + st->c_dim],
                 gamma = st->values[j * st->d + st->gamma_dim];
    /* The pool through BLAS: svm_predict's labels, several times faster. */
    code = dpbo_svm_fit_predict_dense(st->svm, &st->svm_options, C, gamma, flags, &r->pool_accuracy,
                                      &r->support_vectors, &r->train_seconds, NULL, &err);
  }
  r->predict_seconds = MPI_Wtime() - t0 - r->train_seconds;
  head.code = (int32_t)code;
  if (code != DPBO_OK) {
    snprintf(head.message, sizeof head.message, "model %lld on rank %d: %s", (long long)j, st->rank,
             err.message);
  } else {
    double t1 = MPI_Wtime();
    dpbo_valset_pack(flags, st->pool, bits);
    for (int s = 0; s < c->size_count; s++) {
      double *row = acc + (size_t)s * 2 * (size_t)c->sets;
      for (int64_t i = 0; i < c->sets; i++)
        dpbo_valset_accuracy(bits, c->size[s], st->rows[s] + i * c->size[s], &st->change[s][i],
                             &row[i], &row[c->sets + i]);
    }
    r->score_seconds = MPI_Wtime() - t1;
  }
  memcpy(message, &head, sizeof head);
}

/* ---------------------------------------------------------------------------
 * The checkpoint (rank 0 alone, rewritten atomically after every model). */

/* The finished models in ascending order, packed: the checkpoint's rows. */
typedef struct k1sweep_rows {
  int64_t k;
  int64_t *index;       /* the models */
  k1sweep_model *model; /* their numbers */
  double *acc;          /* k × acc_count */
  uint8_t *bits;        /* k × nbytes */
} k1sweep_rows;

static void k1sweep_rows_free(k1sweep_rows *rows) {
  free(rows->index);
  free(rows->model);
  free(rows->acc);
  free(rows->bits);
  memset(rows, 0, sizeof *rows);
}

static dpbo_status k1sweep_rows_alloc(const k1sweep_state *st, int64_t k, k1sweep_rows *rows,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  rows->k = k;
  DPBO_ALLOC(rows->index, k, "the checkpoint");
  DPBO_ALLOC(rows->model, k, "the checkpoint");
  DPBO_ALLOC(rows->acc, (size_t)(k * st->acc_count), "the checkpoint");
  DPBO_ALLOC(rows->bits, (size_t)(k * st->nbytes), "the checkpoint");
done:
  return status;
}

/* Copies row r to model index[r] of the state (or back, to_state = 0). */
static void k1sweep_rows_copy(k1sweep_state *st, k1sweep_rows *rows, int to_state) {
  const int64_t A = st->acc_count, B = st->nbytes;
  for (int64_t r = 0; r < rows->k; r++) {
    const int64_t j = rows->index[r];
    if (to_state) {
      st->model[j] = rows->model[r];
      memcpy(st->accuracy + j * A, rows->acc + r * A, (size_t)A * sizeof *rows->acc);
      memcpy(st->bits + j * B, rows->bits + r * B, (size_t)B);
    } else {
      rows->model[r] = st->model[j];
      memcpy(rows->acc + r * A, st->accuracy + j * A, (size_t)A * sizeof *rows->acc);
      memcpy(rows->bits + r * B, st->bits + j * B, (size_t)B);
    }
  }
}

static dpbo_status k1sweep_write_checkpoint(k1sweep_state *st, const char *path, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_h5io_file out;
  k1sweep_rows rows;
  memset(&rows, 0, sizeof rows);
  out.id = -1;
  out.tmp[0] = '\0';
  const int64_t k = st->done_count, A = st->acc_count, B = st->nbytes;
  DPBO_TRY(k1sweep_rows_alloc(st, k, &rows, err));
  for (int64_t j = 0, r = 0; j < st->n; j++)
    if (st->done[j]) rows.index[r++] = j;
  k1sweep_rows_copy(st, &rows, 0);
  DPBO_TRY(dpbo_h5io_create(MPI_COMM_SELF, path, &out, err));
  hid_t f = out.id;
  DPBO_TRY(dpbo_h5io_attr_string(f, "dpbo_version", DPBO_VERSION_STRING, err));
  DPBO_TRY(dpbo_h5io_attr_string(f, "content", "k1sweep checkpoint: finished models", err));
  DPBO_TRY(dpbo_h5io_attr_string(f, "fingerprint", st->fingerprint, err));
  DPBO_TRY(dpbo_h5io_attr_string(f, "config_hash", st->hash, err));
  DPBO_TRY(dpbo_output_write_settings(f, &st->config->settings, err));
  DPBO_TRY(dpbo_h5io_attr_int64(f, "models", &st->n, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(f, "accuracies_per_model", &A, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(f, "bytes_per_model", &B, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(f, "pool_rows", &st->pool, 1, err));
  hsize_t d1[1] = {(hsize_t)k}, dA[2] = {(hsize_t)k, (hsize_t)A}, dB[2] = {(hsize_t)k, (hsize_t)B};
  DPBO_TRY(dpbo_h5io_write_small(f, "model", H5T_NATIVE_INT64, 1, d1, rows.index, 0, err));
  DPBO_TRY(dpbo_h5io_write_fields(f, rows.model, sizeof *rows.model, d1[0], k1sweep_columns,
                                  K1SWEEP__COLUMNS, 0, err));
  DPBO_TRY(dpbo_h5io_write_small(f, "accuracy", H5T_NATIVE_DOUBLE, 2, dA, rows.acc, 0, err));
  DPBO_TRY(dpbo_h5io_write_small(f, "correct_bits", H5T_NATIVE_UINT8, 2, dB, rows.bits, 0, err));
  DPBO_TRY(dpbo_h5io_commit(&out, err));
done:
  if (status != DPBO_OK) dpbo_h5io_discard(&out);
  k1sweep_rows_free(&rows);
  return status;
}

/* Loads the finished models of an earlier run of the same sweep (rank 0). */
static dpbo_status k1sweep_read_checkpoint(k1sweep_state *st, const char *path, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t f = -1;
  char *stored = NULL;
  k1sweep_rows rows;
  memset(&rows, 0, sizeof rows);
  if (access(path, F_OK) != 0) return DPBO_OK;
  DPBO_TRY(dpbo_input_check(path, "the checkpoint", err)); /* H5Fopen would wait on a FIFO */
  H5E_BEGIN_TRY { f = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT); }
  H5E_END_TRY;
  if (f < 0)
    DPBO_RAISE(DPBO_ERR_IO, "cannot open the checkpoint %s (delete it to start the sweep over)",
               path);
  status = dpbo_h5io_read_attr_string(f, "fingerprint", &stored, err);
  if (status != DPBO_OK) {
    dpbo_error_prefix(err, "%s is not a k1sweep checkpoint", path);
    goto done;
  }
  DPBO_TRY(k1sweep_compare(stored, st->fingerprint, path, err));
  int64_t shape[4];
  static const char *const shape_names[4] = {"models", "accuracies_per_model", "bytes_per_model",
                                             "pool_rows"};
  for (int k = 0; k < 4; k++)
    DPBO_TRY(dpbo_h5io_read_attr_int64(f, shape_names[k], &shape[k], err));
  if (shape[0] != st->n || shape[1] != st->acc_count || shape[2] != st->nbytes ||
      shape[3] != st->pool)
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s holds models for a different sweep (%lld models, %lld accuracies and %lld bytes "
               "per model, %lld pool rows); delete it to start over",
               path, (long long)shape[0], (long long)shape[1], (long long)shape[2],
               (long long)shape[3]);
  hsize_t dims[1];
  DPBO_TRY(dpbo_h5io_shape(f, "model", 1, dims, err));
  const int64_t k = (int64_t)dims[0];
  DPBO_TRY(k1sweep_rows_alloc(st, k, &rows, err));
  if (k > 0) {
    DPBO_TRY(dpbo_h5io_read(f, "model", H5T_NATIVE_INT64, rows.index, err));
    for (int64_t r = 0; r < k; r++)
      if (rows.index[r] < 0 || rows.index[r] >= st->n || st->done[rows.index[r]])
        DPBO_RAISE(DPBO_ERR_DATA, "%s: bad model index %lld", path, (long long)rows.index[r]);
    DPBO_TRY(dpbo_h5io_read(f, "accuracy", H5T_NATIVE_DOUBLE, rows.acc, err));
    DPBO_TRY(dpbo_h5io_read(f, "correct_bits", H5T_NATIVE_UINT8, rows.bits, err));
    const int scored = H5Lexists(f, "score_seconds", H5P_DEFAULT) > 0;
    DPBO_TRY(dpbo_h5io_read_fields(f, rows.model, sizeof *rows.model, dims[0], k1sweep_columns,
                                   K1SWEEP__COLUMNS - (scored ? 0 : 1), err));
    k1sweep_rows_copy(st, &rows, 1);
    for (int64_t r = 0; r < k; r++)
      st->done[rows.index[r]] = 1;
    st->done_count = k;
  }
done:
  if (f >= 0) H5Fclose(f);
  free(stored);
  k1sweep_rows_free(&rows);
  return status;
}

/* ---------------------------------------------------------------------------
 * Scheduling: the trainings are a task farm (run/farm.h). */

typedef struct k1sweep_farm {
  k1sweep_state *st;
  const char *checkpoint;
  unsigned char *flags; /* a trainer's pool predictions */
} k1sweep_farm;

static void k1sweep_farm_work(void *context, int64_t j, void *message) {
  k1sweep_farm *kf = context;
  k1sweep_train(kf->st, j, kf->flags, message);
}

/* Rank 0 files one result; a failed model is reported through err. */
static dpbo_status k1sweep_accept(void *context, const void *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  k1sweep_state *st = ((k1sweep_farm *)context)->st;
  const unsigned char *message = result;
  k1sweep_head head;
  memcpy(&head, message, sizeof head);
  if (head.code != DPBO_OK) DPBO_RAISE((dpbo_status)head.code, "%s", head.message);
  const int64_t j = head.model;
  if (j < 0 || j >= st->n || st->done[j])
    DPBO_RAISE(DPBO_ERR_MPI, "unexpected result for model %lld", (long long)j);
  memcpy(st->accuracy + j * st->acc_count, message + sizeof head,
         (size_t)st->acc_count * sizeof(double));
  memcpy(st->bits + j * st->nbytes, message + sizeof head + (size_t)st->acc_count * sizeof(double),
         (size_t)st->nbytes);
  st->model[j] = head.result;
  st->done[j] = 1;
  st->done_count++;
  st->perf_train += head.result.train_seconds;
  st->perf_predict += head.result.predict_seconds;
  st->perf_score += head.result.score_seconds;
  st->fresh[j] = 1;
  st->perf_models++;
  char setting[96];
  if (st->config->model == DPBO_K1SWEEP_LOGREG)
    snprintf(setting, sizeof setting, "lambda=%.4g", st->values[j]);
  else
    snprintf(setting, sizeof setting, "C=%.4g, gamma=%.4g", st->values[j * st->d + st->c_dim],
             st->values[j * st->d + st->gamma_dim]);
  dpbo_log_info("trained model %lld (%s) on rank %lld: %.1f s training, %.1f s "
                "predicting %lld pool rows, %lld support vectors, pool accuracy %.4f [%lld/%lld]",
                (long long)j, setting, (long long)head.result.worker, head.result.train_seconds,
                head.result.predict_seconds, (long long)st->pool,
                (long long)head.result.support_vectors, head.result.pool_accuracy,
                (long long)st->done_count, (long long)st->n);
done:
  return status;
}

/* The farm's checkpoint hook: every model filed so far, rewritten. */
static dpbo_status k1sweep_checkpoint(void *context, dpbo_error *err) {
  k1sweep_farm *kf = context;
  return k1sweep_write_checkpoint(kf->st, kf->checkpoint, err);
}

/* The order of the trainings (qsort has no context argument in C11). */
static const k1sweep_state *k1sweep_order_state;

static int k1sweep_compare_cost(const void *a, const void *b) {
  const k1sweep_state *st = k1sweep_order_state;
  const int64_t i = *(const int64_t *)a, j = *(const int64_t *)b;
  const double ci = st->values[i * st->d + st->c_dim], cj = st->values[j * st->d + st->c_dim];
  if (ci != cj) return ci < cj ? 1 : -1;
  return (i > j) - (i < j);
}

/* Every rank: the models not in the checkpoint, one per worker at a time
 * (rank 0 trains them itself when alone). */
static dpbo_status k1sweep_farm_run(k1sweep_state *st, int64_t stop_after, const char *checkpoint,
                                    dpbo_k1sweep_outcome *outcome, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_farm *farm = NULL;
  int64_t *todo = NULL, todo_count = 0;
  k1sweep_farm kf = {st, checkpoint, NULL};
  const dpbo_farm_options options = {.result_bytes = k1sweep_message_size(st)};
  dpbo_farm_outcome farmed = {0, 0};
  DPBO_TRY(dpbo_farm_create(st->comm, &options, &farm, err));
  /* (From here on a failure on one rank leaves the others in the farm.) */
  farmed.abandoned = st->size > 1;
  if (st->size == 1 || st->rank > 0) DPBO_ALLOC(kf.flags, st->pool, "the pool predictions");
  if (st->rank == 0) {
    DPBO_ALLOC(todo, st->n, "the work list");
    for (int64_t j = 0; j < st->n; j++)
      if (!st->done[j]) todo[todo_count++] = j;
    /* Longest first, so the workers finish together: LIBSVM's iterations
     * grow with C (more bounded support vectors to settle), so the SVMs go
     * out by C, largest first (Sobol order otherwise). Each model's result
     * depends on its setting alone, so the order changes no output. */
    if (st->config->model == DPBO_K1SWEEP_SVM && st->c_dim >= 0) {
      k1sweep_order_state = st;
      qsort(todo, (size_t)todo_count, sizeof *todo, k1sweep_compare_cost);
      k1sweep_order_state = NULL;
    }
  }
  const dpbo_farm_work work = {.tasks = todo,
                               .task_count = todo_count,
                               .stop_after = stop_after,
                               .stoppable = 1,
                               .noun = "training",
                               .context = &kf,
                               .work = k1sweep_farm_work,
                               .accept = k1sweep_accept,
                               .checkpoint = k1sweep_checkpoint};
  status = dpbo_farm_run(farm, &work, &farmed, err);
done:
  outcome->trained = farmed.accepted;
  outcome->abandoned = farmed.abandoned;
  dpbo_farm_destroy(farm);
  free(todo);
  free(kf.flags);
  return status;
}

/* neighbour = adversarial (valset.h): every V_i' chosen from the finished
 * models' correctness bits on rank 0, its accuracies (provisional until
 * now) recomputed from the bits, and the choices sent to every rank. */
static dpbo_status k1sweep_adversarial(k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  for (int s = 0; s < c->size_count && st->rank == 0 && local == DPBO_OK; s++) {
    const int64_t m = c->size[s];
    for (int64_t i = 0; i < c->sets && local == DPBO_OK; i++) {
      const int32_t *rows = st->rows[s] + i * m;
      dpbo_valset_change *change = &st->change[s][i];
      local = dpbo_valset_adversarial(st->bits, st->nbytes, st->n, m, rows, change, NULL, err);
      for (int64_t j = 0; j < st->n && local == DPBO_OK; j++) {
        double *acc = st->accuracy + j * st->acc_count + (int64_t)s * 2 * c->sets;
        dpbo_valset_accuracy(st->bits + j * st->nbytes, m, rows, change, &acc[i],
                             &acc[c->sets + i]);
      }
    }
  }
  DPBO_TRY(dpbo_comm_agree(st->comm, local, err));
  for (int s = 0; s < c->size_count; s++)
    DPBO_MPI_TRY(MPI_Bcast(st->change[s], (int)(c->sets * (int64_t)sizeof *st->change[s]), MPI_BYTE,
                           0, st->comm));
done:
  return status;
}

/* F_V and F_V' of size s, sets × n each (rank 0). */
static dpbo_status k1sweep_alloc_f(k1sweep_state *st, int s, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_ALLOC(st->fv[s], (size_t)(st->config->sets * st->n), "F_V");
  DPBO_ALLOC(st->fvp[s], (size_t)(st->config->sets * st->n), "F_V'");
done:
  return status;
}

/* F_V and F_V' per size from the accuracies (rank 0). */
static dpbo_status k1sweep_assemble(k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  for (int s = 0; s < c->size_count; s++) {
    DPBO_TRY(k1sweep_alloc_f(st, s, err));
    for (int64_t j = 0; j < st->n; j++) {
      const double *acc = st->accuracy + j * st->acc_count + (int64_t)s * 2 * c->sets;
      for (int64_t i = 0; i < c->sets; i++) {
        st->fv[s][i * st->n + j] = acc[i];
        st->fvp[s][i * st->n + j] = acc[c->sets + i];
      }
    }
  }
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * Synthetic mode: accuracies from a known multi-task GP (rank 0). */

#define K1SWEEP_SYNTH_TAG (UINT64_C(0x7379) << 48)

static dpbo_status k1sweep_synthetic(k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  const int64_t n = st->n;
  double *K = NULL, *L = NULL, *z = NULL;
  dpbo_kernel kernel;
  double ls[DPBO_MAX_DIM];
  for (int i = 0; i < st->d; i++)
    ls[i] = c->synthetic_lengthscale;
  DPBO_TRY(dpbo_kernel_init(&kernel, c->likelihood.kernel, st->d, ls, err));
  DPBO_ALLOC(K, (size_t)(n * n), "the synthetic kernel matrix");
  DPBO_ALLOC(L, (size_t)(n * n), "the synthetic Cholesky factor");
  DPBO_ALLOC(z, (size_t)(4 * n), "the synthetic draws");
  for (int64_t a = 0; a < n; a++)
    for (int64_t b = 0; b <= a; b++)
      K[a * n + b] = K[b * n + a] =
          dpbo_kernel_eval(&kernel, st->unit + a * st->d, st->unit + b * st->d);
  /* A smooth kernel over many settings is numerically singular: add the
   * smallest jitter (a power of ten) that lets the Cholesky factorization
   * through; it is recorded in the output. */
  for (double jitter = 1e-12;; jitter *= 10) {
    if (jitter > 1e-3)
      DPBO_RAISE(DPBO_ERR_NUMERIC,
                 "synthetic k1sweep: the kernel matrix of %lld settings is not "
                 "positive definite even with jitter 1e-3 (lower synthetic_lengthscale)",
                 (long long)n);
    memcpy(L, K, (size_t)(n * n) * sizeof *L);
    for (int64_t a = 0; a < n; a++)
      L[a * n + a] += jitter;
    if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, L, (lapack_int)n) == 0) {
      st->synthetic_jitter = jitter;
      break;
    }
  }
  const double k1 = c->synthetic_k1, rest = sqrt(1.0 - k1 * k1), mu = c->synthetic_mean;
  const double sig = c->synthetic_signal_std;
  for (int s = 0; s < c->size_count; s++) {
    const double noise = sqrt(mu * (1.0 - mu) / (double)c->size[s]);
    DPBO_TRY(k1sweep_alloc_f(st, s, err));
    for (int64_t i = 0; i < c->sets; i++) {
      dpbo_rng rng;
      dpbo_rng_seed(&rng, c->seed, K1SWEEP_SYNTH_TAG | (uint64_t)c->size[s] << 24 | (uint64_t)i);
      for (int64_t r = 0; r < 4 * n; r++)
        z[r] = dpbo_rng_normal(&rng);
      const double *z1 = z, *z2 = z + n, *e1 = z + 2 * n, *e2 = z + 3 * n;
      for (int64_t a = 0; a < n; a++) {
        double g = 0.0, h = 0.0;
        for (int64_t b = 0; b <= a; b++) {
          g += L[a * n + b] * z1[b];
          h += L[a * n + b] * z2[b];
        }
        st->fv[s][i * n + a] = mu + sig * g + noise * e1[a];
        st->fvp[s][i * n + a] = mu + sig * (k1 * g + rest * h) + noise * e2[a];
      }
    }
  }
done:
  free(K);
  free(L);
  free(z);
  return status;
}

/* ---------------------------------------------------------------------------
 * The output file (collective, parallel HDF5, atomic). */

static dpbo_status k1sweep_write_models(hid_t file, const k1sweep_state *st, dpbo_error *err) {
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
  DPBO_TRY(
      dpbo_h5io_write_small(group, "lambda", H5T_NATIVE_DOUBLE, 2, d2, st->values, st->rank, err));
  DPBO_TRY(dpbo_h5io_write_small(group, "unit", H5T_NATIVE_DOUBLE, 2, d2, st->unit, st->rank, err));
  if (!synthetic) {
    DPBO_TRY(dpbo_h5io_write_fields(group, st->model, sizeof *st->model, d1[0], k1sweep_columns,
                                    K1SWEEP__COLUMNS, st->rank, err));
    hsize_t db[2] = {(hsize_t)st->n, (hsize_t)st->nbytes};
    DPBO_TRY(dpbo_h5io_write_small(group, "correct_bits", H5T_NATIVE_UINT8, 2, db,
                                   st->rank == 0 ? (const void *)st->bits : st->values, st->rank,
                                   err));
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
  DPBO_TRY(dpbo_h5io_write_fields(group, res->grid, sizeof *res->grid, dk[0], columns,
                                  sizeof columns / sizeof columns[0], rank, err));
  for (int k = 0; k < K; k++)
    ibuf[k] = res->grid[k].ell_at_bound;
  DPBO_TRY(dpbo_h5io_write_small(group, "ell_at_bound", H5T_NATIVE_INT64, 1, dk, ibuf, rank, err));
  for (int k = 0; k < K; k++)
    ibuf[k] = res->grid[k].ratio_at_bound;
  DPBO_TRY(
      dpbo_h5io_write_small(group, "ratio_at_bound", H5T_NATIVE_INT64, 1, dk, ibuf, rank, err));
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

static dpbo_status k1sweep_write_size(hid_t file, const k1sweep_state *st, int s,
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
  DPBO_TRY(dpbo_h5io_write_small(group, "F_V", H5T_NATIVE_DOUBLE, 2, dF,
                                 st->rank == 0 ? st->fv[s] : dummy, st->rank, err));
  DPBO_TRY(dpbo_h5io_write_small(group, "F_Vp", H5T_NATIVE_DOUBLE, 2, dF,
                                 st->rank == 0 ? st->fvp[s] : dummy, st->rank, err));
  if (st->rows) {
    /* Each rank writes its block of sets (every rank holds them all). */
    int64_t begin, count;
    dpbo_space_block(R, st->size, st->rank, &begin, &count);
    hsize_t dV[2] = {(hsize_t)R, (hsize_t)m}, d1[1] = {(hsize_t)R};
    DPBO_TRY(dpbo_h5io_write_block(group, "valid_rows", H5T_NATIVE_INT32, 2, dV, (hsize_t)begin,
                                   (hsize_t)count, st->rows[s] + begin * m, err));
    DPBO_ALLOC(ibuf, R, "the neighbours");
    for (int64_t i = 0; i < R; i++)
      ibuf[i] = (int32_t)st->change[s][i].op;
    DPBO_TRY(
        dpbo_h5io_write_small(group, "neighbour_op", H5T_NATIVE_INT32, 1, d1, ibuf, st->rank, err));
    for (int64_t i = 0; i < R; i++)
      ibuf[i] = st->change[s][i].slot;
    DPBO_TRY(dpbo_h5io_write_small(group, "neighbour_slot", H5T_NATIVE_INT32, 1, d1, ibuf, st->rank,
                                   err));
    for (int64_t i = 0; i < R; i++)
      ibuf[i] = st->change[s][i].row;
    DPBO_TRY(dpbo_h5io_write_small(group, "neighbour_row", H5T_NATIVE_INT32, 1, d1, ibuf, st->rank,
                                   err));
    for (int64_t i = 0; i < R; i++)
      ibuf[i] = (int32_t)dpbo_valset_neighbour_size(m, &st->change[s][i]);
    DPBO_TRY(dpbo_h5io_write_small(group, "neighbour_size", H5T_NATIVE_INT32, 1, d1, ibuf, st->rank,
                                   err));
  }
  DPBO_TRY(k1sweep_write_likelihood(group, res, st->rank, err));
  DPBO_TRY(dpbo_k1gof_write(group, gof, st->rank, err));
done:
  free(ibuf);
  if (group >= 0) H5Gclose(group);
  return status;
}

/* The statistics that test the assumption at size s (k1gof.h; collective). */
static dpbo_status k1sweep_gof(const k1sweep_state *st, int s, const dpbo_k1lik_result *fit,
                               dpbo_k1gof_result *gof, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  const double t0 = MPI_Wtime();
  const dpbo_k1gof_task task = {.R = (int)c->sets,
                                .n = (int)st->n,
                                .d = st->d,
                                .F = st->rank == 0 ? st->fv[s] : NULL,
                                .Fp = st->rank == 0 ? st->fvp[s] : NULL,
                                .coords = st->unit,
                                .dims = c->dims,
                                .dim = c->dim,
                                .options = &c->likelihood,
                                .fit = fit,
                                .m = c->size[s],
                                .seed = c->seed,
                                .B = (int)c->bootstrap,
                                .T = c->pipeline_iterations};
  DPBO_TRY(dpbo_k1gof_compute(st->comm, &task, gof, err));
  char pipeline[200] = "no pipeline", boot[320] = "no bootstrap";
  if (gof->T > 0)
    snprintf(pipeline, sizeof pipeline,
             "pipeline max |mu_T - mu'_T| = %.3g against Delta_lambda %.3g (%lld violations)",
             gof->pipeline_max, gof->pipeline.lambda_sensitivity,
             (long long)gof->pipeline_violations);
  if (gof->B > 0)
    snprintf(boot, sizeof boot,
             "bootstrap (B = %d) 95%% k1 [%.6g, %.6g], s^2 (1 - k1) [%.3g, %.3g] (%lld "
             "eigendecompositions, %lld of them in the ranks' shared bases; %lld likelihood "
             "evaluations)",
             gof->B, gof->k1_lo, gof->k1_hi, gof->s2t_lo, gof->s2t_hi,
             (long long)gof->boot_work.eigendecompositions,
             (long long)gof->boot_basis_eigendecompositions, (long long)gof->boot_work.evaluations);
  dpbo_log_info("k1sweep: m = %lld: residuals KS D = %.4g (p = %.3g), max |z| = %.3g; max |F_V - "
                "F_V'| > s c in %.3g of the pairs (delta %g); %s; %s; %.1f s",
                (long long)c->size[s], gof->ks_statistic, gof->ks_pvalue, gof->max_abs_z, gof->rate,
                fit->delta, pipeline, boot, MPI_Wtime() - t0);
done:
  return status;
}

/* Where this invocation's wall time went (models resumed from a checkpoint
 * are not counted): the share of the workers' time spent inside LIBSVM. */
static double k1sweep_libsvm_share(const k1sweep_state *st, double wall_seconds) {
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
static void k1sweep_stages(const k1sweep_state *st, k1sweep_stage stage[K1SWEEP__STAGES]) {
  memset(stage, 0, K1SWEEP__STAGES * sizeof *stage);
  if (st->rank != 0 || !st->fresh || st->perf_models == 0) return;
  double *v = malloc((size_t)st->n * sizeof *v);
  for (int k = 0; k < K1SWEEP__STAGES && !v; k++)
    stage[k].total = stage[k].median = stage[k].max = NAN;
  for (int k = 0; k < K1SWEEP__STAGES && v; k++) {
    int64_t count = 0;
    for (int64_t j = 0; j < st->n; j++) {
      if (!st->fresh[j]) continue;
      const k1sweep_model *m = &st->model[j];
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

static dpbo_status k1sweep_write_performance(hid_t f, const k1sweep_state *st, double wall_seconds,
                                             dpbo_error *err) {
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

static dpbo_status k1sweep_write(const k1sweep_state *st, const char *path,
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

/* ---------------------------------------------------------------------------
 * The pipeline. */

/* Trains every model not in the checkpoint (svm mode). Returns with
 * outcome->interrupted when it stopped early. */
static dpbo_status k1sweep_train_all(k1sweep_state *st, int64_t stop_after,
                                     dpbo_k1sweep_outcome *outcome, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  char checkpoint[DPBO_PATH_MAX + 300];
  dpbo_k1sweep_checkpoint_path(c, checkpoint, sizeof checkpoint);
  const int trainer = st->size == 1 || st->rank > 0;
  const int root = st->size == 1 ? 0 : 1; /* first rank holding the data */

  double t0 = MPI_Wtime(), available_mb = NAN;
  /* Before the data is loaded, so that its memory is counted once. */
  if (trainer && c->model == DPBO_K1SWEEP_SVM && c->svm.cache_mb == DPBO_SVM_CACHE_AUTO)
    local = dpbo_svm_mem_available_mb(&available_mb, err);
  if (trainer && local == DPBO_OK) local = k1sweep_load_data(st, err);
  DPBO_TRY(dpbo_comm_agree(st->comm, local, err));
  DPBO_TRY(k1sweep_cache_resolve(st, trainer, available_mb, err));
  int64_t shape[2] = {st->data_rows, st->pool};
  DPBO_MPI_TRY(MPI_Bcast(shape, 2, MPI_INT64_T, root, st->comm));
  st->data_rows = shape[0];
  st->pool = shape[1];
  st->nbytes = (st->pool + 7) / 8;
  st->perf_load = MPI_Wtime() - t0;
  dpbo_log_info(
      "k1sweep: %lld data rows, %lld training, pool of %lld for validation (%.1f s to load)",
      (long long)st->data_rows, (long long)c->train_rows, (long long)st->pool, st->perf_load);
  if (c->size[c->size_count - 1] >= st->pool)
    DPBO_RAISE(
        DPBO_ERR_CONFIG,
        "%s: k1sweep.sizes asks for a validation set of %lld rows, but the pool has only %lld "
        "(a neighbour needs a row outside the set): lower the sizes or raise pool_rows",
        c->settings.path, (long long)c->size[c->size_count - 1], (long long)st->pool);
  DPBO_TRY(k1sweep_valsets(st, err));

  if (st->rank == 0) {
    local = k1sweep_alloc_results(st, err);
    if (local == DPBO_OK) local = k1sweep_read_checkpoint(st, checkpoint, err);
    if (local == DPBO_OK && st->done_count > 0)
      dpbo_log_info("k1sweep: resuming from %s: %lld of %lld models already trained", checkpoint,
                    (long long)st->done_count, (long long)st->n);
    outcome->resumed = st->done_count;
  }
  DPBO_TRY(dpbo_comm_agree(st->comm, local, err));

  const double t_train = MPI_Wtime();
  local = k1sweep_farm_run(st, stop_after, checkpoint, outcome, err);
  if (outcome->abandoned) {
    status = local;
    goto done;
  }
  /* Idle ranks sleep here while the last trainings finish. */
  DPBO_TRY(dpbo_comm_barrier_idle(st->comm, err));
  st->perf_training_phase = MPI_Wtime() - t_train;
  DPBO_TRY(dpbo_comm_agree(st->comm, local, err));
  int64_t finished = st->done_count;
  DPBO_MPI_TRY(MPI_Bcast(&finished, 1, MPI_INT64_T, 0, st->comm));
  outcome->interrupted = finished < st->n;
  if (outcome->interrupted) {
    dpbo_log_info(
        "k1sweep: stopped with %lld of %lld models trained; they are in %s. Rerun the same "
        "command to continue.",
        (long long)finished, (long long)st->n, checkpoint);
    goto done;
  }
  /* The training data is not needed from here on. */
  dpbo_svm_data_destroy(st->svm);
  st->svm = NULL;
  dpbo_objective_destroy(&st->logreg);
  if (c->neighbour == DPBO_NEIGHBOUR_ADVERSARIAL) DPBO_TRY(k1sweep_adversarial(st, err));
  if (st->rank == 0) local = k1sweep_assemble(st, err);
  DPBO_TRY(dpbo_comm_agree(st->comm, local, err));
done:
  return status;
}

/* The likelihood sweep, one size at a time (collective): results[s] and
 * gof[s] for each validation-set size. */
static dpbo_status k1sweep_likelihood(k1sweep_state *st, dpbo_k1lik_result *results,
                                      dpbo_k1gof_result *gof, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  dpbo_k1lik *lik = NULL;
  for (int s = 0; s < c->size_count; s++) {
    double t0 = MPI_Wtime();
    DPBO_TRY(dpbo_k1lik_create(st->comm, (int)c->sets, (int)st->n, st->d,
                               st->rank == 0 ? st->fv[s] : NULL, st->rank == 0 ? st->fvp[s] : NULL,
                               st->unit, &c->likelihood, &lik, err));
    DPBO_TRY(dpbo_k1lik_sweep(lik, st->n, c->delta, &results[s], err));
    st->perf_size[s][0] = MPI_Wtime() - t0;
    int eig = 0, scal = 0;
    dpbo_k1lik_counts(lik, &eig, &scal);
    dpbo_k1lik_destroy(lik);
    lik = NULL;
    const dpbo_k1lik_result *r = &results[s];
    dpbo_log_info(
        "k1sweep: m = %lld: k1 MLE %.6g (1 - k1 = %.3g), 95%% LR interval [%.6g, %.6g]%s, c = "
        "%.4g (at k1_lo %.4g), sigma_n %.3g, lengthscale %.3g; %d eigendecompositions "
        "(%d ScaLAPACK), %.1f s",
        (long long)c->size[s], r->mle.k1, r->mle.one_minus_k1, r->k1_lo, r->k1_hi,
        r->boundary > 0   ? " (at the largest k1 searched)"
        : r->boundary < 0 ? " (at the smallest k1)"
                          : "",
        r->c_mle, r->c_upper, r->mle.sigma_n, r->mle.lengthscale, eig, scal, MPI_Wtime() - t0);
    const double t_gof = MPI_Wtime();
    DPBO_TRY(k1sweep_gof(st, s, r, &gof[s], err));
    st->perf_size[s][1] = MPI_Wtime() - t_gof;
  }
done:
  if (lik) dpbo_k1lik_destroy(lik);
  return status;
}

/* Rank 0's account of where the time went (svm and logreg modes). */
static void k1sweep_log_performance(const k1sweep_state *st, double wall) {
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

dpbo_status dpbo_k1sweep_run(MPI_Comm comm, const dpbo_k1sweep_config *config, int64_t stop_after,
                             dpbo_k1sweep_outcome *outcome, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  k1sweep_state st;
  dpbo_k1lik_result results[DPBO_K1SWEEP_MAX_SIZES];
  dpbo_k1gof_result gof[DPBO_K1SWEEP_MAX_SIZES];
  memset(&st, 0, sizeof st);
  memset(results, 0, sizeof results);
  memset(gof, 0, sizeof gof);
  memset(outcome, 0, sizeof *outcome);
  dpbo_farm_stops_reset(); /* a request belongs to one run */
  const double t_start = MPI_Wtime();
  st.config = config;
  st.comm = comm;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &st.rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &st.size));
  st.n = dpbo_k1sweep_settings(config);
  st.d = config->dims;
  st.acc_count = (int64_t)config->size_count * 2 * config->sets;
  k1sweep_fingerprint(config, st.fingerprint, sizeof st.fingerprint);
  k1sweep_hash(st.fingerprint, st.hash, sizeof st.hash);
  const int synthetic = config->synthetic_models > 0;
  dpbo_log_info("k1sweep: %lld settings, %d validation-set sizes x %lld sets (%s neighbours), %d "
                "rank(s)%s; settings hash %s",
                (long long)st.n, config->size_count, (long long)config->sets,
                dpbo_neighbour_kind_name(config->neighbour), st.size,
                synthetic ? ", synthetic accuracies" : "", st.hash);
  if (st.rank == 0) dpbo_blas_log();

  DPBO_TRY(k1sweep_settings(&st, err));
  DPBO_ALLOC(st.fv, DPBO_K1SWEEP_MAX_SIZES, "F_V");
  DPBO_ALLOC(st.fvp, DPBO_K1SWEEP_MAX_SIZES, "F_V'");
  if (synthetic) {
    if (st.rank == 0) local = k1sweep_synthetic(&st, err);
    DPBO_TRY(dpbo_comm_agree(comm, local, err));
  } else {
    DPBO_TRY(k1sweep_train_all(&st, stop_after, outcome, err));
    if (outcome->interrupted) goto done;
  }

  const double t_likelihood = MPI_Wtime();
  DPBO_TRY(k1sweep_likelihood(&st, results, gof, err));

  char path[DPBO_PATH_MAX + 300];
  dpbo_k1sweep_output_path(config, path, sizeof path);
  st.perf_likelihood = MPI_Wtime() - t_likelihood;
  double wall = MPI_Wtime() - t_start;
  DPBO_MPI_TRY(MPI_Bcast(&wall, 1, MPI_DOUBLE, 0, comm));
  DPBO_MPI_TRY(MPI_Bcast(st.perf_size, 2 * DPBO_K1SWEEP_MAX_SIZES, MPI_DOUBLE, 0, comm));
  if (!synthetic && st.rank == 0 && st.perf_models > 0) k1sweep_log_performance(&st, wall);
  DPBO_TRY(k1sweep_write(&st, path, results, gof, wall, err));
  if (!synthetic && st.rank == 0) {
    char checkpoint[DPBO_PATH_MAX + 300];
    dpbo_k1sweep_checkpoint_path(config, checkpoint, sizeof checkpoint);
    remove(checkpoint);
  }
  dpbo_log_info("k1sweep: wrote %s (%.1f s); figure: analysis/plot_k1_sweep.py %s", path, wall,
                path);
done:
  for (int s = 0; s < DPBO_K1SWEEP_MAX_SIZES; s++) {
    dpbo_k1lik_result_free(&results[s]);
    dpbo_k1gof_result_free(&gof[s]);
  }
  k1sweep_state_free(&st);
  return status;
}
