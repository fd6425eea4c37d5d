#include "run/release.h"

#include <errno.h>
#include <hdf5.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/comm.h"
#include "base/h5io.h"
#include "base/log.h"
#include "dpbo/ucb.h"
#include "dpbo/version.h"
#include "core/mechanism_private.h"
#include "run/algorithm.h"
#include "run/publish.h"
#include "run/release_private.h"

dpbo_status dpbo_release_budget(const dpbo_config *config, double epsilon,
                                dpbo_privacy_budget *budget, dpbo_error *err) {
  return dpbo_privacy_budget_split(config->algorithm, config->bounds, epsilon,
                                   config->privacy_delta, config->privacy_split, budget, err);
}

dpbo_status dpbo_release_inputs(const dpbo_config *config, const dpbo_space *space,
                                dpbo_privacy_inputs *in, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  memset(in, 0, sizeof *in);
  in->algorithm = config->algorithm;
  in->bounds = config->bounds;
  in->T = config->iterations;
  in->k1 = config->k1;
  in->signal_std = config->prior.signal_std;
  in->noise_std = config->prior.noise_std;
  /* The total (ε, δ) is split between λ̃ and the value; basic composition
   * adds the two back up. */
  dpbo_privacy_budget budget;
  DPBO_TRY(dpbo_release_budget(config, config->privacy_epsilon, &budget, err));
  in->delta_lambda = budget.delta_lambda;
  in->delta_value = budget.delta_value;
  in->delta_beta = budget.delta_beta;
  in->alg2_A = config->alg2_A;
  in->alg2_tau = config->alg2_tau;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(config->algorithm);
  if (ops->inputs) DPBO_TRY(ops->inputs(config, space, in, err)); /* Algorithm 3's constants */
done:
  return status;
}

/* The key of a "section.key=value" override, into key. */
static void release_override_key(const char *override, char *key, size_t size) {
  size_t len = strcspn(override, "=");
  while (len > 0 && (override[len - 1] == ' ' || override[len - 1] == '\t'))
    len--;
  if (len >= size) len = size - 1;
  memcpy(key, override, len);
  key[len] = '\0';
}

static int release_key_in(const char *key, const char *const *keys) {
  for (; *keys; keys++)
    if (strcmp(key, *keys) == 0) return 1;
  return 0;
}

dpbo_status dpbo_release_check_overrides(const dpbo_config *stored, int count,
                                         const char *const *overrides, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_algorithm stored_algorithm = stored->algorithm;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(stored_algorithm);
  static const char *const redraw[] = {"privacy.epsilon",     "privacy.noise",
                                       "privacy.noise_seed",  "privacy.failures_public",
                                       "ucb.memory_limit_mb", NULL};
  static const char *const accounting[] = {"privacy.algorithm", "privacy.delta", "privacy.split",
                                           "privacy.bounds", NULL};
  static const char *const assumptions[] = {"privacy.k1", "privacy.A", "privacy.tau",
                                            "privacy.prior_source", NULL};
  /* Every release's privacy settings are fixed before the run sees the
   * validation data (issue #22, 4): the algorithm, and all its calibration
   * rests on (privacy.delta, split, bounds: β_t's δ and the sensitivity of
   * Theorems 3-5; k1, A, tau, the GP prior: the assumptions) come from the
   * run's stored settings and cannot be overridden below. A run made with
   * algorithm = none (a run file whose stored settings lack
   * privacy.algorithm is one) fixed none of them: any choice made now, after
   * its trace was seen, could be tuned to the data, so it is refused. What a
   * redraw may change is only the noise: ε scales the noise of a
   * sensitivity already fixed (the sensitivity does not depend on ε), each
   * redraw is a new draw charged to the ledger at the ε it used (basic
   * composition, capped by the stored privacy.budget), and the noise source
   * is not part of the guarantee. */
  if (!ops->private_release)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s was run without a privacy algorithm (privacy.algorithm = none): its privacy "
               "settings were not fixed before the run saw the validation data, and choosing "
               "them now (privacy.algorithm, delta, split, bounds) could tune them to its trace, "
               "so no private release can be drawn from it; make a private run instead (dpbo run "
               "CONFIG with [privacy] algorithm = 1, 2, 3, random_search, liu_talwar, "
               "papernot_steinke or private_evaluations)",
               stored->path);
  /* An algorithm with a rule of its own (a stopping method cannot be
   * redrawn; private_evaluations' release is post-processing): its row. */
  if (ops->check_overrides) return ops->check_overrides(stored, count, overrides, err);
  for (int i = 0; i < count; i++) {
    char key[160];
    release_override_key(overrides[i], key, sizeof key);
    if (release_key_in(key, redraw)) continue;
    if (strcmp(key, "privacy.algorithm") == 0 || strcmp(key, "privacy.ps_eta") == 0) {
      const char *value = strchr(overrides[i], '=');
      value = value ? value + 1 + strspn(value + 1, " \t") : "";
      if (strcmp(key, "privacy.ps_eta") == 0 || strcmp(value, "random_search") == 0 ||
          strcmp(value, "liu_talwar") == 0 || strcmp(value, "papernot_steinke") == 0 ||
          ops->is_selection)
        DPBO_RAISE(DPBO_ERR_CONFIG,
                   "--set %s: a private-selection release is fixed when the run is made: its "
                   "candidates must be drawn independently of the data (a GP-UCB trace's are "
                   "chosen from it) and its accounting before the data is seen",
                   overrides[i]);
    }
    if (ops->is_selection && release_key_in(key, accounting))
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "--set %s: %s fixes the accounting of the run's %s release before the data is "
                 "seen; a redraw may change privacy.epsilon and the noise source (privacy.noise, "
                 "privacy.noise_seed) only",
                 overrides[i], key, dpbo_algorithm_name(stored_algorithm));
    if (release_key_in(key, accounting)) {
      /* Held to the run's β by dpbo_release_check_beta. bounds alone can
       * match a GP run's β in one way only (δ_β differs between the two),
       * which lets a run file written before bounds existed be redrawn
       * with bounds = paper. */
      if (strcmp(key, "privacy.bounds") == 0 && ops->gp_release) continue;
      if (!ops->gp_release)
        DPBO_RAISE(DPBO_ERR_CONFIG,
                   "--set %s: %s fixes the sensitivity of the run's release (Algorithm 3), and a "
                   "choice made after the data is seen could tune the noise to the data; a redraw "
                   "may change privacy.epsilon and the noise source (privacy.noise, "
                   "privacy.noise_seed) only",
                   overrides[i], key);
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "--set %s: the run's beta_t came from delta = %g (privacy.algorithm = %d, delta "
                 "= %g, split = %g, bounds = %s), and %s fixes it: the released value's "
                 "sensitivity (Theorem 3, Theorem 5) holds only for the beta_t the run used, and "
                 "the split of delta may not be chosen after the data is seen; a redraw may "
                 "change privacy.epsilon and the noise source (privacy.noise, privacy.noise_seed) "
                 "only",
                 overrides[i], stored->delta, (int)stored_algorithm, stored->privacy_delta,
                 stored->privacy_split, dpbo_bounds_name(stored->bounds), key);
    }
    if (release_key_in(key, assumptions) || strncmp(key, "gp.", 3) == 0)
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "--set %s: %s is an assumption of the guarantee (the GP prior and kernel, k1 of "
                 "Assumption 1, Algorithm 2's A and tau) and must be fixed before the validation "
                 "data is seen: a value chosen after the run could be tuned to the data",
                 overrides[i], key);
    if (strcmp(key, "ucb.delta") == 0)
      DPBO_RAISE(DPBO_ERR_CONFIG,
                 "--set %s: ucb.delta is the delta of the run's beta_t, which the run has already "
                 "used; it cannot change after the run",
                 overrides[i]);
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "--set %s: %s cannot change after the run: a redraw may change privacy.epsilon and "
               "the noise source (privacy.noise, privacy.noise_seed) only",
               overrides[i], key);
  }
