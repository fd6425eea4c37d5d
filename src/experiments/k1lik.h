/* The likelihood engine of the k1 experiment (paper, Results, eq.
 * "marg_like", and Background, "Setting": the multi-task GP k1 ⊗ k2).
 *
 * Data: R validation-set pairs (V_i, V_i'), n hyper-parameter settings with
 * unit-cube coordinates u_1..u_n, accuracies F[i][j] = f_{V_i}(λ_j) and
 * F'[i][j] = f_{V_i'}(λ_j). The model, for each pair independently,
 *
 *     y_i = [F_i; F_i'] ~ N(m0·1, s²(K1 ⊗ K2) + σn² I),  K1 = [[1, k1], [k1, 1]],
 *
 * K2 the normalized kernel (kernel.h) over the settings with length-scale ℓ,
 * and the joint log-likelihood Σ_i log N(y_i; ...) (the paper's product over
 * the i.i.d. sets).
 *
 * Kronecker structure. K1 has eigenvectors (1, 1)/√2 and (1, −1)/√2 with
 * eigenvalues 1 ± k1; with K2 = Q diag(λ) Qᵀ, the covariance has
 * eigenvectors (1, ±1)/√2 ⊗ q_j and eigenvalues
 *     sum channel         e+_j = s²(1 + k1) λ_j + σn²,  data a_i = Qᵀ(F_i + F_i')/√2,
 *     difference channel  e−_j = s²(1 − k1) λ_j + σn²,  data b_i = Qᵀ(F_i − F_i')/√2,
 * and the mean projects to √2·m0·g with g = Qᵀ1 in the sum channel only. So
 *     log L = −R n log 2π − (R/2) Σ_j log(e+_j e−_j)
 *             − ½ Σ_j [ (SSa_j + R(ā_j − √2 m0 g_j)²) / e+_j + B_j / e−_j ],
 * with ā_j = mean_i a_ij, SSa_j = Σ_i (a_ij − ā_j)², B_j = Σ_i b_ij².
 * One eigendecomposition of K2 per length-scale serves every k1, m0, s, σn
 * and every V_i: after an O(n³) eigendecomposition and O(R n²) projections
 * (cached per ℓ), each evaluation is O(n).
 *
 * Profiling at fixed k1. With ρ = σn²/s²: m0 is the GLS estimate
 *     m0 = Σ_j ā_j g_j / e+_j / (√2 Σ_j g_j² / e+_j)   (e± at s = 1),
 * s² = Q(ρ)/(2Rn) in closed form (Q the quadratic form at s = 1), ρ by a
 * scan plus Brent over [ratio_min², ratio_max²] in log ρ, and one shared
 * length-scale ℓ (all dimensions) by a scan plus golden-section search on a
 * lattice in log ℓ over [ell_min, ell_max] (points ℓ_k = ell_min·e^(k·h), k =
 * 0..K, K = ceil(log(ell_max/ell_min)/ell_step), h = log(ell_max/ell_min)/K):
 * on the lattice the same ℓ values recur across k1, so their
 * eigendecompositions are computed once and reused for the whole sweep.
 * Both searches refine EVERY local maximum of their scan, not only the best
 * scan point: the profile in ℓ can have two modes, one narrow (k1lik.c,
 * k1lik_profile_t, says which modes the search is sure to find).
 *
 * Sweep. k1 = step, 2·step, … (the paper's 0.05 … 0.95), then 1 − k1 on a log
 * scale (t_per_decade points per decade) down to t_min; the MLE by Brent in
 * log(1 − k1) between the grid points around the grid maximum; the
 * likelihood-ratio 95% interval {k1 : profile log L ≥ max − χ²₁(0.95)/2}
 * (χ²₁(0.95)/2 = 1.920729) by bisection in log(1 − k1) between grid points; a
 * boundary flag when the maximum sits at an end of the searched range; and
 * Algorithm 1's c = 2√((1 − k1) log(3N/δ)) (privacy.h) at the MLE and at the
 * interval's lower end. At k1 → 1 the parameter meets its boundary and the
 * χ² calibration of the interval is only approximate (Wilks' theorem needs
 * an interior truth); the flags say when that matters.
 *
 * Privacy note (docs/design.md section 1): k1 fitted here is a prior
 * hyper-parameter. Estimate it on public or proxy data; fitting it on the
 * sensitive validation data voids the guarantee of Algorithms 1-3.
 *
 * Parallel structure. Every call is collective over the context's
 * communicator and uses rank 0's arguments (they are broadcast). The
 * eigendecomposition runs through eigen.h (LAPACK on rank 0 below
 * eigen_threshold, ScaLAPACK pdsyevd over all ranks at or above it); each
 * rank projects its contiguous block of validation sets; the O(n) searches
 * run replicated, so every rank returns the same results. With the LAPACK
 * path the results do not depend on the number of ranks. */
