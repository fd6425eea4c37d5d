/* The registry of release algorithms (src/run/algorithm.h): one row per
 * dpbo_algorithm, in enum order; its names and flags agree with the public
 * dpbo_algorithm_name / _is_selection / _publishes_trace (include/dpbo/
 * privacy.h, which core keeps for the installed library); each row has the
 * hooks its kind needs (a selection method its calibration, a stopping
 * method its draw of K and its refusal of a redraw, every release drawn
 * after the run its calibration and description, the privatized
 * evaluations' release its description and its layout); a value outside the enum
 * gets the none row. */
#include <string.h>

#include "check.h"
#include "run/algorithm.h"

int main(void) {
  const dpbo_algorithm all[] = {DPBO_ALGORITHM_NONE,
                                DPBO_ALGORITHM_1,
                                DPBO_ALGORITHM_2,
                                DPBO_ALGORITHM_3,
                                DPBO_ALGORITHM_PRIVATE_EVALUATIONS,
                                DPBO_ALGORITHM_RANDOM_SEARCH,
                                DPBO_ALGORITHM_LIU_TALWAR,
                                DPBO_ALGORITHM_PAPERNOT_STEINKE,
                                DPBO_ALGORITHM_GUIDED};
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    const dpbo_algorithm a = all[i];
    const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(a);
    printf("%-20s private %d selection %d stopping %d evals %d gp %d lambda %d pure %d split %d\n",
           ops->name, ops->private_release, ops->is_selection, ops->stopping,
           ops->private_evaluations, ops->gp_release, ops->releases_lambda, ops->pure,
           ops->splits_budget);
    CHECK_MSG(ops->algorithm == a, "row of %d is %d", (int)a, (int)ops->algorithm);
    CHECK_MSG(strcmp(ops->name, dpbo_algorithm_name(a)) == 0, "%s vs %s", ops->name,
              dpbo_algorithm_name(a));
    CHECK(ops->is_selection == dpbo_algorithm_is_selection(a));
    CHECK(ops->publishes_trace == dpbo_algorithm_publishes_trace(a));
    CHECK(ops->private_release == (a != DPBO_ALGORITHM_NONE));
    CHECK(ops->delta_rule != NULL);
    /* Kinds nest: a stopping method is a selection method; neither fits a GP
     * release, and only the privatized evaluations publish their trace. */
    CHECK(!ops->stopping || ops->is_selection);
    CHECK(!(ops->is_selection && ops->gp_release));
    CHECK(!ops->publishes_trace || ops->private_evaluations);
    CHECK(!ops->noisy_observations || ops->gp_release);
    CHECK(!ops->prunes || ops->gp_release);
    CHECK(ops->is_selection == (ops->account != NULL));
    CHECK(ops->stopping == (ops->draw_runs != NULL));
    CHECK(!ops->stopping || ops->check_overrides != NULL);
    CHECK(!ops->stopping || ops->lambda_mechanism != NULL);
    /* Every release drawn after the run (run/release.c) is calibrated and
     * described by its row. */
    const int drawn_after = ops->private_release && !ops->private_evaluations;
    CHECK(!drawn_after || (ops->calibration && ops->describe && ops->value_name));
    /* ... and a release of privatized evaluations described by its row and
     * written in its own layout. */
    CHECK(!ops->private_evaluations || (ops->describe && ops->evals_layout));
    CHECK(ops->evals_layout == ops->private_evaluations);
    CHECK(!ops->gp_release || ops->check_config != NULL);
  }
  /* The paper's three algorithms as the paper states them. */
  CHECK(dpbo_algorithm_ops_get(DPBO_ALGORITHM_1)->noisy_observations);
  CHECK(dpbo_algorithm_ops_get(DPBO_ALGORITHM_2)->prunes);
  CHECK(dpbo_algorithm_ops_get(DPBO_ALGORITHM_2)->first_value_step == 1);
  CHECK(!dpbo_algorithm_ops_get(DPBO_ALGORITHM_3)->releases_lambda);
  CHECK(dpbo_algorithm_ops_get(DPBO_ALGORITHM_3)->inputs != NULL);
  /* Pure where the accounting allows δ = 0: random search and Liu–Talwar. */
  CHECK(dpbo_algorithm_ops_get(DPBO_ALGORITHM_RANDOM_SEARCH)->pure);
  CHECK(dpbo_algorithm_ops_get(DPBO_ALGORITHM_LIU_TALWAR)->pure);
  CHECK(!dpbo_algorithm_ops_get(DPBO_ALGORITHM_PAPERNOT_STEINKE)->pure);
  /* GP-guided selection (issue #26): approximate DP (stage 1's Gaussian),
   * and, like every algorithm, made by dpbo run (run/guided_run.c). */
  CHECK(!dpbo_algorithm_ops_get(DPBO_ALGORITHM_GUIDED)->pure);
  CHECK(dpbo_algorithm_ops_get(DPBO_ALGORITHM_GUIDED)->check_config != NULL);
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
    CHECK(dpbo_algorithm_ops_get(all[i])->run_refusal == NULL);
  {
    dpbo_error err;
    dpbo_error_clear(&err);
    CHECK(dpbo_algorithm_runnable(DPBO_ALGORITHM_GUIDED, "x.ini", 0, &err) == DPBO_OK);
    CHECK(dpbo_algorithm_runnable(DPBO_ALGORITHM_LIU_TALWAR, "x.ini", 0, &err) == DPBO_OK);
    /* A guided run is never continued (each is charged and drawn afresh);
     * every other run file is. */
    CHECK(dpbo_algorithm_runnable(DPBO_ALGORITHM_LIU_TALWAR, "x.ini", 1, &err) == DPBO_OK);
    CHECK(dpbo_algorithm_runnable(DPBO_ALGORITHM_GUIDED, "x.ini", 1, &err) == DPBO_ERR_CONFIG);
    CHECK(strncmp(err.message, "x.ini: privacy.algorithm = guided cannot be resumed", 51) == 0);
  }
  /* Only guided makes its own run (two stages); every other row's run is
   * the driver's, which leaves a checkpoint when stopped. */
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(all[i]);
    const int own = all[i] == DPBO_ALGORITHM_GUIDED;
    CHECK((ops->run != NULL) == own);
    CHECK((ops->resume_refusal != NULL) == own);
    CHECK((ops->stop_note != NULL) == own);
  }
  /* Outside the enum: the none row, never a stray pointer. */
  CHECK(dpbo_algorithm_ops_get((dpbo_algorithm)99)->algorithm == DPBO_ALGORITHM_NONE);
  CHECK(dpbo_algorithm_ops_get((dpbo_algorithm)-1)->algorithm == DPBO_ALGORITHM_NONE);
  return dpbo_test_summary("test_algorithm");
}
