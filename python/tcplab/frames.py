"""Results as flat columns: the one flattening the store, the studies and notebooks share::

>>> import tcplab
>>> rs = tcplab.run_many([tcplab.Scenario.from_toml("examples/sarkar2022.toml")])
>>> frame = tcplab.results_frame(rs)
>>> frame[["seed", "apps.ftp.bytes", "apps.ftp.kind"]].values.tolist()
[[1, 10000000, 'ftp']]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["flatten_summary", "results_frame"]


class _Summarised(Protocol):
    """What `results_frame` reads of a result: its nested summary (a `tcplab.Result` has one;
    this module sits below the API and does not import it)."""

    @property
    def summary(self) -> Mapping[str, Any]: ...


def flatten_summary(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The nested run summary as flat columns: top-level scalars, ``apps.<name>.<key>``,
    ``connections.<name>.<end>.<key>`` (and ``connections.<name>.<key>``) and
    ``links.<name>.<dir>.<key>``."""
    scalar = (str, int, float, bool)
    flat: dict[str, Any] = {k: v for k, v in summary.items() if v is None or isinstance(v, scalar)}
    for app in summary.get("apps", ()):
        pre = f"apps.{app.get('name')}."
        flat.update({pre + k: v for k, v in app.items() if k != "name"})
    for conn in summary.get("connections", ()):
        pre = f"connections.{conn.get('name')}."
        for k, v in conn.items():
            if isinstance(v, Mapping):
                sub = pre + k + "."
                flat.update({sub + kk: vv for kk, vv in v.items()})
            elif k != "name":
                flat[pre + k] = v
    for link in summary.get("links", ()):
        pre = f"links.{link.get('name')}."
        for d in ("ab", "ba"):
            sub = pre + d + "."
            flat.update({sub + k: v for k, v in (link.get(d) or {}).items()})
    return flat


def results_frame(results: Iterable[_Summarised | BaseException]) -> pd.DataFrame:
    """One row per result with the flattened summary (the columns of a store's ``runs``).
    An exception in the list (``run_many(..., errors="return")``) gives a row holding only
    its ``error``; the index is the position in `results`."""
    import pandas as pd

    rows: list[dict[str, Any]] = []
    for r in results:
        if isinstance(r, BaseException):
            rows.append({"error": f"{type(r).__name__}: {r}"})
        else:
            rows.append(flatten_summary(r.summary))
    return pd.DataFrame.from_records(rows)
