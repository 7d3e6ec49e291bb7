"""The generator's ordered collector: batches finish in any order, lines come out in index order,
and no more than 4 x slots batches are in flight or waiting at once."""

from __future__ import annotations

import random

import pytest
from typer.testing import CliRunner

from planner.cli import app
from planner.errors import ScenarioError
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


@pytest.mark.parametrize(("kinds", "ruleset", "words"), [
    (("legality",), "wh40k10", "legality labels need the deployment checker's scenes, which exist for hh2 only"),
    (("deepstrike", "puzzle"), "wh40k11", "puzzle labels need the deployment checker's scenes"),
    (("deepstrike",), "hh2", "a Deep Strike Assault (hh2) is not labelled"),
    (("legality",), "nope", "unknown ruleset; known: hh2"),
])
def test_a_job_refuses_a_ruleset_its_kinds_cannot_label_as_the_command_does(kinds, ruleset, words):
    """A library caller meets the CLI's refusal (the one check, engine.check_ruleset) at Job(),
    not a TypeError inside the generator at some item."""
    with pytest.raises(ScenarioError) as info:
        engine.Job(seed=1, kinds=kinds, ruleset=ruleset, params={})
    assert info.value.location == "ruleset" and info.value.value == ruleset
    assert words in info.value.detail
    cli_words = CliRunner().invoke(app, ["generate", "--count", "1", "--out", "/nonexistent/never-made",
                                         "--kind", ",".join(kinds), "--ruleset", ruleset])
    assert cli_words.exit_code == 2 and info.value.detail in " ".join(cli_words.output.split())


def test_a_job_keeps_the_rulesets_that_label():
    assert engine.Job(seed=1, kinds=("legality", "puzzle"), ruleset="hh2", params={}).ruleset == "hh2"
    assert engine.Job(seed=1, kinds=("deepstrike",), ruleset="wh40k10", params={}).kinds == ("deepstrike",)
