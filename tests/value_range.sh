#!/usr/bin/env bash
# One value range, objective.value_range (issue #23, 3): Algorithm 1 on a
# command objective released v~ = 17.18 for an accuracy because the range
# the command was checked against and the one the release was clamped to
# were different keys.
#  - a command objective with a private algorithm and no range is refused
#    before anything is evaluated (the program never runs, no run file, no
#    ledger), with one error naming objective.value_range; algorithm = none
#    needs none;
#  - with objective.value_range = 0 1 every released v~ (the run's and five
#    redraws, Laplace scale 12.65) lies in [0, 1];
#  - privacy.value_range, the old name, alone is taken as the range (and a
#    run file that stores it releases within it); with objective.value_range
#    saying otherwise it is refused with "use objective.value_range".
set -uo pipefail
bin=${DPBO_BIN:?}
python=${DPBO_PYTHON:-}
[[ -n $python ]] || { [[ -x /usr/bin/python3 ]] && python=/usr/bin/python3 || python=python3; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# An accuracy in [0.4, 0.9]; each evaluation leaves a mark.
cat > "$work/obj.sh" <<'SH'
#!/bin/sh
a=${1#a=}
: > "$DPBO_VR_MARK"
awk -v a="$a" 'BEGIN { printf "accuracy: %.17g\n", 0.9 - 0.5 * (a - 0.3)^2 }'
SH
chmod +x "$work/obj.sh"
export DPBO_VR_MARK=$work/evaluated
cat > "$work/run.ini" <<INI
[run]
iterations = 4
seed = 3
[space]
kind = grid
dim.a = linear 0 1 11
[gp]
kernel = matern52
lengthscale = 0.3
mean = 0.5
signal_std = 0.25
noise_std = 0.01
[objective]
kind = command
command = $work/obj.sh
[privacy]
algorithm = 1
epsilon = 0.5
delta = 0.1
noise = seeded
noise_seed = 7
[output]
dir = $work/out
INI

# run NAME [--set ...]: dpbo run on one rank, output out/NAME.*
run() {
  local name=$1
  shift
  rm -f "$DPBO_VR_MARK"
  "$bin" run "$work/run.ini" --set "output.name=$name" "$@" > "$work/$name.log" 2>&1
}
# within NAME JSON LO HI: v~ of the release out/JSON lies in [LO, HI]
within() {
  local v
  v=$("$python" -c 'import json, sys; print(repr(json.load(open(sys.argv[1]))["value"]))' \
    "$work/out/$2") || { cat "$work/$1.log"; fail "$1: no release $2"; }
  "$python" -c 'import sys; v, lo, hi = map(float, sys.argv[1:]); sys.exit(not lo <= v <= hi)' \
    "$v" "$3" "$4" || { cat "$work/$1.log"; fail "$1: v~ = $v outside [$3, $4] ($2)"; }
  echo "$1: v~ = $v in [$3, $4] ($2)"
}

# No range: refused before the first evaluation.
run norange
code=$?
[[ $code -eq 2 ]] || { cat "$work/norange.log"; fail "no range: exit $code, expected 2 (refused)"; }
grep -q "run.ini: objective.value_range is required with objective.kind = command" "$work/norange.log" ||
  { cat "$work/norange.log"; fail "no range: the error does not name objective.value_range"; }
[[ $(grep -c "error" "$work/norange.log") -eq 1 ]] || { cat "$work/norange.log"; fail "no range: not one error"; }
[[ ! -e $DPBO_VR_MARK && ! -e $work/out ]] ||
  fail "no range: the command ran or output was written before the refusal"
echo "no range: refused before evaluating ($(cat "$work/norange.log"))"
run nonprivate --set privacy.algorithm=none || { cat "$work/nonprivate.log"; fail "algorithm = none without a range failed"; }

# objective.value_range = 0 1: the run's release and five redraws.
run ranged --set "objective.value_range=0 1" || { cat "$work/ranged.log"; fail "objective.value_range = 0 1: run failed"; }
[[ -e $DPBO_VR_MARK ]] || fail "ranged: the command never ran"
within ranged ranged.release.json 0 1
for seed in 1 2 3 4 5; do
  "$bin" release "$work/out/ranged.h5" --set "privacy.noise_seed=$seed" > "$work/redraw.log" 2>&1 ||
    { cat "$work/redraw.log"; fail "redraw $seed failed"; }
  within redraw "ranged.release-$((seed + 1)).json" 0 1
done

# The old name alone: the range; a run file storing it releases within it.
run old --set "privacy.value_range=0 1" || { cat "$work/old.log"; fail "privacy.value_range = 0 1: run failed"; }
within old old.release.json 0 1
"$bin" release "$work/out/old.h5" --set privacy.noise_seed=11 > "$work/old.log" 2>&1 ||
  { cat "$work/old.log"; fail "the run file storing privacy.value_range does not release"; }
within old old.release-2.json 0 1
# Both, agreeing: accepted; disagreeing: refused, naming the new key.
run both --set "privacy.value_range=0 1" --set "objective.value_range=0 1" ||
  { cat "$work/both.log"; fail "the same range under both names was refused"; }
within both both.release.json 0 1
run clash --set "privacy.value_range=0 2" --set "objective.value_range=0 1"
code=$?
[[ $code -eq 2 ]] && grep -q "privacy.value_range is the old name of objective.value_range.*use objective.value_range" "$work/clash.log" ||
  { cat "$work/clash.log"; fail "two different ranges: exit $code, expected 2 with 'use objective.value_range'"; }
[[ ! -e $DPBO_VR_MARK ]] || fail "clash: the command ran before the refusal"
echo "value range: ok"
