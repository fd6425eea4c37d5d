/* libFuzzer target: a dataset reader (dpbo_dataset_read) on arbitrary bytes,
 * plain or gzip-compressed. Built twice (tests/fuzz/CMakeLists.txt):
 * fuzz_csv with FUZZ_FORMAT = DPBO_FORMAT_CSV (the Covertype format) and
 * fuzz_libsvm with DPBO_FORMAT_LIBSVM (sparse "label idx:val").
 *
 * Besides crashes, sanitizer reports and leaks: a dataset that loads has at
 * least one row and one feature and only finite numbers; a failure carries
 * one message naming the data. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objectives/dataset_private.h"

#ifndef FUZZ_FORMAT
#error "define FUZZ_FORMAT (DPBO_FORMAT_CSV or DPBO_FORMAT_LIBSVM)"
#endif

#define NAME "fuzz.data"

/* A short LIBSVM line such as "1 999999999:1" asks for a dense matrix of
 * gigabytes. Allocations above 32 MiB fail here (as they do on a machine
 * without the memory) instead of stalling the fuzzer, so such inputs test
 * the reader's out-of-memory error. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) {
  return "allocator_may_return_null=1:max_allocation_size_mb=32";
}

#define REQUIRE(cond)                                                                              \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "fuzz_dataset: %s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);   \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  dpbo_dataset *set = NULL;
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_status status = dpbo__dataset_read_buffer(NAME, data, size, FUZZ_FORMAT, &set, &err);
  if (status != DPBO_OK) {
    REQUIRE(set == NULL);
    REQUIRE(err.code == status);
    if (!strstr(err.message, NAME)) {
      fprintf(stderr, "fuzz_dataset: message does not name the data: %s\n", err.message);
      abort();
    }
    return 0;
  }
  REQUIRE(set && set->n >= 1 && set->d >= 1);
  for (int64_t i = 0; i < set->n; i++) {
    REQUIRE(isfinite(set->y[i]));
    for (int j = 0; j < set->d; j++)
      REQUIRE(isfinite(set->x[(size_t)i * (size_t)set->d + j]));
  }
  dpbo_dataset_destroy(set);
  return 0;
}
