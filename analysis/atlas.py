#!/usr/bin/python3
"""The k1 atlas: one `dpbo k1sweep` per line of a task list, gathered into one file.

    analysis/atlas.py check LIST          validate the list; print its number of tasks
    analysis/atlas.py task LIST INDEX     the task's name, output folder and dpbo arguments
    analysis/atlas.py gather LIST         one HDF5 file, a figure per task, a summary table

jobs/atlas.sbatch runs the tasks as a Slurm array (SLURM_ARRAY_TASK_ID = INDEX)
and then the gather. The list (configs/atlas-*.list) holds one task per line:

    NAME  CONFIG  [SECTION.KEY=VALUE ...]

NAME names the task (letters, digits, '_', '-', '.'; unique in the list): its
group in the gathered file and its output results/<atlas>/<NAME>.h5, where
<atlas> is the list's file name without its extension. CONFIG is a k1sweep
config, relative to the list's folder unless absolute. Each SECTION.KEY=VALUE
becomes `--set SECTION.KEY=VALUE` (dpbo checks the keys); output.dir and
output.name are the atlas's and may not be set. Words split as in the shell
(quotes keep spaces: k1sweep.sizes="1000 2000"); `#` starts a comment;
${VAR} and ${VAR:-default} are replaced from the environment (an unset VAR
without a default is refused). So a new model or neighbour kind needs only
new lines.

Each task also leaves results/<atlas>/<NAME>.status, written by the job
script: "started JOB" when it starts, "exit CODE JOB" when dpbo returns. The
gather refuses (exit 3, every bad task named) a task that never started, did
not finish, failed, left no output or whose output does not hold the task's
settings; it writes nothing then. Otherwise it writes results/<atlas>.h5
(through a temporary name, renamed at the end): a group per task holding a
copy of every object of the task's file, with the task's settings (index,
line, config, overrides, status) and the file's own attributes as the group's
attributes, and /summary, the table of results/<atlas>.md: per task and size
m the MLE of k1 and its intervals, s^2 (1 - k1), sigma_n, the residuals' KS
statistic, p-value and largest |z|, max |F_V - F_V'| against s c and the
exceedance rate at delta, and the pipeline's slack; and /cross, the table's
second part: for each task NAME-adversarial whose list also has
NAME-add_remove, the adversarial pairs' max |F_V - F_V'| against the s c of
the random neighbours' fit (does the worst-case neighbour stay within a bound
fitted on random ones?). results/<atlas>.png draws the tasks side by side
against m. Each task's figures
come from analysis/plot_k1_sweep.py (results/<atlas>/<NAME>.k1.png,
.k1.gof.png and .k1.md).

Bad input (exit 2) names the list file and line.
"""

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]*\Z")
OVERRIDE = re.compile(r"([A-Za-z0-9_]+)\.([A-Za-z0-9_.]+)=(.*)\Z", re.S)
VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
RESERVED = ("output.dir", "output.name")


class ListError(Exception):
    """Bad input in a task list: the message names the file and line."""


@dataclass
class Task:
    index: int
    line: int
    name: str
    config: str
    overrides: list = field(default_factory=list)  # [(key, value)]


def atlas_name(path):
    return os.path.splitext(os.path.basename(path))[0]


def expand(word, where):
    def value(match):
        name, default = match.group(1), match.group(2)
        if name in os.environ:
            return os.environ[name]
        if default is None:
            raise ListError(f"{where}: ${{{name}}} is not set (write ${{{name}:-default}} for a default)")
        return default

    return VAR.sub(value, word)


