/* The `dpbo` command line:
 *   dpbo run CONFIG [--set section.key=value ...] [--quiet]
 *   dpbo info FILE.h5 [--trace]
 *   dpbo --help | --version
 * Exit codes: 0 success; 1 the run stopped early (an evaluation failed; the
 * run file holds the steps done); 2 bad input (usage, config, dataset,
 * candidate list); 3 any other failure (I/O, MPI, HDF5, numerics). */
#ifndef DPBO_CLI_H
#define DPBO_CLI_H

#include <mpi.h>

enum { DPBO_EXIT_OK = 0, DPBO_EXIT_INCOMPLETE = 1, DPBO_EXIT_BAD_INPUT = 2, DPBO_EXIT_FAILURE = 3 };

/* Runs the command line on comm (collective); returns the process exit code. */
int dpbo_cli_main(MPI_Comm comm, int argc, char **argv);

#endif
