#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>

static int log_rank = 0;
static int log_printer = 1;
static dpbo_log_level log_level = DPBO_LOG_INFO;
static int log_holding = 0;
static char log_held_text[DPBO_LOG_HELD_MAX];
static size_t log_held_used = 0;

void dpbo_log_setup(int rank, int printer, dpbo_log_level level) {
  log_rank = rank;
  log_printer = printer;
  log_level = level;
}

static void log_line(FILE *out, const char *tag, const char *fmt, va_list ap) {
  if (tag) fprintf(out, "dpbo[%d] %s: ", log_rank, tag);
  vfprintf(out, fmt, ap);
  fputc('\n', out);
  fflush(out);
}

void dpbo_log_hold(int on) {
  log_holding = on;
  log_held_used = 0;
  log_held_text[0] = '\0';
}

const char *dpbo_log_held(void) { return log_held_text; }

/* A line that does not fit is cut at the buffer's end (it stays a line). */
static void log_keep(const char *fmt, va_list ap) {
  const size_t room = sizeof log_held_text - log_held_used;
  if (room < 2) return;
  int n = vsnprintf(log_held_text + log_held_used, room - 1, fmt, ap);
  if (n < 0) return;
  log_held_used += (size_t)n < room - 1 ? (size_t)n : room - 2;
  log_held_text[log_held_used++] = '\n';
  log_held_text[log_held_used] = '\0';
}

void dpbo_log_info(const char *fmt, ...) {
  if (log_level < DPBO_LOG_INFO) return;
  if (!log_printer) {
    if (!log_holding) return;
    va_list ap;
    va_start(ap, fmt);
    log_keep(fmt, ap);
    va_end(ap);
    return;
  }
  va_list ap;
  va_start(ap, fmt);
  log_line(stdout, NULL, fmt, ap);
  va_end(ap);
}

void dpbo_log_debug(const char *fmt, ...) {
  if (log_level < DPBO_LOG_DEBUG) return;
  va_list ap;
  va_start(ap, fmt);
  log_line(stderr, "debug", fmt, ap);
  va_end(ap);
}

void dpbo_log_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log_line(stderr, "warning", fmt, ap);
  va_end(ap);
}

void dpbo_log_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  log_line(stderr, "error", fmt, ap);
  va_end(ap);
}
