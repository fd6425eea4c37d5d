/* The choice of OpenBLAS core (base/blas.h) over a table of CPUs and cores:
 * dpbo_blas_judge is a pure function, so every case of issue #24 is a row,
 * whatever machine runs the test. */
#include <string.h>

#include "base/blas.h"
#include "check.h"

enum {
  X86 = DPBO_BLAS_X86_64,
  AVX = DPBO_BLAS_AVX | DPBO_BLAS_OS_YMM,
  AVX2 = AVX | DPBO_BLAS_AVX2 | DPBO_BLAS_FMA,
  AVX512 = AVX2 | DPBO_BLAS_AVX512F | DPBO_BLAS_AVX512BW | DPBO_BLAS_AVX512DQ | DPBO_BLAS_AVX512VL |
           DPBO_BLAS_AVX512CD | DPBO_BLAS_OS_ZMM
};

typedef struct {
  const char *what;
  unsigned features;
  const char *core, *forced, *choice, *guard;
  dpbo_blas_verdict verdict;
  const char *best;
} blas_case;

static const blas_case cases[] = {
    /* issue #24: a VM reporting "Intel Xeon Processor" with AVX-512, which
     * OpenBLAS does not know: Prescott, switched to SkylakeX */
    {"unknown Xeon model, AVX-512", X86 | AVX512, "Prescott", NULL, NULL, NULL, DPBO_BLAS_SWITCH,
     "SkylakeX"},
    /* an AVX-512 CPU given OpenBLAS's AVX2 kernels (an older OpenBLAS on
     * AMD's Zen 4, which it reads as Zen) */
    {"AVX-512 CPU as Haswell", X86 | AVX512, "Haswell", NULL, NULL, NULL, DPBO_BLAS_SWITCH,
     "SkylakeX"},
    {"Zen core on AVX-512", X86 | AVX512, "Zen", NULL, "auto", NULL, DPBO_BLAS_SWITCH, "SkylakeX"},
    {"AVX2 CPU as Prescott", X86 | AVX2, "Prescott", NULL, NULL, NULL, DPBO_BLAS_SWITCH, "Haswell"},
    {"AVX CPU as Nehalem", X86 | AVX, "Nehalem", NULL, NULL, NULL, DPBO_BLAS_SWITCH, "Sandybridge"},
    /* already the best, or better than dpbo's best of the class */
    {"Skylake-X as SkylakeX", X86 | AVX512, "SkylakeX", NULL, NULL, NULL, DPBO_BLAS_BEST,
     "SkylakeX"},
    {"Cooper Lake as Cooperlake", X86 | AVX512, "Cooperlake", NULL, NULL, NULL, DPBO_BLAS_BEST,
     "SkylakeX"},
    {"AVX2 CPU as Zen", X86 | AVX2, "Zen", NULL, NULL, NULL, DPBO_BLAS_BEST, "Haswell"},
    {"core name in capitals", X86 | AVX2, "HASWELL", NULL, NULL, NULL, DPBO_BLAS_BEST, "Haswell"},
    /* AMD's Bulldozer family keeps OpenBLAS's own tuned kernels */
    {"Excavator", X86 | AVX2, "Excavator", NULL, NULL, NULL, DPBO_BLAS_BEST, "Haswell"},
    /* features the OS does not save do not count */
    {"AVX-512 without ZMM state", X86 | (AVX512 & ~DPBO_BLAS_OS_ZMM), "Haswell", NULL, NULL, NULL,
     DPBO_BLAS_BEST, "Haswell"},
    {"AVX2 without YMM state", X86 | (AVX2 & ~DPBO_BLAS_OS_YMM), "Prescott", NULL, NULL, NULL,
     DPBO_BLAS_NO_JUDGEMENT, NULL},
    {"AVX-512 without BW", X86 | (AVX512 & ~DPBO_BLAS_AVX512BW), "Haswell", NULL, NULL, NULL,
     DPBO_BLAS_BEST, "Haswell"},
    {"AVX2 without FMA", X86 | (AVX2 & ~DPBO_BLAS_FMA), "Prescott", NULL, NULL, NULL,
     DPBO_BLAS_SWITCH, "Sandybridge"},
    /* SSE only: nothing better to offer */
    {"SSE CPU", X86, "Prescott", NULL, NULL, NULL, DPBO_BLAS_NO_JUDGEMENT, NULL},
    /* not x86-64: no features read, nothing to choose */
    {"aarch64", 0, "NEOVERSEN1", NULL, NULL, NULL, DPBO_BLAS_NO_JUDGEMENT, NULL},
    {"unknown core name", X86 | AVX512, "Loongson3R4", NULL, NULL, NULL, DPBO_BLAS_NO_JUDGEMENT,
     "SkylakeX"},
    {"reference BLAS", X86 | AVX512, NULL, NULL, NULL, NULL, DPBO_BLAS_NOT_OPENBLAS, "SkylakeX"},
    /* the user's OPENBLAS_CORETYPE is kept, warned when weaker */
    {"user forces Prescott", X86 | AVX512, "Prescott", "Prescott", NULL, NULL,
     DPBO_BLAS_WEAK_FORCED, "SkylakeX"},
    {"user forces Haswell", X86 | AVX512, "Haswell", "haswell", "auto", NULL, DPBO_BLAS_WEAK_FORCED,
     "SkylakeX"},
    {"user forces SkylakeX", X86 | AVX512, "SkylakeX", "SkylakeX", NULL, NULL, DPBO_BLAS_FORCED,
     "SkylakeX"},
    {"empty OPENBLAS_CORETYPE is unset", X86 | AVX512, "Haswell", "", NULL, NULL, DPBO_BLAS_SWITCH,
     "SkylakeX"},
    /* the opt-out */
    {"DPBO_BLAS_CORE=keep", X86 | AVX512, "Prescott", NULL, "keep", NULL, DPBO_BLAS_WEAK_KEPT,
     "SkylakeX"},
    {"DPBO_BLAS_CORE=keep, best already", X86 | AVX512, "SkylakeX", NULL, "keep", NULL,
     DPBO_BLAS_BEST, "SkylakeX"},
    {"DPBO_BLAS_CORE misspelt", X86 | AVX512, "SkylakeX", NULL, "kepe", NULL, DPBO_BLAS_BAD_SETTING,
     "SkylakeX"},
    /* dpbo's second start: chosen, and never a third start */
    {"second start took", X86 | AVX512, "SkylakeX", "SkylakeX", NULL, "Prescott", DPBO_BLAS_CHOSEN,
     "SkylakeX"},
    {"second start did not take", X86 | AVX512, "Prescott", "SkylakeX", NULL, "Prescott",
     DPBO_BLAS_WEAK_FAILED, "SkylakeX"},
};

