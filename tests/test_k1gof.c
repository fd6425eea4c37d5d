/* The statistics that test Assumption 1 in the k1 experiment (k1gof.h), on
 * 1, 2 and 4 ranks.
 *
 *  1. Kolmogorov's survival function against scipy.stats.kstwobign.sf at
 *     eight points (values computed once with scipy 1.10 and pasted here) to
 *     1e-12 relative, a KS statistic worked by hand, numpy's percentile.
 *  2. Residuals against a dense computation here: the Schur complement
 *     Σ22 − Σ21 Σ11⁻¹ Σ12 of the 2n × 2n covariance, its Cholesky factor and
 *     a triangular solve (LAPACKE), at 1 − k1 = 0.1, to 1e-9.
 *  3. Data drawn from the multi-task GP (k1 = 0.9, n = 30 settings, R = 40
 *     pairs, fixed seed) and the sweep's MLE: the residuals look N(0, 1).
 *     Under the model the KS p-value is (asymptotically, and conservatively
 *     with fitted parameters) uniform, so P(p <= α) <= α; the test uses α =
 *     0.01 and the seed is fixed, so it is deterministic, not a 1% coin.
 *  4. The assumption violated, each fitted by the same sweep: (a) F' = F +
 *     a heavy-tailed difference (a scale mixture: N(0, 0.002²) w.p. 0.9,
 *     N(0, 0.03²) w.p. 0.1, independent across settings), (b) F' drawn with
 *     k1 = 0.5 but residuals under the true parameters with k1 = 0.95. Both
 *     must give p < 1e-6 (far below any α one would use).
 *  5. Exceedance on a hand example; the bootstrap: replicate b equals the
 *     sweep run here over MPI_COMM_WORLD on the resampled pairs (LAPACK
 *     path: rank-count independent), and every rank returns the same. */
#include <lapacke.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dpbo/privacy.h"
#include "dpbo/rng.h"
#include "experiments/k1gof.h"
#include "experiments/k1lik.h"

static int rank = 0;

#define N_SET 30
#define R_SET 40
#define D_SET 2

/* R pairs from [F; F'] = m0 + chol(s²(K1 ⊗ K2) + σn² I) z, SE kernel. */
static void simulate(int R, int n, int d, const double *u, double k1, double m0, double s,
                     double sn, double ell, uint64_t seed, double *F, double *Fp) {
  double ls[DPBO_MAX_DIM];
  for (int i = 0; i < d; i++)
    ls[i] = ell;
  dpbo_kernel kernel;
  dpbo_error err;
  dpbo_kernel_init(&kernel, DPBO_KERNEL_SE, d, ls, &err);
  const int m = 2 * n;
  double *C = malloc((size_t)m * m * sizeof *C), *z = malloc((size_t)m * sizeof *z);
  for (int a = 0; a < m; a++)
    for (int b = 0; b < m; b++) {
      double kk = dpbo_kernel_eval(&kernel, u + (size_t)(a % n) * d, u + (size_t)(b % n) * d);
      C[(size_t)a * m + b] =
          s * s * ((a < n) == (b < n) ? 1.0 : k1) * kk + (a == b ? sn * sn : 0.0);
    }
  LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', m, C, m);
  dpbo_rng rng;
  dpbo_rng_seed(&rng, seed, 5u);
  for (int i = 0; i < R; i++) {
    for (int a = 0; a < m; a++)
      z[a] = dpbo_rng_normal(&rng);
    for (int a = 0; a < m; a++) {
      double y = m0;
      for (int b = 0; b <= a; b++)
        y += C[(size_t)a * m + b] * z[b];
      if (a < n)
        F[(size_t)i * n + a] = y;
      else
        Fp[(size_t)i * n + a - n] = y;
    }
  }
  free(C);
  free(z);
}

static void coords(int n, int d, uint64_t seed, double *u) {
  dpbo_rng rng;
  dpbo_rng_seed(&rng, seed, 3u);
  for (int i = 0; i < n * d; i++)
    u[i] = dpbo_rng_uniform(&rng);
}

