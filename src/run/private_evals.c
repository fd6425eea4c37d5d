/* GP-UCB on privatized evaluations (private_evals.h). */
#include "run/private_evals.h"

#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/comm.h"
#include "run/algorithm.h"
#include "base/h5io.h"
#include "base/log.h"
#include "dpbo/accountant.h"
#include "dpbo/mechanism.h"
#include "dpbo/ucb.h"
#include "run/ledger.h"
#include "run/output.h"
#include "run/publish.h"
#include "run/release.h"

struct dpbo_private_evals {
  dpbo_noise_kind kind;
  uint64_t seed;
  dpbo_noise noise; /* OS noise, shared by this rank's draws */
  double sensitivity, sigma;
  int64_t max_evaluations;
  int steps;
  int64_t *draw; /* per step (0-based): the draw number of its latest dispatch */
};

dpbo_status dpbo_private_evals_create(const dpbo_config *config, dpbo_private_evals **out,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_private_evals *pe = NULL;
  *out = NULL;
  if (!dpbo_algorithm_ops_get(config->algorithm)->private_evaluations) goto done;
  DPBO_ALLOC(pe, 1, "the privatized evaluations");
  DPBO_ALLOC(pe->draw, config->iterations, "the privatized evaluations");
  pe->steps = config->iterations;
  pe->kind = config->noise;
  pe->seed = config->noise_seed;
  pe->sensitivity = config->evals.sensitivity;
  pe->sigma = config->evals.sigma;
  pe->max_evaluations = config->evals.max_evaluations;
  if (pe->kind == DPBO_NOISE_OS) dpbo_noise_init_os(&pe->noise);
  *out = pe;
  pe = NULL;
done:
  dpbo_private_evals_destroy(pe);
  return status;
}

void dpbo_private_evals_destroy(dpbo_private_evals *pe) {
  if (!pe) return;
  free(pe->draw);
  free(pe);
}

int dpbo_private_evals_can_charge(const dpbo_private_evals *pe, const dpbo_run *run) {
  return run->evaluations_charged < pe->max_evaluations;
}

dpbo_status dpbo_private_evals_charge(dpbo_private_evals *pe, const char *checkpoint,
                                      const dpbo_config *config, dpbo_run *run, int nranks,
                                      int64_t *draw, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!dpbo_private_evals_can_charge(pe, run))
    DPBO_RAISE(DPBO_ERR_ARG, "no mechanism is left to charge (K = %lld)",
               (long long)pe->max_evaluations);
  run->evaluations_charged++;
  /* On disk before any worker hears of the evaluation: a crash from here
   * on leaves the draw charged. If it cannot be written, nothing is
   * dispatched (the count goes back: no worker can have drawn). */
  if (checkpoint) {
    status = dpbo_output_write_checkpoint(checkpoint, config, run, nranks, err);
    if (status != DPBO_OK) {
      run->evaluations_charged--;
      goto done;
    }
  }
  *draw = run->evaluations_charged;
done:
  return status;
}

void dpbo_private_evals_assign(dpbo_private_evals *pe, dpbo_run *run, int t, int64_t draw) {
  if (t >= 1 && t <= pe->steps) pe->draw[t - 1] = draw;
  run->evaluations_charged = draw;
}

/* What a privatized failure says: the reason itself stays on the worker (a
 * command's stderr, or a message, could quote validation data). */
static const char private_evals_failure[] =
    "evaluation failed (reason withheld: with privacy.algorithm = private_evaluations the trace "
    "is published, and a failure's message could carry validation data)";

