/* The HDF5 run file (docs/design.md section 6), written collectively with
 * parallel HDF5 and atomically through h5io.h's path: every rank writes into
 * an exclusive temporary file ".<name>.tmp.<random>", rank 0 syncs it and
 * renames it to <path>, and on any failure the temporary file is removed,
 * so a file at <path> is always whole. Mode 0600 whatever the umask. Later
 * changes (the ledger, dpbo utility's report) replace it the same way.
 *
 * Layout:
 *   /            attributes: dpbo_version, config_file, config.<section>.<key>
 *                (every key as written), seed, ranks, complete, outcome,
 *                sensitive (the trace depends on the validation data)
 *   /space       attributes kind, size, names, lower, upper, scale, levels
 *   /trace       index, lambda (T x d), unit (T x d), gain, mean, std, beta,
 *                ucb, eval_seconds, step_seconds, worker, alive (Algorithm 2 pruning),
 *                state (0 done, 1 failed, 2 pending), attempts; attribute
 *                failures: one "t<TAB>reason" line per failed evaluation;
 *                candidates (private-selection runs: every candidate the run
 *                drew, secret, for --resume)
 *   /posterior   unit (N x d), mean, std after the last step (units of v),
 *                each rank writing its block; only when enabled
 *   /summary     attributes best_gain, best_step, best_lambda, wall_seconds,
 *                steps, finished, failures, resumed_steps, workers,
 *                busy_seconds, worker_utilization; the UCB state: ucb_mode
 *                (incremental | recompute | recompute on R of P ranks),
 *                ucb_state_bytes_max_rank, ucb_state_bytes_total,
 *                ucb_incremental_bytes_max_rank (what incremental would hold),
 *                ucb_memory_limit_bytes (smallest per-rank limit, 0 = none),
 *                ucb_recompute_ranks; peak_rss_bytes_max_rank and
 *                peak_rss_bytes_total (getrusage at the end of the loop)
 *
 * During a run the same file, without /posterior and with complete = 0, is
 * the checkpoint (dpbo_output_write_checkpoint). */
#ifndef DPBO_OUTPUT_H
#define DPBO_OUTPUT_H

#include <hdf5.h>
#include <mpi.h>

#include "base/settings.h"
#include "run/config.h"
#include "run/run.h"
#include "dpbo/error.h"
#include "dpbo/privacy.h"

/* The settings as written, one string attribute config.<section>.<key>
 * each, and the defaults the getters took, default.<section>.<key> (the
 * value used, as text): together every key's effective value. On obj (the
 * root of every file dpbo writes from a config: run files, k1 sweeps,
 * comparisons); collective like every attribute write. Only config.* is
 * read back (a run file written before default.* existed reads the same). */
dpbo_status dpbo_output_write_settings(hid_t obj, const dpbo_settings *settings, dpbo_error *err);

/* The config.* attributes of obj into *stored (named `label` in messages),
 * each as one (section, key, value) triple through dpbo_settings_set: no
 * line-based re-parse, so no value can inject a key; names and values are
 * checked as settings.h says. For dpbo_config_load_stored; no entries when
 * there are none. On failure nothing is left to free. */
dpbo_status dpbo_output_read_settings(hid_t obj, const char *label, dpbo_settings *stored,
                                      dpbo_error *err);
/* The same for the default.* attributes (the defaults the getters took). */
dpbo_status dpbo_output_read_defaults(hid_t obj, const char *label, dpbo_settings *taken,
                                      dpbo_error *err);

/* The dimensions of a space as attributes of obj: "names", "scale" and
 * "dim_kind" (comma-separated strings, scale linear|log, dim_kind the config
 * keyword: linear|log|integer|log_integer|categorical), "categories" (one
 * line per dimension, a categorical one's names comma-separated: a stored
 * value k is the k-th name, from 0), "lower" and "upper" (arrays of d). */
dpbo_status dpbo_output_write_dims(hid_t obj, int d, const dpbo_dim *dims, dpbo_error *err);

/* Whether /posterior is written for a space of n points under this config
 * (auto: n <= 1e6). */
