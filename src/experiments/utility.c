/* Utility reports: public theorem bounds and the data holder's exact figures
 * (utility.h states every formula). */
#include "experiments/utility.h"
#include "run/algorithm.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/h5io.h"
#include "base/log.h"
#include "run/release.h"
#include "dpbo/ucb.h"
#include "run/release_private.h"
#include "run/selection.h"
#include "experiments/stopping_law.h"

const double dpbo_utility_levels[DPBO_UTILITY_QUANTILES] = {0.05, 0.25, 0.5, 0.75, 0.95};

/* The p-quantile of Lap(b): b log(2p) below the median, −b log(2(1 − p)) above. */
double dpbo_utility_laplace_quantile(double b, double p) {
  return p < 0.5 ? b * log(2.0 * p) : -b * log(2.0 * (1.0 - p));
}

dpbo_status dpbo_utility_gather_mean(MPI_Comm comm, const dpbo_config *config, const dpbo_run *run,
                                     double **mean, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int size, *counts = NULL, *displs = NULL;
  double *local = NULL, *all = NULL;
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  const int64_t n = dpbo_space_size(run->space);
  const int64_t count = dpbo_ucb_count(run->ucb);
  const double *mu = dpbo_ucb_mean(run->ucb);
  *mean = NULL;
  if (n > 0x7fffffff)
    DPBO_RAISE(DPBO_ERR_ARG, "utility: |Λ| = %lld is more than one gather can carry", (long long)n);
  DPBO_ALLOC(counts, size, "gather counts");
  DPBO_ALLOC(displs, size, "gather offsets");
  DPBO_ALLOC(local, count, "the block's posterior mean");
  DPBO_ALLOC(all, n, "the posterior mean over Λ");
  for (int r = 0; r < size; r++) {
    int64_t b, c;
    dpbo_space_block(n, size, r, &b, &c);
    counts[r] = (int)c;
    displs[r] = (int)b;
  }
  for (int64_t i = 0; i < count; i++)
    local[i] = config->prior.mean + config->prior.signal_std * mu[i];
  DPBO_MPI_TRY(
      MPI_Allgatherv(local, (int)count, MPI_DOUBLE, all, counts, displs, MPI_DOUBLE, comm));
  *mean = all;
  all = NULL;
done:
  free(counts);
  free(displs);
  free(local);
  free(all);
  return status;
}

void dpbo_utility_public_figures(const dpbo_config *config, const dpbo_sensitivity *sens,
                                 double epsilon, double tail, dpbo_utility_public *out) {
  memset(out, 0, sizeof *out);
  const double s = config->prior.signal_std, sigma = config->prior.noise_std;
  dpbo_privacy_budget budget;
  /* The config was validated, so the budget split cannot fail here. */
  if (dpbo_privacy_budget_split(config->algorithm, sens->bounds, epsilon, config->privacy_delta,
                                config->privacy_split, &budget, NULL) != DPBO_OK)
    return;
  /* The run's δ_β: β_t fails (Srinivas et al.'s Lemma 5.1) with probability
   * δ_β/2, and the noise bounds below take the other δ_β/2. */
  const double delta = budget.delta_beta;
  out->bounds = sens->bounds;
  out->epsilon = epsilon;
  out->tail = tail;
  out->a = log(1.0 / tail);
  out->epsilon_lambda = budget.epsilon_lambda;
  out->epsilon_value = budget.epsilon_value;
  out->delta_lambda = budget.delta_lambda;
  out->delta_value = budget.delta_value;
  out->delta_value_union = budget.delta_value_union;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(config->algorithm);
  out->has_lambda = ops->releases_lambda;
  if (out->has_lambda) {
    /* Theorem 2 in units of v: |α_T| ≤ σ √(2 log(2/δ_β)) w.p. 1 − δ_β/2; the
     * paper writes its (larger) q = σ √(4 log(3/δ)) there. */
    out->lambda_term_beta = s * 2.0 * sqrt(dpbo_privacy_beta(sens->n, sens->T, delta));
    if (ops->noisy_observations)
      out->lambda_term_q =
          sens->bounds == DPBO_BOUNDS_PAPER
              ? s * dpbo_privacy_q(DPBO_BOUNDS_PAPER, sens->sigma_n, sens->T, delta)
              : sigma * sqrt(2.0 * log(2.0 / delta));
    out->lambda_term_mechanism =
        2.0 * sens->lambda_sensitivity / out->epsilon_lambda * (log((double)sens->n) + out->a);
    out->lambda_bound = out->lambda_term_beta + out->lambda_term_q + out->lambda_term_mechanism;
    out->lambda_probability = 1.0 - (delta + tail);
  }
  out->laplace_scale = sens->value_sensitivity / out->epsilon_value;
  out->value_term_laplace = out->a * out->laplace_scale;
  if (ops->gp_release && ops->noisy_observations) { /* Algorithm 1 */
    out->value_term_noise = sigma * sqrt(2.0 * log(2.0 * sens->T / delta));
    out->value_term_regret = s * sens->regret_term;
    out->value_probability = 1.0 - (delta + tail);
  } else if (ops->gp_release) {                 /* Algorithm 2 */
    out->value_term_regret = sens->regret_term; /* Ω, units of v already */
    out->value_probability = 1.0 - (delta + tail);
  } else {
    out->value_probability = 1.0 - tail;
  }
  out->value_bound = out->value_term_noise + out->value_term_regret + out->value_term_laplace;
  for (int q = 0; q < DPBO_UTILITY_QUANTILES; q++)
    out->noise_quantiles[q] =
        dpbo_utility_laplace_quantile(out->laplace_scale, dpbo_utility_levels[q]);
}