def parse(path):
    """The tasks of a list, in order; ListError naming file and line on bad input."""
    try:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
    except (OSError, UnicodeDecodeError) as e:
        raise ListError(f"{path}: cannot read the task list: {e}") from None
    if not NAME.match(atlas_name(path)):
        raise ListError(f"{path}: the list's name '{atlas_name(path)}' (the output's name) must be "
                        "letters, digits, '_', '-', '.'")
    folder = os.path.dirname(os.path.abspath(path))
    tasks, seen = [], {}
    for number, text in enumerate(lines, 1):
        where = f"{path}:{number}"
        try:
            words = shlex.split(text, comments=True)
        except ValueError as e:
            raise ListError(f"{where}: {e} (unclosed quote?)") from None
        if not words:
            continue
        words = [expand(w, where) for w in words]
        if len(words) < 2:
            raise ListError(f"{where}: expected 'NAME CONFIG [SECTION.KEY=VALUE ...]', got '{text.strip()}'")
        name, config = words[0], words[1]
        if not NAME.match(name):
            raise ListError(f"{where}: task name '{name}' must be letters, digits, '_', '-', '.' "
                            "(it names a file and an HDF5 group)")
        if name in seen:
            raise ListError(f"{where}: task name '{name}' already used on line {seen[name]}")
        seen[name] = number
        if not os.path.isabs(config):
            config = os.path.normpath(os.path.join(folder, config))
        if not os.path.isfile(config):
            raise ListError(f"{where}: task '{name}': config '{words[1]}' not found ({config})")
        overrides = []
        for word in words[2:]:
            match = OVERRIDE.match(word)
            if not match:
                raise ListError(f"{where}: task '{name}': '{word}' is not SECTION.KEY=VALUE")
            key = f"{match.group(1)}.{match.group(2)}"
            if key in RESERVED:
                raise ListError(f"{where}: task '{name}': {key} is set by the atlas "
                                "(results/<list name>/<task name>.h5)")
            if any(key == k for k, _ in overrides):
                raise ListError(f"{where}: task '{name}': {key} set twice")
            overrides.append((key, match.group(3)))
        tasks.append(Task(len(tasks), number, name, config, overrides))
    if not tasks:
        raise ListError(f"{path}: the task list has no tasks")
    return tasks


def task_dir(path, results="results"):
    return os.path.join(results, atlas_name(path))


def cmd_task(path, index_text):
    tasks = parse(path)
    if not re.fullmatch(r"[0-9]+", index_text) or int(index_text) >= len(tasks):
        raise ListError(f"{path}: task index '{index_text}' is not one of the list's tasks "
                        f"(0 to {len(tasks) - 1}; submit with --array=0-{len(tasks) - 1})")
    t = tasks[int(index_text)]
    out = task_dir(path)
    # One word per line (a list line has no newline, so neither has a word).
    words = [t.name, out, t.config]
    for key, value in t.overrides:
        words += ["--set", f"{key}={value}"]
    words += ["--set", f"output.dir={out}", "--set", f"output.name={t.name}"]
    print("\n".join(words))


# ---------------------------------------------------------------------------
# Gather.


def text(value):
    return value.decode() if isinstance(value, bytes) else str(value)


def task_problem(t, out, h5py):
    """Why task t's output cannot be gathered, or None."""
    label = f"task {t.index} '{t.name}' (line {t.line})"
    status_path = os.path.join(out, t.name + ".status")
    h5_path = os.path.join(out, t.name + ".h5")
    try:
        with open(status_path, encoding="utf-8") as f:
            status = f.read().split()
    except OSError:
        return f"{label}: never ran (no {status_path})"
    if len(status) >= 3 and status[0] == "exit" and status[1] != "0":
        return f"{label}: failed, dpbo k1sweep exited {status[1]} (job {status[2]}; see its log)"
    if not (len(status) >= 3 and status[0] == "exit"):
        return (f"{label}: did not finish ({status_path}: '{' '.join(status)}'; killed, timed "
                "out, or still running?)")
    if not os.path.isfile(h5_path):
        return f"{label}: exited 0 but left no {h5_path}"
    try:
        with h5py.File(h5_path, "r") as f:
            if text(f.attrs.get("command", "")) != "k1sweep":
                return f"{label}: {h5_path} is not a dpbo k1sweep file"
            for key, value in t.overrides:
                stored = f.attrs.get("config." + key)
                if stored is None or text(stored) != value:
                    return (f"{label}: {h5_path} was made with {key} = "
                            f"{'(unset)' if stored is None else text(stored)}, the list says {value}")
    except OSError as e:
        return f"{label}: cannot read {h5_path}: {e}"
    return None


