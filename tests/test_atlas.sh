#!/usr/bin/env bash
# The k1 atlas (jobs/atlas.sbatch, analysis/atlas.py):
#   test_atlas.sh list    the task list's bad input, each refused with exit 2
#                         and a message naming the file and line (or the bad
#                         task index), without a cluster; and the gather's
#                         refusals (a task that never ran, did not finish,
#                         failed, or whose file lacks the task's settings:
#                         exit 3 naming the task, nothing written)
#   test_atlas.sh slurm   configs/atlas-tiny.list (4 tasks of seconds) on the
#                         one-node Slurm of scripts/slurm-up.sh, 2 tasks per
#                         array task: the array runs, the gather writes one
#                         HDF5 file with a group per task whose every dataset
#                         and attribute equal those of the task's own file
#                         (compared here in h5py), a summary row per task and
#                         size equal to the task file's values, and the
#                         figures; then a list with a failing task (k1sweep
#                         exits 2): the gather fails naming it and writes no
#                         file.
#   test_atlas.sh binomial the 95% Clopper-Pearson interval of analysis/atlas.py
#                         (bisection, no scipy) against known values (0 of 50:
#                         upper 0.0711; 2 of 50: [0.0049, 0.1371]) and scipy's
#                         beta quantiles.
#   test_atlas.sh data    the committed summary without Slurm: a list of two
#                         tasks of a few seconds (digits SVM, add/remove and
#                         adversarial neighbours, one size m) run by
#                         `atlas.py run`, gathered, exported to JSON and drawn
#                         from the JSON alone (`atlas.py draw`, as MANIFEST
#                         names it): every figure and table is written, the
#                         table drawn from the JSON is the gather's, and its
#                         values (k1, m0, s, sigma_n, KS p, exceedance k/n and
#                         its interval, the cross row, pool accuracies) equal
#                         those read here from the tasks' HDF5 files with h5py
#                         and scipy; `atlas.py manifest` prints the MANIFEST
#                         lines; bad data files exit 2.
# slurm: started if it does not run and stopped afterwards if the test started
# it; skipped (77) without root or when the daemons cannot be started.
set -uo pipefail
mode=${1:?usage: test_atlas.sh list|binomial|data|slurm}
src=${DPBO_SOURCE_DIR:?}
python=${DPBO_PYTHON:-/usr/bin/python3}
atlas=$src/analysis/atlas.py
skip() { echo "SKIP: $*"; exit 77; }
work=$(mktemp -d /tmp/dpbo-test-atlas.XXXXXX)
fail() {
  echo "FAIL: $*"
  for f in "$work"/*.out; do [[ -f $f ]] && { echo "--- $f"; cat "$f"; }; done
  exit 1
}

# expect_refusal CODE PATTERN CMD...: CMD exits CODE and says PATTERN (grep -E).
expect_refusal() {
  local code=$1 pattern=$2 rc
  shift 2
  "$@" > "$work/out.log" 2>&1
  rc=$?
  cat "$work/out.log"
  [[ $rc -eq $code ]] || fail "$* exited $rc, expected $code"
  grep -Eq -- "$pattern" "$work/out.log" || fail "$*: no '$pattern' in the message"
}

if [[ $mode == list ]]; then
  trap 'rm -rf "$work"' EXIT
  cd "$work" || fail "cd"
  good="ok $src/configs/k1sweep-digits.ini k1sweep.neighbour=swap"
  bad() {  # bad NAME LINE2 PATTERN: a list whose second line is LINE2
    printf '# a comment\n%s\n' "$2" > "$1.list"
    expect_refusal 2 "^atlas: $1.list:2: .*$3" "$python" "$atlas" check "$1.list"
  }
  bad noconfig "lonely" "expected 'NAME CONFIG"
  bad missing "t nowhere.ini" "task 't': config 'nowhere.ini' not found"
  bad name "a/b $src/configs/k1sweep-digits.ini" "task name 'a/b' must be"
  bad override "t $src/configs/k1sweep-digits.ini k1sweep.neighbour" "'k1sweep.neighbour' is not SECTION.KEY=VALUE"
  bad reserved "t $src/configs/k1sweep-digits.ini output.name=x" "output.name is set by the atlas"
  bad twice "t $src/configs/k1sweep-digits.ini k1sweep.sets=3 k1sweep.sets=4" "k1sweep.sets set twice"
  bad quote "t $src/configs/k1sweep-digits.ini k1sweep.sizes=\"1 2" "No closing quotation"
  bad unset "t $src/configs/k1sweep-digits.ini k1sweep.data=\${DPBO_ATLAS_UNSET_VAR}/x" '\$\{DPBO_ATLAS_UNSET_VAR\} is not set'
  printf '%s\n\n%s\n' "$good" "$good" > dup.list
  expect_refusal 2 "^atlas: dup.list:3: task name 'ok' already used on line 1" "$python" "$atlas" check dup.list
  printf '# nothing\n' > empty.list
  expect_refusal 2 "^atlas: empty.list: the task list has no tasks" "$python" "$atlas" check empty.list
  expect_refusal 2 "cannot read the task list" "$python" "$atlas" check absent.list
  # A default taken from the environment, and the task's arguments.
  printf 'ok %s k1sweep.data=${DPBO_ATLAS_DIR:-/data}/d.csv k1sweep.sizes="5 6"\n' \
    "$src/configs/k1sweep-digits.ini" > good.list
  [[ $("$python" "$atlas" check good.list) == 1 ]] || fail "good.list: not 1 task"
  got=$(DPBO_ATLAS_DIR=/there "$python" "$atlas" task good.list 0) || fail "task good.list 0"
  expected=$(printf '%s\n' ok results/good "$src/configs/k1sweep-digits.ini" --set k1sweep.data=/there/d.csv \
    --set "k1sweep.sizes=5 6" --set output.dir=results/good --set output.name=ok)
  [[ $got == "$expected" ]] || fail "task words: $got"
  # A task index outside the list, through the job script (no cluster: the
  # array's variables by hand); the binary is never started.
  expect_refusal 2 "good.list: task index '1' is not one of the list's tasks \(0 to 0; submit with --array=0-0\)" \
    env SLURM_SUBMIT_DIR="$work" SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_JOB_ID=9 SLURM_NTASKS=2 \
    DPBO_BIN=/bin/false bash "$src/jobs/atlas.sbatch" good.list
  # The gather's refusals, from hand-made status files (3 tasks: the first
  # never ran, the second did not finish, the third failed).
  printf 'a %s\nb %s\nc %s\n' "$src/configs/k1sweep-digits.ini" "$src/configs/k1sweep-digits.ini" \
    "$src/configs/k1sweep-digits.ini" > g.list
  mkdir -p results/g
  echo "started 7_1" > results/g/b.status
  echo "exit 2 7_2" > results/g/c.status
  expect_refusal 3 "task 0 'a' \(line 1\): never ran" "$python" "$atlas" gather g.list
  grep -q "task 1 'b' (line 2): did not finish" "$work/out.log" || fail "b not named"
  grep -q "task 2 'c' (line 3): failed, dpbo k1sweep exited 2 (job 7_2" "$work/out.log" || fail "c not named"
  [[ -z $(find results -mindepth 1 -maxdepth 1 -name 'g.*') ]] || fail "the refused gather wrote a file"
  echo PASS
  exit 0
fi

if [[ $mode == binomial ]]; then
  trap 'rm -rf "$work"' EXIT
  "$python" - "$src/analysis" <<'PY' || fail "Clopper-Pearson interval"
import sys
sys.path.insert(0, sys.argv[1])
import atlas
from scipy import stats
# Known values (Clopper and Pearson's exact interval, 95%).
lo, hi = atlas.clopper_pearson(0, 50)
assert lo == 0.0 and round(hi, 4) == 0.0711, (lo, hi)
lo, hi = atlas.clopper_pearson(2, 50)
assert (round(lo, 4), round(hi, 4)) == (0.0049, 0.1371), (lo, hi)
lo, hi = atlas.clopper_pearson(50, 50)
assert round(lo, 4) == 0.9289 and hi == 1.0, (lo, hi)
# Against scipy's beta quantiles, over k for a few n.
worst = 0.0
for n in (1, 10, 50, 120):
    for k in range(n + 1):
        lo, hi = atlas.clopper_pearson(k, n)
        ref_lo = 0.0 if k == 0 else stats.beta.ppf(0.025, k, n - k + 1)
        ref_hi = 1.0 if k == n else stats.beta.ppf(0.975, k + 1, n - k)
        worst = max(worst, abs(lo - ref_lo), abs(hi - ref_hi))
assert worst < 1e-9, worst
for bad in ((3, 2), (-1, 5), (0, 0)):
    try:
        atlas.clopper_pearson(*bad)
    except ValueError:
        continue
    raise AssertionError(f"clopper_pearson{bad} accepted")
print(f"Clopper-Pearson: known values and scipy (largest difference {worst:.2g})")
PY
  echo PASS
  exit 0
fi

if [[ $mode == data ]]; then
  trap 'rm -rf "$work"' EXIT
  cd "$work" || fail "cd"
  export DPBO_BIN=${DPBO_BIN:?}
  # Two tasks of a second or two: a random and an adversarial neighbour kind (a /cross row).
  small="k1sweep.train_rows=300 k1sweep.pool_rows=800 k1sweep.models=6 k1sweep.sizes=50 k1sweep.sets=10 likelihood.bootstrap=4"
  printf '# test list\ndigits-svm-add_remove %s k1sweep.neighbour=add_remove %s\ndigits-svm-adversarial %s k1sweep.neighbour=adversarial %s\n' \
    "$src/configs/k1sweep-digits.ini" "$small" "$src/configs/k1sweep-digits.ini" "$small" > small.list
  "$python" "$atlas" run small.list --ranks 2 > run.log 2>&1 || { rc=$?; cat run.log; fail "atlas.py run exited $rc"; }
  for t in digits-svm-add_remove digits-svm-adversarial; do
    grep -q "^exit 0 local-" "results/small/$t.status" || fail "no status file for $t"
  done
  "$python" "$atlas" gather small.list > gather.log 2>&1 || { rc=$?; cat gather.log; fail "gather exited $rc"; }
  for f in results/small.h5 results/small.json results/small.md results/small.png; do
    [[ -s $f ]] || fail "the gather wrote no $f"
  done
  "$python" "$atlas" export results/small.h5 -o data/small.json || fail "export exited $?"
  mv results/small.h5 gathered.h5  # drawing needs no HDF5 file
  "$python" "$atlas" draw data/small.json --dir figs --task-dir figs/atlas || fail "draw exited $?"
  for f in figs/small.png figs/small.md; do [[ -s $f ]] || fail "draw wrote no $f"; done
  for t in digits-svm-add_remove digits-svm-adversarial; do
    for f in figs/atlas/$t.k1.png figs/atlas/$t.k1.gof.png figs/atlas/$t.k1.md; do
      [[ -s $f ]] || fail "draw wrote no $f"
    done
  done
  # The MANIFEST forms: the overview alone, one task alone.
  "$python" "$atlas" draw data/small.json -o one/overview.png || fail "draw -o exited $?"
  [[ -s one/overview.png && -s one/overview.md ]] || fail "draw -o wrote no figure and table"
  "$python" "$atlas" draw data/small.json --task digits-svm-adversarial -o one/adv.k1.png || fail "draw --task exited $?"
  [[ -s one/adv.k1.png && -s one/adv.k1.gof.png && -s one/adv.k1.md ]] || fail "draw --task wrote no figures"
  "$python" "$atlas" manifest data/small.json > manifest.txt || fail "manifest exited $?"
  [[ $(wc -l < manifest.txt) -eq 5 ]] && grep -qxF "atlas/digits-svm-adversarial.k1.gof.png | data/small.json | analysis/atlas.py draw data/small.json --dir {dir} --task-dir {dir}/atlas" manifest.txt ||
    { cat manifest.txt; fail "manifest lines"; }
  cmp figs/small.md results/small.md || fail "the table drawn from the JSON differs from the gather's"
  cmp figs/atlas/digits-svm-adversarial.k1.md results/small/digits-svm-adversarial.k1.md ||
    fail "the task's table drawn from the JSON differs from the gather's"
  # The table's values against the tasks' files, read here independently.
  "$python" - figs/small.md data/small.json results/small <<'PY' || fail "the table differs from the tasks' files"
import json, sys
import h5py, numpy as np
from scipy import stats
md, data, folder = sys.argv[1:]
lines = open(md).read().split("\n")
def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]
head = cells(next(l for l in lines if l.startswith("| task | data mode")))
rows = {c[0]: dict(zip(head, c)) for c in map(cells, lines) if c[0].startswith("digits-svm-") and len(c) == len(head)}
assert sorted(rows) == ["digits-svm-add_remove", "digits-svm-adversarial"], rows
doc = json.load(open(data))
exc_col = next(h for h in head if h.startswith("pairs above s c"))
def cp(k, n):
    return (0.0 if k == 0 else stats.beta.ppf(0.025, k, n - k + 1),
            1.0 if k == n else stats.beta.ppf(0.975, k + 1, n - k))
for name, r in rows.items():
    with h5py.File(f"{folder}/{name}.h5", "r") as f:
        lik = f["m50/likelihood"].attrs
        res = f["m50/residuals"].attrs
        exc = f["m50/exceedance"]
        assert r["m"] == "50" and r["neighbour"] == f.attrs["neighbour"].decode(), r
        assert r["MLE k1"] == f"{lik['k1_mle']:.6f}", (r["MLE k1"], lik["k1_mle"])
        assert r["95% LR interval"] == f"[{lik['k1_lo']:.6f}, {lik['k1_hi']:.6f}]"
        assert r["m0"] == f"{lik['m0_mle']:.3f}" and r["s"] == f"{lik['s_mle']:.3g}"
        assert r["σn"] == f"{lik['sigma_n_mle']:.2g}" and r["length-scale"] == f"{lik['lengthscale_mle']:.3g}"
        assert r["KS p"] == f"{res['ks_pvalue']:.3g}" and r["max abs z"] == f"{res['max_abs_z']:.3g}"
        d, bound = exc["max_diff"][()], exc.attrs["bound_at_delta"]
        k, n = int(np.sum(d > bound)), d.size
        assert k == round(exc.attrs["rate_at_delta"] * n)
        lo, hi = cp(k, n)
        assert r[exc_col] == f"{k}/{n} [{lo:.3f}, {hi:.3f}]", (r[exc_col], k, n, lo, hi)
        pool = f["models/pool_accuracy"][()]
        t = next(t for t in doc["tasks"] if t["name"] == name)
        assert t["pool_accuracy"]["min"] == pool.min() and t["pool_accuracy"]["max"] == pool.max()
        assert t["pool_accuracy"]["median"] == np.median(pool)
        row = next(x for x in doc["summary"] if x["task"] == name)
        for key, value in (("k1_mle", lik["k1_mle"]), ("m0", lik["m0_mle"]), ("s", lik["s_mle"]),
                           ("sigma_n", lik["sigma_n_mle"]), ("lengthscale", lik["lengthscale_mle"]),
                           ("ks_pvalue", res["ks_pvalue"]), ("exceedance_count", k), ("pairs", n)):
            assert row[key] == value, (name, key, row[key], value)
        assert "k1sweep.neighbour" in t["command"] and t["command"].startswith("mpiexec -n 2 dpbo k1sweep configs/k1sweep-digits.ini")
        assert t["provenance"]["dpbo_version"] == f.attrs["dpbo_version"].decode()
        assert sum(len(s["gof"]["z_quantiles"]) for s in t["sizes"]) <= 200 * len(t["sizes"])
# The cross row: the adversarial pairs against the random task's s c.
with h5py.File(f"{folder}/digits-svm-adversarial.h5", "r") as adv, \
     h5py.File(f"{folder}/digits-svm-add_remove.h5", "r") as rnd:
    d = adv["m50/exceedance/max_diff"][()]
    bound = rnd["m50/exceedance"].attrs["bound_at_delta"]
    k, n = int(np.sum(d > bound)), d.size
lo, hi = cp(k, n)
cross = [l for l in lines if l.startswith("| digits-svm-adversarial | digits-svm-add_remove | 50 |")]
assert len(cross) == 1 and cells(cross[0])[-1] == f"{k}/{n} [{lo:.3f}, {hi:.3f}]", (cross, k, n)
print(f"table rows and the cross row ({k}/{n}) equal the tasks' files")
PY
  # Bad input: not an atlas data file, a missing task, a missing gathered file.
  expect_refusal 2 "not an atlas data file" "$python" "$atlas" draw "$src/analysis/data/k1sweep-covtype.json" -o bad.png
  expect_refusal 2 "no task 'nope'" "$python" "$atlas" draw data/small.json --task nope -o bad.png
  expect_refusal 2 "absent.h5: cannot read the gathered atlas file" "$python" "$atlas" export absent.h5 -o bad.json
  expect_refusal 2 "not a gathered atlas file" "$python" "$atlas" export results/small/digits-svm-add_remove.h5 -o bad.json
  [[ ! -e bad.png && ! -e bad.json ]] || fail "a refused command wrote a file"
  echo PASS
  exit 0
fi

[[ $mode == slurm ]] || { echo "usage: test_atlas.sh list|binomial|data|slurm"; exit 2; }
bin=${DPBO_BIN:?}
[[ $(id -u) -eq 0 ]] || skip "the one-node Slurm cluster runs its daemons as root (scripts/slurm-up.sh)"
export DPBO_SLURM_DIR=${DPBO_SLURM_DIR:-/tmp/dpbo-slurm}
was_up=0
ping_out=$(SLURM_CONF=$DPBO_SLURM_DIR/slurm.conf timeout 10 scontrol ping 2>/dev/null || true)
grep -q "is UP" <<< "$ping_out" && was_up=1
jobs_to_cancel=()
cleanup() {
  [[ ${#jobs_to_cancel[@]} -gt 0 ]] && scancel "${jobs_to_cancel[@]}" 2>/dev/null
  [[ $was_up -eq 0 ]] && "$src/scripts/slurm-down.sh" 2>&1
  rm -rf "$work"
}
trap cleanup EXIT
if ! up=$("$src/scripts/slurm-up.sh" 2> "$work/up.log"); then
  cat "$work/up.log"
  skip "cannot start the one-node Slurm cluster (scripts/slurm-up.sh failed, output above)"
fi
eval "$up"
cd "$work" || fail "cd $work"
# The job finds the binary itself when it is build/dpbo of its tree.
job_env=(env DPBO_BIN="$bin")
[[ $(realpath "$bin") == "$(realpath -m "$src/build/dpbo")" ]] && job_env=(env -u DPBO_BIN)

# submit LIST: the array and the gather (2 tasks each array task); waits for
# both; sets array_job and gather_job.
submit() {
  local said
  said=$("${job_env[@]}" "$src/jobs/atlas.sbatch" "$1" -- --ntasks=2 --time=10) || fail "atlas.sbatch $1: $said"
  echo "$said"
  array_job=$(sed -n 's/.*array job \([0-9]*\) .*/\1/p' <<< "$said")
  gather_job=$(sed -n 's/.*gather job \([0-9]*\)$/\1/p' <<< "$said")
  [[ -n $array_job && -n $gather_job ]] || fail "no job ids in '$said'"
  jobs_to_cancel=("$array_job" "$gather_job")
  local t0=$SECONDS
  while [[ -n $(squeue -h -j "$array_job,$gather_job" 2>/dev/null) ]]; do
    (( SECONDS - t0 < 240 )) || fail "jobs $array_job, $gather_job not done after 240 s"
    sleep 1
  done
  echo "$1: done after $(( SECONDS - t0 )) s"
  jobs_to_cancel=()
}

