/* dpbo compare's own settings (issue #6; issue #25: an experiment's
 * settings are read by the experiment): the [compare] section (R
 * repetitions, the grid of total ε, Papernot-Steinke's η, an earlier file's
 * table) and, on objective.kind = command, the two [objective] keys only
 * dpbo compare uses (docs/own-model.md): the program that replies "VAL
 * TEST" and m, the validation records its accuracy counts.
 *
 * The section lives in the same file as the run's settings, so that one
 * file serves `dpbo run` and `dpbo compare`: every command reads it (a typo
 * or a bad value is refused by `dpbo run` too, naming the file, line and
 * key), through dpbo_compare_section, which app adds to the run config's
 * loader (run/config.h, dpbo_config_add_section); dpbo compare then reads
 * the values into its options with dpbo_compare_options_read. */
#ifndef DPBO_COMPARE_OPTIONS_H
#define DPBO_COMPARE_OPTIONS_H

#include <stdint.h>

#include "base/input.h"
#include "base/settings.h"
#include "dpbo/error.h"
#include "objectives/command.h"
#include "run/config.h"

#define DPBO_COMPARE_MAX_EPSILONS 32

typedef struct dpbo_compare_options {
  int repetitions;   /* R, each with fresh noise */
  int epsilon_count; /* the grid of total ε, increasing */
  double epsilon[DPBO_COMPARE_MAX_EPSILONS];
  double ps_eta;             /* Papernot-Steinke's shape η */
  char table[DPBO_PATH_MAX]; /* an earlier compare file's table ("": train it) */
  /* objective.kind = command: objective.compare_command ("" if unset) and
   * objective.validation_size (0 if unset); dpbo run uses neither. */
  char command[DPBO_COMMAND_MAX];
  int64_t validation_size;
} dpbo_compare_options;

/* The rows of those keys (`dpbo config --list` prints them with their
 * sections); ends with a row whose key is NULL. */
extern const dpbo_settings_key dpbo_compare_keys[];

/* [compare] for the run config's loader: its name, rows and a reader that
 * checks every key (the values are dropped; dpbo compare reads them again). */
extern const dpbo_config_section dpbo_compare_section;

/* Reads the keys from config->settings, after the run's sections (ps_eta
 * defaults to privacy.ps_eta; the [objective] keys only on objective.kind =
 * command), marking them used; a bad value is DPBO_ERR_CONFIG naming
 * file:line and the key. */
dpbo_status dpbo_compare_options_read(dpbo_config *config, dpbo_compare_options *options,
                                      dpbo_error *err);

#endif
