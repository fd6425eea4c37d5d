#!/usr/bin/python3
"""Figures from a dpbo run file (HDF5, layout in include/dpbo/output.h).

    plot_run.py RUNFILE.h5 [-o OUT.png] [--release FILE] [--max-points M] [--dpi D]

Draws
  1. the convergence curve: v_t and the best value so far against t, with the
     GP's prediction at lambda_t before v_t was seen (mean +- 2 std);
  2. the hyper-parameters: for a 2-D space whose run file holds /posterior,
     the posterior mean after the last step over the hyper-parameter values
     (log axes for log-scale dimensions), the evaluated points lambda_t
     numbered in order and the best one starred; for a 1-D space, the
     posterior mean +- 2 std against lambda; without /posterior, the
     evaluated lambda_t coloured by v_t; for d >= 3, parallel coordinates
     of every lambda_t and one pairwise slice (a scatter of two dimensions)
     per pair of the first six dimensions.

The title names the run's method (its [privacy] algorithm: GP-UCB without
one, Algorithms 1-3, private random search, Liu-Talwar, Papernot-Steinke,
GP-UCB on privatized evaluations), its (epsilon, delta) and what of the
figure may be published; it is wrapped to the figure's width. No number is
ever printed as nan: an absent one says so.

When a private release exists (RUNFILE's <name>.release.json next to it, or
the file given with --release: the JSON summary or the release HDF5 file),
its lambda~ is marked on every hyper-parameter panel and its released value
(v~, or f~ for Algorithms 2 and 3) is drawn as a horizontal line on the
convergence panel, both labelled "private release" with their epsilon; the
release's warnings (a lambda~ close to a uniform draw, a clamped value) are
named in the title.

For every method but private_evaluations the trace and the posterior depend
on the validation data and are NOT differentially private: the title says
so, and only the release file (dpbo's DP outputs) is safe to publish. With
private_evaluations every evaluation was privatized, so the whole figure is
post-processing of DP outputs (unless the run's noise was seeded).

Needs Debian's python3-h5py and python3-matplotlib (use /usr/bin/python3 when
another python3 comes first on PATH). No network access.
Exit status: 0 on success, 2 when the file is missing or not a dpbo run file,
or when a release given with --release cannot be read or does not match the
run's space (a release found next to the run file is skipped with a warning).
"""
import argparse
import json
import math
import os
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import h5py  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.gridspec import GridSpec  # noqa: E402
import matplotlib.tri as mtri  # noqa: E402
import numpy as np  # noqa: E402

# Pairwise slices are drawn for the first PAIR_DIMS dimensions (15 panels).
PAIR_DIMS = 6


def num(x, spec=".3g"):
    """A number as text, or "not stated" when it is absent or not finite:
    the figure never prints nan."""
    try:
        x = float(x)
    except (TypeError, ValueError):
        return "not stated"
    return format(x, spec) if math.isfinite(x) else "not stated"


def text(value):
    """An HDF5 string attribute as str (h5py gives bytes or str by type)."""
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, np.ndarray) and value.shape == ():
        return text(value[()])
    return str(value)


def split_list(value):
    return [s.strip() for s in text(value).split(",")] if text(value) else []


