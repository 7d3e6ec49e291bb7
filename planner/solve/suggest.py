"""``planner check --suggest``: for each illegal unit, the nearest legal position.

"Nearest" is the least *total movement* of the unit's models: the sum over its models (and the
Independent Characters joined to it, which move with it) of the distance each model's centre
moves, centre to centre, in inches. The answer comes from the planner
(:func:`planner.solve.planner.plan_deployment`) with one goal, ``stay_close`` (the sum of the
centre distances from where the models stand), placing that unit alone with every other unit
fixed where it stands; there is no second legality predicate here.

The planner searches a family of candidate moves on its grid (:func:`planner.solve.candidates.kept_shapes`),
named in each suggestion (``family`` and the text ``proof``):

- ``unit_with_characters``: every formation it knows at every grid point of the unit's region;
  the unit's shape as it stands (with its joined characters) moved by whole grid steps; that
  shape with one model moved to a grid point within :data:`planner.solve.candidates.REPAIR_RADIUS_IN`
  of it (groups of at most :data:`planner.solve.candidates.REPAIR_MAX_MODELS` models); that shape
  with two or more of the models the checker names as failing a rule (``failing_models``, 2 to
  :data:`planner.solve.candidates.REPAIR_MAX_FAULTY` of them) moved at once, each to a grid point
  within ``REPAIR_RADIUS_IN`` of it where the planner's judge passes it alone, the rest standing
  (the :data:`planner.solve.candidates.REPAIR_MAX_COMBINATIONS` least moves,
  :func:`planner.solve.candidates.faulty_moved`): two models poking out of the zone at either end
  of a line move, not the whole unit; and that shape with one part moved alone by whole grid
  steps, the rest standing: a joined character, its host, or the models cut off as they stand
  (:func:`planner.solve.candidates.moved_parts`).
- ``character_alone``: for a finding of a joined Independent Character, tried first: only that
  character moves (its shape by whole grid steps, or one of its models to a grid point within
  ``REPAIR_RADIUS_IN``), its host and the other characters standing. Taken when it makes the
  character legal; else the whole family above is searched.

``optimal`` means no candidate of that family on that grid moves less, as the planner judges
candidates (line of sight by its sound fast test: a placement it cannot prove hidden is not
offered); a move outside the family or off the grid may. The planner keeps no tape-measure margin
here (``margin_in=0``): the suggestion is judged exactly as the checker judges.

The units are taken in scenario order, each with the moves suggested before it applied: when
two units overlap, the first moves and the second, legal once it has, stays (``already_legal``,
its message naming the units that moved). Applying every suggestion (``--suggest-out``) gives the
table the last suggestion was checked on.

Every suggestion is re-checked by the independent checker on the whole scenario with the moves
applied (``legal_after``: no failing finding of the unit; ``new_violations``: findings of other
units that the move would cause). A move the checker does not pass is never ``optimal`` or
``feasible``: it would be the planner and the checker disagreeing, and the suggestion is
``unknown``, with no moves, its message saying so.
"""

from __future__ import annotations

import copy
import dataclasses
import math
import time
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from planner.errors import ScenarioError
from planner.legality.checker import check_deployment
from planner.legality.report import LegalityReport
from planner.schema import RoundBase, Scenario, SetupMethod
from planner.solve.candidates import (
    REPAIR_MAX_COMBINATIONS,
    REPAIR_MAX_FAULTY,
    REPAIR_MAX_MODELS,
    REPAIR_RADIUS_IN,
)
from planner.units import TOLERANCE_IN
from planner.world import World, no_unit_text, resolve

DEFAULT_GRID_IN = 0.5
"""The grid of the suggestions, inches (finer than the planner's default 1": moves are small)."""

_PLACEABLE = (SetupMethod.DEPLOYMENT_ZONE, SetupMethod.INFILTRATE, SetupMethod.SCOUT)


