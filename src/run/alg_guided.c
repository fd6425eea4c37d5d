/* GP-guided private selection (run/guided.h): privatized GP-UCB
 * evaluations, then Liu–Talwar, Papernot–Steinke or private random search
 * with candidates drawn from a law built from them. Its row of the registry
 * (run/algorithm.h): its checks, its refusal of a redraw, its calibration
 * and its guarantee. The mechanism itself is dpbo_guided_table
 * (run/guided.c) on a table, and dpbo_guided_run (run/guided_run.c, its run
 * hook) in `dpbo run`, both of which reuse GP-UCB with private_evaluations'
 * calibration (stage 1) and the stopping search or random search with a
 * candidate law (stage 2, run/selection.h). */
#include <stdio.h>

#include "run/algorithm.h"
#include "run/config.h"
#include "run/guided.h"
#include "run/release.h"
#include "run/selection.h"

/* Its assumptions: the gain's sensitivity over the m validation records
 * (svm, logreg), and settings that fit run.iterations and the budget. */
static dpbo_status alg_guided_check_config(dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_guided_settings s;
  if (config->objective != DPBO_OBJECTIVE_SVM && config->objective != DPBO_OBJECTIVE_LOGREG)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: privacy.algorithm = guided needs objective.kind = svm or logreg: both stages "
               "rest on the gain's sensitivity over the m validation records",
               config->path);
  dpbo_guided_settings_from(config, &s);
  /* Stage 1 on the proxy task needs an objective dpbo can split. */
  DPBO_TRY(dpbo_guided_proxy_check(config, err));
  /* T1 against T: named at its line (the rows checked each key alone). */
  {
    char what[256];
    snprintf(what, sizeof what,
             "= %d must lie between 1 and run.iterations - 2 = %d (stage 2 needs "
             "run.iterations - T1 >= 2: its stopping search's E[K], or its random search's "
             "candidates)",
             s.stage1_evaluations, config->iterations - 2);
    /* (On the proxy task stage 1's steps come on top of run.iterations.) */
    DPBO_TRY(dpbo_settings_require(&config->settings, "privacy", "guided_evaluations",
                                   dpbo_guided_stage1_is_proxy(&s) ||
                                       s.stage1_evaluations <= config->iterations - 2,
                                   what, err));
  }
  status = dpbo_guided_check(&s, config->iterations, config->privacy_epsilon, config->privacy_delta,
                             err);
  if (status != DPBO_OK) dpbo_error_prefix(err, "%s", config->path);
done:
  return status;
}

/* A new release would need a fresh stage 2 (a fresh secret K and fresh
 * candidates from π), as for the stopping methods (run/alg_stopping.c). */
static dpbo_status alg_guided_check_overrides(const dpbo_config *stored, int count,
                                              const char *const *overrides, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  (void)stored, (void)count, (void)overrides;
  DPBO_RAISE(DPBO_ERR_CONFIG,
             "privacy.algorithm = guided cannot be redrawn: a new release needs a fresh secret "
             "number of runs K and fresh candidates, which this run did not evaluate");
done:
  return status;
}

/* Stage 2's bound is the base's (selection_accounting): basic composition
 * for random_search, a stopping-search bound otherwise; stage 1 on the
 * proxy task adds nothing (it spends nothing). */
static const char *alg_guided_calibration(const dpbo_release *r) {
  if (r->guided.stage1_proxy_rows > 0)
    return r->selection_accounting.bound == DPBO_SELECTION_BOUND_BASIC
               ? "stage-2 bound alone, its pure random-search epsilon (the basic composition of "
                 "its selection and its value); stage 1 ran on the proxy task and spends nothing "
                 "(docs/privacy-proofs.md section 14)"
               : "stage-2 bound alone, its stopping-search bound; stage 1 ran on the proxy task "
                 "and spends nothing (docs/privacy-proofs.md section 14)";
  if (r->selection_accounting.bound == DPBO_SELECTION_BOUND_BASIC)
    return "basic composition of stage 1's discrete Gaussian bound (privacy-loss distribution) "
           "and stage 2's pure random-search epsilon (itself the basic composition of its "
           "selection and its value; docs/privacy-proofs.md section 14)";
  return "basic composition of stage 1's discrete Gaussian bound (privacy-loss distribution) "
         "and stage 2's stopping-search bound (docs/privacy-proofs.md section 14)";
}

/* What stage 1 was, and what of it the guarantee covers: its privatized
 * trace, or (on the proxy task) nothing, since it read no validation
 * record and its values are not released. */
typedef struct alg_guided_stage1_text {
  char what[320];
  const char *covered; /* the released things the (ε, δ) covers */
} alg_guided_stage1_text;

