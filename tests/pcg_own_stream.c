/* Prints dpbo's PCG32 outputs in the format of pcg_reference_stream.cpp. */
#include <stdio.h>

#include "dpbo/rng.h"
#include "pcg_cases.h"

int main(void) {
  for (size_t k = 0; k < sizeof pcg_cases / sizeof pcg_cases[0]; k++) {
    dpbo_rng rng;
    dpbo_rng_seed(&rng, pcg_cases[k].seed, pcg_cases[k].stream);
    printf("seed %llu stream %llu:", (unsigned long long)pcg_cases[k].seed,
           (unsigned long long)pcg_cases[k].stream);
    for (int i = 0; i < pcg_outputs_per_case; i++)
      printf(" %08x", (unsigned)dpbo_rng_u32(&rng));
    dpbo_rng_advance(&rng, 1000003);
    unsigned a = dpbo_rng_u32(&rng);
    unsigned b = dpbo_rng_u32(&rng);
    printf(" | after jump: %08x %08x\n", a, b);
  }
  return 0;
}
