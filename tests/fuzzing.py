"""Fuzz cases for the whole command line: what ``tests/test_fuzz.py`` (a few hundred, in the
suite) and ``benchmarks/fuzz.py`` (thousands, each in a worker with a time and memory limit) run.

A :class:`Case` is a command (load, check, plan, render, threats, deepstrike, import-roster),
its arguments and the files it reads, made by :func:`make_case` from a ``random.Random``:

- *structure-aware* mutations of the bundled scenarios (``scenarios/``, ``tests/assets/``): numbers
  replaced by NaN, infinities, huge, negative or nudged values; strings by odd ids (control and
  bidirectional characters, markup, very long, other units' ids); keys and items removed,
  duplicated (also duplicate *keys* in the text), replaced by wrong types; degenerate polygons
  (collinear, repeated, self-crossing, two points); cycles between transports and cargo and
  between joined units; other set-up methods and rulesets;
- *byte-level* mutations of the YAML text and of roster XML (bytes flipped, inserted, deleted,
  duplicated; YAML and XML tokens spliced in: aliases, tags, entities, encodings, long digit runs;
  truncation), rosters also zipped as ``.rosz`` with every compression zip knows, or corrupted.

:func:`run_case` runs a case in this process through the real command line and returns its
outcome: ``ok`` / ``exit 1`` / ``exit 2`` / ``exit 3`` / ``internal error`` (exit 4, or an
exception that escaped) / ``bad output`` (a plan written with exit 0 that fails the checker, a
picture that is not well-formed SVG, a ``--json`` file that is not JSON).
"""

from __future__ import annotations

import copy
import functools
import io
import json
import math
import os
import random
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

ROOT = Path(__file__).resolve().parents[1]

SCENARIOS = sorted([*(ROOT / "scenarios").glob("*.yaml"), *(ROOT / "scenarios" / "wh40k").glob("*.yaml"),
                    *(ROOT / "tests" / "assets").glob("*.yaml")])
ROSTERS = sorted([*(ROOT / "scenarios" / "rosters").glob("*.ros"), *(ROOT / "tests" / "assets").glob("*.ros")])
PLAN_SCENARIOS = [p for p in SCENARIOS if "place: true" in p.read_text(encoding="utf-8")]
DEPLOYED = [p for p in SCENARIOS if p.parent.name == "scenarios" and p not in PLAN_SCENARIOS]
"""Scenarios with every unit positioned (what check, threats and deepstrike read best)."""

COMMANDS = ["load"] * 4 + ["check"] * 5 + ["import-roster"] * 4 + ["render"] * 2 + ["threats"] * 2 \
    + ["deepstrike"] * 2 + ["plan"] * 1
"""Commands drawn for a case, with their weights (plan is the slowest)."""

OUTCOMES = ("ok", "exit 1", "exit 2", "exit 3", "internal error", "bad output", "over time", "over memory")

ODD_STRINGS = [
    "", " ", "a\x00b", "tac\u202etical", "\x1b[31mred\x1b[0m", "[/]", "[bold]x", "<script>x</script>", "a&b<c>",
    "x" * 5000, "\u0000", "\ud800", "line\nbreak", "tab\there", "\u200b", "Ω≈ç√", "🙂", "..", "../../etc/passwd",
    "-", "--json", "null", "~", "1e400", "nan", "Infantry", "Vehicle", "Infiltrate", "Deep Strike", "Bulky (99999)",
    "Bulky (x)", "Scouts 6\"", "Scouts 1e400\"", "Infiltrators", "Leader", "deep_strike", "reserves", "embarked",
    "scout", "infiltrate", "deployment_zone", "round", "oval", "hull", "area", "solid", "open", "hh2", "wh40k10",
    "wh40k11", "wh40k5", "wh40k7", "wh40k99", "INFANTRY", "VEHICLE", "TRANSPORT", "MONSTER",
]
SPECIAL_NUMBERS = [math.nan, math.inf, -math.inf, 1e308, -1e308, 10**30, -(10**30), 2**63, -1, 0, -0.0, 1e-320,
                   0.5, 361, -361, 1000, 1001, 1e6, 10**6 + 1, 24, 9, 9.0000001, 12]
RULESETS = ["hh2", "wh40k10", "wh40k11", "wh40k5", "wh40k7", "wh40k99", ""]
METHODS = ["deployment_zone", "infiltrate", "scout", "embarked", "reserves", "teleport"]

