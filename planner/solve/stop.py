"""The one stop flag of a planning run: Ctrl-C ends the search and keeps the best plan found so far.

The planner's steps (candidate streams, the greedy plan, the overlapping pairs, the Lagrangian
bound, the rounds, the local search; :mod:`planner.solve.planner`, :mod:`planner.solve.candidates`,
:mod:`planner.solve.lagrange`) test their deadlines against :func:`clock`, and every CP-SAT solve
goes through :func:`planner.solve.cpsat.solve`. Once a stop is :func:`request`\\ ed, :func:`clock`
reads ``+inf`` (every deadline has passed, so each step ends as at its time limit, at its next
test), the CP-SAT solves running are stopped and a later one returns at once (``UNKNOWN``). The
planner then answers with what it has, as for a time-limit stop, and says so
(:attr:`planner.solve.planner.PlanResult.interrupted`; the messages read "interrupted (Ctrl-C)").

:func:`ctrl_c_stops` is where Ctrl-C becomes that request: inside it, the first SIGINT requests a
stop, a second raises :class:`KeyboardInterrupt` at once (the command line's "interrupted", exit 3,
nothing written). Only the command line uses it (``planner plan``); elsewhere Ctrl-C stays Python's
:class:`KeyboardInterrupt` (``planner generate`` keeps its finished lines that way), and a process
that ignores SIGINT (``planner serve``'s plan jobs) keeps ignoring it.
"""

from __future__ import annotations

import contextlib
import math
import signal
import threading
import time
from collections.abc import Iterator
from typing import Any

INTERRUPTED = "interrupted (Ctrl-C)"
"""How a report says that the search was stopped by the user rather than by the time limit."""

def said(message: str) -> str:
    """``message`` of an answer given after a stop request (Ctrl-C), as every such answer says it:
    ``"interrupted (Ctrl-C): <message>"``; ``message`` as it is when no stop was requested. The one
    place of that prefix (the denial, the min-max and ``planner threats`` use it)."""
    return f"{INTERRUPTED}: {message}" if _stopped else message


_stopped = False  # a stop is requested (one bool: read by every deadline test, so kept cheap)
_lock = threading.RLock()  # reentrant: request() may run in a signal handler while the main thread holds it
_running: set[Any] = set()  # CP-SAT solvers inside planner.solve.cpsat.solve


def clock() -> float:
    """``time.monotonic()`` (seconds) for the planner's deadline tests, or ``+inf`` once a stop is
    requested (every deadline has then passed). Not for measuring times: use ``time.monotonic``."""
    return math.inf if _stopped else time.monotonic()


def requested() -> bool:
    """Has a stop been requested (and not cleared)?"""
    return _stopped


def request() -> None:
    """Stop the search: every deadline passes (:func:`clock`) and the CP-SAT solves running stop."""
    global _stopped
    _stopped = True
    with _lock:
        solvers = list(_running)
    for s in solvers:
        s.stop_search()


def clear() -> None:
    """Forget a stop request (the next run starts afresh)."""
    global _stopped
    _stopped = False


@contextlib.contextmanager
def solving(solver: Any) -> Iterator[None]:
    """While inside, ``solver`` (a CP-SAT solver) is stopped by :func:`request`; if a stop is
    already requested, its time limit is set to 0 s (it returns at once, ``UNKNOWN``)."""
    if _stopped:
        solver.parameters.max_time_in_seconds = 0.0
    with _lock:
        _running.add(solver)
    try:
        if _stopped:  # requested between the test above and the registration
            solver.parameters.max_time_in_seconds = 0.0
        yield
    finally:
        with _lock:
            _running.discard(solver)


@contextlib.contextmanager
def ctrl_c_stops() -> Iterator[None]:
    """Inside, the first Ctrl-C (SIGINT) requests a stop (:func:`request`) and a second raises
    :class:`KeyboardInterrupt`; the stop request is cleared on the way out, and the previous SIGINT
    handler restored. Outside the main thread, or where SIGINT is not Python's default handler (an
    ignored SIGINT, e.g. ``planner serve``'s jobs, or another handler), nothing changes; the command
    line's handler (:class:`planner.cli.exits.CtrlCAfterImports`, ``acts_as_default``) counts as
    Python's default.

    Raises
    ------
    KeyboardInterrupt
        At the second Ctrl-C.
    """
    old = signal.getsignal(signal.SIGINT)
    python_default = old is signal.default_int_handler or getattr(old, "acts_as_default", False)
    if threading.current_thread() is not threading.main_thread() or not python_default:
        yield
        return

    def on_sigint(signum: int, frame: Any) -> None:
        if _stopped:
            raise KeyboardInterrupt
        request()

    clear()
    signal.signal(signal.SIGINT, on_sigint)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)
        clear()
