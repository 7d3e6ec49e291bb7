"""Tabletop Simulator saves in and out: a save (or a saved-object file) <-> a scenario.

A TTS save is JSON (Berserk Games, "Save File Format", kb.tabletopsimulator.com): ``ObjectStates``
is the list of objects, each with ``Name`` (the object kind, e.g. ``BlockSquare``, ``Custom_Model``,
``Bag``), ``Nickname``, ``Description``, ``GMNotes`` (text only the game master sees), ``Tags``,
``Transform`` (``posX/posY/posZ``, ``rotX/rotY/rotZ`` in degrees, ``scaleX/Y/Z``) and, for bags,
``ContainedObjects``; ``VectorLines`` holds the lines drawn on the table (``points3``: ``{x, y, z}``
points, ``color``, ``loop``).

Coordinates. TTS is a Unity game: a left-handed frame with y up, so the table is the x/z plane.
The 40k/Heresy TTS community plays with 1 unit = 1 inch and the table centre at the origin. Seen
from above (x to the right, z up the screen), our battlefield point ``(x, y)`` (inches, origin at
the lower-left corner) is TTS ``(posX, posZ) = (x - width/2, y - depth/2)``. Unity rotations follow
the left-hand rule: with the left thumb along +y (up), the fingers curl the way a positive angle
turns, i.e. a positive ``rotY`` turns **clockwise seen from above** (an object at ``rotY = 90``
has its local +z, its front, along world +x). Our ``facing`` is counter-clockwise from +x, and
an object's front is its local +z, so ``rotY = 90 - facing`` and ``facing = 90 - rotY`` (mod 360).
Sources: the save format page above (``Transform``: Unity's position, Euler angles and scale);
Unity's left-handed, y-up frame and left-hand rule for positive rotations (Unity manual; the
gamedev.tv community note "Coordinate System Handedness and Rotation"). Which way a model *mesh*
looks at ``rotY = 0`` is up to its author (Yellowscribe spawns at ``rotY = 180``); it does not
change a verdict, since a round, oval or hull footprint turned by 180 degrees is the same footprint.

What the importer reads (:func:`tts_to_scenario`), object by object, nested bags included:

- *Models*: objects that name a unit: a ``Unit: NAME`` line (in the Description or the GM notes),
  a ``unit:NAME`` tag, Yellowscribe's ``uuid:...`` tag (the unit's name is the ``unitName`` of the
  Lua script it gives the unit's first model), or the planner's own GM notes. The player: a
  ``Player: NAME`` line or ``player:NAME`` tag, else the deployment zone holding every model of the
  unit. The base: a ``Base:`` line or ``base:`` tag (``32mm``, ``60x35mm`` oval, ``hull 4.6x3.6in``),
  else a size in mm anywhere in the Description, else the object's scale for a ``BlockSquare``
  (the planner's export: 1 unit = 1" at scale 1; scaleX across the facing, scaleZ along it), else
  the ``models/`` catalogue by the model's name (Nickname without BBCode colour codes and
  Yellowscribe's ``W/W`` prefix). A model in a bag is off the table: its unit is in Reserves
  (``Setup: embarked in ID`` or the planner's notes may say otherwise). A ``Base:`` value must be
  one of the three forms with sizes more than 0, a ``Type:`` one of the unit types: anything else
  is an input error naming the object, the field and the value. A model without the planner's
  notes (one copied in TTS, its GM notes cleared) whose ``unit:`` tag or ``Unit:`` line names a
  unit of the scenario note, by id or by name, joins that unit (a warning says so); GM notes in
  braces that cannot be read are a warning, and the model is read from its Description and tags;
  a unit the scenario note does not know is made with a warning. With the planner's notes, the
  notes give the model (the ``Transform`` its position): a Description ``Base:`` or ``Player:``
  that says otherwise is a warning naming both values. Names are cut to :data:`MAX_NAME`
  characters, with a warning.
- *Terrain*: objects tagged ``terrain`` or named as terrain (ruin, wood, forest, building, wall,
  crater ...). The footprint: the planner's notes (a polygon in the object's own frame), a
  ``Footprint: 6x4`` line (a rectangle in inches about the object's centre, turned with it), or
  the scale of a ``BlockSquare``; a ``Footprint:`` that is not two sides more than 0 and at most
  :data:`MAX_FOOTPRINT_IN` is an input error. ``Kind:`` and ``Traits:`` lines, else a reading of
  the name. Terrain (and objectives) in a bag are off the table: listed as not matched.
- *Objectives*: objects tagged ``objective`` or named ``Objective ...``.
- Every model, objective or terrain piece on the table needs a ``Transform`` with ``posX`` and
  ``posZ`` (an input error otherwise, never the table centre).
- *Deployment zones*: closed ``VectorLines`` (``loop``, or a last point on the first); the player
  is the planner's notes, else the TTS colour name of the line (``red``, ``blue`` ...).
  With ``--map``, the map's zones instead, on its battlefield: the scenario read on the save's
  table is moved onto it by one :func:`translate_scenario_data` (see :func:`tts_to_scenario`).
- Every other object (and every open line) is listed as not matched, with the reason.

The exporter (:func:`scenario_to_tts`) writes that same format: each model a ``BlockSquare`` at
its position and facing, scaled to its base, with ``Unit``, ``Player`` and ``Base`` lines in its
Description and its full record in its GM notes; units off the table in nested bags (player, then
unit); terrain as ``BlockSquare`` pieces with their footprints; zones as closed vector lines; and
a locked ``Notecard`` holding what TTS has no place for (ruleset, battlefield, set-ups, goals).
Moving a piece in TTS and saving moves it in the scenario: positions always come from the
``Transform``. TTS writes single-precision floats, about 1e-5" at table scale.
"""

from __future__ import annotations

import functools
import json
import math
import re
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from planner.errors import ScenarioError
from planner.schema import HullBase, OvalBase, RoundBase, Scenario, UnitType, parse_rule
from planner.units import MM_PER_INCH

MAX_SAVE_BYTES = 50 * 1024 * 1024
"""Default size limit of a TTS save (bytes): saves with Lua scripts and army data cards are large."""
MAX_OBJECTS = 20_000
"""Most objects of a save, bags' contents included."""
MAX_BAG_DEPTH = 16
"""Most levels of bags in bags."""
MAX_TEXT = 1_000_000
"""Most characters of one text field (Description, GM notes, Lua script)."""
MAX_LINE_POINTS = 1000
"""Most points of one vector line."""
MAX_NUMBER = 1_000_000.0
"""Largest magnitude of a position, angle or scale."""
PLANNER_MARK = "planner"
"""Key of the planner's own JSON in GM notes."""
HEADER_NICKNAME = "planner: scenario"
TABLE_Y = 1.5
"""Height (TTS units) at which the exporter sets pieces: a little above the top of the usual
tables (about 1), so that they settle on it; lines are drawn at :data:`LINE_Y`."""
LINE_Y = 1.02
BASE_HEIGHT = 0.125
"""Thickness of an exported base, inches."""

TTS_COLOURS: dict[str, tuple[float, float, float]] = {
    "white": (1.0, 1.0, 1.0), "brown": (0.443, 0.231, 0.09), "red": (0.856, 0.1, 0.094),
    "orange": (0.956, 0.392, 0.113), "yellow": (0.905, 0.898, 0.172), "green": (0.192, 0.701, 0.168),
    "teal": (0.129, 0.694, 0.607), "blue": (0.118, 0.53, 1.0), "purple": (0.627, 0.125, 0.941),
    "pink": (0.96, 0.439, 0.807), "grey": (0.5, 0.5, 0.5), "black": (0.25, 0.25, 0.25),
}
"""The TTS player colours (TTS API, ``Color``), by name: zone lines are matched to the nearest."""
PLAYER_COLOURS = ("red", "blue", "green", "yellow", "purple", "orange", "teal", "pink", "white", "brown")
"""Colours the exporter gives the players, in army order."""

_TERRAIN_WORDS = re.compile(r"\b(terrain|ruins?|ruined|woods?|forest|trees?|building|bastion|walls?|crater|hill|"
                            r"container|barricades?|rocks?|statuary|manufactorum|fortification|aegis|rubble|"
                            r"pool|tank farm)\b", re.IGNORECASE)
_SOLID_WORDS = re.compile(r"\b(building|bastion|walls?|container|hill|rocks?|statuary|fortification|aegis|"
                          r"manufactorum|tank farm)\b", re.IGNORECASE)
_OPEN_WORDS = re.compile(r"\b(crater|rubble|pool)\b", re.IGNORECASE)
_BBCODE = re.compile(r"\[(?:[0-9a-fA-F]{6}|-|/?[bius]|/?sup|/?sub)\]")
_WOUNDS_PREFIX = re.compile(r"^\s*\d+/\d+\s+")
_KEY_LINE = re.compile(r"^\s*([A-Za-z][A-Za-z ]{0,20}?)\s*:\s*(.*?)\s*$")
_OVAL = re.compile(r"(?<![-\d.])(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)\s*mm", re.IGNORECASE)
_HULL = re.compile(r"hull\s*(\d+(?:\.\d+)?)\s*[x×]\s*(\d+(?:\.\d+)?)\s*(?:in|\"|inch(?:es)?)?", re.IGNORECASE)
_ROUND = re.compile(r"(?<![-\d.])(\d+(?:\.\d+)?)\s*mm\b", re.IGNORECASE)
_NUM = r"([-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?)"
_RECT = re.compile(rf"\s*{_NUM}\s*(?:\"|in)?\s*[x×]\s*{_NUM}\s*(?:\"|in)?\s*", re.IGNORECASE)
_BASE_FORMS = (  # a whole 'Base:' value: hull in inches, oval in mm, round in mm
    ("hull", re.compile(rf"\s*hull\s*{_NUM}\s*[x×]\s*{_NUM}\s*(?:in|\"|inch(?:es)?)?\s*", re.IGNORECASE)),
    ("oval", re.compile(rf"\s*{_NUM}\s*[x×]\s*{_NUM}\s*mm\s*", re.IGNORECASE)),
    ("round", re.compile(rf"\s*{_NUM}\s*mm\s*", re.IGNORECASE)),
)
MAX_NAME = 200
"""Most characters of a name read from a save (unit, model, terrain); a longer one is cut, with a warning."""
MAX_FOOTPRINT_IN = 1000.0
"""Largest side of a ``Footprint:`` rectangle (inches), the largest battlefield side."""
_LUA_UNIT_NAME = re.compile(r"unitName\s*=\s*\"((?:[^\"\\]|\\.){1,200})\"")
_SCALE_PRIMITIVES = frozenset({"BlockSquare"})
"""Objects whose scale is their footprint in inches (1 x 1 at scale 1): the planner's own pieces."""
_BAG_NAMES = frozenset({"Bag", "Custom_Model_Bag", "Custom_Model_Infinite_Bag", "Infinite_Bag", "Deck", "DeckCustom"})


