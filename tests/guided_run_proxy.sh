#!/usr/bin/env bash
# Issue #26: `dpbo run` of privacy.algorithm = guided with stage 1 on the
# proxy task (privacy.guided_proxy_rows = 100) on logreg on digits (32
# candidates, T = 12, T1 = 4 proxy steps, 300 training and 100 validation
# rows), stage 2 by private random search over T2 = T = 12 candidates,
# through the driver on 2 ranks:
#  - stage 1 reads no validation record: its trace (/guided stage1_index,
#    stage1_value) is the same with another validation set (50 rows
#    instead of 100), and it is the trace of a plain GP-UCB run
#    (privacy.algorithm = none) of the proxy split itself (train_rows =
#    200, validation_rows = 100: the last 100 training rows scored);
#  - the release states (epsilon_total, delta_total) = stage 2's (1, 0)
#    alone, a guarantee that names the proxy task, and no stage-1 values in
#    either release file; the ledger is charged (1, 0) once, mechanism
#    proxy+random_search;
#  - privacy.delta = 0 is accepted (the release is pure) and refused for a
#    privatized stage 1; a K that leaves fewer than two training rows is
#    refused at the key, before anything is charged or written.
source "$(dirname "${BASH_SOURCE[0]}")/guided_fixture.sh"
guided_fixture_start random_search "guided_proxy_rows = 100"

ok g
ok g-v50 --set objective.validation_rows=50
# The proxy split as a plain run: the same GP, T = T1 = 4 steps, no release.
sed -e '/^guided_/d' -e 's/^algorithm = guided/algorithm = none/' -e '/^epsilon = /d' \
  -e '/^delta = /d' -e '/^noise/d' -e 's/^train_rows = 300/train_rows = 200/' \
  -e 's/^iterations = 12/iterations = 4/' -e 's/^name = g/name = plain/' "$work/g.ini" > "$work/plain.ini"
"$mpiexec" -n 2 --oversubscribe "$bin" run "$work/plain.ini" --quiet > "$work/plain.log" 2>&1 ||
  { cat "$work/plain.log"; fail "the plain run of the proxy split failed"; }
"$py" - "$work/out" <<'PY' || fail "stage 1, the release or the run file"
import h5py, json, sys
import numpy as np
out = sys.argv[1]
f, v50, plain = (h5py.File(f"{out}/{n}.h5", "r") for n in ("g", "g-v50", "plain"))
r = json.load(open(f"{out}/g.release.json"))
rh = h5py.File(f"{out}/g.release.h5", "r")
g = f["guided"].attrs
assert int(g["stage1_proxy_rows"]) == 100 and int(g["stage1_evaluations"]) == 4
idx, val = f["guided/stage1_index"][()], f["guided/stage1_value"][()]
print("stage 1 on the proxy task:", list(idx), list(np.round(val, 6)))
# Another validation set: the same stage 1, bit for bit.
assert np.array_equal(idx, v50["guided/stage1_index"][()]) and np.array_equal(val, v50["guided/stage1_value"][()])
# The plain run of the proxy split: the same trace.
assert np.array_equal(idx, plain["trace/index"][()]), (idx, plain["trace/index"][()])
assert np.array_equal(val, plain["trace/gain"][()]), (val, plain["trace/gain"][()])
# Stage 2: all T = 12 candidates; the whole budget, pure.
assert int(g["stage2_expected_runs"]) == 12 and len(f["trace/candidates"][()]) == 12
assert float(g["stage1_epsilon"]) == 0.0 and float(g["stage1_delta"]) == 0.0
assert r["algorithm"] == "guided" and r["delta_total"] == 0.0, r["delta_total"]
assert r["epsilon_total"] == float(g["stage2_epsilon_accounted"]) and 0.99 < r["epsilon_total"] <= 1.0
assert "proxy task" in r["guarantee"] and "(%.6g, 0)-DP" % r["epsilon_total"] in r["guarantee"], r["guarantee"]
assert "stage 1 ran on the proxy task" in r["calibration"], r["calibration"]
assert "stage1_privatized_evaluations" not in r and "stage1_privatized_evaluations" not in rh
assert r["terms"]["stage1_epsilon"] == 0 and r["terms"]["stage1_sigma"] == 0
print("release: (%r, %r); no stage-1 value in either file" % (r["epsilon_total"], r["delta_total"]))
PY
[[ $(charges "$work/out/g.h5" | wc -l) == 1 ]] || fail "g.h5 is not charged once"
read -r alg leps ldelta <<<"$(charges "$work/out/g.h5")"
[[ $alg == guided && $ldelta == 0 ]] || fail "the ledger charged $alg ($leps, $ldelta)"
line=$(awk -F'\t' -v f="$work/out/g.h5" '$4 == "charge" && $14 == f' "$work/out/dpbo-ledger")
grep -q "proxy+random_search" <<<"$line" && grep -q "proxy_rows=100" <<<"$line" ||
  fail "the ledger's charge does not name the proxy task: $line"
echo "ledger: one charge, $alg ($leps, $ldelta)"
# Pure, so privacy.delta = 0 is accepted with random search (and refused
# with a privatized stage 1, whose Gaussian mechanism needs a delta).
ok g0 --set privacy.delta=0
"$py" -c 'import json,sys; r=json.load(open(sys.argv[1])); sys.exit(not (r["delta_total"] == 0 and 0.99 < r["epsilon_total"] <= 1))' \
  "$work/out/g0.release.json" || fail "the release at delta = 0 is not (1, 0)"
run d0 --set privacy.delta=0 --set privacy.guided_proxy_rows=0
code=$?
[[ $code == 2 ]] && grep -q "privacy.delta must lie in (0, 1): stage 1's discrete Gaussian" "$work/d0.log" ||
  { cat "$work/d0.log"; fail "a privatized stage 1 at delta = 0 exited $code"; }
# K that leaves fewer than two rows to train on: refused at the key, nothing
# charged or written.
run big --set privacy.guided_proxy_rows=299
code=$?
[[ $code == 2 ]] && grep -q "privacy.guided_proxy_rows = 299 must lie between 1 and objective.train_rows - 2 = 298" "$work/big.log" ||
  { cat "$work/big.log"; fail "guided_proxy_rows = 299 exited $code"; }
[[ ! -e $work/out/big.h5 && $(charges "$work/out/big.h5" | wc -l) == 0 ]] || fail "the refused run wrote or charged"
echo "PASS"
