"""The result of one volley: exact distributions plus the interpretations used."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from planner.combat.allocation import ChainResult, Group
from planner.combat.dice import Pmf, mean, trim, variance


@dataclass(frozen=True)
class VolleyResult:
    """Distributions (``pmf[k]`` = P(k)) of one unit shooting another.

    ``wounding``: attacks that wounded (before saves); ``unsaved``: failed saves (and attacks that
    allow none, ``no_save``); ``wounds_lost``:
    wounds the target's models lost (after damage mitigation, excess damage not counted);
    ``models_lost``: models removed. ``p_hit``/``p_wound`` are per attack / per hit; ``attacks``
    is the number of attacks (its mean, rounded, when the attacks are rolled).
    """

    ruleset: str
    attacker: str
    target: str
    attacks: int
    p_hit: float
    p_wound: float
    wounding: Pmf
    unsaved: Pmf
    wounds_lost: Pmf
    models_lost: Pmf
    group_names: tuple[str, ...]
    group_unsaved: tuple[float, ...]
    group_models_lost_mean: tuple[float, ...]
    interpretations: tuple[str, ...]
    no_save: Pmf = (1.0,)
    """Wounding attacks that allow no save (40k Devastating Wounds' Critical Wounds), among ``wounding``."""

    @classmethod
    def build(cls, *, ruleset: str, attacker: str, target: str, attacks: int, p_hit: float,
              p_wound: float, wounding: Pmf, chain: ChainResult, groups: Sequence[Group],
              interpretations: tuple[str, ...], no_save: Pmf = (1.0,)) -> VolleyResult:
        """Assemble a result from the chain's output."""
        return cls(ruleset, attacker, target, attacks, p_hit, p_wound, trim(wounding), chain.unsaved,
                   chain.wounds_lost, chain.models_lost, tuple(g.name for g in groups),
                   tuple(g.unsaved for g in groups), chain.group_models_lost_mean, interpretations, no_save)

    @property
    def expected_models_lost(self) -> float:
        """Mean of :attr:`models_lost`."""
        return mean(self.models_lost)

    @property
    def expected_wounds_lost(self) -> float:
        """Mean of :attr:`wounds_lost`."""
        return mean(self.wounds_lost)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict: means, standard deviations and the full distributions."""
        def d(p: Pmf) -> dict[str, Any]:
            return {"mean": mean(p), "sd": variance(p) ** 0.5, "pmf": list(p)}
        return {
            "ruleset": self.ruleset, "attacker": self.attacker, "target": self.target,
            "attacks": self.attacks, "p_hit": self.p_hit, "p_wound": self.p_wound,
            "wounding": d(self.wounding), "unsaved": d(self.unsaved),
            "wounds_lost": d(self.wounds_lost), "models_lost": d(self.models_lost), "no_save": d(self.no_save),
            "groups": [{"name": n, "p_unsaved": u, "models_lost_mean": m} for n, u, m in
                       zip(self.group_names, self.group_unsaved, self.group_models_lost_mean, strict=True)],
            "interpretations": list(self.interpretations),
        }
