/* Exact differentially private samplers (docs/design.md section 3).
 *
 * Everything random below is built from uniform integers (noise.c) with
 * integer and rational arithmetic only, so the output law is exactly the
 * stated one and never depends on how a double rounds (Mironov 2012, "On
 * significance of the least significant bits for differential privacy").
 * Doubles appear only where the public inputs (x, Δ, ε, scores) are mapped
 * onto integer grids, and every such step either is exact (division by a
 * power of two) or rounds in the direction that keeps the privacy claim
 * true (the noise scale t up, the selection rate η down), with the rounding
 * of the inputs themselves added to the sensitivity. */
#include "dpbo/mechanism.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/mechanism_private.h"

typedef unsigned __int128 u128;
typedef __int128 i128;

/* 1/√2: the boundary in the mantissa between rounding log2 down and up. */
static const double sqrt_half = 0.70710678118654752440;

/* Relative margin that covers the three roundings of a double expression
 * (each at most 2^-53): multiplying by 1 ± 2^-50 moves a computed value past
 * the exact one, so ceil/floor of the result brackets the exact quantity. */
static const double margin = 0x1p-50;

/* ------------------------------------------------------------------------ */
/* Uniform integers and Bernoulli draws                                     */

/* Uniform in [0, bound) for bounds up to 2^128 - 1, by rejection of the
 * lowest 2^128 mod bound values (as dpbo_noise_below does in 64 bits). */
static u128 mechanism_below128(dpbo_noise *noise, u128 bound) {
  if ((bound >> 64) == 0) return dpbo_noise_below(noise, (uint64_t)bound);
  u128 threshold = (u128)(-bound) % bound;
  for (;;) {
    u128 hi = dpbo_noise_u64(noise);
    u128 r = (hi << 64) | dpbo_noise_u64(noise);
    if (r >= threshold) return r % bound;
  }
}

/* Bernoulli(num/den), 0 <= num <= den, den >= 1: one uniform draw. */
static int mechanism_bern_frac(dpbo_noise *noise, u128 num, u128 den) {
  if (num == 0) return 0;
  if (num >= den) return 1;
  return mechanism_below128(noise, den) < num;
}

/* Bernoulli(exp(-γ)) for γ = num/den in [0, 1]: CKS 2020 Algorithm 1, first
 * case. Draw A_K ~ Bernoulli(γ/K) for K = 1, 2, ... until the first A_K = 0;
 * P(the loop stops at K) = γ^(K-1)/(K-1)! - γ^K/K!, and the sum of those
 * over odd K is the series of exp(-γ). Bernoulli(γ/K) = Bernoulli(num/(den K))
 * is one uniform draw below den·K, a 128-bit product (den < 2^64, K small:
 * P(K > k) = γ^k/k!). */
static int mechanism_bern_exp_unit(dpbo_noise *noise, uint64_t num, uint64_t den) {
  if (num == 0) return 1;
  uint64_t k = 1;
  while (mechanism_bern_frac(noise, num, (u128)den * k))
    k++;
  return (int)(k & 1u);
}

/* Bernoulli(exp(-γ)) for any rational γ = num/den >= 0 (num may exceed 64
 * bits: the selection's η (K - k) does): CKS 2020 Algorithm 1, second case.
 * exp(-γ) = exp(-1)^floor(γ) · exp(-frac(γ)); the floor(γ) Bernoulli(exp(-1))
 * trials stop at the first failure, so the expected work is at most
 * 1/(1 - exp(-1)) ≈ 1.6 trials however large γ is. */
static int mechanism_bern_exp(dpbo_noise *noise, u128 num, uint64_t den) {
  u128 whole = num / den;
  uint64_t frac = (uint64_t)(num % den);
  for (u128 i = 0; i < whole; i++)
    if (!mechanism_bern_exp_unit(noise, 1u, 1u)) return 0;
  return mechanism_bern_exp_unit(noise, frac, den);
}

int dpbo_mech_bernoulli(dpbo_noise *noise, uint64_t num, uint64_t den) {
  if (den == 0) return num > 0;
  return mechanism_bern_frac(noise, num, den);
}

int dpbo_mech_bernoulli_exp(dpbo_noise *noise, uint64_t num, uint64_t den) {
  if (den == 0) return num == 0;
  return mechanism_bern_exp(noise, num, den);
}

/* Discrete Laplace with P(z) ∝ exp(-|z| s/t), CKS 2020 Algorithm 2 with
 * t = num, s = den:
 *   U uniform in [0, t), kept with probability exp(-U/t);
 *   V ~ Geometric(1 - exp(-1)) from Bernoulli(exp(-1)) trials;
 *   X = U + t V is then geometric with P(X = x) ∝ exp(-x/t);
 *   Y = floor(X/s) is geometric with P(Y = y) ∝ exp(-y s/t);
 *   a fair sign B, rejecting (B = 1, Y = 0) so that 0 is not counted twice.
 * Each round succeeds with probability at least (1 - exp(-1))/2. The result
 * is kept in 128 bits: |Z| >= 2^127 would need V >= 2^63 successive
 * Bernoulli(exp(-1)) successes. */
static i128 mechanism_discrete_laplace128(dpbo_noise *noise, uint64_t t, uint64_t s) {
  for (;;) {
    uint64_t u = dpbo_noise_below(noise, t);
    if (!mechanism_bern_exp(noise, u, t)) continue;
    uint64_t v = 0;
    while (mechanism_bern_exp_unit(noise, 1u, 1u))
      v++;
    u128 x = (u128)u + (u128)t * v;
    u128 y = x / s;
    int negative = (int)(dpbo_noise_u64(noise) >> 63);
    if (negative && y == 0) continue;
    return negative ? -(i128)y : (i128)y;
  }
}

int64_t dpbo_mech_discrete_laplace(dpbo_noise *noise, uint64_t num, uint64_t den) {
  if (num == 0 || den == 0) return 0;
  i128 z = mechanism_discrete_laplace128(noise, num, den);
  if (z > INT64_MAX) return INT64_MAX;
  if (z < -INT64_MAX) return -INT64_MAX;
  return (int64_t)z;
}

