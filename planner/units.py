"""Unit constants: the only place that converts between millimetres and inches.

Distances in the rules are in inches; base sizes are sold in millimetres.
"""

from __future__ import annotations

MM_PER_INCH = 25.4
"""One inch is exactly 25.4 mm."""

TOLERANCE_IN = 1e-6
"""The single geometric tolerance, in inches.

Measured distances are computed to about 1e-9"; a comparison against a rule's threshold
treats values within ``TOLERANCE_IN`` of it as equal to it. "Within 9"" therefore holds up to
9.000001", and "more than 9"" needs at least 9.000001". A base touching a zone edge is wholly
within the zone; bases touching each other do not overlap. No rules question turns on a
millionth of an inch, and the tolerance keeps the answer stable against floating-point noise.
"""


def mm_to_in(mm: float) -> float:
    """Convert millimetres to inches (exact: divides by 25.4)."""
    return mm / MM_PER_INCH


def in_to_mm(inches: float) -> float:
    """Convert inches to millimetres (exact: multiplies by 25.4)."""
    return inches * MM_PER_INCH
