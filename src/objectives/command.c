/* The command objective: one child process per evaluation.
 *
 * The parent prepares everything that allocates (argv, environment, the
 * program's path) before fork(), because an MPI process is multi-threaded
 * and between fork() and exec the child may only make async-signal-safe
 * calls. The PATH search is therefore done by the parent with execvp's rules
 * (a name with a '/' is used as is; otherwise the first executable regular
 * file along PATH) and the child calls execve. */
#define _GNU_SOURCE

#include "objectives/command.h"
#include "base/proc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* How much of a line of stdout is kept (the gain is its last token) and how
 * much of stderr the error message quotes. */
#define CMD_LINE_KEEP 4096
#define CMD_LINE_KEEP_TEXT "2048" /* what a cut line keeps: CMD_LINE_KEEP / 2 */
_Static_assert(CMD_LINE_KEEP / 2 == 2048, "CMD_LINE_KEEP_TEXT states what a cut line keeps");
#define CMD_STDERR_KEEP 500
/* How much of the command and of the hyper-parameters an error message
 * quotes, so the stderr tail always fits in DPBO_ERROR_MSG_MAX. */
#define CMD_SHOW_COMMAND 120
#define CMD_SHOW_PARAMS 160

typedef struct command {
  char text[DPBO_COMMAND_MAX]; /* the command as configured, for messages */
  int check_range;             /* objective.value_range given: gains outside are failures */
  double value_lo, value_hi;
  int argc;    /* fixed words */
  char **argv; /* argc words, NULL-terminated */
  char *path;  /* the resolved program */
  dpbo_pass_mode pass;
  double timeout_s;
  volatile sig_atomic_t cancelled; /* set by command_cancel from another thread */
  /* Persistent mode: the running program (server > 0), our ends of its
   * pipes, the requests it answered, whether it has been reaped, and
   * whether it printed beyond a reply (ended before the next request). */
  int persistent;
  pid_t server;
  int server_in, server_out, server_err;
  long served;
  int server_reaped, server_dirty;
  int d;                      /* dimensions known (0: none, values as %.17g) */
  dpbo_dim dim[DPBO_MAX_DIM]; /* their kinds and category names */
  /* options.reply_pair: the reply is "VAL TEST", read into gain[0], gain[1]. Only
   * dpbo compare's table asks it, and its first failure ends the table: the
   * persistent program's messages then do not say it starts again. */
  int pair;
} command;

/* --- parsing the command string ------------------------------------------ */

/* Splits text into words on blanks; "..." groups blanks into a word, and
 * inside quotes \" and \\ stand for " and \. No other shell syntax: the
 * program is not run through a shell. */
static dpbo_status command_split_words(const char *text, int *argc_out, char ***argv_out,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  size_t len = strlen(text);
  char *buf = NULL;
  char **argv = NULL;
  int argc = 0;
  /* At most len/2 + 1 words; every word fits in a copy of the text. */
  DPBO_ALLOC(argv, len / 2 + 2, "command words");
  DPBO_ALLOC(buf, len + 1, "a command word");
  const char *p = text;
  for (;;) {
    while (*p == ' ' || *p == '\t')
      p++;
    if (!*p) break;
    size_t n = 0;
    int quoted = 0;
    while (*p && (quoted || (*p != ' ' && *p != '\t'))) {
      if (*p == '"') {
        quoted = !quoted;
        p++;
      } else if (quoted && *p == '\\' && (p[1] == '"' || p[1] == '\\')) {
        buf[n++] = p[1];
        p += 2;
      } else {
        buf[n++] = *p++;
      }
    }
    if (quoted) DPBO_RAISE(DPBO_ERR_CONFIG, "command '%s': unterminated double quote", text);
    buf[n] = '\0';
    argv[argc] = strdup(buf);
    if (!argv[argc]) DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory copying the command '%s'", text);
    argc++;
  }
  if (argc == 0) DPBO_RAISE(DPBO_ERR_CONFIG, "the command is empty");
  *argc_out = argc;
  *argv_out = argv;
  argv = NULL;
done:
  if (argv) {
    for (int i = 0; i < argc; i++)
      free(argv[i]);
    free(argv);
  }
  free(buf);
  return status;
}

static int command_is_executable_file(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISREG(st.st_mode) && access(path, X_OK) == 0;
}

/* execvp's lookup, done before fork (see the file comment). A name with a
 * '/' is not searched, only checked (a regular file we may execute). */
static dpbo_status command_resolve_program(const char *name, char **path_out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char *candidate = NULL;
  if (strchr(name, '/')) {
    /* Checked now like a name found in PATH: otherwise every evaluation
     * would fail the same way and the run would learn nothing. */
    if (!command_is_executable_file(name)) {
      int error = errno;
      DPBO_RAISE(DPBO_ERR_CONFIG, "command program '%s' %s", name,
                 access(name, F_OK) != 0 ? strerror(error) : "is not an executable file");
    }
    *path_out = strdup(name);
    if (!*path_out) DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory copying '%s'", name);
    goto done;
  }
  const char *search = getenv("PATH");
  if (!search || !*search) search = "/bin:/usr/bin"; /* glibc's default */
  size_t name_len = strlen(name);
  DPBO_ALLOC(candidate, strlen(search) + name_len + 2, "a program path");
  for (const char *dir = search;;) {
    const char *end = strchr(dir, ':');
    size_t dir_len = end ? (size_t)(end - dir) : strlen(dir);
    if (dir_len == 0) { /* an empty PATH entry means the current directory */
      memcpy(candidate, name, name_len + 1);
    } else {
      memcpy(candidate, dir, dir_len);
      candidate[dir_len] = '/';
      memcpy(candidate + dir_len + 1, name, name_len + 1);
    }
    if (command_is_executable_file(candidate)) {
      *path_out = candidate;
      candidate = NULL;
      goto done;
    }
    if (!end) break;
    dir = end + 1;
  }
  DPBO_RAISE(DPBO_ERR_CONFIG,
             "command program '%s' not found: no executable file of that name in PATH", name);
done:
  free(candidate);
  return status;
}

static void command_server_end(command *c, int graceful);

static void command_destroy(void *impl) {
  command *c = impl;
  if (!c) return;
  command_server_end(c, 1); /* persistent mode: end of file on its stdin, then killed */
  if (c->argv)
    for (int i = 0; i < c->argc; i++)
      free(c->argv[i]);
  free(c->argv);
  free(c->path);
  free(c);
}

/* --- one evaluation: building the child's argv and environment ----------- */

static void command_free_strings(char **list) {
  if (!list) return;
  for (char **p = list; *p; p++)
    free(*p);
  free(list);
}

/* Hyper-parameter i's VALUE as the program receives it: %.17g so that it
 * reads back to the same double, an integer dimension's value as an
 * integer, a categorical one's as its category name (dpbo_dim_format). The
 * one place λ is formatted for the program. */
static void command_format_value(const command *c, int i, double value, char *out, size_t cap) {
  dpbo_dim_format(i < c->d ? &c->dim[i] : NULL, value, 17, out, cap);
}

/* "NAME=VALUE" (args) or "DPBO_NAME=VALUE" (env), VALUE from
 * command_format_value. Environment names are upper-cased and any
 * character outside [A-Z0-9_] becomes '_' so the shell can read them. */
