#!/usr/bin/env python3
"""A `command` objective for tests/command_persistent.sh and bench/.

    persistent_model.py [--serve] [--misbehave=KIND@N] [NAME=VALUE ...]

Without --serve it evaluates the NAME=VALUE arguments once (objective.mode =
per_evaluation); with --serve it answers one request line per λ on stdin
(objective.mode = persistent) until end of file. The value is a smooth
function of a and b on [0, 1]^2, printed to 17 digits, so both modes must
give bit-identical traces.

With DPBO_TEST_DIR set it records, for the test:
  starts    one line "PID PPID PGID" per process start;
  requests  the number of requests answered by all processes so far;
  zombies   a line per request at which a child of the rank's threads was a
            zombie (a dead evaluation process dpbo did not reap).
--misbehave=KIND@N makes the N-th request counted in `requests` (over all
processes) crash (exit 3), hang (sleep, with a child `sleep` in its
process group), garbage (print a line without a number), or quit (exit 0
after replying to every N-th request of a process).
DPBO_TEST_IMPORT=numpy imports that module first, and DPBO_TEST_STARTUP_S=S
sleeps S seconds at start (bench/persistent.sh: the start-up of a real
model, imports and data loading)."""
import fcntl
import math
import os
import subprocess
import sys
import time

if os.environ.get("DPBO_TEST_IMPORT"):
    __import__(os.environ["DPBO_TEST_IMPORT"])
if os.environ.get("DPBO_TEST_STARTUP_S"):
    time.sleep(float(os.environ["DPBO_TEST_STARTUP_S"]))

serve = "--serve" in sys.argv[1:]
misbehave, at = "", 0
for arg in sys.argv[1:]:
    if arg.startswith("--misbehave="):
        misbehave, at = arg.split("=", 1)[1].split("@")
        at = int(at)
directory = os.environ.get("DPBO_TEST_DIR")


def record(name, text):
    if directory:
        with open(os.path.join(directory, name), "a") as f:
            f.write(text + "\n")


def count_request():
    """The global request number (1, 2, ...) over every process."""
    if not directory:
        return 0
    with open(os.path.join(directory, "requests"), "a+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)  # the processes of several ranks count together
        f.seek(0)
        text = f.read().strip()
        n = int(text) + 1 if text else 1
        f.seek(0)
        f.truncate()
        f.write("%d\n" % n)
    return n


def check_zombies():
    """Zombie children of the rank: evaluation processes left unreaped."""
    ppid = os.getppid()
    try:
        tasks = os.listdir("/proc/%d/task" % ppid)
    except OSError:
        return
    for task in tasks:
        try:
            children = open("/proc/%d/task/%s/children" % (ppid, task)).read().split()
        except OSError:
            continue
        for child in children:
            try:
                state = open("/proc/%s/stat" % child).read().rsplit(")", 1)[1].split()[0]
            except (OSError, IndexError):
                continue
            if state == "Z":
                record("zombies", "zombie %s child of %d" % (child, ppid))


def value(words):
    kv = dict(w.split("=", 1) for w in words)
    a, b = float(kv["a"]), float(kv["b"])
    return 1 - (a - 0.3) ** 2 - 0.5 * (b - 0.6) ** 2 + 0.1 * math.sin(7 * a * b)


def answer(words, served):
    n = count_request()
    if directory:
        check_zombies()
    if misbehave == "crash" and n == at:
        sys.stderr.write("persistent_model: crashing at request %d\n" % n)
        sys.exit(3)
    if misbehave == "hang" and n == at:
        child = subprocess.Popen(["sleep", "1000"])
        record("hang-child", str(child.pid))
        time.sleep(1000)
    if misbehave == "garbage" and n == at:
        return "hello from request %d" % n
    return "%.17g" % value(words)


record("starts", "%d %d %d" % (os.getpid(), os.getppid(), os.getpgid(0)))
if not serve:
    print(answer(sys.argv[1:], 1))
    sys.exit(0)
served = 0
for line in sys.stdin:
    served += 1
    print(answer(line.split(), served), flush=True)
    if misbehave == "quit" and served % at == 0:
        sys.exit(0)
