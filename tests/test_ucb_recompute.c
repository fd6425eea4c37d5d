/* The UCB state's recompute mode (ucb.h) against its incremental mode: on
 * 3,000 Sobol candidates in 3 dimensions and T = 40 noisy observations, a
 * state in recompute mode, one in incremental mode and one that drops its
 * rows halfway (dpbo_ucb_drop_rows) must choose the same λ_t at every step,
 * by UCB (fused and stand-alone scans) and by EI, with μ and σ² within 1e-9
 * of each other (the design makes them bit-identical; the count of differing
 * bits is printed) and within 1e-9 of the GP's direct posterior. Also: the
 * mode chosen for a memory limit, the bytes each mode reports, the error for
 * a limit too small for either, and the limit that "auto" and "off" resolve
 * to. Then GP-BUCB batches (hallucinated values, replaced by the real ones
 * with dpbo_ucb_refresh_mean): the same choices and means in both modes.
 * Run on 1, 2 and 4 ranks (each rank checks its own block). */
#include <mpi.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "dpbo/gp.h"
#include "dpbo/space.h"
#include "dpbo/privacy.h"
#include "dpbo/ucb.h"

enum { N = 3000, T = 40, D = 3, MODES = 3 };

/* A smooth test function of the unit coordinates. */
static double objective(const double *u) {
  return 0.5 + 0.3 * sin(6.0 * u[0]) * u[1] - 0.2 * (u[2] - 0.4) * (u[2] - 0.4);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  dpbo_error err;
  dpbo_error_clear(&err);

  dpbo_dim dims[D] = {{"x", 0.0, 1.0, DPBO_SCALE_LINEAR, 1, DPBO_DIM_REAL, 0, ""},
                      {"y", 1e-3, 1e3, DPBO_SCALE_LOG, 1, DPBO_DIM_REAL, 0, ""},
                      {"z", -1.0, 1.0, DPBO_SCALE_LINEAR, 1, DPBO_DIM_REAL, 0, ""}};
  dpbo_space *space = NULL;
  CHECK_OK(dpbo_space_create_sobol(D, dims, N, &space, &err));
  const double ls[D] = {0.15, 0.25, 0.3};
  dpbo_kernel kernel;
  CHECK_OK(dpbo_kernel_init(&kernel, DPBO_KERNEL_MATERN52, D, ls, &err));
  dpbo_gp_prior prior = {.mean = 0.5, .signal_std = 0.3, .noise_std = 0.01, .jitter = 0};
  dpbo_gp *gp = NULL;
  CHECK_OK(dpbo_gp_create(&kernel, &prior, T, &gp, &err));
  int64_t begin, count;
  dpbo_space_block(N, size, rank, &begin, &count);

  /* The mode for a limit: incremental without one or when it fits, else
   * recompute, else an error naming the key. */
  const size_t inc_bytes = dpbo_ucb_memory_needed(count, D, T, DPBO_UCB_INCREMENTAL);
  const size_t rec_bytes = dpbo_ucb_memory_needed(count, D, T, DPBO_UCB_RECOMPUTE);
  CHECK_MSG(rec_bytes < inc_bytes, "recompute state %zu bytes, incremental %zu", rec_bytes,
            inc_bytes);
  dpbo_ucb_mode mode = DPBO_UCB_RECOMPUTE;
  CHECK_OK(dpbo_ucb_choose_mode(count, D, T, 0, &mode, &err));
  CHECK(mode == DPBO_UCB_INCREMENTAL);
  CHECK_OK(dpbo_ucb_choose_mode(count, D, T, inc_bytes, &mode, &err));
  CHECK(mode == DPBO_UCB_INCREMENTAL);
  CHECK_OK(dpbo_ucb_choose_mode(count, D, T, inc_bytes - 1, &mode, &err));
  CHECK(mode == DPBO_UCB_RECOMPUTE);
  const size_t limit = (inc_bytes + rec_bytes) / 2;
  CHECK_OK(dpbo_ucb_choose_mode(count, D, T, limit, &mode, &err));
  CHECK(mode == DPBO_UCB_RECOMPUTE);
  dpbo_ucb_mode unchanged = DPBO_UCB_INCREMENTAL;
  CHECK(dpbo_ucb_choose_mode(count, D, T, rec_bytes - 1, &unchanged, &err) == DPBO_ERR_CONFIG);
  CHECK_MSG(strstr(err.message, "ucb.memory_limit_mb") != NULL, "message: %s", err.message);
  dpbo_error_clear(&err);

  /* The limits "off", a number of MiB and "auto". */
  size_t bytes = 1;
  CHECK_OK(dpbo_ucb_memory_limit(MPI_COMM_WORLD, 0.0, &bytes, &err));
  CHECK(bytes == 0);
  CHECK_OK(dpbo_ucb_memory_limit(MPI_COMM_WORLD, 2.5, &bytes, &err));
  CHECK(bytes == (size_t)(2.5 * 1048576));
  CHECK_OK(dpbo_ucb_memory_limit(MPI_COMM_WORLD, -1.0, &bytes, &err));
  const double phys = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
  CHECK_MSG(bytes > 0 && (double)bytes <= 0.5 * phys + 1, "auto limit %zu bytes of %g", bytes,
            phys);

  /* 0: incremental, 1: recompute, 2: incremental that drops its rows at T/2. */
  dpbo_ucb *ucb[MODES] = {NULL, NULL, NULL};
  CHECK_OK(dpbo_ucb_create_mode(&(dpbo_space_range){space, begin, count}, &kernel, T,
                                DPBO_UCB_INCREMENTAL, &ucb[0], &err));
  CHECK_OK(dpbo_ucb_create_mode(&(dpbo_space_range){space, begin, count}, &kernel, T, mode, &ucb[1],
                                &err));
  CHECK_OK(dpbo_ucb_create(&(dpbo_space_range){space, begin, count}, &kernel, T, &ucb[2], &err));
  CHECK(dpbo_ucb_get_mode(ucb[1]) == DPBO_UCB_RECOMPUTE);
  CHECK(dpbo_ucb_memory(ucb[0]) == inc_bytes);
  CHECK(dpbo_ucb_memory(ucb[1]) == rec_bytes);

  double worst_modes = 0.0, worst_gp = 0.0;
  long long differing_bits = 0;
  int same_choices = 1;
  for (int t = 1; t <= T; t++) {
    const double beta = dpbo_privacy_beta(N, t, 0.05);
    dpbo_ucb_choice choice[MODES], ei[MODES];
    for (int m = 0; m < MODES; m++) {
      CHECK_OK(dpbo_ucb_select(MPI_COMM_WORLD, ucb[m], beta, &choice[m], &err));
      ei[m] = dpbo_ucb_local_best_ei(ucb[m], 0.2);
      CHECK_OK(dpbo_ucb_reduce(MPI_COMM_WORLD, &ei[m], &err));
    }
    for (int m = 1; m < MODES; m++)
      if (choice[m].index != choice[0].index || choice[m].score != choice[0].score ||
          ei[m].index != ei[0].index) {
        same_choices = 0;
        CHECK_MSG(0, "step %d, state %d chose %lld (EI %lld), incremental %lld (EI %lld)", t, m,
                  (long long)choice[m].index, (long long)ei[m].index, (long long)choice[0].index,
                  (long long)ei[0].index);
      }
    /* Alternate UCB and EI choices so both drive the trace. */
    const int64_t next = t % 3 ? choice[0].index : ei[0].index;
    double u[D];
    CHECK_OK(dpbo_space_unit(space, next, u, &err));
    CHECK_OK(dpbo_gp_append(gp, u, objective(u), &err));
    if (t == T / 2) {
      CHECK_OK(dpbo_ucb_drop_rows(ucb[2], &err));
      CHECK(dpbo_ucb_get_mode(ucb[2]) == DPBO_UCB_RECOMPUTE);
      CHECK(dpbo_ucb_memory(ucb[2]) == rec_bytes);
    }
    for (int m = 0; m < MODES; m++) {
      /* Odd steps fuse the next scan into the update, even steps do not. */
      if (t % 2) dpbo_ucb_prepare_select(ucb[m], dpbo_privacy_beta(N, t + 1, 0.05));
      CHECK_OK(dpbo_ucb_update(ucb[m], gp, u, &err));
    }
    const double *mu0 = dpbo_ucb_mean(ucb[0]), *var0 = dpbo_ucb_var(ucb[0]);
    for (int m = 1; m < MODES; m++) {
      const double *mu = dpbo_ucb_mean(ucb[m]), *var = dpbo_ucb_var(ucb[m]);
      for (int64_t i = 0; i < count; i++) {
        worst_modes = fmax(worst_modes, fmax(fabs(mu[i] - mu0[i]), fabs(var[i] - var0[i])));
        differing_bits += memcmp(&mu[i], &mu0[i], sizeof(double)) != 0;
        differing_bits += memcmp(&var[i], &var0[i], sizeof(double)) != 0;
      }
    }
    const double *mu = dpbo_ucb_mean(ucb[1]), *var = dpbo_ucb_var(ucb[1]);
    for (int64_t i = 0; i < count; i += 7) {
      double m, s2;
      dpbo_gp_predict(gp, dpbo_ucb_unit(ucb[1]) + D * i, &m, &s2);
      double mi = prior.mean + prior.signal_std * mu[i];
      double vi = prior.signal_std * prior.signal_std * var[i];
      worst_gp = fmax(worst_gp, fmax(fabs(mi - m) / fmax(fabs(m), 1e-12),
                                     fabs(vi - s2) / fmax(s2, 1e-9 * 0.09)));
    }
  }
  CHECK(same_choices);
  CHECK_MSG(worst_modes <= 1e-9, "recompute and incremental μ/σ² differ by %g", worst_modes);
  CHECK_MSG(worst_gp < 1e-9, "recompute μ/σ² differ from the GP by %g relative", worst_gp);
  long long all_bits = 0;
  MPI_Allreduce(&differing_bits, &all_bits, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf("test_ucb_recompute: %d ranks, same %d choices; max |Δμ|, |Δσ²| = %g; %lld of %lld "
           "values not bit-identical\n",
           size, T, worst_modes, all_bits, 2LL * (MODES - 1) * N * T);

  /* The capacity still binds in recompute mode. */
  double u[D] = {0.5, 0.5, 0.5};
  CHECK(dpbo_ucb_update(ucb[1], gp, u, &err) == DPBO_ERR_ARG);
  for (int m = 0; m < MODES; m++)
    dpbo_ucb_destroy(ucb[m]);
  dpbo_gp_destroy(gp);

  /* GP-BUCB batches of 3: each chosen point enters with a hallucinated value
   * (dpbo_gp_append_pending + update), and when the oldest pending value
   * arrives (dpbo_gp_resolve) every mean is refreshed from the rows: stored
   * in incremental mode, rebuilt in recompute mode. Same choices, same μ. */
  gp = NULL;
  CHECK_OK(dpbo_gp_create(&kernel, &prior, T, &gp, &err));
  for (int m = 0; m < 2; m++)
    CHECK_OK(dpbo_ucb_create_mode(&(dpbo_space_range){space, begin, count}, &kernel, T,
                                  m ? DPBO_UCB_RECOMPUTE : DPBO_UCB_INCREMENTAL, &ucb[m], &err));
  double pending_u[T][D];
  int pending_row[T], oldest = 0, chosen = 0, refreshes = 0;
  double worst_batch = 0.0;
  long long batch_bits = 0;
  int same_batch_choices = 1;
  while (chosen < T) {
    const double beta = dpbo_privacy_beta(N, chosen + 1, 0.05);
    dpbo_ucb_choice choice[2];
    for (int m = 0; m < 2; m++)
      CHECK_OK(dpbo_ucb_select(MPI_COMM_WORLD, ucb[m], beta, &choice[m], &err));
    if (choice[1].index != choice[0].index || choice[1].score != choice[0].score)
      same_batch_choices = 0;
    CHECK_OK(dpbo_space_unit(space, choice[0].index, pending_u[chosen], &err));
    CHECK_OK(dpbo_gp_append_pending(gp, pending_u[chosen], &err));
    pending_row[chosen] = dpbo_gp_count(gp) - 1;
    for (int m = 0; m < 2; m++)
      CHECK_OK(dpbo_ucb_update(ucb[m], gp, pending_u[chosen], &err));
    chosen++;
    if (chosen - oldest == 3 || chosen == T) { /* the oldest evaluation returns */
      CHECK_OK(dpbo_gp_resolve(gp, pending_row[oldest], objective(pending_u[oldest]), &err));
      oldest++;
      for (int m = 0; m < 2; m++)
        CHECK_OK(dpbo_ucb_refresh_mean(ucb[m], gp, &err));
      refreshes++;
      const double *mu0 = dpbo_ucb_mean(ucb[0]), *mu1 = dpbo_ucb_mean(ucb[1]);
      for (int64_t i = 0; i < count; i++) {
        worst_batch = fmax(worst_batch, fabs(mu1[i] - mu0[i]));
        batch_bits += memcmp(&mu1[i], &mu0[i], sizeof(double)) != 0;
      }
    }
  }
  CHECK(same_batch_choices);
  CHECK(refreshes >= T / 3);
  CHECK_MSG(worst_batch <= 1e-9, "batch means differ by %g after dpbo_ucb_refresh_mean",
            worst_batch);
  long long all_batch_bits = 0;
  MPI_Allreduce(&batch_bits, &all_batch_bits, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0)
    printf(
        "test_ucb_recompute: GP-BUCB batches of 3, %d mean refreshes: same choices; max |Δμ| = %g; "
        "%lld values not bit-identical\n",
        refreshes, worst_batch, all_batch_bits);
  for (int m = 0; m < 2; m++)
    dpbo_ucb_destroy(ucb[m]);
  dpbo_gp_destroy(gp);
  dpbo_space_destroy(space);
  int failed = dpbo_test_summary("test_ucb_recompute");
  int any = 0;
  MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  MPI_Finalize();
  return any;
}
