/* Opening the files a user names (config, dataset, candidate list) for
 * reading.
 *
 * Only regular files are read: a FIFO would block open() until some writer
 * appears (forever, in a batch job), and a directory or a device is never a
 * text file. The file is opened without blocking, checked with fstat, and
 * only then switched back to ordinary blocking reads. */
#ifndef DPBO_INPUT_H
#define DPBO_INPUT_H

#include <stddef.h>

#include "dpbo/error.h"

/* The longest path (and the longest setting, which may hold one) dpbo
 * accepts, terminating NUL included. */
#define DPBO_PATH_MAX 4096

/* Opens path read-only (close-on-exec) into *fd. `what` names the file in
 * messages ("config file"): "cannot open <what> <path>: <strerror>" when it
 * cannot be opened, "cannot read <what> <path>: <why>" when it is not a
 * regular file; both DPBO_ERR_IO. *fd is -1 on failure. */
dpbo_status dpbo_input_open(const char *path, const char *what, int *fd, dpbo_error *err);

/* The same check for a file another library opens by name (HDF5's H5Fopen,
 * which would wait forever on a FIFO): path is opened as above and closed
 * again, with the same messages. */
dpbo_status dpbo_input_check(const char *path, const char *what, dpbo_error *err);

/* 3 when the `len` bytes of text begin with a UTF-8 byte order mark (EF BB
 * BF, which some Windows editors write at the start of a file), else 0. The
 * text readers skip it at the start of a file: it is invisible in an editor
 * and would otherwise turn up in the first field's error message. */
size_t dpbo_input_bom(const char *text, size_t len);

#endif