class RunFile:
    """What the figure needs from a run file, read once."""

    def __init__(self, path):
        with h5py.File(path, "r") as f:
            if "trace" not in f or "space" not in f:
                raise ValueError("%s is not a dpbo run file (no /trace or /space)" % path)
            self.attrs = {k: f.attrs[k] for k in f.attrs}
            sp = f["space"].attrs
            self.kind = text(sp.get("kind", "?"))
            self.size = int(np.asarray(sp.get("size", 0)))
            self.names = split_list(sp.get("names", ""))
            self.scale = split_list(sp.get("scale", ""))
            self.lower = np.atleast_1d(np.asarray(sp.get("lower", []), dtype=float))
            self.upper = np.atleast_1d(np.asarray(sp.get("upper", []), dtype=float))
            self.d = len(self.lower)
            if len(self.names) != self.d:
                self.names = ["x%d" % (i + 1) for i in range(self.d)]
            if len(self.scale) != self.d:
                self.scale = ["linear"] * self.d
            # Integer and categorical dimensions (older run files: all real);
            # a categorical value in /trace/lambda is an index into its names.
            self.dim_kind = split_list(sp.get("dim_kind", ""))
            if len(self.dim_kind) != self.d:
                self.dim_kind = list(self.scale)
            cats = text(sp.get("categories", "")).split("\n")
            self.categories = [split_list(cats[i]) if i < len(cats) else [] for i in range(self.d)]
            tr = f["trace"]
            self.gain = np.asarray(tr["gain"][:], dtype=float)
            self.steps = len(self.gain)
            self.lam = np.asarray(tr["lambda"][:], dtype=float).reshape(self.steps, -1)
            self.pred_mean = self._optional(tr, "mean")
            self.pred_std = self._optional(tr, "std")
            # Methods without a GP (the selection methods) store NaN here.
            if self.pred_mean is not None and not np.isfinite(self.pred_mean).any():
                self.pred_mean = self.pred_std = None
            self.unit = self._optional(tr, "unit")
            if self.unit is not None:
                self.unit = self.unit.reshape(self.steps, -1)
            self.posterior = None
            if "posterior" in f and all(k in f["posterior"] for k in ("unit", "mean", "std")):
                po = f["posterior"]
                self.posterior = {
                    "unit": np.asarray(po["unit"][:], dtype=float).reshape(-1, self.d),
                    "mean": np.asarray(po["mean"][:], dtype=float),
                    "std": np.asarray(po["std"][:], dtype=float),
                }
            self.best_step = None
            self.best_gain = None
            if "summary" in f:
                sm = f["summary"].attrs
                if "best_step" in sm and int(np.asarray(sm["best_step"])) >= 1:
                    self.best_step = int(np.asarray(sm["best_step"]))
                if "best_gain" in sm:
                    self.best_gain = float(np.asarray(sm["best_gain"]))
            if self.best_step is None and self.steps:
                self.best_step = int(np.argmax(self.gain)) + 1
                self.best_gain = float(self.gain[self.best_step - 1])

    @staticmethod
    def _optional(group, name):
        return np.asarray(group[name][:], dtype=float) if name in group else None

    def attr(self, key, default=""):
        return text(self.attrs[key]) if key in self.attrs else default

    def setting(self, key, default=""):
        """A run setting ("section.key") as written, or its stored default."""
        for prefix in ("config.", "default."):
            if prefix + key in self.attrs:
                return text(self.attrs[prefix + key])
        return default

    @property
    def algorithm(self):
        return algorithm_key(self.setting("privacy.algorithm", "none") or "none")

    def to_unit(self, values):
        """Hyper-parameter values to unit coordinates, as dpbo_space_unit."""
        values = np.atleast_2d(np.asarray(values, dtype=float))
        out = np.empty_like(values)
        for i in range(self.d):
            lo, hi = self.lower[i], self.upper[i]
            if self.scale[i] == "log":
                out[:, i] = (np.log(values[:, i]) - np.log(lo)) / (np.log(hi) - np.log(lo))
            else:
                out[:, i] = (values[:, i] - lo) / (hi - lo)
        return out

    def trace_unit(self):
        return self.unit if self.unit is not None else self.to_unit(self.lam)

    def to_values(self, unit):
        """Unit coordinates to hyper-parameter values, as dpbo_space_to_values."""
        unit = np.asarray(unit, dtype=float)
        out = np.empty_like(unit)
        for i in range(self.d):
            lo, hi = self.lower[i], self.upper[i]
            if self.scale[i] == "log":
                out[:, i] = np.exp(np.log(lo) + unit[:, i] * (np.log(hi) - np.log(lo)))
            else:
                out[:, i] = lo + unit[:, i] * (hi - lo)
            if self.dim_kind[i] != self.scale[i]:  # integer or categorical: snapped
                out[:, i] = np.round(out[:, i])
        return out

    def format_axis(self, ax, i, which):
        """Axis `which` ("x" or "y") for dimension i: log scale, or the
        category names at their indices."""
        if self.scale[i] == "log":
            (ax.set_xscale if which == "x" else ax.set_yscale)("log")
        if self.categories[i]:
            ticks = range(len(self.categories[i]))
            if which == "x":
                ax.set_xticks(ticks, self.categories[i])
            else:
                ax.set_yticks(ticks, self.categories[i])

    def label(self, i):
        return "%s (log scale)" % self.names[i] if self.scale[i] == "log" else self.names[i]


