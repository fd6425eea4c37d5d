/* The key table (src/run/config_keys.h) against the reader:
 *   - the getters refuse a key without a row, and a row whose type, choices
 *     or default differ from the code (a small schema of its own);
 *   - for minimal configs of each objective and space kind, the keys read
 *     are exactly the rows whose "read when" holds, and each key left out
 *     took the row's default (so `dpbo config --list` and the run file's
 *     default.* attributes agree);
 *   - every shipped config (configs/, .ini) loads under its table (the run
 *     config's with dpbo compare's [compare], or dpbo k1sweep's);
 *   - a choice's names are spelled once: every choice row of both tables
 *     holds the code's own list and no text of its own (issue #25). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/settings.h"
#include "check.h"
#include "run/config.h"
#include "run/config_keys.h"
#include "run/config_private.h"
#include "experiments/compare_options.h"
#include "experiments/k1sweep.h"
#include "experiments/k1sweep_keys.h"

static void schema_refusals(void) {
  dpbo_error err;
  static const dpbo_settings_key schema[] = {
      {"a", "n", "integer", "any", "3", 0, "", "", "an integer", {0}},
      {"a", "pick", "choice", "x | y", "x", 0, "", "", "a choice", {0}},
      {"a", "late", "number", "any", "0.5", 1, "", "", "computed default", {0}},
      {NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, {0}}};
  static const char *const xy[] = {"x", "y", NULL};
  static const char *const xyz[] = {"x", "y", "z", NULL};
  const char text[] = "[a]\nlate = 2\n";
  dpbo_settings s;
  dpbo_error_clear(&err);
  CHECK_OK(dpbo_settings_read_text(&s, "t.ini", text, sizeof text - 1, 0, NULL, &err));
  s.schema = schema;
  int64_t i64 = 0;
  double d = 0;
  int choice = -1;
  /* As declared: the defaults are recorded, written keys are not. */
  CHECK_OK(dpbo_settings_get_int64(&s, "a", "n", 3, (dpbo_settings_range){0, 10}, &i64, &err));
  CHECK_OK(dpbo_settings_get_choice(&s, "a", "pick", "x", xy, &choice, &err));
  CHECK_OK(dpbo_settings_get_double(&s, "a", "late", 7.0, 0, &d, &err));
  CHECK(i64 == 3 && choice == 0 && d == 2.0);
  CHECK(s.default_count == 2 && strcmp(s.defaults[0].key, "n") == 0 &&
        strcmp(s.defaults[0].value, "3") == 0 && strcmp(s.defaults[1].value, "x") == 0);
  /* Drift: a key without a row, another type, another default, other choices. */
  dpbo_error_clear(&err);
  CHECK(dpbo_settings_get_int64(&s, "a", "m", 3, (dpbo_settings_range){0, 10}, &i64, &err) ==
            DPBO_ERR_ARG &&
        strstr(err.message, "a.m (type integer), which has no row in the key table"));
  dpbo_error_clear(&err);
  CHECK(dpbo_settings_get_double(&s, "a", "n", 3, 0, &d, &err) == DPBO_ERR_ARG &&
        strstr(err.message, "reads a.n as a number, its row says integer"));
  dpbo_error_clear(&err);
  CHECK(dpbo_settings_get_int64(&s, "a", "n", 4, (dpbo_settings_range){0, 10}, &i64, &err) ==
            DPBO_ERR_ARG &&
        strstr(err.message, "the default of a.n is '4' in the code and '3' in its row"));
  dpbo_error_clear(&err);
  CHECK(dpbo_settings_get_choice(&s, "a", "pick", "x", xyz, &choice, &err) == DPBO_ERR_ARG &&
        strstr(err.message, "the choices of a.pick are 'x | y | z' in the code and 'x | y'"));
  dpbo_settings_free(&s);
}

/* The value of section.key the config used: as written, or its default;
 * NULL when it was not read. */
static const char *effective(const dpbo_settings *s, const char *section, const char *key,
                             int *is_default) {
  for (int i = 0; i < s->count; i++)
    if (strcmp(s->entry[i].section, section) == 0 &&
        (strcmp(s->entry[i].key, key) == 0 ||
         (strcmp(key, "dim.NAME") == 0 && strncmp(s->entry[i].key, "dim.", 4) == 0))) {
      *is_default = 0;
      return s->entry[i].value;
    }
  for (int i = 0; i < s->default_count; i++)
    if (strcmp(s->defaults[i].section, section) == 0 && strcmp(s->defaults[i].key, key) == 0) {
      *is_default = 1;
      return s->defaults[i].value;
    }
  return NULL;
}

/* Whether the row's "read when" (empty, or "section.key = a, b") holds. */
static int row_applies(const dpbo_settings *s, const dpbo_settings_key *row) {
  if (!row->applies[0]) return 1;
  char section[64], key[64], values[256];
  if (sscanf(row->applies, "%63[^.].%63s = %255[^\n]", section, key, values) != 3) return -1;
  int dummy;
  const char *value = effective(s, section, key, &dummy);
  if (!value) return 0;
  for (char *v = strtok(values, ", "); v; v = strtok(NULL, ", "))
    if (strcmp(v, value) == 0) return 1;
  return 0;
}

