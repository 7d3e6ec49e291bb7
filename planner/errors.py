"""Error types of the planner.

An illegal deployment is *not* an exception: it is a :class:`planner.legality.report.LegalityReport`.
Exceptions are for input we cannot use (exit code 2) and for our own bugs.
"""

from __future__ import annotations


class PlannerError(Exception):
    """Base of every error the planner raises on purpose."""

    exit_code = 2


class ScenarioError(PlannerError):
    """Input that does not validate.

    Attributes
    ----------
    file : str | None
        The file the input came from, if any.
    location : str
        The field path inside the file, e.g. ``armies[0].units[2].models[1].x``.
    value : object
        The offending value (as given by the user), or ``None``.
    """

    def __init__(self, message: str, *, file: str | None = None, location: str = "", value: object = None):
        self.file = file
        self.location = location
        self.value = value
        self.detail = message
        super().__init__(self._render())

    def _render(self) -> str:
        parts = []
        if self.file:
            parts.append(str(self.file))
        if self.location:
            parts.append(f"field {self.location}")
        head = ": ".join(parts)
        msg = self.detail
        if self.value is not None:
            shown = repr(self.value)
            if len(shown) > 80:
                shown = shown[:77] + "..."
            msg = f"{msg} (value: {shown})"
        return f"{head}: {msg}" if head else msg

    def with_file(self, file: str) -> ScenarioError:
        """Return a copy of this error that names ``file``."""
        return ScenarioError(self.detail, file=file, location=self.location, value=self.value)


class UnknownRulesetError(ScenarioError):
    """A ruleset id that no module implements."""


class SolverError(PlannerError):
    """CP-SAT said MODEL_INVALID: a bug in our model builder, not in the user's input (the command
    line reports it as an internal error, exit 4, with the traceback in a log file)."""

    exit_code = 4
