"""Horus Heresy 2.0 deployment checks. Rule ids and numbers come from :mod:`planner.rules.hh2`.

Each check returns :class:`Finding` records, passed or not, with the measured value, the
requirement, the margin and evidence; the checker never stops at the first problem.
"""

from __future__ import annotations

from collections import defaultdict
from functools import cached_property
from typing import TYPE_CHECKING, cast

import numpy as np

from planner.geometry.measure import (
    farthest_from,
    is_overlap_distance,
    is_within_distance,
)
from planner.geometry.shapes import Footprint, distance_to_polygon
from planner.legality.checks.coherency import coherency_range, cut_off, joined_gap
from planner.legality.checks.distance import (
    InfiltrateDistance,
    each_too_close,
    infiltrate_distance,
    scout_far_enough,
)
from planner.legality.checks.placement import NoGo, closest_no_go, wholly_within
from planner.legality.checks.restriction import restriction_findings
from planner.legality.report import (
    FailingModel,
    Finding,
    also_failing,
    also_outside,
    inches,
    make_evidence,
    make_finding,
    sight_passes,
    worst_first,
)
from planner.legality.table import Placed, Table, UnitSight
from planner.schema import SetupMethod, SpecialRule
from planner.world import UnitInfo, World

if TYPE_CHECKING:
    from collections.abc import Iterable

    from planner.geometry.sight import Crossing
    from planner.rules.hh2 import HorusHeresy2

_f = inches
_finding = make_finding


def _piece_passed(c: Crossing) -> str:
    """A crossed piece with a height and the line's height over it: 'wall (top 1") at 1.25"'."""
    return f"{c.id}{' ' + c.piece if c.piece else ''} (top {c.top:g}\") at {c.line_height:.2f}\""


def _piece_blocks(c: Crossing) -> str:
    """A crossed piece higher than the line, in words: 'the centre line is blocked by ruin piece 2
    (top 6"): it runs at 3.00" there'."""
    return (f"the centre line is blocked by {c.id}{' ' + c.piece if c.piece else ''} (top {c.top:g}\"): it runs at "
            f"{c.line_height:.2f}\" there")


def _ignored(ignored: Iterable[tuple[Crossing, str]], observer: str, target: str, ruling: str) -> str:
    """The pieces a clear line crosses below their tops that do not block it because a model of the
    pair stands in their feature (:meth:`planner.legality.table.Table.ignored_crossings`), in
    words: '; it crosses ruin piece 1 (top 6") at 3.40", below its top, and is not blocked by it:
    model recon/1 stands in ruin (ruling)'; empty when there are none."""
    out = ""
    for c, who in ignored:
        if not c.blocks:
            continue  # a line over a piece's top is clear of it whoever stands where
        name = f"{c.id}{' ' + c.piece if c.piece else ''}"
        where = (f" (top {c.top:g}\") at {c.line_height:.2f}\", below its top," if c.top is not None
                 else "")  # a feature without heights: any line through it
        out += (f"; it crosses {name}{where} and is not blocked by it: model "
                f"{observer if who == 'observer' else target} stands in {c.id} ({ruling})")
    return out


def _passes_over(passes: Iterable[Crossing]) -> str:
    """The pieces with a height that a clear sight line passes over, in words ("; it passes over
    wall (top 1\") at 1.25\""), so a judge looking at a wall between the models reads why it does
    not hide them; empty when there are none (``passes``: :class:`planner.geometry.sight.Crossing`)."""
    return "".join(f"; it passes over {_piece_passed(c)}" for c in passes if not c.blocks and c.top is not None)


def infiltrates(unit: UnitInfo) -> bool:
    """True if the unit's (first) set-up is by Infiltrate."""
    s = unit.setup
    return s.method is SetupMethod.INFILTRATE or (s.method is SetupMethod.SCOUT and s.first == "infiltrate")


def deployed_before(observer: UnitInfo, unit: UnitInfo) -> bool:
    """True if the enemy unit ``observer`` is on the table when ``unit`` Infiltrates (case 3).

    An enemy Infiltrator is not deployed yet when both give ``setup.order`` and its order is the
    higher; without both orders it counts as deployed before (the stricter reading for ``unit``).
    """
    return not (infiltrates(observer) and unit.setup.order is not None and observer.setup.order is not None
                and observer.setup.order > unit.setup.order)


def unordered_infiltrators(world: World) -> list[tuple[str, str]]:
    """Pairs of enemy units on the battlefield, both setting up by Infiltrate, each counted as
    deployed before the other (:func:`deployed_before` both ways: no ``setup.order`` on one or both).

    On a real table one of them was placed first; the check cannot know which, so each is judged
    against the other. Returns ``(id, id)`` pairs, sorted, the first id of the first player in file order.
    """
    inf = [u for u in world.units.values() if u.on_battlefield and u.is_positioned and infiltrates(u)]
    return sorted((a.id, b.id) for i, a in enumerate(inf) for b in inf[i + 1:]
                  if a.player != b.player and deployed_before(a, b) and deployed_before(b, a))


def is_dedicated_transport(unit: UnitInfo) -> bool:
    """True if the unit is a Dedicated Transport (a model with the Dedicated Transport rule)."""
    return unit.any_model_has(SpecialRule.DEDICATED_TRANSPORT)


