#!/usr/bin/python3
"""Figures and a table from a `dpbo compare` file (layout in include/dpbo/compare.h).

    plot_compare.py COMPARE.h5 [-o OUT.png] [--dpi D] [--table] [--run RUNFILE.h5]

Draws three panels:
  1. held-out test accuracy of the released hyper-parameter against the total
     epsilon (log axis), one line per private method: the median over the
     repetitions with an interquartile band; the non-private references
     (GP-UCB's best observed point, the best of T random candidates) as
     horizontal lines, and the test accuracy of the dpbo lambda~ averaged
     over its exact distribution (dotted);
  2. the absolute error of the released value against the true gain of the
     released hyper-parameter (the validation accuracy for svm; for
     Algorithm 3, which releases no hyper-parameter, against max_t f_V),
     median and interquartile band, per private method, log axis;
  3. the utility curves of the dpbo run: P(max mu_T - mu_T(lambda~) <= x)
     against x for each epsilon, from the exact distribution of lambda~
     (with --run, those of a run file's `dpbo utility` report instead:
     RUNFILE:/utility/data_holder).
With --table it also prints the medians and quartiles as a Markdown table.

The comparison file holds validation accuracies: it is an experiment file,
not a release (the figure's title says so).

Needs Debian's python3-h5py and python3-matplotlib (use /usr/bin/python3).
Exit status: 0 on success, 2 when the file is missing or not a compare file.
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import h5py  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

LABELS = {
    "dpbo": "DP-BO (Algorithm 1: exp. mechanism on $\\mu_T$)",
    "random_search": "private random search (exp. mechanism, $\\Delta = 1/m$)",
    "liu_talwar": "Liu-Talwar random stopping (privacy profile)",
    "papernot_steinke": "Papernot-Steinke repeated search (RDP or privacy profile)",
    "gp_ucb": "GP-UCB, non-private",
    "random_search_nonprivate": "random search, non-private",
    "dpbo_algorithm3": "DP-BO Algorithm 3 (value only; against $\\max_t f_V$)",
}
PRIVATE = ["dpbo", "random_search", "liu_talwar", "papernot_steinke"]
REFERENCE = ["gp_ucb", "random_search_nonprivate"]
COLORS = {"dpbo": "C3", "random_search": "C0", "liu_talwar": "C2", "papernot_steinke": "C4",
          "gp_ucb": "k", "random_search_nonprivate": "0.5", "dpbo_algorithm3": "C1"}


def load(path):
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        print(f"plot_compare.py: cannot open {path}: {e}", file=sys.stderr)
        sys.exit(2)
    with f:
        if "methods" not in f or "accounting" not in f:
            print(f"plot_compare.py: {path} is not a dpbo compare file (no /methods)", file=sys.stderr)
            sys.exit(2)
        m = f["methods"]
        d = {
            "names": m.attrs["names"].decode() if isinstance(m.attrs["names"], bytes) else m.attrs["names"],
            "eps": m["epsilon"][:],
            "test": m["test_accuracy"][:],
            "val": m["val_accuracy"][:],
            "gain": m["gain"][:],
            "released": m["released_value"][:],
            "evaluations": m["evaluations"][:],
            "eps_base": f["accounting/epsilon_base"][:],
            "eps_accounted": f["accounting/epsilon_accounted"][:],
            "delta_accounted": f["accounting/delta_accounted"][:],
            "attrs": {k: f.attrs[k] for k in f.attrs if not k.startswith("config.")},
            "table_val": f["table/val_accuracy"][:],
            "table_test": f["table/test_accuracy"][:],
        }
        if "utility" in f:
            u = f["utility"]
            d["utility"] = {k: u[k][:] for k in u}
    d["names"] = d["names"].split(",")
    return d


def load_run_utility(path):
    """The regret curves of a `dpbo utility` report in a run file."""
    try:
        with h5py.File(path, "r") as f:
            if "utility" not in f:
                print(f"plot_compare.py: {path} has no /utility (run dpbo utility on it first)",
                      file=sys.stderr)
                sys.exit(2)
            u = f["utility"]
            return {"eps": u["public/epsilon"][:], "regret_x": u["data_holder/regret_x"][:],
                    "regret_cdf": u["data_holder/regret_cdf"][:], "source": path}
    except OSError as e:
        print(f"plot_compare.py: cannot open {path}: {e}", file=sys.stderr)
        sys.exit(2)


def quartiles(x):
    return np.percentile(x, [25, 50, 75], axis=-1)


def attr(d, key, default=None):
    v = d["attrs"].get(key, default)
    if isinstance(v, np.ndarray) and v.size == 1:
        v = v.item()
    if isinstance(v, bytes):
        v = v.decode()
    return v


def plot(d, out, dpi, run_utility=None):
    names, eps = d["names"], d["eps"]
    fig, axes = plt.subplots(1, 3, figsize=(17, 5.2))
    ax = axes[0]
    for name in PRIVATE:
        k = names.index(name)
        q1, med, q3 = quartiles(d["test"][k])
        ax.plot(eps, med, "o-", color=COLORS[name], label=LABELS[name])
        ax.fill_between(eps, q1, q3, color=COLORS[name], alpha=0.18)
    for name in REFERENCE:
        k = names.index(name)
        ax.axhline(np.median(d["test"][k]), color=COLORS[name], ls="--", lw=1.2, label=LABELS[name])
    if "utility" in d:
        ax.plot(eps, d["utility"]["expected_test_accuracy"], ":", color=COLORS["dpbo"], lw=2,
                label="DP-BO, exact $E$ over $\\tilde\\lambda$'s distribution")
    ax.axhline(np.mean(d["table_test"]), color="0.6", ls="-.", lw=1,
               label="mean over $\\Lambda$ (a uniformly random choice)")
    ax.set_xscale("log")
    ax.set_xlabel("total $\\epsilon$ (each method by its own accounting)")
    ax.set_ylabel("held-out test accuracy of the released $\\lambda$")
    ax.set_title("test accuracy: median and interquartile band")
    ax.legend(fontsize=7, loc="best", framealpha=0.7)

    ax = axes[1]
    for name in PRIVATE + ["dpbo_algorithm3"]:
        if name not in names or not np.all(np.isfinite(d["released"][names.index(name)])):
            continue
        k = names.index(name)
        err = np.maximum(np.abs(d["released"][k] - d["gain"][k]), 1e-5)
        q1, med, q3 = quartiles(err)
        ax.plot(eps, med, "o-", color=COLORS[name], label=LABELS[name])
        ax.fill_between(eps, q1, q3, color=COLORS[name], alpha=0.18)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("total $\\epsilon$")
    ax.set_ylabel("|released value $-$ gain of the released $\\lambda$|")
    ax.legend(fontsize=7, loc="lower left", framealpha=0.7)
    ax.set_title("error of the released accuracy (floor 1e-5)")

    ax = axes[2]
    if run_utility is not None or "utility" in d:
        u = run_utility if run_utility is not None else d["utility"]
        ueps = run_utility["eps"] if run_utility is not None else eps
        cmap = plt.get_cmap("viridis")
        for e in range(len(ueps)):
            ax.plot(u["regret_x"][e], u["regret_cdf"][e], color=cmap(e / max(1, len(ueps) - 1)),
                    label=f"$\\epsilon$ = {ueps[e]:g}")
        ax.set_xlabel("regret in posterior mean, $\\max\\mu_T - \\mu_T(\\tilde\\lambda)$")
        ax.set_ylabel("$P$(regret $\\leq x$)")
        ax.set_title("DP-BO utility curves (exact, data holder only)" if run_utility is None else
                     f"utility curves of {os.path.basename(run_utility['source'])} (data holder only)")
        ax.legend(fontsize=8)
    else:
        ax.text(0.5, 0.5, "no exact distribution\n(permute-and-flip over > 512 candidates)",
                ha="center", va="center", transform=ax.transAxes)
    n, T, R = attr(d, "N"), attr(d, "T"), attr(d, "repetitions")
    m, mt = attr(d, "validation_rows"), attr(d, "test_rows")
    alg3 = ""
    if attr(d, "sensitivity_algorithm3") is not None:
        alg3 = f", Algorithm 3's $\\Delta$ = {attr(d, 'sensitivity_algorithm3'):.4g}"
    fig.suptitle(f"dpbo compare: N = {n} candidates, T = {T}, R = {R} repetitions, m = {m} validation / "
                 f"{mt} test rows, $\\delta$ = {attr(d, 'delta'):g}, $\\Delta_\\lambda$ = "
                 f"{attr(d, 'sensitivity_lambda'):.3g} vs {attr(d, 'sensitivity_baselines'):.3g} "
                 f"for the baselines{alg3} "
                 "(experiment file: NOT differentially private)", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=dpi)
    print(f"wrote {out}")


def table(d):
    names, eps = d["names"], d["eps"]
    print("| method | " + " | ".join(f"eps = {e:g}" for e in eps) + " |")
    print("|---|" + "---|" * len(eps))
    for name in PRIVATE + REFERENCE:
        k = names.index(name)
        q1, med, q3 = quartiles(d["test"][k])
        print(f"| {name} | " + " | ".join(f"{med[e]:.4f} [{q1[e]:.4f}, {q3[e]:.4f}]" for e in range(len(eps))) + " |")
    if "utility" in d:
        u = d["utility"]
        print("| dpbo, exact E[test] | " + " | ".join(f"{v:.4f}" for v in u["expected_test_accuracy"]) + " |")
        print("| dpbo, P(argmax mu_T) | " + " | ".join(f"{v:.3g}" for v in u["probability_argmax"]) + " |")
    print()
    print("| method | " + " | ".join(f"eps = {e:g}" for e in eps) + " |")
    print("|---|" + "---|" * len(eps))
    for name in PRIVATE + ["dpbo_algorithm3"]:
        if name not in names or not np.all(np.isfinite(d["released"][names.index(name)])):
            continue
        k = names.index(name)
        err = np.abs(d["released"][k] - d["gain"][k])
        print(f"| {name}: median abs. error of released value | " +
              " | ".join(f"{v:.4f}" for v in np.median(err, axis=-1)) + " |")
    for name in ["liu_talwar", "papernot_steinke"]:
        k = names.index(name)
        print(f"| {name}: base eps0 | " + " | ".join(f"{v:.4g}" for v in d["eps_base"][k]) + " |")
        print(f"| {name}: mean evaluations | " + " | ".join(f"{v:.1f}" for v in d["evaluations"][k].mean(axis=-1)) + " |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("file")
    ap.add_argument("-o", "--out", default=None)
    ap.add_argument("--dpi", type=int, default=110)
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--run", default=None, help="draw the utility curves of this run file's /utility")
    args = ap.parse_args()
    if not os.path.exists(args.file):
        print(f"plot_compare.py: {args.file}: no such file", file=sys.stderr)
        sys.exit(2)
    d = load(args.file)
    out = args.out or os.path.splitext(args.file)[0] + ".png"
    plot(d, out, args.dpi, load_run_utility(args.run) if args.run else None)
    if args.table:
        table(d)


if __name__ == "__main__":
    main()