done:
  return status;
}

/* Whether beta[0..steps) is β_t = dpbo_privacy_beta(n, t, delta) at every
 * step (*bad: the first step that is not, 1-based). */
static int release_beta_matches(int64_t n, int steps, const double *beta, double delta, int *bad) {
  for (int t = 1; t <= steps; t++) {
    const double want = dpbo_privacy_beta(n, t, delta);
    /* The same function computed both: equal up to the last bits. */
    if (!(fabs(want - beta[t - 1]) <= 1e-12 * fabs(want))) {
      *bad = t;
      return 0;
    }
  }
  return 1;
}

dpbo_status dpbo_release_check_beta(const dpbo_config *config, int64_t n, int steps,
                                    const double *beta, double stored_delta, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!dpbo_algorithm_ops_get(config->algorithm)->gp_release) goto done;
  dpbo_privacy_budget budget, other;
  int t = 0, other_t = 0;
  DPBO_TRY(dpbo_release_budget(config, config->privacy_epsilon, &budget, err));
  if (release_beta_matches(n, steps, beta, budget.delta_beta, &t)) goto done;
  /* A run file written before [privacy] bounds existed is a paper run. */
  const dpbo_bounds alt =
      config->bounds == DPBO_BOUNDS_PAPER ? DPBO_BOUNDS_CORRECTED : DPBO_BOUNDS_PAPER;
  DPBO_TRY(dpbo_privacy_budget_split(config->algorithm, alt, config->privacy_epsilon,
                                     config->privacy_delta, config->privacy_split, &other, err));
  char hint[160] = "";
  if (release_beta_matches(n, steps, beta, other.delta_beta, &other_t))
    snprintf(hint, sizeof hint,
             " (the run's beta_t is the one of bounds = %s: --set privacy.bounds=%s)",
             dpbo_bounds_name(alt), dpbo_bounds_name(alt));
  DPBO_RAISE(DPBO_ERR_CONFIG,
             "the run's beta_t came from delta = %.6g (N = %lld; /trace/beta at t = %d is %.10g), "
             "but this release (privacy.algorithm = %d, bounds = %s, privacy.delta = %g, split = "
             "%g) needs beta_t from delta = %.6g (%.10g at t = %d): the released value's "
             "sensitivity holds only for the beta_t the run used, so nothing is released%s",
             stored_delta, (long long)n, t, beta[t - 1], (int)config->algorithm,
             dpbo_bounds_name(config->bounds), config->privacy_delta, config->privacy_split,
             budget.delta_beta, dpbo_privacy_beta(n, t, budget.delta_beta), t, hint);
done:
  return status;
}

/* The best observed value each algorithm releases: max_t v_t (Algorithm 1,
 * Algorithm 3's f^BO) or max_{2 <= t <= T} f(λ_t) (Algorithm 2). */
double dpbo__release_best_value(const dpbo_config *config, const dpbo_run *run) {
  int first = dpbo_algorithm_ops_get(config->algorithm)->first_value_step;
  double best = -INFINITY;
  for (int t = first; t < run->steps; t++)
    best = fmax(best, run->trace[t].gain);
  return best;
}

/* The accountant and bound the release was calibrated with, which gives
 * its epsilon_total and delta_total (the "calibration" of both files):
 * its algorithm's row (run/algorithm.h). */
static const char *release_calibration(const dpbo_release *r) {
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(r->algorithm);
  return ops->calibration ? ops->calibration(r) : "";
}

const char *dpbo_release_bounds_note(const dpbo_release *r) {
  return r->bounds == DPBO_BOUNDS_PAPER
             ? " Sensitivities: the paper's literal formulas (bounds = paper), whose "
               "proofs have known gaps, so the stated delta may not hold"
             : " Sensitivities: dpbo's corrected bounds (bounds = corrected)";
}

/* The guarantee in words: its algorithm's row. */
static void release_guarantee(dpbo_release *r, const dpbo_config *config) {
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(r->algorithm);
  if (ops->describe) ops->describe(r, config);
}

/* Run k of a stopping method's Q in `dpbo run`: the trace's k-th step, the
 * candidate the run drew (run/selection.h) and its evaluated gain. */
static dpbo_status release_trace_next(void *context, int64_t k, int64_t *index, double *gain,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_run *run = context;
  if (k >= run->steps) DPBO_RAISE(DPBO_ERR_ARG, "the run holds fewer runs of Q than drawn");
  *index = run->trace[k].index;
  *gain = run->trace[k].gain;
done:
  return status;
}

/* The release of a private-selection run (rank 0; selection.h), from the
 * gains its trace holds. */
static dpbo_status release_selection_draw(const dpbo_config *config, const dpbo_run *run,
                                          dpbo_noise *noise, double sensitivity_factor,
                                          double noise_scale_factor, dpbo_release *out,
                                          dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *gains = NULL;
  double lo, hi;
  dpbo_selection_accounting *acc = &out->selection_accounting;
  dpbo_selection_pick pick;
  DPBO_TRY(dpbo_selection_gain_range(config, &out->gain_sensitivity, &lo, &hi, err));
  out->gain_sensitivity *= sensitivity_factor; /* audit only (release_private.h) */
  DPBO_TRY(dpbo_selection_account(
      config->algorithm, (dpbo_privacy_cost){config->privacy_epsilon, config->privacy_delta},
      config->privacy_split, config->iterations, config->ps_eta, acc, err));
  const dpbo_selection_draw draw = {noise, config->selection, out->gain_sensitivity, lo,
                                    hi,    noise_scale_factor};
  if (!dpbo_algorithm_ops_get(config->algorithm)->stopping) { /* random search */
    DPBO_ALLOC(gains, run->steps, "the gains");
    for (int t = 0; t < run->steps; t++)
      gains[t] = run->trace[t].gain;
    DPBO_TRY(dpbo_selection_random_search(&draw, gains, run->steps, acc->epsilon_select,
                                          acc->epsilon_value, &pick, err));
    pick.index = run->trace[pick.position].index;
    out->epsilon_lambda = acc->epsilon_select;
    out->epsilon_value = acc->epsilon_value;
    out->select = pick.select;
  } else {
    const dpbo_selection_runs runs = {release_trace_next, (void *)run, run->steps,
                                      config->iterations};
    DPBO_TRY(dpbo_selection_stopping(&runs, &draw, acc->epsilon_base, &pick, err));
    /* One mechanism over the pair: no share of ε for each part. */
    out->epsilon_lambda = out->epsilon_value = NAN;
    out->delta_lambda = out->delta_value = NAN;
  }
  /* The (ε, δ) the method was calibrated to, by the bound it was calibrated
   * with (acc->bound): reported, charged and held to privacy.budget as one
   * number. Each draw spent at most the calibrated ε0 or shares, so the
   * bound holds for the draws as made (an ε'-DP base with ε' <= ε0 is
   * ε0-DP); applying another bound to the spent ε0 would claim an (ε, δ)
   * nobody calibrated (issue #22: 1.3163 by Rényi DP for a profile
   * calibration to 1). */
  out->epsilon_total = acc->epsilon_accounted;
  out->delta_total = acc->delta_accounted;
  out->sens.lambda_sensitivity = out->sens.value_sensitivity = out->gain_sensitivity;
  out->value = pick.value;
  out->value.value = pick.released;
  double u[DPBO_MAX_DIM];
  DPBO_TRY(dpbo_space_unit(run->space, pick.index, u, err));
  dpbo_space_to_values(run->space, u, out->lambda);
  DPBO_TRY(dpbo_noise_check(noise, err));
done:
  free(gains);
  return status;
}