void dpbo_private_evals_privatize(dpbo_private_evals *pe, dpbo_eval_result *result) {
  dpbo_noise seeded, *noise = &pe->noise;
  const int s = result->step - 1;
  if (result->code != DPBO_OK) {
    result->gain = NAN;
    snprintf(result->message, sizeof result->message, "%s", private_evals_failure);
    return;
  }
  if (pe->kind == DPBO_NOISE_SEEDED) {
    /* One stream per draw: every rank and every draw has its own, and the
     * noise of draw k does not depend on which rank drew it. */
    const int64_t draw = s >= 0 && s < pe->steps ? pe->draw[s] : 0;
    dpbo_noise_init_seeded(&seeded, pe->seed, (uint64_t)draw);
    noise = &seeded;
  }
  dpbo_gaussian_release release;
  dpbo_error err;
  dpbo_error_clear(&err);
  if (dpbo_mech_gaussian(noise, result->gain, pe->sensitivity, pe->sigma, &release, &err) ==
      DPBO_OK) {
    result->gain = release.value;
  } else {
    /* (err's message may quote the value: not passed on.) */
    result->code = err.code != DPBO_OK ? (int)err.code : (int)DPBO_ERR_NUMERIC;
    result->gain = NAN;
    snprintf(result->message, sizeof result->message,
             "the Gaussian mechanism could not release this evaluation (a value that is not "
             "finite, or the noise source failed): excluded");
  }
}

dpbo_status dpbo_private_evals_resume(MPI_Comm comm, const char *checkpoint, dpbo_run *run,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank;
  hid_t file = -1;
  int64_t charged = 0;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && checkpoint && access(checkpoint, F_OK) == 0) {
    /* A regular file only: H5Fopen would wait forever on a FIFO. */
    local = dpbo_input_check(checkpoint, "checkpoint", err);
    if (local == DPBO_OK) {
      H5E_BEGIN_TRY { file = H5Fopen(checkpoint, H5F_ACC_RDONLY, H5P_DEFAULT); }
      H5E_END_TRY;
    }
    if (local != DPBO_OK) {
      /* said */
    } else if (file < 0)
      local = DPBO_ERROR_SET(err, DPBO_ERR_DATA, "cannot open the checkpoint %s", checkpoint);
    else if (dpbo_h5io_read_attr_int64(file, DPBO_OUTPUT_EVALUATIONS_CHARGED, &charged, err) !=
             DPBO_OK)
      local = DPBO_ERROR_SET(err, DPBO_ERR_DATA,
                             "%s has no %s attribute: it was not written by a private_evaluations "
                             "run, so the mechanisms it drew are unknown and it cannot be resumed",
                             checkpoint, DPBO_OUTPUT_EVALUATIONS_CHARGED);
    else if (charged < run->steps)
      local = DPBO_ERROR_SET(err, DPBO_ERR_DATA,
                             "%s charges %lld evaluations but holds %d steps: corrupted",
                             checkpoint, (long long)charged, run->steps);
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Bcast(&charged, 1, MPI_INT64_T, 0, comm));
  run->evaluations_charged = charged;
done:
  if (file >= 0) H5Fclose(file);
  return status;
}

