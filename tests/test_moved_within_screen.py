"""The Scout move test's two certificates (``moved_within``) never change a verdict: against the
exact farthest-point measure (``farthest_from``) on round, oval and hull bases, turned, moved
about the limit (hypothesis), and at the two certificates' own edges."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.geometry.measure import farthest_from, is_within_distance
from planner.geometry.shapes import footprint
from planner.legality.checks.distance import moved_within
from planner.schema import HullBase, OvalBase, RoundBase

BASES = st.one_of(
    st.builds(RoundBase, diameter_mm=st.sampled_from([25, 32, 40, 60])),
    st.builds(OvalBase, length_mm=st.sampled_from([60, 75, 90, 120]), width_mm=st.sampled_from([35, 42, 46])),
    st.builds(HullBase, length_in=st.sampled_from([3.5, 4.6, 7.0]), width_in=st.sampled_from([2.4, 3.6, 4.6])),
)


@settings(max_examples=400, deadline=None)
@given(base=BASES, f0=st.floats(0, 360), f1=st.floats(0, 360), angle=st.floats(0, 2 * math.pi),
       move=st.floats(0, 15), limit=st.sampled_from([6.0, 12.0]))
def test_the_certificates_give_the_exact_verdict(base, f0, f1, angle, move, limit):
    before = footprint(base, 30.0, 20.0, f0)
    after = footprint(base, 30.0 + move * math.cos(angle), 20.0 + move * math.sin(angle), f1)
    assert moved_within(before, after, limit) == is_within_distance(farthest_from(before, after), limit)


def test_at_the_edges_of_the_certificates():
    # a 75 x 42 mm oval (outer radius 1.476", inner 0.827") moved straight ahead along its length:
    # the accept certificate holds up to 12 - 1.476 + 0.827 = 11.350" of centre move, the reject one
    # from 12 + 1.476 - 0.827 = 12.650"; between them the exact measure decides (here the move itself)
    oval = OvalBase(length_mm=75, width_mm=42)
    before = footprint(oval, 0.0, 0.0, 0.0)
    for move, within in ((11.35, True), (11.999, True), (12.0, True), (12.0000005, True), (12.01, False),
                         (12.65, False), (13.0, False)):
        after = footprint(oval, move, 0.0, 0.0)
        assert farthest_from(before, after) == pytest.approx(move, abs=1e-9)
        assert moved_within(before, after, 12.0) is within, move
