"""The JSON API under ``/api/`` and the page (``/``), FastAPI; ``/docs`` is the OpenAPI page.

Every request that carries a scenario sends its data (the page keeps it and edits it: positions,
facings, ``place`` marks, imported armies) and it is validated exactly as a file is: the schema
(:class:`planner.schema.Scenario`) and :func:`planner.world.resolve`. The error contract is the
command line's: input that cannot be used is **HTTP 400** with ``{"error", "file", "field",
"value"}`` naming the field path and the value; ``409`` asks before writing over a file
(``overwrite: true`` confirms); an error of our own is **HTTP 500** with the name of a log file
holding the traceback, never the traceback itself.

Files: the server opens and saves files only inside its ``root`` folder (``planner serve`` gives
the current folder, or the scenario's folder), so a page cannot read or write elsewhere; uploads
(rosters) are bounded by the roster limit of :func:`planner.io.files.input_limit` and parsed by
:func:`planner.import_roster` with its safe XML and zip rules.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import tempfile
import time
import traceback
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any, Literal

from fastapi import FastAPI, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse, Response, StreamingResponse
from fastapi.routing import APIRoute
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field
from starlette.exceptions import HTTPException as StarletteHTTPException

from planner.errors import PlannerError, ScenarioError
from planner.web.board import json_safe

STATIC = Path(__file__).parent / "static"
log = logging.getLogger("planner.web")

SCENARIO_SUFFIXES = (".yaml", ".yml", ".json")
ROSTER_SUFFIXES = (".ros", ".rosz", ".xml")
LIST_SUFFIXES = (".txt", ".json")
"""40k army lists (:mod:`planner.io.lists40k`): read for the rulesets wh40k10 and wh40k11."""
MAX_SHOWN_CHARS = 40
"""An echoed ``value`` longer than this (a text's characters, other data's as JSON) is cut to this
many characters and '...'."""


# ----------------------------------------------------------------------------- request bodies

class ScenarioBody(BaseModel):
    """A scenario as data (what a scenario file holds) and the file it came from, if any."""

    model_config = ConfigDict(extra="forbid")  # a typo of a field is an error, not a default

    scenario: dict[str, Any] = Field(description="The scenario data, validated as a scenario file is.")
    file: str | None = Field(default=None, description="Name the data came from (named in errors).")


class OverlayBody(ScenarioBody):
    kind: Literal["infiltrate", "legal", "heat", "threat"]
    unit: str
    resolution: float = Field(default=1.0, ge=0.25, le=12.0, description="Heat-map cell, inches.")
    grid: float = Field(default=2.0, ge=0.5, le=12.0, description="Threat anchor grid, inches.")


class RenderBody(ScenarioBody):
    format: Literal["svg", "png"] = "svg"
    exclusion: str | None = Field(default=None, description="PLAYER or UNIT: Infiltrate distances round its enemies.")
    legal_area: str | None = Field(default=None, description="UNIT: where its bases may stand.")
    heat: str | None = Field(default=None, description="UNIT: its Deep Strike heat map.")
    sight_lines: bool = True


class RulingBody(ScenarioBody):
    format: Literal["html", "markdown"] = "html"


class PlanBody(ScenarioBody):
    units: list[str] | None = Field(default=None, description="Units to place (marked 'place: true' by the page); "
                                                              "None: every marked unit.")
    time_limit: float = Field(default=10.0, ge=0.1, le=3600.0, description="Solver time limit, seconds.")
    workers: int = Field(default=2, ge=1, le=64)
    seed: int = Field(default=0, ge=0, le=2**31 - 1)
    player: str | None = Field(default=None, description="Plan the marked units of this player (None: of every "
                                                         "player, or the given units).")


class SuggestBody(ScenarioBody):
    units: list[str] | None = None
    time_limit: float = Field(default=10.0, ge=0.1, le=600.0)


class SaveBody(ScenarioBody):
    path: str = Field(description="Where to write, inside the server's folder (.yaml, .yml or .json).")
    overwrite: bool = Field(default=False, description="Confirmed: write over an existing file (or the opened one).")


class NewBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    ruleset: str = "hh2"
    map: str = Field(description="A deployment map of GET /api/maps.")
    players: tuple[str, str] = ("red", "blue")
    name: str = ""


class LoadBody(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="A scenario file inside the server's folder, or a bundled one (GET /api/scenarios).")


# ----------------------------------------------------------------------------- helpers

def _shown(value: Any) -> Any:
    """``value`` as an error echoes it: JSON data (else its ``repr``), and, when longer than
    :data:`MAX_SHOWN_CHARS` characters (a text's own, other data's as JSON), its text cut to that
    length with '...' (only then: a value of exactly that length is shown whole)."""
    if isinstance(value, str):
        text = value
    else:
        try:
            text = json.dumps(value, allow_nan=False)
        except (TypeError, ValueError):
            value = text = repr(value)
    if len(text) <= MAX_SHOWN_CHARS:
        return value
    return text[:MAX_SHOWN_CHARS] + "..."


def _error_body(exc: ScenarioError) -> dict[str, Any]:
    return {"error": str(exc), "file": exc.file, "field": exc.location, "value": _shown(exc.value),
            "detail": exc.detail}


class JsonBodyRoute(APIRoute):
    """A route whose JSON body is read by :func:`planner.io.files.parse_json` first, with the limits
    of every input (duplicate keys, nesting depth, number length, NaN): HTTP 400 naming the
    ``body`` (and the key), before FastAPI reads it. The body is read with the size limit of a
    JSON file (:data:`planner.io.files.MAX_FILE_BYTES`, or ``PLANNER_MAX_INPUT_MB``): a larger
    ``Content-Length`` is refused before reading, a longer stream as soon as it passes the limit
    (HTTP 413 naming the limit)."""

    def get_route_handler(self) -> Callable[[Request], Coroutine[Any, Any, Response]]:
        handler = super().get_route_handler()
        if self.body_field is None:
            return _closed_is_no_error(handler)  # raw uploads (import-roster) are read by their own reader

        async def parse_first(request: Request) -> Response:
            from planner.io.files import MAX_FILE_BYTES, input_limit, parse_json

            limit = input_limit(MAX_FILE_BYTES)
            declared = request.headers.get("content-length")
            if declared is not None:
                if not declared.strip().isdigit():
                    raise ScenarioError("the Content-Length header is not a number of bytes",
                                        location="Content-Length", value=declared)
                if int(declared) > limit:
                    return _too_large(limit, int(declared))
            size = 0
            chunks: list[bytes] = []
            async for chunk in request.stream():
                size += len(chunk)
                if size > limit:
                    return _too_large(limit, None)
                chunks.append(chunk)
            raw = b"".join(chunks)
            request._body = raw  # FastAPI reads these bytes next (Request.body() keeps them here)
            if raw.strip():
                try:
                    text = raw.decode("utf-8")
                except UnicodeDecodeError:
                    raise ScenarioError("the request body is not UTF-8 text", location="body") from None
                try:
                    parse_json(text, "request body")
                except ScenarioError as exc:
                    raise ScenarioError(f"the request body is not valid JSON: {exc.detail}", location="body",
                                        value=exc.value) from None
            return await handler(request)

        return _closed_is_no_error(parse_first)


def _closed_is_no_error(handler: Callable[[Request], Coroutine[Any, Any, Response]]
                        ) -> Callable[[Request], Coroutine[Any, Any, Response]]:
    """``handler``, where a client that hangs up before its body is read (Starlette's
    ``ClientDisconnect``) ends the request quietly: one log line (level INFO), an HTTP 400 no one
    reads, not an internal error with a traceback."""
    from starlette.requests import ClientDisconnect

    async def guarded(request: Request) -> Response:
        try:
            return await handler(request)
        except ClientDisconnect:
            log.info("%s %s: the client closed the request before its body was read", request.method,
                     request.url.path)
            return JSONResponse(status_code=400, content={
                "error": "the client closed the request before its body was read", "field": "body", "value": None})

    return guarded


def _too_large(limit: int, declared: int | None, what: str = "the request body is larger than the limit of a "
               "JSON file", file: str | None = None) -> JSONResponse:
    """HTTP 413: the body is larger than ``limit`` bytes (``declared``: its Content-Length);
    ``what`` says which limit, ``file`` names the upload."""
    value = f"{declared} bytes" if declared is not None else f"more than {limit} bytes"
    return JSONResponse(status_code=413, headers={"Connection": "close"}, content={
        "error": f"{f'{file}: ' if file else ''}{what}, {limit / 1048576:.3g} MB (the environment variable "
                 f"PLANNER_MAX_INPUT_MB sets another) (value: {value!r})",
        "file": file, "field": "body", "value": value, "detail": "too large"})


def _internal(exc: BaseException) -> JSONResponse:
    """HTTP 500 with the name of a log file that holds the traceback (never the traceback)."""
    from planner import __version__

    try:
        fd, name = tempfile.mkstemp(prefix="planner-error-", suffix=".log")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(f"planner {__version__}; planner serve\n")
            fh.write("".join(traceback.format_exception(exc)))
        where = f"; the traceback is in {name}"
    except OSError as err:
        where = f"; no log file could be written ({err.strerror})"
    return JSONResponse(status_code=500, content={
        "error": f"internal error: a bug in the planner, please report it{where}", "field": None, "value": None})


def _world(body: ScenarioBody, root: Path, *, require_positions: bool = False):
    """Validate the scenario data as a file is validated, and resolve it; every file it refers to
    (its rosters) must be inside ``root`` (:func:`_confined`). ``World.raw``: the data with each
    roster's units in place of its reference (:func:`planner.world.scenario_world`)."""
    return _resolved(root, body.scenario, body.file, _base_dir(root, body.file), require_positions)


