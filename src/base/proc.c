#define _GNU_SOURCE

#include "base/proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* --- the evaluations' process trees ------------------------------------ */

enum { PROC_FOREIGN_MAX = 64 };

static pthread_mutex_t proc_lock = PTHREAD_MUTEX_INITIALIZER;
static int proc_adopted;
static pid_t proc_foreign[PROC_FOREIGN_MAX]; /* children that are not evaluations */
static int proc_foreign_count;

typedef struct proc_entry {
  pid_t pid, ppid;
  char state; /* 'Z': a zombie, to reap, not to kill */
} proc_entry;

/* Every process of the system (pid, parent, state) from /proc, into a
 * growing array; returns the count, or -1 when /proc cannot be read. */
static long proc_list(proc_entry **list, long *capacity) {
  DIR *dir = opendir("/proc");
  if (!dir) return -1;
  long n = 0;
  for (struct dirent *entry; (entry = readdir(dir)) != NULL;) {
    if (entry->d_name[0] < '1' || entry->d_name[0] > '9') continue;
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", entry->d_name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) continue; /* gone meanwhile */
    ssize_t got = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (got <= 0) continue;
    buf[got] = '\0';
    /* "pid (comm) state ppid ...": comm may hold blanks and parentheses. */
    const char *close_paren = strrchr(buf, ')');
    int pid = atoi(buf), ppid = 0;
    char state = '?';
    if (!close_paren || sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2) continue;
    if (n == *capacity) {
      long grown = *capacity ? 2 * *capacity : 1024;
      proc_entry *bigger = realloc(*list, (size_t)grown * sizeof *bigger);
      if (!bigger) break; /* a partial list: the next round sees the rest */
      *list = bigger;
      *capacity = grown;
    }
    (*list)[n++] = (proc_entry){pid, ppid, state};
  }
  closedir(dir);
  return n;
}

static int proc_is_foreign(pid_t pid, const pid_t *foreign, int count) {
  for (int i = 0; i < count; i++)
    if (foreign[i] == pid) return 1;
  return 0;
}

static int proc_compare(const void *a, const void *b) {
  const proc_entry *x = a, *y = b;
  return (x->pid > y->pid) - (x->pid < y->pid);
}

/* Marks in `mine` the descendants of `self` outside the foreign subtrees:
 * sorts the list by pid, then marks whoever's parent is marked until nothing
 * changes (one pass per generation). Returns how many. */
static long proc_mark(proc_entry *list, long n, pid_t self, const pid_t *foreign, int foreign_count,
                      char *mine) {
  long marked = 0, added;
  qsort(list, (size_t)n, sizeof *list, proc_compare);
  memset(mine, 0, (size_t)n);
  do {
    added = 0;
    for (long i = 0; i < n; i++) {
      if (mine[i]) continue;
      int take = list[i].ppid == self && !proc_is_foreign(list[i].pid, foreign, foreign_count);
      if (!take && list[i].ppid != self) {
        proc_entry key = {list[i].ppid, 0, 0};
        const proc_entry *parent = bsearch(&key, list, (size_t)n, sizeof *list, proc_compare);
        take = parent && mine[parent - list];
      }
      if (take) {
        mine[i] = 1;
        added++;
      }
    }
    marked += added;
  } while (added > 0);
  return marked;
}

/* --- the watchdog ----------------------------------------------------------- */

enum { PROC_GROUPS_MAX = 1024 };

static int proc_watchdog_fd = -1; /* the write end: records of evaluation groups */

static void proc_close_range(int lo, int hi) {
  if (lo > hi) return;
  if (close_range((unsigned)lo, (unsigned)hi, 0) == 0) return; /* Linux 5.9 */
  for (int fd = lo; fd <= hi; fd++)
    close(fd);
}

/* The watchdog's life (a forked copy of a multi-threaded process, so only
 * async-signal-safe calls). It reads records, one per message of a
 * SOCK_SEQPACKET socket (so threads cannot interleave them): +g, the group
 * g runs; -g, it ended. End of file: the rank died, or exited (then no
 * group is registered); every registered group is killed. */