dpbo_status dpbo_private_evals_charge_ledger(MPI_Comm comm, const dpbo_config *config,
                                             const char *checkpoint, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  if (rank == 0 && checkpoint) local = dpbo_ledger_charge_run(checkpoint, config, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
done:
  return status;
}

void dpbo_private_evals_log_start(const dpbo_config *config, const dpbo_run *run) {
  const dpbo_private_evals_settings *e = &config->evals;
  dpbo_log_info("dpbo: privatized evaluations: each v_t is released by the discrete Gaussian "
                "mechanism on its worker (sensitivity %.6g%s, sigma %.6g) before anything else "
                "sees it; K = %lld mechanisms for epsilon = %g, delta = %g (%lld charged so far), "
                "sigma by the %s bound (the zCDP bound alone would need sigma %.6g); "
                "the GP's noise is sqrt(%.6g^2 + sigma^2) = %.6g; noise %s",
                e->sensitivity, e->sensitivity_proven ? ", proven" : ", stated", e->sigma,
                (long long)e->max_evaluations, config->privacy_epsilon, config->privacy_delta,
                (long long)run->evaluations_charged,
                e->sigma_by_zcdp ? "zCDP" : "privacy-loss distribution (PLD)", e->sigma_zcdp,
                e->gp_noise_std, e->gp_noise_std_used,
                config->noise == DPBO_NOISE_SEEDED ? "seeded (reproducible, NOT for publication)"
                                                   : "from the operating system CSPRNG");
}

void dpbo_private_evals_exhausted(const dpbo_config *config, const dpbo_run *run, char *buf,
                                  size_t size) {
  snprintf(buf, size,
           "no more privacy budget: all K = %lld Gaussian mechanisms of privacy.max_evaluations "
           "are charged (%d of %d evaluations finished; evaluations lost in a crash or a stop "
           "stay charged), so the run stops here; its trace and release stay (epsilon = %g, "
           "delta = %g)-DP",
           (long long)config->evals.max_evaluations, run->finished, run->planned,
           config->privacy_epsilon, config->privacy_delta);
}

/* ---------------------------------------------------------------------------
 * The release. */

/* λ̃ and ṽ by privacy.final_choice: post-processing of the noisy trace. */
static dpbo_status private_evals_choose(MPI_Comm comm, const dpbo_config *config,
                                        const dpbo_run *run, dpbo_release *release,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_evals_release *ev = &release->evals;
  if (ev->final_choice == DPBO_FINAL_BEST_OBSERVED) {
    if (run->best_step < 0)
      DPBO_RAISE(DPBO_ERR_ARG, "no evaluation succeeded: there is no observation to release");
    const dpbo_trace_step *b = &run->trace[run->best_step];
    ev->index = b->index;
    ev->step = run->best_step + 1;
    release->value.value = b->gain;
  } else {
    /* argmax of μ_T over Λ (ties to the lowest index), μ_T in units of v. */
    dpbo_ucb_choice choice = dpbo_ucb_local_best(run->ucb, 0.0);
    DPBO_TRY(dpbo_ucb_reduce(comm, &choice, err));
    if (choice.index < 0) DPBO_RAISE(DPBO_ERR_ARG, "no candidate is left for the final choice");
    ev->index = choice.index;
    release->value.value = config->prior.mean + config->prior.signal_std * choice.score;
  }
  double u[DPBO_MAX_DIM];
  DPBO_TRY(dpbo_space_unit(run->space, ev->index, u, err));
  dpbo_space_to_values(run->space, u, release->lambda);
done:
  return status;
}

/* Clamped to objective.value_range like every released value (post-
 * processing): μ_T and a noisy observation may lie outside the range of an
 * accuracy. The release's warnings (run/release_warn.h): public numbers only. */
static void private_evals_clamp(const dpbo_config *config, dpbo_release *release) {
  dpbo_evals_release *ev = &release->evals;
  if (!config->clamp_value) return;
  const double value = release->value.value;
  const double clamped = fmin(fmax(value, config->value_lo), config->value_hi);
  ev->clamped = clamped != value;
  dpbo_release_warn_evaluations(&release->warnings, ev->sigma, config->value_hi - config->value_lo);
  if (ev->clamped)
    dpbo_release_warn_clamped(
        &release->warnings, dpbo_algorithm_ops_get(config->algorithm)->value_symbol, clamped,
        config->value_lo, config->value_hi,
        ev->final_choice == DPBO_FINAL_BEST_OBSERVED ? "the best noisy observation"
                                                     : "the posterior mean at lambda~");
  release->value.value = clamped;
}

dpbo_status dpbo_private_evals_release_make(MPI_Comm comm, const dpbo_config *config,
                                            const dpbo_run *run, dpbo_release *release,
                                            dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_private_evals_settings *e = &config->evals;
  dpbo_evals_release *ev = &release->evals;
  memset(release, 0, sizeof *release);
  if (!dpbo_algorithm_ops_get(config->algorithm)->private_evaluations)
    DPBO_RAISE(DPBO_ERR_ARG, "not a private_evaluations run");
  if (run->failures > 0 && config->objective == DPBO_OBJECTIVE_COMMAND && !config->failures_public)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%d of the %d evaluations failed, and a command's failures may depend on the "
               "validation data, which the trace would then leak: nothing is released. If the "
               "failures cannot depend on it, set [privacy] failures_public = yes",
               run->failures, run->finished);
  release->algorithm = config->algorithm;
  release->bounds = config->bounds;
  release->has_lambda = 1;
  release->has_value = 1;
  ev->final_choice = e->final_choice;
  release->n = dpbo_space_size(run->space);
  release->d = dpbo_space_dims(run->space);
  for (int i = 0; i < release->d; i++)
    snprintf(release->names[i], sizeof release->names[i], "%s",
             dpbo_space_dim(run->space, i)->name);
  release->space = run->space;
  release->T = run->planned;
  ev->observations = run->finished - run->failures;
  ev->failures = run->failures;
  ev->max_evaluations = e->max_evaluations;
  ev->charged = run->evaluations_charged;
  ev->sensitivity = e->sensitivity;
  ev->sensitivity_proven = e->sensitivity_proven;
  ev->validation_size = config->objective == DPBO_OBJECTIVE_SVM ? config->svm.validation_rows
                        : config->objective == DPBO_OBJECTIVE_LOGREG
                            ? config->logreg.validation_rows
                            : 0;
  ev->sigma = e->sigma;
  ev->granularity = dpbo_mech_gaussian_granularity(e->sensitivity, e->sigma);
  /* The run's total (ε, δ), which σ was calibrated to: what the release
   * states and the ledger charged. */
  release->epsilon_total = config->privacy_epsilon;
  release->delta_total = config->privacy_delta;
  ev->gp_noise_std = e->gp_noise_std;
  ev->gp_noise_std_used = e->gp_noise_std_used;
  snprintf(ev->objective, sizeof ev->objective, "%s", dpbo_objective_kind_name(config->objective));
  /* σ was calibrated to (ε, δ) by the PLD bound (or by the zCDP bound where
   * that needs less); the proven numbers are those of the same accountant. */
  dpbo_private_evals_bound bound;
  DPBO_TRY(dpbo_private_evals_account(e->max_evaluations, e->sensitivity, e->sigma,
                                      release->epsilon_total, release->delta_total, &bound, err));
  ev->proven_delta = bound.delta;
  ev->proven_epsilon = bound.epsilon;
  ev->zcdp_delta = bound.zcdp_delta;
  ev->zcdp_epsilon = bound.zcdp_epsilon;
  ev->sigma_zcdp = e->sigma_zcdp;
  if (bound.by_zcdp) {
    snprintf(ev->accountant, sizeof ev->accountant,
             "zCDP bound of the discrete Gaussian (Canonne, Kamath and Steinke 2020), which is "
             "below its privacy-loss distribution bound here");
  } else {
    snprintf(ev->accountant, sizeof ev->accountant,
             "discrete Gaussian's privacy-loss distribution (PLD: its loss is dominated by a "
             "continuous Gaussian loss shifted by K d/s^2 and composed exactly, no "
             "discretisation grid; docs/privacy-proofs.md)");
  }
  ev->gdp_mu = sqrt((double)e->max_evaluations) * e->sensitivity / e->sigma;
  ev->gdp_delta = dpbo_accountant_gdp_delta(ev->gdp_mu, release->epsilon_total);
  DPBO_TRY(dpbo_accountant_gdp_epsilon(ev->gdp_mu, release->delta_total, &ev->gdp_epsilon, err));
  release->reproducible = config->noise == DPBO_NOISE_SEEDED;
  if (release->reproducible)
    snprintf(release->source, sizeof release->source,
             "seeded PCG32 (seed %llu, one stream per draw number): reproducible, not for "
             "publication",
             (unsigned long long)config->noise_seed);
  else
    snprintf(release->source, sizeof release->source,
             "operating system CSPRNG (getrandom) on every evaluating rank");

  DPBO_TRY(private_evals_choose(comm, config, run, release, err));
  private_evals_clamp(config, release);
  /* The guarantee in words: its row (run/alg_private_evals.c). */
  dpbo_algorithm_ops_get(config->algorithm)->describe(release, config);
done:
  return status;
}

