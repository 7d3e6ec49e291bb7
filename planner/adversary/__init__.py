"""Adversarial set-ups: where an enemy Infiltrator can arrive against a deployment (threats),
deployments that shrink that space (denial) and that minimise the enemy's best reply (min-max)."""
