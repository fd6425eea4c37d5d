#include "run/config.h"
#include "run/config_private.h"
#include "run/algorithm.h"
#include "base/h5io.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------------
 * Sections. */

/* [output] dir and name: the name defaults to the config file's base name
 * without its extension and must be a file name. */
/* Room for the longest suffix dpbo adds to <dir>/<name>: ".release-N.h5"
 * with N up to 10 digits, ".release.json", ".partial.h5". */
#define CONFIG_OUTPUT_SUFFIX_MAX 24

void dpbo_config_output_name_default(const dpbo_settings *settings, const void *options, char *text,
                                     size_t size) {
  /* (a name of at most 255 bytes, as the options' output_name[256] holds) */
  char fallback[256];
  const char *base = strrchr(settings->path, '/');
  (void)options;
  snprintf(fallback, sizeof fallback, "%s", base ? base + 1 : settings->path);
  char *dot = strrchr(fallback, '.');
  if (dot && dot != fallback) *dot = '\0';
  snprintf(text, size, "%s", fallback);
}

dpbo_status dpbo_config_check_output(dpbo_settings *settings, const char *dir, const char *name,
                                     dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  /* Every value is free of control characters but the tab (settings.h); a
   * directory path has no use for a tab either. */
  DPBO_TRY(dpbo_settings_require(settings, "output", "dir", !strchr(dir, '\t'),
                                 "holds a tab: a directory path has no control characters", err));
  DPBO_TRY(dpbo_settings_require(settings, "output", "name", name[0] && !strchr(name, '/'),
                                 "must be a non-empty file name without '/'", err));
  {
    /* The name is part of every output file's name and of the lines that
     * name them: a portable file-name set, not starting like a hidden file
     * or an option (the key's row in run/config_keys.h documents it). */
    const char *bad = NULL;
    for (const char *p = name; *p && !bad; p++)
      if (!(isalnum((unsigned char)*p) && (unsigned char)*p < 0x80) && *p != '.' && *p != '_' &&
          *p != '-')
        bad = p;
    if (bad || name[0] == '.' || name[0] == '-') {
      char where[DPBO_PATH_MAX + 32], what[32], shown[128];
      const dpbo_settings_entry *given = dpbo_settings_find(settings, "output", "name");
      dpbo_settings_where(settings, given, where, sizeof where);
      const unsigned char c = (unsigned char)(bad ? *bad : name[0]);
      if (c >= 0x20 && c < 0x7f)
        snprintf(what, sizeof what, "'%c'", c);
      else
        snprintf(what, sizeof what, "byte 0x%02x", c);
      size_t used = 0; /* the name as shown: no byte of it can break the line */
      for (const char *p = name; *p && used + 5 < sizeof shown; p++) {
        const unsigned char b = (unsigned char)*p;
        if (b >= 0x20 && b < 0x7f)
          shown[used++] = (char)b;
        else
          used += (size_t)snprintf(shown + used, sizeof shown - used, "\\x%02x", b);
      }
      shown[used] = '\0';
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "%s: output.name = '%s' %s %s: a name uses only A-Z a-z 0-9 . _ - and does not "
                 "start with '.' or '-'%s",
                 where, shown, bad ? "holds" : "starts with", what,
                 given ? "" : " (it was taken from the file's name: set output.name)");
    }
  }
  {
    /* Refused now rather than when the first file is written (h5io.h): the
     * longest name is <dir>/<name> plus a suffix such as ".release-12.h5". */
    const size_t longest = strlen(dir) + 1 + strlen(name) + CONFIG_OUTPUT_SUFFIX_MAX;
    if (longest > DPBO_OUTPUT_PATH_MAX) {
      char where[DPBO_PATH_MAX + 32];
      dpbo_settings_where(settings, dpbo_settings_find(settings, "output", "dir"), where,
                          sizeof where);
      DPBO_RAISE(
          DPBO_ERR_CONFIG,
          "%s: output.dir and output.name are too long: the output files' paths would reach "
          "%zu characters, and dpbo writes through MPI-IO, which handles paths of at most %d "
          "(output.dir %zu + output.name %zu + %d for the suffixes); choose a shorter "
          "output.dir or output.name",
          where, longest, DPBO_OUTPUT_PATH_MAX, strlen(dir), strlen(name),
          1 + CONFIG_OUTPUT_SUFFIX_MAX);
    }
  }
done:
  return status;
}

static const char *const run_sections[] = {"run",       "space",  "gp",      "ucb",
                                           "objective", "output", "privacy", NULL};

/* ---------------------------------------------------------------------------
 * Sections added by a higher layer (run/config.h): their descriptions, the
 * known sections' names and the joined table, set at start-up. */

#define CONFIG_ADDED_MAX 8
#define CONFIG_RUN_SECTIONS (sizeof run_sections / sizeof *run_sections - 1)
#define CONFIG_SCHEMA_MAX 256

static const dpbo_config_section *config_added[CONFIG_ADDED_MAX];
static int config_added_count;
static const char *known_sections[CONFIG_RUN_SECTIONS + CONFIG_ADDED_MAX + 1];
static dpbo_settings_key config_schema[CONFIG_SCHEMA_MAX];
static int config_schema_ready;

