"""Importing army lists (``planner.io.roster``, ``planner import-roster``, ``roster:`` in scenarios).

The four public BattleScribe rosters live outside the repository (``../shared/data/rosters``);
their tests skip when the folder is missing. ``tests/assets/newrecruit-hh2.ros`` is a hand-written
roster in the shape of a New Recruit export; the malformed inputs are built in ``tmp_path``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import zipfile
from collections import Counter
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli import app
from planner.errors import ScenarioError
from planner.io.roster import (
    MAX_UNCOMPRESSED_BYTES,
    UnknownModelsError,
    army_to_data,
    deployment_rule,
    import_roster,
    parse_unit_type,
    read_roster,
    roster_to_army,
)
from planner.schema import (
    Army,
    HullBase,
    OvalBase,
    RoundBase,
    Scenario,
    SetupMethod,
    SpecialRule,
    SubType,
    UnitType,
    parse_rule,
)
from planner.world import load_scenario, resolve

ROOT = Path(__file__).resolve().parents[1]
ROSTERS = Path(__file__).resolve().parents[2] / "shared" / "data" / "rosters"
ASSETS = Path(__file__).resolve().parent / "assets"
NR_FIXTURE = ASSETS / "newrecruit-hh2.ros"

needs_rosters = pytest.mark.skipif(not ROSTERS.is_dir(), reason=f"no roster folder at {ROSTERS}")


def _roster(name: str) -> Path:
    p = ROSTERS / name
    if not p.is_file():
        pytest.skip(f"{p} missing")
    return p


def _units(army: Army) -> dict:
    return {u.id: u for u in army.units}


def _counts(unit) -> Counter:
    return Counter(m.profile or m.name for m in unit.models)


def _rules(unit) -> set[SpecialRule]:
    return {parse_rule(r)[0] for r in unit.rules}


def _zip(path: Path, members: dict[str, bytes]) -> Path:
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in members.items():
            z.writestr(name, data)
    return path


# --------------------------------------------------------------------------- the four real rosters

# per roster: unit count, {unit id: {catalogue profile: count}} for some units, {unit id: rules it must have}
EXPECTED = {
    "ravenguard.rosz": (9, {
        "tactical-squad-legion": {"legion-tactical-marine": 9, "legion-tactical-sergeant": 1},
        "breacher-siege-squad-legion": {"legion-breacher": 9, "legion-breacher-sergeant": 1},
        "arquitor-bombard": {"legion-arquitor": 2},
        "predator-strike-armoured-squadron-legion": {"legion-predator": 2},
        "sabre-strike-tank-squadron": {"legion-sabre": 2},
        "praetor-legion": {"legion-praetor-terminator": 1},
    }, {
        "tactical-squad-legion": {SpecialRule.INFILTRATE},
        "breacher-siege-squad-legion": {SpecialRule.INFILTRATE},
        "praetor-legion": {SpecialRule.INDEPENDENT_CHARACTER, SpecialRule.BULKY},
    }),
    "chogorian-brotherhood.rosz": (21, {
        "reconnaissance-squad-legion": {"legion-space-marine": 4, "legion-sergeant": 1},
        "assault-squad-legion": {"legion-assault-marine": 9, "legion-assault-sergeant": 1},
        "terminator-squad-legion": {"legion-terminator": 4, "legion-terminator-sergeant": 1},
        "techmarine-legion": {"legion-techmarine": 1, "legion-servo-automata": 1},
        "ebon-keshig-the": {"ws-kharash": 5},
    }, {
        "reconnaissance-squad-legion": {SpecialRule.SCOUT, SpecialRule.OUTFLANK},
        "assault-squad-legion": {SpecialRule.DEEP_STRIKE, SpecialRule.BULKY, SpecialRule.OUTFLANK},
        "falcons-claws-the": {SpecialRule.INFILTRATE},
        "qin-xa": {SpecialRule.INDEPENDENT_CHARACTER, SpecialRule.BULKY},
    }),
    "ironhands.rosz": (9, {
        "hussar-squadron-legion": {"legion-hussar": 4, "legion-hussar-sergeant": 1},
        "outrider-squad-legion": {"legion-outrider": 3},
        "jetbike-sky-seeker-squadron-legion": {"legion-sky-seeker": 3},
        "assault-squad-legion": {"legion-assault-marine": 9, "legion-assault-sergeant": 1},
    }, {
        "outrider-squad-legion": {SpecialRule.SCOUT, SpecialRule.BULKY},
        "jetbike-sky-seeker-squadron-legion": {SpecialRule.SCOUT, SpecialRule.DEEP_STRIKE},
        "assault-squad-legion": {SpecialRule.DEEP_STRIKE},
        "praetor-legion": {SpecialRule.INDEPENDENT_CHARACTER},
    }),
    "berserker-assault.rosz": (6, {
        "predator-strike-armoured-squadron-legion": {"legion-predator": 3},
        "tactical-squad-legion": {"legion-tactical-marine": 9, "legion-tactical-sergeant": 1},
        "tactical-squad-legion-2": {"legion-tactical-marine": 9, "legion-tactical-sergeant": 1},
        "assault-squad-legion": {"legion-assault-marine": 9, "legion-assault-sergeant": 1},
    }, {
        "assault-squad-legion": {SpecialRule.DEEP_STRIKE},
        "praetor-legion": {SpecialRule.INDEPENDENT_CHARACTER},
    }),
}
# Dedicated Transports nested under a unit: (transport unit id, its parent unit id, catalogue profile, capacity)
TRANSPORTS = {
    "ravenguard.rosz": [("rhino-armoured-carrier-legion", "tactical-squad-legion", "legion-rhino", 10),
                        ("land-raider-phobos", "breacher-siege-squad-legion", "legion-land-raider-phobos", 10)],
    "chogorian-brotherhood.rosz": [
        ("rhino-armoured-carrier-legion", "tactical-squad-legion", "legion-rhino", 10),
        ("rhino-armoured-carrier-legion-2", "heavy-support-squad-legion-multi-melta-heavy-flamer", "legion-rhino", 10)],
    "ironhands.rosz": [("rhino-armoured-carrier-legion", "tactical-squad-legion", "legion-rhino", 10),
                       ("land-raider-phobos", "breacher-siege-squad-legion", "legion-land-raider-phobos", 10)],
    "berserker-assault.rosz": [],
}


@needs_rosters
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_real_roster_imports(name):
    n_units, counts, rules = EXPECTED[name]
    army, warnings = import_roster(_roster(name), "hh2", "blue")
    units = _units(army)
    assert len(army.units) == n_units, sorted(units)
    for uid, want in counts.items():
        assert dict(_counts(units[uid])) == want, uid
    for uid, want in rules.items():
        assert want <= _rules(units[uid]), (uid, units[uid].rules)
    for tid, parent, profile, cap in TRANSPORTS[name]:
        t = units[tid]
        assert [m.profile for m in t.models] == [profile]
        assert {SpecialRule.DEDICATED_TRANSPORT, SpecialRule.TRANSPORT} <= _rules(t)
        assert t.transport_capacity == cap
        assert t.type is UnitType.VEHICLE and SubType.TRANSPORT in t.subtypes
        assert parent in t.name
        # the transport is not a model of the squad it was nested under
        assert profile not in _counts(units[parent])
        assert units[parent].setup.method is SetupMethod.DEPLOYMENT_ZONE
    assert not any("catalogue says" in w for w in warnings), warnings


@needs_rosters
def test_ravenguard_details():
    army, _ = import_roster(_roster("ravenguard.rosz"), "hh2", "raven-guard")
    units = _units(army)
    tac = units["tactical-squad-legion"]
    assert tac.rules == ["Infiltrate (By Wing and Talon)"]  # decorated name kept as written
    assert tac.type is UnitType.INFANTRY
    assert "Fleet (By Wing and Talon)" in tac.other_rules
    assert units["achilles-alpha-pattern-land-raider"].transport_capacity == 6  # a transport, not dedicated
    assert SpecialRule.DEDICATED_TRANSPORT not in _rules(units["achilles-alpha-pattern-land-raider"])
    sabres = units["sabre-strike-tank-squadron"]  # "Tank, Fast" on a Vehicle profile
    assert sabres.type is UnitType.VEHICLE and {SubType.TANK, SubType.FAST} <= set(sabres.subtypes)
    # 'Infiltrate' of the whole Legion (a force-level upgrade) is not given to every unit
    assert SpecialRule.INFILTRATE not in _rules(units["praetor-legion"])


@needs_rosters
def test_ironhands_bulky_and_types():
    army, _ = import_roster(_roster("ironhands.rosz"), "hh2", "iron-hands")
    units = _units(army)
    hussars = units["hussar-squadron-legion"]
    assert "Bulky (3)" in hussars.rules  # "Very Bulky"
    assert hussars.type is UnitType.CAVALRY and SubType.BIKE in hussars.subtypes  # "Bike"
    assault = units["assault-squad-legion"]
    assert assault.type is UnitType.INFANTRY and SubType.JUMP in assault.subtypes  # "Jump Infantry"
    seekers = units["jetbike-sky-seeker-squadron-legion"]
    assert seekers.type is UnitType.CAVALRY and SubType.JETBIKE in seekers.subtypes


@needs_rosters
def test_embark_puts_the_squad_in_its_dedicated_transport():
    army, warnings = import_roster(_roster("ravenguard.rosz"), "hh2", "raven-guard", embark=True)
    units = _units(army)
    tac = units["tactical-squad-legion"]
    assert tac.setup.method is SetupMethod.EMBARKED and tac.setup.in_ == "rhino-armoured-carrier-legion"
    assert units["breacher-siege-squad-legion"].setup.in_ == "land-raider-phobos"
    assert units["praetor-legion"].setup.method is SetupMethod.DEPLOYMENT_ZONE
    # the roster is HH1-era data (game system "Warhammer 30,000 - The Horus Heresy"), and its Breachers'
    # troopers have no profile: only those two are said
    assert len(warnings) == 2 and warnings[0].startswith("edition: ") and "ca571888" in warnings[0], warnings
    assert warnings[1].startswith("breacher-siege-squad-legion: 9 of 10 models have no characteristics"), warnings
    world = resolve(Scenario(ruleset="hh2", armies=[army.model_copy(update={
        "units": [u.model_copy(update={"place": True}) if u.setup.on_battlefield else u for u in army.units]})]))
    assert world.units["rhino-armoured-carrier-legion"].embarked == ["tactical-squad-legion"]


@needs_rosters
@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_imported_army_resolves(name):
    """Catalogue profiles, types and rules of every imported unit resolve (units to be placed)."""
    army, _ = import_roster(_roster(name), "hh2", "blue", embark=True, place=True)
    world = resolve(Scenario(ruleset="hh2", armies=[army]))
    assert len(world.units) == EXPECTED[name][0]
    assert all(m.type is not None for u in world.units.values() for m in u.models)


# --------------------------------------------------------------------------- planning an imported army


def _plan_scenario(army: Army) -> dict:
    enemy = {"player": "red", "units": [
        {"id": "enemy-squad", "type": "Infantry",
         "models": [{"base": {"diameter_mm": 32}, "x": 30 + 1.5 * i, "y": 6} for i in range(5)]},
        {"id": "enemy-tank", "type": "Vehicle", "models": [{"base": {"length_in": 4.6, "width_in": 3.6}, "x": 50,
                                                             "y": 6}]},
    ]}
    return {
        "ruleset": "hh2",
        "battlefield": {"width": 72, "depth": 48},
        "deployment_zones": [
            {"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
            {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
        ],
        "terrain": [{"id": "bastion", "kind": "solid", "traits": ["blocks_line_of_sight"],
                     "footprint": [[30, 22], [42, 22], [42, 26], [30, 26]]}],
        "goals": [{"kind": "near_point", "x": 36, "y": 24}],
        "armies": [enemy, army_to_data(army)],
    }


@pytest.mark.slow
@needs_rosters
@pytest.mark.parametrize("roster", ["ravenguard.rosz", "chogorian-brotherhood.rosz", "ironhands.rosz",
                                    "berserker-assault.rosz"])
def test_each_imported_army_deploys_legally_through_the_planner(tmp_path, roster):
    """Each shared roster imports with no unknown model, no assumed base and no base rule (every model
    by its catalogue entry); every unit (all set up in the deployment zone) is planned by ``planner
    plan`` against the deployed enemy, and ``planner check`` accepts the written plan (exit 0)."""
    army, warnings = import_roster(_roster(roster), "hh2", "blue", place=True)
    # HH1-era data, and troopers without a profile (the Breachers): only those
    assert not [w for w in warnings if not w.startswith("edition: ") and "no characteristics profile" not in w], warnings
    assert all(m.profile for u in army.units for m in u.models)  # no assumed base, no base rule
    scenario = tmp_path / "scenario.yaml"
    scenario.write_text(yaml.safe_dump(_plan_scenario(army), sort_keys=False), encoding="utf-8")
    planned, report = tmp_path / "plan.yaml", tmp_path / "plan.json"
    res = CliRunner().invoke(app, ["plan", str(scenario), "--out", str(planned), "--time-limit", "5",
                                   "--workers", "2", "--seed", "0", "--json", str(report)])
    assert res.exit_code == 0, res.output
    assert json.loads(report.read_text(encoding="utf-8"))["status"] in ("optimal", "feasible")
    world = load_scenario(planned)
    blue = [u for u in world.units.values() if u.player == "blue"]
    assert {u.id for u in blue} == {u.id for u in army.units}  # every imported unit, in full
    for u in blue:
        assert u.on_battlefield and all(m.x is not None and m.y is not None for m in u.models), u.id
    res = CliRunner().invoke(app, ["check", str(planned), "--json", str(tmp_path / "check.json")])
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "check.json").read_text(encoding="utf-8"))["legal"] is True


# --------------------------------------------------------------------------- New Recruit fixture


def test_new_recruit_fixture_imports():
    roster = read_roster(NR_FIXTURE)
    assert roster.generator.startswith("New Recruit")
    army, warnings = roster_to_army(roster, "hh2", "blue", embark=True)
    assert not warnings
    units = _units(army)
    assert list(units) == ["tactical-squad-legion", "rhino-armoured-carrier-legion", "assault-squad-legion",
                           "outrider-squad-legion", "praetor-legion", "sabre-strike-tank-squadron",
                           "tactical-squad-legion-2"]
    tac = units["tactical-squad-legion"]
    assert dict(_counts(tac)) == {"legion-tactical-marine": 7, "legion-tactical-sergeant": 1}
    assert tac.rules == ["Infiltrate (By Wing and Talon)"]
    assert tac.setup.method is SetupMethod.EMBARKED and tac.setup.in_ == "rhino-armoured-carrier-legion"
    rhino = units["rhino-armoured-carrier-legion"]
    assert rhino.rules == ["Dedicated Transport", "Transport"] and rhino.transport_capacity == 10
    assault = units["assault-squad-legion"]
    assert _rules(assault) == {SpecialRule.BULKY, SpecialRule.DEEP_STRIKE}  # Deep Strike as a category
    assert SubType.JUMP in assault.subtypes
    out = units["outrider-squad-legion"]
    assert out.rules == ["Bulky (3)", "Scout"]  # Very Bulky; the hidden Outflank rule is not taken
    assert out.type is UnitType.CAVALRY
    praetor = units["praetor-legion"]
    assert [m.profile for m in praetor.models] == ["legion-praetor-terminator"]
    assert _rules(praetor) == {SpecialRule.INDEPENDENT_CHARACTER, SpecialRule.BULKY}
    assert dict(_counts(units["sabre-strike-tank-squadron"])) == {"legion-sabre": 2}
    # no Unit Type characteristic at all: the type comes from the unit's category
    assert units["tactical-squad-legion-2"].type is UnitType.INFANTRY
    # the force-level "Infiltrate" (an army-wide upgrade) is not given to units
    assert SpecialRule.INFILTRATE not in _rules(units["assault-squad-legion"])


def test_new_recruit_and_battlescribe_import_the_same_way(tmp_path):
    text = NR_FIXTURE.read_text(encoding="utf-8")
    bs_text = text.replace(' generatedBy="https://www.newrecruit.eu"', "")
    assert bs_text != text
    bs = tmp_path / "battlescribe.ros"
    bs.write_text(bs_text, encoding="utf-8")
    rosz = _zip(tmp_path / "zipped.rosz", {"Test Strike Force.ros": text.encode()})
    nr_army, _ = import_roster(NR_FIXTURE, "hh2", "blue")
    assert read_roster(bs).generator.startswith("BattleScribe")
    for other in (bs, rosz):
        army, _ = import_roster(other, "hh2", "blue")
        assert army_to_data(army)["units"] == army_to_data(nr_army)["units"]


def test_cli_writes_an_army_that_a_scenario_accepts(tmp_path):
    out = tmp_path / "army.yaml"
    res = CliRunner().invoke(app, ["import-roster", str(NR_FIXTURE), "--ruleset", "hh2", "--player", "blue",
                                   "--embark", "--out", str(out)])
    assert res.exit_code == 0, res.output
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    army = Army.model_validate(data)
    assert army.player == "blue" and len(army.units) == 7
    # without --out the YAML goes to standard output
    res = CliRunner().invoke(app, ["import-roster", str(NR_FIXTURE), "--player", "blue"])
    assert res.exit_code == 0
    assert Army.model_validate(yaml.safe_load(res.stdout)).units[0].id == "tactical-squad-legion"
    # --json - carries the army and the counts
    res = CliRunner().invoke(app, ["import-roster", str(NR_FIXTURE), "--player", "blue", "--json", "-"])
    assert res.exit_code == 0
    report = json.loads(res.stdout)
    assert report["units"] == 7 and report["models"] == 25 and report["army"]["player"] == "blue"


# --------------------------------------------------------------------------- unknown models


def _unknown_fixture(tmp_path: Path) -> Path:
    text = NR_FIXTURE.read_text(encoding="utf-8")
    text = text.replace('name="Space Marine Outrider, Legion"', 'name="Mystery Outrider"')
    text = text.replace('name="Legion Space Marine Outrider"', 'name="Mystery Outrider"')
    text = text.replace('name="Sabre Strike Tank"', 'name="Prototype Tank"')
    p = tmp_path / "unknown.ros"
    p.write_text(text, encoding="utf-8")
    return p


def test_models_not_in_the_catalogue_get_the_base_rule_of_their_type(tmp_path):
    """A bike and a tank the catalogue does not name get the hh2 base rules of their unit type,
    each named once in a warning with the model's place."""
    path = _unknown_fixture(tmp_path)
    army, warnings = import_roster(path, "hh2", "blue")
    units = _units(army)
    out = units["outrider-squad-legion"]
    assert [(m.name, m.base) for m in out.models] == [("Mystery Outrider", OvalBase(length_mm=75, width_mm=42))] * 3
    assert out.type is UnitType.CAVALRY and SubType.BIKE in out.subtypes
    tanks = units["sabre-strike-tank-squadron"].models
    assert [m.base for m in tanks] == [HullBase(length_in=6.0, width_in=4.2)] * 2
    ruled = [w for w in warnings if "from base rule" in w]
    assert len(ruled) == 2, warnings
    assert any(w.startswith("force[0]/selection 'Outrider Squad, Legion'/selection 'Mystery Outrider'") and
               "oval 75 x 42 mm from base rule hh2-rule-bike" in w for w in ruled), ruled
    assert any("'Prototype Tank'" in w and "hull 6 x 4.2 in from base rule hh2-rule-vehicle" in w for w in ruled)


