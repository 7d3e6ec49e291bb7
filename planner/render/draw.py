"""The battlefield picture: matplotlib (Agg backend), SVG or PNG, the same bytes for the same input.

Everything is drawn to scale in inches (x along the width, y along the depth, origin at the
lower-left corner). SVG elements carry ids that name what they are, so that a picture can be
checked by parsing it:

- ``battlefield``, ``zone-<zone>``, ``terrain-<feature>``, ``objective-<id>``;
- ``base-<unit>-<model>`` (one per model on the battlefield, its true outline), ``facing-<unit>``,
  ``label-<unit>``;
- overlays: ``exclusion-<D>-<unit>`` (points within D" of an enemy unit), ``exclusion-<D>-zone-<zone>``
  (within D" of an enemy deployment zone: 40k Infiltrators), ``excluded-<D>`` (their union, filled), ``legal-<unit>`` and
  ``legal-hidden-<unit>``, ``sightline-clear-<unit>-<k>``, ``sightline-blocked-<unit>-<observer>``,
  ``violation-<unit>[-<model>]``, ``measure-<unit>-<k>``, ``heatmap``;
- an enemy unit's legal arrival area (:class:`ArrivalCells`): ``threat-area-<unit>`` (a group of
  one square per legal anchor), ``threat-best-<unit>-<model>`` (its best placement),
  ``protected-point`` and ``protected-radius``;
- ``legend``, ``scalebar``, ``offtable`` (units embarked or in reserves).
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from shapely.geometry import LineString, MultiPolygon, Point, Polygon
from shapely.geometry.polygon import orient
from shapely.ops import nearest_points, unary_union

from planner.errors import ScenarioError
from planner.legality.report import LegalityReport
from planner.render.areas import (
    DRAW_POINTS,
    infiltrate_exclusions,
    legal_area,
    outline,
    placed_models,
)
from planner.schema import SetupMethod, TerrainKind, TerrainTrait
from planner.world import World

if TYPE_CHECKING:
    from matplotlib.typing import LineStyleType

PLAYER_COLOURS = ("#1f5fbf", "#c0392b", "#2e8b57", "#8e44ad", "#d35400", "#16a085")
"""Colours of the players, in the order their armies appear in the scenario."""

SVG_HASH_SALT = "deployment-planner"
SCALE_BAR_IN = 12.0


@dataclass
class HeatMap:
    """A grid of values in [0, 1] at cell centres ``xs`` x ``ys`` (inches): ``values[j, i]`` at (xs[i], ys[j])."""

    xs: np.ndarray
    ys: np.ndarray
    values: np.ndarray
    label: str = "P(mishap)"


@dataclass
class ArrivalCells:
    """An enemy unit's legal arrival anchors on a square grid, drawn as one ``cell_in`` x ``cell_in``
    square per anchor (centred on it), so that the drawn area is the reported area (anchors x cell
    area, square inches).

    ``best``: model positions (unit id -> [(x, y, facing)], inches and degrees) of the enemy's best
    placement, drawn as base outlines; ``protect``: a protected point and radius (x, y, r inches;
    r None: the point only). ``label``: the legend entry of the cells (None: no cells, no entry).
    """

    unit: str
    cells: list[tuple[float, float]]
    cell_in: float
    label: str | None
    best: dict[str, list[tuple[float, float, float]]] | None = None
    best_label: str = "the enemy's best placement"
    protect: tuple[float, float, float | None] | None = None


@dataclass
class ExposureOverlay:
    """``planner exposure``: each attacking unit's threat region (where its weapons reach after its
    Normal move: the bases at every kept move, widened by the longest range; sight is judged in the
    report, not drawn) and my units ringed in a colour by the share of their models expected lost."""

    regions: list[tuple[str, Any]]
    """(attacking unit id, shapely geometry, inches)."""
    losses: dict[str, tuple[float, int]]
    """My unit id -> (expected models lost, models)."""


@dataclass
class RenderOptions:
    """What to draw over the battlefield.

    ``exclusion_for``: a player or unit id; the Infiltrate exclusion areas (more-than distances of
    the ruleset) are drawn around that player's enemy units. ``legal_area``: a unit id; where its
    bases may stand for its set-up is shaded. ``sight_lines`` and ``violations`` draw the evidence
    of the legality report (if one is given). ``heat``: a Deep Strike heat map. ``arrival``: an
    enemy unit's legal arrival cells, its best placement and a protected point (:class:`ArrivalCells`).
    """

    exclusion_for: str | None = None
    legal_area: str | None = None
    sight_lines: bool = True
    violations: bool = True
    heat: HeatMap | None = None
    arrival: ArrivalCells | None = None
    exposure: ExposureOverlay | None = None
    formation: tuple[str, list] | None = None
    """A Deep Strike formation to draw: (legend label, footprints of its models, inches)."""
    formation_player: str | None = None
    """The player whose unit the formation is: drawn in that player's colour (None: grey)."""
    title: str | None = None
    dpi: int = 110


@dataclass
class RenderSummary:
    """What was drawn (counts by kind), for reports and tests."""

    counts: dict[str, int] = field(default_factory=dict)
    legend: list[str] = field(default_factory=list)

    def add(self, kind: str, n: int = 1) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + n


def _plt():
    import matplotlib

    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return matplotlib, plt


