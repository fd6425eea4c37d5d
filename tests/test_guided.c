/* GP-guided private selection (issue #26, src/run/guided.h):
 *  - π's floor and normalisation: every candidate's weight / total >= w/n
 *    exactly (checked in integers), w = 1 is the uniform law, π matches
 *    w/n + (1 − w) softmax(u/τ) to the integer rounding 2n/2^40;
 *  - the weighted candidate law (run/selection.h): Pearson's chi-square of
 *    200,000 draws (fixed seed) against the exact probabilities, critical
 *    value at 1e-6 (tests/stat_check.h); the uniform law draws bit for bit
 *    what dpbo_noise_below(n) draws (today's candidates);
 *  - the accounting: each stage's (ε, δ) is its own method's at its share
 *    (private_evaluations' discrete Gaussian bound, the stopping method's
 *    or random search's calibration), the total is their basic composition
 *    and <= (ε, δ); random search's stage 2 is pure: (ε − ε1, 0), and the
 *    total's δ is stage 1's alone;
 *  - bad settings: refused naming the key, by the checks and by a config
 *    load, before anything is drawn;
 *  - one whole release on a small table: λ̃ in Λ, its score in [lo, hi],
 *    and, with a steep law, stage 2's runs concentrate where stage 1's
 *    posterior is high; with guided_base = random_search (issue #26, the
 *    third base; refused as a config value before it) exactly T1 + T2
 *    gains are read per release, T2 = T − T1 of them stage 2's candidates,
 *    other noise seeds draw other candidates, and privacy.split is kept
 *    for it (and refused outside (0, 1), naming the key). */
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "stat_check.h"
#include "dpbo/noise.h"
#include "run/config.h"
#include "run/guided.h"
#include "run/private_evals_settings.h"
#include "run/selection.h"

#define STAT_ALPHA 1e-6

static void test_law_floor(void) {
  enum { N = 50 };
  double u[N];
  uint64_t cdf[N];
  dpbo_error err;
  dpbo_rng rng;
  dpbo_rng_seed(&rng, 26, 1);
  const double weights[] = {1e-6, 0.05, 0.3, 0.999, 1.0};
  const double temps[] = {1e-4, 0.02, 1.0};
  for (size_t a = 0; a < sizeof weights / sizeof *weights; a++)
    for (size_t b = 0; b < sizeof temps / sizeof *temps; b++) {
      const double w = weights[a], tau = temps[b];
      for (int i = 0; i < N; i++)
        u[i] = 0.5 + 0.3 * ((double)dpbo_rng_below64(&rng, 1000) / 1000.0) + (i == 7 ? 5.0 : 0.0);
      CHECK_OK(dpbo_guided_law(u, N, w, tau, cdf, &err));
      const uint64_t total = cdf[N - 1];
      double top = -INFINITY, z = 0.0;
      for (int i = 0; i < N; i++)
        top = fmax(top, u[i]);
      for (int i = 0; i < N; i++)
        z += exp((u[i] - top) / tau);
      for (int i = 0; i < N; i++) {
        const uint64_t wi = cdf[i] - (i ? cdf[i - 1] : 0);
        /* The floor exactly: wi / total >= w / N  <=>  N wi >= w total,
         * in long double (64-bit mantissa: both sides exact here). */
        CHECK_MSG((long double)N * (long double)wi >= (long double)w * (long double)total,
                  "w %g tau %g: candidate %d has %llu of %llu", w, tau, i, (unsigned long long)wi,
                  (unsigned long long)total);
        /* Normalisation: π_i = wi / total is the mixture up to the integer
         * rounding (each weight is off by < 1 of the ~2^40 total, the
         * floor by < 1 per candidate). */
        const double want = w / N + (1.0 - w) * exp((u[i] - top) / tau) / z;
        CHECK_MSG(fabs((double)wi / (double)total - want) <= 4.0 * N / ldexp(1.0, 40),
                  "w %g tau %g: pi_%d = %.17g, the mixture %.17g", w, tau, i,
                  (double)wi / (double)total, want);
        if (w == 1.0) CHECK(wi == cdf[0]);
      }
    }
  /* A UCB that is not finite is refused. */
  u[3] = NAN;
  CHECK(dpbo_guided_law(u, N, 0.3, 0.02, cdf, &err) == DPBO_ERR_NUMERIC);
}

