#define _POSIX_C_SOURCE 200809L /* fmemopen, for dpbo__config_load_buffer */

#include "run/config.h"
#include "run/config_private.h"
#include "base/input.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---------------------------------------------------------------------------
 * Reading: inih calls our reader once per line, so the reader counts lines and
 * the handler records each entry with its line number. */

typedef struct config_reader {
  FILE *file;
  int line;
  int too_long; /* first line that did not fit inih's buffer */
  int nul;      /* the line holding a NUL byte (reading stops there) */
} config_reader;

/* fgets for inih, one byte at a time so that a NUL byte is seen: fgets
 * would hand inih the text before it and silently drop the rest. */
static char *config_read_line(char *str, int num, void *stream) {
  config_reader *reader = stream;
  int len = 0, c = EOF;
  while (len < num - 1 && (c = getc(reader->file)) != EOF) {
    if (c == '\0') {
      reader->nul = reader->line + 1;
      return NULL; /* ends inih's reading; reported afterwards */
    }
    str[len++] = (char)c;
    if (c == '\n') break;
  }
  if (len == 0) return NULL;
  str[len] = '\0';
  reader->line++;
  if (len == num - 1 && str[len - 1] != '\n' && (c = getc(reader->file)) != EOF) {
    if (!reader->too_long) reader->too_long = reader->line;
    /* skip the rest of the line; the error is reported afterwards */
    while (c != EOF && c != '\n')
      c = getc(reader->file);
  }
  return str;
}

typedef struct config_parse {
  dpbo_config *config;
  config_reader *reader;
  dpbo_status status;
  dpbo_error *err;
} config_parse;

static dpbo_status config_add_entry(dpbo_config *config, const char *section, const char *key,
                                    const char *value, int line, dpbo_error *err) {
  /* Messages name the file and line, or the --set option (line 0). */
  char where[DPBO_PATH_MAX + 64];
  if (line > 0)
    snprintf(where, sizeof where, "%s:%d", config->path, line);
  else
    snprintf(where, sizeof where, "--set %.40s.%.60s", section, key);
  if (strlen(section) >= sizeof config->entry[0].section ||
      strlen(key) >= sizeof config->entry[0].key)
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG,
                          "%s: section or key too long (at most %zu and %zu characters)", where,
                          sizeof config->entry[0].section - 1, sizeof config->entry[0].key - 1);
  if (strlen(value) >= sizeof config->entry[0].value)
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: value too long (%zu characters, at most %zu)",
                          where, strlen(value), sizeof config->entry[0].value - 1);
  /* A --set override (line 0) replaces the file's value; a key written twice
   * in the file is almost always a mistake. */
  for (int i = 0; i < config->entry_count; i++) {
    dpbo_config_entry *e = &config->entry[i];
    if (strcmp(e->section, section) == 0 && strcmp(e->key, key) == 0) {
      if (line > 0)
        return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: key %s.%s repeats line %d", where, section,
                              key, e->line);
      snprintf(e->value, sizeof e->value, "%s", value);
      e->line = line;
      return DPBO_OK;
    }
  }
  if (config->entry_count >= DPBO_CONFIG_MAX_ENTRIES)
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: more than %d keys", where,
                          DPBO_CONFIG_MAX_ENTRIES);
  dpbo_config_entry *e = &config->entry[config->entry_count++];
  snprintf(e->section, sizeof e->section, "%s", section);
  snprintf(e->key, sizeof e->key, "%s", key);
  snprintf(e->value, sizeof e->value, "%s", value);
  e->line = line;
  e->used = 0;
  return DPBO_OK;
}

static int config_handler(void *user, const char *section, const char *name, const char *value) {
  config_parse *parse = user;
  if (parse->status != DPBO_OK) return 0;
  parse->status =
      config_add_entry(parse->config, section, name, value, parse->reader->line, parse->err);
  return parse->status == DPBO_OK;
}

/* ---------------------------------------------------------------------------
 * Typed lookups. Each marks its entry used; `where` renders "file:line" or
 * "--set" for messages. */

static void entry_where(const dpbo_config *config, const dpbo_config_entry *e, char *buf,
                        size_t size) {
  if (e->line > 0)
    snprintf(buf, size, "%s:%d", config->path, e->line);
  else
    snprintf(buf, size, "--set %s.%s", e->section, e->key);
}

static dpbo_config_entry *config_find(dpbo_config *config, const char *section, const char *key) {
  for (int i = 0; i < config->entry_count; i++) {
    dpbo_config_entry *e = &config->entry[i];
    if (strcmp(e->section, section) == 0 && strcmp(e->key, key) == 0) {
      e->used = 1;
      return e;
    }
  }
  return NULL;
}

static dpbo_status config_string(dpbo_config *config, const char *section, const char *key,
                                 const char *fallback, char *out, size_t size, dpbo_error *err) {
  dpbo_config_entry *e = config_find(config, section, key);
  const char *value = e ? e->value : fallback;
  if (!value)
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: missing key %s.%s", config->path, section,
                          key);
  if (strlen(value) >= size) {
    char where[DPBO_PATH_MAX + 32];
    entry_where(config, e, where, sizeof where);
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: value of %s.%s is too long", where, section,
                          key);
  }
  snprintf(out, size, "%s", value);
  return DPBO_OK;
}

static dpbo_status config_double(dpbo_config *config, const char *section, const char *key,
                                 double fallback, int required, double *out, dpbo_error *err) {
  dpbo_config_entry *e = config_find(config, section, key);
  if (!e) {
    if (required)
      return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: missing key %s.%s", config->path, section,
                            key);
    *out = fallback;
    return DPBO_OK;
  }
  char *end;
  errno = 0;
  double v = strtod(e->value, &end);
  while (*end == ' ' || *end == '\t')
    end++;
  if (end == e->value || *end != '\0' || errno == ERANGE || !isfinite(v)) {
    char where[DPBO_PATH_MAX + 32];
    entry_where(config, e, where, sizeof where);
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: %s.%s = '%s' is not a finite number", where,
                          section, key, e->value);
  }
  *out = v;
  return DPBO_OK;
}