def _load_world(root: Path, path: Path, *, confine: bool):
    """A scenario file as :func:`planner.world.load_scenario` reads it; with ``confine`` (a file of
    the server's folder, not a bundled one) the rosters it refers to must be inside ``root``."""
    from planner.io.files import read_data
    from planner.world import load_scenario

    if not confine:
        return load_scenario(path)
    return _resolved(root, read_data(path), str(path), path.parent, False)


def _resolved(root: Path, raw: Any, file: str | None, base: Path, require_positions: bool):
    """``raw`` with its roster references confined to ``root`` (:func:`_confined`, relative to
    ``base``), validated and resolved as :func:`planner.world.load_scenario` does a file's data
    (the one code of both); errors name the roster values as given."""
    from planner.world import scenario_world

    data, given = _confined(root, raw, file, base)
    try:
        return scenario_world(data, file, require_positions=require_positions)
    except ScenarioError as exc:
        raise _as_given(exc, given) from None


def _base_dir(root: Path, file: str | None) -> Path:
    """The folder a scenario's relative file references are read from: that of ``file`` when it is
    inside ``root``, else ``root`` (never the server's working folder)."""
    if file and "\x00" not in file:
        real = Path(os.path.realpath(root / file))  # an absolute ``file`` stays itself
        if root in real.parents:
            return real.parent
    return root


