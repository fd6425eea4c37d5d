/* GP-guided private selection (guided.h; docs/privacy-proofs.md section
 * "GP-guided selection"). */
#include "run/guided.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dpbo/mechanism.h"
#include "dpbo/privacy.h"
#include "dpbo/ucb.h"
#include "run/algorithm.h"
#include "run/private_evals_settings.h"
#include "run/private_gain.h"

void dpbo_guided_settings_from(const dpbo_config *config, dpbo_guided_settings *out) {
  out->stage1_evaluations = config->guided_evaluations;
  out->proxy_rows = config->guided_proxy_rows;
  out->score = (dpbo_guided_score)config->guided_score;
  out->epsilon_share = config->guided_epsilon_share;
  out->delta_share = config->guided_delta_share;
  out->weight = config->guided_weight;
  out->temperature = config->guided_temperature;
  out->base = config->guided_base;
  out->ps_eta = config->ps_eta;
  out->split = config->privacy_split;
}

int dpbo_guided_base_is_search(dpbo_algorithm base) {
  return !dpbo_algorithm_ops_get(base)->stopping;
}

int dpbo_guided_stage1_is_proxy(const dpbo_guided_settings *s) { return s->proxy_rows > 0; }

int dpbo_guided_stage2_runs(const dpbo_guided_settings *s, int T) {
  return dpbo_guided_stage1_is_proxy(s) ? T : T - s->stage1_evaluations;
}

const char *const dpbo_guided_score_names[] = {"ucb", "mean", NULL};

const char *dpbo_guided_score_name(dpbo_guided_score score) {
  return dpbo_guided_score_names[score == DPBO_GUIDED_SCORE_MEAN];
}

void dpbo_guided_proxy_split(dpbo_config *config, int64_t proxy_rows) {
  if (config->objective == DPBO_OBJECTIVE_LOGREG) {
    config->logreg.train_rows -= proxy_rows;
    config->logreg.validation_rows = proxy_rows;
    config->logreg.test_rows = 0;
  } else {
    config->svm.train_rows -= proxy_rows;
    config->svm.validation_rows = proxy_rows;
    config->svm.test_rows = 0;
  }
}

dpbo_status dpbo_guided_proxy_check(const dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int64_t K = config->guided_proxy_rows;
  if (K == 0) return DPBO_OK;
  /* The proxy task is the objective's split moved onto its training rows;
   * a command objective's rows are its program's, which dpbo cannot split. */
  if (config->objective != DPBO_OBJECTIVE_SVM && config->objective != DPBO_OBJECTIVE_LOGREG)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: privacy.guided_proxy_rows = %lld needs objective.kind = svm or logreg (the "
               "proxy task is the objective's training rows split in two)",
               config->path, (long long)K);
  const int64_t train = config->objective == DPBO_OBJECTIVE_LOGREG ? config->logreg.train_rows
                                                                   : config->svm.train_rows;
  if (K < 1 || K > train - 2)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: privacy.guided_proxy_rows = %lld must lie between 1 and objective.train_rows "
               "- 2 = %lld (the proxy model trains on the other training rows)",
               config->path, (long long)K, (long long)(train - 2));
done:
  return status;
}

