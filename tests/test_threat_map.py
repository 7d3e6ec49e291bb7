"""``planner threats --map``: the text map marks every legal arrival anchor ``o`` and the cell of
each of my models ``#``, for an Infiltrator (hh2) and a 10th-edition Deep Striker."""

from __future__ import annotations

import json

import pytest

from tests.test_adversary import _cli, _ds_scenario, marine, scenario


def _map_rows(stdout: str) -> list[str]:
    lines = stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("legal arrival anchors (o)")) + 1
    rows = []
    for line in lines[start:]:
        if not line or set(line) - set(".o#TX+"):
            break
        rows.append(line)
    return rows


def _cells(rows: list[str], ch: str, grid: float) -> set[tuple[float, float]]:
    ny = len(rows)
    return {(i * grid, (ny - 1 - r) * grid) for r, row in enumerate(rows) for i, c in enumerate(row) if c == ch}


@pytest.mark.parametrize("kind", ["infiltrate", "deep_strike"])
def test_threat_map_marks_legal_anchors_and_my_models(tmp_path, kind):
    grid = 1.0
    if kind == "infiltrate":
        data = scenario([{"id": "a", "type": "Infantry", "models": [marine(3, 2), marine(4.5, 2)]},
                         {"id": "b", "type": "Infantry", "models": [marine(20, 3)]}], terrain=[])
        mine = [(3, 2), (4.5, 2), (20, 3)]
        enemy = "inf"
    else:
        data = _ds_scenario("wh40k10", 12.0)
        mine = [(12.0, 9)]
        enemy = "ds"
    f, js = tmp_path / "s.json", tmp_path / "r.json"
    f.write_text(json.dumps(data))
    p = _cli("threats", str(f), "--enemy-unit", enemy, "--grid", str(grid), "--map", "--json", str(js))
    assert p.returncode == 0, p.stdout + p.stderr
    rows = _map_rows(p.stdout)
    bf = data["battlefield"]
    assert len(rows) == bf["depth"] + 1 and {len(r) for r in rows} == {bf["width"] + 1}
    expected_mine = {(i * grid, j * grid) for i in range(bf["width"] + 1) for j in range(bf["depth"] + 1)
                     if any(abs(x - i * grid) <= grid / 2 and abs(y - j * grid) <= grid / 2 for x, y in mine)}
    assert _cells(rows, "#", grid) == expected_mine
    rep = json.loads(js.read_text())
    legal = {(float(x), float(y)) for x, y in rep["legal_cells"]}
    assert legal, "the enemy has somewhere to arrive"
    best = tuple(rep["best"]["anchor"])
    # every legal anchor is drawn 'o', unless one of my models or the best placement ('X') sits on its cell
    assert _cells(rows, "o", grid) == legal - expected_mine - {best}
    assert _cells(rows, "X", grid) == {best}
