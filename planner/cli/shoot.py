"""What ``planner shoot`` does, apart from the command-line plumbing: one unit shoots another."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from planner.errors import ScenarioError
from planner.world import World


def run_shoot(world: World, attacker: str, target: str, weapon: str | None, *, moved: bool, half_range: bool,
              cover: int | None, in_cover: bool, attached: bool, console: Console) -> tuple[dict[str, Any], int]:
    """The exact distribution of ``attacker`` shooting ``target`` with ``weapon`` (default: its first
    weapon with a range); returns the JSON data and exit code 0.

    Raises ScenarioError for an unknown unit or weapon, or a profile value the maths needs and lacks.
    """
    from planner.combat import hh2, wh40k
    from planner.combat.profiles import attacker_40k, hh_attacker, hh_target, model_weapons, target_40k
    from planner.io.catalogue import load_catalogue

    for opt, uid in (("--attacker", attacker), ("--target", target)):
        if uid not in world.units:
            raise ScenarioError(f"no unit {uid!r} in the scenario", location=opt, value=uid)
    a_unit, t_unit = world.units[attacker].record, world.units[target].record
    rs = world.ruleset
    cat = load_catalogue(rs.catalogue) if getattr(rs, "catalogue", None) else None
    lookup = cat.get if cat is not None else None
    if weapon is None:
        ranged = [w for m in a_unit.models for w in model_weapons(a_unit, m, lookup) if w.range_in]
        if not ranged:
            raise ScenarioError(f"unit {attacker!r} has no weapon with a range", location="--attacker",
                                value=attacker)
        weapon = ranged[0].name
    if rs.COMBAT_DICE == "heresy":
        result = hh2.shoot(hh_attacker(a_unit, weapon, moved=moved, half_range=half_range, lookup=lookup),
                           hh_target(t_unit, cover=cover, lookup=lookup))
    elif rs.COMBAT_DICE == "40k":
        result = wh40k.shoot(attacker_40k(a_unit, weapon, stationary=not moved, half_range=half_range, lookup=lookup),
                             target_40k(t_unit, attached=attached or bool(world.units[target].joined_by),
                                        in_cover=in_cover, lookup=lookup),
                             cover=rs.COVER_IN_SHOOTING or "bs", ruleset=rs.id)
    else:
        raise ScenarioError(f"no shooting dice maths for ruleset {rs.id!r} (hh2, wh40k10, wh40k11 have them)",
                            location="ruleset",
                            value=rs.id)
    data = {"weapon": weapon, **result.to_json()}
    table = Table(title=f"{escape(attacker)} shoots {escape(target)} with {escape(weapon)} ({rs.id})")
    table.add_column("models lost", justify="right")
    table.add_column("probability", justify="right")
    table.add_column("at least", justify="right")
    tail = 1.0
    for k, p in enumerate(result.models_lost):
        table.add_row(str(k), f"{p:.4f}", f"{max(0.0, tail):.4f}")
        tail -= p
    console.print(table)
    console.print(f"expected models lost {result.expected_models_lost:.3f}, wounds lost "
                  f"{result.expected_wounds_lost:.3f} ({result.attacks} attacks)")
    console.print("Interpretations:")
    for note in result.interpretations:
        console.print(f"  - {escape(note)}")
    return data, 0
