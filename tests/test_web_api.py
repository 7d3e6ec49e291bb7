"""The web page's JSON API (planner/web/app.py) through FastAPI's test client: every endpoint,
the same answers as the in-process functions, and the error contract (HTTP 400 naming the field
and the value, 409 before writing over a file, 500 naming a log file, never a traceback)."""

from __future__ import annotations

import copy
import json
import math
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from planner.web.app import create_app  # noqa: E402
from tests.test_roster import SCENARIO as ROSTER_BASE  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ASSET = ROOT / "tests" / "assets" / "web-infiltrate.yaml"
ROSTER = ROOT / "tests" / "assets" / "newrecruit-hh2.ros"
R32 = 16 / 25.4  # radius of a 32 mm base, inches
Y_AT_9 = 2 + 9 + 2 * R32  # the Infiltrator's centre exactly 9.0" (edge to edge) from the enemy base


@pytest.fixture
def folder(tmp_path):
    shutil.copy(ASSET, tmp_path / "web.yaml")
    return tmp_path


@pytest.fixture
def client(folder):
    with TestClient(create_app(root=folder), raise_server_exceptions=False) as c:
        yield c


def scenario(y: float | None = None) -> dict:
    data = yaml.safe_load(ASSET.read_text())
    if y is not None:
        data["armies"][1]["units"][1]["models"][0]["y"] = y
    return data


def assert_400(r, field: str | None = None, value=None) -> dict:
    assert r.status_code == 400, r.text
    body = r.json()
    assert field is None or body["field"] == field, body
    if value is not None:
        assert body["value"] == value, body
    assert "Traceback" not in r.text
    return body


# ---------------------------------------------------------------------------- listings, load, new

def test_listings(client):
    rs = client.get("/api/rulesets").json()
    hh2 = next(r for r in rs if r["id"] == "hh2")
    assert hh2["checker"] is True
    assert "hh2.infiltrate.distance" in {x["rule"] for x in hh2["rules"]}
    assert client.get("/api/maps", params={"ruleset": "hh2"}).json()["maps"] == ["long_edge", "short_edge",
                                                                                  "quarters"]
    assert "dawn-of-war" in client.get("/api/maps", params={"ruleset": "wh40k10"}).json()["maps"]
    assert_400(client.get("/api/maps", params={"ruleset": "nope"}), "ruleset", "nope")
    sc = client.get("/api/scenarios").json()
    assert "web.yaml" in sc["files"]
    assert "long-edge-ravenguard-vs-ironhands.yaml" in {b["name"] for b in sc["bundled"]}
    assert client.get("/api/initial").json() == {"path": None}
    assert client.get("/").status_code == 200 and "app.js" in client.get("/").text
    assert client.get("/static/app.js").status_code == 200
    assert client.get("/docs").status_code == 200
    paths = client.get("/openapi.json").json()["paths"]
    for p in ("/api/load", "/api/check", "/api/plan", "/api/plan/{job_id}/events", "/api/plan/{job_id}/cancel",
              "/api/render", "/api/ruling", "/api/save", "/api/import-roster", "/api/overlay", "/api/suggest",
              "/api/new", "/api/rulesets", "/api/maps", "/api/scenarios"):
        assert p in paths, p


def test_load_gives_data_board_and_the_checkers_report(client, folder):
    from planner import check_deployment, load_scenario

    r = client.post("/api/load", json={"path": "web.yaml"})
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["scenario"] == yaml.safe_load(ASSET.read_text())
    world = load_scenario(folder / "web.yaml")
    for u in body["report"]["units"]:
        for f in u["findings"]:
            del f["measured_text"], f["margin_text"]
    assert body["report"] == json.loads(json.dumps(check_deployment(world).model_dump(mode="json")))
    scouts = next(u for u in body["board"]["units"] if u["id"] == "blue-scouts")
    assert scouts["models"][0]["base"] == {"kind": "circle", "a": round(R32, 6), "b": round(R32, 6)}
    assert (scouts["army"], scouts["index"], scouts["setup"]) == (1, 1, "infiltrate")
    assert body["board"]["battlefield"] == {"width": 36, "depth": 24}
    bundled = client.get("/api/scenarios").json()["bundled"][0]["path"]
    assert client.post("/api/load", json={"path": bundled}).status_code == 200


def test_load_refuses_files_outside_the_folder_and_bad_files(client, folder):
    assert_400(client.post("/api/load", json={"path": "/etc/passwd"}), "path", "/etc/passwd")
    assert_400(client.post("/api/load", json={"path": "../x.yaml"}), "path", "../x.yaml")
    assert_400(client.post("/api/load", json={"path": "web.txt"}), "path")
    body = client.post("/api/load", json={"path": "missing.yaml"}).json()
    assert "missing.yaml" in body["error"]
    (folder / "bad.yaml").write_text("ruleset: hh2\nbattlefield: {width: [\n")
    r = client.post("/api/load", json={"path": "bad.yaml"})
    assert r.status_code == 400 and "malformed YAML" in r.json()["error"] and "bad.yaml" in r.json()["error"]
    assert_400(client.post("/api/load", json={}), "path")


