/* Empirical privacy audit (see include/dpbo/audit.h for the method and the
 * choice of neighbouring inputs). */
#include "experiments/audit.h"
#include "run/algorithm.h"
#include "experiments/audit_evals.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "run/driver.h"
#include "base/log.h"
#include "objectives/logreg.h"
#include "dpbo/noise.h"
#include "dpbo/accountant.h"
#include "run/release.h"
#include "core/mechanism_private.h"
#include "run/release_private.h"
#include "run/selection.h"

/* ------------------------------------------------------------------------ */
/* Clopper-Pearson bounds                                                   */

/* Continued fraction of the regularized incomplete beta function
 * (Abramowitz & Stegun 26.5.8; DLMF 8.17.22), evaluated by the modified
 * Lentz method. Converges quickly for x < (a + 1)/(a + b + 2). */
static double audit_beta_fraction(double a, double b, double x) {
  const double tiny = 1e-300;
  double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0);
  if (fabs(d) < tiny) d = tiny;
  d = 1.0 / d;
  double h = d;
  for (int m = 1; m <= 200000; m++) {
    double m2 = 2.0 * m;
    /* even step: d_2m = m (b - m) x / ((a + 2m - 1)(a + 2m)) */
    double num = m * (b - m) * x / ((a + m2 - 1.0) * (a + m2));
    d = 1.0 + num * d;
    if (fabs(d) < tiny) d = tiny;
    c = 1.0 + num / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    h *= d * c;
    /* odd step: d_2m+1 = -(a + m)(a + b + m) x / ((a + 2m)(a + 2m + 1)) */
    num = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1.0));
    d = 1.0 + num * d;
    if (fabs(d) < tiny) d = tiny;
    c = 1.0 + num / c;
    if (fabs(c) < tiny) c = tiny;
    d = 1.0 / d;
    double step = d * c;
    h *= step;
    if (fabs(step - 1.0) < 1e-15) break;
  }
  return h;
}

/* I_x(a, b), the regularized incomplete beta function (a, b > 0). The
 * binomial tail is P(X >= k | n, p) = I_p(k, n - k + 1). */
static double audit_beta_regularized(double a, double b, double x) {
  if (x <= 0.0) return 0.0;
  if (x >= 1.0) return 1.0;
  double log_front = a * log(x) + b * log1p(-x) - (lgamma(a) + lgamma(b) - lgamma(a + b));
  if (x < (a + 1.0) / (a + b + 2.0)) return exp(log_front) * audit_beta_fraction(a, b, x) / a;
  return 1.0 - exp(log_front) * audit_beta_fraction(b, a, 1.0 - x) / b;
}

/* Bisection to 2^-100 of [0, 1]; the bound returned is the conservative end
 * of the final bracket, so rounding never makes the interval narrower. */
enum { CP_BISECTIONS = 100 };

double dpbo_audit_cp_lower(int64_t k, int64_t n, double gamma) {
  if (k <= 0) return 0.0;
  /* The p with P(X >= k | p) = gamma; P(X >= k | p) increases with p. */
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < CP_BISECTIONS; i++) {
    double mid = 0.5 * (lo + hi);
    if (audit_beta_regularized((double)k, (double)(n - k + 1), mid) < gamma)
      lo = mid;
    else
      hi = mid;
  }
  return lo;
}