static dpbo_status config_int64(dpbo_config *config, const char *section, const char *key,
                                int64_t fallback, int64_t min, int64_t max, int64_t *out,
                                dpbo_error *err) {
  dpbo_config_entry *e = config_find(config, section, key);
  if (!e) {
    *out = fallback;
    return DPBO_OK;
  }
  char where[DPBO_PATH_MAX + 32];
  entry_where(config, e, where, sizeof where);
  char *end;
  errno = 0;
  long long v = strtoll(e->value, &end, 10);
  /* Allow integral values written like 1e6. */
  if (*end == 'e' || *end == 'E' || *end == '.') {
    double dv = strtod(e->value, &end);
    if (dv == floor(dv) && fabs(dv) < 9.0e18)
      v = (long long)dv;
    else
      end = (char *)e->value;
  }
  while (*end == ' ' || *end == '\t')
    end++;
  if (end == e->value || *end != '\0' || errno == ERANGE)
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: %s.%s = '%s' is not an integer", where,
                          section, key, e->value);
  if (v < min || v > max)
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: %s.%s = %lld is outside [%lld, %lld]", where,
                          section, key, v, (long long)min, (long long)max);
  *out = v;
  return DPBO_OK;
}

static dpbo_status config_choice(dpbo_config *config, const char *section, const char *key,
                                 const char *fallback, const char *const *choices, int *out,
                                 dpbo_error *err) {
  dpbo_config_entry *e = config_find(config, section, key);
  const char *value = e ? e->value : fallback;
  if (!value)
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: missing key %s.%s", config->path, section,
                          key);
  char list[512] = "";
  for (int i = 0; choices[i]; i++) {
    if (strcmp(value, choices[i]) == 0) {
      *out = i;
      return DPBO_OK;
    }
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", choices[i]);
  }
  char where[DPBO_PATH_MAX + 32];
  entry_where(config, e, where, sizeof where);
  return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: %s.%s = '%s' is not one of: %s", where, section,
                        key, value, list);
}

/* Fails on a range violation with the key's location. */
static dpbo_status config_require(dpbo_config *config, const char *section, const char *key, int ok,
                                  const char *what, dpbo_error *err) {
  if (ok) return DPBO_OK;
  dpbo_config_entry *e = config_find(config, section, key);
  char where[DPBO_PATH_MAX + 32];
  if (e)
    entry_where(config, e, where, sizeof where);
  else
    snprintf(where, sizeof where, "%s", config->path);
  return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: %s.%s %s", where, section, key, what);
}

/* ---------------------------------------------------------------------------
 * Sections. */

/* [output] dir and name: the name defaults to the config file's base name
 * without its extension and must be a file name. */
/* Room for the longest suffix dpbo adds to <dir>/<name>: ".release-N.h5"
 * with N up to 10 digits, ".release.json", ".partial.h5". */
#define CONFIG_OUTPUT_SUFFIX_MAX 24

static dpbo_status config_output(dpbo_config *config, char *dir, size_t dir_size, char *name,
                                 size_t name_size, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char fallback[256];
  const char *base = strrchr(config->path, '/');
  DPBO_TRY(config_string(config, "output", "dir", "results", dir, dir_size, err));
  snprintf(fallback, sizeof fallback, "%s", base ? base + 1 : config->path);
  char *dot = strrchr(fallback, '.');
  if (dot && dot != fallback) *dot = '\0';
  DPBO_TRY(config_string(config, "output", "name", fallback, name, name_size, err));
  DPBO_TRY(config_require(config, "output", "name", name[0] && !strchr(name, '/'),
                          "must be a non-empty file name without '/'", err));
  {
    /* Refused now rather than when the first file is written (config.h): the
     * longest name is <dir>/<name> plus a suffix such as ".release-12.h5". */
    const size_t longest = strlen(dir) + 1 + strlen(name) + CONFIG_OUTPUT_SUFFIX_MAX;
    if (longest > DPBO_OUTPUT_PATH_MAX) {
      char where[DPBO_PATH_MAX + 32];
      dpbo_config_entry *e = config_find(config, "output", "dir");
      if (e)
        entry_where(config, e, where, sizeof where);
      else
        snprintf(where, sizeof where, "%s", config->path);
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

static const char *const known_sections[] = {"run",    "space",   "gp",      "ucb", "objective",
                                             "output", "privacy", "compare", NULL};

/* The end of a blank-separated field. */
static int field_ends(char c) { return c == '\0' || isspace((unsigned char)c); }

static dpbo_status config_parse_dim(dpbo_config *config, dpbo_config_entry *e, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char where[DPBO_PATH_MAX + 32];
  entry_where(config, e, where, sizeof where);
  if (config->dims >= DPBO_MAX_DIM)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: more than %d dimensions", where, DPBO_MAX_DIM);
  dpbo_dim *dim = &config->dim[config->dims];
  memset(dim, 0, sizeof *dim);
  const char *name = e->key + 4;
  if (!*name || strlen(name) >= sizeof dim->name)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: dimension name in '%s' is empty or too long", where, e->key);
  snprintf(dim->name, sizeof dim->name, "%s", name);
  char scale[32];
  double lo, hi;
  long long levels = 1;
  int after_lo = 0, after_hi = 0, consumed = 0;
  int fields =
      sscanf(e->value, "%31s %lf%n %lf%n %n", scale, &lo, &after_lo, &hi, &after_hi, &consumed);
  /* Each number must end at a blank or the end: %lf alone would read
   * "0 15-1" as HI = 15 followed by LEVELS = -1. */
  if (fields < 3 || !field_ends(e->value[after_lo]) || !field_ends(e->value[after_hi]))
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: dimension %s = '%s': expected 'linear|log LO HI [LEVELS]'",
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
  if (strcmp(scale, "linear") == 0)
    dim->scale = DPBO_SCALE_LINEAR;
  else if (strcmp(scale, "log") == 0)
    dim->scale = DPBO_SCALE_LOG;
  else
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: dimension %s: scale '%s' is not linear or log", where, name,
               scale);
  dim->lo = lo;
  dim->hi = hi;
  dim->levels = levels;
  DPBO_TRY(dpbo_dim_validate(dim, config->space_kind, err));
  config->dims++;
done:
  if (status != DPBO_OK && strncmp(err->message, where, strlen(where)) != 0)
    dpbo_error_prefix(err, "%s", where);
  return status;
}

/* Every entry's section must be in `known` (NULL-terminated); the message
 * lists them. */
static dpbo_status config_check_sections(const dpbo_config *config, const char *const *known,
                                         dpbo_error *err) {
  for (int i = 0; i < config->entry_count; i++) {
    int found = 0;
    for (int s = 0; known[s]; s++)
      found |= strcmp(config->entry[i].section, known[s]) == 0;
    if (found) continue;
    char where[DPBO_PATH_MAX + 32], list[256] = "";
    for (int s = 0; known[s]; s++) {
      size_t len = strlen(list);
      snprintf(list + len, sizeof list - len, "%s%s", s ? ", " : "", known[s]);
    }
    entry_where(config, &config->entry[i], where, sizeof where);
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: unknown section [%s] (known: %s)", where,
                          config->entry[i].section, list);
  }
  return DPBO_OK;
}

/* The [space] lines dim.NAME = ..., in order, into config->dim (space_kind
 * set first: it decides whether LEVELS apply). */
static dpbo_status config_parse_dims(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  for (int i = 0; i < config->entry_count; i++) {
    dpbo_config_entry *e = &config->entry[i];
    if (strcmp(e->section, "space") == 0 && strncmp(e->key, "dim.", 4) == 0) {
      e->used = 1;
      DPBO_TRY(config_parse_dim(config, e, err));
    }
  }
  if (config->dims == 0)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: [space] has no dimensions (add lines like 'dim.C = log 1e-2 1e4')",
               config->path);
done:
  return status;
}

