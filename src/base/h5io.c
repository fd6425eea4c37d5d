#define _GNU_SOURCE /* copy_file_range (dpbo_h5io_modify), memfd_create */
#include "base/h5io.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/comm.h"

/* ---------------------------------------------------------------------------
 * Errors: one dpbo message per failure, never HDF5's stack. */

dpbo_status dpbo_h5io_silence(dpbo_error *err) {
  /* HDF5 prints its whole error stack on every failing call by default:
   * about 400 lines on 2 ranks for one failed write on a full disk. */
  if (H5Eset_auto2(H5E_DEFAULT, NULL, NULL) < 0)
    return DPBO_ERROR_SET(err, DPBO_ERR_HDF5, "cannot turn off HDF5's error printing");
  return DPBO_OK;
}

static herr_t h5io_innermost(unsigned n, const H5E_error2_t *record, void *data) {
  if (n == 0 && record->desc) snprintf(data, 160, "%s", record->desc);
  return 0;
}

/* The errno an HDF5 driver (core, POSIX) records in its message ("...,
 * errno = 28, error message = ...") anywhere in the error stack: the
 * errno variable itself may have been changed by the time the failed call
 * returns (a retried short write leaves 0, HDF5's clean-up overwrites it). */
static herr_t h5io_stack_errno(unsigned n, const H5E_error2_t *record, void *data) {
  (void)n;
  int *found = data;
  const char *at = record->desc ? strstr(record->desc, "errno = ") : NULL;
  if (at && *found == 0) *found = atoi(at + strlen("errno = "));
  return 0;
}

/* Why a write failed: the system's error, from HDF5's stack (above) or
 * else errno saved right after the failed call (the MPI-IO layer's
 * write(2) left it there), or, without one, the innermost message of
 * HDF5's error stack. Call before any other HDF5 call, which would clear
 * the stack. EAGAIN and EINTR are left behind by MPI's progress engine, not
 * by the write. */
static void h5io_reason(int saved_errno, char *out, size_t size) {
  int recorded = 0;
  if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, h5io_stack_errno, &recorded) >= 0 && recorded > 0)
    saved_errno = recorded;
  if (saved_errno != 0 && saved_errno != EAGAIN && saved_errno != EINTR) {
    snprintf(out, size, "%s", strerror(saved_errno));
    return;
  }
  char inner[160] = "";
  if (H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, h5io_innermost, inner) < 0 || !inner[0])
    snprintf(inner, sizeof inner, "no reason given");
  snprintf(out, size, "HDF5: %s", inner);
}

/* The name of the file holding obj, for messages. A file HDF5 opened
 * through its creator's descriptor ("/proc/self/fd/N", see h5io_open_fd)
 * is named by the path that descriptor leads to. */
static void h5io_file_name(hid_t obj, char *out, size_t size) {
  char name[DPBO_PATH_MAX + 64];
  if (obj < 0 || H5Fget_name(obj, name, sizeof name) < 0) {
    snprintf(out, size, "(unknown file)");
    return;
  }
  ssize_t n = -1;
  if (strncmp(name, "/proc/self/fd/", 14) == 0 && size > 1) n = readlink(name, out, size - 1);
  if (n > 0)
    out[n] = '\0';
  else
    snprintf(out, size, "%s", name);
}

/* A write into the file holding obj failed: "cannot write <what> to <file>:
 * <reason>". */
static dpbo_status h5io_fail(hid_t obj, int saved_errno, const char *what, dpbo_error *err) {
  char reason[200], file[DPBO_PATH_MAX + 64];
  h5io_reason(saved_errno, reason, sizeof reason);
  h5io_file_name(obj, file, sizeof file);
  return DPBO_ERROR_SET(err, DPBO_ERR_HDF5, "cannot write %s to %s: %s", what, file, reason);
}

/* Collective over the file's communicator: a collective write that failed
 * on one rank (the one whose write(2) hit a full disk) fails on all, with
 * that rank's message, so no rank goes on to the next collective call
 * alone (that hung). A file one process holds alone (the core driver, see
 * h5io_create) has nobody to agree with. */
/* Whether the file holding obj is open through MPI-IO (else the core
 * driver: one process holds it). */
static int h5io_is_mpio(hid_t obj) {
  hid_t file = H5Iget_file_id(obj), fapl = -1;
  int mpio =
      file >= 0 && (fapl = H5Fget_access_plist(file)) >= 0 && H5Pget_driver(fapl) == H5FD_MPIO;
  if (fapl >= 0) H5Pclose(fapl);
  if (file >= 0) H5Fclose(file);
  return mpio;
}

static dpbo_status h5io_agree(hid_t obj, dpbo_status local, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t file = -1, fapl = -1;
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Info info = MPI_INFO_NULL;
  if (!h5io_is_mpio(obj)) return local;
  file = H5Iget_file_id(obj);
  if (file < 0 || (fapl = H5Fget_access_plist(file)) < 0 ||
      H5Pget_fapl_mpio(fapl, &comm, &info) < 0) {
    /* Cannot happen for a file of dpbo_h5io_create; keep the write's own error. */
    status = local != DPBO_OK
                 ? local
                 : DPBO_ERROR_SET(err, DPBO_ERR_HDF5, "cannot find a file's communicator");
    goto done;
  }
  status = dpbo_comm_agree(comm, local, err);
done:
  if (comm != MPI_COMM_NULL) MPI_Comm_free(&comm);
  if (info != MPI_INFO_NULL) MPI_Info_free(&info);
  if (fapl >= 0) H5Pclose(fapl);
  if (file >= 0) H5Fclose(file);
  return status;
}

/* Every HDF5 call that can fail (a negative hid_t or herr_t) is checked
 * with one of these; `what` names the attribute or dataset. H5IO_TRY raises
 * at once: for calls every rank makes with the same arguments before a
 * collective one, which fail alike everywhere or (out of memory) only where
 * the collective call would fail too. H5IO_LOCAL records the first failure
 * in `local` instead, for the set-up of one rank's part of a collective
 * write: the rank must not leave alone, so the write is preceded by an
 * agreement (dpbo_comm_agree) that fails every rank with its message. */
