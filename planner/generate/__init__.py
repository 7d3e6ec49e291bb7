"""``planner generate``: labelled training scenarios drawn from documented distributions.

Modules: :mod:`~planner.generate.distributions` (the parameters), :mod:`~planner.generate.scene`
(battlefield, terrain, armies), :mod:`~planner.generate.legality`, :mod:`~planner.generate.puzzles`,
:mod:`~planner.generate.deepstrike` (the three kinds of label), :mod:`~planner.generate.engine`
(local processes or Ray), :mod:`~planner.io.dataset` (JSONL, resume),
:mod:`~planner.generate.lines` (the line schema), :mod:`~planner.cli.generate` (the command).
"""
