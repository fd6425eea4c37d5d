/* Settings as written: an INI file (read with inih) plus `--set
 * section.key=value` overrides, kept uninterpreted with where each came
 * from (file:line, or the --set option). The modules that own the settings
 * (run/config.c for a run, experiments/k1sweep_config.c for the k1 sweep) take
 * each key with the typed getters, which mark it used, and finally refuse
 * every key nobody took (dpbo_settings_check_used): a typo is an error
 * naming the file and line, never a silent default.
 *
 * The reading is strict: an unknown section (dpbo_settings_check_sections),
 * a key written twice in the file, a NUL byte or a line longer than inih's
 * buffer are errors naming file:line. A --set override replaces the file's
 * value. Messages name the source as "<path>:<line>", "--set
 * <section>.<key>" or "<path> (stored <section>.<key>)".
 *
 * Names and values are checked the same way from every source (file, --set,
 * a run file's stored settings): a section name uses only A-Z a-z 0-9 _, a
 * key name only A-Z a-z 0-9 _ . - (a dim.NAME key carries a dimension
 * name), and a value holds no control character but the tab (no newline,
 * carriage return, NUL or escape), so that no value can pass for another
 * key wherever settings are stored or shown. */
#ifndef DPBO_SETTINGS_H
#define DPBO_SETTINGS_H

#include <stddef.h>
#include <stdint.h>

#include "base/input.h"
#include "dpbo/error.h"

#define DPBO_SETTINGS_SECTION_MAX 64
#define DPBO_SETTINGS_KEY_MAX 128
/* A value holds at most a path. */
#define DPBO_SETTINGS_VALUE_MAX DPBO_PATH_MAX
/* More keys than any config has: a file with more is not a config. */
#define DPBO_SETTINGS_MAX_ENTRIES 256

/* The line of an entry set with dpbo_settings_set (a stored setting). */
#define DPBO_SETTINGS_STORED (-1)

/* One key = value as written (file line, 0 for a --set override, or
 * DPBO_SETTINGS_STORED). */
typedef struct dpbo_settings_entry {
  char section[DPBO_SETTINGS_SECTION_MAX];
  char key[DPBO_SETTINGS_KEY_MAX];
  char *value; /* malloc'd */
  int line;
  int used;
} dpbo_settings_entry;

/* What a row reads into (SUNDIALS' and PETSc's typed key -> setter tables):
 * the kind of its field and where it sits in the owner's options struct,
 * with the accepted range. A row with kind DPBO_SETTINGS_CODE is read by
 * its owner's code; every other row is read by dpbo_settings_read_rows, its
 * default taken from the row's text, or from its `computed` function when
 * the default depends on keys read before it, and a parsed form
 * (DPBO_SETTINGS_PARSED) by its `parse` function. */
typedef enum {
  DPBO_SETTINGS_CODE = 0, /* read by the owner's code, not by the row */
  DPBO_SETTINGS_DOUBLE,   /* double, in [lo, hi] (open ends per `open`) */
  DPBO_SETTINGS_INT,      /* int, in [ilo, ihi] */
  DPBO_SETTINGS_INT64,    /* int64_t, in [ilo, ihi] */
  DPBO_SETTINGS_UINT64,   /* uint64_t, in [ilo, ihi] (ilo >= 0) */
  DPBO_SETTINGS_ENUM,     /* int (an enum): the value of the name in `choices` */
  DPBO_SETTINGS_STRING,   /* char[size] */
  DPBO_SETTINGS_PARSED    /* text of at most size - 1 bytes, set into the options by `parse` */
} dpbo_settings_kind;

struct dpbo_settings;
struct dpbo_settings_key;

/* dpbo_settings_target.open: which ends of [lo, hi] are excluded. */
#define DPBO_SETTINGS_OPEN_LO 1
#define DPBO_SETTINGS_OPEN_HI 2