/* The release's warnings (run/release_warn.h states the rules): from public
 * settings and the released outputs only, so the same on every rank and
 * safe to write into the release files. */
static void release_warnings(const dpbo_config *config, dpbo_release *r) {
  double lo = config->value_lo, hi = config->value_hi, sensitivity;
  int ranged = config->clamp_value;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(r->algorithm);
  if (ops->is_selection) {
    /* The draw passed this already: the gains' range is the clamp's. */
    if (dpbo_selection_gain_range(config, &sensitivity, &lo, &hi, NULL) != DPBO_OK) return;
    ranged = 1;
    if (!ops->stopping)
      dpbo_release_warn_selection(&r->warnings, r->selection, &r->select, hi - lo, r->T,
                                  "the T evaluated candidates");
    else
      dpbo_release_warn_stopping(&r->warnings, r->value.scale, hi - lo);
  } else if (r->has_lambda && ranged) {
    dpbo_release_warn_selection(&r->warnings, r->selection, &r->select, hi - lo, r->n, "Lambda");
  }
  if (ranged && r->value.clamped) {
    char why[128];
    snprintf(why, sizeof why, "the value plus its Laplace noise (scale %.4g)", r->value.scale);
    dpbo_release_warn_clamped(&r->warnings, dpbo_algorithm_ops_get(r->algorithm)->value_symbol,
                              r->value.value, lo, hi, why);
  }
}

dpbo_status dpbo_release_draw(MPI_Comm comm, const dpbo_config *config, const dpbo_run *run,
                              dpbo_noise *noise, dpbo_release *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo__release_scale exact = {1.0, 1.0};
  DPBO_TRY(dpbo__release_draw_scaled(comm, config, run, noise, &exact, out, err));
  release_warnings(config, out);
done:
  return status;
}

/* One release being drawn (dpbo__release_draw_scaled): its inputs. */
typedef struct release_draw_ctx {
  MPI_Comm comm;
  int rank;
  const dpbo_config *config;
  const dpbo_run *run;
  const dpbo_algorithm_ops *ops;
  dpbo_noise *noise;
  double sensitivity_factor, noise_scale_factor;
} release_draw_ctx;

/* What the release says of the run it comes from. */
static void release_describe(const release_draw_ctx *c, dpbo_release *out) {
  out->algorithm = c->config->algorithm;
  out->n = dpbo_space_size(c->run->space);
  out->T = c->run->steps;
  out->d = dpbo_space_dims(c->run->space);
  for (int i = 0; i < out->d; i++)
    snprintf(out->names[i], sizeof out->names[i], "%s", dpbo_space_dim(c->run->space, i)->name);
  out->space = c->run->space;
}

/* Validate: a release of this run is allowed (a privacy algorithm, a
 * complete run, failures that are public and few); *failures: how many
 * evaluations failed. */
static dpbo_status release_validate(const release_draw_ctx *c, int *failures, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = c->config;
  const dpbo_run *run = c->run;
  const dpbo_algorithm_ops *ops = c->ops;
  *failures = 0;
  if (!ops->private_release)
    DPBO_RAISE(DPBO_ERR_CONFIG, "%s: no privacy algorithm chosen ([privacy] algorithm = 1, 2 or 3)",
               config->path);
  if (ops->is_selection) {
    /* The stopping methods' K is secret: the message names neither it nor
     * the runs done. */
    if (run->steps != run->planned || run->finished != run->planned || run->outcome != DPBO_OK ||
        (ops->fixed_candidates && run->steps != config->iterations))
      DPBO_RAISE(DPBO_ERR_ARG,
                 "the %s run did not evaluate every candidate it drew, so nothing "
                 "is released",
                 dpbo_algorithm_name(config->algorithm));
  } else if (run->steps != config->iterations || run->outcome != DPBO_OK)
    DPBO_RAISE(DPBO_ERR_ARG,
               "the run did not complete its %d iterations (%d done): the theorems need all T "
               "steps, so nothing is released",
               config->iterations, run->steps);
  /* Which evaluations failed is itself an output of the run. SVM and
   * logistic-regression training fail before the validation set is read,
   * so their failures depend on λ and the public training data only; a
   * command's failure (exit code, timeout) may depend on the validation
   * records, so the user must vouch for it. A failed step counts in T (the
   * bounds grow with T) but adds no observation. */
  for (int t = 0; t < run->steps; t++)
    *failures += run->trace[t].state == DPBO_STEP_FAILED;
  if (*failures > 0 && config->objective == DPBO_OBJECTIVE_COMMAND && !config->failures_public)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%d of the %d evaluations failed, and a command's failures may depend on the "
               "validation data, which would make the release leak it: nothing is released. If "
               "the failures cannot depend on the validation set (e.g. a crash before it is "
               "read), set [privacy] failures_public = yes",
               *failures, run->steps);
  /* A run where most evaluations failed (run.h) makes no release, at the
   * end of `dpbo run` and in a later `dpbo release`, before any draw. The
   * failures are public here (above), so refusing reveals nothing new. */
  if (dpbo_run_mostly_failed(run))
    DPBO_RAISE(DPBO_ERR_DATA,
               "%d of the %d evaluations failed (more than half): the objective refused most of "
               "the space, and a release would spend epsilon on failures. Nothing is released "
               "(dpbo info RUNFILE --trace lists each failure)",
               *failures, run->steps);
  if (ops->first_value_step > 0 && run->steps < 2)
    DPBO_RAISE(DPBO_ERR_ARG, "Algorithm 2 releases max over 2 <= t <= T and needs T >= 2");
done:
  return status;
}

/* The audit's factors must be positive and finite (1 and 1 outside it). */
static dpbo_status release_check_factors(const release_draw_ctx *c, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (!(isfinite(c->sensitivity_factor) && c->sensitivity_factor > 0.0 &&
        isfinite(c->noise_scale_factor) && c->noise_scale_factor > 0.0))
    DPBO_RAISE(DPBO_ERR_ARG, "release: scale factors must be positive (got %g and %g)",
               c->sensitivity_factor, c->noise_scale_factor);
done:
  return status;
}

/* Run, private-selection methods: rank 0 draws, every rank gets it. */
static dpbo_status release_draw_selection(const release_draw_ctx *c, int failures,
                                          dpbo_release *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const dpbo_config *config = c->config;
  /* A failed evaluation would leave Q without a score: its failures (of
   * LIBSVM or LIBLINEAR training, before the validation set is read) are
   * public, but the methods' accounting has no rule for them. */
  if (failures > 0)
    DPBO_RAISE(DPBO_ERR_ARG,
               "%s: evaluations failed, and the private-selection methods have "
               "no rule for a candidate without a gain: nothing is released",
               dpbo_algorithm_name(config->algorithm));
  DPBO_TRY(release_check_factors(c, err));
  out->T = config->iterations; /* T candidates, or E[K]: never the K drawn */
  out->has_lambda = out->has_value = 1;
  out->selection = config->selection;
  out->reproducible = c->noise->kind == DPBO_NOISE_SEEDED;
  dpbo_noise_describe(c->noise, out->source, sizeof out->source);
  if (c->rank == 0)
    local = release_selection_draw(config, c->run, c->noise, c->sensitivity_factor,
                                   c->noise_scale_factor, out, err);
  DPBO_TRY(dpbo_comm_agree(c->comm, local, err));
  DPBO_MPI_TRY(MPI_Bcast(out, (int)sizeof *out, MPI_BYTE, 0, c->comm));
  release_guarantee(out, config);
done:
  return status;
}

/* Plan, GP-UCB algorithms: the sensitivities (collective over the UCB
 * state's blocks), scaled for the audit, and the budget's split. */
