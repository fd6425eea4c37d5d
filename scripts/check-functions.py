#!/usr/bin/env python3
"""Lists the functions of the library and program that are too big (issue #25).

A function may take at most 7 parameters and span at most 120 lines (from the
line its definition starts on to its closing brace). More parameters than
that want a struct that means something (an options struct, a context); more
lines want the function's phases as functions of their own.

It reads every .c and .h under src/ and include/ (tests/ and bench/ are
exempt). The code is clang-formatted (.clang-format), so a definition starts in column 0 and its
body ends with a `}` in column 0; the parameters are the top-level commas of
the outermost parentheses (`void` is none, `...` counts as one).

Known debts are listed in scripts/check-functions.allow, one per line as
`PATH FUNCTION params|lines` (the same text this script prints); `#` starts a
comment. The check fails on a function over a limit that the list does not
name. It names the entries that are paid off (delete them, so that the list
only shrinks) without failing: a branch that pays a debt must not turn
another branch red.

    scripts/check-functions.py [REPO]          exit 0 when clean, 1 otherwise
    scripts/check-functions.py --list [REPO]   every function over a limit, with its numbers
"""
import os
import re
import sys

MAX_PARAMS = 7
MAX_LINES = 120
FOLDERS = ["src", "include"]
ALLOW = "scripts/check-functions.allow"

# A definition's first line: column 0, not a preprocessor line, not a
# comment, and its name followed by '('.
START = re.compile(r"^(?![#/ \t}])[^;=]*?\b([A-Za-z_]\w*)\s*\(")
KEYWORDS = {"if", "for", "while", "switch", "return", "sizeof", "do"}


def strip_comments(text):
    """The text with comments and string/char literals blanked, lines kept."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1 : j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def count_params(inner):
    """Top-level comma-separated parameters of a parameter list's text."""
    inner = inner.strip()
    if inner in ("", "void"):
        return 0
    depth, count = 0, 1
    for c in inner:
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            count += 1
    return count


def functions(path):
    """(name, first line, parameters, lines) of each definition in a file."""
    with open(path, encoding="utf-8") as f:
        lines = strip_comments(f.read()).split("\n")
    i = 0
    while i < len(lines):
        m = START.match(lines[i])
        if not m or m.group(1) in KEYWORDS or m.group(1).isupper():
            i += 1
            continue
        # The signature: up to the parenthesis that closes the first one.
        text, j = "", i
        while j < len(lines):
            text += lines[j] + "\n"
            if text.count("(") > 0 and text.count("(") == text.count(")"):
                break
            j += 1
        rest = text[text.index("(", m.start(1)) :]
        depth, end = 0, None
        for k, c in enumerate(rest):
            depth += c == "("
            depth -= c == ")"
            if depth == 0:
                end = k
                break
        after = rest[end + 1 :].strip() if end is not None else ";"
        if after.startswith("{") or (after == "" and j + 1 < len(lines) and lines[j + 1].startswith("{")):
            close = j
            while close < len(lines) and lines[close] != "}":
                close += 1
            yield m.group(1), i + 1, count_params(rest[1:end]), close - i + 1
            i = close + 1
        else:
            i = j + 1


def debts(repo):
    """Every function over a limit: {"PATH FUNCTION params|lines": (line, value)}."""
    found = {}
    for folder in FOLDERS:
        for root, _, files in os.walk(os.path.join(repo, folder)):
            for name in sorted(files):
                if not name.endswith((".c", ".h")):
                    continue
                path = os.path.join(root, name)
                rel = os.path.relpath(path, repo)
                for func, line, params, length in functions(path):
                    if params > MAX_PARAMS:
                        found[f"{rel} {func} params"] = (line, params)
                    if length > MAX_LINES:
                        found[f"{rel} {func} lines"] = (line, length)
    return found


def allowed(repo):
    entries = set()
    with open(os.path.join(repo, ALLOW), encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if line:
                entries.add(" ".join(line.split()))
    return entries


def main(argv):
    listing = "--list" in argv
    args = [a for a in argv if a != "--list"]
    repo = os.path.abspath(args[0] if args else os.path.join(os.path.dirname(__file__), ".."))
    found = debts(repo)
    if listing:
        for key in sorted(found):
            path, func, what = key.split()
            line, value = found[key]
            print(f"{key}\t{value} ({path}:{line})")
        params = sum(1 for k in found if k.endswith(" params"))
        print(f"check-functions: {params} over {MAX_PARAMS} parameters, {len(found) - params} over {MAX_LINES} lines")
        return 0
    allow = allowed(repo)
    faults = 0
    for key in sorted(found):
        if key not in allow:
            path, func, what = key.split()
            line, value = found[key]
            limit = MAX_PARAMS if what == "params" else MAX_LINES
            fix = "group them into a struct that means something" if what == "params" else "split its phases"
            print(f"{path}:{line}: {func} has {value} {'parameters' if what == 'params' else 'lines'} "
                  f"(at most {limit}; {fix})")
            faults += 1
    paid = sorted(allow - set(found))
    for key in paid:
        print(f"{ALLOW}: '{key}' is paid off: delete the line")
    print(f"check-functions: {len(found)} known debts, {faults} new, {len(paid)} paid off")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
