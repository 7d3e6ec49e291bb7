"""What ``planner exposure`` does, apart from the command-line plumbing: the exposure report, its
Markdown form and its picture (:mod:`planner.combat.exposure`)."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from planner.combat.exposure import Exposure, ExposureReport, exposure
from planner.errors import ScenarioError
from planner.legality.report import Violation
from planner.world import World

HEADERS = ("unit", "models", "shot by", "expected models lost", "P(none lost)", "expected wounds lost",
           "can shoot it", "hidden, not proven")


ILLEGAL_TABLE_GOING_ON = ("the losses are measured from where the units stand: a unit standing where no move "
                          "could end still shoots from there, and a base already meeting its own side's models "
                          "moves only away from them")
"""What ``planner exposure --allow-illegal-table`` says it does with an illegal table
(:class:`planner.combat.exposure.Mover`)."""


def illegal_table_warnings(found: list[Violation]) -> list[str]:
    """The JSON ``warnings`` of ``planner exposure`` for the violations ``found`` on the table
    (:func:`planner.cli.plan.illegal_table`, with ``--allow-illegal-table``): one line saying what is
    measured, then one per violation; [] for a legal table."""
    if not found:
        return []
    n = len(found)
    return [f"the table is already illegal: {n} violation{'s' if n != 1 else ''} by units already deployed "
            f"(--allow-illegal-table): {ILLEGAL_TABLE_GOING_ON}",
            *(f"unit {v.unit}: {v.message} [{v.rule}]" for v in found)]


def default_player(world: World) -> str:
    """The player whose units are marked ``place`` (else the first army's)."""
    placing = [u.player for u in world.units.values() if getattr(u.record, "place", False)]
    if placing:
        return placing[0]
    players = [a.player for a in world.scenario.armies]
    if not players:
        raise ScenarioError("the scenario has no army", file=world.file, location="armies", value=None)
    return players[0]


def rows(report: ExposureReport) -> list[tuple[str, ...]]:
    """One row per unit shot at (the columns of :data:`HEADERS`)."""
    out: list[tuple[str, ...]] = []
    for u in report.units:
        shots = ", ".join(f"{t.attacker} ({t.weapon}{', moved' if t.moved else ''}"
                          f"{', half range' if t.half_range else ''}{', in cover' if t.in_cover else ''}"
                          f"{', marked' if t.marked else ''})" for t in u.shot_by) or "-"
        out.append((u.unit, str(u.models), shots, f"{u.expected_models_lost:.3f}",
                    f"{u.models_lost[0]:.4f}" if u.models_lost else "1", f"{u.expected_wounds_lost:.3f}",
                    ", ".join(u.can_shoot) or "-", ", ".join(u.not_proven) or "-"))
    return out


def summary_lines(report: ExposureReport) -> list[str]:
    """The report's statements, one a line."""
    who = "the enemy" if report.first == "enemy" else "me"
    lines = [f"First turn: {who}; shooting side: {report.shooter}; side shot at: {report.player} ({report.ruleset})",
             f"Expected models lost: {report.expected_models_lost:.3f}; wounds lost: "
             f"{report.expected_wounds_lost:.3f}",
             "Targets (each attacking unit's choice, the worst for the side shot at): "
             + (", ".join(f"{a} -> {t or 'none in reach'}" for a, t in report.choices.items()) or "none")]
    if report.marked is not None:
        lines.append(f"Marked for Death: {report.marked}")
    for o in report.objective_control:
        lines.append(f"Expected OC on {o.objective} after the enemy's turn: {o.expected:.3f} ("
                     + ", ".join(f"{u} {v:.3f} of {o.full[u]}" for u, v in o.units.items()) + ")")
    lines.append(f"Volleys: {report.volleys_computed} computed, {report.volleys_cached} from the cache")
    return lines


def exposure_markdown(report: ExposureReport, scenario: str) -> str:
    """The Markdown report."""
    from planner.report.markdown import _table, md_text

    out = [f"# Exposure: {md_text(scenario)}", ""]
    out += [f"- {md_text(x)}" for x in summary_lines(report)] + [""]
    out += ["## Per unit", ""] + _table(HEADERS, rows(report)) + [""]
    out += ["## Interpretations", ""] + [f"- {md_text(s)}" for s in report.interpretations]
    return "\n".join(out) + "\n"


def overlay(ex: Exposure, report: ExposureReport) -> Any:
    """The picture's overlay: threat regions per attacking unit, my units' expected losses."""
    import shapely
    from shapely.ops import unary_union

    from planner.render import ExposureOverlay

    regions = []
    for a in ex.attackers:
        ranges = [float(w.range_in or 0) for w in ex.weapons[a.id]]
        if not ranges:
            continue
        mv = ex.mover(a)
        geoms = [shapely.Point(f.cx, f.cy).buffer(float(f.outer_radius) + max(ranges), 32)
                 for m in mv.moves for f in mv.at(m)]
        if geoms:
            regions.append((a.id, unary_union(geoms).intersection(ex.table.battlefield)))
    return ExposureOverlay(regions, {u.unit: (u.expected_models_lost, u.models) for u in report.units})


def run_exposure(world: World, player: str | None, first: str, *, fmt: str, scenario: str,
                 render_path: str | None, console: Console) -> tuple[dict[str, Any], int]:
    """``planner exposure``: print the report (text or Markdown), draw it if asked; the JSON data
    and exit code 0.

    Raises ScenarioError (exit 2) for a unit without a profile or M, an unknown player or format.
    """
    if fmt not in ("text", "markdown"):
        raise ScenarioError("choose text or markdown (the JSON report: --json)", location="--format", value=fmt)
    me = player if player is not None else default_player(world)
    if me not in {a.player for a in world.scenario.armies}:
        raise ScenarioError("no army of this player in the scenario", file=world.file, location="--player",
                            value=me)
    report = exposure(world, me, first=first)
    data = {"scenario": scenario, **report.to_json()}
    if fmt == "markdown":
        console.print(exposure_markdown(report, scenario), markup=False, highlight=False)
    else:
        for line in summary_lines(report):
            console.print(escape(line))
        t = Table(title=f"Exposure of {escape(report.player)} ({report.ruleset})")
        for h in HEADERS:
            t.add_column(h, justify="right" if h in ("models", "expected models lost", "P(none lost)",
                                                     "expected wounds lost") else "left")
        for r in rows(report):
            t.add_row(*(escape(c) for c in r))
        console.print(t)
        console.print("Interpretations:")
        for s in report.interpretations:
            console.print(f"  - {escape(s)}")
    if render_path is not None:
        from planner.render import RenderOptions, render_file

        ex = Exposure(world, report.player)
        opts = RenderOptions(exposure=overlay(ex, report), title=f"Exposure of {report.player}: "
                             f"{report.expected_models_lost:.2f} models expected lost")
        summary = render_file(world, render_path, None, opts)
        console.print(f"Wrote the picture to {escape(render_path)}")
        data["render"] = {"file": render_path, "counts": summary.counts}
    return data, 0
