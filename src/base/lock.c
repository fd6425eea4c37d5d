#define _GNU_SOURCE

#include "base/lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/comm.h"
#include "base/h5io.h"
#include "base/log.h"

/* `<dir>/.<file>.lock` for the run file `<dir>/<file>`. */
static int lock_path(const char *run_path, char *out, size_t size) {
  const char *slash = strrchr(run_path, '/');
  int n = slash ? snprintf(out, size, "%.*s/.%s.lock", (int)(slash - run_path), run_path, slash + 1)
                : snprintf(out, size, ".%s.lock", run_path);
  return n > 0 && (size_t)n < size;
}

/* What the holder wrote into the lock file, as one line ("" if nothing). */
static void lock_holder(int fd, char *out, size_t size) {
  ssize_t got = pread(fd, out, size - 1, 0);
  out[got > 0 ? got : 0] = '\0';
  out[strcspn(out, "\n")] = '\0';
}

/* How long `dpbo run --resume` waits for a held lock. A resume is what one
 * starts right after a job died, and a dead job's rank 0 can hold the lock
 * for a while: when a rank is killed, Open MPI's daemon sends the other
 * ranks SIGCONT, SIGTERM 1 s later and SIGKILL 1 s after that (measured:
 * the lock is free about 2 s after the kill), and rank 0, waiting for the
 * dead rank, lives until the SIGKILL. 10 s covers that with a margin; other
 * commands are refused at once. */
#define LOCK_RESUME_WAIT_S 10

/* flock(LOCK_EX | LOCK_NB), retried every 0.1 s for up to `wait_s` seconds
 * while another process holds the lock (saying so once); flock's result. */
static int lock_wait(int fd, const char *run_path, int wait_s) {
  int rc = flock(fd, LOCK_EX | LOCK_NB);
  if (rc == 0 || errno != EWOULDBLOCK || wait_s <= 0) return rc;
  char holder[256];
  lock_holder(fd, holder, sizeof holder);
  dpbo_log_warn("dpbo: %s is in use (%s): waiting up to %d s for it to end", run_path,
                holder[0] ? holder : "holder not recorded", wait_s);
  const struct timespec nap = {0, 100000000L};
  for (int i = 0; i < 10 * wait_s; i++) {
    nanosleep(&nap, NULL);
    rc = flock(fd, LOCK_EX | LOCK_NB);
    if (rc == 0 || errno != EWOULDBLOCK) break;
  }
  return rc;
}

/* Rank 0: opens and locks the file, retrying when the path was replaced
 * between open and lock (someone removed the lock file). */
static dpbo_status lock_take(const char *run_path, const char *command, int create_dir, int *fd_out,
                             char *path, size_t path_size, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int fd = -1, writable = 1;
  *fd_out = -1;
  if (!lock_path(run_path, path, path_size))
    DPBO_RAISE(DPBO_ERR_IO, "%s: path too long for its lock file", run_path);
  if (create_dir) DPBO_TRY(dpbo_h5io_ensure_dir(path, err));
  const int wait_s = strcmp(command, "run --resume") == 0 ? LOCK_RESUME_WAIT_S : 0;
  for (int attempt = 0;; attempt++) {
    writable = 1;
    fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0 && errno == EACCES) { /* another user's lock file: lock it read-only */
      writable = 0;
      fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
      /* No lock file to lock read-only: the folder refused its creation. */
      if (fd < 0 && errno == ENOENT)
        DPBO_RAISE(DPBO_ERR_IO,
                   "cannot create the lock file %s of %s: %s (the folder is not writable)", path,
                   run_path, strerror(EACCES));
    }
    if (fd < 0 && errno == ENOENT)
      DPBO_RAISE(DPBO_ERR_IO, "there is no run file %s (its folder does not exist)", run_path);
    if (fd < 0)
      DPBO_RAISE(DPBO_ERR_IO, "cannot open the lock file %s of %s: %s%s", path, run_path,
                 strerror(errno), errno == ELOOP ? " (a symbolic link: remove it)" : "");
    struct stat kind;
    if (fstat(fd, &kind) != 0 || !S_ISREG(kind.st_mode))
      DPBO_RAISE(DPBO_ERR_IO, "the lock file %s of %s is not a regular file: remove it", path,
                 run_path);
    if (lock_wait(fd, run_path, attempt == 0 ? wait_s : 0) != 0) {
      if (errno == EWOULDBLOCK) {
        char holder[256];
        lock_holder(fd, holder, sizeof holder);
        /* Only a new run can go elsewhere; any other command needs this file. */
        DPBO_RAISE(DPBO_ERR_IO, "%s is in use by another dpbo (%s): one writer at a time; %s",
                   run_path, holder[0] ? holder : "its host and pid are not recorded yet",
                   strcmp(command, "run") == 0
                       ? "wait for it to end, or write elsewhere (--set output.name=...)"
                       : "wait for it to end, then try again");
      }
      if (errno == ENOLCK || errno == ENOSYS || errno == EOPNOTSUPP) {
        /* A file system without locks: run, but say a second writer goes unnoticed. */
        dpbo_log_warn("dpbo: cannot lock %s (%s): this file system has no locks, so a second "
                      "dpbo writing %s at the same time would not be detected",
                      path, strerror(errno), run_path);
        close(fd); /* nothing held: nothing to remove at release */
        fd = -1;
        goto done;
      }
      DPBO_RAISE(DPBO_ERR_IO, "cannot lock %s: %s", path, strerror(errno));
    }
    struct stat held, now;
    if (fstat(fd, &held) == 0 && lstat(path, &now) == 0 && held.st_dev == now.st_dev &&
        held.st_ino == now.st_ino)
      break;
    if (attempt == 10) DPBO_RAISE(DPBO_ERR_IO, "the lock file %s keeps being replaced", path);
    close(fd);
    fd = -1;
  }
  if (writable) {
    /* The holder, for the message of a refused second writer. */
    char host[256] = "?", line[512], when[64] = "";
    gethostname(host, sizeof host);
    host[sizeof host - 1] = '\0';
    time_t t = time(NULL);
    struct tm tm;
    if (gmtime_r(&t, &tm)) strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    int n = snprintf(line, sizeof line, "`dpbo %s`, pid %ld on host %s, since %s\n", command,
                     (long)getpid(), host, when);
    /* A failure here only costs a refused writer's message its detail. */
    if (n <= 0 || ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)n, 0) != n)
      dpbo_log_debug("dpbo: cannot record the holder in %s: %s", path, strerror(errno));
  }
done:
  if (status == DPBO_OK) {
    *fd_out = fd;
  } else if (fd >= 0) {
    close(fd);
  }
  return status;
}

dpbo_status dpbo_lock_acquire(MPI_Comm comm, const char *run_path, const char *command,
                              int create_dir, dpbo_lock *lock, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int rank;
  lock->fd = -1;
  DPBO_MPI_TRY(MPI_Comm_rank(comm, &rank));
  dpbo_status local = rank == 0 ? lock_take(run_path, command, create_dir, &lock->fd, lock->path,
                                            sizeof lock->path, err)
                                : DPBO_OK;
  status = dpbo_comm_agree(comm, local, err);
done:
  return status;
}

void dpbo_lock_release(dpbo_lock *lock) {
  if (!lock || lock->fd < 0) return;
  unlink(lock->path); /* while held: see lock.h */
  close(lock->fd);    /* closing the only descriptor drops the flock */
  lock->fd = -1;
}