int dpbo_output_wants_posterior(const dpbo_config *config, int64_t n);

dpbo_status dpbo_output_write_run(MPI_Comm comm, const char *path, const dpbo_config *config,
                                  const dpbo_run *run, dpbo_error *err);

/* The checkpoint: the run file without /posterior, written by one rank
 * (rank 0 holds the whole trace) through a temporary file and a rename, so a
 * crash at any moment leaves the previous checkpoint whole. */
dpbo_status dpbo_output_write_checkpoint(const char *path, const dpbo_config *config,
                                         const dpbo_run *run, int nranks, dpbo_error *err);

/* Reads a run file back for `dpbo run --resume` (serial): the stored
 * settings (as dpbo_output_read_trace), whether it is complete, and every
 * trace step with its state, attempts and failure reason (malloc'd). */
dpbo_status dpbo_output_read_checkpoint(const char *path, dpbo_settings *stored, int *complete,
                                        dpbo_trace_step **steps, int *count, dpbo_error *err);

/* Prints a run file's summary (and its trace when `trace` is set) to stdout;
 * serial, for `dpbo info`. */
dpbo_status dpbo_output_print_info(const char *path, int trace, dpbo_error *err);

/* The run's β_t (/trace/beta, steps values into beta) and the δ it was
 * computed with (/trace attribute delta). */
dpbo_status dpbo_output_read_beta(const char *path, int steps, double *beta, double *delta,
                                  dpbo_error *err);

/* What `dpbo release` needs from a finished run file (serial, one rank):
 * the stored settings (dpbo_output_read_settings; freed by the caller with
 * dpbo_settings_free), whether the run completed, and the trace's candidate
 * indices and gains (malloc'd, *steps long). */
dpbo_status dpbo_output_read_trace(const char *path, dpbo_settings *stored, int *complete,
                                   int *steps, int64_t **index, double **gain, dpbo_error *err);

/* A private-selection run's candidates (/trace/candidates: all it planned,
 * K for the stopping methods; secret, drawn from the release noise), for
 * --resume (serial; malloc'd). *count = 0 and NULL for a file written
 * before issue #22, which stores none (its candidates were the public
 * stream of run.seed). */
#define DPBO_OUTPUT_CANDIDATES "candidates"
dpbo_status dpbo_output_read_candidates(const char *path, int64_t **candidates, int *count,
                                        dpbo_error *err);

/* The ledger of a run file as it stands (serial): nothing is added. */
dpbo_status dpbo_output_read_ledger(const char *path, dpbo_privacy_ledger *ledger, dpbo_error *err);

/* The root attribute of a private_evaluations run file that counts its
 * charged Gaussian mechanisms (run.h's evaluations_charged). */
#define DPBO_OUTPUT_EVALUATIONS_CHARGED "evaluations_charged"

/* The in-file ledger's mark of the ledger file (run/ledger.h): the in-file
 * totals (draws, epsilon, delta) that ledger_file records already, as
 * written under the run file path runfile. present = 0 on a run file that
 * no ledger file has seen (a dpbo before the ledger file). */
typedef struct dpbo_output_ledger_mark {
  int present;
  int64_t draws;
  double epsilon, delta;
  char ledger[4200], runfile[4200];
} dpbo_output_ledger_mark;

/* The in-file ledger (as dpbo_output_read_ledger) and its mark. */
dpbo_status dpbo_output_read_ledger_mark(const char *path, dpbo_privacy_ledger *ledger,
                                         dpbo_output_ledger_mark *mark, dpbo_error *err);

/* Adds (with `add`) one release's cost (ε, δ) to the in-file ledger, which the
 * ledger file makes informational, and marks the totals after it as
 * recorded in ledger_file under the path runfile (atomically, through
 * h5io.h's copy and rename; no budget: run/ledger.h enforces it). */
dpbo_status dpbo_output_sync_ledger(const char *path, int add, dpbo_privacy_cost cost,
                                    const char *ledger_file, const char *runfile,
                                    dpbo_privacy_ledger *after, dpbo_error *err);

#endif