def test_new_scenario(client):
    r = client.post("/api/new", json={"ruleset": "hh2", "map": "long_edge", "players": ["ih", "rg"]})
    assert r.status_code == 200, r.text
    data = r.json()["scenario"]
    assert data["battlefield"] == {"width": 72.0, "depth": 48.0}
    zones = {z["player"]: z["polygon"] for z in data["deployment_zones"]}
    assert zones["ih"] == [[0, 0], [72, 0], [72, 12], [0, 12]]
    # the hh2 maps are the generator's (its default depths), so the two cannot drift apart
    from shapely.geometry import Polygon

    from planner.generate.distributions import GeneratorParams
    from planner.generate.scene import zones_for

    for name in ("long_edge", "short_edge", "quarters"):
        got = client.post("/api/new", json={"ruleset": "hh2", "map": name}).json()["scenario"]["deployment_zones"]
        want = zones_for(name, 72.0, 48.0, GeneratorParams())
        assert Polygon(got[0]["polygon"]).equals(want["red"]) and Polygon(got[1]["polygon"]).equals(want["blue"])
    assert [a["player"] for a in data["armies"]] == ["ih", "rg"]
    w = client.post("/api/new", json={"ruleset": "wh40k10", "map": "hammer-and-anvil"}).json()["scenario"]
    assert w["battlefield"] == {"width": 60.0, "depth": 44.0}
    assert_400(client.post("/api/new", json={"ruleset": "hh2", "map": "nowhere"}), "map", "nowhere")
    assert_400(client.post("/api/new", json={"ruleset": "nope", "map": "long_edge"}), "ruleset", "nope")
    assert_400(client.post("/api/new", json={"ruleset": "hh2", "map": "long_edge", "players": ["a", "a"]}),
               "players", ["a", "a"])


# ---------------------------------------------------------------------------- check and its contract

def test_check_at_exactly_9_inches_is_illegal_and_at_9_01_legal(client):
    from planner import check_deployment, resolve
    from planner.schema import Scenario

    at9 = client.post("/api/check", json={"scenario": scenario(Y_AT_9)}).json()["report"]
    assert not at9["legal"]
    (v,) = at9["violations"]
    assert (v["rule"], v["unit"]) == ("hh2.infiltrate.distance", "blue-scouts")
    assert math.isclose(v["measured"], 9.0, abs_tol=1e-9)
    beyond = client.post("/api/check", json={"scenario": scenario(Y_AT_9 + 0.01)}).json()["report"]
    assert beyond["legal"]
    scouts = next(u for u in beyond["units"] if u["unit"] == "blue-scouts")
    hidden = next(f for f in scouts["findings"] if f["rule"] == "hh2.infiltrate.hidden")
    assert hidden["passed"] and hidden["evidence"]["blocking_features"] == ["wall"]
    failing = next(f for u in at9["units"] for f in u["findings"] if not f["passed"])
    assert (failing["measured_text"], failing["margin_text"]) == ('9.000"', '0.000" (fails)')
    # the same report as the in-process checker (and the printed texts of the rulings)
    same = check_deployment(resolve(Scenario.model_validate(scenario(Y_AT_9))))
    for u in at9["units"]:
        for f in u["findings"]:
            del f["measured_text"], f["margin_text"]
    assert at9 == json.loads(json.dumps(same.model_dump(mode="json")))


def test_bad_input_is_400_naming_the_field_and_the_value(client):
    d = scenario()
    d["armies"][1]["units"][1]["models"][0]["x"] = "abc"
    body = assert_400(client.post("/api/check", json={"scenario": d}), "armies[1].units[1].models[0].x", "abc")
    assert "abc" in body["error"]
    d = scenario()
    d["ruleset"] = "nope"
    assert_400(client.post("/api/check", json={"scenario": d}), "ruleset", "nope")
    d = scenario()
    d["armies"][1]["units"][1]["models"][0]["x"] = 500
    assert_400(client.post("/api/check", json={"scenario": d}), "armies[1].units[1].models[0].x")
    assert_400(client.post("/api/check", json={"scenario": 5}), "scenario", 5)
    assert_400(client.post("/api/check", json={}), "scenario")
    r = client.post("/api/check", content=b"{not json", headers={"Content-Type": "application/json"})
    assert r.status_code == 400 and "Traceback" not in r.text
    d = scenario()
    d["armies"][1]["units"][1]["id"] = "blue-line"
    body = assert_400(client.post("/api/check", json={"scenario": d}), body_field(d, client))
    assert "blue-line" in body["error"]


def body_field(d, client) -> str:
    """The field a duplicate unit id is reported at (as the file loader reports it)."""
    from planner.errors import ScenarioError
    from planner.io.files import parse_record
    from planner.schema import Scenario
    from planner.world import resolve

    with pytest.raises(ScenarioError) as exc:
        resolve(parse_record(Scenario, d))
    return exc.value.location


