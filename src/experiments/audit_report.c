/* What `dpbo audit` prints (rank 0) of each audit, and dpbo_audit_run,
 * which runs the audit its options name. */
#include "experiments/audit.h"
#include "run/algorithm.h"

#include <math.h>
#include <stdio.h>

#include "base/log.h"

/* Rank 0's report of a pipeline audit. */
static void audit_pipeline_report(const dpbo_config *config, const dpbo_audit_pipeline_result *r,
                                  int size) {
  const dpbo_audit_pipeline_options *o = &r->options;
  printf("dpbo audit --pipeline %s: the whole tuning run and its release, %s\n", config->path,
         dpbo_algorithm_name(r->algorithm));
  const int selection = dpbo_algorithm_is_selection(r->algorithm);
  printf("  pipeline: logreg objective on %s (%lld training rows), T = %d, |Lambda| = %lld, "
         "%s%s\n",
         config->logreg.data_path, (long long)config->logreg.train_rows, r->T, (long long)r->n,
         selection ? "candidates of run.seed (every one evaluated on D and D')" : "acquisition ",
         selection                            ? ""
         : config->acquisition == DPBO_ACQ_EI ? "ei"
                                              : "ucb");
  printf("  D : the config's validation set (%lld records)\n", (long long)r->validation_rows);
  printf("  D': validation record %lld swapped for record %lld of the %lld rows in neither split,\n"
         "      chosen %s; at lambda = %.6g f_V changes by %+.6g\n",
         (long long)r->swap_validation_row, (long long)r->swap_with_row, (long long)r->pool_rows,
         o->swap == DPBO_AUDIT_SWAP_RANDOM
             ? "at random (seeded)"
             : "adversarially (the swap that moves f_V(w_lambda) the most at any lambda_t "
               "evaluated on D)",
         r->swap_lambda, r->swap_gain_change);
  printf("      V and V' differ in %d record%s (checked on the data the objective holds)\n",
         r->records_differ, r->records_differ == 1 ? "" : "s");
  if (selection)
    printf("  releases: each one whole (the candidates, %s and every draw of noise)\n",
           dpbo_algorithm_ops_get(r->algorithm)->stopping ? "a fresh secret K" : "the selection");
  else if (r->path_first_difference)
    printf("  search path: lambda_t on D and D' differ from step %d on\n",
           r->path_first_difference);
  else
    printf("  search path: the same lambda_t at every step on D and D'\n");
  printf("  non-private best value: D %.9g, D' %.9g (|difference| %.3g)%s\n", r->best_hi[0],
         r->best_hi[1], fabs(r->best_hi[0] - r->best_hi[1]),
         r->best_lo[0] == r->best_hi[0] && r->best_lo[1] == r->best_hi[1]
             ? ", the same on every rank"
             : "; NOT the same on every rank: the tuning run is not deterministic");
  if (o->noise_scale_factor == 1.0 && o->sensitivity_factor == 1.0) {
    printf("  release: real (the mechanisms exactly as every release uses them)\n");
  } else {
    printf("  release: DELIBERATELY BROKEN:");
    if (o->noise_scale_factor != 1.0) printf(" noise scale x%g;", o->noise_scale_factor);
    if (o->sensitivity_factor != 1.0)
      printf(" claimed sensitivities x%g (the noise is scaled to them);", o->sensitivity_factor);
    printf(" the claimed epsilon is unchanged\n");
  }
  printf("  noise: the operating system's CSPRNG (getrandom), as in every published release;\n"
         "      one tuning run on each of D and D' per rank, then %lld releases on each over %d "
         "rank%s; alpha %g%s; %.1f s\n",
         (long long)o->trials, size, size == 1 ? "" : "s", o->alpha,
         r->has_lambda ? " (half for each released quantity)" : "", r->seconds);
  printf("%-10s %12s %14s %16s %10s  %s\n", "released", "claimed eps", "loss on pair",
         "audited eps >=", "trials", "verdict");
  const dpbo_audit_check *checks[2] = {&r->value, r->has_lambda ? &r->lambda : NULL};
  const int private_evaluations = dpbo_algorithm_ops_get(r->algorithm)->private_evaluations;
  const char *names[2] = {private_evaluations ? "trace" : "v~", "lambda~"};
  for (int c = 0; c < 2; c++) {
    const dpbo_audit_check *k = checks[c];
    if (!k) continue;
    printf("%-10s %12.4f %14.4g %16.4f %10lld  %s\n", names[c], k->epsilon_claimed, k->pair_loss,
           k->epsilon_lower, (long long)o->trials,
           k->violated ? "FAIL (lower bound exceeds the claim)" : "pass");
    printf("%-10s   strongest event: %s\n", "", k->witness);
    if (c == 0) {
      if (private_evaluations)
        printf("%-10s   the whole trace of a privatized run, tested through Z = sum_t d_t (v_t - "
               "mid_t)/(Delta sigma); sensitivity %.6g, Gaussian sigma %.6g, |f_V' - f_V| = "
               "%.3g at the swap's lambda; loss on pair: continuous-Gaussian epsilon at delta for "
               "mu = "
               "sqrt(T) max|d|/sigma\n",
               "", k->sensitivity, r->value_scale, fabs(r->swap_gain_change));
      else
        printf("%-10s   sensitivity %.6g, Laplace scale %.6g\n", "", k->sensitivity,
               r->value_scale);
      /* The loss scales as 1/sensitivity: what this pair can reveal. */
      if (k->pair_loss > 0.0 && k->pair_loss < k->epsilon_claimed)
        printf("%-10s   this pair uses %.3g of the claim: only a sensitivity understated more "
               "than about %.0f times would show on it\n",
               "", k->pair_loss / k->epsilon_claimed, k->epsilon_claimed / k->pair_loss);
    } else {
      printf("%-10s   sensitivity %.6g; max |%s(D) - %s(D')| over Lambda = %.3g; %s\n", "",
             k->sensitivity, selection ? "f_V" : "mu_T", selection ? "f_V" : "mu_T",
             r->score_difference,
             isnan(k->pair_loss) ? "the pair's loss is not computed (the best of K secret runs)"
                                 : "the loss on the pair is an upper bound, 2 eta (max |d score| "
                                   "/ g + 1)");
    }
    /* 1e-9: the pair loss is computed in doubles. */
    if (k->epsilon_lower > k->pair_loss * (1.0 + 1e-9) + 1e-12)
      printf("%-10s   WARNING: the audited bound exceeds the exact loss on this pair computed "
             "from the mechanism's inputs: the release does not behave as documented\n",
             "");
  }
  printf("What is checked: the privacy of this implementation on this one pair (D, D'), not the\n"
         "worst case. 'loss on pair' is the privacy loss of the release mechanism for the\n"
         "inputs it received on D and D' (exact for the value, an upper bound for lambda~);\n"
         "the sensitivity bounds it over all pairs, so on\n"
         "a real pair it is usually far below the claim and the audited bound is small (even\n"
         "--broken may pass). A sensitivity understated so far that the loss on the pair\n"
         "exceeds the claim (e.g. --sensitivity-factor 0.01 on the small audit configs) fails.\n");
  if (dpbo_algorithm_ops_get(r->algorithm)->gp_release)
    printf("NOTE: Algorithm %d's sensitivities rest on Assumption 1 (the validation gains of\n"
           "neighbouring validation sets form a multi-task GP with k1 = %g and the configured\n"
           "prior). This result is an empirical check of that assumption on this one data\n"
           "pair, and of the implementation; it is not a proof of the guarantee.\n",
           (int)r->algorithm, config->k1);
  if (r->records_differ == 0)
    printf("NOTE: the swapped-in record equals the one it replaces, so D' = D here; use --swap "
           "adversarial or another --seed.\n");
  fflush(stdout);
}

