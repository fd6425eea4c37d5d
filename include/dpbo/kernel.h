/* Normalized covariance kernels k2 on unit-cube coordinates (paper,
 * Background, "Setting"): k(λ, λ) = 1.
 *   SE:          k = exp(-r² / 2)
 *   Matérn-5/2:  k = (1 + √5 r + 5 r² / 3) exp(-√5 r)
 * with r² = Σ_i ((a_i - b_i) / ℓ_i)², a fixed length-scale per dimension.
 *
 * A categorical dimension (space.h) contributes [a_i ≠ b_i] / ℓ_i² instead:
 * a Hamming-distance factor exp(-[a_i ≠ b_i] / (2ℓ_i²)) in the SE kernel.
 * It equals the SE kernel on the one-hot encoding scaled by 1/√2, so two
 * different categories are at distance 1, as the two ends of a numeric
 * dimension are, and ℓ_i means what it means there; every pair of different
 * categories is equally far. (One-hot or Hamming kernels for categorical
 * inputs in BO: Garrido-Merchán and Hernández-Lobato, Neurocomputing 380,
 * 2020.) The kernel remains positive definite (a kernel of Euclidean distance
 * between embedded points) with k(λ, λ) = 1 and 0 < k ≤ 1, which is all the
 * privacy proofs use of it except Algorithm 2's regret term
 * (docs/privacy-proofs.md section 13). */
#ifndef DPBO_KERNEL_H
#define DPBO_KERNEL_H

#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/space.h"

typedef enum { DPBO_KERNEL_SE = 0, DPBO_KERNEL_MATERN52 = 1 } dpbo_kernel_kind;

typedef struct dpbo_kernel {
  dpbo_kernel_kind kind;
  int d;
  double lengthscale[DPBO_MAX_DIM];
  double inv_lengthscale[DPBO_MAX_DIM];    /* 1/ℓ, set by dpbo_kernel_init */
  unsigned char categorical[DPBO_MAX_DIM]; /* Hamming distance on this dimension */
  int categoricals;                        /* how many dimensions are categorical */
} dpbo_kernel;

/* Sets up a kernel; lengthscales has d entries (all > 0). */
dpbo_status dpbo_kernel_init(dpbo_kernel *kernel, dpbo_kernel_kind kind, int d,
                             const double *lengthscales, dpbo_error *err);

/* Marks the categorical dimensions of dims[0..d) (d = the kernel's): their
 * coordinates are compared for equality only (see above). dpbo_kernel_init
 * leaves every dimension numeric. */
void dpbo_kernel_use_dims(dpbo_kernel *kernel, const dpbo_dim *dims);

/* The kernels' names as configs write them ("se", "matern52"), indexed by
 * dpbo_kernel_kind and NULL-terminated: the one table of them. */
extern const char *const dpbo_kernel_kind_names[];
const char *dpbo_kernel_kind_name(dpbo_kernel_kind kind);

/* Scaled squared distance r² = Σ_i ((a_i − b_i)·(1/ℓ_i))², summed in index
 * order (a categorical term: [a_i ≠ b_i]·(1/ℓ_i)², see above). */
double dpbo_kernel_r2(const dpbo_kernel *kernel, const double *a, const double *b);

/* k as a function of r² (so callers holding r² avoid recomputing it). */
double dpbo_kernel_of_r2(const dpbo_kernel *kernel, double r2);

double dpbo_kernel_eval(const dpbo_kernel *kernel, const double *a, const double *b);

/* r² from u to each of n points (row-major n × d), bit for bit as
 * dpbo_kernel_r2, vectorized for small d. */
void dpbo_kernel_r2_block(const dpbo_kernel *kernel, const double *points, int64_t n,
                          const double *u, double *r2);

/* k for n values of r² at once (k[i] = dpbo_kernel_of_r2(r2[i]), bit for
 * bit): the loop the UCB update spends its compute on, written so the
 * compiler vectorizes it. */
void dpbo_kernel_of_r2_block(const dpbo_kernel *kernel, const double *r2, double *k, int64_t n);

/* e^x for x <= 0 within 1 ulp, in plain IEEE arithmetic (Cody–Waite
 * reduction and a degree-13 Taylor polynomial), so that vectorized and
 * scalar evaluations give the same bits and a candidate's kernel value does
 * not depend on where it sits in a rank's block. Results below 2^-1022 are
 * flushed to 0 (a kernel value that small is 0 for every purpose here). */
double dpbo_exp_nonpositive(double x);

#endif