static void ks_cases(void) {
  static const double t[8] = {0.3, 0.5, 0.8, 1.0, 1.36, 1.63, 2.0, 3.0};
  static const double scipy[8] = {0.9999906941986655,    0.9639452436648751,   0.5441424115741981,
                                  0.26999967167735456,   0.049485876755377876, 0.009846364888486529,
                                  0.0006709252557796953, 3.045995948942526e-08};
  for (int k = 0; k < 8; k++)
    CHECK_CLOSE(dpbo_k1gof_kolmogorov_sf(t[k]), scipy[k], 1e-12, 0.0);
  /* Sorted -1.5, -0.4, 0.2, 0.3, 2.1: D = Φ(2.1) − 4/5 = 0.18213557943718344
   * (scipy.stats.kstest agrees; its asymptotic p-value 0.9963777999105088). */
  const double x[5] = {-1.5, 0.2, 0.3, 2.1, -0.4};
  double D = 0, p = 0, big = 0;
  dpbo_error err;
  CHECK_OK(dpbo_k1gof_ks(x, 5, &D, &p, &big, &err));
  CHECK_CLOSE(D, 0.5 * erfc(-2.1 / sqrt(2.0)) - 0.8, 1e-14, 0.0);
  CHECK_CLOSE(D, 0.1821355794371834, 1e-13, 0.0);
  CHECK_CLOSE(p, 0.9963777999105088, 1e-12, 0.0);
  CHECK(big == 2.1);
  CHECK(dpbo_k1gof_ks(x, 0, &D, &p, &big, &err) == DPBO_ERR_ARG);
  const double q[5] = {3, 1, 2, 10, 7}; /* numpy.percentile: 1.1, 9.7, 3 */
  CHECK_CLOSE(dpbo_k1gof_quantile(q, 5, 0.025), 1.1, 1e-14, 0.0);
  CHECK_CLOSE(dpbo_k1gof_quantile(q, 5, 0.975), 9.7, 1e-14, 0.0);
  CHECK_CLOSE(dpbo_k1gof_quantile(q, 5, 0.5), 3.0, 1e-14, 0.0);
}

/* Residuals by the dense Schur complement (independent of k1gof.c). */
static void dense_residuals(int R, int n, int d, const double *F, const double *Fp, const double *u,
                            const dpbo_k1lik_fit *fit, double *z) {
  double ls[DPBO_MAX_DIM];
  for (int i = 0; i < d; i++)
    ls[i] = fit->lengthscale;
  dpbo_kernel kernel;
  dpbo_error err;
  dpbo_kernel_init(&kernel, DPBO_KERNEL_SE, d, ls, &err);
  const double s2 = fit->s * fit->s, sn2 = fit->sigma_n * fit->sigma_n;
  double *A = malloc((size_t)n * n * sizeof *A), *X = malloc((size_t)n * n * sizeof *X);
  double *S = malloc((size_t)n * n * sizeof *S), *r = malloc((size_t)n * sizeof *r);
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      double kk = dpbo_kernel_eval(&kernel, u + (size_t)a * d, u + (size_t)b * d);
      A[(size_t)a * n + b] = s2 * kk + (a == b ? sn2 : 0.0);
      X[(size_t)a * n + b] = s2 * fit->k1 * kk; /* Σ12, symmetric */
      S[(size_t)a * n + b] = A[(size_t)a * n + b];
    }
  /* X <- A⁻¹ Σ12 (A is factored in place by dposv). */
  double *Af = malloc((size_t)n * n * sizeof *Af);
  memcpy(Af, A, (size_t)n * n * sizeof *A);
  LAPACKE_dposv(LAPACK_ROW_MAJOR, 'L', n, n, Af, n, X, n);
  for (int a = 0; a < n; a++)
    for (int b = 0; b < n; b++) {
      double acc = 0;
      for (int c = 0; c < n; c++) {
        double kk = dpbo_kernel_eval(&kernel, u + (size_t)a * d, u + (size_t)c * d);
        acc += s2 * fit->k1 * kk * X[(size_t)c * n + b];
      }
      S[(size_t)a * n + b] -= acc;
    }
  LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, S, n);
  for (int i = 0; i < R; i++) {
    for (int a = 0; a < n; a++)
      r[a] = F[(size_t)i * n + a] - fit->m0;
    LAPACKE_dpotrs(LAPACK_ROW_MAJOR, 'L', n, 1, Af, n, r, 1); /* A⁻¹ (F − m0) */
    for (int a = 0; a < n; a++) {
      double mean = fit->m0;
      for (int c = 0; c < n; c++)
        mean +=
            s2 * fit->k1 * dpbo_kernel_eval(&kernel, u + (size_t)a * d, u + (size_t)c * d) * r[c];
      z[(size_t)i * n + a] = Fp[(size_t)i * n + a] - mean;
    }
    LAPACKE_dtrtrs(LAPACK_ROW_MAJOR, 'L', 'N', 'N', n, 1, S, n, z + (size_t)i * n, 1);
  }
  free(A);
  free(Af);
  free(X);
  free(S);
  free(r);
}

