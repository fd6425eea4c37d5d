/* The ledger: one budget per validation set (docs/design.md, "The ledger").
 *
 * Every spend of privacy budget on a validation set is one event in a
 * ledger file outside the run files: privacy.ledger, by default
 * <folder of the run file>/dpbo-ledger, so a rerun, `dpbo run --overwrite`,
 * a copy and a rename of a run file in one folder all write to the same
 * ledger, and two run files on one validation set share its budget. The
 * file is append-only and locked (flock, blocking) for each transaction:
 * lock, read and verify every line, check the budget, append, fsync,
 * unlock; so two concurrent releases never both pass a budget that fits
 * only one.
 *
 * Each event is one line of tab-separated fields (a backslash escapes a
 * tab, a newline, a carriage return and itself: \t \n \r \\), in this order:
 *
 *   dpbo-ledger-1  seq  time  kind  key  key_source  algorithm  mechanism
 *   params  epsilon  delta  rho  k  runfile  host  chain
 *
 * seq counts the lines from 1; time is UTC (YYYY-MM-DDTHH:MM:SSZ); kind is
 * `charge` (a release, or a private_evaluations run's K mechanisms, charged
 * before anything is drawn from the data or published), `import` (the
 * totals a run file's own ledger held when a dpbo without the ledger file
 * wrote it; k = its releases) or `replace` (`dpbo run --overwrite` removed
 * the run file at that path; it spends nothing); key is the validation set
 * (16 hex digits, dpbo_ledger_key; "-" for replace); epsilon and delta the
 * spend (%.17g, exact); rho the zCDP bound of the event or "-" when it has
 * none; k the mechanisms; runfile the absolute path of the run file;
 * chain 16 hex digits, FNV-1a-64 of the previous line's chain (zero before
 * the first line), a tab and this line up to its last tab. A line that
 * does not parse, or whose chain does not match, stops every transaction
 * with its number: the chain detects an edited, removed (but the last) or
 * reordered line and a torn write.
 *
 * Threat model (as DP platforms state theirs): the ledger protects an
 * HONEST analyst from overspending by accident: reruns, --overwrite,
 * copies and renames of run files, restored old copies, several run files
 * and concurrent releases on one validation set. It is no defence against
 * a user who wants to overspend: whoever can write the file can delete it,
 * cut its last lines or recompute the chain, and a copy of the data under
 * another privacy.dataset_id or another ledger path starts afresh. */
#ifndef DPBO_LEDGER_H
#define DPBO_LEDGER_H

#include <stddef.h>
#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/privacy.h"
#include "run/config.h"

/* The validation set's zCDP total, where every event on it allows one (each
 * has a ρ: a private_evaluations charge; the other releases and the imports
 * of old run files have none): ρ summed (rounded up) and the ε it gives at
 * δ = the basic total's δ (dpbo_accountant_zcdp_epsilon, rounded up).
 * present = 0, and the numbers NaN, where some event has no ρ. The release
 * files state it beside the basic and advanced totals. */
typedef struct dpbo_ledger_zcdp {
  int present;
  double rho, epsilon, delta;
} dpbo_ledger_zcdp;

/* Where the ledger of a run file is: config's privacy.ledger, or
 * dpbo-ledger in the run file's folder. */
void dpbo_ledger_path(const dpbo_config *config, const char *runfile, char *path, size_t size);

/* The validation-set key: 16 hex digits of FNV-1a-64 over the neighbour
 * relation (swap, paper Definition 1: every sensitivity of dpbo is proven
 * for it), m and the set itself:
 *   privacy.dataset_id given: that name;
 *   svm, logreg: the validation rows as read and split (the parsed values
 *     and labels, each row hashed alone and the row hashes sorted), so a
 *     copy of the data file, or its conversion to another format, gets the
 *     same key, and the path does not count;
 *   synthetic: its defining settings (function, features, noise, seed);
 *   command: its command line (dpbo cannot see the rows; set
 *     privacy.dataset_id to share a budget between different commands).
 * `source` (may be NULL) describes what was hashed. Reads the data (svm,
 * logreg): serial, one rank. */
dpbo_status dpbo_ledger_key(const dpbo_config *config, char key[17], char *source,
                            size_t source_size, dpbo_error *err);

/* One release of (ε, δ) from the run file `runfile` (which exists), charged
 * to its validation set: the one call every release makes before anything
 * is published. In one locked transaction of the ledger file: verifies
 * every line; imports once the run file's own ledger if a dpbo before the
 * ledger file wrote it (or the ledger file it names is another); refuses
 * (DPBO_ERR_CONFIG, nothing written, spent and remaining said) a release
 * that would bring the validation set's basic-composition totals past
 * (budget_epsilon, budget_delta) when budget_epsilon > 0; appends and
 * fsyncs. Then copies the release into the run file's own, informational
 * ledger. *after: the validation set's totals after it (draws: its releases
 * in all the ledger's run files); *number (may be NULL): this release's
 * number among the run file's, from the ledger's count for its path (or
 * its own count, if higher: a copy, a rename), so a restored older copy
 * never numbers a release that was published already. Says (log) when the
 * run file's own ledger contradicts the ledger file: a restored older
 * copy, an edit. Serial (rank 0), with the run file locked. */
