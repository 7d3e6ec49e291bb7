"""Battlefield pictures (matplotlib, Agg backend): see :mod:`planner.render.draw`."""

from planner.render.draw import (
    ArrivalCells,
    ExposureOverlay,
    HeatMap,
    RenderOptions,
    RenderSummary,
    render_bytes,
    render_file,
)

__all__ = ["ArrivalCells", "ExposureOverlay", "HeatMap", "RenderOptions", "RenderSummary", "render_bytes",
           "render_file"]