static int same(const char *a, const char *b) {
  return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

int main(void) {
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    const blas_case *c = &cases[i];
    const char *best = "unset";
    dpbo_blas_verdict v =
        dpbo_blas_judge(c->features, c->core, c->forced, c->choice, c->guard, &best);
    CHECK_MSG(v == c->verdict && same(best, c->best), "%s: verdict %d best %s, expected %d %s",
              c->what, (int)v, best ? best : "(none)", (int)c->verdict,
              c->best ? c->best : "(none)");
  }
  CHECK(dpbo_blas_core_class("SkylakeX") == 3 && dpbo_blas_core_class("sapphirerapids") == 3);
  CHECK(dpbo_blas_core_class("Haswell") == 2 && dpbo_blas_core_class("Sandybridge") == 1);
  CHECK(dpbo_blas_core_class("Prescott") == 0 && dpbo_blas_core_class("ARMV8") == -1);
  CHECK(dpbo_blas_core_class(NULL) == -1);
  /* This host: what cpuid says is consistent with itself (no CPU has
   * AVX-512 F usable without the OS saving YMM). */
  unsigned here = dpbo_blas_cpu_features();
  CHECK(!(here & DPBO_BLAS_OS_ZMM) || (here & DPBO_BLAS_OS_YMM));
  printf("this host: features 0x%x, best core %s\n", here,
         dpbo_blas_best_core(here) ? dpbo_blas_best_core(here) : "(none)");
  return dpbo_test_summary("test_blas");
}
