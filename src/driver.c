#include "dpbo/driver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dpbo/comm.h"
#include "dpbo/command.h"
#include "dpbo/log.h"
#include "dpbo/logreg.h"
#include "dpbo/svm.h"
#include "dpbo/synthetic.h"

enum { TAG_EVALUATE = 101, TAG_RESULT = 102 };

/* What travels from rank 0 to a worker and back for one evaluation. */
typedef struct eval_request {
  int step;
  int64_t index;
} eval_request;

typedef struct eval_result {
  int step;
  int code; /* dpbo_status */
  double gain;
  double seconds;
  char message[DPBO_ERROR_MSG_MAX];
} eval_result;

dpbo_status dpbo_driver_space(const dpbo_config *config, dpbo_space **space, dpbo_error *err) {
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

static dpbo_status driver_objective(const dpbo_config *config, const dpbo_space *space,
                                    dpbo_objective *objective, dpbo_error *err) {
  switch (config->objective) {
  case DPBO_OBJECTIVE_SVM:
    return dpbo_svm_objective_create(&config->svm, objective, err);
  case DPBO_OBJECTIVE_SYNTHETIC: {
    dpbo_synthetic_options options;
    memset(&options, 0, sizeof options);
    options.kind = config->synthetic;
    options.space = space;
    options.kernel = config->kernel;
    options.mean = config->prior.mean;
    options.signal_std = config->prior.signal_std;
    options.noise_std = config->synthetic_noise_std;
    options.features = config->synthetic_features;
    options.seed = config->synthetic_seed;
    return dpbo_synthetic_objective_create(&options, objective, err);
  }
  case DPBO_OBJECTIVE_COMMAND:
    return dpbo_command_objective_create(&config->command, objective, err);
  case DPBO_OBJECTIVE_LOGREG:
    return dpbo_logreg_objective_create(&config->logreg, objective, err);
  }
  return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "unknown objective kind");
}

static void evaluate_at(dpbo_objective *objective, const dpbo_space *space, const eval_request *req,
                        eval_result *res) {
  dpbo_error err;
  dpbo_error_clear(&err);
  memset(res, 0, sizeof *res);
  res->step = req->step;
  const int d = dpbo_space_dims(space);
  double u[DPBO_MAX_DIM], values[DPBO_MAX_DIM];
  const char *names[DPBO_MAX_DIM];
  for (int i = 0; i < d; i++) names[i] = dpbo_space_dim(space, i)->name;
  double start = MPI_Wtime();
  dpbo_status st = dpbo_space_unit(space, req->index, u, &err);
  if (st == DPBO_OK) {
    dpbo_space_to_values(space, u, values);
    dpbo_objective_begin(objective, (uint64_t)req->step);
    st = dpbo_objective_evaluate(objective, d, names, values, &res->gain, &err);
  }
  res->seconds = MPI_Wtime() - start;
  res->code = (int)st;
  if (st != DPBO_OK) memcpy(res->message, err.message, sizeof res->message);
}

static void format_values(const dpbo_space *space, const double *values, char *buf, size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < dpbo_space_dims(space) && used < size; i++)
    used += (size_t)snprintf(buf + used, size - used, "%s%s=%.4g", i ? " " : "",
                             dpbo_space_dim(space, i)->name, values[i]);
}

static void format_duration(double seconds, char *buf, size_t size) {
  if (seconds < 60)
    snprintf(buf, size, "%.1fs", seconds);
  else if (seconds < 3600)
    snprintf(buf, size, "%dm%02ds", (int)(seconds / 60), (int)fmod(seconds, 60));
  else
    snprintf(buf, size, "%dh%02dm", (int)(seconds / 3600), (int)fmod(seconds / 60, 60));
}

/* Λ, this rank's block of it, the UCB state and the GP, with an empty trace
 * of capacity T (collective: a failure on any rank fails all). */
