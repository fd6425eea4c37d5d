#!/usr/bin/python3
"""Figures and a table from `dpbo compare` files or their data files (layout in src/experiments/compare.h).

    plot_compare.py FILE [FILE ...] [-o OUT.png] [--dpi D] [--table] [--run RUNFILE.h5]

FILE is a compare HDF5 file or a data file written from such files by
analysis/export_compare.py (JSON, committed under analysis/data/): an HDF5
file is exported in memory by that script's function and drawn from the
result, so both draw the same figure and tables (one code path).

A compare file holds one delta (its attribute `delta`). Several files of the
same data set and candidates (the same accuracy table; e.g. delta = 1e-6 and
the paper's 0.05) are drawn as one figure, one row of panels per file, the
smallest delta first (the main setting); files of different tables are
refused (exit 2): draw one figure per data set.

Draws three panels per file:
  1. held-out test accuracy of the released hyper-parameter against the total
     epsilon (log axis), one line per private method: the mean over the
     repetitions with its standard error (error bars), and the median with
     an interquartile band (dashed); the non-private references (GP-UCB's
     best observed point and argmax mu_T, the best of T random candidates;
     one run per repetition) as horizontal lines at their means with a
     band of +- one standard error, and the test accuracy of the dpbo
     lambda~ averaged over its exact distribution (dotted). Every method
     the file names is drawn (methods added to dpbo compare later included);
  2. the absolute error of the released value against the true gain of the
     released hyper-parameter (the validation accuracy for svm; for
     Algorithm 3, which releases no hyper-parameter, against max_t f_V),
     median and interquartile band, per private method, log axis;
  3. the utility curves of the dpbo run: P(max mu_T - mu_T(lambda~) <= x)
     against x for each epsilon, from the exact distribution of lambda~
     (with --run, those of a run file's `dpbo utility` report instead:
     RUNFILE:/utility/data_holder).
With --table it also writes, per file (smallest delta first) and per
epsilon, each method's guarantee (pure (eps, 0), approximate (eps, delta),
non-private) and the test accuracy of its released lambda as mean +-
standard error (the sample standard deviation over sqrt(R)), median and
quartiles, and for the stopping methods (Liu-Talwar, Papernot-Steinke) the
share of repetitions that ran K = 1 and K <= 3 candidates with 95%
Clopper-Pearson intervals; then the landscape of Lambda, the released
values' errors, the base eps0, sigma and the sensitivities. As Markdown, on
standard output and into OUT.md next to the figure.

The comparison file holds validation accuracies: it is an experiment file,
not a release (the figure's title says so).

Needs Debian's python3-h5py, python3-matplotlib and python3-scipy (use
/usr/bin/python3). Exit status: 0 on success, 2 when a file is missing or
not a compare file (or data file), or the files hold different accuracy
tables.
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import h5py  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from scipy.stats import beta as beta_dist  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import export_compare  # noqa: E402

LABELS = {
    "dpbo": "DP-BO (Algorithm 1: exp. mechanism on $\\mu_T$)",
    "random_search": "private random search (exp. mechanism, $\\Delta = 1/m$)",
    "liu_talwar": "Liu-Talwar random stopping (privacy profile)",
    "papernot_steinke": "Papernot-Steinke repeated search (RDP or privacy profile)",
    "gp_ucb": "GP-UCB, non-private",
    "random_search_nonprivate": "random search, non-private",
    "dpbo_algorithm3": "DP-BO Algorithm 3 (value only; against $\\max_t f_V$)",
    "private_evaluations_mean": "GP-UCB on privatized evaluations, argmax $\\mu_T$",
    "private_evaluations_best": "GP-UCB on privatized evaluations, best noisy $v_t$",
    "gp_ucb_mean": "GP-UCB, non-private, argmax $\\mu_T$",
    "guided": "GP-guided selection (privatized GP-UCB, then a private search over candidates drawn from its posterior)",
}
PRIVATE = ["dpbo", "random_search", "liu_talwar", "papernot_steinke"]
REFERENCE = ["gp_ucb", "random_search_nonprivate", "gp_ucb_mean"]
# Methods that release no hyper-parameter (their test accuracy is not the
# released lambda's): left out of the test-accuracy panel and table.
VALUE_ONLY = ["dpbo_algorithm3"]
EXTRA_COLORS = ["C5", "C6", "C8", "C9", "C1", "C7"]


def private_methods(names):
    """The private methods in the file: today's in their usual order, then any
    other name (methods added to dpbo compare later) in the file's order."""
    known = [n for n in PRIVATE if n in names]
    return known + [n for n in names if n not in PRIVATE + REFERENCE + VALUE_ONLY]