static char *command_format_assignment(const command *c, int i, const char *name, double value,
                                       int env) {
  char number[DPBO_NAME_MAX + 8];
  command_format_value(c, i, value, number, sizeof number);
  size_t n = strlen(name) + strlen(number) + 7;
  char *s = malloc(n);
  if (!s) return NULL;
  if (!env) {
    snprintf(s, n, "%s=%s", name, number);
    return s;
  }
  char *q = s + snprintf(s, n, "DPBO_");
  for (const char *p = name; *p; p++) {
    int ch = toupper((unsigned char)*p);
    *q++ = (isalnum(ch) && ch < 128) || ch == '_' ? (char)ch : '_';
  }
  snprintf(q, n - (size_t)(q - s), "=%s", number);
  return s;
}

/* The child's argv: the fixed words, then NAME=VALUE per hyper-parameter in
 * args mode. Strings are copies, so the whole list is freed alike. */
static dpbo_status command_build_argv(const command *c, int d, const char *const *names,
                                      const double *values, char ***out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char **argv = NULL;
  int extra = c->pass == DPBO_PASS_ARGS ? d : 0;
  DPBO_ALLOC(argv, (size_t)c->argc + (size_t)extra + 1, "the command's arguments");
  for (int i = 0; i < c->argc; i++)
    if (!(argv[i] = strdup(c->argv[i]))) DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory building argv");
  for (int i = 0; i < extra; i++)
    if (!(argv[c->argc + i] = command_format_assignment(c, i, names[i], values[i], 0)))
      DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory building argv");
  *out = argv;
  argv = NULL;
done:
  command_free_strings(argv);
  return status;
}

/* The child's environment: ours, minus any DPBO_<NAME> we set, plus ours in
 * env mode (a stale value inherited from a parent shell must not win). */
static dpbo_status command_build_envp(const command *c, int d, const char *const *names,
                                      const double *values, char ***out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char **envp = NULL;
  size_t n_env = 0, k = 0;
  int extra = c->pass == DPBO_PASS_ENV ? d : 0;
  while (environ && environ[n_env])
    n_env++;
  DPBO_ALLOC(envp, n_env + (size_t)extra + 1, "the command's environment");
  for (int i = 0; i < extra; i++)
    if (!(envp[k++] = command_format_assignment(c, i, names[i], values[i], 1)))
      DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory building the environment");
  for (size_t e = 0; e < n_env; e++) {
    int overridden = 0;
    for (int i = 0; i < extra && !overridden; i++) {
      size_t name_len = (size_t)(strchr(envp[i], '=') - envp[i]) + 1; /* with '=' */
      overridden = strncmp(environ[e], envp[i], name_len) == 0;
    }
    if (overridden) continue;
    if (!(envp[k++] = strdup(environ[e])))
      DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory building the environment");
  }
  *out = envp;
  envp = NULL;
done:
  command_free_strings(envp);
  return status;
}

/* --- one evaluation: output capture -------------------------------------- */

/* Streaming reader of stdout that keeps only the last non-empty line (its
 * last CMD_LINE_KEEP bytes), so megabytes of output cost no memory. A line
 * longer than that is marked cut: its kept tail may begin inside a token. */
typedef struct line_tracker {
  char cur[CMD_LINE_KEEP + 1];
  size_t cur_len;
  int cur_blank;
  int cur_cut; /* bytes of the current line were dropped from its front */
  char last[CMD_LINE_KEEP + 1];
  size_t last_len; /* the line may hold NUL bytes: strlen does not apply */
  int last_cut;
  int have_last;
} line_tracker;

static void command_tracker_end_line(line_tracker *t) {
  if (!t->cur_blank) {
    memcpy(t->last, t->cur, t->cur_len);
    t->last[t->cur_len] = '\0';
    t->last_len = t->cur_len;
    t->last_cut = t->cur_cut;
    t->have_last = 1;
  }
  t->cur_len = 0;
  t->cur_blank = 1;
  t->cur_cut = 0;
}

static void command_tracker_feed(line_tracker *t, const char *data, size_t n) {
  for (size_t i = 0; i < n; i++) {
    char ch = data[i];
    if (ch == '\n') {
      command_tracker_end_line(t);
      continue;
    }
    if (t->cur_len == CMD_LINE_KEEP) { /* keep the line's tail: the gain ends it */
      memmove(t->cur, t->cur + CMD_LINE_KEEP / 2, CMD_LINE_KEEP / 2);
      t->cur_len = CMD_LINE_KEEP / 2;
      t->cur_cut = 1;
    }
    t->cur[t->cur_len++] = ch;
    if (!isspace((unsigned char)ch)) t->cur_blank = 0;
  }
}

/* The last CMD_STDERR_KEEP bytes of stderr, for the error message. */
typedef struct tail_buffer {
  char data[CMD_STDERR_KEEP];
  size_t len;
  int cut; /* earlier bytes were dropped */
} tail_buffer;

static void command_tail_feed(tail_buffer *t, const char *data, size_t n) {
  if (n >= CMD_STDERR_KEEP) {
    memcpy(t->data, data + n - CMD_STDERR_KEEP, CMD_STDERR_KEEP);
    t->cut = t->cut || n > CMD_STDERR_KEEP || t->len > 0;
    t->len = CMD_STDERR_KEEP;
    return;
  }
  if (t->len + n > CMD_STDERR_KEEP) {
    size_t drop = t->len + n - CMD_STDERR_KEEP;
    memmove(t->data, t->data + drop, t->len - drop);
    t->len -= drop;
    t->cut = 1;
  }
  memcpy(t->data + t->len, data, n);
  t->len += n;
}

/* Bytes of the program's output as printable text for a message (and so
 * for the log and the run file): tabs and newlines become spaces, other
 * control bytes, DEL and bytes >= 0x80 (binary output, or text in an
 * encoding we cannot check) become \xHH, and a backslash \\, so nothing the
 * program prints can move the terminal's cursor or forge a log line. Stops
 * before a byte whose escape would not fit in cap (out always ends). */
static void command_escape_text(const char *data, size_t len, char *out, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char ch = (unsigned char)data[i];
    char piece[8];
    if (ch == '\t' || ch == '\n' || ch == '\r')
      snprintf(piece, sizeof piece, " ");
    else if (ch == '\\')
      snprintf(piece, sizeof piece, "\\\\");
    else if (ch < 0x20 || ch >= 0x7f)
      snprintf(piece, sizeof piece, "\\x%02x", ch);
    else
      snprintf(piece, sizeof piece, "%c", ch);
    size_t n = strlen(piece);
    if (k + n + 1 > cap) break;
    memcpy(out + k, piece, n);
    k += n;
  }
  out[k] = '\0';
}

/* stderr's tail as one printable line: blanks at both ends trimmed, the
 * rest escaped (command_escape_text). */
static void command_tail_text(const tail_buffer *t, char *out, size_t cap) {
  size_t len = t->len;
  while (len > 0 && isspace((unsigned char)t->data[len - 1]))
    len--;
  size_t start = 0;
  while (start < len && isspace((unsigned char)t->data[start]))
    start++;
  size_t k = 0;
  if (t->cut && k + 3 < cap) {
    memcpy(out, "...", 3);
    k = 3;
  }
  command_escape_text(t->data + start, len - start, out + k, cap - k);
}