# --------------------------------------------------------------------------- reading the save


@dataclass
class TtsObject:
    """One object of a save, its text fields read (BBCode removed from the Nickname)."""

    path: str
    kind: str
    nickname: str
    description: str
    gm_notes: str
    tags: list[str]
    x: float
    z: float
    rot_y: float
    scale_x: float
    scale_z: float
    lua: str
    bags: list[TtsObject] = field(default_factory=list)
    """The bags holding it, outermost first (empty: on the table)."""
    notes: dict[str, Any] | None = None
    """The planner's JSON from the GM notes, if any."""
    is_bag: bool = False
    """It holds other objects (``ContainedObjects``)."""
    notes_problem: str | None = None
    """Why GM notes that look like JSON could not be read as the planner's notes (None: no problem)."""
    missing: str | None = None
    """The position field the save does not give (``Transform``, ``Transform.posX``), if any."""
    _fields: dict[str, str] | None = field(default=None, repr=False)
    _sources: dict[str, str] = field(default_factory=dict, repr=False)

    @property
    def label(self) -> str:
        return self.nickname or self.kind or self.path

    def fields(self) -> dict[str, str]:
        """``Key: value`` lines of the GM notes and the Description, and ``key:value`` tags
        (lower-case keys; the GM notes first, then tags, then the Description), then the bags'
        (computed once)."""
        if self._fields is not None:
            return self._fields
        out: dict[str, str] = {}
        src = self._sources
        if self.notes is None:
            _lines_into(self.gm_notes, out, src, f"{self.path}.GMNotes")
        for i, t in enumerate(self.tags):
            k, sep, v = t.partition(":")
            if sep and k.strip() and k.strip().lower() not in out:
                out[k.strip().lower()] = v.strip()
                src[k.strip().lower()] = f"{self.path}.Tags[{i}]"
        _lines_into(self.description, out, src, f"{self.path}.Description")
        if self.bags:
            bag = self.bags[-1]
            for k, v in bag.fields().items():  # the innermost bag holds its own bags' fields
                if k not in out:
                    out[k], src[k] = v, bag.where(k)
        self._fields = out
        return out

    def where(self, key: str) -> str:
        """Where field ``key`` of :meth:`fields` was read: ``ObjectStates[3].Description 'Base:'``."""
        self.fields()
        loc = self._sources.get(key, f"{self.path}.Description")
        return loc if ".Tags[" in loc else f"{loc} '{key.title()}:'"

    def has_tag(self, tag: str) -> bool:
        return any(t.strip().lower() == tag for t in self.tags)


def _lines_into(text: str, out: dict[str, str], sources: dict[str, str], where: str) -> None:
    for line in text.split("\n", 200)[:200]:  # the first 200 lines
        m = _KEY_LINE.match(_BBCODE.sub("", line))
        if m and m.group(1).strip().lower() not in out:
            out[m.group(1).strip().lower()] = m.group(2)
            sources[m.group(1).strip().lower()] = where


@dataclass
class TtsLine:
    """One vector line on the table: its points on the table plane (TTS x, z) and colour name."""

    path: str
    points: list[tuple[float, float]]
    closed: bool
    colour: str


@dataclass
class TtsSave:
    """A save as read: every object (bags' contents too, in file order) and every vector line."""

    file: str
    objects: list[TtsObject]
    lines: list[TtsLine]
    header: dict[str, Any] | None = None


def _bad(file: str, loc: str, msg: str, value: object = None) -> ScenarioError:
    return ScenarioError(msg, file=file, location=loc, value=value)


def _number(d: dict, key: str, loc: str, file: str, default: float = 0.0) -> float:
    if key not in d:
        return default
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, int | float):
        raise _bad(file, f"{loc}.{key}", "must be a number", v if not isinstance(v, dict | list) else type(v).__name__)
    if not math.isfinite(v) or abs(v) > MAX_NUMBER:
        raise _bad(file, f"{loc}.{key}", f"must be a finite number of at most {MAX_NUMBER:g} in size", v)
    return float(v)


def _text(d: dict, key: str, loc: str, file: str) -> str:
    v = d.get(key, "")
    if v is None:
        return ""
    if not isinstance(v, str):
        raise _bad(file, f"{loc}.{key}", "must be text", v if not isinstance(v, dict | list) else type(v).__name__)
    if len(v) > MAX_TEXT:
        raise _bad(file, f"{loc}.{key}", f"text of {len(v)} characters; at most {MAX_TEXT} are allowed")
    return v


def _mapping(v: object, loc: str, file: str) -> dict:
    if isinstance(v, list):
        raise _bad(file, loc, "must be an object ({...}), not a list")
    if not isinstance(v, dict):
        raise _bad(file, loc, "must be an object ({...})", v)
    return v


def _list(v: object, loc: str, file: str) -> list:
    if isinstance(v, dict):
        raise _bad(file, loc, "must be a list ([...]), not an object")
    if not isinstance(v, list):
        raise _bad(file, loc, "must be a list ([...])", v)
    return v


def _notes_json(text: str, loc: str, file: str, header: bool) -> tuple[dict[str, Any] | None, str | None]:
    """The planner's JSON in GM notes (``{"planner": 1, ...}``), or None for any other text; and
    why notes that look like JSON are not the planner's (None: no problem).

    Raises
    ------
    ScenarioError
        ``header`` (the object is the scenario note) and its notes are not valid JSON.
    """
    s = text.strip()
    if not s.startswith("{"):
        return None, None
    if f'"{PLANNER_MARK}"' not in s:
        return None, "GM notes in braces that are not the planner's notes"
    from planner.io.files import parse_json

    try:
        data = parse_json(s, file)
    except ScenarioError as exc:
        if header:
            raise _bad(file, f"{loc}.GMNotes", f"the planner's notes are not valid JSON: {exc.detail}") from None
        return None, f"the planner's notes are not valid JSON ({exc.detail})"
    if not isinstance(data, dict) or PLANNER_MARK not in data:
        return None, "GM notes in braces that are not the planner's notes"
    return data, None


def parse_save(data: Any, file: str) -> TtsSave:
    """Read the plain data of a save (or saved-object file) into :class:`TtsSave`.

    Raises
    ------
    ScenarioError
        Naming ``file``, the field path (``ObjectStates[3].Transform.posX``) and the value: a
        wrong type, a number not finite or out of range, more than :data:`MAX_OBJECTS` objects
        or :data:`MAX_BAG_DEPTH` levels of bags, a text field over :data:`MAX_TEXT` characters.
    """
    top = _mapping(data, "(top level)", file)
    states = top.get("ObjectStates")
    if states is None:
        raise _bad(file, "ObjectStates", "not a Tabletop Simulator save: no ObjectStates list")
    objects: list[TtsObject] = []
    header: dict[str, Any] | None = None
    header_path = ""

    def walk(items: object, loc: str, bags: list[TtsObject]) -> None:
        nonlocal header, header_path
        if len(bags) > MAX_BAG_DEPTH:
            raise _bad(file, loc, f"bags nest more than {MAX_BAG_DEPTH} levels deep")
        for i, raw in enumerate(_list(items, loc, file)):
            oloc = f"{loc}[{i}]"
            d = _mapping(raw, oloc, file)
            tr = _mapping(d.get("Transform", {}), f"{oloc}.Transform", file)
            missing = ("Transform" if "Transform" not in d else
                       next((f"Transform.{k}" for k in ("posX", "posZ") if k not in tr), None))
            tags = _list(d.get("Tags", []), f"{oloc}.Tags", file)
            for ti, t in enumerate(tags):
                if not isinstance(t, str) or len(t) > 1000:
                    raise _bad(file, f"{oloc}.Tags[{ti}]", "a tag must be text (at most 1000 characters)", t)
            tloc = f"{oloc}.Transform"
            gm = _text(d, "GMNotes", oloc, file)
            nick = " ".join(_BBCODE.sub("", _text(d, "Nickname", oloc, file)).split())
            notes, problem = _notes_json(gm, oloc, file, nick == HEADER_NICKNAME or '"scenario"' in gm)
            obj = TtsObject(
                path=oloc, kind=_text(d, "Name", oloc, file),
                nickname=nick,
                description=_text(d, "Description", oloc, file), gm_notes=gm, tags=list(tags),
                x=_number(tr, "posX", tloc, file), z=_number(tr, "posZ", tloc, file),
                rot_y=_number(tr, "rotY", tloc, file), scale_x=_number(tr, "scaleX", tloc, file, 1.0),
                scale_z=_number(tr, "scaleZ", tloc, file, 1.0), lua=_text(d, "LuaScript", oloc, file),
                bags=list(bags), notes=notes, is_bag="ContainedObjects" in d, notes_problem=problem,
                missing=missing)
            if len(objects) >= MAX_OBJECTS:
                raise _bad(file, oloc, f"the save holds more than {MAX_OBJECTS} objects (the limit)")
            if obj.notes is not None and obj.notes.get("piece") == "scenario":
                if header is not None:
                    raise _bad(file, f"{oloc}.GMNotes", "a second planner scenario note (one per save)")
                header, header_path = obj.notes, f"{oloc}.GMNotes"
                continue
            objects.append(obj)
            if "ContainedObjects" in d:
                walk(d["ContainedObjects"], f"{oloc}.ContainedObjects", [*bags, obj])

    walk(states, "ObjectStates", [])
    if header is not None:
        _check_header(header, file, header_path)
    lines = [_line(v, f"VectorLines[{i}]", file) for i, v in enumerate(_list(top.get("VectorLines", []),
                                                                             "VectorLines", file))]
    return TtsSave(file, objects, lines, header)


