"""What ``planner deepstrike`` does, apart from the command-line plumbing in :mod:`planner.cli`."""

from __future__ import annotations

import csv
import io
import math
import time
from dataclasses import asdict

from rich.console import Console
from rich.markup import escape
from rich.table import Table as RichTable

from planner.deepstrike.procedure import (
    ERROR_BOUND,
    applied_rulings,
    best_formation_odds,
    best_landing,
    best_setup,
    heat_map,
    judge_landing,
    make_setup,
    odds,
    simulate,
)
from planner.errors import ScenarioError


def parse_point(text: str, option: str) -> tuple[float, float]:
    """``"X,Y"`` -> (x, y).

    Raises
    ------
    ScenarioError
        If the text is not two finite numbers.
    """
    try:
        x, y = (float(v) for v in text.replace(" ", "").split(","))
    except ValueError:
        raise ScenarioError("give a point as X,Y in inches", location=option, value=text) from None
    if not (math.isfinite(x) and math.isfinite(y)):
        raise ScenarioError("give a point as X,Y in inches (finite numbers)", location=option, value=text)
    if not (abs(x) < 1e4 and abs(y) < 1e4):
        raise ScenarioError("a point's coordinates are inches on the battlefield: each must be less than "
                            "10000 in size", location=option, value=text)
    return x, y


def write_map(path: str, xs, ys, P, title: str, outcome: str = "mishap") -> None:
    """Write the heat map of P(``outcome``) as CSV (x, y, p_OUTCOME: p_mishap, HH2 p_relocated, 10th/11th
    p_illegal) or PNG
    (needs matplotlib).

    Raises
    ------
    ScenarioError
        Unknown extension, matplotlib missing for PNG, or the file cannot be written (or is an
        input of the run: :func:`planner.io.outputs.write_output`).
    """
    from planner.io.outputs import write_output

    low = path.lower()
    if low.endswith(".csv"):
        buf = io.StringIO(newline="")
        w = csv.writer(buf)
        w.writerow(["x", "y", f"p_{outcome}"])
        for j, y in enumerate(ys):
            for i, x in enumerate(xs):
                w.writerow([f"{x:g}", f"{y:g}", f"{P[j, i]:.6f}"])
        write_output(path, buf.getvalue(), "--map", what="map")
    elif low.endswith(".png"):
        try:
            import matplotlib

            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            raise ScenarioError("a PNG map needs matplotlib (pip install matplotlib); write .csv instead",
                                location="--map", value=path) from None
        step = xs[1] - xs[0] if len(xs) > 1 else 1.0
        fig, ax = plt.subplots(figsize=(9, 6))
        im = ax.imshow(P, origin="lower", extent=(xs[0] - step / 2, xs[-1] + step / 2, ys[0] - step / 2,
                                                  ys[-1] + step / 2), vmin=0, vmax=1, cmap="magma_r")
        fig.colorbar(im, ax=ax, label=f"P({outcome})")
        ax.set_title(title)
        png = io.BytesIO()
        try:
            fig.savefig(png, format="png", dpi=120)
        finally:
            plt.close(fig)
        write_output(path, png.getvalue(), "--map", what="map")
    else:
        raise ScenarioError("the map file must end in .csv or .png", location="--map", value=path)


