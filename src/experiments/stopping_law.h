/* The law of the stopping methods' release (privacy.algorithm = liu_talwar |
 * papernot_steinke; run/selection.h), for dpbo utility (experiments/utility.h).
 *
 * The release. Each run of the base Q draws λ from Λ with probabilities w
 * (uniform, 1/n) and outputs (λ, S) with S = g(λ) + Z, Z ~ Lap(b), b = Δ/ε0.
 * Q runs K times, K independent of the runs and the data, and the release
 * is the λ of the highest S (the first on ties) and that S clamped to the
 * gain's range. K's law: Liu–Talwar Geometric(γ = 1/T) on {1, 2, ...}
 * (K ≡ 1 at T = 1), Papernot–Steinke the truncated negative binomial
 * D_{η,γ} of core/baseline.h (η = 0: the logarithmic law). Q(x) = E[x^K] is
 * K's probability generating function, u = γ + (1 − γ)(1 − x):
 *   fixed k:            Q(x) = x^k,                            Q'(x) = k x^{k−1}
 *   D_{η,γ}, η > 0:     Q(x) = γ^η (u^{−η} − 1)/(1 − γ^η),     Q'(x) = η (1 − γ) γ^η u^{−η−1}/(1 −
 * γ^η) D_{0,γ}:            Q(x) = log u / log γ,                  Q'(x) = (1 − γ)/(u log(1/γ)) (η =
 * 1 is the geometric law: Q(x) = γx/(1 − (1 − γ)x)). Q(0) = 0 (K >= 1: there is no "no output"
 * case) and Q'(1) = E[K].
 *
 * The law of the released candidate. One run's score S has the CDF
 * G(s) = Σ_i w_i F((s − g_i)/b) and the density Σ_i w_i p_i(s), F and f the
 * standard Laplace CDF and density, p_i(s) = f((s − g_i)/b)/b. Given K = k,
 * the k runs are i.i.d. and S is continuous, so the best is unique (ties have
 * probability 0, whatever the tie rule) and
 *   P(out = i | K = k) = k ∫ w_i p_i(s) G(s)^{k−1} ds
 * (k choices of the winning run; each other run scores below s). Averaged
 * over K, Σ_k P(K = k) k G^{k−1} = Q'(G), so
 *   P(out = i) = w_i ∫ p_i(s) Q'(G(s)) ds,     P(released score <= s) = Q(G(s))
 * (before clamping; clamping is monotone, so quantiles pass through it and
 * P(clamped) = Q(G(lo)) + 1 − Q(G(hi))). Σ_i P(out = i) = ∫ Q'(G) dG = Q(1)
 * − Q(0) = 1. The sampler's Laplace is a discrete Laplace on a grid of about
 * 2^−40 b (core/mechanism.c) and its gains are rounded to that grid: the law
 * above is the continuous limit, off by about 2^−40 relatively (ties too
 * have probability of that order). dpbo_run's cap (a K above 10^8 is
 * refused, nothing evaluated) has probability below 10^−9 and is ignored.
 *
 * Quadrature. Candidates of equal gain are pooled (d distinct gains v_1 <
 * ... < v_d, weights W_j). Below v_1 and above v_d, G is one exponential and
 * the integrals are closed:
 *   ∫_{−∞}^{v_1} p_j Q'(G) ds = e^{(v_1 − v_j)/b} Q(A)/(2A),            A = G(v_1),
 *   ∫_{v_d}^{∞}  p_j Q'(G) ds = e^{(v_j − v_d)/b} (1 − Q(1 − B))/(2B),   B = 1 − G(v_d).
 * Between consecutive gains the integrand is smooth: 8-point Gauss–Legendre
 * on pieces of width <= b, within 45 b of either end (farther, every p_j is
 * below e^{−45}/(2b) of its peak). Σ_j P_j = 1 to about 1e−12 (checked).
 *
 * Which Λ. The law needs the gains of all of Λ; the run has only those of
 * the K candidates it evaluated. When they cover Λ, the law is exact (w_i =
 * 1/n per candidate); otherwise it is an ESTIMATE over the run's N evaluated
 * candidates as a sample of Λ: the empirical law (w = 1/N per evaluation),
 * which is what the holder's figures then describe. The figures are the
 * law of a fresh release of this run's method on Λ, not conditional on the
 * K and the candidates this run drew.
 *
 * Public figures: the papers state privacy, not a utility bound for the best
 * of K noisy runs that dpbo could cite (none was found), so none is given;
 * only the base's Laplace scale b and its quantiles are public. */
#ifndef DPBO_STOPPING_LAW_H
#define DPBO_STOPPING_LAW_H

#include <stdint.h>

#include "run/run.h"
#include "run/selection.h"

/* The law of K, through its probability generating function. */
typedef enum {
  DPBO_RUNS_FIXED,      /* K ≡ k */
  DPBO_RUNS_TNB,        /* D_{η,γ}, η > 0 (η = 1: Geometric(γ)) */
  DPBO_RUNS_LOGARITHMIC /* D_{0,γ} */
} dpbo_runs_kind;

typedef struct dpbo_runs_law {
  dpbo_runs_kind kind;
  int64_t k;
  double eta, gamma;
} dpbo_runs_law;

/* K's law for a stopping method with its accounting (T = run.iterations). */
dpbo_status dpbo_stopping_runs_law(dpbo_algorithm algorithm, int T,
                                   const dpbo_selection_accounting *acc, dpbo_runs_law *out,
                                   dpbo_error *err);

/* Q(x) and Q'(x) at x = 1 − y; y is given as well for accuracy near x = 1. */
double dpbo_stopping_pgf(const dpbo_runs_law *law, double x, double y);
double dpbo_stopping_pgf_slope(const dpbo_runs_law *law, double x, double y);

/* The best-of-K release over d distinct sorted gains v[0..d) (ascending)
 * with weights w[0..d) (sum 1) and Laplace scale b: p[j] = P(the released
 * candidate's gain is v[j]). */
dpbo_status dpbo_stopping_law(const dpbo_runs_law *law, const double *v, const double *w, int64_t d,
                              double b, double *p, dpbo_error *err);

/* P(released score <= s) before clamping, Q(G(s)), and its level-quantile
 * (level in (0, 1)). */
double dpbo_stopping_cdf(const dpbo_runs_law *law, const double *v, const double *w, int64_t d,
                         double b, double s);
double dpbo_stopping_quantile(const dpbo_runs_law *law, const double *v, const double *w, int64_t d,
                              double b, double level);

/* The law's support from a run's trace (malloc'd v, w; d distinct gains,
 * ascending): each evaluation weighs 1/N, or, when the evaluations cover Λ
 * (exact = 1), each candidate 1/n, split among its repeats. */
dpbo_status dpbo_stopping_support(const dpbo_run *run, double **v, double **w, int64_t *d,
                                  int *exact, dpbo_error *err);

#endif