def _no_rule_fixture(tmp_path: Path) -> Path:
    """Two models no entry names and no base rule covers (a Knight and a Titan with unknown names),
    the Titan in two selections."""
    text = _unknown_fixture(tmp_path).read_text(encoding="utf-8")
    text = text.replace("<characteristic name=\"Unit Type\">Bike</characteristic>",
                        "<characteristic name=\"Unit Type\">Knight</characteristic>")
    text = text.replace('typeName="Vehicle"', 'typeName="Titan"').replace("Tank, Fast", "Titan")
    text = text.replace('name="Prototype Tank"', 'name="Prototype Engine"')
    p = tmp_path / "norule.ros"
    p.write_text(text, encoding="utf-8")
    return p


def test_models_no_rule_covers_are_listed_once_with_their_place(tmp_path):
    path = _no_rule_fixture(tmp_path)
    with pytest.raises(UnknownModelsError) as exc:
        import_roster(path, "hh2", "blue")
    msg = str(exc.value)
    assert "2 model(s) not in the hh2 catalogue" in msg and "no base rule covers them" in msg
    lines = [ln.strip() for ln in msg.splitlines()[1:]]
    assert lines == [
        "force[0]/selection 'Outrider Squad, Legion'/selection 'Mystery Outrider': model 'Mystery Outrider'",
        "force[0]/selection 'Sabre Strike Tank Squadron'/selection 'Prototype Engine': model 'Prototype Engine' "
        "(and 1 more selection(s))",
    ], msg
    assert "--default-base" in msg
    assert [(m["model"], m["count"]) for m in exc.value.models] == [("Mystery Outrider", 1), ("Prototype Engine", 2)]


