"""Deep Strike: ring formation, the mishap test for one landing, exact odds, heat maps, best aim point.

See :mod:`planner.deepstrike.procedure` (the procedure and odds), :mod:`planner.deepstrike.formation`
(the rings) and :mod:`planner.deepstrike.regions` (the exact arc-measure engine).
:func:`deep_strike_odds` is the one-call entry point (what ``planner deepstrike --at X,Y`` computes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planner.deepstrike.assault import AssaultOdds
    from planner.deepstrike.procedure import Odds
    from planner.world import World


def deep_strike_odds(world: World, unit_id: str, x: float, y: float, *, ruleset: str | None = None,
                     within: tuple[float, float, float] | None = None, orientation_deg: float = 0.0,
                     inertial_guidance: bool = False, facing_deg: float | None = None,
                     rulings: dict[str, str] | None = None) -> Odds | AssaultOdds:
    """Exact odds of unit ``unit_id`` Deep Striking with its first model aimed at (x, y) inches.

    Parameters
    ----------
    world : World
        The scenario (:func:`planner.load_scenario`); the unit is in it, e.g. in Reserves.
    ruleset : str, optional
        Override the scenario's ruleset: ``wh40k5``/``wh40k7`` (scatter and Mishap table),
        ``wh40k10``/``wh40k11`` (no scatter: a legal/not-legal arrival check, ``p_mishap`` 1.0 if
        illegal else 0.0, ``triggers`` keyed by the rule ids ``planner check`` reports, e.g.
        ``wh40k10.deepstrike.distance``, 1.0 for each rule broken), ``hh2``
        (Deep Strike Assault: the first model's odds).
    within : (x, y, d), optional
        Also the probability of a clean landing with a model within ``d`` inches of (x, y)
        (not for ``hh2``).
    orientation_deg, facing_deg : float
        Direction the rings start, degrees; facing of non-round landing models (default: the
        scenario's facing of the first model, else 0).
    inertial_guidance : bool
        HH2: the first model has an Inertial Guidance System (scatter halved).
    rulings : dict, optional
        KEY -> VALUE readings of the Deep Strike rulings (``ds-ring-spacing``; HH2 ``dsa-*``) over
        the scenario's ``rulings:`` (``planner rules --rulings`` lists them).

    Returns
    -------
    Odds or AssaultOdds
        :class:`planner.deepstrike.procedure.Odds` (``p_mishap``, ``p_clean``, ``results``,
        ``triggers``, ``dangerous``, ``within``, ``error_bound``), or for ``hh2``
        :class:`planner.deepstrike.assault.AssaultOdds` (``p_relocated``, ``p_disordered``, ...).

    Raises
    ------
    ScenarioError
        Unknown unit, a ruleset without a Deep Strike procedure, an aim point off the
        battlefield, or (``hh2``) an aim point within 1" of an enemy model, edge or Impassable
        Terrain; ``within`` with ``hh2``; an unknown ruling or reading.
    """
    from planner.deepstrike.procedure import make_setup, odds
    from planner.errors import ScenarioError

    st = make_setup(world, unit_id, ruleset, orientation_deg, inertial_guidance, facing_deg, rulings)
    bf = world.scenario.battlefield
    if not (0.0 <= x <= bf.width and 0.0 <= y <= bf.depth):
        raise ScenarioError(f"the aim point must be on the {bf.width:g}\" x {bf.depth:g}\" battlefield",
                            file=world.file, location="at", value=(x, y))
    if st.rules.procedure == "assault":
        from planner.deepstrike.assault import assault_odds

        if within is not None:
            raise ScenarioError("'within' needs a ruleset with a Mishap table (wh40k5, wh40k7)", location="within",
                                value=within)
        return assault_odds(st, x, y)
    return odds(st, x, y, within=within)
