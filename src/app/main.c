/* dpbo: differentially private Bayesian optimization (Kusner et al., ICML
 * 2015) over MPI. Everything but MPI start-up lives in the library. */
#include <mpi.h>
#include <stdio.h>

#include "app/cli.h"

int main(int argc, char **argv) {
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
  int code = dpbo_cli_main(MPI_COMM_WORLD, argc, argv);
  MPI_Finalize();
  return code;
}