/* The run's names and rows, then each added section's, each list ended. */
static dpbo_status config_join(dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  size_t rows = 0, names = 0;
  for (size_t i = 0; i < CONFIG_RUN_SECTIONS; i++)
    known_sections[names++] = run_sections[i];
  for (const dpbo_settings_key *row = dpbo_config_keys; row->key; row++) {
    if (rows + 1 >= CONFIG_SCHEMA_MAX)
      DPBO_RAISE(DPBO_ERR_ARG, "key table: more than %d rows", CONFIG_SCHEMA_MAX - 1);
    config_schema[rows++] = *row;
  }
  for (int s = 0; s < config_added_count; s++) {
    known_sections[names++] = config_added[s]->name;
    for (const dpbo_settings_key *row = config_added[s]->keys; row->key; row++) {
      if (rows + 1 >= CONFIG_SCHEMA_MAX)
        DPBO_RAISE(DPBO_ERR_ARG, "key table: more than %d rows", CONFIG_SCHEMA_MAX - 1);
      config_schema[rows++] = *row;
    }
  }
  known_sections[names] = NULL;
  memset(&config_schema[rows], 0, sizeof config_schema[rows]);
  config_schema_ready = 1;
done:
  return status;
}

dpbo_status dpbo_config_add_section(const dpbo_config_section *section, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  for (int s = 0; s < config_added_count; s++)
    if (config_added[s] == section) goto done;
  for (size_t i = 0; i < CONFIG_RUN_SECTIONS; i++)
    if (strcmp(run_sections[i], section->name) == 0)
      DPBO_RAISE(DPBO_ERR_ARG, "config: section [%s] is the run's own", section->name);
  if (config_added_count == CONFIG_ADDED_MAX)
    DPBO_RAISE(DPBO_ERR_ARG, "config: more than %d added sections", CONFIG_ADDED_MAX);
  config_added[config_added_count++] = section;
  if (config_join(err) != DPBO_OK) {
    dpbo_error ignored; /* the table without it fits, as before */
    config_added_count--;
    status = err->code;
    (void)config_join(&ignored);
  }
done:
  return status;
}

const dpbo_settings_key *dpbo_config_schema(void) {
  dpbo_error err;
  /* The run's table alone fits (a test of config_keys.c would fail first). */
  if (!config_schema_ready && config_join(&err) != DPBO_OK) return dpbo_config_keys;
  return config_schema;
}

/* The end of a blank-separated field. */
static int config_field_ends(char c) { return c == '\0' || isspace((unsigned char)c); }

/* The names of `dim.NAME = categorical NAME1 NAME2 ...` (after the
 * keyword): blank-separated, of A-Z a-z 0-9 _ . + - so that they pass
 * unquoted through argv, the environment and the run file's lists. */
static dpbo_status config_parse_categories(const char *text, dpbo_dim *dim, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char word[DPBO_NAME_MAX + 1];
  const char *p = text;
  for (;;) {
    while (isspace((unsigned char)*p))
      p++;
    if (!*p) break;
    size_t n = 0;
    while (*p && !isspace((unsigned char)*p)) {
      if (!isalnum((unsigned char)*p) && !strchr("_.+-", *p))
        DPBO_RAISE(DPBO_ERR_CONFIG,
                   "dimension %s: category names take A-Z a-z 0-9 _ . + - only, found '%c'",
                   dim->name, *p);
      if (n < DPBO_NAME_MAX) word[n++] = *p;
      p++;
    }
    word[n] = '\0';
    DPBO_TRY(dpbo_dim_add_category(dim, word, err));
  }
  if (dim->type != DPBO_DIM_CATEGORICAL || dim->categories < 2)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "dimension %s: 'categorical' needs at least 2 category names, got %d", dim->name,
               dim->type == DPBO_DIM_CATEGORICAL ? dim->categories : 0);
done:
  return status;
}

