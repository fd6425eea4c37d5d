/* The only way library code prints.
 *
 * Progress goes to stdout on the printing rank only (rank 0 by default, set by
 * the program once it knows its rank), so an N-rank job prints one log, not
 * N. Warnings and errors go to stderr from any rank, tagged with the rank. */
#ifndef DPBO_LOG_H
#define DPBO_LOG_H

typedef enum { DPBO_LOG_QUIET = 0, DPBO_LOG_INFO = 1, DPBO_LOG_DEBUG = 2 } dpbo_log_level;

/* rank tags messages; printer says whether this process prints info lines. */
void dpbo_log_setup(int rank, int printer, dpbo_log_level level);

void dpbo_log_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dpbo_log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dpbo_log_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void dpbo_log_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
