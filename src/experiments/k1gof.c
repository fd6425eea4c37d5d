/* Goodness of fit, exceedance, pipeline sensitivity and bootstrap of the k1
 * experiment; the statistics are defined in k1gof.h. */
#include "experiments/k1gof.h"

#include <cblas.h>
#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "base/h5io.h"
#include "dpbo/kernel.h"
#include "dpbo/privacy.h"
#include "dpbo/rng.h"
#include "experiments/utility.h"
#include "run/config.h"
#include "run/release.h"
#include "run/run.h"

/* ---------------------------------------------------------------------------
 * Residuals of F' given F. */

dpbo_status dpbo_k1gof_residuals(const dpbo_k1lik_sets *sets, dpbo_kernel_kind kind,
                                 const dpbo_k1lik_fit *fit, double *z, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int R = sets->R, n = sets->n, d = sets->d;
  const double *F = sets->F, *Fp = sets->Fp, *coords = sets->coords;
  double *Q = NULL, *w = NULL, *gain = NULL, *D = NULL, *L = NULL, *work = NULL, *c = NULL;
  dpbo_kernel kernel;
  double ls[DPBO_MAX_DIM];
  for (int i = 0; i < d; i++)
    ls[i] = fit->lengthscale;
  DPBO_TRY(dpbo_kernel_init(&kernel, kind, d, ls, err));
  DPBO_ALLOC(Q, (size_t)n * n, "the residuals' kernel matrix");
  DPBO_ALLOC(L, (size_t)n * n, "the conditional covariance");
  DPBO_ALLOC(w, n, "the residuals");
  DPBO_ALLOC(gain, n, "the residuals");
  DPBO_ALLOC(D, n, "the residuals");
  DPBO_ALLOC(work, (size_t)n * n, "the residuals");
  DPBO_ALLOC(c, n, "the residuals");
  for (int a = 0; a < n; a++)
    for (int b = 0; b <= a; b++)
      Q[(size_t)a * n + b] = Q[(size_t)b * n + a] =
          dpbo_kernel_eval(&kernel, coords + (size_t)a * d, coords + (size_t)b * d);
  /* Row-major: column j of Q (Q[i*n + j]) is eigenvector j. */
  if (LAPACKE_dsyevd(LAPACK_ROW_MAJOR, 'V', 'U', n, Q, n, w) != 0)
    DPBO_RAISE(DPBO_ERR_NUMERIC, "k1 residuals: the eigendecomposition of K2 did not converge");
  const double s2 = fit->s * fit->s, sn2 = fit->sigma_n * fit->sigma_n, k1 = fit->k1;
  const double onem = fit->one_minus_k1, onep = 2.0 - onem;
  for (int j = 0; j < n; j++) {
    const double lam = w[j] > 0.0 ? w[j] : 0.0; /* rounding below 0: σn² dominates */
    const double A = s2 * lam + sn2;
    gain[j] = s2 * k1 * lam / A;
    D[j] = (s2 * s2 * lam * lam * onem * onep + 2.0 * s2 * lam * sn2 + sn2 * sn2) / A;
  }
  /* Σ = Q diag(D) Qᵀ, then its Cholesky factor (lower). */
  for (int i = 0; i < n; i++)
    for (int j = 0; j < n; j++)
      work[(size_t)i * n + j] = Q[(size_t)i * n + j] * D[j];
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, n, 1.0, work, n, Q, n, 0.0, L, n);
  if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', n, L, n) != 0)
    DPBO_RAISE(DPBO_ERR_NUMERIC,
               "k1 residuals: the conditional covariance of F' given F is not positive definite "
               "at the fit (s = %g, sigma_n = %g, 1 - k1 = %g)",
               fit->s, fit->sigma_n, onem);
  for (int i = 0; i < R; i++) {
    double *zi = z + (size_t)i * n;
    const double *f = F + (size_t)i * n, *fp = Fp + (size_t)i * n;
    for (int j = 0; j < n; j++)
      zi[j] = f[j] - fit->m0;
    /* mean − m0 = Q diag(gain) Qᵀ (F − m0) */
    cblas_dgemv(CblasRowMajor, CblasTrans, n, n, 1.0, Q, n, zi, 1, 0.0, c, 1);
    for (int j = 0; j < n; j++)
      c[j] *= gain[j];
    cblas_dgemv(CblasRowMajor, CblasNoTrans, n, n, 1.0, Q, n, c, 1, 0.0, zi, 1);
    for (int j = 0; j < n; j++)
      zi[j] = fp[j] - (fit->m0 + zi[j]);
    cblas_dtrsv(CblasRowMajor, CblasLower, CblasNoTrans, CblasNonUnit, n, L, n, zi, 1);
  }
