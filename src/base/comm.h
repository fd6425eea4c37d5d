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

/* Collective: the info lines rank `from` held (dpbo_log_hold) are printed
 * on the printing rank, as if it had said them; every rank stops holding.
 * Nothing is sent when `from` prints itself. */
dpbo_status dpbo_comm_log_forward(MPI_Comm comm, int from, dpbo_error *err);

/* Waits for a request without spinning: MPI_Test, then nanosleep with a
 * back-off from 0.1 ms to 10 ms. Open MPI's blocking calls poll, so a rank
 * that may wait for a long time (an idle worker of the k1 sweep while others
 * still train) would otherwise steal a core from the ranks doing work. */
dpbo_status dpbo_comm_wait_idle(MPI_Request *request, MPI_Status *mpi_status, dpbo_error *err);

/* A barrier that sleeps while it waits (MPI_Ibarrier + dpbo_comm_wait_idle). */
dpbo_status dpbo_comm_barrier_idle(MPI_Comm comm, dpbo_error *err);

/* One step of the back-off above: sleeps *ns nanoseconds (start it at 0)
 * and doubles it up to 10 ms, for loops that poll with MPI_Iprobe. */
void dpbo_comm_nap(long *ns);

/* The same with other bounds: sleeps *ns, at least min_ns, and doubles it
 * up to max_ns (a loop that must answer within a millisecond naps up to 1 ms). */
void dpbo_comm_nap_bounded(long *ns, long min_ns, long max_ns);

#endif
