#include "run/driver.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "base/comm.h"
#include "run/algorithm.h"
#include "objectives/evaluator.h"
#include "run/output.h"
#include "run/selection.h"
#include "objectives/command.h"
#include "base/log.h"
#include "base/proc.h"
#include "run/farm.h"
#include "run/private_evals.h"
#include "objectives/logreg.h"
#include "objectives/svm.h"
#include "objectives/synthetic.h"

/* The events rank 0 broadcasts; every rank applies them in order. */
enum { EVENT_SELECT = 1, EVENT_RESULT = 2, EVENT_STOP = 3 };

typedef struct driver_event {
  int kind;
  int worker;      /* select: the rank that evaluates */
  int redo_step;   /* select: > 0 re-sends a checkpoint's pending step instead of choosing */
  int interrupted; /* stop: by a request, not because all T are in */
  int exhausted;   /* stop: privacy.max_evaluations is charged (private_evals.h) */
  int64_t draw;    /* select, private_evaluations: the mechanism's number (1-based) */
  dpbo_eval_result result; /* result */
} driver_event;

static dpbo_status driver_objective(const dpbo_config *config, const dpbo_space *space,
                                    dpbo_objective *objective, dpbo_error *err) {
  switch (config->objective) {
  case DPBO_OBJECTIVE_SVM: {
    dpbo_svm_options options = config->svm;
    options.space = space; /* its names checked against the data before any evaluation */
    return dpbo_svm_objective_create(&options, objective, err);
  }
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
  case DPBO_OBJECTIVE_COMMAND: {
    dpbo_command_options options = config->command;
    options.space = space; /* integers and category names passed as such */
    return dpbo_command_objective_create(&options, objective, err);
  }
  case DPBO_OBJECTIVE_LOGREG:
    return dpbo_logreg_objective_create(&config->logreg, objective, err);
  }
  return DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "unknown objective kind");
}

static void driver_format_values(const dpbo_space *space, const double *values, char *buf,
                                 size_t size) {
  size_t used = 0;
  buf[0] = '\0';
  for (int i = 0; i < dpbo_space_dims(space) && used < size; i++) {
    char value[DPBO_NAME_MAX];
    dpbo_dim_format(dpbo_space_dim(space, i), values[i], 4, value, sizeof value);
    used += (size_t)snprintf(buf + used, size - used, "%s%s=%s", i ? " " : "",
                             dpbo_space_dim(space, i)->name, value);
  }
}

static void driver_format_duration(double seconds, char *buf, size_t size) {
  if (seconds < 60)
    snprintf(buf, size, "%.1fs", seconds);
  else if (seconds < 3600)
    snprintf(buf, size, "%dm%02ds", (int)(seconds / 60), (int)fmod(seconds, 60));
  else
    snprintf(buf, size, "%dh%02dm", (int)(seconds / 3600), (int)fmod(seconds / 60, 60));
}

/* ---------------------------------------------------------------------------
 * One run on this rank. */

enum { DRIVER_SEND_SLOTS = 32 };

typedef struct driver {
  MPI_Comm comm;
  int rank, size;
  const dpbo_config *config;
  const dpbo_driver_options *options;
  dpbo_run *run;
  int64_t n;
  int first_worker; /* 1, or 0 when rank 0 is alone */
  double *started;  /* per step: when it was selected (for step_seconds) */
  /* The task farm: results and stop requests from the workers, the load
   * per worker (rank 0), result sends in flight (workers). */
  dpbo_farm *farm;
  /* rank 0 */
  int *redo; /* a checkpoint's pending steps (1-based), to send out again */
  int redo_count, redo_next;
  int results_here; /* results folded in by this invocation */
  dpbo_status halt; /* rank 0 alone failed (checkpoint): stop everybody */
  int stop_from;    /* rank 0: a worker asked to stop (its signal), 0 if none */
  char halt_message[DPBO_ERROR_MSG_MAX];
  /* evaluating ranks */
  dpbo_objective objective;
  dpbo_evaluator *evaluator;
  double start;
  dpbo_private_evals *pe; /* privacy.algorithm = private_evaluations, else NULL */
} driver;

