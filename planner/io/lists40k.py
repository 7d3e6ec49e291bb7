"""Importing Warhammer 40,000 army lists in the list builders' formats, read by :mod:`wh40kdc`.

The formats (the ids of :data:`FORMATS`, detected from the content, or named with
``planner import-roster --list-format ID``): the Games Workshop app's text export (``gw``, with or
without its ``++++`` header), New Recruit's JSON export (``newrecruit-json``) and its text exports
(``newrecruit-wtc-compact``, ``newrecruit-wtc-full``, ``newrecruit-simple``), ListForge's share JSON
(``listforge``: the JSON, its ``H4sIA...`` base64 payload or a share URL holding it) and text export
(``listforge-text``), Rosterizer's roster JSON (``rosterizer``) and 40kdc's own roster JSON
(``roster-json``). The parsing and the naming of units are the ``wh40kdc`` package's (its
``imports`` adapters and resolver, MIT licence); this module only bounds what it is given and maps
what it returns onto scenario units.

How a list becomes an army (:func:`list_to_army`):

- one unit per list unit, its model count as the list gives it (``wh40kdc`` counts the model
  lines); the models split over the datasheet's model rows (its unit composition: a Sergeant
  row, the rest) by the list's model lines where it has them, else minimum first;
- each model's base from the ``models/wh40k`` catalogue first (by model name, then by unit name),
  else from ``wh40kdc``'s data (``base_size_mm``: round, oval, flying base), in mm; a vehicle the
  data gives only as a hull with no size, and a unit ``wh40kdc`` does not know, have no base: they
  are listed together in one error (exit 2), or get the ``default_base_mm`` round base with a
  warning each;
- keywords: the datasheet's keywords and faction keywords (upper case), with the list's keyword
  overrides; abilities: Infiltrators, Scouts X", Deep Strike, Leader from the datasheet's
  abilities; a character whose attachment role is ``support`` has Support where the edition has
  it (11th), else Leader;
- a Leader or Support the list attaches to a unit (ListForge "Attached Units", an
  ``Attachment:`` line; ``wh40kdc`` also attaches a Support character that cannot stand alone,
  marked provisional) is ``setup.joined`` to it, unless its Bodyguard already has one of that
  role (then a warning);
- points (unit and enhancement) for the Strategic Reserves share; a TRANSPORT's capacity.

Lists are untrusted input: at most :data:`MAX_FILE_BYTES` (``PLANNER_MAX_INPUT_MB`` sets another
limit), UTF-8; a text list at most :data:`MAX_TEXT_BYTES`, :data:`MAX_LINES` lines of at most
:data:`MAX_LINE_CHARS` characters (runs of blanks inside a line are read as one space, so that the
readers' patterns cannot backtrack over them); JSON nested at most 64 levels with no duplicate keys;
a ListForge payload at most :data:`MAX_FILE_BYTES` once decompressed; at most :data:`MAX_UNITS`
units and :data:`MAX_WARGEAR_LINES` wargear lines (each is looked up in the dataset).
Every problem is a :class:`planner.errors.ScenarioError` naming the file, the place in the list
(``units[2] 'Intercessor Squad'``) and the value.

``wh40kdc``'s dataset is written for the 11th edition; imported under ``wh40k10`` a warning says so.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import zlib
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from planner.errors import ScenarioError
from planner.schema import (
    MAX_MODELS,
    MAX_MODELS_PER_UNIT,
    Army,
    Base,
    HullBase,
    Model,
    OvalBase,
    RoundBase,
    Setup,
    Unit,
    UnitType,
)

MAX_FILE_BYTES = 4 * 1024 * 1024
"""Largest list file read (a real list is a few kB of text, a few hundred kB of JSON)."""
MAX_TEXT_BYTES = 1024 * 1024
"""Largest text list (the JSON formats may be up to :data:`MAX_FILE_BYTES`)."""
MAX_LINE_CHARS = 1000
"""Longest line of a text list."""
MAX_LINES = 5000
"""Most lines of a text list (a 2,000-point list has a few hundred)."""
MAX_UNITS = 200
"""Most units in a list (each is looked up in the dataset; a 2,000-point list has about 20)."""
MAX_WARGEAR_LINES = 2000
"""Most wargear lines in a list (each is looked up in the dataset)."""

FORMATS: dict[str, str] = {
    "gw": "Games Workshop app text export",
    "newrecruit-json": "New Recruit JSON export",
    "newrecruit-wtc-compact": "New Recruit text export (WTC compact)",
    "newrecruit-wtc-full": "New Recruit text export (WTC full)",
    "newrecruit-simple": "New Recruit text export (simple)",
    "listforge": "ListForge share JSON (or its base64 payload or share URL)",
    "listforge-text": "ListForge text export",
    "rosterizer": "Rosterizer roster JSON",
    "roster-json": "40kdc roster JSON",
}
"""The list formats read, by the ``wh40kdc`` adapter id (``gw`` also covers the headerless GW text)."""

_ADAPTER_FORMAT = {"gw-headerless": "gw"}
_BLANKS = re.compile(r"(?<=\S)[ \t\u00a0]{2,}")
_BATTLESCRIBE_SUFFIXES = {".ros", ".rosz"}
_DIAGNOSTICS_SHOWN = {"unit-unresolved", "faction-unresolved", "points-mismatch"}


@dataclass
class ArmyList:
    """A 40k list read by ``wh40kdc``: the file, its format id, and the resolved roster (a dict in
    ``wh40kdc``'s Roster shape: ``units`` with ``ref``, ``model_count``, ``points`` ...)."""

    file: str
    format: str
    roster: dict[str, Any]
    warnings: list[str] = field(default_factory=list)

    @property
    def generator(self) -> str:
        gen = (self.roster.get("source") or {}).get("generated_by")
        label = FORMATS.get(self.format, self.format)
        return f"{label}, read by wh40kdc" + (f"; generated by {gen}" if gen and gen != "40kdc" else "")

    @property
    def game_system(self) -> str:
        gv = self.roster.get("game_version") or {}
        return f"Warhammer 40,000 (wh40kdc data: {gv.get('edition', '?')} edition, {gv.get('dataslate', '?')})"


@lru_cache(maxsize=1)
def dataset() -> Any:
    """``wh40kdc``'s embedded dataset, built once per process (building it takes about half a second)."""
    from wh40kdc import Dataset

    return Dataset.embedded()


# --------------------------------------------------------------------------- detection


def _is_battlescribe(data: bytes) -> bool:
    head = data[:512].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"<") or head.startswith(b"PK")


