/* The settings reader on its own (src/base/settings.h), without any
 * command's schema: provenance (file:line, --set), the strict checks
 * (unknown section, repeated key, too many keys, too long a value), the
 * typed getters marking keys used, check_used, assignments, stored
 * (section, key, value) triples and their packing, the checks of names and
 * values, and that the entries are stored dynamically and released. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/settings.h"
#include "check.h"

/* Fails unless the call fails with exactly the message `expected`. */
#define CHECK_FAILS(call, expected)                                                                \
  do {                                                                                             \
    dpbo_error_clear(&err);                                                                        \
    dpbo_status dpbo__st = (call);                                                                 \
    CHECK_MSG(dpbo__st == DPBO_ERR_CONFIG && strcmp(err.message, (expected)) == 0,                 \
              "%s -> %s: '%s', expected '%s'", #call, dpbo_status_name(dpbo__st), err.message,     \
              (expected));                                                                         \
  } while (0)

static void text_and_overrides(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_settings s;
  const char text[] = "[a]\nx = 7\ny = hello\n; a comment\n[b]\nz = 2.5\npick = two\n";
  const char *const overrides[] = {"a.y=world", "c.w=3"};
  CHECK_OK(dpbo_settings_read_text(&s, "t.ini", text, sizeof text - 1, 2, overrides, &err));
  CHECK(s.count == 5 && strcmp(s.path, "t.ini") == 0);
  /* The override replaced the file's value and took its place. */
  CHECK(strcmp(s.entry[1].key, "y") == 0 && strcmp(s.entry[1].value, "world") == 0 &&
        s.entry[1].line == 0);
  CHECK(strcmp(s.entry[0].value, "7") == 0 && s.entry[0].line == 2);
  char where[64];
  dpbo_settings_where(&s, &s.entry[3], where, sizeof where);
  CHECK(strcmp(where, "t.ini:7") == 0);
  dpbo_settings_where(&s, &s.entry[1], where, sizeof where);
  CHECK(strcmp(where, "--set a.y") == 0);

  static const char *const two[] = {"a", "b", NULL};
  CHECK_FAILS(dpbo_settings_check_sections(&s, two, &err),
              "--set c.w: unknown section [c] (known: a, b)");
  static const char *const three[] = {"a", "b", "c", NULL};
  CHECK_OK(dpbo_settings_check_sections(&s, three, &err));

  int64_t i64 = 0;
  double d = 0;
  char str[16];
  int choice = -1;
  static const char *const names[] = {"one", "two", NULL};
  CHECK_OK(dpbo_settings_get_int64(&s, "a", "x", 0, (dpbo_settings_range){1, 10}, &i64, &err));
  CHECK(i64 == 7);
  CHECK_FAILS(dpbo_settings_get_int64(&s, "a", "x", 0, (dpbo_settings_range){8, 10}, &i64, &err),
              "t.ini:2: a.x = 7 is outside [8, 10]");
  CHECK_OK(dpbo_settings_get_string(&s, "a", "y", NULL, str, sizeof str, &err));
  CHECK(strcmp(str, "world") == 0);
  CHECK_OK(dpbo_settings_get_double(&s, "b", "z", 0, 1, &d, &err));
  CHECK(d == 2.5);
  CHECK_OK(dpbo_settings_get_choice(&s, "b", "pick", NULL, names, &choice, &err));
  CHECK(choice == 1);
  CHECK_FAILS(dpbo_settings_get_double(&s, "b", "missing", 0, 1, &d, &err),
              "t.ini: missing key b.missing");
  CHECK_FAILS(dpbo_settings_get_choice(&s, "a", "y", NULL, names, &choice, &err),
              "--set a.y: a.y = 'world' is not one of: one, two");
  CHECK_FAILS(dpbo_settings_require(&s, "b", "z", 0, "must be large", &err),
              "t.ini:6: b.z must be large");
  /* A fallback is used for a key not written, which stays unknown. */
  CHECK_OK(
      dpbo_settings_get_int64(&s, "a", "absent", 42, (dpbo_settings_range){0, 100}, &i64, &err));
  CHECK(i64 == 42 && s.count == 5);

  /* c.w was read by nobody. */
  CHECK(dpbo_settings_unused(&s) == &s.entry[4]);
  CHECK_FAILS(dpbo_settings_check_used(&s, &err), "--set c.w: unknown key 'w' in [c]");
  CHECK_OK(dpbo_settings_get_int64(&s, "c", "w", 0, (dpbo_settings_range){0, 10}, &i64, &err));
  CHECK(dpbo_settings_unused(&s) == NULL);
  CHECK_OK(dpbo_settings_check_used(&s, &err));

  dpbo_settings_free(&s);
  CHECK(s.count == 0 && s.entry == NULL);
  dpbo_settings_free(&s); /* twice is harmless */
  printf("text and overrides: entries, provenance, getters, unused keys\n");
}