class ModelMove(BaseModel):
    """One model's move: from where it stands to the suggested position (inches, degrees)."""

    model_config = ConfigDict(extra="forbid")
    unit_id: str
    model_id: str
    from_x: float
    from_y: float
    to_x: float
    to_y: float
    distance_in: float = Field(description="Centre to centre, inches.")
    from_facing: float
    to_facing: float


class UnitSuggestion(BaseModel):
    """The suggestion for one unit."""

    model_config = ConfigDict(extra="forbid")
    unit_id: str
    status: Literal["already_legal", "optimal", "feasible", "infeasible", "unknown"]
    total_move_in: float = Field(0.0, description="Sum of the models' centre-to-centre moves, inches.")
    moves: list[ModelMove] = Field(default_factory=list, description="The models that move (others stay).")
    rule_ids: list[str] = Field(default_factory=list, description="The rules the unit breaks where it stands.")
    moved_units: list[str] = Field(default_factory=list, description="The unit and the characters joined to it.")
    legal_after: bool | None = Field(None, description="The checker's verdict on the unit after the moves.")
    new_violations: list[str] = Field(default_factory=list,
                                      description="'unit: rule' findings of other units the moves would cause.")
    family: Literal["unit_with_characters", "character_alone"] | None = Field(
        None, description="The candidate moves searched (see the module doc); None when nothing was searched.")
    proof: str = Field("", description="What 'optimal' covers: the candidate moves searched and the grid.")
    limit: Literal["formations", "grid"] | None = Field(
        None, description="Status unknown because of a limit of the planner (its PlanResult.limit): 'grid' (no "
                          "legal move on the candidate grid, proven over the grid only: a move off it may be "
                          "legal), 'formations'; None otherwise.")
    message: str = ""


class SuggestReport(BaseModel):
    """Suggestions for the illegal units (or the units asked for), in scenario order."""

    model_config = ConfigDict(extra="forbid")
    units: list[UnitSuggestion] = Field(default_factory=list)
    grid_in: float = Field(DEFAULT_GRID_IN, description="The planner's candidate grid, inches.")
    time_limit_s: float = Field(description="Planner time per unit, seconds.")
    measure: str = "total movement: sum over the models of the centre-to-centre distance moved, inches"

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data (``model_dump(mode="json")``)."""
        return self.model_dump(mode="json")

    def moved_scenario(self, world: World) -> dict[str, Any]:
        """The scenario's data (as written, where known) with every suggested move applied."""
        return apply_moves(world, [m for s in self.units for m in s.moves])


def apply_moves(world: World, moves: list[ModelMove]) -> dict[str, Any]:
    """The scenario's data (``world.raw`` when every moved unit is in it, else the resolved
    scenario) with ``moves`` applied (x, y and facing of each moved model)."""
    by_unit: dict[str, dict[str, ModelMove]] = {}
    for mv in moves:
        by_unit.setdefault(mv.unit_id, {})[mv.model_id] = mv
    data = None
    if world.raw is not None:
        data = copy.deepcopy(world.raw)
        listed = {u.get("id") for a in data.get("armies", []) for u in a.get("units", []) if isinstance(u, dict)}
        if not set(by_unit) <= listed:
            data = None  # a unit read from a roster file: write the resolved scenario
    if data is None:
        data = world.scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
    for army in data["armies"]:
        for unit in army.get("units", []):
            mine = by_unit.get(unit["id"])
            if not mine:
                continue
            info = world.units[unit["id"]]
            models = []
            for m, mi in zip(unit["models"], info.models, strict=True):
                mv = mine.get(mi.id)
                models.append(m if mv is None else {**m, "x": mv.to_x, "y": mv.to_y, "facing": mv.to_facing})
            unit["models"] = models
    return data


