"""Characteristics and weapons from BattleScribe / New Recruit profiles (issue 20 item 1).

:func:`characteristics_of` reads a model selection's Unit/Vehicle/Model profile (Horus Heresy
``M WS BS S T W I A Ld Sv``, ``Inv``/``Invulnerable Save``, ``Front Side Rear``; 40k ``M T SV W LD OC``,
``InSv``), and only when the profile has both T and W (a partial profile, such as a "Unit Type"
alone, gives none). :func:`weapons_of` reads the Weapon / Ranged Weapons / Melee Weapons profiles
of a selection and of its non-model children (HH ``Range Str AP Type``, the shots from the type:
"Heavy 2" is 2 shots; 40k ``Range A BS|WS S AP D Keywords``), again only those with a Strength,
each with the ``number`` of the selections giving it (:class:`Carried`: "Meltagun" number 2 is two
meltaguns; how they are shared among the models is :mod:`planner.io.roster`'s).
Real rosters hold values that are not numbers ("Infinite", "Template", "12\" - 60\"", AP "3/2",
Strength "User"): ranges "Infinite" read as 1000", a range band as its longest, "-"/"Melee" as
melee, "Template" as melee range plus the keyword Template; any other value that is not a number
is left out and reported through ``warn`` (naming the file, the selection, the characteristic and
the value), so an odd data entry never stops an import; without ``warn`` it raises
:class:`planner.errors.ScenarioError` with the same text.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from planner.errors import ScenarioError
from planner.io.roster import Profile, Selection
from planner.schema import Characteristics, WeaponProfile

_STAT_NAMES = {"m": "m", "move": "m", "ws": "ws", "bs": "bs", "s": "s", "t": "t", "w": "w", "i": "i",
               "a": "a", "ld": "ld", "sv": "sv", "save": "sv", "inv": "inv", "insv": "inv",
               "invulnerable save": "inv", "front": "av_front", "side": "av_side", "rear": "av_rear",
               "oc": "oc", "hp": "hp"}
_WEAPON_TYPES = {"weapon", "ranged weapons", "melee weapons", "weapons"}
_NUM = re.compile(r"^\s*(-?\d+)\s*(?:\+|\"|''|”|in)?\s*$")


Warn = Callable[[str], None]


def _problem(message: str, *, sel: Selection, file: str | None, value: object, warn: Warn | None) -> None:
    err = ScenarioError(message, file=file, location=sel.path, value=value)
    if warn is None:
        raise err
    warn(f"{err}; left out")


def _value(text: str, *, key: str, prof: Profile, sel: Selection, file: str | None, warn: Warn | None) -> int | None:
    t = text.strip()
    if t in ("", "-", "–", "*", "N/A"):
        return None
    m = _NUM.match(t)
    if not m:
        _problem(f"characteristic {key!r} of profile {prof.name!r} is not a number", sel=sel, file=file,
                 value=text, warn=warn)
        return None
    return int(m.group(1))


def characteristics_of(sel: Selection, *, file: str | None = None, warn: Warn | None = None) -> Characteristics | None:
    """The model's characteristics from its first model profile with T and W (or armour values), or None."""
    for prof in sel.model_profiles:
        data: dict[str, Any] = {}
        for key, text in prof.characteristics.items():
            field = _STAT_NAMES.get(key.strip().lower())
            if field is not None:
                v = _value(text, key=key, prof=prof, sel=sel, file=file, warn=warn)
                if v is not None:
                    data[field] = v
        if ("t" in data and "w" in data) or "av_front" in data:
            try:
                return Characteristics.model_validate(data)
            except ValueError as e:
                _problem(f"profile {prof.name!r}: {e}", sel=sel, file=file, value=data, warn=warn)
                return None
    return None


