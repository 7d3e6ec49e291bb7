"""Warhammer 40,000 10th and 11th edition deployment checks: one set of checks, the numbers
from :mod:`planner.rules.wh40k10` or :mod:`planner.rules.wh40k11`.

Rule ids are ``<ruleset>.<rule>`` (``wh40k10.infiltrators.distance``, ``wh40k11.coherency``); each
is listed with meaning and source by ``planner rules --ruleset <ruleset>``. Like the HH2
checker, every check returns :class:`Finding` records, passed or not, with the measured value
(inches), the requirement and the margin; the checker never stops at the first problem.

Readings of the rules (see also the rules modules):

- Units embarked in a TRANSPORT or in reserves are not on the battlefield: they are neither
  measured to nor seen (11E-CORE-A 01.02.04; RULES.md §3.2). The TRANSPORT itself counts.
- Infiltrators are measured against enemy units where they were set up (before any Scouts move);
  a Scouts move ends are measured against every other unit's final position.
- An attached unit (a ``joined`` Leader or Support and its Bodyguard) is one unit: its coherency
  and its ability checks ("every model has Infiltrators") cover all its models.
- Set-up distances are horizontal ("more than 9\" horizontally"), whatever floor a model stands on; the
  5" vertical parts of coherency and Engagement Range are measured between models on different floors.
"""

from __future__ import annotations

import math
from collections import defaultdict
from functools import cached_property

from shapely.geometry import Polygon

from planner.geometry.measure import (
    farthest_from,
    is_more_than_distance,
    is_overlap_distance,
    is_within_distance,
)
from planner.geometry.shapes import (
    Footprint,
    clearance_inside,
    distance_to_polygon,
    footprint,
    signed_distance,
)
from planner.legality.checks.coherency import coherency_shortfalls
from planner.legality.checks.distance import each_too_close, infiltrators_far_enough
from planner.legality.checks.placement import (
    NoGo,
    closest_no_go,
    edge_gap,
    minimum_width,
    too_large_for_edge,
    wholly_within,
)
from planner.legality.checks.restriction import restriction_findings
from planner.legality.report import (
    Evidence,
    FailingModel,
    Finding,
    ModelCover,
    also_failing,
    also_outside,
    inches,
    make_finding,
    worst_first,
)
from planner.legality.table import Placed, Table, UnitSight
from planner.rules.abilities import Ability
from planner.rules.keywords import parse_selector
from planner.rules.wh40k import Warhammer40k
from planner.schema import HullBase, Objective, SetupMethod, TerrainFeature, TerrainKind, TerrainTrait
from planner.units import TOLERANCE_IN
from planner.world import ModelInfo, UnitInfo, World

KNOWN_MULTIWORD = ("DEDICATED TRANSPORT", "JUMP PACK", "ADEPTUS ASTARTES", "ASTRA MILITARUM", "ASPECT WARRIOR")


def edition(ruleset_id: str) -> Warhammer40k:
    """The 40k ruleset with id ``ruleset_id`` (``wh40k10``, ``wh40k11`` or any other 40k ruleset).

    Raises
    ------
    KeyError
        For any other ruleset id.
    """
    from planner.errors import UnknownRulesetError
    from planner.rules.registry import find_ruleset

    try:
        rs = find_ruleset(ruleset_id)
    except UnknownRulesetError:
        raise KeyError(ruleset_id) from None
    if not isinstance(rs, Warhammer40k):
        raise KeyError(ruleset_id)
    return rs


_f = inches
_finding = make_finding


# ---------------------------------------------------------------------------- abilities and keywords


def every_model_has(models: list[ModelInfo], ability: Ability) -> bool:
    """"A unit with this ability": every model has it (10E-GST, 11E-GST; RULES.md §3.3)."""
    return bool(models) and all(m.ability(ability.value)[0] for m in models)


def scouts_distance(models: list[ModelInfo]) -> float | None:
    """The Scouts X" every model has (the least X if they differ), or None if one lacks Scouts."""
    vals = [m.ability(Ability.SCOUTS.value) for m in models]
    if not vals or not all(h for h, _ in vals):
        return None
    return min(v for _, v in vals if v is not None)


def has_keyword(models: list[ModelInfo], text: str) -> bool:
    """Does a unit made of ``models`` match the keyword phrase ``text`` (e.g. 'DEDICATED TRANSPORT')?"""
    return parse_selector(text, KNOWN_MULTIWORD).unit_matches([m.keywords for m in models])



def in_objective_range(fp: Footprint, objective: Objective, R: Warhammer40k) -> bool:
    """Is a model in range of an objective marker: within ``OBJECTIVE_RANGE_IN`` of the marker?"""
    marker = footprint_of_objective(objective)
    return is_within_distance(max(0.0, signed_distance(fp, marker)), R.OBJECTIVE_RANGE_IN)


def footprint_of_objective(objective: Objective) -> Footprint:
    """The marker's footprint (a 40 mm disc by default) at its centre, inches."""
    from planner.schema import RoundBase

    return footprint(RoundBase(diameter_mm=objective.diameter_mm), objective.x, objective.y)


# ---------------------------------------------------------------------------- the table, per edition