/* One [space] line dim.NAME = KIND LO HI [LEVELS] or categorical NAME... into *dim. */
static dpbo_status config_parse_dim(const dpbo_settings *settings, const dpbo_settings_entry *e,
                                    dpbo_space_kind kind, int count, dpbo_dim *dim,
                                    dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char where[DPBO_PATH_MAX + 32];
  dpbo_settings_where(settings, e, where, sizeof where);
  if (count >= DPBO_MAX_DIM)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: more than %d dimensions", where, DPBO_MAX_DIM);
  memset(dim, 0, sizeof *dim);
  const char *name = e->key + 4;
  if (!*name || strlen(name) >= sizeof dim->name)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: dimension name in '%s' is empty or too long", where, e->key);
  snprintf(dim->name, sizeof dim->name, "%s", name);
  if (strncmp(e->value, "categorical", 11) == 0 && config_field_ends(e->value[11])) {
    DPBO_TRY(config_parse_categories(e->value + 11, dim, err));
    DPBO_TRY(dpbo_dim_validate(dim, kind, err));
    goto done;
  }
  char scale[32];
  double lo, hi;
  long long levels = 1;
  int after_lo = 0, after_hi = 0, consumed = 0;
  int fields =
      sscanf(e->value, "%31s %lf%n %lf%n %n", scale, &lo, &after_lo, &hi, &after_hi, &consumed);
  /* Each number must end at a blank or the end: %lf alone would read
   * "0 15-1" as HI = 15 followed by LEVELS = -1. */
  if (fields < 3 || !config_field_ends(e->value[after_lo]) ||
      !config_field_ends(e->value[after_hi]))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: dimension %s = '%s': expected 'linear|log|integer|log_integer LO HI [LEVELS]' "
               "or 'categorical NAME1 NAME2 ...'",
               where, name, e->value);
  const char *rest = e->value + consumed;
  if (*rest) {
    char *end;
    errno = 0;
    levels = strtoll(rest, &end, 10);
    while (*end == ' ' || *end == '\t')
      end++;
    if (end == rest || *end || errno == ERANGE)
      DPBO_RAISE(DPBO_ERR_CONFIG, "%s: dimension %s: LEVELS '%s' is not an integer", where, name,
                 rest);
    if (levels < 1)
      DPBO_RAISE(DPBO_ERR_CONFIG, "%s: dimension %s: LEVELS = %lld must be at least 1", where, name,
                 levels);
  }
  int known = 0;
  for (int i = 0; dpbo_scale_names[i]; i++)
    if (strcmp(scale, dpbo_scale_names[i]) == 0) {
      dim->scale = (dpbo_scale)i;
      known = 1;
    }
  if (strcmp(scale, "integer") == 0 || strcmp(scale, "log_integer") == 0) {
    dim->type = DPBO_DIM_INTEGER;
    dim->scale = scale[0] == 'l' ? DPBO_SCALE_LOG : DPBO_SCALE_LINEAR;
    known = 1;
  }
  if (!known)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: dimension %s: '%s' is not linear, log, integer, log_integer or categorical",
               where, name, scale);
  dim->lo = lo;
  dim->hi = hi;
  dim->levels = levels;
  /* A linear integer range on a grid takes every integer unless LEVELS says
   * otherwise; log-spaced integers need their count. */
  if (dim->type == DPBO_DIM_INTEGER && !*rest && kind == DPBO_SPACE_GRID) {
    if (dim->scale == DPBO_SCALE_LOG)
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "%s: space.%s = %s: log_integer on a grid needs its number of points, "
                 "'log_integer LO HI LEVELS'",
                 where, e->key, e->value);
    if (lo == floor(lo) && hi == floor(hi) && hi >= lo && hi - lo < 1e15)
      dim->levels = (int64_t)(hi - lo) + 1;
  }
  DPBO_TRY(dpbo_dim_validate(dim, kind, err));
done:
  if (status != DPBO_OK && strncmp(err->message, where, strlen(where)) != 0)
    dpbo_error_prefix(err, "%s: %s.%s = %s", where, e->section, e->key, e->value);
  return status;
}

dpbo_status dpbo_config_get_dims(dpbo_settings *settings, dpbo_space_kind kind, dpbo_dim *dims,
                                 int *count, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  *count = 0;
  for (int i = 0; i < settings->count; i++) {
    dpbo_settings_entry *e = &settings->entry[i];
    if (strcmp(e->section, "space") == 0 && strncmp(e->key, "dim.", 4) == 0) {
      e->used = 1;
      DPBO_TRY(config_parse_dim(settings, e, kind, *count, &dims[*count], err));
      ++*count;
    }
  }
  if (*count == 0)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: [space] has no dimensions (add lines like 'dim.C = log 1e-2 1e4')",
               settings->path);
done:
  return status;
}

/* Everything written must have been used; a key of [objective] may belong
 * to another kind, which the message says. */
static dpbo_status config_check_used(const dpbo_config *config, dpbo_error *err) {
  const dpbo_settings_entry *e = dpbo_settings_unused(&config->settings);
  if (e && strcmp(e->section, "objective") == 0) {
    char where[DPBO_PATH_MAX + 32];
    dpbo_settings_where(&config->settings, e, where, sizeof where);
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: unknown key '%s' in [objective] for kind = %s",
                          where, e->key, dpbo_objective_kind_name(config->objective));
  }
  return dpbo_settings_check_used(&config->settings, err);
}

/* The accounting's δ_β and the objective's proven Δ (run/config.h): what
 * the rows' computed defaults and the checks below share. */
dpbo_status dpbo_config_delta_beta(const dpbo_config *config, double *delta_beta, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_privacy_budget budget;
  memset(&budget, 0, sizeof budget);
  /* The selection methods: no GP. The guided method's GP is post-processing
   * (its β keeps the default δ, dpbo_privacy_budget_split), and with stage 1
   * on the proxy task its δ may be 0. */
  budget.delta_beta = DPBO_PRIVACY_DELTA_BETA_DEFAULT;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(config->algorithm);
  if (!ops->is_selection && !ops->guided_selection)
    DPBO_TRY(dpbo_privacy_budget_split(config->algorithm, config->bounds, config->privacy_epsilon,
                                       config->privacy_delta, config->privacy_split, &budget, err));
done:
  *delta_beta = budget.delta_beta;
  return status;
}

