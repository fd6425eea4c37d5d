#include "base/log.h"

#include <stdarg.h>
#include <stdio.h>

static int log_rank = 0;
static int log_printer = 1;
static dpbo_log_level log_level = DPBO_LOG_INFO;

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

void dpbo_log_info(const char *fmt, ...) {
  if (!log_printer || log_level < DPBO_LOG_INFO) return;
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
