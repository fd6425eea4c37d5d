/* Empirical privacy audit (audit.h describes the method and the choice of
 * neighbouring inputs): the Clopper-Pearson bounds, the histogram test every
 * audit applies, and the audit of the mechanisms on their worst pairs. The
 * pipeline audit is in audit_pipeline.c, the seed attack in audit_seed.c,
 * what each prints in audit_report.c. */
#include "experiments/audit.h"
#include "experiments/audit_private.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "dpbo/noise.h"
#include "dpbo/accountant.h"
#include "core/mechanism_private.h"
#include "run/release_private.h"

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

dpbo__audit_bins dpbo__audit_bins_make(double first, double span, double width) {
  dpbo__audit_bins bins;
  double inner = ceil(span / width);
  if (!(inner >= 1.0)) inner = 1.0;
  if (inner > DPBO__AUDIT_MAX_BINS - 2) {
    inner = DPBO__AUDIT_MAX_BINS - 2;
    width = span / inner;
  }
  bins.first = first;
  bins.width = width;
  bins.count = (int)inner + 2;
  return bins;
}

int dpbo__audit_bin(const dpbo__audit_bins *bins, double v) {
  if (v < bins->first) return 0;
  double j = floor((v - bins->first) / bins->width) + 1.0;
  return j >= bins->count - 1 ? bins->count - 1 : (int)j;
}

/* Describes bins [lo, hi] of the output called `what`. */
void dpbo__audit_bins_event(const dpbo__audit_bins *bins, int lo, int hi, const char *what,
                            char *buf, size_t size) {
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

/* The histogram test of audit.h: total[side * nbins + j] counts the outputs
 * in bin j among `trials` draws on D (side 0) and D' (side 1). Events: every
 * single bin, and when there are more than two bins every prefix and every
 * suffix union (a prefix and the suffix after it are complements, both
 * kept: each direction of the ratio favours a different tail). Every
 * one-sided Clopper-Pearson bound is taken at level alpha/(4 events), so all
 * hold at once with probability >= 1 - alpha. For an (ε, δ) claim the bound
 * of an event is log((p_lower - δ)/p_upper): (ε, δ)-DP allows
 * P(E | D) <= e^ε P(E | D') + δ (δ = 0 for the ε-DP mechanisms). */
dpbo_status dpbo__audit_histogram_bound(const int64_t *total, int nbins, int64_t trials,
                                        double alpha, double delta, dpbo__audit_bound *out,
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
void dpbo__audit_witness(const dpbo__audit_bound *bound, const char *event, int64_t trials,
                         char *buf, size_t size) {
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
static dpbo__audit_bins audit_laplace_bins_make(double epsilon, double sensitivity) {
  double b = sensitivity / epsilon;
  return dpbo__audit_bins_make(-6.0 * b, sensitivity + 12.0 * b, 0.5 * b);
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
static dpbo__audit_bins audit_gaussian_bins_make(double sigma, double sensitivity) {
  return dpbo__audit_bins_make(-6.0 * sigma, sensitivity + 12.0 * sigma, 0.25 * sigma);
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
static dpbo_status audit_draw(const dpbo_audit_mechanism_options *options, double sigma,
                              int64_t trials, dpbo_noise *noise, const dpbo__audit_bins *bins,
                              int64_t *hist, dpbo_error *err) {
  const dpbo_audit_kind kind = options->kind;
  const double epsilon = options->epsilon, sensitivity = options->sensitivity;
  const double factor = options->noise_scale_factor;
  const int nbins = kind == DPBO_AUDIT_LAPLACE || kind == DPBO_AUDIT_GAUSSIAN ? bins->count : 2;
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
        const dpbo__laplace_args args = {
            noise, side ? sensitivity : 0.0, sensitivity, epsilon, 0.0, 0.0, factor};
        DPBO_TRY(dpbo__mech_laplace_scaled(&args, &rel, err));
        bin = dpbo__audit_bin(bins, rel.value);
      } else if (kind == DPBO_AUDIT_GAUSSIAN) {
        dpbo_gaussian_release rel;
        DPBO_TRY(dpbo__mech_gaussian_scaled(noise, side ? sensitivity : 0.0, sensitivity, sigma,
                                            factor, &rel, err));
        bin = dpbo__audit_bin(bins, rel.value);
      } else {
        dpbo_select_release rel;
        const dpbo__select_args args = {
            MPI_COMM_SELF, 0, noise, sk, side ? u_prime : u, 0, n, n, sensitivity, epsilon, factor};
        DPBO_TRY(dpbo__mech_select_scaled(&args, &rel, err));
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

dpbo_status dpbo_audit_mechanism(MPI_Comm comm, const dpbo_audit_mechanism_options *options,
                                 dpbo_audit_result *result, dpbo_error *err) {
  const dpbo_audit_kind kind = options->kind;
  const double epsilon = options->epsilon, delta = options->delta;
  const double sensitivity = options->sensitivity, alpha = options->alpha;
  const double noise_scale_factor = options->noise_scale_factor;
  const int64_t trials = options->trials;
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
  dpbo__audit_bins bins = kind == DPBO_AUDIT_GAUSSIAN
                              ? audit_gaussian_bins_make(sigma, sensitivity)
                              : audit_laplace_bins_make(epsilon, sensitivity);
  const int nbins = histogram ? bins.count : 2;
  DPBO_ALLOC(hist, 2 * nbins, "audit histogram");
  DPBO_ALLOC(total, 2 * nbins, "audit histogram");

  /* Trials split over the ranks, each with its own stream of the seed. */
  int64_t mine = trials / size + (rank < trials % size ? 1 : 0);
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, options->seed, (uint64_t)rank);
  dpbo_status local = audit_draw(options, sigma, mine, &noise, &bins, hist, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Allreduce(hist, total, 2 * nbins, MPI_INT64_T, MPI_SUM, comm));

  dpbo__audit_bound bound;
  DPBO_TRY(dpbo__audit_histogram_bound(total, nbins, trials, alpha, delta_claim, &bound, err));
  char name[96] = "";
  if (bound.lo >= 0 && histogram)
    dpbo__audit_bins_event(&bins, bound.lo, bound.hi, "release", name, sizeof name);
  else if (bound.lo >= 0)
    snprintf(name, sizeof name, "%s candidate", bound.lo == 0 ? "raised" : "a lowered");
  dpbo__audit_witness(&bound, name, trials, result->witness, sizeof result->witness);

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
