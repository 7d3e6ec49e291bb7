"""Golden reports: the full explained check of bundled scenarios, compared line by line.

Regenerate with ``python tests/regen_golden.py`` after an intended change, and review the diff.
"""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from planner.legality.checker import check_deployment
from planner.report.text import print_check_report
from planner.world import load_scenario

ROOT = Path(__file__).resolve().parents[1]
GOLDEN = {
    ROOT / "scenarios" / "short-edge-chogorian-vs-berserkers.yaml": ROOT / "tests" / "golden" / "short-edge.txt",
    ROOT / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml": ROOT / "tests" / "golden" / "long-edge.txt",
}


def render(scenario: Path) -> str:
    """The verbose text report, as `planner check -v` prints it to a file."""
    world = load_scenario(scenario, require_positions=True)
    report = check_deployment(world)
    report.scenario = scenario.name
    console = Console(record=True, width=140, file=open("/dev/null", "w"), color_system=None)  # noqa: SIM115
    print_check_report(report, console, verbose=True)
    return console.export_text()


def test_golden_reports():
    for scenario, golden in GOLDEN.items():
        expected = golden.read_text(encoding="utf-8").splitlines()
        actual = render(scenario).splitlines()
        assert actual == expected, f"{golden.name} differs: run python tests/regen_golden.py and review the diff"
