"""``planner import-tts`` and ``planner export-tts``: Tabletop Simulator saves (:mod:`planner.io.tts`)."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.markup import escape


def run_import(save_file: str, ruleset: str, map_id: str | None, out: str | None, json_to_stdout: bool,
               console: Console) -> tuple[dict[str, Any], int]:
    """Import a TTS save into a scenario; write it to ``out`` (YAML or JSON) or print the YAML.

    Returns the JSON report and the exit code (0). Every object not read is listed as a warning.

    Raises
    ------
    ScenarioError
        The save cannot be read, or the scenario it gives does not load (exit 2).
    """
    from planner.io.files import dump_data
    from planner.io.tts import compact_scenario_data, import_tts

    imp = import_tts(save_file, ruleset, map_id)
    data = compact_scenario_data(imp.scenario)  # only what differs from the defaults, goal kinds kept
    for w in imp.warnings:
        console.print(f"[yellow]warning:[/yellow] {escape(w)}")
    for u in imp.unmatched:
        console.print(f"[yellow]not matched:[/yellow] {escape(u['object'])} {escape(repr(u['name']))}: "
                      f"{escape(u['reason'])}")
    n_units = sum(len(a.units) for a in imp.scenario.armies)
    n_models = sum(len(u.models) for a in imp.scenario.armies for u in a.units)
    summary = (f"Imported {n_units} unit{'' if n_units == 1 else 's'} ({n_models} model{'' if n_models == 1 else 's'}), "
               f"{len(imp.scenario.terrain)} terrain features, "
               f"{len(imp.scenario.deployment_zones)} deployment zones from {save_file}; "
               f"{len(imp.unmatched)} objects not matched")
    if out is not None:
        dump_data(data, out, what="scenario")
        console.print(f"{escape(summary)}; wrote {escape(out)}")
    elif not json_to_stdout:
        dump_data(data, "-", what="scenario")
        console.print(escape(summary))
    else:
        console.print(escape(summary))
    report = {"file": save_file, "ruleset": imp.scenario.ruleset, "map": map_id, "units": n_units,
              "models": n_models, "terrain": len(imp.scenario.terrain),
              "deployment_zones": len(imp.scenario.deployment_zones), "warnings": imp.warnings,
              "unmatched": imp.unmatched, "scenario": data}
    return report, 0


def run_export(plan_file: str, out: str, console: Console) -> tuple[dict[str, Any], int]:
    """Write a TTS save that spawns the deployment of scenario (or plan) ``plan_file`` to ``out``.

    Raises
    ------
    ScenarioError
        The scenario does not load, or ``out`` cannot be written (it is never an input).
    """
    from planner.cli.commands import say_battlefield_default
    from planner.io.outputs import write_output
    from planner.io.tts import scenario_to_tts
    from planner.world import load_scenario

    world = load_scenario(plan_file)
    say_battlefield_default(world)
    save = scenario_to_tts(world.scenario, source=plan_file)
    write_output(out, json.dumps(save, indent=2, allow_nan=False) + "\n", "--out", what="TTS save",
                 inputs=(plan_file,))
    n_models = sum(len(u.models) for u in world.units.values())
    placed = sum(1 for u in world.units.values() for m in u.models if m.x is not None)
    console.print(f"Wrote a Tabletop Simulator save of {len(world.units)} unit{'' if len(world.units) == 1 else 's'} "
                  f"({placed} of {n_models} model{'' if n_models == 1 else 's'} on "
                  f"the table, the others in bags) to {escape(out)}")
    return {"file": plan_file, "out": out, "units": len(world.units), "models": n_models, "on_table": placed}, 0
