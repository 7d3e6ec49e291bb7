"""Property tests of the dice maths: distributions are distributions, and better saves never cost more."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.combat import hh2, wh40k
from planner.combat.dice import mean


@settings(max_examples=40, deadline=None)
@given(models=st.integers(1, 6), shots=st.integers(1, 3), bs=st.integers(1, 10), s=st.integers(1, 10),
       t=st.integers(1, 8), w=st.integers(1, 3), sv=st.integers(2, 6), n=st.integers(1, 6),
       shrouded=st.none() | st.integers(2, 6), prec=st.none() | st.integers(2, 6))
def test_hh_distribution_and_save_monotone(models: int, shots: int, bs: int, s: int, t: int, w: int, sv: int,
                                           n: int, shrouded: int | None, prec: int | None) -> None:
    a = hh2.HHAttacker("a", models, bs, hh2.HHWeapon("x", s, shots, None, precision=prec))

    def target(save: int) -> hh2.HHTarget:
        return hh2.HHTarget("t", (hh2.HHTargetGroup("g", n, t, w, save),
                                  hh2.HHTargetGroup("c", 1, t, w, save, character=True)), shrouded=shrouded)

    r = hh2.shoot(a, target(sv), precision_group=1)
    assert sum(r.models_lost) == pytest.approx(1.0)
    assert sum(r.wounds_lost) == pytest.approx(1.0)
    assert min(r.models_lost) >= -1e-12
    assert len(r.models_lost) == n + 2
    if sv > 2:
        better = hh2.shoot(a, target(sv - 1), precision_group=1)
        assert better.expected_models_lost <= r.expected_models_lost + 1e-9


@settings(max_examples=40, deadline=None)
@given(models=st.integers(1, 5), a=st.sampled_from([1, 2, "D3"]), bs=st.integers(2, 6), s=st.integers(1, 12),
       ap=st.integers(-3, 0), d=st.sampled_from([1, 2, "D3", "D6"]), t=st.integers(2, 10), w=st.integers(1, 4),
       sv=st.integers(3, 6), n=st.integers(1, 5), cover=st.booleans())
def test_40k_distribution_and_save_monotone(models: int, a: int | str, bs: int, s: int, ap: int, d: int | str,
                                            t: int, w: int, sv: int, n: int, cover: bool) -> None:
    att = wh40k.Attacker40k("a", models, wh40k.Weapon40k("x", a, bs, s, ap, d))

    def target(save: int) -> wh40k.Target40k:
        return wh40k.Target40k("t", (wh40k.Group40k("g", n, t, w, save),), in_cover=cover)

    r = wh40k.shoot(att, target(sv))
    assert sum(r.models_lost) == pytest.approx(1.0)
    assert mean(r.wounds_lost) <= n * w + 1e-9
    better = wh40k.shoot(att, target(sv - 1))
    assert better.expected_models_lost <= r.expected_models_lost + 1e-9
