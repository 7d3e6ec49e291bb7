"""Alternating Infiltrate (HH2 p.242): when both players have Infiltrators, they set them up one
unit at a time, alternating; the winner of a roll-off chooses who places first. For small cases
(at most 3 infiltrating units a side) this module searches the game tree.

Every unit with ``setup: infiltrate`` and ``place: true`` takes part; everything else stays where
it is. The score, from the roll-off winner's side, is the sum over the opponent's Infiltrators of
the distance (closest base to the point, inches) to a contested point, less the same sum over the
winner's own: each side wants its own units close and the enemy's far. A unit with no legal
Infiltrate position left counts at ``cap_in``.

Moves at a node are the mover's remaining units, each at its ``top_k`` legal positions nearest the
point (the planner's best replies; ``top_k=None``: every legal position on the grid). Minimax with
transposition look-up over that tree is exact for the tree: the value and the principal line are reported,
and the final placements pass the checker (each unit with its ``order`` in the alternation).
"""

from __future__ import annotations

import copy
import math
import time

from pydantic import BaseModel, ConfigDict, Field

from planner.adversary.deny import off_table
from planner.adversary.legal_area import ArrivalSpace, Position, enemy_group, fixed_units
from planner.adversary.threats import point_distance
from planner.errors import ScenarioError
from planner.geometry.measure import overlaps
from planner.legality.checker import check_deployment
from planner.legality.report import LegalityReport
from planner.legality.table import Placed
from planner.schema import Scenario, SetupMethod
from planner.world import World, resolve

MAX_PER_SIDE = 3


class AlternationMove(BaseModel):
    model_config = ConfigDict(extra="forbid")
    order: int
    player: str
    unit: str
    anchor: tuple[float, float] | None
    distance_in: float


class AlternationResult(BaseModel):
    """The roll-off winner's choice and the resulting line of play."""

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)
    winner: str
    first: str = Field(description="Who the winner should have place first.")
    value_if_first: float
    value_if_second: float
    line: list[AlternationMove]
    nodes: int
    wall_time_s: float
    legal: bool | None = None
    legality: LegalityReport | None = None
    scenario_data: dict | None = None


class _Game:
    def __init__(self, world: World, winner: str, point: tuple[float, float], grid_in: float, top_k: int | None,
                 cap_in: float | None):
        units = [u for u in world.units.values() if u.record.place and u.method is SetupMethod.INFILTRATE
                 and not u.setup.joined]
        players = sorted({u.player for u in units})
        if winner not in world.players:
            raise ScenarioError(f"no such player; players: {', '.join(world.players)}", file=world.file,
                                location="--winner", value=winner)
        self.sides = {p: [u.id for u in units if u.player == p] for p in world.players}
        for p, ids in self.sides.items():
            if len(ids) > MAX_PER_SIDE:
                raise ScenarioError(f"the game-tree search takes at most {MAX_PER_SIDE} infiltrating units a side; "
                                    f"player {p!r} has {len(ids)}", file=world.file, location="armies", value=ids)
        if not units or len(players) < 2:
            raise ScenarioError("alternation needs Infiltrators marked 'place: true' on both sides", file=world.file,
                                location="armies")
        self.world = world
        self.winner = winner
        self.loser = next(p for p in world.players if p != winner)
        self.point = point
        self.top_k = top_k
        bf = world.scenario.battlefield
        self.cap = cap_in if cap_in is not None else math.hypot(bf.width, bf.depth)
        placing = {u.id for u in units} | {j for u in units for j in u.joined_by}
        self.w2 = off_table(world, placing)
        table = self.w2.ruleset.table(self.w2)
        fixed = fixed_units(table, placing)
        self.spaces: dict[str, ArrivalSpace] = {}
        for u in units:
            sp = ArrivalSpace(self.w2, enemy_group(self.w2, u.id, "armies"), fixed, grid_in,
                              formations_per_anchor=1, table=table)
            sp.positions.sort(key=lambda p: (point_distance(p.footprints, point), p.index))
            self.spaces[u.id] = sp
        self.dist = {uid: {p.index: point_distance(p.footprints, point) for p in sp.positions}
                     for uid, sp in self.spaces.items()}
        self.player_of = {u.id: u.player for u in units}
        self.nodes = 0
        self.memo: dict = {}

    def placed(self, uid: str, p: Position) -> Placed:
        return self.spaces[uid].placed(p)

    def moves(self, mover: str, state: tuple) -> list[tuple[str, Position | None]]:
        done = {uid for uid, _ in state}
        out: list[tuple[str, Position | None]] = []
        for uid in self.sides[mover]:
            if uid in done:
                continue
            sp = self.spaces[uid]
            opp = [self.placed(o, sp_pos) for o, sp_pos in self._positions(state) if self.player_of[o] != mover]
            own = [self.placed(o, sp_pos) for o, sp_pos in self._positions(state) if self.player_of[o] == mover]
            found = 0
            for p in sp.positions:
                if any(overlaps(a, b) for q in own for a in q.footprints for b in p.footprints):
                    continue
                if not sp.legal_one(p, opp):
                    continue
                out.append((uid, p))
                found += 1
                if self.top_k is not None and found >= self.top_k:
                    break
            if found == 0:
                out.append((uid, None))  # cannot Infiltrate any more
        return out

    def _positions(self, state: tuple):
        return [(uid, self.spaces[uid].all_positions[k]) for uid, k in state if k is not None]

    def score(self, state: tuple) -> float:
        total = 0.0
        for uid, k in state:
            d = self.cap if k is None else self.dist[uid][k]
            total += d if self.player_of[uid] == self.loser else -d
        return total

    def search(self, state: tuple, mover: str) -> tuple[float, tuple]:
        """Minimax value (winner maximises) and the rest of the principal line after ``state``;
        placements already reached in another order are looked up (transpositions)."""
        self.nodes += 1
        placed = {s for s, _ in state}
        remaining = {p: [u for u in self.sides[p] if u not in placed] for p in self.sides}
        if not any(remaining.values()):
            return self.score(state), ()
        if not remaining[mover]:
            mover = self.loser if mover == self.winner else self.winner
        key = (frozenset(state), mover)
        if key in self.memo:
            return self.memo[key]
        other = self.loser if mover == self.winner else self.winner
        best: tuple[float, tuple] | None = None
        for uid, p in self.moves(mover, state):
            move = (uid, None if p is None else p.index)
            v, rest = self.search((*state, move), other)
            if best is None or (v > best[0] if mover == self.winner else v < best[0]):
                best = (v, (move, *rest))
        assert best is not None
        self.memo[key] = best
        return best


