"""The suggested moves of ``planner check --suggest`` in text, Markdown and HTML (JSON is the
report's own ``to_dict``). One set of lines and rows (:func:`suggestion_lines`,
:func:`move_rows`) for every format."""

from __future__ import annotations

from html import escape

from rich.console import Console
from rich.markup import escape as rich_escape

from planner.solve.suggest import SuggestReport, UnitSuggestion

MOVE_HEADERS = ("unit", "model", "from (x, y)", "to (x, y)", "moves", "facing")


def _xy(x: float, y: float) -> str:
    return f"({x:.2f}, {y:.2f})"


def heading(report: SuggestReport) -> str:
    """What the suggestions are: the measure, the grid, the other units fixed."""
    return (f"Suggested moves: for each illegal unit, the least total movement of its models (sum of the "
            f"centre-to-centre distances, inches) over the candidate moves named on its line, found by the planner "
            f"on its {report.grid_in:g}\" candidate grid, every other unit staying where it stands "
            f"({report.time_limit_s:g} s per unit)")


def summary(s: UnitSuggestion) -> str:
    """One line for a unit: its rules, the status and the total move, the checker's verdict after."""
    rules = ", ".join(s.rule_ids) if s.rule_ids else "no rule broken"
    moved = "" if s.moved_units == [s.unit_id] or not s.moved_units else f" (moving {', '.join(s.moved_units)})"
    if s.status == "already_legal":
        return f"{s.unit_id}: already legal"
    if s.status in ("optimal", "feasible"):
        after = "the checker passes the unit after the move" if s.legal_after else \
            "the checker still finds the unit illegal after the move"
        proof = (s.proof or "least over the planner's candidate moves on the grid") if s.status == "optimal" else \
            "not proven least (time limit) " + (s.proof or "on the grid").replace("least over", "over", 1)
        line = f"{s.unit_id} [{rules}]: move {s.total_move_in:.3f}\" in total{moved}, {proof}; {after}"
        if s.new_violations:
            line += "; the move would break: " + ", ".join(s.new_violations)
        return line
    return f"{s.unit_id} [{rules}]: {s.status}: {s.message}"


def move_rows(s: UnitSuggestion) -> list[tuple[str, ...]]:
    """One row per model that moves: unit, model, from, to, distance (inches), facing."""
    return [(m.unit_id, m.model_id, _xy(m.from_x, m.from_y), _xy(m.to_x, m.to_y), f"{m.distance_in:.3f}\"",
             f"{m.from_facing:g}" if m.from_facing == m.to_facing else f"{m.from_facing:g} -> {m.to_facing:g}")
            for m in s.moves]


def print_suggestions(report: SuggestReport, console: Console) -> None:
    """The suggestions as plain lines on the console."""
    console.print(rich_escape(heading(report) + ":"), highlight=False)
    if not report.units:
        console.print("  no illegal unit: nothing to move", highlight=False)
    for s in report.units:
        console.print(rich_escape("  " + summary(s)), highlight=False)
        for r in move_rows(s):
            console.print(rich_escape(f"    {r[0]} model {r[1]}: {r[2]} -> {r[3]}  {r[4]}  facing {r[5]}"),
                          highlight=False)


def suggestions_markdown(report: SuggestReport) -> str:
    """A Markdown section: the heading, then per unit its line and a table of the moves."""
    from planner.report.markdown import _table, md_text

    out = ["## Suggested moves", "", md_text(heading(report)) + ".", ""]
    if not report.units:
        out += ["No illegal unit: nothing to move.", ""]
    for s in report.units:
        out += [f"- {md_text(summary(s))}", ""]
        rows = move_rows(s)
        if rows:
            out += _table(MOVE_HEADERS, rows) + [""]
    return "\n".join(out) + "\n"


def suggestions_html(report: SuggestReport) -> str:
    """An HTML section (``id="suggestions"``): the heading, per unit its line and a table of the moves."""
    from planner.report.html import _table

    out = ['<section id="suggestions">', "<h2>Suggested moves</h2>", f"<p>{escape(heading(report))}.</p>"]
    if not report.units:
        out.append("<p>No illegal unit: nothing to move.</p>")
    for s in report.units:
        out.append(f'<p id="suggest-{escape(s.unit_id, quote=True)}">{escape(summary(s))}</p>')
        rows = move_rows(s)
        if rows:
            out += _table(MOVE_HEADERS, rows, num_cols=(4,))
    out.append("</section>")
    return "\n".join(out) + "\n"
