/* The key table of `dpbo k1sweep`'s config (its reader, k1sweep_config.c, attaches
 * it; `dpbo config --list` prints it after the run config's; see
 * run/config_keys.h for how a table is checked). Adding a key: one row in
 * k1sweep_keys.c, then regenerate docs/config.md. */
#ifndef DPBO_K1SWEEP_KEYS_H
#define DPBO_K1SWEEP_KEYS_H

#include "base/settings.h"

/* Ends with a row whose key is NULL. */
extern const dpbo_settings_key dpbo_k1sweep_keys[];

#endif
