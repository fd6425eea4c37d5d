/* Test-only entry point of dataset.c, for the fuzz targets (tests/fuzz/).
 *
 * dpbo__dataset_read_buffer reads `size` bytes as dpbo_dataset_read reads a
 * file (plain or gzip, the same format detection and messages, which name
 * the data `name`), without writing a temporary file. The double underscore
 * marks it private (HDF5 habit). */
#ifndef DPBO_DATASET_PRIVATE_H
#define DPBO_DATASET_PRIVATE_H

#include <stddef.h>

#include "objectives/dataset.h"

dpbo_status dpbo__dataset_read_buffer(const char *name, const void *bytes, size_t size,
                                      dpbo_data_format format, dpbo_dataset **out, dpbo_error *err);

/* A file's bytes in memory: `size` bytes at `bytes`, read as the file
 * `name` (which messages name). */
typedef struct dpbo__dataset_buffer {
  const char *name;
  const void *bytes;
  size_t size;
} dpbo__dataset_buffer;

/* The same for the IDX format: the images file's and the labels file's
 * bytes. */
dpbo_status dpbo__dataset_read_idx_buffers(const dpbo__dataset_buffer *images,
                                           const dpbo__dataset_buffer *labels, dpbo_dataset **out,
                                           dpbo_error *err);

#endif