def test_cli_json_report_on_unknown_models(tmp_path):
    """--json writes the error report too (exit 2), each unknown model once with its place."""
    path = _no_rule_fixture(tmp_path)
    report = tmp_path / "report.json"
    res = CliRunner().invoke(app, ["import-roster", str(path), "--player", "blue", "--json", str(report)])
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output
    data = json.loads(report.read_text(encoding="utf-8"))
    assert data["ok"] is False and data["exit_code"] == 2 and "not in the hh2 catalogue" in data["error"]
    assert [m["place"] for m in data["unknown_models"]] == [
        "force[0]/selection 'Outrider Squad, Legion'/selection 'Mystery Outrider'",
        "force[0]/selection 'Sabre Strike Tank Squadron'/selection 'Prototype Engine'"]
    res = CliRunner().invoke(app, ["import-roster", str(path), "--player", "blue", "--json", "-"])
    assert res.exit_code == 2 and json.loads(res.stdout)["unknown_models"][1]["count"] == 2


def test_unit_listing_its_own_model_has_no_phantom(tmp_path):
    """A unit that carries its own profile and also lists its model (HH2 data: the unit Angron and
    its model Angron) is one model, not two."""
    text = NR_FIXTURE.read_text(encoding="utf-8")
    start = text.index('<selection id="s6a"')
    unit_start = text.rindex("<selection ", 0, start)
    head = text[unit_start:text.index(">", unit_start) + 1]
    profile = ('<profiles><profile id="px" name="Tactical Squad" typeName="Unit" hidden="false"><characteristics>'
               '<characteristic name="Unit Type">Infantry</characteristic></characteristics></profile></profiles>')
    p = tmp_path / "own-profile.ros"
    p.write_text(text.replace(head, head + profile, 1), encoding="utf-8")
    before, _ = import_roster(NR_FIXTURE, "hh2", "blue")
    after, _ = import_roster(p, "hh2", "blue")
    uid = next(u.id for u in before.units if any(m.profile == "legion-tactical-marine" for m in u.models))
    assert len(_units(after)[uid].models) == len(_units(before)[uid].models)
    assert not any(m.name == "Tactical Squad" for m in _units(after)[uid].models)


