/* k1stats: the k1 sweep's statistics stage on a fixed synthetic problem
 * (issue #24): what the bootstrap's refits cost, counted and timed, with the
 * shared basis (dpbo_k1gof_bootstrap, k1lik.h's dpbo_k1lik_basis) against
 * the straightforward refit (a fresh context per resample, its own
 * eigendecompositions and projections), on the same resamples, and whether
 * the two give the same numbers (bit for bit).
 *   mpiexec -n P build/bench/k1stats [--settings N] [--sets R] [--refits B] [--quick]
 * Defaults: the Covertype sweep's shape (N = 100 settings in [0,1]², R =
 * 100 pairs, the default likelihood options) with B = 6 refits; the data
 * are drawn from the model (k1 = 0.9999, m0 = 0.78, s = 0.035, σn = 5e-5,
 * ℓ = 0.1; seed fixed). --quick: a coarse ℓ lattice (a check in seconds).
 * Prints per path: eigendecompositions, sets projected, likelihood
 * evaluations, log() calls, log-determinants reused, and the CPU seconds
 * (CLOCK_PROCESS_CPUTIME_ID, summed over the ranks). Run it on a quiet
 * machine for the times; the counts do not depend on the load. */
#include <lapacke.h>
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "dpbo/kernel.h"
#include "dpbo/rng.h"
#include "experiments/k1gof.h"
#include "experiments/k1lik.h"

