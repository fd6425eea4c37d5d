#include "run/publish.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/comm.h"
#include "base/h5io.h"
#include "run/ledger.h"
#include "run/output.h"

/* The ledger's doors. Every release charges (or reads) the ledger of its
 * validation set here and nowhere else (run/ledger.h). */
static dpbo_status publish_ledger_record(const dpbo_publish_spec *spec, double epsilon,
                                         double delta, dpbo_privacy_ledger *after,
                                         dpbo_ledger_zcdp *zcdp, dpbo_error *err) {
  const dpbo_ledger_charge charge = {epsilon, delta, spec->budget_epsilon, spec->budget_delta};
  if (spec->charge)
    return dpbo_ledger_record_release(spec->runfile, spec->config, &charge, after, zcdp, NULL, err);
  return dpbo_ledger_note(spec->runfile, spec->config, spec->note_add,
                          (dpbo_privacy_cost){epsilon, delta}, after, zcdp, err);
}

/* A target must not exist (lstat: a symbolic link, even a dangling one, is
 * a file there too), and its folder must take a new file: a temporary file
 * of h5io.h's kind is created next to it and removed again. */
static dpbo_status publish_target_check(const char *path, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  struct stat st;
  char tmp[DPBO_PATH_MAX + 64];
  int fd = -1;
  if (lstat(path, &st) == 0)
    DPBO_RAISE(DPBO_ERR_CONFIG,
               "%s exists already: a release never replaces a file (a run file, a release, or "
               "anything else); name a new one with --out PREFIX, or move that file away",
               path);
  if (errno != ENOENT) DPBO_RAISE(DPBO_ERR_IO, "cannot write %s: %s", path, strerror(errno));
  DPBO_TRY(dpbo_h5io_ensure_dir(path, err));
  DPBO_TRY(dpbo_h5io_temp_open(path, 1, tmp, sizeof tmp, &fd, err));
  close(fd);
  unlink(tmp);
done:
  return status;
}

/* Rank 0, before the draw: the two target names and their checks. */
static dpbo_status publish_targets(const dpbo_publish_spec *spec, char *h5, char *json, size_t size,
                                   dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char base[DPBO_PATH_MAX];
  int n;
  if (spec->base) {
    n = snprintf(base, sizeof base, "%s", spec->base);
  } else {
    /* <stem>.release-K, K the run file's count in the ledger once this draw
     * is in (a restored older copy never numbers a published release): the
     * caller holds the run file's lock, so nobody charges it meanwhile. */
    int64_t number = 0;
    DPBO_TRY(dpbo_ledger_next_number(spec->runfile, spec->config, spec->charge, &number, err));
    size_t len = strlen(spec->runfile);
    if (len > 3 && strcmp(spec->runfile + len - 3, ".h5") == 0) len -= 3;
    n = snprintf(base, sizeof base, "%.*s.release-%lld", (int)len, spec->runfile,
                 (long long)number);
  }
  if (n < 0 || (size_t)n >= sizeof base || (size_t)n + 6 > size)
    DPBO_RAISE(DPBO_ERR_IO, "the release path %.200s... is too long", base);
  snprintf(h5, size, "%s.h5", base);
  snprintf(json, size, "%s.json", base);
  /* Checked here as h5io_create would check it after the draw. */
  if (strlen(h5) > DPBO_OUTPUT_PATH_MAX)
    DPBO_RAISE(DPBO_ERR_IO,
               "release path %s is %zu characters long; dpbo writes through MPI-IO, which handles "
               "paths of at most %d characters",
               h5, strlen(h5), DPBO_OUTPUT_PATH_MAX);
  DPBO_TRY(publish_target_check(h5, err));
  DPBO_TRY(publish_target_check(json, err));
done:
  return status;
}

dpbo_status dpbo_publish_release(MPI_Comm comm, const dpbo_publish_spec *spec,
                                 const dpbo_publish_ops *ops, void *user, dpbo_publish_files files,
                                 dpbo_privacy_ledger *ledger, dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank;
  double epsilon = 0.0, delta = 0.0;
  dpbo_ledger_zcdp zcdp = {0, NAN, NAN, NAN};
  memset(ledger, 0, sizeof *ledger);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  /* 1. Everything that can be refused, before a draw exists to be charged. */
  if (rank == 0) {
    local = publish_targets(spec, files.h5, files.json, files.size, err);
    if (local != DPBO_OK) dpbo_error_prefix(err, "nothing was drawn and no budget was spent");
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  /* 2. The draw. */
  DPBO_TRY(ops->draw(comm, user, &epsilon, &delta, err));
  if (rank == 0) {
    /* 3. The budget and the spend: the ledger first (publish.h). */
    local = publish_ledger_record(spec, epsilon, delta, ledger, &zcdp, err);
    /* 4. The files. */
    if (local == DPBO_OK) {
      ops->set_ledger(user, ledger, &zcdp);
      local = ops->write(user, files.h5, files.json, err);
      if (local != DPBO_OK && spec->charge)
        dpbo_error_prefix(err, "the ledger of %s counts this draw, but its release was not written",
                          spec->runfile);
    }
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
done:
  return status;
}

dpbo_status dpbo_publish_check(const char *runfile, const char *h5, const char *json,
                               dpbo_publish_state *state, dpbo_privacy_ledger *ledger,
                               dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  struct stat st;
  /* The run file's own ledger: informational since the ledger file, but
   * the run file's record of whether its own release was charged. */
  DPBO_TRY(dpbo_output_read_ledger(runfile, ledger, err));
  const int have_h5 = lstat(h5, &st) == 0, have_json = lstat(json, &st) == 0;
  if (ledger->draws == 0)
    *state = have_h5 || have_json ? DPBO_PUBLISH_UNCOUNTED : DPBO_PUBLISH_NEVER_DRAWN;
  else
    *state = have_h5 && have_json ? DPBO_PUBLISH_WRITTEN : DPBO_PUBLISH_LOST;
done:
  return status;
}
