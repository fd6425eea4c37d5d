/* Objective evaluations off the MPI thread.
 *
 * A rank that evaluates objectives runs them in one background thread, so
 * that its main thread stays free for MPI: it takes part in the collective
 * selection of the next points while an SVM trains (asynchronous batches),
 * and it can leave promptly when the job is told to stop. The thread never
 * calls MPI (MPI_THREAD_FUNNELED is enough).
 *
 * Jobs run one at a time, in submission order. A failed evaluation is retried
 * up to `retries` more times with the same evaluation number (so the same
 * noise), and the result carries the number of attempts and, on failure, the
 * last attempt's message. */
#ifndef DPBO_EVALUATOR_H
#define DPBO_EVALUATOR_H

#include <stdint.h>

#include "dpbo/error.h"
#include "objectives/objective.h"
#include "dpbo/space.h"

typedef struct dpbo_evaluator dpbo_evaluator;

typedef struct dpbo_eval_job {
  int step;      /* evaluation number t >= 1 (global, names the noise) */
  int64_t index; /* candidate in Λ */
} dpbo_eval_job;

typedef struct dpbo_eval_result {
  int step;
  int code; /* dpbo_status of the last attempt */
  int attempts;
  double gain;
  double seconds; /* all attempts */
  char message[DPBO_ERROR_MSG_MAX];
} dpbo_eval_result;

/* Takes ownership of nothing: objective and space must outlive the
 * evaluator. threaded = 0 runs each job inside dpbo_evaluator_submit (a rank
 * alone, which has no collective to stay responsive for). */
dpbo_status dpbo_evaluator_create(dpbo_objective *objective, const dpbo_space *space, int retries,
                                  int threaded, dpbo_evaluator **out, dpbo_error *err);

/* Queues a job (returns at once when threaded). */
dpbo_status dpbo_evaluator_submit(dpbo_evaluator *ev, const dpbo_eval_job *job, dpbo_error *err);

/* Takes the oldest finished result if there is one: returns 1 and fills
 * *result, else returns 0 at once. */
int dpbo_evaluator_poll(dpbo_evaluator *ev, dpbo_eval_result *result);

/* Like dpbo_evaluator_poll, but sleeps up to timeout_s for a result (for a
 * rank that has nothing else to do meanwhile). */
int dpbo_evaluator_wait(dpbo_evaluator *ev, dpbo_eval_result *result, double timeout_s);

/* Stops the thread; queued jobs do not start. With a job still running and
 * `wait` = 0, an objective that can be cancelled (dpbo_objective_cancel: a
 * command's processes) is ended and the thread joined; otherwise the thread
 * is left to finish on its own (detached) and the evaluator is not freed:
 * the process is about to exit, and the job in progress cannot be
 * interrupted safely (LIBSVM has no cancellation point). Returns 1 when it
 * freed everything, 0 when it had to abandon a running job. */
int dpbo_evaluator_destroy(dpbo_evaluator *ev, int wait);

#endif