def test_cross_site_requests_are_refused(folder):
    with TestClient(create_app(root=folder, allowed_hosts=["127.0.0.1", "localhost"]),
                    base_url="http://127.0.0.1:8765") as c:
        assert c.get("/api/initial").status_code == 200
        assert c.get("/api/initial", headers={"Host": "evil.example:8765"}).status_code == 400
        # a form post from another site (text/plain) is not read as JSON: nothing is written
        body = json.dumps({"scenario": scenario(), "path": "csrf.yaml"})
        r = c.post("/api/save", content=body, headers={"Content-Type": "text/plain"})
        assert r.status_code == 400 and not (folder / "csrf.yaml").exists()


def test_internal_error_is_500_with_a_log_file_never_a_traceback(client, monkeypatch):
    import planner.legality.checker as checker

    def boom(world):
        raise RuntimeError("kaboom-123")

    monkeypatch.setattr(checker, "check_deployment", boom)
    r = client.post("/api/check", json={"scenario": scenario()})
    assert r.status_code == 500
    body = r.json()
    assert "internal error" in body["error"] and "Traceback" not in r.text and "kaboom-123" not in r.text
    log = body["error"].split("the traceback is in ")[1]
    assert "RuntimeError: kaboom-123" in Path(log).read_text()
    os.unlink(log)


# ---------------------------------------------------------------------------- overlays, render, ruling

def test_overlays_are_the_render_functions_areas(client):
    from shapely.geometry import Polygon

    from planner import resolve
    from planner.render.areas import legal_area, unit_exclusion
    from planner.schema import Scenario

    def area(polys):
        return sum(Polygon(p[0], p[1:]).area for p in polys)

    data = scenario(Y_AT_9 + 0.01)
    world = resolve(Scenario.model_validate(data))
    r = client.post("/api/overlay", json={"scenario": data, "kind": "infiltrate", "unit": "blue-scouts"}).json()
    layers = {x["id"]: x for x in r["layers"]}
    assert set(layers) == {"exclusion-12", "exclusion-9"}
    for d in (9, 12):
        want = unit_exclusion(world.units["red-guard"], d).area
        assert math.isclose(area(layers[f"exclusion-{d}"]["polygons"]), want, rel_tol=1e-6)
    assert math.isclose(want, math.pi * (12 + R32) ** 2, rel_tol=1e-3)
    r = client.post("/api/overlay", json={"scenario": data, "kind": "legal", "unit": "blue-scouts"}).json()
    la = legal_area(world, "blue-scouts")
    got = {x["id"]: area(x["polygons"]) for x in r["layers"]}
    assert math.isclose(got["legal"], la.certain.area, rel_tol=1e-6)
    assert math.isclose(got["legal-hidden"], la.if_hidden.area, rel_tol=1e-6)
    r = client.post("/api/overlay", json={"scenario": data, "kind": "threat", "unit": "blue-scouts", "grid": 3})
    assert r.status_code == 200, r.text
    cells = r.json()["cells"]
    assert cells and r.json()["cell_in"] == 3
    # every legal anchor is more than 9" from the enemy base centre + radius (a necessary condition)
    assert all(math.hypot(x - 18, y - 2) > 9 + R32 for x, y, _ in cells)
    # an Infiltrator is not set up to Deep Strike: its set-up is named first (fresh13 finding 13)
    heat = assert_400(client.post("/api/overlay", json={"scenario": data, "kind": "heat", "unit": "blue-scouts"}),
                      "armies[1].units[1].setup", "infiltrate")
    assert "blue-scouts is not set up to Deep Strike (set up by infiltrate)" in heat["error"], heat
    assert_400(client.post("/api/overlay", json={"scenario": data, "kind": "nope", "unit": "blue-scouts"}), "kind",
               "nope")
    assert_400(client.post("/api/overlay", json={"scenario": data, "kind": "legal", "unit": "ghost"}), "unit",
               "ghost")


def test_heat_overlay(client):
    path = ROOT / "scenarios" / "wh40k" / "dawn-of-war-12in.yaml"
    data = yaml.safe_load(path.read_text())
    army = data["armies"][0]  # the Infiltrators arrive by Deep Strike instead
    u = next(x for x in army["units"] if x.get("place"))
    u["setup"] = {"method": "reserves", "arrival": "deep_strike"}
    u["abilities"] = [*u.get("abilities", []), "Deep Strike"]
    u.pop("place", None)
    unit = u["id"]
    r = client.post("/api/overlay", json={"scenario": data, "kind": "heat", "unit": unit, "resolution": 4})
    assert r.status_code == 200, r.text
    vals = [v for _, _, v in r.json()["cells"]]
    assert vals and set(vals) <= {0.0, 1.0} and 0.0 in vals and 1.0 in vals
    from planner import resolve
    from planner.cli.render import deepstrike_heat
    from planner.schema import Scenario

    hm = deepstrike_heat(resolve(Scenario.model_validate(data)), unit, resolution=4)
    assert vals == [float(hm.values[j, i]) for j in range(len(hm.ys)) for i in range(len(hm.xs))]