double dpbo_audit_cp_upper(int64_t k, int64_t n, double gamma) {
  if (k >= n) return 1.0;
  /* The p with P(X <= k | p) = I_(1-p)(n - k, k + 1) = gamma; decreasing in
   * p. Evaluated through 1 - p so the small tail keeps its precision. */
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < CP_BISECTIONS; i++) {
    double mid = 0.5 * (lo + hi);
    if (audit_beta_regularized((double)(n - k), (double)(k + 1), 1.0 - mid) > gamma)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

/* ------------------------------------------------------------------------ */
/* Histograms and the test on them (shared by both audits)                  */

const char *dpbo_audit_kind_name(dpbo_audit_kind kind) {
  switch (kind) {
  case DPBO_AUDIT_LAPLACE:
    return "laplace";
  case DPBO_AUDIT_EXPONENTIAL:
    return "exponential";
  case DPBO_AUDIT_PERMUTE_AND_FLIP:
    return "permute_and_flip";
  case DPBO_AUDIT_GAUSSIAN:
    return "gaussian";
  case DPBO_AUDIT_KIND_COUNT:
    break;
  }
  return "unknown";
}

/* Bins of a real-valued output: `count - 2` bins of the given width from
 * `first`, plus one open bin at each end. Fixed before any draw, so the
 * event family does not depend on the draws it is tested on. */
typedef struct audit_bins {
  double first, width;
  int count; /* including both open bins */
} audit_bins;

/* At most this many bins (the width grows instead), so the number of
 * events, and with it the Bonferroni cost, stays bounded. */
enum { AUDIT_MAX_BINS = 4096 };

static audit_bins audit_bins_make(double first, double span, double width) {
  audit_bins bins;
  double inner = ceil(span / width);
  if (!(inner >= 1.0)) inner = 1.0;
  if (inner > AUDIT_MAX_BINS - 2) {
    inner = AUDIT_MAX_BINS - 2;
    width = span / inner;
  }
  bins.first = first;
  bins.width = width;
  bins.count = (int)inner + 2;
  return bins;
}

static int audit_bin(const audit_bins *bins, double v) {
  if (v < bins->first) return 0;
  double j = floor((v - bins->first) / bins->width) + 1.0;
  return j >= bins->count - 1 ? bins->count - 1 : (int)j;
}

/* Describes bins [lo, hi] of the output called `what`. */
static void audit_bins_event(const audit_bins *bins, int lo, int hi, const char *what, char *buf,
                             size_t size) {
  double a = bins->first + (lo - 1) * bins->width, b = bins->first + hi * bins->width;
  if (lo == 0 && hi == bins->count - 1)
    snprintf(buf, size, "any %s", what);
  else if (lo == 0)
    snprintf(buf, size, "%s < %.6g", what, b);
  else if (hi == bins->count - 1)
    snprintf(buf, size, "%s >= %.6g", what, a);
  else
    snprintf(buf, size, "%.6g <= %s < %.6g", a, what, b);
}

/* The strongest event of a pair of histograms. */
typedef struct audit_bound {
  double epsilon;   /* the largest lower bound found, 0 if no event separates */
  int events;       /* events tested, each in both directions */
  int lo, hi;       /* the event attaining it: outputs in bins lo..hi (lo < 0: none) */
  int dir;          /* 0: P(E | D) / P(E | D'), 1: P(E | D') / P(E | D) */
  int64_t count[2]; /* occurrences of E on the numerator's input and on the other */
} audit_bound;

/* The histogram test of audit.h: total[side * nbins + j] counts the outputs
 * in bin j among `trials` draws on D (side 0) and D' (side 1). Events: every
 * single bin, and when there are more than two bins every prefix and every
 * suffix union (a prefix and the suffix after it are complements, both
 * kept: each direction of the ratio favours a different tail). Every
 * one-sided Clopper-Pearson bound is taken at level alpha/(4 events), so all
 * hold at once with probability >= 1 - alpha. For an (ε, δ) claim the bound
 * of an event is log((p_lower - δ)/p_upper): (ε, δ)-DP allows
 * P(E | D) <= e^ε P(E | D') + δ (δ = 0 for the ε-DP mechanisms). */
static dpbo_status audit_histogram_bound(const int64_t *total, int nbins, int64_t trials,
                                         double alpha, double delta, audit_bound *out,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  typedef struct {
    int lo, hi;
  } event;
  event *events = NULL;
  memset(out, 0, sizeof *out);
  out->lo = out->hi = -1;
  DPBO_ALLOC(events, 3 * (size_t)nbins, "audit events");
  int m = 0;
  for (int j = 0; j < nbins; j++)
    events[m++] = (event){j, j};
  if (nbins > 2) {
    for (int j = 1; j < nbins - 1; j++)
      events[m++] = (event){0, j};
    for (int j = 1; j < nbins - 1; j++)
      events[m++] = (event){j, nbins - 1};
  }
  const double gamma = alpha / (4.0 * m);
  out->events = m;
  for (int e = 0; e < m; e++) {
    int64_t c[2] = {0, 0};
    for (int side = 0; side < 2; side++)
      for (int j = events[e].lo; j <= events[e].hi; j++)
        c[side] += total[side * nbins + j];
    for (int dir = 0; dir < 2; dir++) {
      double p_lower = dpbo_audit_cp_lower(c[dir], trials, gamma) - delta;
      double p_upper = dpbo_audit_cp_upper(c[1 - dir], trials, gamma);
      if (!(p_lower > 0.0)) continue;
      double bound = log(p_lower / p_upper);
      if (bound > out->epsilon) {
        out->epsilon = bound;
        out->lo = events[e].lo;
        out->hi = events[e].hi;
        out->dir = dir;
        out->count[0] = c[dir];
        out->count[1] = c[1 - dir];
      }
    }
  }
done:
  free(events);
  return status;
}

/* "P(event | D) / P(same | D'): a vs b of n" for the strongest event. */
static void audit_witness(const audit_bound *bound, const char *event, int64_t trials, char *buf,
                          size_t size) {
  if (bound->lo < 0) {
    snprintf(buf, size, "no event separates the inputs");
    return;
  }
  snprintf(buf, size, "P(%s | %s) / P(same | %s): %lld vs %lld of %lld", event,
           bound->dir ? "D'" : "D", bound->dir ? "D" : "D'", (long long)bound->count[0],
           (long long)bound->count[1], (long long)trials);
}

/* ------------------------------------------------------------------------ */
/* Mechanism audit                                                          */

/* Laplace histogram: bins of width b/2 (b = Δ/ε, the claimed scale) from
 * -6b to Δ + 6b, plus one open bin at each end. */
static audit_bins audit_laplace_bins_make(double epsilon, double sensitivity) {
  double b = sensitivity / epsilon;
  return audit_bins_make(-6.0 * b, sensitivity + 12.0 * b, 0.5 * b);
}

/* Gaussian histogram: bins of width σ/4 (σ as calibrated, before the broken
 * variant's factor) from -6σ to Δ + 6σ, plus one open bin at each end: about
 * 50 bins and 150 events for Δ <= σ. The optimal test of N(0, σ²) against
 * N(Δ, σ²) at δ is a threshold "release >= c" with P(c | D) about δ e^-ε
 * apart from P(c | D'); at the default δ = 1e-3, ε = 1 (σ = 2.90 Δ) that
 * threshold is c ≈ 2.7σ, inside the bins, and P(release >= c | D') ≈ 5e-3:
 * thousands of hits at 10^6 trials. The broken variant (σ/2) separates at
 * c ≈ 1σ to 1.6σ with event probabilities of 2-8 %, which even 10^5 trials
 * resolve (expected bound about 1.4 > 1). A smaller δ moves the optimal
 * event into rarer tails and needs more trials for the same resolution. */
static audit_bins audit_gaussian_bins_make(double sigma, double sensitivity) {
  return audit_bins_make(-6.0 * sigma, sensitivity + 12.0 * sigma, 0.25 * sigma);
}

/* The selection audit's neighbouring score vectors (audit.h): N candidates,
 * u = (0, ..., 0) and u' = (Δ, -Δ, ..., -Δ). The raised candidate 0 has
 * P(0 | u) = 1/N and, for the exponential mechanism at rate ε/(2Δ),
 * P(0 | u') = e^ε / (e^ε + r), r = N - 1, so its privacy loss is
 *
 *     L(r) = log( e^ε (1 + r) / (e^ε + r) ),   increasing in r, -> ε.
 *
 * L(r) >= f ε  <=>  r >= (e^(f ε) - 1) / (1 - e^(-(1 - f) ε)); with
 * f = 0.965 and ε = 1: r >= 1.6248 / 0.034395 = 47.24, so N = 49 and
 * L = log(49 e / (e + 48)) = 0.96553. The target f trades the loss against
 * the rarity of the event (P(0 | u) = 1/N): at the default 10^6 trials
 * the expected counts are 53,596 (on u') and 20,408 (on u); the one-sided
 * Clopper-Pearson bounds at γ = α/8 = 1.25e-4 (z = 3.662) are
 * p'_lower = 0.05276 and p_upper = 0.02093 (scipy.stats.beta.ppf), so the
 * audited bound is log(0.05276 / 0.02093) = 0.9248 >= 0.9 ε, and its
 * standard deviation over seeds, sqrt((1-p)/(n p) + (1-p')/(n p')) =
 * 0.0081, puts 0.9 three standard deviations below it. At 4·10^5 trials
 * the expected bound is 0.901, at 5·10^5 0.908: hence the default of 10^6.
 * With --broken (rate doubled) the same pair loses
 * log(49 e^2 / (e^2 + 48)) = 1.877.
 *
 * Permute-and-flip needs no crowd: with N = 2, u = (0, 0) and u' = (Δ, -Δ),
 * the lowered candidate 1 is chosen with probability 1/2 on u and, on u',
 * only if it is proposed first (1/2) and then accepted (e^(-ε)): the ratio
 * is exactly e^ε (McKenna & Sheldon 2020 show ε-DP, so this pair is tight),
 * with event probabilities 0.5 and 0.18 that the trials resolve well. */
/* Every draw rounds all N scores, so N is capped to keep an audit at large
 * ε within seconds per 10^6 trials. */
enum { AUDIT_MAX_CANDIDATES = 256 };
#define AUDIT_EM_LOSS_TARGET 0.965

static int64_t audit_select_candidates(dpbo_audit_kind kind, double epsilon) {
  if (kind == DPBO_AUDIT_LAPLACE || kind == DPBO_AUDIT_GAUSSIAN) return 0;
  if (kind != DPBO_AUDIT_EXPONENTIAL) return 2;
  const double f = AUDIT_EM_LOSS_TARGET;
  double r = ceil(expm1(f * epsilon) / -expm1(-(1.0 - f) * epsilon));
  /* Above ε ≈ 3.55 the crowd would exceed the cap; the pair then falls
   * short of f ε (0.68 ε at ε = 8), and the reported pair loss says by how
   * much. Such an ε is hard to audit anyway: P(0 | u) = 1/N is tiny. */
  if (!(r < AUDIT_MAX_CANDIDATES - 1)) r = AUDIT_MAX_CANDIDATES - 1;
  return (int64_t)r + 1;
}

/* Exact privacy loss of the audited pair for a mechanism whose real ε is
 * `true_epsilon` (the claimed ε divided by the noise scale factor), up to
 * the samplers' grid rounding (a relative 2^-20). */
static double audit_pair_loss(dpbo_audit_kind kind, double true_epsilon, int64_t candidates) {
  if (kind != DPBO_AUDIT_EXPONENTIAL) return true_epsilon;
  const double r = (double)(candidates - 1);
  return true_epsilon + log1p(r) - log(exp(true_epsilon) + r);
}

/* Draws `trials` outputs on D (hist[0..bins)) and on D' (hist[bins..2 bins))
 * with this rank's noise. Selection outputs fall in two bins: the raised
 * candidate 0 and the rest. */
static dpbo_status audit_draw(dpbo_audit_kind kind, double epsilon, double sensitivity,
                              double sigma, double factor, int64_t trials, dpbo_noise *noise,
                              const audit_bins *bins, int nbins, int64_t *hist, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *u = NULL, *u_prime = NULL;
  const int64_t n = audit_select_candidates(kind, epsilon);
  const dpbo_select_kind sk =
      kind == DPBO_AUDIT_EXPONENTIAL ? DPBO_SELECT_EXPONENTIAL : DPBO_SELECT_PERMUTE_AND_FLIP;
  if (n > 0) {
    DPBO_ALLOC(u, n, "audit scores");
    DPBO_ALLOC(u_prime, n, "audit scores");
    for (int64_t i = 0; i < n; i++) {
      u[i] = 0.0;
      u_prime[i] = i == 0 ? sensitivity : -sensitivity;
    }
  }
  for (int64_t i = 0; i < trials; i++) {
    for (int side = 0; side < 2; side++) {
      int bin;
      if (kind == DPBO_AUDIT_LAPLACE) {
        dpbo_laplace_release rel;
        DPBO_TRY(dpbo__mech_laplace_scaled(noise, side ? sensitivity : 0.0, sensitivity, epsilon,
                                           0.0, 0.0, factor, &rel, err));
        bin = audit_bin(bins, rel.value);
      } else if (kind == DPBO_AUDIT_GAUSSIAN) {
        dpbo_gaussian_release rel;
        DPBO_TRY(dpbo__mech_gaussian_scaled(noise, side ? sensitivity : 0.0, sensitivity, sigma,
                                            factor, &rel, err));
        bin = audit_bin(bins, rel.value);
      } else {
        dpbo_select_release rel;
        DPBO_TRY(dpbo__mech_select_scaled(MPI_COMM_SELF, 0, noise, sk, side ? u_prime : u, 0, n, n,
                                          sensitivity, epsilon, factor, &rel, err));
        bin = rel.index == 0 ? 0 : 1;
      }
      hist[side * nbins + bin]++;
    }
  }
done:
  free(u);
  free(u_prime);
  return status;
}

/* The Gaussian pair's ε at δ: x = 0 and x' = Δ land on grid points
 * round(Δ/g) steps apart, and the draw uses s = ceil(σ factor/g) steps of
 * noise, so μ = round(Δ/g)/s; ε(δ) of μ-GDP (the continuous Gaussian; see
 * audit.h for why that is the discrete law's value to far below the
 * resolution). */
static dpbo_status audit_gaussian_pair_loss(double sensitivity, double sigma, double factor,
                                            double delta, double *loss, dpbo_error *err) {
  double g = dpbo_mech_gaussian_granularity(sensitivity, sigma);
  double mu = round(sensitivity / g) / ceil(sigma / g * factor);
  return dpbo_accountant_gdp_epsilon(mu, delta, loss, err);
}

dpbo_status dpbo_audit_mechanism(MPI_Comm comm, dpbo_audit_kind kind, double epsilon,
                                 double sensitivity, int64_t trials, uint64_t seed, double alpha,
                                 double noise_scale_factor, dpbo_audit_result *result,
                                 dpbo_error *err) {
  return dpbo_audit_mechanism_delta(comm, kind, epsilon, DPBO_AUDIT_GAUSSIAN_DELTA, sensitivity,
                                    trials, seed, alpha, noise_scale_factor, result, err);
}

dpbo_status dpbo_audit_mechanism_delta(MPI_Comm comm, dpbo_audit_kind kind, double epsilon,
                                       double delta, double sensitivity, int64_t trials,
                                       uint64_t seed, double alpha, double noise_scale_factor,
                                       dpbo_audit_result *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int64_t *hist = NULL, *total = NULL;
  int rank, size;
  memset(result, 0, sizeof *result);
  if (kind < 0 || kind >= DPBO_AUDIT_KIND_COUNT)
    DPBO_RAISE(DPBO_ERR_ARG, "audit: unknown mechanism %d", (int)kind);
  if (!(isfinite(epsilon) && epsilon > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "audit: epsilon must be positive and finite, got %g", epsilon);
  if (!(isfinite(sensitivity) && sensitivity > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "audit: sensitivity must be positive and finite, got %g", sensitivity);
  if (trials < 1)
    DPBO_RAISE(DPBO_ERR_ARG, "audit: trials must be positive, got %lld", (long long)trials);
  if (kind == DPBO_AUDIT_LAPLACE && epsilon > 1000.0)
    DPBO_RAISE(DPBO_ERR_ARG,
               "audit: the Laplace histogram has 2 epsilon + 26 bins; epsilon "
               "%g is above the supported 1000",
               epsilon);
  if (!(alpha > 0.0 && alpha < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "audit: alpha must be in (0, 1), got %g", alpha);
  if (!(isfinite(noise_scale_factor) && noise_scale_factor > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "audit: noise scale factor must be positive, got %g",
               noise_scale_factor);
  if (kind == DPBO_AUDIT_GAUSSIAN && !(delta > 0.0 && delta < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "audit: delta must be in (0, 1), got %g", delta);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));

  /* The Gaussian claim: σ from the accountant for one (ε, δ) release. */
  double sigma = 0.0, delta_claim = 0.0;
  if (kind == DPBO_AUDIT_GAUSSIAN) {
    DPBO_TRY(dpbo_accountant_gaussian_sigma(1, sensitivity, epsilon, delta, &sigma, err));
    delta_claim = delta;
  }
  const int histogram = kind == DPBO_AUDIT_LAPLACE || kind == DPBO_AUDIT_GAUSSIAN;
  audit_bins bins = kind == DPBO_AUDIT_GAUSSIAN ? audit_gaussian_bins_make(sigma, sensitivity)
                                                : audit_laplace_bins_make(epsilon, sensitivity);
  const int nbins = histogram ? bins.count : 2;
  DPBO_ALLOC(hist, 2 * nbins, "audit histogram");
  DPBO_ALLOC(total, 2 * nbins, "audit histogram");

  /* Trials split over the ranks, each with its own stream of the seed. */
  int64_t mine = trials / size + (rank < trials % size ? 1 : 0);
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, seed, (uint64_t)rank);
  dpbo_status local = audit_draw(kind, epsilon, sensitivity, sigma, noise_scale_factor, mine,
                                 &noise, &bins, nbins, hist, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Allreduce(hist, total, 2 * nbins, MPI_INT64_T, MPI_SUM, comm));

  audit_bound bound;
  DPBO_TRY(audit_histogram_bound(total, nbins, trials, alpha, delta_claim, &bound, err));
  char name[96] = "";
  if (bound.lo >= 0 && histogram)
    audit_bins_event(&bins, bound.lo, bound.hi, "release", name, sizeof name);
  else if (bound.lo >= 0)
    snprintf(name, sizeof name, "%s candidate", bound.lo == 0 ? "raised" : "a lowered");
  audit_witness(&bound, name, trials, result->witness, sizeof result->witness);

  result->kind = kind;
  result->epsilon_claimed = epsilon;
  result->epsilon_lower = bound.epsilon;
  result->candidates = audit_select_candidates(kind, epsilon);
  if (kind == DPBO_AUDIT_GAUSSIAN)
    DPBO_TRY(audit_gaussian_pair_loss(sensitivity, sigma, noise_scale_factor, delta,
                                      &result->pair_loss, err));
  else
    result->pair_loss = audit_pair_loss(kind, epsilon / noise_scale_factor, result->candidates);
  result->delta_claimed = delta_claim;
  result->sigma = sigma;
  result->sensitivity = sensitivity;
  result->alpha = alpha;
  result->noise_scale_factor = noise_scale_factor;
  result->trials = trials;
  result->events = bound.events;
  result->violated = bound.epsilon > epsilon;
done:
  free(hist);
  free(total);
  return status;
}

/* ------------------------------------------------------------------------ */
/* Whole-pipeline audit                                                     */

/* What one release gives the audit. */
typedef struct pipeline_draw {
  double best;        /* the non-private value the release perturbs */
  double value;       /* ṽ */
  double value_scale; /* its Laplace scale t·g */
  double value_grid;  /* its grid g */
  double value_sensitivity, epsilon_value;
  int64_t index;          /* λ̃'s global index, -1 if not released */
  double eta, score_grid; /* λ̃'s exact rate per grid step and score grid */
  double lambda_sensitivity, epsilon_lambda;
} pipeline_draw;

/* The tuning run of config on MPI_COMM_SELF, complete or an error. */
static dpbo_status audit_pipeline_run(const dpbo_config *config, dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_TRY(dpbo_driver_run(MPI_COMM_SELF, config, NULL, run, err));
  if (run->outcome != DPBO_OK)
    DPBO_RAISE(run->outcome, "the tuning run failed: %s", run->outcome_message);
done:
  return status;
}

/* The private-selection methods (run/selection.h): their evaluations are
 * deterministic, so the audit evaluates every candidate of Λ once on the
 * side's validation set, as a run whose trace is the whole table (step i:
 * candidate i), and each release is then a whole draw: the candidates of
 * the run seed, a fresh secret K (the stopping methods), and Q's noise. */
static dpbo_status audit_pipeline_table(const dpbo_config *config, dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_space *space = NULL;
  dpbo_objective objective = {NULL, NULL};
  int64_t *index = NULL;
  double *gain = NULL;
  DPBO_TRY(dpbo_run_space(config, &space, err));
  const int64_t n = dpbo_space_size(space);
  const int d = dpbo_space_dims(space);
  if (n > 100000)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: the pipeline audit of a private-selection method evaluates all of Lambda; "
               "%lld candidates are too many (at most 100000)",
               config->path, (long long)n);
  const char *names[DPBO_MAX_DIM];
  for (int i = 0; i < d; i++)
    names[i] = dpbo_space_dim(space, i)->name;
  DPBO_ALLOC(index, n, "the table");
  DPBO_ALLOC(gain, n, "the table");
  DPBO_TRY(dpbo_logreg_objective_create(&config->logreg, &objective, err));
  for (int64_t i = 0; i < n; i++) {
    double u[DPBO_MAX_DIM], v[DPBO_MAX_DIM];
    DPBO_TRY(dpbo_space_unit(space, i, u, err));
    dpbo_space_to_values(space, u, v);
    index[i] = i;
    DPBO_TRY(dpbo_objective_evaluate(&objective, d, names, v, &gain[i], err));
  }
  dpbo_config table = *config;
  table.algorithm = DPBO_ALGORITHM_RANDOM_SEARCH; /* a trace of given candidates, no GP */
  table.iterations = (int)n;
  DPBO_TRY(dpbo_run_replay(MPI_COMM_SELF, &table, (int)n, index, gain, run, err));
done:
  dpbo_objective_destroy(&objective);
  dpbo_space_destroy(space);
  free(index);
  free(gain);
  return status;
}

/* Run k of Q in the audit: the k-th of the release's candidates and its
 * gain from the side's table. */
typedef struct audit_draws {
  const dpbo_run *table;
  const int64_t *candidates;
} audit_draws;

static dpbo_status audit_selection_next(void *context, int64_t k, int64_t *index, double *gain,
                                        dpbo_error *err) {
  audit_draws *draws = context;
  (void)err;
  *index = draws->candidates[k];
  *gain = draws->table->trace[*index].gain;
  return DPBO_OK;
}

/* One whole release of a private-selection method on one side. */
static dpbo_status audit_selection_release(const dpbo_config *config, const dpbo_run *table,
                                           dpbo_noise *noise,
                                           const dpbo_audit_pipeline_options *options,
                                           const dpbo_selection_accounting *accounting,
                                           pipeline_draw *draw, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *gains = NULL;
  int64_t *candidates = NULL;
  double sens, lo, hi;
  const dpbo_selection_accounting acc = *accounting;
  dpbo_selection_pick pick;
  audit_draws draws = {table, NULL};
  const int T = config->iterations;
  DPBO_TRY(dpbo_selection_gain_range(config, &sens, &lo, &hi, err));
  sens *= options->sensitivity_factor;
  memset(draw, 0, sizeof *draw);
  /* A fresh secret K (the stopping methods) and fresh candidates per
   * release, drawn as every `dpbo run` draws them: both are part of the
   * mechanism. */
  const int stopping = dpbo_algorithm_ops_get(config->algorithm)->stopping;
  const int64_t K = stopping ? dpbo_selection_draw_runs(noise, config->algorithm, T, &acc) : T;
  if (K > 100000000) DPBO_RAISE(DPBO_ERR_NUMERIC, "the number of runs drawn exceeds 1e8");
  DPBO_ALLOC(candidates, K, "the candidates");
  DPBO_TRY(dpbo_selection_candidates(MPI_COMM_SELF, config, (int)K, table->steps, candidates, err));
  draws.candidates = candidates;
  if (!stopping) { /* random search */
    int64_t *set = NULL;
    DPBO_ALLOC(gains, T, "the gains");
    DPBO_ALLOC(set, T, "the candidates");
    draw->best = -INFINITY;
    for (int t = 0; t < T; t++) {
      DPBO_TRY(audit_selection_next(&draws, t, &set[t], &gains[t], err));
      draw->best = fmax(draw->best, gains[t]);
    }
    status = dpbo_selection_random_search(noise, config->selection, gains, T, sens,
                                          acc.epsilon_select, acc.epsilon_value, lo, hi,
                                          options->noise_scale_factor, &pick, err);
    pick.index = status == DPBO_OK ? set[pick.position] : -1;
    free(set);
    if (status != DPBO_OK) goto done;
    draw->epsilon_value = acc.epsilon_value;
    draw->epsilon_lambda = acc.epsilon_select;
    draw->eta = pick.select.eta_num / pick.select.eta_den;
    draw->score_grid = pick.select.granularity;
  } else {
    DPBO_TRY(dpbo_selection_stopping(audit_selection_next, &draws, noise, sens, acc.epsilon_base, K,
                                     T, lo, hi, options->noise_scale_factor, &pick, err));
    draw->best = -INFINITY;
    for (int i = 0; i < table->steps; i++)
      draw->best = fmax(draw->best, table->trace[i].gain);
    /* One mechanism over the pair: each part claims the whole ε. */
    draw->epsilon_value = draw->epsilon_lambda = acc.epsilon_accounted;
    draw->eta = 0.0; /* no selection rate: the pair's loss is not computed */
    draw->score_grid = 1.0;
  }
  draw->value = pick.released;
  draw->value_scale = pick.value.scale;
  draw->value_grid = pick.value.granularity;
  draw->value_sensitivity = draw->lambda_sensitivity = sens;
  draw->index = pick.index;
done:
  free(gains);
  free(candidates);
  return status;
}

/* One release of a finished run on MPI_COMM_SELF, through the release code
 * every `dpbo run` uses (release.c), with the given noise. */
static dpbo_status audit_pipeline_release(const dpbo_config *config, const dpbo_run *run,
                                          dpbo_noise *noise,
                                          const dpbo_audit_pipeline_options *options,
                                          const dpbo_selection_accounting *accounting,
                                          pipeline_draw *draw, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_release release;
  if (dpbo_algorithm_is_selection(config->algorithm))
    return audit_selection_release(config, run, noise, options, accounting, draw, err);
  DPBO_TRY(dpbo__release_draw_scaled(MPI_COMM_SELF, config, run, noise, options->sensitivity_factor,
                                     options->noise_scale_factor, &release, err));
  memset(draw, 0, sizeof *draw);
  draw->best = dpbo__release_best_value(config, run);
  draw->value = release.value.value;
  draw->value_scale = release.value.scale;
  draw->value_grid = release.value.granularity;
  draw->value_sensitivity = release.sens.value_sensitivity;
  draw->epsilon_value = release.epsilon_value;
  draw->index = release.has_lambda ? release.select.index : -1;
  if (release.has_lambda) {
    draw->eta = release.select.eta_num / release.select.eta_den;
    draw->score_grid = release.select.granularity;
    draw->lambda_sensitivity = release.sens.lambda_sensitivity;
    draw->epsilon_lambda = release.epsilon_lambda;
  }
done:
  return status;
}

/* What rank 0 learns before the releases and every rank needs. */
typedef struct pipeline_pilot {
  int64_t validation_rows, pool_rows, j, k;
  double lambda, gain_change;
  int records_differ;
} pipeline_pilot;

/* Stream of the random swap choice. */
#define AUDIT_SWAP_STREAM UINT64_MAX

/* The neighbour's record swap (see audit.h), chosen over the λ_t the run
 * on D evaluated (trace[0..steps), first coordinate: the logreg objective
 * has the one dimension lambda). */
static dpbo_status audit_pipeline_choose_swap(const dpbo_config *config,
                                              const dpbo_audit_pipeline_options *options,
                                              const dpbo_run *run, pipeline_pilot *pilot,
                                              dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *vl = NULL, *pl = NULL;
  int64_t m = 0, pool = 0;
  int chosen = 0;
  for (int t = 0; t < run->steps; t++) {
    const double lambda = run->trace[t].value[0];
    int seen = 0; /* λ_t evaluated before: the same losses */
    for (int s = 0; s < t && !seen; s++)
      seen = run->trace[s].value[0] == lambda;
    if (seen || (options->swap == DPBO_AUDIT_SWAP_RANDOM && t > 0)) continue;
    free(vl);
    free(pl);
    vl = pl = NULL;
    DPBO_TRY(dpbo_logreg_record_losses(&config->logreg, lambda, &vl, &m, &pl, &pool, err));
    if (pool < 1)
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "%s: every row is in the training or the validation split, so there is no "
                 "record to swap in: lower objective.train_rows or objective.validation_rows",
                 config->path);
    int64_t j = 0, k = 0;
    if (options->swap == DPBO_AUDIT_SWAP_RANDOM) {
      /* Drawn once, at λ_1, where its gain change is reported. */
      dpbo_rng rng;
      dpbo_rng_seed(&rng, options->seed, AUDIT_SWAP_STREAM);
      j = (int64_t)dpbo_rng_below64(&rng, (uint64_t)m);
      k = (int64_t)dpbo_rng_below64(&rng, (uint64_t)pool);
    } else {
      /* The change (g_j - g_k)/m is extreme at an extreme of each list: the
       * best-fitted validation record out and the worst-fitted pool record
       * in, or the reverse. */
      int64_t vmin = 0, vmax = 0, pmin = 0, pmax = 0;
      for (int64_t i = 1; i < m; i++) {
        if (vl[i] < vl[vmin]) vmin = i;
        if (vl[i] > vl[vmax]) vmax = i;
      }
      for (int64_t i = 1; i < pool; i++) {
        if (pl[i] < pl[pmin]) pmin = i;
        if (pl[i] > pl[pmax]) pmax = i;
      }
      if (pl[pmax] - vl[vmin] >= vl[vmax] - pl[pmin]) {
        j = vmin;
        k = pmax;
      } else {
        j = vmax;
        k = pmin;
      }
    }
    /* The swap that moves the gains the most at any evaluated λ (the
     * largest |f_V'(λ_t) - f_V(λ_t)|, which bounds the change of max_t v_t
     * and drives the change of μ_T). */
    const double change = (vl[j] - pl[k]) / (double)m;
    if (!chosen || fabs(change) > fabs(pilot->gain_change)) {
      chosen = 1;
      pilot->j = j;
      pilot->k = k;
      pilot->lambda = lambda;
      pilot->gain_change = change;
    }
  }
  pilot->validation_rows = m;
  pilot->pool_rows = pool;
done:
  free(vl);
  free(pl);
  return status;
}

/* Number of rows in which the validation sets of two logreg configs differ
 * (as the objective holds them, scaled), checked rather than assumed. */
static dpbo_status audit_pipeline_count_differences(const dpbo_config *a, const dpbo_config *b,
                                                    int *differ, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_objective oa = {NULL, NULL}, ob = {NULL, NULL};
  const dpbo_dataset *va, *vb;
  DPBO_TRY(dpbo_logreg_objective_create(&a->logreg, &oa, err));
  DPBO_TRY(dpbo_logreg_objective_create(&b->logreg, &ob, err));
  DPBO_TRY(dpbo_logreg_scaled_data(&oa, NULL, &va, err));
  DPBO_TRY(dpbo_logreg_scaled_data(&ob, NULL, &vb, err));
  if (va->n != vb->n || va->d != vb->d)
    DPBO_RAISE(DPBO_ERR_DATA, "the neighbouring validation sets have different shapes");
  *differ = 0;
  const size_t d = (size_t)va->d;
  for (int64_t i = 0; i < va->n; i++)
    *differ += va->y[i] != vb->y[i] ||
               memcmp(va->x + (size_t)i * d, vb->x + (size_t)i * d, d * sizeof *va->x) != 0;
done:
  dpbo_objective_destroy(&oa);
  dpbo_objective_destroy(&ob);
  return status;
}

/* Rank 0, from its run on D: the swap, and a check that V' differs from V
 * in the one chosen record. */
static dpbo_status audit_pipeline_pilot_run(dpbo_config *cfg,
                                            const dpbo_audit_pipeline_options *options,
                                            const dpbo_run *run_d, pipeline_pilot *pilot,
                                            dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(pilot, 0, sizeof *pilot);
  DPBO_TRY(audit_pipeline_choose_swap(&cfg[0], options, run_d, pilot, err));
  cfg[1].logreg.swap_validation_row = pilot->j;
  cfg[1].logreg.swap_with_row = pilot->k;
  DPBO_TRY(audit_pipeline_count_differences(&cfg[0], &cfg[1], &pilot->records_differ, err));
  if (pilot->records_differ > 1)
    DPBO_RAISE(DPBO_ERR_DATA,
               "the neighbouring validation set differs in %d records, not one: the record "
               "swap is broken",
               pilot->records_differ);
done:
  return status;
}

/* This rank's share of the releases: draws[2 i + side] for i < count, from
 * the operating system's CSPRNG (the noise every published release uses). */
static dpbo_status audit_pipeline_releases(const dpbo_config *cfg, const dpbo_run *run,
                                           const dpbo_audit_pipeline_options *options,
                                           int64_t count, pipeline_draw *draws, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_noise noise;
  dpbo_noise_init_os(&noise);
  /* A selection method's accounting (the same on both sides), once. */
  dpbo_selection_accounting acc;
  memset(&acc, 0, sizeof acc);
  if (dpbo_algorithm_is_selection(cfg[0].algorithm))
    DPBO_TRY(dpbo_selection_account(cfg[0].algorithm, cfg[0].privacy_epsilon, cfg[0].privacy_delta,
                                    cfg[0].privacy_split, cfg[0].iterations, cfg[0].ps_eta, &acc,
                                    err));
  for (int64_t i = 0; i < count; i++)
    for (int side = 0; side < 2; side++) {
      status = audit_pipeline_release(&cfg[side], &run[side], &noise, options, &acc,
                                      &draws[2 * i + side], err);
      if (status != DPBO_OK) {
        dpbo_error_prefix(err, "release %lld on %s", (long long)i, side ? "D'" : "D");
        goto done;
      }
    }
done:
  return status;
}

/* private_evaluations: every trial is a whole privatized GP-UCB run on D
 * or D' (audit_evals.h); its statistic Z goes where a release's value goes. */
static dpbo_status audit_pipeline_evals(const dpbo_config *cfg,
                                        const dpbo_audit_pipeline_options *options, int64_t count,
                                        pipeline_draw *draws, dpbo_audit_evals **evals,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_noise noise;
  dpbo_noise_init_os(&noise);
  DPBO_TRY(dpbo_audit_evals_create(cfg, options->sensitivity_factor, options->noise_scale_factor,
                                   evals, err));
  for (int64_t i = 0; i < count; i++)
    for (int side = 0; side < 2; side++) {
      pipeline_draw *d = &draws[2 * i + side];
      memset(d, 0, sizeof *d);
      d->index = -1;
      DPBO_TRY(dpbo_audit_evals_trial(*evals, side, &noise, &d->value, err));
      d->best = dpbo_audit_evals_best(*evals, side); /* the same on every rank */
      d->value_scale = dpbo_audit_evals_sigma(*evals);
      d->value_sensitivity = dpbo_audit_evals_sensitivity(*evals);
      d->epsilon_value = cfg[side].privacy_epsilon;
    }
  DPBO_TRY(dpbo_noise_check(&noise, err));
done:
  return status;
}

/* One pipeline audit as it goes: the two tuning runs, the neighbour chosen,
 * this rank's releases, and the releases' common parameters. */
typedef struct pipeline_state {
  const dpbo_config *config;
  const dpbo_audit_pipeline_options *options;
  const dpbo_algorithm_ops *ops;
  int rank, size;
  dpbo_config *cfg;        /* cfg[0] = D, cfg[1] = D' (its swap set from the pilot) */
  dpbo_run run[2];         /* the tuning runs on D and D' */
  pipeline_pilot pilot;    /* the neighbour */
  pipeline_draw *draws;    /* this rank's releases, D and D' alternating */
  int64_t count;           /* releases of this rank on each side */
  dpbo_audit_evals *evals; /* private_evaluations: the whole run is the mechanism */
  int64_t n;               /* |Λ| */
} pipeline_state;

/* The ranges reduced over every release on every rank (audit_pipeline_ranges). */
enum {
  PIPELINE_BEST_D,
  PIPELINE_BEST_D1,
  PIPELINE_SCALE,
  PIPELINE_GRID,
  PIPELINE_SENS,
  PIPELINE_EPS,
  PIPELINE_ETA,
  PIPELINE_SGRID,
  PIPELINE_LSENS,
  PIPELINE_LEPS,
  PIPELINE_RANGES
};

/* The histogram test of one released quantity: `index` chooses λ̃'s
 * candidate index (grouped into at most AUDIT_MAX_BINS runs of consecutive
 * indices), otherwise ṽ in `bins`. */
static dpbo_status audit_pipeline_check(MPI_Comm comm, const pipeline_state *st, int index,
                                        const audit_bins *bins, double alpha,
                                        dpbo_audit_check *check, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int64_t *hist = NULL, *total = NULL;
  const int64_t n = st->n, trials = st->options->trials;
  const int64_t per = index ? (n + AUDIT_MAX_BINS - 1) / AUDIT_MAX_BINS : 1;
  const int nbins = index ? (int)((n + per - 1) / per) : bins->count;
  DPBO_ALLOC(hist, 2 * (size_t)nbins, "audit histogram");
  DPBO_ALLOC(total, 2 * (size_t)nbins, "audit histogram");
  for (int64_t i = 0; i < 2 * st->count; i++) {
    int side = (int)(i % 2);
    int bin = index ? (int)(st->draws[i].index / per) : audit_bin(bins, st->draws[i].value);
    hist[side * nbins + bin]++;
  }
  DPBO_MPI_TRY(MPI_Allreduce(hist, total, 2 * nbins, MPI_INT64_T, MPI_SUM, comm));
  audit_bound bound;
  DPBO_TRY(audit_histogram_bound(total, nbins, trials, alpha, 0.0, &bound, err));
  char name[128] = "";
  if (bound.lo >= 0 && !index) {
    audit_bins_event(bins, bound.lo, bound.hi, "v~", name, sizeof name);
  } else if (bound.lo >= 0) {
    int64_t a = bound.lo * per, b = fmin((double)((bound.hi + 1) * per), (double)n) - 1;
    if (a == b)
      snprintf(name, sizeof name, "lambda~ = candidate %lld", (long long)a);
    else
      snprintf(name, sizeof name, "lambda~ in candidates %lld..%lld", (long long)a, (long long)b);
  }
  audit_witness(&bound, name, trials, check->witness, sizeof check->witness);
  check->epsilon_lower = bound.epsilon;
  check->events = bound.events;
  check->violated = bound.epsilon > check->epsilon_claimed;
done:
  free(hist);
  free(total);
  return status;
}

/* Validate: a private release, the logreg objective, usable options. */
static dpbo_status audit_pipeline_validate(const dpbo_config *config,
                                           const dpbo_audit_pipeline_options *options,
                                           dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!dpbo_algorithm_ops_get(config->algorithm)->private_release)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: the pipeline audit needs a private release: set [privacy] algorithm = 1, 2 "
               "or 3",
               config->path);
  if (config->objective != DPBO_OBJECTIVE_LOGREG)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: the pipeline audit needs objective.kind = logreg, the objective whose "
               "validation records it can swap to build the neighbouring input (got %s)",
               config->path, dpbo_objective_kind_name(config->objective));
  if (options->trials < 1)
    DPBO_RAISE(DPBO_ERR_ARG, "audit: trials must be positive, got %lld",
               (long long)options->trials);
  if (!(options->alpha > 0.0 && options->alpha < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "audit: alpha must be in (0, 1), got %g", options->alpha);
  if (!(isfinite(options->noise_scale_factor) && options->noise_scale_factor > 0.0 &&
        isfinite(options->sensitivity_factor) && options->sensitivity_factor > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "audit: the noise and sensitivity factors must be positive");
  if (options->trials > INT64_MAX / 2 - 2) DPBO_RAISE(DPBO_ERR_ARG, "audit: too many trials");
done:
  return status;
}

/* Plan and tune: every rank runs the tuning on D; rank 0 chooses the
 * neighbour from its run and every rank runs the tuning on D'. The runs are
 * deterministic (logreg training and the GP search use no randomness),
 * which the ranks' agreement in audit_pipeline_ranges checks rather than
 * assumes. */
static dpbo_status audit_pipeline_tune(MPI_Comm comm, pipeline_state *st,
                                       dpbo_audit_pipeline_result *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  dpbo_config *cfg = st->cfg;
  dpbo_run *run = st->run;
  cfg[0] = *st->config;
  cfg[0].noise = DPBO_NOISE_OS;
  cfg[0].logreg.swap_validation_row = cfg[0].logreg.swap_with_row = -1;
  cfg[1] = cfg[0];
  const int selection = st->ops->is_selection;
  local = selection ? audit_pipeline_table(&cfg[0], &run[0], err)
                    : audit_pipeline_run(&cfg[0], &run[0], err);
  if (local == DPBO_OK && st->rank == 0)
    local = audit_pipeline_pilot_run(cfg, st->options, &run[0], &st->pilot, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Bcast(&st->pilot, (int)sizeof st->pilot, MPI_BYTE, 0, comm));
  cfg[1].logreg.swap_validation_row = st->pilot.j;
  cfg[1].logreg.swap_with_row = st->pilot.k;
  local = selection ? audit_pipeline_table(&cfg[1], &run[1], err)
                    : audit_pipeline_run(&cfg[1], &run[1], err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  for (int t = 0; t < run[0].steps && !result->path_first_difference; t++)
    if (run[0].trace[t].index != run[1].trace[t].index) result->path_first_difference = t + 1;
  if (selection) {
    /* The selection methods score by the gains themselves. */
    for (int t = 0; t < run[0].steps; t++)
      result->score_difference =
          fmax(result->score_difference, fabs(run[0].trace[t].gain - run[1].trace[t].gain));
  } else if (st->ops->releases_lambda) {
    /* λ̃'s scores m0 + s μ_T(λ) (release.c); on MPI_COMM_SELF one block holds all of Λ. */
    const double *mu0 = dpbo_ucb_mean(run[0].ucb), *mu1 = dpbo_ucb_mean(run[1].ucb);
    const double s = st->config->prior.signal_std;
    for (int64_t i = 0; i < dpbo_ucb_count(run[0].ucb); i++)
      result->score_difference = fmax(result->score_difference, s * fabs(mu0[i] - mu1[i]));
  }
done:
  return status;
}

/* Run: the releases, split over the ranks, each from its own OS noise. */
static dpbo_status audit_pipeline_draws(MPI_Comm comm, pipeline_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const int64_t trials = st->options->trials;
  st->count = trials / st->size + (st->rank < trials % st->size ? 1 : 0);
  DPBO_ALLOC(st->draws, 2 * (size_t)st->count, "the audit draws");
  if (st->ops->private_evaluations)
    local = audit_pipeline_evals(st->cfg, st->options, st->count, st->draws, &st->evals, err);
  else
    local = audit_pipeline_releases(st->cfg, st->run, st->options, st->count, st->draws, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
done:
  return status;
}

/* Ranges over every release on every rank: the non-private best values on
 * D and D' (equal on all ranks unless the tuning run is not deterministic)
 * into result, and the releases' parameters (always equal) into
 * top[PIPELINE_RANGES]. Reduced as maxima of (x, -x). A rank with no
 * release contributes -inf. */
static dpbo_status audit_pipeline_ranges(MPI_Comm comm, const pipeline_state *st,
                                         dpbo_audit_pipeline_result *result, double *top,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double mx[2 * PIPELINE_RANGES], gmx[2 * PIPELINE_RANGES];
  for (int r = 0; r < 2 * PIPELINE_RANGES; r++)
    mx[r] = -INFINITY;
  for (int64_t i = 0; i < 2 * st->count; i++) {
    const pipeline_draw *d = &st->draws[i];
    const double x[PIPELINE_RANGES] = {i % 2 ? -INFINITY : d->best,
                                       i % 2 ? d->best : -INFINITY,
                                       d->value_scale,
                                       d->value_grid,
                                       d->value_sensitivity,
                                       d->epsilon_value,
                                       d->eta,
                                       d->score_grid,
                                       d->lambda_sensitivity,
                                       d->epsilon_lambda};
    for (int r = 0; r < PIPELINE_RANGES; r++) {
      if (x[r] == -INFINITY) continue;
      mx[2 * r] = fmax(mx[2 * r], x[r]);
      mx[2 * r + 1] = fmax(mx[2 * r + 1], -x[r]);
    }
  }
  DPBO_MPI_TRY(MPI_Allreduce(mx, gmx, 2 * PIPELINE_RANGES, MPI_DOUBLE, MPI_MAX, comm));
  for (int side = 0; side < 2; side++) {
    result->best_hi[side] = gmx[2 * (PIPELINE_BEST_D + side)];
    result->best_lo[side] = -gmx[2 * (PIPELINE_BEST_D + side) + 1];
  }
  for (int r = PIPELINE_SCALE; r < PIPELINE_RANGES; r++)
    if (gmx[2 * r] != -gmx[2 * r + 1])
      DPBO_RAISE(DPBO_ERR_NUMERIC,
                 "audit: a release parameter changed between releases "
                 "(%.17g vs %.17g)",
                 -gmx[2 * r + 1], gmx[2 * r]);
  for (int r = 0; r < PIPELINE_RANGES; r++)
    top[r] = gmx[2 * r];
done:
  return status;
}

/* Test: the histogram test of ṽ (or of the whole trace's statistic) and of
 * λ̃, each with its pair loss, from the common parameters top[]. */
static dpbo_status audit_pipeline_test(MPI_Comm comm, const pipeline_state *st, const double *top,
                                       dpbo_audit_pipeline_result *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = st->config;
  const dpbo_algorithm_ops *ops = st->ops;
  /* private_evaluations: the trace is audited whole (λ̃ is post-processing). */
  const int has_lambda = ops->releases_lambda && !ops->private_evaluations;
  const double alpha_each = st->options->alpha / (has_lambda ? 2.0 : 1.0);
  const double scale = top[PIPELINE_SCALE], grid = top[PIPELINE_GRID];
  /* ṽ: bins of half the actual noise scale over the non-private values
   * ± 6 scales (inside the clamp range, if any), fixed before looking at a
   * single release. */
  double lo = fmin(result->best_lo[0], result->best_lo[1]) - 6.0 * scale;
  double hi = fmax(result->best_hi[0], result->best_hi[1]) + 6.0 * scale;
  if (config->clamp_value) {
    lo = fmax(lo, config->value_lo);
    hi = fmin(hi, config->value_hi);
  }
  audit_bins bins = audit_bins_make(lo, hi - lo, 0.5 * scale);
  /* Exact loss of the discrete Laplace release on this pair: the grid
   * values differ by at most |Δ observed| / g + 1 steps, each costing 1/t
   * (t g = scale); clamping only lowers it. */
  double diff = fmax(fabs(result->best_hi[0] - result->best_lo[1]),
                     fabs(result->best_hi[1] - result->best_lo[0]));
  result->value.epsilon_claimed = top[PIPELINE_EPS];
  result->value.sensitivity = top[PIPELINE_SENS];
  result->value.pair_loss = (diff + grid) / scale;
  /* The stopping methods' pair loss has no closed form here. */
  if (ops->stopping) result->value.pair_loss = NAN;
  if (st->evals) {
    /* The statistic Z of each whole privatized run (audit_evals.h). */
    dpbo_audit_evals_range(st->evals, &lo, &hi);
    if (!(hi > lo)) lo = -1.0, hi = 1.0;
    bins = audit_bins_make(lo, hi - lo, (hi - lo) / 400.0);
    DPBO_TRY(dpbo_audit_evals_pair_loss(st->evals, config->privacy_delta, &result->value.pair_loss,
                                        err));
  }
  DPBO_TRY(audit_pipeline_check(comm, st, 0, &bins, alpha_each, &result->value, err));
  if (has_lambda) {
    /* Exponential mechanism / permute-and-flip at rate η per grid step of
     * the scores: loss <= 2 η (max |Δ score| / g + 1). */
    result->lambda.epsilon_claimed = top[PIPELINE_LEPS];
    result->lambda.sensitivity = top[PIPELINE_LSENS];
    result->lambda.pair_loss =
        2.0 * top[PIPELINE_ETA] * (result->score_difference / top[PIPELINE_SGRID] + 1.0);
    if (!(top[PIPELINE_ETA] > 0.0)) result->lambda.pair_loss = NAN; /* the stopping methods */
    DPBO_TRY(audit_pipeline_check(comm, st, 1, NULL, alpha_each, &result->lambda, err));
  }
  result->value_scale = scale;
  result->has_lambda = has_lambda;
  result->violated = result->value.violated || (has_lambda && result->lambda.violated);
done:
  return status;
}

dpbo_status dpbo_audit_pipeline(MPI_Comm comm, const dpbo_config *config,
                                const dpbo_audit_pipeline_options *options,
                                dpbo_audit_pipeline_result *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_space *space = NULL;
  pipeline_state st;
  memset(&st, 0, sizeof st);
  st.config = config;
  st.options = options;
  st.ops = dpbo_algorithm_ops_get(config->algorithm);
  const double start = MPI_Wtime();
  memset(result, 0, sizeof *result);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &st.rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &st.size));
  DPBO_TRY(audit_pipeline_validate(config, options, err));
  DPBO_ALLOC(st.cfg, 2, "the audit configs");
  DPBO_TRY(audit_pipeline_tune(comm, &st, result, err));
  DPBO_TRY(audit_pipeline_draws(comm, &st, err));
  double top[PIPELINE_RANGES]; /* the (common) value of each parameter */
  DPBO_TRY(audit_pipeline_ranges(comm, &st, result, top, err));
  DPBO_TRY(dpbo_run_space(config, &space, err));
  st.n = result->n = dpbo_space_size(space);
  DPBO_TRY(audit_pipeline_test(comm, &st, top, result, err));
  result->algorithm = config->algorithm;
  result->options = *options;
  result->T = config->iterations;
  result->validation_rows = st.pilot.validation_rows;
  result->pool_rows = st.pilot.pool_rows;
  result->swap_validation_row = st.pilot.j;
  result->swap_with_row = st.pilot.k;
  result->swap_lambda = st.pilot.lambda;
  result->swap_gain_change = st.pilot.gain_change;
  result->records_differ = st.pilot.records_differ;
  result->seconds = MPI_Wtime() - start;
done:
  dpbo_run_free(&st.run[0]);
  dpbo_run_free(&st.run[1]);
  dpbo_space_destroy(space);
  dpbo_audit_evals_destroy(st.evals);
  free(st.draws);
  free(st.cfg);
  return status;
}

/* ------------------------------------------------------------------------ */
/* Command line                                                             */

/* ------------------------------------------------------------------------ */
/* A selection release against an attacker who knows run.seed (audit.h)     */

/* Run k of Q in the seed audit: the k-th candidate, every gain the side's. */
typedef struct seed_draws {
  const int64_t *candidates;
  double gain;
} seed_draws;

static dpbo_status audit_seed_next(void *context, int64_t k, int64_t *index, double *gain,
                                   dpbo_error *err) {
  const seed_draws *d = context;
  (void)err;
  *index = d->candidates[k];
  *gain = d->gain;
  return DPBO_OK;
}

/* The attacker's view of the public stream: its first AUDIT_SEED_PREFIX
 * candidates (K exceeds it with probability (1 - 1/T)^AUDIT_SEED_PREFIX). */
enum { AUDIT_SEED_PREFIX = 512 };

dpbo_status dpbo_audit_selection_seed(MPI_Comm comm, const dpbo_audit_seed_options *options,
                                      dpbo_audit_seed_result *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  dpbo_config *config = NULL;
  int64_t *candidates = NULL, stream[AUDIT_SEED_PREFIX];
  int rank, size;
  memset(result, 0, sizeof *result);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  if (!dpbo_algorithm_ops_get(options->algorithm)->stopping)
    DPBO_RAISE(DPBO_ERR_ARG,
               "seed audit: %s is not a stopping method (random search's guarantee holds for any "
               "fixed candidate set, public or not)",
               dpbo_algorithm_name(options->algorithm));
  if (options->trials < 1 || options->n < 1 || options->T < 1 ||
      !(options->alpha > 0.0 && options->alpha < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "seed audit: bad trials, |Λ|, T or alpha");
  DPBO_ALLOC(config, 1, "the seed audit's config");
  config->algorithm = options->algorithm;
  config->iterations = options->T;
  config->seed = options->run_seed;
  config->privacy_epsilon = options->epsilon;
  config->privacy_delta = options->delta;
  config->ps_eta = options->ps_eta;
  config->noise = DPBO_NOISE_SEEDED;
  snprintf(config->path, sizeof config->path, "seed audit");
  dpbo_selection_accounting acc;
  DPBO_TRY(dpbo_selection_account(options->algorithm, options->epsilon, options->delta, 0.5,
                                  options->T, options->ps_eta, &acc, err));
  result->epsilon_claimed = acc.epsilon_accounted;
  result->delta_claimed = acc.delta_accounted;
  /* What the attacker computes from run.seed: the stream the candidates
   * came from before issue #22. */
  {
    dpbo_rng rng;
    dpbo_selection_candidate_stream_legacy(config, &rng);
    for (int p = 0; p < AUDIT_SEED_PREFIX; p++)
      stream[p] = dpbo_selection_candidate(&rng, options->n);
  }
  /* Trial i on side s is the run with noise_seed = seed + 2 i + s. */
  const double sensitivity = 1.0, g = 0.0;
  int64_t hits[2] = {0, 0};
  for (int64_t i = rank; i < options->trials && local == DPBO_OK; i += size)
    for (int side = 0; side < 2 && local == DPBO_OK; side++) {
      config->noise_seed = options->seed + 2 * (uint64_t)i + (uint64_t)side;
      dpbo_noise noise;
      dpbo_noise_init_seeded(&noise, config->noise_seed, DPBO_SELECTION_RUNS_STREAM);
      const int64_t K = dpbo_selection_draw_runs(&noise, options->algorithm, options->T, &acc);
      if (K > 100000000) {
        local = DPBO_ERROR_SET(err, DPBO_ERR_NUMERIC, "seed audit: K = %lld", (long long)K);
        break;
      }
      int64_t *grown = realloc(candidates, sizeof *candidates * (size_t)K);
      if (!grown) {
        local = DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "seed audit: out of memory");
        break;
      }
      candidates = grown;
      if (options->public_candidates) {
        dpbo_rng rng;
        dpbo_selection_candidate_stream_legacy(config, &rng);
        for (int64_t k = 0; k < K; k++)
          candidates[k] = dpbo_selection_candidate(&rng, options->n);
      } else {
        local =
            dpbo_selection_candidates(MPI_COMM_SELF, config, (int)K, options->n, candidates, err);
        if (local != DPBO_OK) break;
      }
      seed_draws draws = {candidates, g + side * sensitivity};
      dpbo_selection_pick pick;
      dpbo_noise_init_seeded(&noise, config->noise_seed, 0); /* the release's: rank 0 */
      local =
          dpbo_selection_stopping(audit_seed_next, &draws, &noise, sensitivity, acc.epsilon_base, K,
                                  options->T, -INFINITY, INFINITY, 1.0, &pick, err);
      if (local != DPBO_OK) break;
      int j = -1;
      for (int p = 0; p < AUDIT_SEED_PREFIX && j < 0; p++)
        if (stream[p] == pick.index) j = p;
      hits[side] += j >= options->position && pick.released < g + options->score * sensitivity;
    }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Allreduce(hits, result->hits, 2, MPI_INT64_T, MPI_SUM, comm));
  result->trials = options->trials;
  result->p_lower = dpbo_audit_cp_lower(result->hits[0], options->trials, options->alpha / 2);
  result->p_upper = dpbo_audit_cp_upper(result->hits[1], options->trials, options->alpha / 2);
  result->epsilon_lower = result->p_lower > result->delta_claimed
                              ? log((result->p_lower - result->delta_claimed) / result->p_upper)
                              : -INFINITY;
  result->violated = result->epsilon_lower > result->epsilon_claimed;
done:
  free(candidates);
  free(config);
  return status;
}