static dpbo_status release_plan(const release_draw_ctx *c, dpbo_release *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = c->config;
  const dpbo_run *run = c->run;
  DPBO_TRY(dpbo_release_inputs(config, run->space, &out->inputs, err));
  out->inputs.memory_limit = run->memory_limit; /* γ_T's UCB state obeys the run's limit */
  const dpbo_space_range block = {run->space, dpbo_ucb_begin(run->ucb), dpbo_ucb_count(run->ucb)};
  DPBO_TRY(
      dpbo_privacy_sensitivities(c->comm, &out->inputs, &block, &config->kernel, &out->sens, err));
  DPBO_TRY(release_check_factors(c, err));
  if (c->sensitivity_factor != 1.0) { /* audit only (release_private.h) */
    out->sens.lambda_sensitivity *= c->sensitivity_factor;
    out->sens.value_sensitivity *= c->sensitivity_factor;
  }
  dpbo_privacy_budget budget;
  DPBO_TRY(dpbo_release_budget(config, config->privacy_epsilon, &budget, err));
  out->bounds = config->bounds;
  out->epsilon_lambda = budget.epsilon_lambda;
  out->epsilon_value = budget.epsilon_value;
  out->delta_lambda = budget.delta_lambda;
  out->delta_value = budget.delta_value;
  out->has_lambda = c->ops->releases_lambda;
  out->has_value = 1;
  out->reproducible = c->noise->kind == DPBO_NOISE_SEEDED;
  dpbo_noise_describe(c->noise, out->source, sizeof out->source);
done:
  return status;
}

/* Run, λ̃ ~ exp(ε μ_T(λ) / (2 Δ_λ)) over Λ, μ_T in units of v: each rank
 * scores its block of the UCB state, the selection is collective. */
static dpbo_status release_draw_lambda(const release_draw_ctx *c, dpbo_release *out,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_config *config = c->config;
  const dpbo_run *run = c->run;
  double *scores = NULL;
  const int64_t begin = dpbo_ucb_begin(run->ucb), count = dpbo_ucb_count(run->ucb);
  out->selection = config->selection;
  const double m0 = config->prior.mean, s = config->prior.signal_std;
  const double *mu = dpbo_ucb_mean(run->ucb);
  DPBO_ALLOC(scores, count, "release scores");
  for (int64_t i = 0; i < count; i++)
    scores[i] = m0 + s * mu[i];
  const dpbo__select_args args = {.comm = c->comm,
                                  .root = 0,
                                  .noise = c->noise,
                                  .kind = config->selection,
                                  .scores = scores,
                                  .begin = begin,
                                  .count = count,
                                  .n = out->n,
                                  .sensitivity = out->sens.lambda_sensitivity,
                                  .epsilon = out->epsilon_lambda,
                                  .noise_scale_factor = c->noise_scale_factor};
  DPBO_TRY(dpbo__mech_select_scaled(&args, &out->select, err));
  double u[DPBO_MAX_DIM];
  DPBO_TRY(dpbo_space_unit(run->space, out->select.index, u, err));
  dpbo_space_to_values(run->space, u, out->lambda);
done:
  free(scores);
  return status;
}

/* Run, the value: drawn on rank 0, shared with every rank. */
static dpbo_status release_draw_value(const release_draw_ctx *c, dpbo_release *out,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const dpbo_config *config = c->config;
  if (c->rank == 0) {
    double best = dpbo__release_best_value(config, c->run);
    double lo = config->clamp_value ? config->value_lo : 0.0;
    double hi = config->clamp_value ? config->value_hi : 0.0;
    const dpbo__laplace_args laplace = {
        c->noise, best, out->sens.value_sensitivity, out->epsilon_value,
        lo,       hi,   c->noise_scale_factor};
    local = dpbo__mech_laplace_scaled(&laplace, &out->value, err);
  }
  DPBO_TRY(dpbo_comm_agree(c->comm, local, err));
  DPBO_MPI_TRY(MPI_Bcast(&out->value, (int)sizeof out->value, MPI_BYTE, 0, c->comm));
done:
  return status;
}

/* The release in phases: describe, validate, then the selection methods'
 * draw, or plan (sensitivities, budget), λ̃, the value and what was spent. */
dpbo_status dpbo__release_draw_scaled(MPI_Comm comm, const dpbo_config *config, const dpbo_run *run,
                                      dpbo_noise *noise, const dpbo__release_scale *scale,
                                      dpbo_release *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int failures = 0;
  release_draw_ctx c = {comm,
                        0,
                        config,
                        run,
                        dpbo_algorithm_ops_get(config->algorithm),
                        noise,
                        scale->sensitivity_factor,
                        scale->noise_scale_factor};
  memset(out, 0, sizeof *out);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &c.rank));
  release_describe(&c, out);
  DPBO_TRY(release_validate(&c, &failures, err));
  if (c.ops->is_selection) {
    DPBO_TRY(release_draw_selection(&c, failures, out, err));
    goto done;
  }
  DPBO_TRY(release_plan(&c, out, err));
  if (out->has_lambda) DPBO_TRY(release_draw_lambda(&c, out, err));
  DPBO_TRY(release_draw_value(&c, out, err));
  /* What was actually spent (≤ requested after the samplers' outward
   * rounding), composed. */
  double eps_l = out->has_lambda ? out->select.epsilon_spent : 0.0;
  out->epsilon_total = dpbo_privacy_sum_up(eps_l, out->value.epsilon_spent);
  out->delta_total = dpbo_privacy_sum_up(out->delta_lambda * out->has_lambda, out->delta_value);
  release_guarantee(out, config);
  DPBO_TRY(dpbo_noise_check(noise, err));
done:
  return status;
}

/* What the ledger's numbers mean, in both release files. */
static const char release_ledger_note[] =
    "The cumulative spend on the run's validation set after this release, over every release "
    "the ledger file records for it from any run file (draws): basic composition (sums of epsilon "
    "and delta) and advanced composition (Kairouz, "
    "Oh and Viswanath 2017, Theorem 3.5, heterogeneous form, with slack advanced_delta_slack; "
    "valid when the draws and their epsilons were fixed in advance), and, only where every "
    "event on the validation set has a zCDP bound (privatized evaluations), zCDP: zcdp_rho "
    "summed and the zcdp_epsilon it gives at zcdp_delta (Canonne, Kamath and Steinke 2020). "
    "privacy.budget, if set, "
    "caps the basic totals, which stay valid for redraws chosen adaptively; copies, renames and "
    "--overwrite of the run file share them (docs/design.md, The ledger).";

void dpbo_release_set_ledger(dpbo_release *release, const dpbo_config *config,
                             const dpbo_privacy_ledger *ledger, const dpbo_ledger_zcdp *zcdp) {
  release->ledger = *ledger;
  if (zcdp)
    release->ledger_zcdp = *zcdp;
  else
    release->ledger_zcdp = (dpbo_ledger_zcdp){0, NAN, NAN, NAN};
  release->ledger_delta_slack = config->privacy_delta;
  dpbo_privacy_ledger_advanced(ledger, release->ledger_delta_slack,
                               &release->ledger_epsilon_advanced, &release->ledger_delta_advanced);
  release->budget_epsilon = config->budget_epsilon > 0 ? config->budget_epsilon : NAN;
  release->budget_delta = config->budget_epsilon > 0 ? config->budget_delta : NAN;
}

void dpbo_release_base(const dpbo_config *config, char *base, size_t size) {
  snprintf(base, size, "%s/%s.release", config->output_dir, config->output_name);
}

void dpbo_release_paths(const dpbo_config *config, char *h5_path, char *json_path, size_t size) {
  snprintf(h5_path, size, "%s/%s.release.h5", config->output_dir, config->output_name);
  snprintf(json_path, size, "%s/%s.release.json", config->output_dir, config->output_name);
}

/* ---------------------------------------------------------------------------
 * Writing. */

