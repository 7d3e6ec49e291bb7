"""Pictures and report formats of ``planner threats`` and ``planner plan`` with a ``deny`` goal.

The picture is the battlefield of :mod:`planner.render` with the enemy unit off the table (it
arrives after my set-up) and the :class:`planner.render.ArrivalCells` overlay: one square per
legal arrival anchor of the enemy unit (``grid_in`` x ``grid_in``, so the drawn cells add up to
the reported area), its best placement, and the protected point and radius. Markdown and HTML
give the same statements as the text report, the placements, the picture and the ruling of my
deployment by the independent checker.
"""

from __future__ import annotations

from rich.console import Console

from planner.render import ArrivalCells, RenderOptions
from planner.world import World, resolve


def enemy_ids(world: World, units: list[str]) -> set[str]:
    """The enemy units and the Independent Characters joined to them."""
    out = set(units)
    for u in world.units.values():
        if u.setup.joined in units:
            out.add(u.id)
    return out


def without(world: World, units: set[str]) -> World:
    """``world`` with ``units`` off the table (in Reserves): they have not arrived yet."""
    from planner.adversary.deny import off_table

    return off_table(world, units)


def threat_picture(world: World, result, goal_label: str) -> tuple[World, RenderOptions]:
    """The world and overlay of a ``planner threats`` picture (``result``: a ThreatResult)."""
    w = without(world, enemy_ids(world, [result.enemy_unit]))
    n = len(result.legal_cells)
    arrival = ArrivalCells(
        unit=result.enemy_unit, cells=list(result.legal_cells), cell_in=result.grid_in,
        label=(f"legal arrival anchors of {result.enemy_unit}: {n} cells of {result.grid_in:g}\" = "
               f"{result.legal_area_sq_in:g} sq in"),
        best=result.best.models if result.best is not None else None,
        best_label=f"best placement for the enemy ({goal_label})")
    return w, RenderOptions(arrival=arrival, title=f"Threats: where can {result.enemy_unit} arrive?")


def deny_picture(world: World, result, goal) -> tuple[World, RenderOptions]:
    """The world (my planned deployment, the enemy off the table) and overlay of a deny plan."""
    units = [goal.enemy_unit, *goal.also]
    base = resolve(result.scenario, world.file) if result.scenario is not None else world
    if result.scenario_data is not None:
        base.raw = result.scenario_data
    w = without(base, enemy_ids(world, units))
    protect = None
    if goal.protect is not None:
        protect = (goal.protect[0], goal.protect[1], goal.radius)
    best = result.enemy_best
    if goal.objective == "reply":
        label = None  # min-max does not measure the legal area
        best_label = "the enemy's best reply (closest to the point)"
    else:
        n = len(result.legal_cells)
        label = (f"legal arrivals of {goal.enemy_unit} left: {n} cells of {result.grid_in or 0:g}\" = "
                 f"{result.area_sq_in if result.area_sq_in is not None else 0:g} sq in")
        best_label = "the enemy's closest arrival left"
    arrival = ArrivalCells(unit=goal.enemy_unit, cells=list(result.legal_cells) if label else [],
                           cell_in=result.grid_in or 1.0, label=label, best=best.models if best else None,
                           best_label=best_label, protect=protect)
    return w, RenderOptions(arrival=arrival, title=f"Denial against {', '.join(units)}")


def closest_left_line(result) -> str | None:
    """The denial's "closest arrival left" statement (the enemy's best arrival on the proof grid),
    or None when there is none (``result``: a DenyResult; a min-max result: its best reply)."""
    e = result.enemy_best
    if e is None:
        return None
    if result.reply_value_in is not None:
        return (f"Enemy's best reply: {e.unit} at ({e.anchor[0]:g}, {e.anchor[1]:g}), {e.value:.3f}\"; "
                f"checker: {'legal' if e.legal else 'ILLEGAL'}")
    grid = f" on the {result.grid_in:g}\" grid" if result.grid_in else ""
    return (f"Enemy's closest arrival left{grid}: {e.unit} at ({e.anchor[0]:g}, {e.anchor[1]:g}), {e.value:.3f}\"; "
            f"checker: {'legal' if e.legal else 'ILLEGAL'}")


def recheck_line(result) -> str | None:
    """What the re-check of the protected disc on the finer grid found
    (:func:`planner.adversary.deny.recheck_protect`), or, with a protected point and no re-check
    (the enemy grid is already the finest), what the radius is proven for; None without a protected
    point or a screen. A grid is a sample: a position between its points may still be inside."""
    if result.protect is None or result.reply_value_in is not None or result.status not in ("optimal", "feasible"):
        return None
    if result.recheck_grid_in is None:
        if not result.grid_in:
            return None
        return (f"The {result.protect[2]:g}\" radius is proven for the enemy's arrivals on the {result.grid_in:g}\" "
                f"grid only (the finest): a position between its points is not checked and may be inside")
    g, r = result.recheck_grid_in, result.protect[2]
    head = f"Re-check on the finer {g:g}\" grid (as planner threats --grid {g:g})"
    if result.recheck_complete is False:
        head += ", cut short by the time limit (only the positions judged count)"
    b = result.recheck_best
    if b is None:
        return f"{head}: no legal arrival of {result.enemy_unit} {'found' if result.recheck_complete is False else 'on it either'}"
    where = (f"{head}: the enemy's closest legal arrival is at ({b.anchor[0]:g}, {b.anchor[1]:g}), "
             f"{b.value:.3f}\" from the point")
    if result.recheck_inside:
        return (f"{where}: INSIDE the {r:g}\" radius, which is proven on the {result.grid_in:g}\" grid only; "
                f"give the deny goal a finer grid_in (0.5 is the finest) to screen it")
    return (f"{where}: outside the {r:g}\" radius on that grid too" + (" (not proven: cut short)" if
            result.recheck_complete is False else "") + "; a position between the grid points is not checked and may "
            "be inside")


