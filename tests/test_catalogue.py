"""The ``models/`` catalogue: every file validates, ids are unique, known values, real rosters resolve."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from planner.io.catalogue import _norm, catalogue_dir, load_catalogue
from planner.io.files import load_catalogue_file
from planner.schema import HullBase, OvalBase, RoundBase, SubType, UnitType, parse_rule

ROSTERS = Path(__file__).resolve().parents[2] / "shared" / "data" / "rosters"

# Vehicle/unit profile types a BattleScribe selection carries when it stands for a miniature.
_MODEL_PROFILE_TYPES = {"Unit", "Vehicle", "Flyer", "Walker", "Primarch", "Knight", "Titan"}


def _catalogue_files() -> list[Path]:
    root = catalogue_dir()
    return sorted(root.glob("**/*.yaml")) + sorted(root.glob("**/*.yml"))


def test_catalogue_files_exist():
    assert any(p.parent.name == "hh2" for p in _catalogue_files()), "no models/hh2/*.yaml catalogue file"


@pytest.mark.parametrize("path", _catalogue_files(), ids=lambda p: p.name)
def test_catalogue_file_validates(path: Path):
    cat = load_catalogue_file(path)  # schema errors raise ScenarioError
    assert cat.entries or cat.base_rules, f"{path.name} has no entries and no base rules"
    for r in cat.base_rules:
        assert r.source.strip() and r.id.startswith(f"{cat.system}-rule-"), r.id
    for e in cat.entries:
        assert e.source.strip(), f"{e.id}: say where the base size comes from in 'source'"
        if e.transport_capacity is not None:
            # HH2: the Transport rule; 40k: the TRANSPORT keyword
            assert "Transport" in e.rules or "TRANSPORT" in e.keywords, \
                f"{e.id}: a transport capacity without the Transport rule (or TRANSPORT keyword)"


def test_ids_unique_across_files():
    seen: dict[str, str] = {}
    dups = []
    for path in _catalogue_files():
        for e in load_catalogue_file(path).entries:
            if e.id in seen:
                dups.append(f"{e.id} ({seen[e.id]} and {path.name})")
            seen[e.id] = path.name
    assert not dups, "duplicate catalogue ids: " + ", ".join(dups)


def test_names_and_aliases_unambiguous():
    """No name or alias may point to two different entries (the lookup would silently pick one)."""
    owner: dict[str, str] = {}
    clashes = []
    for path in _catalogue_files():
        cat = load_catalogue_file(path)
        for e in cat.entries:
            for n in {_norm(x) for x in [e.name, *e.aliases]}:
                key = f"{cat.system}:{n}"
                if key in owner and owner[key] != e.id:
                    clashes.append(f"{n!r}: {owner[key]} and {e.id}")
                owner.setdefault(key, e.id)
    assert not clashes, "names/aliases used by two entries: " + "; ".join(clashes)


def test_load_catalogue_hh2():
    cat = load_catalogue("hh2")
    assert len(cat) >= 40


def _entry(ref: str):
    e = load_catalogue("hh2").get(ref)
    assert e is not None, f"{ref!r} not in the hh2 catalogue"
    return e


def test_known_values():
    tac = _entry("Tactical Space Marines, Legion")
    assert isinstance(tac.base, RoundBase) and tac.base.diameter_mm == 32
    assert tac.type is UnitType.INFANTRY
    assert _entry("legion-tactical-marine") is tac
    # lookup normalises case, commas and whitespace
    assert _entry("tactical   space marines legion") is tac

    sgt = _entry("Tactical Sergeant, Legion")
    assert sgt.type is UnitType.INFANTRY and SubType.CHARACTER in sgt.subtypes

    contemptor = _entry("Contemptor Dreadnought")
    assert isinstance(contemptor.base, RoundBase) and contemptor.base.diameter_mm == 60
    assert contemptor.type is UnitType.DREADNOUGHT

    term = _entry("Terminators, Legion")
    assert isinstance(term.base, RoundBase) and term.base.diameter_mm == 40
    assert parse_rule("Bulky (2)") in [parse_rule(r) for r in term.rules]

    rhino = _entry("Rhino Armoured Carrier, Legion")
    assert isinstance(rhino.base, HullBase)
    assert rhino.transport_capacity == 10
    assert rhino.type is UnitType.VEHICLE and SubType.TRANSPORT in rhino.subtypes
    assert _entry("Legion Rhino") is rhino

    outrider = _entry("Space Marine Outrider, Legion")
    assert isinstance(outrider.base, OvalBase)
    assert (outrider.base.length_mm, outrider.base.width_mm) == (75, 42)
    assert outrider.type is UnitType.CAVALRY and SubType.BIKE in outrider.subtypes
    assert "Scout" in outrider.rules

    assault = _entry("Assault Space Marines, Legion")
    assert SubType.JUMP in assault.subtypes and "Deep Strike" in assault.rules

    praetor = _entry("Praetor, Legion")
    assert "Independent Character" in praetor.rules and SubType.CHARACTER in praetor.subtypes

    pod = _entry("Legion Drop Pod")
    assert isinstance(pod.base, HullBase) and pod.transport_capacity == 10 and "Deep Strike" in pod.rules

    rapier = _entry("Rapier Carrier")
    assert SubType.ARTILLERY in rapier.subtypes


# --------------------------------------------------------------------------- real rosters


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def _children(el, name: str):
    return [c for c in el if _local(c.tag) == name]


def _selections(el):
    out = []
    for group in _children(el, "selections"):
        out.extend(_children(group, "selection"))
    return out


def _has_model_profile(sel) -> bool:
    """Whether the selection itself carries a unit/vehicle profile (characteristics of a miniature)."""
    for profiles in _children(sel, "profiles"):
        for p in _children(profiles, "profile"):
            if p.get("typeName") in _MODEL_PROFILE_TYPES:
                return True
    return False


def _is_model_upgrade(sel) -> bool:
    """An upgrade-type selection that stands for a miniature (a nested Rhino, a Predator in a squadron)."""
    return sel.get("type") == "upgrade" and _has_model_profile(sel)


def _roster_model_names(root) -> set[str]:
    """Names of every miniature in a roster.

    Selections of type ``model``; upgrades carrying a unit/vehicle profile (BattleScribe nests
    Dedicated Transports and squadron vehicles as upgrades); and single-model ``unit`` selections:
    those carrying their own unit/vehicle profile (a Praetor, a Techmarine with Servo-automata
    upgrades) or containing no model, model-like upgrade or nested unit.
    """
    names: set[str] = set()

    def walk(el) -> bool:
        """Collect names below ``el``; return whether ``el``'s subtree holds a miniature or unit."""
        found = False
        for s in _selections(el):
            kind = s.get("type")
            below = walk(s)
            if kind == "model" or _is_model_upgrade(s):
                names.add(s.get("name", ""))
                found = True
            elif kind == "unit":
                if not below or _has_model_profile(s):
                    names.add(s.get("name", ""))
                found = True
            found = found or below
        return found

    for force in root.iter():
        if _local(force.tag) == "force":
            walk(force)
    return names