def _check_header(h: dict[str, Any], file: str, loc: str) -> None:
    """The shape of the planner's scenario note (its records are validated with the scenario)."""
    if "battlefield" in h:
        bf = _mapping(h["battlefield"], f"{loc}.battlefield", file)
        for k in ("width", "depth"):
            v = _number(bf, k, f"{loc}.battlefield", file, 1.0)
            if not 0 < v <= 1000:
                raise _bad(file, f"{loc}.battlefield.{k}", "must be more than 0 and at most 1000 inches", v)
    for ai, a in enumerate(_list(h.get("armies", []), f"{loc}.armies", file)):
        a = _mapping(a, f"{loc}.armies[{ai}]", file)
        _text(a, "player", f"{loc}.armies[{ai}]", file)
        for ui, u in enumerate(_list(a.get("units", []), f"{loc}.armies[{ai}].units", file)):
            u = _mapping(u, f"{loc}.armies[{ai}].units[{ui}]", file)
            if not isinstance(u.get("id"), str):
                raise _bad(file, f"{loc}.armies[{ai}].units[{ui}].id", "a unit needs an id (text)", u.get("id"))
    for zi, z in enumerate(_list(h.get("zones", []), f"{loc}.zones", file)):
        z = _mapping(z, f"{loc}.zones[{zi}]", file)
        for k in ("id", "player", "colour"):
            _text(z, k, f"{loc}.zones[{zi}]", file)


def _line(raw: object, loc: str, file: str) -> TtsLine:
    d = _mapping(raw, loc, file)
    pts_raw = _list(d.get("points3", []), f"{loc}.points3", file)
    if len(pts_raw) > MAX_LINE_POINTS:
        raise _bad(file, f"{loc}.points3", f"a line of {len(pts_raw)} points; at most {MAX_LINE_POINTS} are allowed")
    pts = []
    for i, p in enumerate(pts_raw):
        pd = _mapping(p, f"{loc}.points3[{i}]", file)
        pts.append((_number(pd, "x", f"{loc}.points3[{i}]", file), _number(pd, "z", f"{loc}.points3[{i}]", file)))
    loop = d.get("loop", False)
    if not isinstance(loop, bool) and loop is not None:
        raise _bad(file, f"{loc}.loop", "must be true or false", loop)
    closed = bool(loop)
    if len(pts) >= 4 and math.dist(pts[0], pts[-1]) <= 0.05:
        closed, pts = True, pts[:-1]
    col = _mapping(d.get("color", {"r": 1, "g": 1, "b": 1}), f"{loc}.color", file)
    rgb = tuple(_number(col, k, f"{loc}.color", file) for k in ("r", "g", "b"))
    return TtsLine(loc, pts, closed and len(pts) >= 3, nearest_colour(rgb))


def nearest_colour(rgb: tuple[float, ...]) -> str:
    """The TTS player colour nearest to ``rgb`` (components 0-1): its lower-case name."""
    return min(TTS_COLOURS, key=lambda n: sum((a - b) ** 2 for a, b in zip(TTS_COLOURS[n], rgb, strict=True)))


def read_tts(path: str | Path) -> TtsSave:
    """Read a TTS save or saved-object file (JSON) with the bounded reader.

    Raises
    ------
    ScenarioError
        As :func:`planner.io.files.read_input` (size limit: :data:`MAX_SAVE_BYTES`, or
        ``PLANNER_MAX_INPUT_MB``), :func:`planner.io.files.parse_json` and :func:`parse_save`.
    """
    from planner.io.files import parse_json, read_text

    name = str(path)
    text = read_text(path, "Tabletop Simulator save", MAX_SAVE_BYTES, bom=True)
    return parse_save(parse_json(text, name), name)


# --------------------------------------------------------------------------- coordinates


def to_table(x: float, y: float, width: float, depth: float) -> tuple[float, float]:
    """Battlefield point (inches, origin lower-left) -> TTS (posX, posZ), table centre at 0.

    >>> to_table(36, 24, 72, 48)
    (0.0, 0.0)
    """
    return float(x - width / 2), float(y - depth / 2)


def from_table(px: float, pz: float, width: float, depth: float) -> tuple[float, float]:
    """TTS (posX, posZ) -> battlefield point (inches, origin lower-left); inverse of :func:`to_table`."""
    return float(px + width / 2), float(pz + depth / 2)


def facing_to_rot_y(facing: float) -> float:
    """Our facing (degrees counter-clockwise from +x) -> TTS ``rotY`` (degrees, clockwise from
    +z seen from above), in [0, 360).

    >>> facing_to_rot_y(90), facing_to_rot_y(0), facing_to_rot_y(270)
    (0.0, 90.0, 180.0)
    """
    return float((90.0 - facing) % 360.0)


def rot_y_to_facing(rot_y: float) -> float:
    """TTS ``rotY`` -> our facing in [0, 360); inverse of :func:`facing_to_rot_y` (mod 360)."""
    f = (90.0 - rot_y) % 360.0
    return 0.0 if f >= 360.0 - 1e-9 else float(f)


def _local_to_world(obj: TtsObject, lx: float, ly: float, width: float, depth: float) -> tuple[float, float]:
    """A point in the object's own frame (inches, our axes at rotY 0) -> battlefield point."""
    cx, cy = from_table(obj.x, obj.z, width, depth)
    a = math.radians(-obj.rot_y)  # clockwise rotY is a negative counter-clockwise turn
    return cx + lx * math.cos(a) - ly * math.sin(a), cy + lx * math.sin(a) + ly * math.cos(a)


# --------------------------------------------------------------------------- bases


def base_text(base: RoundBase | OvalBase | HullBase) -> str:
    """The ``Base:`` text the exporter writes and :func:`parse_base_text` reads.

    >>> base_text(RoundBase(diameter_mm=32)), base_text(OvalBase(length_mm=60, width_mm=35))
    ('32mm', '60x35mm')
    """
    if isinstance(base, RoundBase):
        return f"{base.diameter_mm:g}mm"
    if isinstance(base, OvalBase):
        return f"{base.length_mm:g}x{base.width_mm:g}mm"
    return f"hull {base.length_in:g}x{base.width_in:g}in"


def parse_base_text(text: str) -> dict[str, float] | None:
    """A base in text: ``hull 4.6x3.6in`` (inches, length along the facing first), ``60x35mm``
    (oval; the longer side is the length), ``32mm`` (round); None if there is none.

    >>> parse_base_text("Base: 60x35mm"), parse_base_text("32 mm"), parse_base_text("no base")
    ({'length_mm': 60.0, 'width_mm': 35.0}, {'diameter_mm': 32.0}, None)
    """
    m = _HULL.search(text)
    if m:
        return {"length_in": float(m.group(1)), "width_in": float(m.group(2))}
    m = _OVAL.search(text)
    if m:
        a, b = float(m.group(1)), float(m.group(2))
        if a == b:
            return {"diameter_mm": a}
        return {"length_mm": max(a, b), "width_mm": min(a, b)}
    m = _ROUND.search(text)
    if m:
        return {"diameter_mm": float(m.group(1))}
    return None


def parse_base_value(text: str, file: str, where: str) -> dict[str, float]:
    """The whole value of a ``Base:`` line or ``base:`` tag (``32mm``, ``60x35mm``, ``hull 4.6x3.6in``),
    as :func:`parse_base_text` gives it; sizes must be more than 0.

    Raises
    ------
    ScenarioError
        Naming ``file``, ``where`` (the object and field) and the text: not one of the three forms,
        or a size not more than 0.
    """
    for form, rx in _BASE_FORMS:
        m = rx.fullmatch(text)
        if m is None:
            continue
        nums = [float(g) for g in m.groups()]
        if not all(math.isfinite(v) and 0 < v <= MAX_NUMBER for v in nums):
            raise ScenarioError("a base size must be a number more than 0", file=file, location=where, value=text)
        if form == "hull":
            return {"length_in": nums[0], "width_in": nums[1]}
        if form == "round" or nums[0] == nums[1]:
            return {"diameter_mm": nums[0]}
        return {"length_mm": max(nums), "width_mm": min(nums)}
    raise ScenarioError("not a base size: give '32mm' (round), '60x35mm' (oval) or 'hull 4.6x3.6in'", file=file,
                        location=where, value=text)


def _same_base(a: dict[str, Any], b: dict[str, float]) -> bool:
    """Two bases as data are the same, to the 6 significant digits ``Base:`` text is written with."""
    return a.keys() == b.keys() and all(isinstance(a[k], int | float) and math.isclose(a[k], b[k], rel_tol=1e-5)
                                        for k in a)


def _base_size_in(base: RoundBase | OvalBase | HullBase) -> tuple[float, float]:
    """(across the facing, along the facing), inches."""
    if isinstance(base, RoundBase):
        d = base.diameter_mm / MM_PER_INCH
        return d, d
    if isinstance(base, OvalBase):
        return base.width_mm / MM_PER_INCH, base.length_mm / MM_PER_INCH
    return base.width_in, base.length_in


# --------------------------------------------------------------------------- export


def _guid(n: int) -> str:
    """A six-hex-digit GUID, unique in the save (TTS gives new ones to any it finds twice)."""
    return f"{0x100000 + n:06x}"


