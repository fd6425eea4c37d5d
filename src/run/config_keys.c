#include "run/config_keys.h"
#include "run/config.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpbo/kernel.h"
#include "objectives/dataset.h"
#include "objectives/logreg.h"
#include "run/guided.h"
#include "run/private_evals_settings.h"

/* Columns: section, key, type (the getter: integer | number | choice |
 * text; dimension for the dim.NAME lines), values (what is accepted; NULL
 * for a choice, whose names are the code's own list in its target, so that
 * they are spelled once), default (NULL: required),
 * computed (1: the default depends on other keys and the text describes
 * it), unit, read when ("" always, else "section.key = a, b"), meaning.
 * Rows are in the order the reader takes them (a deferred one where
 * run/config.c reads it). A ROW reads itself
 * (dpbo_settings_read_rows; a deferred one dpbo_settings_read_row) into its
 * field of dpbo_config, with the range and message of its target (the
 * macros below), so its default, range and choices are written here once;
 * only dim.NAME (config_keys.h says why) is read by run/config.c's code,
 * and the getters compare its row with the code on every load. */
#define KEY(section, key, type, values, fallback, computed, unit, applies, doc)                    \
  {                                                                                                \
    section, key, type, values, fallback, computed, unit, applies, doc, { 0 }                      \
  }
#define ROW(section, key, type, values, fallback, unit, applies, doc, target)                      \
  { section, key, type, values, fallback, 0, unit, applies, doc, target }
/* A row whose default depends on keys read before it: `fallback` describes
 * it, the target's computed_default computes it. */
#define ROW_COMPUTED(section, key, type, values, fallback, unit, applies, doc, target)             \
  { section, key, type, values, fallback, 1, unit, applies, doc, target }

/* Targets: a field of dpbo_config, its kind and accepted values. */
#define DOUBLE(field, low, high, open_ends, below, above)                                          \
  {                                                                                                \
    .kind = DPBO_SETTINGS_DOUBLE, .offset = offsetof(dpbo_config, field), .lo = (low),             \
    .hi = (high), .open = (open_ends), .what = (below), .what_hi = (above)                         \
  }
#define INTEGER(kind_, field, low, high, message)                                                  \
  {                                                                                                \
    .kind = (kind_), .offset = offsetof(dpbo_config, field), .ilo = (low), .ihi = (high),          \
    .what = (message)                                                                              \
  }
#define ENUM(field, names, map)                                                                    \
  {                                                                                                \
    .kind = DPBO_SETTINGS_ENUM, .offset = offsetof(dpbo_config, field), .choices = (names),        \
    .values = (map)                                                                                \
  }
/* A choice whose default `from` computes (its name among `names`). */
#define ENUM_FROM(field, names, map, from)                                                         \
  {                                                                                                \
    .kind = DPBO_SETTINGS_ENUM, .offset = offsetof(dpbo_config, field), .choices = (names),        \
    .values = (map), .computed_default = (from)                                                    \
  }
#define STRING(field)                                                                              \
  {                                                                                                \
    .kind = DPBO_SETTINGS_STRING, .offset = offsetof(dpbo_config, field),                          \
    .size = sizeof(((dpbo_config *)0)->field)                                                      \
  }
/* An integer whose default `from` computes from the keys read before it. */
#define INTEGER_FROM(kind_, field, low, high, from)                                                \
  {                                                                                                \
    .kind = (kind_), .offset = offsetof(dpbo_config, field), .ilo = (low), .ihi = (high),          \
    .computed_default = (from)                                                                     \
  }
#define DOUBLE_FROM(field, low, high, below, above, from)                                          \
  {                                                                                                \
    .kind = DPBO_SETTINGS_DOUBLE, .offset = offsetof(dpbo_config, field), .lo = (low),             \
    .hi = (high), .what = (below), .what_hi = (above), .computed_default = (from)                  \
  }
/* A double with open ends whose default `from` computes. */
#define DOUBLE_OPEN_FROM(field, low, high, open_ends, below, from)                                 \
  {                                                                                                \
    .kind = DPBO_SETTINGS_DOUBLE, .offset = offsetof(dpbo_config, field), .lo = (low),             \
    .hi = (high), .open = (open_ends), .what = (below), .computed_default = (from)                 \
  }
/* A required int64 whose absence is refused with `message` (its range's
 * violation with the getter's "is outside [1, ...]"). */
#define REQUIRED(field, message)                                                                   \
  {                                                                                                \
    .kind = DPBO_SETTINGS_INT64, .offset = offsetof(dpbo_config, field), .ilo = 1,                 \
    .ihi = INT64_MAX, .missing = (message)                                                         \
  }
#define STRING_FROM(field, from)                                                                   \
  {                                                                                                \
    .kind = DPBO_SETTINGS_STRING, .offset = offsetof(dpbo_config, field),                          \
    .size = sizeof(((dpbo_config *)0)->field), .computed_default = (from)                          \
  }
/* A parsed form: text of at most size - 1 bytes, which `parser` sets into
 * dpbo_config. */
#define PARSED(size_, parser)                                                                      \
  { .kind = DPBO_SETTINGS_PARSED, .size = (size_), .parse = (parser) }
#define PARSED_FROM(size_, parser, from)                                                           \
  { .kind = DPBO_SETTINGS_PARSED, .size = (size_), .parse = (parser), .computed_default = (from) }
/* Deferred rows (settings.h): read where run/config.c's code calls
 * dpbo_settings_read_row, after the checks their defaults rest on. */
#define DEFERRED_DOUBLE_FROM(field, low, high, open_ends, below, from)                             \
  {                                                                                                \
    .kind = DPBO_SETTINGS_DOUBLE, .offset = offsetof(dpbo_config, field), .lo = (low),             \
    .hi = (high), .open = (open_ends), .what = (below), .computed_default = (from), .deferred = 1  \
  }
#define DEFERRED_INTEGER_FROM(kind_, field, low, high, from)                                       \
  {                                                                                                \
    .kind = (kind_), .offset = offsetof(dpbo_config, field), .ilo = (low), .ihi = (high),          \
    .computed_default = (from), .deferred = 1                                                      \
  }
#define DEFERRED_ENUM(field, names)                                                                \
  {                                                                                                \
    .kind = DPBO_SETTINGS_ENUM, .offset = offsetof(dpbo_config, field), .choices = (names),        \
    .deferred = 1                                                                                  \
  }
#define OPEN_LO DPBO_SETTINGS_OPEN_LO
/* The GP squares the prior's values and their ratios: past
 * DPBO_GP_MAGNITUDE_MAX (1e100, include/dpbo/gp.h) its posterior would
 * overflow to inf or NaN at the first observation. */
