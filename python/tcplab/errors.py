"""The exceptions tcplab raises: one tree, so that ``except tcplab.errors.TcplabError`` catches
every failure tcplab reports (and ``except tcplab.errors.ScenarioError`` what the simulator
says about a scenario)::

    TcplabError(Exception)
    ├── ScenarioError(TcplabError, ValueError)   the scenario is wrong
    │   ├── ParseError          not valid TOML/JSON                    (.format)
    │   ├── InvalidValueError   a value outside what is allowed        (.field, .value, .allowed)
    │   ├── UnknownFieldError   a field the format does not know       (.field, .allowed)
    │   ├── MissingFieldError   a required field is absent             (.field, .allowed)
    │   └── TopologyError       nodes/links do not connect what they must
    ├── StepError(TcplabError, ValueError)   a step-API call the endpoint cannot do (.field;
    │                                tcplab.step: a segment before the connection, time backwards)
    ├── InternalError(TcplabError)   a bug in tcplab (including a panic in the core)
    ├── StoreError(TcplabError)      a results store that cannot be used as asked
    │                                (tcplab.sweep.StoreError)
    ├── SweepError(TcplabError, ValueError)   a model comparison's sweep that cannot run
    │                                (tcplab.compare.SweepError; .option)
    ├── UnknownStudyError(TcplabError, KeyError)   no study of that name
    │                                (tcplab.studies.UnknownStudyError)
    ├── Ns2Unavailable(TcplabError, RuntimeError)   ns-2 is not installed
    │                                (tcplab.conformance.ns2.Ns2Unavailable)
    └── TestbedError(TcplabError)    the testbed failed (tcplab.testbed.errors)
        ├── TestbedUnavailable       this machine cannot run it (not Linux, not root, ...)
        ├── TestbedConfigError(TestbedError, ValueError)   a value it cannot use
        │   └── UnsupportedScenario  a scenario it cannot emulate (.field;
        │                            tcplab.testbed.plan)
        └── TestbedRunError          a step of a run failed
            └── TestbedTimeout       the run exceeded its time budget

The first nine classes are created by the native core (``tcplab._core``) and re-exported here;
the others are defined beside the code that raises them, each on `TcplabError`, keeping the
builtin second base that callers catch (``ValueError``, ``KeyError``, ``RuntimeError``).
Every instance has the attributes ``kind``, ``field``, ``value``, ``allowed`` and ``format``;
those that do not apply are ``None`` (the classes defined outside the core set ``kind``:
``store``, ``sweep``, ``unknown_study``, ``ns2_unavailable``, ``testbed``). ``str(err)`` is
the full message, naming the field.
"""

from __future__ import annotations

from tcplab._core import (
    InternalError,
    InvalidValueError,
    MissingFieldError,
    ParseError,
    ScenarioError,
    StepError,
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
    "StepError",
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