/* ------------------------------------------------------------------------ */
/* Discrete Gaussian                                                        */

/* 256-bit unsigned integers, only as wide as the acceptance test of the
 * discrete Gaussian needs: one square of a 128-bit value, a division by a
 * 128-bit value, a decrement. */
typedef struct u256 {
  u128 hi, lo;
} u256;

/* a·b exactly, from four 64 x 64 -> 128-bit products. */
static u256 mechanism_mul128(u128 a, u128 b) {
  const u128 mask = ((u128)1 << 64) - 1;
  u128 a0 = a & mask, a1 = a >> 64, b0 = b & mask, b1 = b >> 64;
  u128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  u128 mid = (p00 >> 64) + (p01 & mask) + (p10 & mask); /* < 3·2^64: no overflow */
  u256 r;
  r.lo = (mid << 64) | (p00 & mask);
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

/* q = floor(n/d) and the remainder, d >= 1, by shift-and-subtract long
 * division (256 steps; the remainder stays below d, and a carry out of its
 * top bit means the shifted value is >= 2^128 > d, so subtracting d modulo
 * 2^128 gives the true difference). */
static u128 mechanism_divmod256(u256 n, u128 d, u256 *q) {
  u128 r = 0;
  q->hi = q->lo = 0;
  for (int i = 255; i >= 0; i--) {
    int bit = (int)(i >= 128 ? (n.hi >> (i - 128)) & 1u : (n.lo >> i) & 1u);
    int carry = (int)(r >> 127);
    r = (r << 1) | (u128)bit;
    if (carry || r >= d) {
      r -= d;
      if (i >= 128)
        q->hi |= (u128)1 << (i - 128);
      else
        q->lo |= (u128)1 << i;
    }
  }
  return r;
}

/* Bernoulli(exp(-γ)) for γ = num/den with a 256-bit numerator and a 128-bit
 * denominator (den >= 1): CKS Algorithm 1 as in mechanism_bern_exp, with the
 * coin Bernoulli(f/(den K)) of the fractional part drawn as the product of
 * Bernoulli(f/den) and Bernoulli(1/K), which has the same law and needs no
 * product den·K. The floor(γ) Bernoulli(exp(-1)) trials stop at the first
 * failure, so the expected work stays below 1.6 trials however large γ is. */
static int mechanism_bern_exp_wide(dpbo_noise *noise, u256 num, u128 den) {
  u256 whole;
  u128 frac = mechanism_divmod256(num, den, &whole);
  while (whole.hi != 0 || whole.lo != 0) {
    if (!mechanism_bern_exp_unit(noise, 1u, 1u)) return 0;
    if (whole.lo-- == 0) whole.hi--;
  }
  if (frac == 0) return 1;
  uint64_t k = 1;
  while (mechanism_bern_frac(noise, frac, den) && mechanism_bern_frac(noise, 1u, k))
    k++;
  return (int)(k & 1u);
}

static uint64_t mechanism_gcd(uint64_t a, uint64_t b) {
  while (b != 0) {
    uint64_t r = a % b;
    a = b;
    b = r;
  }
  return a;
}

/* floor(sqrt(v)), exact: the double estimate is corrected by integer steps. */
static uint64_t mechanism_isqrt(uint64_t v) {
  uint64_t r = (uint64_t)sqrt((double)v);
  while (r > 0 && (u128)r * r > v)
    r--;
  while ((u128)(r + 1) * (r + 1) <= v)
    r++;
  return r;
}

/* Largest |z| the discrete Gaussian returns (proposals beyond are rejected). */
static const uint64_t dgauss_bound = (uint64_t)1 << 62;

/* Whether σ² = n/d (reduced) is inside the range the exact arithmetic below
 * covers (see dpbo_mech_discrete_gaussian). */
static int mechanism_dgauss_supported(uint64_t n, uint64_t d) {
  return n >= 1 && n < ((uint64_t)1 << 62) && d >= 1 && d < ((uint64_t)1 << 32);
}

/* CKS 2020 Algorithm 3 for σ² = n/d, reduced and supported. With
 * t = floor(σ) + 1, Y ~ discrete Laplace of scale t is accepted with
 * probability exp(-(|Y| - σ²/t)²/(2σ²)); the accepted Y has P(y) ∝
 * exp(-|y|/t - (|y| - σ²/t)²/(2σ²)) = exp(-y²/(2σ²) - σ²/(2t²)) ∝
 * exp(-y²/(2σ²)). In integers: with X = |Y| d t - n,
 *   (|Y| - σ²/t)²/(2σ²) = X²/M,  M = 2 n d t²,
 * and the bounds n < 2^62, d < 2^32 (so t <= 2^31, d t < 2^63) keep
 * |X| < 2^62·2^63 = 2^125 for |Y| < 2^62 and M = 2n² + 4n√(nd) + 2nd (at
 * most) < 2^126. Rejecting |Y| >= 2^62 outright (acceptance 0 there)
 * conditions the output on |z| < 2^62 and nothing else. */
static int64_t mechanism_discrete_gaussian64(dpbo_noise *noise, uint64_t n, uint64_t d) {
  const uint64_t t = mechanism_isqrt(n / d) + 1u; /* floor(sqrt(n/d)) = isqrt(floor(n/d)) */
  const u128 dt = (u128)d * t;
  const u128 M = (u128)2u * n * d * t * t;
  for (;;) {
    i128 y = mechanism_discrete_laplace128(noise, t, 1u);
    u128 a = y < 0 ? (u128)(-y) : (u128)y;
    if (a >= dgauss_bound) continue;
    u128 p = a * dt;
    u128 x = p >= n ? p - n : (u128)n - p;
    if (mechanism_bern_exp_wide(noise, mechanism_mul128(x, x), M)) return (int64_t)y;
  }
}

int64_t dpbo_mech_discrete_gaussian(dpbo_noise *noise, uint64_t sigma2_num, uint64_t sigma2_den) {
  if (sigma2_num == 0 || sigma2_den == 0) return 0;
  uint64_t c = mechanism_gcd(sigma2_num, sigma2_den);
  uint64_t n = sigma2_num / c, d = sigma2_den / c;
  if (!mechanism_dgauss_supported(n, d)) return 0;
  return mechanism_discrete_gaussian64(noise, n, d);
}

/* ------------------------------------------------------------------------ */
/* Grids                                                                    */

/* The power of two nearest to r·2^-shift (nearest in log2; r > 0 finite),
 * or 0 when it would not be a normal double. */
static double mechanism_nearest_power_of_two(double r, int shift) {
  int e;
  double m = frexp(r, &e); /* r = m 2^e, m in [1/2, 1): log2 r in [e-1, e) */
  int p = (m >= sqrt_half ? e : e - 1) - shift;
  if (p < DBL_MIN_EXP - 1 || p > DBL_MAX_EXP - 1) return 0.0;
  return ldexp(1.0, p);
}

/* k = round(q/g) for a power-of-two g: q/g is exact (a change of exponent)
 * unless it underflows, in which case |q/g| < 1/2 and k = 0 anyway. The grid
 * point k·g is within g/2 of q, so neighbouring inputs (|q - q'| <= Δ) give
 * |k - k'| g <= Δ + g: the rounding adds g to the sensitivity. */
static dpbo_status mechanism_to_grid(double q, double g, const char *what, int64_t *k,
                                     dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!isfinite(q)) DPBO_RAISE(DPBO_ERR_ARG, "%s must be finite, got %g", what, q);
  double y = q / g;
  if (!(fabs(y) <= 0x1p62))
    DPBO_RAISE(DPBO_ERR_ARG,
               "%s %g is too large for the grid %g of this mechanism (|%s| must be "
               "below %g)",
               what, q, g, what, ldexp(g, 62));
  *k = (int64_t)round(y);
done:
  return status;
}

