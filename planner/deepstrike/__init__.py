"""Deep Strike: ring formation, the mishap test for one landing, exact odds, heat maps, best aim point.

See :mod:`planner.deepstrike.procedure` (the procedure and odds), :mod:`planner.deepstrike.formation`
(the rings) and :mod:`planner.deepstrike.regions` (the exact arc-measure engine).
"""
