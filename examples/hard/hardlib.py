"""Shared parts of the hard tuning problems' model programs (issue #26).

Each program (mlp_fashion.py, hgb_covtype.py) is a persistent `command`
objective (docs/own-model.md, section 3): it reads its data once, splits it
into training, validation and test rows with a fixed seed chosen before any
tuning, and then answers one request per line on stdin,
``NAME1=VALUE1 NAME2=VALUE2``, with the accuracy of the model trained on the
training rows at that lambda, one number alone on its line.

``--score validation`` (the default) replies with the validation accuracy,
the private f_V(lambda) that `dpbo run` tunes; ``--score test`` with the
accuracy on the held-out test rows; ``--score both`` with the two numbers on
one line (validation first), for tables and checks outside dpbo's line
protocol. Training never sees the validation or test rows, so one replaced
validation record moves the validation accuracy by at most 1/m (m the
validation rows): the sensitivity dpbo compare and private_evaluations rely on.

A request that is not exactly the program's hyper-parameters, each once,
with a value in its range, ends the program with one line on stderr and
exit status 2: dpbo fails that evaluation and quotes the line.
"""
import argparse
import gzip
import math
import os
import sys

# One thread per process: a run on P ranks starts P - 1 programs, and the
# machines this runs on have few cores; one thread also keeps the sums of
# the BLAS and of OpenMP in a fixed order, so a lambda always gives the same
# accuracy. Set before numpy is imported.
for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_v] = "1"

import numpy as np  # noqa: E402


class RequestError(Exception):
    """A malformed request or a value outside the program's box."""


def fail(prog, message):
    """One clear line on stderr and exit status 2."""
    print(f"{prog}: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


def parser(description, rows):
    """The options every model program takes; rows = (train, validation, test) defaults."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--data", help="the data file (default: see --help of the program)")
    p.add_argument("--train-rows", type=int, default=rows[0])
    p.add_argument("--validation-rows", type=int, default=rows[1])
    p.add_argument("--test-rows", type=int, default=rows[2])
    p.add_argument("--split-seed", type=int, default=rows[3])
    p.add_argument("--score", choices=("validation", "test", "both"), default="validation",
                   help="what each reply holds (default: validation accuracy)")
    return p


def split(n, args, prog):
    """Disjoint training, validation and test rows, drawn with --split-seed."""
    need = args.train_rows + args.validation_rows + args.test_rows
    if min(args.train_rows, args.validation_rows, args.test_rows) < 1 or need > n:
        fail(prog, f"--train-rows, --validation-rows and --test-rows must be >= 1 and sum to at "
                   f"most the {n} rows of the data (they sum to {need})")
    perm = np.random.default_rng(args.split_seed).permutation(n)
    a, b = args.train_rows, args.train_rows + args.validation_rows
    return perm[:a], perm[a:b], perm[b:need]


def read_idx(path, prog):
    """An IDX file (MNIST format, unsigned bytes, gzip or plain) as an array."""
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        fail(prog, f"cannot read {path}: {e.strerror or e}")
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] != 8:
        fail(prog, f"{path} is not an IDX file of unsigned bytes")
    ndim = raw[3]
    shape = tuple(int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim))
    data = np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim)
    if data.size != math.prod(shape):
        fail(prog, f"{path}: {data.size} bytes of data, the header says {math.prod(shape)}")
    return data.reshape(shape)


def number(name, text, lo, hi, integer=False):
    """The value of NAME=text, checked to lie in [lo, hi] (an integer if asked)."""
    try:
        v = float(text)
    except ValueError:
        raise RequestError(f"{name}={text} is not a number") from None
    if not math.isfinite(v) or v < lo or v > hi:
        raise RequestError(f"{name}={text} is outside [{lo:g}, {hi:g}]")
    if integer:
        if v != math.floor(v):
            raise RequestError(f"{name}={text} is not an integer")
        return int(v)
    return v


def parse(line, names):
    """The request's NAME=VALUE words as a dict: exactly `names`, each once."""
    got = {}
    for word in line.split():
        name, eq, value = word.partition("=")
        if not eq or not name:
            raise RequestError(f"'{word}' is not NAME=VALUE")
        if name not in names:
            raise RequestError(f"unknown hyper-parameter '{name}' (this program takes "
                               f"{', '.join(names)})")
        if name in got:
            raise RequestError(f"'{name}' given twice")
        got[name] = value
    missing = [n for n in names if n not in got]
    if missing:
        raise RequestError(f"missing {', '.join(missing)} (this program takes "
                           f"{', '.join(names)})")
    return got


def serve(prog, args, names, evaluate):
    """The line protocol: one request per line, one reply per request.

    evaluate(values) returns (validation accuracy, test accuracy)."""
    count = 0
    for line in sys.stdin:
        if not line.strip():
            continue
        count += 1
        try:
            val, test = evaluate(parse(line, names))
        except RequestError as e:
            fail(prog, f"request {count}: {e}")
        if args.score == "validation":
            print(repr(float(val)), flush=True)
        elif args.score == "test":
            print(repr(float(test)), flush=True)
        else:
            print(repr(float(val)), repr(float(test)), flush=True)