def summary_rows(t, meta, sizes):
    """The summary's rows of one task: one per size m (sizes as plot_k1_sweep.read gives them)."""
    import numpy as np
    nan = float("nan")
    rows = []
    for s in sizes:
        gof, pipe = s.get("gof", False), s.get("pipeline", False)
        boot = gof and s["B"] > 0
        rows.append((t.name, meta["mode"], meta["neighbour"], meta["models"], meta["sets"], s["m"],
                     s["k1_mle"], s["k1_lo"], s["k1_hi"],
                     s["boot_k1_lo"] if boot else nan, s["boot_k1_hi"] if boot else nan,
                     s["c_mle"], s["ks"] if gof else nan, s["ks_p"] if gof else nan,
                     s["rate"] if gof else nan, s["delta"],
                     s["pipe_slack"] if pipe else nan, s["pipe_viol"] if pipe else -1,
                     s["s2t"] if gof else nan, s["max_z"] if gof else nan, s["sigma_n"], s["s"],
                     s["bound"] if gof else nan,
                     float(np.median(s["max_diff"])) if gof else nan,
                     float(np.max(s["max_diff"])) if gof else nan))
    return rows


SUMMARY = [("task", "S64"), ("mode", "S16"), ("neighbour", "S32"), ("models", "i8"), ("sets", "i8"),
           ("m", "i8"), ("k1_mle", "f8"), ("k1_lo", "f8"), ("k1_hi", "f8"),
           ("bootstrap_k1_lo", "f8"), ("bootstrap_k1_hi", "f8"), ("c_mle", "f8"),
           ("ks_statistic", "f8"), ("ks_pvalue", "f8"), ("exceedance_rate", "f8"), ("delta", "f8"),
           ("pipeline_slack", "f8"), ("pipeline_violations", "i8"),
           ("s2_one_minus_k1", "f8"), ("max_abs_z", "f8"), ("sigma_n", "f8"), ("s", "f8"),
           ("bound_at_delta", "f8"), ("max_diff_median", "f8"), ("max_diff_max", "f8")]


CROSS = [("adversarial_task", "S64"), ("random_task", "S64"), ("m", "i8"),
         ("random_bound_at_delta", "f8"), ("adversarial_bound_at_delta", "f8"),
         ("adversarial_max_diff_median", "f8"), ("adversarial_max_diff_max", "f8"),
         ("rate_above_random_bound", "f8"), ("delta", "f8")]


def cross_rows(read):
    """Do the worst-case neighbours stay within the bound fitted on random ones? For each
    task NAME ending in "-adversarial" whose list also has the task with "-add_remove" in its
    place (same data, model and settings otherwise), per m both have: the s c at delta of the
    random task's fit against max_lambda |F_V - F_V'| of the adversarial pairs, and the
    fraction of those pairs above it. (Each task's own exceedance rate compares its pairs with
    its own fit, which the adversarial pairs were part of.)"""
    import numpy as np
    rows = []
    for name, (_, sizes) in read.items():
        if not name.endswith("-adversarial"):
            continue
        base = name[: -len("adversarial")] + "add_remove"
        if base not in read:
            continue
        random = {s["m"]: s for s in read[base][1] if s["gof"]}
        for s in sizes:
            r = random.get(s["m"])
            if not s["gof"] or r is None:
                continue
            d = s["max_diff"]
            rows.append((name, base, s["m"], r["bound"], s["bound"], float(np.median(d)),
                         float(np.max(d)), float(np.mean(d > r["bound"])), r["delta"]))
    return rows