static void strict_reading(void) {
  dpbo_error err;
  dpbo_settings s;
  const char repeat[] = "[a]\nx = 1\nx = 2\n";
  CHECK_FAILS(dpbo_settings_read_text(&s, "r.ini", repeat, sizeof repeat - 1, 0, NULL, &err),
              "r.ini:3: key a.x repeats line 2");
  CHECK(s.entry == NULL); /* freed on failure */
  const char nul[] = "[a]\nx = 1\ny\0 = 2\n";
  CHECK_FAILS(dpbo_settings_read_text(&s, "n.ini", nul, sizeof nul - 1, 0, NULL, &err),
              "n.ini:3: contains a NUL byte (not a text file?)");

  /* 256 keys are stored (past the first allocation of 16), the 257th is
   * refused; a value of DPBO_PATH_MAX - 1 bytes fits, one more does not. */
  size_t cap = 300 * 24 + 2 * DPBO_PATH_MAX + 64, len = 0;
  char *text = malloc(cap);
  CHECK(text != NULL);
  if (!text) return;
  len += (size_t)snprintf(text + len, cap - len, "[k]\n");
  for (int i = 0; i < 256; i++)
    len += (size_t)snprintf(text + len, cap - len, "key%d = %d\n", i, i);
  CHECK_OK(dpbo_settings_read_text(&s, "m.ini", text, len, 0, NULL, &err));
  CHECK(s.count == 256 && strcmp(s.entry[255].value, "255") == 0 && s.entry[255].line == 257);
  dpbo_settings_free(&s);
  len += (size_t)snprintf(text + len, cap - len, "one_more = 1\n");
  CHECK_FAILS(dpbo_settings_read_text(&s, "m.ini", text, len, 0, NULL, &err),
              "m.ini:258: more than 256 keys");

  char *assignment = malloc(DPBO_PATH_MAX + 8);
  CHECK(assignment != NULL);
  if (assignment) {
    memcpy(assignment, "a.long=", 7);
    memset(assignment + 7, 'v', DPBO_PATH_MAX - 1);
    assignment[7 + DPBO_PATH_MAX - 1] = '\0';
    const char *const one[] = {assignment};
    CHECK_OK(dpbo_settings_assign(&s, "stored", 1, one, 0, NULL, &err));
    CHECK(s.count == 1 && strlen(s.entry[0].value) == DPBO_PATH_MAX - 1 &&
          strcmp(s.path, "stored") == 0);
    dpbo_settings_free(&s);
    assignment[7 + DPBO_PATH_MAX - 1] = 'v';
    assignment[7 + DPBO_PATH_MAX] = '\0';
    CHECK_FAILS(dpbo_settings_assign(&s, "stored", 1, one, 0, NULL, &err),
                "--set a.long: value too long (4096 characters, at most 4095)");
    free(assignment);
  }
  free(text);
  printf("strict reading: repeated key, NUL byte, 256 keys, value length\n");
}

/* Stored settings (issue #27, item 2): each entry is one (section, key,
 * value) triple, never re-parsed, and every source refuses a control
 * character in a value and a name outside the documented set. */
