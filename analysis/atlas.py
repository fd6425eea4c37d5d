#!/usr/bin/python3
"""The k1 atlas: one `dpbo k1sweep` per line of a task list, gathered into one file.

    analysis/atlas.py check LIST          validate the list; print its number of tasks
    analysis/atlas.py task LIST INDEX     the task's name, output folder and dpbo arguments
    analysis/atlas.py run LIST [INDEX ...] [--ranks N]
                                          run tasks (default: all) here, without Slurm
    analysis/atlas.py gather LIST         one HDF5 file, its JSON summary, every figure
    analysis/atlas.py export ATLAS.h5 -o DATA.json
                                          the committed summary of a gathered file
    analysis/atlas.py draw DATA.json --dir DIR [--task-dir TDIR]
    analysis/atlas.py draw DATA.json -o FIG.png [--task NAME]
                                          every figure and table from DATA.json alone
    analysis/atlas.py manifest DATA.json [SUBDIR]
                                          analysis/figures/MANIFEST's lines for them
                                          (per-task figures in SUBDIR, default atlas)

jobs/atlas.sbatch runs the tasks as a Slurm array (SLURM_ARRAY_TASK_ID = INDEX)
and then the gather. Without Slurm, from the repository root (results/ is
relative to the current folder, as for the sbatch script):

    nice -n 10 analysis/atlas.py run configs/atlas-local.list --ranks 2
    analysis/atlas.py gather configs/atlas-local.list

`run` starts `mpiexec -n N --oversubscribe dpbo k1sweep ...` (DPBO_BIN, else
build/dpbo; MPIEXEC, else mpiexec) for each task in turn, writing the status
file the job script writes ("started local-PID", "exit CODE local-PID"); it
goes on after a failed task and exits 3 naming the failed ones (rerun them
with `run LIST INDEX ...`). The list (configs/atlas-*.list) holds one task per line:

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
exceedance at delta (k of n pairs, rate, 95% Clopper-Pearson interval), and
the pipeline's slack; and /cross, the table's
second part: for each task NAME-adversarial whose list also has
NAME-add_remove, the adversarial pairs' max |F_V - F_V'| against the s c of
the random neighbours' fit (does the worst-case neighbour stay within a bound
fitted on random ones?). results/<atlas>.png draws the tasks side by side
against m. Each task's figures
come from analysis/plot_k1_sweep.py (results/<atlas>/<NAME>.k1.png,
.k1.gof.png and .k1.md).

One code path draws: the gather exports the gathered file to a JSON document
(results/<atlas>.json, the same as `export` writes; issue #24: the data the
repository keeps, under 1 MB for configs/atlas-local.list) and draws every
figure and table from that document, as `draw` does from the committed copy.
The document holds per task its list line, command, status, provenance (dpbo
version, config file, config.* and default.* keys, stage times) and pool
accuracies (min, median, max), and per size m what the task's figures need
(analysis/export_k1_sweep.py's record, reduced: the profile's 1 - k1 and
log-likelihood, the MLE's k1, m0, s, sigma_n, length-scale and intervals, 200
quantiles of the residuals for the QQ plot, which its legend says, and every
pair's max |F_V - F_V'| and pipeline difference); /summary's rows, each with
the exceedance count k of n pairs and its 95% Clopper-Pearson interval; and
/cross's, with the same for the adversarial pairs above the random fit's s c.
`draw --dir DIR` writes DIR/<atlas>.png and .md and each task's figures into
DIR/<atlas>/ (or --task-dir); `draw -o FIG.png` the overview and its table
only; `draw --task NAME -o FIG.png` one task's figures (FIG.png, FIG.gof.png,
FIG.md), as analysis/figures/MANIFEST names them.

Bad input (exit 2) names the list file and line.
"""

import datetime
import json
import math
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
    text: str = ""  # the line as written


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
        tasks.append(Task(len(tasks), number, name, config, overrides, text.strip()))
    if not tasks:
        raise ListError(f"{path}: the task list has no tasks")
    return tasks


def task_dir(path, results="results"):
    return os.path.join(results, atlas_name(path))



def task_words(path, t, results="results"):
    """dpbo k1sweep's arguments for task t: its config, its overrides, the atlas's output."""
    out = task_dir(path, results)
    words = [t.config]
    for key, value in t.overrides:
        words += ["--set", f"{key}={value}"]
    return words + ["--set", f"output.dir={out}", "--set", f"output.name={t.name}"]


def cmd_task(path, index_text):
    tasks = parse(path)
    t = tasks[task_index(path, tasks, index_text)]
    # One word per line (a list line has no newline, so neither has a word).
    print("\n".join([t.name, task_dir(path)] + task_words(path, t)))


def task_index(path, tasks, index_text):
    if not re.fullmatch(r"[0-9]+", index_text) or int(index_text) >= len(tasks):
        raise ListError(f"{path}: task index '{index_text}' is not one of the list's tasks "
                        f"(0 to {len(tasks) - 1}; submit with --array=0-{len(tasks) - 1})")
    return int(index_text)


