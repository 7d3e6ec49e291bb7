"""The terrain schema of real tables: features of several pieces, heights, walls, floors, a roof
and the 11th-edition area categories; model heights and floors (``z``)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from planner.schema import AreaCategory, CatalogueEntry, Model, TerrainFeature

HALF_A = [[0, 0], [4, 0], [4, 6], [0, 6]]
HALF_B = [[4, 0], [8, 0], [8, 6], [4, 6]]


def test_a_feature_of_two_pieces_sharing_an_edge_is_one_area():
    t = TerrainFeature.model_validate({"id": "ruin", "pieces": [{"footprint": HALF_A, "height_in": 5},
                                                                 {"footprint": HALF_B}], "height_in": 3})
    assert t.shape.geom_type == "Polygon" and t.shape.area == pytest.approx(48.0)
    assert [p.height_in for p in t.all_pieces()] == [5.0, 3.0]  # the second takes the feature's height
    assert t.has_heights


def test_an_old_feature_has_one_piece_and_no_height():
    t = TerrainFeature.model_validate({"id": "old", "footprint": HALF_A, "kind": "solid"})
    assert len(t.all_pieces()) == 1 and t.all_pieces()[0].height_in is None
    assert not t.has_heights and t.shape.area == pytest.approx(24.0)


def test_walls_floors_roof_and_category():
    t = TerrainFeature.model_validate({
        "id": "r", "footprint": HALF_A, "roof": True, "category": "dense",
        "walls": [{"points": [[0, 0], [4, 0]], "thickness_in": 0.5, "height_in": 4}, {"footprint": HALF_B}],
        "floors": [{"height_in": 0}, {"height_in": 3, "footprint": [[0, 0], [2, 0], [2, 2]]}]})
    assert t.category is AreaCategory.DENSE and t.roof
    assert t.walls[0].polygon().area == pytest.approx(2.0)  # 4" long, 0.5" thick, flat ends
    assert [f.height_in for f in t.floors] == [0.0, 3.0]


@pytest.mark.parametrize(("data", "words"), [
    ({"id": "x"}, "needs a footprint or pieces"),
    ({"id": "x", "footprint": HALF_A, "height_in": -0.5}, "greater than or equal to 0"),  # 0 is flat: allowed
    ({"id": "x", "footprint": HALF_A, "height_in": "3"}, "valid number"),
    ({"id": "x", "footprint": HALF_A, "walls": [{"points": [[0, 0]]}]}, "2 to"),
    ({"id": "x", "footprint": HALF_A, "walls": [{"points": [[0, 0], [1, 1]], "footprint": HALF_B}]}, "not both"),
    ({"id": "x", "footprint": HALF_A, "walls": [{}]}, "neither was given"),
    ({"id": "x", "footprint": HALF_A, "floors": [{"height_in": -1}]}, "greater than or equal to 0"),
    ({"id": "x", "footprint": HALF_A, "category": "thick"}, "dense"),
    ({"id": "x", "pieces": [{"footprint": [[0, 0], [1, 1], [0, 1], [1, 0]]}]}, "not a simple polygon"),
])
def test_bad_terrain_is_refused(data, words):
    with pytest.raises(ValidationError, match=words):
        TerrainFeature.model_validate(data)


def test_model_height_and_floor():
    m = Model.model_validate({"id": "m", "x": 1, "y": 2, "z": 3.0, "height_in": 1.25})
    assert (m.z, m.height_in) == (3.0, 1.25)
    assert Model.model_validate({"id": "m"}).z is None
    with pytest.raises(ValidationError):
        Model.model_validate({"id": "m", "z": -1})
    e = CatalogueEntry.model_validate({"id": "e", "name": "E", "base": {"diameter_mm": 32}, "type": "Infantry",
                                       "height_in": 1.3})
    assert e.height_in == 1.3
