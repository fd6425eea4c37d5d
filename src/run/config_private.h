/* Test-only entry point of config.c, for the fuzz targets (tests/fuzz/).
 *
 * dpbo__config_load_buffer is dpbo_config_load on `size` bytes of INI text
 * instead of a file: the same reading, overrides, validation and messages,
 * which name the text `label`. The double underscore marks it private (HDF5
 * habit). */
#ifndef DPBO_CONFIG_PRIVATE_H
#define DPBO_CONFIG_PRIVATE_H

#include <stddef.h>

#include "run/config.h"

dpbo_status dpbo__config_load_buffer(const char *label, const char *text, size_t size,
                                     int override_count, const char *const *overrides,
                                     dpbo_config *config, dpbo_error *err);

#endif
