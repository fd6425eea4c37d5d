#define _POSIX_C_SOURCE 200809L /* fmemopen, strdup */

#include "base/settings.h"

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

typedef struct settings_reader {
  FILE *file;
  int line;
  int too_long; /* first line that did not fit inih's buffer */
  int nul;      /* the line holding a NUL byte (reading stops there) */
} settings_reader;

/* fgets for inih, one byte at a time so that a NUL byte is seen: fgets
 * would hand inih the text before it and silently drop the rest. */
static char *settings_read_line(char *str, int num, void *stream) {
  settings_reader *reader = stream;
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
  if (reader->line == 1) { /* a UTF-8 byte order mark, whether or not inih skips it */
    size_t bom = dpbo_input_bom(str, (size_t)len);
    memmove(str, str + bom, (size_t)len - bom + 1);
  }
  return str;
}

typedef struct settings_parse {
  dpbo_settings *settings;
  settings_reader *reader;
  dpbo_status status;
  dpbo_error *err;
} settings_parse;

/* A character for a message: 'c' when printable, else its escape or byte
 * ("newline", "byte 0x1b"). */
static void settings_describe_char(unsigned char c, char *buf, size_t size) {
  if (c == '\n')
    snprintf(buf, size, "a newline");
  else if (c == '\r')
    snprintf(buf, size, "a carriage return");
  else if (c == '\t')
    snprintf(buf, size, "a tab");
  else if (c < 0x20 || c >= 0x7f)
    snprintf(buf, size, "byte 0x%02x", c);
  else
    snprintf(buf, size, "'%c'", c);
}

/* s with every byte outside printable ASCII escaped (\n, \x1b), cut to
 * size: a name or value quoted in a message cannot start a line of its own. */
static void settings_escape(const char *s, char *buf, size_t size) {
  size_t used = 0;
  for (; *s && used + 5 < size; s++) {
    const unsigned char c = (unsigned char)*s;
    if (c == '\n')
      used += (size_t)snprintf(buf + used, size - used, "\\n");
    else if (c < 0x20 || c >= 0x7f)
      used += (size_t)snprintf(buf + used, size - used, "\\x%02x", c);
    else
      buf[used++] = (char)c;
  }
  buf[used] = '\0';
}

/* The first character of a section or key name outside the documented set
 * (settings.h), or NULL. */
static const char *settings_bad_name(const char *name, int is_key) {
  for (const char *p = name; *p; p++) {
    const unsigned char c = (unsigned char)*p;
    if (!(isalnum(c) && c < 0x80) && c != '_' && !(is_key && (c == '.' || c == '-'))) return p;
  }
  return NULL;
}

/* The first control character of a value but the tab (settings.h), or NULL. */
static const char *settings_bad_value(const char *value) {
  for (const char *p = value; *p; p++) {
    const unsigned char c = (unsigned char)*p;
    if ((c < 0x20 && c != '\t') || c == 0x7f) return p;
  }
  return NULL;
}

/* Adds or replaces section.key = value; line > 0 is the file's line, 0 a
 * --set override, DPBO_SETTINGS_STORED a stored setting. Every source goes
 * through the same checks of names and values. */
