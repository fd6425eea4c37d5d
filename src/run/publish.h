/* One release transaction (issue #22 "One release transaction in the run
 * layer", issue #27 items 1 and 4): every private release dpbo publishes —
 * `dpbo run`'s, `dpbo release`'s, the privatized evaluations' — goes
 * through dpbo_publish_release, which keeps one order:
 *
 *   1. the targets: <base>.h5 and <base>.json are checked before anything is
 *      drawn. A target that exists is refused, whatever it is (a run file,
 *      the file under a lock, an earlier release, anything else): a release
 *      never replaces a file. A path over DPBO_OUTPUT_PATH_MAX, or a folder
 *      that cannot be made or written (a temporary file is created there and
 *      removed), is refused too. A refusal here spends nothing;
 *   2. the draw (collective);
 *   3. the budget check and the spend, recorded in the ledger (rank 0);
 *   4. the files, each published atomically (h5io.h).
 *
 * The ledger goes before the files: a crash between 3 and 4 leaves a ledger
 * that counts a release nobody saw (over-counting, which is safe), never a
 * published release the ledger misses (under-counting, which would let later
 * draws exceed the budget). What can still fail in 4 after 1 passed (a disk
 * that fills meanwhile) therefore costs budget and says so. */
#ifndef DPBO_PUBLISH_H
#define DPBO_PUBLISH_H

#include <mpi.h>
#include <stdint.h>

#include "dpbo/error.h"
#include "dpbo/privacy.h"
#include "run/config.h"
#include "run/ledger.h"

/* What one kind of release gives the transaction; `user` is its state. */
typedef struct dpbo_publish_ops {
  /* Collective: draws the release; *epsilon, *delta: what it spends
   * (rank 0's values are charged). */
  dpbo_status (*draw)(MPI_Comm comm, void *user, double *epsilon, double *delta, dpbo_error *err);
  /* Rank 0: the ledger after the draw into the release (zcdp: the
   * validation set's zCDP total, where every event allows one). */
  void (*set_ledger)(void *user, const dpbo_privacy_ledger *ledger, const dpbo_ledger_zcdp *zcdp);
  /* Rank 0: writes the pair (each file atomically). */
  dpbo_status (*write)(void *user, const char *h5, const char *json, dpbo_error *err);
} dpbo_publish_ops;

typedef struct dpbo_publish_spec {
  const char *runfile; /* the run file whose ledger counts the release */
  /* The files are <base>.h5 and <base>.json; NULL: <runfile stem>.release-K
   * with K the run file's count in the ledger after this draw. */
  const char *base;
  /* 1: the draw spends, charged to the validation set's ledger (run/ledger.h);
   * 0: it spends nothing more (a private_evaluations run's start charged
   * it), the ledger is only read */
  int charge;
  double budget_epsilon, budget_delta; /* privacy.budget (budget_epsilon <= 0: none) */
  const dpbo_config *config;           /* the run's: its ledger and validation set */
  int note_add; /* charge = 0: copy (epsilon, delta) into the run file's own ledger */
} dpbo_publish_spec;

/* Where rank 0 gets the names of the files published: two buffers of
 * `size` bytes each. */
typedef struct dpbo_publish_files {
  char *h5, *json;
  size_t size;
} dpbo_publish_files;

/* The transaction (collective): the steps above. On success, rank 0's
 * files.h5 and files.json name the published files and *ledger holds the
 * ledger after the release. */
dpbo_status dpbo_publish_release(MPI_Comm comm, const dpbo_publish_spec *spec,
                                 const dpbo_publish_ops *ops, void *user, dpbo_publish_files files,
                                 dpbo_privacy_ledger *ledger, dpbo_error *err);

/* What became of the release a finished run was configured to publish as
 * h5/json (serial), for `dpbo run --resume` on a complete run file. */
typedef enum dpbo_publish_state {
  DPBO_PUBLISH_WRITTEN,     /* both files exist, and the ledger counts a release */
  DPBO_PUBLISH_NEVER_DRAWN, /* neither file exists and the ledger counts nothing */
  DPBO_PUBLISH_LOST,        /* the ledger counts a release, but a file is missing */
  DPBO_PUBLISH_UNCOUNTED    /* a file exists, but the ledger counts nothing */
} dpbo_publish_state;

dpbo_status dpbo_publish_check(const char *runfile, const char *h5, const char *json,
                               dpbo_publish_state *state, dpbo_privacy_ledger *ledger,
                               dpbo_error *err);

#endif
