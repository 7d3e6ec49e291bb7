"""Reading scenario and catalogue files (YAML or JSON) into validated records.

Every problem becomes a :class:`planner.errors.ScenarioError` that names the file, the field path
and the value. Nothing here writes to a user's file except :func:`dump_scenario`, which refuses
to overwrite its own input (see ``planner.cli``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, TypeVar

import yaml
from pydantic import BaseModel, ValidationError

from planner.errors import ScenarioError
from planner.schema import Catalogue, Scenario

R = TypeVar("R", bound=BaseModel)

MAX_FILE_BYTES = 20 * 1024 * 1024


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
    value = err.get("input")
    if isinstance(value, dict | list):
        value = _value_at(data, loc)
        # show a list of plain values (a polygon, an empty model list); hide mappings
        if isinstance(value, dict) or (isinstance(value, list) and any(isinstance(v, dict) for v in value)):
            value = None
    msg = err["msg"]
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    more = len(exc.errors()) - 1
    if more:
        msg += f" (and {more} more problem{'s' if more > 1 else ''})"
    return ScenarioError(msg, file=file, location=_loc_to_str(loc), value=value)


class _UniqueKeyLoader(yaml.SafeLoader):
    """A safe YAML loader that refuses a mapping with the same key twice (YAML leaves it to us)."""


def _mapping_without_duplicates(loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
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


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)

# YAML 1.2 floats: PyYAML (YAML 1.1) reads ``1e9`` and ``2.5e-3`` (no dot or no exponent sign) as
# text; a user writing them means numbers. Same pattern as YAML 1.2's core schema.
_FLOAT_12 = re.compile(r"""^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?
                          |[-+]?\.(?:inf|Inf|INF)
                          |\.(?:nan|NaN|NAN))$""", re.X)
_UniqueKeyLoader.yaml_implicit_resolvers = {k: list(v) for k, v in yaml.SafeLoader.yaml_implicit_resolvers.items()}
for _first in "-+0123456789.":
    _UniqueKeyLoader.yaml_implicit_resolvers[_first] = [
        (tag, rx) for tag, rx in _UniqueKeyLoader.yaml_implicit_resolvers.get(_first, [])
        if tag != "tag:yaml.org,2002:float"]
_UniqueKeyLoader.add_implicit_resolver("tag:yaml.org,2002:float", _FLOAT_12, list("-+0123456789."))


MAX_ALIAS_EXPANSION = 100_000
"""Values a YAML file's aliases may add when each becomes its own copy (beyond one per byte of the
file): realistic anchors (``- *marine`` a few hundred times) stay far below, an alias bomb stops."""


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


def check_input_file(p: Path, what: str, max_bytes: int) -> None:
    """Refuse a folder or an over-large file before reading it.

    Raises
    ------
    ScenarioError
        A folder, or a file over ``max_bytes``.
    FileNotFoundError, OSError
        From the file system, for the caller to word.
    """
    if p.is_dir():
        raise ScenarioError(f"is a folder, not a {what} file", file=str(p))
    size = p.stat().st_size
    if size > max_bytes:
        raise ScenarioError(f"file is too large ({size} bytes; limit {max_bytes})", file=str(p))


def read_data(path: str | Path) -> Any:
    """Read a YAML or JSON file into plain Python data.

    Raises
    ------
    ScenarioError
        If the file is missing, unreadable, too large, or not well-formed YAML/JSON.
    """
    p = Path(path)
    name = str(path)
    try:
        check_input_file(p, "scenario", MAX_FILE_BYTES)
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError("no such file", file=name) from None
    except UnicodeDecodeError:
        raise ScenarioError("not a UTF-8 text file", file=name) from None
    except OSError as exc:
        raise ScenarioError(f"cannot read file: {exc.strerror}", file=name) from None
    try:
        if p.suffix.lower() == ".json":
            data = json.loads(text)
        else:
            data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
            data = unshared(data, len(text) + MAX_ALIAS_EXPANSION)
    except json.JSONDecodeError as exc:
        raise ScenarioError(f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}", file=name) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise ScenarioError(f"malformed YAML{where}: {problem}", file=name) from None
    except RecursionError:
        raise ScenarioError("document nests too deeply", file=name) from None
    except ScenarioError as exc:
        raise ScenarioError(exc.detail, file=name) from None
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
    """Read and validate one catalogue file of the ``models/`` folder."""
    return parse_record(Catalogue, read_data(path), str(path))


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


def dump_data(data: Any, path: str | Path) -> None:
    """Write plain data as YAML (compact) or JSON (if the path ends in .json), atomically."""
    p = Path(path)
    if p.suffix.lower() == ".json":
        text = json.dumps(data, indent=2) + "\n"
    else:
        text = yaml.dump(data, Dumper=_CompactDumper, sort_keys=False, allow_unicode=True, width=120)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(p)


def dump_scenario(scenario: Scenario | dict[str, Any], path: str | Path) -> None:
    """Write a scenario (a record, or its data as read from a file) as YAML or JSON."""
    data = scenario if isinstance(scenario, dict) else scenario_to_data(scenario)
    dump_data(data, path)