double dpbo_config_proven_sensitivity(const dpbo_config *config) {
  if (config->objective == DPBO_OBJECTIVE_SVM)
    return dpbo_privacy_gain_sensitivity(config->svm.validation_rows, 1.0);
  if (config->objective == DPBO_OBJECTIVE_LOGREG) {
    double lipschitz, gstar;
    dpbo_logreg_loss_constants(config->logreg.loss, &lipschitz, &gstar);
    return dpbo_privacy_gain_sensitivity(config->logreg.validation_rows, gstar);
  }
  return 0.0;
}

/* algorithm = private_evaluations (run/private_evals_settings.h): the
 * objective's proven sensitivity, the rows of Δ, K and the final choice
 * with their checks, then σ, which the GP's noise takes in. */
static dpbo_status config_private_evaluations(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_private_evals_inputs in = {dpbo_algorithm_ops_get(config->algorithm)->private_evaluations,
                                  dpbo_config_proven_sensitivity(config),
                                  dpbo_objective_kind_name(config->objective),
                                  config->iterations,
                                  config->privacy_epsilon,
                                  config->privacy_delta,
                                  config->prior.noise_std};
  DPBO_TRY(dpbo_private_evals_settings_read(&config->settings, dpbo_config_keys, config, &in,
                                            &config->evals, err));
  config->prior.noise_std = config->evals.gp_noise_std_used;
done:
  return status;
}

/* The checked source into an objective's options: svm's and logreg's name
 * its fields alike, so one copy serves both. */
#define CONFIG_COPY_DATA_SOURCE(options, data)                                                     \
  do {                                                                                             \
    snprintf((options)->data_path, sizeof(options)->data_path, "%s", (data)->path);                \
    (options)->format = (data)->format;                                                            \
    (options)->max_features = (data)->max_features;                                                \
    (options)->header = (data)->header;                                                            \
    (options)->label_column = (data)->label_column;                                                \
    snprintf((options)->labels_path, sizeof(options)->labels_path, "%s", (data)->labels);          \
  } while (0)

/* The [objective] keys of a data file, for the svm and logreg objectives,
 * read by their rows into config->data (data, format, labels,
 * max_features, header, label_column): what no row can say alone, that
 * labels (IDX: the labels file, which with format = auto means IDX) and
 * the CSV keys header and label_column go with the format; then copies the
 * source into the objective's options (svm or logreg). */
static dpbo_status config_data_source(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_config_data *data = &config->data;
  if (data->format == DPBO_FORMAT_AUTO && data->labels[0]) data->format = DPBO_FORMAT_IDX;
  DPBO_TRY(dpbo_settings_require(&config->settings, "objective", "labels",
                                 data->format != DPBO_FORMAT_IDX || data->labels[0],
                                 "is required with objective.format = idx (the labels file)", err));
  DPBO_TRY(dpbo_settings_require(&config->settings, "objective", "labels",
                                 data->format == DPBO_FORMAT_IDX || !data->labels[0],
                                 "applies to IDX files (objective.format = idx)", err));
  char not_csv[64];
  snprintf(not_csv, sizeof not_csv, "applies to CSV files (objective.format = %s)",
           dpbo_data_format_name(data->format));
  const int csv = data->format != DPBO_FORMAT_LIBSVM && data->format != DPBO_FORMAT_IDX;
  DPBO_TRY(dpbo_settings_require(&config->settings, "objective", "header",
                                 csv || data->header == DPBO_HEADER_AUTO, not_csv, err));
  DPBO_TRY(dpbo_settings_require(&config->settings, "objective", "label_column",
                                 csv || data->label_column == 0, not_csv, err));
  if (config->objective == DPBO_OBJECTIVE_SVM)
    CONFIG_COPY_DATA_SOURCE(&config->svm, data);
  else
    CONFIG_COPY_DATA_SOURCE(&config->logreg, data);
done:
  return status;
}

/* The svm and logreg dimensions' domains (objectives/svm_dims.h): C, gamma
 * and lambda above 0, feature weights well formed, not below 0, and only
 * where the objective takes them; refused here so that the error names the
 * line before any data is read and before any epsilon is spent. */
static dpbo_status config_objective_dims(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (config->objective == DPBO_OBJECTIVE_SYNTHETIC) {
    /* Test functions (and the GP sample's random features) take numbers. */
    for (int i = 0; i < config->dims; i++) {
      char key[DPBO_NAME_MAX + 8];
      snprintf(key, sizeof key, "dim.%s", config->dim[i].name);
      DPBO_TRY(dpbo_settings_require(
          &config->settings, "space", key, config->dim[i].type != DPBO_DIM_CATEGORICAL,
          "is categorical, but the synthetic objective's functions take numbers", err));
    }
    goto done;
  }
  if (config->objective != DPBO_OBJECTIVE_SVM && config->objective != DPBO_OBJECTIVE_LOGREG)
    return DPBO_OK; /* a command's names and kinds are its own */
  for (int i = 0; i < config->dims; i++) {
    const char *problem =
        dpbo_svm_dim_problem(&config->dim[i], config->objective == DPBO_OBJECTIVE_SVM);
    char key[DPBO_NAME_MAX + 8];
    snprintf(key, sizeof key, "dim.%s", config->dim[i].name);
    if (problem) DPBO_TRY(dpbo_settings_require(&config->settings, "space", key, 0, problem, err));
  }
done:
  return status;
}

