# Sourced by the dpbo compare shell tests (test_compare, compare_table,
# compare_references, test_plot_compare, test_export_compare,
# compare_command): what each of them set up alike.
#
# compare_fixture_start
#   bin, py, src, mpiexec from the environment (DPBO_BIN, DPBO_PYTHON,
#   DPBO_SOURCE_DIR, MPIEXEC) and a scratch directory $work
#   (/tmp/dpbo-<test>.XXXXXX) as the current directory, removed when the
#   test passes. A failure keeps it, and says so with the test's run time and
#   the load; a command that stops the test under set -e is named with its
#   file, line and exit status (a signal by name): a rare failure under load
#   (test_export_compare once, its output lost) leaves what it needs to be
#   explained.
# compare_fixture_blobs FILE [SECTION.KEY=VALUE | SECTION.KEY= ...]
#   $work/blobs.csv (tests/make_blobs.py: 240 rows, 4 features, fixed seed)
#   and FILE, the tiny svm compare config on it: N = 32 Sobol candidates over
#   (C, gamma), T = 4, run.seed 3, a Matern-5/2 GP, 80 training, validation
#   and test rows (split_seed 5), Algorithm 1 at delta 0.05 with seeded noise
#   (noise_seed 9), R = 6 repetitions at epsilon 0.5 and 5 (ps_eta 1), output
#   in $work/out named cmp. SECTION.KEY=VALUE replaces that key's line, or
#   adds it at the end of its section; SECTION.KEY= removes the line.
# compare_fixture_refused CODE ABSENT WANT... -- COMMAND...
#   Runs COMMAND with its standard error in err.txt (shown), and fails unless
#   it exits with CODE, err.txt holds every WANT (fixed strings) and the file
#   ABSENT does not exist ("": no file to check).

compare_fixture_start() {
  bin=${DPBO_BIN:?}
  py=${DPBO_PYTHON:-/usr/bin/python3}
  src=${DPBO_SOURCE_DIR:?}
  mpiexec=${MPIEXEC:-mpiexec}
  work=$(mktemp -d "${TMPDIR:-/tmp}/dpbo-$(basename "$0" .sh).XXXXXX")
  compare_fixture_t0=$SECONDS
  set -E # the ERR trap in functions and subshells too
  trap 'compare_fixture_stopped $? $LINENO "$BASH_COMMAND"' ERR
  trap 'compare_fixture_end $?' EXIT
  cd "$work"
}

# The ERR trap: only a failure that ends the test (set -e on) is reported,
# not one a `set +e` section checks itself.
compare_fixture_stopped() {
  [[ $- == *e* ]] || return 0
  local code=$1 at="${BASH_SOURCE[1]##*/}:$2" i how
  for ((i = 1; i < ${#FUNCNAME[@]} - 1; i++)); do
    at+=" (in ${FUNCNAME[i]}, called from ${BASH_SOURCE[i + 1]##*/}:${BASH_LINENO[i]})"
  done
  how="exited $code"
  ((code > 128)) && how+=" (signal $(kill -l $((code - 128)) 2> /dev/null || echo $((code - 128))))"
  echo "FAIL: $at: '$3' $how"
}

compare_fixture_end() {
  local code=$1
  cd /
  if ((code == 0)); then
    rm -rf "$work"
    return
  fi
  echo "FAIL: $(basename "$0") exit $code after $((SECONDS - compare_fixture_t0)) s" \
    "(load $(cut -d' ' -f1-3 /proc/loadavg)); its files are kept in $work:"
  find "$work" -maxdepth 2 -type f -printf '  %P (%s bytes)\n' | sort
}

compare_fixture_blobs() {
  local file=$1
  shift
  "$py" "$src/tests/make_blobs.py"
  cat > "$file" <<INI
[run]
iterations = 4
seed = 3
[space]
kind = sobol
points = 32
dim.C = log 0.01 1000
dim.gamma = log 0.001 10
[gp]
kernel = matern52
lengthscale = 0.3
mean = 0.5
signal_std = 0.25
noise_std = 0.01
[objective]
kind = svm
data = $work/blobs.csv
format = csv
train_rows = 80
validation_rows = 80
test_rows = 80
split_seed = 5
[privacy]
algorithm = 1
delta = 0.05
noise = seeded
noise_seed = 9
[compare]
repetitions = 6
epsilons = 0.5 5
ps_eta = 1
[output]
dir = $work/out
name = cmp
INI
  (($# == 0)) || "$py" - "$file" "$@" <<'PY'
import sys

path, edits = sys.argv[1], sys.argv[2:]
lines = open(path).read().splitlines()
for edit in edits:
    name, value = edit.split("=", 1)
    section, key = name.split(".", 1)
    start = lines.index(f"[{section}]")
    end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("[")), len(lines))
    at = next((i for i in range(start + 1, end) if lines[i].split(" = ")[0] == key), None)
    if at is None and value:
        lines.insert(end, f"{key} = {value}")
    elif at is not None and value:
        lines[at] = f"{key} = {value}"
    elif at is not None:
        del lines[at]
    else:
        sys.exit(f"compare_fixture_blobs: {name} is not in the config")
open(path, "w").write("\n".join(lines) + "\n")
PY
}

compare_fixture_refused() {
  local code=$1 absent=$2 rc=0
  shift 2
  local want=()
  while (($# > 0)) && [[ $1 != -- ]]; do
    want+=("$1")
    shift
  done
  shift # --
  "$@" 2> err.txt || rc=$?
  cat err.txt
  [[ $rc -eq $code ]] || { echo "FAIL: exit $rc, expected $code: $*"; exit 1; }
  local w
  for w in "${want[@]}"; do
    grep -qF -- "$w" err.txt || { echo "FAIL: the error does not name '$w': $*"; exit 1; }
  done
  [[ -z $absent || ! -e $absent ]] || { echo "FAIL: $absent was written: $*"; exit 1; }
}
