"""Exact wound allocation: a Markov chain over the target unit, one wounding attack at a time.

The target unit is a list of :class:`Group` records (models with one W and one save against this
attack). Each wounding attack is allocated to the first group of an allocation order that still has
models; that group's save is rolled (``Group.unsaved`` is the chance it fails, already including
every save the model may choose from); a failed save deals damage drawn from ``Group.damage`` (a pmf
of wounds lost *after* damage mitigation rolls) to the group's wounded model first. A model whose
wounds reach 0 is removed and excess damage is lost (40k 10th/11th: "excess damage is lost"; Horus
Heresy: every unsaved wound is one wound, Instant Death removes the model, so no spill exists).
Attacks allocated when no model is left do nothing.

Because the attacks of one volley are independent and identically distributed, the distribution of
the number of wounding attacks (per kind: normal, and precision wounds the attacker allocates) and
this chain give the exact distribution of models lost and wounds lost.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from planner.combat.dice import Pmf, trim


@dataclass(frozen=True)
class Group:
    """Models of the target unit that share W and their save against this attack.

    ``models`` models of ``wounds`` W each; ``wounded`` wounds already lost by one of them;
    ``unsaved`` P(an attack allocated here is not saved); ``damage`` pmf of wounds lost per unsaved
    attack (outcome 0: ignored by a damage mitigation roll); ``character`` for 40k's order.
    """

    name: str
    models: int
    wounds: int
    unsaved: float
    damage: Pmf
    character: bool = False
    wounded: int = 0


State = tuple[tuple[int, ...], int, int]  # (per group: models left, current model's wounds left ...), unsaved, lost


@dataclass(frozen=True)
class ChainResult:
    """Distributions after a volley: failed saves, wounds lost by models, models lost (total and by group)."""

    unsaved: Pmf
    wounds_lost: Pmf
    models_lost: Pmf
    group_models_lost_mean: tuple[float, ...]


def _initial(groups: Sequence[Group]) -> tuple[int, ...]:
    flat: list[int] = []
    for g in groups:
        flat += [g.models, (g.wounds - g.wounded) if g.models else 0]
    return tuple(flat)


def _step(dist: dict[State, float], groups: Sequence[Group], order: Sequence[int]) -> dict[State, float]:
    out: dict[State, float] = {}
    for (units, unsaved, lost), p in dist.items():
        g = next((i for i in order if units[2 * i] > 0), None)
        if g is None:
            out[(units, unsaved, lost)] = out.get((units, unsaved, lost), 0.0) + p
            continue
        grp = groups[g]
        saved = p * (1.0 - grp.unsaved)
        if saved:
            key = (units, unsaved, lost)
            out[key] = out.get(key, 0.0) + saved
        fail = p * grp.unsaved
        if not fail:
            continue
        left, cur = units[2 * g], units[2 * g + 1]
        for d, pd in enumerate(grp.damage):
            if not pd:
                continue
            new = list(units)
            taken = min(d, cur)
            if d >= cur:
                new[2 * g] = left - 1
                new[2 * g + 1] = grp.wounds if left - 1 > 0 else 0
            else:
                new[2 * g + 1] = cur - d
            key = (tuple(new), unsaved + 1, lost + taken)
            out[key] = out.get(key, 0.0) + fail * pd
    return out


@dataclass(frozen=True)
class Kind:
    """One kind of wounding attack: its own saves and damage per group (``groups``, the same models
    and W as every other kind's) and its allocation ``order`` (indices into ``groups``)."""

    groups: tuple[Group, ...]
    order: tuple[int, ...]


def allocate(
    groups: Sequence[Group],
    wound_counts: Mapping[tuple[int, int], float],
    order: Sequence[int],
    precision_order: Sequence[int] | None = None,
) -> ChainResult:
    """Exact outcome of ``wound_counts`` (pmf over ``(precision wounds, normal wounds)``) on ``groups``.

    Precision wounds are resolved first, in ``precision_order`` (the attacker's choice); the normal
    wounds follow ``order``. Returns :class:`ChainResult`.
    """
    p_order = tuple(precision_order) if precision_order is not None else tuple(order)
    g = tuple(groups)
    counts: dict[tuple[int, ...], float] = dict(wound_counts.items())
    return allocate_kinds((Kind(g, p_order), Kind(g, tuple(order))), counts)


def _transitions(state: tuple[int, ...], groups: Sequence[Group], order: Sequence[int]
                 ) -> list[tuple[tuple[int, ...], float, int, int]]:
    """One wounding attack from target ``state``: (next state, probability, failed saves, wounds lost)."""
    g = next((i for i in order if state[2 * i] > 0), None)
    if g is None:
        return [(state, 1.0, 0, 0)]
    grp = groups[g]
    out = [(state, 1.0 - grp.unsaved, 0, 0)] if grp.unsaved < 1.0 else []
    if not grp.unsaved:
        return out
    left, cur = state[2 * g], state[2 * g + 1]
    for d, pd in enumerate(grp.damage):
        if not pd:
            continue
        new = list(state)
        if d >= cur:
            new[2 * g] = left - 1
            new[2 * g + 1] = grp.wounds if left - 1 > 0 else 0
        else:
            new[2 * g + 1] = cur - d
        out.append((tuple(new), grp.unsaved * pd, 1, min(d, cur)))
    return out


def _allocate_dense(kinds: Sequence[Kind], wound_counts: Mapping[tuple[int, ...], float]) -> ChainResult:
    """One or two kinds, with numpy: two chains over (target state, failed saves) and (target state,
    wounds lost), whose marginals are the results; ``sum_j T_last^j w_j`` by Horner's rule, where
    ``w_j`` mixes the first kind's distributions after ``k`` attacks with weight P(k, j), so as many
    steps as wounds, not their square."""
    groups = kinds[0].groups
    init = _initial(groups)
    index = {init: 0}
    states = [init]
    moves: list[list[list[tuple[int, float, int, int]]]] = [[] for _ in kinds]
    i = 0
    while i < len(states):  # every target state either kind can reach
        for k, kind in enumerate(kinds):
            row = []
            for nxt, p, u, lost in _transitions(states[i], kind.groups, kind.order):
                if nxt not in index:
                    index[nxt] = len(states)
                    states.append(nxt)
                row.append((index[nxt], p, u, lost))
            moves[k].append(row)
        i += 1
    n_s = len(states)
    n_u = max((sum(c) for c in wound_counts), default=0) + 1
    n_l = sum(g.models * g.wounds for g in groups) + 1
    # per kind and chain: shift -> S x S transition matrix
    mats: list[tuple[dict[int, np.ndarray], dict[int, np.ndarray]]] = []
    for k in range(len(kinds)):
        mu: dict[int, np.ndarray] = {}
        ml: dict[int, np.ndarray] = {}
        for src, row in enumerate(moves[k]):
            for dst, p, u, lost in row:
                mu.setdefault(u, np.zeros((n_s, n_s)))[dst, src] += p
                ml.setdefault(lost, np.zeros((n_s, n_s)))[dst, src] += p
        mats.append((mu, ml))

    def step(a: np.ndarray, m: dict[int, np.ndarray]) -> np.ndarray:
        out = np.zeros_like(a)
        width = a.shape[1]
        for shift, mat in m.items():
            if shift < width:
                out[:, shift:] += mat @ a[:, :width - shift]
        return out

    by_j: dict[int, dict[int, float]] = {}
    for key, pr in wound_counts.items():
        if pr > 0.0:
            k0 = key[0] if len(kinds) == 2 else 0
            r = by_j.setdefault(key[-1], {})
            r[k0] = r.get(k0, 0.0) + pr
    results = []
    for chain, width in ((0, n_u), (1, n_l)):
        start = np.zeros((n_s, width))
        start[0, 0] = 1.0
        prefix = [start]
        if len(kinds) == 2 and by_j:
            for _ in range(max(k0 for r in by_j.values() for k0 in r)):
                prefix.append(step(prefix[-1], mats[0][chain]))
        acc = np.zeros((n_s, width))
        for j in range(max(by_j, default=0), -1, -1):
            if j < max(by_j, default=0):
                acc = step(acc, mats[-1][chain])
            for k0, w in by_j.get(j, {}).items():
                acc += w * prefix[k0]
        results.append(acc)
    final_u, final_l = results
    mass = final_l.sum(axis=1)
    total_models = sum(g.models for g in groups)
    models_lost = [0.0] * (total_models + 1)
    by_group = [0.0] * len(groups)
    for si, st in enumerate(states):
        dead = 0
        for gi, g in enumerate(groups):
            gone = g.models - st[2 * gi]
            by_group[gi] += float(mass[si]) * gone
            dead += gone
        models_lost[dead] += float(mass[si])
    return ChainResult(trim(tuple(float(x) for x in final_u.sum(axis=0))),
                       trim(tuple(float(x) for x in final_l.sum(axis=0))), tuple(models_lost), tuple(by_group))


def allocate_kinds(kinds: Sequence[Kind], wound_counts: Mapping[tuple[int, ...], float], *,
                   dense: bool = True) -> ChainResult:
    """Exact outcome of ``wound_counts`` (pmf over tuples: wounds of each kind) on the target.

    The kinds are resolved one after the other (all of ``kinds[0]``'s wounds first), each with its
    own saves, damage and order. ``dense``: one or two kinds with numpy matrices (the default,
    fast); else (and for more kinds) a dictionary of joint states, one attack at a time. Returns
    :class:`ChainResult`. Raises ValueError when ``kinds`` is empty or a count tuple's length
    differs from it.
    """
    if not kinds:
        raise ValueError("allocate_kinds needs at least one kind of wound")
    if any(len(k) != len(kinds) for k in wound_counts):
        raise ValueError(f"wound counts must be tuples of {len(kinds)} (one per kind)")
    if dense and len(kinds) <= 2:
        return _allocate_dense(kinds, wound_counts)
    groups = kinds[0].groups
    # a prefix tree of the counts with mass: kind 0's count, then kind 1's, ...
    tree: dict[int, Any] = {}
    for key, pr in wound_counts.items():
        if pr <= 0.0:
            continue
        node = tree
        for c in key[:-1]:
            node = node.setdefault(c, {})
        node[key[-1]] = node.get(key[-1], 0.0) + pr
    final: dict[State, float] = {}

    def walk(dist: dict[State, float], level: int, node: dict[int, Any]) -> None:
        kind = kinds[level]
        top = max(node) if node else -1
        for c in range(top + 1):
            if c:
                dist = _step(dist, kind.groups, kind.order)
            sub = node.get(c)
            if sub is None:
                continue
            if level == len(kinds) - 1:
                w = float(sub)
                for s, ps in dist.items():
                    final[s] = final.get(s, 0.0) + w * ps
            else:
                walk(dist, level + 1, sub)

    walk({(_initial(groups), 0, 0): 1.0}, 0, tree)
    total_models = sum(g.models for g in groups)
    unsaved = [0.0] * (max((sum(k) for k in wound_counts), default=0) + 1)
    wounds_lost = [0.0] * (sum(g.models * g.wounds for g in groups) + 1)
    models_lost = [0.0] * (total_models + 1)
    by_group = [0.0] * len(groups)
    for (units, u, lost), p in final.items():
        if u >= len(unsaved):
            unsaved.extend([0.0] * (u + 1 - len(unsaved)))
        unsaved[u] += p
        wounds_lost[lost] += p
        dead = 0
        for i, g in enumerate(groups):
            gone = g.models - units[2 * i]
            by_group[i] += p * gone
            dead += gone
        models_lost[dead] += p
    return ChainResult(trim(unsaved), trim(wounds_lost), tuple(models_lost), tuple(by_group))