static double command_now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Reads whatever one pipe has; returns 0 at end of file or on a hard error
 * (the descriptor is then closed and set to -1), 1 otherwise. */
static int command_drain_fd(int *fd, line_tracker *out, tail_buffer *errtail) {
  char buf[65536];
  ssize_t n = read(*fd, buf, sizeof buf);
  if (n > 0) {
    if (out) command_tracker_feed(out, buf, (size_t)n);
    if (errtail) command_tail_feed(errtail, buf, (size_t)n);
    return 1;
  }
  if (n < 0 && (errno == EINTR || errno == EAGAIN)) return 1;
  close(*fd);
  *fd = -1;
  return 0;
}

/* Closes [lo, hi]; close_range needs Linux 5.9, older kernels get a loop
 * up to the limit the parent computed (close is async-signal-safe). */
static void command_close_fds(int lo, int hi) {
  if (lo > hi) return;
  if (close_range((unsigned)lo, (unsigned)hi, 0) == 0) return;
  for (int fd = lo; fd <= hi; fd++)
    close(fd);
}

/* The child between fork and execve: async-signal-safe calls only. src[3]
 * become its stdin, stdout and stderr (all >= 3, see command_lift_fd). On failure it
 * reports errno through the close-on-exec pipe and exits 127. */
_Noreturn static void command_run_child(const int src[3], int report_fd, int max_fd, pid_t parent,
                                        const char *path, char **argv, char **envp) {
  setpgid(0, 0); /* its own group, so a timeout kills its children too */
  /* Killed with the thread that started it should dpbo die without ending
   * it (SIGKILL); if that happened already, do not start at all. */
  if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || getppid() != parent) _exit(127);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL); /* an ignored SIGPIPE would survive exec */
  /* Slurm's --signal=USR1 reaches every process of the job step, this one
   * included; it announces the walltime to dpbo, and must not kill the
   * evaluation in progress (an ignored signal stays ignored across exec). */
  signal(SIGUSR1, SIG_IGN);
  for (int target = 0; target < 3; target++)
    if (dup2(src[target], target) < 0) goto fail;
  /* Descriptors the parent opened without close-on-exec (MPI sockets,
   * files) are none of the program's business; keep only 0-2 and the
   * report pipe (which closes itself at exec). */
  command_close_fds(3, report_fd - 1);
  command_close_fds(report_fd + 1, max_fd);
  execve(path, argv, envp);
fail:;
  int code = errno;
  ssize_t ignored = write(report_fd, &code, sizeof code);
  (void)ignored;
  _exit(127);
}

/* Moves a descriptor to >= 3 (close-on-exec kept). If the parent runs with
 * 0, 1 or 2 closed, a pipe could land there and the child's dup2 onto 0-2
 * would overwrite one source with another. */
static int command_lift_fd(int *fd) {
  if (*fd >= 3) return 0;
  int high = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
  if (high < 0) return -1;
  close(*fd);
  *fd = high;
  return 0;
}

static void command_close_fd(int *fd) {
  if (*fd >= 0) close(*fd);
  *fd = -1;
}

/* Formats " at NAME=VALUE, ..." for messages (short %g, cut at cap), or
 * nothing without hyper-parameters. */
static void command_format_params(int d, const char *const *names, const double *values, char *out,
                                  size_t cap) {
  size_t k = 0;
  out[0] = '\0';
  for (int i = 0; i < d && k < cap; i++) {
    int n = snprintf(out + k, cap - k, "%s%s=%.6g", i ? ", " : " at ", names[i], values[i]);
    if (n < 0) break;
    k += (size_t)n;
  }
}

/* A separator between the tokens of the last line. */
static int command_gain_separator(char ch) {
  return isspace((unsigned char)ch) || (ch && strchr(":=,", ch));
}

/* A ',' between two digits: a decimal comma ("0,5") or digit grouping
 * ("1,000"), never a separator, or "0,5" would read as 5. */
static int command_digit_comma(const char *line, size_t i) {
  return line[i] == ',' && i > 0 && isdigit((unsigned char)line[i - 1]) &&
         isdigit((unsigned char)line[i + 1]);
}

/* A value outside objective.value_range fails the evaluation (both modes):
 * the range is what the release's clamp and warnings assume. */
static dpbo_status command_check_range(const command *c, const char *params, double gain,
                                       const char *sep, const char *stderr_text, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (c->check_range && !(gain >= c->value_lo && gain <= c->value_hi))
    DPBO_RAISE(DPBO_ERR_OBJECTIVE,
               "command '%.*s'%s printed %.17g, outside objective.value_range [%.17g, %.17g]%s%s",
               CMD_SHOW_COMMAND, c->text, params, gain, c->value_lo, c->value_hi, sep, stderr_text);
done:
  return status;
}

/* Parses the gain: the last token of the last non-empty stdout line, tokens
 * separated by blanks, ':' '=' or ',' (not a ',' between digits, which makes
 * the token unreadable); strtod must consume it whole. Only
 * the last token counts, so "epoch 5 done" is not read as a gain of 5.
 * Returns 1, or 0 with *why set. The token must lie wholly in the kept part
 * of a cut line: "-000...0005" cut from the front would read as 5. A NUL
 * byte in the line refuses it (strtod would stop there unseen). */
static int command_parse_gain(const line_tracker *t, double *gain, const char **why) {
  char line[CMD_LINE_KEEP + 1];
  size_t len = t->last_len;
  *why = "no number at the end of its last line";
  if (memchr(t->last, '\0', len)) {
    *why = "binary output (a NUL byte) on its last line";
    return 0;
  }
  memcpy(line, t->last, len);
  line[len] = '\0';
  while (len > 0 && command_gain_separator(line[len - 1]))
    line[--len] = '\0';
  size_t start = len;
  while (start > 0 &&
         (!command_gain_separator(line[start - 1]) || command_digit_comma(line, start - 1)))
    start--;
  if (t->last_cut && start == 0 && len > 0) {
    *why = "a last line whose last token is longer than " CMD_LINE_KEEP_TEXT " bytes (not a number "
           "dpbo can read whole)";
    return 0;
  }
  const char *token = line + start;
  if (!*token) return 0;
  char *end = NULL;
  double v = strtod(token, &end);
  if (strchr(token, ','))
    *why = "a number with a comma between digits at the end of its last line (dpbo reads no "
           "decimal comma or digit grouping: print 0.5, not 0,5)";
  if (end == token || *end != '\0' || !isfinite(v)) return 0; /* overflow gives inf */
  *gain = v;
  return 1;
}

/* reply_pair (dpbo compare's table): the line is exactly two numbers, the
 * validation and the test accuracy, separated by blanks (blanks around them
 * allowed), in either mode: a line that is anything else fails, so no test
 * accuracy is ever read from a stray word. Returns 1, or 0 with *why set. */
static int command_parse_pair(const line_tracker *t, double pair[2], const char **why) {
  char line[CMD_LINE_KEEP + 1];
  size_t len = t->last_len;
  *why = "not two numbers 'VAL TEST' alone on its line (the validation accuracy, a blank, the "
         "test accuracy; other output belongs on stderr)";
  if (t->last_cut || memchr(t->last, '\0', len)) return 0;
  memcpy(line, t->last, len);
  line[len] = '\0';
  char *end = NULL, *second = NULL;
  const double v = strtod(line, &end); /* strtod skips leading blanks */
  if (end == line || !isspace((unsigned char)*end)) return 0;
  const double w = strtod(end, &second);
  if (second == end) return 0;
  while (isspace((unsigned char)*second))
    second++;
  if (*second != '\0' || !isfinite(v) || !isfinite(w)) return 0;
  pair[0] = v;
  pair[1] = w;
  return 1;
}