/* The sweep's MLE on (F, F'), then the residuals' KS p-value. */
static double fitted_pvalue(const double *F, const double *Fp, const double *u, const char *what,
                            dpbo_k1lik_fit *mle) {
  dpbo_error err;
  dpbo_k1lik *lik = NULL;
  dpbo_k1lik_result res;
  memset(&res, 0, sizeof res);
  double D = NAN, p = NAN, big = NAN;
  double *z = malloc((size_t)R_SET * N_SET * sizeof *z);
  CHECK_OK(dpbo_k1lik_create(MPI_COMM_WORLD, &(dpbo_k1lik_sets){R_SET, N_SET, D_SET, F, Fp, u},
                             NULL, &lik, &err));
  if (lik) CHECK_OK(dpbo_k1lik_sweep(lik, N_SET, 0.05, &res, &err));
  if (res.grid) {
    *mle = res.mle;
    CHECK_OK(dpbo_k1gof_residuals(&(dpbo_k1lik_sets){R_SET, N_SET, D_SET, F, Fp, u}, DPBO_KERNEL_SE,
                                  &res.mle, z, &err));
    CHECK_OK(dpbo_k1gof_ks(z, R_SET * N_SET, &D, &p, &big, &err));
    if (rank == 0)
      printf("%s: k1 MLE %.5f, KS D = %.4f, p = %.3g, max |z| = %.2f\n", what, res.mle.k1, D, p,
             big);
  }
  dpbo_k1lik_result_free(&res);
  dpbo_k1lik_destroy(lik);
  free(z);
  return p;
}

