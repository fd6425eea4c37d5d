/* The ledger file: one budget per validation set (ledger.h). */
#define _GNU_SOURCE

#include "run/ledger.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/log.h"
#include "dpbo/accountant.h"
#include "objectives/dataset.h"
#include "run/algorithm.h"
#include "run/guided.h"
#include "run/output.h"

static const char ledger_format_tag[] = "dpbo-ledger-1";
enum { LEDGER_FIELDS = 16 };

/* ---------------------------------------------------------------------------
 * FNV-1a-64: a checksum against accidents (ledger.h's threat model), not a
 * cryptographic hash. */

static const uint64_t ledger_fnv_offset = UINT64_C(0xcbf29ce484222325);

static uint64_t ledger_fnv(uint64_t h, const void *data, size_t n) {
  const unsigned char *p = data;
  for (size_t i = 0; i < n; i++) {
    h ^= p[i];
    h *= UINT64_C(0x100000001b3);
  }
  return h;
}

static uint64_t ledger_fnv_str(uint64_t h, const char *s) {
  return ledger_fnv(h, s, strlen(s) + 1); /* with the NUL: fields cannot run into each other */
}

static uint64_t ledger_fnv_u64(uint64_t h, uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; i++)
    b[i] = (unsigned char)(v >> (8 * i)); /* little-endian whatever the host */
  return ledger_fnv(h, b, 8);
}

static uint64_t ledger_fnv_double(uint64_t h, double x) {
  uint64_t bits;
  if (x == 0.0) x = 0.0; /* -0 and +0 are one value */
  memcpy(&bits, &x, sizeof bits);
  return ledger_fnv_u64(h, bits);
}

/* The chain of a line: the previous chain (as its 16 hex digits), a tab
 * and the line up to its last tab. */
static uint64_t ledger_chain(uint64_t prev, const char *body, size_t n) {
  char hex[20];
  snprintf(hex, sizeof hex, "%016llx\t", (unsigned long long)prev);
  return ledger_fnv(ledger_fnv(ledger_fnv_offset, hex, 17), body, n);
}

/* ---------------------------------------------------------------------------
 * The line format. */

typedef struct ledger_buf {
  char *p;
  size_t size, used;
  int ok;
} ledger_buf;

static void ledger_putc(ledger_buf *b, char c) {
  if (b->used + 1 >= b->size) {
    b->ok = 0;
    return;
  }
  b->p[b->used++] = c;
  b->p[b->used] = '\0';
}

/* A field, escaped, after a tab unless it is the first. */
static void ledger_field(ledger_buf *b, const char *s) {
  if (b->used > 0) ledger_putc(b, '\t');
  for (; *s; s++) {
    const char *esc = *s == '\\'   ? "\\\\"
                      : *s == '\t' ? "\\t"
                      : *s == '\n' ? "\\n"
                      : *s == '\r' ? "\\r"
                                   : NULL;
    if (esc) {
      ledger_putc(b, esc[0]);
      ledger_putc(b, esc[1]);
    } else {
      ledger_putc(b, *s);
    }
  }
}

static void ledger_number(ledger_buf *b, double x) {
  char text[40];
  if (isnan(x))
    snprintf(text, sizeof text, "-");
  else
    snprintf(text, sizeof text, "%.17g", x);
  ledger_field(b, text);
}

size_t dpbo__ledger_format(const dpbo_ledger_event *e, uint64_t prev, uint64_t *chain, char *line,
                           size_t size) {
  ledger_buf b = {line, size, 0, size > 0};
  char text[40];
  if (size > 0) line[0] = '\0';
  ledger_field(&b, ledger_format_tag);
  snprintf(text, sizeof text, "%lld", (long long)e->seq);
  ledger_field(&b, text);
  ledger_field(&b, e->time);
  ledger_field(&b, e->kind);
  ledger_field(&b, e->key);
  ledger_field(&b, e->key_source);
  ledger_field(&b, e->algorithm);
  ledger_field(&b, e->mechanism);
  ledger_field(&b, e->params);
  ledger_number(&b, e->epsilon);
  ledger_number(&b, e->delta);
  ledger_number(&b, e->rho);
  snprintf(text, sizeof text, "%lld", (long long)e->k);
  ledger_field(&b, text);
  ledger_field(&b, e->runfile);
  ledger_field(&b, e->host);
  if (!b.ok) return 0;
  *chain = ledger_chain(prev, line, b.used);
  snprintf(text, sizeof text, "%016llx", (unsigned long long)*chain);
  ledger_field(&b, text);
  ledger_putc(&b, '\n');
  return b.ok ? b.used : 0;
}

/* Unescapes the field [s, end) into out (size bytes); 0 on a bad escape or
 * a field too long. */
static int ledger_unescape(const char *s, const char *end, char *out, size_t size) {
  size_t n = 0;
  for (; s < end; s++) {
    char c = *s;
    if (c == '\\') {
      if (++s == end) return 0;
      c = *s == '\\' ? '\\' : *s == 't' ? '\t' : *s == 'n' ? '\n' : *s == 'r' ? '\r' : 0;
      if (!c) return 0;
    }
    if (n + 1 >= size) return 0;
    out[n++] = c;
  }
  out[n] = '\0';
  return 1;
}

static int ledger_parse_number(const char *text, double *x) {
  char *end;
  if (strcmp(text, "-") == 0) {
    *x = NAN;
    return 1;
  }
  *x = strtod(text, &end);
  return end != text && *end == '\0' && isfinite(*x) && *x >= 0.0;
}

static int ledger_parse_int(const char *text, int64_t *v) {
  char *end;
  errno = 0;
  long long x = strtoll(text, &end, 10);
  *v = x;
  return end != text && *end == '\0' && errno == 0 && x >= 0;
}

