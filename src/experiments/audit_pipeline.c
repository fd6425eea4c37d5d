/* The whole-pipeline audit (`dpbo audit --pipeline CONFIG`, audit.h): the
 * tuning run on D and on a neighbour D', the releases of each, and the
 * histogram test of audit.c on what is released, in phases (validate, tune,
 * draws, ranges, test). */
#include "experiments/audit.h"
#include "experiments/audit_private.h"
#include "run/algorithm.h"
#include "experiments/audit_evals.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "run/release.h"
#include "objectives/logreg.h"
#include "run/selection.h"
#include "dpbo/noise.h"
#include "run/driver.h"
#include "run/release_private.h"
#include "run/guided.h"

/* ------------------------------------------------------------------------ */
/* Whole-pipeline audit                                                     */

/* What one release gives the audit. */
typedef struct pipeline_draw {
  double best;        /* the non-private value the release perturbs */
  double value;       /* ṽ */
  double value_scale; /* its Laplace scale t·g */
  double value_grid;  /* its grid g */
  double value_sensitivity, epsilon_value;
  int64_t index;          /* λ̃'s global index, -1 if not released */
  double eta, score_grid; /* λ̃'s exact rate per grid step and score grid */
  double lambda_sensitivity, epsilon_lambda;
} pipeline_draw;

/* The tuning run of config on MPI_COMM_SELF, complete or an error. */
static dpbo_status audit_pipeline_run(const dpbo_config *config, dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_TRY(dpbo_driver_run(MPI_COMM_SELF, config, NULL, run, err));
  if (run->outcome != DPBO_OK)
    DPBO_RAISE(run->outcome, "the tuning run failed: %s", run->outcome_message);
done:
  return status;
}

/* The private-selection methods (run/selection.h): their evaluations are
 * deterministic, so the audit evaluates every candidate of Λ once on the
 * side's validation set, as a run whose trace is the whole table (step i:
 * candidate i), and each release is then a whole draw: the candidates of
 * the run seed, a fresh secret K (the stopping methods), and Q's noise. */
static dpbo_status audit_pipeline_table(const dpbo_config *config, dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_space *space = NULL;
  dpbo_objective objective = {NULL, NULL};
  int64_t *index = NULL;
  double *gain = NULL;
  DPBO_TRY(dpbo_run_space(config, &space, err));
  const int64_t n = dpbo_space_size(space);
  const int d = dpbo_space_dims(space);
  if (n > 100000)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: the pipeline audit of a private-selection method evaluates all of Lambda; "
               "%lld candidates are too many (at most 100000)",
               config->path, (long long)n);
  const char *names[DPBO_MAX_DIM];
  for (int i = 0; i < d; i++)
    names[i] = dpbo_space_dim(space, i)->name;
  DPBO_ALLOC(index, n, "the table");
  DPBO_ALLOC(gain, n, "the table");
  DPBO_TRY(dpbo_logreg_objective_create(&config->logreg, &objective, err));
  for (int64_t i = 0; i < n; i++) {
    double u[DPBO_MAX_DIM], v[DPBO_MAX_DIM];
    DPBO_TRY(dpbo_space_unit(space, i, u, err));
    dpbo_space_to_values(space, u, v);
    index[i] = i;
    DPBO_TRY(dpbo_objective_evaluate(&objective, d, names, v, &gain[i], err));
  }
  dpbo_config table = *config;
  table.algorithm = DPBO_ALGORITHM_RANDOM_SEARCH; /* a trace of given candidates, no GP */
  table.iterations = (int)n;
  DPBO_TRY(dpbo_run_replay(MPI_COMM_SELF, &table, (int)n, index, gain, run, err));
done:
  dpbo_objective_destroy(&objective);
  dpbo_space_destroy(space);
  free(index);
  free(gain);
  return status;
}

/* Run k of Q in the audit: the k-th of the release's candidates and its
 * gain from the side's table. */
typedef struct audit_draws {
  const dpbo_run *table;
  const int64_t *candidates;
} audit_draws;

static dpbo_status audit_selection_next(void *context, int64_t k, int64_t *index, double *gain,
                                        dpbo_error *err) {
  audit_draws *draws = context;
  (void)err;
  *index = draws->candidates[k];
  *gain = draws->table->trace[*index].gain;
  return DPBO_OK;
}

