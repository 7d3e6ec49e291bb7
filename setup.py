"""The one build step pyproject.toml cannot say: the wheel carries the top-level ``models/``
catalogue as package data ``planner/_models/`` (git keeps one copy, at the top level), where
:func:`planner.io.catalogue.catalogue_dir` finds it with :mod:`importlib.resources`.

An editable install copies nothing: it reads ``models/`` from the source tree.
"""

from __future__ import annotations

import os
import shutil

from setuptools import setup
from setuptools.command.build_py import build_py

MODELS_SRC = "models"
MODELS_PKG = os.path.join("planner", "_models")
MODEL_FILES = (".yaml", ".yml", ".md")


class BuildPyWithModels(build_py):
    """``build_py`` that also copies ``models/**/*.yaml|.yml|.md`` to ``<build_lib>/planner/_models/``."""

    def _model_files(self) -> list[tuple[str, str]]:
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), MODELS_SRC)
        if not os.path.isdir(root):
            raise SystemExit(f"setup.py: the catalogue folder {root} is missing; the wheel would have no models")
        pairs = []
        for folder, dirs, files in os.walk(root):
            dirs.sort()
            for name in sorted(files):
                if name.endswith(MODEL_FILES):
                    src = os.path.join(folder, name)
                    pairs.append((src, os.path.join(self.build_lib, MODELS_PKG, os.path.relpath(src, root))))
        return pairs

    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False):
            return
        for src, dst in self._model_files():
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(src, dst)

    def get_outputs(self, include_bytecode: bool = True) -> list[str]:
        outputs = list(super().get_outputs(include_bytecode))
        if not getattr(self, "editable_mode", False):
            outputs += [dst for _, dst in self._model_files()]
        return outputs


setup(cmdclass={"build_py": BuildPyWithModels})