def _roster_files() -> list[Path]:
    if not ROSTERS.is_dir():
        return []
    return sorted(ROSTERS.glob("*.rosz"))


def test_roster_models_resolve():
    if not ROSTERS.is_dir():
        pytest.skip(f"no roster folder at {ROSTERS}")
    try:
        from defusedxml import ElementTree as SafeET
    except ImportError:
        pytest.skip("defusedxml is not installed")
    files = _roster_files()
    if not files:
        pytest.skip(f"no .rosz files in {ROSTERS}")
    cat = load_catalogue("hh2")
    unresolved: dict[str, list[str]] = {}
    total = 0
    for path in files:
        with zipfile.ZipFile(path) as z:
            members = [n for n in z.namelist() if n.endswith(".ros")]
            assert members, f"{path.name}: no .ros file inside"
            root = SafeET.fromstring(z.read(members[0]))
        names = _roster_model_names(root)
        assert names, f"{path.name}: no models found"
        total += len(names)
        for n in sorted(names):
            if cat.get(n) is None:
                unresolved.setdefault(n, []).append(path.name)
    assert total > 0
    assert not unresolved, "roster model names missing from the hh2 catalogue: " + "; ".join(
        f"{n!r} (in {', '.join(fs)})" for n, fs in sorted(unresolved.items())
    )


