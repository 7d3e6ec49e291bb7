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
  placing rule the sources give for the other units). The opponent's 18" move and the placing of
  the other units are the placing player's choice: :func:`outcomes` gives who places them and
  within what distance of the first model, with the probability of each.
- A non-round first model (an oval, a hull such as a Drop Pod) keeps its true shape at its
  facing (``--facing``) in every test: the regions are Minkowski sums (no circumscribed disc).
"""

from __future__ import annotations

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
    for poly in st.impassable.values():
        for reg in (0, ids["impassable_within_1"]):
            _add_sum(rs, poly, S, lim + T, reg, 0.0, 0.0, ellipse)
        _add_sum(rs, poly, S, -TOLERANCE_IN, g, 0.0, 0.0, ellipse)
    for o in st.obstacles:
        if o.enemy:
            for reg in (0, ids["enemy_within_1"]):
                _add_sum(rs, o.fp, S, lim + T, reg, 0.0, 0.0, ellipse)
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
    first = (("stays", 1.0 - p_relocated, "the first model stays where it scattered"),
             ("relocated", p_relocated, f"the opponent moves the first model up to {H.DEEP_STRIKE_OPPONENT_MOVE_IN:g}\" "
                                        f"to a spot more than {H.DEEP_STRIKE_FIRST_MODEL_CLEAR_IN:g}\" from every "
                                        "enemy model, edge and Impassable Terrain"))
    rest = (("controller", H.DEEP_STRIKE_OTHERS_WITHIN_IN, 1.0 - p_disordered,
             f"not Disordered: the controller places the other units within {H.DEEP_STRIKE_OTHERS_WITHIN_IN:g}\" of the "
             f"first (a unit with no space within {H.DEEP_STRIKE_OTHERS_WITHIN_IN:g}\" is deployed by the opponent as "
             "if Disordered)"),
            ("opponent", H.DEEP_STRIKE_DISORDERED_WITHIN_IN, p_disordered,
             f"Disordered: the opponent places the other units within {H.DEEP_STRIKE_DISORDERED_WITHIN_IN:g}\" of the "
             f"first, no scatter, none within {H.DEEP_STRIKE_FIRST_MODEL_CLEAR_IN:g}\" of an enemy model or in "
             "Impassable Terrain"))
    return [{"first_model": f, "rest_placed_by": who, "rest_within_in": dist, "probability": pf * pr,
             "text": f"{tf}; {tr}"} for f, pf, tf in first for who, dist, pr, tr in rest]


def assault_odds(st: DeepStrikeSetup, x: float, y: float, *, warlord_trait: bool = False) -> AssaultOdds:
    """Exact odds of the first model of a Deep Strike Assault aimed at (x, y).

    Raises
    ------
    ScenarioError
        If the aim point is not at least 1" from every enemy model, battlefield edge and
        Impassable Terrain (the model may not be placed there).
    """
    rs_clear, ids = assault_regions(st, clear=True)
    bad = rs_clear.contains([x], [y])[0]
    if bad[0]:
        why = [t for t in TRIGGERS if bad[ids[t]]]
        raise ScenarioError(f"the first model must be placed at least 1\" from every enemy model, battlefield edge "
                            f"and Impassable Terrain ({', '.join(why)})", location="--at", value=f"{x:g},{y:g}")
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
             "the opponent's 18\" move and the placing of the other units are the placing player's choice: the "
             "odds are of who places them and within what distance, not where"]
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
    if st.unit.models and footprint_kind(st) != "circle":
        notes.append(f"a non-round first model keeps its true shape at facing {st.facing_deg:g} deg (the "
                     "facing is the controller's choice: --facing)")
    elif not st.exact_bases and st.rulings.get("dsa-first-model-shape") == "disc":
        notes.append("a non-round first model is judged as its circumscribed disc (dsa-first-model-shape=disc)")
    return AssaultOdds(x, y, igs, p_rel, 1 - p_rel,
                       {f"{st.rules.ruleset}.{RULE}.{t}": float(p[ids[t]]) for t in TRIGGERS},
                       float(p[ids["igs_correction"]]) if igs else None, pd, on, bound, notes,
                       outcomes(st, p_rel, pd))
