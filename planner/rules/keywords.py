"""Warhammer 40,000 keyword logic (10th and 11th edition; 11th-edition core rules 02.05.01).

The rules, as the source text states them (RULES.md §3.3; source text 004):

- A unit has all the keywords of all models in that unit; a model only has its own keywords.
- A rule for a *unit with* a keyword applies to a unit with one or more models with it.
- A rule for a *model with* a keyword applies only to a model with that keyword (in a mixed
  unit: only to the models of the unit that have it).
- ``non-KEYWORD`` models/units are those that do not have that keyword.
- A comma-separated list, a slash-separated series, or two keywords joined by ``or``
  (``IMMORTALS, DEATHMARKS or LYCHGUARD``) refers to a model/unit with **any one** of them.
- Adjacent keywords (``AELDARI GUARDIANS``) refer only to a model/unit with **all** of them.
- Keywords written without "model" or "unit" (``MONSTER/VEHICLE``) refer to units.
- Singular and plural instances of the same keyword function in the same way.

Keywords may contain spaces (``DEDICATED TRANSPORT``, ``JUMP PACK``): a run of words is read
as one keyword when the ``known`` vocabulary holds it (longest match first), else word by word
as adjacent keywords. Matching is case-insensitive.

>>> sel = parse_selector("an IMMORTALS, DEATHMARKS or LYCHGUARD unit")
>>> sel.scope, sel.expr.matches({"LYCHGUARD", "NECRONS"})
('unit', True)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal


class KeywordError(ValueError):
    """A keyword expression that cannot be read (empty, or a dangling ``non-`` / ``or``)."""


def canonical_word(word: str) -> str:
    """One word of a keyword, upper case and singular: ``"Beasts"`` -> ``"BEAST"``,
    ``"ENTITIES"`` -> ``"ENTITY"``, ``"CHAOS"`` -> ``"CHAO"`` (both sides of a comparison are
    made singular the same way, so the odd stem never matters)."""
    w = word.strip().upper()
    if len(w) > 3 and w.endswith("IES"):
        return w[:-3] + "Y"
    if len(w) > 2 and w.endswith("S") and not w.endswith("SS"):
        return w[:-1]
    return w


def canonical(keyword: str) -> str:
    """A keyword, upper case, words singular and single-spaced: ``"Jump  Packs"`` -> ``"JUMP PACK"``."""
    return " ".join(canonical_word(w) for w in keyword.split())


def keyword_set(keywords: Iterable[str]) -> frozenset[str]:
    """The canonical forms of ``keywords``."""
    return frozenset(canonical(k) for k in keywords if k.strip())


@dataclass(frozen=True)
class Has:
    """Has this one keyword (canonical form)."""

    keyword: str

    def matches(self, keywords: frozenset[str] | set[str]) -> bool:
        return self.keyword in keywords or self.keyword in {canonical(k) for k in keywords}

    def __str__(self) -> str:
        return self.keyword


@dataclass(frozen=True)
class Not:
    """``non-X``: does not have X."""

    inner: Expr

    def matches(self, keywords: frozenset[str] | set[str]) -> bool:
        return not self.inner.matches(keywords)

    def __str__(self) -> str:
        return f"non-{self.inner}"


@dataclass(frozen=True)
class AllOf:
    """Adjacent keywords: has every one."""

    parts: tuple[Expr, ...]

    def matches(self, keywords: frozenset[str] | set[str]) -> bool:
        return all(p.matches(keywords) for p in self.parts)

    def __str__(self) -> str:
        return " ".join(str(p) for p in self.parts)


@dataclass(frozen=True)
class AnyOf:
    """A comma, slash or ``or`` list: has at least one."""

    parts: tuple[Expr, ...]

    def matches(self, keywords: frozenset[str] | set[str]) -> bool:
        return any(p.matches(keywords) for p in self.parts)

    def __str__(self) -> str:
        return " or ".join(str(p) for p in self.parts)


Expr = Has | Not | AllOf | AnyOf


_ANY_SPLIT = re.compile(r"\s*(?:,\s*(?:or\s+)?|/|\bor\b)\s*", re.IGNORECASE)


def parse_keywords(text: str, known: Iterable[str] = ()) -> Expr:
    """Parse a keyword expression such as ``"INFANTRY/BEASTS/SWARM"``, ``"non-VEHICLE"``,
    ``"AELDARI GUARDIANS"`` or ``"IMMORTALS, DEATHMARKS or LYCHGUARD"``.

    ``known`` lists multi-word keywords (e.g. ``DEDICATED TRANSPORT``) to read as one keyword.

    Raises
    ------
    KeywordError
        If the text (or one item of a list) holds no keyword.
    """
    vocab = sorted({canonical(k) for k in known if " " in k.strip()}, key=lambda k: -len(k.split()))
    items = [s for s in _ANY_SPLIT.split(text.strip())]
    if any(not s.strip() for s in items):
        raise KeywordError(f"empty keyword in {text!r}")
    parts = tuple(_parse_adjacent(s, vocab, text) for s in items)
    return parts[0] if len(parts) == 1 else AnyOf(parts)


def _parse_adjacent(s: str, vocab: list[str], whole: str) -> Expr:
    words = s.split()
    out: list[Expr] = []
    i = 0
    while i < len(words):
        w = words[i]
        neg = False
        if w.lower().startswith("non-"):
            neg, w = True, w[4:]
            if not w:
                raise KeywordError(f"'non-' without a keyword in {whole!r}")
        rest = [w, *words[i + 1:]]
        canon = [canonical_word(x) for x in rest]
        taken = 1
        for k in vocab:
            kw = k.split()
            if canon[:len(kw)] == kw:
                taken = len(kw)
                break
        e: Expr = Has(" ".join(canon[:taken]))
        out.append(Not(e) if neg else e)
        i += taken
    if not out:
        raise KeywordError(f"no keyword in {whole!r}")
    return out[0] if len(out) == 1 else AllOf(tuple(out))


Scope = Literal["unit", "model"]

_WITH = re.compile(r"^(?:an?\s+|the\s+)?(?P<scope>units?|models?)\s+with\s+(?:the\s+)?(?P<kw>.+?)(?:\s+keywords?)?$",
                   re.IGNORECASE)
_TRAIL = re.compile(r"^(?:an?\s+|the\s+)?(?P<kw>.+?)\s+(?P<scope>units?|models?)$", re.IGNORECASE)


@dataclass(frozen=True)
class Selector:
    """What a rule applies to: ``scope`` ('unit' or 'model') and the keyword expression."""

    scope: Scope
    expr: Expr

    def unit_matches(self, model_keywords: Iterable[Iterable[str]]) -> bool:
        """Does a unit whose models have these keyword sets match? A unit has every keyword of
        every model. For scope 'model' this asks whether the unit holds a matching model."""
        sets = [keyword_set(k) for k in model_keywords]
        if self.scope == "model":
            return any(self.expr.matches(s) for s in sets)
        return self.expr.matches(frozenset().union(*sets))

    def models_matching(self, model_keywords: Iterable[Iterable[str]]) -> list[int]:
        """Indices of the models a model-scoped rule applies to (a unit-scoped rule: every model
        if the unit matches, else none)."""
        sets = [keyword_set(k) for k in model_keywords]
        if self.scope == "unit":
            return list(range(len(sets))) if self.expr.matches(frozenset().union(*sets)) else []
        return [i for i, s in enumerate(sets) if self.expr.matches(s)]


def parse_selector(text: str, known: Iterable[str] = ()) -> Selector:
    """Parse a rule's target phrase: ``"unit with the INFANTRY keyword"``, ``"model with FLY"``,
    ``"non-VEHICLE units"``, ``"an AELDARI GUARDIANS unit"``, or bare keywords (``"MONSTER/VEHICLE"``,
    which refer to units).

    Raises
    ------
    KeywordError
        If no keyword is left to read.
    """
    t = " ".join(text.split())
    m = _WITH.match(t)
    if m:
        return Selector("model" if m.group("scope").lower().startswith("model") else "unit",
                        parse_keywords(m.group("kw"), known))
    m = _TRAIL.match(t)
    if m:
        return Selector("model" if m.group("scope").lower().startswith("model") else "unit",
                        parse_keywords(m.group("kw"), known))
    t = re.sub(r"^(?:an?|the)\s+", "", t, flags=re.IGNORECASE)
    return Selector("unit", parse_keywords(t, known))


def unit_keywords(model_keywords: Iterable[Iterable[str]]) -> frozenset[str]:
    """The keywords of a unit: every keyword of every model (canonical forms)."""
    out: set[str] = set()
    for k in model_keywords:
        out |= keyword_set(k)
    return frozenset(out)