#define GP_RANGE "must be at most 1e+100 in magnitude (the GP squares it: larger values overflow)"
#define TNB_SHAPE "(the truncated negative binomial shape) must lie in [0, 10]"

/* The names as configs write them, and what each one means. */
static const char *const config_algorithm_names[] = {"none",
                                                     "1",
                                                     "2",
                                                     "3",
                                                     "random_search",
                                                     "liu_talwar",
                                                     "papernot_steinke",
                                                     "private_evaluations",
                                                     "guided",
                                                     NULL};
static const int config_algorithm_values[] = {DPBO_ALGORITHM_NONE,
                                              DPBO_ALGORITHM_1,
                                              DPBO_ALGORITHM_2,
                                              DPBO_ALGORITHM_3,
                                              DPBO_ALGORITHM_RANDOM_SEARCH,
                                              DPBO_ALGORITHM_LIU_TALWAR,
                                              DPBO_ALGORITHM_PAPERNOT_STEINKE,
                                              DPBO_ALGORITHM_PRIVATE_EVALUATIONS,
                                              DPBO_ALGORITHM_GUIDED};
/* Stage 2 of privacy.algorithm = guided: the stopping methods, or private
 * random search over T − T1 candidates. */
static const char *const config_guided_base_names[] = {"liu_talwar", "papernot_steinke",
                                                       "random_search", NULL};
static const int config_guided_base_values[] = {
    DPBO_ALGORITHM_LIU_TALWAR, DPBO_ALGORITHM_PAPERNOT_STEINKE, DPBO_ALGORITHM_RANDOM_SEARCH};
const char *const dpbo_objective_kind_names[] = {"svm", "synthetic", "command", "logreg", NULL};
static const char *const config_acquisition_names[] = {"ucb", "ei", NULL};
static const char *const config_noise_names[] = {"os", "seeded", NULL};
static const char *const config_no_yes[] = {"no", "yes", NULL};
static const char *const config_prior_source_names[] = {"public", "validation", NULL};
static const char *const config_posterior_names[] = {"auto", "yes", "no", NULL};
static const char *const config_pass_names[] = {"args", "env", NULL};
static const char *const config_mode_names[] = {"per_evaluation", "persistent", NULL};

#define SVM_LOGREG "objective.kind = svm, logreg"

/* ---------------------------------------------------------------------------
 * Computed defaults and parsed forms of the rows below, each named by its
 * key. */

/* gp.lengthscale: one number, or one per dimension of [space] (read
 * before), blank or comma separated, each positive, into the kernel's
 * lengthscale[] (run/config.c's config_gp then sets the kernel up). */
static dpbo_status config_keys_parse_lengthscale(dpbo_settings *settings,
                                                 const dpbo_settings_key *row, const char *text,
                                                 void *options, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_config *config = options;
  double *lengthscale = config->kernel.lengthscale;
  int n = 0;
  const char *cursor = text;
  for (;;) {
    char *end;
    double v = strtod(cursor, &end);
    if (end == cursor) break;
    if (n < DPBO_MAX_DIM) lengthscale[n] = v;
    n++;
    cursor = end;
    while (*cursor == ' ' || *cursor == ',' || *cursor == '\t')
      cursor++;
  }
  int ok = *cursor == '\0' && (n == 1 || n == config->dims);
  DPBO_TRY(dpbo_settings_require(settings, row->section, row->key, ok,
                                 "must be one number or one per dimension", err));
  for (int i = n; i < config->dims; i++)
    lengthscale[i] = lengthscale[0];
  for (int i = 0; i < config->dims; i++)
    DPBO_TRY(dpbo_settings_require(settings, row->section, row->key,
                                   lengthscale[i] > 0 && isfinite(lengthscale[i]),
                                   "must be positive", err));
done:
  return status;
}

/* ucb.memory_limit_mb: auto (-1), off (0), or MiB per rank: above it the
 * UCB state recomputes a(x) instead of storing T·N/P doubles (same
 * results, slower steps). */
static dpbo_status config_keys_parse_memory_limit(dpbo_settings *settings,
                                                  const dpbo_settings_key *row, const char *text,
                                                  void *options, dpbo_error *err) {
  dpbo_config *config = options;
  if (strcmp(text, "auto") == 0) {
    config->memory_limit_mb = -1.0;
    return DPBO_OK;
  }
  if (strcmp(text, "off") == 0) {
    config->memory_limit_mb = 0.0;
    return DPBO_OK;
  }
  char *end;
  double mb = strtod(text, &end);
  while (*end == ' ' || *end == '\t')
    end++;
  char what[160];
  snprintf(what, sizeof what, "must be auto, off, or a positive number of MiB per rank (got '%s')",
           text);
  config->memory_limit_mb = mb;
  return dpbo_settings_require(settings, row->section, row->key,
                               end != text && *end == '\0' && isfinite(mb) && mb > 0 && mb < 1e12,
                               what, err);
}

/* objective.seed (synthetic) and objective.split_seed (svm, logreg):
 * run.seed. */
static void config_keys_run_seed_default(const dpbo_settings *settings, const void *options,
                                         char *text, size_t size) {
  (void)settings;
  snprintf(text, size, "%lld", (long long)((const dpbo_config *)options)->seed);
}

/* objective.tolerance: the objective's solver's (dpbo_svm_options_default,
 * dpbo_logreg_options_default; objective.kind is read before it). */
static void config_keys_tolerance_default(const dpbo_settings *settings, const void *options,
                                          char *text, size_t size) {
  (void)settings;
  dpbo_svm_options svm;
  dpbo_logreg_options lr;
  dpbo_svm_options_default(&svm);
  dpbo_logreg_options_default(&lr);
  const int logreg = ((const dpbo_config *)options)->objective == DPBO_OBJECTIVE_LOGREG;
  snprintf(text, size, "%.17g", logreg ? lr.tolerance : svm.tolerance);
}

/* gp.jitter: noise-free GPs need a nugget to stay factorizable; noisy ones
 * do not (gp.noise_std is read before it). */
static void config_keys_jitter_default(const dpbo_settings *settings, const void *options,
                                       char *text, size_t size) {
  (void)settings;
  snprintf(text, size, "%.17g", ((const dpbo_config *)options)->prior.noise_std > 0 ? 0.0 : 1e-10);
}