class WH40kTable(Table):
    """The table with the edition's visibility rule.

    - 11th: the blocking areas are the terrain areas with the ``obscuring`` trait (and any
      ``blocks_line_of_sight`` feature); a sight line is blocked by an area unless one of the two
      models is within it (any part of the base: ``standing_in: partly``) (11E-CORE-B 13.10).
    - 10th: ``blocks_line_of_sight`` features (ruins) block sight through their footprint except
      for models inside them; give ruins ``standing_in: wholly`` for "unless wholly within".
    """

    def __init__(self, world: World, R: Warhammer40k):
        super().__init__(world)
        self.R = R

    @cached_property
    def blocking_features(self) -> list[TerrainFeature]:
        out: list[TerrainFeature] = []
        for t in self.world.scenario.terrain:
            # 11th: a terrain area that contains light or dense features is an obscuring area
            # (RULES.md §3.1 Terrain; 11E-CORE-B 13.10): the trait, or any area category
            obscuring = TerrainTrait.OBSCURING in t.traits or t.category is not None
            if t.kind is TerrainKind.OPEN and not obscuring:
                continue
            if t.blocks_line_of_sight or (self.R.VISIBILITY == "obscuring" and obscuring):
                out.append(t)
        return out

    def target_standing_in(self, fp: Footprint) -> frozenset[str]:
        """10th: a sight line through a ruin reaches a target only if the target is *wholly*
        within that ruin (``wh40k10.visibility.ruins``; RULES.md §3.1 Terrain), whatever the
        feature's ``standing_in`` (which still says when an observer sees out of it). 11th:
        within an obscuring area is any part of the base, either side (:meth:`standing_in`)."""
        if self.R.VISIBILITY != "ruins":
            return self.standing_in(fp)
        return frozenset(t.id for t in self.blocking_features if t.kind is TerrainKind.AREA
                         and t.id in self.standing_in(fp)
                         and clearance_inside(fp, self.terrain_polys[t.id]) >= -TOLERANCE_IN)

    def _stands_in(self, fp: Footprint, feature: TerrainFeature) -> bool:
        if self.R.VISIBILITY == "obscuring":
            # 11th: "within" an area is any part of the base in it, whatever the feature's standing_in
            return distance_to_polygon(fp, self.terrain_polys[feature.id]) <= TOLERANCE_IN
        return super()._stands_in(fp, feature)

    @cached_property
    def terrain_areas(self) -> list[TerrainFeature]:
        """11th: terrain areas (features of kind ``area``)."""
        return [t for t in self.world.scenario.terrain if t.kind is TerrainKind.AREA]

    def visible(self, observer: UnitInfo, target: UnitInfo) -> UnitSight:
        """Is any model of ``target`` visible to any model of ``observer``? Units not on the
        battlefield (embarked, in reserves) are never visible and see nothing (RULES.md §3.2)."""
        if not (observer.on_battlefield and target.on_battlefield):
            return UnitSight(False)
        return self.unit_sight(self.final(observer), self.final(target))

    def within_terrain_area(self, fp: Footprint) -> str | None:
        """The id of a terrain area the model is within (any part of its base), or None."""
        for t in self.terrain_areas:
            if distance_to_polygon(fp, self.terrain_polys[t.id]) <= TOLERANCE_IN:
                return t.id
        return None

    def fully_visible(self, attacker: Footprint, fp: Footprint, samples: int = 16) -> bool:
        """Is every part of base ``fp`` visible to the attacking model? Sampled: the centre and
        ``samples`` points on the base's outline, each must be seen (a sound "not fully visible"
        needs one hidden point; a "fully visible" verdict is as fine as the sampling)."""
        from planner.geometry.sight import line_of_sight

        obstacles = self.obstacles_for([attacker], targets=[fp])
        pts = [(fp.cx, fp.cy)] + [tuple(p) for p in list(fp.polygon(samples).exterior.coords)[:-1]]
        for x, y in pts:
            dot = Footprint("circle", x, y, 1e-4)
            if not line_of_sight(attacker, dot, obstacles).visible:
                return False
        return True

    def has_cover(self, target: UnitInfo, attacker: UnitInfo) -> tuple[bool, list[str]]:
        """Benefit of cover of ``target`` against ``attacker`` (both on the battlefield).

        11th (11E-CORE-B 13.08): every model is INFANTRY/BEASTS/SWARM within a terrain area, or
        not fully visible to the attacking models. 10th (RULES.md §3.1): every model is wholly
        within ruins (an ``area`` feature that blocks line of sight), or not fully visible.
        Returns (cover, one reason per model up to the first without cover).
        """
        return self.cover_for(target.models, list(self.final(target).footprints),
                              list(self.final(attacker).footprints))

    def cover_for(self, models: list[ModelInfo], fps: list[Footprint],
                  attacker_fps: list[Footprint]) -> tuple[bool, list[str]]:
        """:meth:`has_cover` for models standing at ``fps`` (e.g. a planner candidate)."""
        reasons = []
        for m, fp in zip(models, fps, strict=True):
            ok, why = self.model_cover(m, fp, attacker_fps)
            reasons.append(f"{m.id}: {why}")
            if not ok:
                return False, reasons
        return True, reasons

    def model_cover(self, m: ModelInfo, fp: Footprint, attacker_fps: list[Footprint]) -> tuple[bool, str]:
        """Does model ``m`` standing at ``fp`` have the benefit of cover against the attacking
        models at ``attacker_fps``, and why (the one predicate of :meth:`cover_for`, the planner's
        ``cover`` goal and ``check --cover``): 11th, an INFANTRY/BEASTS/SWARM model within a terrain
        area; 10th, a model wholly within ruins; else not fully visible to every attacking model."""
        cover_kw = parse_selector("/".join(self.R.COVER_KEYWORDS)) if self.R.COVER_KEYWORDS else None
        if cover_kw is not None:
            area = self.within_terrain_area(fp) if cover_kw.expr.matches(m.keywords) else None
        else:
            area = next((t.id for t in self.blocking_features if t.kind is TerrainKind.AREA
                         and clearance_inside(fp, self.terrain_polys[t.id]) >= -TOLERANCE_IN), None)
        if area is not None:
            return True, f"within terrain area {area}"
        if not self._clear_between(fp, attacker_fps) and \
                not all(self.fully_visible(a, fp) for a in attacker_fps):
            from planner.geometry.sight import line_of_sight

            seen = any(line_of_sight(a, fp, self.obstacles_for([a], targets=[fp])).visible for a in attacker_fps)
            return True, "not fully visible" if seen else "not visible at all (so not fully visible)"
        return False, "in the open and fully visible"

    def _clear_between(self, fp: Footprint, others: list[Footprint]) -> bool:
        """No blocking feature touches the hull of ``fp`` and ``others``: fully visible to all (fast path)."""
        from shapely.ops import unary_union

        if not self.blocking_features:
            return True
        hull = unary_union([f.polygon(24, circumscribed=True) for f in [fp, *others]]).convex_hull
        return not any(self.terrain_polys[t.id].intersects(hull) for t in self.blocking_features)


# ---------------------------------------------------------------------------- the checker


