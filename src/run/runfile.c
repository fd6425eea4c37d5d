#include "run/runfile.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/comm.h"
#include "base/h5io.h"
#include "base/log.h"
#include "base/settings.h"
#include "run/algorithm.h"
#include "run/ledger.h"
#include "run/output.h"
#include "run/release.h"

/* The release files drawn from the run file `run_path` (<stem>.release.h5
 * and .json from `dpbo run`, <stem>.release-K.h5 and .json from `dpbo
 * release`): counts them, names the first in `first`, and removes them when
 * `remove` is set. Returns -1 (errno set) when the folder cannot be read or
 * a file cannot be removed. */
static int runfile_release_files(const char *run_path, int remove, char *first, size_t first_size) {
  char dir[DPBO_PATH_MAX], stem[DPBO_PATH_MAX], file[2 * DPBO_PATH_MAX + 2];
  const char *slash = strrchr(run_path, '/');
  snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - run_path) : 1, slash ? run_path : ".");
  if (slash && slash == run_path) snprintf(dir, sizeof dir, "/");
  snprintf(stem, sizeof stem, "%s", slash ? slash + 1 : run_path);
  size_t stem_len = strlen(stem);
  if (stem_len > 3 && strcmp(stem + stem_len - 3, ".h5") == 0) stem[stem_len -= 3] = '\0';
  first[0] = '\0';
  DIR *folder = opendir(dir);
  if (!folder) return errno == ENOENT ? 0 : -1;
  int count = 0, failed = 0;
  for (struct dirent *entry; (entry = readdir(folder)) != NULL;) {
    const char *name = entry->d_name;
    if (strncmp(name, stem, stem_len) != 0 || strncmp(name + stem_len, ".release", 8) != 0)
      continue;
    const char *rest = name + stem_len + 8;
    if (*rest == '-') { /* .release-K: K a draw number */
      const char *digits = ++rest;
      while (*rest >= '0' && *rest <= '9')
        rest++;
      if (rest == digits) continue;
    }
    if (strcmp(rest, ".h5") != 0 && strcmp(rest, ".json") != 0) continue;
    snprintf(file, sizeof file, "%s/%s", dir, name);
    if (count++ == 0) snprintf(first, first_size, "%s", file);
    if (remove && unlink(file) != 0) failed = 1;
  }
  closedir(folder);
  return failed ? -1 : count;
}

/* When a run starts or resumes: removes the temporary files that killed
 * writes of this run (its run file and its release pair) left behind
 * (h5io.h). Nobody else writes these files meanwhile: a run holds its
 * output to itself. */
static dpbo_status runfile_remove_stale(const dpbo_config *config, const char *path,
                                        dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  char h5[DPBO_PATH_MAX + 300], json[DPBO_PATH_MAX + 300];
  const char *paths[] = {path, h5, json};
  int total = 0;
  dpbo_release_paths(config, h5, json, sizeof h5);
  for (int i = 0; i < 3; i++) {
    int removed = 0;
    DPBO_TRY(dpbo_h5io_remove_stale(paths[i], &removed, err));
    total += removed;
  }
  if (total > 0) dpbo_log_info("removed %d temporary file(s) that interrupted writes left", total);
done:
  return status;
}

/* Rank 0, --overwrite accepted: the run file and its release files go,
 * before anything is evaluated (the ledger notes the replacement). */
static dpbo_status runfile_overwrite(const dpbo_config *config, const char *path, int exists,
                                     int releases, dpbo_runfile_start *start, dpbo_error *err) {
  dpbo_status local = DPBO_OK;
  char release[DPBO_PATH_MAX + 300];
  free(start->steps);
  start->steps = NULL;
  start->count = 0;
  if ((exists && unlink(path) != 0) || runfile_release_files(path, 1, release, sizeof release) < 0)
    local =
        DPBO_ERROR_SET(err, DPBO_ERR_IO, "--overwrite: cannot remove %s or its release files: %s",
                       path, strerror(errno));
  else if (exists && (local = dpbo_ledger_note_replace(path, config, err)) != DPBO_OK)
    ; /* said by err */
  else if (exists || releases > 0)
    dpbo_log_info(
        "dpbo: --overwrite: removed %s%s%d release file%s (what its releases spent on the "
        "validation data stays spent)",
        exists ? path : "", exists ? " and " : "", releases > 0 ? releases : 0,
        releases == 1 ? "" : "s");
  return local;
}

