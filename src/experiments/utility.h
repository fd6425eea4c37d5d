/* What privacy costs a run: `dpbo utility RUNFILE [--epsilon LIST]` (issue #6).
 *
 * For each total ε (split between λ̃ and the value as the run's [privacy]
 * section says) two kinds of figures:
 *
 * PUBLIC (they depend only on public settings: Λ, T, the prior, k1, δ, ε;
 * safe to publish). With a = log(1/tail):
 *  - Theorem 2 (λ̃, Algorithms 1 and 2; q = 0 for Algorithm 2), in units of v:
 *      f(λ*) − μ_T(λ̃) <= s(2√β_T + q) + (2Δ_λ/ε_λ)(log N + a)
 *    w.p. >= 1 − (δ + e^{−a}), β_T and q with the run's δ (ucb.delta, the
 *    value's δ share), Δ_λ = s(2√β_{T+1} + c) as released.
 *  - The released value:
 *      Algorithm 1, Theorem 4: |ṽ − f(λ*)| <= σ√(2 log(2T/δ)) + sΩ/T + a Δ_v/ε_v
 *        (Ω/T = √(C1 β_T γ_T/T); the paper writes the first term for σ = 1:
 *        it bounds max_t |α_t| with α_t ~ N(0, σ²)), w.p. >= 1 − (δ + e^{−a});
 *      Algorithm 2, its utility theorem: |f̃ − f(λ*)| <= Ω + a(Ω + s c)/ε_v,
 *        Ω = A e^{−2τ/(log 2)^{d/4}}, w.p. >= 1 − (δ + e^{−a});
 *      Algorithm 3: |f̃_L − f^BO| <= a Δ_f3/ε, w.p. >= 1 − e^{−a}.
 *    Clamping the released value to a range that holds the truth only
 *    shrinks the error, so the bounds hold for the clamped release too.
 *  - the quantiles of the Laplace noise itself (scale Δ_v/ε_v).
 *
 * FOR THE DATA HOLDER ONLY (computed from the sensitive run; never publish):
 *  - the exact distribution of λ̃ given μ_T (dpbo_mech_select_probabilities:
 *    the sampler's own rounding and rate), and from it the expected regret in
 *    posterior mean E[max_Λ μ_T − μ_T(λ̃)], the expected regret against the
 *    best observed gain E[max_t v_t − μ_T(λ̃)], P(λ̃ = argmax μ_T) and the
 *    curve P(max_Λ μ_T − μ_T(λ̃) <= x) on 101 points from 0 to the largest
 *    regret over Λ;
 *  - the error of the released value, clamp(x + Z) − x with x the value the
 *    run releases (max_t v_t) and Z ~ Lap(Δ_v/ε_v), at the quantile levels
 *    below, and the probability that the release is clamped.
 * The private-selection methods (run/selection.h): random_search's λ̃ is
 * the exponential mechanism over the T evaluated gains (exact); the
 * stopping methods (liu_talwar, papernot_steinke) release the best of K
 * noisy runs, whose law experiments/stopping_law.h derives (an
 * estimate over the run's evaluated candidates unless they cover Λ; no
 * public theorem bound). For them "μ_T" is the gain.
 * These are written into the run file (group /utility), which is itself
 * sensitive, and never into a release file. Computing them spends no budget:
 * nothing here is released. */
#ifndef DPBO_UTILITY_H
#define DPBO_UTILITY_H

#include <mpi.h>

#include "run/config.h"
#include "run/run.h"
#include "dpbo/error.h"
#include "dpbo/mechanism.h"
#include "dpbo/privacy.h"

#define DPBO_UTILITY_CDF_POINTS 101
#define DPBO_UTILITY_QUANTILES 5 /* levels 0.05, 0.25, 0.5, 0.75, 0.95 */
#define DPBO_UTILITY_MAX_EPSILONS 64

extern const double dpbo_utility_levels[DPBO_UTILITY_QUANTILES];