def test_render_and_ruling(client):
    data = scenario(Y_AT_9)
    svg = client.post("/api/render", json={"scenario": data})
    assert svg.status_code == 200 and svg.headers["content-type"].startswith("image/svg+xml")
    assert b'id="base-blue-scouts-1"' in svg.content and b'id="violation-blue-scouts' in svg.content
    png = client.post("/api/render", json={"scenario": data, "format": "png", "exclusion": "blue"})
    assert png.content[:8] == b"\x89PNG\r\n\x1a\n"
    assert_400(client.post("/api/render", json={"scenario": data, "format": "gif"}), "format", "gif")
    html = client.post("/api/ruling", json={"scenario": data})
    assert html.status_code == 200 and "<svg" in html.text and "hh2.infiltrate.distance" in html.text
    md = client.post("/api/ruling", json={"scenario": data, "format": "markdown"})
    assert md.text.startswith("# Deployment ruling") and "ILLEGAL" in md.text
    unplaced = scenario()
    m = unplaced["armies"][1]["units"][1]["models"][0]
    del m["x"], m["y"]
    unplaced["armies"][1]["units"][1]["place"] = True
    body = client.post("/api/ruling", json={"scenario": unplaced}).json()
    assert body["field"].startswith("armies[1].units[1]") and "position" in body["error"], body


# ---------------------------------------------------------------------------- save

def test_save_writes_a_new_file_and_asks_before_writing_over_one(client, folder):
    opened = client.post("/api/load", json={"path": "web.yaml"}).json()
    before = (folder / "web.yaml").read_bytes()
    data = scenario(Y_AT_9 + 0.01)
    r = client.post("/api/save", json={"scenario": data, "path": "moved.yaml"})
    assert r.status_code == 200, r.text
    again = client.post("/api/load", json={"path": "moved.yaml"}).json()
    assert again["scenario"] == data and again["report"]["legal"]
    r = client.post("/api/save", json={"scenario": data, "path": "web.yaml"})
    assert r.status_code == 409 and r.json()["opened"] is True and r.json()["field"] == "path"
    assert (folder / "web.yaml").read_bytes() == before  # the opened file is untouched
    assert client.post("/api/save", json={"scenario": data, "path": "moved.yaml"}).status_code == 409
    r = client.post("/api/save", json={"scenario": data, "path": "web.yaml", "overwrite": True})
    assert r.status_code == 200
    assert yaml.safe_load((folder / "web.yaml").read_text()) == data
    assert opened["file"] == str((folder / "web.yaml").resolve())
    assert client.post("/api/save", json={"scenario": data, "path": "plan.json"}).status_code == 200
    assert json.loads((folder / "plan.json").read_text()) == data
    assert_400(client.post("/api/save", json={"scenario": data, "path": "../out.yaml"}), "path")
    assert_400(client.post("/api/save", json={"scenario": data, "path": "out.txt"}), "path", "out.txt")
    bad = copy.deepcopy(data)
    bad["battlefield"]["width"] = -1
    assert_400(client.post("/api/save", json={"scenario": bad, "path": "bad.yaml"}), "battlefield.width")
    assert not (folder / "bad.yaml").exists()


# ---------------------------------------------------------------------------- roster upload

def test_import_roster_upload(client, monkeypatch):
    from planner import import_roster

    raw = ROSTER.read_bytes()
    r = client.post("/api/import-roster", params={"player": "blue", "filename": ROSTER.name}, content=raw)
    assert r.status_code == 200, r.text
    body = r.json()
    army, _ = import_roster(ROSTER, "hh2", "blue")
    assert body["units"] == len(army.units) and body["army"]["player"] == "blue"
    assert body["models"] == sum(len(u.models) for u in army.units)
    bad = client.post("/api/import-roster", params={"player": "blue", "filename": "mine.ros"}, content=b"<roster")
    assert bad.status_code == 400 and bad.json()["file"] == "mine.ros" and "well-formed" in bad.json()["error"]
    bomb = (b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]>'
            b'<roster gameSystemName="Horus Heresy">&b;</roster>')
    r = client.post("/api/import-roster", params={"player": "blue", "filename": "bomb.ros"}, content=bomb)
    assert r.status_code == 400 and "Traceback" not in r.text
    assert_400(client.post("/api/import-roster", params={"player": "blue", "filename": "x.exe"}, content=raw),
               "filename", "x.exe")
    assert_400(client.post("/api/import-roster", params={"player": " ", "filename": "x.ros"}, content=raw),
               "player", " ")
    assert_400(client.post("/api/import-roster", params={"filename": "x.ros"}, content=raw), "query.player")
    # over the roster limit (50 MB): HTTP 413 naming it, as a JSON body over its limit, refused by
    # its Content-Length before reading (the body sent here is small) or once the stream passes it
    big = {"player": "blue", "filename": "big.ros"}
    r = client.post("/api/import-roster", params=big, content=b"<roster",
                    headers={"Content-Length": str(60 * 1048576)})
    assert r.status_code == 413, r.text
    assert r.json() | {"error": None} == {"error": None, "file": "big.ros", "field": "body",
                                          "value": f"{60 * 1048576} bytes", "detail": "too large"}
    assert r.json()["error"].startswith("big.ros: the upload is larger than the limit of a roster file, 50 MB")
    monkeypatch.setenv("PLANNER_MAX_INPUT_MB", "0.001")
    r = client.post("/api/import-roster", params=big, content=iter([raw, b" " * 2000]))  # no Content-Length
    assert r.status_code == 413 and r.json()["file"] == "big.ros", r.text
    assert r.json()["value"] == f"more than {int(0.001 * 1048576)} bytes" and "Traceback" not in r.text


