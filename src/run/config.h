/* Run configuration: the schema of `dpbo run`'s settings (which keys exist,
 * their defaults and checks) on top of the INI file and `--set
 * section.key=value` overrides read by base/settings.h.
 *
 *   [run]       iterations (T), seed, batch, retries
 *   [space]     kind = sobol|grid|list, points (sobol), file (list),
 *               dim.NAME = linear|log LO HI [LEVELS]   (one line per dimension, in order)
 *   [gp]        kernel = matern52|se, lengthscale = L or L1, L2, ...,
 *               mean (m0), signal_std (s), noise_std (σ), jitter
 *   [ucb]       delta (δ in β_t), acquisition = ucb|ei,
 *               memory_limit_mb = auto|off|MiB (per rank; ucb.h)
 *   [privacy]   algorithm = none|1|2|3|random_search|liu_talwar|papernot_steinke,
 *               epsilon, delta (totals), split, k1, ps_eta (Papernot-Steinke η),
 *               selection = exponential|permute_and_flip, noise = os|seeded,
 *               noise_seed, value_range (old name of objective.value_range), A, tau,
 *               prior_source = public|validation, failures_public = no|yes,
 *               budget = EPSILON_MAX DELTA_MAX (cap of the run file's ledger)
 *   [objective] kind = svm|synthetic|command|logreg and that kind's keys
 *   [output]    dir, name, posterior = auto|yes|no
 * and the sections a higher layer owns, added by app (dpbo_config_add_section:
 * dpbo compare's [compare] and its two [objective] keys of a command,
 * experiments/compare_options.h), read by every load after these.
 *
 * The complete list, with defaults and meanings, is the key table
 * (run/config_keys.h; `dpbo config --list`), which the getters check.
 *
 * Every key must be known and used: an unknown section or key, or a key that
 * does not apply to the chosen objective, is an error naming the file and
 * line. Values are checked by their rows (types, ranges, choices) and by the
 * named cross-key checks of config.c; the message names the key. */
#ifndef DPBO_CONFIG_H
#define DPBO_CONFIG_H

#include <stdint.h>

#include "base/settings.h"
#include "objectives/command.h"
#include "dpbo/error.h"
#include "dpbo/gp.h"
#include "dpbo/kernel.h"
#include "objectives/logreg.h"
#include "dpbo/mechanism.h"
#include "dpbo/noise.h"
#include "dpbo/privacy.h"
#include "dpbo/space.h"
#include "objectives/svm.h"
#include "objectives/synthetic.h"
#include "run/private_evals_settings.h"

/* Papernot–Steinke's η when privacy.ps_eta is not given (1: the geometric
 * law); [compare] ps_eta defaults to privacy.ps_eta. */
#define DPBO_PS_ETA_DEFAULT 1.0

typedef enum {
  DPBO_OBJECTIVE_SVM = 0,
  DPBO_OBJECTIVE_SYNTHETIC = 1,
  DPBO_OBJECTIVE_COMMAND = 2,
  DPBO_OBJECTIVE_LOGREG = 3
} dpbo_objective_kind;
typedef enum { DPBO_ACQ_UCB = 0, DPBO_ACQ_EI = 1 } dpbo_acquisition;
typedef enum {
  DPBO_POSTERIOR_AUTO = 0,
  DPBO_POSTERIOR_YES = 1,
  DPBO_POSTERIOR_NO = 2
} dpbo_posterior_output;

/* The data file of the svm and logreg objectives as [objective] names it:
 * the rows data, format, labels, max_features, header and label_column
 * (run/config_keys.c) read into it, and once their combination is checked
 * it is copied into the objective's options (svm or logreg). */
typedef struct dpbo_config_data {
  char path[sizeof(((dpbo_svm_options *)0)->data_path)];
  dpbo_data_format format;
  int64_t max_features;
  dpbo_csv_header header;
  int label_column; /* 0: the last column, k >= 1: the k-th */
  char labels[sizeof(((dpbo_svm_options *)0)->labels_path)];
} dpbo_config_data;

/* The svm and logreg objectives' split and solver keys (objective.
 * train_rows to shrinking, positive_label, loss; run/config_keys.c) as their rows read
 * them; config_objective copies them into the objective's options. */
typedef struct dpbo_config_fit {
  int64_t train_rows, validation_rows, test_rows;
  uint64_t split_seed;
  double cache_mb, tolerance; /* tolerance's default: the objective's */
  int shrinking;
  int loss;              /* a dpbo_logreg_loss */
  double positive_label; /* logreg: NaN for none */
} dpbo_config_fit;

