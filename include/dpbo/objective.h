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

#include "dpbo/error.h"
#include "dpbo/space.h"

typedef struct dpbo_objective_ops {
  const char *name;
  /* values[d] in the order of the space's dimensions, names[d] their names. */
  dpbo_status (*evaluate)(void *impl, int d, const char *const *names, const double *values,
                          double *gain, dpbo_error *err);
  void (*destroy)(void *impl);
} dpbo_objective_ops;

typedef struct dpbo_objective {
  const dpbo_objective_ops *ops;
  void *impl;
} dpbo_objective;

dpbo_status dpbo_objective_evaluate(dpbo_objective *objective, int d, const char *const *names,
                                    const double *values, double *gain, dpbo_error *err);

/* Destroys the implementation and resets the handle (safe on a zeroed one). */
void dpbo_objective_destroy(dpbo_objective *objective);

#endif
