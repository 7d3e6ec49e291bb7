"""Denial (screening): place my units so that the enemy unit's legal Infiltrate area is smallest.

The CP-SAT model ``cp``:

- ``place[<unit>@<k>]``: one Boolean per candidate placement of each of my units
  (:class:`planner.solve.candidates.CandidateBuilder`: formations on a grid, judged exactly);
  ``hh2.placement.one[<unit>]`` exactly one per unit; ``hh2.bases.no_overlap`` pairwise
  exclusions between candidates whose bases overlap (exact);
- ``alive[<anchor>]``: the enemy unit may still arrive with some formation at that anchor. A
  position (formation at an anchor) is removed (``hh2.infiltrate.distance``) if a chosen
  candidate overlaps or is within 9" of it, or (``hh2.infiltrate.hidden``) if some unit of mine
  or a fixed unit is within 12" of it *and* some unit of mine or a fixed unit sees it;
- objective: minimise the number of alive anchors (area = anchors x cell area); with a protected
  point, no position with a base within the radius of the point may stay alive.

Line of sight between a candidate and a position is proven visible by a clear centre line; pairs
not decided are first assumed *visible* (optimistic for me: the model is a relaxation and its
optimum a lower bound on the area). The chosen deployment is then evaluated exactly (the
checker's sight), the pairs it relies on are decided exactly, and the model is solved again until
the model's area equals the exact area: that deployment is then optimal (over the candidates and
the grid). The report gives the proven value, or the best exact area and the lower bound.
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from ortools.sat.python import cp_model
from pydantic import BaseModel, ConfigDict, Field

from planner.adversary.legal_area import ArrivalSpace, Relation, enemy_group, fixed_units
from planner.adversary.threats import EnemyPlacement, ThreatGoal, best_reply, check_with, point_distance
from planner.errors import ScenarioError, SolverError
from planner.geometry.measure import is_within_distance
from planner.legality.checker import check_deployment
from planner.legality.report import LegalityReport
from planner.legality.table import Placed, Table
from planner.schema import Scenario, SetupMethod
from planner.solve import cpsat, stop
from planner.solve.candidates import Candidate, CandidateBuilder, Group
from planner.solve.goals import point_term
from planner.solve.placement_model import add_placements
from planner.solve.planner import rule_ids
from planner.world import World, resolve


@dataclass(frozen=True)
class DenySettings:
    """Limits: wall time (s), CP-SAT workers and seed, my candidate grid and count per unit, the
    enemy anchor grid (inches), and the tape-measure margin kept by my own Infiltrators."""

    time_limit_s: float = 30.0
    workers: int = 2
    seed: int = 0
    grid_in: float = 2.0
    enemy_grid_in: float = 2.0
    candidates_per_unit: int = 40
    margin_in: float = 0.1

    def __post_init__(self) -> None:
        if not 0 <= self.seed <= 2**31 - 1:
            raise ValueError(f"a CP-SAT seed is a whole number from 0 to 2147483647, got {self.seed}")


@dataclass
class Screen:
    """My candidates, the enemy's arrival positions and the relations between them."""

    world: World  # the scenario with the enemy unit(s) off the table
    table: Table
    groups: list[Group]
    cands: dict[str, list[Candidate]]
    spaces: list[ArrivalSpace]
    rel: dict[tuple[int, str, int], Relation]  # (space, unit, candidate index) -> relation
    fixed_sees: list[set[int]]  # per space: positions a fixed unit of mine sees
    conflicts: list[tuple[str, int, str, int]]
    p12: list[list[int]]  # per space: positions some candidate (or a fixed unit) is within 12" of
    exact_pairs: int = 0
    build_s: float = 0.0
    learned: dict[tuple[int, str, int, int], bool] = field(default_factory=dict)

    def sees(self, s: int, gid: str, c: Candidate, p: int) -> bool:
        """Exact sight from candidate ``c`` of unit ``gid`` to position ``p`` of space ``s`` (cached)."""
        r = self.rel[s, gid, c.index]
        if p in r.sees:
            return True
        key = (s, gid, c.index, p)
        if key not in self.learned:
            self.exact_pairs += 1
            unit = next(g for g in self.groups if g.id == gid).host
            v = self.spaces[s].sight_exact(unit, c.footprints, p)
            self.learned[key] = v
            r.unknown.discard(p)
            if v:
                r.sees.add(p)
        return self.learned[key]

    def legal_positions(self, s: int, chosen: dict[str, Candidate]) -> list[int]:
        """Positions of space ``s`` legal against the chosen deployment: exact."""
        sp = self.spaces[s]
        rels = {g: self.rel[s, g, c.index] for g, c in chosen.items()}
        out = []
        for p in sp.positions:
            k = p.index
            if any(k in r.kill9 for r in rels.values()):
                continue
            if not (k in sp.fixed_near12 or any(k in r.near12 for r in rels.values())):
                out.append(k)
                continue
            if k in self.fixed_sees[s] or any(self.sees(s, g, c, k) for g, c in chosen.items()):
                continue
            out.append(k)
        return out

    def _inverted(self, s: int) -> dict[int, tuple[list, list, list]]:
        """Position -> (kill9, near12, sees-or-unknown) candidate keys, built once per space."""
        inv = self.__dict__.setdefault("_inv", {})
        if s not in inv:
            out: dict[int, tuple[list, list, list]] = {}
            for g in self.groups:
                for c in self.cands[g.id]:
                    r = self.rel[s, g.id, c.index]
                    key = (g.id, c.index)
                    for k in r.kill9:
                        out.setdefault(k, ([], [], []))[0].append(key)
                    for k in r.near12:
                        out.setdefault(k, ([], [], []))[1].append(key)
                    for k in r.sees | r.unknown:
                        out.setdefault(k, ([], [], []))[2].append(key)
            inv[s] = out
        return inv[s]

    def model_killable(self, s: int, k: int) -> tuple[list[tuple[str, int]], list[tuple[str, int]],
                                                       list[tuple[str, int]] | None]:
        """(kill9, near12, sees-or-unknown) candidate keys for position ``k``; the third is None
        when a fixed unit already sees it (sight is then given). Pairs decided hidden exactly are
        left out."""
        k9, n12, sv = self._inverted(s).get(k, ([], [], []))
        if k in self.fixed_sees[s]:
            return k9, n12, None
        return k9, n12, [key for key in sv if self.learned.get((s, key[0], key[1], k)) is not False]


