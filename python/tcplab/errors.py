"""The exceptions tcplab raises.

The classes are created by the native core (``tcplab._core``) and re-exported here, so that
``except tcplab.errors.ScenarioError`` catches what the simulator raises::

    TcplabError(Exception)
    ├── ScenarioError(TcplabError, ValueError)   the scenario is wrong
    │   ├── ParseError          not valid TOML/JSON                    (.format)
    │   ├── InvalidValueError   a value outside what is allowed        (.field, .value, .allowed)
    │   ├── UnknownFieldError   a field the format does not know       (.field, .allowed)
    │   ├── MissingFieldError   a required field is absent             (.field, .allowed)
    │   └── TopologyError       nodes/links do not connect what they must
    └── InternalError(TcplabError)   a bug in tcplab (including a panic in the core)

Every instance has the attributes ``kind``, ``field``, ``value``, ``allowed`` and ``format``;
those that do not apply are ``None``. ``str(err)`` is the full message, naming the field.
"""

from __future__ import annotations

from tcplab._core import (
    InternalError,
    InvalidValueError,
    MissingFieldError,
    ParseError,
    ScenarioError,
    TcplabError,
    TopologyError,
    UnknownFieldError,
)

__all__ = [
    "TcplabError",
    "ScenarioError",
    "ParseError",
    "InvalidValueError",
    "UnknownFieldError",
    "MissingFieldError",
    "TopologyError",
    "InternalError",
]


def _make(cls: type[TcplabError], message: str, **attrs: object) -> TcplabError:
    """An instance of one of the classes above raised from Python, with its attributes set."""
    err = cls(message)
    err.kind = {
        ParseError: "parse",
        InvalidValueError: "invalid_value",
        UnknownFieldError: "unknown_field",
        MissingFieldError: "missing_field",
        TopologyError: "topology",
        InternalError: "internal",
    }.get(cls)
    for name, value in attrs.items():
        setattr(err, name, value)
    return err


def _invalid(field: str, value: object, message: str, allowed: str) -> TcplabError:
    """An InvalidValueError raised from Python: ``FIELD: invalid value V: MESSAGE; allowed:
    ALLOWED`` (the core's wording), with its attributes set."""
    text = f"{field}: invalid value {value!r}"
    if message:
        text += f": {message}"
    return _make(
        InvalidValueError,
        f"{text}; allowed: {allowed}",
        field=field,
        value=str(value),
        allowed=allowed,
    )
