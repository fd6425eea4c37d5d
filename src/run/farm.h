/* The task farm: one manager (rank 0) hands tasks to workers (ranks 1..P-1;
 * rank 0 itself when it is alone) and files their results. `dpbo run`'s
 * driver, the k1 sweep and `dpbo compare`'s table share it.
 *
 * Stop requests. A process holds one count of stop requests (SIGTERM,
 * SIGUSR1: dpbo_farm_request_stop is async-signal-safe). What a request
 * means is the user's: the k1 sweep and dpbo_farm_run hand out no new tasks
 * after the first and wait for those in flight, and abandon them after the
 * second; the driver stops at the first. A request that reaches a worker
 * alone (a signal sent to one process, not through mpiexec) is forwarded to
 * the manager with dpbo_farm_forward_stop.
 *
 * Messages. The farm talks on its own duplicate of the caller's
 * communicator, so its point-to-point messages never meet the caller's.
 * Tasks are int64 (a negative task releases a worker); results are
 * fixed-size byte records. Every wait sleeps with a doubling back-off
 * instead of spinning: Open MPI's blocking calls poll, and an idle rank
 * must leave its core to the ranks that compute.
 *
 * Two ways to use it:
 *   dpbo_farm_run    a whole farm over a list of independent tasks (the k1
 *                    sweep's trainings, compare's table): dynamic scheduling,
 *                    one task per worker, a checkpoint hook after each
 *                    accepted result, stop requests honoured;
 *   the pieces       least-loaded choice, load per worker, receiving results,
 *                    sending them through non-blocking slots, forwarding stop
 *                    requests: for the driver, which assigns work through its
 *                    broadcast events and must keep its workers in the
 *                    collectives while they evaluate. */
#ifndef DPBO_FARM_H
#define DPBO_FARM_H

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

#include "dpbo/error.h"

/* ---------------------------------------------------------------------------
 * Stop requests (one count per process). */

/* Async-signal-safe: one more stop request. */
void dpbo_farm_request_stop(void);

/* Requests since the last dpbo_farm_stops_reset. */
int dpbo_farm_stop_requests(void);

/* Forgets earlier requests: a request belongs to one run. */
void dpbo_farm_stops_reset(void);

/* ---------------------------------------------------------------------------
 * The farm. */

typedef struct dpbo_farm dpbo_farm;

typedef struct dpbo_farm_options {
  size_t result_bytes; /* one result record */
  int send_slots;      /* non-blocking sends a worker may have in flight (dpbo_farm_slot) */
  /* The sleeping back-off while waiting, from nap_min_ns doubling to
   * nap_max_ns; 0 and 0: dpbo_comm_nap's 0.1 ms to 10 ms. */
  long nap_min_ns, nap_max_ns;
} dpbo_farm_options;

/* Collective over comm: duplicates it (the copy keeps comm's error handler). */
dpbo_status dpbo_farm_create(MPI_Comm comm, const dpbo_farm_options *options, dpbo_farm **farm,
                             dpbo_error *err);

/* Local. Sends of a worker still in flight (the manager stopped listening:
 * an interrupted run) are cancelled; the copy of the communicator is freed. */
void dpbo_farm_destroy(dpbo_farm *farm);

/* The first worker's rank: 1, or 0 when rank 0 is alone. */
int dpbo_farm_first_worker(const dpbo_farm *farm);

/* One step of the farm's back-off (start *ns at 0). */
void dpbo_farm_nap(const dpbo_farm *farm, long *ns);

/* ---------------------------------------------------------------------------
 * Manager side (rank 0). */

/* The worker with the fewest tasks assigned and not released, lowest rank on
 * ties; -1 when every worker is released. */
int dpbo_farm_least_loaded(const dpbo_farm *farm);

/* Counts a task assigned to `worker` / finished by it. */
void dpbo_farm_assign(dpbo_farm *farm, int worker);
void dpbo_farm_finish(dpbo_farm *farm, int worker);