def run_deepstrike(world, unit: str, at: str | None, ruleset: str | None, orientation: float | None,
                   map_file: str | None,
                   resolution: float, best: bool, near: str | None, within: float | None, n_sim: int | None,
                   seed: int, console: Console, inertial_guidance: bool = False,
                   facing: float | None = None, rulings: dict[str, str] | None = None,
                   formation_step: float | None = None) -> tuple[dict, int]:
    """Compute and print; return the JSON data and the exit code.

    ``orientation`` None: the rings' orientation is the controller's choice (5th/7th: the odds of the
    best formation, :func:`planner.deepstrike.procedure.best_formation_odds`, and those of orientation
    0 for comparison); a number: that fixed orientation as well. ``data["formation_drawn"]`` is the
    formation ``--render`` draws: (label, model centres). ``rulings``: ``--ruling KEY=VALUE`` for the
    Deep Strike rulings (over the scenario's ``rulings:``); the readings applied are printed and in
    ``data["rulings"]``. ``formation_step``: the best formation's orientation step (degrees; None: 15).

    Raises
    ------
    ScenarioError
        For an option the ruleset's procedure would ignore (:func:`_refuse_unused`), or bad input."""
    asked = orientation is not None
    orientation = float(orientation) if orientation is not None else 0.0
    st = make_setup(world, unit, ruleset, orientation, inertial_guidance, facing, rulings)
    R = st.rules
    _refuse_unused(R, near, within, orientation if asked else None, formation_step, n_sim)
    if formation_step is not None and R.procedure != "assault":
        _refuse_unused_step(R, at is not None, best, asked, len(st.unit.models) >= 2, formation_step)
    formation_step = 15.0 if formation_step is None else formation_step
    data: dict = {"ruleset": R.ruleset, "scenario": world.file, "unit": unit, "models": len(st.unit.models),
                  "orientation_deg": orientation, "facing_deg": st.facing_deg, "exact_bases": st.exact_bases,
                  "error_bound": ERROR_BOUND, "rulings": applied_rulings(st)}
    if R.procedure == "assault":
        data, code = _run_assault(st, data, at, map_file, resolution, best, near, n_sim, seed, console)
        _print_rulings(console, data["rulings"])
        return data, code
    q = parse_point(near, "--near") if near is not None else None
    bf = world.scenario.battlefield
    if q is not None and not bf.holds(*q):
        raise ScenarioError(f"the goal point must be on the {bf.width:g}\" x {bf.depth:g}\" battlefield",
                            location="--near", value=near)
    wgoal = (q[0], q[1], within if within is not None else 0.0) if q is not None else None
    if within is not None and q is None:
        raise ScenarioError("--within needs --near X,Y (the point to be within range of)", location="--within",
                            value=within)
    if q is not None and within is None:
        raise ScenarioError("--near needs --within D (the goal: a model within D inches of the point)",
                            location="--near", value=near)
    if at is None and not best and map_file is None:
        raise ScenarioError("give --at X,Y (the aim point), or --best, or --map FILE", location="--at")
    aim = _aim_point(at, world)
    code = 0
    n = len(st.unit.models)
    console.print(f"[bold]Deep Strike[/bold] of {escape(st.unit.label)} ({n} model{'' if n == 1 else 's'}) "
                  f"under {R.ruleset}; formation orientation "
                  + (f"{orientation:g} deg (as asked)" if asked else "the controller's choice"))
    if not st.exact_bases:
        console.print(f"[yellow]interpretation:[/yellow] non-round models keep facing {st.facing_deg:g} deg and "
                      "their true shape in the mishap tests; the rings are spaced by "
                      + ("their true outlines in contact" if st.ring_spacing == "true-shape"
                         else "their circumscribed discs") + f" (ds-ring-spacing={st.ring_spacing})")
    if aim is not None:
        x, y = aim
        chosen = not R.scatter and not asked  # 10th/11th: the controller's legal formation, if any
        o = odds(st, x, y, within=wgoal, fixed=not chosen, step_deg=formation_step)
        data["odds"] = asdict(o)
        land = best_setup(st, x, y, formation_step) if chosen else judge_landing(st, x, y)
        data["landing_on_target"] = {"mishap": land.mishap, "triggers": land.triggers,
                                     "findings": [f.model_dump(mode="json") for f in land.findings],
                                     "positions": [list(c) for c in land.formation.centres]}
        if chosen:  # which formation the controller sets up (the orientation asked for is none)
            data["landing_on_target"] |= {"formation": land.formation_label, "orientation_deg": land.orientation_deg}
            data["orientation_deg"] = land.orientation_deg
        what = (f"aim ({x:g}, {y:g}), the controller's formation (the fixed orientation {orientation:g} deg if legal, "
                f"else the first legal of every {formation_step:g} deg and ring shape, else a per-landing packing)"
                if chosen
                else f"aim ({x:g}, {y:g}), fixed orientation {orientation:g} deg"
                + (" (as asked)" if asked else " (for comparison)"))
        if R.scatter:
            _print_odds(console, o, what)
        else:  # 10th/11th: legal or not, by the rule ids of planner check (no odds to give)
            data |= {"legal": not land.mishap, "rules_failed": list(land.triggers)}
            _print_arrival(console, st, land, x, y, what, chosen)
        data["formation_drawn"] = [(f"the controller's formation, {land.formation_label}" if chosen else
                                    f"formation, orientation {orientation:g} deg") + " (on target)",
                                   [list(c) for c in land.formation.centres]]
        if R.scatter:
            bfo = best_formation_odds(st, x, y, formation_step)
            data["best_formation"] = asdict(bfo)
            _print_best_formation(console, bfo)
            if not asked and bfo.on_target is not None:
                data["formation_drawn"] = [f"best formation on target: {bfo.on_target['label']}",
                                           bfo.on_target["positions"]]
        if not R.scatter:
            code = 1 if land.mishap else 0
        if n_sim:
            s = simulate(st, x, y, n_sim, seed, within=wgoal)
            data["simulation"] = asdict(s)
            console.print(f"Simulation: {n_sim} replays (seed {seed}): P(mishap) = {s.p_mishap:.4f} "
                          f"+/- {s.se_mishap:.4f} (1 s.e.); exact {o.p_mishap:.4f}")
    if best:
        from planner.deepstrike.formation import fixed_orientation_note

        b = best_landing(st, q, within, resolution)
        search = (f"the best cell of the {resolution:g}\" grid (--resolution), refined locally to 0.01\": "
                  "not proven best, a finer grid may find a better point")
        data["best"] = {"x": b.x, "y": b.y, "probability": b.probability, "goal": b.goal, "odds": asdict(b.odds),
                        "grid_in": resolution, "search": search}
        note = fixed_orientation_note(st)
        console.print(f"Best aim point over the {resolution:g}\" grid (--resolution) for a {b.goal}: "
                      f"({b.x:.2f}, {b.y:.2f}), P = {b.probability:.4f} "
                      f"(formation at the fixed orientation {orientation:g} deg); {search}")
        _print_odds(console, b.odds, f"best ({b.x:.2f}, {b.y:.2f})")
        if note:  # the search assumes the fixed orientation: the controller's best formation at the cell it picks
            data["best"] |= {"orientation_deg": orientation, "orientation": "fixed", "note": note}
            if R.scatter:
                bb = best_formation_odds(st, b.x, b.y, formation_step)
                data["best"]["best_formation"] = asdict(bb)
                console.print(f"The search above assumes the {note}; at the aim point it picks, the "
                              "controller's best formation:")
                _print_best_formation(console, bb)
    if map_file is not None:
        # 10th/11th have no mishap: a cell is 1 where the arrival is an illegal set-up (0 where legal)
        data["map"] = (_heat_map(st, resolution, map_file, "mishap", console) if R.scatter
                       else _heat_map(st, resolution, map_file, "illegal", console) | {"value": "p_illegal"})
    if st.unapplied:
        note = (f"Not applied: the restrictions on Deep Strike arrivals of {', '.join(st.unapplied)}; the "
                f"{R.ruleset} Deep Strike procedure here has no restriction rule (40k 10th and 11th, and the HH2 Deep Strike Assault, apply them).")
        data.setdefault("notes", []).append(note)
        console.print(escape(note), highlight=False)
    _print_rulings(console, data["rulings"], "these odds" if R.scatter else "this arrival check")
    return data, code


