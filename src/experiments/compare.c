/* dpbo compare: DP-BO against private-selection baselines at equal (ε, δ)
 * (compare.h describes the experiment, baseline.h the baselines). */
#include "experiments/compare.h"
#include "run/algorithm.h"

#include <hdf5.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/baseline.h"
#include "base/comm.h"
#include "objectives/dataset.h"
#include "run/output.h"
#include "run/run.h"
#include "run/farm.h"
#include "dpbo/gp.h"
#include "base/h5io.h"
#include "base/log.h"
#include "objectives/logreg.h"
#include "dpbo/mechanism.h"
#include "dpbo/noise.h"
#include "dpbo/privacy.h"
#include "run/release.h"
#include "dpbo/rng.h"
#include "objectives/svm.h"
#include "dpbo/ucb.h"
#include "experiments/utility.h"
#include "dpbo/version.h"
#include "run/release_private.h"
#include "experiments/compare_evals.h"
#include "experiments/compare_table.h"
#include "run/guided.h"

static const char *const method_names[DPBO_COMPARE_METHODS] = {"dpbo",
                                                               "random_search",
                                                               "liu_talwar",
                                                               "papernot_steinke",
                                                               "gp_ucb",
                                                               "random_search_nonprivate",
                                                               "dpbo_algorithm3",
                                                               "private_evaluations_mean",
                                                               "private_evaluations_best",
                                                               "gp_ucb_mean",
                                                               "guided"};

dpbo_status dpbo_compare_account(int method, const dpbo_compare_budget *at,
                                 dpbo_compare_accounting *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const double epsilon = at->epsilon, delta = at->delta, split = at->split;
  const double ps_eta = at->ps_eta;
  const int T = at->T;
  memset(out, 0, sizeof *out);
  out->epsilon = epsilon;
  out->delta = delta;
  if (!(epsilon > 0.0 && delta > 0.0 && delta < 1.0 && split > 0.0 && split < 1.0 && T >= 1))
    DPBO_RAISE(DPBO_ERR_ARG,
               "compare accounting: bad budget (epsilon %g, delta %g, split %g, T %d)", epsilon,
               delta, split, T);
  /* DP-BO and private random search split (ε, δ) between the selection
   * and the value as Algorithm 1 does (the split is the same under both
   * bounds; they differ in the δ shares inside the value's δ). */
  dpbo_privacy_budget budget;
  DPBO_TRY(dpbo_privacy_budget_split(DPBO_ALGORITHM_1, DPBO_BOUNDS_CORRECTED, epsilon, delta, split,
                                     &budget, err));
  switch (method) {
  case DPBO_COMPARE_DPBO:
    /* Two releases, basic composition (the paper's (2ε, 2δ) remark). */
    out->epsilon_select = budget.epsilon_lambda;
    out->epsilon_value = budget.epsilon_value;
    out->epsilon_accounted = dpbo_privacy_round_up(out->epsilon_select + out->epsilon_value);
    out->delta_accounted = dpbo_privacy_round_up(budget.delta_lambda + budget.delta_value);
    break;
  case DPBO_COMPARE_RANDOM_SEARCH:
    DPBO_TRY(dpbo_selection_account(DPBO_ALGORITHM_RANDOM_SEARCH,
                                    (dpbo_privacy_cost){epsilon, delta}, split, T, ps_eta, out,
                                    err));
    break;
  case DPBO_COMPARE_LIU_TALWAR:
    DPBO_TRY(dpbo_selection_account(DPBO_ALGORITHM_LIU_TALWAR, (dpbo_privacy_cost){epsilon, delta},
                                    split, T, ps_eta, out, err));
    break;
  case DPBO_COMPARE_PAPERNOT_STEINKE:
    DPBO_TRY(dpbo_selection_account(DPBO_ALGORITHM_PAPERNOT_STEINKE,
                                    (dpbo_privacy_cost){epsilon, delta}, split, T, ps_eta, out,
                                    err));
    break;
  case DPBO_COMPARE_ALGORITHM3: {
    /* One pure release, f~_L (Theorem 6): Algorithm 3's budget puts the
     * whole ε on the value. */
    dpbo_privacy_budget value_only;
    DPBO_TRY(dpbo_privacy_budget_split(DPBO_ALGORITHM_3, DPBO_BOUNDS_CORRECTED, epsilon, delta,
                                       split, &value_only, err));
    out->epsilon_value = value_only.epsilon_value;
    out->epsilon_accounted = value_only.epsilon_value;
    break;
  }
  case DPBO_COMPARE_GP_UCB:
  case DPBO_COMPARE_RANDOM_SEARCH_NONPRIVATE:
  case DPBO_COMPARE_GP_UCB_MEAN:
    break;
  case DPBO_COMPARE_PRIVATE_EVALS_MEAN:
  case DPBO_COMPARE_PRIVATE_EVALS_BEST:
  case DPBO_COMPARE_GUIDED:
    DPBO_RAISE(DPBO_ERR_ARG,
               "compare accounting: the privatized evaluations need the gain's sensitivity "
               "(dpbo_compare_evals_account)");
  default:
    DPBO_RAISE(DPBO_ERR_ARG, "compare accounting: unknown method %d", method);
  }
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * The table: validation and test accuracy of every candidate. */

typedef struct compare_table {
  int64_t n;
  double *gain;       /* the objective's gain, what the methods select on (svm: = val) */
  double *val, *test; /* accuracy on the validation and on the held-out test rows */
  double seconds;     /* training time summed over ranks */
  /* privacy.guided_proxy_rows = K >= 1: the proxy task's accuracy (the last
   * K training rows, a model trained on the others; run/guided.h), which
   * the guided method's stage 1 reads; else NULL. */
  double *proxy;
  int64_t proxy_rows;
} compare_table;

/* One candidate's row of the table on this rank's objective. */
typedef struct compare_evaluator {
  int logreg;
  dpbo_svm_data *svm; /* svm: eval rows = validation rows, then test rows */
  dpbo_svm_dims dims; /* svm: where C, gamma and the feature weights sit */
  unsigned char *correct;
  dpbo_objective objective; /* logreg */
  int il;                   /* logreg: the position of lambda */
} compare_evaluator;

/* One candidate's row as a worker sends it to rank 0. */
typedef struct compare_row {
  int64_t index;
  double gain, val, test, seconds;
  int32_t code, pad;
  char message[DPBO_ERROR_MSG_MAX];
} compare_row;

/* Candidate v's gain, accuracies and training time into row. */
static dpbo_status compare_evaluate(compare_evaluator *ev, const dpbo_config *config,
                                    const double *v, compare_row *row, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *gain = &row->gain, *val = &row->val, *test = &row->test, *seconds = &row->seconds;
  if (ev->logreg) {
    double t0 = MPI_Wtime();
    DPBO_TRY(dpbo_logreg_compare_evaluate(&ev->objective, v[ev->il], gain, val, test, err));
    *seconds = MPI_Wtime() - t0;
  } else {
    const int64_t m = config->svm.validation_rows, m_test = config->svm.test_rows;
    dpbo_svm_fit fit;
    DPBO_TRY(dpbo_svm_evaluate_at(ev->svm, &config->svm, &ev->dims, v, ev->correct, &fit, err));
    *seconds = fit.train_seconds;
    int64_t right_v = 0, right_t = 0;
    for (int64_t r = 0; r < m; r++)
      right_v += ev->correct[r];
    for (int64_t r = 0; r < m_test; r++)
      right_t += ev->correct[m + r];
    *val = (double)right_v / (double)m;
    *test = m_test > 0 ? (double)right_t / (double)m_test : NAN; /* the proxy task has none */
    *gain = *val; /* the svm objective's gain is the validation accuracy */
  }
done:
  return status;
}

/* This rank's evaluator: the data read, split (train, validation, test)
 * and prepared once. */
static dpbo_status compare_evaluator_create(const dpbo_config *config, const dpbo_space *space,
                                            compare_evaluator *ev, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_dataset *data = NULL;
  const int d = dpbo_space_dims(space);
  const char *names[DPBO_MAX_DIM];
  memset(ev, 0, sizeof *ev);
  ev->il = -1;
  for (int i = 0; i < d && i < DPBO_MAX_DIM; i++) {
    names[i] = dpbo_space_dim(space, i)->name;
    if (strcmp(names[i], "lambda") == 0) ev->il = i;
  }
  ev->logreg = config->objective == DPBO_OBJECTIVE_LOGREG;
  if (ev->logreg) {
    if (d != 1 || ev->il < 0)
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "%s: dpbo compare tunes the logreg objective's one dimension, dim.lambda",
                 config->path);
    DPBO_TRY(
        dpbo_logreg_compare_create(&config->logreg, config->logreg.test_rows, &ev->objective, err));
  } else {
    const dpbo_svm_options *opt = &config->svm;
    /* C, gamma and any feature weights (objectives/svm_dims.h): the names
     * first, the weights' features once the data is read. */
    status = dpbo_svm_dims_find(d, names, 0, opt->data_path, &ev->dims, err);
    if (status != DPBO_OK) {
      dpbo_error_prefix(err, "%s: dpbo compare", config->path);
      goto done;
    }
    /* The eval rows are the validation rows followed by the test rows: the
     * svm objective's split with n_valid + n_test rows after training. */
    dpbo_dataset_options read = {opt->format, opt->max_features, opt->header, opt->label_column,
                                 opt->labels_path};
    DPBO_TRY(dpbo_dataset_read_options(opt->data_path, &read, &data, err));
    DPBO_TRY(dpbo_svm_check_labels(data, opt->data_path, err));
    const dpbo_svm_split split = {opt->split_seed, opt->train_rows,
                                  opt->validation_rows + opt->test_rows};
    DPBO_TRY(dpbo_svm_data_split(data, &split, "dpbo compare (train, validation and test rows)",
                                 opt->data_path, &ev->svm, err));
    status = dpbo_svm_dims_find(d, names, dpbo_svm_data_features(ev->svm), opt->data_path,
                                &ev->dims, err);
    if (status != DPBO_OK) {
      dpbo_error_prefix(err, "%s: dpbo compare", config->path);
      goto done;
    }
    DPBO_ALLOC(ev->correct, (size_t)(opt->validation_rows + opt->test_rows), "the predictions");
  }
done:
  dpbo_dataset_destroy(data);
  return status;
}

