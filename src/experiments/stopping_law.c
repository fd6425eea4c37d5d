/* The law of the stopping methods' release (stopping_law.h states and
 * derives every formula). */
#include "experiments/stopping_law.h"

#include "run/algorithm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Beyond this many scales from every gain the integrand is below e^-45 of
 * its peak: the quadrature skips it. */
#define STOPPING_REACH 45.0

/* 8-point Gauss–Legendre nodes and weights on [−1, 1] (symmetric pairs). */
static const double gl_node[4] = {0.1834346424956498, 0.5255324099163290, 0.7966664774136267,
                                  0.9602898564975363};
static const double gl_weight[4] = {0.3626837833783620, 0.3137066458778873, 0.2223810344533745,
                                    0.1012285362903763};

dpbo_status dpbo_stopping_runs_law(dpbo_algorithm algorithm, int T,
                                   const dpbo_selection_accounting *acc, dpbo_runs_law *out,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(out, 0, sizeof *out);
  if (!dpbo_algorithm_ops_get(algorithm)->stopping)
    DPBO_RAISE(DPBO_ERR_ARG, "utility: %s has no random number of runs",
               dpbo_algorithm_name(algorithm));
  /* The accounting (run/alg_stopping.c) states each method's law: Liu–Talwar
   * is D_{1, 1/T}, Papernot–Steinke D_{η,γ}. */
  if (T <= 1) {
    /* Geometric(1/T) by exact Bernoulli(1/T) coins: K ≡ 1 at T = 1
     * (Papernot–Steinke needs T >= 2 and never gets here). */
    out->kind = DPBO_RUNS_FIXED;
    out->k = 1;
  } else {
    out->kind = acc->eta == 0.0 ? DPBO_RUNS_LOGARITHMIC : DPBO_RUNS_TNB;
    out->eta = acc->eta;
    out->gamma = acc->gamma;
  }
  if (out->kind != DPBO_RUNS_FIXED && !(out->gamma > 0.0 && out->gamma < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "utility: the stopping law's gamma %g is outside (0, 1)", out->gamma);
done:
  return status;
}

/* u = γ + (1 − γ) y = 1 − (1 − γ) x, from y = 1 − x without cancellation. */
static double runs_u(const dpbo_runs_law *law, double y) {
  return law->gamma + (1.0 - law->gamma) * y;
}

double dpbo_stopping_pgf(const dpbo_runs_law *law, double x, double y) {
  if (law->kind == DPBO_RUNS_FIXED) return x <= 0.0 ? 0.0 : exp((double)law->k * log1p(-y));
  if (law->kind == DPBO_RUNS_TNB) /* γ^η (u^−η − 1)/(1 − γ^η) */
    return exp(law->eta * log(law->gamma)) * expm1(-law->eta * log(runs_u(law, y))) /
           -expm1(law->eta * log(law->gamma));
  return log(runs_u(law, y)) / log(law->gamma);
}

double dpbo_stopping_pgf_slope(const dpbo_runs_law *law, double x, double y) {
  switch (law->kind) {
  case DPBO_RUNS_FIXED:
    if (law->k == 1) return 1.0;
    return x <= 0.0 ? 0.0 : (double)law->k * exp((double)(law->k - 1) * log1p(-y));
  case DPBO_RUNS_TNB: {
    /* η (1 − γ) γ^η u^{−η−1}/(1 − γ^η), in logs. */
    const double eta = law->eta, lg = log(law->gamma);
    return exp(log(eta) + log1p(-law->gamma) + eta * lg - (eta + 1.0) * log(runs_u(law, y)) -
               log(-expm1(eta * lg)));
  }
  default:
    return (1.0 - law->gamma) / (runs_u(law, y) * -log(law->gamma));
  }
}

/* The law of a noisy gain: the mixture of Lap(v_j, b) with weights w_j
 * over the d gains v (ascending), with the weights' prefix sums `below`
 * (stopping_check). */
typedef struct stopping_mixture {
  const double *v, *w, *below;
  int64_t d;
  double b;
} stopping_mixture;

/* G(s) and 1 − G(s), each summed from its own side (no cancellation): the
 * gains far below s add their whole weight to G (prefix sums `below`), those
 * within reach add their Laplace CDF. lo/hi bound the gains within reach. */
static void stopping_cdf_pair(const stopping_mixture *mix, double s, double *G, double *Gbar) {
  const double *v = mix->v, *w = mix->w, *below = mix->below;
  const int64_t d = mix->d;
  const double b = mix->b;
  /* First gain >= s − reach and first gain > s + reach, by bisection. */
  const double reach = STOPPING_REACH * b;
  int64_t lo = 0, hi = d;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (v[mid] < s - reach)
      lo = mid + 1;
    else
      hi = mid;
  }
  int64_t first = lo;
  hi = d;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (v[mid] <= s + reach)
      lo = mid + 1;
    else
      hi = mid;
  }
  int64_t last = lo; /* window [first, last) */
  long double g = below[first], gbar = 1.0L - below[last];
  for (int64_t j = first; j < last; j++) {
    double z = (s - v[j]) / b;
    double half = 0.5 * exp(-fabs(z));
    if (z < 0.0) {
      g += (long double)w[j] * half;
      gbar += (long double)w[j] * (1.0 - half);
    } else {
      g += (long double)w[j] * (1.0 - half);
      gbar += (long double)w[j] * half;
    }
  }
  /* below[last] carries the rounding of the prefix sums: clip to [0, 1]. */
  *G = (double)fminl(fmaxl(g, 0.0L), 1.0L);
  *Gbar = (double)fminl(fmaxl(gbar, 0.0L), 1.0L);
}

