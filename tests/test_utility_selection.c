/* dpbo utility's law of the stopping methods' release
 * (experiments/stopping_law.h):
 *
 *  - the probability generating functions against their series Σ P(K = k)
 *    x^k from core/baseline.h's pmf, Q'(1) = E[K], and the geometric law's
 *    closed form γx/(1 − (1 − γ)x);
 *  - closed forms: K ≡ 1 releases each gain with its weight; K ≡ 2 over two
 *    gains d apart (weights ½) releases the higher with probability
 *    ¼ + ½ P(L1 − L2 < d) = ¼ + ½(1 − ½ e^{−d/b}(1 + d/(2b))) (the
 *    difference of two Lap(b) has density (1 + |x|/b) e^{−|x|/b}/(4b));
 *    gains 200 b apart release the top unless it is never drawn: 1 − Q(1 −
 *    W_top); one gain under the geometric law has the released score's
 *    quantile v + b F^{−1}(q/(γ + (1 − γ)q)), F the standard Laplace CDF;
 *    Σ p = 1 for gains far apart and close together;
 *  - the formula against the real sampler (run/selection.h: the secret K
 *    of dpbo_selection_draw_runs, then dpbo_selection_stopping's runs of Q
 *    over uniform candidates) at a fixed seed, R releases for Liu–Talwar
 *    (T = 4) and Papernot–Steinke (η = 0.5 and 0, E[K] = 4): each cell's
 *    frequency within Bernstein's two-sided binomial bound at α = 1e−6,
 *    |p̂ − p| <= √(2 p(1 − p) L/R) + L/(3R), L = log(2/α); Pearson's
 *    chi-square against its 1 − 1e−6 quantile (stat_check.h); the released
 *    scores' empirical CDF against Q(G(s)) within the DKW bound at 1e−6. The
 *    Liu–Talwar sample must reject the law of a fixed K = 4 (power). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/baseline.h"
#include "experiments/stopping_law.h"
#include "run/selection.h"
#include "stat_check.h"

#define R 400000
#define ENTRIES 5
#define GRID 41

/* The candidates of the Monte-Carlo check: one tie (0.55 twice). */
static const double entry_gain[ENTRIES] = {0.50, 0.55, 0.55, 0.62, 0.64};
static const double cell_gain[4] = {0.50, 0.55, 0.62, 0.64};
static const double cell_weight[4] = {0.2, 0.4, 0.2, 0.2};

typedef struct draws {
  dpbo_rng rng;
} draws;

static dpbo_status next_uniform(void *context, int64_t k, int64_t *index, double *gain,
                                dpbo_error *err) {
  draws *d = context;
  (void)k;
  (void)err;
  *index = dpbo_selection_candidate(&d->rng, ENTRIES);
  *gain = entry_gain[*index];
  return DPBO_OK;
}

static int cell_of(double gain) {
  for (int c = 0; c < 4; c++)
    if (gain == cell_gain[c]) return c;
  return -1;
}

static double laplace_inverse(double q) { return q < 0.5 ? log(2.0 * q) : -log(2.0 * (1.0 - q)); }

static void check_pgf(const dpbo_runs_law *law, double eta, double gamma) {
  for (int i = 0; i <= 10; i++) {
    double x = i / 10.0;
    long double q = 0.0L, slope = 0.0L;
    for (int64_t k = 1; k < 20000; k++) {
      double pk = dpbo_baseline_tnb_pmf(eta, gamma, k);
      q += (long double)pk * powl(x, (long double)k);
      slope += (long double)pk * (long double)k * powl(x, (long double)(k - 1));
    }
    CHECK_CLOSE(dpbo_stopping_pgf(law, x, 1.0 - x), (double)q, 1e-11, 1e-300);
    CHECK_CLOSE(dpbo_stopping_pgf_slope(law, x, 1.0 - x), (double)slope, 1e-10, 1e-300);
  }
  CHECK_CLOSE(dpbo_stopping_pgf_slope(law, 1.0, 0.0), dpbo_baseline_tnb_mean(eta, gamma), 1e-12,
              0.0);
}

