"""Tabletop Simulator import/export (issue #16 part 4): planner/io/tts.py, planner import-tts / export-tts."""

from __future__ import annotations

import copy
import json
import math
import struct
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import ScenarioError
from planner.io.files import scenario_to_data
from planner.io.tts import (
    MAX_BAG_DEPTH,
    MAX_NAME,
    compact_scenario_data,
    facing_to_rot_y,
    from_table,
    parse_base_text,
    parse_save,
    rot_y_to_facing,
    scenario_to_tts,
    to_table,
    tts_to_scenario,
)
from planner.legality.checker import check_deployment
from planner.schema import Scenario
from planner.world import load_scenario, resolve

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted([*ROOT.glob("scenarios/*.yaml"), *ROOT.glob("scenarios/wh40k/*.yaml"),
                    *ROOT.glob("scenarios/wh40k/layouts/*.yaml")])  # layouts: pieces, walls, floors
HAND_MADE = ROOT / "tests" / "data" / "tts" / "hand-made-hh2.json"


def _verdicts(world) -> dict[str, tuple[bool, list[str]]]:
    """Per unit: legal, and the rules it breaks."""
    report = check_deployment(world)
    return {u.unit: (u.legal, sorted({f.rule for f in u.findings if not f.passed})) for u in report.units}


def _round_trip(scenario: Scenario, source: str = "") -> tuple[Scenario, list[dict[str, str]], list[str]]:
    save = json.loads(json.dumps(scenario_to_tts(scenario, source=source)))  # as written to a file
    imp = tts_to_scenario(parse_save(save, "save.json"), scenario.ruleset)
    # as import-tts writes it (only what differs from the defaults), read back as check reads it
    back = Scenario.model_validate(json.loads(json.dumps(compact_scenario_data(imp.scenario))))
    return back, imp.unmatched, imp.warnings


# --------------------------------------------------------------------------- conventions


def test_table_centre_is_the_origin_and_facing_is_clockwise_rot_y():
    assert to_table(0, 0, 72, 48) == (-36.0, -24.0)
    assert from_table(*to_table(12.5, 40.25, 72, 48), 72, 48) == (12.5, 40.25)
    # our facing 90 (towards +y, the far edge) is TTS forward (+z): rotY 0; facing 0 (+x) is rotY 90
    assert facing_to_rot_y(90) == 0.0
    assert facing_to_rot_y(0) == 90.0
    assert facing_to_rot_y(180) == 270.0
    assert rot_y_to_facing(90) == 0.0
    assert rot_y_to_facing(45) == 45.0  # clockwise from +z by 45 = counter-clockwise from +x by 45


@pytest.mark.parametrize("text, base", [
    ("Base: 32mm", {"diameter_mm": 32.0}),
    ("60x35mm", {"length_mm": 60.0, "width_mm": 35.0}),
    ("35 x 60 mm", {"length_mm": 60.0, "width_mm": 35.0}),
    ("25x25mm", {"diameter_mm": 25.0}),
    ("hull 4.6x3.6in", {"length_in": 4.6, "width_in": 3.6}),
    ("Unit: Tactical Squad", None),
])
def test_base_text(text, base):
    assert parse_base_text(text) == base


# --------------------------------------------------------------------------- bundled scenarios


def _rounded(data, places=6):
    """Data with every float rounded (the save keeps positions to 1e-9 inch)."""
    if isinstance(data, float):
        return round(data, places)
    if isinstance(data, dict):
        return {k: _rounded(v, places) for k, v in data.items()}
    if isinstance(data, list | tuple):
        return [_rounded(v, places) for v in data]
    return data


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.relative_to(ROOT / "scenarios").as_posix())
def test_bundled_scenario_round_trip_same_scenario_and_same_verdicts(path):
    world = load_scenario(path)
    back, unmatched, warnings = _round_trip(world.scenario, str(path))
    assert unmatched == [] and warnings == []
    assert _rounded(scenario_to_data(back)) == _rounded(scenario_to_data(world.scenario))
    try:
        before = _verdicts(load_scenario(path, require_positions=True))
    except ScenarioError as exc:  # a scenario to plan: units without positions, in both
        with pytest.raises(ScenarioError) as again:
            resolve(back, None, require_positions=True)
        assert again.value.detail == exc.detail
        return
    after = _verdicts(resolve(back, None, require_positions=True))
    assert after == before
    assert any(legal for legal, _ in before.values())