/* Everything written must have been used. */
static dpbo_status config_check_used(dpbo_config *config, dpbo_error *err) {
  for (int i = 0; i < config->entry_count; i++) {
    dpbo_config_entry *e = &config->entry[i];
    if (e->used) continue;
    char where[DPBO_PATH_MAX + 32];
    entry_where(config, e, where, sizeof where);
    if (strcmp(e->section, "objective") == 0)
      return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG,
                            "%s: unknown key '%s' in [objective] for kind = %s", where, e->key,
                            dpbo_objective_kind_name(config->objective));
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: unknown key '%s' in [%s]", where, e->key,
                          e->section);
  }
  return DPBO_OK;
}

/* [privacy]: the algorithm, the total budget and every refusal of issue #3
 * (ε ≤ 0, δ ∉ (0,1), k1 ∉ [0,1], σ = 0 with Algorithm 1, a prior fitted on
 * the validation data). Needs [gp] and [objective] read first. */
/* A range "LO HI" (LO < HI, both finite): *given = 0 when the value (or
 * the fallback) is empty, else 1 with the bounds. */
static dpbo_status config_range(dpbo_config *config, const char *section, const char *key,
                                const char *fallback, int *given, double *lo, double *hi,
                                dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char text[256];
  DPBO_TRY(config_string(config, section, key, fallback, text, sizeof text, err));
  *given = 0;
  if (text[0]) {
    char tail;
    int ok = sscanf(text, "%lf %lf %c", lo, hi, &tail) == 2 && isfinite(*lo) && isfinite(*hi) &&
             *lo < *hi;
    DPBO_TRY(config_require(config, section, key, ok, "must be 'LO HI' with LO < HI", err));
    *given = 1;
  }
done:
  return status;
}