/* objective.label_column: `last` (0) or a column's number from 1. */
static dpbo_status config_keys_parse_label_column(dpbo_settings *settings,
                                                  const dpbo_settings_key *row, const char *text,
                                                  void *options, dpbo_error *err) {
  dpbo_config *config = options;
  char *end = NULL;
  long column = strcmp(text, "last") == 0 ? 0 : strtol(text, &end, 10);
  config->data.label_column = (int)column;
  return dpbo_settings_require(settings, row->section, row->key,
                               column == 0
                                   ? strcmp(text, "last") == 0
                                   : end && *end == '\0' && column >= 1 && column <= INT32_MAX,
                               "must be 'last' or a column number from 1", err);
}

/* privacy.noise_seed: run.seed. */
static void config_keys_noise_seed_default(const dpbo_settings *settings, const void *options,
                                           char *text, size_t size) {
  (void)settings;
  snprintf(text, size, "%lld", (long long)((const dpbo_config *)options)->seed);
}

/* privacy.guided_evaluations, guided's T1 (run/guided.h; chosen in
 * bench/guided_defaults.c): with a privatized stage 1 a tenth of the
 * evaluations, leaving stage 2 at least 2 (below T = 3 no T1 fits and a
 * guided release is refused, alg_guided.c); on the proxy task
 * (privacy.guided_proxy_rows, read before this key) T proxy fits, on top
 * of stage 2's T. */
static void config_keys_guided_evaluations_default(const dpbo_settings *settings,
                                                   const void *options, char *text, size_t size) {
  (void)settings;
  const dpbo_config *config = options;
  const int T = config->iterations;
  if (config->guided_proxy_rows > 0) {
    snprintf(text, size, "%d", T);
    return;
  }
  const int tenth = (int)lround(T / 10.0), most = T - 2 > 1 ? T - 2 : 1;
  snprintf(text, size, "%d", tenth < 1 ? 1 : tenth > most ? most : tenth);
}

/* The law's defaults of the guided method (bench/guided_defaults.c, on
 * public synthetic landscapes): privatized stage 1, w = 0.3, tau = 0.005
 * over the UCB; stage 1 on the proxy task (privacy.guided_proxy_rows, read
 * before these keys), w = 0.1, tau = 0.01 over the posterior mean. */
static void config_keys_guided_weight_default(const dpbo_settings *settings, const void *options,
                                              char *text, size_t size) {
  (void)settings;
  snprintf(text, size, "%s", ((const dpbo_config *)options)->guided_proxy_rows > 0 ? "0.1" : "0.3");
}

static void config_keys_guided_temperature_default(const dpbo_settings *settings,
                                                   const void *options, char *text, size_t size) {
  (void)settings;
  snprintf(text, size, "%s",
           ((const dpbo_config *)options)->guided_proxy_rows > 0 ? "0.01" : "0.005");
}

static void config_keys_guided_score_default(const dpbo_settings *settings, const void *options,
                                             char *text, size_t size) {
  (void)settings;
  snprintf(text, size, "%s",
           ((const dpbo_config *)options)->guided_proxy_rows > 0 ? "mean" : "ucb");
}

/* privacy.ledger: empty, which run/ledger.h resolves next to the run file. */
static void config_keys_ledger_default(const dpbo_settings *settings, const void *options,
                                       char *text, size_t size) {
  (void)settings;
  (void)options;
  snprintf(text, size, "%s", "");
}

/* objective.positive_label: the logreg objective's own default, NaN for
 * none (the larger of the data's two labels), which the row takes without
 * its range (settings.h). */
static void config_keys_positive_label_default(const dpbo_settings *settings, const void *options,
                                               char *text, size_t size) {
  dpbo_logreg_options lr;
  (void)settings;
  (void)options;
  dpbo_logreg_options_default(&lr);
  snprintf(text, size, "%.17g", lr.positive_label);
}

/* A range "LO HI" (LO < HI, both finite) as the row's key: *given = 0 when
 * the text is empty (lo and hi then kept), else 1 with the bounds. */
static dpbo_status config_keys_range(dpbo_settings *settings, const dpbo_settings_key *row,
                                     const char *text, int *given, double *lo, double *hi,
                                     dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  *given = 0;
  if (text[0]) {
    char tail;
    int ok = sscanf(text, "%lf %lf %c", lo, hi, &tail) == 2 && isfinite(*lo) && isfinite(*hi) &&
             *lo < *hi;
    DPBO_TRY(dpbo_settings_require(settings, row->section, row->key, ok,
                                   "must be 'LO HI' with LO < HI", err));
    *given = 1;
  }
done:
  return status;
}

/* objective.value_range, the one range of the objective's values: a
 * command's value outside it fails its evaluation (1e300 from a broken
 * script never enters the GP), and every released value is clamped to it
 * (post-processing). svm's accuracy lies in [0, 1], logreg's gain -g in
 * [-g*, 0] (objective.loss is read before it); a command's has no
 * default. */
static void config_keys_value_range_default(const dpbo_settings *settings, const void *options,
                                            char *text, size_t size) {
  const dpbo_config *config = options;
  (void)settings;
  snprintf(text, size, "%s", "");
  if (config->objective == DPBO_OBJECTIVE_SVM) {
    snprintf(text, size, "0 1");
  } else if (config->objective == DPBO_OBJECTIVE_LOGREG) {
    double lipschitz, gstar;
    dpbo_logreg_loss_constants((dpbo_logreg_loss)config->fit.loss, &lipschitz, &gstar);
    snprintf(text, size, "%.17g 0", -gstar);
  }
}

static dpbo_status config_keys_parse_value_range(dpbo_settings *settings,
                                                 const dpbo_settings_key *row, const char *text,
                                                 void *options, dpbo_error *err) {
  dpbo_config *config = options;
  return config_keys_range(settings, row, text, &config->clamp_value, &config->value_lo,
                           &config->value_hi, err);
}

/* privacy.value_range, objective.value_range's old name, kept so that run
 * files storing it still load and release: it stands for
 * objective.value_range, and the two written at once must agree (issue
 * #23: they were different keys, and a command's release was clamped by
 * neither). The check between them, before the old name's range replaces
 * the new one's. */
static dpbo_status config_keys_check_old_value_range(dpbo_settings *settings,
                                                     const dpbo_config *config, double lo,
                                                     double hi, dpbo_error *err) {
  if (!dpbo_settings_find(settings, "objective", "value_range")) return DPBO_OK;
  return dpbo_settings_require(
      settings, "privacy", "value_range", lo == config->value_lo && hi == config->value_hi,
      "is the old name of objective.value_range, which says otherwise: use objective.value_range",
      err);
}