/* One whole release of a private-selection method on one side. */
static dpbo_status audit_selection_release(const dpbo_config *config, const dpbo_run *table,
                                           dpbo_noise *noise,
                                           const dpbo_audit_pipeline_options *options,
                                           const dpbo_selection_accounting *accounting,
                                           pipeline_draw *draw, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *gains = NULL;
  int64_t *candidates = NULL;
  double sens, lo, hi;
  const dpbo_selection_accounting acc = *accounting;
  dpbo_selection_pick pick;
  audit_draws draws = {table, NULL};
  const int T = config->iterations;
  DPBO_TRY(dpbo_selection_gain_range(config, &sens, &lo, &hi, err));
  sens *= options->sensitivity_factor;
  const dpbo_selection_draw how = {.noise = noise,
                                   .kind = config->selection,
                                   .sensitivity = sens,
                                   .lo = lo,
                                   .hi = hi,
                                   .noise_scale = options->noise_scale_factor};
  memset(draw, 0, sizeof *draw);
  /* A fresh secret K (the stopping methods) and fresh candidates per
   * release, drawn as every `dpbo run` draws them: both are part of the
   * mechanism. */
  const int stopping = dpbo_algorithm_ops_get(config->algorithm)->stopping;
  const int64_t K = stopping ? dpbo_selection_draw_runs(noise, config->algorithm, T, &acc) : T;
  if (K > 100000000) DPBO_RAISE(DPBO_ERR_NUMERIC, "the number of runs drawn exceeds 1e8");
  DPBO_ALLOC(candidates, K, "the candidates");
  DPBO_TRY(dpbo_selection_candidates(MPI_COMM_SELF, config, (int)K, table->steps, candidates, err));
  draws.candidates = candidates;
  if (!stopping) { /* random search */
    int64_t *set = NULL;
    DPBO_ALLOC(gains, T, "the gains");
    DPBO_ALLOC(set, T, "the candidates");
    draw->best = -INFINITY;
    for (int t = 0; t < T; t++) {
      DPBO_TRY(audit_selection_next(&draws, t, &set[t], &gains[t], err));
      draw->best = fmax(draw->best, gains[t]);
    }
    status = dpbo_selection_random_search(&how, gains, T, acc.epsilon_select, acc.epsilon_value,
                                          &pick, err);
    pick.index = status == DPBO_OK ? set[pick.position] : -1;
    free(set);
    if (status != DPBO_OK) goto done;
    draw->epsilon_value = acc.epsilon_value;
    draw->epsilon_lambda = acc.epsilon_select;
    draw->eta = pick.select.eta_num / pick.select.eta_den;
    draw->score_grid = pick.select.granularity;
  } else {
    const dpbo_selection_runs runs = {audit_selection_next, &draws, K, T};
    DPBO_TRY(dpbo_selection_stopping(&runs, &how, acc.epsilon_base, &pick, err));
    draw->best = -INFINITY;
    for (int i = 0; i < table->steps; i++)
      draw->best = fmax(draw->best, table->trace[i].gain);
    /* One mechanism over the pair: each part claims the whole ε. */
    draw->epsilon_value = draw->epsilon_lambda = acc.epsilon_accounted;
    draw->eta = 0.0; /* no selection rate: the pair's loss is not computed */
    draw->score_grid = 1.0;
  }
  draw->value = pick.released;
  draw->value_scale = pick.value.scale;
  draw->value_grid = pick.value.granularity;
  draw->value_sensitivity = draw->lambda_sensitivity = sens;
  draw->index = pick.index;
done:
  free(gains);
  free(candidates);
  return status;
}

/* The tables one side's release reads: its own (every candidate's gain on
 * that side's validation set) and the guided method's proxy task, one
 * table for both sides (audit_guided_release). */
typedef struct audit_tables {
  const dpbo_run *side, *proxy;
} audit_tables;

/* The guided method's gains: the side's table, raw (stage 1 privatizes). */
static dpbo_status audit_guided_gain(void *context, int64_t index, double *gain, dpbo_error *err) {
  (void)err;
  *gain = ((const dpbo_run *)context)->trace[index].gain;
  return DPBO_OK;
}

/* One whole guided release on one side (run/guided.h): stage 1 on the
 * table, π, stage 2, all from the audit's noise; its (λ̃, score) is what
 * the histograms test (stage 1's trace, released as well, is not tested
 * here: a bound on part of the output is a lower bound on the whole's).
 * With privacy.guided_proxy_rows >= 1 stage 1 reads `proxy` instead, one
 * table for both sides (the training rows are the same on both): side D's,
 * the case where stage 1 knows D's landscape exactly and π leans on it. */
