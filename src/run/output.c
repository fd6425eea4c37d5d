#include "run/output.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/comm.h"
#include "run/algorithm.h"
#include "base/h5io.h"
#include "dpbo/version.h"

/* ---------------------------------------------------------------------------
 * The run file. */

/* Opens a run file for reading. A file that is not there, or that cannot
 * be read, says why (errno); one that is there but is not HDF5 says that. */
static dpbo_status output_open_run_file(const char *path, hid_t *file, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  /* A regular file only: H5Fopen would wait forever on a FIFO. */
  DPBO_TRY(dpbo_input_check(path, "run file", err));
  H5E_BEGIN_TRY { *file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT); }
  H5E_END_TRY;
  if (*file < 0) DPBO_RAISE(DPBO_ERR_IO, "cannot open %s as an HDF5 run file", path);
done:
  return status;
}

int dpbo_output_wants_posterior(const dpbo_config *config, int64_t n) {
  if (dpbo_algorithm_is_selection(config->algorithm)) return 0; /* no GP: nothing to write */
  if (config->posterior == DPBO_POSTERIOR_YES) return 1;
  if (config->posterior == DPBO_POSTERIOR_NO) return 0;
  return n <= 1000000;
}

/* All T evaluations are in and nothing ended the run early. */
static int output_run_complete(const dpbo_run *run) {
  return run->steps == run->planned && run->finished == run->planned && run->outcome == DPBO_OK;
}

