/* The incremental-Cholesky GP against an independent dense direct solve:
 * posterior mean and variance and the log marginal likelihood computed with
 * an LU factorization (LAPACKE_dgesv/dgetrf) of the full covariance in units
 * of v must agree to 1e-9 relative; the incrementally built factor must
 * equal a full Cholesky refactorization (LAPACKE_dpotrf) of the normalized
 * covariance. Cases: SE and Matérn-5/2, noisy and noise-free with jitter. */
#include <lapacke.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "dpbo/gp.h"
#include "dpbo/rng.h"

enum { D = 3, T = 40, Q = 25 };

static void run_case(dpbo_kernel_kind kind, double noise_std, double jitter) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_rng rng;
  dpbo_rng_seed(&rng, 2015u + (uint64_t)kind, 3u);
  const double ls[D] = {0.3, 0.5, 0.8};
  dpbo_kernel kernel;
  CHECK_OK(dpbo_kernel_init(&kernel, kind, D, ls, &err));
  dpbo_gp_prior prior = {.mean = 0.7, .signal_std = 0.2, .noise_std = noise_std, .jitter = jitter};
  dpbo_gp *gp = NULL;
  CHECK_OK(dpbo_gp_create(&kernel, &prior, T, &gp, &err));
  if (!gp) return;
  /* The handle's public getters give back what it was made with. */
  CHECK(dpbo_gp_get_prior(gp)->signal_std == prior.signal_std &&
        dpbo_gp_get_prior(gp)->mean == prior.mean);
  CHECK(dpbo_gp_kernel(gp)->kind == kind);

  double x[T][D], v[T];
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < D; i++)
      x[t][i] = dpbo_rng_uniform(&rng);
    v[t] = 0.7 + 0.2 * sin(3 * x[t][0]) * cos(2 * x[t][1]) + 0.05 * dpbo_rng_normal(&rng);
    CHECK_OK(dpbo_gp_append(gp, x[t], v[t], &err));
  }
  CHECK(dpbo_gp_count(gp) == T);

  /* Dense covariance in units of v. */
  const double s2 = prior.signal_std * prior.signal_std;
  const double diag = noise_std * noise_std + s2 * jitter;
  static double C[T * T], lu[T * T], alpha[T], kn[T * T];
  lapack_int piv[T];
  for (int i = 0; i < T; i++)
    for (int j = 0; j < T; j++) {
      double k = dpbo_kernel_eval(&kernel, x[i], x[j]);
      C[i * T + j] = s2 * k + (i == j ? diag : 0.0);
      kn[i * T + j] = k + (i == j ? diag / s2 : 0.0);
    }
  memcpy(lu, C, sizeof lu);
  CHECK(LAPACKE_dgetrf(LAPACK_ROW_MAJOR, T, T, lu, T, piv) == 0);
  for (int i = 0; i < T; i++)
    alpha[i] = v[i] - prior.mean;
  CHECK(LAPACKE_dgetrs(LAPACK_ROW_MAJOR, 'N', T, 1, lu, T, piv, alpha, 1) == 0);
  double logdet = 0, quad = 0;
  for (int i = 0; i < T; i++) {
    logdet += log(fabs(lu[i * T + i]));
    quad += (v[i] - prior.mean) * alpha[i];
  }
  double direct_ll = -0.5 * quad - 0.5 * logdet - 0.5 * T * log(2 * M_PI);
  CHECK_CLOSE(dpbo_gp_log_likelihood(gp), direct_ll, 1e-9, 1e-300);

  /* Posterior at query points (and at the data points themselves). */
  for (int q = 0; q < Q + 3; q++) {
    double u[D];
    for (int i = 0; i < D; i++)
      u[i] = q < Q ? dpbo_rng_uniform(&rng) : x[q - Q][i];
    double kstar[T], w[T];
    for (int t = 0; t < T; t++)
      kstar[t] = s2 * dpbo_kernel_eval(&kernel, x[t], u);
    memcpy(w, kstar, sizeof w);
    CHECK(LAPACKE_dgetrs(LAPACK_ROW_MAJOR, 'N', T, 1, lu, T, piv, w, 1) == 0);
    double mean = prior.mean, var = s2;
    for (int t = 0; t < T; t++) {
      mean += kstar[t] * alpha[t];
      var -= kstar[t] * w[t];
    }
    double gmean, gvar;
    dpbo_gp_predict(gp, u, &gmean, &gvar);
    CHECK_CLOSE(gmean, mean, 1e-9, 1e-12);
    /* A posterior variance is the prior variance minus an explained part, so
     * near a data point both methods cancel to a tiny difference whose
     * relative error no method controls; agreement is measured against the
     * prior variance s² (1e-9 of it). */
    CHECK_CLOSE(gvar, var, 1e-9, s2);
  }

  /* Incremental factor equals a full refactorization. */
  int ld;
  const double *L = dpbo_gp_factor(gp, &ld);
  CHECK(LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', T, kn, T) == 0);
  double worst = 0;
  for (int i = 0; i < T; i++)
    for (int j = 0; j <= i; j++)
      worst = fmax(worst, fabs(L[i * ld + j] - kn[i * T + j]));
  CHECK_MSG(worst < 1e-10, "incremental vs full Cholesky differ by %g", worst);
  dpbo_gp_destroy(gp);
}

