"""Deep Strike: the procedure per ruleset, the mishap test for one landing, and exact odds.

The procedure (5th-edition French seed, 7th edition; RULES.md §1.11, §2.1): the first model is
placed at the aim point; the scatter die shows HIT on 2 faces of 6 (the model stays) or an arrow
(the model moves 2D6" in the arrow's direction, uniform over the circle); the other models form
the rings of :func:`planner.deepstrike.formation.ring_formation` around the first. :func:`odds`
is for one fixed formation (``orientation_deg``, fixed relative to the table).
:func:`best_formation_odds` is for the formation the controlling player chooses after the
scatter (the text: each circle holds "as many models as will fit", a mishap only when a model
cannot be placed). It covers a stated finite family (:func:`formation_family`: orientations every
:data:`ORIENTATION_STEP_DEG` degrees, ring 1 full or cut short), is exact for the best of that
family, and gives the first model's own mishap as a lower bound for any formation.

Mishap triggers (one rule id each, ``<ruleset>.deepstrike.mishap.<trigger>``):
``off_table`` (7th: any part of a base off the table; 5th: the centre off it; see the ruleset
modules), ``impassable`` (a base overlapping impassable terrain; 7th: also buildings),
``on_model`` (bases overlapping a friendly or enemy model), ``enemy_within_1`` (within 1" of an
enemy model). Dangerous terrain: a base on or touching a difficult (or dangerous) feature.
10th/11th (no scatter, procedure ``arrival``): a legal/not-legal arrival check, each rule it
breaks by the id ``planner check`` reports for the same arrival (:data:`ARRIVAL_RULES`).

Odds: exact over the HIT faces (1/3) and the 36 outcomes of 2D6; over the direction each
probability is the angle-measure of the scatter circle inside a region of the first model's
centre (:mod:`planner.deepstrike.regions`: closed-form crossing angles, error below 2e-6
(``NUMERIC_ERROR``), well inside the documented bound ``ERROR_BOUND`` = 1e-4). Maps and
``--best`` use the boundary engine (:mod:`planner.deepstrike.boundary`: the region's boundary is
extracted once per formation); single aim points the per-primitive reference engine; the tests
compare the two. The regions are built from the same predicates the landing test uses
(:mod:`planner.geometry.measure`), and the tests check that the two agree at random points.
Non-round models of the deep-striking unit (ovals, hulls: e.g. Drop Pods) keep a stated facing
(``facing_deg``: ``--facing``, default the scenario's facing of the first model, else 0) and
their true shape in every mishap test: the regions are Minkowski sums of the obstacles with the
reflected model shape (:func:`_add_sum`). Interpretation: the ring formation spaces them by
their circumscribed discs (the text speaks of bases in contact in circles; for a non-round base
the circumscribed disc is the spacing that never overlaps whatever the facing). Ovals on either
side (obstacle or deep striker) are bracketed by
an inner and an outer 256-sided polygon of the grown ellipse (:func:`grown_ellipse_bounds`): the
outer odds are reported and the measured gap to the inner ones is added to ``error_bound``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from shapely.geometry import Point, Polygon, box
from shapely.ops import unary_union

from planner.deepstrike.formation import Formation, formation_radii, ring_formation
from planner.deepstrike.regions import RegionSet
from planner.errors import ScenarioError, UnknownRulesetError
from planner.geometry.measure import (
    is_more_than,
    is_more_than_distance,
    is_within_distance,
    overlaps,
)
from planner.geometry.shapes import (
    Footprint,
    clearance_inside,
    distance_to_polygon,
    footprint,
    signed_distance,
)
from planner.legality.report import Evidence, Finding
from planner.rules.registry import all_rulesets, find_ruleset
from planner.schema import SetupMethod, TerrainTrait
from planner.units import TOLERANCE_IN
from planner.world import UnitInfo, World, no_unit_text

ERROR_BOUND = 1e-4
"""Documented bound on the error of every probability reported."""
NUMERIC_ERROR = 2e-6
"""Bound on the floating-point error of the arc measure (see :mod:`planner.deepstrike.regions`)."""

TRIGGERS = ("off_table", "impassable", "on_model", "enemy_within_1")
ARRIVAL_RULES: tuple[tuple[str, str], ...] = (
    ("off_table", "battlefield"),
    ("distance", "deepstrike.distance"),
    ("restriction", "restriction.within"),
    ("impassable", "terrain.placement"),
    ("on_model", "bases.overlap"),
)
"""10th/11th arrival (procedure ``arrival``): each way :func:`judge_landing` finds a set-up illegal
-> the rule (its id less the ruleset prefix) that ``planner check`` reports for the same failure of
a unit arriving from reserves (:class:`planner.legality.wh40k.WH40kChecker`: ``check_battlefield``,
``check_arrival``, ``restriction_findings``, ``check_terrain``, ``check_overlaps``). The one table:
the arrival's findings, :attr:`Landing.triggers` and :attr:`Odds.triggers` all take their ids from it
(:meth:`DeepStrikeRules.arrival_rule_id`)."""
_BIG = 1000.0


# --------------------------------------------------------------------------- rules per ruleset


@dataclass(frozen=True)
class DeepStrikeRules:
    """The Deep Strike numbers of one ruleset (read from its module)."""

    ruleset: str
    scatter: bool
    p_hit: float = 1 / 3
    dice: int = 2
    scale: float = 1.0
    off_table_rule: str = "partial"
    enemy_within_in: float = 1.0
    buildings_impassable: bool = False
    difficult_is_dangerous: bool = True
    mishap_table: tuple[tuple[int, int, str], ...] = ()
    more_than_in: float | None = None
    procedure: str = "mishap"
    """``mishap`` (5th/7th), ``arrival`` (10th/11th), ``assault`` (HH2 Deep Strike Assault)."""

    def rule_id(self, what: str) -> str:
        return f"{self.ruleset}.deepstrike.{what}"

    def arrival_rule_id(self, trigger: str) -> str:
        """The full rule id of a 10th/11th arrival trigger (:data:`ARRIVAL_RULES`), the id ``planner
        check`` gives the same failure: ``'distance'`` -> ``'wh40k10.deepstrike.distance'``.

        Raises
        ------
        KeyError
            If ``trigger`` is not one of :data:`ARRIVAL_RULES`.
        """
        return f"{self.ruleset}.{dict(ARRIVAL_RULES)[trigger]}"

    def arrival_rule_ids(self, restricted: bool = False) -> tuple[str, ...]:
        """Every rule a 10th/11th arrival is judged by, in :data:`ARRIVAL_RULES` order (the
        restriction rule only when ``restricted``: some enemy restriction names Deep Strike arrivals)."""
        return tuple(self.arrival_rule_id(t) for t, _ in ARRIVAL_RULES if restricted or t != "restriction")

    def scatter_distances(self) -> list[tuple[float, float]]:
        """(distance in inches, probability) of an arrow roll: exact over the 6^dice outcomes."""
        counts: dict[int, int] = {0: 1}
        for _ in range(self.dice):
            nxt: dict[int, int] = {}
            for s, c in counts.items():
                for f in range(1, 7):
                    nxt[s + f] = nxt.get(s + f, 0) + c
            counts = nxt
        tot = 6 ** self.dice
        return [(s * self.scale, c / tot) for s, c in sorted(counts.items())]

    def result_probabilities(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for lo, hi, name in self.mishap_table:
            out[name] = out.get(name, 0.0) + (hi - lo + 1) / 6
        return out


def deepstrike_rules(ruleset: str, inertial_guidance: bool = False) -> DeepStrikeRules:
    """The Deep Strike rules of a ruleset id or alias.

    ``inertial_guidance`` (HH2 only, RULES.md §1.4): the first model's scatter distance is halved
    (:data:`planner.rules.hh2.INERTIAL_GUIDANCE_SCATTER_FACTOR`).

    Raises
    ------
    ScenarioError
        If the ruleset has no Deep Strike procedure here, or Inertial Guidance is asked for
        outside HH2.
    """
    rs = find_ruleset(ruleset)
    if inertial_guidance and not rs.HAS_INERTIAL_GUIDANCE:
        with_it = ", ".join(r.id for r in all_rulesets() if r.HAS_INERTIAL_GUIDANCE)
        raise ScenarioError(f"an Inertial Guidance System is not a rule of {rs.id} (use --ruleset {with_it})",
                            location="--inertial-guidance", value=rs.id)
    try:
        return rs.deep_strike_rules(inertial_guidance)
    except UnknownRulesetError:
        with_it = ", ".join(r.id for r in all_rulesets() if _has_deep_strike(r))
        raise ScenarioError(f"ruleset {rs.id!r} has no Deep Strike procedure in 'planner deepstrike' "
                            f"(supported: {with_it})", location="ruleset", value=ruleset) from None


def _has_deep_strike(rs) -> bool:
    try:
        rs.deep_strike_rules()
    except UnknownRulesetError:
        return False
    return True


# --------------------------------------------------------------------------- the battlefield


@dataclass
class Obstacle:
    """A model on the battlefield that a landing unit must not land on (or near, if an enemy)."""

    ref: str
    enemy: bool
    fp: Footprint


@dataclass
class DeepStrikeSetup:
    """A unit about to Deep Strike onto a resolved scenario's battlefield."""

    world: World
    unit: UnitInfo
    rules: DeepStrikeRules
    orientation_deg: float = 0.0
    radii: list[float] = field(default_factory=list)
    exact_bases: bool = True
    """Every model of the unit has a round base (the ring formation's spacing is then exact)."""
    obstacles: list[Obstacle] = field(default_factory=list)
    impassable: dict[str, Polygon] = field(default_factory=dict)
    """Where no model may be set up or land (feature id -> shape): the checker's no-go terrain
    (impassable and solid features, walls: ``Table.no_go_polys``) and, where the edition says so
    (7th), buildings."""
    dangerous: dict[str, Polygon] = field(default_factory=dict)
    width: float = 72.0
    depth: float = 48.0
    shapes: list[Footprint] = field(default_factory=list)
    """Each model's true footprint at the origin with ``facing_deg`` (ovals and hulls keep their shape)."""
    facing_deg: float = 0.0
    ring_caps: tuple[int, ...] | None = None
    """At most this many models in ring 1, 2, ... (a ring cut short: :func:`ring_formation`); None: as many as fit."""

    ring_spacing: str = "circumscribed"
    """The ``ds-ring-spacing`` reading: ``circumscribed`` (rings spaced by the discs of ``radii``) or
    ``true-shape`` (non-round models in contact by their true outlines at ``facing_deg``)."""
    rulings: dict[str, str] = field(default_factory=dict)
    """The rulings this Deep Strike reads (key -> reading applied): :func:`make_setup`."""
    rulings_chosen: frozenset[str] = frozenset()
    """The keys of :attr:`rulings` chosen (in the scenario or by ``--ruling``) rather than defaults."""
    restricted: bool = False
    """10th/11th and HH2 Deep Strike Assault: some enemy unit's restriction forbids a Deep Strike
    arrival near it (checked in :func:`judge_landing`, and in :mod:`planner.deepstrike.assault`,
    with :mod:`planner.legality.checks.restriction`)."""
    unapplied: tuple[str, ...] = ()
    """Enemy units whose restrictions name Deep Strike arrivals, in a ruleset whose Deep Strike
    procedure (the 5th/7th Mishap procedure) has no restriction rule: said, not applied."""
    impassable_terrain: frozenset[str] | None = None
    """The ids of :attr:`impassable` that are Impassable Terrain in the text's sense (the trait
    ``impassable``; 7th: buildings), for the rules that keep a distance from it (Horus Heresy Deep
    Strike Assault: at least 1" away); a solid feature or a wall is only not to be stood in.
    None: every one."""
    _forms: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def table(self):
        """The checker's table of the scenario (built once), for the restriction predicate."""
        if "table" not in self._forms:
            from planner.legality.table import Table

            self._forms["table"] = Table(self.world)
        return self._forms["table"]

    def formation(self, x: float, y: float) -> Formation:
        """The formation with the first model at (x, y) (this setup's orientation, ring caps, spacing)."""
        if self.ring_spacing != "true-shape" or self.exact_bases:
            return ring_formation((x, y), self.radii, self.orientation_deg, self.ring_caps)
        key = (self.orientation_deg, self.ring_caps, tuple(self.radii), self.facing_deg, len(self.shapes))
        f = self._forms.get(key)
        if f is None:
            f = self._forms[key] = ring_formation((0.0, 0.0), self.radii, self.orientation_deg, self.ring_caps,
                                                  self.shapes)
        return Formation(tuple((x + a, y + b) for a, b in f.centres), f.radii, f.rings)