static void release_json_string(FILE *f, const char *text) {
  fputc('"', f);
  for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
    if (*p == '"' || *p == '\\')
      fprintf(f, "\\%c", *p);
    else if (*p < 0x20)
      fprintf(f, "\\u%04x", *p);
    else
      fputc(*p, f);
  }
  fputc('"', f);
}

/* Doubles in JSON: shortest round-trip form; JSON has no NaN/inf. */
static void release_json_number(FILE *f, double x) {
  if (isfinite(x))
    fprintf(f, "%.17g", x);
  else
    fputs("null", f);
}

void dpbo_release_json_string(FILE *f, const char *text) { release_json_string(f, text); }

void dpbo_release_json_number(FILE *f, double x) { release_json_number(f, x); }

void dpbo_release_json_warnings(FILE *f, const dpbo_release_warnings *w) {
  fputs(",\"warnings\":[", f);
  for (int i = 0; i < w->count; i++) {
    if (i) fputc(',', f);
    release_json_string(f, w->text[i]);
  }
  fputc(']', f);
}

dpbo_lambda_text dpbo_release_lambda_text(const dpbo_space *space, int i, double value,
                                          int digits) {
  dpbo_lambda_text t;
  dpbo_dim_format(space ? dpbo_space_dim(space, i) : NULL, value, digits, t.text, sizeof t.text);
  return t;
}

void dpbo_release_json_lambda(FILE *f, const dpbo_space *space, int i, double value) {
  dpbo_lambda_text t;
  if (space && dpbo_dim_format(dpbo_space_dim(space, i), value, 17, t.text, sizeof t.text))
    release_json_string(f, t.text);
  else
    release_json_number(f, value);
}

dpbo_status dpbo_release_write_lambda_text(hid_t file, const dpbo_space *space, int d,
                                           const double *lambda, dpbo_error *err) {
  char text[DPBO_MAX_DIM * (DPBO_NAME_MAX + 1)] = "";
  for (int i = 0; i < d; i++) {
    if (i) strcat(text, ",");
    strcat(text, dpbo_release_lambda_text(space, i, lambda[i], 17).text);
  }
  return dpbo_h5io_attr_string(file, "lambda_text", text, err);
}

/* The release's numbers by name, in groups: one table for the JSON file and
 * the HDF5 attributes. The lambda group is written only with a λ̃; the
 * terms behind the sensitivities and the value's noise form the JSON
 * "terms" object and are top-level attributes of the HDF5 file. */
typedef enum {
  RELEASE_LAMBDA,
  RELEASE_VALUE,
  RELEASE_TOTAL,
  RELEASE_TERM,
  RELEASE_LEDGER,
  RELEASE_ZCDP,      /* the ledger's zCDP total: written only where present */
  RELEASE_SELECTION, /* the private-selection methods' terms, in place of the GP's */
  RELEASE_EVALS,     /* the privatized evaluations' mechanisms, top level in both files */
  RELEASE_GUIDED     /* the guided selection's stage 1 and law, beside its stage 2's terms */
} release_group;

typedef struct release_number {
  release_group group;
  const char *name;
  double value;
} release_number;

enum { RELEASE_NUMBERS = 71 };

static void release_numbers(const dpbo_release *r, release_number numbers[RELEASE_NUMBERS]) {
  const dpbo_sensitivity *s = &r->sens;
  const dpbo_selection_accounting *a = &r->selection_accounting;
  const dpbo_evals_release *e = &r->evals;
  const dpbo_guided_release *g = &r->guided;
  const release_number all[] = {
      {RELEASE_LAMBDA, "epsilon_lambda", r->epsilon_lambda},
      {RELEASE_LAMBDA, "delta_lambda", r->delta_lambda},
      {RELEASE_LAMBDA, "sensitivity_lambda", s->lambda_sensitivity},
      {RELEASE_VALUE, "epsilon_value", r->epsilon_value},
      {RELEASE_VALUE, "delta_value", r->delta_value},
      {RELEASE_VALUE, "sensitivity_value", s->value_sensitivity},
      {RELEASE_TOTAL, "epsilon_total", r->epsilon_total},
      {RELEASE_TOTAL, "delta_total", r->delta_total},
      {RELEASE_TERM, "beta_T", s->beta_T},
      {RELEASE_TERM, "beta_T_plus_1", s->beta_T1},
      {RELEASE_TERM, "c_lambda", s->c_lambda},
      {RELEASE_TERM, "c_value", s->c_value},
      {RELEASE_TERM, "q", s->q},
      {RELEASE_TERM, "C1", s->C1},
      {RELEASE_TERM, "gamma_greedy", s->gamma_greedy},
      {RELEASE_TERM, "gamma_T", s->gamma_T},
      {RELEASE_TERM, "regret_term", s->regret_term},
      {RELEASE_TERM, "tolerance_term", s->tolerance_term},
      {RELEASE_TERM, "delta_beta", s->delta_beta},
      {RELEASE_TERM, "k1", s->k1},
      {RELEASE_TERM, "signal_std", s->signal_std},
      {RELEASE_TERM, "laplace_granularity", r->value.granularity},
      {RELEASE_TERM, "laplace_scale", r->value.scale},
      {RELEASE_LEDGER, "draws", (double)r->ledger.draws},
      {RELEASE_LEDGER, "epsilon_basic", r->ledger.epsilon_sum},
      {RELEASE_LEDGER, "delta_basic", r->ledger.delta_sum},
      {RELEASE_LEDGER, "epsilon_advanced", r->ledger_epsilon_advanced},
      {RELEASE_LEDGER, "delta_advanced", r->ledger_delta_advanced},
      {RELEASE_LEDGER, "advanced_delta_slack", r->ledger_delta_slack},
      {RELEASE_LEDGER, "budget_epsilon", r->budget_epsilon},
      {RELEASE_LEDGER, "budget_delta", r->budget_delta},
      {RELEASE_ZCDP, "zcdp_rho", r->ledger_zcdp.rho},
      {RELEASE_ZCDP, "zcdp_epsilon", r->ledger_zcdp.epsilon},
      {RELEASE_ZCDP, "zcdp_delta", r->ledger_zcdp.delta},
      {RELEASE_SELECTION, "gain_sensitivity", r->gain_sensitivity},
      {RELEASE_SELECTION, "epsilon_accounted", a->epsilon_accounted},
      {RELEASE_SELECTION, "delta_accounted", a->delta_accounted},
      {RELEASE_SELECTION, "epsilon_base", a->epsilon_base},
      {RELEASE_SELECTION, "gamma", a->gamma},
      {RELEASE_SELECTION, "eta", a->eta},
      {RELEASE_SELECTION, "expected_runs", a->expected_runs},
      {RELEASE_SELECTION, "rdp_order", a->rdp_order},
      {RELEASE_SELECTION, "rdp_order_hat", a->rdp_order_hat},
      {RELEASE_SELECTION, "score_laplace_granularity", r->value.granularity},
      {RELEASE_SELECTION, "score_laplace_scale", r->value.scale},
      {RELEASE_EVALS, "max_evaluations", (double)e->max_evaluations},
      {RELEASE_EVALS, "evaluations_charged", (double)e->charged},
      {RELEASE_EVALS, "observations", (double)e->observations},
      {RELEASE_EVALS, "failures", (double)e->failures},
      {RELEASE_EVALS, "sigma", e->sigma},
      {RELEASE_EVALS, "sensitivity", e->sensitivity},
      {RELEASE_EVALS, "granularity", e->granularity},
      {RELEASE_EVALS, "discrete_gaussian_delta_at_epsilon", e->proven_delta},
      {RELEASE_EVALS, "discrete_gaussian_epsilon_at_delta", e->proven_epsilon},
      {RELEASE_EVALS, "discrete_gaussian_zcdp_delta_at_epsilon", e->zcdp_delta},
      {RELEASE_EVALS, "discrete_gaussian_zcdp_epsilon_at_delta", e->zcdp_epsilon},
      {RELEASE_EVALS, "sigma_zcdp", e->sigma_zcdp},
      {RELEASE_EVALS, "continuous_gaussian_gdp_mu", e->gdp_mu},
      {RELEASE_EVALS, "continuous_gaussian_delta_at_epsilon", e->gdp_delta},
      {RELEASE_EVALS, "continuous_gaussian_epsilon_at_delta", e->gdp_epsilon},
      {RELEASE_EVALS, "gp_noise_std_configured", e->gp_noise_std},
      {RELEASE_EVALS, "gp_noise_std_used", e->gp_noise_std_used},
      {RELEASE_EVALS, "validation_size", (double)e->validation_size},
      {RELEASE_GUIDED, "stage1_evaluations", (double)g->stage1_evaluations},
      {RELEASE_GUIDED, "stage1_epsilon", g->stage1_epsilon},
      {RELEASE_GUIDED, "stage1_delta", g->stage1_delta},
      {RELEASE_GUIDED, "stage1_epsilon_accounted", g->stage1_epsilon_accounted},
      {RELEASE_GUIDED, "stage1_sigma", g->stage1_sigma},
      {RELEASE_GUIDED, "stage1_gp_noise_std", g->stage1_gp_noise_std},
      {RELEASE_GUIDED, "pi_min", g->pi_min},
      {RELEASE_GUIDED, "pi_max", g->pi_max}};
  _Static_assert(sizeof all / sizeof all[0] == RELEASE_NUMBERS, "RELEASE_NUMBERS counts the table");
  memcpy(numbers, all, sizeof all);
}