dpbo_status dpbo__ledger_parse(const char *line, uint64_t *chain, dpbo_ledger_event *e,
                               dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *start[LEDGER_FIELDS + 1];
  int count = 0;
  char text[64];
  memset(e, 0, sizeof *e);
  start[count++] = line;
  for (const char *p = line; *p; p++)
    if (*p == '\t') {
      if (count == LEDGER_FIELDS) DPBO_RAISE(DPBO_ERR_DATA, "more than %d fields", LEDGER_FIELDS);
      start[count++] = p + 1;
    }
  if (count != LEDGER_FIELDS)
    DPBO_RAISE(DPBO_ERR_DATA, "%d fields where %d were expected", count, LEDGER_FIELDS);
  start[LEDGER_FIELDS] = line + strlen(line) + 1;
#define FIELD_END(i) (start[(i) + 1] - 1)
  uint64_t expect = ledger_chain(*chain, line, (size_t)(start[LEDGER_FIELDS - 1] - 1 - line));
  char *end;
  if (!ledger_unescape(start[15], FIELD_END(15), text, sizeof text) || strlen(text) != 16)
    DPBO_RAISE(DPBO_ERR_DATA, "no checksum at the end");
  unsigned long long got = strtoull(text, &end, 16);
  if (*end || got != expect)
    DPBO_RAISE(DPBO_ERR_DATA,
               "its checksum does not match (this line, or one before it, was edited, removed or "
               "reordered)");
  *chain = expect;
  char *const strings[] = {NULL,          NULL,         e->time,      e->kind,  e->key,
                           e->key_source, e->algorithm, e->mechanism, e->params};
  const size_t sizes[] = {0,
                          0,
                          sizeof e->time,
                          sizeof e->kind,
                          sizeof e->key,
                          sizeof e->key_source,
                          sizeof e->algorithm,
                          sizeof e->mechanism,
                          sizeof e->params};
  if (!ledger_unescape(start[0], FIELD_END(0), text, sizeof text) ||
      strcmp(text, ledger_format_tag) != 0)
    DPBO_RAISE(DPBO_ERR_DATA, "not a %s line", ledger_format_tag);
  if (!ledger_unescape(start[1], FIELD_END(1), text, sizeof text) ||
      !ledger_parse_int(text, &e->seq))
    DPBO_RAISE(DPBO_ERR_DATA, "its sequence number does not parse");
  for (int i = 2; i <= 8; i++)
    if (!ledger_unescape(start[i], FIELD_END(i), strings[i], sizes[i]))
      DPBO_RAISE(DPBO_ERR_DATA, "field %d does not parse", i + 1);
  double *const numbers[] = {&e->epsilon, &e->delta, &e->rho};
  for (int i = 0; i < 3; i++)
    if (!ledger_unescape(start[9 + i], FIELD_END(9 + i), text, sizeof text) ||
        !ledger_parse_number(text, numbers[i]) || (i < 2 && isnan(*numbers[i])))
      DPBO_RAISE(DPBO_ERR_DATA, "field %d is not a number >= 0", 10 + i);
  if (!ledger_unescape(start[12], FIELD_END(12), text, sizeof text) ||
      !ledger_parse_int(text, &e->k))
    DPBO_RAISE(DPBO_ERR_DATA, "field 13 (k) is not an integer >= 0");
  if (!ledger_unescape(start[13], FIELD_END(13), e->runfile, sizeof e->runfile) ||
      !ledger_unescape(start[14], FIELD_END(14), e->host, sizeof e->host))
    DPBO_RAISE(DPBO_ERR_DATA, "the run file or host field does not parse");
  if (strcmp(e->kind, "charge") != 0 && strcmp(e->kind, "import") != 0 &&
      strcmp(e->kind, "replace") != 0)
    DPBO_RAISE(DPBO_ERR_DATA, "unknown kind '%s'", e->kind);
#undef FIELD_END
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * Paths and the validation-set key. */

/* The absolute path of `path`, which need not exist (its folder must). */
static dpbo_status ledger_absolute(const char *path, char *out, size_t size, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char real[PATH_MAX], dir[PATH_MAX];
  if (realpath(path, real)) {
    snprintf(out, size, "%s", real);
    goto done;
  }
  const char *slash = strrchr(path, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - path) : 1, slash ? path : ".");
  if (slash == path) snprintf(dir, sizeof dir, "/");
  if (!realpath(dir, real))
    DPBO_RAISE(DPBO_ERR_IO, "cannot find the folder of %s: %s", path, strerror(errno));
  int n =
      snprintf(out, size, "%s/%s", strcmp(real, "/") == 0 ? "" : real, slash ? slash + 1 : path);
  if (n < 0 || (size_t)n >= size) DPBO_RAISE(DPBO_ERR_IO, "%s: path too long", path);
done:
  return status;
}

void dpbo_ledger_path(const dpbo_config *config, const char *runfile, char *path, size_t size) {
  if (config->ledger_path[0]) {
    snprintf(path, size, "%s", config->ledger_path);
    return;
  }
  const char *slash = strrchr(runfile, '/');
  if (!slash)
    snprintf(path, size, "dpbo-ledger");
  else
    snprintf(path, size, "%.*s/dpbo-ledger", (int)(slash - runfile), runfile);
}

static int ledger_compare_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* The validation rows of an svm or logreg objective, as its constructor
 * reads and splits them (svm.c, logreg.c: dpbo_dataset_split of the rows
 * read), hashed row by row and in sorted order: a set, not a file. */
