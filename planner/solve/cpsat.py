"""CP-SAT solves that leave Ctrl-C to Python.

CP-SAT's own SIGINT handler (``catch_sigint_signal``, on by default) swallows a Ctrl-C that lands
during a solve (the solve just stops early: a planner answer, or a generator label, then depends
on when it came) and, when the solve ends, sets SIGINT to the system default, so that a Ctrl-C
*after* any solve kills the process at once (exit 130, no message, the run's files not closed).
:func:`solve` turns CP-SAT's handler off and stops the search itself when Python's handler sees
a SIGINT (through :func:`signal.set_wakeup_fd`, read by a helper thread): the solve returns at
once and Python raises :class:`KeyboardInterrupt` as usual, which the command line reports
(exit 3, "interrupted"). Inside :func:`planner.solve.stop.ctrl_c_stops` (``planner plan``) the first
Ctrl-C is a stop request instead: the solve returns its best so far and the planner answers with it.
A solve started after a stop request returns at once (``UNKNOWN``; :func:`planner.solve.stop.solving`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator
from typing import Any


def solve(solver: Any, model: Any, callback: Any = None) -> Any:
    """``solver.solve(model, callback)`` (an ``ortools.sat.python.cp_model`` solver and model),
    with Ctrl-C left to Python (see the module); returns CP-SAT's status.

    Raises
    ------
    KeyboardInterrupt
        A Ctrl-C during the solve (the search is stopped first), as anywhere else (inside
        :func:`planner.solve.stop.ctrl_c_stops`: the second Ctrl-C).
    """
    from planner.solve import stop

    solver.parameters.catch_sigint_signal = False
    with stop.solving(solver), _stop_on_sigint(solver):
        return solver.solve(model, callback) if callback is not None else solver.solve(model)


@contextlib.contextmanager
def _stop_on_sigint(solver: Any) -> Iterator[None]:
    """While inside, a SIGINT that Python's handler receives also stops ``solver``'s search."""
    if threading.current_thread() is not threading.main_thread() or not callable(signal.getsignal(signal.SIGINT)):
        yield  # only the main thread gets signals; an ignored or default SIGINT is not ours to stop on
        return
    r, w = os.pipe()
    os.set_blocking(w, False)
    try:
        old = signal.set_wakeup_fd(w, warn_on_full_buffer=False)
    except ValueError:
        os.close(r)
        os.close(w)
        yield
        return
    done = threading.Event()

    def watch() -> None:
        while True:
            try:
                data = os.read(r, 64)
            except OSError:
                return
            if old >= 0 and data and not done.is_set():
                with contextlib.suppress(OSError):
                    os.write(old, data)  # the previous reader (an event loop) still hears of its signals
            if not data or done.is_set():
                return
            if signal.SIGINT in data:
                solver.stop_search()

    thread = threading.Thread(target=watch, name="cpsat-sigint", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        signal.set_wakeup_fd(old)
        with contextlib.suppress(OSError):
            os.write(w, b"\0")  # wakes the watcher, which sees done and returns
        thread.join(timeout=5)
        os.close(r)
        os.close(w)
