"""A campaign's output directory: one campaign at a time in it (a lock that goes with the
process, kill -9 included), the identity a resumed campaign must match, files written
whole or not at all, CSV as pandas and the csv module read it."""

import csv
import fcntl
import hashlib
import io
import json
import os
from pathlib import Path

from .errors import CampaignError, RunError

_LOCKS = []  # the open lock files, held until the process ends


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def write_text(path, text):
    """`text` into `path` whole or not at all (a temporary file renamed over it); a failed
    write (a full disk, a read-only directory) is a RunError naming the file."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "w") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except OSError as e:
        try:
            tmp.unlink()
        except OSError:
            pass
        raise RunError(f"cannot write {path}: {e.strerror or e}") from None


def csv_text(header, rows):
    """CSV with fields quoted only where they must be (a comma, a quote, a line break)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return buf.getvalue()


def write_csv(path, header, rows):
    write_text(path, csv_text(header, rows))


def make_out(out):
    """Create --out (and its parents); bad input if it is a file."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise CampaignError(f"--out {out}: exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise RunError(f"cannot create {out}: {e.strerror or e}") from None
    return out


def lock_out(out, command, lock_name):
    """Hold `out/lock_name` for the rest of this process: a second `command` into the same
    --out is refused while this one runs (the lock goes with the process, kill -9 included)."""
    path = Path(out) / lock_name
    try:
        f = open(path, "a")
    except OSError as e:
        raise RunError(f"cannot create {path}: {e.strerror or e}") from None
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise CampaignError(f"--out {out}: another {command} is running into it (lock {path}); wait for it, or "
                            "give another --out") from None
    _LOCKS.append(f)
    return path


def check_identity(path, identity, what):
    """A campaign resumed in its --out must be the same campaign: `identity` (a dict) is
    written to `path` the first time and compared after; `what` names the file in the error."""
    path = Path(path)
    if path.exists():
        try:
            old = json.loads(path.read_text())
        except (OSError, ValueError):
            old = None
        if old != identity:
            raise CampaignError(f"{path.parent} holds a different {what} ({path.name}); give another --out or remove it")
        return
    write_text(path, json.dumps(identity, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
