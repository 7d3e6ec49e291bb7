"""Reading scenario and catalogue files (YAML or JSON) into validated records.

Every problem becomes a :class:`planner.errors.ScenarioError` that names the file, the field path
and the value. Every file is read by :func:`read_input`, with a size limit (raised by the
environment variable ``PLANNER_MAX_INPUT_MB``) and, for a FIFO or a device, a time limit
(``PLANNER_READ_TIMEOUT``); YAML documents have limits on nesting depth, alias expansion and
number length. Outputs are written by :func:`planner.io.outputs.write_output`, which refuses
to write over any file the command reads.
"""

from __future__ import annotations

import datetime
import difflib
import functools
import json
import math
import os
import re
import stat
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError
from yaml.composer import Composer
from yaml.constructor import SafeConstructor
from yaml.parser import Parser
from yaml.reader import Reader
from yaml.resolver import Resolver
from yaml.scanner import Scanner

from planner.errors import ScenarioError
from planner.schema import TOO_MANY_MODELS, Catalogue, Scenario

R = TypeVar("R", bound=BaseModel)

MAX_FILE_BYTES = 20 * 1024 * 1024
"""Default size limit of a scenario, parameter or catalogue file (bytes)."""
LIMIT_ENV = "PLANNER_MAX_INPUT_MB"
"""Environment variable: the size limit of every file read, in megabytes (replaces the defaults)."""
READ_TIMEOUT_S = 10.0
"""A FIFO or a device read as input must end within this many seconds."""
TIMEOUT_ENV = "PLANNER_READ_TIMEOUT"
"""Environment variable: that time limit, in seconds."""
MAX_DEPTH = 64
"""Nesting depth limit of a YAML or JSON document (a scenario needs about 10)."""
MAX_NODES = 1_000_000
"""Limit on the values of a YAML document with its aliases expanded."""
MAX_NUMBER_CHARS = 40
"""Limit on the characters of one number in a YAML or JSON file."""


