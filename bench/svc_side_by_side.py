#!/usr/bin/python3
"""dpbo's SVM training (LIBSVM, as `dpbo k1sweep` calls it) side by side with
scikit-learn's SVC on the same rows and hyper-parameters.

    /usr/bin/python3 bench/svc_side_by_side.py DATA [--train N] [--pool N]
        [--models K] [--cache MB] [--svm-predict build/bench/svm_predict]

build/bench/svm_predict reads DATA, splits and scales it as `dpbo k1sweep`
does (seed 20150706: N training rows, then the pool), trains the first K
Sobol settings of the sweep (configs/k1sweep-covtype.ini's box; model j of
the sweep is point j) and writes the rows exactly as LIBSVM sees them and the
settings at full precision to a temporary directory. This script then fits
sklearn.svm.SVC(C, kernel="rbf", gamma, tol=1e-3, shrinking=True,
cache_size=MB) on the same rows, predicts the same pool, and prints per
setting: dpbo's svm_train seconds and sklearn's fit seconds, both models'
support vectors and pool accuracies. Both are LIBSVM's solver (sklearn ships
a modified copy), so the support vectors and accuracies must agree closely:
the check that the rows and hyper-parameters really are the same. One core
each: OPENBLAS_NUM_THREADS=1 is set for the child. Needs /usr/bin/python3
with python3-sklearn (apt-get install python3-sklearn).
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

try:
    import numpy as np
    from sklearn.datasets import load_svmlight_files
    from sklearn.svm import SVC
    import sklearn
except ImportError as e:  # pragma: no cover
    sys.exit(f"svc_side_by_side: {e}; use /usr/bin/python3 with python3-sklearn "
             "(apt-get install python3-sklearn)")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data")
    ap.add_argument("--train", type=int, default=36603)
    ap.add_argument("--pool", type=int, default=50000)
    ap.add_argument("--models", type=int, default=4, help="first K Sobol settings (<= 16)")
    ap.add_argument("--cache", type=float, default=1000.0, help="kernel cache, MiB (both)")
    ap.add_argument("--seed", type=int, default=20150706)
    ap.add_argument("--svm-predict", default=os.path.join(ROOT, "build", "bench", "svm_predict"))
    a = ap.parse_args()
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    with tempfile.TemporaryDirectory(prefix="svc_side_by_side.") as tmp:
        cmd = [a.svm_predict, a.data, "--train", str(a.train), "--pool", str(a.pool),
               "--repeats", "0", "--sweep", str(a.models), "--cache", str(a.cache),
               "--seed", str(a.seed), "--dump", tmp]
        out = subprocess.run(cmd, env=env, capture_output=True, text=True)
        if out.returncode != 0:
            sys.exit(f"svc_side_by_side: {' '.join(cmd)} exited {out.returncode}:\n"
                     f"{out.stdout}{out.stderr}")
        rows = []
        header = None
        for line in out.stdout.splitlines():
            words = line.split()
            if words[:2] == ["C", "gamma"]:
                header = words
            elif header and len(words) == len(header) and re.match(r"^[0-9.e+-]+$", words[0]):
                rows.append(dict(zip(header, words)))
        settings = [tuple(map(float, l.split())) for l in open(os.path.join(tmp, "settings.txt"))]
        if len(rows) != len(settings):
            sys.exit(f"svc_side_by_side: could not read svm_predict's table:\n{out.stdout}")
        Xt, yt, Xp, yp = load_svmlight_files(
            [os.path.join(tmp, "train.libsvm"), os.path.join(tmp, "pool.libsvm")])
        Xt, Xp = Xt.toarray(), Xp.toarray()  # dense, as LIBSVM's rows are all 54 features
        print(f"svc_side_by_side: {a.data}, {Xt.shape[0]} training rows, {Xp.shape[0]} pool rows, "
              f"{Xt.shape[1]} features, cache {a.cache:g} MiB, tol 1e-3, shrinking; "
              f"sklearn {sklearn.__version__}, one core")
        print(f"{'C':>9} {'gamma':>9} | {'dpbo_s':>8} {'SVs':>6} {'pool_acc':>8} | "
              f"{'sklearn_s':>9} {'SVs':>6} {'pool_acc':>8} | {'ratio':>6} {'SV_diff':>7} "
              f"{'acc_diff':>8}")
        for (C, gamma), r in zip(settings, rows):
            svc = SVC(C=C, kernel="rbf", gamma=gamma, tol=1e-3, shrinking=True,
                      cache_size=a.cache)
            t0 = time.perf_counter()
            svc.fit(Xt, yt)
            fit_s = time.perf_counter() - t0
            acc = float(np.mean(svc.predict(Xp) == yp))
            nsv = int(svc.n_support_.sum())
            d_s, d_sv, d_acc = float(r["train_s"]), int(r["SVs"]), float(r["pool_acc"])
            print(f"{C:9.4g} {gamma:9.4g} | {d_s:8.2f} {d_sv:6d} {d_acc:8.4f} | "
                  f"{fit_s:9.2f} {nsv:6d} {acc:8.4f} | {fit_s / d_s:5.2f}x {nsv - d_sv:+7d} "
                  f"{acc - d_acc:+8.4f}", flush=True)
    print("ratio = sklearn fit seconds / dpbo svm_train seconds (sklearn's fit includes its input "
          "checks); SV_diff and acc_diff: sklearn - dpbo")


if __name__ == "__main__":
    main()
