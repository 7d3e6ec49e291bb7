"""``planner serve``: start the page's server (uvicorn) and print its address."""

from __future__ import annotations

import os
from pathlib import Path

from planner.errors import ScenarioError


def make_server(scenario: str | None, host: str, port: int, root: str | None):
    """A uvicorn server for the page; the scenario (if given) is loaded first, so that a file that
    cannot be used is an input error before the server starts.

    Raises
    ------
    ScenarioError
        The web extra is not installed, the scenario does not load, the root is not a folder.
    """
    try:
        import uvicorn

        from planner.web.app import create_app
    except ImportError as exc:
        raise ScenarioError(f"planner serve needs the web extra: pip install 'deployment-planner[web]' ({exc})",
                            location="serve") from None
    if scenario is not None:
        from planner.world import load_scenario

        load_scenario(scenario)  # fails with the file, the field and the value
    folder = root or (str(Path(scenario).resolve().parent) if scenario else os.getcwd())
    if not Path(folder).is_dir():
        raise ScenarioError("not a folder", location="--root", value=folder)
    _check_port(host, port)
    hosts = None if host in ("0.0.0.0", "::") else sorted({host, "127.0.0.1", "localhost", "::1", "[::1]"})
    app = create_app(str(Path(scenario).resolve()) if scenario else None, folder, allowed_hosts=hosts)
    config = uvicorn.Config(app, host=host, port=port, log_level="warning", access_log=False)
    return uvicorn.Server(config), folder


def _check_port(host: str, port: int) -> None:
    """Fail with an input error (not uvicorn's exit 1) when the address cannot be bound."""
    import socket

    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except socket.gaierror as exc:
        raise ScenarioError(f"unknown host: {exc.strerror}", location="--host", value=host) from None
    family, kind, proto, _, addr = infos[0]
    with socket.socket(family, kind, proto) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(addr)
        except OSError as exc:
            raise ScenarioError(f"cannot listen there: {exc.strerror}", location="--port", value=port) from None


def url_of(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"
