/* dpbo compare's own settings, the [compare] section (issue #6; issue #25:
 * an experiment's section is read by the experiment): R repetitions, the
 * grid of total ε, Papernot-Steinke's η and an earlier file's table.
 *
 * The section lives in the same file as the run's settings, so that one
 * file serves `dpbo run` and `dpbo compare`: every command reads it (a typo
 * or a bad value is refused by `dpbo run` too, naming the file, line and
 * key), through dpbo_compare_section, which app adds to the run config's
 * loader (run/config.h, dpbo_config_add_section); dpbo compare then reads
 * the values into its options with dpbo_compare_options_read. */
#ifndef DPBO_COMPARE_OPTIONS_H
#define DPBO_COMPARE_OPTIONS_H

#include "base/input.h"
#include "base/settings.h"
#include "dpbo/error.h"
#include "run/config.h"

#define DPBO_COMPARE_MAX_EPSILONS 32

typedef struct dpbo_compare_options {
  int repetitions;   /* R, each with fresh noise */
  int epsilon_count; /* the grid of total ε, increasing */
  double epsilon[DPBO_COMPARE_MAX_EPSILONS];
  double ps_eta;             /* Papernot-Steinke's shape η */
  char table[DPBO_PATH_MAX]; /* an earlier compare file's table ("": train it) */
} dpbo_compare_options;

/* The rows of [compare] (`dpbo config --list` prints them after the run's);
 * ends with a row whose key is NULL. */
extern const dpbo_settings_key dpbo_compare_keys[];

/* [compare] for the run config's loader: its name, rows and a reader that
 * checks every key (the values are dropped; dpbo compare reads them again). */
extern const dpbo_config_section dpbo_compare_section;

/* Reads [compare] from config->settings, after the run's sections (ps_eta
 * defaults to privacy.ps_eta), marking its keys used; a bad value is
 * DPBO_ERR_CONFIG naming file:line and the key. */
dpbo_status dpbo_compare_options_read(dpbo_config *config, dpbo_compare_options *options,
                                      dpbo_error *err);

#endif
