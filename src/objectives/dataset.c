/* Dataset readers (CSV, LIBSVM and IDX, plain or gzip through zlib), random
 * train/validation splits, min-max scaling and a LIBSVM writer. */
#define _GNU_SOURCE /* memfd_create, for dpbo__dataset_read_buffer */

#include "objectives/dataset.h"
#include "base/log.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "objectives/dataset_private.h"
#include "base/input.h"

/* ------------------------------------------------------------------------ */
/* Reading lines of any length                                               */

typedef struct line_reader {
  gzFile gz;
  const char *path;
  int64_t max_features; /* LIBSVM feature indices beyond are refused */
  char *buf;
  size_t cap;
  size_t len;
  long long line_no; /* 1-based number of the line in buf */
} line_reader;

/* Opens path, or takes over `fd` (closed here in any case) when it is >= 0;
 * path then only names the data in messages. zbuffer: zlib's buffer size
 * (0: its default). */
static dpbo_status dataset_reader_open(line_reader *r, const char *path, int fd, unsigned zbuffer,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(r, 0, sizeof *r);
  r->path = path;
  if (!path || !path[0]) DPBO_RAISE(DPBO_ERR_ARG, "dataset path is empty");
  /* Opened ourselves so that the message carries the real errno, and a
   * directory or a FIFO (which would block forever) is refused up front. */
  if (fd < 0) DPBO_TRY(dpbo_input_open(path, "dataset", &fd, err));
  r->gz = gzdopen(fd, "rb");
  if (!r->gz) DPBO_RAISE(DPBO_ERR_IO, "cannot open dataset '%s' through zlib", path);
  fd = -1; /* owned by r->gz now */
  /* Files get a large zlib buffer: fewer read() calls and inflate restarts.
   * (The in-memory reader keeps zlib's default: its 768 KiB of buffers per
   * call would dominate fuzzing; reading gives the same lines either way.) */
  if (zbuffer) gzbuffer(r->gz, zbuffer);
  r->cap = 1u << 16;
  DPBO_ALLOC(r->buf, r->cap, "the line buffer");
done:
  if (fd >= 0) close(fd);
  return status;
}

static void dataset_reader_close(line_reader *r) {
  if (r->gz) gzclose(r->gz);
  free(r->buf);
  r->gz = NULL;
  r->buf = NULL;
}

/* Turns a zlib read error (I/O, corrupt or truncated gzip) into an error
 * naming the file and the line being read. */
static dpbo_status dataset_reader_check(line_reader *r, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int zerr = Z_OK;
  const char *zmsg = gzerror(r->gz, &zerr);
  if (zerr == Z_ERRNO)
    DPBO_RAISE(DPBO_ERR_IO, "%s:%lld: read error: %s", r->path, r->line_no + 1, strerror(errno));
  /* zlib prefixes its message with the name it knows, "<fd:N>" after
   * gzdopen; the path is already in ours. */
  if (zmsg && strncmp(zmsg, "<fd:", 4) == 0 && strstr(zmsg, ": ")) zmsg = strstr(zmsg, ": ") + 2;
  if (zerr != Z_OK)
    DPBO_RAISE(DPBO_ERR_IO, "%s:%lld: read error (corrupt or truncated gzip file?): %s", r->path,
               r->line_no + 1, zmsg);
done:
  return status;
}

static const char *dataset_idx_type_name(unsigned type);

/* The error for a NUL byte in the line being read: `added` bytes of this
 * chunk before the NUL, `copied` bytes gzgets copied in all (0: unknown).
 * A file that begins with an IDX file's magic (0x00 0x00 TYPE NDIM) is named
 * for what it is. */
static dpbo_status dataset_reader_nul(const line_reader *r, size_t added, size_t copied,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const unsigned char *u = (const unsigned char *)r->buf;
  if (r->line_no == 0 && r->len == 0 && added == 0 && copied >= 4 && u[1] == 0 &&
      dataset_idx_type_name(u[2]))
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s: begins like an IDX file (the MNIST format): read it with format = idx and "
               "its labels file in labels",
               r->path);
  DPBO_RAISE(DPBO_ERR_DATA, "%s:%lld: contains a NUL byte (binary file?)", r->path, r->line_no + 1);
done:
  return status;
}

/* Reads the next line into r->buf (NUL-terminated, without "\n" or "\r\n").
 * *got is 0 at end of file. The buffer doubles until the line fits, so any
 * line length works. */
static dpbo_status dataset_reader_next(line_reader *r, int *got, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  *got = 0;
  r->len = 0;
  for (;;) {
    if (r->cap - r->len < 2) {
      if (r->cap > SIZE_MAX / 2)
        DPBO_RAISE(DPBO_ERR_NOMEM, "%s:%lld: line too long", r->path, r->line_no + 1);
      char *bigger = realloc(r->buf, r->cap * 2);
      if (!bigger)
        DPBO_RAISE(DPBO_ERR_NOMEM, "%s:%lld: out of memory for a line of %zu bytes", r->path,
                   r->line_no + 1, r->cap * 2);
      r->buf = bigger;
      r->cap *= 2;
    }
    size_t room = r->cap - r->len;
    if (room > INT_MAX) room = INT_MAX;
    const z_off_t before = gztell(r->gz);
    char *chunk = gzgets(r->gz, r->buf + r->len, (int)room);
    if (!chunk) {
      DPBO_TRY(dataset_reader_check(r, err));
      break; /* end of file */
    }
    size_t added = strlen(chunk);
    /* gzgets copies NUL bytes too, and strlen stops at the first: fewer
     * bytes than gzgets consumed means a NUL byte, which no text dataset
     * contains (also on a last line, where gzgets stops at the end). */
    const z_off_t after = gztell(r->gz);
    if (before >= 0 && after >= before && (uint64_t)(after - before) != added)
      DPBO_TRY(dataset_reader_nul(r, added, (size_t)(after - before), err));
    r->len += added;
    if (r->len > 0 && r->buf[r->len - 1] == '\n') break;
    if (gzeof(r->gz)) {
      /* A last line without a newline, or the part of a line before a
       * truncated gzip stream ends: only gzerror tells them apart. */
      DPBO_TRY(dataset_reader_check(r, err));
      break;
    }
    /* gzgets stops at room - 1 bytes; stopping earlier without a newline
     * means it copied a NUL byte (where gztell cannot tell). */
    if (added + 1 < room) DPBO_TRY(dataset_reader_nul(r, added, 0, err));
  }
  if (r->len == 0) goto done; /* gzgets read nothing: end of file */
  r->line_no++;
  *got = 1;
  if (r->line_no == 1) {
    size_t bom = dpbo_input_bom(r->buf, r->len);
    memmove(r->buf, r->buf + bom, r->len - bom + 1);
    r->len -= bom;
  }
  while (r->len > 0 && (r->buf[r->len - 1] == '\n' || r->buf[r->len - 1] == '\r'))
    r->buf[--r->len] = '\0';
done:
  return status;
}

