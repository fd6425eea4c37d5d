/* The `command` objective: runs a user program once per evaluation and reads
 * the gain it prints.
 *
 * The program is run directly (fork + exec, PATH searched as execvp does, no
 * shell; stdin is /dev/null; its own process group) as
 *     program [args...] NAME1=VALUE1 NAME2=VALUE2 ...      (pass = args)
 * or with environment variables DPBO_<NAME>=VALUE            (pass = env),
 * values printed with %.17g (an integer dimension's as an integer, a
 * categorical one's as its category name). The gain is the last number on the last
 * non-empty line of its standard output: that line's last token (tokens split
 * at blanks, ':', '=' and ','), e.g. "accuracy: 0.93". A non-zero exit, a signal, no
 * parsable number or running past timeout_s (the process group is killed)
 * fails that evaluation (DPBO_ERR_OBJECTIVE); the error message carries the
 * tail of its stderr. No process of an evaluation outlives it: the creating
 * process becomes a child subreaper (proc.h), and at the end of every
 * evaluation, at its time-out and at cancel (a stop) every process it
 * started is killed, those it backgrounded or moved to a new session with
 * setsid included. Control and non-ASCII bytes of its output are escaped as
 * \xHH in messages. A last line longer than 4096 bytes is read from its last
 * 2048: its last token must lie wholly there, or the evaluation fails (never a
 * number read from the cut tail of a longer one). A NUL byte on the last line
 * fails it; so does, with check_range, a gain outside [value_lo, value_hi].
 * Environment names are upper-cased, with characters
 * other than letters, digits and '_' turned into '_'. The program is looked
 * up once, at creation: a missing program is a DPBO_ERR_CONFIG there.
 *
 * With mode = DPBO_COMMAND_PERSISTENT the program is started once (per
 * objective, so once per worker rank) and answers one request line per
 * evaluation: dpbo writes "NAME1=VALUE1 NAME2=VALUE2\n" (the words of pass =
 * args, one blank between them) to its stdin and reads the value from the
 * next non-blank line of its stdout, parsed like the last line above. The
 * time-out runs from the writing of the request (the first request of a
 * process includes its start-up). A time-out, a crash, an exit before the
 * reply, or a reply without a number fails that evaluation and ends the
 * program (SIGKILL to its group and every process it started); the next
 * evaluation starts it again. An exit with status 0 and nothing printed
 * after at least one reply is a program that chose to end (say after N
 * requests): the request goes, once, to a fresh process and is no failure.
 * Output beyond the reply line ends the program before the next request
 * (stdout is no longer in step with the requests). At destroy its stdin
 * is closed (end of file: exit) and after DPBO_COMMAND_EXIT_GRACE_S it is
 * killed; dpbo run may kill it sooner (the evaluation thread's end delivers
 * PR_SET_PDEATHSIG). docs/own-model.md states the protocol for users. */
#ifndef DPBO_COMMAND_H
#define DPBO_COMMAND_H

#include "objectives/objective.h"

#define DPBO_COMMAND_MAX 4096

/* objective.timeout_s when the config does not set it: a hung program fails
 * its evaluation after an hour instead of holding the job until its
 * wall-time limit. 0 turns the limit off (dpbo run warns). */
#define DPBO_COMMAND_TIMEOUT_DEFAULT 3600.0

typedef enum { DPBO_PASS_ARGS = 0, DPBO_PASS_ENV = 1 } dpbo_pass_mode;

/* One process per evaluation, or one per objective answering requests on
 * stdin (objective.mode). */
typedef enum { DPBO_COMMAND_PER_EVALUATION = 0, DPBO_COMMAND_PERSISTENT = 1 } dpbo_command_mode;

/* How long a persistent program may take to exit after the end of file on
 * its stdin before it is killed. */
#define DPBO_COMMAND_EXIT_GRACE_S 2.0

typedef struct dpbo_command_options {
  char command[DPBO_COMMAND_MAX]; /* program and fixed arguments, split on blanks; "..." quotes */
  dpbo_pass_mode pass;            /* persistent mode: args only (requests carry NAME=VALUE) */
  dpbo_command_mode mode;
  double timeout_s; /* <= 0: no limit; configs default to DPBO_COMMAND_TIMEOUT_DEFAULT */
  /* With check_range, a gain outside [value_lo, value_hi] (the range the
   * objective declares, e.g. 0 1 for an accuracy) fails the evaluation. */
  int check_range;
  double value_lo, value_hi;
  /* The space whose points are evaluated: integer dimensions are passed as
   * integers and categorical ones by their category names (space.h,
   * dpbo_dim_format). NULL passes every value with %.17g. */
  const dpbo_space *space;
  /* dpbo compare's table (objective.compare_command): the reply (persistent
   * mode) or last line (per evaluation) is exactly two numbers, "VAL TEST",
   * the validation and the held-out test accuracy, each checked against the
   * range; read them with dpbo_command_evaluate_pair (the objective's own
   * evaluate refuses). 0: one value, as above. */
  int reply_pair;
} dpbo_command_options;

dpbo_status dpbo_command_objective_create(const dpbo_command_options *options,
                                          dpbo_objective *objective, dpbo_error *err);

/* One evaluation of an objective created with reply_pair: pair[0] the
 * validation value, pair[1] the test value. A malformed line fails it like a
 * reply without a number (DPBO_ERR_OBJECTIVE naming the program, the
 * hyper-parameters and the line). */
dpbo_status dpbo_command_evaluate_pair(dpbo_objective *objective, int d, const char *const *names,
                                       const double *values, double pair[2], dpbo_error *err);

#endif
