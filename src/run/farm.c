/* The task farm (farm.h). */
#include "run/farm.h"

#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "base/log.h"

enum { FARM_TAG_TASK = 41, FARM_TAG_RESULT = 42, FARM_TAG_STOP = 43 };

/* ---------------------------------------------------------------------------
 * Stop requests. */

static volatile sig_atomic_t farm_stops = 0;

void dpbo_farm_request_stop(void) {
  /* (Bounded, so that a storm of signals cannot wrap the count around.) */
  if (farm_stops < 1000) farm_stops = farm_stops + 1;
}

int dpbo_farm_stop_requests(void) { return (int)farm_stops; }

void dpbo_farm_stops_reset(void) { farm_stops = 0; }

/* ---------------------------------------------------------------------------
 * The farm. */

struct dpbo_farm {
  MPI_Comm comm; /* the farm's own copy */
  int rank, size, first_worker;
  size_t result_bytes;
  long nap_min_ns, nap_max_ns;
  /* manager */
  int *load;     /* tasks assigned and not finished, per rank */
  int *released; /* per rank: told to leave dpbo_farm_run's loop */
  int in_flight;
  /* worker */
  int slots;
  unsigned char *slot_buffer; /* slots x result_bytes */
  MPI_Request *slot_request;
  int stop_flag; /* this worker's stop request, sent once */
  MPI_Request stop_request;
};

dpbo_status dpbo_farm_create(MPI_Comm comm, const dpbo_farm_options *options, dpbo_farm **out,
                             dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_farm *farm = NULL;
  *out = NULL;
  if (options->result_bytes == 0 || options->result_bytes > INT_MAX)
    DPBO_RAISE(DPBO_ERR_ARG, "a task farm needs results of 1 to %d bytes, got %zu", INT_MAX,
               options->result_bytes);
  if (options->send_slots < 0)
    DPBO_RAISE(DPBO_ERR_ARG, "a task farm needs 0 or more send slots, got %d", options->send_slots);
  DPBO_ALLOC(farm, 1, "the task farm");
  farm->comm = MPI_COMM_NULL;
  farm->stop_request = MPI_REQUEST_NULL;
  farm->result_bytes = options->result_bytes;
  farm->nap_min_ns = options->nap_min_ns > 0 ? options->nap_min_ns : 100000L;
  farm->nap_max_ns = options->nap_max_ns > 0 ? options->nap_max_ns : 10000000L;
  DPBO_MPI_TRY(MPI_Comm_dup(comm, &farm->comm));
  DPBO_MPI_TRY(MPI_Comm_rank(farm->comm, &farm->rank));
  DPBO_MPI_TRY(MPI_Comm_size(farm->comm, &farm->size));
  farm->first_worker = farm->size == 1 ? 0 : 1;
  DPBO_ALLOC(farm->load, farm->size, "the task farm");
  DPBO_ALLOC(farm->released, farm->size, "the task farm");
  DPBO_ALLOC(farm->slot_buffer, (size_t)options->send_slots * farm->result_bytes,
             "the result slots");
  DPBO_ALLOC(farm->slot_request, options->send_slots, "the result slots");
  farm->slots = options->send_slots;
  for (int i = 0; i < farm->slots; i++)
    farm->slot_request[i] = MPI_REQUEST_NULL;
  *out = farm;
  farm = NULL;
done:
  dpbo_farm_destroy(farm);
  return status;
}

void dpbo_farm_destroy(dpbo_farm *farm) {
  if (!farm) return;
  for (int i = 0; i <= farm->slots; i++) {
    MPI_Request *request = i < farm->slots ? &farm->slot_request[i] : &farm->stop_request;
    if (*request != MPI_REQUEST_NULL) {
      /* Only after an interruption: the manager no longer listens.
       * Unchecked: the farm is over, and a request that cannot be
       * cancelled costs only a handle the exiting process drops anyway. */
      MPI_Cancel(request);
      MPI_Request_free(request);
    }
  }
  if (farm->comm != MPI_COMM_NULL) MPI_Comm_free(&farm->comm);
  free(farm->load);
  free(farm->released);
  free(farm->slot_buffer);
  free(farm->slot_request);
  free(farm);
}

int dpbo_farm_first_worker(const dpbo_farm *farm) { return farm->first_worker; }

void dpbo_farm_nap(const dpbo_farm *farm, long *ns) {
  dpbo_comm_nap_bounded(ns, farm->nap_min_ns, farm->nap_max_ns);
}

/* ---------------------------------------------------------------------------
 * Manager side. */

int dpbo_farm_least_loaded(const dpbo_farm *farm) {
  int best = -1;
  for (int r = farm->first_worker; r < farm->size; r++)
    if (!farm->released[r] && (best < 0 || farm->load[r] < farm->load[best])) best = r;
  return best;
}

void dpbo_farm_assign(dpbo_farm *farm, int worker) {
  farm->load[worker]++;
  farm->in_flight++;
}

