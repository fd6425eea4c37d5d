#!/usr/bin/env bash
# Are two dpbo builds bit-identical in what they compute?
#   tools/compare-builds.sh OLD_DPBO NEW_DPBO [WORKDIR]
# Runs a fixed list of seeded commands (the cases below) with each binary in
# its own scratch directory, WORKDIR/old/CASE and WORKDIR/new/CASE (default
# WORKDIR: a new temporary directory, kept for inspection), then compares the
# two directories: the same files; every HDF5 file object by object (h5dump
# -m %.17g of every group, dataset and attribute: 17 digits round-trip a
# double, so the same text means the same bits); every JSON file; each
# command's stdout, stderr and exit code. It prints one line per case, `same`
# or `DIFFERS: <first differing path>` (FILE:/group/dataset, FILE:/group@attr,
# FILE:"json_key" or FILE:LINE), and a summary; exit 0 only when every case is
# the same (1 otherwise, 2 on bad usage).
#
# Masked (the value is replaced by "masked"; the object or key must still
# exist on both sides), and nothing else:
#  - HDF5: every dataset or attribute named *_seconds (timings: the trace's
#    eval_seconds and step_seconds, wall_seconds, busy_seconds, k1sweep's and
#    compare's phase timings), worker_utilization (busy/wall time),
#    libsvm_cache_mb (k1sweep's kernel cache, sized from free memory),
#    peak_rss_bytes_max_rank, peak_rss_bytes_total, dpbo_version, blas (the
#    OpenBLAS core that ran: the machine's, not the build's);
#  - JSON: "dpbo_version";
#  - stdout/stderr: every line with the start-up "dpbo: BLAS:" report (each
#    rank may print it, in any order); durations ("elapsed 1.2s", "eta 3.4s", "in 0.5 s",
#    "2.1 s evaluating", "; 0.8 s"), "utilization 5%", the peak resident
#    memory line, mpiexec's job id in its error messages and the rank it names
#    as the first to exit (a race when every rank exits 1), and in `dpbo audit
#    --pipeline` only (its releases use the operating system's noise by
#    design) the "audited eps >=" column and the "strongest event" lines.
#  - the ledger file (dpbo-ledger): each line's UTC time and its checksum
#    (the chain covers the time), never its amounts, key, kind or order.
# Traces, posteriors, released values, sensitivities and ledgers are never
# masked. Every command runs in its case directory with relative paths; the
# ledger records absolute ones (the run files' @ledger_file and
# @ledger_runfile, its lines, its log lines; a run file copied from another
# case keeps that case's), so WORKDIR/old/ and WORKDIR/new/ read as WORK/ in
# every file compared.
#
# COMPARE_LOCK=FILE runs the cases under `flock FILE` (a shared machine),
# letting it go after each minute.
# COMPARE_NEW_SET=section.key=value adds that --set to NEW's run and compare commands:
# a self-test of this tool, which must then print DIFFERS.
set -euo pipefail
usage() { echo "usage: $0 OLD_DPBO NEW_DPBO [WORKDIR]" >&2; exit 2; }
[[ $# -eq 2 || $# -eq 3 ]] || usage
old=$(realpath "$1") new=$(realpath "$2")
[[ -x $old && -x $new ]] || { echo "$0: not executable: $1 or $2" >&2; exit 2; }
work=$(realpath -m "${3:-$(mktemp -d -t compare-builds.XXXXXX)}")
src=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
digits=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
[[ $EUID -ne 0 ]] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
command -v h5dump > /dev/null || { echo "$0: h5dump (hdf5-tools) is needed" >&2; exit 2; }

# --- inputs: configs of the tests, written into WORKDIR/inputs -------------------------
mkdir -p "$work/inputs" && cd "$work/inputs"
cp "$src"/configs/{demo,alg2-digits,audit-alg1-small,audit-alg2-small,audit-alg3-small}.ini .
cp "$src/configs/k1sweep-synthetic.ini" .
syn() { # synthetic objective on two dimensions (as tests/release_roundtrip.sh)
  printf '[run]\niterations = 10\nseed = 5\n%s\n[space]\nkind = sobol\npoints = 400\n' "$1"
  printf 'dim.x = linear 0 1\ndim.y = log 0.01 100\n[gp]\nkernel = matern52\nlengthscale = 0.3\n'
  printf 'mean = 0\nsignal_std = 1\nnoise_std = %s\n[objective]\nkind = synthetic\n' "$2"
  printf 'function = gp_prior\nnoise_std = %s\n%s\n[output]\ndir = out\nname = r\n' "$3" "$4"
}
seeded='noise = seeded
noise_seed = 77'
syn "" 0.1 0.1 "$(printf '[privacy]\nalgorithm = 1\nepsilon = 2\ndelta = 0.1\nk1 = 0.9\n%s' "$seeded")" > alg1.ini
syn "" 0 0 "$(printf '[privacy]\nalgorithm = 2\nepsilon = 1\ndelta = 0.1\nA = 1\ntau = 2\n%s' "$seeded")" |
  sed '0,/^noise_std = 0$/s//noise_std = 0\njitter = 1e-6/' > alg2.ini
syn "" 0.1 0.1 "$(printf '[ucb]\nacquisition = ei')" > ei.ini
syn "batch = 2" 0.1 0.1 "" > batch2.ini
sed -e 's/^dim.lambda = .*/dim.lambda = log 0.5 10 64/' -e 's/^\(train\|validation\)_rows = .*/\1_rows = 300/' \
  -e 's/^iterations = .*/iterations = 8/' -e 's/^algorithm = .*/algorithm = 3\nnoise = seeded\nnoise_seed = 78/' \
  -e 's/^name = .*/name = r/' -e 's/^dir = .*/dir = out/' "$src/configs/alg3-digits.ini" > alg3.ini
printf '%s\n' '[run]' 'iterations = 4' 'seed = 3' '[space]' 'kind = sobol' 'points = 32' \
  'dim.C = log 0.01 1000' 'dim.gamma = log 0.001 10' '[gp]' 'kernel = matern52' 'lengthscale = 0.3' \
  'mean = 0.5' 'signal_std = 0.25' 'noise_std = 0.01' '[objective]' 'kind = svm' "data = $digits" \
  'format = csv' 'train_rows = 300' 'validation_rows = 200' 'test_rows = 200' 'split_seed = 5' \
  '[privacy]' 'algorithm = 1' 'delta = 0.05' "$seeded" '[compare]' 'repetitions = 6' \
  'epsilons = 0.5 5' 'ps_eta = 1' '[output]' 'dir = out' 'name = cmp' > cmp.ini # tests/test_compare.sh, on the digits
# the logreg variant of tests/test_compare.sh
sed -e 's/^kind = svm/kind = logreg\npositive_label = 0\nloss = sigmoid/' -e '/^dim.C/d' \
  -e 's/^dim.gamma = .*/dim.lambda = log 0.0001 1/' -e 's/^mean = 0.5/mean = -0.35/' \
  -e 's/^signal_std = 0.25/signal_std = 0.15/' cmp.ini > lr.ini
# guided (tests/guided_run.sh) and liu_talwar (tests/selection_run.sh) on logreg over the digits
printf '%s\n' '[run]' 'iterations = 12' 'seed = 2015' '[space]' 'kind = grid' \
  'dim.lambda = log 0.0001 1 32' '[objective]' 'kind = logreg' "data = $digits" 'format = csv' \
  'train_rows = 300' 'validation_rows = 100' 'split_seed = 7' 'positive_label = 0' 'loss = sigmoid' \
  '[privacy]' 'algorithm = guided' 'epsilon = 1' 'delta = 1e-6' 'guided_evaluations = 4' \
  'noise = seeded' 'noise_seed = 11' '[output]' 'dir = out' 'name = r' > guided.ini
sed -e 's/^iterations = 12/iterations = 6/' -e 's/^algorithm = guided/algorithm = liu_talwar/' \
  -e '/^guided_evaluations/d' guided.ini > lt.ini

# --- the cases: NAME|RANKS|COMMAND[|FROM] (FROM: copy that case's run file in first; --------
# COMMAND @CASE: two seeded releases from CASE's run file, the second at epsilon 0.5)
small="--set run.iterations=6 --set space.points=256 --set output.dir=out --set privacy.noise=seeded --set privacy.noise_seed=11"
cases=(
  "demo|2|run demo.ini $small"
  "svm-alg2|2|run alg2-digits.ini $small --set objective.train_rows=400 --set objective.validation_rows=300"
  "synthetic-alg1-1rank|1|run alg1.ini"
  "synthetic-alg1-2ranks|2|run alg1.ini"
  "synthetic-alg2-2ranks|2|run alg2.ini"
  "logreg-alg3-ei-2ranks|2|run alg3.ini"
  "synthetic-ei-1rank|1|run ei.ini"
  "synthetic-batch2-2ranks|2|run batch2.ini"
  "logreg-alg1-small|1|run audit-alg1-small.ini --set output.dir=out --set privacy.noise=seeded --set privacy.noise_seed=12"
  "release-alg1|2|@synthetic-alg1-2ranks"
  "release-alg2|2|@synthetic-alg2-2ranks"
  "release-alg3|2|@logreg-alg3-ei-2ranks"
  "utility-alg1|2|utility r.h5 --epsilon 0.5,5 --tail 0.1|synthetic-alg1-2ranks"
  "utility-alg2|2|utility r.h5 --epsilon 0.5,5|synthetic-alg2-2ranks"
  "utility-alg3|1|utility r.h5 --epsilon 0.5,5|logreg-alg3-ei-2ranks"
  "compare-svm|2|compare cmp.ini"
  "compare-logreg|2|compare lr.ini"
  "k1sweep-synthetic|2|k1sweep k1sweep-synthetic.ini --set output.dir=out --set k1sweep.synthetic_models=300 --set likelihood.eigen_threshold=100 --set k1sweep.sizes=500"
  "audit-mechanisms|2|audit --trials 100000"
  "audit-pipeline-alg1|2|audit --pipeline audit-alg1-small.ini --trials 2000"
  "audit-pipeline-alg2|2|audit --pipeline audit-alg2-small.ini --trials 2000"
  "audit-pipeline-alg3|2|audit --pipeline audit-alg3-small.ini --trials 2000"
  "audit-gaussian-broken|2|audit --mechanism gaussian --broken --delta 0.01 --trials 20000"
  "audit-seed-attack|2|audit --seed-attack liu_talwar --trials 20000"
  "audit-seed-attack-broken|2|audit --seed-attack papernot_steinke --broken --trials 20000"
  "audit-help|1|audit --help"
  "audit-usage-mechanism|1|audit --mechanism gauss"
  "audit-usage-missing-value|1|audit --trials"
  "audit-usage-pipeline-delta|1|audit --delta 0.01 --pipeline x.ini"
  "audit-usage-seed-pipeline|1|audit --seed-attack liu_talwar --set run.seed=1"
  "audit-usage-set-alone|1|audit --set run.seed=1"
  "audit-pipeline-no-config|1|audit --pipeline missing.ini"
  "audit-pipeline-not-logreg|1|audit --pipeline demo.ini --trials 10"
  # what dpbo run makes of the file at its run-file path (FROM's r.h5 is read with output.dir=.)
  "runfile-stop|2|run alg1.ini --stop-after 4"
  "runfile-unfinished|2|run alg1.ini --set output.dir=.|runfile-stop"
  "runfile-resume|2|run alg1.ini --set output.dir=. --resume|runfile-stop"
  "runfile-resume-none|1|run alg1.ini --resume"
  "runfile-finished|2|run alg1.ini --set output.dir=.|synthetic-alg1-2ranks"
  "runfile-resume-complete|2|run alg1.ini --set output.dir=. --resume|synthetic-alg1-2ranks"
  "runfile-overwrite|2|run alg1.ini --set output.dir=. --overwrite|synthetic-alg1-2ranks"
  "selection-stop|2|run lt.ini --stop-after 1"
  "selection-resume|2|run lt.ini --set output.dir=. --resume|selection-stop"
  "guided|2|run guided.ini"
  "guided-exists|2|run guided.ini --set output.dir=.|guided"
  "guided-resume|2|run guided.ini --set output.dir=. --resume|guided"
  "guided-overwrite|2|run guided.ini --set output.dir=. --overwrite|guided"
  "guided-stop|2|run guided.ini --stop-after 3"
)

# dp SIDE RANKS ARGS...: one command in the case directory; logs cmdK.{out,err,exit} (124: hung).
dp() {
  local bin=$old n=$2 rc=0
  [[ $1 == new ]] && bin=$new
  shift 2
  k=$((k + 1))
  timeout 600 mpiexec -n "$n" --oversubscribe "$bin" "$@" > "cmd$k.out" 2> "cmd$k.err" || rc=$?
  echo "$rc" > "cmd$k.exit"
}

# run_case SIDE NAME RANKS COMMAND [FROM]: FROM's run file is copied in first.
run_case() {
  local side=$1 name=$2 n=$3 cmd=$4 from=${5:-} extra=()
  rm -rf "${work:?}/$side/$name" && mkdir -p "$work/$side/$name" && cd "$work/$side/$name"
  cp "$work"/inputs/*.ini .
  k=0
  if [[ $side == new && -n ${COMPARE_NEW_SET:-} ]]; then extra=(--set "$COMPARE_NEW_SET"); fi
  if [[ $cmd == @* ]]; then # two seeded releases: the ledger counts both
    cp "$work/$side/${cmd#@}/out/r.h5" . 2> /dev/null || true # missing: the commands fail, and say so
    dp "$side" "$n" release r.h5 --set privacy.noise=seeded --set privacy.noise_seed=101
    dp "$side" "$n" release r.h5 --set privacy.noise=seeded --set privacy.noise_seed=102 --set privacy.epsilon=0.5
    return
  fi
  [[ -z $from ]] || cp "$work/$side/$from/out/r.h5" . 2> /dev/null || true
  local words
  read -r -a words <<< "$cmd"
  [[ ${words[0]} == run || ${words[0]} == compare ]] || extra=()
  dp "$side" "$n" "${words[@]}" "${extra[@]}"
}

# Filters: text with its masked values (see the header), one line per object or key.
h5_text() { # FILE.h5 -> lines "PATH<TAB>h5dump line"; DATA of masked objects dropped
  h5dump -m '%.17g' "$1" | awk -v mask='(_seconds|@worker_utilization|@libsvm_cache_mb|@peak_rss_bytes_max_rank|@peak_rss_bytes_total|@dpbo_version|@blas)$' '
    function path(  i, p) { p = ""; for (i = 1; i <= d; i++) p = p s[i]; gsub(/\/\/+/, "/", p); return p }
    NR == 1 { next }
    indata && /^ *}$/ { indata = 0 }
    indata { if (!masked) print path() "\t" $0; next }
    /^ *DATA \{$/ { s[++d] = ""; indata = 1; masked = path() ~ mask; print path() "\t" $0 (masked ? " masked" : ""); next }
    /^ *(GROUP|DATASET|ATTRIBUTE) ".*" \{$/ {
      name = $0; sub(/^ *[A-Z]+ "/, "", name); sub(/" \{$/, "", name)
      s[++d] = ($1 == "ATTRIBUTE" ? "@" : "/") name; print path() "\t" $0; next }
    /\{$/ { s[++d] = ""; print path() "\t" $0; next }
    /^ *}$/ { print path() "\t" $0; d--; next }
    { print path() "\t" $0 }'
}
json_text() { sed -E 's/([{,])"/\1\n"/g' "$1" | sed -E 's/^"dpbo_version":"[^"]*"/"dpbo_version":masked/'; }
log_text() { # the audit's masks only on `dpbo audit --pipeline` (OS noise); the mechanisms' are seeded
  local audit=(-e 's/^(v~|lambda~)( +[0-9.]+ +[0-9.e+-]+) +[-0-9.]+( +[0-9]+ )/\1\2 masked\3/'
    -e 's/^( +strongest event:).*/\1 masked/')
  grep -q '^dpbo audit --pipeline' "$1" || audit=()
  sed -E -e '/dpbo: BLAS: /d' -e 's/(elapsed|eta) [0-9.]+s/\1 Ts/g' -e 's/([ (;]|^)[0-9.]+ s\b/\1T s/g' \
    -e 's/utilization [0-9.]+%/utilization P%/g' -e 's/^(dpbo: peak resident memory).*/\1 masked/' \
    -e 's/\[\[[0-9]+,/[[J,/g' -e 's/^(  Process name: \[\[J,[0-9]+\],)[0-9]+\]/\1R]/' "${audit[@]}" "$1"
}
ledger_text() { # the time and the chain masked (tab-separated: time 3rd, chain last)
  awk -F '\t' -v OFS='\t' 'NF > 3 { $3 = "masked"; $NF = "masked" } { print }' "$1"
}
# compare_file REL: prints the first differing path of one file, nothing if the same.
compare_file() {
  local rel=$1 f='cat' a=$work/a.txt b=$work/b.txt
  case $rel in
    *.h5) f=h5_text ;; *.json) f=json_text ;; *.out | *.err) f=log_text ;;
    dpbo-ledger | */dpbo-ledger) f=ledger_text ;; *) f='cat' ;;
  esac
  "$f" "$work/old/$name/$rel" | sed "s|$work/old/|WORK/|g" > "$a"
  "$f" "$work/new/$name/$rel" | sed "s|$work/new/|WORK/|g" > "$b"
  cmp -s "$a" "$b" && return 0
  local hunk op ln file=$a
  hunk=$(diff "$a" "$b" | head -1 || true) # 12c12, 5,7d4 or 9a10,11
  op=${hunk//[0-9,]/} ln=${hunk%%[acd,]*}
  if [[ $op == a ]]; then ln=${hunk#*a} ln=${ln%%,*} file=$b; fi
  local line
  line=$(sed -n "${ln}p" "$file")
  case $f in
    h5_text) echo "$rel:${line%%$'\t'*}" ;;
    json_text) echo "$rel:$(grep -oE '^"[^"]*"' <<< "$line" || echo "line $ln")" ;;
    *) echo "$rel:$ln" ;;
  esac
}