def markdown(path, rows, cross):
    head = ("| task | data mode | neighbour | models | sets | m | MLE k1 | 95% LR interval"
            " | bootstrap 95% interval | c at MLE | s²(1 − k1) | σn | KS D | KS p | max abs z"
            " | max abs(F_V − F_V′): median, max | s c | exceedance rate at delta"
            " | pipeline slack | violations |")
    out = [f"# k1 atlas: {os.path.basename(path)}", "", head, "|---|---|---|---:|---:|---:|---:|---|---|"
           "---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|"]
    for r in rows:
        boot = "-" if r[9] != r[9] else f"[{r[9]:.6f}, {r[10]:.6f}]"
        out.append(f"| {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} | {r[5]} | {r[6]:.6f}"
                   f" | [{r[7]:.6f}, {r[8]:.6f}] | {boot} | {r[11]:.4g} | {r[18]:.3g} | {r[20]:.2g}"
                   f" | {r[12]:.4g} | {r[13]:.3g} | {r[19]:.3g} | {r[23]:.3g}, {r[24]:.3g} | {r[22]:.3g}"
                   f" | {r[14]:.3g} (delta {r[15]:g}) | {r[16]:.3g} | {r[17] if r[17] >= 0 else '-'} |")
    out += ["", "Per task and validation-set size m: the MLE of k1 with its likelihood-ratio "
            "interval and the bootstrap percentile interval over the pairs; c of Algorithm 1 at "
            "the MLE; the scale-free s^2 (1 - k1) and the fitted white-noise std sigma_n; the "
            "Kolmogorov-Smirnov test of the residuals of F_V' given F_V against N(0, 1) and the "
            "largest |z|; max over lambda of |F_V - F_V'| (median and largest over the pairs) "
            "against s c at delta and the fraction of pairs above it; the pipeline's "
            "slack Delta_lambda / max |mu_T - mu'_T| and its violations. The figures of each "
            "task: <atlas>/<task>.k1.png and .k1.gof.png (analysis/plot_k1_sweep.py); all tasks "
            "side by side: <atlas>.png."]
    if cross:
        out += ["", "Adversarial neighbours against the bound fitted on random add/remove ones "
                "(same data, model and m):", "",
                "| adversarial task | random task | m | s c (random fit) | s c (own fit) | "
                "max abs(F_V − F_V′) of the adversarial pairs: median, max | fraction above "
                "the random fit's s c |", "|---|---|---:|---:|---:|---|---:|"]
        for c in cross:
            out.append(f"| {c[0]} | {c[1]} | {c[2]} | {c[3]:.3g} | {c[4]:.3g} | {c[5]:.3g}, "
                       f"{c[6]:.3g} | {c[7]:.3g} (delta {c[8]:g}) |")
    return "\n".join(out) + "\n"


