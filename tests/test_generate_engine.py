"""The generator's ordered collector: batches finish in any order, lines come out in index order,
and no more than 4 x slots batches are in flight or waiting at once."""

from __future__ import annotations

import random

import pytest

from planner.generate import engine

JOB = engine.Job(seed=5, kinds=("legality",), ruleset=None, params={})


class ShuffledWorkers:
    """Runs nothing: a batch's 'lines' are its indices; finishes a random handle each time."""

    def __init__(self, slots: int, seed: int) -> None:
        self.slots = slots
        self.rng = random.Random(seed)
        self.live: dict[int, list[int]] = {}
        self.next = 0
        self.most = 0
        self.cancelled: list[int] = []

    def submit(self, job, batch):
        h = self.next
        self.next += 1
        self.live[h] = batch
        self.most = max(self.most, len(self.live))
        return h

    def wait_any(self, handles):
        assert handles
        return [self.rng.choice(handles)]

    def result(self, h):
        return [str(i) for i in self.live.pop(h)]

    def cancel(self, handles):
        self.cancelled += handles


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize(("start", "stop", "slots"), [(0, 1, 1), (0, 100, 2), (3, 77, 3), (10, 10, 2)])
def test_lines_come_out_in_index_order_whatever_finishes_first(seed, start, stop, slots):
    w = ShuffledWorkers(slots, seed)
    out = list(engine._in_order(w, JOB, start, stop))
    assert out == [str(i) for i in range(start, stop)]
    assert w.most <= 4 * slots
    assert not w.live and not w.cancelled


def test_stopping_early_cancels_what_is_in_flight():
    w = ShuffledWorkers(2, 0)
    it = engine._in_order(w, JOB, 0, 400)
    first = [next(it) for _ in range(3)]
    it.close()
    assert first == ["0", "1", "2"]
    assert w.cancelled and set(w.cancelled) == set(w.live)