def _transform(px: float, pz: float, rot_y: float, sx: float, sz: float, sy: float = BASE_HEIGHT) -> dict:
    return {"posX": px, "posY": TABLE_Y, "posZ": pz, "rotX": 0.0, "rotY": rot_y, "rotZ": 0.0,
            "scaleX": sx, "scaleY": sy, "scaleZ": sz}


def _colour(name: str) -> dict[str, float]:
    r, g, b = TTS_COLOURS[name]
    return {"r": r, "g": g, "b": b}


def _obj(n: int, kind: str, nickname: str, description: str, transform: dict, *, notes: dict | None = None,
         tags: list[str] | None = None, colour: str = "white", locked: bool = False) -> dict:
    return {"GUID": _guid(n), "Name": kind, "Transform": transform, "Nickname": nickname,
            "Description": description, "GMNotes": json.dumps(notes, allow_nan=False) if notes else "",
            "ColorDiffuse": _colour(colour), "Tags": tags or [], "Locked": locked, "Grid": False, "Snap": False}



def _shifted(dx: float, dy: float, q: list[float]) -> list[float]:
    return [q[0] + dx, q[1] + dy]


def _map_terrain_points(rec: dict[str, Any], fn: Callable[[list[float]], list[float]]) -> dict[str, Any]:
    """A terrain record (as JSON data) with ``fn`` applied to every point of its outlines:
    ``footprint``, ``pieces[].footprint``, ``walls[].points`` / ``walls[].footprint`` and
    ``floors[].footprint``; anything else is kept as it is (the schema judges it later)."""
    if not isinstance(rec, dict):
        raise TypeError("a terrain record must be a mapping")
    out = dict(rec)
    if isinstance(out.get("footprint"), list):
        out["footprint"] = [fn(q) for q in out["footprint"]]
    for key, subs in (("pieces", ("footprint",)), ("walls", ("points", "footprint")), ("floors", ("footprint",))):
        items = out.get(key)
        if isinstance(items, list):
            out[key] = [{**it, **{k: [fn(q) for q in it[k]] for k in subs if isinstance(it.get(k), list)}}
                        if isinstance(it, dict) else it for it in items]
    return out

def translate_scenario_data(data: dict[str, Any], dx: float, dy: float) -> dict[str, Any]:
    """Scenario ``data`` (plain data, as a file holds it) with every position on the table moved by
    ``(dx, dy)`` inches: terrain outlines (:func:`_map_terrain_points`), deployment zone polygons,
    objective markers, model centres, Scout first positions (``setup.from``, their facings kept),
    ``near_point`` goal points and ``deny`` goal ``protect`` points. Facings, heights, ids and
    everything else are kept; ``battlefield`` is not changed (the caller sets the new table). The
    one transform of a scenario moved onto another table (``planner import-tts --map``): a
    position left out here would be measured in the old table's frame. A record of the wrong
    shape is kept as it is (the schema judges it later). New lists and records; ``data`` is not
    changed.

    >>> d = translate_scenario_data({"objectives": [{"id": "o", "x": 36, "y": 24}]}, -6, -2)
    >>> d["objectives"][0]["x"], d["objectives"][0]["y"]
    (30, 22)
    """

    def move(q: Any) -> Any:
        if not (isinstance(q, list | tuple) and len(q) >= 2 and all(isinstance(v, int | float) for v in q[:2])):
            return q
        return [round(q[0] + dx, 9), round(q[1] + dy, 9), *q[2:]]

    def move_xy(rec: Any) -> Any:
        if not isinstance(rec, dict) or not all(isinstance(rec.get(k), int | float) for k in ("x", "y")):
            return rec
        return {**rec, "x": round(rec["x"] + dx, 9), "y": round(rec["y"] + dy, 9)}

    def move_unit(u: Any) -> Any:
        if not isinstance(u, dict):
            return u
        out = dict(u)
        if isinstance(u.get("models"), list):
            out["models"] = [move_xy(m) for m in u["models"]]
        setup = u.get("setup")
        if isinstance(setup, dict) and isinstance(setup.get("from"), list):
            out["setup"] = {**setup, "from": [move(q) for q in setup["from"]]}
        return out

    def move_goal(g: Any) -> Any:
        g = move_xy(g)  # near_point
        if isinstance(g, dict) and "protect" in g:  # deny
            g = {**g, "protect": move(g["protect"])}
        return g

    out = dict(data)
    if isinstance(data.get("terrain"), list):
        out["terrain"] = [_map_terrain_points(t, move) if isinstance(t, dict) else t for t in data["terrain"]]
    if isinstance(data.get("deployment_zones"), list):
        out["deployment_zones"] = [{**z, "polygon": [move(q) for q in z["polygon"]]}
                                   if isinstance(z, dict) and isinstance(z.get("polygon"), list) else z
                                   for z in data["deployment_zones"]]
    if isinstance(data.get("objectives"), list):
        out["objectives"] = [move_xy(o) for o in data["objectives"]]
    if isinstance(data.get("armies"), list):
        out["armies"] = [{**a, "units": [move_unit(u) for u in a["units"]]}
                         if isinstance(a, dict) and isinstance(a.get("units"), list) else a for a in data["armies"]]
    if isinstance(data.get("goals"), list):
        out["goals"] = [move_goal(g) for g in data["goals"]]
    return out


def scenario_to_tts(scenario: Scenario, *, source: str = "") -> dict[str, Any]:
    """A TTS save (plain data, to write as JSON) that spawns the scenario's deployment.

    Each model is a ``BlockSquare`` at its position and facing scaled to its base (inches), with
    ``Unit:``, ``Player:`` and ``Base:`` lines (its own base, else its catalogue profile's) in its Description and its record in its GM notes;
    models without a position go in a bag per unit inside a bag per player; terrain pieces carry
    their footprints; zones are closed vector lines in the player's colour; a locked Notecard
    holds the rest. :func:`tts_to_scenario` reads it back.
    """
    from planner.io.catalogue import load_catalogue
    from planner.rules.registry import find_ruleset

    catalogue = load_catalogue(find_ruleset(scenario.ruleset).catalogue)
    bf = scenario.battlefield
    w, d = bf.width, bf.depth
    players = [a.player for a in scenario.armies]
    colour_of = {p: PLAYER_COLOURS[i % len(PLAYER_COLOURS)] for i, p in enumerate(players)}
    objects: list[dict] = []
    counter = iter(range(1, 10**9))
    data = scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
    header = {PLANNER_MARK: 1, "piece": "scenario", "source": source,
              **{k: v for k, v in data.items() if k not in ("terrain", "deployment_zones", "objectives", "armies")},
              "armies": [{"player": a["player"], **({"name": a["name"]} if a.get("name") else {}),
                          "units": [{k: v for k, v in u.items() if k != "models"} for u in a["units"]]}
                         for a in data["armies"]],
              "zones": [{"id": z.id, "player": z.player, "colour": colour_of.get(z.player, "white")}
                        for z in scenario.deployment_zones]}
    objects.append(_obj(next(counter), "Notecard", HEADER_NICKNAME,
                        f"{scenario.name or source}\nRuleset: {scenario.ruleset}\nBattlefield: {w:g}x{d:g}\n"
                        "Written by planner export-tts; planner import-tts reads this save back.",
                        _transform(-w / 2 - 6, 0.0, 0.0, 1.0, 1.0, 1.0), notes=header, locked=True))
    for ti, t in enumerate(scenario.terrain):
        x0, y0, x1, y1 = t.shape.bounds
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        # every outline (footprint, pieces, walls, floors) in the object's own frame, so that a
        # piece moved or turned on the table takes its whole feature with it
        rec = _map_terrain_points(t.model_dump(mode="json", exclude_none=True), functools.partial(_shifted, -cx, -cy))
        notes = {PLANNER_MARK: 1, "piece": "terrain", "index": ti, "local": rec}
        desc = f"Terrain: {t.kind.value}\nTraits: {', '.join(x.value for x in t.traits) or 'none'}"
        px, pz = to_table(cx, cy, w, d)
        objects.append(_obj(next(counter), "BlockSquare", t.name or t.id, desc,
                            _transform(px, pz, 0.0, x1 - x0, y1 - y0, 1.0),
                            notes=notes, tags=["terrain"], colour="grey", locked=True))
    for o in scenario.objectives:
        px, pz = to_table(o.x, o.y, w, d)
        dia = o.diameter_mm / MM_PER_INCH
        objects.append(_obj(next(counter), "BlockSquare", f"Objective {o.id}",
                            f"Objective: {o.id}\nBase: {o.diameter_mm:g}mm", _transform(px, pz, 0.0, dia, dia),
                            tags=["objective"], colour="yellow", locked=True))
    for ai, army in enumerate(scenario.armies):
        bags: dict[str, dict] = {}
        for ui, unit in enumerate(army.units):
            for mi, m in enumerate(unit.models):
                mdata = data["armies"][ai]["units"][ui]["models"][mi]
                rec = {k: v for k, v in mdata.items() if k not in ("x", "y", "facing")}
                notes = {PLANNER_MARK: 1, "piece": "model", "unit": unit.id, "index": mi, "model": rec}
                entry = catalogue.get(m.profile) if m.profile else None
                base = m.base or (entry.base if entry is not None else None)
                desc = [f"Unit: {unit.name or unit.id}", f"Player: {army.player}"]
                if base is not None:
                    desc.append(f"Base: {base_text(base)}")
                if m.profile:
                    desc.append(f"Profile: {m.profile}")
                size = _base_size_in(base) if base is not None else (1.0, 1.0)
                label = m.name or m.profile or unit.name or unit.id
                if m.x is not None and m.y is not None:
                    px, pz = to_table(m.x, m.y, w, d)
                    tr = _transform(px, pz, facing_to_rot_y(m.facing), size[0], size[1])
                    objects.append(_obj(next(counter), "BlockSquare", label, "\n".join(desc), tr, notes=notes,
                                        tags=[f"unit:{unit.id}"], colour=colour_of[army.player]))
                    continue
                if unit.id not in bags:
                    bags[unit.id] = _obj(next(counter), "Bag", unit.name or unit.id,
                                         f"Setup: {unit.setup.method.value}", _transform(0, 0, 0, 1, 1, 1),
                                         colour=colour_of[army.player])
                    bags[unit.id]["ContainedObjects"] = []
                tr = _transform(0.0, 0.0, facing_to_rot_y(m.facing), size[0], size[1])
                bags[unit.id]["ContainedObjects"].append(
                    _obj(next(counter), "BlockSquare", label, "\n".join(desc), tr, notes=notes,
                         tags=[f"unit:{unit.id}"], colour=colour_of[army.player]))
        if bags:
            outer = _obj(next(counter), "Bag", f"{army.player}: off the table",
                         f"Player: {army.player}\nUnits not on the battlefield (embarked, in reserves, to place).",
                         _transform(w / 2 + 6, -d / 2 + 6 * ai, 0.0, 1, 1, 1), colour=colour_of[army.player])
            outer["ContainedObjects"] = list(bags.values())
            objects.append(outer)
    lines = []
    for z in scenario.deployment_zones:
        pts = [to_table(x, y, w, d) for x, y in z.polygon]
        lines.append({"points3": [{"x": px, "y": LINE_Y, "z": pz} for px, pz in pts],
                      "color": _colour(colour_of.get(z.player, "white")), "thickness": 0.1,
                      "rotation": {"x": 0.0, "y": 0.0, "z": 0.0}, "loop": True})
    return {"SaveName": scenario.name or source or "planner deployment", "GameMode": "", "Date": "", "Table": "",
            "Sky": "", "Note": scenario.description, "Rules": "", "XmlUI": "", "LuaScript": "",
            "LuaScriptState": "", "VectorLines": lines, "ObjectStates": objects, "TabStates": {},
            "VersionNumber": ""}