static void keys_read(const char *name, const char *text) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_config *config = calloc(1, sizeof *config);
  CHECK_OK(dpbo__config_load_buffer(name, text, strlen(text), 0, NULL, config, &err));
  const dpbo_settings *s = &config->settings;
  int rows = 0;
  for (const dpbo_settings_key *row = dpbo_config_schema(); row->key; row++) {
    int is_default = 0, applies = row_applies(s, row);
    const char *value = effective(s, row->section, row->key, &is_default);
    CHECK_MSG(applies >= 0, "%s.%s: cannot parse '%s'", row->section, row->key, row->applies);
    CHECK_MSG(applies == (value != NULL), "%s: %s.%s %s but the table says it is %sread", name,
              row->section, row->key, value ? "was read" : "was not read", applies ? "" : "not ");
    if (value && is_default && !row->computed)
      CHECK_MSG(strcmp(value, row->fallback) == 0, "%s: %s.%s took '%s', the table says '%s'", name,
                row->section, row->key, value, row->fallback);
    rows += applies == 1;
  }
  printf("%s: %d keys read, %d written, %d defaults\n", name, rows, s->count, s->default_count);
  dpbo_config_free(config);
  free(config);
}

static void shipped_configs(void) {
  const char *source = getenv("DPBO_SOURCE_DIR");
  if (!source) source = "..";
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/configs", source);
  DIR *listing = opendir(dir);
  CHECK_MSG(listing != NULL, "cannot list %s", dir);
  if (!listing) return;
  int loaded = 0;
  for (struct dirent *e; (e = readdir(listing));) {
    size_t len = strlen(e->d_name);
    if (len < 5 || strcmp(e->d_name + len - 4, ".ini") != 0) continue;
    char path[8192];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    dpbo_error err;
    dpbo_error_clear(&err);
    if (strncmp(e->d_name, "k1sweep", 7) == 0) {
      /* (dpbo k1sweep's configs, under its own table) */
      dpbo_k1sweep_config *k1 = calloc(1, sizeof *k1);
      CHECK_OK(dpbo_k1sweep_config_load(path, 0, NULL, k1, &err));
      dpbo_k1sweep_config_free(k1);
      free(k1);
    } else {
      dpbo_config *config = calloc(1, sizeof *config);
      CHECK_OK(dpbo_config_load(path, 0, NULL, config, &err));
      dpbo_config_free(config);
      free(config);
    }
    loaded++;
  }
  closedir(listing);
  printf("%d shipped configs load\n", loaded);
  CHECK(loaded >= 12);
}

/* Every choice row points at the code's list of names, and its values are
 * that list joined (what `dpbo config --list` prints). */
static void choices_once(const char *name, const dpbo_settings_key *table) {
  int rows = 0;
  for (const dpbo_settings_key *row = table; row->key; row++) {
    if (strcmp(row->type, "choice") != 0) continue;
    rows++;
    CHECK_MSG(row->values == NULL && row->target.choices && row->target.choices[0],
              "%s: %s.%s spells its choices in the row, not from the code's list", name,
              row->section, row->key);
    char buf[512];
    const char *joined = dpbo_settings_key_values(row, buf, sizeof buf);
    CHECK_MSG(strstr(joined, row->target.choices[0]) == joined && strstr(joined, " | "),
              "%s: %s.%s lists '%s'", name, row->section, row->key, joined);
  }
  CHECK_MSG(rows >= 4, "%s: only %d choice rows", name, rows);
}

int main(void) {
  dpbo_error err;
  /* As app does: [compare] is dpbo compare's, read by every load. */
  CHECK_OK(dpbo_config_add_section(&dpbo_compare_section, &err));
  schema_refusals();
  choices_once("run", dpbo_config_keys);
  choices_once("k1sweep", dpbo_k1sweep_keys);
  keys_read("synthetic-sobol", "[run]\niterations = 3\n[space]\npoints = 16\n"
                               "dim.x1 = linear -5 10\ndim.x2 = linear 0 15\n"
                               "[objective]\nkind = synthetic\nfunction = branin\n");
  keys_read("svm-grid", "[run]\niterations = 3\n[space]\nkind = grid\ndim.C = log 1 10 3\n"
                        "[objective]\nkind = svm\ndata = d.csv\ntrain_rows = 5\n"
                        "validation_rows = 5\n[privacy]\nalgorithm = 1\n");
  keys_read("logreg-list", "[run]\niterations = 3\n[space]\nkind = list\nfile = p.txt\n"
                           "dim.lambda = log 1e-3 1\n[objective]\nkind = logreg\ndata = d.csv\n"
                           "train_rows = 5\nvalidation_rows = 5\n[privacy]\nalgorithm = 3\n");
  keys_read("command", "[run]\niterations = 3\n[space]\npoints = 8\ndim.x = linear 0 1\n"
                       "[objective]\nkind = command\ncommand = ./train.sh\n");
  shipped_configs();
  return dpbo_test_summary("test_config_keys");
}