def _looks_battlescribe(path: Path) -> bool:
    """A ``.ros``/``.rosz`` name goes to the BattleScribe reader unless it is a regular file whose
    first bytes are neither XML nor zip (then it is read as a list, so a text list named
    ``roster.ros``, as the web page's upload is by default, gets the same words as the command
    line: none of the formats recognised it); an empty file, a pipe or a device: the roster reader."""
    try:
        if not path.is_file():
            return True
        with path.open("rb") as fh:
            head = fh.read(512)
    except OSError:
        return True  # the roster reader names the problem
    return not head.strip() or _is_battlescribe(head)


def is_40k_ruleset(ruleset: str) -> bool:
    """Whether ``ruleset`` names a Warhammer 40,000 10th/11th edition ruleset (lists are read for those)."""
    from planner.errors import UnknownRulesetError
    from planner.rules.registry import find_ruleset
    from planner.rules.wh40k import Warhammer40k

    try:
        return isinstance(find_ruleset(ruleset), Warhammer40k)
    except UnknownRulesetError:
        return False


def read_if_list(path: str | Path, ruleset: str, list_format: str = "auto") -> ArmyList | None:
    """The 40k list in ``path``, or None if the file is for the BattleScribe reader
    (:func:`planner.io.roster.read_roster`): a ``.ros``/``.rosz`` name, XML or zip content, a
    ruleset that is not 40k, or ``list_format='battlescribe'``.

    Raises
    ------
    ScenarioError
        An unknown ``list_format``, a list format named for a ruleset that is not 40k, and every
        problem of :func:`read_list`.
    """
    fmt = list_format.strip().lower()
    if fmt == "battlescribe":
        return None
    if fmt != "auto" and fmt not in FORMATS:
        known = ", ".join(["auto", "battlescribe", *FORMATS])
        raise ScenarioError(f"unknown list format; known: {known}", location="--list-format", value=list_format)
    if not is_40k_ruleset(ruleset):
        if fmt != "auto":
            raise ScenarioError(f"40k list formats are read for the rulesets wh40k10 and wh40k11, not {ruleset!r}",
                                location="--list-format", value=list_format)
        return None
    if fmt == "auto" and Path(path).suffix.lower() in _BATTLESCRIBE_SUFFIXES and _looks_battlescribe(Path(path)):
        return None
    from planner.io.files import read_input

    data = read_input(Path(path), "army list", MAX_FILE_BYTES)
    if _is_battlescribe(data):
        if fmt != "auto":
            raise ScenarioError(f"this is a BattleScribe roster (XML or zip), not a {FORMATS[fmt]}", file=str(path),
                                location="--list-format", value=list_format)
        if not Path(path).is_file():  # a pipe or a device cannot be read a second time by the roster reader
            raise ScenarioError("a BattleScribe roster from a pipe or a device: give it as a .ros or .rosz file",
                                file=str(path))
        return None
    return read_list(path, fmt, data=data)


