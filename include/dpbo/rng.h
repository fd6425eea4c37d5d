/* PCG32 random numbers (O'Neill 2014, "PCG: A family of simple fast
 * space-efficient statistically good algorithms for random number
 * generation"): 64-bit LCG state, XSH-RR output. Same seed and stream give
 * the same 32-bit outputs as the reference C++ `pcg32 rng(seed, stream)`
 * (checked in tests/test_rng_reference.cpp).
 *
 * Every rank draws from its own stream (stream id = rank, or a purpose tag),
 * so streams are independent and runs are reproducible for a given seed.
 * This generator is for reproducible experiment randomness only, never for
 * privacy noise meant for publication. */
#ifndef DPBO_RNG_H
#define DPBO_RNG_H

#include <stdint.h>

typedef struct dpbo_rng {
  uint64_t state;
  uint64_t inc; /* always odd: (stream << 1) | 1 */
} dpbo_rng;

/* Seeds exactly as pcg32's (initstate, initseq) constructor. */
void dpbo_rng_seed(dpbo_rng *rng, uint64_t seed, uint64_t stream);

uint32_t dpbo_rng_u32(dpbo_rng *rng);

/* 64 random bits from two consecutive outputs (high word first). */
uint64_t dpbo_rng_u64(dpbo_rng *rng);

/* Uniform in [0, bound) without modulo bias (rejection as pcg32's bounded
 * generator does); bound must be > 0. */
uint32_t dpbo_rng_below(dpbo_rng *rng, uint32_t bound);

/* Uniform in [0, bound) for 64-bit bounds (> 0), by rejection. */
uint64_t dpbo_rng_below64(dpbo_rng *rng, uint64_t bound);

/* Uniform double in [0, 1) with 53 random bits. */
double dpbo_rng_uniform(dpbo_rng *rng);

/* Standard normal draw (Marsaglia polar method, no cached second value so
 * the stream position is a pure function of the number of calls made). */
double dpbo_rng_normal(dpbo_rng *rng);

/* Jumps the generator ahead by delta steps in O(log delta) (Brown 1994). */
void dpbo_rng_advance(dpbo_rng *rng, uint64_t delta);

/* Uniform random permutation of 0..n-1 into perm (Fisher-Yates). */
void dpbo_rng_permutation(dpbo_rng *rng, uint64_t n, uint64_t *perm);

#endif
