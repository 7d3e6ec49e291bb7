"""deployment-planner: check and optimise army deployments in Warhammer-family wargames.

The public API (see the README's "As a library"); each name is imported on first use, so that
``import planner`` stays cheap (the solver and the drawing libraries load only when needed):

- :func:`load_scenario` (a file) / :func:`resolve` (a :class:`Scenario` record) -> :class:`World`
- :func:`check_deployment` (World) -> :class:`LegalityReport` (``legal``, ``violations``, ``units``)
- :func:`plan_deployment` (World, :class:`SolverSettings`) -> :class:`PlanResult`
- :func:`suggest_moves` (World) -> :class:`SuggestReport`: the least total move making each illegal unit legal
- :func:`find_threats` (World, enemy unit id, :func:`threat_goal`) -> the enemy's legal area and best arrival
- :func:`deep_strike_odds` (World, unit id, aim x, y) -> exact Deep Strike odds (wh40k10/wh40k11: a
  legal/not-legal arrival check, 0 or 1, its ``triggers`` keyed by the rule ids ``planner check`` reports)
- :func:`render_file` / :func:`render_bytes` (World, :class:`RenderOptions`) -> an SVG or PNG picture
- :func:`import_roster` (a BattleScribe/New Recruit file; for wh40k10/wh40k11 also a GW app, New Recruit,
  ListForge or Rosterizer list) -> an army and its warnings
- :func:`import_tts` (a Tabletop Simulator save, ruleset) -> the scenario, warnings, objects not matched;
  :func:`export_tts` (:class:`Scenario`) -> a save (plain data, to write as JSON)
- :func:`find_ruleset` (id) -> the ruleset: its rule ids, meanings and sources
- :func:`dump_scenario`: write a scenario (e.g. a plan's ``scenario_data``) as YAML or JSON
- :class:`PlannerError`, :class:`ScenarioError`: the errors raised on purpose (``exit_code``)
"""

from __future__ import annotations

TYPE_CHECKING = False  # not typing's: ``import planner`` (the command line's first import) stays fast

__version__ = "0.1.0"

# public name -> (module, attribute)
_EXPORTS: dict[str, tuple[str, str]] = {
    "load_scenario": ("planner.world", "load_scenario"),
    "resolve": ("planner.world", "resolve"),
    "World": ("planner.world", "World"),
    "Scenario": ("planner.schema", "Scenario"),
    "check_deployment": ("planner.legality.checker", "check_deployment"),
    "LegalityReport": ("planner.legality.report", "LegalityReport"),
    "plan_deployment": ("planner.solve.planner", "plan_deployment"),
    "SolverSettings": ("planner.solve.planner", "SolverSettings"),
    "PlanResult": ("planner.solve.planner", "PlanResult"),
    "suggest_moves": ("planner.solve.suggest", "suggest_moves"),
    "SuggestReport": ("planner.solve.suggest", "SuggestReport"),
    "find_threats": ("planner.adversary.threats", "find_threats"),
    "threat_goal": ("planner.adversary.threats", "parse_goal"),
    "deep_strike_odds": ("planner.deepstrike", "deep_strike_odds"),
    "render_file": ("planner.render", "render_file"),
    "render_bytes": ("planner.render", "render_bytes"),
    "RenderOptions": ("planner.render", "RenderOptions"),
    "import_roster": ("planner.io.roster", "import_roster"),
    "import_tts": ("planner.io.tts", "import_tts"),
    "export_tts": ("planner.io.tts", "scenario_to_tts"),
    "find_ruleset": ("planner.rules.registry", "find_ruleset"),
    "dump_scenario": ("planner.io.files", "dump_scenario"),
    "PlannerError": ("planner.errors", "PlannerError"),
    "ScenarioError": ("planner.errors", "ScenarioError"),
}

__all__ = [
    "__version__",
    "load_scenario", "resolve", "World", "Scenario",
    "check_deployment", "LegalityReport",
    "plan_deployment", "SolverSettings", "PlanResult", "suggest_moves", "SuggestReport",
    "find_threats", "threat_goal", "deep_strike_odds",
    "render_file", "render_bytes", "RenderOptions",
    "import_roster", "import_tts", "export_tts", "find_ruleset", "dump_scenario",
    "PlannerError", "ScenarioError",
]

if TYPE_CHECKING:
    from typing import Any

    from planner.adversary.threats import find_threats
    from planner.adversary.threats import parse_goal as threat_goal
    from planner.deepstrike import deep_strike_odds
    from planner.errors import PlannerError, ScenarioError
    from planner.io.files import dump_scenario
    from planner.io.roster import import_roster
    from planner.io.tts import import_tts
    from planner.io.tts import scenario_to_tts as export_tts
    from planner.legality.checker import check_deployment
    from planner.legality.report import LegalityReport
    from planner.render import RenderOptions, render_bytes, render_file
    from planner.rules.registry import find_ruleset
    from planner.schema import Scenario
    from planner.solve.planner import PlanResult, SolverSettings, plan_deployment
    from planner.solve.suggest import SuggestReport, suggest_moves
    from planner.world import World, load_scenario, resolve


def __getattr__(name: str) -> Any:
    try:
        module, attr = _EXPORTS[name]
    except KeyError:
        raise AttributeError(f"module 'planner' has no attribute {name!r}") from None
    import importlib

    value = getattr(importlib.import_module(module), attr)
    globals()[name] = value  # later look-ups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted([*globals(), *_EXPORTS])