typedef struct dpbo_config {
  char path[DPBO_PATH_MAX];
  /* [run] */
  int iterations;
  uint64_t seed;
  int batch;   /* evaluations in flight (1: the paper's sequential GP-UCB) */
  int retries; /* further attempts after a failed evaluation */
  /* [space] */
  dpbo_space_kind space_kind;
  int64_t points;
  char list_path[DPBO_PATH_MAX];
  int dims;
  dpbo_dim dim[DPBO_MAX_DIM];
  /* [gp] */
  dpbo_kernel kernel;
  dpbo_gp_prior prior;
  /* [ucb] */
  double delta;
  dpbo_acquisition acquisition;
  /* Per-rank limit of the UCB state in MiB: > 0 as given, 0 = off, -1 = auto
   * (half of the node's memory shared among its ranks; dpbo_ucb_memory_limit). */
  double memory_limit_mb;
  /* [privacy] */
  dpbo_algorithm algorithm;
  double privacy_epsilon, privacy_delta; /* totals over everything released */
  double privacy_split;                  /* share of ε and δ spent on λ̃ */
  dpbo_bounds bounds;                    /* corrected (default) or the paper's formulas */
  /* privacy.budget = ε_max δ_max: cap on the basic-composition totals of
   * every release drawn from the run file (0 0: no cap). Fixed at run time. */
  double budget_epsilon, budget_delta;
  /* privacy.ledger: the ledger file ("": <folder of the run file>/dpbo-ledger)
   * and privacy.dataset_id: the validation set's name in it ("": a
   * fingerprint of the rows, run/ledger.h). */
  char ledger_path[DPBO_PATH_MAX];
  char dataset_id[256];
  double k1;
  dpbo_select_kind selection;
  dpbo_noise_kind noise;
  uint64_t noise_seed;
  int clamp_value;
  double value_lo, value_hi;
  double alg2_A, alg2_tau;
  int failures_public;  /* the user vouches that failed evaluations do not depend on V */
  int prior_validation; /* privacy.prior_source = validation: the prior was fitted on V */
  double ps_eta;        /* Papernot–Steinke's shape η (run/selection.h) */
  /* algorithm = guided, and dpbo compare's guided method (run/guided.h):
   * stage 1's privatized evaluations T1 and its shares of ε and δ, the
   * candidate law's uniform weight w and temperature τ (units of v), and
   * stage 2's stopping method. Fixed before the data. */
  int guided_evaluations;
  /* >= 1: stage 1 is GP-UCB, not privatized, on a proxy task that never
   * reads the validation set (the last guided_proxy_rows training rows
   * scored by a model trained on the rest); 0: on privatized evaluations. */
  int64_t guided_proxy_rows;
  int guided_score; /* dpbo_guided_score (run/guided.h): what π's softmax scores */
  double guided_epsilon_share, guided_delta_share;
  double guided_weight, guided_temperature;
  dpbo_algorithm guided_base;
  /* algorithm = private_evaluations: Δ, K, σ, the final choice (the GP's
   * prior.noise_std is then √(gp.noise_std² + σ²), run/private_evals_settings.h) */
  dpbo_private_evals_settings evals;
  /* [objective] */
  dpbo_objective_kind objective;
  dpbo_config_data data; /* svm, logreg: as read, copied into svm or logreg */
  dpbo_config_fit fit;   /* svm, logreg: as read, copied into svm or logreg */
  dpbo_svm_options svm;
  dpbo_synthetic_kind synthetic;
  int synthetic_features;
  double synthetic_noise_std;
  uint64_t synthetic_seed;
  dpbo_command_options command;
  dpbo_logreg_options logreg;
  /* [output] */
  char output_dir[DPBO_PATH_MAX];
  char output_name[256];
  dpbo_posterior_output posterior;
  /* everything as written, for the run file's attributes (a copy of the
   * struct shares them; dpbo_config_free releases them) */
  dpbo_settings settings;
} dpbo_config;

/* The key table (run/config_keys.c, which says how to add a key): every
 * key of a run config, its reader's target in dpbo_config, and what `dpbo
 * config --list` prints. Ends with a row whose key is NULL. */
extern const dpbo_settings_key dpbo_config_keys[];

/* A section of the config file that a higher layer owns and reads (issue
 * #25: dpbo compare's [compare], experiments/compare_options.h). One file
 * serves every command, so every load reads an added section after the
 * run's own (before the unused-key check), with its rows joined to the
 * run's table (dpbo_config_schema): an unknown key or a bad value there is
 * refused by `dpbo run` as well, naming the file, line and key, and the run
 * file stores its keys. The run layer cannot call upward, so app adds the
 * sections at start-up, before any load (PETSc's XxxRegister habit). */
