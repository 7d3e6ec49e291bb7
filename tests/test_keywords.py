"""The 40k keyword logic, one test per bullet of the source text (11E-CORE-A 02.05.01; RULES.md §3.3)."""

from __future__ import annotations

import pytest

from planner.rules.keywords import (
    AllOf,
    AnyOf,
    KeywordError,
    Not,
    canonical,
    parse_keywords,
    parse_selector,
    unit_keywords,
)

KNOWN = ["DEDICATED TRANSPORT", "JUMP PACK"]
# a mixed unit: a CHARACTER INFANTRY leader with bodyguard INFANTRY models, one with GRENADES
UNIT = [{"INFANTRY", "CHARACTER", "IMPERIUM"}, {"INFANTRY", "IMPERIUM"}, {"INFANTRY", "IMPERIUM", "GRENADES"}]


def test_unit_has_every_keyword_of_its_models_model_only_its_own():
    assert unit_keywords(UNIT) == {"INFANTRY", "CHARACTER", "IMPERIUM", "GRENADE"}
    assert not parse_keywords("CHARACTER").matches(canonical_set(UNIT[1]))


def canonical_set(ks):
    return {canonical(k) for k in ks}


def test_unit_with_keyword_needs_one_model():
    sel = parse_selector("unit with the CHARACTER keyword")
    assert sel.scope == "unit"
    assert sel.unit_matches(UNIT)
    assert not sel.unit_matches(UNIT[1:])


def test_model_with_keyword_applies_to_that_model_only():
    sel = parse_selector("models with GRENADES")
    assert sel.scope == "model"
    assert sel.models_matching(UNIT) == [2]
    # a rule that applies to units: every model of a matching unit
    assert parse_selector("GRENADES units").models_matching(UNIT) == [0, 1, 2]


def test_non_keyword():
    sel = parse_selector("non-VEHICLE units")
    assert isinstance(sel.expr, Not)
    assert sel.unit_matches(UNIT)
    assert not sel.unit_matches(UNIT + [{"VEHICLE", "TRANSPORT"}])
    assert not parse_selector("non-CHARACTER unit").unit_matches(UNIT)  # the unit has CHARACTER
    assert parse_selector("non-CHARACTER models").models_matching(UNIT) == [1, 2]


def test_comma_slash_or_lists_mean_any():
    for text in ("an IMMORTALS, DEATHMARKS or LYCHGUARD unit", "IMMORTALS/DEATHMARKS/LYCHGUARD",
                 "IMMORTALS or LYCHGUARD", "IMMORTALS, LYCHGUARD"):
        sel = parse_selector(text)
        assert isinstance(sel.expr, AnyOf), text
        assert sel.unit_matches([{"LYCHGUARD", "NECRONS"}]), text
        assert not sel.unit_matches([{"WARRIORS", "NECRONS"}]), text


def test_adjacent_keywords_mean_all():
    sel = parse_selector("an AELDARI GUARDIANS unit")
    assert isinstance(sel.expr, AllOf)
    assert sel.unit_matches([{"AELDARI", "GUARDIANS"}])
    assert not sel.unit_matches([{"GUARDIANS"}])
    assert not sel.unit_matches([{"AELDARI", "ASPECT WARRIORS"}])


def test_bare_keywords_refer_to_units():
    sel = parse_selector("MONSTER/VEHICLE")
    assert sel.scope == "unit"
    assert sel.unit_matches([{"INFANTRY"}, {"VEHICLE"}])  # the unit has VEHICLE through one model


def test_singular_and_plural_are_the_same():
    assert parse_keywords("BEAST").matches(canonical_set({"BEASTS"}))
    assert parse_keywords("BEASTS").matches(canonical_set({"BEAST"}))
    assert parse_selector("INFANTRY/BEASTS/SWARMS").unit_matches([{"SWARM"}])
    assert canonical("Enemies") == canonical("ENEMY")


def test_multi_word_keywords_from_the_vocabulary():
    e = parse_keywords("DEDICATED TRANSPORT", KNOWN)
    assert str(e) == "DEDICATED TRANSPORT"
    assert e.matches(canonical_set({"Dedicated Transport"}))
    # without the vocabulary the words are adjacent keywords: both needed
    assert not parse_keywords("DEDICATED TRANSPORT").matches(canonical_set({"Dedicated Transport"}))
    assert parse_keywords("non-JUMP PACK INFANTRY", KNOWN).matches(canonical_set({"INFANTRY"}))
    assert not parse_keywords("non-JUMP PACK INFANTRY", KNOWN).matches(canonical_set({"INFANTRY", "JUMP PACK"}))


@pytest.mark.parametrize("bad", ["", "non-", "INFANTRY, ", "/VEHICLE", "INFANTRY or"])
def test_bad_expressions_are_errors(bad):
    with pytest.raises(KeywordError):
        parse_keywords(bad)
