"""The small classification data of the compare tests (tests/compare_fixture.sh's
compare_fixture_blobs, compare_alg2.sh): two Gaussian blobs, 240 rows, 4 features (two of them
informative), label 1 or 2 last; written to blobs.csv in the current folder."""
import numpy as np

rng = np.random.default_rng(6)
n = 240
y = rng.integers(0, 2, n)
x = rng.normal(0, 1, (n, 4)) + np.outer(2 * y - 1, [1.0, 0.6, 0.0, 0.0])
np.savetxt("blobs.csv", np.column_stack([x, y + 1]), delimiter=",", fmt="%.6f")