static dpbo_status settings_add(dpbo_settings *settings, const char *section, const char *key,
                                const char *value, int line, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char *copy = NULL;
  /* Messages name the file and line, the --set option (line 0) or the
   * stored setting, with the names escaped (they are not checked yet). */
  char where[DPBO_PATH_MAX + 256], s_text[80], k_text[80], what[32];
  settings_escape(section, s_text, sizeof s_text);
  settings_escape(key, k_text, sizeof k_text);
  if (line > 0)
    snprintf(where, sizeof where, "%s:%d", settings->path, line);
  else if (line == 0)
    snprintf(where, sizeof where, "--set %.40s.%.60s", s_text, k_text);
  else
    snprintf(where, sizeof where, "%s (stored %.40s.%.60s)", settings->path, s_text, k_text);
  if (strlen(section) >= DPBO_SETTINGS_SECTION_MAX || strlen(key) >= DPBO_SETTINGS_KEY_MAX)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: section or key too long (at most %zu and %zu characters)",
               where, (size_t)DPBO_SETTINGS_SECTION_MAX - 1, (size_t)DPBO_SETTINGS_KEY_MAX - 1);
  const char *bad_section = settings_bad_name(section, 0), *bad_key = settings_bad_name(key, 1);
  if (!section[0] || !key[0] || bad_section || bad_key) {
    const char *bad = bad_section ? bad_section : bad_key;
    if (bad) settings_describe_char((unsigned char)*bad, what, sizeof what);
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: %s name '%s' %s%s: a section name uses only A-Z a-z 0-9 _, a key name "
               "only A-Z a-z 0-9 _ . -",
               where, bad_section || !section[0] ? "section" : "key",
               bad_section || !section[0] ? s_text : k_text, bad ? "holds " : "is empty",
               bad ? what : "");
  }
  if (strlen(value) >= DPBO_SETTINGS_VALUE_MAX)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: value too long (%zu characters, at most %zu)", where,
               strlen(value), (size_t)DPBO_SETTINGS_VALUE_MAX - 1);
  /* A config file's line cannot hold a newline, but --set and a stored
   * setting can: no value may carry one, nor any other control character,
   * so that a value is always one line of text wherever it is shown. */
  const char *bad_value = settings_bad_value(value);
  if (bad_value) {
    settings_describe_char((unsigned char)*bad_value, what, sizeof what);
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: the value of %s.%s holds %s (character %zu): a value is one line of text "
               "without control characters (a tab is allowed)",
               where, s_text, k_text, what, (size_t)(bad_value - value) + 1);
  }
  copy = strdup(value);
  if (!copy) DPBO_RAISE(DPBO_ERR_NOMEM, "%s: out of memory storing the value", where);
  /* A --set override (line 0) replaces the file's value; a key written twice
   * in the file is almost always a mistake. */
  for (int i = 0; i < settings->count; i++) {
    dpbo_settings_entry *e = &settings->entry[i];
    if (strcmp(e->section, section) == 0 && strcmp(e->key, key) == 0) {
      if (line > 0)
        DPBO_RAISE(DPBO_ERR_CONFIG, "%s: key %s.%s repeats line %d", where, section, key, e->line);
      free(e->value);
      e->value = copy;
      copy = NULL;
      e->line = line;
      goto done;
    }
  }
  if (settings->count >= DPBO_SETTINGS_MAX_ENTRIES)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: more than %d keys", where, DPBO_SETTINGS_MAX_ENTRIES);
  if (settings->count == settings->capacity) {
    /* Doubling from 16 reaches the limit of 256 in a few steps. */
    int capacity = settings->capacity ? 2 * settings->capacity : 16;
    dpbo_settings_entry *grown = realloc(settings->entry, (size_t)capacity * sizeof *grown);
    if (!grown) DPBO_RAISE(DPBO_ERR_NOMEM, "%s: out of memory storing the settings", where);
    settings->entry = grown;
    settings->capacity = capacity;
  }
  dpbo_settings_entry *e = &settings->entry[settings->count++];
  memset(e, 0, sizeof *e);
  snprintf(e->section, sizeof e->section, "%s", section);
  snprintf(e->key, sizeof e->key, "%s", key);
  e->value = copy;
  copy = NULL;
  e->line = line;
done:
  free(copy);
  return status;
}

/* The length of a file value without its inline comment. inih ends a value
 * at a ';' after whitespace; a '#' after whitespace ends it too, because
 * the docs and most INI files write "key = value   # why", and a '#' kept
 * silently would become part of a command line or a name. A '#' with no
 * space before it ("a#b") stays part of the value. */
static size_t settings_value_length(const char *value) {
  size_t n = strlen(value);
  for (size_t i = 1; i < n; i++)
    if (value[i] == '#' && (value[i - 1] == ' ' || value[i - 1] == '\t')) {
      n = i;
      break;
    }
  while (n > 0 && (value[n - 1] == ' ' || value[n - 1] == '\t'))
    n--;
  return n;
}

static int settings_handler(void *user, const char *section, const char *name, const char *value) {
  settings_parse *parse = user;
  if (parse->status != DPBO_OK) return 0;
  const size_t n = settings_value_length(value);
  char *trimmed = strndup(value, n);
  if (!trimmed) {
    parse->status = DPBO_ERROR_SET(parse->err, DPBO_ERR_NOMEM, "%s:%d: out of memory",
                                   parse->settings->path, parse->reader->line);
    return 0;
  }
  parse->status =
      settings_add(parse->settings, section, name, trimmed, parse->reader->line, parse->err);
  free(trimmed);
  return parse->status == DPBO_OK;
}

/* "section.key=value" strings, each replacing or adding one entry (line 0). */
static dpbo_status settings_apply(dpbo_settings *settings, int count,
                                  const char *const *assignments, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  for (int i = 0; i < count; i++) {
    const char *text = assignments[i];
    const char *dot = strchr(text, '.');
    const char *eq = strchr(text, '=');
    if (!dot || !eq || dot > eq || dot == text || eq == dot + 1)
      DPBO_RAISE(DPBO_ERR_USAGE, "--set '%s': expected section.key=value", text);
    char section[DPBO_SETTINGS_SECTION_MAX], key[DPBO_SETTINGS_KEY_MAX];
    if ((size_t)(dot - text) >= sizeof section || (size_t)(eq - dot - 1) >= sizeof key)
      DPBO_RAISE(DPBO_ERR_USAGE, "--set '%s': section or key too long", text);
    snprintf(section, sizeof section, "%.*s", (int)(dot - text), text);
    snprintf(key, sizeof key, "%.*s", (int)(eq - dot - 1), dot + 1);
    DPBO_TRY(settings_add(settings, section, key, eq + 1, 0, err));
  }
done:
  return status;
}

