/* dpbo: differentially private Bayesian optimization (Kusner et al., ICML
 * 2015) over MPI. Everything but MPI start-up lives in the library. */
#include <mpi.h>

#include "dpbo/cli.h"

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  int code = dpbo_cli_main(MPI_COMM_WORLD, argc, argv);
  MPI_Finalize();
  return code;
}