static void compare_evaluator_destroy(compare_evaluator *ev) {
  dpbo_svm_data_destroy(ev->svm);
  free(ev->correct);
  dpbo_objective_destroy(&ev->objective);
  memset(ev, 0, sizeof *ev);
}

/* The table as a task farm (run/farm.h): candidates go to the workers one at
 * a time, so a rank whose candidates train fast takes more of them. */
typedef struct compare_fill {
  const dpbo_config *config;
  const dpbo_space *space;
  compare_evaluator *ev;
  compare_table *table; /* rank 0 */
  double seconds;       /* rank 0: training time of the rows filed */
  int64_t filed;
  double start, next_log;
} compare_fill;

static void compare_fill_work(void *context, int64_t i, void *result) {
  compare_fill *fill = context;
  compare_row *row = result;
  dpbo_error err;
  dpbo_error_clear(&err);
  memset(row, 0, sizeof *row);
  row->index = i;
  double u[DPBO_MAX_DIM], v[DPBO_MAX_DIM];
  dpbo_status code = dpbo_space_unit(fill->space, i, u, &err);
  if (code == DPBO_OK) {
    dpbo_space_to_values(fill->space, u, v);
    code = compare_evaluate(fill->ev, fill->config, v, row, &err);
    if (code != DPBO_OK) dpbo_error_prefix(&err, "dpbo compare, candidate %lld", (long long)i);
  }
  row->code = (int32_t)code;
  if (code != DPBO_OK) snprintf(row->message, sizeof row->message, "%s", err.message);
}

static dpbo_status compare_fill_accept(void *context, const void *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  compare_fill *fill = context;
  compare_table *table = fill->table;
  const compare_row *row = result;
  if (row->code != DPBO_OK) DPBO_RAISE((dpbo_status)row->code, "%s", row->message);
  if (row->index < 0 || row->index >= table->n)
    DPBO_RAISE(DPBO_ERR_MPI, "unexpected result for candidate %lld", (long long)row->index);
  table->gain[row->index] = row->gain;
  table->val[row->index] = row->val;
  table->test[row->index] = row->test;
  fill->seconds += row->seconds;
  fill->filed++;
  if ((double)fill->filed >= fill->next_log * (double)table->n) {
    dpbo_log_info("table: %lld of %lld candidates (%.0f%%), %.1f s", (long long)fill->filed,
                  (long long)table->n, 100.0 * fill->filed / table->n, MPI_Wtime() - fill->start);
    fill->next_log += 0.1;
  }
done:
  return status;
}

static dpbo_status compare_table_fill(MPI_Comm comm, const dpbo_config *config,
                                      const dpbo_space *space, compare_table *table,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  compare_evaluator ev;
  memset(&ev, 0, sizeof ev);
  int rank, size;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  const int64_t n = dpbo_space_size(space);
  table->n = n;
  DPBO_ALLOC(table->gain, n, "the gains");
  DPBO_ALLOC(table->val, n, "the validation accuracies");
  DPBO_ALLOC(table->test, n, "the test accuracies");
  /* Rank 0 only hands out candidates when it has workers. */
  if (size == 1 || rank > 0) local = compare_evaluator_create(config, space, &ev, err);
  compare_fill fill = {config, space, &ev, table, 0.0, 0, MPI_Wtime(), 0.1};
  const dpbo_farm_work job = {
      .context = &fill, .work = compare_fill_work, .accept = compare_fill_accept};
  DPBO_TRY(dpbo_compare_table_farm(comm, local, &job, n, sizeof(compare_row), err));
  /* Rank 0 filed every entry; the others hold zeros (the sum keeps the
   * table as it was when each rank filled its share). */
  DPBO_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, table->gain, (int)n, MPI_DOUBLE, MPI_SUM, comm));
  DPBO_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, table->val, (int)n, MPI_DOUBLE, MPI_SUM, comm));
  DPBO_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, table->test, (int)n, MPI_DOUBLE, MPI_SUM, comm));
  DPBO_MPI_TRY(MPI_Allreduce(&fill.seconds, &table->seconds, 1, MPI_DOUBLE, MPI_SUM, comm));
done:
  compare_evaluator_destroy(&ev);
  return status;
}

/* The evaluation of GP-UCB's step (run.h): a table look-up, the same on
 * every rank. */
static dpbo_status compare_table_gain(void *context, int64_t index, double *gain, dpbo_error *err) {
  *gain = ((const compare_table *)context)->gain[index];
  return DPBO_OK;
}

/* The guided method's stage 1 on the proxy task: its accuracy, the same on
 * every rank (never a validation row). */
static dpbo_status compare_table_proxy_gain(void *context, int64_t index, double *gain,
                                            dpbo_error *err) {
  *gain = ((const compare_table *)context)->proxy[index];
  return DPBO_OK;
}

/* The proxy column when the guided method runs stage 1 on the proxy task
 * and the table file did not hold it: every candidate once more, on the
 * proxy task's split (run/guided.h, dpbo_guided_proxy_split). */
static dpbo_status compare_table_proxy(MPI_Comm comm, const dpbo_config *config,
                                       const dpbo_space *space, compare_table *table,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_config *proxy = NULL;
  compare_table got;
  memset(&got, 0, sizeof got);
  int rank;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_ALLOC(proxy, 1, "the proxy task's config");
  *proxy = *config;
  dpbo_guided_proxy_split(proxy, config->guided_proxy_rows);
  const double start = MPI_Wtime();
  /* (The svm objective only: compare_plan refuses the others.) */
  if (rank == 0)
    dpbo_log_info("proxy task (privacy.guided_proxy_rows = %lld): every candidate trained on %lld "
                  "training rows and scored on the other %lld",
                  (long long)config->guided_proxy_rows, (long long)proxy->svm.train_rows,
                  (long long)config->guided_proxy_rows);
  DPBO_TRY(compare_table_fill(comm, proxy, space, &got, err));
  table->proxy = got.val;
  got.val = NULL;
  table->proxy_rows = config->guided_proxy_rows;
  if (rank == 0)
    dpbo_log_info("proxy task done in %.1f s (%.1f s training over all ranks)", MPI_Wtime() - start,
                  got.seconds);
done:
  free(got.gain);
  free(got.val);
  free(got.test);
  free(proxy);
  return status;
}

/* ---------------------------------------------------------------------------
 * One repetition of every method at every ε. */

typedef struct compare_cell {
  double val, test, gain, released, evaluations, index;
} compare_cell;

enum { COMPARE_FIELDS = 6 }; /* val, test, gain, released, evaluations, index */

typedef struct compare_context {
  const dpbo_config *config;
  const dpbo_compare_options *options; /* [compare] */
  const compare_table *table;
  const double *mean; /* μ_T over Λ, units of v */
  const dpbo_run *run;
  dpbo_sensitivity sens;
  dpbo_compare_accounting acc[DPBO_COMPARE_METHODS][DPBO_COMPARE_MAX_EPSILONS];
  int64_t n;
  double score_sensitivity; /* of a gain at a fixed λ: 1/m (svm accuracy), g* / m (logreg) */
  double lo, hi;            /* the gain's range: released values are clamped to it */
  /* The privatized evaluations at each ε: σ and the GP's noise. */
  dpbo_compare_evals_noise evals[DPBO_COMPARE_MAX_EPSILONS];
  int has_algorithm3;      /* logreg: Algorithm 3's f~_L as well */
  double alg3_sensitivity; /* Theorem 6's Δ (units of the gain) */
  /* The guided method (run/guided.h): its settings and, at each ε, its two
   * stages' accounting (acc[DPBO_COMPARE_GUIDED] holds stage 2's with the
   * composed totals). */
  int has_guided; /* run.iterations >= 3: a stage 1 and E[K] >= 2 fit */
  dpbo_guided_settings guided;
  dpbo_guided_accounting guided_acc[DPBO_COMPARE_MAX_EPSILONS];
} compare_context;

