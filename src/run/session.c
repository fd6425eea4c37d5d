#include "run/session.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/comm.h"
#include "base/log.h"
#include "base/proc.h"
#include "base/settings.h"
#include "dpbo/ucb.h"
#include "run/algorithm.h"
#include "run/driver.h"
#include "run/output.h"
#include "run/private_evals.h"
#include "run/publish.h"

/* The configured noise source of a release: seeded (stream = rank) or the
 * operating system's. */
void dpbo_session_noise(dpbo_noise *noise, const dpbo_config *config, int rank) {
  if (config->noise == DPBO_NOISE_SEEDED)
    dpbo_noise_init_seeded(noise, config->noise_seed, (uint64_t)rank);
  else
    dpbo_noise_init_os(noise);
}

/* Logs the run's cumulative spend after a release. */
void dpbo_session_log_ledger(const dpbo_release *release) {
  /* Advanced composition needs a slack δ > 0 (the run's privacy.delta); a
   * pure method run with δ = 0 has only the basic totals. */
  char advanced[128] = "";
  if (isfinite(release->ledger_epsilon_advanced))
    snprintf(advanced, sizeof advanced, "; advanced composition: epsilon = %.4g, delta = %.3g",
             release->ledger_epsilon_advanced, release->ledger_delta_advanced);
  dpbo_log_info("this draw spent epsilon = %.4g, delta = %.3g. Every draw spends budget: the %lld "
                "release%s on this validation set (every run file of the ledger) ha%s spent "
                "epsilon = %.4g, delta = %.3g in all (basic composition%s)%s",
                release->epsilon_total, release->delta_total, (long long)release->ledger.draws,
                release->ledger.draws == 1 ? "" : "s", release->ledger.draws == 1 ? "s" : "ve",
                release->ledger.epsilon_sum, release->ledger.delta_sum, advanced,
                isnan(release->budget_epsilon) ? "" : "; privacy.budget caps the basic totals");
  if (!isnan(release->budget_epsilon))
    dpbo_log_info("privacy.budget = %.4g %.3g: %.4g of epsilon and %.3g of delta remain",
                  release->budget_epsilon, release->budget_delta,
                  fmax(0.0, release->budget_epsilon - release->ledger.epsilon_sum),
                  fmax(0.0, release->budget_delta - release->ledger.delta_sum));
}

/* Draws the configured private release from a finished run and writes the
 * release file pair next to the run file, through the release transaction
 * (run/publish.h: targets checked, draw, ledger, files). */
static dpbo_status session_release_after_run(MPI_Comm comm, int rank, const dpbo_config *config,
                                             const dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_noise noise;
  dpbo_release *release = calloc(1, sizeof *release);
  if (!release) DPBO_RAISE(DPBO_ERR_NOMEM, "out of memory for the release");
  dpbo_session_noise(&noise, config, rank);
  char h5[DPBO_PATH_MAX + 300], json[DPBO_PATH_MAX + 300], runfile[DPBO_PATH_MAX + 300],
      base[DPBO_PATH_MAX + 300];
  dpbo_release_base(config, base, sizeof base);
  dpbo_config_run_path(config, runfile, sizeof runfile);
  const dpbo_release_files files = {runfile, base, h5, json, sizeof h5};
  DPBO_TRY(dpbo_release_publish(comm, config, run, &noise, &files, release, err));
  if (rank == 0) {
    dpbo_release_log(release, run);
    dpbo_log_info("release files: %s, %s (safe to publish%s)", h5, json,
                  release->reproducible ? " ONLY IF drawn with noise = os; this one is seeded"
                                        : "");
    dpbo_session_log_ledger(release);
  }
done:
  free(release);
  return status;
}

/* The run file first: a release is drawn from a run whose record is on disk,
 * so its ledger has a file to live in. */
