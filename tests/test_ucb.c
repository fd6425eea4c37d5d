/* The distributed UCB state against the GP it follows: after every
 * observation, each candidate's incrementally updated mean and variance must
 * equal the GP's direct posterior at that candidate; β_t matches its closed
 * form; the reduction picks the larger score and, on ties, the lower index.
 * Run on 1, 2 and 4 ranks (each rank checks its own block). */
#include <mpi.h>
#include <stdlib.h>

#include "check.h"
#include "dpbo/gp.h"
#include "dpbo/space.h"
#include "dpbo/privacy.h"
#include "dpbo/ucb.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  dpbo_error err;
  dpbo_error_clear(&err);

  dpbo_dim dims[2] = {{"x", 0.0, 1.0, DPBO_SCALE_LINEAR, 1, DPBO_DIM_REAL, 0, ""},
                      {"y", 1e-3, 1e3, DPBO_SCALE_LOG, 1, DPBO_DIM_REAL, 0, ""}};
  dpbo_space *space = NULL;
  CHECK_OK(dpbo_space_create_sobol(2, dims, 1000, &space, &err));
  const double ls[2] = {0.15, 0.25};
  dpbo_kernel kernel;
  CHECK_OK(dpbo_kernel_init(&kernel, DPBO_KERNEL_MATERN52, 2, ls, &err));
  dpbo_gp_prior prior = {.mean = 0.5, .signal_std = 0.3, .noise_std = 0.01, .jitter = 0};
  const int T = 25;
  dpbo_gp *gp = NULL;
  CHECK_OK(dpbo_gp_create(&kernel, &prior, T, &gp, &err));
  int64_t begin, count;
  dpbo_space_block(1000, size, rank, &begin, &count);
  dpbo_ucb *ucb = NULL;
  CHECK_OK(dpbo_ucb_create(&(dpbo_space_range){space, begin, count}, &kernel, T, &ucb, &err));

  double worst_mean = 0, worst_var = 0;
  for (int t = 1; t <= T; t++) {
    double beta = dpbo_privacy_beta(1000, t, 0.05);
    CHECK_CLOSE(beta, 2 * log(1000.0 * t * t * M_PI * M_PI / (3 * 0.05)), 1e-14, 0);
    dpbo_ucb_choice choice;
    CHECK_OK(dpbo_ucb_select(MPI_COMM_WORLD, ucb, beta, &choice, &err));
    /* Brute-force check of the selection on this rank's view: no candidate of
     * the block beats the global choice. */
    const double *mu = dpbo_ucb_mean(ucb), *var = dpbo_ucb_var(ucb);
    for (int64_t i = 0; i < count; i++) {
      double score = mu[i] + sqrt(beta) * sqrt(var[i]);
      CHECK(score < choice.score || (score == choice.score && begin + i >= choice.index));
    }
    double u[2];
    CHECK_OK(dpbo_space_unit(space, choice.index, u, &err));
    double v = 0.5 + 0.3 * sin(6 * u[0]) * u[1];
    CHECK_OK(dpbo_gp_append(gp, u, v, &err));
    /* On odd steps the update also scans for the next selection (as the
     * driver does), on even steps the selection scans on its own: the
     * brute-force check above covers both paths. */
    if (t % 2) dpbo_ucb_prepare_select(ucb, dpbo_privacy_beta(1000, t + 1, 0.05));
    CHECK_OK(dpbo_ucb_update(ucb, gp, u, &err));
    for (int64_t i = 0; i < count; i++) {
      double m, s2;
      dpbo_gp_predict(gp, dpbo_ucb_unit(ucb) + 2 * i, &m, &s2);
      double mi = prior.mean + prior.signal_std * mu[i];
      double vi = prior.signal_std * prior.signal_std * var[i];
      worst_mean = fmax(worst_mean, fabs(mi - m) / fmax(fabs(m), 1e-12));
      worst_var = fmax(worst_var, fabs(vi - s2) / fmax(s2, 1e-9 * 0.09));
    }
  }
  CHECK_MSG(worst_mean < 1e-9, "incremental mean differs from the GP by %g relative", worst_mean);
  CHECK_MSG(worst_var < 1e-9, "incremental variance differs from the GP by %g relative", worst_var);

  /* Ties go to the lowest index whatever rank holds it. */
  dpbo_ucb_choice tie = {1.0, 100 + (int64_t)(size - rank)};
  CHECK_OK(dpbo_ucb_reduce(MPI_COMM_WORLD, &tie, &err));
  CHECK(tie.index == 101);
  dpbo_ucb_choice larger = {(double)rank, (int64_t)rank};
  CHECK_OK(dpbo_ucb_reduce(MPI_COMM_WORLD, &larger, &err));
  CHECK(larger.index == size - 1);

  dpbo_ucb_destroy(ucb);
  dpbo_gp_destroy(gp);
  dpbo_space_destroy(space);
  int failed = dpbo_test_summary("test_ucb");
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
