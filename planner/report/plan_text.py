"""Terminal rendering of a plan: solver status, objective, placements and their explanation."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from planner.report.ruling import term_text
from planner.report.text import print_check_report
from planner.solve.planner import PlanResult


def print_plan_report(result: PlanResult, console: Console) -> None:
    """Print the solver status, the objective and bound, each placement and why it is legal."""
    from planner.report.ruling import status_words

    colour = {"optimal": "green", "feasible": "yellow", "infeasible": "red", "unknown": "red"}[result.status]
    if result.legal is False:
        colour = "red"
    console.print(f"Solver status: [{colour}]{escape(status_words(result))}[/{colour}] - {escape(result.message)}")
    if result.objective is not None:
        bound = (f"best bound {result.best_bound:.3f}, gap {result.gap:.2%}" if result.best_bound is not None
                 else "no bound")
        console.print(f"Objective: {result.objective:.3f} ({bound}); wall time {result.wall_time_s:.2f} s")
        for gv in result.goals:
            console.print(f"  {escape(term_text(gv))}", highlight=False)
    else:
        console.print(f"Wall time {result.wall_time_s:.2f} s")
    for c in result.conflicts:
        console.print(f"  [red]conflict[/red] {escape(', '.join(c.rules))}: {escape(c.message)}", highlight=False)
    if result.placements:
        t = RichTable(title="Placements")
        t.add_column("unit")
        t.add_column("formation")
        t.add_column("anchor (in)")
        t.add_column("cost (weighted goals)", justify="right")
        t.add_column("nearest enemy", justify="right")
        t.add_column("candidates", justify="right")
        for p in result.placements:
            t.add_row(escape(p.unit), p.formation, f"({p.anchor[0]:g}, {p.anchor[1]:g})", f"{p.cost:.2f}",
                      "" if p.nearest_enemy is None else f"{p.nearest_enemy:.3f}\"", str(p.candidates))
        console.print(t)
    if result.legality is not None:
        placed = {p.unit for p in result.placements}
        console.print("Why each placement is legal (independent checker):")
        for u in result.legality.units:
            if u.unit in placed or any(f.unit in placed for f in u.findings):
                if u.unit not in placed:
                    continue
                console.print(f"[bold]{escape(u.unit)}[/bold] ({escape(u.setup)})")
                for f in u.findings:
                    mark = "[green]ok[/green]  " if f.passed else "[red]FAIL[/red]"
                    console.print(f"  {mark} {escape(f'[{f.rule}] {f.message}')}", highlight=False)
        print_check_report(result.legality.model_copy(update={"scenario": "the planned deployment"}), console)
