"""From scenario units (``planner.schema.Unit``) to the dice maths' records.

A model's characteristics are its own ``stats``, else its catalogue entry's (``profile``), else its
unit's; its weapons are its own (else its catalogue entry's) and the unit's wargear. Combat special rules are read, by name, from the unit's
``other_rules`` and the weapon's ``keywords``: ``Shrouded (X)`` (bare: 6+), ``Fearless``,
``Relentless``, ``Precision Shots (X)``, ``Ignores Cover``, ``Instant Death``, ``Character``.
Missing values raise :class:`planner.errors.ScenarioError` naming the unit, the field and the value.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from planner.combat import hh2, vehicles, wh40k
from planner.errors import ScenarioError
from planner.schema import CatalogueEntry, Characteristics, Model, SubType, Unit, WeaponProfile

Lookup = Callable[[str], CatalogueEntry | None]
_RULE = re.compile(r"^\s*([A-Za-z' -]+?)\s*(?:\((\d)\+?\))?\s*$")


def _rules(names: list[str]) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for n in names:
        m = _RULE.match(n)
        if m:
            out[m.group(1).strip().lower()] = int(m.group(2)) if m.group(2) else None
    return out


def model_stats(unit: Unit, model: Model, lookup: Lookup | None = None) -> Characteristics | None:
    """The characteristics that apply to ``model``: its own, its catalogue entry's, its unit's."""
    if model.stats is not None:
        return model.stats
    if model.profile and lookup is not None:
        entry = lookup(model.profile)
        if entry is not None and entry.stats is not None:
            return entry.stats
    return unit.stats


def _own_weapons(model: Model, lookup: Lookup | None) -> list[WeaponProfile]:
    """The weapons of ``model`` itself: its own, else its catalogue entry's."""
    if model.weapons is not None:
        return model.weapons
    if model.profile and lookup is not None:
        entry = lookup(model.profile)
        if entry is not None:
            return entry.weapons
    return []


def model_weapons(unit: Unit, model: Model, lookup: Lookup | None = None) -> list[WeaponProfile]:
    """The weapons of ``model``: its own (else its catalogue entry's), then the unit's wargear."""
    own = _own_weapons(model, lookup)
    names = {w.name for w in own}
    return [*own, *(w for w in unit.weapons if w.name not in names)]


def _need(unit: Unit, stats: Characteristics | None, name: str, where: str) -> int:
    value = getattr(stats, name, None) if stats is not None else None
    if value is None:
        raise ScenarioError(f"unit {unit.id!r} has no {name.upper()} characteristic, which the dice maths needs",
                            location=where, value=None)
    return int(value)


def _stat_groups(unit: Unit, lookup: Lookup | None) -> list[tuple[Characteristics | None, int, bool]]:
    """Consecutive models with the same characteristics: (stats, count, character)."""
    groups: list[tuple[Characteristics | None, int, bool]] = []
    unit_rules = _rules(unit.other_rules)
    for model in unit.models:
        st = model_stats(unit, model, lookup)
        char = ("character" in unit_rules or SubType.CHARACTER in (model.subtypes or [])
                or any(k.upper() == "CHARACTER" for k in [*(model.keywords or []), *unit.keywords]))
        if groups and groups[-1][0] == st and groups[-1][2] == char:
            groups[-1] = (st, groups[-1][1] + 1, char)
        else:
            groups.append((st, 1, char))
    return groups


def _weapon(unit: Unit, name: str, lookup: Lookup | None) -> tuple[WeaponProfile, int]:
    """The weapon and how many of it the unit fires (:class:`planner.schema.WeaponProfile` ``count``):
    each model's own, as many as its entry's ``count`` (none: one), then each unit wargear entry of
    that name on the models without their own: ``count`` of them (none: all). Names match in any case
    (``--weapon meltagun`` is the Meltagun), as unit types are read."""
    key = name.casefold()
    wargear = [w for w in unit.weapons if w.name.casefold() == key]
    first: WeaponProfile | None = None
    n = bare = 0
    for m in unit.models:
        mine = [w for w in _own_weapons(m, lookup) if w.name.casefold() == key]
        if mine:
            n += sum(1 if w.count is None else w.count for w in mine)
        else:
            bare += 1
        first = first or next(iter(mine or wargear), None)
    for w in wargear:
        n += bare if w.count is None else min(w.count, bare)
    if first is None:
        raise ScenarioError(f"unit {unit.id!r} has no weapon named {name!r}", location=f"units[{unit.id}].weapons",
                            value=name)
    return first, n