def _refuse_unused(R, near: str | None, within: float | None, orientation: float | None,
                   formation_step: float | None, n_sim: int | None = None) -> None:
    """Refuse an option the ruleset's Deep Strike procedure would silently ignore (exit 2, naming it).

    Raises
    ------
    ScenarioError
        HH2 (Deep Strike Assault): ``--within``, ``--orientation``, ``--formation-step`` (the first model
        lands alone, the controller places the rest: no goal point, no rings); 10th/11th (no scatter):
        ``--near``, ``--within`` (the unit is set up where it is aimed: no chance of a goal to weigh),
        ``--simulate`` (no dice to replay: the arrival is legal or not)."""
    if R.procedure == "assault":
        why = {"--within": ("the HH2 Deep Strike Assault has no goal point (--near and --best are for wh40k5, "
                            "wh40k7)", within),
               "--orientation": ("the HH2 Deep Strike Assault scatters the first model alone and the controller "
                                 "places the rest: no ring orientation (--facing turns the models)", orientation),
               "--formation-step": ("the HH2 Deep Strike Assault has no ring formation to choose", formation_step)}
        for option, (msg, value) in why.items():
            if value is not None:
                raise ScenarioError(f"{option} does not apply under {R.ruleset}: {msg}", location=option, value=value)
    elif not R.scatter:
        for option, value in (("--near", near), ("--within", within)):
            if value is not None:
                raise ScenarioError(f"{option} does not apply under {R.ruleset}: the unit does not scatter, it is set "
                                    "up where --at aims (or it is illegal there); --near/--within weigh the chance of "
                                    "a scattered landing near a point (wh40k5, wh40k7)", location=option, value=value)
        if n_sim is not None:  # it replayed the regions of the Mishap procedure, not the arrival check
            raise ScenarioError(f"--simulate does not apply under {R.ruleset}: the unit does not scatter and no "
                                "dice are rolled, so there is nothing to replay; --at checks whether the arrival is "
                                "legal (wh40k5, wh40k7 and hh2 replay their scatter)", location="--simulate", value=n_sim)


