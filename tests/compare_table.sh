#!/usr/bin/env bash
# dpbo compare with compare.table: the table of an earlier compare file
# instead of training every candidate again (a tiny synthetic svm problem,
# N = 32, T = 4, R = 6):
#  - reused at the same settings (on 2 ranks), /methods, /accounting,
#    /table and /gp_ucb are identical to the fresh run's; at another delta,
#    epsilon grid, GP prior and run.seed identical to a fresh run at those
#    settings; table_source names where the table came from;
#  - an objective key, a space key, a dimension or a changed default
#    (objective.split_seed follows run.seed) is refused with exit 2, naming
#    both files and the key, and nothing is written;
#  - a missing file, a file that is not HDF5, a corrupted table and a file
#    with no table are refused with exit 2 naming the file.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/compare_fixture.sh"
compare_fixture_start

# objective.split_seed left to its default, run.seed (refused below when it moves).
compare_fixture_blobs cmp.ini objective.split_seed= output.name=

compare() { "$mpiexec" -n 1 "$bin" compare cmp.ini --quiet "$@"; }
table="compare.table=$work/out/fresh.h5"

# The earlier run, and the same run from its table on 2 ranks.
compare --set output.name=fresh
"$mpiexec" -n 2 --oversubscribe "$bin" compare cmp.ini --quiet --set output.name=reused \
  --set "$table"
# Another delta, epsilon grid, GP prior and run.seed (objective.split_seed
# pinned to run.seed's 3, so the split stays): fresh and from the table.
other=(--set privacy.delta=1e-6 --set "compare.epsilons=0.3 1 3" --set gp.lengthscale=0.2
  --set run.seed=11 --set objective.split_seed=3)
compare --set output.name=fresh_other "${other[@]}"
compare --set output.name=reused_other "${other[@]}" --set "$table"

"$py" - "$work/out" <<'PY'
import sys
import h5py
import numpy as np
out = sys.argv[1]
def same(a, b, groups):
    for g in groups:
        names = []
        a[g].visit(names.append)
        for n in names:
            if isinstance(a[g][n], h5py.Dataset):
                x, y = a[g][n][()], b[g][n][()]
                assert x.dtype == y.dtype and x.shape == y.shape, (g, n)
                assert np.array_equal(x, y, equal_nan=x.dtype.kind == "f"), f"{g}/{n} differs"
        assert dict(a[g].attrs) .keys() == dict(b[g].attrs).keys(), g
f = {n: h5py.File(f"{out}/{n}.h5", "r") for n in ["fresh", "reused", "fresh_other", "reused_other"]}
def attr(h, name):
    v = h.attrs[name]
    return v.decode() if isinstance(v, bytes) else v
groups = ["table", "gp_ucb", "methods", "accounting", "utility"]
same(f["fresh"], f["reused"], groups)
same(f["fresh_other"], f["reused_other"], groups)
same(f["fresh"], f["reused_other"], ["table"])
assert attr(f["fresh"], "table_source") == "trained"
assert attr(f["reused"], "table_source") == f"{out}/fresh.h5"
assert attr(f["reused_other"], "table_source") == f"{out}/fresh.h5"
assert f["reused"].attrs["train_seconds"] == f["fresh"].attrs["train_seconds"]
# the other settings did act: another delta and grid
assert f["reused_other"].attrs["delta"] == 1e-6
assert list(f["reused_other"]["methods/epsilon"][:]) == [0.3, 1.0, 3.0]
assert not np.array_equal(f["fresh"]["gp_ucb/mean"][:], f["reused_other"]["gp_ucb/mean"][:])
print("reused tables: identical results")
PY

# refused FILE WHAT ARGS...: exit 2, stderr names the config, FILE and WHAT,
# and no output.name=refused file is written.
refused() {
  local file=$1 want=$2
  shift 2
  compare_fixture_refused 2 "$work/out/refused.h5" cmp.ini "$file" "$want" -- \
    compare --set output.name=refused --set "compare.table=$file" "$@"
}
fresh=$work/out/fresh.h5
refused "$fresh" objective.train_rows --set objective.train_rows=70
refused "$fresh" objective.tolerance --set objective.tolerance=0.01
refused "$fresh" space.points --set space.points=31
refused "$fresh" space.dim.C --set "space.dim.C=log 0.1 1000"
# objective.split_seed's default is run.seed: the value taken counts
refused "$fresh" "objective.split_seed is '4' in this run and '3' in" --set run.seed=4
# inputs that are no compare file
refused "$work/none.h5" "No such file"
printf 'not an HDF5 file\n' > "$work/text.h5"
refused "$work/text.h5" "not an HDF5 file"
"$py" - "$fresh" "$work" <<'PY'
import shutil, sys
import h5py
src, work = sys.argv[1], sys.argv[2]
# a compare file without /table
shutil.copy(src, f"{work}/notable.h5")
with h5py.File(f"{work}/notable.h5", "a") as h:
    del h["table"]
# a table shorter than Lambda
shutil.copy(src, f"{work}/short.h5")
with h5py.File(f"{work}/short.h5", "a") as h:
    g = h["table/gain"][:]
    del h["table/gain"]
    h["table/gain"] = g[:5]
# a truncated file (a copy cut short)
data = open(src, "rb").read()
open(f"{work}/cut.h5", "wb").write(data[: len(data) // 2])
PY
refused "$work/notable.h5" "has no table (/table/lambda): dataset table/lambda is missing"
refused "$work/short.h5" "table/gain"
refused "$work/cut.h5" "not an HDF5 file"
echo "compare.table: all checks passed"
