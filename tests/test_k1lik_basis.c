/* The bootstrap's fast path (k1lik.h, dpbo_k1lik_basis; issue 24): a refit
 * that draws its eigenbases, projections and scan log-determinants from a
 * basis shared with other refits returns what the straightforward refit
 * returns, and what a dense computation gives.
 *
 *  1. Three resamples of R = 8 pairs of n = 10 settings (data from the
 *     model, k1 = 0.9): the sweep of a context with the basis equals the
 *     sweep of a fresh context on the same resample bit for bit (every grid
 *     point's log-likelihood, m0, s, σn, ℓ, the MLE, the interval, c).
 *  2. The work moves: the refits with the basis run no eigendecomposition
 *     and no projection (the basis runs as many eigendecompositions as the
 *     fresh contexts need distinct lattice points, once), and the refits
 *     after the first take scan log-determinants from the basis's memo.
 *  3. Independent of k1lik.c: at every grid point and at the MLE of a
 *     resample, the fast path's log-likelihood equals a dense Cholesky of
 *     each resampled set's 2n x 2n covariance s²(K1 ⊗ K2) + σn² I at the
 *     fitted parameters, to 1e-9 relative.
 *  4. A context whose sets are not the basis's sets index[i] is refused.
 *  5. A basis past its memory bound leaves the refit to its own
 *     eigendecompositions, with the same result.
 *
 * Each rank runs the whole case on MPI_COMM_SELF (the bootstrap's layout);
 * the test runs on 1, 2 and 4 ranks like the others. */
#include <lapacke.h>
#include <math.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dpbo/kernel.h"
#include "dpbo/rng.h"
#include "experiments/k1lik.h"

enum { R = 8, N = 10, D = 2, B = 3 };

/* Σ_i log N([F_i; F'_i]; m0·1, s²(K1 ⊗ K2) + σn² I) by a dense Cholesky. */
static double dense_loglik(const double *F, const double *Fp, const double *u, double t, double m0,
                           double s, double sn, double ell) {
  const double ls[D] = {ell, ell};
  dpbo_kernel kernel;
  dpbo_error err;
  dpbo_kernel_init(&kernel, DPBO_KERNEL_SE, D, ls, &err);
  const int m = 2 * N;
  double C[2 * N * 2 * N], z[2 * N], total = 0.0;
  for (int i = 0; i < R; i++) {
    for (int a = 0; a < m; a++)
      for (int b = 0; b < m; b++) {
        const double kk = dpbo_kernel_eval(&kernel, u + (a % N) * D, u + (b % N) * D);
        const double k1 = (a < N) == (b < N) ? 1.0 : 1.0 - t;
        C[a * m + b] = s * s * k1 * kk + (a == b ? sn * sn : 0.0);
      }
    if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', m, C, m) != 0) return NAN;
    double logdet = 0.0, quad = 0.0;
    for (int a = 0; a < m; a++) {
      double r = (a < N ? F[i * N + a] : Fp[i * N + a - N]) - m0;
      for (int b = 0; b < a; b++)
        r -= C[a * m + b] * z[b];
      z[a] = r / C[a * m + a];
      quad += z[a] * z[a];
      logdet += log(C[a * m + a]);
    }
    total += -0.5 * quad - logdet - N * log(2.0 * M_PI);
  }
  return total;
}

/* R pairs from the model with k1 = 0.9, m0 = 0.8, s = 0.05, σn = 0.01, ℓ = 0.3. */
static void simulate(const double *u, double *F, double *Fp) {
  const double ls[D] = {0.3, 0.3};
  dpbo_kernel kernel;
  dpbo_error err;
  dpbo_kernel_init(&kernel, DPBO_KERNEL_SE, D, ls, &err);
  const int m = 2 * N;
  double C[2 * N * 2 * N], z[2 * N];
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++) {
      const double kk = dpbo_kernel_eval(&kernel, u + (a % N) * D, u + (b % N) * D);
      C[a * m + b] = 0.05 * 0.05 * ((a < N) == (b < N) ? 1.0 : 0.9) * kk + (a == b ? 1e-4 : 0.0);
    }
  LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', m, C, m);
  dpbo_rng rng;
  dpbo_rng_seed(&rng, 24u, 1u);
  for (int i = 0; i < R; i++) {
    for (int a = 0; a < m; a++)
      z[a] = dpbo_rng_normal(&rng);
    for (int a = 0; a < m; a++) {
      double y = 0.8;
      for (int b = 0; b <= a; b++)
        y += C[a * m + b] * z[b];
      if (a < N)
        F[i * N + a] = y;
      else
        Fp[i * N + a - N] = y;
    }
  }
}

