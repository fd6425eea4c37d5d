#!/usr/bin/env bash
# One case per exit code that `dpbo --help`, the README and jobs/README.md
# document; each asserts the code AND the message, deterministically (no
# timing: faults come from the objective itself or from a shim).
#
#   code  case               what happens                                     also covered by
#   0     success            a minimal run completes: "best validation gain"   demo_smoke.sh
#   1     run_ended_early    the first checkpoint cannot be published (rename
#                            fails once with EIO, rename_fault_shim.c): "the
#                            run stopped after 1 of 4 evaluations", the run
#                            file holds that step, --resume finishes it
#   1     audit_fails        dpbo audit --broken (seeded): "FAIL (lower bound  test_pipeline_audit.sh
#                            exceeds the claim)"
#   2     bad_input          a misspelt key: "unknown key 'iteratons' in       bad_input.sh (config,
#                            [run]; did you mean 'iterations'?"                data, usage), release_budget.sh
#                                                                              (past privacy.budget),
#                                                                              run_resume.sh (run file in use
#                                                                              or finished)
#   2     mostly_failed      2 of 3 evaluations fail (failures public): "2 of
#                            the 3 evaluations failed (more than half)", no
#                            release, at the run's end and from `dpbo release`
#   3     all_failed         every evaluation fails: "all 3 evaluations        cli_usage.sh
#                            failed; no release was made"
#   3     output_unwritable  no rename into the output folder succeeds: one    disk_full.sh (a full disk)
#                            message "cannot rename ... Input/output error"
#                            (exit 2 before: an output fault is no bad input)
#   4     signal             the objective sends SIGUSR1 to dpbo in its 2nd    run_resume.sh (SIGUSR1,
#                            evaluation: "stopped after 1 of 4 evaluations",   --stop-after), test_slurm.sh
#                            "continue with: dpbo run ... --resume"
#
#   exit_codes.sh RENAME_FAULT_SHIM.so
set -uo pipefail
shim=${1:?usage: exit_codes.sh RENAME_FAULT_SHIM.so}
bin=${DPBO_BIN:?}
py=${DPBO_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failed=0
# expect CASE CODE TEXT: the last command's exit code was CODE and its
# output (out.txt) holds TEXT.
expect() {
  local name=$1 want=$2 text=$3
  if [[ $code -ne $want ]]; then
    echo "FAIL: $name: exit code $code, expected $want"; cat out.txt; failed=1
  elif ! grep -qF -- "$text" out.txt; then
    echo "FAIL: $name: no '$text' in the output"; cat out.txt; failed=1
  else
    echo "ok: $name: exit $code, '$text'"
  fi
}
# config NAME [OBJECTIVE LINES...]: a 4-step config writing to out/NAME.h5.
config() {
  local name=$1
  shift
  { printf '[run]\niterations = 4\nretries = 0\n[space]\npoints = 16\ndim.a = linear 0 1\n'
    printf '[gp]\nnoise_std = 0.1\n[objective]\n'
    printf '%s\n' "$@"
    printf '[output]\ndir = %s/out\nname = %s\n' "$work" "$name"; } > "$name.ini"
}
mkdir -p out
synthetic=("kind = synthetic" "function = gp_prior")

# 0
config ok "${synthetic[@]}"
"$bin" run ok.ini > out.txt 2>&1; code=$?
expect success 0 "best validation gain"

# 1: a checkpoint that cannot be published stops the run; the final write
# then succeeds, so the run file holds the step done.
config early "${synthetic[@]}"
DPBO_RENAME_FAULT_DIR="$work/out" DPBO_RENAME_FAULT_COUNT=1 LD_PRELOAD="$shim" \
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
  "$bin" run early.ini > out.txt 2>&1; code=$?
expect run_ended_early 1 "the run stopped after 1 of 4 evaluations: cannot write the checkpoint"
grep -qF "the evaluations done are in the run file" out.txt \
  || { echo "FAIL: run_ended_early: no word of the run file"; failed=1; }
"$py" - "$work/out/early.h5" <<'PY' || { echo "FAIL: run_ended_early: the run file is not the partial run"; failed=1; }
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    assert int(f.attrs["complete"]) == 0 and len(f["trace/gain"]) == 1, (f.attrs["complete"], len(f["trace/gain"]))
PY
"$bin" run early.ini --resume > resume.txt 2>&1 || { echo "FAIL: run_ended_early: --resume exited $?"; cat resume.txt; failed=1; }
[[ -z $(find out -mindepth 1 -name '.*tmp*') ]] || { echo "FAIL: a temporary file was left in out/"; failed=1; }

# 1: the audit finds a loss above the claim (seeded).
"$bin" audit --mechanism laplace --broken --trials 100000 > out.txt 2>&1; code=$?
expect audit_fails 1 "FAIL (lower bound exceeds the claim)"

# 2
config typo "${synthetic[@]}"
sed -i 's/^iterations/iteratons/' typo.ini
"$bin" run typo.ini > out.txt 2>&1; code=$?
expect bad_input 2 "typo.ini:2: unknown key 'iteratons' in [run]; did you mean 'iterations'?"

# 3: every evaluation fails.
printf '#!/bin/sh\necho "cannot load model" >&2\nexit 1\n' > broken.sh
chmod +x broken.sh
config allfail "kind = command" "command = $work/broken.sh" "pass = args"
sed -i 's/^iterations = 4/iterations = 3/' allfail.ini
"$bin" run allfail.ini > out.txt 2>&1; code=$?
expect all_failed 3 "all 3 evaluations failed; no release was made"

# 3: most evaluations fail (issue: a space the objective mostly refuses made
# a "successful" release of a failure). The program fails its first two
# calls, then answers; the failures are declared public, so only the
# more-than-half rule stops the release, at the run's end and in a later
# `dpbo release` (exit 2: the space or the program is the bad input).
cat > flaky.sh <<SH
#!/bin/sh
n=\$(cat $work/calls 2>/dev/null || echo 0); echo \$((n + 1)) > $work/calls
[ "\$n" -ge 2 ] && { echo 0.5; exit 0; }
echo "cannot load model" >&2
exit 1
SH
chmod +x flaky.sh
config mostfail "kind = command" "command = $work/flaky.sh" "pass = args" "value_range = 0 1"
sed -i 's/^iterations = 4/iterations = 3/' mostfail.ini
printf '[privacy]\nalgorithm = 1\nfailures_public = yes\n' >> mostfail.ini
"$bin" run mostfail.ini > out.txt 2>&1; code=$?
expect mostly_failed 2 "2 of the 3 evaluations failed (more than half)"
"$bin" release out/mostfail.h5 > out.txt 2>&1; code=$?
expect mostly_failed_release 2 "2 of the 3 evaluations failed (more than half)"
[[ -z $(find out -name 'mostfail.release*' -print -quit) ]] || { echo "FAIL: mostly_failed: a release file was written"; failed=1; }

# 3: the run file cannot be written at all (every rename fails).
config unwritable "${synthetic[@]}"
DPBO_RENAME_FAULT_DIR="$work/out" DPBO_RENAME_FAULT_COUNT=all LD_PRELOAD="$shim" \
  ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
  "$bin" run unwritable.ini > out.txt 2>&1; code=$?
expect output_unwritable 3 "Input/output error"
grep -q "cannot rename" out.txt || { echo "FAIL: output_unwritable: the message does not say what failed"; failed=1; }

# 4: SIGUSR1 from the objective itself, during its second evaluation, which
# then waits to be killed (its result never arrives, so the stop is seen
# after exactly one evaluation).
cat > stopper.sh <<'SH'
#!/bin/sh
n=$(($(cat count 2>/dev/null || echo 0) + 1))
echo $n > count
if [ $n -eq 2 ]; then kill -USR1 $PPID; exec sleep 60; fi
echo 0.5
SH
chmod +x stopper.sh
config stopped "kind = command" "command = $work/stopper.sh" "pass = args"
"$bin" run stopped.ini > out.txt 2>&1; code=$?
expect signal 4 "stopped after 1 of 4 evaluations"
grep -qF "continue with: dpbo run stopped.ini --resume" out.txt \
  || { echo "FAIL: signal: no --resume hint"; failed=1; }

exit $failed
