#!/usr/bin/python3
"""The derived numbers that analysis/RESULTS.md quotes from a compare data file.

    compare_numbers.py analysis/data/compare-NAME.json
    compare_numbers.py --across EPSILON DELTA NAME=FILE.json [NAME=FILE.json ...]
    compare_numbers.py --pairs DELTA FILE.json

The tables of a compare figure come from plot_compare.py --table; the prose
around them also quotes numbers that are sums, ratios or shares of the
file's contents (the parts of a sensitivity, the landscape of Λ, DP-BO's gap
to the others, the stopping methods' K). This script prints each of them,
labelled, from the committed data file alone (issue #24: every number
traceable), so a reader can check every sentence against the data.

Needs numpy (Debian's python3-numpy; use /usr/bin/python3). Exit status 2
when the file is missing or not a compare data file.
"""
import argparse
import json
import math
import sys

import numpy as np


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        sys.exit(f"compare_numbers.py: {path}: {e}")
    if not str(doc.get("format", "")).startswith("dpbo compare figure data"):
        print(f"compare_numbers.py: {path}: not a compare data file", file=sys.stderr)
        sys.exit(2)
    # The exporter stores a table shared by several files (two deltas of one
    # accuracy table) once, in the first file.
    for f in doc["files"][1:]:
        for key, value in doc["files"][0].get("table", {}).items():
            f.setdefault("table", {}).setdefault(key, value)
    return doc


def table_column(f, column):
    """One column of the accuracy table (val_accuracy or test_accuracy) over Lambda."""
    t = f["table"][column]
    # svm/logreg tables store counts of correct rows; command tables the
    # program's accuracies themselves.
    if "correct" in t:
        return np.array(t["correct"], dtype=float) / t["rows"]
    return np.array(t["values"], dtype=float)


def released_accuracy(f, name, column):
    """A column of the table at the method's released lambdas, per epsilon and repetition."""
    index = np.array(f["methods"][name]["index"], dtype=int)
    return table_column(f, column)[index]


def test_accuracy(f, name):
    """The method's held-out test accuracy per epsilon and repetition."""
    return released_accuracy(f, name, "test_accuracy")


def sensitivities(f):
    s = f["sensitivities"]
    terms = s.get("terms", {})
    signal = f["meta"].get("signal_std") or f["provenance"].get("config", {}).get("gp.signal_std")
    print("## sensitivities (units of accuracy)")
    print(f"Delta_lambda = {s['lambda']:.4f}, Delta_v = {s['value']:.4f}, "
          f"baselines 1/m = {s['baselines']:.5f}, Delta_lambda / (1/m) = {s['lambda'] / s['baselines']:.0f}")
    if "beta_T_plus_1" in terms:
        width = 2 * math.sqrt(terms["beta_T_plus_1"])
        c = terms["c_lambda"]
        print(f"Delta_lambda terms: 2 sqrt(beta_T+1) = {width:.3f} ({100 * width / (width + c):.0f} %), "
              f"c = {c:.3f} ({100 * c / (width + c):.0f} %); s = {s['lambda'] / (width + c):.3f}; "
              f"with c = 0: {s['lambda'] * width / (width + c):.3f}")
        regret, q = terms["regret_term"], terms["q"]
        total = regret + terms["c_value"] + q
        print(f"Delta_v terms: regret sqrt(C1 beta_T gamma_T / T) = {regret:.3f} ({100 * regret / total:.0f} %), "
              f"c = {terms['c_value']:.3f}, q = {q:.3f}; gamma_T = {terms['gamma_T']:.1f}")
        n = f["meta"]["N"]
        print(f"epsilon_lambda for lambda~ within 0.01 of max mu_T w.p. 0.95 "
              f"(2 Delta_lambda (log N + 3) / 0.01): {2 * s['lambda'] * (math.log(n) + 3) / 0.01:.0f}")
    del signal


def landscape(f):
    t = f["table"]
    test = table_column(f, "test_accuracy")
    print("## the candidates (test accuracy over Lambda)")
    print(f"uniform draw: mean {test.mean():.3f}; share >= 0.95: {np.mean(test >= 0.95):.1%}; "
          f"share < 0.2: {np.mean(test < 0.2):.1%}")
    st = t.get("statistics", {})
    for key in sorted(st):
        print(f"{key} = {st[key]}")
    # The proxy task's ranking (issue #26), in files exported with a proxy column.
    for key, value in t.get("proxy_statistics", {}).items():
        print(f"proxy {key} = {value}")


