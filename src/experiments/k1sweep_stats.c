/* `dpbo k1sweep`: from accuracies to statistics: F_V and F_V' (from the
 * models, or synthetic), the likelihood sweep and the goodness of fit. */
#include "experiments/k1sweep.h"

#include <lapacke.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/comm.h"
#include "dpbo/kernel.h"
#include "base/log.h"
#include "dpbo/rng.h"
#include "experiments/k1sweep_private.h"

/* neighbour = adversarial (valset.h): every V_i' chosen from the finished
 * models' correctness bits on rank 0, its accuracies (provisional until
 * now) recomputed from the bits, and the choices sent to every rank. */
dpbo_status dpbo__k1sweep_adversarial(dpbo__k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  const dpbo_valset_models models = {st->bits, st->nbytes, st->n};
  for (int s = 0; s < c->size_count && st->rank == 0 && local == DPBO_OK; s++) {
    const int64_t m = c->size[s];
    for (int64_t i = 0; i < c->sets && local == DPBO_OK; i++) {
      const int32_t *rows = st->rows[s] + i * m;
      dpbo_valset_change *change = &st->change[s][i];
      local = dpbo_valset_adversarial(&models, m, rows, change, NULL, err);
      for (int64_t j = 0; j < st->n && local == DPBO_OK; j++) {
        double *acc = st->accuracy + j * st->acc_count + (int64_t)s * 2 * c->sets;
        dpbo_valset_accuracy(st->bits + j * st->nbytes, m, rows, change, &acc[i],
                             &acc[c->sets + i]);
      }
    }
  }
  DPBO_TRY(dpbo_comm_agree(st->comm, local, err));
  for (int s = 0; s < c->size_count; s++)
    DPBO_MPI_TRY(MPI_Bcast(st->change[s], (int)(c->sets * (int64_t)sizeof *st->change[s]), MPI_BYTE,
                           0, st->comm));
done:
  return status;
}

/* F_V and F_V' of size s, sets × n each (rank 0). */
static dpbo_status k1sweep_alloc_f(dpbo__k1sweep_state *st, int s, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  DPBO_ALLOC(st->fv[s], (size_t)(st->config->sets * st->n), "F_V");
  DPBO_ALLOC(st->fvp[s], (size_t)(st->config->sets * st->n), "F_V'");
done:
  return status;
}