/* [gp]: its rows (run/config_keys.c: the kernel, its length-scales, the
 * prior, the jitter), then the kernel set up from what they read. */
static dpbo_status config_gp(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_TRY(dpbo_settings_read_rows(&config->settings, dpbo_config_keys, "gp", config, err));
  /* dpbo_kernel_init clears the kernel the rows read into: a copy. */
  double lengthscale[DPBO_MAX_DIM];
  memcpy(lengthscale, config->kernel.lengthscale, sizeof lengthscale);
  DPBO_TRY(dpbo_kernel_init(&config->kernel, config->kernel.kind, config->dims, lengthscale, err));
  dpbo_kernel_use_dims(&config->kernel, config->dim);
done:
  return status;
}

/* The split and solver tolerance both model objectives take, by the same
 * names (the options structs differ, so a macro: one copy for both). */
#define CONFIG_COPY_FIT(options, fit)                                                              \
  do {                                                                                             \
    (options)->train_rows = (fit)->train_rows;                                                     \
    (options)->validation_rows = (fit)->validation_rows;                                           \
    (options)->test_rows = (fit)->test_rows;                                                       \
    (options)->split_seed = (fit)->split_seed;                                                     \
    (options)->tolerance = (fit)->tolerance;                                                       \
  } while (0)

/* [objective] past its kind (a row): what its rows read (the data source
 * and fit keys, run/config_keys.c), into the objective's options. */
static dpbo_status config_objective(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config_fit *fit = &config->fit;
  if (config->objective == DPBO_OBJECTIVE_SVM) {
    dpbo_svm_options *svm = &config->svm;
    dpbo_svm_options_default(svm);
    DPBO_TRY(config_data_source(config, err));
    CONFIG_COPY_FIT(svm, fit);
    svm->cache_mb = fit->cache_mb;
    svm->shrinking = fit->shrinking;
    /* (synthetic: function, features, noise_std and seed are rows) */
  } else if (config->objective == DPBO_OBJECTIVE_LOGREG) {
    dpbo_logreg_options *lr = &config->logreg;
    dpbo_logreg_options_default(lr);
    DPBO_TRY(config_data_source(config, err));
    CONFIG_COPY_FIT(lr, fit);
    lr->positive_label = fit->positive_label;
    lr->loss = (dpbo_logreg_loss)fit->loss;
  }
  /* (a command's keys are all rows: command, pass, mode, timeout_s) */
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * Cross-key checks: what no single row can say. One function each, run in
 * the order of config_checks once every section up to [privacy] is read,
 * before anything is computed from the values they check. */

/* The GP squares noise_std / signal_std. */
static dpbo_status config_check_gp_noise_ratio(dpbo_config *config, dpbo_error *err) {
  return dpbo_settings_require(
      &config->settings, "gp", "noise_std",
      config->prior.noise_std / config->prior.signal_std <= DPBO_GP_MAGNITUDE_MAX,
      "must be at most 1e+100 times gp.signal_std (the GP squares their ratio)", err);
}

/* branin is a function of 2 variables, hartmann6 of 6. */
static dpbo_status config_check_synthetic_dims(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (config->objective != DPBO_OBJECTIVE_SYNTHETIC) return DPBO_OK;
  int need = config->synthetic == DPBO_SYNTH_BRANIN      ? 2
             : config->synthetic == DPBO_SYNTH_HARTMANN6 ? 6
                                                         : 0;
  if (need && config->dims != need)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: objective.function = %s needs %d dimensions, [space] has %d",
               config->path, dpbo_synthetic_kind_names[config->synthetic], need, config->dims);
done:
  return status;
}

/* A persistent program reads NAME=VALUE requests on its stdin; the
 * environment of a running process cannot change. */
static dpbo_status config_check_persistent_pass(dpbo_config *config, dpbo_error *err) {
  const dpbo_command_options *cmd = &config->command;
  if (config->objective != DPBO_OBJECTIVE_COMMAND) return DPBO_OK;
  return dpbo_settings_require(&config->settings, "objective", "pass",
                               cmd->mode != DPBO_COMMAND_PERSISTENT || cmd->pass == DPBO_PASS_ARGS,
                               "must be args with objective.mode = persistent (the values "
                               "arrive on the program's stdin, one request per line)",
                               err);
}

/* Random search and Liu–Talwar are pure (δ = 0 allowed), and so is the
 * guided method whose stage 1 runs on the proxy task (it spends nothing)
 * and whose stage 2 is such a base; every other release spends a δ in
 * (0, 1). */
