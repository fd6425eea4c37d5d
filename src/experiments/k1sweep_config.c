/* `dpbo k1sweep`: reading its config ([k1sweep], [space], [likelihood],
 * [output]) and the fingerprint of the settings a checkpoint depends on. */
#include "experiments/k1sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/settings.h"
#include "dpbo/kernel.h"
#include "run/config.h"
#include "experiments/k1sweep_keys.h"
#include "experiments/k1sweep_private.h"

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
  DPBO_TRY(dpbo_settings_get_int64(settings, "likelihood", "ell_grid", o->ell_grid,
                                   (dpbo_settings_range){2, 10000}, &i64, err));
  o->ell_grid = (int)i64;
  DPBO_TRY(dpbo_settings_get_double(settings, "likelihood", "ratio_min", o->ratio_min, 0,
                                    &o->ratio_min, err));
  DPBO_TRY(dpbo_settings_get_double(settings, "likelihood", "ratio_max", o->ratio_max, 0,
                                    &o->ratio_max, err));
  DPBO_TRY(dpbo_settings_require(settings, "likelihood", "ratio_max",
                                 o->ratio_min > 0 && o->ratio_max > o->ratio_min,
                                 "must exceed likelihood.ratio_min > 0", err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "likelihood", "ratio_per_decade", o->ratio_per_decade,
                                   (dpbo_settings_range){1, 1000}, &i64, err));
  o->ratio_per_decade = (int)i64;
  DPBO_TRY(
      dpbo_settings_get_double(settings, "likelihood", "k1_step", o->k1_step, 0, &o->k1_step, err));
  DPBO_TRY(dpbo_settings_require(settings, "likelihood", "k1_step",
                                 o->k1_step > 0 && o->k1_step < 0.5, "must lie in (0, 0.5)", err));
  DPBO_TRY(dpbo_settings_get_double(settings, "likelihood", "t_min", o->t_min, 0, &o->t_min, err));
  DPBO_TRY(dpbo_settings_require(settings, "likelihood", "t_min",
                                 o->t_min > 0 && o->t_min < o->k1_step,
                                 "(the smallest 1 - k1 searched) must lie in (0, k1_step)", err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "likelihood", "t_per_decade", o->t_per_decade,
                                   (dpbo_settings_range){1, 1000}, &i64, err));
  o->t_per_decade = (int)i64;
  DPBO_TRY(dpbo_settings_get_int64(settings, "likelihood", "eigen_threshold", o->eigen_threshold,
                                   (dpbo_settings_range){0, INT32_MAX}, &i64, err));
  o->eigen_threshold = (int)i64;
  DPBO_TRY(dpbo_settings_get_double(settings, "likelihood", "delta", 0.05, 0, &c->delta, err));
  DPBO_TRY(dpbo_settings_require(settings, "likelihood", "delta", c->delta > 0 && c->delta < 1,
                                 "(δ of Algorithm 1's c) must lie in (0, 1)", err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "likelihood", "bootstrap", 100,
                                   (dpbo_settings_range){0, 100000}, &c->bootstrap, err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "likelihood", "pipeline_iterations", 30,
                                   (dpbo_settings_range){0, 1000}, &i64, err));
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
  DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "train_rows", 0,
                                   (dpbo_settings_range){0, INT32_MAX}, &c->train_rows, err));
  DPBO_TRY(dpbo_settings_require(settings, "k1sweep", "train_rows", synthetic || c->train_rows >= 1,
                                 "is required (the number of training rows, >= 1)", err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "pool_rows", 0,
                                   (dpbo_settings_range){0, INT32_MAX}, &c->pool_rows, err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "models", 100,
                                   (dpbo_settings_range){1, DPBO_EIGEN_MAX_N}, &c->models, err));
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
    DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "shrinking", 1,
                                     (dpbo_settings_range){0, 1}, &i64, err));
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
  DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "seed", 1,
                                   (dpbo_settings_range){0, INT64_MAX}, &i64, err));
  c->seed = (uint64_t)i64;
  DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "synthetic_models", 0,
                                   (dpbo_settings_range){0, DPBO_EIGEN_MAX_N}, &c->synthetic_models,
                                   err));
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
                                   (dpbo_settings_range){1, INT32_MAX}, &c->svm.max_features, err));
  DPBO_TRY(k1sweep_parse_sizes(c, err));
  DPBO_TRY(dpbo_settings_get_int64(settings, "k1sweep", "sets", 100,
                                   (dpbo_settings_range){1, DPBO_VALSET_MAX_SETS}, &c->sets, err));
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
  DPBO_TRY(dpbo_settings_read_rows(settings, dpbo_k1sweep_keys, "output", c, err));
  DPBO_TRY(dpbo_config_check_output(settings, c->output_dir, c->output_name, err));
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
void dpbo__k1sweep_fingerprint(const dpbo_k1sweep_config *c, char *text, size_t size) {
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
void dpbo__k1sweep_hash(const char *text, char *hex, size_t size) {
  uint64_t h = UINT64_C(0xcbf29ce484222325);
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    h ^= *p;
    h *= UINT64_C(0x100000001b3);
  }
  snprintf(hex, size, "%016llx", (unsigned long long)h);
}

/* The first line whose key or value differs between two fingerprints, as an
 * error naming the key. */
dpbo_status dpbo__k1sweep_compare(const char *stored, const char *current, const char *checkpoint,
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
