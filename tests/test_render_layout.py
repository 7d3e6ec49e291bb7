"""Picture layout (fresh13 finding 14): the legend clear of a heat map's colour bar, its ticks and
its label; a blocked sight line's height note written once, off the X markers on the blocking edge."""

from __future__ import annotations

from pathlib import Path

import pytest

from planner.cli.render import deepstrike_heat
from planner.legality.checker import check_deployment
from planner.render import RenderOptions
from planner.render.draw import build_figure
from planner.world import load_scenario

ROOT = Path(__file__).resolve().parents[1]
LONG_EDGE = ROOT / "scenarios" / "long-edge-ravenguard-vs-ironhands.yaml"


@pytest.fixture(scope="module")
def long_edge_heat():
    world = load_scenario(LONG_EDGE)
    report = check_deployment(world)
    heat = deepstrike_heat(world, "ih-assault", resolution=2.0)
    fig, _ = build_figure(world, report, RenderOptions(heat=heat, dpi=110))
    fig.canvas.draw()
    yield fig
    import matplotlib.pyplot as plt

    plt.close(fig)


def _by_gid(fig, gid: str):
    return [a for a in fig.findobj() if getattr(a, "get_gid", lambda: None)() == gid]


def test_the_legend_covers_neither_the_colour_bar_nor_its_label(long_edge_heat):
    fig = long_edge_heat
    r = fig.canvas.get_renderer()
    legend = _by_gid(fig, "legend")[0].get_window_extent(r)
    bar_ax = fig.axes[1]  # the colour bar's own axes
    bar = bar_ax.get_tightbbox(r)  # the bar, its tick labels ("0.8") and its axis label
    assert bar.x1 < legend.x0, (bar, legend)
    battlefield = fig.axes[0].get_window_extent(r)
    assert battlefield.x1 < bar.x0  # and the bar is right of the battlefield, not over it


def test_the_blocked_sight_line_note_is_written_once_off_the_markers(long_edge_heat):
    fig = long_edge_heat
    r = fig.canvas.get_renderer()
    notes = [a for a in fig.findobj() if "-pass-" in (getattr(a, "get_gid", lambda: None)() or "")]
    assert len(notes) == 1  # one note per finding, not one per observer (7 observers' lines cross it)
    assert notes[0].get_text() == 't-manufactorum: top 8" above the line at 1.25"'
    box = notes[0].get_window_extent(r)
    markers = [a for a in fig.findobj() if "-at-" in (getattr(a, "get_gid", lambda: None)() or "")]
    assert len(markers) == 7
    for m in markers:
        x, y = m.get_xydata()[0]
        px, py = fig.axes[0].transData.transform((x, y))
        # the X (markersize 5 points: 2.5 points round its centre) is below the note's box
        assert py + 2.5 * fig.dpi / 72 < box.y0 or not (box.x0 <= px <= box.x1), (m.get_gid(), px, py, box)
