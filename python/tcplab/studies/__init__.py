"""Published studies, reproduced: each module or subpackage of this package defines one study as
a module-level ``STUDY`` (an instance of a `Study` subclass); the registry finds them::

    >>> import tcplab.studies
    >>> "sarkar2022" in tcplab.studies.names()
    True
    >>> res = tcplab.studies.get("sarkar2022").run(seeds=1, out="out/sarkar2022")
    >>> str(res.report_path)
    'out/sarkar2022/report.html'

Adding a study: write ``tcplab/studies/<name>.py`` (or a package ``<name>/`` whose
``__init__`` exports it) with ``STUDY = MyStudy()``; nothing else needs to change (modules whose
names start with ``_`` and ``cli`` are not studies). The pieces studies share (statistics over
seeds, formatting, figure panels, their scenario files in ``scenarios/``) are in ``_kit``.
"""

from __future__ import annotations

import importlib
import pkgutil

from tcplab.errors import TcplabError

from ._base import (
    KINDS,
    Case,
    Check,
    FigureSpec,
    Finding,
    Study,
    StudyResult,
    TableOut,
    flatten_summary,
    headline,
    verdict_counts,
)

__all__ = [
    "KINDS",
    "Case",
    "Check",
    "FigureSpec",
    "Finding",
    "Study",
    "StudyResult",
    "TableOut",
    "UnknownStudyError",
    "flatten_summary",
    "get",
    "headline",
    "names",
    "register",
    "studies",
    "verdict_counts",
]

_NOT_STUDIES = {"cli"}
_registry: dict[str, Study] = {}
_discovered = False


class UnknownStudyError(TcplabError, KeyError):
    """`get` was asked for a study that is not registered."""

    kind = "unknown_study"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown study"


def register(study: Study) -> Study:
    """Add a study to the registry (done automatically for a module's ``STUDY``)."""
    if not isinstance(study, Study):
        raise TypeError(f"a study must be a tcplab.studies.Study, not {type(study).__name__}")
    if not study.name:
        raise ValueError(f"study {type(study).__name__} has no name")
    known = _registry.get(study.name)
    if known is not None and type(known) is not type(study):
        raise ValueError(f"two studies are named {study.name!r}: {known!r} and {study!r}")
    _registry[study.name] = study
    return study


def _discover() -> None:
    global _discovered
    if _discovered:
        return
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_") or info.name in _NOT_STUDIES:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        study = getattr(module, "STUDY", None)
        if study is not None:
            register(study)
    _discovered = True


def studies() -> dict[str, Study]:
    """Every registered study by name, sorted by name."""
    _discover()
    return dict(sorted(_registry.items()))


def names() -> list[str]:
    """The names of the registered studies, sorted."""
    return list(studies())


def get(name: str) -> Study:
    """The study called `name`; `UnknownStudyError` (a KeyError) names the known ones."""
    all_ = studies()
    try:
        return all_[name]
    except KeyError:
        raise UnknownStudyError(
            f"unknown study {name!r}; known studies: {', '.join(all_) or 'none'}"
        ) from None
