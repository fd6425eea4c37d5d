/* The task farm (run/farm.h) on 1, 2 and 4 ranks.
 *
 *  - every task is done exactly once and its result reaches the manager
 *    from the worker that did it; the checkpoint hook runs once per
 *    accepted result;
 *  - stop_after, a first stop request (no new tasks; those in flight are
 *    still filed) and a second one (the tasks in flight are abandoned, and
 *    the manager can still release its workers by hand);
 *  - a failing checkpoint: its message is reported, no task is handed out
 *    after it, the results in flight are still filed;
 *  - the driver's pieces: least-loaded choice, non-blocking sends through
 *    slots, a worker's stop request forwarded to the manager.
 *
 * The expected counts are exact: between two results every worker that is
 * not released holds exactly one task, so when the manager files result k
 * the other W - 1 workers each have one in flight (W workers). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "run/farm.h"

enum { TASKS = 37 };

typedef struct test_result {
  int64_t task, worker;
  double value;
} test_result;

typedef struct test_context {
  int rank;
  int64_t worked;          /* this rank: tasks done */
  int seen[TASKS];         /* manager: results filed per task */
  int64_t accepted;        /* manager: accept calls that succeeded */
  int64_t checkpoints;     /* manager: checkpoint hook calls */
  int64_t stop_at;         /* request a stop when this many were accepted (0: never) */
  int stop_requests;       /* how many requests then */
  int64_t fail_checkpoint; /* the checkpoint hook fails at this call (0: never) */
  int bad_worker;          /* a result from rank 0 while there are workers */
  int size;
} test_context;

static double test_value(int64_t task) { return 0.5 * (double)task * (double)task + 1.0; }

static void test_work(void *context, int64_t task, void *result) {
  test_context *c = context;
  test_result *r = result;
  c->worked++;
  r->task = task;
  r->worker = c->rank;
  r->value = test_value(task);
}

static dpbo_status test_accept(void *context, const void *result, dpbo_error *err) {
  test_context *c = context;
  const test_result *r = result;
  if (r->task < 0 || r->task >= TASKS || r->value != test_value(r->task))
    return DPBO_ERROR_SET(err, DPBO_ERR_DATA, "bad result for task %lld", (long long)r->task);
  c->seen[r->task]++;
  if (c->size > 1 && r->worker == 0) c->bad_worker = 1;
  c->accepted++;
  if (c->stop_at > 0 && c->accepted == c->stop_at)
    for (int i = 0; i < c->stop_requests; i++)
      dpbo_farm_request_stop(); /* as a signal handler would */
  return DPBO_OK;
}

static dpbo_status test_checkpoint(void *context, dpbo_error *err) {
  test_context *c = context;
  c->checkpoints++;
  if (c->fail_checkpoint > 0 && c->checkpoints == c->fail_checkpoint)
    return DPBO_ERROR_SET(err, DPBO_ERR_IO, "checkpoint %lld failed on purpose",
                          (long long)c->checkpoints);
  return DPBO_OK;
}

/* One dpbo_farm_run over TASKS tasks; returns its status, with the total of
 * tasks worked over all ranks in *worked. */
