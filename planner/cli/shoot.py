"""What ``planner shoot`` does, apart from the command-line plumbing: one unit shoots another."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from planner.errors import ScenarioError
from planner.world import World


def _vehicle_facing(world: World, attacker: str, target: str, vehicle: Any) -> tuple[str, str]:
    """The facing a Horus Heresy vehicle is hit on, from the placed models, and how it was found."""
    from planner.combat.vehicles import facing_hit
    from planner.schema import HullBase, OvalBase
    from planner.units import mm_to_in

    hull = world.units[target].models[0]
    shooters = [(m.x, m.y) for m in world.units[attacker].models if m.x is not None and m.y is not None]
    if hull.x is None or hull.y is None or not shooters:
        return "front", "Facing hit: front (the units are not both placed; give --facing)."
    if isinstance(hull.base, HullBase):
        length, width = float(hull.base.length_in), float(hull.base.width_in)
    elif isinstance(hull.base, OvalBase):
        length, width = mm_to_in(float(hull.base.length_mm)), mm_to_in(float(hull.base.width_mm))
    else:  # a round base: a square of its diameter
        length = width = mm_to_in(float(hull.base.diameter_mm))
    facing = facing_hit(vehicle, (hull.x, hull.y), hull.facing, length, width,
                        [(float(x), float(y)) for x, y in shooters])
    return facing, f"Facing hit: {facing}, from the placed models (the closest model's arc)."


def _positions_note(world: World, attacker: str, target: str, weapon: str, lookup: Any) -> str:
    """What the dice maths take from the table: nothing but a vehicle's facing. Where both units are
    placed, the closest models' distance (closest point to closest point, inches) against the weapon's
    range (within range: not more than it, :func:`planner.geometry.measure.is_within_distance`)."""
    from planner.combat import profiles as pr
    from planner.geometry.measure import is_within_distance, nearest
    from planner.geometry.shapes import footprint

    words = ("The dice maths assume the shot is made: range, line of sight and cover are not read from where the "
             "models stand (give --half-range, --cover or --in-cover; 'planner exposure' reads the table).")
    a, t = world.units[attacker], world.units[target]
    if not (a.on_battlefield and t.on_battlefield and a.is_positioned and t.is_positioned):
        return words
    fps = [[footprint(m.base, float(m.x), float(m.y), m.facing) for m in u.models if m.x is not None and m.y is not None]
           for u in (a, t)]
    d = nearest(fps[0], fps[1]).distance
    rng = next((w.range_in for m in a.record.models for w in pr.model_weapons(a.record, m, lookup)
                if w.name == weapon and w.range_in), None)
    if rng is None:
        return words
    where = "within" if is_within_distance(d, float(rng)) else "OUT OF"
    return f"On the table the closest models are {d:.3f}\" apart: {where} the weapon's {float(rng):g}\" range. " + words


def run_shoot(world: World, attacker: str, target: str, weapon: str | None, *, moved: bool, half_range: bool,
              cover: int | None, in_cover: bool, attached: bool, console: Console,
              facing: str | None = None) -> tuple[dict[str, Any], int]:
    """The exact distribution of ``attacker`` shooting ``target`` with ``weapon`` (default: its first
    weapon with a range); returns the JSON data and exit code 0. A Horus Heresy target with Armour
    Values is a vehicle: hit on ``facing`` (default: found from the placed models, else front).

    Raises ScenarioError for an unknown unit or weapon, or a profile value the maths needs and lacks.
    """
    from planner.combat import hh2, wh40k
    from planner.combat import profiles as pr
    from planner.combat.vehicles import FACINGS, shoot_vehicle
    from planner.io.catalogue import load_catalogue

    for opt, uid in (("--attacker", attacker), ("--target", target)):
        if uid not in world.units:
            raise ScenarioError(f"no unit {uid!r} in the scenario", file=world.file, location=opt, value=uid)
    if world.units[attacker].player == world.units[target].player:
        raise ScenarioError(f"a unit of the attacker's own player ({world.units[target].player!r}); shoot an "
                            "enemy unit", file=world.file, location="--target", value=target)
    rs = world.ruleset
    cat = load_catalogue(rs.catalogue) if getattr(rs, "catalogue", None) else None
    lookup = cat.get if cat is not None else None
    a_unit, t_unit = world.units[attacker].record, world.units[target].record
    t_info = world.units[target]
    host = world.units[t_info.setup.joined] if t_info.setup.joined in world.units else t_info
    joined_note = ""
    if host.joined_by:
        from planner.combat.exposure import attached_record

        t_unit = attached_record(world, host, lookup)  # the unit and the characters joined to it: one target
        joined_note = (f"Target: {host.id} with {', '.join(host.joined_by)} joined to it, shot as one unit "
                       "(the characters allocated last).")
    if weapon is None:
        ranged = [w for m in a_unit.models for w in pr.model_weapons(a_unit, m, lookup) if w.range_in]
        if not ranged:
            raise ScenarioError(f"unit {attacker!r} has no weapon with a range", file=world.file, location="--attacker",
                                value=attacker)
        weapon = ranged[0].name
    else:  # named in any case: reported by the unit's own name
        weapon = pr.weapon_named(a_unit, weapon, lookup).name
    result: Any
    how = ""
    if facing is not None and facing not in FACINGS:
        raise ScenarioError(f"--facing must be one of {', '.join(FACINGS)}", location="--facing", value=facing)
    if facing is not None and not (rs.COMBAT_DICE == "heresy" and pr.is_vehicle(t_unit, lookup)):
        raise ScenarioError(f"--facing applies to a Horus Heresy vehicle target; {target!r} has no Armour Values",
                            location="--facing", value=facing)
    if rs.COMBAT_DICE == "heresy" and pr.is_vehicle(t_unit, lookup):
        vehicle = pr.hh_vehicle(t_unit, cover=cover, lookup=lookup)
        if facing is None:
            facing, how = _vehicle_facing(world, attacker, target, vehicle)
        else:
            how = f"Facing hit: {facing} (--facing)."
        result = shoot_vehicle(pr.hh_attacker(a_unit, weapon, moved=moved, half_range=half_range, lookup=lookup),
                               vehicle, facing=facing, half_range=half_range,
                               glancing_hull_point=world.ruling("vehicle-glancing-hits") == "hull-point")
    elif rs.COMBAT_DICE == "heresy":
        result = hh2.shoot(pr.hh_attacker(a_unit, weapon, moved=moved, half_range=half_range, lookup=lookup),
                           pr.hh_target(t_unit, cover=cover, lookup=lookup))
    elif rs.COMBAT_DICE == "40k":
        result = wh40k.shoot(pr.attacker_40k(a_unit, weapon, stationary=not moved, half_range=half_range, lookup=lookup),
                             pr.target_40k(t_unit, attached=attached or bool(host.joined_by),
                                        in_cover=in_cover, lookup=lookup),
                             cover=rs.COVER_IN_SHOOTING or "bs", ruleset=rs.id)
    else:
        raise ScenarioError(f"no shooting dice maths for ruleset {rs.id!r} (hh2, wh40k10, wh40k11 have them)",
                            location="ruleset",
                            value=rs.id)
    data = {"weapon": weapon, **result.to_json()}
    on_table = _positions_note(world, attacker, target, weapon, lookup)
    data["interpretations"].append(on_table)
    if how:
        data["interpretations"].append(how)
    if joined_note:
        data["interpretations"].append(joined_note)
    table = Table(title=f"{escape(attacker)} shoots {escape(target)} with {escape(weapon)} ({rs.id})")
    table.add_column("models lost", justify="right")
    table.add_column("probability", justify="right")
    table.add_column("at least", justify="right")
    tail = 1.0
    for k, p in enumerate(result.models_lost):
        table.add_row(str(k), f"{p:.4f}", f"{max(0.0, tail):.4f}")
        tail -= p
    console.print(table)
    console.print(f"expected models lost {result.expected_models_lost:.3f}, "
                  f"{'hull points' if how else 'wounds'} lost {result.expected_wounds_lost:.3f} "
                  f"({result.attacks} attacks)")
    if "OUT OF" in on_table:  # said before the long list: the number is not what this table allows
        console.print(f"[bold]note:[/bold] {escape(on_table.split(' The dice maths', 1)[0])} The figures above "
                      "assume the shot is made.")
    console.print("Interpretations:")
    for note in data["interpretations"]:
        console.print(f"  - {escape(note)}")
    from planner.legality.report import applied_rulings, ruling_line

    applied = applied_rulings(world)
    data["rulings"] = [r.model_dump(mode="json") for r in applied]
    if applied:
        console.print("Rulings applied:")
        for r in applied:
            console.print(escape(f"  {ruling_line(r)}"), highlight=False)
    return data, 0
