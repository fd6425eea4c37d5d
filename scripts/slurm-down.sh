#!/usr/bin/env bash
# Stops the one-node test cluster of scripts/slurm-up.sh: cancels its jobs,
# then stops slurmd, slurmctld and munged (in that order), each by the pid in
# its pid file under DPBO_SLURM_DIR (default /tmp/dpbo-slurm). Idempotent:
# daemons that do not run are skipped. The state directory (configuration,
# logs, munge key) stays; `--purge` removes it as well.
set -euo pipefail
dir=${DPBO_SLURM_DIR:-/tmp/dpbo-slurm}
purge=0
[[ ${1:-} == --purge ]] && purge=1
say() { echo "slurm-down: $*" >&2; }

running() {
  local pid
  pid=$(cat "$dir/run/$1.pid" 2>/dev/null) || return 1
  [[ -n $pid && $(cat "/proc/$pid/comm" 2>/dev/null) == "$1" ]]
}

if running slurmctld; then
  # Jobs of this cluster only (its own SLURM_CONF); their steps would
  # otherwise outlive slurmd.
  SLURM_CONF=$dir/slurm.conf scancel --full --quiet --state=RUNNING 2>/dev/null || true
  SLURM_CONF=$dir/slurm.conf scancel --quiet 2>/dev/null || true
fi
for daemon in slurmd slurmctld munged; do
  running "$daemon" || continue
  pid=$(cat "$dir/run/$daemon.pid")
  kill -TERM "$pid"
  for _ in $(seq 100); do
    [[ -d /proc/$pid ]] || break
    sleep 0.1
  done
  if [[ -d /proc/$pid ]]; then
    say "$daemon (pid $pid) still runs 10 s after SIGTERM; sending SIGKILL"
    kill -KILL "$pid" 2>/dev/null || true
  fi
  rm -f "$dir/run/$daemon.pid"
  say "stopped $daemon (pid $pid)"
done
if [[ $purge -eq 1 && -d $dir ]]; then
  rm -rf "$dir"
  say "removed $dir"
fi
