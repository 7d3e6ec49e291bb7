"""Importing army lists: BattleScribe rosters (``.ros`` XML, ``.rosz`` zip) and New Recruit exports.

:func:`read_roster` reads a roster file into plain :class:`Roster` records (forces, selections with
their profiles, rules and categories); :func:`roster_to_army` turns one into an :class:`Army` of a
scenario. New Recruit writes the same XML (its root names it in ``generatedBy``), so both import
the same way.

Rosters are untrusted input. XML is parsed with :mod:`defusedxml` (DTDs, and so entity expansion
and external references, are refused); an archive may hold at most :data:`MAX_ZIP_MEMBERS` members,
exactly one of them a ``.ros`` file, with no absolute or ``..`` paths, at most
:data:`MAX_UNCOMPRESSED_BYTES` once decompressed (checked while reading, not only from the header);
selections may nest :data:`MAX_DEPTH` deep and a unit holds at most :data:`MAX_MODELS_PER_UNIT`
models. Every problem is a :class:`planner.errors.ScenarioError` naming the file, where in the
roster (``force[0]/selection 'Tactical Squad, Legion'``) and the value.

How a roster becomes an army:

- one unit per selection of type ``unit`` (or a top-level ``model`` selection: a unit on its own).
  A unit selection nested in another (a Techmarine in a Techmarine Covenant) is a unit of its
  own; the container becomes a unit only if it holds models besides them;
- its models: selections of type ``model``, upgrades that carry a unit/vehicle profile (a Predator
  in a squadron, Servo-automata), the unit selection itself when it carries such a profile (a
  Praetor); a unit with none of these is one model. ``number`` gives the count;
- unit type and sub-types from the model's "Unit Type" characteristic (or "Type" on vehicle
  profiles), spelled as players and data authors spell them ("Infanty (Character)",
  "Jump Infantry", "Bike", "Vehicle (Tank, Transport)"), else from categories ("Infantry",
  "Tank (Unit)"), else from the unit's; if the ``models/`` catalogue disagrees on the type, the
  catalogue (written for the ruleset) wins and a warning says so;
- the deployment rules (Infiltrate, Scout, Deep Strike, Outflank, Independent Character, Bulky)
  found on the unit, its models and their upgrades, or as categories; "Very Bulky" is Bulky (3),
  "Extremely Bulky" Bulky (5). Other rules on the unit selection itself go to ``other_rules``;
- a Dedicated Transport nested in a unit (category "Dedicated Transport", or a vehicle with a
  Transport profile) becomes its own unit with the rules Dedicated Transport and Transport and the
  capacity of its Transport profile; with ``embark`` its (Infantry) unit is set up embarked in it;
- bases from the catalogue by model name (a character in Terminator armour is looked up as
  "<name> in Terminator Armour" first), else from the catalogue's base rules by unit type,
  sub-types, names, wargear and army list (written out on the model, with a warning naming the
  rule); models neither covers are reported together, once each with their place
  (:class:`UnknownModelsError`), or, with ``default_base_mm``, get a round base of that size and are
  marked in ``other_rules``;
- characteristics and weapons from the profiles (:mod:`planner.io.roster_profiles`), with the
  roster's counts (:meth:`_ArmyBuilder.unit_wargear`, :func:`_shares`): a model selection's wargear
  shared among its models (two sponson lascannons on one Land Raider: ``count: 2`` on it), the
  unit's on the models without their own weapon of that name (number 1: the squad's wargear, every
  one of them; fewer than them: ``count`` on the unit, "Meltagun" 2 of 10);
- a roster not written with the ruleset's edition data (:func:`edition_problem`, e.g. HH1 data for
  ``hh2``) gets a warning, or with ``strict`` is an error.
"""

from __future__ import annotations

import difflib
import io
import lzma
import math
import re
import stat
import unicodedata
import zipfile
import zlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from planner.errors import ScenarioError
from planner.io.files import read_input
from planner.schema import (
    MAX_MODELS,
    MAX_MODELS_PER_UNIT,
    Army,
    Model,
    OvalBase,
    RoundBase,
    Setup,
    SetupMethod,
    SpecialRule,
    SubType,
    Unit,
    UnitType,
    WeaponProfile,
    parse_rule,
)

MAX_FILE_BYTES = 50 * 1024 * 1024
"""Largest roster file read from disk (``.ros`` or ``.rosz``)."""
MAX_ZIP_MEMBERS = 16
"""Most members (files and folders) a ``.rosz`` archive may list."""
MAX_UNCOMPRESSED_BYTES = 50 * 1024 * 1024
"""Largest ``.ros`` inside a ``.rosz`` once decompressed."""
MAX_DEPTH = 64
"""Deepest nesting of selections."""

def game_systems(ruleset: str) -> tuple[str, ...]:
    """Words of a roster's ``gameSystemName`` that ruleset ``ruleset`` accepts (case-insensitive;
    the ruleset's ``ROSTER_GAME_SYSTEMS``; none for an unknown ruleset)."""
    from planner.errors import UnknownRulesetError
    from planner.rules.registry import find_ruleset

    try:
        return find_ruleset(ruleset).ROSTER_GAME_SYSTEMS
    except UnknownRulesetError:
        return ()

MODEL_PROFILE_TYPES = {"unit", "model", "vehicle", "flyer", "walker", "primarch", "knight", "titan",
                       "knights and titans", "fortification"}
"""Profile ``typeName`` values that describe a miniature (not a weapon or wargear item)."""


# --------------------------------------------------------------------------- roster records


@dataclass
class Profile:
    """A profile of a selection: its ``typeName`` (Unit, Vehicle, Transport, Weapon...) and characteristics."""

    name: str
    type_name: str
    characteristics: dict[str, str] = field(default_factory=dict)

    @property
    def is_model(self) -> bool:
        return self.type_name.strip().lower() in MODEL_PROFILE_TYPES

    @property
    def unit_type_text(self) -> str | None:
        for key in ("Unit Type", "Type", "Unit type", "Keywords"):
            if self.characteristics.get(key, "").strip():
                return self.characteristics[key].strip()
        return None


@dataclass
class Selection:
    """One selection of a roster (``type`` is unit, model or upgrade), with what is nested in it."""

    name: str
    type: str
    number: int
    path: str
    custom_name: str = ""
    categories: list[str] = field(default_factory=list)
    rules: list[str] = field(default_factory=list)
    profiles: list[Profile] = field(default_factory=list)
    children: list[Selection] = field(default_factory=list)

    @property
    def model_profiles(self) -> list[Profile]:
        return [p for p in self.profiles if p.is_model]

    @property
    def is_model_like(self) -> bool:
        """Stands for miniatures itself: a ``model`` selection, or one carrying a unit/vehicle profile."""
        return self.type == "model" or bool(self.model_profiles)


@dataclass
class Force:
    name: str
    catalogue: str
    path: str
    custom_name: str = ""
    selections: list[Selection] = field(default_factory=list)
    forces: list[Force] = field(default_factory=list)


@dataclass
class Roster:
    """A roster file, read: its game system, generator (BattleScribe or New Recruit) and forces."""

    file: str
    name: str
    game_system: str
    generator: str
    forces: list[Force]
    points: float | None = None
    game_system_id: str = ""
    game_system_revision: str = ""

    def all_forces(self) -> list[Force]:
        out: list[Force] = []

        def walk(fs: list[Force]) -> None:
            for f in fs:
                out.append(f)
                walk(f.forces)

        walk(self.forces)
        return out


# --------------------------------------------------------------------------- reading


def _local(tag: object) -> str:
    return str(tag).rsplit("}", 1)[-1]


def _kids(el: Any, name: str) -> list[Any]:
    return [c for c in el if _local(c.tag) == name]


def _grand(el: Any, group: str, item: str) -> list[Any]:
    out: list[Any] = []
    for g in _kids(el, group):
        out.extend(_kids(g, item))
    return out


def _visible(el: Any) -> bool:
    return str(el.get("hidden", "false")).strip().lower() != "true"


def _bad_member_name(name: str) -> str | None:
    if "\x00" in name:
        return "a NUL character in the name"
    if "\\" in name:
        return "a backslash in the path"
    if name.startswith("/") or re.match(r"^[A-Za-z]:", name):
        return "an absolute path"
    if ".." in name.split("/"):
        return "a '..' path component"
    return None


