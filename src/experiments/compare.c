/* dpbo compare: DP-BO against private-selection baselines at equal (ε, δ)
 * (compare.h describes the experiment, baseline.h the baselines). */
#include "experiments/compare.h"
#include "run/algorithm.h"

#include <hdf5.h>
#include <math.h>
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
#include "base/blas.h"
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

static const char *const method_names[DPBO_COMPARE_METHODS] = {"dpbo",
                                                               "random_search",
                                                               "liu_talwar",
                                                               "papernot_steinke",
                                                               "gp_ucb",
                                                               "random_search_nonprivate",
                                                               "dpbo_algorithm3",
                                                               "private_evaluations_mean",
                                                               "private_evaluations_best",
                                                               "gp_ucb_mean"};

dpbo_status dpbo_compare_account(int method, double epsilon, double delta, double split, int T,
                                 double ps_eta, dpbo_compare_accounting *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
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
    DPBO_TRY(dpbo_selection_account(DPBO_ALGORITHM_RANDOM_SEARCH, epsilon, delta, split, T, ps_eta,
                                    out, err));
    break;
  case DPBO_COMPARE_LIU_TALWAR:
    DPBO_TRY(dpbo_selection_account(DPBO_ALGORITHM_LIU_TALWAR, epsilon, delta, split, T, ps_eta,
                                    out, err));
    break;
  case DPBO_COMPARE_PAPERNOT_STEINKE:
    DPBO_TRY(dpbo_selection_account(DPBO_ALGORITHM_PAPERNOT_STEINKE, epsilon, delta, split, T,
                                    ps_eta, out, err));
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

static dpbo_status compare_evaluate(compare_evaluator *ev, const dpbo_config *config,
                                    const double *v, double *gain, double *val, double *test,
                                    double *seconds, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (ev->logreg) {
    double t0 = MPI_Wtime();
    DPBO_TRY(dpbo_logreg_compare_evaluate(&ev->objective, v[ev->il], gain, val, test, err));
    *seconds = MPI_Wtime() - t0;
  } else {
    const int64_t m = config->svm.validation_rows, m_test = config->svm.test_rows;
    DPBO_TRY(
        dpbo_svm_evaluate_at(ev->svm, &config->svm, &ev->dims, v, ev->correct, NULL, seconds, err));
    int64_t right_v = 0, right_t = 0;
    for (int64_t r = 0; r < m; r++)
      right_v += ev->correct[r];
    for (int64_t r = 0; r < m_test; r++)
      right_t += ev->correct[m + r];
    *val = (double)right_v / (double)m;
    *test = (double)right_t / (double)m_test;
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
    DPBO_TRY(dpbo_svm_data_split(
        data, opt->split_seed, opt->train_rows, opt->validation_rows + opt->test_rows,
        "dpbo compare (train, validation and test rows)", opt->data_path, &ev->svm, err));
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

/* One candidate's row as a worker sends it to rank 0. */
typedef struct compare_row {
  int64_t index;
  double gain, val, test, seconds;
  int32_t code, pad;
  char message[DPBO_ERROR_MSG_MAX];
} compare_row;

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
    code = compare_evaluate(fill->ev, fill->config, v, &row->gain, &row->val, &row->test,
                            &row->seconds, &err);
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
  dpbo_farm *farm = NULL;
  int64_t *tasks = NULL;
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
  if (local == DPBO_OK && rank == 0) {
    tasks = malloc((size_t)(n > 0 ? n : 1) * sizeof *tasks);
    if (!tasks) local = DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory for the candidates");
    for (int64_t i = 0; tasks && i < n; i++)
      tasks[i] = i;
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  const dpbo_farm_options options = {.result_bytes = sizeof(compare_row)};
  DPBO_TRY(dpbo_farm_create(comm, &options, &farm, err));
  compare_fill fill = {config, space, &ev, table, 0.0, 0, MPI_Wtime(), 0.1};
  const dpbo_farm_work work = {.tasks = tasks,
                               .task_count = n,
                               .noun = "candidate",
                               .context = &fill,
                               .work = compare_fill_work,
                               .accept = compare_fill_accept};
  dpbo_farm_outcome outcome;
  local = dpbo_farm_run(farm, &work, &outcome, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  /* Rank 0 filed every entry; the others hold zeros (the sum keeps the
   * table as it was when each rank filled its share). */
  DPBO_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, table->gain, (int)n, MPI_DOUBLE, MPI_SUM, comm));
  DPBO_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, table->val, (int)n, MPI_DOUBLE, MPI_SUM, comm));
  DPBO_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, table->test, (int)n, MPI_DOUBLE, MPI_SUM, comm));
  DPBO_MPI_TRY(MPI_Allreduce(&fill.seconds, &table->seconds, 1, MPI_DOUBLE, MPI_SUM, comm));