dpbo_status dpbo_guided_check(const dpbo_guided_settings *s, int T, double epsilon, double delta,
                              dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  /* The rows check each key's range when a config is read; this repeats
   * them for callers that fill the settings themselves (tests, compare). */
  /* On the proxy task stage 1 reads no validation record: stage 2 keeps
   * all T of run.iterations, T1 proxy fits come on top. */
  if (dpbo_guided_stage1_is_proxy(s) && !(s->stage1_evaluations >= 1 && T >= 2))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "privacy.guided_evaluations = %d must be >= 1 and run.iterations = %d >= 2 (stage "
               "2's stopping search's E[K], or its random search's candidates)",
               s->stage1_evaluations, T);
  if (!dpbo_guided_stage1_is_proxy(s) &&
      !(s->stage1_evaluations >= 1 && s->stage1_evaluations <= T - 2))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "privacy.guided_evaluations = %d must lie between 1 and run.iterations - 2 = %d "
               "(stage 2 needs run.iterations - T1 >= 2: its stopping search's E[K], or its "
               "random search's candidates)",
               s->stage1_evaluations, T - 2);
  if (!(s->epsilon_share > 0.0 && s->epsilon_share < 1.0))
    DPBO_RAISE(DPBO_ERR_CONFIG, "privacy.guided_epsilon_share = %g must lie in (0, 1)",
               s->epsilon_share);
  if (!(s->delta_share > 0.0 && s->delta_share < 1.0))
    DPBO_RAISE(DPBO_ERR_CONFIG, "privacy.guided_delta_share = %g must lie in (0, 1)",
               s->delta_share);
  if (!(s->weight > 0.0 && s->weight <= 1.0))
    DPBO_RAISE(DPBO_ERR_CONFIG, "privacy.guided_weight = %g must lie in (0, 1]", s->weight);
  if (!(s->temperature > 0.0 && s->temperature <= 1e100))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "privacy.guided_temperature = %g must be positive and at most 1e100",
               s->temperature);
  /* Stage 2 is one of the private-selection methods (their rows). */
  if (!dpbo_algorithm_ops_get(s->base)->is_selection)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "privacy.guided_base must be liu_talwar, papernot_steinke or random_search");
  if (dpbo_guided_base_is_search(s->base) && !(s->split > 0.0 && s->split < 1.0))
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "privacy.split = %g must lie in (0, 1) (privacy.guided_base = random_search: the "
               "selection's share of stage 2's epsilon)",
               s->split);
  if (s->proxy_rows < 0)
    DPBO_RAISE(DPBO_ERR_CONFIG, "privacy.guided_proxy_rows = %lld must be >= 0",
               (long long)s->proxy_rows);
  if (!(epsilon > 0.0 && isfinite(epsilon)))
    DPBO_RAISE(DPBO_ERR_CONFIG, "privacy.epsilon = %g must be positive", epsilon);
  /* Stage 1's Gaussian mechanism is approximate DP: it needs a δ. On the
   * proxy task stage 1 spends nothing, and a pure base (random search,
   * Liu–Talwar) needs none. */
  const int proxy = dpbo_guided_stage1_is_proxy(s);
  const int pure = proxy && dpbo_algorithm_ops_get(s->base)->pure;
  if (!((pure ? delta >= 0.0 : delta > 0.0) && delta < 1.0))
    DPBO_RAISE(DPBO_ERR_CONFIG, "privacy.delta = %g must lie in %s: %s", delta,
               pure ? "[0, 1)" : "(0, 1)",
               pure    ? "the release is pure"
               : proxy ? "stage 2 spends it"
                       : "stage 1's discrete Gaussian mechanism spends a share of it");
done:
  return status;
}

/* b2 with fl-sum ε1 + b2 <= total: the real sum a + b2 is then at most
 * total (dpbo_privacy_sum_up rounds up), so the shares never exceed the
 * budget by a rounding. */
static double guided_rest(double total, double first) {
  double rest = total - first;
  while (rest > 0.0 && dpbo_privacy_sum_up(first, rest) > total)
    rest = nextafter(rest, 0.0);
  return rest;
}

