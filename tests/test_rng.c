/* PCG32 properties that do not need the C++ reference: the published first
 * outputs of pcg32(42, 54) (docs/design.md section 8), streams that differ, the
 * jump-ahead, and the ranges of the derived draws. */
#include <stdlib.h>

#include "check.h"
#include "dpbo/rng.h"

int main(void) {
  static const uint32_t expected[6] = {0xa15c02b7u, 0x7b47f409u, 0xba1d3330u,
                                       0x83d2f293u, 0xbfa4784bu, 0xcbed606eu};
  dpbo_rng rng;
  dpbo_rng_seed(&rng, 42u, 54u);
  for (int i = 0; i < 6; i++) {
    uint32_t got = dpbo_rng_u32(&rng);
    CHECK_MSG(got == expected[i], "output %d: got %08x expected %08x", i, got, expected[i]);
  }

  /* Same seed, streams 0 and 1 (ranks 0 and 1) must not coincide. */
  dpbo_rng r0, r1;
  dpbo_rng_seed(&r0, 7u, 0u);
  dpbo_rng_seed(&r1, 7u, 1u);
  int equal = 0;
  for (int i = 0; i < 1000; i++)
    equal += dpbo_rng_u32(&r0) == dpbo_rng_u32(&r1);
  CHECK_MSG(equal < 5, "%d of 1000 outputs of two streams coincide", equal);

  /* advance(k) equals k single steps. */
  dpbo_rng a, b;
  dpbo_rng_seed(&a, 99u, 5u);
  b = a;
  for (int i = 0; i < 12345; i++)
    dpbo_rng_u32(&a);
  dpbo_rng_advance(&b, 12345);
  CHECK(a.state == b.state);

  /* Ranges. */
  int in_range = 1;
  for (int i = 0; i < 100000; i++) {
    double u = dpbo_rng_uniform(&rng);
    uint32_t k = dpbo_rng_below(&rng, 7u);
    uint64_t k64 = dpbo_rng_below64(&rng, 10000000000ULL);
    if (!(u >= 0.0 && u < 1.0) || k >= 7u || k64 >= 10000000000ULL) in_range = 0;
  }
  CHECK(in_range);

  /* Normal draws: sample mean and variance of 2e5 draws within 5 standard
   * errors (mean: 5/sqrt(n) = 0.011; variance: 5*sqrt(2/n) = 0.016). */
  const int n = 200000;
  double sum = 0, sumsq = 0;
  dpbo_rng_seed(&rng, 2015u, 0u);
  for (int i = 0; i < n; i++) {
    double z = dpbo_rng_normal(&rng);
    sum += z;
    sumsq += z * z;
  }
  double mean = sum / n, var = sumsq / n - mean * mean;
  CHECK_MSG(fabs(mean) < 5.0 / sqrt(n), "normal mean %g", mean);
  CHECK_MSG(fabs(var - 1.0) < 5.0 * sqrt(2.0 / n), "normal variance %g", var);

  /* Permutation holds every index once. */
  uint64_t perm[100];
  int seen[100] = {0};
  dpbo_rng_permutation(&rng, 100, perm);
  int ok = 1;
  for (int i = 0; i < 100; i++) {
    if (perm[i] >= 100 || seen[perm[i]]++) ok = 0;
  }
  CHECK(ok);
  return dpbo_test_summary("test_rng");
}
