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
 * up once, at creation: a missing program is a DPBO_ERR_CONFIG there. */
#ifndef DPBO_COMMAND_H
#define DPBO_COMMAND_H

#include "objectives/objective.h"

#define DPBO_COMMAND_MAX 4096

/* objective.timeout_s when the config does not set it: a hung program fails
 * its evaluation after an hour instead of holding the job until its
 * wall-time limit. 0 turns the limit off (dpbo run warns). */
#define DPBO_COMMAND_TIMEOUT_DEFAULT 3600.0

typedef enum { DPBO_PASS_ARGS = 0, DPBO_PASS_ENV = 1 } dpbo_pass_mode;

typedef struct dpbo_command_options {
  char command[DPBO_COMMAND_MAX]; /* program and fixed arguments, split on blanks; "..." quotes */
  dpbo_pass_mode pass;
  double timeout_s; /* <= 0: no limit; configs default to DPBO_COMMAND_TIMEOUT_DEFAULT */
  /* With check_range, a gain outside [value_lo, value_hi] (the range the
   * objective declares, e.g. 0 1 for an accuracy) fails the evaluation. */
  int check_range;
  double value_lo, value_hi;
  /* The space whose points are evaluated: integer dimensions are passed as
   * integers and categorical ones by their category names (space.h,
   * dpbo_dim_format). NULL passes every value with %.17g. */
  const dpbo_space *space;
} dpbo_command_options;

dpbo_status dpbo_command_objective_create(const dpbo_command_options *options,
                                          dpbo_objective *objective, dpbo_error *err);

#endif
