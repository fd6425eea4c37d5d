#!/usr/bin/env bash
# The hard tuning problems' model programs (issue #26, item 2:
# examples/hard/mlp_fashion.py, hgb_covtype.py) on tiny data made here (an
# IDX pair of 300 8x8 images; 400 rows in Covertype's format), so that the
# test takes seconds and needs neither Fashion-MNIST nor Covertype:
#  through   each problem's config (configs/compare-*.ini: its box, its
#            persistent command) run by `dpbo run` on 8 candidates, 4
#            evaluations; every gain in the trace equals the first number
#            (the validation accuracy) of the program's --score both reply
#            for the same lambda, the program run directly (the independent
#            path: no dpbo; the requests in reverse order), bit for bit (one
#            thread, fixed seeds); the 4 gains are not all equal.
#  bad       a request that is not the program's hyper-parameters (a word
#            that is no NAME=VALUE, an unknown name, a missing one, a
#            non-number, a non-integer, a value outside its range, an
#            unknown category) and a bad setting (--train-rows 0, rows past
#            the data, a file that is not the data): exit 2 and one line
#            on stderr that names it; through dpbo, a box with a dimension
#            the program does not take fails every evaluation, exit 3, and
#            the message quotes the program's line.
set -uo pipefail
bin=${DPBO_BIN:?}
src=${DPBO_SOURCE_DIR:?}
py=${DPBO_PYTHON:-/usr/bin/python3}
"$py" -c 'import sklearn, numpy' 2>/dev/null ||
  { echo "SKIP: $py cannot import sklearn (scripts/deps.sh installs python3-sklearn)"; exit 77; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Tiny data with some signal: the class moves the pixels (or features).
"$py" - "$work" <<'PY'
import gzip, sys
import numpy as np
d = sys.argv[1]
rng = np.random.default_rng(5)
n = 300
y = rng.integers(0, 10, n).astype(np.uint8)
X = (rng.random((n, 8, 8)) * 120 + y[:, None, None] * 13).astype(np.uint8)
with gzip.open(f"{d}/tiny-images-idx3-ubyte.gz", "wb") as f:
    f.write(bytes([0, 0, 8, 3]) + n.to_bytes(4, "big") + (8).to_bytes(4, "big") * 2 + X.tobytes())
with gzip.open(f"{d}/tiny-labels-idx1-ubyte.gz", "wb") as f:
    f.write(bytes([0, 0, 8, 1]) + n.to_bytes(4, "big") + y.tobytes())
n = 400
y = rng.integers(1, 8, n)
X = np.hstack([np.round(rng.random((n, 10)) * 1000 + y[:, None] * 150), rng.integers(0, 2, (n, 44))])
with gzip.open(f"{d}/tiny-covtype.data.gz", "wt") as f:
    for row, label in zip(X.astype(int), y):
        f.write(",".join(map(str, row)) + f",{label}\n")
PY
[[ -s $work/tiny-covtype.data.gz ]] || fail "could not make the tiny data"

mlp="$src/examples/hard/mlp_fashion.py --data $work/tiny-images-idx3-ubyte.gz --train-rows 150 --validation-rows 75 --test-rows 75 --epochs 3"
hgb="$src/examples/hard/hgb_covtype.py --data $work/tiny-covtype.data.gz --train-rows 200 --validation-rows 100 --test-rows 100 --rounds 5"

# through NAME CONFIG "PROGRAM ARGS": dpbo run on the config's box with the
# tiny program; then every trace row against the program run directly.
through() {
  local name=$1 config=$src/configs/$2 prog=$3
  "$bin" run "$config" --quiet --set output.dir="$work" --set output.name="$name" \
    --set privacy.algorithm=none --set run.iterations=4 --set space.points=8 \
    --set run.retries=0 --set "objective.command=$prog --score validation" \
    > "$work/$name.log" 2>&1 || { cat "$work/$name.log"; fail "$name: dpbo run exited $?"; }
  "$bin" info "$work/$name.h5" --trace | sed -n '/^\/trace/,$p' > "$work/$name.trace"
  "$py" - "$config" "$work/$name.trace" $prog <<'PY' || fail "$name: dpbo's values and the program's differ"
import configparser, subprocess, sys
config, trace, prog = sys.argv[1], sys.argv[2], sys.argv[3:]
cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), interpolation=None)
cp.optionxform = str
cp.read(config)
dims = [(k[4:], v.split()) for k, v in cp["space"].items() if k.startswith("dim.")]
rows = [l.split() for l in open(trace).read().splitlines()[1:] if l.strip()]
if len(rows) != 4:
    sys.exit(f"expected 4 trace rows, got {len(rows)}")
reqs = []
for row in rows:
    lam = row[2:2 + len(dims)]
    words = []
    for (name, spec), x in zip(dims, lam):
        if spec[0] == "categorical":
            v = spec[1 + int(float(x))]
        elif spec[0] in ("integer", "log_integer"):
            v = str(int(float(x)))
        else:
            v = x  # %.17g: reads back to dpbo's double
        words.append(f"{name}={v}")
    reqs.append(" ".join(words))
# One process of the program, run directly, answers the 4 requests in the
# reverse order: no state may carry from one request into another's value.
out = subprocess.run(prog + ["--score", "both"], input="\n".join(reversed(reqs)) + "\n",
                     capture_output=True, text=True)
if out.returncode != 0:
    sys.exit(f"the program failed: {out.stderr}")
replies = out.stdout.splitlines()[::-1]
if len(replies) != len(reqs):
    sys.exit(f"{len(reqs)} requests, {len(replies)} replies: {out.stdout!r}")
