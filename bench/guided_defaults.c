/* guided_defaults: how the defaults of privacy.algorithm = guided (issue #26;
 * run/guided.h) were chosen, on PUBLIC synthetic landscapes only, never on a
 * benchmark task.
 *
 * Landscapes: L functions drawn from the GP prior (objective.function =
 * gp_prior, src/objectives/synthetic.c, seeds 1..L) on 1024 Sobol points of
 * [0, 1]^4, shaped like a validation accuracy (mean 0.8, signal std 0.05),
 * with the gain sensitivity Δ = 1/m of m = 2000 validation records. The GP
 * prior stage 1 uses is the one the functions were drawn from (Matérn 5/2,
 * length-scale 0.3): a user fixes it before the data, as for every GP-UCB
 * run.
 *
 * For every setting of a small grid (stage 2's base: papernot_steinke with
 * η = 1, or random_search with split 0.5; T1, ε share, w, τ; δ share 0.5
 * throughout) at T = 30, ε = 1, δ = 1e-6: R releases per landscape
 * (dpbo_guided_table, seeded noise: reproducible), and the regret
 * max_Λ f − f(λ̃), in points of accuracy (x 100). The same for plain
 * Papernot-Steinke and Liu-Talwar (the uniform law, E[K] = T) and plain
 * private random search (T uniform candidates, split 0.5) at the whole budget
 * as references. One CSV line per setting on stdout, sorted as computed; the
 * last line names the setting with the least mean regret.
 *
 *   build/bench/guided_defaults [L [R]] > analysis/data/guided-defaults.csv
 *
 * Stage 1 on a proxy task (privacy.guided_proxy_rows >= 1: a model trained
 * on part of the training rows, scored on the rest; it spends nothing) has
 * its own grid (rows "guided_proxy_ucb" and "guided_proxy_mean": π's score,
 * T1 proxy steps on top of stage 2's T candidates, w, τ; stage 2
 * random_search with all of ε) and its own last line. The proxy of landscape l is that
 * landscape plus a smooth disagreement, a GP-prior draw of mean 0 and
 * signal std 0.02 (two fifths of the landscape's own, seed 1000 + l), plus
 * independent N(0, 0.01²) per candidate (a finite proxy set's sampling
 * error; PCG seed 2000 + l): a proxy that ranks candidates roughly, not
 * exactly, as the validation set does. Fixed before any proxy result on a
 * benchmark task was seen.
 *
 * Without arguments L = 8, R = 25; the committed file has L = 10, R = 40
 * (bench/README.md). */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpbo/noise.h"
#include "dpbo/rng.h"
#include "dpbo/space.h"
#include "objectives/synthetic.h"
#include "run/config.h"
#include "run/guided.h"
#include "run/run.h"
#include "run/selection.h"

enum { T = 30 };
static const double EPSILON = 1.0, DELTA = 1e-6, M_RECORDS = 2000.0;

typedef struct table {
  int64_t n;
  double *gain;
  double best;
} table;

static dpbo_status table_gain(void *context, int64_t index, double *gain, dpbo_error *err) {
  (void)err;
  *gain = ((const table *)context)->gain[index];
  return DPBO_OK;
}

/* The config of landscape `seed` (stage 1's GP and Λ); a proxy's smooth
 * disagreement with mean 0 and signal std 0.02 when `disagreement`. */