submit "$src/configs/atlas-tiny.list"
gather_log=dpbo-atlas-gather-$gather_job.out
[[ -f $gather_log ]] || fail "no gather log $gather_log"
cat "$gather_log"
for i in 0 1 2 3; do
  grep -q "^atlas task $i (" "dpbo-atlas-${array_job}_$i.out" || fail "task $i did not run"
done
grep -q "wrote results/atlas-tiny.h5 (4 tasks)" "$gather_log" || fail "the gather did not write"
for t in digits-svm-add_remove digits-svm-swap synthetic digits-svm-adversarial; do
  for f in results/atlas-tiny/$t.k1.png results/atlas-tiny/$t.k1.gof.png results/atlas-tiny/$t.k1.md; do
    [[ -s $f ]] || fail "no $f"
  done
done
[[ -s results/atlas-tiny.md ]] || fail "no summary table"
[[ -s results/atlas-tiny.png ]] || fail "no overview figure"
[[ -z $(find results -mindepth 1 -name '*tmp*') ]] || fail "temporary file left behind"
"$python" - results/atlas-tiny.h5 results/atlas-tiny <<'PY' || fail "the gathered file differs from the tasks' files"
import sys, h5py, numpy as np
gathered, folder = sys.argv[1:]
names = ["digits-svm-add_remove", "digits-svm-swap", "digits-svm-adversarial", "synthetic"]
def same(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)
    return a == b
