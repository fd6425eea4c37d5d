#!/usr/bin/env bash
# Run files against attacks and decay (issue #11, items 2, 4, 9 and 15):
#  - permissions: under umask 022 the run file and a checkpoint are 0600,
#    the release files 0644 (they follow the umask; 0600 under umask 077);
#    the ledger and `dpbo utility` replace the run file, never edit it;
#  - a symbolic link planted where the old scheme put its temporary files
#    ("<path>.tmp.<pid>"; the pid is known in advance to whoever starts the
#    process, here through exec) and at the release file's own name is never
#    written through: the victim keeps its contents and every file published
#    is a regular file;
#  - a 4-byte flip in /trace/gain of a checkpoint is refused by --resume and
#    in a finished run by `dpbo release` (exit 2, "corrupted"): the trace is
#    checksummed (Fletcher-32);
#  - the temporary files of killed writes (".<name>.tmp.<12 characters>")
#    are removed when the run continues, but never a symbolic link, a file
#    of another name, or the file a link points to.
# Usage: run_files_safe.sh [modes|links|corrupt|stale ...] (default: all).
set -uo pipefail
bin=${DPBO_BIN:?}
mpiexec=${MPIEXEC:-mpiexec}
py=${DPBO_PYTHON:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
cat > "$work/run.ini" <<INI
[run]
iterations = 10
seed = 4
[space]
kind = sobol
points = 300
dim.a = linear 0 1
dim.b = log 0.01 100
[gp]
kernel = matern52
lengthscale = 0.3
mean = 0
signal_std = 1
noise_std = 0.1
[objective]
kind = synthetic
function = gp_prior
noise_std = 0.1
[privacy]
algorithm = 1
epsilon = 1
delta = 0.01
noise = seeded
[output]
dir = $work/out
name = r
INI
mkdir -p "$work/out"
mode() { stat -c %a "$1"; }
run() { "$mpiexec" -n 2 --oversubscribe "$bin" run "$work/run.ini" --quiet "$@"; }

# --- permissions ---------------------------------------------------------------
check_modes() {
(umask 022 && run --set output.name=cut --stop-after 4) > /dev/null 2>&1
[[ -e $work/out/cut.h5 ]] || fail "no checkpoint after --stop-after 4"
[[ $(mode "$work/out/cut.h5") == 600 ]] || fail "a checkpoint under umask 022 is $(mode "$work/out/cut.h5"), not 600"
(umask 022 && run) > "$work/run.log" 2>&1 || { code=$?; cat "$work/run.log"; fail "run exited $code"; }
[[ $(mode "$work/out/r.h5") == 600 ]] || fail "a run file under umask 022 is $(mode "$work/out/r.h5"), not 600"
for f in r.release.h5 r.release.json; do
  [[ $(mode "$work/out/$f") == 644 ]] || fail "$f under umask 022 is $(mode "$work/out/$f"), not 644 (the umask's)"
done
(umask 077 && "$bin" release "$work/out/r.h5") > "$work/release.log" 2>&1 || { code=$?; cat "$work/release.log"; fail "release exited $code"; }
[[ $(mode "$work/out/r.release-2.json") == 600 ]] || fail "a release file under umask 077 is not 600"
[[ $(mode "$work/out/r.h5") == 600 ]] || fail "the run file is not 600 after the ledger update"
# dpbo utility changes the run file through the same path: a new file
# (another inode) replaces it, never an update in place.
inode=$(stat -c %i "$work/out/r.h5")
(umask 022 && "$bin" utility "$work/out/r.h5" --quiet) > "$work/utility.log" 2>&1 ||
  { code=$?; cat "$work/utility.log"; fail "utility exited $code"; }
[[ $(stat -c %i "$work/out/r.h5") != "$inode" ]] || fail "dpbo utility changed the run file in place"
[[ $(mode "$work/out/r.h5") == 600 ]] || fail "the run file is not 600 after dpbo utility"
echo "modes: run file and checkpoint 600, release files follow the umask"

}

# --- planted symbolic links --------------------------------------------------------
check_links() {
# The process's pid is the shell's after exec, so a link at "<path>.tmp.$$"
# is where the old scheme wrote; the new names are random and created with
# O_EXCL. Rank 0 alone (a singleton), so the pid of the writer is $$.
rm -rf "$work/out" && mkdir -p "$work/out"
printf 'precious\n' > "$work/victim"
# A link planted at the release JSON's own name looks like a release of an
# earlier run whose run file is gone: a plain run refuses (exit 2) and writes
# nothing; --overwrite removes the link itself (never its target) and publishes
# regular files.
ln -s "$work/victim" "$work/out/r.release.json"
code=0
"$bin" run "$work/run.ini" --quiet > "$work/link0.log" 2>&1 || code=$?
[[ $code == 2 ]] || { cat "$work/link0.log"; fail "a run beside a planted release link exited $code, not 2"; }
[[ $(cat "$work/victim") == precious ]] || fail "a refused run wrote through the planted release link"
bash -c 'for f in r.h5 r.release.h5 r.release.json; do ln -s "$1/victim" "$1/out/$f.tmp.$$"; done
         exec "$2" run "$1/run.ini" --quiet --overwrite' _ "$work" "$bin" > "$work/link.log" 2>&1 || { code=$?; cat "$work/link.log"; fail "the run with planted links exited $code"; }
[[ $(cat "$work/victim") == precious ]] || fail "a planted symbolic link redirected a write: the victim was overwritten"
for f in r.h5 r.release.h5 r.release.json; do
  [[ -f $work/out/$f && ! -L $work/out/$f ]] || fail "$f is not a regular file (published through a link?)"
done
"$py" -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/out/r.release.json" || fail "the release JSON is not whole"
echo "planted links: nothing written through them, every published file regular"

}

# --- corrupted trace ---------------------------------------------------------------
check_corrupt() {
# Flips the 4 low bytes of the first value of /trace/gain in place (a change
# in the 9th significant digit: nothing else would notice it).
flip() {
  "$py" - "$1" <<'PY' || fail "cannot corrupt $1"
import sys, h5py
with h5py.File(sys.argv[1], "r") as f:
    d = f["trace/gain"]
    off = d.id.get_offset()
    if off is None:  # chunked: the one chunk
        off = d.id.get_chunk_info(0).byte_offset
with open(sys.argv[1], "r+b") as raw:
    raw.seek(off)
    b = bytearray(raw.read(4))
    raw.seek(off)
    raw.write(bytes(x ^ 0x5A for x in b))
PY
}
rm -rf "$work/out" && mkdir -p "$work/out"
run --set output.name=cut --stop-after 5 > /dev/null 2>&1
flip "$work/out/cut.h5"
run --set output.name=cut --resume > "$work/resume.log" 2>&1
code=$?
[[ $code -eq 2 ]] && grep -q "corrupted" "$work/resume.log" ||
  { cat "$work/resume.log"; fail "--resume of a corrupted checkpoint should be refused (exit 2, 'corrupted'), got $code"; }
run > /dev/null 2>&1 || fail "run exited $?"
flip "$work/out/r.h5"
cp "$work/out/r.h5" "$work/corrupt.h5"
"$bin" release "$work/out/r.h5" > "$work/bad_release.log" 2>&1
code=$?
[[ $code -eq 2 ]] && grep -q "corrupted" "$work/bad_release.log" ||
  { cat "$work/bad_release.log"; fail "a release from a corrupted run file should be refused (exit 2, 'corrupted'), got $code"; }
[[ ! -e $work/out/r.release-2.json ]] || fail "a corrupted run file was released"
cmp -s "$work/out/r.h5" "$work/corrupt.h5" || fail "the refused release changed the run file"
echo "corrupted trace: resume and release refused"

}

# --- stale temporary files ------------------------------------------------------------
check_stale() {
rm -rf "$work/out" && mkdir -p "$work/out"
run --set output.name=cut --stop-after 3 > /dev/null 2>&1
printf 'other\n' > "$work/other_victim"
for s in AAAAAAAAAAAA Zz09Zz09Zz09 k3Jq9PfLm2Xa; do : > "$work/out/.cut.h5.tmp.$s"; done
: > "$work/out/.cut.release.json.tmp.QQQQQQQQQQQQ"
ln -s "$work/other_victim" "$work/out/.cut.h5.tmp.LLLLLLLLLLLL"
: > "$work/out/.cut.h5.tmp.short"
: > "$work/out/.other.h5.tmp.AAAAAAAAAAAA"
run --set output.name=cut --resume > "$work/stale.log" 2>&1 || { code=$?; cat "$work/stale.log"; fail "--resume exited $code"; }
for s in AAAAAAAAAAAA Zz09Zz09Zz09 k3Jq9PfLm2Xa; do
  [[ ! -e $work/out/.cut.h5.tmp.$s ]] || fail "the stale temporary file .cut.h5.tmp.$s was left"
done
[[ ! -e $work/out/.cut.release.json.tmp.QQQQQQQQQQQQ ]] || fail "the release's stale temporary file was left"
[[ -L $work/out/.cut.h5.tmp.LLLLLLLLLLLL ]] || fail "a symbolic link with a temporary name was removed"
[[ $(cat "$work/other_victim") == other ]] || fail "the file behind a link was touched"
[[ -e $work/out/.cut.h5.tmp.short && -e $work/out/.other.h5.tmp.AAAAAAAAAAAA ]] ||
  fail "a file that is not this run's temporary file was removed"
echo "stale temporary files: this run's removed, nothing else"
}

for section in ${@:-modes links corrupt stale}; do "check_$section"; done
echo "run files safe OK"