typedef struct regret_item {
  double regret, p;
} regret_item;

static int utility_regret_cmp(const void *a, const void *b) {
  double x = ((const regret_item *)a)->regret, y = ((const regret_item *)b)->regret;
  return (x > y) - (x < y);
}

dpbo_status dpbo_utility_law_figures(const double *mean, const double *p, int64_t n,
                                     dpbo_utility_holder *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  regret_item *items = NULL;
  DPBO_ALLOC(items, n, "the regret distribution");
  double top = -INFINITY;
  for (int64_t i = 0; i < n; i++)
    top = fmax(top, mean[i]);
  long double e_mu = 0.0L, p_top = 0.0L;
  double worst = 0.0;
  for (int64_t i = 0; i < n; i++) {
    e_mu += (long double)p[i] * mean[i];
    if (mean[i] == top) p_top += p[i];
    items[i].regret = top - mean[i];
    items[i].p = p[i];
    worst = fmax(worst, items[i].regret);
  }
  out->has_lambda = 1;
  out->max_mean = top;
  out->expected_regret_mean = (double)((long double)top - e_mu);
  out->expected_regret_observed = (double)((long double)out->best_observed - e_mu);
  out->probability_argmax = (double)p_top;
  /* P(regret <= x) on an even grid: one pass over the sorted regrets. */
  qsort(items, (size_t)n, sizeof *items, utility_regret_cmp);
  long double cum = 0.0L;
  int64_t j = 0;
  for (int c = 0; c < DPBO_UTILITY_CDF_POINTS; c++) {
    double x = worst * c / (DPBO_UTILITY_CDF_POINTS - 1);
    if (c == DPBO_UTILITY_CDF_POINTS - 1) x = worst;
    while (j < n && items[j].regret <= x)
      cum += items[j++].p;
    out->regret_x[c] = x;
    out->regret_cdf[c] = (double)fminl(cum, 1.0L);
  }
done:
  free(items);
  return status;
}

void dpbo_utility_value_figures(double x, double scale, int clamp, double lo, double hi,
                                dpbo_utility_holder *out) {
  out->released_value = x;
  for (int q = 0; q < DPBO_UTILITY_QUANTILES; q++) {
    double v = x + dpbo_utility_laplace_quantile(scale, dpbo_utility_levels[q]);
    if (clamp) v = fmin(fmax(v, lo), hi); /* monotone: quantiles pass through */
    out->value_error_quantiles[q] = v - x;
  }
  out->probability_clamped = 0.0;
  if (clamp) {
    /* P(x + Z < lo) + P(x + Z > hi) for Z ~ Lap(b) (each side ½ e^{−gap/b}
     * when x lies inside, 1 − ½ e^{−gap/b} when it lies outside). */
    double below = x >= lo ? 0.5 * exp(-(x - lo) / scale) : 1.0 - 0.5 * exp(-(lo - x) / scale);
    double above = x <= hi ? 0.5 * exp(-(hi - x) / scale) : 1.0 - 0.5 * exp(-(x - hi) / scale);
    out->probability_clamped = fmin(1.0, below + above);
  }
}

/* Private random search (run/selection.h): λ̃ is the exponential mechanism
 * (or permute-and-flip) over the T evaluated gains, so its distribution is
 * exact and cheap: the "μ_T" of the figures is the vector of those gains.
 * Public: the mechanism's bound g_max − g(λ̃) <= (2Δ/ε_sel)(log T + a) w.p.
 * >= 1 − e^{−a} (McSherry and Talwar 2007) and the Laplace noise of the
 * value. Holder: the exact λ̃ figures, and the value's error around the
 * best gain (the value released when λ̃ is the best candidate). */
static dpbo_status utility_random_search(const dpbo_config *config, const dpbo_run *run,
                                         const double *epsilons, int count, double tail,
                                         dpbo_utility_report *reports, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *gains = NULL, *p = NULL;
  double sens, lo, hi;
  const int T = run->steps;
  DPBO_TRY(dpbo_selection_gain_range(config, &sens, &lo, &hi, err));
  DPBO_ALLOC(gains, T, "the gains");
  DPBO_ALLOC(p, T, "the distribution of lambda~");
  double best = -INFINITY;
  for (int t = 0; t < T; t++) {
    gains[t] = run->trace[t].gain;
    best = fmax(best, gains[t]);
  }
  for (int e = 0; e < count; e++) {
    dpbo_selection_accounting acc;
    DPBO_TRY(dpbo_selection_account(
        config->algorithm, (dpbo_privacy_cost){epsilons[e], config->privacy_delta},
        config->privacy_split, config->iterations, config->ps_eta, &acc, err));
    dpbo_utility_public *pub = &reports[e].pub;
    memset(pub, 0, sizeof *pub);
    pub->bounds = config->bounds;
    pub->epsilon = epsilons[e];
    pub->epsilon_lambda = acc.epsilon_select;
    pub->epsilon_value = acc.epsilon_value;
    pub->tail = tail;
    pub->a = log(1.0 / tail);
    pub->has_lambda = 1;
    pub->lambda_term_mechanism = 2.0 * sens / acc.epsilon_select * (log((double)T) + pub->a);
    pub->lambda_bound = pub->lambda_term_mechanism;
    pub->lambda_probability = 1.0 - tail;
    pub->laplace_scale = sens / acc.epsilon_value;
    pub->value_term_laplace = pub->a * pub->laplace_scale;
    pub->value_bound = pub->value_term_laplace;
    pub->value_probability = 1.0 - tail;
    for (int q = 0; q < DPBO_UTILITY_QUANTILES; q++)
      pub->noise_quantiles[q] =
          dpbo_utility_laplace_quantile(pub->laplace_scale, dpbo_utility_levels[q]);
    reports[e].pub_other = *pub; /* no GP bounds: the same under both */
    reports[e].pub_other.bounds =
        config->bounds == DPBO_BOUNDS_PAPER ? DPBO_BOUNDS_CORRECTED : DPBO_BOUNDS_PAPER;
    dpbo_utility_holder *h = &reports[e].holder;
    memset(h, 0, sizeof *h);
    h->best_observed = best;
    DPBO_TRY(dpbo_mech_select_probabilities(config->selection, gains, T, sens, acc.epsilon_select,
                                            p, err));
    DPBO_TRY(dpbo_utility_law_figures(gains, p, T, h, err));
    /* Released values are always clamped to the gain's range (selection.h). */
    dpbo_utility_value_figures(best, pub->laplace_scale, 1, lo, hi, h);
  }
done:
  free(gains);
  free(p);
  return status;
}

