"""The command line: the typer app (:mod:`planner.cli.commands`) and one module per command's glue.

Only this package prints to the terminal, reads option values and chooses exit codes; the domain
packages (geometry, rules, legality, solve, adversary, deepstrike, generate) return values.
"""

from planner.cli.commands import app, main

__all__ = ["app", "main"]