# --------------------------------------------------------------------------- import


@dataclass
class Imported:
    """The result of :func:`tts_to_scenario`."""

    scenario: Scenario
    warnings: list[str]
    unmatched: list[dict[str, str]]
    """Objects and lines not read into the scenario: ``{"object", "name", "reason"}``."""
    origin: dict[str, str]
    """Scenario field path (``armies[0].units[1].models[2]``) -> the save's object path."""
    moved: tuple[float, float] | None = None
    """``--map`` put the save's table on a battlefield of another size, centre on centre: every
    position was moved by this (dx, dy), inches (:func:`translate_scenario_data`); None: not moved."""


def _slug(text: str) -> str:
    t = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
    return t[:60].strip("-") or "unit"


def _unique(base: str, taken: set[str]) -> str:
    out, n = base, 2
    while out in taken:
        out, n = f"{base}-{n}", n + 1
    taken.add(out)
    return out


def _index(obj: TtsObject) -> int:
    """The model's place in its unit, from the planner's notes (after every noted model if none)."""
    i = (obj.notes or {}).get("index", MAX_OBJECTS)
    return i if isinstance(i, int) and not isinstance(i, bool) else MAX_OBJECTS


def _model_name(obj: TtsObject) -> str:
    return _WOUNDS_PREFIX.sub("", obj.nickname).strip()


@dataclass
class _UnitAcc:
    key: str
    name: str
    player: str | None
    record: dict[str, Any] | None
    models: list[tuple[TtsObject, dict[str, Any]]] = field(default_factory=list)