static dpbo_status audit_guided_release(const dpbo_config *config, const audit_tables *tables,
                                        dpbo_noise *noise,
                                        const dpbo_audit_pipeline_options *options,
                                        const dpbo_guided_accounting *acc, pipeline_draw *draw,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double sens, lo, hi;
  dpbo_guided_settings s;
  dpbo_guided_pick pick;
  DPBO_TRY(dpbo_selection_gain_range(config, &sens, &lo, &hi, err));
  sens *= options->sensitivity_factor;
  dpbo_guided_settings_from(config, &s);
  memset(draw, 0, sizeof *draw);
  const dpbo_run *table = tables->side;
  const dpbo_guided_gains gains = {audit_guided_gain, (void *)table, audit_guided_gain,
                                   (void *)tables->proxy};
  const dpbo_selection_draw guided_draw = {noise, config->selection,          sens, lo,
                                           hi,    options->noise_scale_factor};
  DPBO_TRY(dpbo_guided_table(config, &s, acc, &gains, &guided_draw, &pick, err));
  draw->best = -INFINITY;
  for (int i = 0; i < table->steps; i++)
    draw->best = fmax(draw->best, table->trace[i].gain);
  /* One mechanism over the pair: each part claims the whole ε. */
  draw->epsilon_value = draw->epsilon_lambda = acc->epsilon_accounted;
  draw->eta = 0.0; /* no selection rate: the pair's loss is not computed */
  draw->score_grid = 1.0;
  draw->value = pick.stage2.released;
  draw->value_scale = pick.stage2.value.scale;
  draw->value_grid = pick.stage2.value.granularity;
  draw->value_sensitivity = draw->lambda_sensitivity = sens;
  draw->index = pick.stage2.index;
done:
  return status;
}

/* The accounting of the methods whose releases the audit draws itself:
 * the selection methods' and the guided method's, computed once. */
typedef struct audit_accounting {
  dpbo_selection_accounting selection;
  dpbo_guided_accounting guided;
} audit_accounting;

/* One release of a finished run (tables->side) on MPI_COMM_SELF, through
 * the release code every `dpbo run` uses (release.c), with the given noise. */
static dpbo_status audit_pipeline_release(const dpbo_config *config, const audit_tables *tables,
                                          dpbo_noise *noise,
                                          const dpbo_audit_pipeline_options *options,
                                          const audit_accounting *accounting, pipeline_draw *draw,
                                          dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_release release;
  const dpbo_run *run = tables->side;
  if (dpbo_algorithm_ops_get(config->algorithm)->guided_selection)
    return audit_guided_release(config, tables, noise, options, &accounting->guided, draw, err);
  if (dpbo_algorithm_is_selection(config->algorithm))
    return audit_selection_release(config, run, noise, options, &accounting->selection, draw, err);
  const dpbo__release_scale scale = {options->sensitivity_factor, options->noise_scale_factor};
  DPBO_TRY(dpbo__release_draw_scaled(MPI_COMM_SELF, config, run, noise, &scale, &release, err));
  memset(draw, 0, sizeof *draw);
  draw->best = dpbo__release_best_value(config, run);
  draw->value = release.value.value;
  draw->value_scale = release.value.scale;
  draw->value_grid = release.value.granularity;
  draw->value_sensitivity = release.sens.value_sensitivity;
  draw->epsilon_value = release.epsilon_value;
  draw->index = release.has_lambda ? release.select.index : -1;
  if (release.has_lambda) {
    draw->eta = release.select.eta_num / release.select.eta_den;
    draw->score_grid = release.select.granularity;
    draw->lambda_sensitivity = release.sens.lambda_sensitivity;
    draw->epsilon_lambda = release.epsilon_lambda;
  }
done:
  return status;
}

/* What rank 0 learns before the releases and every rank needs. */
typedef struct pipeline_pilot {
  int64_t validation_rows, pool_rows, j, k;
  double lambda, gain_change;
  int records_differ;
} pipeline_pilot;

/* Stream of the random swap choice. */
#define AUDIT_SWAP_STREAM UINT64_MAX

/* The neighbour's record swap (see audit.h), chosen over the λ_t the run
 * on D evaluated (trace[0..steps), first coordinate: the logreg objective
 * has the one dimension lambda). */