static dpbo_status test_run(test_context *c, int64_t stop_after, dpbo_farm_outcome *outcome,
                            int64_t *worked, dpbo_error *err) {
  int64_t tasks[TASKS];
  for (int i = 0; i < TASKS; i++)
    tasks[i] = TASKS - 1 - i; /* any order */
  dpbo_farm *farm = NULL;
  const dpbo_farm_options options = {.result_bytes = sizeof(test_result)};
  dpbo_status status = dpbo_farm_create(MPI_COMM_WORLD, &options, &farm, err);
  CHECK_MSG(status == DPBO_OK, "dpbo_farm_create: %s", err->message);
  const dpbo_farm_work work = {.tasks = tasks,
                               .task_count = TASKS,
                               .stop_after = stop_after,
                               .stoppable = 1,
                               .noun = "task",
                               .context = c,
                               .work = test_work,
                               .accept = test_accept,
                               .checkpoint = test_checkpoint};
  status = dpbo_farm_run(farm, &work, outcome, err);
  if (outcome->abandoned && c->rank == 0) {
    /* What a test can do and the job cannot (its workers may be inside a
     * task): wait for the tasks in flight and release their workers. */
    dpbo_error scratch;
    while (dpbo_farm_in_flight(farm) > 0) {
      test_result r;
      int w = -1;
      long ns = 0;
      while (w < 0) {
        CHECK(dpbo_farm_take(farm, &r, &w, &scratch) == DPBO_OK);
        if (w < 0) dpbo_farm_nap(farm, &ns);
      }
      dpbo_farm_finish(farm, w);
      CHECK(dpbo_farm_give(farm, w, -1, &scratch) == DPBO_OK);
    }
  }
  MPI_Allreduce(&c->worked, worked, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  dpbo_farm_destroy(farm);
  dpbo_farm_stops_reset();
  return status;
}

static void test_context_init(test_context *c) {
  memset(c, 0, sizeof *c);
  MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c->size);
}

/* Every task exactly once, routed to the manager; a checkpoint per result. */
static void test_all(int workers) {
  test_context c;
  test_context_init(&c);
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_farm_outcome outcome;
  int64_t worked = 0;
  CHECK_OK(test_run(&c, 0, &outcome, &worked, &err));
  CHECK(!outcome.abandoned);
  CHECK_MSG(worked == TASKS, "%lld tasks worked, expected %d", (long long)worked, TASKS);
  if (c.rank == 0) {
    for (int i = 0; i < TASKS; i++)
      CHECK_MSG(c.seen[i] == 1, "task %d filed %d times", i, c.seen[i]);
    CHECK(outcome.accepted == TASKS && c.accepted == TASKS);
    CHECK_MSG(c.checkpoints == TASKS, "%lld checkpoints", (long long)c.checkpoints);
    CHECK(!c.bad_worker);
  } else {
    CHECK(outcome.accepted == 0);
  }
  if (c.rank == 0)
    printf("all: %d tasks on %d worker(s), each once, %lld checkpoints\n", TASKS, workers,
           (long long)c.checkpoints);
}

/* stop_after = 5: no new task after the fifth result; those in flight are
 * filed. */
static void test_stop_after(int workers) {
  test_context c;
  test_context_init(&c);
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_farm_outcome outcome;
  int64_t worked = 0;
  CHECK_OK(test_run(&c, 5, &outcome, &worked, &err));
  const int64_t expect = 5 + workers - 1;
  CHECK_MSG(worked == expect, "%lld tasks worked, expected %lld", (long long)worked,
            (long long)expect);
  if (c.rank == 0) {
    CHECK_MSG(outcome.accepted == expect && c.checkpoints == expect,
              "stop_after 5: %lld accepted, %lld checkpoints, expected %lld",
              (long long)outcome.accepted, (long long)c.checkpoints, (long long)expect);
    printf("stop_after 5: %lld results filed on %d worker(s)\n", (long long)outcome.accepted,
           workers);
  }
}

/* A stop request after the fourth result: the tasks in flight finish. */
static void test_stop_once(int workers) {
  test_context c;
  test_context_init(&c);
  c.stop_at = 4;
  c.stop_requests = 1;
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_farm_outcome outcome;
  int64_t worked = 0;
  CHECK_OK(test_run(&c, 0, &outcome, &worked, &err));
  const int64_t expect = 4 + workers - 1;
  CHECK(!outcome.abandoned);
  CHECK_MSG(worked == expect, "%lld tasks worked, expected %lld", (long long)worked,
            (long long)expect);
  if (c.rank == 0) {
    CHECK_MSG(outcome.accepted == expect && c.checkpoints == expect,
              "one stop: %lld accepted, %lld checkpoints, expected %lld",
              (long long)outcome.accepted, (long long)c.checkpoints, (long long)expect);
    printf("one stop request after 4: %lld results filed\n", (long long)outcome.accepted);
  }
  CHECK(dpbo_farm_stop_requests() == 0); /* test_run reset it */
}

