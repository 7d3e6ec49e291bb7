"""The YAML loader on libyaml's parser (fast) gives the same data and the same refusals as on
PyYAML's pure-Python parser: the checks (duplicate keys, depth, alias expansion, YAML 1.2
numbers, long numbers) live in the composer and constructors, which both share."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from planner.errors import ScenarioError
from planner.io import files

ROOT = Path(__file__).resolve().parents[1]
YAML_FILES = sorted(p for p in [*ROOT.glob("scenarios/**/*.yaml"), *ROOT.glob("models/**/*.yaml")])

pytestmark = pytest.mark.skipif(not files.FAST_YAML, reason="PyYAML is built without libyaml here")


def _load(loader_class: type, text: str):
    loader = loader_class(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def _outcome(loader_class: type, text: str):
    try:
        return ("ok", _load(loader_class, text))
    except ScenarioError as exc:
        return ("refused", str(exc))
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark
        return ("malformed", (mark.line, mark.column) if mark else None)


def test_the_commands_use_libyaml():
    assert files._UniqueKeyLoader is files._CLoader


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_bundled_file_loads_the_same(path):
    text = path.read_text()
    fast = _load(files._CLoader, text)
    assert fast == _load(files._PythonLoader, text)
    assert fast == yaml.safe_load(text) or "e" in text  # YAML 1.2 floats (1e9) differ from PyYAML's 1.1 reading


REFUSED = {
    "duplicate key": "a: 1\nb: 2\na: 3\n",
    "deep nesting": "x: " + "[" * 80 + "]" * 80 + "\n",
    "deep via aliases": "a: &a " + "[" * 40 + "1" + "]" * 40 + "\nb: " + "[" * 30 + "*a" + "]" * 30 + "\n",
    "alias bomb": "a: &a [1,1,1,1,1,1,1,1,1,1]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcdefg", "bcdefgh", strict=True)),
    "long number": "x: " + "1" * 60 + "\n",
    "long float": "x: 1." + "1" * 60 + "\n",
    "infinite": "x: 1e999\n",
    "bad timestamp": "x: 2001-13-99\n",
    "bad tag": "x: !!int abc\n",
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_refusals_are_the_same(name):
    fast, slow = _outcome(files._CLoader, REFUSED[name]), _outcome(files._PythonLoader, REFUSED[name])
    assert fast[0] != "ok"  # refused by a check, or a duplicate key reported as malformed with its line
    assert fast == slow


def test_yaml_12_numbers():
    assert _load(files._CLoader, "a: 1e9\nb: 2.5e-3\nc: .5\nd: 7\ne: '1e9'\n") == {
        "a": 1e9, "b": 2.5e-3, "c": 0.5, "d": 7, "e": "1e9"}


@pytest.mark.parametrize("text", ["a: [1, 2\n", "a: b: c\n", "- a\nb: 1\n", "a:\n\t- 1\n", "{a: 1\n"])
def test_malformed_yaml_is_reported_at_the_same_line(text):
    fast, slow = _outcome(files._CLoader, text), _outcome(files._PythonLoader, text)
    assert fast[0] == slow[0] == "malformed"
    assert fast[1][0] == slow[1][0]  # the same line (libyaml may name another column)


_scalars = st.one_of(st.integers(-10**9, 10**9), st.floats(allow_nan=False, allow_infinity=False, width=32),
                     st.booleans(), st.none(), st.text(st.characters(codec="utf-8", exclude_categories=["Cs", "Cc"]),
                                                       max_size=12))
_docs = st.recursive(_scalars, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
    st.text("abcxyz_", min_size=1, max_size=6), kids, max_size=4), max_leaves=20)


@settings(max_examples=150, deadline=None)
@given(_docs, st.booleans())
def test_any_dumped_document_loads_the_same(doc, flow):
    text = yaml.safe_dump({"doc": doc}, default_flow_style=flow, allow_unicode=True)
    assert _outcome(files._CLoader, text) == _outcome(files._PythonLoader, text)


def test_the_fast_loader_is_faster_on_a_big_scenario():
    units = "".join(f"  - {{id: u{i}, models: [{{id: m{i}, x: {i * 0.5}, y: 1.25, facing: 90}}]}}\n"
                    for i in range(600))
    text = "units:\n" + units

    def best(loader_class: type) -> float:
        times = []
        for _ in range(3):
            start = time.perf_counter()
            _load(loader_class, text)
            times.append(time.perf_counter() - start)
        return min(times)

    assert _load(files._CLoader, text) == _load(files._PythonLoader, text)
    assert best(files._CLoader) * 2 < best(files._PythonLoader)
