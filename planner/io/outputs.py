"""The files one command run reads and writes: no output ever lands on an input.

A run (:func:`begin_run` ... :func:`end_run`, done by the command line's error boundary) records
every file it reads (:func:`note_read`, called by the one bounded reader
:func:`planner.io.files.read_input`) and every output it claims (:func:`claim`) or writes
(:func:`write_output`, the one writer of every output option: ``--out``, ``--json``, ``--render``,
``--map``, the files of ``generate``). An output is refused, with a :class:`ScenarioError` (exit 2)
naming the option and both paths, when it is the *same file* as

- a file the run reads (the scenario, the rosters and parameter files it references, the
  catalogue files of the ``models/`` folder or of ``PLANNER_MODELS``), or
- the output of another option of the same run.

Same file = same ``(st_dev, st_ino)`` (so hard links, symlinks and other spellings of a path
count); an output that does not exist yet is compared by its real path.

How an output is written: a regular file (or a new one) atomically, through a temporary file in
the same folder and :func:`os.replace` (the file keeps its permission bits); a symlink is
followed (its target is written, atomically if it is a regular file; the link stays); a character
device or a FIFO is written through, never replaced; ``-`` is standard output. A FIFO that no
process reads is refused when it is claimed, before the work (instead of waiting for a reader,
or refusing after the report is printed): the claim opens it for writing and the run keeps it
open until the output is written (a reader would see the end of the file if it were closed in
between), or until the run ends. Outside a run (library use) only the
explicit inputs given to :func:`claim` are protected.
"""

from __future__ import annotations

import contextlib
import errno
import os
import secrets
import stat
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from planner.errors import ScenarioError

Identity = tuple[int, int]


@dataclass
class _Run:
    reads: dict[Identity, str] = field(default_factory=dict)
    """(st_dev, st_ino) of every file read -> its name as given."""
    claims: dict[str, tuple[str, str]] = field(default_factory=dict)
    """real path of every claimed output -> (option, name as given)."""
    written: dict[Identity, tuple[str, str]] = field(default_factory=dict)
    """identity of every output written -> (option, name as given)."""
    fifos: dict[str, int] = field(default_factory=dict)
    """real path of every claimed FIFO -> the file descriptor the claim opened it with (for writing)."""


_RUN: _Run | None = None


def begin_run() -> None:
    """Start recording the files of one command run (forgets the previous run)."""
    global _RUN
    end_run()
    _RUN = _Run()


def end_run() -> None:
    """Stop recording; close the FIFOs claimed and not written (their readers see the end)."""
    global _RUN
    if _RUN is not None:
        for fd in _RUN.fifos.values():
            try:
                os.close(fd)
            except OSError:
                pass
    _RUN = None


def _identity(path: str | Path) -> Identity | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino


def note_read(path: str | Path, st: os.stat_result | None = None) -> None:
    """Record that the current run reads ``path`` (``st``: its stat, if already known)."""
    if _RUN is None:
        return
    if st is None:
        try:
            st = os.stat(path)
        except (OSError, ValueError):
            return
    _RUN.reads.setdefault((st.st_dev, st.st_ino), str(path))


def _catalogue_files() -> dict[Identity, str]:
    """The catalogue files the run may read (cached catalogues are not read again)."""
    from planner.io.catalogue import catalogue_dir

    out: dict[Identity, str] = {}
    root = catalogue_dir()
    try:
        if not root.is_dir():
            return out
        for f in [*root.glob("**/*.yaml"), *root.glob("**/*.yml")]:
            ident = _identity(f)
            if ident is not None:
                out.setdefault(ident, str(f))
    except OSError:
        pass
    return out


def _real(path: str | Path) -> str:
    return os.path.realpath(os.path.abspath(os.fspath(path)))