# --------------------------------------------------------------------------- reading


def _json(text: str, name: str, where: str) -> Any:
    """JSON with the planner's limits (no duplicate keys, NaN or huge numbers; 64 levels deep)."""
    from planner.io import files

    try:
        data = json.loads(text, object_pairs_hook=files._json_pairs, parse_int=files._json_int,
                          parse_float=files._json_float, parse_constant=files._json_constant)
        files._json_depth(data)
    except ScenarioError as exc:
        raise ScenarioError(exc.detail, file=name, location=where) from None
    except files._JsonValueError as exc:
        raise ScenarioError(f"refused JSON value: {exc}", file=name, location=where) from None
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", file=name,
                            location=where) from None
    except RecursionError:
        raise ScenarioError("the JSON document nests too deeply", file=name, location=where) from None
    return data


def _listforge_payload(text: str, name: str) -> Any:
    """A ListForge share payload (``https://.../#/listforge/H4sIA...`` or the bare base64 of the
    gzipped JSON), decompressed to at most :data:`MAX_FILE_BYTES`, then read as JSON."""
    from wh40kdc.imports.decode import GZIP_BASE64_PREFIX, LISTFORGE_MARKER

    segment = text
    if LISTFORGE_MARKER in text:
        segment = text[text.index(LISTFORGE_MARKER) + len(LISTFORGE_MARKER):]
    elif re.match(r"^https?://", text, re.IGNORECASE):
        segment = text.rsplit("/", 1)[-1]
    segment = segment.strip()
    if not segment.startswith(GZIP_BASE64_PREFIX):
        raise ScenarioError(f"a ListForge link without its payload (expected base64 starting {GZIP_BASE64_PREFIX})",
                            file=name, location="listforge payload", value=segment[:40])
    try:
        packed = base64.b64decode(segment, validate=True)
        z = zlib.decompressobj(wbits=16 + zlib.MAX_WBITS)
        raw = z.decompress(packed, MAX_FILE_BYTES + 1)
    except (binascii.Error, ValueError, zlib.error) as exc:
        raise ScenarioError(f"the ListForge payload is not base64 of gzipped JSON ({exc})", file=name,
                            location="listforge payload") from None
    if len(raw) > MAX_FILE_BYTES or z.unconsumed_tail:
        raise ScenarioError(f"the ListForge payload decompresses to more than {MAX_FILE_BYTES} bytes", file=name,
                            location="listforge payload")
    try:
        decoded = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ScenarioError("the ListForge payload is not UTF-8 JSON", file=name, location="listforge payload") from None
    return _json(decoded, name, "listforge payload")


