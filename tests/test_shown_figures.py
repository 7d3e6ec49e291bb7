"""The figures a report shows never contradict its verdict: a failing margin never reads as room to
spare, a strict pass close to the limit shows the digits that make it a pass (9.000002", not 9.000"),
and ordinary values keep 3 decimals. No internal issue numbers in what users read (help, schema, rules)."""

from __future__ import annotations

import pytest
import typer.main
from typer.testing import CliRunner

from planner.cli import app
from planner.geometry.measure import is_more_than_distance, is_within_distance
from planner.legality.report import Finding, inches
from planner.report.ruling import fmt_inches, fmt_margin, fmt_margin_of, fmt_measured, fmt_number
from planner.units import TOLERANCE_IN


def _more_than_9(measured: float) -> Finding:
    return Finding(rule="wh40k10.infiltrators.distance", passed=is_more_than_distance(measured, 9.0), unit="u",
                   measured=measured, required='more than 9"', margin=measured - 9.0, message=f"is {inches(measured)}")


def _within_2(measured: float) -> Finding:
    return Finding(rule="wh40k10.coherency", passed=is_within_distance(measured, 2.0), unit="u",
                   measured=measured, required='within 2"', margin=2.0 - measured, message=f"is {inches(measured)}")


@pytest.mark.parametrize("measured", [9.0, 9.0 + TOLERANCE_IN / 2, 9.0 + TOLERANCE_IN, 9.0 - TOLERANCE_IN / 2,
                                      9.0 + 2 * TOLERANCE_IN, 9.000002, 9.0004, 9.0006, 8.9996, 9.5])
def test_more_than_9_shown_margin_and_measure_agree_with_the_verdict(measured):
    f = _more_than_9(measured)
    margin = fmt_margin_of(f)
    if f.passed:
        assert margin.startswith("+") and "fails" not in margin, (measured, margin)
        assert float(fmt_measured(f).rstrip('"')) > 9.0, (measured, fmt_measured(f))  # reads as more than 9"
        assert float(inches(measured).rstrip('"')) > 9.0
    else:
        assert not margin.startswith("+") and margin.endswith("(fails)"), (measured, margin)
        assert float(margin.split('"')[0]) <= 0.0
        assert float(fmt_measured(f).rstrip('"')) <= 9.0 + TOLERANCE_IN, (measured, fmt_measured(f))


@pytest.mark.parametrize("measured", [2.0, 2.0 + TOLERANCE_IN / 2, 2.0 + 2 * TOLERANCE_IN, 2.000002, 2.0004, 1.9999])
def test_within_2_shown_margin_and_measure_agree_with_the_verdict(measured):
    f = _within_2(measured)
    margin = fmt_margin_of(f)
    if f.passed:
        assert margin.startswith("+") and "fails" not in margin, (measured, margin)
        assert float(fmt_measured(f).rstrip('"')) <= 2.0 + TOLERANCE_IN
    else:
        assert margin.startswith("-") and margin.endswith("(fails)"), (measured, margin)
        assert float(fmt_measured(f).rstrip('"')) > 2.0, (measured, fmt_measured(f))


def test_the_figures_themselves():
    assert fmt_margin(TOLERANCE_IN / 2, failing=True) == '0.000" (fails)'  # was '+0.000"' style room to spare
    assert fmt_margin(2e-6, failing=True) == '0.000" (fails)'  # never a '+' on a failing margin
    assert fmt_margin(2e-6) == '+0.000002"'
    assert fmt_margin(-2e-6, failing=True) == '-0.000002" (fails)'
    assert inches(9.000002) == '9.000002"' and fmt_inches(9.000002) == '9.000002"'
    assert inches(8.999998) == '8.999998"'
    assert inches(9.0000005) == '9.000"'  # within the tolerance: exactly 9" for the verdict too
    assert inches(9.1234) == '9.123"' and inches(0.125197) == '0.125"'  # ordinary values: 3 decimals
    assert fmt_number(12.0004) == "12.000400" and fmt_number(12.0006) == "12.001"
    assert inches(1e-5) == '0.000010"' and fmt_inches(-5e-7) == '0.000"'


def test_no_internal_issue_numbers_in_help_schema_or_rules():
    runner = CliRunner()
    commands = list(typer.main.get_command(app).commands)  # type: ignore[attr-defined]
    outputs = [runner.invoke(app, [c, "--help"]).output for c in commands]
    outputs.append(runner.invoke(app, ["--help"]).output)
    for what in ("scenario", "report", "plan", "catalogue"):
        outputs.append(runner.invoke(app, ["schema", what]).output)
    for rs in ("hh2", "wh40k5", "wh40k7", "wh40k10", "wh40k11"):
        outputs.append(runner.invoke(app, ["rules", "--ruleset", rs]).output)
        outputs.append(runner.invoke(app, ["rules", "--ruleset", rs, "--rulings"]).output)
    assert "shoot" in commands and len(outputs) > 30
    for out in outputs:
        assert "issue" not in out.lower(), out[:2000]