static void compare_cell_at(const compare_context *ctx, int64_t index, double released,
                            double evaluations, compare_cell *cell) {
  cell->val = ctx->table->val[index];
  cell->test = ctx->table->test[index];
  cell->gain = ctx->table->gain[index];
  cell->released = released;
  cell->evaluations = evaluations;
  cell->index = (double)index;
}

/* The stopping baselines' Q reads its gain from the table (run/selection.h):
 * a uniform candidate from Λ (rng), its gain a look-up. */
typedef struct compare_draws {
  const compare_context *ctx;
  dpbo_rng *rng;
} compare_draws;

static dpbo_status compare_next(void *context, int64_t k, int64_t *index, double *gain,
                                dpbo_error *err) {
  const compare_draws *draws = context;
  (void)k;
  (void)err;
  *index = dpbo_selection_candidate(draws->rng, draws->ctx->n);
  *gain = draws->ctx->table->gain[*index];
  return DPBO_OK;
}

/* Q run K times (K > 0), else with random stopping (γ = 1/T, an exact
 * Bernoulli(1/T) coin after every run); the best noisy score released. */
static dpbo_status compare_stopping_search(const compare_context *ctx, dpbo_rng *rng,
                                           dpbo_noise *noise, double epsilon0, int64_t K,
                                           compare_cell *cell, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  compare_draws draws = {ctx, rng};
  dpbo_selection_pick pick;
  const dpbo_selection_runs runs = {compare_next, &draws, K, ctx->config->iterations};
  const dpbo_selection_draw draw = {
      noise, ctx->config->selection, ctx->score_sensitivity, ctx->lo, ctx->hi, 1.0};
  DPBO_TRY(dpbo_selection_stopping(&runs, &draw, epsilon0, &pick, err));
  compare_cell_at(ctx, pick.index, pick.released, (double)pick.runs, cell);
done:
  return status;
}

static void compare_rep_streams(const dpbo_config *config, int rep, int which, dpbo_rng *rng) {
  /* Candidate streams: data-independent experiment randomness (PCG). 0:
   * random search's T candidates, 1: Liu–Talwar's, 2: Papernot–Steinke's,
   * 3: the start of the repetition's GP-UCB runs (compare_evals.h). */
  dpbo_rng_seed(rng, config->seed ^ 0x636f6d70617265ull, (uint64_t)rep * 4u + (uint64_t)which);
}

/* GP-guided selection's cells of a repetition at every ε (NaN where T < 3
 * leaves no stage 1); its own draws (stage 1's noise, K, stage 2's
 * candidates and noise) all from the repetition's noise stream. */
static dpbo_status compare_guided(const compare_context *ctx, dpbo_noise *noise,
                                  compare_cell *cells, int stride_method, int stride_eps,
                                  dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = ctx->config;
  for (int e = 0; e < ctx->options->epsilon_count; e++) {
    compare_cell *c = &cells[(size_t)DPBO_COMPARE_GUIDED * (size_t)stride_method +
                             (size_t)e * (size_t)stride_eps];
    if (!ctx->has_guided) { /* T < 3: not applicable */
      c->val = c->test = c->gain = c->released = NAN;
      c->evaluations = 0.0;
      c->index = -1.0;
      continue;
    }
    dpbo_guided_pick gp;
    const dpbo_guided_gains gains = {compare_table_gain, (void *)ctx->table,
                                     ctx->table->proxy ? compare_table_proxy_gain : NULL,
                                     (void *)ctx->table};
    const dpbo_selection_draw draw = {noise,   config->selection, ctx->score_sensitivity,
                                      ctx->lo, ctx->hi,           1.0};
    DPBO_TRY(dpbo_guided_table(config, &ctx->guided, &ctx->guided_acc[e], &gains, &draw, &gp, err));
    compare_cell_at(ctx, gp.stage2.index, gp.stage2.released,
                    (double)(ctx->guided.stage1_evaluations + gp.stage2.runs), c);
  }
done:
  return status;
}

static dpbo_status compare_repetition(const compare_context *ctx, int rep, compare_cell *cells,
                                      int stride_method, int stride_eps, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = ctx->config;
  const int T = config->iterations, E = ctx->options->epsilon_count;
  int64_t *set = NULL;
  double *scores = NULL;
  dpbo_noise noise;
  dpbo_rng rng;
  if (config->noise == DPBO_NOISE_SEEDED)
    dpbo_noise_init_seeded(&noise, config->noise_seed, 1000u + (uint64_t)rep);
  else
    dpbo_noise_init_os(&noise);
  DPBO_ALLOC(set, T, "the random-search candidates");
  DPBO_ALLOC(scores, T, "the random-search scores");
  compare_rep_streams(config, rep, 0, &rng);
  int64_t rs_best = 0;
  for (int t = 0; t < T; t++) {
    set[t] = dpbo_selection_candidate(&rng, ctx->n);
    scores[t] = ctx->table->gain[set[t]];
    if (scores[t] > ctx->table->gain[set[rs_best]]) rs_best = t;
  }
  const double best_v = dpbo__release_best_value(config, ctx->run);
  const double lo = ctx->lo, hi = ctx->hi;
  for (int e = 0; e < E; e++) {
#define CELL(method)                                                                               \
  (&cells[(size_t)(method) * (size_t)stride_method + (size_t)e * (size_t)stride_eps])
    const dpbo_compare_accounting *a;
    dpbo_select_release sel;
    dpbo_laplace_release lap;
    /* dpbo: λ̃ over μ_T, ṽ = max_t v_t + Laplace. */
    a = &ctx->acc[DPBO_COMPARE_DPBO][e];
    const dpbo_select_input over_mean = {
        config->selection, ctx->mean, 0, ctx->n, ctx->n, ctx->sens.lambda_sensitivity,
        a->epsilon_select};
    DPBO_TRY(dpbo_mech_select(MPI_COMM_SELF, 0, &noise, &over_mean, &sel, err));
    const dpbo_laplace_input best = {best_v, ctx->sens.value_sensitivity, a->epsilon_value, lo, hi};
    DPBO_TRY(dpbo_mech_laplace(&noise, &best, &lap, err));
    compare_cell_at(ctx, sel.index, lap.value, T, CELL(DPBO_COMPARE_DPBO));
    /* Private random search over the repetition's T candidates. */
    a = &ctx->acc[DPBO_COMPARE_RANDOM_SEARCH][e];
    dpbo_selection_pick pick;
    const dpbo_selection_draw draw = {&noise, config->selection, ctx->score_sensitivity, lo, hi,
                                      1.0};
    DPBO_TRY(dpbo_selection_random_search(&draw, scores, T, a->epsilon_select, a->epsilon_value,
                                          &pick, err));
    compare_cell_at(ctx, set[pick.position], pick.released, T, CELL(DPBO_COMPARE_RANDOM_SEARCH));
    /* Liu–Talwar and Papernot–Steinke: the candidate sequence is the same
     * for every ε of the repetition (common random numbers). */
    a = &ctx->acc[DPBO_COMPARE_LIU_TALWAR][e];
    compare_rep_streams(config, rep, 1, &rng);
    DPBO_TRY(compare_stopping_search(ctx, &rng, &noise, a->epsilon_base, 0,
                                     CELL(DPBO_COMPARE_LIU_TALWAR), err));
    a = &ctx->acc[DPBO_COMPARE_PAPERNOT_STEINKE][e];
    compare_rep_streams(config, rep, 2, &rng);
    int64_t K = dpbo_baseline_tnb_sample(&noise, a->eta, a->gamma);
    DPBO_TRY(compare_stopping_search(ctx, &rng, &noise, a->epsilon_base, K,
                                     CELL(DPBO_COMPARE_PAPERNOT_STEINKE), err));
    /* Non-private reference (gp_ucb: after the loop). */
    compare_cell_at(ctx, set[rs_best], scores[rs_best], T,
                    CELL(DPBO_COMPARE_RANDOM_SEARCH_NONPRIVATE));
    /* Algorithm 3 (logreg): f~_L = max_t f_V(w_λt) + Lap(Δ_f3/ε), the whole ε
     * on the value; it releases no hyper-parameter, so no accuracy. */
    compare_cell *c3 = CELL(DPBO_COMPARE_ALGORITHM3);
    c3->val = c3->test = c3->gain = c3->released = NAN;
    c3->evaluations = 0.0;
    c3->index = -1.0;
    if (ctx->has_algorithm3) {
      a = &ctx->acc[DPBO_COMPARE_ALGORITHM3][e];
      const dpbo_laplace_input best3 = {best_v, ctx->alg3_sensitivity, a->epsilon_value, lo, hi};
      DPBO_TRY(dpbo_mech_laplace(&noise, &best3, &lap, err));
      c3->released = lap.value;
      c3->gain = best_v;
      c3->evaluations = T;
    }
#undef CELL
  }
  /* GP-UCB on privatized evaluations: after every other method, so their
   * draws from the repetition's noise stream stay as they were. Every run
   * of the repetition (the non-private one and the privatized one at each
   * ε) starts at one public candidate of stream 3 (common random numbers):
   * the references are a distribution over starts, R cells like the other
   * methods, and each privatized run differs from its twin by the noise. */
  compare_rep_streams(config, rep, 3, &rng);
  const int64_t start = dpbo_selection_candidate(&rng, ctx->n);
  dpbo_compare_evals_pick ref;
  DPBO_TRY(dpbo_compare_evals_run(config, ctx->table->gain, NULL, start, &ref, err));
  for (int e = 0; e < E; e++) {
    dpbo_compare_evals_pick pe;
    const dpbo_compare_evals_privacy privacy = {&noise, ctx->score_sensitivity, ctx->evals[e]};
    DPBO_TRY(dpbo_compare_evals_run(config, ctx->table->gain, &privacy, start, &pe, err));
    const size_t at = (size_t)e * (size_t)stride_eps;
    compare_cell_at(ctx, pe.mean_index, pe.mean_value, T,
                    &cells[(size_t)DPBO_COMPARE_PRIVATE_EVALS_MEAN * (size_t)stride_method + at]);
    compare_cell_at(ctx, pe.best_index, pe.best_value, T,
                    &cells[(size_t)DPBO_COMPARE_PRIVATE_EVALS_BEST * (size_t)stride_method + at]);
    compare_cell_at(ctx, ref.best_index, ref.best_value, T,
                    &cells[(size_t)DPBO_COMPARE_GP_UCB * (size_t)stride_method + at]);
    compare_cell_at(ctx, ref.mean_index, ref.mean_value, T,
                    &cells[(size_t)DPBO_COMPARE_GP_UCB_MEAN * (size_t)stride_method + at]);
  }
  /* GP-guided selection: after every other method, so their draws from the
   * repetition's noise stream stay as they were. */
  DPBO_TRY(compare_guided(ctx, &noise, cells, stride_method, stride_eps, err));
  DPBO_TRY(dpbo_noise_check(&noise, err));
done:
  free(set);
  free(scores);
  return status;
}

