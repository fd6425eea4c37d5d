# shellcheck shell=bash
# Sourced by the tests that run dpbo on logistic regression on scikit-learn's
# digits (0 against the rest): the set-up they share.
#
#   digits_logreg_start   bin, mpiexec and py from the environment (DPBO_BIN,
#                         MPIEXEC, DPBO_PYTHON), a scratch directory $work
#                         removed at exit, and $data, the digits file; exits
#                         77 (skipped) when it is missing
#   fail MESSAGE          prints FAIL: MESSAGE and ends the test (exit 1)
#   digits_logreg_objective [TRAIN [VALID [SPLIT_SEED]]]
#                         prints the [objective] section (for a config's
#                         heredoc): the logreg objective on $data with TRAIN
#                         (300) training and VALID (100) validation rows,
#                         split_seed SPLIT_SEED (7), 0 against the rest, the
#                         sigmoid loss
digits_logreg_start() {
  bin=${DPBO_BIN:?}
  mpiexec=${MPIEXEC:-mpiexec}
  py=${DPBO_PYTHON:-python3}
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  data=/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz
  [[ -r $data ]] || { echo "skipping: $data is missing"; exit 77; }
}

fail() { echo "FAIL: $*"; exit 1; }

digits_logreg_objective() {
  cat <<INI
[objective]
kind = logreg
data = ${data:?}
format = csv
train_rows = ${1:-300}
validation_rows = ${2:-100}
split_seed = ${3:-7}
positive_label = 0
loss = sigmoid
INI
}
