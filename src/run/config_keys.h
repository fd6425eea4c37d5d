/* The key table of a run's config: every section and key that
 * run/config.c reads, with its type, allowed values, default, unit, when it
 * is read and what it does. One source of truth:
 *   - a row with a target (ROW in config_keys.c) is its own reader: its
 *     default, range (with its message) and choices go to the typed getters
 *     and the value into its field of dpbo_config (dpbo_settings_read_rows,
 *     base/settings.h); a default computed from keys read before it
 *     (ROW_COMPUTED) and a parsed form (PARSED) are named functions of
 *     config_keys.c; a row whose default rests on checks of later sections
 *     is deferred (ucb.delta, privacy.evaluation_sensitivity,
 *     max_evaluations, final_choice: read where config.c calls
 *     dpbo_settings_read_row); the checks between keys are named functions
 *     in config.c (config_checks, config_check_ucb_delta), in
 *     run/private_evals_settings.c and, for privacy.value_range and its new
 *     name, config_keys_check_old_value_range;
 *   - one key is still read by code: the dim.NAME lines of [space]
 *     (dpbo_config_get_dims, shared with dpbo k1sweep). A row reads one
 *     key's value into one field; dim.NAME is a family of keys, each line a
 *     dimension, whose number and file order make the space and whose
 *     parsed form depends on space.kind, so its row only documents it. The
 *     reader attaches the table to its settings, and every typed getter
 *     checks its call against the key's row, so a key read without a row,
 *     or a row whose type, choices or default differ from the code, fails
 *     every load that reaches it;
 *   - `dpbo config --list [--markdown]` prints it, and docs/config.md is that
 *     output (the test config_doc fails when the two differ).
 * Adding a key: a ROW with its target in config_keys.c next to its
 * section's other rows (a getter called without a row fails every load
 * that reaches it, naming the key), then regenerate
 * docs/config.md with `build/dpbo config --list --markdown > docs/config.md`.
 * dpbo k1sweep's keys are in experiments/k1sweep_keys.c, dpbo compare's
 * [compare] in experiments/compare_options.c (a section added to this
 * table's loader, run/config.h). */
#ifndef DPBO_CONFIG_KEYS_H
#define DPBO_CONFIG_KEYS_H

#include <stddef.h>
#include <stdio.h>

#include "base/settings.h"
#include "run/config.h"

/* The rows of the keys dpbo_config_get_dims reads and of [output] dir and
 * name (run/config.h), for every schema whose reader takes them. */
#define DPBO_CONFIG_KEYS_DIMS                                                                      \
  {                                                                                                \
    "space", "dim.NAME", "dimension",                                                              \
        "linear | log | integer | log_integer LO HI [LEVELS], or categorical NAME1 NAME2 ...",     \
        NULL, 0, "", "",                                                                           \
        "One line per hyper-parameter NAME (A-Z a-z 0-9 _ . -, like every key name), in order "    \
        "(at least one): its kind and range; "                                                     \
        "LEVELS (grid only) is the number of grid values. integer takes integer bounds and gives " \
        "integers (on a grid every integer of the range unless LEVELS says fewer); log_integer "   \
        "rounds LEVELS log-spaced points (needed on a grid), which must be distinct integers; "    \
        "categorical lists 2 or more distinct names (A-Z a-z 0-9 _ . + -), one grid level each. "  \
        "A command objective receives integers as integers and categories by name; the GP "        \
        "compares categories for equality only (docs/privacy-proofs.md section 13). The svm "      \
        "objective "                                                                               \
        "of dpbo run and "                                                                         \
        "dpbo compare takes C, gamma and optional feature weights weight.K (K = 1, 2, ...: "       \
        "feature K, scaled to [0, 1], times the weight; a range within [0, infinity)).",           \
    {                                                                                              \
      0                                                                                            \
    }                                                                                              \
  }
/* Their rows read into the output_dir and output_name fields of the
 * options struct `type` (dpbo_config, dpbo_k1sweep_config); the name's
 * default is computed from the config file's name. */
#define DPBO_CONFIG_KEYS_OUTPUT_DIR_NAME(type)                                                     \
  {"output",                                                                                       \
   "dir",                                                                                          \
   "text",                                                                                         \
   "a directory",                                                                                  \
   "results",                                                                                      \
   0,                                                                                              \
   "",                                                                                             \
   "",                                                                                             \
   "Where the output files <dir>/<name>.h5 ... go (made if missing; a relative path is "           \
   "resolved against the current directory). No control characters (no tab, newline, ...).",       \
   {.kind = DPBO_SETTINGS_STRING,                                                                  \
    .offset = offsetof(type, output_dir),                                                          \
    .size = sizeof(((type *)0)->output_dir)}},                                                     \
  {                                                                                                \
    "output", "name", "text", "A-Z a-z 0-9 . _ -, not starting with . or -",                       \
        "the config file's name without its extension", 1, "", "",                                 \
        "The output files' base name: only the characters A-Z a-z 0-9 . _ -, and not starting "    \
        "with '.' or '-' (other characters are refused, naming the key and the character).",       \
    {                                                                                              \
      .kind = DPBO_SETTINGS_STRING, .offset = offsetof(type, output_name),                         \
      .size = sizeof(((type *)0)->output_name),                                                    \
      .computed_default = dpbo_config_output_name_default                                          \
    }                                                                                              \
  }

/* (dpbo_config_keys, the table, is declared in run/config.h, whose reader
 * applies it.) */

/* Prints the run config's rows and the added sections' (dpbo_config_schema,
 * run/config.h), grouped by section, after a header: plain text, or Markdown (the start of
 * docs/config.md). */
void dpbo_config_keys_print(FILE *out, int markdown);

/* Prints another command's table (e.g. dpbo k1sweep's) after the run
 * config's: a title, then its sections prefixed with `command`. */
void dpbo_config_keys_print_command(FILE *out, int markdown, const char *command, const char *intro,
                                    const dpbo_settings_key *table);

#endif
