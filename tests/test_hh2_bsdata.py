"""Every unit and model entry of the Horus Heresy 2.0 BattleScribe data resolves to a base, a unit type
and a height, from an explicit ``models/hh2/`` entry or a documented base rule (issue #16 item 1).

The data (the game system file and 32 catalogues of BSData/horus-heresy) is test data in
``../shared/data/bsdata-horus-heresy/``; the tests skip where it is missing. Each file is parsed once
per test session (:func:`_entries`).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

from planner.io.catalogue import ModelFacts, load_catalogue
from planner.io.roster import MODEL_PROFILE_TYPES, TypeInfo, categories_type, parse_unit_type
from planner.rules.hh2 import HorusHeresy2
from planner.schema import HullBase, OvalBase, RoundBase, SubType, UnitType

BSDATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "bsdata-horus-heresy"


def _local(tag: object) -> str:
    return str(tag).rsplit("}", 1)[-1]


def _grand(el, group: str, item: str) -> list:
    return [c for g in el if _local(g.tag) == group for c in g if _local(c.tag) == item]


@dataclass(frozen=True)
class Walked:
    """One miniature entry of the data, as the roster importer would see it."""

    file: str
    entry_id: str
    kind: str  # "unit" or "model"
    facts: ModelFacts
    type_from: str  # where the unit type was read


def _parse_all() -> list[tuple[str, object]]:
    from defusedxml import ElementTree as SafeET

    files = sorted(BSDATA.glob("*.cat")) + sorted(BSDATA.glob("*.gst"))
    return [(f.name, SafeET.parse(f, forbid_dtd=True).getroot()) for f in files]


def _model_profiles(el, profiles: dict) -> list:
    out = [p for p in _grand(el, "profiles", "profile")]
    out += [profiles[lk.get("targetId")] for lk in _grand(el, "infoLinks", "infoLink")
            if lk.get("type") == "profile" and lk.get("targetId") in profiles]
    return [p for p in out if (p.get("typeName") or "").strip().lower() in MODEL_PROFILE_TYPES
            and str(p.get("hidden", "false")).lower() != "true"]


def _type_of(profiles: list) -> TypeInfo:
    info = TypeInfo()
    for p in profiles:
        chars = {(c.get("name") or "").strip(): (c.text or "").strip() for c in _grand(p, "characteristics",
                                                                                     "characteristic")}
        info.add(parse_unit_type(chars.get("Unit Type") or chars.get("Type") or "", profile_type=p.get("typeName")))
    return info


def _categories(el) -> list[str]:
    return [(c.get("name") or "") for c in _grand(el, "categoryLinks", "categoryLink")]


def _child_miniatures(el, entries: dict, profiles: dict, depth: int = 0) -> list:
    """The miniatures an entry lists: nested model entries and upgrades carrying a unit profile
    (directly, in option groups, or by entry links), and nested unit entries (units of their own).
    Unit entries reached by entry links (Dedicated Transport options) are not counted."""
    out = []
    if depth > 8:
        return out
    for g in el:
        tag = _local(g.tag)
        if tag == "selectionEntries":
            for s in g:
                if _local(s.tag) != "selectionEntry":
                    continue
                if s.get("type") in ("model", "unit") or _model_profiles(s, profiles):
                    out.append(s)
                else:  # an upgrade holding the miniature (a Demolisher Artillery Tank option)
                    out += _child_miniatures(s, entries, profiles, depth + 1)
        elif tag == "selectionEntryGroups":
            for grp in g:
                out += _child_miniatures(grp, entries, profiles, depth + 1)
        elif tag == "entryLinks":
            for lk in g:
                t = entries.get(lk.get("targetId"))
                if t is None:
                    continue
                if _local(t.tag) == "selectionEntryGroup":
                    out += _child_miniatures(t, entries, profiles, depth + 1)
                elif t.get("type") == "model" or (t.get("type") == "upgrade" and _model_profiles(t, profiles)):
                    out.append(t)
    return out


def _wargear(el) -> list[str]:
    names = [(r.get("name") or "") for r in _grand(el, "rules", "rule")]
    names += [(lk.get("name") or "") for lk in _grand(el, "infoLinks", "infoLink")]
    return names


@lru_cache(maxsize=1)
def _entries() -> tuple[list[Walked], int, int]:
    """Every miniature entry of the data, how many entries only hold miniatures (walked themselves),
    and how many unit and model entries the data has in all."""
    roots = _parse_all()
    profiles: dict = {}
    entries: dict = {}
    linked: dict = {}  # entry id -> the entry links to it (their categories type a profile-less entry)
    for _, root in roots:
        for el in root.iter():
            tag = _local(el.tag)
            if tag == "profile":
                profiles.setdefault(el.get("id"), el)
            elif tag in ("selectionEntry", "selectionEntryGroup"):
                entries.setdefault(el.get("id"), el)
            elif tag == "entryLink":
                linked.setdefault(el.get("targetId"), []).append(el)
    out: list[Walked] = []
    containers = total = 0
    for fname, root in roots:
        catalogue = (root.get("name") or "").strip()
        parent = {c: p for p in root.iter() for c in p}
        for el in root.iter():
            if _local(el.tag) != "selectionEntry":
                continue
            kind = el.get("type")
            own = _model_profiles(el, profiles)
            if kind not in ("unit", "model") and not (kind == "upgrade" and own):
                continue
            total += kind in ("unit", "model")
            inner = _child_miniatures(el, entries, profiles)
            if (inner and not own) or (kind == "unit" and any(c.get("type") == "model" for c in inner)):
                containers += 1  # its miniatures are walked themselves (no phantom model for its own profile)
                continue
            ancestors = []
            p = parent.get(el)
            while p is not None:
                if _local(p.tag) == "selectionEntry":
                    ancestors.append(p)
                p = parent.get(p)
            unit = next((a for a in ancestors if a.get("type") == "unit"), el if kind == "unit" else None)
            info = _type_of(own)
            info.add(categories_type(_categories(el)))
            for lk in linked.get(el.get("id"), []):
                info.add(categories_type(_categories(lk)))
            type_from = "own profile" if own else "own categories"
            for a in ancestors:
                if info.type is not None:
                    break
                info.add(categories_type(_categories(a)))
                info.add(_type_of(_model_profiles(a, profiles)))
                type_from = f"enclosing entry {a.get('name')!r}"
            if info.type is None and unit is not None:
                for sib in _child_miniatures(unit, entries, profiles):
                    t = _type_of(_model_profiles(sib, profiles))
                    if t.type is not None:
                        info.add(TypeInfo(t.type, set(), t.sources))
                        type_from = f"sibling model {sib.get('name')!r}"
                        break
            wargear = _wargear(el) + [w for a in ancestors for w in _wargear(a)]
            facts = ModelFacts(name=(el.get("name") or "").strip(), type=info.type,
                               subtypes=frozenset(info.subtypes), unit=(unit.get("name") or "").strip() if unit
                               is not None else "", wargear=tuple(wargear), catalogue=catalogue)
            out.append(Walked(fname, el.get("id") or "", kind, facts, type_from if info.type else "none"))
    return out, containers, total


def _needs_data() -> None:
    if not BSDATA.is_dir() or not any(BSDATA.glob("*.cat")):
        pytest.skip(f"no BattleScribe Horus Heresy data at {BSDATA}")
    pytest.importorskip("defusedxml")


def _strip(name: str) -> str:
    return " ".join(re.sub(r"^\d+\)\s*|\([^)]*\)", " ", name).split())


def test_every_bsdata_entry_resolves(capsys):
    """Walk every unit and model entry: each has a base (round, oval or hull), a unit type and a
    height, from an explicit entry or a base rule; prints how many were resolved each way."""
    _needs_data()
    walked, containers, total = _entries()
    cat = load_catalogue("hh2")
    how: Counter[str] = Counter()
    by_rule: Counter[str] = Counter()
    unresolved = []
    for w in walked:
        r = cat.resolve(w.facts, names=[_strip(w.facts.name)])
        if r is None:
            unresolved.append(f"{w.file}: {w.kind} {w.facts.name!r} (type {w.facts.type}, "
                              f"sub-types {sorted(s.value for s in w.facts.subtypes)}, unit {w.facts.unit!r})")
            continue
        e = r.entry
        assert isinstance(e.base, (RoundBase, OvalBase, HullBase))
        assert isinstance(e.type, UnitType)
        assert e.height_in is not None and e.height_in > 0, f"{w.facts.name}: no height ({e.id})"
        how[r.how] += 1
        if r.rule is not None:
            by_rule[r.rule.id] += 1
    with capsys.disabled():
        print(f"\nHH2 BattleScribe data: {total} unit and model entries; {len(walked)} miniatures walked "
              f"(with upgrades that carry a unit profile), {containers} entries that only hold miniatures; "
              f"{how['entry']} resolved by explicit catalogue entry, {how['rule']} by base rule, "
              f"{len(unresolved)} unresolved")
        for rid, n in by_rule.most_common():
            print(f"  rule {rid}: {n}")
    # every unit and model entry is walked or holds walked miniatures (958 in the 2025-07 data)
    assert total >= 900
    assert sum(w.kind in ("unit", "model") for w in walked) + containers >= total
    assert not unresolved, f"{len(unresolved)} entries resolve to no base:\n" + "\n".join(unresolved)


def test_walk_reads_types_as_the_importer():
    """The walk sees real values (guards the walker): a Mor Deythan Shade is Infantry (Skirmish,
    Character); a Contemptor-Galatus a Dreadnought; the Warlord Titan a Vehicle."""
    _needs_data()
    walked, _, _ = _entries()
    by_name = {w.facts.name: w for w in walked}
    shade = by_name["Mor Deythan Shade"].facts
    assert shade.type is UnitType.INFANTRY and {SubType.SKIRMISH, SubType.CHARACTER} <= shade.subtypes
    assert shade.unit == "Mor Deythan Squad" and shade.catalogue.endswith("Raven Guard")
    assert by_name["Contemptor-Galatus Dreadnought"].facts.type is UnitType.DREADNOUGHT
    assert by_name["Warlord Battle Titan"].facts.type is UnitType.VEHICLE
    assert "Angron" in by_name and by_name["Angron"].kind == "model"  # the unit Angron only lists its model


def test_rule_values():
    """Boundary values of the base rules on real entries: Legion Terminators 40 mm, Solar Auxilia 25 mm,
    Custodes 40 mm, a Contemptor 60 mm, bikes on 75 x 42 mm ovals, Knights and Titans to the hull."""
    _needs_data()
    walked, _, _ = _entries()
    cat = load_catalogue("hh2")
    by_name = {w.facts.name: cat.resolve(w.facts, names=[_strip(w.facts.name)]) for w in walked}

    def base(name: str):
        r = by_name[name]
        assert r is not None, name
        return r.entry.base

    assert base("Deathwing Cataphractii Companion") == RoundBase(diameter_mm=40)
    assert base("Justaerin") == RoundBase(diameter_mm=40)
    assert base("Mor Deythan Shade") == RoundBase(diameter_mm=32)
    assert base("Auxilia w/ Lasrifle") == RoundBase(diameter_mm=25)
    assert base("Custodes Tribune") == RoundBase(diameter_mm=40)
    assert base("Contemptor-Galatus Dreadnought") == RoundBase(diameter_mm=60)
    assert isinstance(base("Warlord Battle Titan"), HullBase)
    assert isinstance(base("Knight Questoris"), (OvalBase, HullBase))
    assert isinstance(base("Outrider w/ Laspistol"), OvalBase)
    # a Land Raider of another army list has the Legion Land Raider's hull, not a super-heavy's
    assert base("Militia Land Raider Proteus Carrier") == HullBase(length_in=6.9, width_in=4.8)
    assert base("Baneblade") == HullBase(length_in=9.5, width_in=5.5)
    # a sergeant is sized by his Terminator squad (the rule reads the unit's name too)
    assert base("2) Morlock") == base("1) Augmentor") == RoundBase(diameter_mm=40)


# --------------------------------------------------------------------------- the rules without the data


def test_resolve_boundaries_without_the_data(tmp_path):
    """The base rules on hand-made facts (no shared data needed): an entry by name first, with its
    type's height default; then the first rule that holds; no type is no answer."""
    from planner.errors import ScenarioError
    from planner.io.files import load_catalogue_file

    cat = load_catalogue("hh2")
    inf = UnitType.INFANTRY
    r = cat.resolve(ModelFacts(name="Tactical Space Marines, Legion", type=inf))
    assert r is not None and r.how == "entry" and r.entry.id == "legion-tactical-marine"
    assert r.entry.height_in == HorusHeresy2.MODEL_HEIGHT_IN["Infantry"] == 1.25  # the ruleset's Infantry default
    plain = cat.resolve(ModelFacts(name="Unheard-of Legionary", type=inf, catalogue="LA - XIX: Raven Guard"))
    assert plain is not None and plain.how == "rule" and plain.rule.id == "hh2-rule-infantry"
    assert plain.entry.base == RoundBase(diameter_mm=32) and plain.entry.type is inf
    term = cat.resolve(ModelFacts(name="Unheard-of Legionary", type=inf, wargear=("Cataphractii Terminator Armour",)))
    assert term is not None and term.entry.base == RoundBase(diameter_mm=40) and term.entry.height_in == 1.5
    aux = cat.resolve(ModelFacts(name="Unheard-of Trooper", type=inf, catalogue="LI - Solar Auxilia"))
    assert aux is not None and aux.entry.base == RoundBase(diameter_mm=25)
    # sub-types must all be present: a Monstrous Infantry model is 40 mm, plain Infantry 32 mm
    ogryn = cat.resolve(ModelFacts(name="Brute", type=inf, subtypes=frozenset({SubType.MONSTROUS})))
    assert ogryn is not None and ogryn.rule.id == "hh2-rule-monstrous-infantry"
    assert cat.resolve(ModelFacts(name="Unheard-of Legionary")) is None  # no type, no entry
    # a Knight of unknown name: no rule covers it
    assert cat.resolve(ModelFacts(name="Mystery Engine", type=UnitType.KNIGHT)) is None
    for e in cat.by_id.values():
        assert e.height_in is not None and e.height_in > 0, e.id

    bad = tmp_path / "bad-rule.yaml"
    bad.write_text("system: hh2\nbase_rules:\n  - {id: hh2-rule-x, names: ['('], base: {diameter_mm: 32}, "
                   "source: s}\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_catalogue_file(bad)
    assert "not a regular expression" in str(exc.value)