def deny_lines(result) -> list[str]:
    """The denial report, one statement a line (the same facts as the text report)."""
    lines = [f"Status: {result.status} - {result.message}"]
    if result.reply_value_in is not None:
        lines.append(f"Min-max against {result.enemy_unit}: the enemy's best reply is {result.reply_value_in:.3f}\" "
                     f"from the point (proven upper bound {result.reply_bound_in:.3f}\"); "
                     f"{result.iterations} round(s)")
    else:
        before = f"{result.area_before_sq_in:g} sq in" if result.area_before_sq_in is not None else "not measured"
        lines.append(f"Legal area of {result.enemy_unit} before: {before}; left: "
                     f"{result.area_sq_in if result.area_sq_in is not None else 'none found'}"
                     + (" sq in" if result.area_sq_in is not None else "")
                     + (f" ({result.anchors_left} anchors on the {result.grid_in:g}\" grid)"
                        if result.anchors_left is not None and result.grid_in else "")
                     + f"; greedy screen: {result.greedy_area_sq_in} sq in")
        if result.protect is not None:
            x, y, r = result.protect
            on = f" on the {result.grid_in:g}\" grid" if result.grid_in else ""
            lines.append(f"Protected point ({x:g}, {y:g}), radius {r:g}\": no legal arrival{on} may have a base "
                         "within it")
        lines.append(f"{result.iterations} round(s), {result.exact_sight_pairs} sight pairs decided exactly, "
                     f"{result.wall_time_s:.1f} s")
    lines += [x for x in (closest_left_line(result), recheck_line(result)) if x is not None]
    if result.legal is not None:
        lines.append(f"My deployment: {'legal' if result.legal else 'ILLEGAL'} (independent checker)")
    return lines


PLACEMENT_HEADERS = ("unit", "formation", "anchor (in)")


def _rows(result) -> list[tuple[str, str, str]]:
    return [(p.unit, p.formation, f"({p.anchor[0]:g}, {p.anchor[1]:g})") for p in result.placements]


def deny_markdown(result, *, scenario: str | None, picture_ref: str | None, png: bytes | None) -> str:
    """The Markdown report of a deny plan."""
    from planner.report.markdown import _table, md_text, picture_markdown, ruling_markdown
    from planner.report.ruling import build_ruling

    out = [f"# Denial plan: {md_text(scenario or 'scenario')}", ""]
    out += [f"- {md_text(x)}" for x in deny_lines(result)] + [""]
    if result.placements:
        out += ["## My placements", ""] + _table(PLACEMENT_HEADERS, _rows(result)) + [""]
    picture = picture_markdown(picture_ref, png)
    if result.legality is not None:
        out += ruling_markdown(build_ruling(result.legality, "Ruling on my deployment"), picture, level=2)
    else:
        out += ["No plan to rule on.", ""] + picture
    return "\n".join(out) + "\n"


def deny_html(result, *, scenario: str | None, svg: bytes | None) -> str:
    """The HTML report of a deny plan (one self-contained page, picture inline)."""
    from html import escape as h

    from planner.report.html import _figure, _page, _table, ruling_html
    from planner.report.ruling import build_ruling

    title = f"Denial plan: {scenario or 'scenario'}"
    body = [f"<h1>{h(title)}</h1>", '<ul id="solver">'] + [f"<li>{h(x)}</li>" for x in deny_lines(result)]
    body.append("</ul>")
    if result.placements:
        body += ["<h2>My placements</h2>"] + _table(PLACEMENT_HEADERS, _rows(result))
    if result.legality is not None:
        body += ruling_html(build_ruling(result.legality, "Ruling on my deployment"), svg, level=2)
    else:
        body.append("<p>No plan to rule on.</p>")
        body += _figure(svg, "The battlefield as given.")
    return _page(title, body)


def deny_output(result, world: World, goal, fmt: str, render_path: str | None, console: Console) -> None:
    """Write the picture of a deny plan (if asked) and its report in ``fmt`` (text is printed while
    solving, by :func:`planner.cli.adversary.run_deny_plan`)."""
    from planner.report.formats import write_plan_formats

    pw, opts = (deny_picture(world, result, goal) if render_path is not None or fmt in ("markdown", "html")
                else (world, None))
    write_plan_formats(result, world, fmt, render_path, console, pw, opts, deny_markdown, deny_html, "denial plan")