def make_setup(world: World, unit_id: str, ruleset: str | None = None, orientation_deg: float = 0.0,
               inertial_guidance: bool = False, facing_deg: float | None = None,
               rulings: dict[str, str] | None = None) -> DeepStrikeSetup:
    """Collect what a landing of ``unit_id`` is judged against.

    ``rulings`` (KEY -> VALUE, ``--ruling``) over the scenario's ``rulings:`` for the Deep Strike
    rulings of the Deep Strike ruleset (``ds-ring-spacing``; HH2 ``dsa-*``): :func:`deepstrike_ruling`.

    Raises
    ------
    ScenarioError
        Unknown unit, or a ruleset without a Deep Strike procedure.
    """
    if unit_id not in world.units:
        raise ScenarioError(no_unit_text(world.units), file=world.file,
                            location="--unit", value=unit_id)
    rules = deepstrike_rules(ruleset or world.scenario.ruleset, inertial_guidance)
    unit = world.units[unit_id]
    if not math.isfinite(orientation_deg):
        raise ScenarioError("the orientation must be a finite number of degrees", location="--orientation",
                            value=orientation_deg)
    # RULES.md §2.1: every model needs Deep Strike, and the unit starts the game in Reserve
    # (the set-up first: a unit deployed on the table is not Deep Striking at all, whatever its rules)
    if unit.setup.method is not SetupMethod.RESERVES or unit.setup.arrival != "deep_strike":
        how = (f"in Reserve with arrival {unit.setup.arrival}" if unit.setup.method is SetupMethod.RESERVES
               else f"set up by {unit.setup.method.value}")
        raise ScenarioError(f"{unit_id} is not set up to Deep Strike ({how}): a Deep Striking unit starts the "
                            "game in Reserve: set it up with 'setup: {method: reserves, arrival: deep_strike}'",
                            file=world.file, location=f"{unit.path}.setup", value=unit.setup.method.value)
    missing = [m.id for m in world.ruleset.without_deep_strike(unit.models)]
    if missing:
        field = world.ruleset.DEEP_STRIKE_FIELD
        raise ScenarioError(f"every model of a Deep Striking unit needs the Deep Strike rule, in its {field} "
                            f"(models without it: "
                            f"{', '.join(missing[:5])})", file=world.file, location=f"{unit.path}.{field}",
                            value=unit_id)
    radii, exact = formation_radii([m.base for m in unit.models])
    obstacles = []
    for u in world.units.values():
        if u.id == unit.id or not (u.on_battlefield and u.is_positioned):
            continue
        for m in u.models:
            assert m.x is not None and m.y is not None  # u.is_positioned
            obstacles.append(Obstacle(m.ref, u.player != unit.player, footprint(m.base, m.x, m.y, m.facing)))
    # where no model may be set up: the checker's no-go terrain (impassable and solid features, every
    # wall: Table.no_go_polys, the one list), a feature's walls joined to it; in 5th/7th a building too
    from planner.legality.table import Table

    table = Table(world)
    nogo: dict[str, list[Polygon]] = {}
    for tid, poly in table.no_go_polys:
        nogo.setdefault(tid, []).append(poly)
    imp: dict[str, Polygon] = {tid: polys[0] if len(polys) == 1 else unary_union(polys)  # type: ignore[misc]
                               for tid, polys in nogo.items()}
    dang = {}
    terrain_imp: set[str] = set()  # the features that are Impassable Terrain in the text's sense
    for t in world.scenario.terrain:
        poly = t.shape
        if t.is_impassable or (rules.buildings_impassable and t.building is not None):
            terrain_imp.add(t.id)
            # the whole feature (a 7th-edition building with walls: its footprint, not only the walls)
            imp[t.id] = poly if t.id not in imp else unary_union([imp[t.id], poly])  # type: ignore[assignment]
        if TerrainTrait.DANGEROUS in t.traits or (rules.difficult_is_dangerous and TerrainTrait.DIFFICULT in t.traits):
            dang[t.id] = poly
    bf = world.scenario.battlefield
    if facing_deg is None:  # the scenario's facing of the first model, else 0
        facing_deg = float(unit.models[0].facing or 0.0)
    if not math.isfinite(facing_deg):
        raise ScenarioError("the facing must be a finite number of degrees", location="--facing", value=facing_deg)
    shapes = [footprint(m.base, 0.0, 0.0, facing_deg) for m in unit.models]
    rs = find_ruleset(rules.ruleset)
    chosen = rs.check_rulings(rulings or {}, location="--ruling")
    used: dict[str, str] = {}

    def ruling(key: str) -> str:
        used[key] = deepstrike_ruling(world, rs, key, chosen)
        return used[key]

    spacing = "circumscribed"
    if rules.procedure == "mishap" and not exact:
        spacing = ruling("ds-ring-spacing")
    if rules.procedure == "assault":
        if shapes[0].kind != "circle" and ruling("dsa-first-model-shape") == "disc":
            shapes[0] = Footprint("circle", 0.0, 0.0, shapes[0].outer_radius)
        if inertial_guidance:
            for key in ("dsa-igs-correction", "dsa-igs-off-battlefield", "dsa-igs-reroll"):
                ruling(key)
    from planner.legality.checks.restriction import held_against
    from planner.schema import SetupKind

    held = held_against([u for u in world.units.values() if u.on_battlefield and u.is_positioned], unit,
                        SetupKind.DEEP_STRIKE)
    # 10th/11th and the HH2 Deep Strike Assault apply them; the 5th/7th Mishap procedure has no such rule
    applies = not rules.scatter or rules.procedure == "assault"
    restricted = bool(held) and applies
    unapplied = tuple(sorted({h.holder.id for h in held})) if not applies else ()
    picked = frozenset(k for k in used if k in chosen or (k in world.scenario.rulings and rs.id == world.ruleset.id))
    st = DeepStrikeSetup(world, unit, rules, orientation_deg, radii, exact, obstacles, imp, dang, bf.width, bf.depth,
                           shapes, facing_deg, ring_spacing=spacing, rulings=used, rulings_chosen=picked,
                           restricted=restricted, unapplied=unapplied, impassable_terrain=frozenset(terrain_imp))
    st._forms["table"] = table
    return st


def deepstrike_ruling(world: World, rs, key: str, chosen: dict[str, str]) -> str:
    """The reading of Deep Strike ruling ``key`` of ruleset ``rs`` (the Deep Strike's ruleset, which
    ``--ruleset`` may make other than the scenario's): ``chosen`` (``--ruling``), else the scenario's
    ``rulings:`` (through :meth:`planner.world.World.ruling`, which records it, when ``rs`` is the
    scenario's ruleset), else the ruling's default."""
    if key in chosen:
        return chosen[key]
    if rs.id == world.ruleset.id:
        return world.ruling(key)
    return rs.ruling_info(key).default


def applied_rulings(st: DeepStrikeSetup) -> list[dict]:
    """The rulings ``st`` reads, as the reports state them: key, value, default, meaning, sources."""
    rs = find_ruleset(st.rules.ruleset)
    out = []
    for key in sorted(st.rulings):
        info, value = rs.ruling_info(key), st.rulings[key]
        out.append({"key": key, "value": value, "default": key not in st.rulings_chosen,
                    "meaning": info.meaning(value), "sources": info.sources})
    return out


# --------------------------------------------------------------------------- one landing (checker predicates)


@dataclass
class Landing:
    """The outcome of one landing: the first model's final centre and what it triggers."""

    x: float
    y: float
    formation: Formation
    triggers: list[str]
    """What makes the landing a mishap: 5th/7th the trigger names of :data:`TRIGGERS`; 10th/11th
    (an illegal arrival) the ids of the rules it breaks (:meth:`DeepStrikeRules.arrival_rule_id`,
    the ids of ``planner check``), in :data:`ARRIVAL_RULES` order. Empty: a clean landing / a
    legal arrival."""
    dangerous_models: list[str]
    findings: list[Finding]
    formation_label: str = ""
    """Which formation :func:`best_setup` chose ("" for the setup's own formation)."""
    orientation_deg: float | None = None
    """The chosen formation's ring orientation (degrees; None for a per-landing packing)."""

    @property
    def mishap(self) -> bool:
        return bool(self.triggers)


def _fmt(v: float) -> str:
    return f'{v:.3f}"'