def _my_groups(world: World, player: str) -> list[Group]:
    to_place = [u for u in world.units.values() if u.record.place and u.player == player and u.on_battlefield]
    ids = {u.id for u in to_place}
    groups = {u.id: Group(u, [u]) for u in to_place if not u.setup.joined}
    for u in to_place:
        if u.setup.joined:
            if u.setup.joined not in ids:
                raise ScenarioError("an Independent Character marked 'place: true' joins a unit that is not",
                                    file=world.file, location=f"{u.path}.setup.joined", value=u.setup.joined)
            groups[u.setup.joined].members.append(u)
    for g in groups.values():
        if g.host.method not in (SetupMethod.DEPLOYMENT_ZONE, SetupMethod.INFILTRATE):
            raise ScenarioError("denial places units set up by deployment_zone or infiltrate (Scout redeploys are "
                                "not planned yet)", file=world.file, location=f"{g.host.path}.setup.method",
                                value=g.host.method.value)
    return list(groups.values())


def _my_player(world: World, enemy_player: str) -> str | None:
    """My side in a denial: the player opposing the enemy unit's (None: no other player)."""
    me = [p for p in world.players if p != enemy_player]
    return me[0] if me else None


def denial_units(world: World, enemy_unit: str, option: str = "--enemy-unit") -> tuple[str | None, set[str]]:
    """The units a denial (or a min-max) against ``enemy_unit`` places, as :func:`build_screen`
    chooses them: my player (the enemy unit's opponent; None: none) and the ids of my units marked
    ``place: true`` on the battlefield, with the Independent Characters that join them.

    Raises
    ------
    ScenarioError
        As :func:`planner.adversary.legal_area.enemy_group` (named ``option``) and :func:`_my_groups`.
    """
    me = _my_player(world, enemy_group(world, enemy_unit, option).host.player)
    return me, ({u.id for g in _my_groups(world, me) for u in g.members} if me is not None else set())