def test_moved_piece_in_tts_is_read_at_its_new_place():
    world = load_scenario(ROOT / "scenarios/long-edge-ravenguard-vs-ironhands.yaml")
    save = scenario_to_tts(world.scenario)
    sergeant = next(o for o in save["ObjectStates"]
                    if json.loads(o["GMNotes"] or "{}").get("unit") == "rg-tactical")
    sergeant["Transform"]["posZ"] += 2.5  # the player drags it 2.5" towards the enemy
    sergeant["Transform"]["rotY"] = 45.0
    imp = tts_to_scenario(parse_save(save, "save.json"), "hh2")
    m = next(u for a in imp.scenario.armies for u in a.units if u.id == "rg-tactical").models[0]
    assert (m.x, m.y, m.facing) == (56.0, 19.5, 45.0)


# --------------------------------------------------------------------------- property: round trip precision


def _f32(v: float) -> float:
    return struct.unpack("f", struct.pack("f", v))[0]


BASES = st.one_of(
    st.builds(lambda d: {"diameter_mm": d}, st.sampled_from([25, 28.5, 32, 40, 60, 100])),
    st.builds(lambda a, b: {"length_mm": max(a, b), "width_mm": min(a, b)},
              st.integers(25, 170), st.integers(25, 105)),
    st.builds(lambda a, b: {"length_in": a, "width_in": b}, st.floats(1, 12), st.floats(1, 8)),
)
MODELS = st.lists(st.tuples(st.floats(0, 72), st.floats(0, 48), st.floats(-360, 360), BASES), min_size=1,
                  max_size=8)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(models=MODELS, single_precision=st.booleans())
def test_round_trip_keeps_positions_within_a_hundredth_and_facings_within_a_tenth(models, single_precision):
    scenario = Scenario.model_validate({
        "ruleset": "hh2", "armies": [{"player": "red", "units": [{"id": "u", "models": [
            {"base": b, "type": "Infantry", "x": x, "y": y, "facing": f} for x, y, f, b in models]}]}]})
    save = json.loads(json.dumps(scenario_to_tts(scenario)))
    if single_precision:  # TTS writes the save again with single-precision floats
        for o in save["ObjectStates"]:
            o["Transform"] = {k: _f32(v) for k, v in o["Transform"].items()}
    back = tts_to_scenario(parse_save(save, "save.json"), "hh2").scenario
    got = back.armies[0].units[0].models
    assert len(got) == len(models)
    for (x, y, f, b), m in zip(models, got, strict=True):
        assert abs(m.x - x) <= 0.01 and abs(m.y - y) <= 0.01
        assert abs((m.facing - f + 180) % 360 - 180) <= 0.1
        assert m.base.model_dump(exclude={"shape"}) == pytest.approx(b)


# --------------------------------------------------------------------------- the hand-made save


def test_hand_made_save_nested_bags_terrain_lines_and_unmatched(tmp_path):
    out = tmp_path / "imported.yaml"
    rep = tmp_path / "report.json"
    res = CliRunner().invoke(app, ["import-tts", str(HAND_MADE), "--ruleset", "hh2", "--out", str(out),
                                   "--json", str(rep)])
    assert res.exit_code == 0, res.output
    data = yaml.safe_load(out.read_text())
    armies = {a["player"]: {u["id"]: u for u in a["units"]} for a in data["armies"]}
    assert set(armies) == {"red", "blue"}
    # Yellowscribe-style squad: grouped by its uuid tag, named from the Lua script, player from its zone
    tac = armies["red"]["tactical-squad"]
    assert tac["name"] == "Tactical Squad"
    assert [m["profile"] for m in tac["models"]] == ["legion-tactical-sergeant"] + ["legion-tactical-marine"] * 4
    assert [(m["x"], m["y"], m["facing"]) for m in tac["models"]][:2] == [(26.0, 6.0, 270.0), (27.5, 6.0, 270.0)]
    assert armies["red"]["rhino-armoured-carrier"]["models"][0]["profile"] == "legion-rhino"
    assert armies["blue"]["breacher-siege-squad"]["models"][0]["base"] == {"diameter_mm": 32.0}
    # bag in a bag: the unit is in Reserves, its rules from the unit bag, its player from the outer bag
    assault = armies["blue"]["assault-squad"]
    assert assault["setup"] == {"method": "reserves"}
    assert assault["rules"] == ["Deep Strike"] and assault["other_rules"] == ["Jump Unit"]
    assert all("x" not in m for m in assault["models"])
    # terrain: the block's scale, and the ruin's 8x6 footprint turned 30 degrees clockwise about (16, 28)
    terrain = {t["id"]: t for t in data["terrain"]}
    assert terrain["manufactorum-bastion"]["footprint"] == [[29, 26], [43, 26], [43, 32], [29, 32]]
    assert terrain["manufactorum-bastion"]["kind"] == "solid"
    c, s = math.cos(math.radians(-30)), math.sin(math.radians(-30))
    assert terrain["ruined-hab-block"]["footprint"][0] == pytest.approx([16 + -4 * c - -3 * s, 28 + -4 * s + -3 * c])
    assert data["deployment_zones"] == [
        {"id": "zone-red", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
        {"id": "zone-blue", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]}]
    assert data["objectives"] == [{"id": "centre", "x": 36, "y": 24}]
    report = json.loads(rep.read_text())
    assert [(u["object"], u["name"]) for u in report["unmatched"]] == [
        ("ObjectStates[13]", "Shell crater"), ("ObjectStates[15]", "Die_6"), ("ObjectStates[16]", "Game notes"),
        ("VectorLines[2]", "white line")]
    assert "Footprint" in report["unmatched"][0]["reason"]
    assert "not matched: ObjectStates[15] 'Die_6'" in res.output
    check = CliRunner().invoke(app, ["check", str(out)])
    assert check.exit_code == 0, check.output