/* Tasks assigned and not finished, over all workers. */
int dpbo_farm_in_flight(const dpbo_farm *farm);

/* Sends `task` to `worker` (point to point); a negative task releases the
 * worker, which then leaves dpbo_farm_run's loop and is never chosen again.
 * Does not count the load (dpbo_farm_assign does). */
dpbo_status dpbo_farm_give(dpbo_farm *farm, int worker, int64_t task, dpbo_error *err);

/* Receives a waiting result into `result` (result_bytes), without waiting:
 * *worker is its sender, or -1 when none is waiting. */
dpbo_status dpbo_farm_take(dpbo_farm *farm, void *result, int *worker, dpbo_error *err);

/* A worker's forwarded stop request, without waiting: *worker is its
 * sender, or -1 when none came. */
dpbo_status dpbo_farm_stop_source(dpbo_farm *farm, int *worker, dpbo_error *err);

/* ---------------------------------------------------------------------------
 * Worker side. */

/* Waits, sleeping, for the manager's next task (negative: released). */
dpbo_status dpbo_farm_wait_task(dpbo_farm *farm, int64_t *task, dpbo_error *err);

/* Sends a result to the manager and returns when the buffer is free again. */
dpbo_status dpbo_farm_send(dpbo_farm *farm, const void *result, dpbo_error *err);

/* Non-blocking sends, for a worker that must keep taking part in
 * collectives: *buffer is a free slot's result_bytes, or NULL while every
 * slot's send is still in flight; dpbo_farm_post sends a slot filled. */
dpbo_status dpbo_farm_slot(dpbo_farm *farm, void **buffer, dpbo_error *err);
dpbo_status dpbo_farm_post(dpbo_farm *farm, void *buffer, dpbo_error *err);

/* When this worker received a stop request, tells the manager (once). */
dpbo_status dpbo_farm_forward_stop(dpbo_farm *farm, dpbo_error *err);

/* ---------------------------------------------------------------------------
 * A whole farm over independent tasks. */

typedef struct dpbo_farm_work {
  /* Manager: the tasks (>= 0), handed out in this order. */
  const int64_t *tasks;
  int64_t task_count;
  /* Manager: hand out no more tasks once this many results were accepted
   * (0: no limit). */
  int64_t stop_after;
  /* Honour stop requests: the first hands out no new task, the second
   * abandons the tasks in flight. 0: ignore them. */
  int stoppable;
  const char *noun; /* a task in the log: "training" */
  void *context;
  /* Workers (and rank 0 alone): one task into result (result_bytes). It
   * cannot fail: a failure goes into the result, for accept to report. */
  void (*work)(void *context, int64_t task, void *result);
  /* Manager: files one result. A failure is reported (the first one wins);
   * no task is handed out after it, the results in flight are still filed. */
  dpbo_status (*accept)(void *context, const void *result, dpbo_error *err);
  /* Manager, after each accepted result (NULL: none). A failure counts as
   * accept's. */
  dpbo_status (*checkpoint)(void *context, dpbo_error *err);
} dpbo_farm_work;

typedef struct dpbo_farm_outcome {
  int64_t accepted; /* results accepted (and checkpointed) by this call */
  /* Left without releasing every worker (the manager: a second stop
   * request, an MPI failure) or before being released (a worker): ranks
   * are left inside a task or waiting for a message, so they cannot join
   * a collective call; the job must be aborted. */
  int abandoned;
} dpbo_farm_outcome;

/* Every rank of the farm: the manager hands out the tasks one per worker
 * and the next to whichever worker returns a result; rank 0 alone does
 * them in order. Returns on every rank once every worker is released
 * (unless abandoned), with the manager's first failure on the manager. */
dpbo_status dpbo_farm_run(dpbo_farm *farm, const dpbo_farm_work *work, dpbo_farm_outcome *outcome,
                          dpbo_error *err);

#endif
