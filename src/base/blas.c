#include "base/blas.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/log.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define BLAS_X86 1
#endif

/* CMake defines it when the BLAS linked is OpenBLAS (openblas_get_corename
 * links); against the reference BLAS there is no core to read. */
#ifdef DPBO_HAVE_OPENBLAS_CORENAME
#include <cblas.h>
#endif

static int blas_exec_errno = 0;

unsigned dpbo_blas_cpu_features(void) {
  unsigned f = 0;
#ifdef BLAS_X86
  unsigned a = 0, b = 0, c = 0, d = 0;
  f = DPBO_BLAS_X86_64;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return f;
  if (c & bit_AVX) f |= DPBO_BLAS_AVX;
  if (c & bit_FMA) f |= DPBO_BLAS_FMA;
  /* XCR0 says which register state the OS saves on a context switch: bits
   * 1-2 (SSE, AVX) for YMM, and 5-7 (opmask, ZMM0-15 upper, ZMM16-31) for
   * AVX-512 (Intel SDM vol. 1, 13.3). Without them the instructions fault. */
  if (c & bit_OSXSAVE) {
    uint32_t lo = 0, hi = 0;
    __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 0x6u) == 0x6u) f |= DPBO_BLAS_OS_YMM;
    if ((lo & 0xe6u) == 0xe6u) f |= DPBO_BLAS_OS_ZMM;
  }
  if (__get_cpuid_count(7, 0, &a, &b, &c, &d)) {
    if (b & (1u << 5)) f |= DPBO_BLAS_AVX2;
    if (b & (1u << 16)) f |= DPBO_BLAS_AVX512F;
    if (b & (1u << 17)) f |= DPBO_BLAS_AVX512DQ;
    if (b & (1u << 28)) f |= DPBO_BLAS_AVX512CD;
    if (b & (1u << 30)) f |= DPBO_BLAS_AVX512BW;
    if (b & (1u << 31)) f |= DPBO_BLAS_AVX512VL;
  }
#endif
  return f;
}

const char *dpbo_blas_best_core(unsigned f) {
  const unsigned avx512 = DPBO_BLAS_AVX512F | DPBO_BLAS_AVX512BW | DPBO_BLAS_AVX512DQ |
                          DPBO_BLAS_AVX512VL | DPBO_BLAS_AVX512CD | DPBO_BLAS_OS_ZMM,
                 avx2 = DPBO_BLAS_AVX | DPBO_BLAS_AVX2 | DPBO_BLAS_FMA | DPBO_BLAS_OS_YMM,
                 avx = DPBO_BLAS_AVX | DPBO_BLAS_OS_YMM;
  if (!(f & DPBO_BLAS_X86_64)) return NULL;
  if ((f & (avx512 | avx2)) == (avx512 | avx2)) return "SkylakeX";
  if ((f & avx2) == avx2) return "Haswell";
  if ((f & avx) == avx) return "Sandybridge";
  return NULL;
}

int dpbo_blas_core_class(const char *core) {
  /* The names of OpenBLAS's DYNAMIC_ARCH cores (driver/others/dynamic.c);
   * a build for one target reports it in capitals, hence strcasecmp. */
  static const char *const class3[] = {"SkylakeX", "Cooperlake", "SapphireRapids"};
  static const char *const class2[] = {"Haswell",    "Zen",         "Bulldozer",
                                       "Piledriver", "Steamroller", "Excavator"};
  static const char *const class0[] = {
      "Unknown", "Katmai",       "Coppermine", "Northwood",  "Prescott", "Banias",
      "Atom",    "Core2",        "Penryn",     "Dunnington", "Nehalem",  "Athlon",
      "Opteron", "Opteron_SSE3", "Barcelona",  "Nano",       "Bobcat"};
  if (!core) return -1;
  for (size_t i = 0; i < sizeof class3 / sizeof *class3; i++)
    if (strcasecmp(core, class3[i]) == 0) return 3;
  for (size_t i = 0; i < sizeof class2 / sizeof *class2; i++)
    if (strcasecmp(core, class2[i]) == 0) return 2;
  if (strcasecmp(core, "Sandybridge") == 0) return 1;
  for (size_t i = 0; i < sizeof class0 / sizeof *class0; i++)
    if (strcasecmp(core, class0[i]) == 0) return 0;
  return -1;
}

dpbo_blas_verdict dpbo_blas_judge(unsigned features, const char *core, const char *forced,
                                  const char *choice, const char *guard, const char **best) {
  const char *b = dpbo_blas_best_core(features);
  *best = b;
  if (choice && *choice && strcmp(choice, "auto") != 0 && strcmp(choice, "keep") != 0)
    return DPBO_BLAS_BAD_SETTING;
  if (!core) return DPBO_BLAS_NOT_OPENBLAS;
  const int have = dpbo_blas_core_class(core);
  if (!b || have < 0) return DPBO_BLAS_NO_JUDGEMENT;
  const int weaker = have < dpbo_blas_core_class(b);
  /* Our own second start first: its OPENBLAS_CORETYPE is dpbo's, not the
   * user's, and it never starts a third time. */
  if (guard && *guard) return weaker ? DPBO_BLAS_WEAK_FAILED : DPBO_BLAS_CHOSEN;
  if (forced && *forced) return weaker ? DPBO_BLAS_WEAK_FORCED : DPBO_BLAS_FORCED;
  if (!weaker) return DPBO_BLAS_BEST;
  return choice && strcmp(choice, "keep") == 0 ? DPBO_BLAS_WEAK_KEPT : DPBO_BLAS_SWITCH;
}

static const char *blas_corename(void) {
#ifdef DPBO_HAVE_OPENBLAS_CORENAME
  return openblas_get_corename();
#else
  return NULL;
#endif
}

