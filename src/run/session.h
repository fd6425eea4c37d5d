/* One `dpbo run` or `dpbo release` after the command line is read (issue
 * #25 "app reads like the README"): the app parses, loads the settings,
 * hands the run here to be made and published, and reports. What is
 * sequenced here, and nowhere in app: the path the algorithm's row picks
 * (its own run hook, or the driver and then the run file, the release
 * through the transaction of run/publish.h: targets, draw, ledger, files,
 * and its log lines); a complete run file whose release was never drawn; a
 * finished run rebuilt from its file for a new release or a report. */
#ifndef DPBO_SESSION_H
#define DPBO_SESSION_H

#include <mpi.h>

#include "dpbo/error.h"
#include "dpbo/noise.h"
#include "run/config.h"
#include "run/release.h"
#include "run/run.h"

/* The configured noise source of a release: seeded (stream = rank) or the
 * operating system's. */
void dpbo_session_noise(dpbo_noise *noise, const dpbo_config *config, int rank);

/* Logs the run's cumulative spend after a release (rank 0). */
void dpbo_session_log_ledger(const dpbo_release *release);

/* What dpbo_session_run (or dpbo_session_publish) did with the run; the
 * app says what each means for the command line and its exit code. */
typedef enum dpbo_session_end {
  DPBO_SESSION_PUBLISHED,     /* the run file written; the release drawn where one is due */
  DPBO_SESSION_ABANDONED,     /* the launcher is gone: nothing written */
  DPBO_SESSION_NO_CHECKPOINT, /* the checkpoint could not be written: the last one stays */
  DPBO_SESSION_NOT_WRITTEN,   /* the run file cannot be written: the error says why */
  DPBO_SESSION_ALL_FAILED,    /* every evaluation failed: the run file, and no release */
  /* A stop request ended the run, nothing was published: the driver's
   * checkpoint holds what is in (or, with the row's stop_note, nothing). */
  DPBO_SESSION_INTERRUPTED,
  /* The row's run hook wrote the run file and drew the release, and logged
   * both: `run` holds nothing. */
  DPBO_SESSION_HOOK_PUBLISHED,
} dpbo_session_end;

/* Publishes a run the driver finished (not interrupted) to the run file
 * `path`: the run file, then, when the method releases and the run
 * learnt something, its release (collective). *end says which way it went;
 * an error of the release is returned with *end = DPBO_SESSION_PUBLISHED. */
dpbo_status dpbo_session_publish(MPI_Comm comm, const dpbo_config *config, dpbo_run *run,
                                 const char *path, dpbo_session_end *end, dpbo_error *err);

struct dpbo_driver_options;

/* `dpbo run` once its run file is settled (collective): the row's run hook
 * when it has one (run/algorithm.h), else dpbo_driver_run with options and,
 * unless a stop request ended it, dpbo_session_publish to the run file
 * options->checkpoint. *end says which way it went; on an error it is
 * DPBO_SESSION_NOT_WRITTEN only when the run file cannot be written. */
dpbo_status dpbo_session_run(MPI_Comm comm, const dpbo_config *config,
                             const struct dpbo_driver_options *options, dpbo_run *run,
                             dpbo_session_end *end, dpbo_error *err);

/* `dpbo run --resume` on a complete run file `path`: draws its release if it
 * was never drawn (*lost set on every rank, with an error, when the ledger
 * counts a release whose files are missing). Collective. */
dpbo_status dpbo_session_publish_resumed(MPI_Comm comm, const dpbo_config *config, const char *path,
                                         int *lost, dpbo_error *err);

/* Which finished run to rebuild, and how (dpbo_session_load_run). */
typedef struct dpbo_session_load {
  const char *runfile;
  int override_count; /* --set overrides applied to the stored settings */
  const char *const *overrides;
  int redraw;      /* 1: only the overrides dpbo_release_check_overrides allows */
  const char *why; /* what is refused when the run did not complete */
} dpbo_session_load;

/* A finished run, rebuilt on every rank (collective): rank 0 reads the
 * settings and the trace of the run file, every rank gets them, applies the
 * overrides and replays the trace (the posterior is rebuilt, nothing is
 * evaluated again). */
dpbo_status dpbo_session_load_run(MPI_Comm comm, const dpbo_session_load *load, dpbo_config *config,
                                  dpbo_run *run, dpbo_error *err);

#endif
