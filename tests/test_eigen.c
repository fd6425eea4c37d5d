/* Both eigendecomposition paths on the same matrices (docs/design.md section 4):
 * LAPACK dsyevd on rank 0 against ScaLAPACK pdsyevd over every rank, on 1, 2
 * and 4 ranks (grids 1x1, 1x2, 2x2).
 *
 *  - eigenvalues agree to 1e-10 relative: per eigenvalue on a matrix whose
 *    spectrum is positive (so "relative" means what it says), and
 *    relative to the spectral norm on a random symmetric matrix (whose
 *    eigenvalues near zero carry only absolute accuracy, ~eps ||A||);
 *  - each path's residual max|A V - V Λ| / ||A|| and max|VᵀV - I| below 1e-12;
 *  - eigenvectors agree up to sign, to within the perturbation bound
 *    eps ||A|| / gap_j (Davis-Kahan), checked as diff_j * gap_j / ||A|| <= 1e-11;
 *  - every rank returns bit-identical results (rank 0's are broadcast and
 *    compared), and the used_scalapack flag follows the threshold.
 * Sizes 300 (blocks of 64 over the grid), 65, 7 (one block, idle ranks) and 1. */
#include <limits.h>
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "core/eigen.h"
#include "dpbo/rng.h"

static int rank = 0;

static void random_symmetric(int n, uint64_t seed, double shift, double *a) {
  dpbo_rng rng;
  dpbo_rng_seed(&rng, seed, 7u);
  for (int i = 0; i < n; i++)
    for (int j = i; j < n; j++) {
      double v = dpbo_rng_normal(&rng);
      a[(size_t)i * n + j] = v;
      a[(size_t)j * n + i] = v;
    }
  for (int i = 0; i < n; i++)
    a[(size_t)i * n + i] += shift;
}

/* max |A V - V Λ| and max |VᵀV - I| for eigenvectors stored as rows of v. */
static void residuals(int n, const double *a, const double *v, const double *w, double *res,
                      double *orth) {
  *res = 0.0;
  *orth = 0.0;
  for (int j = 0; j < n; j++) {
    const double *vj = v + (size_t)j * n;
    for (int i = 0; i < n; i++) {
      double acc = 0.0;
      for (int k = 0; k < n; k++)
        acc += a[(size_t)i * n + k] * vj[k];
      *res = fmax(*res, fabs(acc - w[j] * vj[i]));
    }
    for (int k = 0; k <= j; k++) {
      double dot = 0.0;
      for (int i = 0; i < n; i++)
        dot += vj[i] * v[(size_t)k * n + i];
      *orth = fmax(*orth, fabs(dot - (j == k ? 1.0 : 0.0)));
    }
  }
}

