/* A full disk for one directory, in any process, without root: loaded with
 * LD_PRELOAD, it lets the files under $DPBO_ENOSPC_DIR grow by
 * $DPBO_ENOSPC_BYTES bytes in all (per process), then fails every write
 * there that would grow a file further with ENOSPC, as a full file system
 * does (rewriting bytes a file already has needs no space). Other files
 * (stdout, MPI's shared memory, sockets) are untouched. Test-only
 * (tests/disk_full.sh). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static long long shim_written; /* bytes let through so far */

/* The number of bytes still allowed into fd, or -1 when fd is not watched. */
static long long shim_room(int fd) {
  const char *dir = getenv("DPBO_ENOSPC_DIR"), *limit = getenv("DPBO_ENOSPC_BYTES");
  if (!dir || !*dir || !limit) return -1;
  char link[64], target[4096];
  snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
  int saved = errno; /* readlink must not leave its errno behind */
  ssize_t n = readlink(link, target, sizeof target - 1);
  errno = saved;
  if (n <= 0) return -1;
  target[n] = '\0';
  size_t len = strlen(dir);
  if (strncmp(target, dir, len) != 0 || (target[len] != '/' && target[len] != '\0')) return -1;
  long long room = atoll(limit) - shim_written;
  return room > 0 ? room : 0;
}

/* 1 when a write of n bytes at offset (-1: the file position) into fd must
 * fail; else counts the bytes by which it grows the file. */
static int shim_full(int fd, size_t n, off_t offset) {
  long long room = shim_room(fd);
  if (room < 0) return 0;
  struct stat st;
  int saved = errno;
  if (offset < 0) offset = lseek(fd, 0, SEEK_CUR);
  long long size = fstat(fd, &st) == 0 ? (long long)st.st_size : 0;
  errno = saved;
  long long grow = (long long)offset + (long long)n - size;
  if (offset < 0 || grow < 0) grow = offset < 0 ? (long long)n : 0;
  if (grow > room) {
    errno = ENOSPC;
    return 1;
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

/* With $DPBO_ENOSPC_REPORT set, each process appends the bytes it let
 * through to that file at exit (to size a budget from a run without one). */
__attribute__((destructor)) static void shim_report(void) {
  const char *report = getenv("DPBO_ENOSPC_REPORT");
  if (!report || !*report) return;
  FILE *f = fopen(report, "a");
  if (!f) return;
  fprintf(f, "%lld\n", shim_written);
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