/* Figures that depend only on public settings (units of v). */
typedef struct dpbo_utility_public {
  dpbo_bounds bounds; /* which proofs the figures follow */
  double epsilon, epsilon_lambda, epsilon_value, delta_lambda, delta_value;
  double delta_value_union; /* what the value's δ shares really add up to */
  double tail, a;           /* e^{−a} and a */
  int has_lambda;
  double lambda_bound, lambda_probability;
  double lambda_term_beta, lambda_term_q, lambda_term_mechanism;
  double value_bound, value_probability;
  double value_term_noise, value_term_regret, value_term_laplace;
  double laplace_scale;
  double noise_quantiles[DPBO_UTILITY_QUANTILES];
  double epsilon_base; /* the stopping methods: ε0 of each run (else 0) */
  /* private_evaluations (else 0): σ of each evaluation's Gaussian noise for
   * K = max_evaluations mechanisms of sensitivity Δ at this ε, and the gap
   * W of two gains that one noisy comparison orders wrongly with
   * probability tail, Φ(−W/(σ√2)) = tail. */
  double gaussian_sigma, resolution;
} dpbo_utility_public;

/* Figures computed from the sensitive run: for the data holder only. */
typedef struct dpbo_utility_holder {
  int has_lambda;
  double max_mean, best_observed;  /* max_Λ μ_T, max_t v_t (units of v) */
  double expected_regret_mean;     /* E[max_Λ μ_T − μ_T(λ̃)] */
  double expected_regret_observed; /* E[max_t v_t − μ_T(λ̃)] */
  double probability_argmax;       /* P(λ̃ maximizes μ_T) */
  double regret_x[DPBO_UTILITY_CDF_POINTS], regret_cdf[DPBO_UTILITY_CDF_POINTS];
  double released_value; /* x: the value the release perturbs */
  double value_error_quantiles[DPBO_UTILITY_QUANTILES];
  double probability_clamped;
  /* The stopping methods: the λ̃ figures are over law_support candidates,
   * all of Λ (law_exact = 1) or the run's evaluations as a sample of Λ
   * (0); 0 for the other methods (their laws are exact). */
  int64_t law_support;
  int law_exact;
} dpbo_utility_holder;

typedef struct dpbo_utility_report {
  dpbo_utility_public pub;       /* under the run's [privacy] bounds */
  dpbo_utility_public pub_other; /* under the other bounds, side by side */
  dpbo_utility_holder holder;
} dpbo_utility_report;

/* μ_T over all of Λ in units of v (m0 + s μ), on every rank (collective;
 * malloc'd, N doubles). */
dpbo_status dpbo_utility_gather_mean(MPI_Comm comm, const dpbo_config *config, const dpbo_run *run,
                                     double **mean, dpbo_error *err);

/* The public figures for one total ε from the sensitivities (no data). */
void dpbo_utility_public_figures(const dpbo_config *config, const dpbo_sensitivity *sens,
                                 double epsilon, double tail, dpbo_utility_public *out);

/* The holder's λ̃ figures from a distribution p[0..n) over gains mean[0..n)
 * (units of v; best_observed must be set in out first). λ̃'s exact
 * distribution over the full μ_T vector for Δ_λ and ε_λ is
 * dpbo_mech_select_probabilities's (mechanism.h). */
dpbo_status dpbo_utility_law_figures(const double *mean, const double *p, int64_t n,
                                     dpbo_utility_holder *out, dpbo_error *err);

/* The p-quantile of Lap(b). */
double dpbo_utility_laplace_quantile(double b, double p);

/* The holder's value figures: clamp(x + Z) − x, Z ~ Lap(scale), clamping to
 * [lo, hi] when clamp is set. */
void dpbo_utility_value_figures(double x, double scale, int clamp, double lo, double hi,
                                dpbo_utility_holder *out);

/* What a utility report asks for: `count` total budgets ε and the tail
 * probability of its quantiles (--tail). */
typedef struct dpbo_utility_request {
  const double *epsilons;
  int count;
  double tail;
} dpbo_utility_request;

/* Everything for the request's total budgets, one report each
 * (collective: γ_T and μ_T are distributed). */
dpbo_status dpbo_utility_compute(MPI_Comm comm, const dpbo_config *config, const dpbo_run *run,
                                 const dpbo_utility_request *request, dpbo_utility_report *reports,
                                 dpbo_error *err);

/* Writes the reports into the run file as /utility (replacing an older
 * one; written under a temporary name and moved into place, so a failure
 * leaves the previous state). Serial: call on one rank. */
dpbo_status dpbo_utility_write(const char *runfile, const dpbo_utility_report *reports, int count,
                               dpbo_error *err);

/* Prints the reports, public and data-holder figures in separate, labelled
 * blocks (rank 0 prints). */
void dpbo_utility_log(const dpbo_config *config, const dpbo_utility_report *reports, int count);

#endif