/* ------------------------------------------------------------------------ */
/* Numbers                                                                   */

static int dataset_is_blank(char c) { return c == ' ' || c == '\t'; }
static int dataset_is_digit(char c) { return c >= '0' && c <= '9'; }

static const char *dataset_skip_blanks(const char *p) {
  while (dataset_is_blank(*p))
    p++;
  return p;
}

/* Powers of ten that are exact doubles. */
static const double exact_pow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                       1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                       1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

/* Parses a decimal number ([+-]digits[.digits][e[+-]digits]) at s, sets *end
 * past it and returns 1; returns 0 if s does not start with one. The common
 * case (at most 2^53 as an integer mantissa and a power of ten up to 22) is
 * Clinger's fast path: one IEEE multiply or divide of exact operands, hence
 * correctly rounded, the same double strtod gives. Anything else goes to
 * strtod. Covtype's 11 million integers all take the fast path. */
static int dataset_parse_number(const char *s, const char **end, double *value) {
  const char *p = s;
  int negative = 0;
  if (*p == '+' || *p == '-') negative = *p++ == '-';
  uint64_t mantissa = 0;
  int exp10 = 0, digits = 0, slow = 0;
  for (; dataset_is_digit(*p); p++, digits++) {
    if (mantissa < 100000000000000000ULL)
      mantissa = mantissa * 10 + (uint64_t)(*p - '0');
    else
      slow = 1;
  }
  if (*p == '.') {
    p++;
    for (; dataset_is_digit(*p); p++, digits++) {
      if (mantissa < 100000000000000000ULL) {
        mantissa = mantissa * 10 + (uint64_t)(*p - '0');
        exp10--;
      } else {
        slow = 1;
      }
    }
  }
  if (digits == 0) return 0;
  if (*p == 'e' || *p == 'E') {
    const char *q = p + 1;
    int exp_negative = 0;
    if (*q == '+' || *q == '-') exp_negative = *q++ == '-';
    if (dataset_is_digit(*q)) {
      int e = 0;
      for (; dataset_is_digit(*q); q++) {
        if (e < 100000) e = e * 10 + (*q - '0');
      }
      exp10 += exp_negative ? -e : e;
      p = q;
    }
    /* "1e" or "1e+" : strtod stops before the 'e', so do we. */
  }
  *end = p;
  if (!slow && mantissa <= (1ULL << 53) && exp10 >= -22 && exp10 <= 22) {
    double v = (double)mantissa;
    v = exp10 < 0 ? v / exact_pow10[-exp10] : v * exact_pow10[exp10];
    *value = negative ? -v : v;
    return 1;
  }
  char *strtod_end = NULL;
  *value = strtod(s, &strtod_end);
  return strtod_end == p;
}

/* Case-insensitive prefix test, for recognizing "nan" and "inf" texts. */
static int dataset_starts_with_nocase(const char *s, const char *prefix) {
  for (; *prefix; s++, prefix++) {
    char c = *s;
    if (c >= 'A' && c <= 'Z') c = (char)(c - 'A' + 'a');
    if (c != *prefix) return 0;
  }
  return 1;
}

static int dataset_looks_nonfinite(const char *s) {
  if (*s == '+' || *s == '-') s++;
  return dataset_starts_with_nocase(s, "nan") || dataset_starts_with_nocase(s, "inf");
}

/* Copies the field starting at s (up to stop or end of line, blanks
 * trimmed) into out, shortened with "..." so messages stay readable. */
static void dataset_field_text(const char *s, char stop, char *out, size_t size) {
  s = dataset_skip_blanks(s);
  size_t n = 0;
  while (s[n] && s[n] != stop && !(stop == ' ' && s[n] == '\t'))
    n++;
  while (n > 0 && dataset_is_blank(s[n - 1]))
    n--;
  if (n + 1 > size) {
    snprintf(out, size, "%.*s...", (int)(size - 4), s);
  } else {
    memcpy(out, s, n);
    out[n] = '\0';
  }
}

/* A value a dataset may hold: finite and within DPBO_DATASET_VALUE_MAX. */
static int dataset_value_ok(double v) { return fabs(v) <= DPBO_DATASET_VALUE_MAX; }

/* Reports a field that is not a number dataset_value_ok takes; `what` names
 * it for the message ("column 3", "the label"). Only called on the error
 * path, so the per-field cost of a good file stays one dataset_parse_number. */
static dpbo_status dataset_field_error(const line_reader *r, const char *start, int parsed,
                                       char stop, const char *what, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char text[64];
  dataset_field_text(start, stop, text, sizeof text);
  if (!text[0]) DPBO_RAISE(DPBO_ERR_DATA, "%s:%lld: %s is empty", r->path, r->line_no, what);
  if (dataset_looks_nonfinite(text))
    DPBO_RAISE(DPBO_ERR_DATA, "%s:%lld: %s is '%s'; NaN and infinite values are not allowed",
               r->path, r->line_no, what, text);
  if (parsed)
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s:%lld: %s is '%s', beyond ±%.3g: min-max scaling subtracts two values, and "
               "larger ones overflow",
               r->path, r->line_no, what, text, DPBO_DATASET_VALUE_MAX);
  DPBO_RAISE(DPBO_ERR_DATA, "%s:%lld: %s is not a number: '%s'", r->path, r->line_no, what, text);
done:
  return status;
}

static int dataset_line_is_blank(const char *s) { return *dataset_skip_blanks(s) == '\0'; }

/* Grows the array whose pointer is at `slot` (e.g. &data->x; passed as
 * void * and moved with memcpy, which is well defined for any object pointer
 * type, unlike a cast to void **) to hold at least `need` elements of size
 * elem, doubling the capacity *cap so that n appends cost O(n). */