typedef struct dpbo_config_section {
  const char *name; /* the section */
  /* Its rows, in reading order (a NULL key ends them); they may include keys
   * of a run section that only the owner reads, as dpbo compare's
   * objective.compare_command, which `dpbo config --list` shows at the end
   * of that section. */
  const dpbo_settings_key *keys;
  /* Reads and checks every key of the section from config->settings (the
   * values are the owner's: it reads them again when it runs). */
  dpbo_status (*read)(struct dpbo_config *config, dpbo_error *err);
} dpbo_config_section;

/* Adds a section to every later load and to `dpbo config --list` (adding
 * the same one again does nothing). DPBO_ERR_ARG when its name is one of the
 * run's sections or the joined table is full. Not thread-safe: call it at
 * start-up. */
dpbo_status dpbo_config_add_section(const dpbo_config_section *section, dpbo_error *err);

/* The run's rows (dpbo_config_keys) followed by the added sections' rows,
 * ending with a row whose key is NULL: the schema every load checks its
 * getters against, and what `dpbo config --list` prints. */
const dpbo_settings_key *dpbo_config_schema(void);

/* objective.kind's names, indexed by dpbo_objective_kind (NULL-terminated). */
extern const char *const dpbo_objective_kind_names[];

/* Reads path, applies overrides ("section.key=value"), validates. On
 * failure nothing is left to free; on success dpbo_config_free releases the
 * stored settings. The struct is about 33 KB (paths of DPBO_PATH_MAX): it
 * fits on the stack, though callers keep it on the heap. */
dpbo_status dpbo_config_load(const char *path, int override_count, const char *const *overrides,
                             dpbo_config *config, dpbo_error *err);

/* Builds a config from "section.key=value" assignments instead of a file
 * (settings a program writes, e.g. the k1 sweep's demo prior; a run file's
 * stored settings go through dpbo_config_load_stored); `label` names the
 * source in messages. overrides are applied after them. */
dpbo_status dpbo_config_load_assignments(const char *label, int count,
                                         const char *const *assignments, int override_count,
                                         const char *const *overrides, dpbo_config *config,
                                         dpbo_error *err);

/* Builds a config from settings stored as (section, key, value) triples
 * (dpbo_output_read_settings): each entry is applied as it is with
 * dpbo_settings_set, never re-parsed, then the overrides; `label` (the run
 * file) names the source in messages. */
dpbo_status dpbo_config_load_stored(const char *label, const dpbo_settings *stored,
                                    int override_count, const char *const *overrides,
                                    dpbo_config *config, dpbo_error *err);

/* Releases the stored settings (safe after a failed load). */
void dpbo_config_free(dpbo_config *config);

/* Parts of the schema that other commands with settings of their own (dpbo
 * k1sweep) share: [output] dir (default "results") and name (default: the
 * config file's base name without its extension, computed by
 * dpbo_config_output_name_default), the rows of
 * DPBO_CONFIG_KEYS_OUTPUT_DIR_NAME (run/config_keys.h), which
 * dpbo_config_check_output checks once read (no tab in dir; name a
 * non-empty file name of A-Z a-z 0-9 . _ - not starting with . or -; the
 * paths within DPBO_OUTPUT_PATH_MAX); and the [space] lines
 * dim.NAME = linear|log LO HI [LEVELS], in order, into dims[0..*count)
 * (DPBO_MAX_DIM long; kind decides whether LEVELS apply). Both mark their
 * keys used. */
void dpbo_config_output_name_default(const dpbo_settings *settings, const void *options, char *text,
                                     size_t size);
dpbo_status dpbo_config_check_output(dpbo_settings *settings, const char *dir, const char *name,
                                     dpbo_error *err);
dpbo_status dpbo_config_get_dims(dpbo_settings *settings, dpbo_space_kind kind, dpbo_dim *dims,
                                 int *count, dpbo_error *err);

/* Compares the settings with those stored in a run file
 * (dpbo_output_read_settings); [output] and ucb.memory_limit_mb may differ.
 * Returns 1 and names the first key that differs in `what`, or 0. */
int dpbo_config_differs(const dpbo_config *config, const dpbo_settings *stored, char *what,
                        size_t size);

const char *dpbo_objective_kind_name(dpbo_objective_kind kind);

/* What the rows' computed defaults (run/config_keys.c) and the checks of
 * config.c share: the δ_β of the config's privacy accounting that β_t must
 * use (dpbo_privacy_budget_split; the default δ for the selection methods,
 * which have no GP), and the objective's proven sensitivity of one
 * evaluation (svm 1/m, logreg g* / m; 0: none proven). */
dpbo_status dpbo_config_delta_beta(const dpbo_config *config, double *delta_beta, dpbo_error *err);
double dpbo_config_proven_sensitivity(const dpbo_config *config);

/* <output_dir>/<output_name>.h5 */
void dpbo_config_run_path(const dpbo_config *config, char *path, size_t size);

#endif