def test_edition_check_warns_and_strict_refuses(tmp_path):
    """A roster of the HH1 data is imported with a warning; with --strict it is exit 2 (JSON report too)."""
    text = NR_FIXTURE.read_text(encoding="utf-8").replace(
        'gameSystemId="28d4-bd2e-4858-ece6" gameSystemName="Horus Heresy"',
        'gameSystemId="ca571888-56a9-c58e-ddaf-54f4713538bc" gameSystemName="Warhammer 30,000 - The Horus Heresy" '
        'gameSystemRevision="135"')
    p = tmp_path / "hh1.ros"
    p.write_text(text, encoding="utf-8")
    _, warnings = import_roster(p, "hh2", "blue")
    assert [w for w in warnings if w.startswith("edition: ")] == [
        "edition: the roster was written with the game system 'Warhammer 30,000 - The Horus Heresy' revision 135 "
        "(id ca571888-56a9-c58e-ddaf-54f4713538bc), not with the Horus Heresy 2.0 (Age of Darkness) data (game "
        "system 'horus heresy (2022)'); its unit types, rules and model names are read as if they were Horus Heresy "
        "2.0 (Age of Darkness)'s: check the imported army"]
    with pytest.raises(ScenarioError) as exc:
        import_roster(p, "hh2", "blue", strict=True)
    assert exc.value.location == "roster.gameSystemId" and "(--strict)" in str(exc.value)
    res = CliRunner().invoke(app, ["import-roster", str(p), "--player", "blue"])
    assert res.exit_code == 0 and "warning: edition:" in res.stderr
    report = tmp_path / "r.json"
    res = CliRunner().invoke(app, ["import-roster", str(p), "--player", "blue", "--strict", "--json", str(report)])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "roster.gameSystemId" in json.loads(report.read_text(encoding="utf-8"))["error"]
    # the HH2 data's own id passes without a word
    _, warnings = import_roster(NR_FIXTURE, "hh2", "blue", strict=True)
    assert not any(w.startswith("edition: ") for w in warnings)


