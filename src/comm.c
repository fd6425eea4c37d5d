#include "dpbo/comm.h"

#include <string.h>
#include <time.h>

dpbo_status dpbo_comm_agree(MPI_Comm comm, dpbo_status local, dpbo_error *err) {
  int rank, size;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &size);
  /* The lowest failing rank wins; size stands for "nobody failed". */
  int mine = local != DPBO_OK ? rank : size;
  int first = size;
  if (MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm) != MPI_SUCCESS)
    return DPBO_ERROR_SET(err, DPBO_ERR_MPI, "MPI_Allreduce failed while agreeing on a status");
  if (first == size) return DPBO_OK;
  struct {
    int code;
    char message[DPBO_ERROR_MSG_MAX];
  } packet;
  memset(&packet, 0, sizeof packet);
  if (rank == first) {
    packet.code = (int)err->code;
    memcpy(packet.message, err->message, sizeof packet.message);
  }
  if (MPI_Bcast(&packet, (int)sizeof packet, MPI_BYTE, first, comm) != MPI_SUCCESS)
    return DPBO_ERROR_SET(err, DPBO_ERR_MPI, "MPI_Bcast failed while sharing an error");
  if (rank != first) {
    err->code = (dpbo_status)packet.code;
    memcpy(err->message, packet.message, sizeof err->message);
    err->message[sizeof err->message - 1] = '\0';
  }
  return err->code != DPBO_OK ? err->code : DPBO_ERR_MPI;
}

void dpbo_comm_nap(long *ns) {
  if (*ns < 100000L) *ns = 100000L;
  struct timespec pause = {0, *ns};
  nanosleep(&pause, NULL);
  *ns = *ns * 2 > 10000000L ? 10000000L : *ns * 2;
}

dpbo_status dpbo_comm_wait_idle(MPI_Request *request, MPI_Status *status, dpbo_error *err) {
  long ns = 0;
  for (;;) {
    int flag = 0;
    if (MPI_Test(request, &flag, status ? status : MPI_STATUS_IGNORE) != MPI_SUCCESS)
      return DPBO_ERROR_SET(err, DPBO_ERR_MPI, "MPI_Test failed");
    if (flag) return DPBO_OK;
    dpbo_comm_nap(&ns);
  }
}

dpbo_status dpbo_comm_barrier_idle(MPI_Comm comm, dpbo_error *err) {
  MPI_Request request;
  if (MPI_Ibarrier(comm, &request) != MPI_SUCCESS)
    return DPBO_ERROR_SET(err, DPBO_ERR_MPI, "MPI_Ibarrier failed");
  return dpbo_comm_wait_idle(&request, NULL, err);
}
