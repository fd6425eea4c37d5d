#!/usr/bin/env bash
# tests/proc_guard.sh: a cleanup that kills recorded pids and process groups
# spares a process that was given a recorded pid or pgid after this test's
# own process ended (pid reuse under `ctest -j2`, simulated: the stranger's
# pid is written into the record). This test's own processes are killed, and
# the "outlived" check (guard_group) sees this test's processes only.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/proc_guard.sh"
work=$(mktemp -d)
cleanup() { rm -rf "$work"; } # the strangers end themselves: no kill by pid here
trap cleanup EXIT
bad=0
fail() { echo "FAIL: $*"; exit 1; }
check() { echo "FAIL: $*"; bad=1; } # every failed check is shown
running() { [[ -r /proc/$1/stat ]] && [[ $(sed 's/.*) //' "/proc/$1/stat" | cut -c1) != Z ]]; }
wait_file() { for _ in $(seq 1 100); do [[ -s $1 ]] && return 0; sleep 0.02; done; fail "no $1"; }
# start FILE [setsid]: a process that records its pid (its pgid with setsid)
# in FILE and runs until $work is removed.
start() {
  ${2:-} sh -c 'echo $$ > "$1"; while [ -d "$2" ]; do sleep 0.1; done' sh "$1" "$work" &
  disown # no "Killed" notice from bash
  wait_file "$1"
}

# This test's process records its pid, then ends.
sh -c 'echo $$ > "$1"' sh "$work/bg-1"
# A stranger (another test's process, its own tag) is given that pid: the
# record now names it. Likewise a stranger's process group in a record of
# "pid ppid pgid" (tests/persistent_model.py's starts).
DPBO_TEST_TAG=another-test start "$work/stranger"
cp "$work/stranger" "$work/bg-1"
DPBO_TEST_TAG=another-test start "$work/stranger-group" setsid
echo "1 1 $(cat "$work/stranger-group")" > "$work/starts"
# This test's own live process and process group, recorded the same way.
start "$work/bg-2"
start "$work/own-group" setsid
echo "1 1 $(cat "$work/own-group")" >> "$work/starts"

stranger=$(cat "$work/stranger") stranger_group=$(cat "$work/stranger-group")
own=$(cat "$work/bg-2") own_group=$(cat "$work/own-group")
# The "outlived" check of a recorded group: the stranger's group is not ours.
[[ -z $(guard_group "$stranger_group") ]] ||
  check "guard_group $stranger_group (another test's group) lists $(guard_group "$stranger_group" | tr '\n' ' ')"
[[ -n $(guard_group "$own_group") ]] || check "guard_group $own_group does not list this test's own group"
# The cleanup, as the tests do it.
# shellcheck disable=SC2046 # lists of pids
guard_kill 9 $(cat "$work"/bg-*)
while read -r _ _ g; do guard_kill_group 9 "$g"; done < "$work/starts"

for _ in $(seq 1 100); do running "$own" || running "$own_group" || break; sleep 0.02; done
running "$stranger" || check "the cleanup killed pid $stranger, another test's process given a recorded pid"
running "$stranger_group" || check "the cleanup killed process group $stranger_group, another test's"
! running "$own" || check "the cleanup left this test's process $own running"
! running "$own_group" || check "the cleanup left this test's process group $own_group running"
[[ $bad -eq 0 ]] || exit 1
echo "PASS: the stranger $stranger and group $stranger_group survive; own $own and group $own_group killed"