/* The stopping methods (liu_talwar, papernot_steinke): the law of the best
 * of K noisy runs (experiments/stopping_law.h), over the trace's gains as a
 * sample of Λ unless they cover it. Public: no theorem bound, only ε0 and
 * the base's Laplace quantiles. Holder: the λ̃ figures of that law and the
 * released score's error around the best gain. */
static dpbo_status utility_stopping(const dpbo_config *config, const dpbo_run *run,
                                    const double *epsilons, int count, double tail,
                                    dpbo_utility_report *reports, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *v = NULL, *w = NULL, *p = NULL;
  double sens, lo, hi;
  int64_t d = 0;
  int exact = 0;
  DPBO_TRY(dpbo_selection_gain_range(config, &sens, &lo, &hi, err));
  /* The release's own conditions (release.c): a whole run, no failures. */
  if (run->steps < 1 || run->steps != run->planned || run->finished != run->planned ||
      run->outcome != DPBO_OK)
    DPBO_RAISE(DPBO_ERR_ARG,
               "the %s run did not evaluate every candidate it drew, so there is no release to "
               "report on",
               dpbo_algorithm_name(config->algorithm));
  for (int t = 0; t < run->steps; t++)
    if (run->trace[t].state == DPBO_STEP_FAILED || !isfinite(run->trace[t].gain))
      DPBO_RAISE(DPBO_ERR_ARG,
                 "%s: evaluations failed, and the private-selection methods have no rule for a "
                 "candidate without a gain: there is no release to report on",
                 dpbo_algorithm_name(config->algorithm));
  DPBO_TRY(dpbo_stopping_support(run, &v, &w, &d, &exact, err));
  DPBO_ALLOC(p, d, "the law of the released candidate");
  const double best = v[d - 1];
  for (int e = 0; e < count; e++) {
    dpbo_selection_accounting acc;
    dpbo_runs_law law;
    DPBO_TRY(dpbo_selection_account(
        config->algorithm, (dpbo_privacy_cost){epsilons[e], config->privacy_delta},
        config->privacy_split, config->iterations, config->ps_eta, &acc, err));
    DPBO_TRY(dpbo_stopping_runs_law(config->algorithm, config->iterations, &acc, &law, err));
    const double b = sens / acc.epsilon_base;
    dpbo_utility_public *pub = &reports[e].pub;
    memset(pub, 0, sizeof *pub);
    pub->bounds = config->bounds;
    pub->epsilon = epsilons[e];
    pub->epsilon_base = acc.epsilon_base;
    /* One mechanism over the pair (release.c): no share for each part, and
     * no theorem bound (stopping_law.h). */
    pub->epsilon_lambda = pub->epsilon_value = NAN;
    pub->delta_lambda = pub->delta_value = pub->delta_value_union = NAN;
    pub->tail = tail;
    pub->a = log(1.0 / tail);
    pub->lambda_bound = pub->lambda_probability = NAN;
    pub->value_bound = pub->value_probability = NAN;
    pub->laplace_scale = b;
    for (int q = 0; q < DPBO_UTILITY_QUANTILES; q++)
      pub->noise_quantiles[q] = dpbo_utility_laplace_quantile(b, dpbo_utility_levels[q]);
    reports[e].pub_other = *pub; /* no GP bounds: the same under both */
    reports[e].pub_other.bounds =
        config->bounds == DPBO_BOUNDS_PAPER ? DPBO_BOUNDS_CORRECTED : DPBO_BOUNDS_PAPER;
    dpbo_utility_holder *h = &reports[e].holder;
    memset(h, 0, sizeof *h);
    h->best_observed = best;
    h->law_support = exact ? dpbo_space_size(run->space) : run->steps;
    h->law_exact = exact;
    DPBO_TRY(dpbo_stopping_law(&law, v, w, d, b, p, err));
    DPBO_TRY(dpbo_utility_law_figures(v, p, d, h, err));
    /* The released score is the best noisy score, clamped (selection.h). */
    h->released_value = best;
    for (int q = 0; q < DPBO_UTILITY_QUANTILES; q++) {
      double s = dpbo_stopping_quantile(&law, v, w, d, b, dpbo_utility_levels[q]);
      h->value_error_quantiles[q] = fmin(fmax(s, lo), hi) - best;
    }
    h->probability_clamped = fmin(1.0, dpbo_stopping_cdf(&law, v, w, d, b, lo) +
                                           (1.0 - dpbo_stopping_cdf(&law, v, w, d, b, hi)));
  }
done:
  free(v);
  free(w);
  free(p);
  return status;
}

