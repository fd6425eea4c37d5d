#!/usr/bin/python3
"""The committed data of a compare figure, from `dpbo compare` files (issue #24).

    analysis/export_compare.py COMPARE.h5 [COMPARE.h5 ...] -o analysis/data/NAME.json
        [--command "mpiexec -n 3 build/dpbo compare configs/compare-digits.ini ..."]

Writes one small JSON file (a few tens of kB; one array per line, so diffs
read by method and epsilon) from which analysis/plot_compare.py draws the
same figure and tables as from the HDF5 files, which hold every candidate's
validation accuracy and stay out of the repository. Several files (one delta
each, the same accuracy table) go into one data file, one entry of "files"
each. Per file:

  provenance  dpbo version, the writing build's commit when the file stores
              one, the exporting tree's git commit, the command (--command,
              or reconstructed), the config file, every config.* and
              default.* key (the --set overrides show there), the table's
              source, the noise source
  meta        objective, algorithm, selection, delta, split, the epsilon
              grid, R, T, |Lambda|, the data rows (train, validation, test),
              the seeds (run.seed, privacy.noise_seed, objective.split_seed),
              the wall and training times
  sensitivities  dpbo's Delta_lambda and Delta_v (and their terms), the
              baselines' 1/m (logreg g*/m), Algorithm 3's Delta
  table       every candidate's validation and test accuracy (exact: as
              correct-row counts over the rows when they are k/m, else as
              floats), its gain when it is not the validation accuracy
              (logreg), and the statistics RESULTS quotes: best validation
              accuracy (and the test accuracy there), best test accuracy, the
              share of Lambda within one point (0.01) of the best on
              validation and on test, the median and 90th percentile; with
              a proxy column (privacy.guided_proxy_rows, issue #26) the
              proxy accuracy of every candidate over its K rows and how it
              ranks Lambda against validation (proxy_statistics)
  methods     per method: whether it depends on epsilon (the non-private
              references do not: one row of R cells), and per epsilon and
              repetition the released lambda's index into the table (its
              validation and test accuracy are the table's there), the
              released value (6 significant digits) and, for the stopping
              methods, the evaluations K; the guarantee (pure (eps, 0),
              approximate (eps, delta) or non-private) and the accounting
              (epsilon and delta accounted; where not 0: eps_select /
              eps_value, the stopping methods' base eps0 (and its Renyi and
              privacy-profile values, gamma, eta, E[K]), the privatized
              evaluations' sigma and the GP's noise with it)
  utility     the dpbo lambda~'s exact distribution per epsilon: expected
              validation and test accuracy, P(argmax mu_T), E[regret] and the
              regret curve (6 significant digits)

`load(path)` returns the same document for an HDF5 file (in memory) or a
data file: plot_compare.py draws from it either way (one code path).
Exit status 2 when an input is missing or not a compare file.
"""

import argparse
import datetime
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from git_tree import git_commit  # noqa: E402

FORMAT = "dpbo compare figure data, version 1"
STOPPING = ("liu_talwar", "papernot_steinke")
REFERENCES = ("gp_ucb", "gp_ucb_mean", "random_search_nonprivate")
SEEDS = ("run.seed", "privacy.noise_seed", "objective.split_seed")
ROWS = ("objective.train_rows", "objective.validation_rows", "objective.test_rows")
# /accounting's columns kept (the first two always, the others where not 0)
ACCOUNTING = ("epsilon_accounted", "delta_accounted", "epsilon_select", "epsilon_value",
              "epsilon_base", "epsilon_base_rdp", "epsilon_base_profile", "by_profile", "gamma",
              "eta", "expected_runs", "sigma", "gp_noise_std_used")
TERMS = ("beta_T_plus_1", "c_lambda", "beta_T", "c_value", "q", "C1", "gamma_T", "regret_term")


class ExportError(Exception):
    """A file that cannot be exported (missing, not a compare file)."""


