#include "objectives/synthetic.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dpbo/rng.h"

/* PCG stream tags: the prior draw and the observation noise come from two
 * streams of the same seed, so adding noise never changes the function. */
#define SYNTH_STREAM_PRIOR 0x5e7u
#define SYNTH_STREAM_NOISE 0x5e8u

/* An upper bound on the feature count, only to turn a typo (1e9 features)
 * into a clear error instead of a failed multi-gigabyte allocation. */
#define SYNTH_MAX_FEATURES (1 << 22)

/* The Matérn-5/2 spectral density is a Student-t with 2ν = 5 degrees of
 * freedom (see synthetic_draw_frequency). */
#define SYNTH_MATERN_DOF 5

typedef struct synthetic {
  dpbo_synthetic_kind kind;
  int d;
  double noise_std;
  uint64_t noise_seed;
  dpbo_rng noise_rng;
  /* gp_prior only */
  const dpbo_space *space; /* NULL: the values are unit coordinates already */
  double mean, signal_std;
  int features;
  double *omega; /* features x d frequencies, already divided by ℓ_i */
  double *phase; /* features phases b_j */
} synthetic;

double dpbo_branin(const double *x) {
  /* Standard constants (Dixon & Szegő 1978; Surjanovic & Bingham's library). */
  const double pi = 3.14159265358979323846;
  const double a = 1.0, b = 5.1 / (4.0 * pi * pi), c = 5.0 / pi;
  const double r = 6.0, s = 10.0, t = 1.0 / (8.0 * pi);
  double x1 = x[0], x2 = x[1];
  double q = x2 - b * x1 * x1 + c * x1 - r;
  return a * q * q + s * (1.0 - t) * cos(x1) + s;
}

double dpbo_hartmann6(const double *x) {
  /* The standard 6-d Hartmann constants; the usual definition is the
   * negative of this sum (a minimization problem), returned here with a plus
   * sign so that larger is better. */
  static const double alpha[4] = {1.0, 1.2, 3.0, 3.2};
  static const double A[4][6] = {{10.0, 3.0, 17.0, 3.5, 1.7, 8.0},
                                 {0.05, 10.0, 17.0, 0.1, 8.0, 14.0},
                                 {3.0, 3.5, 1.7, 10.0, 17.0, 8.0},
                                 {17.0, 8.0, 0.05, 10.0, 0.1, 14.0}};
  static const double P[4][6] = {{0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886},
                                 {0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991},
                                 {0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650},
                                 {0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381}};
  double sum = 0.0;
  for (int i = 0; i < 4; i++) {
    double e = 0.0;
    for (int j = 0; j < 6; j++) {
      double z = x[j] - P[i][j];
      e += A[i][j] * z * z;
    }
    sum += alpha[i] * exp(-e);
  }
  return sum;
}

const char *const dpbo_synthetic_kind_names[] = {"branin", "hartmann6", "gp_prior", NULL};

dpbo_status dpbo_synthetic_kind_parse(const char *text, dpbo_synthetic_kind *kind,
                                      dpbo_error *err) {
  for (int i = 0; dpbo_synthetic_kind_names[i]; i++)
    if (strcmp(text, dpbo_synthetic_kind_names[i]) == 0) {
      *kind = (dpbo_synthetic_kind)i;
      return DPBO_OK;
    }
  return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG,
                        "unknown synthetic function '%s' (expected branin, hartmann6 or gp_prior)",
                        text);
}

static const char *synthetic_kind_name(dpbo_synthetic_kind kind) {
  const size_t count = sizeof dpbo_synthetic_kind_names / sizeof *dpbo_synthetic_kind_names - 1;
  return (size_t)kind < count ? dpbo_synthetic_kind_names[kind] : "unknown";
}

/* One spectral frequency ω ~ p(ω), the normalized spectral density of the
 * unit-length-scale kernel (Bochner: k(τ) = E cos(ωᵀτ)), into omega[d].
 *
 * SE: k = exp(-|τ|²/2) has p = N(0, I).
 * Matérn-ν: k(r) = 2^{1-ν}/Γ(ν) (√(2ν) r)^ν K_ν(√(2ν) r) has
 *   p(ω) ∝ (2ν + |ω|²)^{-(ν + d/2)} ∝ (1 + |ω|²/(2ν))^{-(2ν + d)/2}
 * (Rasmussen & Williams eq. 4.15 with s = ω/2π), which is the density of a
 * multivariate Student-t with m = 2ν degrees of freedom and scale I, i.e.
 *   ω = z · sqrt(m / w),  z ~ N(0, I),  w ~ χ²_m.
 * For ν = 5/2, m = 5: ω = z / sqrt(w / 5). Check: Cov ω = m/(m-2) I = 5/3 I,
 * and the kernel's expansion k = 1 - (5/6) r² + O(r³) requires
 * E (ωᵀτ)² / 2 = (5/6)|τ|², i.e. the same 5/3. (Dividing by sqrt(w / ν)
 * instead would give Cov ω = 5/6 I, a kernel √2 times too long.)
 * χ²_5 is drawn exactly as the sum of five squared normals. */