def test_default_base_marks_the_assumed_models(tmp_path):
    path = _no_rule_fixture(tmp_path)
    army, warnings = import_roster(path, "hh2", "blue", default_base_mm=32)
    units = _units(army)
    out = units["outrider-squad-legion"]
    assert all(m.base is not None and m.base.diameter_mm == 32 and m.name == "Mystery Outrider" for m in out.models)
    assert "base assumed 32 mm (not in catalogue): Mystery Outrider" in out.other_rules
    assert out.type is UnitType.KNIGHT
    assert units["sabre-strike-tank-squadron"].type is UnitType.TITAN
    assert len([w for w in warnings if "not in the hh2 catalogue" in w]) == 2  # once per model name
    resolve(Scenario(ruleset="hh2", armies=[army.model_copy(update={
        "units": [u.model_copy(update={"place": True}) for u in army.units]})]))

    res = CliRunner().invoke(app, ["import-roster", str(path), "--player", "blue", "--default-base", "32mm"])
    assert res.exit_code == 0, res.output
    assert "warning:" in res.stderr and "Mystery Outrider" in res.stderr


def test_a_model_without_any_unit_type_is_an_error(tmp_path):
    text = NR_FIXTURE.read_text(encoding="utf-8").replace(
        '<selection id="s6a" name="Tactical Space Marines, Legion"', '<selection id="s6a" name="Odd Servitor"')
    text = text.replace('<category id="c10" name="Infantry" primary="false"/>', "")
    p = tmp_path / "notype.ros"
    p.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        import_roster(p, "hh2", "blue", default_base_mm=25)
    assert "no unit type for model 'Odd Servitor'" in str(exc.value)
    assert "force[0]/selection 'Tactical Squad, Legion'/selection 'Odd Servitor'" in str(exc.value)


# --------------------------------------------------------------------------- messy names


@pytest.mark.parametrize("text, profile, unit_type, subs", [
    ("Infanty (Character)", "Unit", UnitType.INFANTRY, {SubType.CHARACTER}),
    ("Infantry", "Unit", UnitType.INFANTRY, set()),
    ("Jump Infantry", "Unit", UnitType.INFANTRY, {SubType.JUMP}),
    ("Jump Infantry (Character)", "Unit", UnitType.INFANTRY, {SubType.JUMP, SubType.CHARACTER}),
    ("Bike", "Unit", UnitType.CAVALRY, {SubType.BIKE}),
    ("Bike (Character)", "Unit", UnitType.CAVALRY, {SubType.BIKE, SubType.CHARACTER}),
    ("Jetbike", "Unit", UnitType.CAVALRY, {SubType.JETBIKE}),
    ("Vehicle (Tank, Transport)", "Vehicle", UnitType.VEHICLE, {SubType.TANK, SubType.TRANSPORT}),
    ("Tank, Fast", "Vehicle", UnitType.VEHICLE, {SubType.TANK, SubType.FAST}),
    ("Tank, Transport", "", UnitType.VEHICLE, {SubType.TANK, SubType.TRANSPORT}),
    ("Dreadnought", "Unit", UnitType.DREADNOUGHT, set()),
    ("Monstrous Creature (Character)", "Unit", UnitType.MONSTROUS, {SubType.CHARACTER}),
    ("Infantry (Close-order)", "Unit", UnitType.INFANTRY, {SubType.CLOSE_ORDER}),
])
def test_unit_type_spellings(text, profile, unit_type, subs):
    info = parse_unit_type(text, profile_type=profile)
    assert info.type is unit_type
    assert info.subtypes == subs