# ---------------------------------------------------------------------------- suggest and plan

def test_suggest(client):
    pytest.importorskip("planner.solve.suggest", reason="the suggest engine (planner.solve.suggest) is not merged")
    data = scenario(Y_AT_9)
    r = client.post("/api/suggest", json={"scenario": data, "units": ["blue-scouts"], "time_limit": 10})
    assert r.status_code == 200, r.text
    (u,) = r.json()["units"]
    assert u["unit_id"] == "blue-scouts" and u["moves"]
    moved = copy.deepcopy(data)
    for mv in u["moves"]:
        m = moved["armies"][1]["units"][1]["models"][int(mv["model_id"]) - 1]
        m["x"], m["y"] = mv["to_x"], mv["to_y"]
    report = client.post("/api/check", json={"scenario": moved}).json()["report"]
    assert next(x for x in report["units"] if x["unit"] == "blue-scouts")["legal"]
    assert math.isclose(u["total_move_in"], sum(mv["distance_in"] for mv in u["moves"]), abs_tol=1e-6)


def test_suggest_without_the_engine_is_501_not_a_traceback(client, monkeypatch):
    monkeypatch.setitem(sys.modules, "planner.solve.suggest", None)  # import fails as if not installed
    r = client.post("/api/suggest", json={"scenario": scenario(Y_AT_9)})
    assert r.status_code == 501 and "suggest engine" in r.json()["error"] and "Traceback" not in r.text


def events(client, url: str) -> list[tuple[str, dict]]:
    out, kind = [], None
    with client.stream("GET", url) as s:
        for line in s.iter_lines():
            if line.startswith("event: "):
                kind = line[7:]
            elif line.startswith("data: "):
                out.append((kind, json.loads(line[6:])))
    return out


@pytest.mark.slow
def test_plan_streams_progress_and_a_checked_result(client):
    data = scenario()
    data["armies"][1]["units"][1]["place"] = True
    r = client.post("/api/plan", json={"scenario": data, "units": ["blue-scouts"], "time_limit": 10})
    assert r.status_code == 200, r.text
    evs = events(client, r.json()["events"])
    kinds = [k for k, _ in evs]
    assert kinds[-1] == "result" and "progress" in kinds, kinds
    result = evs[-1][1]
    assert result["status"] == "optimal" and result["legal"] is True
    planned = result["scenario_data"]
    report = client.post("/api/check", json={"scenario": planned}).json()["report"]
    assert report["legal"]
    state = client.get(f"/api/plan/{r.json()['job']}").json()
    assert state["status"] == "done" and state["result"]["status"] == "optimal"
    # the cancel of a finished job changes nothing
    assert client.post(r.json()["cancel"]).json()["status"] == "done"


@pytest.mark.slow
def test_plan_cancel_ends_the_process(client):
    data = yaml.safe_load((ROOT / "scenarios" / "plan-ravenguard-infiltrate.yaml").read_text())
    r = client.post("/api/plan", json={"scenario": data, "time_limit": 60})
    assert r.status_code == 200, r.text
    job = client.app.state.jobs.get(r.json()["job"])
    # the server answers while the plan runs (it runs in its own process)
    check = client.post("/api/check", json={"scenario": scenario()})
    assert check.status_code == 200 and job.status == "running" and job.process.is_alive()
    time.sleep(0.5)
    t0 = time.monotonic()
    state = client.post(r.json()["cancel"]).json()
    assert state["status"] == "cancelled" and state["result"]["elapsed_s"] > 0
    assert time.monotonic() - t0 < 6 and not job.process.is_alive()
    assert [k for k, _ in events(client, r.json()["events"])][-1] == "cancelled"


ROSTER_SCENARIO = {k: v for k, v in ROSTER_BASE.items() if k != "armies"} | {
    "armies": [ROSTER_BASE["armies"][0],  # the red Infantry unit in its zone
               {"player": "blue", "roster": {"file": "x-newrecruit.ros", "place": True}}],  # no units: all from the roster
}
"""tests/test_roster.py's scenario with the blue army only a roster reference."""