/* One evaluation by a fresh process (command_evaluate_once): the program's
 * arguments and environment, the pipes, the child and what it printed. */
typedef struct command_exec {
  command *c;
  char **argv, **envp;
  int null_fd, out_pipe[2], err_pipe[2], rep_pipe[2];
  pid_t pid;
  int reaped, wstatus, timed_out, stopped;
  line_tracker *out;
  tail_buffer errtail;
  double start; /* when the program was started (command_now_seconds) */
  char params[CMD_SHOW_PARAMS + 1];
} command_exec;

/* Plan: the program's argv and environment, the output buffer, and the
 * pipes. Everything close-on-exec: only the dup2'ed copies reach the
 * program, and nothing of ours leaks into children of other threads. */
static dpbo_status command_exec_prepare(command_exec *x, int d, const char *const *names,
                                        const double *values, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  command *c = x->c;
  command_format_params(d, names, values, x->params, sizeof x->params);
  DPBO_TRY(command_build_argv(c, d, names, values, &x->argv, err));
  DPBO_TRY(command_build_envp(c, d, names, values, &x->envp, err));
  DPBO_ALLOC(x->out, 1, "the command's output buffer");
  x->out->cur_blank = 1;
  x->null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (x->null_fd < 0 || pipe2(x->out_pipe, O_CLOEXEC) < 0 || pipe2(x->err_pipe, O_CLOEXEC) < 0 ||
      pipe2(x->rep_pipe, O_CLOEXEC) < 0 || command_lift_fd(&x->null_fd) < 0 ||
      command_lift_fd(&x->out_pipe[1]) < 0 || command_lift_fd(&x->err_pipe[1]) < 0 ||
      command_lift_fd(&x->rep_pipe[1]) < 0)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s': cannot create pipes: %s", CMD_SHOW_COMMAND,
               c->text, strerror(errno));
done:
  return status;
}

/* Run, start: forks the program in a process group of its own and waits
 * until it has executed (or says why it could not). */
static dpbo_status command_exec_start(command_exec *x, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  command *c = x->c;
  const int child_fds[3] = {x->null_fd, x->out_pipe[1], x->err_pipe[1]};
  long open_max = sysconf(_SC_OPEN_MAX);
  int max_fd = open_max > 0 && open_max < 65536 ? (int)open_max - 1 : 65535;

  const pid_t parent = getpid();
  x->start = command_now_seconds();
  if (c->cancelled)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s'%s not started: dpbo is stopping",
               CMD_SHOW_COMMAND, c->text, x->params);
  x->pid = fork();
  if (x->pid < 0)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s': fork failed: %s", CMD_SHOW_COMMAND, c->text,
               strerror(errno));
  if (x->pid == 0)
    command_run_child(child_fds, x->rep_pipe[1], max_fd, parent, c->path, x->argv, x->envp);
  /* Also set the group here: whichever of parent and child runs first, the
   * group exists before we might kill it (EACCES after exec is harmless). */
  setpgid(x->pid, x->pid);
  /* Killed with it should this rank die before the evaluation ends (the
   * watchdog of base/proc.h: the program's own children are out of reach
   * of its PR_SET_PDEATHSIG). */
  dpbo_proc_guard_group(x->pid, 1);
  command_close_fd(&x->null_fd);
  command_close_fd(&x->out_pipe[1]);
  command_close_fd(&x->err_pipe[1]);
  command_close_fd(&x->rep_pipe[1]);

  /* End of file on the report pipe means execve succeeded. */
  int exec_errno = 0;
  ssize_t got;
  do
    got = read(x->rep_pipe[0], &exec_errno, sizeof exec_errno);
  while (got < 0 && errno == EINTR);
  command_close_fd(&x->rep_pipe[0]);
  if (got == (ssize_t)sizeof exec_errno) {
    while (waitpid(x->pid, &x->wstatus, 0) < 0 && errno == EINTR) {
    }
    x->reaped = 1;
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s': could not execute '%s': %s", CMD_SHOW_COMMAND,
               c->text, c->path, strerror(exec_errno));
  }
done:
  return status;
}

/* Run, watch: reads both pipes as data arrives (a child blocked writing
 * stderr while we wait on stdout would deadlock), and watches the child and
 * the clock: the program may close its output early and keep running. A
 * time-out or a stop kills its group. */
