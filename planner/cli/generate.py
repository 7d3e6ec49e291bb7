"""What ``planner generate`` does, apart from the command-line plumbing in :mod:`planner.cli`.

Writes ``DIR/scenarios.jsonl`` (one scenario with its ``label`` per line, in index order),
``DIR/scenario-line.schema.json`` (the JSON Schema of a line) and ``DIR/manifest.json`` (seed,
kinds, ruleset, parameters, package version, counts per label and class balance, the SHA-256 of
the lines). Nothing in the manifest depends on the worker count, the engine or the clock, so two
runs with the same seed and parameters write byte-identical files. While it runs, a run holds
``DIR/generate.lock`` (:func:`planner.io.dataset.hold_folder`): a second run into the folder, fresh
or ``--resume``, is refused (exit 2) rather than appending lines of its own.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from pathlib import Path

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from planner import __version__
from planner.errors import ScenarioError
from planner.generate.distributions import GeneratorParams
from planner.generate.engine import Job, check_kinds, check_ruleset, labelled_deepstrike, make_line, run
from planner.generate.lines import line_schema
from planner.io.dataset import (
    LINES,
    LOCK,
    MANIFEST,
    SCHEMA,
    LineWriter,
    finished_lines,
    hold_folder,
    verify_prefix,
    write_json,
)

FORMAT = "deployment-planner/generate/1"


class RateColumn(ProgressColumn):
    """Scenarios per second."""

    def render(self, task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("-- scen/s" if speed is None else f"{speed:.1f} scen/s", style="progress.data.speed")


def parse_kinds(text: str) -> tuple[str, ...]:
    """``"legality,puzzle"`` -> ('legality', 'puzzle').

    Raises
    ------
    ScenarioError
        An unknown or repeated kind.
    """
    return check_kinds(tuple(k.strip() for k in text.split(",") if k.strip()), "--kind", text,
                       form="comma-separated")


def load_params(path: str | None) -> GeneratorParams:
    """Generator parameters from a YAML/JSON file (defaults if None); errors name the file and field.

    A relative path in ``rosters`` is relative to the parameter file (as a scenario's ``roster:``
    is relative to the scenario); the parameters returned hold the resolved paths.

    Raises
    ------
    ScenarioError
        A bad parameter, or a roster that cannot be read (naming the parameter file, ``rosters[i]``
        and the path as written).
    """
    if path is None:
        return GeneratorParams()
    from planner.generate.scene import roster_units
    from planner.io.files import parse_record, read_data

    try:
        raw = read_data(path, "parameter")
    except ScenarioError as exc:  # the file itself (missing, a folder, malformed): name the option too
        raise ScenarioError(exc.detail, file=exc.file, location=exc.location or "--params",
                            value=exc.value if exc.location else path) from None
    params = parse_record(GeneratorParams, raw, path)
    if params.rosters:
        from planner.io.outputs import note_read

        base_dir = Path(path).resolve().parent
        written = params.rosters
        params = params.model_copy(update={"rosters": [str(base_dir / r) for r in written]})
        for i, r in enumerate(params.rosters):  # inputs of the run, even when the rosters are cached
            note_read(r)
            try:  # read them here: a bad roster is an input error, not a worker's
                (units,) = roster_units((r,))
            except ScenarioError as exc:
                raise ScenarioError(f"cannot import the roster: {exc}", file=path, location=f"rosters[{i}]",
                                    value=written[i]) from None
            if not units:
                raise ScenarioError("the roster has no unit to set up on the battlefield", file=path,
                                    location=f"rosters[{i}]", value=written[i])
    return params


def summarise(lines: list[bytes]) -> dict:
    """Counts per label kind, and the class balance of each kind."""
    by_kind: Counter = Counter()
    leg: Counter = Counter()
    by_target: dict[str, Counter] = {}
    violations: Counter = Counter()
    band = 0
    intended_hit = 0
    puz_status: Counter = Counter()
    puz_unique: Counter = Counter()
    ds_rulesets: Counter = Counter()
    ds_mishap_bins: Counter = Counter()
    for ln in lines:
        lab = json.loads(ln)["label"]
        kind = lab["kind"]
        by_kind[kind] += 1
        if kind == "legality":
            verdict = "legal" if lab["legal"] else "illegal"
            leg[verdict] += 1
            by_target.setdefault(lab["target"], Counter())[verdict] += 1
            violations.update(lab["violations"])
            intended_hit += verdict == lab["intended"]
            m = lab["subject_margin"]
            band += m is not None and abs(m) <= 0.25 + 1e-9
        elif kind == "puzzle":
            puz_status[lab["status"]] += 1
            puz_unique[{True: "unique", False: "not_unique", None: "unknown"}[lab["unique_on_grid"]]] += 1
        else:
            ds_rulesets[lab["ruleset"]] += 1
            p = lab["odds"]["p_mishap"]
            ds_mishap_bins["p_mishap<0.1" if p < 0.1 else "p_mishap>0.9" if p > 0.9 else "0.1<=p_mishap<=0.9"] += 1
    out: dict = {"lines": len(lines), "by_kind": dict(by_kind)}
    if by_kind["legality"]:
        n = by_kind["legality"]
        out["legality"] = {
            "legal": leg["legal"], "illegal": leg["illegal"], "legal_share": round(leg["legal"] / n, 4),
            "by_target": {t: {"legal": c["legal"], "illegal": c["illegal"]} for t, c in sorted(by_target.items())},
            "violations": dict(sorted(violations.items())),
            "verdict_as_intended": intended_hit,
            "target_margin_within_0.25in": band,
        }
    if by_kind["puzzle"]:
        out["puzzle"] = {"status": dict(sorted(puz_status.items())), "unique_on_grid": dict(sorted(puz_unique.items()))}
    if by_kind["deepstrike"]:
        out["deepstrike"] = {"rulesets": dict(sorted(ds_rulesets.items())), "odds": dict(sorted(ds_mishap_bins.items()))}
    return out


def _manifest(job: Job, count: int, complete: bool, lines: list[bytes] | None, out: Path) -> dict:
    m = {"format": FORMAT, "package": "deployment-planner", "package_version": __version__,
         "seed": job.seed, "count": count, "kinds": list(job.kinds), "ruleset": job.ruleset,
         "params": job.params, "files": {"lines": LINES, "schema": SCHEMA}, "complete": complete,
         "seeding": "item i draws from numpy SeedSequence(seed, spawn_key=(i,)); kinds take turns by index"}
    if lines is not None:
        m["counts"] = summarise(lines)
        m["sha256"] = hashlib.sha256((out / LINES).read_bytes()).hexdigest()
    return m


def _with_rulings(params: GeneratorParams, rulings: dict[str, str], rs: str | None, kinds: tuple[str, ...],
                  params_file: str | None) -> GeneratorParams:
    """``params`` with the ``--ruling`` choices over its own, each checked against the ruleset of
    the legality and puzzle scenes (errors name ``--ruling.KEY`` or the parameter file's ``rulings.KEY``)."""
    from planner.rules.registry import DEFAULT_RULESET, find_ruleset

    scene_rs = find_ruleset(rs or DEFAULT_RULESET)
    if not any(k in ("legality", "puzzle") for k in kinds):
        raise ScenarioError("rulings apply to legality and puzzle scenes only", location="--ruling",
                            value=", ".join(f"{k}={v}" for k, v in {**params.rulings, **rulings}.items()))
    scene_rs.check_rulings(params.rulings, file=params_file, location="rulings")
    scene_rs.check_rulings(rulings, location="--ruling")
    return params.model_copy(update={"rulings": {**params.rulings, **rulings}})


def run_generate(count: int, seed: int, out: str, workers: int = 1, ruleset: str | None = None,
                 kinds_text: str = "legality", engine: str = "local", address: str | None = None,
                 resume: bool = False, params_file: str | None = None,
                 console: Console | None = None, rulings: dict[str, str] | None = None) -> tuple[dict, int]:
    """Generate ``count`` labelled scenarios into the folder ``out``; return the manifest and exit code.

    Raises
    ------
    ScenarioError
        Bad options or parameters, a folder that already holds data (without ``resume``), or
        data that does not belong to this run (with ``resume``), or a folder another run is
        writing (``--out``; :func:`planner.io.dataset.hold_folder`).
    KeyboardInterrupt
        Passed on after closing the file: every finished line is kept.
    """
    console = console or Console(stderr=True)
    kinds = parse_kinds(kinds_text)
    rs = check_ruleset(ruleset, kinds, location="--ruleset")
    params = load_params(params_file)
    if rulings or params.rulings:
        params = _with_rulings(params, rulings or {}, rs, kinds, params_file)
    if "deepstrike" in kinds and rs is None:
        for r in params.deepstrike_rulesets:
            try:
                labelled_deepstrike(r)
            except ScenarioError as exc:
                raise ScenarioError(exc.detail, file=params_file, location="deepstrike_rulesets", value=r) from None
    if seed < 0:
        raise ScenarioError("a seed is a whole number >= 0", location="--seed", value=seed)
    if engine not in ("local", "ray"):
        raise ScenarioError("choose local or ray", location="--engine", value=engine)
    if engine == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            raise ScenarioError("the Ray engine needs Ray: pip install 'deployment-planner[distributed]'",
                                location="--engine", value=engine) from None
        if address:
            from planner.generate.engine import check_ray_address

            check_ray_address(address)
    job = Job(seed, kinds, rs, params.model_dump(mode="json"))
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise ScenarioError("is a file; give a folder", location="--out", value=out)
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ScenarioError(f"cannot make the output folder: {exc.strerror}", location="--out", value=str(folder)) from None
    from planner.io.outputs import claim

    for f in (LINES, MANIFEST, SCHEMA, LOCK):
        claim(str(folder / f), "--out", inputs=(params_file,) if params_file else (), what=f)
    with hold_folder(folder):  # one run at a time in a folder, from its first look at it to its last write
        return _generate_into(folder, out, job, count, resume, workers, engine, address, console)


def _generate_into(folder: Path, out: str, job: Job, count: int, resume: bool, workers: int, engine: str,
                   address: str | None, console: Console) -> tuple[dict, int]:
    """The part of :func:`run_generate` done while it holds the folder."""
    seed, kinds, rs = job.seed, job.kinds, job.ruleset
    lines_path = folder / LINES
    done = 0
    if resume:
        if not (folder / MANIFEST).exists():
            raise ScenarioError(f"nothing to resume: no {MANIFEST} in the folder", location="--out", value=out)
        try:
            old = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError):
            raise ScenarioError("cannot resume: the manifest is not readable JSON", file=str(folder / MANIFEST),
                                location="--out", value=out) from None
        if not isinstance(old, dict):
            raise ScenarioError("cannot resume: the manifest is not a JSON object", file=str(folder / MANIFEST),
                                location="--out", value=out)
        # the manifest's own kinds first: one this version does not know is named there, with the known ones
        check_kinds(old.get("kinds"), "kinds", file=str(folder / MANIFEST))
        for key, now in (("seed", seed), ("kinds", list(kinds)), ("ruleset", rs), ("params", job.params)):
            if old.get(key) != now:
                raise ScenarioError(f"the folder was made with another {key} ({old.get(key)!r}); resume with the "
                                    "same options", location="--out", value=out)
        existing = finished_lines(lines_path)
        if len(existing) > count:
            raise ScenarioError(f"the folder already holds {len(existing)} lines, more than --count {count}",
                                location="--count", value=count)
        verify_prefix(lines_path, existing, lambda i: make_line(job, i))
        done = len(existing)
    elif lines_path.exists() and lines_path.stat().st_size > 0:
        raise ScenarioError(f"the folder already holds {LINES}; use --resume to go on, or another --out",
                            location="--out", value=out)
    write_json(folder / SCHEMA, line_schema())
    write_json(folder / MANIFEST, _manifest(job, count, False, None, folder))
    writer = LineWriter(lines_path)
    t0 = time.perf_counter()
    made = 0
    progress = None
    if console.is_terminal:
        progress = Progress(TextColumn("generating"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                            TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), console=console)
        progress.start()
        task = progress.add_task("generate", total=count, completed=done)
    try:
        for line in run(job, done, count, workers, engine, address):
            writer.write(line)
            made += 1
            if progress is not None:
                progress.advance(task)
    except KeyboardInterrupt:
        writer.close()
        if progress is not None:
            progress.stop()
        console.print(f"interrupted: {done + made} of {count} lines kept in {escape(str(lines_path))}; "
                      "run the same command with --resume to finish")
        raise typer.Exit(3) from None  # exit 3, no answer within the limits: said once, here
    finally:
        if not writer.fh.closed:
            writer.close()
        if progress is not None:
            progress.stop()
    dt = time.perf_counter() - t0
    all_lines = finished_lines(lines_path)
    manifest = _manifest(job, count, True, all_lines, folder)
    write_json(folder / MANIFEST, manifest)
    rate = made / dt if dt > 0 else 0.0
    console.print(f"wrote {made} new line(s), {len(all_lines)} in all, to {escape(str(lines_path))} in {dt:.1f} s "
                  f"({rate:.1f} scenarios/s, {workers} worker(s), engine {engine})")
    return manifest, 0