/* `dpbo audit --pipeline CONFIG ...` */
static dpbo_status audit_pipeline_main(MPI_Comm comm, const dpbo_config *config,
                                       const dpbo_audit_options *o, int *violated,
                                       dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int rank = 0, size = 1;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  const dpbo_audit_pipeline_options options = {
      o->trials, o->seed, o->alpha, o->broken ? 0.5 : 1.0, o->sensitivity_factor, o->swap};
  dpbo_audit_pipeline_result res;
  /* The pipelines run on every rank at once: their progress lines would
   * drown the report. Warnings and errors still print. */
  dpbo_log_setup(rank, 0, DPBO_LOG_QUIET);
  status = dpbo_audit_pipeline(comm, config, &options, &res, err);
  dpbo_log_setup(rank, rank == 0, DPBO_LOG_INFO);
  DPBO_TRY(status);
  if (rank == 0) audit_pipeline_report(config, &res, size);
  *violated = res.violated;
done:
  return status;
}

/* `dpbo audit --seed-attack ALG ...` (dpbo_audit_selection_seed). */
static dpbo_status audit_seed_main(MPI_Comm comm, const dpbo_audit_options *options, int *violated,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int rank = 0;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  const dpbo_algorithm algorithm = options->attack;
  const int broken = options->broken;
  const dpbo_audit_seed_options o = {.algorithm = algorithm,
                                     .epsilon = options->epsilon,
                                     .delta = options->delta,
                                     .T = 4,
                                     .ps_eta = 0.0,
                                     .n = 1 << 20,
                                     .run_seed = 2015,
                                     .trials = options->trials,
                                     .seed = options->seed,
                                     .alpha = options->alpha,
                                     .position = 3,
                                     .score = 0.5,
                                     .public_candidates = broken};
  dpbo_audit_seed_result r;
  DPBO_TRY(dpbo_audit_selection_seed(comm, &o, &r, err));
  if (rank == 0) {
    printf("dpbo audit --seed-attack %s: %s candidates, T = 4, |Lambda| = 2^20, run.seed 2015 "
           "known to the attacker, alpha %g\n",
           dpbo_algorithm_name(algorithm),
           broken ? "DELIBERATELY PUBLIC (the stream of run.seed)" : "secret (release noise)",
           o.alpha);
    printf("event {j >= 3, v~ < 0.5}: %lld of %lld releases on D, %lld on D'; "
           "P(E|D) >= %.6f, P(E|D') <= %.6f\n",
           (long long)r.hits[0], (long long)r.trials, (long long)r.hits[1], r.p_lower, r.p_upper);
    printf("%-18s %12s %12s %16s %12s  %s\n", "release", "claimed eps", "claimed delta",
           "audited eps >=", "trials", "verdict");
    printf("%-18s %12.4f %12.3g %16.4f %12lld  %s\n", dpbo_algorithm_name(algorithm),
           r.epsilon_claimed, r.delta_claimed, r.epsilon_lower, (long long)r.trials,
           r.violated ? "FAIL (lower bound exceeds the claim)" : "pass");
    fflush(stdout);
  }
  *violated = r.violated;
done:
  return status;
}