def alternate(world: World, winner: str, point: tuple[float, float], grid_in: float = 3.0, top_k: int | None = 2,
              cap_in: float | None = None) -> AlternationResult:
    """The roll-off winner's best choice of who places Infiltrators first, and the line of play.

    Raises
    ------
    ScenarioError
        Unknown winner, no Infiltrators on one side, or more than 3 a side.
    """
    t0 = time.monotonic()
    g = _Game(world, winner, point, grid_in, top_k, cap_in)
    v_first, line_first = g.search((), g.winner)
    g.memo.clear()
    v_second, line_second = g.search((), g.loser)
    first, line = (g.winner, line_first) if v_first >= v_second else (g.loser, line_second)
    moves = []
    for i, (uid, k) in enumerate(line):
        p = None if k is None else g.spaces[uid].all_positions[k]
        moves.append(AlternationMove(order=i + 1, player=g.player_of[uid], unit=uid,
                                     anchor=None if p is None else p.anchor,
                                     distance_in=g.cap if k is None else g.dist[uid][k]))
    data = _scenario_with_line(world, g, line)
    report = check_deployment(resolve(Scenario.model_validate(data), world.file, require_positions=True))
    return AlternationResult(winner=winner, first=first, value_if_first=v_first, value_if_second=v_second,
                             line=moves, nodes=g.nodes, wall_time_s=time.monotonic() - t0, legal=report.legal,
                             legality=report, scenario_data=data)


def _scenario_with_line(world: World, g: _Game, line: tuple) -> dict:
    """The scenario with every Infiltrator of the line at its position and its ``order``; a unit
    that could not Infiltrate goes to Reserves."""
    data = copy.deepcopy(world.raw) if world.raw is not None else \
        world.scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
    where, order = {}, {}
    for i, (uid, k) in enumerate(line):
        order[uid] = i + 1
        if k is not None:
            where.update(g.spaces[uid].all_positions[k].positions)
    for army in data["armies"]:
        for unit in army["units"]:
            uid = unit["id"]
            if uid in order:
                unit.pop("place", None)
                if uid in where:
                    unit["setup"] = {"method": "infiltrate", "order": order[uid]}
                else:
                    unit["setup"] = {"method": "reserves"}
            if uid in where:
                for m, (x, y, f) in zip(unit["models"], where[uid], strict=True):
                    m["x"], m["y"], m["facing"] = float(x), float(y), float(f)
    return data
