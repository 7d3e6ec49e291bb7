"""Terminal rendering of reports with rich: a table per player, one line per violation."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from planner.legality.report import LegalityReport
from planner.report.ruling import fmt_margin, fmt_number


def print_check_report(report: LegalityReport, console: Console, *, verbose: bool = False) -> None:
    """Print the legality report: per unit its set-up, verdict and tightest margin; then violations.

    With ``verbose`` every finding of every unit is listed (the full explanation).
    """
    t = RichTable(title=escape(f"Deployment check ({report.ruleset})"
                               + (f": {report.scenario}" if report.scenario else "")))
    t.add_column("player")
    t.add_column("unit")
    t.add_column("set up by")
    t.add_column("verdict")
    t.add_column("tightest margin", justify="right")
    t.add_column("rule")
    for u in report.units:
        verdict = "to place" if u.to_place else "[green]legal[/green]" if u.legal else "[red]ILLEGAL[/red]"
        t.add_row(escape(u.player), escape(f"{u.unit} ({u.name})" if u.name != u.unit else u.unit), escape(u.setup),
                  verdict,
                  fmt_margin(u.tightest_margin, failing=not u.legal), u.tightest_rule or "")
    console.print(t)
    if report.cover is not None:
        c = RichTable(title="Benefit of cover (per model, against each enemy unit)")
        for col in ("unit", "model", "against", "cover", "why"):
            c.add_column(col)
        for mc in report.cover:
            c.add_row(escape(mc.unit), escape(mc.model), escape(mc.against),
                      "[green]yes[/green]" if mc.cover else "no", escape(mc.reason))
        console.print(c)
    if report.rulings:
        from planner.legality.report import ruling_line

        console.print("Rulings applied:")
        for r in report.rulings:
            console.print(escape(f"  {ruling_line(r)}"), highlight=False)
    if verbose:
        for u in report.units:
            console.print(f"[bold]{escape(u.unit)}[/bold] ({escape(u.setup)})")
            for f in u.findings:
                mark = "[green]ok[/green]  " if f.passed else "[red]FAIL[/red]"
                console.print(f"  {mark} {escape(f'[{f.rule}] {f.message}')}", highlight=False)
    if report.violations:
        console.print(f"[red]{len(report.violations)} violation(s):[/red]")
        for v in report.violations:
            where = f"unit {v.unit}" + (f" model {v.model}" if v.model else "")
            meas = f" (measured {fmt_number(v.measured)}; required: {v.required})" if v.measured is not None else \
                f" (required: {v.required})"
            console.print(escape(f"  {where}: {v.message}{meas} [{v.rule}]"), highlight=False)
    else:
        n = sum(u.to_place for u in report.units)
        if n:
            console.print(f"[green]Legal so far:[/green] every rule checked passed; {n} unit{'s' if n != 1 else ''} "
                          "still to place (marked place: true, no positions), not checked.")
        elif not report.units:
            console.print("[yellow]No units to check:[/yellow] the scenario has no units, so no rule was checked "
                          "(nothing breaks a rule).")
        else:
            console.print("[green]Legal deployment:[/green] every rule checked passed.")
