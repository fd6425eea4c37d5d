/* libFuzzer target: the INI config reader (dpbo_config_load's reading,
 * validation and messages) on arbitrary bytes.
 *
 * Crashes, sanitizer reports and leaks are what libFuzzer looks for; on top
 * of that every input must either load into a config that satisfies the
 * documented ranges or fail with one message that names the config (the
 * project's rule for bad input). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include "run/config_private.h"

#define LABEL "fuzz.ini"

/* Reports a broken invariant and stops: libFuzzer saves the input. */
#define REQUIRE(cond)                                                                              \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "fuzz_config: %s:%d: invariant failed: %s\n", __FILE__, __LINE__, #cond);    \
      abort();                                                                                     \
    }                                                                                              \
  } while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static dpbo_config *config;
  if (!config && !(config = malloc(sizeof *config))) return 0;
  dpbo_error err;
  dpbo_error_clear(&err);
  dpbo_status status =
      dpbo__config_load_buffer(LABEL, (const char *)data, size, 0, NULL, config, &err);
  if (status != DPBO_OK) {
    REQUIRE(err.code == status);
    REQUIRE(err.message[0] != '\0');
    REQUIRE(memchr(err.message, '\0', sizeof err.message) != NULL);
    if (!strstr(err.message, LABEL)) {
      fprintf(stderr, "fuzz_config: message does not name the config: %s\n", err.message);
      abort();
    }
    return 0;
  }
  REQUIRE(config->iterations >= 1 && config->iterations <= 1000000);
  REQUIRE(config->batch >= 1);
  REQUIRE(config->dims >= 1 && config->dims <= DPBO_MAX_DIM);
  for (int i = 0; i < config->dims; i++) {
    const dpbo_dim *dim = &config->dim[i];
    REQUIRE(isfinite(dim->lo) && isfinite(dim->hi) && dim->lo < dim->hi);
    REQUIRE(dim->scale != DPBO_SCALE_LOG || dim->lo > 0);
    REQUIRE(dim->levels >= 1);
  }
  REQUIRE(config->space_kind != DPBO_SPACE_SOBOL || config->points >= 1);
  REQUIRE(config->prior.signal_std > 0 && config->prior.noise_std >= 0);
  REQUIRE(config->delta > 0 && config->delta < 1);
  REQUIRE(config->privacy_epsilon > 0);
  REQUIRE(config->privacy_delta > 0 && config->privacy_delta < 1);
  REQUIRE(config->k1 >= 0 && config->k1 <= 1);
  REQUIRE(config->output_name[0] != '\0' && !strchr(config->output_name, '/'));
  for (int i = 0; i < config->settings.count; i++)
    REQUIRE(config->settings.entry[i].used);
  dpbo_config_free(config);
  return 0;
}
