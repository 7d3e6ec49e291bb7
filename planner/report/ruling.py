"""The content of a ruling, shared by the Markdown and HTML reports: words, not markup.

A ruling reads like a judge's: the verdict, the violations, then per unit how it was set up and
each rule with its measured value, requirement, margin and evidence, and finally the rules
applied with their meaning and source (from the ruleset module).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from planner.legality.report import Evidence, Finding, LegalityReport, UnitReport, decimals
from planner.units import TOLERANCE_IN

if TYPE_CHECKING:
    from planner.solve.planner import GoalValue


def fmt_number(v: float) -> str:
    """A measured value, 3 decimals, or 6 where 3 would hide what the verdict sees
    (:func:`planner.legality.report.decimals`: an overlap of 0.00001" is not printed as -0.000)."""
    return f"{v:.{decimals(v)}f}"


def fmt_inches(v: float | None) -> str:
    """A distance in inches, as :func:`fmt_number` ('' for None; -0.000 shown as 0.000)."""
    if v is None:
        return ""
    if abs(v) <= TOLERANCE_IN:
        v = 0.0
    return fmt_number(v) + '"'


def fmt_margin(v: float | None, failing: bool = False) -> str:
    """A margin in inches, signed, 3 decimals ('' for None). A margin of zero that fails (exactly
    9.000" is not *more than* 9"), or one that fails by less than the tolerance (9.0000005" is not
    more than 9": margin +0.0000005"), reads as failing, ``0.000" (fails)``, never with a '+'."""
    if v is None:
        return ""
    if abs(v) <= TOLERANCE_IN or (failing and v > 0):  # a failing margin never reads as room to spare
        return '0.000" (fails)' if failing else '+0.000"'
    if abs(v) < 5e-4:  # more than the tolerance, less than 3 decimals show
        return f'{v:+.6f}"' + (" (fails)" if failing else "")
    return f'{v:+.3f}"'


def fmt_measured(f: Finding) -> str:
    """The measured value with its unit: models for capacity rules, inches otherwise."""
    if f.measured is None:
        return ""
    if "capacity" in f.rule:
        return f"{f.measured:g} models"
    return fmt_inches(f.measured)


def fmt_margin_of(f: Finding) -> str:
    if f.margin is None:
        return ""
    if "capacity" in f.rule:
        return f"{f.margin:+g} models" + (" (fails)" if not f.passed and f.margin == 0 else "")
    return fmt_margin(f.margin, failing=not f.passed)


def term_text(gv: GoalValue) -> str:
    """One goal term in words, for the plan's text and its ruling: ``term near-point: 12.500 (value
    12.500" x weight 1)`` (inches as ``"``, other measures named: ``3 units``, ``2.100 models``)."""
    value = f'{gv.value:.3f}"' if gv.measure == "in" else f"{gv.value:.3f} {gv.measure}"
    return f"term {gv.name}: {gv.cost:.3f} (value {value} x weight {gv.weight:g})"

def evidence_text(ev: Evidence) -> str:
    """The evidence of a finding in one sentence (empty if there is none)."""
    parts: list[str] = []
    if ev.model:
        parts.append(f"measured model {ev.model}")
    if ev.nearest_enemy_unit:
        who = ev.nearest_enemy_unit + (f"/{ev.nearest_enemy_model}" if ev.nearest_enemy_model else "")
        parts.append(f"nearest enemy {who}")
    if ev.other_model:
        parts.append(f"other side: {ev.other_model}")
    if ev.terrain_feature:
        parts.append(f"terrain {ev.terrain_feature}")
    if ev.observer_units:
        parts.append(f"checked line of sight from {len(ev.observer_units)} enemy unit(s): "
                     + ", ".join(ev.observer_units))
    if ev.seen_by:
        parts.append(f"seen by {ev.seen_by}")
    if ev.sight_line:
        (x0, y0), (x1, y1) = ev.sight_line[0], ev.sight_line[-1]
        parts.append(f"clear line ({x0:.2f}, {y0:.2f}) to ({x1:.2f}, {y1:.2f})"
                     + "".join(f", passing over {sp.feature}{' ' + sp.piece if sp.piece else ''} (top {sp.top_in:g}\")"
                               f" at {sp.line_in:.2f}\"" for sp in ev.sight_passes
                               if not sp.blocks and sp.top_in is not None))
    if ev.blocking_features:
        parts.append("sight blocked by " + ", ".join(ev.blocking_features))
    if ev.note:
        parts.append(f"note: {ev.note}")
    return "; ".join(parts)


@dataclass
class RuleRow:
    """One row of a unit's table."""

    rule: str
    verdict: str
    model: str
    measured: str
    required: str
    margin: str
    finding: str
    evidence: str
    passed: bool


@dataclass
class UnitRuling:
    unit: str
    name: str
    player: str
    setup: str
    legal: bool
    summary: str
    rows: list[RuleRow] = field(default_factory=list)


@dataclass
class Ruling:
    """Everything a ruling says, as plain text pieces."""

    title: str
    ruleset: str
    legal: bool
    verdict: str
    violations: list[str]
    units: list[UnitRuling]
    rules: list[tuple[str, str, str]]
    """(rule id, meaning, source) of every rule that appears in the findings."""
    rulings: list[tuple[str, str, str, str]] = field(default_factory=list)
    cover: list[tuple[str, str, str, str, str]] | None = None
    """check --cover: (unit, model, against, yes/no, why) per model and enemy unit."""
    """(ruling key, reading applied and whether it is the default, meaning, sources) of every ruling applied."""


def unit_summary(u: UnitReport) -> str:
    if u.to_place:
        return "to place: marked place: true with no positions yet, not checked"
    if u.legal:
        tight = (f"; tightest margin {fmt_margin(u.tightest_margin, failing=not u.legal)} on {u.tightest_rule}"
                 if u.tightest_margin is not None and u.tightest_rule else "")
        return f"legal: {len(u.findings)} rule(s) checked, all passed{tight}"
    failed = [f for f in u.findings if not f.passed]
    return f"ILLEGAL: breaks {len(failed)} of {len(u.findings)} rule(s): " + ", ".join(sorted({f.rule for f in failed}))


def build_ruling(report: LegalityReport, title: str | None = None) -> Ruling:
    """The ruling of a legality report (rule meanings and sources from ``planner rules``)."""
    from planner.errors import UnknownRulesetError
    from planner.rules.registry import find_ruleset

    try:
        known = {r.id: r for r in find_ruleset(report.ruleset).rules}
    except UnknownRulesetError:  # an unknown ruleset still gets a ruling, without meanings
        known = {}
    units: list[UnitRuling] = []
    used: list[str] = []
    for u in report.units:
        rows = []
        for f in u.findings:
            if f.rule not in used:
                used.append(f.rule)
            rows.append(RuleRow(f.rule, "passed" if f.passed else "BROKEN", f.model or "", fmt_measured(f), f.required,
                                fmt_margin_of(f), f.message, evidence_text(f.evidence), f.passed))
        units.append(UnitRuling(u.unit, u.name, u.player, u.setup, u.legal, unit_summary(u), rows))
    violations = []
    for v in report.violations:
        where = f"{v.unit}" + (f" model {v.model}" if v.model else "")
        meas = f" (measured {fmt_number(v.measured)}; required: {v.required})" if v.measured is not None else \
            f" (required: {v.required})"
        violations.append(f"{where}: {v.message}{meas} [{v.rule}]")
    n = len(report.violations)
    waiting = sum(u.to_place for u in report.units)
    verdict = (f"LEGAL SO FAR: every rule checked passed; {waiting} unit{'s' if waiting != 1 else ''} still to place, "
               "not checked." if report.legal and waiting else
               "NO UNITS TO CHECK: the scenario has no units, so no rule was checked." if report.legal and
               not report.units else
               "LEGAL: every rule checked for every unit passed." if report.legal else
               f"ILLEGAL: {n} violation{'s' if n != 1 else ''}.")
    rules = [(r, known[r].meaning if r in known else "", known[r].source if r in known else "") for r in used]
    rulings = [(r.key, f"{r.value} ({'default' if r.default else 'chosen'})", r.meaning, r.sources)
               for r in report.rulings]
    cover = None if report.cover is None else [(c.unit, c.model, c.against, "yes" if c.cover else "no", c.reason)
                                                for c in report.cover]
    return Ruling(title or f"Deployment ruling: {report.scenario or 'scenario'}", report.ruleset, report.legal,
                  verdict, violations, units, rules, rulings, cover)


def status_words(result) -> str:
    """The status of a plan as the reports word it: the solver's status, except that a plan the
    independent checker finds illegal is never called optimal or feasible."""
    if result.legal is False and result.status in ("optimal", "feasible"):
        n = len(result.legality.violations) if result.legality is not None else 0
        return (f"ILLEGAL ({n} violation{'s' if n != 1 else ''} found by the independent checker; the solver's "
                f"own status over its candidates: {result.status})")
    return result.status


def plan_json(result, exclude: set[str]) -> dict:
    """A plan's JSON report (``result.model_dump``, without the fields in ``exclude``) with the
    status said as :func:`status_words` says it: ``"illegal"`` for a plan the independent checker
    refuses, never ``optimal`` or ``feasible``; ``solver_status`` is always the solver's own."""
    data = result.model_dump(mode="json", exclude=exclude)
    data["solver_status"] = result.status
    if result.legal is False and result.status in ("optimal", "feasible"):
        data["status"] = "illegal"
    return data


def plan_lines(result) -> list[str]:
    """The solver's account of a plan (status, objective, bound, gap, time, each goal term, and
    the conflicts of an infeasibility proof, or of a proof over the grid only), one statement a line."""
    illegal = result.legal is False and result.status in ("optimal", "feasible")
    # an illegal plan's solver message is the solver's claim over its candidates, said as such
    lines = [f"Solver status: {status_words(result)} - " + (f"the solver's account: {result.message}" if illegal
                                                              else result.message)]
    if result.objective is not None:
        bound = (f"best bound {result.best_bound:.3f}, gap {result.gap:.2%}" if result.best_bound is not None
                 and result.gap is not None else "no bound")
        lines.append(f"Objective: {result.objective:.3f} ({bound}); wall time {result.wall_time_s:.2f} s")
        for gv in result.goals:
            t = term_text(gv)
            lines.append(t[0].upper() + t[1:])
    else:
        lines.append(f"Wall time {result.wall_time_s:.2f} s")
    for c in result.conflicts:
        lines.append(f"Conflict [{', '.join(c.rules)}]: {c.message}")
    return lines


PLACEMENT_HEADERS = ("unit", "formation", "anchor (in)", "cost (weighted goals)", "nearest enemy", "candidates")


def placement_rows(result) -> list[tuple[str, ...]]:
    return [(p.unit, p.formation, f"({p.anchor[0]:g}, {p.anchor[1]:g})", f"{p.cost:.2f}",
             "" if p.nearest_enemy is None else f"{p.nearest_enemy:.3f}\"", str(p.candidates))
            for p in result.placements]