/* ---------------------------------------------------------------------------
 * Output. */

typedef struct compare_utility {
  double regret_x[DPBO_COMPARE_MAX_EPSILONS][DPBO_UTILITY_CDF_POINTS];
  double regret_cdf[DPBO_COMPARE_MAX_EPSILONS][DPBO_UTILITY_CDF_POINTS];
  double expected_regret[DPBO_COMPARE_MAX_EPSILONS], probability_argmax[DPBO_COMPARE_MAX_EPSILONS];
  double expected_val[DPBO_COMPARE_MAX_EPSILONS], expected_test[DPBO_COMPARE_MAX_EPSILONS];
  int available;
} compare_utility;

/* One row of the comparison file: a dataset, or an attribute of the file or
 * of a group. The writer (compare_write) creates each group at its first row
 * and writes the rows in order. */
typedef enum {
  COMPARE_ATTR_STRING, /* data: a string */
  COMPARE_ATTR_DOUBLE, /* data: dims[0] doubles */
  COMPARE_ATTR_INT64,  /* data: dims[0] int64_t */
  COMPARE_DOUBLE,      /* a dataset of doubles of shape dims[0..rank) */
  COMPARE_INT64,       /* a dataset of int64_t */
  COMPARE_DIMS         /* the space's dimensions (data: config->dim, dims[0] of them) */
} compare_item_type;

typedef struct compare_item {
  const char *group; /* NULL: the file itself */
  const char *name;
  compare_item_type type;
  const void *data;
  int rank;
  hsize_t dims[3];
  const char *description; /* what the row holds (documents the file; not written) */
} compare_item;

enum { COMPARE_MAX_ITEMS = 96 };

/* The rows of one comparison file and the buffers they point into (columns
 * the experiment does not hold as written: the trace's, the accounting's,
 * the indices as integers, the utility curves as [ε][point]). */
typedef struct compare_items {
  compare_item item[COMPARE_MAX_ITEMS];
  int count;
  int64_t scalars[5]; /* N, T, repetitions, validation_rows, test_rows */
  double terms[8];    /* the sensitivity's terms (dpbo_sensitivity) */
  char names[512];    /* the methods, comma separated */
  double *lambda, *trace_gain, *accounting, *regret_x, *regret_cdf;
  int64_t *trace_index, *index;
} compare_items;

#define COMPARE_ROW(list, g, n, t, p, r, d0, d1, d2, what)                                         \
  ((list)->item[(list)->count++] =                                                                 \
       (compare_item){(g), (n), (t), (p), (r), {(d0), (d1), (d2)}, (what)})

/* The columns of /accounting, one per member of dpbo_compare_accounting. */
static const struct {
  const char *name;
  size_t offset;
  int integer;
} compare_accounting_columns[] = {
    {"epsilon", offsetof(dpbo_compare_accounting, epsilon), 0},
    {"delta", offsetof(dpbo_compare_accounting, delta), 0},
    {"epsilon_accounted", offsetof(dpbo_compare_accounting, epsilon_accounted), 0},
    {"delta_accounted", offsetof(dpbo_compare_accounting, delta_accounted), 0},
    {"epsilon_select", offsetof(dpbo_compare_accounting, epsilon_select), 0},
    {"epsilon_value", offsetof(dpbo_compare_accounting, epsilon_value), 0},
    {"epsilon_base", offsetof(dpbo_compare_accounting, epsilon_base), 0},
    {"gamma", offsetof(dpbo_compare_accounting, gamma), 0},
    {"eta", offsetof(dpbo_compare_accounting, eta), 0},
    {"expected_runs", offsetof(dpbo_compare_accounting, expected_runs), 0},
    {"rdp_order", offsetof(dpbo_compare_accounting, rdp_order), 0},
    {"rdp_order_hat", offsetof(dpbo_compare_accounting, rdp_order_hat), 0},
    {"epsilon_base_rdp", offsetof(dpbo_compare_accounting, epsilon_base_rdp), 0},
    {"epsilon_base_profile", offsetof(dpbo_compare_accounting, epsilon_base_profile), 0},
    {"by_profile", offsetof(dpbo_compare_accounting, by_profile), 1}};
enum {
  COMPARE_ACCOUNTING_COLUMNS =
      sizeof compare_accounting_columns / sizeof compare_accounting_columns[0] +
      2 /* sigma, gp_noise_std_used */
};

static void compare_items_free(compare_items *list) {
  free(list->lambda);
  free(list->trace_gain);
  free(list->accounting);
  free(list->regret_x);
  free(list->regret_cdf);
  free(list->trace_index);
  free(list->index);
}

/* The buffers of the rows: the columns written in another shape or type
 * than the experiment holds them. */
static dpbo_status compare_items_buffers(const compare_context *ctx, const dpbo_space *space,
                                         const double *results, const compare_utility *util,
                                         compare_items *list, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = ctx->config;
  const int E = ctx->options->epsilon_count, T = config->iterations, M = DPBO_COMPARE_METHODS;
  const size_t ME = (size_t)M * (size_t)E, block = ME * (size_t)ctx->options->repetitions;
  DPBO_ALLOC(list->lambda, (size_t)ctx->n * (size_t)dpbo_space_dims(space), "the candidates");
  DPBO_ALLOC(list->trace_index, T, "the trace");
  DPBO_ALLOC(list->trace_gain, T, "the trace gains");
  DPBO_ALLOC(list->index, block, "the chosen indices");
  DPBO_ALLOC(list->accounting, COMPARE_ACCOUNTING_COLUMNS * ME, "the accounting columns");
  DPBO_ALLOC(list->regret_x, (size_t)E * DPBO_UTILITY_CDF_POINTS, "utility rows");
  DPBO_ALLOC(list->regret_cdf, (size_t)E * DPBO_UTILITY_CDF_POINTS, "utility rows");
  DPBO_TRY(dpbo_compare_table_lambda(space, list->lambda, err));
  for (int t = 0; t < T; t++) {
    list->trace_index[t] = ctx->run->trace[t].index;
    list->trace_gain[t] = ctx->run->trace[t].gain;
  }
  for (size_t i = 0; i < block; i++) /* the last field: the released λ's index */
    list->index[i] = (int64_t)results[(size_t)(COMPARE_FIELDS - 1) * block + i];
  const size_t named = COMPARE_ACCOUNTING_COLUMNS - 2;
  for (size_t c = 0; c < COMPARE_ACCOUNTING_COLUMNS; c++)
    for (int k = 0; k < M; k++)
      for (int e = 0; e < E; e++) {
        const char *row = (const char *)&ctx->acc[k][e];
        const int evals =
            k == DPBO_COMPARE_PRIVATE_EVALS_MEAN || k == DPBO_COMPARE_PRIVATE_EVALS_BEST;
        double v;
        if (c < named && compare_accounting_columns[c].integer)
          v = *(const int *)(row + compare_accounting_columns[c].offset);
        else if (c < named)
          v = *(const double *)(row + compare_accounting_columns[c].offset);
        else /* σ of the privatized evaluations and the GP's noise with it */
          v = k == DPBO_COMPARE_GUIDED
                  ? (c == named ? ctx->guided_acc[e].sigma : ctx->guided_acc[e].gp_noise_std_used)
              : !evals     ? 0.0
              : c == named ? ctx->evals[e].sigma
                           : ctx->evals[e].gp_noise_std_used;
        list->accounting[c * ME + (size_t)k * (size_t)E + (size_t)e] = v;
      }
  for (int e = 0; e < E; e++) {
    memcpy(list->regret_x + (size_t)e * DPBO_UTILITY_CDF_POINTS, util->regret_x[e],
           sizeof util->regret_x[e]);
    memcpy(list->regret_cdf + (size_t)e * DPBO_UTILITY_CDF_POINTS, util->regret_cdf[e],
           sizeof util->regret_cdf[e]);
  }
  for (int k = 0; k < M; k++) {
    if (k) strcat(list->names, ",");
    strcat(list->names, method_names[k]);
  }
done:
  return status;
}