class _Importer:
    def __init__(self, save: TtsSave, ruleset: str, map_id: str | None) -> None:
        from planner.io.catalogue import load_catalogue
        from planner.rules.registry import find_ruleset

        self.save = save
        self.rs = find_ruleset(ruleset)
        self.catalogue = load_catalogue(self.rs.catalogue)
        self.map_id = map_id
        self.header = save.header
        self.warnings: list[str] = []
        self._cut: set[str] = set()
        self.unmatched: list[dict[str, str]] = []
        self.left_out: dict[str, int] = {}
        """Unit name -> models of it that were not read (a judge is told the count)."""
        self.origin: dict[str, str] = {}
        self.header_units = self._header_units()
        self.uuid_names: dict[str, str] = {}
        """Yellowscribe: unit uuid -> the unitName of the Lua script on its first model."""
        for o in save.objects:
            m = _LUA_UNIT_NAME.search(o.lua) if o.lua else None
            if m:
                for t in o.tags:
                    if t.lower().startswith("uuid:"):
                        self.uuid_names.setdefault(t.split(":", 1)[1], m.group(1))
        h: dict[str, Any] = self.header or {}
        # the save's own table: every position is read in its frame (the scenario note's records
        # are in it too); --map moves the whole scenario onto the map's battlefield at the end
        bf: dict[str, Any] = h["battlefield"] if isinstance(h.get("battlefield"), dict) else {}
        self.width = float(bf.get("width", self.rs.default_width_in))
        self.depth = float(bf.get("depth", self.rs.default_depth_in))
        self.map_spec = self._map_spec() if map_id is not None else None
        if self.header and self.header.get("ruleset") not in (None, self.rs.id):
            self.warnings.append(f"the save was written for ruleset {self.header.get('ruleset')!r}; read as "
                                 f"{self.rs.id!r} (--ruleset)")

    def _capped(self, text: str, what: str) -> str:
        """``text`` cut to :data:`MAX_NAME` characters, with a warning naming ``what`` if it was longer
        (once per name: every model of a unit carries it)."""
        if len(text) <= MAX_NAME:
            return text
        if text not in self._cut:
            self._cut.add(text)
            self.warnings.append(f"{what}: a name of {len(text)} characters, cut to its first {MAX_NAME}")
        return text[:MAX_NAME]

    def _position(self, obj: TtsObject) -> tuple[float, float]:
        """The battlefield point of an object on the table; an error if the save does not give it."""
        if obj.missing:
            raise _bad(self.save.file, f"{obj.path}.{obj.missing}", "an object on the table needs a position "
                       "(Transform with posX and posZ)")
        return from_table(obj.x, obj.z, self.width, self.depth)

    def _base_field(self, obj: TtsObject) -> dict[str, float] | None:
        """The object's ``Base:`` line or ``base:`` tag read strictly (None if it has none)."""
        f = obj.fields()
        return parse_base_value(f["base"], self.save.file, obj.where("base")) if "base" in f else None

    def _leave_out(self, unit: str) -> None:
        self.left_out[unit] = self.left_out.get(unit, 0) + 1

    def left_out_warning(self) -> str | None:
        """One line counting the models of units that were not read, by unit, or None."""
        if not self.left_out:
            return None
        n = sum(self.left_out.values())
        names = ", ".join(f"{u} ({k})" for u, k in list(self.left_out.items())[:6]) + \
            (" ..." if len(self.left_out) > 6 else "")
        return (f"{n} model{'' if n == 1 else 's'} of the save's units {'was' if n == 1 else 'were'} not read (listed "
                f"as not matched): {names}; the scenario, and a check of it, do not have them")

    def skip(self, obj: TtsObject | TtsLine, reason: str) -> None:
        name = obj.label if isinstance(obj, TtsObject) else f"{obj.colour} line"
        self.unmatched.append({"object": obj.path, "name": name, "reason": reason})

    # ---------------------------------------------------------------- pieces
    def run(self) -> Imported:
        terrain: list[dict[str, Any]] = []
        objectives: list[dict[str, Any]] = []
        units: dict[str, _UnitAcc] = {}
        for obj in self.save.objects:
            if obj.is_bag or obj.kind in _BAG_NAMES:
                continue  # a container: its contents are read
            kind = (obj.notes or {}).get("piece")
            if obj.bags and kind != "model" and (
                    kind == "terrain" or (kind is None and (self._is_objective(obj) or self._is_terrain(obj)))):
                self.skip(obj, "terrain or objective in a bag: off the table, left out (only models are read from "
                               "bags)")
            elif kind is None and self._is_objective(obj):
                objectives.append(self._objective(obj, len(objectives)))
            elif kind == "terrain" or (kind is None and self._is_terrain(obj)):
                t = self._terrain(obj, len(terrain))
                if t is not None:
                    self.origin[f"terrain[{len(terrain)}]"] = obj.path
                    terrain.append(t)
            else:
                self._model(obj, units)
        for what, items in (("terrain", terrain), ("objectives", objectives)):
            taken: set[str] = set()
            for i, it in enumerate(items):  # a piece copied in TTS, or two pieces of the same name
                given = str(it.get("id") or what)
                it["id"] = _unique(given, taken)
                if it["id"] != given:
                    self.warnings.append(f"{what}[{i}]: a second piece with id {given!r}: renamed {it['id']!r}")
        zones = self._zones(units)
        armies = self._armies(units, zones)
        for uid in self.header_units:
            if uid not in units:
                self.warnings.append(f"unit {uid!r} of the save's scenario note has no model in the save: left out")
        used_players = {a["player"] for a in armies}
        for z, path in list(zones):
            if z["player"] not in used_players:
                self.warnings.append(f"deployment zone {z['id']!r} ({path}) belongs to {z['player']!r}, who has no "
                                     "army in the save: left out")
                zones.remove((z, path))
        for zi, (_, path) in enumerate(zones):
            self.origin[f"deployment_zones[{zi}]"] = path
        h = self.header or {}
        data: dict[str, Any] = {"ruleset": self.rs.id}
        for k in ("name", "description", "goals", "points_limit", "rulings"):
            if k in h:
                data[k] = h[k]
        data.setdefault("name", f"Imported from {Path(self.save.file).name}")
        data["battlefield"] = {"width": self.width, "depth": self.depth}
        data["terrain"] = terrain
        data["deployment_zones"] = [z for z, _ in zones]
        data["objectives"] = objectives
        data["armies"] = armies
        moved = self._onto_map(data) if self.map_id is not None else None
        if (note := self.left_out_warning()) is not None:
            self.warnings.append(note)
        try:
            scenario = Scenario.model_validate(data)
        except ValidationError as exc:
            raise self._validation(exc, data) from None
        return Imported(scenario, self.warnings, self.unmatched, self.origin, moved)

    def _onto_map(self, data: dict[str, Any]) -> tuple[float, float] | None:
        """Put the scenario read in the save's frame (``data``, changed in place) on the map's
        60" x 44" battlefield, centre on centre as TTS shows them (the table centre is TTS's
        origin): every position moved by one :func:`translate_scenario_data`, with a warning, if
        the save's table is of another size; then the map's zones. The shift, or None."""
        from planner.rules.wh40k_maps import DEPTH_IN, WIDTH_IN

        dx, dy = (WIDTH_IN - self.width) / 2, (DEPTH_IN - self.depth) / 2
        moved = None
        if dx or dy:
            data.update(translate_scenario_data(data, dx, dy))
            moved = (dx, dy)
            self.warnings.append(f"the save's table is {self.width:g}\" x {self.depth:g}\"; --map {self.map_id} puts "
                                 f"it on the {WIDTH_IN:g}\" x {DEPTH_IN:g}\" battlefield centre on centre: every "
                                 f"position moved by ({dx:+g}\", {dy:+g}\")")
        data["battlefield"] = {"width": WIDTH_IN, "depth": DEPTH_IN}
        zones = self._map_zones([a["player"] for a in data["armies"]], data["armies"])
        data["deployment_zones"] = [z for z, _ in zones]
        for zi, (_, path) in enumerate(zones):
            self.origin[f"deployment_zones[{zi}]"] = path
        return moved

    def _validation(self, exc: ValidationError, data: dict) -> ScenarioError:
        from planner.io.files import validation_error

        err = validation_error(exc, data, self.save.file)
        return self.with_origin(err)

    def with_origin(self, err: ScenarioError) -> ScenarioError:
        """``err`` (about a field of the imported scenario) naming the save's object it came from."""
        best = max((k for k in self.origin if err.location.startswith(k)), key=len, default=None)
        where = f" (from the save's {self.origin[best]})" if best else ""
        return ScenarioError(f"{err.detail}{where}", file=self.save.file,
                             location=f"imported scenario {err.location}" if err.location else "", value=err.value)

    def _is_terrain(self, obj: TtsObject) -> bool:
        f = obj.fields()
        return obj.has_tag("terrain") or "terrain" in f or "footprint" in f or (
            "unit" not in f and "uuid" not in f and bool(_TERRAIN_WORDS.search(obj.nickname)))

    def _is_objective(self, obj: TtsObject) -> bool:
        return obj.has_tag("objective") or obj.nickname.lower().startswith("objective")

    def _terrain(self, obj: TtsObject, index: int) -> dict[str, Any] | None:
        n = obj.notes or {}
        f = obj.fields()
        self._position(obj)
        if isinstance(n.get("local"), dict):  # the planner's own piece: the whole feature in its frame
            try:
                return _map_terrain_points(n["local"], lambda q: [round(v, 9) for v in _local_to_world(
                    obj, float(q[0]), float(q[1]), self.width, self.depth)])
            except (TypeError, ValueError, IndexError, KeyError, OverflowError):
                raise _bad(self.save.file, f"{obj.path}.GMNotes.local",
                           "outlines must be [[x, y], ...] numbers") from None
        if isinstance(n.get("footprint_local"), list):
            local = n["footprint_local"]
            rec: dict[str, Any] = {k: v for k, v in n.items()
                                   if k not in (PLANNER_MARK, "piece", "index", "footprint_local")}
        else:
            rec = {"id": _slug(obj.nickname or f"terrain-{index + 1}"),
                   "name": self._capped(obj.nickname, f"terrain {obj.path}")}
            if "footprint" in f:
                sx, sz = self._footprint(obj, f["footprint"])
            elif obj.kind in _SCALE_PRIMITIVES:
                sx, sz = obj.scale_x, obj.scale_z
            else:
                self.skip(obj, "terrain without a footprint: give 'Footprint: 6x4' (inches) in its description")
                return None
            local = [[-sx / 2, -sz / 2], [sx / 2, -sz / 2], [sx / 2, sz / 2], [-sx / 2, sz / 2]]
            words = f"{obj.nickname} {f.get('terrain', '')}"
            kind = f.get("kind") or f.get("terrain") or ("solid" if _SOLID_WORDS.search(words) else
                                                           "open" if _OPEN_WORDS.search(words) else "area")
            rec["kind"] = kind.strip().lower()
            traits = f.get("traits")
            if traits is None:
                traits = "difficult" if rec["kind"] == "open" else "blocks_line_of_sight"
            rec["traits"] = [t.strip().lower().replace(" ", "_") for t in traits.split(",")
                             if t.strip() and t.strip().lower() != "none"]
        try:
            pts = [list(_local_to_world(obj, float(p[0]), float(p[1]), self.width, self.depth)) for p in local]
        except (TypeError, ValueError, IndexError, KeyError, OverflowError):
            raise _bad(self.save.file, f"{obj.path}.GMNotes", "footprint_local must be [[x, y], ...] numbers") from None
        rec["footprint"] = [[round(x, 9), round(y, 9)] for x, y in pts]
        return rec

    def _footprint(self, obj: TtsObject, text: str) -> tuple[float, float]:
        """A ``Footprint: 6x4`` value (inches, across x along z), each side more than 0 and at most
        :data:`MAX_FOOTPRINT_IN`; an error naming the object, the field and the value otherwise."""
        m = _RECT.fullmatch(text)
        sides = [float(g) for g in m.groups()] if m else []
        if not sides or not all(math.isfinite(v) and 0 < v <= MAX_FOOTPRINT_IN for v in sides):
            raise _bad(self.save.file, obj.where("footprint"), "a footprint is WIDTHxDEPTH in inches, each more than "
                       f"0 and at most {MAX_FOOTPRINT_IN:g}, e.g. '6x4'", text)
        return sides[0], sides[1]

    def _objective(self, obj: TtsObject, index: int) -> dict[str, Any]:
        f = obj.fields()
        oid = f.get("objective") or (_slug(obj.nickname[len("objective"):]) if obj.nickname else "")
        x, y = self._position(obj)
        out: dict[str, Any] = {"id": self._capped(oid, f"objective {obj.path}") or f"objective-{index + 1}",
                               "x": round(x, 9), "y": round(y, 9)}
        b = self._base_field(obj)
        if b is not None:
            if "diameter_mm" not in b:
                raise _bad(self.save.file, obj.where("base"), "an objective marker is round: give its diameter, "
                           "e.g. '40mm'", f["base"])
            out["diameter_mm"] = b["diameter_mm"]
        return out

    def _model(self, obj: TtsObject, units: dict[str, _UnitAcc]) -> None:
        n = obj.notes or {}
        f = obj.fields()
        header_units = self.header_units
        if obj.notes_problem:
            self.warnings.append(f"model {obj.path} {obj.label!r}: {obj.notes_problem}: read from its Description "
                                 "and tags instead")
        if n.get("piece") == "model":
            uid = n.get("unit")
            if not isinstance(uid, str) or uid not in header_units:
                self.skip(obj, f"the planner's notes name unit {uid!r}, which the save's scenario note does not have")
                self._leave_out(str(uid))
                return
            rec: dict[str, Any] = n["model"] if isinstance(n.get("model"), dict) else {}
            player, record = header_units[uid]
            self._contradictions(obj, rec, player)
            acc = units.setdefault(uid, _UnitAcc(uid, record.get("name", uid), player, record))
            acc.models.append((obj, dict(rec)))
            return
        key, name = self._unit_of(obj, f)
        if key is None:
            self.skip(obj, "not a model of a unit (no 'Unit:' line, unit tag or Yellowscribe uuid tag), terrain "
                           "or objective")
            return
        model = self._generic_model(obj, f)
        if model is None:
            self._leave_out(name or key)
            return
        player = f.get("player")
        known = self._known_unit(obj, f)
        if known is not None:  # a model added in TTS (a copy without the planner's notes) joins its unit
            hplayer, record = header_units[known]
            acc = units.setdefault(known, _UnitAcc(known, record.get("name", known), hplayer, record))
            acc.models.append((obj, model))
            self.warnings.append(f"model {obj.path} {obj.label!r} has no planner notes: joins unit {known!r}, which "
                                 "its unit tag or 'Unit:' line names")
            return
        acc = units.setdefault(key, _UnitAcc(key, name, player, None))
        if acc.player is None and player:
            acc.player = player
        acc.models.append((obj, model))

    def _header_units(self) -> dict[str, tuple[str, dict[str, Any]]]:
        out: dict[str, tuple[str, dict[str, Any]]] = {}
        for a in (self.header or {}).get("armies", []) or []:
            if not isinstance(a, dict):
                continue
            for u in a.get("units", []) or []:
                if isinstance(u, dict) and isinstance(u.get("id"), str):
                    out[u["id"]] = (str(a.get("player", "")), u)
        return out

    def _known_unit(self, obj: TtsObject, f: dict[str, str]) -> str | None:
        """The unit of the scenario note that a model without planner notes names: by id or by
        name, in its ``unit:`` tag or its ``Unit:`` line (its ``Player:`` must agree, if given);
        None if it names none, or a name several units share (with a warning)."""
        player = f.get("player")
        names = [t.split(":", 1)[1].strip() for t in obj.tags if t.lower().startswith("unit:")]
        names += [m.group(2) for line in obj.description.split("\n", 200)[:200]
                  if (m := _KEY_LINE.match(_BBCODE.sub("", line))) and m.group(1).strip().lower() == "unit"]
        for name in names:
            cands = [uid for uid, (p, rec) in self.header_units.items() if player in (None, p)
                     and (uid == name or rec.get("name") == name)]
            by_id = [uid for uid in cands if uid == name]
            if by_id or len(cands) == 1:
                return (by_id or cands)[0]
            if len(cands) > 1:
                self.warnings.append(f"model {obj.path} {obj.label!r} names unit {name!r}, the name of units "
                                     f"{', '.join(cands)} of the scenario note: give the unit's id")
        return None

    def _contradictions(self, obj: TtsObject, rec: dict[str, Any], player: str) -> None:
        """Warn where a Description edit contradicts the planner's notes (base, player): the notes win."""
        f = obj.fields()
        given = self._base_field(obj)
        if given is not None:
            noted = rec.get("base")
            if not isinstance(noted, dict):
                profile = rec.get("profile")
                entry = self.catalogue.get(profile) if isinstance(profile, str) else None
                noted = entry.base.model_dump(exclude={"shape"}) if entry is not None else None
            noted = {k: v for k, v in noted.items() if k != "shape"} if isinstance(noted, dict) else None
            if noted is not None and not _same_base(noted, given):
                self.warnings.append(f"model {obj.path} {obj.label!r}: {obj.where('base')} says {f['base']!r}, its "
                                     f"planner notes {noted}: the notes are used (clear the GM notes to use the "
                                     "Description)")
        if "player" in f and f["player"].strip() != player:
            self.warnings.append(f"model {obj.path} {obj.label!r}: {obj.where('player')} says {f['player']!r}, its "
                                 f"planner notes {player!r}: the notes are used (clear the GM notes to use the "
                                 "Description)")

    def _unit_of(self, obj: TtsObject, f: dict[str, str]) -> tuple[str | None, str]:
        if f.get("unit"):
            name = self._capped(f["unit"], f"unit of {obj.path}")
            return f"name:{f.get('player', '')}:{name}", name
        uuid = next((t.split(":", 1)[1] for t in obj.tags if t.lower().startswith("uuid:")), None)
        if uuid:
            return f"uuid:{uuid}", self._capped(self.uuid_names.get(uuid) or _model_name(obj) or uuid,
                                                f"unit of {obj.path}")
        return None, ""

    def _generic_model(self, obj: TtsObject, f: dict[str, str]) -> dict[str, Any] | None:
        model: dict[str, Any] = {}
        name = self._capped(_model_name(obj), f"model {obj.path}")
        if name:
            model["name"] = name
        base = self._base_field(obj)
        if base is None:
            base = parse_base_text(obj.description) or next(
                (b for t in obj.tags if (b := parse_base_text(t))), None)
        if base is None and obj.kind in _SCALE_PRIMITIVES:
            sx, sz = abs(obj.scale_x), abs(obj.scale_z)
            base = ({"diameter_mm": round(sx * MM_PER_INCH, 6)} if abs(sx - sz) < 1e-6 else
                    {"length_mm": round(sz * MM_PER_INCH, 6), "width_mm": round(sx * MM_PER_INCH, 6)})
        ref = f.get("profile") or name
        entry = self.catalogue.get(ref) if ref else None
        if entry is not None:
            model["profile"] = entry.id
        if base is not None:
            model["base"] = base
        if entry is None and base is None:
            self.skip(obj, f"no base size: give 'Base: 32mm' in its description, or a model name the {self.rs.catalogue} "
                           "catalogue knows")
            return None
        t = f.get("type")
        if t is not None:
            utype = next((u.value for u in UnitType if u.value.lower() == t.strip().lower()), None)
            if utype is None:
                raise _bad(self.save.file, obj.where("type"), f"not a unit type; known: "
                           f"{', '.join(u.value for u in UnitType)}", t)
            model["type"] = utype
        if entry is None:
            model.setdefault("type", "Vehicle" if "length_in" in base else "Infantry")  # type: ignore[operator]
            note = (f"model {obj.label!r}: no unit type and no catalogue entry: taken as {model['type']} (give "
                    "'Type: ...' in its description)")
            if not t and note not in self.warnings:  # once per model name, not once per model
                self.warnings.append(note)
        if f.get("id"):
            model["id"] = f["id"]
        return model

    # ---------------------------------------------------------------- zones and armies
    def _zones(self, units: dict[str, _UnitAcc]) -> list[tuple[dict[str, Any], str]]:
        zones: list[tuple[dict[str, Any], str]] = []
        if self.map_id is not None:
            for line in self.save.lines:
                self.skip(line, f"a line on the table; the zones come from --map {self.map_id}")
            return zones  # set in _armies, once the players are known
        claims = [dict(z) for z in (self.header or {}).get("zones", []) or [] if isinstance(z, dict)]
        taken: set[str] = set()
        for line in self.save.lines:
            if not line.closed:
                self.skip(line, "an open line (a deployment zone is a closed polygon)")
                continue
            claim = next((c for c in claims if c.get("colour") == line.colour and not c.get("_used")), None)
            if claim is not None:
                claim["_used"] = True
                zid, player = str(claim.get("id")), str(claim.get("player"))
            else:
                player = line.colour
                zid = _unique(f"zone-{line.colour}", taken)
            taken.add(zid)
            pts = [list(from_table(px, pz, self.width, self.depth)) for px, pz in line.points]
            zones.append(({"id": zid, "player": player, "polygon": [[round(x, 9), round(y, 9)] for x, y in pts]},
                          line.path))
        return zones

    def _armies(self, units: dict[str, _UnitAcc], zones: list[tuple[dict[str, Any], str]]) -> list[dict[str, Any]]:
        from shapely.geometry import Point, Polygon

        polys = [(z["player"], Polygon(z["polygon"])) for z, _ in zones]
        order: list[str] = [str(a.get("player")) for a in (self.header or {}).get("armies", []) or []
                            if isinstance(a, dict)]
        by_player: dict[str, list[_UnitAcc]] = {}
        for acc in units.values():
            if acc.player is None:
                on_table = [o for o, _ in acc.models if not o.bags]
                inside = {p for p, poly in polys
                          if on_table and all(poly.covers(Point(self._position(o)))
                                              for o in on_table)}
                if len(inside) == 1:
                    acc.player = inside.pop()
                else:
                    for o, _ in acc.models:
                        self.skip(o, f"unit {acc.name!r} names no player ('Player: NAME') and is not wholly in one "
                                     "deployment zone")
                        self._leave_out(acc.name)
                    continue
            by_player.setdefault(acc.player, []).append(acc)
            if acc.player not in order:
                order.append(acc.player)
        armies: list[dict[str, Any]] = []
        taken = set(self.header_units)
        header_armies = {str(a.get("player")): a for a in (self.header or {}).get("armies", []) or []
                         if isinstance(a, dict)}
        for player in order:
            accs = by_player.get(player, [])
            if not accs:
                continue
            army: dict[str, Any] = {"player": player}
            if header_armies.get(player, {}).get("name"):
                army["name"] = header_armies[player]["name"]
            if player in header_armies:  # the header's unit order
                rank = {str(u.get("id")): i for i, u in enumerate(header_armies[player].get("units", []) or [])
                        if isinstance(u, dict)}
                accs.sort(key=lambda a: rank.get(a.key, len(rank)))
            armies.append(army)
            army["units"] = []
            for acc in accs:
                ui, ai = len(army["units"]), len(armies) - 1
                army["units"].append(self._unit(acc, taken, f"armies[{ai}].units[{ui}]"))
        for player in (a["player"] for a in (self.header or {}).get("armies", []) or [] if isinstance(a, dict)):
            if player not in by_player:
                self.warnings.append(f"player {player!r} of the save's scenario note has no model in the save")
        return armies

    def _unit(self, acc: _UnitAcc, taken: set[str], upath: str) -> dict[str, Any]:
        on_table = [(o, m) for o, m in acc.models if not o.bags]
        in_bags = [(o, m) for o, m in acc.models if o.bags]
        unit: dict[str, Any]
        if acc.record is not None:
            unit = dict(acc.record)
            taken.add(unit["id"])
            models = sorted(acc.models, key=lambda om: _index(om[0]))  # a model added in TTS comes last
        else:
            unit = {"id": _unique(_slug(acc.name), taken), "name": acc.name}
            if self.header is not None:
                self.warnings.append(f"unit {unit['id']!r} ({acc.models[0][0].path} and {len(acc.models) - 1} more "
                                     "models) is not in the save's scenario note: made as a new unit")
            models = acc.models
            f = acc.models[0][0].fields()
            setup = f.get("setup", "").strip().lower()
            m = re.match(r"embarked\s+in\s+(\S+)", setup)
            if m:
                unit["setup"] = {"method": "embarked", "in": m.group(1)}
            elif setup in ("infiltrate", "scout", "reserves", "deployment_zone"):
                unit["setup"] = setup
            elif not on_table:
                unit["setup"] = "reserves"
            rules, other = [], []
            for r in (x.strip() for x in f.get("rules", "").split(",") if x.strip()):
                try:
                    parse_rule(r)
                    rules.append(r)
                except ValueError:
                    other.append(r)
            if rules:
                unit["rules"] = rules
            if other:
                unit["other_rules"] = other
            if on_table and in_bags:
                for o, _ in in_bags:
                    self.skip(o, f"in a bag while other models of unit {acc.name!r} are on the table: left out")
                models = on_table
        out_models: list[dict[str, Any]] = []
        for o, rec in models:
            mdata = dict(rec)
            if not o.bags:
                x, y = self._position(o)
                mdata.update({"x": round(x, 9), "y": round(y, 9), "facing": round(rot_y_to_facing(o.rot_y), 9) % 360.0})
            self.origin[f"{upath}.models[{len(out_models)}]"] = o.path
            out_models.append(mdata)
        self.origin.setdefault(upath, models[0][0].path)
        unit["models"] = out_models
        return unit

    def _map_spec(self) -> tuple[str, float]:
        """``--map``: the map's name in :data:`planner.rules.wh40k_maps.MAPS` and its Dawn of War depth.

        Raises
        ------
        ScenarioError
            Naming ``--map`` and its value: a ruleset whose battlefield the maps are not for
            (:func:`planner.rules.registry.require_standard_layouts`), or an unknown map.
        """
        from planner.rules.registry import require_standard_layouts
        from planner.rules.wh40k_maps import MAPS

        require_standard_layouts(self.rs, "--map", self.map_id)
        name, depth = self.map_id or "", 12.0
        m = re.fullmatch(r"dawn-of-war-(\d+)in", name)
        if m:
            name, depth = "dawn-of-war", float(m.group(1))
        if name not in MAPS:
            raise ScenarioError(f"unknown deployment map; known: {', '.join(MAPS)}, dawn-of-war-10in, "
                                "dawn-of-war-12in", location="--map", value=self.map_id)
        return name, depth

    def _map_zones(self, players: list[str], armies: list[dict[str, Any]] | None = None
                   ) -> list[tuple[dict[str, Any], str]]:
        """The map's two zones for the first two players: each player gets the zone its models
        stand nearer (the sum of their centres' distances to each zone, the smaller assignment;
        the save's army order on a tie or without positions), and a warning says who got which and
        why: by where the models stand (some model of each player stands in its zone), by which
        zone they stand nearer (a player has no model in its zone: a guess, said so), or by the
        save's army order (the distances tie)."""
        from shapely.geometry import Point

        from planner.rules.wh40k_maps import polygon_points, zones

        assert self.map_spec is not None
        name, depth = self.map_spec
        if len(players) < 2:
            raise ScenarioError("a deployment map needs two players with models in the save", location="--map",
                                value=self.map_id)
        a, b = zones(name, dawn_of_war_depth_in=depth)
        pair = players[:2]

        def points(player: str) -> list[Any]:
            return [Point(m["x"], m["y"]) for army in armies or [] if army.get("player") == player
                    for u in army.get("units", []) for m in u.get("models", [])
                    if isinstance(m.get("x"), int | float) and isinstance(m.get("y"), int | float)]

        def cost(player: str, poly: Any) -> float:
            return sum(poly.distance(q) for q in points(player))

        kept, swapped = cost(pair[0], a) + cost(pair[1], b), cost(pair[0], b) + cost(pair[1], a)
        if armies is not None and swapped < kept - 1e-9:
            pair = [pair[1], pair[0]]  # the armies stand the other way round
        if armies is not None:
            if abs(swapped - kept) <= 1e-9:  # no position tells the two assignments apart
                why = "in the save's army order (where the models stand does not tell the two zones apart)"
            elif all(any(poly.covers(q) for q in points(p)) for p, poly in zip(pair, (a, b), strict=True)):
                why = "by where their models stand"
            else:  # nearer, but some player has no model in its zone: a guess worth a look
                empty = [p for p, poly in zip(pair, (a, b), strict=True) if not any(poly.covers(q) for q in points(p))]
                shared = [f"{name}-{p}" for p, poly in zip(pair, (a, b), strict=True)
                          if all(any(poly.covers(q) for q in points(w)) for w in pair)]
                why = ("by which zone their models stand nearer (" + (
                    f"both armies have models in zone {' and '.join(shared)}" if shared else
                    f"no model of {' or '.join(empty)} stands in its zone") + ": check the assignment)")
            self.warnings.append(f"--map {self.map_id}: zone {name}-{pair[0]} ({_side(a)}) to {pair[0]}, zone "
                                 f"{name}-{pair[1]} ({_side(b)}) to {pair[1]}, {why}")
        return [({"id": f"{name}-{p}", "player": p, "polygon": polygon_points(poly)}, f"--map {self.map_id}")
                for p, poly in zip(pair, (a, b), strict=True)]


