"""Memoisation of the volley functions on their (frozen, hashable) arguments.

Exposure and planning goals ask for the same (attacker, target, modifiers) volley many times; the
records are frozen dataclasses, so a volley is computed once. Arguments that cannot be hashed (a
list where a tuple is expected) are computed every time rather than failing.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache, wraps
from typing import Any, TypeVar

R = TypeVar("R")

CACHE_SIZE = 4096
"""Volleys kept per function (least recently used dropped first)."""


def memoised(fn: Callable[..., R]) -> Callable[..., R]:
    """``fn`` with an LRU cache of :data:`CACHE_SIZE` results; ``.cache_clear()`` empties it."""
    cached = lru_cache(maxsize=CACHE_SIZE)(fn)

    @wraps(fn)
    def wrapper(*args: Any) -> R:
        try:
            hash(args)
        except TypeError:
            return fn(*args)
        return cached(*args)

    wrapper.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    wrapper.cache_info = cached.cache_info  # type: ignore[attr-defined]
    return wrapper