def _loc_to_str(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            # pydantic puts the discriminator tag or the union member name in the loc; keep it readable
            out += ("." if out else "") + str(part)
    return out


def _value_at(data: Any, loc: tuple[Any, ...]) -> Any:
    cur = data
    for part in loc:
        try:
            if isinstance(cur, dict):
                if part in cur:
                    cur = cur[part]
                    continue
                return None
            if isinstance(cur, list) and isinstance(part, int):
                cur = cur[part]
                continue
            return None
        except (IndexError, KeyError, TypeError):
            return None
    return cur


def validation_error(exc: ValidationError, data: Any, file: str | None) -> ScenarioError:
    """Turn the first pydantic error into a ScenarioError naming the field path and value."""
    err = exc.errors()[0]
    loc = tuple(p for p in err["loc"] if p not in ("round", "oval", "hull", "near_point", "function-after"))
    # drop pydantic's union member tags such as 'tagged-union[...]'
    loc = tuple(p for p in loc if not (isinstance(p, str) and "[" in p and p.endswith("]")))
    loc = _without_tags(loc, data)
    value = err.get("input")
    given = _kind_given(err)
    if isinstance(value, dict | list):
        value = _value_at(data, loc)
        # show a list of plain values (a polygon, an empty model list); hide mappings
        if isinstance(value, dict) or (isinstance(value, list) and any(isinstance(v, dict) for v in value)):
            value = None
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if err.get("type") == "too_long" and isinstance(err.get("input"), list | dict):
        # pydantic's "List should have at most 1000 items after validation, not 1001": the count as
        # the value (a list of records is not shown), the limit in the words
        msg, value = f"too many items: at most {err['ctx']['max_length']} are allowed", err["ctx"]["actual_length"]
    elif given is not None:
        msg += f", got {given}"
    elif err.get("type") == "string_type" and (unquoted := _unquoted_kind(value)) is not None:
        # YAML reads `off`, `no`, `12`, `007`, `2024-01-01` unquoted as a boolean, a number or a date
        key = next((p for p in reversed(loc) if isinstance(p, str)), "id")
        msg += f", got {unquoted} ({_UNQUOTED[unquoted]}): write it in quotes, {key}: \"...\""
        if isinstance(value, datetime.date):
            value = value.isoformat()
    if err.get("type") == TOO_MANY_MODELS:  # the scenario's model limit, at armies: the count is the value
        value = err["ctx"]["count"]
    more = len(exc.errors()) - 1
    typo = _typo_of(exc.errors())
    if typo is not None:  # 'modles:' for 'models:': both errors are the one mistake
        wanted, key, close = typo
        msg += f"; the key {key!r} here is not a field" + (f" (did you mean {wanted!r}?)" if close else "")
        more -= 1
    elif err.get("type") == "extra_forbidden" and loc and isinstance(loc[-1], str):
        close = difflib.get_close_matches(loc[-1], sorted(_schema_keys()), n=1, cutoff=0.75)
        if close:  # 'sub_types:' for 'subtypes:' (an optional field: no missing-field error to pair with)
            msg += f"; the key {loc[-1]!r} is not a field here (did you mean {close[0]!r}?)"
    if more:
        msg += f" (and {more} more problem{'s' if more > 1 else ''})"
    return ScenarioError(msg, file=file, location=_loc_to_str(loc), value=value)


@functools.cache
def _schema_keys() -> frozenset[str]:
    """Every key a scenario file may use somewhere (the fields, by alias, of the models in
    :mod:`planner.schema`): the words a mistyped key is matched against."""
    import inspect

    from pydantic import BaseModel

    import planner.schema as schema

    keys: set[str] = set()
    for _, cls in inspect.getmembers(schema, inspect.isclass):
        if issubclass(cls, BaseModel) and cls.__module__ == schema.__name__:
            keys |= {info.alias or name for name, info in cls.model_fields.items()}
    return frozenset(keys)


def _without_tags(loc: tuple[Any, ...], data: Any) -> tuple[Any, ...]:
    """``loc`` without the discriminator tags pydantic puts in it: a part that is not a key of the
    mapping at that point of ``data`` but one of its values (the ``kind: cover`` of a goal gives
    ``goals.0.cover.against`` for the file's ``goals[0].against``), never the last part."""
    out: list[Any] = []
    cur = data
    for i, part in enumerate(loc):
        if (isinstance(cur, dict) and isinstance(part, str) and part not in cur and i < len(loc) - 1
                and part in [v for v in cur.values() if isinstance(v, str)]):
            continue  # a tag: the data stays where it is
        out.append(part)
        if isinstance(cur, dict):
            cur = cur.get(part)
        elif isinstance(cur, list) and isinstance(part, int) and 0 <= part < len(cur):
            cur = cur[part]
        else:
            cur = None
    return tuple(out)


_UNQUOTED = {"a boolean": "unquoted, yes, no, on, off, true and false are one",
             "a number": "unquoted, 12 and 007 are one", "a date": "unquoted, 2024-01-01 is one"}


def _unquoted_kind(value: Any) -> str | None:
    """What a text field was given instead of text ("a boolean", "a number", "a date"), or None."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, datetime.date):
        return "a date"
    return None


def _kind_given(err: Any) -> str | None:
    """For a type error (pydantic's ``*_type``: a list wanted, say) on a mapping or a list, what was
    given ("a mapping", "a list"): such a value is not shown in full. None otherwise."""
    if not str(err.get("type", "")).endswith("_type"):
        return None
    value = err.get("input")
    return "a mapping" if isinstance(value, dict) else "a list" if isinstance(value, list) else None


def _typo_of(errors: list[Any]) -> tuple[str, str, bool] | None:
    """When the first error is a missing field and another is an unknown key of the same mapping
    (a typo: ``modles`` for ``models``): the field, the key, and whether they are close."""
    import difflib

    first = errors[0]
    if first.get("type") != "missing" or not first.get("loc"):
        return None
    parent, wanted = tuple(first["loc"][:-1]), str(first["loc"][-1])
    keys = [str(e["loc"][-1]) for e in errors[1:] if e.get("type") == "extra_forbidden" and e.get("loc")
            and tuple(e["loc"][:-1]) == parent]
    if not keys:
        return None
    close = difflib.get_close_matches(wanted, keys, n=1, cutoff=0.6)
    return wanted, (close[0] if close else keys[0]), bool(close)


class _PythonEvents(Reader, Scanner, Parser):
    """PyYAML's pure-Python scanner and parser (the event source when libyaml is missing)."""

    def __init__(self, stream: Any) -> None:
        Reader.__init__(self, stream)
        Scanner.__init__(self)
        Parser.__init__(self)


_CEvents: Any
try:  # libyaml's scanner and parser (PyYAML's wheels are built with it): about 6x faster
    import yaml._yaml as _libyaml

    _CEvents = _libyaml.CParser
except ImportError:  # pragma: no cover - a PyYAML built without libyaml
    _CEvents = None

FAST_YAML = _CEvents is not None
"""True when YAML is scanned and parsed by libyaml (C); composing, the checks and the
constructors are the same Python code either way."""


class _CheckedComposer(Composer, SafeConstructor, Resolver):
    """The checks of a safe YAML loader, over any event source: it refuses a mapping with the
    same key twice (YAML leaves it to us), a document nested more than :data:`MAX_DEPTH` deep, a
    document whose aliases expand to more than :data:`MAX_NODES` nodes (an "alias bomb" of a few
    hundred bytes would otherwise grow past gigabytes), an alias that refers to itself, and
    numbers longer than :data:`MAX_NUMBER_CHARS`; it reads YAML 1.2 floats (``1e9``)."""

    # provided by the event source (libyaml's or PyYAML's parser)
    peek_event: Callable[[], Any]
    dispose: Callable[[], None]

    def __init__(self, stream: Any) -> None:
        self._events_init(stream)
        SafeConstructor.__init__(self)
        Resolver.__init__(self)
        Composer.__init__(self)
        self._depth = 0

    def _events_init(self, stream: Any) -> None:
        raise NotImplementedError

    def compose_node(self, parent: Any, index: Any) -> Any:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH:
                mark = self.peek_event().start_mark
                raise ScenarioError(f"the document nests more than {MAX_DEPTH} levels deep (the limit; at line "
                                    f"{mark.line + 1} column {mark.column + 1})")
            return super().compose_node(parent, index)
        finally:
            self._depth -= 1

    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, KeyError, TypeError, AttributeError, OverflowError) as exc:
            # a tag on a value it does not fit (!!map x, !!bool x, !!timestamp x): PyYAML's
            # constructors raise plain Python errors for these
            raise ScenarioError(f"a value that does not fit its YAML tag {node.tag!r} at {_where(node)} "
                                f"({type(exc).__name__}: {exc})") from None

    def get_single_data(self) -> Any:
        node = self.get_single_node()
        if node is None:
            return None
        _check_expansion(node)
        return self.construct_document(node)


def _where(node: yaml.Node) -> str:
    return f"line {node.start_mark.line + 1} column {node.start_mark.column + 1}"


def _child_loc(loc: str, key: Any) -> str:
    if isinstance(key, int):
        return f"{loc}[{key}]"
    text = str(key)
    if len(text) > 40:
        text = text[:37] + "..."
    return f"{loc}.{text}" if loc else text


def _check_expansion(root: yaml.Node) -> None:
    """Refuse a node graph whose aliases expand past :data:`MAX_NODES` nodes or :data:`MAX_DEPTH`
    levels, that refers to itself, or that holds a number longer than :data:`MAX_NUMBER_CHARS`
    (counted on the shared graph, never expanded). Errors name the field path (made only for an
    error: the walk carries each node's path as a chain of keys)."""
    memo: dict[int, tuple[int, int]] = {}
    active: set[int] = set()
    int_tag, float_tag = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
    scalar = yaml.ScalarNode

    def loc_of(path: tuple[Any, ...]) -> str:
        keys = []
        while path:
            path, key = path
            keys.append(key)
        loc = ""
        for key in reversed(keys):
            loc = _child_loc(loc, key)
        return loc

    def deep(path: tuple[Any, ...], node: yaml.Node) -> ScenarioError:
        return ScenarioError(f"the document (with its aliases expanded) nests more than {MAX_DEPTH} levels deep "
                             f"(at {_where(node)})", location=loc_of(path))

    def check_number(node: yaml.ScalarNode, path: tuple[Any, ...]) -> None:
        if node.tag in (int_tag, float_tag) and len(str(node.value)) > MAX_NUMBER_CHARS:
            raise ScenarioError(f"a number of {len(str(node.value))} characters; at most {MAX_NUMBER_CHARS} are "
                                f"allowed (at {_where(node)})", location=loc_of(path),
                                value=str(node.value)[:20] + "...")

    def walk(node: yaml.Node, level: int, path: tuple[Any, ...]) -> tuple[int, int]:
        key = id(node)
        if key in memo:
            if level + memo[key][1] - 1 > MAX_DEPTH:
                raise deep(path, node)
            return memo[key]
        if key in active:
            raise ScenarioError(f"an alias refers to the node that holds it (a recursive document, at "
                                f"{_where(node)})", location=loc_of(path))
        if level > MAX_DEPTH:
            raise deep(path, node)
        size, depth = 1, 1
        if isinstance(node, scalar):
            check_number(node, path)
        else:
            active.add(key)
            kids: list[tuple[yaml.Node, tuple[Any, ...]]]
            if isinstance(node, yaml.SequenceNode):
                kids = [(kid, (path, i)) for i, kid in enumerate(node.value)]
            else:
                kids = []
                for k, v in node.value:
                    kid_path = (path, k.value if isinstance(k, scalar) else "<key>")
                    kids += [(k, kid_path), (v, kid_path)]
            for kid, kid_path in kids:
                if isinstance(kid, scalar):  # a leaf: what walk(kid) does for one, without the call
                    if level + 1 > MAX_DEPTH:
                        raise deep(kid_path, kid)
                    check_number(kid, kid_path)
                    size += 1
                    depth = max(depth, 2)
                else:
                    s, d = walk(kid, level + 1, kid_path)
                    size += s
                    depth = max(depth, d + 1)
                if size > MAX_NODES:
                    raise ScenarioError(f"the document's aliases expand to more than {MAX_NODES} values (the limit; "
                                        f"at {_where(node)})", location=loc_of(path) or "(top level)")
            active.discard(key)
        memo[key] = (size, depth)
        return size, depth

    walk(root, 1, ())


def _mapping_without_duplicates(loader: _CheckedComposer, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        try:
            duplicate = key in seen
        except TypeError:
            continue  # an unhashable key: construct_mapping reports it
        if duplicate:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


def _long_number(node: yaml.Node, text: str, kind: str) -> ScenarioError:
    return ScenarioError(f"{kind} of {len(text)} characters at {_where(node)}; at most {MAX_NUMBER_CHARS} are allowed",
                         value=text[:20] + "...")


def _bad_value(node: yaml.Node, what: str, exc: Exception) -> ScenarioError:
    return ScenarioError(f"not a valid {what} at {_where(node)}: {exc}", value=str(node.value)[:40])


def _int_checked(loader: _CheckedComposer, node: yaml.ScalarNode) -> int:
    text = str(node.value)
    if len(text) > MAX_NUMBER_CHARS:
        raise _long_number(node, text, "an integer")
    try:  # an explicit !!int tag on any text reaches here
        return yaml.constructor.SafeConstructor.construct_yaml_int(loader, node)
    except ValueError as exc:
        raise _bad_value(node, "integer", exc) from None


def _timestamp_checked(loader: _CheckedComposer, node: yaml.ScalarNode) -> Any:
    try:
        return yaml.constructor.SafeConstructor.construct_yaml_timestamp(loader, node)
    except (ValueError, TypeError, OverflowError, AttributeError) as exc:  # 2001-13-99; !!timestamp on any text
        raise _bad_value(node, "date", exc) from None


def _float_checked(loader: _CheckedComposer, node: yaml.ScalarNode) -> float:
    text = str(node.value)
    if len(text) > MAX_NUMBER_CHARS:
        raise _long_number(node, text, "a number")
    try:  # an explicit !!float tag on any text reaches here
        value = yaml.constructor.SafeConstructor.construct_yaml_float(loader, node)
    except ValueError as exc:
        raise _bad_value(node, "number", exc) from None
    if math.isinf(value) and "inf" not in text.lower():
        raise ScenarioError(f"number too large at {_where(node)} (it would be infinite)", value=text)
    return value


_CheckedComposer.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)  # type: ignore[type-var]
_CheckedComposer.add_constructor("tag:yaml.org,2002:int", _int_checked)  # type: ignore[type-var]
_CheckedComposer.add_constructor("tag:yaml.org,2002:float", _float_checked)  # type: ignore[type-var]
_CheckedComposer.add_constructor("tag:yaml.org,2002:timestamp", _timestamp_checked)  # type: ignore[type-var]

# YAML 1.2 floats: PyYAML (YAML 1.1) reads ``1e9`` and ``2.5e-3`` (no dot or no exponent sign) as
# text; a user writing them means numbers. Same pattern as YAML 1.2's core schema.
_FLOAT_12 = re.compile(r"""^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?
                          |[-+]?\.(?:inf|Inf|INF)
                          |\.(?:nan|NaN|NAN))$""", re.X)
_CheckedComposer.yaml_implicit_resolvers = {k: list(v) for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
for _first in "-+0123456789.":
    _CheckedComposer.yaml_implicit_resolvers[_first] = [
        (tag, rx) for tag, rx in _CheckedComposer.yaml_implicit_resolvers.get(_first, [])
        if tag != "tag:yaml.org,2002:float"]
_CheckedComposer.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT_12, list("-+0123456789."))


class _PythonLoader(_CheckedComposer, _PythonEvents):
    """The checked loader on PyYAML's pure-Python scanner and parser."""

    def _events_init(self, stream: Any) -> None:
        _PythonEvents.__init__(self, stream)


if _CEvents is not None:
    class _CLoader(_CheckedComposer, _CEvents):
        """The checked loader on libyaml's scanner and parser (the same composer and checks)."""

        def _events_init(self, stream: Any) -> None:
            _CEvents.__init__(self, stream)

    _UniqueKeyLoader: type[_CheckedComposer] = _CLoader
else:  # pragma: no cover
    _UniqueKeyLoader = _PythonLoader


def unshared(data: Any, limit: int) -> Any:
    """A copy of YAML data in which no mapping or list appears twice: an alias (``*marine``)
    becomes its own copy of what its anchor names, so that each model read from it is its own
    record and nothing written to one (a planned position) reaches another. The input is not
    changed.

    Raises
    ------
    ScenarioError
        If the copy would hold more than ``limit`` values (aliases nested in aliases); the caller
        adds the file name.
    """
    count = 0

    def copy(v: Any) -> Any:
        nonlocal count
        count += 1
        if count > limit:
            raise ScenarioError(f"the YAML aliases expand to more than {limit} values")
        if isinstance(v, dict):
            return {k: copy(x) for k, x in v.items()}
        if isinstance(v, list):
            return [copy(x) for x in v]
        return v

    return copy(data)


class _JsonValueError(ValueError):
    """A JSON value the loader refuses (raised from the decoder's hooks)."""


def _json_pairs(pairs: list[tuple[str, Any]]) -> dict:
    out: dict = {}
    for k, v in pairs:
        if k in out:
            raise _JsonValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _json_int(text: str) -> int:
    if len(text) > MAX_NUMBER_CHARS:
        raise _JsonValueError(f"an integer of {len(text)} characters; at most {MAX_NUMBER_CHARS} are allowed")
    return int(text)


def _json_float(text: str) -> float:
    if len(text) > MAX_NUMBER_CHARS:
        raise _JsonValueError(f"a number of {len(text)} characters; at most {MAX_NUMBER_CHARS} are allowed")
    value = float(text)
    if math.isinf(value):
        raise _JsonValueError(f"number too large (it would be infinite): {text[:20]}")
    return value


def _json_constant(text: str) -> Any:
    raise _JsonValueError(f"{text} is not a JSON number (JSON has no NaN or Infinity)")


def _json_depth(data: Any) -> None:
    stack = [(data, 1)]
    while stack:
        node, level = stack.pop()
        if level > MAX_DEPTH:
            raise ScenarioError(f"the document nests more than {MAX_DEPTH} levels deep")
        if isinstance(node, dict):
            stack.extend((v, level + 1) for v in node.values())
        elif isinstance(node, list):
            stack.extend((v, level + 1) for v in node)


def input_limit(default_bytes: int) -> int:
    """The size limit of a file read: ``default_bytes``, or :data:`LIMIT_ENV` megabytes if set.

    Raises
    ------
    ScenarioError
        If the environment variable is not a positive number.
    """
    mb = _env_number(LIMIT_ENV, 1e6, "give the input size limit in megabytes, a number more than 0 and at most "
                                     "1000000")
    return default_bytes if mb is None else int(mb * 1024 * 1024)


def _read_timeout() -> float:
    t = _env_number(TIMEOUT_ENV, 86400, "give the read time limit in seconds, more than 0 and at most 86400")
    return READ_TIMEOUT_S if t is None else t


def _env_number(name: str, high: float, words: str) -> float | None:
    """The number in environment variable ``name`` (None if unset); one not in (0, ``high``] is an
    input error naming the variable, in ``words``."""
    env = os.environ.get(name)
    if not env:
        return None
    try:
        v = float(env)
    except ValueError:
        v = -1.0
    if not (0 < v <= high):
        raise ScenarioError(words, location=name, value=env)
    return v


def read_input(path: str | Path, what: str, max_bytes: int) -> bytes:
    """The bytes of an input file, read with limits: the one reader of every file a command reads.

    A regular file is read up to the limit (its reported size is checked first, and the read
    stops at the limit whatever it says); a FIFO or a device is read the same way without
    trusting its size, and must end (EOF) within :data:`TIMEOUT_ENV` seconds (default
    :data:`READ_TIMEOUT_S`): an endless device or a FIFO nobody writes is an input error, not a
    hang. The file is recorded as read by the run (:func:`planner.io.outputs.note_read`).

    Parameters
    ----------
    max_bytes : int
        The default limit; the environment variable :data:`LIMIT_ENV` (megabytes) replaces it.

    Raises
    ------
    ScenarioError
        Missing, a folder or a socket, unreadable, over the limit, or not ending in time.
    """
    from planner.io.outputs import note_read

    name = str(path)
    limit = input_limit(max_bytes)
    timeout = _read_timeout()  # checked on every read, as the size limit is, not only when a FIFO is read
    hint = f"; set {LIMIT_ENV} (megabytes) to raise the limit"
    try:
        st = os.stat(path)
        if stat.S_ISDIR(st.st_mode):
            raise ScenarioError(f"is a folder, not a {what} file", file=name)
        if stat.S_ISSOCK(st.st_mode):
            raise ScenarioError(f"is a socket, not a {what} file", file=name)
        if stat.S_ISREG(st.st_mode):
            if st.st_size > limit:
                raise ScenarioError(f"file is too large ({st.st_size} bytes; limit {limit}){hint}", file=name)
            with open(path, "rb") as fh:
                note_read(path, os.fstat(fh.fileno()))
                data = fh.read(limit + 1)
        else:
            data = _read_stream(path, name, limit, timeout)
    except FileNotFoundError:
        raise ScenarioError("no such file", file=name) from None
    except IsADirectoryError:
        raise ScenarioError(f"is a folder, not a {what} file", file=name) from None
    except OSError as exc:
        raise ScenarioError(f"cannot read file: {exc.strerror or exc}", file=name) from None
    if len(data) > limit:
        raise ScenarioError(f"file is larger than the limit of {limit} bytes{hint}", file=name)
    return data


def _read_stream(path: str | Path, name: str, limit: int, timeout: float) -> bytes:
    """A FIFO or a device: read without blocking past the deadline (``timeout`` seconds), at most
    ``limit + 1`` bytes."""
    import select
    import time

    from planner.io.outputs import note_read

    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)  # a FIFO opens at once, with or without a writer
    try:
        note_read(path, os.fstat(fd))
        chunks: list[bytes] = []
        got = 0
        deadline = time.monotonic() + timeout
        while got <= limit:
            left = deadline - time.monotonic()
            if left <= 0:
                raise ScenarioError(f"not a regular file and it did not end within {timeout:g} s (a FIFO nobody "
                                    f"writes, or an endless device?); set {TIMEOUT_ENV} (seconds) to wait longer",
                                    file=name)
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(fd, min(1 << 16, limit + 1 - got))
            except BlockingIOError:
                continue
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def parse_json(text: str, name: str) -> Any:
    """Parse JSON text with the limits of every input: nesting depth :data:`MAX_DEPTH`, no duplicate
    keys, no NaN or Infinity, numbers of at most :data:`MAX_NUMBER_CHARS` characters and never
    infinite.

    Raises
    ------
    ScenarioError
        Naming ``name`` (the file), for malformed or refused JSON, or an empty text ("got empty",
        as :func:`parse_record` says of an empty YAML file).
    """
    if not text.strip():
        raise ScenarioError("expected a JSON document, got empty", file=name)
    try:
        data = json.loads(text, object_pairs_hook=_json_pairs, parse_int=_json_int, parse_float=_json_float,
                          parse_constant=_json_constant)
        _json_depth(data)
    except ScenarioError as exc:
        raise exc.with_file(name) from None
    except _JsonValueError as exc:
        raise ScenarioError(f"refused JSON value: {exc}", file=name) from None
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", file=name) from None
    except RecursionError:
        raise ScenarioError("document nests too deeply", file=name) from None
    return data


