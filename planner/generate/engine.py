"""Making the lines: one item per index, from its own random stream, on local processes or Ray.

Item ``i`` of a run with seed ``K`` draws from ``numpy.random.SeedSequence(K, spawn_key=(i,))``
(the stream ``SeedSequence(K).spawn(n)[i]`` would give) and nothing else, and its line is the
compact JSON text made in the worker; lines are written in index order. So the output depends on
the seed, the parameters, the kinds and the ruleset only: not on the worker count, the engine or
the scheduling.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from planner.generate.distributions import GeneratorParams
from planner.rules.registry import DEFAULT_RULESET

BATCH = 8
"""Items per task sent to a worker."""


@dataclass(frozen=True)
class Job:
    """What every item needs besides its index (sent to workers as JSON-able data)."""

    seed: int
    kinds: tuple[str, ...]
    ruleset: str | None
    params: dict

    def kind_of(self, index: int) -> str:
        """Kinds take turns by index (item ``i`` is ``kinds[i % len(kinds)]``)."""
        return self.kinds[index % len(self.kinds)]


def item_rng(seed: int, index: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(index,)))


_PARAMS_CACHE: dict[str, GeneratorParams] = {}


def make_line(job: Job, index: int) -> str:
    """The JSON text (no newline) of item ``index``."""
    key = json.dumps(job.params, sort_keys=True)
    p = _PARAMS_CACHE.get(key)
    if p is None:
        p = _PARAMS_CACHE[key] = GeneratorParams.model_validate(job.params)
    kind = job.kind_of(index)
    rng = item_rng(job.seed, index)
    if kind == "legality":
        from planner.generate.legality import legality_item

        data = legality_item(rng, p, index, job.ruleset or DEFAULT_RULESET)
    elif kind == "puzzle":
        from planner.generate.puzzles import puzzle_item

        data = puzzle_item(rng, p, index, job.ruleset or DEFAULT_RULESET)
    elif kind == "deepstrike":
        from planner.generate.deepstrike import deepstrike_item

        data = deepstrike_item(rng, p, index, job.ruleset)
    else:  # validated by the command
        raise ValueError(f"unknown kind {kind!r}")
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def make_batch(job: Job, indices: list[int]) -> list[str]:
    return [make_line(job, i) for i in indices]


def _batches(start: int, stop: int, size: int) -> Iterator[list[int]]:
    for a in range(start, stop, size):
        yield list(range(a, min(stop, a + size)))


def run_local(job: Job, start: int, stop: int, workers: int) -> Iterator[str]:
    """Lines ``start..stop-1`` in index order, made by ``workers`` local processes (1: this one)."""
    if workers <= 1:
        for i in range(start, stop):
            yield make_line(job, i)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # spawn, not fork: the parent may run a progress-bar thread
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        pending: deque = deque()
        todo = _batches(start, stop, BATCH)
        try:
            for b in todo:
                pending.append(pool.submit(make_batch, job, b))
                if len(pending) >= 4 * workers:
                    break
            while pending:
                lines = pending.popleft().result()
                nxt = next(todo, None)
                if nxt is not None:
                    pending.append(pool.submit(make_batch, job, nxt))
                yield from lines
        finally:
            for f in pending:
                f.cancel()


RAY_CONNECT_TIMEOUT_S = 5.0
"""How long :func:`check_ray_address` waits for the cluster's port to answer."""


def check_ray_address(address: str, timeout_s: float = RAY_CONNECT_TIMEOUT_S) -> None:
    """Refuse at once a Ray address where nothing listens (``ray.init`` would retry for minutes).

    ``HOST:PORT`` or ``ray://HOST:PORT`` is probed with a TCP connection of at most
    ``timeout_s`` seconds; ``auto`` and ``local`` are left to Ray.

    Raises
    ------
    ScenarioError
        An address that is not HOST:PORT, a port out of range, or nothing listening there.
    """
    import socket

    from planner.errors import ScenarioError

    text = address.strip()
    if text in ("auto", "local"):
        return
    hostport = text[len("ray://"):] if text.startswith("ray://") else text
    host, sep, port_text = hostport.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
        raise ScenarioError("give the Ray address as HOST:PORT (or ray://HOST:PORT, auto)", location="--address",
                            value=address)
    try:
        with socket.create_connection((host, int(port_text)), timeout=timeout_s):
            pass
    except (OSError, UnicodeError) as exc:
        reason = "timed out" if isinstance(exc, TimeoutError) else (getattr(exc, "strerror", None) or str(exc))
        raise ScenarioError(f"no Ray cluster answers at this address ({reason} within {timeout_s:g} s)",
                            location="--address", value=address) from None


def run_ray(job: Job, start: int, stop: int, workers: int, address: str | None) -> Iterator[str]:
    """Lines ``start..stop-1`` in index order, made by Ray tasks.

    Uses a running Ray instance if this process already joined one (``ray.init``), else joins
    ``address`` (``None``: starts a local instance of ``workers`` CPUs) and leaves it at the end.
    """
    import ray

    started = False
    if not ray.is_initialized():
        if address:
            try:
                ray.init(address=address, log_to_driver=False)
            except ConnectionError as exc:  # something answers there, but not a Ray cluster
                from planner.errors import ScenarioError

                raise ScenarioError(f"cannot join a Ray cluster at this address: {exc}", location="--address",
                                    value=address) from None
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        started = True
    try:
        remote = ray.remote(make_batch)
        slots = max(1, int(ray.cluster_resources().get("CPU", workers)))
        pending: deque = deque()
        todo = _batches(start, stop, BATCH)
        for b in todo:
            pending.append(remote.remote(job, b))
            if len(pending) >= 4 * slots:
                break
        try:
            while pending:
                lines = ray.get(pending.popleft())
                nxt = next(todo, None)
                if nxt is not None:
                    pending.append(remote.remote(job, nxt))
                yield from lines
        finally:
            for ref in pending:
                ray.cancel(ref)
    finally:
        if started:
            ray.shutdown()


def run(job: Job, start: int, stop: int, workers: int, engine: str = "local",
        address: str | None = None) -> Iterator[str]:
    """Lines ``start..stop-1`` in index order on the chosen engine (``local`` or ``ray``)."""
    if engine == "ray":
        return run_ray(job, start, stop, workers, address)
    return run_local(job, start, stop, workers)


LineSink = Callable[[str], None]