#ifndef DPBO_K1LIK_H
#define DPBO_K1LIK_H

#include <mpi.h>
#include <stdint.h>

#include "core/eigen.h" /* DPBO_EIGEN_MAX_N bounds n */
#include "dpbo/error.h"
#include "dpbo/kernel.h"

/* χ²₁(0.95)/2: half the 95% quantile of chi-square with one degree of freedom. */
#define DPBO_K1LIK_LR95 1.920729410347062

typedef struct dpbo_k1lik dpbo_k1lik;

typedef struct dpbo_k1lik_options {
  dpbo_kernel_kind kernel;     /* k2: se or matern52                           [se] */
  double ell_min, ell_max;     /* range of the shared length-scale ℓ   [0.01, 10] */
  double ell_step;             /* lattice step in log ℓ                   [0.002] */
  int ell_grid;                /* scan points over the range before golden [347] */
  double ratio_min, ratio_max; /* range of σn/s                       [1e-6, 100] */
  int ratio_per_decade;        /* scan points per decade of σn/s before Brent [4] */
  double k1_step;              /* linear part of the sweep: step, 2·step, … [0.05] */
  double t_min;                /* smallest 1 − k1 of the sweep              [1e-10] */
  int t_per_decade;            /* points per decade of 1 − k1 below the linear part [10] */
  int eigen_threshold;         /* n >= threshold: ScaLAPACK                  [1000] */
} dpbo_k1lik_options;

/* Profile maximum at one k1. */
typedef struct dpbo_k1lik_fit {
  double k1;
  double one_minus_k1; /* exact (k1 = 1 − this, rounded) */
  double loglik;       /* joint log-likelihood at the profiled parameters */
  double m0, s, sigma_n, lengthscale;
  int ell_at_bound;   /* ℓ sits at ell_min or ell_max */
  int ratio_at_bound; /* σn/s sits at ratio_min or ratio_max */
} dpbo_k1lik_fit;

typedef struct dpbo_k1lik_result {
  int count;
  dpbo_k1lik_fit *grid; /* the sweep, k1 ascending (1 − k1 descending) */
  dpbo_k1lik_fit mle;   /* maximum-likelihood k1 with its profiled parameters */
  int boundary;         /* +1: maximum at the smallest 1 − k1 searched (k1 may be
                           larger still; treat the MLE as a lower bound), −1: at
                           the smallest k1 of the sweep, 0: interior */
  double k1_lo, k1_hi;  /* likelihood-ratio 95% interval of k1 */
  double t_lo, t_hi;    /* the same interval in 1 − k1: t_lo = 1 − k1_hi (exact) */
  int lo_open, hi_open; /* that end reached the searched range without crossing */
  int64_t N;            /* |Λ| and δ used for c */
  double delta;
  double c_mle;   /* Algorithm 1's c at the MLE */
  double c_upper; /* c at k1_lo: the largest c the interval allows */
} dpbo_k1lik_result;

void dpbo_k1lik_options_default(dpbo_k1lik_options *options);

/* The validation sets a context or a basis serves: R pairs of accuracy
 * vectors F, Fp (R×n, row-major) of n models at coordinates coords (n×d). */
typedef struct dpbo_k1lik_sets {
  int R, n, d;
  const double *F, *Fp, *coords;
} dpbo_k1lik_sets;

/* Collective. Rank 0's sets (R, n, d, F, Fp, coords) and options are used
 * (others may pass NULL arrays; options NULL means the defaults); 1 <= R,
 * 2 <= n <= DPBO_EIGEN_MAX_N, 1 <= d <= DPBO_MAX_DIM. F and Fp are R×n row-major (F[i*n + j] =
 * accuracy of setting j on V_i, resp. V_i'), coords n×d row-major unit-cube coordinates. The data
 * are copied (each rank keeps only its block of sets). */
dpbo_status dpbo_k1lik_create(MPI_Comm comm, const dpbo_k1lik_sets *sets,
                              const dpbo_k1lik_options *options, dpbo_k1lik **out, dpbo_error *err);
void dpbo_k1lik_destroy(dpbo_k1lik *ctx);

/* A point of the joint model's parameters: k1 ∈ [−1, 1], m0, s > 0,
 * sigma_n > 0 and d length-scales (one per dimension). */