static dpbo_status stopping_check(const double *v, const double *w, int64_t d, double b,
                                  double **below, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  *below = NULL;
  if (d < 1 || !(b > 0.0 && isfinite(b)))
    DPBO_RAISE(DPBO_ERR_ARG, "utility: the stopping law needs gains and a positive scale");
  for (int64_t j = 0; j < d; j++)
    if (!isfinite(v[j]) || !(w[j] > 0.0) || (j > 0 && !(v[j] > v[j - 1])))
      DPBO_RAISE(DPBO_ERR_ARG, "utility: the gains must be finite, distinct and ascending, with "
                               "positive weights");
  DPBO_ALLOC(*below, d + 1, "the weights' prefix sums");
  long double sum = 0.0L;
  for (int64_t j = 0; j <= d; j++) {
    (*below)[j] = (double)sum;
    if (j < d) sum += w[j];
  }
done:
  return status;
}

dpbo_status dpbo_stopping_law(const dpbo_runs_law *law, const double *v, const double *w, int64_t d,
                              double b, double *p, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *below = NULL;
  long double *acc = NULL;
  DPBO_TRY(stopping_check(v, w, d, b, &below, err));
  DPBO_ALLOC(acc, d, "the stopping law");
  const stopping_mixture mix = {v, w, below, d, b};
  const double reach = STOPPING_REACH * b;
  double A, Abar, B, Bbar;
  stopping_cdf_pair(&mix, v[0], &A, &Abar);
  stopping_cdf_pair(&mix, v[d - 1], &Bbar, &B);
  /* The tails in closed form (stopping_law.h). */
  const double lower = dpbo_stopping_pgf(law, A, Abar) / (2.0 * A);
  const double upper = (1.0 - dpbo_stopping_pgf(law, Bbar, B)) / (2.0 * B);
  for (int64_t j = 0; j < d; j++)
    acc[j] = (long double)(exp((v[0] - v[j]) / b) * lower + exp((v[j] - v[d - 1]) / b) * upper);
  /* Between consecutive gains: Gauss–Legendre on pieces of width <= b,
   * within reach of either end. */
  for (int64_t k = 0; k + 1 < d; k++) {
    const double a0 = v[k], a1 = v[k + 1], len = a1 - a0;
    double spans[2][2];
    int nspan = 0;
    if (len <= 2.0 * reach) {
      spans[nspan][0] = a0;
      spans[nspan++][1] = a1;
    } else {
      spans[nspan][0] = a0;
      spans[nspan++][1] = a0 + reach;
      spans[nspan][0] = a1 - reach;
      spans[nspan++][1] = a1;
    }
    for (int sp = 0; sp < nspan; sp++) {
      const double x0 = spans[sp][0], x1 = spans[sp][1];
      const int64_t pieces = (int64_t)ceil((x1 - x0) / b);
      const double h = (x1 - x0) / (double)(pieces > 0 ? pieces : 1);
      for (int64_t q = 0; q < pieces; q++) {
        const double c = x0 + (q + 0.5) * h, r = 0.5 * h;
        for (int nd = 0; nd < 8; nd++) {
          const double s = c + (nd < 4 ? -1.0 : 1.0) * r * gl_node[nd % 4];
          const double weight = r * gl_weight[nd % 4];
          double G, Gbar;
          stopping_cdf_pair(&mix, s, &G, &Gbar);
          const double slope = dpbo_stopping_pgf_slope(law, G, Gbar) * weight / (2.0 * b);
          if (slope == 0.0) continue;
          for (int64_t j = 0; j < d; j++) {
            const double z = fabs(s - v[j]) / b;
            if (z <= STOPPING_REACH) acc[j] += (long double)(slope * exp(-z));
          }
        }
      }
    }
  }
  for (int64_t j = 0; j < d; j++)
    p[j] = (double)(acc[j] * w[j]);
done:
  free(below);
  free(acc);
  return status;
}