static void test_law_draws(void) {
  enum { N = 6, DRAWS = 200000 };
  const double u[N] = {0.1, 0.5, 0.52, 0.2, 0.45, 0.3};
  uint64_t cdf[N];
  dpbo_error err;
  CHECK_OK(dpbo_guided_law(u, N, 0.3, 0.05, cdf, &err));
  double p[N];
  for (int i = 0; i < N; i++)
    p[i] = (double)(cdf[i] - (i ? cdf[i - 1] : 0)) / (double)cdf[N - 1];
  int64_t counts[N] = {0};
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 2026, 26);
  const dpbo_selection_law law = {N, cdf};
  for (int k = 0; k < DRAWS; k++) {
    const int64_t i = dpbo_selection_law_draw(&noise, &law);
    CHECK(i >= 0 && i < N);
    if (i >= 0 && i < N) counts[i]++;
  }
  double minimum = INFINITY;
  for (int i = 0; i < N; i++)
    minimum = fmin(minimum, p[i] * DRAWS);
  CHECK(minimum >= 20.0); /* Cochran: the chi-square approximation holds */
  const double x = stat_chi2(counts, p, N, DRAWS), crit = stat_chi2_critical(N - 1, STAT_ALPHA);
  printf("weighted law: chi2 %.3f (critical %.3f at 1e-6, %d cells)\n", x, crit, N);
  CHECK(x < crit);
  /* The uniform law is today's draw, bit for bit. */
  dpbo_noise a, b;
  dpbo_noise_init_seeded(&a, 7, 3);
  dpbo_noise_init_seeded(&b, 7, 3);
  const dpbo_selection_law uniform = {1000, NULL};
  for (int k = 0; k < 1000; k++)
    CHECK(dpbo_selection_law_draw(&a, &uniform) == (int64_t)dpbo_noise_below(&b, 1000));
}