/* Rank 0: what is at the path, as the mode asks: the checkpoint's steps
 * when continuing, start->complete for a complete run file on --resume, or
 * the refusal. An algorithm whose runs are never resumed (its row's
 * resume_refusal) has its run file replaced or kept. */
static dpbo_status runfile_decide(const dpbo_config *config, const char *path,
                                  const dpbo_runfile_mode *mode, dpbo_runfile_start *start,
                                  dpbo_error *err) {
  dpbo_status local = DPBO_OK;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(config->algorithm);
  const int resume = mode->resume;
  dpbo_settings stored;
  memset(&stored, 0, sizeof stored);
  int complete = 0;
  int exists = access(path, F_OK) == 0;
  char release[DPBO_PATH_MAX + 300];
  int releases = runfile_release_files(path, 0, release, sizeof release);
  dpbo_error read_err;
  dpbo_error_clear(&read_err);
  dpbo_status got = exists ? dpbo_output_read_checkpoint(path, &stored, &complete, &start->steps,
                                                         &start->count, &read_err)
                           : DPBO_OK;
  char what[DPBO_PATH_MAX + 256];
  struct stat st;
  if (exists && lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
    /* Never read (a FIFO would block), never replaced, not even by --overwrite. */
    local = DPBO_ERROR_SET(err, DPBO_ERR_CONFIG,
                           "%s is not a regular file (a FIFO, a folder or a device), so it is "
                           "no run file of dpbo: nothing was read, removed or written; choose "
                           "another output.name",
                           path);
  } else if (resume && !exists) {
    local =
        DPBO_ERROR_SET(err, DPBO_ERR_CONFIG, "--resume: there is no run file %s to continue", path);
  } else if (resume && got != DPBO_OK) {
    local = DPBO_ERROR_SET(err, read_err.code, "--resume: %s", read_err.message);
  } else if (resume && complete) {
    start->complete = 1;
  } else if (resume && dpbo_config_differs(config, &stored, what, sizeof what)) {
    local = DPBO_ERROR_SET(err, DPBO_ERR_CONFIG,
                           "--resume: the settings changed since %s was written: %s", path, what);
  } else if (resume || mode->overwrite) {
    /* continue the checkpoint, or start over below */
  } else if (exists && got != DPBO_OK) {
    local = DPBO_ERROR_SET(err, DPBO_ERR_CONFIG,
                           "%s exists and is not a readable run file (%s): nothing was written; "
                           "replace it with --overwrite, or choose another output.name",
                           path, read_err.message);
  } else if (exists && ops->resume_refusal) {
    local = DPBO_ERROR_SET(err, DPBO_ERR_CONFIG,
                           "%s holds a%s run and the ledger of the releases drawn from it: "
                           "nothing was written; privacy.algorithm = %s is never resumed, "
                           "so replace it (and remove its release files) with --overwrite (a "
                           "new run, charged afresh), or choose another output.name",
                           path, complete ? " finished" : "n unfinished", ops->name);
  } else if (exists && !complete) {
    local = DPBO_ERROR_SET(err, DPBO_ERR_CONFIG,
                           "%s holds an unfinished run (%d steps): continue it with `dpbo run %s "
                           "--resume`, or start over with --overwrite",
                           path, start->count, config->path);
  } else if (exists) {
    local = DPBO_ERROR_SET(err, DPBO_ERR_CONFIG,
                           "%s holds a finished run and the ledger of the releases drawn from it: "
                           "nothing was written; replace it (and remove its release files) with "
                           "--overwrite, or choose another output.name (if its release is "
                           "missing, `dpbo run %s --resume` draws it or says why not)",
                           path, config->path);
  } else if (releases > 0) {
    local = DPBO_ERROR_SET(err, DPBO_ERR_CONFIG,
                           "%s is a release of an earlier run named like this one, whose run file "
                           "is gone: nothing was written; remove it with --overwrite, or choose "
                           "another output.name",
                           release);
  }
  if (local == DPBO_OK && mode->overwrite)
    local = runfile_overwrite(config, path, exists, releases, start, err);
  dpbo_settings_free(&stored);
  return local;
}