static dpbo_status dataset_grow(void *slot, size_t *cap, size_t need, size_t elem, const char *what,
                                dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (need <= *cap) goto done;
  size_t cap2 = *cap ? *cap : 1024;
  while (cap2 < need) {
    if (cap2 > SIZE_MAX / 2 / elem)
      DPBO_RAISE(DPBO_ERR_NOMEM, "%s would need more than %zu elements", what, cap2);
    cap2 *= 2;
  }
  void *old = NULL;
  memcpy(&old, slot, sizeof old);
  void *bigger = realloc(old, cap2 * elem);
  if (!bigger)
    DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory growing %s to %zu x %zu bytes", what, cap2, elem);
  memcpy(slot, &bigger, sizeof bigger);
  *cap = cap2;
done:
  return status;
}

/* ------------------------------------------------------------------------ */
/* CSV                                                                       */

/* Splits line into numbers in *vals (grown as needed); *count is the number
 * of columns. */
static dpbo_status dataset_csv_parse_line(const line_reader *r, double **vals, size_t *cap,
                                          int *count, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *p = r->buf;
  int col = 0;
  for (;;) {
    const char *start = p;
    p = dataset_skip_blanks(p);
    double v = 0.0;
    const char *after = p;
    int parsed = dataset_parse_number(p, &after, &v);
    if (parsed) {
      after = dataset_skip_blanks(after);
      if (*after != ',' && *after != '\0') parsed = 0;
    }
    if (col == INT_MAX) DPBO_RAISE(DPBO_ERR_DATA, "%s:%lld: too many columns", r->path, r->line_no);
    if (!parsed || !dataset_value_ok(v)) {
      char what[32];
      snprintf(what, sizeof what, "column %d", col + 1);
      DPBO_TRY(dataset_field_error(r, start, parsed, ',', what, err));
    }
    DPBO_TRY(dataset_grow(vals, cap, (size_t)col + 1, sizeof **vals, "a CSV row", err));
    (*vals)[col++] = v;
    p = after;
    if (*p == '\0') break;
    p++; /* the comma */
  }
  *count = col;
done:
  return status;
}

typedef struct csv_state {
  int label_column; /* 0-based column of the label (the last: columns - 1) */
  int label_given;  /* 1-based as configured, 0 for the last */
  double *row;      /* the current line's numbers */
  size_t row_cap, x_cap, y_cap;
  int columns; /* of the first data line; every line must match */
  long long first_line;
  int64_t n;
} csv_state;

static dpbo_status dataset_csv_add_row(const line_reader *r, csv_state *c, dpbo_dataset *data,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int count = 0;
  DPBO_TRY(dataset_csv_parse_line(r, &c->row, &c->row_cap, &count, err));
  if (c->columns == 0) {
    if (count < 2)
      DPBO_RAISE(DPBO_ERR_DATA,
                 "%s:%lld: a CSV dataset needs at least one feature and a label per row, "
                 "got %d column",
                 r->path, r->line_no, count);
    if (c->label_given > count)
      DPBO_RAISE(DPBO_ERR_DATA, "%s:%lld: the label column is %d, but the rows have %d columns",
                 r->path, r->line_no, c->label_given, count);
    c->columns = count;
    c->label_column = c->label_given ? c->label_given - 1 : count - 1;
    c->first_line = r->line_no;
  } else if (count != c->columns) {
    DPBO_RAISE(DPBO_ERR_DATA, "%s:%lld: ragged row: expected %d columns (as on line %lld), got %d",
               r->path, r->line_no, c->columns, c->first_line, count);
  }
  size_t d = (size_t)c->columns - 1;
  size_t n = (size_t)c->n;
  if (n + 1 > SIZE_MAX / d / sizeof(double))
    DPBO_RAISE(DPBO_ERR_NOMEM, "%s:%lld: dataset too large", r->path, r->line_no);
  DPBO_TRY(dataset_grow(&data->x, &c->x_cap, (n + 1) * d, sizeof *data->x, "the features", err));
  DPBO_TRY(dataset_grow(&data->y, &c->y_cap, n + 1, sizeof *data->y, "the labels", err));
  /* The features in their order, without the label's column. */
  const size_t label = (size_t)c->label_column;
  memcpy(data->x + n * d, c->row, label * sizeof *c->row);
  memcpy(data->x + n * d + label, c->row + label + 1, (d - label) * sizeof *c->row);
  data->y[n] = c->row[label];
  c->n++;
done:
  return status;
}

/* Whether the first line is a header: yes or no as configured; with AUTO,
 * when one of its fields is a name: a field that is not a number, begins
 * with a letter, '_' or a quote, and is not NaN or infinity (so a first data
 * row with a bad value still gets its error). */
static int dataset_csv_is_header(const line_reader *r, dpbo_csv_header header) {
  if (header != DPBO_HEADER_AUTO) return header == DPBO_HEADER_YES;
  for (const char *p = r->buf;;) {
    double v = 0.0;
    const char *after = p;
    p = dataset_skip_blanks(p);
    int number = dataset_parse_number(p, &after, &v);
    if (number) {
      after = dataset_skip_blanks(after);
      number = *after == ',' || *after == '\0';
    }
    if (!number) {
      char text[64];
      dataset_field_text(p, ',', text, sizeof text);
      /* A name begins with a letter, '_' or a quote; "15-1" is a typo. */
      const unsigned char first = (unsigned char)text[0];
      if ((isalpha(first) || first == '_' || first == '"' || first == '\'') &&
          !dataset_looks_nonfinite(text))
        return 1;
      after = strchr(p, ',');
      if (!after) return 0;
    }
    if (*after == '\0') return 0;
    p = after + 1;
  }
}

/* The first non-blank line is already in r->buf (read by the format
 * detector). */
static dpbo_status dataset_read_csv(line_reader *r, const dpbo_dataset_options *options,
                                    dpbo_dataset *data, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  csv_state c;
  memset(&c, 0, sizeof c);
  c.label_given = options->label_column;
  int got = 1;
  if (dataset_csv_is_header(r, options->header)) {
    if (options->header == DPBO_HEADER_AUTO)
      dpbo_log_info("%s:%lld: a header row (it is not all numbers), skipped (objective.header = "
                    "auto; set yes or no to decide)",
                    r->path, r->line_no);
    DPBO_TRY(dataset_reader_next(r, &got, err));
  }
  while (got) {
    if (!dataset_line_is_blank(r->buf)) DPBO_TRY(dataset_csv_add_row(r, &c, data, err));
    DPBO_TRY(dataset_reader_next(r, &got, err));
  }
  data->n = c.n;
  data->d = c.columns - 1;
done:
  free(c.row);
  return status;
}

/* ------------------------------------------------------------------------ */
/* LIBSVM                                                                    */