def off_table(world: World, unit_ids: set[str]) -> World:
    """The scenario with these units in Reserves (not on the table), resolved again."""
    data = copy.deepcopy(world.raw) if world.raw is not None else \
        world.scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
    for army in data["armies"]:
        for unit in army["units"]:
            if unit["id"] in unit_ids:
                setup = unit.get("setup", {})
                setup = {"method": setup} if isinstance(setup, str) else dict(setup)
                keep = {k: v for k, v in setup.items() if k == "joined"}
                unit["setup"] = {"method": "reserves", **keep}
                unit.pop("place", None)
    w = resolve(Scenario.model_validate(data), world.file)
    w.raw = data
    return w


class NoCandidate(Exception):
    """A unit of mine has no legal candidate placement on the candidate grid, so a denial (or a
    min-max) has no deployment to offer: ``status`` ``infeasible`` (the rules alone leave the unit
    no placement, on the grid or off it: :func:`planner.solve.planner._rules_limit`,
    :func:`planner.solve.planner.static_conflict`; exit 1) or ``unknown`` (exit 3: ``limit``
    ``"grid"``, every candidate of the grid rejected by the checker's exact predicates, a proof
    over the grid only, a placement off it may be legal; ``"formations"``: no formation of the
    planner fits the unit's region, the rules may still allow one; or a rejection by the fast
    line-of-sight test the exact test overturns: not a proof), the ``rules`` that rejected them,
    the ``message``."""

    def __init__(self, unit: str, status: str, message: str, rules: list[str], limit: str | None = None):
        super().__init__(message)
        self.unit, self.status, self.message, self.rules, self.limit = unit, status, message, rules, limit

    @classmethod
    def of(cls, world: World, g, stream, builder, grid_in: float) -> NoCandidate:
        """Why ``g`` (a :class:`planner.solve.planner.Group`) has no candidate in its exhausted
        ``stream``, judged as :func:`planner.solve.planner.plan_deployment` judges a unit without
        a plan (the same formation limit, the same exact re-judging of line of sight)."""
        from planner.solve.planner import (
            _formation_limit,
            _rejection_reasons,
            _rules_limit,
            distance_limit,
            grid_limit_words,
            static_conflict,
        )

        name = g.host.label if g.host.label == g.id else f"{g.host.label} ({g.id})"
        ruled = _rules_limit(g, builder)
        if ruled is not None:
            from planner.solve.planner import _rules_limit_rules

            return cls(g.id, "infeasible", f"proven infeasible by the rules alone (on the grid or off it, any "
                                           f"formation): unit {name} has no legal placement: {ruled}",
                       _rules_limit_rules(world, g))
        far = distance_limit(g, builder)
        if far is not None:
            return cls(g.id, "infeasible", f"proven infeasible by the rules alone (on the grid or off it, any "
                                           f"formation): unit {name} has no legal placement: {far[1]}", far[0])
        static = static_conflict(world, g, builder)
        if static is not None:
            return cls(g.id, "infeasible", f"proven infeasible by the rules alone (on the grid or off it, any "
                                           f"formation): {static.message}", static.rules)
        reasons = _rejection_reasons(g, stream, builder)
        rules = sorted({r for r, _ in (reasons or stream.rejected)})
        where = f"no legal candidate placement for unit {name} on the {grid_in:g}\" grid"
        limit = _formation_limit(g, stream, builder)
        if limit is not None:
            return cls(g.id, "unknown", f"{where}, and not proven infeasible: {limit}", rules, "formations")
        if reasons is None:
            return cls(g.id, "unknown", f"{where} with the fast line-of-sight test, but the exact test proves some "
                                        "rejected placements hidden; not a proof of infeasibility", rules)
        return cls(g.id, "unknown", grid_limit_words(f"the {grid_in:g}\" candidate grid", "judged with the checker's exact predicates",
                                                     "place the unit by hand and check it with 'planner check'",
                                                     "deployment of mine")
                   + f": {where} (rules: {', '.join(rules) or 'none'})", rules, "grid")


