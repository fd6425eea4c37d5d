#include "base/input.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What a file that is not a regular file is, for the message. */
static const char *input_kind(mode_t mode) {
  if (S_ISDIR(mode)) return strerror(EISDIR);
  if (S_ISFIFO(mode)) return "it is a FIFO (named pipe), not a regular file";
  if (S_ISSOCK(mode)) return "it is a socket, not a regular file";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "it is a device, not a regular file";
  return "not a regular file";
}

dpbo_status dpbo_input_open(const char *path, const char *what, int *fd, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  struct stat st;
  *fd = -1;
  /* O_NONBLOCK: opening a FIFO for reading returns at once instead of
   * waiting for a writer; it is cleared below for the regular file. */
  int got = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (got < 0) DPBO_RAISE(DPBO_ERR_IO, "cannot open %s %s: %s", what, path, strerror(errno));
  if (fstat(got, &st) != 0)
    DPBO_RAISE(DPBO_ERR_IO, "cannot stat %s %s: %s", what, path, strerror(errno));
  if (!S_ISREG(st.st_mode))
    DPBO_RAISE(DPBO_ERR_IO, "cannot read %s %s: %s", what, path, input_kind(st.st_mode));
  int flags = fcntl(got, F_GETFL);
  if (flags < 0 || fcntl(got, F_SETFL, flags & ~O_NONBLOCK) < 0)
    DPBO_RAISE(DPBO_ERR_IO, "cannot read %s %s: %s", what, path, strerror(errno));
  *fd = got;
  got = -1;
done:
  if (got >= 0) close(got);
  return status;
}

dpbo_status dpbo_input_check(const char *path, const char *what, dpbo_error *err) {
  int fd = -1;
  dpbo_status status = dpbo_input_open(path, what, &fd, err);
  if (fd >= 0) close(fd);
  return status;
}

size_t dpbo_input_bom(const char *text, size_t len) {
  return len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
}
