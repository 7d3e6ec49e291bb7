"""What ``planner layouts`` and ``planner new`` do, apart from the command-line plumbing."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.markup import escape

from planner.errors import ScenarioError


def run_layouts(console: Console) -> tuple[dict[str, Any], int]:
    """Print the 45 Chapter Approved 11th-edition layouts and the deployment maps; return the
    JSON report (``layouts``: id, name, map, mission, pieces; ``maps``: id, name, layouts) and exit 0."""
    from rich.table import Table as RichTable
    from wh40kdc.terrain import resolve_layout

    from planner.io.layouts import _templates, deployment_maps, layouts

    lays = layouts()
    rows = []
    for lay in lays:
        rows.append({"id": lay["id"], "name": lay["name"], "map": lay["deployment_pattern_id"],
                     "mission": lay.get("mission_matchup_id"), "pieces": len(resolve_layout(lay, _templates()))})
    t = RichTable(title=f"Chapter Approved 11th-edition layouts ({len(rows)}; wh40kdc, from Battlemaster)")
    for col in ("layout id", "name", "deployment map", "mission", "pieces"):
        t.add_column(col, no_wrap=col != "name")
    for r in rows:
        t.add_row(r["id"], r["name"], r["map"], r["mission"] or "", str(r["pieces"]))
    console.print(t)
    maps = [{"id": m["id"], "name": m["name"], "layouts": sum(1 for r in rows if r["map"] == m["id"])}
            for m in deployment_maps()]
    mt = RichTable(title="Deployment maps (60\" x 44\")")
    for col in ("map id", "name", "layouts"):
        mt.add_column(col, no_wrap=True)
    for m in maps:
        mt.add_row(m["id"], m["name"], str(m["layouts"]))
    console.print(mt)
    return {"layouts": rows, "maps": maps}, 0


def new_scenario(ruleset: str, layout: str, map_id: str | None, rosters: list[str], players: list[str],
                 default_base_mm: float | None = None) -> tuple[dict[str, Any], list[str]]:
    """The scenario data ``planner new`` writes, and the import warnings.

    ``players`` name the players (the first deploys in the map's defender zone, the second in the
    attacker zone; default ``defender``, ``attacker``); ``rosters[i]`` is imported for
    ``players[i]`` by :func:`planner.io.roster.import_roster` (unit ids prefixed ``<player>-``),
    every imported unit marked ``place: true`` (none has a position yet): plan one player's
    units with ``planner plan --player NAME --out FILE``, then the other's from ``FILE`` with
    ``planner plan --player OTHER``.

    Raises
    ------
    ScenarioError
        Unknown ruleset, layout or map; more rosters than players, more than two players, or the
        same player twice; any roster problem (naming ``--roster``).
    """
    from planner.io.layouts import PLAYERS, layout_scenario
    from planner.io.roster import army_to_data, import_roster
    from planner.rules.registry import find_ruleset, require_standard_layouts

    try:
        rs = find_ruleset(ruleset)
    except ScenarioError as exc:
        raise ScenarioError(exc.detail, location="--ruleset", value=ruleset) from None
    require_standard_layouts(rs, "--ruleset", ruleset)
    if len(players) > 2:
        raise ScenarioError("at most two players (defender, then attacker)", location="--player", value=players[2])
    if len(set(players)) != len(players):
        raise ScenarioError("a player is named twice", location="--player", value=players[-1])
    for p in players:
        if not p.strip():
            raise ScenarioError("give the player's name", location="--player", value=p)
    if len(rosters) > len(players):
        raise ScenarioError("give a --player for each --roster (in the same order)", location="--roster",
                            value=rosters[len(players)])
    names = tuple(players) + PLAYERS[len(players):]
    if names[0] == names[1]:
        raise ScenarioError("a player is named twice", location="--player", value=names[0])
    data = layout_scenario(layout, map_id, rs.id, (names[0], names[1]))
    warnings: list[str] = []
    armies = []
    for i, player in enumerate(names):
        army: dict[str, Any] = {"player": player, "units": []}
        if i < len(rosters):
            try:
                imported, w = import_roster(rosters[i], rs.id, player, default_base_mm, id_prefix=f"{player}-",
                                            place=True)
            except ScenarioError as exc:
                raise ScenarioError(f"cannot import the roster: {exc}", location="--roster") from None
            warnings += [f"{rosters[i]}: {x}" for x in w]
            army = army_to_data(imported)
        armies.append(army)
    data["armies"] = armies
    return data, warnings


def run_new(ruleset: str, layout: str, map_id: str | None, rosters: list[str], players: list[str], out: str,
            default_base_mm: float | None, console: Console) -> tuple[dict[str, Any], int]:
    """Write the scenario of :func:`new_scenario` to ``out`` (checked by the scenario loader
    first: what is written validates); return the JSON report and exit 0."""
    from planner.io.files import dump_data, parse_record
    from planner.io.layouts import find_layout
    from planner.schema import Scenario
    from planner.world import resolve

    data, warnings = new_scenario(ruleset, layout, map_id, rosters, players, default_base_mm)
    resolve(parse_record(Scenario, data, out), out)  # what we write is a scenario the planner loads
    dump_data(data, out, "--out", what="scenario")
    err = Console(stderr=True, highlight=False, soft_wrap=True)
    for w in warnings:
        err.print(f"[yellow]warning:[/yellow] {escape(w)}")
    n_units = sum(len(a["units"]) for a in data["armies"])
    console.print(f"Wrote {escape(out)}: {escape(data['name'])}, {len(data['terrain'])} terrain pieces, "
                  f"{len(data['objectives'])} objectives, {n_units} units ({data['ruleset']})")
    return {"file": out, "ruleset": data["ruleset"], "layout": layout,
            "map": map_id or find_layout(layout)["deployment_pattern_id"], "terrain": len(data["terrain"]),
            "objectives": len(data["objectives"]), "units": n_units, "warnings": warnings}, 0