/* Dense posterior of f at u from the rows `use` (use[i] = 1) of x/v, in units
 * of v (LU solve of the noisy covariance), for the GP-BUCB check. */
static void dense_posterior(const dpbo_kernel *kernel, const dpbo_gp_prior *prior, int n,
                            double x[][D], const double *v, const int *use, const double *u,
                            double *mean, double *var) {
  static double C[T * T];
  double alpha[T], kstar[T], w[T];
  int idx[T], c = 0;
  lapack_int piv[T];
  const double s2 = prior->signal_std * prior->signal_std;
  for (int i = 0; i < n; i++)
    if (use[i]) idx[c++] = i;
  for (int i = 0; i < c; i++) {
    for (int j = 0; j < c; j++)
      C[i * c + j] = s2 * dpbo_kernel_eval(kernel, x[idx[i]], x[idx[j]]) +
                     (i == j ? prior->noise_std * prior->noise_std + s2 * prior->jitter : 0.0);
    alpha[i] = v[idx[i]] - prior->mean;
    kstar[i] = s2 * dpbo_kernel_eval(kernel, x[idx[i]], u);
  }
  memcpy(w, kstar, (size_t)c * sizeof *w); /* only the c rows in use are set */
  *mean = prior->mean;
  *var = s2;
  if (c > 0) {
    CHECK(LAPACKE_dgesv(LAPACK_ROW_MAJOR, c, 1, C, c, piv, alpha, 1) == 0);
    for (int i = 0; i < c; i++) {
      for (int j = 0; j < c; j++)
        C[i * c + j] = s2 * dpbo_kernel_eval(kernel, x[idx[i]], x[idx[j]]) +
                       (i == j ? prior->noise_std * prior->noise_std + s2 * prior->jitter : 0.0);
    }
    CHECK(LAPACKE_dgesv(LAPACK_ROW_MAJOR, c, 1, C, c, piv, w, 1) == 0);
  }
  for (int i = 0; i < c; i++) {
    *mean += kstar[i] * alpha[i];
    *var -= kstar[i] * w[i];
  }
}

/* GP-BUCB: points enter as pending (hallucinated) and get their values in a
 * different order. At every stage the GP's mean must be the dense posterior
 * mean given the observed rows only, and its variance the dense posterior
 * variance given all rows, observed and pending (both to 1e-9 of s²). */