/* The file's own attributes: where the comparison came from and its sizes,
 * budget and sensitivities. */
static void compare_items_root(const compare_context *ctx, const char *noise_source,
                               const double *wall, compare_items *list) {
  const dpbo_config *config = ctx->config;
  const int logreg = config->objective == DPBO_OBJECTIVE_LOGREG;
  list->scalars[0] = ctx->n;
  list->scalars[1] = config->iterations;
  list->scalars[2] = ctx->options->repetitions;
  list->scalars[3] = logreg ? config->logreg.validation_rows : config->svm.validation_rows;
  list->scalars[4] = logreg ? config->logreg.test_rows : config->svm.test_rows;
  if (config->objective == DPBO_OBJECTIVE_COMMAND) {
    list->scalars[3] = ctx->options->validation_size; /* m as stated */
    list->scalars[4] = 0; /* the test rows are the program's, unknown here */
  }
  const dpbo_sensitivity *s = &ctx->sens;
  const double terms[8] = {s->beta_T1, s->c_lambda, s->beta_T,  s->c_value,
                           s->q,       s->C1,       s->gamma_T, s->regret_term};
  memcpy(list->terms, terms, sizeof terms);
  static const char *const term_names[8] = {
      "beta_T_plus_1", "c_lambda", "beta_T", "c_value", "q", "C1", "gamma_T", "regret_term"};
  static const char *const scalar_names[5] = {"N", "T", "repetitions", "validation_rows",
                                              "test_rows"};
  COMPARE_ROW(list, NULL, "config_file", COMPARE_ATTR_STRING, config->path, 0, 1, 0, 0,
              "the config the comparison ran");
  COMPARE_ROW(list, NULL, "sensitive", COMPARE_ATTR_STRING,
              "yes: the table, the GP-UCB run and every accuracy depend on the validation data; "
              "an experiment file, never a release",
              0, 1, 0, 0, "why the file is never published");
  COMPARE_ROW(list, NULL, "randomness", COMPARE_ATTR_STRING, noise_source, 0, 1, 0, 0,
              "the noise source and its streams");
  /* Where /table came from: trained here, or the compare.table file. */
  COMPARE_ROW(list, NULL, "table_source", COMPARE_ATTR_STRING,
              ctx->options->table[0] ? ctx->options->table : "trained", 0, 1, 0, 0,
              "trained, or the compare.table file");
  for (int i = 0; i < 5; i++)
    COMPARE_ROW(list, NULL, scalar_names[i], COMPARE_ATTR_INT64, &list->scalars[i], 0, 1, 0, 0,
                "|Lambda|, T, R and the split's sizes");
  COMPARE_ROW(list, NULL, "delta", COMPARE_ATTR_DOUBLE, &config->privacy_delta, 0, 1, 0, 0,
              "the total delta of every private method");
  COMPARE_ROW(list, NULL, "split", COMPARE_ATTR_DOUBLE, &config->privacy_split, 0, 1, 0, 0,
              "privacy.split: the selection's share");
  COMPARE_ROW(list, NULL, "wall_seconds", COMPARE_ATTR_DOUBLE, wall, 0, 1, 0, 0,
              "the comparison's wall time");
  COMPARE_ROW(list, NULL, "train_seconds", COMPARE_ATTR_DOUBLE, &ctx->table->seconds, 0, 1, 0, 0,
              "the table's training time over all ranks");
  COMPARE_ROW(list, NULL, "algorithm", COMPARE_ATTR_STRING, dpbo_algorithm_name(config->algorithm),
              0, 1, 0, 0, "privacy.algorithm of the dpbo method");
  COMPARE_ROW(list, NULL, "objective", COMPARE_ATTR_STRING,
              dpbo_objective_kind_name(config->objective), 0, 1, 0, 0, "objective.kind");
  COMPARE_ROW(list, NULL, "selection", COMPARE_ATTR_STRING,
              dpbo_select_kind_name(config->selection), 0, 1, 0, 0, "the selection mechanism");
  COMPARE_ROW(list, NULL, "sensitivity_lambda", COMPARE_ATTR_DOUBLE, &ctx->sens.lambda_sensitivity,
              0, 1, 0, 0, "dpbo's Delta of lambda~");
  COMPARE_ROW(list, NULL, "sensitivity_value", COMPARE_ATTR_DOUBLE, &ctx->sens.value_sensitivity, 0,
              1, 0, 0, "dpbo's Delta of v~");
  COMPARE_ROW(list, NULL, "sensitivity_baselines", COMPARE_ATTR_DOUBLE, &ctx->score_sensitivity, 0,
              1, 0, 0, "the gain's Delta at a fixed lambda");
  if (ctx->has_algorithm3)
    COMPARE_ROW(list, NULL, "sensitivity_algorithm3", COMPARE_ATTR_DOUBLE, &ctx->alg3_sensitivity,
                0, 1, 0, 0, "Theorem 6's Delta");
  for (int i = 0; i < 8; i++)
    COMPARE_ROW(list, NULL, term_names[i], COMPARE_ATTR_DOUBLE, &list->terms[i], 0, 1, 0, 0,
                "a term of dpbo's sensitivities");
}

/* The groups: /table, /gp_ucb, /methods, /accounting, /utility. */
static void compare_items_groups(const compare_context *ctx, const dpbo_space *space,
                                 const double *results, const compare_utility *util,
                                 compare_items *list) {
  const dpbo_config *config = ctx->config;
  const hsize_t n = (hsize_t)ctx->n, d = (hsize_t)dpbo_space_dims(space);
  const hsize_t T = (hsize_t)config->iterations, E = (hsize_t)ctx->options->epsilon_count,
                R = (hsize_t)ctx->options->repetitions, M = DPBO_COMPARE_METHODS;
  COMPARE_ROW(list, "table", "dims", COMPARE_DIMS, config->dim, 1, d, 0, 0, "the space's axes");
  COMPARE_ROW(list, "table", "lambda", COMPARE_DOUBLE, list->lambda, 2, n, d, 0,
              "every candidate of Lambda");
  COMPARE_ROW(list, "table", "gain", COMPARE_DOUBLE, ctx->table->gain, 1, n, 0, 0,
              "the gain the methods select on");
  COMPARE_ROW(list, "table", "val_accuracy", COMPARE_DOUBLE, ctx->table->val, 1, n, 0, 0,
              "validation accuracy of each candidate");
  COMPARE_ROW(list, "table", "test_accuracy", COMPARE_DOUBLE, ctx->table->test, 1, n, 0, 0,
              "held-out accuracy of each candidate");
  if (ctx->table->proxy) {
    COMPARE_ROW(list, "table", "proxy_accuracy", COMPARE_DOUBLE, ctx->table->proxy, 1, n, 0, 0,
                "the guided method's proxy task: accuracy on the last proxy_rows training rows");
    COMPARE_ROW(list, "table", "proxy_rows", COMPARE_INT64, &ctx->table->proxy_rows, 1, 1, 0, 0,
                "privacy.guided_proxy_rows of the proxy column");
  }
  COMPARE_ROW(list, "gp_ucb", "index", COMPARE_INT64, list->trace_index, 1, T, 0, 0,
              "dpbo's GP-UCB run's lambda_t");
  COMPARE_ROW(list, "gp_ucb", "gain", COMPARE_DOUBLE, list->trace_gain, 1, T, 0, 0, "its gains");
  COMPARE_ROW(list, "gp_ucb", "mean", COMPARE_DOUBLE, ctx->mean, 1, n, 0, 0,
              "its mu_T over Lambda");
  COMPARE_ROW(list, "methods", "names", COMPARE_ATTR_STRING, list->names, 0, 1, 0, 0,
              "the methods, in the order of the first axis");
  COMPARE_ROW(list, "methods", "epsilon", COMPARE_DOUBLE, ctx->options->epsilon, 1, E, 0, 0,
              "the total epsilons");
  /* results: [field][M][E][R]: the validation and test accuracy and the
   * gain of the released λ, the released value (units of the gain), the
   * evaluations spent and the released λ's index (NaN and -1 where a method
   * releases no λ). */
  static const char *const fields[COMPARE_FIELDS] = {"val_accuracy",   "test_accuracy", "gain",
                                                     "released_value", "evaluations",   "index"};
  const size_t block = (size_t)(M * E * R);
  for (int f = 0; f < COMPARE_FIELDS - 1; f++)
    COMPARE_ROW(list, "methods", fields[f], COMPARE_DOUBLE, results + (size_t)f * block, 3, M, E, R,
                "[method][epsilon][repetition]");
  COMPARE_ROW(list, "methods", fields[COMPARE_FIELDS - 1], COMPARE_INT64, list->index, 3, M, E, R,
              "the released lambda's index, -1 for none");
  const size_t named = COMPARE_ACCOUNTING_COLUMNS - 2;
  for (size_t c = 0; c < COMPARE_ACCOUNTING_COLUMNS; c++)
    COMPARE_ROW(
        list, "accounting",
        c < named    ? compare_accounting_columns[c].name
        : c == named ? "sigma"
                     : "gp_noise_std_used",
        COMPARE_DOUBLE, list->accounting + c * (size_t)(M * E), 2, M, E, 0,
        "[method][epsilon] (sigma, gp_noise_std_used: privatized evaluations, 0 elsewhere)");
  if (!util->available) return;
  COMPARE_ROW(list, "utility", "note", COMPARE_ATTR_STRING,
              "exact distribution of the dpbo lambda~ given mu_T at each epsilon (data holder "
              "only): regret curve P(max mu_T - mu_T(lambda~) <= x) and expected accuracies of "
              "lambda~",
              0, 1, 0, 0, "what /utility holds");
  const hsize_t P = DPBO_UTILITY_CDF_POINTS;
  COMPARE_ROW(list, "utility", "regret_x", COMPARE_DOUBLE, list->regret_x, 2, E, P, 0,
              "[epsilon][point]: regret");
  COMPARE_ROW(list, "utility", "regret_cdf", COMPARE_DOUBLE, list->regret_cdf, 2, E, P, 0,
              "[epsilon][point]: P(regret <= x)");
  COMPARE_ROW(list, "utility", "expected_regret_mean", COMPARE_DOUBLE, util->expected_regret, 1, E,
              0, 0, "E[max mu_T - mu_T(lambda~)]");
  COMPARE_ROW(list, "utility", "probability_argmax", COMPARE_DOUBLE, util->probability_argmax, 1, E,
              0, 0, "P(lambda~ = argmax mu_T)");
  COMPARE_ROW(list, "utility", "expected_val_accuracy", COMPARE_DOUBLE, util->expected_val, 1, E, 0,
              0, "E[validation accuracy of lambda~]");
  COMPARE_ROW(list, "utility", "expected_test_accuracy", COMPARE_DOUBLE, util->expected_test, 1, E,
              0, 0, "E[test accuracy of lambda~]");
}