static dpbo_status mechanism_check_positive(double v, const char *what, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!(isfinite(v) && v > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "%s must be positive and finite, got %g", what, v);
done:
  return status;
}

/* ------------------------------------------------------------------------ */
/* Laplace mechanism                                                        */

dpbo_status dpbo__mech_laplace_scaled(const dpbo__laplace_args *args, dpbo_laplace_release *out,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_noise *noise = args->noise;
  const double x = args->x, sensitivity = args->sensitivity, epsilon = args->epsilon;
  const double lo = args->lo, hi = args->hi, noise_scale_factor = args->noise_scale_factor;
  memset(out, 0, sizeof *out);
  DPBO_TRY(mechanism_check_positive(sensitivity, "Laplace mechanism: sensitivity", err));
  DPBO_TRY(mechanism_check_positive(epsilon, "Laplace mechanism: epsilon", err));
  DPBO_TRY(
      mechanism_check_positive(noise_scale_factor, "Laplace mechanism: noise scale factor", err));
  if (!isfinite(x))
    DPBO_RAISE(DPBO_ERR_ARG,
               "Laplace mechanism: the value to release must be "
               "finite, got %g",
               x);
  if (isnan(lo) || isnan(hi) || lo > hi)
    DPBO_RAISE(DPBO_ERR_ARG,
               "Laplace mechanism: clamp range [%g, %g] is not an interval "
               "(pass lo = hi for no clamping)",
               lo, hi);

  /* Granularity g: the power of two nearest to (Δ/ε)·2^-40, as Google's
   * differential-privacy library chooses it (there: the next power of two).
   * The noise then has about 2^40 grid steps per unit of scale, far finer
   * than any accuracy we release, and D = Δ/g is exact. */
  double r = sensitivity / epsilon;
  double g = isfinite(r) && r > 0.0 ? mechanism_nearest_power_of_two(r, 40) : 0.0;
  double D = g > 0.0 ? sensitivity / g : 0.0;
  if (!(g > 0.0 && isfinite(D) && D >= DBL_MIN && D * g == sensitivity))
    DPBO_RAISE(DPBO_ERR_ARG,
               "Laplace mechanism: sensitivity/epsilon = %g/%g is outside the "
               "range this mechanism supports",
               sensitivity, epsilon);
  int64_t k;
  DPBO_TRY(mechanism_to_grid(x, g, "Laplace mechanism: value", &k, err));

  /* Noise scale in grid steps: the grid values differ by at most (Δ + g)/g
   * = D + 1 steps between neighbours, and discrete Laplace noise of scale t
   * steps costs (D + 1)/t, so t = ceil((D + 1)/ε). The double expression
   * below has three roundings of at most 2^-53 each; the 2^-50 margin puts
   * it above the exact (D + 1)/ε, so t is never too small (at worst one step
   * larger than needed, a relative cost of about 2^-40). */
  double tc = (D + 1.0) / epsilon * (1.0 + margin);
  if (noise_scale_factor != 1.0) tc = ceil(tc) * noise_scale_factor; /* audit only */
  if (!(tc <= 0x1p62))
    DPBO_RAISE(DPBO_ERR_ARG,
               "Laplace mechanism: noise scale %g grid steps exceeds 2^62 "
               "(sensitivity %g, epsilon %g)",
               tc, sensitivity, epsilon);
  uint64_t t = (uint64_t)ceil(tc);
  if (t < 1u) t = 1u;

  /* The release g·(k + Z) is exact up to |k + Z| = 2^53; beyond, converting
   * the integer to a double rounds it, a deterministic function of k + Z and
   * hence post-processing. Clamping is post-processing too. */
  i128 m = (i128)k + mechanism_discrete_laplace128(noise, t, 1u);
  double value = (double)m * g;
  int clamped = 0;
  if (lo < hi && value < lo) {
    value = lo;
    clamped = 1;
  } else if (lo < hi && value > hi) {
    value = hi;
    clamped = 1;
  }
  DPBO_TRY(dpbo_noise_check(noise, err));

  /* ε actually spent, (D + 1)/t, rounded up (two roundings, covered by the
   * margin); it cannot exceed ε because t >= (D + 1)/ε, hence the min. */
  double spent = (D + 1.0) / (double)t * (1.0 + margin);
  if (noise_scale_factor == 1.0) spent = fmin(spent, epsilon);
  out->value = value;
  out->epsilon = epsilon;
  out->sensitivity = sensitivity;
  out->granularity = g;
  out->scale = (double)t * g;
  out->epsilon_spent = spent;
  out->clamped = clamped;
done:
  return status;
}

