"""Horus Heresy 2.0 Deep Strike Assault: exact odds for the first model, as far as RULES.md §1.4 sources it.

The procedure (RULES.md §1.4, the numbers in :mod:`planner.rules.hh2`):

1. One model of the first unit is placed **at least 1"** from any enemy model, battlefield edge
   and Impassable Terrain, then scattered: HIT on 2 faces of 6 (it stays), otherwise 2D6" in a
   uniform direction (RULES.md §1.11: HH2 p.152 uses the deep-strike scatter [I]).
2. If it ends **within 1"** of an enemy model, a battlefield edge or Impassable Terrain, the
   **opponent** moves it up to 18" to a spot more than 1" from all of them (*relocated*).
3. A D6 once the first unit is down: **Disordered** on a 1 (a Warlord trait: 1-3); the other
   units go within 6" of the first (Disordered: the opponent places them within 24").

What is computed: P(relocated), split by trigger (an edge, Impassable Terrain, an enemy model;
they can overlap), P(Disordered), and, with an **Inertial Guidance System** (HH-GST
``d222-fde9-51b8-8739``: scatter distance halved; if the model would scatter into Impassable
Terrain or off the battlefield it is moved the minimum distance to avoid that; an all-IGS
assault may re-roll the Disordered roll), P(the IGS correction is needed).

Interpretations (labelled ``interpretation`` in the output):

- After the IGS minimum-distance correction the model touches the edge or the terrain, so it
  is within 1" of it and the opponent then relocates it: the correction does not change
  P(relocated), only where the model was before the opponent moves it.
- "Off the battlefield" for the IGS correction: any part of the base off the table.
- The IGS re-roll of the Disordered roll is taken (P = (1/6)^2 on a 1; (3/6)^2 with the trait).
- The rest of the first unit: not in the sources reached; it is placed by its controller in unit
  coherency with the first model, none within 1" of an enemy model or in Impassable Terrain (the
  placing rule the sources give for the other units). :func:`outcomes` gives who places the
  others and within what distance of the first model, with the probability of each.
- The rest of the assault placed (:func:`assault_followers`, :func:`place_assault`): the rest of
  the first unit in base contact with the first model, then each later unit (the player's other
  units in Reserve with ``arrival: deep_strike``) in its ring formation with every model within 6"
  of the first model (the controller; no space: the opponent, as if Disordered) or, Disordered,
  within 24" where the opponent puts it farthest from the first model (the worst legal place for
  me, as read here). Space is searched among stated candidates with the checker's predicates and
  true shapes; P(space) is a lower bound, exact over the dice and a midpoint rule over the
  direction. Where the opponent relocates the first model is its choice: not computed.
- A non-round first model (an oval, a hull such as a Drop Pod) keeps its true shape at its
  facing (``--facing``) in every test: the regions are Minkowski sums (no circumscribed disc).
- Enemy restrictions on Deep Strike arrivals (scenario ``restrictions:``, issue #19 item 5), by
  the one predicate (:func:`restriction_breach`): the first model may not be aimed within X"
  (refused, naming the restriction); one that scatters within X" is relocated by the opponent as
  for the 1" triggers (trigger ``restriction_within``: the set-up is forbidden and the opponent's
  move is the only placing rule the sources give for a misplaced first model); the rest of the
  first unit and the later units are placed only where no restriction forbids them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np

from planner.deepstrike.procedure import (
    NUMERIC_ERROR,
    DeepStrikeSetup,
    _add_sum,
    _has_ovals,
    region_probabilities,
)
from planner.deepstrike.regions import RegionSet
from planner.errors import ScenarioError
from planner.rules.registry import find_ruleset

if TYPE_CHECKING:
    from planner.rules.hh2 import HorusHeresy2
from planner.units import TOLERANCE_IN

_BIG = 1000.0
TRIGGERS = ("edge_within_1", "impassable_within_1", "enemy_within_1")
RESTRICTION_TRIGGER = "restriction_within"
"""The first model ends within an enemy restriction on Deep Strike arrivals (a trigger only when
some enemy unit holds one: :attr:`DeepStrikeSetup.restricted`)."""
ON_MODEL_TRIGGER = "on_model"
"""The first model ends on a model of its own side (no model stands on another; the sources name
only enemy models, edges and Impassable Terrain: a stated ruling, relocated as for those). A
trigger only when a model of its own side is on the table."""
ALL_TRIGGERS = (*TRIGGERS, ON_MODEL_TRIGGER, RESTRICTION_TRIGGER)


def has_friends(st: DeepStrikeSetup) -> bool:
    """A model of the assault's own side is on the table (the ``on_model`` trigger applies)."""
    return any(not o.enemy for o in st.obstacles)


def triggers_of(st: DeepStrikeSetup) -> tuple[str, ...]:
    """The relocation triggers of this assault: :data:`TRIGGERS`, ``on_model`` when a model of its
    own side is on the table, and the restriction one when an enemy unit's restriction names Deep
    Strike arrivals."""
    return (*TRIGGERS, *((ON_MODEL_TRIGGER,) if has_friends(st) else ()),
            *((RESTRICTION_TRIGGER,) if st.restricted else ()))


def held_restrictions(st: DeepStrikeSetup, unit=None) -> list:
    """The enemy restrictions on Deep Strike arrivals against ``unit`` (default the assault's first
    unit): :func:`planner.legality.checks.restriction.held_against` over the units on the table."""
    from planner.legality.checks.restriction import held_against
    from planner.schema import SetupKind

    if not st.restricted:
        return []
    return held_against(list(st.table.on_table), unit or st.unit, SetupKind.DEEP_STRIKE)


