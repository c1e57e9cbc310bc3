"""Layered configuration: defaults -> local|cluster -> user file -> ``--set key=value``.

Every layer above the defaults may only name keys the defaults define, so a typo fails
loudly instead of being ignored. A mapping whose default is empty (``{}``) is open: it
takes any keys (registries, per-site patterns). YAML is read with ``safe_load`` only.
"""

from __future__ import annotations

import copy
import dataclasses
import difflib
import math
import types
import typing
from pathlib import Path
from typing import Any

import yaml

from crawlplan.paths import resource_dir


class ConfError(ValueError):
    pass


# Open maps whose keys themselves contain dots (Spark settings): ``--set spark.conf.spark.x.y=1``
# sets the key ``spark.x.y`` rather than nesting.
FLAT_MAPS = ("spark.conf",)


def load_yaml(path: str | Path) -> dict:
    path = Path(path)
    try:
        with path.open("r", encoding="utf-8") as fh:
            data = yaml.safe_load(fh)
    except FileNotFoundError:
        raise ConfError(f"config file not found: {path}") from None
    except yaml.YAMLError as exc:
        raise ConfError(f"config file {path} is not valid YAML: {exc}") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfError(f"config file {path} must hold a mapping at the top level")
    return data


def merge(base: dict, override: dict, *, where: str, prefix: str = "", open_map: bool = False) -> dict:
    """Deep-merge ``override`` into a copy of ``base``; unknown keys are errors unless the map is open."""
    out = copy.deepcopy(base)
    for key, value in override.items():
        dotted = f"{prefix}{key}"
        if key not in out:
            if not open_map:
                close = difflib.get_close_matches(str(key), [str(k) for k in out], n=1)
                hint = f"; did you mean '{prefix}{close[0]}'?" if close else ""
                raise ConfError(f"unknown config key '{dotted}' (in {where}){hint}")
            out[key] = copy.deepcopy(value)
            continue
        current = out[key]
        if isinstance(current, dict) and isinstance(value, dict):
            out[key] = merge(current, value, where=where, prefix=dotted + ".", open_map=open_map or not current)
        elif isinstance(current, dict) and value is not None:
            raise ConfError(f"config key '{dotted}' is a section; got a {type(value).__name__} (in {where})")
        else:
            out[key] = copy.deepcopy(value)
    return out


def split_override(item: str) -> tuple[list[str], str]:
    """``--set key=value`` as (the key's parts, the value as written)."""
    if "=" not in item:
        raise ConfError(f"--set takes key=value, got '{item}'")
    key, raw = item.split("=", 1)
    key = key.strip()
    if not key:
        raise ConfError(f"--set takes key=value, got '{item}'")
    return key.split("."), raw


def _yaml_value(raw: str) -> Any:
    try:
        return yaml.safe_load(raw) if raw != "" else ""
    except yaml.YAMLError:
        return raw


def parse_override(item: str) -> tuple[list[str], Any]:
    """``--set key=value`` with the value read as YAML (keys whose default does not type it)."""
    parts, raw = split_override(item)
    return parts, _yaml_value(raw)


def _flatten_into_maps(parts: list[str]) -> list[str]:
    dotted = ".".join(parts)
    for prefix in FLAT_MAPS:
        if dotted.startswith(prefix + ".") and len(dotted) > len(prefix) + 1:
            return prefix.split(".") + [dotted[len(prefix) + 1:]]
    return parts


_TRUE, _FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")


def typed_override(dotted: str, raw: str, default: Any) -> Any:
    """The value of ``--set dotted=raw`` typed by the key's default in conf/defaults.yaml.

    YAML alone would read ``off`` as a boolean and ``1e7`` as a string: a string setting keeps
    the text as written (``off``, ``no``, ``null``, ``007``; ``[a, b]`` is a list, as inputs take
    one); a boolean or a number is parsed strictly, and a value that is neither is an error naming
    the key. Keys whose default is null, a list or a map (and keys of open maps) are read as YAML."""
    if isinstance(default, str):
        if raw.strip().startswith("[") and raw.strip().endswith("]"):
            return _yaml_value(raw)    # inputs take a list of paths too: [a, b]
        return raw
    if isinstance(default, bool):
        word = raw.strip().lower()
        if word in _TRUE or word in _FALSE:
            return word in _TRUE
        raise ConfError(f"--set {dotted}={raw}: '{dotted}' is a boolean (true/false, yes/no, on/off, 1/0)")
    if isinstance(default, (int, float)):
        try:
            number = float(raw)
        except ValueError:
            raise ConfError(f"--set {dotted}={raw}: '{dotted}' is a number") from None
        if isinstance(default, int) and number.is_integer() and "." not in raw and "e" not in raw.lower():
            return int(raw)
        return number
    value = _yaml_value(raw)
    if isinstance(default, (list, tuple)) and value is not None and not isinstance(value, (list, tuple)):
        raise ConfError(f"--set {dotted}={raw}: '{dotted}' is a list (write [a, b])")
    return value


def _nest(parts: list[str], value: Any) -> dict:
    out: Any = value
    for part in reversed(parts):
        out = {part: out}
    return out


