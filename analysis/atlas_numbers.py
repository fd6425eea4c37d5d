#!/usr/bin/python3
"""The atlas table and the derived numbers that analysis/RESULTS.md quotes.

    atlas_numbers.py analysis/data/atlas-local.json

analysis/atlas.py draws the atlas's figures and its full table
(analysis/figures/atlas-local.md) from the committed data file. The RESULTS
section shows a shorter table (one row per task, the values at each m side
by side) and its reading quotes ranges, extremes and shares over the
tasks. This script prints both, labelled, from the data file alone (issue
#24: every number traceable), so that a reader can check each sentence.

A task is named DATA-MODEL-NEIGHBOUR (covtype-svm-swap) or is the synthetic
control (synthetic-control). s·c·(m − 1) is the fitted bound at δ in units
of the most one record can move an accuracy: 1/(m − 1) for add/remove and
adversarial neighbours, 1/m for swap (so s·c·m there).

Needs numpy (Debian's python3-numpy; use /usr/bin/python3); reads the file
through atlas.py's loader. Exit status 2 when the file is missing or not an
atlas data file.
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import atlas  # noqa: E402  (its reader of the data file: one check of the format)


def load(path):
    try:
        return atlas.load(path)
    except atlas.ListError as e:
        print(f"atlas_numbers.py: {e}", file=sys.stderr)
        sys.exit(2)


def group_of(task):
    """(data, model) of a data task, None for the control."""
    parts = task.split("-")
    return None if task.startswith("synthetic") else (parts[0], parts[1])


def record_units(row):
    """s·c at δ over what one record can move an accuracy."""
    m = row["m"]
    return row["bound_at_delta"] * (m if row["neighbour"] == "swap" else m - 1)


def by_task(rows):
    out = {}
    for r in rows:
        out.setdefault(r["task"], []).append(r)
    for v in out.values():
        v.sort(key=lambda r: r["m"])
    return out


def g3(x):
    return f"{x:.3g}"


def short_table(doc):
    """The RESULTS table: one row per task, each m's value side by side."""
    tasks = by_task(doc["summary"])
    cross = {}
    for c in doc["cross"]:
        cross.setdefault(c["adversarial_task"], []).append(c)
    print("## the RESULTS table (analysis/data/atlas-local.json)")
    print("| task | m | MLE 1 − k1 | bootstrap 95% of k1 (widest; B) | s·c·(m − 1) (swap: s·c·m) "
          "| KS p (largest) | max abs z | pairs above s·c at δ: k/n | adversarial pairs above the "
          "random fit's s·c: k/n | pipeline slack (smallest) |")
    print("|---|---|---|---|---|---:|---:|---|---|---:|")
    for name, rows in tasks.items():
        widest = max(rows, key=lambda r: r["bootstrap_k1_hi"] - r["bootstrap_k1_lo"])
        cr = sorted(cross.get(name, []), key=lambda c: c["m"])
        def side(fmt):  # each m's value, side by side
            return " / ".join(fmt(r) for r in rows)
        above_random = " / ".join(f"{c['count_above']}/{c['pairs']}" for c in cr) if cr else "–"
        print(f"| {name} | {side(lambda r: str(r['m']))}"
              f" | {side(lambda r: format(r['one_minus_k1_mle'], '.2g'))}"
              f" | [{widest['bootstrap_k1_lo']:.6f}, {widest['bootstrap_k1_hi']:.6f}] "
              f"(m = {widest['m']}; B = {widest['bootstrap_B']})"
              f" | {side(lambda r: format(record_units(r), '.2f'))}"
              f" | {max(r['ks_pvalue'] for r in rows):.2g}"
              f" | {max(r['max_abs_z'] for r in rows):.1f}"
              f" | {side(lambda r: str(r['exceedance_count']) + '/' + str(r['pairs']))}"
              f" | {above_random}"
              f" | {min(r['pipeline_slack'] for r in rows):.0f} |")
    print()