void dpbo_private_evals_release_log(const dpbo_release *release) {
  const dpbo_evals_release *r = &release->evals;
  char lambda[512] = "";
  size_t used = 0;
  for (int i = 0; i < release->d; i++)
    used += (size_t)snprintf(
        lambda + used, sizeof lambda - used, "%s%s=%s", i ? ", " : "", release->names[i],
        dpbo_release_lambda_text(release->space, i, release->lambda[i], 6).text);
  dpbo_log_info("private release (private_evaluations, epsilon = %.4g, delta = %.3g)%s:",
                release->epsilon_total, release->delta_total,
                release->reproducible ? " [seeded noise: reproducible, NOT for publication]" : "");
  dpbo_log_info("  lambda~ = (%s)   [%s%s]", lambda, dpbo_final_choice_names[r->final_choice],
                r->step > 0 ? ", the best noisy observation" : ", argmax of the posterior mean");
  dpbo_log_info("  value~  = %.6g   [%s%s; post-processing of the noisy trace, no further budget]",
                release->value.value,
                r->final_choice == DPBO_FINAL_BEST_OBSERVED ? "its noisy value"
                                                            : "the posterior mean there",
                r->clamped ? ", clamped to objective.value_range" : "");
  dpbo_log_info("  %lld of K = %lld Gaussian mechanisms charged (sigma %.6g, sensitivity %.6g); "
                "proven for the discrete Gaussian by the %s: delta %.3g at epsilon %.4g, "
                "epsilon %.4g at delta %.3g (its zCDP bound: delta %.3g, epsilon %.4g, needing "
                "sigma %.6g; continuous Gaussian, for reference: mu = %.4g, delta %.3g)",
                (long long)r->charged, (long long)r->max_evaluations, r->sigma, r->sensitivity,
                r->accountant, r->proven_delta, release->epsilon_total, r->proven_epsilon,
                release->delta_total, r->zcdp_delta, r->zcdp_epsilon, r->sigma_zcdp, r->gdp_mu,
                r->gdp_delta);
  dpbo_release_warnings_log(&release->warnings);
}