/* Event "select" (collective): the next λ_t, or a checkpoint's pending step
 * again; the chosen worker starts evaluating it. */
static dpbo_status driver_select(driver *dr, const driver_event *ev, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_run *run = dr->run;
  int t;
  if (ev->redo_step > 0) {
    t = ev->redo_step;
  } else {
    DPBO_TRY(dpbo_run_select(dr->comm, dr->config, run, err));
    t = run->steps;
  }
  run->trace[t - 1].worker = ev->worker;
  if (dr->pe) dpbo_private_evals_assign(dr->pe, run, t, ev->draw);
  dr->started[t - 1] = MPI_Wtime();
  if (dr->rank == 0) {
    dpbo_farm_assign(dr->farm, ev->worker);
  }
  if (dr->rank == ev->worker) {
    dpbo_eval_job job = {t, run->trace[t - 1].index};
    DPBO_TRY(dpbo_evaluator_submit(dr->evaluator, &job, err));
  }
done:
  return status;
}

static void driver_log_result(const driver *dr, int s) {
  const dpbo_run *run = dr->run;
  const dpbo_trace_step *step = &run->trace[s];
  char lambda[256], elapsed[32], eta[32];
  driver_format_values(run->space, step->value, lambda, sizeof lambda);
  double spent = MPI_Wtime() - dr->start;
  int here = dr->results_here > 0 ? dr->results_here : 1;
  driver_format_duration(spent, elapsed, sizeof elapsed);
  driver_format_duration(spent / here * (run->planned - run->finished), eta, sizeof eta);
  const int width = (int)floor(log10(run->planned)) + 1;
  if (step->state == DPBO_STEP_FAILED) {
    dpbo_log_warn(
        "[%*d/%d] %s  FAILED after %d attempt%s on rank %d: %s  (excluded; %d failure%s so far)",
        width, s + 1, run->planned, lambda, step->attempts, step->attempts == 1 ? "" : "s",
        step->worker, step->failure, run->failures, run->failures == 1 ? "" : "s");
  } else {
    dpbo_log_info("[%*d/%d] %s  v=%.6g  best=%.6g (t=%d)  elapsed %s  eta %s", width, s + 1,
                  run->planned, lambda, step->gain, run->trace[run->best_step].gain,
                  run->best_step + 1, elapsed, eta);
  }
}

/* Event "result" (every rank, no communication): v_t or the failure into the
 * trace, the GP and the block; rank 0 then rewrites the checkpoint. */
static dpbo_status driver_result(driver *dr, const dpbo_eval_result *res, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_run *run = dr->run;
  const int s = res->step - 1;
  if (s < 0 || s >= run->steps || run->trace[s].state != DPBO_STEP_PENDING)
    DPBO_RAISE(DPBO_ERR_MPI, "a result arrived for step %d, which is not being evaluated",
               res->step);
  dpbo_trace_step *step = &run->trace[s];
  step->eval_seconds = res->seconds;
  step->attempts = res->attempts;
  run->busy_seconds += res->seconds;
  dr->results_here++;
  if (dr->rank == 0) {
    dpbo_farm_finish(dr->farm, step->worker);
  }
  DPBO_TRY(dpbo_run_observe(dr->comm, dr->config, s, res->gain,
                            res->code == DPBO_OK ? NULL : res->message, run, err));
  step->step_seconds = MPI_Wtime() - dr->started[s];
  if (dr->rank == 0) {
    driver_log_result(dr, s);
    /* (Not once the launcher is gone: the process is about to be ended.) */
    if (dr->options->checkpoint && !dpbo_proc_launcher_lost()) {
      dpbo_error cerr;
      dpbo_error_clear(&cerr);
      run->wall_seconds = MPI_Wtime() - dr->start;
      if (dpbo_output_write_checkpoint(dr->options->checkpoint, dr->config, run, dr->size, &cerr) !=
          DPBO_OK) {
        dr->halt = cerr.code;
        snprintf(dr->halt_message, sizeof dr->halt_message, "cannot write the checkpoint %s: %s",
                 dr->options->checkpoint, cerr.message);
      }
    }
  }
done:
  return status;
}

