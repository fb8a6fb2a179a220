"""Type stubs of the native module `tcplab._core` (crates/tcplab-py).

Tables cross the boundary as ``{table: {column: (dtype, payload)}}``: a numeric column is
``("<f8" | "<u8" | "<i8", bytes)`` (little-endian raw values, for ``numpy.frombuffer``), a text
column is ``("str", list[str])``.
"""

from typing import Literal

__version__: str

NumericColumn = tuple[Literal["<f8", "<u8", "<i8"], bytes]
TextColumn = tuple[Literal["str"], list[str]]
Tables = dict[str, dict[str, NumericColumn | TextColumn]]

class TcplabError(Exception):
    kind: str | None
    field: str | None
    value: str | None
    allowed: str | None
    format: str | None

class ScenarioError(TcplabError, ValueError): ...
class ParseError(ScenarioError): ...
class InvalidValueError(ScenarioError): ...
class UnknownFieldError(ScenarioError): ...
class MissingFieldError(ScenarioError): ...
class TopologyError(ScenarioError): ...
class InternalError(TcplabError): ...

def validate(scenario_json: str) -> str:
    """Validate a scenario given as JSON; return it as the core normalised it (with `run.seed`
    always set), as JSON. Raises a `ScenarioError` subclass naming the field."""

def validate_toml(scenario_toml: str) -> str:
    """Like `validate`, for TOML text."""

def describe(scenario_json: str) -> str:
    """The resolved scenario (profile defaults applied, data and ACK paths hop by hop), as JSON."""

def run(scenario_json: str) -> tuple[str, Tables]:
    """Run one scenario with the GIL released; return (summary JSON, tables)."""

def run_many(
    scenario_jsons: list[str], threads: int | None = None
) -> list[tuple[str, Tables] | TcplabError]:
    """Run scenarios in parallel (GIL released), in input order; a failed scenario's item is its
    exception instance (not raised)."""

def variants() -> str:
    """The registered congestion controls and loss recoveries (name, one-line description) and
    the classic variant names with the (congestion control, loss recovery) pair each resolves
    to, as JSON: ``{"congestion_controls": [{"name", "description"}], "loss_recoveries": [...],
    "classic": [{"name", "congestion_control", "loss_recovery"}]}``."""

def _panic_for_test(in_pool: bool = False) -> None:
    """Test hook: panic inside the binding's guard; raises InternalError."""