static int same_fit(const dpbo_k1lik_fit *a, const dpbo_k1lik_fit *b) {
  return a->k1 == b->k1 && a->one_minus_k1 == b->one_minus_k1 && a->loglik == b->loglik &&
         a->m0 == b->m0 && a->s == b->s && a->sigma_n == b->sigma_n &&
         a->lengthscale == b->lengthscale && a->ell_at_bound == b->ell_at_bound &&
         a->ratio_at_bound == b->ratio_at_bound;
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  dpbo_error err;
  double u[N * D], F[R * N], Fp[R * N], Fb[R * N], Fpb[R * N];
  dpbo_rng rng;
  dpbo_rng_seed(&rng, 24u, 2u);
  for (int i = 0; i < N * D; i++)
    u[i] = dpbo_rng_uniform(&rng);
  simulate(u, F, Fp);
  /* A coarser ℓ lattice than the default keeps the test to seconds. */
  dpbo_k1lik_options opt;
  dpbo_k1lik_options_default(&opt);
  opt.ell_step = 0.02;
  opt.ell_grid = 60;
  opt.eigen_threshold = DPBO_EIGEN_MAX_N + 1;
  dpbo_k1lik_basis *basis = NULL;
  const dpbo_k1lik_sets sets = {.R = R, .n = N, .d = D, .F = F, .Fp = Fp, .coords = u};
  CHECK_OK(dpbo_k1lik_basis_create(&sets, &opt, (size_t)1 << 28, &basis, &err));

  int32_t index[B][R];
  int64_t fresh_eigen_max = 0;
  double worst = 0.0;
  for (int b = 0; b < B; b++) {
    dpbo_rng_seed(&rng, 24u, 100u + (uint64_t)b);
    for (int i = 0; i < R; i++) {
      index[b][i] = (int32_t)dpbo_rng_below(&rng, R);
      memcpy(Fb + i * N, F + index[b][i] * N, N * sizeof *F);
      memcpy(Fpb + i * N, Fp + index[b][i] * N, N * sizeof *F);
    }
    dpbo_k1lik *fresh = NULL, *fast = NULL;
    dpbo_k1lik_result rf, rb;
    memset(&rf, 0, sizeof rf);
    memset(&rb, 0, sizeof rb);
    CHECK_OK(dpbo_k1lik_create(MPI_COMM_SELF, &(dpbo_k1lik_sets){R, N, D, Fb, Fpb, u}, &opt, &fresh,
                               &err));
    CHECK_OK(dpbo_k1lik_sweep(fresh, N, 0.05, &rf, &err));
    CHECK_OK(dpbo_k1lik_create(MPI_COMM_SELF, &(dpbo_k1lik_sets){R, N, D, Fb, Fpb, u}, &opt, &fast,
                               &err));
    CHECK_OK(dpbo_k1lik_use_basis(fast, basis, index[b], &err));
    CHECK_OK(dpbo_k1lik_sweep(fast, N, 0.05, &rb, &err));

    /* 1. Bit for bit. */
    CHECK(rf.count == rb.count && rf.count > 0);
    int grid_same = 1;
    for (int g = 0; g < rf.count && g < rb.count; g++)
      grid_same &= same_fit(&rf.grid[g], &rb.grid[g]);
    CHECK_MSG(grid_same, "resample %d: a grid point differs between the fresh and the basis path",
              b);
    CHECK(same_fit(&rf.mle, &rb.mle));
    CHECK(rf.boundary == rb.boundary && rf.k1_lo == rb.k1_lo && rf.k1_hi == rb.k1_hi &&
          rf.t_lo == rb.t_lo && rf.t_hi == rb.t_hi && rf.lo_open == rb.lo_open &&
          rf.hi_open == rb.hi_open && rf.c_mle == rb.c_mle && rf.c_upper == rb.c_upper);

    /* 2. Where the work went. */
    dpbo_k1lik_work wf, wb;
    dpbo_k1lik_work_get(fresh, &wf);
    dpbo_k1lik_work_get(fast, &wb);
    if (wf.eigendecompositions > fresh_eigen_max) fresh_eigen_max = wf.eigendecompositions;
    CHECK(wf.eigendecompositions > 0 && wf.projections == (int64_t)R * wf.eigendecompositions);
    CHECK_MSG(wb.eigendecompositions == 0 && wb.projections == 0,
              "resample %d: the basis path ran %lld eigendecompositions, %lld projections", b,
              (long long)wb.eigendecompositions, (long long)wb.projections);
    CHECK(wb.evaluations == wf.evaluations && wb.entries == wf.entries);
    if (b == 0)
      CHECK(wb.logdet_reused == 0);
    else
      CHECK_MSG(wb.logdet_reused > 0 && wb.logs < wf.logs,
                "resample %d: %lld log-determinants reused, %lld logs against %lld", b,
                (long long)wb.logdet_reused, (long long)wb.logs, (long long)wf.logs);
    if (rank == 0)
      printf("resample %d: MLE k1 %.6f on both paths; fresh: %lld eigendecompositions, %lld logs; "
             "basis: %lld eigendecompositions, %lld logs, %lld log-determinants reused\n",
             b, rb.mle.k1, (long long)wf.eigendecompositions, (long long)wf.logs,
             (long long)wb.eigendecompositions, (long long)wb.logs, (long long)wb.logdet_reused);

    /* 3. Against a dense Cholesky at the fitted parameters. */
    for (int g = 0; g <= rb.count; g++) {
      const dpbo_k1lik_fit *f = g < rb.count ? &rb.grid[g] : &rb.mle;
      const double dense =
          dense_loglik(Fb, Fpb, u, f->one_minus_k1, f->m0, f->s, f->sigma_n, f->lengthscale);
      const double rel = fabs(dense - f->loglik) / fabs(dense);
      if (!(rel <= worst)) worst = rel;
      CHECK_MSG(rel <= 1e-9, "resample %d, 1 - k1 = %g: dense %.12g, basis path %.12g", b,
                f->one_minus_k1, dense, f->loglik);
    }
    dpbo_k1lik_result_free(&rf);
    dpbo_k1lik_result_free(&rb);
    dpbo_k1lik_destroy(fresh);
    dpbo_k1lik_destroy(fast);
  }
  dpbo_k1lik_work wbasis;
  dpbo_k1lik_basis_work(basis, &wbasis);
  CHECK(wbasis.eigendecompositions >= fresh_eigen_max &&
        wbasis.projections == (int64_t)R * wbasis.eigendecompositions);
  if (rank == 0)
    printf("basis: %lld eigendecompositions for %d refits; dense Cholesky against the basis path: "
           "worst relative difference %.2e\n",
           (long long)wbasis.eigendecompositions, B, worst);

  /* 5. A basis with no room computes nothing itself: the refit falls back to
   * its own eigendecompositions, with the same result. */
  {
    dpbo_k1lik_basis *none = NULL;
    dpbo_k1lik *fresh = NULL, *fast = NULL;
    dpbo_k1lik_result rf, rb;
    memset(&rf, 0, sizeof rf);
    memset(&rb, 0, sizeof rb);
    CHECK_OK(dpbo_k1lik_basis_create(&sets, &opt, 0, &none, &err));
    CHECK_OK(dpbo_k1lik_create(MPI_COMM_SELF, &(dpbo_k1lik_sets){R, N, D, Fb, Fpb, u}, &opt, &fresh,
                               &err));
    CHECK_OK(dpbo_k1lik_sweep(fresh, N, 0.05, &rf, &err));
    CHECK_OK(dpbo_k1lik_create(MPI_COMM_SELF, &(dpbo_k1lik_sets){R, N, D, Fb, Fpb, u}, &opt, &fast,
                               &err));
    CHECK_OK(dpbo_k1lik_use_basis(fast, none, index[B - 1], &err));
    CHECK_OK(dpbo_k1lik_sweep(fast, N, 0.05, &rb, &err));
    dpbo_k1lik_work wf, wb, wn;
    dpbo_k1lik_work_get(fresh, &wf);
    dpbo_k1lik_work_get(fast, &wb);
    dpbo_k1lik_basis_work(none, &wn);
    CHECK(wn.eigendecompositions == 0 && wb.eigendecompositions == wf.eigendecompositions);
    CHECK(same_fit(&rf.mle, &rb.mle) && rf.k1_lo == rb.k1_lo && rf.k1_hi == rb.k1_hi);
    dpbo_k1lik_result_free(&rf);
    dpbo_k1lik_result_free(&rb);
    dpbo_k1lik_destroy(fresh);
    dpbo_k1lik_destroy(fast);
    dpbo_k1lik_basis_destroy(none);
  }

  /* 4. A context that is not the resample it claims. */
  {
    dpbo_k1lik *ctx = NULL;
    CHECK_OK(
        dpbo_k1lik_create(MPI_COMM_SELF, &(dpbo_k1lik_sets){R, N, D, F, Fp, u}, &opt, &ctx, &err));
    int32_t wrong[R];
    for (int i = 0; i < R; i++)
      wrong[i] = (int32_t)((i + 1) % R);
    CHECK(dpbo_k1lik_use_basis(ctx, basis, wrong, &err) == DPBO_ERR_ARG);
    dpbo_k1lik_destroy(ctx);
  }
  dpbo_k1lik_basis_destroy(basis);
  int failed = dpbo_test_summary(rank == 0 ? "test_k1lik_basis" : "test_k1lik_basis (worker)");
  MPI_Finalize();
  return failed;
}