static dpbo_status audit_pipeline_choose_swap(const dpbo_config *config,
                                              const dpbo_audit_pipeline_options *options,
                                              const dpbo_run *run, pipeline_pilot *pilot,
                                              dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *vl = NULL, *pl = NULL;
  int64_t m = 0, pool = 0;
  int chosen = 0;
  for (int t = 0; t < run->steps; t++) {
    const double lambda = run->trace[t].value[0];
    int seen = 0; /* λ_t evaluated before: the same losses */
    for (int s = 0; s < t && !seen; s++)
      seen = run->trace[s].value[0] == lambda;
    if (seen || (options->swap == DPBO_AUDIT_SWAP_RANDOM && t > 0)) continue;
    free(vl);
    free(pl);
    vl = pl = NULL;
    DPBO_TRY(dpbo_logreg_record_losses(&config->logreg, lambda, &vl, &m, &pl, &pool, err));
    if (pool < 1)
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "%s: every row is in the training or the validation split, so there is no "
                 "record to swap in: lower objective.train_rows or objective.validation_rows",
                 config->path);
    int64_t j = 0, k = 0;
    if (options->swap == DPBO_AUDIT_SWAP_RANDOM) {
      /* Drawn once, at λ_1, where its gain change is reported. */
      dpbo_rng rng;
      dpbo_rng_seed(&rng, options->seed, AUDIT_SWAP_STREAM);
      j = (int64_t)dpbo_rng_below64(&rng, (uint64_t)m);
      k = (int64_t)dpbo_rng_below64(&rng, (uint64_t)pool);
    } else {
      /* The change (g_j - g_k)/m is extreme at an extreme of each list: the
       * best-fitted validation record out and the worst-fitted pool record
       * in, or the reverse. */
      int64_t vmin = 0, vmax = 0, pmin = 0, pmax = 0;
      for (int64_t i = 1; i < m; i++) {
        if (vl[i] < vl[vmin]) vmin = i;
        if (vl[i] > vl[vmax]) vmax = i;
      }
      for (int64_t i = 1; i < pool; i++) {
        if (pl[i] < pl[pmin]) pmin = i;
        if (pl[i] > pl[pmax]) pmax = i;
      }
      if (pl[pmax] - vl[vmin] >= vl[vmax] - pl[pmin]) {
        j = vmin;
        k = pmax;
      } else {
        j = vmax;
        k = pmin;
      }
    }
    /* The swap that moves the gains the most at any evaluated λ (the
     * largest |f_V'(λ_t) - f_V(λ_t)|, which bounds the change of max_t v_t
     * and drives the change of μ_T). */
    const double change = (vl[j] - pl[k]) / (double)m;
    if (!chosen || fabs(change) > fabs(pilot->gain_change)) {
      chosen = 1;
      pilot->j = j;
      pilot->k = k;
      pilot->lambda = lambda;
      pilot->gain_change = change;
    }
  }
  pilot->validation_rows = m;
  pilot->pool_rows = pool;
done:
  free(vl);
  free(pl);
  return status;
}

/* Number of rows in which the validation sets of two logreg configs differ
 * (as the objective holds them, scaled), checked rather than assumed. */
static dpbo_status audit_pipeline_count_differences(const dpbo_config *a, const dpbo_config *b,
                                                    int *differ, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_objective oa = {NULL, NULL}, ob = {NULL, NULL};
  const dpbo_dataset *va, *vb;
  DPBO_TRY(dpbo_logreg_objective_create(&a->logreg, &oa, err));
  DPBO_TRY(dpbo_logreg_objective_create(&b->logreg, &ob, err));
  DPBO_TRY(dpbo_logreg_scaled_data(&oa, NULL, &va, err));
  DPBO_TRY(dpbo_logreg_scaled_data(&ob, NULL, &vb, err));
  if (va->n != vb->n || va->d != vb->d)
    DPBO_RAISE(DPBO_ERR_DATA, "the neighbouring validation sets have different shapes");
  *differ = 0;
  const size_t d = (size_t)va->d;
  for (int64_t i = 0; i < va->n; i++)
    *differ += va->y[i] != vb->y[i] ||
               memcmp(va->x + (size_t)i * d, vb->x + (size_t)i * d, d * sizeof *va->x) != 0;
done:
  dpbo_objective_destroy(&oa);
  dpbo_objective_destroy(&ob);
  return status;
}

/* Rank 0, from its run on D: the swap, and a check that V' differs from V
 * in the one chosen record. */
static dpbo_status audit_pipeline_pilot_run(dpbo_config *cfg,
                                            const dpbo_audit_pipeline_options *options,
                                            const dpbo_run *run_d, pipeline_pilot *pilot,
                                            dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(pilot, 0, sizeof *pilot);
  DPBO_TRY(audit_pipeline_choose_swap(&cfg[0], options, run_d, pilot, err));
  cfg[1].logreg.swap_validation_row = pilot->j;
  cfg[1].logreg.swap_with_row = pilot->k;
  DPBO_TRY(audit_pipeline_count_differences(&cfg[0], &cfg[1], &pilot->records_differ, err));
  if (pilot->records_differ > 1)
    DPBO_RAISE(DPBO_ERR_DATA,
               "the neighbouring validation set differs in %d records, not one: the record "
               "swap is broken",
               pilot->records_differ);
done:
  return status;
}

/* This rank's share of the releases: draws[2 i + side] for i < count, from
 * the operating system's CSPRNG (the noise every published release uses). */
