"""Battlefield pictures (matplotlib, Agg backend): see :mod:`planner.render.draw`."""

from planner.render.draw import HeatMap, RenderOptions, RenderSummary, render_bytes, render_file

__all__ = ["HeatMap", "RenderOptions", "RenderSummary", "render_bytes", "render_file"]