static dpbo_status config_keys_parse_old_value_range(dpbo_settings *settings,
                                                     const dpbo_settings_key *row, const char *text,
                                                     void *options, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_config *config = options;
  int given = 0;
  double lo = 0.0, hi = 0.0;
  DPBO_TRY(config_keys_range(settings, row, text, &given, &lo, &hi, err));
  if (!given) goto done;
  DPBO_TRY(config_keys_check_old_value_range(settings, config, lo, hi, err));
  config->clamp_value = 1;
  config->value_lo = lo;
  config->value_hi = hi;
done:
  return status;
}

/* ucb.delta: the accounting's δ_β (the checks of [privacy] passed, so the
 * split succeeds; should it fail, config_check_ucb_delta reports it). */
static void config_keys_ucb_delta_default(const dpbo_settings *settings, const void *options,
                                          char *text, size_t size) {
  dpbo_error ignored;
  double delta_beta;
  (void)settings;
  if (dpbo_config_delta_beta(options, &delta_beta, &ignored) != DPBO_OK)
    delta_beta = DPBO_PRIVACY_DELTA_BETA_DEFAULT;
  snprintf(text, size, "%.17g", delta_beta);
}

/* privacy.evaluation_sensitivity: the proven Δ (0 where none is proven:
 * the key is then required, dpbo_private_evals_settings_read). */
static void config_keys_evaluation_sensitivity_default(const dpbo_settings *settings,
                                                       const void *options, char *text,
                                                       size_t size) {
  (void)settings;
  snprintf(text, size, "%.17g", dpbo_config_proven_sensitivity(options));
}

/* privacy.max_evaluations: run.iterations, the planned evaluations. */
static void config_keys_max_evaluations_default(const dpbo_settings *settings, const void *options,
                                                char *text, size_t size) {
  (void)settings;
  snprintf(text, size, "%d", ((const dpbo_config *)options)->iterations);
}

/* privacy.budget, the cap of the run's ledger (output.h): a release that
 * would bring the totals past it is refused (one release must fit: the
 * check config_check_budget_fits, run/config.c); empty: no cap. */
static dpbo_status config_keys_parse_budget(dpbo_settings *settings, const dpbo_settings_key *row,
                                            const char *text, void *options, dpbo_error *err) {
  dpbo_config *config = options;
  config->budget_epsilon = config->budget_delta = 0.0;
  if (!text[0]) return DPBO_OK;
  char tail;
  int ok = sscanf(text, "%lf %lf %c", &config->budget_epsilon, &config->budget_delta, &tail) == 2 &&
           isfinite(config->budget_epsilon) && config->budget_epsilon > 0 &&
           config->budget_delta > 0 && config->budget_delta < 1;
  return dpbo_settings_require(
      settings, row->section, row->key, ok,
      "must be 'EPSILON_MAX DELTA_MAX' with EPSILON_MAX > 0 and DELTA_MAX in (0, 1)", err);
}