_Noreturn static void proc_watchdog_main(int life, int max_fd) {
  /* A group of its own: Open MPI ends a rank by signalling the rank's
   * process group, which would take the watchdog with it. */
  setpgid(0, 0);
  /* Signals meant for the job (Ctrl-C reaches the whole foreground group,
   * Slurm's --signal every process of the step) must not end it before the
   * rank: it exits when the rank does. */
  static const int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGPIPE};
  struct sigaction ignore;
  memset(&ignore, 0, sizeof ignore);
  ignore.sa_handler = SIG_IGN;
  for (size_t i = 0; i < sizeof ignored / sizeof ignored[0]; i++)
    sigaction(ignored[i], &ignore, NULL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  /* Only its end of the socket: a copy of the rank's MPI sockets, or of
   * the write end of an evaluation's output pipe, would keep them open
   * after the rank. */
  proc_close_range(0, life - 1);
  proc_close_range(life + 1, max_fd);
  static pid_t groups[PROC_GROUPS_MAX];
  int count = 0;
  for (;;) {
    int32_t records[1];
    ssize_t got = read(life, records, sizeof records);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) break;
    for (ssize_t r = 0; r < got / (ssize_t)sizeof records[0]; r++) {
      const pid_t group = records[r] > 0 ? records[r] : -records[r];
      int at = 0;
      while (at < count && groups[at] != group)
        at++;
      if (records[r] > 0 && at == count && count < PROC_GROUPS_MAX) groups[count++] = group;
      if (records[r] < 0 && at < count) groups[at] = groups[--count];
    }
  }
  for (int i = 0; i < count; i++)
    kill(-groups[i], SIGKILL);
  _exit(0);
}

/* Forks the watchdog; called with proc_lock held, before the rank's
 * children are recorded, so that it counts among them (never killed by
 * dpbo_proc_kill_descendants). */
static dpbo_status proc_watchdog_start(dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  int life[2] = {-1, -1};
  /* A socket rather than a pipe: a record sent once the watchdog is gone
   * fails quietly (MSG_NOSIGNAL) instead of raising SIGPIPE in the rank. */
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, life) != 0)
    DPBO_RAISE(DPBO_ERR_LIBRARY, "cannot create the socket of the evaluations' watchdog: %s",
               strerror(errno));
  long open_max = sysconf(_SC_OPEN_MAX);
  const int max_fd = open_max > 0 && open_max < 65536 ? (int)open_max - 1 : 65535;
  pid_t pid = fork();
  if (pid < 0)
    DPBO_RAISE(DPBO_ERR_LIBRARY, "cannot start the evaluations' watchdog: fork: %s",
               strerror(errno));
  if (pid == 0) proc_watchdog_main(life[0], max_fd);
  proc_watchdog_fd = life[1];
  life[1] = -1;
done:
  if (life[0] >= 0) close(life[0]);
  if (life[1] >= 0) close(life[1]);
  return status;
}

void dpbo_proc_guard_group(pid_t group, int running) {
  if (proc_watchdog_fd < 0 || group <= 0) return;
  const int saved = errno;
  const int32_t record = running ? (int32_t)group : -(int32_t)group;
  ssize_t put;
  do
    put = send(proc_watchdog_fd, &record, sizeof record, MSG_NOSIGNAL);
  while (put < 0 && errno == EINTR);
  errno = saved;
}

dpbo_status dpbo_proc_adopt_orphans(dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  proc_entry *list = NULL;
  long capacity = 0;
  pthread_mutex_lock(&proc_lock);
  if (proc_adopted) goto done;
  if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0)
    DPBO_RAISE(DPBO_ERR_LIBRARY, "cannot make this process the subreaper of its evaluations: %s",
               strerror(errno));
  DPBO_TRY(proc_watchdog_start(err));
  long n = proc_list(&list, &capacity);
  if (n < 0)
    DPBO_RAISE(DPBO_ERR_IO, "cannot read /proc to track the evaluations' processes: %s",
               strerror(errno));
  const pid_t self = getpid();
  proc_foreign_count = 0;
  for (long i = 0; i < n; i++)
    if (list[i].ppid == self && proc_foreign_count < PROC_FOREIGN_MAX)
      proc_foreign[proc_foreign_count++] = list[i].pid;
  proc_adopted = 1;
