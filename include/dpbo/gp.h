/* Gaussian-process posterior over the observations made so far, with an
 * incremental Cholesky factor (one rank-one append per observation).
 *
 * Model (docs/design.md section 1): f(λ) = m0 + s·g(λ), g ~ GP(0, k2),
 * v_t = f(λ_t) + α_t, α_t ~ N(0, σ²). Internally the GP works in normalized
 * units y = (v - m0)/s with noise variance (σ/s)², as the paper's formulas
 * assume s = 1, m0 = 0; the public getters convert back to units of v.
 *
 * With σ = 0 (noise-free, Algorithm 2) K_T may be singular; a jitter j is
 * added explicitly to the diagonal of the normalized covariance (K + (σ²/s² +
 * j) I); j is the setting gp.jitter, stored with the settings in the run file.
 *
 * Each rank holds its own copy (all ranks append the same (λ_t, v_t) in the
 * same order, so the copies are identical); it costs O(T²) memory. */
#ifndef DPBO_GP_H
#define DPBO_GP_H

#include "dpbo/error.h"
#include "dpbo/kernel.h"

typedef struct dpbo_gp dpbo_gp;

/* The largest magnitude the GP accepts for its prior's |m0|, s, σ and j, for
 * the noise-to-signal ratio σ/s, and for an observation's |v| and its
 * normalized |v - m0|/s. The GP squares these (s², (σ/s)², y²) and sums t
 * squares of y divided by Cholesky pivots (down to ~1e-7); a double
 * overflows past 1.8e308, so squares of at most 1e200 leave a margin of
 * 1e100 for the pivots and the sums. Beyond it the posterior would turn to
 * inf or NaN, which every later step would inherit: such values are
 * refused instead. */
#define DPBO_GP_MAGNITUDE_MAX 1e100

typedef struct dpbo_gp_prior {
  double mean;       /* m0 */
  double signal_std; /* s > 0 */
  double noise_std;  /* σ >= 0 */
  double jitter;     /* j >= 0, added to the normalized diagonal */
} dpbo_gp_prior;

dpbo_status dpbo_gp_create(const dpbo_kernel *kernel, const dpbo_gp_prior *prior, int capacity,
                           dpbo_gp **out, dpbo_error *err);
void dpbo_gp_destroy(dpbo_gp *gp);

/* Adds observation v at unit coordinates u: extends the Cholesky factor by
 * one row, O(t·d + t²). Fails (and leaves the GP unchanged) when capacity is
 * reached, v or (v - m0)/s lies beyond DPBO_GP_MAGNITUDE_MAX, or the new
 * pivot is not positive (a repeated point with no noise and no jitter). */
dpbo_status dpbo_gp_append(dpbo_gp *gp, const double *u, double v, dpbo_error *err);

/* Batches (GP-BUCB, Desautels, Krause & Burdick 2014): a point whose
 * evaluation is still running enters the factor at once with a hallucinated
 * value, its posterior mean given the completed observations, so the mean
 * stays what the completed observations say and only the variance shrinks.
 * dpbo_gp_resolve puts the real value in place of row's hallucination
 * (rows count from 0) and re-hallucinates the other pending rows with their
 * new means; the whole of z = L^{-1} y changes, so a UCB state must then
 * refresh its means (dpbo_ucb_refresh_mean). */
dpbo_status dpbo_gp_append_pending(dpbo_gp *gp, const double *u, dpbo_error *err);
dpbo_status dpbo_gp_resolve(dpbo_gp *gp, int row, double v, dpbo_error *err);
int dpbo_gp_pending_count(const dpbo_gp *gp);
/* z = L^{-1} y (t values, normalized units). */
const double *dpbo_gp_whitened_targets(const dpbo_gp *gp);

int dpbo_gp_count(const dpbo_gp *gp);
const dpbo_kernel *dpbo_gp_kernel(const dpbo_gp *gp);
const dpbo_gp_prior *dpbo_gp_get_prior(const dpbo_gp *gp);

/* Normalized noise-plus-jitter variance added to the kernel diagonal. */

/* The newest row of the Cholesky factor: row[0..t-2] = L^{-1}-weights of
 * the last observation against the earlier ones, *pivot = L[t-1][t-1], and
 * *z = (L^{-1} y)[t-1]. This is what a candidate's state needs to follow the
 * posterior incrementally (ucb.c). t must be >= 1. */
void dpbo_gp_last_row(const dpbo_gp *gp, const double **row, double *pivot, double *z);

/* Lower Cholesky factor (t x t, row-major with leading dimension capacity). */
const double *dpbo_gp_factor(const dpbo_gp *gp, int *leading_dim);

/* Posterior mean and variance of f at u (units of v; latent f, no noise). */
void dpbo_gp_predict(const dpbo_gp *gp, const double *u, double *mean, double *var);

/* log p(v_1..v_t) under the prior, in units of v. */
double dpbo_gp_log_likelihood(const dpbo_gp *gp);

#endif