def _path(geom):
    """A matplotlib Path of a shapely (Multi)Polygon, holes included."""
    from matplotlib.path import Path as MplPath

    polys = list(geom.geoms) if isinstance(geom, MultiPolygon) else [geom] if isinstance(geom, Polygon) else \
        [g for g in getattr(geom, "geoms", []) if isinstance(g, Polygon)]
    verts, codes = [], []
    for p in polys:
        if p.is_empty:
            continue
        p = orient(p, 1.0)
        for ring in [p.exterior, *p.interiors]:
            cs = np.asarray(ring.coords)
            verts.extend(cs.tolist())
            codes.extend([MplPath.MOVETO] + [MplPath.LINETO] * (len(cs) - 2) + [MplPath.CLOSEPOLY])
    if not verts:
        return None
    return MplPath(np.asarray(verts), codes)


def _add_geom(ax, geom, gid: str, clip=None, **kw) -> bool:
    """Add a shapely geometry as one patch with id ``gid`` (limits are fixed, so not recomputed)."""
    from matplotlib.patches import PathPatch

    p = _path(geom)
    if p is None:
        return False
    patch = PathPatch(p, **kw)
    patch.set_gid(gid)
    ax.add_artist(patch)  # add_patch would recompute the data limits from every Bezier segment (slow)
    if clip is not None:
        patch.set_clip_path(clip)
    return True


NAMED_COLOURS = {"blue": "#1f5fbf", "red": "#c0392b", "green": "#2e8b57", "purple": "#8e44ad",
                 "orange": "#d35400", "teal": "#16a085", "yellow": "#b7950b", "black": "#2c3e50",
                 "white": "#95a5a6", "grey": "#7f8c8d", "gray": "#7f8c8d"}
"""A player named after a colour is drawn in it (player 'red' in red)."""


def _player_colours(world: World) -> dict[str, str]:
    """Colour of each player: its own name if it names a colour, else the next unused palette colour."""
    out: dict[str, str] = {}
    for p in world.players:
        if p.lower() in NAMED_COLOURS:
            out[p] = NAMED_COLOURS[p.lower()]
    free = [c for c in PLAYER_COLOURS if c not in out.values()] or list(PLAYER_COLOURS)
    k = 0
    for p in world.players:
        if p not in out:
            out[p] = free[k % len(free)]
            k += 1
    return out


def _terrain_style(t) -> tuple[dict, str]:
    """Patch style and legend name of a terrain feature (buildings, impassable, blocking, difficult)."""
    if t.building is not None:
        return dict(facecolor="#8d6e63", edgecolor="#3e2723", hatch="//", linewidth=1.2), "building"
    if t.is_impassable:
        return dict(facecolor="#424242", edgecolor="#000000", hatch="x", linewidth=1.0), "impassable"
    if t.blocks_line_of_sight:
        solid = t.kind is TerrainKind.SOLID
        return dict(facecolor="#9e9e9e" if solid else "#a5d6a7", edgecolor="#424242", linewidth=1.0,
                    hatch=None if solid else "\\"), ("blocks line of sight (solid)" if solid
                                                     else "blocks line of sight (area)")
    if TerrainTrait.DANGEROUS in t.traits:
        return dict(facecolor="#ffe0b2", edgecolor="#e65100", hatch="..", linewidth=1.0), "dangerous"
    if TerrainTrait.DIFFICULT in t.traits:
        return dict(facecolor="#fff9c4", edgecolor="#9e9d24", hatch="..", linewidth=0.8), "difficult"
    return dict(facecolor="#eeeeee", edgecolor="#9e9e9e", linewidth=0.8), "open terrain"


LABEL_CHAR_IN = 0.36
"""Estimated width of a unit-label character on the battlefield, inches (5.5 pt bold on a 10" axes)."""
LABEL_HEIGHT_IN = 0.85


def _label_spot(boxes: list, x: float, top: float, bottom: float, n_chars: int, width: float) -> tuple[float, float]:
    """Where a unit's label goes: above the unit, else below it, else higher up, clear of the labels
    already placed (``boxes`` is updated). Returns the label's bottom-centre."""
    half = n_chars * LABEL_CHAR_IN / 2
    x = min(max(x, half), width - half)
    tries = [top + 0.35, bottom - 0.35 - LABEL_HEIGHT_IN] + [top + 0.35 + k * LABEL_HEIGHT_IN for k in range(1, 6)]
    for y in tries:
        box = (x - half, y, x + half, y + LABEL_HEIGHT_IN)
        if all(box[2] <= b[0] or box[0] >= b[2] or box[3] <= b[1] or box[1] >= b[3] for b in boxes):
            boxes.append(box)
            return x, y
    boxes.append((x - half, tries[0], x + half, tries[0] + LABEL_HEIGHT_IN))
    return x, tries[0]


