"""How an input error shows the offending value: whole up to ``VALUE_SHOWN_MAX`` characters of its repr
(a file path in a deep folder is shown whole), cut with "..." beyond."""

from __future__ import annotations

import pytest

from planner.errors import VALUE_SHOWN_MAX, ScenarioError
from planner.io.catalogue import load_catalogue


def test_a_long_path_is_shown_whole():
    path = "/home/player/" + "tournaments/2026/" * 8 + "list.yaml"  # 158 characters
    e = ScenarioError("no such file", file="x.yaml", location="--out", value=path)
    assert str(e) == f"x.yaml: field --out: no such file (value: {path!r})"


@pytest.mark.parametrize("n, cut", [(VALUE_SHOWN_MAX - 2, False), (VALUE_SHOWN_MAX - 1, True), (5000, True)])
def test_a_value_is_cut_only_beyond_the_limit(n, cut):
    value = "x" * n  # repr adds the two quotes
    shown = str(ScenarioError("bad", value=value)).removeprefix("bad (value: ").removesuffix(")")
    if cut:
        assert len(shown) == VALUE_SHOWN_MAX and shown.endswith("...") and shown[:-3] == repr(value)[:VALUE_SHOWN_MAX - 3]
    else:
        assert shown == repr(value) and len(shown) == VALUE_SHOWN_MAX


def test_the_catalogue_variable_names_a_deep_missing_folder_whole(monkeypatch, tmp_path):
    missing = tmp_path.joinpath(*["deep-folder-name"] * 6, "no-such-folder")
    assert len(str(missing)) > 100
    monkeypatch.setenv("PLANNER_MODELS", str(missing))
    with pytest.raises(ScenarioError, match="PLANNER_MODELS") as err:
        load_catalogue("hh2")
    assert f"(value: {str(missing)!r})" in str(err.value)