def _side(poly: Any) -> str:
    """Where a zone lies on the battlefield, in words: its bounds, 'x 0-60", y 0-10"'."""
    x0, y0, x1, y1 = poly.bounds
    return f"x {x0:g}-{x1:g}\", y {y0:g}-{y1:g}\""


def _tags_of(annotation: Any) -> set[str]:
    """The discriminator fields (e.g. a goal's ``kind``) of the tagged unions in a field's type."""
    from pydantic.fields import FieldInfo

    out: set[str] = set()
    for a in typing.get_args(annotation):
        if isinstance(a, FieldInfo) and isinstance(a.discriminator, str):
            out.add(a.discriminator)
        elif not isinstance(a, FieldInfo | str | int | float):
            out |= _tags_of(a)
    return out


def _restore_tags(model: BaseModel, data: dict[str, Any]) -> None:
    """Put back into ``data`` (``model`` dumped with ``exclude_defaults``) every discriminator
    the dump left out for being its field's default: without it, the union cannot be read back."""
    for name, info in type(model).model_fields.items():
        key = info.alias or name
        if key not in data:
            continue
        tags = _tags_of(info.annotation) | {m.discriminator for m in info.metadata
                                            if isinstance(getattr(m, "discriminator", None), str)}
        value, sub = getattr(model, name), data[key]
        pairs = (list(zip(value, sub, strict=True)) if isinstance(value, list | tuple) and isinstance(sub, list)
                 else list(zip(value.values(), sub.values(), strict=True)) if isinstance(value, dict)
                 and isinstance(sub, dict) else [(value, sub)])
        for v, d in pairs:
            if isinstance(v, BaseModel) and isinstance(d, dict):
                for t in tags:
                    d.setdefault(t, getattr(v, t))
                _restore_tags(v, d)