/* Rank 0: waits until there is something to announce. */
static dpbo_status driver_next_event(driver *dr, driver_event *ev, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_run *run = dr->run;
  long ns = 0;
  for (;;) {
    memset(ev, 0, sizeof *ev);
    if (dr->halt != DPBO_OK) {
      ev->kind = EVENT_STOP;
      ev->result.code = (int)dr->halt;
      snprintf(ev->result.message, sizeof ev->result.message, "%s", dr->halt_message);
      goto done;
    }
    if (run->finished == run->planned) {
      ev->kind = EVENT_STOP;
      goto done;
    }
    if (dr->size > 1 && !dr->stop_from) {
      /* A signal to a worker alone (not through mpiexec) stops the run too. */
      int from;
      DPBO_TRY(dpbo_farm_stop_source(dr->farm, &from, err));
      if (from >= 0) {
        dr->stop_from = from;
        dpbo_log_info("dpbo: rank %d was told to stop (SIGTERM or SIGUSR1): stopping the run",
                      from);
      }
    }
    if (dpbo_farm_stop_requests() || dr->stop_from ||
        (dr->options->stop_after > 0 && dr->results_here >= dr->options->stop_after)) {
      ev->kind = EVENT_STOP;
      ev->interrupted = 1;
      goto done;
    }
    /* Results first: they sharpen the next choice. */
    if (dr->size == 1) {
      /* (A failure during a stop request is dropped, as on the workers.) */
      if (dpbo_evaluator_poll(dr->evaluator, &ev->result) &&
          !(dpbo_farm_stop_requests() && ev->result.code != DPBO_OK)) {
        if (dr->pe) dpbo_private_evals_privatize(dr->pe, &ev->result);
        ev->kind = EVENT_RESULT;
        goto done;
      }
    } else {
      int from;
      DPBO_TRY(dpbo_farm_take(dr->farm, &ev->result, &from, err));
      if (from >= 0) {
        ev->kind = EVENT_RESULT;
        goto done;
      }
    }
    if (dpbo_farm_in_flight(dr->farm) < dr->run->batch &&
        (dr->redo_next < dr->redo_count || run->steps < run->planned) && dr->pe) {
      /* Privatized evaluations: each one is charged on disk before it is
       * announced; none once K is charged (the run ends when the last
       * evaluation in flight is in). */
      if (!dpbo_private_evals_can_charge(dr->pe, run)) {
        if (dpbo_farm_in_flight(dr->farm) == 0) {
          ev->kind = EVENT_STOP;
          ev->exhausted = 1;
          ev->result.code = (int)DPBO_ERR_CONFIG;
          dpbo_private_evals_exhausted(dr->config, run, ev->result.message,
                                       sizeof ev->result.message);
          goto done;
        }
      } else {
        dpbo_error cerr;
        dpbo_error_clear(&cerr);
        if (dpbo_private_evals_charge(dr->pe, dr->options->checkpoint, dr->config, run, dr->size,
                                      &ev->draw, &cerr) != DPBO_OK) {
          dr->halt = cerr.code;
          snprintf(dr->halt_message, sizeof dr->halt_message,
                   "cannot charge the next evaluation in the checkpoint %s, so it is not made: %s",
                   dr->options->checkpoint, cerr.message);
          continue;
        }
        ev->kind = EVENT_SELECT;
        ev->worker = dpbo_farm_least_loaded(dr->farm);
        if (dr->redo_next < dr->redo_count) ev->redo_step = dr->redo[dr->redo_next++];
        goto done;
      }
    } else if (dpbo_farm_in_flight(dr->farm) < dr->run->batch &&
               (dr->redo_next < dr->redo_count || run->steps < run->planned)) {
      ev->kind = EVENT_SELECT;
      ev->worker = dpbo_farm_least_loaded(dr->farm);
      if (dr->redo_next < dr->redo_count) ev->redo_step = dr->redo[dr->redo_next++];
      goto done;
    }
    if (dr->size == 1) {
      /* Alone: sleep on our own evaluation thread (waking for signals). */
      if (dpbo_evaluator_wait(dr->evaluator, &ev->result, 0.1) &&
          !(dpbo_farm_stop_requests() && ev->result.code != DPBO_OK)) {
        if (dr->pe) dpbo_private_evals_privatize(dr->pe, &ev->result);
        ev->kind = EVENT_RESULT;
        goto done;
      }
    } else {
      dpbo_farm_nap(dr->farm, &ns);
    }
  }
done:
  return status;
}