/* Rank 0's report of a pipeline audit. */
static void audit_pipeline_report(const dpbo_config *config, const dpbo_audit_pipeline_result *r,
                                  int size) {
  const dpbo_audit_pipeline_options *o = &r->options;
  printf("dpbo audit --pipeline %s: the whole tuning run and its release, %s\n", config->path,
         dpbo_algorithm_name(r->algorithm));
  const int selection = dpbo_algorithm_is_selection(r->algorithm);
  printf("  pipeline: logreg objective on %s (%lld training rows), T = %d, |Lambda| = %lld, "
         "%s%s\n",
         config->logreg.data_path, (long long)config->logreg.train_rows, r->T, (long long)r->n,
         selection ? "candidates of run.seed (every one evaluated on D and D')" : "acquisition ",
         selection                            ? ""
         : config->acquisition == DPBO_ACQ_EI ? "ei"
                                              : "ucb");
  printf("  D : the config's validation set (%lld records)\n", (long long)r->validation_rows);
  printf("  D': validation record %lld swapped for record %lld of the %lld rows in neither split,\n"
         "      chosen %s; at lambda = %.6g f_V changes by %+.6g\n",
         (long long)r->swap_validation_row, (long long)r->swap_with_row, (long long)r->pool_rows,
         o->swap == DPBO_AUDIT_SWAP_RANDOM
             ? "at random (seeded)"
             : "adversarially (the swap that moves f_V(w_lambda) the most at any lambda_t "
               "evaluated on D)",
         r->swap_lambda, r->swap_gain_change);
  printf("      V and V' differ in %d record%s (checked on the data the objective holds)\n",
         r->records_differ, r->records_differ == 1 ? "" : "s");
  if (selection)
    printf("  releases: each one whole (the candidates, %s and every draw of noise)\n",
           dpbo_algorithm_ops_get(r->algorithm)->stopping ? "a fresh secret K" : "the selection");
  else if (r->path_first_difference)
    printf("  search path: lambda_t on D and D' differ from step %d on\n",
           r->path_first_difference);
  else
    printf("  search path: the same lambda_t at every step on D and D'\n");
  printf("  non-private best value: D %.9g, D' %.9g (|difference| %.3g)%s\n", r->best_hi[0],
         r->best_hi[1], fabs(r->best_hi[0] - r->best_hi[1]),
         r->best_lo[0] == r->best_hi[0] && r->best_lo[1] == r->best_hi[1]
             ? ", the same on every rank"
             : "; NOT the same on every rank: the tuning run is not deterministic");
  if (o->noise_scale_factor == 1.0 && o->sensitivity_factor == 1.0) {
    printf("  release: real (the mechanisms exactly as every release uses them)\n");
  } else {
    printf("  release: DELIBERATELY BROKEN:");
    if (o->noise_scale_factor != 1.0) printf(" noise scale x%g;", o->noise_scale_factor);
    if (o->sensitivity_factor != 1.0)
      printf(" claimed sensitivities x%g (the noise is scaled to them);", o->sensitivity_factor);
    printf(" the claimed epsilon is unchanged\n");
  }
  printf("  noise: the operating system's CSPRNG (getrandom), as in every published release;\n"
         "      one tuning run on each of D and D' per rank, then %lld releases on each over %d "
         "rank%s; alpha %g%s; %.1f s\n",
         (long long)o->trials, size, size == 1 ? "" : "s", o->alpha,
         r->has_lambda ? " (half for each released quantity)" : "", r->seconds);
  printf("%-10s %12s %14s %16s %10s  %s\n", "released", "claimed eps", "loss on pair",
         "audited eps >=", "trials", "verdict");
  const dpbo_audit_check *checks[2] = {&r->value, r->has_lambda ? &r->lambda : NULL};
  const int private_evaluations = dpbo_algorithm_ops_get(r->algorithm)->private_evaluations;
  const char *names[2] = {private_evaluations ? "trace" : "v~", "lambda~"};
  for (int c = 0; c < 2; c++) {
    const dpbo_audit_check *k = checks[c];
    if (!k) continue;
    printf("%-10s %12.4f %14.4g %16.4f %10lld  %s\n", names[c], k->epsilon_claimed, k->pair_loss,
           k->epsilon_lower, (long long)o->trials,
           k->violated ? "FAIL (lower bound exceeds the claim)" : "pass");
    printf("%-10s   strongest event: %s\n", "", k->witness);
    if (c == 0) {
      if (private_evaluations)
        printf("%-10s   the whole trace of a privatized run, tested through Z = sum_t d_t (v_t - "
               "mid_t)/(Delta sigma); sensitivity %.6g, Gaussian sigma %.6g, |f_V' - f_V| = "
               "%.3g at the swap's lambda; loss on pair: continuous-Gaussian epsilon at delta for "
               "mu = "
               "sqrt(T) max|d|/sigma\n",
               "", k->sensitivity, r->value_scale, fabs(r->swap_gain_change));
      else
        printf("%-10s   sensitivity %.6g, Laplace scale %.6g\n", "", k->sensitivity,
               r->value_scale);
      /* The loss scales as 1/sensitivity: what this pair can reveal. */
      if (k->pair_loss > 0.0 && k->pair_loss < k->epsilon_claimed)
        printf("%-10s   this pair uses %.3g of the claim: only a sensitivity understated more "
               "than about %.0f times would show on it\n",
               "", k->pair_loss / k->epsilon_claimed, k->epsilon_claimed / k->pair_loss);
    } else {
      printf("%-10s   sensitivity %.6g; max |%s(D) - %s(D')| over Lambda = %.3g; %s\n", "",
             k->sensitivity, selection ? "f_V" : "mu_T", selection ? "f_V" : "mu_T",
             r->score_difference,
             isnan(k->pair_loss) ? "the pair's loss is not computed (the best of K secret runs)"
                                 : "the loss on the pair is an upper bound, 2 eta (max |d score| "
                                   "/ g + 1)");
    }
    /* 1e-9: the pair loss is computed in doubles. */
    if (k->epsilon_lower > k->pair_loss * (1.0 + 1e-9) + 1e-12)
      printf("%-10s   WARNING: the audited bound exceeds the exact loss on this pair computed "
             "from the mechanism's inputs: the release does not behave as documented\n",
             "");
  }
  printf("What is checked: the privacy of this implementation on this one pair (D, D'), not the\n"
         "worst case. 'loss on pair' is the privacy loss of the release mechanism for the\n"
         "inputs it received on D and D' (exact for the value, an upper bound for lambda~);\n"
         "the sensitivity bounds it over all pairs, so on\n"
         "a real pair it is usually far below the claim and the audited bound is small (even\n"
         "--broken may pass). A sensitivity understated so far that the loss on the pair\n"
         "exceeds the claim (e.g. --sensitivity-factor 0.01 on the small audit configs) fails.\n");
  if (dpbo_algorithm_ops_get(r->algorithm)->gp_release)
    printf("NOTE: Algorithm %d's sensitivities rest on Assumption 1 (the validation gains of\n"
           "neighbouring validation sets form a multi-task GP with k1 = %g and the configured\n"
           "prior). This result is an empirical check of that assumption on this one data\n"
           "pair, and of the implementation; it is not a proof of the guarantee.\n",
           (int)r->algorithm, config->k1);
  if (r->records_differ == 0)
    printf("NOTE: the swapped-in record equals the one it replaces, so D' = D here; use --swap "
           "adversarial or another --seed.\n");
  fflush(stdout);
}