def _refuse_unused_step(R, at: bool, best: bool, asked: bool, many: bool, formation_step: float) -> None:
    """Refuse ``--formation-step`` where no part of the run uses it (exit 2, naming it): it is the
    orientation step of the controller's formation at ``--at`` (10th/11th: the one set up, unless
    ``--orientation`` fixes it; 5th/7th: the best-formation odds), and of 5th/7th ``--best``'s
    best formation at the point it picks (``many``: a unit of two models or more); ``--map`` (and
    10th/11th ``--best``) judge the formation at the fixed orientation.

    Raises
    ------
    ScenarioError
        When ``--formation-step`` would be ignored."""
    if (at and (R.scatter or not asked)) or (best and R.scatter and many):
        return
    why = ("with --orientation the formation set up at --at is that fixed one" if at
           else "the heat map (--map) and the aim point search (--best) judge the formation at the fixed orientation "
                "(--orientation, default 0)" + ("" if many else ", and a unit of one model has no formation")
                + "; it is the orientation step of the controller's formation at --at"
                + (" and of the best formation at --best's point" if R.scatter else ""))
    raise ScenarioError(f"--formation-step does not apply here under {R.ruleset}: {why}", location="--formation-step",
                        value=formation_step)


def _print_rulings(console: Console, rulings: list[dict], decided: str = "these odds") -> None:
    """The rulings applied, one line each (as ``planner check`` prints them), or that none applied
    (none decides ``decided``: the odds, or 10th/11th the arrival check)."""
    if not rulings:
        console.print(f"Rulings applied: none (no open point of the sources decides {decided})")
        return
    console.print("Rulings applied:")
    for r in rulings:
        console.print(escape(f"  {r['key']}={r['value']} ({'default' if r['default'] else 'chosen'}): "
                             f"{r['meaning']} [{r['sources']}]"), highlight=False)


def _heat_map(st, resolution: float, map_file: str, outcome: str, console: Console) -> dict:
    """Write the heat map of P(``outcome``) over aim points to ``map_file``; its JSON record."""
    from planner.deepstrike.formation import fixed_orientation_note

    t0 = time.perf_counter()
    xs, ys, P, bound = heat_map(st, resolution, with_bound=True)
    dt = time.perf_counter() - t0
    note = fixed_orientation_note(st)
    write_map(map_file, xs, ys, P, f"P({outcome}): {st.unit.label}, {st.rules.ruleset}"
              + (f", {note}" if note else ""),
              outcome)
    what = {"illegal": "illegal set-up (1 illegal, 0 legal)"}.get(outcome, outcome)
    console.print(f"Wrote the {what} heat map ({P.shape[1]} x {P.shape[0]} cells, {dt:.2f} s, error <= "
                  f"{bound:.1g}) to {escape(map_file)}" + (f"; {note} (not the controller's best formation"
                                                           + ("; --at tries the other formations too" if outcome ==
                                                              "illegal" else "") + ")" if note else ""))
    out = {"file": map_file, "resolution": resolution, "cells": int(P.size), "seconds": dt, "error_bound": bound}
    if note:
        out |= {"orientation_deg": st.orientation_deg, "orientation": "fixed", "note": note}
    return out


TRIGGERS_NOTE = ("each trigger row is P(the landing meets that trigger); one landing can meet several, so the rows "
                 "add up to more than the {total}")