vals = set()
for row, req, reply in zip(rows, reqs, replies):
    gain = float(row[2 + len(dims)])
    val, test = (float(w) for w in reply.split())
    if val != gain:
        sys.exit(f"{req}: dpbo's trace has {gain!r}, the program run directly {val!r}")
    print(f"  {req}: {gain!r} both ways (test {test!r})")
    vals.add(val)
if len(vals) < 2:
    sys.exit("the 4 candidates gave one value: the check would not see a mix-up")
PY
  echo "through $name: 4 values of dpbo's trace equal the program's, run directly"
}
through mlp compare-mlp-fashion.ini "$mlp"
through hgb compare-hgb-covtype.ini "$hgb"

# bad PROGRAM "REQUEST" "EXPECTED TEXT" [ARGS]: exit 2, one stderr line with it.
bad() {
  local prog=$1 req=$2 want=$3
  shift 3
  printf '%s\n' "$req" | $prog "$@" > "$work/out" 2> "$work/err"
  local code=$?
  [[ $code -eq 2 ]] || fail "'$req' $*: exit $code, expected 2 (stderr: $(cat "$work/err"))"
  [[ $(wc -l < "$work/err") -eq 1 ]] || fail "'$req' $*: expected one line on stderr, got: $(cat "$work/err")"
  grep -qF -- "$want" "$work/err" || fail "'$req' $*: stderr lacks '$want': $(cat "$work/err")"
  [[ ! -s $work/out ]] || fail "'$req' $*: printed a reply: $(cat "$work/out")"
}
ok_mlp="lr=0.001 width=16 alpha=1e-4 layers=2 activation=relu"
bad "$mlp" "lr=abc width=16 alpha=1e-4 layers=2 activation=relu" "request 1: lr=abc is not a number"
bad "$mlp" "lr=0.001 width=16 alpha=1e-4 layers=2 activation=swish" "activation=swish is not one of relu, tanh, logistic"
bad "$mlp" "lr=0.001 width=16.5 alpha=1e-4 layers=2 activation=relu" "width=16.5 is not an integer"
bad "$mlp" "lr=0.001 width=16 alpha=1e-4 layers=7 activation=relu" "layers=7 is outside [1, 4]"
bad "$mlp" "lr=0.001 width=16 alpha=-1 layers=2 activation=relu" "alpha=-1 is outside"
bad "$mlp" "lr=0.001 width=16 alpha=1e-4 activation=relu" "missing layers"
bad "$mlp" "$ok_mlp momentum=0.9" "unknown hyper-parameter 'momentum'"
bad "$mlp" "$ok_mlp lr=0.1" "'lr' given twice"
bad "$mlp" "lr 0.001" "'lr' is not NAME=VALUE"
bad "$mlp" "$ok_mlp" "--train-rows, --validation-rows and --test-rows must be >= 1" --train-rows 0
bad "$mlp" "$ok_mlp" "sum to at most the 300 rows of the data" --train-rows 290
bad "$mlp" "$ok_mlp" "the labels file is found by replacing" --data "$work/tiny-covtype.data.gz"
cp "$work/tiny-covtype.data.gz" "$work/bad-images-idx3-ubyte.gz"
cp "$work/tiny-covtype.data.gz" "$work/bad-labels-idx1-ubyte.gz"
bad "$mlp" "$ok_mlp" "bad-images-idx3-ubyte.gz is not an IDX file of unsigned bytes" \
  --data "$work/bad-images-idx3-ubyte.gz"
bad "$hgb" "lr=0.1 leaves=1 min_leaf=5 l2=1 max_bins=16" "leaves=1 is outside [2, 100000]"
bad "$hgb" "lr=0.1 leaves=8 min_leaf=5 l2=1 max_bins=300" "max_bins=300 is outside [2, 255]"
bad "$hgb" "lr=0.1 leaves=8 min_leaf=5 l2=nan max_bins=16" "l2=nan is outside"
bad "$hgb" "lr=0.1 leaves=8 min_leaf=5 l2=1 max_bins=16" "rows of 55 numbers (covtype.data format)" \
  --data "$work/tiny-labels-idx1-ubyte.gz"
bad "$hgb" "lr=0.1 leaves=8 min_leaf=5 l2=1 max_bins=16" "cannot read $work/none.gz" --data "$work/none.gz"
# A good request after a bad one is never answered: the program has ended.
printf '%s\n%s\n' "$ok_mlp" "lr=x" | $mlp > "$work/out" 2> /dev/null
[[ $(wc -l < "$work/out") -eq 1 ]] || fail "a good then a bad request: expected 1 reply, got $(cat "$work/out")"
echo "bad: 18 malformed requests and settings give exit 2 and one line naming them"

# Through dpbo: a dimension the program does not take fails every evaluation.
"$bin" run "$src/configs/compare-mlp-fashion.ini" --quiet --set output.dir="$work" \
  --set output.name=extra --set privacy.algorithm=none --set run.iterations=2 \
  --set space.points=8 --set run.retries=0 --set "objective.command=$mlp" \
  --set "space.dim.momentum=linear 0 1" > "$work/extra.log" 2>&1
code=$?
[[ $code -eq 3 ]] || { cat "$work/extra.log"; fail "extra dimension: dpbo exit $code, expected 3"; }
grep -q "mlp_fashion.py: request 1: unknown hyper-parameter 'momentum'" "$work/extra.log" ||
  { cat "$work/extra.log"; fail "extra dimension: dpbo's message does not quote the program"; }
echo "bad through dpbo: exit 3, $(grep -m1 -o "mlp_fashion.py: request 1: unknown[^)]*)" "$work/extra.log")"
echo "PASS"
