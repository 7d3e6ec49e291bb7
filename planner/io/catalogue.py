"""The ``models/`` catalogue of miniatures: base sizes, unit types and special rules per game system.

Files are YAML records of :class:`planner.schema.Catalogue`, one or more per game system. The
folder is found next to the package (a source checkout or editable install); the environment
variable ``PLANNER_MODELS`` names another folder.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

from planner.errors import ScenarioError
from planner.io.files import load_catalogue_file
from planner.schema import CatalogueEntry


def catalogue_dir() -> Path:
    """The folder holding the catalogue files."""
    env = os.environ.get("PLANNER_MODELS")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "models"


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
        If a catalogue file does not validate or two entries share an id.
    """
    return _load(str(catalogue_dir()), system)