static void test_accounting(void) {
  dpbo_error err;
  const dpbo_algorithm bases[] = {DPBO_ALGORITHM_LIU_TALWAR, DPBO_ALGORITHM_PAPERNOT_STEINKE,
                                  DPBO_ALGORITHM_RANDOM_SEARCH};
  const double epsilons[] = {0.3, 1.0, 3.0};
  for (int b = 0; b < 3; b++)
    for (int e = 0; e < 3; e++) {
      const int search = bases[b] == DPBO_ALGORITHM_RANDOM_SEARCH;
      const dpbo_guided_settings s = {6,        0.3, 0.5, 0.3, 0.02,
                                      bases[b], 1.0, 0.4, 0,   DPBO_GUIDED_SCORE_UCB};
      const double eps = epsilons[e], delta = 1e-6, sens = 1.0 / 500.0;
      dpbo_guided_accounting acc;
      const dpbo_guided_budget at = {eps, delta, 30, sens, 0.01};
      CHECK_OK(dpbo_guided_account(&s, &at, &acc, &err));
      /* Stage 1 is private_evaluations' accounting of K = T1 at its share. */
      double sigma, gpn;
      CHECK_OK(dpbo_private_evals_calibrate(6, sens, (dpbo_privacy_cost){eps * 0.3, delta * 0.5},
                                            0.01, &sigma, &gpn, &err));
      dpbo_private_evals_bound bound;
      CHECK_OK(dpbo_private_evals_account(6, sens, sigma, eps * 0.3, delta * 0.5, &bound, &err));
      CHECK(acc.sigma == sigma && acc.gp_noise_std_used == gpn);
      CHECK(acc.epsilon1_accounted == bound.epsilon && acc.epsilon1_accounted <= eps * 0.3);
      CHECK(acc.delta1_accounted == delta * 0.5);
      /* Stage 2 is the base's calibration at the rest, E[K] = T − T1. */
      CHECK(acc.stage2_runs == 24);
      dpbo_selection_accounting direct;
      CHECK_OK(dpbo_selection_account(bases[b],
                                      (dpbo_privacy_cost){acc.stage2.epsilon, acc.stage2.delta},
                                      0.4, 24, 1.0, &direct, &err));
      CHECK(direct.epsilon_base == acc.stage2.epsilon_base);
      CHECK(direct.epsilon_accounted == acc.stage2.epsilon_accounted);
      CHECK(direct.delta_accounted == acc.stage2.delta_accounted);
      if (search) {
        /* Pure: run at δ2 = 0, privacy.split's shares of ε2; the total's δ
         * is stage 1's alone, its ε the two stages' sum rounded up. */
        CHECK(acc.stage2.delta == 0.0 && acc.stage2.delta_accounted == 0.0);
        CHECK(direct.epsilon_select == acc.stage2.epsilon_select);
        CHECK(direct.epsilon_value == acc.stage2.epsilon_value);
        CHECK_CLOSE(acc.stage2.epsilon_select, 0.4 * acc.stage2.epsilon, 1e-15, 0.0);
        CHECK(acc.delta_accounted == acc.delta1_accounted);
        CHECK(acc.epsilon_accounted ==
              dpbo_privacy_sum_up(acc.epsilon1_accounted, acc.stage2.epsilon_accounted));
      }
      CHECK(acc.stage2.epsilon + acc.epsilon1 <= eps && acc.stage2.delta + acc.delta1 <= delta);
      CHECK_CLOSE(acc.stage2.epsilon, eps * 0.7, 1e-12, 0.0);
      /* The total: basic composition, never past the budget. */
      CHECK(acc.epsilon_accounted >= acc.epsilon1_accounted + acc.stage2.epsilon_accounted);
      CHECK(acc.delta_accounted >= acc.delta1_accounted + acc.stage2.delta_accounted);
      CHECK(acc.epsilon_accounted <= eps && acc.delta_accounted <= delta);
      printf("guided %s eps %g: stage 1 sigma %.4g (%.6g, %.3g), stage 2 eps0 %.4g (%.6g, %.3g), "
             "total (%.6g, %.3g)\n",
             dpbo_algorithm_name(bases[b]), eps, acc.sigma, acc.epsilon1_accounted,
             acc.delta1_accounted, acc.stage2.epsilon_base, acc.stage2.epsilon_accounted,
             acc.stage2.delta_accounted, acc.epsilon_accounted, acc.delta_accounted);
    }
}

/* A config of the tests, with overrides. */
static dpbo_status guided_config(int count, const char *const *overrides, dpbo_config *config,
                                 dpbo_error *err) {
  static const char *const settings[] = {
      "run.iterations=20",
      "space.kind=grid",
      "space.dim.lambda=log 0.001 0.1 8",
      "gp.kernel=matern52",
      "gp.lengthscale=0.3",
      "gp.mean=-0.3",
      "gp.signal_std=0.2",
      "gp.noise_std=0.01",
      "objective.kind=logreg",
      "objective.data=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz",
      "objective.format=csv",
      "objective.train_rows=300",
      "objective.validation_rows=10",
      "objective.positive_label=0",
      "privacy.algorithm=guided",
      "privacy.epsilon=1",
      "privacy.delta=1e-6",
      "privacy.noise=seeded",
      "output.dir=.",
      "output.name=test_guided"};
  return dpbo_config_load_assignments("test_guided", (int)(sizeof settings / sizeof *settings),
                                      settings, count, overrides, config, err);
}

