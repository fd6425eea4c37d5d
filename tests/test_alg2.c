/* Algorithm 2's run: the branch and bound of de Freitas, Smola & Zoghi (2012)
 * on noise-free observations (ucb.h, dpbo_ucb_prune), driven by
 * dpbo_driver_run with [privacy] algorithm = 2.
 *
 * On REPS functions drawn from the GP prior (synthetic gp_prior, objective
 * noise 0, gp noise_std 0 with a jitter of 1e-8), observed exactly:
 *  - the trace's alive counts start at N, never increase, and end below N
 *    (pruning removed candidates);
 *  - an independent replay of the pruning rule with a fresh GP
 *    (dpbo_gp_predict at every candidate after t − 1 observations: prune x
 *    when μ + √β_t σ < max_x' μ − √β_t σ, pruned stays pruned) gives the
 *    same alive count at every step, and λ_t is never a pruned candidate;
 *  - the true maximizer λ* of f over Λ survives all T steps in most
 *    repetitions. Under the GP assumption the bounds |f − μ_{t−1}| ≤ √β_t σ_{t−1}
 *    hold for all t and λ jointly w.p. ≥ 1 − δ (Srinivas et al. 2010,
 *    Lemma 5.1; δ is the run's, config->delta, which src/run/config.c defaults to
 *    the value's δ share with a privacy algorithm). On that event
 *    UCB(λ*) ≥ f(λ*) ≥ f(x) ≥ LCB(x) for every x, so λ* is never pruned: the
 *    survival probability p is at least p0 = 1 − δ (the 1e-8 nugget and the
 *    random-Fourier-feature prior make the model only approximately exact).
 *    Survivals K ~ Bin(REPS, p) over independent functions; the one-sided
 *    Clopper–Pearson upper bound U(K) at γ = 1e-6 satisfies P(U(K) < p) ≤ γ,
 *    so requiring U(K) ≥ p0 fails with probability ≤ 1e-6 when the claim
 *    holds (deterministic at the fixed seeds, never flaky);
 *  - on P > 1 ranks, rank 0 repeats every run alone (MPI_COMM_SELF) and the
 *    traces (indices, gains, alive counts) must be bitwise identical: the
 *    result does not depend on the number of ranks. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "experiments/audit.h"
#include "run/config.h"
#include "run/driver.h"
#include "dpbo/gp.h"
#include "base/log.h"
#include "prior_max.h"
#include "stat_check.h"

#define REPS 120
#define ITERATIONS 30

/* Replays the pruning rule on the run's trace with a fresh GP. alive[t-1]
 * receives the count after pruning at step t; *star_pruned_at the first step
 * that pruned `star` (0 if never); *chosen_pruned counts steps whose λ_t had
 * been pruned. */
