/* One writer per run file.
 *
 * Every command that writes a run file (`dpbo run`, `--resume`, `dpbo
 * release`, `dpbo utility`) holds an exclusive lock on a hidden file beside
 * it, `<dir>/.<file>.lock`, for its whole life; a second writer is refused
 * with the holder's host, pid and command (`run --resume` first waits up to
 * 10 s: a killed job's rank 0 holds the lock until its launcher's SIGKILL,
 * about 2 s under Open MPI). The lock is flock(2) on a file
 * opened with O_NOFOLLOW: it dies with the process that holds it, so a lock
 * file left by a killed job never blocks. The holder removes the file before
 * it lets go; a process that locked a file no longer at that path (removed
 * or replaced meanwhile) lets go and starts again, so two processes never
 * hold two files of the same name.
 *
 * Shared file systems: on Linux NFS, flock is carried out as a POSIX lock on
 * the server (NFSv4, or NFSv3 with lockd), so it holds across nodes; after a
 * node crashes the server may keep its lock until the lease ends (NFSv4:
 * about 90 s). Mounts without locking (NFS `nolock`, Lustre `localflock`)
 * make the lock local to one node; where flock is refused (Lustre without
 * `flock`), the command warns and runs unprotected. */
#ifndef DPBO_LOCK_H
#define DPBO_LOCK_H

#include <mpi.h>

#include "dpbo/error.h"

typedef struct dpbo_lock {
  int fd;          /* rank 0: the locked file, -1 otherwise */
  char path[4200]; /* rank 0: its name */
} dpbo_lock;

/* Collective: rank 0 locks the run file `run_path` for `command` ("run",
 * "release", ...); every rank learns the outcome. With `create_dir`, the run
 * file's folder is created first (a new run); otherwise a missing folder is
 * a missing run file. Fails with DPBO_ERR_IO, naming the holder, when
 * another process holds the lock. */
dpbo_status dpbo_lock_acquire(MPI_Comm comm, const char *run_path, const char *command,
                              int create_dir, dpbo_lock *lock, dpbo_error *err);

/* Removes the lock file and releases the lock (safe on a never-acquired
 * lock with fd -1). */
void dpbo_lock_release(dpbo_lock *lock);

#endif