static void test_bad_settings(dpbo_config *config) {
  dpbo_error err;
  dpbo_guided_settings s = {
      6, 0.3, 0.5, 0.3, 0.02, DPBO_ALGORITHM_PAPERNOT_STEINKE, 1.0, 0.0, 0, DPBO_GUIDED_SCORE_UCB};
  dpbo_guided_accounting acc;
  const dpbo_guided_budget at = {1.0, 1e-6, 30, 0.01, 0.01}, no_delta = {1.0, 0.0, 30, 0.01, 0.01};
  struct {
    const char *set, *key;
  } bad[] = {{"privacy.guided_evaluations=19", "privacy.guided_evaluations"},
             {"privacy.guided_evaluations=0", "privacy.guided_evaluations"},
             {"privacy.guided_weight=0", "privacy.guided_weight"},
             {"privacy.guided_weight=1.5", "privacy.guided_weight"},
             {"privacy.guided_epsilon_share=1", "privacy.guided_epsilon_share"},
             {"privacy.guided_delta_share=0", "privacy.guided_delta_share"},
             {"privacy.guided_temperature=0", "privacy.guided_temperature"},
             {"privacy.guided_base=gp_ucb", "privacy.guided_base"},
             {"privacy.delta=0", "privacy.delta"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    const char *over[] = {bad[i].set};
    dpbo_error_clear(&err);
    dpbo_config_free(config);
    memset(config, 0, sizeof *config);
    CHECK_MSG(guided_config(1, over, config, &err) == DPBO_ERR_CONFIG, "%s accepted", bad[i].set);
    CHECK_MSG(strstr(err.message, bad[i].key) != NULL, "%s: '%s'", bad[i].set, err.message);
  }
  /* The same checks for callers that fill the settings (compare). */
  s.stage1_evaluations = 29;
  dpbo_error_clear(&err);
  CHECK(dpbo_guided_account(&s, &at, &acc, &err) == DPBO_ERR_CONFIG);
  CHECK(strstr(err.message, "privacy.guided_evaluations") != NULL);
  s.stage1_evaluations = 6;
  s.weight = 0.0;
  CHECK(dpbo_guided_account(&s, &at, &acc, &err) == DPBO_ERR_CONFIG);
  CHECK(strstr(err.message, "privacy.guided_weight") != NULL);
  s.weight = 0.3;
  CHECK(dpbo_guided_account(&s, &no_delta, &acc, &err) == DPBO_ERR_CONFIG);
  CHECK(strstr(err.message, "privacy.delta") != NULL);
  /* Random search's stage 2 needs privacy.split in (0, 1): at its line in a
   * config, and in the settings of a caller that fills them. */
  const char *split[] = {"privacy.guided_base=random_search", "privacy.split=1"};
  dpbo_error_clear(&err);
  dpbo_config_free(config);
  memset(config, 0, sizeof *config);
  CHECK(guided_config(2, split, config, &err) == DPBO_ERR_CONFIG);
  CHECK_MSG(strstr(err.message, "privacy.split") != NULL, "'%s'", err.message);
  s.base = DPBO_ALGORITHM_RANDOM_SEARCH;
  s.split = 0.0;
  dpbo_error_clear(&err);
  CHECK(dpbo_guided_account(&s, &at, &acc, &err) == DPBO_ERR_CONFIG);
  CHECK_MSG(strstr(err.message, "privacy.split") != NULL, "'%s'", err.message);
}

/* A table of gains: a peak at candidate 5 of 8. */
static dpbo_status table_gain(void *context, int64_t index, double *gain, dpbo_error *err) {
  (void)context, (void)err;
  *gain = -0.5 + 0.4 * exp(-0.5 * (double)((index - 5) * (index - 5)));
  return DPBO_OK;
}

/* The defaults (the least mean regret of bench/guided_defaults.c on public
 * synthetic landscapes, analysis/data/guided-defaults.csv): stage 2 by
 * private random search, T1 = round(T/10) within [1, T - 2], a fifth of ε
 * and half of δ to stage 1, w = 0.3, τ = 0.005. */
static void test_defaults(dpbo_config *config) {
  dpbo_error err;
  const struct {
    const char *iterations;
    int T1;
  } cases[] = {{"run.iterations=20", 2}, {"run.iterations=30", 3}, {"run.iterations=4", 1},
               {"run.iterations=3", 1},  {"run.iterations=44", 4}, {"run.iterations=45", 5}};
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    dpbo_config_free(config);
    memset(config, 0, sizeof *config);
    CHECK_OK(guided_config(1, &cases[i].iterations, config, &err));
    dpbo_guided_settings s;
    dpbo_guided_settings_from(config, &s);
    CHECK_MSG(s.stage1_evaluations == cases[i].T1, "%s: T1 = %d", cases[i].iterations,
              s.stage1_evaluations);
    CHECK(s.base == DPBO_ALGORITHM_RANDOM_SEARCH && s.epsilon_share == 0.2 &&
          s.delta_share == 0.5 && s.weight == 0.3 && s.temperature == 0.005 &&
          s.score == DPBO_GUIDED_SCORE_UCB && s.proxy_rows == 0);
  }
}