/* Two requests after the fourth result: with other tasks in flight (4
 * ranks) the manager abandons them; otherwise nothing is in flight. */
static void test_stop_twice(int workers) {
  test_context c;
  test_context_init(&c);
  c.stop_at = 4;
  c.stop_requests = 2;
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_farm_outcome outcome;
  int64_t worked = 0;
  dpbo_status got = test_run(&c, 0, &outcome, &worked, &err);
  CHECK_MSG(worked == 4 + workers - 1, "%lld tasks worked", (long long)worked);
  if (c.rank == 0) {
    CHECK(outcome.accepted == 4 && c.checkpoints == 4);
    if (workers > 1) {
      char expect[128];
      snprintf(expect, sizeof expect, "abandoning %d task(s) in progress", workers - 1);
      CHECK_MSG(got == DPBO_ERR_MPI && outcome.abandoned && strstr(err.message, expect),
                "two stops: %s, abandoned %d: %s", dpbo_status_name(got), outcome.abandoned,
                err.message);
    } else {
      CHECK_MSG(got == DPBO_OK && !outcome.abandoned, "two stops: %s: %s", dpbo_status_name(got),
                err.message);
    }
    printf("two stop requests after 4: %s%s%s\n", dpbo_status_name(got), got == DPBO_OK ? "" : ": ",
           got == DPBO_OK ? "" : err.message);
  } else {
    CHECK(got == DPBO_OK && !outcome.abandoned);
  }
}

/* The third checkpoint fails: its message is the one reported, the results
 * in flight are filed (each still checkpointed), nothing else is handed out. */
static void test_checkpoint_failure(int workers) {
  test_context c;
  test_context_init(&c);
  c.fail_checkpoint = 3;
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_farm_outcome outcome;
  int64_t worked = 0;
  dpbo_status got = test_run(&c, 0, &outcome, &worked, &err);
  CHECK_MSG(worked == 3 + workers - 1, "%lld tasks worked", (long long)worked);
  if (c.rank == 0) {
    CHECK_MSG(got == DPBO_ERR_IO && strstr(err.message, "checkpoint 3 failed") != NULL, "%s: %s",
              dpbo_status_name(got), err.message);
    CHECK(!outcome.abandoned);
    CHECK(outcome.accepted == 2 + workers - 1 && c.checkpoints == 3 + workers - 1);
  } else {
    CHECK(got == DPBO_OK);
  }
}

