/* Seeds and streams compared between dpbo's PCG and the C++ reference. */
#ifndef DPBO_PCG_CASES_H
#define DPBO_PCG_CASES_H
#include <stdint.h>
static const struct {
  uint64_t seed, stream;
} pcg_cases[] = {{42u, 54u},
                 {0u, 0u},
                 {1u, 1u},
                 {12345u, 3u},
                 {0xdeadbeefcafebabeULL, 7u},
                 {2015u, 1023u},
                 {UINT64_MAX, UINT64_MAX >> 1}};
enum { pcg_outputs_per_case = 1000 };
#endif
