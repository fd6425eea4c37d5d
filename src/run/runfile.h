/* What the file at `dpbo run`'s run-file path means before anything is
 * evaluated (issue #25 "app reads like the README"): a checkpoint to
 * continue (--resume), files to remove first (--overwrite), a complete run
 * whose release may still be due, or a refusal. A file is never replaced
 * without --overwrite: a finished run holds the privacy ledger of its
 * releases. The app holds the run file's lock (base/lock.h) around this and
 * the run; it parses the command line and reports. */
#ifndef DPBO_RUNFILE_H
#define DPBO_RUNFILE_H

#include <mpi.h>
#include <stdint.h>

#include "dpbo/error.h"
#include "run/config.h"
#include "run/run.h"

/* How the command line asked to treat an existing run file. */
typedef struct dpbo_runfile_mode {
  int resume;    /* --resume: continue its checkpoint */
  int overwrite; /* --overwrite: remove it and its release files first */
} dpbo_runfile_mode;

/* What the driver starts from (identical on every rank), for
 * dpbo_driver_options. */
typedef struct dpbo_runfile_start {
  dpbo_trace_step *steps; /* the checkpoint's steps when resuming; NULL: none */
  int count;
  /* A private-selection run's secret candidates from its checkpoint (none
   * from a file written before issue #22, see dpbo_driver_options). */
  int64_t *candidates;
  int candidate_count;
  /* --resume of a complete run file: nothing to run, its release may be
   * due (dpbo_session_publish_resumed). */
  int complete;
} dpbo_runfile_start;

/* Collective (rank 0 reads and decides, every rank learns it): refuses a
 * release the ledger of `path`'s validation set would refuse, removes the
 * temporary files killed writes left (h5io.h), then reads what is at
 * `path` as `mode` says: the checkpoint to continue, or its removal (and
 * its release files') with --overwrite, or one error naming the file and
 * what to do. Nothing is evaluated or charged here. Free *start with
 * dpbo_runfile_start_free (also on failure). */
dpbo_status dpbo_runfile_prepare(MPI_Comm comm, const dpbo_config *config, const char *path,
                                 const dpbo_runfile_mode *mode, dpbo_runfile_start *start,
                                 dpbo_error *err);

void dpbo_runfile_start_free(dpbo_runfile_start *start);

#endif