"""The words under an odds table whose trigger rows add up to more than their total (a fresh user added
them up and found more than the mishap); ``{total}``: what the rows are part of."""


def _triggers_note(console: Console, triggers: dict[str, float], total: float, what: str) -> None:
    """Print :data:`TRIGGERS_NOTE` when the trigger rows add up to more than ``total`` (``what``)."""
    if sum(triggers.values()) > total + 1e-9:
        console.print(escape(TRIGGERS_NOTE.format(total=what)), highlight=False)


def _print_odds(console: Console, o, title: str) -> None:
    """The odds table of a scatter (5th/7th Mishap procedure); 10th/11th print :func:`_print_arrival`."""
    t = RichTable(title=escape(f"Deep Strike odds, {title}"))
    t.add_column("outcome")
    t.add_column("probability", justify="right")
    t.add_row("clean landing", f"{o.p_clean:.4f}")
    t.add_row("mishap", f"{o.p_mishap:.4f}")
    for k, v in o.results.items():
        t.add_row(f"  mishap result: {k}", f"{v:.4f}")
    for k, v in o.triggers.items():
        t.add_row(f"  trigger {k}", f"{v:.4f}")
    for k, v in o.dangerous.items():
        t.add_row(f"model {k} in dangerous terrain (clean landing)", f"{v:.4f}")
    if o.within is not None:
        t.add_row("clean landing within range of the point", f"{o.within:.4f}")
    console.print(t)
    _triggers_note(console, o.triggers, o.p_mishap, "mishap")
    console.print(f"exact over the scatter die and 2D6; direction: closed-form arcs, error <= {o.error_bound:g}")


def _print_arrival(console: Console, st, land, x: float, y: float, what: str, chosen: bool) -> None:
    """10th/11th (no scatter): the arrival check at (x, y), LEGAL or NOT LEGAL, each rule broken by
    its id (the id ``planner check`` reports: :meth:`~planner.deepstrike.procedure.DeepStrikeRules.arrival_rule_id`)
    with its meaning and the failing findings under it, the models in dangerous terrain if any."""
    from planner.rules.registry import find_ruleset

    R = st.rules
    verdict = "[red]NOT LEGAL[/red]" if land.mishap else "[green]LEGAL[/green]"
    console.print(f"[bold]Deep Strike arrival check[/bold], {escape(st.unit.label)} at ({x:g}, {y:g}), "
                  f"{R.ruleset}: {verdict}", highlight=False)
    console.print(escape(f"  {what}"), highlight=False)
    if chosen:
        console.print(escape(f"Formation set up: {land.formation_label}"
                             + (" (none legal: the first tried, shown illegal)" if land.mishap else "")),
                      highlight=False)
    rs = find_ruleset(R.ruleset)
    if not land.mishap:
        console.print(escape("Every rule of the arrival holds: " + ", ".join(R.arrival_rule_ids(st.restricted))),
                      highlight=False)
    else:
        console.print(f"Rule{'s' if len(land.triggers) > 1 else ''} broken ({len(land.triggers)}):")
    for rid in land.triggers:  # the rule and its meaning, then its failing findings as planner check words them
        console.print(escape(f"  {rid}: {rs.rule(rid).meaning}"), highlight=False)
        for f in land.findings:
            if f.rule == rid and not f.passed:
                needs = f" (required: {f.required})" if f.required else ""
                console.print(f"    [red]x[/red] {escape(f'[{f.rule}] {f.message}{needs}')}", highlight=False)
    if land.dangerous_models:
        console.print(escape("Models in dangerous terrain: " + ", ".join(land.dangerous_models)), highlight=False)


