/* The `dpbo` command line:
 *   dpbo run CONFIG [--set section.key=value ...] [--quiet] [--resume | --overwrite]
 *   dpbo k1sweep CONFIG [--set section.key=value ...] [--quiet] [--stop-after K]
 *   dpbo utility RUNFILE [--epsilon LIST] [--tail P] [--set privacy.key=value ...] [--quiet]
 *   dpbo compare CONFIG [--set section.key=value ...] [--quiet]
 *   dpbo info FILE.h5 [--trace]
 *   dpbo --help | --version
 * Exit codes: 0 success; 1 the run stopped early (a checkpoint could not be
 * written; the run file holds the steps done), or dpbo audit found a
 * privacy loss above the claim; 2 bad input (usage, config, dataset,
 * candidate list; a run file in use by another writer, or a finished one
 * without --overwrite); 3 any other failure (I/O, MPI, HDF5, numerics); 4
 * dpbo run or k1sweep stopped early on request (the checkpoint holds what
 * was done; --resume, or rerunning the same k1sweep, continues). */
#ifndef DPBO_CLI_H
#define DPBO_CLI_H

#include <mpi.h>

enum {
  DPBO_EXIT_OK = 0,
  DPBO_EXIT_INCOMPLETE = 1,
  DPBO_EXIT_BAD_INPUT = 2,
  DPBO_EXIT_FAILURE = 3,
  DPBO_EXIT_INTERRUPTED = 4 /* stopped by a signal, checkpoint written: resume to continue */
};

/* Runs the command line on comm (collective); returns the process exit code. */
int dpbo_cli_main(MPI_Comm comm, int argc, char **argv);

#endif
