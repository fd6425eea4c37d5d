/* Where release noise comes from (docs/design.md section 3).
 *
 * DPBO_NOISE_OS (the default) reads the operating system's CSPRNG
 * (getrandom(2)) on whichever rank draws; DPBO_NOISE_SEEDED uses PCG32 with a
 * given seed and stream, for experiments and tests only: every release drawn
 * from it is labelled "reproducible, not for publication", and reusing one
 * seed across releases correlates their noise.
 *
 * Only exact integer draws are offered: every sampler in mechanism.c is built
 * from uniform integers, so no floating-point rounding touches the noise. */
#ifndef DPBO_NOISE_H
#define DPBO_NOISE_H

#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/rng.h"

typedef enum { DPBO_NOISE_OS = 0, DPBO_NOISE_SEEDED = 1 } dpbo_noise_kind;

typedef struct dpbo_noise {
  dpbo_noise_kind kind;
  dpbo_rng rng;          /* seeded only (after an OS failure: a fixed fallback, see noise.c) */
  uint64_t seed, stream; /* seeded only, as given, for dpbo_noise_describe */
  dpbo_status failure;   /* sticky: set if the OS generator ever failed */
} dpbo_noise;

void dpbo_noise_init_os(dpbo_noise *noise);
void dpbo_noise_init_seeded(dpbo_noise *noise, uint64_t seed, uint64_t stream);

/* Uniform 64 random bits. */
uint64_t dpbo_noise_u64(dpbo_noise *noise);

/* Uniform integer in [0, bound), bound >= 1, without bias (rejection). */
uint64_t dpbo_noise_below(dpbo_noise *noise, uint64_t bound);

/* Nonzero if the OS generator failed at any point; releases must then be
 * discarded (checked by the mechanisms before returning). */
dpbo_status dpbo_noise_check(const dpbo_noise *noise, dpbo_error *err);

/* "operating system CSPRNG (getrandom)" or "seeded PCG32 (seed S, stream R):
 * reproducible, not for publication". */
void dpbo_noise_describe(const dpbo_noise *noise, char *buf, size_t size);

#endif
