"""The Infiltrate alternation, one step at a time (HH2 p.242; RULES.md §1.1).

When both players have Infiltrators they roll off, the winner decides who goes first, then they
alternate deploying those units. ``planner plan --next`` places the next Infiltrator given
everything already on the battlefield, and records its place in the alternation (``setup.order``)
in the written scenario, so that the next ``--next`` run moves on to the other player.

Who is next:

1. Units to place are the Infiltrate units marked ``place: true`` that have no positions yet
   (Independent Characters joining them come along).
2. If any of them has an ``order``, the lowest order is next.
3. Otherwise the players alternate: the player who did not deploy the last Infiltrator (the
   highest order on the battlefield) goes next if it has a unit left; before any Infiltrator is
   down, the first army in the file with one to place goes first (put the roll-off winner's
   choice there, or give ``order`` values). Within a player, units go in file order.
"""

from __future__ import annotations

from typing import Any

from planner.errors import ScenarioError
from planner.schema import SetupMethod
from planner.world import UnitInfo, World


def _waiting(world: World) -> list[UnitInfo]:
    return [u for u in world.units.values()
            if u.record.place and u.method is SetupMethod.INFILTRATE and not u.setup.joined
            and not u.is_positioned]


def _deployed(world: World) -> list[UnitInfo]:
    return [u for u in world.units.values()
            if u.method is SetupMethod.INFILTRATE and not u.setup.joined and u.is_positioned]


def next_infiltrator(world: World, wanted: str | None = None) -> tuple[UnitInfo, int]:
    """The unit to place next and its order in the alternation (1 = first Infiltrator down).
    With ``wanted`` (``plan --next --unit ID``), that unit instead, when the alternation allows it:
    it waits to Infiltrate, belongs to the player whose turn it is, and neither it nor the
    alternation's own choice has an ``order`` fixed in the file.

    Raises
    ------
    ScenarioError
        If no Infiltrate unit is marked ``place: true`` without positions; if ``wanted`` is not
        allowed next (location ``--unit``, the message names the unit the alternation places).
    """
    waiting = _waiting(world)
    if not waiting:
        raise ScenarioError("no Infiltrate unit is marked 'place: true' without positions: nobody is next",
                            file=world.file, location="armies")
    u, order = _next_of(world, waiting)
    if wanted is None or wanted == u.id:
        return u, order
    w = next((x for x in waiting if x.id == wanted), None)
    if w is not None and w.player == u.player and w.setup.order is None and u.setup.order is None:
        return w, order
    why = ("it is not an Infiltrate unit marked 'place: true' without positions" if w is None
           else f"it is player {w.player}'s unit and the turn is player {u.player}'s" if w.player != u.player
           else "the file fixes the Infiltrate order")
    raise ScenarioError(f"the Infiltrate alternation places {u.id} (player {u.player}) next, not this unit: {why}",
                        file=world.file, location="--unit", value=wanted)


def _next_of(world: World, waiting: list[UnitInfo]) -> tuple[UnitInfo, int]:
    """The alternation's own choice among ``waiting`` (not empty), and its order."""
    deployed = _deployed(world)
    last = max((u.setup.order or 0 for u in deployed), default=0)
    order = max(last, len(deployed)) + 1
    with_order = [u for u in waiting if u.setup.order is not None]
    if with_order:
        u = min(with_order, key=lambda u: u.setup.order)
        return u, u.setup.order
    if deployed:
        latest = max(deployed, key=lambda u: (u.setup.order or 0, list(world.units).index(u.id)))
        others = [u for u in waiting if u.player != latest.player]
        if others:
            return others[0], order
    return waiting[0], order


def record_step(data: dict | None, world: World, unit: UnitInfo, order: int) -> None:
    """Before planning the step: the unit to place (and its joined ICs) get ``order``, and in the
    scenario's data (``world.raw``, which the planned scenario is written from) also
    ``place: false``; Infiltrators already down without an order get theirs, in file order,
    before it (they were deployed earlier), so the checker sees the alternation as it happened."""
    earlier = [u.id for u in _deployed(world) if u.setup.order is None]
    numbers = {uid: k + 1 for k, uid in enumerate(earlier)}
    group = {unit.id, *unit.joined_by}
    for uid in group:
        world.units[uid].record.setup.order = order
    for uid, n in numbers.items():
        world.units[uid].record.setup.order = n
    if data is None:
        return
    for army in data["armies"]:
        for rec in army.get("units", []):
            uid = rec.get("id")
            if uid in numbers or uid in group:
                setup: Any = rec.get("setup", "infiltrate")
                if isinstance(setup, str):
                    setup = {"method": setup}
                setup["order"] = numbers.get(uid, order)
                rec["setup"] = setup
                if uid in group:
                    rec["place"] = False