void dpbo_farm_finish(dpbo_farm *farm, int worker) {
  farm->load[worker]--;
  farm->in_flight--;
}

int dpbo_farm_in_flight(const dpbo_farm *farm) { return farm->in_flight; }

dpbo_status dpbo_farm_give(dpbo_farm *farm, int worker, int64_t task, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_MPI_TRY(MPI_Send(&task, 1, MPI_INT64_T, worker, FARM_TAG_TASK, farm->comm));
  if (task < 0) farm->released[worker] = 1;
done:
  return status;
}

dpbo_status dpbo_farm_take(dpbo_farm *farm, void *result, int *worker, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int flag = 0;
  MPI_Status probe;
  *worker = -1;
  DPBO_MPI_TRY(MPI_Iprobe(MPI_ANY_SOURCE, FARM_TAG_RESULT, farm->comm, &flag, &probe));
  if (!flag) goto done;
  DPBO_MPI_TRY(MPI_Recv(result, (int)farm->result_bytes, MPI_BYTE, probe.MPI_SOURCE,
                        FARM_TAG_RESULT, farm->comm, MPI_STATUS_IGNORE));
  *worker = probe.MPI_SOURCE;
done:
  return status;
}

dpbo_status dpbo_farm_stop_source(dpbo_farm *farm, int *worker, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int flag = 0, ignored;
  MPI_Status probe;
  *worker = -1;
  DPBO_MPI_TRY(MPI_Iprobe(MPI_ANY_SOURCE, FARM_TAG_STOP, farm->comm, &flag, &probe));
  if (!flag) goto done;
  DPBO_MPI_TRY(MPI_Recv(&ignored, 1, MPI_INT, probe.MPI_SOURCE, FARM_TAG_STOP, farm->comm,
                        MPI_STATUS_IGNORE));
  *worker = probe.MPI_SOURCE;
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * Worker side. */

dpbo_status dpbo_farm_wait_task(dpbo_farm *farm, int64_t *task, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  MPI_Request request;
  *task = -1;
  DPBO_MPI_TRY(MPI_Irecv(task, 1, MPI_INT64_T, 0, FARM_TAG_TASK, farm->comm, &request));
  DPBO_TRY(dpbo_comm_wait_idle(&request, NULL, err));
done:
  return status;
}

dpbo_status dpbo_farm_send(dpbo_farm *farm, const void *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_MPI_TRY(MPI_Send(result, (int)farm->result_bytes, MPI_BYTE, 0, FARM_TAG_RESULT, farm->comm));
done:
  return status;
}

dpbo_status dpbo_farm_slot(dpbo_farm *farm, void **buffer, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int slot = -1;
  *buffer = NULL;
  for (int i = 0; i < farm->slots; i++) {
    int flag = 1;
    if (farm->slot_request[i] != MPI_REQUEST_NULL)
      DPBO_MPI_TRY(MPI_Test(&farm->slot_request[i], &flag, MPI_STATUS_IGNORE));
    if (flag && slot < 0) slot = i;
  }
  if (slot >= 0) *buffer = farm->slot_buffer + (size_t)slot * farm->result_bytes;
done:
  return status;
}

dpbo_status dpbo_farm_post(dpbo_farm *farm, void *buffer, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const unsigned char *at = buffer;
  int slot = -1;
  for (int i = 0; i < farm->slots; i++)
    if (at == farm->slot_buffer + (size_t)i * farm->result_bytes) slot = i;
  if (slot < 0 || farm->slot_request[slot] != MPI_REQUEST_NULL)
    DPBO_RAISE(DPBO_ERR_ARG, "dpbo_farm_post: not a free slot of this farm");
  DPBO_MPI_TRY(MPI_Isend(buffer, (int)farm->result_bytes, MPI_BYTE, 0, FARM_TAG_RESULT, farm->comm,
                         &farm->slot_request[slot]));
done:
  return status;
}

dpbo_status dpbo_farm_forward_stop(dpbo_farm *farm, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (farm->rank == 0 || farm->stop_flag || farm_stops == 0) goto done;
  farm->stop_flag = 1;
  DPBO_MPI_TRY(
      MPI_Isend(&farm->stop_flag, 1, MPI_INT, 0, FARM_TAG_STOP, farm->comm, &farm->stop_request));
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * A whole farm. */

/* Whether the manager may hand out another task. */
static int farm_more(const dpbo_farm_work *work, int64_t next, int64_t accepted) {
  if (next >= work->task_count) return 0;
  if (work->stoppable && farm_stops > 0) return 0;
  return work->stop_after <= 0 || accepted < work->stop_after;
}

/* Files one result: accept, then the checkpoint hook. */
static dpbo_status farm_file(const dpbo_farm_work *work, const void *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_TRY(work->accept(work->context, result, err));
  if (work->checkpoint) DPBO_TRY(work->checkpoint(work->context, err));
done:
  return status;
}

/* Rank 0 alone: the tasks in order. */
static dpbo_status farm_solo(const dpbo_farm_work *work, unsigned char *result,
                             dpbo_farm_outcome *outcome, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  for (int64_t next = 0; farm_more(work, next, outcome->accepted); next++) {
    work->work(work->context, work->tasks[next], result);
    DPBO_TRY(farm_file(work, result, err));
    outcome->accepted++;
  }
done:
  return status;
}

/* Waits, sleeping, for the next result; watches the stop requests. */
static dpbo_status farm_await(dpbo_farm *farm, const dpbo_farm_work *work, unsigned char *result,
                              int *worker, dpbo_farm_outcome *outcome, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  long ns = 0;
  int warned = 0;
  for (;;) {
    const int stops = work->stoppable ? (int)farm_stops : 0;
    if (stops >= 2) {
      outcome->abandoned = 1;
      DPBO_RAISE(DPBO_ERR_MPI, "stopped a second time: abandoning %lld %s(s) in progress",
                 (long long)farm->in_flight, work->noun);
    }
    if (stops == 1 && !warned) {
      dpbo_log_info("stop requested: no new %ss; waiting for the %lld in progress (signal again "
                    "to abandon them)",
                    work->noun, (long long)farm->in_flight);
      warned = 1;
    }
    DPBO_TRY(dpbo_farm_take(farm, result, worker, err));
    if (*worker >= 0) break;
    dpbo_farm_nap(farm, &ns);
  }
done:
  return status;
}

/* The manager with workers: one task per worker, then the next task to
 * whichever worker returns a result, until none is left or a stop. */
static dpbo_status farm_manage(dpbo_farm *farm, const dpbo_farm_work *work, unsigned char *result,
                               dpbo_farm_outcome *outcome, dpbo_error *err) {
  dpbo_status status = DPBO_OK, failure = DPBO_OK;
  int64_t next = 0;
  int released = 0;
  for (;;) {
    const int w = dpbo_farm_least_loaded(farm);
    if (w < 0 || farm->load[w] > 0 || !farm_more(work, next, 0)) break;
    DPBO_TRY(dpbo_farm_give(farm, w, work->tasks[next++], err));
    dpbo_farm_assign(farm, w);
  }
  for (int w = farm->first_worker; w < farm->size; w++)
    if (farm->load[w] == 0) DPBO_TRY(dpbo_farm_give(farm, w, -1, err));
  while (farm->in_flight > 0) {
    int w = -1; /* set by farm_await before any use; -1 if it fails */
    DPBO_TRY(farm_await(farm, work, result, &w, outcome, err));
    dpbo_farm_finish(farm, w);
    /* After a failure, later results are still filed; the first failure's
     * message is the one reported. */
    dpbo_error scratch;
    dpbo_status got = farm_file(work, result, failure == DPBO_OK ? err : &scratch);
    if (got == DPBO_OK) outcome->accepted++;
    if (failure == DPBO_OK) failure = got;
    if (failure == DPBO_OK && farm_more(work, next, outcome->accepted)) {
      /* (The worker just heard from: the only one without a task.) */
      const int to = dpbo_farm_least_loaded(farm);
      DPBO_TRY(dpbo_farm_give(farm, to, work->tasks[next++], err));
      dpbo_farm_assign(farm, to);
    } else {
      DPBO_TRY(dpbo_farm_give(farm, w, -1, err));
    }
  }
  /* Every worker has been released: the farm ended in step. */
  status = failure;
  released = 1;
done:
  if (!released) outcome->abandoned = 1;
  return status;
}

/* A worker: does what the manager sends until released; waits sleeping. */
static dpbo_status farm_serve(dpbo_farm *farm, const dpbo_farm_work *work, unsigned char *result,
                              dpbo_farm_outcome *outcome, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  for (;;) {
    int64_t task;
    DPBO_TRY(dpbo_farm_wait_task(farm, &task, err));
    if (task < 0) break;
    work->work(work->context, task, result);
    DPBO_TRY(dpbo_farm_send(farm, result, err));
  }
done:
  /* A worker that leaves before it is released leaves the manager
   * waiting for its result: nobody can reach the next collective. */
  if (status != DPBO_OK) outcome->abandoned = 1;
  return status;
}

dpbo_status dpbo_farm_run(dpbo_farm *farm, const dpbo_farm_work *work, dpbo_farm_outcome *outcome,
                          dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  unsigned char *result = NULL;
  memset(outcome, 0, sizeof *outcome);
  DPBO_ALLOC(result, farm->result_bytes, "a result");
  if (farm->size == 1)
    status = farm_solo(work, result, outcome, err);
  else if (farm->rank == 0)
    status = farm_manage(farm, work, result, outcome, err);
  else
    status = farm_serve(farm, work, result, outcome, err);
done:
  /* (Without a buffer the manager never released its workers.) */
  if (!result && farm->size > 1) outcome->abandoned = 1;
  free(result);
  return status;
}
