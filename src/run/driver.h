/* The GP-UCB driver of `dpbo run` over MPI: the event loop, the workers and
 * the checkpoints around the run layer's step (run.h, which holds the run
 * record, the selection with β_t and Algorithm 2's pruning, and the update).
 *
 * Every rank builds Λ's description, owns a contiguous block of it and keeps
 * that block's posterior (ucb.h). Rank 0 drives with a stream of broadcast
 * events that every rank applies in the same order:
 *   select  all ranks agree on the next λ_t (dpbo_run_select); the named
 *           worker (ranks 1..P-1, rank 0 itself when P = 1) starts evaluating
 *           it in its evaluation thread (evaluator.h);
 *   result  a worker's v_t (or its failure), which every rank folds into its
 *           copy of the GP and its block (dpbo_run_observe);
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

#include "run/config.h"
#include "run/run.h"
#include "dpbo/error.h"

typedef struct dpbo_driver_options {
  const char *checkpoint;        /* run file rewritten after every result; NULL: none */
  const dpbo_trace_step *resume; /* steps of the checkpoint to continue, identical on all ranks */
  int resume_count;
  int stop_after; /* tests: stop as a signal would after this many results (0: never) */
  /* A private-selection run's candidates stored in the checkpoint
   * (/trace/candidates: its K of them, secret), identical on all ranks; 0
   * when resuming a file written before issue #22, which stores none. */
  const int64_t *candidates;
  int candidate_count;
  /* A new private-selection run's candidate law (run/selection.h; the
   * guided method's π, read on rank 0 only, where the candidates are
   * drawn from the secret noise); NULL: uniform on Λ. */
  const struct dpbo_selection_law *law;
} dpbo_driver_options;

/* Runs the configured optimization on comm (collective); options may be NULL.
 * On return with DPBO_OK, run->outcome is DPBO_OK unless something ended the
 * loop early (a GP failure, every candidate excluded), and run->interrupted
 * says whether a stop request ended it. Set-up failures (bad space, unreadable
 * dataset on a worker) return an error on every rank. */
dpbo_status dpbo_driver_run(MPI_Comm comm, const dpbo_config *config,
                            const dpbo_driver_options *options, dpbo_run *run, dpbo_error *err);

#endif