def test_plan_a_roster_army_to_the_end(client, folder):
    """A scenario whose army is only a ``roster:`` (a file beside it in the server's folder, named
    relative to it, the server's working folder elsewhere) is planned through /api/plan to a
    result: the job reads the roster the request was checked with, and the planned scenario holds
    the roster's units with positions, as ``planner plan --out`` writes them (load_scenario's raw)."""
    from planner.world import load_scenario

    shutil.copy(ROSTER, folder / "x-newrecruit.ros")
    (folder / "s.yaml").write_text(yaml.safe_dump(ROSTER_SCENARIO, sort_keys=False), encoding="utf-8")
    assert not (Path.cwd() / "x-newrecruit.ros").exists()
    placing = ["assault-squad-legion", "praetor-legion"]  # two of its seven units: optimal in well under 1 s
    r = client.post("/api/plan", json={"scenario": ROSTER_SCENARIO, "file": "s.yaml", "units": placing,
                                       "time_limit": 5, "workers": 1})
    assert r.status_code == 200, r.text
    kind, result = events(client, r.json()["events"])[-1]
    assert kind == "result", result
    assert result["status"] == "optimal" and result["legal"] is True, result
    assert [p["unit"] for p in result["placements"]] == placing
    planned = result["scenario_data"]["armies"][1]
    assert "roster" not in planned
    expected = load_scenario(folder / "s.yaml").raw["armies"][1]["units"]  # what the CLI plans from
    assert len(expected) == 7
    assert [u["id"] for u in planned["units"]] == [u["id"] for u in expected]
    for got, want in zip(planned["units"], expected, strict=True):
        if got["id"] not in placing:
            assert got == want
            continue
        assert {k: v for k, v in got.items() if k != "models"} == {k: v for k, v in want.items() if k != "models"}
        assert len(got["models"]) == len(want["models"])
        for m, w in zip(got["models"], want["models"], strict=True):
            assert {k: v for k, v in m.items() if k not in ("x", "y", "facing")} == w
            assert 36 <= m["y"] <= 48, m  # in the blue zone
    check = client.post("/api/check", json={"scenario": result["scenario_data"], "file": "s.yaml"}).json()
    assert check["report"]["legal"] and set(check["to_place"]) == {u["id"] for u in expected} - set(placing)
    # the page's data is not changed, and the roster's path is named as given where it is wrong
    assert ROSTER_SCENARIO["armies"][1] == {"player": "blue", "roster": {"file": "x-newrecruit.ros", "place": True}}
    gone = copy.deepcopy(ROSTER_SCENARIO)
    gone["armies"][1]["roster"]["file"] = "missing.ros"
    body = assert_400(client.post("/api/plan", json={"scenario": gone, "file": "s.yaml"}), "armies[1].roster.file",
                      "missing.ros")
    assert "no such file" in body["error"]


DENY = ROOT / "tests" / "assets" / "deny-small.yaml"


def test_plan_a_deny_goal_as_planner_plan_does(client, tmp_path):
    """fu14 #1: a scenario with a ``deny`` goal is planned by the page's Plan as by ``planner plan``
    (one routing, planner.cli.plan.plan_scenario, to the denial planner): the same screen, its
    area and the planned scenario, which the checker finds legal; the result has what the page
    shows (status, message, placements, scenario_data)."""
    from typer.testing import CliRunner

    from planner.cli.commands import app

    data = yaml.safe_load(DENY.read_text())
    r = client.post("/api/plan", json={"scenario": data, "file": "deny-small.yaml", "units": ["a", "b"],
                                       "time_limit": 20, "workers": 1})
    assert r.status_code == 200, r.text
    evs = events(client, r.json()["events"])
    assert [k for k, _ in evs] == ["result"], evs  # a denial sends no progress events
    web = evs[-1][1]
    cli = CliRunner().invoke(app, ["plan", str(DENY), "--json", str(tmp_path / "p.json"), "--time-limit", "20",
                                   "--workers", "1"])
    assert cli.exit_code == 0, cli.output
    want = json.loads((tmp_path / "p.json").read_text())
    assert web["status"] == want["status"] == "optimal" and web["legal"] is want["legal"] is True
    assert web["area_sq_in"] == want["area_sq_in"] == 156.0  # deny-small's proven screen (36" x 21", 2" grid)
    assert web["area_before_sq_in"] == want["area_before_sq_in"] == 648.0
    assert web["placements"] == want["placements"] and {p["unit"] for p in web["placements"]} == {"a", "b"}
    assert web["message"] == want["message"] and "156 sq in left" in web["message"]
    placed = web["scenario_data"]
    report = client.post("/api/check", json={"scenario": placed}).json()["report"]
    assert report["legal"], report
    got = {u["id"]: u for a in placed["armies"] for u in a["units"]}
    for p in web["placements"]:
        assert all("x" in m and "y" in m for m in got[p["unit"]]["models"])
        assert all(0 <= m["y"] <= 5 for m in got[p["unit"]]["models"])  # in my 5" zone
    assert got["inf"].get("setup") == "reserves"  # the enemy unit stays in Reserves, as in the CLI's --out
    assert client.get(f"/api/plan/{r.json()['job']}").json()["status"] == "done"
    # the API's player: the screening player's marked units are the denial's; the API plans them the same way
    r = client.post("/api/plan", json={"scenario": data, "player": "me", "time_limit": 20, "workers": 1})
    assert r.status_code == 200, r.text
    kind, again = events(client, r.json()["events"])[-1]
    assert kind == "result" and again["placements"] == web["placements"], again


