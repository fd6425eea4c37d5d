/* Small HDF5 helpers shared by every file dpbo writes (run files, the k1
 * sweep and its checkpoint), so each idea has one piece of code:
 *
 *  - attributes (string, numbers), written and read back;
 *  - collective dataset writes where each rank writes a block of rows (or
 *    rank 0 writes a small array and the others only join), blocks of every
 *    rank gathered to rank 0, which writes them into a file it holds alone,
 *    and whole arrays of any rank written by the one process that holds a
 *    file;
 *  - atomic files (docs/design.md section 6): rank 0 creates a temporary file
 *    ".<name>.tmp.<12 random characters>" next to <path> exclusively
 *    (O_EXCL | O_NOFOLLOW, unpredictable, so no planted symbolic link can
 *    redirect the write), every rank of comm writes into it, and once it is
 *    closed rank 0 checks that the name still leads to the file it created,
 *    fsyncs it, renames it to <path> and fsyncs the directory. On failure
 *    the temporary file is removed, so a file at <path> is always whole,
 *    even after a SIGKILL at any instant. With comm = MPI_COMM_SELF one rank
 *    writes alone. A change to an existing file (dpbo_h5io_modify) takes the
 *    same path: a copy is changed and renamed over the original.
 *
 * Attribute and dataset creation is collective in parallel HDF5: every rank
 * of the file's communicator calls these with the same arguments. */
#ifndef DPBO_H5IO_H
#define DPBO_H5IO_H

#include <hdf5.h>
#include <mpi.h>
#include <stdint.h>

#include "base/input.h"
#include "dpbo/error.h"

/* The longest path of a file dpbo writes. A file several ranks write (the
 * k1 sweep's final file) goes through MPI-IO, and Open MPI 4's
 * shared-file-pointer component (sharedfp/lockedfile)
 * formats "<path>.locktest.<rank>" into a 256-byte buffer unchecked: a
 * longer path aborts the process inside MPI_File_open ("buffer overflow
 * detected"). The temporary name adds "." and ".tmp." with 12 random
 * characters (18 bytes) and the rank up to 10 digits:
 * 256 - 1 - 10 - 10 - 18 = 217, kept at 200. */
#define DPBO_OUTPUT_PATH_MAX 200

/* Turns off HDF5's printing of its error stack (hundreds of lines for one
 * failed write); dpbo reports each failure once, with the file and the
 * system's reason (errno), e.g. "cannot write dataset unit to
 * out/run.h5.tmp.123: No space left on device". Call once at start. */
dpbo_status dpbo_h5io_silence(dpbo_error *err);

dpbo_status dpbo_h5io_attr_string(hid_t obj, const char *name, const char *value, dpbo_error *err);

/* A numeric attribute: a scalar when n = 1, else a 1-D array of n. */
dpbo_status dpbo_h5io_attr_numbers(hid_t obj, const char *name, hid_t type, const void *values,
                                   hsize_t n, dpbo_error *err);
/* A 1-D array attribute even when n = 1 (for lists whose length varies). */
dpbo_status dpbo_h5io_attr_array(hid_t obj, const char *name, hid_t type, const void *values,
                                 hsize_t n, dpbo_error *err);
dpbo_status dpbo_h5io_attr_doubles(hid_t obj, const char *name, const double *values, hsize_t n,
                                   dpbo_error *err);
dpbo_status dpbo_h5io_attr_int64(hid_t obj, const char *name, const int64_t *values, hsize_t n,
                                 dpbo_error *err);

/* Reads a scalar attribute (an error names a missing one). */
dpbo_status dpbo_h5io_read_attr_int64(hid_t obj, const char *name, int64_t *value, dpbo_error *err);
dpbo_status dpbo_h5io_read_attr_double(hid_t obj, const char *name, double *value, dpbo_error *err);
/* A string attribute, malloc'd. */
dpbo_status dpbo_h5io_read_attr_string(hid_t obj, const char *name, char **value, dpbo_error *err);

/* Calls visit(user, name without the prefix, value, err) for each string
 * attribute of obj whose name starts with `prefix`, in name order, each
 * name and value apart (never joined into one text that a value could
 * break); stops at and returns the first failure. */
