#!/usr/bin/python3
"""The committed data of a k1 figure, from a `dpbo k1sweep` file (issue #24).

    analysis/export_k1_sweep.py results/k1sweep-covtype.h5 -o analysis/data/k1sweep-covtype.json
        [--command "mpiexec -n 3 build/dpbo k1sweep configs/k1sweep-covtype.ini"]

Writes a small, diff-able JSON file (one grid point per line) from which
analysis/plot_k1_sweep.py redraws the figure and its tables without the
HDF5 file (whose F matrices, bits and index sets are megabytes and stay
out of the repository):

  provenance  dpbo version, the exporting tree's git commit, config file, every
              config.* and default.* key of the run, seed, ranks, sizes, rows,
              /performance (stage times), the command that made the file
  meta        what the figure's title and notes need
  sizes[]     per m: the profile curve (k1, 1 - k1, log-likelihood and the
              profiled m0, s, sigma_n, length-scale at every grid point, with
              grid = "paper" for k1 = 0.05 ... 0.95 and "log" for the log(1 - k1)
              extension), the MLE with its profiled parameters, the 95%
              likelihood-ratio interval, boundary flag, c, and, when the run
              has them, the goodness-of-fit statistics (k1gof.h: scalars, the
              per-pair max |F_V - F_V'| and pipeline differences, the exceedance
              curve, and 400 quantiles of the residuals z for the QQ plot)
"""

import argparse
import datetime
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import plot_k1_sweep  # noqa: E402
from git_tree import git_commit  # noqa: E402

CURVE = ("k1", "one_minus_k1", "loglik", "m0", "s", "sigma_n", "lengthscale")
Z_QUANTILES = 400


def plain(value):
    """JSON-ready copy: numpy scalars and arrays to Python numbers and lists."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return [plain(v) for v in value.tolist()]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.floating,)):
        return float(value)
    if isinstance(value, bytes):
        return value.decode()
    return value


def provenance(path, command, f=None):
    """The run's provenance from the file at path, or from f (an open k1sweep file, or its
    copy in the atlas's file, whose source is path)."""
    import h5py
    if f is None:
        with h5py.File(path, "r") as f:
            return provenance(path, command, f)
    attrs = {k: plain(v) for k, v in f.attrs.items()}
    perf = {k: plain(v) for k, v in f["performance"].attrs.items()} if "performance" in f else {}
    config = {k: v for k, v in attrs.items() if k.startswith(("config.", "default."))}
    keep = ("dpbo_version", "config_file", "config_hash", "mode", "seed", "ranks", "models", "sets",
            "sizes", "neighbour", "train_rows", "pool_rows", "data_rows", "data", "wall_seconds",
            "synthetic_truth", "synthetic_truth_names")
    out = {k: attrs[k] for k in keep if k in attrs}
    if not command:
        command = (f"mpiexec -n {attrs.get('ranks', '?')} build/dpbo k1sweep "
                   f"{attrs.get('config_file', '?')}  (reconstructed from the file: --set "
                   "overrides, if any, show only in config.*)")
    out.update({
        "command": command,
        "source_file": os.path.basename(path),
        "exported_by": "analysis/export_k1_sweep.py",
        "exported_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit_at_export": git_commit(os.path.dirname(os.path.abspath(__file__))),
        "performance": perf,
        "settings": config,
    })
    return out