/* Evaluating ranks: hands finished evaluations to rank 0 (non-blocking, so
 * this rank keeps taking part in collectives meanwhile), and a stop request
 * this rank received (only rank 0 decides when the run stops). */
static dpbo_status driver_forward_results(driver *dr, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!dr->evaluator || dr->rank == 0) goto done;
  DPBO_TRY(dpbo_farm_forward_stop(dr->farm, err));
  for (;;) {
    void *slot;
    DPBO_TRY(dpbo_farm_slot(dr->farm, &slot, err));
    if (!slot) break; /* all slots in flight; try again on the next poll */
    dpbo_eval_result *result = slot;
    if (!dpbo_evaluator_poll(dr->evaluator, result)) break;
    /* A failure while the job is being stopped is most likely the stop
     * itself (Slurm signals every process of the step, an objective's
     * children too): not a property of λ. Drop it; the resumed run repeats
     * the evaluation. */
    if (dpbo_farm_stop_requests() && result->code != DPBO_OK) continue;
    /* Privatized here, on the rank that evaluated, before it is sent. */
    if (dr->pe) dpbo_private_evals_privatize(dr->pe, result);
    DPBO_TRY(dpbo_farm_post(dr->farm, slot, err));
  }
done:
  return status;
}

/* Every rank: the next event from rank 0. */
static dpbo_status driver_exchange_event(driver *dr, driver_event *ev, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  MPI_Request req;
  if (dr->rank == 0) DPBO_TRY(driver_next_event(dr, ev, err));
  if (dr->size == 1) goto done;
  DPBO_MPI_TRY(MPI_Ibcast(ev, (int)sizeof *ev, MPI_BYTE, 0, dr->comm, &req));
  long ns = 0;
  for (;;) {
    int flag = 0;
    DPBO_MPI_TRY(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
    if (flag) break;
    DPBO_TRY(driver_forward_results(dr, err));
    dpbo_farm_nap(dr->farm, &ns);
  }
done:
  return status;
}

static void driver_free(driver *dr) {
  /* (Result sends still in flight after an interruption are cancelled.) */
  dpbo_farm_destroy(dr->farm);
  /* An evaluation in progress is ended if it can be (a command's
   * processes); one that cannot (LIBSVM) is left running: the process is
   * about to exit. */
  if (dpbo_evaluator_destroy(dr->evaluator, 0)) dpbo_objective_destroy(&dr->objective);
  free(dr->started);
  free(dr->redo);
  dpbo_private_evals_destroy(dr->pe);
}

/* The K and candidates of a private-selection run being resumed: those its
 * checkpoint stores. A run file written before issue #22 stores none: its
 * candidates were the public stream of run.seed, which a random search
 * continues (with a warning: they are public, so are this run's); a stopping
 * method's K was kept nowhere, so it cannot be continued. *legacy (malloc'd)
 * holds the recomputed stream, NULL when the stored list is used. */
static dpbo_status driver_resumed_candidates(driver *dr, const dpbo_config *config,
                                             const dpbo_driver_options *options, int64_t **legacy,
                                             int *planned, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_space *space = NULL;
  *legacy = NULL;
  if (options->candidate_count > 0) {
    *planned = options->candidate_count;
    if (dpbo_algorithm_ops_get(config->algorithm)->fixed_candidates &&
        *planned != config->iterations)
      DPBO_RAISE(DPBO_ERR_DATA,
                 "--resume: the checkpoint stores %d candidates, not the T = %d of random search",
                 *planned, config->iterations);
    if (*planned < options->resume_count)
      DPBO_RAISE(DPBO_ERR_DATA, "--resume: the checkpoint holds %d steps but %d candidates",
                 options->resume_count, *planned);
    goto done;
  }
  if (!dpbo_algorithm_ops_get(config->algorithm)->fixed_candidates)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "--resume: this run file was written by a dpbo that kept neither the secret number "
               "of runs of privacy.algorithm = %s nor its candidates in the checkpoint, so the "
               "run cannot be continued; start it again with --overwrite",
               dpbo_algorithm_name(config->algorithm));
  *planned = config->iterations;
  DPBO_TRY(dpbo_run_space(config, &space, err));
  DPBO_ALLOC(*legacy, *planned, "the candidates");
  dpbo_rng rng;
  dpbo_selection_candidate_stream_legacy(config, &rng);
  for (int t = 0; t < *planned; t++)
    (*legacy)[t] = dpbo_selection_candidate(&rng, dpbo_space_size(space));
  if (dr->rank == 0)
    dpbo_log_warn("dpbo: --resume: %s stores no candidates (written before they were secret): "
                  "continuing with its public stream of run.seed = %llu, as it began; whoever "
                  "knows run.seed knows every candidate of this run",
                  options->checkpoint ? options->checkpoint : "the run file",
                  (unsigned long long)config->seed);
done:
  dpbo_space_destroy(space);
  if (status != DPBO_OK) {
    free(*legacy);
    *legacy = NULL;
  }
  return status;
}