static dpbo_status config_privacy(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int choice;
  int64_t i64;
  static const char *const algorithms[] = {"none", "1", "2", "3", NULL};
  DPBO_TRY(config_choice(config, "privacy", "algorithm", "none", algorithms, &choice, err));
  config->algorithm = (dpbo_algorithm)choice;
  DPBO_TRY(config_double(config, "privacy", "epsilon", 1.0, 0, &config->privacy_epsilon, err));
  DPBO_TRY(config_require(config, "privacy", "epsilon", config->privacy_epsilon > 0,
                          "must be positive (ε <= 0 gives no guarantee)", err));
  DPBO_TRY(config_double(config, "privacy", "delta", 0.05, 0, &config->privacy_delta, err));
  DPBO_TRY(config_require(config, "privacy", "delta",
                          config->privacy_delta > 0 && config->privacy_delta < 1,
                          "must lie in (0, 1)", err));
  /* Algorithm 3 releases only the value, so the whole budget goes there. */
  DPBO_TRY(config_double(config, "privacy", "split", 0.5, 0, &config->privacy_split, err));
  if (config->algorithm == DPBO_ALGORITHM_3)
    config->privacy_split = 0.0;
  else
    DPBO_TRY(config_require(
        config, "privacy", "split", config->privacy_split > 0 && config->privacy_split < 1,
        "(the share of ε and δ spent on the hyper-parameter) must lie in (0, 1)", err));
  static const char *const bounds[] = {"corrected", "paper", NULL};
  DPBO_TRY(config_choice(config, "privacy", "bounds", "corrected", bounds, &choice, err));
  config->bounds = (dpbo_bounds)choice;
  DPBO_TRY(config_double(config, "privacy", "k1", 0.95, 0, &config->k1, err));
  DPBO_TRY(config_require(
      config, "privacy", "k1", config->k1 >= 0 && config->k1 <= 1,
      "must lie in [0, 1] (a kernel value between neighbouring validation sets)", err));
  static const char *const selections[] = {"exponential", "permute_and_flip", NULL};
  DPBO_TRY(config_choice(config, "privacy", "selection", "exponential", selections, &choice, err));
  config->selection = (dpbo_select_kind)choice;
  static const char *const sources[] = {"os", "seeded", NULL};
  DPBO_TRY(config_choice(config, "privacy", "noise", "os", sources, &choice, err));
  config->noise = (dpbo_noise_kind)choice;
  DPBO_TRY(config_int64(config, "privacy", "noise_seed", (int64_t)config->seed, 0, INT64_MAX, &i64,
                        err));
  config->noise_seed = (uint64_t)i64;
  {
    /* Released accuracies are clamped to their valid range (post-processing). */
    const char *fallback = config->objective == DPBO_OBJECTIVE_SVM      ? "0 1"
                           : config->objective == DPBO_OBJECTIVE_LOGREG ? "-1 0"
                                                                        : "";
    DPBO_TRY(config_range(config, "privacy", "value_range", fallback, &config->clamp_value,
                          &config->value_lo, &config->value_hi, err));
  }
  {
    /* The cap of the run's ledger (output.h): a release that would bring the
     * totals past it is refused. One release must fit. */
    char text[256];
    DPBO_TRY(config_string(config, "privacy", "budget", "", text, sizeof text, err));
    config->budget_epsilon = config->budget_delta = 0.0;
    if (text[0]) {
      char tail;
      int ok =
          sscanf(text, "%lf %lf %c", &config->budget_epsilon, &config->budget_delta, &tail) == 2 &&
          isfinite(config->budget_epsilon) && config->budget_epsilon > 0 &&
          config->budget_delta > 0 && config->budget_delta < 1;
      DPBO_TRY(config_require(
          config, "privacy", "budget", ok,
          "must be 'EPSILON_MAX DELTA_MAX' with EPSILON_MAX > 0 and DELTA_MAX in (0, 1)", err));
      DPBO_TRY(config_require(config, "privacy", "budget",
                              config->budget_epsilon >= config->privacy_epsilon &&
                                  config->budget_delta >= config->privacy_delta,
                              "is smaller than one release (privacy.epsilon, privacy.delta)", err));
    }
  }
  DPBO_TRY(config_double(config, "privacy", "A", 1.0, 0, &config->alg2_A, err));
  DPBO_TRY(config_require(config, "privacy", "A", config->alg2_A >= 0, "must be >= 0", err));
  DPBO_TRY(config_double(config, "privacy", "tau", 1.0, 0, &config->alg2_tau, err));
  DPBO_TRY(config_require(config, "privacy", "tau", config->alg2_tau >= 0, "must be >= 0", err));
  static const char *const prior_sources[] = {"public", "validation", NULL};
  static const char *const yes_no[] = {"no", "yes", NULL};
  DPBO_TRY(config_choice(config, "privacy", "failures_public", "no", yes_no, &choice, err));
  config->failures_public = choice == 1;
  DPBO_TRY(config_choice(config, "privacy", "prior_source", "public", prior_sources, &choice, err));
  if (config->algorithm != DPBO_ALGORITHM_NONE && choice == 1)
    DPBO_TRY(config_require(config, "privacy", "prior_source", 0,
                            "= validation: a GP prior (m0, s, ℓ, σ, k1) fitted on the sensitive "
                            "validation data voids the guarantee; fix it from public or proxy data",
                            err));

  /* Each algorithm's assumptions. */
  if (config->algorithm == DPBO_ALGORITHM_1 && !(config->prior.noise_std > 0))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: privacy.algorithm = 1 needs observation noise (gp.noise_std > 0); "
               "use algorithm = 2 for noise-free observations",
               config->path);
  if (config->algorithm == DPBO_ALGORITHM_2 && config->prior.noise_std != 0)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: privacy.algorithm = 2 is for noise-free observations: set gp.noise_std = 0",
               config->path);
  /* DESIGN.md section 4: λ̃'s guarantee survives batching (it rests on the
   * confidence bound), Algorithm 1's ṽ bound does not (it rests on
   * sequential GP-UCB's regret). */
  if (config->algorithm == DPBO_ALGORITHM_1 && config->batch > 1)
    DPBO_TRY(config_require(config, "run", "batch", 0,
                            "> 1 with privacy.algorithm = 1: the released value's sensitivity "
                            "(Theorem 3) holds only for sequential GP-UCB; use batch = 1, or "
                            "algorithm = 3 whose bound holds for any acquisition",
                            err));
  /* Algorithm 2's pruning needs true confidence bounds; hallucinated
   * observations shrink σ without data and could prune the maximum. */
  if (config->algorithm == DPBO_ALGORITHM_2 && config->batch > 1)
    DPBO_TRY(
        config_require(config, "run", "batch", 0,
                       "> 1 with privacy.algorithm = 2: its branch-and-bound pruning needs the "
                       "true confidence bounds, which a batch's hallucinated observations "
                       "tighten without data; use batch = 1",
                       err));
  if ((config->algorithm == DPBO_ALGORITHM_1 || config->algorithm == DPBO_ALGORITHM_2) &&
      config->acquisition != DPBO_ACQ_UCB)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: privacy.algorithm = %d rests on the UCB rule; only algorithm 3 allows "
               "ucb.acquisition = ei",
               config->path, (int)config->algorithm);
done:
  return status;
}

/* [compare] (dpbo compare, issue #6): R repetitions, the grid of total ε
 * (a list of positive numbers, increasing) and the Papernot-Steinke shape η.
 * Read by every command so that one file serves `dpbo run` and `dpbo
 * compare`; only dpbo compare uses the values. */
static dpbo_status config_compare(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int64_t i64;
  char text[DPBO_PATH_MAX];
  DPBO_TRY(config_int64(config, "compare", "repetitions", 20, 1, 100000, &i64, err));
  config->compare_repetitions = (int)i64;
  DPBO_TRY(config_string(config, "compare", "epsilons", "0.1 0.3 1 3 10", text, sizeof text, err));
  {
    int n = 0, ok = 1;
    char *cursor = text;
    for (;;) {
      while (*cursor == ' ' || *cursor == ',' || *cursor == '\t')
        cursor++;
      if (!*cursor) break;
      char *end;
      double v = strtod(cursor, &end);
      if (end == cursor || !(v > 0.0 && isfinite(v)) || n >= DPBO_COMPARE_MAX_EPSILONS ||
          (n > 0 && v <= config->compare_epsilon[n - 1])) {
        ok = 0;
        break;
      }
      config->compare_epsilon[n++] = v;
      cursor = end;
    }
    config->compare_epsilon_count = n;
    DPBO_TRY(config_require(config, "compare", "epsilons", ok && n >= 1,
                            "must be 1 to 32 positive numbers in increasing order", err));
  }
  DPBO_TRY(config_double(config, "compare", "ps_eta", 1.0, 0, &config->compare_ps_eta, err));
  DPBO_TRY(config_require(config, "compare", "ps_eta",
                          config->compare_ps_eta >= 0.0 && config->compare_ps_eta <= 10.0,
                          "(the truncated negative binomial shape) must lie in [0, 10]", err));
done:
  return status;
}

