#!/usr/bin/env bash
# dpbo audit --pipeline of the GP-guided selection (issue #26) on
# configs/audit-guided-small.ini (or the config named by the first argument:
# audit-guided-random-search-small.ini, stage 2 by random search), as
# selection_run.sh audits the other selection methods: every candidate
# evaluated on V and V', then 20,000 whole releases a side (stage 1's
# privatized GP-UCB evaluation, the law pi, a fresh secret K or the T - T1
# candidates, stage 2's candidates and noise). The real release passes (exit
# 0); one claiming 1% of its sensitivity fails (exit 1, a failing v~ row).
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
src=${DPBO_SOURCE_DIR:?}
config=${1:-audit-guided-small.ini}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
data=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
[[ -r $data ]] || { echo "skipping: $data is missing"; exit 77; }
cd "$work"
for factor in 1 0.01; do
  "$mpiexec" -n 2 --oversubscribe "$bin" audit --pipeline "$src/configs/$config" \
    --sensitivity-factor $factor > "audit-$factor.log" 2>&1
  code=$?
  cat "audit-$factor.log"
  want=$([[ $factor == 1 ]] && echo 0 || echo 1)
  [[ $code -eq $want ]] || fail "audit --pipeline --sensitivity-factor $factor exited $code, expected $want"
  grep -q "guided\$" "audit-$factor.log" || fail "the audit does not name the algorithm"
done
grep -Eq '^v~ .*FAIL' audit-0.01.log || fail "no failing v~ row at factor 0.01"
# Nothing was charged or written: the audit is no release.
[[ -z $(find "$work" -name 'dpbo-ledger*' -print -quit) ]] || fail "the audit wrote a ledger"
echo "guided audit ($config): ok"
