#include "dpbo/noise.h"

#include <errno.h>
#include <stdio.h>
#include <sys/random.h>

/* After the OS generator has failed once, draws come from this fixed PCG
 * stream instead: every sampler built on uniform integers is a rejection loop
 * that needs fresh bits to terminate (a failed source returning zeros would
 * spin forever), and the sticky failure voids whatever is drawn afterwards
 * (the mechanisms call dpbo_noise_check before returning a release). */
static const uint64_t fallback_seed = 0x6470626f2d6661ULL; /* "dpbo-fa" */

void dpbo_noise_init_os(dpbo_noise *noise) {
  noise->kind = DPBO_NOISE_OS;
  dpbo_rng_seed(&noise->rng, 0u, 0u);
  noise->seed = noise->stream = 0u;
  noise->failure = DPBO_OK;
}

void dpbo_noise_init_seeded(dpbo_noise *noise, uint64_t seed, uint64_t stream) {
  noise->kind = DPBO_NOISE_SEEDED;
  dpbo_rng_seed(&noise->rng, seed, stream);
  noise->seed = seed;
  noise->stream = stream;
  noise->failure = DPBO_OK;
}

/* Fills buf from getrandom(2) (the urandom pool, blocking only until it is
 * first initialized at boot). Retries on EINTR and on short reads, which
 * getrandom may return for requests above 256 bytes or when interrupted. */
static int noise_os_fill(unsigned char *buf, size_t size) {
  size_t got = 0;
  while (got < size) {
    ssize_t r = getrandom(buf + got, size - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    got += (size_t)r;
  }
  return 0;
}

uint64_t dpbo_noise_u64(dpbo_noise *noise) {
  if (noise->kind == DPBO_NOISE_SEEDED || noise->failure != DPBO_OK)
    return dpbo_rng_u64(&noise->rng);
  unsigned char bytes[8];
  if (noise_os_fill(bytes, sizeof bytes) != 0) {
    noise->failure = DPBO_ERR_LIBRARY;
    dpbo_rng_seed(&noise->rng, fallback_seed, 0u);
    return dpbo_rng_u64(&noise->rng);
  }
  uint64_t value = 0;
  for (int i = 0; i < 8; i++)
    value = (value << 8) | bytes[i];
  return value;
}

uint64_t dpbo_noise_below(dpbo_noise *noise, uint64_t bound) {
  if (bound <= 1u) return 0u;
  /* Reject the lowest 2^64 mod bound values: what remains is a whole number
   * of copies of [0, bound), so r % bound is exactly uniform. At most half
   * of the draws are rejected. */
  uint64_t threshold = (uint64_t)(-bound) % bound;
  for (;;) {
    uint64_t r = dpbo_noise_u64(noise);
    if (r >= threshold) return r % bound;
  }
}

dpbo_status dpbo_noise_check(const dpbo_noise *noise, dpbo_error *err) {
  if (noise->failure == DPBO_OK) return DPBO_OK;
  return DPBO_ERROR_SET(err, noise->failure,
                        "the operating system's random generator (getrandom) failed; "
                        "the draw is void and nothing may be released");
}

void dpbo_noise_describe(const dpbo_noise *noise, char *buf, size_t size) {
  if (noise->kind == DPBO_NOISE_OS) {
    snprintf(buf, size, "operating system CSPRNG (getrandom)");
    return;
  }
  snprintf(buf, size, "seeded PCG32 (seed %llu, stream %llu): reproducible, not for publication",
           (unsigned long long)noise->seed, (unsigned long long)noise->stream);
}