def restriction_breach(st: DeepStrikeSetup, unit, fps, ids: tuple[str, ...] = ()):
    """The first enemy restriction on Deep Strike arrivals that ``unit`` set up at footprints
    ``fps`` breaks (the one predicate, :func:`planner.legality.checks.restriction.first_breach`,
    as the checker judges it: exactly X" is within), or None; None at once when no enemy unit
    holds such a restriction. ``ids``: the model ids of ``fps`` when not the unit's models one
    for one."""
    if not st.restricted:
        return None
    from planner.legality.checks.restriction import first_breach
    from planner.legality.table import Placed
    from planner.schema import SetupKind

    return first_breach(st.table, Placed(unit, tuple(fps), tuple(ids)), kind=SetupKind.DEEP_STRIKE)


def restriction_words(held) -> str:
    """A restriction in words with its holder and source: "Auspex Ward (warden, 14\", [test p.1])"."""
    r = held.restriction
    return f"{r.name or 'the restriction'} ({held.holder.id}, {r.within_in:g}\", [{r.source}])"
def footprint_kind(st: DeepStrikeSetup) -> str:
    """The kind of the first model's footprint as the tests use it (``circle`` under the disc ruling)."""
    return st.shapes[0].kind


def _assault_rules(st: DeepStrikeSetup) -> HorusHeresy2:
    """The ruleset whose Deep Strike Assault numbers apply (a Horus Heresy ruleset)."""
    return cast("HorusHeresy2", find_ruleset(st.rules.ruleset))


RULE = "deepstrike_assault"
"""The rule id of the assault odds (less the ruleset prefix): ``<ruleset>.deepstrike_assault.<trigger>``."""


def assault_regions(st: DeepStrikeSetup, *, clear: bool = False, ellipse: str = "outer") -> tuple[RegionSet, dict]:
    """Regions of the first model's centre: ``relocated`` (within 1" of an enemy model, an edge or
    Impassable Terrain), one per trigger, and ``igs_correction`` (base partly off the table or
    overlapping Impassable Terrain).

    With ``clear`` the regions are those where a placement is *not* at least 1" clear (the aim
    point check): the tolerance is on the player's side."""
    S = st.shapes[0]  # the first model's true footprint at its facing (a disc, an oval, a hull)
    T = -TOLERANCE_IN if clear else TOLERANCE_IN
    lim = _assault_rules(st).DEEP_STRIKE_FIRST_MODEL_CLEAR_IN
    ids = {"relocated": 0, **{t: i + 1 for i, t in enumerate(TRIGGERS)}, "igs_correction": len(TRIGGERS) + 1}
    if st.restricted:
        ids[RESTRICTION_TRIGGER] = len(ids)
    if has_friends(st):
        ids[ON_MODEL_TRIGGER] = len(ids)
    rs = RegionSet(len(ids))
    # an edge: the centre within (extent of the shape towards that edge) + 1" of it
    left, right, low, high = S.support(-1, 0), S.support(1, 0), S.support(0, -1), S.support(0, 1)
    # the dsa-igs-off-battlefield ruling: 'off the battlefield' is any part of the base, or its centre
    centre = st.rulings.get("dsa-igs-off-battlefield") == "centre"
    for reg, g in ((0, lim + T), (ids["edge_within_1"], lim + T), (ids["igs_correction"], -TOLERANCE_IN)):
        e = (0.0, 0.0, 0.0, 0.0) if (centre and reg == ids["igs_correction"]) else (left, right, low, high)
        rs.add_rect(-_BIG, -_BIG, e[0] + g, _BIG, reg)
        rs.add_rect(st.width - e[1] - g, -_BIG, _BIG, _BIG, reg)
        rs.add_rect(-_BIG, -_BIG, _BIG, e[2] + g, reg)
        rs.add_rect(-_BIG, st.depth - e[3] - g, _BIG, _BIG, reg)
    g = ids["igs_correction"]
    for tid, poly in st.impassable.items():
        # Impassable Terrain: at least 1" away; a solid feature or wall: only not in it (stated)
        keep = lim + T if st.impassable_terrain is None or tid in st.impassable_terrain else -TOLERANCE_IN
        for reg in (0, ids["impassable_within_1"]):
            _add_sum(rs, poly, S, keep, reg, 0.0, 0.0, ellipse)
        _add_sum(rs, poly, S, -TOLERANCE_IN, g, 0.0, 0.0, ellipse)
    for o in st.obstacles:
        if o.enemy:
            for reg in (0, ids["enemy_within_1"]):
                _add_sum(rs, o.fp, S, lim + T, reg, 0.0, 0.0, ellipse)
        else:  # a model of its own side: only not on it (touching is fine)
            for reg in (0, ids[ON_MODEL_TRIGGER]):
                _add_sum(rs, o.fp, S, -TOLERANCE_IN, reg, 0.0, 0.0, ellipse)
    # an enemy restriction on Deep Strike arrivals: the centres at which the first model is within
    # X" of the holder (or its restricted models), the region where restriction_breach fails it
    # (within X" plus the tolerance, as is_within_distance); relocated as for the 1" triggers
    if not clear:
        for h in held_restrictions(st):
            fps = st.table.final(h.holder).footprints
            for i in h.models:
                for reg in (0, ids[RESTRICTION_TRIGGER]):
                    _add_sum(rs, fps[i], S, h.restriction.within_in + TOLERANCE_IN, reg, 0.0, 0.0, ellipse)
    return rs, ids