def test_hand_made_save_with_a_map(tmp_path):
    save = json.loads(HAND_MADE.read_text())
    for o in save["ObjectStates"]:  # a 40k table: Intercessors and Infiltrators named in the descriptions
        if o["Nickname"] == "Breacher":
            o["Nickname"], o["Description"] = "Intercessor", "Unit: Intercessor Squad\nPlayer: blue"
            o["Transform"]["posZ"] = 18.0
    save["ObjectStates"] = [o for o in save["ObjectStates"] if o["Nickname"] in ("Intercessor", "Rhino")]
    save["ObjectStates"][0]["Description"] = "Unit: Rhino\nPlayer: red"
    save["ObjectStates"][0]["Transform"]["posZ"] = -18.0
    path = tmp_path / "40k.json"
    path.write_text(json.dumps(save))
    res = CliRunner().invoke(app, ["import-tts", str(path), "--ruleset", "wh40k10", "--map", "dawn-of-war-10in",
                                   "--json", "-"])
    assert res.exit_code == 0, res.output
    report = json.loads(res.stdout)
    zones = report["scenario"]["deployment_zones"]
    bounds = [(z["player"], min(p[1] for p in z["polygon"]), max(p[1] for p in z["polygon"])) for z in zones]
    assert bounds == [("red", 0, 10), ("blue", 34, 44)]  # Dawn of War, 10" deep; the first player gets zone a
    assert report["scenario"]["battlefield"] == {"width": 60, "depth": 44}
    assert not any("moved by" in w for w in report["warnings"])  # no scenario note: read on 60" x 44", not moved
    assert [u["reason"] for u in report["unmatched"]][:1] == ["a line on the table; the zones come from --map "
                                                               "dawn-of-war-10in"]
    bad = CliRunner().invoke(app, ["import-tts", str(path), "--ruleset", "wh40k10", "--map", "no-such-map"])
    assert bad.exit_code == 2 and "--map" in bad.output and "hammer-and-anvil" in bad.output


# --------------------------------------------------------------------------- command line on real files


@pytest.mark.parametrize("name, verdict", [("long-edge-ravenguard-vs-ironhands.yaml", 0),
                                           ("short-edge-chogorian-vs-berserkers.yaml", 1)])
def test_cli_export_import_check_gives_the_scenario_verdict(tmp_path, name, verdict):
    src = ROOT / "scenarios" / name
    save = tmp_path / "save.json"
    res = CliRunner().invoke(app, ["export-tts", str(src), "--out", str(save), "--json", str(tmp_path / "e.json")])
    assert res.exit_code == 0, res.output
    data = json.loads(save.read_text())
    assert data["ObjectStates"][0]["Nickname"] == "planner: scenario"
    assert any("ContainedObjects" in o for o in data["ObjectStates"])  # embarked and reserve units in bags
    model = next(o for o in data["ObjectStates"] if "unit:" in "".join(o["Tags"]))
    assert model["Description"].splitlines()[0].startswith("Unit: ") and "Base: " in model["Description"]
    back = tmp_path / "back.yaml"
    res = CliRunner().invoke(app, ["import-tts", str(save), "--ruleset", "hh2", "--out", str(back)])
    assert res.exit_code == 0, res.output
    assert CliRunner().invoke(app, ["check", str(src)]).exit_code == verdict
    assert CliRunner().invoke(app, ["check", str(back)]).exit_code == verdict


