// Prints outputs of the reference C++ PCG (Debian's libpcg-cpp-dev) for the
// seeds and streams of tests/pcg_own_stream.c; the CTest test compares both.
#include <cstdio>
#include <pcg_random.hpp>

#include "pcg_cases.h"

int main() {
  for (const auto &c : pcg_cases) {
    pcg32 rng(c.seed, c.stream);
    std::printf("seed %llu stream %llu:", (unsigned long long)c.seed, (unsigned long long)c.stream);
    for (int i = 0; i < pcg_outputs_per_case; i++)
      std::printf(" %08x", (unsigned)rng());
    // discard() jumps ahead like dpbo_rng_advance
    rng.discard(1000003);
    unsigned a = rng(); // sequenced: argument order in a call is unspecified
    unsigned b = rng();
    std::printf(" | after jump: %08x %08x\n", a, b);
  }
  return 0;
}
