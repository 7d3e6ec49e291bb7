"""The legality checker: findings per unit and rule, with measured values and evidence."""
