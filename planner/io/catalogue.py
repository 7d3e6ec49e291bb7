"""The ``models/`` catalogue of miniatures: base sizes, unit types and special rules per game system.

Files are YAML records of :class:`planner.schema.Catalogue`, one or more per game system. The
folder is, in this order: the one the environment variable ``PLANNER_MODELS`` names; the package
data ``planner/_models/`` of an installed wheel (built from the top-level ``models/`` by
``setup.py``, found with :mod:`importlib.resources`); the top-level ``models/`` of a source checkout
or editable install. None of them is a :class:`~planner.errors.ScenarioError` (exit 2) naming where
it looked.
"""

from __future__ import annotations

import os
from functools import lru_cache
from importlib import resources
from pathlib import Path

from planner.errors import ScenarioError
from planner.io.files import load_catalogue_file
from planner.schema import CatalogueEntry

ENV_VAR = "PLANNER_MODELS"


def _package_data_dir() -> Path | None:
    """``planner/_models/`` of an installed wheel, if there is one on the file system."""
    res = resources.files("planner").joinpath("_models")
    return res if isinstance(res, Path) and res.is_dir() else None


def _source_dir() -> Path:
    """The top-level ``models/`` of a source checkout (or editable install)."""
    return Path(__file__).resolve().parents[2] / "models"


def catalogue_dir() -> Path:
    """The folder holding the catalogue files (see the module docstring for the order).

    Raises
    ------
    ScenarioError
        ``PLANNER_MODELS`` names no folder, or (without it) neither the package data nor a source
        checkout has the catalogue; the message names every place looked at.
    """
    env = os.environ.get(ENV_VAR)
    if env:
        if not Path(env).is_dir():
            raise ScenarioError(f"no models catalogue: the folder named by the environment variable {ENV_VAR} "
                                "does not exist", value=env)
        return Path(env)
    packaged = _package_data_dir()
    if packaged is not None:
        return packaged
    source = _source_dir()
    if source.is_dir():
        return source
    pkg = Path(str(resources.files("planner"))) / "_models"
    raise ScenarioError(f"no models catalogue: looked in the package data {pkg} and the source checkout {source}; "
                        f"reinstall the package or set {ENV_VAR} to the models/ folder")


def _norm(name: str) -> str:
    return " ".join(name.lower().replace(",", " ").split())


class ModelCatalogue:
    """All catalogue entries of one game system, looked up by id or by (alias) name."""

    def __init__(self, system: str, entries: list[CatalogueEntry]):
        self.system = system
        self.by_id: dict[str, CatalogueEntry] = {}
        self.by_name: dict[str, CatalogueEntry] = {}
        for e in entries:
            self.by_id[e.id] = e
            for n in [e.name, *e.aliases]:
                self.by_name.setdefault(_norm(n), e)

    def get(self, ref: str) -> CatalogueEntry | None:
        """The entry with id ``ref``, else the entry whose name or alias is ``ref`` (case-insensitive)."""
        return self.by_id.get(ref) or self.by_name.get(_norm(ref))

    def __len__(self) -> int:
        return len(self.by_id)


@lru_cache(maxsize=8)
def _load(folder: str, system: str) -> ModelCatalogue:
    entries: list[CatalogueEntry] = []
    seen: dict[str, str] = {}
    root = Path(folder)
    files = sorted(root.glob("**/*.yaml")) + sorted(root.glob("**/*.yml")) if root.is_dir() else []
    if not files:
        raise ScenarioError("no models catalogue: no catalogue files (*.yaml, *.yml) in the folder", file=folder)
    for f in files:
        cat = load_catalogue_file(f)
        if cat.system != system and system not in cat.also:
            continue
        for i, e in enumerate(cat.entries):
            if e.id in seen:
                raise ScenarioError(
                    f"duplicate catalogue id (also in {seen[e.id]})", file=str(f), location=f"entries[{i}].id", value=e.id
                )
            seen[e.id] = str(f)
            entries.append(e)
    return ModelCatalogue(system, entries)


def load_catalogue(system: str) -> ModelCatalogue:
    """Load every catalogue entry of game system ``system`` (e.g. ``'hh2'``).

    Raises
    ------
    ScenarioError
        If there is no catalogue folder (:func:`catalogue_dir`) or it holds no catalogue file, a
        catalogue file does not validate, or two entries share an id.
    """
    return _load(str(catalogue_dir()), system)
