#!/usr/bin/python3
"""Figure 1 of the paper from a `dpbo k1sweep` file or its committed data file.

    analysis/plot_k1_sweep.py analysis/data/k1sweep-covtype.json -o analysis/figures/k1sweep-covtype.png
    analysis/plot_k1_sweep.py results/k1sweep-covtype.h5 [-o FIG.png] [--relative]

The data file (.json, written from the HDF5 by analysis/export_k1_sweep.py)
holds everything the figure and its tables need; it is what the repository
keeps (analysis/figures/MANIFEST). From it the QQ plot of the second figure
draws 400 quantiles of the residuals instead of all of them.

Left panel: the profile log-likelihood of the multi-task GP against
k1 = k1(V, V') on the paper's grid 0.05 ... 0.95, one curve per validation-set
size m. Right panel: the same curves continued towards k1 = 1 on a log scale of
1 - k1 (the sweep's extension), where the maximum usually lies. The MLE of
each curve is marked, with its 95% likelihood-ratio interval as a bar.

Also prints a table of the MLE of k1 per m (interval, boundary flag,
Algorithm 1's c, profiled hyper-parameters) and writes it as Markdown next to
the figure (FIG.md).

When the file holds the statistics that test the assumption (src/experiments/
k1gof.h: /m<m>/residuals, exceedance, pipeline, bootstrap), a second figure
FIG.gof.png shows, per m: the QQ plot of the standardised residuals of F_V'
given F_V against N(0, 1); the empirical distribution of max |F_V - F_V'|
over the pairs with s c at the run's delta; the exceedance rate against delta
(with the line rate = delta); and the pipeline's max |mu_T - mu'_T| per pair
against Delta_lambda. FIG.md gets a second table with them, whose k1
interval is the BOOTSTRAP percentile interval over the pairs (the
likelihood-ratio one above treats the pairs as independent).
"""

import argparse
import json
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def read_json(path):
    """The committed data file (analysis/export_k1_sweep.py) instead of the run's HDF5."""
    with open(path) as f:
        doc = json.load(f)
    if not str(doc.get("format", "")).startswith("dpbo k1sweep figure data"):
        sys.exit(f"{path}: not a k1sweep figure data file (written by analysis/export_k1_sweep.py)")
    return from_doc(doc)


def from_doc(doc):
    """meta and sizes, as read() gives them, from an exported document (or one task of the
    atlas's, analysis/atlas.py): its curve as rows of a dict each, or as one list per column."""
    sizes = []
    for rec in doc["sizes"]:
        s = {k: v for k, v in rec.items() if k not in ("curve", "gof")}
        curve = rec["curve"]
        for key, name in (("k1", "k1"), ("t", "one_minus_k1"), ("loglik", "loglik"),
                          ("m0_grid", "m0"), ("s_grid", "s"), ("sigma_n_grid", "sigma_n"),
                          ("ell_grid", "lengthscale")):
            if isinstance(curve, dict):
                if name in curve:
                    s[key] = np.array(curve[name], dtype=float)
            else:
                s[key] = np.array([row[name] for row in curve], dtype=float)
        if "k1" not in s:  # columns without k1 (the atlas's): 1 - (1 - k1), enough to draw
            s["k1"] = 1.0 - s["t"]
        gof = rec.get("gof")
        s["gof"] = gof is not None
        if gof:
            s.update({k: v for k, v in gof.items() if k != "z_quantiles"})
            # Quantiles stand in for the residuals: the QQ plot draws them at
            # the same probabilities (i - 0.5) / count, and says so.
            s["z"] = np.array(gof["z_quantiles"], dtype=float)
            for k in ("max_diff", "exc_delta", "exc_rate", "pipe_diff"):
                if k in s:
                    s[k] = np.array(s[k], dtype=float)
        sizes.append(s)
    return doc["meta"], sizes


def read(path):
    if path.endswith(".json"):
        return read_json(path)
    with h5py.File(path, "r") as f:
        if text(f.attrs.get("command", "")) != "k1sweep":
            sys.exit(f"{path}: not a dpbo k1sweep file (attribute command != k1sweep)")
        return read_group(f)


def read_group(f):
    """meta and sizes of a k1sweep file's root, or of its copy (a group of the atlas's file)."""
    sizes = []
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
            "m0_grid": g["m0"][...],
            "s_grid": g["s"][...],
            "sigma_n_grid": g["sigma_n"][...],
            "ell_grid": g["lengthscale"][...],
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
        read_gof(f[f"m{int(m)}"], sizes[-1])
    return meta, sizes


