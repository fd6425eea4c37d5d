/* The processes around a dpbo rank: those an evaluation starts, and the
 * launcher that started the rank.
 *
 * Evaluations. A `command` objective's program may leave processes behind: a
 * child it backgrounds, or one that calls setsid and so leaves the process
 * group that a time-out kills. A rank that runs command objectives becomes a
 * child subreaper (prctl(PR_SET_CHILD_SUBREAPER), Linux 3.4): orphans of its
 * evaluations are re-parented to the rank instead of to PID 1, so every
 * process an evaluation started is a descendant of the rank until it is
 * reaped, and dpbo_proc_kill_descendants can end them all. The rank's
 * children that existed before (Open MPI's helper of a singleton) and their
 * descendants are left alone. A process that escapes by double-forking
 * before the rank became a subreaper, or anything started through another
 * service (ssh, a batch system), is out of reach; a per-evaluation cgroup
 * would reach those but needs a delegated cgroup tree, which dpbo does not
 * assume.
 *
 * When the rank itself dies (SIGKILL, a crash), nothing above runs, and the
 * kernel's PR_SET_PDEATHSIG kills only the rank's direct child: a shell's
 * own children (the `sleep` of `sh -c "sleep 100; echo 0.5"`) ran on under
 * PID 1. So the subreaper also starts a watchdog, a process of its own that
 * holds one end of a socket whose other end only the rank holds. The
 * rank tells it the process group of every evaluation it starts and ends;
 * when the socket reaches end of file, the rank is gone, and the watchdog
 * SIGKILLs every group still registered, then exits. A process that left
 * its evaluation's group (setsid) while the rank died is out of its reach.
 *
 * The launcher. When mpiexec (or a node's daemon) dies without ending its
 * ranks, e.g. by SIGKILL, the ranks are re-parented and would run on,
 * writing the run file. Under a launcher (Open MPI's mpiexec, Hydra, srun),
 * a thread notices within 0.1 s that the rank's parent changed, kills the
 * rank's evaluations and ends the process at once, writing nothing. */
#ifndef DPBO_PROC_H
#define DPBO_PROC_H

#include <sys/types.h>

#include "dpbo/error.h"

/* Makes this process the subreaper of the evaluations it will start,
 * starts the watchdog and records its present children (the watchdog
 * among them) as not ours to kill. Idempotent. */
dpbo_status dpbo_proc_adopt_orphans(dpbo_error *err);

/* Tells the watchdog that the process group `group` of an evaluation runs
 * (running = 1: killed should this process die) or has ended and been
 * killed (running = 0). Async-signal-safe, any thread; without a watchdog
 * (dpbo_proc_adopt_orphans not called) it does nothing. */
void dpbo_proc_guard_group(pid_t group, int running);

/* SIGKILLs every descendant of this process (outside the children recorded
 * by dpbo_proc_adopt_orphans). With `reap`, repeats until none is left
 * (bounded: a process stuck in the kernel is given up after 5 s) and reaps
 * the children it killed; call it from the thread that starts evaluations,
 * after reaping the evaluation's own child. Without `reap` it only signals,
 * and may be called from any thread. */
void dpbo_proc_kill_descendants(int reap);

/* Under a launcher (environment of Open MPI, Hydra or Slurm), starts the
 * thread that ends the process with `exit_code` when its parent changes.
 * Without one (a singleton, whose parent is a shell that may exit, e.g.
 * under nohup), does nothing. */
dpbo_status dpbo_proc_watch_launcher(int exit_code, dpbo_error *err);

/* Stops that thread (before MPI_Finalize). */
void dpbo_proc_unwatch_launcher(void);

/* Whether the launcher is gone: rank 0 checks it before writing a file, so
 * that nothing is written in the moment before the process ends. */
int dpbo_proc_launcher_lost(void);

#endif