static dpbo_status config_interpret(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int64_t i64;
  int choice;

  /* Unknown sections first: they usually mean a typo. */
  DPBO_TRY(config_check_sections(config, known_sections, err));

  /* [run] */
  DPBO_TRY(config_int64(config, "run", "iterations", 0, INT64_MIN, INT64_MAX, &i64, err));
  DPBO_TRY(config_require(config, "run", "iterations", i64 >= 1 && i64 <= 1000000,
                          "must be between 1 and 1000000 (the number of evaluations T)", err));
  config->iterations = (int)i64;
  DPBO_TRY(config_int64(config, "run", "seed", 1, 0, INT64_MAX, &i64, err));
  config->seed = (uint64_t)i64;
  DPBO_TRY(config_int64(config, "run", "batch", 1, 1, 1 << 20, &i64, err));
  config->batch = (int)i64;
  DPBO_TRY(config_int64(config, "run", "retries", 1, 0, 100, &i64, err));
  config->retries = (int)i64;

  /* [space] */
  static const char *const space_kinds[] = {"grid", "sobol", "list", NULL};
  DPBO_TRY(config_choice(config, "space", "kind", "sobol", space_kinds, &choice, err));
  config->space_kind = (dpbo_space_kind)choice;
  if (config->space_kind == DPBO_SPACE_SOBOL) {
    DPBO_TRY(
        config_int64(config, "space", "points", 0, INT64_MIN, INT64_MAX, &config->points, err));
    DPBO_TRY(config_require(config, "space", "points", config->points >= 1,
                            "must be at least 1 (the candidate space is empty)", err));
  }
  if (config->space_kind == DPBO_SPACE_LIST)
    DPBO_TRY(config_string(config, "space", "file", NULL, config->list_path,
                           sizeof config->list_path, err));
  DPBO_TRY(config_parse_dims(config, err));

  /* [gp] */
  static const char *const kernels[] = {"se", "matern52", NULL};
  DPBO_TRY(config_choice(config, "gp", "kernel", "matern52", kernels, &choice, err));
  double lengthscale[DPBO_MAX_DIM];
  {
    char text[DPBO_PATH_MAX];
    DPBO_TRY(config_string(config, "gp", "lengthscale", "0.2", text, sizeof text, err));
    int n = 0;
    char *cursor = text;
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
    DPBO_TRY(config_require(config, "gp", "lengthscale", ok,
                            "must be one number or one per dimension", err));
    for (int i = n; i < config->dims; i++)
      lengthscale[i] = lengthscale[0];
    for (int i = 0; i < config->dims; i++)
      DPBO_TRY(config_require(config, "gp", "lengthscale",
                              lengthscale[i] > 0 && isfinite(lengthscale[i]), "must be positive",
                              err));
  }
  DPBO_TRY(
      dpbo_kernel_init(&config->kernel, (dpbo_kernel_kind)choice, config->dims, lengthscale, err));
  DPBO_TRY(config_double(config, "gp", "mean", 0.0, 0, &config->prior.mean, err));
  DPBO_TRY(config_double(config, "gp", "signal_std", 1.0, 0, &config->prior.signal_std, err));
  DPBO_TRY(config_require(config, "gp", "signal_std", config->prior.signal_std > 0,
                          "must be positive", err));
  DPBO_TRY(config_double(config, "gp", "noise_std", 0.1, 0, &config->prior.noise_std, err));
  DPBO_TRY(
      config_require(config, "gp", "noise_std", config->prior.noise_std >= 0, "must be >= 0", err));
  /* Noise-free GPs need a nugget to stay factorizable; noisy ones do not. */
  DPBO_TRY(config_double(config, "gp", "jitter", config->prior.noise_std > 0 ? 0.0 : 1e-10, 0,
                         &config->prior.jitter, err));
  DPBO_TRY(config_require(config, "gp", "jitter", config->prior.jitter >= 0, "must be >= 0", err));

  /* [objective] */
  static const char *const objectives[] = {"svm", "synthetic", "command", "logreg", NULL};
  DPBO_TRY(config_choice(config, "objective", "kind", NULL, objectives, &choice, err));
  config->objective = (dpbo_objective_kind)choice;
  if (config->objective == DPBO_OBJECTIVE_SVM) {
    dpbo_svm_options *svm = &config->svm;
    dpbo_svm_options_default(svm);
    DPBO_TRY(config_string(config, "objective", "data", NULL, svm->data_path, sizeof svm->data_path,
                           err));
    static const char *const formats[] = {"auto", "csv", "libsvm", NULL};
    DPBO_TRY(config_choice(config, "objective", "format", "auto", formats, &choice, err));
    svm->format = (dpbo_data_format)choice;
    DPBO_TRY(config_int64(config, "objective", "max_features", DPBO_DATASET_MAX_FEATURES, 1,
                          INT32_MAX, &svm->max_features, err));
    DPBO_TRY(
        config_int64(config, "objective", "train_rows", 0, 1, INT64_MAX, &svm->train_rows, err));
    DPBO_TRY(config_require(config, "objective", "train_rows", svm->train_rows >= 1,
                            "is required (>= 1)", err));
    DPBO_TRY(config_int64(config, "objective", "validation_rows", 0, 1, INT64_MAX,
                          &svm->validation_rows, err));
    DPBO_TRY(config_require(config, "objective", "validation_rows", svm->validation_rows >= 1,
                            "is required (>= 1)", err));
    /* Held-out test rows (dpbo compare): the rows after the validation rows
     * in the same permutation, so train and validation rows are the same
     * with or without them. */
    DPBO_TRY(config_int64(config, "objective", "test_rows", 0, 0, INT64_MAX, &svm->test_rows, err));
    DPBO_TRY(config_int64(config, "objective", "split_seed", (int64_t)config->seed, 0, INT64_MAX,
                          &i64, err));
    svm->split_seed = (uint64_t)i64;
    DPBO_TRY(config_double(config, "objective", "cache_mb", svm->cache_mb, 0, &svm->cache_mb, err));
    DPBO_TRY(config_require(config, "objective", "cache_mb", svm->cache_mb > 0, "must be positive",
                            err));
    DPBO_TRY(
        config_double(config, "objective", "tolerance", svm->tolerance, 0, &svm->tolerance, err));
    DPBO_TRY(config_require(config, "objective", "tolerance", svm->tolerance > 0,
                            "must be positive", err));
    DPBO_TRY(config_int64(config, "objective", "shrinking", svm->shrinking, 0, 1, &i64, err));
    svm->shrinking = (int)i64;
  } else if (config->objective == DPBO_OBJECTIVE_SYNTHETIC) {
    static const char *const functions[] = {"branin", "hartmann6", "gp_prior", NULL};
    DPBO_TRY(config_choice(config, "objective", "function", NULL, functions, &choice, err));
    config->synthetic = (dpbo_synthetic_kind)choice;
    DPBO_TRY(config_int64(config, "objective", "features", 2048, 1, 1 << 24, &i64, err));
    config->synthetic_features = (int)i64;
    DPBO_TRY(
        config_double(config, "objective", "noise_std", 0.0, 0, &config->synthetic_noise_std, err));
    DPBO_TRY(config_require(config, "objective", "noise_std", config->synthetic_noise_std >= 0,
                            "must be >= 0", err));
    DPBO_TRY(
        config_int64(config, "objective", "seed", (int64_t)config->seed, 0, INT64_MAX, &i64, err));
    config->synthetic_seed = (uint64_t)i64;
    int need = config->synthetic == DPBO_SYNTH_BRANIN      ? 2
               : config->synthetic == DPBO_SYNTH_HARTMANN6 ? 6
                                                           : 0;
    if (need && config->dims != need)
      DPBO_RAISE(DPBO_ERR_CONFIG, "%s: objective.function = %s needs %d dimensions, [space] has %d",
                 config->path, functions[config->synthetic], need, config->dims);
  } else if (config->objective == DPBO_OBJECTIVE_LOGREG) {
    dpbo_logreg_options *lr = &config->logreg;
    dpbo_logreg_options_default(lr);
    DPBO_TRY(
        config_string(config, "objective", "data", NULL, lr->data_path, sizeof lr->data_path, err));
    static const char *const formats[] = {"auto", "csv", "libsvm", NULL};
    DPBO_TRY(config_choice(config, "objective", "format", "auto", formats, &choice, err));
    lr->format = (dpbo_data_format)choice;
    DPBO_TRY(config_int64(config, "objective", "max_features", DPBO_DATASET_MAX_FEATURES, 1,
                          INT32_MAX, &lr->max_features, err));
    DPBO_TRY(
        config_int64(config, "objective", "train_rows", 0, 1, INT64_MAX, &lr->train_rows, err));
    DPBO_TRY(config_require(config, "objective", "train_rows", lr->train_rows >= 1,
                            "is required (>= 1)", err));
    DPBO_TRY(config_int64(config, "objective", "validation_rows", 0, 1, INT64_MAX,
                          &lr->validation_rows, err));
    DPBO_TRY(config_require(config, "objective", "validation_rows", lr->validation_rows >= 1,
                            "is required (>= 1)", err));
    DPBO_TRY(config_int64(config, "objective", "test_rows", 0, 0, INT64_MAX, &lr->test_rows, err));
    DPBO_TRY(config_int64(config, "objective", "split_seed", (int64_t)config->seed, 0, INT64_MAX,
                          &i64, err));
    lr->split_seed = (uint64_t)i64;
    DPBO_TRY(config_double(config, "objective", "positive_label", lr->positive_label, 0,
                           &lr->positive_label, err));
    static const char *const losses[] = {"sigmoid", "ramp", NULL};
    DPBO_TRY(config_choice(config, "objective", "loss", "sigmoid", losses, &choice, err));
    lr->loss = (dpbo_logreg_loss)choice;
    DPBO_TRY(
        config_double(config, "objective", "tolerance", lr->tolerance, 0, &lr->tolerance, err));
    DPBO_TRY(config_require(config, "objective", "tolerance", lr->tolerance > 0, "must be positive",
                            err));
  } else {
    dpbo_command_options *cmd = &config->command;
    DPBO_TRY(config_string(config, "objective", "command", NULL, cmd->command, sizeof cmd->command,
                           err));
    static const char *const passes[] = {"args", "env", NULL};
    DPBO_TRY(config_choice(config, "objective", "pass", "args", passes, &choice, err));
    cmd->pass = (dpbo_pass_mode)choice;
    DPBO_TRY(config_double(config, "objective", "timeout_s", DPBO_COMMAND_TIMEOUT_DEFAULT, 0,
                           &cmd->timeout_s, err));
    DPBO_TRY(config_require(config, "objective", "timeout_s", cmd->timeout_s >= 0,
                            "must be a number of seconds >= 0 (0: no limit)", err));
    /* The range the program's gains lie in (e.g. "0 1" for an accuracy): a
     * value outside it (1e300 from a broken script) fails the evaluation
     * instead of entering the GP. Optional: no check without it. */
    DPBO_TRY(config_range(config, "objective", "value_range", "", &cmd->check_range, &cmd->value_lo,
                          &cmd->value_hi, err));
  }

  /* [ucb] */
  static const char *const acquisitions[] = {"ucb", "ei", NULL};
  DPBO_TRY(config_choice(config, "ucb", "acquisition", "ucb", acquisitions, &choice, err));
  config->acquisition = (dpbo_acquisition)choice;
  {
    /* auto, off, or MiB per rank: above it the UCB state recomputes a(x)
     * instead of storing T·N/P doubles (same results, slower steps). */
    char text[64];
    DPBO_TRY(config_string(config, "ucb", "memory_limit_mb", "auto", text, sizeof text, err));
    if (strcmp(text, "auto") == 0) {
      config->memory_limit_mb = -1.0;
    } else if (strcmp(text, "off") == 0) {
      config->memory_limit_mb = 0.0;
    } else {
      char *end;
      double mb = strtod(text, &end);
      while (*end == ' ' || *end == '\t')
        end++;
      char what[160];
      snprintf(what, sizeof what,
               "must be auto, off, or a positive number of MiB per rank (got '%s')", text);
      DPBO_TRY(config_require(config, "ucb", "memory_limit_mb",
                              end != text && *end == '\0' && isfinite(mb) && mb > 0 && mb < 1e12,
                              what, err));
      config->memory_limit_mb = mb;
    }
  }
  DPBO_TRY(config_privacy(config, err));
  /* With a GP-based release the run's β_t must use the δ the theorems use
   * for ṽ (Srinivas et al.'s regret bound holds for the β the run used):
   * the budget's δ_β, which a given ucb.delta must equal exactly. */
  {
    dpbo_privacy_budget budget;
    DPBO_TRY(dpbo_privacy_budget_split(config->algorithm, config->bounds, config->privacy_epsilon,
                                       config->privacy_delta, config->privacy_split, &budget, err));
    const int gp_release =
        config->algorithm == DPBO_ALGORITHM_1 || config->algorithm == DPBO_ALGORITHM_2;
    dpbo_config_entry *given = config_find(config, "ucb", "delta");
    DPBO_TRY(config_double(config, "ucb", "delta", budget.delta_beta, 0, &config->delta, err));
    DPBO_TRY(config_require(config, "ucb", "delta", config->delta > 0 && config->delta < 1,
                            "must lie in (0, 1)", err));
    if (given && gp_release && config->delta != budget.delta_beta) {
      char what[512];
      snprintf(what, sizeof what,
               "= %.17g differs from the delta %.17g that beta_t needs for privacy.algorithm = %d "
               "with bounds = %s (privacy.delta = %g, split = %g): the released value's "
               "sensitivity holds only for that beta; leave ucb.delta unset",
               config->delta, budget.delta_beta, (int)config->algorithm,
               dpbo_bounds_name(config->bounds), config->privacy_delta, config->privacy_split);
      DPBO_TRY(config_require(config, "ucb", "delta", 0, what, err));
    }
  }

  /* [output] */
  DPBO_TRY(config_output(config, config->output_dir, sizeof config->output_dir, config->output_name,
                         sizeof config->output_name, err));
  static const char *const posterior[] = {"auto", "yes", "no", NULL};
  DPBO_TRY(config_choice(config, "output", "posterior", "auto", posterior, &choice, err));
  config->posterior = (dpbo_posterior_output)choice;

  DPBO_TRY(config_compare(config, err));
  DPBO_TRY(config_check_used(config, err));
done:
  return status;
}

