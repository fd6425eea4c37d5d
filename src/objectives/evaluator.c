#include "objectives/evaluator.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A ring of jobs: [head, submitted) waiting or running, and finished results
 * in the same slots until polled, in order. The queue grows when full. */
struct dpbo_evaluator {
  dpbo_objective *objective;
  const dpbo_space *space;
  int retries;
  int threaded; /* 0: jobs run inside dpbo_evaluator_submit */
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;     /* a job was queued, or quit */
  pthread_cond_t finished; /* a result is ready */
  int quit;
  int busy; /* the thread is inside an evaluation */
  /* Slots: jobs[i], results[i], i in [polled, submitted); finished below `done`. */
  dpbo_eval_job *jobs;
  dpbo_eval_result *results;
  long capacity, polled, done, submitted;
};

static double evaluator_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void evaluator_run_job(dpbo_evaluator *ev, const dpbo_eval_job *job, dpbo_eval_result *res) {
  const int d = dpbo_space_dims(ev->space);
  double u[DPBO_MAX_DIM], values[DPBO_MAX_DIM];
  const char *names[DPBO_MAX_DIM];
  for (int i = 0; i < d; i++)
    names[i] = dpbo_space_dim(ev->space, i)->name;
  memset(res, 0, sizeof *res);
  res->step = job->step;
  const double start = evaluator_now();
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_status st = dpbo_space_unit(ev->space, job->index, u, &err);
  if (st == DPBO_OK) {
    dpbo_space_to_values(ev->space, u, values);
    for (int attempt = 0; attempt <= ev->retries; attempt++) {
      dpbo_error_clear(&err);
      res->attempts = attempt + 1;
      /* The same evaluation number on every attempt: a retry repeats the
       * evaluation (same noise), it does not draw a new one. */
      dpbo_objective_begin(ev->objective, (uint64_t)job->step);
      st = dpbo_objective_evaluate(ev->objective, d, names, values, &res->gain, &err);
      if (st == DPBO_OK) break;
    }
  }
  res->seconds = evaluator_now() - start;
  res->code = (int)st;
  if (st != DPBO_OK) memcpy(res->message, err.message, sizeof res->message);
}

static void *evaluator_main(void *arg) {
  dpbo_evaluator *ev = arg;
  pthread_mutex_lock(&ev->lock);
  for (;;) {
    while (!ev->quit && ev->done == ev->submitted)
      pthread_cond_wait(&ev->wake, &ev->lock);
    if (ev->quit) break;
    /* Copy the job out: the ring may be reallocated while we evaluate. */
    long slot = ev->done % ev->capacity;
    dpbo_eval_job job = ev->jobs[slot];
    dpbo_eval_result res;
    ev->busy = 1;
    pthread_mutex_unlock(&ev->lock);
    evaluator_run_job(ev, &job, &res);
    pthread_mutex_lock(&ev->lock);
    ev->busy = 0;
    ev->results[ev->done % ev->capacity] = res;
    ev->done++;
    pthread_cond_signal(&ev->finished);
  }
  pthread_mutex_unlock(&ev->lock);
  return NULL;
}

dpbo_status dpbo_evaluator_create(dpbo_objective *objective, const dpbo_space *space, int retries,
                                  int threaded, dpbo_evaluator **out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_evaluator *ev = NULL;
  int locks = 0;
  *out = NULL;
  if (retries < 0) DPBO_RAISE(DPBO_ERR_ARG, "retries must be >= 0, got %d", retries);
  DPBO_ALLOC(ev, 1, "the evaluator");
  ev->objective = objective;
  ev->space = space;
  ev->retries = retries;
  ev->threaded = threaded;
  ev->capacity = 8;
  DPBO_ALLOC(ev->jobs, ev->capacity, "the evaluation queue");
  DPBO_ALLOC(ev->results, ev->capacity, "the evaluation queue");
  if (pthread_mutex_init(&ev->lock, NULL) != 0)
    DPBO_RAISE(DPBO_ERR_LIBRARY, "pthread_mutex_init failed");
  if (pthread_cond_init(&ev->wake, NULL) != 0) {
    pthread_mutex_destroy(&ev->lock);
    DPBO_RAISE(DPBO_ERR_LIBRARY, "pthread_cond_init failed");
  }
  if (pthread_cond_init(&ev->finished, NULL) != 0) {
    pthread_cond_destroy(&ev->wake);
    pthread_mutex_destroy(&ev->lock);
    DPBO_RAISE(DPBO_ERR_LIBRARY, "pthread_cond_init failed");
  }
  locks = 1;
  if (threaded && pthread_create(&ev->thread, NULL, evaluator_main, ev) != 0)
    DPBO_RAISE(DPBO_ERR_LIBRARY, "cannot start the evaluation thread");
  *out = ev;
  ev = NULL;
done:
  if (ev) {
    if (locks) {
      pthread_cond_destroy(&ev->finished);
      pthread_cond_destroy(&ev->wake);
      pthread_mutex_destroy(&ev->lock);
    }
    free(ev->jobs);
    free(ev->results);
    free(ev);
  }
  return status;
}