def algorithm_key(name):
    """A run's or release's algorithm as one key: "1" for "1" or "algorithm1"."""
    name = text(name).strip().lower()
    return name[len("algorithm"):] if name.startswith("algorithm") and name[9:].isdigit() else name


# What each method is, as the title names it.
METHODS = {
    "none": "GP-UCB, no privacy algorithm",
    "1": "GP-UCB with Algorithm 1 of Kusner et al. (2015): $\\tilde{\\lambda}$ by the "
         "exponential mechanism on $\\mu_T$, $\\tilde{v}$ by the Laplace mechanism",
    "2": "GP-UCB (de Freitas et al. 2012) with Algorithm 2 of Kusner et al. (2015): "
         "$\\tilde{\\lambda}$ by the exponential mechanism, $\\tilde{f}$ by the Laplace mechanism",
    "3": "GP-UCB with Algorithm 3 of Kusner et al. (2015): $\\tilde{f}_L$ by the Laplace "
         "mechanism (no $\\tilde{\\lambda}$)",
    "random_search": "private random search: T candidates drawn uniformly, $\\tilde{\\lambda}$ "
                     "by the exponential mechanism on their gains, the value by Laplace",
    "liu_talwar": "private selection, Liu-Talwar random stopping: the best noisy score of K "
                  "secret runs",
    "papernot_steinke": "private selection, Papernot-Steinke repeated search: the best noisy "
                        "score of K secret runs",
    "private_evaluations": "GP-UCB on privatized evaluations: every $v_t$ released through "
                           "the discrete Gaussian mechanism",
}


class Release:
    """The DP outputs of a release file (JSON summary or HDF5), as plotted."""

    # The released value's symbol per algorithm (paper: v~ in Algorithm 1,
    # f~ in Algorithm 2, f~_L in Algorithm 3).
    SYMBOL = {"1": "$\\tilde{v}$", "2": "$\\tilde{f}$", "3": "$\\tilde{f}_L$",
              "private_evaluations": "$\\tilde{v}$"}

    def __init__(self, path, names, categories=None):
        if path.endswith(".json"):
            with open(path, "r", encoding="utf-8") as f:
                data = json.load(f)
            if not isinstance(data, dict):
                raise ValueError("not a release summary (no JSON object)")
            lam = data.get("lambda")
            lam_names = list(lam.keys()) if isinstance(lam, dict) else []
            lam_values = [lam[k] for k in lam_names] if lam_names else []
            get = data.get
            reproducible = bool(data.get("reproducible_not_for_publication", False))
            warnings = data.get("warnings") or []
        else:
            with h5py.File(path, "r") as f:
                data = {k: f.attrs[k] for k in f.attrs}
            lam_names = split_list(data.get("lambda_names", "")) if "lambda" in data else []
            lam_values = list(np.atleast_1d(np.asarray(data["lambda"], dtype=float))) if lam_names else []

            def get(key, default=None):
                if key not in data:
                    return default
                value = data[key]
                return text(value) if isinstance(value, (bytes, str)) else float(np.asarray(value))
            reproducible = text(data.get("publication", "")).startswith("reproducible")
            warnings = [w for w in text(data.get("warnings", "")).split("\n") if w]
        if get("value") is None or get("algorithm") is None:
            raise ValueError("not a dpbo release file (no value or algorithm)")
        self.algorithm = algorithm_key(get("algorithm"))
        self.value = float(get("value"))

        def number(key):  # absent, null or NaN: None (never printed as nan)
            value = get(key)
            try:
                value = float(value)
            except (TypeError, ValueError):
                return None
            return value if math.isfinite(value) else None
        self.eps_value = number("epsilon_value")
        self.eps_lambda = number("epsilon_lambda")
        self.eps_total = number("epsilon_total")
        self.delta_total = number("delta_total")
        self.reproducible = reproducible
        self.warnings = [text(w) for w in warnings]
        self.lam = None
        if lam_names:
            if sorted(lam_names) != sorted(names):
                raise ValueError("its lambda names (%s) are not the run's dimensions (%s)"
                                 % (", ".join(lam_names), ", ".join(names)))
            by_name = dict(zip(lam_names, lam_values))
            # A category is released by name: plot it at its index.
            cats = dict(zip(names, categories or [[]] * len(names)))
            self.lam = np.array([float(cats[n].index(by_name[n])) if isinstance(by_name[n], str)
                                 and by_name[n] in cats[n] else float(by_name[n]) for n in names])
            if not np.all(np.isfinite(self.lam)):
                raise ValueError("its lambda is not finite")
        if not math.isfinite(self.value):
            raise ValueError("its value is not finite")

    def _epsilon(self, own, other):
        """How the part's epsilon is stated: its own share, or what it is part of."""
        if own is not None:
            return "$\\varepsilon$=%s" % num(own)
        if self.algorithm == "private_evaluations":
            return "post-processing of the (%s, %s)-DP trace" % (num(self.eps_total),
                                                                num(self.delta_total))
        if self.eps_total is not None:  # one mechanism over the pair (stopping methods)
            return "one mechanism with %s: $\\varepsilon$=%s" % (other, num(self.eps_total))
        return "$\\varepsilon$ not stated"

    def lambda_label(self):
        return "$\\tilde{\\lambda}$ (private release, %s%s)" % (self._epsilon(self.eps_lambda, "the value"),
                                                                self._seeded())

    def value_label(self):
        return "%s = %s (private release, %s%s)" % (
            self.SYMBOL.get(self.algorithm, "released value"), num(self.value, ".4g"),
            self._epsilon(self.eps_value, "$\\tilde{\\lambda}$"), self._seeded())

    def _seeded(self):
        return "; seeded" if self.reproducible else ""

    def warning_tags(self):
        """The release's warnings, in a few words each."""
        tags = []
        for w in self.warnings:
            if "uniform draw" in w:
                tags.append("$\\tilde{\\lambda}$ close to a uniform draw")
            elif "clamped" in w:
                tags.append("released value clamped to the value range")
            else:
                tags.append(w.split(":")[0])
        return tags