/* One row into obj (the file or the row's group). */
static dpbo_status compare_write_item(hid_t obj, const compare_item *row, dpbo_error *err) {
  switch (row->type) {
  case COMPARE_ATTR_STRING:
    return dpbo_h5io_attr_string(obj, row->name, row->data, err);
  case COMPARE_ATTR_DOUBLE:
    return dpbo_h5io_attr_doubles(obj, row->name, row->data, row->dims[0], err);
  case COMPARE_ATTR_INT64:
    return dpbo_h5io_attr_int64(obj, row->name, row->data, row->dims[0], err);
  case COMPARE_DOUBLE:
    return dpbo_h5io_write_array(obj, row->name, H5T_NATIVE_DOUBLE, row->rank, row->dims, row->data,
                                 err);
  case COMPARE_INT64:
    return dpbo_h5io_write_array(obj, row->name, H5T_NATIVE_INT64, row->rank, row->dims, row->data,
                                 err);
  default: /* COMPARE_DIMS */
    return dpbo_output_write_dims(obj, (int)row->dims[0], row->data, err);
  }
}

/* The comparison file at path (rank 0): the rows of compare_items_root and
 * compare_items_groups, each group created at its first row. */
static dpbo_status compare_write(const char *path, const compare_context *ctx,
                                 const double *results, const compare_utility *util,
                                 const char *noise_source, double wall, dpbo_error *err) {
  const dpbo_space *space = ctx->run->space;
  dpbo_status status = DPBO_OK;
  hid_t group = -1;
  const char *group_name = NULL;
  compare_items *list = NULL;
  dpbo_h5io_file out;
  memset(&out, 0, sizeof out);
  out.id = -1;
  DPBO_ALLOC(list, 1, "the rows of the comparison file");
  DPBO_TRY(compare_items_buffers(ctx, space, results, util, list, err));
  compare_items_root(ctx, noise_source, &wall, list);
  compare_items_groups(ctx, space, results, util, list);
  DPBO_TRY(dpbo_h5io_create(MPI_COMM_SELF, path, &out, err));
  DPBO_TRY(dpbo_h5io_attr_string(out.id, "dpbo_version", DPBO_VERSION_STRING, err));
  DPBO_TRY(dpbo_output_write_settings(out.id, &ctx->config->settings, err));
  for (int i = 0; i < list->count; i++) {
    const compare_item *row = &list->item[i];
    if (row->group && (!group_name || strcmp(row->group, group_name) != 0)) {
      if (group >= 0) H5Gclose(group);
      group_name = row->group;
      group = H5Gcreate2(out.id, group_name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
      if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create /%s", group_name);
    }
    DPBO_TRY(compare_write_item(row->group ? group : out.id, row, err));
  }
  if (group >= 0) H5Gclose(group);
  group = -1;
  DPBO_TRY(dpbo_h5io_commit(&out, err));
done:
  if (group >= 0) H5Gclose(group);
  if (status != DPBO_OK) dpbo_h5io_discard(&out);
  if (list) compare_items_free(list);
  free(list);
  return status;
}

/* ---------------------------------------------------------------------------
 * The whole comparison. */

static int compare_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* The q-compare_quantile of v[0..n) (sorted copy, linear interpolation). */
static double compare_quantile(double *scratch, const double *v, int n, double q) {
  memcpy(scratch, v, sizeof *v * (size_t)n);
  qsort(scratch, (size_t)n, sizeof *scratch, compare_cmp_double);
  double pos = q * (n - 1);
  int i = (int)floor(pos);
  if (i >= n - 1) return scratch[n - 1];
  return scratch[i] + (pos - i) * (scratch[i + 1] - scratch[i]);
}

/* What the comparison needs from the config. */
static dpbo_status compare_validate(const dpbo_config *config, const dpbo_compare_options *options,
                                    dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int logreg = config->objective == DPBO_OBJECTIVE_LOGREG;
  const int command = config->objective == DPBO_OBJECTIVE_COMMAND;
  if (config->objective != DPBO_OBJECTIVE_SVM && !logreg && !command)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: dpbo compare needs objective.kind = svm, logreg or command (the baselines "
               "rest on the gain's sensitivity 1/m over m validation records)",
               config->path);
  /* A command states m and its test accuracy's program (compare_table.h). */
  if (command) DPBO_TRY(dpbo_compare_table_command_check(config, options, err));
  if (!command && (logreg ? config->logreg.test_rows : config->svm.test_rows) < 1)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: dpbo compare needs held-out rows: set objective.test_rows >= 1", config->path);
  if (!dpbo_algorithm_ops_get(config->algorithm)->gp_release)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: dpbo compare runs DP-BO with privacy.algorithm = 1 (or 2): set it (with the "
               "logreg objective Algorithm 3's released value is compared as well)",
               config->path);
  if (config->iterations < 2)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: dpbo compare needs run.iterations >= 2", config->path);
done:
  return status;
}

/* The plan: the gain's sensitivity and range, and every method's accounting
 * at every ε, first: a budget a baseline cannot meet fails before hours of
 * training. */
static dpbo_status compare_plan(compare_context *ctx, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = ctx->config;
  const int logreg = config->objective == DPBO_OBJECTIVE_LOGREG;
  const int E = ctx->options->epsilon_count, T = config->iterations;
  /* The gain's sensitivity at a fixed λ and its range (compare_table.h, run/selection.h). */
  DPBO_TRY(dpbo_compare_table_gain_range(config, ctx->options, &ctx->score_sensitivity, &ctx->lo,
                                         &ctx->hi, err));
  ctx->has_guided = T >= 3;
  /* The guided method's proxy task (run/guided.h). Its column here is the
   * svm objective's (the logreg comparison objective scores test rows too,
   * which the proxy split has none of): logreg's proxy task runs in dpbo run. */
  DPBO_TRY(dpbo_guided_proxy_check(config, err));
  if (config->guided_proxy_rows > 0 && config->objective != DPBO_OBJECTIVE_SVM)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: privacy.guided_proxy_rows = %lld: dpbo compare's proxy column needs "
               "objective.kind = svm (the logreg objective's proxy task runs in dpbo run)",
               config->path, (long long)config->guided_proxy_rows);
  for (int k = 0; k < DPBO_COMPARE_METHODS; k++)
    for (int e = 0; e < E; e++) {
      const dpbo_compare_budget at = {ctx->options->epsilon[e], config->privacy_delta,
                                      config->privacy_split, T, ctx->options->ps_eta};
      if (k == DPBO_COMPARE_GUIDED && !ctx->has_guided) {
        dpbo_compare_account(DPBO_COMPARE_GP_UCB, &at, &ctx->acc[k][e], err); /* all zero */
        continue;
      } else if (k == DPBO_COMPARE_GUIDED) {
        /* Both stages at their shares, composed (run/guided.h). */
        dpbo_guided_accounting *g = &ctx->guided_acc[e];
        dpbo_guided_settings_from(config, &ctx->guided);
        const dpbo_guided_budget budget = {ctx->options->epsilon[e], config->privacy_delta, T,
                                           ctx->score_sensitivity, config->prior.noise_std};
        status = dpbo_guided_account(&ctx->guided, &budget, g, err);
        ctx->acc[k][e] = g->stage2;
        ctx->acc[k][e].epsilon = g->epsilon;
        ctx->acc[k][e].delta = g->delta;
        ctx->acc[k][e].epsilon_accounted = g->epsilon_accounted;
        ctx->acc[k][e].delta_accounted = g->delta_accounted;
      } else if (k == DPBO_COMPARE_PRIVATE_EVALS_MEAN || k == DPBO_COMPARE_PRIVATE_EVALS_BEST) {
        const dpbo_compare_evals_budget evals_at = {T, ctx->score_sensitivity,
                                                    ctx->options->epsilon[e], config->privacy_delta,
                                                    config->prior.noise_std};
        status = dpbo_compare_evals_account(&evals_at, &ctx->acc[k][e], &ctx->evals[e], err);
      } else
        status = dpbo_compare_account(k, &at, &ctx->acc[k][e], err);
      if (status != DPBO_OK) {
        dpbo_error_prefix(err, "%s: %s at epsilon = %g", config->path, method_names[k],
                          ctx->options->epsilon[e]);
        goto done;
      }
      if (k == DPBO_COMPARE_ALGORITHM3 && !logreg) /* not applicable: all zero */
        dpbo_compare_account(DPBO_COMPARE_GP_UCB, &at, &ctx->acc[k][e], err);
    }
done:
  return status;
}