static dpbo_status command_exec_watch(command_exec *x, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  command *c = x->c;
  double deadline = c->timeout_s > 0.0 ? x->start + c->timeout_s : INFINITY;
  int idle_ms = 1;
  while (!x->reaped) {
    struct pollfd pfd[2];
    int nfd = 0;
    if (x->out_pipe[0] >= 0) pfd[nfd++] = (struct pollfd){.fd = x->out_pipe[0], .events = POLLIN};
    if (x->err_pipe[0] >= 0) pfd[nfd++] = (struct pollfd){.fd = x->err_pipe[0], .events = POLLIN};
    double left = deadline - command_now_seconds();
    if (left <= 0.0) {
      x->timed_out = 1;
      break;
    }
    if (c->cancelled) {
      x->stopped = 1;
      break;
    }
    /* With the pipes open, their end of file signals the exit; once both are
     * closed, poll the child's state with a growing interval (<= 50 ms). */
    int wait_ms = nfd ? 100 : idle_ms;
    if (!nfd && idle_ms < 50) idle_ms *= 2;
    if (left * 1000.0 < wait_ms) wait_ms = (int)ceil(left * 1000.0);
    int ready = poll(pfd, (nfds_t)nfd, wait_ms);
    if (ready < 0 && errno != EINTR)
      DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s': poll failed: %s", CMD_SHOW_COMMAND, c->text,
                 strerror(errno));
    for (int i = 0; ready > 0 && i < nfd; i++) {
      if (!(pfd[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      if (pfd[i].fd == x->out_pipe[0])
        command_drain_fd(&x->out_pipe[0], x->out, NULL);
      else
        command_drain_fd(&x->err_pipe[0], NULL, &x->errtail);
    }
    pid_t w = waitpid(x->pid, &x->wstatus, WNOHANG);
    if (w == x->pid)
      x->reaped = 1;
    else if (w < 0 && errno != EINTR) {
      /* ECHILD: the child is gone already (SIGCHLD ignored); its pid may be
       * reused, so it must not be killed in the cleanup. */
      if (errno == ECHILD) x->reaped = 1;
      DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s': waitpid failed: %s", CMD_SHOW_COMMAND,
                 c->text, strerror(errno));
    }
  }
  if (x->timed_out || x->stopped) {
    /* The whole group: a shell script's own children die with it (and
     * those that left the group, below). */
    if (kill(-x->pid, SIGKILL) < 0) kill(x->pid, SIGKILL);
    while (waitpid(x->pid, &x->wstatus, 0) < 0 && errno == EINTR) {
    }
    x->reaped = 1;
  }
  /* What the program wrote before it exited is already in the pipes; take it
   * without waiting, since a background child of the program may still hold
   * the pipe open (and we do not wait for it). The read budget (16 reads,
   * more than a pipe's buffer) stops a background child that keeps writing
   * from holding us here. */
  for (int pass = 0; pass < 2; pass++) {
    int *fd = pass == 0 ? &x->out_pipe[0] : &x->err_pipe[0];
    for (int reads = 0; *fd >= 0 && reads < 16; reads++) {
      struct pollfd p = {.fd = *fd, .events = POLLIN};
      if (poll(&p, 1, 0) <= 0) break;
      if (!command_drain_fd(fd, pass == 0 ? x->out : NULL, pass == 0 ? NULL : &x->errtail)) break;
    }
  }
done:
  return status;
}

/* Result: how the program ended, and the gain its last line gives. */
static dpbo_status command_exec_result(command_exec *x, double *gain, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const command *c = x->c;
  const char *params = x->params;
  const int wstatus = x->wstatus;
  line_tracker *out = x->out;
  char stderr_text[CMD_STDERR_KEEP + 8];
  double elapsed = command_now_seconds() - x->start;
  command_tail_text(&x->errtail, stderr_text, sizeof stderr_text);
  const char *sep = stderr_text[0] ? "; stderr: " : "; stderr was empty";

  if (x->timed_out)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s'%s timed out after %g s (killed)%s%s",
               CMD_SHOW_COMMAND, c->text, params, c->timeout_s, sep, stderr_text);
  if (x->stopped)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s'%s killed after %.3g s: dpbo is stopping%s%s",
               CMD_SHOW_COMMAND, c->text, params, elapsed, sep, stderr_text);
  if (WIFSIGNALED(wstatus))
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s'%s was killed by signal %d (%s)%s%s",
               CMD_SHOW_COMMAND, c->text, params, WTERMSIG(wstatus), strsignal(WTERMSIG(wstatus)),
               sep, stderr_text);
  if (!WIFEXITED(wstatus) || WEXITSTATUS(wstatus) != 0)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s'%s exited with status %d after %.3g s%s%s",
               CMD_SHOW_COMMAND, c->text, params, WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1,
               elapsed, sep, stderr_text);
  /* An unterminated last line counts as a line. */
  if (out->cur_len > 0) command_tracker_end_line(out);
  if (!out->have_last)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s'%s printed no number (stdout was empty)%s%s",
               CMD_SHOW_COMMAND, c->text, params, sep, stderr_text);
  char shown[81];
  const char *why = NULL;
  command_escape_text(out->last, out->last_len, shown, sizeof shown);
  if (!(c->pair ? command_parse_pair(out, gain, &why) : command_parse_gain(out, gain, &why)))
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s'%s printed %s ('%s%s')%s%s", CMD_SHOW_COMMAND,
               c->text, params, why, out->last_cut ? "..." : "", shown, sep, stderr_text);
  DPBO_TRY(command_check_range(c, params, *gain, sep, stderr_text, err));
  if (c->pair) DPBO_TRY(command_check_range(c, params, gain[1], sep, stderr_text, err));
done:
  return status;
}

/* Cleanup: a program still running after an error is killed; nothing an
 * evaluation started outlives it. */
static void command_exec_free(command_exec *x) {
  if (x->pid > 0 && !x->reaped) {
    /* An error while the program runs: do not leave it behind. */
    if (kill(-x->pid, SIGKILL) < 0) kill(x->pid, SIGKILL);
    while (waitpid(x->pid, &x->wstatus, 0) < 0 && errno == EINTR) {
    }
  }
  /* Children it backgrounded, or that left its group with setsid, came to
   * us (the subreaper). */
  if (x->pid > 0) dpbo_proc_kill_descendants(1);
  if (x->pid > 0) dpbo_proc_guard_group(x->pid, 0);
  command_close_fd(&x->null_fd);
  command_close_fd(&x->out_pipe[0]);
  command_close_fd(&x->out_pipe[1]);
  command_close_fd(&x->err_pipe[0]);
  command_close_fd(&x->err_pipe[1]);
  command_close_fd(&x->rep_pipe[0]);
  command_close_fd(&x->rep_pipe[1]);
  free(x->out);
  command_free_strings(x->argv);
  command_free_strings(x->envp);
}

/* One evaluation by a fresh process, in phases: prepare, start, watch, and
 * the result from how it ended and what it printed. */
static dpbo_status command_evaluate_once(command *c, int d, const char *const *names,
                                         const double *values, double *gain, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  command_exec x = {.c = c,
                    .null_fd = -1,
                    .out_pipe = {-1, -1},
                    .err_pipe = {-1, -1},
                    .rep_pipe = {-1, -1},
                    .pid = -1};
  DPBO_TRY(command_exec_prepare(&x, d, names, values, err));
  DPBO_TRY(command_exec_start(&x, err));
  DPBO_TRY(command_exec_watch(&x, err));
  DPBO_TRY(command_exec_result(&x, gain, err));
done:
  command_exec_free(&x);
  return status;
}

/* --- persistent mode: one program answers many requests ----------------- */

/* write(2) to the program's stdin without SIGPIPE (the rank does not ignore
 * it): blocked in this thread for the call, and one raised by an EPIPE is
 * taken before the mask is restored. */
static ssize_t command_write_quiet(int fd, const char *data, size_t n) {
  sigset_t pipe_set, old;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  ssize_t written = write(fd, data, n);
  int error = errno;
  if (written < 0 && error == EPIPE) {
    const struct timespec zero = {0, 0};
    sigtimedwait(&pipe_set, NULL, &zero);
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  errno = error;
  return written;
}

/* Whether the bytes hold anything but blanks. */
static int command_has_text(const char *data, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!isspace((unsigned char)data[i])) return 1;
  return 0;
}

/* Reaps the program without waiting; returns 1 once it has ended. ECHILD
 * (SIGCHLD ignored: already reaped by the kernel) counts as ended. */
static int command_server_reap(command *c, int *wstatus) {
  if (c->server_reaped) return 1;
  pid_t w = waitpid(c->server, wstatus, WNOHANG);
  if (w == c->server || (w < 0 && errno == ECHILD)) c->server_reaped = 1;
  return c->server_reaped;
}

/* Ends the program and everything it started: with `graceful`, end of file
 * on its stdin and DPBO_COMMAND_EXIT_GRACE_S to exit first; then SIGKILL to
 * its process group, the reaping, and the subreaper's sweep of processes it
 * left outside its group (as at the end of a per-evaluation run). */
static void command_server_end(command *c, int graceful) {
  if (c->server <= 0) return;
  int wstatus = 0;
  command_close_fd(&c->server_in);
  if (graceful)
    for (int step = 0;
         step < (int)(DPBO_COMMAND_EXIT_GRACE_S * 100) && !command_server_reap(c, &wstatus); step++)
      nanosleep(&(struct timespec){0, 10000000L}, NULL);
  if (!c->server_reaped) {
    if (kill(-c->server, SIGKILL) < 0) kill(c->server, SIGKILL);
    while (waitpid(c->server, &wstatus, 0) < 0 && errno == EINTR) {
    }
  }
  dpbo_proc_kill_descendants(1);
  dpbo_proc_guard_group(c->server, 0);
  command_close_fd(&c->server_out);
  command_close_fd(&c->server_err);
  c->server = -1;
  c->server_reaped = 0;
  c->served = 0;
  c->server_dirty = 0;
}