static dpbo_status driver_init(driver *dr, MPI_Comm comm, const dpbo_config *config,
                               const dpbo_driver_options *options, dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int64_t *legacy = NULL, *drawn = NULL;
  /* Waits nap from 10 µs doubling to 1 ms, so that an idle rank leaves the
   * core to the busy ones (and to its own evaluation thread) yet answers
   * within a millisecond; a step of the UCB loop takes milliseconds.
   * (Spinning, even with sched_yield, costs a whole time slice per turn on
   * an oversubscribed node.) Up to DRIVER_SEND_SLOTS results of a worker
   * may be on their way while it takes part in the collectives. */
  const dpbo_farm_options farm_options = {.result_bytes = sizeof(dpbo_eval_result),
                                          .send_slots = DRIVER_SEND_SLOTS,
                                          .nap_min_ns = 10000L,
                                          .nap_max_ns = 1000000L};
  memset(dr, 0, sizeof *dr);
  dr->comm = comm;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &dr->rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &dr->size));
  dr->config = config;
  dr->options = options;
  dr->run = run;
  DPBO_TRY(dpbo_farm_create(comm, &farm_options, &dr->farm, err));
  dr->first_worker = dpbo_farm_first_worker(dr->farm);
  dr->start = MPI_Wtime();
  /* T evaluations, or a private-selection run's secret K (selection.h),
   * and its secret candidates; a resumed one keeps what it drew. */
  int planned;
  const int64_t *candidates = NULL;
  if (options->resume_count > 0 && dpbo_algorithm_is_selection(config->algorithm)) {
    DPBO_TRY(driver_resumed_candidates(dr, config, options, &legacy, &planned, err));
    candidates = legacy ? legacy : options->candidates;
  } else {
    DPBO_TRY(dpbo_selection_planned(comm, config, &planned, err));
    if (options->law && dpbo_algorithm_is_selection(config->algorithm)) {
      /* The candidates from the given law, drawn secretly as the uniform
       * ones are (dpbo_selection_candidates_law). */
      drawn = malloc(sizeof *drawn * (size_t)planned);
      DPBO_TRY(dpbo_comm_agree(
          comm,
          drawn ? DPBO_OK : DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory for the candidates"),
          err));
      DPBO_TRY(dpbo_selection_candidates_law(comm, config, planned, options->law, drawn, err));
      candidates = drawn;
    }
  }
  DPBO_TRY(dpbo_run_create_planned(comm, config, planned, candidates, run, err));
  dr->n = dpbo_space_size(run->space);
  run->workers = dr->size - dr->first_worker;
  DPBO_ALLOC(dr->started, planned, "the driver");
  DPBO_ALLOC(dr->redo, planned, "the driver");
  DPBO_TRY(dpbo_private_evals_create(config, &dr->pe, err));
