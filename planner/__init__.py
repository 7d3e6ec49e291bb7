"""deployment-planner: check and optimise army deployments in Warhammer-family wargames."""

__version__ = "0.1.0"