dpbo_blas_verdict dpbo_blas_judge_here(const char **core, const char **best) {
  *core = blas_corename();
  return dpbo_blas_judge(dpbo_blas_cpu_features(), *core, getenv("OPENBLAS_CORETYPE"),
                         getenv("DPBO_BLAS_CORE"), getenv("DPBO_BLAS_REEXEC"), best);
}

void dpbo_blas_note_exec_failure(int errnum) { blas_exec_errno = errnum ? errnum : EINVAL; }

/* "OpenBLAS 0.3.21" from openblas_get_config's "OpenBLAS 0.3.21 DYNAMIC_ARCH ...". */
static void blas_version(char *out, size_t size) {
  snprintf(out, size, "OpenBLAS");
#ifdef DPBO_HAVE_OPENBLAS_CORENAME
  const char *config = openblas_get_config();
  if (config && strncmp(config, "OpenBLAS ", 9) == 0)
    snprintf(out, size, "OpenBLAS %.*s", (int)strcspn(config + 9, " "), config + 9);
#endif
}

static const char *blas_class_name(const char *core) {
  switch (dpbo_blas_core_class(core)) {
  case 3:
    return "AVX-512";
  case 2:
    return "AVX2";
  case 1:
    return "AVX";
  default:
    return "SSE";
  }
}

dpbo_blas_verdict dpbo_blas_describe(char *line, size_t size, int *warn) {
  const char *core = NULL, *best = NULL;
  dpbo_blas_verdict v = dpbo_blas_judge_here(&core, &best);
  /* A failed second start leaves the first start's state: dpbo_blas_judge
   * would ask for the switch again. */
  if (v == DPBO_BLAS_SWITCH && blas_exec_errno) v = DPBO_BLAS_WEAK_FAILED;
  char version[64];
  blas_version(version, sizeof version);
  const char *forced = getenv("OPENBLAS_CORETYPE"), *guard = getenv("DPBO_BLAS_REEXEC");
  *warn = v == DPBO_BLAS_WEAK_FORCED || v == DPBO_BLAS_WEAK_KEPT || v == DPBO_BLAS_WEAK_FAILED ||
          v == DPBO_BLAS_BAD_SETTING || v == DPBO_BLAS_SWITCH;
  switch (v) {
  case DPBO_BLAS_BAD_SETTING:
    snprintf(line, size,
             "BLAS: DPBO_BLAS_CORE=%s is not a choice: auto (the default: dpbo "
             "chooses the OpenBLAS core) or keep (OpenBLAS's own choice)",
             getenv("DPBO_BLAS_CORE"));
    break;
  case DPBO_BLAS_NOT_OPENBLAS:
    snprintf(line, size, "BLAS: not OpenBLAS, so no kernels to choose");
    break;
  case DPBO_BLAS_NO_JUDGEMENT:
    snprintf(line, size, "BLAS: %s, core %s (%s)", version, core,
             best ? "a core dpbo does not rank: kept" : "no better core known for this CPU");
    break;
  case DPBO_BLAS_BEST:
    snprintf(line, size, "BLAS: %s, core %s, OpenBLAS's choice and the best this CPU runs (%s)",
             version, core, blas_class_name(best));
    break;
  case DPBO_BLAS_FORCED:
    snprintf(line, size,
             "BLAS: %s, core %s, set by OPENBLAS_CORETYPE=%s (the best this CPU runs: %s)", version,
             core, forced, best);
    break;
  case DPBO_BLAS_CHOSEN:
    snprintf(line, size,
             "BLAS: %s, core %s, chosen by dpbo: OpenBLAS chose %s, weaker than this CPU's "
             "%s (DPBO_BLAS_CORE=keep keeps OpenBLAS's choice)",
             version, core, guard, blas_class_name(best));
    break;
  case DPBO_BLAS_WEAK_FORCED:
    snprintf(line, size,
             "BLAS: %s, core %s, set by OPENBLAS_CORETYPE=%s: weaker than %s, which this CPU "
             "runs (%s); BLAS runs slower (unset OPENBLAS_CORETYPE to let dpbo choose)",
             version, core, forced, best, blas_class_name(best));
    break;
  case DPBO_BLAS_WEAK_KEPT:
    snprintf(line, size,
             "BLAS: %s, core %s, kept by DPBO_BLAS_CORE=keep: weaker than %s, which this CPU "
             "runs (%s); BLAS runs slower",
             version, core, best, blas_class_name(best));
    break;
  case DPBO_BLAS_SWITCH: /* a program that did not start again (dpbo's main does) */
    snprintf(line, size,
             "BLAS: %s, core %s: weaker than %s, which this CPU runs (%s); BLAS runs slower "
             "(OPENBLAS_CORETYPE=%s chooses it)",
             version, core, best, blas_class_name(best), best);
    break;
  case DPBO_BLAS_WEAK_FAILED:
    if (blas_exec_errno)
      snprintf(line, size,
               "BLAS: %s, core %s: weaker than %s, which this CPU runs (%s), and dpbo could not "
               "start again with OPENBLAS_CORETYPE=%s (%s); BLAS runs slower",
               version, core, best, blas_class_name(best), best, strerror(blas_exec_errno));
    else
      snprintf(line, size,
               "BLAS: %s, core %s: weaker than %s, which this CPU runs (%s), and OpenBLAS did "
               "not take OPENBLAS_CORETYPE=%s; BLAS runs slower",
               version, core, best, blas_class_name(best), forced ? forced : best);
    break;
  }
  return v;
}

void dpbo_blas_log(void) {
  char line[512];
  int warn = 0;
  dpbo_blas_describe(line, sizeof line, &warn);
  if (warn)
    dpbo_log_warn("dpbo: %s", line);
  else
    dpbo_log_info("dpbo: %s", line);
}