typedef struct sparse_rows {
  int *index; /* 1-based feature indices, all rows concatenated */
  double *value;
  size_t nnz, index_cap, value_cap;
  int64_t *start; /* row i owns entries start[i] .. start[i+1]-1 */
  size_t start_cap;
  double *label;
  size_t label_cap;
  int64_t n;
  int max_index;
} sparse_rows;

static dpbo_status dataset_libsvm_parse_line(const line_reader *r, sparse_rows *s,
                                             dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *p = dataset_skip_blanks(r->buf);
  const char *start = p;
  double label = 0.0;
  const char *after = p;
  int parsed = dataset_parse_number(p, &after, &label);
  if (parsed && *after && !dataset_is_blank(*after)) parsed = 0;
  if (!parsed || !dataset_value_ok(label))
    DPBO_TRY(dataset_field_error(r, start, parsed, ' ', "the label", err));
  p = dataset_skip_blanks(after);
  int previous = 0;
  while (*p) {
    start = p;
    long long idx = 0;
    const char *q = p;
    while (dataset_is_digit(*q) && idx <= INT_MAX)
      idx = idx * 10 + (*q++ - '0');
    char text[64];
    if (q == p || *q != ':') {
      dataset_field_text(start, ' ', text, sizeof text);
      DPBO_RAISE(DPBO_ERR_DATA, "%s:%lld: expected 'index:value', got '%s'", r->path, r->line_no,
                 text);
    }
    if (idx < 1 || idx > INT_MAX) {
      dataset_field_text(start, ' ', text, sizeof text);
      DPBO_RAISE(DPBO_ERR_DATA, "%s:%lld: feature index in '%s' is out of range 1..%d", r->path,
                 r->line_no, text, INT_MAX);
    }
    /* Checked here, before the dense matrix of idx columns is allocated. */
    if (idx > r->max_features)
      DPBO_RAISE(DPBO_ERR_DATA,
                 "%s:%lld: feature index %lld exceeds the limit of %lld features (set "
                 "max_features to allow more; the rows are held dense: %lld features take "
                 "%.3g MB per row)",
                 r->path, r->line_no, idx, (long long)r->max_features, idx, 8e-6 * (double)idx);
    if ((int)idx <= previous)
      DPBO_RAISE(DPBO_ERR_DATA, "%s:%lld: feature indices must increase, got %lld after %d",
                 r->path, r->line_no, idx, previous);
    q++; /* the colon */
    double v = 0.0;
    after = q;
    parsed = dataset_parse_number(q, &after, &v);
    if (parsed && *after && !dataset_is_blank(*after)) parsed = 0;
    if (!parsed || !dataset_value_ok(v)) {
      char what[48];
      snprintf(what, sizeof what, "the value of feature %lld", idx);
      DPBO_TRY(dataset_field_error(r, q, parsed, ' ', what, err));
    }
    DPBO_TRY(dataset_grow(&s->index, &s->index_cap, s->nnz + 1, sizeof *s->index,
                          "the feature indices", err));
    DPBO_TRY(dataset_grow(&s->value, &s->value_cap, s->nnz + 1, sizeof *s->value,
                          "the feature values", err));
    s->index[s->nnz] = (int)idx;
    s->value[s->nnz] = v;
    s->nnz++;
    previous = (int)idx;
    if (previous > s->max_index) s->max_index = previous;
    p = dataset_skip_blanks(after);
  }
  DPBO_TRY(dataset_grow(&s->label, &s->label_cap, (size_t)s->n + 1, sizeof *s->label, "the labels",
                        err));
  DPBO_TRY(dataset_grow(&s->start, &s->start_cap, (size_t)s->n + 2, sizeof *s->start,
                        "the row starts", err));
  s->label[s->n] = label;
  s->start[s->n + 1] = (int64_t)s->nnz;
  s->n++;
done:
  return status;
}

static dpbo_status dataset_read_libsvm(line_reader *r, dpbo_dataset *data, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  sparse_rows s;
  memset(&s, 0, sizeof s);
  DPBO_TRY(dataset_grow(&s.start, &s.start_cap, 1, sizeof *s.start, "the row starts", err));
  s.start[0] = 0;
  int got = 1; /* the first data line is already in r->buf */
  while (got) {
    if (!dataset_line_is_blank(r->buf)) DPBO_TRY(dataset_libsvm_parse_line(r, &s, err));
    DPBO_TRY(dataset_reader_next(r, &got, err));
  }
  if (s.n == 0) goto done; /* the caller reports the empty dataset */
  if (s.max_index == 0)
    DPBO_RAISE(DPBO_ERR_DATA, "%s: no row has any feature (no 'index:value' entries)", r->path);
  data->n = s.n;
  data->d = s.max_index;
  if ((size_t)s.n > SIZE_MAX / (size_t)s.max_index / sizeof(double))
    DPBO_RAISE(DPBO_ERR_NOMEM, "%s: %lld rows x %d features is too large", r->path, (long long)s.n,
               s.max_index);
  DPBO_ALLOC(data->x, (size_t)s.n * (size_t)s.max_index, "the features");
  data->y = s.label;
  s.label = NULL;
  for (int64_t i = 0; i < s.n; i++) {
    double *row = data->x + (size_t)i * (size_t)s.max_index;
    for (int64_t k = s.start[i]; k < s.start[i + 1]; k++)
      row[s.index[k] - 1] = s.value[k];
  }
done:
  free(s.index);
  free(s.value);
  free(s.start);
  free(s.label);
  return status;
}

/* ------------------------------------------------------------------------ */
/* IDX (the MNIST format: an images file and a labels file)                  */

/* One IDX file being read: its bytes come through zlib (gzip or plain), and
 * `offset` counts the uncompressed bytes consumed, for messages. */
typedef struct idx_file {
  gzFile gz;
  const char *path;
  long long offset;
  int ndim;
  uint32_t dims[255]; /* the header's ndim is one byte */
} idx_file;

/* The IDX data types (the third magic byte); only unsigned bytes are read. */
static const char *dataset_idx_type_name(unsigned type) {
  switch (type) {
  case 0x08:
    return "unsigned byte";
  case 0x09:
    return "signed byte";
  case 0x0B:
    return "short";
  case 0x0C:
    return "int";
  case 0x0D:
    return "float";
  case 0x0E:
    return "double";
  default:
    return NULL;
  }
}

/* Reads exactly `size` bytes; a short read is a truncated file (named with
 * the byte offset where it ended and `what` was expected) or a zlib error. */
