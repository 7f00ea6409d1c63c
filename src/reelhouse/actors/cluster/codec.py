"""Messages, answers and domain errors as JSON, to travel between nodes through the database.

Actor messages and answers are frozen dataclasses of plain values; this
writes them as JSON with their type's name and reads them back.  Only
dataclasses, enums and DomainErrors of reelhouse's own modules are ever
made from a body (an allow-list by module and kind), and only through their
constructors with JSON values: nothing in a body can run code, unlike a
pickle.  Tuples, frozensets and non-string keys are tagged to come back as
they went.
"""

from __future__ import annotations

import dataclasses
import enum
import importlib
import json
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

from reelhouse import errors

_ALLOWED_MODULES = ("reelhouse.actors.", "reelhouse.storage.", "reelhouse.media.", "reelhouse.errors")


class CodecError(ValueError):
    """A body this node cannot read (another version's type, or not ours)."""


def dumps(value: object) -> str:
    return json.dumps(_encode(value), separators=(",", ":"))


def loads(text: str) -> Any:
    return _decode(json.loads(text))


def dump_outcome(value: object = None, error: BaseException | None = None) -> str:
    """An answer: the value, or the DomainError the actor replied with."""
    if error is None:
        return json.dumps({"ok": _encode(value)}, separators=(",", ":"))
    if isinstance(error, errors.DomainError):
        return json.dumps({"error": _error(error)}, separators=(",", ":"))
    unavailable = {"message": str(error) or type(error).__name__}
    return json.dumps({"unavailable": unavailable}, separators=(",", ":"))


def load_outcome(text: str) -> Any:
    """The value of an answer; raises the DomainError it carries (Unavailable for a failed ask)."""
    outcome = json.loads(text)
    if "ok" in outcome:
        return _decode(outcome["ok"])
    if "error" in outcome:
        raise _domain_error(outcome["error"])
    raise errors.Unavailable(
        "The node leading this library could not answer; try again shortly.",
        params={"retryAfterSeconds": 5, "reason": outcome["unavailable"]["message"]},
    )


def _name(cls: type) -> str:
    return f"{cls.__module__}:{cls.__qualname__}"


def _resolve(name: str) -> type:
    module_name, _, qualname = name.partition(":")
    if not module_name.startswith(_ALLOWED_MODULES) or not qualname:
        raise CodecError(f"{name} may not travel between nodes")
    try:
        found: Any = importlib.import_module(module_name)
        for part in qualname.split("."):
            found = getattr(found, part)
    except (ImportError, AttributeError) as exc:
        raise CodecError(f"unknown type {name}") from exc
    if not isinstance(found, type):
        raise CodecError(f"{name} is not a type")
    return found


def _encode(value: object) -> Any:
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return {"$enum": _name(type(value)), "v": _encode(value.value)}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _encode(getattr(value, f.name)) for f in dataclasses.fields(value) if f.init}
        return {"$dc": _name(type(value)), "f": fields}
    if isinstance(value, tuple):
        return {"$tuple": [_encode(v) for v in value]}
    if isinstance(value, frozenset):
        return {"$frozenset": [_encode(v) for v in value]}
    if isinstance(value, list):
        return [_encode(v) for v in value]
    if isinstance(value, (set,)):
        return {"$set": [_encode(v) for v in value]}
    if isinstance(value, (dict, MappingProxyType, Mapping)):
        if all(isinstance(k, str) and not k.startswith("$") for k in value):
            return {k: _encode(v) for k, v in value.items()}
        return {"$dict": [[_encode(k), _encode(v)] for k, v in value.items()]}
    raise CodecError(f"{type(value).__name__} cannot travel between nodes")


def _decode(value: Any) -> Any:
    if isinstance(value, list):
        return [_decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "$dc" in value:
        cls = _resolve(value["$dc"])
        if not dataclasses.is_dataclass(cls):
            raise CodecError(f"{value['$dc']} is not a dataclass")
        return cls(**{k: _decode(v) for k, v in value["f"].items()})
    if "$enum" in value:
        cls = _resolve(value["$enum"])
        if not issubclass(cls, enum.Enum):
            raise CodecError(f"{value['$enum']} is not an enum")
        return cls(_decode(value["v"]))
    if "$tuple" in value:
        return tuple(_decode(v) for v in value["$tuple"])
    if "$frozenset" in value:
        return frozenset(_decode(v) for v in value["$frozenset"])
    if "$set" in value:
        return {_decode(v) for v in value["$set"]}
    if "$dict" in value:
        return {_decode(k): _decode(v) for k, v in value["$dict"]}
    return {k: _decode(v) for k, v in value.items()}


def _error(error: errors.DomainError) -> dict[str, Any]:
    return {"type": _name(type(error)), "message": error.message, "code": error.code, "params": _encode(error.params)}


def _domain_error(body: Mapping[str, Any]) -> errors.DomainError:
    cls = _resolve(body["type"])
    if not issubclass(cls, errors.DomainError):
        raise CodecError(f"{body['type']} is not a domain error")
    # Not through the constructor (subclasses add keywords): the same fields, set as it sets them.
    error = cls.__new__(cls)
    Exception.__init__(error, body["message"])
    error.message = body["message"]
    error.code = body["code"]
    error.params = dict(_decode(body["params"]))
    return error
