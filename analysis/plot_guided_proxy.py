#!/usr/bin/python3
"""Issue #26: the guided method with stage 1 on a proxy task against private
random search and non-private GP-UCB, on every task it ran on.

    plot_guided_proxy.py gather -o analysis/data/guided-proxy.json
    plot_guided_proxy.py draw analysis/data/guided-proxy.json -o analysis/figures/guided-proxy.png

`gather` reads the committed compare data files (analysis/data/compare-*.json:
the proxy runs, `-proxy.json`, and the plain method stage of the same table
for the guided method with its privatized stage 1) and writes, per task and
epsilon, the held-out test accuracy of each repetition's released lambda for
four methods: private random search, non-private GP-UCB (argmax mu_T), the
guided method with its privatized stage 1 and with its proxy stage 1. Its
output is the data the figure is drawn from (and RESULTS.md's table).

`draw` plots, per epsilon (one panel each), the difference of each method
from private random search in points of test accuracy, mean +- the standard
error of the difference (sqrt(se_a^2 + se_b^2), the two methods' draws being
independent), one row per task; and writes the numbers as a Markdown table
next to the figure (OUT.md).
"""
import argparse
import json
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_numbers  # noqa: E402

# (label, proxy data file, plain data file) in the order of RESULTS.md.
TASKS = [
    ("digits", "compare-digits-proxy.json", "compare-digits-deltas.json"),
    ("Fashion-MNIST (reduced)", "compare-fashion-proxy.json", "compare-fashion.json"),
    ("Covertype (reduced)", "compare-covtype-proxy.json", "compare-covtype.json"),
    ("2-d checkerboard", "compare-hard-proxy.json", "compare-hard.json"),
    ("4-d checkerboard (hard)", "compare-hard4-proxy.json", "compare-hard4.json"),
    ("SVM + 4 feature weights (hard)", "compare-svmw-covtype-proxy.json", "compare-svmw-covtype.json"),
    ("SVM + 10 feature weights (hard)", "compare-svmw10-covtype-proxy.json", "compare-svmw10-covtype.json"),
    ("SVM + 4 weights, LIBSVM guide's box (hard)", "compare-svmguide-covtype-proxy.json",
     "compare-svmguide-covtype.json"),
]
DELTA = 1e-6
METHODS = [("random_search", "private random search"),
           ("gp_ucb_mean", "non-private GP-UCB, argmax mu_T"),
           ("guided_privatized", "guided, privatized stage 1"),
           ("guided_proxy", "guided, proxy stage 1")]


def at_delta(path):
    for f in compare_numbers.load(path)["files"]:
        if math.isclose(f["meta"]["delta"], DELTA):
            return f
    sys.exit(f"plot_guided_proxy.py: {path}: no file at delta = {DELTA:g}")


def per_epsilon(f, name, eps):
    a = compare_numbers.test_accuracy(f, name)
    return a[f["meta"]["epsilons"].index(eps)] if len(a) > 1 else a[0]


def gather(data_dir, out):
    doc = {"format": "dpbo guided proxy summary 1", "delta": DELTA,
           "made_by": "analysis/plot_guided_proxy.py gather", "tasks": []}
    for label, proxy_name, plain_name in TASKS:
        proxy = at_delta(os.path.join(data_dir, proxy_name))
        plain = at_delta(os.path.join(data_dir, plain_name))
        epsilons = [e for e in (0.3, 1.0, 3.0) if e in proxy["meta"]["epsilons"]]
        task = {"label": label, "sources": [proxy_name, plain_name], "epsilons": epsilons,
                "test_accuracy": {}}
        for key, _ in METHODS:
            rows = []
            for eps in epsilons:
                if key == "guided_proxy":
                    a = per_epsilon(proxy, "guided", eps)
                elif key == "guided_privatized":
                    a = per_epsilon(plain, "guided", eps)
                else:
                    a = per_epsilon(proxy, key, eps)
                rows.append([float(x) for x in a])
            task["test_accuracy"][key] = rows
        doc["tasks"].append(task)
    with open(out, "w") as f:
        json.dump(doc, f, indent=1)
    print(f"wrote {out} ({len(doc['tasks'])} tasks)")