def _read_zip(path: Path | io.BytesIO, name: str) -> tuple[bytes, str]:
    """The bytes of the single ``.ros`` member of a ``.rosz`` archive, and the member's name."""
    try:
        with zipfile.ZipFile(path) as z:
            infos = z.infolist()
            if len(infos) > MAX_ZIP_MEMBERS:
                raise ScenarioError(f"archive lists {len(infos)} members; at most {MAX_ZIP_MEMBERS} are allowed",
                                    file=name)
            for info in infos:
                why = _bad_member_name(info.filename)
                if why:
                    raise ScenarioError(f"archive member with {why} refused", file=name, value=info.filename)
                if stat.S_ISLNK(info.external_attr >> 16):
                    raise ScenarioError("archive member that is a symbolic link refused", file=name,
                                        value=info.filename)
            files = [i for i in infos if not i.is_dir()]
            if len(files) != 1 or not files[0].filename.lower().endswith(".ros"):
                shown = [i.filename for i in files][:5]
                raise ScenarioError(f"a .rosz archive must hold exactly one .ros file; found {len(files)} "
                                    f"file(s): {shown}", file=name)
            info = files[0]
            if info.flag_bits & 0x1:
                raise ScenarioError("encrypted archive member refused", file=name, value=info.filename)
            if info.file_size > MAX_UNCOMPRESSED_BYTES:
                raise ScenarioError(f"archive member is {info.file_size} bytes uncompressed; the limit is "
                                    f"{MAX_UNCOMPRESSED_BYTES}", file=name, value=info.filename)
            with z.open(info) as fh:
                data = fh.read(MAX_UNCOMPRESSED_BYTES + 1)
            if len(data) > MAX_UNCOMPRESSED_BYTES:
                raise ScenarioError(f"archive member decompresses to more than {MAX_UNCOMPRESSED_BYTES} bytes "
                                    "(its header understates its size)", file=name, value=info.filename)
            return data, info.filename
    except ScenarioError:
        raise
    except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, NotImplementedError, RuntimeError,
            ValueError) as exc:
        raise ScenarioError(f"not a valid .rosz archive (corrupt or truncated zip: {exc})", file=name) from None
    except OSError as exc:
        raise ScenarioError(f"cannot read the archive: {exc.strerror or exc}", file=name) from None


def _text_list_hint(data: bytes) -> str:
    """A hint for a file that looks like a text army list (UTF-8 text not opening with ``<``):
    those are read with ``--ruleset wh40k10`` or ``wh40k11`` (:mod:`planner.io.lists40k`); else ""."""
    import codecs

    try:  # not final: a character cut at 4 KiB is not an error
        head = codecs.getincrementaldecoder("utf-8-sig")().decode(data[:4096], final=False).lstrip()
    except UnicodeDecodeError:
        return ""
    if not head or head.startswith("<") or "\x00" in head:
        return ""
    return "; this looks like a text army list: those are read with --ruleset wh40k10 or wh40k11"


