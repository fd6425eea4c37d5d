#include "dpbo/rng.h"

#include <math.h>

/* The 64-bit LCG multiplier of the PCG reference implementation. */
static const uint64_t pcg_multiplier = 6364136223846793005ULL;

static void rng_step(dpbo_rng *rng) { rng->state = rng->state * pcg_multiplier + rng->inc; }

void dpbo_rng_seed(dpbo_rng *rng, uint64_t seed, uint64_t stream) {
  rng->state = 0u;
  rng->inc = (stream << 1u) | 1u;
  rng_step(rng);
  rng->state += seed;
  rng_step(rng);
}

uint32_t dpbo_rng_u32(dpbo_rng *rng) {
  uint64_t old = rng->state;
  rng_step(rng);
  uint32_t xorshifted = (uint32_t)(((old >> 18u) ^ old) >> 27u);
  uint32_t rot = (uint32_t)(old >> 59u);
  return (xorshifted >> rot) | (xorshifted << ((-rot) & 31u));
}

uint64_t dpbo_rng_u64(dpbo_rng *rng) {
  uint64_t hi = dpbo_rng_u32(rng);
  uint64_t lo = dpbo_rng_u32(rng);
  return (hi << 32) | lo;
}

uint32_t dpbo_rng_below(dpbo_rng *rng, uint32_t bound) {
  /* Reject the low (2^32 mod bound) values so every residue is equally likely. */
  uint32_t threshold = (uint32_t)(-bound) % bound;
  for (;;) {
    uint32_t r = dpbo_rng_u32(rng);
    if (r >= threshold) return r % bound;
  }
}

uint64_t dpbo_rng_below64(dpbo_rng *rng, uint64_t bound) {
  if (bound <= UINT32_MAX) return dpbo_rng_below(rng, (uint32_t)bound);
  uint64_t threshold = (uint64_t)(-bound) % bound;
  for (;;) {
    uint64_t r = dpbo_rng_u64(rng);
    if (r >= threshold) return r % bound;
  }
}

double dpbo_rng_uniform(dpbo_rng *rng) { return (double)(dpbo_rng_u64(rng) >> 11) * 0x1.0p-53; }

double dpbo_rng_normal(dpbo_rng *rng) {
  for (;;) {
    double x = 2.0 * dpbo_rng_uniform(rng) - 1.0;
    double y = 2.0 * dpbo_rng_uniform(rng) - 1.0;
    double r2 = x * x + y * y;
    if (r2 > 0.0 && r2 < 1.0) return x * sqrt(-2.0 * log(r2) / r2);
  }
}

void dpbo_rng_advance(dpbo_rng *rng, uint64_t delta) {
  /* Compose the affine map s -> a s + c with itself by squaring. */
  uint64_t acc_mult = 1u, acc_plus = 0u;
  uint64_t cur_mult = pcg_multiplier, cur_plus = rng->inc;
  while (delta > 0) {
    if (delta & 1u) {
      acc_mult *= cur_mult;
      acc_plus = acc_plus * cur_mult + cur_plus;
    }
    cur_plus = (cur_mult + 1u) * cur_plus;
    cur_mult *= cur_mult;
    delta >>= 1u;
  }
  rng->state = acc_mult * rng->state + acc_plus;
}

void dpbo_rng_permutation(dpbo_rng *rng, uint64_t n, uint64_t *perm) {
  for (uint64_t i = 0; i < n; i++)
    perm[i] = i;
  for (uint64_t i = n; i > 1; i--) {
    uint64_t j = dpbo_rng_below64(rng, i);
    uint64_t tmp = perm[i - 1];
    perm[i - 1] = perm[j];
    perm[j] = tmp;
  }
}