/* A private-selection run being resumed: the secret candidates its
 * checkpoint stores (rank 0 reads, every rank gets them; none from a file
 * written before issue #22, see dpbo_driver_options). */
static dpbo_status runfile_candidates(MPI_Comm comm, int rank, const dpbo_config *config,
                                      const char *path, dpbo_runfile_start *start,
                                      dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  if (start->count == 0 || !dpbo_algorithm_is_selection(config->algorithm)) goto done;
  if (rank == 0)
    local = dpbo_output_read_candidates(path, &start->candidates, &start->candidate_count, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Bcast(&start->candidate_count, 1, MPI_INT, 0, comm));
  if (start->candidate_count == 0) goto done;
  if (rank != 0) {
    start->candidates = malloc(sizeof *start->candidates * (size_t)start->candidate_count);
    local = start->candidates
                ? DPBO_OK
                : DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory for the candidates");
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Bcast(start->candidates, start->candidate_count, MPI_INT64_T, 0, comm));
done:
  return status;
}

dpbo_status dpbo_runfile_prepare(MPI_Comm comm, const dpbo_config *config, const char *path,
                                 const dpbo_runfile_mode *mode, dpbo_runfile_start *start,
                                 dpbo_error *err) {
  dpbo_status status = DPBO_OK, local = DPBO_OK;
  int rank = 0;
  const dpbo_algorithm_ops *ops = dpbo_algorithm_ops_get(config->algorithm);
  memset(start, 0, sizeof *start);
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  if (ops->private_release && !ops->private_evaluations) {
    /* Nothing is evaluated, and --overwrite removes nothing, for a release
     * that the ledger would refuse
     * (private_evaluations: its start charges the ledger, run/ledger.h). */
    if (rank == 0)
      local = dpbo_ledger_check(path, config, config->privacy_epsilon, config->privacy_delta, err);
    DPBO_TRY(dpbo_comm_agree(comm, local, err));
  }
  if (rank == 0) local = runfile_remove_stale(config, path, err);
  if (rank == 0 && local == DPBO_OK) local = runfile_decide(config, path, mode, start, err);
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  int head[2] = {start->count, start->complete};
  DPBO_MPI_TRY(MPI_Bcast(head, 2, MPI_INT, 0, comm));
  start->complete = head[1];
  if (start->complete || head[0] == 0) goto done;
  if (rank != 0) {
    start->count = head[0];
    start->steps = calloc((size_t)start->count, sizeof *start->steps);
    local = start->steps ? DPBO_OK
                         : DPBO_ERROR_SET(err, DPBO_ERR_NOMEM, "out of memory for the checkpoint");
  }
  DPBO_TRY(dpbo_comm_agree(comm, local, err));
  DPBO_MPI_TRY(MPI_Bcast(start->steps, (int)((size_t)start->count * sizeof *start->steps), MPI_BYTE,
                         0, comm));
  DPBO_TRY(runfile_candidates(comm, rank, config, path, start, err));
done:
  return status;
}

void dpbo_runfile_start_free(dpbo_runfile_start *start) {
  free(start->steps);
  free(start->candidates);
  start->steps = NULL;
  start->candidates = NULL;
}