static dpbo_status config_apply_overrides(dpbo_config *config, int override_count,
                                          const char *const *overrides, dpbo_error *err);

/* Reads the file and the overrides into config->entry, uninterpreted. With
 * `stream` (closed here in any case) the text comes from there and path only
 * names it in messages. */
static dpbo_status config_read_entries(const char *path, FILE *stream, int override_count,
                                       const char *const *overrides, dpbo_config *config,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  config_reader reader = {stream, 0, 0, 0};
  int fd = -1;
  memset(config, 0, sizeof *config);
  if (strlen(path) >= sizeof config->path) DPBO_RAISE(DPBO_ERR_CONFIG, "config path is too long");
  snprintf(config->path, sizeof config->path, "%s", path);

  if (!reader.file) {
    DPBO_TRY(dpbo_input_open(path, "config file", &fd, err));
    reader.file = fdopen(fd, "r");
    if (!reader.file)
      DPBO_RAISE(DPBO_ERR_IO, "cannot read config file %s: %s", path, strerror(errno));
    fd = -1; /* the stream owns it */
  }
  config_parse parse = {config, &reader, DPBO_OK, err};
  int rc = ini_parse_stream(config_read_line, &reader, config_handler, &parse);
  /* A NUL byte first: the entries read before it may be cut short. */
  if (reader.nul)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s:%d: contains a NUL byte (not a text file?)", path, reader.nul);
  if (parse.status != DPBO_OK) {
    status = parse.status;
    goto done;
  }
  if (reader.too_long)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s:%d: line is too long", path, reader.too_long);
  if (rc > 0)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s:%d: syntax error (expected [section] or key = value)", path,
               rc);
  if (rc < 0) DPBO_RAISE(DPBO_ERR_IO, "cannot read config file %s", path);
  if (ferror(reader.file))
    DPBO_RAISE(DPBO_ERR_IO, "cannot read config file %s: %s", path, strerror(errno));

  DPBO_TRY(config_apply_overrides(config, override_count, overrides, err));