done:
  dpbo_farm_destroy(farm);
  free(tasks);
  compare_evaluator_destroy(&ev);
  return status;
}

/* The evaluation of GP-UCB's step (run.h): a table look-up, the same on
 * every rank. */
static dpbo_status compare_table_gain(void *context, int64_t index, double *gain, dpbo_error *err) {
  *gain = ((const compare_table *)context)->gain[index];
  return DPBO_OK;
}

/* ---------------------------------------------------------------------------
 * One repetition of every method at every ε. */

typedef struct compare_cell {
  double val, test, gain, released, evaluations, index;
} compare_cell;

enum { COMPARE_FIELDS = 6 }; /* val, test, gain, released, evaluations, index */

typedef struct compare_context {
  const dpbo_config *config;
  const compare_table *table;
  const double *mean; /* μ_T over Λ, units of v */
  const dpbo_run *run;
  dpbo_sensitivity sens;
  dpbo_compare_accounting acc[DPBO_COMPARE_METHODS][DPBO_COMPARE_MAX_EPSILONS];
  int64_t n;
  double score_sensitivity; /* of a gain at a fixed λ: 1/m (svm accuracy), g* / m (logreg) */
  double lo, hi;            /* the gain's range: released values are clamped to it */
  /* The privatized evaluations at each ε: σ and the GP's noise. */
  double evals_sigma[DPBO_COMPARE_MAX_EPSILONS], evals_noise_std[DPBO_COMPARE_MAX_EPSILONS];
  int64_t gp_ucb_mean_index; /* argmax μ_T of the non-private run, and μ_T there */
  double gp_ucb_mean_value;
  int has_algorithm3;      /* logreg: Algorithm 3's f~_L as well */
  double alg3_sensitivity; /* Theorem 6's Δ (units of the gain) */
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
  DPBO_TRY(dpbo_selection_stopping(compare_next, &draws, noise, ctx->score_sensitivity, epsilon0, K,
                                   ctx->config->iterations, ctx->lo, ctx->hi, 1.0, &pick, err));
  compare_cell_at(ctx, pick.index, pick.released, (double)pick.runs, cell);
done:
  return status;
}

static void compare_rep_streams(const dpbo_config *config, int rep, int which, dpbo_rng *rng) {
  /* Candidate streams: data-independent experiment randomness (PCG). */
  dpbo_rng_seed(rng, config->seed ^ 0x636f6d70617265ull, (uint64_t)rep * 4u + (uint64_t)which);
}

static dpbo_status compare_repetition(const compare_context *ctx, int rep, compare_cell *cells,
                                      int stride_method, int stride_eps, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = ctx->config;
  const int T = config->iterations, E = config->compare_epsilon_count;
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
    DPBO_TRY(dpbo_mech_select(MPI_COMM_SELF, 0, &noise, config->selection, ctx->mean, 0, ctx->n,
                              ctx->n, ctx->sens.lambda_sensitivity, a->epsilon_select, &sel, err));
    DPBO_TRY(dpbo_mech_laplace(&noise, best_v, ctx->sens.value_sensitivity, a->epsilon_value, lo,
                               hi, &lap, err));
    compare_cell_at(ctx, sel.index, lap.value, T, CELL(DPBO_COMPARE_DPBO));
    /* Private random search over the repetition's T candidates. */
    a = &ctx->acc[DPBO_COMPARE_RANDOM_SEARCH][e];
    dpbo_selection_pick pick;
    DPBO_TRY(dpbo_selection_random_search(&noise, config->selection, scores, T,
                                          ctx->score_sensitivity, a->epsilon_select,
                                          a->epsilon_value, lo, hi, 1.0, &pick, err));
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
    /* Non-private references. */
    const dpbo_trace_step *b = &ctx->run->trace[ctx->run->best_step];
    compare_cell_at(ctx, b->index, b->gain, T, CELL(DPBO_COMPARE_GP_UCB));
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
      DPBO_TRY(dpbo_mech_laplace(&noise, best_v, ctx->alg3_sensitivity, a->epsilon_value, lo, hi,
                                 &lap, err));
      c3->released = lap.value;
      c3->gain = best_v;
      c3->evaluations = T;
    }