def label(name):
    return LABELS.get(name, name.replace("_", " "))


def color(name, names):
    if name in COLORS:
        return COLORS[name]
    extra = [n for n in names if n not in COLORS]
    return EXTRA_COLORS[extra.index(name) % len(EXTRA_COLORS)]


def summary(x):
    """Mean, its standard error, quartiles (q1, median, q3) over the last
    axis (the repetitions)."""
    r = x.shape[-1]
    mean = x.mean(axis=-1)
    se = x.std(axis=-1, ddof=1) / np.sqrt(r) if r > 1 else np.full(mean.shape, np.nan)
    q1, med, q3 = quartiles(x)
    return mean, se, q1, med, q3
COLORS = {"dpbo": "C3", "random_search": "C0", "liu_talwar": "C2", "papernot_steinke": "C4",
          "gp_ucb": "k", "random_search_nonprivate": "0.5", "dpbo_algorithm3": "C1",
          "private_evaluations_mean": "C5", "private_evaluations_best": "C6", "gp_ucb_mean": "0.25",
          "guided": "C9"}


def load(path):
    """The files of `path` (a compare HDF5 file, or a data file of one or
    more) as plot dicts, through export_compare (one code path)."""
    try:
        entries = export_compare.load(path)
    except export_compare.ExportError as e:
        print(f"plot_compare.py: {e}", file=sys.stderr)
        sys.exit(2)
    files = []
    for entry in entries:
        d = export_compare.arrays(entry)
        meta, sens, prov = entry["meta"], entry["sensitivities"], entry["provenance"]
        acc = d["accounting"]
        d.update({"eps_base": acc["epsilon_base"], "eps_accounted": acc["epsilon_accounted"],
                  "delta_accounted": acc["delta_accounted"], "entry": entry,
                  "path": path if len(entries) == 1 else f"{path}:{prov['source_file']}",
                  "label": prov["source_file"]})
        d["attrs"] = {"N": meta["N"], "T": meta["T"], "repetitions": meta["repetitions"],
                      "validation_rows": meta["validation_rows"], "test_rows": meta["test_rows"],
                      "delta": meta["delta"], "config_file": prov.get("config_file", ""),
                      "sensitivity_lambda": sens["lambda"], "sensitivity_value": sens["value"],
                      "sensitivity_baselines": sens["baselines"]}
        if "algorithm3" in sens:
            d["attrs"]["sensitivity_algorithm3"] = sens["algorithm3"]
        files.append(d)
    return files


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


def plot_accuracy(ax, d):
    names, eps = d["names"], d["eps"]
    for name in private_methods(names):
        k, c = names.index(name), color(name, names)
        mean, se, q1, med, q3 = summary(d["test"][k])
        ax.errorbar(eps, mean, yerr=se if np.all(np.isfinite(se)) else None, fmt="o-", color=c, capsize=3, label=label(name) + ": mean ± s.e.")
        ax.plot(eps, med, "s--", color=c, ms=3, lw=0.9)
        ax.fill_between(eps, q1, q3, color=c, alpha=0.15)
    for name in REFERENCE:
        if name in names:
            k = names.index(name)
            mean, se = summary(d["test"][k][:1])[:2]
            ax.axhline(mean[0], color=COLORS[name], ls="--", lw=1.2,
                       label=label(name) + " (mean ± s.e.)")
            if np.isfinite(se[0]):
                ax.axhspan(mean[0] - se[0], mean[0] + se[0], color=COLORS[name], alpha=0.08)
    if "utility" in d:
        ax.plot(eps, d["utility"]["expected_test_accuracy"], ":", color=COLORS["dpbo"], lw=2,
                label="DP-BO, exact $E$ over $\\tilde\\lambda$'s distribution")
    ax.axhline(np.mean(d["table_test"]), color="0.6", ls="-.", lw=1,
               label="mean over $\\Lambda$ (a uniformly random choice)")
    ax.plot([], [], "s--", color="0.3", ms=3, lw=0.9, label="median, interquartile band (shaded)")
    ax.set_xscale("log")
    ax.set_xlabel("total $\\epsilon$ (each method by its own accounting)")
    ax.set_ylabel("held-out test accuracy of the released $\\lambda$")
    ax.set_title(f"test accuracy, $\\delta$ = {attr(d, 'delta'):g}: mean ± s.e.; median, quartiles")
    ax.legend(fontsize=6.5, loc="best", framealpha=0.7)