def fit_numbers(doc):
    rows = doc["summary"]
    data = [r for r in rows if group_of(r["task"])]
    control = [r for r in rows if not group_of(r["task"])]
    tasks = by_task(data)
    print("## goodness of fit (data tasks)")
    largest_p = {t: max(r["ks_pvalue"] for r in v) for t, v in tasks.items()}
    best = max(largest_p, key=largest_p.get)
    print(f"data tasks: {len(tasks)}")
    print(f"largest KS p over all data tasks: {largest_p[best]:.2g} ({best})")
    print(f"tasks whose largest KS p < 1e-20: {sum(p < 1e-20 for p in largest_p.values())} of {len(tasks)}")
    zs = {t: max(r["max_abs_z"] for r in v) for t, v in tasks.items()}
    print(f"largest |z| per task: {min(zs.values()):.1f} ({min(zs, key=zs.get)}) to "
          f"{max(zs.values()):.1f} ({max(zs, key=zs.get)})")
    if control:
        print("control: KS p " + ", ".join(f"{r['ks_pvalue']:.2g}" for r in control) +
              f"; largest |z| {max(r['max_abs_z'] for r in control):.1f}")
        print("control: MLE k1 " + ", ".join(f"{r['k1_mle']:.3f}" for r in control) +
              "; bootstrap intervals " + ", ".join(
                  f"[{r['bootstrap_k1_lo']:.4f}, {r['bootstrap_k1_hi']:.4f}]" for r in control))
        print("control: pairs above s·c " + ", ".join(
            f"{r['exceedance_count']}/{r['pairs']} ({r['exceedance_rate']:.0%})" for r in control) +
            "; sigma_n at the MLE " + ", ".join(f"{r['sigma_n']:.2g}" for r in control))
    print()
    print("## k1")
    lo = min(data, key=lambda r: r["one_minus_k1_mle"])
    hi = max(data, key=lambda r: r["one_minus_k1_mle"])
    print(f"MLE 1 - k1: {hi['one_minus_k1_mle']:.2g} ({hi['task']}, m = {hi['m']}) down to "
          f"{lo['one_minus_k1_mle']:.2g} ({lo['task']}, m = {lo['m']})")
    slopes = {}
    for t, v in tasks.items():
        a, b = v[0], v[-1]
        slopes[t] = math.log(a["one_minus_k1_mle"] / b["one_minus_k1_mle"]) / math.log(b["m"] / a["m"])
    print(f"1 - k1 ~ m^-a from the smallest to the largest m: a = {min(slopes.values()):.2f} "
          f"({min(slopes, key=slopes.get)}) to {max(slopes.values()):.2f} ({max(slopes, key=slopes.get)}); "
          f"median {np.median(list(slopes.values())):.2f}")
    ratio = {}
    for r in data:
        t_lo, t_hi = 1 - r["bootstrap_k1_hi"], 1 - r["bootstrap_k1_lo"]
        ratio[(r["task"], r["m"])] = t_hi / t_lo if t_lo > 0 else math.inf
    worst = max(ratio, key=ratio.get)
    print(f"bootstrap B: {sorted({r['bootstrap_B'] for r in rows})}")
    print(f"bootstrap interval on the 1 - k1 scale, upper over lower: up to {ratio[worst]:.1f} "
          f"({worst[0]}, m = {worst[1]}); median {np.median([x for x in ratio.values() if x < math.inf]):.2f}")
    wide = max(data, key=lambda r: r["bootstrap_k1_hi"] - r["bootstrap_k1_lo"])
    print(f"widest bootstrap interval on the k1 scale: [{wide['bootstrap_k1_lo']:.5f}, "
          f"{wide['bootstrap_k1_hi']:.5f}] ({wide['task']}, m = {wide['m']})")
    inside = sum(r["bootstrap_k1_lo"] <= r["k1_mle"] <= r["bootstrap_k1_hi"] for r in data)
    print(f"MLE inside its bootstrap interval: {inside} of {len(data)} rows")
    print()


def groups(rows):
    out = {}
    for r in rows:
        g = group_of(r["task"])
        if g:
            out.setdefault(g, []).append(r)
    return out