@dataclass
class AssaultOdds:
    """Odds of a Deep Strike Assault's first model aimed at (x, y) (probabilities)."""

    x: float
    y: float
    inertial_guidance: bool
    p_relocated: float
    p_stays: float
    triggers: dict[str, float]
    p_igs_correction: float | None
    p_disordered: float
    disordered_on: list[int]
    error_bound: float = NUMERIC_ERROR
    interpretations: list[str] = field(default_factory=list)
    outcomes: list[dict] = field(default_factory=list)
    """Every outcome of the procedure with its probability (they sum to 1): the first model stays or is
    relocated, times Disordered or not; each names who places the rest and where (:func:`outcomes`)."""


def outcomes(st: DeepStrikeSetup, p_relocated: float, p_disordered: float) -> list[dict]:
    """The procedure after the first model (RULES.md §1.4 steps 3-4), as outcomes with probabilities.

    The first model's position (stays where it scattered, or the opponent moves it up to 18") and the
    Disordered D6 are independent, so each pair has the product probability. Returns dicts with
    ``first_model``, ``rest_placed_by``, ``rest_within_in`` (inches of the first model), ``probability``
    and ``text``."""
    H = _assault_rules(st)
    held = held_restrictions(st)
    # where a restriction forbids arrivals, the placing rules keep out of it too (named)
    out_of = ("; none within " + ", ".join(f"{h.restriction.within_in:g}\" of {h.holder.id} "
                                           f"({h.restriction.name or 'its restriction'})" for h in held)) if held else ""
    first = (("stays", 1.0 - p_relocated, "the first model stays where it scattered"),
             ("relocated", p_relocated, f"the opponent moves the first model up to {H.DEEP_STRIKE_OPPONENT_MOVE_IN:g}\" "
                                        f"to a spot more than {H.DEEP_STRIKE_FIRST_MODEL_CLEAR_IN:g}\" from every "
                                        "enemy model, edge and Impassable Terrain" + out_of))
    rest = (("controller", H.DEEP_STRIKE_OTHERS_WITHIN_IN, 1.0 - p_disordered,
             f"not Disordered: the controller places the other units within {H.DEEP_STRIKE_OTHERS_WITHIN_IN:g}\" of the "
             f"first (a unit with no space within {H.DEEP_STRIKE_OTHERS_WITHIN_IN:g}\" is deployed by the opponent as "
             "if Disordered)"),
            ("opponent", H.DEEP_STRIKE_DISORDERED_WITHIN_IN, p_disordered,
             f"Disordered: the opponent places the other units within {H.DEEP_STRIKE_DISORDERED_WITHIN_IN:g}\" of the "
             f"first, no scatter, none within {H.DEEP_STRIKE_FIRST_MODEL_CLEAR_IN:g}\" of an enemy model or in "
             "Impassable Terrain" + out_of))
    return [{"first_model": f, "rest_placed_by": who, "rest_within_in": dist, "probability": pf * pr,
             "text": f"{tf}; {tr}"} for f, pf, tf in first for who, dist, pr, tr in rest]


@dataclass(frozen=True)
class AimRefusal:
    """Why the first model of a Deep Strike Assault may not be placed at an aim point: the rules it
    breaks there (full rule ids, as ``planner rules --ruleset hh2`` lists them) and the words."""

    rules: tuple[str, ...]
    message: str


def aim_refusal(st: DeepStrikeSetup, x: float, y: float) -> AimRefusal | None:
    """Why the first model may not be placed at the aim point (x, y), inches, or None when it may:
    it must be at least 1" from every enemy model, battlefield edge and Impassable Terrain, not in
    a solid feature or wall nor on a model (rules ``<ruleset>.deepstrike_assault.<trigger>``), and
    clear of an enemy restriction on Deep Strike arrivals (``<ruleset>.restriction.within``). The
    one test of the aim point: :func:`assault_odds` refuses by it, ``planner deepstrike`` reports
    it as an illegal aim (exit 1)."""
    rs_clear, ids = assault_regions(st, clear=True)
    bad = rs_clear.contains([x], [y])[0]
    if bad[0]:
        why = [t for t in (*TRIGGERS, ON_MODEL_TRIGGER) if t in ids and bad[ids[t]]]
        return AimRefusal(tuple(f"{st.rules.ruleset}.{RULE}.{t}" for t in why),
                          f"the first model must be placed at least 1\" from every enemy model, battlefield edge "
                          f"and Impassable Terrain, and not in a solid feature or wall nor on a model "
                          f"({', '.join(why)})")
    breach = restriction_breach(st, st.unit, [st.shapes[0].moved(x, y)], (st.unit.models[0].id,))
    if breach is not None:
        from planner.legality.checks.restriction import describe

        return AimRefusal((f"{st.rules.ruleset}.restriction.within",),
                          f"the first model may not be set up within {breach.held.restriction.within_in:g}\" of "
                          f"{breach.held.holder.id}: it is {describe(breach)}")
    return None


