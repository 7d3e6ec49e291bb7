"""Roster import errors as a fresh user met them: a garbage 40k list gets the same words through
the web API (a plain text body, the default file name ``roster.ros``) as on the command line, and
two rosters with the same ``id_prefix`` are refused at the prefix with another suggested."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from planner.cli.commands import app
from planner.errors import ScenarioError
from planner.world import load_scenario

ROOT = Path(__file__).resolve().parents[1]
GARBAGE = b"hello world\nthis is not an army list\n"


def test_garbage_40k_list_has_the_same_words_on_the_web_and_the_command_line(tmp_path):
    pytest.importorskip("fastapi")
    pytest.importorskip("httpx")
    from fastapi.testclient import TestClient

    from planner.web.app import create_app

    with TestClient(create_app(root=tmp_path), raise_server_exceptions=False) as c:
        r = c.post("/api/import-roster", params={"player": "blue", "ruleset": "wh40k11"}, content=GARBAGE)
    assert r.status_code == 400 and r.json()["file"] == "roster.ros", r.text
    web = r.json()["error"].removeprefix("roster.ros: ")
    assert "none of the formats recognised it" in web and "XML" not in web.split("BattleScribe")[0], web
    for name in ("list.txt", "roster.ros"):  # the CLI on a file of either name: the same words
        path = tmp_path / name
        path.write_bytes(GARBAGE)
        res = CliRunner().invoke(app, ["import-roster", str(path), "--player", "blue", "--ruleset", "wh40k11"])
        assert res.exit_code == 2, res.output
        assert web in " ".join(res.output.split()), res.output


def test_a_broken_xml_roster_still_gets_the_xml_words(tmp_path):
    path = tmp_path / "mine.ros"
    path.write_bytes(b"<roster")
    res = CliRunner().invoke(app, ["import-roster", str(path), "--player", "blue", "--ruleset", "wh40k11"])
    assert res.exit_code == 2 and "not a well-formed XML roster" in res.output, res.output


def test_two_rosters_with_the_same_id_prefix_are_refused_at_the_prefix_with_another_suggested(tmp_path):
    ros = ROOT / "scenarios" / "rosters"
    data = {"ruleset": "wh40k11", "battlefield": {"width": 60, "depth": 44},
            "deployment_zones": [], "terrain": [],
            "armies": [{"player": "red", "roster": {"file": str(ros / "wh40k11-necrons.ros"), "id_prefix": "m-", "place": True}},
                       {"player": "blue", "roster": {"file": str(ros / "wh40k11-necrons.ros"), "id_prefix": "m-", "place": True}}]}
    path = tmp_path / "s.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(path)
    e = exc.value
    assert e.location == "armies[1].roster.id_prefix" and e.value == "m-", str(e)
    assert "the same id_prefix 'm-'" in str(e) and "e.g. id_prefix: 'blue-'" in str(e), str(e)
    data["armies"][1]["roster"]["id_prefix"] = "blue-"  # as suggested: no duplicate left
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    assert load_scenario(path).units


def test_a_duplicate_unit_id_across_armies_names_both_and_the_prefix_way_out(tmp_path):
    one = {"id": "x", "keywords": ["INFANTRY"], "place": True, "models": [{"base": {"diameter_mm": 32}}]}
    data = {"ruleset": "wh40k10", "battlefield": {"width": 60, "depth": 44}, "deployment_zones": [], "terrain": [],
            "armies": [{"player": "red", "units": [one]}, {"player": "blue", "units": [one]}]}
    path = tmp_path / "d.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(path)
    assert exc.value.location == "armies[1].units[0].id" and "also armies[0].units[0].id" in str(exc.value)
    assert "id_prefix" not in str(exc.value)  # no roster here: the prefix is no way out
    # an army from a roster and a hand-written one: the prefix is the way out
    data["armies"][0] = {"player": "red", "roster": {"file": str(ROOT / "scenarios" / "rosters" / "wh40k11-necrons.ros"),
                                                     "id_prefix": "m-", "place": True}}
    data["ruleset"] = "wh40k11"
    path.write_text(yaml.safe_dump({**data, "armies": data["armies"][:1]}), encoding="utf-8")
    taken = next(iter(load_scenario(path).units))
    data["armies"][1]["units"] = [{**one, "id": taken}]
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ScenarioError) as exc:
        load_scenario(path)
    assert exc.value.location == "armies[0].roster.id_prefix" and "another id_prefix" in str(exc.value), str(exc.value)


def test_a_finished_plan_job_unlinks_its_queue_semaphores():
    """``planner serve`` stopped by SIGTERM warned of 6 leaked semaphores after two plans: each
    job's queue (3 semaphores) lived until the interpreter's exit, which SIGTERM skips. The job's
    reader, as it ends, frees them (a job whose process has ended without a word, not spawned here)."""
    import _multiprocessing
    import multiprocessing as mp
    import threading
    from types import SimpleNamespace

    from planner.web.jobs import Job

    job = Job.__new__(Job)
    job.queue = mp.get_context("spawn").Queue()
    job.process = SimpleNamespace(is_alive=lambda: False, exitcode=-15)
    job.status, job.events, job.lock = "running", [], threading.Lock()
    q = job.queue
    names = [lock._semlock.name for lock in (q._rlock, q._wlock, q._sem)]
    del q
    job._read()
    assert job.status == "error" and "exit code -15" in job.events[0][1]["error"]
    assert job.queue is None
    for name in names:  # already unlinked: the tracker has nothing left to warn about
        with pytest.raises(FileNotFoundError):
            _multiprocessing.sem_unlink(name)