def suggest_moves(world: World, unit_ids: list[str] | None = None, time_limit_s: float = 10.0, *,
                  grid_in: float = DEFAULT_GRID_IN, seed: int = 0) -> SuggestReport:
    """For each illegal unit (or each of ``unit_ids``), the least total movement of its models
    that makes it legal, other units standing where they are.

    Parameters
    ----------
    world : World
        A resolved scenario with every unit on the battlefield positioned.
    unit_ids : list of str, optional
        The units to suggest moves for (default: every unit the checker finds illegal). A unit
        that is legal gets status ``already_legal``.
    time_limit_s : float
        Planner time per unit, seconds.
    grid_in : float
        The planner's candidate grid, inches.
    seed : int
        CP-SAT seed.

    Returns
    -------
    SuggestReport
        Per unit: status (``already_legal``; ``optimal``: no candidate move of the family searched
        (``family``, said in ``proof``: the unit with its characters, or a joined character alone,
        tried first for a character's finding) on the grid moves less;
        ``feasible``: a legal move, not proven least; ``infeasible``: the rules alone leave no
        legal position (e.g. the rule broken does not depend on where the models stand);
        ``unknown``: no answer in time, a set-up the planner does not place, or no candidate of
        the grid legal, ``limit`` ``"grid"``: proven over the grid only), the total move (inches), each
        model's move (centre to centre), the rules broken where it stands, and the checker's
        verdict with the moves applied.

    Raises
    ------
    ScenarioError
        A unit id that is not in the scenario (location ``--unit``), a unit without positions, a
        time limit outside 0.1-3600 s or a grid outside 0.05-12 inches.
    """
    from planner.solve.planner import SolverSettings, plan_deployment

    if not (isinstance(time_limit_s, int | float) and 0.1 <= time_limit_s <= 3600):
        raise ScenarioError("a time limit per unit from 0.1 to 3600 seconds", location="time_limit_s",
                            value=time_limit_s)
    if not (isinstance(grid_in, int | float) and 0.05 <= grid_in <= 12):
        raise ScenarioError("a grid from 0.05 to 12 inches", location="grid_in", value=grid_in)

    report = check_deployment(world)
    broken: dict[str, list[str]] = {}
    for v in report.violations:
        if v.unit is not None:
            broken.setdefault(v.unit, [])
            if v.rule not in broken[v.unit]:
                broken[v.unit].append(v.rule)
    if unit_ids is None:
        targets = [uid for uid in world.units if uid in broken]
    else:
        for uid in unit_ids:
            if uid not in world.units:
                raise ScenarioError(no_unit_text(world.units),
                                    file=world.file, location="--unit", value=uid)
        targets = list(dict.fromkeys(unit_ids))
    settings = SolverSettings(time_limit_s=time_limit_s, workers=1, seed=seed, grid_in=grid_in, margin_in=0.0)
    out: list[UnitSuggestion] = []
    current: World = world  # the table with the moves suggested so far applied
    moved_by: list[str] = []
    for uid in targets:
        if moved_by:
            report = check_deployment(current)
        now = sorted({v.rule for v in report.violations if v.unit == uid})
        if not now:
            was = broken.get(uid)
            out.append(UnitSuggestion(unit_id=uid, status="already_legal", legal_after=True, rule_ids=sorted(was or []),
                                      message="legal where it stands" if not was else
                                      f"legal where it stands once {', '.join(moved_by)} moved as suggested above"))
            continue
        s = _suggest_one(current, uid, now, settings, _failing(report), plan_deployment, _faulty(report))
        out.append(s)
        if s.moves:
            current = resolve(Scenario.model_validate(apply_moves(current, s.moves)), world.file)
            moved_by.append(uid)
    return SuggestReport(units=out, grid_in=grid_in, time_limit_s=time_limit_s)


def _failing(report: LegalityReport) -> set[tuple[str, str]]:
    return {(v.unit, v.rule) for v in report.violations if v.unit is not None}


def _faulty(report: LegalityReport) -> frozenset[str]:
    """The models (``unit/model``) the checker names as failing a rule: every one of a rule
    judged model by model (``failing_models``), else the finding's model."""
    return frozenset(f"{v.unit}/{m}" for v in report.violations if v.unit is not None
                     for m in (v.failing_models or ([v.model] if v.model is not None else [])))


