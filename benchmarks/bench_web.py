"""Benchmark: ``check`` of the 2 x 100 model scene through the web API vs in process, same run.

Run on demand (it is not part of the test suite)::

    .venv/bin/python benchmarks/bench_web.py [--repeat N] [--output PATH]

The scene is ``benchmarks/bench_check.py``'s (72" x 48", 12 terrain features, 2 x 100 models,
10 Infiltrate units). Timed ``--repeat`` times, the three interleaved so that each round sees the
same load (medians reported; the extra is the median of the paired differences API - check):

* ``in-process check``: ``check_deployment(world)`` on a World built once (what bench_check times);
* ``in-process resolve + check``: validating the scenario data, resolving it and checking: the
  work the API does for every request (the page sends the scenario data each time);
* ``API``: ``POST /api/check`` to a real ``planner serve`` process on 127.0.0.1 over HTTP
  (httpx, one kept-alive connection): JSON encoding of the request, the server's validation,
  resolve, check, the board and the response, and decoding it here.

The issue's target: the API under 100 ms more than the in-process check. Writes the figures to
``benchmarks/results/web.json``; exit 1 when the target is missed.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

TARGET_EXTRA_MS = 100.0


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=15)
    ap.add_argument("--output", default=str(HERE / "results" / "web.json"))
    args = ap.parse_args(argv)

    import httpx
    from bench_check import build_scenario

    from planner import check_deployment, resolve
    from planner.io.files import parse_record
    from planner.schema import Scenario

    scenario, _ = build_scenario()
    data = scenario.model_dump(mode="json", by_alias=True, exclude_none=True)
    world = resolve(scenario)
    n_models = sum(len(u.models) for u in world.units.values())
    report = check_deployment(world)
    assert report.legal, "the benchmark scene must be legal"

    def in_process() -> None:
        check_deployment(world)

    def in_process_full() -> None:
        check_deployment(resolve(parse_record(Scenario, data)))

    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    with tempfile.TemporaryDirectory() as tmp:
        server = subprocess.Popen([sys.executable, "-m", "planner", "serve", "--port", str(port), "--root", tmp],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
        try:
            url = f"http://127.0.0.1:{port}"
            with httpx.Client(timeout=60) as client:
                deadline = time.monotonic() + 60
                while True:
                    try:
                        client.get(f"{url}/api/initial")
                        break
                    except httpx.TransportError:
                        if time.monotonic() > deadline or server.poll() is not None:
                            raise SystemExit("the server did not start") from None
                        time.sleep(0.2)

                parts: dict[str, list[float]] = {}

                def api() -> None:
                    r = client.post(f"{url}/api/check", json={"scenario": data})
                    r.raise_for_status()
                    assert r.json()["report"]["legal"]
                    for item in r.headers.get("server-timing", "").split(","):
                        name, _, dur = item.strip().partition(";dur=")
                        if dur:
                            parts.setdefault(name, []).append(float(dur))

                # interleaved, so that all three see the same load of a shared machine
                for fn in (in_process, in_process_full, api):
                    fn()  # warm-up
                check_all, full_all, api_all, diffs = [], [], [], []
                for _ in range(args.repeat):
                    row = []
                    for fn in (in_process, in_process_full, api):
                        t0 = time.perf_counter()
                        fn()
                        row.append((time.perf_counter() - t0) * 1000)
                    check_all.append(row[0])
                    full_all.append(row[1])
                    api_all.append(row[2])
                    diffs.append(row[2] - row[0])
                check_ms, full_ms, api_ms = (statistics.median(x) for x in (check_all, full_all, api_all))
                size = len(client.post(f"{url}/api/check", json={"scenario": data}).content)
        finally:
            server.terminate()
            server.wait(timeout=20)

    extra = statistics.median(diffs)  # median of the paired differences
    server_ms = {k: statistics.median(v) for k, v in parts.items()}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else None
    ok = extra < TARGET_EXTRA_MS
    rows = [("in-process check_deployment", check_ms), ("in-process validate + resolve + check", full_ms),
            ("POST /api/check over HTTP", api_ms)]
    print(f"check of the bench_check scene ({n_models} models), median of {args.repeat}:")
    for name, ms in rows:
        print(f"  {name:<40} {ms:8.1f} ms")
    print(f"  API minus in-process check (median of the paired differences): {extra:.1f} ms (target: under {TARGET_EXTRA_MS:g} ms): "
          f"{'PASS' if ok else 'FAIL'}; response {size / 1024:.0f} KiB")
    print("  inside the server (Server-Timing medians): " + ", ".join(f"{k} {v:.1f} ms" for k, v in server_ms.items()))
    if load is not None:
        print(f"  load average (1 min) at the end: {load:.2f} on {os.cpu_count()} CPUs")
    out = {"models": n_models, "repeat": args.repeat, "check_ms": check_ms, "resolve_check_ms": full_ms,
           "api_ms": api_ms, "api_extra_ms": extra, "target_extra_ms": TARGET_EXTRA_MS, "pass": ok,
           "response_bytes": size, "server_ms": server_ms, "load_average_1min": load, "python": platform.python_version(), "machine": platform.machine(),
           "cpus": os.cpu_count(), "times_ms": {"check": check_all, "resolve_check": full_all, "api": api_all}}
    Path(args.output).parent.mkdir(parents=True, exist_ok=True)
    Path(args.output).write_text(json.dumps(out, indent=2) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