typedef dpbo_status (*dpbo_h5io_attr_visit)(void *user, const char *name, const char *value,
                                            dpbo_error *err);
dpbo_status dpbo_h5io_visit_attr_strings(hid_t obj, const char *prefix, dpbo_h5io_attr_visit visit,
                                         void *user, dpbo_error *err);

/* A dataset written in blocks of rows: its name, element type and shape
 * dims[0..ndims) (ndims 1 or 2), and this rank's block, rows
 * [offset, offset+rows) of dimension 0. */
typedef struct dpbo_h5io_blocks {
  const char *name;
  hid_t type;
  int ndims;
  const hsize_t *dims;
  hsize_t offset, rows;
} dpbo_h5io_blocks;

/* Creates the dataset and writes `data` into this rank's block,
 * collectively; a rank with rows = 0 takes part without writing. */
dpbo_status dpbo_h5io_write_block(hid_t group, const dpbo_h5io_blocks *set, const void *data,
                                  dpbo_error *err);

/* A dataset of blocks held by every rank of comm, written by rank 0 alone
 * into a file it holds alone (dpbo_h5io_create on MPI_COMM_SELF): rank r's
 * block (set->offset and set->rows on rank r), which
 * fill(user, first, n, buf) produces n <= `chunk` rows at a time (block rows
 * [first, first+n)), so no rank holds a converted copy of its block; the
 * other ranks send theirs to rank 0, chunk by chunk. Collective over comm;
 * `group` is used on rank 0 only, where a negative group (an earlier
 * failure) receives every block without writing. A failed write (a full
 * disk) fails rank 0 alone, after every block has arrived, so no rank is
 * left waiting; the other ranks return DPBO_OK and learn of it through the
 * caller's dpbo_comm_agree. HDF5 is never called collectively here: one
 * rank's failure inside HDF5's own collective steps (a metadata flush, a
 * chunk fill) leaves the other ranks inside them, waiting forever. */
typedef void (*dpbo_h5io_fill)(void *user, hsize_t first, hsize_t rows, void *buf);
dpbo_status dpbo_h5io_write_gathered(MPI_Comm comm, hid_t group, const dpbo_h5io_blocks *set,
                                     hsize_t chunk, dpbo_h5io_fill fill, void *user,
                                     dpbo_error *err);

/* A dataset holding one whole array: its name, element type and shape
 * dims[0..ndims). */
typedef struct dpbo_h5io_array {
  const char *name;
  hid_t type;
  int ndims;
  const hsize_t *dims;
} dpbo_h5io_array;

/* Rank 0 writes the whole array; the other ranks only join. The dataset
 * carries HDF5's Fletcher-32 checksum, verified by every read. */
dpbo_status dpbo_h5io_write_small(hid_t group, const dpbo_h5io_array *array, const void *data,
                                  int rank, dpbo_error *err);

/* A whole array of any rank (1 to H5S_MAX_RANK dimensions), contiguous and
 * unchecked, written at once by the one process that holds the file: a file
 * of dpbo_h5io_create on MPI_COMM_SELF or of dpbo_h5io_modify (no other rank
 * joins, unlike the writes above). */
dpbo_status dpbo_h5io_write_array(hid_t group, const char *name, hid_t type, int ndims,
                                  const hsize_t *dims, const void *data, dpbo_error *err);

/* A member of a record type kept as a column of its own (a 1-D dataset). */
typedef struct dpbo_h5io_field {
  const char *name; /* the dataset */
  size_t offset;    /* offsetof(record type, member) */
  int integer;      /* the member is an int64_t (H5T_NATIVE_INT64), else a double */
} dpbo_h5io_field;

/* A record type kept as columns: its size, the stride between the records
 * of an array of them (sizeof the type), and the `count` members kept,
 * fields[0..count). */
typedef struct dpbo_h5io_columns {
  size_t stride;
  const dpbo_h5io_field *fields;
  size_t count;
} dpbo_h5io_columns;

/* One 1-D dataset per field, of length n: the field's member of each of the
 * n records at `records` (an array of the columns' record type). Rank 0
 * writes (only its records are read); the other ranks only join. */
dpbo_status dpbo_h5io_write_fields(hid_t group, const void *records, hsize_t n,
                                   const dpbo_h5io_columns *columns, int rank, dpbo_error *err);

