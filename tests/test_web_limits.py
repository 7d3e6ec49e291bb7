"""The web server's limits (planner/web/app.py): every file a request's scenario refers to stays
inside the server's folder (as /api/load), a JSON body is read with a JSON file's size limit, and
/api/check says when there is nothing placed to check."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

pytest.importorskip("fastapi")
pytest.importorskip("httpx")

from fastapi.testclient import TestClient  # noqa: E402

from planner.web.app import create_app  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
ASSET = ROOT / "tests" / "assets" / "web-infiltrate.yaml"
ROSTER = ROOT / "tests" / "assets" / "newrecruit-hh2.ros"


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "root"
    (root / "sub").mkdir(parents=True)
    shutil.copy(ROSTER, root / "army.ros")
    shutil.copy(ROSTER, tmp_path / "outside.ros")  # exists, but outside the server's folder
    (root / "link.ros").symlink_to(tmp_path / "outside.ros")
    return root


@pytest.fixture
def client(folder):
    with TestClient(create_app(root=folder), raise_server_exceptions=False) as c:
        yield c


def with_roster(file: str) -> dict:
    data = yaml.safe_load(ASSET.read_text())
    data["armies"][0] = {"player": "red", "roster": {"file": file, "place": True}}
    return data


OUTSIDE = ["/etc/passwd", "/etc/hostname", "../../../../../etc/hostname", "../outside.ros", "link.ros",
           "sub/../../outside.ros", "/nonexistent/x.ros", "../missing.ros"]


@pytest.mark.parametrize("given", OUTSIDE)
def test_check_refuses_a_roster_outside_the_folder(client, folder, given):
    r = client.post("/api/check", json={"scenario": with_roster(given)})
    assert r.status_code == 400, r.text
    body = r.json()
    assert (body["field"], body["value"]) == ("armies[0].roster.file", given)
    # the same words whether the outside file exists or not, and nothing of its contents
    assert body["detail"] == f"the page may only use files inside {folder}"
    assert "XML" not in r.text and "well-formed" not in r.text and "No such" not in r.text


def test_a_roster_inside_the_folder_is_imported(client, folder):
    r = client.post("/api/check", json={"scenario": with_roster("army.ros")})
    assert r.status_code == 200, r.text
    assert any(u["player"] == "red" and u["id"] != "red-guard" for u in r.json()["board"]["units"])
    assert client.post("/api/check", json={"scenario": with_roster(str(folder / "army.ros"))}).status_code == 200
    # relative to the scenario's file when that is inside the folder, else to the folder itself
    shutil.copy(ROSTER, folder / "sub" / "here.ros")
    ok = client.post("/api/check", json={"scenario": with_roster("here.ros"), "file": "sub/s.yaml"})
    assert ok.status_code == 200, ok.text
    r = client.post("/api/check", json={"scenario": with_roster("army.ros"), "file": "/somewhere/else.yaml"})
    assert r.status_code == 200, r.text
    # an error of the import names the value as given, not the real path
    (folder / "bad.ros").write_text("<roster")
    r = client.post("/api/check", json={"scenario": with_roster("bad.ros")})
    assert r.status_code == 400 and r.json()["value"] == "bad.ros" and r.json()["field"] == "armies[0].roster.file"
    r = client.post("/api/check", json={"scenario": with_roster("army.exe")})
    assert r.status_code == 400 and r.json()["value"] == "army.exe" and "must end in" in r.json()["error"]


@pytest.mark.parametrize("endpoint, extra", [
    ("/api/render", {}), ("/api/ruling", {}), ("/api/overlay", {"kind": "legal", "unit": "blue-scouts"}),
    ("/api/save", {"path": "new.yaml"}), ("/api/plan", {}), ("/api/suggest", {})])
def test_every_endpoint_with_a_scenario_refuses_an_outside_roster(client, folder, endpoint, extra):
    r = client.post(endpoint, json={"scenario": with_roster("/etc/passwd"), **extra})
    assert r.status_code == 400, r.text
    assert (r.json()["field"], r.json()["value"]) == ("armies[0].roster.file", "/etc/passwd")
    assert not (folder / "new.yaml").exists()


def test_load_refuses_a_scenario_whose_roster_is_outside(client, folder):
    (folder / "s.yaml").write_text(yaml.safe_dump(with_roster("../outside.ros")))
    r = client.post("/api/load", json={"path": "s.yaml"})
    assert r.status_code == 400, r.text
    assert (r.json()["field"], r.json()["value"]) == ("armies[0].roster.file", "../outside.ros")
    (folder / "sub" / "t.yaml").write_text(yaml.safe_dump(with_roster("../army.ros")))
    r = client.post("/api/load", json={"path": "sub/t.yaml"})
    assert r.status_code == 200, r.text
    assert "roster" not in r.json()["scenario"]["armies"][0]  # its units replace the reference


# ---------------------------------------------------------------------------- body size

def test_a_body_over_the_json_limit_is_refused(client, monkeypatch):
    monkeypatch.setenv("PLANNER_MAX_INPUT_MB", "0.01")  # 10 kB
    small = {"scenario": with_roster("army.ros")}
    assert client.post("/api/check", json=small).status_code == 200
    big = {"scenario": {**with_roster("army.ros"), "description": "x" * 20000}}
    r = client.post("/api/check", json=big)
    assert r.status_code == 413, r.text
    assert r.json()["field"] == "body" and "0.01 MB" in r.json()["error"]

    def stream():  # no Content-Length: refused once the stream passes the limit
        for _ in range(100):
            yield b" " * 1000

    r = client.post("/api/check", content=stream(), headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["value"] == f"more than {int(0.01 * 1048576)} bytes"


def test_a_30_mb_body_is_refused_by_its_content_length(client):
    r = client.post("/api/check", content=b" " * (30 * 1048576), headers={"content-type": "application/json"})
    assert r.status_code == 413 and "20 MB" in r.json()["error"]


# ---------------------------------------------------------------------------- a client that hangs up

@pytest.mark.parametrize("path, query", [("/api/check", b""),  # a JSON body (JsonBodyRoute's reader)
                                         ("/api/import-roster", b"player=blue&filename=army.ros")])  # an upload
def test_a_client_hanging_up_mid_body_is_no_internal_error(folder, caplog, path, query):
    """The body stops with ``http.disconnect``: the request ends with one log line, no
    ClientDisconnect traceback (the app raising it is what uvicorn prints as "Exception in ASGI
    application"), no internal error log file."""
    import asyncio
    import logging

    app = create_app(root=folder)
    messages = [{"type": "http.request", "body": b'{"scenario": {', "more_body": True}, {"type": "http.disconnect"}]
    sent: list[dict] = []

    async def receive() -> dict:
        return messages.pop(0) if messages else {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)

    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "POST", "scheme": "http",
             "path": path, "raw_path": path.encode(), "query_string": query, "root_path": "",
             "headers": [(b"host", b"testserver"), (b"content-type", b"application/json"),
                         (b"content-length", b"1000")],
             "client": ("127.0.0.1", 5000), "server": ("testserver", 80)}
    with caplog.at_level(logging.DEBUG):
        asyncio.run(app(scope, receive, send))  # raises nothing
    assert [m["status"] for m in sent if m["type"] == "http.response.start"] == [400]
    assert b"internal error" not in b"".join(m.get("body", b"") for m in sent)
    lines = [r for r in caplog.records if r.name.startswith("planner")]
    assert len(lines) == 1 and "closed the request" in lines[0].getMessage() and lines[0].exc_info is None
    assert not [r for r in caplog.records if r.exc_info], caplog.text