def _safe(s: object) -> str:
    """An id-safe version of a name (ids stay readable; spaces become '_')."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in str(s))


def build_figure(world: World, report: LegalityReport | None = None, options: RenderOptions | None = None):
    """Draw the battlefield; return (figure, :class:`RenderSummary`). The caller closes the figure.

    Raises
    ------
    ScenarioError
        An overlay names an unknown unit/player or cannot be drawn for this ruleset.
    """
    from matplotlib.patches import Patch

    opts = options or RenderOptions()
    _, plt = _plt()
    bf = world.scenario.battlefield
    W, D = float(bf.width), float(bf.depth)
    colours = _player_colours(world)
    summary = RenderSummary()
    legend = _Legend()
    ax_w = 10.0
    lay = _Layout(ax_w, HEAT_BAR_IN if opts.heat is not None else 0.0)
    fig, ax = _figure_and_axes(plt, world, opts, W, D, lay)
    table = _draw_table(ax, W, D)
    _draw_zones(ax, world, colours, summary, legend)
    if opts.heat is not None:  # under terrain and models
        _draw_heat(fig, ax, opts.heat, summary, lay)
    _draw_terrain(ax, world, summary, legend)
    _draw_objectives(ax, world, summary, legend)
    # overlays under the models: exclusion areas and legal area
    if opts.exclusion_for is not None:
        _draw_exclusion(ax, world, opts.exclusion_for, table, summary, legend)
    if opts.legal_area is not None:
        _draw_legal_area(ax, world, opts.legal_area, summary, legend)
    if opts.arrival is not None:
        _draw_arrival(ax, world, opts.arrival, table, colours, summary, legend)
    if opts.exposure is not None:
        _draw_threat_regions(ax, opts.exposure, summary, legend)
    offtable = _draw_units(ax, world, colours, W, summary, legend)
    if opts.exposure is not None:
        _draw_losses(ax, world, opts.exposure, summary, legend)
    if opts.formation is not None:
        label, fps = opts.formation
        # the controller's colour (its models still to land: dashed outlines, as none stands there yet)
        fc = colours.get(opts.formation_player, "#777777") if opts.formation_player is not None else "#777777"
        for i, fp in enumerate(fps):
            if _add_geom(ax, outline(fp, DRAW_POINTS), f"formation-{i}", facecolor=fc, alpha=0.8,
                         edgecolor="#000000", linewidth=0.8, linestyle="--", zorder=4.5):
                summary.add("formation base")
        legend(Patch(facecolor=fc, alpha=0.8, edgecolor="#000000", linestyle="--"),
               label + (f" ({opts.formation_player})" if opts.formation_player is not None else ""))
    if report is not None:
        _draw_evidence(ax, world, report, opts, summary, legend)
    if opts.heat is not None:
        legend(Patch(facecolor="#f03b20", alpha=0.6), f"Deep Strike heat map: {opts.heat.label} (colour bar)")
    _draw_scale_bar(ax, offtable, W)
    leg = fig.legend(legend.handles, legend.names, loc="upper left", bbox_to_anchor=(lay.legend_x, 0.92),
                     fontsize=6.5, frameon=True, title="Legend", title_fontsize=8)
    leg.set_gid("legend")
    summary.legend = list(legend.names)
    return fig, summary


class _Legend:
    """The legend entries in the order first drawn; calling it adds an entry once per name."""

    def __init__(self) -> None:
        """No entries yet."""
        self.handles: list = []
        self.names: list[str] = []

    def __call__(self, handle, name: str) -> None:
        """Add ``handle`` under ``name`` unless an entry of that name is there already."""
        if name not in self.names:
            self.handles.append(handle)
            self.names.append(name)


LEGEND_ROOM_IN = 4.2
"""Figure width right of the battlefield axes, inches (the legend)."""
HEAT_BAR_IN = 0.8
"""Extra figure width for a heat map's colour bar, its ticks and its label, between the
battlefield and the legend (so that the legend covers neither), inches."""


@dataclass(frozen=True)
class _Layout:
    """Where the battlefield axes, a colour bar and the legend go (figure fractions): the axes
    ``ax_w`` inches wide, then ``bar_in`` inches for a colour bar (0: none), then the legend."""

    ax_w: float
    bar_in: float = 0.0

    @property
    def fig_w(self) -> float:
        return self.ax_w + LEGEND_ROOM_IN + self.bar_in

    @property
    def scale(self) -> float:
        """The fractions of the figure without a colour bar, in this one's (1.0 exactly without)."""
        return (self.ax_w + LEGEND_ROOM_IN) / self.fig_w

    @property
    def ax_rect(self) -> tuple[float, float, float, float]:
        return (0.05 * self.scale, 0.06, self.ax_w / (self.ax_w + LEGEND_ROOM_IN) * 0.95 * self.scale, 0.86)

    @property
    def ax_right(self) -> float:
        return (0.05 + self.ax_w / (self.ax_w + LEGEND_ROOM_IN) * 0.95) * self.scale

    @property
    def bar_rect(self) -> tuple[float, float, float, float]:
        """The colour bar: 0.08" right of the axes, 0.16" wide, the middle two thirds of the height."""
        return (self.ax_right + 0.08 / self.fig_w, 0.16, 0.16 / self.fig_w, 0.66)

    @property
    def legend_x(self) -> float:
        return self.ax_right + self.bar_in / self.fig_w + 0.005 * self.scale


def _figure_and_axes(plt, world: World, opts: RenderOptions, W: float, D: float, lay: _Layout):
    """The figure and the battlefield axes (``lay.ax_w`` inches wide, to scale): limits, ticks, title."""
    ax_w = lay.ax_w
    ax_h = ax_w * (D + 6.0) / (W + 2.0)
    fig = plt.figure(figsize=(lay.fig_w, ax_h + 0.8))
    ax = fig.add_axes(lay.ax_rect)
    ax.set_aspect("equal")
    ax.set_xlim(-1.0, W + 1.0)
    ax.set_ylim(-5.0, D + 1.0)
    ax.set_xticks(np.arange(0.0, W + 0.01, 6.0))
    ax.set_yticks(np.arange(0.0, D + 0.01, 6.0))
    ax.tick_params(labelsize=7)
    for side in ("top", "right", "bottom", "left"):
        ax.spines[side].set_visible(False)
    title = opts.title or world.scenario.name or (Path(world.file).name if world.file else "scenario")
    ax.set_title(f"{title} ({world.scenario.ruleset}, {W:g}\" x {D:g}\")", fontsize=10)
    return fig, ax


def _draw_table(ax, W: float, D: float):
    """The battlefield rectangle (``battlefield``, the overlays' clip path) and the grid."""
    from matplotlib.patches import Rectangle

    table = Rectangle((0, 0), W, D, facecolor="#f5f3ee", edgecolor="#333333", linewidth=1.5, zorder=0)
    table.set_gid("battlefield")
    ax.add_patch(table)
    ax.grid(True, color="#dddddd", linewidth=0.4, zorder=0.5)
    ax.set_axisbelow(True)
    return table