static void model_cases(void) {
  const int n = N_SET, R = R_SET, d = D_SET;
  double *u = malloc((size_t)n * d * sizeof *u);
  double *F = malloc((size_t)R * n * sizeof *F), *Fp = malloc((size_t)R * n * sizeof *Fp);
  double *z = malloc((size_t)R * n * sizeof *z), *zd = malloc((size_t)R * n * sizeof *zd);
  dpbo_error err;
  coords(n, d, 1u, u);

  /* 2. Against the dense computation at fixed parameters. */
  simulate(R, n, d, u, 0.9, 0.8, 0.05, 0.01, 0.3, 1u, F, Fp);
  dpbo_k1lik_fit truth = {
      .k1 = 0.9, .one_minus_k1 = 0.1, .m0 = 0.8, .s = 0.05, .sigma_n = 0.01, .lengthscale = 0.3};
  CHECK_OK(
      dpbo_k1gof_residuals(&(dpbo_k1lik_sets){R, n, d, F, Fp, u}, DPBO_KERNEL_SE, &truth, z, &err));
  dense_residuals(R, n, d, F, Fp, u, &truth, zd);
  double worst = 0;
  for (int i = 0; i < R * n; i++)
    worst = fmax(worst, fabs(z[i] - zd[i]));
  if (rank == 0) printf("residuals against the dense Schur complement: max diff %.3g\n", worst);
  CHECK(worst < 1e-9);

  /* 3. From the model, fitted: N(0, 1). */
  const double alpha = 0.01;
  dpbo_k1lik_fit mle;
  double p = fitted_pvalue(F, Fp, u, "model (k1 = 0.9)", &mle);
  CHECK_MSG(p > alpha, "KS p-value %.3g under the model", p);

  /* 4a. A heavy-tailed difference. */
  dpbo_rng rng;
  dpbo_rng_seed(&rng, 2u, 7u);
  for (int i = 0; i < R * n; i++) {
    const double scale = dpbo_rng_uniform(&rng) < 0.9 ? 0.002 : 0.03;
    Fp[i] = F[i] + scale * dpbo_rng_normal(&rng);
  }
  p = fitted_pvalue(F, Fp, u, "heavy-tailed difference", &mle);
  CHECK_MSG(p < 1e-6, "KS p-value %.3g with a heavy-tailed difference", p);

  /* 4b. k1 = 0.5 in the data, 0.95 in the residuals. */
  simulate(R, n, d, u, 0.5, 0.8, 0.05, 0.01, 0.3, 3u, F, Fp);
  dpbo_k1lik_fit wrong = truth, right = truth;
  wrong.k1 = 0.95;
  wrong.one_minus_k1 = 0.05;
  right.k1 = 0.5;
  right.one_minus_k1 = 0.5;
  double D, big, p_wrong = NAN, p_right = NAN;
  CHECK_OK(
      dpbo_k1gof_residuals(&(dpbo_k1lik_sets){R, n, d, F, Fp, u}, DPBO_KERNEL_SE, &wrong, z, &err));
  CHECK_OK(dpbo_k1gof_ks(z, R * n, &D, &p_wrong, &big, &err));
  CHECK_OK(
      dpbo_k1gof_residuals(&(dpbo_k1lik_sets){R, n, d, F, Fp, u}, DPBO_KERNEL_SE, &right, z, &err));
  CHECK_OK(dpbo_k1gof_ks(z, R * n, &D, &p_right, &big, &err));
  if (rank == 0)
    printf("data k1 = 0.5: KS p = %.3g at k1 = 0.95, %.3g at the true 0.5\n", p_wrong, p_right);
  CHECK_MSG(p_wrong < 1e-6, "KS p-value %.3g with the wrong k1", p_wrong);
  CHECK_MSG(p_right > alpha, "KS p-value %.3g with the true k1", p_right);

  /* 5. Bootstrap: replicate b is the sweep on resample b. */
  simulate(R, n, d, u, 0.9, 0.8, 0.05, 0.01, 0.3, 1u, F, Fp);
  enum { B = 3 };
  int32_t index[B * R_SET], boundary[B];
  double k1[B], t[B], s2t[B];
  dpbo_k1lik_options opt;
  dpbo_k1lik_options_default(&opt);
  const dpbo_k1gof_bootstrap_in bin = {.R = R,
                                       .n = n,
                                       .d = d,
                                       .F = F,
                                       .Fp = Fp,
                                       .coords = u,
                                       .options = &opt,
                                       .B = B,
                                       .seed = 9u,
                                       .stream = UINT64_C(1) << 40,
                                       .N = n,
                                       .delta = 0.05};
  dpbo_k1gof_bootstrap_out bout = {
      .index = index, .k1 = k1, .one_minus_k1 = t, .s2t = s2t, .boundary = boundary};
  CHECK_OK(dpbo_k1gof_bootstrap(MPI_COMM_WORLD, &bin, &bout, &err));
  double *Fb = malloc((size_t)R * n * sizeof *Fb), *Fpb = malloc((size_t)R * n * sizeof *Fpb);
  for (int b = 0; b < B; b++) {
    for (int i = 0; i < R; i++) {
      CHECK(index[b * R + i] >= 0 && index[b * R + i] < R);
      memcpy(Fb + (size_t)i * n, F + (size_t)index[b * R + i] * n, (size_t)n * sizeof *F);
      memcpy(Fpb + (size_t)i * n, Fp + (size_t)index[b * R + i] * n, (size_t)n * sizeof *F);
    }
    dpbo_k1lik *lik = NULL;
    dpbo_k1lik_result res;
    memset(&res, 0, sizeof res);
    CHECK_OK(dpbo_k1lik_create(MPI_COMM_WORLD, &(dpbo_k1lik_sets){R, n, d, Fb, Fpb, u}, &opt, &lik,
                               &err));
    if (lik) CHECK_OK(dpbo_k1lik_sweep(lik, n, 0.05, &res, &err));
    CHECK(res.mle.k1 == k1[b] && res.mle.one_minus_k1 == t[b] && res.boundary == boundary[b]);
    CHECK(s2t[b] == res.mle.s * res.mle.s * res.mle.one_minus_k1);
    if (rank == 0)
      printf("bootstrap %d: k1 %.5f, s^2 (1 - k1) %.4g (the sweep on the resample: %.5f)\n", b,
             k1[b], s2t[b], res.mle.k1);
    dpbo_k1lik_result_free(&res);
    dpbo_k1lik_destroy(lik);
  }
  /* Every rank holds rank 0's replicates. */
  double mine[B], first[B];
  memcpy(mine, k1, sizeof k1);
  memcpy(first, k1, sizeof k1);
  MPI_Bcast(first, B, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  CHECK(memcmp(mine, first, sizeof mine) == 0);
  free(Fb);
  free(Fpb);
  free(u);
  free(F);
  free(Fp);
  free(z);
  free(zd);
}

static void exceedance_case(void) {
  /* Two pairs, three settings: max |F − F'| = 0.03 and 0.2. */
  const double F[6] = {0.5, 0.6, 0.7, 0.5, 0.6, 0.7};
  const double Fp[6] = {0.52, 0.57, 0.7, 0.5, 0.8, 0.69};
  const double deltas[2] = {0.05, 1e-6};
  double md[2], bound[2], rate[2];
  dpbo_k1gof_exceedance(&(dpbo_k1lik_sets){2, 3, 0, F, Fp, NULL},
                        &(dpbo_k1lik_result){.mle = {.k1 = 0.99, .s = 0.5}, .N = 3}, 2, deltas, md,
                        bound, rate);
  CHECK_CLOSE(md[0], 0.03, 1e-12, 0.0);
  CHECK_CLOSE(md[1], 0.2, 1e-12, 0.0);
  for (int k = 0; k < 2; k++)
    CHECK_CLOSE(bound[k], 0.5 * 2.0 * sqrt(0.01 * log(9.0 / deltas[k])), 1e-12, 0.0);
  /* s c = 0.217 at δ = 0.05 (no pair above), 0.390 at 1e-6 (none) */
  CHECK(rate[0] == 0.0 && rate[1] == 0.0);
  dpbo_k1gof_exceedance(&(dpbo_k1lik_sets){2, 3, 0, F, Fp, NULL},
                        &(dpbo_k1lik_result){.mle = {.k1 = 0.999, .s = 0.5}, .N = 3}, 2, deltas, md,
                        bound, rate);
  /* s c = 0.0686 at 0.05: one pair of two above; 0.1233 at 1e-6: one. */
  CHECK(rate[0] == 0.5 && rate[1] == 0.5);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  ks_cases();
  exceedance_case();
  model_cases();
  int failed = dpbo_test_summary(rank == 0 ? "test_k1gof" : "test_k1gof (worker)");
  MPI_Finalize();
  return failed;
}
