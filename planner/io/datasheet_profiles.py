"""Characteristics and weapons of a 40k list unit from wh40kdc's datasheets (issue 20 item 1).

The datasheet's ``profiles`` (M, T, Sv, W, Ld, OC, ``invuln_sv``) become :class:`Characteristics`
(one profile: the unit's; several: each model's, matched by model name, the first as the unit's);
the list entry's ``wargear`` references become :class:`WeaponProfile` records with their count (a
weapon of several profiles gives one record per profile, named "Weapon (profile)"). A value the
schema refuses is left out with a warning naming the list file, the unit and the value.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from planner.schema import Characteristics, WeaponProfile

Warn = Callable[[str], None]


def stats_of(profile: dict[str, Any], *, where: str, warn: Warn) -> Characteristics | None:
    """A datasheet profile as :class:`Characteristics`, or None (with a warning) if it does not validate."""
    data = {k: profile.get(src) for k, src in (("m", "M"), ("t", "T"), ("sv", "Sv"), ("w", "W"), ("ld", "Ld"),
                                               ("oc", "OC"), ("inv", "invuln_sv"))}
    data = {k: v for k, v in data.items() if isinstance(v, int) and not isinstance(v, bool)}
    try:
        return Characteristics.model_validate(data)
    except ValueError as e:
        warn(f"{where}: datasheet profile {profile.get('name')!r} left out: {e}")
        return None


def _keyword(ref: dict[str, Any]) -> str:
    text = str(ref.get("keyword_id") or "").replace("-", " ").title()
    params = ref.get("parameters") or {}
    vals = [str(v) for v in params.values() if isinstance(v, (int, str))]
    return " ".join([text, *vals]) if vals else text


def weapons_of(wargear: list[dict[str, Any]], lookup: Callable[[str], Any], *, where: str,
               warn: Warn) -> list[WeaponProfile]:
    """The list entry's wargear as weapon profiles (count: how many the unit carries)."""
    out: list[WeaponProfile] = []
    for item in wargear or []:
        ref = (item or {}).get("ref") or {}
        view = lookup(str(ref.get("id") or "")) if ref.get("id") else None
        raw = getattr(view, "raw", None)
        if not isinstance(raw, dict):
            continue
        count = item.get("count") if isinstance(item.get("count"), int) else None
        profiles = [p for p in raw.get("profiles") or [] if isinstance(p, dict)]
        for p in profiles:
            st = p.get("stats") or {}
            name = str(raw.get("name") or ref.get("id"))
            if len(profiles) > 1:
                name = f"{name} ({p.get('name')})"
            rng = p.get("range")
            data = {"name": name, "range_in": rng if isinstance(rng, (int, float)) else None,
                    "a": st.get("A"), "bs": st.get("BS", st.get("WS")), "s": st.get("S"), "ap": st.get("AP"),
                    "d": st.get("D"), "count": count,
                    "keywords": [_keyword(k) for k in p.get("keywords") or [] if isinstance(k, dict)]}
            try:
                out.append(WeaponProfile.model_validate({k: v for k, v in data.items() if v is not None}))
            except ValueError as e:
                warn(f"{where}: weapon {name!r} left out: {e}")
    return out