dpbo_status dpbo_settings_set(dpbo_settings *settings, const char *section, const char *key,
                              const char *value, dpbo_error *err) {
  return settings_add(settings, section, key, value, DPBO_SETTINGS_STORED, err);
}

dpbo_status dpbo_settings_override(dpbo_settings *settings, int count, const char *const *overrides,
                                   dpbo_error *err) {
  return settings_apply(settings, count, overrides, err);
}

dpbo_status dpbo_settings_pack(const dpbo_settings *settings, char **packed, size_t *size,
                               dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  size_t need = 1, used = 0;
  char *buf = NULL;
  *packed = NULL;
  *size = 0;
  for (int i = 0; i < settings->count; i++)
    need += strlen(settings->entry[i].section) + strlen(settings->entry[i].key) +
            strlen(settings->entry[i].value) + 3;
  DPBO_ALLOC(buf, need, "the packed settings");
  for (int i = 0; i < settings->count; i++) {
    const char *parts[3] = {settings->entry[i].section, settings->entry[i].key,
                            settings->entry[i].value};
    for (int j = 0; j < 3; j++) {
      const size_t len = strlen(parts[j]) + 1;
      memcpy(buf + used, parts[j], len);
      used += len;
    }
  }
  *packed = buf;
  *size = used;
done:
  return status;
}

dpbo_status dpbo_settings_unpack(dpbo_settings *settings, const char *label, const char *packed,
                                 size_t size, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(settings, 0, sizeof *settings);
  snprintf(settings->path, sizeof settings->path, "%s", label);
  for (size_t at = 0; at < size;) {
    const char *parts[3];
    for (int j = 0; j < 3; j++) {
      const char *end = memchr(packed + at, '\0', size - at);
      if (!end) DPBO_RAISE(DPBO_ERR_ARG, "%s: the packed settings are cut short", label);
      parts[j] = packed + at;
      at = (size_t)(end - packed) + 1;
      if (j < 2 && at >= size)
        DPBO_RAISE(DPBO_ERR_ARG, "%s: the packed settings are cut short", label);
    }
    DPBO_TRY(dpbo_settings_set(settings, parts[0], parts[1], parts[2], err));
  }
done:
  if (status != DPBO_OK) dpbo_settings_free(settings);
  return status;
}

/* Reads the file and the overrides, uninterpreted. With `stream` (closed
 * here in any case) the text comes from there and path only names it in
 * messages. */
static dpbo_status settings_read_stream(dpbo_settings *settings, const char *path, FILE *stream,
                                        int override_count, const char *const *overrides,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  settings_reader reader = {stream, 0, 0, 0};
  int fd = -1;
  memset(settings, 0, sizeof *settings);
  if (strlen(path) >= sizeof settings->path) DPBO_RAISE(DPBO_ERR_CONFIG, "config path is too long");
  snprintf(settings->path, sizeof settings->path, "%s", path);

  if (!reader.file) {
    DPBO_TRY(dpbo_input_open(path, "config file", &fd, err));
    reader.file = fdopen(fd, "r");
    if (!reader.file)
      DPBO_RAISE(DPBO_ERR_IO, "cannot read config file %s: %s", path, strerror(errno));
    fd = -1; /* the stream owns it */
  }
  settings_parse parse = {settings, &reader, DPBO_OK, err};
  int rc = ini_parse_stream(settings_read_line, &reader, settings_handler, &parse);
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

  DPBO_TRY(settings_apply(settings, override_count, overrides, err));
done:
  if (reader.file) fclose(reader.file);
  if (fd >= 0) close(fd);
  if (status != DPBO_OK) dpbo_settings_free(settings);
  return status;
}

dpbo_status dpbo_settings_read(dpbo_settings *settings, const char *path, int override_count,
                               const char *const *overrides, dpbo_error *err) {
  return settings_read_stream(settings, path, NULL, override_count, overrides, err);
}

/* The text is read through a stdio stream on the buffer (fmemopen), so the
 * bytes take the same fgets/inih path as a file's. */
dpbo_status dpbo_settings_read_text(dpbo_settings *settings, const char *label, const char *text,
                                    size_t size, int override_count, const char *const *overrides,
                                    dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  static const char empty[1] = "";
  memset(settings, 0, sizeof *settings);
  /* fmemopen refuses a NULL buffer; an empty text is an empty config. */
  FILE *stream = fmemopen((void *)(size ? text : empty), size, "r");
  if (!stream)
    DPBO_RAISE(DPBO_ERR_IO, "%s: cannot open the config text: %s", label, strerror(errno));
  DPBO_TRY(settings_read_stream(settings, label, stream, override_count, overrides, err));
done:
  return status;
}