static double k1stats_cpu(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* R pairs from the model: [F_i; F_i'] = m0 + chol(s²(K1 ⊗ K2) + σn² I) z. */
static int k1stats_simulate(int R, int n, const double *u, double *F, double *Fp) {
  const double k1 = 0.9999, m0 = 0.78, s = 0.035, sn = 5e-5, ls[2] = {0.1, 0.1};
  dpbo_kernel kernel;
  dpbo_error err;
  if (dpbo_kernel_init(&kernel, DPBO_KERNEL_SE, 2, ls, &err) != DPBO_OK) return 1;
  const int m = 2 * n;
  double *C = malloc((size_t)m * m * sizeof *C), *z = malloc((size_t)m * sizeof *z);
  if (!C || !z) {
    free(C);
    free(z);
    return 1;
  }
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++) {
      const double kk = dpbo_kernel_eval(&kernel, u + (size_t)(a % n) * 2, u + (size_t)(b % n) * 2);
      C[(size_t)a * m + b] =
          s * s * ((a < n) == (b < n) ? 1.0 : k1) * kk + (a == b ? sn * sn : 0.0);
    }
  int bad = LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', m, C, m) != 0;
  dpbo_rng rng;
  dpbo_rng_seed(&rng, 24u, 7u);
  for (int i = 0; i < R && !bad; i++) {
    for (int a = 0; a < m; a++)
      z[a] = dpbo_rng_normal(&rng);
    for (int a = 0; a < m; a++) {
      double y = m0;
      for (int b = 0; b <= a; b++)
        y += C[(size_t)a * m + b] * z[b];
      (a < n ? F : Fp)[(size_t)i * n + a % n] = y;
    }
  }
  free(C);
  free(z);
  return bad;
}

static void k1stats_print(const char *what, const dpbo_k1lik_work *w, int B, double cpu) {
  printf("%-16s %10.1f %10.1f %12.0f %14.0f %12.0f %10.2f\n", what,
         (double)w->eigendecompositions / B, (double)w->projections / B, (double)w->evaluations / B,
         (double)w->logs / B, (double)w->logdet_reused / B, cpu / B);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int rank, size, n = 100, R = 100, B = 6, quick = 0, code = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--settings") == 0 && i + 1 < argc)
      n = atoi(argv[++i]);
    else if (strcmp(argv[i], "--sets") == 0 && i + 1 < argc)
      R = atoi(argv[++i]);
    else if (strcmp(argv[i], "--refits") == 0 && i + 1 < argc)
      B = atoi(argv[++i]);
    else if (strcmp(argv[i], "--quick") == 0)
      quick = 1;
    else {
      if (rank == 0)
        fprintf(stderr, "usage: k1stats [--settings N] [--sets R] [--refits B] [--quick]\n");
      MPI_Finalize();
      return 2;
    }
  }
  if (n < 2 || n > 2000 || R < 2 || R > 100000 || B < 1 || B > 10000) {
    if (rank == 0) fprintf(stderr, "k1stats: need 2 <= N <= 2000, R >= 2, 1 <= B <= 10000\n");
    MPI_Finalize();
    return 2;
  }
  dpbo_error err;
  double *u = malloc((size_t)n * 2 * sizeof *u), *F = malloc((size_t)R * n * sizeof *F),
         *Fp = malloc((size_t)R * n * sizeof *Fp), *Fb = malloc((size_t)R * n * sizeof *Fb),
         *Fpb = malloc((size_t)R * n * sizeof *Fpb), *k1 = malloc((size_t)B * sizeof *k1),
         *t = malloc((size_t)B * sizeof *t), *s2t = malloc((size_t)B * sizeof *s2t),
         *mine = calloc((size_t)3 * B, sizeof *mine), *ref = malloc((size_t)3 * B * sizeof *ref);
  int32_t *index = malloc((size_t)B * R * sizeof *index), *bnd = malloc((size_t)B * sizeof *bnd);
  if (!u || !F || !Fp || !Fb || !Fpb || !k1 || !t || !s2t || !mine || !ref || !index || !bnd) {
    fprintf(stderr, "k1stats: out of memory\n");
    goto done;
  }
  dpbo_rng rng;
  dpbo_rng_seed(&rng, 24u, 6u);
  for (int i = 0; i < 2 * n; i++)
    u[i] = dpbo_rng_uniform(&rng);
  if (k1stats_simulate(R, n, u, F, Fp)) {
    fprintf(stderr, "k1stats: the simulation failed\n");
    goto done;
  }
  dpbo_k1lik_options opt;
  dpbo_k1lik_options_default(&opt);
  if (quick) {
    opt.ell_step = 0.05;
    opt.ell_grid = 40;
  }
  if (rank == 0)
    printf("k1stats: %d settings, %d pairs, %d refits on %d rank(s), ell lattice step %g with %d "
           "scan points%s\n",
           n, R, B, size, opt.ell_step, opt.ell_grid, quick ? " (--quick)" : "");

  /* The shared basis: dpbo_k1gof_bootstrap as the sweep runs it. */
  MPI_Barrier(MPI_COMM_WORLD);
  double c0 = k1stats_cpu();
  const dpbo_k1gof_bootstrap_in in = {.R = R,
                                      .n = n,
                                      .d = 2,
                                      .F = F,
                                      .Fp = Fp,
                                      .coords = u,
                                      .options = &opt,
                                      .B = B,
                                      .seed = 20150706u,
                                      .stream = UINT64_C(0x6273) << 48,
                                      .N = n,
                                      .delta = 0.05};
  dpbo_k1gof_bootstrap_out out = {
      .index = index, .k1 = k1, .one_minus_k1 = t, .s2t = s2t, .boundary = bnd};
  if (dpbo_k1gof_bootstrap(MPI_COMM_WORLD, &in, &out, &err) != DPBO_OK) {
    fprintf(stderr, "k1stats: %s\n", err.message);
    goto done;
  }
  double cpu_basis = k1stats_cpu() - c0;

  /* The straightforward refits of the same resamples, spread the same way. */
  dpbo_k1lik_work plain;
  memset(&plain, 0, sizeof plain);
  opt.eigen_threshold = DPBO_EIGEN_MAX_N + 1;
  MPI_Barrier(MPI_COMM_WORLD);
  c0 = k1stats_cpu();
  for (int b = rank; b < B; b += size) {
    for (int i = 0; i < R; i++) {
      memcpy(Fb + (size_t)i * n, F + (size_t)index[(size_t)b * R + i] * n, (size_t)n * sizeof *F);
      memcpy(Fpb + (size_t)i * n, Fp + (size_t)index[(size_t)b * R + i] * n, (size_t)n * sizeof *F);
    }
    dpbo_k1lik *lik = NULL;
    dpbo_k1lik_result res;
    memset(&res, 0, sizeof res);
    if (dpbo_k1lik_create(MPI_COMM_SELF, &(dpbo_k1lik_sets){R, n, 2, Fb, Fpb, u}, &opt, &lik,
                          &err) != DPBO_OK ||
        dpbo_k1lik_sweep(lik, n, 0.05, &res, &err) != DPBO_OK) {
      fprintf(stderr, "k1stats: %s\n", err.message);
      dpbo_k1lik_destroy(lik);
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    dpbo_k1lik_work w;
    dpbo_k1lik_work_get(lik, &w);
    plain.eigendecompositions += w.eigendecompositions;
    plain.projections += w.projections;
    plain.evaluations += w.evaluations;
    plain.logs += w.logs;
    plain.logdet_reused += w.logdet_reused;
    mine[3 * b] = res.mle.k1;
    mine[3 * b + 1] = res.mle.one_minus_k1;
    mine[3 * b + 2] = res.mle.s * res.mle.s * res.mle.one_minus_k1;
    dpbo_k1lik_result_free(&res);
    dpbo_k1lik_destroy(lik);
  }
  double cpu_plain = k1stats_cpu() - c0;
  MPI_Allreduce(mine, ref, 3 * B, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &plain, 7, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  double cpu[2] = {cpu_plain, cpu_basis};
  MPI_Allreduce(MPI_IN_PLACE, cpu, 2, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  int same = 1;
  double worst = 0.0;
  for (int b = 0; b < B; b++) {
    same &= ref[3 * b] == k1[b] && ref[3 * b + 1] == t[b] && ref[3 * b + 2] == s2t[b];
    const double d = fabs(ref[3 * b + 1] - t[b]) / t[b];
    if (d > worst) worst = d;
  }
  if (rank == 0) {
    printf("per refit         eigendec.   projected  evaluations      log calls  logdet memo   CPU "
           "s\n");
    k1stats_print("fresh context", &plain, B, cpu[0]);
    k1stats_print("shared basis", &out.work, B, cpu[1]);
    printf("shared basis: %lld eigendecompositions in the ranks' bases for %d refits; "
           "speed-up %.2fx (CPU)\n",
           (long long)out.basis_eigendecompositions, B, cpu[1] > 0 ? cpu[0] / cpu[1] : NAN);
    printf("same MLE k1, 1 - k1 and s^2 (1 - k1) on every refit: %s (largest relative difference "
           "of 1 - k1: %.3g)\n",
           same ? "yes, bit for bit" : "NO", worst);
    printf("bootstrap 1 - k1: median of %d refits %.6g\n", B, dpbo_k1gof_quantile(t, B, 0.5));
  }
  code = same ? 0 : 1;
done:
  free(u);
  free(F);
  free(Fp);
  free(Fb);
  free(Fpb);
  free(k1);
  free(t);
  free(s2t);
  free(mine);
  free(ref);
  free(index);
  free(bnd);
  MPI_Finalize();
  return code;
}