static void test_release(dpbo_config *config) {
  dpbo_error err;
  const char *stopping[] = {"privacy.guided_base=papernot_steinke"};
  dpbo_config_free(config);
  memset(config, 0, sizeof *config);
  CHECK_OK(guided_config(1, stopping, config, &err));
  dpbo_guided_settings s;
  dpbo_guided_settings_from(config, &s);
  CHECK(s.base == DPBO_ALGORITHM_PAPERNOT_STEINKE);
  dpbo_guided_accounting acc;
  /* A generous budget so that stage 1's posterior is informative. */
  const dpbo_guided_budget at = {50.0, 1e-6, config->iterations, 0.1, config->prior.noise_std};
  CHECK_OK(dpbo_guided_account(&s, &at, &acc, &err));
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 99, 1);
  const dpbo_guided_gains gains = {table_gain, NULL, NULL, NULL};
  const dpbo_selection_draw draw = {&noise, DPBO_SELECT_EXPONENTIAL, 0.1, -1.0, 0.0, 1.0};
  int64_t hits = 0, runs = 0;
  for (int r = 0; r < 20; r++) {
    dpbo_guided_pick pick;
    CHECK_OK(dpbo_guided_table(config, &s, &acc, &gains, &draw, &pick, &err));
    CHECK(pick.stage2.index >= 0 && pick.stage2.index < 8);
    CHECK(pick.stage2.released >= -1.0 && pick.stage2.released <= 0.0);
    CHECK(pick.pi_min >= s.weight / 8.0 && pick.pi_max <= 1.0);
    hits += pick.stage2.index == 5;
    runs++;
  }
  printf("guided release: lambda~ at the peak in %lld of %lld\n", (long long)hits, (long long)runs);
  /* With the uniform law the peak (1 of 8) wins about 1/8 of the noisy
   * searches at most; guided by a sharp posterior it should win most. A
   * smoke check, not a statistical one: at least a quarter. */
  CHECK(hits * 4 >= runs);
}

/* The table's gains, counting the reads and keeping stage 2's candidates
 * (every read after the first T1, stage 1's). */
typedef struct counted_gains {
  int64_t reads, T1;
  int64_t stage2[64];
} counted_gains;

static dpbo_status counted_gain(void *context, int64_t index, double *gain, dpbo_error *err) {
  counted_gains *c = context;
  if (c->reads >= c->T1 && c->reads - c->T1 < 64) c->stage2[c->reads - c->T1] = index;
  c->reads++;
  return table_gain(NULL, index, gain, err);
}

/* guided_base = random_search: accepted in a config (privacy.split kept for
 * it), and a release reads exactly T1 + T2 gains, stage 2's T2 = T − T1
 * candidates drawn from the noise it is given. */