def _confined(root: Path, data: Any, file: str | None, base: Path) -> tuple[Any, dict[str, str]]:
    """``data`` with every file reference of the scenario schema (``armies[i].roster.file``, the
    only one) resolved against ``base`` by :func:`_inside` (the check of ``/api/load``: inside
    ``root`` after symlinks and ``..``, a roster or army-list suffix) and replaced by that real
    path; and the values as given, by field. ``data`` itself is not changed.

    Raises
    ------
    ScenarioError
        A reference outside ``root`` (HTTP 400 naming the field and the value; whether such a file
        exists is not said).
    """
    armies = data.get("armies") if isinstance(data, dict) else None
    if not isinstance(armies, list):
        return data, {}
    given: dict[str, str] = {}
    out = list(armies)
    for ai, army in enumerate(armies):
        ref = army.get("roster") if isinstance(army, dict) else None
        name = ref.get("file") if isinstance(ref, dict) else None
        if not isinstance(ref, dict) or not isinstance(name, str) or not name:
            continue  # the schema reports it
        field = f"armies[{ai}].roster.file"
        real = _inside(root, name, field, ROSTER_SUFFIXES + LIST_SUFFIXES, base=base, file=file)
        given[field] = name
        out[ai] = {**army, "roster": {**ref, "file": str(real)}}
    return ({**data, "armies": out}, given) if given else (data, given)


def _as_given(exc: ScenarioError, given: dict[str, str]) -> ScenarioError:
    """``exc`` naming the value the user gave at its field (not the real path :func:`_confined` put there)."""
    if exc.location in given:
        return ScenarioError(exc.detail, file=exc.file, location=exc.location, value=given[exc.location])
    return exc


def _inside(root: Path, given: str, field: str, suffixes: tuple[str, ...], *, base: Path | None = None,
            file: str | None = None) -> Path:
    """``given`` (relative to ``base``, default ``root``, or absolute) as a real path inside
    ``root`` (symlinks and ``..`` followed), with one of ``suffixes``: the one check of every file a
    request names. ``file``: the scenario named in the error."""
    if not given or "\x00" in given:
        raise ScenarioError("give a file name", file=file, location=field, value=given)
    p = Path(given)
    if not p.is_absolute():
        p = (base or root) / p
    real = Path(os.path.realpath(p))
    if real != root and root not in real.parents:
        raise ScenarioError(f"the page may only use files inside {root}", file=file, location=field, value=given)
    if real.suffix.lower() not in suffixes:
        raise ScenarioError(f"the file must end in {', '.join(suffixes)}", file=file, location=field, value=given)
    return real