dpbo_status dpbo_settings_assign(dpbo_settings *settings, const char *label, int count,
                                 const char *const *assignments, int override_count,
                                 const char *const *overrides, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(settings, 0, sizeof *settings);
  snprintf(settings->path, sizeof settings->path, "%s", label);
  DPBO_TRY(settings_apply(settings, count, assignments, err));
  DPBO_TRY(settings_apply(settings, override_count, overrides, err));
done:
  if (status != DPBO_OK) dpbo_settings_free(settings);
  return status;
}

void dpbo_settings_free(dpbo_settings *settings) {
  if (!settings) return;
  for (int i = 0; i < settings->count; i++)
    free(settings->entry[i].value);
  free(settings->entry);
  for (int i = 0; i < settings->default_count; i++)
    free(settings->defaults[i].value);
  free(settings->defaults);
  memset(settings, 0, sizeof *settings);
}

dpbo_status dpbo_settings_check_sections(const dpbo_settings *settings, const char *const *known,
                                         dpbo_error *err) {
  for (int i = 0; i < settings->count; i++) {
    int found = 0;
    for (int s = 0; known[s]; s++)
      found |= strcmp(settings->entry[i].section, known[s]) == 0;
    if (found) continue;
    char where[DPBO_PATH_MAX + 32], list[256] = "";
    for (int s = 0; known[s]; s++) {
      size_t len = strlen(list);
      snprintf(list + len, sizeof list - len, "%s%s", s ? ", " : "", known[s]);
    }
    dpbo_settings_where(settings, &settings->entry[i], where, sizeof where);
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: unknown section [%s] (known: %s)", where,
                          settings->entry[i].section, list);
  }
  return DPBO_OK;
}

/* ---------------------------------------------------------------------------
 * Typed lookups. Each marks its entry used. */

void dpbo_settings_where(const dpbo_settings *settings, const dpbo_settings_entry *e, char *buf,
                         size_t size) {
  if (!e)
    snprintf(buf, size, "%s", settings->path);
  else if (e->line > 0)
    snprintf(buf, size, "%s:%d", settings->path, e->line);
  else if (e->line == DPBO_SETTINGS_STORED)
    snprintf(buf, size, "%s (stored %s.%s)", settings->path, e->section, e->key);
  else
    snprintf(buf, size, "--set %s.%s", e->section, e->key);
}

dpbo_settings_entry *dpbo_settings_find(dpbo_settings *settings, const char *section,
                                        const char *key) {
  for (int i = 0; i < settings->count; i++) {
    dpbo_settings_entry *e = &settings->entry[i];
    if (strcmp(e->section, section) == 0 && strcmp(e->key, key) == 0) {
      e->used = 1;
      return e;
    }
  }
  return NULL;
}

/* ---------------------------------------------------------------------------
 * The schema: every getter call is checked against its key's row, and the
 * defaults it takes are recorded (the effective values). */

const dpbo_settings_key *dpbo_settings_schema_row(const dpbo_settings_key *schema,
                                                  const char *section, const char *key) {
  for (const dpbo_settings_key *row = schema; row && row->key; row++) {
    if (strcmp(row->section, section) != 0) continue;
    if (strcmp(row->key, key) == 0 ||
        (strcmp(row->key, "dim.NAME") == 0 && strncmp(key, "dim.", 4) == 0))
      return row;
  }
  return NULL;
}

/* The row of a getter's key, which must exist with the getter's type (*row
 * NULL without a schema). A failure is the code's, not the user's: the
 * message says which row to fix. */
static dpbo_status settings_schema_row(const dpbo_settings *settings, const char *section,
                                       const char *key, const char *type,
                                       const dpbo_settings_key **row, dpbo_error *err) {
  *row = NULL;
  if (!settings->schema) return DPBO_OK;
  *row = dpbo_settings_schema_row(settings->schema, section, key);
  if (!*row)
    return DPBO_ERROR_SET(err, DPBO_ERR_ARG,
                          "key table: the code reads %s.%s (type %s), which has no row in the "
                          "key table; add one (src/run/config_keys.c, or the command's own "
                          "table) and regenerate docs/config.md",
                          section, key, type);
  if (strcmp((*row)->type, type) != 0)
    return DPBO_ERROR_SET(err, DPBO_ERR_ARG,
                          "key table: the code reads %s.%s as a %s, its row says %s", section, key,
                          type, (*row)->type);
  return DPBO_OK;
}

/* The code's default (NULL: required) against the row's, as text. */
static dpbo_status settings_schema_default(const dpbo_settings_key *row, const char *code, int same,
                                           dpbo_error *err) {
  if (!row || row->computed) return DPBO_OK;
  if (same && (code == NULL) == (row->fallback == NULL)) return DPBO_OK;
  return DPBO_ERROR_SET(err, DPBO_ERR_ARG,
                        "key table: the default of %s.%s is '%s' in the code and '%s' in its row",
                        row->section, row->key, code ? code : "(required)",
                        row->fallback ? row->fallback : "(required)");
}

