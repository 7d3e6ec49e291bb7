"""Making the lines: one item per index, from its own random stream, on local processes or Ray.

Item ``i`` of a run with seed ``K`` draws from ``numpy.random.SeedSequence(K, spawn_key=(i,))``
(the stream ``SeedSequence(K).spawn(n)[i]`` would give) and nothing else, and its line is the
compact JSON text made in the worker; lines are written in index order. So the output depends on
the seed, the parameters, the kinds and the ruleset only: not on the worker count, the engine or
the scheduling.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from planner.errors import ScenarioError
from planner.generate.distributions import KINDS, GeneratorParams
from planner.rules.registry import DEFAULT_RULESET

BATCH = 8
"""Items per task sent to a worker."""


def labelled_deepstrike(ruleset: str) -> None:
    """Raise ScenarioError unless Deep Strike labels exist for ``ruleset``: the scatter-and-mishap
    odds of wh40k5/wh40k7 and the arrival checks of wh40k10/wh40k11 (HH2's Deep Strike Assault has
    odds of its own, :mod:`planner.deepstrike.assault`, not labelled here).

    Raises
    ------
    ScenarioError
        ``ruleset`` has no Deep Strike procedure, or its procedure is an assault (no location set:
        the caller names its option or field).
    """
    from planner.deepstrike.procedure import deepstrike_rules

    if deepstrike_rules(ruleset).procedure == "assault":
        raise ScenarioError("Deep Strike labels are the scatter-and-mishap odds (wh40k5, wh40k7) and the arrival "
                            "checks (wh40k10, wh40k11); a Deep Strike Assault (hh2) is not labelled", value=ruleset)


def check_kinds(kinds: object, location: str = "kinds", value: object = None, *,
                form: str = "", file: str | None = None) -> tuple[str, ...]:
    """``kinds`` if it is one or more of :data:`~planner.generate.distributions.KINDS`, each once;
    the one check of that, made by :class:`Job` and by ``planner generate --kind``.

    Raises
    ------
    ScenarioError
        At ``location`` (``kinds`` for a :class:`Job` and a run's manifest ``file``, ``--kind`` on
        the command line), naming the
        accepted kinds (``form``, e.g. ``comma-separated``, said with them) and, as the value,
        ``value`` if given, else the first kind not accepted (or the kinds themselves: none, a
        repeated one, or not a tuple or list of texts).
    """
    accepted = f"give one or more of {', '.join(KINDS)}{', ' + form if form else ''}, each once"
    if not isinstance(kinds, tuple | list) or not all(isinstance(k, str) for k in kinds):
        raise ScenarioError(f"{accepted} (a tuple of texts)", file=file, location=location,
                            value=value if value is not None else kinds)
    bad = [k for k in kinds if k not in KINDS]
    if bad:
        raise ScenarioError(f"unknown kind; {accepted}", file=file, location=location,
                            value=value if value is not None else bad[0])
    if not kinds or len(set(kinds)) != len(kinds):
        raise ScenarioError(accepted, file=file, location=location,
                            value=value if value is not None else list(kinds))
    return tuple(kinds)


def check_ruleset(ruleset: str | None, kinds: tuple[str, ...], location: str = "ruleset") -> str | None:
    """The ruleset id (None: each kind's default) if every kind in ``kinds`` can be labelled under
    ``ruleset``; the one check of that, made by :class:`Job` and by ``planner generate --ruleset``.

    Raises
    ------
    ScenarioError
        At ``location`` (``ruleset`` for a :class:`Job`, ``--ruleset`` on the command line): an
        unknown ruleset, or one a kind cannot label (legality and puzzles need the deployment
        checker's scenes: hh2; Deep Strike needs a Deep Strike procedure: wh40k5, wh40k7, wh40k10,
        wh40k11).
    """
    if ruleset is None:
        return None
    from planner.rules.registry import all_rulesets, find_ruleset

    try:
        ruleset_obj = find_ruleset(ruleset)
    except ScenarioError as exc:
        raise ScenarioError(exc.detail, location=location, value=ruleset) from None
    rs = ruleset_obj.id
    for k in kinds:
        if k in ("legality", "puzzle") and not ruleset_obj.GENERATES_LEGALITY_LABELS:
            able = ", ".join(r.id for r in all_rulesets() if r.GENERATES_LEGALITY_LABELS)
            raise ScenarioError(f"{k} labels need the deployment checker's scenes, which exist for {able} only",
                                location=location, value=ruleset)
        if k == "deepstrike":
            try:
                labelled_deepstrike(rs)
            except ScenarioError as exc:
                raise ScenarioError(exc.detail, location=location, value=ruleset) from None
    return rs


@dataclass(frozen=True)
class Job:
    """What every item needs besides its index (sent to workers as JSON-able data).

    Raises
    ------
    ScenarioError
        On construction, ``kinds`` not one or more of the known kinds, each once (at ``kinds``:
        :func:`check_kinds`), or a ``ruleset`` that cannot label one of them (:func:`check_ruleset`),
        so a library caller meets the same refusals as ``planner generate --kind``/``--ruleset``,
        before any line is made.
    """

    seed: int
    kinds: tuple[str, ...]
    ruleset: str | None
    params: dict

    def __post_init__(self) -> None:
        check_kinds(self.kinds)
        check_ruleset(self.ruleset, self.kinds)

    def kind_of(self, index: int) -> str:
        """Kinds take turns by index (item ``i`` is ``kinds[i % len(kinds)]``)."""
        return self.kinds[index % len(self.kinds)]


def item_rng(seed: int, index: int) -> np.random.Generator:
    """The random stream of item ``index``: ``np.random.default_rng(SeedSequence(seed,
    spawn_key=(index,)))``, built as numpy's default generator is (a ``PCG64`` of that seed
    sequence) without ``default_rng``'s argument handling (6 of its 16 us)."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(index,))))


