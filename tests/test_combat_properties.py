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


@settings(max_examples=40, deadline=None)
@given(sizes=st.lists(st.tuples(st.integers(0, 3), st.integers(1, 3), st.integers(0, 2)), min_size=1, max_size=3),
       unsaved=st.lists(st.sampled_from([0.0, 1 / 3, 1 / 2, 1.0]), min_size=6, max_size=6),
       damage=st.sampled_from([(0.0, 1.0), (0.0, 0.0, 1.0), (1 / 6, 5 / 6), (0.0, 1 / 3, 1 / 3, 1 / 3)]),
       counts=st.dictionaries(st.tuples(st.integers(0, 4), st.integers(0, 5)), st.floats(0.01, 1.0),
                              min_size=1, max_size=6),
       reverse=st.booleans())
def test_dense_chain_equals_the_joint_state_chain(sizes: list[tuple[int, int, int]], unsaved: list[float],
                                                  damage: tuple[float, ...], counts: dict[tuple[int, int], float],
                                                  reverse: bool) -> None:
    # the numpy chains over (state, failed saves) and (state, wounds lost) give the joint chain's marginals
    from planner.combat.allocation import Group, Kind, allocate_kinds

    groups = tuple(Group(f"g{i}", n, w, unsaved[i], damage, wounded=min(hurt, w - 1) if n else 0)
                   for i, (n, w, hurt) in enumerate(sizes))
    crit = tuple(Group(g.name, g.models, g.wounds, unsaved[3 + i], g.damage, wounded=g.wounded)
                 for i, g in enumerate(groups))
    order = tuple(range(len(groups)))
    kinds = (Kind(groups, order[::-1] if reverse else order), Kind(crit, order))
    total = sum(counts.values())
    pmf = {k: v / total for k, v in counts.items()}
    fast, slow = allocate_kinds(kinds, pmf), allocate_kinds(kinds, pmf, dense=False)
    for a, b in ((fast.unsaved, slow.unsaved), (fast.wounds_lost, slow.wounds_lost),
                 (fast.models_lost, slow.models_lost), (fast.group_models_lost_mean, slow.group_models_lost_mean)):
        n = max(len(a), len(b))
        assert list(a) + [0.0] * (n - len(a)) == pytest.approx(list(b) + [0.0] * (n - len(b)), abs=1e-12)


def test_results_are_memoised() -> None:
    a = hh2.HHAttacker("a", 10, 4, hh2.HHWeapon("bolter", 4, 2, 5))
    t = hh2.HHTarget("t", (hh2.HHTargetGroup("m", 10, 4, 1, 3),))
    assert hh2.shoot(a, t) is hh2.shoot(a, t)
    assert hh2.shoot(a, t, precision_group=0) is not hh2.shoot(a, t)


def test_unhashable_records_are_computed_not_refused() -> None:
    # a list where the records expect a tuple: no cache, the same numbers
    a = wh40k.Attacker40k("a", 5, wh40k.Weapon40k("bolt", 2, 3, 4, -1, 1))
    groups = [wh40k.Group40k("m", 5, 4, 1, 3)]
    loose = wh40k.shoot(a, wh40k.Target40k("t", groups))  # type: ignore[arg-type]
    assert loose.models_lost == wh40k.shoot(a, wh40k.Target40k("t", tuple(groups))).models_lost