dpbo_status dpbo_guided_account(const dpbo_guided_settings *s, const dpbo_guided_budget *at,
                                dpbo_guided_accounting *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const double epsilon = at->epsilon, delta = at->delta, sensitivity = at->sensitivity;
  const int T = at->T;
  memset(out, 0, sizeof *out);
  DPBO_TRY(dpbo_guided_check(s, T, epsilon, delta, err));
  out->epsilon = epsilon;
  out->delta = delta;
  out->stage1_evaluations = s->stage1_evaluations;
  const int proxy = dpbo_guided_stage1_is_proxy(s);
  out->stage2_runs = dpbo_guided_stage2_runs(s, T);
  /* On the proxy task stage 1 reads no validation record: (0, 0). */
  out->epsilon1 = proxy ? 0.0 : epsilon * s->epsilon_share;
  out->delta1 = proxy ? 0.0 : delta * s->delta_share;
  const double epsilon2 = guided_rest(epsilon, out->epsilon1);
  /* Random search is pure: its stage runs at δ2 = 0 and δ − δ1 stays
   * unspent (docs/privacy-proofs.md section 14). */
  const double delta2 = dpbo_guided_base_is_search(s->base) ? 0.0 : guided_rest(delta, out->delta1);
  if (proxy) {
    out->gp_noise_std_used = at->gp_noise_std;
  } else {
    /* Stage 1: T1 adaptive discrete Gaussian releases, exactly as a
     * private_evaluations run of K = T1 accounts them. */
    DPBO_TRY(dpbo_private_evals_calibrate(
        s->stage1_evaluations, sensitivity, (dpbo_privacy_cost){out->epsilon1, out->delta1},
        at->gp_noise_std, &out->sigma, &out->gp_noise_std_used, err));
    dpbo_private_evals_bound bound;
    DPBO_TRY(dpbo_private_evals_account(s->stage1_evaluations, sensitivity, out->sigma,
                                        out->epsilon1, out->delta1, &bound, err));
    out->epsilon1_accounted = bound.epsilon;
    out->delta1_accounted = out->delta1;
  }
  /* Stage 2: the base method's own calibration at the rest (its row of the
   * registry, run/alg_stopping.c or run/alg_random_search.c), E[K] = T − T1
   * runs or T2 = T − T1 candidates. */
  DPBO_TRY(dpbo_selection_account(s->base, (dpbo_privacy_cost){epsilon2, delta2}, s->split,
                                  out->stage2_runs, s->ps_eta, &out->stage2, err));
  /* Basic composition of the two stages (docs/privacy-proofs.md). */
  out->epsilon_accounted =
      dpbo_privacy_sum_up(out->epsilon1_accounted, out->stage2.epsilon_accounted);
  out->delta_accounted = dpbo_privacy_sum_up(out->delta1_accounted, out->stage2.delta_accounted);
  if (!(out->epsilon_accounted <= epsilon && out->delta_accounted <= delta))
    DPBO_RAISE(DPBO_ERR_NUMERIC,
               "guided accounting: the stages' (%.17g, %.17g) exceed the budget (%.17g, %.17g)",
               out->epsilon_accounted, out->delta_accounted, epsilon, delta);
done:
  return status;
}

