/* The empirical privacy audit (`dpbo audit`, src/experiments/audit.c), on 2 ranks:
 *  - Clopper-Pearson bounds against scipy.stats.beta.ppf;
 *  - every real mechanism passes (exit 0), and the audit is not vacuous: at
 *    the default trials its lower bound is >= 0.9 ε for all three;
 *  - every deliberately broken mechanism (noise scale halved, true ε doubled)
 *    fails (exit 1);
 *  - the discrete Gaussian mechanism's (ε, δ) claim passes, and its broken
 *    variant (σ halved) fails;
 *  (bad usage and its exit code 2: tests/test_audit_cli.sh).
 * Fixed seed; the pass can fail only with probability alpha = 1e-3 per
 * mechanism over seeds, and not at all at this seed; the failures are
 * decided by margins of tens of standard errors. */
#include <mpi.h>
#include <string.h>

#include "check.h"
#include "experiments/audit.h"

static int rank;

/* dpbo_audit_run of one mechanism at the command line's defaults (ε = 1,
 * Δ = 1, the default seed and alpha): exit 0 when it passes, 1 when its
 * audited bound exceeds the claim, as `dpbo audit` answers. */
static int run(dpbo_audit_kind kind, int64_t trials, int broken) {
  dpbo_audit_options o = {.mode = DPBO_AUDIT_MODE_MECHANISMS,
                          .epsilon = 1.0,
                          .delta = DPBO_AUDIT_GAUSSIAN_DELTA,
                          .sensitivity = 1.0,
                          .trials = trials,
                          .seed = 20150706u,
                          .alpha = 1e-3,
                          .broken = broken,
                          .attack = DPBO_ALGORITHM_NONE,
                          .sensitivity_factor = 1.0};
  o.which[kind] = 1;
  int violated = 0;
  dpbo_error err;
  dpbo_error_clear(&err);
  if (dpbo_audit_run(MPI_COMM_WORLD, &o, NULL, &violated, &err) != DPBO_OK) return 3;
  return violated;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  double t0 = MPI_Wtime();

  /* scipy.stats.beta.ppf(0.025, 5, 6), beta.ppf(0.975, 6, 5), ... */
  CHECK_CLOSE(dpbo_audit_cp_lower(5, 10, 0.025), 0.18708602844739855, 1e-9, 0);
  CHECK_CLOSE(dpbo_audit_cp_upper(5, 10, 0.025), 0.8129139715526015, 1e-9, 0);
  CHECK_CLOSE(dpbo_audit_cp_lower(37503, 100000, 1e-6 / 8), 0.36715191600598207, 1e-9, 0);
  CHECK_CLOSE(dpbo_audit_cp_upper(18244, 100000, 1e-6 / 8), 0.18880120219939603, 1e-9, 0);
  CHECK_CLOSE(dpbo_audit_cp_lower(1, 1000, 0.05), 5.129197890901781e-05, 1e-9, 0);
  CHECK_CLOSE(dpbo_audit_cp_upper(0, 1000, 0.05), 0.0029912495450952954, 1e-9, 0);
  CHECK(dpbo_audit_cp_lower(0, 10, 0.05) == 0.0 && dpbo_audit_cp_upper(10, 10, 0.05) == 1.0);

  /* At the defaults (ε = 1, Δ = 1, 10^6 trials, seed 20150706) every real
   * mechanism passes with an audited bound >= 0.9 ε (issue #10: the old
   * two-candidate exponential-mechanism pair topped out at 0.73 ε), and
   * every broken one (noise halved, true ε doubled) fails. The expected
   * bounds are 0.986 (Laplace, P&F) and 0.925 (exponential, standard
   * deviation 0.008 over seeds: arithmetic in audit.c); at this seed they
   * are fixed. The broken pairs lose 2, 1.877 and 2, tens of standard
   * errors above the claim. */
  static const char *mechanisms[] = {"laplace", "exponential", "permute_and_flip"};
  const uint64_t default_seed = 20150706u;
  for (int m = 0; m < 3; m++) {
    dpbo_audit_result res;
    dpbo_error err;
    dpbo_error_clear(&err);
    CHECK_OK(dpbo_audit_mechanism(
        MPI_COMM_WORLD,
        &(dpbo_audit_mechanism_options){(dpbo_audit_kind)m, 1.0, DPBO_AUDIT_GAUSSIAN_DELTA, 1.0,
                                        DPBO_AUDIT_DEFAULT_TRIALS, default_seed, 1e-3, 1.0},
        &res, &err));
    CHECK_MSG(!res.violated && res.epsilon_lower >= 0.9 && res.epsilon_lower <= res.pair_loss,
              "real %s: audited %.4f, pair loss %.4f", mechanisms[m], res.epsilon_lower,
              res.pair_loss);
    if (rank == 0) printf("real %s: audited %.4f\n", mechanisms[m], res.epsilon_lower);
    CHECK_OK(dpbo_audit_mechanism(
        MPI_COMM_WORLD,
        &(dpbo_audit_mechanism_options){(dpbo_audit_kind)m, 1.0, DPBO_AUDIT_GAUSSIAN_DELTA, 1.0,
                                        DPBO_AUDIT_DEFAULT_TRIALS, default_seed, 1e-3, 0.5},
        &res, &err));
    CHECK_MSG(res.violated && res.epsilon_lower > 1.5, "broken %s: audited %.4f", mechanisms[m],
              res.epsilon_lower);
    if (rank == 0) printf("broken %s: audited %.4f\n", mechanisms[m], res.epsilon_lower);
  }
  /* The command's verdict: 0 for the real mechanism, 1 for a broken one. */
  for (int m = 0; m < 3; m++) {
    int real = run((dpbo_audit_kind)m, 100000, 0);
    CHECK_MSG(real == 0, "audit of the real %s exited %d", mechanisms[m], real);
    int broken = run((dpbo_audit_kind)m, 100000, 1);
    CHECK_MSG(broken == 1, "audit of the broken %s exited %d", mechanisms[m], broken);
  }

  /* The discrete Gaussian mechanism (issue #13): claim (ε, δ) = (1, 1e-3)
   * from the accountant (σ = 2.90), pair x = 0, x' = 1, whose exact ε at
   * δ = 1e-3 is 0.867 (the zCDP claim is looser); the audited bound must
   * stay below both. --broken (σ halved) makes the pair's ε(δ) 1.99; at
   * 2·10^5 trials the threshold events near 1.5σ' have thousands of hits,
   * so the bound lands near 1.6, many standard errors above the claim. */
  {
    dpbo_audit_result res;
    dpbo_error err;
    dpbo_error_clear(&err);
    CHECK_OK(dpbo_audit_mechanism(MPI_COMM_WORLD,
                                  &(dpbo_audit_mechanism_options){DPBO_AUDIT_GAUSSIAN, 1.0,
                                                                  DPBO_AUDIT_GAUSSIAN_DELTA, 1.0,
                                                                  200000, default_seed, 1e-3, 1.0},
                                  &res, &err));
    CHECK_CLOSE(res.pair_loss, 0.8673, 1e-3, 0);
    CHECK(res.delta_claimed == DPBO_AUDIT_GAUSSIAN_DELTA && res.sigma > 2.9 && res.sigma < 2.91);
    CHECK_MSG(!res.violated && res.epsilon_lower > 0.5 && res.epsilon_lower <= res.pair_loss,
              "real gaussian: audited %.4f, pair loss %.4f", res.epsilon_lower, res.pair_loss);
    if (rank == 0) printf("real gaussian: audited %.4f\n", res.epsilon_lower);
    CHECK_OK(dpbo_audit_mechanism(MPI_COMM_WORLD,
                                  &(dpbo_audit_mechanism_options){DPBO_AUDIT_GAUSSIAN, 1.0,
                                                                  DPBO_AUDIT_GAUSSIAN_DELTA, 1.0,
                                                                  200000, default_seed, 1e-3, 0.5},
                                  &res, &err));
    CHECK_CLOSE(res.pair_loss, 1.9908, 1e-3, 0);
    CHECK_MSG(res.violated && res.epsilon_lower > 1.3, "broken gaussian: audited %.4f",
              res.epsilon_lower);
    if (rank == 0) printf("broken gaussian: audited %.4f\n", res.epsilon_lower);
    /* A large δ: the events are granted δ before they count. At (0.1, 0.2)
     * (σ = 2.43 Δ) the pair's ε at δ = 0.2 is 0, while the threshold events'
     * plain ratios exceed e^0.1 by far: an audit that forgot δ reports 0.94
     * and fails the real mechanism (checked by removing the subtraction). */
    CHECK_OK(
        dpbo_audit_mechanism(MPI_COMM_WORLD,
                             &(dpbo_audit_mechanism_options){DPBO_AUDIT_GAUSSIAN, 0.1, 0.2, 1.0,
                                                             200000, default_seed, 1e-3, 1.0},
                             &res, &err));
    CHECK_MSG(!res.violated && res.epsilon_lower <= res.pair_loss,
              "real gaussian at (0.1, 0.2): audited %.4f, pair loss %.4f", res.epsilon_lower,
              res.pair_loss);
    if (rank == 0)
      printf("real gaussian at (0.1, 0.2): sigma %.4f, pair loss %.4f, audited %.4f\n", res.sigma,
             res.pair_loss, res.epsilon_lower);
    int real = run(DPBO_AUDIT_GAUSSIAN, 100000, 0);
    CHECK_MSG(real == 0, "audit of the real gaussian exited %d", real);
    int broken = run(DPBO_AUDIT_GAUSSIAN, 100000, 1);
    CHECK_MSG(broken == 1, "audit of the broken gaussian exited %d", broken);
  }

  /* The pairs: N = 49 candidates at ε = 1 with loss log(49 e/(e + 48));
   * at ε = 0.1 the crowd is sized for a loss >= 0.965 ε as well. */
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_audit_result res;
  CHECK_OK(dpbo_audit_mechanism(MPI_COMM_WORLD,
                                &(dpbo_audit_mechanism_options){DPBO_AUDIT_EXPONENTIAL, 1.0,
                                                                DPBO_AUDIT_GAUSSIAN_DELTA, 1.0, 10,
                                                                7u, 1e-3, 1.0},
                                &res, &err));
  CHECK(res.candidates == 49);
  CHECK_CLOSE(res.pair_loss, 0.965533864177312, 1e-12, 0);
  CHECK_OK(dpbo_audit_mechanism(MPI_COMM_WORLD,
                                &(dpbo_audit_mechanism_options){DPBO_AUDIT_EXPONENTIAL, 0.1,
                                                                DPBO_AUDIT_GAUSSIAN_DELTA, 1.0, 10,
                                                                7u, 1e-3, 1.0},
                                &res, &err));
  CHECK_MSG(res.pair_loss >= 0.965 * 0.1 && res.pair_loss < 0.1, "EM pair at 0.1: N %lld, %g",
            (long long)res.candidates, res.pair_loss);

  /* Power at another seed and scale: P&F's pair is tight. */
  CHECK_OK(dpbo_audit_mechanism(MPI_COMM_WORLD,
                                &(dpbo_audit_mechanism_options){DPBO_AUDIT_PERMUTE_AND_FLIP, 1.0,
                                                                DPBO_AUDIT_GAUSSIAN_DELTA, 1.0,
                                                                100000, 7u, 1e-3, 1.0},
                                &res, &err));
  CHECK_MSG(res.epsilon_lower > 0.85 && res.epsilon_lower <= 1.0 && !res.violated,
            "P&F audit lower bound %.4f", res.epsilon_lower);
  CHECK_OK(dpbo_audit_mechanism(MPI_COMM_WORLD,
                                &(dpbo_audit_mechanism_options){DPBO_AUDIT_EXPONENTIAL, 0.5,
                                                                DPBO_AUDIT_GAUSSIAN_DELTA, 2.0,
                                                                100000, 7u, 1e-3, 1.0},
                                &res, &err));
  CHECK_MSG(res.epsilon_lower <= 0.5 && !res.violated && res.events == 2,
            "EM audit at ε = 0.5: %.4f", res.epsilon_lower);
  CHECK_OK(dpbo_audit_mechanism(MPI_COMM_WORLD,
                                &(dpbo_audit_mechanism_options){DPBO_AUDIT_LAPLACE, 2.0,
                                                                DPBO_AUDIT_GAUSSIAN_DELTA, 0.3,
                                                                100000, 7u, 1e-3, 0.5},
                                &res, &err));
  CHECK_MSG(res.violated && res.epsilon_lower > 3.0, "broken Laplace at ε = 2: %.4f",
            res.epsilon_lower);

  if (rank == 0) printf("test_audit: %.1f s\n", MPI_Wtime() - t0);
  int code = dpbo_test_summary("test_audit");
  MPI_Finalize();
  return code;
}
