"""check_deployment: the independent legality checker (float-exact; the judge of every plan)."""

from __future__ import annotations

from planner.errors import UnknownRulesetError
from planner.legality.report import (
    Finding,
    LegalityReport,
    UnitReport,
    Violation,
    applied_rulings,
    make_unit_report,
)
from planner.rules.registry import all_rulesets
from planner.world import World


def deployment_findings(world: World) -> dict[str, list[Finding]]:
    """Every finding of the scenario's ruleset checks, by unit id: what :func:`check_deployment`
    reports (its verdict is :func:`failed_findings` of these).

    Raises
    ------
    UnknownRulesetError
        If the scenario's ruleset has no checker.
    """
    rs = world.ruleset
    if not rs.HAS_DEPLOYMENT_CHECKER:
        checkers = ", ".join(r.id for r in all_rulesets() if r.HAS_DEPLOYMENT_CHECKER)
        raise UnknownRulesetError(
            f"ruleset {rs.id!r} has no deployment checker yet (checkers: {checkers}); "
            "for this ruleset use 'planner deepstrike' and 'planner rules'",
            file=world.file, location="ruleset", value=world.scenario.ruleset)
    return rs.run_checks(world)


def failed_findings(world: World, findings: dict[str, list[Finding]]) -> list[Finding]:
    """The failed findings of ``world``'s units, unit by unit in the scenario's order: one for
    each violation of the report (the deployment is legal when there is none)."""
    return [f for u in world.units.values() for f in findings.get(u.id, []) if not f.passed]


def check_deployment(world: World, *, cover: bool = False) -> LegalityReport:
    """Check every unit of a resolved scenario against its ruleset; with ``cover``, also report
    per model the benefit of cover against each enemy unit (:meth:`planner.rules.base.Ruleset.cover_report`;
    not part of the verdict).

    Never raises for an illegal deployment: the verdict is the report, with
    ``report.legal == (not report.violations)``.

    Raises
    ------
    UnknownRulesetError
        If the scenario's ruleset has no checker (or, with ``cover``, no benefit-of-cover rule).
    """
    findings = deployment_findings(world)
    rs = world.ruleset
    units: list[UnitReport] = []
    violations: list[Violation] = []
    for u in world.units.values():
        fs = findings.get(u.id, [])
        failed = [f for f in fs if not f.passed]
        if failed:
            # an illegal unit is summed up by what it breaks: the worst failing margin, or the
            # first rule broken when that rule has no measure (e.g. line of sight)
            margins = [(f.margin, f.rule) for f in failed if f.margin is not None]
            tight = min(margins) if margins else (None, failed[0].rule)
        else:
            margins = [(f.margin, f.rule) for f in fs if f.margin is not None]
            tight = min(margins) if margins else (None, None)
        label = rs.setup_label(u)
        units.append(make_unit_report(u.id, u.label, u.player, label, all(f.passed for f in fs), tight[0], tight[1],
                                      fs, bool(u.record.place and u.on_battlefield and not u.is_positioned)))
    for f in failed_findings(world, findings):
        violations.append(Violation(rule=f.rule, unit=f.unit, model=f.model, measured=f.measured,
                                    required=f.required, margin=f.margin, message=f.message,
                                    failing_models=list(f.failing_models),
                                    failing_details=list(f.failing_details)))
    return LegalityReport(ruleset=rs.id, scenario=world.file, legal=not violations, violations=violations,
                          units=units, rulings=applied_rulings(world),
                          cover=rs.cover_report(world) if cover else None)
