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

from ortools.sat.python import cp_model


class _Unit(Protocol):
    @property
    def id(self) -> str: ...


class _Candidate(Protocol):
    @property
    def index(self) -> int: ...


def add_placements(cp: cp_model.CpModel, groups: Sequence[_Unit], cands: Mapping[str, Sequence[_Candidate]],
                   overlaps: Iterable[tuple[str, int, str, int]], ids: Mapping[str, str]
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
    by_a: dict[tuple[str, int, str], list[int]] = {}
    for ga, ia, gb, ib in overlaps:
        if (ga, ia) in x and (gb, ib) in x:
            by_a.setdefault((ga, ia, gb), []).append(ib)
    for (ga, ia, gb), ibs in by_a.items():
        cp.add_at_most_one([x[ga, ia]] + [x[gb, ib] for ib in ibs]).with_name(f"{ids['overlap']}[{ga}@{ia},{gb}]")
    return x
