/* The objective interface: a function of the hyper-parameter values that
 * returns a validation gain (larger is better), e.g. an SVM's accuracy.
 *
 * Implementations (svm.h, synthetic.h, command.h) provide a constructor that
 * fills a dpbo_objective; the driver only calls dpbo_objective_evaluate.
 * Objectives run on worker ranks; an evaluation failure is reported through
 * err with a message that names the hyper-parameters and the cause, and does
 * not corrupt the objective (the next evaluation may succeed). */
#ifndef DPBO_OBJECTIVE_H
#define DPBO_OBJECTIVE_H

#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/space.h"

typedef struct dpbo_objective_ops {
  const char *name;
  /* values[d] in the order of the space's dimensions, names[d] their names. */
  dpbo_status (*evaluate)(void *impl, int d, const char *const *names, const double *values,
                          double *gain, dpbo_error *err);
  void (*destroy)(void *impl);
  /* Optional: told the global number (1, 2, ...) of the evaluation about to
   * run, so that randomness inside an objective (synthetic noise) depends on
   * which evaluation it is, not on which worker process runs it. */
  void (*begin_evaluation)(void *impl, uint64_t evaluation);
  /* Optional: called from another thread when the process is about to end
   * (a stop, an error): ends the evaluation in progress at once and makes
   * later ones fail without starting. Objectives without it (LIBSVM cannot
   * be interrupted) are left to run until the process exits. */
  void (*cancel)(void *impl);
} dpbo_objective_ops;

typedef struct dpbo_objective {
  const dpbo_objective_ops *ops;
  void *impl;
} dpbo_objective;

/* One evaluation; a gain that is not finite or lies beyond
 * ±DPBO_GP_MAGNITUDE_MAX (dpbo/gp.h) fails it with DPBO_ERR_OBJECTIVE. */
dpbo_status dpbo_objective_evaluate(dpbo_objective *objective, int d, const char *const *names,
                                    const double *values, double *gain, dpbo_error *err);

/* Destroys the implementation and resets the handle (safe on a zeroed one). */
void dpbo_objective_destroy(dpbo_objective *objective);

/* Ends the evaluation in progress (from another thread) if the objective
 * can; returns whether it can. */
int dpbo_objective_cancel(dpbo_objective *objective);

/* Announces evaluation number `evaluation` (>= 1) to objectives that care. */
void dpbo_objective_begin(dpbo_objective *objective, uint64_t evaluation);

#endif