dpbo_status dpbo_private_evals_check_overrides(int count, const char *const *overrides,
                                               dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  for (int i = 0; i < count; i++) {
    const char *o = overrides[i];
    char key[160];
    size_t len = strcspn(o, "=");
    while (len > 0 && (o[len - 1] == ' ' || o[len - 1] == '\t'))
      len--;
    snprintf(key, sizeof key, "%.*s", (int)len, o);
    /* Post-processing of the noisy trace: the final choice and the GP
     * that reads it may change freely. */
    if (strcmp(key, "privacy.final_choice") == 0 || strcmp(key, "ucb.memory_limit_mb") == 0 ||
        strncmp(key, "gp.", 3) == 0)
      continue;
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "--set %s: a private_evaluations run spent its budget on its evaluations, whose "
               "noise is drawn and whose accounting (privacy.epsilon, delta, max_evaluations, "
               "evaluation_sensitivity, the noise, the algorithm) is fixed; a release from it is "
               "post-processing and may change privacy.final_choice and the GP ([gp]) only",
               key);
  }
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * The commands' halves (cli.c's hooks). */

/* This release's part in the release transaction (run/publish.h). */
typedef struct private_evals_publishing {
  const dpbo_config *config;
  const dpbo_run *run;
  dpbo_release *release;
} private_evals_publishing;

/* Makes the release on every rank: post-processing of the noisy trace, whose
 * spend is the run's (ε, δ), charged once (run/private_evals.h). */
static dpbo_status private_evals_publish_make(MPI_Comm comm, void *user, double *epsilon,
                                              double *delta, dpbo_error *err) {
  private_evals_publishing *p = user;
  *epsilon = p->config->privacy_epsilon;
  *delta = p->config->privacy_delta;
  return dpbo_private_evals_release_make(comm, p->config, p->run, p->release, err);
}

static void private_evals_publish_ledger(void *user, const dpbo_privacy_ledger *ledger,
                                         const dpbo_ledger_zcdp *zcdp) {
  private_evals_publishing *p = user;
  dpbo_release_set_ledger(p->release, p->config, ledger, zcdp);
}