/* `dpbo audit [--mechanism ...]`: one row for each mechanism audited. */
static dpbo_status audit_mechanisms_main(MPI_Comm comm, const dpbo_audit_options *o, int *violated,
                                         dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int rank = 0;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  const double factor = o->broken ? 0.5 : 1.0;
  if (rank == 0) {
    printf("dpbo audit: %s mechanisms, sensitivity %g, seeded noise (seed %llu), alpha %g\n",
           o->broken ? "DELIBERATELY BROKEN (noise scale x0.5)" : "real", o->sensitivity,
           (unsigned long long)o->seed, o->alpha);
    printf("%-18s %12s %12s %16s %12s  %s\n", "mechanism", "claimed eps", "loss on pair",
           "audited eps >=", "trials", "verdict");
  }
  for (int k = 0; k < DPBO_AUDIT_KIND_COUNT; k++) {
    if (!o->which[k]) continue;
    dpbo_audit_result res;
    const dpbo_audit_mechanism_options m = {(dpbo_audit_kind)k, o->epsilon, o->delta,
                                            o->sensitivity,     o->trials,  o->seed,
                                            o->alpha,           factor};
    DPBO_TRY(dpbo_audit_mechanism(comm, &m, &res, err));
    if (rank == 0) {
      printf("%-18s %12.4f %12.4f %16.4f %12lld  %s\n", dpbo_audit_kind_name(res.kind),
             res.epsilon_claimed, res.pair_loss, res.epsilon_lower, (long long)res.trials,
             res.violated ? "FAIL (lower bound exceeds the claim)" : "pass");
      if (res.candidates)
        printf("%-18s   pair: %lld candidates, u = 0, u' = (+D, -D%s)\n", "",
               (long long)res.candidates, res.candidates > 2 ? ", ..., -D" : "");
      if (res.kind == DPBO_AUDIT_GAUSSIAN)
        printf("%-18s   claim (eps, delta) = (%g, %g) by the discrete Gaussian's zCDP bound: "
               "sigma %.6g; loss on pair = eps at delta of the pair\n",
               "", res.epsilon_claimed, res.delta_claimed, res.sigma);
      printf("%-18s   strongest event: %s\n", "", res.witness);
      fflush(stdout);
    }
    if (res.violated) *violated = 1;
  }
done:
  return status;
}

dpbo_status dpbo_audit_run(MPI_Comm comm, const dpbo_audit_options *options,
                           const dpbo_config *config, int *violated, dpbo_error *err) {
  *violated = 0;
  switch (options->mode) {
  case DPBO_AUDIT_MODE_PIPELINE:
    return audit_pipeline_main(comm, config, options, violated, err);
  case DPBO_AUDIT_MODE_SEED:
    return audit_seed_main(comm, options, violated, err);
  default:
    return audit_mechanisms_main(comm, options, violated, err);
  }
}