def read_text(path: str | Path, what: str, max_bytes: int, *, bom: bool = False) -> str:
    """A UTF-8 text file read by :func:`read_input` (its limits), decoded; ``bom`` drops a
    leading byte-order mark (``utf-8-sig``).

    Raises
    ------
    ScenarioError
        As :func:`read_input`, or if the file is not UTF-8 text.
    """
    raw = read_input(path, what, max_bytes)
    try:
        return raw.decode("utf-8-sig" if bom else "utf-8")
    except UnicodeDecodeError:
        raise ScenarioError("not a UTF-8 text file", file=str(path)) from None


def read_data(path: str | Path, what: str = "scenario") -> Any:
    """Read a YAML or JSON file into plain Python data, with the limits of :func:`read_input` and
    of the YAML loader (nesting depth, alias expansion, number length); JSON refuses duplicate
    keys, NaN and Infinity, and numbers too long or too large. ``what``: the kind of file, for
    messages ("is a folder, not a scenario file").

    Raises
    ------
    ScenarioError
        If the file is missing, unreadable, too large, over a limit, or not well-formed YAML/JSON.
    """
    p = Path(path)
    name = str(path)
    text = read_text(p, what, MAX_FILE_BYTES)
    if p.suffix.lower() == ".json":
        return parse_json(text, name)
    try:
        loader = _UniqueKeyLoader(text)
        try:
            data = loader.get_single_data()
        finally:
            loader.dispose()
        # each alias its own copy (bounded: the loader refused more than MAX_NODES values)
        data = unshared(data, MAX_NODES)
    except ScenarioError as exc:
        raise exc.with_file(name) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ScenarioError(f"malformed YAML{where}: {problem}", file=name) from None
    except RecursionError:
        raise ScenarioError("document nests too deeply", file=name) from None
    return data