class WH40kChecker:
    """Runs every 40k deployment check of one edition over a resolved scenario."""

    def __init__(self, world: World):
        self.world = world
        self.R = edition(world.scenario.ruleset)
        self.P = self.R.id + "."
        self.table = WH40kTable(world, self.R)
        self.findings: dict[str, list[Finding]] = defaultdict(list)

    def add(self, f: Finding) -> None:
        self.findings[f.unit].append(f)

    # ------------------------------------------------------------------ helpers
    def members(self, u: UnitInfo) -> list[UnitInfo]:
        """The attached unit ``u`` heads: itself and the Leaders/Supports joined to it."""
        return [u] + [self.world.units[j] for j in u.joined_by]

    def models_of(self, u: UnitInfo) -> list[ModelInfo]:
        return [m for x in self.members(u) for m in x.models]

    def placed_group(self, u: UnitInfo, stage: str = "final") -> Placed:
        """The attached unit's footprints (members not set up with it left out: not on the
        battlefield, or for a unit arriving from reserves, not arriving in the same battle round)."""
        units = [x for x in self.members(u) if x is u or ((x.on_battlefield and x.is_positioned) if u.on_battlefield
                                                          else (self.arriving(x)
                                                                and x.setup.battle_round == u.setup.battle_round))]
        fps, ids = [], []
        for x in units:
            p = self.table.first(x) if stage == "first" else self.table.final(x)
            fps += list(p.footprints)
            ids += [f"{x.id}/{m.id}" for m in x.models]
        return Placed(u, tuple(fps), tuple(ids))

    @staticmethod
    def arriving(u: UnitInfo) -> bool:
        """A unit in reserves with positions and a ``battle_round``: set up then (its arrival)."""
        return u.method is SetupMethod.RESERVES and u.is_positioned and u.setup.battle_round is not None

    def enemies(self, u: UnitInfo, stage: str) -> list[Placed]:
        """Enemy units on the battlefield (embarked and reserve units are absent, RULES.md §3.2)."""
        return [self.table.first(e) if stage == "first" else self.table.final(e)
                for e in self.table.enemy_units(u.player)]

    def own_zone(self, u: UnitInfo) -> tuple[str, Polygon] | None:
        zid = u.setup.zone or (z.id if (z := self.world.zone_of(u.player)) else None)
        return (zid, self.table.zone_polys[zid]) if zid else None

    def enemy_zones(self, u: UnitInfo) -> list[tuple[str, Polygon]]:
        return [(z.id, self.table.zone_polys[z.id]) for z in self.world.zones.values() if z.player != u.player]

    # ------------------------------------------------------------------ driver
    def run(self) -> dict[str, list[Finding]]:
        for u in self.world.units.values():
            if u.setup.joined:
                self.check_attached(u)
            if self.R.FRAME_MODELS:
                self.check_frame(u)
            if u.on_battlefield and u.is_positioned:
                final = self.table.final(u)
                self.check_battlefield(final, "")
                self.check_terrain(final, "")
                if u.method is SetupMethod.DEPLOYMENT_ZONE:
                    self.check_zone(final, "")
                elif u.method is SetupMethod.INFILTRATE:
                    self.check_infiltrators(self.table.first(u), "")
                elif u.method is SetupMethod.SCOUT:
                    self.check_scouts(u)
                self.check_engagement(u)
                if not u.setup.joined:
                    self.check_coherency(u)
                for f in restriction_findings(self.R, self.table, final):
                    self.add(f)
            elif self.arriving(u):
                self.check_arrival(u)
                for f in restriction_findings(self.R, self.table, self.table.final(u)):
                    self.add(f)
        self.check_overlaps()
        self.check_transports()
        self.check_reserves_points()
        self.check_reserves_keywords()
        return self.findings

    # ------------------------------------------------------------------ setting up
    def check_frame(self, u: UnitInfo) -> None:
        bad = [m for m in u.models if "FRAME" in m.keywords and not isinstance(m.base, HullBase)]
        if any("FRAME" in m.keywords for m in u.models):
            self.add(_finding(self.P + "frame", not bad, u,
                              "every FRAME model is measured to its hull" if not bad
                              else f"FRAME model {bad[0].id} has a base, not a hull outline: it is measured to the "
                                   "closest point of the model (give base {length_in, width_in})",
                              model=bad[0].id if bad else None, required="a FRAME model has a hull outline"))

    def check_battlefield(self, placed: Placed, when: str) -> None:
        u = placed.unit
        tight = wholly_within(placed.footprints, self.table.battlefield,
                              self.table.clearances_in(None, placed.footprints))
        worst = (tight.clearance, tight.index)
        m = u.models[worst[1]]
        ok = tight.ok
        also, failing = also_outside(placed, tight.outside, "over", "battlefield edge")
        msg = (f"every model wholly on the battlefield{when}; closest to the edge: model {m.id}, {_f(worst[0])} inside"
               if ok else f"model {m.id} overhangs the battlefield edge by {_f(-worst[0])}{when}{also}")
        self.add(_finding(self.P + "battlefield", ok, u, msg, model=m.id, measured=worst[0],
                          required="wholly on the battlefield", margin=worst[0], failing=failing))

    def check_terrain(self, placed: Placed, when: str) -> None:
        """No model in impassable terrain, inside a solid feature or on a wall (the one predicate
        :func:`~planner.legality.checks.placement.closest_no_go`, as the planner's judge)."""
        u = placed.unit
        best = closest_no_go(placed.footprints, self.table.no_go_polys,
                             lower_bounds=self.table.no_go_bounds(placed.footprints),
                             measure=self.table.pair_distances)
        if best is None:
            return
        m, tid = u.models[best.index], best.feature
        where = f"stands {self.table.no_go_place(tid, kind=True)}"
        # every model in no-go terrain, the deepest first (a judge moves each one)
        also, failing = also_failing(placed, [(g.index, self._in_no_go_words(g), g.distance, g.feature)
                                              for g in best.inside])
        msg = (f"no model in impassable terrain, a solid feature or a wall{when}; closest: model {m.id}, "
               f"{_f(max(best.distance, 0))} from {tid}" if best.ok else f"model {m.id} {where}{when}{also}")
        self.add(_finding(self.P + "terrain.placement", best.ok, u, msg, model=m.id, measured=best.distance,
                          required="not in impassable terrain, solid features or walls", margin=best.distance,
                          evidence=Evidence(model=m.id, terrain_feature=tid), failing=failing))

    def _in_no_go_words(self, g: NoGo) -> str:
        """A base standing in no-go terrain in words: ``in wB, 1.190" deep`` (or on a wall of it)."""
        return f"{self.table.no_go_place(g.feature)}, {_f(-g.distance)} deep"

    def check_zone(self, placed: Placed, when: str) -> None:
        u = placed.unit
        rule = self.P + "deployment.wholly_within_zone"
        z = self.own_zone(u)
        if z is None:
            self.add(_finding(rule, False, u, f"player {u.player!r} has no deployment zone{when}",
                              required="wholly within the player's deployment zone"))
            return
        zid, poly = z
        tight = wholly_within(placed.footprints, poly)
        worst = (tight.clearance, tight.index)
        m = u.models[worst[1]]
        ok = tight.ok
        also, failing = also_outside(placed, tight.outside, "outside", zid)
        msg = (f"every model wholly within deployment zone {zid}{when}; tightest: model {m.id}, "
               f"{_f(worst[0])} from the zone edge" if ok
               else f"model {m.id} is not wholly within deployment zone {zid}{when}: {_f(-worst[0])} outside{also}")
        self.add(_finding(rule, ok, u, msg, model=m.id, measured=worst[0],
                          required=f"wholly within deployment zone {zid}", margin=worst[0],
                          evidence=Evidence(model=m.id), failing=failing))

    def check_coherency(self, u: UnitInfo) -> None:
        placed = self.placed_group(u)
        models = placed.footprints
        if len(models) < 2:
            return
        levels = self.table.levels_of(placed) if self.table.off_the_table else None
        each = coherency_shortfalls(list(placed.footprints), self.R, levels)
        margin, i, part, other = min(each, key=lambda t: t[0])  # coherency_shortfall's worst
        ok = margin >= -TOLERANCE_IN
        R = self.R

        def limit(prt: str) -> float:
            return R.COHERENCY_ALL_WITHIN_IN if prt == "every" and R.COHERENCY_ALL_WITHIN_IN is not None \
                else R.COHERENCY_IN
        parts: dict[int, list[tuple[float, int, str, int]]] = defaultdict(list)  # each model's failing parts
        for t in each:
            if t[0] < -TOLERANCE_IN:
                parts[t[1]].append(t)
        for ps in parts.values():
            ps.sort(key=lambda t: t[0])  # its worst part first (the lower margin; a tie: neighbours first)
        n = len(models)
        large = R.COHERENCY_LARGE_UNIT_MODELS is not None and n >= R.COHERENCY_LARGE_UNIT_MODELS
        k = R.COHERENCY_NEIGHBOURS_LARGE if large else R.COHERENCY_NEIGHBOURS
        req = f"each model within {R.COHERENCY_IN:g}\" of {k} other model{'s' if k > 1 else ''}"
        if R.COHERENCY_ALL_WITHIN_IN is not None:
            req += f" and within {R.COHERENCY_ALL_WITHIN_IN:g}\" of every other model"
        who = placed.model_id(i)
        unit_word = "attached unit" if u.joined_by else "unit"
        nearest = "its nearest" if k == 1 else f"the {k}th nearest" if k > 2 else "the second nearest"

        def words(m: float, prt: str, o: int) -> str:
            return (f"more than {R.COHERENCY_ALL_WITHIN_IN:g}\" from {placed.model_id(o)} by {_f(-m)}" if prt == "every"
                    else f"short by {_f(-m)}; {nearest}: {placed.model_id(o)}")
        # every model out of coherency, the worst first (a judge moves each one), with every part it fails
        bad = worst_first(((j, ps[0][0], ps) for j, ps in parts.items()), i, larger_is_worse=False)
        also, failing = also_failing(placed, [(j, "; ".join(words(m, prt, o) for m, _, prt, o in ps),
                                               limit(ps[0][2]) - ps[0][0], placed.model_id(ps[0][3]))
                                              for j, _, ps in bad])
        both = "".join(f"; it is also {words(m, prt, o)}" for m, _, prt, o in parts.get(i, [])[1:])
        if ok:
            msg = f"{unit_word} of {n} models in coherency; tightest: model {who}, margin {_f(margin)}"
        elif part == "every":
            msg = (f"model {who} is more than {R.COHERENCY_ALL_WITHIN_IN:g}\" from model {placed.model_id(other)} of "
                   f"its {unit_word} (by {_f(-margin)}: {_f(limit(part) - margin)} apart){both}{also}")
        else:
            msg = (f"model {who} is not within {R.COHERENCY_IN:g}\" of {k} other model(s) (short by {_f(-margin)}; "
                   f"{nearest}: model {placed.model_id(other)}){both}{also}")
        self.add(_finding(self.P + "coherency", ok, u, msg, model=who, measured=limit(part) - margin, required=req,
                          margin=margin, evidence=None if ok else Evidence(model=who, other_model=placed.model_id(other)),
                          failing=failing))

    def _each_too_close(self, placed: Placed, near: tuple[object, ...], enemies: list[Placed], limit: float,
                        **kw: float) -> tuple[str, list[FailingModel]]:
        """The words and ids of every model of ``placed`` not more than ``limit`` from ``enemies``
        (:func:`~planner.legality.checks.distance.each_too_close`), the closest first."""
        close = each_too_close(placed, near, lambda p: self.table.nearest_unit(p, enemies, **kw),
                               lambda dk: not is_more_than_distance(dk, limit))
        return also_failing(placed, [(k, f"{_f(dk)} from {mid}", dk, mid) for k, dk, mid in close])

    def check_engagement(self, u: UnitInfo) -> None:
        """Set up unengaged: more than Engagement Range from every enemy model (where it was set up)."""
        stage = "first" if u.setup.from_ is not None else "final"
        placed = self.table.first(u) if stage == "first" else self.table.final(u)
        # Engagement Range: within ER horizontally and 5" vertically (a model on a floor more
        # than 5" above or below is not engaged however close in plan)
        near = self.table.nearest_unit(placed, self.enemies(u, "first"), vertical_within=self.R.COHERENCY_VERTICAL_IN)
        er = self.R.ENGAGEMENT_RANGE_IN
        if near is None:
            self.add(_finding(self.P + "engagement", True, u, "no enemy model on the battlefield",
                              required=f"more than {er:g}\" from every enemy model"))
            return
        d, i, other, j = near
        ok = is_more_than_distance(d, er)
        also, failing = "", list[FailingModel]()
        if not ok:
            also, failing = self._each_too_close(placed, near, self.enemies(u, "first"), er,
                                                 vertical_within=self.R.COHERENCY_VERTICAL_IN)
        self.add(_finding(self.P + "engagement", ok, u,
                          f"set up {_f(d)} from enemy {other.unit.id}/{other.model_id(j)}: "
                          + ("unengaged" if ok else f"within Engagement Range ({er:g}\"){also}"),
                          model=u.models[i].id, measured=d, required=f"more than {er:g}\" from every enemy model",
                          margin=d - er, evidence=Evidence(nearest_enemy_unit=other.unit.id,
                                                           nearest_enemy_model=other.model_id(j)), failing=failing))

    def check_overlaps(self) -> None:
        """No base overlaps another: among the units on the battlefield (both units flagged), and
        for each unit arriving from reserves, with every unit on the battlefield (only the arrival
        is flagged: it is the one set up onto the other) and every friendly unit arriving in the
        same battle round (both flagged)."""
        arrivals = [u for u in self.world.units.values() if self.arriving(u)]
        placed = [self.table.final(u) for u in self.table.on_table + arrivals]
        for a in range(len(placed)):
            for b in range(a, len(placed)):
                pa, pb = placed[a], placed[b]
                if not (pa.unit.on_battlefield or pa.unit.player == pb.unit.player
                        and pa.unit.setup.battle_round == pb.unit.setup.battle_round):
                    continue  # two arrivals: only friendly units arriving in the same battle round meet
                flag_a = pa.unit.on_battlefield == pb.unit.on_battlefield
                when_a, when_b = (f" (arriving in battle round {p.unit.setup.battle_round})"
                                  if not p.unit.on_battlefield else "" for p in (pa, pb))
                for i, fa in enumerate(pa.footprints):
                    for j, fb in enumerate(pb.footprints):
                        if a == b and j <= i:
                            continue
                        if math.hypot(fa.cx - fb.cx, fa.cy - fb.cy) > fa.outer_radius + fb.outer_radius:
                            continue
                        sd = signed_distance(fa, fb)
                        if not is_overlap_distance(sd):
                            continue
                        if flag_a:
                            self.add(_finding(self.P + "bases.overlap", False, pa.unit,
                                              f"model {pa.model_id(i)} overlaps {pb.unit.id}/{pb.model_id(j)} by "
                                              f"{_f(-sd)}{when_a}", model=pa.model_id(i), measured=sd,
                                              required="bases do not overlap", margin=sd,
                                              evidence=Evidence(other_model=f"{pb.unit.id}/{pb.model_id(j)}")))
                        if a != b:  # the other unit is flagged too (as hh2's check_overlaps does)
                            self.add(_finding(self.P + "bases.overlap", False, pb.unit,
                                              f"model {pb.model_id(j)} overlaps {pa.unit.id}/{pa.model_id(i)} by "
                                              f"{_f(-sd)}{when_b}", model=pb.model_id(j), measured=sd,
                                              required="bases do not overlap", margin=sd,
                                              evidence=Evidence(other_model=f"{pa.unit.id}/{pa.model_id(i)}")))

    # ------------------------------------------------------------------ Infiltrators
    def check_infiltrators(self, placed: Placed, when: str) -> None:
        u = placed.unit
        R, P = self.R, self.P
        models = self.models_of(u)
        ok = every_model_has(models, Ability.INFILTRATORS)
        lacking = [m for m in models if not m.ability(Ability.INFILTRATORS.value)[0]]
        self.add(_finding(P + "infiltrators.eligible", ok, u,
                          "every model has Infiltrators" if ok
                          else f"model {lacking[0].unit_id}/{lacking[0].id} does not have Infiltrators",
                          required="every model has Infiltrators"))
        limit = R.INFILTRATORS_MORE_THAN_IN
        group = self.placed_group(u, "first") if u.joined_by else placed
        # the enemy deployment zone
        best = None
        nearest: dict[int, tuple[float, str]] = {}  # each model's closest enemy zone
        for zid, poly in self.enemy_zones(u):
            for i, f in enumerate(group.footprints):
                d = max(0.0, distance_to_polygon(f, poly))
                if i not in nearest or d < nearest[i][0]:
                    nearest[i] = (d, zid)
                if best is None or d < best[0]:
                    best = (d, i, zid)
        if best is not None:
            d, i, zid = best
            ok = infiltrators_far_enough(R, d)
            # every model too close, the closest first (a judge moves each one)
            close = worst_first(((k, dk, z) for k, (dk, z) in nearest.items() if not infiltrators_far_enough(R, dk)),
                                i, larger_is_worse=False)
            also, failing = also_failing(group, [(k, f"{_f(dk)} from {z}", dk, z) for k, dk, z in close])
            self.add(_finding(P + "infiltrators.zone_distance", ok, u,
                              f"model {group.model_id(i)} is {_f(d)} from the enemy deployment zone {zid}{when}"
                              + ("" if ok else f": needs more than {limit:g}\"{also}"),
                              model=group.model_id(i), measured=d, failing=failing,
                              required=f"more than {limit:g}\" from the enemy deployment zone", margin=d - limit))
        # enemy models / units on the battlefield, where they were set up
        near = self.table.nearest_unit(group, self.enemies(u, "first"))
        what = "enemy models" if R.INFILTRATORS_FROM == "models" else "enemy units"
        if near is None:
            self.add(_finding(P + "infiltrators.distance", True, u, f"no {what} on the battlefield",
                              required=f"more than {limit:g}\" from all {what}"))
            return
        d, i, other, j = near
        ok = infiltrators_far_enough(R, d)
        also, failing = ("", []) if ok else self._each_too_close(group, near, self.enemies(u, "first"), limit)
        self.add(_finding(P + "infiltrators.distance", ok, u,
                          f"model {group.model_id(i)} is {_f(d)} from enemy {other.unit.id}/{other.model_id(j)}{when}"
                          + ("" if ok else f": needs more than {limit:g}\"{also}"), failing=failing,
                          model=group.model_id(i), measured=d, required=f"more than {limit:g}\" from all {what}",
                          margin=d - limit, evidence=Evidence(nearest_enemy_unit=other.unit.id,
                                                              nearest_enemy_model=other.model_id(j))))

    # ------------------------------------------------------------------ Scouts
    def scouts_eligibility(self, u: UnitInfo) -> tuple[bool, float | None, str]:
        """(may make a Scouts move, X inches, why). A DEDICATED TRANSPORT may if every model
        embarked in it has Scouts (however it gained the ability, e.g. from an attached
        Character) (10E-GST, 11E-GST; CASES.md case 17)."""
        models = self.models_of(u)
        x = scouts_distance(models)
        if x is not None:
            return True, x, f"every model has Scouts {x:g}\""
        if has_keyword(u.models, "DEDICATED TRANSPORT") and u.embarked:
            cargo = [m for e in u.embarked for m in self.world.units[e].models]
            xc = scouts_distance(cargo)
            if xc is not None:
                return True, xc, f"DEDICATED TRANSPORT with only Scouts models embarked (Scouts {xc:g}\")"
            bad = next(m for m in cargo if not m.ability(Ability.SCOUTS.value)[0])
            return False, None, (f"DEDICATED TRANSPORT carrying {bad.unit_id}/{bad.id}, which does not have Scouts: "
                                 "every embarked model must have Scouts")
        bad = next(m for m in models if not m.ability(Ability.SCOUTS.value)[0])
        return False, None, f"model {bad.unit_id}/{bad.id} does not have Scouts"

    def scouts_first_position(self, u: UnitInfo) -> tuple[bool, str, list[Finding]]:
        """(does the position before the Scouts move qualify, the requirement, the findings on
        it): a legal set-up by ``setup.first`` (wholly on the battlefield; wholly within the
        zone, or the Infiltrators distances); 11th also wholly within its own deployment zone.
        Adds no finding (the planner's judge asks it too)."""
        saved = self.findings.pop(u.id, [])
        try:
            first = self.table.first(u)
            note = " (before the Scouts move)"
            self.check_battlefield(first, note)
            self.check_terrain(first, note)
            if u.setup.first == "infiltrate":
                self.check_infiltrators(first, note)
            else:
                self.check_zone(first, note)
            found = self.findings[u.id]
        finally:
            self.findings[u.id] = saved
        ok = all(f.passed for f in found)
        req = "a legal set-up before the move"
        if self.R.SCOUTS_FIRST_WHOLLY_IN_OWN_ZONE:
            req = "wholly within its own deployment zone before the scout move"
            z = self.own_zone(u)
            ok = ok and z is not None and all(clearance_inside(f, z[1]) >= -TOLERANCE_IN for f in first.footprints)
        return ok, req, found

    def check_scouts(self, u: UnitInfo) -> None:
        R, P = self.R, self.P
        ok, x, why = self.scouts_eligibility(u)
        self.add(_finding(P + "scouts.eligible", ok, u, why, required="every model (or every embarked model) has Scouts"))
        first, final = self.table.first(u), self.table.final(u)
        first_ok, req, found = self.scouts_first_position(u)
        for f in found:
            self.add(f)
        self.add(_finding(P + "scouts.first_position", first_ok, u,
                          ("the position before the move qualifies" if first_ok
                           else f"the position before the move does not qualify: {req}")
                          + self.table.first_facing_note(u), required=req))
        if x is not None:
            moved = [farthest_from(a, b) for a, b in zip(first.footprints, final.footprints, strict=True)]
            worst = max((dk, k) for k, dk in enumerate(moved))
            okd = is_within_distance(worst[0], x)
            m = u.models[worst[1]]
            # every model moved too far, the farthest first (a judge moves each one)
            far = worst_first(((k, dk) for k, dk in enumerate(moved) if not is_within_distance(dk, x)), worst[1],
                              larger_is_worse=True)
            also, failing = also_failing(final, [(k, f"moved {_f(dk)}", dk, "its position before the move")
                                                 for k, dk in far])
            self.add(_finding(P + "scouts.distance", okd, u,
                              f"model {m.id} moved {_f(worst[0])} of up to {x:g}\"{also}"
                              + self.table.first_facing_note(u), model=m.id,
                              measured=worst[0], required=f"a move of up to {x:g}\"", margin=x - worst[0],
                              failing=failing))
        limit = R.SCOUTS_MORE_THAN_IN
        others = [self.table.final(e) for e in self.table.enemy_units(u.player)]
        near = self.table.nearest_unit(final, others)
        if near is None:
            self.add(_finding(P + "scouts.more_than", True, u, "no enemy on the battlefield",
                              required=f"ends more than {limit:g}\" from every enemy"))
            return
        d, i, other, j = near
        okm = is_more_than_distance(d, limit)
        also, failing = ("", []) if okm else self._each_too_close(final, near, others, limit)
        self.add(_finding(P + "scouts.more_than", okm, u,
                          f"model {u.models[i].id} ends {_f(d)} from enemy {other.unit.id}/{other.model_id(j)}"
                          + ("" if okm else f": needs more than {limit:g}\"{also}"), model=u.models[i].id, measured=d,
                          failing=failing,
                          required=f"ends more than {limit:g}\" from every enemy", margin=d - limit,
                          evidence=Evidence(nearest_enemy_unit=other.unit.id, nearest_enemy_model=other.model_id(j))))

    # ------------------------------------------------------------------ attached units
    def check_attached(self, u: UnitInfo) -> None:
        host = self.world.units[u.setup.joined]
        leader = all(m.ability(Ability.LEADER.value)[0] for m in u.models)
        support = all(m.ability(Ability.SUPPORT.value)[0] for m in u.models)
        problems = []
        if not leader and not (support and self.R.SUPPORT_ABILITY):
            problems.append("has no Leader" + (" or Support" if self.R.SUPPORT_ABILITY else "") + " ability")
        same_role = [self.world.units[j] for j in host.joined_by if j != u.id
                     and all(m.ability(Ability.LEADER.value)[0] for m in self.world.units[j].models) == leader]
        if same_role:
            problems.append(f"{host.id} already has a {'Leader' if leader else 'Support'} attached "
                            f"({same_role[0].id})")
        if host.setup.joined:
            problems.append(f"{host.id} is itself attached to {host.setup.joined}")
        same_setup = u.method is host.method or (not u.on_battlefield and not host.on_battlefield
                                                 and u.setup.in_ == host.setup.in_)
        if not same_setup:
            problems.append(f"set up by {u.method.value} but its Bodyguard {host.id} by {host.method.value}")
        self.add(_finding(self.P + "attached.leader", not problems, u,
                          f"attached to {host.id}: one unit" if not problems else "; ".join(problems),
                          required="a Leader (11th: or Support) attached to one Bodyguard unit, set up with it"))

    # ------------------------------------------------------------------ transports and reserves
    def check_transports(self) -> None:
        w = self.world
        loads: dict[str, list[UnitInfo]] = defaultdict(list)
        for u in w.units.values():
            if u.method is SetupMethod.EMBARKED and u.setup.in_ in w.units:
                loads[u.setup.in_].append(u)
        for tid, cargo in loads.items():
            t = w.units[tid]
            cap = t.transport_capacity or 0
            used = sum(len(c.models) for c in cargo)
            ok = used <= cap
            self.add(_finding(self.P + "transport.capacity", ok, t,
                              f"{tid} carries {used} of {cap} models: " + ", ".join(c.id for c in cargo),
                              measured=float(used), required=f"at most {cap} models", margin=float(cap - used)))
            expr = t.record.transport_eligible or self._catalogue_eligible(t)
            if expr:
                sel = parse_selector(expr if " model" in f" {expr}" else f"{expr} models", KNOWN_MULTIWORD)
                for c in cargo:
                    bad = [m for m in c.models if not sel.expr.matches(m.keywords)]
                    self.add(_finding(self.P + "transport.eligible", not bad, c,
                                      f"may embark in {tid} ({expr})" if not bad
                                      else f"model {bad[0].id} may not embark in {tid}: needs {expr}",
                                      required=f"every model: {expr}"))

    def _catalogue_eligible(self, t: UnitInfo) -> str | None:
        from planner.io.catalogue import load_catalogue

        cat = load_catalogue(self.R.catalogue)
        for m in t.record.models:
            e = cat.get(m.profile) if m.profile else None
            if e is not None and e.transport_eligible:
                return e.transport_eligible
        return None

    def check_reserves_points(self) -> None:
        limit = self.world.scenario.points_limit
        if limit is None:
            return
        share = self.R.STRATEGIC_RESERVES_POINTS_SHARE
        for player in self.world.players:
            sr = [u for u in self.world.units_of(player)
                  if u.method is SetupMethod.RESERVES and u.setup.arrival == "reserves"]
            ids = {u.id for u in sr}
            sr += [u for u in self.world.units_of(player)
                   if u.method is SetupMethod.EMBARKED and u.setup.in_ in ids]
            if not sr:
                continue
            pts = sum(u.record.points or 0 for u in sr)
            cap = share * limit
            ok = pts <= cap
            self.add(_finding(self.P + "reserves.points", ok, sr[0],
                              f"player {player}: {pts} points in Strategic Reserves of {cap:g} allowed "
                              f"({share:.0%} of {limit})", measured=float(pts), required=f"at most {cap:g} points"))

    def check_reserves_keywords(self) -> None:
        kw = self.R.STRATEGIC_RESERVES_FORBIDDEN
        if kw is None:
            return
        for u in self.world.units.values():
            if u.method is SetupMethod.RESERVES and u.setup.arrival == "reserves":
                bad = has_keyword(u.models, kw)
                self.add(_finding(self.P + "reserves.fortification", not bad, u,
                                  f"a {kw} unit cannot be placed in Strategic Reserves" if bad else f"not a {kw}",
                                  required=f"no {kw} unit in Strategic Reserves"))

    def check_arrival(self, u: UnitInfo) -> None:
        """A unit in reserves with positions and a ``battle_round``: its arrival then."""
        R, P = self.R, self.P
        rnd = u.setup.battle_round
        placed = self.table.final(u)
        self.check_battlefield(placed, f" (arriving in battle round {rnd})")
        self.check_terrain(placed, f" (arriving in battle round {rnd})")
        last = R.RESERVES_DESTROYED_AFTER_ROUND
        okr = R.RESERVES_FIRST_ROUND <= rnd <= last
        why = ("" if okr else f": reserves arrive from battle round {R.RESERVES_FIRST_ROUND}" if rnd < last
               else f": a unit still in reserves at the end of battle round {last} is destroyed")
        self.add(_finding(P + "reserves.round", okr, u, f"arrives in battle round {rnd}{why}", measured=float(rnd),
                          required=f"battle round {R.RESERVES_FIRST_ROUND} to {last}"))
        if not u.setup.joined:
            self.check_coherency(u)  # set up in coherency, as every set-up (with the units attached to it)
        if u.setup.arrival == "deep_strike":
            models = self.models_of(u)
            lacking = self.R.without_deep_strike(models)
            ok = bool(models) and not lacking
            self.add(_finding(P + "deepstrike.eligible", ok, u, "every model has Deep Strike" if ok
                              else f"model {lacking[0].unit_id}/{lacking[0].id} does not have Deep Strike: "
                                   "arriving by Deep Strike needs every model to have it",
                              required="every model has Deep Strike"))
        if u.setup.arrival == "reserves":
            fps = list(placed.footprints)
            large = ({i for i, f in enumerate(fps) if too_large_for_edge(f, R.RESERVES_EDGE_IN)}
                     if R.RESERVES_LARGE_TOUCHING_EDGE else set())
            for i in sorted(large):
                gap = edge_gap(fps[i], self.table.battlefield.bounds)
                okl = is_within_distance(max(gap, 0.0), 0.0)
                width = minimum_width(fps[i])
                self.add(_finding(P + "reserves.large_model_edge", okl, u,
                                  f"model {u.models[i].id} is too large to fit wholly within {R.RESERVES_EDGE_IN:g}\" "
                                  f"of an edge (least width {_f(width)}) and "
                                  + ("touches a battlefield edge" if okl else f"is {_f(gap)} from the nearest edge"),
                                  model=u.models[i].id, measured=gap, required="touching a battlefield edge",
                                  margin=-gap))
            rest = [(self._edge_depth(f), i) for i, f in enumerate(fps) if i not in large]
            if rest:
                depth, i = max(rest)
                okb = is_within_distance(depth, R.RESERVES_EDGE_IN)
                # every model not wholly within, the deepest first (a judge moves each one)
                deep = worst_first(((k, dk) for dk, k in rest if not is_within_distance(dk, R.RESERVES_EDGE_IN)), i,
                                   larger_is_worse=True)
                also, failing = also_failing(placed, [(k, _f(dk), dk, "battlefield edge") for k, dk in deep])
                self.add(_finding(P + "reserves.edge", okb, u,
                                  f"every model wholly within {R.RESERVES_EDGE_IN:g}\" of a battlefield edge (deepest: "
                                  f"model {u.models[i].id}, {_f(depth)})" if okb
                                  else f"model {u.models[i].id} is not wholly within {R.RESERVES_EDGE_IN:g}\" of a "
                                       f"battlefield edge ({_f(depth)}){also}", model=u.models[i].id, measured=depth,
                                  required=f"wholly within {R.RESERVES_EDGE_IN:g}\" of a battlefield edge",
                                  margin=R.RESERVES_EDGE_IN - depth, failing=failing))
            if rnd < R.RESERVES_ENEMY_ZONE_FROM_ROUND:
                hits = [(zid, i) for zid, poly in self.enemy_zones(u) for i, f in enumerate(placed.footprints)
                        if distance_to_polygon(f, poly) <= TOLERANCE_IN]
                # every model within an enemy zone, as found (the finding's model first; a judge moves each one)
                zone_of: dict[int, str] = {}
                for zid, i in hits:
                    zone_of.setdefault(i, zid)
                also, failing = also_failing(placed, [(i, f"within {zid}", None, zid) for i, zid in zone_of.items()])
                self.add(_finding(P + "reserves.enemy_zone", not hits, u,
                                  "not within the enemy deployment zone" if not hits
                                  else f"model {u.models[hits[0][1]].id} is within enemy deployment zone {hits[0][0]} "
                                       f"in battle round {rnd}{also}", failing=failing,
                                  required=f"not within the enemy deployment zone before battle round "
                                           f"{R.RESERVES_ENEMY_ZONE_FROM_ROUND}"))
        limit = R.RESERVES_MORE_THAN_IN
        near = self.table.nearest_unit(placed, self.enemies(u, "final"))
        if near is not None:
            d, i, other, j = near
            ok = is_more_than_distance(d, limit)
            also, failing = ("", []) if ok else self._each_too_close(placed, near, self.enemies(u, "final"), limit)
            self.add(_finding(P + "deepstrike.distance", ok, u,
                              f"model {u.models[i].id} arrives {_f(d)} from enemy {other.unit.id}/{other.model_id(j)}"
                              f"{also}", model=u.models[i].id, measured=d,
                              required=f"more than {limit:g}\" from every enemy", margin=d - limit, failing=failing))

    def _edge_depth(self, f: Footprint) -> float:
        """How far from its nearest battlefield edge the farthest part of a base reaches, inches
        (the base is wholly within D" of that edge iff this is at most D)."""
        import numpy as np

        x0, y0, x1, y1 = self.table.battlefield.bounds
        s = f.support_many(np.array([1.0, -1.0, 0.0, 0.0]), np.array([0.0, 0.0, 1.0, -1.0]))
        max_x, min_x, max_y, min_y = float(s[0]), -float(s[1]), float(s[2]), -float(s[3])
        return min(max_x - x0, x1 - min_x, max_y - y0, y1 - min_y)