def judge_landing(st: DeepStrikeSetup, x: float, y: float, form: Formation | None = None) -> Landing:
    """The mishap test for one landing with the checker's exact predicates (first model at (x, y));
    ``form``: a formation other than the setup's rings (e.g. :func:`pack_landing`'s).

    A failing finding names every model that fails its rule, as the checker's do: the worst model
    is the finding's ``model``, the others follow in its message ("; also model 3 (...)") and
    :attr:`~planner.legality.report.Finding.failing_models` lists them all, worst first
    (:func:`planner.legality.report.also_failing`, :func:`~planner.legality.report.worst_first`)."""
    from planner.legality.checks.placement import wholly_within
    from planner.legality.report import also_failing, also_outside, inches, make_finding, worst_first
    from planner.legality.table import Placed

    form = form if form is not None else st.formation(x, y)
    fps = [S.moved(cx, cy) for (cx, cy), S in zip(form.centres, st.shapes, strict=True)]
    unit, R = st.unit, st.rules
    labels = [m.id for m in unit.models]
    placed = Placed(unit, tuple(fps))
    findings: list[Finding] = []
    fired: list[str] = []

    def add(trigger: str, passed: bool, msg: str, *, model=None, measured=None, required: str, margin=None,
            evidence=None, rule=None, failing=None):
        rid = rule or R.rule_id(f"mishap.{trigger}")
        findings.append(make_finding(rid, passed, unit, msg, model=model, measured=measured, required=required,
                                     margin=margin, evidence=evidence, failing=failing))
        if not passed and trigger in TRIGGERS:
            fired.append(trigger)

    table = box(0.0, 0.0, st.width, st.depth)
    # --- off the table
    if R.off_table_rule == "centre":
        vals = [min(f.cx, st.width - f.cx, f.cy, st.depth - f.cy) for f in fps]
        req = "the model's centre on the table"
    else:
        vals = [clearance_inside(f, table) for f in fps]
        req = "no part of the base off the table"
    # the checker's "wholly on the battlefield" (its clearances: of the base, or of the centre), every
    # model over the edge named, the worst first
    tight = wholly_within(fps, table, np.asarray(vals, dtype=float))
    i, ok = tight.index, tight.ok
    also, failing = also_outside(placed, tight.outside, "over", "table edge")
    add("off_table", ok, (f"every model on the table; closest to an edge: model {labels[i]}, {_fmt(vals[i])}" if ok
                          else f"model {labels[i]} would land off the table ({_fmt(-vals[i])} over the edge){also}"),
        model=labels[i], measured=vals[i], required=req, margin=vals[i], evidence=Evidence(model=labels[i]),
        failing=failing)
    # --- 10th/11th: more than X" from every enemy model, wholly on the battlefield
    if not R.scatter:
        enemies = [o for o in st.obstacles if o.enemy]
        best = (math.inf, 0, None)
        nearest: dict[int, tuple[float, str]] = {}  # each model's closest enemy model
        for j, f in enumerate(fps):
            for o in enemies:
                d = max(0.0, signed_distance(f, o.fp))
                if j not in nearest or d < nearest[j][0]:
                    nearest[j] = (d, o.ref)
                if d < best[0]:
                    best = (d, j, o.ref)
        d, j, ref = best
        more = R.more_than_in or 0.0
        ok = ref is None or is_more_than(fps[j], next(o.fp for o in enemies if o.ref == ref), more)
        also, failing = "", None
        if not ok:  # every model not more than X" from an enemy model, the closest first
            close = worst_first(((k, dk, rk) for k, (dk, rk) in nearest.items() if not is_more_than_distance(dk, more)),
                                j, larger_is_worse=False)
            also, failing = also_failing(placed, [(k, f"{inches(dk)} from {rk}", dk, rk) for k, dk, rk in close])
        findings.append(make_finding(R.arrival_rule_id("distance"), ok, unit,
                                     (f"closest enemy model {ref} at {_fmt(d)} from model {labels[j]}{also}" if ref
                                      else "no enemy model"),
                                     model=labels[j], measured=None if ref is None else d,
                                     required=f'more than {more:g}" from every enemy',
                                     margin=None if ref is None else d - more, failing=failing,
                                     evidence=Evidence(model=labels[j], nearest_enemy_model=ref)))
        if not ok:
            fired.append("distance")
        if st.restricted:  # enemy abilities forbidding a Deep Strike arrival within X" (the one predicate)
            from planner.legality.checks.restriction import restriction_verdicts, verdict_findings
            from planner.schema import SetupKind

            vs = restriction_verdicts(st.table, placed, kind=SetupKind.DEEP_STRIKE)
            findings += verdict_findings(find_ruleset(R.ruleset), placed, vs, SetupKind.DEEP_STRIKE)
            if any(not v.ok for v in vs):
                fired.append("restriction")
        # set up as any unit is: not in impassable terrain or a solid feature, on no other model (the
        # checker's predicates and rule ids: terrain.placement, bases.overlap)
        from planner.legality.checks.placement import closest_no_go, first_overlap

        no_go = list(st.impassable.items())
        hit = closest_no_go(fps, no_go, first_hit=True)
        if hit is not None and not hit.ok:  # the deepest first, every model standing in one (as the checker)
            hit = closest_no_go(fps, no_go)
        if hit is None or hit.ok:
            findings.append(Finding(rule=R.arrival_rule_id("impassable"), passed=True, unit=unit.id,
                                    required="not in impassable terrain or inside a solid feature",
                                    message="no model in impassable terrain or a solid feature"))
            ok = True
        else:
            ok = False
            place = _no_go_place(st)
            also, failing = also_failing(placed, [(g.index, f"{place(g.feature)}, {inches(-g.distance)} deep",
                                                   g.distance, g.feature) for g in hit.inside])
            findings.append(make_finding(R.arrival_rule_id("impassable"), False, unit,
                                         f"model {labels[hit.index]} would be set up {place(hit.feature)}{also}",
                                         model=labels[hit.index], measured=hit.distance, failing=failing,
                                         required="not in impassable terrain or inside a solid feature",
                                         evidence=Evidence(model=labels[hit.index], terrain_feature=hit.feature)))
        if not ok:
            fired.append("impassable")
        others = [(o.ref, o.fp) for o in st.obstacles]
        ons = [(j, on) for j, f in enumerate(fps) if (on := first_overlap([f], others)) is not None]
        if ons:  # every model set up on another, in model order (the rule has no measure to order by)
            j, on = ons[0]
            also, failing = also_failing(placed, [(k, f"on {rk}", None, rk) for k, rk in ons])
            findings.append(make_finding(R.arrival_rule_id("on_model"), False, unit,
                                         f"model {labels[j]} would be set up on {on}{also}", model=labels[j],
                                         required="bases do not overlap", failing=failing,
                                         evidence=Evidence(model=labels[j], other_model=on)))
            fired.append("on_model")
        else:
            findings.append(Finding(rule=R.arrival_rule_id("on_model"), passed=True, unit=unit.id,
                                    required="bases do not overlap", message="no model is set up on another model"))
        findings[0] = findings[0].model_copy(update={"rule": R.arrival_rule_id("off_table")})  # the checker's id
        order = [t for t, _ in ARRIVAL_RULES]
        return Landing(x, y, form, [R.arrival_rule_id(t) for t in sorted(set(fired), key=order.index)], [], findings)
    # --- impassable terrain
    worst = (math.inf, 0, None)
    deepest: dict[int, tuple[float, str]] = {}  # each model's deepest (or closest) impassable feature
    for j, f in enumerate(fps):
        for tid, poly in st.impassable.items():
            if poly.distance(Point(f.cx, f.cy)) > f.outer_radius + 1.0:
                continue
            d = distance_to_polygon(f, poly)
            if j not in deepest or d < deepest[j][0]:
                deepest[j] = (d, tid)
            if d < worst[0]:
                worst = (d, j, tid)
    d, j, tid = worst
    ok = tid is None or d >= -TOLERANCE_IN
    also, failing = "", None
    if not ok:  # every model in impassable terrain, the deepest first
        inside = worst_first(((k, dk, t) for k, (dk, t) in deepest.items() if dk < -TOLERANCE_IN), j,
                             larger_is_worse=False)
        also, failing = also_failing(placed, [(k, f"{_no_go_place(st)(t)}, {inches(-dk)} deep", dk, t)
                                              for k, dk, t in inside])
    add("impassable", ok, ("no model in impassable terrain" if ok else
                           f"model {labels[j]} would land {_no_go_place(st)(str(tid))}{also}"),
        model=labels[j] if tid else None, measured=None if tid is None else d, required="not in impassable terrain",
        margin=None if tid is None else d, evidence=Evidence(model=labels[j], terrain_feature=tid), failing=failing)
    # --- on a model / within 1" of an enemy model
    hit_model: dict[int, str] = {}  # each model landing on another: the first it is on
    hit_enemy: dict[int, tuple[float, str]] = {}  # each model within 1" of an enemy model: the closest
    near = (math.inf, 0, None)
    for j, f in enumerate(fps):
        for o in st.obstacles:
            if math.hypot(f.cx - o.fp.cx, f.cy - o.fp.cy) > f.outer_radius + o.fp.outer_radius + R.enemy_within_in + 1.0:
                continue
            if j not in hit_model and overlaps(f, o.fp):
                hit_model[j] = o.ref
            if o.enemy:
                d = max(0.0, signed_distance(f, o.fp))
                if d < near[0]:
                    near = (d, j, o.ref)
                if is_within_distance(d, R.enemy_within_in) and (j not in hit_enemy or d < hit_enemy[j][0]):
                    hit_enemy[j] = (d, o.ref)
    if not hit_model:
        add("on_model", True, "no model lands on another model", required="bases do not overlap")
    else:  # every model landing on another, in model order (the rule has no measure to order by)
        j, ref = next(iter(hit_model.items()))
        also, failing = also_failing(placed, [(k, f"on {rk}", None, rk) for k, rk in hit_model.items()])
        add("on_model", False, f"model {labels[j]} would land on {ref}{also}", model=labels[j],
            required="bases do not overlap", evidence=Evidence(model=labels[j], other_model=ref), failing=failing)
    d, j, ref = near
    lim = R.enemy_within_in
    if not hit_enemy:
        add("enemy_within_1", True, (f"closest enemy model {ref} at {_fmt(d)} from model {labels[j]}" if ref
                                     else "no enemy model"),
            model=labels[j] if ref else None, measured=None if ref is None else d,
            required=f'more than {lim:g}" from every enemy model', margin=None if ref is None else d - lim,
            evidence=Evidence(model=labels[j] if ref else None, nearest_enemy_model=ref))
    else:  # every model within 1" of an enemy model, the closest first (the nearest pair's model)
        close = worst_first(((k, dk, rk) for k, (dk, rk) in hit_enemy.items()), j, larger_is_worse=False)
        j, dd, ref = close[0]
        also, failing = also_failing(placed, [(k, f"{inches(dk)} from enemy model {rk}", dk, rk)
                                              for k, dk, rk in close])
        add("enemy_within_1", False, f"model {labels[j]} would land {_fmt(dd)} from enemy model {ref}{also}",
            model=labels[j], measured=dd, required=f'more than {lim:g}" from every enemy model', margin=dd - lim,
            evidence=Evidence(model=labels[j], nearest_enemy_model=ref), failing=failing)
    # --- dangerous terrain (not a mishap)
    dang = []
    for j, f in enumerate(fps):
        for tid, poly in st.dangerous.items():
            if distance_to_polygon(f, poly) <= TOLERANCE_IN:
                dang.append(labels[j])
                findings.append(Finding(rule=R.rule_id("dangerous"), passed=True, unit=unit.id, model=labels[j],
                                        required="difficult terrain counts as dangerous",
                                        message=f"model {labels[j]} lands in {tid}: dangerous terrain test",
                                        evidence=Evidence(model=labels[j], terrain_feature=tid)))
                break
    # --- the formation set up, and what a mishap leads to (the Mishap table)
    rings = form.ring_counts()[1:]
    findings.append(Finding(rule=R.rule_id("formation"), passed=True, unit=unit.id, model=labels[0],
                            required="the others in base contact around the first, in concentric rings, each as "
                                     "full as possible",
                            message=f"model {labels[0]} first" + (f", the other {len(labels) - 1} in ring(s) of "
                                                                 f"{', '.join(map(str, rings))}" if rings else ""),
                            evidence=Evidence(model=labels[0])))
    table_text = ", ".join(f"{lo}-{hi} {name}" if lo != hi else f"{lo} {name}" for lo, hi, name in R.mishap_table)
    findings.append(Finding(rule=R.rule_id("mishap.table"), passed=not fired, unit=unit.id, required="no mishap",
                            message=(f"a mishap ({', '.join(fired)}): roll on the Deep Strike Mishap table (D6: "
                                     f"{table_text})" if fired else "no mishap: the Mishap table is not rolled")))
    return Landing(x, y, form, fired, dang, findings)