const dpbo_settings_key dpbo_config_keys[] = {
    /* [run] */
    ROW("run", "iterations", "integer", "1 to 1000000", NULL, "evaluations", "",
        "T, the number of evaluations of the objective.",
        INTEGER(DPBO_SETTINGS_INT, iterations, 1, 1000000,
                "must be between 1 and 1000000 (the number of evaluations T)")),
    ROW("run", "seed", "integer", "0 to 2^63-1", "1", "", "",
        "Seed of everything reproducible: the data split, synthetic functions, seeded noise "
        "(the default of objective.split_seed, objective.seed and privacy.noise_seed).",
        INTEGER(DPBO_SETTINGS_UINT64, seed, 0, INT64_MAX, NULL)),
    ROW("run", "batch", "integer", "1 to 1048576", "1", "evaluations", "",
        "Evaluations in flight (GP-BUCB: the pending ones enter the GP as hallucinated "
        "observations). Values above 1 are refused with privacy.algorithm = 1 or 2.",
        INTEGER(DPBO_SETTINGS_INT, batch, 1, 1 << 20, NULL)),
    ROW("run", "retries", "integer", "0 to 100", "1", "attempts", "",
        "Further attempts after a failed evaluation; a step that fails every attempt is "
        "recorded as failed and excluded from the GP.",
        INTEGER(DPBO_SETTINGS_INT, retries, 0, 100, NULL)),

    /* [space] */
    ROW("space", "kind", "choice", NULL, "sobol", "", "",
        "The finite candidate set: a grid of LEVELS per dimension, the first space.points "
        "points of the unscrambled Sobol sequence, or the points of space.file.",
        ENUM(space_kind, dpbo_space_kind_names, NULL)),
    ROW("space", "points", "integer", ">= 1", NULL, "candidates", "space.kind = sobol",
        "N, the number of Sobol candidates.",
        INTEGER(DPBO_SETTINGS_INT64, points, 1, INT64_MAX,
                "must be at least 1 (the candidate space is empty)")),
    ROW("space", "file", "text", "a path", NULL, "", "space.kind = list",
        "The candidate list: one point per line, values in dimension order (a relative path is "
        "resolved against the current directory).",
        STRING(list_path)),
    DPBO_CONFIG_KEYS_DIMS,

    /* [gp] */
    ROW("gp", "kernel", "choice", NULL, "matern52", "", "",
        "The GP kernel, on unit-cube coordinates. Fix the prior before seeing the validation "
        "data (docs/design.md).",
        ENUM(kernel.kind, dpbo_kernel_kind_names, NULL)),
    ROW("gp", "lengthscale", "text", "one number > 0, or one per dimension", "0.2",
        "unit-cube coordinates", "", "The kernel's length-scale(s), blank or comma separated.",
        PARSED(DPBO_PATH_MAX, config_keys_parse_lengthscale)),
    ROW("gp", "mean", "number", "-1e100 to 1e100", "0", "units of v", "",
        "m0, the prior mean of f.", DOUBLE(prior.mean, -1e100, 1e100, 0, GP_RANGE, NULL)),
    ROW("gp", "signal_std", "number", "> 0, <= 1e100", "1", "units of v", "",
        "s, the prior standard deviation of f.",
        DOUBLE(prior.signal_std, 0, 1e100, OPEN_LO, "must be positive", GP_RANGE)),
    ROW("gp", "noise_std", "number", ">= 0, <= 1e100 and 1e100 x signal_std", "0.1", "units of v",
        "", "sigma, the standard deviation of the observation noise (0: noise-free, Algorithm 2).",
        DOUBLE(prior.noise_std, 0, 1e100, 0, "must be >= 0", GP_RANGE)),
    ROW_COMPUTED(
        "gp", "jitter", "number", ">= 0, <= 1e100", "0 if gp.noise_std > 0, else 1e-10",
        "units of v^2", "", "Added to the kernel's diagonal to keep a noise-free GP factorizable.",
        DOUBLE_FROM(prior.jitter, 0, 1e100, "must be >= 0", GP_RANGE, config_keys_jitter_default)),

    /* [objective]: kind first, then the keys of that kind */
    ROW("objective", "kind", "choice", NULL, NULL, "", "",
        "What is tuned: an RBF-SVM's validation accuracy (LIBSVM), a synthetic function, your "
        "own program (docs/own-model.md), or L2-regularized logistic regression (Algorithm 3).",
        ENUM(objective, dpbo_objective_kind_names, NULL)),
    ROW("objective", "data", "text", "a path", NULL, "", SVM_LOGREG,
        "The data file: CSV (gzip ok), LIBSVM sparse or IDX images; a relative path is resolved "
        "against the current directory.",
        STRING(data.path)),
    ROW("objective", "format", "choice", NULL, "auto", "", SVM_LOGREG,
        "The data file's format (auto: from its content; idx when objective.labels is set).",
        ENUM(data.format, dpbo_data_format_names, NULL)),
    ROW("objective", "labels", "text", "a path, or empty", "", "", SVM_LOGREG,
        "IDX only: the labels file (e.g. Fashion-MNIST's *-labels-idx1-ubyte.gz; pixels of "
        "the images file are scaled to [0, 1] as pixel/255).",
        STRING(data.labels)),
    /* (its default is DPBO_DATASET_MAX_FEATURES, objectives/dataset.h) */
    ROW("objective", "max_features", "integer", "1 to 2147483647", "100000", "features", SVM_LOGREG,
        "The largest LIBSVM feature index accepted (rows are held dense: one huge index would "
        "allocate gigabytes).",
        INTEGER(DPBO_SETTINGS_INT64, data.max_features, 1, INT32_MAX, NULL)),
    ROW("objective", "header", "choice", NULL, "auto", "", SVM_LOGREG,
        "CSV: whether the first row is a header (auto: a first row that is not numeric is one, "
        "and the log says so).",
        ENUM(data.header, dpbo_csv_header_names, NULL)),
    ROW("objective", "label_column", "text", "last, or a column number from 1", "last", "",
        SVM_LOGREG, "CSV: the label's column.", PARSED(32, config_keys_parse_label_column)),
    ROW("objective", "train_rows", "integer", ">= 1", NULL, "rows", SVM_LOGREG,
        "Training rows, drawn by a permutation of objective.split_seed.",
        REQUIRED(fit.train_rows, "is required (>= 1)")),
    ROW("objective", "validation_rows", "integer", ">= 1", NULL, "rows", SVM_LOGREG,
        "Validation rows (the sensitive set V), the rows after the training rows.",
        REQUIRED(fit.validation_rows, "is required (>= 1)")),
    /* (the rows after the validation rows in the same permutation, so train
     * and validation rows are the same with or without them) */
    ROW("objective", "test_rows", "integer", ">= 0", "0", "rows", SVM_LOGREG,
        "Held-out rows after the validation rows, for dpbo compare.",
        INTEGER(DPBO_SETTINGS_INT64, fit.test_rows, 0, INT64_MAX, NULL)),
    ROW_COMPUTED("objective", "split_seed", "integer", "0 to 2^63-1", "run.seed", "", SVM_LOGREG,
                 "Seed of the train/validation/test permutation.",
                 INTEGER_FROM(DPBO_SETTINGS_UINT64, fit.split_seed, 0, INT64_MAX,
                              config_keys_run_seed_default)),
    ROW("objective", "cache_mb", "number", "> 0", "100", "MiB", "objective.kind = svm",
        "LIBSVM's kernel cache (-m).",
        DOUBLE(fit.cache_mb, 0, HUGE_VAL, OPEN_LO, "must be positive", NULL)),
    ROW_COMPUTED("objective", "tolerance", "number", "> 0", "0.001 (svm), 1e-06 (logreg)", "",
                 SVM_LOGREG,
                 "The solver's stopping tolerance (LIBSVM -e; logreg: enters Algorithm 3's "
                 "sensitivity).",
                 DOUBLE_OPEN_FROM(fit.tolerance, 0, HUGE_VAL, OPEN_LO, "must be positive",
                                  config_keys_tolerance_default)),
    ROW("objective", "shrinking", "integer", "0 or 1", "1", "", "objective.kind = svm",
        "LIBSVM's shrinking heuristic (-h).",
        INTEGER(DPBO_SETTINGS_INT, fit.shrinking, 0, 1, NULL)),
    ROW("objective", "function", "choice", NULL, NULL, "", "objective.kind = synthetic",
        "The synthetic function (branin needs 2 dimensions, hartmann6 6; gp_prior is drawn "
        "from the GP prior of [gp]).",
        ENUM(synthetic, dpbo_synthetic_kind_names, NULL)),
    ROW("objective", "features", "integer", "1 to 16777216", "2048", "features",
        "objective.kind = synthetic", "Random Fourier features of a gp_prior function.",
        INTEGER(DPBO_SETTINGS_INT, synthetic_features, 1, 1 << 24, NULL)),
    ROW("objective", "noise_std", "number", ">= 0", "0", "units of v", "objective.kind = synthetic",
        "Gaussian noise added to each evaluation.",
        DOUBLE(synthetic_noise_std, 0, HUGE_VAL, 0, "must be >= 0", NULL)),
    ROW_COMPUTED("objective", "seed", "integer", "0 to 2^63-1", "run.seed", "",
                 "objective.kind = synthetic", "Seed of the gp_prior function and of the noise.",
                 INTEGER_FROM(DPBO_SETTINGS_UINT64, synthetic_seed, 0, INT64_MAX,
                              config_keys_run_seed_default)),
    ROW_COMPUTED("objective", "positive_label", "number", "a label of the data",
                 "none: the larger of the data's two labels", "", "objective.kind = logreg",
                 "The class against the rest (the stored default 'nan' means none).",
                 DOUBLE_FROM(fit.positive_label, -HUGE_VAL, HUGE_VAL, NULL, NULL,
                             config_keys_positive_label_default)),
    ROW("objective", "loss", "choice", NULL, "sigmoid", "", "objective.kind = logreg",
        "The loss whose validation value is tuned (Algorithm 3).",
        ENUM(fit.loss, dpbo_logreg_loss_names, NULL)),
    ROW("objective", "command", "text", "a program and its arguments (no shell)", NULL, "",
        "objective.kind = command",
        "Your program, run once per evaluation (once per rank with objective.mode = persistent); "
        "it prints the value last (docs/own-model.md).",
        STRING(command.command)),
    ROW("objective", "pass", "choice", NULL, "args", "", "objective.kind = command",
        "How hyper-parameters reach the program: NAME=VALUE arguments, or DPBO_NAME "
        "environment variables (NAME upper-cased).",
        ENUM(command.pass, config_pass_names, NULL)),
    ROW("objective", "mode", "choice", NULL, "per_evaluation", "", "objective.kind = command",
        "per_evaluation: one process per evaluation; persistent: one process per rank, started "
        "once, that reads one NAME=VALUE line per evaluation on stdin and prints the value on a "
        "line of stdout (docs/own-model.md, The persistent mode).",
        ENUM(command.mode, config_mode_names, NULL)),
    ROW("objective", "timeout_s", "number", ">= 0 (0: no limit)", "3600", "s",
        "objective.kind = command", "Time limit of one evaluation; its processes are killed.",
        DOUBLE(command.timeout_s, 0, HUGE_VAL, 0, "must be a number of seconds >= 0 (0: no limit)",
               NULL)),
    ROW_COMPUTED("objective", "value_range", "text", "LO HI, or empty",
                 "0 1 (svm), -g* 0 (logreg: -1 0), else empty", "units of v", "",
                 "The range of the objective's values: every released value is clamped to it "
                 "(post-processing), and a command's value outside it fails the evaluation. "
                 "Required with objective.kind = command and a privacy.algorithm.",
                 PARSED_FROM(256, config_keys_parse_value_range, config_keys_value_range_default)),

    /* [ucb] */
    ROW("ucb", "acquisition", "choice", NULL, "ucb", "", "",
        "The acquisition rule (ei only with privacy.algorithm = none or 3).",
        ENUM(acquisition, config_acquisition_names, NULL)),
    ROW("ucb", "memory_limit_mb", "text", "auto | off | a number > 0", "auto", "MiB per rank", "",
        "Above it the UCB state recomputes cross-covariances instead of storing T x N/P "
        "doubles (same results; auto: half of the node's memory shared by its ranks).",
        PARSED(64, config_keys_parse_memory_limit)),
    /* (deferred: read after [privacy] and its checks, whose accounting gives
     * its default; config_check_ucb_delta refuses another with a GP release) */
    ROW_COMPUTED("ucb", "delta", "number", "(0, 1)",
                 "delta_beta of the privacy accounting (0.05 without a GP release)", "", "",
                 "delta in beta_t = 2 log(N t^2 pi^2 / (3 delta)); with privacy.algorithm = 1 or "
                 "2 leave it unset (a different value is refused).",
                 DEFERRED_DOUBLE_FROM(delta, 0, 1, OPEN_LO | DPBO_SETTINGS_OPEN_HI,
                                      "must lie in (0, 1)", config_keys_ucb_delta_default)),

    /* [privacy] */
    ROW("privacy", "algorithm", "choice", NULL, "none", "", "",
        "The private release drawn at the end of dpbo run (README, Private releases): the "
        "paper's algorithms 1 to 3, a private-selection method over data-independent "
        "candidates, or GP-UCB on privatized evaluations (every evaluation through the "
        "Gaussian mechanism), or the GP-guided selection (privatized GP-UCB evaluations, then "
        "a stopping search whose candidates follow their posterior).",
        ENUM(algorithm, config_algorithm_names, config_algorithm_values)),
    ROW("privacy", "epsilon", "number", "> 0", "1", "", "",
        "Total epsilon over everything released (basic composition).",
        DOUBLE(privacy_epsilon, 0, HUGE_VAL, OPEN_LO,
               "must be positive (ε <= 0 gives no guarantee)", NULL)),
    /* (its range depends on the algorithm: config_check_privacy_delta) */
    ROW("privacy", "delta", "number",
        "(0, 1); [0, 1) for random_search, liu_talwar and guided on the proxy task with either",
        "0.05", "", "", "Total delta.", DOUBLE(privacy_delta, -HUGE_VAL, HUGE_VAL, 0, NULL, NULL)),
    /* (checked where the algorithm splits: config_check_privacy_split) */
    ROW("privacy", "split", "number", "(0, 1)", "0.5", "", "",
        "Share of epsilon and delta spent on lambda~ (Algorithms 1 and 2; algorithm 3 spends "
        "everything on the value); random_search, and guided with guided_base = random_search "
        "(of stage 2's epsilon): the selection's share of epsilon.",
        DOUBLE(privacy_split, -HUGE_VAL, HUGE_VAL, 0, NULL, NULL)),
    ROW("privacy", "bounds", "choice", NULL, "corrected", "", "",
        "The corrected sensitivity bounds, or the paper's literal formulas "
        "(docs/privacy-proofs.md).",
        ENUM(bounds, dpbo_bounds_names, NULL)),
    ROW("privacy", "k1", "number", "[0, 1]", "0.95", "", "",
        "k1(V, V') of the multi-task GP between neighbouring validation sets (Algorithms 1 "
        "and 2).",
        DOUBLE(k1, 0, 1, 0,
               "must lie in [0, 1] (a kernel value between neighbouring validation sets)", NULL)),
    ROW("privacy", "selection", "choice", NULL, "exponential", "", "",
        "The mechanism that releases lambda~.", ENUM(selection, dpbo_select_kind_names, NULL)),
    ROW("privacy", "noise", "choice", NULL, "os", "", "",
        "The randomness of the release: the operating system's (getrandom), or seeded "
        "(experiments only, labelled not for publication).",
        ENUM(noise, config_noise_names, NULL)),
    ROW_COMPUTED("privacy", "noise_seed", "integer", "0 to 2^63-1", "run.seed", "", "",
                 "Seed of privacy.noise = seeded.",
                 INTEGER_FROM(DPBO_SETTINGS_UINT64, noise_seed, 0, INT64_MAX,
                              config_keys_noise_seed_default)),
    ROW("privacy", "value_range", "text", "LO HI, or empty", "", "units of v", "",
        "The old name of objective.value_range (run files store it): taken as it when that is "
        "not written, refused when it says otherwise; use objective.value_range.",
        PARSED(256, config_keys_parse_old_value_range)),
    ROW("privacy", "budget", "text", "EPSILON_MAX DELTA_MAX, or empty", "", "", "",
        "Cap on the basic-composition totals of every release on the run's validation set, "
        "as the ledger (privacy.ledger) records them across run files, reruns, --overwrite, "
        "copies and renames (empty: none); fixed at run time.",
        PARSED(256, config_keys_parse_budget)),
    ROW_COMPUTED("privacy", "ledger", "text", "a path, or empty",
                 "<folder of the run file>/dpbo-ledger", "", "",
                 "The ledger file: one checksummed line per release, keyed by validation set; "
                 "locked, append-only (docs/design.md, The ledger). Run files in one folder share "
                 "the default; give one path to share it across folders.",
                 STRING_FROM(ledger_path, config_keys_ledger_default)),
    ROW("privacy", "dataset_id", "text", "one line, or empty", "", "", "",
        "The validation set's name in the ledger. Empty: svm and logreg hash the validation "
        "rows as read (and m), synthetic its settings, command its command line; set it to "
        "share one budget across different commands or data files on one validation set.",
        STRING(dataset_id)),
    ROW("privacy", "A", "number", ">= 0", "1", "", "",
        "Algorithm 2: the regret constant A (your assumption about f).",
        DOUBLE(alg2_A, 0, HUGE_VAL, 0, "must be >= 0", NULL)),
    ROW("privacy", "tau", "number", ">= 0", "1", "", "",
        "Algorithm 2: the regret constant tau (your assumption about f).",
        DOUBLE(alg2_tau, 0, HUGE_VAL, 0, "must be >= 0", NULL)),
    ROW("privacy", "ps_eta", "number", "[0, 10]", "1", "", "",
        "papernot_steinke: the shape eta of the truncated negative binomial number of runs (0 "
        "logarithmic, 1 geometric).",
        DOUBLE(ps_eta, 0, 10, 0, TNB_SHAPE, NULL)),
    /* The defaults: bench/guided_defaults.c on public synthetic
     * landscapes (analysis/data/guided-defaults.csv), never a benchmark task. */
    ROW("privacy", "guided_proxy_rows", "integer", ">= 0, < objective.train_rows", "0", "rows", "",
        "guided (and dpbo compare's guided method), svm or logreg objective: 0 runs stage 1 on "
        "privatized evaluations of the validation set; K >= 1 runs it on a proxy task that never "
        "reads the validation set, not privatized and spending nothing: a model trained on the "
        "first train_rows - K training rows, scored on the last K (its values are not "
        "released). Stage 2 then has all of epsilon and delta and run.iterations candidates, "
        "and guided_epsilon_share and guided_delta_share are not used.",
        INTEGER(DPBO_SETTINGS_INT64, guided_proxy_rows, 0, INT64_MAX, "must be >= 0")),
    ROW_COMPUTED(
        "privacy", "guided_evaluations", "integer",
        "1 to run.iterations - 2 (guided_proxy_rows >= 1: >= 1)",
        "run.iterations / 10, rounded, within [1, run.iterations - 2]; with guided_proxy_rows "
        ">= 1, run.iterations",
        "evaluations", "",
        "guided (and dpbo compare's guided method): T1, stage 1's GP-UCB evaluations. "
        "Privatized, they are part of run.iterations: stage 2's stopping search makes E[K] = "
        "run.iterations - T1 runs (at least 2), its random search exactly run.iterations - T1. "
        "On the proxy task they read no validation record and come on top: stage 2 makes "
        "run.iterations.",
        INTEGER_FROM(DPBO_SETTINGS_INT, guided_evaluations, 1, 100000,
                     config_keys_guided_evaluations_default)),
    ROW("privacy", "guided_epsilon_share", "number", "(0, 1)", "0.2", "", "",
        "guided (and dpbo compare's guided method): the share of privacy.epsilon spent on stage "
        "1's evaluations; stage 2 gets the "
        "rest (basic composition).",
        DOUBLE(guided_epsilon_share, 0, 1, OPEN_LO | DPBO_SETTINGS_OPEN_HI,
               "must lie in (0, 1) (stage 1's share of epsilon)", NULL)),
    ROW("privacy", "guided_delta_share", "number", "(0, 1)", "0.5", "", "",
        "guided (and dpbo compare's guided method): the share of privacy.delta spent on stage 1's "
        "evaluations; stage 2 gets the "
        "rest (basic composition), which guided_base = random_search (pure) leaves unspent.",
        DOUBLE(guided_delta_share, 0, 1, OPEN_LO | DPBO_SETTINGS_OPEN_HI,
               "must lie in (0, 1) (stage 1's share of delta)", NULL)),
    ROW_COMPUTED(
        "privacy", "guided_weight", "number", "(0, 1]", "0.3; with guided_proxy_rows >= 1, 0.1", "",
        "",
        "guided (and dpbo compare's guided method): w, the uniform law's weight in stage 2's "
        "candidate law pi = w uniform + (1 - "
        "w) softmax(score / tau): every candidate keeps probability >= w / |Lambda| (1: the "
        "uniform law).",
        DOUBLE_OPEN_FROM(
            guided_weight, 0, 1, OPEN_LO,
            "must lie in (0, 1] (the uniform law's weight, the floor of every candidate)",
            config_keys_guided_weight_default)),
    ROW_COMPUTED("privacy", "guided_temperature", "number", "> 0, <= 1e100",
                 "0.005; with guided_proxy_rows >= 1, 0.01", "units of v", "",
                 "guided (and dpbo compare's guided method): tau, the softmax temperature over "
                 "stage 1's scores (guided_score) over Lambda (smaller: more weight on the "
                 "best-looking candidates).",
                 DOUBLE_OPEN_FROM(guided_temperature, 0, 1e100, OPEN_LO,
                                  "must be positive and at most 1e100",
                                  config_keys_guided_temperature_default)),
    ROW_COMPUTED(
        "privacy", "guided_score", "choice", NULL, "ucb; with guided_proxy_rows >= 1, mean", "", "",
        "guided (and dpbo compare's guided method): what the law's softmax scores: "
        "stage 1's posterior UCB mu + sqrt(beta) sigma (as much weight on candidates it "
        "knows little of as on good ones), or its posterior mean mu (the ones it "
        "believes best).",
        ENUM_FROM(guided_score, dpbo_guided_score_names, NULL, config_keys_guided_score_default)),
    ROW("privacy", "guided_base", "choice", NULL, "random_search", "", "",
        "guided (and dpbo compare's guided method): stage 2, a stopping search (its law of K "
        "and its accounting, privacy.ps_eta for papernot_steinke) or private random search "
        "(random_search: exactly run.iterations - T1 candidates, pure epsilon, privacy.split "
        "and privacy.selection; the rest of delta is not spent).",
        ENUM(guided_base, config_guided_base_names, config_guided_base_values)),
    /* (deferred: read by dpbo_private_evals_settings_read, between the
     * checks no row can say, once [privacy] is checked) */
    ROW_COMPUTED("privacy", "evaluation_sensitivity", "number", "> 0, >= the proven one",
                 "1/m (svm), g*/m (logreg); required otherwise", "units of the value",
                 "privacy.algorithm = private_evaluations",
                 "Delta of one evaluation: how far one validation record moves the objective's "
                 "value.",
                 DEFERRED_DOUBLE_FROM(evals.sensitivity, 0, HUGE_VAL, OPEN_LO,
                                      "must be a positive number (units of the objective's value)",
                                      config_keys_evaluation_sensitivity_default)),
    ROW_COMPUTED("privacy", "max_evaluations", "integer", ">= run.iterations", "run.iterations",
                 "evaluations", "privacy.algorithm = private_evaluations",
                 "K, the Gaussian mechanisms sigma is calibrated for; every evaluation dispatched "
                 "is charged (retries, lost ones), and the run stops when K are charged.",
                 DEFERRED_INTEGER_FROM(DPBO_SETTINGS_INT64, evals.max_evaluations, 1, INT64_MAX / 2,
                                       config_keys_max_evaluations_default)),
    ROW("privacy", "final_choice", "choice", NULL, "posterior_mean", "",
        "privacy.algorithm = private_evaluations",
        "Post-processing: lambda~ = argmax of mu_T (v~ = mu_T there) or the best noisy "
        "observation (v~ = its noisy value).",
        DEFERRED_ENUM(evals.final_choice, dpbo_final_choice_names)),
    ROW("privacy", "failures_public", "choice", NULL, "no", "", "",
        "You vouch that failed evaluations of a command objective do not depend on the "
        "validation data (needed to release a run with failures).",
        ENUM(failures_public, config_no_yes, NULL)),
    ROW("privacy", "prior_source", "choice", NULL, "public", "", "",
        "Where the GP prior came from; validation is refused with a privacy algorithm (a prior "
        "fitted on the sensitive data voids the guarantee).",
        ENUM(prior_validation, config_prior_source_names, NULL)),

    /* [output] */
    DPBO_CONFIG_KEYS_OUTPUT_DIR_NAME(dpbo_config),
    ROW("output", "posterior", "choice", NULL, "auto", "", "",
        "Write mu_T and sigma_T over all of Lambda (auto: N <= 1e6).",
        ENUM(posterior, config_posterior_names, NULL)),

    KEY(NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL)};

