#!/usr/bin/python3
"""The checkerboard data of configs/compare-hard.ini (issue #13, item 4: a
hard landscape): points uniform in the unit square, labelled by the colour of
the K x K board square they fall in (1 or 2, last column), with a share of
labels flipped at random. An RBF-SVM separates the squares only when its
length scale matches their size (gamma near the right value) and C is large
enough to follow every edge; elsewhere it guesses (accuracy 0.5), so few
(C, gamma) pairs of a wide log box come within one point of the best.

With --noise-features F (configs/compare-hard4.ini) F more columns follow
the two of the board, uniform in [0, 1] and independent of the label. An
unweighted RBF kernel measures distance in all 2 + F dimensions, so the
noise drowns the board's squares; only small weights on the noise features
(the svm objective's dim.weight.K) bring the board back. The noise has no
scale option on purpose: dpbo scales every feature to [0, 1] with the
training rows' range, which would undo any scale given here.

    make_checkerboard.py OUT.csv [--rows N] [--squares K] [--flip P] [--seed S]
                         [--noise-features F]

Defaults: 20,000 rows, K = 10, P = 0.02, seed 13, F = 0: the file of
configs/compare-hard.ini. Needs numpy.
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
    ap.add_argument("--noise-features", type=int, default=0,
                    help="uniform columns without label information after the board's two")
    args = ap.parse_args()
    if args.noise_features < 0:
        ap.error("--noise-features must be >= 0")
    rng = np.random.default_rng(args.seed)
    x = rng.random((args.rows, 2))
    cell = np.floor(x * args.squares).astype(int)
    y = (cell[:, 0] + cell[:, 1]) % 2
    flip = rng.random(args.rows) < args.flip
    y = np.where(flip, 1 - y, y)
    # Drawn after everything above, so F = 0 writes the file it always wrote.
    noise = rng.random((args.rows, args.noise_features))
    columns = np.column_stack([x, noise, y + 1])
    np.savetxt(args.out, columns, delimiter=",",
               fmt=["%.6f"] * (2 + args.noise_features) + ["%d"])
    print(f"wrote {args.out}: {args.rows} rows, {args.squares} x {args.squares} squares, "
          f"{flip.mean():.4f} of the labels flipped, {args.noise_features} noise features")


if __name__ == "__main__":
    main()