def _decode(data: bytes, name: str) -> Any:
    """The list's content as ``wh40kdc``'s adapters take it: parsed JSON, or the text."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"not a UTF-8 text file (byte {exc.start})", file=name) from None
    trimmed = text.strip()
    if not trimmed:
        raise ScenarioError("empty file: no army list in it", file=name)
    if trimmed.startswith(("{", "[")):
        return _json(trimmed, name, "")
    if "/listforge/" in trimmed or trimmed.startswith("H4sIA") or re.match(r"^https?://", trimmed, re.IGNORECASE):
        return _listforge_payload(trimmed, name)
    if len(data) > MAX_TEXT_BYTES:
        raise ScenarioError(f"a text list of {len(data)} bytes; at most {MAX_TEXT_BYTES} (a list is a few kB)",
                            file=name)
    lines = text.splitlines()
    if len(lines) > MAX_LINES:
        raise ScenarioError(f"a text list of {len(lines)} lines; at most {MAX_LINES}", file=name)
    for i, line in enumerate(lines, 1):
        if len(line) > MAX_LINE_CHARS:
            raise ScenarioError(f"line {i} is {len(line)} characters long; a list line has at most {MAX_LINE_CHARS}",
                                file=name, location=f"line {i}", value=line[:40] + "...")
        bad = next((c for c in line if ord(c) < 32 and c not in "\t\r\f\v" or 0x7F <= ord(c) < 0xA0), None)
        if bad is not None:
            raise ScenarioError(f"line {i} holds the control character {bad!r}: not a text list", file=name,
                                location=f"line {i}")
    # runs of blanks inside a line become one space (the indentation is kept: it nests the bullets),
    # so that the readers' patterns ("\\s*(...)\\s*") cannot backtrack over long runs of blanks
    return "\n".join(_BLANKS.sub(" ", line) for line in lines)


def read_list(path: str | Path, list_format: str = "auto", *, data: bytes | None = None) -> ArmyList:
    """Read a 40k army list in one of the :data:`FORMATS` with ``wh40kdc``.

    Parameters
    ----------
    path : str or Path
        The list file (read with the limits of :func:`planner.io.files.read_input`, unless
        ``data`` holds its bytes already).
    list_format : str
        ``'auto'`` (the first ``wh40kdc`` adapter that recognises the content) or a format id.

    Raises
    ------
    ScenarioError
        Missing, unreadable or too large file; not UTF-8; an overlong line; malformed, too deep
        or duplicate-keyed JSON; an oversized ListForge payload; content no format recognises
        (or not the named format); a list ``wh40kdc`` cannot read; a list with no units.
    """
    from wh40kdc.imports import ADAPTERS, resolve

    from planner.io.files import read_input

    name = str(path)
    if data is None:
        data = read_input(Path(path), "army list", MAX_FILE_BYTES)
    decoded = _decode(data, name)
    fmt = list_format.strip().lower()

    def fmt_of(adapter_id: str) -> str:
        return _ADAPTER_FORMAT.get(adapter_id, adapter_id)

    try:
        candidates = [a for a in ADAPTERS if fmt == "auto" or fmt_of(a.id) == fmt]
        adapter = next((a for a in candidates if a.matches(decoded)), None)
    except RecursionError:
        raise ScenarioError("the list nests too deeply", file=name) from None
    if adapter is None:
        if fmt != "auto":
            raise ScenarioError(f"not a {FORMATS[fmt]}: its reader does not recognise the content", file=name,
                                location="--list-format", value=list_format)
        kinds = "JSON" if not isinstance(decoded, str) else "text"
        raise ScenarioError(f"not an army list the planner reads ({kinds}; none of the formats recognised it: "
                            f"{', '.join(FORMATS)}; BattleScribe rosters are .ros/.rosz XML)", file=name)
    if isinstance(decoded, str) and _untitled_headerless(adapter, decoded):
        # wh40kdc's headerless reader takes the first "Name (N pts)" line for the list's title; a list
        # without a title line would lose its first unit: give it the reader's own default title
        decoded = "Imported roster\n\n" + decoded
    try:
        parsed = adapter.parse(decoded)
        n_units = len(parsed.get("units") or [])
        if n_units > MAX_UNITS:
            raise ScenarioError(f"the list has {n_units} units; at most {MAX_UNITS}", file=name)
        n_lines = sum(len(u.get("wargear") or []) for u in parsed.get("units") or [])
        if n_lines > MAX_WARGEAR_LINES:
            raise ScenarioError(f"the list has {n_lines} wargear lines; at most {MAX_WARGEAR_LINES}", file=name)
        roster = resolve(parsed, dataset(), adapter.id)
    except RecursionError:
        raise ScenarioError("the list nests too deeply", file=name) from None
    except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
        raise ScenarioError(f"cannot read it as a {FORMATS[fmt_of(adapter.id)]}: {exc}", file=name) from None
    if not roster.get("units"):
        raise ScenarioError(f"empty list: no units in this {FORMATS[fmt_of(adapter.id)]}", file=name)
    warnings = [f"{w.get('message')}" + (f": {_short(str(w['raw_name']))!r}" if w.get("raw_name") else "")
                for w in roster.get("diagnostics", {}).get("warnings", []) if w.get("code") in _DIAGNOSTICS_SHOWN
                and w.get("code") != "unit-unresolved"]
    return ArmyList(name, fmt_of(adapter.id), roster, warnings)


_PTS_LINE = re.compile(r"^(.+?)\s*\(\s*[\d,.'\u2019\u00a0\u202f ]+\s*(?:pts?|points?)\s*\).*$", re.IGNORECASE)
_BULLET = ("\u2022", "\u25e6", "-", "*")


def _untitled_headerless(adapter: Any, text: str) -> bool:
    """True if ``adapter`` is ``wh40kdc``'s headerless GW reader and the first ``Name (N pts)``
    line of ``text`` is a unit (the next non-blank line is a bullet), not the list's title.
    """
    from wh40kdc.imports.gw_headerless import gw_headerless_adapter

    if adapter is not gw_headerless_adapter:
        return False
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    for i, line in enumerate(lines):
        if _PTS_LINE.match(line):
            return i + 1 < len(lines) and lines[i + 1].startswith(_BULLET)
        if line.startswith(_BULLET):
            return False
    return False


# --------------------------------------------------------------------------- list -> army


def _base_from_data(b: dict[str, Any] | None) -> Base | None:
    """A base from ``wh40kdc``'s ``base_size_mm``: round (``diameter``), oval or flying base
    (``length``/``width``: the longer along the facing); None where it gives no size (a hull or a
    flying base marked ``draft`` with no dimensions)."""
    if not isinstance(b, dict):
        return None
    shape = b.get("shape")

    def num(key: str) -> float | None:
        v = b.get(key)
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) and 0 < v <= 1000 else None

    if shape == "round" and (d := num("diameter")) is not None:
        return RoundBase(diameter_mm=d)
    if shape in ("oval", "flying-base") and (a := num("length")) is not None and (c := num("width")) is not None:
        if a == c:
            return RoundBase(diameter_mm=a)
        return OvalBase(length_mm=max(a, c), width_mm=min(a, c))
    return None


def _describe_base(b: dict[str, Any] | None) -> str:
    if not isinstance(b, dict) or not b:
        return "wh40kdc's data gives no base size"
    shape = b.get("shape") or "no shape"
    return f"wh40kdc's data gives a {shape} with no size" if b.get("draft") else f"wh40kdc's data gives a {shape}"


_SCOUTS = re.compile(r"^scouts-(\d+)$")


def _abilities(raw: dict[str, Any], support_ability: bool) -> list[str]:
    """The deployment abilities of a datasheet (``ability_ids``; ``attachment_role``)."""
    ids = [str(a) for a in raw.get("ability_ids") or []]
    out: list[str] = []
    if "infiltrators" in ids:
        out.append("Infiltrators")
    for a in ids:
        if (m := _SCOUTS.match(a)) and len(m.group(1)) <= 3:
            out.append(f'Scouts {int(m.group(1))}"')
            break
    if "deep-strike" in ids:
        out.append("Deep Strike")
    role = raw.get("attachment_role")
    if role == "support" and support_ability:
        out.append("Support")
    elif "leader" in ids or role in ("leader", "support"):
        out.append("Leader")
    return out


def _split_models(rows: list[dict[str, Any]], count: int, groups: list[dict[str, Any]] | None) -> list[tuple[int, int]]:
    """How many of ``count`` models stand on each composition row: ``(row index, n)``.

    The list's model lines (``loadout_groups``) when they name the rows and add up to ``count``;
    else each row's minimum, then the rest to the rows that are not the leader model, up to their
    maximum, then to the last row."""
    if not rows:
        return []
    names = [str(r.get("name") or "").strip().lower() for r in rows]
    if groups:
        split: dict[int, int] = {}
        for g in groups:
            n = g.get("count")
            key = str(g.get("model_name") or "").strip().lower()
            if key not in names or not isinstance(n, int) or n < 0:
                split = {}
                break
            split[names.index(key)] = split.get(names.index(key), 0) + n
        if split and sum(split.values()) == count:
            return sorted(split.items())
    left = count
    got = [0] * len(rows)
    for i, r in enumerate(rows):
        take = min(max(int(r.get("min") or 0), 0), left)
        got[i] += take
        left -= take
    order = [i for i, r in enumerate(rows) if not r.get("is_leader_model")] + \
            [i for i, r in enumerate(rows) if r.get("is_leader_model")]
    for i in order:
        room = max(int(rows[i].get("max") or 0) - got[i], 0)
        take = min(room, left)
        got[i] += take
        left -= take
    got[order[0]] += left
    return [(i, n) for i, n in enumerate(got) if n > 0]


def _short(text: str, n: int = 60) -> str:
    """``text`` cut to ``n`` characters (names from a list go into messages and ids)."""
    return text if len(text) <= n else text[: n - 3] + "..."


@dataclass
class _Built:
    unit: Unit
    raw_name: str
    attach: dict[str, Any] | None
    role: str  # "Leader", "Support" or ""


def list_to_army(lst: ArmyList, ruleset: str, player: str = "player", default_base_mm: float | None = None,
                 embark: bool = False, *, id_prefix: str = "", place: bool = False) -> tuple[Army, list[str]]:
    """Turn a 40k list into one player's :class:`Army`, with warnings for what was assumed.

    Parameters
    ----------
    lst : ArmyList
        From :func:`read_list`.
    ruleset : str
        ``'wh40k10'`` or ``'wh40k11'``: the catalogue (``models/wh40k``) and whether Support exists.
    default_base_mm : float, optional
        Round base (mm) for models with no known base; without it they are one error.
    embark : bool
        Accepted for the command's sake: a 40k list does not say which unit rides in which
        transport, so nothing is embarked (a warning says so).
    id_prefix, place
        As for :func:`planner.io.roster.roster_to_army`.

    Raises
    ------
    ScenarioError
        A ruleset that is not 40k, models with no base (all listed, each with its place in the
        list) without ``default_base_mm``, too many models, or a value the scenario schema refuses.
    """
    from pydantic import ValidationError

    from planner.io.files import validation_error

    if not is_40k_ruleset(ruleset):
        raise ScenarioError(f"40k army lists are imported for the rulesets wh40k10 and wh40k11, not {ruleset!r}",
                            file=lst.file, location="--ruleset", value=ruleset)
    if default_base_mm is not None and not (0 < default_base_mm <= 1000):
        raise ScenarioError("default base size must be more than 0 and at most 1000 mm", location="default_base_mm",
                            value=default_base_mm)
    try:
        return _ListBuilder(lst, ruleset, default_base_mm, id_prefix, place).army(player, embark)
    except ValidationError as exc:
        err = validation_error(exc, None, lst.file)
        raise ScenarioError(f"a value from the list cannot be used: {err.detail}", file=lst.file,
                            value=err.value) from None


class _ListBuilder:
    """The steps of :func:`list_to_army` and what they share: the dataset, the catalogue, ids, counts."""

    def __init__(self, lst: ArmyList, ruleset: str, default_base_mm: float | None, id_prefix: str, place: bool):
        from planner.io.catalogue import load_catalogue
        from planner.rules.registry import find_ruleset

        self.lst, self.default_base_mm, self.id_prefix, self.place = lst, default_base_mm, id_prefix, place
        from planner.rules.wh40k import Warhammer40k

        rs = find_ruleset(ruleset)
        assert isinstance(rs, Warhammer40k)  # list_to_army refused any other ruleset
        self.rs = rs
        self.catalogue = load_catalogue(self.rs.catalogue)
        self.ds = dataset()
        self.faction = lst.roster.get("faction_id")
        self.warnings: list[str] = list(lst.warnings)
        self.unknown: list[str] = []
        self.unknown_here: list[str] = []
        self.used: set[str] = set()
        self.total = 0

    def army(self, player: str, embark: bool) -> tuple[Army, list[str]]:
        gv = self.lst.roster.get("game_version") or {}
        edition = re.match(r"\d+", str(gv.get("edition") or ""))
        if edition and not self.rs.id.endswith(edition.group()):
            self.warnings.append(f"wh40kdc's datasheets are for the {gv['edition']} edition; their abilities and "
                                 f"keywords are used for {self.rs.id} as they are")
        if embark:
            self.warnings.append("--embark: a 40k list does not say which unit rides in which transport; nothing "
                                 "was embarked")
        built = [self.unit(i, u) for i, u in enumerate(self.lst.roster["units"])]
        if self.unknown and self.default_base_mm is None:
            raise ScenarioError(f"{len(self.unknown)} model(s) with no known base size, so they cannot be placed; add "
                                f"them to the catalogue (models/wh40k/), or import with a default base (--default-base "
                                f"32mm): " + "; ".join(self.unknown), file=self.lst.file)
        units = self.attach(built)
        r = self.lst.roster
        pts = (r.get("points") or {}).get("total_reported")
        faction = self.ds.factions.get(self.faction) if self.faction else None
        label = r.get("name") if r.get("name") not in (None, "", "Imported roster") else \
            (faction.name if faction is not None else "army")
        name = f"{label} ({Path(self.lst.file).name}" + (f", {pts} pts" if pts else "") + ")"
        return Army(player=player, name=name, units=units), self.warnings

    def new_id(self, name: str) -> str:
        from planner.io.roster import unique_id

        return unique_id(name, self.id_prefix, self.used)

    def datasheet(self, ref: dict[str, Any]):
        uid = ref.get("id")
        if not uid:
            return None
        return (self.ds.units.get_in_faction(uid, self.faction) if self.faction else None) or self.ds.units.get_any(uid)

    def unit(self, i: int, u: dict[str, Any]) -> _Built:
        ref = u.get("ref") or {}
        raw_name = str(ref.get("raw_name") or "").strip() or f"unit {i}"
        where = f"units[{i}] {_short(raw_name)!r}"
        count = u.get("model_count")
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            count = 1
        if count > MAX_MODELS_PER_UNIT:
            raise ScenarioError(f"unit has {count} models; at most {MAX_MODELS_PER_UNIT}", file=self.lst.file,
                                location=where, value=count)
        self.total += count
        if self.total > MAX_MODELS:
            raise ScenarioError(f"the list has {self.total} models up to this unit; at most {MAX_MODELS} in all",
                                file=self.lst.file, location=where, value=self.total)
        sheet = self.datasheet(ref)
        raw = sheet.raw if sheet is not None else {}
        if sheet is None:
            entry = self.catalogue.get(raw_name)
            if entry is None:
                cands = ", ".join(repr(c.get("name") or c.get("id")) for c in ref.get("candidates") or [])
                self.warnings.append(f"{where}: not a unit wh40kdc knows" + (f" (did you mean {cands}?)" if cands
                                                                             else "") + "; no keywords or abilities")
        models = self.models(where, raw_name, raw, count, u.get("loadout_groups"))
        keywords = [str(k).upper() for k in [*(raw.get("keywords") or []), *(raw.get("faction_keywords") or []),
                                             *(u.get("keyword_overrides") or [])]]
        keywords = list(dict.fromkeys(keywords))
        abilities = _abilities(raw, self.rs.SUPPORT_ABILITY) if raw else []
        cap = (raw.get("transport_capacity") or {}).get("capacity") if isinstance(raw.get("transport_capacity"),
                                                                                   dict) else None
        points = [p for p in (u.get("points"), u.get("enhancement_points")) if isinstance(p, int) and p >= 0]
        other = []
        if self.unknown_here:
            other.append(f"base assumed {self.default_base_mm:g} mm (no known base): " + ", ".join(self.unknown_here))
        if "FRAME" in keywords and self.rs.FRAME_MODELS and not all(self.is_hull(m) for m in models):
            self.warnings.append(f"{where}: a FRAME model with a base, not a hull outline ({self.rs.id} measures it "
                                 "to its hull): add its hull to models/wh40k/")
        # a unit wh40kdc does not know has no keywords: the schema's unit type (which the 40k rules
        # do not read) is then Infantry, as the planner assumes for 40k models without VEHICLE/MONSTER
        utype = None if keywords or all(m.profile for m in models) else UnitType.INFANTRY
        unit = Unit(id=self.new_id(raw_name), name=_short(raw_name, 200), type=utype, keywords=keywords,
                    abilities=abilities,
                    transport_capacity=cap if isinstance(cap, int) and 0 <= cap <= 10000 else None,
                    points=sum(points) if points else None, other_rules=other, place=self.place, models=models)
        self.add_profiles(unit, raw, u, where)
        role = "Support" if "Support" in abilities else "Leader" if "Leader" in abilities else ""
        return _Built(unit, raw_name, u.get("leader_attachment"), role)

    def add_profiles(self, unit: Unit, raw: dict[str, Any], u: dict[str, Any], where: str) -> None:
        """Characteristics and weapons from the datasheet and the list's wargear (issue 20)."""
        from planner.io import datasheet_profiles as dp

        profiles = [p for p in raw.get("profiles") or [] if isinstance(p, dict)]
        stats = [dp.stats_of(p, where=where, warn=self.warnings.append) for p in profiles]
        if stats:
            unit.stats = stats[0]
        if len(stats) > 1:
            by_name = {str(p.get("name") or "").lower(): s for p, s in zip(profiles, stats, strict=True)}
            for m in unit.models:
                own = by_name.get((m.name or "").lower())
                if own is not None and own is not stats[0]:
                    m.stats = own
        def weapon(wid: str) -> Any:
            return (self.ds.weapons.get_in_faction(wid, self.faction) if self.faction else None) \
                or self.ds.weapons.get_any(wid)

        unit.weapons = dp.weapons_of(u.get("wargear") or [], weapon, where=where, warn=self.warnings.append)

    def is_hull(self, m: Model) -> bool:
        if m.base is not None:
            return isinstance(m.base, HullBase)
        e = self.catalogue.get(m.profile) if m.profile else None
        return e is not None and isinstance(e.base, HullBase)

    def models(self, where: str, raw_name: str, raw: dict[str, Any], count: int,
               groups: list[dict[str, Any]] | None) -> list[Model]:
        """The unit's models: per composition row, its catalogue entry or its base from the data."""
        comp = self.ds.unit_composition_of(raw) if raw else None
        rows = [r for r in (comp or {}).get("models") or [] if isinstance(r, dict)]
        split = _split_models(rows, count, groups if isinstance(groups, list) else None)
        if not split:
            rows, split = [{"name": raw_name}], [(0, count)]
        self.unknown_here = []
        out: list[Model] = []
        for ri, n in split:
            row = rows[ri]
            mname = _short(str(row.get("name") or raw_name))
            out.extend([self.model(where, mname, raw_name, row, raw)] * n)
        return [m.model_copy() for m in out]

    def model(self, where: str, mname: str, raw_name: str, row: dict[str, Any], raw: dict[str, Any]) -> Model:
        for key in (mname, row.get("profile_name"), raw_name):
            if key and (entry := self.catalogue.get(str(key))) is not None:
                data: dict[str, Any] = {"profile": entry.id}
                if mname.lower() != entry.name.lower():
                    data["name"] = mname
                return Model(**data)
        base = _base_from_data(row.get("base_size_mm")) or _base_from_data(raw.get("base_size_mm"))
        if base is not None:
            return Model(name=mname, base=base)
        why = _describe_base(row.get("base_size_mm") or raw.get("base_size_mm")) if raw else "not a unit wh40kdc knows"
        if self.default_base_mm is None:
            text = f"{where}: model {mname!r} ({why}; not in the {self.rs.catalogue} catalogue)"
            if text not in self.unknown:
                self.unknown.append(text)
            return Model(name=mname, base=RoundBase(diameter_mm=32))  # never used: the import fails
        if mname not in self.unknown_here:
            self.unknown_here.append(mname)
            self.warnings.append(f"{where}: model {mname!r} has no known base ({why}); assumed a round "
                                 f"{self.default_base_mm:g} mm base")
        return Model(name=mname, base=RoundBase(diameter_mm=self.default_base_mm))

    def attach(self, built: list[_Built]) -> list[Unit]:
        """``setup.joined`` for each Leader/Support the list attaches to a Bodyguard (one of each role)."""
        taken: dict[tuple[str, str], str] = {}
        for b in built:
            a = b.attach
            if not isinstance(a, dict):
                continue
            target = str(((a.get("bodyguard_ref") or {}).get("raw_name")) or "").strip().lower()
            host = next((h for h in built if h is not b and h.raw_name.lower() == target and not h.attach
                         and h.unit.setup.joined is None), None)
            label = f"{b.unit.id} ({a.get('role', 'leader')}{', provisional' if a.get('provisional') else ''})"
            if host is None:
                self.warnings.append(f"{label}: the unit it is attached to in the list, {_short(target)!r}, is not "
                                     "in the army as a Bodyguard; left unattached")
                continue
            if not b.role:
                self.warnings.append(f"{label}: attached to {host.unit.id} in the list, but its datasheet has no "
                                     "Leader or Support ability; left unattached")
                continue
            if (host.unit.id, b.role) in taken:
                self.warnings.append(f"{label}: {host.unit.id} already has a {b.role} attached "
                                     f"({taken[(host.unit.id, b.role)]}); left unattached")
                continue
            taken[(host.unit.id, b.role)] = b.unit.id
            b.unit = b.unit.model_copy(update={"setup": Setup(joined=host.unit.id)})
            if a.get("provisional"):
                self.warnings.append(f"{label}: attached to {host.unit.id} by wh40kdc (a Support character cannot "
                                     "operate alone); provisional")
        return [b.unit for b in built]


def import_list(path: str | Path, ruleset: str, player: str = "player", default_base_mm: float | None = None,
                embark: bool = False, *, id_prefix: str = "", place: bool = False,
                list_format: str = "auto") -> tuple[Army, list[str]]:
    """:func:`read_list` then :func:`list_to_army`."""
    return list_to_army(read_list(path, list_format), ruleset, player, default_base_mm, embark, id_prefix=id_prefix,
                        place=place)


__all__ = ["FORMATS", "ArmyList", "import_list", "is_40k_ruleset", "list_to_army", "read_if_list", "read_list"]