static dpbo_status dataset_idx_bytes(idx_file *f, void *buf, size_t size, const char *what,
                                     dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  size_t got = 0;
  while (got < size) {
    unsigned chunk = size - got > (1u << 30) ? 1u << 30 : (unsigned)(size - got);
    int n = gzread(f->gz, (unsigned char *)buf + got, chunk);
    if (n <= 0) break;
    got += (size_t)n;
  }
  f->offset += (long long)got;
  if (got == size) goto done;
  {
    int zerr = Z_OK;
    const char *zmsg = gzerror(f->gz, &zerr);
    if (zerr == Z_ERRNO)
      DPBO_RAISE(DPBO_ERR_IO, "%s: read error at byte %lld: %s", f->path, f->offset,
                 strerror(errno));
    if (zmsg && strncmp(zmsg, "<fd:", 4) == 0 && strstr(zmsg, ": ")) zmsg = strstr(zmsg, ": ") + 2;
    if (zerr != Z_OK)
      DPBO_RAISE(DPBO_ERR_IO, "%s: read error at byte %lld (corrupt or truncated gzip file?): %s",
                 f->path, f->offset, zmsg);
  }
  DPBO_RAISE(DPBO_ERR_DATA, "%s: truncated IDX file: it ends at byte %lld, in %s", f->path,
             f->offset, what);
done:
  return status;
}

/* Opens an IDX file (or takes over fd >= 0) and reads its header: the magic
 * 0x00 0x00 TYPE NDIM, then NDIM big-endian 32-bit sizes. `role` is
 * "images" or "labels": labels have one dimension, images at least two
 * (rows, then the features of a row). */
static dpbo_status dataset_idx_open(idx_file *f, const char *path, int fd, unsigned zbuffer,
                                    const char *role, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  unsigned char magic[4], size[4];
  memset(f, 0, sizeof *f);
  f->path = path;
  if (!path || !path[0]) DPBO_RAISE(DPBO_ERR_ARG, "IDX %s path is empty", role);
  if (fd < 0) {
    char what[32];
    snprintf(what, sizeof what, "IDX %s file", role);
    DPBO_TRY(dpbo_input_open(path, what, &fd, err));
  }
  f->gz = gzdopen(fd, "rb");
  if (!f->gz) DPBO_RAISE(DPBO_ERR_IO, "cannot open IDX %s file '%s' through zlib", role, path);
  fd = -1; /* owned by f->gz now */
  if (zbuffer) gzbuffer(f->gz, zbuffer);
  DPBO_TRY(dataset_idx_bytes(f, magic, sizeof magic, "the 4-byte magic number", err));
  if (magic[0] != 0 || magic[1] != 0)
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s: not an IDX file: it begins with bytes 0x%02x 0x%02x, an IDX file with "
               "0x00 0x00",
               path, magic[0], magic[1]);
  const char *type = dataset_idx_type_name(magic[2]);
  if (!type) DPBO_RAISE(DPBO_ERR_DATA, "%s: byte 2: unknown IDX data type 0x%02x", path, magic[2]);
  if (magic[2] != 0x08)
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s: byte 2: IDX data type 0x%02x (%s) is not supported; dpbo reads unsigned "
               "bytes (0x08), as the MNIST and Fashion-MNIST files hold",
               path, magic[2], type);
  f->ndim = magic[3];
  const int labels = strcmp(role, "labels") == 0;
  if (labels && f->ndim != 1)
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s: byte 3: a labels file has 1 dimension (one label per row), this one %d", path,
               f->ndim);
  if (!labels && f->ndim < 2)
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s: byte 3: an images file has at least 2 dimensions (rows, then the features "
               "of a row), this one %d",
               path, f->ndim);
  for (int i = 0; i < f->ndim; i++) {
    char what[48];
    snprintf(what, sizeof what, "the size of dimension %d of the header", i + 1);
    DPBO_TRY(dataset_idx_bytes(f, size, sizeof size, what, err));
    f->dims[i] =
        (uint32_t)size[0] << 24 | (uint32_t)size[1] << 16 | (uint32_t)size[2] << 8 | size[3];
    if (f->dims[i] == 0)
      DPBO_RAISE(DPBO_ERR_DATA, "%s: byte %lld: dimension %d has size 0 (no data)", path,
                 f->offset - 4, i + 1);
  }
done:
  if (fd >= 0) close(fd);
  return status;
}

static void dataset_idx_close(idx_file *f) {
  if (f->gz) gzclose(f->gz);
  f->gz = NULL;
}

/* A well-formed file ends where its header says; more bytes mean a size in
 * the header is wrong (or two files were concatenated). */
static dpbo_status dataset_idx_check_end(idx_file *f, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  unsigned char extra;
  int n = gzread(f->gz, &extra, 1);
  if (n == 1)
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s: byte %lld: data continue past the end the header's sizes give (a wrong "
               "dimension size?)",
               f->path, f->offset);
  if (n < 0) DPBO_TRY(dataset_idx_bytes(f, &extra, 1, "the end of the file", err));
done:
  return status;
}

/* A file to read: its path, which messages name, and its descriptor if it
 * is open already (>= 0: taken over by the reader). */
typedef struct dataset_file {
  const char *path;
  int fd;
} dataset_file;

/* Images and labels as one dataset: each image's bytes become the features
 * of a row, scaled to [0, 1] (pixel / 255), the label byte its label. The
 * rows are read one at a time and the matrix grows as they arrive, so a
 * header claiming billions of rows fails at the truncation, not at a huge
 * allocation. Both files' descriptors are taken over. */