dpbo_status dpbo_mech_laplace(dpbo_noise *noise, const dpbo_laplace_input *in,
                              dpbo_laplace_release *out, dpbo_error *err) {
  const dpbo__laplace_args args = {noise, in->x, in->sensitivity, in->epsilon, in->lo, in->hi, 1.0};
  return dpbo__mech_laplace_scaled(&args, out, err);
}

/* ------------------------------------------------------------------------ */
/* Gaussian mechanism                                                       */

double dpbo_mech_gaussian_granularity(double sensitivity, double sigma) {
  if (!(isfinite(sensitivity) && sensitivity > 0.0 && isfinite(sigma) && sigma > 0.0)) return 0.0;
  /* Both products are exact (powers of two), so g is a function of the
   * doubles given and nothing else. */
  double r = fmax(fmin(sensitivity, sigma) * 0x1p-20, sigma * 0x1p-30);
  return mechanism_nearest_power_of_two(r, 0);
}

dpbo_status dpbo__mech_gaussian_scaled(dpbo_noise *noise, double x, double sensitivity,
                                       double sigma, double noise_scale_factor,
                                       dpbo_gaussian_release *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(out, 0, sizeof *out);
  DPBO_TRY(mechanism_check_positive(sensitivity, "Gaussian mechanism: sensitivity", err));
  DPBO_TRY(mechanism_check_positive(sigma, "Gaussian mechanism: sigma", err));
  DPBO_TRY(
      mechanism_check_positive(noise_scale_factor, "Gaussian mechanism: noise scale factor", err));
  if (!isfinite(x))
    DPBO_RAISE(DPBO_ERR_ARG, "Gaussian mechanism: the value to release must be finite, got %g", x);
  double g = dpbo_mech_gaussian_granularity(sensitivity, sigma);
  double D = g > 0.0 ? sensitivity / g : 0.0;
  if (!(g > 0.0 && isfinite(D) && D * g == sensitivity && isfinite(sensitivity + g)))
    DPBO_RAISE(DPBO_ERR_ARG,
               "Gaussian mechanism: sensitivity %g and sigma %g are outside the range this "
               "mechanism supports",
               sensitivity, sigma);
  int64_t k;
  DPBO_TRY(mechanism_to_grid(x, g, "Gaussian mechanism: value", &k, err));

  /* σ in grid steps, s = ceil(σ/g): σ/g is exact (power of two), so σ_used
   * = s g >= σ with no rounding argument needed. The grid choice keeps
   * σ/g <= 2^30.5 (s² < 2^62, the sampler's range); the broken audit variant
   * (factor < 1) only lowers it, and a factor above 1 is refused there. */
  double sc = ceil(sigma / g * noise_scale_factor);
  if (!(sc >= 1.0 && sc < 0x1p31))
    DPBO_RAISE(DPBO_ERR_ARG,
               "Gaussian mechanism: sigma %g is %g grid steps of %g, outside [1, 2^31)", sigma, sc,
               g);
  uint64_t s = (uint64_t)sc;

  /* k + Z stays far inside 128 bits (|k| <= 2^62, |Z| < 2^62); the double
   * conversion rounds only beyond 2^53, a deterministic function of k + Z
   * and hence post-processing. */
  i128 m = (i128)k + mechanism_discrete_gaussian64(noise, s * s, 1u);
  DPBO_TRY(dpbo_noise_check(noise, err));

  /* Δ + g, rounded up: when the double sum is inexact (one of the
   * differences does not give the other term back) it moves up one ulp, so
   * the accounting never sees less than the true sensitivity. */
  double used = sensitivity + g;
  if (used - g != sensitivity || used - sensitivity != g) used = nextafter(used, INFINITY);
  out->value = (double)m * g;
  out->sigma = sigma;
  out->sensitivity = sensitivity;
  out->granularity = g;
  out->sigma_used = (double)s * g;
  out->sensitivity_used = used;
done:
  return status;
}

dpbo_status dpbo_mech_gaussian(dpbo_noise *noise, double x, double sensitivity, double sigma,
                               dpbo_gaussian_release *out, dpbo_error *err) {
  return dpbo__mech_gaussian_scaled(noise, x, sensitivity, sigma, 1.0, out, err);
}

/* ------------------------------------------------------------------------ */
/* Selection: exponential mechanism and permute-and-flip                    */

/* The rounding shared by dpbo_mech_select and the exact probabilities. */
typedef struct select_plan {
  double g;         /* score grid, a power of two near Δ·2^-20 */
  double D;         /* Δ/g, exact */
  uint64_t eta_num; /* η = eta_num / 2^eta_shift */
  int eta_shift;
  double epsilon_spent;
} select_plan;