/* z with P(N(0, 1) > z) = p (0 < p < 1/2), by bisection on erfc: 60 halvings
 * of [0, 40] leave it exact to double precision. */
static double utility_normal_upper(double p) {
  double lo = 0.0, hi = 40.0;
  for (int i = 0; i < 60; i++) {
    const double mid = 0.5 * (lo + hi);
    if (0.5 * erfc(mid / sqrt(2.0)) > p)
      lo = mid;
    else
      hi = mid;
  }
  return 0.5 * (lo + hi);
}

/* GP-UCB on privatized evaluations (issue #23, 3): every figure is public,
 * because the trace itself is the DP output. At each ε: σ of each
 * evaluation's noise, calibrated as a run at that ε would be (K =
 * privacy.max_evaluations mechanisms of sensitivity Δ, the run's δ). The
 * discrete Gaussian with parameter σ is σ-sub-Gaussian (Canonne, Kamath and
 * Steinke 2020, Corollary 9), so P(|noise| ≥ t) ≤ 2 e^{−t²/(2σ²)}: a noisy
 * v_t lies within σ √(2 log(2/tail)) of its gain with probability ≥ 1 −
 * tail; the difference of two independent noises is (σ√2)-sub-Gaussian, so
 * two gains W = 2σ √(log(1/tail)) apart are ordered wrongly by one noisy
 * comparison with probability ≤ tail. The quantiles are the continuous
 * Gaussian's, which the discrete one on its fine grid matches closely (an
 * approximation, labelled so). No bound on λ̃'s regret is claimed: λ̃ is
 * post-processing of the noisy trace by the GP. */
static dpbo_status utility_private_evaluations(const dpbo_config *config, const double *epsilons,
                                               int count, double tail, dpbo_utility_report *reports,
                                               dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!(tail > 0.0 && tail < 1.0))
    DPBO_RAISE(DPBO_ERR_USAGE, "utility: --tail must lie in (0, 1), got %g", tail);
  const dpbo_private_evals_settings *ev = &config->evals;
  for (int e = 0; e < count; e++) {
    if (!(epsilons[e] > 0.0 && isfinite(epsilons[e])))
      DPBO_RAISE(DPBO_ERR_USAGE, "utility: epsilon must be positive and finite, got %g",
                 epsilons[e]);
    double sigma, gp_noise_used;
    DPBO_TRY(dpbo_private_evals_calibrate(ev->max_evaluations, ev->sensitivity,
                                          (dpbo_privacy_cost){epsilons[e], config->privacy_delta},
                                          ev->gp_noise_std, &sigma, &gp_noise_used, err));
    dpbo_utility_public *pub = &reports[e].pub;
    memset(&reports[e], 0, sizeof reports[e]);
    pub->bounds = config->bounds;
    pub->epsilon = pub->epsilon_value = epsilons[e];
    pub->delta_value = config->privacy_delta;
    pub->tail = tail;
    pub->a = log(1.0 / tail);
    pub->gaussian_sigma = sigma;
    pub->value_bound = sigma * sqrt(2.0 * log(2.0 / tail));
    pub->value_probability = 1.0 - tail;
    pub->resolution = 2.0 * sigma * sqrt(log(1.0 / tail));
    for (int q = 0; q < DPBO_UTILITY_QUANTILES; q++) {
      const double level = dpbo_utility_levels[q];
      const double z = level < 0.5 ? -utility_normal_upper(level) : utility_normal_upper(1 - level);
      pub->noise_quantiles[q] = level == 0.5 ? 0.0 : z * sigma;
    }
    reports[e].pub_other = *pub; /* no GP bounds: the same under both */
  }
done:
  return status;
}