double dpbo_stopping_cdf(const dpbo_runs_law *law, const double *v, const double *w, int64_t d,
                         double b, double s) {
  double *below = NULL, G, Gbar;
  if (stopping_check(v, w, d, b, &below, NULL) != DPBO_OK) return NAN;
  const stopping_mixture mix = {v, w, below, d, b};
  stopping_cdf_pair(&mix, s, &G, &Gbar);
  free(below);
  return dpbo_stopping_pgf(law, G, Gbar);
}

double dpbo_stopping_quantile(const dpbo_runs_law *law, const double *v, const double *w, int64_t d,
                              double b, double level) {
  double *below = NULL;
  if (!(level > 0.0 && level < 1.0) || stopping_check(v, w, d, b, &below, NULL) != DPBO_OK)
    return NAN;
  const stopping_mixture mix = {v, w, below, d, b};
  /* Q(G(s)) rises from 0 to 1; the quantile lies within 60 scales of the
   * gains for any level the report asks (and E[K] below 10^8). */
  double lo = v[0] - 60.0 * b, hi = v[d - 1] + 60.0 * b;
  for (int i = 0; i < 200 && hi - lo > 0.0; i++) {
    double mid = 0.5 * (lo + hi), G, Gbar;
    if (mid == lo || mid == hi) break;
    stopping_cdf_pair(&mix, mid, &G, &Gbar);
    if (dpbo_stopping_pgf(law, G, Gbar) < level)
      lo = mid;
    else
      hi = mid;
  }
  free(below);
  return hi;
}

typedef struct stopping_entry {
  double gain, weight;
} stopping_entry;

static int stopping_entry_cmp(const void *a, const void *b) {
  double x = ((const stopping_entry *)a)->gain, y = ((const stopping_entry *)b)->gain;
  return (x > y) - (x < y);
}

static int stopping_index_cmp(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The law's support from the trace: each evaluation weighs 1/N, or, when
 * the evaluations cover Λ, each candidate 1/n (split among its repeats);
 * equal gains pooled. v, w: d distinct gains, ascending. */
dpbo_status dpbo_stopping_support(const dpbo_run *run, double **v, double **w, int64_t *d,
                                  int *exact, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int64_t N = run->steps, n = dpbo_space_size(run->space);
  int64_t *sorted = NULL;
  stopping_entry *entries = NULL;
  *v = *w = NULL;
  DPBO_ALLOC(sorted, N, "the evaluated candidates");
  DPBO_ALLOC(entries, N, "the evaluated gains");
  for (int64_t t = 0; t < N; t++)
    sorted[t] = run->trace[t].index;
  qsort(sorted, (size_t)N, sizeof *sorted, stopping_index_cmp);
  int64_t distinct = 0;
  for (int64_t t = 0; t < N; t++)
    distinct += t == 0 || sorted[t] != sorted[t - 1];
  *exact = distinct == n;
  for (int64_t t = 0; t < N; t++) {
    /* Repeats of trace[t]'s candidate: the run of equal indices in sorted. */
    int64_t lo = 0, hi = N, x = run->trace[t].index;
    while (lo < hi) {
      int64_t mid = lo + (hi - lo) / 2;
      if (sorted[mid] < x)
        lo = mid + 1;
      else
        hi = mid;
    }
    int64_t r = 0;
    while (lo + r < N && sorted[lo + r] == x)
      r++;
    entries[t].gain = run->trace[t].gain;
    entries[t].weight = *exact ? 1.0 / ((double)n * (double)r) : 1.0 / (double)N;
  }
  qsort(entries, (size_t)N, sizeof *entries, stopping_entry_cmp);
  DPBO_ALLOC(*v, N, "the distinct gains");
  DPBO_ALLOC(*w, N, "their weights");
  int64_t k = 0;
  for (int64_t t = 0; t < N; t++) {
    if (k > 0 && entries[t].gain == (*v)[k - 1]) {
      (*w)[k - 1] += entries[t].weight;
    } else {
      (*v)[k] = entries[t].gain;
      (*w)[k++] = entries[t].weight;
    }
  }
  *d = k;
done:
  if (status != DPBO_OK) {
    free(*v);
    free(*w);
    *v = *w = NULL;
  }
  free(sorted);
  free(entries);
  return status;
}