static dpbo_status mechanism_select_plan_make(double sensitivity, double epsilon, double factor,
                                              select_plan *plan, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(plan, 0, sizeof *plan);
  DPBO_TRY(mechanism_check_positive(sensitivity, "selection: sensitivity", err));
  DPBO_TRY(mechanism_check_positive(epsilon, "selection: epsilon", err));
  DPBO_TRY(mechanism_check_positive(factor, "selection: noise scale factor", err));
  /* Score grid g ≈ Δ·2^-20: rounding the scores adds g, one part in a
   * million, to the sensitivity, and keeps |k| < 2^62 for |score| < Δ·2^42. */
  double g = mechanism_nearest_power_of_two(sensitivity, 20);
  double D = g > 0.0 ? sensitivity / g : 0.0;
  if (!(g > 0.0 && D * g == sensitivity))
    DPBO_RAISE(DPBO_ERR_ARG, "selection: sensitivity %g is outside the supported range",
               sensitivity);
  /* The exponential mechanism and permute-and-flip over integer scores k
   * with sensitivity D + 1 are ε'-DP for rate η with 2 η (D + 1) = ε'
   * (McSherry & Talwar 2007; McKenna & Sheldon 2020). η = ε/(2(D + 1)) is
   * rounded DOWN to a dyadic rational num/2^s with 32 significant bits (so
   * η (K - k) is an exact 128-bit rational; den = 2^s fits 64 bits for
   * s <= 63). The double quotient has two roundings; the 2^-50 margin puts
   * it below the exact value before the floor. */
  double eta = epsilon / (2.0 * (D + 1.0)) / factor;
  if (!(eta > 0.0 && isfinite(eta)))
    DPBO_RAISE(DPBO_ERR_ARG, "selection: epsilon %g is outside the supported range", epsilon);
  int e;
  (void)frexp(eta, &e); /* eta in [2^(e-1), 2^e): eta·2^(32-e) in [2^31, 2^32) */
  int s = 32 - e;
  if (s > 63) s = 63;
  if (s < 0)
    DPBO_RAISE(DPBO_ERR_ARG, "selection: epsilon %g is too large for the score grid", epsilon);
  double scaled = ldexp(eta, s) * (factor == 1.0 ? 1.0 - margin : 1.0);
  uint64_t num = (uint64_t)floor(scaled);
  if (num == 0)
    DPBO_RAISE(DPBO_ERR_ARG,
               "selection: epsilon %g is too small (the rate ε/(2Δ) falls below "
               "2^-63 per grid step of the scores)",
               epsilon);
  /* ε spent = 2 η (D + 1), rounded up (two roundings, inside the margin);
   * never above ε since η was rounded down. */
  double spent = ldexp((double)num, 1 - s) * (D + 1.0) * (1.0 + margin);
  if (factor == 1.0) spent = fmin(spent, epsilon);
  plan->g = g;
  plan->D = D;
  plan->eta_num = num;
  plan->eta_shift = s;
  plan->epsilon_spent = spent;
done:
  return status;
}

/* The acceptance coin of a proposal with grid score k under maximum K:
 * Bernoulli(exp(-η (K - k))), exact. η (K - k) = num (K - k) / 2^s with
 * num < 2^32 and K - k < 2^64, so the numerator fits 128 bits. */
static int mechanism_select_accept(dpbo_noise *noise, const select_plan *plan, int64_t K,
                                   int64_t k) {
  uint64_t gap = (uint64_t)K - (uint64_t)k; /* K >= k; exact modulo 2^64 */
  return mechanism_bern_exp(noise, (u128)plan->eta_num * gap, (uint64_t)1 << plan->eta_shift);
}

/* A lazily materialized Fisher-Yates shuffle of 0..n-1 for permute-and-flip:
 * the virtual array A starts as the identity and only displaced entries are
 * stored (open addressing), so drawing the next element of a uniformly random
 * order costs O(1) expected time and memory, whatever n is. */
typedef struct lazy_perm {
  int64_t *keys, *vals; /* key -1 = empty */
  size_t cap, used;
  int64_t next; /* positions [0, next) are drawn */
} lazy_perm;

static size_t mechanism_perm_slot(const lazy_perm *p, int64_t key) {
  size_t h = (size_t)(((uint64_t)key * 0x9E3779B97F4A7C15ULL) >> 17) & (p->cap - 1);
  while (p->keys[h] != -1 && p->keys[h] != key)
    h = (h + 1) & (p->cap - 1);
  return h;
}

static int64_t mechanism_perm_get(const lazy_perm *p, int64_t pos) {
  size_t h = mechanism_perm_slot(p, pos);
  return p->keys[h] == -1 ? pos : p->vals[h];
}

static int mechanism_perm_grow(lazy_perm *p) {
  size_t cap = p->cap ? 2 * p->cap : 1024;
  int64_t *keys = malloc(cap * sizeof *keys), *vals = malloc(cap * sizeof *vals);
  if (!keys || !vals) {
    free(keys);
    free(vals);
    return -1;
  }
  for (size_t i = 0; i < cap; i++)
    keys[i] = -1;
  lazy_perm grown = {keys, vals, cap, 0, p->next};
  for (size_t i = 0; i < p->cap; i++) {
    if (p->keys[i] == -1) continue;
    size_t h = mechanism_perm_slot(&grown, p->keys[i]);
    grown.keys[h] = p->keys[i];
    grown.vals[h] = p->vals[i];
    grown.used++;
  }
  free(p->keys);
  free(p->vals);
  *p = grown;
  return 0;
}

/* Next element of the random order: swap position next with a uniform
 * position in [next, n) and return what lands at next. Position next is
 * never read again, so only the far end of the swap is stored. */
static int mechanism_perm_next(lazy_perm *p, dpbo_noise *noise, int64_t n, int64_t *out) {
  if (2 * (p->used + 1) > p->cap && mechanism_perm_grow(p) != 0) return -1;
  int64_t i = p->next++;
  int64_t j = i + (int64_t)dpbo_noise_below(noise, (uint64_t)(n - i));
  int64_t a = mechanism_perm_get(p, j), b = mechanism_perm_get(p, i);
  size_t h = mechanism_perm_slot(p, j);
  if (p->keys[h] == -1) p->used++;
  p->keys[h] = j;
  p->vals[h] = b;
  *out = a;
  return 0;
}

/* Fields each rank contributes to the collective argument check. */
enum {
  CHK_BEGIN,
  CHK_COUNT,
  CHK_MAX,
  CHK_N,
  CHK_DELTA,
  CHK_EPS,
  CHK_ROOT,
  CHK_KIND,
  CHK_BAD,
  CHK_FIELDS
};

/* Proposal batches start small (the usual case accepts within a few
 * proposals) and double up to this cap (512 KiB per broadcast) or n. */
enum { BATCH_FIRST = 64, BATCH_CAP = 65536 };

static int64_t mechanism_bits_of(double v) {
  int64_t b;
  memcpy(&b, &v, sizeof b);
  return b;
}

/* One selection draw in progress: its arguments, the grid and rate, the
 * agreed maximum grid score and the buffers of the exchanges. */
