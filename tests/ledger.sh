#!/usr/bin/env bash
# The ledger: one budget per validation set (issue #22 defect 3, issue #27
# item 8; docs/design.md, "The ledger"). One case per call:
#   ledger.sh overwrite    Algorithm 1, budget 1.5 0.1, epsilon 1: the run spends
#                          1; `dpbo run --overwrite` is refused before it
#                          evaluates anything (it spent 1 again before);
#                          a redraw at 0.4 fits (1.4), another does not
#   ledger.sh copy         a copy of the run file shares the budget: the copy's
#                          redraw to 1.8 > 1.5 is refused
#   ledger.sh rename       renaming the run file away and running again under
#                          the old name does not start a fresh budget
#   ledger.sh two_runs     two svm runs on one validation set, the second on a
#                          copy of the data file under another name: one key,
#                          one budget
#   ledger.sh concurrent   four releases from four copies started at once with
#                          room for two: exactly two succeed
#   ledger.sh tamper       an edited ledger line stops every release (exit 2,
#                          the line named); editing the run file's own ledger
#                          does not reset the budget and is said; an
#                          inconsistent release_epsilon_squared_sum is said
#   ledger.sh restore      an older copy of the run file restored and released
#                          again numbers its release after the ledger's count:
#                          release-2.json stays as published, and it is said
#   ledger.sh old_file     a run file written before the ledger file (its own
#                          ledger only) still releases, its spend is imported
#                          once, and a copy of it is imported again (safe)
#   ledger.sh resume_copy  a private_evaluations checkpoint copied under
#                          another output.name and resumed is charged again:
#                          with room for one run's budget it is refused
set -uo pipefail
case_name=$1
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
py=${DPBO_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
digits=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz

synthetic_config() { # name budget
  cat > "$work/$1.ini" <<INI
[run]
iterations = 6
seed = 9
[space]
kind = sobol
points = 64
dim.a = linear 0 1
dim.b = log 0.01 100
[gp]
kernel = matern52
lengthscale = 0.3
mean = 0
signal_std = 1
noise_std = 0.1
[objective]
kind = synthetic
function = gp_prior
noise_std = 0.1
[privacy]
algorithm = 1
epsilon = 1
delta = 0.01
budget = $2
noise = seeded
[output]
dir = $work
name = $1
INI
}

run() { "$mpiexec" -n 1 --oversubscribe "$bin" run "$@"; }
release() { "$mpiexec" -n 1 --oversubscribe "$bin" release "$@"; }
expect_refused() { # log what
  local code=$1 log=$2 what=$3
  [[ $code -eq 2 ]] || { cat "$log"; fail "$what: expected a refusal (exit 2), got exit $code"; }
  grep -q "privacy.budget" "$log" || { cat "$log"; fail "$what: the refusal does not name privacy.budget"; }
}

case $case_name in
overwrite)
  synthetic_config r "1.5 0.1"
  run "$work/r.ini" --quiet > "$work/1.log" 2>&1 || { cat "$work/1.log"; fail "the first run failed"; }
  run "$work/r.ini" --quiet --overwrite > "$work/2.log" 2>&1
  expect_refused $? "$work/2.log" "dpbo run --overwrite after spending 1 of 1.5"
  grep -q "remaining: epsilon = 0.5" "$work/2.log" || { cat "$work/2.log"; fail "the refusal does not state what remains"; }
  release "$work/r.h5" --set privacy.epsilon=0.4 > "$work/3.log" 2>&1 ||
    { cat "$work/3.log"; fail "a redraw at 0.4 (1.4 of 1.5) was refused"; }
  release "$work/r.h5" --set privacy.epsilon=0.4 > "$work/4.log" 2>&1
  expect_refused $? "$work/4.log" "a redraw to 1.8"
  ;;