def weapon_named(unit: Unit, name: str, lookup: Lookup | None = None) -> WeaponProfile:
    """The weapon of ``unit`` called ``name`` (in any case), as the dice maths take it.

    Raises
    ------
    ScenarioError
        If no model of the unit carries a weapon of that name.
    """
    return _weapon(unit, name, lookup)[0]


def hh_target(unit: Unit, *, cover: int | None = None, stupefied: bool = False,
              lookup: Lookup | None = None) -> hh2.HHTarget:
    """A Horus Heresy target: groups of models with the same characteristics, in the unit's order."""
    rules = _rules(unit.other_rules)
    groups = []
    for k, (st, n, char) in enumerate(_stat_groups(unit, lookup)):
        where = f"units[{unit.id}].stats"
        groups.append(hh2.HHTargetGroup(f"{unit.id}-{k}", n, _need(unit, st, "t", where), _need(unit, st, "w", where),
                                        st.sv if st and st.sv and st.sv < 7 else None, st.inv if st else None,
                                        cover, char))
    shrouded = (rules["shrouded"] or 6) if "shrouded" in rules else None  # a bare Shrouded is 6+
    return hh2.HHTarget(unit.id, tuple(groups), shrouded=shrouded,
                        fearless="fearless" in rules, stupefied=stupefied)


def is_vehicle(unit: Unit, lookup: Lookup | None = None) -> bool:
    """Whether ``unit``'s first model has Armour Values (a Horus Heresy vehicle)."""
    st = model_stats(unit, unit.models[0], lookup) if unit.models else unit.stats
    return st is not None and st.av_front is not None


def hh_vehicle(unit: Unit, *, cover: int | None = None, lookup: Lookup | None = None) -> vehicles.HHVehicle:
    """A Horus Heresy vehicle target (a squadron of its models, all with the first one's profile):
    Armour Values, Hull Points, invulnerable save; ``Shrouded (X)``, ``Fearless`` and ``Open-topped``
    from the unit's rules. Raises ScenarioError naming the unit and the missing field."""
    st = model_stats(unit, unit.models[0], lookup) if unit.models else unit.stats
    where = f"units[{unit.id}].stats"
    values = {}
    for name in ("av_front", "av_side", "av_rear", "hp"):
        v = getattr(st, name, None) if st is not None else None
        if v is None:
            raise ScenarioError(f"unit {unit.id!r} has no {name} characteristic, which the vehicle dice maths needs",
                                location=where, value=None)
        values[name] = int(v)
    if values["hp"] < 1:
        raise ScenarioError(f"unit {unit.id!r} has {values['hp']} Hull Points (a vehicle has at least 1)",
                            location=f"{where}.hp", value=values["hp"])
    rules = _rules(unit.other_rules)
    shrouded = (rules["shrouded"] or 6) if "shrouded" in rules else None
    return vehicles.HHVehicle(unit.id, values["av_front"], values["av_side"], values["av_rear"], values["hp"],
                              models=len(unit.models), invuln=st.inv if st is not None else None, cover=cover,
                              shrouded=shrouded, fearless="fearless" in rules, open_topped="open-topped" in rules)


MAX_VOLLEY_DICE = 600
"""The most attacks (models x shots or attacks, at their largest) one volley may roll: the exact
distributions grow with it; a bigger volley is refused as input (exit 2), never left to run."""


def _bounded_volley(unit: Unit, weapon: str, models: int, per_model: int | str, where: str) -> None:
    from planner.combat.dice import parse_dice

    most = models * (len(parse_dice(per_model)) - 1)
    if most > MAX_VOLLEY_DICE:
        raise ScenarioError(f"unit {unit.id!r} fires {weapon!r} with up to {most} attacks ({models} models x "
                            f"{per_model}); the exact dice maths takes at most {MAX_VOLLEY_DICE} in one volley",
                            location=where, value=per_model)


HH_MODELLED_KEYWORDS = frozenset({"precision shots", "ignores cover", "instant death", "lance", "melta",
                                  "armourbane"})
