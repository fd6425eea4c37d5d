/* The in-memory entry points the fuzz targets use (src/run/config_private.h,
 * src/objectives/dataset_private.h) read exactly what the file readers read: every
 * seed input in tests/fuzz/corpus/ goes through dpbo_config_load or
 * dpbo_dataset_read from its file and through the buffer entry point from
 * its bytes, and the two must agree bit for bit (status, message, every
 * field and value). This also replays the fuzz corpus, inputs saved from
 * fuzzer findings included, through the normal (and the sanitizer) build. */
#define _POSIX_C_SOURCE 200809L

#include <dirent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "run/config_private.h"
#include "objectives/dataset_private.h"

static char *slurp(const char *path, size_t *size) {
  FILE *fp = fopen(path, "rb");
  if (!fp) {
    perror(path);
    exit(1);
  }
  char *bytes = NULL;
  size_t cap = 0, n = 0;
  for (;;) {
    if (n == cap) {
      cap = cap ? 2 * cap : 4096;
      bytes = realloc(bytes, cap);
      if (!bytes) exit(1);
    }
    size_t got = fread(bytes + n, 1, cap - n, fp);
    n += got;
    if (got == 0) break;
  }
  fclose(fp);
  *size = n;
  return bytes;
}

/* Calls fn(path) for each regular file of dir, in name order. Returns the
 * number of files. */
static int each_file(const char *dir, void (*fn)(const char *path)) {
  struct dirent **names = NULL;
  int count = scandir(dir, &names, NULL, alphasort);
  CHECK_MSG(count > 0, "no seed inputs in %s", dir);
  int files = 0;
  for (int i = 0; i < count; i++) {
    if (names[i]->d_name[0] != '.') {
      char path[4096];
      snprintf(path, sizeof path, "%s/%s", dir, names[i]->d_name);
      fn(path);
      files++;
    }
    free(names[i]);
  }
  free(names);
  return files;
}

/* The interpreted fields byte for byte, the stored settings entry by entry
 * (their storage lies at different addresses). */
static int config_equal(const dpbo_config *a, const dpbo_config *b) {
  static dpbo_config fields_a, fields_b;
  memcpy(&fields_a, a, sizeof fields_a);
  memcpy(&fields_b, b, sizeof fields_b);
  memset(&fields_a.settings, 0, sizeof fields_a.settings);
  memset(&fields_b.settings, 0, sizeof fields_b.settings);
  if (memcmp(&fields_a, &fields_b, sizeof fields_a) != 0) return 0;
  if (strcmp(a->settings.path, b->settings.path) != 0 || a->settings.count != b->settings.count)
    return 0;
  for (int i = 0; i < a->settings.count; i++) {
    const dpbo_settings_entry *x = &a->settings.entry[i], *y = &b->settings.entry[i];
    if (strcmp(x->section, y->section) != 0 || strcmp(x->key, y->key) != 0 ||
        strcmp(x->value, y->value) != 0 || x->line != y->line || x->used != y->used)
      return 0;
  }
  return 1;
}

static void config_case(const char *path) {
  static dpbo_config from_file, from_buffer;
  dpbo_error err_file, err_buffer;
  dpbo_error_clear(&err_file);
  dpbo_error_clear(&err_buffer);
  size_t size;
  char *bytes = slurp(path, &size);
  dpbo_status st_file = dpbo_config_load(path, 0, NULL, &from_file, &err_file);
  /* The buffer is not NUL-terminated: the reader must respect size. */
  char *exact = malloc(size ? size : 1);
  if (!exact) exit(1);
  memcpy(exact, bytes, size);
  dpbo_status st_buffer =
      dpbo__config_load_buffer(path, exact, size, 0, NULL, &from_buffer, &err_buffer);
  printf("  %s: %s%s%s\n", strrchr(path, '/') + 1, dpbo_status_name(st_file), st_file ? ": " : "",
         err_file.message);
  CHECK_MSG(st_file == st_buffer, "%s: file %s, buffer %s", path, dpbo_status_name(st_file),
            dpbo_status_name(st_buffer));
  CHECK_MSG(strcmp(err_file.message, err_buffer.message) == 0, "%s: '%s' vs '%s'", path,
            err_file.message, err_buffer.message);
  if (st_file == DPBO_OK && st_buffer == DPBO_OK)
    CHECK_MSG(config_equal(&from_file, &from_buffer), "%s: the configs differ", path);
  dpbo_config_free(&from_file);
  dpbo_config_free(&from_buffer);
  free(exact);
  free(bytes);
}

