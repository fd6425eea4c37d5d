/* A program outside dpbo's tree that uses the installed public API only:
 * a 2-d Sobol candidate set, one candidate's coordinates and β_t. The install
 * test (tests/install_package.sh) builds it three ways (CMake package,
 * pkg-config shared, pkg-config --static) and checks what it prints. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <string.h>

#include "dpbo/error.h"
#include "dpbo/privacy.h"
#include "dpbo/space.h"
#include "dpbo/version.h"

int main(int argc, char **argv) {
  int rc = 1;
  dpbo_space *space = NULL;
  dpbo_error err;
  dpbo_dim dims[2];
  double unit[2];
  if (MPI_Init(&argc, &argv) != MPI_SUCCESS) return 1;
  memset(dims, 0, sizeof dims);
  snprintf(dims[0].name, sizeof dims[0].name, "C");
  dims[0].lo = 1e-2, dims[0].hi = 1e4, dims[0].scale = DPBO_SCALE_LOG;
  snprintf(dims[1].name, sizeof dims[1].name, "gamma");
  dims[1].lo = 1e-4, dims[1].hi = 1.0, dims[1].scale = DPBO_SCALE_LOG;
  if (dpbo_space_create_sobol(2, dims, 64, &space, &err) != DPBO_OK ||
      dpbo_space_unit(space, 1, unit, &err) != DPBO_OK) {
    fprintf(stderr, "consumer: %s\n", err.message);
    goto done;
  }
  printf("dpbo %s\n", DPBO_VERSION_STRING);
  printf("size %lld\n", (long long)dpbo_space_size(space));
  printf("unit1 %.17g %.17g\n", unit[0], unit[1]);
  printf("beta %.17g\n", dpbo_privacy_beta(dpbo_space_size(space), 5, 0.05));
  /* An invalid dimension gives a status code, its name and a message. */
  dims[0].lo = 5, dims[0].hi = 1;
  dpbo_status bad = dpbo_dim_validate(&dims[0], DPBO_SPACE_SOBOL, &err);
  printf("status %s (%s)\n", dpbo_status_name(bad), dpbo_status_text(bad));
  rc = 0;
done:
  dpbo_space_destroy(space);
  MPI_Finalize();
  return rc;
}
