"""Writing ``DIR/scenarios.jsonl`` one line at a time (append + flush), and resuming it.

Every finished line is on disk as soon as it is made: an interrupted run keeps all of them, and
at most one partial line (cut mid-write) at the end, which :func:`finished_lines` drops. A run
holds its folder alone (:func:`hold_folder`) from before it looks at the folder until its last write.
"""

from __future__ import annotations

import errno
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from planner.errors import ScenarioError

LINES = "scenarios.jsonl"
MANIFEST = "manifest.json"
SCHEMA = "scenario-line.schema.json"
LOCK = "generate.lock"

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]


def finished_lines(path: Path) -> list[bytes]:
    """The complete lines of a JSONL file (each ending in a newline), without the newline; a
    trailing partial line is cut off the file."""
    if not path.exists():
        return []
    raw = path.read_bytes()
    end = raw.rfind(b"\n") + 1
    if end < len(raw):
        with open(path, "r+b") as fh:
            fh.truncate(end)
    return raw[:end].split(b"\n")[:-1] if end else []


def verify_prefix(path: Path, lines: list[bytes], remake) -> None:
    """Check that the finished lines are this run's lines 0..n-1: each parses, its label's index is
    its line number, and the last one is made again byte for byte (``remake(i) -> str``).

    Raises
    ------
    ScenarioError
        If a line does not belong to this run (other seed, parameters or kinds).
    """
    for i, ln in enumerate(lines):
        try:
            idx = json.loads(ln)["label"]["index"]
        except (ValueError, KeyError, TypeError):
            raise ScenarioError(f"line {i + 1} is not a generated scenario line; cannot resume", file=str(path)) \
                from None
        if idx != i:
            raise ScenarioError(f"line {i + 1} has label index {idx}, expected {i}; cannot resume", file=str(path))
    if lines:
        n = len(lines) - 1
        if remake(n).encode("utf-8") != lines[n]:
            raise ScenarioError(f"line {n + 1} differs from what this seed and these parameters make; "
                                "resume with the run's own --seed, --kind, --ruleset and --params", file=str(path))


def _try_lock(fd: int) -> bool:
    """Take an exclusive lock on the open file ``fd`` without waiting; False if another holds it."""
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        else:  # pragma: no cover - Windows: a byte-range lock on byte 0, released when the file closes
            import msvcrt

            msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError as exc:
        if isinstance(exc, BlockingIOError) or exc.errno in (errno.EACCES, errno.EAGAIN, errno.EDEADLK):
            return False
        raise
    return True


def _holder(path: Path) -> str:
    """`` (process N)`` from the lock file, or nothing if it does not say (yet)."""
    try:
        pid = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return ""
    return f" (process {pid})" if pid.isdigit() else ""


@contextmanager
def hold_folder(folder: Path, option: str = "--out") -> Iterator[Path]:
    """Hold the data set folder ``folder`` for this run alone while the ``with`` block runs.

    The hold is an exclusive, non-blocking ``flock`` on ``folder/generate.lock`` (the lock file
    says the holder's process id). The operating system drops the lock when the process ends,
    however it ends, so a lock file a crashed or killed run left behind holds nothing: the next
    run takes it over. A run that ends normally (or on Ctrl-C) removes the file.

    Yields
    ------
    Path
        The lock file.

    Raises
    ------
    ScenarioError
        Another run holds the folder (naming ``option`` and the folder), or the lock file cannot
        be made or locked.
    """
    path = folder / LOCK
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0), 0o644)
        except OSError as exc:
            raise ScenarioError(f"cannot make the lock file {LOCK} in the folder: {exc.strerror}",
                                location=option, value=str(folder)) from None
        try:
            locked = _try_lock(fd)
        except OSError as exc:
            os.close(fd)
            raise ScenarioError(f"cannot lock the folder ({LOCK}): {exc.strerror}", location=option,
                                value=str(folder)) from None
        if not locked:
            os.close(fd)
            raise ScenarioError(f"another run{_holder(path)} is writing this folder; wait for it to end, or give "
                                "another --out", location=option, value=str(folder))
        try:  # the file we locked may have been removed by a holder that just ended: lock the one there now
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)
    try:
        was = os.read(fd, 64).strip()
        if was and not (was.isdigit() and os.fstat(fd).st_size <= 32):  # not ours: a process id or nothing
            os.close(fd)
            raise ScenarioError(f"the folder holds a file {LOCK} that is not a lock file of planner generate; move "
                                "it away, or give another --out", file=str(path), location=option, value=str(folder))
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, f"{os.getpid()}\n".encode("ascii"))
    except OSError:
        pass  # the process id is for the message of a run refused; the lock is what holds the folder
    try:
        yield path
    finally:
        try:  # removed while still locked, so no other run can lock this file after it is gone
            path.unlink()
        except OSError:
            pass
        os.close(fd)


class LineWriter:
    """Appends lines to a JSONL file, flushing each one."""

    def __init__(self, path: Path):
        self.path = path
        self.fh = open(path, "a", encoding="utf-8", newline="\n")  # noqa: SIM115 - closed in close()

    def write(self, line: str) -> None:
        self.fh.write(line + "\n")
        self.fh.flush()

    def close(self) -> None:
        try:
            self.fh.flush()
            os.fsync(self.fh.fileno())
        except OSError:
            pass
        self.fh.close()


def write_json(path: Path, data: dict, option: str = "--out") -> None:
    """Write JSON (sorted keys, so the bytes depend only on the data) atomically, never over an
    input of the run (:func:`planner.io.outputs.write_output`)."""
    from planner.io.outputs import write_output

    write_output(path, json.dumps(data, indent=2, sort_keys=True, allow_nan=False) + "\n", option, what=path.name)