def assault_odds(st: DeepStrikeSetup, x: float, y: float, *, warlord_trait: bool = False) -> AssaultOdds:
    """Exact odds of the first model of a Deep Strike Assault aimed at (x, y).

    Raises
    ------
    ScenarioError
        If the first model may not be placed at the aim point (:func:`aim_refusal`: not at least 1"
        from every enemy model, battlefield edge and Impassable Terrain, in a solid feature, on a
        model, or within an enemy restriction), location ``--at``.
    """
    refused = aim_refusal(st, x, y)
    if refused is not None:
        raise ScenarioError(refused.message, location="--at", value=f"{x:g},{y:g}")
    igs = st.rules.scale < 1.0
    vals = {}
    for side in (("outer", "inner") if _has_ovals(st) else ("outer",)):
        rs, ids = assault_regions(st, ellipse=side)
        vals[side] = region_probabilities(st, rs, [x], [y])[0]
    p = vals["outer"]
    kept = igs and st.rulings.get("dsa-igs-correction") == "kept"
    # dsa-igs-correction=kept: a model the IGS moved off an edge or out of Impassable Terrain stays where it was
    # moved; the correction set lies inside the relocation set, so P(relocated) = P(relocated) - P(correction)
    p_rel = float(p[0] - p[ids["igs_correction"]]) if kept else float(p[0])
    bound = NUMERIC_ERROR + (float(np.max(np.abs(vals["outer"] - vals["inner"]))) if "inner" in vals else 0.0)
    on = list(range(1, 4)) if warlord_trait else list(_assault_rules(st).DEEP_STRIKE_DISORDERED_ON)
    pd = len(on) / 6
    notes = ["the rest of the first unit: placed by its controller in unit coherency with the first model, none "
             "within 1\" of an enemy model or in Impassable Terrain, no scatter (the sources reached give no "
             "formation for it; the placing rule of the other units is applied)",
             "the opponent's 18\" move is the opponent's choice: the odds are of who places the other units "
             "and within what distance; where they find space is computed by assault_followers (planner "
             "deepstrike prints it when the assault has more models or units)"]
    if igs:
        if st.rulings.get("dsa-igs-reroll", "taken") == "taken":
            pd = pd * pd
        notes += [("after the IGS minimum-distance correction the model touches the edge or terrain, so it is "
                   "within 1\" and is relocated by the opponent (P(relocated) unchanged)") if not kept else
                  ("the IGS minimum-distance correction ends the scatter: the model stays where it was moved "
                   "(P(relocated) excludes the correction; the triggers are where the scatter ended)"),
                  "IGS 'off the battlefield': " + ("the centre of the base off the table"
                                                   if st.rulings.get("dsa-igs-off-battlefield") == "centre"
                                                   else "any part of the base off the table"),
                  "the IGS re-roll of the Disordered roll is " + ("taken" if st.rulings.get("dsa-igs-reroll", "taken")
                                                                  == "taken" else "not taken")]
    for h in held_restrictions(st):
        notes.append(f"the restriction {restriction_words(h)} forbids a Deep Strike arrival within "
                     f"{h.restriction.within_in:g}\" of {h.holder.id}: a first model that scatters within it is "
                     f"relocated by the opponent as for the 1\" triggers (trigger {RESTRICTION_TRIGGER}; read "
                     "here: the set-up is forbidden, and the only placing rule for a misplaced first model is the "
                     "opponent's move), and no other model of the assault is placed within it")
    if has_friends(st):
        notes.append("a first model that scatters onto a model of its own side is relocated by the opponent as for "
                     f"the 1\" triggers (trigger {ON_MODEL_TRIGGER}: no model stands on another; the sources name "
                     "only enemy models, edges and Impassable Terrain)")
    notes.append("Impassable Terrain (the trait) is kept 1\" away; a solid feature, building or wall is only not to be "
                 "landed in (counted in impassable_within_1)")
    if st.unit.models and footprint_kind(st) != "circle":
        notes.append(f"a non-round first model keeps its true shape at facing {st.facing_deg:g} deg (the "
                     "facing is the controller's choice: --facing)")
    elif not st.exact_bases and st.rulings.get("dsa-first-model-shape") == "disc":
        notes.append("a non-round first model is judged as its circumscribed disc (dsa-first-model-shape=disc)")
    return AssaultOdds(x, y, igs, p_rel, 1 - p_rel,
                       {f"{st.rules.ruleset}.{RULE}.{t}": float(p[ids[t]]) for t in triggers_of(st)},
                       float(p[ids["igs_correction"]]) if igs else None, pd, on, bound, notes,
                       outcomes(st, p_rel, pd))


# --------------------------------------------------------------------------- the rest of the assault (issue #19 item 2)

FOLLOW_ANGLES = 24
"""Directions of the angle quadrature over the first model's scatter (midpoint rule)."""
ANCHOR_STEP_IN = 0.5
"""Radial step of the candidate anchors of a later unit around the first model, inches."""
ANCHOR_DIRECTIONS = 16
"""Directions of the candidate anchors on each ring about the first model."""


@dataclass
class FollowerGroup:
    """Models placed after the first: the rest of the first unit, or a later unit of the assault."""

    unit: str
    label: str
    shapes: list
    radii: list[float]
    exact: bool
    rest_of_first: bool = False


def assault_groups(st: DeepStrikeSetup) -> list[FollowerGroup]:
    """The rest of the first unit (if it has more models), then every other unit of the same
    player in Reserve with ``arrival: deep_strike`` (the units of the assault), in scenario order;
    each model keeps its true shape at the assault's facing."""
    from planner.deepstrike.formation import formation_radii
    from planner.geometry.shapes import footprint
    from planner.schema import SetupMethod

    out = []
    u = st.unit
    if len(u.models) > 1:
        out.append(FollowerGroup(u.id, f"the rest of {u.label} ({_models(len(u.models) - 1)})", st.shapes[1:],
                                 st.radii[1:], st.exact_bases, True))
    for v in st.world.units.values():
        if v.id == u.id or v.player != u.player or v.setup.method is not SetupMethod.RESERVES \
                or v.setup.arrival != "deep_strike":
            continue
        radii, exact = formation_radii([m.base for m in v.models])
        out.append(FollowerGroup(v.id, f"{v.label} ({_models(len(v.models))})",
                                 [footprint(m.base, 0.0, 0.0, st.facing_deg) for m in v.models], radii, exact))
    return out