static void synthetic_draw_frequency(dpbo_rng *rng, dpbo_kernel_kind kind, int d, double *omega) {
  for (int i = 0; i < d; i++)
    omega[i] = dpbo_rng_normal(rng);
  if (kind == DPBO_KERNEL_MATERN52) {
    double w = 0.0;
    for (int k = 0; k < SYNTH_MATERN_DOF; k++) {
      double z = dpbo_rng_normal(rng);
      w += z * z;
    }
    double scale = sqrt((double)SYNTH_MATERN_DOF / w);
    for (int i = 0; i < d; i++)
      omega[i] *= scale;
  }
}

/* g(u) = sqrt(2/D) Σ_j cos(ω_jᵀ (u/ℓ) + b_j) (Rahimi & Recht 2007): E g = 0
 * and E g(u) g(u') = E cos(ωᵀ(u - u')/ℓ) = k(u, u') exactly for any D, and g
 * tends to the Gaussian process as D grows. */
static double synthetic_prior_g(const synthetic *s, const double *u) {
  double sum = 0.0;
  for (int j = 0; j < s->features; j++) {
    const double *w = s->omega + (size_t)j * (size_t)s->d;
    double arg = s->phase[j];
    for (int i = 0; i < s->d; i++)
      arg += w[i] * u[i];
    sum += cos(arg);
  }
  return sqrt(2.0 / s->features) * sum;
}

static dpbo_status synthetic_evaluate(void *impl, int d, const char *const *names,
                                      const double *values, double *gain, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  synthetic *s = impl;
  if (d != s->d)
    DPBO_RAISE(DPBO_ERR_ARG, "synthetic function %s takes %d hyper-parameters, got %d",
               synthetic_kind_name(s->kind), s->d, d);
  double value = 0.0;
  switch (s->kind) {
  case DPBO_SYNTH_BRANIN:
    value = -dpbo_branin(values);
    break;
  case DPBO_SYNTH_HARTMANN6:
    value = dpbo_hartmann6(values);
    break;
  case DPBO_SYNTH_GP_PRIOR: {
    double u[DPBO_MAX_DIM];
    if (s->space)
      dpbo_space_to_unit(s->space, values, u);
    else
      memcpy(u, values, (size_t)d * sizeof *u);
    value = s->mean + s->signal_std * synthetic_prior_g(s, u);
    break;
  }
  }
  /* The noise stream is re-seeded for each evaluation number (see
   * synthetic_begin), so the noise of evaluation t is the same whichever
   * worker runs it; without the driver's announcement it simply advances. */
  if (s->noise_std > 0.0) value += s->noise_std * dpbo_rng_normal(&s->noise_rng);
  *gain = value;
done:
  return status;
}

static void synthetic_destroy(void *impl) {
  synthetic *s = impl;
  if (!s) return;
  free(s->omega);
  free(s->phase);
  free(s);
}

static void synthetic_begin(void *impl, uint64_t evaluation) {
  synthetic *s = impl;
  /* Stream SYNTH_STREAM_NOISE, one seed per evaluation: the seed is spread by
   * a 64-bit odd multiplier so neighbouring evaluations start far apart. */
  dpbo_rng_seed(&s->noise_rng, s->noise_seed ^ (evaluation * 0x9e3779b97f4a7c15ULL),
                SYNTH_STREAM_NOISE);
}

static const dpbo_objective_ops synthetic_ops = {.name = "synthetic",
                                                 .evaluate = synthetic_evaluate,
                                                 .destroy = synthetic_destroy,
                                                 .begin_evaluation = synthetic_begin};