def has_infiltrate_for_setup(world: World, unit: UnitInfo) -> bool:
    """A unit may Infiltrate if one of its models has Infiltrate, or it is a Dedicated Transport
    with a unit with Infiltrate deployed inside ("the same rules apply when deploying their
    Transport", HH2 p.242)."""
    if unit.any_model_has(SpecialRule.INFILTRATE):
        return True
    return is_dedicated_transport(unit) and any(
        world.units[e].any_model_has(SpecialRule.INFILTRATE) for e in unit.embarked)


def has_scout_for_setup(world: World, unit: UnitInfo) -> bool:
    """Scout: a model with Scout (a Transport keeps its own Scout whatever is aboard), or a
    Dedicated Transport with a Scout unit deployed inside (HH2 p.246)."""
    if unit.any_model_has(SpecialRule.SCOUT):
        return True
    return is_dedicated_transport(unit) and any(
        world.units[e].any_model_has(SpecialRule.SCOUT) for e in unit.embarked)



def scout_limit(unit: UnitInfo, R: HorusHeresy2) -> float:
    """6" if the unit includes an Infantry, Dreadnought or Automata model or an Artillery sub-type
    model, else 12" (HH2 p.246; a mixed unit takes the shorter, stricter limit)."""
    for m in unit.models:
        if m.type in R.SCOUT_SHORT_TYPES or (m.subtypes & R.SCOUT_SHORT_SUBTYPES):
            return R.SCOUT_SHORT_IN
    return R.SCOUT_LONG_IN


def _pairs_within_reach(x: np.ndarray, y: np.ndarray, rad: np.ndarray, gap: float) -> tuple[np.ndarray, np.ndarray]:
    """Index pairs (i < j, row-major order) of the discs (centres ``x``, ``y``, radii ``rad``,
    inches) that may come within ``gap`` of each other: a superset of those whose centre
    distance less both radii is at most ``gap``, with a little slack against rounding. A sweep
    along x (each disc meets only the discs within the widest reach of it), then a squared
    centre distance: no square root, and no n x n matrix."""
    n = len(x)
    if n < 2:
        return np.zeros(0, dtype=np.intp), np.zeros(0, dtype=np.intp)
    slack = 1e-9
    order = np.argsort(x, kind="stable")
    xs = x[order]
    widest = (gap + 2.0 * float(rad.max())) * (1.0 + slack) + slack
    ends = np.searchsorted(xs, xs + widest, side="right")
    counts = ends - np.arange(n) - 1
    first = np.repeat(np.arange(n), counts)
    offset = np.arange(len(first)) - np.repeat(np.cumsum(counts) - counts, counts)
    a, b = order[first], order[first + 1 + offset]
    i, j = np.minimum(a, b), np.maximum(a, b)
    dx, dy = x[i] - x[j], y[i] - y[j]
    reach = (gap + rad[i] + rad[j]) * (1.0 + slack) + slack
    near = dx * dx + dy * dy <= reach * reach
    i, j = i[near], j[near]
    k = np.lexsort((j, i))
    return i[k], j[k]