static dpbo_status private_evals_publish_write(void *user, const char *h5, const char *json,
                                               dpbo_error *err) {
  private_evals_publishing *p = user;
  return dpbo_release_write(p->release, h5, json, err);
}

/* Makes the release and publishes it as <base>.h5/.json through the release
 * transaction (`record`: the run's spend added to the ledger once;
 * otherwise the ledger is read as it stands); rank 0 logs it. */
static dpbo_status private_evals_publish(MPI_Comm comm, const dpbo_config *config,
                                         const dpbo_run *run, const char *runfile, int record,
                                         const char *base, dpbo_error *err) {
  static const dpbo_publish_ops ops = {private_evals_publish_make, private_evals_publish_ledger,
                                       private_evals_publish_write};
  dpbo_status status = DPBO_OK;
  int rank;
  dpbo_privacy_ledger ledger;
  dpbo_release *r = NULL;
  char h5[DPBO_PATH_MAX + 64], json[DPBO_PATH_MAX + 64];
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_ALLOC(r, 1, "the release");
  private_evals_publishing p = {config, run, r};
  /* The run's start charged the validation set's ledger
   * (dpbo_private_evals_charge_ledger): the release charges nothing, and
   * `record` copies the run's spend into the run file's own ledger. */
  dpbo_publish_spec spec = {runfile, base,  0, config->budget_epsilon, config->budget_delta,
                            config,  record};
  DPBO_TRY(dpbo_publish_release(comm, &spec, &ops, &p, (dpbo_publish_files){h5, json, sizeof h5},
                                &ledger, err));
  if (rank == 0) {
    dpbo_private_evals_release_log(r);
    dpbo_log_info("release files: %s, %s (safe to publish, with the run file's trace%s)", h5, json,
                  r->reproducible ? ", ONLY IF drawn with noise = os; this run's is seeded" : "");
    dpbo_log_info("the validation set's ledger: %lld charge%s, epsilon = %.4g, delta = %.3g in "
                  "all (basic composition)%s",
                  (long long)ledger.draws, ledger.draws == 1 ? "" : "s", ledger.epsilon_sum,
                  ledger.delta_sum,
                  record ? "" : "; this release is post-processing and added nothing");
  }
done:
  free(r);
  return status;
}

dpbo_status dpbo_private_evals_after_run(MPI_Comm comm, const dpbo_config *config,
                                         const dpbo_run *run, const char *runfile,
                                         dpbo_error *err) {
  char base[DPBO_PATH_MAX + 300];
  dpbo_release_base(config, base, sizeof base);
  return private_evals_publish(comm, config, run, runfile, 1, base, err);
}

dpbo_status dpbo_private_evals_redraw(MPI_Comm comm, const dpbo_config *config, dpbo_run *run,
                                      const char *runfile, const char *prefix, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char base[DPBO_PATH_MAX], h5[DPBO_PATH_MAX + 64];
  int rank;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  if (!prefix) {
    /* <stem>.release-K with the first K >= 2 not taken (rank 0 looks; the
     * ledger does not count these, so it cannot number them). */
    int k = 2;
    if (rank == 0) {
      for (;; k++) {
        snprintf(base, sizeof base, "%.*s.release-%d",
                 (int)(strlen(runfile) > 3 && strcmp(runfile + strlen(runfile) - 3, ".h5") == 0
                           ? strlen(runfile) - 3
                           : strlen(runfile)),
                 runfile, k);
        snprintf(h5, sizeof h5, "%s.h5", base);
        if (access(h5, F_OK) != 0) break;
      }
    }
    DPBO_MPI_TRY(MPI_Bcast(base, (int)sizeof base, MPI_CHAR, 0, comm));
  }
  DPBO_TRY(dpbo_private_evals_resume(comm, runfile, run, err)); /* the charged count */
  DPBO_TRY(private_evals_publish(comm, config, run, runfile, 0, prefix ? prefix : base, err));
done:
  return status;
}