def test_cli_export_never_writes_over_its_input(tmp_path):
    src = tmp_path / "plan.yaml"
    src.write_text((ROOT / "scenarios/long-edge-ravenguard-vs-ironhands.yaml").read_text())
    before = src.read_bytes()
    res = CliRunner().invoke(app, ["export-tts", str(src), "--out", str(src)])
    assert res.exit_code == 2 and "refusing to overwrite an input" in res.output
    assert src.read_bytes() == before
    save = tmp_path / "s.json"
    CliRunner().invoke(app, ["export-tts", str(src), "--out", str(save)])
    res = CliRunner().invoke(app, ["import-tts", str(save), "--ruleset", "hh2", "--out", str(save)])
    assert res.exit_code == 2 and "refusing to overwrite an input" in res.output


# --------------------------------------------------------------------------- hostile input


def _save(objects: list, **top) -> dict:
    return {"SaveName": "x", "ObjectStates": objects, **top}


def _model(**kw) -> dict:
    o = {"Name": "Custom_Model", "Nickname": "Marine", "Description": "Unit: Squad\nPlayer: red\nBase: 32mm",
         "Transform": {"posX": 0.0, "posY": 1.0, "posZ": -18.0, "rotY": 0.0}}
    o.update(kw)
    return o


def _nested(levels: int) -> dict:
    inner: dict = _model()
    for _ in range(levels):
        inner = {"Name": "Bag", "Nickname": "bag", "ContainedObjects": [inner]}
    return inner


HOSTILE = [
    ("not-json", "{ObjectStates: [", "malformed JSON"),
    ("top-list", json.dumps([1, 2]), "must be an object"),
    ("no-objects", json.dumps({"SaveName": "x"}), "no ObjectStates list"),
    ("objects-not-list", json.dumps(_save({"a": 1})), "field ObjectStates: must be a list"),
    ("deep-json", "[" * 500 + "]" * 500, "nests more than 64 levels"),
    ("deep-bags", json.dumps(_save([_nested(MAX_BAG_DEPTH + 2)])), f"bags nest more than {MAX_BAG_DEPTH} levels"),
    ("nan-literal", json.dumps(_save([_model()])).replace('"posX": 0.0', '"posX": NaN'), "NaN"),
    ("nan-string", json.dumps(_save([_model(Transform={"posX": "NaN"})])),
     "field ObjectStates[0].Transform.posX: must be a number (value: 'NaN')"),
    ("string-number", json.dumps(_save([_model(Transform={"posZ": "12"})])),
     "ObjectStates[0].Transform.posZ: must be a number (value: '12')"),
    ("bool-number", json.dumps(_save([_model(Transform={"rotY": True})])), "Transform.rotY: must be a number"),
    ("huge-number", json.dumps(_save([_model(Transform={"posX": 1e300})])), "finite number of at most"),
    ("long-number", json.dumps(_save([_model()])).replace('"posX": 0.0', '"posX": 1' + "0" * 60), "characters"),
    ("tags-not-list", json.dumps(_save([_model(Tags="terrain")])), "ObjectStates[0].Tags: must be a list"),
    ("nickname-number", json.dumps(_save([_model(Nickname=5)])), "ObjectStates[0].Nickname: must be text"),
    ("line-points", json.dumps(_save([], VectorLines=[{"points3": [{"x": "a", "z": 0}]}])),
     "VectorLines[0].points3[0].x: must be a number"),
    ("duplicate-key", '{"ObjectStates": [], "ObjectStates": []}', "duplicate key"),
    ("bad-header-notes", json.dumps(_save([{"Name": "Notecard", "Nickname": "planner: scenario",
                                            "GMNotes": '{"planner": 1, "piece": "scenario", '}, _model()])),
     "ObjectStates[0].GMNotes: the planner's notes are not valid JSON"),
    ("bad-note-shape", json.dumps(_save([{"Name": "Notecard", "GMNotes": json.dumps(
        {"planner": 1, "piece": "scenario", "armies": 5})}])), "ObjectStates[0].GMNotes.armies: must be a list"),
    ("off-table", json.dumps(_save([_model(Transform={"posX": 500.0, "posZ": 0.0})])),
     "model centre far off the 72\" x 48\" battlefield (from the save's ObjectStates[0])"),
    ("bad-rule-type", json.dumps(_save([_model(Description="Unit: Squad\nPlayer: red\nBase: 5000mm")])),
     "ObjectStates[0]"),
]