with h5py.File(gathered, "r") as g:
    assert sorted(k for k in g if k not in ("summary", "cross")) == sorted(names), list(g)
    count = 0
    for name in names:
        grp = g[name]
        with h5py.File(f"{folder}/{name}.h5", "r") as f:
            for key, value in f.attrs.items():
                assert same(grp.attrs[key], value), (name, key)
            objects = []
            f.visit(objects.append)
            for path in objects:
                src, dst = f[path], grp[path]
                for key, value in src.attrs.items():
                    assert same(dst.attrs[key], value), (name, path, key)
                if isinstance(src, h5py.Dataset):
                    assert src.dtype == dst.dtype and same(src[()], dst[()]), (name, path)
                    count += 1
            gathered_objects = []
            grp.visit(gathered_objects.append)
            assert sorted(gathered_objects) == sorted(objects), name
            # The summary: one row per size, the task file's values.
            rows = [r for r in g["summary"][()] if r["task"].decode() == name]
            assert [int(r["m"]) for r in rows] == [int(m) for m in f.attrs["sizes"]], name
            for r in rows:
                m = int(r["m"])
                lik, res = f[f"m{m}/likelihood"].attrs, f[f"m{m}/residuals"].attrs
                assert r["k1_mle"] == lik["k1_mle"] and r["k1_lo"] == lik["k1_lo"]
                assert r["ks_statistic"] == res["ks_statistic"] and r["ks_pvalue"] == res["ks_pvalue"]
                assert r["exceedance_rate"] == f[f"m{m}/exceedance"].attrs["rate_at_delta"]
                assert r["pipeline_slack"] == f[f"m{m}/pipeline"].attrs["slack"]
                assert r["neighbour"].decode() == f.attrs["neighbour"].decode()
                exc = f[f"m{m}/exceedance"]
                assert r["bound_at_delta"] == exc.attrs["bound_at_delta"]
                assert r["max_diff_max"] == exc["max_diff"][()].max()
                assert r["max_diff_median"] == np.median(exc["max_diff"][()])
                assert r["max_abs_z"] == res["max_abs_z"] and r["sigma_n"] == lik["sigma_n_mle"]
                assert r["s2_one_minus_k1"] == f[f"m{m}/bootstrap"].attrs["s2_one_minus_k1_mle"]
        assert grp.attrs["task.index"] == names.index(name)
    assert g["synthetic"].attrs["task.set.k1sweep.synthetic_models"] == "40"
    # /cross: the adversarial pairs of digits-svm-adversarial against the s c of
    # digits-svm-add_remove's fit, recomputed from the two task files.
    cross = g["cross"][()]
    with h5py.File(f"{folder}/digits-svm-adversarial.h5", "r") as adv, \
         h5py.File(f"{folder}/digits-svm-add_remove.h5", "r") as rnd:
        sizes = [int(m) for m in adv.attrs["sizes"]]
        assert [int(c["m"]) for c in cross] == sizes, cross
        for c in cross:
            m = int(c["m"])
            assert c["adversarial_task"] == b"digits-svm-adversarial" and c["random_task"] == b"digits-svm-add_remove"
            bound = rnd[f"m{m}/exceedance"].attrs["bound_at_delta"]
            d = adv[f"m{m}/exceedance/max_diff"][()]
            assert c["random_bound_at_delta"] == bound
            assert c["adversarial_bound_at_delta"] == adv[f"m{m}/exceedance"].attrs["bound_at_delta"]
            assert c["adversarial_max_diff_max"] == d.max()
            assert c["rate_above_random_bound"] == np.count_nonzero(d > bound) / d.size
    print(f"cross rows: {len(cross)}")
    assert g["digits-svm-swap"].attrs["neighbour"] == b"swap"
