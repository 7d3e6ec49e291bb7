"""Public test helpers (in the spirit of ``shapely.testing``)."""

from __future__ import annotations

from planner.legality.checker import check_deployment
from planner.solve.planner import PlanResult
from planner.world import resolve


def assert_plan_legal(result: PlanResult) -> None:
    """Assert that a plan the solver returned passes the independent checker.

    Re-resolves the planned scenario from scratch (so nothing the planner cached is trusted) and
    runs :func:`planner.legality.checker.check_deployment` on it.

    Raises
    ------
    AssertionError
        If the result has no scenario, or the checker finds a violation (listed in the message).
    """
    assert result.scenario is not None, f"no plan to check (status {result.status}: {result.message})"
    report = check_deployment(resolve(result.scenario, require_positions=True))
    assert report.legal, "planned deployment is illegal:\n" + "\n".join(
        f"  [{v.rule}] {v.unit}: {v.message}" for v in report.violations
    )
