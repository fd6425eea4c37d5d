/* dgemm: GFLOPS of OpenBLAS's dgemm under the core it runs, to compare cores
 * side by side (issue #24: Prescott 11 GFLOPS, SkylakeX 38 on an AVX-512 VM):
 *   OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=Haswell  build/bench/dgemm [N] [REPEATS]
 *   OPENBLAS_NUM_THREADS=1 OPENBLAS_CORETYPE=SkylakeX build/bench/dgemm [N] [REPEATS]
 * N = 2000 and 5 repeats by default; prints the core (base/blas.h's line:
 * this program does not start again with another core, so what
 * OPENBLAS_CORETYPE asks is what runs), the median and best time of
 * C = A B (2 N^3 flops) and their GFLOPS. No MPI. */
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/blas.h"

static double dgemm_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int dgemm_compare(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

int main(int argc, char **argv) {
  const int n = argc > 1 ? atoi(argv[1]) : 2000, repeats = argc > 2 ? atoi(argv[2]) : 5;
  if (n < 1 || repeats < 1 || repeats > 1000) {
    fprintf(stderr, "usage: dgemm [N >= 1] [REPEATS 1..1000]\n");
    return 2;
  }
  char line[512];
  int warn = 0, code = 1;
  dpbo_blas_describe(line, sizeof line, &warn);
  const char *threads = getenv("OPENBLAS_NUM_THREADS");
  printf("%s\nOPENBLAS_NUM_THREADS=%s, n = %d, %d repeats\n", line, threads ? threads : "(unset)",
         n, repeats);
  const size_t nn = (size_t)n * (size_t)n;
  double *a = malloc(nn * sizeof *a), *b = malloc(nn * sizeof *b), *c = malloc(nn * sizeof *c);
  double *t = malloc((size_t)repeats * sizeof *t);
  if (!a || !b || !c || !t) {
    fprintf(stderr, "dgemm: out of memory for n = %d\n", n);
    goto done;
  }
  for (size_t i = 0; i < nn; i++) {
    a[i] = (double)(i % 7) - 3.0;
    b[i] = (double)(i % 5) * 0.5;
  }
  /* One call first: OpenBLAS's threads and buffers start there. */
  cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
  for (int r = 0; r < repeats; r++) {
    double t0 = dgemm_now();
    cblas_dgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, n, n, 1.0, a, n, b, n, 0.0, c, n);
    t[r] = dgemm_now() - t0;
  }
  qsort(t, (size_t)repeats, sizeof *t, dgemm_compare);
  const double flops = 2.0 * (double)n * (double)n * (double)n, median = t[repeats / 2];
  printf("dgemm n = %d: median %.4f s (%.2f GFLOPS), best %.4f s (%.2f GFLOPS)\n", n, median,
         flops / median * 1e-9, t[0], flops / t[0] * 1e-9);
  code = 0;
done:
  free(a);
  free(b);
  free(c);
  free(t);
  return code;
}
