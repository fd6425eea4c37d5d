#!/usr/bin/python3
"""A random sample of a hard problem's box, to see that its landscape is not
flat before paying for the whole table (issue #26, item 2).

Reads [space] (dim.* lines) and [objective] command of a compare config,
draws N candidates uniformly from the box (log dimensions on their log
scale, integers rounded, categories uniform) with a fixed seed, and has the
config's model program answer them with --score both (validation and test
accuracy), on --workers persistent processes at once. Prints each
candidate, then the spread of the validation accuracy (best, quantiles,
median), how many lie within one point of the best, and the mean time per
candidate with the table's cost extrapolated to |Lambda| on the workers.

  examples/hard/sample.py configs/compare-mlp-fashion.ini [-n 32] [--seed 1] [--workers 2]
      [-- EXTRA PROGRAM ARGUMENTS]

Run it from the repository's root (the config's paths are relative to it),
under nice -n 10 on a shared machine. It spends nothing: it is outside dpbo,
and the rows it validates on are the program's, which dpbo's run would also
read; a sample of the private validation set's accuracies is itself not
private, so publish only its summary of public data, or use public data.
"""
import argparse
import configparser
import math
import shlex
import subprocess
import sys
import time

import numpy as np


def box(path):
    cp = configparser.ConfigParser(inline_comment_prefixes=(";", "#"), interpolation=None)
    cp.optionxform = str
    cp.read(path)
    dims = []
    for key, value in cp["space"].items():
        if key.startswith("dim."):
            w = value.split()
            dims.append((key[4:], w[0], w[1:]))
    return dims, shlex.split(cp["objective"]["command"]), int(cp["space"].get("points", "0"))


def draw(dims, rng):
    words = []
    for name, kind, a in dims:
        if kind == "categorical":
            v = a[rng.integers(len(a))]
        elif kind == "linear":
            v = repr(rng.uniform(float(a[0]), float(a[1])))
        elif kind == "log":
            v = repr(math.exp(rng.uniform(math.log(float(a[0])), math.log(float(a[1])))))
        elif kind == "integer":
            v = str(int(rng.integers(int(a[0]), int(a[1]) + 1)))
        elif kind == "log_integer":
            v = str(int(round(math.exp(rng.uniform(math.log(float(a[0])), math.log(float(a[1])))))))
        else:
            sys.exit(f"sample.py: dimension {name}: kind {kind} not known")
        words.append(f"{name}={v}")
    return " ".join(words)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("config")
    p.add_argument("-n", type=int, default=32)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--workers", type=int, default=2)
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1:] if "--" in argv else []
    args = p.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    dims, command, points = box(args.config)
    # The config's --score (validation: what dpbo reads) gives way to both.
    for i, w in enumerate(command):
        if w == "--score":
            del command[i:i + 2]
            break
        if w.startswith("--score="):
            del command[i]
            break
    rng = np.random.default_rng(args.seed)
    reqs = [draw(dims, rng) for _ in range(args.n)]
    procs = [subprocess.Popen(command + ["--score", "both"] + extra, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True) for _ in range(args.workers)]
    # Round-robin, one request in flight per process; the first reply of a
    # process includes its start-up, timed apart.
    start = time.time()
    val, test, secs = [None] * args.n, [None] * args.n, [None] * args.n
    pending = {}
    nxt = 0
    for k, pr in enumerate(procs):
        if nxt < args.n:
            pr.stdin.write(reqs[nxt] + "\n")
            pr.stdin.flush()
            pending[k] = (nxt, time.time())
            nxt += 1
    import selectors
    sel = selectors.DefaultSelector()
    for k, pr in enumerate(procs):
        sel.register(pr.stdout, selectors.EVENT_READ, k)
    first = [True] * len(procs)
    startup = []
    while pending:
        for key, _ in sel.select():
            k = key.data
            line = procs[k].stdout.readline()
            if not line:
                sys.exit(f"sample.py: the program ended (status {procs[k].wait()})")
            i, t0 = pending.pop(k)
            v, t = (float(x) for x in line.split())
            val[i], test[i], secs[i] = v, t, time.time() - t0
            if first[k]:
                first[k] = False
                startup.append(secs[i])
                secs[i] = None  # start-up and fit together: not a fit time
            print(f"{i:3d}  val {v:.4f}  test {t:.4f}  {secs[i] or 0:6.2f} s  {reqs[i]}", flush=True)
            if nxt < args.n:
                procs[k].stdin.write(reqs[nxt] + "\n")
                procs[k].stdin.flush()
                pending[k] = (nxt, time.time())
                nxt += 1
    for pr in procs:
        pr.stdin.close()
        pr.wait()
    wall = time.time() - start
    v = np.array(val)
    best = v.max()
    fit = np.array([s for s in secs if s is not None])
    print(f"\n{args.n} random candidates of {args.config} (seed {args.seed}), validation accuracy:")
    print(f"  best {best:.4f} (test {test[int(v.argmax())]:.4f}), 90% {np.quantile(v, 0.9):.4f}, "
          f"median {np.median(v):.4f}, 10% {np.quantile(v, 0.1):.4f}, worst {v.min():.4f}")
    print(f"  within one point of the best: {int((v >= best - 0.01).sum())} of {args.n}; "
          f"within two: {int((v >= best - 0.02).sum())}")
    if fit.size:
        print(f"  {fit.mean():.2f} s per candidate (mean of {fit.size}, max {fit.max():.2f}), "
              f"start-up about {np.mean(startup) - fit.mean():.1f} s; {wall:.0f} s on "
              f"{args.workers} processes")
        if points:
            print(f"  the table of {points} candidates: about {points * fit.mean() / args.workers / 60:.0f} "
                  f"minutes on {args.workers} workers at this load")


if __name__ == "__main__":
    main()
