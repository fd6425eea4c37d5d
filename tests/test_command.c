/* The command objective against small /bin/sh scripts written to a
 * temporary directory whose name holds a blank (so quoting is exercised). */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/proc.h"
#include "check.h"
#include "objectives/command.h"

static char dir[512];

static double now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void write_script(const char *name, const char *body, int executable) {
  char path[700];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(2);
  }
  fprintf(f, "#!/bin/sh\n%s\n", body);
  fclose(f);
  chmod(path, executable ? 0755 : 0644);
}

static char *read_text(const char *name) {
  static char buf[4096];
  char path[700];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  buf[0] = '\0';
  FILE *f = fopen(path, "r");
  if (!f) return buf;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  buf[n] = '\0';
  fclose(f);
  return buf;
}

static int count_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  if (!d) return -1;
  int n = 0;
  while (readdir(d))
    n++;
  closedir(d);
  return n;
}

/* Runs `"<dir>/<script>" extra` once; returns the status, fills gain/err and
 * the elapsed time. */
static const double *run_range; /* objective.value_range for run(), or NULL */

static dpbo_status run(const char *script, const char *extra, dpbo_pass_mode pass, double timeout,
                       int d, const char *const *names, const double *values, double *gain,
                       dpbo_error *err, double *elapsed) {
  dpbo_command_options opt;
  memset(&opt, 0, sizeof opt);
  if (run_range) {
    opt.check_range = 1;
    opt.value_lo = run_range[0];
    opt.value_hi = run_range[1];
  }
  snprintf(opt.command, sizeof opt.command, "\"%s/%s\"%s%s", dir, script, extra ? " " : "",
           extra ? extra : "");
  opt.pass = pass;
  opt.timeout_s = timeout;
  dpbo_objective obj = {0};
  dpbo_status st = dpbo_command_objective_create(&opt, &obj, err);
  if (st != DPBO_OK) return st;
  double t0 = now();
  *gain = NAN;
  st = dpbo_objective_evaluate(&obj, d, names, values, gain, err);
  if (elapsed) *elapsed = now() - t0;
  dpbo_objective_destroy(&obj);
  if (st != DPBO_OK) printf("  %s -> %s\n", script, err->message);
  return st;
}

static const char *const no_names[1] = {NULL};
static const double no_values[1] = {0.0};

