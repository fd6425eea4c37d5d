/* A full disk for one directory, in any process, without root: loaded with
 * LD_PRELOAD, it lets the files under $DPBO_ENOSPC_DIR grow by
 * $DPBO_ENOSPC_BYTES bytes in all (per process), then fails every write
 * there that would grow a file further with ENOSPC, as a full file system
 * does (rewriting bytes a file already has needs no space). Other files
 * (stdout, MPI's shared memory, sockets) are untouched. Test-only
 * (tests/disk_full.sh).
 *
 * A budget in bytes puts the cut wherever the byte count happens to fall,
 * which moves with anything that changes what is written (the pid's digits
 * in the lock file, any change to the run file's layout). For a
 * cut at a chosen point: $DPBO_ENOSPC_WRITES = N fails the N-th write that
 * grows a file there (1-based) and every later one, and $DPBO_ENOSPC_RANK =
 * R limits only the process of MPI rank R (the others count but never
 * fail), so that exactly one rank of a collective write meets the full disk
 * (as one node's full local scratch does). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long long shim_written;    /* bytes let through so far */
static long long shim_writes;     /* writes that grew a file, let through so far */
static long long shim_file_ino;   /* the file of the last such write */
static long long shim_file_first; /* shim_writes before that file's first such write */

/* This process's MPI rank as the launcher tells it (Open MPI, PMIx, MPICH). */
static long long shim_rank(void) {
  static const char *const names[] = {"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    const char *v = getenv(names[i]);
    if (v && *v) return atoll(v);
  }
  return 0;
}

/* 1 when this process is the one $DPBO_ENOSPC_RANK names, or none is named. */
static int shim_limited(void) {
  const char *only = getenv("DPBO_ENOSPC_RANK");
  return !only || !*only || atoll(only) == shim_rank();
}

/* The number of bytes still allowed into fd, or -1 when fd is not watched. */
static long long shim_room(int fd) {
  const char *dir = getenv("DPBO_ENOSPC_DIR"), *limit = getenv("DPBO_ENOSPC_BYTES");
  if (!dir || !*dir) return -1;
  char link[64], target[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  int saved = errno; /* readlink must not leave its errno behind */
  ssize_t n = readlink(link, target, sizeof target - 1);
  errno = saved;
  if (n <= 0) return -1;
  target[n] = '\0';
  size_t len = strlen(dir);
  if (strncmp(target, dir, len) != 0 || (target[len] != '/' && target[len] != '\0')) return -1;
  if (!limit || !*limit || !shim_limited()) return LLONG_MAX;
  long long room = atoll(limit) - shim_written;
  return room > 0 ? room : 0;
}

/* 1 when a write of n bytes at offset (-1: the file position) into fd must
 * fail (past the byte budget, or from the N-th growing write); else counts
 * the bytes by which it grows the file, and the write if it grows it. */
static int shim_full(int fd, size_t n, off_t offset) {
  long long room = shim_room(fd);
  if (room < 0) return 0;
  struct stat st;
  int saved = errno;
  if (offset < 0) offset = lseek(fd, 0, SEEK_CUR);
  if (fstat(fd, &st) != 0) memset(&st, 0, sizeof st);
  long long size = (long long)st.st_size;
  errno = saved;
  long long grow = (long long)offset + (long long)n - size;
  if (offset < 0 || grow < 0) grow = offset < 0 ? (long long)n : 0;
  const char *nth = getenv("DPBO_ENOSPC_WRITES");
  if (grow > room || (grow > 0 && nth && *nth && shim_limited() && shim_writes + 1 >= atoll(nth))) {
    errno = ENOSPC;
    return 1;
  }
  if (grow > 0) {
    if ((long long)st.st_ino != shim_file_ino) {
      shim_file_ino = (long long)st.st_ino;
      shim_file_first = shim_writes;
    }
    shim_writes++;
  }
  shim_written += grow;
  return 0;
}

static size_t shim_iov_bytes(const struct iovec *iov, int count) {
  size_t n = 0;
  for (int i = 0; i < count; i++)
    n += iov[i].iov_len;
  return n;
}

/* With $DPBO_ENOSPC_REPORT set, each process appends a line to that file at
 * exit (to place a cut from a run without one): its rank, the bytes it let
 * through, the writes that grew a file, and how many of those came before
 * the first one into the last file it grew (the run file written at the end). */
__attribute__((destructor)) static void shim_report(void) {
  const char *report = getenv("DPBO_ENOSPC_REPORT");
  if (!report || !*report) return;
  FILE *f = fopen(report, "a");
  if (!f) return;
  fprintf(f, "%lld %lld %lld %lld\n", shim_rank(), shim_written, shim_writes, shim_file_first);
  fclose(f);
}

#define SHIM_NEXT(name, type) ((type)dlsym(RTLD_NEXT, name))

ssize_t write(int fd, const void *buf, size_t n) {
  if (shim_full(fd, n, -1)) return -1;
  return SHIM_NEXT("write", ssize_t(*)(int, const void *, size_t))(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t offset) {
  if (shim_full(fd, n, offset)) return -1;
  return SHIM_NEXT("pwrite", ssize_t(*)(int, const void *, size_t, off_t))(fd, buf, n, offset);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t offset) {
  if (shim_full(fd, n, offset)) return -1;
  return SHIM_NEXT("pwrite64", ssize_t(*)(int, const void *, size_t, off_t))(fd, buf, n, offset);
}

ssize_t writev(int fd, const struct iovec *iov, int count) {
  if (shim_full(fd, shim_iov_bytes(iov, count), -1)) return -1;
  return SHIM_NEXT("writev", ssize_t(*)(int, const struct iovec *, int))(fd, iov, count);
}

ssize_t pwritev(int fd, const struct iovec *iov, int count, off_t offset) {
  if (shim_full(fd, shim_iov_bytes(iov, count), offset)) return -1;
  return SHIM_NEXT("pwritev", ssize_t(*)(int, const struct iovec *, int, off_t))(fd, iov, count,
                                                                                 offset);
}

ssize_t pwritev64(int fd, const struct iovec *iov, int count, off_t offset) {
  if (shim_full(fd, shim_iov_bytes(iov, count), offset)) return -1;
  return SHIM_NEXT("pwritev64", ssize_t(*)(int, const struct iovec *, int, off_t))(fd, iov, count,
                                                                                   offset);
}