def _draw_zones(ax, world: World, colours: dict[str, str], summary: RenderSummary, legend: _Legend) -> None:
    """Each deployment zone in its player's colour, dashed."""
    from matplotlib.patches import Patch

    for z in world.scenario.deployment_zones:
        c = colours.get(z.player, "#777777")
        if _add_geom(ax, Polygon(z.polygon), f"zone-{_safe(z.id)}", facecolor=c, alpha=0.12, edgecolor=c,
                     linewidth=1.2, linestyle="--", zorder=1):
            summary.add("zone")
        legend(Patch(facecolor=c, alpha=0.25, edgecolor=c, linestyle="--"), f"deployment zone: {z.player}")


def _draw_heat(fig, ax, hm: HeatMap, summary: RenderSummary, lay: _Layout) -> None:
    """The Deep Strike heat map (one cell per grid point) and its colour bar (in its own axes at
    ``lay.bar_rect``, left of the legend: the battlefield axes keep their size)."""
    step_x = float(hm.xs[1] - hm.xs[0]) if len(hm.xs) > 1 else 1.0
    step_y = float(hm.ys[1] - hm.ys[0]) if len(hm.ys) > 1 else 1.0
    im = ax.imshow(hm.values, origin="lower", extent=(hm.xs[0] - step_x / 2, hm.xs[-1] + step_x / 2,
                                                      hm.ys[0] - step_y / 2, hm.ys[-1] + step_y / 2),
                   vmin=0.0, vmax=1.0, cmap="YlOrRd", alpha=0.6, zorder=1.5, interpolation="nearest")
    im.set_gid("heatmap")
    cb = fig.colorbar(im, cax=fig.add_axes(lay.bar_rect))
    cb.set_label(hm.label, fontsize=8)
    summary.add("heatmap")


def _draw_terrain(ax, world: World, summary: RenderSummary, legend: _Legend) -> None:
    """Each terrain feature in the style of its kind, with its name."""
    from matplotlib.patches import Patch

    for t in world.scenario.terrain:
        style, kind = _terrain_style(t)
        if t.has_heights or len(t.all_pieces()) > 1:
            if _draw_pieces(ax, t, style):
                summary.add("terrain")
        elif _add_geom(ax, t.shape, f"terrain-{_safe(t.id)}", zorder=2, alpha=0.85, **style):
            summary.add("terrain")
        legend(Patch(**{k: v for k, v in style.items() if k != "linewidth"}), f"terrain: {kind}")
        _draw_walls_and_floors(ax, t, summary, legend)
        cx, cy = t.shape.representative_point().coords[0]
        name = (t.name or t.id) + (" (roof)" if t.roof else "")
        txt = ax.text(cx, cy, name, fontsize=5, ha="center", va="center", color="#212121", zorder=2.1,
                      clip_on=True)
        txt.set_gid(f"name-terrain-{_safe(t.id)}")


HEIGHT_SHADE_IN = 8.0
"""Heights at or above this (inches) get the darkest shade."""


def _height_alpha(h: float | None) -> float:
    """Opacity of a piece by its height: low pieces pale, tall ones dark, no height (as high as
    any line) darkest."""
    if h is None:
        return 0.95
    return 0.3 + 0.65 * min(h, HEIGHT_SHADE_IN) / HEIGHT_SHADE_IN


def _draw_pieces(ax, t, style: dict) -> bool:
    """Each piece of a feature shaded by its height, labelled with it (inches)."""
    drawn = False
    pieces = t.all_pieces()
    for k, p in enumerate(pieces):
        poly = Polygon(p.footprint)
        gid = f"terrain-{_safe(t.id)}" if len(pieces) == 1 else f"terrain-{_safe(t.id)}-piece-{k}"
        if _add_geom(ax, poly, gid, zorder=2, alpha=_height_alpha(p.height_in),
                     **style):
            drawn = True
        if p.height_in is not None:
            x, y = poly.representative_point().coords[0]
            lab = ax.text(x, y - 0.6, f'{p.height_in:g}"', fontsize=4.5, ha="center", va="center",
                          color="#000000", zorder=2.2, clip_on=True)
            lab.set_gid(f"height-{gid}")
    return drawn


def _draw_walls_and_floors(ax, t, summary: RenderSummary, legend: _Legend) -> None:
    """A feature's walls (dark, with their height) and floors (dashed outlines, with their height)."""
    from matplotlib.patches import Patch

    for k, w in enumerate(t.walls):
        h = w.height_in if w.height_in is not None else t.height_in
        if _add_geom(ax, w.polygon(), f"wall-{_safe(t.id)}-{k}", zorder=2.3, alpha=_height_alpha(h),
                     facecolor="#37474f", edgecolor="#263238", linewidth=0.6):
            summary.add("wall")
            legend(Patch(facecolor="#37474f", edgecolor="#263238"), "wall (label: height)")
        if h is not None:
            x, y = w.polygon().representative_point().coords[0]
            lab = ax.text(x, y, f'{h:g}"', fontsize=4, ha="center", va="bottom", color="#263238", zorder=2.4,
                          clip_on=True)
            lab.set_gid(f"height-wall-{_safe(t.id)}-{k}")
    for k, f in enumerate(t.floors):
        if f.height_in == 0:
            continue
        poly = Polygon(f.footprint) if f.footprint is not None else t.shape
        if _add_geom(ax, poly, f"floor-{_safe(t.id)}-{k}", zorder=2.25, facecolor="none", edgecolor="#1a237e",
                     linewidth=0.7, linestyle=(0, (2, 1.5))):
            summary.add("floor")
            legend(Patch(facecolor="none", edgecolor="#1a237e", linestyle="--"), "upper floor (label: height)")
        x, y = poly.representative_point().coords[0]
        lab = ax.text(x, y + 0.6, f'floor {f.height_in:g}"', fontsize=4, ha="center", va="center",
                      color="#1a237e", zorder=2.4, clip_on=True)
        lab.set_gid(f"floor-label-{_safe(t.id)}-{k}")