def embark_findings(world: World, unit_id: str, transport_id: str, *, set_up_this_turn: bool = False,
                    already_embarked: int = 0) -> list[Finding]:
    """May unit ``unit_id``, standing where its models are, embark in ``transport_id``? The four
    conditions of the source text (11E-CORE-C 18.02; 10th: the first, third and fourth):
    every model within 3" of the TRANSPORT; the unit was not set up on the battlefield this turn
    (11th); it is eligible per the TRANSPORT's datasheet (``transport_eligible``); the TRANSPORT
    has capacity for each model beyond the ``already_embarked`` models.

    Returns one finding per condition, rule ids ``<ruleset>.embark.*``.

    Raises
    ------
    KeyError
        If either unit id is unknown, or the scenario's ruleset is not a 40k ruleset.
    """
    R = edition(world.scenario.ruleset)
    P = R.id + "."
    chk = WH40kChecker(world)
    u, t = world.units[unit_id], world.units[transport_id]
    out: list[Finding] = []
    tf = chk.table.final(t).footprints
    worst = max((min(max(0.0, signed_distance(f, g)) for g in tf), i)
                for i, f in enumerate(chk.table.final(u).footprints))
    ok = is_within_distance(worst[0], R.EMBARK_WITHIN_IN)
    m = u.models[worst[1]]
    out.append(_finding(P + "embark.within", ok, u, f"model {m.id} is {_f(worst[0])} from {transport_id}",
                        model=m.id, measured=worst[0], required=f"every model within {R.EMBARK_WITHIN_IN:g}\" of "
                        "the TRANSPORT", margin=R.EMBARK_WITHIN_IN - worst[0]))
    if R.EMBARK_NOT_SET_UP_THIS_TURN:
        out.append(_finding(P + "embark.not_set_up_this_turn", not set_up_this_turn, u,
                            "set up on the battlefield this turn" if set_up_this_turn else "not set up this turn",
                            required="the unit was not set up on the battlefield this turn"))
    expr = t.record.transport_eligible or chk._catalogue_eligible(t)
    if expr:
        sel = parse_selector(expr, KNOWN_MULTIWORD)
        bad = [x for x in u.models if not sel.expr.matches(x.keywords)]
        out.append(_finding(P + "embark.eligible", not bad, u, f"eligible ({expr})" if not bad
                            else f"model {bad[0].id} is not eligible: needs {expr}", required=f"every model: {expr}"))
    cap = t.transport_capacity or 0
    need = len(u.models)
    left = cap - already_embarked
    out.append(_finding(P + "embark.capacity", need <= left, u, f"{need} models, {left} of {cap} places left",
                        measured=float(need), required=f"at most {left} models", margin=float(left - need)))
    return out