done:
  free(legacy);
  free(drawn);
  return status;
}

/* Evaluating ranks build the objective and its thread (collective: a
 * failure anywhere, e.g. an unreadable dataset, fails all ranks). */
static dpbo_status driver_start_workers(driver *dr, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  /* What the first worker says while it reads the data (a skipped CSV
   * header) reaches rank 0's log before any error of the reading. */
  dpbo_log_hold(dr->rank == dr->first_worker);
  if (dr->rank >= dr->first_worker) {
    local = driver_objective(dr->config, dr->run->space, &dr->objective, err);
    if (local == DPBO_OK)
      /* Alone, rank 0 has nobody to stay responsive for, but it still
       * evaluates in a thread when the objective can be cancelled (a
       * command), so that a stop ends the evaluation at once. */
      local = dpbo_evaluator_create(&dr->objective, dr->run->space, dr->config->retries,
                                    dr->size > 1 || dr->objective.ops->cancel != NULL,
                                    &dr->evaluator, err);
  }
  dpbo_error forward_err;
  dpbo_error_clear(&forward_err);
  if (dpbo_comm_log_forward(dr->comm, dr->first_worker, &forward_err) != DPBO_OK &&
      local == DPBO_OK) {
    *err = forward_err;
    local = forward_err.code;
  }
  DPBO_TRY(dpbo_comm_agree(dr->comm, local, err));
done:
  return status;
}

static void driver_log_start(const driver *dr) {
  const dpbo_config *config = dr->config;
  const dpbo_run *run = dr->run;
  if (dr->rank != 0) return;
  char mode[96], limit[64];
  if (run->memory_limit_min == 0)
    snprintf(limit, sizeof limit, "no limit");
  else
    snprintf(limit, sizeof limit, "limit %.1f MiB per rank%s", run->memory_limit_min / 1048576.0,
             config->memory_limit_mb < 0 ? ", auto" : "");
  dpbo_log_info(
      "dpbo: %s objective, |Λ| = %lld candidates (%s, d = %d) on %d rank%s, T = %d, "
      "batch %d, kernel %s; UCB state (%s) %.1f MiB per rank (largest), %.1f MiB in all (%s)",
      dpbo_objective_kind_name(config->objective), (long long)dr->n,
      dpbo_space_kind_name(config->space_kind), dpbo_space_dims(run->space), dr->size,
      dr->size == 1 ? "" : "s", config->iterations, dr->run->batch,
      dpbo_kernel_kind_name(config->kernel.kind), dpbo_run_ucb_mode(run, mode, sizeof mode),
      run->state_bytes_max / 1048576.0, run->state_bytes_total / 1048576.0, limit);
  if (run->recompute_ranks > 0)
    dpbo_log_info("dpbo: recompute mode: the incremental UCB state (T x N/P doubles, %.1f MiB on "
                  "the largest rank) exceeds ucb.memory_limit_mb, so a(x) = L^-1 k(X_t, x) is "
                  "recomputed from the kernel at every step: O(t^2 N/P) work per step instead of "
                  "O(t N/P), same selections",
                  run->incremental_bytes_max / 1048576.0);
  if (dr->pe) dpbo_private_evals_log_start(config, run);
  if (run->resumed > 0)
    dpbo_log_info("dpbo: resuming after %d of %d evaluations (%d failed; %d to evaluate again)",
                  run->finished, run->planned, run->failures, dr->redo_count);
  if (config->objective == DPBO_OBJECTIVE_COMMAND && config->command.timeout_s > 0)
    dpbo_log_info("dpbo: command objective: time-out %g s per evaluation (objective.timeout_s)",
                  config->command.timeout_s);
  else if (config->objective == DPBO_OBJECTIVE_COMMAND)
    dpbo_log_warn("dpbo: objective.timeout_s = 0: no time limit per evaluation, so a program that "
                  "hangs holds the job until its wall-time limit (default %g s)",
                  DPBO_COMMAND_TIMEOUT_DEFAULT);
  if (dr->options->checkpoint)
    dpbo_log_info("dpbo: checkpoint after every evaluation in %s; if the job dies, continue it "
                  "with `dpbo run CONFIG --resume`",
                  dr->options->checkpoint);
}