def build_screen(world: World, enemy_units: list[str], settings: DenySettings,
                 target: tuple[float, float] | None = None) -> Screen:
    """Candidates for my units marked ``place: true``, the enemy units' arrival spaces and their
    relations. My side is the player opposing the (first) enemy unit.

    Raises
    ------
    ScenarioError
        Unknown or non-Infiltrate enemy unit; nothing of mine marked ``place: true``.
    NoCandidate
        No legal candidate for some unit of mine (why: proven over the grid, or the planner's
        formations).
    """
    t0 = time.monotonic()
    egroups = [enemy_group(world, e) for e in enemy_units]
    me = _my_player(world, egroups[0].host.player)
    groups = _my_groups(world, me) if me is not None else []
    if me is None or not groups:
        raise ScenarioError("denial places my units marked 'place: true' (the enemy unit's opponent): none is "
                            "marked", file=world.file, location="armies")
    hidden = {u.id for g in egroups for u in g.members}
    w2 = off_table(world, hidden)
    table = w2.ruleset.table(w2)
    placing = {u.id for g in groups for u in g.members}
    egroups = [enemy_group(w2, e) for e in enemy_units]
    groups = _my_groups(w2, me)
    fixed = fixed_units(table, placing | hidden)
    bf = w2.scenario.battlefield
    tgt = target or (bf.width / 2, bf.depth / 2)
    builder = CandidateBuilder(table, fixed, settings.grid_in, [point_term(*tgt)], settings.margin_in)
    cands: dict[str, list[Candidate]] = {}
    for g in groups:
        cs = []
        anchors: set[tuple[float, float]] = set()
        stream = builder.stream(g)
        for c in stream:
            # one candidate per anchor, the cheapest legal formation there (the stream is in cost
            # order): the capped candidates then spread over more ground, which is what screens
            if c.anchor in anchors:
                continue
            anchors.add(c.anchor)
            cs.append(c)
            if len(cs) >= settings.candidates_per_unit:
                break
        if not cs:
            raise NoCandidate.of(world, g, stream, builder, settings.grid_in)
        cands[g.id] = cs
    spaces = [ArrivalSpace(w2, eg, fixed, settings.enemy_grid_in, table=table) for eg in egroups]
    rel: dict[tuple[int, str, int], Relation] = {}
    p12: list[list[int]] = []
    fixed_sees: list[set[int]] = []
    for s, sp in enumerate(spaces):
        # sight from every candidate (at any distance) matters where the hidden rule can trigger:
        # within 12" of some candidate or fixed unit of mine
        near_any: set[int] = set(sp.fixed_near12)
        for g in groups:
            for c in cands[g.id]:
                _, d = sp.distances(c.footprints)
                near_any |= {p.index for p, dk in zip(sp.positions, d, strict=True) if dk <= 12.0 + 1e-6}
        near = np.array(sorted(near_any), dtype=int)
        for g in groups:
            for c in cands[g.id]:
                rel[s, g.id, c.index] = sp.relation(g.host, c.footprints, candidates_sight=near)
        fs = set()
        if sp.observers:
            for k in near.tolist():
                if sp.table.sight_from_any(sp.observers, sp.placed(sp.all_positions[k]), exact=True)[0] is not None:
                    fs.add(k)
        fixed_sees.append(fs)
        p12.append(near.tolist())
    conflicts = []
    for a in range(len(groups)):
        for b in range(a + 1, len(groups)):
            ga, gb = groups[a], groups[b]
            for ca in cands[ga.id]:
                for cb in cands[gb.id]:
                    if ca.overlaps(cb):
                        conflicts.append((ga.id, ca.index, gb.id, cb.index))
    return Screen(w2, table, groups, cands, spaces, rel, fixed_sees, conflicts, p12,
                  build_s=time.monotonic() - t0)


def _base_model(screen: Screen):
    """My units' placements (the planner's own builder, :func:`planner.solve.placement_model.add_placements`)."""
    cp = cp_model.CpModel()
    x = add_placements(cp, screen.groups, screen.cands, screen.conflicts, rule_ids(screen.world.scenario.ruleset))
    return cp, x


def killed_var(cp, x, screen: Screen, s: int, k: int, cache: dict):
    """A Boolean that can be true only if position ``k`` of space ``s`` is removed by the chosen
    candidates (over the model's sight: proven or undecided pairs count as seeing)."""
    if (s, k) in cache:
        return cache[s, k]
    k9, n12, sv = screen.model_killable(s, k)
    rs = screen.world.ruleset
    kv = cp.new_bool_var(f"removed[{s}:{k}]")
    w = cp.new_bool_var(f"hidden_needed_and_seen[{s}:{k}]")
    cp.add_bool_or([x[key] for key in k9] + [w]).only_enforce_if(kv).with_name(
        f"{rs.rid('infiltrate.distance')}[{s}:{k}]")
    if k not in screen.spaces[s].fixed_near12:
        cp.add_bool_or([x[key] for key in n12]).only_enforce_if(w)
    if sv is not None:
        cp.add_bool_or([x[key] for key in sv]).only_enforce_if(w).with_name(f"{rs.rid('infiltrate.hidden')}[{s}:{k}]")
    cache[s, k] = kv
    return kv