#define H5IO_TRY(call, what)                                                                       \
  do {                                                                                             \
    if ((call) < 0) DPBO_RAISE(DPBO_ERR_HDF5, "%s failed for %s", #call, (what));                  \
  } while (0)

#define H5IO_LOCAL(call, what)                                                                     \
  do {                                                                                             \
    if (local == DPBO_OK && (call) < 0)                                                            \
      local = DPBO_ERROR_SET(err, DPBO_ERR_HDF5, "%s failed for %s", #call, (what));               \
  } while (0)

/* ---------------------------------------------------------------------------
 * Attributes. */

static dpbo_status h5io_attr(hid_t obj, const char *name, hid_t type, hid_t space, const void *data,
                             dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char what[300];
  snprintf(what, sizeof what, "attribute %s", name);
  errno = 0;
  hid_t attr = H5Acreate2(obj, name, type, space, H5P_DEFAULT, H5P_DEFAULT);
  if (attr < 0 || H5Awrite(attr, type, data) < 0) {
    status = h5io_fail(obj, errno, what, err);
    goto done;
  }
done:
  if (attr >= 0) H5Aclose(attr);
  return status;
}

dpbo_status dpbo_h5io_attr_string(hid_t obj, const char *name, const char *value, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t type = -1, space = -1;
  H5IO_TRY(type = H5Tcopy(H5T_C_S1), name);
  H5IO_TRY(space = H5Screate(H5S_SCALAR), name);
  H5IO_TRY(H5Tset_size(type, strlen(value) + 1), name);
  H5IO_TRY(H5Tset_strpad(type, H5T_STR_NULLTERM), name);
  DPBO_TRY(h5io_attr(obj, name, type, space, value, err));
done:
  if (space >= 0) H5Sclose(space);
  if (type >= 0) H5Tclose(type);
  return status;
}

dpbo_status dpbo_h5io_attr_numbers(hid_t obj, const char *name, hid_t type, const void *values,
                                   hsize_t n, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t space = -1;
  H5IO_TRY(space = n == 1 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL), name);
  DPBO_TRY(h5io_attr(obj, name, type, space, values, err));
done:
  if (space >= 0) H5Sclose(space);
  return status;
}

dpbo_status dpbo_h5io_attr_array(hid_t obj, const char *name, hid_t type, const void *values,
                                 hsize_t n, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t space = -1;
  H5IO_TRY(space = H5Screate_simple(1, &n, NULL), name);
  DPBO_TRY(h5io_attr(obj, name, type, space, values, err));
done:
  if (space >= 0) H5Sclose(space);
  return status;
}

dpbo_status dpbo_h5io_attr_doubles(hid_t obj, const char *name, const double *values, hsize_t n,
                                   dpbo_error *err) {
  return dpbo_h5io_attr_numbers(obj, name, H5T_NATIVE_DOUBLE, values, n, err);
}

dpbo_status dpbo_h5io_attr_int64(hid_t obj, const char *name, const int64_t *values, hsize_t n,
                                 dpbo_error *err) {
  return dpbo_h5io_attr_numbers(obj, name, H5T_NATIVE_INT64, values, n, err);
}

static hid_t h5io_open_attr(hid_t obj, const char *name) {
  hid_t attr = -1;
  H5E_BEGIN_TRY { attr = H5Aopen(obj, name, H5P_DEFAULT); }
  H5E_END_TRY;
  return attr;
}

static dpbo_status h5io_read_attr(hid_t obj, const char *name, hid_t type, void *value,
                                  dpbo_error *err) {
  hid_t attr = h5io_open_attr(obj, name);
  if (attr < 0) return DPBO_ERROR_SET(err, DPBO_ERR_HDF5, "attribute %s is missing", name);
  herr_t rc = H5Aread(attr, type, value);
  H5Aclose(attr);
  return rc < 0 ? DPBO_ERROR_SET(err, DPBO_ERR_HDF5, "cannot read attribute %s", name) : DPBO_OK;
}

dpbo_status dpbo_h5io_read_attr_int64(hid_t obj, const char *name, int64_t *value,
                                      dpbo_error *err) {
  return h5io_read_attr(obj, name, H5T_NATIVE_INT64, value, err);
}

dpbo_status dpbo_h5io_read_attr_double(hid_t obj, const char *name, double *value,
                                       dpbo_error *err) {
  return h5io_read_attr(obj, name, H5T_NATIVE_DOUBLE, value, err);
}

dpbo_status dpbo_h5io_read_attr_string(hid_t obj, const char *name, char **value, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t type = -1;
  char *text = NULL;
  hid_t attr = h5io_open_attr(obj, name);
  *value = NULL;
  if (attr < 0) DPBO_RAISE(DPBO_ERR_HDF5, "attribute %s is missing", name);
  H5IO_TRY(type = H5Aget_type(attr), name);
  if (H5Tget_class(type) != H5T_STRING || H5Tis_variable_str(type) > 0)
    DPBO_RAISE(DPBO_ERR_HDF5, "attribute %s is not a fixed-length string", name);
  size_t len = H5Tget_size(type);
  if (len == 0) DPBO_RAISE(DPBO_ERR_HDF5, "H5Tget_size failed for %s", name);
  DPBO_ALLOC(text, len + 1, "a string attribute");
  if (H5Aread(attr, type, text) < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot read attribute %s", name);
  /* The text ends at its first NUL byte; anything after it but padding
   * would be dropped unseen. */
  for (size_t i = strnlen(text, len); i < len; i++)
    if (text[i] != '\0')
      DPBO_RAISE(DPBO_ERR_DATA, "attribute %s holds a NUL byte inside its text", name);
  *value = text;
  text = NULL;
done:
  free(text);
  if (type >= 0) H5Tclose(type);
  if (attr >= 0) H5Aclose(attr);
  return status;
}

typedef struct h5io_visit {
  const char *prefix;
  dpbo_h5io_attr_visit visit;
  void *user;
  dpbo_error *err;
  dpbo_status status;
} h5io_visit;

static herr_t h5io_visit_string(hid_t loc, const char *name, const H5A_info_t *info, void *data) {
  (void)info;
  h5io_visit *v = data;
  const size_t skip = strlen(v->prefix);
  if (strncmp(name, v->prefix, skip) != 0) return 0;
  char *value = NULL;
  v->status = dpbo_h5io_read_attr_string(loc, name, &value, v->err);
  if (v->status == DPBO_OK) v->status = v->visit(v->user, name + skip, value, v->err);
  free(value);
  return v->status == DPBO_OK ? 0 : -1;
}

dpbo_status dpbo_h5io_visit_attr_strings(hid_t obj, const char *prefix, dpbo_h5io_attr_visit visit,
                                         void *user, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  h5io_visit v = {prefix, visit, user, err, DPBO_OK};
  herr_t rc;
  H5E_BEGIN_TRY { rc = H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, NULL, h5io_visit_string, &v); }
  H5E_END_TRY;
  if (v.status != DPBO_OK) {
    status = v.status;
    goto done;
  }
  if (rc < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot list the %s* attributes", prefix);
done:
  return status;
}

/* ---------------------------------------------------------------------------
 * Datasets. */

/* With `checked`, the dataset is one chunk with HDF5's Fletcher-32 checksum,
 * which every read verifies (H5Dread fails on a mismatch), so a corrupted
 * trace is refused instead of resumed or released. An empty dataset cannot
 * be chunked and has nothing to check. */
static dpbo_status h5io_write_block(hid_t group, const dpbo_h5io_blocks *set, const void *data,
                                    int checked, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const char *name = set->name;
  const hid_t type = set->type;
  const int ndims = set->ndims;
  const hsize_t *dims = set->dims, offset = set->offset, rows = set->rows;
  hid_t filespace = -1, dset = -1, memspace = -1, xfer = -1, dcpl = -1;
  dpbo_status local = DPBO_OK;
  char what[300];
  snprintf(what, sizeof what, "dataset %s", name);
  H5IO_TRY(filespace = H5Screate_simple(ndims, dims, NULL), what);
  for (int i = 0; i < ndims; i++)
    checked = checked && dims[i] > 0;
  if (checked) {
    H5IO_TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), what);
    H5IO_TRY(H5Pset_chunk(dcpl, ndims, dims), what);
    H5IO_TRY(H5Pset_fletcher32(dcpl), what);
  }
  errno = 0;
  dset = H5Dcreate2(group, name, type, filespace, H5P_DEFAULT, checked ? dcpl : H5P_DEFAULT,
                    H5P_DEFAULT);
  if (dset < 0) {
    status = h5io_fail(group, errno, what, err);
    goto done;
  }
  /* An empty dataset (a checkpoint written before its first step) has no
   * storage to write to: HDF5 fails the write with an address overflow. */
  if (!checked && H5Sget_simple_extent_npoints(filespace) == 0) goto done;
  hsize_t start[2] = {offset, 0}, count[2] = {rows, ndims > 1 ? dims[1] : 1};
  H5IO_LOCAL(memspace = H5Screate_simple(ndims, count, NULL), what);
  if (rows > 0) {
    H5IO_LOCAL(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, start, NULL, count, NULL), what);
  } else {
    H5IO_LOCAL(H5Sselect_none(filespace), what);
    H5IO_LOCAL(H5Sselect_none(memspace), what);
  }
  H5IO_LOCAL(xfer = H5Pcreate(H5P_DATASET_XFER), what);
  if (h5io_is_mpio(group)) H5IO_LOCAL(H5Pset_dxpl_mpio(xfer, H5FD_MPIO_COLLECTIVE), what);
  DPBO_TRY(h5io_agree(group, local, err));
  errno = 0;
  if (H5Dwrite(dset, type, memspace, filespace, xfer, data) < 0)
    local = h5io_fail(group, errno, what, err);
  DPBO_TRY(h5io_agree(group, local, err));
