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

/* While held (on = 1), the info lines of a rank that does not print are kept
 * (up to DPBO_LOG_HELD_MAX bytes) instead of dropped, so that a collective
 * step can hand them to the printing rank (dpbo_comm_log_forward): with
 * several ranks, only workers read the dataset, and what they say about it
 * (a skipped CSV header) must still reach the one log. on = 0 stops holding
 * and discards what is kept. */
enum { DPBO_LOG_HELD_MAX = 4096 };
void dpbo_log_hold(int on);

/* The lines held so far ("" if none), without ending the hold. */
const char *dpbo_log_held(void);

#endif