def _parse_xml(data: bytes, name: str, member: str | None) -> Any:
    from xml.etree.ElementTree import ParseError

    from defusedxml import DefusedXmlException
    from defusedxml import ElementTree as SafeET

    where = member or ""
    try:
        return SafeET.fromstring(data, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise ScenarioError(f"refusing unsafe XML: {type(exc).__name__} (a DTD, entity declarations or external "
                            "references; rosters never need them, and entity expansion can exhaust memory)",
                            file=name, location=where) from None
    except ParseError as exc:
        line, col = getattr(exc, "position", (None, None))
        at = f" at line {line} column {col}" if line is not None else ""
        raise ScenarioError(f"not a well-formed XML roster{at}{_text_list_hint(data)}", file=name,
                            location=where) from None
    except (RecursionError, MemoryError):
        raise ScenarioError("XML document nests too deeply or is too large", file=name, location=where) from None
    except (LookupError, ValueError) as exc:
        # the XML declaration names an encoding Python does not know, or one expat cannot read
        # (expat: "multi-byte encodings are not supported")
        raise ScenarioError(f"not a readable XML roster: {exc}", file=name, location=where) from None


def _number(el: Any, loc: str, name: str) -> int:
    raw = el.get("number", "1")
    text = str(raw).strip()
    if len(text) > 20:
        raise ScenarioError(f"selection 'number' is longer than 20 characters (at most {MAX_MODELS_PER_UNIT})",
                            file=name, location=loc, value=text[:20] + "...")
    try:
        value = float(text)
    except ValueError:
        raise ScenarioError("selection 'number' is not a number", file=name, location=loc, value=raw) from None
    if not math.isfinite(value) or value < 0 or value != int(value):
        raise ScenarioError("selection 'number' must be a whole number >= 0", file=name, location=loc, value=raw)
    if value > MAX_MODELS_PER_UNIT:
        raise ScenarioError(f"selection 'number' is larger than {MAX_MODELS_PER_UNIT}", file=name, location=loc,
                            value=raw)
    return int(value)


def _selection(el: Any, parent: str, name: str, depth: int) -> Selection:
    sname = (el.get("name") or "").strip()
    loc = f"{parent}/selection {sname!r}"
    if depth > MAX_DEPTH:
        raise ScenarioError(f"selections nest more than {MAX_DEPTH} deep", file=name, location=loc)
    profiles = []
    for p in _grand(el, "profiles", "profile"):
        if not _visible(p):
            continue
        chars = {}
        for c in _grand(p, "characteristics", "characteristic"):
            chars[(c.get("name") or "").strip()] = (c.text or "").strip()
        profiles.append(Profile((p.get("name") or "").strip(), (p.get("typeName") or "").strip(), chars))
    return Selection(
        name=sname,
        type=(el.get("type") or "").strip().lower(),
        number=_number(el, loc, name),
        path=loc,
        custom_name=(el.get("customName") or "").strip(),
        categories=[(c.get("name") or "").strip() for c in _grand(el, "categories", "category")],
        rules=[(r.get("name") or "").strip() for r in _grand(el, "rules", "rule") if _visible(r)],
        profiles=profiles,
        children=[_selection(c, loc, name, depth + 1) for c in _grand(el, "selections", "selection")],
    )


def _force(el: Any, loc: str, name: str, depth: int) -> Force:
    if depth > MAX_DEPTH:
        raise ScenarioError(f"forces nest more than {MAX_DEPTH} deep", file=name, location=loc)
    return Force(
        name=(el.get("name") or "").strip(),
        catalogue=(el.get("catalogueName") or "").strip(),
        custom_name=(el.get("customName") or "").strip(),
        path=loc,
        selections=[_selection(s, loc, name, 1) for s in _grand(el, "selections", "selection")],
        forces=[_force(f, f"{loc}/force[{i}]", name, depth + 1) for i, f in enumerate(_grand(el, "forces", "force"))],
    )


def game_system_matches(ruleset: str, system: str) -> bool:
    """Whether a roster's ``gameSystemName`` belongs to ruleset ``ruleset``."""
    words = game_systems(ruleset)
    s = " ".join(system.lower().split())
    return any(w in s for w in words)


def edition_problem(roster: Roster, ruleset: str) -> str | None:
    """Why the roster's data is not of the edition ruleset ``ruleset`` plays (its ``gameSystemId``
    and name are not the ruleset's ``ROSTER_DATA_IDS`` / ``ROSTER_DATA_NAMES``), or None."""
    from planner.rules.registry import find_ruleset

    rs = find_ruleset(ruleset)
    if not rs.ROSTER_DATA_IDS and not rs.ROSTER_DATA_NAMES:
        return None
    if roster.game_system_id in rs.ROSTER_DATA_IDS:
        return None
    if " ".join(roster.game_system.lower().split()) in rs.ROSTER_DATA_NAMES:
        return None
    rev = f" revision {roster.game_system_revision}" if roster.game_system_revision else ""
    names = " or ".join(repr(n) for n in rs.ROSTER_DATA_NAMES) or "(any)"
    return (f"the roster was written with the game system {roster.game_system or '(none)'!r}{rev} (id "
            f"{roster.game_system_id or '(none)'}), not with the {rs.name} data (game system {names}); its unit "
            f"types, rules and model names are read as if they were {rs.name}'s: check the imported army")


def read_roster(path: str | Path, ruleset: str = "hh2") -> Roster:
    """Read a BattleScribe or New Recruit roster (``.ros`` XML or ``.rosz`` zip).

    Parameters
    ----------
    path : str or Path
        The roster file. A zip archive is recognised by its content or its ``.rosz`` suffix.
    ruleset : str
        The ruleset whose game system the roster must be for (``'hh2'``: game system names
        containing "Horus Heresy" or "Warhammer 30,000").

    Raises
    ------
    ScenarioError
        Missing or unreadable file, corrupt or unsafe archive, XML that is not well formed or
        declares entities, a file that is not a roster, a roster of another game system, an
        empty roster, a bad ``number``.
    """
    p = Path(path)
    name = str(path)
    data = read_input(p, "roster", MAX_FILE_BYTES)  # bounded; a FIFO or a device must end in time
    member = None
    if data.startswith(b"PK") or p.suffix.lower() == ".rosz":
        data, member = _read_zip(io.BytesIO(data), name)
    if not data.strip():
        raise ScenarioError("empty file: no roster in it", file=name, location=member or "")
    root = _parse_xml(data, name, member)
    if _local(root.tag) != "roster":
        raise ScenarioError("not a BattleScribe roster: the root element is not <roster>", file=name,
                            location=member or "", value=_local(root.tag))
    system = (root.get("gameSystemName") or "").strip()
    if not game_system_matches(ruleset, system):
        accepted = " or ".join(repr(w) for w in game_systems(ruleset)) or "none known"
        raise ScenarioError(f"roster is for another game system than ruleset {ruleset!r} (accepted: names "
                            f"containing {accepted})", file=name, location="roster.gameSystemName",
                            value=system or "(none)")
    generated_by = (root.get("generatedBy") or "").strip()
    if generated_by:
        generator = f"New Recruit ({generated_by})" if "newrecruit" in generated_by.lower().replace(" ", "") \
            else generated_by
    else:
        generator = f"BattleScribe {root.get('battleScribeVersion', '')}".strip()
    points = None
    for c in _grand(root, "costs", "cost"):
        if (c.get("name") or "").strip().lower() in ("pts", "points"):
            try:
                points = float(c.get("value", "")[:40])
            except ValueError:
                points = None
            if points is not None and not math.isfinite(points):
                points = None
    forces = [_force(f, f"force[{i}]", name, 1) for i, f in enumerate(_grand(root, "forces", "force"))]
    roster = Roster(name, (root.get("name") or "").strip(), system, generator, forces, points,
                    (root.get("gameSystemId") or "").strip()[:80], (root.get("gameSystemRevision") or "").strip()[:20])
    if not any(s.type in ("unit", "model") for f in roster.all_forces() for s in f.selections):
        what = "no forces" if not forces else "no unit or model selections in any force"
        raise ScenarioError(f"empty roster: {what}", file=name)
    return roster


# --------------------------------------------------------------------------- unit types


def _norm_words(text: str) -> str:
    return " ".join(re.sub(r"[-_]", " ", text.lower()).split())


# word or phrase -> (unit type, sub-type); either may be None
_TYPE_VOCAB: dict[str, tuple[UnitType | None, SubType | None]] = {
    "infantry": (UnitType.INFANTRY, None),
    "cavalry": (UnitType.CAVALRY, None),
    "bike": (UnitType.CAVALRY, SubType.BIKE),
    "bikes": (UnitType.CAVALRY, SubType.BIKE),
    "jetbike": (UnitType.CAVALRY, SubType.JETBIKE),
    "jetbikes": (UnitType.CAVALRY, SubType.JETBIKE),
    "jet bike": (UnitType.CAVALRY, SubType.JETBIKE),
    "dreadnought": (UnitType.DREADNOUGHT, None),
    "automata": (UnitType.AUTOMATA, None),
    "vehicle": (UnitType.VEHICLE, None),
    "primarch": (UnitType.PRIMARCH, None),
    "knight": (UnitType.KNIGHT, None),
    "titan": (UnitType.TITAN, None),
    "monster": (UnitType.MONSTROUS, None),
    "monstrous creature": (UnitType.MONSTROUS, None),
    "fortification": (UnitType.FORTIFICATION, None),
    # HH2 (2022) data types the UnitType enum has no member for (rulings): an Armiger is a small
    # Knight; a Daemon deploys as Infantry (its Monstrous/Character sub-types are kept); Shackled
    # Artificia are battle-automata
    "armiger": (UnitType.KNIGHT, None),
    "daemon": (UnitType.INFANTRY, None),
    "artificia": (UnitType.AUTOMATA, None),  # "Shackled Artificia" (Excindio Battle-automata)
    "mounted": (UnitType.CAVALRY, None),
    "jump": (None, SubType.JUMP),
    "jump infantry": (UnitType.INFANTRY, SubType.JUMP),
    "jump units": (None, SubType.JUMP),
    "jump unit": (None, SubType.JUMP),
    "jet pack": (None, SubType.JUMP),
    "character": (None, SubType.CHARACTER),
    "artillery": (None, SubType.ARTILLERY),
    "skirmish": (None, SubType.SKIRMISH),
    "close order": (None, SubType.CLOSE_ORDER),
    "unique": (None, SubType.UNIQUE),
    "heavy": (None, SubType.HEAVY),
    "light": (None, SubType.LIGHT),
    "line": (None, SubType.LINE),
    "antigrav": (None, SubType.ANTIGRAV),
    "skimmer": (None, SubType.SKIMMER),
    "fast": (None, SubType.FAST),
    "tank": (None, SubType.TANK),
    "transport": (None, SubType.TRANSPORT),
    "walker": (None, SubType.WALKER),
    "flyer": (None, SubType.FLYER),
    "building": (None, SubType.BUILDING),
    "lumbering": (None, SubType.LUMBERING),
    "stubborn": (None, SubType.STUBBORN),
    "command": (None, SubType.COMMAND),
}
# both a unit type and a sub-type: the unit type if none is named yet
_TYPE_OR_SUB = {"monstrous": (UnitType.MONSTROUS, SubType.MONSTROUS)}
# sub-types that only vehicles have: with no unit type named, they say "Vehicle" ("Tank, Fast")
_VEHICLE_SUBS = {SubType.TANK, SubType.TRANSPORT, SubType.WALKER, SubType.FLYER, SubType.SKIMMER}
_PROFILE_TYPES = {"vehicle": UnitType.VEHICLE, "flyer": UnitType.VEHICLE, "walker": UnitType.VEHICLE,
                  "knight": UnitType.KNIGHT, "titan": UnitType.TITAN, "primarch": UnitType.PRIMARCH,
                  "fortification": UnitType.FORTIFICATION}


def _lookup_word(word: str, fuzzy: bool) -> tuple[UnitType | None, SubType | None] | None:
    if word in _TYPE_VOCAB:
        return _TYPE_VOCAB[word]
    if fuzzy and len(word) >= 5:
        close = difflib.get_close_matches(word, list(_TYPE_VOCAB), n=1, cutoff=0.85)
        if close:
            return _TYPE_VOCAB[close[0]]
    return None


@dataclass
class TypeInfo:
    """Unit type and sub-types read from a roster, with the text they came from."""

    type: UnitType | None = None
    subtypes: set[SubType] = field(default_factory=set)
    sources: list[str] = field(default_factory=list)

    def add(self, other: TypeInfo) -> None:
        if self.type is None and other.type is not None:
            self.type = other.type
        self.subtypes |= other.subtypes
        self.sources += other.sources


def parse_unit_type(text: str, *, profile_type: str = "") -> TypeInfo:
    """Unit type and sub-types from a "Unit Type" characteristic, however it is spelled.

    ``"Infanty (Character)"`` -> Infantry + Character; ``"Jump Infantry"`` -> Infantry + Jump;
    ``"Bike"`` -> Cavalry + Bike; ``"Vehicle (Tank, Transport)"`` -> Vehicle + Tank + Transport;
    ``"Tank, Fast"`` (on a Vehicle profile, or alone) -> Vehicle + Tank + Fast.
    """
    info = TypeInfo(sources=[text])
    ambiguous: list[str] = []
    for phrase in re.split(r"[,()/;:\[\]]", text):
        phrase = _norm_words(phrase)
        if not phrase:
            continue
        first = _lookup_word(phrase, fuzzy=True) if phrase in _TYPE_VOCAB else None
        hits = [first] if first is not None else []
        if not hits:
            hits = []
            for word in phrase.split():
                if word in _TYPE_OR_SUB:
                    ambiguous.append(word)
                    continue
                hit = _lookup_word(word, fuzzy=True)
                if hit is not None:
                    hits.append(hit)
        for t, s in hits:
            if t is not None and info.type is None:
                info.type = t
            if s is not None:
                info.subtypes.add(s)
    for word in ambiguous:
        t, s = _TYPE_OR_SUB[word]
        if info.type is None:
            info.type = t
        else:
            info.subtypes.add(s)
    if info.type is None:
        pt = _PROFILE_TYPES.get(profile_type.strip().lower())
        if pt is not None:
            info.type = pt
        elif info.subtypes & _VEHICLE_SUBS:
            info.type = UnitType.VEHICLE
    if profile_type.strip().lower() == "flyer":
        info.subtypes.add(SubType.FLYER)
    if profile_type.strip().lower() == "walker" and info.type is UnitType.VEHICLE:
        info.subtypes.add(SubType.WALKER)
    return info


def categories_type(categories: list[str]) -> TypeInfo:
    """Unit type and sub-types from category names ("Infantry", "Tank (Unit)", "Jump Units", "Character")."""
    info = TypeInfo()
    for cat in categories:
        # "Tank (Unit)" (HH1 data); "Infantry Unit Type", "Heavy Sub-type", "Jump Infantry:" (HH2 2022 data)
        key = re.sub(r"\(\s*unit\s*\)\s*$|\s+unit\s+type\s*$|\s+sub-?\s*type\s*$|:\s*$", "", cat.strip(),
                     flags=re.IGNORECASE)
        key = _norm_words(key)
        hit = _TYPE_VOCAB.get(key)
        if hit is None and key in _TYPE_OR_SUB:
            hit = (_TYPE_OR_SUB[key][0], None)
        if hit is None:
            continue
        t, s = hit
        if t is not None and info.type is None:
            info.type = t
        if s is not None:
            info.subtypes.add(s)
        info.sources.append(f"category {cat!r}")
    if info.type is None and info.subtypes & _VEHICLE_SUBS:
        info.type = UnitType.VEHICLE
    return info


def _own_type(sel: Selection) -> TypeInfo:
    info = TypeInfo()
    for p in sel.model_profiles:
        text = p.unit_type_text
        if text:
            info.add(parse_unit_type(text, profile_type=p.type_name))
        else:
            info.add(parse_unit_type("", profile_type=p.type_name))
    info.add(categories_type(sel.categories))
    return info


# --------------------------------------------------------------------------- special rules


_EXTRA_BULKY = {"very bulky": 3, "extremely bulky": 5}
_RULE_CATEGORIES = {SpecialRule.INFILTRATE, SpecialRule.SCOUT, SpecialRule.DEEP_STRIKE, SpecialRule.OUTFLANK,
                    SpecialRule.INDEPENDENT_CHARACTER, SpecialRule.DEDICATED_TRANSPORT}


def deployment_rule(text: str) -> tuple[str, SpecialRule, int | None] | None:
    """The deployment rule a roster rule name stands for, as ``(text to write, rule, Bulky value)``.

    ``"Infiltrate (By Wing and Talon)"`` is kept as written; ``"Very Bulky"`` becomes
    ``"Bulky (3)"``. Rules that do not matter for deployment give ``None``.
    """
    key = _norm_words(text)
    if key in _EXTRA_BULKY:
        v = _EXTRA_BULKY[key]
        return f"Bulky ({v})", SpecialRule.BULKY, v
    try:
        rule, value = parse_rule(text)
    except ValueError:
        return None
    return text, rule, value


class _Rules:
    """Deployment rules in first-seen order, one entry per rule (the largest Bulky), plus the rest."""

    def __init__(self) -> None:
        self.found: dict[SpecialRule, tuple[str, int | None]] = {}
        self.other: list[str] = []

    def add(self, text: str, *, keep_other: bool) -> None:
        text = " ".join(text.split())
        if not text:
            return
        hit = deployment_rule(text)
        if hit is None:
            if keep_other and text not in self.other:
                self.other.append(text)
            return
        shown, rule, value = hit
        if rule is SpecialRule.BULKY:
            old = self.found.get(rule)
            if old is None or (value or 2) > (old[1] or 2):
                self.found[rule] = (shown, value)
            if shown != text and keep_other and text not in self.other:
                self.other.append(text)  # keep "Very Bulky" for reference, as hand-written armies do
            return
        self.found.setdefault(rule, (shown, value))

    def add_category(self, cat: str) -> None:
        hit = deployment_rule(cat)
        if hit is not None and hit[1] in _RULE_CATEGORIES:
            self.found.setdefault(hit[1], (hit[0], hit[2]))

    def texts(self, exclude: set[SpecialRule] = frozenset()) -> list[str]:  # type: ignore[assignment]
        return [t for r, (t, _) in self.found.items() if r not in exclude]


# --------------------------------------------------------------------------- roster -> army


_TERMINATOR = re.compile(r"terminator armour", re.IGNORECASE)


def _slug(text: str) -> str:
    t = re.sub(r"\([^)]*\)", " ", text)
    t = unicodedata.normalize("NFKD", t).encode("ascii", "ignore").decode()
    t = t.replace("'", "")
    t = re.sub(r"[^a-z0-9]+", "-", t.lower()).strip("-")
    return t[:60].strip("-") or "unit"


def unique_id(name: str, prefix: str, used: set[str]) -> str:
    """A unit id from ``name`` (slugged, with ``prefix``), made unique among ``used`` by a number
    suffix (``-2``, ``-3`` ...); it is added to ``used``."""
    base = f"{prefix}{_slug(name)}"
    uid, n = base, 2
    while uid in used:
        uid, n = f"{base}-{n}", n + 1
    used.add(uid)
    return uid


def _strip_parens(text: str) -> str:
    return " ".join(re.sub(r"\([^)]*\)", " ", text).split())


def _shares(total: int, models: int) -> list[int]:
    """How many of ``total`` weapons each of ``models`` models carries: as evenly as they go, the
    first ones one more (``_shares(2, 10)``: two models one each, eight none)."""
    q, r = divmod(total, models)
    return [q + 1 if i < r else q for i in range(models)]


def _copies(weapon: WeaponProfile, k: int) -> WeaponProfile:
    """``weapon`` as a model's own weapon of which it carries ``k`` (``count`` k; none for one)."""
    return weapon.model_copy(update={"count": k if k != 1 else None})


@dataclass
class _ModelSpec:
    sel: Selection
    count: int
    rules: _Rules
    self_model: bool = False


@dataclass
class _UnitSpec:
    sel: Selection
    context: list[Selection]  # enclosing unit selections, nearest first (for type fallback)
    inherited: list[str]  # deployment rules of enclosing unit selections
    models: list[_ModelSpec] = field(default_factory=list)
    rules: _Rules = field(default_factory=_Rules)
    transports: list[Selection] = field(default_factory=list)
    nested: list[Selection] = field(default_factory=list)


def _is_dedicated_transport(sel: Selection) -> bool:
    cats = {_norm_words(c) for c in sel.categories}
    if "dedicated transport" in cats or re.search(r"\(\s*dt\s*\)\s*$", sel.name, re.IGNORECASE):
        return True
    types = {p.type_name.strip().lower() for p in sel.profiles}
    return "transport" in types and bool(types & (MODEL_PROFILE_TYPES - {"unit", "model"}))


def _terminator_armoured(sel: Selection) -> bool:
    def walk(s: Selection) -> bool:
        if _TERMINATOR.search(s.name) or any(_TERMINATOR.search(r) for r in s.rules):
            return True
        return any(walk(c) for c in s.children if not c.is_model_like and not _is_dedicated_transport(c))

    return walk(sel)


def _holds_models(sel: Selection) -> bool:
    """A ``model`` selection with no profile of its own that only holds the miniatures (HH2 data:
    "1) Rapier Battery" holding the "Rapier" upgrade with the unit profile): not a model itself."""
    return not sel.model_profiles and any(c.is_model_like and not _is_dedicated_transport(c) for c in sel.children)


def _collect(sel: Selection, spec: _UnitSpec, owner: _Rules) -> None:
    """Walk what is nested in ``sel``: models, Dedicated Transports, nested units, upgrades' rules."""
    for child in sel.children:
        if _is_dedicated_transport(child):
            if child.number > 0:
                spec.transports.append(child)
        elif child.type == "unit":
            spec.nested.append(child)
        elif child.is_model_like and not _holds_models(child):
            m = _ModelSpec(child, child.number, _Rules())
            for r in child.rules:
                m.rules.add(r, keep_other=False)
            for c in child.categories:
                m.rules.add_category(c)
            if child.number > 0:
                spec.models.append(m)
                _collect(child, spec, m.rules)
        else:
            if child.number == 0:
                continue
            for r in child.rules:
                owner.add(r, keep_other=False)
            for c in child.categories:
                owner.add_category(c)
            _collect(child, spec, owner)


def _unit_specs(sel: Selection, context: list[Selection], inherited: list[str]) -> list[_UnitSpec]:
    """The units of a unit selection: itself (if it holds models) and its nested unit selections."""
    spec = _UnitSpec(sel, context, inherited)
    for r in sel.rules:
        spec.rules.add(r, keep_other=True)
    for c in sel.categories:
        spec.rules.add_category(c)
    if sel.model_profiles and not any(c.type == "model" for c in sel.children):
        # a unit that lists its models (Angron: unit and model) is not a model itself as well
        spec.models.append(_ModelSpec(sel, max(sel.number, 1), _Rules(), self_model=True))
    _collect(sel, spec, spec.rules)
    out: list[_UnitSpec] = []
    if spec.models or not spec.nested:
        if not spec.models:
            spec.models.append(_ModelSpec(sel, max(sel.number, 1), _Rules(), self_model=True))
        out.append(spec)
    passed_on = inherited + spec.rules.texts()
    for n in spec.nested:
        out.extend(_unit_specs(n, [sel, *context], passed_on))
    return out


def _model_type(ms: _ModelSpec, spec: _UnitSpec) -> TypeInfo:
    """A model's type: its own profile and categories; else its unit's categories, then profiles.

    Sub-types: its own, and those of its unit's categories ("Tank (Unit)", "Jump Units").
    """
    own = _own_type(ms.sel)
    around = [s for s in [spec.sel, *spec.context] if s is not ms.sel]
    cats = TypeInfo()
    for s in around:
        cats.add(categories_type(s.categories))
    info = TypeInfo()
    info.add(own)
    info.add(cats)
    if info.type is None:
        for s in around:
            for p in s.model_profiles:
                info.add(TypeInfo(parse_unit_type(p.unit_type_text or "", profile_type=p.type_name).type, set(),
                                  [p.unit_type_text or p.type_name]))
    return info


@dataclass
class _Built:
    unit: Unit
    embark_in: str | None = None


class UnknownModelsError(ScenarioError):
    """Models a roster holds that the catalogue neither names nor gives a base by a base rule:
    ``models`` lists each once, as ``{"model", "unit", "place", "count"}`` (``place`` the first
    selection path, ``count`` how many selections hold it)."""

    def __init__(self, message: str, *, file: str | None, models: list[dict[str, Any]]):
        super().__init__(message, file=file)
        self.models = models


def roster_to_army(roster: Roster, ruleset: str = "hh2", player: str = "player", default_base_mm: float | None = None,
                   embark: bool = False, *, id_prefix: str = "", place: bool = False,
                   strict: bool = False) -> tuple[Army, list[str]]:
    """Turn a roster into one player's :class:`Army`, with warnings for what was assumed.

    Parameters
    ----------
    roster : Roster
        From :func:`read_roster`.
    ruleset : str
        Ruleset id (``'hh2'``); picks the ``models/`` catalogue and the accepted game systems.
    player : str
        The army's player.
    default_base_mm : float, optional
        Round base (mm) for models the catalogue does not know; without it they are an error.
    embark : bool
        Set up each Infantry unit with a Dedicated Transport embarked in it.
    id_prefix : str
        Put before every unit id (to keep two imported armies' ids apart in one scenario).
    place : bool
        Mark every unit ``place: true`` (for ``planner plan``), except units embarked by ``embark``.
    strict : bool
        A roster not written with the ruleset's edition data (:func:`edition_problem`) is an error
        instead of a warning.

    Models the catalogue does not name get their base from its base rules (by unit type, sub-types,
    name, wargear and army list; a warning names the rule); see :meth:`ModelCatalogue.resolve`.

    Raises
    ------
    ScenarioError
        Unknown ruleset, a roster of another game system (or edition, with ``strict``), models the
        catalogue does not know and no base rule covers (:class:`UnknownModelsError`, each listed once
        with its place in the roster) without ``default_base_mm``, a model with no unit type, too
        many models, or a value the scenario schema refuses (a name with a control or
        bidirectional-override character, too many units).
    """
    from pydantic import ValidationError

    from planner.io.files import validation_error

    try:
        return _roster_to_army(roster, ruleset, player, default_base_mm, embark, id_prefix=id_prefix, place=place,
                               strict=strict)
    except ValidationError as exc:
        err = validation_error(exc, None, roster.file)
        raise ScenarioError(f"a value from the roster cannot be used: {err.detail}", file=roster.file,
                            value=err.value) from None


def _roster_to_army(roster: Roster, ruleset: str, player: str, default_base_mm: float | None, embark: bool, *,
                    id_prefix: str, place: bool, strict: bool = False) -> tuple[Army, list[str]]:
    from planner.io.catalogue import load_catalogue
    from planner.rules.registry import find_ruleset

    rs = find_ruleset(ruleset)
    if not game_system_matches(rs.id, roster.game_system):
        raise ScenarioError(f"roster is for another game system than ruleset {rs.id!r}", file=roster.file,
                            location="roster.gameSystemName", value=roster.game_system)
    if default_base_mm is not None and not (0 < default_base_mm <= 1000):
        raise ScenarioError("default base size must be more than 0 and at most 1000 mm", location="default_base_mm",
                            value=default_base_mm)
    builder = _ArmyBuilder(roster, rs, load_catalogue(rs.catalogue), default_base_mm, id_prefix, place)
    edition = edition_problem(roster, rs.id)
    if edition is not None:
        if strict:
            raise ScenarioError(f"{edition} (--strict)", file=roster.file, location="roster.gameSystemId",
                                value=roster.game_system_id or roster.game_system)
        builder.warnings.append(f"edition: {edition}")
    built = builder.build_all(embark)
    builder.report_unknown()
    units = builder.set_up_embarked(built)
    army = Army(player=player, name=_army_name(roster), units=units)
    return army, builder.warnings


_Row = tuple[_ModelSpec, Any, UnitType, set[SubType], list[str]]
"""One model of a unit being built: spec, catalogue entry (or None), type, roster sub-types, model rules."""


class _ArmyBuilder:
    """The steps of :func:`roster_to_army` and what they share: unit ids taken, models counted,
    models not in the catalogue, warnings."""

    def __init__(self, roster: Roster, rs, catalogue, default_base_mm: float | None, id_prefix: str,
                 place: bool) -> None:
        """Nothing built yet, for the ruleset ``rs`` and its catalogue."""
        self.roster, self.rs, self.catalogue = roster, rs, catalogue
        self.default_base_mm, self.id_prefix, self.place = default_base_mm, id_prefix, place
        self.warnings: list[str] = []
        self.used_ids: set[str] = set()
        self.unknown: list[tuple[str, str, str]] = []
        self.by_rule: dict[str, str] = {}  # model name -> the warning naming its base rule
        self.force_catalogue = ""
        self.total_models = 0

    def build_all(self, embark: bool) -> list[_Built]:
        """Every unit of every force's top-level unit and model selections, in roster order."""
        built: list[_Built] = []
        for force in self.roster.all_forces():
            self.force_catalogue = force.catalogue or force.name
            for top in force.selections:
                if top.type not in ("unit", "model") or top.number == 0:
                    continue
                for spec in _unit_specs(top, [], []):
                    self.add_unit(spec, embark, built)
        return built

    def add_unit(self, spec: _UnitSpec, embark: bool, built: list[_Built]) -> None:
        """One unit then its Dedicated Transports (with ``embark``, the unit marked to ride in the first)."""
        uid = self.new_id(spec.sel.name)
        label = f"{spec.sel.name} (of {spec.context[0].name})" if spec.context else spec.sel.name
        unit = self.build(spec, uid, [], label)
        b = _Built(unit)
        built.append(b)
        for ti, t in enumerate(spec.transports):
            tid, tunit = self.build_transport(t, uid)
            built.append(_Built(tunit))
            if embark and ti == 0:
                b.embark_in = tid
                _check_embark(unit, tunit, self.catalogue, self.warnings)

    def build_transport(self, t: Selection, uid: str) -> tuple[str, Unit]:
        """A Dedicated Transport of unit ``uid`` as its own unit: its id and the unit."""
        tspec = _unit_specs(t, [], [])[0]
        tid = self.new_id(t.name)
        tunit = self.build(tspec, tid, ["Dedicated Transport", "Transport"],
                           t.name)
        tunit.name = f"{tunit.name} (Dedicated Transport of {uid})"
        if tunit.transport_capacity is None:
            self.warnings.append(f"{tid}: Dedicated Transport with no Transport profile capacity and no "
                                 "catalogue capacity")
        return tid, tunit

    def new_id(self, name: str) -> str:
        """A unit id from ``name`` (with the prefix), made unique by a number suffix."""
        return unique_id(name, self.id_prefix, self.used_ids)

    def lookup(self, ms: _ModelSpec, spec: _UnitSpec, terminator: bool, tinfo: TypeInfo):
        """The model's :class:`~planner.io.catalogue.Resolution`: the catalogue entry by its names
        (first as "<name> in Terminator Armour" if ``terminator``), else the first base rule that
        holds for its type, sub-types, names, wargear and army list; or None."""
        from planner.io.catalogue import ModelFacts

        names = [ms.sel.name, *[p.name for p in ms.sel.model_profiles]]
        names += [_strip_parens(n) for n in names]
        if terminator and not any(_TERMINATOR.search(n) or "terminator" in n.lower() for n in names):
            names = [f"{_strip_parens(n)} in Terminator Armour" for n in names] + names
        wargear = _wargear(ms.sel) + ([] if ms.sel is spec.sel else _wargear(spec.sel))
        facts = ModelFacts(name=ms.sel.name, type=tinfo.type, subtypes=frozenset(tinfo.subtypes), unit=spec.sel.name,
                           wargear=tuple(wargear), catalogue=self.force_catalogue)
        return self.catalogue.resolve(facts, names=[n for n in names if n])

    def build(self, spec: _UnitSpec, uid: str, extra_rules: list[str], name: str) -> Unit:
        """One unit: its rules, models (types, sub-types and rules only where they differ from the
        unit's), transport capacity and display name."""
        sel = spec.sel
        unit_rules = _Rules()
        for t in spec.inherited + spec.rules.texts() + extra_rules:
            unit_rules.add(t, keep_other=False)
        unit_rule_set = set(unit_rules.found)
        self.count_models(spec)
        terminator = len(spec.models) == 1 and _terminator_armoured(sel)
        rows = [self.model_row(ms, spec, terminator, name, unit_rule_set) for ms in spec.models]
        types = Counter(r[2] for r in rows)
        unit_type = types.most_common(1)[0][0]
        common = set.intersection(*(r[3] for r in rows)) if rows else set()
        models: list[Model] = []
        other = list(spec.rules.other)
        for row in rows:
            models.extend(self.models_of(row, unit_type, common, other))
        cap = self.capacity(sel, unit_rules, rows)
        rules = unit_rules.texts()
        if cap is not None and SpecialRule.TRANSPORT not in unit_rules.found:
            rules.append("Transport")
        display = f"{sel.custom_name} ({name})" if sel.custom_name else name
        models, weapons = self.unit_wargear(spec, models)
        # the characteristics most models share go on the unit, a model keeping only its own different
        # ones; not when some model has none (the unit's would then stand for them)
        counts = Counter(m.stats.model_dump_json() for m in models if m.stats is not None)
        stats = None
        if counts and all(m.stats is not None for m in models):
            common_json = counts.most_common(1)[0][0]
            stats = next(m.stats for m in models if m.stats is not None and m.stats.model_dump_json() == common_json)
            models = [m.model_copy(update={"stats": None}) if m.stats is not None
                      and m.stats.model_dump_json() == common_json else m for m in models]
        elif counts:
            self.warn_no_stats(uid, models)
        return Unit(id=uid, name=display, type=unit_type,
                    subtypes=sorted(common, key=lambda s: list(SubType).index(s)), rules=rules,
                    other_rules=other, transport_capacity=cap, place=self.place, stats=stats, weapons=weapons,
                    models=models)

    def unit_wargear(self, spec: _UnitSpec, models: list[Model]) -> tuple[list[Model], list[WeaponProfile]]:
        """The unit's wargear (weapons of its non-model selections), shared among its models that do
        not carry a weapon of that name of their own (a sergeant's own Bolter): a selection of number 1
        (or a profile on the unit selection) is the roster's wargear of the whole squad ("Standard
        Wargear: Bolters" 1 in a squad of 10), every one of them carries it (no ``count``); number N of
        them as well; fewer is ``count`` N ("Meltagun" 2 of 10); more gives each of them its share as
        its own weapons (:func:`_shares`). A unit that is itself one of its models (a Praetor, a
        Land Raider) has no wargear besides that model's. Returns the models and the unit's weapons."""
        from planner.io.roster_profiles import weapons_of  # the unit's wargear (issue 20)

        if any(ms.sel is spec.sel for ms in spec.models):
            return models, []
        weapons: list[WeaponProfile] = []
        for c in weapons_of(spec.sel, file=self.roster.file, warn=self.warnings.append):
            name = c.weapon.name
            bare = [i for i, m in enumerate(models) if not any(w.name == name for w in m.weapons or [])]
            if not bare:
                continue
            if any(n is None or n == 1 for n in c.numbers):
                weapons.append(c.weapon)
                continue
            total = c.total(len(models))
            if total <= len(bare):
                weapons.append(c.weapon if total == len(bare) else c.weapon.model_copy(update={"count": total}))
                continue
            models = list(models)
            for i, k in zip(bare, _shares(total, len(bare)), strict=True):
                models[i] = models[i].model_copy(update={"weapons": [*(models[i].weapons or []),
                                                                     _copies(c.weapon, k)]})
        return models, weapons

    def warn_no_stats(self, uid: str, models: list[Model]) -> None:
        """A warning for a unit some of whose models have characteristics in the roster and some not
        (e.g. first-edition Breachers: only the sergeant has a profile): ``planner shoot`` and
        ``planner exposure`` need them, so the user must add ``stats:`` before using those. (A roster
        with no profiles at all is not warned of: it is simply a roster without them.)"""
        without = Counter(m.profile or m.name or "model" for m in models if m.stats is None)
        names = ", ".join(f"{n} x{c}" if c > 1 else n for n, c in without.items())
        self.warnings.append(f"{uid}: {sum(without.values())} of {len(models)} models have no characteristics "
                             f"profile in the roster ({names}); planner shoot and planner exposure need them: "
                             "add stats: to the unit or the models")

    def count_models(self, spec: _UnitSpec) -> None:
        """Count the unit's models: at most ``MAX_MODELS_PER_UNIT``, and ``MAX_MODELS`` in all."""
        sel = spec.sel
        count = sum(m.count for m in spec.models)
        if count > MAX_MODELS_PER_UNIT:
            raise ScenarioError(f"unit has {count} models; at most {MAX_MODELS_PER_UNIT}", file=self.roster.file,
                                location=sel.path, value=count)
        self.total_models += count
        if self.total_models > MAX_MODELS:
            raise ScenarioError(f"the roster has {self.total_models} models up to this unit; at most {MAX_MODELS} "
                                "in all", file=self.roster.file, location=sel.path, value=self.total_models)

    def model_row(self, ms: _ModelSpec, spec: _UnitSpec, terminator: bool, name: str,
                  unit_rule_set: set[SpecialRule]) -> _Row:
        """One model's catalogue entry, type (the catalogue's if they disagree, with a warning),
        sub-types and the rules its unit and entry do not already give."""
        sel = spec.sel
        tinfo = _model_type(ms, spec)
        found = self.lookup(ms, spec, terminator or _terminator_armoured(ms.sel), tinfo)
        entry = found.entry if found is not None else None
        if found is not None and found.how == "rule" and ms.sel.name not in self.by_rule:
            self.by_rule[ms.sel.name] = (f"{ms.sel.path}: model {ms.sel.name!r} is not in the {self.rs.id} catalogue "
                                         f"by name; base {_base_text(found.entry.base)} from base rule "
                                         f"{found.entry.id}")
            self.warnings.append(self.by_rule[ms.sel.name])
        mtype = tinfo.type
        subs = set(tinfo.subtypes)
        if found is not None and found.how == "entry" and entry is not None and mtype is not None \
                and entry.type is not mtype:
            self.warnings.append(f"{name}: model {ms.sel.name!r}: the roster's unit type ({'; '.join(tinfo.sources)}) "
                                 f"reads as {mtype.value}, the {self.rs.id} catalogue entry {entry.id!r} says "
                                 f"{entry.type.value}; using the catalogue's")
            mtype = entry.type
            subs = (subs & {SubType.CHARACTER, SubType.UNIQUE}) | set(entry.subtypes)
        if mtype is None and entry is not None:
            mtype = entry.type
        if mtype is None:
            raise ScenarioError(f"no unit type for model {ms.sel.name!r} of unit {sel.name!r}: no 'Unit Type' "
                                "characteristic, no type category, and not in the catalogue", file=self.roster.file,
                                location=ms.sel.path)
        if entry is None:
            self.unknown.append((sel.name, ms.sel.name, ms.sel.path))
        mrules = [t for r, (t, _) in ms.rules.found.items()
                  if r not in unit_rule_set and (entry is None or r not in {parse_rule(x)[0] for x in entry.rules})]
        return (ms, found, mtype, subs, mrules)

    def models_of(self, row: _Row, unit_type: UnitType, common: set[SubType], other: list[str]) -> list[Model]:
        """The ``count`` models of one row, giving only what differs from the unit and the catalogue
        (an assumed base is noted in ``other``)."""
        ms, found, mtype, subs, mrules = row
        entry = found.entry if found is not None and found.how == "entry" else None
        entry_subs = set(entry.subtypes) if entry is not None else set()
        want = subs | entry_subs
        data: dict[str, Any] = {}
        if found is not None and entry is None:  # a base rule: the base written out
            data["name"] = ms.sel.name
            data["base"] = found.entry.base
        elif entry is not None:
            data["profile"] = entry.id
            if _norm_words(ms.sel.name) not in {_norm_words(x) for x in [entry.name, *entry.aliases]}:
                data["name"] = ms.sel.name
        else:
            data["name"] = ms.sel.name
            if self.default_base_mm is not None:
                data["base"] = RoundBase(diameter_mm=self.default_base_mm)
        if mtype is not unit_type:
            data["type"] = mtype
        if want != (common | entry_subs):
            data["subtypes"] = sorted(want, key=lambda s: list(SubType).index(s))
        if mrules:
            data["rules"] = mrules
        from planner.io.roster_profiles import characteristics_of, weapons_of  # profiles (issue 20)

        def warn(msg: str) -> None:
            if msg not in self.warnings:
                self.warnings.append(msg)

        if (stats := characteristics_of(ms.sel, file=self.roster.file, warn=warn)) is not None:
            data["stats"] = stats
        if found is None and self.default_base_mm is not None:
            note = f"base assumed {self.default_base_mm:g} mm (not in catalogue): {ms.sel.name}"
            if note not in other:
                other.append(note)
        # the row's weapons, shared among its models: "Bolt Pistols" 4 in 4 marines is one each,
        # "Twin-linked Lascannon Sponsons" 2 on one Land Raider two on it (count 2)
        carried = weapons_of(ms.sel, file=self.roster.file, warn=warn)
        shares = [_shares(c.total(ms.count), ms.count) for c in carried]
        out = []
        for i in range(ms.count):
            weapons = [_copies(c.weapon, sh[i]) for c, sh in zip(carried, shares, strict=True) if sh[i] > 0]
            out.append(Model(**data, **({"weapons": weapons} if weapons else {})))
        return out

    def capacity(self, sel: Selection, unit_rules: _Rules, rows: list[_Row]) -> int | None:
        """The unit's transport capacity: its first Transport profile's, else (if it has the rule
        Transport) the largest of its models' catalogue entries."""
        cap = None
        for p in sel.profiles:
            if p.type_name.strip().lower() == "transport" and cap is None:
                cap = _capacity(p, sel.path, self.warnings)
        if cap is None and SpecialRule.TRANSPORT in unit_rules.found:
            caps = [r[1].entry.transport_capacity for r in rows if r[1] is not None and r[1].entry.transport_capacity]
            cap = max(caps) if caps else None
        return cap

    def unknown_models(self) -> list[dict[str, Any]]:
        """Each model not in the catalogue once: its name, unit, first place and how many selections hold it."""
        out: dict[str, dict[str, Any]] = {}
        for u, m, where in self.unknown:
            if m in out:
                out[m]["count"] += 1
            else:
                out[m] = {"model": m, "unit": u, "place": where, "count": 1}
        return list(out.values())

    def report_unknown(self) -> None:
        """Models not in the catalogue: one error listing each once with its place, or (with a
        default base) a warning each."""
        rs, default_base_mm = self.rs, self.default_base_mm
        models = self.unknown_models()
        if models and default_base_mm is None:
            lines = [f"  {m['place']}: model {m['model']!r}" + (f" (and {m['count'] - 1} more selection(s))"
                                                                  if m["count"] > 1 else "") for m in models]
            raise UnknownModelsError(f"{len(models)} model(s) not in the {rs.id} catalogue (models/{rs.id}/) and no "
                                     "base rule covers them; add them to the catalogue, or import with a default base "
                                     "(--default-base 32mm):\n" + "\n".join(lines), file=self.roster.file,
                                     models=models)
        for m in models:
            self.warnings.append(f"{m['place']}: model {m['model']!r} is not in the {rs.id} catalogue; assumed a "
                                 f"round {default_base_mm:g} mm base")

    def set_up_embarked(self, built: list[_Built]) -> list[Unit]:
        """The units, each Infantry unit marked to ride in its Dedicated Transport set up embarked
        (and not placed); other units so marked stay put, with a warning."""
        units: list[Unit] = []
        for b in built:
            u = b.unit
            if b.embark_in is not None and u.setup.method is SetupMethod.DEPLOYMENT_ZONE:
                if u.type is UnitType.INFANTRY and all(m.type in (None, UnitType.INFANTRY) for m in u.models):
                    u = u.model_copy(update={"setup": Setup(method=SetupMethod.EMBARKED, in_=b.embark_in),
                                             "place": False})
                else:
                    self.warnings.append(f"{u.id}: not embarked in its Dedicated Transport {b.embark_in}: only "
                                         "Infantry units embark")
            units.append(u)
        return units


def _base_text(b: Any) -> str:
    """``round 40 mm``, ``oval 75 x 42 mm``, ``hull 4.6 x 3.6 in``."""
    if isinstance(b, RoundBase):
        return f"round {b.diameter_mm:g} mm"
    if isinstance(b, OvalBase):
        return f"oval {b.length_mm:g} x {b.width_mm:g} mm"
    return f"hull {b.length_in:g} x {b.width_in:g} in"


def _wargear(sel: Selection) -> list[str]:
    """Names of what a selection carries (its rules, and upgrades that are not miniatures), for base rules."""
    out = list(sel.rules)
    stack = [c for c in sel.children if not c.is_model_like and c.type != "unit"]
    while stack and len(out) < 500:
        c = stack.pop()
        out.append(c.name)
        out.extend(c.rules)
        stack.extend(x for x in c.children if not x.is_model_like and x.type != "unit")
    return out


def _army_name(roster: Roster) -> str:
    """The army's name: the roster's (else its forces'), with the file name and points."""
    forces = [f.custom_name or f.name for f in roster.all_forces()]
    pts = f", {roster.points:g} pts" if roster.points else ""
    label = roster.name if roster.name and roster.name != "New Roster" else " / ".join(x for x in forces if x)
    return f"{label} ({Path(roster.file).name}{pts})".strip()


def _capacity(p: Profile, loc: str, warnings: list[str]) -> int | None:
    for key, value in p.characteristics.items():
        if "capacity" in key.lower():
            m = re.search(r"-?\d+", value)
            if m and len(m.group()) <= 7 and int(m.group()) >= 0:
                return int(m.group())
            warnings.append(f"{loc}: Transport capacity {value!r} is not a whole number of models; ignored")
    return None


def _check_embark(unit: Unit, transport: Unit, catalogue, warnings: list[str]) -> None:
    """Warn when a unit does not fit in its Dedicated Transport (Bulky counts)."""
    cap = transport.transport_capacity
    if cap is None:
        return
    unit_bulky = [parse_rule(r) for r in unit.rules]
    used = 0
    for m in unit.models:
        parsed = unit_bulky + [parse_rule(r) for r in m.rules]
        entry = catalogue.get(m.profile) if m.profile else None
        if entry is not None:
            parsed += [parse_rule(r) for r in entry.rules]
        used += max([v for r, v in parsed if r is SpecialRule.BULKY and v is not None], default=1)
    if used > cap:
        warnings.append(f"{unit.id}: embarked in {transport.id}, but needs {used} places (Bulky counts) and the "
                        f"transport has {cap}")


# --------------------------------------------------------------------------- files


def import_roster(path: str | Path, ruleset: str = "hh2", player: str = "player",
                  default_base_mm: float | None = None, embark: bool = False, *, id_prefix: str = "",
                  place: bool = False, strict: bool = False) -> tuple[Army, list[str]]:
    """:func:`read_roster` then :func:`roster_to_army`; a 40k army list (GW app, New Recruit,
    ListForge, Rosterizer) goes to :func:`planner.io.lists40k.list_to_army` instead."""
    from planner.io.lists40k import list_to_army, read_if_list

    if (lst := read_if_list(path, ruleset)) is not None:
        return list_to_army(lst, ruleset, player, default_base_mm, embark, id_prefix=id_prefix, place=place)
    roster = read_roster(path, ruleset)
    return roster_to_army(roster, ruleset, player, default_base_mm, embark, id_prefix=id_prefix, place=place,
                          strict=strict)


def army_to_data(army: Army) -> dict[str, Any]:
    """The army as plain data for a scenario file (without defaults)."""
    return army.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True) | {
        "player": army.player}