done:
  if (dcpl >= 0) H5Pclose(dcpl);
  if (xfer >= 0) H5Pclose(xfer);
  if (memspace >= 0) H5Sclose(memspace);
  if (dset >= 0) H5Dclose(dset);
  if (filespace >= 0) H5Sclose(filespace);
  return status;
}

dpbo_status dpbo_h5io_write_block(hid_t group, const dpbo_h5io_blocks *set, const void *data,
                                  dpbo_error *err) {
  return h5io_write_block(group, set, data, 0, err);
}

dpbo_status dpbo_h5io_write_gathered(MPI_Comm comm, hid_t group, const dpbo_h5io_blocks *set,
                                     hsize_t chunk, dpbo_h5io_fill fill, void *user,
                                     dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  const char *name = set->name;
  const hid_t type = set->type;
  const int ndims = set->ndims;
  const hsize_t *dims = set->dims, offset = set->offset, rows = set->rows;
  hid_t filespace = -1, dset = -1, memspace = -1;
  MPI_Comm mine = MPI_COMM_NULL;
  MPI_Datatype row = MPI_DATATYPE_NULL;
  unsigned long long *blocks = NULL;
  void *buf = NULL;
  int rank, size;
  const hsize_t width = ndims > 1 ? dims[1] : 1;
  const size_t bytes = H5Tget_size(type);
  if (chunk < 1) chunk = 1;
  char what[300];
  snprintf(what, sizeof what, "dataset %s", name);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  /* What can fail on one rank alone (memory) is agreed on before the first
   * message, so no rank leaves the exchange early. */
  if (bytes == 0 || width * bytes > INT_MAX)
    local = DPBO_ERROR_SET(err, DPBO_ERR_HDF5, "H5Tget_size failed for %s", what);
  else if (!(buf = malloc(chunk * width * bytes)) ||
           !(blocks = malloc(2 * (size_t)size * sizeof *blocks)))
    local = DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory for a write buffer of %s", what);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  /* A communicator of its own: no other message on comm can be taken for a
   * row of the dataset. */
  DPBO_MPI_TRY(MPI_Comm_dup(comm, &mine));
  DPBO_MPI_TRY(MPI_Type_contiguous((int)(width * bytes), MPI_BYTE, &row));
  DPBO_MPI_TRY(MPI_Type_commit(&row));
  unsigned long long block[2] = {offset, rows};
  DPBO_MPI_TRY(
      MPI_Gather(block, 2, MPI_UNSIGNED_LONG_LONG, blocks, 2, MPI_UNSIGNED_LONG_LONG, 0, mine));
  if (rank != 0) {
    for (hsize_t first = 0; first < rows; first += chunk) {
      const hsize_t len = rows - first < chunk ? rows - first : chunk;
      fill(user, first, len, buf);
      DPBO_MPI_TRY(MPI_Send(buf, (int)len, row, 0, 0, mine));
    }
    goto done;
  }
  /* Rank 0: a failed write (a full disk) stops the writing, not the
   * receiving: every rank's send still completes. */
  if (group < 0) local = DPBO_ERR_HDF5; /* an earlier failure, reported already */
  if (local == DPBO_OK && (filespace = H5Screate_simple(ndims, dims, NULL)) < 0)
    local = DPBO_ERROR_SET(err, DPBO_ERR_HDF5, "H5Screate_simple failed for %s", what);
  errno = 0;
  if (local == DPBO_OK &&
      (dset = H5Dcreate2(group, name, type, filespace, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT)) < 0)
    local = h5io_fail(group, errno, what, err);
  for (int r = 0; r < size; r++) {
    for (hsize_t first = 0; first < blocks[2 * r + 1]; first += chunk) {
      const hsize_t len = blocks[2 * r + 1] - first < chunk ? blocks[2 * r + 1] - first : chunk;
      if (r == 0)
        fill(user, first, len, buf);
      else
        DPBO_MPI_TRY(MPI_Recv(buf, (int)len, row, r, 0, mine, MPI_STATUS_IGNORE));
      if (local != DPBO_OK) continue;
      hsize_t start[2] = {blocks[2 * r] + first, 0}, count[2] = {len, width};
      H5IO_LOCAL(memspace = H5Screate_simple(ndims, count, NULL), what);
      H5IO_LOCAL(H5Sselect_hyperslab(filespace, H5S_SELECT_SET, start, NULL, count, NULL), what);
      errno = 0;
      if (local == DPBO_OK && H5Dwrite(dset, type, memspace, filespace, H5P_DEFAULT, buf) < 0)
        local = h5io_fail(group, errno, what, err);
      if (memspace >= 0) H5Sclose(memspace);
      memspace = -1;
    }
  }
  if (group >= 0) status = local;
done:
  free(buf);
  free(blocks);
  if (row != MPI_DATATYPE_NULL) MPI_Type_free(&row);
  if (mine != MPI_COMM_NULL) MPI_Comm_free(&mine);
  if (memspace >= 0) H5Sclose(memspace);
  if (dset >= 0) H5Dclose(dset);
  if (filespace >= 0) H5Sclose(filespace);
  return status;
}

