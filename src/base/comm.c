#include "base/comm.h"

#include <string.h>
#include <time.h>

#include "base/log.h"

dpbo_status dpbo_comm_agree(MPI_Comm comm, dpbo_status local, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int rank, size;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  /* The lowest failing rank wins; size stands for "nobody failed". */
  int mine = local != DPBO_OK ? rank : size;
  int first = size;
  DPBO_MPI_TRY(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  if (first == size) goto done;
  struct {
    int code;
    char message[DPBO_ERROR_MSG_MAX];
  } packet;
  memset(&packet, 0, sizeof packet);
  if (rank == first) {
    packet.code = (int)err->code;
    memcpy(packet.message, err->message, sizeof packet.message);
  }
  DPBO_MPI_TRY(MPI_Bcast(&packet, (int)sizeof packet, MPI_BYTE, first, comm));
  if (rank != first) {
    err->code = (dpbo_status)packet.code;
    memcpy(err->message, packet.message, sizeof err->message);
    err->message[sizeof err->message - 1] = '\0';
  }
  status = err->code != DPBO_OK ? err->code : DPBO_ERR_MPI;
done:
  return status;
}

dpbo_status dpbo_comm_log_forward(MPI_Comm comm, int from, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int rank;
  char text[DPBO_LOG_HELD_MAX];
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  if (from == 0) goto done;
  if (rank == from) memcpy(text, dpbo_log_held(), sizeof text);
  DPBO_MPI_TRY(MPI_Bcast(text, (int)sizeof text, MPI_CHAR, from, comm));
  text[sizeof text - 1] = '\0';
  if (rank == 0)
    for (char *line = text, *end; *line; line = end + 1) {
      end = strchr(line, '\n');
      if (!end) break;
      *end = '\0';
      dpbo_log_info("%s", line);
    }
done:
  dpbo_log_hold(0);
  return status;
}

void dpbo_comm_nap_bounded(long *ns, long min_ns, long max_ns) {
  if (*ns < min_ns) *ns = min_ns;
  struct timespec pause = {0, *ns};
  nanosleep(&pause, NULL);
  *ns = *ns * 2 > max_ns ? max_ns : *ns * 2;
}

void dpbo_comm_nap(long *ns) { dpbo_comm_nap_bounded(ns, 100000L, 10000000L); }

dpbo_status dpbo_comm_wait_idle(MPI_Request *request, MPI_Status *mpi_status, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  long ns = 0;
  for (;;) {
    int flag = 0;
    DPBO_MPI_TRY(MPI_Test(request, &flag, mpi_status ? mpi_status : MPI_STATUS_IGNORE));
    if (flag) break;
    dpbo_comm_nap(&ns);
  }
done:
  return status;
}

dpbo_status dpbo_comm_barrier_idle(MPI_Comm comm, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  MPI_Request request;
  DPBO_MPI_TRY(MPI_Ibarrier(comm, &request));
  DPBO_TRY(dpbo_comm_wait_idle(&request, NULL, err));
done:
  return status;
}