def claim(target: str | None, option: str, *, inputs: Sequence[str | Path] = (),
          what: str = "output") -> None:
    """Check, before any work, that ``target`` may be written for ``option`` and reserve it.

    Parameters
    ----------
    target : str or None
        The output path (None: the option was not given; ``-``: standard output).
    option : str
        The option that names it, e.g. ``--out`` (named in errors).
    inputs : paths
        Files the command reads that the run may not have recorded yet (e.g. the scenario,
        before it is loaded).
    what : str
        What is written, for messages ("plan", "JSON report").

    Raises
    ------
    ScenarioError
        ``target`` is the same file as an input or as another option's output, a folder, a
        socket, or in a place that cannot be written.
    """
    if target is None or target == "-":
        return
    for p in inputs:
        if p is not None and p != "-":
            note_read(p)
    given = str(target)
    if given == "":
        raise ScenarioError("give a file name", location=option, value=given)
    ident = _identity(given)
    reads: dict[Identity, str] = dict(_RUN.reads) if _RUN is not None else {}
    if _RUN is None:
        for p in inputs:
            i = _identity(p)
            if i is not None:
                reads.setdefault(i, str(p))
    if ident is not None:
        src = reads.get(ident)
        if src is None:
            src = _catalogue_files().get(ident)
        if src is not None:
            raise ScenarioError(f"refusing to overwrite an input with the {what}: {given} is the same file as "
                                f"{src}, which this command reads; choose another {option}", location=option,
                                value=given)
    real = _real(given)
    if _RUN is not None:
        for other_real, (other_opt, other_given) in _RUN.claims.items():
            if other_opt == option:
                continue
            if other_real == real:
                raise ScenarioError(f"{option} {given} and {other_opt} {other_given} are the same file; give each "
                                    "output its own file", location=option, value=given)
        if ident is not None and ident in _RUN.written and _RUN.written[ident][0] != option:
            o_opt, o_given = _RUN.written[ident]
            raise ScenarioError(f"{option} {given} and {o_opt} {o_given} are the same file; give each output its "
                                "own file", location=option, value=given)
    _check_writable(given, option)
    if _RUN is not None:
        _hold_fifo(real, given, option)
        _RUN.claims.setdefault(real, (option, given))


def _hold_fifo(real: str, given: str, option: str) -> None:
    """A FIFO output: open it for writing now (O_NONBLOCK fails at once, ENXIO, when no process
    reads it: refused, before any work) and keep it open for :func:`write_output` (closing it
    would end the reader's input). Anything but a FIFO, or a FIFO already held: nothing to do."""
    assert _RUN is not None
    if real in _RUN.fifos:
        return
    try:
        if not stat.S_ISFIFO(os.stat(real).st_mode):
            return
        fd = os.open(real, os.O_WRONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        return
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise ScenarioError("no process reads this FIFO", location=option, value=given) from None
        raise ScenarioError(f"cannot write there: opening the FIFO failed: {exc.strerror or exc}",
                            location=option, value=given) from None
    _RUN.fifos[real] = fd


def _check_writable(given: str, option: str) -> None:
    """Refuse (naming ``option``, the path and why) an output that cannot be written the way
    :func:`write_output` will write it: a regular or new file is written through a temporary file
    in its folder, so the folder (or, for a new folder, the nearest one that exists) must accept a
    new file, which is tried (:func:`_probe_folder`: permission bits say nothing to root, nor of
    a read-only file system or of ``/proc``)."""
    try:
        st = os.stat(given)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        reason = exc.strerror
        if exc.errno == errno.ENOTDIR:
            parent = Path(os.path.abspath(given)).parent
            blocker = next((a for a in [parent, *parent.parents] if a.exists() and not a.is_dir()), None)
            reason = f"{blocker} is not a folder" if blocker is not None else reason
        raise ScenarioError(f"cannot write there: {reason}", location=option, value=given) from None
    if st is not None:
        if stat.S_ISDIR(st.st_mode):
            raise ScenarioError("is a folder; give a file name", location=option, value=given)
        if stat.S_ISSOCK(st.st_mode):
            raise ScenarioError("is a socket, not a file", location=option, value=given)
        if not os.access(given, os.W_OK):
            raise ScenarioError("cannot write there: permission denied", location=option, value=given)
        if stat.S_ISREG(st.st_mode):
            _probe_folder(Path(_real(given)).parent, given, option,
                          ", which replacing the file atomically needs")
        return
    parent = Path(_real(given)).parent
    existing = next((a for a in [parent, *parent.parents] if a.exists()), Path("/"))
    if not existing.is_dir():
        raise ScenarioError(f"cannot write there: {existing} is not a folder", location=option, value=given)
    _probe_folder(existing, given, option, "")


def _probe_folder(folder: Path, given: str, option: str, why: str) -> None:
    """Make and remove a temporary file in ``folder``: it accepts new files, or an error saying
    what was tried (a new file in ``folder``; ``why``: what the output needs it for, or "") and
    the system's reason (its errno text). Nothing is left, even when a Ctrl-C lands in between."""
    try:
        with _temp_file(str(folder), ".planner-probe-") as (fd, _):
            os.close(fd)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise ScenarioError(f"cannot write there: the folder {folder} does not accept a new file{why} (making one "
                            f"failed: {reason})", location=option, value=given) from None


_TEMP_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)