dpbo_status dpbo_utility_compute(MPI_Comm comm, const dpbo_config *config, const dpbo_run *run,
                                 const dpbo_utility_request *request, dpbo_utility_report *reports,
                                 dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const double *epsilons = request->epsilons;
  const int count = request->count;
  const double tail = request->tail;
  double *mean = NULL, *p = NULL;
  dpbo_privacy_inputs in;
  dpbo_sensitivity sens, sens_other;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(config->algorithm);
  if (!ops->private_release)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: the run has no [privacy] algorithm, so there is no release to report on "
               "(rerun with privacy.algorithm = 1, 2 or 3)",
               config->path);
  if (ops->is_selection) {
    if (!(tail > 0.0 && tail < 1.0))
      DPBO_RAISE(DPBO_ERR_USAGE, "utility: --tail must lie in (0, 1), got %g", tail);
    for (int e = 0; e < count; e++)
      if (!(epsilons[e] > 0.0 && isfinite(epsilons[e])))
        DPBO_RAISE(DPBO_ERR_USAGE, "utility: epsilon must be positive and finite, got %g",
                   epsilons[e]);
    if (ops->stopping)
      DPBO_TRY(utility_stopping(config, run, epsilons, count, tail, reports, err));
    else
      DPBO_TRY(utility_random_search(config, run, epsilons, count, tail, reports, err));
    goto done;
  }
  if (ops->private_evaluations) {
    DPBO_TRY(utility_private_evaluations(config, epsilons, count, tail, reports, err));
    goto done;
  }
  if (run->steps != config->iterations)
    DPBO_RAISE(DPBO_ERR_ARG, "the run did not complete its %d iterations (%d done)",
               config->iterations, run->steps);
  if (!(tail > 0.0 && tail < 1.0))
    DPBO_RAISE(DPBO_ERR_USAGE, "utility: --tail must lie in (0, 1), got %g", tail);
  if (count < 1 || count > DPBO_UTILITY_MAX_EPSILONS)
    DPBO_RAISE(DPBO_ERR_USAGE, "utility: between 1 and %d values of epsilon, got %d",
               DPBO_UTILITY_MAX_EPSILONS, count);
  for (int e = 0; e < count; e++)
    if (!(epsilons[e] > 0.0 && isfinite(epsilons[e])))
      DPBO_RAISE(DPBO_ERR_USAGE, "utility: epsilon must be positive and finite, got %g",
                 epsilons[e]);
  DPBO_TRY(dpbo_release_inputs(config, run->space, &in, err));
  const dpbo_space_range block = {run->space, dpbo_ucb_begin(run->ucb), dpbo_ucb_count(run->ucb)};
  DPBO_TRY(dpbo_privacy_sensitivities(comm, &in, &block, &config->kernel, &sens, err));
  /* The other bounds side by side (γ_T does not depend on them). */
  in.bounds = config->bounds == DPBO_BOUNDS_PAPER ? DPBO_BOUNDS_CORRECTED : DPBO_BOUNDS_PAPER;
  {
    dpbo_privacy_budget other;
    DPBO_TRY(dpbo_privacy_budget_split(config->algorithm, in.bounds, config->privacy_epsilon,
                                       config->privacy_delta, config->privacy_split, &other, err));
    in.delta_beta = other.delta_beta;
  }
  in.gamma_greedy = sens.gamma_greedy;
  DPBO_TRY(dpbo_privacy_sensitivities(comm, &in, &block, &config->kernel, &sens_other, err));
  const int64_t n = dpbo_space_size(run->space);
  const int has_lambda = ops->releases_lambda;
  if (has_lambda) {
    DPBO_TRY(dpbo_utility_gather_mean(comm, config, run, &mean, err));
    DPBO_ALLOC(p, n, "λ̃'s distribution");
  }
  const double x = dpbo__release_best_value(config, run);
  for (int e = 0; e < count; e++) {
    dpbo_utility_report *r = &reports[e];
    memset(r, 0, sizeof *r);
    dpbo_utility_public_figures(config, &sens, epsilons[e], tail, &r->pub);
    dpbo_utility_public_figures(config, &sens_other, epsilons[e], tail, &r->pub_other);
    r->holder.best_observed = x;
    if (has_lambda) {
      DPBO_TRY(dpbo_mech_select_probabilities(config->selection, mean, n, sens.lambda_sensitivity,
                                              r->pub.epsilon_lambda, p, err));
      DPBO_TRY(dpbo_utility_law_figures(mean, p, n, &r->holder, err));
    }
    dpbo_utility_value_figures(x, r->pub.laplace_scale, config->clamp_value, config->value_lo,
                               config->value_hi, &r->holder);
  }
done:
  free(mean);
  free(p);
  return status;
}

/* ---------------------------------------------------------------------------
 * The /utility group of the run file. */

/* One column (count values, or count × width) gathered from the reports. */
#define UTILITY_COLUMN(group, name, expr)                                                          \
  do {                                                                                             \
    for (int e_ = 0; e_ < count; e_++) {                                                           \
      const dpbo_utility_report *r = &reports[e_];                                                 \
      column[e_] = (expr);                                                                         \
    }                                                                                              \
    const hsize_t n_ = (hsize_t)count;                                                             \
    DPBO_TRY(dpbo_h5io_write_array(group, name, H5T_NATIVE_DOUBLE, 1, &n_, column, err));          \
  } while (0)

#define UTILITY_ROWS(group, name, member, width)                                                   \
  do {                                                                                             \
    for (int e_ = 0; e_ < count; e_++)                                                             \
      memcpy(rows + (size_t)e_ * (width), reports[e_].member, sizeof(double) * (width));           \
    const hsize_t dims_[2] = {(hsize_t)count, (hsize_t)(width)};                                   \
    DPBO_TRY(dpbo_h5io_write_array(group, name, H5T_NATIVE_DOUBLE, 2, dims_, rows, err));          \
  } while (0)

/* The public figures of one set of bounds (other: the report's pub_other)
 * into group pub. */
#define PUB(r) (other ? &(r)->pub_other : &(r)->pub)
#define PUB_COLUMN(name, expr)                                                                     \
  do {                                                                                             \
    for (int e_ = 0; e_ < count; e_++) {                                                           \
      const dpbo_utility_public *P = PUB(&reports[e_]);                                            \
      column[e_] = (expr);                                                                         \
    }                                                                                              \
    const hsize_t n_ = (hsize_t)count;                                                             \
    DPBO_TRY(dpbo_h5io_write_array(pub, name, H5T_NATIVE_DOUBLE, 1, &n_, column, err));            \
  } while (0)