#undef CELL
  }
  /* GP-UCB on privatized evaluations: after every other method, so their
   * draws from the repetition's noise stream stay as they were. */
  for (int e = 0; e < E; e++) {
    dpbo_compare_evals_pick pe;
    DPBO_TRY(dpbo_compare_evals_run(config, ctx->table->gain, &noise, ctx->score_sensitivity,
                                    ctx->evals_sigma[e], ctx->evals_noise_std[e], &pe, err));
    const size_t at = (size_t)e * (size_t)stride_eps;
    compare_cell_at(ctx, pe.mean_index, pe.mean_value, T,
                    &cells[(size_t)DPBO_COMPARE_PRIVATE_EVALS_MEAN * (size_t)stride_method + at]);
    compare_cell_at(ctx, pe.best_index, pe.best_value, T,
                    &cells[(size_t)DPBO_COMPARE_PRIVATE_EVALS_BEST * (size_t)stride_method + at]);
    compare_cell_at(ctx, ctx->gp_ucb_mean_index, ctx->gp_ucb_mean_value, T,
                    &cells[(size_t)DPBO_COMPARE_GP_UCB_MEAN * (size_t)stride_method + at]);
  }
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

static dpbo_status compare_write(const char *path, const compare_context *ctx,
                                 const dpbo_space *space, const double *results,
                                 const compare_utility *util, const char *noise_source, double wall,
                                 dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = ctx->config;
  const int E = config->compare_epsilon_count, R = config->compare_repetitions,
            T = config->iterations;
  const int M = DPBO_COMPARE_METHODS, d = dpbo_space_dims(space);
  const int64_t n = ctx->n;
  hid_t group = -1;
  double *lambda = NULL, *column = NULL;
  int64_t *trace_index = NULL;
  dpbo_h5io_file out;
  memset(&out, 0, sizeof out);
  out.id = -1;
  DPBO_ALLOC(lambda, (size_t)n * (size_t)d, "the candidates");
  DPBO_ALLOC(column, (size_t)M * (size_t)E, "an accounting column");
  DPBO_ALLOC(trace_index, T, "the trace");
  DPBO_TRY(dpbo_compare_table_lambda(space, lambda, err));
  DPBO_TRY(dpbo_h5io_create(MPI_COMM_SELF, path, &out, err));
  hid_t file = out.id;
  const int logreg = config->objective == DPBO_OBJECTIVE_LOGREG;
  int64_t values[6] = {n,
                       T,
                       R,
                       logreg ? config->logreg.validation_rows : config->svm.validation_rows,
                       logreg ? config->logreg.test_rows : config->svm.test_rows,
                       E};
  DPBO_TRY(dpbo_h5io_attr_string(file, "dpbo_version", DPBO_VERSION_STRING, err));
  DPBO_TRY(dpbo_h5io_attr_string(file, "config_file", config->path, err));
  DPBO_TRY(dpbo_output_write_settings(file, &config->settings, err));
  DPBO_TRY(dpbo_h5io_attr_string(file, "sensitive",
                                 "yes: the table, the GP-UCB run and every accuracy depend on the "
                                 "validation data; an experiment file, never a release",
                                 err));
  DPBO_TRY(dpbo_h5io_attr_string(file, "randomness", noise_source, err));
  /* Where /table came from: trained here, or the compare.table file. */
  DPBO_TRY(dpbo_h5io_attr_string(
      file, "table_source", config->compare_table[0] ? config->compare_table : "trained", err));
  DPBO_TRY(dpbo_h5io_attr_int64(file, "N", &values[0], 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(file, "T", &values[1], 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(file, "repetitions", &values[2], 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(file, "validation_rows", &values[3], 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(file, "test_rows", &values[4], 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(file, "delta", &config->privacy_delta, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(file, "split", &config->privacy_split, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(file, "wall_seconds", &wall, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(file, "train_seconds", &ctx->table->seconds, 1, err));
  DPBO_TRY(dpbo_h5io_attr_string(file, "algorithm", dpbo_algorithm_name(config->algorithm), err));
  DPBO_TRY(
      dpbo_h5io_attr_string(file, "objective", dpbo_objective_kind_name(config->objective), err));
  DPBO_TRY(dpbo_h5io_attr_string(file, "selection", dpbo_select_kind_name(config->selection), err));
  DPBO_TRY(
      dpbo_h5io_attr_doubles(file, "sensitivity_lambda", &ctx->sens.lambda_sensitivity, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(file, "sensitivity_value", &ctx->sens.value_sensitivity, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(file, "sensitivity_baselines", &ctx->score_sensitivity, 1, err));
  if (ctx->has_algorithm3)
    DPBO_TRY(
        dpbo_h5io_attr_doubles(file, "sensitivity_algorithm3", &ctx->alg3_sensitivity, 1, err));
  {
    const dpbo_sensitivity *s = &ctx->sens;
    double terms[] = {s->beta_T1, s->c_lambda, s->beta_T,  s->c_value,
                      s->q,       s->C1,       s->gamma_T, s->regret_term};
    const char *names[] = {"beta_T_plus_1", "c_lambda",   "beta_T", "c_value", "q", "C1",
                           "gamma_T",       "regret_term"};
    for (size_t i = 0; i < sizeof terms / sizeof terms[0]; i++)
      DPBO_TRY(dpbo_h5io_attr_doubles(file, names[i], &terms[i], 1, err));
  }

  group = H5Gcreate2(file, "table", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create /table");
  DPBO_TRY(dpbo_output_write_dims(group, d, config->dim, err));
  hsize_t dims[3] = {(hsize_t)n, (hsize_t)d, 0};
  DPBO_TRY(dpbo_h5io_write_array(group, "lambda", H5T_NATIVE_DOUBLE, 2, dims, lambda, err));
  DPBO_TRY(dpbo_h5io_write_array(group, "gain", H5T_NATIVE_DOUBLE, 1, dims, ctx->table->gain, err));
  DPBO_TRY(dpbo_h5io_write_array(group, "val_accuracy", H5T_NATIVE_DOUBLE, 1, dims, ctx->table->val,
                                 err));
  DPBO_TRY(dpbo_h5io_write_array(group, "test_accuracy", H5T_NATIVE_DOUBLE, 1, dims,
                                 ctx->table->test, err));
  H5Gclose(group);

  group = H5Gcreate2(file, "gp_ucb", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create /gp_ucb");
  for (int t = 0; t < T; t++)
    trace_index[t] = ctx->run->trace[t].index;
  dims[0] = (hsize_t)T;
  DPBO_TRY(dpbo_h5io_write_array(group, "index", H5T_NATIVE_INT64, 1, dims, trace_index, err));
  {
    double *gain = NULL;
    DPBO_ALLOC(gain, T, "the trace gains");
    for (int t = 0; t < T; t++)
      gain[t] = ctx->run->trace[t].gain;
    status = dpbo_h5io_write_array(group, "gain", H5T_NATIVE_DOUBLE, 1, dims, gain, err);
    free(gain);
    if (status != DPBO_OK) goto done;
  }
  dims[0] = (hsize_t)n;
  DPBO_TRY(dpbo_h5io_write_array(group, "mean", H5T_NATIVE_DOUBLE, 1, dims, ctx->mean, err));
  H5Gclose(group);

  group = H5Gcreate2(file, "methods", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create /methods");
  {
    char names[512] = "";
    for (int k = 0; k < M; k++) {
      if (k) strcat(names, ",");
      strcat(names, method_names[k]);
    }
    DPBO_TRY(dpbo_h5io_attr_string(group, "names", names, err));
  }
  dims[0] = (hsize_t)E;
  DPBO_TRY(dpbo_h5io_write_array(group, "epsilon", H5T_NATIVE_DOUBLE, 1, dims,
                                 config->compare_epsilon, err));
  dims[0] = (hsize_t)M;
  dims[1] = (hsize_t)E;
  dims[2] = (hsize_t)R;
  /* results: [field][M][E][R]: the validation and test accuracy and the
   * gain of the released λ, the released value (units of the gain), the
   * evaluations spent and the released λ's index (NaN and -1 where a method
   * releases no λ). */
  static const char *const fields[COMPARE_FIELDS] = {"val_accuracy",   "test_accuracy", "gain",
                                                     "released_value", "evaluations",   "index"};
  const size_t block = (size_t)M * (size_t)E * (size_t)R;
  for (int f = 0; f < COMPARE_FIELDS; f++) {
    if (f == COMPARE_FIELDS - 1) {
      int64_t *idx = NULL;
      DPBO_ALLOC(idx, block, "the chosen indices");
      for (size_t i = 0; i < block; i++)
        idx[i] = (int64_t)results[(size_t)f * block + i];
      status = dpbo_h5io_write_array(group, fields[f], H5T_NATIVE_INT64, 3, dims, idx, err);
      free(idx);
      if (status != DPBO_OK) goto done;
    } else {
      DPBO_TRY(dpbo_h5io_write_array(group, fields[f], H5T_NATIVE_DOUBLE, 3, dims,
                                     results + (size_t)f * block, err));
    }
  }
  H5Gclose(group);

  group = H5Gcreate2(file, "accounting", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create /accounting");
#define ACC_COLUMN(name, member)                                                                   \
  do {                                                                                             \
    for (int k = 0; k < M; k++)                                                                    \
      for (int e = 0; e < E; e++)                                                                  \
        column[k * E + e] = ctx->acc[k][e].member;                                                 \
    DPBO_TRY(dpbo_h5io_write_array(group, name, H5T_NATIVE_DOUBLE, 2, dims, column, err));         \
  } while (0)
  ACC_COLUMN("epsilon", epsilon);
  ACC_COLUMN("delta", delta);
  ACC_COLUMN("epsilon_accounted", epsilon_accounted);
  ACC_COLUMN("delta_accounted", delta_accounted);
  ACC_COLUMN("epsilon_select", epsilon_select);
  ACC_COLUMN("epsilon_value", epsilon_value);
  ACC_COLUMN("epsilon_base", epsilon_base);
  ACC_COLUMN("gamma", gamma);
  ACC_COLUMN("eta", eta);
  ACC_COLUMN("expected_runs", expected_runs);
  ACC_COLUMN("rdp_order", rdp_order);
  ACC_COLUMN("rdp_order_hat", rdp_order_hat);
  ACC_COLUMN("epsilon_base_rdp", epsilon_base_rdp);
  ACC_COLUMN("epsilon_base_profile", epsilon_base_profile);
  ACC_COLUMN("by_profile", by_profile);
#undef ACC_COLUMN
  {
    /* σ of the privatized evaluations and the GP's noise with it. */
    const double *from[2] = {ctx->evals_sigma, ctx->evals_noise_std};
    const char *names[2] = {"sigma", "gp_noise_std_used"};
    for (int c = 0; c < 2; c++) {
      for (int k = 0; k < M; k++)
        for (int e = 0; e < E; e++)
          column[k * E + e] =
              k == DPBO_COMPARE_PRIVATE_EVALS_MEAN || k == DPBO_COMPARE_PRIVATE_EVALS_BEST
                  ? from[c][e]
                  : 0.0;
      DPBO_TRY(dpbo_h5io_write_array(group, names[c], H5T_NATIVE_DOUBLE, 2, dims, column, err));
    }
  }
  H5Gclose(group);

  if (util->available) {
    group = H5Gcreate2(file, "utility", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create /utility");
    DPBO_TRY(
        dpbo_h5io_attr_string(group, "note",
                              "exact distribution of the dpbo lambda~ given mu_T at each epsilon "
                              "(data holder only): regret curve P(max mu_T - mu_T(lambda~) <= x) "
                              "and expected accuracies of lambda~",
                              err));
    dims[0] = (hsize_t)E;
    dims[1] = DPBO_UTILITY_CDF_POINTS;
    double *rows = NULL;
    DPBO_ALLOC(rows, (size_t)E * DPBO_UTILITY_CDF_POINTS, "utility rows");
    for (int e = 0; e < E; e++)
      memcpy(rows + (size_t)e * DPBO_UTILITY_CDF_POINTS, util->regret_x[e],
             sizeof util->regret_x[e]);
    status = dpbo_h5io_write_array(group, "regret_x", H5T_NATIVE_DOUBLE, 2, dims, rows, err);
    for (int e = 0; e < E && status == DPBO_OK; e++)
      memcpy(rows + (size_t)e * DPBO_UTILITY_CDF_POINTS, util->regret_cdf[e],
             sizeof util->regret_cdf[e]);
    if (status == DPBO_OK)
      status = dpbo_h5io_write_array(group, "regret_cdf", H5T_NATIVE_DOUBLE, 2, dims, rows, err);
    free(rows);
    if (status != DPBO_OK) goto done;
    DPBO_TRY(dpbo_h5io_write_array(group, "expected_regret_mean", H5T_NATIVE_DOUBLE, 1, dims,
                                   util->expected_regret, err));
    DPBO_TRY(dpbo_h5io_write_array(group, "probability_argmax", H5T_NATIVE_DOUBLE, 1, dims,
                                   util->probability_argmax, err));
    DPBO_TRY(dpbo_h5io_write_array(group, "expected_val_accuracy", H5T_NATIVE_DOUBLE, 1, dims,
                                   util->expected_val, err));
    DPBO_TRY(dpbo_h5io_write_array(group, "expected_test_accuracy", H5T_NATIVE_DOUBLE, 1, dims,
                                   util->expected_test, err));
    H5Gclose(group);
  }
  group = -1;
  DPBO_TRY(dpbo_h5io_commit(&out, err));
done:
  if (group >= 0) H5Gclose(group);
  if (status != DPBO_OK) dpbo_h5io_discard(&out);
  free(lambda);
  free(column);
  free(trace_index);
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

dpbo_status dpbo_compare_run(MPI_Comm comm, const dpbo_config *config, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank, size;
  dpbo_space *space = NULL;
  compare_table table = {0, NULL, NULL, NULL, 0.0};
  compare_context *ctx = NULL;
  compare_utility *util = NULL;
  double *results = NULL, *mean = NULL, *p = NULL, *scratch = NULL;
  dpbo_run run;
  memset(&run, 0, sizeof run);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  const double start = MPI_Wtime();

  /* What the comparison needs from the config. */
  const int logreg = config->objective == DPBO_OBJECTIVE_LOGREG;
  if (config->objective != DPBO_OBJECTIVE_SVM && !logreg)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: dpbo compare needs objective.kind = svm or logreg (the baselines rest on the "
               "gain's sensitivity 1/m over m validation records)",
               config->path);
  if ((logreg ? config->logreg.test_rows : config->svm.test_rows) < 1)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: dpbo compare needs held-out rows: set objective.test_rows >= 1", config->path);
  if (!dpbo_algorithm_ops_get(config->algorithm)->gp_release)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: dpbo compare runs DP-BO with privacy.algorithm = 1 (or 2): set it (with the "
               "logreg objective Algorithm 3's released value is compared as well)",
               config->path);
  if (config->iterations < 2)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: dpbo compare needs run.iterations >= 2", config->path);

  DPBO_ALLOC(ctx, 1, "the comparison");
  DPBO_ALLOC(util, 1, "the utility curves");
  ctx->config = config;
  ctx->table = &table;
  /* The gain's sensitivity at a fixed λ and its range (run/selection.h). */
  DPBO_TRY(dpbo_selection_gain_range(config, &ctx->score_sensitivity, &ctx->lo, &ctx->hi, err));
  const int E = config->compare_epsilon_count, R = config->compare_repetitions,
            T = config->iterations;
  const int M = DPBO_COMPARE_METHODS;
  /* Accounting first: a budget a baseline cannot meet fails before hours of training. */
  for (int k = 0; k < M; k++)
    for (int e = 0; e < E; e++) {
      if (k == DPBO_COMPARE_PRIVATE_EVALS_MEAN || k == DPBO_COMPARE_PRIVATE_EVALS_BEST)
        status = dpbo_compare_evals_account(T, ctx->score_sensitivity, config->compare_epsilon[e],
                                            config->privacy_delta, config->prior.noise_std,
                                            &ctx->acc[k][e], &ctx->evals_sigma[e],
                                            &ctx->evals_noise_std[e], err);
      else
        status = dpbo_compare_account(k, config->compare_epsilon[e], config->privacy_delta,
                                      config->privacy_split, T, config->compare_ps_eta,
                                      &ctx->acc[k][e], err);
      if (status != DPBO_OK) {
        dpbo_error_prefix(err, "%s: %s at epsilon = %g", config->path, method_names[k],
                          config->compare_epsilon[e]);
        goto done;
      }
      if (k == DPBO_COMPARE_ALGORITHM3 && !logreg) /* not applicable: all zero */
        dpbo_compare_account(DPBO_COMPARE_GP_UCB, config->compare_epsilon[e], config->privacy_delta,
                             config->privacy_split, T, config->compare_ps_eta, &ctx->acc[k][e],
                             err);
    }

  /* The run first (Λ, GP, UCB state): GP-UCB runs on the table through the
   * step `dpbo run` takes, so it is the run `dpbo run` would make. */
  DPBO_TRY(dpbo_run_create(comm, config, &run, err));
  space = run.space;
  ctx->n = dpbo_space_size(space);
  if (rank == 0)
    dpbo_log_info("dpbo compare: |Λ| = %lld candidates, T = %d, R = %d repetitions, %d values of "
                  "epsilon, %d rank%s; first the accuracy table over Λ",
                  (long long)ctx->n, T, R, E, size, size == 1 ? "" : "s");
  if (rank == 0) dpbo_blas_log();
  if (config->compare_table[0]) {
    table.n = ctx->n;
    DPBO_TRY(dpbo_compare_table_read(comm, config, space, &table.gain, &table.val, &table.test,
                                     &table.seconds, err));
  } else {
    DPBO_TRY(compare_table_fill(comm, config, space, &table, err));
  }
  if (rank == 0) {
    int64_t bv = 0, bt = 0;
    for (int64_t i = 1; i < ctx->n; i++) {
      if (table.val[i] > table.val[bv]) bv = i;
      if (table.test[i] > table.test[bt]) bt = i;
    }
    dpbo_log_info("table done in %.1f s (%.1f s training over all ranks): best validation accuracy "
                  "over Λ %.4f (test %.4f there), best test accuracy over Λ %.4f",
                  MPI_Wtime() - start, table.seconds, table.val[bv], table.test[bv],
                  table.test[bt]);
  }

  for (int t = 0; t < T; t++)
    DPBO_TRY(dpbo_run_step(comm, config, compare_table_gain, &table, &run, err));
  ctx->run = &run;
  DPBO_TRY(dpbo_compare_evals_mean_choice(comm, config, &run, &ctx->gp_ucb_mean_index,
                                          &ctx->gp_ucb_mean_value, err));
  DPBO_TRY(dpbo_utility_gather_mean(comm, config, &run, &mean, err));
  ctx->mean = mean;
  {
    dpbo_privacy_inputs in;
    DPBO_TRY(dpbo_release_inputs(config, space, &in, err));
    DPBO_TRY(dpbo_privacy_sensitivities(comm, &in, space, &config->kernel, dpbo_ucb_begin(run.ucb),
                                        dpbo_ucb_count(run.ucb), &ctx->sens, err));
  }
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
                  run.trace[run.best_step].gain, run.best_step + 1, ctx->sens.lambda_sensitivity,
                  ctx->sens.value_sensitivity, ctx->score_sensitivity);
  if (rank == 0 && logreg)
    dpbo_log_info("Algorithm 3: Delta = %.4g for its released value", ctx->alg3_sensitivity);
  for (int e = 0; e < E && rank == 0; e++)
    dpbo_log_info("privatized evaluations at eps=%g, delta=%g: sigma = %.6g for K = %d Gaussian "
                  "releases of sensitivity %.6g; the GP's noise %.6g",
                  config->compare_epsilon[e], config->privacy_delta, ctx->evals_sigma[e], T,
                  ctx->score_sensitivity, ctx->evals_noise_std[e]);

  /* Repetitions over ranks: results[field][method][ε][rep]. */
  const size_t block = (size_t)M * (size_t)E * (size_t)R;
  DPBO_ALLOC(results, COMPARE_FIELDS * block, "the results");
  compare_cell *cells = NULL;
  DPBO_ALLOC(cells, (size_t)M * (size_t)E, "one repetition's results");
  local = DPBO_OK;
  for (int rep = rank; rep < R && local == DPBO_OK; rep += size) {
    local = compare_repetition(ctx, rep, cells, E, 1, err);
    for (int k = 0; k < M && local == DPBO_OK; k++)
      for (int e = 0; e < E; e++) {
        const compare_cell *c = &cells[k * E + e];
        size_t at = ((size_t)k * (size_t)E + (size_t)e) * (size_t)R + (size_t)rep;
        const double fields[COMPARE_FIELDS] = {c->val,      c->test,        c->gain,
                                               c->released, c->evaluations, c->index};
        for (int f = 0; f < COMPARE_FIELDS; f++)
          results[(size_t)f * block + at] = fields[f];
      }
  }
  free(cells);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  /* Each entry comes from one rank, the others hold 0 (NaN + 0 stays NaN). */
  DPBO_MPI_TRY(MPI_Reduce(rank == 0 ? MPI_IN_PLACE : results, results,
                          (int)(COMPARE_FIELDS * block), MPI_DOUBLE, MPI_SUM, 0, comm));

  /* Rank 0: the exact λ̃ distribution at each ε, the summary and the file. */
  if (rank == 0) {
    local = DPBO_OK;
    util->available = config->selection == DPBO_SELECT_EXPONENTIAL || ctx->n <= 512;
    if (util->available && !(p = malloc(sizeof *p * (size_t)ctx->n)))
      local = DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory for the distribution of lambda~");
    for (int e = 0; e < E && util->available && local == DPBO_OK; e++) {
      dpbo_utility_holder h;
      memset(&h, 0, sizeof h);
      h.best_observed = run.trace[run.best_step].gain;
      local =
          dpbo_utility_lambda_figures(config->selection, mean, ctx->n, ctx->sens.lambda_sensitivity,
                                      ctx->acc[DPBO_COMPARE_DPBO][e].epsilon_select, p, &h, err);
      if (local != DPBO_OK) break;
      long double ev = 0.0L, et = 0.0L;
      for (int64_t i = 0; i < ctx->n; i++) {
        ev += (long double)p[i] * table.val[i];
        et += (long double)p[i] * table.test[i];
      }
      memcpy(util->regret_x[e], h.regret_x, sizeof h.regret_x);
      memcpy(util->regret_cdf[e], h.regret_cdf, sizeof h.regret_cdf);
      util->expected_regret[e] = h.expected_regret_mean;
      util->probability_argmax[e] = h.probability_argmax;
      util->expected_val[e] = (double)ev;
      util->expected_test[e] = (double)et;
    }
    if (local == DPBO_OK && !(scratch = malloc(sizeof *scratch * (size_t)R)))
      local = DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory");
    if (local == DPBO_OK) {
      dpbo_log_info(
          "held-out test accuracy of the released hyper-parameter, median [25%%, 75%%] over "
          "%d repetitions:",
          R);
      for (int k = 0; k < M; k++) {
        if (k == DPBO_COMPARE_ALGORITHM3) continue; /* releases no hyper-parameter */
        char line[2048];
        size_t used = (size_t)snprintf(line, sizeof line, "  %-26s", method_names[k]);
        for (int e = 0; e < E && used < sizeof line; e++) {
          const double *v = results + block + ((size_t)k * (size_t)E + (size_t)e) * (size_t)R;
          used += (size_t)snprintf(line + used, sizeof line - used, " eps=%g: %.4f [%.4f, %.4f]",
                                   config->compare_epsilon[e], compare_quantile(scratch, v, R, 0.5),
                                   compare_quantile(scratch, v, R, 0.25),
                                   compare_quantile(scratch, v, R, 0.75));
          if (k == DPBO_COMPARE_GP_UCB || k == DPBO_COMPARE_RANDOM_SEARCH_NONPRIVATE ||
              k == DPBO_COMPARE_GP_UCB_MEAN)
            break; /* the references do not depend on ε */
        }
        dpbo_log_info("%s", line);
      }
      for (int e = 0; e < E && ctx->has_algorithm3; e++) {
        const double *v = results + 3 * block +
                          ((size_t)DPBO_COMPARE_ALGORITHM3 * (size_t)E + (size_t)e) * (size_t)R;
        const double *g = results + 2 * block +
                          ((size_t)DPBO_COMPARE_ALGORITHM3 * (size_t)E + (size_t)e) * (size_t)R;
        for (int r = 0; r < R; r++)
          scratch[r] = fabs(v[r] - g[r]);
        qsort(scratch, (size_t)R, sizeof *scratch, compare_cmp_double);
        dpbo_log_info("  Algorithm 3 (value only): eps=%g  median |f~_L - max_t f_V| = %.4g",
                      config->compare_epsilon[e], scratch[R / 2]);
      }
      if (util->available)
        for (int e = 0; e < E; e++)
          dpbo_log_info("  dpbo exact (data holder): eps=%g  E[test accuracy of lambda~] = %.4f, "
                        "E[max mu_T - mu_T(lambda~)] = %.4f, P(argmax mu_T) = %.3g",
                        config->compare_epsilon[e], util->expected_test[e],
                        util->expected_regret[e], util->probability_argmax[e]);
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
      local = compare_write(path, ctx, space, results, util, source, MPI_Wtime() - start, err);
      if (local == DPBO_OK)
        dpbo_log_info("comparison file: %s (%.1f s; sensitive: never publish)", path,
                      MPI_Wtime() - start);
    }
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
done:
  dpbo_run_free(&run); /* space with it */
  free(table.gain);
  free(table.val);
  free(table.test);
  free(ctx);
  free(util);
  free(results);
  free(mean);
  free(p);
  free(scratch);
  return status;
}