@contextlib.contextmanager
def _temp_file(folder: str, prefix: str) -> Iterator[tuple[int, str]]:
    """A new file ``folder/PREFIX<random>.tmp`` (mode 600): its open descriptor and its path. The
    path is removed on leaving (a file renamed away meanwhile is gone already), whatever ends the
    block, a Ctrl-C included: the name is known before the file is made, and the removal is in a
    ``finally`` that starts before it (:func:`tempfile.mkstemp` returns only after making it, so a
    KeyboardInterrupt between its return and a ``try`` left the file behind).

    Raises
    ------
    OSError
        The folder does not accept the new file.
    """
    path = None
    try:
        while True:
            path = os.path.join(folder, f"{prefix}{secrets.token_hex(8)}.tmp")
            try:
                fd = os.open(path, _TEMP_FLAGS, 0o600)
                break
            except FileExistsError:  # another file by that name (not ours to remove): another name
                path = None
        yield fd, path
    finally:
        if path is not None:
            with contextlib.suppress(OSError):
                os.unlink(path)


def write_output(target: str | Path, data: str | bytes, option: str, *, what: str = "output",
                 inputs: Sequence[str | Path] = ()) -> None:
    """Write ``data`` (text is UTF-8) to ``target`` for ``option``, after the checks of :func:`claim`.

    Raises
    ------
    ScenarioError
        As :func:`claim`; a FIFO that no process reads; the file system refused (naming the option).
    """
    given = str(target)
    raw = data.encode("utf-8") if isinstance(data, str) else data
    if given == "-":
        out = sys.stdout
        if hasattr(out, "buffer"):
            out.flush()
            out.buffer.write(raw)
            out.buffer.flush()
        else:
            out.write(raw.decode("utf-8"))
        return
    claim(given, option, inputs=inputs, what=what)
    real = _real(given)
    try:
        try:
            st = os.stat(real)
        except FileNotFoundError:
            st = None
        held = _RUN.fifos.pop(real, None) if _RUN is not None else None
        if held is not None:
            _write_fd(held, raw, blocking=True)
        elif st is not None and not stat.S_ISREG(st.st_mode):
            _write_through(real, raw, st, option, given)
        else:
            _write_atomic(real, raw, st)
    except OSError as exc:
        raise ScenarioError(f"cannot write the {what}: {exc.strerror or exc}", location=option, value=given) from None
    if _RUN is not None:
        ident = _identity(real)
        if ident is not None:
            _RUN.written.setdefault(ident, (option, given))


def _write_through(real: str, raw: bytes, st: os.stat_result, option: str, given: str) -> None:
    """A device or a FIFO: open it for writing (never create, never replace) and write."""
    flags = os.O_WRONLY
    if stat.S_ISFIFO(st.st_mode):
        flags |= os.O_NONBLOCK  # fails at once (ENXIO) when no process reads the FIFO
    try:
        fd = os.open(real, flags)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise ScenarioError("no process reads this FIFO", location=option, value=given) from None
        raise
    _write_fd(fd, raw, blocking=bool(flags & os.O_NONBLOCK))


def _write_fd(fd: int, raw: bytes, *, blocking: bool) -> None:
    """Write all of ``raw`` to the open ``fd`` (made blocking first if ``blocking``), then close it."""
    try:
        if blocking:
            os.set_blocking(fd, True)
        view = memoryview(raw)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    finally:
        os.close(fd)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _write_atomic(real: str, raw: bytes, st: os.stat_result | None) -> None:
    """A regular file: a temporary file in the same folder, then an atomic rename."""
    folder = os.path.dirname(real) or "."
    if not os.path.isdir(folder):  # a mistyped folder is made, and said (not silent)
        os.makedirs(folder, exist_ok=True)
        print(f"note: created the folder {folder} for {os.path.basename(real)}", file=sys.stderr)
    with _temp_file(folder, f".{os.path.basename(real)}.") as (fd, tmp):
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
            fh.flush()
            os.fchmod(fh.fileno(), stat.S_IMODE(st.st_mode) if st is not None else 0o666 & ~_umask())
        os.replace(tmp, real)