class DenyPlacement(BaseModel):
    """Where denial put one unit of mine."""

    model_config = ConfigDict(extra="forbid")
    unit: str
    formation: str
    anchor: tuple[float, float]
    candidates: int


class DenyResult(BaseModel):
    """The denial (screening) report."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    status: str = Field(description="optimal (proven over candidates and grid), feasible (gap left), infeasible "
                                    "(proven by the rules alone), unknown (see limit)")
    limit: Literal["formations", "grid"] | None = Field(
        default=None, description="Status unknown because of a limit of the planner, as a plan's limit (exit 3): "
                                  "'formations' (no formation of the planner fits the region of a unit of mine; the "
                                  "rules may still allow one), 'grid' (no answer over my candidate grid and the "
                                  "enemy grid, proven over those grids only, not by the rules: a deployment off "
                                  "them may exist); None otherwise.")
    message: str
    enemy_unit: str
    protect: tuple[float, float, float] | None = None
    area_sq_in: float | None = Field(default=None, description="Exact legal area left: anchors x cell area.")
    area_bound_sq_in: float | None = Field(default=None, description="Proven lower bound on that area.")
    anchors_left: int | None = None
    area_before_sq_in: float | None = Field(default=None, description="Legal area with none of my marked units on "
                                                                      "the table (None: not measured, no "
                                                                      "deployment was sought: NoCandidate).")
    reply_value_in: float | None = Field(default=None, description="Min-max (objective 'reply'): the enemy's "
                                                                   "best reply distance my deployment guarantees.")
    reply_bound_in: float | None = Field(default=None, description="Min-max: proven upper bound on that value.")
    greedy_area_sq_in: float | None = None
    greedy_time_s: float | None = None
    iterations: int = 0
    solve_time_s: float = Field(default=0.0, description="CP-SAT wall time, all rounds.")
    exact_sight_pairs: int = 0
    build_time_s: float = 0.0
    wall_time_s: float
    placements: list[DenyPlacement] = Field(default_factory=list)
    enemy_best: EnemyPlacement | None = None
    legal: bool | None = None
    legality: LegalityReport | None = None
    interrupted: bool = Field(default=False, description="The search was stopped by Ctrl-C "
                              "(planner.solve.stop): the deployment, if any, is the best found by then.")
    scenario: Scenario | None = None
    scenario_data: dict | None = None
    legal_cells: list[tuple[float, float]] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list, description="What the plan does not do that the scenario "
                                                                  "asks for (e.g. its other goals, not used: the "
                                                                  "deny goal is planned alone), also on stderr.")
    grid_in: float | None = Field(default=None, description="The enemy anchor grid (inches): each legal cell is "
                                                            "grid_in x grid_in.")
    recheck_grid_in: float | None = Field(
        default=None, description="With a protected point: the finer grid (inches, half the enemy grid, at least "
                                  "0.5\") the answer was re-checked on by the threats scan "
                                  "(planner.adversary.threats.find_threats); None: not re-checked.")
    recheck_best: EnemyPlacement | None = Field(
        default=None, description="The enemy's closest legal arrival to the protected point on the re-check grid "
                                  "(value: inches, base to point); None: none there (or not re-checked).")
    recheck_inside: bool | None = Field(
        default=None, description="The re-check found a legal arrival within the radius (the radius holds on the "
                                  "enemy grid only); None: not re-checked.")
    recheck_complete: bool | None = Field(
        default=None, description="The re-check judged every position of its grid (False: cut short by the time "
                                  "limit or Ctrl-C, so 'none inside' is not proven); None: not re-checked.")

    @property
    def exit_code(self) -> int:
        """As :attr:`planner.solve.planner.PlanResult.exit_code` (an interrupted feasible answer: 3)."""
        if self.status in ("optimal", "feasible"):
            if not self.legal:
                return 1
            return 3 if self.interrupted and self.status == "feasible" else 0
        return 1 if self.status == "infeasible" else 3


def greedy(screen: Screen, s: int = 0, protect: tuple[float, float, float] | None = None) -> dict[str, Candidate]:
    """Baseline: biggest units first, each at the candidate (clear of those placed) that leaves the
    fewest legal anchors given the units already placed, judged on the proven relations (a
    centre line proves sight; an undecided pair counts as hidden). Its area is then measured
    exactly like any other deployment's."""
    chosen: dict[str, Candidate] = {}
    bad = set(screen.conflicts)
    sp = screen.spaces[s]
    static = [p.index for p in sp.positions]
    anchor_of = {p.index: p.anchor for p in sp.positions}
    for g in sorted(screen.groups, key=lambda g: -len(g.models)):
        best = None
        base_k9: set[int] = set()
        base_n12: set[int] = set(sp.fixed_near12)
        base_sees: set[int] = set(screen.fixed_sees[s])
        for o, oc in chosen.items():
            r = screen.rel[s, o, oc.index]
            base_k9 |= r.kill9
            base_n12 |= r.near12
            base_sees |= r.sees
        for c in screen.cands[g.id]:
            if any((o, oc.index, g.id, c.index) in bad or (g.id, c.index, o, oc.index) in bad
                   for o, oc in chosen.items()):
                continue
            r = screen.rel[s, g.id, c.index]
            k9, n12, sees = base_k9 | r.kill9, base_n12 | r.near12, base_sees | r.sees
            left = {anchor_of[k] for k in static if k not in k9 and not (k in n12 and k in sees)}
            if best is None or len(left) < best[0]:
                best = (len(left), c)
        if best is None:
            break
        chosen[g.id] = best[1]
    return chosen