static dpbo_status dataset_read_idx(dataset_file images, dataset_file labels, unsigned zbuffer,
                                    int64_t max_features, dpbo_dataset **out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *images_path = images.path, *labels_path = labels.path;
  int images_fd = images.fd, labels_fd = labels.fd;
  idx_file im, lb;
  dpbo_dataset *data = NULL;
  unsigned char *bytes = NULL;
  size_t x_cap = 0;
  memset(&im, 0, sizeof im);
  memset(&lb, 0, sizeof lb);
  {
    int fd = images_fd;
    images_fd = -1; /* dataset_idx_open closes it or hands it to zlib */
    DPBO_TRY(dataset_idx_open(&im, images_path, fd, zbuffer, "images", err));
  }
  {
    int fd = labels_fd;
    labels_fd = -1;
    DPBO_TRY(dataset_idx_open(&lb, labels_path, fd, zbuffer, "labels", err));
  }
  const uint32_t n = im.dims[0];
  if (lb.dims[0] != n)
    DPBO_RAISE(DPBO_ERR_DATA, "%s has %lu images but %s has %lu labels", images_path,
               (unsigned long)n, labels_path, (unsigned long)lb.dims[0]);
  /* The features of a row: the product of the sizes after the first,
   * checked against the limit before anything of that size is allocated. */
  int64_t d = 1;
  for (int i = 1; i < im.ndim; i++) {
    d *= im.dims[i];
    if (d > max_features)
      DPBO_RAISE(DPBO_ERR_DATA,
                 "%s: an image has more than %lld values (the header's sizes after the first), "
                 "the limit of max_features (set it to allow more; rows are held dense)",
                 images_path, (long long)max_features);
  }
  DPBO_ALLOC(data, 1, "a dataset");
  data->d = (int)d;
  DPBO_ALLOC(bytes, (size_t)d > 65536 ? (size_t)d : 65536, "an IDX record");
  for (uint32_t i = 0; i < n; i++) {
    char what[64];
    snprintf(what, sizeof what, "image %lu of %lu", (unsigned long)i + 1, (unsigned long)n);
    DPBO_TRY(dataset_idx_bytes(&im, bytes, (size_t)d, what, err));
    DPBO_TRY(dataset_grow(&data->x, &x_cap, ((size_t)i + 1) * (size_t)d, sizeof *data->x,
                          "the features", err));
    double *row = data->x + (size_t)i * (size_t)d;
    for (int64_t j = 0; j < d; j++)
      row[j] = bytes[j] / 255.0;
    data->n = (int64_t)i + 1;
  }
  DPBO_TRY(dataset_idx_check_end(&im, err));
  DPBO_ALLOC(data->y, n, "the labels"); /* n rows were read: n is real */
  for (uint32_t first = 0; first < n;) {
    const uint32_t count = n - first < 65536 ? n - first : 65536;
    char what[64];
    snprintf(what, sizeof what, "the %lu labels", (unsigned long)n);
    DPBO_TRY(dataset_idx_bytes(&lb, bytes, count, what, err));
    for (uint32_t i = 0; i < count; i++)
      data->y[first + i] = bytes[i];
    first += count;
  }
  DPBO_TRY(dataset_idx_check_end(&lb, err));
  double *fit = realloc(data->x, (size_t)n * (size_t)d * sizeof *data->x);
  if (fit) data->x = fit;
  *out = data;
  data = NULL;
done:
  if (images_fd >= 0) close(images_fd);
  if (labels_fd >= 0) close(labels_fd);
  dataset_idx_close(&im);
  dataset_idx_close(&lb);
  free(bytes);
  dpbo_dataset_destroy(data);
  return status;
}

/* ------------------------------------------------------------------------ */
/* Public API                                                                */

/* dpbo_dataset_read on path, or on fd (taken over) when fd >= 0. */
static dpbo_status dataset_read(const char *path, int fd, int labels_fd, unsigned zbuffer,
                                const dpbo_dataset_options *options, dpbo_dataset **out,
                                dpbo_error *err) {
  dpbo_data_format format = options->format;
  const int64_t max_features = options->max_features;
  dpbo_status status = DPBO_OK;
  dpbo_dataset *data = NULL;
  line_reader r;
  memset(&r, 0, sizeof r);
  if (!out) DPBO_RAISE(DPBO_ERR_ARG, "dpbo_dataset_read: out is NULL");
  *out = NULL;
  if (format != DPBO_FORMAT_AUTO && format != DPBO_FORMAT_CSV && format != DPBO_FORMAT_LIBSVM &&
      format != DPBO_FORMAT_IDX)
    DPBO_RAISE(DPBO_ERR_ARG, "dataset '%s': unknown format %d", path ? path : "(null)",
               (int)format);
  /* IDX keeps its labels in a second file: a labels file means IDX, and
   * IDX needs one. */
  const int has_labels = options->labels && options->labels[0];
  if (format == DPBO_FORMAT_AUTO && has_labels) format = DPBO_FORMAT_IDX;
  if (format == DPBO_FORMAT_IDX && !has_labels)
    DPBO_RAISE(DPBO_ERR_ARG, "dataset '%s': the IDX format needs a labels file", path);
  if (format != DPBO_FORMAT_IDX && has_labels)
    DPBO_RAISE(DPBO_ERR_ARG, "dataset '%s': a labels file ('%s') goes with the IDX format only",
               path, options->labels);
  if ((unsigned)options->header > DPBO_HEADER_NO || options->label_column < 0)
    DPBO_RAISE(DPBO_ERR_ARG, "dataset '%s': header %d or label column %d out of range",
               path ? path : "(null)", (int)options->header, options->label_column);
  if (max_features < 1 || max_features > INT_MAX)
    DPBO_RAISE(DPBO_ERR_ARG, "dataset '%s': max_features = %lld is outside 1..%d",
               path ? path : "(null)", (long long)max_features, INT_MAX);
  if (format == DPBO_FORMAT_IDX) {
    int given = fd, given_labels = labels_fd;
    fd = labels_fd = -1; /* dataset_read_idx closes them */
    const dataset_file images = {path, given}, labels = {options->labels, given_labels};
    DPBO_TRY(dataset_read_idx(images, labels, zbuffer, max_features, out, err));
    goto done;
  }
  {
    int given = fd;
    fd = -1; /* dataset_reader_open closes it or hands it to zlib */
    DPBO_TRY(dataset_reader_open(&r, path, given, zbuffer, err));
  }
  r.max_features = max_features;
  DPBO_ALLOC(data, 1, "a dataset");

  /* Find the first data line; AUTO decides the format from it. */
  int got = 0;
  do {
    DPBO_TRY(dataset_reader_next(&r, &got, err));
  } while (got && dataset_line_is_blank(r.buf));
  if (!got) DPBO_RAISE(DPBO_ERR_DATA, "%s: dataset is empty (no data rows)", path);
  if (format == DPBO_FORMAT_AUTO)
    format = strchr(r.buf, ':') ? DPBO_FORMAT_LIBSVM : DPBO_FORMAT_CSV;

  if (format == DPBO_FORMAT_CSV)
    DPBO_TRY(dataset_read_csv(&r, options, data, err));
  else
    DPBO_TRY(dataset_read_libsvm(&r, data, err));
  if (data->n == 0) DPBO_RAISE(DPBO_ERR_DATA, "%s: dataset is empty (no data rows)", path);

  /* Give back the slack of the geometric growth. */
  double *fit = realloc(data->x, (size_t)data->n * (size_t)data->d * sizeof *data->x);
  if (fit) data->x = fit;
  fit = realloc(data->y, (size_t)data->n * sizeof *data->y);
  if (fit) data->y = fit;
  *out = data;
  data = NULL;
done:
  if (fd >= 0) close(fd);
  if (labels_fd >= 0) close(labels_fd);
  dataset_reader_close(&r);
  dpbo_dataset_destroy(data);
  /* Out-of-memory messages (the dense matrix of a file with a huge feature
   * index, say) come from helpers that do not know the file: name it. */
  if (status != DPBO_OK && err && path && path[0] && !strstr(err->message, path) &&
      !(options->labels && options->labels[0] && strstr(err->message, options->labels)))
    dpbo_error_prefix(err, "%s", path);
  return status;
}