static void run_bucb_case(dpbo_kernel_kind kind) {
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_rng rng;
  dpbo_rng_seed(&rng, 77u + (uint64_t)kind, 5u);
  const double ls[D] = {0.4, 0.3, 0.6};
  dpbo_kernel kernel;
  CHECK_OK(dpbo_kernel_init(&kernel, kind, D, ls, &err));
  dpbo_gp_prior prior = {.mean = 0.5, .signal_std = 0.3, .noise_std = 0.03, .jitter = 0.0};
  dpbo_gp *gp = NULL;
  CHECK_OK(dpbo_gp_create(&kernel, &prior, T, &gp, &err));
  if (!gp) return;
  double x[T][D], v[T];
  int observed[T] = {0}, all[T], row_of[T], n = 0;
  for (int t = 0; t < T; t++) {
    for (int i = 0; i < D; i++)
      x[t][i] = dpbo_rng_uniform(&rng);
    v[t] = 0.5 + 0.3 * sin(4 * x[t][0] + x[t][2]) * cos(3 * x[t][1]);
    all[t] = 1;
  }
  /* Stage: append 3 pending, then resolve the middle one, and so on. */
  int checks = 0;
  while (n < T) {
    for (int k = 0; k < 3 && n < T; k++, n++) {
      CHECK_OK(dpbo_gp_append_pending(gp, x[n], &err));
      row_of[n] = dpbo_gp_count(gp) - 1;
    }
    /* Resolve some pending rows, not in order. */
    for (int i = n - 1; i >= 0; i -= 2)
      if (!observed[i]) {
        CHECK_OK(dpbo_gp_resolve(gp, row_of[i], v[i], &err));
        observed[i] = 1;
        break;
      }
    int done_count = 0;
    for (int i = 0; i < n; i++)
      done_count += observed[i];
    CHECK(dpbo_gp_pending_count(gp) == n - done_count);
    for (int q = 0; q < 6; q++) {
      double u[D], gmean, gvar, mean, var, mean_all, var_all;
      for (int i = 0; i < D; i++)
        u[i] = q < 5 ? dpbo_rng_uniform(&rng) : x[n - 1][i];
      dpbo_gp_predict(gp, u, &gmean, &gvar);
      dense_posterior(&kernel, &prior, n, x, v, observed, u, &mean, &var);
      dense_posterior(&kernel, &prior, n, x, v, all, u, &mean_all, &var_all);
      CHECK_CLOSE(gmean, mean, 1e-9, prior.signal_std);
      CHECK_CLOSE(gvar, var_all, 1e-9, prior.signal_std * prior.signal_std);
      checks++;
    }
  }
  /* Resolve the rest: then the GP is the ordinary posterior of all rows. */
  for (int i = 0; i < n; i++)
    if (!observed[i]) {
      CHECK_OK(dpbo_gp_resolve(gp, row_of[i], v[i], &err));
      observed[i] = 1;
    }
  CHECK(dpbo_gp_pending_count(gp) == 0);
  double u[D] = {0.3, 0.6, 0.1}, gmean, gvar, mean, var;
  dpbo_gp_predict(gp, u, &gmean, &gvar);
  dense_posterior(&kernel, &prior, n, x, v, all, u, &mean, &var);
  CHECK_CLOSE(gmean, mean, 1e-9, prior.signal_std);
  /* A resolved row cannot be resolved twice. */
  CHECK(dpbo_gp_resolve(gp, row_of[0], 0.0, &err) == DPBO_ERR_ARG);
  printf("GP-BUCB (%s): %d comparisons with the dense posterior\n", dpbo_kernel_kind_name(kind),
         checks);
  dpbo_gp_destroy(gp);
}

