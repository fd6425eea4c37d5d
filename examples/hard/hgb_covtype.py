#!/usr/bin/python3
"""Gradient-boosted trees on Covertype, a hard tuning problem of five
hyper-parameters (issue #26; configs/compare-hgb-covtype.ini).

A persistent `command` objective (examples/hard/hardlib.py has the protocol):
each request names

  lr=         the learning rate (shrinkage), > 0
  leaves=     the largest number of leaves of a tree, an integer >= 2
  min_leaf=   the fewest training rows in a leaf, an integer >= 1
  l2=         the L2 penalty on the leaf values, >= 0
  max_bins=   bins per feature for the split search, an integer 2 to 255

and is answered with the accuracy of scikit-learn's
HistGradientBoostingClassifier (a fixed number of boosting rounds, no early
stopping, random_state fixed) trained with them on the training rows, on the
validation rows (or the test rows: --score). The data is UCI Covertype in its
covtype.data format (54 features, the cover type 1-7 last); the default is
the 205,857-row file of the project's shared data, read where it lies.

  examples/hard/hgb_covtype.py [--score validation|test|both] [--data covtype.data.gz]
"""
import gzip
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hardlib  # noqa: E402  (sets one thread before numpy is imported)

import numpy as np  # noqa: E402

PROG = "hgb_covtype.py"
NAMES = ("lr", "leaves", "min_leaf", "l2", "max_bins")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                    "../../../shared/data/covtype-206k.data.gz")


def read_covtype(path):
    """The comma-separated rows (54 features, then the label) as (X, y)."""
    try:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        hardlib.fail(PROG, f"cannot read {path}: {e.strerror or e}")
    rows = raw.count(b"\n") + (0 if raw.endswith(b"\n") or not raw else 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        flat = np.fromstring(raw.replace(b"\n", b","), dtype=np.float64, sep=",")
    if rows == 0 or flat.size != rows * 55:
        hardlib.fail(PROG, f"{path}: expected {rows} rows of 55 numbers (covtype.data format), "
                           f"read {flat.size} numbers")
    data = flat.reshape(rows, 55)
    return data[:, :54], data[:, 54].astype(np.int64)


def main():
    p = hardlib.parser(__doc__.split("\n")[0], (5000, 2000, 2000, 27))
    p.add_argument("--rounds", type=int, default=50, help="boosting rounds (default 50)")
    args = p.parse_args()
    X, y = read_covtype(os.path.normpath(args.data or DATA))
    tr, va, te = hardlib.split(X.shape[0], args, PROG)

    def evaluate(req):
        lr = hardlib.number("lr", req["lr"], 1e-12, 1e3)
        leaves = hardlib.number("leaves", req["leaves"], 2, 100000, integer=True)
        min_leaf = hardlib.number("min_leaf", req["min_leaf"], 1, 1e9, integer=True)
        l2 = hardlib.number("l2", req["l2"], 0, 1e9)
        max_bins = hardlib.number("max_bins", req["max_bins"], 2, 255, integer=True)
        # Imported at the first good request: a bad request or setting fails
        # at once, without the second it takes to import scikit-learn.
        from sklearn.ensemble import HistGradientBoostingClassifier
        model = HistGradientBoostingClassifier(
            learning_rate=lr, max_iter=args.rounds, max_leaf_nodes=leaves,
            min_samples_leaf=min_leaf, l2_regularization=l2, max_bins=max_bins,
            early_stopping=False, random_state=0)
        with np.errstate(all="ignore"):
            model.fit(X[tr], y[tr])
            return model.score(X[va], y[va]), model.score(X[te], y[te])

    hardlib.serve(PROG, args, NAMES, evaluate)


if __name__ == "__main__":
    main()