def plain(value):
    """JSON-ready copy: numpy scalars and arrays to Python numbers and lists."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, np.ndarray):
        return plain(value.tolist())
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.floating):
        return float(value)
    if isinstance(value, bytes):
        return value.decode()
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def short(x, digits=6):
    """x to `digits` significant digits (a float that prints short); NaN to None."""
    x = float(x)
    return float(f"{x:.{digits}g}") if np.isfinite(x) else None


def encode_accuracy(x, rows):
    """Exact and short: counts over `rows` when every x is k/rows (the C code
    divides two doubles, as Python does), else the floats themselves."""
    x = np.asarray(x, dtype=float)
    if rows and rows > 0:
        k = np.round(x * rows)
        if np.all(np.isfinite(x)) and np.array_equal(k / rows, x):
            return {"rows": int(rows), "correct": [int(v) for v in k]}
    return {"values": [float(v) for v in x]}


def decode_accuracy(enc):
    if "correct" in enc:
        return np.asarray(enc["correct"], dtype=float) / float(enc["rows"])
    return np.asarray(enc["values"], dtype=float)


def table_statistics(val, test):
    """What RESULTS quotes about the landscape of Lambda."""
    bv = int(np.argmax(val))  # first on ties, as the C log
    return {
        "best_val_accuracy": float(val[bv]), "test_accuracy_at_best_val": float(test[bv]),
        "best_test_accuracy": float(test.max()),
        "share_within_one_point_val": float(np.mean(val >= val.max() - 0.01)),
        "share_within_one_point_test": float(np.mean(test >= test.max() - 0.01)),
        "median_val_accuracy": float(np.median(val)), "median_test_accuracy": float(np.median(test)),
        "p90_val_accuracy": float(np.percentile(val, 90)),
        "p90_test_accuracy": float(np.percentile(test, 90)),
        "mean_test_accuracy": float(np.mean(test)),
    }


def ranks(x):
    """Ranks 1..n, ties given their average rank (as scipy.stats.rankdata)."""
    _, inverse, counts = np.unique(np.asarray(x, dtype=float), return_inverse=True, return_counts=True)
    below = np.cumsum(counts) - counts  # values smaller than each distinct value
    return (below + (counts + 1) / 2.0)[inverse]


def proxy_statistics(proxy, val, test):
    """How the proxy task (issue #26) ranks Lambda against validation: the
    rank correlation over all candidates, and the two argmaxes' accuracies."""
    bp, bv = int(np.argmax(proxy)), int(np.argmax(val))
    return {
        "spearman_proxy_val": float(np.corrcoef(ranks(proxy), ranks(val))[0, 1]),
        "at_best_proxy": {"proxy": float(proxy[bp]), "val": float(val[bp]), "test": float(test[bp])},
        "at_best_val": {"proxy": float(proxy[bv]), "val": float(val[bv]), "test": float(test[bv])},
    }


def guarantee(eps_accounted, delta_accounted):
    if np.all(np.asarray(eps_accounted) == 0):
        return "non-private"
    return "pure (eps, 0)" if np.all(np.asarray(delta_accounted) == 0) else "approximate (eps, delta)"


def text(v):
    v = plain(v)
    if isinstance(v, list) and len(v) == 1:
        v = v[0]
    return v


def export_file(path, command=None):
    """The data-file entry of one compare file (a dict of plain values)."""
    import h5py
    if not os.path.exists(path):
        raise ExportError(f"{path}: no such file")
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise ExportError(f"cannot open {path}: {e}")
    with f:
        if "methods" not in f or "accounting" not in f or "table" not in f:
            raise ExportError(f"{path} is not a dpbo compare file (no /methods)")
        attrs = {k: text(v) for k, v in f.attrs.items()}
        settings = {k: v for k, v in attrs.items() if k.startswith(("config.", "default."))}

        def setting(key, default=None):
            return settings.get("config." + key, settings.get("default." + key, default))

        m = f["methods"]
        names = text(m.attrs["names"]).split(",")
        eps = m["epsilon"][:]
        index = m["index"][:]
        released, evaluations = m["released_value"][:], m["evaluations"][:]
        gain_cells = m["gain"][:]
        val, test, gain = (f["table"][k][:] for k in ("val_accuracy", "test_accuracy", "gain"))
        proxy = f["table/proxy_accuracy"][:] if "table/proxy_accuracy" in f else None
        proxy_rows = int(f["table/proxy_rows"][0]) if "table/proxy_rows" in f else 0
        acc = {k: f["accounting"][k][:] for k in f["accounting"]}
        utility = {k: f["utility"][k][:] for k in f["utility"]} if "utility" in f else None
        lam = f["table/lambda"][:]
    n_val, n_test = int(attrs.get("validation_rows", 0)), int(attrs.get("test_rows", 0))
    if not command:
        command = (f"mpiexec -n P build/dpbo compare {attrs.get('config_file', '?')}  "
                   "(reconstructed from the file: --set overrides, if any, show only in config.*)")
    prov = {k: attrs[k] for k in ("dpbo_version", "dpbo_commit", "git_commit", "command",
                                  "config_file", "table_source", "randomness") if k in attrs}
    prov.update({"command": attrs.get("command", command), "source_file": os.path.basename(path),
                 "exported_by": "analysis/export_compare.py",
                 "commit_at_export": git_commit(os.path.dirname(os.path.abspath(__file__))),
                 "settings": settings})
    meta = {k: attrs.get(k) for k in ("objective", "algorithm", "selection", "delta", "split",
                                      "wall_seconds", "train_seconds")}
    meta.update({"epsilons": [float(e) for e in eps], "repetitions": int(attrs["repetitions"]),
                 "T": int(attrs["T"]), "N": int(attrs["N"]), "dims": int(lam.shape[1]),
                 "validation_rows": n_val, "test_rows": n_test,
                 "rows": {k.split(".")[1]: setting(k) for k in ROWS},
                 "seeds": {k: setting(k) for k in SEEDS},
                 "noise": setting("privacy.noise")})
    sens = {"lambda": attrs.get("sensitivity_lambda"), "value": attrs.get("sensitivity_value"),
            "baselines": attrs.get("sensitivity_baselines"),
            "terms": {k: attrs[k] for k in TERMS if k in attrs}}
    if "sensitivity_algorithm3" in attrs:
        sens["algorithm3"] = attrs["sensitivity_algorithm3"]
    table = {"val_accuracy": encode_accuracy(val, n_val), "test_accuracy": encode_accuracy(test, n_test),
             "statistics": table_statistics(val, test)}
    if not np.array_equal(gain, val):
        table["gain"] = {"values": [float(v) for v in gain]}
    if proxy is not None:
        table["proxy_accuracy"] = encode_accuracy(proxy, proxy_rows)
        table["proxy_statistics"] = proxy_statistics(proxy, val, test)
    methods = {}
    T = int(attrs["T"])
    for k, name in enumerate(names):
        per_eps = not (name in REFERENCES and np.all(index[k] == index[k][:1]) and
                       np.array_equal(released[k], released[k][:1].repeat(len(eps), axis=0),
                                      equal_nan=True))
        rows = range(len(eps)) if per_eps else range(1)
        rec = {"per_epsilon": bool(per_eps),
               "guarantee": guarantee(acc["epsilon_accounted"][k], acc["delta_accounted"][k]),
               "accounting": {c: [float(v) for v in acc[c][k]] for c in ACCOUNTING
                              if c in acc and (c in ACCOUNTING[:2] or np.any(acc[c][k] != 0))}}
        if np.all(index[k] < 0) and np.all(np.isnan(released[k])):
            # Not applicable here (Algorithm 3 on svm): no cells.
            rec.update({"applicable": False, "guarantee": "not applicable"})
            methods[name] = rec
            continue
        rec.update({"index": [[int(i) for i in index[k][e]] for e in rows],
                    "released_value": [[short(v) for v in released[k][e]] for e in rows]})
        if np.all(evaluations[k] == evaluations[k].flat[0]):
            rec["evaluations"] = float(evaluations[k].flat[0])
        else:
            rec["evaluations"] = [[int(v) for v in evaluations[k][e]] for e in rows]
        if np.any(index[k] < 0):  # no lambda released (Algorithm 3): the gain it is measured on
            rec["gain"] = [[short(v) for v in gain_cells[k][e]] for e in rows]
        if name in STOPPING:
            rec["expected_evaluations"] = T
        methods[name] = rec
    doc = {"provenance": prov, "meta": meta, "sensitivities": sens, "table": table,
           "methods": methods}
    if utility is not None:
        # the regret curves only draw panel 3: 4 significant digits
        doc["utility"] = {k: [[short(v, 4) for v in row] for row in utility[k]] if utility[k].ndim == 2
                          else [float(v) for v in utility[k]] for k in utility}
    return plain(doc)


def export(paths, command=None):
    """The whole data file of one or more compare files."""
    files = [export_file(p, command) for p in paths]
    for entry in files[1:]:  # one data set at several deltas: the table once
        if {k: v for k, v in entry["table"].items()} == files[0]["table"]:
            entry["table"] = {"same_as_file": 0}
    return {"format": FORMAT, "exported_at": datetime.datetime.now(datetime.timezone.utc)
            .strftime("%Y-%m-%dT%H:%M:%SZ"), "files": files}


def arrays(entry):
    """The arrays plot_compare.py draws from: [method][epsilon][repetition]
    cells (references repeated over epsilon), the table, the accounting."""
    meta, methods, table = entry["meta"], entry["methods"], entry["table"]
    E, R = len(meta["epsilons"]), meta["repetitions"]
    val, test = decode_accuracy(table["val_accuracy"]), decode_accuracy(table["test_accuracy"])
    gain = np.asarray(table["gain"]["values"]) if "gain" in table else val
    names = list(methods)
    shape = (len(names), E, R)
    out = {k: np.full(shape, np.nan) for k in ("val", "test", "gain", "released", "evaluations")}
    out["index"] = np.full(shape, -1, dtype=np.int64)
    acc = {c: np.zeros((len(names), E)) for c in ACCOUNTING}
    for k, name in enumerate(names):
        rec = methods[name]
        for c, v in rec["accounting"].items():
            acc[c][k] = np.asarray(v, dtype=float)
        if not rec.get("applicable", True):
            continue

        def grid(x, dtype=float):
            a = np.asarray(x, dtype=dtype)
            return np.broadcast_to(a, (E, R)) if a.ndim == 0 or a.shape[0] == 1 else a
        idx = grid(rec["index"], np.int64)
        out["index"][k] = idx
        ok = idx >= 0
        out["val"][k][ok], out["test"][k][ok], out["gain"][k][ok] = val[idx[ok]], test[idx[ok]], gain[idx[ok]]
        if "gain" in rec:
            out["gain"][k] = grid(np.array(rec["gain"], dtype=float))
        out["released"][k] = grid(np.array(rec["released_value"], dtype=float))
        out["evaluations"][k] = grid(rec["evaluations"])
    out.update({"names": names, "eps": np.asarray(meta["epsilons"]), "table_val": val,
                "table_test": test, "accounting": acc,
                "guarantee": {n: methods[n]["guarantee"] for n in names}})
    if "utility" in entry:
        out["utility"] = {k: np.asarray(v, dtype=float) for k, v in entry["utility"].items()}
    return out


def load(path):
    """The data-file entries of `path`: a compare HDF5 file (exported in
    memory) or a data file written here."""
    if path.endswith(".json"):
        if not os.path.exists(path):
            raise ExportError(f"{path}: no such file")
        with open(path) as f:
            try:
                doc = json.load(f)
            except ValueError as e:
                raise ExportError(f"{path}: not JSON: {e}")
        if doc.get("format") != FORMAT:
            raise ExportError(f"{path} is not a compare data file (format {doc.get('format')!r})")
        files = doc["files"]
        for entry in files:
            if "same_as_file" in entry["table"]:
                entry["table"] = files[entry["table"]["same_as_file"]]["table"]
        return files
    return [export_file(path)]


def dump(doc):
    """JSON with one short array (a method's cells at one epsilon) per line."""
    def block(value, indent):
        pad = " " * indent
        if isinstance(value, dict) and value:
            items = [f'{pad}  {json.dumps(k)}: {block(v, indent + 2).lstrip()}' for k, v in value.items()]
            return pad + "{\n" + ",\n".join(items) + "\n" + pad + "}"
        if isinstance(value, list) and value and isinstance(value[0], list):
            return pad + "[\n" + ",\n".join(pad + "  " + json.dumps(v) for v in value) + "\n" + pad + "]"
        if isinstance(value, list) and value and isinstance(value[0], dict):
            return pad + "[\n" + ",\n".join(block(v, indent + 2) for v in value) + "\n" + pad + "]"
        return pad + json.dumps(value)
    return block(doc, 0) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="+", metavar="COMPARE.h5")
    ap.add_argument("-o", "--output", required=True, help="JSON data file to write")
    ap.add_argument("--command", help="the command that made the files (default: reconstructed)")
    args = ap.parse_args()
    try:
        doc = export(args.files, args.command)
    except ExportError as e:
        print(f"export_compare.py: {e}", file=sys.stderr)
        return 2
    out = dump(doc)
    if json.loads(out) != json.loads(json.dumps(doc)):
        raise AssertionError("the data file does not read back as written")
    tmp = args.output + ".tmp"
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(tmp, "w") as f:
        f.write(out)
    os.replace(tmp, args.output)
    print(f"wrote {args.output} ({len(out)} bytes, {len(args.files)} file(s))")
    return 0


if __name__ == "__main__":
    sys.exit(main())
