#include "run/run.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "run/algorithm.h"
#include "dpbo/privacy.h"
#include "run/selection.h"

dpbo_status dpbo_run_space(const dpbo_config *config, dpbo_space **space, dpbo_error *err) {
  switch (config->space_kind) {
  case DPBO_SPACE_GRID:
    return dpbo_space_create_grid(config->dims, config->dim, space, err);
  case DPBO_SPACE_SOBOL:
    return dpbo_space_create_sobol(config->dims, config->dim, config->points, space, err);
  case DPBO_SPACE_LIST:
    return dpbo_space_create_list(config->dims, config->dim, config->list_path, space, err);
  }
  return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "unknown space kind");
}

/* Where a selection run's candidates come from: the first `count` from
 * `given` (every rank), the others drawn from the release noise when `draw`
 * is set, else left -1 (a replay, which selects nothing). */
typedef struct run_candidates {
  const int64_t *given;
  int count;
  int draw;
} run_candidates;

/* dpbo_run_create_planned, with the candidates as `from` says. */
static dpbo_status run_create(MPI_Comm comm, const dpbo_config *config, int planned,
                              const run_candidates *from, dpbo_run *run, dpbo_error *err);

dpbo_status dpbo_run_create(MPI_Comm comm, const dpbo_config *config, dpbo_run *run,
                            dpbo_error *err) {
  const run_candidates drawn = {NULL, 0, 1};
  return run_create(comm, config, config->iterations, &drawn, run, err);
}

dpbo_status dpbo_run_create_planned(MPI_Comm comm, const dpbo_config *config, int planned,
                                    const int64_t *candidates, dpbo_run *run, dpbo_error *err) {
  const run_candidates from = {candidates, candidates ? planned : 0, !candidates};
  return run_create(comm, config, planned, &from, run, err);
}