static void alg_guided_stage1(const dpbo_config *config, alg_guided_stage1_text *t) {
  if (config->guided_proxy_rows > 0) {
    snprintf(t->what, sizeof t->what,
             "Stage 1: %d GP-UCB evaluations on a proxy task built from the training rows alone "
             "(the last %lld training rows scored by a model trained on the others; no "
             "validation record read, nothing spent, its values not released: the training rows "
             "are not protected)",
             config->guided_evaluations, (long long)config->guided_proxy_rows);
    t->covered = "lambda_tilde and its score are";
  } else {
    snprintf(t->what, sizeof t->what,
             "Stage 1: %d GP-UCB evaluations, each gain released through the discrete Gaussian "
             "mechanism",
             config->guided_evaluations);
    t->covered = "Stage 1's trace, lambda_tilde and its score are together";
  }
}

/* Stage 2 by private random search (privacy.guided_base = random_search). */
static void alg_guided_describe_search(dpbo_release *r, const dpbo_config *config) {
  alg_guided_stage1_text s1;
  alg_guided_stage1(config, &s1);
  dpbo_guided_settings s;
  dpbo_guided_settings_from(config, &s);
  const int T2 = dpbo_guided_stage2_runs(&s, config->iterations);
  snprintf(r->guarantee, sizeof r->guarantee,
           "%s; stage 2: private random search (random_search) over T2 = %d candidates "
           "drawn from a law pi fixed from stage 1 alone (every candidate with "
           "probability >= %.6g / |Lambda|), secret like their gains: lambda_tilde by the %s "
           "mechanism over their gains (%.6g-DP) and its gain + discrete Laplace noise "
           "(%.6g-DP). %s (%.6g, %.6g)-DP for the validation set by basic composition of the two "
           "stages (calibrated by the %s), for neighbouring validation sets that differ in one "
           "record, under which a gain at a fixed lambda moves by at most %.6g. It assumes "
           "nothing about the objective.",
           s1.what, T2, config->guided_weight, dpbo_select_kind_name(r->selection),
           r->selection_accounting.epsilon_select, r->selection_accounting.epsilon_value,
           s1.covered, r->epsilon_total, r->delta_total, alg_guided_calibration(r),
           r->gain_sensitivity);
}

static void alg_guided_describe(dpbo_release *r, const dpbo_config *config) {
  if (dpbo_guided_base_is_search(config->guided_base)) {
    alg_guided_describe_search(r, config);
    return;
  }
  alg_guided_stage1_text s1;
  alg_guided_stage1(config, &s1);
  snprintf(r->guarantee, sizeof r->guarantee,
           "%s; stage 2: the best of K runs of an %.6g-DP base (a candidate drawn from a law pi "
           "fixed from stage 1 alone, every candidate with probability >= %.6g / |Lambda|, and "
           "its gain + discrete Laplace noise), K secret (%s). %s (%.6g, %.6g)-DP for the "
           "validation set by basic composition of the two stages (calibrated by the %s), for "
           "neighbouring validation sets that differ in one record, under which a gain at a "
           "fixed lambda moves by at most %.6g. It assumes nothing about the objective.",
           s1.what, r->selection_accounting.epsilon_base, config->guided_weight,
           dpbo_algorithm_name(config->guided_base), s1.covered, r->epsilon_total, r->delta_total,
           alg_guided_calibration(r), r->gain_sensitivity);
}

const dpbo_algorithm_ops dpbo_alg_guided_ops = {
    .algorithm = DPBO_ALGORITHM_GUIDED,
    .name = "guided",
    .private_release = 1,
    .guided_selection = 1,
    .releases_lambda = 1,
    .delta_rule = "must lie in (0, 1): stage 1's discrete Gaussian mechanism spends a share of it",
    .value_name = "value",
    .value_symbol = "value~",
    .lambda_mechanism = "guided_selection (GP-UCB evaluations, privatized or on a proxy task, "
                        "then privacy.guided_base over secret candidates from their posterior: "
                        "the best noisy score of K secret runs, or random search's selection "
                        "over T2 candidates, as the guarantee states)",
    .check_config = alg_guided_check_config,
    .check_overrides = alg_guided_check_overrides,
    .calibration = alg_guided_calibration,
    .describe = alg_guided_describe,
    /* Each invocation charges its total and draws afresh (run/guided.h):
     * there is nothing to continue. */
    .resume_refusal = "privacy.algorithm = guided cannot be resumed: each dpbo run of it charges "
                      "its whole budget before its first evaluation and draws its stages afresh; "
                      "nothing was charged now. Start it again with dpbo run CONFIG --overwrite "
                      "(what an earlier run spent stays spent)",
    .stop_note = "stopped before both stages were in; nothing was written, and the budget charged "
                 "at the start stays spent. A guided run is not resumed: start it again with dpbo "
                 "run",
    /* Both stages, the run file and the release. */
    .run = dpbo_guided_run,
};
