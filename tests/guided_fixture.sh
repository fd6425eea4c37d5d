# shellcheck shell=bash
# Sourced by guided_run.sh and guided_run_random_search.sh (issue #26): the
# set-up both share. A GP-guided selection (privacy.algorithm = guided) on a
# real objective: logistic regression on the digits, 0 against the rest, 300
# training and 100 validation rows, 32 candidates, T = 12, T1 = 4, (1, 1e-6),
# seeded noise, run files in $work/out.
#
#   guided_fixture_start BASE [KEY = VALUE ...]   writes $work/g.ini with
#       privacy.guided_base = BASE and the extra [privacy] lines given
#   run NAME [ARGS...]      dpbo run of g.ini as output.name = NAME on ${np:-2}
#                           ranks, quiet, its log in $work/NAME.log; its status
#   ok NAME [ARGS...]       the same, and fails the test unless it exits 0
#   ds FILE DATASET         a dataset of a run file as one line
#   charges FILE            the ledger's charge lines of run file FILE
#                           (algorithm, epsilon, delta, mechanism, params)
set -uo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/digits_logreg.sh"
digits_logreg_start

guided_fixture_start() {
  local base=$1
  shift
  {
    cat <<INI
[run]
iterations = 12
seed = 2015
[space]
kind = grid
dim.lambda = log 0.0001 1 32
$(digits_logreg_objective)
[privacy]
algorithm = guided
epsilon = 1
delta = 1e-6
guided_evaluations = 4
guided_base = $base
noise = seeded
noise_seed = 11
INI
    printf '%s\n' "$@"
    printf '[output]\ndir = %s/out\nname = g\n' "$work"
  } > "$work/g.ini"
}

run() {
  local name=$1
  shift
  "$mpiexec" -n "${np:-2}" --oversubscribe "$bin" run "$work/g.ini" --quiet \
    --set "output.name=$name" "$@" > "$work/$name.log" 2>&1
}
ok() {
  local name=$1 code
  shift
  run "$name" "$@"
  code=$?
  [[ $code == 0 ]] || { cat "$work/$name.log"; fail "$name exited $code"; }
}
ds() { "$py" -c 'import h5py,sys; print(" ".join(str(x) for x in h5py.File(sys.argv[1],"r")[sys.argv[2]][()]))' "$1" "$2"; }
charges() { awk -F'\t' -v f="$1" '$4 == "charge" && $14 == f {print $7, $10, $11}' "$work/out/dpbo-ledger"; }