/* F_V and F_V' per size from the accuracies (rank 0). */
dpbo_status dpbo__k1sweep_assemble(dpbo__k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  for (int s = 0; s < c->size_count; s++) {
    DPBO_TRY(k1sweep_alloc_f(st, s, err));
    for (int64_t j = 0; j < st->n; j++) {
      const double *acc = st->accuracy + j * st->acc_count + (int64_t)s * 2 * c->sets;
      for (int64_t i = 0; i < c->sets; i++) {
        st->fv[s][i * st->n + j] = acc[i];
        st->fvp[s][i * st->n + j] = acc[c->sets + i];
      }
    }
  }
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * Synthetic mode: accuracies from a known multi-task GP (rank 0). */

#define K1SWEEP_SYNTH_TAG (UINT64_C(0x7379) << 48)

dpbo_status dpbo__k1sweep_synthetic(dpbo__k1sweep_state *st, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  const int64_t n = st->n;
  double *K = NULL, *L = NULL, *z = NULL;
  dpbo_kernel kernel;
  double ls[DPBO_MAX_DIM];
  for (int i = 0; i < st->d; i++)
    ls[i] = c->synthetic_lengthscale;
  DPBO_TRY(dpbo_kernel_init(&kernel, c->likelihood.kernel, st->d, ls, err));
  DPBO_ALLOC(K, (size_t)(n * n), "the synthetic kernel matrix");
  DPBO_ALLOC(L, (size_t)(n * n), "the synthetic Cholesky factor");
  DPBO_ALLOC(z, (size_t)(4 * n), "the synthetic draws");
  for (int64_t a = 0; a < n; a++)
    for (int64_t b = 0; b <= a; b++)
      K[a * n + b] = K[b * n + a] =
          dpbo_kernel_eval(&kernel, st->unit + a * st->d, st->unit + b * st->d);
  /* A smooth kernel over many settings is numerically singular: add the
   * smallest jitter (a power of ten) that lets the Cholesky factorization
   * through; it is recorded in the output. */
  for (double jitter = 1e-12;; jitter *= 10) {
    if (jitter > 1e-3)
      DPBO_RAISE(DPBO_ERR_NUMERIC,
                 "synthetic k1sweep: the kernel matrix of %lld settings is not "
                 "positive definite even with jitter 1e-3 (lower synthetic_lengthscale)",
                 (long long)n);
    memcpy(L, K, (size_t)(n * n) * sizeof *L);
    for (int64_t a = 0; a < n; a++)
      L[a * n + a] += jitter;
    if (LAPACKE_dpotrf(LAPACK_ROW_MAJOR, 'L', (lapack_int)n, L, (lapack_int)n) == 0) {
      st->synthetic_jitter = jitter;
      break;
    }
  }
  const double k1 = c->synthetic_k1, rest = sqrt(1.0 - k1 * k1), mu = c->synthetic_mean;
  const double sig = c->synthetic_signal_std;
  for (int s = 0; s < c->size_count; s++) {
    const double noise = sqrt(mu * (1.0 - mu) / (double)c->size[s]);
    DPBO_TRY(k1sweep_alloc_f(st, s, err));
    for (int64_t i = 0; i < c->sets; i++) {
      dpbo_rng rng;
      dpbo_rng_seed(&rng, c->seed, K1SWEEP_SYNTH_TAG | (uint64_t)c->size[s] << 24 | (uint64_t)i);
      for (int64_t r = 0; r < 4 * n; r++)
        z[r] = dpbo_rng_normal(&rng);
      const double *z1 = z, *z2 = z + n, *e1 = z + 2 * n, *e2 = z + 3 * n;
      for (int64_t a = 0; a < n; a++) {
        double g = 0.0, h = 0.0;
        for (int64_t b = 0; b <= a; b++) {
          g += L[a * n + b] * z1[b];
          h += L[a * n + b] * z2[b];
        }
        st->fv[s][i * n + a] = mu + sig * g + noise * e1[a];
        st->fvp[s][i * n + a] = mu + sig * (k1 * g + rest * h) + noise * e2[a];
      }
    }
  }
done:
  free(K);
  free(L);
  free(z);
  return status;
}

/* The statistics that test the assumption at size s (k1gof.h; collective). */
static dpbo_status k1sweep_gof(const dpbo__k1sweep_state *st, int s, const dpbo_k1lik_result *fit,
                               dpbo_k1gof_result *gof, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  const double t0 = MPI_Wtime();
  const dpbo_k1gof_task task = {.R = (int)c->sets,
                                .n = (int)st->n,
                                .d = st->d,
                                .F = st->rank == 0 ? st->fv[s] : NULL,
                                .Fp = st->rank == 0 ? st->fvp[s] : NULL,
                                .coords = st->unit,
                                .dims = c->dims,
                                .dim = c->dim,
                                .options = &c->likelihood,
                                .fit = fit,
                                .m = c->size[s],
                                .seed = c->seed,
                                .B = (int)c->bootstrap,
                                .T = c->pipeline_iterations};
  DPBO_TRY(dpbo_k1gof_compute(st->comm, &task, gof, err));
  char pipeline[200] = "no pipeline", boot[320] = "no bootstrap";
  if (gof->T > 0)
    snprintf(pipeline, sizeof pipeline,
             "pipeline max |mu_T - mu'_T| = %.3g against Delta_lambda %.3g (%lld violations)",
             gof->pipeline_max, gof->pipeline.lambda_sensitivity,
             (long long)gof->pipeline_violations);
  if (gof->B > 0)
    snprintf(boot, sizeof boot,
             "bootstrap (B = %d) 95%% k1 [%.6g, %.6g], s^2 (1 - k1) [%.3g, %.3g] (%lld "
             "eigendecompositions, %lld of them in the ranks' shared bases; %lld likelihood "
             "evaluations)",
             gof->B, gof->k1_lo, gof->k1_hi, gof->s2t_lo, gof->s2t_hi,
             (long long)gof->boot_work.eigendecompositions,
             (long long)gof->boot_basis_eigendecompositions, (long long)gof->boot_work.evaluations);
  dpbo_log_info("k1sweep: m = %lld: residuals KS D = %.4g (p = %.3g), max |z| = %.3g; max |F_V - "
                "F_V'| > s c in %.3g of the pairs (delta %g); %s; %s; %.1f s",
                (long long)c->size[s], gof->ks_statistic, gof->ks_pvalue, gof->max_abs_z, gof->rate,
                fit->delta, pipeline, boot, MPI_Wtime() - t0);
done:
  return status;
}

/* The likelihood sweep, one size at a time (collective): results[s] and
 * gof[s] for each validation-set size. */
dpbo_status dpbo__k1sweep_likelihood(dpbo__k1sweep_state *st, dpbo_k1lik_result *results,
                                     dpbo_k1gof_result *gof, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const dpbo_k1sweep_config *c = st->config;
  dpbo_k1lik *lik = NULL;
  for (int s = 0; s < c->size_count; s++) {
    double t0 = MPI_Wtime();
    const dpbo_k1lik_sets sets = {(int)c->sets,
                                  (int)st->n,
                                  st->d,
                                  st->rank == 0 ? st->fv[s] : NULL,
                                  st->rank == 0 ? st->fvp[s] : NULL,
                                  st->unit};
    DPBO_TRY(dpbo_k1lik_create(st->comm, &sets, &c->likelihood, &lik, err));
    DPBO_TRY(dpbo_k1lik_sweep(lik, st->n, c->delta, &results[s], err));
    st->perf_size[s][0] = MPI_Wtime() - t0;
    int eig = 0, scal = 0;
    dpbo_k1lik_counts(lik, &eig, &scal);
    dpbo_k1lik_destroy(lik);
    lik = NULL;
    const dpbo_k1lik_result *r = &results[s];
    dpbo_log_info(
        "k1sweep: m = %lld: k1 MLE %.6g (1 - k1 = %.3g), 95%% LR interval [%.6g, %.6g]%s, c = "
        "%.4g (at k1_lo %.4g), sigma_n %.3g, lengthscale %.3g; %d eigendecompositions "
        "(%d ScaLAPACK), %.1f s",
        (long long)c->size[s], r->mle.k1, r->mle.one_minus_k1, r->k1_lo, r->k1_hi,
        r->boundary > 0   ? " (at the largest k1 searched)"
        : r->boundary < 0 ? " (at the smallest k1)"
                          : "",
        r->c_mle, r->c_upper, r->mle.sigma_n, r->mle.lengthscale, eig, scal, MPI_Wtime() - t0);
    const double t_gof = MPI_Wtime();
    DPBO_TRY(k1sweep_gof(st, s, r, &gof[s], err));
    st->perf_size[s][1] = MPI_Wtime() - t_gof;
  }
done:
  if (lik) dpbo_k1lik_destroy(lik);
  return status;
}