static dpbo_status utility_write_public(hid_t pub, const dpbo_utility_report *reports, int count,
                                        int other, double *column, double *rows, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_TRY(dpbo_h5io_attr_string(pub, "bounds", dpbo_bounds_name(PUB(&reports[0])->bounds), err));
  PUB_COLUMN("epsilon", P->epsilon);
  PUB_COLUMN("epsilon_lambda", P->epsilon_lambda);
  PUB_COLUMN("epsilon_value", P->epsilon_value);
  PUB_COLUMN("delta_lambda", P->delta_lambda);
  PUB_COLUMN("delta_value", P->delta_value);
  PUB_COLUMN("tail", P->tail);
  PUB_COLUMN("lambda_bound", P->has_lambda ? P->lambda_bound : NAN);
  PUB_COLUMN("lambda_probability", P->has_lambda ? P->lambda_probability : NAN);
  PUB_COLUMN("lambda_term_beta", P->lambda_term_beta);
  PUB_COLUMN("lambda_term_q", P->lambda_term_q);
  PUB_COLUMN("lambda_term_mechanism", P->lambda_term_mechanism);
  PUB_COLUMN("value_bound", P->value_bound);
  PUB_COLUMN("value_probability", P->value_probability);
  PUB_COLUMN("value_term_noise", P->value_term_noise);
  PUB_COLUMN("value_term_regret", P->value_term_regret);
  PUB_COLUMN("value_term_laplace", P->value_term_laplace);
  PUB_COLUMN("laplace_scale", P->laplace_scale);
  for (int e_ = 0; e_ < count; e_++)
    memcpy(rows + (size_t)e_ * DPBO_UTILITY_QUANTILES, PUB(&reports[e_])->noise_quantiles,
           sizeof(double) * DPBO_UTILITY_QUANTILES);
  const hsize_t dims[2] = {(hsize_t)count, DPBO_UTILITY_QUANTILES};
  DPBO_TRY(dpbo_h5io_write_array(pub, "noise_quantiles", H5T_NATIVE_DOUBLE, 2, dims, rows, err));
  PUB_COLUMN("delta_value_union", P->delta_value_union);
  if (PUB(&reports[0])->epsilon_base > 0.0) PUB_COLUMN("epsilon_base", P->epsilon_base);
  if (PUB(&reports[0])->gaussian_sigma > 0.0) {
    PUB_COLUMN("gaussian_sigma", P->gaussian_sigma);
    PUB_COLUMN("resolution", P->resolution);
  }
done:
  return status;
}
#undef PUB_COLUMN
#undef PUB

static const char tmp_name[] = "utility.tmp";