/* The default as shown: required, empty, the text, or "computed: TEXT". */
static const char *config_keys_default(const dpbo_settings_key *row, char *buf, size_t size) {
  if (!row->fallback) return "(required)";
  if (!row->fallback[0]) return "(empty)";
  if (!row->computed) return row->fallback;
  snprintf(buf, size, "computed: %s", row->fallback);
  return buf;
}

/* Markdown table cells: '|' is escaped. */
static void config_keys_cell(FILE *out, const char *text) {
  fputs(" ", out);
  for (const char *c = text; *c; c++) {
    if (*c == '|') fputc('\\', out);
    fputc(*c, out);
  }
  fputs(" |", out);
}

/* The rows of `table` (only those of section `only`, if given), one section
 * after another; headings name `command` when given. */
static void config_keys_print_table(FILE *out, int markdown, const char *command,
                                    const dpbo_settings_key *table, const char *only) {
  const char *section = "";
  char buf[256], choices[512];
  for (const dpbo_settings_key *row = table; row->key; row++) {
    if (only && strcmp(row->section, only) != 0) continue;
    const char *values = dpbo_settings_key_values(row, choices, sizeof choices);
    if (strcmp(row->section, section) != 0) {
      section = row->section;
      if (markdown)
        fprintf(out,
                "\n## %s%s[%s]\n\n| key | type | values | default | unit | read when | meaning |\n"
                "| --- | --- | --- | --- | --- | --- | --- |\n",
                command ? command : "", command ? " " : "", section);
      else
        fprintf(out, "\n%s%s[%s]\n", command ? command : "", command ? " " : "", section);
    }
    if (markdown) {
      fprintf(out, "| `%s` |", row->key);
      config_keys_cell(out, row->type);
      config_keys_cell(out, values);
      config_keys_cell(out, config_keys_default(row, buf, sizeof buf));
      config_keys_cell(out, row->unit);
      config_keys_cell(out, row->applies);
      config_keys_cell(out, row->doc);
      fputs("\n", out);
    } else {
      fprintf(out, "%s = %s\n    %s: %s", row->key, config_keys_default(row, buf, sizeof buf),
              row->type, values);
      if (row->unit[0]) fprintf(out, "; unit: %s", row->unit);
      if (row->applies[0]) fprintf(out, "; read when %s", row->applies);
      fprintf(out, "\n    %s\n", row->doc);
    }
  }
}