copy)
  synthetic_config r "1.5 0.1"
  run "$work/r.ini" --quiet > "$work/1.log" 2>&1 || { cat "$work/1.log"; fail "the run failed"; }
  cp "$work/r.h5" "$work/c.h5"
  release "$work/r.h5" --set privacy.epsilon=0.4 > "$work/2.log" 2>&1 || { cat "$work/2.log"; fail "a redraw at 0.4 was refused"; }
  release "$work/c.h5" --set privacy.epsilon=0.4 > "$work/3.log" 2>&1
  expect_refused $? "$work/3.log" "a redraw from a copy to 1.8 of 1.5"
  [[ ! -e $work/c.release-3.h5 ]] || fail "the refused redraw wrote a release"
  "$bin" info "$work/c.h5" > "$work/info.txt" 2>&1 || { cat "$work/info.txt"; fail "dpbo info failed"; }
  grep -q "spent on it: 2 releases, epsilon = 1.4" "$work/info.txt" ||
    { cat "$work/info.txt"; fail "dpbo info does not show the validation set's totals"; }
  ;;
rename)
  synthetic_config r "1.5 0.1"
  run "$work/r.ini" --quiet > "$work/1.log" 2>&1 || { cat "$work/1.log"; fail "the run failed"; }
  mkdir "$work/aside"
  mv "$work/r.h5" "$work/old.h5"
  mv "$work"/r.release.* "$work/aside/"
  run "$work/r.ini" --quiet > "$work/2.log" 2>&1
  expect_refused $? "$work/2.log" "a run under the name of a renamed run file"
  release "$work/old.h5" --set privacy.epsilon=0.4 > "$work/3.log" 2>&1 ||
    { cat "$work/3.log"; fail "a redraw of the renamed file at 0.4 was refused"; }
  release "$work/old.h5" --set privacy.epsilon=0.4 > "$work/4.log" 2>&1
  expect_refused $? "$work/4.log" "a redraw of the renamed file to 1.8"
  ;;
two_runs)
  [[ -r $digits ]] || { echo "SKIP: $digits missing (python3-sklearn)"; exit 0; }
  cp "$digits" "$work/other-name.csv.gz"
  for name in a b; do
    data=$digits
    [[ $name == b ]] && data=$work/other-name.csv.gz
    cat > "$work/$name.ini" <<INI
[run]
iterations = 3
seed = 2015
[space]
kind = sobol
points = 32
dim.C = log 1e-2 1e4
dim.gamma = log 1e-5 1e1
[gp]
kernel = matern52
lengthscale = 0.2
mean = 0.5
signal_std = 0.25
noise_std = 0.01
[objective]
kind = svm
data = $data
format = csv
train_rows = 200
validation_rows = 150
split_seed = 7
[privacy]
algorithm = 1
epsilon = 1
delta = 0.01
budget = 1.5 0.1
noise = seeded
[output]
dir = $work
name = $name
INI
  done
  run "$work/a.ini" --quiet > "$work/a.log" 2>&1 || { cat "$work/a.log"; fail "run a failed"; }
  run "$work/b.ini" --quiet > "$work/b.log" 2>&1
  expect_refused $? "$work/b.log" "a second run on the same validation rows (a copy of the data)"
  # Another validation set (another split) has a budget of its own.
  run "$work/b.ini" --quiet --set objective.split_seed=8 > "$work/c.log" 2>&1 ||
    { cat "$work/c.log"; fail "a run on another validation set was refused"; }
  ;;
concurrent)
  synthetic_config r "3.5 0.1"
  run "$work/r.ini" --quiet > "$work/1.log" 2>&1 || { cat "$work/1.log"; fail "the run failed"; }
  for i in 1 2 3 4; do cp "$work/r.h5" "$work/c$i.h5"; done
  pids=()
  for i in 1 2 3 4; do
    release "$work/c$i.h5" > "$work/c$i.log" 2>&1 &
    pids+=($!)
  done
  ok=0 refused=0
  for i in 1 2 3 4; do
    wait "${pids[$((i - 1))]}"
    code=$?
    if [[ $code -eq 0 ]]; then
      ok=$((ok + 1))
    elif [[ $code -eq 2 ]] && grep -q "privacy.budget" "$work/c$i.log"; then
      refused=$((refused + 1))
    else
      cat "$work/c$i.log"
      fail "release $i exited $code"
    fi
  done
  [[ $ok -eq 2 && $refused -eq 2 ]] ||
    fail "4 concurrent releases of epsilon 1 with 2.5 of 3.5 left: $ok succeeded, $refused refused (expected 2 and 2)"
  [[ $(grep -c $'\tcharge\t' "$work/dpbo-ledger") -eq 3 ]] || { cat "$work/dpbo-ledger"; fail "the ledger should hold 3 charges"; }
  ;;
