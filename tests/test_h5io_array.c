/* dpbo_h5io_write_array, the writer of files one process holds (dpbo compare
 * on MPI_COMM_SELF, dpbo utility through dpbo_h5io_modify): arrays of 1 to 3
 * dimensions read back with the same shape and values, stored contiguous
 * and without filters (the layout the private writers it replaced used), and
 * a failed write reported as one error naming the dataset and the file. */
#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/h5io.h"
#include "check.h"

/* Shape, values, contiguous layout and no filter of dataset name in file. */
static void check_dataset(hid_t file, const char *name, hid_t type, int ndims, const hsize_t *dims,
                          const void *want, size_t bytes) {
  dpbo_error err;
  dpbo_error_clear(&err);
  hsize_t got[3] = {0, 0, 0};
  CHECK_OK(dpbo_h5io_shape(file, name, ndims, got, &err));
  for (int i = 0; i < ndims; i++)
    CHECK_MSG(got[i] == dims[i], "%s: dimension %d is %llu, want %llu", name, i,
              (unsigned long long)got[i], (unsigned long long)dims[i]);
  void *buf = calloc(1, bytes);
  CHECK_OK(dpbo_h5io_read(file, name, type, buf, &err));
  CHECK_MSG(memcmp(buf, want, bytes) == 0, "%s: values differ", name);
  free(buf);
  hid_t dset = H5Dopen2(file, name, H5P_DEFAULT), dcpl = H5Dget_create_plist(dset);
  CHECK_MSG(H5Pget_layout(dcpl) == H5D_CONTIGUOUS && H5Pget_nfilters(dcpl) == 0,
            "%s: not a plain contiguous dataset", name);
  H5Pclose(dcpl);
  H5Dclose(dset);
}

int main(int argc, char **argv) {
  MPI_Init(&argc, &argv);
  dpbo_error err;
  dpbo_error_clear(&err);
  CHECK_OK(dpbo_h5io_silence(&err));
  char dir[] = "/tmp/dpbo_h5io_array_XXXXXX", path[256];
  CHECK(mkdtemp(dir) != NULL);
  snprintf(path, sizeof path, "%s/arrays.h5", dir);

  int64_t cube[2][3][4];
  double matrix[3][2], column[5];
  for (int i = 0; i < 2 * 3 * 4; i++)
    (&cube[0][0][0])[i] = (int64_t)i * 1000003 - 7;
  for (int i = 0; i < 3 * 2; i++)
    (&matrix[0][0])[i] = 1.0 / (i + 3);
  for (int i = 0; i < 5; i++)
    column[i] = -0.1 * i;
  const hsize_t cube_dims[3] = {2, 3, 4}, matrix_dims[2] = {3, 2}, column_dims[1] = {5};

  /* A new file of one process (MPI-IO driver on MPI_COMM_SELF). */
  dpbo_h5io_file out;
  memset(&out, 0, sizeof out);
  CHECK_OK(dpbo_h5io_create(MPI_COMM_SELF, path, &out, &err));
  CHECK_OK(dpbo_h5io_write_array(out.id, "cube", H5T_NATIVE_INT64, 3, cube_dims, cube, &err));
  CHECK_OK(
      dpbo_h5io_write_array(out.id, "matrix", H5T_NATIVE_DOUBLE, 2, matrix_dims, matrix, &err));
  /* A name taken already: one error naming the dataset and the file. */
  dpbo_error fail;
  dpbo_error_clear(&fail);
  CHECK(dpbo_h5io_write_array(out.id, "cube", H5T_NATIVE_INT64, 3, cube_dims, cube, &fail) ==
        DPBO_ERR_HDF5);
  CHECK_MSG(strstr(fail.message, "cannot write dataset cube to ") != NULL &&
                strstr(fail.message, "arrays.h5") != NULL,
            "message: %s", fail.message);
  CHECK_OK(dpbo_h5io_commit(&out, &err));

  /* A change of the existing file (sec2 driver, no MPI). */
  CHECK_OK(dpbo_h5io_modify(path, &out, &err));
  CHECK_OK(
      dpbo_h5io_write_array(out.id, "column", H5T_NATIVE_DOUBLE, 1, column_dims, column, &err));
  CHECK_OK(dpbo_h5io_commit(&out, &err));

  hid_t file = H5Fopen(path, H5F_ACC_RDONLY, H5P_DEFAULT);
  CHECK(file >= 0);
  if (file >= 0) {
    check_dataset(file, "cube", H5T_NATIVE_INT64, 3, cube_dims, cube, sizeof cube);
    check_dataset(file, "matrix", H5T_NATIVE_DOUBLE, 2, matrix_dims, matrix, sizeof matrix);
    check_dataset(file, "column", H5T_NATIVE_DOUBLE, 1, column_dims, column, sizeof column);
    H5Fclose(file);
  }
  unlink(path);
  CHECK(rmdir(dir) == 0); /* nothing else left behind (no temporary file) */
  int rc = dpbo_test_summary("test_h5io_array");
  MPI_Finalize();
  return rc;
}
