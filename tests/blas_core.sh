#!/usr/bin/env bash
# dpbo runs OpenBLAS's best kernels for this CPU and says which (issue #24
# item 3, src/base/blas.h). Machine-independent: what "best" is comes from
# an independent reading of /proc/cpuinfo's flags here, not from dpbo.
#   default      `dpbo --version` and a run's start-up header name a core of
#                the class the flags allow (AVX-512: SkylakeX, Cooperlake,
#                SapphireRapids; AVX2+FMA: Haswell, Zen or AMD's own; AVX:
#                Sandybridge), so a weaker choice of OpenBLAS was replaced
#   mpiexec -n 2 the same, and one line, from rank 0
#   unknown CPU  OpenBLAS says Prescott (blas_corename_shim.c, LD_PRELOAD):
#                each rank starts again with OPENBLAS_CORETYPE=best, before
#                MPI_Init, and says "chosen by dpbo"; the run finishes
#   Prescott     OPENBLAS_CORETYPE=Prescott is kept and warned about (on a
#                CPU with AVX at least)
#   keep         DPBO_BLAS_CORE=keep: OpenBLAS's own choice, never dpbo's (the
#                shim's Prescott: kept, and warned about)
#   k1sweep      the result file's attribute blas is the start-up line
#   audit        `dpbo audit --pipeline` on 2 ranks (a tuning run per rank and
#                input): one line, from rank 0, said by app (issue #25)
#   misspelt     DPBO_BLAS_CORE=kepe: exit 2, one message
# Skips (exit 77, with the reason) off x86-64 and against another BLAS.
#   blas_core.sh CORENAME_SHIM.so            (CTest: blas_core)
set -uo pipefail
shim=${1:?usage: blas_core.sh CORENAME_SHIM.so}
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
unset OPENBLAS_CORETYPE DPBO_BLAS_CORE DPBO_BLAS_REEXEC
if [[ $(uname -m) != x86_64 ]]; then
  echo "SKIP: $(uname -m) is not x86-64: dpbo chooses no OpenBLAS core there"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failed=0
fail() { echo "FAIL: $*"; failed=1; }

# The best core by the flags: as OpenBLAS's kernels need them (and Linux
# lists a flag only when the OS saves its registers).
flags=" $(grep -m1 '^flags' /proc/cpuinfo | cut -d: -f2) "
has() { for f; do [[ $flags == *" $f "* ]] || return 1; done; }
if has avx512f avx512bw avx512dq avx512vl avx512cd; then
  best=SkylakeX class="SkylakeX Cooperlake SapphireRapids"
elif has avx avx2 fma; then
  best=Haswell class="Haswell Zen Bulldozer Piledriver Steamroller Excavator"
elif has avx; then
  best=Sandybridge class="Sandybridge"
else
  best="" class=""
fi
echo "this CPU by /proc/cpuinfo: best core ${best:-(none above SSE)}"

# core TEXT: the core named by a "BLAS: OpenBLAS V, core NAME..." line in TEXT.
core() { sed -n 's/.*BLAS: OpenBLAS [^,]*, core \([A-Za-z0-9_]*\).*/\1/p' <<< "$1" | head -1; }
in_class() { [[ " $class " == *" $1 "* ]]; }

out=$("$bin" --version 2>&1)
echo "$out"
if grep -q "BLAS: not OpenBLAS" <<< "$out"; then
  echo "SKIP: dpbo was built against another BLAS than OpenBLAS: no core to choose"
  exit 77
fi
got=$(core "$out")
if [[ -z $got ]]; then
  fail "default: dpbo --version names no BLAS core"
elif [[ -n $best ]] && ! in_class "$got"; then
  fail "default: core $got, expected one of: $class"
elif [[ -z $best ]] && grep -q "weaker" <<< "$out"; then
  fail "default: a weaker core on a CPU without AVX"
else
  echo "ok: default: core $got"
fi

# A run's start-up header, on 2 ranks: each rank starts again with the same
# arguments before MPI_Init; the run finishes and rank 0 alone says the core.
{ printf '[run]\niterations = 3\nretries = 0\n[space]\npoints = 16\ndim.a = linear 0 1\n'
  printf '[gp]\nnoise_std = 0.1\n[objective]\nkind = synthetic\nfunction = gp_prior\n'
  printf '[output]\ndir = %s/out\nname = run\n' "$work"; } > run.ini
"$mpiexec" -n 2 --oversubscribe "$bin" run run.ini > run.txt 2>&1
code=$?
lines=$(grep -c "BLAS: " run.txt)
got=$(core "$(cat run.txt)")
if [[ $code -ne 0 ]] || ! grep -q "best validation gain" run.txt; then
  fail "mpiexec -n 2: exit $code, the run did not finish"; cat run.txt
elif [[ $lines -ne 1 ]]; then
  fail "mpiexec -n 2: $lines BLAS lines, expected 1 (rank 0's)"; cat run.txt
elif [[ -n $best ]] && ! in_class "$got"; then
  fail "mpiexec -n 2: core '$got', expected one of: $class"; cat run.txt
else
  echo "ok: mpiexec -n 2: $(grep "BLAS: " run.txt)"
fi