@pytest.mark.parametrize("name, text, message", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_save_is_a_clear_input_error(tmp_path, name, text, message):
    path = tmp_path / f"{name}.json"
    path.write_text(text)
    res = CliRunner().invoke(app, ["import-tts", str(path), "--ruleset", "hh2", "--json", str(tmp_path / "r.json")])
    assert res.exit_code == 2, res.output
    assert str(path) in res.output and message in " ".join(res.output.split())
    assert "Traceback" not in res.output


def test_huge_save_is_refused_by_the_size_limit(tmp_path, monkeypatch):
    path = tmp_path / "huge.json"
    path.write_text(json.dumps(_save([_model() for _ in range(200)])))
    monkeypatch.setenv("PLANNER_MAX_INPUT_MB", "0.01")
    res = CliRunner().invoke(app, ["import-tts", str(path), "--ruleset", "hh2"])
    assert res.exit_code == 2 and "file is too large" in res.output


def test_too_many_objects(tmp_path, monkeypatch):
    import planner.io.tts as tts

    monkeypatch.setattr(tts, "MAX_OBJECTS", 50)
    save = _save([copy.deepcopy(_model()) for _ in range(51)])
    with pytest.raises(ScenarioError, match="more than 50 objects"):
        parse_save(save, "many.json")


def test_saved_object_file_of_a_bag(tmp_path):
    """A TTS "Saved Object" file (one object, here the player's bag) is read like a save."""
    save = json.loads(HAND_MADE.read_text())
    bag = next(o for o in save["ObjectStates"] if o["Nickname"] == "Blue reserves")
    path = tmp_path / "saved-object.json"
    path.write_text(json.dumps({"SaveName": "", "ObjectStates": [bag]}))
    res = CliRunner().invoke(app, ["import-tts", str(path), "--ruleset", "hh2", "--json", "-"])
    assert res.exit_code == 0, res.output
    army = json.loads(res.stdout)["scenario"]["armies"]
    assert [(a["player"], [u["id"] for u in a["units"]]) for a in army] == [("blue", ["assault-squad"])]


def test_two_pieces_of_the_same_name_get_their_own_ids():
    ruin = {"Name": "BlockSquare", "Nickname": "Ruin", "Tags": ["terrain"],
            "Transform": {"posX": 0.0, "posZ": 0.0, "scaleX": 4.0, "scaleZ": 4.0}}
    save = _save([ruin, {**ruin, "Transform": {"posX": 10.0, "posZ": 0.0, "scaleX": 4.0, "scaleZ": 4.0}},
                  _model()])
    imp = tts_to_scenario(parse_save(save, "two.json"), "hh2")
    assert [t.id for t in imp.scenario.terrain] == ["ruin", "ruin-2"]
    assert imp.scenario.terrain[1].footprint == [(44.0, 22.0), (48.0, 22.0), (48.0, 26.0), (44.0, 26.0)]
    assert "terrain[1]: a second piece with id 'ruin': renamed 'ruin-2'" in imp.warnings
    resolve(imp.scenario, None)


def test_public_api():
    import planner

    imp = planner.import_tts(HAND_MADE, "hh2")
    assert len(imp.unmatched) == 4 and len(imp.scenario.armies) == 2
    save = planner.export_tts(imp.scenario)
    assert save["ObjectStates"][0]["Nickname"] == "planner: scenario"


# --------------------------------------------------------------------------- a fresh user's findings


LONG_EDGE = ROOT / "scenarios/long-edge-ravenguard-vs-ironhands.yaml"


def test_cli_round_trip_of_a_scenario_with_goals_keeps_the_goal_kinds_and_the_verdict(tmp_path):
    """import-tts wrote goals without their ``kind`` (a default, left out), so check said exit 2."""
    data = yaml.safe_load(LONG_EDGE.read_text())
    data["goals"] = [{"kind": "near_point", "x": 36, "y": 24}, {"kind": "hidden", "weight": 2}]
    src = tmp_path / "with-goals.yaml"
    src.write_text(yaml.safe_dump(data))
    save, back = tmp_path / "save.json", tmp_path / "back.yaml"
    assert CliRunner().invoke(app, ["export-tts", str(src), "--out", str(save)]).exit_code == 0
    res = CliRunner().invoke(app, ["import-tts", str(save), "--ruleset", "hh2", "--out", str(back)])
    assert res.exit_code == 0, res.output
    assert yaml.safe_load(back.read_text())["goals"] == [{"kind": "near_point", "x": 36, "y": 24},
                                                         {"kind": "hidden", "weight": 2}]
    check = CliRunner().invoke(app, ["check", str(back)])
    assert check.exit_code == 0, check.output
    assert _verdicts(load_scenario(back)) == _verdicts(load_scenario(src))


def _long_edge_save() -> dict:
    return json.loads(json.dumps(scenario_to_tts(load_scenario(LONG_EDGE).scenario)))


def _objects_of(save: dict, unit: str) -> list[dict]:
    return [o for o in save["ObjectStates"] if f"unit:{unit}" in o.get("Tags", [])]


def _import(save: dict):
    return tts_to_scenario(parse_save(save, "save.json"), "hh2")


def _units(imp) -> dict[str, int]:
    return {u.id: len(u.models) for a in imp.scenario.armies for u in a.units}


@pytest.mark.parametrize("how", ["tag", "unit-line-id", "unit-line-name"])
def test_model_added_in_tts_joins_its_unit(how):
    """A model copied in TTS, its GM notes cleared, moved 1.3": it joins rg-tactical (it was a new
    one-model unit, and the legal table checked illegal)."""
    save = _long_edge_save()
    before = _units(_import(copy.deepcopy(save)))
    squad = _objects_of(save, "rg-tactical")
    last = max(squad, key=lambda o: o["Transform"]["posX"])  # the end of the line: room beside it
    new = copy.deepcopy(last)
    new["GMNotes"] = ""
    new["Transform"]["posX"] += 1.3
    if how != "tag":
        new["Tags"] = []
        name = "rg-tactical" if how == "unit-line-id" else next(
            u.name for a in load_scenario(LONG_EDGE).scenario.armies for u in a.units if u.id == "rg-tactical")
        new["Description"] = "\n".join(f"Unit: {name}" if ln.startswith("Unit:") else ln
                                       for ln in new["Description"].splitlines())
    save["ObjectStates"].append(new)
    imp = _import(save)
    assert _units(imp) == {**before, "rg-tactical": before["rg-tactical"] + 1}
    m = next(u for a in imp.scenario.armies for u in a.units if u.id == "rg-tactical").models[-1]
    assert m.x == pytest.approx(last["Transform"]["posX"] + 1.3 + 36)
    assert any("joins unit 'rg-tactical'" in w for w in imp.warnings)
    world = resolve(imp.scenario, None, require_positions=True)
    assert _verdicts(world)["rg-tactical"] == (True, [])


def test_model_with_unreadable_notes_and_a_unit_the_note_does_not_know_are_warned():
    save = _long_edge_save()
    one = _objects_of(save, "rg-tactical")[0]
    one["GMNotes"] = '{"planner": 1, "piece": "model", "unit": '  # cut short by a hand edit
    stranger = copy.deepcopy(_objects_of(save, "rg-breacher")[0])
    stranger["GMNotes"], stranger["Tags"] = "", []
    stranger["Description"] = "Unit: Lone Wolf\nPlayer: red\nBase: 40mm\nType: Infantry"
    stranger["Transform"]["posX"] = 20.0
    save["ObjectStates"].append(stranger)
    imp = _import(save)
    assert any(w.startswith(f"model {one_path(save, one)} ") and "not valid JSON" in w for w in imp.warnings)
    assert _units(imp)["rg-tactical"] == _units(_import(_long_edge_save()))["rg-tactical"]  # it joined by its tag
    assert _units(imp)["lone-wolf"] == 1
    assert any("unit 'lone-wolf'" in w and "not in the save's scenario note" in w for w in imp.warnings)


def one_path(save: dict, obj: dict) -> str:
    return f"ObjectStates[{save['ObjectStates'].index(obj)}]"


def _edited(line: str, notes: bool = False) -> tuple[dict, str]:
    """The save with one line of the first rg-tactical model's Description replaced (or added)."""
    save = _long_edge_save()
    o = _objects_of(save, "rg-tactical")[0]
    if not notes:
        o["GMNotes"] = ""
    key = line.split(":")[0] + ":"
    o["Description"] = "\n".join([*(ln for ln in o["Description"].splitlines() if not ln.startswith(key)), line])
    return save, one_path(save, o)


@pytest.mark.parametrize("line, message", [
    ("Base: banana", "not a base size"),
    ("Base: hull 0x-3in", "a base size must be a number more than 0"),
    ("Base: -32mm", "a base size must be a number more than 0"),
    ("Type: Dragon", "not a unit type; known: Infantry"),
])
def test_hand_edited_model_description_is_an_error_naming_object_field_and_value(line, message):
    save, path = _edited(line)
    key, value = (s.strip() for s in line.split(":", 1))
    with pytest.raises(ScenarioError) as exc:
        _import(save)
    assert exc.value.location == f"{path}.Description '{key}:'"
    assert exc.value.value == value and message in exc.value.detail


def _terrain_save(footprint: str | None, bagged: bool = False, transform: bool = True) -> dict:
    ruin = {"Name": "Custom_Model", "Nickname": "Ruin", "Tags": ["terrain"], "Description": "Kind: area",
            "Transform": {"posX": 0.0, "posZ": 0.0}}
    if footprint is not None:
        ruin["Description"] += f"\nFootprint: {footprint}"
    if not transform:
        del ruin["Transform"]
    piece: dict = {"Name": "Bag", "Nickname": "terrain bag", "ContainedObjects": [ruin]} if bagged else ruin
    return _save([piece, _model()])


@pytest.mark.parametrize("footprint", ["axb", "-6x4", "1e300x4", "0x4"])
def test_bad_terrain_footprint_is_an_error(footprint):
    with pytest.raises(ScenarioError) as exc:
        tts_to_scenario(parse_save(_terrain_save(footprint), "t.json"), "hh2")
    assert exc.value.location == "ObjectStates[0].Description 'Footprint:'" and exc.value.value == footprint


def test_good_terrain_footprint_and_bagged_terrain_is_not_matched():
    imp = tts_to_scenario(parse_save(_terrain_save("6x4"), "t.json"), "hh2")
    assert imp.scenario.terrain[0].footprint == [(33.0, 22.0), (39.0, 22.0), (39.0, 26.0), (33.0, 26.0)]
    imp = tts_to_scenario(parse_save(_terrain_save("6x4", bagged=True), "t.json"), "hh2")
    assert imp.scenario.terrain == []
    assert [(u["object"], u["name"]) for u in imp.unmatched] == [("ObjectStates[0].ContainedObjects[0]", "Ruin")]
    assert "in a bag" in imp.unmatched[0]["reason"]


@pytest.mark.parametrize("drop, where", [("Transform", "Transform"), ("posX", "Transform.posX"),
                                         ("posZ", "Transform.posZ")])
@pytest.mark.parametrize("what", ["model", "objective", "terrain"])
def test_object_on_the_table_without_a_position_is_an_error(drop, where, what):
    obj = {"model": _model(), "objective": {"Name": "BlockSquare", "Nickname": "Objective A", "Tags": ["objective"],
                                             "Transform": {"posX": 0.0, "posZ": 0.0}},
           "terrain": _terrain_save("6x4")["ObjectStates"][0]}[what]
    if drop == "Transform":
        del obj["Transform"]
    else:
        del obj["Transform"][drop]
    save = _save([obj] if what == "model" else [obj, _model()])
    with pytest.raises(ScenarioError) as exc:
        tts_to_scenario(parse_save(save, "p.json"), "hh2")
    assert exc.value.location == f"ObjectStates[0].{where}" and "needs a position" in exc.value.detail


def test_description_contradicting_the_planners_notes_is_warned_and_the_notes_win():
    save, path = _edited("Base: 40mm", notes=True)
    o = save["ObjectStates"][int(path.split("[")[1].rstrip("]"))]
    o["Description"] = o["Description"].replace("Player: ", "Player: blue-")
    imp = _import(save)
    base_w = [w for w in imp.warnings if w.startswith(f"model {path} ") and "'Base:'" in w]
    assert len(base_w) == 1 and "'40mm'" in base_w[0] and "32.0" in base_w[0]
    player_w = [w for w in imp.warnings if w.startswith(f"model {path} ") and "'Player:'" in w]
    assert len(player_w) == 1 and "'blue-" in player_w[0] and "its planner notes 'raven-guard'" in player_w[0]
    assert _units(imp) == _units(_import(_long_edge_save()))
    resolve(imp.scenario, None)


@pytest.mark.parametrize("command", ["import-tts", "export-tts"])
def test_json_report_on_an_input_error(tmp_path, command):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(_save([_model(Description="Unit: Squad\nPlayer: red\nBase: banana")])))
    rep = tmp_path / "report.json"
    args = ([command, str(bad), "--ruleset", "hh2"] if command == "import-tts"
            else [command, str(bad), "--out", str(tmp_path / "s.json")])
    res = CliRunner().invoke(app, [*args, "--json", str(rep)])
    assert res.exit_code == 2, res.output
    report = json.loads(rep.read_text())
    assert report["ok"] is False and report["exit_code"] == 2 and report["error"].startswith(str(bad))
    assert report["error"] in " ".join(res.output.split()) or report["error"].split(":")[0] in res.output