/* Starts the program with a pipe on its stdin (fixed words only: requests
 * carry the hyper-parameters), as command_evaluate_once starts one. */
static dpbo_status command_server_start(command *c, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char **argv = NULL, **envp = NULL;
  int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1}, rep_pipe[2] = {-1, -1};
  DPBO_TRY(command_build_argv(c, 0, NULL, NULL, &argv, err));
  DPBO_TRY(command_build_envp(c, 0, NULL, NULL, &envp, err));
  if (pipe2(in_pipe, O_CLOEXEC) < 0 || pipe2(out_pipe, O_CLOEXEC) < 0 ||
      pipe2(err_pipe, O_CLOEXEC) < 0 || pipe2(rep_pipe, O_CLOEXEC) < 0 ||
      command_lift_fd(&in_pipe[0]) < 0 || command_lift_fd(&out_pipe[1]) < 0 ||
      command_lift_fd(&err_pipe[1]) < 0 || command_lift_fd(&rep_pipe[1]) < 0)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s': cannot create pipes: %s", CMD_SHOW_COMMAND,
               c->text, strerror(errno));
  const int child_fds[3] = {in_pipe[0], out_pipe[1], err_pipe[1]};
  long open_max = sysconf(_SC_OPEN_MAX);
  int max_fd = open_max > 0 && open_max < 65536 ? (int)open_max - 1 : 65535;
  const pid_t parent = getpid();
  pid_t pid = fork();
  if (pid < 0)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s': fork failed: %s", CMD_SHOW_COMMAND, c->text,
               strerror(errno));
  if (pid == 0) command_run_child(child_fds, rep_pipe[1], max_fd, parent, c->path, argv, envp);
  setpgid(pid, pid);
  dpbo_proc_guard_group(pid, 1);
  command_close_fd(&in_pipe[0]);
  command_close_fd(&out_pipe[1]);
  command_close_fd(&err_pipe[1]);
  command_close_fd(&rep_pipe[1]);
  c->server = pid;
  c->server_in = in_pipe[1];
  c->server_out = out_pipe[0];
  c->server_err = err_pipe[0];
  in_pipe[1] = out_pipe[0] = err_pipe[0] = -1;
  int exec_errno = 0;
  ssize_t got;
  do
    got = read(rep_pipe[0], &exec_errno, sizeof exec_errno);
  while (got < 0 && errno == EINTR);
  if (got == (ssize_t)sizeof exec_errno) {
    command_server_end(c, 0);
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s': could not execute '%s': %s", CMD_SHOW_COMMAND,
               c->text, c->path, strerror(exec_errno));
  }
  /* A program that stops reading its stdin must not block us in write():
   * the request is written as the pipe takes it, under the time-out. */
  fcntl(c->server_in, F_SETFL, fcntl(c->server_in, F_GETFL) | O_NONBLOCK);
done:
  for (int i = 0; i < 2; i++) {
    command_close_fd(&in_pipe[i]);
    command_close_fd(&out_pipe[i]);
    command_close_fd(&err_pipe[i]);
    command_close_fd(&rep_pipe[i]);
  }
  command_free_strings(argv);
  command_free_strings(envp);
  return status;
}

/* Before a request: a program that ended since its last reply, or that
 * printed more than its reply (stdout out of step with the requests), is
 * ended; what it wrote to stderr meanwhile goes to errtail. Returns the
 * status a program that ended had (*ended = 1), so a crash between
 * requests fails the next one as it would had the request been sent. */
static void command_server_check(command *c, tail_buffer *errtail, int *ended, int *wstatus) {
  *ended = 0;
  if (c->server <= 0) return;
  char buf[4096];
  for (int reads = 0; c->server_err >= 0 && reads < 16; reads++) {
    struct pollfd p = {.fd = c->server_err, .events = POLLIN};
    if (poll(&p, 1, 0) <= 0 || !command_drain_fd(&c->server_err, NULL, errtail)) break;
  }
  for (int reads = 0; !c->server_dirty && c->server_out >= 0 && reads < 16; reads++) {
    struct pollfd p = {.fd = c->server_out, .events = POLLIN};
    if (poll(&p, 1, 0) <= 0) break;
    ssize_t n = read(c->server_out, buf, sizeof buf);
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0 || command_has_text(buf, (size_t)n)) c->server_dirty = 1; /* EOF, or text */
  }
  if (command_server_reap(c, wstatus)) *ended = 1;
  if (*ended || c->server_dirty) command_server_end(c, 0);
}

/* A persistent program's reply: one number alone on its line (blanks
 * around it allowed), stricter than the last token of per-evaluation mode:
 * the line answers a request, so a stray log line on stdout ("epoch 3")
 * must fail, not read as a value. Returns 1, or 0 with *why set. */
static int command_parse_reply(const line_tracker *t, double *gain, const char **why) {
  char line[CMD_LINE_KEEP + 1];
  size_t len = t->last_len, start = 0;
  if (t->last_cut) {
    *why = "a line longer than " CMD_LINE_KEEP_TEXT " bytes, not a number";
    return 0;
  }
  if (memchr(t->last, '\0', len)) {
    *why = "binary output (a NUL byte)";
    return 0;
  }
  memcpy(line, t->last, len);
  line[len] = '\0';
  while (len > 0 && isspace((unsigned char)line[len - 1]))
    line[--len] = '\0';
  while (start < len && isspace((unsigned char)line[start]))
    start++;
  *why = "not a number alone on its line (print only the value; other output belongs on stderr)";
  char *end = NULL;
  double v = strtod(line + start, &end);
  if (start == len || end == line + start || *end != '\0' || !isfinite(v)) return 0;
  *gain = v;
  return 1;
}

/* "NAME1=VALUE1 NAME2=VALUE2\n": the arguments of pass = args on one line,
 * each VALUE from command_format_value. */
static dpbo_status command_build_request(const command *c, int d, const char *const *names,
                                         const double *values, char **out, size_t *len,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char *line = NULL;
  char value[DPBO_NAME_MAX + 8];
  size_t cap = 2, used = 0;
  for (int i = 0; i < d; i++)
    cap += strlen(names[i]) + sizeof value + 2;
  DPBO_ALLOC(line, cap, "a request line");
  for (int i = 0; i < d; i++) {
    command_format_value(c, i, values[i], value, sizeof value);
    used += (size_t)snprintf(line + used, cap - used, "%s%s=%s", i ? " " : "", names[i], value);
  }
  line[used++] = '\n';
  line[used] = '\0';
  *out = line;
  *len = used;
done:
  return status;
}

/* The exit status of a program that ended, for messages. */
static void command_describe_end(int wstatus, char *out, size_t cap) {
  if (WIFSIGNALED(wstatus))
    snprintf(out, cap, "was killed by signal %d (%s)", WTERMSIG(wstatus),
             strsignal(WTERMSIG(wstatus)));
  else if (WIFEXITED(wstatus))
    snprintf(out, cap, "exited with status %d", WEXITSTATUS(wstatus));
  else
    snprintf(out, cap, "ended");
}

/* How one persistent request ended. */
typedef enum {
  PERSISTENT_REPLIED,
  PERSISTENT_TIMED_OUT,
  PERSISTENT_STOPPED,
  PERSISTENT_ENDED /* the program exited (reaped; *wstatus) before a full reply */
} persistent_outcome;