/* The reverse, on one rank: reads each field's dataset, which must hold n
 * entries, into that member of the n records. */
dpbo_status dpbo_h5io_read_fields(hid_t obj, void *records, hsize_t n,
                                  const dpbo_h5io_columns *columns, dpbo_error *err);

/* Reads a whole dataset into buf (serial or independent read); an error names
 * a missing dataset. */
dpbo_status dpbo_h5io_read(hid_t obj, const char *name, hid_t type, void *buf, dpbo_error *err);

/* Shape of dataset `name` into dims[0..ndims) (the dataset must have exactly
 * ndims dimensions). */
dpbo_status dpbo_h5io_shape(hid_t obj, const char *name, int ndims, hsize_t *dims, dpbo_error *err);

/* mkdir -p of the directory part of path. */
dpbo_status dpbo_h5io_ensure_dir(const char *path, dpbo_error *err);

typedef struct dpbo_h5io_file {
  hid_t id; /* the open temporary file */
  int fd;   /* rank 0: the temporary file as created, open until the commit */
  MPI_Comm comm;
  int rank;
  int modify; /* dpbo_h5io_modify: path must not have been replaced meanwhile */
  unsigned long long orig_dev, orig_ino;
  char path[DPBO_PATH_MAX];
  char tmp[DPBO_PATH_MAX + 32];
} dpbo_h5io_file;

/* Collective over comm: creates the directory of path and the temporary file,
 * readable and writable by its owner only (0600, whatever the umask: run
 * files, checkpoints and other files that hold sensitive results). On one
 * rank (comm of size 1) HDF5's core driver builds the file in memory and
 * writes it through rank 0's descriptor at the commit (h5io.c says why);
 * on several, every rank opens it by name with the MPI-IO driver. On
 * failure nothing is left behind. */
dpbo_status dpbo_h5io_create(MPI_Comm comm, const char *path, dpbo_h5io_file *file,
                             dpbo_error *err);

/* The same for a file meant to be published (release files): its mode
 * follows the umask (0666 & ~umask). */
dpbo_status dpbo_h5io_create_public(MPI_Comm comm, const char *path, dpbo_h5io_file *file,
                                    dpbo_error *err);

/* One rank, no MPI: a change to the existing HDF5 file path (a regular file,
 * not a symbolic link) through the atomic path: path is copied into a
 * temporary file (0600), which file->id opens read-write; dpbo_h5io_commit
 * renames it over path, refusing if path was replaced meanwhile (another
 * writer's change would be lost). On failure path is unchanged. */
dpbo_status dpbo_h5io_modify(const char *path, dpbo_h5io_file *file, dpbo_error *err);

/* Collective: closes the temporary file, syncs it and renames it to path. On
 * failure the temporary file is removed. */
dpbo_status dpbo_h5io_commit(dpbo_h5io_file *file, dpbo_error *err);

/* Closes and removes the temporary file (after an error); safe to call on a
 * file that was never created or was already committed. Not collective when
 * the file is already closed. */
void dpbo_h5io_discard(dpbo_h5io_file *file);

/* The same atomic path for a file written without HDF5 (one process):
 * dpbo_h5io_temp_open creates the temporary file of path exclusively and
 * returns its name in tmp (size >= strlen(path) + 32) and an fd open for
 * writing, mode 0600 or, with public_mode, 0666 & ~umask;
 * dpbo_h5io_temp_publish checks that tmp is still that file, fsyncs it,
 * renames it to path and fsyncs the directory (the caller closes fd and, on
 * failure, removes tmp). */
dpbo_status dpbo_h5io_temp_open(const char *path, int public_mode, char *tmp, size_t size, int *fd,
                                dpbo_error *err);
dpbo_status dpbo_h5io_temp_publish(int fd, const char *tmp, const char *path, dpbo_error *err);

/* Removes the temporary files killed writes of path left behind: regular
 * files of this user named ".<name>.tmp.<12 characters>" in path's
 * directory (never a symbolic link, never another user's file). Call only
 * when no other process writes path (a resume). */
dpbo_status dpbo_h5io_remove_stale(const char *path, int *removed, dpbo_error *err);

#endif