static dpbo_status landscape_config(int seed, int disagreement, dpbo_config *config,
                                    dpbo_error *err) {
  char fseed[64];
  snprintf(fseed, sizeof fseed, "objective.seed=%d", seed);
  const char *const settings[] = {"run.iterations=30",
                                  "space.kind=sobol",
                                  "space.points=1024",
                                  "space.dim.a=linear 0 1",
                                  "space.dim.b=linear 0 1",
                                  "space.dim.c=linear 0 1",
                                  "space.dim.d=linear 0 1",
                                  "gp.kernel=matern52",
                                  "gp.lengthscale=0.3",
                                  "gp.mean=0.8",
                                  "gp.signal_std=0.05",
                                  "gp.noise_std=0.001",
                                  "objective.kind=synthetic",
                                  "objective.function=gp_prior",
                                  fseed,
                                  "output.dir=.",
                                  "output.name=guided_defaults"};
  const char *const shape[] = {"gp.mean=0", "gp.signal_std=0.02"};
  return dpbo_config_load_assignments("guided_defaults", (int)(sizeof settings / sizeof *settings),
                                      settings, disagreement ? 2 : 0, shape, config, err);
}

/* Every candidate's gain. */
static dpbo_status landscape_table(const dpbo_config *config, table *tab, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_space *space = NULL;
  dpbo_objective objective = {NULL, NULL};
  DPBO_TRY(dpbo_run_space(config, &space, err));
  tab->n = dpbo_space_size(space);
  const int d = dpbo_space_dims(space);
  const char *names[DPBO_MAX_DIM];
  for (int i = 0; i < d; i++)
    names[i] = dpbo_space_dim(space, i)->name;
  DPBO_ALLOC(tab->gain, tab->n, "the table");
  dpbo_synthetic_options options;
  memset(&options, 0, sizeof options);
  options.kind = config->synthetic;
  options.space = space;
  options.kernel = config->kernel;
  options.mean = config->prior.mean;
  options.signal_std = config->prior.signal_std;
  options.features = config->synthetic_features;
  options.seed = config->synthetic_seed;
  DPBO_TRY(dpbo_synthetic_objective_create(&options, &objective, err));
  tab->best = -INFINITY;
  for (int64_t i = 0; i < tab->n; i++) {
    double u[DPBO_MAX_DIM], v[DPBO_MAX_DIM];
    DPBO_TRY(dpbo_space_unit(space, i, u, err));
    dpbo_space_to_values(space, u, v);
    DPBO_TRY(dpbo_objective_evaluate(&objective, d, names, v, &tab->gain[i], err));
    tab->best = fmax(tab->best, tab->gain[i]);
  }
done:
  dpbo_objective_destroy(&objective);
  dpbo_space_destroy(space);
  return status;
}

/* The proxy of landscape l (the header): the landscape, its smooth
 * disagreement and the proxy set's sampling error. */
static dpbo_status proxy_table(int l, const table *tab, table *proxy, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_config *config = calloc(1, sizeof *config);
  table off = {0, NULL, 0.0};
  if (!config) DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory for the proxy's config");
  DPBO_TRY(landscape_config(1000 + l, 1, config, err));
  DPBO_TRY(landscape_table(config, &off, err));
  DPBO_ALLOC(proxy->gain, tab->n, "the proxy table");
  proxy->n = tab->n;
  dpbo_rng rng;
  dpbo_rng_seed(&rng, 2000 + (uint64_t)l, 0);
  proxy->best = -INFINITY;
  for (int64_t i = 0; i < tab->n; i++) {
    proxy->gain[i] = tab->gain[i] + off.gain[i] + 0.01 * dpbo_rng_normal(&rng);
    proxy->best = fmax(proxy->best, proxy->gain[i]);
  }
done:
  free(off.gain);
  if (config) dpbo_config_free(config);
  free(config);
  return status;
}

/* Uniform candidates from the secret noise: the plain stopping methods. */
typedef struct uniform_draws {
  const table *tab;
  dpbo_noise *noise;
} uniform_draws;

static dpbo_status uniform_next(void *context, int64_t k, int64_t *index, double *gain,
                                dpbo_error *err) {
  const uniform_draws *u = context;
  const dpbo_selection_law law = {u->tab->n, NULL};
  (void)k, (void)err;
  *index = dpbo_selection_law_draw(u->noise, &law);
  *gain = u->tab->gain[*index];
  return DPBO_OK;
}

typedef struct summary {
  double sum, sum2;
  int count;
} summary;