def _range(text: str, prof: Profile, sel: Selection, file: str | None, warn: Warn | None) -> tuple[int | None, bool]:
    """(range in inches or None for melee, is a template)."""
    t = text.strip().lower()
    if t in ("", "-", "melee"):
        return None, False
    if t == "template":
        return None, True
    if t in ("infinite", "unlimited"):
        return 1000, False
    band = re.findall(r"\d+", t)
    if "-" in t and len(band) == 2:
        return int(band[1]), False
    return _value(text, key="Range", prof=prof, sel=sel, file=file, warn=warn), False


def _weapon(prof: Profile, sel: Selection, file: str | None, warn: Warn | None) -> WeaponProfile | None:
    ch = {k.strip().lower(): v.strip() for k, v in prof.characteristics.items()}
    s_text = ch.get("s", ch.get("str", ch.get("strength", "")))
    if not s_text or not re.match(r"^\d+$", s_text):
        return None
    data: dict[str, Any] = {"name": prof.name, "s": int(s_text)}
    rng, template = _range(ch.get("range", ""), prof, sel, file, warn)
    if rng is not None:
        data["range_in"] = rng
    if "ap" in ch:
        data["ap"] = _value(ch["ap"], key="AP", prof=prof, sel=sel, file=file, warn=warn)
    if "type" in ch:  # Horus Heresy: "Heavy 2, Pinning" -> type Heavy, shots 2, keywords the rest
        first, *rest = [p.strip() for p in ch["type"].split(",") if p.strip()] or [""]
        m = re.match(r"^(.*?)\s*(\d+|D\d+)?$", first)
        if m:
            data["type"] = m.group(1) or None
            data["shots"] = int(m.group(2)) if m.group(2) and m.group(2).isdigit() else (m.group(2) or 1)
        data["keywords"] = rest + (["Template"] if template else [])
    for key, field in (("a", "a"), ("d", "d")):
        if key in ch and ch[key] not in ("", "-"):
            data[field] = int(ch[key]) if ch[key].isdigit() else ch[key]
    skill = ch.get("bs", ch.get("ws"))
    if skill and skill not in ("N/A", "-"):
        data["bs"] = _value(skill, key="BS", prof=prof, sel=sel, file=file, warn=warn)
    if "keywords" in ch and ch["keywords"] not in ("", "-"):
        data["keywords"] = [k.strip() for k in ch["keywords"].split(",") if k.strip()]
    try:
        return WeaponProfile.model_validate(data)
    except ValueError as e:
        _problem(f"weapon profile {prof.name!r}: {e}", sel=sel, file=file, value=data, warn=warn)
        return None


@dataclass(frozen=True)
class Carried:
    """A weapon profile of a selection and the ``number`` of each selection that gives it, in roster
    order: ``None`` for a profile on the selection itself (one for each model it stands for), else the
    wargear selection's ``number``. BattleScribe writes the number of a selection nested in a model
    selection of number N as the total over those N models (4 marines: "Bolt Pistols" number 4), so
    the numbers are not multiplied through the selections that hold them."""

    weapon: WeaponProfile
    numbers: tuple[int | None, ...]

    def total(self, models: int) -> int:
        """How many of the weapon the selection's ``models`` models carry in all."""
        return sum(models if n is None else n for n in self.numbers)


def weapons_of(sel: Selection, *, file: str | None = None, warn: Warn | None = None) -> list[Carried]:
    """Weapons on ``sel`` and its wargear (children that are not models themselves), in roster order,
    one per profile name (the first profile of that name), with the numbers of the selections
    giving it (:class:`Carried`; a selection of number 0 gives none)."""
    found: dict[str, tuple[WeaponProfile, list[int | None]]] = {}

    def walk(s: Selection) -> None:
        for prof in s.profiles:
            if prof.type_name.strip().lower() in _WEAPON_TYPES:
                w = _weapon(prof, s, file, warn)
                if w is not None:
                    found.setdefault(w.name, (w, []))[1].append(None if s is sel else s.number)
        for c in s.children:
            if not c.is_model_like and c.number > 0:
                walk(c)

    walk(sel)
    return [Carried(w, tuple(numbers)) for w, numbers in found.values()]