/* The driver's pieces. */
static void test_pieces(int rank, int size) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_farm *farm = NULL;
  const dpbo_farm_options options = {.result_bytes = sizeof(test_result),
                                     .send_slots = 2,
                                     .nap_min_ns = 10000L,
                                     .nap_max_ns = 1000000L};
  CHECK_OK(dpbo_farm_create(MPI_COMM_WORLD, &options, &farm, &err));
  const int first = dpbo_farm_first_worker(farm);
  CHECK(first == (size == 1 ? 0 : 1));
  if (rank == 0) {
    /* Least loaded, lowest first on ties. */
    CHECK(dpbo_farm_least_loaded(farm) == first);
    dpbo_farm_assign(farm, first);
    CHECK(dpbo_farm_least_loaded(farm) == (size > 2 ? 2 : first));
    if (size > 2) {
      dpbo_farm_assign(farm, 2);
      dpbo_farm_assign(farm, 2);
      CHECK(dpbo_farm_least_loaded(farm) == 3);
      dpbo_farm_assign(farm, 3);
      CHECK(dpbo_farm_least_loaded(farm) == 1);
      dpbo_farm_finish(farm, 2);
      CHECK(dpbo_farm_least_loaded(farm) == 1);
      dpbo_farm_finish(farm, 1);
      CHECK(dpbo_farm_least_loaded(farm) == 1);
      CHECK(dpbo_farm_in_flight(farm) == 2);
      dpbo_farm_finish(farm, 2);
      dpbo_farm_finish(farm, 3);
    } else {
      dpbo_farm_finish(farm, first);
    }
    CHECK(dpbo_farm_in_flight(farm) == 0);
  }
  if (size > 1) {
    /* Three results per worker through two slots; rank 1 also forwards a
     * stop request (twice: it is sent once). */
    enum { PER_WORKER = 3 };
    if (rank > 0) {
      if (rank == 1) {
        dpbo_farm_request_stop();
        CHECK_OK(dpbo_farm_forward_stop(farm, &err));
        CHECK_OK(dpbo_farm_forward_stop(farm, &err));
      }
      for (int k = 0; k < PER_WORKER; k++) {
        void *buffer = NULL;
        long ns = 0;
        for (;;) {
          CHECK_OK(dpbo_farm_slot(farm, &buffer, &err));
          if (buffer) break;
          dpbo_farm_nap(farm, &ns);
        }
        test_result r = {rank * 100 + k, rank, test_value(k)};
        memcpy(buffer, &r, sizeof r);
        CHECK_OK(dpbo_farm_post(farm, buffer, &err));
      }
    } else {
      int got[4][PER_WORKER];
      memset(got, 0, sizeof got);
      int stops = 0, stop_from = -1;
      for (int n = 0; n < (size - 1) * PER_WORKER;) {
        test_result r;
        int w = -1, s = -1;
        CHECK_OK(dpbo_farm_take(farm, &r, &w, &err));
        CHECK_OK(dpbo_farm_stop_source(farm, &s, &err));
        if (s >= 0) {
          stops++;
          stop_from = s;
        }
        if (w < 0) {
          long ns = 0;
          dpbo_farm_nap(farm, &ns);
          continue;
        }
        CHECK_MSG(r.worker == w && r.task / 100 == w, "result of rank %lld came from %d",
                  (long long)r.worker, w);
        if (w > 0 && w < 4 && r.task % 100 < PER_WORKER) got[w][r.task % 100]++;
        n++;
      }
      for (int w = 1; w < size; w++)
        for (int k = 0; k < PER_WORKER; k++)
          CHECK_MSG(got[w][k] == 1, "result %d of rank %d arrived %d times", k, w, got[w][k]);
      /* The stop request may still be on its way. */
      while (stops == 0) {
        int s = -1;
        long ns = 0;
        CHECK_OK(dpbo_farm_stop_source(farm, &s, &err));
        if (s >= 0) {
          stops++;
          stop_from = s;
        } else {
          dpbo_farm_nap(farm, &ns);
        }
      }
      CHECK_MSG(stops == 1 && stop_from == 1, "%d stop requests, from rank %d", stops, stop_from);
      printf("pieces: %d results through the slots, a stop forwarded by rank %d\n",
             (size - 1) * PER_WORKER, stop_from);
    }
    /* After the barrier rank 0 has taken every result: the sends are
     * complete, and destroy has nothing to cancel. */
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == 0) {
      /* The second forward_stop sent nothing: no request is left. */
      int s = -1;
      CHECK_OK(dpbo_farm_stop_source(farm, &s, &err));
      CHECK(s == -1);
    }
  }
  dpbo_farm_destroy(farm);
  dpbo_farm_stops_reset();
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const int workers = size > 1 ? size - 1 : 1;

  dpbo_farm_request_stop();
  dpbo_farm_request_stop();
  CHECK(dpbo_farm_stop_requests() == 2);
  dpbo_farm_stops_reset();
  CHECK(dpbo_farm_stop_requests() == 0);

  test_all(workers);
  test_stop_after(workers);
  test_stop_once(workers);
  test_stop_twice(workers);
  test_checkpoint_failure(workers);
  test_pieces(rank, size);

  int failed = dpbo_test_summary(rank == 0 ? "test_farm" : "test_farm (worker)");
  MPI_Finalize();
  return failed;
}
