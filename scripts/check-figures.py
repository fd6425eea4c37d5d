#!/usr/bin/env python3
"""Every figure of analysis/ traced to committed data (issue #24).

    scripts/check-figures.py [ROOT]

Reads ROOT/analysis/figures/MANIFEST (its header says the format) and fails
(exit 1, one line per problem) when
  - a PNG under analysis/figures/ (any depth) matches no manifest line,
  - a manifest line matches no PNG,
  - a listed data file is not in the tree,
  - a traced figure's redraw command, run from ROOT into a temporary
    directory, fails or does not write the PNG (and the table, when the
    figure has one: the .md next to it); a command that writes into {dir}
    runs once for all the lines that name it,
  - an untraced figure is shown in analysis/RESULTS.md (a line naming
    figures/<its path>) in a section (between two headings) that does not
    say "(data not committed", or that phrase stands in a section that
    shows no untraced figure (stale once the data is committed).
Untraced figures are listed as a NOTICE. Redraw commands whose first word is
a .py script run under $DPBO_PYTHON (default /usr/bin/python3 when it
exists, else the interpreter running this script). Exit 2 on a malformed
manifest.
"""

import concurrent.futures
import fnmatch
import os
import shlex
import subprocess
import sys
import tempfile

MARKER = "(data not committed"


def python():
    if os.environ.get("DPBO_PYTHON"):
        return os.environ["DPBO_PYTHON"]
    return "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable


def read_manifest(path):
    entries = []
    with open(path) as f:
        for no, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = [x.strip() for x in line.split(" | ")]
            if len(fields) != 3 or not all(fields):
                raise ValueError(f"{path}:{no}: expected 'FIGURE | DATA | REDRAW', got {line!r}")
            fig, data, cmd = fields
            untraced = data.startswith("untraced:")
            if not untraced and any(c in fig for c in "*?["):
                raise ValueError(f"{path}:{no}: a glob ({fig}) is allowed on untraced lines only")
            if not untraced and "{out}" not in cmd and "{dir}" not in cmd:
                raise ValueError(f"{path}:{no}: the redraw command must write {{out}} or into {{dir}}")
            entries.append({"line": no, "figure": fig, "data": data, "cmd": cmd,
                            "untraced": untraced,
                            "reason": data[len("untraced:"):].strip() if untraced else ""})
    return entries


def pngs(figdir):
    found = []
    for d, _, files in os.walk(figdir):
        for name in files:
            if name.endswith(".png"):
                found.append(os.path.relpath(os.path.join(d, name), figdir))
    return sorted(found)


def sections(results):
    """(first line, last line, text) of each section of RESULTS.md, headings outside code."""
    with open(results) as f:
        lines = f.read().split("\n")
    starts, fence = [0], False
    for i, line in enumerate(lines):
        if line.startswith("```"):
            fence = not fence
        elif not fence and line.startswith("#"):
            starts.append(i)
    starts = sorted(set(starts)) + [len(lines)]
    return lines, [(a, b) for a, b in zip(starts, starts[1:])]


def run_redraw(root, cmd, out, tmp):
    """Run one redraw command with {out} and {dir} filled in; the finished process."""
    argv = [a.replace("{out}", out).replace("{dir}", tmp) for a in shlex.split(cmd)]
    if argv[0].endswith(".py"):
        argv = [python()] + argv
    return subprocess.run(argv, cwd=root, capture_output=True, text=True)


def check_drawn(root, entry, proc, out, problems):
    if proc.returncode != 0:
        problems.append(f"MANIFEST:{entry['line']}: {entry['figure']}: redraw exited "
                        f"{proc.returncode}: {entry['cmd']}\n{proc.stderr.strip()[-2000:]}")
        return
    if not os.path.isfile(out) or os.path.getsize(out) == 0:
        problems.append(f"MANIFEST:{entry['line']}: {entry['figure']}: the redraw wrote no PNG")
    table = os.path.splitext(entry["figure"])[0] + ".md"
    if os.path.exists(os.path.join(root, "analysis", "figures", table)):
        if not os.path.isfile(os.path.splitext(out)[0] + ".md"):
            problems.append(f"MANIFEST:{entry['line']}: {entry['figure']}: the redraw wrote "
                            f"no table (figures/{table} is committed)")


