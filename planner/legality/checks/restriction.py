"""Restrictions as data (issue #19 item 5): "enemy units cannot be set up or arrive within X" of
this unit", an ability a scenario states on a unit or a model (``restrictions:``, with its
source), by set-up method (:class:`planner.schema.SetupKind`).

The one predicate (:func:`restriction_verdicts`, :func:`first_breach`) used by the checkers of
every ruleset, the planner's judges and ``threats``. *Within X"* is not more than X" (exactly X"
is forbidden), measured between the closest points of the two units' bases as the ruleset
measures set-up distances (:meth:`planner.legality.table.Table.nearest_unit`). A restriction
beats a permission (an ability of the unit being set up that allows it closer): the finding
names both.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from planner.geometry.measure import is_more_than_distance
from planner.schema import Permission, Restriction, SetupKind, SetupMethod

if TYPE_CHECKING:
    from planner.legality.report import Finding
    from planner.legality.table import Placed, Table
    from planner.rules.base import Ruleset
    from planner.world import UnitInfo


def setup_kind(unit: UnitInfo) -> SetupKind | None:
    """How ``unit`` is set up, as restrictions name it (None: not on the battlefield by a set-up
    a restriction can forbid, e.g. embarked; a unit in Reserves with positions arrives)."""
    m = unit.method
    if m is SetupMethod.DEPLOYMENT_ZONE:
        return SetupKind.DEPLOYMENT
    if m is SetupMethod.INFILTRATE:
        return SetupKind.INFILTRATE
    if m is SetupMethod.SCOUT:
        return SetupKind.SCOUT
    if m is SetupMethod.RESERVES and unit.is_positioned:
        return SetupKind.DEEP_STRIKE
    return None


@dataclass(frozen=True)
class Held:
    """A restriction held by ``holder`` (the whole unit, or its models ``models``: indices)."""

    holder: UnitInfo
    restriction: Restriction
    models: tuple[int, ...]


def first_setup_kind(unit: UnitInfo) -> SetupKind | None:
    """How a Scout set its unit up before the redeploy (``setup.first``: deployment or Infiltrate);
    None for a unit that is not a Scout redeploy."""
    if unit.method is not SetupMethod.SCOUT or unit.setup.from_ is None:
        return None
    return SetupKind.INFILTRATE if unit.setup.first == "infiltrate" else SetupKind.DEPLOYMENT


def held_against(units: list[UnitInfo], unit: UnitInfo, kind: SetupKind | None = None) -> list[Held]:
    """The restrictions of the enemy units among ``units`` that forbid ``unit``'s set-up method
    (``kind``: that method when the unit's record does not say it, e.g. a 40k Deep Strike arrival
    being planned, or a Scout's first set-up)."""
    kind = kind or setup_kind(unit)
    if kind is None:
        return []
    out = []
    for h in units:
        if h.player == unit.player:
            continue
        for r in h.record.restrictions:
            if kind in r.methods:
                out.append(Held(h, r, tuple(range(len(h.models)))))
        for i, m in enumerate(h.record.models):
            for r in m.restrictions:
                if kind in r.methods:
                    out.append(Held(h, r, (i,)))
    return out


def permissions_of(unit: UnitInfo, restriction: Restriction, kind: SetupKind | None = None) -> list[Permission]:
    """The permissions of ``unit`` (to set up closer) for its set-up method (``kind``, default
    :func:`setup_kind`) that the restriction beats (allowing a set-up within its distance)."""
    kind = kind or setup_kind(unit)
    return [p for p in unit.record.permissions
            if kind in p.methods and p.more_than_in < restriction.within_in]


@dataclass(frozen=True)
class Verdict:
    """One restriction measured: ``ok`` when the unit is more than ``within_in`` from the holder."""

    held: Held
    distance: float
    ok: bool
    model: int
    """Index of the closest model of the unit being set up."""
    holder_model: str
    beaten: tuple[Permission, ...]
    within: tuple[tuple[int, float], ...] = ()
    """With ``every``: every model within the distance, (index, inches), the closest first (this
    verdict's model first; a judge moves each one); empty when :attr:`ok`."""


def _holder_placed(p: Placed, held: Held) -> Placed:
    from planner.legality.table import Placed

    if len(held.models) == len(held.holder.models) and len(p.footprints) == len(held.models):
        return p
    return Placed(p.unit, tuple(p.footprints[i] for i in held.models), tuple(p.model_id(i) for i in held.models))


def _every_within(table: Table, placed: Placed, nearest: tuple[float, int, Placed, int], holder: Placed,
                  limit: float) -> tuple[tuple[int, float], ...]:
    """Every model of ``placed`` not more than ``limit`` from ``holder`` (``nearest``: the closest
    pair, already measured), (index, inches), the closest first
    (:func:`~planner.legality.checks.distance.each_too_close`)."""
    from planner.legality.checks.distance import each_too_close

    return tuple((k, dk) for k, dk, _ in each_too_close(placed, nearest, lambda p: table.nearest_unit(p, [holder]),
                                                       lambda dk: not is_more_than_distance(dk, limit)))


def restriction_verdicts(table: Table, placed: Placed, margin: float = 0.0,
                         holders: list[Placed] | None = None, kind: SetupKind | None = None, *,
                         every: bool = False) -> list[Verdict]:
    """Every restriction against ``placed`` (the unit being set up at these footprints) held by
    an enemy unit on the table, measured. ``holders``: the units that may hold one, at their
    footprints (default: every unit on the table but this one, where it stands); ``margin``
    (inches): the planner's tape-measure margin ("more than X" plus the margin); the checker
    uses 0; ``kind``: the set-up method judged (default :func:`setup_kind` of the unit);
    ``every``: a breached verdict also lists every model within (:attr:`Verdict.within`, the
    checker's report; the judges need only the verdict)."""
    unit = placed.unit
    if holders is None:
        # only the units that hold some restriction can forbid anything (found once per table)
        holders = [table.final(u) for u in table.restriction_holders if u.id != unit.id]
    at = {p.unit.id: p for p in holders if p.unit.player != unit.player and len(p.footprints) == len(p.unit.models)}
    out = []
    for h in held_against([at[k].unit for k in at], unit, kind):
        n = table.nearest_unit(placed, [_holder_placed(at[h.holder.id], h)])
        if n is None:
            continue
        d, i, other, j = n
        limit = h.restriction.within_in + margin
        ok = is_more_than_distance(d, limit)
        within: tuple[tuple[int, float], ...] = ()
        if every and not ok:
            within = _every_within(table, placed, n, _holder_placed(at[h.holder.id], h), limit)
        out.append(Verdict(h, d, ok, i, other.model_id(j), tuple(permissions_of(unit, h.restriction, kind)), within))
    return out


def first_breach(table: Table, placed: Placed, margin: float = 0.0,
                 holders: list[Placed] | None = None, kind: SetupKind | None = None) -> Verdict | None:
    """The first restriction ``placed`` breaks (:func:`restriction_verdicts`), or None."""
    for v in restriction_verdicts(table, placed, margin, holders, kind):
        if not v.ok:
            return v
    return None


def describe(v: Verdict) -> str:
    """A finding's message (after "model M is"): the distance, the restriction with its source,
    and any permission it beats."""
    r = v.held.restriction
    name = f"{r.name} ({v.held.holder.id})" if r.name else f"the restriction of {v.held.holder.id}"
    words = (f"{v.distance:.3f}\" from {v.held.holder.id} (model {v.holder_model}): "
             + (f"more than the {r.within_in:g}\" of {name}" if v.ok
                else f"within {r.within_in:g}\", and {name} forbids enemy set-up within {r.within_in:g}\"")
             + f" [{r.source}]")
    if v.beaten:
        words += ("; the restriction beats " if not v.ok else "; a restriction beats ") + ", ".join(
            f"the permission {p.name or 'to set up closer'} (more than {p.more_than_in:g}\") [{p.source}]"
            for p in v.beaten)
    return words


def first_setup(table: Table, unit: UnitInfo) -> tuple[Placed, SetupKind, list[Placed]] | None:
    """A Scout redeploy's first set-up as restrictions judge it: (the unit at ``setup.from``, the
    method of that set-up, the other units on the table where they were first set up); None for a
    unit that is not a Scout redeploy."""
    kind = first_setup_kind(unit)
    if kind is None:
        return None
    return table.first(unit), kind, [table.first(u) for u in table.on_table if u.id != unit.id]


def first_setup_breach(table: Table, unit: UnitInfo, margin: float = 0.0) -> Verdict | None:
    """The first restriction a Scout redeploy's first set-up breaks (:func:`first_setup`, judged
    by :func:`first_breach`), or None (also for a unit that is not a Scout redeploy). The
    planner's judges ask this of a Scout group (its first set-up is given, not planned)."""
    first = first_setup(table, unit)
    if first is None:
        return None
    at, kind, holders = first
    return first_breach(table, at, margin, holders=holders, kind=kind)


def restriction_findings(rs: Ruleset, table: Table, placed: Placed) -> list[Finding]:
    """The checker's findings of rule ``<rs>.restriction.within`` for ``placed`` (one per
    restriction against it, passed or not; none when no restriction applies). A Scout redeploy is
    judged twice: its first set-up (``setup.first`` at ``setup.from``, against the holders where
    they were first set up) by the restrictions on that method, then its redeploy by those on
    ``scout``."""
    if not table.restriction_holders:
        return []  # no unit on the table holds a restriction: none applies (held_against)
    out = []
    unit = placed.unit
    passes: list[tuple[Placed, SetupKind | None, list[Placed] | None, str]] = []
    first = first_setup(table, unit)
    if first is not None:
        passes.append((first[0], first[1], first[2], " at its first set-up, before the Scout redeploy"))
    passes.append((placed, None, None, ""))
    for at, kind, holders, when in passes:
        out += verdict_findings(rs, at, restriction_verdicts(table, at, holders=holders, kind=kind, every=True),
                                kind or setup_kind(unit), when)
    return out


def verdict_findings(rs: Ruleset, placed: Placed, verdicts: list[Verdict], kind: SetupKind | None,
                     when: str = "") -> list[Finding]:
    """The findings of rule ``<rs>.restriction.within`` for ``verdicts`` of ``placed`` set up by
    ``kind`` (``when``: words after the model, e.g. "at its first set-up")."""
    from planner.legality.report import Evidence, also_failing, inches, make_finding

    out = []
    unit = placed.unit
    for v in verdicts:
        r = v.held.restriction
        model = placed.model_id(v.model)
        # every model within (Verdict.within, when measured), the closest first
        also, failing = also_failing(placed, [(k, f"{inches(dk)} from {v.held.holder.id}", dk, v.held.holder.id)
                                              for k, dk in v.within])
        out.append(make_finding(
            rs.rid("restriction.within"), v.ok, unit, f"model {model}{when} is {describe(v)}{also}", model=model,
            measured=v.distance, failing=failing,
            required=f"more than {r.within_in:g}\" from {v.held.holder.id} (set-up by {kind})",
            margin=v.distance - r.within_in,
            evidence=Evidence(nearest_enemy_unit=v.held.holder.id, nearest_enemy_model=v.holder_model, model=model,
                              note=f"restriction [{r.source}]" + "".join(
                                  f"; beats permission [{p.source}]" for p in v.beaten))))
    return out