def test_plan_a_deny_goal_with_other_units_is_refused_up_front(client):
    """A denial places every marked unit of mine together: asking for fewer, or for others, is an
    HTTP 400 naming the unit, worded for a user (no internal function named)."""
    data = yaml.safe_load(DENY.read_text())
    fewer = assert_400(client.post("/api/plan", json={"scenario": data, "units": ["a"]}), "units", "b")
    assert "deny goal" in fewer["error"] and "(a, b)" in fewer["error"] and "b too" in fewer["error"], fewer
    more = assert_400(client.post("/api/plan", json={"scenario": data, "units": ["a", "b", "inf"]}), "units", "inf")
    assert "not inf" in more["error"], more
    for body in (fewer, more):
        assert "planner.adversary" not in body["error"] and "plan_deployment" not in body["error"]
    assert_400(client.post("/api/plan", json={"scenario": data, "player": "en"}), "player", "en")  # nothing marked
    bad = copy.deepcopy(data)
    bad["goals"][0]["enemy_unit"] = "nobody"
    assert_400(client.post("/api/plan", json={"scenario": bad, "units": ["a", "b"]}), "goals[0].enemy_unit", "nobody")
    two = copy.deepcopy(data)
    two["goals"].append(dict(two["goals"][0]))
    assert_400(client.post("/api/plan", json={"scenario": two, "units": ["a", "b"]}), "goals[1]", "deny")


def test_plan_bad_input(client):
    data = scenario()
    assert_400(client.post("/api/plan", json={"scenario": data, "units": ["blue-scouts"]}), "units", "blue-scouts")
    assert_400(client.post("/api/plan", json={"scenario": data, "time_limit": 0}), "time_limit", 0)
    assert_400(client.get("/api/plan/nope"), "job", "nope")
    import planner.web.jobs as jobs

    marked = scenario()
    marked["armies"][1]["units"][1]["place"] = True
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(jobs, "MAX_RUNNING", 0)  # as if the machine's plans were all running
        assert_400(client.post("/api/plan", json={"scenario": marked, "units": ["blue-scouts"]}), "plan", [])
    assert_400(client.post("/api/plan/nope/cancel"), "job", "nope")


# ---------------------------------------------------------------------------- the command

def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _planner(*args: str, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "planner", *args], capture_output=True, text=True, env=env,
                          timeout=60, **kw)


