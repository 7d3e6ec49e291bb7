"""Rulesets: one module per game system; every number that differs by ruleset lives there."""