dpbo_status dpbo_h5io_write_small(hid_t group, const dpbo_h5io_array *array, const void *data,
                                  int rank, dpbo_error *err) {
  const dpbo_h5io_blocks set = {.name = array->name,
                                .type = array->type,
                                .ndims = array->ndims,
                                .dims = array->dims,
                                .offset = 0,
                                .rows = rank == 0 ? array->dims[0] : 0};
  return h5io_write_block(group, &set, data, 1, err);
}

/* Both kinds of member are 8 bytes: one buffer of doubles carries either. */
_Static_assert(sizeof(int64_t) == sizeof(double), "a column entry is 8 bytes");

static hid_t h5io_field_type(const dpbo_h5io_field *field) {
  return field->integer ? H5T_NATIVE_INT64 : H5T_NATIVE_DOUBLE;
}

dpbo_status dpbo_h5io_write_fields(hid_t group, const void *records, hsize_t n,
                                   const dpbo_h5io_columns *columns, int rank, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const size_t stride = columns->stride, count = columns->count;
  const dpbo_h5io_field *fields = columns->fields;
  double *column = NULL;
  const hsize_t dims[1] = {n};
  DPBO_ALLOC(column, n, "a column");
  for (size_t f = 0; f < count; f++) {
    if (rank == 0)
      for (hsize_t i = 0; i < n; i++)
        memcpy(&column[i], (const char *)records + i * stride + fields[f].offset, sizeof *column);
    DPBO_TRY(dpbo_h5io_write_small(
        group, &(dpbo_h5io_array){fields[f].name, h5io_field_type(&fields[f]), 1, dims}, column,
        rank, err));
  }
done:
  free(column);
  return status;
}

dpbo_status dpbo_h5io_read_fields(hid_t obj, void *records, hsize_t n,
                                  const dpbo_h5io_columns *columns, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  const size_t stride = columns->stride, count = columns->count;
  const dpbo_h5io_field *fields = columns->fields;
  double *column = NULL;
  DPBO_ALLOC(column, n, "a column");
  for (size_t f = 0; f < count; f++) {
    hsize_t dims[1];
    DPBO_TRY(dpbo_h5io_shape(obj, fields[f].name, 1, dims, err));
    if (dims[0] != n)
      DPBO_RAISE(DPBO_ERR_HDF5, "dataset %s holds %llu entries, not %llu", fields[f].name,
                 (unsigned long long)dims[0], (unsigned long long)n);
    if (n == 0) continue;
    DPBO_TRY(dpbo_h5io_read(obj, fields[f].name, h5io_field_type(&fields[f]), column, err));
    for (hsize_t i = 0; i < n; i++)
      memcpy((char *)records + i * stride + fields[f].offset, &column[i], sizeof *column);
  }
done:
  free(column);
  return status;
}