def release_path(runfile, given):
    """The release to mark: the one given, else <run>.release.json beside the run."""
    if given:
        return given, True
    path = os.path.splitext(runfile)[0] + ".release.json"
    return (path, False) if os.path.exists(path) else (None, False)


def plot_convergence(ax, run, release=None):
    t = np.arange(1, run.steps + 1)
    if run.steps == 0:
        ax.text(0.5, 0.5, "no completed step", ha="center", va="center", transform=ax.transAxes)
        return
    if run.pred_mean is not None and run.pred_std is not None:
        ok = np.isfinite(run.pred_mean) & np.isfinite(run.pred_std)
        ax.errorbar(t[ok], run.pred_mean[ok], yerr=2 * run.pred_std[ok], fmt="none", ecolor="0.7",
                    elinewidth=1, capsize=2, label="GP at $\\lambda_t$ before $v_t$ (mean $\\pm$ 2 sd)",
                    zorder=1)
    ax.plot(t, run.gain, "o", color="tab:blue", ms=4, label="$v_t$", zorder=3)
    ax.step(t, np.maximum.accumulate(run.gain), where="post", color="tab:orange", lw=2,
            label="best so far", zorder=2)
    if run.best_step is not None:
        ax.plot([run.best_step], [run.gain[run.best_step - 1]], "*", color="tab:red", ms=14,
                mec="k", label="best: t = %d, v = %.4g" % (run.best_step, run.gain[run.best_step - 1]),
                zorder=4)
    if release is not None:
        mark_value(ax, run, release)
    ax.set_xlabel("iteration t")
    ax.set_ylabel("validation gain $v_t$")
    ax.set_title("Convergence")
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8, framealpha=0.85)
    if run.steps <= 30:
        ax.set_xticks(t if run.steps <= 15 else t[::2])