tamper)
  synthetic_config r "2.5 0.1"
  run "$work/r.ini" --quiet > "$work/1.log" 2>&1 || { cat "$work/1.log"; fail "the run failed"; }
  # The run file's own ledger edited to nothing spent: still 1 spent.
  "$py" - "$work/r.h5" <<'PY' || fail "h5py edit"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    f.attrs["releases_drawn"] = 0
    for k in ("release_epsilon_spent", "release_delta_spent", "release_epsilon_squared_sum",
              "release_epsilon_tanh_sum"):
        f.attrs[k] = 0.0
PY
  release "$work/r.h5" > "$work/2.log" 2>&1 || { cat "$work/2.log"; fail "a redraw to 2 of 2.5 was refused"; }
  grep -q "its own ledger counts 0 releases, but the ledger file" "$work/2.log" ||
    { cat "$work/2.log"; fail "the edited run file ledger was not said"; }
  release "$work/r.h5" > "$work/3.log" 2>&1
  expect_refused $? "$work/3.log" "a redraw to 3 of 2.5 after the run file's ledger was edited"
  # An inconsistent squared sum is said.
  "$py" - "$work/r.h5" <<'PY' || fail "h5py edit"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    f.attrs["release_epsilon_squared_sum"] = 100.0
PY
  release "$work/r.h5" --set privacy.epsilon=0.1 > "$work/4.log" 2>&1 || { cat "$work/4.log"; fail "a redraw at 0.1 was refused"; }
  grep -q "its own ledger is inconsistent" "$work/4.log" || { cat "$work/4.log"; fail "the inconsistent squared sum was not said"; }
  # An edited ledger line (its epsilon lowered) stops every release.
  cp "$work/dpbo-ledger" "$work/ledger.good"
  awk -F'\t' -v OFS='\t' 'NR == 1 { $10 = "0.1" } { print }' "$work/ledger.good" > "$work/dpbo-ledger"
  [[ $(cut -f10 "$work/dpbo-ledger" | head -1) == 0.1 ]] || fail "the test's edit of the ledger did not apply"
  release "$work/r.h5" --set privacy.epsilon=0.1 > "$work/5.log" 2>&1
  code=$?
  [[ $code -eq 2 ]] && grep -q "line 1: its checksum does not match" "$work/5.log" ||
    { cat "$work/5.log"; fail "an edited ledger line should stop the release (exit 2, line 1 named), got $code"; }
  # Reordered lines too.
  { sed -n 2p "$work/ledger.good"; sed -n 1p "$work/ledger.good"; sed -n '3,$p' "$work/ledger.good"; } > "$work/dpbo-ledger"
  release "$work/r.h5" --set privacy.epsilon=0.1 > "$work/6.log" 2>&1
  code=$?
  [[ $code -eq 2 ]] && grep -q "line 1: its checksum does not match" "$work/6.log" ||
    { cat "$work/6.log"; fail "reordered ledger lines should stop the release, got $code"; }
  ;;
restore)
  synthetic_config r "10 0.5"
  run "$work/r.ini" --quiet > "$work/1.log" 2>&1 || { cat "$work/1.log"; fail "the run failed"; }
  cp "$work/r.h5" "$work/backup.h5"
  release "$work/r.h5" > "$work/2.log" 2>&1 || { cat "$work/2.log"; fail "release 2 failed"; }
  [[ -e $work/r.release-2.json ]] || fail "no release-2.json"
  cp "$work/r.release-2.json" "$work/published.json"
  cp "$work/backup.h5" "$work/r.h5"
  release "$work/r.h5" > "$work/3.log" 2>&1 || { cat "$work/3.log"; fail "the release from the restored copy failed"; }
  cmp -s "$work/r.release-2.json" "$work/published.json" || fail "the published release-2.json was replaced"
  [[ -e $work/r.release-3.json ]] || { ls "$work"; fail "the release of the restored copy is not release-3"; }
  grep -q "restored from an older copy" "$work/3.log" || { cat "$work/3.log"; fail "the restored copy was not said"; }
  ;;
