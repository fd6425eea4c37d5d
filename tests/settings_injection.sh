#!/usr/bin/env bash
# Settings cannot be injected through a value or a name (issue #27, item 2).
# On main, `--set $'output.name=x\nprivacy.k1=0.99999'` was accepted, and the
# run file's stored settings were re-read as "section.key=value" lines, so a
# release of that file took k1 = 0.99999 although `--set privacy.k1` on a
# release is refused. Now:
#  1. a value with a control character (newline, carriage return) is refused
#     at `dpbo run`, naming the key and the character; nothing is written;
#  2. output.name uses A-Z a-z 0-9 . _ - and does not start with '.' or '-':
#     other names are refused, naming output.name and the character;
#  3. a run file whose stored config.* attributes were edited (a newline and
#     a key in config.output.name, a key glued into an attribute's name, a
#     NUL byte inside a value) is refused by `dpbo release` on 2 ranks, which
#     names the file and the stored key: no release is written or charged;
#  4. the untouched run file still releases, with its stored k1.
# Each check runs on its own and reports, so the script can be pointed at an
# older binary (DPBO_BIN=...) to show which checks fail there.
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
py=${DPBO_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }
run() { "$mpiexec" -n 2 --oversubscribe "$bin" "$@"; }
# expect_refused NAME EXPECTED_TEXT... -- COMMAND: exit 2 and every text in the output.
expect_refused() {
  local name=$1 texts=() out="$work/out.txt" code
  shift
  while [[ $1 != -- ]]; do texts+=("$1"); shift; done
  shift
  "$@" > "$out" 2>&1
  code=$?
  if [[ $code -ne 2 ]]; then sed -n 1,5p "$out"; fail "$name: expected exit 2 (refused), got $code"; return; fi
  for t in "${texts[@]}"; do
    grep -qF -- "$t" "$out" || { cat "$out"; fail "$name: the refusal does not say '$t'"; return; }
  done
  pass "$name"
}

cat > "$work/p.ini" <<INI
[run]
iterations = 6
seed = 5
[space]
kind = sobol
points = 64
dim.x = linear 0 1
dim.y = log 0.01 100
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
delta = 0.1
noise = seeded
noise_seed = 77
[output]
dir = $work
name = p
INI

# 1. Control characters in a --set value.
expect_refused "run --set output.name with a newline and a key" "output.name" "a newline" -- \
  run run "$work/p.ini" --quiet --set $'output.name=x\nprivacy.k1=0.99999'
[[ ! -e "$work/x"$'\n'"privacy.k1=0.99999.h5" ]] || fail "the refused run wrote a run file"
expect_refused "run --set output.dir with a carriage return" "output.dir" "a carriage return" -- \
  run run "$work/p.ini" --quiet --set $'output.dir='"$work"$'/d\rx'
[[ ! -e "$work/d"$'\r'"x" ]] || fail "the refused run made its output directory"

# 2. The character set of output.name.
expect_refused "run --set 'output.name=my run'" "output.name" "holds ' '" "A-Z a-z 0-9 . _ -" -- \
  run run "$work/p.ini" --quiet --set 'output.name=my run'
expect_refused "run --set output.name=-x" "output.name" "starts with '-'" -- \
  run run "$work/p.ini" --quiet --set output.name=-x
expect_refused "run --set output.name=.hidden" "output.name" "starts with '.'" -- \
  run run "$work/p.ini" --quiet --set output.name=.hidden
sed '/^name = p$/d' "$work/p.ini" > "$work/my cfg.ini"
expect_refused "a config file 'my cfg.ini' without output.name" "output.name" "holds ' '" \
  "taken from the file's name" -- run run "$work/my cfg.ini" --quiet
[[ -z $(find "$work" -name '*.h5') ]] || fail "a refused run wrote a file: $(find "$work" -name '*.h5')"

# 3. Edited stored settings.
run run "$work/p.ini" --quiet > "$work/run.txt" 2>&1 || { cat "$work/run.txt"; fail "the private run failed"; }
# craft NAME ATTRIBUTE VALUE [DELETE]: a copy of p.h5 with config.ATTRIBUTE =
# VALUE (a fixed-length string, as dpbo writes them); DELETE removes an
# attribute first.
craft() {
  cp "$work/p.h5" "$work/$1.h5"
  "$py" - "$work/$1.h5" "$2" "$3" "${4:-}" <<'PY' || fail "cannot craft $1.h5"
import sys, h5py, numpy as np
path, name, value, delete = sys.argv[1:5]
with h5py.File(path, "r+") as f:
    if delete:
        del f.attrs[delete]
    f.attrs.create(name, np.bytes_(value.encode().replace(b"<NUL>", b"\0")))
PY
}
drawn() { "$py" -c 'import h5py,sys; print(int(h5py.File(sys.argv[1],"r").attrs.get("releases_drawn",0)))' "$1"; }
craft nl "config.output.name" $'p\nprivacy.k1=0.99999'
expect_refused "release of a run file whose stored output.name holds a newline and a key" \
  "nl.h5 (stored output.name)" "a newline" -- run release "$work/nl.h5" --out "$work/nl_release"
craft key $'config.objective.noise_std=0.1\nprivacy.k1' "0.99999" "config.objective.noise_std"
expect_refused "release of a run file with a key glued into an attribute's name" \
  "key.h5 (stored objective." "key name" -- run release "$work/key.h5" --out "$work/key_release"
craft nul "config.output.name" "p<NUL>privacy.k1=0.99999"
expect_refused "release of a run file whose stored output.name holds a NUL byte" \
  "config.output.name" "NUL byte" -- run release "$work/nul.h5" --out "$work/nul_release"
for name in nl key nul; do
  [[ ! -e $work/${name}_release.json && ! -e $work/${name}_release.h5 ]] || fail "the refused release of $name.h5 wrote a file"
  [[ $(drawn "$work/$name.h5") -eq 1 ]] || fail "the refused release of $name.h5 was charged"
done

# 4. The untouched file releases, with its own k1 (the default 0.95, stored
#    as default.privacy.k1; main released nl.h5 with k1 = 0.99999).
if run release "$work/p.h5" --out "$work/again" > "$work/release.txt" 2>&1; then
  "$py" - "$work/again.json" <<'PY' && pass "the untouched run file releases with its stored k1" || fail "the release of p.h5 does not use k1 = 0.95"
import json, sys
r = json.load(open(sys.argv[1]))
k1 = r.get("k1", r.get("terms", {}).get("k1"))
assert k1 == 0.95, k1
PY
else
  cat "$work/release.txt"
  fail "the release of the untouched run file failed"
fi

[[ $failures -eq 0 ]] || { echo "$failures check(s) failed"; exit 1; }
echo "settings injection: refused at run and at release"
