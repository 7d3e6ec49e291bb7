"""``planner deepstrike`` options and wording (a fresh user's findings): what each output says it is."""

from __future__ import annotations

import json

import yaml
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.deepstrike.scene import scene_data


def _run(tmp_path, ruleset: str, *args: str, n: int = 1):
    src = tmp_path / "ds.yaml"
    src.write_text(yaml.safe_dump(scene_data(ruleset, n=n, ovals=False)), encoding="utf-8")
    js = tmp_path / "ds.json"
    r = CliRunner().invoke(app, ["deepstrike", str(src), "--unit", "ds", *args, "--json", str(js)])
    data = json.loads(js.read_text()) if js.exists() and r.exit_code in (0, 1) else None
    return r, data


def test_best_says_it_is_over_the_grid(tmp_path):
    r, data = _run(tmp_path, "wh40k7", "--best", "--near", "40,24", "--within", "6", "--resolution", "6")
    assert r.exit_code == 0, r.output
    assert 'Best aim point over the 6" grid (--resolution)' in " ".join(r.output.split())
    assert data["best"]["grid_in"] == 6.0 and "grid" in data["best"]["search"]