static dpbo_status audit_pipeline_releases(const dpbo_config *cfg, const dpbo_run *run,
                                           const dpbo_audit_pipeline_options *options,
                                           int64_t count, pipeline_draw *draws, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_noise noise;
  dpbo_noise_init_os(&noise);
  /* A selection method's accounting (the same on both sides), once. */
  audit_accounting acc;
  memset(&acc, 0, sizeof acc);
  if (dpbo_algorithm_is_selection(cfg[0].algorithm))
    DPBO_TRY(dpbo_selection_account(
        cfg[0].algorithm, (dpbo_privacy_cost){cfg[0].privacy_epsilon, cfg[0].privacy_delta},
        cfg[0].privacy_split, cfg[0].iterations, cfg[0].ps_eta, &acc.selection, err));
  /* The guided method's two stages (run/guided.h), once. */
  if (dpbo_algorithm_ops_get(cfg[0].algorithm)->guided_selection) {
    dpbo_guided_settings s;
    double sens, lo, hi;
    dpbo_guided_settings_from(&cfg[0], &s);
    DPBO_TRY(dpbo_selection_gain_range(&cfg[0], &sens, &lo, &hi, err));
    const dpbo_guided_budget budget = {cfg[0].privacy_epsilon, cfg[0].privacy_delta,
                                       cfg[0].iterations, sens, cfg[0].prior.noise_std};
    DPBO_TRY(dpbo_guided_account(&s, &budget, &acc.guided, err));
  }
  for (int64_t i = 0; i < count; i++)
    for (int side = 0; side < 2; side++) {
      const audit_tables tables = {&run[side], &run[0]};
      status = audit_pipeline_release(&cfg[side], &tables, &noise, options, &acc,
                                      &draws[2 * i + side], err);
      if (status != DPBO_OK) {
        dpbo_error_prefix(err, "release %lld on %s", (long long)i, side ? "D'" : "D");
        goto done;
      }
    }
done:
  return status;
}

/* private_evaluations: every trial is a whole privatized GP-UCB run on D
 * or D' (audit_evals.h); its statistic Z goes where a release's value goes. */
static dpbo_status audit_pipeline_evals(const dpbo_config *cfg,
                                        const dpbo_audit_pipeline_options *options, int64_t count,
                                        pipeline_draw *draws, dpbo_audit_evals **evals,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_noise noise;
  dpbo_noise_init_os(&noise);
  DPBO_TRY(dpbo_audit_evals_create(cfg, options->sensitivity_factor, options->noise_scale_factor,
                                   evals, err));
  for (int64_t i = 0; i < count; i++)
    for (int side = 0; side < 2; side++) {
      pipeline_draw *d = &draws[2 * i + side];
      memset(d, 0, sizeof *d);
      d->index = -1;
      DPBO_TRY(dpbo_audit_evals_trial(*evals, side, &noise, &d->value, err));
      d->best = dpbo_audit_evals_best(*evals, side); /* the same on every rank */
      d->value_scale = dpbo_audit_evals_sigma(*evals);
      d->value_sensitivity = dpbo_audit_evals_sensitivity(*evals);
      d->epsilon_value = cfg[side].privacy_epsilon;
    }
  DPBO_TRY(dpbo_noise_check(&noise, err));
done:
  return status;
}

/* One pipeline audit as it goes: the two tuning runs, the neighbour chosen,
 * this rank's releases, and the releases' common parameters. */
typedef struct pipeline_state {
  const dpbo_config *config;
  const dpbo_audit_pipeline_options *options;
  const dpbo_algorithm_ops *ops;
  int rank, size;
  dpbo_config *cfg;        /* cfg[0] = D, cfg[1] = D' (its swap set from the pilot) */
  dpbo_run run[2];         /* the tuning runs on D and D' */
  pipeline_pilot pilot;    /* the neighbour */
  pipeline_draw *draws;    /* this rank's releases, D and D' alternating */
  int64_t count;           /* releases of this rank on each side */
  dpbo_audit_evals *evals; /* private_evaluations: the whole run is the mechanism */
  int64_t n;               /* |Λ| */
} pipeline_state;

/* The ranges reduced over every release on every rank (audit_pipeline_ranges). */
enum {
  PIPELINE_BEST_D,
  PIPELINE_BEST_D1,
  PIPELINE_SCALE,
  PIPELINE_GRID,
  PIPELINE_SENS,
  PIPELINE_EPS,
  PIPELINE_ETA,
  PIPELINE_SGRID,
  PIPELINE_LSENS,
  PIPELINE_LEPS,
  PIPELINE_RANGES
};

/* The histogram test of one released quantity: `index` chooses λ̃'s
 * candidate index (grouped into at most DPBO__AUDIT_MAX_BINS runs of consecutive
 * indices), otherwise ṽ in `bins`. */