def mark_value(ax, run, release):
    """The released value as a horizontal line. Laplace noise can put it far
    from the trace: then the axis is not stretched to reach it; a dotted line
    at the edge stands in, and the legend gives the value."""
    lo, hi = float(np.nanmin(run.gain)), float(np.nanmax(run.gain))
    if run.pred_mean is not None and run.pred_std is not None:
        lo = min(lo, float(np.nanmin(run.pred_mean - 2 * run.pred_std)))
        hi = max(hi, float(np.nanmax(run.pred_mean + 2 * run.pred_std)))
    span = max(hi - lo, 1e-12 * max(abs(lo), abs(hi), 1.0))
    style = dict(color="tab:purple", lw=1.8, ls="--", zorder=2.5)
    if lo - span <= release.value <= hi + span:
        ax.axhline(release.value, label=release.value_label(), **style)
        return
    # Off scale: a dotted line at the edge stands in for it; the legend says so.
    above = release.value > hi
    edge = hi + 0.08 * span if above else lo - 0.08 * span
    ax.axhline(edge, label="%s,\noff scale (%s the axis)" % (release.value_label(),
                                                          "above" if above else "below"),
               **dict(style, ls=":"))


def mark_lambda_2d(ax, release):
    ax.plot([release.lam[0]], [release.lam[1]], "D", color="tab:pink", mec="k", mew=1.5, ms=11,
            zorder=6, clip_on=False, label=release.lambda_label())


def subsample(run, count, limit):
    """Indices of at most `limit` posterior points: the first ones for a Sobol
    space (a prefix of a Sobol sequence is itself well spread), an even random
    choice otherwise."""
    if count <= limit:
        return np.arange(count)
    if run.kind == "sobol":
        return np.arange(limit)
    rng = np.random.default_rng(0)
    return np.sort(rng.choice(count, size=limit, replace=False))


def mark_trace(ax, run, values_lam):
    # Points on the boundary of the space stay whole (clip_on=False).
    ax.plot(values_lam[:, 0], values_lam[:, 1], "o", mfc="white", mec="k", ms=6, zorder=3,
            clip_on=False, label="evaluated $\\lambda_t$")
    if run.steps <= 40:
        for k, (x, y) in enumerate(values_lam[:, :2], start=1):
            ax.annotate(str(k), (x, y), textcoords="offset points", xytext=(4, 4), fontsize=7,
                        zorder=4, annotation_clip=False)
    if run.best_step is not None:
        b = values_lam[run.best_step - 1]
        ax.plot([b[0]], [b[1]], "*", color="tab:red", mec="k", ms=16, zorder=5, clip_on=False,
                label="best $\\lambda$ (t = %d)" % run.best_step)


def plot_posterior_2d(fig, ax, run, limit, release=None):
    post = run.posterior
    keep = subsample(run, len(post["mean"]), limit)
    unit = post["unit"][keep]
    mean = post["mean"][keep]
    vals = run.to_values(unit)
    run.format_axis(ax, 0, "x")
    run.format_axis(ax, 1, "y")
    artist = None
    try:
        # Triangulate in unit coordinates, where the points are evenly spread;
        # on log axes those triangles are the ones drawn.
        tri = mtri.Triangulation(unit[:, 0], unit[:, 1])
        tri = mtri.Triangulation(vals[:, 0], vals[:, 1], triangles=tri.triangles)
        artist = ax.tricontourf(tri, mean, levels=20, cmap="viridis", zorder=1)
    except (ValueError, RuntimeError):  # too few or collinear points
        artist = ax.scatter(vals[:, 0], vals[:, 1], c=mean, s=8, cmap="viridis", zorder=1)
    fig.colorbar(artist, ax=ax, label="posterior mean of the gain")
    mark_trace(ax, run, run.lam)
    if release is not None and release.lam is not None:
        mark_lambda_2d(ax, release)
    ax.set_xlim(run.lower[0], run.upper[0])
    ax.set_ylim(run.lower[1], run.upper[1])
    ax.set_xlabel(run.label(0))
    ax.set_ylabel(run.label(1))
    shown = "" if len(keep) == len(post["mean"]) else " (%d of %d points)" % (len(keep), len(post["mean"]))
    ax.set_title("Posterior mean after %d observations%s" % (run.steps, shown))
    ax.legend(loc="best", fontsize=8, framealpha=0.85)