/* R releases of the real sampler; counts per cell and the released scores. */
static void sample(dpbo_algorithm algorithm, const dpbo_selection_accounting *acc, int T, double b,
                   uint64_t seed, int64_t counts[4], double *scores) {
  dpbo_noise noise;
  draws d;
  dpbo_error err;
  dpbo_noise_init_seeded(&noise, seed, 7);
  dpbo_rng_seed(&d.rng, seed, 3);
  memset(counts, 0, 4 * sizeof *counts);
  for (int r = 0; r < R; r++) {
    dpbo_selection_pick pick;
    int64_t K = dpbo_selection_draw_runs(&noise, algorithm, T, acc);
    const dpbo_selection_runs runs = {next_uniform, &d, K, T};
    const dpbo_selection_draw draw = {&noise, DPBO_SELECT_EXPONENTIAL, b, -100.0, 100.0, 1.0};
    if (dpbo_selection_stopping(&runs, &draw, 1.0, &pick, &err) != DPBO_OK) {
      CHECK_MSG(0, "dpbo_selection_stopping: %s", err.message);
      return;
    }
    int c = cell_of(entry_gain[pick.index]);
    if (c >= 0) counts[c]++;
    scores[r] = pick.released;
  }
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double chi2_of(const int64_t counts[4], const double p[4]) {
  return stat_chi2(counts, p, 4, R);
}

static void check_against_sampler(const char *name, dpbo_algorithm algorithm,
                                  const dpbo_selection_accounting *acc, int T, uint64_t seed) {
  dpbo_error err;
  dpbo_runs_law law;
  double p[4], b = 0.05; /* Δ = 0.05 at ε0 = 1 */
  int64_t counts[4];
  double *scores = malloc(sizeof(double) * R);
  CHECK_OK(dpbo_stopping_runs_law(algorithm, T, acc, &law, &err));
  CHECK_OK(dpbo_stopping_law(&law, cell_gain, cell_weight, 4, b, p, &err));
  sample(algorithm, acc, T, b, seed, counts, scores);
  const double L = log(2.0 / STAT_ALPHA);
  for (int c = 0; c < 4; c++) {
    double hat = (double)counts[c] / R;
    double bound = sqrt(2.0 * p[c] * (1.0 - p[c]) * L / R) + L / (3.0 * R);
    printf("%s: P(gain %.2f) = %.5f, sampler %.5f (bound %.5f)\n", name, cell_gain[c], p[c], hat,
           bound);
    CHECK_MSG(fabs(hat - p[c]) <= bound, "%s: cell %d: %.5f vs %.5f", name, c, hat, p[c]);
  }
  double x2 = chi2_of(counts, p), crit = stat_chi2_critical(3, STAT_ALPHA);
  printf("%s: chi-square %.3f (critical %.3f)\n", name, x2, crit);
  CHECK(x2 <= crit);
  /* The released scores' CDF against Q(G(s)). */
  qsort(scores, R, sizeof *scores, cmp_double);
  double worst = 0.0, dkw = stat_dkw_bound(R, STAT_ALPHA);
  for (int i = 0; i < GRID; i++) {
    double s = 0.3 + 0.6 * i / (GRID - 1);
    int64_t lo = 0, hi = R;
    while (lo < hi) {
      int64_t mid = (lo + hi) / 2;
      if (scores[mid] <= s)
        lo = mid + 1;
      else
        hi = mid;
    }
    double F = dpbo_stopping_cdf(&law, cell_gain, cell_weight, 4, b, s);
    worst = fmax(worst, fabs((double)lo / R - F));
  }
  printf("%s: sup |F_R - Q(G)| = %.5f (DKW %.5f)\n", name, worst, dkw);
  CHECK(worst <= dkw);
  if (algorithm == DPBO_ALGORITHM_LIU_TALWAR) {
    /* Power: the same sample rejects the law of K fixed at E[K]. */
    dpbo_runs_law fixed = {.kind = DPBO_RUNS_FIXED, .k = T};
    double q[4];
    CHECK_OK(dpbo_stopping_law(&fixed, cell_gain, cell_weight, 4, b, q, &err));
    double wrong = chi2_of(counts, q);
    printf("%s: chi-square against K = %d fixed: %.1f\n", name, T, wrong);
    CHECK(wrong > crit);
  }
  free(scores);
}

int main(void) {
  dpbo_error err;
  dpbo_error_clear(&err);

  /* Probability generating functions. */
  {
    double gamma;
    dpbo_runs_law law = {.kind = DPBO_RUNS_TNB, .eta = 1.0, .gamma = 0.25};
    for (int i = 0; i <= 10; i++) {
      double x = i / 10.0;
      CHECK_CLOSE(dpbo_stopping_pgf(&law, x, 1.0 - x), 0.25 * x / (1.0 - 0.75 * x), 1e-13, 1e-300);
      CHECK_CLOSE(dpbo_stopping_pgf_slope(&law, x, 1.0 - x),
                  0.25 / ((1.0 - 0.75 * x) * (1.0 - 0.75 * x)), 1e-13, 0.0);
    }
    check_pgf(&law, 1.0, 0.25);
    const double etas[3] = {0.0, 0.5, 3.0};
    for (int i = 0; i < 3; i++) {
      CHECK_OK(dpbo_baseline_tnb_gamma(etas[i], 10.0, &gamma, &err));
      dpbo_runs_law ps = {.kind = etas[i] == 0.0 ? DPBO_RUNS_LOGARITHMIC : DPBO_RUNS_TNB,
                          .eta = etas[i],
                          .gamma = gamma};
      check_pgf(&ps, etas[i], gamma);
    }
  }

  /* Closed forms. */
  {
    const double b = 0.1;
    double v[2], w[2] = {0.5, 0.5}, p[2];
    dpbo_runs_law one = {.kind = DPBO_RUNS_FIXED, .k = 1}, two = {.kind = DPBO_RUNS_FIXED, .k = 2};
    const double gaps[4] = {0.03, 0.2, 1.0, 20.0};
    for (int i = 0; i < 4; i++) {
      v[0] = 0.3;
      v[1] = 0.3 + gaps[i];
      CHECK_OK(dpbo_stopping_law(&one, v, w, 2, b, p, &err));
      CHECK_CLOSE(p[1], 0.5, 1e-10, 0.0);
      CHECK_OK(dpbo_stopping_law(&two, v, w, 2, b, p, &err));
      double dd = gaps[i] / b;
      double want = 0.25 + 0.5 * (1.0 - 0.5 * exp(-dd) * (1.0 + dd / 2.0));
      printf("K = 2, gap %.2f b: P(top) = %.15f, closed form %.15f\n", dd, p[1], want);
      CHECK_CLOSE(p[1], want, 1e-10, 0.0);
      CHECK_CLOSE(p[0] + p[1], 1.0, 1e-11, 0.0);
    }
    /* Far apart: the top is released unless never drawn. */
    double gamma;
    CHECK_OK(dpbo_baseline_tnb_gamma(0.5, 6.0, &gamma, &err));
    dpbo_runs_law laws[3] = {{.kind = DPBO_RUNS_TNB, .eta = 1.0, .gamma = 0.2},
                             {.kind = DPBO_RUNS_TNB, .eta = 0.5, .gamma = gamma},
                             {.kind = DPBO_RUNS_LOGARITHMIC, .eta = 0.0, .gamma = 0.05}};
    double vf[3] = {0.0, 20.0, 40.0}, wf[3] = {0.5, 0.3, 0.2}, pf[3];
    for (int i = 0; i < 3; i++) {
      CHECK_OK(dpbo_stopping_law(&laws[i], vf, wf, 3, b, pf, &err));
      double top = 1.0 - dpbo_stopping_pgf(&laws[i], 0.8, 0.2);
      double mid = 1.0 - dpbo_stopping_pgf(&laws[i], 0.5, 0.5) - top;
      printf("gains 200 b apart, law %d: P(top) = %.15f (1 - Q(0.8) = %.15f)\n", i, pf[2], top);
      CHECK_CLOSE(pf[2], top, 1e-10, 0.0);
      CHECK_CLOSE(pf[1], mid, 1e-10, 0.0);
      CHECK_CLOSE(pf[0] + pf[1] + pf[2], 1.0, 1e-11, 0.0);
    }
    /* One gain, geometric K: the released score's quantiles. */
    double one_v = 0.4, one_w = 1.0;
    for (int q = 1; q < 20; q++) {
      double level = q / 20.0, g = 0.2;
      dpbo_runs_law geo = {.kind = DPBO_RUNS_TNB, .eta = 1.0, .gamma = g};
      double want = one_v + b * laplace_inverse(level / (g + (1.0 - g) * level));
      CHECK_CLOSE(dpbo_stopping_quantile(&geo, &one_v, &one_w, 1, b, level), want, 1e-9, 1.0);
    }
    /* Many gains, some within a scale, some far: Σ p = 1. */
    double vm[12], wm[12], pm[12];
    for (int j = 0; j < 12; j++) {
      vm[j] = j < 6 ? 0.01 * j : 5.0 + 0.7 * j;
      wm[j] = 1.0 / 12.0;
    }
    for (int i = 0; i < 3; i++) {
      CHECK_OK(dpbo_stopping_law(&laws[i], vm, wm, 12, b, pm, &err));
      long double sum = 0.0L;
      for (int j = 0; j < 12; j++)
        sum += pm[j];
      CHECK_CLOSE((double)sum, 1.0, 1e-11, 0.0);
    }
    /* Bad input is refused. */
    double bad_v[2] = {0.5, 0.5};
    CHECK(dpbo_stopping_law(&one, bad_v, w, 2, b, p, &err) == DPBO_ERR_ARG);
  }

  /* Against the sampler. */
  {
    dpbo_selection_accounting lt = {0}, ps = {0}, ps0 = {0};
    lt.gamma = 0.25;
    lt.eta = 1.0;
    check_against_sampler("liu_talwar T = 4", DPBO_ALGORITHM_LIU_TALWAR, &lt, 4, 2015);
    ps.eta = 0.5;
    CHECK_OK(dpbo_baseline_tnb_gamma(0.5, 4.0, &ps.gamma, &err));
    check_against_sampler("papernot_steinke eta = 0.5", DPBO_ALGORITHM_PAPERNOT_STEINKE, &ps, 4,
                          2016);
    ps0.eta = 0.0;
    CHECK_OK(dpbo_baseline_tnb_gamma(0.0, 4.0, &ps0.gamma, &err));
    check_against_sampler("papernot_steinke eta = 0", DPBO_ALGORITHM_PAPERNOT_STEINKE, &ps0, 4,
                          2017);
  }
  return dpbo_test_summary("test_utility_selection");
}