typedef struct dpbo_settings_target {
  dpbo_settings_kind kind;
  size_t offset;              /* of the field in the options struct */
  size_t size;                /* DPBO_SETTINGS_STRING: the field's size */
  double lo, hi;              /* DPBO_SETTINGS_DOUBLE */
  int open;                   /* DPBO_SETTINGS_OPEN_* */
  int64_t ilo, ihi;           /* the integer kinds */
  const char *what;           /* " <what>" after "section.key" when the value is below
                                 lo (integers: outside; then the whole int64 range is
                                 parsed first); NULL: the getter's "is outside [lo, hi]" */
  const char *what_hi;        /* when above hi (NULL: `what`) */
  const char *missing;        /* a required integer's message when not written (NULL:
                                 "is required") */
  const char *const *choices; /* a choice's names (NULL-terminated), in the getter's order:
                                 the code's own list (e.g. dpbo_space_kind_names), so that
                                 they are written once; a DPBO_SETTINGS_CODE row has them too */
  const int *values;          /* DPBO_SETTINGS_ENUM: each name's value (NULL: its index) */
  /* A computed default (the row's `computed` is 1 and its fallback text
   * describes it): writes the default as text from the settings (e.g. the
   * file's name) and the options read so far (integers in decimal, numbers
   * with 17 digits: read back exactly). NULL: the row's fallback. */
  void (*computed_default)(const struct dpbo_settings *settings, const void *options, char *text,
                           size_t size);
  /* DPBO_SETTINGS_PARSED: sets the options' fields from the value's text
   * (the default's when not written), refusing a malformed one through
   * dpbo_settings_require. */
  dpbo_status (*parse)(struct dpbo_settings *settings, const struct dpbo_settings_key *row,
                       const char *text, void *options, dpbo_error *err);
  /* 1: not read with its section (dpbo_settings_read_rows) but where its
   * owner calls dpbo_settings_read_row, once the keys and checks its default
   * rests on are done (e.g. ucb.delta after [privacy]). */
  int deferred;
} dpbo_settings_target;

/* One key of a schema (the module that owns the settings declares every
 * key it reads, e.g. run/config_keys.c): what `dpbo config --list` prints,
 * and what the typed getters check each call against, so that the list
 * cannot drift from the code. A table ends with a row whose key is NULL. */
typedef struct dpbo_settings_key {
  const char *section;
  const char *key;             /* "dim.NAME": any key starting with "dim." */
  const char *type;            /* the getter: "integer", "number", "choice", "text" */
  const char *values;          /* the range or form accepted; NULL for a choice, whose
                                  names are target.choices (dpbo_settings_key_values) */
  const char *fallback;        /* the default as text; NULL: required */
  int computed;                /* the default depends on other keys: `fallback`
                                  describes it and is not compared */
  const char *unit;            /* "" when none */
  const char *applies;         /* when it is read: "" always, else e.g. "objective.kind = svm" */
  const char *doc;             /* what it does */
  dpbo_settings_target target; /* how the row reads itself (kind 0: by code) */
} dpbo_settings_key;

/* The row's values as `dpbo config --list` shows them: a choice's names
 * joined "a | b | c" into buf (from target.choices), else row->values. */
const char *dpbo_settings_key_values(const dpbo_settings_key *row, char *buf, size_t size);

/* Every entry in the order first written. Plain data: read entry[0..count)
 * directly (e.g. to store them). A copy of the struct shares the entries;
 * only the original is freed. */
typedef struct dpbo_settings {
  char path[DPBO_PATH_MAX]; /* the file, or the label of the assignments */
  int count, capacity;
  dpbo_settings_entry *entry; /* malloc'd, `capacity` long */
  /* Set after reading (NULL: no checks): every getter then refuses a key
   * that is not in the schema, or whose type, choices or default differ
   * from its row (DPBO_ERR_ARG, a programming error naming the row). */
  const dpbo_settings_key *schema;
  /* The keys a getter took its default for, with the value used as text
   * (written entries are in entry[]): together, every key's effective
   * value. */
  int default_count, default_capacity;
  dpbo_settings_entry *defaults; /* malloc'd */
} dpbo_settings;

/* Reads path and then the overrides ("section.key=value") into settings
 * (previous contents are not freed: start from a zeroed struct or after
 * dpbo_settings_free). On failure settings is freed. */
dpbo_status dpbo_settings_read(dpbo_settings *settings, const char *path, int override_count,
                               const char *const *overrides, dpbo_error *err);

/* The same reading of `size` bytes of INI text (fmemopen: the bytes take the
 * file's path), named `label` in messages. */
dpbo_status dpbo_settings_read_text(dpbo_settings *settings, const char *label, const char *text,
                                    size_t size, int override_count, const char *const *overrides,
                                    dpbo_error *err);

/* Settings from "section.key=value" assignments instead of a file (e.g.
 * those stored in a run file), named `label` in messages; overrides are
 * applied after them. On failure settings is freed. */
dpbo_status dpbo_settings_assign(dpbo_settings *settings, const char *label, int count,
                                 const char *const *assignments, int override_count,
                                 const char *const *overrides, dpbo_error *err);

/* Adds (or replaces) the one entry section.key = value as it is, with no
 * parsing: how settings stored as (section, key, value) triples, e.g. a run
 * file's config.* attributes, are read back, so that no value can inject
 * another key. Named "<path> (stored section.key)" in messages; start from a
 * zeroed struct whose path is set. */
dpbo_status dpbo_settings_set(dpbo_settings *settings, const char *section, const char *key,
                              const char *value, dpbo_error *err);

