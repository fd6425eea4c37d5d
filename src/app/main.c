/* dpbo: differentially private Bayesian optimization (Kusner et al., ICML
 * 2015) over MPI. Everything but MPI start-up lives in the library. */
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "app/cli.h"
#include "base/blas.h"

/* OpenBLAS chose its kernels in its constructor, before main; on a CPU
 * model it does not know they can be far weaker than the CPU runs (issue
 * #24: Prescott instead of SkylakeX, dgemm 11 instead of 38 GFLOPS). The
 * core can be changed only by OPENBLAS_CORETYPE at load time, so dpbo sets
 * it and executes itself again, with the same arguments, before MPI_Init:
 * nothing of MPI has started, and the launcher's environment (Open MPI's,
 * Slurm's) is kept. DPBO_BLAS_REEXEC (the core OpenBLAS chose) marks the
 * second start, so there is no third (base/blas.h). Not under valgrind,
 * whose memcheck would not follow the new program. If exec fails, dpbo goes
 * on with the weaker core and the start-up line says so. Returns the
 * verdict: a bad DPBO_BLAS_CORE is refused after MPI_Init, by rank 0 alone. */
static dpbo_blas_verdict main_blas_core(char **argv) {
  const char *core = NULL, *best = NULL, *preload = getenv("LD_PRELOAD");
  dpbo_blas_verdict v = dpbo_blas_judge_here(&core, &best);
  if (v != DPBO_BLAS_SWITCH || (preload && strstr(preload, "vgpreload"))) return v;
  if (setenv("DPBO_BLAS_REEXEC", core, 1) == 0 && setenv("OPENBLAS_CORETYPE", best, 1) == 0)
    execv("/proc/self/exe", argv);
  dpbo_blas_note_exec_failure(errno);
  unsetenv("OPENBLAS_CORETYPE");
  unsetenv("DPBO_BLAS_REEXEC");
  return v;
}

int main(int argc, char **argv) {
  dpbo_blas_verdict blas = main_blas_core(argv);
  /* Objectives run in a second thread (evaluator.h) that never calls MPI:
   * the main thread alone talks to MPI, which MPI_THREAD_FUNNELED allows
   * and nothing less does. */
  int provided = MPI_THREAD_SINGLE, rank = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
    fprintf(stderr, "dpbo: error: MPI_Init_thread failed\n");
    return DPBO_EXIT_FAILURE;
  }
  /* Errors on MPI_COMM_WORLD and every communicator dpbo derives from it
   * (MPI_Comm_dup and MPI_Comm_split_type inherit the handler) come back as
   * codes that DPBO_MPI_TRY turns into one dpbo message, instead of Open
   * MPI's abort. MPI-IO files (HDF5's mpio driver) need nothing here: their
   * default handler, the one on MPI_FILE_NULL, is MPI_ERRORS_RETURN by the
   * standard. */
  if (MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) != MPI_SUCCESS ||
      MPI_Comm_rank(MPI_COMM_WORLD, &rank) != MPI_SUCCESS) {
    fprintf(stderr, "dpbo: error: cannot make MPI return its errors\n");
    MPI_Finalize();
    return DPBO_EXIT_FAILURE;
  }
  /* Every rank gets the same answer, so every rank leaves; one prints. */
  if (provided < MPI_THREAD_FUNNELED) {
    if (rank == 0)
      fprintf(stderr,
              "dpbo: error: the MPI library provides thread level %d, dpbo needs "
              "MPI_THREAD_FUNNELED (%d): objectives run in a thread beside MPI\n",
              provided, MPI_THREAD_FUNNELED);
    MPI_Finalize();
    return DPBO_EXIT_FAILURE;
  }
  if (blas == DPBO_BLAS_BAD_SETTING) {
    char line[512];
    int warn = 0;
    dpbo_blas_describe(line, sizeof line, &warn);
    if (rank == 0) fprintf(stderr, "dpbo: error: %s\n", line + strlen("BLAS: "));
    MPI_Finalize();
    return DPBO_EXIT_BAD_INPUT;
  }
  int code = dpbo_cli_main(MPI_COMM_WORLD, argc, argv);
  MPI_Finalize();
  return code;
}
