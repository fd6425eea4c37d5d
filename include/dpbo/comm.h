/* Small MPI helpers shared by the driver and the experiments. */
#ifndef DPBO_COMM_H
#define DPBO_COMM_H

#include <mpi.h>

#include "dpbo/error.h"

/* Collective: every rank passes its local status; all return the same
 * status. If any rank failed, the lowest failing rank's code and message are
 * copied into err on every rank, so rank 0 can report a worker's error and
 * every rank leaves the collective path together. */
dpbo_status dpbo_comm_agree(MPI_Comm comm, dpbo_status local, dpbo_error *err);

#endif
