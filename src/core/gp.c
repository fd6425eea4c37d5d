#include "dpbo/gp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

struct dpbo_gp {
  dpbo_kernel kernel;
  dpbo_gp_prior prior;
  double nugget; /* (σ/s)² + jitter */
  int capacity;
  int t;
  double *x;              /* capacity * d unit coordinates */
  double *factor;         /* capacity * capacity, lower triangle, row-major */
  double *y;              /* normalized targets, hallucinated for pending rows */
  double *z;              /* L^{-1} y */
  unsigned char *pending; /* row waits for its evaluation (GP-BUCB) */
  int pending_count;
  double *work;        /* capacity */
  double log_det_half; /* Σ log L_ii */
  double z_sq;         /* Σ z_i² */
};

dpbo_status dpbo_gp_create(const dpbo_kernel *kernel, const dpbo_gp_prior *prior, int capacity,
                           dpbo_gp **out, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  dpbo_gp *gp = NULL;
  *out = NULL;
  const double max = DPBO_GP_MAGNITUDE_MAX;
  if (!(prior->signal_std > 0.0 && prior->signal_std <= max))
    DPBO_RAISE(DPBO_ERR_ARG, "GP signal std must lie in (0, %g], got %g", max, prior->signal_std);
  if (!(prior->noise_std >= 0.0 && prior->noise_std <= max))
    DPBO_RAISE(DPBO_ERR_ARG, "GP noise std must lie in [0, %g], got %g", max, prior->noise_std);
  if (!(prior->noise_std / prior->signal_std <= max))
    DPBO_RAISE(DPBO_ERR_ARG, "GP noise std / signal std = %g exceeds %g",
               prior->noise_std / prior->signal_std, max);
  if (!(prior->jitter >= 0.0 && prior->jitter <= max))
    DPBO_RAISE(DPBO_ERR_ARG, "GP jitter must lie in [0, %g], got %g", max, prior->jitter);
  if (!(fabs(prior->mean) <= max))
    DPBO_RAISE(DPBO_ERR_ARG, "GP prior mean must lie within ±%g, got %g", max, prior->mean);
  if (capacity < 1) DPBO_RAISE(DPBO_ERR_ARG, "GP capacity must be >= 1, got %d", capacity);
  DPBO_ALLOC(gp, 1, "GP");
  gp->kernel = *kernel;
  gp->prior = *prior;
  double ratio = prior->noise_std / prior->signal_std;
  gp->nugget = ratio * ratio + prior->jitter;
  gp->capacity = capacity;
  DPBO_ALLOC(gp->x, (size_t)capacity * kernel->d, "GP inputs");
  DPBO_ALLOC(gp->factor, (size_t)capacity * capacity, "GP Cholesky factor");
  DPBO_ALLOC(gp->y, capacity, "GP targets");
  DPBO_ALLOC(gp->z, capacity, "GP whitened targets");
  DPBO_ALLOC(gp->pending, capacity, "GP pending flags");
  DPBO_ALLOC(gp->work, capacity, "GP workspace");
  *out = gp;
  gp = NULL;
done:
  dpbo_gp_destroy(gp);
  return status;
}

void dpbo_gp_destroy(dpbo_gp *gp) {
  if (!gp) return;
  free(gp->x);
  free(gp->factor);
  free(gp->y);
  free(gp->z);
  free(gp->pending);
  free(gp->work);
  free(gp);
}

/* Solves L w = k(X, u) for w (forward substitution) into w[0..t). */
static void gp_whiten(const dpbo_gp *gp, const double *u, double *w) {
  const int d = gp->kernel.d;
  for (int i = 0; i < gp->t; i++) {
    const double *row = gp->factor + (size_t)i * gp->capacity;
    double acc = dpbo_kernel_eval(&gp->kernel, gp->x + (size_t)i * d, u);
    for (int j = 0; j < i; j++)
      acc -= row[j] * w[j];
    w[i] = acc / row[i];
  }
}