dpbo_status dpbo_synthetic_objective_create(const dpbo_synthetic_options *options,
                                            dpbo_objective *objective, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  synthetic *s = NULL;
  if (!options || !objective) DPBO_RAISE(DPBO_ERR_ARG, "synthetic objective: missing argument");
  if (!(options->noise_std >= 0.0) || !isfinite(options->noise_std))
    DPBO_RAISE(DPBO_ERR_CONFIG, "synthetic noise_std must be a finite number >= 0, got %g",
               options->noise_std);
  DPBO_ALLOC(s, 1, "the synthetic objective");
  s->kind = options->kind;
  s->noise_std = options->noise_std;
  s->noise_seed = options->seed;
  dpbo_rng_seed(&s->noise_rng, options->seed, SYNTH_STREAM_NOISE);

  switch (options->kind) {
  case DPBO_SYNTH_BRANIN:
    s->d = 2;
    break;
  case DPBO_SYNTH_HARTMANN6:
    s->d = 6;
    break;
  case DPBO_SYNTH_GP_PRIOR: {
    const dpbo_kernel *k = &options->kernel;
    if (k->kind != DPBO_KERNEL_SE && k->kind != DPBO_KERNEL_MATERN52)
      DPBO_RAISE(DPBO_ERR_CONFIG, "gp_prior: unknown kernel kind %d", (int)k->kind);
    if (k->d < 1 || k->d > DPBO_MAX_DIM)
      DPBO_RAISE(DPBO_ERR_CONFIG, "gp_prior: kernel dimension %d outside 1..%d", k->d,
                 DPBO_MAX_DIM);
    if (options->space && dpbo_space_dims(options->space) != k->d)
      DPBO_RAISE(DPBO_ERR_CONFIG, "gp_prior: the space has %d dimensions but the kernel %d",
                 dpbo_space_dims(options->space), k->d);
    for (int i = 0; i < k->d; i++)
      if (!(k->lengthscale[i] > 0.0) || !isfinite(k->lengthscale[i]))
        DPBO_RAISE(DPBO_ERR_CONFIG, "gp_prior: length-scale %d must be positive, got %g", i + 1,
                   k->lengthscale[i]);
    if (options->features < 1 || options->features > SYNTH_MAX_FEATURES)
      DPBO_RAISE(DPBO_ERR_CONFIG, "gp_prior: features must be in 1..%d, got %d", SYNTH_MAX_FEATURES,
                 options->features);
    if (!isfinite(options->mean))
      DPBO_RAISE(DPBO_ERR_CONFIG, "gp_prior: mean must be finite, got %g", options->mean);
    if (!(options->signal_std >= 0.0) || !isfinite(options->signal_std))
      DPBO_RAISE(DPBO_ERR_CONFIG, "gp_prior: signal_std must be a finite number >= 0, got %g",
                 options->signal_std);
    s->d = k->d;
    s->space = options->space;
    s->mean = options->mean;
    s->signal_std = options->signal_std;
    s->features = options->features;
    DPBO_ALLOC(s->omega, (size_t)s->features * (size_t)s->d, "gp_prior frequencies");
    DPBO_ALLOC(s->phase, s->features, "gp_prior phases");
    /* Every rank seeds the same stream and draws in the same order (ω_j then
     * b_j, feature by feature), so every rank builds the same function. */
    dpbo_rng rng;
    dpbo_rng_seed(&rng, options->seed, SYNTH_STREAM_PRIOR);
    const double two_pi = 6.28318530717958647692;
    for (int j = 0; j < s->features; j++) {
      double *w = s->omega + (size_t)j * (size_t)s->d;
      synthetic_draw_frequency(&rng, k->kind, s->d, w);
      /* Fold 1/ℓ into ω once: ωᵀ(u/ℓ) = (ω/ℓ)ᵀu. */
      for (int i = 0; i < s->d; i++)
        w[i] /= k->lengthscale[i];
      s->phase[j] = two_pi * dpbo_rng_uniform(&rng);
    }
    break;
  }
  default:
    DPBO_RAISE(DPBO_ERR_CONFIG, "unknown synthetic function kind %d", (int)options->kind);
  }
  if (options->space && options->kind != DPBO_SYNTH_GP_PRIOR &&
      dpbo_space_dims(options->space) != s->d)
    DPBO_RAISE(DPBO_ERR_CONFIG, "synthetic function %s needs %d dimensions, the space has %d",
               synthetic_kind_name(options->kind), s->d, dpbo_space_dims(options->space));

  objective->ops = &synthetic_ops;
  objective->impl = s;
  s = NULL;
done:
  synthetic_destroy(s);
  return status;
}
