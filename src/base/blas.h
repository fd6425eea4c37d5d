/* Which OpenBLAS kernels run, and whether this CPU could run better ones.
 *
 * OpenBLAS built with DYNAMIC_ARCH (Debian's, most distributions') chooses
 * its kernels ("core") from the CPU model in a library constructor, before
 * main. A CPU model it does not know falls back to weak kernels: on a
 * 2-core VM reporting "Intel Xeon Processor" with AVX-512 it chose Prescott
 * (SSE3), and dgemm ran at 11 GFLOPS instead of 38 with SkylakeX (issue #24).
 * (Debian's 0.3.21 chooses Cooperlake on this project's AMD EPYC with
 * AVX-512, whose environment sets OPENBLAS_CORETYPE=Haswell.) The core can
 * only be changed before that constructor runs, through OPENBLAS_CORETYPE,
 * so main (src/app/main.c) asks dpbo_blas_judge first thing and, when told
 * DPBO_BLAS_SWITCH, sets OPENBLAS_CORETYPE and executes itself again, before
 * MPI_Init (the launcher's environment is inherited, nothing of MPI is
 * started yet). DPBO_BLAS_REEXEC marks the second start, so it happens once.
 *
 * The CPU's best core comes from what it can run, read by cpuid and XGETBV
 * (the OS must save the YMM/ZMM registers): SkylakeX needs AVX-512 F, BW, DQ,
 * VL and CD; Haswell AVX2 and FMA; Sandybridge AVX. Elsewhere (not x86-64)
 * there is nothing to choose. Environment:
 *   OPENBLAS_CORETYPE=NAME  the user's choice: kept, with a warning if weaker
 *   DPBO_BLAS_CORE=keep     keep OpenBLAS's own choice (warned if weaker);
 *                           auto (the default) lets dpbo choose. */
#ifndef DPBO_BASE_BLAS_H
#define DPBO_BASE_BLAS_H

#include <stddef.h>

/* What the CPU offers (cpuid) and the OS saves (XGETBV). */
enum {
  DPBO_BLAS_X86_64 = 1u << 0, /* features below were read at all */
  DPBO_BLAS_AVX = 1u << 1,
  DPBO_BLAS_AVX2 = 1u << 2,
  DPBO_BLAS_FMA = 1u << 3,
  DPBO_BLAS_AVX512F = 1u << 4,
  DPBO_BLAS_AVX512BW = 1u << 5,
  DPBO_BLAS_AVX512DQ = 1u << 6,
  DPBO_BLAS_AVX512VL = 1u << 7,
  DPBO_BLAS_AVX512CD = 1u << 8,
  DPBO_BLAS_OS_YMM = 1u << 9, /* XCR0: SSE and AVX state saved */
  DPBO_BLAS_OS_ZMM = 1u << 10 /* XCR0: also the opmask and ZMM state */
};

typedef enum {
  DPBO_BLAS_NOT_OPENBLAS, /* another BLAS: no core to choose */
  DPBO_BLAS_NO_JUDGEMENT, /* not x86-64, or a core name dpbo does not rank */
  DPBO_BLAS_BEST,         /* OpenBLAS's own choice, as strong as the CPU allows */
  DPBO_BLAS_FORCED,       /* OPENBLAS_CORETYPE set by the user, not weaker */
  DPBO_BLAS_CHOSEN,       /* dpbo set OPENBLAS_CORETYPE and started again */
  DPBO_BLAS_SWITCH,       /* weaker: set OPENBLAS_CORETYPE=best, start again */
  DPBO_BLAS_WEAK_FORCED,  /* weaker, set so by the user's OPENBLAS_CORETYPE */
  DPBO_BLAS_WEAK_KEPT,    /* weaker, kept by DPBO_BLAS_CORE=keep */
  DPBO_BLAS_WEAK_FAILED,  /* weaker after dpbo's second start (or it failed) */
  DPBO_BLAS_BAD_SETTING   /* DPBO_BLAS_CORE is neither auto nor keep */
} dpbo_blas_verdict;

/* The features of this CPU as usable here; 0 off x86-64. */
unsigned dpbo_blas_cpu_features(void);

/* The strongest OpenBLAS core that a CPU with `features` runs (SkylakeX,
 * Haswell, Sandybridge), or NULL when none of those (keep OpenBLAS's). */
const char *dpbo_blas_best_core(unsigned features);

/* The class of a core's kernels, case-insensitive: 3 AVX-512 (SkylakeX,
 * Cooperlake, SapphireRapids), 2 AVX2/FMA (Haswell, Zen, and AMD's
 * Bulldozer family, whose own tuned kernels are never overridden), 1 AVX
 * (Sandybridge), 0 older x86 (Prescott, Nehalem, ...), -1 unknown. */
int dpbo_blas_core_class(const char *core);

/* The decision, a pure function of its inputs: the CPU's features, the core
 * OpenBLAS runs (NULL: not OpenBLAS), and the environment variables
 * OPENBLAS_CORETYPE (forced), DPBO_BLAS_CORE (choice) and DPBO_BLAS_REEXEC
 * (guard), each NULL when unset. *best: the CPU's best core or NULL. */
dpbo_blas_verdict dpbo_blas_judge(unsigned features, const char *core, const char *forced,
                                  const char *choice, const char *guard, const char **best);

/* The same for this process: cpuid, openblas_get_corename, getenv. */
dpbo_blas_verdict dpbo_blas_judge_here(const char **core, const char **best);

/* main's second start failed with errno `errnum` (it goes on with the core
 * it has; dpbo_blas_describe says why). */
void dpbo_blas_note_exec_failure(int errnum);

/* One line for the start-up header and dpbo --version: the BLAS, its
 * version and core, and what was chosen and why. Returns the verdict;
 * *warn is set when the line is a warning (a weaker core or a bad
 * DPBO_BLAS_CORE). */
dpbo_blas_verdict dpbo_blas_describe(char *line, size_t size, int *warn);

/* dpbo_blas_describe through the log: info, or a warning. Rank 0 calls it,
 * once per command, in app (cli.c). */
void dpbo_blas_log(void);

#endif
