#!/usr/bin/env bash
# The svm objective agrees with LIBSVM's command-line tools: for each (C, γ)
# pair printed by svm_reference_case, `svm-train -c C -g G` on the scaled
# training split it wrote and `svm-predict` on its validation split must get
# exactly as many validation rows right as dpbo did in process.
#   test_svm_vs_libsvm_tools.sh PATH/TO/svm_reference_case
set -euo pipefail
reference_case=$1
digits=${DPBO_DIGITS:-/usr/lib/python3/dist-packages/sklearn/datasets/data/digits.csv.gz}
for tool in svm-train svm-predict; do
  if ! command -v "$tool" >/dev/null; then
    echo "SKIP: $tool not found (Debian package libsvm-tools)"
    exit 77
  fi
done

work=$(mktemp -d "${TMPDIR:-/tmp}/dpbo_svm_tools.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$reference_case" "$digits" "$work" >"$work/dpbo.txt"

cases=0
failures=0
while read -r tag C G dpbo_correct total; do
  [ "$tag" = case ] || continue
  cases=$((cases + 1))
  # svm-train's defaults (-m 100 -e 0.001 -h 1) equal dpbo_svm_options_default.
  svm-train -q -c "$C" -g "$G" "$work/train.libsvm" "$work/model" >/dev/null
  line=$(svm-predict "$work/valid.libsvm" "$work/model" "$work/predictions")
  # "Accuracy = 97.2% (486/500) (classification)"
  tools_correct=$(sed -n 's|.*(\([0-9]*\)/\([0-9]*\)).*|\1|p' <<<"$line")
  tools_total=$(sed -n 's|.*(\([0-9]*\)/\([0-9]*\)).*|\2|p' <<<"$line")
  if [ "$tools_correct" = "$dpbo_correct" ] && [ "$tools_total" = "$total" ]; then
    echo "ok   C=$C gamma=$G: dpbo $dpbo_correct/$total, LIBSVM tools $tools_correct/$tools_total"
  else
    echo "FAIL C=$C gamma=$G: dpbo $dpbo_correct/$total, LIBSVM tools '$line'"
    failures=$((failures + 1))
  fi
done <"$work/dpbo.txt"

if [ "$cases" -lt 3 ]; then
  echo "FAIL: svm_reference_case printed only $cases cases"
  exit 1
fi
echo "$cases cases, $failures disagreements"
[ "$failures" -eq 0 ]