def size_record(s, k1_step, curve=CURVE, z_quantiles=Z_QUANTILES, z_digits=None, columns=False):
    """One size m of the data file. The atlas (analysis/atlas.py) keeps its 57 sizes small:
    curve = the figure's columns only, stored as one list per column (columns=True; no grid
    labels, and k1 may be left to 1 - one_minus_k1), fewer
    quantiles of z, rounded to z_digits significant digits (the QQ plot's resolution)."""
    rec = {"m": s["m"]}
    for key in ("k1_mle", "t_mle", "loglik_mle", "k1_lo", "k1_hi", "t_lo", "t_hi", "boundary",
                "c_mle", "c_upper", "sigma_n", "lengthscale", "m0", "s", "N", "delta"):
        rec[key] = s[key]
    grid = ["paper" if k1 <= 1.0 - k1_step * 0.999 + 1e-12 and t >= k1_step * 0.999 else "log"
            for k1, t in zip(s["k1"], s["t"])]
    source = {"k1": s["k1"], "one_minus_k1": s["t"], "loglik": s["loglik"], "m0": s["m0_grid"],
              "s": s["s_grid"], "sigma_n": s["sigma_n_grid"], "lengthscale": s["ell_grid"]}
    if columns:
        rec["curve"] = {k: source[k] for k in curve}
    else:
        rec["curve"] = [dict(zip(("grid",) + tuple(curve), row))
                        for row in zip(grid, *(source[k] for k in curve))]
    if s.get("gof"):
        gof = {k: s[k] for k in ("ks", "ks_p", "max_z", "bound", "rate", "s2t", "B")}
        for k in ("boot_k1_lo", "boot_k1_hi", "s2_one_minus_k1_lo", "s2_one_minus_k1_hi",
                  "pipe_T", "pipe_delta", "pipe_max", "pipe_slack", "pipe_viol"):
            if k in s:
                gof[k] = s[k]
        z = np.sort(s["z"])
        q = min(z_quantiles, len(z))
        quantiles = np.quantile(z, (np.arange(1, q + 1) - 0.5) / q)
        if z_digits:
            quantiles = [float(f"{v:.{z_digits}g}") for v in quantiles]
        gof["z_quantiles"] = quantiles
        gof["z_count"] = len(z)
        gof["z_min"], gof["z_max"] = float(z[0]), float(z[-1])
        gof["max_diff"] = s["max_diff"]
        gof["exc_delta"] = s["exc_delta"]
        gof["exc_rate"] = s["exc_rate"]
        gof["pipeline"] = s["pipeline"]
        if s["pipeline"]:
            gof["pipe_diff"] = s["pipe_diff"]
        rec["gof"] = gof
    return plain(rec)


def k1_step(prov):
    settings = prov["settings"]
    return float(settings.get("config.likelihood.k1_step",
                              settings.get("default.likelihood.k1_step", 0.05)))


def dump(doc):
    """JSON with one curve point (and one short array) per line, so diffs read by point."""
    lines = ["{"]
    top = [k for k in doc if k != "sizes"]
    for k in top:
        body = json.dumps(doc[k], sort_keys=True, indent=2).replace("\n", "\n  ")
        lines.append(f"  {json.dumps(k)}: {body},")
    lines.append('  "sizes": [')
    for i, s in enumerate(doc["sizes"]):
        lines.append("    {")
        keys = list(s)
        for j, k in enumerate(keys):
            end = "," if j < len(keys) - 1 else ""
            if k == "curve":
                lines.append('      "curve": [')
                for r, row in enumerate(s[k]):
                    lines.append("        " + json.dumps(row) + ("," if r < len(s[k]) - 1 else ""))
                lines.append("      ]" + end)
            elif k == "gof":
                lines.append('      "gof": {')
                gk = list(s[k])
                for g, key in enumerate(gk):
                    lines.append(f"        {json.dumps(key)}: {json.dumps(s[k][key])}"
                                 + ("," if g < len(gk) - 1 else ""))
                lines.append("      }" + end)
            else:
                lines.append(f"      {json.dumps(k)}: {json.dumps(s[k])}{end}")
        lines.append("    }" + ("," if i < len(doc["sizes"]) - 1 else ""))
    lines.append("  ]")
    lines.append("}")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("file", help="HDF5 file written by dpbo k1sweep")
    ap.add_argument("-o", "--output", required=True, help="JSON data file to write")
    ap.add_argument("--command", help="the command that made FILE (default: reconstructed)")
    args = ap.parse_args()
    meta, sizes = plot_k1_sweep.read(args.file)
    prov = provenance(args.file, args.command)
    doc = {"format": "dpbo k1sweep figure data, version 1", "meta": plain(meta),
           "provenance": prov, "sizes": [size_record(s, k1_step(prov)) for s in sizes]}
    text = dump(doc)
    json.loads(text)  # what we wrote parses
    tmp = args.output + ".tmp"
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.output)
    print(f"wrote {args.output} ({len(text)} bytes, {len(sizes)} sizes)")


if __name__ == "__main__":
    main()