/* What command_persistent_exchange saw: how the request ended, whether
 * writing it failed, and the program's wait status when it was reaped. */
typedef struct {
  persistent_outcome outcome;
  int write_failed;
  int wstatus;
} persistent_result;

/* Writes the request and reads stdout (and stderr into errtail) until a
 * reply line, the time-out, a stop or the program's exit. */
static dpbo_status command_persistent_exchange(command *c, const char *request, size_t request_len,
                                               line_tracker *reply, tail_buffer *errtail,
                                               persistent_result *got, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  persistent_outcome *outcome = &got->outcome;
  int *write_failed = &got->write_failed, *wstatus = &got->wstatus;
  size_t sent = 0;
  const double start = command_now_seconds();
  const double deadline = c->timeout_s > 0.0 ? start + c->timeout_s : INFINITY;
  int idle_ms = 1;
  *outcome = PERSISTENT_REPLIED;
  while (!reply->have_last) {
    struct pollfd pfd[3];
    int nfd = 0;
    if (c->server_out >= 0) pfd[nfd++] = (struct pollfd){.fd = c->server_out, .events = POLLIN};
    if (c->server_err >= 0) pfd[nfd++] = (struct pollfd){.fd = c->server_err, .events = POLLIN};
    if (sent < request_len && c->server_in >= 0)
      pfd[nfd++] = (struct pollfd){.fd = c->server_in, .events = POLLOUT};
    double left = deadline - command_now_seconds();
    if (left <= 0.0) {
      *outcome = PERSISTENT_TIMED_OUT;
      break;
    }
    if (c->cancelled) {
      *outcome = PERSISTENT_STOPPED;
      break;
    }
    int wait_ms = c->server_out >= 0 ? 100 : idle_ms;
    if (c->server_out < 0 && idle_ms < 50) idle_ms *= 2;
    if (left * 1000.0 < wait_ms) wait_ms = (int)ceil(left * 1000.0);
    int ready = poll(pfd, (nfds_t)nfd, wait_ms);
    if (ready < 0 && errno != EINTR)
      DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s': poll failed: %s", CMD_SHOW_COMMAND, c->text,
                 strerror(errno));
    for (int i = 0; ready > 0 && i < nfd; i++) {
      if (!(pfd[i].revents & (POLLIN | POLLOUT | POLLHUP | POLLERR))) continue;
      if (pfd[i].fd == c->server_in) {
        ssize_t n = command_write_quiet(c->server_in, request + sent, request_len - sent);
        if (n > 0) sent += (size_t)n;
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
          /* EPIPE: it closed its stdin or ended; its exit tells which. */
          *write_failed = 1;
          command_close_fd(&c->server_in);
        }
      } else if (pfd[i].fd == c->server_err) {
        command_drain_fd(&c->server_err, NULL, errtail);
      } else {
        char buf[4096];
        ssize_t n = read(c->server_out, buf, sizeof buf);
        if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
        if (n <= 0) { /* end of file: it will not reply; wait for its exit */
          command_close_fd(&c->server_out);
          continue;
        }
        size_t k = 0;
        while (k < (size_t)n && !reply->have_last)
          command_tracker_feed(reply, buf + k++, 1);
        /* More than the reply: stdout is out of step; ended before the
         * next request. */
        if (command_has_text(buf + k, (size_t)n - k)) c->server_dirty = 1;
      }
    }
    if (!reply->have_last && command_server_reap(c, wstatus)) {
      *outcome = PERSISTENT_ENDED;
      break;
    }
  }
done:
  return status;
}

/* After the program ended: what it wrote before is in the pipes already;
 * an unterminated line before the exit is the reply. */
static void command_persistent_drain(command *c, line_tracker *reply, tail_buffer *errtail) {
  /* What it wrote before it ended is in the pipes already. */
  for (int pass = 0; pass < 2; pass++) {
    int *fd = pass == 0 ? &c->server_out : &c->server_err;
    for (int reads = 0; *fd >= 0 && reads < 16 && !(pass == 0 && reply->have_last); reads++) {
      struct pollfd p = {.fd = *fd, .events = POLLIN};
      if (poll(&p, 1, 0) <= 0) break;
      if (pass == 1) {
        if (!command_drain_fd(fd, NULL, errtail)) break;
        continue;
      }
      char buf[4096];
      ssize_t n = read(*fd, buf, sizeof buf);
      if (n <= 0) break;
      for (size_t k = 0; k < (size_t)n && !reply->have_last; k++)
        command_tracker_feed(reply, buf + k, 1);
    }
  }
  /* An unterminated line before the exit is the reply. */
  if (!reply->have_last && reply->cur_len > 0 && !reply->cur_blank) command_tracker_end_line(reply);
}

static dpbo_status command_evaluate_persistent(command *c, int d, const char *const *names,
                                               const double *values, double *gain,
                                               dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char *request = NULL;
  size_t request_len = 0;
  line_tracker *reply = NULL;
  tail_buffer errtail = {{0}, 0, 0};
  char params[CMD_SHOW_PARAMS + 1], stderr_text[CMD_STDERR_KEEP + 8], how[96];
  int resent = 0, ended = 0, wstatus = 0;
  command_format_params(d, names, values, params, sizeof params);
  DPBO_TRY(command_build_request(c, d, names, values, &request, &request_len, err));
  DPBO_ALLOC(reply, 1, "the command's reply buffer");
  if (c->cancelled)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "command '%.*s'%s not started: dpbo is stopping",
               CMD_SHOW_COMMAND, c->text, params);
  command_server_check(c, &errtail, &ended, &wstatus);
  if (ended && !(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)) {
    command_tail_text(&errtail, stderr_text, sizeof stderr_text);
    command_describe_end(wstatus, how, sizeof how);
    DPBO_RAISE(DPBO_ERR_OBJECTIVE,
               "command '%.*s'%s: the persistent program %s after its last reply, before this "
               "request%s%s%s",
               CMD_SHOW_COMMAND, c->text, params, how,
               c->pair ? "" : " (started again for the next one)",
               stderr_text[0] ? "; stderr: " : "; stderr was empty", stderr_text);
  }
  for (;;) {
    memset(reply, 0, sizeof *reply);
    reply->cur_blank = 1;
    if (c->server <= 0) DPBO_TRY(command_server_start(c, err));
    const long number = c->served + 1; /* of this process's requests */
    persistent_result got = {PERSISTENT_REPLIED, 0, wstatus};
    DPBO_TRY(command_persistent_exchange(c, request, request_len, reply, &errtail, &got, err));
    const persistent_outcome outcome = got.outcome;
    const int write_failed = got.write_failed;
    wstatus = got.wstatus;
    const int timed_out = outcome == PERSISTENT_TIMED_OUT, stopped = outcome == PERSISTENT_STOPPED;
    const int reaped = outcome == PERSISTENT_ENDED;
    if (timed_out || stopped) {
      command_server_end(c, 0);
      command_tail_text(&errtail, stderr_text, sizeof stderr_text);
      const char *sep = stderr_text[0] ? "; stderr: " : "; stderr was empty";
      if (timed_out)
        DPBO_RAISE(DPBO_ERR_OBJECTIVE,
                   "command '%.*s'%s timed out after %g s at request %ld of its persistent "
                   "program (killed%s)%s%s",
                   CMD_SHOW_COMMAND, c->text, params, c->timeout_s, number,
                   c->pair ? "" : "; started again for the next evaluation", sep, stderr_text);
      DPBO_RAISE(DPBO_ERR_OBJECTIVE,
                 "command '%.*s'%s killed at request %ld of its persistent program: dpbo is "
                 "stopping%s%s",
                 CMD_SHOW_COMMAND, c->text, params, number, sep, stderr_text);
    }
    if (reaped) command_persistent_drain(c, reply, &errtail);
    command_tail_text(&errtail, stderr_text, sizeof stderr_text);
    const char *sep = stderr_text[0] ? "; stderr: " : "; stderr was empty";
    if (reply->have_last) {
      c->served++;
      if (reaped) command_server_end(c, 0);
      char shown[81];
      const char *why = NULL;
      command_escape_text(reply->last, reply->last_len, shown, sizeof shown);
      if (!(c->pair ? command_parse_pair(reply, gain, &why)
                    : command_parse_reply(reply, gain, &why))) {
        /* The reply line is not what the protocol asks: whatever it prints
         * next cannot be trusted to answer the next request. */
        command_server_end(c, 0);
        DPBO_RAISE(DPBO_ERR_OBJECTIVE,
                   "command '%.*s'%s: the persistent program's reply to its request %ld is "
                   "%s ('%s%s'%s)%s%s",
                   CMD_SHOW_COMMAND, c->text, params, number, why, reply->last_cut ? "..." : "",
                   shown, c->pair ? "" : "; the program is started again for the next evaluation",
                   sep, stderr_text);
      }
      DPBO_TRY(command_check_range(c, params, *gain, sep, stderr_text, err));
      if (c->pair) DPBO_TRY(command_check_range(c, params, gain[1], sep, stderr_text, err));
      break;
    }
    /* It ended (the loop's only other way out) without a reply. */
    const int clean = WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0;
    const long served = c->served;
    command_describe_end(wstatus, how, sizeof how);
    command_server_end(c, 0);
    if (clean && served > 0 && !resent && reply->cur_len == 0) {
      /* It chose to end after serving (exit 0, nothing printed): not this
       * λ's failure. The request goes once to a fresh process. */
      resent = 1;
      errtail = (tail_buffer){{0}, 0, 0};
      continue;
    }
    DPBO_RAISE(DPBO_ERR_OBJECTIVE,
               "command '%.*s'%s: the persistent program %s without replying to its request "
               "%ld%s%s%s%s",
               CMD_SHOW_COMMAND, c->text, params, how, number,
               write_failed ? " (it did not read the request)" : "",
               c->pair ? "" : " (started again for the next evaluation)", sep, stderr_text);
  }