static hid_t h5io_open_dataset(hid_t obj, const char *name) {
  hid_t dset = -1;
  H5E_BEGIN_TRY { dset = H5Dopen2(obj, name, H5P_DEFAULT); }
  H5E_END_TRY;
  return dset;
}

dpbo_status dpbo_h5io_read(hid_t obj, const char *name, hid_t type, void *buf, dpbo_error *err) {
  hid_t dset = h5io_open_dataset(obj, name);
  if (dset < 0) return DPBO_ERROR_SET(err, DPBO_ERR_HDF5, "dataset %s is missing", name);
  herr_t rc = H5Dread(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
  H5Dclose(dset);
  /* A failed read of a whole, checksummed dataset is almost always a
   * checksum mismatch (dpbo_h5io_write_small): say so. */
  return rc < 0 ? DPBO_ERROR_SET(err, DPBO_ERR_DATA,
                                 "cannot read %s: its data is corrupted (checksum mismatch) "
                                 "or unreadable; the file cannot be trusted",
                                 name)
                : DPBO_OK;
}

dpbo_status dpbo_h5io_shape(hid_t obj, const char *name, int ndims, hsize_t *dims,
                            dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t space = -1;
  hid_t dset = h5io_open_dataset(obj, name);
  if (dset < 0) DPBO_RAISE(DPBO_ERR_HDF5, "dataset %s is missing", name);
  H5IO_TRY(space = H5Dget_space(dset), name);
  if (H5Sget_simple_extent_ndims(space) != ndims)
    DPBO_RAISE(DPBO_ERR_HDF5, "dataset %s does not have %d dimension(s)", name, ndims);
  H5IO_TRY(H5Sget_simple_extent_dims(space, dims, NULL), name);
done:
  if (space >= 0) H5Sclose(space);
  if (dset >= 0) H5Dclose(dset);
  return status;
}

/* ---------------------------------------------------------------------------
 * Atomic files. */

dpbo_status dpbo_h5io_ensure_dir(const char *path, dpbo_error *err) {
  char dir[DPBO_PATH_MAX];
  snprintf(dir, sizeof dir, "%s", path);
  char *slash = strrchr(dir, '/');
  if (!slash) return DPBO_OK;
  *slash = '\0';
  for (char *p = dir + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
      return DPBO_ERROR_SET(err, DPBO_ERR_IO, "cannot create directory %s: %s", dir,
                            strerror(errno));
    *p = '/';
  }
  if (dir[0] && mkdir(dir, 0777) != 0 && errno != EEXIST)
    return DPBO_ERROR_SET(err, DPBO_ERR_IO, "cannot create directory %s: %s", dir, strerror(errno));
  return DPBO_OK;
}

/* Temporary files are ".<name>.tmp.XXXXXXXXXXXX" next to <dir>/<name>: in
 * the target's directory, so the rename never crosses file systems; hidden
 * and recognisable, so a resume can find the ones a killed write left
 * (dpbo_h5io_remove_stale); with 12 characters from the operating system's
 * CSPRNG, so nobody can plant a symbolic link at the name in advance. */
#define H5IO_TEMP_TAG ".tmp."
enum { H5IO_TEMP_RANDOM = 12 };

static const char h5io_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* Splits path into its directory ("." when none) and base name. */
static dpbo_status h5io_split(const char *path, char *dir, size_t dir_size, const char **base,
                              dpbo_error *err) {
  const char *slash = strrchr(path, '/');
  *base = slash ? slash + 1 : path;
  if (!**base) return DPBO_ERROR_SET(err, DPBO_ERR_IO, "%s names a directory, not a file", path);
  if (!slash)
    snprintf(dir, dir_size, ".");
  else if (slash == path)
    snprintf(dir, dir_size, "/");
  else if ((size_t)(slash - path) >= dir_size)
    return DPBO_ERROR_SET(err, DPBO_ERR_IO, "output path is too long: %s", path);
  else
    snprintf(dir, dir_size, "%.*s", (int)(slash - path), path);
  return DPBO_OK;
}

/* The temporary-name prefix of path: "<dir>/.<name>.tmp." */
static dpbo_status h5io_temp_prefix(const char *path, char *prefix, size_t size, dpbo_error *err) {
  char dir[DPBO_PATH_MAX];
  const char *base;
  dpbo_status status = h5io_split(path, dir, sizeof dir, &base, err);
  if (status != DPBO_OK) return status;
  int len = snprintf(prefix, size, "%s/.%s" H5IO_TEMP_TAG, dir, base);
  if (len < 0 || (size_t)len + H5IO_TEMP_RANDOM >= size)
    return DPBO_ERROR_SET(err, DPBO_ERR_IO, "output path is too long: %s", path);
  return DPBO_OK;
}

/* fsync of path's directory, so a rename into it survives a power cut.
 * EINVAL: the file system cannot sync directories (nothing more to do). */
static int h5io_sync_dir(const char *path) {
  char dir[DPBO_PATH_MAX];
  const char *base;
  if (h5io_split(path, dir, sizeof dir, &base, NULL) != DPBO_OK) return ENAMETOOLONG;
  int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return errno;
  int rc = fsync(fd) != 0 && errno != EINVAL ? errno : 0;
  close(fd);
  return rc;
}

dpbo_status dpbo_h5io_temp_open(const char *path, int public_mode, char *tmp, size_t size, int *fd,
                                dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  *fd = -1;
  DPBO_TRY(h5io_temp_prefix(path, tmp, size, err));
  const size_t used = strlen(tmp);
  /* O_EXCL with O_CREAT never follows a symbolic link, and O_NOFOLLOW says
   * so twice: an existing name (planted or not) fails with EEXIST and the
   * next random name is tried. */
  for (int attempt = 0; attempt < 100 && *fd < 0; attempt++) {
    unsigned char random[H5IO_TEMP_RANDOM];
    if (getrandom(random, sizeof random, 0) != (ssize_t)sizeof random)
      DPBO_RAISE(DPBO_ERR_IO, "cannot name a temporary file for %s: getrandom: %s", path,
                 strerror(errno));
    for (int i = 0; i < H5IO_TEMP_RANDOM; i++)
      tmp[used + (size_t)i] = h5io_alphabet[random[i] % (sizeof h5io_alphabet - 1)];
    tmp[used + H5IO_TEMP_RANDOM] = '\0';
    *fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, public_mode ? 0666 : 0600);
    if (*fd < 0 && errno != EEXIST)
      DPBO_RAISE(DPBO_ERR_WRITE, "cannot create %s: %s", tmp, strerror(errno));
  }
  if (*fd < 0) DPBO_RAISE(DPBO_ERR_WRITE, "cannot create a temporary file next to %s", path);
  /* Run files and checkpoints hold the sensitive trace: owner only, whatever
   * the umask (open's mode is filtered by it). Release files follow it. */
  if (!public_mode && fchmod(*fd, 0600) != 0)
    DPBO_RAISE(DPBO_ERR_WRITE, "cannot restrict %s to its owner: %s", tmp, strerror(errno));
done:
  if (status != DPBO_OK) {
    if (*fd >= 0) {
      close(*fd);
      unlink(tmp);
    }
    *fd = -1;
    tmp[0] = '\0'; /* never the name of a file someone else created */
  }
  return status;
}