int main(void) {
  dpbo_error err;
  dpbo_error_clear(&err);
  run_case(DPBO_KERNEL_SE, 0.05, 0.0);
  run_case(DPBO_KERNEL_MATERN52, 0.05, 0.0);
  run_case(DPBO_KERNEL_MATERN52, 0.0, 1e-8);
  run_case(DPBO_KERNEL_SE, 0.0, 1e-6);
  run_bucb_case(DPBO_KERNEL_SE);
  run_bucb_case(DPBO_KERNEL_MATERN52);

  /* A repeated point with neither noise nor jitter is refused, and the GP is
   * left as it was. */
  dpbo_kernel kernel;
  const double ls[1] = {0.2};
  CHECK_OK(dpbo_kernel_init(&kernel, DPBO_KERNEL_SE, 1, ls, &err));
  dpbo_gp_prior exact = {.mean = 0, .signal_std = 1, .noise_std = 0, .jitter = 0};
  dpbo_gp *gp = NULL;
  CHECK_OK(dpbo_gp_create(&kernel, &exact, 4, &gp, &err));
  double u[1] = {0.5};
  CHECK_OK(dpbo_gp_append(gp, u, 1.0, &err));
  CHECK(dpbo_gp_append(gp, u, 1.0, &err) == DPBO_ERR_NUMERIC);
  CHECK(strstr(err.message, "jitter") != NULL);
  CHECK(dpbo_gp_count(gp) == 1);
  /* Capacity is enforced. */
  double more[1] = {0.0};
  CHECK_OK(dpbo_gp_append(gp, more, 0.0, &err));
  more[0] = 1.0;
  CHECK_OK(dpbo_gp_append(gp, more, 0.0, &err));
  more[0] = 0.25;
  CHECK_OK(dpbo_gp_append(gp, more, 0.0, &err));
  more[0] = 0.75;
  CHECK(dpbo_gp_append(gp, more, 0.0, &err) == DPBO_ERR_ARG);
  dpbo_gp_destroy(gp);

  /* Past DPBO_GP_MAGNITUDE_MAX the GP's squares overflow (issue #27: a
   * noise of 1e308 was reported as a singular covariance needing a jitter):
   * such priors and observations are refused for what they are. */
  gp = NULL;
  dpbo_gp_prior huge = {.mean = 0, .signal_std = 50, .noise_std = 1e308, .jitter = 0};
  CHECK(dpbo_gp_create(&kernel, &huge, 4, &gp, &err) == DPBO_ERR_ARG && gp == NULL);
  CHECK_MSG(strstr(err.message, "noise std must lie in [0, 1e+100]") != NULL, "%s", err.message);
  huge.noise_std = 1e60;
  huge.signal_std = 1e-60;
  CHECK(dpbo_gp_create(&kernel, &huge, 4, &gp, &err) == DPBO_ERR_ARG);
  CHECK_MSG(strstr(err.message, "noise std / signal std") != NULL, "%s", err.message);
  huge = (dpbo_gp_prior){.mean = 1e308, .signal_std = 1, .noise_std = 0.1, .jitter = 0};
  CHECK(dpbo_gp_create(&kernel, &huge, 4, &gp, &err) == DPBO_ERR_ARG);
  huge = (dpbo_gp_prior){.mean = 0, .signal_std = 1e-300, .noise_std = 0, .jitter = 1e-10};
  CHECK_OK(dpbo_gp_create(&kernel, &huge, 4, &gp, &err));
  CHECK(dpbo_gp_append(gp, u, 1.0, &err) == DPBO_ERR_NUMERIC);
  CHECK_MSG(strstr(err.message, "prior standard deviations") != NULL, "%s", err.message);
  CHECK(dpbo_gp_append(gp, u, 1e101, &err) == DPBO_ERR_NUMERIC);
  CHECK(dpbo_gp_count(gp) == 0);
  dpbo_gp_destroy(gp);

  /* Kernels: normalized, known values. r = 1: SE e^{-1/2}; Matérn (1+√5+5/3)e^{-√5}. */
  double a[1] = {0.0}, b[1] = {0.2};
  CHECK_CLOSE(dpbo_kernel_eval(&kernel, a, a), 1.0, 1e-15, 0);
  CHECK_CLOSE(dpbo_kernel_eval(&kernel, a, b), exp(-0.5), 1e-15, 0);
  dpbo_kernel matern;
  CHECK_OK(dpbo_kernel_init(&matern, DPBO_KERNEL_MATERN52, 1, ls, &err));
  CHECK_CLOSE(dpbo_kernel_eval(&matern, a, b), (1 + sqrt(5.0) + 5.0 / 3.0) * exp(-sqrt(5.0)), 1e-15,
              0);

  /* The kernels' own exp against libm's on [-708, 0]: within 1 ulp (libm's
   * exp is itself correctly rounded to < 1 ulp, so allow 2 ulp between them),
   * and the block evaluation equals the scalar one bit for bit. */
  double worst_ulp = 0;
  for (int i = 0; i <= 2000000; i++) {
    double x = -708.0 * i / 2000000.0;
    double mine = dpbo_exp_nonpositive(x), ref = exp(x);
    double ulp = nextafter(ref, INFINITY) - ref;
    worst_ulp = fmax(worst_ulp, fabs(mine - ref) / ulp);
  }
  CHECK_MSG(worst_ulp <= 2.0, "dpbo_exp_nonpositive is %g ulp from libm exp", worst_ulp);
  CHECK(dpbo_exp_nonpositive(0.0) == 1.0);
  CHECK(dpbo_exp_nonpositive(-800.0) == 0.0);
  double r2[1003], kb[1003];
  for (int i = 0; i < 1003; i++)
    r2[i] = 0.013 * i;
  dpbo_kernel_of_r2_block(&matern, r2, kb, 1003);
  int same = 1;
  for (int i = 0; i < 1003; i++)
    same &= kb[i] == dpbo_kernel_of_r2(&matern, r2[i]);
  CHECK(same);
  printf("kernel exp: worst %.3f ulp from libm\n", worst_ulp);
  return dpbo_test_summary("test_gp");
}
