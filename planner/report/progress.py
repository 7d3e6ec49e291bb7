"""A live display of a long solve: elapsed time, best objective and bound as they improve.

:class:`SolveProgress` is meant for the planner's ``on_progress`` callback: call
:meth:`SolveProgress.update` with the objective and bound (inches, or None while unknown) and the
elapsed seconds. It draws only when the console is a terminal; in a pipe or a file it does
nothing, so that reports stay clean.

Wiring (once ``plan_deployment`` takes an ``on_progress`` callback)::

    with SolveProgress(console, time_limit_s=time_limit) as progress:
        result = plan_deployment(world, settings, on_progress=progress.update)

>>> import io
>>> from rich.console import Console
>>> with SolveProgress(Console(file=io.StringIO())) as p:   # not a terminal: silent
...     p.update(12.5, 10.0, 1.2)
>>> p.gap_text()
'20.00%'
"""

from __future__ import annotations

import math
import sys

from rich.console import Console, Group
from rich.live import Live
from rich.progress import BarColumn, Progress, TextColumn
from rich.table import Table as RichTable


def show_progress(console: Console) -> bool:
    """True when a live display belongs on ``console``: it is a terminal, and so is standard output
    (when the report goes to standard output, e.g. ``--format html > ruling.html``, and the console
    is standard error, nothing is drawn)."""
    if not console.is_terminal:
        return False
    if console.stderr:
        return sys.stdout.isatty()
    return True


class SolveProgress:
    """Rich Live display of the solver's progress (see the module docstring).

    ``time_limit_s`` (optional) makes the bar show the share of the time limit used.
    """

    def __init__(self, console: Console, *, time_limit_s: float | None = None, title: str = "Planning",
                 enabled: bool | None = None):
        self.console = console
        self.enabled = show_progress(console) if enabled is None else enabled
        self.time_limit_s = time_limit_s
        self.title = title
        self.objective: float | None = None
        self.bound: float | None = None
        self.elapsed_s = 0.0
        self.improvements = 0
        self._progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(), TextColumn("of the time limit"),
                                  console=console, auto_refresh=False)
        self._task = self._progress.add_task(title, total=time_limit_s)
        self._live: Live | None = None

    # ------------------------------------------------------------------ display
    def _table(self) -> RichTable:
        t = RichTable(show_header=True, header_style="bold", box=None, pad_edge=False)
        t.add_column("best objective", justify="right")
        t.add_column("best bound", justify="right")
        t.add_column("gap", justify="right")
        t.add_column("improvements", justify="right")
        t.add_column("elapsed", justify="right")
        t.add_row(self._fmt(self.objective), self._fmt(self.bound), self.gap_text(), str(self.improvements),
                  f"{self.elapsed_s:.1f} s")
        return t

    @staticmethod
    def _fmt(v: float | None) -> str:
        return "-" if v is None or not math.isfinite(v) else f'{v:.3f}"'

    def gap_text(self) -> str:
        """(objective - bound) / objective as a percentage, or '-' while either is unknown."""
        if self.objective is None or self.bound is None or not self.objective:
            return "-"
        return f"{max(0.0, (self.objective - self.bound) / abs(self.objective)):.2%}"

    def renderable(self):
        return Group(self._progress, self._table())

    # ------------------------------------------------------------------ API
    def start(self) -> SolveProgress:
        if self.enabled and self._live is None:
            self._live = Live(self.renderable(), console=self.console, refresh_per_second=4, transient=False)
            self._live.start()
        return self

    def update(self, objective: float | None, bound: float | None, elapsed_s: float) -> None:
        """Record the solver's best objective and bound (inches; None if not known yet) after
        ``elapsed_s`` seconds, and redraw (only on a terminal)."""
        if objective is not None and (self.objective is None or objective < self.objective):
            self.improvements += 1
        if objective is not None:
            self.objective = objective
        if bound is not None:
            self.bound = bound
        self.elapsed_s = elapsed_s
        if self.time_limit_s:
            self._progress.update(self._task, completed=min(elapsed_s, self.time_limit_s))
        if self._live is not None:
            self._live.update(self.renderable(), refresh=True)

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def __enter__(self) -> SolveProgress:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()
