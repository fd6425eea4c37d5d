#!/usr/bin/env python3
"""Writes dpbo's man page from `dpbo --help`, `dpbo --version` and the
template cmake/dpbo.1.in.

The help text (src/app/cli.c, usage_text) is the one source of the commands,
their synopsis and the exit codes; this script only changes their layout:
  usage:                        -> SYNOPSIS (the command lines) and COMMANDS
    dpbo CMD ARGS               (the command lines as tags, the description
                  [MORE ARGS]    lines below them joined into one paragraph)
        description ...
  (blank line)
  Sentence ...                  -> DESCRIPTION, a paragraph per line that
  continued ...                    begins with a capital letter
  Exit codes:                   -> EXIT STATUS, one entry per code
    N  text
       continued
Anything else in the help text is an error, so a change of its layout
cannot silently drop a part of the page.

  make-man.py DPBO_BINARY TEMPLATE OUTPUT
"""
import re
import subprocess
import sys


def roff(text):
    """Escapes text for roff: backslashes, a dash that starts a word (an
    option's, a minus sign), and a line that would start with . or '."""
    text = text.replace("\\", "\\e")
    text = re.sub(r"(?<![A-Za-z0-9])-", r"\\-", text)
    if text.startswith((".", "'")):
        text = "\\&" + text
    return text


def parse(help_text):
    lines = help_text.rstrip("\n").split("\n")
    if not lines or lines[0] != "usage:":
        sys.exit("make-man.py: dpbo --help does not begin with 'usage:'")
    commands = []  # [synopsis lines, description lines]
    i = 1
    while i < len(lines) and lines[i]:
        line = lines[i]
        if line.startswith("  dpbo "):
            commands.append([[line.strip()], []])
        elif commands and line.startswith("       ") and not commands[-1][1]:
            commands[-1][0].append(line.strip())  # the synopsis continues
        elif commands and re.match(r"^      \S", line):
            commands[-1][1].append(line.strip())
        else:
            sys.exit(f"make-man.py: usage line {i + 1} has an unknown layout: {line!r}")
        i += 1
    notes, codes = [], []
    section = notes
    for line in lines[i + 1:]:
        if line == "Exit codes:":
            section = codes
        elif section is notes and re.match(r"^[A-Z]", line):
            notes.append([line])
        elif section is notes and notes and line and not line.startswith(" "):
            notes[-1].append(line)
        elif section is codes and re.match(r"^  \d  \S", line):
            codes.append([line[2], [line[5:]]])
        elif section is codes and codes and re.match(r"^     \S", line):
            codes[-1][1].append(line.strip())
        else:
            sys.exit(f"make-man.py: help line {lines.index(line) + 1} has an unknown layout: {line!r}")
    if not commands or not codes:
        sys.exit("make-man.py: no commands or no exit codes in dpbo --help")
    return commands, notes, codes


def synopsis_roff(words):
    """A synopsis line, one roff line: the program and the command bold,
    the rest roman."""
    head = words.split(" ")
    bold = [head[0]]
    rest = head[1:]
    if rest and re.match(r"^[a-z0-9]+$", rest[0]):
        bold.append(rest.pop(0))
    out = "\\fB" + roff(" ".join(bold)) + "\\fR"
    if rest:
        out += " " + roff(" ".join(rest))
    return out


def main():
    binary, template, output = sys.argv[1:4]
    help_text = subprocess.run([binary, "--help"], check=True, capture_output=True, text=True).stdout
    version = subprocess.run([binary, "--version"], check=True, capture_output=True, text=True)
    version = version.stdout.splitlines()[0].split()[-1]  # "dpbo X.Y.Z"; then the BLAS line
    commands, notes, codes = parse(help_text)

    synopsis = []
    for lines, _ in commands:
        synopsis.append(synopsis_roff(" ".join(lines)))
        synopsis.append(".br")
    synopsis.pop()
    command_entries = []
    for lines, description in commands:
        command_entries.append(".TP\n" + synopsis_roff(" ".join(lines)))
        command_entries.append(roff(" ".join(description)) if description else "Help and version.")
    description = [".PP\n" + roff(" ".join(note)) for note in notes]
    exit_status = [".TP\n.B " + code + "\n" + roff(" ".join(text)) for code, text in codes]

    page = open(template, encoding="utf-8").read()
    fill = {
        "@VERSION@": version,
        "@SYNOPSIS@": "\n".join(synopsis),
        "@DESCRIPTION@": "\n".join(description),
        "@COMMANDS@": "\n".join(command_entries),
        "@EXIT_STATUS@": "\n".join(exit_status),
    }
    for key, value in fill.items():
        if key not in page:
            sys.exit(f"make-man.py: {template} has no {key}")
        page = page.replace(key, value)
    with open(output, "w", encoding="utf-8") as f:
        f.write(page)


if __name__ == "__main__":
    main()