def _protected(screen: Screen, s: int, protect: tuple[float, float, float] | None) -> list[int]:
    if protect is None:
        return []
    sp = screen.spaces[s]
    return [p.index for p in sp.positions if is_within_distance(point_distance(p.footprints, protect[:2]), protect[2])]


def deny(world: World, enemy_unit: str, settings: DenySettings | None = None,
         protect: tuple[float, float, float] | None = None, with_greedy: bool = True) -> DenyResult:
    """Place my units (marked ``place: true``) so that the enemy unit's legal Infiltrate area is
    as small as possible; with ``protect = (x, y, r)`` (inches) no legal arrival on the enemy grid
    (``settings.enemy_grid_in``) may have a base within ``r`` of the point, and the answer is
    re-checked on a grid half as fine (:func:`recheck_protect`: an arrival between the grid's
    anchors may come closer; the result says what the re-check found). See the module docstring
    for the model and what "optimal" means.

    Raises
    ------
    ScenarioError
        See :func:`build_screen`.
    NoCandidate
        A unit of mine with no legal candidate (:func:`build_screen`).
    SolverError
        If CP-SAT reports the model invalid (a bug).
    """
    settings = settings or DenySettings()
    t0 = time.monotonic()
    deadline = t0 + settings.time_limit_s
    screen = build_screen(world, [enemy_unit], settings, target=protect[:2] if protect else None)
    sp = screen.spaces[0]
    area_before = sp.area(sp.positions)
    g_area = g_time = None
    start = None
    if with_greedy:
        tg = time.monotonic()
        start = greedy(screen)
        g_time = time.monotonic() - tg
        if len(start) == len(screen.groups):
            g_area = sp.area([sp.all_positions[k] for k in screen.legal_positions(0, start)])
        else:
            start = None
    protected = set(_protected(screen, 0, protect))
    best_exact: tuple[int, dict[str, Candidate]] | None = None
    if start is not None:
        left0 = screen.legal_positions(0, start)
        if not set(left0) & protected:
            # the greedy screen is the answer to beat (and the answer if time runs out)
            best_exact = (len({sp.all_positions[k].anchor for k in left0}), start)
    lower = 0
    iterations = 0
    solve_s = 0.0
    status = "unknown"
    limit: Literal["grid"] | None = None
    anchors = sp.anchors
    while True:
        iterations += 1
        cp, x = _base_model(screen)
        cache: dict = {}
        alive = {}
        for a in anchors:
            alive[a] = cp.new_bool_var(f"alive[{a[0]:g},{a[1]:g}]")
        for p in sp.positions:
            k = p.index
            if k in protected:
                cp.add(killed_var(cp, x, screen, 0, k, cache) == 1).with_name(f"protect[{k}]")
            else:
                kv = killed_var(cp, x, screen, 0, k, cache)
                cp.add_bool_or([alive[p.anchor], kv])
        live = {p.anchor for p in sp.positions}
        cp.minimize(sum(alive[a] for a in anchors if a in live))
        hint = best_exact[1] if best_exact else start
        if hint:
            for g in screen.groups:
                for c in screen.cands[g.id]:
                    cp.add_hint(x[g.id, c.index], hint.get(g.id) is c)
        solver = cp_model.CpSolver()
        solver.parameters.max_time_in_seconds = max(0.2, deadline - time.monotonic())
        solver.parameters.num_workers = settings.workers
        solver.parameters.random_seed = settings.seed
        st = cpsat.solve(solver, cp)
        solve_s += solver.wall_time
        if st == cp_model.MODEL_INVALID:
            raise SolverError(f"CP-SAT model invalid: {cp.validate()}")
        if st == cp_model.INFEASIBLE:
            if best_exact is None:  # over the candidates and the enemy grid only: not a proof over the rules
                status, limit = "unknown", "grid"
            break
        if st not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            break
        # every model here is a relaxation (undecided sight counts as seeing): its bound is a
        # lower bound on the exact optimum
        lower = max(lower, math.ceil(solver.best_objective_bound - 1e-6))
        chosen = {g.id: next(c for c in screen.cands[g.id] if solver.boolean_value(x[g.id, c.index]))
                  for g in screen.groups}
        left = screen.legal_positions(0, chosen)
        exact = len({sp.all_positions[k].anchor for k in left})
        ok_protect = not (set(left) & protected)
        if ok_protect and (best_exact is None or exact < best_exact[0]):
            best_exact = (exact, chosen)
        if best_exact is not None and best_exact[0] <= lower:
            status = "optimal"
            break
        if stop.clock() >= deadline:  # the time limit, or Ctrl-C (planner.solve.stop)
            status = "feasible" if best_exact else "unknown"
            break
    if best_exact is None:
        msg = ("no deployment of the candidates keeps every legal arrival out of the protected disc (proven over "
               f"my {settings.grid_in:g}\" candidate grid, {settings.candidates_per_unit} candidates per unit, and the "
               f"{sp.grid:g}\" enemy grid only), not proven infeasible by the rules: a deployment off my candidates "
               "may exist; place the units by hand and check them with 'planner threats'" if limit == "grid"
               else "no answer within the time limit")
        return DenyResult(status=status, limit=limit, message=msg, enemy_unit=enemy_unit, protect=protect, grid_in=sp.grid,
                          area_before_sq_in=area_before, greedy_area_sq_in=g_area, greedy_time_s=g_time,
                          iterations=iterations, exact_sight_pairs=screen.exact_pairs, build_time_s=screen.build_s,
                          wall_time_s=time.monotonic() - t0)
    if status != "optimal":
        status = "feasible"
    n_left, chosen = best_exact
    r = _deny_result(world, screen, chosen, status, enemy_unit, protect, n_left, lower, area_before, g_area,
                     g_time, iterations, t0, deadline)
    r.solve_time_s = solve_s
    return r