static dpbo_status config_check_privacy_delta(dpbo_config *config, dpbo_error *err) {
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(config->algorithm);
  const int pure = ops->pure || (ops->guided_selection && config->guided_proxy_rows > 0 &&
                                 dpbo_algorithm_ops_get(config->guided_base)->pure);
  return dpbo_settings_require(
      &config->settings, "privacy", "delta",
      (config->privacy_delta > 0 || (pure && config->privacy_delta == 0)) &&
          config->privacy_delta < 1,
      pure && config->privacy_delta == 0 ? "must lie in [0, 1)" : ops->delta_rule, err);
}

/* Whether privacy.split applies: no release, a release whose row splits
 * the budget (Algorithms 1 and 2, random search), and the guided method
 * whose stage 2 is such a base (privacy.guided_base = random_search). */
static int config_splits_budget(const dpbo_config *config) {
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(config->algorithm);
  if (ops->guided_selection) return dpbo_algorithm_ops_get(config->guided_base)->splits_budget;
  return !ops->private_release || ops->splits_budget;
}

/* Algorithms 1 and 2 (and no release) split ε and δ between λ̃ and ṽ,
 * random search its ε between the selection and the value: both shares
 * must be positive. The others spend everything on one release. */
static dpbo_status config_check_privacy_split(dpbo_config *config, dpbo_error *err) {
  if (!config_splits_budget(config)) return DPBO_OK;
  return dpbo_settings_require(
      &config->settings, "privacy", "split", config->privacy_split > 0 && config->privacy_split < 1,
      "(the share of ε and δ spent on the hyper-parameter) must lie in (0, 1)", err);
}

/* A command's values have no range dpbo knows: a release of one needs the
 * user's (issue #23: Algorithm 1 released v~ = 17.18 for an accuracy),
 * refused here, before any evaluation spends anything. */
static dpbo_status config_check_command_value_range(dpbo_config *config, dpbo_error *err) {
  if (config->objective != DPBO_OBJECTIVE_COMMAND ||
      !dpbo_algorithm_ops_get(config->algorithm)->private_release)
    return DPBO_OK;
  char what[256];
  const dpbo_settings_entry *written =
      dpbo_settings_find(&config->settings, "privacy", "algorithm");
  snprintf(what, sizeof what,
           "is required with objective.kind = command and privacy.algorithm = %s: the released "
           "value is clamped to it ('LO HI', e.g. value_range = 0 1 for an accuracy)",
           written ? written->value : "none");
  return dpbo_settings_require(&config->settings, "objective", "value_range", config->clamp_value,
                               what, err);
}

/* The ledger's cap must hold one release. */
static dpbo_status config_check_budget_fits(dpbo_config *config, dpbo_error *err) {
  if (config->budget_epsilon == 0.0 && config->budget_delta == 0.0) return DPBO_OK;
  return dpbo_settings_require(&config->settings, "privacy", "budget",
                               config->budget_epsilon >= config->privacy_epsilon &&
                                   config->budget_delta >= config->privacy_delta,
                               "is smaller than one release (privacy.epsilon, privacy.delta)", err);
}

/* The ledger stores one line per release, its fields separated by tabs. */
static dpbo_status config_check_dataset_id(dpbo_config *config, dpbo_error *err) {
  return dpbo_settings_require(&config->settings, "privacy", "dataset_id",
                               strcspn(config->dataset_id, "\t\n\r") == strlen(config->dataset_id),
                               "must be one line without tabs", err);
}

/* T is the number of candidates (random search) or E[K]: one candidate
 * leaves nothing to select, and E[K] = 1 has no truncated negative
 * binomial. */
static dpbo_status config_check_selection_candidates(dpbo_config *config, dpbo_error *err) {
  if (!dpbo_algorithm_ops_get(config->algorithm)->is_selection) return DPBO_OK;
  return dpbo_settings_require(&config->settings, "run", "iterations", config->iterations >= 2,
                               "must be >= 2 with a private-selection algorithm (T candidates, "
                               "or E[K] = T runs)",
                               err);
}

/* The private-selection methods rest on the gain's sensitivity over the m
 * validation records, known for svm and logreg only. */
static dpbo_status config_check_selection_objective(dpbo_config *config, dpbo_error *err) {
  if (!dpbo_algorithm_ops_get(config->algorithm)->is_selection) return DPBO_OK;
  return dpbo_settings_require(
      &config->settings, "privacy", "algorithm",
      config->objective == DPBO_OBJECTIVE_SVM || config->objective == DPBO_OBJECTIVE_LOGREG,
      "(a private-selection method) needs objective.kind = svm or logreg: it rests on the "
      "gain's sensitivity over the m validation records, unknown for other objectives",
      err);
}

/* A prior fitted on the validation data voids every release's guarantee. */
static dpbo_status config_check_prior_public(dpbo_config *config, dpbo_error *err) {
  if (!dpbo_algorithm_ops_get(config->algorithm)->private_release) return DPBO_OK;
  return dpbo_settings_require(&config->settings, "privacy", "prior_source",
                               !config->prior_validation,
                               "= validation: a GP prior (m0, s, ℓ, σ, k1) fitted on the sensitive "
                               "validation data voids the guarantee; fix it from public or proxy "
                               "data",
                               err);
}

