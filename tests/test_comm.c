/* MPI failures surface as dpbo errors (issue #12, item 4).
 *
 * dpbo's main sets MPI_ERRORS_RETURN on MPI_COMM_WORLD, so a failing MPI
 * call returns a code that DPBO_MPI_TRY turns into DPBO_ERR_MPI with the
 * call, its place and MPI's reason, instead of Open MPI aborting the job (or
 * the branch that checked the code never running). This test does what main
 * does and hands dpbo's helpers an invalid communicator (MPI_COMM_NULL,
 * whose errors MPI raises on MPI_COMM_WORLD): every rank must get the status
 * and a message naming the first failing call, and go on to use MPI after. */
#include <mpi.h>
#include <string.h>

#include "check.h"
#include "base/comm.h"

static void check_mpi_error(const char *what, dpbo_status got, const dpbo_error *err,
                            const char *call) {
  printf("%s: %s: %s\n", what, dpbo_status_name(got), err->message);
  CHECK_MSG(got == DPBO_ERR_MPI, "%s returned %s", what, dpbo_status_name(got));
  CHECK_MSG(err->code == DPBO_ERR_MPI, "%s recorded %s", what, dpbo_status_name(err->code));
  CHECK_MSG(strstr(err->message, call) != NULL, "%s: the message does not name %s", what, call);
  CHECK_MSG(strstr(err->message, "comm.c:") != NULL, "%s: the message has no place", what);
  /* MPI_Error_string's reason for MPI_ERR_COMM. */
  CHECK_MSG(strstr(err->message, "communicator") != NULL, "%s: the message has no MPI reason",
            what);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  CHECK(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN) == MPI_SUCCESS);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  dpbo_error err;

  dpbo_error_clear(&err);
  dpbo_status got = dpbo_comm_agree(MPI_COMM_NULL, DPBO_OK, &err);
  check_mpi_error("dpbo_comm_agree(MPI_COMM_NULL)", got, &err, "MPI_Comm_rank(comm, &rank)");

  dpbo_error_clear(&err);
  got = dpbo_comm_barrier_idle(MPI_COMM_NULL, &err);
  check_mpi_error("dpbo_comm_barrier_idle(MPI_COMM_NULL)", got, &err,
                  "MPI_Ibarrier(comm, &request)");

  /* The failures were local: the ranks still agree on a real communicator,
   * and a failure of rank 0 reaches every rank with its message. */
  dpbo_error_clear(&err);
  dpbo_status local = DPBO_OK;
  if (rank == 0) local = DPBO_ERROR_SET(&err, DPBO_ERR_IO, "rank 0 failed on purpose");
  got = dpbo_comm_agree(MPI_COMM_WORLD, local, &err);
  CHECK_MSG(got == DPBO_ERR_IO && strcmp(err.message, "rank 0 failed on purpose") == 0,
            "rank %d: agree returned %s: %s", rank, dpbo_status_name(got), err.message);

  int failed = dpbo_test_summary(rank == 0 ? "test_comm" : "test_comm (worker)");
  MPI_Finalize();
  return failed;
}