def _bundled() -> list[dict[str, str]]:
    """The bundled scenarios (``scenarios/`` of a source tree), as paths and names."""
    root = Path(__file__).resolve().parents[2] / "scenarios"
    out = []
    if root.is_dir():
        for f in sorted(root.rglob("*.yaml")):
            out.append({"path": str(f), "name": str(f.relative_to(root))})
    return out


def _maps(ruleset: str) -> list[str]:
    from planner.rules.registry import find_ruleset

    return list(find_ruleset(ruleset).DEPLOYMENT_MAPS)


def new_scenario(body: NewBody) -> dict[str, Any]:
    """A scenario with no armies: the ruleset's default battlefield and the zones of its deployment
    map (:meth:`planner.rules.base.Ruleset.deployment_map`), a centre objective.

    Raises
    ------
    ScenarioError
        Unknown ruleset, map or equal player names.
    """
    from planner.rules.registry import find_ruleset

    try:
        rs = find_ruleset(body.ruleset)
    except ScenarioError as exc:
        raise ScenarioError(exc.detail, location="ruleset", value=body.ruleset) from None
    a, b = (p.strip() for p in body.players)
    if not a or not b or a == b:
        raise ScenarioError("give two different player names", location="players", value=list(body.players))
    za, zb = rs.deployment_map(body.map)
    w, d = rs.default_width_in, rs.default_depth_in
    return {"ruleset": rs.id, "name": body.name or f"{rs.name}: {body.map}",
            "battlefield": {"width": w, "depth": d},
            "deployment_zones": [{"id": f"{p}-zone", "player": p, "polygon": pts} for p, pts in ((a, za), (b, zb))],
            "terrain": [], "objectives": [{"id": "centre", "x": w / 2, "y": d / 2}],
            "armies": [{"player": a, "units": []}, {"player": b, "units": []}]}


def _check(world) -> dict[str, Any]:
    """The checker's report as JSON; each finding also carries ``measured_text`` and
    ``margin_text``, printed as the rulings print them (:mod:`planner.report.ruling`: a margin of
    zero that fails reads '0.000" (fails)')."""
    from planner.legality.checker import check_deployment
    from planner.report.ruling import fmt_margin_of, fmt_measured

    report = check_deployment(world)
    data = report.model_dump(mode="json")
    for u, ud in zip(report.units, data["units"], strict=True):
        for f, fd in zip(u.findings, ud["findings"], strict=True):
            fd["measured_text"], fd["margin_text"] = fmt_measured(f), fmt_margin_of(f)
    return data


def _verdict(report: dict[str, Any]) -> dict[str, Any]:
    """What ``legal`` (the checker's verdict, for the units on the table) covers, in words:
    ``to_place`` (the ids of the units still to place, not checked) and ``message``."""
    waiting = [u["unit"] for u in report["units"] if u.get("to_place")]
    n_bad, n = len(report["violations"]), len(waiting)
    if not report["units"]:
        message = "no units to check: the scenario has no units, so no rule was checked"
    elif not report["legal"]:
        message = f"illegal: {n_bad} violation{'s' if n_bad != 1 else ''}"
    elif n == len(report["units"]):
        message = (f"nothing placed yet: all {n} unit{'s are' if n != 1 else ' is'} still to place (marked place: "
                   "true, no positions), so no rule was checked")
    elif n:
        message = (f"legal so far: every rule checked passed; {n} unit{'s' if n != 1 else ''} still to place, "
                   "not checked")
    else:
        message = "legal: every rule checked passed"
    return {"to_place": waiting, "message": message}


# ----------------------------------------------------------------------------- the app