/* The shortest text that reads back as v (whole numbers without an
 * exponent: 100, not 1e+02). */
static void settings_format_double(double v, char *buf, size_t size) {
  if (v == floor(v) && fabs(v) < 1e15) {
    snprintf(buf, size, "%.0f", v);
    return;
  }
  for (int digits = 1; digits <= 17; digits++) {
    snprintf(buf, size, "%.*g", digits, v);
    if (strtod(buf, NULL) == v) return;
  }
}

/* Records that section.key took its default `value`. */
static dpbo_status settings_note_default(dpbo_settings *settings, const char *section,
                                         const char *key, const char *value, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char *copy = strdup(value);
  if (!copy)
    DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory recording the default of %s.%s", section, key);
  for (int i = 0; i < settings->default_count; i++) {
    dpbo_settings_entry *e = &settings->defaults[i];
    if (strcmp(e->section, section) == 0 && strcmp(e->key, key) == 0) {
      free(e->value);
      e->value = copy;
      copy = NULL;
      goto done;
    }
  }
  if (settings->default_count == settings->default_capacity) {
    int capacity = settings->default_capacity ? 2 * settings->default_capacity : 32;
    dpbo_settings_entry *grown = realloc(settings->defaults, (size_t)capacity * sizeof *grown);
    if (!grown)
      DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory recording the default of %s.%s", section, key);
    settings->defaults = grown;
    settings->default_capacity = capacity;
  }
  dpbo_settings_entry *e = &settings->defaults[settings->default_count++];
  memset(e, 0, sizeof *e);
  snprintf(e->section, sizeof e->section, "%s", section);
  snprintf(e->key, sizeof e->key, "%s", key);
  e->value = copy;
  e->used = 1;
  copy = NULL;
done:
  free(copy);
  return status;
}

/* The edit distance of a and b (insertions, deletions, substitutions and
 * swaps of neighbours count 1), or more than `limit` once it exceeds it. */
static int settings_distance(const char *a, const char *b, int limit) {
  const int n = (int)strlen(a), m = (int)strlen(b);
  if (n > 64 || m > 64 || abs(n - m) > limit) return limit + 1;
  int d[65][65];
  for (int i = 0; i <= n; i++)
    d[i][0] = i;
  for (int j = 0; j <= m; j++)
    d[0][j] = j;
  for (int i = 1; i <= n; i++)
    for (int j = 1; j <= m; j++) {
      int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
          d[i - 2][j - 2] + 1 < best)
        best = d[i - 2][j - 2] + 1;
      d[i][j] = best;
    }
  return d[n][m];
}

/* A key the settings need but do not have: when an unused key of the same
 * section is a near miss of it ("iteratons" for "iterations", "dta" for
 * "data"), that key is named as the mistake, with its line; otherwise the
 * key is missing. */
static dpbo_status settings_missing(const dpbo_settings *settings, const char *section,
                                    const char *key, const char *what, dpbo_error *err) {
  const dpbo_settings_entry *near = NULL;
  int near_distance = 3; /* at most 2 edits, and fewer than half the key */
  for (int i = 0; i < settings->count; i++) {
    const dpbo_settings_entry *e = &settings->entry[i];
    if (e->used || strcmp(e->section, section) != 0) continue;
    int distance = settings_distance(e->key, key, 2);
    if (distance < near_distance && 2 * distance < (int)strlen(key)) {
      near = e;
      near_distance = distance;
    }
  }
  if (near) {
    char where[DPBO_PATH_MAX + 32];
    dpbo_settings_where(settings, near, where, sizeof where);
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: unknown key '%s' in [%s]; did you mean '%s'?",
                          where, near->key, section, key);
  }
  if (what)
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: %s.%s %s", settings->path, section, key, what);
  return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: missing key %s.%s", settings->path, section,
                        key);
}

/* The value of section.key as written (its entry in *entry), else the
 * fallback (*entry NULL); neither is "missing key", an error. */
static dpbo_status settings_value(dpbo_settings *settings, const char *section, const char *key,
                                  const char *fallback, dpbo_settings_entry **entry,
                                  const char **value, dpbo_error *err) {
  *entry = dpbo_settings_find(settings, section, key);
  *value = *entry ? (*entry)->value : fallback;
  if (!*value) return settings_missing(settings, section, key, NULL, err);
  return DPBO_OK;
}

dpbo_status dpbo_settings_get_string(dpbo_settings *settings, const char *section, const char *key,
                                     const char *fallback, char *out, size_t size,
                                     dpbo_error *err) {
  dpbo_settings_entry *e = NULL;
  const char *value = NULL;
  const dpbo_settings_key *row;
  dpbo_status status = settings_schema_row(settings, section, key, "text", &row, err);
  if (status == DPBO_OK)
    status = settings_schema_default(
        row, fallback, !row || !fallback || !row->fallback || !strcmp(fallback, row->fallback),
        err);
  if (status == DPBO_OK) status = settings_value(settings, section, key, fallback, &e, &value, err);
  if (status != DPBO_OK) return status;
  if (!e && (status = settings_note_default(settings, section, key, value, err)) != DPBO_OK)
    return status;
  if (strlen(value) >= size) {
    char where[DPBO_PATH_MAX + 32];
    dpbo_settings_where(settings, e, where, sizeof where);
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: value of %s.%s is too long", where, section,
                          key);
  }
  snprintf(out, size, "%s", value);
  return DPBO_OK;
}