class Redraws:
    """The redraws, each command run once, as many at a time as the machine has cores
    (each is a separate Python that spends most of its time importing matplotlib). A
    command with {out} draws one figure into a fresh directory. A command with {dir} only
    draws into a directory, writing each of its figures at its path under analysis/figures
    (atlas/x.png: {dir}/atlas/x.png); lines with the same such command share one run (one
    draw of a whole atlas, not one per figure). Problems are reported in manifest order."""

    def __init__(self, root):
        self.root, self.wanted, self.runs = root, [], {}

    def add(self, entry):
        self.wanted.append(entry)

    @staticmethod
    def key(entry):
        return ("out", entry["line"]) if "{out}" in entry["cmd"] else ("dir", entry["cmd"])

    @staticmethod
    def drawn(entry, tmp):
        """Where the entry's redraw leaves its figure in its run's directory tmp."""
        if "{out}" in entry["cmd"]:
            return os.path.join(tmp, os.path.basename(entry["figure"]))
        return os.path.join(tmp, entry["figure"])

    def check_all(self, problems):
        with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
            for entry in self.wanted:
                key = self.key(entry)
                if key in self.runs:
                    continue
                tmp = tempfile.TemporaryDirectory()
                out = self.drawn(entry, tmp.name) if key[0] == "out" else ""
                self.runs[key] = (tmp, pool.submit(run_redraw, self.root, entry["cmd"], out, tmp.name))
        for entry in self.wanted:
            tmp, proc = self.runs[self.key(entry)]
            check_drawn(self.root, entry, proc.result(), self.drawn(entry, tmp.name), problems)
        for tmp, _ in self.runs.values():
            tmp.cleanup()


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    figdir = os.path.join(root, "analysis", "figures")
    manifest = os.path.join(figdir, "MANIFEST")
    results = os.path.join(root, "analysis", "RESULTS.md")
    try:
        entries = read_manifest(manifest)
    except (OSError, ValueError) as e:
        print(f"check-figures: {e}", file=sys.stderr)
        return 2
    problems = []
    figures = pngs(figdir)
    owner = {}
    for fig in figures:
        hits = [e for e in entries if fnmatch.fnmatchcase(fig, e["figure"])]
        if not hits:
            problems.append(f"analysis/figures/{fig}: no line in analysis/figures/MANIFEST "
                            "(which data file and command draw it?)")
        else:
            owner[fig] = hits[0]
    for e in entries:
        matched = [f for f in figures if fnmatch.fnmatchcase(f, e["figure"])]
        e["matched"] = matched
        if not matched:
            problems.append(f"MANIFEST:{e['line']}: {e['figure']}: no such figure under "
                            "analysis/figures/")
        if not e["untraced"] and not os.path.isfile(os.path.join(root, e["data"])):
            problems.append(f"MANIFEST:{e['line']}: {e['figure']}: data file {e['data']} is not "
                            "in the tree")
    lines, secs = sections(results) if os.path.exists(results) else ([], [])
    untraced = []
    redraws = Redraws(root)
    for e in entries:
        if e["untraced"]:
            for fig in e["matched"]:
                untraced.append(fig)
                ref = f"figures/{fig}"
                for a, b in secs:
                    shown = any(ref in line for line in lines[a:b])
                    if shown and not any(MARKER in line for line in lines[a:b]):
                        problems.append(f"analysis/RESULTS.md:{a + 1}: the section that shows "
                                        f"{ref} (untraced) does not say \"{MARKER}: ...)\"")
        elif e["matched"] and not any("data file" in p and f":{e['line']}:" in p for p in problems):
            redraws.add(e)
    redraws.check_all(problems)
    # A marker where every figure shown is traced is stale: the flag would
    # outlive the data it says is missing.
    shown_untraced = {f"figures/{fig}" for fig in untraced}
    for a, b in secs:
        marks = [i for i in range(a, b) if MARKER in lines[i]]
        if marks and not any(ref in line for line in lines[a:b] for ref in shown_untraced):
            problems.append(f"analysis/RESULTS.md:{marks[0] + 1}: \"{MARKER}\" in a section that "
                            "shows no untraced figure (remove it once the data is committed)")
    if untraced:
        print(f"NOTICE: {len(untraced)} figure(s) without committed data (untraced):")
        for e in entries:
            if e["untraced"] and e["matched"]:
                many = f" ({len(e['matched'])} figures)" if len(e["matched"]) > 1 else ""
                print(f"  analysis/figures/{e['figure']}{many}: {e['reason']}")
    traced = [e["figure"] for e in entries if not e["untraced"] and e["matched"]]
    print(f"check-figures: {len(figures)} figures, {len(traced)} redrawn from committed data, "
          f"{len(untraced)} untraced")
    if problems:
        print("\n".join("FAIL: " + p for p in problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