def _models(n: int) -> str:
    """"1 model", "3 models"."""
    return f"{n} model{'' if n == 1 else 's'}"


_SCREEN_SLACK_IN = 1e-8
"""Slack (inches) of the certificates of :func:`_within_screen` and :meth:`_Space.ok`, far above the rounding of the bounds
and the error of the searched oval distance (below 1e-9"): a pair that close to the limit is measured."""


class _Space:
    """The legal-placement predicates of the later units (RULES.md §1.4 step 4: on the battlefield,
    none within 1" of an enemy model or in Impassable Terrain, on no other model), with the
    checker's exact measures (:mod:`planner.geometry.measure`)."""

    def __init__(self, st: DeepStrikeSetup, p: tuple[float, float], reach: float):
        from shapely.geometry import Point, box

        self.st = st
        self.table = box(0.0, 0.0, st.width, st.depth)
        pt = Point(*p)
        self.imp = [q for q in st.impassable.values() if q.distance(pt) <= reach]
        near = [o for o in st.obstacles if math.hypot(o.fp.cx - p[0], o.fp.cy - p[1]) - o.fp.outer_radius <= reach]
        self.enemies = [o.fp for o in near if o.enemy]
        self.models = [o.fp for o in near]
        self.lim = _assault_rules(st).DEEP_STRIKE_FIRST_MODEL_CLEAR_IN
        self.refused: dict[str, str] = {}
        """Enemy restrictions that refused some candidate (unit id -> the restriction in words)."""
        # per-space constants of the screens in :meth:`ok`: bounding boxes of the terrain, centres and
        # outer radii of the models (a pair the bounding discs keep apart is not measured)
        self._imp_boxes = [q.bounds for q in self.imp]
        self._enemy_xyr = np.array([(e.cx, e.cy, e.outer_radius) for e in self.enemies]).reshape(-1, 3)
        self._model_xyr = np.array([(m.cx, m.cy, m.outer_radius) for m in self.models]).reshape(-1, 3)

    def unrestricted(self, g: FollowerGroup, fps: list) -> bool:
        """No enemy restriction on Deep Strike arrivals forbids group ``g`` at ``fps``
        (:func:`restriction_breach`, the one predicate); a refusal is recorded in :attr:`refused`."""
        unit = self.st.world.units[g.unit]
        models = unit.models[1:] if g.rest_of_first else unit.models
        breach = restriction_breach(self.st, unit, fps, tuple(m.id for m in models))
        if breach is None:
            return True
        self.refused.setdefault(g.unit, restriction_words(breach.held))
        return False

    def surely_not_ok(self, shapes: list, centres: np.ndarray, placed: list) -> np.ndarray:
        """Candidates that :meth:`ok` refuses for sure, for candidate centres ``centres`` (K x M x 2
        inches of the M models of ``shapes``): a K-array, True where some model's centre is off the
        battlefield by more than its inscribed radius, or its inscribed disc overlaps that of a model
        on the table or of ``placed`` (the certificates :func:`planner.geometry.measure.overlaps` and
        :func:`planner.geometry.shapes.clearance_inside` would reach; never one they would not)."""
        ri = np.array([S.inner_radius for S in shapes])
        x, y = centres[..., 0], centres[..., 1]
        slack = TOLERANCE_IN + _SCREEN_SLACK_IN
        off = (np.minimum(np.minimum(x, self.st.width - x), np.minimum(y, self.st.depth - y)) < ri - slack)
        bad = off.any(axis=1)
        others = [*self.models, *placed]
        if others:
            o = np.array([(q.cx, q.cy, q.inner_radius) for q in others])
            d = np.hypot(x[..., None] - o[:, 0], y[..., None] - o[:, 1])
            bad |= (d < ri[None, :, None] + o[:, 2] - slack).any(axis=(1, 2))
        return bad

    def ok(self, f, placed: list) -> bool:
        """Model footprint ``f`` may be placed: on the battlefield, in no Impassable Terrain, not within
        1" of an enemy model, overlapping no model on the table nor of ``placed``. The exact measures
        decide; a pair whose bounding box or discs keep it apart by more than the distance in question
        (plus a slack above rounding) is not measured, as the exact answer is then known."""
        from planner.geometry.measure import is_within, overlaps
        from planner.geometry.shapes import clearance_inside, distance_to_polygon

        if clearance_inside(f, self.table) < -TOLERANCE_IN:
            return False
        r, x, y = f.outer_radius, f.cx, f.cy
        for q, (x0, y0, x1, y1) in zip(self.imp, self._imp_boxes, strict=True):
            if math.hypot(max(x0 - x, 0.0, x - x1), max(y0 - y, 0.0, y - y1)) > r + _SCREEN_SLACK_IN:
                continue  # the base is clear of the feature's bounding box
            if distance_to_polygon(f, q) < -TOLERANCE_IN:
                return False
        if len(self.enemies):
            e = self._enemy_xyr
            near = np.hypot(e[:, 0] - x, e[:, 1] - y) - e[:, 2] - r <= self.lim + TOLERANCE_IN + _SCREEN_SLACK_IN
            if any(is_within(f, self.enemies[i], self.lim) for i in np.flatnonzero(near).tolist()):
                return False
        if len(self.models):
            m = self._model_xyr
            near = np.hypot(m[:, 0] - x, m[:, 1] - y) - m[:, 2] - r <= _SCREEN_SLACK_IN
            if any(overlaps(f, self.models[i]) for i in np.flatnonzero(near).tolist()):
                return False
        return not any(overlaps(f, o) for o in placed)