@pytest.mark.slow
def test_serve_refuses_bad_input(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: nope\n")
    r = _planner("serve", str(bad), "--port", str(_free_port()))
    assert r.returncode == 2 and "bad.yaml" in r.stderr and "nope" in r.stderr and "Traceback" not in r.stderr
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        busy = s.getsockname()[1]
        r = _planner("serve", "--port", str(busy))
    assert r.returncode == 2 and "--port" in r.stderr


@pytest.mark.slow
def test_serve_starts_prints_the_address_and_stops(tmp_path):
    import httpx

    port = _free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    p = subprocess.Popen([sys.executable, "-m", "planner", "serve", str(ASSET), "--port", str(port)],
                         stderr=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/api/initial", timeout=2)
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline and p.poll() is None
                time.sleep(0.2)
        assert r.json()["path"] == str(ASSET)
    finally:
        p.send_signal(2)  # Ctrl-C
        _, err = p.communicate(timeout=20)
    assert p.returncode == 0, err
    assert f"http://127.0.0.1:{port}/" in err


# ---------------------------------------------------------------------------- what a fresh user found (webfix)

def _json_post(client, path: str, text: str):
    return client.post(path, content=text.encode(), headers={"Content-Type": "application/json"})


def test_a_duplicate_key_in_the_body_is_refused_naming_the_key(client):
    d = json.dumps(scenario())
    r = _json_post(client, "/api/check", f'{{"scenario": {d}, "scenario": {d}}}')
    body = assert_400(r, "body")
    assert "duplicate key 'scenario'" in body["error"]
    # inside the scenario too, as a scenario file refuses it
    inner = d.replace('"ruleset": "hh2"', '"ruleset": "hh2", "ruleset": "hh2"', 1)
    assert inner != d
    body = assert_400(_json_post(client, "/api/check", f'{{"scenario": {inner}}}'), "body")
    assert "duplicate key 'ruleset'" in body["error"]


def test_unknown_fields_and_players_are_refused(client):
    data = scenario()
    marked = scenario()
    marked["armies"][1]["units"][1]["place"] = True
    body = assert_400(client.post("/api/plan", json={"scenario": marked, "time_limt": 5}), "time_limt", 5)
    assert "Extra inputs are not permitted" in body["error"]
    assert_400(client.post("/api/plan", json={"scenario": marked, "player": "nobody"}), "player", "nobody")
    assert_400(client.post("/api/plan", json={"scenario": data, "player": "blue"}), "player", "blue")  # none marked
    assert_400(client.post("/api/plan", json={"scenario": marked, "player": "red", "units": ["blue-scouts"]}),
               "units", "blue-scouts")
    assert_400(client.post("/api/check", json={"scenario": data, "fiel": "x.yaml"}), "fiel", "x.yaml")
    assert_400(client.post("/api/new", json={"map": "long_edge", "rulset": "hh2"}), "rulset", "hh2")
    assert_400(client.post("/api/load", json={"path": "web.yaml", "overwrite": True}), "overwrite", True)
    assert client.post("/api/check", json={"scenario": data, "file": "web.yaml"}).status_code == 200


def test_a_body_that_cannot_be_read_gets_the_usual_error_shape(client):
    deep = '{"scenario": ' + "[" * 5000 + "]" * 5000 + "}"
    for text in (deep, "{not json", "[1, 2", "\u00ff"):
        r = _json_post(client, "/api/check", text)
        body = assert_400(r, "body")
        assert set(body) >= {"error", "field", "value"} and "body" in body["error"], body
        assert body["value"] != {} and "field 0" not in body["error"], body
    r = client.post("/api/check", content=b"\xff\xfe{}", headers={"Content-Type": "application/json"})
    assert_400(r, "body")


def test_echoed_values_are_capped(client, folder):
    r = _json_post(client, "/api/plan", '{"scenario": {}, "seed": ' + "9" * 500 + "}")
    body = assert_400(r, "body")
    assert "9" * 41 not in r.text and "500 characters" in body["error"]
    r = client.post("/api/overlay", json={"scenario": scenario(), "kind": "k" * 500, "unit": "blue-scouts"})
    body = assert_400(r, "kind", "k" * 40 + "...")
    assert "k" * 41 not in r.text
    r = client.post("/api/plan", json={"scenario": scenario(), "units": [f"unit-{i}" for i in range(200)]})
    assert r.status_code == 400 and len(json.dumps(r.json()["value"])) <= 45, r.json()
    r = client.post("/api/new", json={"map": "m" * 500})  # a ScenarioError's value
    body = assert_400(r)
    assert body["value"] == "m" * 40 + "..." and "m" * 100 not in r.text, body


def test_an_echoed_value_is_cut_only_when_longer_than_the_cap(client):
    """'...' only where something was cut: a text of exactly 40 characters (this path) is shown
    whole, one of 41 is cut to 40 and '...'; other data by its JSON text."""
    from planner.web.app import MAX_SHOWN_CHARS, _shown

    path = "/work/shared/data/rosters/ironhands.rosz"
    assert len(path) == MAX_SHOWN_CHARS
    assert_400(client.post("/api/load", json={"path": path}), "path", path)
    assert_400(client.post("/api/load", json={"path": path + "x"}), "path", path + "...")
    assert _shown("é" * 40) == "é" * 40  # characters, not JSON's escapes
    exactly = ["x" * 36]  # ["xx...x"]: 40 characters as JSON
    assert len(json.dumps(exactly)) == MAX_SHOWN_CHARS and _shown(exactly) == exactly
    assert _shown(["x" * 37]) == json.dumps(["x" * 37])[:40] + "..."
    assert _shown(float("nan")) == "nan"


def test_import_roster_names_an_unknown_ruleset(client):
    raw = ROSTER.read_bytes()
    body = assert_400(client.post("/api/import-roster", params={"player": "blue", "ruleset": "chess",
                                                                "filename": ROSTER.name}, content=raw),
                      "ruleset", "chess")
    assert "unknown ruleset" in body["error"] and "game system" not in body["error"].lower()


@pytest.mark.parametrize("name", ["gw-app.txt", "newrecruit.json", "listforge.json", "newrecruit-wtc-compact.txt"])
def test_import_roster_reads_40k_lists(client, name):
    from planner.io.roster import army_to_data, import_roster

    path = ROOT / "tests" / "data" / "lists40k" / name
    r = client.post("/api/import-roster", params={"player": "red", "ruleset": "wh40k10", "filename": name,
                                                  "id_prefix": "red-"}, content=path.read_bytes())
    assert r.status_code == 200, r.text
    army, warnings = import_roster(path, "wh40k10", "red", id_prefix="red-", place=True)
    assert r.json()["army"] == army_to_data(army) and r.json()["warnings"] == warnings
    assert r.json()["units"] == len(army.units) == 10


def test_import_roster_40k_list_limits_and_rulesets(client, monkeypatch):
    path = ROOT / "tests" / "data" / "lists40k" / "gw-app.txt"
    # a 40k list for a ruleset that reads none: refused naming the file name
    body = assert_400(client.post("/api/import-roster", params={"player": "red", "ruleset": "hh2",
                                                                "filename": "list.txt"}, content=path.read_bytes()),
                      "filename", "list.txt")
    assert "wh40k10" in body["error"]
    # the text list limits of planner.io.lists40k: too many lines, named with the file
    lines = b"Captain (80 points)\n" * 6000
    r = client.post("/api/import-roster", params={"player": "red", "ruleset": "wh40k11", "filename": "big.txt"},
                    content=lines)
    assert r.status_code == 400 and r.json()["file"] == "big.txt" and "lines" in r.json()["error"], r.text
    monkeypatch.setenv("PLANNER_MAX_INPUT_MB", "0.001")
    r = client.post("/api/import-roster", params={"player": "red", "ruleset": "wh40k10", "filename": "big.json"},
                    content=b"{" + b" " * 2000 + b"}")
    assert r.status_code == 413 and r.json()["file"] == "big.json" and r.json()["field"] == "body", r.text
    assert "the limit of an army list file" in r.json()["error"]