dpbo_status dpbo_session_publish(MPI_Comm comm, const dpbo_config *config, dpbo_run *run,
                                 const char *path, dpbo_session_end *end, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int rank = 0;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(config->algorithm);
  *end = DPBO_SESSION_PUBLISHED;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  if (dpbo_proc_launcher_lost()) { /* about to be ended: write nothing */
    *end = DPBO_SESSION_ABANDONED;
    goto done;
  }
  if (run->outcome == DPBO_ERR_HDF5) {
    /* The checkpoint could not be written (a full disk; the driver logged
     * why, with the file and errno). The last checkpoint on disk is whole;
     * writing the run file again would fail the same way. */
    *end = DPBO_SESSION_NO_CHECKPOINT;
    goto done;
  }
  if (run->steps > 0 || run->outcome == DPBO_OK) {
    status = dpbo_output_write_run(comm, path, config, run, err);
    if (status != DPBO_OK) {
      *end = DPBO_SESSION_NOT_WRITTEN;
      goto done;
    }
  }
  if (run->outcome == DPBO_OK && run->finished > 0 && run->failures == run->finished) {
    /* Nothing was learnt: the objective is broken, not the data private. A
     * release would only restate the prior, so none is made. */
    *end = DPBO_SESSION_ALL_FAILED;
    goto done;
  }
  if (ops->private_evaluations && (run->outcome == DPBO_OK || run->evaluations_exhausted) &&
      run->finished > run->failures) {
    /* Post-processing of the noisy trace (also when K ran out early). */
    DPBO_TRY(dpbo_ucb_drop_rows(run->ucb, err));
    DPBO_TRY(dpbo_private_evals_after_run(comm, config, run, path, err));
  } else if (ops->private_release && run->outcome == DPBO_OK) {
    /* The release needs μ_T only, and γ_T (Algorithm 1) builds a UCB state
     * of its own: the run's rows go first, so the peak is one state, not two. */
    DPBO_TRY(dpbo_ucb_drop_rows(run->ucb, err));
    DPBO_TRY(session_release_after_run(comm, rank, config, run, err));
  }
done:
  return status;
}

/* The row picks the path: a run hook makes, writes and releases its run
 * itself (guided's two stages); every other run is the driver's, published
 * here once it finished. */
dpbo_status dpbo_session_run(MPI_Comm comm, const dpbo_config *config,
                             const dpbo_driver_options *options, dpbo_run *run,
                             dpbo_session_end *end, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(config->algorithm);
  *end = DPBO_SESSION_PUBLISHED;
  if (ops->run) {
    int interrupted = 0;
    DPBO_TRY(ops->run(comm, config, options, &interrupted, err));
    *end = interrupted ? DPBO_SESSION_INTERRUPTED : DPBO_SESSION_HOOK_PUBLISHED;
    goto done;
  }
  DPBO_TRY(dpbo_driver_run(comm, config, options, run, err));
  if (run->interrupted)
    *end = DPBO_SESSION_INTERRUPTED;
  else
    status = dpbo_session_publish(comm, config, run, options->checkpoint, end, err);
done:
  return status;
}

/* A finished run, rebuilt on every rank (collective): rank 0 reads the
 * settings and the trace of `runfile`, every rank gets them, applies the
 * overrides (with `redraw`, only those dpbo_release_check_overrides allows
 * for the stored run) and replays the trace (the posterior is rebuilt, nothing is
 * evaluated again). A run that did not complete is refused with `why`. */
