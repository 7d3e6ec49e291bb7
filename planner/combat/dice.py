"""Exact discrete distributions for dice maths: a distribution is a tuple of probabilities.

``pmf[k]`` is the probability of the outcome ``k`` (wounds, models, damage: whole numbers from 0).
All functions are pure and exact up to float rounding (no sampling).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

Pmf = tuple[float, ...]

_DICE_RE = re.compile(r"^\s*(\d*)\s*[dD]\s*(\d+)\s*(?:([+-])\s*(\d+))?\s*$")


def d6_at_least(need: int) -> float:
    """P(one D6 scores ``need`` or more); ``need`` below 1 is certain, above 6 impossible."""
    return min(1.0, max(0.0, (7 - need) / 6.0))


def convolve(a: Sequence[float], b: Sequence[float]) -> Pmf:
    """Distribution of the sum of two independent whole-number outcomes."""
    out = [0.0] * (len(a) + len(b) - 1)
    for i, pa in enumerate(a):
        if pa:
            for j, pb in enumerate(b):
                out[i + j] += pa * pb
    return tuple(out)


def power(a: Sequence[float], n: int) -> Pmf:
    """Distribution of the sum of ``n`` independent copies of ``a`` (``n >= 0``)."""
    out: Pmf = (1.0,)
    base: Pmf = tuple(a)
    while n:
        if n & 1:
            out = convolve(out, base)
        n >>= 1
        if n:
            base = convolve(base, base)
    return out


def binomial(n: int, p: float) -> Pmf:
    """Binomial(n, p) as a pmf of length ``n + 1``."""
    return tuple(math.comb(n, k) * p**k * (1 - p) ** (n - k) for k in range(n + 1))


MAX_DICE_VALUE = 100
"""The largest shots, attacks or damage value (per model) the dice maths takes: a bigger one is an
input error, not a volley too large to compute."""


def parse_dice(text: str | int) -> Pmf:
    """A damage or shots value (``2``, ``"D3"``, ``"D6+1"``, ``"2D6"``) as a pmf.

    Raises ``ValueError`` naming the value when it is not a whole number or ``[N]D{3,6}[+-M]``, or
    when it can exceed :data:`MAX_DICE_VALUE`.
    """
    if isinstance(text, int):
        if text < 0:
            raise ValueError(f"dice value {text!r} is negative")
        if text > MAX_DICE_VALUE:
            raise ValueError(f"dice value {text!r} is more than {MAX_DICE_VALUE}")
        return tuple([0.0] * text + [1.0])
    s = str(text).strip()
    if s.isdigit():
        return parse_dice(int(s))
    m = _DICE_RE.match(s)
    if not m:
        raise ValueError(f"dice value {text!r} is not a number or NDX[+M] (e.g. 'D6+1')")
    count = int(m.group(1) or 1)
    faces = int(m.group(2))
    if faces not in (3, 6) or count < 1 or count > 10:
        raise ValueError(f"dice value {text!r}: only 1-10 D3 or D6")
    mod = int(m.group(4) or 0) * (-1 if m.group(3) == "-" else 1)
    if count * faces + mod > MAX_DICE_VALUE:
        raise ValueError(f"dice value {text!r} can be more than {MAX_DICE_VALUE}")
    one = (0.0,) + tuple([1.0 / faces] * faces)
    total = power(one, count)
    out = [0.0] * max(1, len(total) + mod)
    for k, p in enumerate(total):
        out[max(0, k + mod)] += p
    return tuple(out)


def mean(pmf: Sequence[float]) -> float:
    """Expected value."""
    return sum(k * p for k, p in enumerate(pmf))


def variance(pmf: Sequence[float]) -> float:
    """Variance."""
    m = mean(pmf)
    return sum((k - m) ** 2 * p for k, p in enumerate(pmf))


def trim(pmf: Sequence[float]) -> Pmf:
    """Drop trailing zero-probability outcomes (keeps at least outcome 0)."""
    end = len(pmf)
    while end > 1 and pmf[end - 1] == 0.0:
        end -= 1
    return tuple(pmf[:end])