_PARAMS_CACHE: dict[str, GeneratorParams] = {}


_LAST_JOB: list = [None, None]
"""The last job seen and its parameters (a run asks for the same job's parameters line after line)."""


def _params_of(job: Job) -> GeneratorParams:
    if _LAST_JOB[0] is job:
        return _LAST_JOB[1]
    key = json.dumps(job.params, sort_keys=True)
    p = _PARAMS_CACHE.get(key)
    if p is None:
        p = _PARAMS_CACHE[key] = GeneratorParams.model_validate(job.params)
    _LAST_JOB[0], _LAST_JOB[1] = job, p
    return p


def make_line(job: Job, index: int) -> str:
    """The JSON text (no newline) of item ``index``."""
    p = _params_of(job)
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
    else:  # refused by Job (check_kinds)
        raise ValueError(f"unknown kind {kind!r}")
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


GC_YOUNG_THRESHOLD = 10_000
"""Allocations between young garbage collections while lines are made (Python's default is 700).

An item allocates some tens of thousands of short-lived objects (records, footprints, findings);
at the default the collector ran about once per item and took about a tenth of its CPU time
(measured: 1.0 ms of 10-12 ms). Collection is only deferred, never skipped: memory stays bounded
and the lines are the same."""


@contextmanager
def gc_relaxed() -> Iterator[None]:
    """Raise the young-generation threshold of the garbage collector to at least
    :data:`GC_YOUNG_THRESHOLD` for the block; the previous thresholds are restored after it."""
    old = gc.get_threshold()
    gc.set_threshold(max(old[0], GC_YOUNG_THRESHOLD), *old[1:])
    try:
        yield
    finally:
        gc.set_threshold(*old)


def make_batch(job: Job, indices: list[int]) -> list[str]:
    with gc_relaxed():
        return [make_line(job, i) for i in indices]


def _batches(start: int, stop: int, size: int) -> Iterator[list[int]]:
    for a in range(start, stop, size):
        yield list(range(a, min(stop, a + size)))


