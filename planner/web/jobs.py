"""Plans run by the page: each in its own process (``spawn``), so that the server and the page
stay responsive while CP-SAT and the candidate search use the cores, and Cancel can end it.

The process plans as ``planner plan`` does (:func:`planner.cli.plan.plan_scenario`: a scenario
with a ``deny`` goal by the denial planner). It sends ``("progress", {"objective", "bound",
"elapsed_s"})`` for each improving solution (the planner's ``on_progress``; none for a denial),
then one ``("result", PlanResult or DenyResult as JSON with ``scenario_data``)``, ``("error", HTTP 400 body)`` or ``("internal", HTTP 500 body)``.
"""

from __future__ import annotations

import asyncio
import json
import multiprocessing as mp
import queue
import threading
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

from planner.errors import ScenarioError

MAX_JOBS_KEPT = 20
"""Finished jobs kept for GET /api/plan/{id} (the oldest are forgotten)."""
MAX_RUNNING = 2
"""Plans running at once (each is a solver process with its own workers)."""


def _worker(data: dict, file: str | None, units: list[str] | None, time_limit: float, workers: int, seed: int,
            out: Any) -> None:
    """The job's process: validate, check the table, plan; every outcome is one message on ``out``.
    ``data``: the scenario data the request was checked with (``World.raw`` of the server's
    :func:`planner.world.scenario_world`: each roster's units in place of its reference, so no
    file is read here and the result's ``scenario_data`` holds them with their positions).
    A Ctrl-C of the server's terminal is ignored here: the server ends its jobs (cancel, stop_all),
    and a plan cut by it is not an error of the planner."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        from rich.console import Console

        from planner.cli.plan import placing_for, plan_scenario, table_violations
        from planner.solve.planner import SolverSettings
        from planner.world import scenario_world

        world = scenario_world(data, file)
        placing = placing_for(world, units)
        found = table_violations(world, placing)
        if found:
            out.put(("result", {"status": "illegal_table", "message": "the units already on the table break a rule "
                                "before anything is placed", "violations": [v.model_dump(mode="json") for v in found],
                                "placements": [], "legal": False}))
            return

        def progress(obj: float | None, bound: float | None, elapsed: float) -> None:
            out.put(("progress", {"objective": obj, "bound": bound, "elapsed_s": round(elapsed, 3)}))

        settings = SolverSettings(time_limit_s=time_limit, workers=workers, seed=seed)
        # as `planner plan` plans: a deny goal by the denial planner (no progress events then), others by CP-SAT
        result, _ = plan_scenario(world, settings, Console(quiet=True), quiet=True, units=units, on_progress=progress)
        from planner.report.ruling import plan_json

        payload = plan_json(result, {"scenario"})
        from planner.web.board import json_safe

        out.put(("result", json_safe(payload)))
    except ScenarioError as exc:
        out.put(("error", {"error": str(exc), "file": exc.file, "field": exc.location,
                           "value": exc.value if isinstance(exc.value, str | int | float | None) else repr(exc.value)}))
    except BaseException as exc:  # noqa: BLE001 - reported to the page as an internal error
        import os
        import tempfile
        import traceback

        fd, name = tempfile.mkstemp(prefix="planner-error-", suffix=".log")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("".join(traceback.format_exception(exc)))
        out.put(("internal", {"error": f"internal error: a bug in the planner, please report it; the traceback "
                                       f"is in {name}"}))


class Job:
    """One plan: its process, the events it sent, its status (running, done, error, cancelled)."""

    def __init__(self, data: dict, file: str | None, units: list[str] | None, time_limit: float, workers: int,
                 seed: int):
        self.id = uuid.uuid4().hex[:12]
        ctx = mp.get_context("spawn")
        self.queue: Any = ctx.Queue()  # None once the job has ended (:meth:`_release`)
        self.process = ctx.Process(target=_worker, args=(data, file, units, time_limit, workers, seed, self.queue),
                                   daemon=True)
        self.events: list[tuple[str, dict]] = []
        self.status = "running"
        self.started = time.monotonic()
        self.lock = threading.Lock()
        self.process.start()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        try:
            self._read_events()
        finally:
            self._release()

    def _release(self) -> None:
        """Drop the queue once the job has ended: its three semaphores are unlinked (and leave the
        resource tracker) as it is freed, not left for the interpreter's exit, which a server
        stopped by SIGTERM never reaches (it warned of "leaked semaphore objects", 3 per plan)."""
        q, self.queue = self.queue, None
        if q is not None:
            q.close()

    def _read_events(self) -> None:
        while True:
            try:
                kind, payload = self.queue.get(timeout=0.2)
            except queue.Empty:
                if not self.process.is_alive() and self.queue.empty():
                    with self.lock:
                        if self.status == "running":  # the process died without a word
                            self.status = "error"
                            self.events.append(("internal", {"error": "internal error: the planning process "
                                                f"ended with exit code {self.process.exitcode}"}))
                    return
                continue
            except (EOFError, OSError):
                return
            with self.lock:
                if self.status == "cancelled":
                    return
                self.events.append((kind, payload))
                if kind == "result":
                    self.status = "done"
                elif kind in ("error", "internal"):
                    self.status = "error"
            if kind != "progress":
                self.process.join(timeout=5)
                return

    def cancel(self) -> None:
        with self.lock:
            if self.status != "running":
                return
            self.status = "cancelled"
            self.events.append(("cancelled", {"elapsed_s": round(time.monotonic() - self.started, 3)}))
        self.process.terminate()
        self.process.join(timeout=5)
        if self.process.is_alive():
            self.process.kill()

    def snapshot(self) -> dict[str, Any]:
        with self.lock:
            result = next((p for k, p in self.events if k in ("result", "error", "internal", "cancelled")), None)
            return {"job": self.id, "status": self.status,
                    "progress": [p for k, p in self.events if k == "progress"], "result": result}

    async def stream(self) -> AsyncIterator[str]:
        """Server-sent events: every event so far, then new ones until the job ends."""
        sent = 0
        while True:
            with self.lock:
                new = self.events[sent:]
                running = self.status == "running"
            for kind, payload in new:
                yield f"event: {kind}\ndata: {json.dumps(payload, allow_nan=False)}\n\n"
            sent += len(new)
            if not running and not new:
                return
            await asyncio.sleep(0.1)


class Jobs:
    """The server's plans, by id."""

    def __init__(self) -> None:
        self.jobs: dict[str, Job] = {}

    def start(self, data: dict, file: str | None, units: list[str] | None, time_limit: float, workers: int,
              seed: int) -> Job:
        running = [j.id for j in self.jobs.values() if j.status == "running"]
        if len(running) >= MAX_RUNNING:
            raise ScenarioError(f"{len(running)} plans are running already; wait or cancel one", location="plan",
                                value=running)
        job = Job(data, file, units, time_limit, workers, seed)
        self.jobs[job.id] = job
        done = [j for j in self.jobs.values() if j.status != "running"]
        for old in done[:max(0, len(self.jobs) - MAX_JOBS_KEPT)]:
            self.jobs.pop(old.id, None)
        return job

    def get(self, job_id: str) -> Job:
        job = self.jobs.get(job_id)
        if job is None:
            raise ScenarioError("no plan with this id", location="job", value=job_id)
        return job

    def stop_all(self) -> None:
        for job in list(self.jobs.values()):
            job.cancel()
        for job in list(self.jobs.values()):
            job.reader.join(timeout=2)  # each reader releases its job's queue as it returns