_FORMS: dict = {}


def _offsets(g: FollowerGroup, orientation: float, first=None) -> Sequence[tuple[float, float]]:
    """The centres of group ``g`` in its rings relative to the anchor (``first``: relative to the first
    model ``first``, a Footprint, in base contact with it), computed once per group shape and
    orientation (cached)."""
    from planner.deepstrike.formation import ring_formation

    key = (tuple((S.kind, S.a, S.b, S.angle, S.verts) for S in g.shapes), round(orientation % 360.0, 9),
           None if first is None else (first.kind, first.a, first.b, first.angle, tuple(
               (x - first.cx, y - first.cy) for x, y in first.verts)))
    offs = _FORMS.get(key)
    if offs is None:
        if first is not None:
            radii = [first.outer_radius, *g.radii]
            shapes = None if g.exact and first.kind == "circle" else [first.moved(0.0, 0.0), *g.shapes]
            offs = ring_formation((0.0, 0.0), radii, orientation, shapes=shapes).centres[1:]
        else:
            offs = ring_formation((0.0, 0.0), g.radii, orientation, shapes=None if g.exact else g.shapes).centres
        if len(_FORMS) > 4096:
            _FORMS.clear()
        _FORMS[key] = offs
    return offs


def _formation(g: FollowerGroup, anchor, orientation: float, first=None, offs=None):
    """The group in rings about ``anchor`` (its own first model there), or, for the rest of the
    first unit, about the first model ``first`` (a Footprint) in base contact with it. The ring
    offsets are computed once per group shape and orientation (cached; ``offs``: the caller's
    :func:`_offsets` of them), then moved."""
    offs = _offsets(g, orientation, first) if offs is None else offs
    ax, ay = (first.cx, first.cy) if first is not None else anchor
    return [S.moved(ax + dx, ay + dy) for (dx, dy), S in zip(offs, g.shapes, strict=True)]


