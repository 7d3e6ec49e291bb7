"""One pure predicate per rule, written once and used by every consumer.

The checkers (:mod:`planner.legality.hh2`, :mod:`planner.legality.wh40k`) turn these verdicts into
findings with measured values and explanations; the planner's candidate judges
(:mod:`planner.solve.hh2_judge`, :mod:`planner.solve.wh40k_judge`), the enemy legal area
(:mod:`planner.adversary.legal_area`), the generator and the pictures call the same functions, so
a rule cannot drift between them. Each predicate takes footprints (inches), the areas or other
footprints it is measured against and the ruleset's numbers; none reads a file or prints. The
tolerance policy (within / more than / wholly within) is applied in :mod:`planner.geometry.measure`
and nowhere else.

- :mod:`~planner.legality.checks.placement`: wholly on the battlefield, wholly within a zone,
  clear of impassable terrain and solid features, clear of other bases.
- :mod:`~planner.legality.checks.distance`: the Infiltrate distances (hidden or plain sight), a
  Scout redeploy's "more than" and "entirely within" distances.
- :mod:`~planner.legality.checks.coherency`: unit coherency (Horus Heresy's linked group, 40k's
  neighbours and "within 9" of every model").
"""