typedef struct dpbo_ledger_charge {
  double epsilon, delta;               /* what the release spends */
  double budget_epsilon, budget_delta; /* the validation set's budget */
} dpbo_ledger_charge;

dpbo_status dpbo_ledger_record_release(const char *runfile, const dpbo_config *config,
                                       const dpbo_ledger_charge *charge, dpbo_privacy_ledger *after,
                                       dpbo_ledger_zcdp *zcdp, int64_t *number, dpbo_error *err);

/* The number dpbo_ledger_record_release would give the run file's next
 * release (charge = 1) or its latest (charge = 0), read without writing, so
 * that a release's file names are known, and checked, before its draw.
 * Serial (rank 0), with the run file locked. */
dpbo_status dpbo_ledger_next_number(const char *runfile, const dpbo_config *config, int charge,
                                    int64_t *number, dpbo_error *err);

/* A private_evaluations run before its first mechanism (`checkpoint` is the
 * run file path, which may not exist yet): charges its (ε, δ, ρ, K) once,
 * unless the ledger holds a charge of this run file at this path already
 * (a resume). A resumed copy or rename of a checkpoint is charged again
 * (over-counting is safe) and said. Refused past privacy.budget before
 * anything is evaluated. Serial (rank 0). */
dpbo_status dpbo_ledger_charge_run(const char *checkpoint, const dpbo_config *config,
                                   dpbo_error *err);

/* A guided run (run/guided.h) before stage 1's first mechanism: charges
 * its total (ε, δ) by composition once, whatever the ledger holds for this
 * run file (each invocation draws afresh, so each is charged; a guided run
 * is never resumed). Refused past privacy.budget before anything is
 * evaluated. Serial (rank 0). */
dpbo_status dpbo_ledger_charge_guided(const char *runfile, const dpbo_config *config,
                                      double epsilon, double delta, dpbo_error *err);

/* The validation set's totals for a release that spends nothing more (a
 * private_evaluations run's release, which its start charged): imports an
 * older run file's own ledger as dpbo_ledger_record_release does, copies
 * the release's cost (ε, δ) into the run file's own ledger when `add` is
 * set, and fills *after. Serial. */
dpbo_status dpbo_ledger_note(const char *runfile, const dpbo_config *config, int add,
                             dpbo_privacy_cost cost, dpbo_privacy_ledger *after,
                             dpbo_ledger_zcdp *zcdp, dpbo_error *err);

/* `dpbo run --overwrite` removed the run file at `runfile`: records it, so
 * the ledger's count for that path starts again (nothing is spent or
 * refunded). Serial. */
dpbo_status dpbo_ledger_note_replace(const char *runfile, const dpbo_config *config,
                                     dpbo_error *err);

/* Before a run evaluates anything: refuses (DPBO_ERR_CONFIG) a run whose
 * release of (ε, δ) could not fit privacy.budget any more. Serial. */
dpbo_status dpbo_ledger_check(const char *runfile, const dpbo_config *config, double epsilon,
                              double delta, dpbo_error *err);

/* Prints the ledger of the run file's validation set (the key, its totals
 * by basic composition and zCDP, its events) to stdout, for `dpbo info`.
 * Serial. */
dpbo_status dpbo_ledger_print(const char *runfile, const dpbo_config *config, dpbo_error *err);

/* ---------------------------------------------------------------------------
 * The format, exposed to tests (tests/test_ledger.c). */

typedef struct dpbo_ledger_event {
  int64_t seq;
  char time[32];
  char kind[16];
  char key[17];
  char key_source[512];
  char algorithm[32];
  char mechanism[64];
  char params[512];
  double epsilon, delta, rho; /* rho: NaN when the event has no zCDP bound */
  int64_t k;
  char runfile[4200];
  char host[256];
} dpbo_ledger_event;

/* One line (with its '\n') for `event` after a line whose chain is `prev`;
 * *chain gets this line's. Returns the length, or 0 when it does not fit. */
size_t dpbo__ledger_format(const dpbo_ledger_event *event, uint64_t prev, uint64_t *chain,
                           char *line, size_t size);

/* Parses and verifies the line (without '\n') following chain *chain;
 * *chain becomes this line's. Fails (DPBO_ERR_DATA, saying why) on a line
 * that does not parse or whose chain does not match. */
dpbo_status dpbo__ledger_parse(const char *line, uint64_t *chain, dpbo_ledger_event *event,
                               dpbo_error *err);

#endif
