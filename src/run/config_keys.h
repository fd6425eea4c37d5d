/* The key table of a run's config: every section and key that
 * run/config.c reads, with its type, allowed values, default, unit, when it
 * is read and what it does. One source of truth:
 *   - the reader (run/config.c) attaches it to its settings, and every typed
 *     getter checks its call against the key's row (base/settings.h), so a
 *     key read without a row, or a row whose type, choices or default differ
 *     from the code, fails every load that reaches it;
 *   - `dpbo config --list [--markdown]` prints it, and docs/config.md is that
 *     output (the test config_doc fails when the two differ).
 * Adding a key: one row in config_keys.c next to its section's other rows
 * (the getter call in config.c supplies the behaviour), then regenerate
 * docs/config.md with `build/dpbo config --list --markdown > docs/config.md`. */
#ifndef DPBO_CONFIG_KEYS_H
#define DPBO_CONFIG_KEYS_H

#include <stdio.h>

#include "base/settings.h"

/* Ends with a row whose key is NULL. */
extern const dpbo_settings_key dpbo_config_keys[];

/* Prints every row, grouped by section: plain text, or Markdown (the text
 * of docs/config.md). */
void dpbo_config_keys_print(FILE *out, int markdown);

#endif