static dpbo_status driver_setup(MPI_Comm comm, const dpbo_config *config, dpbo_run *run,
                                dpbo_error *err) {
  dpbo_status status = DPBO_OK, local;
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  memset(run, 0, sizeof *run);
  run->planned = config->iterations;
  run->best_step = -1;
  local = dpbo_driver_space(config, &run->space, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  int64_t begin, count;
  dpbo_space_block(dpbo_space_size(run->space), size, rank, &begin, &count);
  local = dpbo_ucb_create(run->space, &config->kernel, begin, count, config->iterations, &run->ucb, err);
  if (local == DPBO_OK)
    local = dpbo_gp_create(&config->kernel, &config->prior, config->iterations, &run->gp, err);
  if (local == DPBO_OK) {
    run->trace = calloc((size_t)config->iterations, sizeof *run->trace);
    if (!run->trace) local = DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory for the trace");
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  run->state_bytes = dpbo_ucb_memory(run->ucb);
done:
  return status;
}

dpbo_status dpbo_driver_replay(MPI_Comm comm, const dpbo_config *config, int steps,
                               const int64_t *index, const double *gain, dpbo_run *run,
                               dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_TRY(driver_setup(comm, config, run, err));
  if (steps > config->iterations)
    DPBO_RAISE(DPBO_ERR_ARG, "the trace holds %d steps, more than T = %d", steps, config->iterations);
  const int64_t n = dpbo_space_size(run->space);
  for (int t = 0; t < steps; t++) {
    dpbo_trace_step *step = &run->trace[t];
    if (index[t] < 0 || index[t] >= n)
      DPBO_RAISE(DPBO_ERR_DATA, "trace step %d names candidate %lld outside Λ", t + 1, (long long)index[t]);
    step->index = index[t];
    step->gain = gain[t];
    DPBO_TRY(dpbo_space_unit(run->space, index[t], step->unit, err));
    dpbo_space_to_values(run->space, step->unit, step->value);
    DPBO_TRY(dpbo_gp_append(run->gp, step->unit, gain[t], err));
    DPBO_TRY(dpbo_ucb_update(run->ucb, run->gp, step->unit, err));
    run->steps = t + 1;
    if (run->best_step < 0 || gain[t] > run->trace[run->best_step].gain) run->best_step = t;
  }
done:
  return status;
}

dpbo_status dpbo_driver_run(MPI_Comm comm, const dpbo_config *config, dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_status local = DPBO_OK;
  dpbo_objective objective = {NULL, NULL};
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  const double start = MPI_Wtime();

  /* Set-up: every rank builds Λ and its block; evaluating ranks build the
   * objective. Failures on any rank stop all ranks with the same message. */
  DPBO_TRY(driver_setup(comm, config, run, err));
  const int64_t n = dpbo_space_size(run->space);
  const int d = dpbo_space_dims(run->space);
  const int evaluates = size == 1 || rank != 0;
  if (evaluates) local = driver_objective(config, run->space, &objective, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));

  if (rank == 0) {
    unsigned long long total = 0, mine = run->state_bytes;
    MPI_Reduce(&mine, &total, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
    dpbo_log_info("dpbo: %s objective, |Λ| = %lld candidates (%s, d = %d) on %d rank%s, T = %d, "
                  "kernel %s; UCB state %.1f MiB on rank 0, %.1f MiB in all",
                  dpbo_objective_kind_name(config->objective), (long long)n,
                  dpbo_space_kind_name(config->space_kind), d, size, size == 1 ? "" : "s",
                  config->iterations, dpbo_kernel_kind_name(config->kernel.kind),
                  mine / 1048576.0, total / 1048576.0);
  } else {
    unsigned long long mine = run->state_bytes;
    MPI_Reduce(&mine, NULL, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, 0, comm);
  }

  const double m0 = config->prior.mean, s = config->prior.signal_std;
  for (int t = 1; t <= config->iterations; t++) {
    const double step_start = MPI_Wtime();
    dpbo_trace_step *step = &run->trace[t - 1];
    step->beta = dpbo_ucb_beta(n, t, config->delta);
    dpbo_ucb_choice choice;
    step->alive = n;
    if (config->algorithm == DPBO_ALGORITHM_2 && t > 1) {
      /* de Freitas et al.: drop what can no longer hold the maximum. */
      double lcb = dpbo_ucb_local_max_lcb(run->ucb, step->beta), lcb_max;
      int64_t alive, total;
      if (MPI_Allreduce(&lcb, &lcb_max, 1, MPI_DOUBLE, MPI_MAX, comm) != MPI_SUCCESS)
        DPBO_RAISE(DPBO_ERR_MPI, "reduction of the lower confidence bound failed");
      DPBO_TRY(dpbo_ucb_prune(run->ucb, step->beta, lcb_max, &alive, err));
      if (MPI_Allreduce(&alive, &total, 1, MPI_INT64_T, MPI_SUM, comm) != MPI_SUCCESS)
        DPBO_RAISE(DPBO_ERR_MPI, "reduction of the surviving candidates failed");
      step->alive = total;
    }
    if (config->acquisition == DPBO_ACQ_EI) {
      double best = run->best_step < 0 ? 0.0 : (run->trace[run->best_step].gain - m0) / s;
      choice = dpbo_ucb_local_best_ei(run->ucb, best);
      DPBO_TRY(dpbo_ucb_reduce(comm, &choice, err));
    } else {
      DPBO_TRY(dpbo_ucb_select(comm, run->ucb, step->beta, &choice, err));
    }
    step->index = choice.index;
    DPBO_TRY(dpbo_space_unit(run->space, choice.index, step->unit, err));
    dpbo_space_to_values(run->space, step->unit, step->value);
    double var;
    dpbo_gp_predict(run->gp, step->unit, &step->mean, &var);
    step->std = sqrt(var);
    step->ucb = config->acquisition == DPBO_ACQ_EI ? s * choice.score : m0 + s * choice.score;

    /* Evaluation on the worker, result broadcast from rank 0. */
    eval_request req = {t, choice.index};
    eval_result res;
    const int worker = size == 1 ? 0 : 1 + (t - 1) % (size - 1);
    if (rank == 0 && worker == 0) {
      evaluate_at(&objective, run->space, &req, &res);
    } else if (rank == 0) {
      if (MPI_Send(&req, (int)sizeof req, MPI_BYTE, worker, TAG_EVALUATE, comm) != MPI_SUCCESS ||
          MPI_Recv(&res, (int)sizeof res, MPI_BYTE, worker, TAG_RESULT, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        DPBO_RAISE(DPBO_ERR_MPI, "exchange with worker rank %d failed at step %d", worker, t);
    } else if (rank == worker) {
      if (MPI_Recv(&req, (int)sizeof req, MPI_BYTE, 0, TAG_EVALUATE, comm, MPI_STATUS_IGNORE) != MPI_SUCCESS)
        DPBO_RAISE(DPBO_ERR_MPI, "worker %d: receiving step %d failed", rank, t);
      evaluate_at(&objective, run->space, &req, &res);
      if (MPI_Send(&res, (int)sizeof res, MPI_BYTE, 0, TAG_RESULT, comm) != MPI_SUCCESS)
        DPBO_RAISE(DPBO_ERR_MPI, "worker %d: returning step %d failed", rank, t);
    }
    if (MPI_Bcast(&res, (int)sizeof res, MPI_BYTE, 0, comm) != MPI_SUCCESS)
      DPBO_RAISE(DPBO_ERR_MPI, "broadcast of step %d failed", t);
    step->worker = worker;
    step->eval_seconds = res.seconds;
    if (res.code != DPBO_OK) {
      /* The steps so far stay valid; the caller writes them out. */
      run->outcome = (dpbo_status)res.code;
      snprintf(run->outcome_message, sizeof run->outcome_message,
               "evaluation %d on rank %d failed: %s", t, worker, res.message);
      dpbo_log_error("%s", run->outcome_message);
      break;
    }
    step->gain = res.gain;
    DPBO_TRY(dpbo_gp_append(run->gp, step->unit, res.gain, err));
    if (config->acquisition == DPBO_ACQ_UCB && t < config->iterations)
      dpbo_ucb_prepare_select(run->ucb, dpbo_ucb_beta(n, t + 1, config->delta));
    DPBO_TRY(dpbo_ucb_update(run->ucb, run->gp, step->unit, err));
    run->steps = t;
    if (run->best_step < 0 || step->gain > run->trace[run->best_step].gain) run->best_step = t - 1;
    step->step_seconds = MPI_Wtime() - step_start;

    if (rank == 0) {
      char lambda[256], elapsed[32], eta[32];
      format_values(run->space, step->value, lambda, sizeof lambda);
      double spent = MPI_Wtime() - start;
      format_duration(spent, elapsed, sizeof elapsed);
      format_duration(spent / t * (config->iterations - t), eta, sizeof eta);
      dpbo_log_info("[%*d/%d] %s  v=%.6g  best=%.6g (t=%d)  elapsed %s  eta %s",
                    (int)floor(log10(config->iterations)) + 1, t, config->iterations, lambda,
                    step->gain, run->trace[run->best_step].gain, run->best_step + 1, elapsed, eta);
    }
  }
  run->wall_seconds = MPI_Wtime() - start;
done:
  dpbo_objective_destroy(&objective);
  return status;
}

void dpbo_run_free(dpbo_run *run) {
  if (!run) return;
  free(run->trace);
  dpbo_ucb_destroy(run->ucb);
  dpbo_gp_destroy(run->gp);
  dpbo_space_destroy(run->space);
  memset(run, 0, sizeof *run);
}