static void test_simple(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  double gain;
  write_script("ok.sh", "echo 0.75", 1);
  CHECK_OK(run("ok.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL));
  CHECK(gain == 0.75);

  /* Last non-empty line, last token, no trailing newline. */
  write_script("label.sh", "echo 'epoch 1: 0.1'\necho 'accuracy: 0.93'\necho\necho '   '", 1);
  CHECK_OK(run("label.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL));
  CHECK(gain == 0.93);
  write_script("nonl.sh", "printf 'x\\n-1.5e-3'", 1);
  CHECK_OK(run("nonl.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL));
  CHECK(gain == -1.5e-3);

  write_script("hello.sh", "echo 0.5\necho hello", 1);
  CHECK(run("hello.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK(strstr(err.message, "printed no number") && strstr(err.message, "hello"));
  write_script("epoch.sh", "echo 'epoch 5 done'", 1);
  CHECK(run("epoch.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK(strstr(err.message, "printed no number") != NULL);
  write_script("silent.sh", "true", 1);
  CHECK(run("silent.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK(strstr(err.message, "printed no number") && strstr(err.message, "empty"));

  /* A comma between digits is a decimal comma or digit grouping, not a
   * separator: "0,5" and "1,000" used to read as 5 and 0 (issue #27). A
   * comma after a word still separates. */
  write_script("comma.sh", "echo 0,5", 1);
  CHECK(run("comma.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK_MSG(strstr(err.message, "comma between digits") && strstr(err.message, "'0,5'"),
            "message: %s", err.message);
  write_script("grouped.sh", "echo 'loss: 1,000'", 1);
  CHECK(run("grouped.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK(strstr(err.message, "comma between digits") != NULL);
  write_script("csvlike.sh", "echo 'acc,0.25'", 1);
  CHECK_OK(run("csvlike.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL));
  CHECK(gain == 0.25);

  /* A finite gain past the GP's range (dpbo/gp.h) fails the evaluation
   * rather than overflowing the posterior (issue #27). */
  write_script("e308.sh", "echo 1e308", 1);
  CHECK(run("e308.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK_MSG(strstr(err.message, "gain of 1e+308, beyond") != NULL, "message: %s", err.message);
  write_script("large.sh", "echo -1e100", 1);
  CHECK_OK(run("large.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL));
  CHECK(gain == -1e100);
}

static void test_passing(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  double gain;
  /* Records its arguments and our DPBO_ variables (ctest sets others), one
   * per line. */
  write_script("record.sh",
               "d=$(dirname \"$0\")\n"
               ": > \"$d/args.out\"\n"
               "for a in \"$@\"; do printf '%s\\n' \"$a\" >> \"$d/args.out\"; done\n"
               "env | grep -E '^DPBO_(C|GAMMA|MAX_DEPTH)=' | sort > \"$d/env.out\"\n"
               "echo 'accuracy: 0.5'",
               1);
  const char *const names[3] = {"C", "gamma", "max-depth"};
  const double values[3] = {0.1, 1.2345678901234567e-300, 123456.789};
  char v[3][64];
  for (int i = 0; i < 3; i++)
    snprintf(v[i], sizeof v[i], "%.17g", values[i]);

  setenv("DPBO_C", "stale", 1); /* an inherited value must not survive in env mode */
  CHECK_OK(run("record.sh", "fixed \"two words\"", DPBO_PASS_ARGS, 10, 3, names, values, &gain,
               &err, NULL));
  CHECK(gain == 0.5);
  char expect[1024];
  snprintf(expect, sizeof expect, "fixed\ntwo words\nC=%s\ngamma=%s\nmax-depth=%s\n", v[0], v[1],
           v[2]);
  CHECK_MSG(strcmp(read_text("args.out"), expect) == 0, "args: got [%s] expected [%s]",
            read_text("args.out"), expect);
  CHECK_MSG(strcmp(read_text("env.out"), "DPBO_C=stale\n") == 0, "env in args mode: [%s]",
            read_text("env.out"));

  CHECK_OK(run("record.sh", "fixed", DPBO_PASS_ENV, 10, 3, names, values, &gain, &err, NULL));
  CHECK(gain == 0.5);
  CHECK_MSG(strcmp(read_text("args.out"), "fixed\n") == 0, "args in env mode: [%s]",
            read_text("args.out"));
  snprintf(expect, sizeof expect, "DPBO_C=%s\nDPBO_GAMMA=%s\nDPBO_MAX_DEPTH=%s\n", v[0], v[1],
           v[2]);
  CHECK_MSG(strcmp(read_text("env.out"), expect) == 0, "env: got [%s] expected [%s]",
            read_text("env.out"), expect);
  unsetenv("DPBO_C");
  /* %.17g reads back to the same doubles. */
  for (int i = 0; i < 3; i++)
    CHECK(strtod(v[i], NULL) == values[i]);
}

static void test_failures(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  double gain, elapsed;
  write_script("fail.sh", "echo 0.9\necho boom >&2\nexit 3", 1);
  CHECK(run("fail.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK(strstr(err.message, "status 3") && strstr(err.message, "boom") &&
        strstr(err.message, "fail.sh"));
  const char *const names[2] = {"C", "gamma"};
  const double values[2] = {0.1, 2.5};
  CHECK(run("fail.sh", NULL, DPBO_PASS_ENV, 10, 2, names, values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK(strstr(err.message, "at C=0.1, gamma=2.5 exited") != NULL);

  write_script("killed.sh", "kill -9 $$", 1);
  CHECK(run("killed.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK(strstr(err.message, "signal 9") != NULL);

  /* Timeout: the whole group dies, the background sleep included. */
  write_script("sleep.sh", "sleep 5 &\necho $! > \"$(dirname \"$0\")/sleep.pid\"\nwait", 1);
  CHECK(run("sleep.sh", NULL, DPBO_PASS_ARGS, 0.5, 0, no_names, no_values, &gain, &err, &elapsed) ==
        DPBO_ERR_OBJECTIVE);
  CHECK(strstr(err.message, "timed out after 0.5 s") != NULL);
  CHECK_MSG(elapsed < 4.0, "timeout took %g s", elapsed);
  long bg = strtol(read_text("sleep.pid"), NULL, 10);
  int gone = 0;
  for (int i = 0; i < 100 && !gone && bg > 0; i++) {
    char stat_path[64], state = 'R';
    snprintf(stat_path, sizeof stat_path, "/proc/%ld/stat", bg);
    FILE *f = fopen(stat_path, "r");
    if (!f) {
      gone = 1;
      break;
    }
    /* A zombie waiting for its new parent to reap it is dead too. */
    if (fscanf(f, "%*d (%*[^)]) %c", &state) == 1 && (state == 'Z' || state == 'X')) gone = 1;
    fclose(f);
    if (!gone) usleep(20000);
  }
  CHECK_MSG(gone, "background sleep %ld survived the timeout", bg);

  /* A program that closes its output and keeps running still times out. */
  write_script("mute.sh", "exec >&- 2>&-\nsleep 5", 1);
  CHECK(run("mute.sh", NULL, DPBO_PASS_ARGS, 0.5, 0, no_names, no_values, &gain, &err, &elapsed) ==
        DPBO_ERR_OBJECTIVE);
  CHECK(strstr(err.message, "timed out") != NULL);
  CHECK_MSG(elapsed < 4.0, "timeout took %g s", elapsed);

  /* Missing programs, all found at creation (before any evaluation): not
   * on PATH, a missing path and a file without execute permission. A path
   * used to be checked only by exec, so every evaluation of a run failed. */
  dpbo_command_options opt;
  memset(&opt, 0, sizeof opt);
  snprintf(opt.command, sizeof opt.command, "dpbo-no-such-program-xyz --flag");
  dpbo_objective obj = {0};
  CHECK(dpbo_command_objective_create(&opt, &obj, &err) == DPBO_ERR_CONFIG);
  CHECK(strstr(err.message, "dpbo-no-such-program-xyz") && strstr(err.message, "not found"));
  printf("  missing program -> %s\n", err.message);
  CHECK(run("no-such-script.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err,
            NULL) == DPBO_ERR_CONFIG);
  CHECK(strstr(err.message, "no-such-script.sh' No such file") != NULL);
  write_script("noexec.sh", "echo 1", 0);
  CHECK(run("noexec.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_CONFIG);
  CHECK(strstr(err.message, "noexec.sh' is not an executable file") != NULL);

  snprintf(opt.command, sizeof opt.command, "  ");
  CHECK(dpbo_command_objective_create(&opt, &obj, &err) == DPBO_ERR_CONFIG);
  snprintf(opt.command, sizeof opt.command, "echo \"open");
  CHECK(dpbo_command_objective_create(&opt, &obj, &err) == DPBO_ERR_CONFIG);
  CHECK(strstr(err.message, "quote") != NULL);
}

static void test_streams(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  double gain, elapsed;
  /* 1 MB on each stream at the same time, then the gain. */
  write_script("big.sh",
               "(head -c 1048576 /dev/zero | tr '\\0' y >&2) &\n"
               "head -c 1048576 /dev/zero | tr '\\0' x\n"
               "wait\necho\necho 0.42",
               1);
  CHECK_OK(run("big.sh", NULL, DPBO_PASS_ARGS, 60, 0, no_names, no_values, &gain, &err, NULL));
  CHECK(gain == 0.42);
  /* A 1 MB line ending in the gain, and a failure whose stderr is 1 MB. */
  write_script("longline.sh", "head -c 1048576 /dev/zero | tr '\\0' x\necho ' 0.125'", 1);
  CHECK_OK(run("longline.sh", NULL, DPBO_PASS_ARGS, 60, 0, no_names, no_values, &gain, &err, NULL));
  CHECK(gain == 0.125);
  write_script("bigfail.sh",
               "head -c 1048576 /dev/zero | tr '\\0' y >&2\necho tail-end >&2\nexit 1", 1);
  CHECK(run("bigfail.sh", NULL, DPBO_PASS_ARGS, 60, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK(strstr(err.message, "tail-end") && strstr(err.message, "status 1"));

  /* Closing stdout early and going on is fine. */
  write_script("early.sh", "echo 0.25\nexec >&- 2>&-\nsleep 0.3\nexit 0", 1);
  CHECK_OK(
      run("early.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, &elapsed));
  CHECK(gain == 0.25);
  CHECK_MSG(elapsed >= 0.25, "returned after %g s, before the program ended", elapsed);

  /* A background child holding the pipe open does not hold us up. */
  write_script("linger.sh", "(sleep 3) &\necho 0.6", 1);
  CHECK_OK(
      run("linger.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, &elapsed));
  CHECK(gain == 0.6);
  CHECK_MSG(elapsed < 2.5, "waited %g s for a lingering background child", elapsed);
  /* ... nor one that never stops writing (it dies of SIGPIPE once we stop
   * reading). */
  write_script("chatty.sh", "(yes >&2) &\necho 0.7", 1);
  CHECK_OK(
      run("chatty.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, &elapsed));
  CHECK(gain == 0.7);
  CHECK_MSG(elapsed < 2.5, "waited %g s for an endless background writer", elapsed);

  /* Our descriptors do not reach the program, even without close-on-exec. */
  int leaky = open("/dev/null", O_RDONLY);
  char extra[32];
  snprintf(extra, sizeof extra, "%d", leaky);
  write_script("fdcheck.sh", "if [ -e /proc/$$/fd/$1 ]; then echo 1; else echo 0; fi", 1);
  CHECK_OK(run("fdcheck.sh", extra, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL));
  CHECK_MSG(gain == 0.0, "descriptor %d reached the program", leaky);
  close(leaky);
  /* stdin is /dev/null, not ours. */
  write_script("stdin.sh", "if read x; then echo 1; else echo 0; fi", 1);
  CHECK_OK(run("stdin.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL));
  CHECK(gain == 0.0);
}

/* Issue #11, item 11: output that must not be read as a gain, and output
 * that must not reach the log unescaped. */
static void test_hostile_output(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  double gain;
  /* "-" then 5,000 zeros then "5" is -5 whole, never +5 from the line's cut
   * tail: refused, since its last token does not fit in what is kept. */
  write_script("longneg.sh", "printf -- '-'; head -c 5000 /dev/zero | tr '\\0' 0; echo 5", 1);
  CHECK(run("longneg.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK_MSG(strstr(err.message, "longer than 2048 bytes") != NULL, "message: %s", err.message);
  CHECK_MSG(!(gain == 5.0), "read the cut line as %g", gain);
  /* A long line whose last token is short still works (its tail is kept). */
  write_script("longok.sh", "head -c 5000 /dev/zero | tr '\\0' 0; echo ' -5'", 1);
  CHECK_OK(run("longok.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL));
  CHECK(gain == -5.0);
  /* Binary output: escaped in the message (no raw control or high bytes),
   * on stdout and on stderr; a NUL byte on the last line refuses it. */
  write_script("binary.sh",
               "printf 'x\\033[2J\\377\\001\\n' >&2; printf '\\033]0;owned\\007\\376 zz\\n'", 1);
  CHECK(run("binary.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  int raw = 0;
  for (const char *p = err.message; *p; p++)
    raw |= (unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f;
  CHECK_MSG(!raw, "raw control or binary bytes in: %s", err.message);
  CHECK_MSG(strstr(err.message, "\\x1b]0;owned\\x07\\xfe zz") &&
                strstr(err.message, "x\\x1b[2J\\xff\\x01"),
            "not escaped as \\xHH: %s", err.message);
  write_script("nul.sh", "printf '0.5\\0001\\n'", 1);
  CHECK(run("nul.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK_MSG(strstr(err.message, "NUL") && strstr(err.message, "0.5\\x001"), "message: %s",
            err.message);
  /* objective.value_range: 1e300 from a broken script fails the evaluation;
   * the bounds themselves are inside. */
  static const double range[2] = {0.0, 1.0};
  run_range = range;
  write_script("huge.sh", "echo 1e300", 1);
  CHECK(run("huge.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK_MSG(strstr(err.message, "1.0000000000000001e+300, outside objective.value_range [0, 1]"),
            "message: %s", err.message);
  write_script("one.sh", "echo 1", 1);
  CHECK_OK(run("one.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL));
  CHECK(gain == 1.0);
  run_range = NULL;
  /* Without a range, 1e300 still lies past the GP's (dpbo/gp.h). */
  CHECK(run("huge.sh", NULL, DPBO_PASS_ARGS, 10, 0, no_names, no_values, &gain, &err, NULL) ==
        DPBO_ERR_OBJECTIVE);
  CHECK_MSG(strstr(err.message, "beyond ±1e+100"), "message: %s", err.message);
}

/* objective.mode = persistent at the API: the request line, end of file on
 * stdin at destroy (the program's exit), a program that ignores it (killed
 * after DPBO_COMMAND_EXIT_GRACE_S), a reply followed by more output (the
 * program is started again, the reply kept), a reply that is not a number
 * alone, and pass = env refused. tests/command_persistent.sh covers runs. */
static dpbo_status persistent_create(const char *script, dpbo_pass_mode pass, double timeout,
                                     dpbo_objective *obj, dpbo_error *err) {
  dpbo_command_options opt;
  memset(&opt, 0, sizeof opt);
  snprintf(opt.command, sizeof opt.command, "\"%s/%s\"", dir, script);
  opt.pass = pass;
  opt.mode = DPBO_COMMAND_PERSISTENT;
  opt.timeout_s = timeout;
  return dpbo_command_objective_create(&opt, obj, err);
}

static void test_persistent(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  const char *names[2] = {"x", "lr"};
  double values[2] = {0.25, 1e-3}, gain = NAN;
  char body[1200];

  /* Echoes the request into a file, answers x + 1, and notes its end of file. */
  snprintf(body, sizeof body,
           "echo $$ >> \"%s/p-starts\"\n"
           "while read -r line; do echo \"$line\" >> \"%s/p-lines\"; "
           "x=${line%%%% *}; awk -v x=\"${x#x=}\" 'BEGIN { printf \"%%.17g\\n\", x + 1 }'; done\n"
           "echo eof > \"%s/p-eof\"",
           dir, dir, dir);
  write_script("serve.sh", body, 1);
  dpbo_objective obj = {0};
  CHECK_OK(persistent_create("serve.sh", DPBO_PASS_ARGS, 10, &obj, &err));
  for (int i = 0; i < 3; i++) {
    values[0] = 0.25 * i;
    CHECK_OK(dpbo_objective_evaluate(&obj, 2, names, values, &gain, &err));
    CHECK_MSG(fabs(gain - (0.25 * i + 1)) < 1e-12, "reply %d: %g", i, gain);
  }
  dpbo_objective_destroy(&obj);
  CHECK_MSG(strcmp(read_text("p-lines"), "x=0 lr=0.001\nx=0.25 lr=0.001\nx=0.5 lr=0.001\n") == 0,
            "request lines: '%s'", read_text("p-lines"));
  CHECK_MSG(strcmp(read_text("p-eof"), "eof\n") == 0, "no end of file seen: '%s'",
            read_text("p-eof"));
  CHECK_MSG(strchr(read_text("p-starts"), '\n') == strrchr(read_text("p-starts"), '\n'),
            "started more than once: %s", read_text("p-starts"));

  /* Ignores end of file: killed after the grace period, nothing left. */
  snprintf(body, sizeof body,
           "read -r line; echo 0.5\nsleep 1000 & echo $! > \"%s/p-bg\"\n"
           "while :; do read -r line || sleep 0.05; done",
           dir);
  write_script("stubborn.sh", body, 1);
  CHECK_OK(persistent_create("stubborn.sh", DPBO_PASS_ARGS, 10, &obj, &err));
  CHECK_OK(dpbo_objective_evaluate(&obj, 2, names, values, &gain, &err));
  CHECK(gain == 0.5);
  double t0 = now();
  dpbo_objective_destroy(&obj);
  double took = now() - t0;
  CHECK_MSG(took >= DPBO_COMMAND_EXIT_GRACE_S - 0.1 && took < DPBO_COMMAND_EXIT_GRACE_S + 5,
            "destroy took %.2f s", took);
  int bg = atoi(read_text("p-bg"));
  CHECK_MSG(bg > 0 && kill(bg, 0) != 0, "its background sleep %d outlived it", bg);

  /* Two lines per request (in one write, so both are there when the reply
   * is read: a line written later could be taken for the next reply, as
   * docs/own-model.md warns): the first is the reply, and the program is
   * started again before the next request (its stdout is out of step). */
  snprintf(body, sizeof body,
           "echo $$ >> \"%s/p2-starts\"\nwhile read -r line; do printf '0.5\\n0.75\\n'; done", dir);
  write_script("twice.sh", body, 1);
  CHECK_OK(persistent_create("twice.sh", DPBO_PASS_ARGS, 10, &obj, &err));
  for (int i = 0; i < 2; i++) {
    CHECK_OK(dpbo_objective_evaluate(&obj, 2, names, values, &gain, &err));
    CHECK_MSG(gain == 0.5, "reply %d: %g", i, gain);
  }
  dpbo_objective_destroy(&obj);
  const char *starts = read_text("p2-starts");
  CHECK_MSG(strchr(starts, '\n') && strchr(starts, '\n') != strrchr(starts, '\n'),
            "not started again after two lines: %s", starts);

  /* A reply that is no number alone fails, naming the program and the line. */
  write_script("chatty.sh", "while read -r line; do echo 'accuracy: 0.9'; done", 1);
  CHECK_OK(persistent_create("chatty.sh", DPBO_PASS_ARGS, 10, &obj, &err));
  CHECK(dpbo_objective_evaluate(&obj, 2, names, values, &gain, &err) == DPBO_ERR_OBJECTIVE);
  CHECK_MSG(strstr(err.message, "chatty.sh") && strstr(err.message, "'accuracy: 0.9'") &&
                strstr(err.message, "request 1"),
            "message: %s", err.message);
  dpbo_objective_destroy(&obj);

  CHECK(persistent_create("serve.sh", DPBO_PASS_ENV, 10, &obj, &err) == DPBO_ERR_CONFIG);
  CHECK_MSG(strstr(err.message, "pass = env") != NULL, "message: %s", err.message);
}

int main(void) {
  const char *tmp = getenv("TMPDIR");
  snprintf(dir, sizeof dir, "%s/dpbo command.XXXXXX", tmp && *tmp ? tmp : "/tmp");
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 2;
  }
  /* The first command objective starts the watchdog of base/proc.h, whose
   * socket stays open for the process's life: counted before. */
  dpbo_error perr;
  CHECK(dpbo_proc_adopt_orphans(&perr) == DPBO_OK);
  int fds_before = count_fds();
  test_simple();
  test_passing();
  test_failures();
  test_streams();
  test_hostile_output();
  test_persistent();
  int fds_after = count_fds();
  CHECK_MSG(fds_before == fds_after, "open descriptors: %d before, %d after", fds_before,
            fds_after);

  DIR *d = opendir(dir);
  if (d) {
    struct dirent *e;
    while ((e = readdir(d))) {
      if (e->d_name[0] == '.') continue;
      char path[800];
      snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
      unlink(path);
    }
    closedir(d);
  }
  rmdir(dir);
  return dpbo_test_summary("test_command");
}
