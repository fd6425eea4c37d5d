/* Symmetric eigendecomposition A = V diag(w) Vᵀ of a dense matrix that every
 * rank holds (docs/design.md section 4: LAPACK serves the small case, ScaLAPACK the
 * case that outgrows one rank; both paths must agree in a test).
 *
 *   n <  threshold: LAPACK dsyevd on rank 0 of comm, result broadcast.
 *   n >= threshold: ScaLAPACK pdsyevd on a near-square BLACS process grid over
 *                   every rank of comm (block-cyclic, square blocks), result
 *                   gathered back to every rank with one MPI_Allgatherv.
 *
 * The result is replicated rather than left distributed: its one user (the k1
 * likelihood, k1lik.h) needs every eigenvector to project every validation
 * set, and the n² doubles are the same memory the replicated input already
 * takes. Pass threshold = 0 to force ScaLAPACK, INT_MAX to force LAPACK.
 *
 * Eigenvectors are defined up to sign (and up to rotation within a repeated
 * eigenvalue); the two paths may return either sign. Every rank returns
 * bit-identical a and w, but the ScaLAPACK path's last bits depend on the
 * number of ranks (its grid), the LAPACK path's do not. */
#ifndef DPBO_EIGEN_H
#define DPBO_EIGEN_H

#include <mpi.h>

#include "dpbo/error.h"

/* Largest n accepted (n² must fit in an MPI count). */
#define DPBO_EIGEN_MAX_N 46340

/* Collective over comm; every rank passes the same n and threshold.
 *   a:  n×n symmetric matrix, identical on every rank (only its upper
 *       triangle is read). On return eigenvector j is contiguous:
 *       a[j*n + i] = V(i, j), unit norm (column-major V, i.e. row j of a).
 *   w:  n eigenvalues in ascending order.
 *   used_scalapack: set to 1 when the ScaLAPACK path ran (may be NULL).
 * Fails (on every rank alike) when the algorithm does not converge. */
dpbo_status dpbo_eigen_sym(MPI_Comm comm, int n, double *a, double *w, int threshold,
                           int *used_scalapack, dpbo_error *err);

#endif