const char *const dpbo_data_format_names[] = {"auto", "csv", "libsvm", "idx", NULL};

const char *dpbo_data_format_name(dpbo_data_format format) {
  const size_t count = sizeof dpbo_data_format_names / sizeof *dpbo_data_format_names - 1;
  return (size_t)format < count ? dpbo_data_format_names[format] : "unknown";
}

dpbo_status dpbo_dataset_read(const char *path, dpbo_data_format format, dpbo_dataset **out,
                              dpbo_error *err) {
  return dpbo_dataset_read_max(path, format, DPBO_DATASET_MAX_FEATURES, out, err);
}

dpbo_status dpbo_dataset_read_max(const char *path, dpbo_data_format format, int64_t max_features,
                                  dpbo_dataset **out, dpbo_error *err) {
  dpbo_dataset_options options;
  dpbo_dataset_options_default(&options);
  options.format = format;
  options.max_features = max_features;
  return dpbo_dataset_read_options(path, &options, out, err);
}

const char *const dpbo_csv_header_names[] = {"auto", "yes", "no", NULL};

void dpbo_dataset_options_default(dpbo_dataset_options *options) {
  memset(options, 0, sizeof *options);
  options->format = DPBO_FORMAT_AUTO;
  options->max_features = DPBO_DATASET_MAX_FEATURES;
  options->header = DPBO_HEADER_AUTO;
  options->label_column = 0;
}

dpbo_status dpbo_dataset_read_options(const char *path, const dpbo_dataset_options *options,
                                      dpbo_dataset **out, dpbo_error *err) {
  return dataset_read(path, -1, -1, 1u << 18, options, out, err);
}

/* The bytes go into an anonymous in-memory file (memfd: no file system, no
 * temporary file) and through the path a file takes, zlib's transparent gzip
 * reading included; only zlib's buffer is its default size. */
static dpbo_status dataset_memfd(const char *name, const void *bytes, size_t size, int *out,
                                 dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int fd = memfd_create("dpbo-dataset", MFD_CLOEXEC);
  if (fd < 0)
    DPBO_RAISE(DPBO_ERR_IO, "%s: cannot create an in-memory file: %s", name, strerror(errno));
  for (size_t done_bytes = 0; done_bytes < size;) {
    ssize_t wrote = write(fd, (const char *)bytes + done_bytes, size - done_bytes);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0)
      DPBO_RAISE(DPBO_ERR_IO, "%s: cannot fill the in-memory file: %s", name, strerror(errno));
    done_bytes += (size_t)wrote;
  }
  if (lseek(fd, 0, SEEK_SET) != 0)
    DPBO_RAISE(DPBO_ERR_IO, "%s: cannot rewind the in-memory file: %s", name, strerror(errno));
  *out = fd;
  fd = -1;
done:
  if (fd >= 0) close(fd);
  return status;
}

dpbo_status dpbo__dataset_read_buffer(const char *name, const void *bytes, size_t size,
                                      dpbo_data_format format, dpbo_dataset **out,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int fd = -1;
  DPBO_TRY(dataset_memfd(name, bytes, size, &fd, err));
  dpbo_dataset_options options;
  dpbo_dataset_options_default(&options);
  options.format = format;
  status = dataset_read(name, fd, -1, 0, &options, out, err);
  fd = -1; /* dataset_read closed it */
done:
  if (fd >= 0) close(fd);
  return status;
}

dpbo_status dpbo__dataset_read_idx_buffers(const dpbo__dataset_buffer *images,
                                           const dpbo__dataset_buffer *labels, dpbo_dataset **out,
                                           dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int fd = -1, labels_fd = -1;
  DPBO_TRY(dataset_memfd(images->name, images->bytes, images->size, &fd, err));
  DPBO_TRY(dataset_memfd(labels->name, labels->bytes, labels->size, &labels_fd, err));
  dpbo_dataset_options options;
  dpbo_dataset_options_default(&options);
  options.format = DPBO_FORMAT_IDX;
  options.labels = labels->name;
  status = dataset_read(images->name, fd, labels_fd, 0, &options, out, err);
  fd = labels_fd = -1; /* dataset_read closed them */
done:
  if (fd >= 0) close(fd);
  if (labels_fd >= 0) close(labels_fd);
  return status;
}

void dpbo_dataset_destroy(dpbo_dataset *data) {
  if (!data) return;
  free(data->x);
  free(data->y);
  free(data);
}

dpbo_status dpbo_dataset_subset(const dpbo_dataset *data, const int64_t *rows, int64_t count,
                                dpbo_dataset **out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_dataset *sub = NULL;
  if (!data || !out || (count > 0 && !rows))
    DPBO_RAISE(DPBO_ERR_ARG, "dpbo_dataset_subset: NULL argument");
  *out = NULL;
  if (count < 0)
    DPBO_RAISE(DPBO_ERR_ARG, "dpbo_dataset_subset: negative row count %lld", (long long)count);
  size_t d = (size_t)data->d;
  DPBO_ALLOC(sub, 1, "a dataset");
  sub->n = count;
  sub->d = data->d;
  DPBO_ALLOC(sub->x, (size_t)count * d, "the subset's features");
  DPBO_ALLOC(sub->y, (size_t)count, "the subset's labels");
  for (int64_t i = 0; i < count; i++) {
    if (rows[i] < 0 || rows[i] >= data->n)
      DPBO_RAISE(DPBO_ERR_ARG, "dpbo_dataset_subset: row %lld (entry %lld) outside 0..%lld",
                 (long long)rows[i], (long long)i, (long long)data->n - 1);
    memcpy(sub->x + (size_t)i * d, data->x + (size_t)rows[i] * d, d * sizeof *sub->x);
    sub->y[i] = data->y[rows[i]];
  }
  *out = sub;
  sub = NULL;
done:
  dpbo_dataset_destroy(sub);
  return status;
}