dpbo_status dpbo_h5io_temp_publish(int fd, const char *tmp, const char *path, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  struct stat mine, named;
  /* The name must still be the regular file this process created (same
   * inode): nothing swapped it for a link to somewhere else. rename() then
   * replaces whatever is at path, a symbolic link included, without
   * following it. */
  if (fstat(fd, &mine) != 0 || lstat(tmp, &named) != 0 || !S_ISREG(named.st_mode) ||
      named.st_dev != mine.st_dev || named.st_ino != mine.st_ino)
    DPBO_RAISE(DPBO_ERR_IO, "%s is no longer the temporary file dpbo created: not published", tmp);
  if (fsync(fd) != 0) DPBO_RAISE(DPBO_ERR_WRITE, "cannot sync %s: %s", tmp, strerror(errno));
  if (rename(tmp, path) != 0)
    DPBO_RAISE(DPBO_ERR_WRITE, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
  int rc = h5io_sync_dir(path);
  if (rc != 0)
    DPBO_RAISE(DPBO_ERR_WRITE, "cannot sync the directory of %s: %s", path, strerror(rc));
done:
  return status;
}

dpbo_status dpbo_h5io_remove_stale(const char *path, int *removed, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char prefix[DPBO_PATH_MAX + 64], dir[DPBO_PATH_MAX];
  const char *base;
  DIR *listing = NULL;
  *removed = 0;
  DPBO_TRY(h5io_split(path, dir, sizeof dir, &base, err));
  DPBO_TRY(h5io_temp_prefix(path, prefix, sizeof prefix, err));
  const char *pattern = prefix + strlen(dir) + 1; /* ".<name>.tmp." */
  const size_t plen = strlen(pattern);
  listing = opendir(dir);
  if (!listing) DPBO_RAISE(DPBO_ERR_IO, "cannot list %s: %s", dir, strerror(errno));
  for (struct dirent *e = readdir(listing); e; e = readdir(listing)) {
    if (strncmp(e->d_name, pattern, plen) != 0 || strlen(e->d_name) != plen + H5IO_TEMP_RANDOM ||
        strspn(e->d_name + plen, h5io_alphabet) != H5IO_TEMP_RANDOM)
      continue;
    /* Only this user's regular files: never a link, never someone else's. */
    struct stat st;
    if (fstatat(dirfd(listing), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        st.st_uid != geteuid())
      continue;
    if (unlinkat(dirfd(listing), e->d_name, 0) == 0) (*removed)++;
  }
done:
  if (listing) closedir(listing);
  return status;
}

/* How much the in-memory image of a file grows at a time. */
#define H5IO_CORE_INCREMENT ((size_t)1 << 20)
#define H5IO_CORE_PAGE ((size_t)4096)

/* Opens (create: creates, truncating) the file this process created as fd
 * for the one process that writes it, with HDF5's core driver: HDF5 builds
 * the file in memory and writes it to fd's file only when it is flushed
 * (dpbo_h5io_commit) or closed. A full disk then fails that one write, in
 * the driver, and nothing else: with HDF5 1.10's POSIX or MPI-IO driver a
 * metadata write that fails midway leaves the metadata cache unable to
 * flush (H5C_set_slist_enabled: "slist already enabled?"), so the file can
 * never be closed, and its identifier, whose file HDF5 freed anyway,
 * crashed HDF5's own clean-up inside MPI_Finalize (SIGSEGV in
 * H5F__close_cb). The cost: rank 0 holds the file in memory while writing
 * it (a run file with /posterior of N points of dimension d: about
 * 8·(d + 2)·N bytes).
 *
 * HDF5 opens the file through "/proc/self/fd/<fd>": that name leads to the
 * descriptor's own file whatever happened to its path since, so the
 * temporary file is never reopened by a name someone could have replaced
 * with a symbolic link meanwhile (the MPI-IO driver did, with O_CREAT and
 * without O_NOFOLLOW, and Open MPI created a predictable "<tmp>.locktest.0"
 * beside it). Without /proc (not Linux), by its name. */
static hid_t h5io_open_fd(int fd, const char *name, int create) {
  char own[64];
  hid_t fapl = -1, id = -1;
  snprintf(own, sizeof own, "/proc/self/fd/%d", fd);
  if (access(own, F_OK) == 0) name = own;
  H5E_BEGIN_TRY {
    fapl = H5Pcreate(H5P_FILE_ACCESS);
    /* Write tracking: a flush writes the changed pages only, never the
     * image's unused tail. */
    if (fapl >= 0 && H5Pset_fapl_core(fapl, H5IO_CORE_INCREMENT, 1) >= 0 &&
        H5Pset_core_write_tracking(fapl, 1, H5IO_CORE_PAGE) >= 0)
      id = create ? H5Fcreate(name, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)
                  : H5Fopen(name, H5F_ACC_RDWR, fapl);
    if (fapl >= 0) H5Pclose(fapl);
  }
  H5E_END_TRY;
  return id;
}

static dpbo_status h5io_create(MPI_Comm comm, const char *path, int public_mode,
                               dpbo_h5io_file *file, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  hid_t fapl = -1;
  int size;
  file->id = -1;
  file->fd = -1;
  file->comm = comm;
  file->tmp[0] = '\0';
  file->modify = 0;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &file->rank));
  DPBO_MPI_TRY(MPI_Comm_size(comm, &size));
  if (strlen(path) > DPBO_OUTPUT_PATH_MAX)
    DPBO_RAISE(DPBO_ERR_IO,
               "output path %s is %zu characters long; dpbo writes through MPI-IO, which handles "
               "paths of at most %d characters",
               path, strlen(path), DPBO_OUTPUT_PATH_MAX);
  snprintf(file->path, sizeof file->path, "%s", path);
  /* Rank 0 creates the temporary file exclusively and keeps it open until
   * the commit checks that the name still leads to it; HDF5 then opens it
   * through that descriptor when rank 0 writes alone, and by the name rank
   * 0 drew when several ranks write. */
  if (file->rank == 0) local = dpbo_h5io_ensure_dir(path, err);
  if (file->rank == 0 && local == DPBO_OK)
    local = dpbo_h5io_temp_open(path, public_mode, file->tmp, sizeof file->tmp, &file->fd, err);
  DPBO_MPI_TRY(MPI_Bcast(&local, 1, MPI_INT, 0, comm));
  if (local != DPBO_OK) {
    if (file->rank != 0) DPBO_ERROR_SET(err, local, "cannot create a temporary file for %s", path);
    status = local;
    goto done;
  }
  if (size == 1) {
    /* One writer (the run file, checkpoints, releases): no MPI-IO. */
    errno = 0;
    file->id = h5io_open_fd(file->fd, file->tmp, 1);
    if (file->id < 0)
      DPBO_RAISE(DPBO_ERR_WRITE, "cannot create %s: %s", file->tmp,
                 errno ? strerror(errno) : "HDF5 refused it");
    goto done;
  }
  /* Several writers (the k1 sweep's final file): every rank opens the file
   * by the name rank 0 drew, through MPI-IO. */
  DPBO_MPI_TRY(MPI_Bcast(file->tmp, (int)sizeof file->tmp, MPI_CHAR, 0, comm));
  H5IO_TRY(fapl = H5Pcreate(H5P_FILE_ACCESS), file->tmp);
  H5IO_TRY(H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL), file->tmp);
  file->id = H5Fcreate(file->tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
  if (file->id < 0) DPBO_RAISE(DPBO_ERR_HDF5, "cannot create %s", file->tmp);
done:
  if (fapl >= 0) H5Pclose(fapl);
  return status;
}