static void test_release_search(dpbo_config *config) {
  dpbo_error err;
  const char *over[] = {"privacy.guided_base=random_search", "privacy.split=0.3"};
  dpbo_config_free(config);
  memset(config, 0, sizeof *config);
  CHECK_OK(guided_config(2, over, config, &err));
  dpbo_guided_settings s;
  dpbo_guided_settings_from(config, &s);
  CHECK(s.base == DPBO_ALGORITHM_RANDOM_SEARCH && s.split == 0.3);
  dpbo_guided_accounting acc;
  const dpbo_guided_budget at = {50.0, 1e-6, config->iterations, 0.1, config->prior.noise_std};
  CHECK_OK(dpbo_guided_account(&s, &at, &acc, &err));
  const int T1 = s.stage1_evaluations, T2 = config->iterations - T1;
  CHECK(T1 == 2 && acc.stage2_runs == T2 && T2 == 18);
  int64_t hits = 0, runs = 0, first[64];
  int differ = 0;
  for (int r = 0; r < 20; r++) {
    dpbo_noise noise;
    dpbo_noise_init_seeded(&noise, 99 + (uint64_t)r, 1);
    counted_gains c = {0, T1, {0}};
    const dpbo_guided_gains gains = {counted_gain, &c, NULL, NULL};
    const dpbo_selection_draw draw = {&noise, DPBO_SELECT_EXPONENTIAL, 0.1, -1.0, 0.0, 1.0};
    dpbo_guided_pick pick;
    CHECK_OK(dpbo_guided_table(config, &s, &acc, &gains, &draw, &pick, &err));
    CHECK_MSG(c.reads == T1 + T2, "release %d read %lld gains, not T1 + T2 = %d", r,
              (long long)c.reads, T1 + T2);
    CHECK(pick.stage2.runs == T2 && pick.stage2.position >= 0 && pick.stage2.position < T2);
    CHECK(pick.stage2.index == c.stage2[pick.stage2.position]);
    CHECK(pick.stage2.released >= -1.0 && pick.stage2.released <= 0.0);
    if (r == 0)
      memcpy(first, c.stage2, sizeof first);
    else
      differ += memcmp(first, c.stage2, sizeof(int64_t) * (size_t)T2) != 0;
    hits += pick.stage2.index == 5;
    runs++;
  }
  printf("guided random_search: lambda~ at the peak in %lld of %lld; %d of 19 other noise seeds "
         "drew other stage-2 candidates\n",
         (long long)hits, (long long)runs, differ);
  /* Every candidate keeps probability >= w/8 = 0.0375 under any π, so max π
   * <= 1 - 7 * 0.0375 and two releases draw the same 18 candidates with
   * probability sum_i π_i^2 ^ 18 <= (max π)^18 < 0.005; all 19 repeating
   * the first's is below 1e-39. (Fixed seeds: reproducible.) */
  CHECK(differ >= 1);
  CHECK(hits * 4 >= runs);
}

/* Which table a release read from: the proxy's reads and the validation
 * set's, counted apart. */
typedef struct split_reads {
  int64_t proxy, validation;
} split_reads;

static dpbo_status proxy_gain(void *context, int64_t index, double *gain, dpbo_error *err) {
  ((split_reads *)context)->proxy++;
  return table_gain(NULL, index, gain, err);
}

static dpbo_status validation_gain(void *context, int64_t index, double *gain, dpbo_error *err) {
  ((split_reads *)context)->validation++;
  return table_gain(NULL, index, gain, err);
}

/* Stage 1 on the proxy task (privacy.guided_proxy_rows >= 1): its default
 * T1 (2T/3, rounded), an accounting that is stage 2's alone at the whole
 * budget (random search: (ε, 0), allowed at δ = 0; a stopping base still
 * needs δ > 0), T2 = T, and a release that reads the proxy exactly T1 times
 * and the validation set exactly T times, never the other way round. */