static dpbo_status audit_pipeline_check(MPI_Comm comm, const pipeline_state *st, int index,
                                        const dpbo__audit_bins *bins, double alpha,
                                        dpbo_audit_check *check, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int64_t *hist = NULL, *total = NULL;
  const int64_t n = st->n, trials = st->options->trials;
  const int64_t per = index ? (n + DPBO__AUDIT_MAX_BINS - 1) / DPBO__AUDIT_MAX_BINS : 1;
  const int nbins = index ? (int)((n + per - 1) / per) : bins->count;
  DPBO_ALLOC(hist, 2 * (size_t)nbins, "audit histogram");
  DPBO_ALLOC(total, 2 * (size_t)nbins, "audit histogram");
  for (int64_t i = 0; i < 2 * st->count; i++) {
    int side = (int)(i % 2);
    int bin = index ? (int)(st->draws[i].index / per) : dpbo__audit_bin(bins, st->draws[i].value);
    hist[side * nbins + bin]++;
  }
  DPBO_MPI_TRY(MPI_Allreduce(hist, total, 2 * nbins, MPI_INT64_T, MPI_SUM, comm));
  dpbo__audit_bound bound;
  DPBO_TRY(dpbo__audit_histogram_bound(total, nbins, trials, alpha, 0.0, &bound, err));
  char name[128] = "";
  if (bound.lo >= 0 && !index) {
    dpbo__audit_bins_event(bins, bound.lo, bound.hi, "v~", name, sizeof name);
  } else if (bound.lo >= 0) {
    int64_t a = bound.lo * per, b = fmin((double)((bound.hi + 1) * per), (double)n) - 1;
    if (a == b)
      snprintf(name, sizeof name, "lambda~ = candidate %lld", (long long)a);
    else
      snprintf(name, sizeof name, "lambda~ in candidates %lld..%lld", (long long)a, (long long)b);
  }
  dpbo__audit_witness(&bound, name, trials, check->witness, sizeof check->witness);
  check->epsilon_lower = bound.epsilon;
  check->events = bound.events;
  check->violated = bound.epsilon > check->epsilon_claimed;
done:
  free(hist);
  free(total);
  return status;
}

/* Validate: a private release, the logreg objective, usable options. */
static dpbo_status audit_pipeline_validate(const dpbo_config *config,
                                           const dpbo_audit_pipeline_options *options,
                                           dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!dpbo_algorithm_ops_get(config->algorithm)->private_release)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: the pipeline audit needs a private release: set [privacy] algorithm = 1, 2 "
               "or 3",
               config->path);
  if (config->objective != DPBO_OBJECTIVE_LOGREG)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s: the pipeline audit needs objective.kind = logreg, the objective whose "
               "validation records it can swap to build the neighbouring input (got %s)",
               config->path, dpbo_objective_kind_name(config->objective));
  if (options->trials < 1)
    DPBO_RAISE(DPBO_ERR_ARG, "audit: trials must be positive, got %lld",
               (long long)options->trials);
  if (!(options->alpha > 0.0 && options->alpha < 1.0))
    DPBO_RAISE(DPBO_ERR_ARG, "audit: alpha must be in (0, 1), got %g", options->alpha);
  if (!(isfinite(options->noise_scale_factor) && options->noise_scale_factor > 0.0 &&
        isfinite(options->sensitivity_factor) && options->sensitivity_factor > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "audit: the noise and sensitivity factors must be positive");
  if (options->trials > INT64_MAX / 2 - 2) DPBO_RAISE(DPBO_ERR_ARG, "audit: too many trials");
done:
  return status;
}

/* Plan and tune: every rank runs the tuning on D; rank 0 chooses the
 * neighbour from its run and every rank runs the tuning on D'. The runs are
 * deterministic (logreg training and the GP search use no randomness),
 * which the ranks' agreement in audit_pipeline_ranges checks rather than
 * assumes. */