def _draw_objectives(ax, world: World, summary: RenderSummary, legend: _Legend) -> None:
    """Each objective marker to scale (its diameter in mm), with its id."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle

    for o in world.scenario.objectives:
        r = o.diameter_mm / 25.4 / 2.0
        circ = Circle((o.x, o.y), r, facecolor="#ffd54f", edgecolor="#5d4037", linewidth=1.2, zorder=2.5)
        circ.set_gid(f"objective-{_safe(o.id)}")
        ax.add_patch(circ)
        ax.text(o.x, o.y - r - 0.5, o.id, fontsize=5.5, ha="center", va="top", zorder=2.5)
        summary.add("objective")
        legend(Line2D([], [], marker="o", linestyle="", markerfacecolor="#ffd54f", markeredgecolor="#5d4037"),
               "objective marker")


def _draw_exclusion(ax, world: World, who: str, table, summary: RenderSummary, legend: _Legend) -> None:
    """The Infiltrate exclusion areas round the enemies of ``who`` (a player, or a unit's player):
    :func:`planner.render.areas.infiltrate_exclusions` (HH2: the plain-sight and hidden distances
    round each enemy unit; 40k: the Infiltrators distance round each enemy unit and each enemy
    deployment zone). Each area outlined (``exclusion-<D>-<unit>``, ``exclusion-<D>-zone-<zone>``),
    their union at each distance filled once (``excluded-<D>``)."""
    from matplotlib.patches import Patch

    player = world.units[who].player if who in world.units else who
    if player not in world.players:
        raise ScenarioError(f"no player or unit with this name (players: {', '.join(world.players)})",
                            file=world.file, location="--exclusion", value=who)
    d, areas = infiltrate_exclusions(world, player, "--exclusion", who)
    enemy_players = ", ".join(p for p in world.players if p != player)
    hh2 = d.hidden_in is not None
    styles: list[tuple[float, str, float, LineStyleType]] = (
        [(d.plain_in, "#ff8f00", 0.16, ":"), (d.hidden_in, "#d50000", 0.16, "-")] if d.hidden_in is not None
        else [(d.plain_in, "#d50000", 0.16, "-")])
    for dist, col, alpha, ls in styles:
        geoms = []
        for kind in ("unit", "zone"):
            drawn = False
            for a in areas:
                if a.distance_in != dist or a.kind != kind:
                    continue
                gid = f"exclusion-{dist:g}-{'zone-' if kind == 'zone' else ''}{_safe(a.source)}"
                # each area as an outline; the union of them filled once (below)
                if _add_geom(ax, a.geom, gid, facecolor="none", alpha=0.8, edgecolor=col, linewidth=0.45,
                             linestyle=ls if kind == "unit" else "--", zorder=3, clip=table):
                    summary.add("exclusion")
                    geoms.append(a.geom)
                    drawn = True
            if kind == "zone" and not drawn:
                continue
            if hh2:
                why = (f"Infiltrate hidden needs more than {dist:g}\"" if dist == d.hidden_in
                       else f"in plain sight more than {dist:g}\"")
            else:
                why = f"Infiltrators need more than {dist:g}\""
            of = f"a unit of {enemy_players}" if kind == "unit" else f"the deployment zone of {enemy_players}"
            legend(Patch(facecolor=col, alpha=alpha + 0.1, edgecolor=col, linestyle=ls if kind == "unit" else "--"),
                   f"within {dist:g}\" of {of} ({why})")
        if geoms:
            _add_geom(ax, unary_union(geoms), f"excluded-{dist:g}", facecolor=col, alpha=alpha, edgecolor="none",
                      zorder=2.9, clip=table)


def _draw_legal_area(ax, world: World, unit: str, summary: RenderSummary, legend: _Legend) -> None:
    """Where ``unit``'s bases may stand for its set-up, and where only if hidden (hatched)."""
    from matplotlib.patches import Patch

    la = legal_area(world, unit)
    if _add_geom(ax, la.certain, f"legal-{_safe(la.unit)}", facecolor="#00c853", alpha=0.22, edgecolor="#1b5e20",
                 linewidth=0.8, zorder=3.2):
        summary.add("legal")
    legend(Patch(facecolor="#00c853", alpha=0.3, edgecolor="#1b5e20"), f"bases may stand: {la.what}")
    if la.if_hidden is not None and _add_geom(ax, la.if_hidden, f"legal-hidden-{_safe(la.unit)}",
                                              facecolor="none", edgecolor="#2e7d32", hatch="////",
                                              linewidth=0.5, zorder=3.2):
        summary.add("legal")
        legend(Patch(facecolor="none", edgecolor="#2e7d32", hatch="////"), la.what_hidden or "only if hidden")


def _draw_units(ax, world: World, colours: dict[str, str], W: float, summary: RenderSummary,
                legend: _Legend) -> list[str]:
    """Every unit's models on the battlefield with facings and a label; returns a note for each
    unit off the battlefield (embarked, in reserves, not yet placed)."""
    from matplotlib.lines import Line2D

    offtable: list[str] = []
    label_boxes: list[tuple[float, float, float, float]] = []
    for u in world.units.values():
        placed = placed_models(u)
        if not placed:
            note = _off_table_note(u)
            if note is not None:
                offtable.append(note)
            continue
        _draw_unit(ax, u, placed, colours.get(u.player, "#777777"), label_boxes, W, summary, legend)
    legend(Line2D([], [], color="#555555", linewidth=0.8), "facing (white tick on each base)")
    return offtable


def _draw_threat_regions(ax, ov: ExposureOverlay, summary: RenderSummary, legend: _Legend) -> None:
    """One translucent region per attacking unit (its own colour from the tab10 cycle)."""
    from matplotlib import colormaps
    from matplotlib.patches import Patch

    cmap = colormaps["tab10"]
    for k, (uid, geom) in enumerate(ov.regions):
        c = cmap(k % 10)
        if _add_geom(ax, geom, f"threat-{_safe(uid)}", facecolor=c, alpha=0.12, edgecolor=c, linewidth=0.8,
                     zorder=2.5):
            summary.add("threat region")
            legend(Patch(facecolor=c, alpha=0.3, edgecolor=c), f"threat region of {uid} (move + range)")


def _draw_losses(ax, world: World, ov: ExposureOverlay, summary: RenderSummary, legend: _Legend) -> None:
    """A ring round each base of my units, coloured by the share of the unit's models expected lost."""
    from matplotlib import colormaps
    from matplotlib.patches import Patch

    cmap = colormaps["YlOrRd"]
    for uid, (lost, n) in ov.losses.items():
        u = world.units.get(uid)
        if u is None:
            continue
        share = lost / n if n else 0.0
        c = cmap(0.15 + 0.85 * min(1.0, share))
        for m, fp in placed_models(u):
            if _add_geom(ax, outline(fp, DRAW_POINTS).buffer(0.35).difference(outline(fp, DRAW_POINTS)),
                         f"loss-{_safe(uid)}-{_safe(m.id)}", facecolor=c, edgecolor="none", zorder=4.2):
                summary.add("loss ring")
        xs = [fp.cx for _, fp in placed_models(u)]
        ys = [fp.cy - fp.outer_radius for _, fp in placed_models(u)]
        if xs:
            t = ax.text(float(np.mean(xs)), min(ys) - 0.4, f"{lost:.2f} of {n} lost", fontsize=5, ha="center",
                        va="top", color="#7f0000", zorder=6, clip_on=True)
            t.set_gid(f"loss-label-{_safe(uid)}")
    legend(Patch(facecolor=cmap(0.6)), "ring: share of the unit's models expected lost (yellow none, red all)")


def _off_table_note(u) -> str | None:
    """Why a unit with no model on the battlefield is not drawn (None: nothing to say)."""
    if u.method is SetupMethod.EMBARKED:
        return f"{u.id} (embarked in {u.setup.in_})"
    if u.method is SetupMethod.RESERVES:
        return f"{u.id} (reserves{', ' + u.setup.arrival if u.setup.arrival != 'reserves' else ''})"
    if u.on_battlefield:
        return f"{u.id} (not yet placed)"
    return None


def _draw_unit(ax, u, placed: list, c: str, label_boxes: list[tuple[float, float, float, float]], W: float,
               summary: RenderSummary, legend: _Legend) -> None:
    """One unit's bases in colour ``c``, a white facing tick on each, and its label clear of the
    labels already placed (``label_boxes`` is updated)."""
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Patch

    ticks = []
    for m, fp in placed:
        if _add_geom(ax, outline(fp, DRAW_POINTS), f"base-{_safe(u.id)}-{_safe(m.id)}", facecolor=c, alpha=0.75,
                     edgecolor="#111111", linewidth=0.5, zorder=4):
            summary.add("base")
        ang = math.radians(m.facing)
        reach = fp.support(math.cos(ang), math.sin(ang)) - (fp.cx * math.cos(ang) + fp.cy * math.sin(ang))
        ticks.append([(fp.cx, fp.cy), (fp.cx + reach * math.cos(ang), fp.cy + reach * math.sin(ang))])
    lc = LineCollection(ticks, colors="#ffffff", linewidths=0.6, zorder=4.1)
    lc.set_gid(f"facing-{_safe(u.id)}")
    ax.add_collection(lc)
    xs = [fp.cx for _, fp in placed]
    top = max(fp.cy + fp.outer_radius for _, fp in placed)
    bottom = min(fp.cy - fp.outer_radius for _, fp in placed)
    lx, ly = _label_spot(label_boxes, float(np.mean(xs)), top, bottom, len(u.id), W)
    lab = ax.text(lx, ly, u.id, fontsize=5.5, ha="center", va="bottom", color=c,
                  fontweight="bold", zorder=6, clip_on=True)
    lab.set_gid(f"label-{_safe(u.id)}")
    summary.add("unit")
    legend(Patch(facecolor=c, alpha=0.75, edgecolor="#111111"), f"models of {u.player}")


def _draw_scale_bar(ax, offtable: list[str], W: float) -> None:
    """The scale bar (inches, ticks every 3") under the battlefield, and the off-table note beside it."""
    from matplotlib.lines import Line2D

    sb_y = -2.6
    bar = Line2D([0, SCALE_BAR_IN], [sb_y, sb_y], color="#000000", linewidth=2.0, solid_capstyle="butt")
    bar.set_gid("scalebar")
    ax.add_line(bar)
    for k, x in enumerate(np.arange(0.0, SCALE_BAR_IN + 0.01, 3.0)):
        tick = Line2D([x, x], [sb_y - 0.35, sb_y + 0.35], color="#000000", linewidth=1.0)
        tick.set_gid(f"scalebar-tick-{k}")
        ax.add_line(tick)
    ax.text(SCALE_BAR_IN + 0.6, sb_y, f"{SCALE_BAR_IN:g}\" (ticks every 3\")", fontsize=6.5, va="center")
    if offtable:
        import textwrap

        lines = textwrap.wrap("Off the battlefield: " + "; ".join(offtable), width=int(W * 2.2))
        ot = ax.text(SCALE_BAR_IN + 14.0, sb_y, "\n".join(lines[:3] + (["..."] if len(lines) > 3 else [])),
                     fontsize=5.5, va="center")
        ot.set_gid("offtable")


def _draw_arrival(ax, world: World, a: ArrivalCells, table, colours, summary: RenderSummary, legend) -> None:
    """The enemy unit's legal arrival cells (one square each), its best placement and the protected point."""
    from matplotlib.collections import PatchCollection
    from matplotlib.lines import Line2D
    from matplotlib.patches import Circle, Patch, Rectangle

    from planner.geometry.shapes import footprint

    g = float(a.cell_in)
    cells = sorted({(float(x), float(y)) for x, y in a.cells})
    if cells:
        squares = [Rectangle((x - g / 2, y - g / 2), g, g) for x, y in cells]
        pc = PatchCollection(squares, facecolor="#ff6f00", edgecolor="#e65100", linewidth=0.3, alpha=0.35,
                             zorder=3.3)
        pc.set_gid(f"threat-area-{_safe(a.unit)}")
        pc.set_clip_path(table)
        ax.add_collection(pc, autolim=False)
        summary.add("threat_cell", len(cells))
    if a.label:
        legend(Patch(facecolor="#ff6f00", alpha=0.45, edgecolor="#e65100"), a.label)
    if a.best:
        owner = world.units.get(a.unit)
        col = colours.get(owner.player, "#777777") if owner is not None else "#777777"
        for uid, spots in a.best.items():
            u = world.units.get(uid)
            if u is None:
                continue
            for m, (x, y, f) in zip(u.models, spots, strict=False):
                fp = footprint(m.base, float(x), float(y), float(f))
                if _add_geom(ax, outline(fp, DRAW_POINTS), f"threat-best-{_safe(uid)}-{_safe(m.id)}",
                             facecolor="none", edgecolor=col, hatch="xxxx", linewidth=1.2, zorder=4.5):
                    summary.add("threat_best")
        legend(Patch(facecolor="none", edgecolor=col, hatch="xxxx"), a.best_label)
    if a.protect is not None:
        px, py, r = float(a.protect[0]), float(a.protect[1]), a.protect[2]
        if r is not None:
            disc = Circle((px, py), float(r), facecolor="none", edgecolor="#6a1b9a", linewidth=1.2, linestyle="--",
                          zorder=5)
            disc.set_gid("protected-radius")
            ax.add_artist(disc)
            disc.set_clip_path(table)
        mk = Line2D([px], [py], marker="P", markersize=7, color="#6a1b9a", linestyle="", zorder=5)
        mk.set_gid("protected-point")
        ax.add_line(mk)
        summary.add("protected")
        legend(Line2D([], [], marker="P", color="#6a1b9a", linestyle="--"),
               f"protected point ({px:g}, {py:g})" + (f", radius {float(r):g}\"" if r is not None else ""))


def _draw_evidence(ax, world: World, report: LegalityReport, opts: RenderOptions, summary: RenderSummary,
                   legend) -> None:
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    def unit_outline(uid: str):
        u = world.units.get(uid)
        if u is None:
            return None
        parts = [outline(fp, DRAW_POINTS) for _, fp in placed_models(u)]
        return unary_union(parts) if parts else None

    def model_outline(uid: str, mid: str | None):
        u = world.units.get(uid)
        if u is None or mid is None:
            return None
        mid = mid.split("/", 1)[1] if "/" in mid else mid
        for m, fp in placed_models(u):
            if m.id == mid:
                return outline(fp, DRAW_POINTS)
        return None

    drawn: set[str] = set()
    drawn_passes: set[tuple] = set()
    k_line = 0
    for ur in report.units:
        for f in ur.findings:
            ev = f.evidence
            if opts.sight_lines and ev.sight_line and len(ev.sight_line) == 2:
                (x0, y0), (x1, y1) = ev.sight_line
                ln = Line2D([x0, x1], [y0, y1], color="#d50000", linewidth=1.1, linestyle="-", marker="o",
                            markersize=2.5, zorder=7)
                ln.set_gid(f"sightline-clear-{_safe(f.unit)}-{k_line}")
                ax.add_line(ln)
                for sp in ev.sight_passes:  # how high the clear line passes each piece it crosses
                    top = "any height" if sp.top_in is None else f'top {sp.top_in:g}"'
                    lab = ax.text(sp.at[0], sp.at[1], f'{sp.feature}{" " + sp.piece if sp.piece else ""}: line {sp.line_in:.2f}" over {top}',
                                  fontsize=4, color="#d50000", zorder=7.1, clip_on=True)
                    lab.set_gid(f"sightpass-{_safe(f.unit)}-{k_line}-{_safe(sp.feature)}")
                k_line += 1
                summary.add("sightline")
                legend(Line2D([], [], color="#d50000", marker="o", markersize=2.5),
                       "clear sight line (evidence: the unit is seen)")
            if opts.sight_lines and f.passed and ev.blocking_features and ev.observer_units:
                target = unit_outline(f.unit)
                blockers = {t.id: t.shape for t in world.scenario.terrain
                            if t.id in ev.blocking_features}
                for obs in ev.observer_units:
                    src = unit_outline(obs)
                    if target is None or src is None:
                        continue
                    a, b = src.centroid, target.centroid
                    seg = LineString([a, b])
                    crossed = []
                    for tid, poly in blockers.items():
                        inter = seg.intersection(poly)
                        if inter.is_empty:
                            continue
                        crossed.append((min(seg.project(Point(c)) for g in getattr(inter, "geoms", [inter])
                                            for c in g.coords), tid))
                    if not crossed:
                        continue
                    dist, tid = min(crossed)
                    hit = seg.interpolate(dist)
                    gid = f"sightline-blocked-{_safe(f.unit)}-{_safe(obs)}"
                    if gid in drawn:
                        continue
                    drawn.add(gid)
                    ln = Line2D([a.x, b.x], [a.y, b.y], color="#616161", linewidth=0.7, linestyle=(0, (3, 2)),
                                zorder=6.5)
                    ln.set_gid(gid)
                    ax.add_line(ln)
                    mk = Line2D([hit.x], [hit.y], marker="X", color="#000000", markersize=5, linestyle="",
                                zorder=6.6)
                    mk.set_gid(f"{gid}-at-{_safe(tid)}")
                    ax.add_line(mk)
                    for sp in ev.sight_passes:  # the blocking piece and how high the centre line passes it
                        key = (f.unit, f.rule, sp.feature, sp.piece, tuple(sp.at))
                        if sp.blocks and sp.top_in is not None and key not in drawn_passes:
                            # once per finding (not once per observer's line, all at the same point),
                            # set off above the point on a light box, clear of the X markers on the edge
                            drawn_passes.add(key)
                            lab = ax.annotate(f'{sp.feature}{" " + sp.piece if sp.piece else ""}: top {sp.top_in:g}" '
                                              f'above the line at {sp.line_in:.2f}"', xy=(sp.at[0], sp.at[1]),
                                              xytext=(0, 6), textcoords="offset points", ha="center", va="bottom",
                                              fontsize=4, color="#000000", zorder=6.7, annotation_clip=True,
                                              bbox={"boxstyle": "round,pad=0.15", "facecolor": "#ffffff",
                                                    "edgecolor": "none", "alpha": 0.8})
                            lab.set_gid(f"{gid}-pass-{_safe(sp.feature)}")
                    summary.add("sightline")
                    legend(Line2D([], [], color="#616161", linewidth=0.7, linestyle=(0, (3, 2)), marker="X",
                                  markersize=4, markerfacecolor="#000000"),
                           "blocked sight line (centre to centre; X = blocking feature)")
            if opts.violations and not f.passed:
                geom = model_outline(f.unit, f.model)
                gid = f"violation-{_safe(f.unit)}" + (f"-{_safe(f.model)}" if geom is not None else "")
                if geom is None:
                    geom = unit_outline(f.unit)
                if geom is not None and gid not in drawn:
                    drawn.add(gid)
                    ring = geom.buffer(0.45, quad_segs=8).difference(geom.buffer(0.12, quad_segs=8)).simplify(0.005)
                    if _add_geom(ax, ring, gid, facecolor="#ff1744", edgecolor="none", alpha=0.9, zorder=5):
                        summary.add("violation")
                    legend(Patch(facecolor="#ff1744"), "violation (rule broken here)")
                # the measurement behind a broken distance rule
                if ev.nearest_enemy_unit and ev.nearest_enemy_model and f.measured is not None:
                    mine = model_outline(f.unit, ev.model or f.model)
                    theirs = model_outline(ev.nearest_enemy_unit, ev.nearest_enemy_model)
                    if mine is not None and theirs is not None:
                        p, q = nearest_points(mine, theirs)
                        ln = Line2D([p.x, q.x], [p.y, q.y], color="#ff1744", linewidth=1.2, zorder=7)
                        ln.set_gid(f"measure-{_safe(f.unit)}-{k_line}")
                        ax.add_line(ln)
                        k_line += 1
                        ax.text((p.x + q.x) / 2, (p.y + q.y) / 2, f"{f.measured:.2f}\"", fontsize=6, color="#b71c1c",
                                zorder=7, ha="center", va="bottom")
                        summary.add("measure")
                        legend(Line2D([], [], color="#ff1744", linewidth=1.2), "measured distance of a violation")


def render_bytes(world: World, fmt: str, report: LegalityReport | None = None,
                 options: RenderOptions | None = None) -> tuple[bytes, RenderSummary]:
    """The picture as ``fmt`` ('svg' or 'png') bytes, deterministic for the same input."""
    matplotlib, plt = _plt()
    if fmt not in ("svg", "png"):
        raise ScenarioError("the picture must be .svg or .png", location="--render", value=fmt)
    opts = options or RenderOptions()
    rc = {"svg.hashsalt": SVG_HASH_SALT, "svg.fonttype": "none", "font.family": "DejaVu Sans",
          "path.simplify": False, "hatch.linewidth": 0.5}
    with matplotlib.rc_context(rc):
        fig, summary = build_figure(world, report, opts)
        buf = io.BytesIO()
        try:
            meta = {"Date": None} if fmt == "svg" else {"Software": None}
            fig.savefig(buf, format=fmt, dpi=opts.dpi, metadata=meta, bbox_inches="tight", pad_inches=0.15)
        finally:
            plt.close(fig)
    return buf.getvalue(), summary


def render_file(world: World, target: str | Path, report: LegalityReport | None = None,
                options: RenderOptions | None = None, *, option: str = "--render") -> RenderSummary:
    """Write the picture to ``target`` (.svg or .png by its extension).

    Raises
    ------
    ScenarioError
        Another extension, the file cannot be written, or it is an input of the run (naming
        ``option``, :func:`planner.io.outputs.write_output`).
    """
    ext = Path(target).suffix.lower().lstrip(".")
    if ext not in ("svg", "png"):
        raise ScenarioError("the picture file must end in .svg or .png", location=option, value=str(target))
    from planner.io.outputs import write_output

    data, summary = render_bytes(world, ext, report, options)
    write_output(target, data, option, what="picture")  # atomic; never over an input of the run
    return summary
