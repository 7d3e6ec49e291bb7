"""Objective Control after losses (40k 10th/11th edition): the OC a unit has left, with battle-shock.

Source: seed text 004 = 11E-CORE-A 01.07 (RULES.md 3.1): a battle-shock test is 2D6 against the
unit's Leadership, passed on a score of Ld or more; a battle-shocked unit's models have OC '-'
(counted 0 here). 10th edition: the same test, OC 0 (RULES.md 3.1). What the texts leave open is a
ruling, listed in :data:`INTERPRETATIONS` and in each result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from planner.combat.dice import Pmf, convolve, mean, trim
from planner.rules.base import Ruleset

INTERPRETATIONS = (
    "Battle-shock test: 2D6, passed on Leadership or more (seed 004); a battle-shocked unit has OC '-', "
    "counted 0; a destroyed unit has OC 0.",
    "Below Half-strength (10th-edition wording, the same ruling for 11th): fewer models than half the "
    "Starting Strength (the models given); a one-model unit: fewer wounds left than half its W.",
    "Only a unit Below Half-strength tests; the OC is the one after its controlling player's next Command "
    "phase test (after the enemy's turn), with no other modifier to the roll.",
    "Models are lost in the order given (the dice maths' allocation order); a model's OC is its own.",
)

TOLERANCE = 1e-9


@dataclass(frozen=True)
class OCResult:
    """The unit's Objective Control after the losses: ``pmf[k]`` = P(OC k), ``expected`` its mean,
    ``p_below_half`` / ``p_battle_shocked`` the chances of each state, ``p_destroyed`` of no model left."""

    expected: float
    pmf: Pmf
    p_below_half: float
    p_battle_shocked: float
    p_destroyed: float
    interpretations: tuple[str, ...]


def battle_shock_pass(leadership: int) -> float:
    """P(2D6 >= ``leadership``): 1 at 2 or less, 0 above 12."""
    return sum(1 for a in range(1, 7) for b in range(1, 7) if a + b >= leadership) / 36


def combine_losses(pmfs: Sequence[Sequence[float]], models: int) -> Pmf:
    """Models lost to several volleys at one unit, each an independent pmf, capped at ``models``.

    (An upper bound on the losses of volleys resolved one after another, which would see a smaller
    unit; exact when no volley can take the whole unit.)
    """
    total: Pmf = (1.0,)
    for p in pmfs:
        total = convolve(total, p)
        if len(total) > models + 1:
            total = (*total[:models], sum(total[models:]))
    return total


def _edition(ruleset: str | Ruleset) -> str:
    from planner.rules.registry import find_ruleset

    rs = find_ruleset(ruleset) if isinstance(ruleset, str) else ruleset
    if rs.COMBAT_DICE != "40k":
        raise ValueError(f"ruleset {rs.id!r} has no Objective Control characteristic (40k 10th/11th only)")
    return str(rs.id)


def _check_pmf(pmf: Sequence[float], name: str, top: int) -> None:
    if not pmf or any(p < -TOLERANCE for p in pmf) or abs(sum(pmf) - 1.0) > 1e-6:
        raise ValueError(f"{name} is not a distribution (non-negative, summing to 1): {list(pmf)!r}")
    if any(p > TOLERANCE for p in pmf[top + 1:]):
        raise ValueError(f"{name} gives a chance to outcomes above {top}")


def expected_oc(models: Sequence[int], models_lost_pmf: Sequence[float], *,
                ruleset: str | Ruleset, leadership: int,
                wounds: int | None = None, wounds_lost_pmf: Sequence[float] | None = None) -> OCResult:
    """The distribution of the OC a unit has left after losing models per ``models_lost_pmf``.

    ``models``: each model's OC, in the order they are lost (the first is lost first);
    ``models_lost_pmf[k]`` = P(k models lost) (e.g. ``VolleyResult.models_lost``); ``leadership``:
    the Ld characteristic (6 for "6+"); ``ruleset``: a 40k ruleset (id or class). For a one-model
    unit, ``wounds`` (its W) and ``wounds_lost_pmf`` decide Below Half-strength (else it is never
    below half). Returns :class:`OCResult`.

    Raises ValueError for an empty unit, a negative OC, a pmf that is not a distribution or has
    mass beyond the unit, or a ruleset without Objective Control (Horus Heresy).
    """
    edition = _edition(ruleset)
    n = len(models)
    if n == 0:
        raise ValueError("expected_oc needs at least one model")
    if any(oc < 0 for oc in models):
        raise ValueError(f"OC values must be 0 or more: {list(models)!r}")
    p_pass = battle_shock_pass(leadership)
    notes = [*INTERPRETATIONS, f"Ruleset {edition}: a Leadership {leadership}+ test passes with "
             f"probability {p_pass:.4f}."]
    out = [0.0] * (sum(models) + 1)
    below = shocked = destroyed = 0.0
    if n == 1 and wounds is not None and wounds_lost_pmf is not None:
        _check_pmf(wounds_lost_pmf, "wounds_lost_pmf", wounds)
        for lost, p in enumerate(wounds_lost_pmf):
            if lost >= wounds:
                out[0] += p
                destroyed += p
            elif 2 * (wounds - lost) < wounds:
                below += p
                shocked += p * (1 - p_pass)
                out[models[0]] += p * p_pass
                out[0] += p * (1 - p_pass)
            else:
                out[models[0]] += p
    else:
        _check_pmf(models_lost_pmf, "models_lost_pmf", n)
        for lost, p in enumerate(models_lost_pmf):
            if not p:
                continue
            left = n - lost
            oc = sum(models[lost:])
            if left == 0:
                out[0] += p
                destroyed += p
            elif 2 * left < n:
                below += p
                shocked += p * (1 - p_pass)
                out[oc] += p * p_pass
                out[0] += p * (1 - p_pass)
            else:
                out[oc] += p
    pmf = trim(out)
    return OCResult(mean(pmf), pmf, below, shocked, destroyed, tuple(notes))
