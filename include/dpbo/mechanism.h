/* Differentially private mechanisms, floating-point safe (docs/design.md section 3).
 *
 * Every sampler here is exact: it consumes uniform integers only and uses
 * rational arithmetic, following Canonne, Kamath and Steinke (2020, "The
 * Discrete Gaussian for Differential Privacy", Algorithms 1 and 2). Real
 * inputs are first rounded to a power-of-two grid g, and the rounding is
 * added to the sensitivity (|round(x) - round(x')| <= Δ + g), so what is
 * released never depends on the low bits of a double.
 *
 *  - Laplace mechanism: x̃ = g·(round(x/g) + Z), Z ~ discrete Laplace with
 *    P(Z = z) ∝ exp(-|z|/t), t = ceil((Δ + g)/(ε g)) (rounding t up only lowers
 *    the privacy loss), g the power of two nearest to (Δ/ε)/2^40 (as Google's
 *    library does). Released value optionally clamped to [lo, hi].
 *  - Exponential mechanism over a distributed score vector: each candidate's
 *    score q is rounded to k = round(q/g), and candidate i is drawn with
 *    probability ∝ exp(η k_i), η = ε g/(2(Δ + g)) rounded down to a dyadic
 *    rational. Sampling is exact rejection: a uniform global index i is
 *    proposed and accepted with probability exp(-η (K - k_i)), K = max k;
 *    ranks check the proposals they own, and one reduction finds the first
 *    accepted proposal. Equal in law to exp(ε q/(2Δ')) normalized.
 *  - Permute-and-flip (McKenna & Sheldon 2020; = report-noisy-max with
 *    exponential noise, Ding et al. 2021): the same acceptance test, proposals
 *    without replacement (a uniformly random order); never worse than the
 *    exponential mechanism in expected score.
 *  - Gaussian mechanism: x̃ = g·(round(x/g) + Z), Z ~ discrete Gaussian
 *    N_Z(0, s²) (CKS Algorithm 3), s = ceil(σ/g) an integer, so σ_used = s g
 *    >= σ; accounted in include/dpbo/accountant.h with sensitivity Δ + g.
 */
#ifndef DPBO_MECHANISM_H
#define DPBO_MECHANISM_H

#include <mpi.h>
#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/noise.h"

/* Exact Bernoulli(num/den) (num >= den gives 1) and Bernoulli(exp(-num/den))
 * for any num/den >= 0, also above 1 (CKS Algorithm 1). den = 0 is treated as
 * num/0 = +inf (or 0/0 = 0). */
int dpbo_mech_bernoulli(dpbo_noise *noise, uint64_t num, uint64_t den);
int dpbo_mech_bernoulli_exp(dpbo_noise *noise, uint64_t num, uint64_t den);

/* Exact discrete Laplace with P(z) ∝ exp(-|z| den/num) (scale num/den), CKS
 * Algorithm 2; num, den >= 1 (else 0). The value saturates at ±INT64_MAX,
 * which has probability about exp(-2^63 den/num) (the mechanisms below keep
 * 128 bits and never saturate). */
int64_t dpbo_mech_discrete_laplace(dpbo_noise *noise, uint64_t num, uint64_t den);

/* Exact discrete Gaussian N_Z(0, σ²), σ² = num/den: P(z) ∝ exp(-z²/(2σ²)) over
 * the integers, CKS Algorithm 3 (discrete Laplace proposal of scale
 * t = floor(σ) + 1, accepted with probability exp(-(|Y| - σ²/t)²/(2σ²))).
 * num/den is reduced by its gcd first; the exact 128/256-bit arithmetic needs
 * num < 2^62 and den < 2^32 after that (σ up to 2^31), and proposals with
 * |Y| >= 2^62 are rejected, so the law is exactly N_Z(0, σ²) conditioned on
 * |z| < 2^62 (the excluded mass is below exp(-2^61)). num = 0 (σ = 0), den = 0
 * or an input outside that range gives 0 without drawing: callers validate
 * (dpbo_mech_gaussian does). The expected number of rounds is bounded by a
 * small constant for every σ (CKS section 5). */
int64_t dpbo_mech_discrete_gaussian(dpbo_noise *noise, uint64_t sigma2_num, uint64_t sigma2_den);

/* What a Gaussian release reports about itself. */
typedef struct dpbo_gaussian_release {
  double value;            /* released: g·(round(x/g) + Z) */
  double sigma;            /* σ asked for (units of the value) */
  double sensitivity;      /* Δ as given */
  double granularity;      /* g, a power of two */
  double sigma_used;       /* σ the draw really used (>= sigma) */
  double sensitivity_used; /* Δ + g: what the accounting must use */
} dpbo_gaussian_release;

/* The grid g of dpbo_mech_gaussian for (Δ, σ), so that callers can account
 * before drawing; 0 when Δ or σ is not positive and finite, or the grid would
 * not be a normal double.
 * g is the power of two nearest to max(min(Δ, σ)·2^-20, σ·2^-30). Why:
 *  - the rounding costs g in sensitivity, a relative g/Δ <= 2^-19.5 (about
 *    1.4e-6) whenever σ <= 2^10 Δ (the only range where the privacy matters:
 *    beyond, one release has μ < 2^-10); the accountant adds it exactly;
 *  - σ in grid steps, s = ceil(σ/g), lies in [2^19.5, 2^30.5], so σ_used is at
 *    most a relative 2^-19.5 above σ, and σ² = s² < 2^62 is an integer: the
 *    sampler's exact arithmetic fits 128 bits (256 for one square) and the
 *    whole release lives on the lattice gZ, with integer shifts
 *    round(x/g) - round(x'/g) of at most (Δ + g)/g steps - the setting in
 *    which CKS prove the discrete Gaussian's ρ = Δ²/(2σ²) zCDP bound. */