def _print_best_formation(console: Console, b) -> None:
    """The odds when the controller chooses the formation after the scatter."""
    t = RichTable(title=escape(f"Deep Strike odds, aim ({b.x:g}, {b.y:g}), the controller's best formation "
                               f"({b.candidates} candidates)"))
    t.add_column("outcome")
    t.add_column("probability", justify="right")
    t.add_row("clean landing", f"{b.p_clean:.4f}")
    t.add_row("mishap (no candidate formation places every model)", f"{b.p_mishap:.4f}")
    for k, v in b.results.items():
        t.add_row(f"  mishap result: {k}", f"{v:.4f}")
    t.add_row("  lower bound: the first model itself cannot be placed", f"{b.p_mishap_lower:.4f}")
    if b.bracket is not None:
        t.add_row("  lower bound: a sure mishap (the first model, or a pocket too small for the unit)",
                  f"{b.bracket[0]:.4f}")
    console.print(t)
    if b.bracket is not None:
        lo, hi = b.bracket
        console.print(f"  P(mishap) for the text's best formation in [{lo:.4f}, {hi:.4f}], both ends proven"
                      + (" (exact)" if hi - lo <= b.error_bound else ""))
    if b.packing_estimate is not None:
        console.print(f"  point estimate (per-landing packing, sampled; not a bound): "
                      f"{b.packing_estimate['p_mishap']:.4f}")
    if b.on_target is not None and b.on_target["rings"]:
        console.print(f"  on target: {escape(b.on_target['label'])}, rings of "
                      f"{', '.join(map(str, b.on_target['rings']))}")
    elif b.on_target is not None:  # one model: no ring around it, and no orientation to speak of
        console.print("  on target: the unit's one model at the aim point (no rings)")
    else:
        console.print("  on target: no candidate formation places every model (a mishap)")
    for note in b.interpretations:
        console.print(f"  interpretation: {escape(note)}")
    console.print(f"exact over the candidates: closed-form arcs, error <= {b.error_bound:.1g}")


def _aim_point(at: str | None, world) -> tuple[float, float] | None:
    """``--at X,Y`` as a point on the battlefield (inches), or None without it.

    Raises
    ------
    ScenarioError
        A point that is not two numbers, or one off the battlefield (field ``--at``)."""
    if at is None:
        return None
    x, y = parse_point(at, "--at")
    bf = world.scenario.battlefield
    if not bf.holds(x, y):
        raise ScenarioError(f"the aim point must be on the {bf.width:g}\" x {bf.depth:g}\" battlefield",
                            location="--at", value=at)
    return x, y


def _run_assault(st, data: dict, at, map_file, resolution, best, near, n_sim, seed, console: Console):
    """HH2 Deep Strike Assault: the first model's odds (:mod:`planner.deepstrike.assault`); exit 0,
    or 1 for an aim point where the first model may not be placed (as a 10th/11th arrival that is
    not legal: the rules broken by id, JSON ``legal: false`` and ``rules_failed``; no odds)."""
    from planner.deepstrike.assault import aim_refusal, assault_odds

    if best or near is not None:
        raise ScenarioError("--best and --near need a ruleset with a Mishap table (wh40k5, wh40k7)",
                            location="--best" if best else "--near")
    if at is None and map_file is None:
        raise ScenarioError("give --at X,Y (the aim point) or --map FILE", location="--at")
    aim = _aim_point(at, st.world)  # before anything is printed: a bad point is input, not a result
    igs = st.rules.scale < 1.0
    console.print(f"[bold]Deep Strike Assault[/bold] (HH2) of {escape(st.unit.label)}: the first model"
                  + (", Inertial Guidance System (scatter halved)" if igs else ""))
    data["inertial_guidance"] = igs
    if aim is not None:
        x, y = aim
        refused = aim_refusal(st, x, y)
        data |= {"legal": refused is None, "rules_failed": list(refused.rules) if refused else []}
        if refused is not None:  # a legal question with the answer no (exit 1), not malformed input
            _print_refused_aim(console, st, refused, x, y)
            if map_file is not None:
                data["map"] = _heat_map(st, resolution, map_file, "relocated", console) | {"value": "p_relocated"}
            return data, 1
        o = assault_odds(st, x, y)
        data["assault_odds"] = asdict(o)
        t = RichTable(title=f"Deep Strike Assault odds, aim ({x:g}, {y:g})")
        t.add_column("outcome")
        t.add_column("probability", justify="right")
        t.add_row("first model stays where it scattered", f"{o.p_stays:.4f}")
        t.add_row('within 1" of enemy/edge/Impassable' + (" or an enemy restriction" if st.restricted else "")
                  + ': the opponent relocates it (up to 18")', f"{o.p_relocated:.4f}")
        for k, v in o.triggers.items():
            t.add_row(f"  trigger {k}", f"{v:.4f}")
        if o.p_igs_correction is not None:
            t.add_row("  IGS minimum-distance correction needed", f"{o.p_igs_correction:.4f}")
        t.add_row(f"Disordered (D6 {'/'.join(map(str, o.disordered_on))}{', re-rolled' if igs else ''})",
                  f"{o.p_disordered:.4f}")
        console.print(t)
        _triggers_note(console, o.triggers, o.p_relocated, "relocation")
        t2 = RichTable(title="Deep Strike Assault: the first model, then the other units")
        t2.add_column("outcome")
        t2.add_column("probability", justify="right")
        for oc in o.outcomes:
            t2.add_row(escape(oc["text"]), f"{oc['probability']:.4f}")
        console.print(t2)
        for note in o.interpretations:
            console.print(f"  interpretation: {escape(note)}")
        console.print(f"exact over the scatter die and 2D6; direction: closed-form arcs, error <= {o.error_bound:.1g}")
        from planner.deepstrike.assault import assault_followers, assault_groups

        if assault_groups(st):
            fo = assault_followers(st, x, y, o)
            data["assault_followers"] = asdict(fo)
            _print_followers(console, fo)
        if n_sim:
            s = simulate(st, x, y, n_sim, seed)
            data["simulation"] = {"n": s.n, "seed": s.seed, "p_relocated": s.p_mishap, "se": s.se_mishap}
            console.print(f"Simulation: {n_sim} replays (seed {seed}): P(relocated) = {s.p_mishap:.4f} "
                          f"+/- {s.se_mishap:.4f} (1 s.e.); exact {o.p_relocated:.4f}")
    if map_file is not None:
        data["map"] = _heat_map(st, resolution, map_file, "relocated", console) | {"value": "p_relocated"}
    return data, 0


