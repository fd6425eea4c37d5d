#!/usr/bin/env bash
# The run file stores every key's effective value (issue #15): a run with a
# minimal config must hold, for every key `dpbo config --list` prints whose
# "read when" holds for that config, either config.<section>.<key> (as
# written) or default.<section>.<key> equal to the listed default (computed
# defaults: present). Keys that are not read must be absent. `dpbo release`
# still reads the run back (only config.* is read), and `dpbo info` shows
# the defaults.
set -uo pipefail
bin=${DPBO_BIN:?}
py=${DPBO_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail() { echo "FAIL: $*"; exit 1; }

cat > min.ini <<INI
[run]
iterations = 3
[space]
points = 16
dim.x1 = linear -5 10
dim.x2 = linear 0 15
[gp]
signal_std = 50
noise_std = 1
[objective]
kind = synthetic
function = branin
[output]
dir = $work
INI
"$bin" run min.ini --quiet > run.log 2>&1 || { cat run.log; fail "the run exited $?"; }
"$bin" config --list > list.txt || fail "dpbo config --list exited $?"
"$bin" info "$work/min.h5" > info.txt || fail "dpbo info exited $?"
grep -q "^default.gp.kernel" info.txt || grep -q "default.gp.kernel" info.txt \
  || fail "dpbo info does not show default.gp.kernel"

"$py" - "$work/min.h5" list.txt <<'PY' || exit 1
import re, sys
import h5py

path, listing = sys.argv[1], sys.argv[2]
rows, section, row = [], None, None
for line in open(listing):
    line = line.rstrip("\n")
    m = re.match(r"^\[(\w+)\]$", line)
    if m:
        section = m.group(1)
        continue
    m = re.match(r"^(\S+) = (.*)$", line)
    if m and section:
        row = {"section": section, "key": m.group(1), "default": m.group(2), "when": ""}
        rows.append(row)
        continue
    m = re.match(r"^    \w+: .*; read when (.*)$", line)
    if m and row is not None and row["when"] == "":
        row["when"] = m.group(1)
        continue
    if line and not line.startswith(" ") and rows:
        break  # the tables of other commands (dpbo k1sweep) follow
assert len(rows) > 40, f"parsed only {len(rows)} rows of dpbo config --list"

with h5py.File(path, "r") as f:
    attrs = {k: (v.decode() if isinstance(v, bytes) else str(v)) for k, v in f.attrs.items()}
written = {k[len("config."):]: v for k, v in attrs.items() if k.startswith("config.")}
default = {k[len("default."):]: v for k, v in attrs.items() if k.startswith("default.")}
assert not set(written) & set(default), f"keys both written and defaulted: {set(written) & set(default)}"
value = {**written, **default}

def applies(when):
    if not when:
        return True
    key, values = when.split(" = ", 1)
    return value.get(key) in [v.strip() for v in values.split(",")]

bad, checked = [], 0
for r in rows:
    name = f"{r['section']}.{r['key']}"
    if r["key"] == "dim.NAME":
        present = any(k.startswith(r["section"] + ".dim.") for k in written)
    else:
        present = name in value
    if applies(r["when"]) != present:
        bad.append(f"{name}: {'stored' if present else 'missing'}, read when '{r['when'] or 'always'}'")
        continue
    checked += present
    if name in default and not r["default"].startswith("computed:"):
        listed = "" if r["default"] == "(empty)" else r["default"]
        if default[name] != listed:
            bad.append(f"{name}: stored default '{default[name]}', listed '{listed}'")
for b in bad:
    print("FAIL:", b)
print(f"{checked} keys stored ({len(written)} written, {len(default)} defaults), {len(rows)} listed")
sys.exit(1 if bad else 0)
PY
echo "PASS"