dpbo_status dpbo_utility_write(const char *runfile, const dpbo_utility_report *reports, int count,
                               dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t file = -1, top = -1, pub = -1, holder = -1, other = -1;
  double *column = NULL, *rows = NULL;
  dpbo_h5io_file out = {.id = -1, .fd = -1, .tmp = ""};
  DPBO_ALLOC(column, count, "a utility column");
  DPBO_ALLOC(rows, (size_t)count * DPBO_UTILITY_CDF_POINTS, "utility rows");
  /* Every change to a run file takes the atomic path (h5io.h): a copy is
   * changed and replaces it, so a crash never leaves half a report or a
   * broken file. */
  DPBO_TRY(dpbo_h5io_modify(runfile, &out, err));
  file = out.id;
  H5E_BEGIN_TRY { H5Ldelete(file, tmp_name, H5P_DEFAULT); }
  H5E_END_TRY;
  top = H5Gcreate2(file, tmp_name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (top < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create group /%s in %s", tmp_name, runfile);
  DPBO_TRY(dpbo_h5io_attr_string(
      top, "note",
      "Utility report of dpbo utility. /utility/public depends only on public "
      "settings; /utility/data_holder is computed from the sensitive run and must "
      "never be published. Nothing here was released; no budget was spent.",
      err));
  const hsize_t levels = DPBO_UTILITY_QUANTILES;
  DPBO_TRY(dpbo_h5io_write_array(top, "quantile_levels", H5T_NATIVE_DOUBLE, 1, &levels,
                                 dpbo_utility_levels, err));
  pub = H5Gcreate2(top, "public", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  holder = H5Gcreate2(top, "data_holder", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (pub < 0 || holder < 0)
    DPBO_RAISE(DPBO_ERR_HDF5, "cannot create the utility groups in %s", runfile);
  DPBO_TRY(dpbo_h5io_attr_string(pub, "publication",
                                 "public: depends only on public settings (theorem bounds)", err));
  DPBO_TRY(dpbo_h5io_attr_string(
      holder, "publication",
      "DATA HOLDER ONLY: computed from the sensitive run (posterior mean and best "
      "observed gain); never publish",
      err));
  DPBO_TRY(utility_write_public(pub, reports, count, 0, column, rows, err));
  {
    /* The other bounds, side by side: /utility/public_paper or
     * /utility/public_corrected. */
    char name[64];
    snprintf(name, sizeof name, "public_%s", dpbo_bounds_name(reports[0].pub_other.bounds));
    other = H5Gcreate2(top, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (other < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create the group %s in %s", name, runfile);
    DPBO_TRY(utility_write_public(other, reports, count, 1, column, rows, err));
  }
  if (reports[0].pub.gaussian_sigma > 0.0) {
    /* private_evaluations: every figure is public; no raw gain exists. */
    DPBO_TRY(dpbo_h5io_attr_string(holder, "none",
                                   "private_evaluations: no raw gain is kept anywhere; every "
                                   "figure of the run is public",
                                   err));
  } else {
    UTILITY_COLUMN(holder, "max_mean", r->holder.has_lambda ? r->holder.max_mean : NAN);
    UTILITY_COLUMN(holder, "best_observed", r->holder.best_observed);
    UTILITY_COLUMN(holder, "expected_regret_mean",
                   r->holder.has_lambda ? r->holder.expected_regret_mean : NAN);
    UTILITY_COLUMN(holder, "expected_regret_observed",
                   r->holder.has_lambda ? r->holder.expected_regret_observed : NAN);
    UTILITY_COLUMN(holder, "probability_argmax",
                   r->holder.has_lambda ? r->holder.probability_argmax : NAN);
    UTILITY_ROWS(holder, "regret_x", holder.regret_x, DPBO_UTILITY_CDF_POINTS);
    UTILITY_ROWS(holder, "regret_cdf", holder.regret_cdf, DPBO_UTILITY_CDF_POINTS);
    UTILITY_COLUMN(holder, "released_value", r->holder.released_value);
    UTILITY_ROWS(holder, "value_error_quantiles", holder.value_error_quantiles,
                 DPBO_UTILITY_QUANTILES);
    UTILITY_COLUMN(holder, "probability_clamped", r->holder.probability_clamped);
  }
  if (reports[0].holder.law_support > 0) {
    /* The stopping methods: over which candidates the λ̃ figures are. */
    char law[160];
    snprintf(law, sizeof law,
             reports[0].holder.law_exact
                 ? "exact over Lambda (its %lld candidates all evaluated by the run)"
                 : "estimate over the run's %lld evaluated candidates as a sample of Lambda",
             (long long)reports[0].holder.law_support);
    DPBO_TRY(dpbo_h5io_attr_string(holder, "lambda_law", law, err));
  }
  H5Gclose(pub);
  H5Gclose(holder);
  H5Gclose(other);
  H5Gclose(top);
  pub = holder = top = other = -1;
  /* Into place: the old report goes only once the new one is whole. */
  H5E_BEGIN_TRY { H5Ldelete(file, "utility", H5P_DEFAULT); }
  H5E_END_TRY;
  if (H5Lmove(file, tmp_name, file, "utility", H5P_DEFAULT, H5P_DEFAULT) < 0)
    DPBO_RAISE(DPBO_ERR_HDF5, "cannot move the utility report into place in %s", runfile);
  DPBO_TRY(dpbo_h5io_commit(&out, err));
done:
  if (pub >= 0) H5Gclose(pub);
  if (holder >= 0) H5Gclose(holder);
  if (other >= 0) H5Gclose(other);
  if (top >= 0) H5Gclose(top);
  if (status != DPBO_OK) dpbo_h5io_discard(&out);
  free(column);
  free(rows);
  return status;
}

/* Random search's public figures in its own terms (issue #23, 3): no GP, no
 * μ_T, no privacy.bounds; the selection's tail bound over the T evaluated
 * candidates (McSherry and Talwar 2007, as utility_random_search computes
 * it) and the score's Laplace noise, Δ = scale · ε_value. */
static void utility_log_random_search(const dpbo_config *config, const dpbo_utility_public *p) {
  dpbo_log_info("      lambda~ (%s over the T = %d evaluated candidates, epsilon %.4g, "
                "sensitivity %.4g): its gain >= the best evaluated gain - %.4g  w.p. >= %.4g",
                dpbo_select_kind_name(config->selection), config->iterations, p->epsilon_lambda,
                p->laplace_scale * p->epsilon_value, p->lambda_bound, p->lambda_probability);
  dpbo_log_info("      score~: |score~ - gain(lambda~)| <= %.4g  w.p. >= %.4g   [Laplace scale "
                "%.4g, epsilon %.4g; clamping to the gain's range only moves it closer]",
                p->value_bound, p->value_probability, p->laplace_scale, p->epsilon_value);
}

/* One set of public figures (both Theorem lines) under its bounds. */
static void utility_log_public(const dpbo_config *config, const dpbo_utility_public *p) {
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(config->algorithm);
  if (ops->is_selection && !ops->stopping) {
    utility_log_random_search(config, p);
    return;
  }
  if (p->epsilon_base > 0.0) {
    /* The stopping methods (stopping_law.h): no theorem bound. */
    dpbo_log_info("    no public utility bound (none found in Liu-Talwar or Papernot-Steinke for "
                  "the best of K noisy runs); each run's score noise is Lap(%.4g) (epsilon0 = "
                  "%.4g), quantiles (5/25/50/75/95%%): %.4g %.4g %.4g %.4g %.4g",
                  p->laplace_scale, p->epsilon_base, p->noise_quantiles[0], p->noise_quantiles[1],
                  p->noise_quantiles[2], p->noise_quantiles[3], p->noise_quantiles[4]);
    return;
  }
  dpbo_log_info("    bounds = %s%s: delta = %.3g (the value's delta shares add up to %.3g)",
                dpbo_bounds_name(p->bounds), p->bounds == config->bounds ? " (this run's)" : "",
                p->delta_lambda + p->delta_value, p->delta_value_union);
  if (p->has_lambda)
    dpbo_log_info("      Theorem 2: f(lambda*) - mu_T(lambda~) <= %.4g  w.p. >= %.4g   "
                  "[2 s sqrt(beta_T) = %.4g, q = %.4g, exponential mechanism = %.4g]",
                  p->lambda_bound, p->lambda_probability, p->lambda_term_beta, p->lambda_term_q,
                  p->lambda_term_mechanism);
  dpbo_log_info("      %s: |released value - %s| <= %.4g  w.p. >= %.4g   "
                "[noise %.4g, regret %.4g, Laplace %.4g (scale %.4g)]",
                dpbo_algorithm_ops_get(config->algorithm)->utility_bound,
                dpbo_algorithm_ops_get(config->algorithm)->utility_target, p->value_bound,
                p->value_probability, p->value_term_noise, p->value_term_regret,
                p->value_term_laplace, p->laplace_scale);
}

/* private_evaluations in its own terms: the noise on each evaluation and
 * what it resolves; every figure is public, so no data-holder section. */
static void utility_log_private_evaluations(const dpbo_config *config,
                                            const dpbo_utility_report *reports, int count) {
  dpbo_log_info(
      "PUBLIC figures of GP-UCB on privatized evaluations (its trace is the DP output, so "
      "every figure here is public; no GP assumption, so privacy.bounds does not "
      "apply): K = %lld Gaussian mechanisms of sensitivity %.4g (%s), delta = %.3g",
      (long long)config->evals.max_evaluations, config->evals.sensitivity,
      config->evals.sensitivity_proven ? "proven for the objective" : "stated by the user",
      config->privacy_delta);
  for (int e = 0; e < count; e++) {
    const dpbo_utility_public *p = &reports[e].pub;
    dpbo_log_info("  epsilon = %.4g: each evaluation's noise sigma = %.4g (discrete Gaussian; "
                  "quantiles 5/25/50/75/95%% about %.4g %.4g %.4g %.4g %.4g)",
                  p->epsilon, p->gaussian_sigma, p->noise_quantiles[0], p->noise_quantiles[1],
                  p->noise_quantiles[2], p->noise_quantiles[3], p->noise_quantiles[4]);
    dpbo_log_info("    a noisy v_t lies within %.4g of its gain  w.p. >= %.4g", p->value_bound,
                  p->value_probability);
    dpbo_log_info("    two gains %.4g apart are ordered wrongly by one noisy comparison w.p. <= "
                  "%.4g (sub-Gaussian bounds; smaller gaps: more often)",
                  p->resolution, p->tail);
  }
  dpbo_log_info("  lambda~ (%s) and v~ are post-processing of the noisy trace by the GP: no bound "
                "on their regret is claimed.%s",
                dpbo_final_choice_names[config->evals.final_choice],
                config->evals.final_choice == DPBO_FINAL_BEST_OBSERVED
                    ? " v~ = the largest of T noisy values is biased upward (the noise that "
                      "made it the largest)."
                    : "");
  dpbo_log_info("FOR THE DATA HOLDER: nothing beyond the above (no raw gain is kept anywhere).");
}

void dpbo_utility_log(const dpbo_config *config, const dpbo_utility_report *reports, int count) {
  if (dpbo_algorithm_ops_get(config->algorithm)->private_evaluations) {
    utility_log_private_evaluations(config, reports, count);
    return;
  }
  if (dpbo_algorithm_is_selection(config->algorithm))
    dpbo_log_info("PUBLIC figures (depend only on public settings; safe to publish; no GP, so "
                  "privacy.bounds does not apply):");
  else
    dpbo_log_info("PUBLIC figures (depend only on public settings; safe to publish), corrected "
                  "and paper bounds side by side:");
  for (int e = 0; e < count; e++) {
    const dpbo_utility_public *p = &reports[e].pub;
    if (p->epsilon_base > 0.0)
      dpbo_log_info("  epsilon = %.4g (epsilon0 = %.4g for each of the K runs):", p->epsilon,
                    p->epsilon_base);
    else
      dpbo_log_info("  epsilon = %.4g (lambda %.4g, value %.4g):", p->epsilon, p->epsilon_lambda,
                    p->epsilon_value);
    const int paper_first = config->bounds == DPBO_BOUNDS_PAPER;
    utility_log_public(config, paper_first ? &reports[e].pub_other : p);
    if (dpbo_algorithm_is_selection(config->algorithm)) continue; /* no bounds: once */
    utility_log_public(config, paper_first ? p : &reports[e].pub_other);
  }
  dpbo_log_info("FOR THE DATA HOLDER ONLY (computed from the sensitive run; never publish; "
                "written to the run file's /utility/data_holder):");
  for (int e = 0; e < count; e++) {
    const dpbo_utility_holder *h = &reports[e].holder;
    dpbo_log_info("  epsilon = %.4g:", reports[e].pub.epsilon);
    if (h->law_support > 0)
      dpbo_log_info(h->law_exact ? "    the best of K noisy runs: exact over Lambda (its %lld "
                                   "candidates all evaluated)"
                                 : "    the best of K noisy runs: estimate over the run's %lld "
                                   "evaluated candidates as a sample of Lambda",
                    (long long)h->law_support);
    if (h->has_lambda) {
      double median = h->regret_x[DPBO_UTILITY_CDF_POINTS - 1];
      for (int c = 0; c < DPBO_UTILITY_CDF_POINTS; c++)
        if (h->regret_cdf[c] >= 0.5) {
          median = h->regret_x[c];
          break;
        }
      if (dpbo_algorithm_is_selection(config->algorithm)) /* no GP: gains, not μ_T */
        dpbo_log_info("    lambda~: E[best evaluated gain - gain(lambda~)] = %.4g, P(the best) = "
                      "%.3g, P(regret <= %.4g) >= 0.5",
                      h->expected_regret_mean, h->probability_argmax, median);
      else
        dpbo_log_info(
            "    lambda~: E[max mu_T - mu_T(lambda~)] = %.4g, E[max_t v_t - mu_T(lambda~)] = "
            "%.4g, P(argmax) = %.3g, P(regret <= %.4g) >= 0.5",
            h->expected_regret_mean, h->expected_regret_observed, h->probability_argmax, median);
    }
    dpbo_log_info("    value~ error quantiles (5/25/50/75/95%%): %.4g %.4g %.4g %.4g %.4g; "
                  "P(clamped) = %.3g",
                  h->value_error_quantiles[0], h->value_error_quantiles[1],
                  h->value_error_quantiles[2], h->value_error_quantiles[3],
                  h->value_error_quantiles[4], h->probability_clamped);
  }
}