def plot_value_error(ax, d):
    names, eps = d["names"], d["eps"]
    for name in private_methods(names) + VALUE_ONLY:
        if name not in names or not np.all(np.isfinite(d["released"][names.index(name)])):
            continue
        k = names.index(name)
        err = np.maximum(np.abs(d["released"][k] - d["gain"][k]), 1e-5)
        q1, med, q3 = quartiles(err)
        ax.plot(eps, med, "o-", color=color(name, names), label=label(name))
        ax.fill_between(eps, q1, q3, color=color(name, names), alpha=0.18)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("total $\\epsilon$")
    ax.set_ylabel("|released value $-$ gain of the released $\\lambda$|")
    ax.legend(fontsize=7, loc="lower left", framealpha=0.7)
    ax.set_title("error of the released accuracy (floor 1e-5)")


def plot_utility(ax, d, run_utility):
    eps = d["eps"]
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


def plot(files, out, dpi, run_utility=None):
    rows = len(files)
    fig, axes = plt.subplots(rows, 3, figsize=(17, 5.2 * rows), squeeze=False)
    for row, d in enumerate(files):
        plot_accuracy(axes[row][0], d)
        plot_value_error(axes[row][1], d)
        plot_utility(axes[row][2], d, run_utility)
    d = files[0]
    n, T, R = attr(d, "N"), attr(d, "T"), attr(d, "repetitions")
    m, mt = attr(d, "validation_rows"), attr(d, "test_rows")
    alg3 = ""
    if attr(d, "sensitivity_algorithm3") is not None:
        alg3 = f", Algorithm 3's $\\Delta$ = {attr(d, 'sensitivity_algorithm3'):.4g}"
    deltas = ", ".join(f"{attr(f, 'delta'):g}" for f in files)
    source = os.path.basename(str(attr(d, "config_file", "")))
    fig.suptitle(f"dpbo compare ({source}): N = {n} candidates, T = {T}, R = {R} repetitions, m = {m} "
                 f"validation / {mt} test rows, $\\delta$ = {deltas}, $\\Delta_\\lambda$ = "
                 f"{attr(d, 'sensitivity_lambda'):.3g} vs {attr(d, 'sensitivity_baselines'):.3g} "
                 f"for the baselines{alg3} "
                 "(experiment file: NOT differentially private)", fontsize=10)
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.05 / rows))
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    fig.savefig(out, dpi=dpi)
    print(f"wrote {out}")


def clopper_pearson(k, n, level=0.95):
    """The exact (Clopper-Pearson) interval of a binomial proportion k / n."""
    a = (1 - level) / 2
    lo = 0.0 if k == 0 else float(beta_dist.ppf(a, k, n - k + 1))
    hi = 1.0 if k == n else float(beta_dist.ppf(1 - a, k + 1, n - k))
    return lo, hi


def share(k, n):
    lo, hi = clopper_pearson(k, n)
    return f"{k}/{n} = {k / n:.2f} [{lo:.2f}, {hi:.2f}]"


STOPPING = ["liu_talwar", "papernot_steinke"]


