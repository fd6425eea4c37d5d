/* libFuzzer target: the IDX reader (the MNIST format's images and labels
 * files) on arbitrary bytes, plain or gzip-compressed. The input holds both
 * files: its first byte is the labels file's length (mod the input's
 * remaining length), the labels file follows, then the images file. So a
 * seed is "\x0e" + a 14-byte labels file + an images file.
 *
 * Besides crashes, sanitizer reports and leaks: a dataset that loads has as
 * many rows as labels, features in [0, 1] and byte labels; a failure carries
 * one message naming one of the files. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "objectives/dataset_private.h"

/* Allocations above 32 MiB fail here (as they do on a machine without the
 * memory) instead of stalling the fuzzer. */
const char *__asan_default_options(void);
const char *__asan_default_options(void) {
  return "allocator_may_return_null=1:max_allocation_size_mb=32";
}

#define REQUIRE(cond)                                                                              \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "fuzz_idx: %s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);       \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1) return 0;
  const size_t rest = size - 1;
  const size_t labels_size = rest ? data[0] % (rest + 1) : 0;
  const uint8_t *labels = data + 1, *images = data + 1 + labels_size;
  dpbo_dataset *set = NULL;
  dpbo_error err;
  dpbo_error_clear(&err);
  const dpbo__dataset_buffer image_file = {"fuzz.images", images, rest - labels_size},
                             label_file = {"fuzz.labels", labels, labels_size};
  dpbo_status status = dpbo__dataset_read_idx_buffers(&image_file, &label_file, &set, &err);
  if (status != DPBO_OK) {
    REQUIRE(set == NULL);
    REQUIRE(err.code == status);
    if (!strstr(err.message, "fuzz.images") && !strstr(err.message, "fuzz.labels")) {
      fprintf(stderr, "fuzz_idx: message does not name the data: %s\n", err.message);
      abort();
    }
    return 0;
  }
  REQUIRE(set && set->n >= 1 && set->d >= 1);
  for (int64_t i = 0; i < set->n; i++) {
    REQUIRE(set->y[i] >= 0 && set->y[i] <= 255 && set->y[i] == (int)set->y[i]);
    for (int j = 0; j < set->d; j++) {
      const double v = set->x[(size_t)i * (size_t)set->d + j];
      REQUIRE(v >= 0.0 && v <= 1.0);
    }
  }
  dpbo_dataset_destroy(set);
  return 0;
}