static void stored_triples(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_settings s, back;
  memset(&s, 0, sizeof s);
  snprintf(s.path, sizeof s.path, "run.h5");
  /* '=' and '.' in a value are text: nothing else is set. */
  CHECK_OK(dpbo_settings_set(&s, "output", "name", "x.y=z", &err));
  CHECK_OK(dpbo_settings_set(&s, "space", "dim.weight-1", "linear\t0 1", &err));
  CHECK(s.count == 2 && s.entry[0].line == DPBO_SETTINGS_STORED &&
        strcmp(s.entry[0].value, "x.y=z") == 0);
  char where[64];
  dpbo_settings_where(&s, &s.entry[0], where, sizeof where);
  CHECK(strcmp(where, "run.h5 (stored output.name)") == 0);
  CHECK_FAILS(dpbo_settings_set(&s, "output", "name", "x\nprivacy.k1=0.99999", &err),
              "run.h5 (stored output.name): the value of output.name holds a newline (character "
              "2): a value is one line of text without control characters (a tab is allowed)");
  CHECK_FAILS(dpbo_settings_set(&s, "output", "name", "x\r", &err),
              "run.h5 (stored output.name): the value of output.name holds a carriage return "
              "(character 2): a value is one line of text without control characters (a tab is "
              "allowed)");
  CHECK_FAILS(dpbo_settings_set(&s, "privacy", "k1=0.5\nx", "1", &err),
              "run.h5 (stored privacy.k1=0.5\\nx): key name 'k1=0.5\\nx' holds '=': a section "
              "name uses only A-Z a-z 0-9 _, a key name only A-Z a-z 0-9 _ . -");
  CHECK_FAILS(dpbo_settings_set(&s, "pri.vacy", "k1", "1", &err),
              "run.h5 (stored pri.vacy.k1): section name 'pri.vacy' holds '.': a section name "
              "uses only A-Z a-z 0-9 _, a key name only A-Z a-z 0-9 _ . -");
  CHECK(s.count == 2);
  /* Packed and unpacked: the same triples. */
  char *packed = NULL;
  size_t size = 0;
  CHECK_OK(dpbo_settings_pack(&s, &packed, &size, &err));
  CHECK_OK(dpbo_settings_unpack(&back, "copy", packed, size, &err));
  CHECK(back.count == 2 && strcmp(back.entry[0].value, "x.y=z") == 0 &&
        strcmp(back.entry[1].key, "dim.weight-1") == 0 && strcmp(back.path, "copy") == 0);
  dpbo_settings_free(&back);
  free(packed);
  /* A --set override is checked the same way. */
  const char *const injected[] = {"output.name=x\nprivacy.k1=0.99999"};
  CHECK_FAILS(dpbo_settings_override(&s, 1, injected, &err),
              "--set output.name: the value of output.name holds a newline (character 2): a "
              "value is one line of text without control characters (a tab is allowed)");
  dpbo_settings_free(&s);
  printf("stored triples: no re-parse, control characters and bad names refused\n");
}

/* Issue #27: a UTF-8 byte order mark before the first line is skipped; a
 * key of the schema written where it does not apply says when it does,
 * instead of "did you mean" itself. */
static void bom_and_applies(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_settings s;
  const char bom[] = "\xef\xbb\xbf[s]\nkind = list\npoints = 5\nfile = x\n";
  CHECK_OK(dpbo_settings_read_text(&s, "b.ini", bom, sizeof bom - 1, 0, NULL, &err));
  static const dpbo_settings_key schema[] = {
      {"s", "kind", "choice", "sobol | list", "sobol", 0, "", "", "the kind", {0}},
      {"s", "points", "integer", ">= 1", NULL, 0, "", "s.kind = sobol", "how many", {0}},
      {"s", "file", "text", "a path", NULL, 0, "", "s.kind = list", "the file", {0}},
      {NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, {0}}};
  s.schema = schema;
  static const char *const kinds[] = {"sobol", "list", NULL};
  int kind = -1;
  char file[16];
  CHECK_OK(dpbo_settings_get_choice(&s, "s", "kind", "sobol", kinds, &kind, &err));
  CHECK(kind == 1);
  CHECK_OK(dpbo_settings_get_string(&s, "s", "file", NULL, file, sizeof file, &err));
  CHECK_FAILS(dpbo_settings_check_used(&s, &err),
              "b.ini:3: s.points applies only with s.kind = sobol (this config has s.kind = "
              "list): remove it");
  dpbo_settings_free(&s);
  printf("byte order mark skipped; a key that does not apply says when it does\n");
}

/* A '#' after whitespace starts a comment in a file value, as the docs'
 * "key = value   # why" lines write it; one without a space before it is
 * part of the value; --set values are taken whole. */
static void inline_comments(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_settings s;
  const char text[] = "[a]\nn = 3   # three\ncmd = /bin/x --fold 3\t# no shell\ntag = a#b\n"
                      "semi = 4 ; inih's own\nhash = #\n";
  const char *const overrides[] = {"a.over=x # y"};
  CHECK_OK(dpbo_settings_read_text(&s, "c.ini", text, sizeof text - 1, 1, overrides, &err));
  const char *const want[][2] = {{"n", "3"},     {"cmd", "/bin/x --fold 3"},
                                 {"tag", "a#b"}, {"semi", "4"},
                                 {"hash", "#"},  {"over", "x # y"}};
  CHECK(s.count == 6);
  for (int i = 0; i < s.count && i < 6; i++)
    CHECK_MSG(strcmp(s.entry[i].key, want[i][0]) == 0 && strcmp(s.entry[i].value, want[i][1]) == 0,
              "entry %d: %s = '%s', expected %s = '%s'", i, s.entry[i].key, s.entry[i].value,
              want[i][0], want[i][1]);
  dpbo_settings_free(&s);
  printf("a '#' after whitespace ends a file value; 'a#b' and --set values are whole\n");
}

