"""The drift bugs of issue 13 item 7: each fixed, each with a test that failed before the fix.

1. Two overlapping 40k units are both flagged (as the hh2 checker flags both).
"""

from __future__ import annotations

import pytest

from tests.wh40k_helpers import R32, RED_LINE, check, model, unit

D32 = 2 * R32


# ------------------------------------------------------------------------------ 1. both overlapping units flagged
@pytest.mark.parametrize("ruleset", ["wh40k10", "wh40k11"])
def test_both_overlapping_40k_units_are_flagged(ruleset):
    r = check(ruleset, [unit("a", [model(30, 5)]), unit("b", [model(30 + D32 - 0.01, 5)])], [RED_LINE])
    bad = {(v.unit, v.model, v.rule) for v in r.violations}
    rule = f"{ruleset}.bases.overlap"
    assert bad == {("a", "1", rule), ("b", "1", rule)}
    verdict = {u.unit: u.legal for u in r.units}
    assert verdict == {"a": False, "b": False, "red-line": True}
    # each names the other model and the overlap depth, 0.01"
    for v, other in zip(sorted(r.violations, key=lambda v: v.unit), ("b/1", "a/1"), strict=True):
        assert other in v.message
        assert v.margin == pytest.approx(-0.01, abs=1e-9)


def test_touching_40k_bases_are_not_an_overlap():
    r = check("wh40k10", [unit("a", [model(30, 5)]), unit("b", [model(30 + D32, 5)])], [RED_LINE])
    assert r.legal