def test_roster_collection_finds_nested_transport():
    """The Rhino nested as a Dedicated Transport in ravenguard is seen (guards the collector itself)."""
    path = ROSTERS / "ravenguard.rosz"
    if not path.is_file():
        pytest.skip(f"{path} missing")
    try:
        from defusedxml import ElementTree as SafeET
    except ImportError:
        pytest.skip("defusedxml is not installed")
    with zipfile.ZipFile(path) as z:
        root = SafeET.fromstring(z.read([n for n in z.namelist() if n.endswith(".ros")][0]))
    names = _roster_model_names(root)
    assert "Rhino Armoured Carrier, Legion" in names
    assert "Praetor, Legion" in names
    assert "Achilles-Alpha Pattern Land Raider" in names
    assert "Predator Tank, Legion" in names
    assert "Predator Strike Armoured Squadron, Legion" not in names  # a squadron, not a miniature


def test_roster_collection_finds_single_model_units():
    path = ROSTERS / "chogorian-brotherhood.rosz"
    if not path.is_file():
        pytest.skip(f"{path} missing")
    try:
        from defusedxml import ElementTree as SafeET
    except ImportError:
        pytest.skip("defusedxml is not installed")
    with zipfile.ZipFile(path) as z:
        root = SafeET.fromstring(z.read([n for n in z.namelist() if n.endswith(".ros")][0]))
    names = _roster_model_names(root)
    for n in ["Centurion", "Qin Xa", "Tsolmon Khan", "Techmarine, Legion", "Servo-automata"]:
        assert n in names, n
    assert "Techmarine Covenant" not in names


def _cli_check_with_models(models: Path) -> tuple[int, str]:
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PLANNER_MODELS": str(models), "PYTHONPATH": str(root)}
    res = subprocess.run([sys.executable, "-m", "planner", "check",
                          str(root / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml")],
                         capture_output=True, text=True, env=env, cwd=root, timeout=120)
    return res.returncode, " ".join(res.stderr.split())


@pytest.mark.parametrize(("name", "make", "words"), [
    ("adir.yaml", lambda p: p.mkdir(), "is a folder, not a catalogue file"),
    ("scen.yaml", lambda p: p.write_text("ruleset: hh2\narmies: []\n"), "field system: Field required"),
    ("neg.yaml", lambda p: p.write_text("system: hh2\nentries: [{id: x, name: y, base: {diameter_mm: -3}, "
                                        "type: infantry}]\n"), "field entries[0].base.diameter_mm: Input should be"),
    ("broken.yaml", lambda p: p.write_text("system: [hh2\n"), "malformed YAML"),
])
def test_a_bad_file_in_the_planner_models_folder_is_called_a_catalogue_file(tmp_path: Path, name, make, words):
    """Not a scenario error: the message says it is a catalogue file, named by PLANNER_MODELS (exit 2)."""
    models = tmp_path / "models"
    models.mkdir()
    make(models / name)
    code, err = _cli_check_with_models(models)
    assert code == 2, err
    assert f"error: {models / name}: " in err and words in err
    assert ("read as a models catalogue file because the environment variable PLANNER_MODELS names its folder "
            f"{models}") in err
    assert "scenario file" not in err and "Traceback" not in err


def test_a_bad_catalogue_file_without_the_variable_is_still_called_a_catalogue_file(tmp_path: Path):
    from planner.errors import ScenarioError
    from planner.io.catalogue import _load

    (tmp_path / "x.yaml").write_text("ruleset: hh2\n")
    with pytest.raises(ScenarioError) as err:
        _load(str(tmp_path), "hh2")
    assert err.value.file == str(tmp_path / "x.yaml") and err.value.location == "system"
    assert str(err.value).endswith(f"; read as a models catalogue file of the folder {tmp_path}")
