/* The registry of release algorithms (algorithm.h): the table, and the row
 * of `none`. */
#include "run/algorithm.h"

#include <stddef.h>

/* No private release: nothing is fixed, drawn or charged; dpbo release
 * refuses such a run (its privacy settings were not fixed before the data,
 * issue #22, 4). */
static const dpbo_algorithm_ops algorithm_none_ops = {
    .algorithm = DPBO_ALGORITHM_NONE,
    .name = "none",
    .delta_rule = "must lie in (0, 1)",
};

const dpbo_algorithm_ops *dpbo_algorithm_ops_get(dpbo_algorithm algorithm) {
  /* Indexed by dpbo_algorithm (dpbo/privacy.h). */
  static const dpbo_algorithm_ops *const table[] = {&algorithm_none_ops,
                                                    &dpbo_alg_1_ops,
                                                    &dpbo_alg_2_ops,
                                                    &dpbo_alg_3_ops,
                                                    &dpbo_alg_private_evals_ops,
                                                    &dpbo_alg_random_search_ops,
                                                    &dpbo_alg_liu_talwar_ops,
                                                    &dpbo_alg_papernot_steinke_ops,
                                                    &dpbo_alg_guided_ops};
  const size_t count = sizeof table / sizeof table[0];
  if ((size_t)algorithm >= count) return &algorithm_none_ops;
  return table[algorithm];
}

dpbo_status dpbo_algorithm_runnable(dpbo_algorithm algorithm, const char *path, int resume,
                                    dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(algorithm);
  const char *refusal = ops->run_refusal ? ops->run_refusal : resume ? ops->resume_refusal : NULL;
  if (refusal) DPBO_RAISE(DPBO_ERR_CONFIG, "%s: %s", path, refusal);
done:
  return status;
}