def gaps(f):
    eps = f["meta"]["epsilons"]
    methods = f["methods"]
    exact = f.get("utility", {}).get("expected_test_accuracy")
    print("## means per epsilon (test accuracy), and DP-BO's exact expectation against them")
    names = [n for n in methods if methods[n].get("index") is not None
             and n not in ("dpbo_algorithm3",)]
    for e, at in enumerate(eps):
        row = []
        for n in names:
            acc = test_accuracy(f, n)[e] if methods[n].get("per_epsilon", True) in (True, "True") else test_accuracy(f, n)[0]
            row.append(f"{n} {acc.mean():.4f} ± {acc.std(ddof=1) / math.sqrt(len(acc)):.4f}")
        line = f"eps = {at:g}: " + "; ".join(row)
        if exact:
            line += f"; dpbo exact E = {exact[e]:.4f}"
            rs = test_accuracy(f, "random_search")[e].mean() if "random_search" in methods else float("nan")
            ps = test_accuracy(f, "papernot_steinke")[e] if "papernot_steinke" in methods else None
            line += f"; random search mean - exact E = {100 * (rs - exact[e]):.1f} points"
            if ps is not None:
                se = ps.std(ddof=1) / math.sqrt(len(ps))
                line += (f"; Papernot-Steinke mean - exact E = {100 * (ps.mean() - exact[e]):.1f} points "
                         f"({(ps.mean() - exact[e]) / se:.1f} s.e. of its mean)")
        print(line)
    # What the methods optimise: the released lambda's validation accuracy
    # (a gap between it and test is the selection overfitting validation).
    for e, at in enumerate(eps):
        row = []
        for n in names:
            acc = released_accuracy(f, n, "val_accuracy")
            acc = acc[e] if len(acc) > 1 else acc[0]
            row.append(f"{n} {acc.mean():.4f} ± {acc.std(ddof=1) / math.sqrt(len(acc)):.4f}")
        print(f"eps = {at:g} (validation accuracy): " + "; ".join(row))


def released(f):
    """The guided method's most released candidates: how often, their rank on
    validation (1 = best, ties sharing one; and on the proxy task, when the file has its column)
    and their validation and test accuracy."""
    if "guided" not in f["methods"]:
        return
    all_val, all_test = table_column(f, "val_accuracy"), table_column(f, "test_accuracy")

    def rank(x):
        """1 + the number of candidates strictly better (ties share a rank)."""
        return 1 + len(x) - np.searchsorted(np.sort(x), x, side="right")

    val_rank = rank(all_val)
    proxy_rank = rank(table_column(f, "proxy_accuracy")) if "proxy_accuracy" in f["table"] else None
    index = np.array(f["methods"]["guided"]["index"], dtype=int)
    print("## guided: its most released candidates")
    for e, at in enumerate(f["meta"]["epsilons"]):
        ids, counts = np.unique(index[e], return_counts=True)
        top = np.argsort(-counts, kind="stable")[:3]
        parts = [f"candidate {ids[k]} in {counts[k]} of {len(index[e])} (validation rank {val_rank[ids[k]]}"
                 + (f", proxy rank {proxy_rank[ids[k]]}" if proxy_rank is not None else "")
                 + f", validation {all_val[ids[k]]:.4f}, test {all_test[ids[k]]:.4f})" for k in top]
        print(f"eps = {at:g}: " + "; ".join(parts))


def stopping(f):
    eps = f["meta"]["epsilons"]
    print("## the stopping methods: K (candidates run) per repetition")
    for n in ("liu_talwar", "papernot_steinke"):
        if n not in f["methods"]:
            continue
        k = np.array(f["methods"][n]["evaluations"], dtype=float)
        ones = [int(np.sum(k[e] == 1)) for e in range(len(eps))]
        three = [int(np.sum(k[e] <= 3)) for e in range(len(eps))]
        r = k.shape[1]
        print(f"{n}: K = 1 in {min(ones)}-{max(ones)} of {r} per epsilon ({100 * min(ones) / r:.0f}-{100 * max(ones) / r:.0f} %); "
              f"K <= 3 in {min(three)}-{max(three)} of {r} ({100 * min(three) / r:.0f}-{100 * max(three) / r:.0f} %)")
        base = f["methods"][n].get("accounting", {}).get("epsilon_base")
        if base:
            print(f"{n}: eps0 = " + ", ".join(f"{b:.4g} (eps {at:g}, {b / at:.2f} eps)" for b, at in zip(base, eps)))


ACROSS_ROWS = [
    ("private_evaluations_mean", "privatized GP-UCB, argmax μ_T", "(ε, δ) approx."),
    ("private_evaluations_best", "privatized GP-UCB, best noisy observation", "(ε, δ) approx."),
    ("gp_ucb_mean", "non-private GP-UCB, argmax μ_T (R seeded starts)", "none (not private)"),
    ("gp_ucb", "non-private GP-UCB, best observed (R seeded starts)", "none (not private)"),
    ("random_search", "private random search", "(ε, 0) pure"),
    ("liu_talwar", "Liu–Talwar", "(ε, δ) approx."),
    ("papernot_steinke", "Papernot–Steinke (η = 0)", "(ε, δ) approx."),
    ("dpbo", "DP-BO, Algorithm 1", "(ε, δ) approx."),
    ("guided", "GP-guided selection (privatized GP-UCB, then a private search over candidates drawn from its posterior)",
     "(ε, δ) approx."),
    ("random_search_nonprivate", "random search, non-private", "none (not private)"),
]