YAML_TOKENS = [b"&a ", b"*a", b"<<: *a\n", b"!!python/object:os.system ", b"{", b"[", b"]", b"}", b": ", b"- ",
               b"\n", b"\t", b"\x00", b"\xff", b"'", b'"', b"%YAML 1.1\n", b"---\n", b"? ", b"!!binary ", b".nan",
               b"-.inf", b"~", b"0x7fffffffffffffffffff", b"1e999", b"9" * 400, b"&b [*b]", b"!!set ", b"!!omap ",
               b"\xe2\x80\xae", b"\x1b[31m", b"\r", b"#", b"|\n", b">\n", b"!!int ", b"!!float ", b"2001-12-14 ",
               b"0o777", b"190:20:30", b"<<: ", b"x: 1\nx: 2\n", b"!!map ", b"!!bool ", b"!!timestamp ", b"!!seq ",
               b"!!str ", b"!!null ", b"!!pairs ", b"? ", b"2001-13-99 ", b"!local ", b"&x ", b"*x ", b"*nope "]
XML_TOKENS = [b"<selection ", b"</selection>", b' number="1e400"', b' number="-1"', b' number="nan"',
              b' number="99999999999999999999999"', b"<!DOCTYPE r [<!ENTITY a 'x'>]>", b"&a;", b"&#0;", b"&#x202e;",
              b"\x00", b"\xff\xfe", b'<?xml version="1.0" encoding="latin-1"?>',
              b'<?xml version="1.0" encoding="x-unknown"?>', b'<?xml version="1.0" encoding="utf-16"?>',
              b"<![CDATA[", b"]]>", b' type="unit"', b' type="model"', b' hidden="true"',
              b'<categories><category name="Infantry"/></categories>',
              b'<profiles><profile name="x" typeName="Transport"><characteristics><characteristic name="Capacity">'
              b'1e999</characteristic></characteristics></profile></profiles>', "\u202e".encode(), b"\xc3\x28",
              b'<rules><rule name="Bulky (99999999999999)"/></rules>', b'<rules><rule name="Infiltrate"/></rules>',
              b' customName="\xe2\x80\xae evil"', b"<selections>", b"</selections>", b"<forces><force>",
              b"</force></forces>", b' gameSystemName="Warhammer 40,000 10th Edition"', b"9" * 400]


@dataclass
class Case:
    """One fuzz input: ``command`` with ``args`` (``{name}`` stands for the path of file ``name``
    in the case's folder) and the ``files`` it reads, by name."""

    command: str
    args: list[str]
    files: dict[str, bytes] = field(default_factory=dict)
    note: str = ""


# --------------------------------------------------------------------------- structure-aware mutation