/* Rows that read themselves (dpbo_settings_read_rows): each row's default,
 * range and choices, into its field, in the table's order, and only where
 * its "read when" holds. */
typedef struct rows_options {
  double x;
  int n;
  uint64_t seed;
  int mode;
  int64_t points;
  char name[8];
} rows_options;

static void rows_read_themselves(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  static const char *const modes[] = {"a", "b", NULL};
  static const int mode_values[] = {10, 20};
  static const dpbo_settings_key table[] = {
      {"r",
       "x",
       "number",
       "(0, 1]",
       "0.5",
       0,
       "",
       "",
       "x",
       {.kind = DPBO_SETTINGS_DOUBLE,
        .offset = offsetof(rows_options, x),
        .lo = 0,
        .hi = 1,
        .open = DPBO_SETTINGS_OPEN_LO,
        .what = "must be positive",
        .what_hi = "must be <= 1"}},
      {"r",
       "n",
       "integer",
       "1 to 5",
       NULL,
       0,
       "",
       "",
       "n",
       {.kind = DPBO_SETTINGS_INT,
        .offset = offsetof(rows_options, n),
        .ilo = 1,
        .ihi = 5,
        .what = "must be 1 to 5"}},
      {"r",
       "seed",
       "integer",
       "0 to 9",
       "7",
       0,
       "",
       "",
       "seed",
       {.kind = DPBO_SETTINGS_UINT64, .offset = offsetof(rows_options, seed), .ilo = 0, .ihi = 9}},
      {"r",
       "mode",
       "choice",
       "a | b",
       "a",
       0,
       "",
       "",
       "mode",
       {.kind = DPBO_SETTINGS_ENUM,
        .offset = offsetof(rows_options, mode),
        .choices = modes,
        .values = mode_values}},
      {"r",
       "points",
       "integer",
       ">= 1",
       "3",
       0,
       "",
       "r.mode = b",
       "points",
       {.kind = DPBO_SETTINGS_INT64,
        .offset = offsetof(rows_options, points),
        .ilo = 1,
        .ihi = 100}},
      {"r",
       "name",
       "text",
       "short",
       "abc",
       0,
       "",
       "",
       "name",
       {.kind = DPBO_SETTINGS_STRING,
        .offset = offsetof(rows_options, name),
        .size = sizeof(((rows_options *)0)->name)}},
      {"r", "code", "text", "any", "", 0, "", "", "read by code", {0}},
      {NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, {0}}};
  struct {
    const char *text, *expected;
  } cases[] = {
      {"[r]\nn = 2\nmode = b\n", NULL},
      {"[r]\nn = 2\nx = 0\n", "t.ini:3: r.x must be positive"},
      {"[r]\nn = 2\nx = 1.5\n", "t.ini:3: r.x must be <= 1"},
      {"[r]\nn = 6\n", "t.ini:2: r.n must be 1 to 5"},
      {"[r]\nx = 1\n", "t.ini: r.n must be 1 to 5"},
      {"[r]\nn = 2\nseed = 10\n", "t.ini:3: r.seed = 10 is outside [0, 9]"},
      {"[r]\nn = 2\nmode = c\n", "t.ini:3: r.mode = 'c' is not one of: a, b"},
      {"[r]\nn = 2\nmode = b\npoints = 0\n", "t.ini:4: r.points = 0 is outside [1, 100]"},
      {"[r]\nn = 2\nname = toolongname\n", "t.ini:3: value of r.name is too long"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    dpbo_settings s;
    rows_options o;
    memset(&o, 0, sizeof o);
    dpbo_error_clear(&err);
    CHECK_OK(
        dpbo_settings_read_text(&s, "t.ini", cases[i].text, strlen(cases[i].text), 0, NULL, &err));
    s.schema = table;
    if (cases[i].expected) {
      CHECK_FAILS(dpbo_settings_read_rows(&s, table, "r", &o, &err), cases[i].expected);
    } else {
      CHECK_OK(dpbo_settings_read_rows(&s, table, "r", &o, &err));
      CHECK(o.x == 0.5 && o.n == 2 && o.seed == 7 && o.mode == 20 && o.points == 3 &&
            strcmp(o.name, "abc") == 0);
      /* the defaults taken are recorded as the rows write them; the code's
       * row is left to the code */
      CHECK(s.default_count == 4 && dpbo_settings_find(&s, "r", "code") == NULL);
    }
    dpbo_settings_free(&s);
  }
  printf("rows read themselves: defaults, ranges with their messages, choices, read when\n");
}

/* A number whose computed default is NaN ("none") takes it without its
 * range, which a written value still meets; a deferred row is read only
 * where its owner calls dpbo_settings_read_row, after the keys its default
 * rests on (here: r.n). */
typedef struct late_options {
  double label;
  int n;
  double late;
} late_options;

static void late_none_default(const dpbo_settings *settings, const void *options, char *text,
                              size_t size) {
  (void)settings;
  (void)options;
  snprintf(text, size, "nan");
}

static void late_twice_n(const dpbo_settings *settings, const void *options, char *text,
                         size_t size) {
  (void)settings;
  snprintf(text, size, "%d", 2 * ((const late_options *)options)->n);
}

static void rows_none_and_deferred(void) {
  dpbo_error err;
  static const dpbo_settings_key table[] = {
      {"r",
       "label",
       "number",
       "[0, 9]",
       "none",
       1,
       "",
       "",
       "label",
       {.kind = DPBO_SETTINGS_DOUBLE,
        .offset = offsetof(late_options, label),
        .lo = 0,
        .hi = 9,
        .what = "must lie in [0, 9]",
        .computed_default = late_none_default}},
      {"r",
       "late",
       "number",
       "<= 10",
       "2 r.n",
       1,
       "",
       "",
       "late",
       {.kind = DPBO_SETTINGS_DOUBLE,
        .offset = offsetof(late_options, late),
        .lo = 0,
        .hi = 10,
        .what = "must lie in [0, 10]",
        .computed_default = late_twice_n,
        .deferred = 1}},
      {"r",
       "n",
       "integer",
       "1 to 9",
       "1",
       0,
       "",
       "",
       "n",
       {.kind = DPBO_SETTINGS_INT, .offset = offsetof(late_options, n), .ilo = 1, .ihi = 9}},
      {NULL, NULL, NULL, NULL, NULL, 0, NULL, NULL, NULL, {0}}};
  struct {
    const char *text, *expected; /* expected: of read_row (read_rows succeeds) */
    double label, late;
  } cases[] = {
      {"[r]\nn = 3\n", NULL, NAN, 6},
      {"[r]\nlabel = 4\nlate = 1\n", NULL, 4, 1},
      {"[r]\nn = 6\n", "t.ini: r.late must lie in [0, 10]", NAN, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    dpbo_settings s;
    late_options o = {0, 0, -1};
    dpbo_error_clear(&err);
    CHECK_OK(
        dpbo_settings_read_text(&s, "t.ini", cases[i].text, strlen(cases[i].text), 0, NULL, &err));
    s.schema = table;
    CHECK_OK(dpbo_settings_read_rows(&s, table, "r", &o, &err));
    CHECK(o.late == -1); /* deferred: not read with its section */
    if (cases[i].expected) {
      CHECK_FAILS(dpbo_settings_read_row(&s, table, "r", "late", &o, &err), cases[i].expected);
    } else {
      CHECK_OK(dpbo_settings_read_row(&s, table, "r", "late", &o, &err));
      CHECK_MSG(o.late == cases[i].late &&
                    (isnan(cases[i].label) ? isnan(o.label) : o.label == cases[i].label),
                "case %zu: label %g, late %g", i, o.label, o.late);
    }
    dpbo_settings_free(&s);
  }
  {
    const char text[] = "[r]\nlabel = 10\n";
    dpbo_settings s;
    late_options o;
    CHECK_OK(dpbo_settings_read_text(&s, "t.ini", text, sizeof text - 1, 0, NULL, &err));
    s.schema = table;
    CHECK_FAILS(dpbo_settings_read_rows(&s, table, "r", &o, &err),
                "t.ini:2: r.label must lie in [0, 9]");
    dpbo_error_clear(&err);
    CHECK(dpbo_settings_read_row(&s, table, "r", "nothing", &o, &err) == DPBO_ERR_ARG &&
          strstr(err.message, "no row r.nothing"));
    dpbo_settings_free(&s);
  }
  printf("a NaN default means none (no range); a deferred row is read where its owner asks\n");
}

int main(void) {
  text_and_overrides();
  strict_reading();
  stored_triples();
  bom_and_applies();
  inline_comments();
  rows_read_themselves();
  rows_none_and_deferred();
  return dpbo_test_summary("test_settings");
}