typedef struct select_draw {
  const dpbo__select_args *a;
  int rank, size;
  select_plan plan;
  int64_t K;         /* global maximum grid score */
  int64_t batch_cap; /* largest batch of proposals */
  int64_t *batch;    /* [0]: root's status (1: could not draw), [1..b]: proposals */
  int64_t *all;      /* every rank's CHK_FIELDS, rank after rank */
  lazy_perm perm;    /* permute-and-flip's random order (drawn on root) */
} select_draw;

/* Plan, local part: allocates the buffers, checks this rank's arguments and
 * rounds its scores to the grid, filling the fields it contributes to the
 * exchange. Returns 1 (the reason in *local) if this rank rejects them. */
static int mechanism_select_check_local(select_draw *d, int64_t mine[CHK_FIELDS],
                                        dpbo_error *local) {
  const dpbo__select_args *a = d->a;
  int bad = 0;
  int64_t local_max = INT64_MIN;
  dpbo_error_clear(local);
  /* No batch needs to exceed n by much (the exponential mechanism expects at
   * most n proposals, permute-and-flip makes at most n), so small candidate
   * sets keep small buffers. */
  d->batch_cap = a->n > BATCH_CAP ? BATCH_CAP : a->n > BATCH_FIRST ? a->n : BATCH_FIRST;
  d->batch = malloc(((size_t)d->batch_cap + 1) * sizeof *d->batch);
  d->all = malloc((size_t)d->size * CHK_FIELDS * sizeof *d->all);
  if (!d->batch || !d->all) {
    bad = 1;
    DPBO_ERROR_SET(local, DPBO_ERR_NOMEM, "selection: out of memory");
  } else if (a->kind != DPBO_SELECT_EXPONENTIAL && a->kind != DPBO_SELECT_PERMUTE_AND_FLIP) {
    bad = 1;
    DPBO_ERROR_SET(local, DPBO_ERR_ARG, "selection: unknown mechanism %d", (int)a->kind);
  } else if (a->root < 0 || a->root >= d->size) {
    bad = 1;
    DPBO_ERROR_SET(local, DPBO_ERR_ARG,
                   "selection: root %d is not a rank of the %d-rank "
                   "communicator",
                   a->root, d->size);
  } else if (a->n < 1 || a->begin < 0 || a->count < 0 || a->count > a->n - a->begin ||
             (a->count > 0 && !a->scores)) {
    bad = 1;
    DPBO_ERROR_SET(local, DPBO_ERR_ARG,
                   "selection: block [%lld, %lld) is not inside the %lld "
                   "candidates",
                   (long long)a->begin, (long long)(a->begin + a->count), (long long)a->n);
  } else if (mechanism_select_plan_make(a->sensitivity, a->epsilon, a->noise_scale_factor, &d->plan,
                                        local) != DPBO_OK) {
    bad = 1;
  } else {
    for (int64_t i = 0; i < a->count && !bad; i++) {
      int64_t k;
      if (mechanism_to_grid(a->scores[i], d->plan.g, "score", &k, local) != DPBO_OK) {
        bad = 1;
        dpbo_error_prefix(local, "selection: candidate %lld", (long long)(a->begin + i));
      } else if (k > local_max) {
        local_max = k;
      }
    }
  }
  const int64_t fields[CHK_FIELDS] = {a->begin,
                                      a->count,
                                      local_max,
                                      a->n,
                                      mechanism_bits_of(a->sensitivity),
                                      mechanism_bits_of(a->epsilon),
                                      a->root,
                                      (int64_t)a->kind,
                                      bad};
  memcpy(mine, fields, sizeof fields);
  return bad;
}

/* Whether the ranks' blocks tile [0, n): sorted by start, each begins where
 * the previous one ended (empty blocks aside). O(P^2), P is small. */
static int mechanism_select_blocks_tile(const select_draw *d) {
  int64_t covered = 0, total = 0;
  for (int pass = 0; pass < d->size; pass++) {
    int found = 0;
    for (int r = 0; r < d->size; r++) {
      const int64_t *f = d->all + (size_t)r * CHK_FIELDS;
      if (f[CHK_COUNT] > 0 && f[CHK_BEGIN] == covered) {
        covered += f[CHK_COUNT];
        found = 1;
        break;
      }
    }
    if (!found) break;
  }
  for (int r = 0; r < d->size; r++)
    total += d->all[(size_t)r * CHK_FIELDS + CHK_COUNT];
  return covered == d->a->n && total == d->a->n;
}

/* Plan, agreement: one exchange so that every rank fails together (a rank
 * that returned early would leave the others in a collective). The same
 * exchange carries each block's maximum grid score, so a draw costs three
 * collectives: this Allgather, then per batch one Bcast and one Allreduce. */
static dpbo_status mechanism_select_agree(select_draw *d, const int64_t mine[CHK_FIELDS],
                                          const dpbo_error *local, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!d->all || mine[CHK_BAD]) {
    /* a rank without the buffer cannot take part in the exchange */
    if (d->all)
      DPBO_MPI_TRY(MPI_Allgather(mine, CHK_FIELDS, MPI_INT64_T, d->all, CHK_FIELDS, MPI_INT64_T,
                                 d->a->comm));
    if (err) *err = *local;
    status = local->code;
    goto done;
  }
  DPBO_MPI_TRY(
      MPI_Allgather(mine, CHK_FIELDS, MPI_INT64_T, d->all, CHK_FIELDS, MPI_INT64_T, d->a->comm));
  for (int r = 0; r < d->size; r++) {
    const int64_t *f = d->all + (size_t)r * CHK_FIELDS;
    if (f[CHK_BAD]) DPBO_RAISE(DPBO_ERR_ARG, "selection: rank %d rejected its arguments", r);
    for (int i = CHK_N; i < CHK_BAD; i++)
      if (f[i] != mine[i])
        DPBO_RAISE(DPBO_ERR_ARG,
                   "selection: ranks %d and %d disagree on n, sensitivity, "
                   "epsilon, root or mechanism",
                   d->rank, r);
  }
  if (!mechanism_select_blocks_tile(d))
    DPBO_RAISE(DPBO_ERR_ARG,
               "selection: the ranks' blocks do not partition the %lld "
               "candidates",
               (long long)d->a->n);
  d->K = INT64_MIN;
  for (int r = 0; r < d->size; r++)
    if (d->all[(size_t)r * CHK_FIELDS + CHK_MAX] > d->K)
      d->K = d->all[(size_t)r * CHK_FIELDS + CHK_MAX];
