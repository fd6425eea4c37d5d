# shellcheck shell=bash
# Sourced by tests that kill or check processes by a pid or process group
# recorded earlier (in a file or a variable). Under `ctest -j2` pids wrap
# every 20-40 s here (pid_max 32768) and MPI ranks lead their own process
# groups, so by cleanup time a recorded pid or pgid may belong to another
# test's process: a plain `kill -9 $(cat pids)` or `pkill -9 -g $g` could
# SIGKILL another test's rank, and a `pgrep -g $g` "outlived" check could
# fail on a stranger. Sourcing exports a tag no other test shares; every
# process this test starts from now on inherits it (dpbo passes its
# environment on to command objectives, src/objectives/command.c; mpiexec
# to its local ranks), and the functions below act only on processes that
# carry it in /proc/PID/environ. A zombie has no environment: it is never
# "ours", which is right for both uses (it cannot be killed, it does not run).
# tests/proc_guard_test.sh checks that a stranger given a recorded pid survives.
DPBO_TEST_TAG=$$-$SRANDOM-$SRANDOM
export DPBO_TEST_TAG

# guard_ours PID: PID runs with this test's tag (started by this test).
guard_ours() {
  [[ $1 =~ ^[0-9]+$ ]] || return 1
  # Read first, then grep: `tr | grep -q` can die of SIGPIPE under pipefail.
  local environ
  environ=$(tr '\0' '\n' < "/proc/$1/environ" 2> /dev/null) || return 1
  grep -qxF "DPBO_TEST_TAG=$DPBO_TEST_TAG" <<< "$environ"
}
# guard_filter PID...: prints those of the PIDs that are ours, one a line.
guard_filter() {
  local p
  for p in "$@"; do guard_ours "$p" && echo "$p"; done
  return 0
}
# guard_kill SIGNAL PID...: sends SIGNAL (e.g. 9, TERM) to each PID that is ours.
guard_kill() {
  local sig=$1 p
  shift
  for p in $(guard_filter "$@"); do kill -"$sig" "$p" 2> /dev/null; done
  return 0
}
# guard_group PGID: this test's processes in process group PGID, one a line.
guard_group() {
  [[ $1 =~ ^[0-9]+$ ]] || return 0
  # shellcheck disable=SC2046 # a list of pids
  guard_filter $(pgrep -g "$1")
}
# guard_kill_group SIGNAL PGID: sends SIGNAL to this test's processes in PGID.
guard_kill_group() {
  # shellcheck disable=SC2046 # a list of pids
  guard_kill "$1" $(guard_group "$2")
}