def _deny_result(world, screen: Screen, chosen, status, enemy_unit, protect, n_left, lower, area_before, g_area,
                 g_time, iterations, t0, deadline: float = math.inf) -> DenyResult:
    sp = screen.spaces[0]
    data = copy.deepcopy(world.raw) if world.raw is not None else \
        world.scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
    where = {}
    for c in chosen.values():
        where.update(c.positions)
    for army in data["armies"]:
        for unit in army["units"]:
            if unit["id"] in where:
                for m, (x, y, f) in zip(unit["models"], where[unit["id"]], strict=True):
                    m["x"], m["y"], m["facing"] = float(x), float(y), float(f)
    planned = Scenario.model_validate(data)
    # my deployment, checked with the enemy unit off the table (it arrives later)
    w_check = off_table(resolve(planned, world.file), {u.id for u in sp.group.members})
    report = check_deployment(resolve(Scenario.model_validate(w_check.raw), world.file, require_positions=True))
    left = [sp.all_positions[k] for k in screen.legal_positions(0, chosen)]
    enemy_best = None
    if left:
        mine = [Placed(g.host, chosen[g.id].footprints, tuple(f"{m.unit_id}/{m.id}" for m in g.models))
                for g in screen.groups]
        goal = ThreatGoal("near_point", protect[:2], "closest to the protected point") if protect else \
            ThreatGoal("near_units", None, "closest to one of my units")
        p, v, _ = best_reply(sp, goal, mine + sp.observers, left)
        if p is not None:
            world_planned = resolve(planned, world.file)
            world_planned.raw = data
            rep = check_with(world_planned, sp, p)
            enemy_best = EnemyPlacement(unit=enemy_unit, formation=p.formation, anchor=p.anchor, value=v,
                                        models=p.positions, legal=rep.legal)
    recheck = recheck_protect(resolve(planned, world.file), data, enemy_unit, protect, sp.grid,
                              time_limit_s=max(RECHECK_MIN_S, deadline - time.monotonic()))
    area = n_left * sp.cell_area
    msg = (f"optimal over the candidate placements and the {sp.grid:g}\" enemy grid: {area:g} sq in left"
           if status == "optimal" else
           f"feasible: {area:g} sq in left; proven lower bound {lower * sp.cell_area:g} sq in")
    return DenyResult(status=status, message=msg, enemy_unit=enemy_unit, protect=protect, area_sq_in=area,
                      area_bound_sq_in=lower * sp.cell_area, anchors_left=n_left, area_before_sq_in=area_before,
                      greedy_area_sq_in=g_area, greedy_time_s=g_time, iterations=iterations,
                      exact_sight_pairs=screen.exact_pairs, build_time_s=screen.build_s,
                      wall_time_s=time.monotonic() - t0,
                      placements=[DenyPlacement(unit=g.id, formation=chosen[g.id].formation,
                                                anchor=chosen[g.id].anchor, candidates=len(screen.cands[g.id]))
                                  for g in screen.groups],
                      enemy_best=enemy_best, legal=report.legal, legality=report, scenario=planned,
                      scenario_data=data, legal_cells=sorted({p.anchor for p in left}), grid_in=sp.grid,
                      **recheck)


