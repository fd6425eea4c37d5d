/* A minimal test harness: CHECK records a failure with its location and goes
 * on; the test's main returns dpbo_test_summary(), non-zero if anything
 * failed. Tests print what they compared so a failure log is self-explaining. */
#ifndef DPBO_TEST_CHECK_H
#define DPBO_TEST_CHECK_H

#include <math.h>
#include <stdio.h>

static int dpbo_test_checks = 0;
static int dpbo_test_failures = 0;

#define CHECK(cond)                                                                                \
  do {                                                                                             \
    dpbo_test_checks++;                                                                            \
    if (!(cond)) {                                                                                 \
      dpbo_test_failures++;                                                                        \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);                     \
    }                                                                                              \
  } while (0)

#define CHECK_MSG(cond, ...)                                                                       \
  do {                                                                                             \
    dpbo_test_checks++;                                                                            \
    if (!(cond)) {                                                                                 \
      dpbo_test_failures++;                                                                        \
      fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond);                     \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
    }                                                                                              \
  } while (0)

/* |a - b| <= rel * max(|a|, |b|, floor): relative agreement with an absolute
 * floor for values near zero. */
#define CHECK_CLOSE(a, b, rel, floor)                                                              \
  do {                                                                                             \
    double dpbo__a = (a), dpbo__b = (b);                                                           \
    double dpbo__s = fmax(fmax(fabs(dpbo__a), fabs(dpbo__b)), (floor));                            \
    CHECK_MSG(fabs(dpbo__a - dpbo__b) <= (rel)*dpbo__s,                                            \
              "%s = %.17g vs %s = %.17g (rel diff %.3g > %.3g)", #a, dpbo__a, #b, dpbo__b,         \
              fabs(dpbo__a - dpbo__b) / dpbo__s, (double)(rel));                                   \
  } while (0)

/* Fails the check with err's message when a dpbo call does not succeed. */
#define CHECK_OK(call)                                                                             \
  do {                                                                                             \
    dpbo_status dpbo__st = (call);                                                                 \
    CHECK_MSG(dpbo__st == DPBO_OK, "%s -> %s: %s", #call, dpbo_status_name(dpbo__st),              \
              err.message);                                                                        \
  } while (0)

static inline int dpbo_test_summary(const char *name) {
  printf("%s: %d checks, %d failed\n", name, dpbo_test_checks, dpbo_test_failures);
  return dpbo_test_failures ? 1 : 0;
}

#endif
