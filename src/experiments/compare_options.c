/* dpbo compare's settings: their rows and their reader (compare_options.h). */
#include "experiments/compare_options.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* Columns as in run/config_keys.c: section, key, type, values, default,
 * computed, unit, read when, meaning, target. A ROW reads itself
 * (dpbo_settings_read_rows) into its field of dpbo_compare_options; a KEY is
 * read by compare_options_parse's code. */
#define KEY(key, type, values, fallback, computed, doc)                                            \
  {                                                                                                \
    "compare", key, type, values, fallback, computed, "", "", doc, { 0 }                           \
  }
#define ROW(key, type, values, fallback, doc, target)                                              \
  { "compare", key, type, values, fallback, 0, "", "", doc, target }
/* An [objective] key of the command objective. */
#define COMMAND_ROW(key, type, values, fallback, unit, doc, target)                                \
  { "objective", key, type, values, fallback, 0, unit, "objective.kind = command", doc, target }
/* Targets: a field of dpbo_compare_options. */
#define INTEGER(kind_, field, low, high, message)                                                  \
  {                                                                                                \
    .kind = (kind_), .offset = offsetof(dpbo_compare_options, field), .ilo = (low), .ihi = (high), \
    .what = (message)                                                                              \
  }
#define STRING(field)                                                                              \
  {                                                                                                \
    .kind = DPBO_SETTINGS_STRING, .offset = offsetof(dpbo_compare_options, field),                 \
    .size = sizeof(((dpbo_compare_options *)0)->field)                                             \
  }

const dpbo_settings_key dpbo_compare_keys[] = {
    COMMAND_ROW("compare_command", "text", "a program and its arguments (no shell)", "", "",
                "dpbo compare only: the program that builds its table, run like objective.command "
                "(same mode, pass and time-out) but replying with two numbers on its line, 'VAL "
                "TEST': the validation accuracy and the held-out test accuracy "
                "(docs/own-model.md).",
                STRING(command)),
    COMMAND_ROW("validation_size", "integer", "0 (not stated), or >= 1", "0", "records",
                "dpbo compare only, which requires it: m, the validation records your program's "
                "accuracy counts, so that one record moves it by at most 1/m (the baselines' "
                "sensitivity). dpbo run does not read it.",
                INTEGER(DPBO_SETTINGS_INT64, validation_size, 0, INT64_MAX,
                        "must be the number of validation records m >= 1 (0: not stated)")),
    ROW("repetitions", "integer", "1 to 100000", "20",
        "dpbo compare: R, the repetitions with fresh noise.",
        INTEGER(DPBO_SETTINGS_INT, repetitions, 1, 100000, NULL)),
    KEY("epsilons", "text", "1 to 32 numbers > 0, increasing", "0.1 0.3 1 3 10", 0,
        "dpbo compare: the grid of total epsilon."),
    KEY("ps_eta", "number", "[0, 10]", "privacy.ps_eta", 1,
        "dpbo compare: the shape eta of Papernot and Steinke's truncated negative binomial (0 "
        "logarithmic, 1 geometric)."),
    ROW("table", "text", "a path, or empty", "",
        "dpbo compare: an earlier compare file whose table (/table) is used instead of training "
        "every candidate again; refused unless its objective.* and space.* settings (defaults "
        "included) and its candidates are this run's. The privacy, compare, gp, ucb, run and "
        "output keys may differ: they act after the table (the GP-UCB run and the repetitions, "
        "recomputed; the table holds no GP).",
        STRING(table)),
    {NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, {0}}};

/* compare.epsilons: a list of positive numbers, increasing (blanks or
 * commas between them). */
static dpbo_status compare_options_epsilons(dpbo_settings *settings, dpbo_compare_options *o,
                                            dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char text[DPBO_PATH_MAX];
  DPBO_TRY(dpbo_settings_get_string(settings, "compare", "epsilons", "0.1 0.3 1 3 10", text,
                                    sizeof text, err));
  int n = 0, ok = 1;
  char *cursor = text;
  for (;;) {
    while (*cursor == ' ' || *cursor == ',' || *cursor == '\t')
      cursor++;
    if (!*cursor) break;
    char *end;
    double v = strtod(cursor, &end);
    if (end == cursor || !(v > 0.0 && isfinite(v)) || n >= DPBO_COMPARE_MAX_EPSILONS ||
        (n > 0 && v <= o->epsilon[n - 1])) {
      ok = 0;
      break;
    }
    o->epsilon[n++] = v;
    cursor = end;
  }
  o->epsilon_count = n;
  DPBO_TRY(dpbo_settings_require(settings, "compare", "epsilons", ok && n >= 1,
                                 "must be 1 to 32 positive numbers in increasing order", err));
done:
  return status;
}

dpbo_status dpbo_compare_options_read(dpbo_config *config, dpbo_compare_options *options,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_settings *settings = &config->settings;
  /* (compare_command, validation_size, repetitions and table: their rows) */
  DPBO_TRY(dpbo_settings_read_rows(settings, dpbo_compare_keys, "objective", options, err));
  DPBO_TRY(dpbo_settings_read_rows(settings, dpbo_compare_keys, "compare", options, err));
  DPBO_TRY(compare_options_epsilons(settings, options, err));
  DPBO_TRY(dpbo_settings_get_double(settings, "compare", "ps_eta", config->ps_eta, 0,
                                    &options->ps_eta, err));
  DPBO_TRY(dpbo_settings_require(
      settings, "compare", "ps_eta", options->ps_eta >= 0.0 && options->ps_eta <= 10.0,
      "(the truncated negative binomial shape) must lie in [0, 10]", err));
done:
  return status;
}

/* Every load checks the section (the values are dropped). */
static dpbo_status compare_options_check(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_compare_options *options = NULL; /* about 4 KB (a path): on the heap */
  DPBO_ALLOC(options, 1, "the [compare] settings");
  DPBO_TRY(dpbo_compare_options_read(config, options, err));
done:
  free(options);
  return status;
}

const dpbo_config_section dpbo_compare_section = {"compare", dpbo_compare_keys,
                                                  compare_options_check};