def army_to_yaml(army: Army, header: list[str] = ()) -> str:  # type: ignore[assignment]
    """The army as compact YAML (as in scenario files), after ``# `` comment lines."""
    import yaml

    from planner.io.files import _CompactDumper

    text = yaml.dump(army_to_data(army), Dumper=_CompactDumper, sort_keys=False, allow_unicode=True, width=120)
    lines = "".join(f"# {h}\n" for h in header)
    return lines + text


def parse_base_size(text: str) -> float:
    """``"32mm"``, ``"32 mm"``, ``"32"`` -> 32.0.

    Raises
    ------
    ScenarioError
        If it is not a positive size in millimetres up to 1000.
    """
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(mm)?\s*", text, flags=re.IGNORECASE)
    if not m or not 0 < float(m.group(1)) <= 1000:
        raise ScenarioError("a base size in millimetres, such as 32mm (more than 0, at most 1000)",
                            location="--default-base", value=text)
    return float(m.group(1))


def expand_rosters(scenario, file: str | None, raw: dict | None = None):
    """Replace each army's ``roster:`` reference by the units imported from it.

    The roster's units come first; a unit written in the army with the id of an imported unit
    replaces it (to give it positions or a set-up), other written units are added after.
    Returns the scenario and the raw data with the same expansion (so that a planned scenario
    written from ``raw`` holds every unit). Paths are relative to the scenario file.

    Raises
    ------
    ScenarioError
        Naming the scenario file and ``armies[i].roster``, for any problem with the roster.
    """
    if not any(a.roster is not None for a in scenario.armies):
        return scenario, raw
    base_dir = Path(file).resolve().parent if file else Path.cwd()
    armies = []
    raw_armies = raw.get("armies") if isinstance(raw, dict) else None
    for ai, army in enumerate(scenario.armies):
        ref = army.roster
        if ref is None:
            armies.append(army)
            continue
        rpath = Path(ref.file)
        if not rpath.is_absolute():
            rpath = base_dir / rpath
        try:
            imported, _ = import_roster(rpath, scenario.ruleset, army.player, ref.default_base_mm, ref.embark,
                                        id_prefix=ref.id_prefix, place=ref.place)
        except ScenarioError as exc:
            raise ScenarioError(f"cannot import the roster: {exc}", file=file, location=f"armies[{ai}].roster.file",
                                value=ref.file) from None
        written = {u.id: u for u in army.units}
        units = [written.pop(u.id, u) for u in imported.units] + [u for u in army.units if u.id in written]
        armies.append(army.model_copy(update={"units": units, "roster": None,
                                              "name": army.name or imported.name}))
        if raw_armies is not None and ai < len(raw_armies) and isinstance(raw_armies[ai], dict):
            raw_units: dict[Any, Any] = {u.get("id"): u for u in raw_armies[ai].get("units") or [] if isinstance(u, dict)}
            new_raw = [raw_units.pop(u.id, None) or army_to_data_unit(u) for u in imported.units]
            new_raw += [u for u in raw_armies[ai].get("units") or [] if isinstance(u, dict) and u.get("id") in raw_units]
            raw_armies[ai] = {k: v for k, v in raw_armies[ai].items() if k != "roster"} | {"units": new_raw}
    _refuse_shared_ids(scenario, armies, file)
    return scenario.model_copy(update={"armies": armies}), raw


