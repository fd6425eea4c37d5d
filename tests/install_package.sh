#!/usr/bin/env bash
# `cmake --install` gives a tree another program can use: the program and its
# man page, both libraries, only the public headers, a CMake package, a
# pkg-config file, the configurations, analysis scripts and job templates.
# A small program outside the tree (tests/install/consumer.c) is built
# against the installed tree three ways -- find_package(dpbo) with the shared
# and with the static library, pkg-config dpbo (shared) and dpbo-static -- and
# each build must print the same numbers, whose β_t is checked against the
# closed form 2 log(N t² π² / (3δ)) computed here by Python.
set -uo pipefail
build=${DPBO_BUILD_DIR:?} src=${DPBO_SOURCE_DIR:?}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 \
  || { cat "$work/install.log"; fail "cmake --install exited non-zero"; }

# What is installed.
libdir=$(head -1 <<< "$(cd "$prefix" && ls -d lib*/ lib/*-linux-gnu/ 2>/dev/null | while read -r d; do
  [[ -f $prefix/$d/libdpbo.a ]] && echo "$prefix/${d%/}"; done)")
[[ -n $libdir ]] || fail "no libdpbo.a under $prefix/lib*"
[[ -x $prefix/bin/dpbo ]] || fail "no bin/dpbo"
ls "$libdir"/libdpbo.so.* > /dev/null 2>&1 || fail "no shared library libdpbo.so.N in $libdir"
[[ -f $libdir/pkgconfig/dpbo.pc ]] || fail "no pkgconfig/dpbo.pc"
[[ -f $libdir/cmake/dpbo/dpboConfig.cmake ]] || fail "no cmake/dpbo/dpboConfig.cmake"
man=$prefix/share/man/man1/dpbo.1
[[ -f $man ]] || fail "no man page share/man/man1/dpbo.1"
grep -q 'dpbo release' "$man" || fail "the man page lacks the commands of dpbo --help"
for f in analysis/plot_run.py analysis/plot_compare.py analysis/plot_k1_sweep.py jobs/bo.sbatch jobs/dpbo-job.sh \
  jobs/local.sh configs/demo.ini; do
  [[ -f $prefix/share/dpbo/$f ]] || fail "share/dpbo/$f not installed"
done
# Only the public API: every installed header is one of include/dpbo/.
public=$(cd "$src/include/dpbo" && ls *.h | sort; echo version.h)
installed=$(cd "$prefix/include/dpbo" && ls | sort)
[[ $installed == "$(sort -u <<< "$public")" ]] \
  || fail "installed headers differ from include/dpbo: $(echo $installed)"
grep -l '#include "\(base\|core\|objectives\|run\|experiments\|app\)/' "$prefix"/include/dpbo/*.h \
  && fail "an installed header includes a private one"

# Three ways to build the consumer.
cp "$src/tests/install/consumer.c" "$src/tests/install/CMakeLists.txt" "$work/"
cmake -S "$work" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" > "$work/cmake.log" 2>&1 \
  && cmake --build "$work/build" > "$work/cmake-build.log" 2>&1 \
  || { cat "$work/cmake.log" "$work/cmake-build.log"; fail "find_package(dpbo) build failed"; }
export PKG_CONFIG_PATH=$libdir/pkgconfig
cc=$(command -v cc)
# shellcheck disable=SC2046
"$cc" -o "$work/pc_shared" "$work/consumer.c" $(pkg-config --cflags --libs dpbo) -lm \
  -Wl,-rpath,"$libdir" 2> "$work/pc.log" || { cat "$work/pc.log"; fail "pkg-config build failed"; }
# The static library through its own pkg-config file, as a user would link
# it: no path to libdpbo.a, no editing of the flags (issue #23: `pkg-config
# --static dpbo` linked libdpbo.so, which -ldpbo finds first).
[[ -f $libdir/pkgconfig/dpbo-static.pc ]] || fail "no pkgconfig/dpbo-static.pc"
pcs_flags=$(pkg-config --cflags --libs dpbo-static) || fail "pkg-config dpbo-static failed"
echo "pkg-config --cflags --libs dpbo-static: $pcs_flags"
# shellcheck disable=SC2086
"$cc" -o "$work/pc_static" "$work/consumer.c" $pcs_flags 2> "$work/pcs.log" \
  || { cat "$work/pcs.log"; fail "pkg-config dpbo-static build failed"; }
needed=$(readelf -d "$work/pc_static")
grep -q 'NEEDED.*libdpbo\.so' <<< "$needed" && fail "pc_static has NEEDED libdpbo.so: $(grep NEEDED <<< "$needed")"
# The whole of ldd's output is read before grep looks (grep -q on a pipe
# exits at the first match, and under pipefail ldd's SIGPIPE on its later
# lines then failed the check now and then).
shared_libs=$(ldd "$work/pc_shared") static_libs=$(ldd "$work/pc_static")
grep -qF "$libdir/libdpbo.so" <<< "$shared_libs" || fail "pc_shared does not load the installed libdpbo.so"
grep -q 'libdpbo.so' <<< "$static_libs" && fail "pc_static loads libdpbo.so"

for exe in build/consumer_shared build/consumer_static pc_shared pc_static; do
  "$work/$exe" > "$work/$(basename "$exe").out" 2> "$work/err.txt" \
    || { cat "$work/err.txt"; fail "$exe exited non-zero"; }
done
cat "$work/pc_shared.out"
for out in consumer_shared consumer_static pc_static; do
  cmp -s "$work/pc_shared.out" "$work/$out.out" || fail "$out printed something else than pc_shared"
done
version=$(sed -n 's/^project(dpbo VERSION \([0-9.]*\).*/\1/p' "$src/CMakeLists.txt")
"${DPBO_PYTHON:-python3}" - "$work/pc_shared.out" "$version" <<'PY' || exit 1
import math, sys
lines = dict(l.split(" ", 1) for l in open(sys.argv[1]).read().splitlines())
assert lines["dpbo"] == sys.argv[2], lines["dpbo"]
assert lines["size"] == "64", lines["size"]
u = [float(x) for x in lines["unit1"].split()]
assert all(0 <= x <= 1 for x in u), u
beta = 2 * math.log(64 * 5**2 * math.pi**2 / (3 * 0.05))
got = float(lines["beta"])
assert abs(got - beta) <= 1e-12 * beta, (got, beta)
print(f"beta_5 = {got!r} (closed form {beta!r})")
assert lines["status"].startswith("DPBO_ERR_CONFIG ("), lines["status"]
PY
echo "PASS: installed tree used from CMake and pkg-config, shared and static"