def load_conf(
    profile: str = "local",
    user_file: str | Path | None = None,
    overrides: list[str] | tuple[str, ...] = (),
) -> dict:
    """The effective configuration for one run."""
    conf_dir = resource_dir("conf")
    conf = load_yaml(conf_dir / "defaults.yaml")
    defaults = copy.deepcopy(conf)
    registry = conf_dir / "classifiers.yaml"
    if registry.is_file():
        conf["classifiers"] = merge(conf.get("classifiers", {}), load_yaml(registry), where=str(registry),
                                    open_map=True)
    if profile:
        profile_file = conf_dir / f"{profile}.yaml"
        if not profile_file.is_file():
            raise ConfError(f"unknown profile '{profile}': {profile_file} does not exist")
        conf = merge(conf, load_yaml(profile_file), where=str(profile_file))
    if user_file:
        conf = merge(conf, load_yaml(user_file), where=str(user_file))
    for item in overrides:
        parts, raw = split_override(item)
        parts = _flatten_into_maps(parts)
        value = typed_override(".".join(parts), raw, _walk(defaults, parts, None))
        conf = merge(conf, _nest(parts, value), where=f"--set {item}")
    return conf


def _walk(conf: dict, parts: list[str], default: Any) -> Any:
    """The value at ``parts`` (the key's parts: an open map's key may hold dots), or ``default``."""
    node: Any = conf
    for part in parts:
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def get(conf: dict, dotted: str, default: Any = None) -> Any:
    return _walk(conf, dotted.split("."), default)


def section(conf: dict, dotted: str) -> dict:
    """The conf section ``dotted`` (e.g. ``stats.host_stats``); it must exist (defaults.yaml defines it)."""
    node = get(conf, dotted)
    if not isinstance(node, dict):
        raise ConfError(f"config section '{dotted}' is missing (conf/defaults.yaml defines every section)")
    return node


class Settings:
    """Base of a domain's settings dataclass: ``from_params`` builds it from its conf section
    ``SECTION`` (``settings_from``); checks go in the dataclass's ``__post_init__``."""
    SECTION: typing.ClassVar[str] = ""

    @classmethod
    def from_params(cls, params: dict, **derived):
        return settings_from(cls, params, cls.SECTION, **derived)


def settings_from(cls, params: dict, where: str, **derived):
    """A settings dataclass from its conf section: the one way a domain's settings are built.

    Every field of ``cls`` without a default is read from ``params`` (the section, merged over
    conf/defaults.yaml, so every key is there; a missing one is a ConfError naming it) and converted
    to the field's type (``int``, ``float``, ``str``, ``bool``, ``tuple[T, ...]``, ``dict``,
    ``dict[K, V]``; ``T | None``: ``""`` or null is None, the key's "not set").
    ``derived`` gives fields computed by the caller instead of read. Defaults are never written
    here: conf/defaults.yaml is the only place they are."""
    hints = typing.get_type_hints(cls)
    values = dict(derived)
    for f in dataclasses.fields(cls):
        if f.name in values or not f.init:
            continue
        if f.name not in params:
            if f.default is not dataclasses.MISSING or f.default_factory is not dataclasses.MISSING:
                continue      # not a conf key (a code-level option such as a CLI flag)
            raise ConfError(f"config key '{where}.{f.name}' is missing (conf/defaults.yaml defines it)")
        values[f.name] = _convert(params[f.name], hints[f.name], f"{where}.{f.name}")
    return cls(**values)


def _convert(value: Any, kind: Any, name: str) -> Any:
    origin = typing.get_origin(kind)
    if origin in (typing.Union, types.UnionType) and type(None) in typing.get_args(kind):
        if value is None or value == "":
            return None         # "" in conf/defaults.yaml: not set (the code's rule decides)
        inner = [k for k in typing.get_args(kind) if k is not type(None)]
        return _convert(value, inner[0], name) if len(inner) == 1 else value
    try:
        if kind is bool:
            if isinstance(value, str):
                word = value.strip().lower()
                if word not in _TRUE and word not in _FALSE:
                    raise ValueError(word)
                return word in _TRUE
            return bool(value)
        if kind in (int, float, str):
            return kind(value)
        if origin is tuple:
            item = typing.get_args(kind)[0]
            return tuple(_convert(v, item, name) for v in (value or ()))
        if origin is list:
            item = typing.get_args(kind)[0]
            return [_convert(v, item, name) for v in (value or ())]
        if kind is dict or origin is dict:
            pair = typing.get_args(kind)
            if pair:      # dict[K, V]: keys and values typed (YAML and JSON write keys differently)
                return {_convert(k, pair[0], name): _convert(v, pair[1], name) for k, v in (value or {}).items()}
            return dict(value or {})
    except (TypeError, ValueError):
        raise ConfError(f"config key '{name}' has the wrong type: {value!r}") from None
    return value


def number_setting(name: str, value, integer: bool):
    """A count or a limit from YAML or --set: ``1e7`` arrives as a string, ``1000.0`` as a float;
    both are fine where they mean a whole number, and readers get a real int."""
    try:
        number = float(value) if isinstance(value, str) else value
    except ValueError:
        number = None
    if isinstance(number, bool) or not isinstance(number, (int, float)) or not 0 <= number < math.inf \
            or (integer and float(number) != int(number)):
        kind = "a whole number" if integer else "a number"
        raise ValueError(f"{name} must be {kind} >= 0, got {value!r}")
    return int(number) if integer else float(number)