dpbo_status dpbo_guided_law(const double *u, int64_t n, double weight, double temperature,
                            uint64_t *cdf, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const double U = ldexp(1.0, 40);
  if (!(n >= 1 && n <= ((int64_t)1 << 40) && weight > 0.0 && weight <= 1.0 && temperature > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "guided law: bad arguments (n %lld, w %g, tau %g)", (long long)n,
               weight, temperature);
  double top = -INFINITY;
  for (int64_t i = 0; i < n; i++) {
    if (!isfinite(u[i]))
      DPBO_RAISE(DPBO_ERR_NUMERIC, "guided law: the UCB at candidate %lld is %g", (long long)i,
                 u[i]);
    top = fmax(top, u[i]);
  }
  double z = 0.0;
  for (int64_t i = 0; i < n; i++)
    z += exp((u[i] - top) / temperature);
  /* The floor F: w U is exact (U a power of two) and n F < 2^53, so the
   * comparison is exact and n F >= w U holds as integers. */
  uint64_t F = (uint64_t)ceil(weight * U / (double)n);
  while ((double)F * (double)n < weight * U)
    F++;
  const double soft = (1.0 - weight) * U / z;
  uint64_t total = 0;
  for (int64_t i = 0; i < n; i++) {
    /* exp(...) <= 1 and z >= 1, so each term is at most (1 − w) U. */
    total += F + (uint64_t)floor(soft * exp((u[i] - top) / temperature));
    cdf[i] = total;
  }
done:
  return status;
}

void dpbo_guided_stage1_config(const dpbo_config *config, const dpbo_guided_settings *s,
                               const dpbo_guided_accounting *acc, double sensitivity,
                               dpbo_config *out) {
  /* The run a private_evaluations config of T1 steps at (ε1, δ1) makes:
   * its β_t of GP-UCB, no pruning, the GP's noise √(gp.noise_std² + σ²),
   * one evaluation at a time (the mechanism dpbo compare and dpbo audit
   * measure), σ calibrated for K = T1 releases (dpbo_guided_account). */
  *out = *config;
  out->algorithm = DPBO_ALGORITHM_PRIVATE_EVALUATIONS;
  out->iterations = s->stage1_evaluations;
  out->batch = 1;
  out->privacy_epsilon = acc->epsilon1;
  out->privacy_delta = acc->delta1;
  out->prior.noise_std = acc->gp_noise_std_used;
  memset(&out->evals, 0, sizeof out->evals);
  out->evals.active = 1;
  out->evals.sensitivity = sensitivity;
  out->evals.sensitivity_proven = 1;
  out->evals.max_evaluations = s->stage1_evaluations;
  out->evals.final_choice = DPBO_FINAL_BEST_OBSERVED;
  out->evals.sigma = acc->sigma;
  out->evals.sigma_zcdp = acc->sigma;
  out->evals.gp_noise_std = config->prior.noise_std;
  out->evals.gp_noise_std_used = acc->gp_noise_std_used;
  /* The proxy task: GP-UCB with no mechanism (no private release, nothing
   * privatized or charged: it reads no validation record) on the split of
   * the training rows. */
  if (dpbo_guided_stage1_is_proxy(s)) {
    out->algorithm = DPBO_ALGORITHM_NONE;
    memset(&out->evals, 0, sizeof out->evals);
    dpbo_guided_proxy_split(out, s->proxy_rows);
  }
}

void dpbo_guided_scores(const dpbo_config *stage1, const dpbo_run *run, dpbo_guided_score score,
                        double *u) {
  /* β for the step after the T1 observed (units of v once scaled); none
   * for the posterior mean. */
  const double root_beta = score == DPBO_GUIDED_SCORE_MEAN
                               ? 0.0
                               : sqrt(dpbo_privacy_beta(dpbo_space_size(run->space),
                                                        stage1->iterations + 1, stage1->delta));
  const double *mu = dpbo_ucb_mean(run->ucb), *var = dpbo_ucb_var(run->ucb);
  const int64_t count = dpbo_ucb_count(run->ucb);
  for (int64_t i = 0; i < count; i++)
    u[i] = stage1->prior.mean +
           stage1->prior.signal_std * (mu[i] + root_beta * sqrt(fmax(var[i], 0.0)));
}

/* Stage 2's run k: a candidate of π from the secret noise, its raw gain. */
typedef struct guided_stage2 {
  dpbo_run_evaluate_fn gain;
  void *context;
  dpbo_noise *noise;
  const dpbo_selection_law *law;
} guided_stage2;

static dpbo_status guided_stage2_next(void *context, int64_t k, int64_t *index, double *gain,
                                      dpbo_error *err) {
  const guided_stage2 *st = context;
  (void)k;
  *index = dpbo_selection_law_draw(st->noise, st->law);
  return st->gain(st->context, *index, gain, err);
}

/* Stage 2 by private random search (privacy.guided_base = random_search):
 * exactly T2 = acc->stage2_runs candidates i.i.d. from π, all drawn from the
 * secret noise before any gain is read, then the one selection code of
 * random_search (dpbo_selection_random_search: the selection over their
 * gains and the chosen gain's Laplace value) at stage 2's calibration. */
static dpbo_status guided_table_search(const dpbo_guided_gains *gains,
                                       const dpbo_selection_draw *draw,
                                       const dpbo_selection_law *law,
                                       const dpbo_guided_accounting *acc, dpbo_selection_pick *out,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int T2 = acc->stage2_runs;
  int64_t *candidates = NULL;
  double *gain = NULL;
  DPBO_ALLOC(candidates, T2, "stage 2's candidates");
  DPBO_ALLOC(gain, T2, "stage 2's gains");
  for (int t = 0; t < T2; t++)
    candidates[t] = dpbo_selection_law_draw(draw->noise, law);
  DPBO_TRY(dpbo_noise_check(draw->noise, err));
  for (int t = 0; t < T2; t++)
    DPBO_TRY(gains->gain(gains->context, candidates[t], &gain[t], err));
  DPBO_TRY(dpbo_selection_random_search(draw, gain, T2, acc->stage2.epsilon_select,
                                        acc->stage2.epsilon_value, out, err));
  out->index = candidates[out->position];
done:
  free(candidates);
  free(gain);
  return status;
}

dpbo_status dpbo_guided_table(const dpbo_config *config, const dpbo_guided_settings *s,
                              const dpbo_guided_accounting *acc, const dpbo_guided_gains *gains,
                              const dpbo_selection_draw *draw, dpbo_guided_pick *out,
                              dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_noise *noise = draw->noise;
  const double sensitivity = draw->sensitivity;
  dpbo_config *copy = NULL;
  double *u = NULL;
  uint64_t *cdf = NULL;
  dpbo_run run;
  memset(&run, 0, sizeof run);
  memset(out, 0, sizeof *out);
  DPBO_ALLOC(copy, 1, "the guided run's config");
  dpbo_guided_stage1_config(config, s, acc, sensitivity, copy);
  /* Stage 1's evaluation: the raw gain through the discrete Gaussian, or
   * the proxy task's exact gain (it never reads the validation set). */
  const int proxy = dpbo_guided_stage1_is_proxy(s);
  if (proxy && !gains->proxy)
    DPBO_RAISE(DPBO_ERR_ARG, "guided stage 1 on the proxy task needs the proxy gains");
  dpbo_private_gain st1;
  dpbo_private_gain_init(&st1, gains->gain, gains->context, noise, sensitivity, acc->sigma);
  const dpbo_run_evaluate_fn stage1 = proxy ? gains->proxy : dpbo_private_gain_evaluate;
  void *stage1_context = proxy ? gains->proxy_context : (void *)&st1;
  DPBO_TRY(dpbo_run_create(MPI_COMM_SELF, copy, &run, err));
  for (int t = 0; t < copy->iterations; t++) {
    DPBO_TRY(dpbo_run_step(MPI_COMM_SELF, copy, stage1, stage1_context, &run, err));
    if (st1.code != DPBO_OK)
      DPBO_RAISE(st1.code, "guided stage 1 failed on an evaluation: %s", st1.failure.message);
  }
  if (run.best_step < 0) DPBO_RAISE(DPBO_ERR_ARG, "guided stage 1 observed nothing");
  out->stage1_best_index = run.trace[run.best_step].index;
  out->stage1_best_value = run.trace[run.best_step].gain;
  /* π: post-processing of stage 1's release (the GP reads the noisy values
   * only), fixed here before stage 2 draws anything. */
  const int64_t n = dpbo_ucb_count(run.ucb);
  DPBO_ALLOC(u, n, "the guided UCB");
  DPBO_ALLOC(cdf, n, "the guided law");
  dpbo_guided_scores(copy, &run, s->score, u);
  DPBO_TRY(dpbo_guided_law(u, n, s->weight, s->temperature, cdf, err));
  uint64_t wmax = cdf[0], wmin = cdf[0];
  for (int64_t i = 1; i < n; i++) {
    const uint64_t w = cdf[i] - cdf[i - 1];
    wmax = w > wmax ? w : wmax;
    wmin = w < wmin ? w : wmin;
  }
  out->pi_max = (double)wmax / (double)cdf[n - 1];
  out->pi_min = (double)wmin / (double)cdf[n - 1];
  /* Stage 2: the base method with its secret K, each run's candidate from
   * π (run/selection.h's law), all from the same secret noise; or random
   * search over T2 candidates from π. */
  const dpbo_selection_law law = {n, cdf};
  if (dpbo_guided_base_is_search(s->base)) {
    DPBO_TRY(guided_table_search(gains, draw, &law, acc, &out->stage2, err));
  } else {
    const int64_t K = dpbo_selection_draw_runs(noise, s->base, acc->stage2_runs, &acc->stage2);
    if (K > 100000000) DPBO_RAISE(DPBO_ERR_NUMERIC, "the number of runs drawn exceeds 1e8");
    guided_stage2 st2 = {gains->gain, gains->context, noise, &law};
    const dpbo_selection_runs runs = {guided_stage2_next, &st2, K, acc->stage2_runs};
    DPBO_TRY(dpbo_selection_stopping(&runs, draw, acc->stage2.epsilon_base, &out->stage2, err));
  }
done:
  dpbo_run_free(&run);
  free(copy);
  free(u);
  free(cdf);
  return status;
}
