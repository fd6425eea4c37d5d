/* dpbo: differentially private Bayesian optimization (Kusner et al., ICML
 * 2015) over MPI. Everything but MPI start-up lives in the library. */
#include <mpi.h>

#include "dpbo/cli.h"

int main(int argc, char **argv) {
  /* Objectives run in a second thread (evaluator.h) that never calls MPI. */
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int code = dpbo_cli_main(MPI_COMM_WORLD, argc, argv);
  MPI_Finalize();
  return code;
}