# --------------------------------------------------------------------------- regions of the first model's centre


ELLIPSE_SIDES = 256
"""Sides of the polygons that bound an oval obstacle grown by a distance (inside and outside)."""


def grown_ellipse_bounds(fp: Footprint, grow: float, n: int = ELLIPSE_SIDES) -> tuple[np.ndarray, np.ndarray]:
    """Convex polygons ``inner`` and ``outer`` (counter-clockwise, inches) with
    inner <= {p : dist(p, ellipse) <= grow} <= outer, for an ellipse footprint and ``grow`` >= 0.

    The grown ellipse is convex with support function h(u) = h_E(u) + grow. ``inner`` joins its
    support points in ``n`` equally spaced directions (points of the curve, so their hull is
    inside); ``outer`` is cut by the ``n`` tangent lines u.p = h(u) (so it contains the set). The
    gap between them is about rho (pi / n)^2 (rho the largest radius of curvature, a^2/b + grow):
    about 6e-4" for a 75x42 mm oval grown by 1.6" with n = 256; its effect on the odds is
    measured, not assumed (:func:`odds`, :func:`heat_map` report it in their error bound).
    """
    t = np.arange(n) * (2.0 * math.pi / n)
    ux, uy = np.cos(t), np.sin(t)
    c, s = math.cos(fp.angle), math.sin(fp.angle)
    lx, ly = ux * c + uy * s, -ux * s + uy * c
    q = np.sqrt(fp.a ** 2 * lx ** 2 + fp.b ** 2 * ly ** 2)
    px, py = fp.a ** 2 * lx / q, fp.b ** 2 * ly / q
    X = fp.cx + px * c - py * s + grow * ux
    Y = fp.cy + px * s + py * c + grow * uy
    h = ux * X + uy * Y
    ux1, uy1, h1 = np.roll(ux, -1), np.roll(uy, -1), np.roll(h, -1)
    det = ux * uy1 - uy * ux1
    outer = np.column_stack([(h * uy1 - uy * h1) / det, (ux * h1 - h * ux1) / det])
    return np.column_stack([X, Y]), outer


def _add_obstacle_fp(rs: RegionSet, fp: Footprint, grow: float, region: int, ox: float, oy: float,
                     ellipse: str = "outer") -> None:
    if fp.kind == "circle":
        rs.add_disc(fp.cx - ox, fp.cy - oy, fp.a + grow, region)
    elif fp.kind == "ellipse":
        inner, outer = grown_ellipse_bounds(fp, grow)
        rs.add_convex((outer if ellipse == "outer" else inner) - np.array([ox, oy]), region)
    else:
        rs.add_polygon_band(fp.verts, grow, region, -ox, -oy)


def _convex_band(rs: RegionSet, v: np.ndarray, grow: float, region: int) -> None:
    """A convex polygon grown by ``grow`` (the polygon whole, a capsule on every edge)."""
    rs.add_convex(v, region)
    if grow > 0:
        n = len(v)
        for i in range(n):
            a, b = v[i], v[(i + 1) % n]
            rs.add_capsule(a[0], a[1], b[0], b[1], grow, region)


def _add_sum(rs: RegionSet, A, S: Footprint, grow: float, region: int, ox: float, oy: float,
             ellipse: str = "outer") -> None:
    """First-model centres c at which model shape ``S`` (placed at c + (ox, oy)) comes within
    ``grow`` of ``A`` (a footprint or a terrain polygon): A (+) (-S) (+) disc(grow), shifted by
    -(ox, oy). A round ``S`` is exact (``grow`` may be -T: strictly overlapping). Otherwise the
    Minkowski sums of convex pieces (:func:`minkowski_convex`, computed once per obstacle and
    shape: :func:`_sum_hulls`); an oval ``S`` or ``A`` enters by its outer or inner 256-gon
    (:func:`grown_ellipse_bounds`) and, grown by a positive distance, as one outer or inner convex
    polygon (:func:`grown_convex`: the odds are then bracketed by the two runs, as for the ovals);
    a negative ``grow`` (the -T of "overlapping") is taken as 0 (a 1e-6" difference). A terrain
    ``A`` of several pieces (a feature's walls joined) or with holes (walls closing a courtyard) is
    taken piece by piece (:func:`_simple_pieces`: the sum of a union is the union of the sums)."""
    if not isinstance(A, Footprint) and (A.geom_type != "Polygon" or A.interiors):
        for piece in _simple_pieces(A):
            _add_sum(rs, piece, S, grow, region, ox, oy, ellipse)
        return
    if S.kind == "circle":
        if isinstance(A, Footprint):
            if S.a + grow + (A.a if A.kind == "circle" else 0.0) > 0:
                _add_obstacle_fp(rs, A, S.a + grow, region, ox, oy, ellipse)
        else:
            rs.add_polygon_band(list(A.exterior.coords)[:-1], S.a + grow, region, -ox, -oy)
        return
    shift = np.array([ox, oy])
    g = max(0.0, grow)
    oval = S.kind == "ellipse" or (isinstance(A, Footprint) and A.kind == "ellipse")
    if isinstance(A, Footprint) and A.kind == "circle":
        if oval:  # -S (an oval's 256-gon) grown by the disc: one convex piece (bracketed by the two runs)
            rs.add_convex(_grown_cached(_neg_shape_cached(S, ellipse), A.a + g, ellipse) + np.array([A.cx, A.cy])
                          - shift, region)
        else:
            _convex_band(rs, _neg_shape(S, ellipse) + np.array([A.cx, A.cy]) - shift, A.a + g, region)
        return
    for hull in _sum_hulls(A, S, ellipse):
        if oval and g > 0:  # one convex piece, bracketed like the ovals themselves (the inner/outer runs)
            rs.add_convex(_grown_cached(hull, g, ellipse) - shift, region)
        else:
            _convex_band(rs, hull - shift, g, region)


def _no_go_place(st: DeepStrikeSetup) -> Callable[[str], str]:
    """Where a landing base stands in no-go feature ``tid``, in the checker's words
    (:meth:`Table.no_go_place`), except that a feature the edition makes Impassable Terrain as a
    whole (a 7th-edition building) is ``in`` it even where only its walls are no-go to the checker."""
    whole = st.impassable_terrain or frozenset()
    return lambda tid: f"in {tid}" if tid in whole else st.table.no_go_place(tid)


def _simple_pieces(A) -> list[Polygon]:
    """Hole-free polygons whose union is the terrain geometry ``A`` (a Polygon, MultiPolygon or
    collection): each part as it is, a part with holes as its constrained Delaunay triangles
    (shapely; exact, the triangles cover the part and nothing else)."""
    import shapely

    out: list[Polygon] = []
    for part in shapely.get_parts(A):
        if part.geom_type != "Polygon" or part.is_empty:
            if part.geom_type in ("MultiPolygon", "GeometryCollection"):
                out += _simple_pieces(part)
            continue  # a line or point left by a union has no area: no base stands "in" it
        if part.interiors:
            out += [t for t in shapely.get_parts(shapely.constrained_delaunay_triangles(part)) if t.area > 0]
        else:
            out.append(part)
    return out


_SUMS: dict = {}
_GROWN: dict = {}


def grown_convex(V: np.ndarray, grow: float, side: str = "outer", n: int = ELLIPSE_SIDES) -> np.ndarray:
    """A convex polygon ``V`` grown by ``grow`` > 0 (the set of points within ``grow`` of it), as
    one convex polygon: ``outer`` contains the grown set (the tangent lines of each vertex's arc,
    at most 2 pi / ``n`` apart), ``inner`` is contained in it (points of the arcs). Used where ovals
    already bracket the odds between an outer and an inner run (:func:`odds` measures the gap)."""
    V = np.asarray(V, float)
    x, y = V[:, 0], V[:, 1]
    if float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)) < 0:
        V = V[::-1]
    # a vertex within 1e-9" of the next adds no corner worth an arc, and its edge's normal is noise
    # (hypothesis: a 1e-212" edge made the grown polygon cross itself); the others are untouched
    short = np.hypot(*(np.roll(V, -1, axis=0) - V).T) <= 1e-9 * max(1.0, float(np.max(np.abs(V))))
    if short.any() and (~short).sum() >= 3:
        V = V[~short]
    e = np.roll(V, -1, axis=0) - V
    a_out = np.arctan2(-e[:, 0], e[:, 1])  # outward normal angle of edge i (V_i -> V_i+1)
    a_in = np.roll(a_out, 1)  # of the edge into vertex i
    turn = (a_out - a_in) % (2 * math.pi)
    delta = 2 * math.pi / n
    m = np.maximum(1, np.ceil(turn / delta - 1e-9)).astype(int)
    step = turn / m
    k = m if side == "outer" else m + 1  # points per vertex
    idx = np.repeat(np.arange(len(V)), k)
    j = np.arange(len(idx)) - np.repeat(np.cumsum(k) - k, k)  # 0 .. k-1 within each vertex
    if side == "outer":
        t = a_in[idx] + (j + 0.5) * step[idx]
        r = grow / np.cos(step[idx] / 2)
    else:
        t = a_in[idx] + j * step[idx]
        r = np.full(len(idx), grow)
    return V[idx] + (r * np.cos(t))[:, None] * [1.0, 0.0] + (r * np.sin(t))[:, None] * [0.0, 1.0]


def _grown_cached(hull: np.ndarray, g: float, side: str) -> np.ndarray:
    """:func:`grown_convex` of a cached hull (by identity: the hulls of :func:`_sum_hulls` persist)."""
    key = (id(hull), g, side)
    grown = _GROWN.get(key)
    if grown is None or grown[0] is not hull:
        if len(_GROWN) > 4096:
            _GROWN.clear()
        grown = _GROWN[key] = (hull, grown_convex(hull, g, side))
    return grown[1]


def _neg_shape_cached(S: Footprint, ellipse: str) -> np.ndarray:
    key = ("neg", S, ellipse)
    hit = _SUMS.get(key)
    if hit is None:
        hit = _SUMS[key] = _neg_shape(S, ellipse)
    return hit


def _neg_shape(S: Footprint, ellipse: str) -> np.ndarray:
    """-S as a convex polygon (an oval by its outer or inner 256-gon)."""
    if S.kind == "ellipse":
        inner, outer = grown_ellipse_bounds(S, 0.0)
        return -(outer if ellipse == "outer" else inner)
    return -np.asarray(S.verts, float)