double dpbo_mech_gaussian_granularity(double sensitivity, double sigma);

/* Releases x with the discrete Gaussian mechanism for sensitivity Δ > 0 and
 * noise σ > 0 (all finite; |x| < g·2^62). No clamping: the value is meant to
 * feed a GP, and a clamped value would bias it. The (ε, δ) this costs is the
 * accountant's (include/dpbo/accountant.h), computed from Δ and σ as passed;
 * out->sensitivity_used and out->sigma_used say what the draw really used. */
dpbo_status dpbo_mech_gaussian(dpbo_noise *noise, double x, double sensitivity, double sigma,
                               dpbo_gaussian_release *out, dpbo_error *err);

/* What a Laplace release reports about itself. */
typedef struct dpbo_laplace_release {
  double value;         /* released (rounded, noised, clamped) */
  double epsilon;       /* requested ε */
  double sensitivity;   /* Δ as given */
  double granularity;   /* g */
  double scale;         /* effective scale t·g in units of the value */
  double epsilon_spent; /* (Δ + g)/(t g) <= ε: what the draw actually costs */
  int clamped;
} dpbo_laplace_release;

/* Releases in->x with the Laplace mechanism for sensitivity Δ > 0 and ε > 0 (both
 * finite; x finite, |x| < g·2^62); clamps to [lo, hi] when lo < hi
 * (post-processing); lo == hi means no clamping; lo > hi or NaN is refused.
 * t is computed so that epsilon_spent <= ε always (t is at most one grid step
 * larger than needed: epsilon_spent >= ε (1 - 2^-39)). */
typedef struct dpbo_laplace_input {
  double x;           /* the value released */
  double sensitivity; /* Δ */
  double epsilon;     /* the ε asked for */
  double lo, hi;      /* the clamp range; lo == hi for none */
} dpbo_laplace_input;

dpbo_status dpbo_mech_laplace(dpbo_noise *noise, const dpbo_laplace_input *in,
                              dpbo_laplace_release *out, dpbo_error *err);

typedef enum { DPBO_SELECT_EXPONENTIAL = 0, DPBO_SELECT_PERMUTE_AND_FLIP = 1 } dpbo_select_kind;

typedef struct dpbo_select_release {
  int64_t index;           /* chosen global index */
  double epsilon;          /* requested ε */
  double sensitivity;      /* Δ as given */
  double granularity;      /* score grid g */
  double eta_num, eta_den; /* η = num/den, the exact rate used */
  double epsilon_spent;    /* 2 η (Δ + g)/g <= ε */
  uint64_t proposals;      /* how many proposals were examined */
} dpbo_select_release;

/* Collective over comm: every rank passes (in->scores) the scores of its
 * block [begin, begin + count) of a global index set of size n (the blocks must
 * tile [0, n); checked). Only rank `root` draws from `noise` for proposals;
 * acceptance coins are drawn by the rank owning the proposal from its own
 * `noise` (every rank passes one; in seeded mode give each rank its own
 * stream, e.g. stream = rank, or the coins of different ranks coincide).
 * All ranks return the same index, or all fail with the same code (invalid
 * input on one rank is reported on every rank).
 * The scores' grid is g = Δ·2^-20 (rounded to a power of two); scores must be
 * finite with |score| < g·2^62 = Δ·2^42. η = ε/(2(Δ/g + 1)) rounded down to
 * 32 significant bits, so ε (1 - 2^-31) <= epsilon_spent <= ε unless ε is
 * below about 2^-11 (then η = num/2^63 with fewer bits; ε < 2^-42 is refused).
 * Expected proposals: n / Σ_i exp(-η (K - k_i)) for the exponential mechanism
 * (at most n), fewer for permute-and-flip; the root's memory for
 * permute-and-flip's random order is O(proposals). */
typedef struct dpbo_select_input {
  dpbo_select_kind kind;
  const double *scores; /* this rank's block [begin, begin + count) of the n scores */
  int64_t begin, count, n;
  double sensitivity; /* Δ of every score */
  double epsilon;     /* the ε asked for */
} dpbo_select_input;

dpbo_status dpbo_mech_select(MPI_Comm comm, int root, dpbo_noise *noise,
                             const dpbo_select_input *in, dpbo_select_release *out,
                             dpbo_error *err);

/* Exact probabilities of dpbo_mech_select's output for a local score vector
 * (for tests and `dpbo utility`), with the same rounding and η, computed
 * stably (max subtracted, long double sums):
 *  - exponential: p[i] ∝ exp(η k_i), any n;
 *  - permute-and-flip: p[i] = a_i Σ_m e_m(1 - a_l, l != i)/(n C(n-1, m)),
 *    a_i = exp(-η (K - k_i)); O(n^3), n <= 512. */
dpbo_status dpbo_mech_select_probabilities(dpbo_select_kind kind, const double *scores, int64_t n,
                                           double sensitivity, double epsilon, double *p,
                                           dpbo_error *err);

/* "exponential", "permute_and_flip" as configs write them, indexed by
 * dpbo_select_kind and NULL-terminated. */
extern const char *const dpbo_select_kind_names[];
const char *dpbo_select_kind_name(dpbo_select_kind kind);

#endif