dpbo_status dpbo_settings_get_double(dpbo_settings *settings, const char *section, const char *key,
                                     double fallback, int required, double *out, dpbo_error *err) {
  const dpbo_settings_key *row;
  char text[32];
  settings_format_double(fallback, text, sizeof text);
  dpbo_status status = settings_schema_row(settings, section, key, "number", &row, err);
  if (status == DPBO_OK && row && row->fallback && !required) {
    const double table = strtod(row->fallback, NULL);
    status = settings_schema_default(row, text,
                                     table == fallback || (isnan(table) && isnan(fallback)), err);
  } else if (status == DPBO_OK) {
    status = settings_schema_default(row, required ? NULL : text, 1, err);
  }
  if (status != DPBO_OK) return status;
  dpbo_settings_entry *e = dpbo_settings_find(settings, section, key);
  if (!e) {
    if (required) return settings_missing(settings, section, key, NULL, err);
    *out = fallback;
    return settings_note_default(settings, section, key, text, err);
  }
  char *end;
  errno = 0;
  double v = strtod(e->value, &end);
  while (*end == ' ' || *end == '\t')
    end++;
  if (end == e->value || *end != '\0' || errno == ERANGE || !isfinite(v)) {
    char where[DPBO_PATH_MAX + 32];
    dpbo_settings_where(settings, e, where, sizeof where);
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: %s.%s = '%s' is not a finite number", where,
                          section, key, e->value);
  }
  *out = v;
  return DPBO_OK;
}

dpbo_status dpbo_settings_get_int64(dpbo_settings *settings, const char *section, const char *key,
                                    int64_t fallback, dpbo_settings_range range, int64_t *out,
                                    dpbo_error *err) {
  const int64_t min = range.min, max = range.max;
  const dpbo_settings_key *row;
  char text[32];
  snprintf(text, sizeof text, "%lld", (long long)fallback);
  dpbo_status status = settings_schema_row(settings, section, key, "integer", &row, err);
  /* A required integer's getter has a placeholder default, refused later. */
  const int required = row && !row->fallback;
  if (status == DPBO_OK && !required)
    status = settings_schema_default(row, text,
                                     !row || strtoll(row->fallback, NULL, 10) == fallback, err);
  if (status != DPBO_OK) return status;
  dpbo_settings_entry *e = dpbo_settings_find(settings, section, key);
  if (!e) {
    *out = fallback;
    return required ? DPBO_OK : settings_note_default(settings, section, key, text, err);
  }
  char where[DPBO_PATH_MAX + 32];
  dpbo_settings_where(settings, e, where, sizeof where);
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

const char *dpbo_settings_key_values(const dpbo_settings_key *row, char *buf, size_t size) {
  const char *const *names = row->target.choices;
  if (!names) return row->values ? row->values : "";
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; names[i] && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s", i ? " | " : "", names[i]);
  return buf;
}

dpbo_status dpbo_settings_get_choice(dpbo_settings *settings, const char *section, const char *key,
                                     const char *fallback, const char *const *choices, int *out,
                                     dpbo_error *err) {
  dpbo_settings_entry *e = NULL;
  const char *value = NULL;
  const dpbo_settings_key *row;
  dpbo_status status = settings_schema_row(settings, section, key, "choice", &row, err);
  if (status == DPBO_OK)
    status = settings_schema_default(
        row, fallback, !row || !fallback || !row->fallback || !strcmp(fallback, row->fallback),
        err);
  if (status == DPBO_OK && row) {
    /* The row lists the choices in the getter's order. */
    char joined[512] = "", listed[512];
    for (int i = 0; choices[i]; i++) {
      size_t len = strlen(joined);
      snprintf(joined + len, sizeof joined - len, "%s%s", i ? " | " : "", choices[i]);
    }
    const char *row_values = dpbo_settings_key_values(row, listed, sizeof listed);
    if (strcmp(joined, row_values) != 0)
      return DPBO_ERROR_SET(err, DPBO_ERR_ARG,
                            "key table: the choices of %s.%s are '%s' in the code and '%s' in "
                            "its row",
                            section, key, joined, row_values);
  }
  if (status == DPBO_OK) status = settings_value(settings, section, key, fallback, &e, &value, err);
  if (status != DPBO_OK) return status;
  char list[512] = "";
  for (int i = 0; choices[i]; i++) {
    if (strcmp(value, choices[i]) == 0) {
      *out = i;
      return e ? DPBO_OK : settings_note_default(settings, section, key, value, err);
    }
    size_t len = strlen(list);
    snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", choices[i]);
  }
  char where[DPBO_PATH_MAX + 32];
  dpbo_settings_where(settings, e, where, sizeof where);
  return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: %s.%s = '%s' is not one of: %s", where, section,
                        key, value, list);
}