void dpbo_config_keys_print(FILE *out, int markdown) {
  if (markdown)
    fputs(
        "# Config keys\n\n"
        "<!-- Generated by `dpbo config --list --markdown`; do not edit. After changing a key in\n"
        "     src/run/config_keys.c, regenerate: build/dpbo config --list --markdown > "
        "docs/config.md -->\n\n"
        "Every key of a `dpbo run` config (also read by `dpbo compare` and `dpbo audit\n"
        "--pipeline`; `dpbo release` and `dpbo utility` read the run file's). A key not listed\n"
        "is an error naming its file and line. \"Read when\" names the setting under which a\n"
        "key is read (blank: always); a key written where it is not read is refused. The run\n"
        "file stores every key read with its effective value: `config.<section>.<key>` as\n"
        "written, `default.<section>.<key>` for the defaults taken. A line starting with `;`\n"
        "or `#` is a comment, and so is the rest of a value from a `;` or `#` that follows a\n"
        "space or tab (`iterations = 30   # T`); a `#` inside a word (`a#b`) is kept.\n",
        out);
  else
    fputs("Every key of a dpbo run config: KEY = DEFAULT, its type and accepted values, unit,\n"
          "when it is read (blank: always) and what it does. The run file stores the value of\n"
          "every key read (config.* as written, default.* for the defaults).\n",
          out);
  /* Each section once, in the order sections first come: an added
   * section's rows of a run section (dpbo compare's [objective] keys) end
   * that section's table. */
  const dpbo_settings_key *schema = dpbo_config_schema();
  for (const dpbo_settings_key *row = schema; row->key; row++) {
    const dpbo_settings_key *first = schema;
    while (strcmp(first->section, row->section) != 0)
      first++;
    if (first == row) config_keys_print_table(out, markdown, NULL, schema, row->section);
  }
}

void dpbo_config_keys_print_command(FILE *out, int markdown, const char *command, const char *intro,
                                    const dpbo_settings_key *table) {
  fprintf(out, markdown ? "\n# %s\n\n%s\n" : "\n%s\n%s\n", command, intro);
  config_keys_print_table(out, markdown, command, table, NULL);
}