def setup_label_40k(unit: UnitInfo) -> str:
    """How the unit was set up, in 40k words (Infiltrators, Scouts move, battle round of arrival)."""
    from planner.legality.table import setup_label

    text = setup_label(unit).replace("Scout redeploy after Infiltrate", "Scouts move after Infiltrators")
    text = text.replace("Scout redeploy", "Scouts move").replace("Infiltrate", "Infiltrators")
    text = text.replace("Reserves", "reserves")
    if unit.method is SetupMethod.RESERVES and unit.setup.battle_round is not None:
        text += f", arriving in battle round {unit.setup.battle_round}"
    return text


def cover_report(world: World, R: Warhammer40k) -> list[ModelCover]:
    """Per model of every unit on the battlefield, against every enemy unit on the battlefield:
    the benefit of cover and why (:meth:`WH40kTable.model_cover`, the predicate of the planner's
    ``cover`` goal). A unit arriving from reserves (positions and a ``battle_round``,
    :meth:`WH40kChecker.arriving`: a Deep Strike in battle round 2) is on the battlefield once it
    has arrived: it is listed too, each pair with an arrival judged as the table stands after it,
    the reason saying from which battle round. Units embarked or still in reserves neither have
    nor deny cover (RULES.md §3.2)."""
    t = WH40kTable(world, R)
    out = []
    units = t.on_table + [u for u in world.units.values() if WH40kChecker.arriving(u) and u not in t.on_table]
    for u in units:
        fps = list(t.final(u).footprints)
        for e in units:
            if e.player == u.player:
                continue
            attackers = list(t.final(e).footprints)
            came = [x for x in (u, e) if WH40kChecker.arriving(x)]
            when = "" if not came else (f" (from battle round {max(x.setup.battle_round or 0 for x in came)}, "
                                        f"once {' and '.join(x.id for x in came)} "
                                        f"{'has' if len(came) == 1 else 'have'} arrived)")
            for m, fp in zip(u.models, fps, strict=True):
                ok, why = t.model_cover(m, fp, attackers)
                out.append(ModelCover(unit=u.id, model=m.id, against=e.id, cover=ok, reason=why + when))
    return out