dpbo_status dpbo_session_load_run(MPI_Comm comm, const dpbo_session_load *load, dpbo_config *config,
                                  dpbo_run *run, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const char *runfile = load->runfile, *why = load->why;
  const int override_count = load->override_count, redraw = load->redraw;
  const char *const *overrides = load->overrides;
  int rank = 0;
  dpbo_settings stored;
  memset(&stored, 0, sizeof stored);
  char *packed = NULL;
  size_t packed_size = 0;
  int64_t *index = NULL;
  double *gain = NULL;
  int complete = 0, steps = 0;
  long long text_len = 0;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  if (rank == 0) {
    local = dpbo_output_read_trace(runfile, &stored, &complete, &steps, &index, &gain, err);
    /* The stored settings travel as (section, key, value) triples, never
     * as text a value could break (dpbo_settings_pack). */
    if (local == DPBO_OK) local = dpbo_settings_pack(&stored, &packed, &packed_size, err);
    if (local == DPBO_OK) text_len = (long long)packed_size;
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Bcast(&text_len, 1, MPI_LONG_LONG, 0, comm));
  DPBO_MPI_TRY(MPI_Bcast(&steps, 1, MPI_INT, 0, comm));
  DPBO_MPI_TRY(MPI_Bcast(&complete, 1, MPI_INT, 0, comm));
  if (rank != 0) {
    packed = malloc((size_t)text_len + 1);
    index = malloc(sizeof *index * (size_t)(steps + 1));
    gain = malloc(sizeof *gain * (size_t)(steps + 1));
    if (!packed || !index || !gain)
      local = DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory for the stored run %s", runfile);
  }
  /* A rank without the buffers must not leave the broadcasts below alone:
   * every rank learns of it here and all return together. */
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Bcast(packed, (int)text_len, MPI_CHAR, 0, comm));
  DPBO_MPI_TRY(MPI_Bcast(index, steps, MPI_INT64_T, 0, comm));
  DPBO_MPI_TRY(MPI_Bcast(gain, steps, MPI_DOUBLE, 0, comm));
  if (rank != 0) local = dpbo_settings_unpack(&stored, runfile, packed, (size_t)text_len, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  if (redraw) {
    /* A redraw may change only what the guarantee does not fix before the
     * data is seen; which depends on the run's own algorithm. */
    DPBO_TRY(dpbo_config_load_stored(runfile, &stored, 0, NULL, config, err));
    DPBO_TRY(dpbo_release_check_overrides(config, override_count, overrides, err));
    dpbo_config_free(config);
  }
  DPBO_TRY(dpbo_config_load_stored(runfile, &stored, override_count, overrides, config, err));
  /* A guided run file's /trace is stage 2's K secret runs (stage 1 is in
   * /guided): no replay of it is defined, and "k of T done" would state K. */
  if (dpbo_algorithm_ops_get(config->algorithm)->guided_selection)
    DPBO_RAISE(DPBO_ERR_ARG,
               "%s is a run of privacy.algorithm = guided, which is not rebuilt from its run file: "
               "its utility (dpbo utility) is not defined yet, and a redraw needs a fresh stage 2",
               runfile);
  /* A stopping method's run makes its secret K evaluations, not T. */
  const int stopping = dpbo_algorithm_ops_get(config->algorithm)->stopping;
  if (!complete || (steps != config->iterations && !stopping))
    DPBO_RAISE(DPBO_ERR_ARG, "%s did not complete its %d iterations (%d done): %s", runfile,
               config->iterations, steps, why);
  DPBO_TRY(dpbo_run_replay(comm, config, steps, index, gain, run, err));
done:
  dpbo_settings_free(&stored);
  free(packed);
  free(index);
  free(gain);
  return status;
}

/* `dpbo run --resume` on a complete run file: the run is done, but its
 * release may not be, when dpbo stopped after the run file was complete
 * (issue #27 item 6). What the ledger and the release files say decides
 * (run/publish.h): both files there, nothing to do; never drawn (the ledger
 * counts nothing and no file is there), it is drawn now, with the settings
 * stored in the run file, and charged then, for the first time; a ledger
 * that counts a release whose files are missing (a stop between the ledger
 * and the files) spent that draw already: it is said (*lost set on every
 * rank, an error), and not drawn again. Collective. */