old_file)
  synthetic_config r "3.5 0.1"
  run "$work/r.ini" --quiet > "$work/1.log" 2>&1 || { cat "$work/1.log"; fail "the run failed"; }
  release "$work/r.h5" > "$work/2.log" 2>&1 || { cat "$work/2.log"; fail "release 2 failed"; }
  # As a dpbo before the ledger file wrote it: its own ledger (2 releases,
  # epsilon 2), no mark, no ledger file.
  "$py" - "$work/r.h5" <<'PY' || fail "h5py edit"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as f:
    for k in ("ledger_file", "ledger_runfile", "ledger_synced_draws", "ledger_synced_epsilon",
              "ledger_synced_delta"):
        if k in f.attrs:
            del f.attrs[k]
    assert f.attrs["releases_drawn"] == 2
PY
  rm -f "$work/dpbo-ledger"
  cp "$work/r.h5" "$work/copy.h5"
  release "$work/r.h5" > "$work/3.log" 2>&1 || { cat "$work/3.log"; fail "an old run file (2 of 3.5 spent) did not release"; }
  grep -q $'\timport\t' "$work/dpbo-ledger" || { cat "$work/dpbo-ledger"; fail "no import event"; }
  grep -q "3 releases, epsilon = 3," "$work/3.log" || { cat "$work/3.log"; fail "the import was not counted (3 releases, epsilon 3)"; }
  release "$work/r.h5" --set privacy.epsilon=0.4 > "$work/4.log" 2>&1 ||
    { cat "$work/4.log"; fail "a redraw at 0.4 (3.4 of 3.5) was refused: imported twice?"; }
  [[ $(grep -c $'\timport\t' "$work/dpbo-ledger") -eq 1 ]] || fail "the run file was imported twice"
  release "$work/copy.h5" --set privacy.epsilon=0.1 > "$work/5.log" 2>&1
  expect_refused $? "$work/5.log" "a copy of the old run file (imported again: 5.5 > 3.5)"
  ;;
resume_copy)
  [[ -r $digits ]] || { echo "SKIP: $digits missing (python3-sklearn)"; exit 0; }
  cat > "$work/p.ini" <<INI
[run]
iterations = 6
seed = 2015
[space]
kind = sobol
points = 64
dim.C = log 1e-2 1e4
dim.gamma = log 1e-5 1e1
[gp]
kernel = matern52
lengthscale = 0.2
mean = 0.5
signal_std = 0.25
noise_std = 0.01
[objective]
kind = svm
data = $digits
format = csv
train_rows = 200
validation_rows = 150
split_seed = 7
[privacy]
algorithm = private_evaluations
epsilon = 1
delta = 1e-6
budget = 1.5 1e-5
noise = seeded
[output]
dir = $work
name = p
INI
  run "$work/p.ini" --quiet --stop-after 2 > "$work/1.log" 2>&1
  [[ $? -eq 4 ]] || { cat "$work/1.log"; fail "--stop-after 2 should stop the run (exit 4)"; }
  cp "$work/p.h5" "$work/q.h5"
  run "$work/p.ini" --quiet --resume --set output.name=q > "$work/2.log" 2>&1
  expect_refused $? "$work/2.log" "a copied private_evaluations checkpoint resumed under another name"
  grep -q "holds no charge of .*q.h5 at this path" "$work/2.log" || { cat "$work/2.log"; fail "the copy was not said"; }
  # The original resumes at its own path without a second charge.
  run "$work/p.ini" --quiet --resume > "$work/3.log" 2>&1 || { cat "$work/3.log"; fail "the original did not resume"; }
  [[ $(grep -c $'\tcharge\t' "$work/dpbo-ledger") -eq 1 ]] || { cat "$work/dpbo-ledger"; fail "the resume charged again"; }
  ;;
*)
  fail "unknown case $case_name"
  ;;
esac
echo "ok: ledger $case_name"