def parse_record(model: type[R], data: Any, file: str | None = None) -> R:
    """Validate plain data as ``model``; errors become ScenarioError."""
    if not isinstance(data, dict):
        kind = "empty" if data is None else type(data).__name__
        raise ScenarioError(f"expected a mapping at the top level, got {kind}", file=file)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise validation_error(exc, data, file) from None
    except RecursionError:
        raise ScenarioError("document nests too deeply", file=file) from None


def load_scenario_record(path: str | Path) -> Scenario:
    """Read and validate a scenario file (schema only, no cross-reference checks)."""
    return parse_record(Scenario, read_data(path), str(path))


def load_catalogue_file(path: str | Path) -> Catalogue:
    """Read and validate one catalogue file of the ``models/`` folder (messages call it a
    catalogue file: "is a folder, not a catalogue file")."""
    return parse_record(Catalogue, read_data(path, "catalogue"), str(path))


def scenario_to_data(scenario: Scenario) -> dict[str, Any]:
    """The scenario as plain data, without defaults the user did not need to write."""
    return scenario.model_dump(mode="json", by_alias=True, exclude_none=True)


class _CompactDumper(yaml.SafeDumper):
    """YAML with short lists and small mappings (points, bases, models) on one line, and no
    anchors or aliases (a value written twice is written out twice)."""

    def ignore_aliases(self, data: Any) -> bool:
        return True


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, str | int | float | bool)