dpbo_status dpbo_session_publish_resumed(MPI_Comm comm, const dpbo_config *config, const char *path,
                                         int *lost, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank = 0;
  int state = DPBO_PUBLISH_WRITTEN;
  dpbo_config *stored = NULL;
  dpbo_run run;
  memset(&run, 0, sizeof run);
  *lost = 0;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  char h5[DPBO_PATH_MAX + 300], json[DPBO_PATH_MAX + 300];
  dpbo_release_paths(config, h5, json, sizeof h5);
  if (rank == 0 && dpbo_algorithm_ops_get(config->algorithm)->private_release) {
    dpbo_publish_state got = DPBO_PUBLISH_WRITTEN;
    dpbo_privacy_ledger ledger;
    local = dpbo_publish_check(path, h5, json, &got, &ledger, err);
    state = (int)got;
    const char *missing = access(h5, F_OK) != 0 ? h5 : json, *there = missing == h5 ? json : h5;
    if (local == DPBO_OK && got == DPBO_PUBLISH_LOST)
      local = DPBO_ERROR_SET(
          err, DPBO_ERR_IO,
          "%s is complete and its ledger counts %lld release%s (epsilon = %.4g in all), but the "
          "release file %s is missing: dpbo stopped after the ledger was charged and before the "
          "release files were written, or the file was moved. That draw is spent and is not "
          "drawn again; `dpbo release %s` draws a new release (and spends budget again)",
          path, (long long)ledger.draws, ledger.draws == 1 ? "" : "s", ledger.epsilon_sum, missing,
          path);
    else if (local == DPBO_OK && got == DPBO_PUBLISH_UNCOUNTED)
      local = DPBO_ERROR_SET(err, DPBO_ERR_DATA,
                             "%s is complete and its release %s exists, but its ledger counts no "
                             "release: the run file was replaced by an older copy, so its ledger "
                             "misses what was spent; nothing was drawn",
                             path, there);
  }
  DPBO_MPI_TRY(MPI_Bcast(&state, 1, MPI_INT, 0, comm));
  *lost = state == DPBO_PUBLISH_LOST;
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  if (state == DPBO_PUBLISH_WRITTEN) {
    if (rank == 0) dpbo_log_info("%s is complete already: nothing to resume", path);
    goto done;
  }
  /* Never drawn: the run's own settings, as stored, decide the release. */
  DPBO_ALLOC(stored, 1, "the stored settings");
  const dpbo_session_load load = {path, 0, NULL, 0, "no release is drawn"};
  DPBO_TRY(dpbo_session_load_run(comm, &load, stored, &run, err));
  /* The files go next to this run file, whatever name it was written under. */
  snprintf(stored->output_dir, sizeof stored->output_dir, "%s", config->output_dir);
  snprintf(stored->output_name, sizeof stored->output_name, "%s", config->output_name);
  int failed = 0;
  for (int t = 0; t < run.steps; t++)
    failed += run.trace[t].state == DPBO_STEP_FAILED;
  if (failed == run.steps) { /* as `dpbo run`: no release of a run that learnt nothing */
    if (rank == 0)
      dpbo_log_info("%s is complete already (every evaluation failed, so it has no release): "
                    "nothing to resume",
                    path);
    goto done;
  }
  if (rank == 0)
    dpbo_log_info("%s is complete, but its release was never drawn: dpbo stopped after the run "
                  "file was complete and before the release was charged, so nothing was spent on "
                  "it; drawing it now with the settings stored in the run file",
                  path);
  DPBO_TRY(dpbo_ucb_drop_rows(run.ucb, err));
  if (dpbo_algorithm_ops_get(stored->algorithm)->private_evaluations) {
    DPBO_TRY(dpbo_private_evals_resume(comm, path, &run, err)); /* the charged count */
    DPBO_TRY(dpbo_private_evals_after_run(comm, stored, &run, path, err));
  } else {
    DPBO_TRY(session_release_after_run(comm, rank, stored, &run, err));
  }
done:
  dpbo_run_free(&run);
  dpbo_config_free(stored);
  free(stored);
  return status;
}
