"""The command line: the typer app (:mod:`planner.cli.commands`) and one module per command's glue.

Only this package prints to the terminal, reads option values and chooses exit codes; the domain
packages (geometry, rules, legality, solve, adversary, deepstrike, generate) return values.

This module itself is light: :func:`main` (the ``planner`` console script and ``python -m planner``)
installs the command line's Ctrl-C handler before it imports the command line, so that a Ctrl-C
during start-up ends the command as one later does: "interrupted", exit 3, nothing written.
``app`` (the typer app) is :mod:`planner.cli.commands`'s, imported on first use.
"""

from __future__ import annotations

import signal
import sys

from planner.cli.exits import EXIT_NO_ANSWER, CtrlCAfterImports, say_interrupted

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = ["app", "main"]


def main() -> None:
    """The ``planner`` command (console script; ``python -m planner``): :func:`planner.cli.commands.main`
    with :class:`~planner.cli.exits.CtrlCAfterImports` as the SIGINT handler (when SIGINT has
    Python's default handler; an ignored SIGINT stays ignored).

    A Ctrl-C anywhere before the command has its answer ends it with "interrupted", exit 3, and
    writes nothing (a Ctrl-C inside an import waits for the import to end). Once the command has its
    answer (its exit code), a late Ctrl-C no longer changes it: SIGINT is ignored while the
    interpreter shuts down.
    """
    ours = signal.getsignal(signal.SIGINT) is signal.default_int_handler
    if ours:
        signal.signal(signal.SIGINT, CtrlCAfterImports())
    try:
        from planner.cli import commands

        commands.main()
    except KeyboardInterrupt:  # outside the command's own boundary (e.g. in the imports, the options)
        if ours:
            signal.signal(signal.SIGINT, signal.SIG_IGN)
        say_interrupted()
        sys.exit(EXIT_NO_ANSWER)
    finally:
        if ours:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # the answer is given: the exit code stands
        # CPython notes a KeyboardInterrupt that leaves code run by exec() of a string (dataclasses,
        # namedtuple, ... build their methods so) and, at exit, ends the process by SIGINT (exit
        # 130, the answer's exit code lost) even though the command caught it; each exec() of a
        # string starts by forgetting that note. Every Ctrl-C is handled here, so none is unhandled.
        exec("pass")  # noqa: S102 - a constant string


def __getattr__(name: str) -> Any:
    if name == "app":
        from planner.cli.commands import app

        return app
    raise AttributeError(f"module 'planner.cli' has no attribute {name!r}")