static dpbo_status output_write_root(hid_t file, const dpbo_config *config, const dpbo_run *run,
                                     int nranks, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_TRY(dpbo_h5io_attr_string(file, "dpbo_version", DPBO_VERSION_STRING, err));
  DPBO_TRY(dpbo_h5io_attr_string(file, "config_file", config->path, err));
  DPBO_TRY(dpbo_output_write_settings(file, &config->settings, err));
  int64_t seed = (int64_t)config->seed, ranks = nranks;
  int64_t complete = output_run_complete(run);
  DPBO_TRY(dpbo_h5io_attr_int64(file, "seed", &seed, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(file, "ranks", &ranks, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(file, "complete", &complete, 1, err));
  const char *outcome = complete ? "completed all iterations"
                        : run->outcome != DPBO_OK
                            ? run->outcome_message
                            : "in progress or interrupted: continue with dpbo run CONFIG --resume";
  DPBO_TRY(dpbo_h5io_attr_string(file, "outcome", outcome, err));
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(config->algorithm);
  if (ops->private_evaluations) {
    /* Every Gaussian mechanism dispatched so far (run/private_evals.h): a
     * resume continues the count, so a lost draw stays charged. */
    DPBO_TRY(dpbo_h5io_attr_int64(file, DPBO_OUTPUT_EVALUATIONS_CHARGED, &run->evaluations_charged,
                                  1, err));
  }
  DPBO_TRY(dpbo_h5io_attr_string(
      file, "sensitive",
      ops->publishes_trace
          ? "no (privacy.algorithm = private_evaluations): every gain in /trace went through the "
            "Gaussian mechanism on the rank that evaluated it, and everything else is computed "
            "from those noisy gains; the timings (eval_seconds, step_seconds, wall_seconds) are "
            "not covered"
          : "yes: /trace and /posterior depend on the validation data and are NOT "
            "differentially private; never publish them",
      err));
done:
  return status;
}

static dpbo_status output_write_space(hid_t file, const dpbo_config *config,
                                      const dpbo_space *space, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t group = H5Gcreate2(file, "space", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create group /space");
  const int d = dpbo_space_dims(space);
  dpbo_dim dims[DPBO_MAX_DIM];
  int64_t levels[DPBO_MAX_DIM], size = dpbo_space_size(space);
  for (int i = 0; i < d; i++) {
    dims[i] = *dpbo_space_dim(space, i);
    levels[i] = dims[i].levels;
  }
  DPBO_TRY(dpbo_h5io_attr_string(group, "kind", dpbo_space_kind_name(config->space_kind), err));
  DPBO_TRY(dpbo_h5io_attr_int64(group, "size", &size, 1, err));
  DPBO_TRY(dpbo_output_write_dims(group, d, dims, err));
  DPBO_TRY(dpbo_h5io_attr_int64(group, "levels", levels, (hsize_t)d, err));
done:
  if (group >= 0) H5Gclose(group);
  return status;
}

/* The trace's scalar columns, one dataset each (written and read back). */
static const dpbo_h5io_field trace_columns[] = {
    {"index", offsetof(dpbo_trace_step, index), 1},
    {"alive", offsetof(dpbo_trace_step, alive), 1},
    {"gain", offsetof(dpbo_trace_step, gain), 0},
    {"mean", offsetof(dpbo_trace_step, mean), 0},
    {"std", offsetof(dpbo_trace_step, std), 0},
    {"beta", offsetof(dpbo_trace_step, beta), 0},
    {"ucb", offsetof(dpbo_trace_step, ucb), 0},
    {"eval_seconds", offsetof(dpbo_trace_step, eval_seconds), 0},
    {"step_seconds", offsetof(dpbo_trace_step, step_seconds), 0}};

/* Failed evaluations' reasons, one "t<TAB>reason" line each, as the string
 * attribute /trace failures (empty when none failed). */
static dpbo_status output_write_failures(hid_t group, const dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char *text = NULL;
  size_t used = 0;
  DPBO_ALLOC(text, (size_t)run->failures * (DPBO_FAILURE_MAX + 16) + 1, "the failure list");
  for (int t = 0; t < run->steps; t++) {
    const dpbo_trace_step *step = &run->trace[t];
    if (step->state != DPBO_STEP_FAILED) continue;
    used += (size_t)sprintf(text + used, "%d\t", t + 1);
    for (const char *c = step->failure; *c; c++)
      text[used++] = (*c == '\n' || *c == '\t') ? ' ' : *c;
    text[used++] = '\n';
  }
  text[used] = '\0';
  DPBO_TRY(dpbo_h5io_attr_string(group, "failures", text, err));
done:
  free(text);
  return status;
}

/* Written by rank 0, which holds the run file alone (output_write). */
static dpbo_status output_write_trace(hid_t file, const dpbo_config *config, const dpbo_run *run,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int rank = 0;
  const int d = dpbo_space_dims(run->space);
  const hsize_t steps = (hsize_t)run->steps;
  double *buf = NULL;
  int64_t *ibuf = NULL;
  hid_t group = H5Gcreate2(file, "trace", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create group /trace");
  DPBO_ALLOC(buf, (steps ? steps : 1) * (hsize_t)d, "trace buffer");
  DPBO_ALLOC(ibuf, steps ? steps : 1, "trace buffer");
  hsize_t dims1[1] = {steps}, dims2[2] = {steps, (hsize_t)d};

  /* int members, widened to int64 columns */
  for (hsize_t t = 0; t < steps; t++)
    ibuf[t] = run->trace[t].worker;
  DPBO_TRY(dpbo_h5io_write_small(group, &(dpbo_h5io_array){"worker", H5T_NATIVE_INT64, 1, dims1},
                                 ibuf, rank, err));
  for (hsize_t t = 0; t < steps; t++)
    ibuf[t] = run->trace[t].state;
  DPBO_TRY(dpbo_h5io_write_small(group, &(dpbo_h5io_array){"state", H5T_NATIVE_INT64, 1, dims1},
                                 ibuf, rank, err));
  /* A published trace (private_evaluations) holds only what the proof
   * covers: whether an attempt failed may depend on the validation data, and
   * attempts = 2 says one did, so they are left out unless
   * privacy.failures_public = yes (issue #22). Resume does not need them. */
  if (!dpbo_algorithm_publishes_trace(config->algorithm) || config->failures_public) {
    for (hsize_t t = 0; t < steps; t++)
      ibuf[t] = run->trace[t].attempts;
    DPBO_TRY(dpbo_h5io_write_small(
        group, &(dpbo_h5io_array){"attempts", H5T_NATIVE_INT64, 1, dims1}, ibuf, rank, err));
  }
  for (hsize_t t = 0; t < steps; t++)
    memcpy(buf + t * d, run->trace[t].value, (size_t)d * sizeof *buf);
  DPBO_TRY(dpbo_h5io_write_small(group, &(dpbo_h5io_array){"lambda", H5T_NATIVE_DOUBLE, 2, dims2},
                                 buf, rank, err));
  for (hsize_t t = 0; t < steps; t++)
    memcpy(buf + t * d, run->trace[t].unit, (size_t)d * sizeof *buf);
  DPBO_TRY(dpbo_h5io_write_small(group, &(dpbo_h5io_array){"unit", H5T_NATIVE_DOUBLE, 2, dims2},
                                 buf, rank, err));

  /* Scalar columns, one dataset each. */
  const dpbo_h5io_columns columns = {sizeof *run->trace, trace_columns,
                                     sizeof trace_columns / sizeof trace_columns[0]};
  DPBO_TRY(dpbo_h5io_write_fields(group, run->trace, steps, &columns, rank, err));
  DPBO_TRY(output_write_failures(group, run, err));
  if (run->candidates) {
    /* A selection run's secret candidates, all `planned` (its K) of them:
     * --resume must evaluate these, which nothing public can recompute. */
    hsize_t planned[1] = {(hsize_t)run->planned};
    DPBO_TRY(dpbo_h5io_write_small(
        group, &(dpbo_h5io_array){DPBO_OUTPUT_CANDIDATES, H5T_NATIVE_INT64, 1, planned},
        run->candidates, rank, err));
  }
  DPBO_TRY(dpbo_h5io_attr_doubles(group, "delta", &config->delta, 1, err));
  {
    /* N of β_t next to its δ: a release recomputes β_t from both. */
    int64_t beta_n = dpbo_space_size(run->space);
    DPBO_TRY(dpbo_h5io_attr_int64(group, "N", &beta_n, 1, err));
  }
  DPBO_TRY(dpbo_h5io_attr_string(group, "note",
                                 "gain = v_t (NaN: failed or pending, see state: 0 done, 1 failed, "
                                 "2 pending); mean, std: GP posterior of f at lambda_t when it was "
                                 "chosen; ucb = mean + sqrt(beta) std; "
                                 "beta_t = 2 log(N t^2 pi^2 / (3 delta))",
                                 err));
done:
  free(buf);
  free(ibuf);
  if (group >= 0) H5Gclose(group);
  return status;
}

/* The posterior in units of v, produced chunk by chunk for the writes. */
typedef struct posterior_fill {
  const double *mu, *var, *unit;
  double m0, s;
  int d;
} posterior_fill;

static void output_fill_unit(void *user, hsize_t first, hsize_t rows, void *buf) {
  const posterior_fill *p = user;
  memcpy(buf, p->unit + first * (hsize_t)p->d, rows * (hsize_t)p->d * sizeof(double));
}

static void output_fill_mean(void *user, hsize_t first, hsize_t rows, void *buf) {
  const posterior_fill *p = user;
  double *out = buf;
  for (hsize_t i = 0; i < rows; i++)
    out[i] = p->m0 + p->s * p->mu[first + i];
}

static void output_fill_std(void *user, hsize_t first, hsize_t rows, void *buf) {
  const posterior_fill *p = user;
  double *out = buf;
  for (hsize_t i = 0; i < rows; i++)
    out[i] = p->s * sqrt(p->var[first + i]);
}

/* Rows per message and write of the posterior: 8 MiB buffers (8 d MiB for
 * /posterior/unit), however large the block (a copy of the whole block
 * would add N/P doubles per rank, and N on rank 0, which writes). */
enum { POSTERIOR_CHUNK = 1 << 20 };

/* Collective over comm; file is rank 0's (negative after an earlier
 * failure there, when rank 0 only takes the other ranks' blocks in). */
static dpbo_status output_write_posterior(MPI_Comm comm, hid_t file, const dpbo_config *config,
                                          const dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int64_t count = dpbo_ucb_count(run->ucb), begin = dpbo_ucb_begin(run->ucb);
  const int d = dpbo_space_dims(run->space);
  posterior_fill fill = {.mu = dpbo_ucb_mean(run->ucb),
                         .var = dpbo_ucb_var(run->ucb),
                         .unit = dpbo_ucb_unit(run->ucb),
                         .m0 = config->prior.mean,
                         .s = config->prior.signal_std,
                         .d = d};
  hid_t group = -1;
  if (file >= 0 &&
      (group = H5Gcreate2(file, "posterior", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0)
    status = DPBO_ERROR_SET(err, DPBO_ERR_HDF5, "cannot create group /posterior");
  hsize_t n = (hsize_t)dpbo_space_size(run->space);
  hsize_t dims1[1] = {n}, dims2[2] = {n, (hsize_t)d};
  /* Every rank takes part in all three, whatever failed on rank 0, which
   * alone writes (dpbo_h5io_write_gathered); the first failure is kept. */
  static const char *const names[] = {"unit", "mean", "std"};
  static const dpbo_h5io_fill fills[] = {output_fill_unit, output_fill_mean, output_fill_std};
  for (int i = 0; i < 3; i++) {
    const dpbo_h5io_blocks set = {.name = names[i],
                                  .type = H5T_NATIVE_DOUBLE,
                                  .ndims = i == 0 ? 2 : 1,
                                  .dims = i == 0 ? dims2 : dims1,
                                  .offset = (hsize_t)begin,
                                  .rows = (hsize_t)count};
    dpbo_status got = dpbo_h5io_write_gathered(comm, status == DPBO_OK ? group : -1, &set,
                                               POSTERIOR_CHUNK, fills[i], &fill, err);
    if (status == DPBO_OK) status = got;
  }
  if (status != DPBO_OK || group < 0) goto done;
  int64_t observations = run->steps;
  DPBO_TRY(dpbo_h5io_attr_int64(group, "observations", &observations, 1, err));
done:
  if (group >= 0) H5Gclose(group);
  return status;
}

static dpbo_status output_write_summary(hid_t file, const dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t group = H5Gcreate2(file, "summary", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create group /summary");
  DPBO_TRY(dpbo_h5io_attr_doubles(group, "wall_seconds", &run->wall_seconds, 1, err));
  int64_t steps = run->steps, best = run->best_step + 1;
  int64_t finished = run->finished, failures = run->failures, workers = run->workers,
          resumed = run->resumed;
  DPBO_TRY(dpbo_h5io_attr_int64(group, "steps", &steps, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(group, "finished", &finished, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(group, "failures", &failures, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(group, "resumed_steps", &resumed, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(group, "workers", &workers, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(group, "busy_seconds", &run->busy_seconds, 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(group, "worker_utilization", &run->utilization, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(group, "best_step", &best, 1, err));
  if (run->best_step >= 0) {
    const dpbo_trace_step *b = &run->trace[run->best_step];
    DPBO_TRY(dpbo_h5io_attr_doubles(group, "best_gain", &b->gain, 1, err));
    DPBO_TRY(dpbo_h5io_attr_doubles(group, "best_lambda", b->value,
                                    (hsize_t)dpbo_space_dims(run->space), err));
  }
  /* The UCB state (ucb.h), the same figures on every rank. */
  char mode[96];
  DPBO_TRY(
      dpbo_h5io_attr_string(group, "ucb_mode", dpbo_run_ucb_mode(run, mode, sizeof mode), err));
  const int64_t memory[] = {(int64_t)run->state_bytes_max,
                            (int64_t)run->state_bytes_total,
                            (int64_t)run->incremental_bytes_max,
                            (int64_t)run->memory_limit_min,
                            run->recompute_ranks,
                            (int64_t)run->peak_rss_max,
                            (int64_t)run->peak_rss_total};
  static const char *const names[] = {
      "ucb_state_bytes_max_rank", "ucb_state_bytes_total", "ucb_incremental_bytes_max_rank",
      "ucb_memory_limit_bytes",   "ucb_recompute_ranks",   "peak_rss_bytes_max_rank",
      "peak_rss_bytes_total"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    DPBO_TRY(dpbo_h5io_attr_int64(group, names[i], &memory[i], 1, err));
done:
  if (group >= 0) H5Gclose(group);
  return status;
}

/* The part of the run file rank 0 writes before /posterior. */
static dpbo_status output_write_head(hid_t file, const dpbo_config *config, const dpbo_run *run,
                                     int nranks, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_TRY(output_write_root(file, config, run, nranks, err));
  DPBO_TRY(output_write_space(file, config, run->space, err));
  DPBO_TRY(output_write_trace(file, config, run, err));
done:
  return status;
}

/* The run file, collective over comm; `posterior` adds the block-distributed
 * /posterior. Rank 0 holds the file alone (MPI_COMM_SELF) and writes all of
 * it, the other ranks' posterior blocks arriving by message: a parallel
 * HDF5 file hung when the disk filled under one rank only, since HDF5 lets
 * that rank leave its own collective steps (a metadata flush, a chunk
 * fill) while the others wait inside them. Now a failed write fails rank
 * 0's part, which still takes every block in, and the outcome reaches every
 * rank in one agreement at the end. */
static dpbo_status output_write(MPI_Comm comm, const char *path, const dpbo_config *config,
                                const dpbo_run *run, int nranks, int posterior, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank;
  dpbo_h5io_file out = {.id = -1, .fd = -1};
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    local = dpbo_h5io_create(MPI_COMM_SELF, path, &out, err);
    if (local == DPBO_OK) local = output_write_head(out.id, config, run, nranks, err);
  }
  if (posterior) {
    dpbo_status got =
        output_write_posterior(comm, local == DPBO_OK ? out.id : -1, config, run, err);
    if (local == DPBO_OK) local = got;
  }
  if (rank == 0 && local == DPBO_OK) local = output_write_summary(out.id, run, err);
  if (rank == 0 && local == DPBO_OK) local = dpbo_h5io_commit(&out, err);
  if (rank == 0 && local != DPBO_OK) dpbo_h5io_discard(&out);
  status = dpbo_comm_agree(comm, local, err);
done:
  return status;
}

dpbo_status dpbo_output_write_run(MPI_Comm comm, const char *path, const dpbo_config *config,
                                  const dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int size;
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  status = output_write(comm, path, config, run, size,
                        dpbo_output_wants_posterior(config, dpbo_space_size(run->space)), err);
done:
  return status;
}

dpbo_status dpbo_output_write_checkpoint(const char *path, const dpbo_config *config,
                                         const dpbo_run *run, int nranks, dpbo_error *err) {
  return output_write(MPI_COMM_SELF, path, config, run, nranks, 0, err);
}

/* A run file's stored settings (messages name path); none at all is not a
 * run file. */
static dpbo_status output_read_stored(hid_t file, const char *path, dpbo_settings *stored,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_TRY(dpbo_output_read_settings(file, path, stored, err));
  if (stored->count == 0)
    DPBO_RAISE(DPBO_ERR_DATA, "%s holds no settings (config.* attributes): not a dpbo run file",
               path);
done:
  if (status != DPBO_OK) dpbo_settings_free(stored);
  return status;
}

dpbo_status dpbo_output_read_checkpoint(const char *path, dpbo_settings *stored, int *complete,
                                        dpbo_trace_step **steps, int *count, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t file = -1, group = -1;
  char *failures = NULL;
  int64_t *ibuf = NULL;
  dpbo_trace_step *trace = NULL;
  memset(stored, 0, sizeof *stored);
  *steps = NULL;
  *count = 0;
  DPBO_TRY(output_open_run_file(path, &file, err));
  DPBO_TRY(output_read_stored(file, path, stored, err));
  int64_t done_flag = 0;
  DPBO_TRY(dpbo_h5io_read_attr_int64(file, "complete", &done_flag, err));
  *complete = (int)done_flag;
  H5E_BEGIN_TRY { group = H5Gopen2(file, "trace", H5P_DEFAULT); }
  H5E_END_TRY;
  if (group < 0) DPBO_RAISE(DPBO_ERR_DATA, "%s has no /trace", path);
  hsize_t n = 0;
  DPBO_TRY(dpbo_h5io_shape(group, "index", 1, &n, err));
  DPBO_ALLOC(trace, n + 1, "the checkpoint's trace");
  DPBO_ALLOC(ibuf, n + 1, "the checkpoint's trace");
  if (n > 0) {
    const dpbo_h5io_columns columns = {sizeof *trace, trace_columns,
                                       sizeof trace_columns / sizeof trace_columns[0]};
    DPBO_TRY(dpbo_h5io_read_fields(group, trace, n, &columns, err));
    static const char *const ints[] = {"worker", "state", "attempts"};
    for (int c = 0; c < 3; c++) {
      char name[64];
      snprintf(name, sizeof name, "trace/%s", ints[c]);
      dpbo_status got = dpbo_h5io_read(file, name, H5T_NATIVE_INT64, ibuf, err);
      if (got == DPBO_ERR_DATA) { /* there, but corrupted: the message says so */
        status = got;
        goto done;
      }
      if (got != DPBO_OK && c == 2) {
        /* A published trace may hold no attempts (output_write_trace):
         * 0, not recorded. */
        for (hsize_t t = 0; t < n; t++)
          ibuf[t] = 0;
        got = DPBO_OK;
      }
      if (got != DPBO_OK)
        DPBO_RAISE(DPBO_ERR_DATA, "%s has no %s: written by a dpbo without checkpoints", path,
                   name);
      for (hsize_t t = 0; t < n; t++) {
        int *member = c == 0 ? &trace[t].worker : c == 1 ? &trace[t].state : &trace[t].attempts;
        *member = (int)ibuf[t];
      }
    }
    DPBO_TRY(dpbo_h5io_read_attr_string(group, "failures", &failures, err));
    for (char *line = failures; line && *line;) {
      char *end = strchr(line, '\n'), *tab = strchr(line, '\t');
      if (end) *end = '\0';
      long t = strtol(line, NULL, 10);
      if (tab && t >= 1 && t <= (long)n)
        snprintf(trace[t - 1].failure, sizeof trace[t - 1].failure, "%s", tab + 1);
      line = end ? end + 1 : NULL;
    }
  }
  for (hsize_t t = 0; t < n; t++)
    if (trace[t].state < DPBO_STEP_DONE || trace[t].state > DPBO_STEP_PENDING)
      DPBO_RAISE(DPBO_ERR_DATA, "%s: trace step %llu has an unknown state %d", path,
                 (unsigned long long)t + 1, trace[t].state);
  *steps = trace;
  *count = (int)n;
  trace = NULL;
done:
  if (status != DPBO_OK) dpbo_settings_free(stored);
  free(trace);
  free(ibuf);
  free(failures);
  if (group >= 0) H5Gclose(group);
  if (file >= 0) H5Fclose(file);
  return status;
}

/* ---------------------------------------------------------------------------
 * dpbo info */

static herr_t output_print_attr(hid_t loc, const char *name, const H5A_info_t *info, void *data) {
  hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
  hid_t type = H5Aget_type(attr), space = H5Aget_space(attr);
  hssize_t n = H5Sget_simple_extent_npoints(space);
  printf("  %s = ", name);
  if (H5Tget_class(type) == H5T_STRING) {
    size_t len = H5Tget_size(type);
    char *text = calloc(len + 1, 1);
    if (text && H5Aread(attr, type, text) >= 0) printf("%s", text);
    free(text);
  } else if (H5Tget_class(type) == H5T_INTEGER) {
    int64_t *v = calloc((size_t)n, sizeof *v);
    if (v && H5Aread(attr, H5T_NATIVE_INT64, v) >= 0)
      for (hssize_t i = 0; i < n; i++)
        printf("%s%lld", i ? ", " : "", (long long)v[i]);
    free(v);
  } else {
    double *v = calloc((size_t)n, sizeof *v);
    if (v && H5Aread(attr, H5T_NATIVE_DOUBLE, v) >= 0)
      for (hssize_t i = 0; i < n; i++)
        printf("%s%.10g", i ? ", " : "", v[i]);
    free(v);
  }
  printf("\n");
  H5Sclose(space);
  H5Tclose(type);
  H5Aclose(attr);
  return 0;
}

dpbo_status dpbo_output_print_info(const char *path, int trace, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t file = -1, dset = -1, space = -1;
  double *gain = NULL, *lambda = NULL, *mean = NULL, *std = NULL;
  int64_t *index = NULL;
  DPBO_TRY(output_open_run_file(path, &file, err));
  printf("%s\n", path);
  H5Aiterate2(file, H5_INDEX_NAME, H5_ITER_INC, NULL, output_print_attr, NULL);
  static const char *const groups[] = {"space", "summary"};
  for (int g = 0; g < 2; g++) {
    hid_t group = -1;
    H5E_BEGIN_TRY { group = H5Gopen2(file, groups[g], H5P_DEFAULT); }
    H5E_END_TRY;
    if (group < 0) continue;
    printf("/%s\n", groups[g]);
    H5Aiterate2(group, H5_INDEX_NAME, H5_ITER_INC, NULL, output_print_attr, NULL);
    H5Gclose(group);
  }
  if (trace) {
    H5E_BEGIN_TRY { dset = H5Dopen2(file, "trace/lambda", H5P_DEFAULT); }
    H5E_END_TRY;
    if (dset < 0) DPBO_RAISE(DPBO_ERR_HDF5, "%s has no /trace", path);
    space = H5Dget_space(dset);
    hsize_t dims[2] = {0, 0};
    H5Sget_simple_extent_dims(space, dims, NULL);
    DPBO_ALLOC(lambda, dims[0] * dims[1] + 1, "trace");
    DPBO_ALLOC(gain, dims[0] + 1, "trace");
    DPBO_ALLOC(mean, dims[0] + 1, "trace");
    DPBO_ALLOC(std, dims[0] + 1, "trace");
    DPBO_ALLOC(index, dims[0] + 1, "trace");
    if (dims[0] > 0) {
      DPBO_TRY(dpbo_h5io_read(file, "trace/lambda", H5T_NATIVE_DOUBLE, lambda, err));
      DPBO_TRY(dpbo_h5io_read(file, "trace/gain", H5T_NATIVE_DOUBLE, gain, err));
      DPBO_TRY(dpbo_h5io_read(file, "trace/mean", H5T_NATIVE_DOUBLE, mean, err));
      DPBO_TRY(dpbo_h5io_read(file, "trace/std", H5T_NATIVE_DOUBLE, std, err));
      DPBO_TRY(dpbo_h5io_read(file, "trace/index", H5T_NATIVE_INT64, index, err));
    }
    printf("/trace (t index lambda... gain mean std)\n");
    for (hsize_t t = 0; t < dims[0]; t++) {
      printf("%llu %lld", (unsigned long long)t + 1, (long long)index[t]);
      for (hsize_t j = 0; j < dims[1]; j++)
        printf(" %.17g", lambda[t * dims[1] + j]);
      printf(" %.17g %.17g %.17g\n", gain[t], mean[t], std[t]);
    }
  }
done:
  free(gain);
  free(lambda);
  free(mean);
  free(std);
  free(index);
  if (space >= 0) H5Sclose(space);
  if (dset >= 0) H5Dclose(dset);
  if (file >= 0) H5Fclose(file);
  return status;
}

/* ---------------------------------------------------------------------------
 * dpbo release: reading a run back, and the budget ledger. */

dpbo_status dpbo_output_read_candidates(const char *path, int64_t **candidates, int *count,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t file = -1, group = -1, dset = -1;
  *candidates = NULL;
  *count = 0;
  DPBO_TRY(output_open_run_file(path, &file, err));
  H5E_BEGIN_TRY {
    group = H5Gopen2(file, "trace", H5P_DEFAULT);
    if (group >= 0) dset = H5Dopen2(group, DPBO_OUTPUT_CANDIDATES, H5P_DEFAULT);
  }
  H5E_END_TRY;
  if (dset < 0) goto done; /* written before issue #22: none stored */
  hsize_t n = 0;
  DPBO_TRY(dpbo_h5io_shape(group, DPBO_OUTPUT_CANDIDATES, 1, &n, err));
  if (n < 1 || n > 100000000u)
    DPBO_RAISE(DPBO_ERR_DATA, "%s: /trace/%s holds %llu entries", path, DPBO_OUTPUT_CANDIDATES,
               (unsigned long long)n);
  DPBO_ALLOC(*candidates, n, "the stored candidates");
  DPBO_TRY(dpbo_h5io_read(group, DPBO_OUTPUT_CANDIDATES, H5T_NATIVE_INT64, *candidates, err));
  *count = (int)n;
done:
  if (dset >= 0) H5Dclose(dset);
  if (group >= 0) H5Gclose(group);
  if (file >= 0) H5Fclose(file);
  if (status != DPBO_OK) {
    free(*candidates);
    *candidates = NULL;
    *count = 0;
  }
  return status;
}

dpbo_status dpbo_output_read_trace(const char *path, dpbo_settings *stored, int *complete,
                                   int *steps, int64_t **index, double **gain, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t file = -1, dset = -1, space = -1;
  memset(stored, 0, sizeof *stored);
  *index = NULL;
  *gain = NULL;
  *steps = 0;
  DPBO_TRY(output_open_run_file(path, &file, err));
  DPBO_TRY(output_read_stored(file, path, stored, err));
  int64_t done_flag = 0;
  DPBO_TRY(dpbo_h5io_read_attr_int64(file, "complete", &done_flag, err));
  *complete = (int)done_flag;
  H5E_BEGIN_TRY { dset = H5Dopen2(file, "trace/index", H5P_DEFAULT); }
  H5E_END_TRY;
  if (dset < 0) DPBO_RAISE(DPBO_ERR_DATA, "%s has no /trace/index", path);
  space = H5Dget_space(dset);
  hsize_t n = 0;
  H5Sget_simple_extent_dims(space, &n, NULL);
  DPBO_ALLOC(*index, n + 1, "trace indices");
  DPBO_ALLOC(*gain, n + 1, "trace gains");
  if (n > 0) {
    DPBO_TRY(dpbo_h5io_read(file, "trace/index", H5T_NATIVE_INT64, *index, err));
    DPBO_TRY(dpbo_h5io_read(file, "trace/gain", H5T_NATIVE_DOUBLE, *gain, err));
  }
  *steps = (int)n;
done:
  if (space >= 0) H5Sclose(space);
  if (dset >= 0) H5Dclose(dset);
  if (file >= 0) H5Fclose(file);
  if (status != DPBO_OK) {
    dpbo_settings_free(stored);
    free(*index);
    free(*gain);
    *index = NULL;
    *gain = NULL;
  }
  return status;
}

dpbo_status dpbo_output_read_beta(const char *path, int steps, double *beta, double *delta,
                                  dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t file = -1, group = -1;
  DPBO_TRY(output_open_run_file(path, &file, err));
  group = H5Gopen2(file, "trace", H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_DATA, "%s has no /trace", path);
  if (dpbo_h5io_read_attr_double(group, "delta", delta, err) != DPBO_OK)
    DPBO_RAISE(DPBO_ERR_DATA, "%s: /trace has no delta attribute (the delta of beta_t)", path);
  if (steps > 0) DPBO_TRY(dpbo_h5io_read(file, "trace/beta", H5T_NATIVE_DOUBLE, beta, err));
done:
  if (group >= 0) H5Gclose(group);
  if (file >= 0) H5Fclose(file);
  return status;
}

/* The ledger's attributes on / (name, member of dpbo_privacy_ledger). */
typedef struct ledger_attr {
  const char *name;
  size_t offset;
} ledger_attr;

static const ledger_attr ledger_sums[] = {
    {"release_epsilon_spent", offsetof(dpbo_privacy_ledger, epsilon_sum)},
    {"release_delta_spent", offsetof(dpbo_privacy_ledger, delta_sum)},
    {"release_epsilon_squared_sum", offsetof(dpbo_privacy_ledger, epsilon_sq_sum)},
    {"release_epsilon_tanh_sum", offsetof(dpbo_privacy_ledger, epsilon_tanh_sum)}};

/* Reads a scalar attribute of / if present: 1 when read, 0 when missing. */
static dpbo_status output_ledger_read(hid_t file, const char *name, hid_t type, void *value,
                                      int *present, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t attr = -1;
  htri_t exists = H5Aexists(file, name);
  if (exists < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot query attribute %s", name);
  *present = exists > 0;
  if (!exists) goto done;
  attr = H5Aopen(file, name, H5P_DEFAULT);
  if (attr < 0 || H5Aread(attr, type, value) < 0)
    DPBO_RAISE(DPBO_ERR_HDF5, "cannot read attribute %s", name);
done:
  if (attr >= 0) H5Aclose(attr);
  return status;
}

/* Writes a scalar attribute of /, replacing an existing one. */
static dpbo_status output_ledger_write(hid_t file, const char *name, hid_t type, const void *value,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  htri_t exists = H5Aexists(file, name);
  if (exists < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot query attribute %s", name);
  if (exists > 0 && H5Adelete(file, name) < 0)
    DPBO_RAISE(DPBO_ERR_HDF5, "cannot replace attribute %s", name);
  DPBO_TRY(dpbo_h5io_attr_numbers(file, name, type, value, 1, err));
done:
  return status;
}

static dpbo_status output_ledger_load(hid_t file, dpbo_privacy_ledger *ledger, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int present;
  memset(ledger, 0, sizeof *ledger);
  DPBO_TRY(
      output_ledger_read(file, "releases_drawn", H5T_NATIVE_INT64, &ledger->draws, &present, err));
  for (size_t i = 0; i < sizeof ledger_sums / sizeof ledger_sums[0]; i++) {
    double *sum = (double *)((char *)ledger + ledger_sums[i].offset);
    DPBO_TRY(output_ledger_read(file, ledger_sums[i].name, H5T_NATIVE_DOUBLE, sum, &present, err));
    /* A ledger begun by an older dpbo lacks the sums of advanced
     * composition: unknown, never zero. */
    if (!present && ledger->draws > 0) *sum = NAN;
  }
done:
  return status;
}

dpbo_status dpbo_output_read_ledger(const char *path, dpbo_privacy_ledger *ledger,
                                    dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t file = -1;
  DPBO_TRY(output_open_run_file(path, &file, err));
  DPBO_TRY(output_ledger_load(file, ledger, err));
done:
  if (file >= 0) H5Fclose(file);
  return status;
}

/* The mark of the ledger file (run/ledger.h) on /: which ledger file holds
 * the in-file totals up to which draw, and under which run file path. */
static const char *const output_mark_strings[] = {"ledger_file", "ledger_runfile"};

dpbo_status dpbo_output_read_ledger_mark(const char *path, dpbo_privacy_ledger *ledger,
                                         dpbo_output_ledger_mark *mark, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t file = -1;
  char *text = NULL;
  int present = 0;
  memset(mark, 0, sizeof *mark);
  DPBO_TRY(output_open_run_file(path, &file, err));
  DPBO_TRY(output_ledger_load(file, ledger, err));
  DPBO_TRY(output_ledger_read(file, "ledger_synced_draws", H5T_NATIVE_INT64, &mark->draws, &present,
                              err));
  if (!present) goto done;
  DPBO_TRY(output_ledger_read(file, "ledger_synced_epsilon", H5T_NATIVE_DOUBLE, &mark->epsilon,
                              &present, err));
  DPBO_TRY(output_ledger_read(file, "ledger_synced_delta", H5T_NATIVE_DOUBLE, &mark->delta,
                              &present, err));
  for (int i = 0; i < 2; i++) {
    DPBO_TRY(dpbo_h5io_read_attr_string(file, output_mark_strings[i], &text, err));
    snprintf(i ? mark->runfile : mark->ledger, sizeof mark->ledger, "%s", text);
    free(text);
    text = NULL;
  }
  mark->present = 1;
done:
  free(text);
  if (file >= 0) H5Fclose(file);
  return status;
}

dpbo_status dpbo_output_sync_ledger(const char *path, int add, dpbo_privacy_cost cost,
                                    const char *ledger_file, const char *runfile,
                                    dpbo_privacy_ledger *after, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_h5io_file out;
  DPBO_TRY(dpbo_h5io_modify(path, &out, err));
  DPBO_TRY(output_ledger_load(out.id, after, err));
  if (add) {
    dpbo_privacy_ledger_add(after, cost.epsilon, cost.delta);
    DPBO_TRY(output_ledger_write(out.id, "releases_drawn", H5T_NATIVE_INT64, &after->draws, err));
    for (size_t i = 0; i < sizeof ledger_sums / sizeof ledger_sums[0]; i++)
      DPBO_TRY(output_ledger_write(out.id, ledger_sums[i].name, H5T_NATIVE_DOUBLE,
                                   (const char *)after + ledger_sums[i].offset, err));
  }
  DPBO_TRY(
      output_ledger_write(out.id, "ledger_synced_draws", H5T_NATIVE_INT64, &after->draws, err));
  DPBO_TRY(output_ledger_write(out.id, "ledger_synced_epsilon", H5T_NATIVE_DOUBLE,
                               &after->epsilon_sum, err));
  DPBO_TRY(output_ledger_write(out.id, "ledger_synced_delta", H5T_NATIVE_DOUBLE, &after->delta_sum,
                               err));
  const char *values[] = {ledger_file, runfile};
  for (int i = 0; i < 2; i++) {
    htri_t exists = H5Aexists(out.id, output_mark_strings[i]);
    if (exists > 0 && H5Adelete(out.id, output_mark_strings[i]) < 0)
      DPBO_RAISE(DPBO_ERR_HDF5, "cannot replace attribute %s", output_mark_strings[i]);
    DPBO_TRY(dpbo_h5io_attr_string(out.id, output_mark_strings[i], values[i], err));
  }
  DPBO_TRY(dpbo_h5io_commit(&out, err));
done:
  if (status != DPBO_OK) dpbo_h5io_discard(&out);
  return status;
}

/* ---------------------------------------------------------------------------
 * Settings and spaces as attributes (shared with the k1 sweep and compare). */

dpbo_status dpbo_output_write_settings(hid_t obj, const dpbo_settings *settings, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  for (int i = 0; i < settings->count; i++) {
    char name[256];
    snprintf(name, sizeof name, "config.%s.%s", settings->entry[i].section, settings->entry[i].key);
    DPBO_TRY(dpbo_h5io_attr_string(obj, name, settings->entry[i].value, err));
  }
  /* The defaults taken, so that the file alone tells every key's value. */
  for (int i = 0; i < settings->default_count; i++) {
    char name[256];
    snprintf(name, sizeof name, "default.%s.%s", settings->defaults[i].section,
             settings->defaults[i].key);
    DPBO_TRY(dpbo_h5io_attr_string(obj, name, settings->defaults[i].value, err));
  }
done:
  return status;
}

/* One attribute <prefix><section>.<key> as one (section, key, value)
 * triple: the name is split at its first '.' (a section name holds none)
 * and the value is taken whole, never re-parsed, so no value can set
 * another key. dpbo_settings_set checks the names and the value. */
static dpbo_status output_stored_setting(void *user, const char *name, const char *value,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_settings *stored = user;
  char section[DPBO_SETTINGS_SECTION_MAX];
  const char *dot = strchr(name, '.');
  if (!dot || dot == name || !dot[1] || (size_t)(dot - name) >= sizeof section)
    DPBO_RAISE(DPBO_ERR_DATA,
               "%s: the stored setting attribute '%.100s' is not <section>.<key> after its prefix",
               stored->path, name);
  snprintf(section, sizeof section, "%.*s", (int)(dot - name), name);
  DPBO_TRY(dpbo_settings_set(stored, section, dot + 1, value, err));
done:
  return status;
}

static dpbo_status output_read_prefixed(hid_t obj, const char *prefix, const char *label,
                                        dpbo_settings *stored, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(stored, 0, sizeof *stored);
  snprintf(stored->path, sizeof stored->path, "%s", label);
  DPBO_TRY(dpbo_h5io_visit_attr_strings(obj, prefix, output_stored_setting, stored, err));
done:
  if (status != DPBO_OK) dpbo_settings_free(stored);
  return status;
}

dpbo_status dpbo_output_read_settings(hid_t obj, const char *label, dpbo_settings *stored,
                                      dpbo_error *err) {
  return output_read_prefixed(obj, "config.", label, stored, err);
}

dpbo_status dpbo_output_read_defaults(hid_t obj, const char *label, dpbo_settings *taken,
                                      dpbo_error *err) {
  return output_read_prefixed(obj, "default.", label, taken, err);
}

dpbo_status dpbo_output_write_dims(hid_t obj, int d, const dpbo_dim *dims, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char names[DPBO_MAX_DIM * (DPBO_NAME_MAX + 1)] = "", scales[DPBO_MAX_DIM * 8] = "";
  char kinds[DPBO_MAX_DIM * 16] = "", categories[DPBO_MAX_DIM * (DPBO_CATEGORY_TEXT + 1)] = "";
  double lo[DPBO_MAX_DIM], hi[DPBO_MAX_DIM];
  for (int i = 0; i < d; i++) {
    strcat(names, i ? "," : "");
    strcat(names, dims[i].name);
    strcat(scales, i ? "," : "");
    strcat(scales, dpbo_scale_name(dims[i].scale));
    strcat(kinds, i ? "," : "");
    strcat(kinds, dpbo_dim_kind_name(&dims[i]));
    /* One line per dimension: its category names, comma-separated (the
     * index stored in /trace/lambda is a position in this list). */
    strcat(categories, i ? "\n" : "");
    for (int k = 0; k < dims[i].categories && dims[i].type == DPBO_DIM_CATEGORICAL; k++) {
      strcat(categories, k ? "," : "");
      strcat(categories, dpbo_dim_category(&dims[i], k));
    }
    lo[i] = dims[i].lo;
    hi[i] = dims[i].hi;
  }
  DPBO_TRY(dpbo_h5io_attr_string(obj, "names", names, err));
  DPBO_TRY(dpbo_h5io_attr_string(obj, "scale", scales, err));
  DPBO_TRY(dpbo_h5io_attr_string(obj, "dim_kind", kinds, err));
  DPBO_TRY(dpbo_h5io_attr_string(obj, "categories", categories, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(obj, "lower", lo, (hsize_t)d, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(obj, "upper", hi, (hsize_t)d, err));
done:
  return status;
}