/* ucb.delta (a deferred row: its default is the accounting's δ_β, after
 * the checks of [privacy]): with a GP-based release the run's β_t must use
 * the δ the theorems use for ṽ (Srinivas et al.'s regret bound holds for
 * the β the run used), which a given ucb.delta must equal exactly. */
static dpbo_status config_check_ucb_delta(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double delta_beta;
  DPBO_TRY(dpbo_config_delta_beta(config, &delta_beta, err));
  if (dpbo_settings_find(&config->settings, "ucb", "delta") &&
      dpbo_algorithm_ops_get(config->algorithm)->gp_release && config->delta != delta_beta) {
    char what[512];
    snprintf(what, sizeof what,
             "= %.17g differs from the delta %.17g that beta_t needs for privacy.algorithm = %d "
             "with bounds = %s (privacy.delta = %g, split = %g): the released value's "
             "sensitivity holds only for that beta; leave ucb.delta unset",
             config->delta, delta_beta, (int)config->algorithm, dpbo_bounds_name(config->bounds),
             config->privacy_delta, config->privacy_split);
    DPBO_TRY(dpbo_settings_require(&config->settings, "ucb", "delta", 0, what, err));
  }
done:
  return status;
}

/* The checks in the order of the keys they name; each says why above. */
static const struct {
  const char *name;
  dpbo_status (*check)(dpbo_config *config, dpbo_error *err);
} config_checks[] = {
    {"gp.noise_std / gp.signal_std", config_check_gp_noise_ratio},
    {"objective.function and [space]", config_check_synthetic_dims},
    {"objective.pass and objective.mode", config_check_persistent_pass},
    {"[space] dimensions and objective.kind", config_objective_dims},
    {"privacy.delta and privacy.algorithm", config_check_privacy_delta},
    {"privacy.split and privacy.algorithm", config_check_privacy_split},
    {"objective.value_range and privacy.algorithm", config_check_command_value_range},
    {"privacy.budget and one release", config_check_budget_fits},
    {"privacy.dataset_id in the ledger", config_check_dataset_id},
    {"run.iterations and private selection", config_check_selection_candidates},
    {"objective.kind and private selection", config_check_selection_objective},
    {"privacy.prior_source and a release", config_check_prior_public},
};

/* The value range is final once [privacy] is read (privacy.value_range,
 * its old name, is a row there): a command's evaluations check it. */
static void config_command_range(dpbo_config *config) {
  if (config->objective != DPBO_OBJECTIVE_COMMAND) return;
  config->command.check_range = config->clamp_value;
  config->command.value_lo = config->value_lo;
  config->command.value_hi = config->value_hi;
}

/* The sections in order: each section's rows (run/config_keys.c), the
 * dimensions (read by code: config_keys.h says why), the named cross-key
 * checks (config_checks), and the deferred rows where their defaults'
 * checks are done. */
static dpbo_status config_interpret(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_settings *settings = &config->settings;
  /* Unknown sections first: they usually mean a typo. */
  DPBO_TRY(dpbo_settings_check_sections(settings,
                                        config_schema_ready ? known_sections : run_sections, err));
  DPBO_TRY(dpbo_settings_read_rows(settings, dpbo_config_keys, "run", config, err));
  DPBO_TRY(dpbo_settings_read_rows(settings, dpbo_config_keys, "space", config, err));
  DPBO_TRY(dpbo_config_get_dims(settings, config->space_kind, config->dim, &config->dims, err));
  DPBO_TRY(config_gp(config, err));
  DPBO_TRY(dpbo_settings_read_rows(settings, dpbo_config_keys, "objective", config, err));
  DPBO_TRY(config_objective(config, err));
  DPBO_TRY(dpbo_settings_read_rows(settings, dpbo_config_keys, "ucb", config, err));
  /* [privacy]: its rows (run/config_keys.c: computed defaults, the budget's
   * and the old value_range's parsed forms) but the deferred ones. */
  DPBO_TRY(dpbo_settings_read_rows(settings, dpbo_config_keys, "privacy", config, err));
  config_command_range(config);
  for (size_t i = 0; i < sizeof config_checks / sizeof *config_checks; i++)
    DPBO_TRY(config_checks[i].check(config, err));
  /* Algorithm 3 and the selection methods release one value, or one
   * mechanism over (λ, score): the whole budget goes there. */
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(config->algorithm);
  if (!config_splits_budget(config)) config->privacy_split = 0.0;
  DPBO_TRY(config_private_evaluations(config, err));
  /* Each algorithm's assumptions: its row (run/algorithm.h). */
  if (ops->check_config) DPBO_TRY(ops->check_config(config, err));
  DPBO_TRY(dpbo_settings_read_row(settings, dpbo_config_keys, "ucb", "delta", config, err));
  DPBO_TRY(config_check_ucb_delta(config, err));
  DPBO_TRY(dpbo_settings_read_rows(settings, dpbo_config_keys, "output", config, err));
  DPBO_TRY(dpbo_config_check_output(settings, config->output_dir, config->output_name, err));
  /* The added sections last (run/config.h), as [compare] always came. */
  for (int s = 0; s < config_added_count; s++)
    DPBO_TRY(config_added[s]->read(config, err));
  DPBO_TRY(config_check_used(config, err));
done:
  return status;
}