# An OpenBLAS that does not know the CPU and falls back to Prescott: each
# of 2 ranks starts again with the best core before MPI_Init, the run
# finishes, and rank 0 says dpbo chose the core.
if [[ -n $best ]]; then
  "$mpiexec" -n 2 --oversubscribe env LD_PRELOAD="$shim" \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" \
    "$bin" run run.ini --overwrite > unknown.txt 2>&1
  code=$?
  got=$(core "$(cat unknown.txt)")
  if [[ $code -ne 0 ]] || ! grep -q "best validation gain" unknown.txt; then
    fail "unknown CPU: exit $code, the run did not finish"; cat unknown.txt
  elif ! in_class "$got" || ! grep -qF "chosen by dpbo: OpenBLAS chose Prescott" unknown.txt \
      || [[ $(grep -c "BLAS: " unknown.txt) -ne 1 ]]; then
    fail "unknown CPU: expected one line 'core <one of: $class>, chosen by dpbo: OpenBLAS chose Prescott'"
    cat unknown.txt
  else
    echo "ok: unknown CPU: $(grep "BLAS: " unknown.txt)"
  fi
else
  echo "ok: unknown CPU: not checked, this CPU has nothing above SSE"
fi

# The user's OPENBLAS_CORETYPE is kept; weaker than the CPU's best, warned.
if [[ -n $best ]]; then
  OPENBLAS_CORETYPE=Prescott "$bin" run run.ini --overwrite > forced.txt 2>&1
  code=$?
  want="warning: dpbo: BLAS: OpenBLAS"
  want2="core Prescott, set by OPENBLAS_CORETYPE=Prescott: weaker than $best"
  if [[ $code -ne 0 ]] || ! grep -qF "$want" forced.txt || ! grep -qF "$want2" forced.txt; then
    fail "Prescott: exit $code, expected the warning '$want2'"; cat forced.txt
  else
    echo "ok: Prescott: $(grep -F "$want2" forced.txt)"
  fi
else
  echo "ok: Prescott: not checked, this CPU has nothing above SSE"
fi

# DPBO_BLAS_CORE=keep: OpenBLAS's own choice stays, never dpbo's; the
# shim's Prescott is kept and warned about.
out=$(DPBO_BLAS_CORE=keep "$bin" --version 2>&1)
code=$?
if [[ $code -ne 0 ]] || grep -q "chosen by dpbo" <<< "$out" || [[ -z $(core "$out") ]]; then
  fail "keep: exit $code: $out"
else
  echo "ok: keep: $(grep "BLAS: " <<< "$out")"
fi
if [[ -n $best ]]; then
  out=$(DPBO_BLAS_CORE=keep LD_PRELOAD="$shim" \
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$bin" --version 2>&1)
  want="core Prescott, kept by DPBO_BLAS_CORE=keep: weaker than $best"
  if ! grep -qF "$want" <<< "$out"; then
    fail "keep, unknown CPU: expected '$want': $out"
  else
    echo "ok: keep, unknown CPU: $(grep "BLAS: " <<< "$out")"
  fi
fi

# The k1 sweep's result file keeps the line beside dpbo_version (its stage
# times depend on the kernels): a small synthetic sweep on 2 ranks.
"$mpiexec" -n 2 --oversubscribe "$bin" k1sweep "${DPBO_SOURCE_DIR:?}/configs/k1sweep-synthetic.ini" \
  --set output.dir="$work/out" --set output.name=sweep --set k1sweep.synthetic_models=60 \
  --set k1sweep.sizes=100 --set k1sweep.sets=4 --set likelihood.bootstrap=0 > sweep.txt 2>&1
code=$?
stored=$("${DPBO_PYTHON:-python3}" -c '
import sys, h5py
v = h5py.File(sys.argv[1], "r").attrs["blas"]
print(v.decode() if isinstance(v, bytes) else v)' \
  "$work/out/sweep.h5" 2>&1)
said=$(grep -o "BLAS: .*" sweep.txt | head -1)
if [[ $code -ne 0 || -z $said || $stored != "$said" ]]; then
  fail "k1sweep: exit $code, attribute blas '$stored', start-up line '$said'"; cat sweep.txt
else
  echo "ok: k1sweep: /blas = '$stored'"
fi

# The audit pipeline runs a tuning run on each input, on every rank: still
# one line, rank 0's, said once by app before the runs; also as a warning
# (a weaker core forced), which every rank's runs used to print.
for forced in "" ${best:+Prescott}; do
  OPENBLAS_CORETYPE=$forced "$mpiexec" -n 2 --oversubscribe "$bin" audit --pipeline \
    "$DPBO_SOURCE_DIR/configs/audit-alg1-small.ini" --trials 200 > audit.txt 2>&1
  code=$?
  lines=$(grep -c "BLAS: " audit.txt)
  if [[ $code -ne 0 || $lines -ne 1 ]]; then
    fail "audit --pipeline${forced:+, OPENBLAS_CORETYPE=$forced}: exit $code, $lines BLAS lines, expected 1 (rank 0's)"
    cat audit.txt
  else
    echo "ok: audit --pipeline${forced:+, OPENBLAS_CORETYPE=$forced}: $(grep "BLAS: " audit.txt)"
  fi
done

# A misspelt DPBO_BLAS_CORE: one error, exit 2.
DPBO_BLAS_CORE=kepe "$bin" --version > bad.txt 2>&1
code=$?
if [[ $code -ne 2 ]] || [[ $(grep -c "DPBO_BLAS_CORE=kepe is not a choice" bad.txt) -ne 1 ]]; then
  fail "misspelt: exit $code, expected 2 and one message"; cat bad.txt
else
  echo "ok: misspelt: $(cat bad.txt)"
fi
exit $failed