def plot_posterior_1d(ax, run, release=None):
    post = run.posterior
    order = np.argsort(post["unit"][:, 0])
    x = run.to_values(post["unit"][order])[:, 0]
    m, s = post["mean"][order], post["std"][order]
    run.format_axis(ax, 0, "x")
    ax.fill_between(x, m - 2 * s, m + 2 * s, color="tab:blue", alpha=0.2, label="mean $\\pm$ 2 sd")
    ax.plot(x, m, color="tab:blue", label="posterior mean")
    ax.plot(run.lam[:, 0], run.gain, "o", mfc="white", mec="k", label="$(\\lambda_t, v_t)$")
    if run.best_step is not None:
        ax.plot([run.lam[run.best_step - 1, 0]], [run.gain[run.best_step - 1]], "*",
                color="tab:red", mec="k", ms=14, label="best")
    if release is not None and release.lam is not None:
        # On the posterior mean curve: lambda~ is a candidate, so it is one of x.
        xs = np.log(x) if run.scale[0] == "log" else x
        at = np.log(release.lam[0]) if run.scale[0] == "log" else release.lam[0]
        y = float(np.interp(at, xs, m))
        ax.axvline(release.lam[0], color="tab:pink", lw=1, ls=":", zorder=1)
        ax.plot([release.lam[0]], [y], "D", color="tab:pink", mec="k", mew=1.5, ms=10, zorder=6,
                label=release.lambda_label())
    ax.set_xlabel(run.label(0))
    ax.set_ylabel("gain")
    ax.set_title("Posterior after %d observations" % run.steps)
    ax.legend(fontsize=8)


def scatter_trace(ax, run, i, j, release=None, colorbar=None):
    """The evaluated lambda_t in dimensions i and j, coloured by v_t, the best
    starred and lambda~ marked (a pairwise slice; without /posterior, the
    2-D space itself)."""
    run.format_axis(ax, i, "x")
    run.format_axis(ax, j, "y")
    ok = np.isfinite(run.gain)
    art = ax.scatter(run.lam[ok, i], run.lam[ok, j], c=run.gain[ok], cmap="viridis", s=28,
                     edgecolors="k", linewidths=0.5, zorder=3, clip_on=False,
                     label="evaluated $\\lambda_t$ (colour: $v_t$)")
    if run.best_step is not None:
        b = run.lam[run.best_step - 1]
        ax.plot([b[i]], [b[j]], "*", color="tab:red", mec="k", ms=14, zorder=5, clip_on=False,
                label="best $\\lambda$ (t = %d)" % run.best_step)
    if release is not None and release.lam is not None:
        ax.plot([release.lam[i]], [release.lam[j]], "D", color="tab:pink", mec="k", mew=1.5,
                ms=10, zorder=6, clip_on=False, label=release.lambda_label())
    ax.set_xlim(run.lower[i], run.upper[i])
    ax.set_ylim(run.lower[j], run.upper[j])
    ax.set_xlabel(run.label(i))
    ax.set_ylabel(run.label(j))
    if colorbar is not None and ok.any():
        colorbar.colorbar(art, ax=ax, label="$v_t$")
    return art


def plot_trace_2d(fig, ax, run, release=None):
    scatter_trace(ax, run, 0, 1, release, colorbar=fig)
    ax.set_title("Evaluated hyper-parameters (no /posterior in the run file)")
    ax.legend(loc="best", fontsize=8, framealpha=0.85)


def plot_trace_1d(ax, run, release=None):
    if run.scale[0] == "log":
        ax.set_xscale("log")
    ax.plot(run.lam[:, 0], run.gain, "o", mfc="white", mec="k", label="$(\\lambda_t, v_t)$")
    if run.best_step is not None:
        ax.plot([run.lam[run.best_step - 1, 0]], [run.gain[run.best_step - 1]], "*",
                color="tab:red", mec="k", ms=14, label="best")
    if release is not None and release.lam is not None:
        ax.axvline(release.lam[0], color="tab:pink", lw=2, ls="--", zorder=6,
                   label=release.lambda_label())
    ax.set_xlim(run.lower[0], run.upper[0])
    ax.set_xlabel(run.label(0))
    ax.set_ylabel("gain")
    ax.set_title("Evaluated hyper-parameters (no /posterior in the run file)")
    ax.legend(fontsize=8)


def parallel_label(run, i):
    """Dimension i under its parallel axis: its name and range, or its
    categories from the lower end (0) up, one per line."""
    if run.categories[i]:
        return "%s\n%s" % (run.names[i], "\n".join(run.categories[i]))
    return "%s\n[%s, %s]%s" % (run.names[i], num(run.lower[i], ".3g"), num(run.upper[i], ".3g"),
                               "\nlog" if run.scale[i] == "log" else "")