done:
  pthread_mutex_unlock(&proc_lock);
  free(list);
  return status;
}

void dpbo_proc_kill_descendants(int reap) {
  proc_entry *list = NULL;
  char *mine = NULL;
  long capacity = 0;
  pid_t foreign[PROC_FOREIGN_MAX];
  pthread_mutex_lock(&proc_lock);
  int foreign_count = proc_foreign_count;
  memcpy(foreign, proc_foreign, sizeof foreign);
  pthread_mutex_unlock(&proc_lock);
  const pid_t self = getpid();
  /* Rounds: a process may fork between the listing and its SIGKILL, and a
   * killed process's children come to us (the subreaper) only once it has
   * died. A process with SIGKILL pending cannot fork, so this converges. */
  struct timespec nap = {0, 1000000L};
  for (int round = 0; round < 1000; round++) { /* 1000 rounds of up to 5 ms: at most ~5 s */
    long n = proc_list(&list, &capacity);
    if (n <= 0) break;
    char *grown = realloc(mine, (size_t)n);
    if (!grown) break;
    mine = grown;
    if (proc_mark(list, n, self, foreign, foreign_count, mine) == 0) break;
    int alive = 0;
    for (long i = 0; i < n; i++) {
      if (!mine[i]) continue;
      if (list[i].state != 'Z') {
        kill(list[i].pid, SIGKILL);
        alive = 1;
      } else if (reap && list[i].ppid == self) {
        waitpid(list[i].pid, NULL, WNOHANG);
      }
    }
    if (!reap && !alive) break; /* only zombies left: the reaping thread takes them */
    nanosleep(&nap, NULL);
    if (nap.tv_nsec < 5000000L) nap.tv_nsec *= 2;
  }
  free(list);
  free(mine);
}

/* --- the launcher ---------------------------------------------------------- */

static struct {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  int running, stop, exit_code;
  pid_t parent;
} watch = {.lock = PTHREAD_MUTEX_INITIALIZER, .wake = PTHREAD_COND_INITIALIZER};

static volatile sig_atomic_t launcher_lost;

int dpbo_proc_launcher_lost(void) { return launcher_lost; }

static void *proc_watch_main(void *arg) {
  (void)arg;
  pthread_mutex_lock(&watch.lock);
  while (!watch.stop) {
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_nsec += 100000000L; /* every 0.1 s: one getppid */
    if (until.tv_nsec >= 1000000000L) {
      until.tv_sec++;
      until.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&watch.wake, &watch.lock, &until);
    if (!watch.stop && getppid() != watch.parent) {
      /* Nobody waits for this process any more, and whatever it wrote now
       * could only race with a new job on the same files. */
      launcher_lost = 1;
      dpbo_proc_kill_descendants(0);
      _exit(watch.exit_code);
    }
  }
  pthread_mutex_unlock(&watch.lock);
  return NULL;
}

dpbo_status dpbo_proc_watch_launcher(int exit_code, dpbo_error *err) {
  dpbo_status status = DPBO_OK;
  if (watch.running) goto done;
  if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMI_SIZE") && !getenv("SLURM_STEP_ID")) goto done;
  watch.parent = getppid();
  watch.exit_code = exit_code;
  watch.stop = 0;
  if (pthread_create(&watch.thread, NULL, proc_watch_main, NULL) != 0)
    DPBO_RAISE(DPBO_ERR_LIBRARY, "cannot start the thread that watches the MPI launcher");
  watch.running = 1;
done:
  return status;
}

void dpbo_proc_unwatch_launcher(void) {
  if (!watch.running) return;
  pthread_mutex_lock(&watch.lock);
  watch.stop = 1;
  pthread_cond_signal(&watch.wake);
  pthread_mutex_unlock(&watch.lock);
  pthread_join(watch.thread, NULL);
  watch.running = 0;
}
