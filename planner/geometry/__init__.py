"""Geometry with the rules' meaning: the only package that imports shapely."""