/* Interprets config->settings, read already; on failure they are freed. */
static dpbo_status config_load_settings(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  snprintf(config->path, sizeof config->path, "%s", config->settings.path);
  /* Every getter checks its key against the table (config_keys.h) and the
   * added sections' rows. */
  config->settings.schema = dpbo_config_schema();
  DPBO_TRY(config_interpret(config, err));
done:
  if (status != DPBO_OK) dpbo_config_free(config);
  return status;
}

dpbo_status dpbo_config_load(const char *path, int override_count, const char *const *overrides,
                             dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(config, 0, sizeof *config);
  DPBO_TRY(dpbo_settings_read(&config->settings, path, override_count, overrides, err));
  DPBO_TRY(config_load_settings(config, err));
done:
  return status;
}

dpbo_status dpbo__config_load_buffer(const char *label, const char *text, size_t size,
                                     int override_count, const char *const *overrides,
                                     dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(config, 0, sizeof *config);
  DPBO_TRY(dpbo_settings_read_text(&config->settings, label, text, size, override_count, overrides,
                                   err));
  DPBO_TRY(config_load_settings(config, err));
done:
  return status;
}

dpbo_status dpbo_config_load_stored(const char *label, const dpbo_settings *stored,
                                    int override_count, const char *const *overrides,
                                    dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(config, 0, sizeof *config);
  snprintf(config->settings.path, sizeof config->settings.path, "%s", label);
  for (int i = 0; i < stored->count; i++)
    DPBO_TRY(dpbo_settings_set(&config->settings, stored->entry[i].section, stored->entry[i].key,
                               stored->entry[i].value, err));
  DPBO_TRY(dpbo_settings_override(&config->settings, override_count, overrides, err));
  DPBO_TRY(config_load_settings(config, err));
done:
  if (status != DPBO_OK) dpbo_settings_free(&config->settings);
  return status;
}

dpbo_status dpbo_config_load_assignments(const char *label, int count,
                                         const char *const *assignments, int override_count,
                                         const char *const *overrides, dpbo_config *config,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(config, 0, sizeof *config);
  DPBO_TRY(dpbo_settings_assign(&config->settings, label, count, assignments, override_count,
                                overrides, err));
  DPBO_TRY(config_load_settings(config, err));
done:
  return status;
}

void dpbo_config_free(dpbo_config *config) {
  if (config) dpbo_settings_free(&config->settings);
}

const char *dpbo_objective_kind_name(dpbo_objective_kind kind) {
  return kind >= DPBO_OBJECTIVE_SVM && kind <= DPBO_OBJECTIVE_LOGREG
             ? dpbo_objective_kind_names[kind]
             : "unknown";
}

void dpbo_config_run_path(const dpbo_config *config, char *path, size_t size) {
  snprintf(path, size, "%s/%s.h5", config->output_dir, config->output_name);
}

/* The stored entry section.key, or NULL. */
static const dpbo_settings_entry *config_stored_entry(const dpbo_settings *stored,
                                                      const char *section, const char *key) {
  for (int i = 0; i < stored->count; i++)
    if (strcmp(stored->entry[i].section, section) == 0 && strcmp(stored->entry[i].key, key) == 0)
      return &stored->entry[i];
  return NULL;
}

/* Keys a resumed run may change: where the output goes, and the UCB state's
 * memory limit (it decides how μ and σ² are computed, never their values:
 * the recompute mode gives the same bits, ucb.h). */
static int config_key_may_differ(const char *section, const char *key) {
  return strcmp(section, "output") == 0 ||
         (strcmp(section, "ucb") == 0 && strcmp(key, "memory_limit_mb") == 0);
}

int dpbo_config_differs(const dpbo_config *config, const dpbo_settings *stored, char *what,
                        size_t size) {
  /* Every key set now must be stored with the same text... */
  const dpbo_settings *settings = &config->settings;
  for (int i = 0; i < settings->count; i++) {
    const dpbo_settings_entry *e = &settings->entry[i];
    if (config_key_may_differ(e->section, e->key)) continue;
    const dpbo_settings_entry *old = config_stored_entry(stored, e->section, e->key);
    if (!old) {
      snprintf(what, size, "%s.%s is set to '%s' now but was not set in the run", e->section,
               e->key, e->value);
      return 1;
    }
    if (strcmp(e->value, old->value) != 0) {
      snprintf(what, size, "%s.%s was '%s' in the run and is '%s' now", e->section, e->key,
               old->value, e->value);
      return 1;
    }
  }
  /* ...and every stored key must still be set. */
  for (int i = 0; i < stored->count; i++) {
    const dpbo_settings_entry *old = &stored->entry[i];
    if (config_key_may_differ(old->section, old->key) ||
        config_stored_entry(settings, old->section, old->key))
      continue;
    snprintf(what, size, "%s.%s was '%s' in the run and is not set now", old->section, old->key,
             old->value);
    return 1;
  }
  return 0;
}