def plot_parallel(fig, ax, run, release=None):
    """Parallel coordinates: each lambda_t a line through its position in each
    dimension's range (0 = lower end, 1 = upper; log dimensions in log
    position), coloured by v_t; the best in red, lambda~ dashed."""
    unit = run.trace_unit()
    x = np.arange(run.d)
    ok = np.isfinite(run.gain)
    cmap = plt.get_cmap("viridis")
    lo, hi = (float(np.min(run.gain[ok])), float(np.max(run.gain[ok]))) if ok.any() else (0, 1)
    norm = matplotlib.colors.Normalize(vmin=lo, vmax=hi if hi > lo else lo + 1)
    for t in range(run.steps):
        color = cmap(norm(run.gain[t])) if ok[t] else "0.7"
        ax.plot(x, unit[t], "-o", color=color, lw=1, ms=3, alpha=0.8, zorder=2)
    if run.best_step is not None:
        ax.plot(x, unit[run.best_step - 1], "-*", color="tab:red", lw=2.5, ms=12, mec="k",
                zorder=4, label="best $\\lambda$ (t = %d)" % run.best_step)
    if release is not None and release.lam is not None:
        ax.plot(x, run.to_unit(release.lam)[0], "--D", color="tab:pink", lw=2.5, ms=9, mec="k",
                zorder=5, label=release.lambda_label())
    fig.colorbar(matplotlib.cm.ScalarMappable(norm=norm, cmap=cmap), ax=ax, label="$v_t$")
    ax.set_xticks(x)
    ax.set_xticklabels([parallel_label(run, i) for i in range(run.d)], fontsize=8)
    ax.set_ylim(-0.03, 1.03)
    ax.set_ylabel("position in the range (0 = lower end)")
    ax.set_title("Parallel coordinates of the %d evaluated $\\lambda_t$" % run.steps)
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize=8, framealpha=0.85)


def title_lines(run, source, shown, release):
    """The title: what the run is, its method and guarantee, what may be
    published, and the release's warnings."""
    alg = run.algorithm
    objective = run.attr("config.objective.kind", "") or run.setting("objective.kind", "?")
    function = run.attr("config.objective.function", "")
    if function:
        objective += " " + function
    complete = run.attrs.get("complete", 1)
    status = "" if int(np.asarray(complete)) else " [incomplete: %s]" % run.attr("outcome")
    method = METHODS.get(alg, "privacy.algorithm = %s" % alg)
    # The stopping methods' steps are their K runs (secret: never released).
    steps = ("K = %d runs made (secret)" % run.steps
             if alg in ("liu_talwar", "papernot_steinke") else "T = %d" % run.steps)
    head = "%s: %s; %s, |$\\Lambda$| = %d (%s), %s%s." % (
        os.path.basename(source), method, objective, run.size, run.kind, steps, status)
    seeded = run.setting("privacy.noise", "os") == "seeded"
    depends = "they depend" if shown.endswith("are") else "it depends"
    if alg == "none":
        guarantee = ("No private release: the %s NOT differentially private (%s on the "
                     "validation data): do not publish." % (shown, depends))
    else:
        if release is not None:
            eps, delta = num(release.eps_total), num(release.delta_total)
            budget = "the release is ($\\varepsilon$ = %s, $\\delta$ = %s)-DP" % (eps, delta)
        else:
            eps = num(run.setting("privacy.epsilon", ""))
            delta = num(run.setting("privacy.delta", ""))
            budget = ("configured ($\\varepsilon$ = %s, $\\delta$ = %s); no release file found"
                      % (eps, delta))
        if alg == "private_evaluations":
            guarantee = ("%s: every evaluation was privatized, so this whole figure (trace, "
                         "posterior, $\\tilde{\\lambda}$, $\\tilde{v}$) is post-processing "
                         "and may be published%s." % (
                             budget[0].upper() + budget[1:],
                             " - but this run's noise is seeded: NOT for publication"
                             if seeded else ""))
        else:
            guarantee = ("%s: only the release (marked, labelled private) may be published%s; "
                         "the %s NOT differentially private (%s on the validation data): do "
                         "not publish this figure." % (
                             budget[0].upper() + budget[1:],
                             " (seeded noise: not even the release)" if seeded else "", shown,
                             depends))
    lines = [head, guarantee]
    if release is not None and release.warnings:
        lines.append("Release warnings: %s." % "; ".join(release.warning_tags()))
    return lines