dpbo_status dpbo_h5io_create(MPI_Comm comm, const char *path, dpbo_h5io_file *file,
                             dpbo_error *err) {
  return h5io_create(comm, path, 0, file, err);
}

dpbo_status dpbo_h5io_create_public(MPI_Comm comm, const char *path, dpbo_h5io_file *file,
                                    dpbo_error *err) {
  return h5io_create(comm, path, 1, file, err);
}

/* Copies the whole of in into out (both at offset 0). */
static int h5io_copy(int in, int out) {
  char buf[1 << 16];
  for (;;) {
    ssize_t got = copy_file_range(in, NULL, out, NULL, (size_t)1 << 30, 0);
    if (got == 0) return 0;
    if (got > 0) continue;
    if (errno != EXDEV && errno != ENOSYS && errno != EINVAL && errno != EOPNOTSUPP) return errno;
    break; /* no in-kernel copy here: read and write */
  }
  for (;;) {
    ssize_t got = read(in, buf, sizeof buf);
    if (got == 0) return 0;
    if (got < 0) {
      if (errno == EINTR) continue;
      return errno;
    }
    for (ssize_t done = 0; done < got;) {
      ssize_t put = write(out, buf + done, (size_t)(got - done));
      if (put < 0 && errno != EINTR) return errno;
      if (put > 0) done += put;
    }
  }
}