def _print_refused_aim(console: Console, st, refused, x: float, y: float) -> None:
    """HH2: the aim point where the first model may not be placed, NOT LEGAL, each rule broken by
    its id with its meaning (as :func:`_print_arrival` says a 10th/11th arrival that is not legal)."""
    from planner.rules.registry import find_ruleset

    rs = find_ruleset(st.rules.ruleset)
    console.print(f"[bold]Deep Strike Assault aim point[/bold], {escape(st.unit.label)} at ({x:g}, {y:g}), "
                  f"{st.rules.ruleset}: [red]NOT LEGAL[/red] (no odds: the first model may not be placed there)",
                  highlight=False)
    console.print(escape(f"  {refused.message}"), highlight=False)
    console.print(f"Rule{'s' if len(refused.rules) > 1 else ''} broken ({len(refused.rules)}), by the aim point "
                  "itself (each rule's meaning is its test after the scatter, the same distance):")
    for rid in refused.rules:
        console.print(escape(f"  {rid}: {rs.rule(rid).meaning}"), highlight=False)


def _print_followers(console: Console, fo) -> None:
    """The rest of a Deep Strike Assault: the outcomes with their probabilities, the placements on target."""
    t = RichTable(title="Deep Strike Assault: the rest of the assault (" + escape("; ".join(fo.groups)) + ")")
    t.add_column("outcome")
    t.add_column("probability", justify="right")
    for oc in fo.outcomes:
        t.add_row(escape(oc["text"]), f"{oc['probability']:.4f}")
    console.print(t)
    console.print(escape(f"P(every later unit finds space within 6\" of the first model, which stays) = "
                         f"{fo.p_space:.4f} (a lower bound; JSON p_space); it is used when not Disordered: "
                         f"P(the controller places every unit) = {fo.p_controller_places_all:.4f}"), highlight=False)
    for title, rows in (("on target, not Disordered", fo.on_target), ("on target, Disordered", fo.on_target_disordered)):
        for r in rows:
            where = (f"placed by the {r['placed_by']}" + (f" within {r['within_in']:g}\"" if r["within_in"] else
                                                          " in base contact with the first model")
                     if r["space"] else "no space found")
            first = (f"; its models start at ({r['positions'][0][0]:.2f}, {r['positions'][0][1]:.2f})"
                     if r["space"] else "")
            console.print(escape(f"  {title}: {r['label']}: {where}{first}"))
            if r.get("restrictions"):
                console.print(escape(f"    refused by the restriction {'; '.join(r['restrictions'])} at some "
                                     "candidate place"))
    for note in fo.interpretations:
        console.print(f"  interpretation: {escape(note)}")