/* The run first (Λ, GP, UCB state), then the accuracy table over its Λ:
 * trained over the ranks, or read from compare.table. */
static dpbo_status compare_table_make(MPI_Comm comm, compare_context *ctx, dpbo_run *run,
                                      compare_table *table, double start, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = ctx->config;
  int rank, size;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  DPBO_TRY(dpbo_run_create(comm, config, run, err));
  const dpbo_space *space = run->space;
  ctx->n = dpbo_space_size(space);
  if (rank == 0)
    dpbo_log_info("dpbo compare: |Λ| = %lld candidates, T = %d, R = %d repetitions, %d values of "
                  "epsilon, %d rank%s; first the accuracy table over Λ",
                  (long long)ctx->n, config->iterations, ctx->options->repetitions,
                  ctx->options->epsilon_count, size, size == 1 ? "" : "s");
  if (ctx->options->table[0] || config->objective == DPBO_OBJECTIVE_COMMAND) {
    dpbo_compare_columns got;
    if (ctx->options->table[0])
      DPBO_TRY(dpbo_compare_table_read(comm, config, ctx->options->table, space, &got, err));
    else
      DPBO_TRY(dpbo_compare_table_command(comm, config, ctx->options, space, &got, err));
    *table = (compare_table){.n = ctx->n,
                             .gain = got.gain,
                             .val = got.val,
                             .test = got.test,
                             .seconds = got.seconds,
                             .proxy = got.proxy,
                             .proxy_rows = got.proxy_rows};
  } else {
    DPBO_TRY(compare_table_fill(comm, config, space, table, err));
  }
  /* The guided method's proxy task: from the table file when it holds
   * this K's column (dpbo_compare_table_read reads no other), else trained
   * here. */
  if (config->guided_proxy_rows > 0 && !table->proxy)
    DPBO_TRY(compare_table_proxy(comm, config, space, table, err));
  if (rank == 0) {
    int64_t bv = 0, bt = 0;
    for (int64_t i = 1; i < ctx->n; i++) {
      if (table->val[i] > table->val[bv]) bv = i;
      if (table->test[i] > table->test[bt]) bt = i;
    }
    dpbo_log_info("table done in %.1f s (%.1f s training over all ranks): best validation accuracy "
                  "over Λ %.4f (test %.4f there), best test accuracy over Λ %.4f",
                  MPI_Wtime() - start, table->seconds, table->val[bv], table->test[bv],
                  table->test[bt]);
  }
done:
  return status;
}

/* GP-UCB on the table through the step `dpbo run` takes (so it is the run
 * `dpbo run` would make), its μ_T over Λ (*mean, gathered) and the
 * sensitivities of dpbo and of Algorithm 3 (logreg: Theorem 6). */
static dpbo_status compare_gp_ucb(MPI_Comm comm, compare_context *ctx, dpbo_run *run,
                                  compare_table *table, double **mean, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = ctx->config;
  const dpbo_space *space = run->space;
  const int T = config->iterations, logreg = config->objective == DPBO_OBJECTIVE_LOGREG;
  int rank;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  for (int t = 0; t < T; t++)
    DPBO_TRY(dpbo_run_step(comm, config, compare_table_gain, table, run, err));
  ctx->run = run;
  DPBO_TRY(dpbo_utility_gather_mean(comm, config, run, mean, err));
  ctx->mean = *mean;
  dpbo_privacy_inputs in;
  DPBO_TRY(dpbo_release_inputs(config, space, &in, err));
  const dpbo_space_range block = {space, dpbo_ucb_begin(run->ucb), dpbo_ucb_count(run->ucb)};
  DPBO_TRY(dpbo_privacy_sensitivities(comm, &in, &block, &config->kernel, &ctx->sens, err));
  if (logreg) {
    /* Theorem 6 with the space's λ range and the validation loss's L, g*. */
    const dpbo_dim *dim = dpbo_space_dim(space, 0);
    double L, gstar;
    dpbo_logreg_loss_constants(config->logreg.loss, &L, &gstar);
    ctx->has_algorithm3 = 1;
    ctx->alg3_sensitivity =
        dpbo_privacy_alg3_sensitivity(config->bounds, config->logreg.validation_rows, dim->lo,
                                      dim->hi, L, gstar, config->logreg.tolerance);
  }
  if (rank == 0)
    dpbo_log_info("GP-UCB: best gain %.4f at step %d; Delta_lambda = %.4g, Delta_v = %.4g (units "
                  "of the gain) against %.4g for the baselines",
                  run->trace[run->best_step].gain, run->best_step + 1, ctx->sens.lambda_sensitivity,
                  ctx->sens.value_sensitivity, ctx->score_sensitivity);
  if (rank == 0 && logreg)
    dpbo_log_info("Algorithm 3: Delta = %.4g for its released value", ctx->alg3_sensitivity);
  for (int e = 0; e < ctx->options->epsilon_count && rank == 0; e++)
    dpbo_log_info("privatized evaluations at eps=%g, delta=%g: sigma = %.6g for K = %d Gaussian "
                  "releases of sensitivity %.6g; the GP's noise %.6g",
                  ctx->options->epsilon[e], config->privacy_delta, ctx->evals[e].sigma, T,
                  ctx->score_sensitivity, ctx->evals[e].gp_noise_std_used);
  /* The guided method's spend per stage, by the bound each is calibrated
   * with, and their basic composition (run/guided.h). */
  for (int e = 0; e < ctx->options->epsilon_count && rank == 0 && ctx->has_guided; e++) {
    const dpbo_guided_accounting *g = &ctx->guided_acc[e];
    /* Stage 2's calibration: eps0 of a stopping search, or random search's
     * two pure shares over T2 candidates. */
    char stage2[128];
    if (dpbo_guided_base_is_search(ctx->guided.base))
      snprintf(stage2, sizeof stage2, "T2 = %d candidates, eps_select %.6g + eps_value %.6g",
               g->stage2_runs, g->stage2.epsilon_select, g->stage2.epsilon_value);
    else
      snprintf(stage2, sizeof stage2, "E[K] = %d, eps0 = %.6g", g->stage2_runs,
               g->stage2.epsilon_base);
    char stage1[160];
    if (dpbo_guided_stage1_is_proxy(&ctx->guided))
      snprintf(stage1, sizeof stage1,
               "%d GP-UCB steps on the proxy task (the last %lld training rows, no validation "
               "record)",
               g->stage1_evaluations, (long long)ctx->guided.proxy_rows);
    else
      snprintf(stage1, sizeof stage1, "%d discrete Gaussian releases (sigma = %.6g)",
               g->stage1_evaluations, g->sigma);
    dpbo_log_info("guided at eps=%g, delta=%g: stage 1 %s spends (%.6g, %.3g); stage 2 %s, %s, "
                  "spends (%.6g, %.3g); total by basic composition (%.6g, %.3g)",
                  g->epsilon, g->delta, stage1, g->epsilon1_accounted, g->delta1_accounted,
                  dpbo_algorithm_name(ctx->guided.base), stage2, g->stage2.epsilon_accounted,
                  g->stage2.delta_accounted, g->epsilon_accounted, g->delta_accounted);
  }
done:
  return status;
}