def test_very_long_unit_name_is_cut_with_a_warning():
    long = _model(Description="Unit: " + "W" * 100_000 + "\nPlayer: red\nBase: 32mm")
    second = copy.deepcopy(long)
    second["Transform"]["posX"] = 2.0
    ruin = _terrain_save("6x4")["ObjectStates"][0]
    ruin["Nickname"] = "R" * 5000
    imp = tts_to_scenario(parse_save(_save([long, second, ruin]), "n.json"), "hh2")
    unit = imp.scenario.armies[0].units[0]
    assert unit.name == "W" * MAX_NAME and len(unit.models) == 2
    assert imp.scenario.terrain[0].name == "R" * MAX_NAME
    cut = [w for w in imp.warnings if "cut to its first" in w]
    assert cut == [f"unit of ObjectStates[0]: a name of 100000 characters, cut to its first {MAX_NAME}",
                   f"terrain ObjectStates[2]: a name of 5000 characters, cut to its first {MAX_NAME}"]


def test_description_base_written_to_six_digits_is_not_a_contradiction():
    data = yaml.safe_load(LONG_EDGE.read_text())
    data["armies"][0]["units"][0]["models"][0]["base"] = {"diameter_mm": 32.5123456}
    scenario = Scenario.model_validate(data)
    save = json.loads(json.dumps(scenario_to_tts(scenario)))
    assert "Base: 32.5123mm" in json.dumps(save)
    assert tts_to_scenario(parse_save(save, "s.json"), "hh2").warnings == []