def _refuse_shared_ids(scenario, armies: list, file: str | None) -> None:
    """A unit id in two armies where one came from a roster: refused at that roster's
    ``id_prefix``, suggesting another (the resolver would only say "duplicate unit id")."""
    rosters = {ai: a.roster for ai, a in enumerate(scenario.armies) if a.roster is not None}
    owner: dict[str, int] = {}
    for ai, army in enumerate(armies):
        for u in army.units:
            first = owner.setdefault(u.id, ai)
            if first == ai or not (ai in rosters or first in rosters):
                continue
            at, other = (ai, first) if ai in rosters else (first, ai)
            prefix = rosters[at].id_prefix
            same = other in rosters and rosters[other].id_prefix == prefix
            hint = f"{armies[at].player}-"
            if hint == prefix:
                hint = f"{armies[at].player}-{at}-"
            why = (f"the rosters of armies[{other}] and armies[{at}] have the same id_prefix {prefix!r}" if same
                   else f"the roster of armies[{at}] (id_prefix {prefix!r}) gives an id of armies[{other}]")
            raise ScenarioError(
                f"duplicate unit id {u.id!r} in armies[{first}] and armies[{ai}]: {why}; give the roster of "
                f"armies[{at}] another id_prefix, e.g. id_prefix: {hint!r}", file=file,
                location=f"armies[{at}].roster.id_prefix", value=prefix)


def army_to_data_unit(unit: Unit) -> dict[str, Any]:
    return unit.model_dump(mode="json", by_alias=True, exclude_none=True, exclude_defaults=True) | {"id": unit.id}


__all__ = ["Force", "Profile", "Roster", "Selection", "TypeInfo", "UnknownModelsError", "edition_problem", "army_to_data", "army_to_yaml", "categories_type",
           "deployment_rule", "expand_rosters", "import_roster", "parse_base_size", "parse_unit_type", "read_roster",
           "roster_to_army"]