def overview(rows, png):
    """All tasks side by side against m (results/<atlas>.png): the scale-free size of the
    V/V' difference the fit attributes to the tasks, s sqrt(2 (1 - k1)), next to 1/m (what
    one record can move an accuracy by); the residuals' KS p-value; the exceedance rate at
    delta; the pipeline's slack. One line per task: colour by task in list order, marker by
    neighbour kind."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    names = list(dict.fromkeys(r[0] for r in rows))
    markers = {"add_remove": "o", "swap": "s", "adversarial": "^"}
    cmap = plt.get_cmap("tab20")
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    (spread, ks), (exc, slack) = axes
    ms = sorted({int(r[5]) for r in rows})
    spread.plot(ms, [1.0 / m for m in ms], "k--", lw=1, label="1/m")
    for i, name in enumerate(names):
        mine = [r for r in rows if r[0] == name]
        m = np.array([r[5] for r in mine], float)
        style = dict(color=cmap(i % 20), marker=markers.get(mine[0][2], "x"), ms=4, lw=1)
        spread.plot(m, [np.sqrt(2.0 * r[18]) for r in mine], label=name, **style)
        ks.plot(m, [r[13] for r in mine], **style)
        exc.plot(m, [r[14] for r in mine], **style)
        slack.plot(m, [r[16] for r in mine], **style)
    delta = rows[0][15]
    spread.set(xscale="log", yscale="log", xlabel="m (validation rows)",
               ylabel="s sqrt(2 (1 - k1)) at the MLE",
               title="Fitted std of f_V - f_V' (latent) against 1/m")
    ks.axhline(0.05, color="k", ls="--", lw=1)
    ks.set(xscale="log", yscale="log", xlabel="m", ylabel="KS p-value",
           title="Residuals of F_V' given F_V against N(0, 1)")
    exc.axhline(delta, color="k", ls="--", lw=1)
    exc.set(xscale="log", xlabel="m", ylabel=f"fraction of pairs above s c (delta = {delta:g})",
            title="max |F_V - F_V'| above the proof's s c", ylim=(-0.02, 1.02))
    slack.axhline(1.0, color="k", ls="--", lw=1)
    slack.set(xscale="log", yscale="log", xlabel="m", ylabel="Delta_lambda / max |mu_T - mu'_T|",
              title="GP-UCB pipeline: slack of the release's bound (< 1: violated)")
    fig.legend(*spread.get_legend_handles_labels(), loc="center right", fontsize=7)
    fig.tight_layout(rect=(0, 0, 0.8, 1))
    fig.savefig(png, dpi=110)
    plt.close(fig)


def cmd_gather(path, results="results"):
    import h5py
    import numpy as np
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import plot_k1_sweep as plot

    tasks = parse(path)
    out = task_dir(path, results)
    problems = [p for p in (task_problem(t, out, h5py) for t in tasks) if p]
    if problems:
        for p in problems:
            print(f"atlas gather: {p}", file=sys.stderr)
        print(f"atlas gather: {len(problems)} of {len(tasks)} tasks of {path} cannot be gathered; "
              f"nothing written (rerun those tasks: sbatch --array=<their indices> ...)", file=sys.stderr)
        return 3

    final = os.path.join(results, atlas_name(path) + ".h5")
    md_path = os.path.join(results, atlas_name(path) + ".md")
    png_path = os.path.join(results, atlas_name(path) + ".png")
    rows, read = [], {}
    for t in tasks:
        h5_path = os.path.join(out, t.name + ".h5")
        png = os.path.join(out, t.name + ".k1.png")
        done = subprocess.run([sys.executable, os.path.join(here, "plot_k1_sweep.py"), h5_path,
                               "-o", png], stdout=subprocess.DEVNULL)
        if done.returncode != 0:
            print(f"atlas gather: task {t.index} '{t.name}': analysis/plot_k1_sweep.py {h5_path} "
                  f"exited {done.returncode}; nothing written", file=sys.stderr)
            return 3
        read[t.name] = plot.read(h5_path)
        rows += summary_rows(t, *read[t.name])
    cross = cross_rows(read)

    tmp = f"{final}.tmp.{os.getpid()}"
    try:
        with h5py.File(tmp, "w") as f:
            f.attrs["command"] = "atlas"
            f.attrs["task_list"] = os.path.abspath(path)
            f.attrs["tasks"] = len(tasks)
            f.attrs["note"] = ("one group per task of the list: a copy of the task's dpbo k1sweep "
                               "file (its root attributes on the group, with task.* = the task's "
                               "line); /summary: one row per task and size m")
            for t in tasks:
                src_path = os.path.join(out, t.name + ".h5")
                g = f.create_group(t.name)
                with h5py.File(src_path, "r") as src:
                    for key, value in src.attrs.items():
                        g.attrs[key] = value
                    for name in src:
                        src.copy(src[name], g, name=name)
                g.attrs["task.index"] = t.index
                g.attrs["task.line"] = t.line
                g.attrs["task.config"] = t.config
                g.attrs["task.file"] = os.path.abspath(src_path)
                for key, value in t.overrides:
                    g.attrs["task.set." + key] = value
                with open(os.path.join(out, t.name + ".status"), encoding="utf-8") as s:
                    g.attrs["task.status"] = s.read().strip()
            f.create_dataset("summary", data=np.array(rows, dtype=SUMMARY))
            f.create_dataset("cross", data=np.array(cross, dtype=CROSS))
        with open(md_path + ".tmp", "w", encoding="utf-8") as m:
            m.write(markdown(path, rows, cross))
        overview(rows, png_path + ".tmp.png")
        os.replace(png_path + ".tmp.png", png_path)
        os.replace(md_path + ".tmp", md_path)
        os.replace(tmp, final)
    finally:
        for leftover in (tmp, md_path + ".tmp", png_path + ".tmp.png"):
            if os.path.exists(leftover):
                os.unlink(leftover)
    print(markdown(path, rows, cross), end="")
    print(f"atlas gather: wrote {final} ({len(tasks)} tasks), {md_path}, {png_path} and the "
          f"figures in {out}/")
    return 0


def main(argv):
    usage = "usage: atlas.py check LIST | task LIST INDEX | gather LIST"
    try:
        if len(argv) == 2 and argv[0] == "check":
            print(len(parse(argv[1])))
            return 0
        if len(argv) == 3 and argv[0] == "task":
            cmd_task(argv[1], argv[2])
            return 0
        if len(argv) == 2 and argv[0] == "gather":
            return cmd_gather(argv[1])
    except ListError as e:
        print(f"atlas: {e}", file=sys.stderr)
        return 2
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