dpbo_status dpbo_driver_run(MPI_Comm comm, const dpbo_config *config,
                            const dpbo_driver_options *options, dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  static const dpbo_driver_options no_options = {NULL, NULL, 0, 0, NULL, 0, NULL};
  driver dr;
  DPBO_TRY(driver_init(&dr, comm, config, options ? options : &no_options, run, err));
  dpbo_farm_stops_reset(); /* a request belongs to one run */
  if (dr.options->resume_count > 0) {
    DPBO_TRY(dpbo_run_resume(comm, config, dr.options->resume, dr.options->resume_count, run, err));
    for (int s = 0; s < run->steps; s++)
      if (run->trace[s].state == DPBO_STEP_PENDING) dr.redo[dr.redo_count++] = s + 1;
  }
  /* The mechanisms an earlier invocation charged stay charged. */
  if (dr.pe) DPBO_TRY(dpbo_private_evals_resume(comm, dr.options->checkpoint, run, err));
  if (dr.pe) DPBO_TRY(dpbo_private_evals_charge_ledger(comm, config, dr.options->checkpoint, err));
  DPBO_TRY(driver_start_workers(&dr, err));
  driver_log_start(&dr);

  for (;;) {
    driver_event ev;
    DPBO_TRY(driver_exchange_event(&dr, &ev, err));
    if (ev.kind == EVENT_STOP) {
      run->interrupted = ev.interrupted;
      run->evaluations_exhausted = ev.exhausted;
      if (ev.result.code != DPBO_OK) {
        run->outcome = (dpbo_status)ev.result.code;
        snprintf(run->outcome_message, sizeof run->outcome_message, "%s", ev.result.message);
        if (dr.rank == 0) dpbo_log_error("%s", run->outcome_message);
      }
      break;
    }
    if (ev.kind == EVENT_SELECT) DPBO_TRY(driver_select(&dr, &ev, err));
    if (ev.kind == EVENT_RESULT) DPBO_TRY(driver_result(&dr, &ev.result, err));
  }
  run->wall_seconds = MPI_Wtime() - dr.start;
  if (run->workers > 0 && run->wall_seconds > 0)
    run->utilization = run->busy_seconds / (run->workers * run->wall_seconds);
  {
    /* What the run really held, objective and MPI included. */
    struct rusage usage;
    unsigned long long rss =
        getrusage(RUSAGE_SELF, &usage) == 0 ? (unsigned long long)usage.ru_maxrss * 1024ull : 0;
    unsigned long long max = 0, sum = 0;
    DPBO_MPI_TRY(MPI_Allreduce(&rss, &max, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, comm));
    DPBO_MPI_TRY(MPI_Allreduce(&rss, &sum, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, comm));
    run->peak_rss_max = (size_t)max;
    run->peak_rss_total = (size_t)sum;
    if (dr.rank == 0)
      dpbo_log_info("dpbo: peak resident memory %.1f MiB per rank (largest), %.1f MiB in all",
                    max / 1048576.0, sum / 1048576.0);
  }
done:
  driver_free(&dr);
  return status;
}