/* ---------------------------------------------------------------------------
 * Rows that read themselves: the row's default, range and choices go to the
 * typed getters above (whose schema check then compares the row with
 * itself), and the value into the owner's field. */

/* One row into its field at `options`. */
static dpbo_status settings_read_row(dpbo_settings *settings, const dpbo_settings_key *row,
                                     char *options, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_settings_target *t = &row->target;
  void *field = options + t->offset;
  char computed[DPBO_SETTINGS_VALUE_MAX];
  const char *fallback = row->fallback;
  if (t->computed_default) {
    t->computed_default(settings, options, computed, sizeof computed);
    fallback = computed;
  }
  switch (t->kind) {
  case DPBO_SETTINGS_DOUBLE: {
    double v = 0.0;
    DPBO_TRY(dpbo_settings_get_double(settings, row->section, row->key,
                                      fallback ? strtod(fallback, NULL) : 0.0, !fallback, &v, err));
    if (isnan(v)) { /* a default of none (settings.h): a written value is finite */
      *(double *)field = v;
      break;
    }
    const int above_lo = (t->open & DPBO_SETTINGS_OPEN_LO) ? v > t->lo : v >= t->lo;
    const int below_hi = (t->open & DPBO_SETTINGS_OPEN_HI) ? v < t->hi : v <= t->hi;
    DPBO_TRY(dpbo_settings_require(settings, row->section, row->key, above_lo, t->what, err));
    DPBO_TRY(dpbo_settings_require(settings, row->section, row->key, below_hi,
                                   t->what_hi ? t->what_hi : t->what, err));
    *(double *)field = v;
    break;
  }
  case DPBO_SETTINGS_INT:
  case DPBO_SETTINGS_INT64:
  case DPBO_SETTINGS_UINT64: {
    /* With a message of its own the range is the row's check; else the
     * getter's ("is outside [lo, hi]"). A required integer's getter takes a
     * placeholder below the range, refused by the check. */
    int64_t v = 0;
    const int64_t fallback_value = fallback ? strtoll(fallback, NULL, 10) : 0;
    DPBO_TRY(dpbo_settings_get_int64(
        settings, row->section, row->key, fallback_value,
        (dpbo_settings_range){t->what ? INT64_MIN : t->ilo, t->what ? INT64_MAX : t->ihi}, &v,
        err));
    if (t->what)
      DPBO_TRY(dpbo_settings_require(settings, row->section, row->key, v >= t->ilo && v <= t->ihi,
                                     t->what, err));
    else if (!fallback)
      DPBO_TRY(dpbo_settings_require(settings, row->section, row->key,
                                     dpbo_settings_find(settings, row->section, row->key) != NULL,
                                     t->missing ? t->missing : "is required", err));
    if (t->kind == DPBO_SETTINGS_INT)
      *(int *)field = (int)v;
    else if (t->kind == DPBO_SETTINGS_INT64)
      *(int64_t *)field = v;
    else
      *(uint64_t *)field = (uint64_t)v;
    break;
  }
  case DPBO_SETTINGS_ENUM: {
    int choice = 0;
    DPBO_TRY(dpbo_settings_get_choice(settings, row->section, row->key, fallback, t->choices,
                                      &choice, err));
    *(int *)field = t->values ? t->values[choice] : choice;
    break;
  }
  case DPBO_SETTINGS_STRING:
    DPBO_TRY(dpbo_settings_get_string(settings, row->section, row->key, fallback, (char *)field,
                                      t->size, err));
    break;
  case DPBO_SETTINGS_PARSED: {
    char text[DPBO_SETTINGS_VALUE_MAX];
    DPBO_TRY(dpbo_settings_get_string(settings, row->section, row->key, fallback, text,
                                      t->size && t->size < sizeof text ? t->size : sizeof text,
                                      err));
    DPBO_TRY(t->parse(settings, row, text, options, err));
    break;
  }
  case DPBO_SETTINGS_CODE:
    break;
  }
done:
  return status;
}

/* Whether a row's "read when" ("" always, else "section.key = a, b") holds
 * for the value section.key has now (written, or its default taken). */