/* The terms a release states: the GP's sensitivity terms, the selection
 * methods' accounting, or the privatized evaluations' mechanisms. */
static release_group release_terms(const dpbo_release *r) {
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(r->algorithm);
  return ops->evals_layout                            ? RELEASE_EVALS
         : ops->is_selection || ops->guided_selection ? RELEASE_SELECTION
                                                      : RELEASE_TERM;
}

/* Whether a group of numbers applies to the release (the ledger's are
 * written apart): λ̃'s and the value's mechanisms where the release drew
 * them, and its own terms. */
static int release_group_applies(const dpbo_release *r, release_group group) {
  const int evals = dpbo_algorithm_ops_get(r->algorithm)->evals_layout;
  switch (group) {
  case RELEASE_LAMBDA:
    return r->has_lambda && !evals;
  case RELEASE_VALUE:
    return !evals;
  case RELEASE_TOTAL:
    return 1;
  case RELEASE_TERM:
  case RELEASE_SELECTION:
  case RELEASE_EVALS:
    return group == release_terms(r);
  case RELEASE_GUIDED:
    return dpbo_algorithm_ops_get(r->algorithm)->guided_selection;
  case RELEASE_LEDGER:
  case RELEASE_ZCDP:
    return 0;
  }
  return 0;
}

/* How λ̃ was chosen, as the release files name it. */
static const char *release_lambda_mechanism(const dpbo_release *r) {
  const char *own = dpbo_algorithm_ops_get(r->algorithm)->lambda_mechanism;
  return own ? own : dpbo_select_kind_name(r->selection);
}

/* "<prefix>name":number for each number of the group, in table order, each
 * after a comma except the first when it opens an object. */
static void release_json_group(FILE *f, const release_number *numbers, release_group group,
                               int opens, const char *prefix) {
  char name[96];
  for (size_t i = 0; i < RELEASE_NUMBERS; i++) {
    if (numbers[i].group != group) continue;
    if (!opens) fputc(',', f);
    opens = 0;
    snprintf(name, sizeof name, "%s%s", prefix, numbers[i].name);
    release_json_string(f, name);
    fputc(':', f);
    release_json_number(f, numbers[i].value);
  }
}