def cmd_run(path, indices, ranks):
    """Runs tasks of the list on this machine, one after the other, each on `ranks` MPI
    ranks, as jobs/atlas.sbatch runs one array task (the same arguments, the same status
    file), so that `gather` takes them as it takes the cluster's. Returns 0 when every task
    exited 0, else 3 (every task is run all the same; the gather names the failed ones)."""
    tasks = parse(path)
    chosen = [task_index(path, tasks, i) for i in indices] if indices else range(len(tasks))
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    binary = os.environ.get("DPBO_BIN") or os.path.join(root, "build", "dpbo")
    if not os.access(binary, os.X_OK):
        raise ListError(f"{path}: no dpbo binary at {binary} (build it, or set DPBO_BIN)")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    out = task_dir(path)
    os.makedirs(out, exist_ok=True)
    job = f"local-{os.getpid()}"
    failed = []
    for i in chosen:
        t = tasks[i]
        status = os.path.join(out, t.name + ".status")

        def status_write(words):
            with open(status + ".tmp", "w", encoding="utf-8") as f:
                f.write(words + "\n")
            os.replace(status + ".tmp", status)

        argv = [os.environ.get("MPIEXEC", "mpiexec"), "-n", str(ranks), "--oversubscribe", binary,
                "k1sweep"] + task_words(path, t)
        print(f"atlas task {i} ({t.name}): {shlex.join(argv)}", flush=True)
        status_write(f"started {job}")
        try:
            code = subprocess.run(argv, env=env, stdin=subprocess.DEVNULL).returncode
        except OSError as e:
            status_write(f"exit 127 {job}")
            raise ListError(f"{path}: task {i} ({t.name}): cannot start {argv[0]}: {e} "
                            "(set MPIEXEC)") from None
        status_write(f"exit {code} {job}")
        if code != 0:
            failed.append(f"{i} ({t.name}: exit {code})")
    if failed:
        print(f"atlas run: {len(failed)} task(s) failed: {', '.join(failed)}; rerun them with "
              f"analysis/atlas.py run {path} INDEX ...", file=sys.stderr)
        return 3
    return 0


# ---------------------------------------------------------------------------
# Gather: which tasks cannot be gathered.


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


# ---------------------------------------------------------------------------
# Binomial intervals.


def binomial_cdf(k, n, p):
    """P(X <= k) for X ~ Binomial(n, p), 0 < p < 1 (sum of the terms in logs)."""
    lp, lq = math.log(p), math.log1p(-p)
    lc = math.lgamma(n + 1)
    return min(1.0, sum(math.exp(lc - math.lgamma(i + 1) - math.lgamma(n - i + 1) + i * lp
                                 + (n - i) * lq) for i in range(k + 1)))


def clopper_pearson(k, n, level=0.95):
    """The exact (Clopper-Pearson) interval [lo, hi] of a binomial proportion from k
    successes in n trials: lo solves P(X >= k | lo) = (1 - level) / 2 (lo = 0 at k = 0), hi
    solves P(X <= k | hi) = (1 - level) / 2 (hi = 1 at k = n); i.e. the beta quantiles
    B((1 - level)/2; k, n - k + 1) and B((1 + level)/2; k + 1, n - k). By bisection on p,
    on which both tails are monotone (no scipy): 0 of 50 gives [0, 0.0711], 2 of 50
    [0.0049, 0.1371]."""
    if not (0 <= k <= n and n > 0):
        raise ValueError(f"clopper_pearson: need 0 <= k <= n, n > 0 (k = {k}, n = {n})")
    alpha = (1.0 - level) / 2.0

    def solve(above):  # the p where above(p) turns from False to True
        a, b = 0.0, 1.0
        for _ in range(64):  # to below 1e-18
            mid = 0.5 * (a + b)
            if above(mid):
                b = mid
            else:
                a = mid
        return 0.5 * (a + b)

    # P(X >= k | p) = 1 - P(X <= k - 1 | p) grows with p; P(X <= k | p) falls.
    lo = 0.0 if k == 0 else solve(lambda p: 1.0 - binomial_cdf(k - 1, n, p) >= alpha)
    hi = 1.0 if k == n else solve(lambda p: binomial_cdf(k, n, p) <= alpha)
    return lo, hi


# ---------------------------------------------------------------------------
# Export: the gathered file's committed summary (one JSON document).

FORMAT = "dpbo k1 atlas data, version 1"
# Per size m, the per-task figures need the profile's 1 - k1 and log-likelihood (not the
# profiled m0, s, sigma_n, length-scale at every grid point: their values at the MLE are
# kept) and quantiles of the residuals for the QQ plot, which the figure's legend names.
CURVE = ("one_minus_k1", "loglik")
Z_QUANTILES = 200
Z_DIGITS = 4


