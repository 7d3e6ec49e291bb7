"""The command line's exit codes, its one "interrupted" line and its Ctrl-C handler; light (the
standard library only), so that the entry point (:func:`planner.cli.main`) can use them before the
command line's heavy imports (typer, pydantic, shapely, ...).

Exit codes: 0 done and legal; 1 illegal or proven infeasible (by the rules, not only over the
planner's candidate grid); 2 invalid input; 3 no answer within the limits (the time, the planner's
formations or its candidate grid; a Ctrl-C included); 4 internal error (a bug in the planner).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from types import FrameType

EXIT_OK, EXIT_ILLEGAL, EXIT_INPUT, EXIT_NO_ANSWER, EXIT_INTERNAL = 0, 1, 2, 3, 4

TYPER_CTRL_C = 130
"""What typer returns (``standalone_mode=False``) for a Ctrl-C outside a command's own boundary
(while the options are parsed, or a command imports what it needs): not an exit code of ours; the
command line says "interrupted", exit 3."""

INTERRUPTED_LINE = "interrupted"
"""What standard error says when a Ctrl-C ends a command before it has an answer (exit 3)."""


def say_interrupted() -> None:
    """Write :data:`INTERRUPTED_LINE` on standard error (never raises: standard error may be gone)."""
    try:
        sys.stderr.write(INTERRUPTED_LINE + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass


_received = False  # a Ctrl-C reached CtrlCAfterImports


def ctrl_c_received() -> bool:
    """Has a Ctrl-C reached the command line's handler (:class:`CtrlCAfterImports`) in this process?

    Some libraries turn a :class:`KeyboardInterrupt` raised inside them into their own error
    (pydantic's serializer: ``PydanticSerializationError: ... KeyboardInterrupt``); the command
    line's boundary reads such an error, after a Ctrl-C, as that Ctrl-C rather than as a bug."""
    return _received


def _importing(frame: FrameType | None) -> bool:
    """Is ``frame`` (or a frame that called it) inside Python's import machinery?"""
    while frame is not None:
        if frame.f_code.co_filename.startswith("<frozen importlib."):
            return True
        frame = frame.f_back
    return False


class CtrlCAfterImports:
    """The command line's SIGINT handler: Python's (it raises :class:`KeyboardInterrupt`), except
    that a Ctrl-C landing while a module is being imported waits until the import is done.

    A :class:`KeyboardInterrupt` raised inside an import (the start-up's typer, pydantic, shapely,
    numpy; a command's own imports later) escapes the command line's handling as a traceback, or
    comes out as another library's ``ImportError`` (numpy's "failed to import"), or makes Python
    end by SIGINT after the command has answered. Here a helper thread watches the main thread and
    sends the SIGINT again once no import is running; :class:`KeyboardInterrupt` is raised then, as
    for any Ctrl-C (the command says "interrupted", exit 3). The delay is that of the imports
    running (below a second or two).

    ``acts_as_default`` tells :func:`planner.solve.stop.ctrl_c_stops` that this handler stands for
    Python's default one (``planner plan`` replaces it by its own while it plans).
    """

    acts_as_default = True

    def __init__(self) -> None:
        self._watching = False

    def __call__(self, signum: int, frame: FrameType | None) -> None:
        global _received
        _received = True
        if _importing(frame):
            import threading  # here: the entry point imports this module before its handler is set

            if not self._watching:
                self._watching = True
                threading.Thread(target=self._send_after_imports, name="ctrl-c-after-imports", daemon=True).start()
            return
        raise KeyboardInterrupt

    def _send_after_imports(self) -> None:
        import threading

        main = threading.main_thread().ident
        while main is not None and _importing(sys._current_frames().get(main)):
            time.sleep(0.005)
        self._watching = False
        os.kill(os.getpid(), signal.SIGINT)