dpbo_status dpbo_release_json_publish(dpbo_status status, FILE *f, int fd, const char *tmp,
                                      const char *path, dpbo_error *err) {
  if (status != DPBO_OK) goto done;
  if (fflush(f) != 0 || ferror(f))
    DPBO_RAISE(DPBO_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
  DPBO_TRY(dpbo_h5io_temp_publish(fileno(f), tmp, path, err));
  tmp = NULL; /* published */
  int closed = fclose(f);
  f = NULL;
  if (closed != 0) DPBO_RAISE(DPBO_ERR_IO, "cannot close %s: %s", path, strerror(errno));
done:
  if (f) fclose(f);
  if (fd >= 0) close(fd);
  if (status != DPBO_OK && tmp && tmp[0]) unlink(tmp);
  return status;
}

/* The privatized evaluations' own attributes (run/private_evals.h). */
static const char *release_sensitivity_source(const dpbo_release *r) {
  return r->evals.sensitivity_proven ? "proven" : "stated by the user";
}

/* Stage 1's privatized evaluations of a guided release (release.h): the
 * label both files give them, and λ_t of evaluation t. */
static const char release_stage1_note[] =
    "privacy.algorithm = guided: stage 1's privatized evaluations, in step order: each lambda_t "
    "(its index in Lambda) and its gain through the discrete Gaussian mechanism (sigma = "
    "terms.stage1_sigma; null or NaN: the evaluation failed). They were published by stage 1 and "
    "are covered by this release's (epsilon_total, delta_total); stage 2's candidates and gains "
    "are secret and not released";

static dpbo_status release_stage1_lambda(const dpbo_release *r, int t, double *lambda,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double u[DPBO_MAX_DIM];
  DPBO_TRY(dpbo_space_unit(r->space, r->guided.stage1_index[t], u, err));
  dpbo_space_to_values(r->space, u, lambda);
done:
  return status;
}

static dpbo_status release_write_json(const dpbo_release *r, const char *path, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char tmp[DPBO_PATH_MAX + 64] = "";
  FILE *f = NULL;
  int fd = -1;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(r->algorithm);
  const int evals = ops->evals_layout;
  /* The atomic path of h5io.h: an exclusive, unpredictable temporary name,
   * then a checked rename (a planted link can neither take the write nor be
   * published). Release files follow the umask. */
  DPBO_TRY(dpbo_h5io_temp_open(path, 1, tmp, sizeof tmp, &fd, err));
  f = fdopen(fd, "w");
  if (!f) DPBO_RAISE(DPBO_ERR_IO, "cannot write %s: %s", tmp, strerror(errno));
  fd = -1; /* f owns it */
  release_number numbers[RELEASE_NUMBERS];
  release_numbers(r, numbers);
  fprintf(f, "{\"dpbo_version\":\"%s\",\"algorithm\":", DPBO_VERSION_STRING);
  release_json_string(f, dpbo_algorithm_name(r->algorithm));
  if (evals) {
    fputs(",\"final_choice\":", f);
    release_json_string(f, dpbo_final_choice_names[r->evals.final_choice]);
  } else {
    fputs(",\"bounds\":", f);
    release_json_string(f, dpbo_bounds_name(r->bounds));
  }
  if (r->has_lambda) {
    fputs(",\"lambda\":{", f);
    for (int i = 0; i < r->d; i++) {
      if (i) fputc(',', f);
      release_json_string(f, r->names[i]);
      fputc(':', f);
      dpbo_release_json_lambda(f, r->space, i, r->lambda[i]);
    }
    fputc('}', f);
    if (evals) {
      fprintf(f, ",\"index\":%lld", (long long)r->evals.index);
      /* The step exists for the best observation only; argmax μ_T may be
       * a candidate never evaluated. */
      if (r->evals.final_choice == DPBO_FINAL_BEST_OBSERVED)
        fprintf(f, ",\"step\":%d", r->evals.step);
    } else {
      fputs(",\"lambda_mechanism\":", f);
      release_json_string(f, release_lambda_mechanism(r));
    }
    if (release_group_applies(r, RELEASE_LAMBDA))
      release_json_group(f, numbers, RELEASE_LAMBDA, 0, "");
  }
  if (evals) fprintf(f, ",\"value_clamped\":%s", r->evals.clamped ? "true" : "false");
  fputs(",\"value\":", f);
  release_json_number(f, r->value.value);
  if (!evals) fputs(",\"value_mechanism\":\"laplace\"", f);
  if (release_group_applies(r, RELEASE_VALUE)) release_json_group(f, numbers, RELEASE_VALUE, 0, "");
  release_json_group(f, numbers, RELEASE_TOTAL, 0, "");
  if (!evals) {
    fputs(",\"calibration\":", f);
    release_json_string(f, release_calibration(r));
  }
  fprintf(f, ",\"N\":%lld,\"T\":%d", (long long)r->n, r->T);
  if (evals) {
    /* Flat, as these files have always been written: the mechanisms'
     * numbers and ledger_<name> for the ledger's. */
    release_json_group(f, numbers, RELEASE_EVALS, 0, "");
    release_json_group(f, numbers, RELEASE_LEDGER, 0, "ledger_");
    if (r->ledger_zcdp.present) release_json_group(f, numbers, RELEASE_ZCDP, 0, "ledger_");
    fputs(",\"sensitivity_source\":", f);
    release_json_string(f, release_sensitivity_source(r));
    fputs(",\"objective\":", f);
    release_json_string(f, r->evals.objective);
    fputs(",\"accountant\":", f);
    release_json_string(f, r->evals.accountant);
  } else {
    fputs(",\"terms\":{", f);
    release_json_group(f, numbers, release_terms(r), 1, "");
    if (release_group_applies(r, RELEASE_GUIDED))
      release_json_group(f, numbers, RELEASE_GUIDED, 0, "");
    fputc('}', f);
    /* (None on the proxy task: stage 1's values are not released.) */
    if (release_group_applies(r, RELEASE_GUIDED) && r->guided.stage1_count > 0) {
      fputs(",\"stage1_privatized_evaluations\":{\"note\":", f);
      release_json_string(f, release_stage1_note);
      fputs(",\"evaluations\":[", f);
      for (int t = 0; t < r->guided.stage1_count; t++) {
        double lambda[DPBO_MAX_DIM];
        DPBO_TRY(release_stage1_lambda(r, t, lambda, err));
        fprintf(f, "%s{\"step\":%d,\"index\":%lld,\"lambda\":{", t ? "," : "", t + 1,
                (long long)r->guided.stage1_index[t]);
        for (int i = 0; i < r->d; i++) {
          if (i) fputc(',', f);
          release_json_string(f, r->names[i]);
          fputc(':', f);
          dpbo_release_json_lambda(f, r->space, i, lambda[i]);
        }
        fputs("},\"value\":", f);
        release_json_number(f, r->guided.stage1_value[t]);
        fputc('}', f);
      }
      fputs("]}", f);
    }
    fputs(",\"ledger\":{", f);
    release_json_group(f, numbers, RELEASE_LEDGER, 1, "");
    if (r->ledger_zcdp.present) release_json_group(f, numbers, RELEASE_ZCDP, 0, "");
    fputs(",\"note\":", f);
    release_json_string(f, release_ledger_note);
    fputc('}', f);
  }
  fputs(",\"randomness\":", f);
  release_json_string(f, r->source);
  fprintf(f, ",\"reproducible_not_for_publication\":%s", r->reproducible ? "true" : "false");
  if (ops->release_note) {
    fputs(",\"note\":", f);
    release_json_string(f, ops->release_note);
  }
  fputs(",\"guarantee\":", f);
  release_json_string(f, r->guarantee);
  dpbo_release_json_warnings(f, &r->warnings);
  fputs("}\n", f);
done:
  return dpbo_release_json_publish(status, f, fd, tmp, path, err);
}

/* A guided release's /stage1_privatized_evaluations: index (T1), lambda
 * (T1 x d, in lambda_names' order) and value (T1), as the JSON lists them
 * (arrays: T1 may pass what attributes hold). */
static dpbo_status release_write_h5_stage1(const dpbo_release *r, hid_t file, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int count = r->guided.stage1_count;
  double *lambda = NULL;
  hid_t group = -1;
  DPBO_ALLOC(lambda, (size_t)(count > 0 ? count : 1) * (size_t)r->d, "stage 1's lambdas");
  for (int t = 0; t < count; t++)
    DPBO_TRY(release_stage1_lambda(r, t, lambda + (size_t)t * (size_t)r->d, err));
  group = H5Gcreate2(file, "stage1_privatized_evaluations", H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (group < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create /stage1_privatized_evaluations");
  DPBO_TRY(dpbo_h5io_attr_string(group, "note", release_stage1_note, err));
  const hsize_t dims[2] = {(hsize_t)count, (hsize_t)r->d};
  DPBO_TRY(dpbo_h5io_write_array(group, "index", H5T_NATIVE_INT64, 1, dims, r->guided.stage1_index,
                                 err));
  DPBO_TRY(dpbo_h5io_write_array(group, "lambda", H5T_NATIVE_DOUBLE, 2, dims, lambda, err));
  DPBO_TRY(dpbo_h5io_write_array(group, "value", H5T_NATIVE_DOUBLE, 1, dims, r->guided.stage1_value,
                                 err));
done:
  if (group >= 0) H5Gclose(group);
  free(lambda);
  return status;
}

static dpbo_status release_write_h5(const dpbo_release *r, const char *path, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_h5io_file out;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(r->algorithm);
  const int evals = ops->evals_layout;
  /* One rank writes alone: the release is a handful of numbers. Published,
   * so its mode follows the umask. */
  DPBO_TRY(dpbo_h5io_create_public(MPI_COMM_SELF, path, &out, err));
  hid_t file = out.id;
  release_number numbers[RELEASE_NUMBERS];
  release_numbers(r, numbers);
  int64_t n = r->n, T = r->T;
  DPBO_TRY(dpbo_h5io_attr_string(file, "dpbo_version", DPBO_VERSION_STRING, err));
  DPBO_TRY(dpbo_h5io_attr_string(file, "algorithm", dpbo_algorithm_name(r->algorithm), err));
  if (evals) {
    DPBO_TRY(dpbo_h5io_attr_string(file, "final_choice",
                                   dpbo_final_choice_names[r->evals.final_choice], err));
    DPBO_TRY(dpbo_h5io_attr_string(file, "accountant", r->evals.accountant, err));
    DPBO_TRY(dpbo_h5io_attr_string(file, "sensitivity_source", release_sensitivity_source(r), err));
    DPBO_TRY(dpbo_h5io_attr_string(file, "objective", r->evals.objective, err));
  } else {
    DPBO_TRY(dpbo_h5io_attr_string(file, "bounds", dpbo_bounds_name(r->bounds), err));
    DPBO_TRY(dpbo_h5io_attr_string(file, "calibration", release_calibration(r), err));
  }
  if (ops->release_note) DPBO_TRY(dpbo_h5io_attr_string(file, "note", ops->release_note, err));
  DPBO_TRY(dpbo_h5io_attr_string(file, "guarantee", r->guarantee, err));
  DPBO_TRY(dpbo_h5io_attr_string(file, "randomness", r->source, err));
  DPBO_TRY(dpbo_h5io_attr_string(file, "publication",
                                 r->reproducible
                                     ? "reproducible, not for publication (seeded noise)"
                                     : "drawn from the operating system CSPRNG",
                                 err));
  DPBO_TRY(dpbo_h5io_attr_int64(file, "N", &n, 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(file, "T", &T, 1, err));
  if (r->has_lambda) {
    char names[DPBO_MAX_DIM * (DPBO_NAME_MAX + 1)] = "";
    for (int i = 0; i < r->d; i++) {
      if (i) strcat(names, ",");
      strcat(names, r->names[i]);
    }
    DPBO_TRY(dpbo_h5io_attr_doubles(file, "lambda", r->lambda, (hsize_t)r->d, err));
    DPBO_TRY(dpbo_h5io_attr_string(file, "lambda_names", names, err));
    DPBO_TRY(dpbo_release_write_lambda_text(file, r->space, r->d, r->lambda, err));
    if (evals) {
      int64_t index = r->evals.index, step = r->evals.step;
      DPBO_TRY(dpbo_h5io_attr_int64(file, "index", &index, 1, err));
      DPBO_TRY(dpbo_h5io_attr_int64(file, "step", &step, 1, err));
    } else {
      DPBO_TRY(dpbo_h5io_attr_string(file, "lambda_mechanism", release_lambda_mechanism(r), err));
      DPBO_TRY(dpbo_h5io_attr_doubles(file, "score_granularity", &r->select.granularity, 1, err));
    }
  }
  DPBO_TRY(dpbo_h5io_attr_doubles(file, "value", &r->value.value, 1, err));
  if (!evals)
    DPBO_TRY(
        dpbo_h5io_attr_string(file, "value_mechanism", "laplace (discrete, exact sampler)", err));
  for (size_t i = 0; i < RELEASE_NUMBERS; i++)
    if (release_group_applies(r, numbers[i].group))
      DPBO_TRY(dpbo_h5io_attr_doubles(file, numbers[i].name, &numbers[i].value, 1, err));
  /* The ledger: attribute ledger_<name> for the JSON's "ledger": {<name>}
   * (the release file holds attributes only). */
  for (size_t i = 0; i < RELEASE_NUMBERS; i++)
    if (numbers[i].group == RELEASE_LEDGER ||
        (numbers[i].group == RELEASE_ZCDP && r->ledger_zcdp.present)) {
      char name[64];
      snprintf(name, sizeof name, "ledger_%s", numbers[i].name);
      DPBO_TRY(dpbo_h5io_attr_doubles(file, name, &numbers[i].value, 1, err));
    }
  if (!evals) DPBO_TRY(dpbo_h5io_attr_string(file, "ledger_note", release_ledger_note, err));
  if (r->warnings.count > 0) {
    char warnings[DPBO_RELEASE_WARNINGS_MAX * DPBO_RELEASE_WARNING_LEN];
    dpbo_release_warnings_join(&r->warnings, warnings, sizeof warnings);
    DPBO_TRY(dpbo_h5io_attr_string(file, "warnings", warnings, err));
  }
  if (release_group_applies(r, RELEASE_GUIDED) && r->guided.stage1_count > 0)
    DPBO_TRY(release_write_h5_stage1(r, file, err));
  DPBO_TRY(dpbo_h5io_commit(&out, err));
done:
  if (status != DPBO_OK) dpbo_h5io_discard(&out);
  return status;
}

dpbo_status dpbo_release_write(const dpbo_release *release, const char *h5_path,
                               const char *json_path, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_TRY(release_write_h5(release, h5_path, err));
  DPBO_TRY(release_write_json(release, json_path, err));
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * Publishing: this release's part in the release transaction (publish.h). */

typedef struct release_publishing {
  const dpbo_config *config;
  const dpbo_run *run;
  dpbo_noise *noise;
  dpbo_release *release;
} release_publishing;

static dpbo_status release_publish_draw(MPI_Comm comm, void *user, double *epsilon, double *delta,
                                        dpbo_error *err) {
  release_publishing *p = user;
  dpbo_status status = dpbo_release_draw(comm, p->config, p->run, p->noise, p->release, err);
  *epsilon = p->release->epsilon_total;
  *delta = p->release->delta_total;
  return status;
}

static void release_publish_ledger(void *user, const dpbo_privacy_ledger *ledger,
                                   const dpbo_ledger_zcdp *zcdp) {
  release_publishing *p = user;
  dpbo_release_set_ledger(p->release, p->config, ledger, zcdp);
}

static dpbo_status release_publish_write(void *user, const char *h5, const char *json,
                                         dpbo_error *err) {
  release_publishing *p = user;
  return dpbo_release_write(p->release, h5, json, err);
}

dpbo_status dpbo_release_publish(MPI_Comm comm, const dpbo_config *config, const dpbo_run *run,
                                 dpbo_noise *noise, const dpbo_release_files *files,
                                 dpbo_release *out, dpbo_error *err) {
  static const dpbo_publish_ops ops = {release_publish_draw, release_publish_ledger,
                                       release_publish_write};
  release_publishing p = {config, run, noise, out};
  dpbo_publish_spec spec = {files->runfile,       files->base, 1, config->budget_epsilon,
                            config->budget_delta, config,      0};
  dpbo_privacy_ledger ledger;
  return dpbo_publish_release(comm, &spec, &ops, &p,
                              (dpbo_publish_files){files->h5, files->json, files->size}, &ledger,
                              err);
}

void dpbo_release_log(const dpbo_release *r, const dpbo_run *run) {
  char lambda[512] = "";
  size_t used = 0;
  for (int i = 0; i < r->d && r->has_lambda; i++)
    used +=
        (size_t)snprintf(lambda + used, sizeof lambda - used, "%s%s=%s", i ? ", " : "", r->names[i],
                         dpbo_release_lambda_text(r->space, i, r->lambda[i], 6).text);
  dpbo_log_info("private release (%s, total epsilon = %.4g, delta = %.3g)%s:",
                dpbo_algorithm_name(r->algorithm), r->epsilon_total, r->delta_total,
                r->reproducible ? " [seeded noise: reproducible, NOT for publication]" : "");
  if (r->has_lambda && isnan(r->epsilon_lambda)) /* one mechanism over (λ̃, value) */
    dpbo_log_info("  lambda~ = (%s)   [%s, with the value: epsilon %.4g, sensitivity %.4g]", lambda,
                  release_lambda_mechanism(r), r->epsilon_total, r->sens.lambda_sensitivity);
  else if (r->has_lambda)
    dpbo_log_info("  lambda~ = (%s)   [%s, epsilon %.4g, sensitivity %.4g]", lambda,
                  release_lambda_mechanism(r), r->epsilon_lambda, r->sens.lambda_sensitivity);
  if (isnan(r->epsilon_value))
    dpbo_log_info("  value~  = %.6g   [the best noisy score: Laplace scale %.4g per run, base "
                  "epsilon0 %.4g, sensitivity %.4g%s]",
                  r->value.value, r->value.scale, r->selection_accounting.epsilon_base,
                  r->sens.value_sensitivity, r->value.clamped ? ", clamped" : "");
  else
    dpbo_log_info("  value~  = %.6g   [Laplace scale %.4g, epsilon %.4g, sensitivity %.4g%s]",
                  r->value.value, r->value.scale, r->epsilon_value, r->sens.value_sensitivity,
                  r->value.clamped ? ", clamped" : "");
  if (run && run->best_step >= 0) {
    const dpbo_trace_step *b = &run->trace[run->best_step];
    used = 0;
    lambda[0] = '\0';
    for (int i = 0; i < r->d; i++)
      used +=
          (size_t)snprintf(lambda + used, sizeof lambda - used, "%s%s=%s", i ? ", " : "",
                           r->names[i], dpbo_release_lambda_text(r->space, i, b->value[i], 6).text);
    dpbo_log_info("  non-private best (NOT for publication): value %.6g at (%s)", b->gain, lambda);
  }
  dpbo_release_warnings_log(&r->warnings);
}