def repo_path(path):
    """path relative to this repository when it lies inside it (the data file names no
    machine's folders), else unchanged."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    full = os.path.abspath(path)
    return os.path.relpath(full, root) if full.startswith(root + os.sep) else path


def optional(s, key):
    return s[key] if key in s else None


def summary_record(name, meta, s):
    """The summary row (a dict) of one task and size m, from plot_k1_sweep's reading of the
    task (its HDF5 group, or the exported document: the same keys)."""
    import numpy as np
    gof, pipe = s.get("gof", False), s.get("pipeline", False)
    boot = gof and s["B"] > 0
    row = {"task": name, "mode": meta["mode"], "neighbour": meta["neighbour"],
           "models": meta["models"], "sets": meta["sets"], "m": s["m"],
           "k1_mle": s["k1_mle"], "one_minus_k1_mle": s["t_mle"], "k1_lo": s["k1_lo"],
           "k1_hi": s["k1_hi"], "boundary": s["boundary"],
           "bootstrap_B": s["B"] if gof else 0,
           "bootstrap_k1_lo": s["boot_k1_lo"] if boot else None,
           "bootstrap_k1_hi": s["boot_k1_hi"] if boot else None,
           "c_mle": s["c_mle"], "m0": s["m0"], "s": s["s"], "sigma_n": s["sigma_n"],
           "lengthscale": s["lengthscale"],
           "s2_one_minus_k1": s["s2t"] if gof else None,
           "bootstrap_s2_one_minus_k1_lo": optional(s, "s2_one_minus_k1_lo") if boot else None,
           "bootstrap_s2_one_minus_k1_hi": optional(s, "s2_one_minus_k1_hi") if boot else None,
           "ks_statistic": s["ks"] if gof else None, "ks_pvalue": s["ks_p"] if gof else None,
           "max_abs_z": s["max_z"] if gof else None, "delta": s["delta"],
           "bound_at_delta": s["bound"] if gof else None,
           "max_diff_median": None, "max_diff_max": None,
           "exceedance_count": None, "pairs": None, "exceedance_rate": None,
           "exceedance_lo": None, "exceedance_hi": None,
           "pipeline_slack": s["pipe_slack"] if pipe else None,
           "pipeline_violations": s["pipe_viol"] if pipe else None,
           "pipeline_pairs": len(s["pipe_diff"]) if pipe else None}
    if gof:
        d = np.asarray(s["max_diff"], dtype=float)
        k = int(np.count_nonzero(d > s["bound"]))  # as k1gof.c counts: max_diff > bound
        lo, hi = clopper_pearson(k, d.size)
        row.update({"max_diff_median": float(np.median(d)), "max_diff_max": float(np.max(d)),
                    "exceedance_count": k, "pairs": int(d.size), "exceedance_rate": s["rate"],
                    "exceedance_lo": lo, "exceedance_hi": hi})
    return row


def cross_records(read):
    """Do the worst-case neighbours stay within the bound fitted on random ones? For each
    task NAME ending in "-adversarial" whose list also has the task with "-add_remove" in its
    place (same data, model and settings otherwise), per m both have: the s c at delta of the
    random task's fit against max_lambda |F_V - F_V'| of the adversarial pairs, and how many
    of those pairs lie above it (k of n, 95% Clopper-Pearson interval). (Each task's own
    exceedance rate compares its pairs with its own fit, which the adversarial pairs were
    part of.) read: {name: (meta, sizes)} in list order."""
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
            d = np.asarray(s["max_diff"], dtype=float)
            k = int(np.count_nonzero(d > r["bound"]))
            lo, hi = clopper_pearson(k, d.size)
            rows.append({"adversarial_task": name, "random_task": base, "m": s["m"],
                         "random_bound_at_delta": r["bound"], "adversarial_bound_at_delta": s["bound"],
                         "adversarial_max_diff_median": float(np.median(d)),
                         "adversarial_max_diff_max": float(np.max(d)), "count_above": k,
                         "pairs": int(d.size), "rate_above_random_bound": k / d.size,
                         "rate_lo": lo, "rate_hi": hi, "delta": r["delta"]})
    return rows


def export_doc(f, source, here):
    """The committed summary of a gathered atlas file f (open, h5py), written from source:
    per task its settings, command and provenance, pool accuracies, and per size m the
    figure's data (export_k1_sweep.size_record, reduced: CURVE, Z_QUANTILES); the summary
    table's rows and /cross, computed from those records (what draw() reads)."""
    import numpy as np
    sys.path.insert(0, here)
    import export_k1_sweep as export
    import plot_k1_sweep as plot

    if text(f.attrs.get("command", "")) != "atlas":
        raise ListError(f"{source}: not a gathered atlas file (attribute command != atlas; "
                        "analysis/atlas.py gather LIST writes one)")
    names = sorted((k for k in f if "task.index" in f[k].attrs),
                   key=lambda k: int(f[k].attrs["task.index"]))
    if not names:
        raise ListError(f"{source}: no task groups")
    list_path = text(f.attrs.get("task_list", ""))
    tasks, read, versions = [], {}, set()
    for name in names:
        g = f[name]
        a = g.attrs
        try:
            meta, sizes = plot.read_group(g)
        except KeyError as e:
            raise ListError(f"{source}: task '{name}': not a whole k1sweep file ({e})") from None
        overrides = {k[len("task.set."):]: text(v) for k, v in a.items() if k.startswith("task.set.")}
        command = text(a["task.command"]) if "task.command" in a else None
        if command is None:  # gathered before the command was stored: rebuilt from the line
            command = f"dpbo k1sweep {repo_path(text(a['task.config']))}" + "".join(
                f" --set {shlex.quote(f'{k}={v}')}" for k, v in overrides.items())
        command = f"mpiexec -n {int(a['ranks'])} {command}"
        prov = export.provenance(text(a.get("task.file", name + ".h5")), command, g)
        for key in ("exported_by", "exported_at", "commit_at_export"):
            prov.pop(key, None)  # the document's, once
        prov["config_file"] = repo_path(prov.get("config_file", ""))
        versions.add(str(prov.get("dpbo_version", "?")))
        step = export.k1_step(prov)
        records = [export.size_record(s, step, curve=CURVE, z_quantiles=Z_QUANTILES,
                                      z_digits=Z_DIGITS, columns=True) for s in sizes]
        pool = g["models/pool_accuracy"][()] if "models/pool_accuracy" in g else np.array([])
        task = {"name": name, "index": int(a["task.index"]), "line": int(a["task.line"]),
                "list_line": text(a["task.list_line"]) if "task.list_line" in a else None,
                "config": repo_path(text(a["task.config"])), "overrides": overrides,
                "status": text(a.get("task.status", "")), "command": command,
                "pool_accuracy": ({"models": int(pool.size), "min": float(pool.min()),
                                   "median": float(np.median(pool)), "max": float(pool.max())}
                                  if pool.size else None),
                "meta": export.plain(meta), "provenance": prov, "sizes": records}
        tasks.append(task)
        # The table is computed from the records as stored, as draw() reads them.
        read[name] = plot.from_doc(json.loads(json.dumps(task)))
    summary = [summary_record(name, read[name][0], s) for name in names for s in read[name][1]]
    return export.plain({
        "format": FORMAT,
        "provenance": {
            "atlas": atlas_name(list_path) if list_path else os.path.splitext(os.path.basename(source))[0],
            "task_list": repo_path(list_path),
            "tasks": len(names),
            "gathered_file": os.path.basename(source),
            "dpbo_versions": sorted(versions),
            "exported_by": "analysis/atlas.py export",
            "exported_at": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "commit_at_export": export.git_commit(here),
            "reductions": (f"per size m: the profile's 1 - k1 and log-likelihood on the grid (k1 = 1 - that) "
                           f"(m0, s, sigma_n, length-scale at the MLE only); {Z_QUANTILES} quantiles "
                           f"of the residuals z, to {Z_DIGITS} significant digits, for the QQ plot "
                           "(z_count: how many; z_min, z_max, max_z exact); every pair's "
                           "max |F_V - F_V'| and pipeline difference exact"),
            "exceedance_interval": "95% Clopper-Pearson (exact binomial) interval of k of n pairs",
        },
        "summary": summary,
        "cross": cross_records(read),
        "tasks": tasks,
    })


