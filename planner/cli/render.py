"""What ``planner render`` and ``deepstrike --render`` do, apart from the command-line plumbing."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from planner.render.draw import HeatMap, RenderOptions, render_file
from planner.world import World


def report_if_complete(world: World):
    """The legality report of the scenario if every unit on the battlefield has positions and the
    ruleset has a checker; else None (a planning scenario, or a Deep Strike-only ruleset)."""
    from planner.errors import UnknownRulesetError
    from planner.legality.checker import check_deployment

    if not all(u.is_positioned for u in world.units.values() if u.on_battlefield):
        return None
    try:
        return check_deployment(world)
    except UnknownRulesetError:  # a ruleset without a deployment checker (e.g. 40k Deep Strike only)
        return None


def deepstrike_heat(world: World, unit: str, ruleset: str | None = None, orientation: float = 0.0,
                    resolution: float = 1.0, rulings: dict[str, str] | None = None) -> HeatMap:
    """The Deep Strike heat map of ``unit`` (the grid of ``planner deepstrike --map``; ``rulings``:
    ``--ruling`` readings of the Deep Strike rulings).

    Raises
    ------
    ScenarioError
        Unknown unit, a unit that cannot Deep Strike, or a ruleset without a Deep Strike procedure.
    """
    from planner.deepstrike.procedure import heat_map, make_setup

    st = make_setup(world, unit, ruleset, orientation, rulings=rulings)
    xs, ys, P = heat_map(st, resolution)
    from planner.deepstrike.formation import fixed_orientation_note

    label = (f"P(relocated) of the first model of {unit} ({st.rules.ruleset})" if st.rules.procedure == "assault"
             else f"P(mishap) of {unit} ({st.rules.ruleset})" if st.rules.scatter
             else f"illegal set-up (1) / legal (0), {unit} ({st.rules.ruleset})")
    note = fixed_orientation_note(st)
    return HeatMap(xs, ys, P, label + (f", {note}" if note else ""))


def run_render(world: World, out: str, *, exclusion: str | None, legal: str | None, sight_lines: bool,
               heat_unit: str | None, resolution: float, console: Console) -> tuple[dict, int]:
    """Draw the scenario to ``out``; return the JSON data and the exit code (0: drawn)."""
    report = report_if_complete(world)
    heat = deepstrike_heat(world, heat_unit, resolution=resolution) if heat_unit else None
    opts = RenderOptions(exclusion_for=exclusion, legal_area=legal, sight_lines=sight_lines, heat=heat)
    summary = render_file(world, out, report, opts, option="--out")
    verdict = ("not checked (units without positions, or no checker for this ruleset)" if report is None
               else "legal" if report.legal else f"illegal ({len(report.violations)} violations ringed in red)")
    console.print(f"Wrote the battlefield picture to {escape(out)}: "
                  f"{summary.counts.get('base', 0)} bases, {summary.counts.get('terrain', 0)} terrain features; "
                  f"deployment {verdict}")
    return {"file": out, "scenario": world.file, "counts": summary.counts, "legend": summary.legend,
            "checked": report is not None, "legal": None if report is None else report.legal}, 0


def render_deepstrike(world: World, unit: str, ruleset: str | None, orientation: float, resolution: float,
                      out: str, console: Console, formation: list | None = None, facing: float | None = None,
                      rulings: dict[str, str] | None = None) -> dict:
    """``deepstrike --render``: the battlefield with the unit's Deep Strike heat map and, if given,
    a formation ``[label, [[x, y], ...]]`` (the unit's model centres, inches) drawn with the models'
    true shapes at ``facing``; returns JSON data."""
    heat = deepstrike_heat(world, unit, ruleset, orientation, resolution, rulings)
    drawn = None
    if formation is not None:
        from planner.deepstrike.procedure import make_setup

        st = make_setup(world, unit, ruleset, orientation, facing_deg=facing, rulings=rulings)
        drawn = (formation[0], [S.moved(float(x), float(y)) for (x, y), S in zip(formation[1], st.shapes, strict=True)])
    summary = render_file(world, out, report_if_complete(world),
                          RenderOptions(heat=heat, formation=drawn, formation_player=world.units[unit].player))
    console.print(f"Wrote the battlefield with the Deep Strike heat map to {escape(out)}")
    return {"file": out, "counts": summary.counts}