class HH2Checker:
    """Runs every HH2 deployment check over a resolved scenario."""

    def __init__(self, world: World, ruleset: HorusHeresy2 | None = None):
        self.world = world
        self.R = cast("HorusHeresy2", ruleset or world.ruleset)
        self.table = Table(world)
        self.findings: dict[str, list[Finding]] = defaultdict(list)
        self._observer_lists: dict[tuple[str, int | None], list[Placed]] = {}

    def add(self, f: Finding) -> None:
        self.findings[f.unit].append(f)

    # ------------------------------------------------------------------ driver
    def run(self) -> dict[str, list[Finding]]:
        w = self.world
        self._measure_ovals()
        for u in w.units.values():
            if u.on_battlefield and u.is_positioned:
                final = self.table.final(u)
                self.check_battlefield(final, "")
                self.check_impassable(final, "")
                if u.method is SetupMethod.DEPLOYMENT_ZONE:
                    self.check_zone(final, "")
                elif u.method is SetupMethod.INFILTRATE:
                    self.check_infiltrate(final, "")
                elif u.method is SetupMethod.SCOUT:
                    self.check_scout(u)
                self.check_coherency(u)
                for f in restriction_findings(self.R, self.table, final):
                    self.add(f)
            elif u.method is SetupMethod.EMBARKED and u.setup.first == "infiltrate":
                self.check_building_infiltrate(u)
            if u.setup.joined:
                self.check_ic(u)
        self.check_overlaps()
        self.check_capacity()
        return self.findings

    # ------------------------------------------------------------------ basic placement
    def check_battlefield(self, placed: Placed, when: str) -> None:
        u = placed.unit
        worst = wholly_within(placed.footprints, self.table.battlefield,
                              self.table.clearances_in(None, placed.footprints))
        m = u.models[worst.index]
        ok = worst.ok
        also, failing = also_outside(placed, worst.outside, "over", "battlefield edge")
        msg = (f"every model wholly on the battlefield{when}; closest to the edge: model {m.id}, "
               f"{_f(worst.clearance)} inside" if ok
               else f"model {m.id} is {_f(-worst.clearance)} over the battlefield edge{when}{also}")
        self.add(_finding(self.R.rid("battlefield"), ok, u, msg, model=m.id, measured=worst.clearance,
                          required="wholly on the battlefield", margin=worst.clearance, failing=failing))

    def check_zone(self, placed: Placed, when: str) -> None:
        u = placed.unit
        zone_id = u.setup.zone or (z.id if (z := self.world.zone_of(u.player)) else None)
        rule = self.R.rid("deployment.wholly_within_zone")
        if zone_id is None:
            self.add(_finding(rule, False, u, f"player {u.player!r} has no deployment zone{when}",
                              required="wholly within the player's deployment zone"))
            return
        tight = wholly_within(placed.footprints, self.table.zone_polys[zone_id],
                              self.table.clearances_in(zone_id, placed.footprints))
        worst = (tight.clearance, tight.index)
        m = u.models[worst[1]]
        ok = tight.ok
        also, failing = also_outside(placed, tight.outside, "outside", zone_id)
        msg = (f"every model wholly within deployment zone {zone_id}{when}; tightest: model {m.id}, "
               f"{_f(worst[0])} from the zone edge" if ok
               else f"model {m.id} is not wholly within deployment zone {zone_id}{when}: "
                    f"{_f(-worst[0])} outside{also}")
        self.add(_finding(rule, ok, u, msg, model=m.id, measured=worst[0],
                          required=f"wholly within deployment zone {zone_id}", margin=worst[0],
                          evidence=make_evidence(model=m.id), failing=failing))

    def check_impassable(self, placed: Placed, when: str) -> None:
        u = placed.unit
        best = closest_no_go(placed.footprints, self.table.no_go_polys,
                             lower_bounds=self.table.no_go_bounds(placed.footprints),
                             measure=self.table.pair_distances)
        if best is None:
            return
        d, i, tid = best.distance, best.index, best.feature
        ok = best.ok
        m = u.models[i]
        # every model in no-go terrain, the deepest first (a judge moves each one)
        also, failing = also_failing(placed, [(g.index, self._in_no_go_words(g), g.distance, g.feature)
                                              for g in best.inside])
        msg = (f"no model in impassable terrain or inside a building or wall{when}; closest: model {m.id}, "
               f"{_f(max(d, 0))} from {tid}" if ok
               else f"model {m.id} stands {self.table.no_go_place(tid, kind=True)}{when}{also}")
        self.add(_finding(self.R.rid("terrain.impassable"), ok, u, msg, model=m.id, measured=d,
                          required="not in impassable terrain, buildings or walls", margin=d,
                          evidence=make_evidence(model=m.id, terrain_feature=tid), failing=failing))

    def _in_no_go_words(self, g: NoGo) -> str:
        """A base standing in no-go terrain in words: ``in t-wall, 0.500" deep`` (or on a wall of it)."""
        return f"{self.table.no_go_place(g.feature)}, {_f(-g.distance)} deep"

    @cached_property
    def _close_bases(self) -> tuple[list[Placed], list[tuple[UnitInfo, int, Footprint]], list[tuple[int, int]]]:
        """Every unit on the table, its bases one by one, and the pairs of bases whose bounding
        discs come within 1": the only ones that can overlap or be nearest (one numpy pass)."""
        placed = [self.table.final(u) for u in self.table.on_table]
        items = [(p.unit, i, f) for p in placed for i, f in enumerate(p.footprints)]
        xy = np.array([[f.cx, f.cy] for _, _, f in items]).reshape(-1, 2)
        x, y = xy[:, 0], xy[:, 1]
        rad = np.array([f.outer_radius for _, _, f in items])
        rows, cols = _pairs_within_reach(x, y, rad, 1.0)
        # the bound itself on those pairs (centre distance less both radii: the same floats as
        # over the whole matrix), in the order of the matrix's upper triangle
        lb = np.hypot(x[rows] - x[cols], y[rows] - y[cols]) - rad[rows] - rad[cols]
        keep = lb <= 1.0
        close = list(zip(rows[keep].tolist(), cols[keep].tolist(), strict=True))
        return placed, items, close

    @cached_property
    def _item_units(self) -> np.ndarray:
        """The unit of each base of :attr:`_close_bases` (an index into its units, as an array)."""
        placed, _, _ = self._close_bases
        return np.repeat(np.arange(len(placed)), [len(p.footprints) for p in placed]).astype(np.intp)

    def _measure_ovals(self) -> None:
        """The distances between ovals (and an oval and another base) that the coherency and
        overlap checks will take, measured in one vectorised search (:meth:`Table.pair_distances`
        keeps them): the pairs within each unit, the close pairs, and the oval-to-edge pairs the
        no-go check can take (:meth:`Table.no_go_oval_pairs`), and those of the Infiltrate
        distance (:meth:`Table.nearest_oval_pairs`)."""
        pairs = []
        for u in self.table.on_table:
            fps = self.table.final(u).footprints
            if any(f.kind == "ellipse" for f in fps):
                pairs += [(fps[i], fps[j]) for i in range(len(fps)) for j in range(i + 1, len(fps))
                          if fps[i].kind == "ellipse" or fps[j].kind == "ellipse"]
        _, items, close = self._close_bases
        pairs += [(items[a][2], items[b][2]) for a, b in close
                  if items[a][2].kind == "ellipse" or items[b][2].kind == "ellipse"]
        pairs += self.table.no_go_oval_pairs()
        for u in self.table.on_table:  # the Infiltrate distance (check_infiltrate)
            if u.method is SetupMethod.INFILTRATE:
                pairs += self.table.nearest_oval_pairs(self.table.final(u), self._observers(u))
        if pairs:
            self.table.pair_distances(pairs)

    def check_overlaps(self) -> None:
        placed, items, close = self._close_bases
        # the closest pair of each unit: (distance, its model, the other side's item), named at the end
        closest: dict[str, tuple[float, int, int]] = {}
        bad: dict[str, list[tuple[int, str, float]]] = defaultdict(list)
        dist = self.table.pair_distances([(items[a][2], items[b][2]) for a, b in close])
        if close:
            # each pair counts for its two units, its first base's unit first: the closest entry
            # of each unit, the first in that order on a tie (the strict "closer" of one pass)
            ends = np.asarray(close, dtype=np.intp)
            entry_item = ends.ravel()  # entry 2k: pair k's first base; 2k + 1: its second
            entry_other = ends[:, ::-1].ravel()
            unit_of = self._item_units
            entry_unit = unit_of[entry_item]
            entry_d = np.repeat(dist, 2)
            order = np.lexsort((np.arange(len(entry_item)), entry_d, entry_unit))
            first = order[np.r_[True, entry_unit[order][1:] != entry_unit[order][:-1]]]
            for e, d in zip(first.tolist(), entry_d[first].tolist(), strict=True):
                u, i, _ = items[int(entry_item[e])]
                closest[u.id] = (d, i, int(entry_other[e]))
        for k in np.nonzero(is_overlap_distance(dist))[0].tolist():
            a, b = close[k]
            d = float(dist[k])
            ua, ia, _ = items[a]
            ub, ib, _ = items[b]
            bad[ua.id].append((ia, f"{ub.id}/{ub.models[ib].id}", d))
            bad[ub.id].append((ib, f"{ua.id}/{ua.models[ia].id}", d))
        for p in placed:
            u = p.unit
            if bad[u.id]:
                for i, other, d in bad[u.id]:
                    self.add(_finding(self.R.rid("bases.no_overlap"), False, u,
                                      f"model {u.models[i].id} overlaps {other} by {_f(-d)}", model=u.models[i].id,
                                      measured=d, required="bases do not overlap", margin=d,
                                      evidence=make_evidence(model=u.models[i].id, other_model=other)))
            elif u.id in closest:
                d, i, k = closest[u.id]
                other = f"{items[k][0].id}/{items[k][0].models[items[k][1]].id}"
                self.add(_finding(self.R.rid("bases.no_overlap"), True, u,
                                  f"no overlapping bases; closest: model {u.models[i].id}, {_f(d)} from {other}",
                                  model=u.models[i].id, measured=d, required="bases do not overlap", margin=d,
                                  evidence=make_evidence(model=u.models[i].id, other_model=other)))
            else:
                self.add(_finding(self.R.rid("bases.no_overlap"), True, u, "no other base within 1\"",
                                  required="bases do not overlap"))

    def check_coherency(self, u: UnitInfo) -> None:
        if u.setup.joined:
            return  # checked with the unit it joins
        # an IC set up out of range of the unit is reported once, by hh2.ic.coherency under the IC
        # (check_ic); the unit's own finding judges the unit with the ICs that stand in range of it
        group = [u] + [ic for j in u.joined_by
                       if (ic := self.world.units[j]).on_battlefield and ic.is_positioned
                       and self._ic_gap(ic, u)[2]]
        models = [m for g in group for m in g.models]
        if len(models) < 2:
            return
        fps = [f for g in group for f in self.table.final(g).footprints]
        rng = coherency_range(models, self.R)
        (gap, i, j), apart = cut_off(fps, rng, self.table.pair_distances)
        ok = not apart
        names = [f"{m.unit_id}/{m.id}" for m in models]
        if apart and j not in {k for k, _, _ in apart}:
            i, j = j, i  # name the end of the longest link that is cut off from the largest group
        # every model cut off from the largest group, the farthest first (a judge moves each one)
        far = worst_first(((k, dk, o) for k, dk, o in apart), j, larger_is_worse=True)
        also, failing = also_failing(Placed(u, tuple(fps), tuple(names)),
                                     [(k, f"{_f(dk)} from {names[o]}", dk, names[o]) for k, dk, o in far])
        rule = self.R.rid("coherency")
        msg = (f"in unit coherency ({rng:g}\"): every model linked, longest link {_f(gap)}" if ok
               else f"out of unit coherency ({rng:g}\"): {names[j]} is {_f(gap)} from the rest of the unit{also}")
        def own(k: int) -> str:  # a model of a joined IC is named with its unit: "praetor/1"
            return models[k].id if models[k].unit_id == u.id else names[k]

        self.add(_finding(rule, ok, u, msg, model=own(j), measured=gap,
                          required=f"within {rng:g}\" of another model, one group", margin=rng - gap,
                          evidence=make_evidence(model=names[j], other_model=names[i]),
                          failing=[f.model_copy(update={"model": own(k)})
                                   for f, (k, _, _) in zip(failing, far, strict=True)]))

    def _ic_gap(self, ic: UnitInfo, host: UnitInfo) -> tuple[float, float, bool]:
        """Closest distance from the IC's bases to the unit's it joins, the coherency range, within it.

        Returns ``(d, rng, ok)`` in inches: ``d`` closest point to closest point (0 where bases touch or
        overlap), ``rng`` the coherency range of the joined unit, ``ok`` whether ``d`` is within it
        (HH2 p.241, hh2.ic.coherency; the one predicate, :func:`joined_gap`: within range of a model
        of ``host`` itself, not through another joined character). Both units must be positioned on
        the battlefield.
        """
        return joined_gap(ic.models, self.table.final(ic).footprints, host.models,
                          self.table.final(host).footprints, self.R)

    # ------------------------------------------------------------------ Infiltrate
    def _observers(self, u: UnitInfo) -> list[Placed]:
        """Enemy units deployed when ``u`` Infiltrates, where they stood then (before Scout).

        An enemy Infiltrator later in the alternation (a higher ``order``) is not deployed yet:
        it is neither measured to nor an observer for ``u``; it answers for the distance itself
        when it is placed (case 3).
        """
        key = (u.player, u.setup.order)  # all that the answer depends on: kept per checker
        hit = self._observer_lists.get(key)
        if hit is None:
            hit = []
            for e in self.table.enemy_presence(u.player, "first"):
                if deployed_before(e.unit, u):
                    hit.append(e)
            self._observer_lists[key] = hit
        return list(hit)

    def check_infiltrate(self, placed: Placed, when: str) -> None:
        u = placed.unit
        w = self.world
        eligible = has_infiltrate_for_setup(w, u)
        self.add(_finding(self.R.rid("infiltrate.eligible"), eligible, u,
                          "contains a model with Infiltrate" if u.any_model_has(SpecialRule.INFILTRATE)
                          else ("Dedicated Transport carrying a unit with Infiltrate" if eligible
                                else "no model with Infiltrate (and not a Dedicated Transport carrying one)"),
                          required="at least one model with Infiltrate"))
        enemies = self._observers(u)
        near = self.table.nearest_unit(placed, enemies)
        if near is None:
            self.add(_finding(self.R.rid("infiltrate.distance"), True, u, "no enemy unit on the battlefield",
                              required=f'more than {self.R.INFILTRATE_HIDDEN_MORE_THAN_IN:g}" (hidden) or '
                                       f'{self.R.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN:g}" from every enemy unit'))
            return
        d, i, other, j = near
        ev = make_evidence(nearest_enemy_unit=other.unit.id, nearest_enemy_model=other.model_id(j),
                      model=u.models[i].id)
        verdict = infiltrate_distance(self.R, d)
        far_enough = verdict is not InfiltrateDistance.TOO_CLOSE
        hidden_needed = verdict is InfiltrateDistance.HIDDEN_NEEDED
        required = (f'more than {self.R.INFILTRATE_HIDDEN_MORE_THAN_IN:g}" from every enemy unit (hidden) '
                    f'or more than {self.R.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN:g}"')
        if not far_enough:
            # every model too close, not only the closest (a judge moves each one): the same predicate
            close = each_too_close(placed, near, lambda p: self.table.nearest_unit(p, enemies),
                                   lambda dk: infiltrate_distance(self.R, dk) is InfiltrateDistance.TOO_CLOSE)
            also, failing = also_failing(placed, [(k, f"{_f(dk)} from {mid}", dk, mid) for k, dk, mid in close])
            self.add(_finding(self.R.rid("infiltrate.distance"), False, u,
                              f"model {u.models[i].id} is {_f(d)} from enemy unit {other.unit.id} (model "
                              f"{other.model_id(j)}){when}: needs more than "
                              f"{self.R.INFILTRATE_HIDDEN_MORE_THAN_IN:g}\"{also}", model=u.models[i].id, measured=d,
                              required=required, margin=d - self.R.INFILTRATE_HIDDEN_MORE_THAN_IN, evidence=ev,
                              failing=failing))
            return
        if not hidden_needed:
            self.add(_finding(self.R.rid("infiltrate.distance"), True, u,
                              f"more than {self.R.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN:g}\" from every enemy unit (plain "
                              f"sight allowed): nearest {other.unit.id}/{other.model_id(j)} at {_f(d)}{when}",
                              model=u.models[i].id, measured=d, required=required,
                              margin=d - self.R.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN, evidence=ev))
            return
        self.add(_finding(self.R.rid("infiltrate.distance"), True, u,
                          f"more than {self.R.INFILTRATE_HIDDEN_MORE_THAN_IN:g}\" from every enemy unit (nearest "
                          f"{other.unit.id}/{other.model_id(j)} at {_f(d)}), within "
                          f"{self.R.INFILTRATE_PLAIN_SIGHT_MORE_THAN_IN:g}\" so it must be hidden{when}",
                          model=u.models[i].id, measured=d, required=required,
                          margin=d - self.R.INFILTRATE_HIDDEN_MORE_THAN_IN, evidence=ev))
        self.check_hidden(placed, when)

    def check_hidden(self, placed: Placed, when: str) -> None:
        u = placed.unit
        observers = self._observers(u)
        ids = [o.unit.id for o in observers]
        o, s = self.table.sight_from_any(observers, placed, proof_first=True)
        if o is not None:
            if s.visible:
                seg = [s.segment[0], s.segment[1]] if s.segment else None
                also, failing = self._also_seen(placed, observers, o, s)
                self.add(_finding(self.R.rid("infiltrate.hidden"), False, u,
                                  f"enemy unit {o.unit.id} can draw line of sight to model {s.target_model} "
                                  f"(from its model {s.observer_model}"
                                  + (f", clear line ({seg[0][0]:.2f}, {seg[0][1]:.2f})-({seg[1][0]:.2f}, "
                                     f"{seg[1][1]:.2f})" if seg else "") + _passes_over(s.passes)
                                  + self._ignored_words(o, placed, s) + f"){when}{also}",
                                  model=s.target_model,
                                  required="no deployed enemy unit can draw line of sight", failing=failing,
                                  evidence=make_evidence(observer_units=ids, seen_by=f"{o.unit.id}/{s.observer_model}",
                                                    sight_line=seg, model=s.target_model,
                                                    sight_passes=sight_passes(s.passes))))
                return
        blocking = set(s.blocking)
        limit = self.table.sight_range_in
        in_range = self.table.in_sight_range(observers, placed) if limit is not None else observers
        dark = ("" if len(in_range) == len(observers) else
                f"; {len(observers) - len(in_range)} more than {limit:g}\" away cannot draw line of sight "
                "(Night Fighting, ruling night-fighting-deployment=24in)")
        self.add(_finding(self.R.rid("infiltrate.hidden"), True, u,
                          ((f"hidden from all {len(observers)} deployed enemy units" if len(observers) > 1
                            else "hidden from the one deployed enemy unit") if observers
                           else "no deployed enemy unit to see it") + dark
                          + (f", sight blocked by {', '.join(sorted(blocking))}" if blocking else "")
                          + "".join(f"; {_piece_blocks(c)}" for c in s.passes if c.blocks and c.top is not None)
                          + when,
                          required="no deployed enemy unit can draw line of sight",
                          evidence=make_evidence(observer_units=ids, blocking_features=sorted(blocking),
                                            sight_passes=sight_passes(s.passes))))

    def _ignored_words(self, o: Placed, placed: Placed, s: UnitSight) -> str:
        """:func:`_ignored` for the clear line ``s`` from observer unit ``o`` to ``placed``."""
        ids_o = [o.model_id(k) for k in range(len(o.footprints))]
        ids_t = [placed.model_id(k) for k in range(len(placed.footprints))]
        if s.segment is None or s.observer_model not in ids_o or s.target_model not in ids_t:
            return ""
        i, j = ids_o.index(s.observer_model), ids_t.index(s.target_model)
        return _ignored(self.table.ignored_crossings(o, i, placed, j, s.segment),
                        f"{o.unit.id}/{s.observer_model}", f"{placed.unit.id}/{s.target_model}",
                        self.R.STANDING_IN_AREA_RULING)

    def _also_seen(self, placed: Placed, observers: list[Placed], o: Placed, s: UnitSight) -> tuple[str, list[FailingModel]]:
        """Every model of ``placed`` that some of the ``observers`` can see, not only ``s``'s
        (seen by ``o``): each model asked of :meth:`Table.sight_from_any` alone, the nearest
        to the unit that sees it first (:func:`worst_first`); the words and ids of
        :func:`also_failing`."""
        tops = self.table.tops_of(placed)
        seen: list[tuple[int, float, str]] = []
        for k, fp in enumerate(placed.footprints):
            mid = placed.model_id(k)
            one = Placed(placed.unit, (fp,), (mid,), (tops[k],))
            if mid == s.target_model:
                by, sk = o, s
            else:
                found, sk = self.table.sight_from_any(observers, one)
                if found is None or not sk.visible:
                    continue
                by = found
            near = self.table.nearest_unit(one, [by])
            seen.append((k, near[0] if near else 0.0, f"{by.unit.id}/{sk.observer_model}"))
        first = next((k for k, _, _ in seen if placed.model_id(k) == s.target_model), 0)
        return also_failing(placed, [(k, f"seen by {by}", None, by)
                                     for k, _, by in worst_first(seen, first, larger_is_worse=False)])

    def check_building_infiltrate(self, u: UnitInfo) -> None:
        tid = u.setup.in_
        if tid not in self.table.terrain_polys:
            return  # a transport unit: the transport itself deploys by Infiltrate
        eligible = has_infiltrate_for_setup(self.world, u)
        self.add(_finding(self.R.rid("infiltrate.eligible"), eligible, u,
                          "contains a model with Infiltrate" if eligible else "no model with Infiltrate",
                          required="at least one model with Infiltrate"))
        poly = self.table.terrain_polys[tid]
        best = None
        for e in self._observers(u):
            for k, f in enumerate(e.footprints):
                d = max(0.0, distance_to_polygon(f, poly))
                if best is None or d < best[0]:
                    best = (d, e, k)
        if best is None:
            self.add(_finding(self.R.rid("infiltrate.building"), True, u, f"no enemy unit near building {tid}",
                              required=f'building more than {self.R.INFILTRATE_HIDDEN_MORE_THAN_IN:g}" from every enemy unit'))
            return
        d, placed_e, k = best
        e = placed_e.unit
        ok = infiltrate_distance(self.R, d) is not InfiltrateDistance.TOO_CLOSE  # the building: as a unit
        self.add(_finding(self.R.rid("infiltrate.building"), ok, u,
                          f"building {tid} is {_f(d)} from enemy unit {e.id} (model {placed_e.model_id(k)}); needs more "
                          f"than {self.R.INFILTRATE_HIDDEN_MORE_THAN_IN:g}\"", measured=d,
                          required=f'building more than {self.R.INFILTRATE_HIDDEN_MORE_THAN_IN:g}" from every enemy unit',
                          margin=d - self.R.INFILTRATE_HIDDEN_MORE_THAN_IN,
                          evidence=make_evidence(nearest_enemy_unit=e.id, nearest_enemy_model=placed_e.model_id(k),
                                            terrain_feature=tid)))

    # ------------------------------------------------------------------ Scout
    def check_scout(self, u: UnitInfo) -> None:
        w = self.world
        eligible = has_scout_for_setup(w, u)
        self.add(_finding(self.R.rid("scout.eligible"), eligible, u,
                          "has a model with Scout" if u.any_model_has(SpecialRule.SCOUT)
                          else ("Dedicated Transport carrying a Scout unit" if eligible else "no model with Scout"),
                          required="a model with Scout"))
        first = self.table.first(u)
        final = self.table.final(u)
        note = " (before the Scout redeploy)"
        n_before = len(self.findings[u.id])
        self.check_battlefield(first, note)
        if u.setup.first == "infiltrate":
            self.check_infiltrate(first, note)
        else:
            self.check_zone(first, note)
        for f in self.findings[u.id][n_before:]:
            f.evidence.note = "position before the Scout redeploy"
        first_ok = all(f.passed for f in self.findings[u.id][n_before:])
        self.add(_finding(self.R.rid("scout.first_position"), first_ok, u,
                          ("the position before the redeploy was a legal set-up" if first_ok
                           else "the position before the redeploy was not a legal set-up (see the findings above)")
                          + self.table.first_facing_note(u), required="a legal first set-up"))
        limit = scout_limit(u, self.R)
        moved = [farthest_from(a, b) for a, b in zip(first.footprints, final.footprints, strict=True)]
        worst = max((dk, k) for k, dk in enumerate(moved))
        ok = is_within_distance(worst[0], limit)
        m = u.models[worst[1]]
        # every model moved too far, the farthest first (a judge moves each one)
        far = worst_first(((k, dk) for k, dk in enumerate(moved) if not is_within_distance(dk, limit)), worst[1],
                          larger_is_worse=True)
        also, failing = also_failing(final, [(k, f"{_f(dk)} from where it stood", dk, "its position before the move")
                                             for k, dk in far])
        self.add(_finding(self.R.rid("scout.distance"), ok, u,
                          (f"each model entirely within {limit:g}\" of its position; farthest: model {m.id}, "
                           f"{_f(worst[0])} from where it stood" if ok
                           else f"model {m.id} redeployed to {_f(worst[0])} from where it stood: more than {limit:g}\""
                                f"{also}") + self.table.first_facing_note(u),
                          model=m.id, measured=worst[0], required=f"entirely within {limit:g}\" of its position",
                          margin=limit - worst[0], failing=failing))
        enemies = self.table.enemy_presence(u.player, "final")
        near = self.table.nearest_unit(final, enemies)
        if near is None:
            self.add(_finding(self.R.rid("scout.more_than_9"), True, u, "no enemy unit on the battlefield",
                              required=f'more than {self.R.SCOUT_MORE_THAN_IN:g}" from every enemy unit'))
            return
        d, i, other, j = near
        ok = scout_far_enough(self.R, d)
        also, failing = "", list[FailingModel]()
        if not ok:  # every model too close, the closest first (the same predicate)
            close = each_too_close(final, near, lambda p: self.table.nearest_unit(p, enemies),
                                   lambda dk: not scout_far_enough(self.R, dk))
            also, failing = also_failing(final, [(k, f"{_f(dk)} from {mid}", dk, mid) for k, dk, mid in close])
        self.add(_finding(self.R.rid("scout.more_than_9"), ok, u,
                          f"model {u.models[i].id} ends {_f(d)} from enemy unit {other.unit.id} (model "
                          f"{other.model_id(j)}); needs more than {self.R.SCOUT_MORE_THAN_IN:g}\"{also}",
                          model=u.models[i].id, measured=d, required=f'more than {self.R.SCOUT_MORE_THAN_IN:g}" from every enemy unit',
                          margin=d - self.R.SCOUT_MORE_THAN_IN, failing=failing,
                          evidence=make_evidence(nearest_enemy_unit=other.unit.id,
                                            nearest_enemy_model=other.model_id(j), model=u.models[i].id)))

    # ------------------------------------------------------------------ Independent Characters
    def check_ic(self, ic: UnitInfo) -> None:
        host = self.world.units[ic.setup.joined]
        is_ic = ic.any_model_has(SpecialRule.INDEPENDENT_CHARACTER)
        self.add(_finding(self.R.rid("ic.eligible"), is_ic, ic,
                          f"Independent Character joined to {host.id}" if is_ic
                          else f"joins {host.id} but has no Independent Character model",
                          required="an Independent Character"))
        ic_inf = ic.any_model_has(SpecialRule.INFILTRATE)
        reading = self.world.ruling("ic-infiltrate")
        note = f"ruling ic-infiltrate={reading}: {self.R.ruling_info('ic-infiltrate').meaning(reading)}"
        if reading == "has":
            host_inf = host.any_model_has(SpecialRule.INFILTRATE)
            ok = ic_inf == host_inf
            if ok:
                msg = ("both have Infiltrate" if ic_inf else "neither has Infiltrate")
            elif host_inf:
                msg = f"an Independent Character without Infiltrate cannot join {host.id}, a unit of Infiltrators, " \
                      "during deployment"
            else:
                msg = (f"an Independent Character with Infiltrate cannot join {host.id}, a unit without it, during "
                       "deployment")
            required = "IC and unit both with or both without Infiltrate"
        else:
            host_uses = infiltrates(host) or (host.method is SetupMethod.EMBARKED and host.setup.first == "infiltrate")
            ok = ic_inf or not host_uses
            if not host_uses:
                msg = f"{host.id} does not set up by Infiltrate: not a unit of Infiltrators"
            elif ic_inf:
                msg = f"{host.id} sets up by Infiltrate and the Independent Character has Infiltrate"
            else:
                msg = (f"an Independent Character without Infiltrate cannot join {host.id}, a unit setting up by "
                       "Infiltrate, during deployment")
            required = "an IC joining a unit that sets up by Infiltrate has Infiltrate"
        self.add(_finding(self.R.rid("ic.infiltrate"), ok, ic, msg, required=required,
                          evidence=make_evidence(other_model=host.id, note=note + " (HH2 p.242)")))
        # unit-type limits (p.241, p.195)
        ic_types = ic.types
        problems = []
        for t in host.types & self.R.IC_FORBIDDEN_HOST_TYPES:
            if t not in ic_types:
                problems.append(f"{host.id} contains {t.value} models")
        from planner.schema import UnitType
        if UnitType.INFANTRY in host.types and not ic_types <= self.R.IC_INFANTRY_HOST_ALLOWS:
            problems.append(f"{host.id} is Infantry and only takes Infantry or Primarch characters")
        self.add(_finding(self.R.rid("ic.unit_type"), not problems, ic,
                          "; ".join(problems) if problems else f"may join {host.id} by unit type",
                          required="unit-type joining limits (p.241, p.195)"))
        # set up with the unit
        same = ic.on_battlefield == host.on_battlefield and (
            ic.method is host.method or (not ic.on_battlefield and not host.on_battlefield))
        if not same:
            self.add(_finding(self.R.rid("ic.coherency"), False, ic,
                              f"set up by {ic.method.value} but {host.id} by {host.method.value}: a joined IC is set "
                              "up with its unit", required="set up with the unit, in coherency"))
            return
        if not ic.on_battlefield or not ic.is_positioned or not host.is_positioned:
            self.add(_finding(self.R.rid("ic.coherency"), True, ic, f"joined to {host.id}, off the battlefield with it",
                              required="set up with the unit"))
            return
        d, rng, ok = self._ic_gap(ic, host)
        self.add(_finding(self.R.rid("ic.coherency"), ok, ic,
                          f"{_f(d)} from {host.id}: within coherency ({rng:g}\")" if ok
                          else f"{_f(d)} from {host.id}: not within coherency ({rng:g}\")",
                          measured=d, required=f"within {rng:g}\" of a model of {host.id}", margin=rng - d))

    # ------------------------------------------------------------------ capacity
    def check_capacity(self) -> None:
        w = self.world
        loads: dict[str, list[UnitInfo]] = defaultdict(list)
        for u in w.units.values():
            if u.method is SetupMethod.EMBARKED:
                loads[u.setup.in_].append(u)
        for tid, cargo in loads.items():
            if tid in w.units:
                cap = w.units[tid].transport_capacity or 0
                owner = w.units[tid]
                what = f"transport {tid}"
            else:
                cap = w.terrain[tid].building.capacity  # type: ignore[union-attr]
                owner = cargo[0]
                what = f"building {tid}"
            used = sum(c.capacity_used() for c in cargo)
            ok = used <= cap
            msg = f"{what} carries {used} of {cap} (Bulky counted): " + ", ".join(c.id for c in cargo)
            for c in ([owner] if tid in w.units else cargo):
                self.add(_finding(self.R.rid("transport.capacity"), ok, c, msg if ok else "over capacity: " + msg,
                                  measured=float(used), required=f"at most {cap} models", margin=float(cap - used)))