def compact_scenario_data(scenario: Scenario) -> dict[str, Any]:
    """The scenario as plain data with only what differs from the schema's defaults (a scenario
    as a person would write it), every tagged union's tag kept (a goal's ``kind``): what
    ``planner import-tts`` writes; it validates back to ``scenario``. The ``battlefield`` is kept
    whole (width and depth, even one equal to the schema's default) whenever the scenario gives
    one: a missing dimension would be read as the ruleset's default table's, and a 48" x 48" table
    written as ``{width: 48}`` would be checked with a default-table warning."""
    data = scenario.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True)
    _restore_tags(scenario, data)
    if "battlefield" in scenario.model_fields_set:
        whole = scenario.battlefield.model_dump(mode="json")
        order = [f.alias or name for name, f in type(scenario).model_fields.items()]  # the dump's key order
        data = {k: whole if k == "battlefield" else data[k] for k in order if k in data or k == "battlefield"}
    return data


def tts_to_scenario(save: TtsSave, ruleset: str, map_id: str | None = None) -> Imported:
    """The scenario a TTS save shows (see the module docstring for what is read and how).

    Parameters
    ----------
    save : TtsSave
        As :func:`read_tts` returns it.
    ruleset : str
        Ruleset id (its catalogue gives bases by model name; its battlefield size is the default).
    map_id : str, optional
        A 40k deployment map (:data:`planner.rules.wh40k_maps.MAPS`, or ``dawn-of-war-10in``):
        its zones replace the lines on the table (the first two players get zones a, b) and its
        60" x 44" battlefield the save's table. The save is read on its own table (its scenario
        note's, else the ruleset's default), then the whole scenario is moved onto the map's,
        centre on centre as TTS shows them, by one :func:`translate_scenario_data` (models,
        Scout first positions, terrain, objectives, goal points), with a warning when the sizes
        differ (:attr:`Imported.moved`).

    Raises
    ------
    ScenarioError
        Unknown ruleset or map; ``--map`` on a ruleset whose battlefield the maps are not for
        (hh2, wh40k5, wh40k7: :func:`planner.rules.registry.require_standard_layouts`); the
        imported scenario does not validate (the message names the save's object it came from).
    """
    return _Importer(save, ruleset, map_id).run()


def check_imported(imp: Imported, file: str) -> None:
    """Resolve the imported scenario as ``planner check`` would load it (catalogue profiles,
    references, positions on the table); an error names the save's object. When ``--map`` moved
    the scenario onto a battlefield of another size (:attr:`Imported.moved`), a warning in
    ``imp.warnings`` counts the models on the table now not wholly on it (the checker's
    ``battlefield`` rule: :func:`planner.legality.checks.placement.wholly_within`).

    Raises
    ------
    ScenarioError
        As :func:`planner.world.resolve`, with the save's object path.
    """
    from planner.world import resolve

    try:
        world = resolve(imp.scenario, None)
    except ScenarioError as exc:
        best = max((k for k in imp.origin if exc.location.startswith(k)), key=len, default=None)
        where = f" (from the save's {imp.origin[best]})" if best else ""
        raise ScenarioError(f"{exc.detail}{where}", file=file, location=f"imported scenario {exc.location}"
                            if exc.location else "", value=exc.value) from None
    if imp.moved is None:
        return
    from planner.geometry.shapes import battlefield_box, footprint
    from planner.legality.checks.placement import wholly_within

    placed = [(u, m, footprint(m.base, m.x, m.y, m.facing)) for u in world.units.values() if u.on_battlefield
              for m in u.models if m.x is not None and m.y is not None]
    if not placed:
        return
    bf = world.scenario.battlefield
    worst = wholly_within([fp for _, _, fp in placed], battlefield_box(bf.width, bf.depth))
    if worst.outside:
        u, m, _ = placed[worst.outside[0][0]]
        n = len(worst.outside)
        imp.warnings.append(f"{n} of {len(placed)} models on the table {'is' if n == 1 else 'are'} not wholly on "
                            f"the {bf.width:g}\" x {bf.depth:g}\" battlefield of --map after the move (the most "
                            f"over the edge: unit {u.id} model {m.id}, {-worst.outside[0][1]:.3f}\"); the check "
                            "will find them off the table")


def import_tts(path: str | Path, ruleset: str, map_id: str | None = None) -> Imported:
    """Read a TTS save file into a scenario that loads as ``planner check`` loads it:
    :func:`read_tts`, :func:`tts_to_scenario`, :func:`check_imported`.

    Raises
    ------
    ScenarioError
        As those three (exit 2 on the command line).
    """
    imp = tts_to_scenario(read_tts(path), ruleset, map_id)
    check_imported(imp, str(path))
    return imp
