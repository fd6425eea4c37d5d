#!/usr/bin/python3
"""Figure 1 of the paper from a `dpbo k1sweep` file.

    analysis/plot_k1_sweep.py results/k1sweep-covtype.h5 [-o FIG.png] [--relative]

Left panel: the profile log-likelihood of the multi-task GP against
k1 = k1(V, V') on the paper's grid 0.05 ... 0.95, one curve per validation-set
size m. Right panel: the same curves continued towards k1 = 1 on a log scale of
1 - k1 (the sweep's extension), where the maximum usually lies. The MLE of
each curve is marked, with its 95% likelihood-ratio interval as a bar.

Also prints a table of the MLE of k1 per m (interval, boundary flag,
Algorithm 1's c, profiled hyper-parameters) and writes it as Markdown next to
the figure (FIG.md).
"""

import argparse
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def read(path):
    sizes = []
    with h5py.File(path, "r") as f:
        if text(f.attrs.get("command", "")) != "k1sweep":
            sys.exit(f"{path}: not a dpbo k1sweep file (attribute command != k1sweep)")
        meta = {
            "mode": text(f.attrs["mode"]),
            "models": int(f.attrs["models"]),
            "sets": int(f.attrs["sets"]),
            "neighbour": text(f.attrs["neighbour"]),
        }
        if "synthetic_truth" in f.attrs:
            meta["truth_k1"] = float(f.attrs["synthetic_truth"][0])
        for m in f.attrs["sizes"]:
            g = f[f"m{int(m)}/likelihood"]
            a = g.attrs
            sizes.append({
                "m": int(m),
                "k1": g["k1"][...],
                "t": g["one_minus_k1"][...],
                "loglik": g["loglik"][...],
                "k1_mle": float(a["k1_mle"]),
                "t_mle": float(a["one_minus_k1_mle"]),
                "loglik_mle": float(a["loglik_mle"]),
                "k1_lo": float(a["k1_lo"]),
                "k1_hi": float(a["k1_hi"]),
                "t_lo": float(a["t_lo"]),
                "t_hi": float(a["t_hi"]),
                "boundary": int(a["boundary"]),
                "c_mle": float(a["c_mle"]),
                "c_upper": float(a["c_upper"]),
                "sigma_n": float(a["sigma_n_mle"]),
                "lengthscale": float(a["lengthscale_mle"]),
                "m0": float(a["m0_mle"]),
                "s": float(a["s_mle"]),
                "N": int(a["N"]),
                "delta": float(a["delta"]),
            })
    return meta, sizes


def table(meta, sizes):
    boundary = {1: "at largest k1 searched (lower bound)", -1: "at smallest k1", 0: "interior"}
    rows = [
        "| m | MLE k1 | 1 - k1 | 95% LR interval of k1 | maximum | c at MLE | c at interval low end"
        " | sigma_n | length-scale | m0 | s |",
        "|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for s in sizes:
        rows.append(
            f"| {s['m']} | {s['k1_mle']:.6f} | {s['t_mle']:.3g} | [{s['k1_lo']:.6f}, {s['k1_hi']:.6f}]"
            f" | {boundary.get(s['boundary'], s['boundary'])} | {s['c_mle']:.4g} | {s['c_upper']:.4g}"
            f" | {s['sigma_n']:.3g} | {s['lengthscale']:.3g} | {s['m0']:.4g} | {s['s']:.3g} |")
    first = sizes[0]
    notes = [
        "",
        f"{meta['models']} settings ({meta['mode']}), {meta['sets']} validation-set pairs per m, "
        f"{meta['neighbour']} neighbours. c = 2 sqrt((1 - k1) log(3N/delta)) (Algorithm 1) with "
        f"N = {first['N']}, delta = {first['delta']:g}.",
    ]
    if "truth_k1" in meta:
        notes.append(f"Synthetic accuracies drawn with k1 = {meta['truth_k1']:g}.")
    notes.append("k1 is a prior hyper-parameter: estimate it on public or proxy data, never on "
                 "the sensitive validation data.")
    return "\n".join(rows + notes) + "\n"


def plot(meta, sizes, out, relative):
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=relative)
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, s in enumerate(sizes):
        c = colors[k % len(colors)]
        shift = s["loglik_mle"] if relative else 0.0
        y = s["loglik"] - shift
        label = f"m = {s['m']}"
        # The paper's grid: k1 = 0.05 ... 0.95.
        grid = (s["k1"] >= 0.05 - 1e-12) & (s["k1"] <= 0.95 + 1e-12)
        left.plot(s["k1"][grid], y[grid], "o-", ms=3, color=c, label=label)
        if 0.05 <= s["k1_mle"] <= 0.95:
            left.plot([s["k1_mle"]], [s["loglik_mle"] - shift], "*", ms=12, color=c)
        # The extension: 1 - k1 on a log scale (k1 grows to the right).
        order = np.argsort(s["t"])
        right.plot(s["t"][order], y[order], "-", color=c, label=label)
        right.plot([s["t_mle"]], [s["loglik_mle"] - shift], "*", ms=12, color=c)
        right.plot([s["t_lo"], s["t_hi"]], [s["loglik_mle"] - shift] * 2, "|-", color=c, lw=2)
    ylabel = "log-likelihood - maximum" if relative else "log-likelihood"
    left.set_xlabel(r"$k_1(\mathcal{V}, \mathcal{V}')$")
    left.set_ylabel(ylabel)
    left.set_xlim(0.0, 1.0)
    left.set_title("paper's grid, k1 = 0.05 ... 0.95")
    left.legend(loc="best", fontsize=8)
    right.set_xscale("log")
    right.invert_xaxis()
    right.set_xlabel(r"$1 - k_1$ (log scale; $k_1 \to 1$ to the right)")
    right.set_ylabel(ylabel)
    right.set_title("towards k1 = 1 (star: MLE, bar: 95% LR interval)")
    if relative:
        right.set_ylim(max(-60.0, right.get_ylim()[0]), 5.0)
    for ax in (left, right):
        ax.grid(True, alpha=0.3)
    fig.suptitle(f"Multi-task GP likelihood of k1: {meta['models']} SVM settings, "
                 f"{meta['sets']} validation sets per size ({meta['mode']})", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=150)
    plt.close(fig)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="HDF5 file written by dpbo k1sweep")
    parser.add_argument("-o", "--output", help="figure (PNG); default: next to FILE, .k1.png")
    parser.add_argument("--relative", action="store_true",
                        help="plot log-likelihood minus its maximum (curves of every m on one scale)")
    args = parser.parse_args()
    meta, sizes = read(args.file)
    out = args.output or os.path.splitext(args.file)[0] + ".k1.png"
    plot(meta, sizes, out, args.relative)
    md = table(meta, sizes)
    md_path = os.path.splitext(out)[0] + ".md"
    with open(md_path, "w") as f:
        f.write(f"# MLE of k1 per validation-set size ({os.path.basename(args.file)})\n\n" + md)
    print(md, end="")
    print(f"figure: {out}\ntable: {md_path}")


if __name__ == "__main__":
    main()