def dump(doc):
    """JSON with one short value a line: a summary row, a column of a curve, the pairs of a
    size, so that diffs read by row."""
    def scalar(v):
        return not isinstance(v, (dict, list))

    def render(value, pad, row=False):
        flat = json.dumps(value)
        if (scalar(value) or len(flat) <= 100 or (isinstance(value, list) and all(map(scalar, value)))
                or (row and isinstance(value, dict) and all(map(scalar, value.values())))):
            return flat
        inner = pad + "  "
        if isinstance(value, dict):
            items = [f"{inner}{json.dumps(k)}: {render(v, inner)}" for k, v in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + pad + "}"
        return "[\n" + ",\n".join(inner + render(v, inner, True) for v in value) + "\n" + pad + "]"

    return render(doc, "") + "\n"


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        raise ListError(f"{path}: cannot read the atlas data file: {e}") from None
    if doc.get("format") != FORMAT:
        raise ListError(f"{path}: not an atlas data file (format '{doc.get('format')}', expected "
                        f"'{FORMAT}'; analysis/atlas.py export writes one)")
    return doc


def write_text(path, body):
    """path through a temporary name: never half written."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    tmp = f"{path}.tmp.{os.getpid()}"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(body)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def cmd_export(source, output):
    import h5py
    try:
        with h5py.File(source, "r") as f:
            doc = export_doc(f, source, os.path.dirname(os.path.abspath(__file__)))
    except OSError as e:
        raise ListError(f"{source}: cannot read the gathered atlas file: {e}") from None
    body = dump(doc)
    write_text(output, body)
    print(f"atlas export: wrote {output} ({len(body)} bytes, {len(doc['tasks'])} tasks, "
          f"{len(doc['summary'])} summary rows, {len(doc['cross'])} cross rows)")
    return 0


# ---------------------------------------------------------------------------
# Drawing: every figure and table from the exported document alone.


def fmt(value, spec):
    return "-" if value is None else format(value, spec)


def exceedance(k, n, lo, hi):
    return "-" if k is None else f"{k}/{n} [{lo:.3f}, {hi:.3f}]"


def markdown(doc):
    rows, cross = doc["summary"], doc["cross"]
    prov = doc["provenance"]
    delta = rows[0]["delta"]
    head = ("| task | data mode | neighbour | models | sets | m | MLE k1 | 95% LR interval"
            " | bootstrap 95% interval (B) | c at MLE | m0 | s | σn | length-scale | s²(1 − k1)"
            " | KS D | KS p | max abs z | max abs(F_V − F_V′): median, max | s c"
            f" | pairs above s c at δ = {delta:g}: k/n [95% CP] | pipeline slack | violations |")
    out = [f"# k1 atlas: {prov['atlas']}", "",
           f"Drawn from `{prov['gathered_file']}` by analysis/atlas.py (task list "
           f"`{prov['task_list']}`, dpbo {', '.join(prov['dpbo_versions'])}).", "", head,
           "|---|---|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:"
           "|---|---:|---|---:|---:|"]
    for r in rows:
        boot = ("-" if r["bootstrap_k1_lo"] is None else
                f"[{r['bootstrap_k1_lo']:.6f}, {r['bootstrap_k1_hi']:.6f}] ({r['bootstrap_B']})")
        spread = ("-" if r["max_diff_median"] is None else
                  f"{r['max_diff_median']:.3g}, {r['max_diff_max']:.3g}")
        viol = "-" if r["pipeline_violations"] is None else \
            f"{r['pipeline_violations']} of {r['pipeline_pairs']}"
        out.append(
            f"| {r['task']} | {r['mode']} | {r['neighbour']} | {r['models']} | {r['sets']} | {r['m']}"
            f" | {r['k1_mle']:.6f} | [{r['k1_lo']:.6f}, {r['k1_hi']:.6f}] | {boot}"
            f" | {r['c_mle']:.4g} | {r['m0']:.3f} | {r['s']:.3g} | {r['sigma_n']:.2g}"
            f" | {r['lengthscale']:.3g} | {fmt(r['s2_one_minus_k1'], '.3g')}"
            f" | {fmt(r['ks_statistic'], '.4g')} | {fmt(r['ks_pvalue'], '.3g')}"
            f" | {fmt(r['max_abs_z'], '.3g')} | {spread} | {fmt(r['bound_at_delta'], '.3g')}"
            f" | {exceedance(r['exceedance_count'], r['pairs'], r['exceedance_lo'], r['exceedance_hi'])}"
            f" | {fmt(r['pipeline_slack'], '.3g')} | {viol} |")
    out += ["", "Per task and validation-set size m: the MLE of k1 with its likelihood-ratio "
            "interval and the bootstrap percentile interval over the pairs (B refits); c of "
            "Algorithm 1 at the MLE; the profiled mean m0, scale s, white-noise std σn and "
            "length-scale at the MLE; the scale-free s²(1 − k1); the Kolmogorov-Smirnov test "
            "of the residuals of F_V′ given F_V against N(0, 1) and the largest |z|; max over "
            "λ of |F_V − F_V′| (median and largest over the pairs) against s c at δ, and how "
            "many pairs lie above it: k of n with the 95% Clopper-Pearson interval of the "
            "rate; the pipeline's slack Δ_λ / max |μ_T − μ′_T| and its violations. The "
            "figures of each task: atlas/<task>.k1.png and .k1.gof.png; all tasks side by "
            "side: the .png next to this table."]
    if cross:
        out += ["", "Adversarial neighbours against the bound fitted on random add/remove ones "
                "(same data, model and m):", "",
                "| adversarial task | random task | m | s c (random fit) | s c (own fit) | "
                "max abs(F_V − F_V′) of the adversarial pairs: median, max | pairs above "
                "the random fit's s c: k/n [95% CP] |", "|---|---|---:|---:|---:|---|---|"]
        for c in cross:
            out.append(f"| {c['adversarial_task']} | {c['random_task']} | {c['m']}"
                       f" | {c['random_bound_at_delta']:.3g} | {c['adversarial_bound_at_delta']:.3g}"
                       f" | {c['adversarial_max_diff_median']:.3g}, {c['adversarial_max_diff_max']:.3g}"
                       f" | {exceedance(c['count_above'], c['pairs'], c['rate_lo'], c['rate_hi'])} |")
    out += ["", "Pool accuracies of each task's models (the accuracy of every trained model "
            "on the whole validation pool):", "",
            "| task | models | min | median | max | command |", "|---|---:|---:|---:|---:|---|"]
    for t in doc["tasks"]:
        p = t["pool_accuracy"]
        acc = "- | - | - | -" if p is None else \
            f"{p['models']} | {p['min']:.4f} | {p['median']:.4f} | {p['max']:.4f}"
        out.append(f"| {t['name']} | {acc} | `{t['command']}` |")
    return "\n".join(out) + "\n"


def overview(doc, png):
    """All tasks side by side against m: the scale-free size of the V/V' difference the fit
    attributes to the tasks, s sqrt(2 (1 - k1)), next to 1/m (what one record can move an
    accuracy by); the residuals' KS p-value; the exceedance rate at delta with its 95%
    Clopper-Pearson interval; the pipeline's slack. One line per task: colour by task in
    list order, marker by neighbour kind."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np
    rows = doc["summary"]

    def col(mine, key):
        return np.array([np.nan if r[key] is None else r[key] for r in mine], float)

    names = list(dict.fromkeys(r["task"] for r in rows))
    markers = {"add_remove": "o", "swap": "s", "adversarial": "^"}
    cmap = plt.get_cmap("tab20")
    fig, axes = plt.subplots(2, 2, figsize=(12, 9))
    (spread, ks), (exc, slack) = axes
    ms = sorted({int(r["m"]) for r in rows})
    spread.plot(ms, [1.0 / m for m in ms], "k--", lw=1, label="1/m")
    for i, name in enumerate(names):
        mine = [r for r in rows if r["task"] == name]
        m = col(mine, "m")
        style = dict(color=cmap(i % 20), marker=markers.get(mine[0]["neighbour"], "x"), ms=4, lw=1)
        spread.plot(m, np.sqrt(2.0 * col(mine, "s2_one_minus_k1")), label=name, **style)
        ks.plot(m, col(mine, "ks_pvalue"), **style)
        # A small shift per task keeps the intervals of tasks at the same m apart.
        shift = m * (1.0 + 0.012 * (i - len(names) / 2.0) / max(1, len(names)))
        rate = col(mine, "exceedance_rate")
        err = np.abs(np.vstack([rate - col(mine, "exceedance_lo"), col(mine, "exceedance_hi") - rate]))
        exc.errorbar(shift, rate, yerr=err, capsize=2, elinewidth=0.8, **style)
        slack.plot(m, col(mine, "pipeline_slack"), **style)
    delta = rows[0]["delta"]
    spread.set(xscale="log", yscale="log", xlabel="m (validation rows)",
               ylabel="s sqrt(2 (1 - k1)) at the MLE",
               title="Fitted std of f_V - f_V' (latent) against 1/m")
    ks.axhline(0.05, color="k", ls="--", lw=1)
    ks.set(xscale="log", yscale="log", xlabel="m", ylabel="KS p-value",
           title="Residuals of F_V' given F_V against N(0, 1)")
    exc.axhline(delta, color="k", ls="--", lw=1)
    exc.set(xscale="log", xlabel="m", ylabel=f"fraction of pairs above s c (delta = {delta:g})",
            title="pairs above s c (bars: 95% Clopper-Pearson)", ylim=(-0.02, 1.02))
    exc.set_xticks(ms, [str(m) for m in ms])
    exc.minorticks_off()
    slack.axhline(1.0, color="k", ls="--", lw=1)
    slack.set(xscale="log", yscale="log", xlabel="m", ylabel="Delta_lambda / max |mu_T - mu'_T|",
              title="GP-UCB pipeline: slack of the release's bound (< 1: violated)")
    fig.legend(*spread.get_legend_handles_labels(), loc="center right", fontsize=7)
    fig.tight_layout(rect=(0, 0, 0.8, 1))
    fig.savefig(png, dpi=110)
    plt.close(fig)


def small_png(path):
    """Store a drawn figure with a 64-colour palette: the atlas's 39 figures take about
    1.5 MB so, 5 MB as matplotlib writes them (line plots lose nothing visible). Left as
    drawn when PIL (Debian's python3-pil, which matplotlib needs) cannot be imported."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as im:
        small = im.convert("RGB").quantize(colors=64)
    small.save(path, optimize=True)


def draw_task(task, png, source):
    """One task's figures (png, .gof.png) and tables (.md) through plot_k1_sweep.draw."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, here)
    import plot_k1_sweep as plot
    meta, sizes = plot.from_doc(task)
    plot.draw(meta, sizes, png, source=f"{source}, task {task['name']}")
    for figure in (png, os.path.splitext(png)[0] + ".gof.png"):
        if os.path.exists(figure):
            small_png(figure)


def draw(doc, source, overview_png=None, task_dir=None, only_task=None, task_png=None):
    """Every figure and table from the exported document: the overview (overview_png and
    its .md), and each task's (task_dir/<task>.k1.png, .k1.gof.png, .k1.md); or one task's
    only (only_task into task_png). Returns the paths written."""
    written = []
    if only_task is not None:
        tasks = [t for t in doc["tasks"] if t["name"] == only_task]
        if not tasks:
            raise ListError(f"{source}: no task '{only_task}' (tasks: "
                            f"{', '.join(t['name'] for t in doc['tasks'])})")
        os.makedirs(os.path.dirname(os.path.abspath(task_png)), exist_ok=True)
        draw_task(tasks[0], task_png, source)
        return [task_png]
    if overview_png:
        md = os.path.splitext(overview_png)[0] + ".md"
        write_text(md, markdown(doc))
        tmp = f"{overview_png}.tmp.{os.getpid()}.png"
        try:
            overview(doc, tmp)
            small_png(tmp)
            os.replace(tmp, overview_png)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
        written += [overview_png, md]
    if task_dir:
        os.makedirs(task_dir, exist_ok=True)
        for t in doc["tasks"]:
            png = os.path.join(task_dir, t["name"] + ".k1.png")
            draw_task(t, png, source)
            written.append(png)
    return written


def cmd_draw(args):
    """draw JSON [--dir DIR] [--task-dir TDIR] | draw JSON -o FIG.png | draw JSON --task NAME -o FIG.png"""
    import argparse
    ap = argparse.ArgumentParser(prog="atlas.py draw")
    ap.add_argument("data")
    ap.add_argument("--dir", help="the overview <atlas>.png and <atlas>.md into DIR, and each "
                    "task's figures into DIR/<atlas>/ (or --task-dir)")
    ap.add_argument("--task-dir", help="each task's figures into TASK_DIR")
    ap.add_argument("--task", help="draw only this task's figures, into -o")
    ap.add_argument("-o", "--output", help="the overview figure (or --task's) to write")
    a = ap.parse_args(args)
    if bool(a.dir) == bool(a.output) or (a.task and not a.output) or (a.task_dir and not a.dir):
        ap.error("give --dir DIR [--task-dir TDIR], or -o FIG.png [--task NAME]")
    doc = load(a.data)
    source = os.path.basename(a.data)
    if a.task:
        written = draw(doc, source, only_task=a.task, task_png=a.output)
    elif a.output:
        written = draw(doc, source, overview_png=a.output)
    else:
        name = doc["provenance"]["atlas"]
        written = draw(doc, source, overview_png=os.path.join(a.dir, name + ".png"),
                       task_dir=a.task_dir or os.path.join(a.dir, name))
    print(f"atlas draw: {len(written)} figures and tables from {a.data}, e.g. {written[0]}")
    return 0


def cmd_manifest(data, sub):
    """analysis/figures/MANIFEST's lines for the figures `draw DATA --dir analysis/figures
    --task-dir analysis/figures/SUB` writes: every line names that one command, with {dir}
    for analysis/figures, so that scripts/check-figures.py draws them all in one run."""
    doc = load(data)
    name = doc["provenance"]["atlas"]
    head = f"{data} | analysis/atlas.py draw {data} --dir {{dir}} --task-dir {{dir}}/{sub}"
    print(f"{name}.png | {head}")
    for t in doc["tasks"]:
        task = t["name"]
        print(f"{sub}/{task}.k1.png | {head}")
        print(f"{sub}/{task}.k1.gof.png | {head}")
    return 0


# ---------------------------------------------------------------------------
# Gather = copy the tasks' files into one, export, draw from the export.


SUMMARY = [("task", "S64"), ("mode", "S16"), ("neighbour", "S32"), ("models", "i8"), ("sets", "i8"),
           ("m", "i8"), ("k1_mle", "f8"), ("k1_lo", "f8"), ("k1_hi", "f8"),
           ("bootstrap_k1_lo", "f8"), ("bootstrap_k1_hi", "f8"), ("c_mle", "f8"),
           ("ks_statistic", "f8"), ("ks_pvalue", "f8"), ("exceedance_rate", "f8"), ("delta", "f8"),
           ("pipeline_slack", "f8"), ("pipeline_violations", "i8"),
           ("s2_one_minus_k1", "f8"), ("max_abs_z", "f8"), ("sigma_n", "f8"), ("s", "f8"),
           ("bound_at_delta", "f8"), ("max_diff_median", "f8"), ("max_diff_max", "f8"),
           ("m0", "f8"), ("lengthscale", "f8"), ("bootstrap_B", "i8"), ("exceedance_count", "i8"),
           ("pairs", "i8"), ("exceedance_lo", "f8"), ("exceedance_hi", "f8")]


CROSS = [("adversarial_task", "S64"), ("random_task", "S64"), ("m", "i8"),
         ("random_bound_at_delta", "f8"), ("adversarial_bound_at_delta", "f8"),
         ("adversarial_max_diff_median", "f8"), ("adversarial_max_diff_max", "f8"),
         ("rate_above_random_bound", "f8"), ("delta", "f8"), ("count_above", "i8"),
         ("pairs", "i8"), ("rate_lo", "f8"), ("rate_hi", "f8")]


def table(records, dtype):
    """Rows of dicts as a structured array (None: NaN, or -1 in an integer column)."""
    import numpy as np

    def cell(value, kind):
        if value is None:
            return -1 if kind == "i8" else float("nan")
        return value.encode() if kind.startswith("S") else value

    return np.array([tuple(cell(r[name], kind) for name, kind in dtype) for r in records],
                    dtype=dtype)


def cmd_gather(path, results="results"):
    import h5py
    here = os.path.dirname(os.path.abspath(__file__))

    tasks = parse(path)
    out = task_dir(path, results)
    problems = [p for p in (task_problem(t, out, h5py) for t in tasks) if p]
    if problems:
        for p in problems:
            print(f"atlas gather: {p}", file=sys.stderr)
        print(f"atlas gather: {len(problems)} of {len(tasks)} tasks of {path} cannot be gathered; "
              f"nothing written (rerun those tasks: sbatch --array=<their indices> ..., or "
              f"analysis/atlas.py run {path} <their indices>)", file=sys.stderr)
        return 3

    name = atlas_name(path)
    final = os.path.join(results, name + ".h5")
    json_path = os.path.join(results, name + ".json")
    tmp = f"{final}.tmp.{os.getpid()}"
    try:
        with h5py.File(tmp, "w") as f:
            f.attrs["command"] = "atlas"
            f.attrs["task_list"] = os.path.abspath(path)
            f.attrs["tasks"] = len(tasks)
            f.attrs["note"] = ("one group per task of the list: a copy of the task's dpbo k1sweep "
                               "file (its root attributes on the group, with task.* = the task's "
                               "line); /summary: one row per task and size m; /cross: adversarial "
                               "pairs against the random add/remove fit; analysis/atlas.py export "
                               "writes the committed summary (JSON) from this file")
            for t in tasks:
                src_path = os.path.join(out, t.name + ".h5")
                g = f.create_group(t.name)
                with h5py.File(src_path, "r") as src:
                    for key, value in src.attrs.items():
                        g.attrs[key] = value
                    for obj in src:
                        src.copy(src[obj], g, name=obj)
                g.attrs["task.index"] = t.index
                g.attrs["task.line"] = t.line
                g.attrs["task.list_line"] = t.text
                g.attrs["task.config"] = t.config
                g.attrs["task.file"] = os.path.abspath(src_path)
                g.attrs["task.command"] = "dpbo k1sweep " + shlex.join(
                    [repo_path(w) if i == 0 else w for i, w in enumerate(task_words(path, t, results))])
                for key, value in t.overrides:
                    g.attrs["task.set." + key] = value
                with open(os.path.join(out, t.name + ".status"), encoding="utf-8") as s:
                    g.attrs["task.status"] = s.read().strip()
            # One code path: the summary, the table and every figure come from the export.
            doc = export_doc(f, final, here)
            f.create_dataset("summary", data=table(doc["summary"], SUMMARY))
            f.create_dataset("cross", data=table(doc["cross"], CROSS))
        write_text(json_path, dump(doc))
        written = draw(doc, os.path.basename(json_path),
                       overview_png=os.path.join(results, name + ".png"), task_dir=out)
        os.replace(tmp, final)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)
    print(markdown(doc), end="")
    print(f"atlas gather: wrote {final} ({len(tasks)} tasks), {json_path} (the committable "
          f"summary), {written[0]}, {written[1]} and the figures in {out}/")
    return 0