def _sum_hulls(A, S: Footprint, ellipse: str) -> list[np.ndarray]:
    """The convex pieces of A (+) (-S) (unshifted), computed once per (A, S, side): every model
    of a formation and every candidate formation share them (only the shift differs)."""
    key = (A if isinstance(A, Footprint) else A.wkb, S, ellipse)
    hit = _SUMS.get(key)
    if hit is not None:
        return hit
    neg = _neg_shape(S, ellipse)
    if isinstance(A, Footprint):
        if A.kind == "ellipse":
            inner, outer = grown_ellipse_bounds(A, 0.0)
            pieces = [outer if ellipse == "outer" else inner]
        else:
            pieces = [np.asarray(A.verts, float)]
    else:
        from planner.deepstrike.regions import ear_clip

        pieces = ear_clip(list(A.exterior.coords)[:-1])
    out = [minkowski_convex(np.asarray(piece, float), neg) for piece in pieces]
    if len(_SUMS) > 4096:
        _SUMS.clear()
    _SUMS[key] = out
    return out


def minkowski_convex(P: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """The Minkowski sum of two convex polygons (vertex arrays, either orientation): a convex
    polygon, counter-clockwise, in O(n + m) by merging the edges in angle order (the same set as
    the convex hull of all vertex sums; collinear and repeated vertices dropped)."""
    def ccw_from_lowest(V: np.ndarray) -> np.ndarray:
        V = np.asarray(V, float)
        x, y = V[:, 0], V[:, 1]
        if float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y)) < 0:
            V = V[::-1]
        k = int(np.lexsort((V[:, 0], V[:, 1]))[0])
        return np.roll(V, -k, axis=0)

    P, Q = ccw_from_lowest(P), ccw_from_lowest(Q)
    e = np.concatenate([np.roll(P, -1, axis=0) - P, np.roll(Q, -1, axis=0) - Q])
    e = e[np.hypot(e[:, 0], e[:, 1]) > 1e-12]
    ang = np.arctan2(e[:, 1], e[:, 0]) % (2 * math.pi)
    e = e[np.argsort(ang, kind="stable")]
    V = P[0] + Q[0] + np.concatenate([[[0.0, 0.0]], np.cumsum(e, axis=0)[:-1]])
    # drop collinear vertices (consecutive edges of one direction): the sine of the turn, not the
    # cross product, so a real corner next to a very short edge is kept
    prev, nxt = np.roll(V, 1, axis=0), np.roll(V, -1, axis=0)
    cross = (V[:, 0] - prev[:, 0]) * (nxt[:, 1] - V[:, 1]) - (V[:, 1] - prev[:, 1]) * (nxt[:, 0] - V[:, 0])
    lengths = np.hypot(*(V - prev).T) * np.hypot(*(nxt - V).T)
    return V[np.abs(cross) > 1e-12 * np.maximum(lengths, 1e-300)]


def build_regions(st: DeepStrikeSetup, *, within: tuple[float, float, float] | None = None,
                  dangerous: bool = True, triggers: bool = True,
                  ellipse: str = "outer") -> tuple[RegionSet, dict[str, int]]:
    """Regions of the first model's final centre, for the formation's fixed orientation.

    Oval obstacle models enter as the ``ellipse`` (``"outer"`` or ``"inner"``) polygon of
    :func:`grown_ellipse_bounds`: the outer regions contain the true ones, the inner ones are
    contained in them, so the true probability of each region lies between the two.

    Region ids: ``mishap`` (any trigger), ``trigger:<name>`` for each trigger, ``dangerous:<model>``
    (that model in dangerous terrain, *or* a mishap), ``within`` (a model within the distance of
    the point, *or* a mishap). The "or a mishap" unions give P(clean and X) = P(X or mishap) - P(mishap).
    """
    form = st.formation(0.0, 0.0)
    offs = form.offsets()
    ids: dict[str, int] = {"mishap": 0}
    if triggers:
        for t in TRIGGERS:
            ids[f"trigger:{t}"] = len(ids)
    if dangerous and st.dangerous:
        for m in st.unit.models:
            ids[f"dangerous:{m.id}"] = len(ids)
    if within is not None:
        ids["within"] = len(ids)
    rs = RegionSet(len(ids))
    mishap_targets = [0] + [ids[k] for k in ids if k.startswith(("dangerous:", "within"))]
    T = TOLERANCE_IN
    R = st.rules

    def both(trigger: str) -> list[int]:
        out = list(mishap_targets)
        if triggers:
            out.append(ids[f"trigger:{trigger}"])
        return out

    # off the table: model j is off when its centre is within e_j of an edge (e_j = its extent
    # towards that edge - T for 'partial', -T for 'centre'); the union over the models of
    # half-planes is one half-plane per edge
    def edge(ux: float, uy: float) -> list[float]:
        return [(S.support(ux, uy) - T) if R.off_table_rule == "partial" else -T for S in st.shapes]

    xs_ = [ox for ox, _ in offs]
    ys_ = [oy for _, oy in offs]
    left, right, low, high = edge(-1, 0), edge(1, 0), edge(0, -1), edge(0, 1)
    for reg in both("off_table"):
        rs.add_rect(-_BIG, -_BIG, max(e - ox for e, ox in zip(left, xs_, strict=True)), _BIG, reg)
        rs.add_rect(min(st.width - e - ox for e, ox in zip(right, xs_, strict=True)), -_BIG, _BIG, _BIG, reg)
        rs.add_rect(-_BIG, -_BIG, _BIG, max(e - oy for e, oy in zip(low, ys_, strict=True)), reg)
        rs.add_rect(-_BIG, min(st.depth - e - oy for e, oy in zip(high, ys_, strict=True)), _BIG, _BIG, reg)
    for (ox, oy), S in zip(offs, st.shapes, strict=True):
        for poly in st.impassable.values():
            for reg in both("impassable"):
                _add_sum(rs, poly, S, -T, reg, ox, oy, ellipse)
        for o in st.obstacles:
            # an enemy's "on a model" set lies inside its "within 1 inch" set: in the unions
            # (mishap, dangerous-or-mishap, within-or-mishap) only the larger one is needed
            on_model = [ids["trigger:on_model"]] if (o.enemy and triggers) else ([] if o.enemy else both("on_model"))
            for reg in on_model:
                _add_sum(rs, o.fp, S, -T, reg, ox, oy, ellipse)
            if o.enemy:
                for reg in both("enemy_within_1"):
                    _add_sum(rs, o.fp, S, R.enemy_within_in + T, reg, ox, oy, ellipse)
    if dangerous and st.dangerous:
        for m, (ox, oy), S in zip(st.unit.models, offs, st.shapes, strict=True):
            for poly in st.dangerous.values():
                _add_sum(rs, poly, S, T, ids[f"dangerous:{m.id}"], ox, oy, ellipse)
    if within is not None:
        qx, qy, dist = within
        for (ox, oy), S in zip(offs, st.shapes, strict=True):
            _add_sum(rs, Footprint("circle", qx, qy, 0.0), S, dist + T, ids["within"], ox, oy, ellipse)
    return rs, ids


# --------------------------------------------------------------------------- odds


def region_probabilities(st: DeepStrikeSetup, rs: RegionSet, x, y) -> np.ndarray:
    """P(the first model's final centre is in each region) for aim points (x_i, y_i): (n, regions)."""
    x, y = np.atleast_1d(np.asarray(x, float)), np.atleast_1d(np.asarray(y, float))
    R = st.rules
    dist = R.scatter_distances()
    n = len(x)
    # every scatter circle of every aim point in one call (one locator, one pair search)
    f = rs.arc_fraction(np.tile(x, len(dist)), np.tile(y, len(dist)), np.repeat([d for d, _ in dist], n))
    p = R.p_hit * rs.contains(x, y).astype(float)
    for k, (_, pd) in enumerate(dist):
        p += (1 - R.p_hit) * pd * f[k * n:(k + 1) * n]
    return p


@dataclass
class Odds:
    """Exact odds of one aim point (probabilities; ``error_bound`` on each).

    ``triggers``: rule id -> P(the landing meets that trigger) (5th/7th
    ``<ruleset>.deepstrike.mishap.<trigger>``; they overlap). 10th/11th (no scatter) are an arrival
    check, legal or not: ``p_mishap`` 1.0 (illegal) or 0.0 (legal), ``p_clean`` the other, and
    ``triggers`` every rule of :meth:`DeepStrikeRules.arrival_rule_ids` (the ids ``planner check``
    reports) -> 1.0 if the set-up breaks it, else 0.0."""

    x: float
    y: float
    p_mishap: float
    p_clean: float
    results: dict[str, float]
    triggers: dict[str, float]
    dangerous: dict[str, float]
    within: float | None
    error_bound: float = NUMERIC_ERROR


def _has_ovals(st: DeepStrikeSetup) -> bool:
    return any(o.fp.kind == "ellipse" for o in st.obstacles) or any(S.kind == "ellipse" for S in st.shapes)


def _odds_from(st: DeepStrikeSetup, x: float, y: float, within, ellipse: str) -> Odds:
    rs, ids = build_regions(st, within=within, ellipse=ellipse)
    p = region_probabilities(st, rs, [x], [y])[0]
    pm = float(p[0])
    res = {k: pm * v for k, v in st.rules.result_probabilities().items()}
    trig = {st.rules.rule_id(f"mishap.{t}"): float(p[ids[f"trigger:{t}"]]) for t in TRIGGERS}
    dang = {k.split(":", 1)[1]: max(0.0, float(p[i]) - pm) for k, i in ids.items() if k.startswith("dangerous:")}
    w = max(0.0, float(p[ids["within"]]) - pm) if within is not None else None
    return Odds(x, y, pm, 1 - pm, res, trig, dang, w)


def odds(st: DeepStrikeSetup, x: float, y: float, within: tuple[float, float, float] | None = None, *,
         fixed: bool = False, step_deg: float | None = None) -> Odds:
    """Exact odds for aiming the first model at (x, y). 10th/11th (no scatter): legal or not as the
    controller sets the unit up (:func:`best_setup`, orientations every ``step_deg`` degrees, default 15), or in
    the setup's own formation with ``fixed``.

    With oval obstacle models the odds are computed for the outer and the inner bounding polygons
    (:func:`grown_ellipse_bounds`); the outer values are reported (the mishap odds are never
    understated) and ``error_bound`` grows by the largest difference between the two."""
    if st.rules.procedure == "assault":
        raise ScenarioError("HH2 Deep Strike Assault has its own odds: planner.deepstrike.assault.assault_odds",
                            location="ruleset", value=st.rules.ruleset)
    if not st.rules.scatter:  # the controller sets the unit up in the formation that is legal, if any
        land = judge_landing(st, x, y) if fixed else best_setup(st, x, y, ORIENTATION_STEP_DEG if step_deg is None else step_deg)
        pm = 1.0 if land.mishap else 0.0
        return Odds(x, y, pm, 1 - pm, {}, {rid: (1.0 if rid in land.triggers else 0.0)
                                           for rid in st.rules.arrival_rule_ids(st.restricted)},
                    {m: 1.0 for m in land.dangerous_models}, None)
    o = _odds_from(st, x, y, within, "outer")
    if _has_ovals(st):
        i = _odds_from(st, x, y, within, "inner")
        vals = lambda q: [q.p_mishap, *q.results.values(), *q.triggers.values(), *q.dangerous.values(),  # noqa: E731
                          q.within or 0.0]
        o.error_bound = NUMERIC_ERROR + max(abs(a - b) for a, b in zip(vals(o), vals(i), strict=True))
    return o


