#include "objectives/objective.h"

#include <math.h>
#include <stddef.h>

#include "dpbo/gp.h"

dpbo_status dpbo_objective_evaluate(dpbo_objective *objective, int d, const char *const *names,
                                    const double *values, double *gain, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!objective || !objective->ops) DPBO_RAISE(DPBO_ERR_ARG, "objective is not set up");
  DPBO_TRY(objective->ops->evaluate(objective->impl, d, names, values, gain, err));
  /* A NaN or infinite gain would poison the GP for every later step. */
  if (!isfinite(*gain))
    DPBO_RAISE(DPBO_ERR_OBJECTIVE, "objective '%s' returned a non-finite gain (%g)",
               objective->ops->name, *gain);
  /* So would a finite one past the GP's range, whose square overflows. */
  if (!(fabs(*gain) <= DPBO_GP_MAGNITUDE_MAX))
    DPBO_RAISE(DPBO_ERR_OBJECTIVE,
               "objective '%s' returned a gain of %g, beyond ±%g, the range the GP can use (it "
               "squares the gains: larger ones overflow)",
               objective->ops->name, *gain, DPBO_GP_MAGNITUDE_MAX);
done:
  return status;
}

void dpbo_objective_destroy(dpbo_objective *objective) {
  if (!objective) return;
  if (objective->ops && objective->ops->destroy) objective->ops->destroy(objective->impl);
  objective->ops = NULL;
  objective->impl = NULL;
}

int dpbo_objective_cancel(dpbo_objective *objective) {
  if (!objective || !objective->ops || !objective->ops->cancel) return 0;
  objective->ops->cancel(objective->impl);
  return 1;
}

void dpbo_objective_begin(dpbo_objective *objective, uint64_t evaluation) {
  if (objective && objective->ops && objective->ops->begin_evaluation)
    objective->ops->begin_evaluation(objective->impl, evaluation);
}
