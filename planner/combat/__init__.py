"""Exact dice maths: the distribution of wounds and models lost when one unit shoots another.

``planner.combat.hh2.shoot`` (Horus Heresy 2.0) and ``planner.combat.wh40k.shoot`` (40k 10th/11th)
return a :class:`~planner.combat.result.VolleyResult`; ``planner.combat.vehicles.shoot_vehicle``
(Horus Heresy vehicles) a :class:`~planner.combat.vehicles.VehicleResult`;
``planner.combat.control.expected_oc`` the 40k Objective Control left after losses;
``planner.combat.montecarlo`` rolls the same procedures die by die for tests. Exposure and planning
goals call these functions per pair of units (results are memoised).
"""

from planner.combat.result import VolleyResult

__all__ = ["VolleyResult"]