typedef struct dpbo_k1lik_params {
  double k1, m0, s, sigma_n;
  const double *lengthscales;
} dpbo_k1lik_params;

/* Collective. Joint log-likelihood at rank 0's parameters (eigendecomposition
 * cached per length-scale vector). */
dpbo_status dpbo_k1lik_loglik(dpbo_k1lik *ctx, const dpbo_k1lik_params *params, double *loglik,
                              dpbo_error *err);

/* Collective. Profile maximum over m0, s, σn and a shared ℓ at k1 = 1 − t,
 * t ∈ (0, 2) (t rather than k1 keeps 1 − k1 exact near k1 = 1). */
dpbo_status dpbo_k1lik_profile(dpbo_k1lik *ctx, double one_minus_k1, dpbo_k1lik_fit *fit,
                               dpbo_error *err);

/* Collective. The whole sweep, MLE, interval, boundary flag and c for
 * N = |Λ| settings and δ (Algorithm 1). Free with dpbo_k1lik_result_free. */
dpbo_status dpbo_k1lik_sweep(dpbo_k1lik *ctx, int64_t N, double delta, dpbo_k1lik_result *result,
                             dpbo_error *err);
void dpbo_k1lik_result_free(dpbo_k1lik_result *result);

/* Eigendecompositions computed so far, and how many ran on ScaLAPACK. */
void dpbo_k1lik_counts(const dpbo_k1lik *ctx, int *eigendecompositions, int *scalapack);

/* The work a context (or a basis, below) has done so far: what the
 * statistics stage's cost is made of (bench/k1stats.c prints it). */
typedef struct dpbo_k1lik_work {
  int64_t eigendecompositions; /* n×n eigendecompositions of K2 */
  int64_t scalapack;           /* of which on ScaLAPACK */
  int64_t projections;         /* sets projected onto an eigenbasis (2 gemv each) */
  int64_t entries;             /* length-scales whose sufficient statistics were formed */
  int64_t evaluations;         /* O(n) likelihood evaluations (profile over m0, s at one ρ) */
  int64_t logs;                /* log() calls in log-determinants */
  int64_t logdet_reused;       /* log-determinants taken from a basis's memo */
} dpbo_k1lik_work;
void dpbo_k1lik_work_get(const dpbo_k1lik *ctx, dpbo_k1lik_work *work);

/* A basis shared by refits of the same sets (the bootstrap, k1gof.h).
 *
 * K2(ℓ) depends only on ℓ and the settings' coordinates, and a resample's
 * projections a_i, b_i are the projections of the original sets it draws:
 * so the eigendecomposition of K2 on each ℓ lattice point and the
 * projections of the R original sets are computed once (when a refit first
 * needs that point) and every refit forms its sufficient statistics ā, SSa,
 * B from them in O(R n) instead of an O(n³) eigendecomposition and O(R n²)
 * projections. The log-determinant Σ_j log(e+_j e−_j) at the ρ scan points
 * of a sweep grid k1 depends only on λ, k1 and ρ, not on the data, so the
 * basis keeps it too (a memo per lattice point, grid k1 and scan ρ) and
 * refits after the first take it from there. Every number is computed by
 * the same operations in the same order as without the basis, so a refit
 * returns bit for bit what a fresh context returns (test_k1lik_basis).
 *
 * Local (no MPI): each rank keeps its own basis; memory grows by
 * (2n + 2Rn + grid·scan) doubles per lattice point used, and points past
 * max_bytes fall back to a fresh eigendecomposition in the refit. */
typedef struct dpbo_k1lik_basis dpbo_k1lik_basis;

/* The sets' arrays are copied; options as for create. */
dpbo_status dpbo_k1lik_basis_create(const dpbo_k1lik_sets *sets, const dpbo_k1lik_options *options,
                                    size_t max_bytes, dpbo_k1lik_basis **out, dpbo_error *err);
void dpbo_k1lik_basis_destroy(dpbo_k1lik_basis *basis);
void dpbo_k1lik_basis_work(const dpbo_k1lik_basis *basis, dpbo_k1lik_work *work);

/* Make ctx (created on one rank, e.g. MPI_COMM_SELF, with the basis's R,
 * n, d, coordinates and options, its set i being the basis's set index[i])
 * draw its lattice length-scales from the basis. The basis must outlive
 * ctx; index (R entries in [0, R)) is copied. */
dpbo_status dpbo_k1lik_use_basis(dpbo_k1lik *ctx, dpbo_k1lik_basis *basis, const int32_t *index,
                                 dpbo_error *err);

#endif