/* Adds the row of u with normalized target y (pending or not). */
static dpbo_status gp_add_row(dpbo_gp *gp, const double *u, double y, int pending,
                              dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int t = gp->t;
  const int d = gp->kernel.d;
  if (t >= gp->capacity)
    DPBO_RAISE(DPBO_ERR_ARG, "GP holds its capacity of %d observations", gp->capacity);

  /* New row l = L^{-1} k(X, u); pivot² = k(u,u) + nugget - lᵀl. */
  double *row = gp->factor + (size_t)t * gp->capacity;
  gp_whiten(gp, u, row);
  double sq = 0.0;
  for (int j = 0; j < t; j++)
    sq += row[j] * row[j];
  double pivot_sq = 1.0 + gp->nugget - sq;
  /* Below this the factor has lost all precision: the point repeats an
   * earlier one and no noise or jitter separates them. */
  if (!(pivot_sq > 1e-14 * (1.0 + gp->nugget)))
    DPBO_RAISE(DPBO_ERR_NUMERIC,
               "GP covariance became singular at observation %d (pivot² = %.3g): a repeated "
               "point with noise_std = 0 needs a positive jitter",
               t + 1, pivot_sq);
  double pivot = sqrt(pivot_sq);
  row[t] = pivot;

  if (pending) {
    /* The hallucination is u's current posterior mean lᵀz, which makes its
     * whitened target exactly zero: the mean does not move. */
    double mean = 0.0;
    for (int j = 0; j < t; j++)
      mean += row[j] * gp->z[j];
    gp->y[t] = mean;
    gp->z[t] = 0.0;
  } else {
    double acc = y;
    for (int j = 0; j < t; j++)
      acc -= row[j] * gp->z[j];
    gp->y[t] = y;
    gp->z[t] = acc / pivot;
  }
  gp->pending[t] = (unsigned char)(pending != 0);
  gp->pending_count += pending != 0;
  memcpy(gp->x + (size_t)t * d, u, (size_t)d * sizeof *u);
  gp->log_det_half += log(pivot);
  gp->z_sq += gp->z[t] * gp->z[t];
  gp->t = t + 1;
done:
  return status;
}

dpbo_status dpbo_gp_append(dpbo_gp *gp, const double *u, double v, dpbo_error *err) {
  const double max = DPBO_GP_MAGNITUDE_MAX;
  if (!isfinite(v))
    return DPBO_ERROR_SET(err, DPBO_ERR_NUMERIC, "observation %d is not finite (%g)", gp->t + 1, v);
  if (!(fabs(v) <= max))
    return DPBO_ERROR_SET(err, DPBO_ERR_NUMERIC,
                          "observation %d = %g lies beyond ±%g, the range the GP can use",
                          gp->t + 1, v, max);
  const double y = (v - gp->prior.mean) / gp->prior.signal_std;
  if (!(fabs(y) <= max))
    return DPBO_ERROR_SET(err, DPBO_ERR_NUMERIC,
                          "observation %d = %g lies %g prior standard deviations (gp.signal_std = "
                          "%g) from the prior mean %g: beyond %g, the GP's squares overflow",
                          gp->t + 1, v, fabs(y), gp->prior.signal_std, gp->prior.mean, max);
  return gp_add_row(gp, u, y, 0, err);
}

dpbo_status dpbo_gp_append_pending(dpbo_gp *gp, const double *u, dpbo_error *err) {
  /* The pending rows already carry their means given the completed rows, so
   * u's current posterior mean is its mean given the completed rows. */
  return gp_add_row(gp, u, 0.0, 1, err);
}

/* Re-hallucinates every pending row with its mean given the completed rows,
 * E[y_P | y_C] = K_PC (K_CC + nugget I)^{-1} y_C, from a dense Cholesky of
 * the completed rows (O(c³); batches run tens to hundreds of points), then
 * recomputes z = L^{-1} y and the running sums. */