static dpbo_status audit_pipeline_tune(MPI_Comm comm, pipeline_state *st,
                                       dpbo_audit_pipeline_result *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  dpbo_config *cfg = st->cfg;
  dpbo_run *run = st->run;
  cfg[0] = *st->config;
  cfg[0].noise = DPBO_NOISE_OS;
  cfg[0].logreg.swap_validation_row = cfg[0].logreg.swap_with_row = -1;
  cfg[1] = cfg[0];
  /* The selection and guided methods: a mechanism on the gains of all of Λ. */
  const int selection = st->ops->is_selection || st->ops->guided_selection;
  local = selection ? audit_pipeline_table(&cfg[0], &run[0], err)
                    : audit_pipeline_run(&cfg[0], &run[0], err);
  if (local == DPBO_OK && st->rank == 0)
    local = audit_pipeline_pilot_run(cfg, st->options, &run[0], &st->pilot, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Bcast(&st->pilot, (int)sizeof st->pilot, MPI_BYTE, 0, comm));
  cfg[1].logreg.swap_validation_row = st->pilot.j;
  cfg[1].logreg.swap_with_row = st->pilot.k;
  local = selection ? audit_pipeline_table(&cfg[1], &run[1], err)
                    : audit_pipeline_run(&cfg[1], &run[1], err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  for (int t = 0; t < run[0].steps && !result->path_first_difference; t++)
    if (run[0].trace[t].index != run[1].trace[t].index) result->path_first_difference = t + 1;
  if (selection) {
    /* The selection methods score by the gains themselves. */
    for (int t = 0; t < run[0].steps; t++)
      result->score_difference =
          fmax(result->score_difference, fabs(run[0].trace[t].gain - run[1].trace[t].gain));
  } else if (st->ops->releases_lambda) {
    /* λ̃'s scores m0 + s μ_T(λ) (release.c); on MPI_COMM_SELF one block holds all of Λ. */
    const double *mu0 = dpbo_ucb_mean(run[0].ucb), *mu1 = dpbo_ucb_mean(run[1].ucb);
    const double s = st->config->prior.signal_std;
    for (int64_t i = 0; i < dpbo_ucb_count(run[0].ucb); i++)
      result->score_difference = fmax(result->score_difference, s * fabs(mu0[i] - mu1[i]));
  }
done:
  return status;
}

/* Run: the releases, split over the ranks, each from its own OS noise. */
static dpbo_status audit_pipeline_draws(MPI_Comm comm, pipeline_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const int64_t trials = st->options->trials;
  st->count = trials / st->size + (st->rank < trials % st->size ? 1 : 0);
  DPBO_ALLOC(st->draws, 2 * (size_t)st->count, "the audit draws");
  if (st->ops->private_evaluations)
    local = audit_pipeline_evals(st->cfg, st->options, st->count, st->draws, &st->evals, err);
  else
    local = audit_pipeline_releases(st->cfg, st->run, st->options, st->count, st->draws, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
done:
  return status;
}

/* Ranges over every release on every rank: the non-private best values on
 * D and D' (equal on all ranks unless the tuning run is not deterministic)
 * into result, and the releases' parameters (always equal) into
 * top[PIPELINE_RANGES]. Reduced as maxima of (x, -x). A rank with no
 * release contributes -inf. */
static dpbo_status audit_pipeline_ranges(MPI_Comm comm, const pipeline_state *st,
                                         dpbo_audit_pipeline_result *result, double *top,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double mx[2 * PIPELINE_RANGES], gmx[2 * PIPELINE_RANGES];
  for (int r = 0; r < 2 * PIPELINE_RANGES; r++)
    mx[r] = -INFINITY;
  for (int64_t i = 0; i < 2 * st->count; i++) {
    const pipeline_draw *d = &st->draws[i];
    const double x[PIPELINE_RANGES] = {i % 2 ? -INFINITY : d->best,
                                       i % 2 ? d->best : -INFINITY,
                                       d->value_scale,
                                       d->value_grid,
                                       d->value_sensitivity,
                                       d->epsilon_value,
                                       d->eta,
                                       d->score_grid,
                                       d->lambda_sensitivity,
                                       d->epsilon_lambda};
    for (int r = 0; r < PIPELINE_RANGES; r++) {
      if (x[r] == -INFINITY) continue;
      mx[2 * r] = fmax(mx[2 * r], x[r]);
      mx[2 * r + 1] = fmax(mx[2 * r + 1], -x[r]);
    }
  }
  DPBO_MPI_TRY(MPI_Allreduce(mx, gmx, 2 * PIPELINE_RANGES, MPI_DOUBLE, MPI_MAX, comm));
  for (int side = 0; side < 2; side++) {
    result->best_hi[side] = gmx[2 * (PIPELINE_BEST_D + side)];
    result->best_lo[side] = -gmx[2 * (PIPELINE_BEST_D + side) + 1];
  }
  for (int r = PIPELINE_SCALE; r < PIPELINE_RANGES; r++)
    if (gmx[2 * r] != -gmx[2 * r + 1])
      DPBO_RAISE(DPBO_ERR_NUMERIC,
                 "audit: a release parameter changed between releases "
                 "(%.17g vs %.17g)",
                 -gmx[2 * r + 1], gmx[2 * r]);
  for (int r = 0; r < PIPELINE_RANGES; r++)
    top[r] = gmx[2 * r];
done:
  return status;
}

/* Test: the histogram test of ṽ (or of the whole trace's statistic) and of
 * λ̃, each with its pair loss, from the common parameters top[]. */
static dpbo_status audit_pipeline_test(MPI_Comm comm, const pipeline_state *st, const double *top,
                                       dpbo_audit_pipeline_result *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = st->config;
  const dpbo_algorithm_ops *ops = st->ops;
  /* private_evaluations: the trace is audited whole (λ̃ is post-processing). */
  const int has_lambda = ops->releases_lambda && !ops->private_evaluations;
  const double alpha_each = st->options->alpha / (has_lambda ? 2.0 : 1.0);
  const double scale = top[PIPELINE_SCALE], grid = top[PIPELINE_GRID];
  /* ṽ: bins of half the actual noise scale over the non-private values
   * ± 6 scales (inside the clamp range, if any), fixed before looking at a
   * single release. */
  double lo = fmin(result->best_lo[0], result->best_lo[1]) - 6.0 * scale;
  double hi = fmax(result->best_hi[0], result->best_hi[1]) + 6.0 * scale;
  if (config->clamp_value) {
    lo = fmax(lo, config->value_lo);
    hi = fmin(hi, config->value_hi);
  }
  dpbo__audit_bins bins = dpbo__audit_bins_make(lo, hi - lo, 0.5 * scale);
  /* Exact loss of the discrete Laplace release on this pair: the grid
   * values differ by at most |Δ observed| / g + 1 steps, each costing 1/t
   * (t g = scale); clamping only lowers it. */
  double diff = fmax(fabs(result->best_hi[0] - result->best_lo[1]),
                     fabs(result->best_hi[1] - result->best_lo[0]));
  result->value.epsilon_claimed = top[PIPELINE_EPS];
  result->value.sensitivity = top[PIPELINE_SENS];
  result->value.pair_loss = (diff + grid) / scale;
  /* The stopping methods' pair loss has no closed form here. */
  if (ops->stopping || ops->guided_selection) result->value.pair_loss = NAN;
  if (st->evals) {
    /* The statistic Z of each whole privatized run (audit_evals.h). */
    dpbo_audit_evals_range(st->evals, &lo, &hi);
    if (!(hi > lo)) lo = -1.0, hi = 1.0;
    bins = dpbo__audit_bins_make(lo, hi - lo, (hi - lo) / 400.0);
    DPBO_TRY(dpbo_audit_evals_pair_loss(st->evals, config->privacy_delta, &result->value.pair_loss,
                                        err));
  }
  DPBO_TRY(audit_pipeline_check(comm, st, 0, &bins, alpha_each, &result->value, err));
  if (has_lambda) {
    /* Exponential mechanism / permute-and-flip at rate η per grid step of
     * the scores: loss <= 2 η (max |Δ score| / g + 1). */
    result->lambda.epsilon_claimed = top[PIPELINE_LEPS];
    result->lambda.sensitivity = top[PIPELINE_LSENS];
    result->lambda.pair_loss =
        2.0 * top[PIPELINE_ETA] * (result->score_difference / top[PIPELINE_SGRID] + 1.0);
    if (!(top[PIPELINE_ETA] > 0.0)) result->lambda.pair_loss = NAN; /* the stopping methods */
    DPBO_TRY(audit_pipeline_check(comm, st, 1, NULL, alpha_each, &result->lambda, err));
  }
  result->value_scale = scale;
  result->has_lambda = has_lambda;
  result->violated = result->value.violated || (has_lambda && result->lambda.violated);
done:
  return status;
}

dpbo_status dpbo_audit_pipeline(MPI_Comm comm, const dpbo_config *config,
                                const dpbo_audit_pipeline_options *options,
                                dpbo_audit_pipeline_result *result, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_space *space = NULL;
  pipeline_state st;
  memset(&st, 0, sizeof st);
  st.config = config;
  st.options = options;
  st.ops = dpbo_algorithm_ops_get(config->algorithm);
  const double start = MPI_Wtime();
  memset(result, 0, sizeof *result);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &st.rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &st.size));
  DPBO_TRY(audit_pipeline_validate(config, options, err));
  DPBO_ALLOC(st.cfg, 2, "the audit configs");
  DPBO_TRY(audit_pipeline_tune(comm, &st, result, err));
  DPBO_TRY(audit_pipeline_draws(comm, &st, err));
  double top[PIPELINE_RANGES]; /* the (common) value of each parameter */
  DPBO_TRY(audit_pipeline_ranges(comm, &st, result, top, err));
  DPBO_TRY(dpbo_run_space(config, &space, err));
  st.n = result->n = dpbo_space_size(space);
  DPBO_TRY(audit_pipeline_test(comm, &st, top, result, err));
  result->algorithm = config->algorithm;
  result->options = *options;
  result->T = config->iterations;
  result->validation_rows = st.pilot.validation_rows;
  result->pool_rows = st.pilot.pool_rows;
  result->swap_validation_row = st.pilot.j;
  result->swap_with_row = st.pilot.k;
  result->swap_lambda = st.pilot.lambda;
  result->swap_gain_change = st.pilot.gain_change;
  result->records_differ = st.pilot.records_differ;
  result->seconds = MPI_Wtime() - start;
done:
  dpbo_run_free(&st.run[0]);
  dpbo_run_free(&st.run[1]);
  dpbo_space_destroy(space);
  dpbo_audit_evals_destroy(st.evals);
  free(st.draws);
  free(st.cfg);
  return status;
}