def create_app(scenario: str | None = None, root: str | Path | None = None,
               allowed_hosts: list[str] | None = None) -> FastAPI:
    """The web application: the page at ``/``, the API under ``/api/``, OpenAPI at ``/docs``.

    Parameters
    ----------
    scenario : str, optional
        A scenario file the page opens first (``GET /api/initial``).
    root : path, optional
        The only folder the page may open and save files in (default: the current folder).
    allowed_hosts : list of str, optional
        Host names a request may name (its ``Host`` header; others get HTTP 400), so that a web
        page elsewhere cannot reach this server through a DNS name of its own (DNS rebinding).
        None: any (the test client). Cross-site form posts are refused anyway: the API reads JSON
        bodies only with a JSON content type.
    """
    from planner import __version__
    from planner.web.jobs import Jobs

    jobs = Jobs()

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI):
        yield
        jobs.stop_all()  # no solver process outlives the server

    app = FastAPI(title="deployment-planner", version=__version__, lifespan=lifespan,
                  description="Check and plan army deployments: the API of the `planner serve` page.")
    root_dir = Path(os.path.realpath(root or os.getcwd()))
    if allowed_hosts is not None:
        from starlette.middleware.trustedhost import TrustedHostMiddleware

        app.add_middleware(TrustedHostMiddleware, allowed_hosts=allowed_hosts)
    app.state.root = root_dir
    app.state.initial = scenario
    app.state.opened = set()  # real paths of the files the page opened: never written without asking
    app.state.jobs = jobs
    app.router.route_class = JsonBodyRoute

    @app.exception_handler(ScenarioError)
    async def _scenario_error(request: Request, exc: ScenarioError) -> JSONResponse:
        return JSONResponse(status_code=400, content=json_safe(_error_body(exc)))

    @app.exception_handler(PlannerError)
    async def _planner_error(request: Request, exc: PlannerError) -> JSONResponse:
        if exc.exit_code == 4:
            return _internal(exc)
        return JSONResponse(status_code=400, content={"error": str(exc), "field": None, "value": None})

    @app.exception_handler(RequestValidationError)
    async def _request_error(request: Request, exc: RequestValidationError) -> JSONResponse:
        errs = exc.errors()
        first = errs[0] if errs else {}
        loc = [str(p) for p in first.get("loc", ()) if p != "body"]
        field = ".".join(loc) or "body"
        value = _shown(first.get("input"))
        msg = first.get("msg", "invalid request")
        return JSONResponse(status_code=400, content={"error": f"field {field}: {msg} (value: {value!r})",
                                                      "field": field, "value": value, "detail": msg})

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        detail = str(exc.detail)
        return JSONResponse(status_code=exc.status_code, headers=exc.headers,
                            content={"error": detail, "field": None, "value": None, "detail": detail})

    @app.exception_handler(Exception)
    async def _any_error(request: Request, exc: Exception) -> JSONResponse:
        return _internal(exc)

    # ------------------------------------------------------------------ listings
    @app.get("/api/rulesets")
    def rulesets() -> list[dict[str, Any]]:
        """Every ruleset: id, name, whether it has a deployment checker and a planner, its rule ids."""
        from planner.rules.registry import all_rulesets

        return [{"id": r.id, "name": r.name, "checker": bool(r.HAS_DEPLOYMENT_CHECKER),
                 "rules": [{"rule": x.id, "meaning": x.meaning, "source": x.source} for x in r.rules]}
                for r in all_rulesets()]

    @app.get("/api/maps")
    def maps(ruleset: str = Query("hh2", description="Ruleset id.")) -> dict[str, Any]:
        """The deployment maps a new scenario of ``ruleset`` can use."""
        try:
            return {"ruleset": ruleset, "maps": _maps(ruleset)}
        except ScenarioError as exc:
            raise ScenarioError(exc.detail, location="ruleset", value=ruleset) from None

    @app.get("/api/scenarios")
    def scenarios() -> dict[str, Any]:
        """The bundled scenarios and the scenario files in the server's folder."""
        mine = [str(p.relative_to(root_dir)) for p in sorted(root_dir.glob("*")) if p.suffix in SCENARIO_SUFFIXES]
        return {"root": str(root_dir), "bundled": _bundled(), "files": mine, "initial": app.state.initial}

    # ------------------------------------------------------------------ scenario in, board out
    @app.post("/api/load")
    def load(body: LoadBody) -> dict[str, Any]:
        """Open a scenario file: its data (rosters it references imported), the board, the check."""
        bundled = {b["path"] for b in _bundled()}
        trusted = body.path in bundled or body.path == app.state.initial
        if trusted:
            path = Path(os.path.realpath(body.path))
        else:
            path = _inside(root_dir, body.path, "path", SCENARIO_SUFFIXES)
        world = _load_world(root_dir, path, confine=not trusted)
        app.state.opened.add(str(path))
        from planner.web.board import board

        report = _check_or_none(world)
        return JSONResponse(json_safe({"file": str(path), "scenario": world.raw, "board": board(world),  # type: ignore[return-value]
                                       "report": report}))

    @app.post("/api/new")
    def new(body: NewBody) -> dict[str, Any]:
        """A new scenario: the ruleset's battlefield and the map's zones, no armies yet."""
        from planner.web.board import board

        data = new_scenario(body)
        return {"file": None, "scenario": data, "board": board(_world(ScenarioBody(scenario=data), root_dir)), "report": None}

    @app.post("/api/check")
    def check(body: ScenarioBody) -> dict[str, Any]:
        """The checker's verdict (:func:`planner.check_deployment`) and the board. Units without
        positions are not checked (listed with no findings): ``to_place`` names them, and
        ``message`` says what ``report.legal`` covers."""
        from planner.web.board import board

        t0 = time.perf_counter()
        world = _world(body, root_dir)
        if not world.units:  # nothing to judge is not a legal deployment: the command line's exit 2
            raise ScenarioError("the scenario has no units to check (add armies with units)", file=body.file,
                                location="armies")
        t1 = time.perf_counter()
        report = _check(world)
        t2 = time.perf_counter()
        # a JSONResponse skips FastAPI's jsonable_encoder (50 ms on the 2 x 100 model report)
        response = JSONResponse({"report": report, "board": board(world), **_verdict(report)})
        t3 = time.perf_counter()
        response.headers["Server-Timing"] = (f"resolve;dur={(t1 - t0) * 1000:.1f}, check;dur={(t2 - t1) * 1000:.1f}, "
                                             f"encode;dur={(t3 - t2) * 1000:.1f}")
        return response  # type: ignore[return-value]

    @app.post("/api/overlay")
    def overlay(body: OverlayBody) -> dict[str, Any]:
        """An overlay: Infiltrate distances, a unit's legal area, a Deep Strike heat map, a threat area."""
        from planner.web.board import overlay as make

        data = make(_world(body, root_dir), body.kind, body.unit, resolution=body.resolution, grid=body.grid)
        return JSONResponse(json_safe(data))  # type: ignore[return-value]

    @app.post("/api/render")
    def render(body: RenderBody) -> Response:
        """The battlefield picture (:func:`planner.render_bytes`), SVG or PNG, with the check's evidence."""
        from planner.cli.render import deepstrike_heat, report_if_complete
        from planner.render import RenderOptions, render_bytes

        world = _world(body, root_dir)
        heat = deepstrike_heat(world, body.heat) if body.heat else None
        opts = RenderOptions(exclusion_for=body.exclusion, legal_area=body.legal_area, sight_lines=body.sight_lines,
                             heat=heat)
        data, _ = render_bytes(world, body.format, report_if_complete(world), opts)
        media = "image/svg+xml" if body.format == "svg" else "image/png"
        return Response(data, media_type=media,
                        headers={"Content-Disposition": f'attachment; filename="battlefield.{body.format}"'})

    @app.post("/api/ruling")
    def ruling(body: RulingBody) -> Response:
        """The ruling of the check, HTML (with the picture) or Markdown, as ``planner check --format``."""
        from planner.legality.checker import check_deployment
        from planner.render import RenderOptions, render_bytes

        world = _world(body, root_dir, require_positions=True)
        report = check_deployment(world)
        title = f"Deployment ruling: {world.scenario.name or body.file or 'scenario'}"
        if body.format == "html":
            from planner.report.html import check_html

            svg, _ = render_bytes(world, "svg", report, RenderOptions())
            text, media, ext = check_html(report, svg=svg, title=title), "text/html", "html"
        else:
            from planner.report.markdown import check_markdown

            text, media, ext = check_markdown(report, title=title), "text/markdown", "md"
        return Response(text, media_type=f"{media}; charset=utf-8",
                        headers={"Content-Disposition": f'attachment; filename="ruling.{ext}"'})

    @app.post("/api/save")
    def save(body: SaveBody) -> JSONResponse:
        """Write the scenario (validated first) as YAML or JSON, inside the server's folder.
        An existing file, and above all the opened one, is written only with ``overwrite: true``
        (HTTP 409 asks)."""
        from planner.io.files import dump_data

        _world(body, root_dir)  # the same validation as a file: never save what cannot be opened again
        target = _inside(root_dir, body.path, "path", SCENARIO_SUFFIXES)
        if target.exists() and not body.overwrite:
            opened = str(target) in app.state.opened
            what = "the file you opened" if opened else "an existing file"
            return JSONResponse(status_code=409, content={
                "error": f"{body.path} is {what}; confirm to write over it (overwrite: true)", "field": "path",
                "value": body.path, "opened": opened})
        dump_data(body.scenario, target, option="path", what="scenario")
        return JSONResponse({"file": str(target), "path": body.path})

    @app.post("/api/import-roster")
    async def import_roster(request: Request,
                            player: str = Query(..., description="The player whose army this is."),
                            ruleset: str = Query("hh2"),
                            filename: str = Query("roster.ros", description="The uploaded file's name."),
                            embark: bool = Query(False),
                            default_base: str | None = Query(None, description="e.g. 32mm"),
                            id_prefix: str = Query("", description="Put before every unit id (the page gives "
                                                                   "'PLAYER-', so two armies never share an id)."),
                            ) -> dict[str, Any]:
        """Import a BattleScribe/New Recruit roster, or for wh40k10/11 a 40k army list (``.txt`` or
        ``.json``: GW app, New Recruit, ListForge, Rosterizer, :mod:`planner.io.lists40k`), sent as
        the request body (raw bytes, at most the size limit of its reader: HTTP 413 over it) into
        a scenario army, as ``planner import-roster`` does; its units are marked ``place: true``
        (they have no positions yet: place them, or plan them)."""
        from planner.io import lists40k
        from planner.io.files import input_limit
        from planner.io.roster import MAX_FILE_BYTES, army_to_data, parse_base_size
        from planner.io.roster import import_roster as do_import
        from planner.rules.registry import find_ruleset

        if not player.strip():
            raise ScenarioError("give the player's name", location="player", value=player)
        try:
            find_ruleset(ruleset)
        except ScenarioError as exc:
            raise ScenarioError(exc.detail, location="ruleset", value=ruleset) from None
        name = Path(filename).name or "roster.ros"
        suffix = Path(name).suffix.lower()
        suffixes = ROSTER_SUFFIXES + (LIST_SUFFIXES if lists40k.is_40k_ruleset(ruleset) else ())
        if suffix not in suffixes:
            lists = "" if suffix not in LIST_SUFFIXES else "; 40k army lists (.txt, .json) are read for wh40k10 and wh40k11"
            raise ScenarioError(f"a roster file of {ruleset} ends in {', '.join(suffixes)}{lists}",
                                location="filename", value=filename)
        is_list = suffix in LIST_SUFFIXES
        limit = input_limit(lists40k.MAX_FILE_BYTES if is_list else MAX_FILE_BYTES)
        what = f"the upload is larger than the limit of {'an army list' if is_list else 'a roster'} file"
        declared = request.headers.get("content-length")
        if declared is not None and declared.strip().isdigit() and int(declared) > limit:
            return _too_large(limit, int(declared), what, name)  # type: ignore[return-value]
        size = 0
        chunks: list[bytes] = []
        async for chunk in request.stream():
            size += len(chunk)
            if size > limit:
                return _too_large(limit, None, what, name)  # type: ignore[return-value]
            chunks.append(chunk)
        base = parse_base_size(default_base) if default_base else None
        with tempfile.TemporaryDirectory(prefix="planner-upload-") as tmp:
            path = Path(tmp) / name  # the army is named after the file the user chose
            path.write_bytes(b"".join(chunks))
            try:
                army, warnings = do_import(path, ruleset, player.strip(), base, embark, id_prefix=id_prefix,
                                           place=True)
            except ScenarioError as exc:
                raise exc.with_file(name) from None
        return {"file": name, "army": army_to_data(army), "warnings": warnings, "units": len(army.units),
                "models": sum(len(u.models) for u in army.units)}

    # ------------------------------------------------------------------ suggest and plan
    @app.post("/api/suggest")
    def suggest(body: SuggestBody) -> dict[str, Any]:
        """For each illegal unit, the nearest legal position (least total movement of its models),
        from :func:`planner.solve.suggest.suggest_moves`."""
        try:
            from planner.solve.suggest import suggest_moves  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            return JSONResponse(status_code=501, content={  # type: ignore[return-value]
                "error": "this planner has no suggest engine (planner.solve.suggest)", "field": None, "value": None})
        world = _world(body, root_dir, require_positions=True)
        report = suggest_moves(world, body.units, time_limit_s=body.time_limit)
        return report.model_dump(mode="json")

    @app.post("/api/plan")
    def plan(body: PlanBody) -> dict[str, Any]:
        """Start planning (in its own process, so the page stays responsive): returns the job id.
        Follow it with ``GET /api/plan/{id}/events`` (server-sent events) and stop it with
        ``POST /api/plan/{id}/cancel``."""
        world = _world(body, root_dir)  # input errors now, as HTTP 400, not later in the job
        from planner.solve.planner import _groups

        units = body.units
        if body.player is not None:
            if body.player not in world.players:
                raise ScenarioError(f"not a player of the scenario; its players: {', '.join(world.players)}",
                                    location="player", value=body.player)
            if units is None:
                units = [u.id for u in world.units_of(body.player) if u.record.place and u.on_battlefield]
                if not units:
                    raise ScenarioError("the player has no unit marked 'place: true' on the battlefield",
                                        location="player", value=body.player)
            elif stray := [u for u in units if u in world.units and world.units[u].player != body.player]:
                raise ScenarioError(f"not a unit of {body.player}", location="units", value=stray[0])
        from planner.cli.adversary import deny_goal

        goal = deny_goal(world)  # (more than one: HTTP 400)
        if goal is not None:
            _deny_units(world, goal, units)  # as `planner plan`: the denial places every marked unit of mine together
            units = None  # (the denial planner takes them itself)
        else:
            try:
                _groups(world, units)  # unknown or unmarked units: HTTP 400 naming them
            except ScenarioError as exc:
                raise ScenarioError(exc.detail, location="units", value=exc.value) from None
        # the job plans the data checked here: its rosters read once, their units in place of the references
        job = app.state.jobs.start(world.raw, body.file, units, body.time_limit, body.workers, body.seed)
        return {"job": job.id, "events": f"/api/plan/{job.id}/events", "cancel": f"/api/plan/{job.id}/cancel"}

    @app.get("/api/plan/{job_id}")
    def plan_state(job_id: str) -> dict[str, Any]:
        """The job's state: status, progress events so far, and the result once done."""
        return app.state.jobs.get(job_id).snapshot()

    @app.get("/api/plan/{job_id}/events")
    async def plan_events(job_id: str) -> StreamingResponse:
        """Server-sent events: ``progress`` (objective, bound, elapsed_s), then one ``result``,
        ``error`` or ``cancelled``."""
        job = app.state.jobs.get(job_id)
        return StreamingResponse(job.stream(), media_type="text/event-stream",
                                 headers={"Cache-Control": "no-cache"})

    @app.post("/api/plan/{job_id}/cancel")
    def plan_cancel(job_id: str) -> dict[str, Any]:
        """Stop the job (its process is ended)."""
        job = app.state.jobs.get(job_id)
        job.cancel()
        return job.snapshot()

    @app.get("/api/initial")
    def initial() -> dict[str, Any]:
        """The scenario ``planner serve`` was started with (None: none)."""
        return {"path": app.state.initial}

    # ------------------------------------------------------------------ the page
    @app.get("/", include_in_schema=False)
    def index() -> FileResponse:
        return FileResponse(STATIC / "index.html", media_type="text/html")

    @app.get("/favicon.ico", include_in_schema=False)
    def favicon() -> Response:
        return Response(status_code=204)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def _deny_units(world, goal, units: list[str] | None) -> None:
    """A plan with a ``deny`` goal (index, goal) places every unit of my player marked ``place:
    true`` together, as ``planner plan`` does (:func:`planner.adversary.deny.denial_units`): the
    units the page asks for (``units``: ticked, or the player's marked units; None: every marked
    unit) must be those, the Independent Characters joined to them may be left out.

    Raises
    ------
    ScenarioError
        (HTTP 400) Other units asked for, or some of mine left out; the goal's enemy unit is unknown
        or cannot Infiltrate.
    """
    from planner.adversary.deny import denial_units

    i, g = goal
    me, ids = denial_units(world, g.enemy_unit, f"goals[{i}].enemy_unit")
    if units is None:
        return
    hosts = {u for u in ids if not world.units[u].setup.joined}
    stray = sorted(set(units) - ids)
    missing = sorted(hosts - set(units))
    if stray or missing:
        mine = f"the units of {me} marked 'place: true' ({', '.join(sorted(ids))})" if ids else \
            f"the units of {me} marked 'place: true' (none is marked)"
        raise ScenarioError(f"a deny goal (goals[{i}]) places {mine} together, as planner plan does: plan those, "
                            + (f"not {', '.join(stray)}" if stray else f"{', '.join(missing)} too"),
                            location="units", value=stray[0] if stray else missing[0])


def _check_or_none(world) -> dict[str, Any] | None:
    from planner.errors import UnknownRulesetError

    if not world.units:  # nothing to judge: no verdict (never legal), as /api/check refuses it
        return None
    try:
        return _check(world)
    except UnknownRulesetError:
        return None
