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


def test_threats_exit_codes_as_the_readme_states_them(tmp_path):
    """fu14 #3 (README, threats): 0 a legal arrival exists and its best placement passes the
    checker; 3 no legal arrival on the grid, proven over the grid only (limit grid: a screen on that
    grid, best null on a legal deployment, not a proof over the rules); 1 when my units already on
    the table break a rule (status illegal_table)."""
    # 12" x 12": every point is within 12" of my marine and in its sight, so none is hidden: no legal arrival
    cases = {"screened": (scenario([{"id": "a", "type": "Infantry", "models": [marine(6, 2.5)]}], width=12, depth=12,
                                   terrain=[]), 3),
             "open": (scenario([{"id": "a", "type": "Infantry", "models": [marine(3, 2)]}], width=24, depth=30,
                               terrain=[]), 0),
             "illegal": (scenario([{"id": "a", "type": "Infantry", "models": [marine(3, 9)]}], width=24, depth=30,
                                  terrain=[]), 1)}  # my marine outside its 5" zone
    got = {}
    for name, (data, code) in cases.items():
        path, js = tmp_path / f"{name}.yaml", tmp_path / f"{name}.json"
        path.write_text(json.dumps(data))
        r = _cli("threats", str(path), "--enemy-unit", "inf", "--json", str(js))
        assert r.returncode == code, (name, r.stdout, r.stderr)
        got[name] = json.loads(js.read_text())
    assert got["screened"]["best"] is None and got["screened"]["deployment_legal"] is True
    assert got["screened"]["legal_anchors"] == 0 and got["screened"]["complete"] is True
    assert got["screened"]["limit"] == "grid"
    assert got["open"]["best"]["legal"] is True and got["open"]["legal_anchors"] > 0
    assert got["illegal"]["status"] == "illegal_table" and got["illegal"]["violations"]