static void dataset_case_format(const char *path, dpbo_data_format format) {
  dpbo_dataset *a = NULL, *b = NULL;
  dpbo_error err_file, err_buffer;
  dpbo_error_clear(&err_file);
  dpbo_error_clear(&err_buffer);
  size_t size;
  char *bytes = slurp(path, &size);
  dpbo_status st_file = dpbo_dataset_read(path, format, &a, &err_file);
  dpbo_status st_buffer = dpbo__dataset_read_buffer(path, bytes, size, format, &b, &err_buffer);
  printf("  %s (format %d): %s%s%s", strrchr(path, '/') + 1, (int)format, dpbo_status_name(st_file),
         st_file ? ": " : "", err_file.message);
  if (a) printf(", %lld rows x %d features", (long long)a->n, a->d);
  printf("\n");
  CHECK_MSG(st_file == st_buffer, "%s: file %s, buffer %s", path, dpbo_status_name(st_file),
            dpbo_status_name(st_buffer));
  CHECK_MSG(strcmp(err_file.message, err_buffer.message) == 0, "%s: '%s' vs '%s'", path,
            err_file.message, err_buffer.message);
  if (a && b) {
    CHECK(a->n == b->n && a->d == b->d);
    if (a->n == b->n && a->d == b->d) {
      size_t cells = (size_t)a->n * (size_t)a->d;
      CHECK_MSG(memcmp(a->x, b->x, cells * sizeof *a->x) == 0, "%s: features differ", path);
      CHECK_MSG(memcmp(a->y, b->y, (size_t)a->n * sizeof *a->y) == 0, "%s: labels differ", path);
    }
  } else {
    CHECK(!a && !b);
  }
  dpbo_dataset_destroy(a);
  dpbo_dataset_destroy(b);
  free(bytes);
}

/* Each data seed in every format: a CSV seed read as LIBSVM is bad input
 * too, and its error must match as well. */
static void dataset_case(const char *path) {
  dataset_case_format(path, DPBO_FORMAT_AUTO);
  dataset_case_format(path, DPBO_FORMAT_CSV);
  dataset_case_format(path, DPBO_FORMAT_LIBSVM);
}

int main(void) {
  const char *src = getenv("DPBO_SOURCE_DIR");
  if (!src) {
    fprintf(stderr, "DPBO_SOURCE_DIR is not set\n");
    return 1;
  }
  char dir[4096];
  printf("config seeds:\n");
  snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/fuzz_config", src);
  int configs = each_file(dir, config_case);
  printf("dataset seeds:\n");
  snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/fuzz_csv", src);
  int csv = each_file(dir, dataset_case);
  snprintf(dir, sizeof dir, "%s/tests/fuzz/corpus/fuzz_libsvm", src);
  int libsvm = each_file(dir, dataset_case);
  printf("%d config, %d CSV and %d LIBSVM seeds\n", configs, csv, libsvm);

  /* The empty input, which fmemopen and memfd handle specially. */
  dpbo_error err;
  dpbo_error_clear(&err);
  static dpbo_config config;
  CHECK(dpbo__config_load_buffer("empty.ini", "", 0, 0, NULL, &config, &err) == DPBO_ERR_CONFIG);
  printf("  empty config: %s\n", err.message);
  dpbo_dataset *data = NULL;
  dpbo_error_clear(&err);
  CHECK(dpbo__dataset_read_buffer("empty.data", "", 0, DPBO_FORMAT_AUTO, &data, &err) ==
        DPBO_ERR_DATA);
  CHECK(data == NULL && strstr(err.message, "empty.data: dataset is empty"));
  printf("  empty dataset: %s\n", err.message);
  return dpbo_test_summary("test_reader_buffers");
}
