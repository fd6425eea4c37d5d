#!/usr/bin/env bash
# Issue #22, defect 1: the private-selection methods (random_search,
# liu_talwar, papernot_steinke) draw their candidates from the release noise,
# never from the public run.seed, and keep them in the run file for --resume.
#  - same run.seed, noise = seeded with noise_seed 11 and 12: the candidate
#    sequences (/trace/index) differ (before the fix they were the same
#    stream of run.seed); the same noise_seed again gives the same trace, and
#    /trace/candidates holds the K (or T) candidates the trace evaluated;
#  - same run.seed, noise = os, twice: random search's /trace/index differ
#    (they coincide by chance with probability 32^-6 < 1e-9);
#  - --resume after --stop-after evaluates exactly the stored candidates:
#    random search with OS noise (nothing could recompute them), liu_talwar
#    (seeded; its K is the stored list's length, so it resumes now) equal to
#    its uninterrupted run;
#  - a run file from before the fix (no /trace/candidates, trace from the
#    public stream): random search resumes on that stream with a warning,
#    liu_talwar is refused (its K was kept nowhere) and says why.
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/digits_logreg.sh"
digits_logreg_start
replay=${SELECTION_REPLAY:?}
cat > "$work/sel.ini" <<INI
[run]
iterations = 6
seed = 2015
[space]
kind = grid
dim.lambda = log 0.0001 1 32
$(digits_logreg_objective)
[privacy]
algorithm = random_search
epsilon = 1
delta = 1e-6
noise = seeded
noise_seed = 11
[output]
dir = $work/out
name = sel
INI

# run NAME NP [--set ...] [--stop-after K | --resume]: out/NAME.h5
run() {
  local name=$1 np=$2
  shift 2
  "$mpiexec" -n "$np" --oversubscribe "$bin" run "$work/sel.ini" --quiet \
    --set "output.name=$name" "$@" > "$work/$name.log" 2>&1
}
ok() { local name=$1; shift; run "$name" "$@" || { cat "$work/$name.log"; fail "$name exited $?"; }; }
# ds FILE DATASET: a dataset of a run file as one line
ds() { "$py" -c 'import h5py,sys; print(" ".join(str(int(x)) for x in h5py.File(sys.argv[1],"r")[sys.argv[2]][()]))' "$1" "$2"; }

for alg in random_search liu_talwar papernot_steinke; do
  ok "$alg-11" 2 --set "privacy.algorithm=$alg"
  ok "$alg-12" 2 --set "privacy.algorithm=$alg" --set privacy.noise_seed=12
  a=$(ds "$work/out/$alg-11.h5" trace/index) b=$(ds "$work/out/$alg-12.h5" trace/index)
  echo "$alg, run.seed 2015: noise_seed 11 -> $a; noise_seed 12 -> $b"
  "$py" - "$a" "$b" <<'PY' || fail "$alg: noise_seed 11 and 12 evaluate the same candidates (a prefix of one stream): they come from run.seed"
import sys
a, b = sys.argv[1].split(), sys.argv[2].split()
n = min(len(a), len(b))
sys.exit(a[:n] == b[:n])
PY
  [[ $(ds "$work/out/$alg-11.h5" trace/candidates) == "$a" ]] ||
    fail "$alg: /trace/candidates is not the evaluated sequence"
done
ok liu_talwar-11-again 1 --set privacy.algorithm=liu_talwar
[[ $(ds "$work/out/liu_talwar-11-again.h5" trace/index) == $(ds "$work/out/liu_talwar-11.h5" trace/index) ]] ||
  fail "liu_talwar: noise = seeded is not reproducible"

ok os-1 2 --set privacy.noise=os
ok os-2 2 --set privacy.noise=os
a=$(ds "$work/out/os-1.h5" trace/index) b=$(ds "$work/out/os-2.h5" trace/index)
echo "random_search, noise = os, run.seed 2015, twice: $a / $b"
[[ $a != "$b" ]] || fail "two runs with OS noise evaluated the same candidates"

# Resume: random search with OS noise.
run os-stop 1 --set privacy.noise=os --stop-after 2
[[ -e $work/out/os-stop.h5 ]] || { cat "$work/os-stop.log"; fail "--stop-after 2 left no checkpoint"; }
stored=$(ds "$work/out/os-stop.h5" trace/candidates)
cp "$work/out/os-stop.h5" "$work/os-stop-checkpoint.h5"
ok os-stop 2 --set privacy.noise=os --resume
[[ $(ds "$work/out/os-stop.h5" trace/index) == "$stored" ]] ||
  fail "random search: the resumed run evaluated $(ds "$work/out/os-stop.h5" trace/index), not the stored $stored"
# liu_talwar, seeded (noise_seed 3: K > 1), against its uninterrupted run.
lt=(--set privacy.algorithm=liu_talwar --set privacy.noise_seed=3)
run lt-stop 1 "${lt[@]}" --stop-after 1
[[ -e $work/out/lt-stop.h5 ]] || { cat "$work/lt-stop.log"; fail "liu_talwar: --stop-after 1 left no checkpoint"; }
stored=$(ds "$work/out/lt-stop.h5" trace/candidates)
cp "$work/out/lt-stop.h5" "$work/lt-stop-checkpoint.h5"
ok lt-stop 2 "${lt[@]}" --resume
ok lt-whole 2 "${lt[@]}"
[[ $(ds "$work/out/lt-stop.h5" trace/index) == "$stored" &&
   $(ds "$work/out/lt-whole.h5" trace/index) == "$stored" ]] ||
  fail "liu_talwar: resumed $(ds "$work/out/lt-stop.h5" trace/index), stored $stored, uninterrupted $(ds "$work/out/lt-whole.h5" trace/index)"
[[ -s $work/out/lt-stop.release.json ]] || fail "liu_talwar: the resumed run made no release"

# Run files from before the fix: no /trace/candidates, the trace from the
# public stream of run.seed.
legacy=$("$replay" --legacy-stream 2015 32 6) || fail "selection_replay --legacy-stream"
for name in os-stop lt-stop; do
  cp "$work/$name-checkpoint.h5" "$work/out/$name.h5"
  rm -f "$work/out/$name".release*
  "$py" - "$work/out/$name.h5" "$legacy" <<'PY' || fail "$name: cannot make the old run file"
import h5py, sys
with h5py.File(sys.argv[1], "r+") as f:
    del f["trace/candidates"]
    index = f["trace/index"][()]
    index[:] = [int(x) for x in sys.argv[2].split()][: len(index)]
    del f["trace/index"]
    f["trace/index"] = index
PY
done
ok os-stop 2 --set privacy.noise=os --resume
grep -q "stores no candidates" "$work/os-stop.log" || { cat "$work/os-stop.log"; fail "old random search file: no warning"; }
[[ $(ds "$work/out/os-stop.h5" trace/index) == "$legacy" ]] ||
  fail "old random search file: resumed $(ds "$work/out/os-stop.h5" trace/index), not its stream $legacy"
run lt-stop 2 "${lt[@]}" --resume
code=$?
[[ $code -eq 2 ]] && grep -q "cannot be continued" "$work/lt-stop.log" ||
  { cat "$work/lt-stop.log"; fail "old liu_talwar file: --resume should be refused (2), got $code"; }
echo "selection secret candidates: ok"