dpbo_status dpbo_h5io_modify(const char *path, dpbo_h5io_file *file, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int in = -1;
  struct stat st;
  file->id = -1;
  file->fd = -1;
  file->comm = MPI_COMM_SELF;
  file->rank = 0;
  file->tmp[0] = '\0';
  file->modify = 1;
  if (strlen(path) >= sizeof file->path) DPBO_RAISE(DPBO_ERR_IO, "path is too long: %s", path);
  snprintf(file->path, sizeof file->path, "%s", path);
  /* The change lands by replacing path: a symbolic link would be replaced by
   * the file, and the file it pointed to would keep the old contents. */
  if (lstat(path, &st) != 0) DPBO_RAISE(DPBO_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  if (!S_ISREG(st.st_mode))
    DPBO_RAISE(DPBO_ERR_IO,
               "%s is not a regular file (a symbolic link?): dpbo updates a run file "
               "by replacing it, so name the file itself",
               path);
  in = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (in < 0 || fstat(in, &st) != 0)
    DPBO_RAISE(DPBO_ERR_IO, "cannot open %s: %s", path, strerror(errno));
  file->orig_dev = (unsigned long long)st.st_dev;
  file->orig_ino = (unsigned long long)st.st_ino;
  DPBO_TRY(dpbo_h5io_temp_open(path, 0, file->tmp, sizeof file->tmp, &file->fd, err));
  int rc = h5io_copy(in, file->fd);
  if (rc != 0)
    DPBO_RAISE(DPBO_ERR_WRITE, "cannot copy %s to %s: %s", path, file->tmp, strerror(rc));
  file->id = h5io_open_fd(file->fd, file->tmp, 0);
  if (file->id < 0)
    DPBO_RAISE(DPBO_ERR_HDF5, "cannot open %s (a copy of %s) as an HDF5 file", file->tmp, path);
done:
  if (in >= 0) close(in);
  if (status != DPBO_OK) dpbo_h5io_discard(file);
  return status;
}

/* Rank 0's half of a commit: the checks, the syncs and the rename. */
static dpbo_status h5io_publish(dpbo_h5io_file *file, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (file->modify) {
    /* Another writer replaced the file since it was copied: renaming now
     * would drop its change (e.g. a release recorded in the ledger). */
    struct stat now;
    if (lstat(file->path, &now) != 0 || (unsigned long long)now.st_dev != file->orig_dev ||
        (unsigned long long)now.st_ino != file->orig_ino)
      DPBO_RAISE(DPBO_ERR_IO,
                 "%s was replaced while dpbo was updating it: nothing changed; try again",
                 file->path);
  }
  DPBO_TRY(dpbo_h5io_temp_publish(file->fd, file->tmp, file->path, err));
done:
  return status;
}

dpbo_status dpbo_h5io_commit(dpbo_h5io_file *file, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  /* Flush first: with the MPI-IO driver this syncs every rank's writes
   * (MPI_File_sync), which rank 0's fsync alone would not on a parallel file
   * system. HDF5's metadata is written by this explicit flush, whose failure
   * (a full disk) leaves the file open for dpbo_h5io_discard to close
   * cleanly: a failed H5Fclose frees the file but keeps its identifier, which
   * HDF5 closes again inside MPI_Finalize (a segfault). Every rank learns of
   * a failure on any. */
  errno = 0;
  if (H5Fflush(file->id, H5F_SCOPE_GLOBAL) < 0) {
    char reason[200];
    h5io_reason(errno, reason, sizeof reason);
    local = DPBO_ERROR_SET(err, DPBO_ERR_HDF5, "cannot write %s: %s", file->tmp, reason);
  }
  DPBO_TRY(dpbo_comm_agree(file->comm, local, err));
  errno = 0;
  herr_t rc = H5Fclose(file->id);
  file->id = -1; /* released by HDF5 even when the close failed */
  if (rc < 0) {
    char reason[200];
    h5io_reason(errno, reason, sizeof reason);
    local = DPBO_ERROR_SET(err, DPBO_ERR_HDF5, "cannot write %s: %s", file->tmp, reason);
  }
  /* Also waits until every rank has closed before rank 0 renames. */
  DPBO_TRY(dpbo_comm_agree(file->comm, local, err));
  if (file->rank == 0) local = h5io_publish(file, err);
  DPBO_MPI_TRY(MPI_Bcast(&local, 1, MPI_INT, 0, file->comm));
  if (local != DPBO_OK) {
    if (file->rank != 0)
      DPBO_ERROR_SET(err, local, "cannot rename %s to %s", file->tmp, file->path);
    status = local;
    goto done;
  }
  file->tmp[0] = '\0';
done:
  if (file->fd >= 0) close(file->fd);
  file->fd = -1;
  if (status != DPBO_OK) dpbo_h5io_discard(file);
  return status;
}

/* After a failed write: points this process's descriptors of the temporary
 * file at an anonymous in-memory file (memfd: writes and the final resize
 * cost no disk), so that the flush HDF5 insists on when it closes the file
 * succeeds and the file is released cleanly. A close whose flush fails
 * keeps the file's identifier, which HDF5 closes again inside MPI_Finalize
 * (a segfault); and in a collective close the rank whose write fails leaves
 * the others waiting. The file's content is abandoned anyway. */
static void h5io_redirect(const char *tmp) {
  char target[PATH_MAX], link[300], real[PATH_MAX];
  if (!realpath(tmp, real)) return; /* gone: nothing to redirect */
  DIR *fds = opendir("/proc/self/fd");
  if (!fds) return;
  int memfd = memfd_create("dpbo-discarded", MFD_CLOEXEC);
  for (struct dirent *e; memfd >= 0 && (e = readdir(fds));) {
    int fd = atoi(e->d_name);
    if (e->d_name[0] == '.' || fd == memfd || fd == dirfd(fds)) continue;
    snprintf(link, sizeof link, "/proc/self/fd/%s", e->d_name);
    ssize_t n = readlink(link, target, sizeof target - 1);
    if (n <= 0) continue;
    target[n] = '\0';
    if (strcmp(target, real) == 0) dup2(memfd, fd); /* best effort: the close reports */
  }
  if (memfd >= 0) close(memfd);
  closedir(fds);
}

void dpbo_h5io_discard(dpbo_h5io_file *file) {
  if (file->id >= 0) {
    if (file->tmp[0]) h5io_redirect(file->tmp);
    H5Fclose(file->id);
  }
  file->id = -1;
  if (file->fd >= 0) close(file->fd);
  file->fd = -1;
  if (file->rank == 0 && file->tmp[0]) unlink(file->tmp);
  file->tmp[0] = '\0';
}

/* ---------------------------------------------------------------------------
 * Whole arrays written by the one process that holds the file. */

dpbo_status dpbo_h5io_write_array(hid_t group, const char *name, hid_t type, int ndims,
                                  const hsize_t *dims, const void *data, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  hid_t space = -1, dset = -1;
  char what[300];
  snprintf(what, sizeof what, "dataset %s", name);
  H5IO_TRY(space = H5Screate_simple(ndims, dims, NULL), what);
  /* Default properties: a contiguous dataset and an independent transfer,
   * which needs no other rank. */
  errno = 0;
  dset = H5Dcreate2(group, name, type, space, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
  if (dset < 0 || H5Dwrite(dset, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data) < 0) {
    status = h5io_fail(group, errno, what, err);
    goto done;
  }
done:
  if (dset >= 0) H5Dclose(dset);
  if (space >= 0) H5Sclose(space);
  return status;
}