def _suggest_one(world: World, uid: str, rules: list[str], settings, before: set[tuple[str, str]],
                 plan_deployment, faulty: frozenset[str] = frozenset()) -> UnitSuggestion:
    """The planner's stay-close answer for unit ``uid`` (moved with its group)."""
    u = world.units[uid]
    host = world.units[u.setup.joined] if u.setup.joined else u
    members = [host.id] + [ic for ic in host.joined_by if world.units[ic].on_battlefield]
    base = dict(unit_id=uid, rule_ids=rules, moved_units=members)
    if not host.on_battlefield or host.method not in _PLACEABLE:
        return UnitSuggestion(**base, status="unknown",
                              message=f"set up by {host.method.value}: the planner places units set up in their "
                                      "deployment zone, by Infiltrate or by a Scout move")
    if not all(world.units[m].is_positioned for m in members):
        raise ScenarioError("a unit needs model positions for a suggestion", file=world.file, location="--unit",
                            value=uid)
    waived = frozenset(members) - {uid}
    planning = _planning_world(world, members)
    static = _static_reason(planning, members, waived)
    if static is not None:
        rule, who = static
        return UnitSuggestion(**base, status="infeasible",
                              message=f"no move can make it legal: {rule}" + (f" ({who})" if who else "")
                                      + " does not depend on where the models stand")
    grid = f"on the {settings.grid_in:g}\" grid"
    if u.setup.joined:  # a joined character's finding: the character alone first, its host standing
        # within the one time limit of the unit: half for the character alone, the rest for the whole unit
        t0 = time.monotonic()
        whole = settings
        settings = dataclasses.replace(settings, time_limit_s=settings.time_limit_s / 2)
        others = [m for m in members if m != uid]
        alone = _planned(world, planning, uid, members, settings, before, plan_deployment, waived,
                         frozenset(others), frozenset(), base | {"moved_units": [uid], "family": "character_alone",
                         "proof": f"least over the moves of {uid} alone ({', '.join(others)} standing): its shape "
                                  f"moved by whole grid steps, or one of its models moved up to {REPAIR_RADIUS_IN:g}\" "
                                  f"to a grid point (groups of up to {REPAIR_MAX_MODELS} models), {grid}"})
        if alone.legal_after:
            return alone
        settings = dataclasses.replace(whole, time_limit_s=max(whole.time_limit_s / 2,
                                                               whole.time_limit_s - (time.monotonic() - t0)))
    family = ("the planner's formations at every grid point; the shape as it stands moved by whole grid steps, "
              f"with one model moved up to {REPAIR_RADIUS_IN:g}\" (groups of up to {REPAIR_MAX_MODELS} models), ")
    together = (f"with 2-{REPAIR_MAX_FAULTY} of the models the checker names moved at once, each up to "
                f"{REPAIR_RADIUS_IN:g}\" to a grid point where the planner's judge passes it alone (the "
                f"{REPAIR_MAX_COMBINATIONS} least moves), ")
    parts = "or with one part moved alone: a joined character, its host, the models cut off"
    t0 = time.monotonic()
    least = _planned(world, planning, uid, members, settings, before, plan_deployment, waived, frozenset(), faulty,
                     base | {"family": "unit_with_characters",
                             "proof": f"least over the candidate moves ({family}{together}{parts}), {grid}"})
    if not (faulty and least.legal_after and least.new_violations):
        return least
    # The least move breaks a unit that was legal (an Infiltrator it now stands near, say): a user
    # would rather move a little more and break nothing. The family without the moves of the named
    # models together is searched again, within what is left of the unit's time limit.
    rest = dataclasses.replace(settings, time_limit_s=max(settings.time_limit_s / 2,
                                                          settings.time_limit_s - (time.monotonic() - t0)))
    clean = _planned(world, planning, uid, members, rest, before, plan_deployment, waived, frozenset(), frozenset(),
                     base | {"family": "unit_with_characters",
                             "proof": f"least over the candidate moves ({family}{parts}), {grid}; the least move "
                                      f"with the named models moved together ({least.total_move_in:.3f}\") would "
                                      f"break {', '.join(least.new_violations)}"})
    if clean.legal_after and not clean.new_violations:
        clean.message = (f"{clean.message}; a move of {least.total_move_in:.3f}\" (the named models moved together) "
                         f"would break {', '.join(least.new_violations)}: this one breaks nothing").lstrip("; ")
        return clean
    return least