done:
  return status;
}

/* The exponential mechanism's proposals: b i.i.d. uniform indices of [0, n)
 * into batch[1..b]. */
static int mechanism_select_propose_exponential(select_draw *d, int64_t b) {
  for (int64_t j = 1; j <= b; j++)
    d->batch[j] = (int64_t)dpbo_noise_below(d->a->noise, (uint64_t)d->a->n);
  return 0;
}

/* Permute-and-flip's proposals: the next b elements of a uniformly random
 * order of [0, n). -1 if the order's table could not grow. */
static int mechanism_select_propose_permute(select_draw *d, int64_t b) {
  for (int64_t j = 1; j <= b; j++)
    if (mechanism_perm_next(&d->perm, d->a->noise, d->a->n, &d->batch[j]) != 0) return -1;
  return 0;
}

/* Reduce: each rank flips the coins of the batch's proposals it owns, in
 * order, until one lands heads; one reduction gives the first accepted
 * position (b if none), and (negated, so that MIN finds it) whether any
 * rank's generator has failed so far. The last round's value covers every
 * draw, since nothing is drawn after it. */
static dpbo_status mechanism_select_reduce(select_draw *d, int64_t b, int64_t *global_first,
                                           int *any_failed, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo__select_args *a = d->a;
  int64_t first = b;
  for (int64_t j = 0; j < b; j++) {
    int64_t idx = d->batch[j + 1];
    if (idx < a->begin || idx >= a->begin + a->count) continue;
    int64_t k = (int64_t)round(a->scores[idx - a->begin] / d->plan.g); /* validated above */
    if (mechanism_select_accept(a->noise, &d->plan, d->K, k)) {
      first = j;
      break;
    }
  }
  int64_t send[2] = {first, a->noise->failure != DPBO_OK ? -1 : 0}, recv[2];
  DPBO_MPI_TRY(MPI_Allreduce(send, recv, 2, MPI_INT64_T, MPI_MIN, a->comm));
  *global_first = recv[0];
  *any_failed = recv[1] < 0;
done:
  return status;
}

/* Distributed exact rejection sampling. Why the output has exactly the law
 * of the mechanism:
 *  - Exponential mechanism: proposals I_1, I_2, ... are i.i.d. uniform on
 *    [0, n) and proposal j is accepted, independently, with probability
 *    a_i = exp(-η (K - k_i)) <= 1 for i = I_j. The first accepted proposal is
 *    i with probability (a_i/n) / Σ_l (a_l/n) ∝ exp(η k_i): the exponential
 *    mechanism with scores k_i and rate η (von Neumann rejection; the
 *    candidate with k = K has a = 1, so the acceptance rate per proposal is
 *    at least 1/n). Equal in law to exp(ε' q/(2(Δ + g))) normalized, with q
 *    the grid scores and ε' = epsilon_spent.
 *  - Permute-and-flip (McKenna & Sheldon 2020, Algorithm 1): the proposals
 *    are a uniformly random order of [0, n) and the first candidate whose
 *    coin Bernoulli(exp(ε'(q_i - q*)/(2Δ'))) lands heads is released - the
 *    same coins as above, without replacement. The maximum has a = 1, so at
 *    most n proposals are ever made.
 * Batching changes neither law: every rank draws an independent coin for
 * each proposal it owns, in order, and the minimum position with heads
 * across ranks is the first accepted proposal of the sequence; coins drawn
 * for positions after it are discarded unused. The index depends on the
 * number of ranks only through which generator draws which coin, so its law
 * does not depend on it at all.
 * Run: root proposes a batch (one proposal function per kind), broadcasts
 * it, and the reduce finds the first accepted proposal; batches double until
 * one is accepted. */
static dpbo_status mechanism_select_run(select_draw *d, int64_t *chosen, uint64_t *proposals,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo__select_args *a = d->a;
  int64_t drawn = 0, batch_size = BATCH_FIRST;
  int any_failed = 0;
  *chosen = -1;
  *proposals = 0;
  while (*chosen < 0) {
    int64_t b = batch_size;
    if (a->kind == DPBO_SELECT_PERMUTE_AND_FLIP && b > a->n - drawn) b = a->n - drawn;
    if (b <= 0) /* every candidate was refused: impossible, the max has a = 1 */
      DPBO_RAISE(DPBO_ERR_NUMERIC, "permute-and-flip refused all %lld candidates", (long long)a->n);
    if (d->rank == a->root)
      d->batch[0] =
          (a->kind == DPBO_SELECT_EXPONENTIAL ? mechanism_select_propose_exponential(d, b)
                                              : mechanism_select_propose_permute(d, b)) != 0;
    DPBO_MPI_TRY(MPI_Bcast(d->batch, (int)b + 1, MPI_INT64_T, a->root, a->comm));
    if (d->batch[0] != 0)
      DPBO_RAISE(DPBO_ERR_NOMEM, "selection: rank %d ran out of memory for the random order",
                 a->root);
    int64_t global_first = 0;
    DPBO_TRY(mechanism_select_reduce(d, b, &global_first, &any_failed, err));
    if (global_first < b) {
      *chosen = d->batch[global_first + 1];
      *proposals += (uint64_t)global_first + 1;
    } else {
      *proposals += (uint64_t)b;
    }
    drawn += b;
    batch_size = 2 * batch_size > d->batch_cap ? d->batch_cap : 2 * batch_size;
  }
  /* A failed OS generator on any rank voids the draw everywhere. */
  if (a->noise->failure != DPBO_OK) DPBO_TRY(dpbo_noise_check(a->noise, err));
  if (any_failed)
    DPBO_RAISE(DPBO_ERR_LIBRARY, "selection: another rank's random generator failed; the draw "
                                 "is void");
done:
  return status;
}

