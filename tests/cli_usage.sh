#!/usr/bin/env bash
# The command line as users type it: `dpbo COMMAND --help` (or -h) prints
# that command's usage on stdout and exits 0, also when other arguments are
# present; an unknown command with --help is still an error (exit 2);
# `--set=section.key=value` is the same as `--set section.key=value` for
# every command that takes --set (run, compare, k1sweep, release); a help
# flag given as the value of --set is a value, not a request for help; a run
# in which every evaluation failed exits 3.
set -uo pipefail
bin=${DPBO_BIN:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
fail=0
check() { echo "FAIL: $*"; fail=1; }

for cmd in run release utility compare k1sweep info; do
  for flag in --help -h; do
    "$bin" "$cmd" "$flag" > out.txt 2> err.txt
    code=$?
    [[ $code -eq 0 ]] || check "dpbo $cmd $flag exited $code"
    grep -q "^  dpbo $cmd " out.txt || check "dpbo $cmd $flag: no usage line of $cmd"
    [[ $(grep -c '^  dpbo ' out.txt) -eq 1 ]] || check "dpbo $cmd $flag: printed other commands' usage too"
    grep -q '^Exit codes:' out.txt || check "dpbo $cmd $flag: no exit codes"
    [[ ! -s err.txt ]] || check "dpbo $cmd $flag wrote to stderr: $(cat err.txt)"
  done
done
"$bin" run some.ini --quiet --help > out.txt 2>&1 || check "dpbo run some.ini --quiet --help exited $?"
"$bin" frobnicate --help > out.txt 2>&1
[[ $? -eq 2 ]] || check "dpbo frobnicate --help should exit 2"

cat > run.ini <<INI
[run]
iterations = 2
seed = 3
[space]
kind = sobol
points = 32
dim.x1 = linear -5 10
dim.x2 = linear 0 15
[gp]
mean = 0
signal_std = 50
noise_std = 1
[objective]
kind = synthetic
function = branin
[output]
dir = $work/out
INI
# --set= and --set give the same run (and both differ from the file's seed).
"$bin" run run.ini --quiet --set=run.seed=7 --set=output.name=joined > log1.txt 2>&1 \
  || check "dpbo run --set=run.seed=7 exited $?: $(cat log1.txt)"
"$bin" run run.ini --quiet --set run.seed=7 --set output.name=spaced > log2.txt 2>&1 \
  || check "dpbo run --set run.seed=7 exited $?: $(cat log2.txt)"
idx() { h5dump -d /trace/index "$1" 2>/dev/null | sed -n '/DATA {/,/}/p'; }
[[ -n $(idx out/joined.h5) && $(idx out/joined.h5) == "$(idx out/spaced.h5)" ]] \
  || check "--set=run.seed=7 and --set run.seed=7 gave different traces"
# The value of --set is never taken for a help flag.
"$bin" run run.ini --quiet --set -h > log3.txt 2>&1
[[ $? -eq 2 ]] && grep -q "dpbo: error:.*'-h'" log3.txt \
  || check "--set -h should be refused as an assignment: $(cat log3.txt)"

# Relative paths in a config are resolved against the current directory, not
# the config file's folder (docs/own-model.md).
mkdir -p cfg
sed -e "s|^dir = .*|dir = out-rel|" run.ini > cfg/rel.ini
"$bin" run cfg/rel.ini --quiet > log5.txt 2>&1 || check "relative output.dir run exited $?: $(cat log5.txt)"
[[ -f out-rel/rel.h5 && ! -e cfg/out-rel ]] || check "output.dir = out-rel was not resolved against the current directory"

# A CSV as tables are exported: a header row and the label first
# (objective.header = auto, objective.label_column = 1) trains the svm.
{
  echo "species,sepal,petal"
  for i in $(seq 1 40); do echo "$(( i % 2 + 1 )),$(( i % 2 * 3 + i % 5 )).5,$(( i % 7 )).25"; done
} > table.csv
cat > table.ini <<INI
[run]
iterations = 2
[space]
kind = sobol
points = 8
dim.C = log 0.1 10
dim.gamma = log 0.01 1
[gp]
mean = 0.5
signal_std = 0.25
noise_std = 0.01
[objective]
kind = svm
data = table.csv
label_column = 1
train_rows = 20
validation_rows = 10
[output]
dir = out
INI
"$bin" run table.ini > log6.txt 2>&1 || check "svm on a CSV with a header and the label first exited $?: $(cat log6.txt)"
grep -q "table.csv:1: a header row" log6.txt || check "the header row was not reported: $(cat log6.txt)"

# A run whose every evaluation fails exits 3 with one summary naming the
# first failure, keeps its run file (the failures are in it) and releases
# nothing; before, it ended "completed" with exit 0 and a release of the prior.
printf '#!/bin/sh\necho "cannot load model" >&2\nexit 1\n' > broken.sh
chmod +x broken.sh
sed -e 's/^kind = synthetic/kind = command/' -e "s|^function = branin|command = $work/broken.sh\nvalue_range = 0 1|" \
  run.ini > broken.ini
printf '[privacy]\nalgorithm = 1\nepsilon = 1\ndelta = 0.05\nk1 = 0.99\n' >> broken.ini
"$bin" run broken.ini --quiet --set run.retries=0 > log4.txt 2>&1
code=$?
[[ $code -eq 3 ]] || check "a run whose evaluations all failed exited $code, expected 3: $(cat log4.txt)"
grep -q "dpbo: error: all 2 evaluations failed; no release was made. The first: .*cannot load model" log4.txt \
  || check "no summary of the failed run: $(cat log4.txt)"
[[ -f out/broken.h5 ]] || check "the run file with the failures is missing"
[[ -z $(find out -name 'broken.release*' -print -quit) ]] || check "a release was written"
exit $fail