done:
  free(Q);
  free(w);
  free(gain);
  free(D);
  free(L);
  free(work);
  free(c);
  return status;
}

/* ---------------------------------------------------------------------------
 * Kolmogorov-Smirnov against N(0, 1). */

double dpbo_k1gof_kolmogorov_sf(double t) {
  if (!(t > 0.0)) return 1.0;
  if (t < 1.0) {
    /* P(K <= t) = √(2π)/t Σ_{k>=1} e^{−(2k−1)²π²/(8t²)}: fast where the
     * alternating series is slow. */
    const double a = M_PI * M_PI / (8.0 * t * t);
    double sum = 0.0;
    for (int k = 1; k <= 50; k++) {
      const double term = exp(-(2.0 * k - 1.0) * (2.0 * k - 1.0) * a);
      sum += term;
      if (term < 1e-18 * sum) break;
    }
    return 1.0 - sqrt(2.0 * M_PI) / t * sum;
  }
  double sum = 0.0, sign = 1.0;
  for (int k = 1; k <= 100; k++, sign = -sign) {
    const double term = exp(-2.0 * k * k * t * t);
    sum += sign * term;
    if (term < 1e-18) break;
  }
  const double p = 2.0 * sum;
  return p < 0.0 ? 0.0 : p > 1.0 ? 1.0 : p;
}