def _paths(node: Any, prefix: tuple = ()):
    yield prefix
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _paths(v, prefix + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _paths(v, prefix + (i,))


def _get(node: Any, path: tuple) -> Any:
    for p in path:
        node = node[p]
    return node


def _ids(data: Any) -> list[str]:
    return [p for p in (_get(data, path) for path in _paths(data) if path and path[-1] == "id")
            if isinstance(p, str)]


def _units(data: Any) -> list[dict]:
    out = []
    for a in data.get("armies", []) if isinstance(data, dict) else []:
        if isinstance(a, dict):
            out += [u for u in a.get("units", []) or [] if isinstance(u, dict)]
    return out


def _wild_value(rng: random.Random, depth: int = 0) -> Any:
    k = rng.random()
    if k < 0.25 or depth > 2:
        return rng.choice(SPECIAL_NUMBERS + ODD_STRINGS + [None, True, False, [], {}])
    if k < 0.5:
        return [_wild_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if k < 0.7:
        return {rng.choice(["x", "y", "id", "base", "shape", "diameter_mm", "method", "in", "from", "kind",
                            rng.choice(ODD_STRINGS)]): _wild_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    if k < 0.85:
        return [[rng.uniform(-100, 100), rng.uniform(-100, 100)] for _ in range(rng.randint(0, 5))]
    return rng.choice(SPECIAL_NUMBERS)


def duplicate_at(data: Any, path: tuple, rng: random.Random) -> None:
    """Duplicate the node at ``path``: a list item is inserted again beside itself, a list gets
    a copy of one of its items, anything else becomes a one-item list of itself."""
    parent, key = _get(data, path[:-1]), path[-1]
    target = _get(data, path)
    if isinstance(parent, list):
        parent.insert(key, copy.deepcopy(target))
    elif isinstance(target, list) and target:
        target.append(copy.deepcopy(rng.choice(target)))
    else:
        parent[key] = [copy.deepcopy(target)]


def mutate_structure(data: Any, rng: random.Random, gentle: bool = False) -> str:
    """Apply one structure-aware mutation to ``data`` in place; returns its name. A ``gentle``
    mutation keeps the file close to valid (a number nudged, a reference or set-up changed) so
    that the resolver, the checker and the planner see it."""
    if gentle:
        op = rng.choice(["nudge"] * 6 + ["id_ref", "cycle", "method", "duplicate", "delete"])
    else:
        op = rng.choice(["number"] * 6 + ["string"] * 3 + ["delete"] * 2 + ["duplicate"] * 2 + ["wrong_type"] * 2
                        + ["add_key", "polygon", "polygon", "cycle", "cycle", "method", "ruleset", "id_ref"])
    paths = [p for p in _paths(data) if p]
    if not paths:
        return "none"
    if op == "nudge":
        nums = [p for p in paths if isinstance(_get(data, p), int | float) and not isinstance(_get(data, p), bool)]
        if nums:
            p = rng.choice(nums)
            orig = _get(data, p)
            _get(data, p[:-1])[p[-1]] = orig + rng.choice([-1, 1]) * rng.choice([0.001, 0.1, 0.5, 1, 3, 9])
            return op
        op = "delete"
    if op == "number":
        nums = [p for p in paths if isinstance(_get(data, p), int | float) and not isinstance(_get(data, p), bool)]
        if nums:
            p = rng.choice(nums)
            orig = _get(data, p)
            new = orig + rng.uniform(-15, 15) if rng.random() < 0.5 else rng.choice(SPECIAL_NUMBERS)
            _get(data, p[:-1])[p[-1]] = new
            return op
        op = "wrong_type"
    if op == "string":
        strs = [p for p in paths if isinstance(_get(data, p), str)]
        if strs:
            p = rng.choice(strs)
            ids = _ids(data)
            _get(data, p[:-1])[p[-1]] = rng.choice(ids) if ids and rng.random() < 0.3 else rng.choice(ODD_STRINGS)
            return op
        op = "wrong_type"
    if op == "polygon":
        polys = [p for p in paths if p[-1] in ("footprint", "polygon") and isinstance(_get(data, p), list)]
        if polys:
            p = rng.choice(polys)
            x, y = rng.uniform(0, 72), rng.uniform(0, 48)
            shape = rng.choice([
                [[x, y], [x + 5, y], [x + 10, y]],  # collinear
                [[x, y], [x, y], [x, y]],  # one point thrice
                [[x, y], [x + 5, y + 5], [x + 5, y], [x, y + 5]],  # bow-tie
                [[x, y], [x + 5, y]],  # two points
                [[x, y], [x + 1e-9, y], [x, y + 1e-9]],  # a sliver
                [[x, y], [x + 5, y], [x + 5, y + 5], [x, y + 5], [x, y]],  # closed ring
                [[x, y], [1e300, y], [x, 1e300]],
                [],
            ])
            _get(data, p[:-1])[p[-1]] = shape
            return op
        op = "cycle"
    if op == "cycle":
        units = _units(data)
        if len(units) >= 2:
            a, b = rng.sample(units, 2)
            kind = rng.random()
            if kind < 0.4:
                a["setup"] = {"method": "embarked", "in": b.get("id")}
                b["setup"] = {"method": "embarked", "in": a.get("id")}
                b.setdefault("transport_capacity", 10)
                a.setdefault("transport_capacity", 10)
            elif kind < 0.7:
                a["setup"] = {"method": "deployment_zone", "joined": b.get("id")}
                b["setup"] = {"method": "deployment_zone", "joined": a.get("id")}
            elif kind < 0.85:
                a["setup"] = {"method": "embarked", "in": a.get("id")}
            else:
                a["setup"] = {"method": "infiltrate", "joined": a.get("id")}
            return op
        op = "wrong_type"
    if op == "method":
        units = _units(data)
        if units:
            u = rng.choice(units)
            u["setup"] = rng.choice(METHODS) if rng.random() < 0.5 else {"method": rng.choice(METHODS),
                                                                            "first": rng.choice(METHODS)}
            if rng.random() < 0.5:
                u["place"] = rng.choice([True, False, "yes"])
            return op
        op = "wrong_type"
    if op == "ruleset":
        if isinstance(data, dict):
            data["ruleset"] = rng.choice(RULESETS)
            return op
        op = "wrong_type"
    if op == "id_ref":
        ids = _ids(data)
        refs = [p for p in paths if p[-1] in ("in", "joined", "zone", "enemy_unit", "objective", "against", "unit",
                                              "profile", "player")]
        if ids and refs:
            p = rng.choice(refs)
            _get(data, p[:-1])[p[-1]] = rng.choice(ids)
            return op
        op = "wrong_type"
    p = rng.choice(paths)
    parent, key = _get(data, p[:-1]), p[-1]
    if op == "delete":
        del parent[key]
    elif op == "duplicate":
        duplicate_at(data, p, rng)
    elif op == "add_key":
        node = _get(data, p)
        node = node if isinstance(node, dict) else parent if isinstance(parent, dict) else data
        if isinstance(node, dict):
            node[rng.choice(["x", "y", "id", "rules", "base", "setup", "place", "extra", rng.choice(ODD_STRINGS)])] = \
                _wild_value(rng)
    else:  # wrong_type
        parent[key] = _wild_value(rng)
    return op


def _dump(data: Any, rng: random.Random) -> tuple[str, bytes]:
    """The data as a YAML or JSON file (name, bytes); sometimes with a key written twice."""
    if rng.random() < 0.3:
        text = json.dumps(data, ensure_ascii=rng.random() < 0.5)  # NaN and Infinity as JS writes them
        if rng.random() < 0.2 and text.startswith("{") and len(text) > 2:
            key = rng.choice(list(data)) if isinstance(data, dict) and data else "ruleset"
            text = "{" + json.dumps(key) + ": null, " + text[1:]
        return "scenario.json", text.encode("utf-8", "surrogatepass")
    text = yaml.safe_dump(data, sort_keys=False, allow_unicode=rng.random() < 0.5)
    if rng.random() < 0.1:
        lines = text.splitlines(keepends=True)
        i = rng.randrange(len(lines))
        lines.insert(i, lines[i])  # a key (or an item) written twice
        text = "".join(lines)
    return "scenario.yaml", text.encode("utf-8", "surrogatepass")


# --------------------------------------------------------------------------- byte-level mutation


def mutate_bytes(raw: bytes, rng: random.Random, tokens: list[bytes]) -> bytes:
    """1-4 byte-level mutations: flips, token insertions, deletions, duplications, long digit
    runs, truncation."""
    b = bytearray(raw)
    for _ in range(rng.randint(1, 4)):
        if not b:
            b += rng.choice(tokens)
            continue
        op = rng.random()
        i = rng.randrange(len(b))
        if op < 0.25:
            b[i] = rng.randrange(256)
        elif op < 0.55:
            b[i:i] = rng.choice(tokens)
        elif op < 0.7:
            del b[i:i + rng.randint(1, 50)]
        elif op < 0.82:
            j = min(len(b), i + rng.randint(1, 200))
            b[j:j] = b[i:j]
        elif op < 0.95:
            digits = [k for k in range(len(b)) if 48 <= b[k] <= 57]
            if digits:
                k = rng.choice(digits)
                b[k:k + 1] = b"9" * rng.choice([20, 50, 400, 5000])
        else:
            del b[i:]
    return bytes(b)


ODD_ATTRIBUTES = ["1e400", "nan", "-1", "9" * 5000, "99999999999999999999", "1.5", "", "0", "1000", "1001",
                  "&#x202e;x", "&#27;", "&#0;", "[/]", "Infantry", "Vehicle (Transport)", "Transport", "unit", "model",
                  "upgrade", "true", "Warhammer 40,000 10th Edition", "Horus Heresy", "x" * 3000, "Bulky (9999999)",
                  "Infiltrate", "Deep Strike", "Scout", "Capacity", "\u00e9\u4e2d"]


def mutate_xml_attributes(raw: bytes, rng: random.Random) -> bytes:
    """Replace 1-3 attribute values or element texts of a roster with odd ones (numbers too
    large or not numbers, control-character references, other types and names), or its XML
    declaration's encoding."""
    import re

    text = raw.decode("utf-8", "replace")
    for _ in range(rng.randint(1, 3)):
        k = rng.random()
        if k < 0.1:
            enc = rng.choice(["latin-1", "utf-16", "x-unknown", "ascii", "utf-32", "cp1252", ""])
            text = re.sub(r'encoding="[^"]*"', f'encoding="{enc}"', text, count=1)
            continue
        spans = [m.span(2) for m in re.finditer(r'(\w+)="([^"]*)"', text)] if k < 0.7 else \
            [m.span(1) for m in re.finditer(r">([^<>]{1,60})<", text)]
        if spans:
            a, b = rng.choice(spans)
            text = text[:a] + rng.choice(ODD_ATTRIBUTES) + text[b:]
    return text.encode("utf-8")


def roster_file(rng: random.Random, xml: bytes) -> tuple[str, bytes]:
    """The roster XML as a ``.ros`` file or zipped as ``.rosz`` (any compression, sometimes
    corrupt or with odd members)."""
    k = rng.random()
    if k < 0.5:
        return "army.ros", xml
    buf = io.BytesIO()
    comp = rng.choice([zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED, zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA])
    with zipfile.ZipFile(buf, "w", compression=comp) as z:
        z.writestr(rng.choice(["army.ros", "army.ros", "../army.ros", "a\\b.ros", "army.xml", "/abs.ros"]), xml)
        if rng.random() < 0.1:
            z.writestr("second.ros", xml)
    data = buf.getvalue()
    if rng.random() < 0.2:
        data = mutate_bytes(data, rng, [b"PK", b"\x00" * 8, b"\xff" * 4])
    return "army.rosz", data


# --------------------------------------------------------------------------- cases


def _unit_ids(data: Any) -> list[str]:
    return [u["id"] for u in _units(data) if isinstance(u.get("id"), str)]


@functools.cache
def _parsed(path: Path) -> Any:
    """A bundled scenario parsed once (libyaml's C parser: the same data as ``yaml.safe_load``, ten
    times faster; the cases' draws do not depend on it)."""
    return yaml.load(path.read_bytes(), Loader=yaml.CSafeLoader)


def make_case(rng: random.Random, command: str | None = None) -> Case:
    """A random fuzz case (deterministic for the same ``rng`` state), of ``command`` if given."""
    command = command or rng.choice(COMMANDS)
    if command == "import-roster":
        xml = rng.choice(ROSTERS).read_bytes()
        k = rng.random()
        if k < 0.45:
            xml = mutate_xml_attributes(xml, rng)
        elif k < 0.9:
            xml = mutate_bytes(xml, rng, XML_TOKENS)
        name, data = roster_file(rng, xml)
        args = ["import-roster", "{" + name + "}", "--player", rng.choice(["blue", "red", "\u202e", ""]),
                "--out", "{out/army.yaml}"]
        if rng.random() < 0.4:
            args += ["--default-base", rng.choice(["32mm", "0", "1e400", "nan", "25 mm"])]
        if rng.random() < 0.3:
            args.append("--embark")
        if rng.random() < 0.3:
            args += ["--ruleset", rng.choice(RULESETS)]
        if rng.random() < 0.3:
            args += ["--json", "{out/army.json}"]
        return Case(command, args, {name: data})
    if command == "plan":
        base = rng.choice(PLAN_SCENARIOS)
    elif command in ("check", "threats", "deepstrike") and rng.random() < 0.7:
        base = rng.choice(DEPLOYED)
    else:
        base = rng.choice(SCENARIOS)
    text = base.read_bytes()
    original = _parsed(base)  # read only: mutations work on a deep copy
    files: dict[str, bytes] = {}
    if "roster:" in text.decode("utf-8"):
        xml = ROSTERS[0].read_bytes()
        k = rng.random()
        if k < 0.3:
            xml = mutate_xml_attributes(xml, rng)
        elif k < 0.5:
            xml = mutate_bytes(xml, rng, XML_TOKENS)
        files["rosters/strike-force-newrecruit.ros"] = xml
    k = rng.random()
    if k < 0.6:
        data = copy.deepcopy(original)
        gentle = rng.random() < 0.5
        ops = [mutate_structure(data, rng, gentle) for _ in range(rng.randint(1, 3))]
        name, raw = _dump(data, rng)
        note = "structure: " + ", ".join(ops)
    elif k < 0.9:
        name, raw, note = "scenario.yaml", mutate_bytes(text, rng, YAML_TOKENS), "bytes"
    else:
        name, raw, note = "scenario.yaml", text, "as bundled"
    files[name] = raw
    scen = "{" + name + "}"
    uids = _unit_ids(original) or ["x"]
    if command == "load":
        args = ["load", scen]
    elif command == "check":
        args = ["check", scen] + rng.choice([[], ["-v"], ["--json", "{out/report.json}"], ["--format", "markdown"]])
    elif command == "plan":
        args = ["plan", scen, "--time-limit", "1", "--out", "{out/plan.yaml}"]
        if rng.random() < 0.2:
            args.append("--allow-illegal-table")
    elif command == "render":
        args = ["render", scen, "--out", "{out/picture.svg}"]
        if rng.random() < 0.3:
            args += ["--exclusion", rng.choice(uids)]
        if rng.random() < 0.2:
            args += ["--legal-area", rng.choice(uids)]
    elif command == "threats":
        args = ["threats", scen, "--enemy-unit", rng.choice(uids), "--grid", "4"]
        if rng.random() < 0.3:
            args += ["--goal", rng.choice(["near_units", "near_point:36,24", "sight", "hidden_near:36,24",
                                           "near_point:nan,nan", "near_objective:x", "bogus"])]
    else:
        ds = [u["id"] for u in _units(original) if "Deep Strike" in str(u.get("rules")) + str(u.get("abilities"))]
        args = ["deepstrike", scen, "--unit", rng.choice(ds or uids)]
        args += rng.choice([["--at", f"{rng.uniform(-5, 80):.2f},{rng.uniform(-5, 50):.2f}"], ["--at", "36,24"],
                            ["--best"], ["--at", "1e400,3"]])
        if rng.random() < 0.3:
            args += ["--ruleset", rng.choice(RULESETS)]
    return Case(command, args, files, note)


# --------------------------------------------------------------------------- running a case


def materialise(case: Case, folder: Path) -> list[str]:
    """Write the case's files under ``folder``; return its arguments with the paths filled in."""
    for name, data in case.files.items():
        p = folder / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(data)
    (folder / "out").mkdir(exist_ok=True)
    out = []
    for a in case.args:
        out.append(str(folder / a[1:-1]) if a.startswith("{") and a.endswith("}") else a)
    return out


def run_case(case: Case, folder: Path) -> tuple[str, str]:
    """Run ``case`` in this process; return (outcome, detail). See the module docstring."""
    from typer.testing import CliRunner

    from planner.cli import app
    from planner.errors import PlannerError

    args = materialise(case, folder)
    if case.command == "load":
        from planner.world import load_scenario

        try:
            load_scenario(args[1])
        except PlannerError as exc:
            return ("exit 2" if exc.exit_code == 2 else f"exit {exc.exit_code}"), str(exc)[:300]
        except Exception as exc:  # noqa: BLE001 - what the fuzzer looks for
            import traceback

            return "internal error", "".join(traceback.format_exception(exc))[-3000:]
        return "ok", ""
    r = CliRunner().invoke(app, args)
    code = r.exit_code
    if r.exception is not None and not isinstance(r.exception, SystemExit):
        import traceback

        return "internal error", "".join(traceback.format_exception(r.exception))[-3000:]
    if code == 4:
        log = r.stderr.split("the traceback is in ")[-1].split()[0] if "the traceback is in" in r.stderr else ""
        detail = r.stderr[-500:]
        if log and os.path.exists(log):
            detail = Path(log).read_text(encoding="utf-8")[-3000:]
            os.unlink(log)
        return "internal error", detail
    if "Traceback" in r.stdout + r.stderr:
        return "internal error", (r.stdout + r.stderr)[-3000:]
    bad = _check_outputs(case, folder, code)
    if bad:
        return "bad output", bad
    return ("ok" if code == 0 else f"exit {code}") if code in (0, 1, 2, 3) else "internal error", r.stderr[-300:]


def _check_outputs(case: Case, folder: Path, code: int) -> str:
    """What is wrong with the outputs of a run, or ''."""
    out = folder / "out"
    for f in out.glob("*.json"):
        try:
            json.loads(f.read_text(encoding="utf-8"), parse_constant=_no_constant)
        except (ValueError, UnicodeDecodeError) as exc:
            return f"{f.name} is not JSON: {exc}"
    svg = out / "picture.svg"
    if svg.exists():
        from defusedxml import ElementTree

        try:
            ElementTree.fromstring(svg.read_bytes())
        except Exception as exc:  # noqa: BLE001 - any parse failure is a bad picture
            return f"the picture is not well-formed SVG: {exc}"
    plan = out / "plan.yaml"
    if case.command == "plan" and code == 0:
        if not plan.exists():
            return "plan exited 0 without writing --out"
        from typer.testing import CliRunner

        from planner.cli import app

        r = CliRunner().invoke(app, ["check", str(plan)])
        if r.exit_code != 0:
            return f"the plan written with exit 0 fails the checker (exit {r.exit_code}): {r.stdout[-1500:]}"
    return ""


def _no_constant(text: str) -> Any:
    raise ValueError(f"{text} in a JSON file")