done:
  if (reader.file) fclose(reader.file);
  if (fd >= 0) close(fd);
  return status;
}

dpbo_status dpbo_config_load(const char *path, int override_count, const char *const *overrides,
                             dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_TRY(config_read_entries(path, NULL, override_count, overrides, config, err));
  DPBO_TRY(config_interpret(config, err));
done:
  return status;
}

/* The text is read through a stdio stream on the buffer (fmemopen), so the
 * bytes take the same fgets/inih path as a file's. */
dpbo_status dpbo__config_load_buffer(const char *label, const char *text, size_t size,
                                     int override_count, const char *const *overrides,
                                     dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  static const char empty[1] = "";
  /* fmemopen refuses a NULL buffer; an empty text is an empty config. */
  FILE *stream = fmemopen((void *)(size ? text : empty), size, "r");
  if (!stream)
    DPBO_RAISE(DPBO_ERR_IO, "%s: cannot open the config text: %s", label, strerror(errno));
  DPBO_TRY(config_read_entries(label, stream, override_count, overrides, config, err));
  DPBO_TRY(config_interpret(config, err));
done:
  return status;
}

dpbo_status dpbo_config_load_assignments(const char *label, int count,
                                         const char *const *assignments, int override_count,
                                         const char *const *overrides, dpbo_config *config,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(config, 0, sizeof *config);
  snprintf(config->path, sizeof config->path, "%s", label);
  DPBO_TRY(config_apply_overrides(config, count, assignments, err));
  DPBO_TRY(config_apply_overrides(config, override_count, overrides, err));
  DPBO_TRY(config_interpret(config, err));
done:
  return status;
}

/* "section.key=value" strings, each replacing or adding one entry (line 0). */
static dpbo_status config_apply_overrides(dpbo_config *config, int override_count,
                                          const char *const *overrides, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  for (int i = 0; i < override_count; i++) {
    const char *text = overrides[i];
    const char *dot = strchr(text, '.');
    const char *eq = strchr(text, '=');
    if (!dot || !eq || dot > eq || dot == text || eq == dot + 1)
      DPBO_RAISE(DPBO_ERR_USAGE, "--set '%s': expected section.key=value", text);
    char section[64], key[128];
    if ((size_t)(dot - text) >= sizeof section || (size_t)(eq - dot - 1) >= sizeof key)
      DPBO_RAISE(DPBO_ERR_USAGE, "--set '%s': section or key too long", text);
    snprintf(section, sizeof section, "%.*s", (int)(dot - text), text);
    snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
    DPBO_TRY(config_add_entry(config, section, key, eq + 1, 0, err));
  }
done:
  return status;
}

