/* Status codes and error records.
 *
 * Every dpbo function that can fail returns a dpbo_status and fills a
 * caller-owned dpbo_error with a message naming the file, line, key or value
 * at fault. The codes and their one-line meanings live in one X-macro list so
 * a code cannot exist without its message (a SUNDIALS habit).
 *
 * Inside a function the PETSc/HDF5 pattern is:
 *
 *     dpbo_status status = DPBO_OK;
 *     DPBO_TRY(dpbo_other_call(..., err));
 *     if (bad) DPBO_RAISE(DPBO_ERR_ARG, "T must be positive, got %d", T);
 *   done:
 *     free(...);
 *     return status;
 */
#ifndef DPBO_ERROR_H
#define DPBO_ERROR_H

#include <stddef.h>

#define DPBO_STATUS_LIST(X)                                                                        \
  X(DPBO_OK, "success")                                                                            \
  X(DPBO_ERR_ARG, "invalid argument")                                                              \
  X(DPBO_ERR_NOMEM, "out of memory")                                                               \
  X(DPBO_ERR_IO, "input/output error")                                                             \
  X(DPBO_ERR_CONFIG, "invalid configuration")                                                      \
  X(DPBO_ERR_DATA, "invalid dataset")                                                              \
  X(DPBO_ERR_NUMERIC, "numerical failure")                                                         \
  X(DPBO_ERR_MPI, "MPI failure")                                                                   \
  X(DPBO_ERR_HDF5, "HDF5 failure")                                                                 \
  X(DPBO_ERR_OBJECTIVE, "objective evaluation failed")                                             \
  X(DPBO_ERR_LIBRARY, "external library failure")                                                  \
  X(DPBO_ERR_USAGE, "invalid command line")                                                        \
  X(DPBO_ERR_WRITE, "an output file cannot be written")

typedef enum {
#define DPBO__ENUM(code, text) code,
  DPBO_STATUS_LIST(DPBO__ENUM)
#undef DPBO__ENUM
      DPBO_STATUS_COUNT
} dpbo_status;

#define DPBO_ERROR_MSG_MAX 1024

typedef struct dpbo_error {
  dpbo_status code;
  char message[DPBO_ERROR_MSG_MAX];
  const char *file; /* source location that raised it, for debugging */
  int line;
  const char *func;
} dpbo_error;

/* Name ("DPBO_ERR_CONFIG") and meaning ("invalid configuration") of a code. */
const char *dpbo_status_name(dpbo_status code);
const char *dpbo_status_text(dpbo_status code);

/* Resets an error record to DPBO_OK with an empty message. */
void dpbo_error_clear(dpbo_error *err);

/* Records code and a printf-style message in err (err may be NULL) and
 * returns code, so it can be used in a return statement. */
dpbo_status dpbo_error_set(dpbo_error *err, dpbo_status code, const char *file, int line,
                           const char *func, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

/* Prepends "context: " to the message already in err (e.g. a file name). */
void dpbo_error_prefix(dpbo_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#define DPBO_ERROR_SET(err, code, ...)                                                             \
  dpbo_error_set((err), (code), __FILE__, __LINE__, __func__, __VA_ARGS__)

/* Both macros need `dpbo_status status` and `dpbo_error *err` in scope and a
 * `done:` label that releases what the function holds. */
#define DPBO_TRY(call)                                                                             \
  do {                                                                                             \
    status = (call);                                                                               \
    if (status != DPBO_OK) goto done;                                                              \
  } while (0)

#define DPBO_RAISE(code, ...)                                                                      \
  do {                                                                                             \
    status = DPBO_ERROR_SET(err, (code), __VA_ARGS__);                                             \
    goto done;                                                                                     \
  } while (0)

/* Records a failed MPI call: `call` is its source text, mpi_code what it
 * returned (MPI_Error_string adds the library's reason). Returns
 * DPBO_ERR_MPI. */
dpbo_status dpbo_error_set_mpi(dpbo_error *err, int mpi_code, const char *call, const char *file,
                               int line, const char *func);

/* The one way dpbo checks an MPI call (PETSc's PetscCallMPI): a result other
 * than MPI_SUCCESS becomes DPBO_ERR_MPI naming the call, file and line, and
 * jumps to `done:`. It is live because dpbo's communicators return errors
 * (MPI_ERRORS_RETURN, set in main.c) instead of aborting. A failure on one
 * rank before a collective reaches the others through dpbo_comm_agree. Same
 * scope needs as DPBO_TRY; the caller includes <mpi.h>. Frees after `done:`
 * (MPI_Comm_free, MPI_Type_free, ...) stay unchecked: they run on the way
 * out, often with an error recorded already, and a failed free only leaks
 * a handle. */
#define DPBO_MPI_TRY(call)                                                                         \
  do {                                                                                             \
    int dpbo__mpi = (call);                                                                        \
    if (dpbo__mpi != MPI_SUCCESS) {                                                                \
      status = dpbo_error_set_mpi(err, dpbo__mpi, #call, __FILE__, __LINE__, __func__);            \
      goto done;                                                                                   \
    }                                                                                              \
  } while (0)

/* Allocation helper: raises DPBO_ERR_NOMEM naming what was being allocated. */
#define DPBO_ALLOC(ptr, count, what)                                                               \
  do {                                                                                             \
    size_t dpbo__n = (size_t)(count);                                                              \
    (ptr) = calloc(dpbo__n ? dpbo__n : 1, sizeof *(ptr));                                          \
    if (!(ptr))                                                                                    \
      DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory allocating %zu x %zu bytes for %s", dpbo__n,       \
                 sizeof *(ptr), (what));                                                           \
  } while (0)

#endif