/* `dpbo audit --pipeline CONFIG ...` */
static dpbo_status audit_pipeline_main(MPI_Comm comm, const dpbo_config *config,
                                       const dpbo_audit_options *o, int *violated,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int rank = 0, size = 1;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  const dpbo_audit_pipeline_options options = {
      o->trials, o->seed, o->alpha, o->broken ? 0.5 : 1.0, o->sensitivity_factor, o->swap};
  dpbo_audit_pipeline_result res;
  /* The pipelines run on every rank at once: their progress lines would
   * drown the report. Warnings and errors still print. */
  dpbo_log_setup(rank, 0, DPBO_LOG_QUIET);
  status = dpbo_audit_pipeline(comm, config, &options, &res, err);
  dpbo_log_setup(rank, rank == 0, DPBO_LOG_INFO);
  DPBO_TRY(status);
  if (rank == 0) audit_pipeline_report(config, &res, size);
  *violated = res.violated;
done:
  return status;
}

/* `dpbo audit --seed-attack ALG ...` (dpbo_audit_selection_seed). */
static dpbo_status audit_seed_main(MPI_Comm comm, const dpbo_audit_options *options, int *violated,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int rank = 0;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  const dpbo_algorithm algorithm = options->attack;
  const int broken = options->broken;
  const dpbo_audit_seed_options o = {.algorithm = algorithm,
                                     .epsilon = options->epsilon,
                                     .delta = options->delta,
                                     .T = 4,
                                     .ps_eta = 0.0,
                                     .n = 1 << 20,
                                     .run_seed = 2015,
                                     .trials = options->trials,
                                     .seed = options->seed,
                                     .alpha = options->alpha,
                                     .position = 3,
                                     .score = 0.5,
                                     .public_candidates = broken};
  dpbo_audit_seed_result r;
  DPBO_TRY(dpbo_audit_selection_seed(comm, &o, &r, err));
  if (rank == 0) {
    printf("dpbo audit --seed-attack %s: %s candidates, T = 4, |Lambda| = 2^20, run.seed 2015 "
           "known to the attacker, alpha %g\n",
           dpbo_algorithm_name(algorithm),
           broken ? "DELIBERATELY PUBLIC (the stream of run.seed)" : "secret (release noise)",
           o.alpha);
    printf("event {j >= 3, v~ < 0.5}: %lld of %lld releases on D, %lld on D'; "
           "P(E|D) >= %.6f, P(E|D') <= %.6f\n",
           (long long)r.hits[0], (long long)r.trials, (long long)r.hits[1], r.p_lower, r.p_upper);
    printf("%-18s %12s %12s %16s %12s  %s\n", "release", "claimed eps", "claimed delta",
           "audited eps >=", "trials", "verdict");
    printf("%-18s %12.4f %12.3g %16.4f %12lld  %s\n", dpbo_algorithm_name(algorithm),
           r.epsilon_claimed, r.delta_claimed, r.epsilon_lower, (long long)r.trials,
           r.violated ? "FAIL (lower bound exceeds the claim)" : "pass");
    fflush(stdout);
  }
  *violated = r.violated;
done:
  return status;
}