@pytest.mark.parametrize(("ruleset", "profile", "size"), [
    ("hh2", "legion-tactical-marine", (48, 48)), ("hh2", "legion-tactical-marine", (72, 48)),
    ("hh2", "legion-tactical-marine", (30, 72)), ("wh40k10", "sm-intercessor", (72, 48)),
    ("wh40k10", "sm-intercessor", (60, 44)), ("wh40k10", "sm-intercessor", (60, 48))])
def test_cli_round_trip_keeps_the_battlefield_whole(tmp_path, ruleset, profile, size):
    """export-tts then import-tts writes ``battlefield`` with both dimensions, even one equal to the
    schema's default (48"), so ``check`` of the imported file uses the same table and gives no
    default-table warning; under wh40k10 a missing 48" would be read as 44"."""
    src = tmp_path / "src.yaml"
    src.write_text(yaml.safe_dump({
        "ruleset": ruleset, "battlefield": {"width": size[0], "depth": size[1]},
        "deployment_zones": [{"id": "z", "player": "blue", "polygon": [[0, 0], [20, 0], [20, 20], [0, 20]]}],
        "armies": [{"player": "blue", "units": [{"id": "a", "models": [{"profile": profile, "x": 10, "y": 10}]}]}]}))
    save, back = tmp_path / "save.json", tmp_path / "back.yaml"
    res = CliRunner().invoke(app, ["export-tts", str(src), "--out", str(save)])
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["import-tts", str(save), "--ruleset", ruleset, "--out", str(back)])
    assert res.exit_code == 0, res.output
    assert yaml.safe_load(back.read_text())["battlefield"] == {"width": size[0], "depth": size[1]}
    world = load_scenario(str(back))
    assert (world.scenario.battlefield.width, world.scenario.battlefield.depth) == size
    assert world.battlefield_default == ()
    check = CliRunner().invoke(app, ["check", str(back)])
    assert check.exit_code == 0, check.output
    assert "warning: the scenario" not in check.output


def test_compact_data_keeps_the_battlefield_whole_in_its_place():
    scenario = Scenario.model_validate({"ruleset": "hh2", "name": "n", "battlefield": {"width": 48, "depth": 48}})
    data = compact_scenario_data(scenario)
    assert data["battlefield"] == {"width": 48, "depth": 48}
    assert list(data) == ["ruleset", "name", "battlefield"]
    assert "battlefield" not in compact_scenario_data(Scenario(ruleset="hh2"))  # none given: none written
