/* The GP-UCB driver (paper eq. 3 with Algorithm 1's β_t) over MPI.
 *
 * Every rank builds Λ's description, owns a contiguous block of it and keeps
 * that block's posterior (ucb.h). Rank 0 drives with a stream of broadcast
 * events that every rank applies in the same order:
 *   select  all ranks agree on the next λ_t with one reduction; the named
 *           worker (ranks 1..P-1, rank 0 itself when P = 1) starts evaluating
 *           it in its evaluation thread (evaluator.h);
 *   result  a worker's v_t (or its failure), which every rank folds into its
 *           copy of the GP and its block;
 *   stop    all T evaluations are in, or the job was told to stop.
 * With batch = 1 this is the paper's sequential GP-UCB. With batch = B up to
 * B evaluations are in flight: a selected point enters the GP at once with a
 * hallucinated value (GP-BUCB: σ shrinks, μ does not move) and a free worker
 * gets the next point as soon as its result is in.
 *
 * Faults. A failed evaluation (after `retries` more attempts) is kept in the
 * trace with its reason, never enters the GP and its candidate is never
 * proposed again; it still counts towards T. With a checkpoint path the run
 * file is rewritten (atomically, by rank 0) after every result, so a job that
 * is killed loses at most the evaluations in flight; dpbo_driver_run with
 * resume steps continues such a run and, with batch = 1, gives exactly the
 * trace an uninterrupted run gives (selection is deterministic and the
 * objective's randomness is keyed by the evaluation number).
 *
 * Stopping. A stop request (dpbo_farm_request_stop in run/farm.h,
 * async-signal-safe; `dpbo run` calls it on SIGTERM and SIGUSR1) ends the
 * run at the next event: the evaluations in flight are abandoned, and the
 * checkpoint written after the last result holds everything else. */
#ifndef DPBO_DRIVER_H
#define DPBO_DRIVER_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "run/config.h"
#include "dpbo/error.h"
#include "dpbo/space.h"
#include "dpbo/ucb.h"

typedef enum {
  DPBO_STEP_DONE = 0,   /* v_t observed */
  DPBO_STEP_FAILED = 1, /* the evaluation failed; gain is NaN */
  DPBO_STEP_PENDING = 2 /* selected, result not in yet (batches, checkpoints) */
} dpbo_step_state;

#define DPBO_FAILURE_MAX 512

typedef struct dpbo_trace_step {
  int64_t index;                  /* λ_t's global index in Λ */
  double unit[DPBO_MAX_DIM];      /* unit-cube coordinates */
  double value[DPBO_MAX_DIM];     /* hyper-parameter values */
  double gain;                    /* v_t */
  double mean, std;               /* posterior of f at λ_t before observing v_t (units of v) */
  double beta;                    /* β_t */
  double ucb;                     /* acquisition score at λ_t: μ + √β σ (units of v), or EI */
  int64_t alive;                  /* Algorithm 2: candidates not pruned when λ_t was chosen */
  double eval_seconds;            /* objective time on the worker */
  double step_seconds;            /* whole step, selection to update */
  int worker;                     /* rank that evaluated */
  int state;                      /* dpbo_step_state */
  int attempts;                   /* 1 + retries used */
  char failure[DPBO_FAILURE_MAX]; /* why a failed evaluation failed */
} dpbo_trace_step;

typedef struct dpbo_run {
  int planned;         /* T */
  int steps;           /* trace entries: points selected so far, in order */
  int finished;        /* of those, evaluations whose result is in (done or failed) */
  int failures;        /* of those, failed evaluations */
  int resumed;         /* steps taken over from a checkpoint */
  int interrupted;     /* stopped by a signal or stop_after: the checkpoint holds the run */
  int workers;         /* ranks that evaluated */
  double busy_seconds; /* evaluation time summed over workers (this invocation) */
  double utilization;  /* busy_seconds / (workers x wall_seconds) */
  dpbo_trace_step *trace;
  int best_step; /* argmax_t v_t (first on ties), -1 before any step */
  double wall_seconds;
  dpbo_status outcome; /* DPBO_OK, or the failure that ended the run early */
  char outcome_message[DPBO_ERROR_MSG_MAX];
  /* State kept for output: */
  dpbo_space *space;
  dpbo_ucb *ucb;
  dpbo_gp *gp;
  size_t state_bytes; /* this rank's UCB state */
  /* The UCB state over all ranks (the same on every rank; ucb.h): */
  size_t memory_limit;          /* this rank's limit in bytes (0: none) */
  size_t memory_limit_min;      /* the smallest limit of any rank (0: none anywhere) */
  size_t state_bytes_max;       /* largest rank's state */
  size_t state_bytes_total;     /* sum over ranks */
  size_t incremental_bytes_max; /* largest rank's state in incremental mode */
  int recompute_ranks;          /* ranks whose state runs in recompute mode */
  int ranks;
  /* Peak resident set size (getrusage) at the end of the run's loop. */
  size_t peak_rss_max, peak_rss_total;
} dpbo_run;

typedef struct dpbo_driver_options {
  const char *checkpoint;        /* run file rewritten after every result; NULL: none */
  const dpbo_trace_step *resume; /* steps of the checkpoint to continue, identical on all ranks */
  int resume_count;
  int stop_after; /* tests: stop as a signal would after this many results (0: never) */
} dpbo_driver_options;

/* Runs the configured optimization on comm (collective); options may be NULL.
 * On return with DPBO_OK, run->outcome is DPBO_OK unless something ended the
 * loop early (a GP failure, every candidate excluded), and run->interrupted
 * says whether a stop request ended it. Set-up failures (bad space, unreadable
 * dataset on a worker) return an error on every rank. */
dpbo_status dpbo_driver_run(MPI_Comm comm, const dpbo_config *config,
                            const dpbo_driver_options *options, dpbo_run *run, dpbo_error *err);

/* Rebuilds a finished run's state (Λ, blocks, GP, UCB posterior) from its
 * trace: steps candidate indices and gains (NaN for a failed evaluation),
 * identical on every rank (collective). Used to redraw a release without
 * re-running the objective. */
dpbo_status dpbo_driver_replay(MPI_Comm comm, const dpbo_config *config, int steps,
                               const int64_t *index, const double *gain, dpbo_run *run,
                               dpbo_error *err);

void dpbo_run_free(dpbo_run *run);

/* "incremental", "recompute", or "recompute on R of P ranks, ...": the UCB
 * state's mode over all ranks, into buf. */
const char *dpbo_run_ucb_mode(const dpbo_run *run, char *buf, size_t size);

/* Builds Λ from the config (all ranks; lists are read by every rank). */
dpbo_status dpbo_driver_space(const dpbo_config *config, dpbo_space **space, dpbo_error *err);

#endif
