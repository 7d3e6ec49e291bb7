"""The one CP-SAT placement builder: every plan (``planner plan``) and every denial screen (the
``deny`` goal) places its units with it.

Each unit being placed has one Boolean per candidate placement, ``place[<unit>@<index>]``; exactly
one of them is true (constraint ``<ruleset>.placement.one[<unit>]``); a candidate and the
candidates of another unit whose bases it overlaps are at most one true
(``<ruleset>.bases.no_overlap[<unit>@<index>,<other unit>]``: the other unit places exactly one,
so this is valid, and tighter than pairwise clauses). Rule ids come from the scenario's ruleset
(:func:`planner.solve.planner.rule_ids`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import numpy as np
from ortools.sat.python import cp_model


class _Unit(Protocol):
    @property
    def id(self) -> str: ...


class _Candidate(Protocol):
    @property
    def index(self) -> int: ...


def add_placements(cp: cp_model.CpModel, groups: Sequence[_Unit], cands: Mapping[str, Sequence[_Candidate]],
                   overlaps: Iterable[tuple[str, int, str, int]], ids: Mapping[str, str],
                   overlap_arrays: Iterable[tuple[str, np.ndarray, str, np.ndarray]] = ()
                   ) -> dict[tuple[str, int], cp_model.IntVar]:
    """Add the placement variables and constraints to ``cp``.

    Parameters
    ----------
    cp : CpModel
        The model to add to.
    groups : sequence
        The units being placed (anything with an ``id``).
    cands : mapping
        Unit id -> its candidates (anything with an ``index``) that the model may choose from.
    overlaps : iterable of (unit, index, other unit, other index)
        Pairs of candidates of two different units whose bases overlap (exact); pairs naming a
        candidate not in ``cands`` are ignored.
    ids : mapping
        The ruleset's ids: ``'one'`` and ``'overlap'`` (:func:`planner.solve.planner.rule_ids`).
    overlap_arrays : iterable of (unit, indices, other unit, other indices)
        More such pairs, as two integer arrays of candidate indices per pair of units (the same
        constraints as ``overlaps``, built without a Python tuple per pair).

    Returns
    -------
    dict
        ``(unit id, candidate index) -> Boolean``.
    """
    x: dict[tuple[str, int], cp_model.IntVar] = {}
    for g in groups:
        for c in cands[g.id]:
            x[g.id, c.index] = cp.new_bool_var(f"place[{g.id}@{c.index}]")
        cp.add_exactly_one(x[g.id, c.index] for c in cands[g.id]).with_name(f"{ids['one']}[{g.id}]")
    by_pair: dict[tuple[str, str], tuple[list[int], list[int]]] = {}
    for ga, ia, gb, ib in overlaps:
        got = by_pair.setdefault((ga, gb), ([], []))
        got[0].append(ia)
        got[1].append(ib)
    blocks = [(ga, np.array(ia, dtype=np.int64), gb, np.array(ib, dtype=np.int64)) for (ga, gb), (ia, ib) in
              by_pair.items()]
    live = {g.id: np.array(sorted(c.index for c in cands[g.id]), dtype=np.int64) for g in groups}
    for ga, ia, gb, ib in [*blocks, *overlap_arrays]:
        if ga not in live or gb not in live:
            continue
        keep = np.isin(ia, live[ga]) & np.isin(ib, live[gb])
        ia, ib = ia[keep], ib[keep]
        if not len(ia):
            continue
        order = np.lexsort((ib, ia))  # by candidate of the first unit (stable within)
        ia, ib = ia[order], ib[order]
        starts = np.flatnonzero(np.r_[True, ia[1:] != ia[:-1]])
        ends = np.r_[starts[1:], len(ia)]
        vb = {int(j): x[gb, int(j)] for j in np.unique(ib).tolist()}
        ibl = ib.tolist()
        for s0, e0, i in zip(starts.tolist(), ends.tolist(), ia[starts].tolist(), strict=True):
            cp.add_at_most_one([x[ga, i]] + [vb[j] for j in ibl[s0:e0]]).with_name(
                f"{ids['overlap']}[{ga}@{i},{gb}]")
    return x