static dpbo_status ledger_key_rows(const char *data_path, const dpbo_dataset_options *read,
                                   uint64_t seed, int64_t n_train, int64_t m, uint64_t *h,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_dataset *data = NULL, *train = NULL, *valid = NULL;
  uint64_t *rows = NULL;
  if (dpbo_dataset_read_options(data_path, read, &data, err) != DPBO_OK ||
      dpbo_dataset_split(data, seed, n_train, m, &train, &valid, err) != DPBO_OK)
    DPBO_RAISE(err->code,
               "the ledger keys a release by its validation rows, and they cannot be read: %s "
               "(or name the validation set with privacy.dataset_id)",
               err->message);
  DPBO_ALLOC(rows, (size_t)valid->n, "the validation rows' hashes");
  for (int64_t i = 0; i < valid->n; i++) {
    uint64_t r = ledger_fnv_u64(ledger_fnv_offset, (uint64_t)valid->d);
    for (int j = 0; j < valid->d; j++)
      r = ledger_fnv_double(r, valid->x[i * valid->d + j]);
    rows[i] = ledger_fnv_double(r, valid->y[i]);
  }
  qsort(rows, (size_t)valid->n, sizeof *rows, ledger_compare_u64);
  *h = ledger_fnv_u64(ledger_fnv_str(*h, "rows"), (uint64_t)valid->n);
  for (int64_t i = 0; i < valid->n; i++)
    *h = ledger_fnv_u64(*h, rows[i]);
done:
  free(rows);
  dpbo_dataset_destroy(data);
  dpbo_dataset_destroy(train);
  dpbo_dataset_destroy(valid);
  return status;
}