def _extents(S, ux: np.ndarray, uy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Of footprint ``S`` along unit vectors u (arrays), relative to its centre: its support (the
    farthest extent, so ``d - ext_a - ext_b`` along the centre line bounds the gap from below) and a
    radial extent (``centre + r u`` lies in ``S``; exact for a disc and an ellipse, the inscribed
    radius for a hull, 0 for a segment)."""
    if S.kind == "circle":
        r = np.full_like(ux, S.a)
        return r, r
    if S.kind == "ellipse":
        c, s = math.cos(S.angle), math.sin(S.angle)
        ua, ub = ux * c + uy * s, -ux * s + uy * c
        return np.hypot(S.a * ua, S.b * ub), S.a * S.b / np.hypot(S.b * ua, S.a * ub)
    v = np.asarray(S.verts) - (S.cx, S.cy)
    return np.max(v[:, 0:1] * ux[None, :] + v[:, 1:2] * uy[None, :], axis=0), np.full_like(ux, S.inner_radius)


def _within_screen(shapes: list, centres: np.ndarray, first, limit: float) -> np.ndarray:
    """Which of :func:`planner.geometry.measure.is_within` (model, ``first``, ``limit``) the centre-line
    bounds decide, for candidate centres ``centres`` (K x M x 2 inches: K candidates of the M models of
    ``shapes``): +1 within for sure, -1 beyond for sure, 0 to measure exactly. Sound both ways: the gap
    along the centre line (d minus both supports) is a lower bound of the distance, and two points of
    the bases on the centre line (d minus both radial extents) give an upper bound; the exact measure
    lies between them, so a decided pair gets the exact measure's answer (a screen, not another copy of
    the rule)."""
    from planner.units import TOLERANCE_IN as tol

    out = np.zeros(centres.shape[:2], dtype=np.int8)
    for j, S in enumerate(shapes):
        dx, dy = centres[:, j, 0] - first.cx, centres[:, j, 1] - first.cy
        d = np.hypot(dx, dy)
        safe = np.where(d > 0, d, 1.0)
        ux, uy = np.where(d > 0, dx / safe, 1.0), np.where(d > 0, dy / safe, 0.0)
        h1, r1 = _extents(first, ux, uy)
        h2, r2 = _extents(S, -ux, -uy)
        lower, upper = d - h1 - h2, np.maximum(0.0, d - r1 - r2)
        out[:, j] = np.where(lower > limit + tol + _SCREEN_SLACK_IN, -1,
                             np.where(upper <= limit + tol - _SCREEN_SLACK_IN, 1, 0))
    return out


def place_group(st: DeepStrikeSetup, g: FollowerGroup, first, limit: float, placed: list, *,
                worst: bool = False, space: _Space | None = None, refused: dict | None = None) -> list | None:
    """A legal placement of group ``g`` with every model within ``limit`` inches (closest points) of
    the first model ``first`` (a Footprint), or None if no candidate is legal.

    Candidates: the group's ring formation (true shapes) with its first model on rings about the
    first model every :data:`ANCHOR_STEP_IN` inches, :data:`ANCHOR_DIRECTIONS` directions each, the
    rings' orientation towards the first model and away from it (the rest of the first unit: rings
    about the first model itself, in base contact, 24 orientations). The controller takes the
    nearest legal one; with ``worst`` (Disordered: the opponent) the farthest from the first model.
    A placement returned is legal by the checker's predicates (enemy restrictions on Deep Strike
    arrivals included: :func:`restriction_breach`); None means none of the candidates is (a lower
    bound on the space). ``refused`` (a dict, filled): unit id -> the restriction that refused
    one of its candidates."""
    from planner.geometry.measure import is_within

    space = space or _Space(st, (first.cx, first.cy), limit + 2 * sum(g.radii) + first.outer_radius + 2.0)
    if refused is not None:  # the caller's record of the restrictions that refused a candidate
        space.refused = refused
    if g.rest_of_first:
        for k in range(24):
            fps = _formation(g, None, 15.0 * k, first)
            if all(space.ok(f, [first, *placed]) for f in fps) and space.unrestricted(g, fps):
                return fps
        return None
    r_min = first.inner_radius + min(S.inner_radius for S in g.shapes)
    r_max = limit + first.outer_radius + g.shapes[0].outer_radius  # beyond it the anchored model is too far
    rings = np.arange(r_min, r_max + 1e-9, ANCHOR_STEP_IN)
    if worst:
        rings = rings[::-1]
    cands = []  # (anchor, orientation) in search order
    for rho in rings:
        for k in range(ANCHOR_DIRECTIONS):
            th = 2 * math.pi * k / ANCHOR_DIRECTIONS
            a = (first.cx + rho * math.cos(th), first.cy + rho * math.sin(th))
            for orient in ((math.degrees(th) + 180.0, math.degrees(th)) if worst else
                           (math.degrees(th), math.degrees(th) + 180.0)):
                cands.append((a, orient))
    if not cands:
        return None
    # the distance to the first model, screened for every candidate at once (:func:`_within_screen`):
    # a candidate with a model beyond the limit for sure is passed over unbuilt, and only the pairs the
    # bounds leave open are measured exactly, after the cheaper legality tests (the same first legal
    # candidate: each test is a pure predicate, only the order of the conjunction's terms changed)
    offsets = {orient: _offsets(g, orient) for orient in dict.fromkeys(o for _, o in cands)}  # in search order
    centres = np.array([[(a[0] + dx, a[1] + dy) for dx, dy in offsets[orient]] for a, orient in cands])
    screen = _within_screen(g.shapes, centres, first, limit)
    others = [first, *placed]
    beyond = (screen < 0).any(axis=1) | space.surely_not_ok(g.shapes, centres, others)
    for (a, orient), sure, out in zip(cands, screen, beyond, strict=True):
        if out:
            continue
        fps = _formation(g, a, orient, offs=offsets[orient])
        if all(space.ok(f, others) for f in fps) \
                and all(s > 0 or is_within(f, first, limit) for f, s in zip(fps, sure, strict=True)) \
                and space.unrestricted(g, fps):
            return fps
    return None


def place_assault(st: DeepStrikeSetup, first, *, disordered: bool = False) -> list[dict]:
    """Place every later group for the first model at ``first`` (a Footprint), one after another:
    not Disordered, the controller within 6" (a unit with no space there goes to the opponent,
    placed as if Disordered); Disordered, the opponent within 24", as far from the first model as
    the candidates allow (the worst legal place for me). Returns, per group, ``unit``, ``placed_by``,
    ``within_in``, ``positions`` (centres) or None, ``space`` (True: placed), and, when an enemy
    unit holds a restriction on Deep Strike arrivals, ``restrictions``: those that refused one of
    the unit's candidates (in words, :func:`restriction_words`)."""
    H = _assault_rules(st)
    near, far = H.DEEP_STRIKE_OTHERS_WITHIN_IN, H.DEEP_STRIKE_DISORDERED_WITHIN_IN
    placed: list = []
    out = []
    for g in assault_groups(st):
        refused: dict[str, str] = {}
        if g.rest_of_first:
            fps = place_group(st, g, first, 0.0, placed, refused=refused)
            who, lim = "controller", None
        elif not disordered:
            fps, who, lim = place_group(st, g, first, near, placed, refused=refused), "controller", near
            if fps is None:  # no space within 6": the opponent deploys it as if Disordered
                fps, who, lim = place_group(st, g, first, far, placed, worst=True, refused=refused), "opponent", far
        else:
            fps, who, lim = place_group(st, g, first, far, placed, worst=True, refused=refused), "opponent", far
        if fps is not None:
            placed += fps
        row: dict = {"unit": g.unit, "label": g.label, "placed_by": who, "within_in": lim, "space": fps is not None,
               "positions": None if fps is None else [[float(f.cx), float(f.cy)] for f in fps]}
        if st.restricted:  # the enemy restrictions that refused a candidate of this unit (none: [])
            row["restrictions"] = sorted(set(refused.values()))
        out.append(row)
    return out


@dataclass
class AssaultFollowers:
    """What becomes of the rest of the assault (probabilities; see :func:`assault_followers`)."""

    groups: list[str]
    on_target: list[dict]
    on_target_disordered: list[dict]
    p_space: float
    """P(the first model stays and every later unit finds space within 6" of it, and the rest of the first
    unit fits in base contact), over the scatter (angle quadrature). Whether the Disordered roll comes
    up or not: Disordered, the space is not used (the opponent places them), so the outcome "the
    controller places every unit" is ``p_controller_places_all`` = ``p_space`` x P(not Disordered)."""
    p_stays: float
    outcomes: list[dict]
    angles: int
    interpretations: list[str] = field(default_factory=list)
    p_controller_places_all: float = 0.0
    """P(the first model stays, not Disordered, and the controller places every later unit within 6")."""