files() { # the case's files of SIDE: HDF5 first, then JSON, then the logs
  (cd "$work/$1/$name" && find . -mindepth 1 -type f | sed 's|^\./||' |
    awk '{ print (/\.h5$/ ? 0 : /\.json$/ ? 1 : 2) "\t" $0 }' | sort | cut -f2)
}
start=$SECONDS differ=0 locked=0 since=0
for c in "${cases[@]}"; do
  IFS='|' read -r name n cmd from <<< "$c"
  if [[ -n ${COMPARE_LOCK:-} && $locked -eq 0 ]]; then exec 9> "$COMPARE_LOCK" && flock 9 && locked=1 since=$SECONDS; fi
  run_case old "$name" "$n" "$cmd" "$from"
  run_case new "$name" "$n" "$cmd" "$from"
  if [[ $locked -eq 1 && $((SECONDS - since)) -ge 60 ]]; then flock -u 9 && locked=0; fi # others' turn
  result=same only=$(comm -3 <(files old | sort) <(files new | sort) | head -1 || true)
  if [[ -n $only ]]; then
    result="DIFFERS: $(if [[ $only == $'\t'* ]]; then echo new; else echo old; fi) alone has ${only#$'\t'}"
  else
    while read -r rel; do
      first=$(compare_file "$rel")
      if [[ -n $first ]]; then result="DIFFERS: $first"; break; fi
    done < <(files old)
  fi
  [[ $result == same ]] || differ=$((differ + 1))
  printf '%-26s %s\n' "$name" "$result"
done
rm -f "$work/a.txt" "$work/b.txt"
echo "${#cases[@]} cases: $((${#cases[@]} - differ)) same, $differ differ ($((SECONDS - start)) s; outputs in $work)"
[[ $differ -eq 0 ]]