@pytest.mark.parametrize("text, shown, rule, value", [
    ("Infiltrate", "Infiltrate", SpecialRule.INFILTRATE, None),
    ("Infiltrate (By Wing and Talon)", "Infiltrate (By Wing and Talon)", SpecialRule.INFILTRATE, None),
    ("Scout", "Scout", SpecialRule.SCOUT, None),
    ("Deep Strike", "Deep Strike", SpecialRule.DEEP_STRIKE, None),
    ("Outflank", "Outflank", SpecialRule.OUTFLANK, None),
    ("Independent Character", "Independent Character", SpecialRule.INDEPENDENT_CHARACTER, None),
    ("Bulky", "Bulky", SpecialRule.BULKY, 2),
    ("Very Bulky", "Bulky (3)", SpecialRule.BULKY, 3),
    ("Bulky (4)", "Bulky (4)", SpecialRule.BULKY, 4),
])
def test_deployment_rule_names(text, shown, rule, value):
    assert deployment_rule(text) == (shown, rule, value)


@pytest.mark.parametrize("text", ["Fleet (By Wing and Talon)", "Preferred Enemy : Marked for Death", "Melta", ""])
def test_other_rules_are_not_deployment_rules(text):
    assert deployment_rule(text) is None


# --------------------------------------------------------------------------- malformed input through the CLI