/* The repetitions over the ranks (repetition r on rank r mod P) into
 * *results[field][method][ε][rep] (allocated here), summed on rank 0. */
static dpbo_status compare_repetitions(MPI_Comm comm, const compare_context *ctx, double **results,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const int E = ctx->options->epsilon_count, R = ctx->options->repetitions,
            M = DPBO_COMPARE_METHODS;
  int rank, size;
  compare_cell *cells = NULL;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  const size_t block = (size_t)M * (size_t)E * (size_t)R;
  DPBO_ALLOC(*results, COMPARE_FIELDS * block, "the results");
  double *out = *results;
  DPBO_ALLOC(cells, (size_t)M * (size_t)E, "one repetition's results");
  for (int rep = rank; rep < R && local == DPBO_OK; rep += size) {
    local = compare_repetition(ctx, rep, cells, E, 1, err);
    for (int k = 0; k < M && local == DPBO_OK; k++)
      for (int e = 0; e < E; e++) {
        const compare_cell *c = &cells[k * E + e];
        size_t at = ((size_t)k * (size_t)E + (size_t)e) * (size_t)R + (size_t)rep;
        const double fields[COMPARE_FIELDS] = {c->val,      c->test,        c->gain,
                                               c->released, c->evaluations, c->index};
        for (int f = 0; f < COMPARE_FIELDS; f++)
          out[(size_t)f * block + at] = fields[f];
      }
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  /* Each entry comes from one rank, the others hold 0 (NaN + 0 stays NaN). */
  DPBO_MPI_TRY(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : out, out, (int)(COMPARE_FIELDS * block),
                          MPI_DOUBLE, MPI_SUM, 0, comm));
done:
  free(cells);
  return status;
}

/* Rank 0: the exact distribution of dpbo's λ̃ at each ε given μ_T (the
 * data holder's figures), when it can be computed. */
static dpbo_status compare_utility_figures(const compare_context *ctx, compare_utility *util,
                                           dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = ctx->config;
  double *p = NULL;
  util->available = config->selection == DPBO_SELECT_EXPONENTIAL || ctx->n <= 512;
  if (!util->available) goto done;
  if (!(p = malloc(sizeof *p * (size_t)ctx->n)))
    DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory for the distribution of lambda~");
  for (int e = 0; e < ctx->options->epsilon_count; e++) {
    dpbo_utility_holder h;
    memset(&h, 0, sizeof h);
    h.best_observed = ctx->run->trace[ctx->run->best_step].gain;
    DPBO_TRY(dpbo_mech_select_probabilities(config->selection, ctx->mean, ctx->n,
                                            ctx->sens.lambda_sensitivity,
                                            ctx->acc[DPBO_COMPARE_DPBO][e].epsilon_select, p, err));
    DPBO_TRY(dpbo_utility_law_figures(ctx->mean, p, ctx->n, &h, err));
    long double ev = 0.0L, et = 0.0L;
    for (int64_t i = 0; i < ctx->n; i++) {
      ev += (long double)p[i] * ctx->table->val[i];
      et += (long double)p[i] * ctx->table->test[i];
    }
    memcpy(util->regret_x[e], h.regret_x, sizeof h.regret_x);
    memcpy(util->regret_cdf[e], h.regret_cdf, sizeof h.regret_cdf);
    util->expected_regret[e] = h.expected_regret_mean;
    util->probability_argmax[e] = h.probability_argmax;
    util->expected_val[e] = (double)ev;
    util->expected_test[e] = (double)et;
  }
done:
  free(p);
  return status;
}

/* Rank 0: the summary in the log (median and quartiles of each method's
 * held-out accuracy, Algorithm 3's error, the exact figures). */
static dpbo_status compare_log_summary(const compare_context *ctx, const double *results,
                                       const compare_utility *util, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int E = ctx->options->epsilon_count, R = ctx->options->repetitions;
  const size_t block = (size_t)DPBO_COMPARE_METHODS * (size_t)E * (size_t)R;
  double *scratch = NULL;
  if (!(scratch = malloc(sizeof *scratch * (size_t)R))) DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory");
  dpbo_log_info("held-out test accuracy of the released hyper-parameter, median [25%%, 75%%] over "
                "%d repetitions:",
                R);
  for (int k = 0; k < DPBO_COMPARE_METHODS; k++) {
    if (k == DPBO_COMPARE_ALGORITHM3) continue; /* releases no hyper-parameter */
    char line[2048];
    size_t used = (size_t)snprintf(line, sizeof line, "  %-26s", method_names[k]);
    for (int e = 0; e < E && used < sizeof line; e++) {
      const double *v = results + block + ((size_t)k * (size_t)E + (size_t)e) * (size_t)R;
      used += (size_t)snprintf(line + used, sizeof line - used, " eps=%g: %.4f [%.4f, %.4f]",
                               ctx->options->epsilon[e], compare_quantile(scratch, v, R, 0.5),
                               compare_quantile(scratch, v, R, 0.25),
                               compare_quantile(scratch, v, R, 0.75));
      if (k == DPBO_COMPARE_GP_UCB || k == DPBO_COMPARE_RANDOM_SEARCH_NONPRIVATE ||
          k == DPBO_COMPARE_GP_UCB_MEAN)
        break; /* the references do not depend on ε */
    }
    dpbo_log_info("%s", line);
  }
  for (int e = 0; e < E && ctx->has_algorithm3; e++) {
    const size_t at = ((size_t)DPBO_COMPARE_ALGORITHM3 * (size_t)E + (size_t)e) * (size_t)R;
    const double *v = results + 3 * block + at, *g = results + 2 * block + at;
    for (int r = 0; r < R; r++)
      scratch[r] = fabs(v[r] - g[r]);
    qsort(scratch, (size_t)R, sizeof *scratch, compare_cmp_double);
    dpbo_log_info("  Algorithm 3 (value only): eps=%g  median |f~_L - max_t f_V| = %.4g",
                  ctx->options->epsilon[e], scratch[R / 2]);
  }
  if (util->available)
    for (int e = 0; e < E; e++)
      dpbo_log_info("  dpbo exact (data holder): eps=%g  E[test accuracy of lambda~] = %.4f, "
                    "E[max mu_T - mu_T(lambda~)] = %.4f, P(argmax mu_T) = %.3g",
                    ctx->options->epsilon[e], util->expected_test[e], util->expected_regret[e],
                    util->probability_argmax[e]);
done:
  free(scratch);
  return status;
}

/* Rank 0: the comparison file, labelled with its noise source. */
static dpbo_status compare_publish(const compare_context *ctx, const double *results,
                                   const compare_utility *util, double start, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = ctx->config;
  char path[DPBO_PATH_MAX + 300], source[256];
  dpbo_noise probe;
  if (config->noise == DPBO_NOISE_SEEDED)
    dpbo_noise_init_seeded(&probe, config->noise_seed, 1000);
  else
    dpbo_noise_init_os(&probe);
  dpbo_noise_describe(&probe, source, sizeof source);
  if (config->noise == DPBO_NOISE_SEEDED)
    snprintf(source + strlen(source), sizeof source - strlen(source),
             "; repetition r uses stream 1000 + r");
  dpbo_config_run_path(config, path, sizeof path);
  DPBO_TRY(compare_write(path, ctx, results, util, source, MPI_Wtime() - start, err));
  dpbo_log_info("comparison file: %s (%.1f s; sensitive: never publish)", path,
                MPI_Wtime() - start);
done:
  return status;
}

/* Validate, plan, make the table and the GP-UCB run, run the repetitions,
 * then rank 0 summarizes and writes the file. */
dpbo_status dpbo_compare_run(MPI_Comm comm, const dpbo_config *config,
                             const dpbo_compare_options *options, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank;
  compare_table table = {0, NULL, NULL, NULL, 0.0, NULL, 0};
  compare_context *ctx = NULL;
  compare_utility *util = NULL;
  double *results = NULL, *mean = NULL;
  dpbo_run run;
  memset(&run, 0, sizeof run);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  const double start = MPI_Wtime();
  DPBO_TRY(compare_validate(config, options, err));
  DPBO_ALLOC(ctx, 1, "the comparison");
  DPBO_ALLOC(util, 1, "the utility curves");
  ctx->config = config;
  ctx->options = options;
  ctx->table = &table;
  DPBO_TRY(compare_plan(ctx, err));
  DPBO_TRY(compare_table_make(comm, ctx, &run, &table, start, err));
  DPBO_TRY(compare_gp_ucb(comm, ctx, &run, &table, &mean, err));
  DPBO_TRY(compare_repetitions(comm, ctx, &results, err));
  if (rank == 0) {
    local = compare_utility_figures(ctx, util, err);
    if (local == DPBO_OK) local = compare_log_summary(ctx, results, util, err);
    if (local == DPBO_OK) local = compare_publish(ctx, results, util, start, err);
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
done:
  dpbo_run_free(&run); /* space with it */
  free(table.gain);
  free(table.val);
  free(table.test);
  free(table.proxy);
  free(ctx);
  free(util);
  free(results);
  free(mean);
  return status;
}