static dpbo_status gp_rehallucinate(dpbo_gp *gp, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const int t = gp->t, d = gp->kernel.d;
  int *done_rows = NULL;
  double *chol = NULL, *alpha = NULL;
  if (gp->pending_count > 0) {
    int c = 0;
    DPBO_ALLOC(done_rows, t, "GP-BUCB workspace");
    for (int i = 0; i < t; i++)
      if (!gp->pending[i]) done_rows[c++] = i;
    DPBO_ALLOC(chol, (size_t)c * c + 1, "GP-BUCB workspace");
    DPBO_ALLOC(alpha, c + 1, "GP-BUCB workspace");
    for (int i = 0; i < c; i++) {
      const double *xi = gp->x + (size_t)done_rows[i] * d;
      for (int j = 0; j <= i; j++) {
        double a = dpbo_kernel_eval(&gp->kernel, gp->x + (size_t)done_rows[j] * d, xi);
        if (j == i) a += gp->nugget;
        for (int k = 0; k < j; k++)
          a -= chol[(size_t)i * c + k] * chol[(size_t)j * c + k];
        if (j < i) {
          chol[(size_t)i * c + j] = a / chol[(size_t)j * c + j];
        } else {
          if (!(a > 0.0))
            DPBO_RAISE(DPBO_ERR_NUMERIC,
                       "GP-BUCB: the completed observations' covariance is singular");
          chol[(size_t)i * c + i] = sqrt(a);
        }
      }
    }
    /* alpha = (L Lᵀ)^{-1} y_C */
    for (int i = 0; i < c; i++) {
      double a = gp->y[done_rows[i]];
      for (int k = 0; k < i; k++)
        a -= chol[(size_t)i * c + k] * alpha[k];
      alpha[i] = a / chol[(size_t)i * c + i];
    }
    for (int i = c - 1; i >= 0; i--) {
      double a = alpha[i];
      for (int k = i + 1; k < c; k++)
        a -= chol[(size_t)k * c + i] * alpha[k];
      alpha[i] = a / chol[(size_t)i * c + i];
    }
    for (int p = 0; p < t; p++) {
      if (!gp->pending[p]) continue;
      double m = 0.0;
      for (int i = 0; i < c; i++)
        m +=
            dpbo_kernel_eval(&gp->kernel, gp->x + (size_t)done_rows[i] * d, gp->x + (size_t)p * d) *
            alpha[i];
      gp->y[p] = m;
    }
  }
  gp->z_sq = 0.0;
  for (int i = 0; i < t; i++) {
    const double *row = gp->factor + (size_t)i * gp->capacity;
    double acc = gp->y[i];
    for (int j = 0; j < i; j++)
      acc -= row[j] * gp->z[j];
    gp->z[i] = acc / row[i];
    gp->z_sq += gp->z[i] * gp->z[i];
  }
done:
  free(done_rows);
  free(chol);
  free(alpha);
  return status;
}

dpbo_status dpbo_gp_resolve(dpbo_gp *gp, int row, double v, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (row < 0 || row >= gp->t || !gp->pending[row])
    DPBO_RAISE(DPBO_ERR_ARG, "GP row %d is not a pending evaluation", row + 1);
  if (!isfinite(v)) DPBO_RAISE(DPBO_ERR_NUMERIC, "observation %d is not finite (%g)", row + 1, v);
  gp->y[row] = (v - gp->prior.mean) / gp->prior.signal_std;
  gp->pending[row] = 0;
  gp->pending_count--;
  DPBO_TRY(gp_rehallucinate(gp, err));
done:
  return status;
}

int dpbo_gp_pending_count(const dpbo_gp *gp) { return gp->pending_count; }
const double *dpbo_gp_whitened_targets(const dpbo_gp *gp) { return gp->z; }

int dpbo_gp_count(const dpbo_gp *gp) { return gp->t; }
const dpbo_kernel *dpbo_gp_kernel(const dpbo_gp *gp) { return &gp->kernel; }
const dpbo_gp_prior *dpbo_gp_get_prior(const dpbo_gp *gp) { return &gp->prior; }

void dpbo_gp_last_row(const dpbo_gp *gp, const double **row, double *pivot, double *z) {
  const double *r = gp->factor + (size_t)(gp->t - 1) * gp->capacity;
  *row = r;
  *pivot = r[gp->t - 1];
  *z = gp->z[gp->t - 1];
}

const double *dpbo_gp_factor(const dpbo_gp *gp, int *leading_dim) {
  *leading_dim = gp->capacity;
  return gp->factor;
}

void dpbo_gp_predict(const dpbo_gp *gp, const double *u, double *mean, double *var) {
  double *w = gp->work;
  gp_whiten(gp, u, w);
  double m = 0.0, explained = 0.0;
  for (int i = 0; i < gp->t; i++) {
    m += w[i] * gp->z[i];
    explained += w[i] * w[i];
  }
  double s = gp->prior.signal_std;
  *mean = gp->prior.mean + s * m;
  double v = 1.0 - explained;
  *var = s * s * (v > 0.0 ? v : 0.0);
}

double dpbo_gp_log_likelihood(const dpbo_gp *gp) {
  /* log N(y; 0, K + nugget I) = -½ zᵀz - Σ log L_ii - (t/2) log 2π, and the
   * change of variables y = (v - m0)/s contributes -t log s. */
  const double log_2pi = 1.8378770664093454836;
  return -0.5 * gp->z_sq - gp->log_det_half - 0.5 * gp->t * log_2pi -
         gp->t * log(gp->prior.signal_std);
}