done:
  free(reply);
  free(request);
  return status;
}

/* gain: one value, or two with reply_pair (dpbo_command_evaluate_pair). */
static dpbo_status command_evaluate_values(command *c, int d, const char *const *names,
                                           const double *values, double *gain, dpbo_error *err) {
  return c->persistent ? command_evaluate_persistent(c, d, names, values, gain, err)
                       : command_evaluate_once(c, d, names, values, gain, err);
}

static dpbo_status command_evaluate(void *impl, int d, const char *const *names,
                                    const double *values, double *gain, dpbo_error *err) {
  command *c = impl;
  if (c->pair) /* two values would not fit in *gain */
    return DPBO_ERROR_SET(err, DPBO_ERR_ARG,
                          "command '%.*s' replies with two values: use dpbo_command_evaluate_pair",
                          CMD_SHOW_COMMAND, c->text);
  return command_evaluate_values(c, d, names, values, gain, err);
}

/* From another thread: ends the evaluation in progress (its loop notices
 * the flag within 0.1 s; the processes die now) and refuses new ones. */
static void command_cancel(void *impl) {
  command *c = impl;
  c->cancelled = 1;
  dpbo_proc_kill_descendants(0);
}

static const dpbo_objective_ops command_ops = {.name = "command",
                                               .evaluate = command_evaluate,
                                               .destroy = command_destroy,
                                               .cancel = command_cancel};

dpbo_status dpbo_command_evaluate_pair(dpbo_objective *objective, int d, const char *const *names,
                                       const double *values, double pair[2], dpbo_error *err) {
  command *c = objective && objective->ops == &command_ops ? objective->impl : NULL;
  if (!c || !c->pair)
    return DPBO_ERROR_SET(err, DPBO_ERR_ARG,
                          "dpbo_command_evaluate_pair: not a command objective with reply_pair");
  return command_evaluate_values(c, d, names, values, pair, err);
}

dpbo_status dpbo_command_objective_create(const dpbo_command_options *options,
                                          dpbo_objective *objective, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  command *c = NULL;
  if (!options || !objective) DPBO_RAISE(DPBO_ERR_ARG, "command objective: missing argument");
  if (!memchr(options->command, '\0', sizeof options->command))
    DPBO_RAISE(DPBO_ERR_CONFIG, "the command is longer than %d characters", DPBO_COMMAND_MAX - 1);
  if (options->pass != DPBO_PASS_ARGS && options->pass != DPBO_PASS_ENV)
    DPBO_RAISE(DPBO_ERR_CONFIG, "unknown pass mode %d (expected args or env)", (int)options->pass);
  if (isnan(options->timeout_s))
    DPBO_RAISE(DPBO_ERR_CONFIG, "command timeout must be a number of seconds, got nan");
  DPBO_ALLOC(c, 1, "the command objective");
  memcpy(c->text, options->command, sizeof c->text);
  c->pass = options->pass;
  c->server = -1;
  c->server_in = c->server_out = c->server_err = -1;
  if (options->mode != DPBO_COMMAND_PER_EVALUATION && options->mode != DPBO_COMMAND_PERSISTENT)
    DPBO_RAISE(DPBO_ERR_CONFIG, "unknown command mode %d (expected per_evaluation or persistent)",
               (int)options->mode);
  /* A request line carries NAME=VALUE words; a running process's
   * environment cannot change. */
  if (options->mode == DPBO_COMMAND_PERSISTENT && options->pass != DPBO_PASS_ARGS)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "objective.pass = env does not work with objective.mode = "
               "persistent (the values arrive on its stdin, one request per line)");
  c->persistent = options->mode == DPBO_COMMAND_PERSISTENT;
  c->timeout_s = options->timeout_s > 0.0 ? options->timeout_s : 0.0;
  if (options->check_range && !(options->value_lo <= options->value_hi))
    DPBO_RAISE(DPBO_ERR_CONFIG, "objective.value_range [%g, %g] is empty", options->value_lo,
               options->value_hi);
  c->check_range = options->check_range;
  c->pair = options->reply_pair;
  c->value_lo = options->value_lo;
  c->value_hi = options->value_hi;
  c->d = options->space ? dpbo_space_dims(options->space) : 0;
  for (int i = 0; i < c->d; i++)
    c->dim[i] = *dpbo_space_dim(options->space, i);
  DPBO_TRY(command_split_words(options->command, &c->argc, &c->argv, err));
  /* Resolved once: a missing program is a configuration error found before
   * the first evaluation, not a failure of every evaluation. */
  DPBO_TRY(command_resolve_program(c->argv[0], &c->path, err));
  DPBO_TRY(dpbo_proc_adopt_orphans(err));
  objective->ops = &command_ops;
  objective->impl = c;
  c = NULL;
done:
  command_destroy(c);
  return status;
}