print(f"gathered file: {count} datasets equal to the tasks' files")
PY

# A failing task: k1sweep refuses its setting (exit 2); the gather names it.
printf 'good %s k1sweep.synthetic_models=40 k1sweep.sizes=200 k1sweep.sets=10 likelihood.bootstrap=0\nbroken %s k1sweep.synthetic_models=40 k1sweep.sizes=200 k1sweep.sets=0\n' \
  "$src/configs/k1sweep-synthetic.ini" "$src/configs/k1sweep-synthetic.ini" > atlas-broken.list
submit atlas-broken.list
gather_log=dpbo-atlas-gather-$gather_job.out
cat "$gather_log"
grep -q "task 1 'broken' (line 2): failed, dpbo k1sweep exited 2 (job ${array_job}_1" "$gather_log" ||
  fail "the gather does not name the failed task"
grep -q "good" <<< "$(grep "cannot be gathered\|task 0" "$gather_log")" && fail "the good task was named"
[[ ! -e results/atlas-broken.h5 && -z $(find results -mindepth 1 -name '*tmp*') ]] || fail "a file was written"
state=$(scontrol show job -o "$gather_job" 2>/dev/null | sed -n 's/.* JobState=\([A-Z_]*\) .*/\1/p')
[[ -z $state || $state == FAILED ]] || fail "gather job $gather_job ended $state, expected FAILED"
echo PASS