dpbo_status dpbo_evaluator_submit(dpbo_evaluator *ev, const dpbo_eval_job *job, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  pthread_mutex_lock(&ev->lock);
  if (ev->submitted - ev->polled == ev->capacity) {
    /* Grow the ring, keeping slot positions modulo the new capacity. */
    long cap = 2 * ev->capacity;
    dpbo_eval_job *jobs = malloc((size_t)cap * sizeof *jobs);
    dpbo_eval_result *results = malloc((size_t)cap * sizeof *results);
    if (!jobs || !results) {
      free(jobs);
      free(results);
      pthread_mutex_unlock(&ev->lock);
      DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory growing the evaluation queue");
    }
    for (long i = ev->polled; i < ev->submitted; i++) {
      jobs[i % cap] = ev->jobs[i % ev->capacity];
      results[i % cap] = ev->results[i % ev->capacity];
    }
    free(ev->jobs);
    free(ev->results);
    ev->jobs = jobs;
    ev->results = results;
    ev->capacity = cap;
  }
  ev->jobs[ev->submitted % ev->capacity] = *job;
  ev->submitted++;
  if (!ev->threaded) {
    /* In place: nobody else touches the queue. */
    dpbo_eval_result res;
    pthread_mutex_unlock(&ev->lock);
    evaluator_run_job(ev, job, &res);
    pthread_mutex_lock(&ev->lock);
    ev->results[ev->done % ev->capacity] = res;
    ev->done++;
  }
  pthread_cond_signal(&ev->wake);
  pthread_mutex_unlock(&ev->lock);
done:
  return status;
}

int dpbo_evaluator_poll(dpbo_evaluator *ev, dpbo_eval_result *result) {
  int got = 0;
  pthread_mutex_lock(&ev->lock);
  if (ev->polled < ev->done) {
    *result = ev->results[ev->polled % ev->capacity];
    ev->polled++;
    got = 1;
  }
  pthread_mutex_unlock(&ev->lock);
  return got;
}

int dpbo_evaluator_wait(dpbo_evaluator *ev, dpbo_eval_result *result, double timeout_s) {
  struct timespec until;
  clock_gettime(CLOCK_REALTIME, &until);
  double whole = floor(timeout_s);
  until.tv_sec += (time_t)whole;
  until.tv_nsec += (long)((timeout_s - whole) * 1e9);
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  int got = 0;
  pthread_mutex_lock(&ev->lock);
  while (ev->polled == ev->done) {
    if (pthread_cond_timedwait(&ev->finished, &ev->lock, &until) != 0) break;
  }
  if (ev->polled < ev->done) {
    *result = ev->results[ev->polled % ev->capacity];
    ev->polled++;
    got = 1;
  }
  pthread_mutex_unlock(&ev->lock);
  return got;
}

int dpbo_evaluator_destroy(dpbo_evaluator *ev, int wait) {
  if (!ev) return 1;
  pthread_mutex_lock(&ev->lock);
  ev->quit = 1; /* no queued job starts after this */
  int busy = ev->busy;
  pthread_cond_signal(&ev->wake);
  pthread_mutex_unlock(&ev->lock);
  /* An evaluation that can be ended (a command's processes) is ended, so
   * that none of its processes outlives dpbo; the thread then returns. */
  if (ev->threaded && busy && !wait && dpbo_objective_cancel(ev->objective)) busy = 0;
  if (ev->threaded && busy && !wait) {
    pthread_detach(ev->thread);
    return 0;
  }
  if (ev->threaded) pthread_join(ev->thread, NULL);
  pthread_cond_destroy(&ev->finished);
  pthread_cond_destroy(&ev->wake);
  pthread_mutex_destroy(&ev->lock);
  free(ev->jobs);
  free(ev->results);
  free(ev);
  return 1;
}
