"""Regenerate the golden reports: ``python tests/regen_golden.py``; review the diff before committing."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.test_golden import GOLDEN, render  # noqa: E402

if __name__ == "__main__":
    for scenario, golden in GOLDEN.items():
        golden.write_text(render(scenario), encoding="utf-8")
        print(f"wrote {golden.relative_to(ROOT)}")