def read_gof(g, s):
    """The statistics of k1gof.h, when the file has them (s["gof"] False otherwise)."""
    s["gof"] = "residuals" in g
    if not s["gof"]:
        return
    r, e, b = g["residuals"], g["exceedance"], g["bootstrap"]
    s.update({
        "z": r["z"][...].ravel(),
        "ks": float(r.attrs["ks_statistic"]),
        "ks_p": float(r.attrs["ks_pvalue"]),
        "max_z": float(r.attrs["max_abs_z"]),
        "max_diff": e["max_diff"][...],
        "exc_delta": e["delta"][...],
        "exc_rate": e["rate"][...],
        "bound": float(e.attrs["bound_at_delta"]),
        "rate": float(e.attrs["rate_at_delta"]),
        "s2t": float(b.attrs["s2_one_minus_k1_mle"]),
        "B": int(b.attrs["B"]),
    })
    if s["B"] > 0:
        s.update({
            "boot_k1_lo": float(b.attrs["k1_lo"]),
            "boot_k1_hi": float(b.attrs["k1_hi"]),
            "s2_one_minus_k1_lo": float(b.attrs["s2_one_minus_k1_lo"]),
            "s2_one_minus_k1_hi": float(b.attrs["s2_one_minus_k1_hi"]),
        })
    s["pipeline"] = "pipeline" in g
    if s["pipeline"]:
        p = g["pipeline"]
        s.update({
            "pipe_diff": p["max_mean_diff"][...],
            "pipe_T": int(p.attrs["iterations"]),
            "pipe_delta": float(p.attrs["lambda_sensitivity"]),
            "pipe_max": float(p.attrs["max"]),
            "pipe_slack": float(p.attrs["slack"]),
            "pipe_viol": int(p.attrs["violations"]),
        })