class _Workers(Protocol):
    """What the ordered collector needs of an engine: submit a batch, wait for any to finish."""

    slots: int

    def submit(self, job: Job, batch: list[int]) -> Any: ...

    def wait_any(self, handles: list[Any]) -> list[Any]:
        """Some of ``handles`` that are done (at least one; blocks until then)."""
        ...

    def result(self, handle: Any) -> list[str]: ...

    def cancel(self, handles: list[Any]) -> None: ...


class _LocalWorkers:
    """Local processes (spawned, not forked: the parent may run a progress-bar thread)."""

    def __init__(self, workers: int) -> None:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        self.slots = workers
        self.pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"))

    def submit(self, job: Job, batch: list[int]) -> Any:
        return self.pool.submit(make_batch, job, batch)

    def wait_any(self, handles: list[Any]) -> list[Any]:
        from concurrent.futures import FIRST_COMPLETED, wait

        return list(wait(handles, return_when=FIRST_COMPLETED).done)

    def result(self, handle: Any) -> list[str]:
        return handle.result()

    def cancel(self, handles: list[Any]) -> None:
        for f in handles:
            f.cancel()

    def close(self) -> None:
        self.pool.shutdown(wait=True, cancel_futures=True)


class _RayWorkers:
    """Ray tasks on the cluster this process has joined."""

    def __init__(self, workers: int) -> None:
        import ray

        self.ray = ray
        self.remote = ray.remote(make_batch)
        self.slots = max(1, int(ray.cluster_resources().get("CPU", workers)))

    def submit(self, job: Job, batch: list[int]) -> Any:
        return self.remote.remote(job, batch)

    def wait_any(self, handles: list[Any]) -> list[Any]:
        done, _ = self.ray.wait(handles, num_returns=1)
        return list(done)

    def result(self, handle: Any) -> list[str]:
        return self.ray.get(handle)

    def cancel(self, handles: list[Any]) -> None:
        for ref in handles:
            self.ray.cancel(ref)


def _in_order(workers: _Workers, job: Job, start: int, stop: int) -> Iterator[str]:
    """Lines ``start..stop-1`` in index order, batches collected in completion order.

    A finished batch waits in a reorder buffer until every batch before it is written, so a slow
    batch holds no worker idle; at most ``4 x slots`` batches are in flight or buffered (memory
    stays bounded however slow the head batch is).
    """
    todo = _batches(start, stop, BATCH)
    limit = 4 * workers.slots
    in_flight: dict[Any, int] = {}  # handle -> first index of its batch
    buffer: dict[int, list[str]] = {}
    head = start  # first index not yet written

    def fill() -> None:
        while len(in_flight) + len(buffer) < limit:
            b = next(todo, None)
            if b is None:
                return
            in_flight[workers.submit(job, b)] = b[0]

    try:
        fill()
        while in_flight or buffer:
            while head in buffer:
                lines = buffer.pop(head)
                head += len(lines)
                yield from lines
            if not in_flight:
                fill()
                if not in_flight:
                    break
            for h in workers.wait_any(list(in_flight)):
                buffer[in_flight.pop(h)] = workers.result(h)
            fill()
    finally:
        workers.cancel(list(in_flight))


def run_local(job: Job, start: int, stop: int, workers: int) -> Iterator[str]:
    """Lines ``start..stop-1`` in index order, made by ``workers`` local processes (1: this one)."""
    if workers <= 1:
        with gc_relaxed():
            for i in range(start, stop):
                yield make_line(job, i)
        return
    pool = _LocalWorkers(workers)
    try:
        yield from _in_order(pool, job, start, stop)
    finally:
        pool.close()


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
                raise ScenarioError(f"cannot join a Ray cluster at this address: {exc}", location="--address",
                                    value=address) from None
        else:
            ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
        started = True
    try:
        yield from _in_order(_RayWorkers(workers), job, start, stop)
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