dpbo_status dpbo_ledger_key(const dpbo_config *config, char key[17], char *source,
                            size_t source_size, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char what[600];
  /* The neighbour relation of every guarantee dpbo states (Definition 1). */
  uint64_t h = ledger_fnv_str(ledger_fnv_offset, "dpbo-validation-set-1\tswap");
  if (config->dataset_id[0]) {
    h = ledger_fnv_str(ledger_fnv_str(h, "dataset_id"), config->dataset_id);
    snprintf(what, sizeof what, "privacy.dataset_id = %s", config->dataset_id);
  } else if (config->objective == DPBO_OBJECTIVE_SVM ||
             config->objective == DPBO_OBJECTIVE_LOGREG) {
    const int svm = config->objective == DPBO_OBJECTIVE_SVM;
    const dpbo_svm_options *s = &config->svm;
    const dpbo_logreg_options *l = &config->logreg;
    dpbo_dataset_options read = {
        svm ? s->format : l->format, svm ? s->max_features : l->max_features,
        svm ? s->header : l->header, svm ? s->label_column : l->label_column,
        svm ? s->labels_path : l->labels_path};
    const char *path = svm ? s->data_path : l->data_path;
    const int64_t m = svm ? s->validation_rows : l->validation_rows;
    DPBO_TRY(ledger_key_rows(path, &read, svm ? s->split_seed : l->split_seed,
                             svm ? s->train_rows : l->train_rows, m, &h, err));
    snprintf(what, sizeof what, "the m = %lld validation rows of %.400s (swap neighbours)",
             (long long)m, path);
  } else if (config->objective == DPBO_OBJECTIVE_SYNTHETIC) {
    h = ledger_fnv_u64(ledger_fnv_str(h, "synthetic"), (uint64_t)config->synthetic);
    h = ledger_fnv_u64(h, (uint64_t)config->synthetic_features);
    h = ledger_fnv_double(h, config->synthetic_noise_std);
    h = ledger_fnv_u64(h, config->synthetic_seed);
    snprintf(what, sizeof what, "the synthetic objective's settings (seed %llu)",
             (unsigned long long)config->synthetic_seed);
  } else {
    h = ledger_fnv_str(ledger_fnv_str(h, "command"), config->command.command);
    snprintf(what, sizeof what, "the command line %.400s (privacy.dataset_id names the data)",
             config->command.command);
  }
  snprintf(key, 17, "%016llx", (unsigned long long)h);
  if (source) snprintf(source, source_size, "%s", what);
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * Reading the file. */

/* What one pass over the ledger learns about a key and a run file. */
typedef struct ledger_view {
  const char *key, *runfile; /* filters (runfile: absolute) */
  int64_t lines;
  uint64_t chain;
  dpbo_privacy_ledger totals; /* the key's charges and imports */
  int64_t events;
  int all_zcdp;
  double rho;
  int64_t path_draws; /* charges and imports naming runfile since its last replace */
  double path_epsilon;
  int path_run_charged; /* a private_evaluations charge of runfile since then */
  FILE *print;          /* the key's events, for dpbo info */
} ledger_view;

static void ledger_view_add(ledger_view *v, double epsilon, double delta, double rho,
                            int64_t draws) {
  dpbo_privacy_ledger_add(&v->totals, epsilon, delta);
  if (draws > 1) v->totals.draws += draws - 1;
  v->events++;
  if (isnan(rho))
    v->all_zcdp = 0;
  else
    v->rho = dpbo_privacy_round_up(v->rho + rho);
}

static void ledger_view_event(ledger_view *v, const dpbo_ledger_event *e) {
  const int same_path = v->runfile && strcmp(e->runfile, v->runfile) == 0;
  if (strcmp(e->kind, "replace") == 0) {
    if (same_path) {
      v->path_draws = 0;
      v->path_epsilon = 0.0;
      v->path_run_charged = 0;
    }
    return;
  }
  if (strcmp(e->key, v->key) != 0) return;
  const int64_t draws = strcmp(e->kind, "import") == 0 ? e->k : 1;
  ledger_view_add(v, e->epsilon, e->delta, e->rho, draws);
  if (same_path) {
    v->path_draws += draws;
    v->path_epsilon += e->epsilon;
    if (strcmp(e->kind, "charge") == 0 && strcmp(e->algorithm, "private_evaluations") == 0)
      v->path_run_charged = 1;
  }
  if (v->print)
    fprintf(v->print, "  %lld  %s  %-7s %-20s eps %-10.6g delta %-10.3g %s%s  %s\n",
            (long long)e->seq, e->time, e->kind, e->algorithm, e->epsilon, e->delta,
            draws > 1 ? "(several) " : "", e->mechanism, e->runfile);
}

/* Reads and verifies the whole ledger on fd into v. */
static dpbo_status ledger_load(int fd, const char *path, ledger_view *v, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char *text = NULL;
  dpbo_ledger_event *e = NULL;
  struct stat st;
  v->lines = 0;
  v->chain = 0;
  v->all_zcdp = 1;
  if (fstat(fd, &st) != 0)
    DPBO_RAISE(DPBO_ERR_IO, "cannot read the ledger %s: %s", path, strerror(errno));
  size_t size = (size_t)st.st_size, got = 0;
  DPBO_ALLOC(text, size + 1, "the ledger");
  DPBO_ALLOC(e, 1, "a ledger event");
  while (got < size) {
    ssize_t n = pread(fd, text + got, size - got, (off_t)got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      DPBO_RAISE(DPBO_ERR_IO, "cannot read the ledger %s: %s", path,
                 n < 0 ? strerror(errno) : "it shrank");
    got += (size_t)n;
  }
  text[size] = '\0';
  if (strlen(text) != size)
    DPBO_RAISE(DPBO_ERR_DATA,
               "the ledger %s holds a NUL byte: it is damaged (docs/design.md, The ledger)", path);
  if (size > 0 && text[size - 1] != '\n')
    DPBO_RAISE(DPBO_ERR_DATA,
               "the ledger %s: its last line is incomplete (a write was cut short, or the file "
               "was edited): no budget is charged until it is repaired (docs/design.md, The "
               "ledger)",
               path);
  for (char *line = text; *line;) {
    char *nl = strchr(line, '\n');
    *nl = '\0';
    v->lines++;
    dpbo_error why;
    dpbo_error_clear(&why);
    if (dpbo__ledger_parse(line, &v->chain, e, &why) != DPBO_OK)
      DPBO_RAISE(DPBO_ERR_DATA,
                 "the ledger %s, line %lld: %s. The ledger is append-only and each line's "
                 "checksum covers every line before it: it was changed by hand or damaged, and "
                 "no budget is charged until it is restored (from a backup, or by removing the "
                 "lines added by hand; docs/design.md, The ledger)",
                 path, (long long)v->lines, why.message);
    if (e->seq != v->lines)
      DPBO_RAISE(DPBO_ERR_DATA,
                 "the ledger %s, line %lld: numbered %lld (lines were removed or reordered; "
                 "docs/design.md, The ledger)",
                 path, (long long)v->lines, (long long)e->seq);
    ledger_view_event(v, e);
    line = nl + 1;
  }
done:
  free(text);
  free(e);
  return status;
}

/* Opens the ledger (created 0600 when missing) and locks it exclusively,
 * waiting for another dpbo's transaction to end. */
static dpbo_status ledger_open(const char *path, int *fd_out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
  *fd_out = -1;
  if (fd < 0)
    DPBO_RAISE(DPBO_ERR_IO, "cannot open the ledger %s (privacy.ledger): %s%s", path,
               strerror(errno), errno == ELOOP ? " (a symbolic link: give the real path)" : "");
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
    DPBO_RAISE(DPBO_ERR_IO, "the ledger %s (privacy.ledger) is not a regular file", path);
  while (flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    if (errno == ENOLCK || errno == ENOSYS || errno == EOPNOTSUPP) {
      dpbo_log_warn("dpbo: cannot lock the ledger %s (%s): two releases at the same moment "
                    "could both pass a budget that fits one",
                    path, strerror(errno));
      break;
    }
    DPBO_RAISE(DPBO_ERR_IO, "cannot lock the ledger %s: %s", path, strerror(errno));
  }
  *fd_out = fd;
  fd = -1;
done:
  if (fd >= 0) close(fd);
  return status;
}

/* ---------------------------------------------------------------------------
 * Transactions. */

typedef struct ledger_request {
  int charge;     /* append a charge of (epsilon, delta, rho, k) */
  int run_start;  /* ... unless runfile has a private_evaluations charge already */
  int import;     /* import the run file's own ledger when no ledger file holds it */
  int sync;       /* copy into the run file's own ledger and mark it */
  int add;        /* sync: add (epsilon, delta) to it */
  int check_only; /* nothing is written: only refuse past the budget */
  double epsilon, delta, rho;
  int64_t k;
  double budget_epsilon, budget_delta; /* budget_epsilon <= 0: none */
} ledger_request;

static void ledger_event_base(dpbo_ledger_event *e, const char *kind, const char *key,
                              const char *source, const char *runfile) {
  memset(e, 0, sizeof *e);
  snprintf(e->kind, sizeof e->kind, "%s", kind);
  snprintf(e->key, sizeof e->key, "%s", key);
  snprintf(e->key_source, sizeof e->key_source, "%s", source);
  snprintf(e->runfile, sizeof e->runfile, "%s", runfile);
  gethostname(e->host, sizeof e->host);
  e->host[sizeof e->host - 1] = '\0';
  time_t t = time(NULL);
  struct tm tm;
  if (gmtime_r(&t, &tm)) strftime(e->time, sizeof e->time, "%Y-%m-%dT%H:%M:%SZ", &tm);
  e->rho = NAN;
}

/* The run file's own ledger, read for an import and for the checks: says
 * where it contradicts the ledger file (issue #27 item 8). */
static void ledger_check_infile(const char *runfile, const dpbo_privacy_ledger *in,
                                const dpbo_output_ledger_mark *mark, const char *ledger,
                                const char *abs, const ledger_view *v) {
  const double tol = 1e-9;
  if (in->draws > 0 && isfinite(in->epsilon_sq_sum) && isfinite(in->epsilon_sum)) {
    /* Cauchy–Schwarz: (Σε)²/n <= Σε² <= (Σε)², and Σ ε tanh(ε/2) <= (Σε) tanh(Σε/2). */
    const double s = in->epsilon_sum, sq = in->epsilon_sq_sum;
    if (sq < s * s / (double)in->draws * (1 - tol) || sq > s * s * (1 + tol) + 1e-300 ||
        (isfinite(in->epsilon_tanh_sum) && in->epsilon_tanh_sum > s * tanh(s / 2) * (1 + tol)))
      dpbo_log_warn("dpbo: %s: its own ledger is inconsistent (release_epsilon_spent = %.6g over "
                    "%lld releases, release_epsilon_squared_sum = %.6g, "
                    "release_epsilon_tanh_sum = %.6g cannot all hold): it was edited; the ledger "
                    "file %s is the authority and counts what it recorded",
                    runfile, s, (long long)in->draws, sq, in->epsilon_tanh_sum, ledger);
  }
  if (!mark->present || strcmp(mark->ledger, ledger) != 0 || strcmp(mark->runfile, abs) != 0)
    return;
  if (v->path_draws > in->draws)
    dpbo_log_warn("dpbo: %s: its own ledger counts %lld release%s, but the ledger file %s records "
                  "%lld from this run file: it was restored from an older copy or edited (or a "
                  "crash came between the two writes). The ledger file is the authority: its "
                  "count numbers the releases and its totals are charged",
                  runfile, (long long)in->draws, in->draws == 1 ? "" : "s", ledger,
                  (long long)v->path_draws);
  else if (v->path_draws == in->draws &&
           fabs(v->path_epsilon - in->epsilon_sum) > tol * fmax(1.0, v->path_epsilon))
    dpbo_log_warn("dpbo: %s: its own ledger says epsilon = %.6g was spent, the ledger file %s "
                  "records %.6g for this run file: it was edited; the ledger file is the authority",
                  runfile, in->epsilon_sum, ledger, v->path_epsilon);
}

/* The zCDP total of the totals t, where every event allows it (all_zcdp)
 * and ρ converts at t's δ. */
static void ledger_zcdp_total(const dpbo_privacy_ledger *t, int all_zcdp, double rho,
                              dpbo_ledger_zcdp *out) {
  dpbo_error ignore;
  double eps_z = NAN;
  out->present = 0;
  out->rho = out->epsilon = out->delta = NAN;
  if (all_zcdp && t->draws > 0 && rho > 0 && t->delta_sum > 0 && t->delta_sum < 1 &&
      dpbo_accountant_zcdp_epsilon(rho, t->delta_sum, &eps_z, &ignore) == DPBO_OK) {
    out->present = 1;
    out->rho = rho;
    out->epsilon = eps_z;
    out->delta = t->delta_sum;
  }
}

static void ledger_log_totals(const char *ledger, const char *key, const char *source,
                              const dpbo_privacy_ledger *t, int all_zcdp, double rho) {
  char zcdp[160] = "";
  dpbo_ledger_zcdp z;
  ledger_zcdp_total(t, all_zcdp, rho, &z);
  if (z.present)
    snprintf(zcdp, sizeof zcdp,
             "; zCDP (every event allows it): rho = %.4g, epsilon = %.4g at delta = %.3g", z.rho,
             z.epsilon, z.delta);
  dpbo_log_info("ledger %s: validation set %s (%s): %lld release%s, epsilon = %.4g, delta = %.3g "
                "in all (basic composition%s)",
                ledger, key, source, (long long)t->draws, t->draws == 1 ? "" : "s", t->epsilon_sum,
                t->delta_sum, zcdp);
}

/* One ledger transaction in progress (ledger_transact): the paths and key,
 * the locked ledger file and what it holds, the run file's own ledger, and
 * the totals the request makes. */
typedef struct ledger_txn {
  const char *runfile;
  const dpbo_config *config;
  const ledger_request *req;
  char abs[PATH_MAX + 8], lpath[PATH_MAX + 32], labs[PATH_MAX + 8], key[17], source[512];
  int fd;     /* the ledger file, locked while open */
  int exists; /* the run file exists */
  ledger_view v;
  dpbo_privacy_ledger in; /* the run file's own ledger */
  dpbo_output_ledger_mark *mark;
  dpbo_ledger_event *e;
  char *buf;
  /* What the run file's own ledger holds that no ledger file records. */
  int64_t imp_draws;
  double imp_eps, imp_delta;
  dpbo_privacy_ledger total; /* the key's totals after the request */
  int charge, all_zcdp;      /* all_zcdp, rho: the zCDP total, where every event allows it */
  double rho;
} ledger_txn;

/* Validate: the absolute paths and the key, the run file's own ledger where
 * the request reads it, and the ledger file, opened (locked) and read. */
static dpbo_status ledger_txn_open(ledger_txn *t, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const ledger_request *req = t->req;
  DPBO_ALLOC(t->mark, 1, "the run file's ledger mark");
  DPBO_ALLOC(t->e, 1, "a ledger event");
  DPBO_TRY(ledger_absolute(t->runfile, t->abs, sizeof t->abs, err));
  dpbo_ledger_path(t->config, t->abs, t->lpath, sizeof t->lpath);
  DPBO_TRY(ledger_absolute(t->lpath, t->labs, sizeof t->labs, err));
  DPBO_TRY(dpbo_ledger_key(t->config, t->key, t->source, sizeof t->source, err));
  t->exists = access(t->runfile, F_OK) == 0;
  if ((req->import || req->sync) && t->exists)
    DPBO_TRY(dpbo_output_read_ledger_mark(t->runfile, &t->in, t->mark, err));
  DPBO_TRY(ledger_open(t->labs, &t->fd, err));
  t->v.key = t->key;
  t->v.runfile = t->abs;
  DPBO_TRY(ledger_load(t->fd, t->labs, &t->v, err));
  if (t->exists) ledger_check_infile(t->runfile, &t->in, t->mark, t->labs, t->abs, &t->v);
done:
  return status;
}

/* Plan: what to import from the run file's own ledger, whether to charge,
 * and the totals after both; refused past privacy.budget. */
static dpbo_status ledger_txn_plan(ledger_txn *t, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const ledger_request *req = t->req;
  const dpbo_output_ledger_mark *mark = t->mark;
  const dpbo_privacy_ledger *in = &t->in;
  t->imp_draws = 0;
  if (req->import && t->exists && in->draws > 0) {
    if (!mark->present || strcmp(mark->ledger, t->labs) != 0) {
      t->imp_draws = in->draws;
      t->imp_eps = in->epsilon_sum;
      t->imp_delta = in->delta_sum;
    } else if (in->draws > mark->draws) {
      t->imp_draws = in->draws - mark->draws;
      t->imp_eps = fmax(0.0, in->epsilon_sum - mark->epsilon);
      t->imp_delta = fmax(0.0, in->delta_sum - mark->delta);
    }
    if (!(isfinite(t->imp_eps) && isfinite(t->imp_delta)))
      DPBO_RAISE(DPBO_ERR_DATA, "%s: its own ledger holds no finite totals to import", t->runfile);
  }
  t->total = t->v.totals;
  t->all_zcdp = t->v.all_zcdp;
  t->rho = t->v.rho;
  if (t->imp_draws > 0) {
    dpbo_privacy_ledger_add(&t->total, t->imp_eps, t->imp_delta);
    t->total.draws += t->imp_draws - 1;
    t->all_zcdp = 0;
  }
  t->charge = req->charge;
  if (t->charge && req->run_start && t->v.path_run_charged) {
    t->charge = 0; /* a resume: the run's mechanisms are charged already */
    dpbo_log_info("dpbo: the ledger %s holds this run's charge already: the resume adds none",
                  t->labs);
  } else if (t->charge && req->run_start && t->exists) {
    dpbo_log_warn("dpbo: the ledger %s holds no charge of %s at this path (a copy or a rename of "
                  "a checkpoint, or one written before the ledger file): its (epsilon, delta) is "
                  "charged again before it continues (over-counting is safe)",
                  t->labs, t->runfile);
  }
  if (!t->charge) goto done;
  dpbo_privacy_ledger_add(&t->total, req->epsilon, req->delta);
  if (isnan(req->rho))
    t->all_zcdp = 0;
  else
    t->rho = dpbo_privacy_round_up(t->rho + req->rho);
  if (req->budget_epsilon > 0 &&
      !dpbo_privacy_ledger_within(&t->total, req->budget_epsilon, req->budget_delta)) {
    dpbo_privacy_ledger spent = t->v.totals;
    if (t->imp_draws > 0) {
      dpbo_privacy_ledger_add(&spent, t->imp_eps, t->imp_delta);
      spent.draws += t->imp_draws - 1;
    }
    DPBO_RAISE(
        DPBO_ERR_CONFIG,
        "%s: this release (epsilon = %.6g, delta = %.6g) would bring the spend on its "
        "validation set %s (%s) to epsilon = %.6g, delta = %.6g (basic composition), "
        "past privacy.budget = %.6g %.6g. Spent so far: epsilon = %.6g, delta = %.6g "
        "over %lld release%s, recorded in the ledger %s%s; remaining: epsilon = %.6g, "
        "delta = %.6g. Refused: %s",
        t->runfile, req->epsilon, req->delta, t->key, t->source, t->total.epsilon_sum,
        t->total.delta_sum, req->budget_epsilon, req->budget_delta, spent.epsilon_sum,
        spent.delta_sum, (long long)spent.draws, spent.draws == 1 ? "" : "s", t->labs,
        t->imp_draws > 0 ? " (with the run file's own ledger, written before the ledger file)" : "",
        fmax(0.0, req->budget_epsilon - spent.epsilon_sum),
        fmax(0.0, req->budget_delta - spent.delta_sum),
        req->check_only ? "nothing was evaluated, removed or released (the run's release "
                          "could not fit)"
                        : "nothing released");
  }
done:
  return status;
}

/* The lines of the plan, chained to the ledger's last one: the import (if
 * any) and the charge, into t->buf; *used: their bytes. */
static dpbo_status ledger_txn_format(ledger_txn *t, size_t line_max, size_t *used,
                                     dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const ledger_request *req = t->req;
  const dpbo_config *config = t->config;
  dpbo_ledger_event *e = t->e;
  uint64_t chain = t->v.chain;
  int64_t seq = t->v.lines;
  *used = 0;
  if (t->imp_draws > 0) {
    ledger_event_base(e, "import", t->key, t->source, t->abs);
    e->seq = ++seq;
    snprintf(e->algorithm, sizeof e->algorithm, "%s", dpbo_algorithm_name(config->algorithm));
    snprintf(e->mechanism, sizeof e->mechanism, "the run file's own ledger");
    snprintf(e->params, sizeof e->params, "releases_drawn=%lld (written before the ledger file)",
             (long long)t->imp_draws);
    e->epsilon = t->imp_eps;
    e->delta = t->imp_delta;
    e->k = t->imp_draws;
    size_t n = dpbo__ledger_format(e, chain, &chain, t->buf + *used, line_max);
    if (!n) DPBO_RAISE(DPBO_ERR_ARG, "a ledger line does not fit in %zu bytes", line_max);
    *used += n;
  }
  if (t->charge) {
    ledger_event_base(e, "charge", t->key, t->source, t->abs);
    e->seq = ++seq;
    snprintf(e->algorithm, sizeof e->algorithm, "%s", dpbo_algorithm_name(config->algorithm));
    if (!isnan(req->rho)) {
      snprintf(e->mechanism, sizeof e->mechanism, "discrete_gaussian");
      snprintf(e->params, sizeof e->params, "K=%lld sensitivity=%.17g sigma=%.17g noise=%s",
               (long long)req->k, config->evals.sensitivity, config->evals.sigma,
               config->noise == DPBO_NOISE_SEEDED ? "seeded" : "os");
    } else if (dpbo_algorithm_ops_get(config->algorithm)->guided_selection) {
      /* Stage 2 by random search: its split and selection as well. */
      char search[96] = "";
      if (dpbo_guided_base_is_search(config->guided_base))
        snprintf(search, sizeof search, " split=%.17g selection=%s", config->privacy_split,
                 dpbo_select_kind_name(config->selection));
      /* Stage 1 on the proxy task spends nothing: no mechanism of its own. */
      const int proxy = config->guided_proxy_rows > 0;
      snprintf(e->mechanism, sizeof e->mechanism, "%s%s", proxy ? "proxy+" : "discrete_gaussian+",
               dpbo_algorithm_name(config->guided_base));
      snprintf(e->params, sizeof e->params,
               "T1=%d proxy_rows=%lld epsilon_share=%.17g delta_share=%.17g weight=%.17g "
               "temperature=%.17g score=%s ps_eta=%.17g%s noise=%s",
               config->guided_evaluations, (long long)config->guided_proxy_rows,
               config->guided_epsilon_share, config->guided_delta_share, config->guided_weight,
               config->guided_temperature,
               dpbo_guided_score_name((dpbo_guided_score)config->guided_score), config->ps_eta,
               search, config->noise == DPBO_NOISE_SEEDED ? "seeded" : "os");
    } else {
      snprintf(e->mechanism, sizeof e->mechanism, "%s+laplace",
               dpbo_select_kind_name(config->selection));
      snprintf(e->params, sizeof e->params, "split=%.17g k1=%.17g ps_eta=%.17g noise=%s",
               config->privacy_split, config->k1, config->ps_eta,
               config->noise == DPBO_NOISE_SEEDED ? "seeded" : "os");
    }
    e->epsilon = req->epsilon;
    e->delta = req->delta;
    e->rho = req->rho;
    e->k = req->k;
    size_t n = dpbo__ledger_format(e, chain, &chain, t->buf + *used, line_max);
    if (!n) DPBO_RAISE(DPBO_ERR_ARG, "a ledger line does not fit in %zu bytes", line_max);
    *used += n;
  }
done:
  return status;
}

/* Write: the plan's lines appended in one write and synced (a torn line is
 * taken back), the ledger closed (its lock dropped), then the run file's
 * own ledger synced. */
static dpbo_status ledger_txn_append(ledger_txn *t, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const size_t line_max = 16384;
  size_t used = 0;
  DPBO_ALLOC(t->buf, 2 * line_max, "the ledger lines");
  DPBO_TRY(ledger_txn_format(t, line_max, &used, err));
  if (used > 0) {
    struct stat st;
    off_t before = fstat(t->fd, &st) == 0 ? st.st_size : -1;
    size_t done_bytes = 0;
    while (done_bytes < used) {
      ssize_t n = write(t->fd, t->buf + done_bytes, used - done_bytes);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int error = errno;
        /* A torn line would stop every later transaction: take it back. */
        if (before >= 0 && ftruncate(t->fd, before) != 0)
          dpbo_log_warn("dpbo: cannot take back a partial line of %s", t->labs);
        DPBO_RAISE(DPBO_ERR_IO, "cannot write the ledger %s: %s: nothing released", t->labs,
                   n < 0 ? strerror(error) : "short write");
      }
      done_bytes += (size_t)n;
    }
    if (fsync(t->fd) != 0)
      DPBO_RAISE(DPBO_ERR_IO, "cannot sync the ledger %s: %s: nothing released", t->labs,
                 strerror(errno));
  }
  close(t->fd);
  t->fd = -1;
  if (t->req->sync && t->exists) {
    dpbo_privacy_ledger own;
    DPBO_TRY(dpbo_output_sync_ledger(t->runfile, t->req->add,
                                     (dpbo_privacy_cost){t->req->epsilon, t->req->delta}, t->labs,
                                     t->abs, &own, err));
  }
done:
  return status;
}

/* A ledger transaction in phases: open (validate), plan, append (write),
 * then what the caller asked to learn. */
static dpbo_status ledger_transact(const char *runfile, const dpbo_config *config,
                                   const ledger_request *req, dpbo_privacy_ledger *after,
                                   dpbo_ledger_zcdp *zcdp, int64_t *number, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  ledger_txn *t = NULL;
  DPBO_ALLOC(t, 1, "a ledger transaction");
  t->runfile = runfile;
  t->config = config;
  t->req = req;
  t->fd = -1;
  DPBO_TRY(ledger_txn_open(t, err));
  DPBO_TRY(ledger_txn_plan(t, err));
  if (req->check_only) goto done;
  DPBO_TRY(ledger_txn_append(t, err));
  if (!req->run_start || t->charge)
    ledger_log_totals(t->labs, t->key, t->source, &t->total, t->all_zcdp, t->rho);
done:
  if (status == DPBO_OK && after) *after = t->total;
  if (status == DPBO_OK && zcdp) ledger_zcdp_total(&t->total, t->all_zcdp, t->rho, zcdp);
  /* The run file's releases: the ledger's count for its path, or its own
   * count where that is higher (a copy or a rename, whose path is new). */
  if (status == DPBO_OK && number) {
    const int64_t counted = t->v.path_draws + t->imp_draws + (t->charge ? 1 : 0),
                  own = t->in.draws + (req->add ? 1 : 0);
    *number = counted > own ? counted : own;
  }
  if (t) {
    if (t->fd >= 0) close(t->fd); /* closing drops the lock */
    free(t->buf);
    free(t->mark);
    free(t->e);
    free(t);
  }
  return status;
}

dpbo_status dpbo_ledger_record_release(const char *runfile, const dpbo_config *config,
                                       const dpbo_ledger_charge *charge, dpbo_privacy_ledger *after,
                                       dpbo_ledger_zcdp *zcdp, int64_t *number, dpbo_error *err) {
  ledger_request req = {1,
                        0,
                        1,
                        1,
                        1,
                        0,
                        charge->epsilon,
                        charge->delta,
                        NAN,
                        1,
                        charge->budget_epsilon,
                        charge->budget_delta};
  return ledger_transact(runfile, config, &req, after, zcdp, number, err);
}

dpbo_status dpbo_ledger_next_number(const char *runfile, const dpbo_config *config, int charge,
                                    int64_t *number, dpbo_error *err) {
  /* A check that writes nothing and checks no budget (the draw's epsilon is
   * not known yet): only the count, as the record would make it. */
  ledger_request req = {charge, 0, 1, 0, charge, 1, 0.0, 0.0, NAN, 1, 0.0, 0.0};
  return ledger_transact(runfile, config, &req, NULL, NULL, number, err);
}

dpbo_status dpbo_ledger_charge_run(const char *checkpoint, const dpbo_config *config,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double rho = NAN;
  DPBO_TRY(dpbo_accountant_gaussian_rho(config->evals.max_evaluations, config->evals.sensitivity,
                                        config->evals.sigma, &rho, err));
  ledger_request req = {1,
                        1,
                        0,
                        0,
                        0,
                        0,
                        config->privacy_epsilon,
                        config->privacy_delta,
                        rho,
                        config->evals.max_evaluations,
                        config->budget_epsilon,
                        config->budget_delta};
  DPBO_TRY(ledger_transact(checkpoint, config, &req, NULL, NULL, NULL, err));
done:
  return status;
}

dpbo_status dpbo_ledger_charge_guided(const char *runfile, const dpbo_config *config,
                                      double epsilon, double delta, dpbo_error *err) {
  /* A charge as a release's (record_release), made before the run. */
  ledger_request req = {
      1, 0, 1, 0, 0, 0, epsilon, delta, NAN, 1, config->budget_epsilon, config->budget_delta};
  return ledger_transact(runfile, config, &req, NULL, NULL, NULL, err);
}

dpbo_status dpbo_ledger_note(const char *runfile, const dpbo_config *config, int add,
                             dpbo_privacy_cost cost, dpbo_privacy_ledger *after,
                             dpbo_ledger_zcdp *zcdp, dpbo_error *err) {
  ledger_request req = {0, 0, 1, 1, add, 0, cost.epsilon, cost.delta, NAN, 0, 0.0, 0.0};
  return ledger_transact(runfile, config, &req, after, zcdp, NULL, err);
}

dpbo_status dpbo_ledger_check(const char *runfile, const dpbo_config *config, double epsilon,
                              double delta, dpbo_error *err) {
  ledger_request req = {
      1, 0, 0, 0, 0, 1, epsilon, delta, NAN, 1, config->budget_epsilon, config->budget_delta};
  if (!(config->budget_epsilon > 0)) return DPBO_OK;
  return ledger_transact(runfile, config, &req, NULL, NULL, NULL, err);
}

dpbo_status dpbo_ledger_note_replace(const char *runfile, const dpbo_config *config,
                                     dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char abs[PATH_MAX + 8], lpath[PATH_MAX + 32], labs[PATH_MAX + 8], line[16384];
  int fd = -1;
  ledger_view v;
  dpbo_ledger_event *e = NULL;
  memset(&v, 0, sizeof v);
  DPBO_ALLOC(e, 1, "a ledger event");
  DPBO_TRY(ledger_absolute(runfile, abs, sizeof abs, err));
  dpbo_ledger_path(config, abs, lpath, sizeof lpath);
  DPBO_TRY(ledger_absolute(lpath, labs, sizeof labs, err));
  if (access(labs, F_OK) != 0) goto done; /* no ledger: nothing was charged here */
  DPBO_TRY(ledger_open(labs, &fd, err));
  v.key = "-";
  DPBO_TRY(ledger_load(fd, labs, &v, err));
  ledger_event_base(e, "replace", "-", "-", abs);
  e->seq = v.lines + 1;
  snprintf(e->algorithm, sizeof e->algorithm, "-");
  snprintf(e->mechanism, sizeof e->mechanism, "-");
  snprintf(e->params, sizeof e->params, "dpbo run --overwrite: what it spent stays spent");
  e->epsilon = e->delta = 0.0;
  uint64_t chain;
  size_t n = dpbo__ledger_format(e, v.chain, &chain, line, sizeof line);
  if (!n) DPBO_RAISE(DPBO_ERR_ARG, "a ledger line does not fit");
  if (write(fd, line, n) != (ssize_t)n || fsync(fd) != 0)
    DPBO_RAISE(DPBO_ERR_IO, "cannot write the ledger %s: %s", labs, strerror(errno));
done:
  if (fd >= 0) close(fd);
  free(e);
  return status;
}

dpbo_status dpbo_ledger_print(const char *runfile, const dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char abs[PATH_MAX + 8], lpath[PATH_MAX + 32], labs[PATH_MAX + 8], key[17], source[512];
  int fd = -1;
  ledger_view v;
  memset(&v, 0, sizeof v);
  DPBO_TRY(ledger_absolute(runfile, abs, sizeof abs, err));
  dpbo_ledger_path(config, abs, lpath, sizeof lpath);
  DPBO_TRY(ledger_absolute(lpath, labs, sizeof labs, err));
  DPBO_TRY(dpbo_ledger_key(config, key, source, sizeof source, err));
  printf("ledger: %s\n  validation set %s: %s\n", labs, key, source);
  if (access(labs, F_OK) != 0) {
    printf("  no ledger file yet: nothing spent on this validation set here\n");
    goto done;
  }
  fd = open(labs, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0 || flock(fd, LOCK_SH) != 0)
    DPBO_RAISE(DPBO_ERR_IO, "cannot read the ledger %s: %s", labs, strerror(errno));
  v.key = key;
  v.runfile = abs;
  v.print = stdout;
  DPBO_TRY(ledger_load(fd, labs, &v, err));
  printf("  spent on it: %lld release%s, epsilon = %.6g, delta = %.6g (basic composition; "
         "privacy.budget caps these)\n",
         (long long)v.totals.draws, v.totals.draws == 1 ? "" : "s", v.totals.epsilon_sum,
         v.totals.delta_sum);
  dpbo_ledger_zcdp z;
  ledger_zcdp_total(&v.totals, v.events > 0 && v.all_zcdp, v.rho, &z);
  if (z.present)
    printf("  zCDP (every event allows it): rho = %.6g, epsilon = %.6g at delta = %.6g\n", z.rho,
           z.epsilon, z.delta);
  if (config->budget_epsilon > 0)
    printf("  privacy.budget = %g %g: remaining epsilon = %.6g, delta = %.6g\n",
           config->budget_epsilon, config->budget_delta,
           fmax(0.0, config->budget_epsilon - v.totals.epsilon_sum),
           fmax(0.0, config->budget_delta - v.totals.delta_sum));
done:
  if (fd >= 0) close(fd);
  return status;
}