def gof_table(meta, sizes):
    rows = [
        "| m | MLE k1 | bootstrap 95% interval of k1 | s^2 (1 - k1) | bootstrap 95% interval"
        " | KS D | KS p | max abs z | pairs with max abs(F_V - F_V') > s c | pipeline max abs(mu_T - mu'_T)"
        " | Delta_lambda | slack | violations |",
        "|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for s in sizes:
        if not s.get("gof"):
            continue
        if s["B"] > 0:
            k1_int = f"[{s['boot_k1_lo']:.6f}, {s['boot_k1_hi']:.6f}] (B = {s['B']})"
            s2t_int = f"[{s['s2_one_minus_k1_lo']:.3g}, {s['s2_one_minus_k1_hi']:.3g}]"
        else:
            k1_int = s2t_int = "(no bootstrap)"
        if s["pipeline"]:
            pipe = (f"{s['pipe_max']:.3g} | {s['pipe_delta']:.3g} | {s['pipe_slack']:.3g}"
                    f" | {s['pipe_viol']} of {len(s['pipe_diff'])}")
        else:
            pipe = "- | - | - | -"
        rows.append(
            f"| {s['m']} | {s['k1_mle']:.6f} | {k1_int} | {s['s2t']:.3g} | {s2t_int}"
            f" | {s['ks']:.4g} | {s['ks_p']:.3g} | {s['max_z']:.3g}"
            f" | {s['rate']:.3g} (s c = {s['bound']:.3g}) | {pipe} |")
    if len(rows) == 2:
        return ""
    first = sizes[0]
    notes = [
        "",
        "Intervals in this table are percentile BOOTSTRAP intervals over the validation-set pairs "
        "(the pairs share the models, so the likelihood-ratio interval of the first table is too "
        "narrow). KS: one-sample Kolmogorov-Smirnov of the standardised residuals of F_V' given "
        "F_V under the fitted multi-task GP against N(0, 1) (asymptotic p-value). s c: "
        f"the bound the proof needs, at delta = {first['delta']:g}. Pipeline: GP-UCB with the demo's "
        "prior on F_V and on F_V', slack = Delta_lambda / max.",
    ]
    return "\n".join(rows + notes) + "\n"


def plot_gof(meta, sizes, out):
    sizes = [s for s in sizes if s.get("gof")]
    if not sizes:
        return None
    from scipy import stats  # only for the normal quantiles of the QQ plot
    fig, axes = plt.subplots(1, 4, figsize=(18, 4.2))
    qq, ecdf, exc, pipe = axes
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for k, s in enumerate(sizes):
        c = colors[k % len(colors)]
        label = f"m = {s['m']}"
        z = np.sort(s["z"])
        q = stats.norm.ppf((np.arange(1, len(z) + 1) - 0.5) / len(z))
        # From a data file: quantiles stand in for the residuals; the legend says how many.
        count = int(s.get("z_count", len(z)))
        sample = f"; {len(z)} quantiles of {count} z, x: extremes" if count > len(z) else ""
        qq.plot(q, z, ".", ms=2, color=c, label=f"{label} (KS p = {s['ks_p']:.2g}{sample})")
        if count > len(z) and "z_min" in s:  # the exact extremes, at their own probabilities
            qq.plot(stats.norm.ppf([0.5 / count, 1.0 - 0.5 / count]), [s["z_min"], s["z_max"]], "x",
                    ms=5, color=c)
        d = np.sort(s["max_diff"])
        ecdf.step(d, np.arange(1, len(d) + 1) / len(d), where="post", color=c, label=label)
        ecdf.axvline(s["bound"], color=c, ls="--", lw=1)
        exc.plot(s["exc_delta"], s["exc_rate"], "o-", ms=3, color=c, label=label)
        if s["pipeline"]:
            pipe.plot(np.arange(len(s["pipe_diff"])), np.sort(s["pipe_diff"]), "o", ms=3, color=c,
                      label=f"{label} (slack {s['pipe_slack']:.3g})")
            pipe.axhline(s["pipe_delta"], color=c, ls="--", lw=1)
    lim = max(4.0, max(float(s["max_z"]) for s in sizes))
    qq.plot([-lim, lim], [-lim, lim], "k-", lw=0.8)
    qq.set_xlabel("N(0, 1) quantile")
    qq.set_ylabel("residual z of F_V' given F_V")
    qq.set_title("QQ plot: N(0, 1) if the model holds")
    ecdf.set_xscale("log")
    ecdf.set_xlabel("max over settings of |F_V - F_V'|")
    ecdf.set_ylabel("fraction of pairs")
    ecdf.set_title(f"dashed: s c at delta = {sizes[0]['delta']:g}")
    dgrid = sizes[0]["exc_delta"]
    exc.plot(dgrid, dgrid, "k:", lw=1, label="rate = delta")
    exc.set_xscale("log")
    exc.set_xlabel("delta")
    exc.set_ylabel("fraction of pairs above s c")
    exc.set_title("exceedance rate against delta")
    pipe.set_yscale("log")
    pipe.set_xlabel("pair (sorted)")
    pipe.set_ylabel("max |mu_T - mu'_T|")
    pipe.set_title("pipeline (GP-UCB, T = %d); dashed: Delta_lambda" % sizes[0].get("pipe_T", 0))
    for ax in axes:
        ax.grid(True, alpha=0.3)
        if ax.get_legend_handles_labels()[0]:
            ax.legend(loc="best", fontsize=7)
    fig.suptitle(f"Does the multi-task GP hold? {meta['models']} settings, {meta['sets']} pairs "
                 f"per size ({meta['mode']}, {meta['neighbour']} neighbours)", fontsize=10)
    fig.tight_layout()
    gof_out = os.path.splitext(out)[0] + ".gof.png"
    fig.savefig(gof_out, dpi=120)
    plt.close(fig)
    return gof_out


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
    kind = {"svm": "RBF-SVM", "logreg": "logistic-regression", "synthetic": "synthetic (GP-drawn)"}
    fig.suptitle(f"Multi-task GP likelihood of k1: {meta['models']} "
                 f"{kind.get(meta['mode'], meta['mode'])} settings, {meta['sets']} validation sets "
                 f"per size, {meta['neighbour']} neighbours", fontsize=10)
    fig.tight_layout()
    fig.savefig(out, dpi=150)
    plt.close(fig)


def draw(meta, sizes, out, relative=False, source=""):
    """The figure (out), the goodness-of-fit figure (.gof.png, when the sizes have the
    statistics) and the tables (.md next to out), from read()'s meta and sizes: what main
    draws, and analysis/atlas.py for each task. Returns (Markdown, its path, gof figure)."""
    plot(meta, sizes, out, relative)
    gof_out = plot_gof(meta, sizes, out)
    md = table(meta, sizes)
    gof_md = gof_table(meta, sizes)
    if gof_md:
        md += "\n## Does the assumption hold? (bootstrap intervals)\n\n" + gof_md
    md_path = os.path.splitext(out)[0] + ".md"
    with open(md_path, "w") as f:
        f.write(f"# MLE of k1 per validation-set size ({source})\n\n" + md)
    return md, md_path, gof_out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file", help="HDF5 file written by dpbo k1sweep, or its .json data file")
    parser.add_argument("-o", "--output", help="figure (PNG); default: next to FILE, .k1.png")
    parser.add_argument("--relative", action="store_true",
                        help="plot log-likelihood minus its maximum (curves of every m on one scale)")
    args = parser.parse_args()
    meta, sizes = read(args.file)
    out = args.output or os.path.splitext(args.file)[0] + ".k1.png"
    md, md_path, gof_out = draw(meta, sizes, out, args.relative, os.path.basename(args.file))
    print(md, end="")
    print(f"figure: {out}\ntable: {md_path}")
    if gof_out:
        print(f"goodness of fit: {gof_out}")


if __name__ == "__main__":
    main()