def table(d):
    names, eps = d["names"], d["eps"]
    R = d["test"].shape[-1]
    lines = [f"### {d['label']}: delta = {attr(d, 'delta'):g}, R = {R} repetitions", "",
             "held-out test accuracy of the released lambda (guarantee: each method's own "
             "accounting; K: candidates a stopping method ran, share of the R repetitions with "
             "its 95% Clopper-Pearson interval):", "",
             "| eps | method | guarantee | mean ± s.e. | median | q1 | q3 | K = 1 | K <= 3 |",
             "|---|---|---|---|---|---|---|---|---|"]
    for e in range(len(eps)):
        for name in private_methods(names) + [n for n in REFERENCE if n in names]:
            k = names.index(name)
            mean, se, q1, med, q3 = summary(d["test"][k])
            K1 = K3 = ""
            if name in STOPPING:
                K = d["evaluations"][k][e]
                K1, K3 = share(int(np.sum(K == 1)), R), share(int(np.sum(K <= 3)), R)
            lines.append(f"| {eps[e]:g} | {name} | {d['guarantee'][name]} | {mean[e]:.4f} ± "
                         f"{se[e]:.4f} | {med[e]:.4f} | {q1[e]:.4f} | {q3[e]:.4f} | {K1} | {K3} |")
        if "utility" in d:
            u = d["utility"]
            lines.append(f"| {eps[e]:g} | dpbo, exact E[test] (P(argmax mu_T) = "
                         f"{u['probability_argmax'][e]:.3g}) | {d['guarantee']['dpbo']} | "
                         f"{u['expected_test_accuracy'][e]:.4f} | | | | | |")
    st = d["entry"]["table"]["statistics"]
    lines += ["", f"Lambda ({attr(d, 'N')} candidates): best validation accuracy "
              f"{st['best_val_accuracy']:.4f} (test {st['test_accuracy_at_best_val']:.4f} there), "
              f"best test accuracy {st['best_test_accuracy']:.4f}; within one point of the best: "
              f"{100 * st['share_within_one_point_val']:.1f}% on validation, "
              f"{100 * st['share_within_one_point_test']:.1f}% on test; median candidate "
              f"{st['median_val_accuracy']:.4f} / {st['median_test_accuracy']:.4f}, 90th percentile "
              f"{st['p90_val_accuracy']:.4f} / {st['p90_test_accuracy']:.4f} (validation / test).",
              "", "| method | " + " | ".join(f"eps = {e:g}" for e in eps) + " |",
              "|---|" + "---|" * len(eps)]
    for name in private_methods(names) + VALUE_ONLY:
        if name not in names or not np.all(np.isfinite(d["released"][names.index(name)])):
            continue
        k = names.index(name)
        err = np.abs(d["released"][k] - d["gain"][k])
        lines.append(f"| {name}: median abs. error of released value | " +
                     " | ".join(f"{v:.4f}" for v in np.median(err, axis=-1)) + " |")
    for name in STOPPING:
        if name not in names:
            continue
        k = names.index(name)
        lines.append(f"| {name}: base eps0 | " + " | ".join(f"{v:.4g}" for v in d["eps_base"][k]) + " |")
        lines.append(f"| {name}: mean evaluations | " +
                     " | ".join(f"{v:.1f}" for v in d["evaluations"][k].mean(axis=-1)) + " |")
    for name in ["private_evaluations_mean"]:
        if name in names:
            sigma = d["accounting"]["sigma"][names.index(name)]
            lines.append("| private evaluations: sigma | " + " | ".join(f"{v:.4g}" for v in sigma) + " |")
    lines += ["", f"sensitivities: dpbo Delta_lambda = {attr(d, 'sensitivity_lambda'):.4g}, "
              f"Delta_v = {attr(d, 'sensitivity_value'):.4g}; the baselines' "
              f"{attr(d, 'sensitivity_baselines'):.4g}" +
              (f"; Algorithm 3's {attr(d, 'sensitivity_algorithm3'):.4g}"
               if attr(d, "sensitivity_algorithm3") is not None else "") + ".", ""]
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", metavar="file")
    ap.add_argument("-o", "--out", default=None)
    ap.add_argument("--dpi", type=int, default=110)
    ap.add_argument("--table", action="store_true")
    ap.add_argument("--run", default=None, help="draw the utility curves of this run file's /utility")
    args = ap.parse_args()
    for path in args.files:
        if not os.path.exists(path):
            print(f"plot_compare.py: {path}: no such file", file=sys.stderr)
            sys.exit(2)
    files = [d for path in args.files for d in load(path)]
    for d in files[1:]:
        if d["table_test"].shape != files[0]["table_test"].shape or not np.array_equal(
                d["table_test"], files[0]["table_test"]):
            print(f"plot_compare.py: {d['path']} and {files[0]['path']} hold different accuracy tables "
                  "(another data set, split or candidate set): draw one figure per data set",
                  file=sys.stderr)
            sys.exit(2)
    files.sort(key=lambda d: attr(d, "delta"))
    out = args.out or os.path.splitext(args.files[0])[0] + ".png"
    plot(files, out, args.dpi, load_run_utility(args.run) if args.run else None)
    if args.table:
        md = "".join(table(d) + "\n" for d in files)
        print(md, end="")
        md_path = os.path.splitext(out)[0] + ".md"
        with open(md_path, "w") as f:
            f.write(md)
        print(f"table: {md_path}")


if __name__ == "__main__":
    main()