BILLION_LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lolz [
 <!ENTITY lol "lol">
 <!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
 <!ENTITY lol4 "&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;&lol3;">
 <!ENTITY lol5 "&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;&lol4;">
 <!ENTITY lol6 "&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;&lol5;">
 <!ENTITY lol7 "&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;&lol6;">
 <!ENTITY lol8 "&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;&lol7;">
 <!ENTITY lol9 "&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;&lol8;">
]>
<roster name="&lol9;" gameSystemName="Horus Heresy"><forces/></roster>
"""


def _fixture_bytes() -> bytes:
    return NR_FIXTURE.read_bytes()


def _truncated_zip(tmp: Path) -> Path:
    whole = _zip(tmp / "whole.rosz", {"army.ros": _fixture_bytes()}).read_bytes()
    p = tmp / "truncated.rosz"
    p.write_bytes(whole[: len(whole) // 2])
    return p


def _write(tmp: Path, name: str, data: bytes) -> Path:
    p = tmp / name
    p.write_bytes(data)
    return p


def _zip_bomb(tmp: Path) -> Path:
    p = tmp / "bomb.rosz"
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("army.ros", "w", force_zip64=True) as fh:
            chunk = b"\0" * (1 << 20)
            for _ in range(MAX_UNCOMPRESSED_BYTES // len(chunk) + 1):
                fh.write(chunk)
    return p


MALFORMED = {
    "truncated zip": (_truncated_zip, "not a valid .rosz archive"),
    "billion laughs": (lambda t: _write(t, "laughs.ros", BILLION_LAUGHS), "refusing unsafe XML"),
    "empty roster": (lambda t: _write(t, "empty.ros", b'<?xml version="1.0"?><roster name="x" '
                                      b'gameSystemName="Warhammer 30,000 - The Horus Heresy"><forces/></roster>'),
                     "empty roster"),
    "unknown game system": (lambda t: _write(t, "40k.ros", _fixture_bytes().replace(
        b'gameSystemName="Horus Heresy"', b'gameSystemName="Warhammer 40,000 10th Edition"')),
        "Warhammer 40,000 10th Edition"),
    "zip with two files": (lambda t: _zip(t / "two.rosz", {"a.ros": _fixture_bytes(), "b.ros": _fixture_bytes()}),
                           "exactly one .ros file"),
    "zip bomb": (_zip_bomb, "uncompressed"),
    "zip path trick": (lambda t: _zip(t / "trick.rosz", {"../../evil.ros": _fixture_bytes()}), "'..' path"),
    "too many members": (lambda t: _zip(t / "many.rosz", {f"m{i}.txt": b"x" for i in range(20)}), "at most 16"),
    "not XML": (lambda t: _write(t, "text.ros", b"this is not a roster\n"), "not a well-formed XML roster"),
    "not a roster": (lambda t: _write(t, "other.ros", b"<catalogue name='x'/>"), "not a BattleScribe roster"),
    "empty file": (lambda t: _write(t, "blank.ros", b""), "empty file"),
    "bad number": (lambda t: _write(t, "number.ros", _fixture_bytes().replace(b'number="7"', b'number="lots"')),
                   "'number' is not a number"),
    "huge number": (lambda t: _write(t, "huge.ros", _fixture_bytes().replace(b'number="7"', b'number="1e9"')),
                    "larger than"),
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_roster_is_exit_2_with_a_message(tmp_path, case):
    make, expected = MALFORMED[case]
    path = make(tmp_path)
    before = path.read_bytes()
    res = CliRunner().invoke(app, ["import-roster", str(path), "--ruleset", "hh2", "--player", "blue"])
    out = res.stdout + res.stderr
    assert res.exit_code == 2, f"exit {res.exit_code}: {out}"
    assert "Traceback" not in out, out
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert res.stderr.startswith("error:"), res.stderr
    assert expected in res.stderr, res.stderr
    assert str(path) in res.stderr
    assert res.stdout == ""
    assert path.read_bytes() == before


@pytest.mark.parametrize("args, expected", [
    (["--default-base", "big"], "--default-base"),
    (["--ruleset", "w40k"], "unknown ruleset"),
    (["--player", " "], "--player"),
])
def test_bad_options_are_exit_2(args, expected):
    argv = ["import-roster", str(NR_FIXTURE)] + (args if "--player" in args else ["--player", "blue", *args])
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 2, res.output
    assert expected in res.stderr


def test_cli_refuses_to_overwrite_the_roster(tmp_path):
    p = _write(tmp_path, "army.ros", _fixture_bytes())
    res = CliRunner().invoke(app, ["import-roster", str(p), "--player", "blue", "--out", str(p)])
    assert res.exit_code == 2 and "refusing to overwrite" in res.stderr
    assert p.read_bytes() == _fixture_bytes()


def test_cli_subprocess_no_traceback(tmp_path):
    """The installed entry point: a truncated archive gives exit 2 and one line on stderr."""
    path = _truncated_zip(tmp_path)
    res = subprocess.run([sys.executable, "-m", "planner", "import-roster", str(path), "--player", "blue"],
                         capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1, res.stderr


# --------------------------------------------------------------------------- roster: in a scenario

SCENARIO = {
    "ruleset": "hh2",
    "battlefield": {"width": 72, "depth": 48},
    "deployment_zones": [
        {"id": "red-zone", "player": "red", "polygon": [[0, 0], [72, 0], [72, 12], [0, 12]]},
        {"id": "blue-zone", "player": "blue", "polygon": [[0, 36], [72, 36], [72, 48], [0, 48]]},
    ],
    "armies": [
        {"player": "red", "units": [{"id": "enemy", "type": "Infantry",
                                     "models": [{"base": {"diameter_mm": 32}, "x": 36, "y": 6}]}]},
        {"player": "blue", "roster": {"file": "army.ros", "embark": True, "place": True, "id_prefix": "b-"},
         "units": [
             # replaces the imported unit of the same id: positioned, in the deployment zone
             {"id": "b-praetor-legion", "rules": ["Independent Character", "Bulky"],
              "models": [{"profile": "legion-praetor-terminator", "x": 10, "y": 40}]},
             # added after the imported units
             {"id": "b-extra", "type": "Infantry", "setup": "reserves",
              "models": [{"base": {"diameter_mm": 32}}]},
         ]},
    ],
}


def test_scenario_with_a_roster_loads(tmp_path):
    _write(tmp_path, "army.ros", _fixture_bytes())
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(SCENARIO, sort_keys=False), encoding="utf-8")
    world = load_scenario(path)
    blue = [u for u in world.units.values() if u.player == "blue"]
    assert [u.id for u in blue] == ["b-tactical-squad-legion", "b-rhino-armoured-carrier-legion",
                                    "b-assault-squad-legion", "b-outrider-squad-legion", "b-praetor-legion",
                                    "b-sabre-strike-tank-squadron", "b-tactical-squad-legion-2", "b-extra"]
    assert world.units["b-praetor-legion"].models[0].x == 10
    assert world.units["b-tactical-squad-legion"].method is SetupMethod.EMBARKED
    assert world.units["b-rhino-armoured-carrier-legion"].record.place
    # the raw data (what a planned scenario is written from) holds the imported units too
    raw_blue = world.raw["armies"][1]
    assert "roster" not in raw_blue and len(raw_blue["units"]) == 8
    Scenario.model_validate(world.raw)


def test_scenario_roster_errors_name_the_scenario_and_the_roster(tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text(yaml.safe_dump(SCENARIO, sort_keys=False), encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(path)  # army.ros is missing
    msg = str(exc.value)
    assert str(path) in msg and "armies[1].roster.file" in msg and "no such file" in msg
    res = CliRunner().invoke(app, ["check", str(path)])
    assert res.exit_code == 2 and "armies[1].roster.file" in res.stderr


@needs_rosters
def test_scenario_referencing_a_real_roster_plans(tmp_path):
    """A scenario names ravenguard.rosz directly; 'planner plan' writes a complete scenario that 'check' accepts."""
    data = {k: v for k, v in SCENARIO.items() if k != "armies"}
    data["armies"] = [SCENARIO["armies"][0], {
        "player": "blue", "roster": {"file": str(_roster("ravenguard.rosz")), "place": True},
        "units": [  # keep the tanks in Reserves (see test_imported_ravenguard_deploys_legally_through_the_planner)
            {"id": uid, "setup": "reserves", "models": [{"profile": prof}] * n}
            for uid, prof, n in [("arquitor-bombard", "legion-arquitor", 2),
                                 ("sabre-strike-tank-squadron", "legion-sabre", 2),
                                 ("predator-strike-armoured-squadron-legion", "legion-predator", 2),
                                 ("achilles-alpha-pattern-land-raider", "legion-land-raider-achilles", 1),
                                 ("land-raider-phobos", "legion-land-raider-phobos", 1)]],
    }]
    src = tmp_path / "scenario.yaml"
    src.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    out = tmp_path / "planned.yaml"
    r = subprocess.run([sys.executable, "-m", "planner", "plan", str(src), "--out", str(out), "--time-limit", "20",
                        "--workers", "1"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    planned = yaml.safe_load(out.read_text(encoding="utf-8"))
    assert "roster" not in planned["armies"][1]
    c = subprocess.run([sys.executable, "-m", "planner", "check", str(out)], capture_output=True, text=True, cwd=ROOT,
                       timeout=120)
    assert c.returncode == 0, c.stdout + c.stderr


# --------------------------------------------------------------------------- 10th edition: types from categories

TENTH = b"""<?xml version="1.0" encoding="UTF-8"?>
<roster name="Tenth" gameSystemName="Warhammer 40,000 10th Edition" xmlns="http://www.battlescribe.net/schema/rosterSchema">
  <forces><force name="Army Roster" catalogueName="Imperium - Space Marines"><selections>
    <selection name="Intercessor Squad" number="1" type="unit">
      <categories><category name="Infantry"/><category name="Battleline"/><category name="Faction: Adeptus Astartes"/></categories>
      <selections>
        <selection name="Intercessor" number="4" type="model">
          <profiles><profile name="Intercessor" typeName="Unit"><characteristics>
            <characteristic name="M">6"</characteristic><characteristic name="T">4</characteristic>
          </characteristics></profile></profiles>
        </selection>
        <selection name="Intercessor Sergeant" number="1" type="model"/>
      </selections>
    </selection>
    <selection name="Redemptor Dreadnought" number="1" type="model">
      <categories><category name="Vehicle"/><category name="Walker"/></categories>
      <rules><rule name="Deep Strike"/></rules>
    </selection>
  </selections></force></forces>
