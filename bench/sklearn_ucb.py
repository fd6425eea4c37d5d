#!/usr/bin/python3
"""GP-UCB with scikit-learn on the problem of bench/ucb_step.c, for comparison.

The same candidates (the first N points of the unscrambled 2-D Sobol sequence,
which dpbo's Sobol points reproduce), the same function (gain = -branin on
x1 in [-5, 10], x2 in [0, 15]), the same prior (Matern-5/2 with a fixed
length-scale on unit coordinates, y = (v - m0)/s, nugget (sigma/s)^2 on the
diagonal) and the same rule, lambda_t = argmax mu + sqrt(beta_t) sigma with
beta_t = 2 log(N t^2 pi^2 / (3 delta)), ties to the lowest index.

Each step refits GaussianProcessRegressor (optimizer=None, so the kernel stays
fixed) on all observations and predicts mean and standard deviation over all
N candidates: what a straightforward scikit-learn GP-UCB loop does.

Prints "key value" lines (ucb_step parses them):
    sklearn_version, candidates, setup_seconds (Sobol points), loop_seconds,
    last_step_seconds, best_gain, indices (comma-separated, 0-based)

Use Debian's interpreter (/usr/bin/python3), which has python3-sklearn.
"""
import argparse
import math
import sys
import time
import warnings

import numpy as np
import sklearn
from scipy.stats import qmc
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import Matern

LOWER = np.array([-5.0, 0.0])
UPPER = np.array([10.0, 15.0])


def branin(x):
    """Branin-Hoo (Dixon & Szego 1978), as dpbo_branin in src/objectives/synthetic.c."""
    a, b, c = 1.0, 5.1 / (4.0 * math.pi**2), 5.0 / math.pi
    r, s, t = 6.0, 10.0, 1.0 / (8.0 * math.pi)
    x1, x2 = x[..., 0], x[..., 1]
    q = x2 - b * x1 * x1 + c * x1 - r
    return a * q * q + s * (1.0 - t) * np.cos(x1) + s


def beta(n, t, delta):
    return 2.0 * math.log(n * t * t * math.pi**2 / (3.0 * delta))


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--n", type=float, default=1e6, help="number of candidates N")
    p.add_argument("--T", type=int, default=30, help="iterations")
    p.add_argument("--lengthscale", type=float, default=0.2, help="Matern-5/2 length-scale (unit coords)")
    p.add_argument("--nugget", type=float, default=1e-6, help="(sigma/s)^2 added to the diagonal")
    p.add_argument("--mean", type=float, default=-50.0, help="prior mean m0 of the gain")
    p.add_argument("--scale", type=float, default=50.0, help="prior signal std s of the gain")
    p.add_argument("--delta", type=float, default=0.05, help="delta in beta_t")
    p.add_argument("--verbose", action="store_true", help="print every step")
    args = p.parse_args(argv)
    n = int(args.n)
    if n < 1 or n != args.n:
        p.error("--n must be a positive integer")

    warnings.simplefilter("ignore")  # Sobol balance warning for N not a power of 2

    start = time.perf_counter()
    unit = qmc.Sobol(d=2, scramble=False).random(n)
    values = LOWER + unit * (UPPER - LOWER)
    setup = time.perf_counter() - start

    kernel = Matern(length_scale=args.lengthscale, length_scale_bounds="fixed", nu=2.5)
    gp = GaussianProcessRegressor(kernel=kernel, alpha=args.nugget, optimizer=None,
                                  normalize_y=False, copy_X_train=False)
    chosen, gains = [], []
    step_seconds = []
    loop_start = time.perf_counter()
    for t in range(1, args.T + 1):
        step_start = time.perf_counter()
        if chosen:
            y = (np.array(gains) - args.mean) / args.scale
            gp.fit(unit[chosen], y)
        # Before any observation predict() returns the prior (mu = 0, sigma = 1).
        mu, sd = gp.predict(unit, return_std=True)
        score = mu + math.sqrt(beta(n, t, args.delta)) * sd
        index = int(np.argmax(score))  # first maximum: lowest index on ties
        gain = -float(branin(values[index]))
        chosen.append(index)
        gains.append(gain)
        step_seconds.append(time.perf_counter() - step_start)
        if args.verbose:
            print("step %d index %d gain %.6g seconds %.4f" % (t, index, gain, step_seconds[-1]),
                  file=sys.stderr)
    loop = time.perf_counter() - loop_start

    print("sklearn_version", sklearn.__version__)
    print("candidates", n)
    print("setup_seconds %.6f" % setup)
    print("loop_seconds %.6f" % loop)
    print("last_step_seconds %.6f" % step_seconds[-1])
    print("best_gain %.10g" % max(gains))
    print("indices", ",".join(str(i) for i in chosen))
    return 0


if __name__ == "__main__":
    sys.exit(main())