static int settings_row_applies(const dpbo_settings *settings, const dpbo_settings_key *row) {
  char section[DPBO_SETTINGS_SECTION_MAX], key[DPBO_SETTINGS_KEY_MAX], values[256];
  if (!row->applies[0]) return 1;
  if (sscanf(row->applies, "%63[^.].%127[^ =] = %255[^\n]", section, key, values) != 3) return 0;
  const char *value = NULL;
  for (int i = 0; i < settings->count && !value; i++)
    if (!strcmp(settings->entry[i].section, section) && !strcmp(settings->entry[i].key, key))
      value = settings->entry[i].value;
  for (int i = 0; i < settings->default_count && !value; i++)
    if (!strcmp(settings->defaults[i].section, section) && !strcmp(settings->defaults[i].key, key))
      value = settings->defaults[i].value;
  if (!value) return 0;
  for (char *save = NULL, *v = strtok_r(values, ", ", &save); v; v = strtok_r(NULL, ", ", &save))
    if (strcmp(v, value) == 0) return 1;
  return 0;
}

dpbo_status dpbo_settings_read_rows(dpbo_settings *settings, const dpbo_settings_key *table,
                                    const char *section, void *options, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  for (const dpbo_settings_key *row = table; row->key; row++)
    if (row->target.kind != DPBO_SETTINGS_CODE && !row->target.deferred &&
        strcmp(row->section, section) == 0 && settings_row_applies(settings, row))
      DPBO_TRY(settings_read_row(settings, row, (char *)options, err));
done:
  return status;
}

dpbo_status dpbo_settings_read_row(dpbo_settings *settings, const dpbo_settings_key *table,
                                   const char *section, const char *key, void *options,
                                   dpbo_error *err) {
  for (const dpbo_settings_key *row = table; row->key; row++)
    if (strcmp(row->section, section) == 0 && strcmp(row->key, key) == 0)
      return row->target.kind == DPBO_SETTINGS_CODE || !settings_row_applies(settings, row)
                 ? DPBO_OK
                 : settings_read_row(settings, row, (char *)options, err);
  return DPBO_ERROR_SET(err, DPBO_ERR_ARG, "key table: no row %s.%s to read", section, key);
}

dpbo_status dpbo_settings_require(dpbo_settings *settings, const char *section, const char *key,
                                  int ok, const char *what, dpbo_error *err) {
  if (ok) return DPBO_OK;
  char where[DPBO_PATH_MAX + 32];
  const dpbo_settings_entry *e = dpbo_settings_find(settings, section, key);
  /* Not written at all: perhaps written wrongly. */
  if (!e) return settings_missing(settings, section, key, what, err);
  dpbo_settings_where(settings, e, where, sizeof where);
  return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: %s.%s %s", where, section, key, what);
}

const dpbo_settings_entry *dpbo_settings_unused(const dpbo_settings *settings) {
  for (int i = 0; i < settings->count; i++)
    if (!settings->entry[i].used) return &settings->entry[i];
  return NULL;
}

/* A key of the schema written where it does not apply: says when it does
 * ("section.key = a, b") and what the config has for that key. */
static dpbo_status settings_not_applying(const dpbo_settings *settings,
                                         const dpbo_settings_entry *e, const char *where,
                                         const char *applies, dpbo_error *err) {
  char section[DPBO_SETTINGS_SECTION_MAX], key[DPBO_SETTINGS_KEY_MAX], here[160] = "";
  if (sscanf(applies, "%63[^.].%127[^ =]", section, key) == 2) {
    const char *value = NULL;
    for (int i = 0; i < settings->count && !value; i++)
      if (strcmp(settings->entry[i].section, section) == 0 &&
          strcmp(settings->entry[i].key, key) == 0)
        value = settings->entry[i].value;
    for (int i = 0; i < settings->default_count && !value; i++)
      if (strcmp(settings->defaults[i].section, section) == 0 &&
          strcmp(settings->defaults[i].key, key) == 0)
        value = settings->defaults[i].value;
    if (value) snprintf(here, sizeof here, " (this config has %s.%s = %.80s)", section, key, value);
  }
  return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: %s.%s applies only with %s%s: remove it", where,
                        e->section, e->key, applies, here);
}

dpbo_status dpbo_settings_check_used(const dpbo_settings *settings, dpbo_error *err) {
  const dpbo_settings_entry *e = dpbo_settings_unused(settings);
  if (!e) return DPBO_OK;
  char where[DPBO_PATH_MAX + 32];
  dpbo_settings_where(settings, e, where, sizeof where);
  /* With a schema, the nearest key of the section is suggested. */
  const char *near = NULL;
  int near_distance = 3;
  for (const dpbo_settings_key *row = settings->schema; row && row->key; row++) {
    if (strcmp(row->section, e->section) != 0) continue;
    int distance = settings_distance(e->key, row->key, 2);
    /* The key itself, unused: it does not apply to this config. */
    if (distance == 0 && row->applies && row->applies[0])
      return settings_not_applying(settings, e, where, row->applies, err);
    if (distance < near_distance && 2 * distance < (int)strlen(row->key)) {
      near = row->key;
      near_distance = distance;
    }
  }
  if (near && near_distance > 0)
    return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: unknown key '%s' in [%s]; did you mean '%s'?",
                          where, e->key, e->section, near);
  return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "%s: unknown key '%s' in [%s]", where, e->key,
                        e->section);
}