RECHECK_MIN_GRID_IN = 0.5
"""The finest grid the re-check of a protected point uses (the finest of ``planner threats --grid``)."""

RECHECK_MIN_S = 2.0
"""Seconds the re-check may take at least, when the denial used its whole time limit (the re-check's
scan stops at its limit, and the report says it was cut short)."""


def recheck_protect(planned: World, data: dict, enemy_unit: str, protect: tuple[float, float, float] | None,
                    grid_in: float, time_limit_s: float | None = None) -> dict:
    """Re-check a denial's protected disc on a finer grid: the threats scan
    (:func:`planner.adversary.threats.find_threats`, the checker's predicates, as ``planner threats
    --goal near_point:X,Y --grid G``) of the planned scenario ``planned`` (raw data ``data``) on the
    grid half as fine as ``grid_in`` (inches), or :data:`RECHECK_MIN_GRID_IN` if that is finer
    than it.

    The scan stops at ``time_limit_s`` (wall-clock seconds; None: no limit) or a stop request
    (Ctrl-C); then only the positions judged count (``recheck_complete`` False).

    Returns the :class:`DenyResult` fields ``recheck_grid_in``, ``recheck_best`` (the enemy's
    closest legal arrival there, value in inches), ``recheck_inside`` (it is within the radius) and
    ``recheck_complete``; an empty dict without a protected point, when ``grid_in`` is already the
    finest, or after a stop request (Ctrl-C: no more work)."""
    if protect is None or grid_in <= RECHECK_MIN_GRID_IN + 1e-9 or stop.requested():
        return {}
    fine = max(RECHECK_MIN_GRID_IN, grid_in / 2)
    from planner.adversary.threats import find_threats

    planned.raw = data
    goal = ThreatGoal("near_point", protect[:2], "closest to the protected point")
    t = find_threats(planned, enemy_unit, goal, fine, stoppable=True, time_limit_s=time_limit_s)
    b = t.best
    return {"recheck_grid_in": t.grid_in, "recheck_best": b,
            "recheck_inside": b is not None and is_within_distance(b.value, protect[2]),
            "recheck_complete": not (t.time_limit_reached or t.interrupted)}