def main(argv):
    usage = ("usage: atlas.py check LIST | task LIST INDEX | run LIST [INDEX ...] [--ranks N] | "
             "gather LIST | export ATLAS.h5 -o DATA.json | draw DATA.json (--dir DIR "
             "[--task-dir TDIR] | -o FIG.png [--task NAME]) | manifest DATA.json [SUBDIR]")
    try:
        if len(argv) == 2 and argv[0] == "check":
            print(len(parse(argv[1])))
            return 0
        if len(argv) == 3 and argv[0] == "task":
            cmd_task(argv[1], argv[2])
            return 0
        if len(argv) >= 2 and argv[0] == "run":
            rest, ranks = argv[2:], 2
            if "--ranks" in rest:
                i = rest.index("--ranks")
                if i + 1 >= len(rest) or not re.fullmatch(r"[1-9][0-9]*", rest[i + 1]):
                    raise ListError("run: --ranks needs a positive number")
                ranks = int(rest[i + 1])
                rest = rest[:i] + rest[i + 2:]
            return cmd_run(argv[1], rest, ranks)
        if len(argv) == 2 and argv[0] == "gather":
            return cmd_gather(argv[1])
        if len(argv) == 4 and argv[0] == "export" and argv[2] in ("-o", "--output"):
            return cmd_export(argv[1], argv[3])
        if len(argv) >= 2 and argv[0] == "draw":
            return cmd_draw(argv[1:])
        if len(argv) in (2, 3) and argv[0] == "manifest":
            return cmd_manifest(argv[1], argv[2] if len(argv) == 3 else "atlas")
    except ListError as e:
        print(f"atlas: {e}", file=sys.stderr)
        return 2
    print(usage, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