</roster>
"""


def test_tenth_edition_roster_takes_types_from_categories(tmp_path):
    from planner.rules.registry import find_ruleset

    try:
        find_ruleset("wh40k10")
    except ScenarioError:
        pytest.skip("no wh40k10 ruleset in this tree")
    p = _write(tmp_path, "tenth.ros", TENTH)
    with pytest.raises(ScenarioError, match="another game system"):
        import_roster(p, "hh2", "blue")
    army, warnings = import_roster(p, "wh40k10", "blue", default_base_mm=32)
    units = _units(army)
    assert units["intercessor-squad"].type is UnitType.INFANTRY and len(units["intercessor-squad"].models) == 5
    dread = units["redemptor-dreadnought"]  # a top-level model selection: a unit on its own
    assert dread.type is UnitType.VEHICLE and SubType.WALKER in dread.subtypes
    assert _rules(dread) == {SpecialRule.DEEP_STRIKE}
    # 'Intercessor' is in the models/wh40k catalogue; the sergeant and the Redemptor are not
    assert len(warnings) == 2, warnings
    assert not any("model 'Intercessor' " in w for w in warnings)


HH2_2022_ROSTER = """<?xml version="1.0" encoding="UTF-8"?>
<roster id="r1" name="HH2 shapes" battleScribeVersion="2.03" gameSystemId="28d4-bd2e-4858-ece6"
        gameSystemName="Horus Heresy (2022)" gameSystemRevision="129"
        xmlns="http://www.battlescribe.net/schema/rosterSchema">
  <forces>
    <force id="f0" name="Crusade Force Organisation Chart" catalogueName="Imperialis Militia">
      <selections>
        <selection id="u1" name="IM - Rapier Battery" number="1" type="unit">
          <categories><category id="c1" name="Infantry Unit Type" primary="false"/></categories>
          <selections>
            <selection id="m1" name="1) Rapier Battery" number="2" type="model">
              <selections>
                <selection id="g1" name="Rapier" number="2" type="upgrade">
                  <profiles><profile id="p1" name="Rapier" typeName="Unit" hidden="false"><characteristics>
                    <characteristic name="Unit Type">Infantry (Artillery, Heavy)</characteristic>
                  </characteristics></profile></profiles>
                </selection>
              </selections>
            </selection>
          </selections>
        </selection>
      </selections>
    </force>
    <force id="f1" name="Crusade Force Organisation Chart" catalogueName="LA -  XII: World Eaters">
      <selections>
        <selection id="u2" name="Angron" number="1" type="unit">
          <profiles><profile id="p2" name="Angron" typeName="Unit" hidden="false"><characteristics>
            <characteristic name="Unit Type">Primarch (Unique)</characteristic>
          </characteristics></profile></profiles>
          <selections>
            <selection id="m2" name="Angron" number="1" type="model">
              <profiles><profile id="p3" name="Angron" typeName="Unit" hidden="false"><characteristics>
                <characteristic name="Unit Type">Primarch (Unique)</characteristic>
              </characteristics></profile></profiles>
            </selection>
          </selections>
        </selection>
        <selection id="u3" name="Rampager Squad" number="1" type="unit">
          <categories><category id="c3" name="Infantry Unit Type" primary="false"/></categories>
          <selections>
            <selection id="m3" name="Rampager w/Falax Blade" number="4" type="model"/>
            <selection id="m4" name="Rampager Champion" number="1" type="model">
              <categories><category id="c4" name="Character" primary="false"/></categories>
            </selection>
          </selections>
        </selection>
      </selections>
    </force>
  </forces>
</roster>
"""


def test_hh2_2022_roster_shapes(tmp_path):
    """HH2 (2022) data shapes: categories "Infantry Unit Type"; a model selection that only holds the
    miniature (the Rapier battery) is not a model itself; a unit listing its own model (Angron) is one
    model; bases by the base rules of the type and the army list; no edition warning."""
    p = tmp_path / "hh2-2022.ros"
    p.write_text(HH2_2022_ROSTER, encoding="utf-8")
    army, warnings = import_roster(p, "hh2", "blue", strict=True)
    units = _units(army)
    rapiers = units["im-rapier-battery"]
    assert [m.profile for m in rapiers.models] == ["legion-rapier-carrier"] * 2  # by its name "Rapier"
    assert SubType.ARTILLERY in rapiers.subtypes
    angron = units["angron"]
    assert [(m.name, m.base) for m in angron.models] == [("Angron", RoundBase(diameter_mm=60))]
    assert angron.type is UnitType.PRIMARCH
    ramp = units["rampager-squad"]
    assert ramp.type is UnitType.INFANTRY and len(ramp.models) == 5
    assert all(m.base == RoundBase(diameter_mm=32) for m in ramp.models)
    assert not any(w.startswith("edition: ") for w in warnings)
    assert sorted(w.split("base rule ")[1] for w in warnings if "from base rule" in w) == [
        "hh2-rule-infantry", "hh2-rule-infantry", "hh2-rule-primarch"]


def test_a_roster_over_the_model_limit_says_the_count_and_the_limit(tmp_path):
    unit = ('<selection name="Squad {i}" number="1" type="unit"><categories><category name="Infantry"/>'
            '</categories><selections><selection name="Intercessor" number="1000" type="model"/></selections>'
            "</selection>")
    xml = TENTH.split(b"<selections>", 1)[0] + b"<selections>" + "".join(
        unit.format(i=i) for i in range(11)).encode() + b"</selections></force></forces></roster>"
    p = _write(tmp_path, "big.ros", xml)
    with pytest.raises(ScenarioError) as e:
        import_roster(p, "wh40k10", "blue", default_base_mm=32)
    assert (e.value.location, e.value.value) == ("force[0]/selection 'Squad 10'", 11000)
    assert e.value.detail == "the roster has 11000 models up to this unit; at most 10000 in all"
