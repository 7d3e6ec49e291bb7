"""The row sweep of :func:`planner.deepstrike.boundary.circle_box_pairs` finds exactly the pairs
of the brute-force exact test (every circle against every box)."""

from __future__ import annotations

import numpy as np
import pytest

from planner.deepstrike.boundary import box_test, circle_box_pairs


def _brute(cx, cy, d, box):
    m = box_test(cx, cy, d, d, box)
    i, k = np.nonzero(m)
    return set(zip(i.tolist(), k.tolist(), strict=True))


@pytest.mark.parametrize("seed", range(12))
def test_circle_box_pairs_equal_the_brute_force_pairs(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 400))
    if seed % 2:  # a heat map's circles: a 1" grid of centres times a few scatter distances
        xs, ys = np.meshgrid(np.arange(0.5, 20), np.arange(0.5, 12))
        dist = np.array([0.0, 2.0, 7.0, 12.0])
        cx = np.tile(xs.ravel(), len(dist))
        cy = np.tile(ys.ravel(), len(dist))
        d = np.repeat(dist, xs.size)
    else:
        cx, cy = rng.uniform(-5, 30, n), rng.uniform(-5, 20, n)
        d = rng.choice([0.5, 1.0, 3.0, 7.5, 12.0], n) * rng.uniform(0.9, 1.1, n)
    m = int(rng.integers(1, 120))
    x, y = rng.uniform(-10, 35, m), rng.uniform(-10, 25, m)
    w = rng.exponential(2.0, m) * rng.integers(0, 2, m)  # some boxes are points or segments
    h = rng.exponential(2.0, m) * rng.integers(0, 2, m)
    box = np.column_stack([x, y, x + w, y + h])
    box[0] = [-1000.0, 3.0, 1000.0, 3.0]  # a half-plane's edge, far longer than the table
    box[-1] = [4.0, -1000.0, 4.0, 1000.0]
    i, k = circle_box_pairs(cx, cy, d, box)
    got = list(zip(i.tolist(), k.tolist(), strict=True))
    assert len(got) == len(set(got))
    assert set(got) == _brute(cx, cy, d, box)
    assert got == sorted(got)


@pytest.mark.parametrize("seed", range(6))
def test_circle_box_pairs_with_crowded_and_spread_centres(seed: int) -> None:
    """The x bins of the row sweep (a table of first positions, each range widened by a bin) give
    the brute-force pairs where many centres share a bin, where they sit on the bins' edges (x a
    multiple of 1/16"), and where a few are spread over a wide span (coarse bins)."""
    rng = np.random.default_rng(100 + seed)
    n = 1500
    if seed % 3 == 0:  # crowded: many centres per bin and per row
        cx, cy = rng.uniform(10, 11, n), rng.uniform(5, 7, n)
    elif seed % 3 == 1:  # on the bins' edges
        cx, cy = rng.integers(0, 160, n) / 16.0, rng.integers(0, 96, n) / 16.0
    else:  # spread: a few centres far apart
        n = 60
        cx, cy = rng.uniform(-300, 300, n), rng.uniform(-5, 20, n)
    d = rng.choice([0.25, 2.0, 6.0, 12.0], n)
    m = 80
    x, y = rng.uniform(-5, 25, m), rng.uniform(-5, 15, m)
    box = np.column_stack([x, y, x + rng.exponential(1.5, m), y + rng.exponential(1.5, m)])
    box[0] = [-1000.0, 3.0, 1000.0, 3.0]
    i, k = circle_box_pairs(cx, cy, d, box)
    got = list(zip(i.tolist(), k.tolist(), strict=True))
    assert got == sorted(set(got))
    assert set(got) == _brute(cx, cy, d, box)
    assert len(got) > 0


def test_a_circle_touching_a_box_corner_is_paired() -> None:
    # the circle about (0, 0) of radius 5 passes through the corner (3, 4) of the box [3, 4] x [4, 5]
    box = np.array([[3.0, 4.0, 4.0, 5.0], [3.1, 4.1, 4.0, 5.0]])
    i, k = circle_box_pairs(np.array([0.0]), np.array([0.0]), np.array([5.0]), box)
    assert list(zip(i.tolist(), k.tolist(), strict=True)) == [(0, 0)]
    # a box wholly inside the circle does not cross it
    i, _ = circle_box_pairs(np.array([0.0]), np.array([0.0]), np.array([10.0]), box)
    assert len(i) == 0


def test_lexsort2_is_lexsort() -> None:
    from planner.deepstrike.boundary import _lexsort2

    rng = np.random.default_rng(3)
    for major_hi in (5, 40_000, 100_000):  # the 16-bit radix path and the general one
        major = rng.integers(0, major_hi, 5000)
        minor = rng.choice(rng.uniform(0, 6.3, 300), 5000)  # many ties
        assert np.array_equal(_lexsort2(minor, major), np.lexsort((minor, major)))