def assault_followers(st: DeepStrikeSetup, x: float, y: float, o: AssaultOdds | None = None,
                      angles: int = FOLLOW_ANGLES) -> AssaultFollowers:
    """The rest of a Deep Strike Assault aimed at (x, y): for each landing of the first model where
    it stays (HIT, or 2D6 in ``angles`` directions), whether the controller finds space within 6"
    of it for every later unit (and for the rest of the first unit in base contact with it), by
    :func:`place_assault`; the probability of each outcome with the Disordered D6.

    ``p_space`` is the exact P(stays) (closed-form arcs) times the fraction of the stays with space,
    measured exactly over the dice and by a midpoint rule over the direction (``angles``
    directions: a stated approximation, not closed-form arcs); a
    landing counted without space is one where none of the candidate placements is legal, so
    ``p_space`` is a lower bound on the space the text allows. A relocated first model is moved
    by the opponent: where, and so whether the others find space, is the opponent's choice (not
    computed; its outcomes say so). The placement on target (the HIT) is returned, not
    Disordered and Disordered (the opponent's worst place for me: as far from the first model as
    the candidates allow, within 24")."""
    o = o or assault_odds(st, x, y)
    S = st.shapes[0]
    R = st.rules
    rs, _ = assault_regions(st)
    groups = assault_groups(st)

    def space_at(px: float, py: float) -> bool:
        return all(r["space"] and r["placed_by"] == "controller" for r in place_assault(st, S.moved(px, py)))

    on_t = place_assault(st, S.moved(x, y))
    on_d = place_assault(st, S.moved(x, y), disordered=True)
    # quadrature of P(stays and space) and of P(stays) on the same directions; the space fraction
    # of the stays is then applied to the exact P(stays) of the closed-form arcs
    stay_aim = not bool(rs.contains([x], [y])[0][0])
    q_space = R.p_hit * float(stay_aim and all(r["space"] and r["placed_by"] == "controller" for r in on_t))
    q_stay = R.p_hit * float(stay_aim)
    th = (np.arange(angles) + 0.5) * 2 * math.pi / angles
    for d, pd in R.scatter_distances():
        px, py = x + d * np.cos(th), y + d * np.sin(th)
        stay = ~rs.contains(px, py)[:, 0]
        ok = [bool(s) and space_at(float(a), float(b)) for a, b, s in zip(px, py, stay, strict=True)]
        q_space += (1 - R.p_hit) * pd * float(np.mean(ok))
        q_stay += (1 - R.p_hit) * pd * float(np.mean(stay))
    p = o.p_stays * (q_space / q_stay if q_stay > 0 else 0.0)
    pd_ = o.p_disordered
    nd = 1.0 - pd_
    H = _assault_rules(st)
    outs = [
        {"first_model": "stays", "disordered": False, "space": True, "probability": nd * p,
         "text": f"the first model stays; not Disordered; every later unit finds space within "
                 f"{H.DEEP_STRIKE_OTHERS_WITHIN_IN:g}\" (the controller places them)"},
        {"first_model": "stays", "disordered": False, "space": False, "probability": nd * max(0.0, o.p_stays - p),
         "text": f"the first model stays; not Disordered; some unit finds no space within "
                 f"{H.DEEP_STRIKE_OTHERS_WITHIN_IN:g}\": the opponent deploys it as if Disordered (within "
                 f"{H.DEEP_STRIKE_DISORDERED_WITHIN_IN:g}\")"},
        {"first_model": "stays", "disordered": True, "space": None, "probability": pd_ * o.p_stays,
         "text": f"the first model stays; Disordered: the opponent places the other units within "
                 f"{H.DEEP_STRIKE_DISORDERED_WITHIN_IN:g}\""},
        {"first_model": "relocated", "disordered": False, "space": None, "probability": nd * o.p_relocated,
         "text": "the opponent relocates the first model; not Disordered: space within 6\" depends on the "
                 "opponent's choice of spot (not computed)"},
        {"first_model": "relocated", "disordered": True, "space": None, "probability": pd_ * o.p_relocated,
         "text": "the opponent relocates the first model; Disordered: the opponent places the other units "
                 "within 24\""},
    ]
    notes = [f"the later units: the other units of {st.unit.player} in Reserve with arrival deep_strike, placed one "
             "after another in scenario order, each in its ring formation (true shapes in base contact, so in "
             "coherency), every model within the distance of the first model (closest points), on the "
             "battlefield, none within 1\" of an enemy model, in Impassable Terrain or on another model",
             f"space is searched among candidate placements (anchors every {ANCHOR_STEP_IN:g}\" out from the "
             f"first model, {ANCHOR_DIRECTIONS} directions, two ring orientations); a placement found is legal "
             "by the checker's predicates, none found counts as no space (P(space) is a lower bound)",
             f"P(space) = P(stays) (exact) x P(space | stays), the latter exact over the dice and a "
             f"{angles}-direction midpoint rule over the direction (not closed-form arcs)",
             "the rest of the first unit: in base contact with the first model (its ring formation, 24 "
             "orientations), counted in the space outcome",
             "Disordered: the opponent's worst legal place for me is taken as the farthest from the first model "
             "within 24\" among the candidates (the assault split up)",
             "a relocated first model: the opponent chooses its spot, so whether the others find space then is "
             "the opponent's choice (not computed)"]
    return AssaultFollowers([g.label for g in groups], on_t, on_d, p, o.p_stays, outs, angles, notes, nd * p)