static dpbo_status run_create(MPI_Comm comm, const dpbo_config *config, int planned,
                              const run_candidates *from, dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local;
  const int64_t *given = from->given;
  const int given_count = from->count, draw = from->draw;
  int rank, size;
  memset(run, 0, sizeof *run);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  const int selection = dpbo_algorithm_is_selection(config->algorithm);
  /* Rows of the GP and the UCB state: none are used by a selection run. */
  const int rows = selection ? 1 : config->iterations;
  if (planned < 1) DPBO_RAISE(DPBO_ERR_ARG, "a run plans at least one evaluation, not %d", planned);
  run->planned = planned;
  run->best_step = -1;
  run->batch = config->batch > 0 ? config->batch : 1;
  /* The candidates are independent: every worker evaluates one at once. */
  if (selection && size - 1 > run->batch) run->batch = size - 1;
  local = dpbo_run_space(config, &run->space, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  if (selection) {
    const int64_t n = dpbo_space_size(run->space);
    run->candidates = malloc(sizeof *run->candidates * (size_t)planned);
    local = run->candidates
                ? DPBO_OK
                : DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory for the candidates");
    DPBO_TRY(dpbo_comm_agree(comm, local, err));
    const int count = given_count < planned ? given_count : planned;
    for (int t = 0; t < planned; t++)
      run->candidates[t] = t < count ? given[t] : -1;
    for (int t = 0; t < count; t++)
      if (given[t] < 0 || given[t] >= n)
        DPBO_RAISE(DPBO_ERR_DATA, "stored candidate %d is %lld, outside Λ of %lld", t + 1,
                   (long long)given[t], (long long)n);
    /* Secret draws from the release noise (selection.h), never run.seed. */
    if (draw && count == 0)
      DPBO_TRY(dpbo_selection_candidates(comm, config, planned, n, run->candidates, err));
  }
  int64_t begin, count;
  dpbo_space_block(dpbo_space_size(run->space), size, rank, &begin, &count);
  const int d = dpbo_space_dims(run->space);
  /* Incremental when T·N/P doubles fit the per-rank limit, else recompute
   * (ucb.h): each rank decides for its own block; results are the same. */
  DPBO_TRY(dpbo_ucb_memory_limit(comm, config->memory_limit_mb, &run->memory_limit, err));
  dpbo_ucb_mode mode = DPBO_UCB_INCREMENTAL;
  local = dpbo_ucb_choose_mode(count, d, rows, run->memory_limit, &mode, err);
  if (local != DPBO_OK) {
    char limit[32];
    if (config->memory_limit_mb < 0)
      snprintf(limit, sizeof limit, "auto");
    else
      snprintf(limit, sizeof limit, "%g", config->memory_limit_mb);
    dpbo_error_prefix(err, "%s: ucb.memory_limit_mb = %s (rank %d)", config->path, limit, rank);
  }
  if (local == DPBO_OK)
    local = dpbo_ucb_create_mode(&(dpbo_space_range){run->space, begin, count}, &config->kernel,
                                 rows, mode, &run->ucb, err);
  if (local == DPBO_OK)
    local = dpbo_gp_create(&config->kernel, &config->prior, rows, &run->gp, err);
  if (local == DPBO_OK) {
    run->trace = calloc((size_t)planned, sizeof *run->trace);
    run->gp_row = malloc(sizeof *run->gp_row * (size_t)planned);
    if (!run->trace || !run->gp_row)
      local = DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory for the trace");
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  for (int s = 0; s < planned; s++)
    run->gp_row[s] = -1;
  run->state_bytes = dpbo_ucb_memory(run->ucb);
  {
    /* The summary's figures, identical on every rank (the run file's
     * attributes are written collectively). A limit of 0 means none, so the
     * smallest limit is the smallest of (limit - 1) wrapped around, plus 1. */
    unsigned long long mine[3] = {run->state_bytes,
                                  dpbo_ucb_memory_needed(count, d, rows, DPBO_UCB_INCREMENTAL),
                                  mode == DPBO_UCB_RECOMPUTE},
                       max[3], sum[3], limit = (unsigned long long)run->memory_limit - 1ull,
                       min_limit;
    DPBO_MPI_TRY(MPI_Allreduce(mine, max, 3, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm));
    DPBO_MPI_TRY(MPI_Allreduce(mine, sum, 3, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm));
    DPBO_MPI_TRY(MPI_Allreduce(&limit, &min_limit, 1, MPI_UNSIGNED_LONG_LONG, MPI_MIN, comm));
    run->state_bytes_max = max[0];
    run->state_bytes_total = sum[0];
    run->incremental_bytes_max = max[1];
    run->memory_limit_min = (size_t)(min_limit + 1ull);
    run->recompute_ranks = (int)sum[2];
    run->ranks = size;
  }
done:
  return status;
}

const char *dpbo_run_ucb_mode(const dpbo_run *run, char *buf, size_t size) {
  if (run->recompute_ranks == 0)
    snprintf(buf, size, "incremental");
  else if (run->recompute_ranks == run->ranks)
    snprintf(buf, size, "recompute");
  else
    snprintf(buf, size, "recompute on %d of %d ranks, incremental on the others",
             run->recompute_ranks, run->ranks);
  return buf;
}

static void run_note_best(dpbo_run *run, int s) {
  const dpbo_trace_step *step = &run->trace[s];
  if (step->state != DPBO_STEP_DONE) return;
  if (run->best_step < 0 || step->gain > run->trace[run->best_step].gain ||
      (step->gain == run->trace[run->best_step].gain && s < run->best_step))
    run->best_step = s;
}

/* Folds the observation of step s (state DONE) into the GP and the block. */
static dpbo_status run_fold(const dpbo_config *config, int s, int announce_next, dpbo_run *run,
                            dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_trace_step *step = &run->trace[s];
  if (run->candidates) goto done; /* a selection run fits no GP */
  if (run->gp_row[s] >= 0) {
    /* A batch's hallucinated row: the real value replaces it. */
    DPBO_TRY(dpbo_gp_resolve(run->gp, run->gp_row[s], step->gain, err));
    DPBO_TRY(dpbo_ucb_refresh_mean(run->ucb, run->gp, err));
  } else {
    DPBO_TRY(dpbo_gp_append(run->gp, step->unit, step->gain, err));
    run->gp_row[s] = dpbo_gp_count(run->gp) - 1;
    /* Sequential GP-UCB: the next selection's scan rides on this update. */
    if (announce_next && config->acquisition == DPBO_ACQ_UCB && run->steps < run->planned)
      dpbo_ucb_prepare_select(
          run->ucb, dpbo_privacy_beta(dpbo_space_size(run->space), run->steps + 1, config->delta));
    DPBO_TRY(dpbo_ucb_update(run->ucb, run->gp, step->unit, err));
  }
done:
  return status;
}

/* Algorithm 2 (de Freitas et al.): before choosing λ_t, t > 1, drop what can
 * no longer hold the maximum (collective). Returns the survivors. */
static dpbo_status run_prune(MPI_Comm comm, double beta, dpbo_run *run, int64_t *alive,
                             dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double lcb = dpbo_ucb_local_max_lcb(run->ucb, beta), lcb_max;
  int64_t mine;
  DPBO_MPI_TRY(MPI_Allreduce(&lcb, &lcb_max, 1, MPI_DOUBLE, MPI_MAX, comm));
  DPBO_TRY(dpbo_ucb_prune(run->ucb, beta, lcb_max, &mine, err));
  DPBO_MPI_TRY(MPI_Allreduce(&mine, alive, 1, MPI_INT64_T, MPI_SUM, comm));
done:
  return status;
}

/* Rebuilds GP and block from the trace (batches: after a failure, whose
 * hallucinated row must leave the GP, and on resume): observed steps in
 * order, then the pending ones hallucinated, failed candidates excluded. */
static dpbo_status run_rebuild(MPI_Comm comm, const dpbo_config *config, dpbo_run *run,
                               dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_ucb_mode mode = dpbo_ucb_get_mode(run->ucb); /* the mode creation chose */
  int rank, size;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  dpbo_ucb_destroy(run->ucb);
  dpbo_gp_destroy(run->gp);
  run->ucb = NULL;
  run->gp = NULL;
  int64_t begin, count;
  dpbo_space_block(dpbo_space_size(run->space), size, rank, &begin, &count);
  DPBO_TRY(dpbo_ucb_create_mode(&(dpbo_space_range){run->space, begin, count}, &config->kernel,
                                config->iterations, mode, &run->ucb, err));
  DPBO_TRY(dpbo_gp_create(&config->kernel, &config->prior, config->iterations, &run->gp, err));
  for (int pass = 0; pass < 2; pass++) {
    for (int s = 0; s < run->steps; s++) {
      dpbo_trace_step *step = &run->trace[s];
      if (pass == 0) run->gp_row[s] = -1;
      if (pass == 0 && step->state == DPBO_STEP_DONE) {
        DPBO_TRY(dpbo_gp_append(run->gp, step->unit, step->gain, err));
      } else if (pass == 1 && step->state == DPBO_STEP_PENDING) {
        DPBO_TRY(dpbo_gp_append_pending(run->gp, step->unit, err));
      } else {
        if (pass == 0 && step->state == DPBO_STEP_FAILED)
          DPBO_TRY(dpbo_ucb_exclude(run->ucb, step->index, err));
        continue;
      }
      run->gp_row[s] = dpbo_gp_count(run->gp) - 1;
      DPBO_TRY(dpbo_ucb_update(run->ucb, run->gp, step->unit, err));
    }
  }
done:
  return status;
}

/* The trace so far (a checkpoint, or a finished run's for a release) into
 * GP and block. With batch = 1 it repeats exactly the live run's updates (and
 * Algorithm 2's pruning when `prune`), so a resumed run continues bit for bit. */
static dpbo_status run_replay_trace(MPI_Comm comm, const dpbo_config *config, int prune,
                                    dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int64_t n = dpbo_space_size(run->space);
  run->best_step = -1;
  run->finished = run->failures = 0;
  for (int s = 0; s < run->steps; s++) {
    dpbo_trace_step *step = &run->trace[s];
    if (step->index < 0 || step->index >= n)
      DPBO_RAISE(DPBO_ERR_DATA, "trace step %d names candidate %lld outside Λ", s + 1,
                 (long long)step->index);
    DPBO_TRY(dpbo_space_unit(run->space, step->index, step->unit, err));
    dpbo_space_to_values(run->space, step->unit, step->value);
    run->gp_row[s] = -1;
    run->finished += step->state != DPBO_STEP_PENDING;
    run->failures += step->state == DPBO_STEP_FAILED;
    run_note_best(run, s);
  }
  if (run->candidates) {
    /* A selection run fits no GP: its record is the trace. */
  } else if (run->batch > 1) {
    DPBO_TRY(run_rebuild(comm, config, run, err));
  } else {
    for (int s = 0; s < run->steps; s++) {
      dpbo_trace_step *step = &run->trace[s];
      if (prune && dpbo_algorithm_ops_get(config->algorithm)->prunes && s > 0) {
        int64_t alive;
        DPBO_TRY(run_prune(comm, dpbo_privacy_beta(n, s + 1, config->delta), run, &alive, err));
      }
      if (step->state == DPBO_STEP_DONE) DPBO_TRY(run_fold(config, s, 0, run, err));
      if (step->state == DPBO_STEP_FAILED) DPBO_TRY(dpbo_ucb_exclude(run->ucb, step->index, err));
    }
  }
done:
  return status;
}

dpbo_status dpbo_run_select(MPI_Comm comm, const dpbo_config *config, dpbo_run *run,
                            dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const double m0 = config->prior.mean, s = config->prior.signal_std;
  const int64_t n = dpbo_space_size(run->space);
  const int t = run->steps + 1;
  if (t > run->planned)
    DPBO_RAISE(DPBO_ERR_ARG, "step %d asked for, but the run plans T = %d", t, run->planned);
  dpbo_trace_step *step = &run->trace[t - 1];
  memset(step, 0, sizeof *step);
  if (run->candidates) {
    /* A selection run: the next of its data-independent candidates. */
    step->index = run->candidates[t - 1];
    DPBO_TRY(dpbo_space_unit(run->space, step->index, step->unit, err));
    dpbo_space_to_values(run->space, step->unit, step->value);
    step->mean = step->std = step->beta = step->ucb = step->gain = NAN;
    step->alive = n;
    step->state = DPBO_STEP_PENDING;
    run->gp_row[t - 1] = -1;
    run->steps = t;
    goto done;
  }
  step->beta = dpbo_privacy_beta(n, t, config->delta);
  step->alive = n;
  if (dpbo_algorithm_ops_get(config->algorithm)->prunes && t > 1)
    DPBO_TRY(run_prune(comm, step->beta, run, &step->alive, err));
  dpbo_ucb_choice choice;
  if (config->acquisition == DPBO_ACQ_EI) {
    double best = run->best_step < 0 ? 0.0 : (run->trace[run->best_step].gain - m0) / s;
    choice = dpbo_ucb_local_best_ei(run->ucb, best);
    DPBO_TRY(dpbo_ucb_reduce(comm, &choice, err));
  } else {
    DPBO_TRY(dpbo_ucb_select(comm, run->ucb, step->beta, &choice, err));
  }
  if (choice.index < 0)
    DPBO_RAISE(DPBO_ERR_OBJECTIVE,
               "no candidate is left to evaluate at step %d: every one was excluded "
               "after a failed evaluation",
               t);
  step->index = choice.index;
  DPBO_TRY(dpbo_space_unit(run->space, choice.index, step->unit, err));
  dpbo_space_to_values(run->space, step->unit, step->value);
  double var;
  dpbo_gp_predict(run->gp, step->unit, &step->mean, &var);
  step->std = sqrt(var);
  step->ucb = config->acquisition == DPBO_ACQ_EI ? s * choice.score : m0 + s * choice.score;
  step->gain = NAN;
  step->state = DPBO_STEP_PENDING;
  run->gp_row[t - 1] = -1;
  run->steps = t;
  if (run->batch > 1) {
    /* GP-BUCB: σ shrinks around the point now, μ waits for its value. */
    DPBO_TRY(dpbo_gp_append_pending(run->gp, step->unit, err));
    run->gp_row[t - 1] = dpbo_gp_count(run->gp) - 1;
    DPBO_TRY(dpbo_ucb_update(run->ucb, run->gp, step->unit, err));
  }
done:
  return status;
}

dpbo_status dpbo_run_observe(MPI_Comm comm, const dpbo_config *config, int s, double gain,
                             const char *failure, dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (s < 0 || s >= run->steps || run->trace[s].state != DPBO_STEP_PENDING)
    DPBO_RAISE(DPBO_ERR_ARG, "step %d is not waiting for its result", s + 1);
  dpbo_trace_step *step = &run->trace[s];
  run->finished++;
  if (!failure) {
    step->gain = gain;
    step->state = DPBO_STEP_DONE;
    DPBO_TRY(run_fold(config, s, 1, run, err));
    run_note_best(run, s);
  } else {
    step->gain = NAN;
    step->state = DPBO_STEP_FAILED;
    snprintf(step->failure, sizeof step->failure, "%s", failure);
    run->failures++;
    DPBO_TRY(dpbo_ucb_exclude(run->ucb, step->index, err));
    if (run->gp_row[s] >= 0) DPBO_TRY(run_rebuild(comm, config, run, err));
  }
done:
  return status;
}

dpbo_status dpbo_run_step(MPI_Comm comm, const dpbo_config *config, dpbo_run_evaluate_fn evaluate,
                          void *context, dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_error why;
  double gain = NAN;
  DPBO_TRY(dpbo_run_select(comm, config, run, err));
  const int s = run->steps - 1;
  dpbo_error_clear(&why);
  const int failed = evaluate(context, run->trace[s].index, &gain, &why) != DPBO_OK;
  run->trace[s].attempts = 1;
  DPBO_TRY(dpbo_run_observe(comm, config, s, gain, failed ? why.message : NULL, run, err));
done:
  return status;
}

dpbo_status dpbo_run_resume(MPI_Comm comm, const dpbo_config *config, const dpbo_trace_step *steps,
                            int count, dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (count > run->planned)
    DPBO_RAISE(DPBO_ERR_DATA, "the checkpoint holds %d steps, more than T = %d", count,
               run->planned);
  memcpy(run->trace, steps, (size_t)count * sizeof *run->trace);
  /* A selection run goes on with the candidates it began with. */
  for (int s = 0; run->candidates && s < count; s++)
    if (steps[s].index != run->candidates[s])
      DPBO_RAISE(DPBO_ERR_DATA,
                 "the checkpoint's step %d evaluated candidate %lld, but its candidate list "
                 "says %lld",
                 s + 1, (long long)steps[s].index, (long long)run->candidates[s]);
  run->steps = run->resumed = count;
  DPBO_TRY(run_replay_trace(comm, config, 1, run, err));
done:
  return status;
}

dpbo_status dpbo_run_replay(MPI_Comm comm, const dpbo_config *config, int steps,
                            const int64_t *index, const double *gain, dpbo_run *run,
                            dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  /* A stopping method's trace holds its K runs. */
  const int stopping = dpbo_algorithm_ops_get(config->algorithm)->stopping;
  /* The trace holds the candidates evaluated: nothing is drawn. */
  const run_candidates stored = {index, steps, 0};
  DPBO_TRY(run_create(comm, config, stopping && steps > 0 ? steps : config->iterations, &stored,
                      run, err));
  if (steps > run->planned)
    DPBO_RAISE(DPBO_ERR_ARG, "the trace holds %d steps, more than T = %d", steps,
               config->iterations);
  for (int t = 0; t < steps; t++) {
    run->trace[t].index = index[t];
    run->trace[t].gain = gain[t];
    run->trace[t].state = isnan(gain[t]) ? DPBO_STEP_FAILED : DPBO_STEP_DONE;
  }
  run->steps = steps;
  /* As recorded; a release does not repeat Algorithm 2's pruning. */
  run->batch = 1;
  DPBO_TRY(run_replay_trace(comm, config, 0, run, err));
done:
  return status;
}

int dpbo_run_mostly_failed(const dpbo_run *run) {
  int bad = 0, done = 0;
  for (int s = 0; s < run->steps; s++) {
    bad += run->trace[s].state == DPBO_STEP_FAILED;
    done += run->trace[s].state != DPBO_STEP_PENDING;
  }
  return done > 0 && 2 * bad > done;
}

void dpbo_run_free(dpbo_run *run) {
  if (!run) return;
  free(run->trace);
  free(run->gp_row);
  free(run->candidates);
  dpbo_ucb_destroy(run->ucb);
  dpbo_gp_destroy(run->gp);
  dpbo_space_destroy(run->space);
  memset(run, 0, sizeof *run);
}