static dpbo_status replay_pruning(const dpbo_config *config, const dpbo_run *run, int64_t star,
                                  int64_t *alive, int *star_pruned_at, int *chosen_pruned,
                                  dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_gp *gp = NULL;
  const int64_t n = dpbo_space_size(run->space);
  const int d = dpbo_space_dims(run->space);
  double *unit = malloc((size_t)n * (size_t)d * sizeof *unit);
  double *ucb = malloc((size_t)n * sizeof *ucb);
  unsigned char *pruned = calloc((size_t)n, 1);
  if (!unit || !ucb || !pruned) DPBO_RAISE(DPBO_ERR_NOMEM, "replay buffers");
  for (int64_t k = 0; k < n; k++)
    DPBO_TRY(dpbo_space_unit(run->space, k, unit + k * d, err));
  DPBO_TRY(dpbo_gp_create(&config->kernel, &config->prior, run->steps, &gp, err));
  const double m0 = config->prior.mean, s = config->prior.signal_std;
  *star_pruned_at = 0;
  *chosen_pruned = 0;
  for (int t = 1; t <= run->steps; t++) {
    int64_t left = n;
    if (t > 1) {
      /* The driver's rule, in normalized units (ucb.c). */
      const double root_beta = sqrt(dpbo_privacy_beta(n, t, config->delta));
      double lcb_max = -INFINITY;
      for (int64_t k = 0; k < n; k++) {
        double m, v;
        dpbo_gp_predict(gp, unit + k * d, &m, &v);
        m = (m - m0) / s;
        double sd = sqrt(v > 0 ? v : 0) / s;
        ucb[k] = m + root_beta * sd;
        lcb_max = fmax(lcb_max, m - root_beta * sd);
      }
      left = 0;
      for (int64_t k = 0; k < n; k++) {
        if (!pruned[k] && ucb[k] < lcb_max) {
          pruned[k] = 1;
          if (k == star && !*star_pruned_at) *star_pruned_at = t;
        }
        left += !pruned[k];
      }
    }
    alive[t - 1] = left;
    *chosen_pruned += pruned[run->trace[t - 1].index];
    DPBO_TRY(dpbo_gp_append(gp, run->trace[t - 1].unit, run->trace[t - 1].gain, err));
  }
done:
  dpbo_gp_destroy(gp);
  free(unit);
  free(ucb);
  free(pruned);
  return status;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  dpbo_log_setup(rank, 0, DPBO_LOG_QUIET);
  dpbo_error err;
  dpbo_error_clear(&err);
  const double t0 = MPI_Wtime();

  dpbo_config *config = calloc(1, sizeof *config);
  CHECK(config != NULL);
  int reps = 0, survived = 0, pruned_some = 0, replay_agrees = 0, chosen_pruned_total = 0;
  int rank_identical = 0;
  double alive_final_sum = 0, regret_sum = 0;
  int64_t n = 0;
  double delta_run = NAN;

  for (int rep = 0; rep < REPS && config; rep++) {
    char seed[64], fseed[64];
    snprintf(seed, sizeof seed, "run.seed=%d", 300 + rep);
    snprintf(fseed, sizeof fseed, "objective.seed=%d", 700 + rep);
    const char *const settings[] = {"run.iterations=30",
                                    seed,
                                    "space.kind=sobol",
                                    "space.points=256",
                                    "space.dim.x=linear 0 1",
                                    "space.dim.y=linear 0 1",
                                    "gp.kernel=matern52",
                                    "gp.lengthscale=0.3",
                                    "gp.mean=0.5",
                                    "gp.signal_std=0.2",
                                    "gp.noise_std=0",
                                    "gp.jitter=1e-8",
                                    "objective.kind=synthetic",
                                    "objective.function=gp_prior",
                                    "objective.noise_std=0",
                                    fseed,
                                    "privacy.algorithm=2",
                                    "privacy.epsilon=1",
                                    "privacy.delta=0.1",
                                    "privacy.noise=seeded",
                                    "output.dir=.",
                                    "output.name=test_alg2"};
    dpbo_config_free(config); /* the previous repetition's settings */
    dpbo_status st = dpbo_config_load_assignments(
        "test_alg2", (int)(sizeof settings / sizeof *settings), settings, 0, NULL, config, &err);
    CHECK_OK(st);
    if (st != DPBO_OK) break;
    CHECK(config->algorithm == DPBO_ALGORITHM_2 && config->iterations == ITERATIONS);
    delta_run = config->delta;

    dpbo_run run;
    CHECK_OK(st = dpbo_driver_run(MPI_COMM_WORLD, config, NULL, &run, &err));
    if (st != DPBO_OK) break;
    CHECK(run.outcome == DPBO_OK && run.steps == ITERATIONS);
    if (run.steps != ITERATIONS) {
      dpbo_run_free(&run);
      break;
    }
    n = dpbo_space_size(run.space);
    reps++;

    /* The alive column. */
    int monotone = run.trace[0].alive == n;
    for (int t = 1; t < run.steps; t++)
      monotone &= run.trace[t].alive <= run.trace[t - 1].alive;
    CHECK_MSG(monotone, "rep %d: alive counts increase or do not start at N", rep);
    const int64_t alive_T = run.trace[run.steps - 1].alive;
    pruned_some += alive_T < n;
    alive_final_sum += (double)alive_T;

    /* λ* and an independent replay of the pruning (every rank: identical). */
    int64_t star = -1;
    double f_star = -INFINITY;
    CHECK_OK(st = test_prior_max(config, run.space, &f_star, &star, &err));
    int64_t alive[ITERATIONS];
    int star_pruned_at = 0, chosen_pruned = 0;
    CHECK_OK(st = replay_pruning(config, &run, star, alive, &star_pruned_at, &chosen_pruned, &err));
    int agree = 1;
    for (int t = 0; t < run.steps; t++)
      agree &= alive[t] == run.trace[t].alive;
    if (!agree && rank == 0)
      for (int t = 0; t < run.steps; t++)
        if (alive[t] != run.trace[t].alive)
          fprintf(stderr, "rep %d step %d: driver alive %lld, replay %lld\n", rep, t + 1,
                  (long long)run.trace[t].alive, (long long)alive[t]);
    replay_agrees += agree;
    chosen_pruned_total += chosen_pruned;
    survived += star_pruned_at == 0;
    double best = -INFINITY;
    for (int t = 0; t < run.steps; t++)
      best = fmax(best, run.trace[t].gain);
    regret_sum += (f_star - best) / config->prior.signal_std;

    /* Rank independence: rank 0 alone gives the same trace. */
    int same = 1;
    if (size > 1 && rank == 0) {
      dpbo_run solo;
      CHECK_OK(st = dpbo_driver_run(MPI_COMM_SELF, config, NULL, &solo, &err));
      same = st == DPBO_OK && solo.steps == run.steps;
      for (int t = 0; same && t < run.steps; t++)
        same = solo.trace[t].index == run.trace[t].index &&
               solo.trace[t].alive == run.trace[t].alive &&
               memcmp(&solo.trace[t].gain, &run.trace[t].gain, sizeof(double)) == 0 &&
               memcmp(&solo.trace[t].ucb, &run.trace[t].ucb, sizeof(double)) == 0;
      if (st == DPBO_OK) dpbo_run_free(&solo);
    }
    MPI_Bcast(&same, 1, MPI_INT, 0, MPI_COMM_WORLD);
    rank_identical += same;
    dpbo_run_free(&run);
  }

  const double p0 = 1.0 - delta_run;
  const double upper = dpbo_audit_cp_upper(survived, reps, STAT_ALPHA);
  const double lower = dpbo_audit_cp_lower(survived, reps, STAT_ALPHA);
  int k_min = 0; /* the fewest survivals the check accepts */
  while (k_min < reps && dpbo_audit_cp_upper(k_min, reps, STAT_ALPHA) < p0)
    k_min++;
  if (rank == 0) {
    printf("Algorithm 2 on %d noise-free GP-prior functions (|Λ| = %lld Sobol, d = 2, T = %d, "
           "δ_run = %g), %d rank%s:\n",
           reps, (long long)n, ITERATIONS, delta_run, size, size == 1 ? "" : "s");
    printf("  pruning removed candidates in %d/%d runs; mean alive at T = %.1f of %lld\n",
           pruned_some, reps, reps ? alive_final_sum / reps : 0.0, (long long)n);
    printf("  independent replay agreed in %d/%d runs; pruned lambda_t chosen %d times\n",
           replay_agrees, reps, chosen_pruned_total);
    printf("  lambda* never pruned in %d/%d (Clopper-Pearson at %g: [%.4f, %.4f]; fails below %d), "
           "stated >= %.4f\n",
           survived, reps, STAT_ALPHA, lower, upper, k_min, p0);
    printf("  mean simple regret f(lambda*) - max_t f(lambda_t) = %.3g s\n",
           reps ? regret_sum / reps : 0.0);
    if (size > 1) printf("  identical to a 1-rank run in %d/%d\n", rank_identical, reps);
    printf("  %.1f s\n", MPI_Wtime() - t0);
  }
  CHECK(reps == REPS);
  CHECK(pruned_some == reps);
  CHECK(replay_agrees == reps);
  CHECK(chosen_pruned_total == 0);
  CHECK(2 * survived > reps);
  CHECK_MSG(upper >= p0, "λ* survived in %d/%d, contradicting the stated probability %.4f",
            survived, reps, p0);
  CHECK(rank_identical == reps);
  dpbo_config_free(config);
  free(config);
  int failed = dpbo_test_summary("test_alg2");
  MPI_Finalize();
  return failed;
}