def mean_se(x):
    # numpy's mean and sample deviation, as compare_numbers.py computes them
    # (so that the two agree to the last printed digit).
    x = np.asarray(x, dtype=float)
    return x.mean(), x.std(ddof=1) / math.sqrt(len(x))


def difference(a, b):
    (ma, sa), (mb, sb) = mean_se(a), mean_se(b)
    return 100 * (ma - mb), 100 * math.hypot(sa, sb)


def draw(path, out, dpi):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(path) as f:
        doc = json.load(f)
    tasks = doc["tasks"]
    epsilons = tasks[0]["epsilons"]
    fig, axes = plt.subplots(1, len(epsilons), figsize=(4.2 * len(epsilons), 0.55 * len(tasks) + 1.6),
                             sharey=True)
    colors = {"gp_ucb_mean": "0.35", "guided_privatized": "tab:orange", "guided_proxy": "tab:blue"}
    lines = []
    for k, eps in enumerate(epsilons):
        ax = axes[k]
        for j, (key, name) in enumerate(METHODS[1:]):
            ys, xs, es = [], [], []
            for i, t in enumerate(tasks):
                e = t["epsilons"].index(eps)
                d, s = difference(t["test_accuracy"][key][e], t["test_accuracy"]["random_search"][e])
                ys.append(i + (j - 1) * 0.22)
                xs.append(d)
                es.append(s)
            h = ax.errorbar(xs, ys, xerr=es, fmt="o", ms=4, capsize=2, color=colors[key], label=name)
            if k == 0:
                lines.append(h)
        ax.axvline(0, color="k", lw=0.8)
        ax.axvline(2, color="k", lw=0.6, ls=":")
        ax.set_title(f"epsilon = {eps:g}, delta = {doc['delta']:g}")
        ax.set_xlabel("minus private random search (points)")
        ax.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(tasks)))
    axes[0].set_yticklabels([t["label"] for t in tasks])
    axes[0].invert_yaxis()
    fig.legend(handles=lines, loc="lower center", ncol=3, frameon=False)
    fig.tight_layout(rect=(0, 0.07, 1, 1))
    fig.savefig(out, dpi=dpi)
    md = os.path.splitext(out)[0] + ".md"
    with open(md, "w") as f:
        f.write(f"Held-out test accuracy at delta = {doc['delta']:g} (mean +- s.e. over the "
                "repetitions) and differences from private random search in points (+- the s.e. of "
                f"the difference); data {os.path.basename(path)}.\n\n")
        for eps in epsilons:
            f.write(f"\n## epsilon = {eps:g}\n\n| task | " + " | ".join(n for _, n in METHODS) +
                    " | " + " | ".join(f"{n} - private RS" for _, n in METHODS[1:]) + " |\n")
            f.write("|---" * (2 * len(METHODS)) + "|\n")
            for t in tasks:
                e = t["epsilons"].index(eps)
                acc = t["test_accuracy"]
                cells = ["%.4f +- %.4f" % mean_se(acc[key][e]) for key, _ in METHODS]
                diffs = ["%+.2f +- %.2f" % difference(acc[key][e], acc["random_search"][e])
                         for key, _ in METHODS[1:]]
                f.write(f"| {t['label']} | " + " | ".join(cells + diffs) + " |\n")
    print(f"wrote {out} and {md}")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    g = sub.add_parser("gather")
    g.add_argument("--data-dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "data"))
    g.add_argument("-o", "--out", required=True)
    d = sub.add_parser("draw")
    d.add_argument("data")
    d.add_argument("-o", "--out", required=True)
    d.add_argument("--dpi", type=int, default=110)
    a = p.parse_args()
    if a.command == "gather":
        gather(a.data_dir, a.out)
    else:
        draw(a.data, a.out, a.dpi)


if __name__ == "__main__":
    main()