static void summary_add(summary *s, double x) {
  s->sum += x;
  s->sum2 += x * x;
  s->count++;
}

static double summary_mean(const summary *s) { return s->sum / s->count; }

static double summary_se(const summary *s) {
  const double mean = summary_mean(s);
  return sqrt(fmax(s->sum2 / s->count - mean * mean, 0.0) / (s->count - 1));
}

/* Plain private random search at the whole budget over T uniform candidates
 * drawn from the secret noise (its own seed), added to `regret`. */
static dpbo_status plain_random_search(const table *tab, uint64_t stream,
                                       const dpbo_selection_accounting *acc, summary *regret,
                                       dpbo_error *err) {
  dpbo_noise noise;
  dpbo_noise_init_seeded(&noise, 28, stream);
  const dpbo_selection_law law = {tab->n, NULL};
  int64_t index[T];
  double gains[T];
  for (int t = 0; t < T; t++) {
    index[t] = dpbo_selection_law_draw(&noise, &law);
    gains[t] = tab->gain[index[t]];
  }
  dpbo_selection_pick pick;
  const dpbo_selection_draw draw = {&noise, DPBO_SELECT_EXPONENTIAL, 1.0 / M_RECORDS, 0.0, 1.0,
                                    1.0};
  const dpbo_status status = dpbo_selection_random_search(&draw, gains, T, acc->epsilon_select,
                                                          acc->epsilon_value, &pick, err);
  if (status == DPBO_OK) summary_add(regret, 100.0 * (tab->best - tab->gain[index[pick.position]]));
  return status;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  dpbo_error err;
  dpbo_status status = DPBO_OK;
  const int L = argc > 1 ? atoi(argv[1]) : 8, R = argc > 2 ? atoi(argv[2]) : 25;
  const int t1s[] = {3, 6, 10};
  const double shares[] = {0.2, 0.3, 0.5}, weights[] = {0.1, 0.3, 0.6},
               temps[] = {0.005, 0.01, 0.02, 0.05};
  const dpbo_algorithm bases[] = {DPBO_ALGORITHM_PAPERNOT_STEINKE, DPBO_ALGORITHM_RANDOM_SEARCH};
  enum { NB = 2, NT1 = 3, NSH = 3, NW = 3, NTAU = 4 };
  static summary guided[NB][NT1][NSH][NW][NTAU], plain[3];
  /* Stage 1 on the proxy task: T1 of T, w, τ; stage 2 random search. */
  const int proxy_t1s[] = {3, 6, 10, 15, 20, 30};
  enum { NP = 6, NSC = 2 };
  const dpbo_guided_score scores[NSC] = {DPBO_GUIDED_SCORE_UCB, DPBO_GUIDED_SCORE_MEAN};
  const char *const score_names[NSC] = {"ucb", "mean"};
  static summary proxied[NSC][NP][NW][NTAU];
  static dpbo_guided_accounting proxy_acc[NP];
  table proxy = {0, NULL, 0.0};
  static dpbo_guided_accounting acc[NB][NT1][NSH];
  dpbo_config *config = calloc(1, sizeof *config);
  table tab = {0, NULL, 0.0};
  const double sens = 1.0 / M_RECORDS;
  if (!config) return 1;
  for (int z = 0; z < NB; z++)
    for (int a = 0; a < NT1; a++)
      for (int b = 0; b < NSH; b++) {
        const dpbo_guided_settings s = {t1s[a],   shares[b], 0.5, 0.3, 0.02,
                                        bases[z], 1.0,       0.5, 0,   DPBO_GUIDED_SCORE_UCB};
        const dpbo_guided_budget at = {EPSILON, DELTA, T, sens, 0.001};
        DPBO_TRY(dpbo_guided_account(&s, &at, &acc[z][a][b], &err));
      }
  for (int a = 0; a < NP; a++) {
    const dpbo_guided_settings s = {
        proxy_t1s[a],         0.2, 0.5, 0.3, 0.02, DPBO_ALGORITHM_RANDOM_SEARCH, 1.0, 0.5, 1,
        DPBO_GUIDED_SCORE_UCB};
    const dpbo_guided_budget at = {EPSILON, DELTA, T, sens, 0.001};
    DPBO_TRY(dpbo_guided_account(&s, &at, &proxy_acc[a], &err));
  }
  dpbo_selection_accounting plain_acc[3];
  const dpbo_algorithm plain_alg[3] = {DPBO_ALGORITHM_PAPERNOT_STEINKE, DPBO_ALGORITHM_LIU_TALWAR,
                                       DPBO_ALGORITHM_RANDOM_SEARCH};
  for (int p = 0; p < 3; p++)
    DPBO_TRY(dpbo_selection_account(plain_alg[p], (dpbo_privacy_cost){EPSILON, DELTA}, 0.5, T, 1.0,
                                    &plain_acc[p], &err));
  for (int l = 1; l <= L; l++) {
    dpbo_config_free(config);
    memset(config, 0, sizeof *config);
    DPBO_TRY(landscape_config(l, 0, config, &err));
    free(tab.gain);
    tab.gain = NULL;
    DPBO_TRY(landscape_table(config, &tab, &err));
    free(proxy.gain);
    proxy.gain = NULL;
    DPBO_TRY(proxy_table(l, &tab, &proxy, &err));
    for (int r = 0; r < R; r++) {
      const uint64_t stream = (uint64_t)l * 1000003u + (uint64_t)r;
      for (int p = 0; p < 2; p++) { /* the two stopping methods */
        dpbo_noise noise;
        dpbo_noise_init_seeded(&noise, 26 + (uint64_t)p, stream);
        const int64_t K = dpbo_selection_draw_runs(&noise, plain_alg[p], T, &plain_acc[p]);
        uniform_draws draws = {&tab, &noise};
        dpbo_selection_pick pick;
        const dpbo_selection_runs runs = {uniform_next, &draws, K, T};
        const dpbo_selection_draw draw = {&noise, DPBO_SELECT_EXPONENTIAL, sens, 0.0, 1.0, 1.0};
        DPBO_TRY(dpbo_selection_stopping(&runs, &draw, plain_acc[p].epsilon_base, &pick, &err));
        summary_add(&plain[p], 100.0 * (tab.best - tab.gain[pick.index]));
      }
      /* Plain private random search: T uniform candidates from the secret
       * noise, the selection over their gains, then Laplace on the chosen one. */
      DPBO_TRY(plain_random_search(&tab, stream, &plain_acc[2], &plain[2], &err));
      for (int z = 0; z < NB; z++)
        for (int a = 0; a < NT1; a++)
          for (int b = 0; b < NSH; b++)
            for (int c = 0; c < NW; c++)
              for (int e = 0; e < NTAU; e++) {
                const dpbo_guided_settings s = {
                    t1s[a],   shares[b], 0.5, weights[c], temps[e],
                    bases[z], 1.0,       0.5, 0,          DPBO_GUIDED_SCORE_UCB};
                dpbo_noise noise;
                /* Common random numbers across settings: one seed per (l, r). */
                dpbo_noise_init_seeded(&noise, 2026, stream);
                dpbo_guided_pick pick;
                const dpbo_guided_gains gains = {table_gain, &tab, NULL, NULL};
                const dpbo_selection_draw draw = {&noise, DPBO_SELECT_EXPONENTIAL, sens, 0.0, 1.0,
                                                  1.0};
                DPBO_TRY(dpbo_guided_table(config, &s, &acc[z][a][b], &gains, &draw, &pick, &err));
                summary_add(&guided[z][a][b][c][e],
                            100.0 * (tab.best - tab.gain[pick.stage2.index]));
              }
      for (int q = 0; q < NSC; q++)
        for (int a = 0; a < NP; a++)
          for (int c = 0; c < NW; c++)
            for (int e = 0; e < NTAU; e++) {
              const dpbo_guided_settings s = {
                  proxy_t1s[a], 0.2, 0.5, weights[c], temps[e], DPBO_ALGORITHM_RANDOM_SEARCH,
                  1.0,          0.5, 1,   scores[q]};
              dpbo_noise noise;
              dpbo_noise_init_seeded(&noise, 2026, stream);
              dpbo_guided_pick pick;
              const dpbo_guided_gains gains = {table_gain, &tab, table_gain, &proxy};
              const dpbo_selection_draw draw = {&noise, DPBO_SELECT_EXPONENTIAL, sens, 0.0, 1.0,
                                                1.0};
              DPBO_TRY(dpbo_guided_table(config, &s, &proxy_acc[a], &gains, &draw, &pick, &err));
              summary_add(&proxied[q][a][c][e], 100.0 * (tab.best - tab.gain[pick.stage2.index]));
            }
    }
  }
  printf("method,base,T1,epsilon_share,delta_share,weight,temperature,landscapes,releases,"
         "mean_regret_points,se_points\n");
  for (int p = 0; p < 3; p++)
    printf("%s,,0,0,0,1,0,%d,%d,%.4f,%.4f\n", dpbo_algorithm_name(plain_alg[p]), L, plain[p].count,
           summary_mean(&plain[p]), summary_se(&plain[p]));
  double best = INFINITY;
  int bz = 0, ba = 0, bb = 0, bc = 0, be = 0;
  for (int z = 0; z < NB; z++)
    for (int a = 0; a < NT1; a++)
      for (int b = 0; b < NSH; b++)
        for (int c = 0; c < NW; c++)
          for (int e = 0; e < NTAU; e++) {
            const summary *s = &guided[z][a][b][c][e];
            printf("guided,%s,%d,%g,0.5,%g,%g,%d,%d,%.4f,%.4f\n", dpbo_algorithm_name(bases[z]),
                   t1s[a], shares[b], weights[c], temps[e], L, s->count, summary_mean(s),
                   summary_se(s));
            if (summary_mean(s) < best) {
              best = summary_mean(s);
              bz = z, ba = a, bb = b, bc = c, be = e;
            }
          }
  printf("# least mean regret: base = %s, T1 = %d of T = %d, epsilon_share = %g, weight = %g, "
         "temperature = %g (%.4f points)\n",
         dpbo_algorithm_name(bases[bz]), t1s[ba], T, shares[bb], weights[bc], temps[be], best);
  /* Stage 1 on the proxy task: its own grid and rule (least mean regret). */
  best = INFINITY;
  int bq = 0;
  for (int q = 0; q < NSC; q++)
    for (int a = 0; a < NP; a++)
      for (int c = 0; c < NW; c++)
        for (int e = 0; e < NTAU; e++) {
          const summary *s = &proxied[q][a][c][e];
          printf("guided_proxy_%s,random_search,%d,0,0,%g,%g,%d,%d,%.4f,%.4f\n", score_names[q],
                 proxy_t1s[a], weights[c], temps[e], L, s->count, summary_mean(s), summary_se(s));
          if (summary_mean(s) < best) {
            best = summary_mean(s);
            bq = q, ba = a, bc = c, be = e;
          }
        }
  printf("# least mean regret, stage 1 on the proxy task: score = %s, base = random_search, T1 = "
         "%d of T = %d, weight = %g, temperature = %g (%.4f points)\n",
         score_names[bq], proxy_t1s[ba], T, weights[bc], temps[be], best);
done:
  if (status != DPBO_OK) fprintf(stderr, "guided_defaults: %s\n", err.message);
  free(tab.gain);
  free(proxy.gain);
  dpbo_config_free(config);
  free(config);
  MPI_Finalize();
  return status == DPBO_OK ? 0 : 1;
}