"""The Horus Heresy weapon special rules the dice maths uses (lower case); any other keyword of a
weapon is listed in the result's interpretations as "Keywords not modelled"."""


def hh_attacker(unit: Unit, weapon: str, *, moved: bool = False, stupefied: bool = False,
                marked_for_death: bool = False, half_range: bool = False,
                lookup: Lookup | None = None) -> hh2.HHAttacker:
    """A Horus Heresy firing unit: every model carrying ``weapon`` fires it (a Rapid Fire weapon
    twice within half range)."""
    w, n = _weapon(unit, weapon, lookup)
    where = f"units[{unit.id}].weapons[{weapon}]"
    st = model_stats(unit, unit.models[0], lookup)
    bs = _need(unit, st, "bs", f"units[{unit.id}].stats")
    if w.s is None or w.shots is None or not isinstance(w.shots, int):
        raise ScenarioError(f"weapon {weapon!r} needs S and a whole number of shots", location=where,
                            value=w.shots)
    kw = _rules(w.keywords)
    ur = _rules(unit.other_rules)
    prec = kw.get("precision shots") if "precision shots" in kw else ur.get("precision shots")
    shots = w.shots * (2 if half_range and (w.type or "").lower() == "rapid fire" else 1)
    _bounded_volley(unit, weapon, n, shots, where)
    unmodelled = tuple(sorted(k for k in w.keywords if not set(_rules([k])) & HH_MODELLED_KEYWORDS))
    hw = hh2.HHWeapon(w.name, w.s, shots, w.ap if w.ap and w.ap > 0 else None, w.type or "Assault",
                      w.range_in or 0.0, prec, "ignores cover" in kw, "instant death" in kw, "lance" in kw,
                      "melta" in kw, "armourbane" in kw, unmodelled)
    return hh2.HHAttacker(unit.id, n, bs, hw, moved=moved, relentless="relentless" in ur, stupefied=stupefied,
                          marked_for_death=marked_for_death)


def target_40k(unit: Unit, *, attached: bool = False, in_cover: bool = False,
               lookup: Lookup | None = None) -> wh40k.Target40k:
    """A 40k target: one group per model set sharing W, Sv, InSv; each CHARACTER model its own group;
    its keywords (for Anti-X) are the unit's and every model's (its own, else its catalogue entry's)."""
    groups = []
    for k, (st, n, char) in enumerate(_stat_groups(unit, lookup)):
        where = f"units[{unit.id}].stats"
        counts = [1] * n if char else [n]
        for j, c in enumerate(counts):
            groups.append(wh40k.Group40k(f"{unit.id}-{k}.{j}", c, _need(unit, st, "t", where),
                                         _need(unit, st, "w", where), _need(unit, st, "sv", where),
                                         st.inv if st else None, char, 0, st.fnp if st else None))
    keywords: list[str] = list(unit.keywords)
    for model in unit.models:
        entry = lookup(model.profile) if model.profile and lookup is not None else None
        own = model.keywords if model.keywords is not None else (entry.keywords if entry is not None else [])
        keywords += [k for k in own if k not in keywords]
    return wh40k.Target40k(unit.id, tuple(groups), attached=attached, in_cover=in_cover, keywords=tuple(keywords))


def attacker_40k(unit: Unit, weapon: str, *, stationary: bool = False, half_range: bool = False,
                 lookup: Lookup | None = None) -> wh40k.Attacker40k:
    """A 40k firing unit: every model carrying ``weapon`` fires it."""
    w, n = _weapon(unit, weapon, lookup)
    where = f"units[{unit.id}].weapons[{weapon}]"
    for name in ("a", "bs", "s", "d"):
        if getattr(w, name) is None:
            raise ScenarioError(f"weapon {weapon!r} has no {name.upper()}", location=where, value=None)
    assert w.a is not None and w.bs is not None and w.s is not None and w.d is not None
    _bounded_volley(unit, weapon, n, w.a, where)
    # 40k AP is written 0 or negative; a positive AP (as some sources print it) means the same
    return wh40k.Attacker40k(unit.id, n, wh40k.Weapon40k(w.name, w.a, w.bs, w.s, -abs(w.ap or 0), w.d,
                                                         w.range_in or 0.0, tuple(w.keywords)),
                             stationary=stationary, half_range=half_range)