const char *dpbo_objective_kind_name(dpbo_objective_kind kind) {
  switch (kind) {
  case DPBO_OBJECTIVE_SVM:
    return "svm";
  case DPBO_OBJECTIVE_SYNTHETIC:
    return "synthetic";
  case DPBO_OBJECTIVE_COMMAND:
    return "command";
  case DPBO_OBJECTIVE_LOGREG:
    return "logreg";
  }
  return "unknown";
}

void dpbo_config_run_path(const dpbo_config *config, char *path, size_t size) {
  snprintf(path, size, "%s/%s.h5", config->output_dir, config->output_name);
}

/* ---------------------------------------------------------------------------
 * The same strict reading for commands with sections of their own. */

dpbo_status dpbo_config_read(const char *path, int override_count, const char *const *overrides,
                             const char *const *sections, dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_TRY(config_read_entries(path, NULL, override_count, overrides, config, err));
  DPBO_TRY(config_check_sections(config, sections, err));
done:
  return status;
}

dpbo_status dpbo_config_get_string(dpbo_config *config, const char *section, const char *key,
                                   const char *fallback, char *out, size_t size, dpbo_error *err) {
  return config_string(config, section, key, fallback, out, size, err);
}

dpbo_status dpbo_config_get_double(dpbo_config *config, const char *section, const char *key,
                                   double fallback, int required, double *out, dpbo_error *err) {
  return config_double(config, section, key, fallback, required, out, err);
}

dpbo_status dpbo_config_get_int64(dpbo_config *config, const char *section, const char *key,
                                  int64_t fallback, int64_t min, int64_t max, int64_t *out,
                                  dpbo_error *err) {
  return config_int64(config, section, key, fallback, min, max, out, err);
}

dpbo_status dpbo_config_get_choice(dpbo_config *config, const char *section, const char *key,
                                   const char *fallback, const char *const *choices, int *out,
                                   dpbo_error *err) {
  return config_choice(config, section, key, fallback, choices, out, err);
}

dpbo_status dpbo_config_require(dpbo_config *config, const char *section, const char *key, int ok,
                                const char *what, dpbo_error *err) {
  return config_require(config, section, key, ok, what, err);
}

dpbo_status dpbo_config_get_output(dpbo_config *config, char *dir, size_t dir_size, char *name,
                                   size_t name_size, dpbo_error *err) {
  return config_output(config, dir, dir_size, name, name_size, err);
}

dpbo_status dpbo_config_get_dims(dpbo_config *config, dpbo_space_kind kind, dpbo_error *err) {
  config->space_kind = kind;
  config->dims = 0;
  return config_parse_dims(config, err);
}

dpbo_status dpbo_config_check_used(dpbo_config *config, dpbo_error *err) {
  return config_check_used(config, err);
}

/* Finds section.key among "section.key=value" lines; returns the value (a
 * pointer into text, ending at '\n' or '\0') or NULL. */
static const char *config_stored_value(const char *text, const char *section, const char *key,
                                       size_t *len) {
  const size_t ls = strlen(section), lk = strlen(key);
  for (const char *line = text; line && *line;) {
    const char *end = strchr(line, '\n');
    size_t line_len = end ? (size_t)(end - line) : strlen(line);
    if (line_len > ls + lk + 1 && strncmp(line, section, ls) == 0 && line[ls] == '.' &&
        strncmp(line + ls + 1, key, lk) == 0 && line[ls + 1 + lk] == '=') {
      *len = line_len - (ls + lk + 2);
      return line + ls + lk + 2;
    }
    line = end ? end + 1 : NULL;
  }
  return NULL;
}

/* Keys a resumed run may change: where the output goes, and the UCB state's
 * memory limit (it decides how μ and σ² are computed, never their values:
 * the recompute mode gives the same bits, ucb.h). */
static int config_key_may_differ(const char *section, const char *key) {
  return strcmp(section, "output") == 0 ||
         (strcmp(section, "ucb") == 0 && strcmp(key, "memory_limit_mb") == 0);
}

int dpbo_config_differs(const dpbo_config *config, const char *stored, char *what, size_t size) {
  /* Every key set now must be stored with the same text... */
  for (int i = 0; i < config->entry_count; i++) {
    const dpbo_config_entry *e = &config->entry[i];
    if (config_key_may_differ(e->section, e->key)) continue;
    size_t len = 0;
    const char *old = config_stored_value(stored, e->section, e->key, &len);
    if (!old) {
      snprintf(what, size, "%s.%s is set to '%s' now but was not set in the run", e->section,
               e->key, e->value);
      return 1;
    }
    if (strlen(e->value) != len || strncmp(e->value, old, len) != 0) {
      snprintf(what, size, "%s.%s was '%.*s' in the run and is '%s' now", e->section, e->key,
               (int)len, old, e->value);
      return 1;
    }
  }
  /* ...and every stored key must still be set. */
  for (const char *line = stored; line && *line;) {
    const char *end = strchr(line, '\n'), *dot = strchr(line, '.'), *eq = strchr(line, '=');
    if (dot && eq && dot < eq && (!end || eq < end)) {
      char section[64], key[128];
      snprintf(section, sizeof section, "%.*s", (int)(dot - line), line);
      snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
      int found = config_key_may_differ(section, key);
      for (int i = 0; i < config->entry_count && !found; i++)
        found = strcmp(config->entry[i].section, section) == 0 &&
                strcmp(config->entry[i].key, key) == 0;
      if (!found) {
        int vlen = (int)(end ? end - eq - 1 : (long)strlen(eq + 1));
        snprintf(what, size, "%s.%s was '%.*s' in the run and is not set now", section, key, vlen,
                 eq + 1);
        return 1;
      }
    }
    line = end ? end + 1 : NULL;
  }
  return 0;
}