def wrap_title(lines, width_inches, fontsize):
    """The title's lines wrapped to the figure's width (about 0.55 fontsize
    per character; mathematics counted at its source length, which is longer
    than drawn)."""
    chars = max(40, int(width_inches * 72.0 / (0.55 * fontsize)))
    out = []
    for line in lines:
        out.extend(textwrap.wrap(line, chars, break_long_words=False, break_on_hyphens=False))
    return "\n".join(out)


def make_figure(run, source, limit, release=None):
    has_post = run.posterior is not None and run.d in (1, 2) and len(run.posterior["mean"]) > 0
    shown_dims = min(run.d, PAIR_DIMS)
    pairs = [(i, j) for i in range(shown_dims) for j in range(i + 1, shown_dims)]
    if run.d >= 3:
        rows = 1 + (len(pairs) + 2) // 3
        fig = plt.figure(figsize=(15.0, 5.0 * rows))
        grid = GridSpec(rows, 6, figure=fig)
        conv = fig.add_subplot(grid[0, 0:3])
        plot_parallel(fig, fig.add_subplot(grid[0, 3:6]), run, release)
        for k, (i, j) in enumerate(pairs):
            ax = fig.add_subplot(grid[1 + k // 3, (k % 3) * 2:(k % 3) * 2 + 2])
            scatter_trace(ax, run, i, j, release)
            ax.set_title("Slice: %s against %s" % (run.names[j], run.names[i]), fontsize=10)
            if k == 0:
                ax.legend(loc="best", fontsize=7, framealpha=0.85)
        shown = "trace is"
    else:
        fig, axes = plt.subplots(1, 2, figsize=(12.8, 5.2), squeeze=False)
        conv = axes[0, 0]
        if has_post and run.d == 2:
            plot_posterior_2d(fig, axes[0, 1], run, limit, release)
        elif has_post:
            plot_posterior_1d(axes[0, 1], run, release)
        elif run.d == 2:
            plot_trace_2d(fig, axes[0, 1], run, release)
        else:
            plot_trace_1d(axes[0, 1], run, release)
        shown = "trace and posterior are" if has_post else "trace is"
    plot_convergence(conv, run, release)
    if run.algorithm == "private_evaluations":
        conv.set_ylabel("noisy validation gain $v_t$ (privatized)")
    fontsize = 11
    title = wrap_title(title_lines(run, source, shown, release), fig.get_figwidth(), fontsize)
    fig.suptitle(title, fontsize=fontsize)
    fig.tight_layout()
    return fig


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0],
                                epilog="The trace is not private; never publish the figure.")
    p.add_argument("runfile", help="a dpbo run file (HDF5)")
    p.add_argument("-o", "--output", help="PNG to write (default: RUNFILE with .png)")
    p.add_argument("--release", metavar="FILE",
                   help="release file (.release.json or .release.h5) whose lambda~ and value to "
                        "mark (default: RUNFILE's <name>.release.json when it exists)")
    p.add_argument("--max-points", type=int, default=20000,
                   help="posterior points used for the contour plot (default 20000)")
    p.add_argument("--dpi", type=int, default=110)
    args = p.parse_args(argv)
    out = args.output or os.path.splitext(args.runfile)[0] + ".png"
    try:
        run = RunFile(args.runfile)
    except (OSError, ValueError, KeyError) as e:
        print("plot_run.py: error: %s: %s" % (args.runfile, e), file=sys.stderr)
        return 2
    release = None
    path, given = release_path(args.runfile, args.release)
    if path:
        try:
            release = Release(path, run.names, run.categories)
        except (OSError, ValueError, KeyError, TypeError) as e:
            if given:
                print("plot_run.py: error: release %s: %s" % (path, e), file=sys.stderr)
                return 2
            print("plot_run.py: warning: release %s not marked: %s" % (path, e), file=sys.stderr)
    fig = make_figure(run, args.runfile, max(args.max_points, 3), release)
    tmp = out + ".tmp.png"
    fig.savefig(tmp, dpi=args.dpi)
    plt.close(fig)
    os.replace(tmp, out)  # never a half-written figure under the final name
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