def bound_numbers(doc):
    rows = doc["summary"]
    print("## per data set and model: s, m0, sigma_n, s·c·(m − 1), exceedance")
    print("| data | model | s | m0 | sigma_n | s·c / sigma_n | s·c·(m − 1) random pairs | "
          "s·c·(m − 1) adversarial (own fit) | pairs above own s·c (k/n, largest) | pool accuracy min |")
    print("|---|---|---|---|---|---|---|---|---|---:|")
    pool = {t["name"]: t["pool_accuracy"] for t in doc["tasks"]}
    for (d, mdl), v in groups(rows).items():
        rnd = [r for r in v if r["neighbour"] != "adversarial"]
        adv = [r for r in v if r["neighbour"] == "adversarial"]
        units = [record_units(r) for r in rnd]
        aunits = [record_units(r) for r in adv]
        worst = max(v, key=lambda r: (r["exceedance_rate"], -r["m"]))
        pmin = min(pool[r["task"]]["min"] for r in v if pool.get(r["task"]))
        sn = [r["bound_at_delta"] / r["sigma_n"] for r in v if r["sigma_n"] > 0]
        print(f"| {d} | {mdl} | {g3(min(r['s'] for r in v))}–{g3(max(r['s'] for r in v))}"
              f" | {min(r['m0'] for r in v):.2f}–{max(r['m0'] for r in v):.2f}"
              f" | {g3(min(r['sigma_n'] for r in v))}–{g3(max(r['sigma_n'] for r in v))}"
              f" | {min(sn):.0f}–{max(sn):.0f}"
              f" | {min(units):.2f}–{max(units):.2f}"
              f" | {(f'{min(aunits):.2f}–{max(aunits):.2f}') if aunits else '–'}"
              f" | {worst['exceedance_count']}/{worst['pairs']} ({worst['task']}, m = {worst['m']}, "
              f"95% CP [{worst['exceedance_lo']:.2f}, {worst['exceedance_hi']:.2f}])"
              f" | {pmin:.2f} |")
    print()
    data = [r for r in rows if group_of(r["task"])]
    nonzero = [r for r in data if r["exceedance_count"]]
    print(f"data rows with any pair above its own s·c: {len(nonzero)} of {len(data)}")
    if nonzero:
        lo = min(nonzero, key=lambda r: r["exceedance_count"])
        hi = max(nonzero, key=lambda r: r["exceedance_rate"])
        print(f"  fewest: {lo['exceedance_count']}/{lo['pairs']} ({lo['task']}, m = {lo['m']}, "
              f"95% CP [{lo['exceedance_lo']:.3f}, {lo['exceedance_hi']:.3f}]); most: "
              f"{hi['exceedance_count']}/{hi['pairs']} ({hi['task']}, m = {hi['m']}, "
              f"95% CP [{hi['exceedance_lo']:.2f}, {hi['exceedance_hi']:.2f}])")
    below = [r for r in data if record_units(r) < 1]
    print(f"rows with s·c·(m − 1) < 1: {len(below)}; of them with a pair above: "
          f"{sum(1 for r in below if r['exceedance_count'])}")
    above = [r for r in data if record_units(r) >= 1]
    print(f"rows with s·c·(m − 1) >= 1: {len(above)}; of them with a pair above: "
          f"{sum(1 for r in above if r['exceedance_count'])}")
    print()
    print("## adversarial pairs against the random add/remove fit (/cross)")
    for c in doc["cross"]:
        print(f"{c['adversarial_task']} m = {c['m']}: {c['count_above']}/{c['pairs']} above "
              f"(95% CP [{c['rate_lo']:.2f}, {c['rate_hi']:.2f}])")
    print()
    print("## the pipeline")
    slack = [r for r in rows if r["pipeline_slack"] is not None]
    lo = min(slack, key=lambda r: r["pipeline_slack"])
    hi = max(slack, key=lambda r: r["pipeline_slack"])
    dlo = [r for r in slack if group_of(r["task"])]
    lo_d = min(dlo, key=lambda r: r["pipeline_slack"])
    print(f"slack Delta_lambda / max |mu_T - mu'_T|: {lo['pipeline_slack']:.0f} ({lo['task']}, m = {lo['m']}) "
          f"to {hi['pipeline_slack']:.0f} ({hi['task']}, m = {hi['m']}); data tasks from "
          f"{lo_d['pipeline_slack']:.0f} ({lo_d['task']})")
    print(f"violations: {sum(r['pipeline_violations'] or 0 for r in slack)} of "
          f"{sum(r['pipeline_pairs'] or 0 for r in slack)} pairs")


def main(argv):
    if len(argv) != 2 or argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        return 2
    doc = load(argv[1])
    short_table(doc)
    fit_numbers(doc)
    bound_numbers(doc)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
