#!/usr/bin/python3
"""The checkerboard data of configs/compare-hard.ini (issue #13, item 4: a
hard landscape): points uniform in the unit square, labelled by the colour of
the K x K board square they fall in (1 or 2, last column), with a share of
labels flipped at random. An RBF-SVM separates the squares only when its
length scale matches their size (gamma near the right value) and C is large
enough to follow every edge; elsewhere it guesses (accuracy 0.5), so few
(C, gamma) pairs of a wide log box come within one point of the best.

    make_checkerboard.py OUT.csv [--rows N] [--squares K] [--flip P] [--seed S]

Defaults: 20,000 rows, K = 10, P = 0.02, seed 13: the file of configs/compare-hard.ini. Needs numpy.
"""
import argparse

import numpy as np


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--squares", type=int, default=10)
    ap.add_argument("--flip", type=float, default=0.02)
    ap.add_argument("--seed", type=int, default=13)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    x = rng.random((args.rows, 2))
    cell = np.floor(x * args.squares).astype(int)
    y = (cell[:, 0] + cell[:, 1]) % 2
    flip = rng.random(args.rows) < args.flip
    y = np.where(flip, 1 - y, y)
    np.savetxt(args.out, np.column_stack([x, y + 1]), delimiter=",", fmt=["%.6f", "%.6f", "%d"])
    print(f"wrote {args.out}: {args.rows} rows, {args.squares} x {args.squares} squares, "
          f"{flip.mean():.4f} of the labels flipped")


if __name__ == "__main__":
    main()