def heat_map(st: DeepStrikeSetup, resolution: float = 1.0, *,
             with_bound: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray] | tuple:
    """Mishap probability at the centres of a grid of ``resolution``-inch cells: (xs, ys, P[y, x]).

    With ``with_bound`` a fourth value: the error bound of every cell (``NUMERIC_ERROR``, plus,
    with oval obstacle models, the largest gap between the outer and inner polygon maps; P is
    the outer map, never below the true value). With oval obstacles the gap is measured without
    an inner map, on the small sets where the two differ (:func:`_inner_gap`); with oval models
    in the unit the inner map is computed whole."""
    xs = np.arange(resolution / 2, st.width, resolution)
    ys = np.arange(resolution / 2, st.depth, resolution)
    X, Y = np.meshgrid(xs, ys)
    if not st.rules.scatter:
        P = np.array([[1.0 if judge_landing(st, float(a), float(b)).mishap else 0.0 for a in xs] for b in ys])
        return (xs, ys, P, 0.0) if with_bound else (xs, ys, P)
    def regions_for(ellipse: str) -> RegionSet:
        if st.rules.procedure == "assault":  # P(the opponent relocates the first model)
            from planner.deepstrike.assault import assault_regions

            rs, one = assault_regions(st, ellipse=ellipse)[0], RegionSet(1)
            one.extend(rs, {0: 0})  # the map reads region 0 only: its primitives, in their order
            return one
        return build_regions(st, dangerous=False, triggers=False, ellipse=ellipse)[0]

    rs = regions_for("outer")
    P = region_probabilities(st, rs, X.ravel(), Y.ravel())[:, 0].reshape(X.shape)
    if not with_bound:
        return xs, ys, P
    bound = NUMERIC_ERROR
    if _has_ovals(st) and any(S.kind == "ellipse" for S in st.shapes):
        # oval models in the unit: every piece of the regions differs, the inner map is rebuilt
        Pin = region_probabilities(st, regions_for("inner"), X.ravel(), Y.ravel())[:, 0]
        bound += float(np.max(P.ravel() - Pin))
    elif _has_ovals(st):  # oval obstacles: the gap measured where the two region sets differ
        bound += _inner_gap(st, rs, regions_for("inner"), X.ravel(), Y.ravel())
    return xs, ys, P, bound