dpbo_status dpbo_dataset_check_source(const char *what, const char *path, size_t path_size,
                                      int64_t train_rows, int64_t validation_rows,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!memchr(path, '\0', path_size))
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: data path is not NUL-terminated", what);
  if (!path[0]) DPBO_RAISE(DPBO_ERR_CONFIG, "%s: no data file given", what);
  if (train_rows < 1 || validation_rows < 1)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: needs at least 1 training and 1 validation row, got %lld and %lld", what,
               (long long)train_rows, (long long)validation_rows);
done:
  return status;
}

dpbo_status dpbo_dataset_split(const dpbo_dataset *data, uint64_t seed, int64_t n_train,
                               int64_t n_valid, dpbo_dataset **train, dpbo_dataset **valid,
                               dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  uint64_t *perm = NULL;
  int64_t *rows = NULL;
  dpbo_dataset *tr = NULL, *va = NULL;
  if (!data || !train || !valid) DPBO_RAISE(DPBO_ERR_ARG, "dpbo_dataset_split: NULL argument");
  *train = *valid = NULL;
  if (n_train < 1 || n_valid < 1)
    DPBO_RAISE(DPBO_ERR_ARG,
               "split needs at least one training and one validation row, got %lld and %lld",
               (long long)n_train, (long long)n_valid);
  if (n_train > data->n || n_valid > data->n - n_train)
    DPBO_RAISE(DPBO_ERR_ARG,
               "split asks for %lld training + %lld validation rows but the dataset has %lld",
               (long long)n_train, (long long)n_valid, (long long)data->n);
  DPBO_ALLOC(perm, (size_t)data->n, "the split permutation");
  DPBO_ALLOC(rows, (size_t)(n_train + n_valid), "the split rows");
  dpbo_rng rng;
  dpbo_rng_seed(&rng, seed, 0);
  dpbo_rng_permutation(&rng, (uint64_t)data->n, perm);
  for (int64_t i = 0; i < n_train + n_valid; i++)
    rows[i] = (int64_t)perm[i];
  DPBO_TRY(dpbo_dataset_subset(data, rows, n_train, &tr, err));
  DPBO_TRY(dpbo_dataset_subset(data, rows + n_train, n_valid, &va, err));
  *train = tr;
  *valid = va;
  tr = va = NULL;
done:
  free(perm);
  free(rows);
  dpbo_dataset_destroy(tr);
  dpbo_dataset_destroy(va);
  return status;
}

dpbo_status dpbo_scaling_fit(const dpbo_dataset *ref, dpbo_scaling *scaling, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *lo = NULL, *hi = NULL;
  if (!ref || !scaling) DPBO_RAISE(DPBO_ERR_ARG, "dpbo_scaling_fit: NULL argument");
  memset(scaling, 0, sizeof *scaling);
  if (ref->n < 1) DPBO_RAISE(DPBO_ERR_ARG, "scaling needs at least one reference row");
  size_t d = (size_t)ref->d;
  DPBO_ALLOC(lo, d, "the scaling minima");
  DPBO_ALLOC(hi, d, "the scaling maxima");
  memcpy(lo, ref->x, d * sizeof *lo);
  memcpy(hi, ref->x, d * sizeof *hi);
  for (int64_t i = 1; i < ref->n; i++) {
    const double *row = ref->x + (size_t)i * d;
    for (size_t j = 0; j < d; j++) {
      if (row[j] < lo[j]) lo[j] = row[j];
      if (row[j] > hi[j]) hi[j] = row[j];
    }
  }
  scaling->d = ref->d;
  scaling->min = lo;
  scaling->max = hi;
  lo = hi = NULL;
done:
  free(lo);
  free(hi);
  return status;
}

dpbo_status dpbo_scaling_apply(const dpbo_scaling *scaling, dpbo_dataset *data, const char *which,
                               dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  size_t d = (size_t)scaling->d;
  for (int64_t i = 0; i < data->n; i++) {
    double *row = data->x + (size_t)i * d;
    for (size_t j = 0; j < d; j++) {
      double range = scaling->max[j] - scaling->min[j];
      /* The same expression as svm-scale with lower 0 and upper 1. */
      double scaled = range > 0.0 ? (row[j] - scaling->min[j]) / range : 0.0;
      /* The read values are within DPBO_DATASET_VALUE_MAX, so the
       * differences are finite; a tiny training range can still take the
       * quotient past DBL_MAX, and an infinite feature turns SVM kernels
       * and logistic losses into NaN. */
      if (!isfinite(scaled))
        DPBO_RAISE(DPBO_ERR_DATA,
                   "%s row %lld, feature %zu: %g lies so far outside the training range [%g, %g] "
                   "that min-max scaling overflows",
                   which, (long long)i + 1, j + 1, row[j], scaling->min[j], scaling->max[j]);
      row[j] = scaled;
    }
  }
done:
  return status;
}

void dpbo_scaling_free(dpbo_scaling *scaling) {
  if (!scaling) return;
  free(scaling->min);
  free(scaling->max);
  memset(scaling, 0, sizeof *scaling);
}

dpbo_status dpbo_dataset_write_libsvm(const dpbo_dataset *data, const char *path, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  FILE *fp = NULL;
  if (!data || !path) DPBO_RAISE(DPBO_ERR_ARG, "dpbo_dataset_write_libsvm: NULL argument");
  fp = fopen(path, "w");
  if (!fp) DPBO_RAISE(DPBO_ERR_IO, "cannot create '%s': %s", path, strerror(errno));
  size_t d = (size_t)data->d;
  for (int64_t i = 0; i < data->n; i++) {
    const double *row = data->x + (size_t)i * d;
    fprintf(fp, "%.17g", data->y[i]);
    for (size_t j = 0; j < d; j++) {
      if (row[j] != 0.0) fprintf(fp, " %zu:%.17g", j + 1, row[j]);
    }
    fputc('\n', fp);
  }
  if (ferror(fp)) DPBO_RAISE(DPBO_ERR_IO, "error writing '%s': %s", path, strerror(errno));
  int rc = fclose(fp);
  fp = NULL;
  if (rc != 0) DPBO_RAISE(DPBO_ERR_IO, "error closing '%s': %s", path, strerror(errno));
done:
  if (fp) fclose(fp);
  return status;
}