static void test_proxy(dpbo_config *config) {
  dpbo_error err;
  const char *over[] = {"privacy.guided_proxy_rows=50", "privacy.guided_base=random_search"};
  dpbo_config_free(config);
  memset(config, 0, sizeof *config);
  CHECK_OK(guided_config(2, over, config, &err));
  dpbo_guided_settings s;
  dpbo_guided_settings_from(config, &s);
  CHECK(dpbo_guided_stage1_is_proxy(&s) && s.proxy_rows == 50);
  /* The proxy defaults (bench/guided_defaults.c): T1 = T, w 0.1, tau 0.01, the posterior mean. */
  CHECK_MSG(s.stage1_evaluations == 20, "proxy default T1 at T = 20: %d", s.stage1_evaluations);
  CHECK(s.weight == 0.1 && s.temperature == 0.01 && s.score == DPBO_GUIDED_SCORE_MEAN);
  const int T = config->iterations;
  const double eps = 1.0, sens = 0.1;
  dpbo_guided_accounting acc;
  const double deltas[] = {1e-6, 0.0};
  for (int d = 0; d < 2; d++) {
    const dpbo_guided_budget at = {eps, deltas[d], T, sens, config->prior.noise_std};
    CHECK_OK(dpbo_guided_account(&s, &at, &acc, &err));
    dpbo_selection_accounting alone;
    CHECK_OK(dpbo_selection_account(DPBO_ALGORITHM_RANDOM_SEARCH, (dpbo_privacy_cost){eps, 0.0},
                                    s.split, T, s.ps_eta, &alone, &err));
    CHECK(acc.epsilon1 == 0.0 && acc.delta1 == 0.0 && acc.epsilon1_accounted == 0.0 &&
          acc.delta1_accounted == 0.0 && acc.sigma == 0.0);
    CHECK(acc.stage2_runs == T && acc.stage2.epsilon_select == alone.epsilon_select &&
          acc.stage2.epsilon_value == alone.epsilon_value);
    CHECK(acc.epsilon_accounted == alone.epsilon_accounted && acc.delta_accounted == 0.0);
  }
  /* A stopping base is approximate DP: δ = 0 is refused. */
  dpbo_guided_settings stopping = s;
  stopping.base = DPBO_ALGORITHM_PAPERNOT_STEINKE;
  const dpbo_guided_budget no_delta = {eps, 0.0, T, sens, config->prior.noise_std};
  CHECK(dpbo_guided_account(&stopping, &no_delta, &acc, &err) != DPBO_OK);
  /* Stage 1 reads the proxy only, stage 2 the validation set only. */
  const dpbo_guided_budget at = {50.0, 1e-6, T, sens, config->prior.noise_std};
  CHECK_OK(dpbo_guided_account(&s, &at, &acc, &err));
  int64_t hits = 0;
  for (int r = 0; r < 10; r++) {
    dpbo_noise noise;
    dpbo_noise_init_seeded(&noise, 7 + (uint64_t)r, 1);
    split_reads reads = {0, 0};
    const dpbo_guided_gains gains = {validation_gain, &reads, proxy_gain, &reads};
    const dpbo_selection_draw draw = {&noise, DPBO_SELECT_EXPONENTIAL, sens, -1.0, 0.0, 1.0};
    dpbo_guided_pick pick;
    CHECK_OK(dpbo_guided_table(config, &s, &acc, &gains, &draw, &pick, &err));
    CHECK_MSG(reads.proxy == s.stage1_evaluations && reads.validation == T,
              "release %d: %lld proxy and %lld validation reads, not %d and %d", r,
              (long long)reads.proxy, (long long)reads.validation, s.stage1_evaluations, T);
    hits += pick.stage2.index == 5;
  }
  printf("guided proxy: lambda~ at the peak in %lld of 10\n", (long long)hits);
  /* Without the proxy's gains a proxy release is refused. */
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 7, 1);
  const dpbo_guided_gains none = {table_gain, NULL, NULL, NULL};
  const dpbo_selection_draw draw = {&noise, DPBO_SELECT_EXPONENTIAL, sens, -1.0, 0.0, 1.0};
  dpbo_guided_pick pick;
  CHECK(dpbo_guided_table(config, &s, &acc, &none, &draw, &pick, &err) == DPBO_ERR_ARG);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  dpbo_config *config = calloc(1, sizeof *config);
  test_law_floor();
  test_law_draws();
  test_accounting();
  if (config) {
    test_bad_settings(config);
    test_defaults(config);
    test_release(config);
    test_release_search(config);
    test_proxy(config);
    dpbo_config_free(config);
  }
  free(config);
  const int code = dpbo_test_summary("test_guided");
  MPI_Finalize();
  return code;
}