static void run_case(int n, uint64_t seed, double shift, int relative_each) {
  dpbo_error err;
  dpbo_error_clear(&err);
  size_t nn = (size_t)n * n;
  double *a = malloc(nn * sizeof *a), *v1 = malloc(nn * sizeof *v1), *v2 = malloc(nn * sizeof *v2);
  double *w1 = malloc((size_t)n * sizeof *w1), *w2 = malloc((size_t)n * sizeof *w2);
  double *check_v = malloc(nn * sizeof *check_v), *check_w = malloc((size_t)n * sizeof *check_w);
  random_symmetric(n, seed, shift, a);
  memcpy(v1, a, nn * sizeof *a);
  memcpy(v2, a, nn * sizeof *a);

  int used1 = -1, used2 = -1;
  double t0 = MPI_Wtime();
  CHECK_OK(dpbo_eigen_sym(MPI_COMM_WORLD, n, v1, w1, INT_MAX, &used1, &err));
  double t1 = MPI_Wtime();
  CHECK_OK(dpbo_eigen_sym(MPI_COMM_WORLD, n, v2, w2, 0, &used2, &err));
  double t2 = MPI_Wtime();
  CHECK(used1 == 0);
  CHECK(used2 == 1);

  double norm = fmax(fabs(w1[0]), fabs(w1[n - 1]));
  double worst_w = 0.0;
  for (int j = 0; j < n; j++) {
    double scale = relative_each ? fmax(fabs(w1[j]), fabs(w2[j])) : norm;
    worst_w = fmax(worst_w, fabs(w1[j] - w2[j]) / scale);
    if (j > 0) CHECK(w1[j] >= w1[j - 1] && w2[j] >= w2[j - 1]);
  }
  CHECK_MSG(worst_w <= 1e-10, "n = %d: eigenvalues differ by %.3g relative", n, worst_w);

  double res1, orth1, res2, orth2;
  residuals(n, a, v1, w1, &res1, &orth1);
  residuals(n, a, v2, w2, &res2, &orth2);
  CHECK_MSG(res1 / norm <= 1e-12 && orth1 <= 1e-12, "LAPACK residual %.3g, orthogonality %.3g",
            res1 / norm, orth1);
  CHECK_MSG(res2 / norm <= 1e-12 && orth2 <= 1e-12, "ScaLAPACK residual %.3g, orthogonality %.3g",
            res2 / norm, orth2);

  /* Eigenvectors up to sign, scaled by each eigenvalue's gap. */
  double worst_v = 0.0, min_gap = HUGE_VAL;
  for (int j = 0; j < n; j++) {
    double gap = HUGE_VAL;
    if (j > 0) gap = fmin(gap, w1[j] - w1[j - 1]);
    if (j < n - 1) gap = fmin(gap, w1[j + 1] - w1[j]);
    min_gap = fmin(min_gap, gap);
    const double *x = v1 + (size_t)j * n, *y = v2 + (size_t)j * n;
    double dot = 0.0;
    for (int i = 0; i < n; i++)
      dot += x[i] * y[i];
    double sign = dot < 0 ? -1.0 : 1.0, diff = 0.0;
    for (int i = 0; i < n; i++)
      diff = fmax(diff, fabs(x[i] - sign * y[i]));
    worst_v = fmax(worst_v, n > 1 ? diff * gap / norm : diff);
  }
  CHECK_MSG(worst_v <= 1e-11, "n = %d: eigenvectors differ by %.3g (gap-scaled)", n, worst_v);

  /* Bit-identical on every rank. */
  memcpy(check_v, v2, nn * sizeof *v2);
  memcpy(check_w, w2, (size_t)n * sizeof *w2);
  MPI_Bcast(check_v, (int)nn, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  MPI_Bcast(check_w, n, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  int same = memcmp(check_v, v2, nn * sizeof *v2) == 0 && memcmp(check_w, w2, n * sizeof *w2) == 0;
  memcpy(check_v, v1, nn * sizeof *v1);
  MPI_Bcast(check_v, (int)nn, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  same = same && memcmp(check_v, v1, nn * sizeof *v1) == 0;
  int all_same = 0;
  MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  CHECK(all_same == 1);

  if (rank == 0)
    printf("n = %3d%s: eigenvalues %.2e rel, residual %.1e / %.1e, orthogonality %.1e / %.1e, "
           "eigenvectors %.1e (min gap %.2e), LAPACK %.3f s, ScaLAPACK %.3f s\n",
           n, relative_each ? " (shifted, positive)" : " (random symmetric)", worst_w, res1 / norm,
           res2 / norm, orth1, orth2, worst_v, min_gap, t1 - t0, t2 - t1);
  free(a);
  free(v1);
  free(v2);
  free(w1);
  free(w2);
  free(check_v);
  free(check_w);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  dpbo_error err;
  dpbo_error_clear(&err);

  run_case(300, 11u, 0.0, 0);
  /* A random symmetric matrix of size 300 with N(0,1) entries has its
   * spectrum within about ±2√300 ≈ ±34.6 (semicircle law; edge fluctuations
   * ~n^(-1/6) ≈ 0.4): shifted by 37, eigenvalues lie in roughly [2, 72]. */
  run_case(300, 12u, 37.0, 1);
  run_case(65, 13u, 0.0, 0);
  run_case(7, 14u, 0.0, 0);
  run_case(1, 15u, 0.0, 0);

  /* Errors are collective and named. */
  double x = 1.0, y;
  CHECK(dpbo_eigen_sym(MPI_COMM_WORLD, 0, &x, &y, 0, NULL, &err) == DPBO_ERR_ARG);

  int failed = dpbo_test_summary(rank == 0 ? "test_eigen" : "test_eigen (worker)");
  MPI_Finalize();
  return failed;
}