/* Applies "section.key=value" overrides (--set) after the entries. */
dpbo_status dpbo_settings_override(dpbo_settings *settings, int count, const char *const *overrides,
                                   dpbo_error *err);

/* The entries as section, key and value of each in order, every one a
 * NUL-terminated string, in one buffer (malloc'd, *size bytes) for sending
 * to other ranks: no value holds a NUL byte, so none can break the form. */
dpbo_status dpbo_settings_pack(const dpbo_settings *settings, char **packed, size_t *size,
                               dpbo_error *err);

/* Settings named `label` from a packed buffer, each entry through
 * dpbo_settings_set. On failure settings is freed. */
dpbo_status dpbo_settings_unpack(dpbo_settings *settings, const char *label, const char *packed,
                                 size_t size, dpbo_error *err);

/* Releases the entries and zeroes settings (safe on a zeroed struct). */
void dpbo_settings_free(dpbo_settings *settings);

/* Every entry's section must be in `known` (NULL-terminated): "<where>:
 * unknown section [s] (known: a, b, ...)". */
dpbo_status dpbo_settings_check_sections(const dpbo_settings *settings, const char *const *known,
                                         dpbo_error *err);

/* The entry section.key, marked used, or NULL. */
dpbo_settings_entry *dpbo_settings_find(dpbo_settings *settings, const char *section,
                                        const char *key);

/* "<path>:<line>" or "--set <section>.<key>" of an entry; the path alone
 * for e = NULL (a key not written). */
void dpbo_settings_where(const dpbo_settings *settings, const dpbo_settings_entry *e, char *buf,
                         size_t size);

/* The closed interval [min, max] an integer key's value must lie in
 * (dpbo_settings_get_int64). */
typedef struct dpbo_settings_range {
  int64_t min, max;
} dpbo_settings_range;

/* Typed getters: each marks its key used and names file:line or --set in
 * messages. A fallback of NULL (string, choice) or required = 1 (double)
 * makes a key mandatory ("<path>: missing key s.k"). choice sets *out to the
 * index of the value in `choices` (NULL-terminated; the message lists
 * them). */
dpbo_status dpbo_settings_get_string(dpbo_settings *settings, const char *section, const char *key,
                                     const char *fallback, char *out, size_t size, dpbo_error *err);
dpbo_status dpbo_settings_get_double(dpbo_settings *settings, const char *section, const char *key,
                                     double fallback, int required, double *out, dpbo_error *err);
dpbo_status dpbo_settings_get_int64(dpbo_settings *settings, const char *section, const char *key,
                                    int64_t fallback, dpbo_settings_range range, int64_t *out,
                                    dpbo_error *err);
dpbo_status dpbo_settings_get_choice(dpbo_settings *settings, const char *section, const char *key,
                                     const char *fallback, const char *const *choices, int *out,
                                     dpbo_error *err);

/* The schema's row of section.key ("dim.*" rows match any "dim." key), or
 * NULL. */
const dpbo_settings_key *dpbo_settings_schema_row(const dpbo_settings_key *schema,
                                                  const char *section, const char *key);

/* Reads every row of `section` in `table` whose target kind is not
 * DPBO_SETTINGS_CODE, that is not deferred and whose "read when" holds (the
 * rows before it read), in the table's order, into the options struct at
 * `options`: the row's type and default (NULL: required), range and
 * choices, with the typed getters' messages (file:line, key, the allowed
 * values) and the row's `what` for a value out of range. A number's
 * default of NaN (a computed "nan") means none: it is taken without the
 * range, which a written value (always finite) meets. */
dpbo_status dpbo_settings_read_rows(dpbo_settings *settings, const dpbo_settings_key *table,
                                    const char *section, void *options, dpbo_error *err);

/* The same for the one row section.key of `table` (a deferred one, read
 * where its owner's code calls this): nothing when its "read when" does not
 * hold; DPBO_ERR_ARG when the table has no such row. */
dpbo_status dpbo_settings_read_row(dpbo_settings *settings, const dpbo_settings_key *table,
                                   const char *section, const char *key, void *options,
                                   dpbo_error *err);

/* Fails with "<where>: section.key <what>" unless ok. */
dpbo_status dpbo_settings_require(dpbo_settings *settings, const char *section, const char *key,
                                  int ok, const char *what, dpbo_error *err);

/* The first entry no getter took, or NULL. */
const dpbo_settings_entry *dpbo_settings_unused(const dpbo_settings *settings);

/* Everything written must have been used: "<where>: unknown key 'k' in
 * [s]". */
dpbo_status dpbo_settings_check_used(const dpbo_settings *settings, dpbo_error *err);

#endif
