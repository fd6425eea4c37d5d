#!/usr/bin/env bash
# The private-selection methods as `dpbo run` algorithms (issue #13 item 2).
# For random_search, liu_talwar and papernot_steinke on a small seeded logreg
# run, on 1 and 2 ranks (random search also on 3, oversubscribed):
#  - the run makes a release: both release files exist, hold the config's T
#    (the candidates, or E[K]) and no key for K or the runs made, no raw gain
#    of the trace, and the ledger counts one draw (run file and release);
#  - the release is the same on every number of ranks, and equals the one
#    selection_replay recomputes from the run file through run/selection.h
#    (the functions dpbo run calls), from the documented seeded streams: the
#    candidates' and K's (never run.seed), the release's stream 0;
#  - dpbo release redraws random search (ledger: 2 draws) and refuses a
#    changed split; it refuses the stopping methods (exit 2, the reason);
#  - dpbo utility reports on random search and on the stopping methods (their
#    figures are checked in selection_utility.sh);
#  - (--resume and the secret candidates: selection_secret.sh);
#  - dpbo audit --pipeline on configs/audit-*-small.ini passes, and fails
#    (exit 1) with --sensitivity-factor 0.01.
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
[gp]
kernel = matern52
lengthscale = 0.3
mean = -0.3
signal_std = 0.2
noise_std = 0.005
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

# run ALG NP [EXTRA mpiexec options]: the run file out/ALG-npNP.h5
run() {
  local alg=$1 np=$2
  shift 2
  "$mpiexec" -n "$np" "$@" "$bin" run "$work/sel.ini" --quiet --set "privacy.algorithm=$alg" \
    --set "output.name=$alg-np$np" --set "privacy.ledger=$work/$alg-np$np.ledger" \
    > "$work/$alg-np$np.log" 2>&1 ||
    { code=$?; cat "$work/$alg-np$np.log"; fail "$alg on $np ranks exited $code"; }
}

# check_release NAME: the release files hold T, no K, no raw gain; one draw.
check_release() {
  local name=$1
  [[ -s $work/out/$name.release.h5 && -s $work/out/$name.release.json ]] ||
    fail "$name: no release files"
  "$py" - "$work/out/$name.h5" "$work/out/$name.release.h5" "$work/out/$name.release.json" <<'PY' ||
import h5py, json, sys
run, rh5, rjs = sys.argv[1:]
with h5py.File(run, "r") as f:
    gains = [float(g) for g in f["trace/gain"][()]]
    steps = len(gains)
    drawn = int(f.attrs["releases_drawn"])
js = json.load(open(rjs))
with h5py.File(rh5, "r") as f:
    attrs = {k: f.attrs[k] for k in f.attrs}
bad = []
if drawn != 1: bad.append(f"the run file's ledger counts {drawn} draws")
if js["ledger"]["draws"] != 1: bad.append("the release's ledger is not 1 draw")
if js["T"] != 6 or int(attrs["T"]) != 6: bad.append(f"T is {js['T']}, not the config's 6")
# No field names the runs made.
def keys(o, p=""):
    if isinstance(o, dict):
        for k, v in o.items():
            yield p + k
            yield from keys(v, p + k + ".")
for k in list(keys(js)) + list(attrs):
    leaf = k.split(".")[-1].lower()
    if leaf in ("k", "runs", "evaluations", "steps", "runs_made") or "evaluated" in leaf:
        bad.append(f"field {k} names the runs made")
# No raw gain anywhere (17 digits round-trip a double).
text = open(rjs).read() + " ".join(repr(v) for v in attrs.values())
for g in set(gains):
    for form in ("%.17g" % g, repr(g)):
        if form in text: bad.append(f"the raw gain {form} appears in the release")
if js["value"] in gains: bad.append("the released value is a raw gain")
if bad:
    print("\n".join(bad)); sys.exit(1)
PY
    fail "$name: the release files"
}

# released NAME: the release as "lambda value epsilon_total"
released() {
  "$py" -c 'import json,sys; j=json.load(open(sys.argv[1])); print("%.17g %.17g %.17g" % (j["lambda"]["lambda"], j["value"], j["epsilon_total"]))' "$work/out/$1.release.json"
}

for alg in random_search liu_talwar papernot_steinke; do
  for np in 1 2; do
    run "$alg" "$np"
    check_release "$alg-np$np"
  done
  [[ $(released "$alg-np1") == $(released "$alg-np2") ]] ||
    fail "$alg: the release on 2 ranks ($(released "$alg-np2")) differs from 1 rank ($(released "$alg-np1"))"
  # The same pick and value through run/selection.h from the run file.
  got=$("$replay" "$work/out/$alg-np2.h5") || fail "$alg: selection_replay failed"
  read -r idx value eps <<< "$got"
  "$py" - "$work/out/$alg-np2.h5" "$work/out/$alg-np2.release.json" "$idx" "$value" <<'PY' ||
