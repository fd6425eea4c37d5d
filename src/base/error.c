#include "dpbo/error.h"

#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const status_names[] = {
#define DPBO__NAME(code, text) #code,
    DPBO_STATUS_LIST(DPBO__NAME)
#undef DPBO__NAME
};

static const char *const status_texts[] = {
#define DPBO__TEXT(code, text) text,
    DPBO_STATUS_LIST(DPBO__TEXT)
#undef DPBO__TEXT
};

const char *dpbo_status_name(dpbo_status code) {
  if ((int)code < 0 || code >= DPBO_STATUS_COUNT) return "DPBO_ERR_UNKNOWN";
  return status_names[code];
}

const char *dpbo_status_text(dpbo_status code) {
  if ((int)code < 0 || code >= DPBO_STATUS_COUNT) return "unknown error";
  return status_texts[code];
}

void dpbo_error_clear(dpbo_error *err) {
  if (!err) return;
  memset(err, 0, sizeof *err);
  err->code = DPBO_OK;
}

dpbo_status dpbo_error_set(dpbo_error *err, dpbo_status code, const char *file, int line,
                           const char *func, const char *fmt, ...) {
  if (!err) return code;
  err->code = code;
  err->file = file;
  err->line = line;
  err->func = func;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->message, sizeof err->message, fmt, ap);
  va_end(ap);
  return code;
}

void dpbo_error_prefix(dpbo_error *err, const char *fmt, ...) {
  if (!err) return;
  char prefix[DPBO_ERROR_MSG_MAX];
  char old[DPBO_ERROR_MSG_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, err->message, sizeof old);
  snprintf(err->message, sizeof err->message, "%s: %s", prefix, old);
}

dpbo_status dpbo_error_set_mpi(dpbo_error *err, int mpi_code, const char *call, const char *file,
                               int line, const char *func) {
  char reason[MPI_MAX_ERROR_STRING] = "unknown MPI error";
  int length = 0;
  if (MPI_Error_string(mpi_code, reason, &length) != MPI_SUCCESS)
    snprintf(reason, sizeof reason, "MPI error code %d", mpi_code);
  /* The file's base name: the build directory is no business of the user. */
  const char *base = strrchr(file, '/');
  return dpbo_error_set(err, DPBO_ERR_MPI, file, line, func, "%s failed (%s:%d): %s", call,
                        base ? base + 1 : file, line, reason);
}