def across(epsilon, delta, named):
    """The cross-data-set table at one (epsilon, delta)."""
    columns = []
    for item in named:
        name, _, path = item.partition("=")
        files = [f for f in load(path)["files"] if math.isclose(f["meta"]["delta"], delta)]
        if not files:
            print(f"compare_numbers.py: {path}: no file at delta = {delta:g}", file=sys.stderr)
            sys.exit(2)
        f = files[0]
        eps = f["meta"]["epsilons"]
        at = [i for i, e in enumerate(eps) if math.isclose(e, epsilon)]
        if not at:
            print(f"compare_numbers.py: {path}: no epsilon = {epsilon:g}", file=sys.stderr)
            sys.exit(2)
        columns.append((name, f, at[0]))
    extra = [n for _, f, _ in columns for n in f["methods"]
             if n not in dict((r[0], 0) for r in ACROSS_ROWS) and n != "dpbo_algorithm3"]
    rows = ACROSS_ROWS + [(n, n, f["methods"][n].get("guarantee", "")) for n in dict.fromkeys(extra)]
    print("| method | guarantee | " + " | ".join(c[0] for c in columns) + " |")
    print("|---|---|" + "---|" * len(columns))
    for key, label, guarantee in rows:
        cells = []
        for _, f, e in columns:
            if key not in f["methods"]:
                cells.append("–")
                continue
            a = test_accuracy(f, key)
            a = a[e] if len(a) > 1 else a[0]  # a reference, stored once for every epsilon
            cells.append(f"{a.mean():.4f} ± {a.std(ddof=1) / math.sqrt(len(a)):.4f} ({np.median(a):.4f})")
        print(f"| {label} | {guarantee} | " + " | ".join(cells) + " |")


PAIRS = [
    ("private_evaluations_mean", "gp_ucb_mean"),
    ("private_evaluations_best", "gp_ucb"),
    ("private_evaluations_mean", "random_search"),
    ("private_evaluations_best", "random_search"),
    ("gp_ucb", "random_search_nonprivate"),
    ("gp_ucb_mean", "random_search_nonprivate"),
    ("guided", "random_search"),
    ("guided", "gp_ucb_mean"),
    ("guided", "gp_ucb"),
]


def pairs(delta, path):
    files = [f for f in load(path)["files"] if math.isclose(f["meta"]["delta"], delta)]
    if not files:
        print(f"compare_numbers.py: {path}: no file at delta = {delta:g}", file=sys.stderr)
        sys.exit(2)
    f = files[0]

    def at(name, e):
        a = test_accuracy(f, name)
        return a[e] if len(a) > 1 else a[0]

    for e, eps in enumerate(f["meta"]["epsilons"]):
        parts = []
        for a, b in PAIRS:
            if a not in f["methods"] or b not in f["methods"]:
                continue
            x, y = at(a, e), at(b, e)
            se = math.hypot(x.std(ddof=1) / math.sqrt(len(x)), y.std(ddof=1) / math.sqrt(len(y)))
            parts.append(f"{a} - {b} = {100 * (x.mean() - y.mean()):+.2f} ± {100 * se:.2f}")
        quart = [f"{n} q1 {np.quantile(at(n, e), 0.25):.4f} / median {np.median(at(n, e)):.4f}"
                 for n in ("private_evaluations_mean", "private_evaluations_best", "random_search")
                 if n in f["methods"]]
        print(f"eps = {eps:g}, delta = {delta:g}: " + "; ".join(parts + quart))


def main(argv):
    if argv[:1] == ["--pairs"]:
        if len(argv) != 3:
            print("usage: compare_numbers.py --pairs DELTA FILE.json", file=sys.stderr)
            return 2
        pairs(float(argv[1]), argv[2])
        return 0
    if argv[:1] == ["--across"]:
        if len(argv) < 4:
            print("usage: compare_numbers.py --across EPSILON DELTA NAME=FILE.json ...", file=sys.stderr)
            return 2
        across(float(argv[1]), float(argv[2]), argv[3:])
        return 0
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("data", help="a compare data file (analysis/data/compare-*.json)")
    a = p.parse_args(argv)
    doc = load(a.data)
    for i, f in enumerate(doc["files"]):
        print(f"# file {i}: delta = {f['meta']['delta']:g}, {f['provenance'].get('config_file', '')}")
        sensitivities(f)
        landscape(f)
        gaps(f)
        released(f)
        stopping(f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
