#!/usr/bin/python3
"""Figures from a dpbo run file (HDF5, layout in include/dpbo/output.h).

    plot_run.py RUNFILE.h5 [-o OUT.png] [--release FILE] [--max-points M] [--dpi D]

Draws
  1. the convergence curve: v_t and the best value so far against t, with the
     GP's prediction at lambda_t before v_t was seen (mean +- 2 std);
  2. for a 2-D space whose run file holds /posterior, the posterior mean after
     the last step over the hyper-parameter values (log axes for log-scale
     dimensions), the evaluated points lambda_t numbered in order and the best
     one starred; for a 1-D space, the posterior mean +- 2 std against lambda.

When a private release exists (RUNFILE's <name>.release.json next to it, or
the file given with --release: the JSON summary or the release HDF5 file),
its lambda~ is marked on the posterior panel and its released value (v~, or
f~ for Algorithms 2 and 3) is drawn as a horizontal line on the convergence
panel, both labelled "private release" with their epsilon.

The trace and the posterior depend on the validation data and are NOT
differentially private: the figure says so in its title. Only the release file
(dpbo's DP outputs) is safe to publish.

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

import matplotlib

matplotlib.use("Agg")
import h5py  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.tri as mtri  # noqa: E402
import numpy as np  # noqa: E402



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


class Release:
    """The DP outputs of a release file (JSON summary or HDF5), as plotted."""

    # The released value's symbol per algorithm (paper: v~ in Algorithm 1,
    # f~ in Algorithm 2, f~_L in Algorithm 3).
    SYMBOL = {"algorithm1": "$\\tilde{v}$", "algorithm2": "$\\tilde{f}$",
              "algorithm3": "$\\tilde{f}_L$"}

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
        if get("value") is None or get("algorithm") is None:
            raise ValueError("not a dpbo release file (no value or algorithm)")
        self.algorithm = text(get("algorithm"))
        self.value = float(get("value"))
        self.eps_value = float(get("epsilon_value", float("nan")))
        self.eps_lambda = float(get("epsilon_lambda", float("nan")))
        self.reproducible = reproducible
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

    def lambda_label(self):
        return "$\\tilde{\\lambda}$ (private release, $\\varepsilon$=%.3g%s)" % (
            self.eps_lambda, self._seeded())

    def value_label(self):
        return "%s = %.4g (private release, $\\varepsilon$=%.3g%s)" % (
            self.SYMBOL.get(self.algorithm, "released value"), self.value, self.eps_value,
            self._seeded())

    def _seeded(self):
        return "; seeded" if self.reproducible else ""


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
        ax.errorbar(t, run.pred_mean, yerr=2 * run.pred_std, fmt="none", ecolor="0.7",
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
    lo, hi = float(np.min(run.gain)), float(np.max(run.gain))
    if run.pred_mean is not None and run.pred_std is not None:
        lo = min(lo, float(np.min(run.pred_mean - 2 * run.pred_std)))
        hi = max(hi, float(np.max(run.pred_mean + 2 * run.pred_std)))
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


def make_figure(run, source, limit, release=None):
    has_post = run.posterior is not None and run.d in (1, 2) and len(run.posterior["mean"]) > 0
    ncols = 2 if has_post else 1
    fig, axes = plt.subplots(1, ncols, figsize=(6.4 * ncols, 5.2), squeeze=False)
    plot_convergence(axes[0, 0], run, release)
    if has_post and run.d == 2:
        plot_posterior_2d(fig, axes[0, 1], run, limit, release)
    elif has_post:
        plot_posterior_1d(axes[0, 1], run, release)
    objective = run.attr("config.objective.kind", "?")
    function = run.attr("config.objective.function", "")
    if function:
        objective += " " + function
    complete = run.attrs.get("complete", 1)
    status = "" if int(np.asarray(complete)) else "  [incomplete: %s]" % run.attr("outcome")
    shown = "trace and posterior are" if has_post else "trace is"
    private = " (only the marks labelled private are DP)" if release is not None else ""
    fig.suptitle("%s: GP-UCB on %s, |Λ| = %d (%s), T = %d%s\n"
                 "the %s NOT differentially private (they depend on the validation data): "
                 "do not publish%s"
                 % (os.path.basename(source), objective, run.size, run.kind, run.steps, status, shown,
                    private),
                 fontsize=11)
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
