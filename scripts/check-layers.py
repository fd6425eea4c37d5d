#!/usr/bin/env python3
"""Checks that every include of the library runs downward (docs/layers.md).

The library is built in layers, each a folder of src/, from the bottom up:

    base  core  objectives  run  experiments  app

A file may include headers of its own layer and of the layers below it,
never of a layer above. include/dpbo/ is the public API: its headers belong to
the layer of their source (error.h and version.h to base, the others to core)
and may include only other public headers, so that an installed program never
needs a private one. Inside the library the modules (a .c file and its
headers of the same stem) must not include each other in a circle.

    scripts/check-layers.py [REPO]     exit 0 when clean, 1 with one line per fault
"""
import os
import re
import sys

LAYERS = ["base", "core", "objectives", "run", "experiments", "app"]
RANK = {name: i for i, name in enumerate(LAYERS)}
# Public headers whose source is not in core.
PUBLIC_LAYER = {"error": "base", "version": "base"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def module_of(path):
    """(layer, module stem) of a library file, or None for a file outside it."""
    parts = path.split("/")
    if parts[0] == "include" and parts[1] == "dpbo":
        stem = re.sub(r"\.h(\.in)?$", "", parts[2])
        return PUBLIC_LAYER.get(stem, "core"), stem
    if parts[0] == "src" and len(parts) == 3 and parts[1] in RANK:
        stem = re.sub(r"(_private)?\.(c|h|inc)$", "", parts[2])
        return parts[1], stem
    return None


def target_of(name):
    """(layer, module, public?) of an include name as the build resolves it."""
    parts = name.split("/")
    if len(parts) == 2 and parts[0] == "dpbo":
        stem = re.sub(r"\.h$", "", parts[1])
        return PUBLIC_LAYER.get(stem, "core"), stem, True
    if len(parts) == 2 and parts[0] in RANK:
        stem = re.sub(r"(_private)?\.(h|inc)$", "", parts[1])
        return parts[0], stem, False
    return None


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
    faults = []
    edges = {}  # module -> set of modules it includes
    files = []
    for top in ("src", "include/dpbo"):
        for dirpath, _, names in os.walk(os.path.join(repo, top)):
            for n in names:
                if n.endswith((".c", ".h", ".inc", ".h.in")):
                    files.append(os.path.relpath(os.path.join(dirpath, n), repo))
    for path in sorted(files):
        here = module_of(path)
        if here is None:
            faults.append(f"{path}: outside the layer folders ({', '.join(LAYERS)})")
            continue
        layer, module = here
        public = path.startswith("include/")
        text = open(os.path.join(repo, path), encoding="utf-8").read()
        for line_no, name in ((text.count("\n", 0, m.start()) + 1, m.group(1)) for m in INCLUDE.finditer(text)):
            target = target_of(name)
            if target is None:
                faults.append(f'{path}:{line_no}: #include "{name}" names no layer (write "<layer>/{name}")')
                continue
            t_layer, t_module, t_public = target
            if public and not t_public:
                faults.append(f'{path}:{line_no}: public header includes the private "{name}"')
            if RANK[t_layer] > RANK[layer]:
                faults.append(f'{path}:{line_no}: {layer} includes "{name}" of {t_layer}, a layer above')
            if t_module != module:
                edges.setdefault(module, set()).add(t_module)
    # Circles among modules: depth-first search, one report per circle found.
    state, stack, seen_cycles = {}, [], set()

    def visit(m):
        state[m] = 1
        stack.append(m)
        for t in sorted(edges.get(m, ())):
            if state.get(t) == 1:
                cycle = stack[stack.index(t):]
                key = frozenset(cycle)
                if key not in seen_cycles:
                    seen_cycles.add(key)
                    faults.append("circle: " + " -> ".join(cycle + [t]))
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)
    for f in faults:
        print(f)
    print(f"check-layers: {len(files)} files, {sum(len(v) for v in edges.values())} module arrows, "
          f"{len(faults)} fault(s)")
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main())