def _planned(world: World, planning: World, uid: str, members: list[str], settings, before: set[tuple[str, str]],
             plan_deployment, waived: frozenset[str], standing: frozenset[str], faulty: frozenset[str],
             base: dict) -> UnitSuggestion:
    """The suggestion of one planner run (``standing``: the members that may not move; ``faulty``:
    the models the checker names, moved together in some candidates)."""
    result = plan_deployment(planning, settings, units=[world.units[members[0]].id], waived=waived,
                             standing=standing, faulty=faulty)
    if result.status in ("infeasible", "unknown") or result.scenario is None:
        return UnitSuggestion(**base, status=result.status, limit=result.limit, message=result.message)
    moves = _moves(world, resolve(result.scenario, world.file), members)
    after = result.legality
    assert after is not None  # every plan is re-checked
    legal_after = not any(v.unit == uid for v in after.violations)
    new = sorted(f"{w}: {r}" for w, r in _failing(after) - before if w not in (uid,) and w not in members)
    total = sum(m.distance_in for m in moves)
    if not legal_after:
        # the planner judged its move legal and the checker does not: no suggestion (never 'optimal')
        rules = sorted({v.rule for v in after.violations if v.unit == uid})
        return UnitSuggestion(**base, status="unknown", legal_after=False, new_violations=new,
                              message=f"the planner's least candidate move ({total:.3f}\") does not pass the "
                                      f"independent checker ({', '.join(rules)}): the planner and the checker "
                                      "disagree, no move is suggested (please report it)")
    return UnitSuggestion(**base, status=result.status, total_move_in=total,
                          moves=[m for m in moves if m.distance_in > TOLERANCE_IN or m.from_facing != m.to_facing],
                          legal_after=legal_after, new_violations=new, message=result.message)


def _static_reason(world: World, members: list[str], waived: frozenset[str]) -> tuple[str, str | None] | None:
    """The ruleset judge's reason why no position of the group can be legal (eligibility,
    joining), ``waived`` members not asked; None if its position decides."""
    from planner.solve.candidates import CandidateBuilder, Group

    builder = CandidateBuilder(world.ruleset.table(world), [], 1.0, [])
    builder.waived = waived
    units = [world.units[m] for m in members]
    return world.ruleset.planner_judge().static_reason(builder, Group(units[0], units))


def _planning_world(world: World, members: list[str]) -> World:
    """The scenario with only ``members`` to place and the one goal ``stay_close``."""
    data = world.scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
    for army in data["armies"]:
        for unit in army.get("units", []):
            unit["place"] = unit["id"] in members
    data["goals"] = [{"kind": "stay_close", "name": "stay close (total movement, centre to centre)"}]
    return resolve(Scenario.model_validate(data), world.file)


def _moves(world: World, moved: World, members: list[str]) -> list[ModelMove]:
    """Each member model's move. A unit whose bases are all round keeps its facings (its footprint
    is the same at every facing: a turn the solver made changes nothing and is neither reported
    nor applied)."""
    out = []
    for uid in members:
        round_only = all(isinstance(m.base, RoundBase) for m in world.units[uid].models)
        for a, b in zip(world.units[uid].models, moved.units[uid].models, strict=True):
            assert a.x is not None and a.y is not None and b.x is not None and b.y is not None
            out.append(ModelMove(unit_id=uid, model_id=a.id, from_x=a.x, from_y=a.y, to_x=b.x, to_y=b.y,
                                 distance_in=math.hypot(b.x - a.x, b.y - a.y), from_facing=a.facing,
                                 to_facing=a.facing if round_only else b.facing))
    return out