static int k1gof_compare(const void *a, const void *b) {
  const double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

dpbo_status dpbo_k1gof_ks(const double *x, int64_t count, double *statistic, double *pvalue,
                          double *max_abs, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  double *sorted = NULL;
  if (count < 1) DPBO_RAISE(DPBO_ERR_ARG, "KS test of an empty sample");
  DPBO_ALLOC(sorted, count, "the KS test");
  memcpy(sorted, x, (size_t)count * sizeof *x);
  qsort(sorted, (size_t)count, sizeof *sorted, k1gof_compare);
  double D = 0.0, big = 0.0;
  for (int64_t i = 0; i < count; i++) {
    const double cdf = 0.5 * erfc(-sorted[i] / M_SQRT2);
    const double above = (double)(i + 1) / (double)count - cdf, below = cdf - (double)i / count;
    if (above > D) D = above;
    if (below > D) D = below;
    if (fabs(sorted[i]) > big) big = fabs(sorted[i]);
  }
  *statistic = D;
  *pvalue = dpbo_k1gof_kolmogorov_sf(sqrt((double)count) * D);
  *max_abs = big;
done:
  free(sorted);
  return status;
}

/* ---------------------------------------------------------------------------
 * What the proof uses: max_λ |F − F'| against s·c. */

void dpbo_k1gof_exceedance(const dpbo_k1lik_sets *sets, const dpbo_k1lik_result *fit, int count,
                           const double *deltas, double *max_diff, double *bound, double *rate) {
  const int R = sets->R, n = sets->n;
  const double *F = sets->F, *Fp = sets->Fp;
  const double k1 = fit->mle.k1, s = fit->mle.s;
  const int64_t N = fit->N;
  for (int i = 0; i < R; i++) {
    double big = 0.0;
    for (int j = 0; j < n; j++) {
      const double diff = fabs(F[(size_t)i * n + j] - Fp[(size_t)i * n + j]);
      if (diff > big) big = diff;
    }
    max_diff[i] = big;
  }
  for (int k = 0; k < count; k++) {
    bound[k] = s * dpbo_privacy_c(k1, N, deltas[k], 3.0);
    int above = 0;
    for (int i = 0; i < R; i++)
      above += max_diff[i] > bound[k];
    rate[k] = (double)above / R;
  }
}

/* ---------------------------------------------------------------------------
 * The pipeline: GP-UCB on F_V and on F_V'. */

typedef struct k1gof_table {
  const double *gain; /* one row of F or F' */
} k1gof_table;

static dpbo_status k1gof_table_gain(void *context, int64_t index, double *gain, dpbo_error *err) {
  (void)err;
  *gain = ((const k1gof_table *)context)->gain[index];
  return DPBO_OK;
}

/* The run's config: the demo's prior and privacy (configs/demo.ini) over
 * Λ = the sweep's Sobol points. The objective is never called (the step
 * reads the table), but the schema wants one. */
static dpbo_status k1gof_config(const dpbo_k1gof_pipeline_in *in, dpbo_config *config,
                                dpbo_error *err) {
  enum { FIXED = 17, LINE = 160 };
  char lines[FIXED + DPBO_MAX_DIM][LINE];
  const char *assign[FIXED + DPBO_MAX_DIM];
  int k = 0;
  snprintf(lines[k++], LINE, "run.iterations=%d", in->T);
  snprintf(lines[k++], LINE, "run.seed=%llu", (unsigned long long)in->seed);
  snprintf(lines[k++], LINE, "space.kind=sobol");
  snprintf(lines[k++], LINE, "space.points=%lld", (long long)in->n);
  snprintf(lines[k++], LINE, "gp.kernel=matern52");
  snprintf(lines[k++], LINE, "gp.lengthscale=0.2");
  snprintf(lines[k++], LINE, "gp.mean=0.5");
  snprintf(lines[k++], LINE, "gp.signal_std=0.25");
  snprintf(lines[k++], LINE, "gp.noise_std=0.01");
  snprintf(lines[k++], LINE, "ucb.memory_limit_mb=off");
  snprintf(lines[k++], LINE, "privacy.algorithm=1");
  snprintf(lines[k++], LINE, "privacy.epsilon=1.0");
  snprintf(lines[k++], LINE, "privacy.delta=0.05");
  snprintf(lines[k++], LINE, "privacy.k1=%.17g", in->k1);
  snprintf(lines[k++], LINE, "objective.kind=synthetic");
  snprintf(lines[k++], LINE, "objective.function=gp_prior");
  /* Nothing is written; the label below is no file name. */
  snprintf(lines[k++], LINE, "output.name=k1sweep-prior");
  for (int i = 0; i < in->dims; i++)
    snprintf(lines[k++], LINE, "space.dim.%s=%s %.17g %.17g", in->dim[i].name,
             dpbo_scale_name(in->dim[i].scale), in->dim[i].lo, in->dim[i].hi);
  for (int i = 0; i < k; i++)
    assign[i] = lines[i];
  return dpbo_config_load_assignments("k1sweep pipeline (the demo's prior)", k, assign, 0, NULL,
                                      config, err);
}

/* μ_T over Λ of one GP-UCB run on gains (rank-local). */
static dpbo_status k1gof_run_mean(const dpbo_config *config, const double *gains, double **mean,
                                  dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_run run;
  memset(&run, 0, sizeof run);
  k1gof_table table = {gains};
  DPBO_TRY(dpbo_run_create(MPI_COMM_SELF, config, &run, err));
  for (int t = 0; t < config->iterations; t++)
    DPBO_TRY(dpbo_run_step(MPI_COMM_SELF, config, k1gof_table_gain, &table, &run, err));
  DPBO_TRY(dpbo_utility_gather_mean(MPI_COMM_SELF, config, &run, mean, err));
done:
  dpbo_run_free(&run);
  return status;
}

dpbo_status dpbo_k1gof_pipeline(MPI_Comm comm, const dpbo_k1gof_pipeline_in *in,
                                const dpbo_k1lik_sets *sets, double *max_diff,
                                dpbo_k1gof_pipeline_out *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const int R = sets->R;
  const double *F = sets->F, *Fp = sets->Fp;
  dpbo_config *config = NULL;
  dpbo_space *space = NULL;
  double *all = NULL, *mine = NULL, *mu = NULL, *mup = NULL;
  int rank, size;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  const int64_t n = in->n;
  DPBO_ALLOC(config, 1, "the pipeline's config");
  DPBO_ALLOC(all, (size_t)(2 * R * n), "the pipeline's gains");
  DPBO_ALLOC(mine, R, "the pipeline's results");
  if (rank == 0) {
    memcpy(all, F, (size_t)(R * n) * sizeof *all);
    memcpy(all + R * n, Fp, (size_t)(R * n) * sizeof *all);
  }
  DPBO_MPI_TRY(MPI_Bcast(all, (int)(2 * R * n), MPI_DOUBLE, 0, comm));
  local = k1gof_config(in, config, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));

  /* Δ_λ as the release computes it (the same on every rank). */
  dpbo_privacy_inputs pin;
  dpbo_sensitivity sens;
  local = dpbo_run_space(config, &space, err);
  if (local == DPBO_OK) local = dpbo_release_inputs(config, space, &pin, err);
  if (local == DPBO_OK)
    local = dpbo_privacy_sensitivities(MPI_COMM_SELF, &pin, &(dpbo_space_range){space, 0, n},
                                       &config->kernel, &sens, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  out->lambda_sensitivity = sens.lambda_sensitivity;
  out->beta_T1 = sens.beta_T1;
  out->c_lambda = sens.c_lambda;
  out->signal_std = sens.signal_std;

  /* Pair i on rank i mod size. */
  for (int i = 0; i < R; i++)
    mine[i] = 0.0;
  for (int i = rank; i < R && local == DPBO_OK; i += size) {
    local = k1gof_run_mean(config, all + (size_t)i * n, &mu, err);
    if (local == DPBO_OK) local = k1gof_run_mean(config, all + (size_t)(R + i) * n, &mup, err);
    if (local == DPBO_OK)
      for (int64_t j = 0; j < n; j++)
        if (fabs(mu[j] - mup[j]) > mine[i]) mine[i] = fabs(mu[j] - mup[j]);
    free(mu);
    free(mup);
    mu = mup = NULL;
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  /* Every other rank holds 0 for pair i: the sum is exact. */
  DPBO_MPI_TRY(MPI_Allreduce(mine, max_diff, R, MPI_DOUBLE, MPI_SUM, comm));
done:
  if (config) dpbo_config_free(config);
  free(config);
  dpbo_space_destroy(space);
  free(all);
  free(mine);
  free(mu);
  free(mup);
  return status;
}

/* ---------------------------------------------------------------------------
 * Bootstrap over the pairs. */

/* Memory a rank's bootstrap basis may take (k1lik.h): at the Covertype
 * sweep's size (n = 100 settings, R = 100 sets, ~700 lattice points) it
 * needs about 140 MB; beyond this the refits compute the rest themselves. */
#define K1GOF_BASIS_MAX_BYTES ((size_t)1 << 30)

dpbo_status dpbo_k1gof_bootstrap(MPI_Comm comm, const dpbo_k1gof_bootstrap_in *in,
                                 dpbo_k1gof_bootstrap_out *out, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  double *all = NULL, *Fb = NULL, *Fpb = NULL, *res = NULL, *sum = NULL;
  dpbo_k1lik *lik = NULL;
  dpbo_k1lik_basis *basis = NULL;
  dpbo_k1lik_result result;
  memset(&result, 0, sizeof result);
  memset(&out->work, 0, sizeof out->work);
  out->basis_eigendecompositions = 0;
  const int R = in->R, n = in->n, d = in->d, B = in->B;
  int rank, size;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  DPBO_ALLOC(all, (size_t)2 * R * n, "the bootstrap");
  DPBO_ALLOC(Fb, (size_t)R * n, "the bootstrap");
  DPBO_ALLOC(Fpb, (size_t)R * n, "the bootstrap");
  DPBO_ALLOC(res, (size_t)4 * (B > 0 ? B : 1), "the bootstrap");
  DPBO_ALLOC(sum, (size_t)4 * (B > 0 ? B : 1), "the bootstrap");
  if (rank == 0) {
    memcpy(all, in->F, (size_t)R * n * sizeof *all);
    memcpy(all + (size_t)R * n, in->Fp, (size_t)R * n * sizeof *all);
  }
  DPBO_MPI_TRY(MPI_Bcast(all, 2 * R * n, MPI_DOUBLE, 0, comm));
  /* Every rank draws every resample (cheap), so all hold the indices. */
  for (int b = 0; b < B; b++) {
    dpbo_rng rng;
    dpbo_rng_seed(&rng, in->seed, in->stream | (uint64_t)b);
    for (int i = 0; i < R; i++)
      out->index[(size_t)b * R + i] = (int32_t)dpbo_rng_below(&rng, (uint32_t)R);
  }
  /* One rank per resample, LAPACK on that rank: results independent of the
   * number of ranks. */
  dpbo_k1lik_options opt = *in->options;
  opt.eigen_threshold = DPBO_EIGEN_MAX_N + 1;
  for (int k = 0; k < 4 * B; k++)
    res[k] = 0.0;
  /* The models are the same in every resample: one basis per rank serves
   * all of its refits (k1lik.h, dpbo_k1lik_basis). */
  const dpbo_k1lik_sets sets = {
      .R = R, .n = n, .d = d, .F = all, .Fp = all + (size_t)R * n, .coords = in->coords};
  if (rank < B) local = dpbo_k1lik_basis_create(&sets, &opt, K1GOF_BASIS_MAX_BYTES, &basis, err);
  for (int b = rank; b < B && local == DPBO_OK; b += size) {
    const int32_t *index = out->index + (size_t)b * R;
    for (int i = 0; i < R; i++) {
      memcpy(Fb + (size_t)i * n, all + (size_t)index[i] * n, (size_t)n * sizeof *Fb);
      memcpy(Fpb + (size_t)i * n, all + ((size_t)R + index[i]) * n, (size_t)n * sizeof *Fpb);
    }
    const dpbo_k1lik_sets resample = {
        .R = R, .n = n, .d = d, .F = Fb, .Fp = Fpb, .coords = in->coords};
    local = dpbo_k1lik_create(MPI_COMM_SELF, &resample, &opt, &lik, err);
    if (local == DPBO_OK) local = dpbo_k1lik_use_basis(lik, basis, index, err);
    if (local == DPBO_OK) local = dpbo_k1lik_sweep(lik, in->N, in->delta, &result, err);
    if (local == DPBO_OK) {
      res[4 * b] = result.mle.k1;
      res[4 * b + 1] = result.mle.one_minus_k1;
      res[4 * b + 2] = result.mle.s * result.mle.s * result.mle.one_minus_k1;
      res[4 * b + 3] = result.boundary;
      dpbo_k1lik_work w;
      dpbo_k1lik_work_get(lik, &w);
      out->work.eigendecompositions += w.eigendecompositions;
      out->work.scalapack += w.scalapack;
      out->work.projections += w.projections;
      out->work.entries += w.entries;
      out->work.evaluations += w.evaluations;
      out->work.logs += w.logs;
      out->work.logdet_reused += w.logdet_reused;
    } else {
      dpbo_error_prefix(err, "bootstrap resample %d", b);
    }
    dpbo_k1lik_result_free(&result);
    dpbo_k1lik_destroy(lik);
    lik = NULL;
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  if (B > 0) DPBO_MPI_TRY(MPI_Allreduce(res, sum, 4 * B, MPI_DOUBLE, MPI_SUM, comm));
  for (int b = 0; b < B; b++) {
    out->k1[b] = sum[4 * b];
    out->one_minus_k1[b] = sum[4 * b + 1];
    out->s2t[b] = sum[4 * b + 2];
    out->boundary[b] = (int32_t)sum[4 * b + 3];
  }
  /* The work, summed over the ranks: the refits' and the bases'. */
  if (basis) {
    dpbo_k1lik_work w;
    dpbo_k1lik_basis_work(basis, &w);
    out->basis_eigendecompositions = w.eigendecompositions;
    out->work.eigendecompositions += w.eigendecompositions;
    out->work.scalapack += w.scalapack;
    out->work.projections += w.projections;
  }
  int64_t counts[8] = {out->work.eigendecompositions, out->work.scalapack,
                       out->work.projections,         out->work.entries,
                       out->work.evaluations,         out->work.logs,
                       out->work.logdet_reused,       out->basis_eigendecompositions};
  DPBO_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, counts, 8, MPI_INT64_T, MPI_SUM, comm));
  out->work = (dpbo_k1lik_work){counts[0], counts[1], counts[2], counts[3],
                                counts[4], counts[5], counts[6]};
  out->basis_eigendecompositions = counts[7];
done:
  dpbo_k1lik_result_free(&result);
  dpbo_k1lik_destroy(lik);
  dpbo_k1lik_basis_destroy(basis);
  free(all);
  free(Fb);
  free(Fpb);
  free(res);
  free(sum);
  return status;
}

double dpbo_k1gof_quantile(const double *x, int count, double p) {
  double *sorted = malloc((size_t)(count > 0 ? count : 1) * sizeof *sorted);
  if (!sorted || count < 1) {
    free(sorted);
    return NAN;
  }
  memcpy(sorted, x, (size_t)count * sizeof *x);
  qsort(sorted, (size_t)count, sizeof *sorted, k1gof_compare);
  const double h = (count - 1) * p;
  const int lo = (int)floor(h);
  const int hi = lo + 1 < count ? lo + 1 : lo;
  const double q = sorted[lo] + (h - lo) * (sorted[hi] - sorted[lo]);
  free(sorted);
  return q;
}

/* ---------------------------------------------------------------------------
 * One validation-set size: every statistic, and its output. */

const double dpbo_k1gof_deltas[DPBO_K1GOF_DELTAS] = {1e-6, 1e-5, 1e-4, 1e-3, 2e-3, 5e-3, 0.01,
                                                     0.02, 0.05, 0.1,  0.2,  0.3,  0.5};

/* Stream tag "bs" in the top bits keeps the bootstrap's streams apart from
 * the validation sets' ("k1") and the synthetic draws' ("sy"). */
#define K1GOF_BOOT_TAG (UINT64_C(0x6273) << 48)

void dpbo_k1gof_result_free(dpbo_k1gof_result *r) {
  if (!r) return;
  free(r->z);
  free(r->max_diff);
  free(r->pipeline_diff);
  free(r->index);
  free(r->boundary);
  free(r->k1);
  free(r->one_minus_k1);
  free(r->s2t);
  memset(r, 0, sizeof *r);
}

/* Rank 0: residuals, KS, exceedance. */
static dpbo_status k1gof_local(const dpbo_k1gof_task *t, dpbo_k1gof_result *r, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1lik_fit *mle = &t->fit->mle;
  const dpbo_k1lik_sets sets = {t->R, t->n, t->d, t->F, t->Fp, t->coords};
  DPBO_ALLOC(r->z, (size_t)t->R * t->n, "the residuals");
  DPBO_ALLOC(r->max_diff, t->R, "the exceedances");
  DPBO_TRY(dpbo_k1gof_residuals(&sets, t->options->kernel, mle, r->z, err));
  DPBO_TRY(dpbo_k1gof_ks(r->z, (int64_t)t->R * t->n, &r->ks_statistic, &r->ks_pvalue, &r->max_abs_z,
                         err));
  dpbo_k1gof_exceedance(&sets, t->fit, 1, &t->fit->delta, r->max_diff, &r->bound, &r->rate);
  dpbo_k1gof_exceedance(&sets, t->fit, DPBO_K1GOF_DELTAS, dpbo_k1gof_deltas, r->max_diff, r->bounds,
                        r->rates);
done:
  return status;
}

dpbo_status dpbo_k1gof_compute(MPI_Comm comm, const dpbo_k1gof_task *t, dpbo_k1gof_result *r,
                               dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank;
  memset(r, 0, sizeof *r);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  const dpbo_k1lik_fit *mle = &t->fit->mle;
  r->R = t->R;
  r->n = t->n;
  r->B = t->B;
  r->T = t->T;
  r->s2_one_minus_k1 = mle->s * mle->s * mle->one_minus_k1;
  if (rank == 0) local = k1gof_local(t, r, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  /* Rank 0's scalars everywhere (attributes are written collectively). */
  double scalars[5 + 2 * DPBO_K1GOF_DELTAS] = {r->ks_statistic, r->ks_pvalue, r->max_abs_z,
                                               r->bound, r->rate};
  memcpy(scalars + 5, r->bounds, sizeof r->bounds);
  memcpy(scalars + 5 + DPBO_K1GOF_DELTAS, r->rates, sizeof r->rates);
  DPBO_MPI_TRY(MPI_Bcast(scalars, 5 + 2 * DPBO_K1GOF_DELTAS, MPI_DOUBLE, 0, comm));
  r->ks_statistic = scalars[0];
  r->ks_pvalue = scalars[1];
  r->max_abs_z = scalars[2];
  r->bound = scalars[3];
  r->rate = scalars[4];
  memcpy(r->bounds, scalars + 5, sizeof r->bounds);
  memcpy(r->rates, scalars + 5 + DPBO_K1GOF_DELTAS, sizeof r->rates);

  if (t->T > 0) {
    DPBO_ALLOC(r->pipeline_diff, t->R, "the pipeline's results");
    const dpbo_k1gof_pipeline_in in = {
        .dims = t->dims, .dim = t->dim, .n = t->n, .T = t->T, .seed = t->seed, .k1 = mle->k1};
    const dpbo_k1lik_sets sets = {t->R, t->n, t->d, t->F, t->Fp, t->coords};
    DPBO_TRY(dpbo_k1gof_pipeline(comm, &in, &sets, r->pipeline_diff, &r->pipeline, err));
    for (int i = 0; i < t->R; i++) {
      if (r->pipeline_diff[i] > r->pipeline_max) r->pipeline_max = r->pipeline_diff[i];
      r->pipeline_violations += r->pipeline_diff[i] > r->pipeline.lambda_sensitivity;
    }
    r->pipeline_slack =
        r->pipeline_max > 0.0 ? r->pipeline.lambda_sensitivity / r->pipeline_max : HUGE_VAL;
  }

  r->stream = K1GOF_BOOT_TAG | (uint64_t)t->m << 24;
  if (t->B > 0) {
    const size_t B = (size_t)t->B;
    DPBO_ALLOC(r->index, B * (size_t)t->R, "the bootstrap");
    DPBO_ALLOC(r->boundary, B, "the bootstrap");
    DPBO_ALLOC(r->k1, B, "the bootstrap");
    DPBO_ALLOC(r->one_minus_k1, B, "the bootstrap");
    DPBO_ALLOC(r->s2t, B, "the bootstrap");
    const dpbo_k1gof_bootstrap_in in = {.R = t->R,
                                        .n = t->n,
                                        .d = t->d,
                                        .F = t->F,
                                        .Fp = t->Fp,
                                        .coords = t->coords,
                                        .options = t->options,
                                        .B = t->B,
                                        .seed = t->seed,
                                        .stream = r->stream,
                                        .N = t->fit->N,
                                        .delta = t->fit->delta};
    dpbo_k1gof_bootstrap_out out = {.index = r->index,
                                    .k1 = r->k1,
                                    .one_minus_k1 = r->one_minus_k1,
                                    .s2t = r->s2t,
                                    .boundary = r->boundary};
    DPBO_TRY(dpbo_k1gof_bootstrap(comm, &in, &out, err));
    r->boot_work = out.work;
    r->boot_basis_eigendecompositions = out.basis_eigendecompositions;
    r->k1_lo = dpbo_k1gof_quantile(r->k1, t->B, 0.025);
    r->k1_hi = dpbo_k1gof_quantile(r->k1, t->B, 0.975);
    r->s2t_lo = dpbo_k1gof_quantile(r->s2t, t->B, 0.025);
    r->s2t_hi = dpbo_k1gof_quantile(r->s2t, t->B, 0.975);
    for (int b = 0; b < t->B; b++)
      r->at_boundary += r->boundary[b] != 0;
  }
done:
  if (status != DPBO_OK) dpbo_k1gof_result_free(r);
  return status;
}

typedef struct k1gof_scalar {
  const char *name;
  double value;
} k1gof_scalar;

static dpbo_status k1gof_attrs(hid_t group, const k1gof_scalar *s, size_t count, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  for (size_t k = 0; k < count; k++)
    DPBO_TRY(dpbo_h5io_attr_doubles(group, s[k].name, &s[k].value, 1, err));
done:
  return status;
}

static hid_t k1gof_group(hid_t parent, const char *name) {
  return H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
}

dpbo_status dpbo_k1gof_write(hid_t parent, const dpbo_k1gof_result *r, int rank, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t g = -1;
  const double dummy = 0.0;
  const hsize_t dz[2] = {(hsize_t)r->R, (hsize_t)r->n}, dR[1] = {(hsize_t)r->R},
                dD[1] = {DPBO_K1GOF_DELTAS};
  const int64_t count = (int64_t)r->R * r->n;

  if ((g = k1gof_group(parent, "residuals")) < 0)
    DPBO_RAISE(DPBO_ERR_HDF5, "cannot create group residuals");
  DPBO_TRY(dpbo_h5io_write_small(g, &(dpbo_h5io_array){"z", H5T_NATIVE_DOUBLE, 2, dz},
                                 rank == 0 ? r->z : &dummy, rank, err));
  const k1gof_scalar res[] = {
      {"ks_statistic", r->ks_statistic}, {"ks_pvalue", r->ks_pvalue}, {"max_abs_z", r->max_abs_z}};
  DPBO_TRY(k1gof_attrs(g, res, sizeof res / sizeof res[0], err));
  DPBO_TRY(dpbo_h5io_attr_int64(g, "count", &count, 1, err));
  DPBO_TRY(dpbo_h5io_attr_string(
      g, "note",
      "z[i] = L^-1 (F_V'[i] - E[F_V'[i] | F_V[i]]), L the Cholesky factor of the conditional "
      "covariance under the fitted multi-task GP (likelihood/*_mle): i.i.d. N(0, 1) if the model "
      "holds. ks_statistic: one-sample Kolmogorov-Smirnov distance of all z to N(0, 1); ks_pvalue: "
      "asymptotic Kolmogorov p-value Q_KS(sqrt(count) D) (parameters fitted on the same data: "
      "slightly conservative)",
      err));
  H5Gclose(g);
  g = -1;

  if ((g = k1gof_group(parent, "exceedance")) < 0)
    DPBO_RAISE(DPBO_ERR_HDF5, "cannot create group exceedance");
  DPBO_TRY(dpbo_h5io_write_small(g, &(dpbo_h5io_array){"max_diff", H5T_NATIVE_DOUBLE, 1, dR},
                                 rank == 0 ? r->max_diff : &dummy, rank, err));
  DPBO_TRY(dpbo_h5io_write_small(g, &(dpbo_h5io_array){"delta", H5T_NATIVE_DOUBLE, 1, dD},
                                 dpbo_k1gof_deltas, rank, err));
  DPBO_TRY(dpbo_h5io_write_small(g, &(dpbo_h5io_array){"bound", H5T_NATIVE_DOUBLE, 1, dD},
                                 r->bounds, rank, err));
  DPBO_TRY(dpbo_h5io_write_small(g, &(dpbo_h5io_array){"rate", H5T_NATIVE_DOUBLE, 1, dD}, r->rates,
                                 rank, err));
  const k1gof_scalar exc[] = {{"bound_at_delta", r->bound}, {"rate_at_delta", r->rate}};
  DPBO_TRY(k1gof_attrs(g, exc, sizeof exc / sizeof exc[0], err));
  DPBO_TRY(dpbo_h5io_attr_string(
      g, "note",
      "max_diff[i] = max over the models of |F_V[i] - F_V'[i]| per pair; bound = s c with c = 2 "
      "sqrt((1 - k1) log(3N/delta)) at the MLE's k1 and s (what Algorithm 1's proof needs to hold "
      "with probability >= 1 - delta); rate = fraction of pairs with max_diff > bound, per delta; "
      "*_at_delta at likelihood.delta",
      err));
  H5Gclose(g);
  g = -1;

  if (r->T > 0) {
    if ((g = k1gof_group(parent, "pipeline")) < 0)
      DPBO_RAISE(DPBO_ERR_HDF5, "cannot create group pipeline");
    DPBO_TRY(dpbo_h5io_write_small(g, &(dpbo_h5io_array){"max_mean_diff", H5T_NATIVE_DOUBLE, 1, dR},
                                   r->pipeline_diff, rank, err));
    const k1gof_scalar pipe[] = {{"lambda_sensitivity", r->pipeline.lambda_sensitivity},
                                 {"beta_T1", r->pipeline.beta_T1},
                                 {"c_lambda", r->pipeline.c_lambda},
                                 {"signal_std", r->pipeline.signal_std},
                                 {"max", r->pipeline_max},
                                 {"slack", r->pipeline_slack}};
    DPBO_TRY(k1gof_attrs(g, pipe, sizeof pipe / sizeof pipe[0], err));
    const int64_t T = r->T;
    DPBO_TRY(dpbo_h5io_attr_int64(g, "iterations", &T, 1, err));
    DPBO_TRY(dpbo_h5io_attr_int64(g, "violations", &r->pipeline_violations, 1, err));
    DPBO_TRY(dpbo_h5io_attr_string(
        g, "note",
        "GP-UCB of a run (the demo's prior: matern52, lengthscale 0.2, mean 0.5, signal_std 0.25, "
        "noise_std 0.01; Algorithm 1, epsilon 1, delta 0.05, split 0.5) for `iterations` steps "
        "over the models' settings, once on F_V[i] and once on F_V'[i]; max_mean_diff[i] = max "
        "over the settings of |mu_T - mu'_T|; lambda_sensitivity: Theorem 1's Delta_lambda = s (2 "
        "sqrt(beta_T1) + c_lambda) the release would use with privacy.k1 = the MLE's k1; slack = "
        "lambda_sensitivity / max; violations: pairs with max_mean_diff > lambda_sensitivity",
        err));
    H5Gclose(g);
    g = -1;
  }

  if ((g = k1gof_group(parent, "bootstrap")) < 0)
    DPBO_RAISE(DPBO_ERR_HDF5, "cannot create group bootstrap");
  const int64_t ints[3] = {r->B, (int64_t)r->stream, r->at_boundary};
  DPBO_TRY(dpbo_h5io_attr_int64(g, "B", &ints[0], 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(g, "stream", &ints[1], 1, err));
  DPBO_TRY(dpbo_h5io_attr_int64(g, "at_boundary", &ints[2], 1, err));
  DPBO_TRY(dpbo_h5io_attr_doubles(g, "s2_one_minus_k1_mle", &r->s2_one_minus_k1, 1, err));
  if (r->B > 0) {
    const hsize_t dB[1] = {(hsize_t)r->B}, dI[2] = {(hsize_t)r->B, (hsize_t)r->R};
    DPBO_TRY(dpbo_h5io_write_small(g, &(dpbo_h5io_array){"k1", H5T_NATIVE_DOUBLE, 1, dB}, r->k1,
                                   rank, err));
    DPBO_TRY(dpbo_h5io_write_small(g, &(dpbo_h5io_array){"one_minus_k1", H5T_NATIVE_DOUBLE, 1, dB},
                                   r->one_minus_k1, rank, err));
    DPBO_TRY(dpbo_h5io_write_small(
        g, &(dpbo_h5io_array){"s2_one_minus_k1", H5T_NATIVE_DOUBLE, 1, dB}, r->s2t, rank, err));
    DPBO_TRY(dpbo_h5io_write_small(g, &(dpbo_h5io_array){"boundary", H5T_NATIVE_INT32, 1, dB},
                                   r->boundary, rank, err));
    DPBO_TRY(dpbo_h5io_write_small(g, &(dpbo_h5io_array){"index", H5T_NATIVE_INT32, 2, dI},
                                   r->index, rank, err));
    const k1gof_scalar boot[] = {{"k1_lo", r->k1_lo},
                                 {"k1_hi", r->k1_hi},
                                 {"s2_one_minus_k1_lo", r->s2t_lo},
                                 {"s2_one_minus_k1_hi", r->s2t_hi}};
    DPBO_TRY(k1gof_attrs(g, boot, sizeof boot / sizeof boot[0], err));
  }
  DPBO_TRY(dpbo_h5io_attr_string(
      g, "note",
      "percentile bootstrap over the validation-set pairs: B resamples of the R pairs with "
      "replacement (index[b] = the pairs of resample b, PCG stream `stream` + b of k1sweep.seed), "
      "the whole likelihood sweep refitted on each; k1_lo, k1_hi and s2_one_minus_k1_lo, _hi are "
      "the 2.5% and 97.5% quantiles (linear interpolation) of the B refits. The pairs share the "
      "models, so this interval, not likelihood/k1_lo..k1_hi (which treats the pairs as "
      "independent), is the one to report",
      err));
done:
  if (g >= 0) H5Gclose(g);
  return status;
}