/* `dpbo audit [--mechanism ...]`: one row for each mechanism audited. */
static dpbo_status audit_mechanisms_main(MPI_Comm comm, const dpbo_audit_options *o, int *violated,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int rank = 0;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  const double factor = o->broken ? 0.5 : 1.0;
  if (rank == 0) {
    printf("dpbo audit: %s mechanisms, sensitivity %g, seeded noise (seed %llu), alpha %g\n",
           o->broken ? "DELIBERATELY BROKEN (noise scale x0.5)" : "real", o->sensitivity,
           (unsigned long long)o->seed, o->alpha);
    printf("%-18s %12s %12s %16s %12s  %s\n", "mechanism", "claimed eps", "loss on pair",
           "audited eps >=", "trials", "verdict");
  }
  for (int k = 0; k < DPBO_AUDIT_KIND_COUNT; k++) {
    if (!o->which[k]) continue;
    dpbo_audit_result res;
    DPBO_TRY(dpbo_audit_mechanism_delta(comm, (dpbo_audit_kind)k, o->epsilon, o->delta,
                                        o->sensitivity, o->trials, o->seed, o->alpha, factor, &res,
                                        err));
    if (rank == 0) {
      printf("%-18s %12.4f %12.4f %16.4f %12lld  %s\n", dpbo_audit_kind_name(res.kind),
             res.epsilon_claimed, res.pair_loss, res.epsilon_lower, (long long)res.trials,
             res.violated ? "FAIL (lower bound exceeds the claim)" : "pass");
      if (res.candidates)
        printf("%-18s   pair: %lld candidates, u = 0, u' = (+D, -D%s)\n", "",
               (long long)res.candidates, res.candidates > 2 ? ", ..., -D" : "");
      if (res.kind == DPBO_AUDIT_GAUSSIAN)
        printf("%-18s   claim (eps, delta) = (%g, %g) by the discrete Gaussian's zCDP bound: "
               "sigma %.6g; loss on pair = eps at delta of the pair\n",
               "", res.epsilon_claimed, res.delta_claimed, res.sigma);
      printf("%-18s   strongest event: %s\n", "", res.witness);
      fflush(stdout);
    }
    if (res.violated) *violated = 1;
  }
done:
  return status;
}

dpbo_status dpbo_audit_run(MPI_Comm comm, const dpbo_audit_options *options,
                           const dpbo_config *config, int *violated, dpbo_error *err) {
  *violated = 0;
  switch (options->mode) {
  case DPBO_AUDIT_MODE_PIPELINE:
    return audit_pipeline_main(comm, config, options, violated, err);
  case DPBO_AUDIT_MODE_SEED:
    return audit_seed_main(comm, options, violated, err);
  default:
    return audit_mechanisms_main(comm, options, violated, err);
  }
}