/* The selection as a plan (local checks, then agreement across ranks), a
 * run (proposals by kind, each batch reduced to its first accepted
 * proposal; the proof is at mechanism_select_run) and the release. */
dpbo_status dpbo__mech_select_scaled(const dpbo__select_args *args, dpbo_select_release *out,
                                     dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  select_draw d = {.a = args, .rank = 0, .size = 1};
  int64_t mine[CHK_FIELDS], chosen = -1;
  uint64_t proposals = 0;
  dpbo_error local;
  memset(out, 0, sizeof *out);
  out->index = -1;
  DPBO_MPI_TRY(MPI_Comm_rank(args->comm, &d.rank));
  DPBO_MPI_TRY(MPI_Comm_size(args->comm, &d.size));
  (void)mechanism_select_check_local(&d, mine, &local);
  DPBO_TRY(mechanism_select_agree(&d, mine, &local, err));
  DPBO_TRY(mechanism_select_run(&d, &chosen, &proposals, err));
  out->index = chosen;
  out->epsilon = args->epsilon;
  out->sensitivity = args->sensitivity;
  out->granularity = d.plan.g;
  out->eta_num = (double)d.plan.eta_num;
  out->eta_den = ldexp(1.0, d.plan.eta_shift);
  out->epsilon_spent = d.plan.epsilon_spent;
  out->proposals = proposals;
done:
  free(d.batch);
  free(d.all);
  free(d.perm.keys);
  free(d.perm.vals);
  return status;
}

dpbo_status dpbo_mech_select(MPI_Comm comm, int root, dpbo_noise *noise,
                             const dpbo_select_input *in, dpbo_select_release *out,
                             dpbo_error *err) {
  const dpbo__select_args args = {comm,      root,      noise, in->kind,        in->scores,
                                  in->begin, in->count, in->n, in->sensitivity, in->epsilon,
                                  1.0};
  return dpbo__mech_select_scaled(&args, out, err);
}

/* Exact output probabilities. With a_i = exp(-η (K - k_i)) in (0, 1] (the
 * maximum has a = 1, so nothing overflows and the normalizer is >= 1):
 *  - exponential mechanism: p_i = a_i / Σ a_l;
 *  - permute-and-flip: i is released iff it accepts and every candidate
 *    ordered before it refuses. The set S before i is, given its size m, a
 *    uniform m-subset of the others, and P(|S| = m) = 1/n, so
 *      p_i = a_i Σ_m e_m(1 - a_l : l != i) / (n C(n-1, m)),
 *    e_m the elementary symmetric polynomials, built by the usual product
 *    recursion with nonnegative terms only (no cancellation). O(n^3). */
enum { PF_PROBABILITIES_MAX = 512 };

dpbo_status dpbo_mech_select_probabilities(dpbo_select_kind kind, const double *scores, int64_t n,
                                           double sensitivity, double epsilon, double *p,
                                           dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int64_t *k = NULL;
  long double *a = NULL, *e = NULL, *c = NULL;
  select_plan plan;
  if (n < 1)
    DPBO_RAISE(DPBO_ERR_ARG, "selection probabilities: n must be positive, got %lld", (long long)n);
  if (kind != DPBO_SELECT_EXPONENTIAL && kind != DPBO_SELECT_PERMUTE_AND_FLIP)
    DPBO_RAISE(DPBO_ERR_ARG, "selection probabilities: unknown mechanism %d", (int)kind);
  if (kind == DPBO_SELECT_PERMUTE_AND_FLIP && n > PF_PROBABILITIES_MAX)
    DPBO_RAISE(DPBO_ERR_ARG,
               "selection probabilities: permute-and-flip is computed for at most "
               "%d candidates, got %lld",
               PF_PROBABILITIES_MAX, (long long)n);
  DPBO_TRY(mechanism_select_plan_make(sensitivity, epsilon, 1.0, &plan, err));
  DPBO_ALLOC(k, n, "grid scores");
  DPBO_ALLOC(a, n, "acceptance probabilities");
  int64_t K = INT64_MIN;
  for (int64_t i = 0; i < n; i++) {
    DPBO_TRY(mechanism_to_grid(scores[i], plan.g, "score", &k[i], err));
    if (k[i] > K) K = k[i];
  }
  for (int64_t i = 0; i < n; i++) {
    long double gap = (long double)((uint64_t)K - (uint64_t)k[i]); /* exact: 64-bit mantissa */
    a[i] = expl(-ldexpl((long double)plan.eta_num * gap, -plan.eta_shift));
  }
  if (kind == DPBO_SELECT_EXPONENTIAL) {
    long double total = 0.0L;
    for (int64_t i = 0; i < n; i++)
      total += a[i];
    for (int64_t i = 0; i < n; i++)
      p[i] = (double)(a[i] / total);
  } else {
    DPBO_ALLOC(e, n, "elementary symmetric polynomials");
    DPBO_ALLOC(c, n, "order weights");
    c[0] = 1.0L / (long double)n; /* c_m = m! (n-1-m)! / n! */
    for (int64_t m = 0; m + 1 < n; m++)
      c[m + 1] = c[m] * (long double)(m + 1) / (long double)(n - 1 - m);
    for (int64_t i = 0; i < n; i++) {
      int64_t used = 0;
      e[0] = 1.0L;
      for (int64_t l = 0; l < n; l++) {
        if (l == i) continue;
        long double refuse = 1.0L - a[l];
        e[++used] = 0.0L;
        for (int64_t m = used; m >= 1; m--)
          e[m] += e[m - 1] * refuse;
      }
      long double sum = 0.0L;
      for (int64_t m = 0; m < n; m++)
        sum += c[m] * e[m];
      p[i] = (double)(a[i] * sum);
    }
  }
done:
  free(k);
  free(a);
  free(e);
  free(c);
  return status;
}

const char *const dpbo_select_kind_names[] = {"exponential", "permute_and_flip", NULL};

const char *dpbo_select_kind_name(dpbo_select_kind kind) {
  const size_t count = sizeof dpbo_select_kind_names / sizeof *dpbo_select_kind_names - 1;
  return (size_t)kind < count ? dpbo_select_kind_names[kind] : "unknown";
}
