"""What the analysis scripts record about the tree that exported their data
(issue #24): one function, shared by export_compare.py, export_k1_sweep.py
and atlas.py."""
import subprocess


def git_commit(repo):
    """The commit checked out at repo, with "-dirty" when tracked files
    differ from it; "unknown" outside git."""
    try:
        head = subprocess.run(["git", "-C", repo, "rev-parse", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", repo, "status", "--porcelain", "--untracked-files=no"],
                               capture_output=True, text=True, check=True).stdout.strip()
        return head + ("-dirty" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
