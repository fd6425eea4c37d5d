/* A rename that fails, for the exit-code tests: loaded with LD_PRELOAD, it
 * fails rename() onto a path under $DPBO_RENAME_FAULT_DIR with EIO, the
 * first $DPBO_RENAME_FAULT_COUNT times in the process ("all": every time),
 * and passes every other call to the C library. dpbo publishes every run
 * file by renaming a temporary file over it (base/h5io.c), so this fails a
 * checkpoint, or every write of the run file, deterministically and without
 * root. Test-only (tests/exit_codes.sh). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rename(const char *from, const char *to) {
  static int (*real_rename)(const char *, const char *);
  static int failed; /* renames failed so far */
  if (!real_rename) real_rename = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  const char *dir = getenv("DPBO_RENAME_FAULT_DIR"), *count = getenv("DPBO_RENAME_FAULT_COUNT");
  if (dir && *dir && count) {
    size_t len = strlen(dir);
    if (strncmp(to, dir, len) == 0 && to[len] == '/' &&
        (strcmp(count, "all") == 0 || failed < atoi(count))) {
      failed++;
      errno = EIO;
      return -1;
    }
  }
  if (!real_rename) {
    errno = ENOSYS;
    return -1;
  }
  return real_rename(from, to);
}