import h5py, json, sys
run, rjs, idx, value = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
js = json.load(open(rjs))
with h5py.File(run, "r") as f:
    lam = [float(x[0]) for x in f["trace/lambda"][()]]
    index = list(f["trace/index"][()])
want = lam[index.index(idx)]
if js["lambda"]["lambda"] != want or js["value"] != value:
    print(f"release ({js['lambda']['lambda']!r}, {js['value']!r}) != replay ({want!r}, {value!r})")
    sys.exit(1)
PY
    fail "$alg: the run's release is not what run/selection.h picks from the stored gains"
done
run random_search 3 --oversubscribe
check_release random_search-np3
[[ $(released random_search-np1) == $(released random_search-np3) ]] || fail "random search: 3 ranks differ"

# dpbo release: random search redraws, the stopping methods refuse.
rel() { "$mpiexec" -n 2 "$bin" release "$@"; }
rel "$work/out/random_search-np2.h5" --set privacy.epsilon=0.5 > "$work/rel.log" 2>&1 ||
  { cat "$work/rel.log"; fail "random search: the redraw exited $?"; }
"$py" -c 'import h5py,sys; sys.exit(int(h5py.File(sys.argv[1],"r").attrs["releases_drawn"]) != 2)' \
  "$work/out/random_search-np2.h5" || fail "random search: the redraw is not in the ledger"
[[ -s $work/out/random_search-np2.release-2.json ]] || fail "random search: no redraw release file"
rel "$work/out/random_search-np2.h5" --set privacy.split=0.3 > "$work/rel-split.log" 2>&1
code=$?
[[ $code -eq 2 ]] && grep -q "privacy.split fixes the accounting" "$work/rel-split.log" ||
  { cat "$work/rel-split.log"; fail "random search: a changed split should be refused (2), got $code"; }
for alg in liu_talwar papernot_steinke; do
  rel "$work/out/$alg-np2.h5" > "$work/rel-$alg.log" 2>&1
  code=$?
  [[ $code -eq 2 ]] && grep -q "cannot be redrawn: a new release needs a fresh secret" "$work/rel-$alg.log" ||
    { cat "$work/rel-$alg.log"; fail "$alg: a redraw should be refused (2), got $code"; }
  "$py" -c 'import h5py,sys; sys.exit(int(h5py.File(sys.argv[1],"r").attrs["releases_drawn"]) != 1)' \
    "$work/out/$alg-np2.h5" || fail "$alg: a refused redraw changed the ledger"
done

# dpbo utility: exact for random search; the law of the best of K runs for
# the stopping methods (an estimate over the evaluated candidates).
"$mpiexec" -n 2 "$bin" utility "$work/out/random_search-np2.h5" --epsilon 0.5,2 > "$work/util.log" 2>&1 ||
  { cat "$work/util.log"; fail "random search: dpbo utility exited $?"; }
grep -q "P(the best) = " "$work/util.log" || { cat "$work/util.log"; fail "random search: no exact figures"; }
"$py" -c 'import h5py,sys; f=h5py.File(sys.argv[1],"r"); p=f["utility/data_holder/probability_argmax"][()]; sys.exit(not (len(p)==2 and 0<p[0]<p[1]<=1))' \
  "$work/out/random_search-np2.h5" || fail "random search: /utility/data_holder/probability_argmax is not increasing in epsilon"
for alg in liu_talwar papernot_steinke; do
  "$mpiexec" -n 2 "$bin" utility "$work/out/$alg-np2.h5" > "$work/util-$alg.log" 2>&1
  code=$?
  [[ $code -eq 0 ]] && grep -q "the best of K noisy runs: estimate over the run's" "$work/util-$alg.log" ||
    { cat "$work/util-$alg.log"; fail "$alg: dpbo utility exited $code or gave no figures"; }
done

# dpbo audit --pipeline on the small configs: every candidate evaluated on
# V and V', then 20,000 whole releases (a fresh K each for the stopping
# methods); the real release passes, one claiming 1% of its sensitivity fails.
src=${DPBO_SOURCE_DIR:?}
for alg in random-search liu-talwar papernot-steinke; do
  for factor in 1 0.01; do
    "$mpiexec" -n 2 "$bin" audit --pipeline "$src/configs/audit-$alg-small.ini" \
      --sensitivity-factor $factor > "$work/audit-$alg-$factor.log" 2>&1
    code=$?
    want=$([[ $factor == 1 ]] && echo 0 || echo 1)
    [[ $code -eq $want ]] || { cat "$work/audit-$alg-$factor.log"; fail "$alg: audit --pipeline --sensitivity-factor $factor exited $code, expected $want"; }
    grep -q "${alg//-/_}\$" "$work/audit-$alg-$factor.log" || fail "$alg: the audit does not name the algorithm"
  done
  grep -Eq '^v~ .*FAIL' "$work/audit-$alg-0.01.log" || fail "$alg: no failing v~ row at factor 0.01"
done
echo "selection runs: ok"