def _inner_gap(st: DeepStrikeSetup, outer: RegionSet, inner: RegionSet, x: np.ndarray, y: np.ndarray) -> float:
    """max over the aim points (x_i, y_i) of P(region 0 of ``outer``) - P(region 0 of ``inner``)
    (every region ``inner`` <= ``outer``), without the inner map: the difference is that of the
    two small sets of :func:`planner.deepstrike.regions.local_difference`, measured only on the
    scatter circles (and HIT points) that meet a piece of ``outer`` not in ``inner``. 0.0 if none."""
    from planner.deepstrike.boundary import box_test, circle_box_pairs
    from planner.deepstrike.regions import local_difference

    A, B, obox = local_difference(outer, inner)
    if not len(obox):
        return 0.0
    R = st.rules
    dist = R.scatter_distances()
    rmax = max(r for r, _ in dist)
    # aim points whose farthest circle reaches the boxes' hull, then their circles that meet a box
    lo, hi = obox[:, :2].min(axis=0), obox[:, 2:].max(axis=0)
    near = np.nonzero(np.hypot(np.maximum(np.maximum(lo[0] - x, x - hi[0]), 0.0),
                               np.maximum(np.maximum(lo[1] - y, y - hi[1]), 0.0)) <= rmax + 1e-9)[0]
    if not len(near):
        return 0.0
    x, y, m = x[near], y[near], len(near)
    cx, cy = np.tile(x, len(dist)), np.tile(y, len(dist))
    d = np.repeat([r for r, _ in dist], m)
    ci = np.unique(circle_box_pairs(cx, cy, d, obox)[0])
    hit = np.nonzero(box_test(x, y, np.zeros(m), np.zeros(m), obox).any(axis=1))[0]
    gap = np.zeros(m)
    if len(ci) or len(hit):
        qx, qy, qd = cx[ci], cy[ci], d[ci]
        box = ((float(min((qx - qd).min(initial=np.inf), x.min())), float(min((qy - qd).min(initial=np.inf), y.min()))),
               (float(max((qx + qd).max(initial=-np.inf), x.max())), float(max((qy + qd).max(initial=-np.inf), y.max()))))
        bA, bB = A.boundary(0, box), B.boundary(0, box)
        if len(hit):
            gap[hit] += R.p_hit * (bA.contains(x[hit], y[hit]).astype(float) - bB.contains(x[hit], y[hit]).astype(float))
        if len(ci):
            f = bA.arc_fraction(qx, qy, qd) - bB.arc_fraction(qx, qy, qd)
            w = np.array([(1 - R.p_hit) * pd for _, pd in dist])[ci // m]
            gap += np.bincount(ci % m, weights=w * f, minlength=m)
    return float(gap.max())


@dataclass
class Best:
    x: float
    y: float
    probability: float
    goal: str
    odds: Odds


def best_landing(st: DeepStrikeSetup, near: tuple[float, float] | None, within: float | None,
                 resolution: float = 1.0) -> Best:
    """The aim point maximising P(clean landing and a model within ``within`` of ``near``)
    (or P(clean landing) without ``near``): the best cell centre of the grid, refined by a
    pattern search down to 0.01"."""
    goal_w = None if near is None else (near[0], near[1], within if within is not None else 0.0)
    if not st.rules.scatter or st.rules.procedure == "assault":
        raise ScenarioError("--best needs a ruleset with a Mishap table (wh40k5, wh40k7)", location="--best")
    rs, ids = build_regions(st, within=goal_w, dangerous=False, triggers=False)
    k = ids.get("within")

    def score(px, py):
        p = region_probabilities(st, rs, px, py)
        return (p[:, k] - p[:, 0]) if k is not None else 1 - p[:, 0]

    xs = np.arange(resolution / 2, st.width, resolution)
    ys = np.arange(resolution / 2, st.depth, resolution)
    X, Y = np.meshgrid(xs, ys)
    X, Y = X.ravel(), Y.ravel()
    if near is not None:  # no chance of the goal beyond the scatter reach
        reach = max(d for d, _ in st.rules.scatter_distances()) + st.formation(0, 0).extent + (within or 0) + resolution
        keep = np.hypot(X - near[0], Y - near[1]) <= reach
        X, Y = X[keep], Y[keep]
    if near is not None and 0 <= near[0] <= st.width and 0 <= near[1] <= st.depth:
        # the goal point itself: for a small radius the best aim is on it (the HIT third lands there),
        # a narrow peak a grid can step over
        X, Y = np.append(X, near[0]), np.append(Y, near[1])
    s = score(X, Y)
    i = int(np.argmax(s))
    bx, by, bs = float(X[i]), float(Y[i]), float(s[i])
    step = resolution / 2
    while step >= 0.01:
        cand = np.array([(bx + dx * step, by + dy * step) for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy])
        sc = score(cand[:, 0], cand[:, 1])
        j = int(np.argmax(sc))
        if sc[j] > bs + 1e-12:
            bx, by, bs = float(cand[j, 0]), float(cand[j, 1]), float(sc[j])
        else:
            step /= 2
    goal = (f'clean landing with a model within {within or 0:g}" of ({near[0]:g}, {near[1]:g})' if near
            else "clean landing")
    return Best(bx, by, bs, goal, odds(st, bx, by, within=goal_w))


@dataclass
class Simulation:
    n: int
    seed: int
    p_mishap: float
    se_mishap: float
    results: dict[str, float]
    p_within: float | None = None


def simulate(st: DeepStrikeSetup, x: float, y: float, n: int, seed: int,
             within: tuple[float, float, float] | None = None, *, use_checker: bool = False) -> Simulation:
    """Replay the procedure ``n`` times (seeded): scatter die, 2D6, a uniform direction, then the
    mishap D6 on a mishap. The landing is judged by the regions (fast) or, with ``use_checker``,
    by :func:`judge_landing` with the checker's predicates (slow, for cross-checks)."""
    rng = np.random.default_rng(seed)
    R = st.rules
    faces = 6
    hit = rng.integers(0, faces, n) < round(R.p_hit * faces)
    dist = sum(rng.integers(1, 7, n) for _ in range(R.dice)) * R.scale
    theta = rng.uniform(0.0, 2 * math.pi, n)
    dist = np.where(hit, 0.0, dist) if R.scatter else np.zeros(n)
    px, py = x + dist * np.cos(theta), y + dist * np.sin(theta)
    p_within = None
    if use_checker and R.procedure == "assault":
        raise ValueError("the checker replay covers the Mishap procedures only")
    if use_checker:
        mis = np.array([judge_landing(st, float(a), float(b)).mishap for a, b in zip(px, py, strict=True)])
    else:
        if R.procedure == "assault":  # region 0: the opponent relocates the first model
            from planner.deepstrike.assault import assault_regions

            rs, ids = assault_regions(st)
            within = None
        else:
            rs, ids = build_regions(st, within=within, dangerous=False, triggers=False)
        inside = rs.contains(px, py)
        mis = inside[:, 0]
        if within is not None:
            p_within = float(np.mean(inside[:, ids["within"]] & ~mis))
    d6 = rng.integers(1, 7, n)
    results: dict[str, float] = {}
    for lo, hi, name in R.mishap_table:
        results[name] = results.get(name, 0.0) + float(np.mean(mis & (d6 >= lo) & (d6 <= hi)))
    pm = float(np.mean(mis))
    return Simulation(n, seed, pm, math.sqrt(max(pm * (1 - pm), 1e-300) / n), results, p_within)


def mishap_result(rules: DeepStrikeRules, d6: int) -> str:
    """The Mishap table's result for a D6 roll (e.g. wh40k7: 2 -> 'misplaced'; wh40k5: 2 -> 'destroyed').

    Raises
    ------
    ValueError
        If ``d6`` is not 1-6 or the ruleset has no Mishap table.
    """
    for lo, hi, name in rules.mishap_table:
        if lo <= d6 <= hi:
            return name
    raise ValueError(f"no Mishap result for {d6} under {rules.ruleset}")


# --------------------------------------------------------------------------- the controller's formation


ORIENTATION_STEP_DEG = 15.0
"""The best-formation odds are over ring orientations every this many degrees (a stated finite set)."""


@dataclass(frozen=True)
class FormationChoice:
    """One formation the controlling player may choose: the rings' start direction and ring 1's cap."""

    orientation_deg: float
    ring_caps: tuple[int, ...] | None

    @property
    def label(self) -> str:
        cut = f", ring 1 cut to {self.ring_caps[0]}" if self.ring_caps else ""
        return f"orientation {self.orientation_deg:g} deg{cut}"


def formation_family(st: DeepStrikeSetup, step_deg: float = ORIENTATION_STEP_DEG) -> list[FormationChoice]:
    """The formations the best-formation odds choose from: every ``step_deg`` degrees of
    orientation, each with ring 1 full (as many as fit on an open table) or cut to 1 .. full-1 models
    (the text's "as many models as will fit" when terrain or models stop the ring: the models that
    do not fit start the next ring, which goes round the short ring).

    Raises
    ------
    ValueError
        If ``step_deg`` is not in (0, 360].
    """
    if not (0 < step_deg <= 360):
        raise ValueError("the orientation step must be in (0, 360] degrees")
    full = replace(st, orientation_deg=0.0, ring_caps=None).formation(0.0, 0.0).ring_counts()
    caps: list[tuple[int, ...] | None] = [None]
    if len(full) > 1:  # ring 1 may be cut short, the rest starting ring 2
        caps += [(k,) for k in range(1, full[1])]
    n = max(1, round(360.0 / step_deg))
    return [FormationChoice(k * 360.0 / n, c) for k in range(n) for c in caps]


@dataclass
class BestFormationOdds:
    """Odds when the controller chooses the formation after the scatter (probabilities).

    ``p_mishap`` is exact for the best of ``candidates`` (a mishap only when every candidate has
    one); ``p_mishap_lower`` is P(the first model itself cannot be placed), which no formation
    avoids: the text's best formation, over every orientation and ring shape, lies between the two."""

    x: float
    y: float
    p_mishap: float
    p_clean: float
    p_mishap_lower: float
    results: dict[str, float]
    candidates: int
    step_deg: float
    on_target: dict | None
    error_bound: float = NUMERIC_ERROR
    interpretations: list[str] = field(default_factory=list)
    packing_estimate: dict | None = None
    """When the family and the lower bound differ: :func:`packing_estimate` (``p_mishap``, an
    estimate, with the landings tried and placed), else None."""
    p_mishap_sure: float | None = None
    """P(a sure mishap): the first model itself cannot be placed, or it lands in a pocket of free
    space smaller than the unit's bases (:func:`planner.deepstrike.formation.free_pockets`): a
    proven lower bound for any formation, at least ``p_mishap_lower``."""
    bracket: tuple[float, float] | None = None
    """The text's best formation over every orientation, ring shape and packing: P(mishap) in
    [``p_mishap_sure``, ``p_mishap``], both ends proven (the upper end by the formations of the
    family and the packing on target, each verified by the checker's predicates)."""


def _variant(st: DeepStrikeSetup, c: FormationChoice) -> DeepStrikeSetup:
    return replace(st, orientation_deg=c.orientation_deg, ring_caps=c.ring_caps)


def best_setup(st: DeepStrikeSetup, x: float, y: float, step_deg: float = ORIENTATION_STEP_DEG) -> Landing:
    """10th/11th (no scatter): the set-up the controller chooses with the first model at (x, y):
    the setup's own formation if it is legal, else the first legal one of :func:`formation_family`
    (orientations every ``step_deg`` degrees, ring 1 full or cut short), else the per-landing
    packing (:func:`pack_landing`), each judged by :func:`judge_landing` (the checker's
    predicates); the setup's own formation's (illegal) landing when none is legal. The text places
    the unit wholly within the limits in any formation, so "illegal" here means no formation of
    that family (nor the packing) is legal, a lower bound of where the unit can arrive.

    Raises
    ------
    ScenarioError
        For a ruleset with scatter (the Mishap procedures: :func:`best_formation_odds`).
    """
    if st.rules.scatter:
        raise ScenarioError("best_setup is for the 10th/11th-edition arrival (no scatter)", location="ruleset",
                            value=st.rules.ruleset)
    own = f"orientation {st.orientation_deg:g} deg"
    land = replace(judge_landing(st, x, y), formation_label=own, orientation_deg=st.orientation_deg)
    if not land.mishap or len(st.shapes) == 1:
        return land
    first = replace(st, radii=st.radii[:1], shapes=st.shapes[:1], ring_caps=None)
    if judge_landing(first, x, y).mishap:
        return land  # the first model itself cannot be set up there: no formation helps
    for c in formation_family(st, step_deg):
        other = judge_landing(_variant(st, c), x, y)
        if not other.mishap:
            return replace(other, formation_label=c.label, orientation_deg=c.orientation_deg)
    form = pack_landing(st, x, y)
    if form is not None:
        packed = judge_landing(st, x, y, form)
        if not packed.mishap:
            return replace(packed, formation_label="per-landing packing (models placed one by one)",
                           orientation_deg=None)
    return land


def best_formation_odds(st: DeepStrikeSetup, x: float, y: float,
                        step_deg: float = ORIENTATION_STEP_DEG, pack: bool = True) -> BestFormationOdds:
    """Exact odds of the aim point (x, y) when the controller picks, after the scatter, a legal
    formation of :func:`formation_family` (5th/7th/HH Deep Strike text: "as many models as will
    fit" in each circle; a mishap only when some model cannot be placed).

    One region per candidate (its mishap set, :func:`build_regions`); a landing is a mishap when
    it lies in all of them: P = P(HIT) [aim in all] + sum over 2D6 of the measure of the scatter
    circle inside all (:meth:`RegionSet.all_fraction`, closed-form crossings). ``on_target`` is
    the formation chosen if the model lands on the aim point (the first legal candidate), or None
    if none is legal there. Oval models enter by their outer polygons (a mishap is never
    understated); ``error_bound`` adds the measured gap to the inner ones.

    With ``pack``, when no candidate is legal at the aim point itself, :func:`pack_landing` is tried
    there: if it places every model the HIT term is no mishap (the figure is then exact over the
    family at every landing plus that formation on target; still an upper bound for the text's best).

    Raises
    ------
    ScenarioError
        For a ruleset without scatter or with Deep Strike Assault.
    """
    R = st.rules
    if not R.scatter or R.procedure != "mishap":
        raise ScenarioError("the best-formation odds need a ruleset with a Mishap table (wh40k5, wh40k7)",
                            location="ruleset", value=R.ruleset)
    fam = formation_family(st, step_deg)
    # only what a landing can reach matters: the scatter, the widest candidate, 1" and a margin
    extent = max(replace(st, orientation_deg=0.0, ring_caps=c.ring_caps).formation(0.0, 0.0).extent for c in fam)
    extent += max(S.outer_radius for S in st.shapes)
    reach = max(d for d, _ in R.scatter_distances()) + extent + R.enemy_within_in + 1.0
    aim = Point(x, y)
    st = replace(st, obstacles=[o for o in st.obstacles
                                if math.hypot(o.fp.cx - x, o.fp.cy - y) - o.fp.outer_radius <= reach],
                 impassable={k: v for k, v in st.impassable.items() if v.distance(aim) <= reach})
    p, at_aim, fam_rs = _p_all(st, fam, x, y, "outer")
    first = replace(st, radii=st.radii[:1], shapes=st.shapes[:1], ring_caps=None)
    lo_rs, _ = build_regions(first, dangerous=False, triggers=False, ellipse="inner")
    p_lo = float(region_probabilities(first, lo_rs, [x], [y])[0, 0])
    p_sure, pockets, sure_rs = _sure_mishaps(st, first, lo_rs, x, y, p_lo)
    sure_at_aim = bool(sure_rs.contains([x], [y])[0, 0])
    bound = NUMERIC_ERROR
    if _has_ovals(st):  # the outer polygons never understate a mishap; the gap to the inner ones is the bound,
        # and p_lo (inner polygons, the first model alone) is below the inner value: a small gap needs no inner run
        gap = p - p_lo
        bound += gap if gap <= ERROR_BOUND / 2 else abs(p - _p_all(st, fam, x, y, "inner")[0])
    chosen = None
    for c in (c for c, m in zip(fam, at_aim, strict=True) if not m):
        land = judge_landing(_variant(st, c), x, y)  # the regions said legal: the checker's predicates say why
        if not land.mishap:
            chosen = {"orientation_deg": c.orientation_deg, "ring_caps": list(c.ring_caps or []), "label": c.label,
                      "rings": land.formation.ring_counts()[1:], "positions": [list(q) for q in land.formation.centres]}
            break
    packed = False
    if chosen is None and pack and at_aim.all() and not sure_at_aim:  # (no formation fits a sure mishap)
        # no candidate fits on target: the per-landing packing search at the aim point (the HIT landing)
        form = pack_landing(st, x, y)
        if form is not None:
            land = judge_landing(st, x, y, form)
            if not land.mishap:
                packed = True
                p -= R.p_hit  # the HIT term was a mishap for every candidate; this formation places every model
                chosen = {"orientation_deg": None, "ring_caps": [], "label": "per-landing packing (models placed one "
                          "by one in base contact around the first, then the next ring)",
                          "rings": form.ring_counts()[1:], "positions": [list(q) for q in form.centres]}
    notes = [f"the controller chooses the formation after the scatter: the best of {len(fam)} candidates "
             f"(orientations every {360.0 / max(1, round(360.0 / step_deg)):g} deg, ring 1 full or cut short with "
             "the rest in the next ring); a mishap only when every candidate has one",
             "a ring cut short counts as 'as many models as will fit' when terrain or models stop it",
             (f"the text's best formation over every orientation and ring shape lies between P(mishap) "
              f"{p_lo:.4f} (the first model itself cannot be placed) and {p:.4f}" if p - p_lo > bound else
              "equal to P(the first model itself cannot be placed): exact for the text's best formation over every "
              "orientation and ring shape"),
             "the heat map (--map, --render) is for the fixed orientation"]
    if pockets:
        notes.append(f"sure mishaps: P = {p_sure:.4f}, the first model cannot be placed ({p_lo:.4f}) or lands in one "
                     f"of {pockets} pockets of free space smaller than the unit's bases (no formation fits there)")
    notes.append(f"proven bracket for the text's best formation: P(mishap) in [{p_sure:.4f}, {p:.4f}]"
                 + (" (exact)" if p - p_sure <= bound else ""))
    est = None
    if pack and p - p_lo > bound:
        aim_gap = bool(at_aim.all()) and not packed and not sure_at_aim
        e, tried, placed = packing_estimate(st, fam_rs, x, y, p, p_sure, aim_gap, sure_rs=sure_rs if pockets else None)
        if tried:
            e = min(p, max(p_sure, e))  # within the proven bracket
            est = {"p_mishap": e, "landings_tried": tried, "landings_placed": placed, "angles": 72}
            notes.append(f"point estimate with a per-landing packing at the scatter landings too: P(mishap) about "
                         f"{e:.4f} ({placed} of {tried} sampled landings where every candidate mishaps but the first "
                         "model fits were placed by the packing; a 72-direction midpoint rule: an estimate, not a "
                         "bound, inside the proven bracket)")
        else:
            notes.append("no sampled scatter landing (72 directions per 2D6 total) fell where every candidate "
                         "mishaps but the first model fits: no packing estimate")
    if pack:
        notes.append("at the aim point (the HIT landing) a per-landing packing search is tried when no candidate fits "
                     f"(rings filled by a greedy sweep in {PACK_STEP_DEG:g} deg steps from {PACK_STARTS} start "
                     "directions, each ring the most models a sweep places): "
                     + ("it places every model, so the HIT third is not a mishap (exact: the family at every "
                        "landing plus this formation on target)" if packed else
                        "not needed" if chosen is not None else "it does not place every model either"))
    res = {k: p * v for k, v in R.result_probabilities().items()}
    return BestFormationOdds(x, y, p, 1 - p, p_lo, res, len(fam), step_deg, chosen, bound, notes, est,
                             min(p_sure, p), (min(p_sure, p), p))


def _sure_mishaps(st: DeepStrikeSetup, first: DeepStrikeSetup, lo_rs: RegionSet, x: float, y: float,
                  p_lo: float) -> tuple[float, int, RegionSet]:
    """(P(a sure mishap), the number of pockets, their region 0): the landings where the first model alone fails
    (``lo_rs``) or lands in a pocket too small for the unit (:func:`free_pockets`), measured exactly
    (closed-form arcs) over the scatter from (x, y); ``p_lo`` when there is no pocket."""
    from planner.deepstrike.formation import free_pockets

    reach = max(d for d, _ in st.rules.scatter_distances())  # a pocket out of the scatter's reach adds nothing
    aim = Point(x, y)
    pockets = [q for q in free_pockets(st, TOLERANCE_IN) if q.distance(aim) <= reach] if len(st.shapes) > 1 else []
    if not pockets:
        return p_lo, 0, lo_rs
    rs = RegionSet(1)
    rs.extend(lo_rs, {0: 0})
    from planner.deepstrike.regions import ear_clip

    for q in pockets:  # convex pieces kept whole (an aim point on a fan's diagonal would be missed)
        for piece in ear_clip(list(q.exterior.coords)[:-1]):
            rs.add_convex(piece, 0)
    return max(p_lo, float(region_probabilities(first, rs, [x], [y])[0, 0])), len(pockets), rs


def _p_all(st: DeepStrikeSetup, fam: list[FormationChoice], x: float, y: float, ellipse: str):
    """P(a landing from aim (x, y) is a mishap for every candidate), and per candidate whether the aim
    point itself is one."""
    R = st.rules
    rs = RegionSet(len(fam))
    for k, c in enumerate(fam):
        one, _ = build_regions(_variant(st, c), dangerous=False, triggers=False, ellipse=ellipse)
        rs.extend(one, {0: k})
    dist = R.scatter_distances()
    at_aim = rs.contains([x], [y])[0]
    p = R.p_hit * float(at_aim.all())
    f = rs.all_fraction(np.full(len(dist), x), np.full(len(dist), y), [d for d, _ in dist])
    p += sum((1 - R.p_hit) * pd * fk for (_, pd), fk in zip(dist, f, strict=True))
    return float(p), at_aim, rs


def packing_estimate(st: DeepStrikeSetup, fam_rs: RegionSet, x: float, y: float, p: float, p_lo: float,
                     aim_gap: bool, angles: int = 72, sure_rs: RegionSet | None = None) -> tuple[float, int, int]:
    """An estimate of P(mishap) with a per-landing packing (:func:`pack_landing`) allowed at the
    scatter landings too: over the dice exactly and a ``angles``-direction midpoint rule, the
    landings where every candidate of the family mishaps but the first model alone does not are
    tried; the fraction the packing places (verified by :func:`judge_landing`) is taken off the
    exact measure of that gap (``aim_gap``: the aim point itself is in the gap, its HIT term is not
    a scatter landing). Neither exact nor a bound: a quadrature estimate. ``sure_rs`` (region 0):
    the sure mishaps, not tried (``p_lo`` is then their probability). Returns (estimate, landings
    tried, landings placed)."""
    R = st.rules
    one_rs: dict = {}

    def alone(i: int, cx: float, cy: float) -> bool:
        S = st.shapes[i]
        if S not in one_rs:
            one = replace(st, radii=[st.radii[i]], shapes=[S], ring_caps=None, orientation_deg=0.0)
            one_rs[S] = build_regions(one, dangerous=False, triggers=False)[0]
        return not bool(one_rs[S].contains([cx], [cy])[0, 0])

    def alone_many(i: int, xs: np.ndarray, ys: np.ndarray) -> np.ndarray:
        alone(i, float(xs[0]), float(ys[0]))  # builds model i's regions
        return ~np.asarray(one_rs[st.shapes[i]].contains(xs, ys), dtype=bool)[:, 0]

    th = (np.arange(angles) + 0.5) * 2 * math.pi / angles
    tried = placed = 0
    w_gap = w_saved = 0.0
    for d, pd in R.scatter_distances():
        px, py = x + d * np.cos(th), y + d * np.sin(th)
        inside = np.asarray(fam_rs.contains(px, py), dtype=bool)
        gap: list[bool] = [bool(v) for v in np.all(inside, axis=1).tolist()]
        for a, b, g in zip(px, py, gap, strict=True):
            if not g or not alone(0, float(a), float(b)):
                continue
            if sure_rs is not None and bool(sure_rs.contains([a], [b])[0, 0]):
                continue  # a sure mishap: no formation places every model there
            w_gap += pd / angles
            tried += 1
            form = pack_landing(st, float(a), float(b), 3.0, 6, alone, alone_many)
            if form is not None and not judge_landing(st, float(a), float(b), form).mishap:
                placed += 1
                w_saved += pd / angles
    gap_exact = max(0.0, p - p_lo - (R.p_hit if aim_gap else 0.0))  # the scatter part of the gap
    return (p - gap_exact * (w_saved / w_gap) if w_gap > 0 else p), tried, placed


PACK_STEP_DEG = 2.0
"""Angular step of the per-landing packing sweep (degrees)."""
PACK_STARTS = 12
"""Start directions of the per-landing packing sweep, evenly spaced."""


def pack_landing(st: DeepStrikeSetup, x: float, y: float, step_deg: float = PACK_STEP_DEG,
                 starts: int = PACK_STARTS, alone=None, alone_many=None) -> Formation | None:
    """A formation for a landing with the first model at (x, y), placed model by model: ring k
    holds the models a sweep round the envelope of ring k-1 (every ``step_deg`` degrees from the
    first model, from each of ``starts`` start directions; the sweep with the most models is kept)
    places where each is legal alone (:func:`judge_landing` of that model: the checker's
    predicates) and on no model of the unit; the rest start ring k+1. Returns None when the first
    model itself cannot be placed or a ring can hold none of the models left (a mishap). The rings
    are spaced as the setup's (``ring_spacing``). Not a ring of the family: models of a ring need
    not touch each other, only the ring inside. ``alone(i, x, y)``: a faster test of model i alone
    (default: :func:`judge_landing`); callers verify the result with :func:`judge_landing`.
    ``alone_many(i, xs, ys)``: the same verdicts for arrays of centres at once (faster)."""
    from planner.deepstrike.formation import _Bodies, _Discs
    from planner.geometry.measure import overlaps

    n = len(st.radii)
    geo: _Discs | _Bodies = (_Bodies(st.shapes) if st.ring_spacing == "true-shape" and not st.exact_bases
                             else _Discs(st.radii))
    # models of one radius and shape take the same place in a direction: one class
    kinds: dict[tuple[float, Any], int] = {}
    klass = [kinds.setdefault((st.radii[i], st.shapes[i]), len(kinds)) for i in range(n)]

    def alone_exact(i: int, cx: float, cy: float) -> bool:
        one = replace(st, radii=[st.radii[i]], shapes=[st.shapes[i]], ring_caps=None, orientation_deg=0.0)
        return not judge_landing(one, cx, cy).mishap

    alone = alone or alone_exact

    if not alone(0, x, y):
        return None
    centres = [(x, y)]
    fps = [st.shapes[0].moved(x, y)]
    rings = [0]
    inner = [0]
    ring = 1
    nxt = 1
    steps = round(360.0 / step_deg)
    seen_deg: dict[float, float] = {}
    for s0 in range(starts):
        for k in range(steps):
            deg = s0 * 360.0 / starts + k * step_deg
            seen_deg.setdefault(round(deg % 360.0, 9), deg)
    degrees = list(seen_deg.values())  # each direction of the sweeps once (its first spelling)
    while nxt < n:
        best: list[tuple[float, float]] = []
        # each probe of this ring (a model's class and a direction) measured once: the sweeps from
        # the start directions meet the same directions again; with ``alone_many`` every direction
        # of a class is judged alone in one call (the same verdicts as ``alone``, point by point)
        probes: dict[tuple[int, float], tuple[float, float, Any, bool] | None] = {}

        def fill(i: int, probes: dict = probes, inner: list[int] = inner) -> None:
            """Every direction of the sweeps for model i's class: its place and its verdict alone."""
            places = []
            for deg in degrees:
                th = math.radians(deg)
                ux, uy = math.cos(th), math.sin(th)
                t = geo.envelope_radius(x, y, ux, uy, inner, centres, i)
                places.append(None if not math.isfinite(t) else (x + t * ux, y + t * uy))
            found = [p for p in places if p is not None]
            if alone_many is not None and found:
                oks: list[bool | None] = [bool(v) for v in alone_many(i, np.array([p[0] for p in found]),
                                                                       np.array([p[1] for p in found]))]
            else:
                oks = [None] * len(found)  # judged when first needed (after the cheaper overlap test)
            verdicts = iter(oks)
            for deg, p in zip(degrees, places, strict=True):
                probes[(klass[i], round(deg % 360.0, 9))] = None if p is None else (
                    p[0], p[1], st.shapes[i].moved(*p), next(verdicts))

        def probe(i: int, deg: float, probes: dict = probes) -> tuple[float, float, Any, bool | None] | None:
            key = (klass[i], round(deg % 360.0, 9))
            if key not in probes:
                fill(i)
            return probes[key]

        def judged(i: int, deg: float, hit: tuple, probes: dict = probes) -> bool:
            if hit[3] is None:
                hit = probes[(klass[i], round(deg % 360.0, 9))] = (*hit[:3], alone(i, hit[0], hit[1]))
            return bool(hit[3])

        for s0 in range(starts):
            got: list[tuple[float, float]] = []
            got_fp: list = []
            for k in range(steps):
                i = nxt + len(got)
                if i >= n:
                    break
                deg = s0 * 360.0 / starts + k * step_deg
                hit = probe(i, deg)
                if hit is None:
                    continue
                cx, cy, f, ok = hit
                if ok is False or any(overlaps(f, g) for g in fps + got_fp) or not judged(i, deg, hit):
                    continue
                got.append((cx, cy))
                got_fp.append(f)
            if len(got) > len(best):
                best = got
            if nxt + len(best) >= n:
                break
        if not best:
            return None
        first_new = len(centres)
        for c in best:
            centres.append(c)
            fps.append(st.shapes[len(fps)].moved(*c))
            rings.append(ring)
        inner = list(range(first_new, len(centres)))
        nxt += len(best)
        ring += 1
    return Formation(tuple(centres), tuple(st.radii), tuple(rings))