def _flow_short(v: Any) -> bool:
    if isinstance(v, list):
        return all(_is_scalar(x) or (isinstance(x, list) and all(_is_scalar(y) for y in x)) for x in v) and len(v) <= 12
    if isinstance(v, dict):
        return len(v) <= 8 and all(_is_scalar(x) or (isinstance(x, dict | list) and _flow_short(x)) for x in v.values())
    return False


def _repr_list(dumper: yaml.SafeDumper, data: list) -> yaml.Node:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", data, flow_style=_flow_short(data))


def _repr_dict(dumper: yaml.SafeDumper, data: dict) -> yaml.Node:
    return dumper.represent_mapping("tag:yaml.org,2002:map", data.items(), flow_style=_flow_short(data))


_CompactDumper.add_representer(list, _repr_list)
_CompactDumper.add_representer(dict, _repr_dict)


def dump_data(data: Any, path: str | Path, option: str = "--out", what: str = "file") -> None:
    """Write plain data as YAML (compact) or JSON (if the path ends in .json) with
    :func:`planner.io.outputs.write_output` (atomically; never over an input of the run).

    Raises
    ------
    ScenarioError
        As :func:`planner.io.outputs.write_output`, naming ``option``.
    """
    from planner.io.outputs import write_output

    p = Path(path)
    if p.suffix.lower() == ".json":
        text = json.dumps(data, indent=2, allow_nan=False) + "\n"
    else:
        text = yaml.dump(data, Dumper=_CompactDumper, sort_keys=False, allow_unicode=True, width=120)
    write_output(path, text, option, what=what)


def dump_scenario(scenario: Scenario | dict[str, Any], path: str | Path) -> None:
    """Write a scenario (a record, or its data as read from a file) as YAML or JSON."""
    data = scenario if isinstance(scenario, dict) else scenario_to_data(scenario)
    dump_data(data, path)
