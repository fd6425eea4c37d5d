/* k1sweep.cache_mb (issue #24 item 3): LIBSVM's kernel cache sized from the
 * memory per rank.
 *   - dpbo_svm_cache_full_mb and dpbo_svm_cache_auto_mb against hand-computed
 *     cases: the whole Q of 36,603 rows (the full-size sweep), memory that
 *     fits it, memory that does not, the 100 MiB floor, a small problem;
 *   - the config: "auto" (also the default) and numbers parse, and bad
 *     values are refused with a message naming k1sweep.cache_mb. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "experiments/k1sweep.h"
#include "objectives/svm.h"

static void sizing(void) {
  /* 36603² · 4 + 36603 · 32 = 5,360,289,732 bytes = 5111.97 MiB. */
  CHECK(dpbo_svm_cache_full_mb(36603) == 5112.0);
  /* 2000² · 4 + 2000 · 32 = 16,064,000 bytes = 15.32 MiB. */
  CHECK(dpbo_svm_cache_full_mb(2000) == 16.0);
  CHECK(dpbo_svm_cache_full_mb(20000) == 1527.0);
  /* 0.5 · 23609 / 2 − 100 = 5802.25 MiB >= the whole Q: the whole Q. */
  CHECK(dpbo_svm_cache_auto_mb(36603, 23609, 2, 100, 0.5) == 5112.0);
  /* 0.5 · 16000 / 2 − 100.5 = 3899.5: rounded down to 3899. */
  CHECK(dpbo_svm_cache_auto_mb(36603, 16000, 2, 100.5, 0.5) == 3899.0);
  /* 32 ranks on the node: 0.5 · 23609 / 32 − 100 = 268.9. */
  CHECK(dpbo_svm_cache_auto_mb(36603, 23609, 32, 100, 0.5) == 268.0);
  /* 0.5 · 300 / 2 − 50 = 25 < the floor: 100. */
  CHECK(dpbo_svm_cache_auto_mb(36603, 300, 2, 50, 0.5) == DPBO_SVM_CACHE_FLOOR_MB);
  /* A small Q (16 MiB) is under the floor: 100, as svm-train's -m. */
  CHECK(dpbo_svm_cache_auto_mb(2000, 23609, 2, 1, 0.5) == 100.0);
  /* Unknown memory (NaN) or no ranks: the floor, and node_ranks 0 as 1. */
  CHECK(dpbo_svm_cache_auto_mb(36603, NAN, 2, 1, 0.5) == 100.0);
  CHECK(dpbo_svm_cache_auto_mb(36603, 8000, 0, 0, 0.5) == 4000.0);
  double mb = 0;
  dpbo_error err;
  dpbo_error_clear(&err);
  CHECK_OK(dpbo_svm_mem_available_mb(&mb, &err));
  CHECK(mb > 0 && isfinite(mb));
}

/* Loads path with one --set (NULL: none); returns the status, err set. */
static dpbo_status load(const char *path, const char *set, double *cache_mb, dpbo_error *err) {
  dpbo_k1sweep_config c;
  const char *overrides[1] = {set};
  dpbo_error_clear(err);
  dpbo_status status = dpbo_k1sweep_config_load(path, set ? 1 : 0, overrides, &c, err);
  if (status == DPBO_OK) {
    *cache_mb = c.svm.cache_mb;
    dpbo_k1sweep_config_free(&c);
  }
  return status;
}

static void config(void) {
  char path[] = "/tmp/test_svm_cache_XXXXXX";
  int fd = mkstemp(path);
  CHECK(fd >= 0);
  const char text[] = "[k1sweep]\ndata = no-such-file.csv\ntrain_rows = 10\nsizes = 2\n"
                      "[space]\ndim.C = log 1 1000\ndim.gamma = log 0.01 10\n";
  CHECK(write(fd, text, sizeof text - 1) == (ssize_t)(sizeof text - 1));
  close(fd);
  dpbo_error err;
  double mb = 0;
  CHECK_OK(load(path, NULL, &mb, &err)); /* the default */
  CHECK(mb == DPBO_SVM_CACHE_AUTO);
  CHECK_OK(load(path, "k1sweep.cache_mb=auto", &mb, &err));
  CHECK(mb == DPBO_SVM_CACHE_AUTO);
  CHECK_OK(load(path, "k1sweep.cache_mb=1000", &mb, &err));
  CHECK(mb == 1000.0);
  CHECK_OK(load(path, "k1sweep.cache_mb=0.5", &mb, &err));
  CHECK(mb == 0.5);
  static const char *const bad[] = {"k1sweep.cache_mb=0",    "k1sweep.cache_mb=-1",
                                    "k1sweep.cache_mb=Auto", "k1sweep.cache_mb=100MB",
                                    "k1sweep.cache_mb=inf",  "k1sweep.cache_mb=nan",
                                    "k1sweep.cache_mb=1e999"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    CHECK(load(path, bad[i], &mb, &err) == DPBO_ERR_CONFIG);
    CHECK(strstr(err.message, "k1sweep.cache_mb") != NULL);
    CHECK(strstr(err.message, "must be auto or a positive number of MiB") != NULL);
  }
  unlink(path);
}

int main(void) {
  sizing();
  config();
  return dpbo_test_summary("test_svm_cache");
}
