"""The study framework: a study is a grid of scenarios x seeds, the published numbers it is
compared with, its analytic checks, its tables, its figures and its report.

A study subclasses `Study` and sets its class attributes; it implements

* `scenario()`: the base scenario (a `tcplab.Scenario`);
* `cases()`: the grid, a list of `Case` (each one scenario, run once per seed);
* optionally `case_scenario(base, case)`: a case's scenario when overrides of the base cannot
  say it (default: the base with the case's overrides);
* `references()`: the paper's numbers (nested dicts/lists, JSON-able);
* `analyse(result)`: fills `result.tables`, `result.checks` and `result.findings`;
* `figures(result)`: yields `FigureSpec` (name, caption, a function drawing a matplotlib
  figure);
* optionally `metrics(run_result)`: extra per-run columns (beyond the flattened summary), and
  `row_summary(summary)`: the part of the summary flattened into the row (default: all);
* optionally `options` (study-specific settings, `StudyOption`) and `extend(res)`: work an
  option asks for after the simulations and before `analyse` (e.g. testbed runs), reading
  `res.options`; `check_options(options)` refuses what cannot run before anything starts.

`Study.run(seeds, jobs, out, options=...)` runs the grid (in parallel, in Rust, via
`tcplab.run_many`), keeps the traces of the runs that asked for them, analyses, and with `out`
writes the report (report.html, results.parquet, summary.json and figures/).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from tcplab.frames import flatten_summary
from tcplab.sweep.grid import seed_list
from tcplab.sweep.store_write import open_writer

from ._verdicts import KINDS, Finding, count_text, findings_html, headline, verdict_counts

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

    from tcplab import Result, Scenario

__all__ = [
    "KINDS",
    "Case",
    "Check",
    "Finding",
    "FigureSpec",
    "Study",
    "StudyOption",
    "StudyResult",
    "TableOut",
    "flatten_summary",
    "headline",
    "verdict_counts",
]


# ----------------------------------------------------------------------------------------------
# Building blocks


@dataclass(frozen=True)
class Case:
    """One scenario of a study's grid: the base scenario with `overrides` (dotted paths, as
    `Scenario.with_overrides`). It runs once per seed.

    `params` are the grid coordinates (columns of results.parquet, e.g. ``{"pdrop": 0.01}``);
    `group` and `variant` name the part of the study it belongs to (e.g. "main" /
    "riverbed", "sensitivity" / "rfc"). `traces` keeps the trace tables of its first seed
    (for figures); `packets` also turns on the per-packet log for that run. `max_seeds`
    caps the number of seeds this case runs (None: all). `trace_all` records the trace and
    the event log of every seed's run, for `Study.metrics` to read (only the first seed's
    Result is kept, as with `traces`)."""

    key: str
    group: str
    variant: str
    params: Mapping[str, Any] = field(default_factory=dict)
    overrides: Mapping[str, Any] = field(default_factory=dict)
    traces: bool = False
    packets: bool = False
    max_seeds: int | None = None
    trace_all: bool = False


@dataclass
class Check:
    """An analytic check: a quantity the paper derives, computed by our model from the
    scenario, next to the paper's number and the simulated one."""

    name: str
    source: str  # where in the paper ("4.3.3", "Table 9")
    formula: str
    paper: float | None
    model: float | None
    simulated: float | None
    unit: str = ""
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {k: _jsonable(v) for k, v in self.__dict__.items()}


@dataclass
class TableOut:
    """A table of the report: `data` holds numbers (for summary.json), `display` the same
    rows formatted for people (what the report and the CLI print)."""

    name: str
    title: str
    data: pd.DataFrame
    display: pd.DataFrame
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "note": self.note,
            "rows": [{k: _jsonable(v) for k, v in r.items()} for r in self.data.to_dict("records")],
        }


@dataclass
class FigureSpec:
    """A figure of the study: `draw()` returns a matplotlib Figure (drawn lazily)."""

    name: str
    caption: str
    draw: Callable[[], Figure]
    paper_figure: str = ""  # which figure of the paper it corresponds to


def _is_study_entry(p: Path) -> bool:
    """A file or directory `StudyResult.write` leaves (or the CLI's writability probe)."""
    from tcplab._atomic import write_test_file

    if p.is_dir():
        return p.name == "figures"
    return p.name in ("results.parquet", "summary.json", "report.html") or write_test_file(p)


@dataclass(frozen=True)
class StudyOption:
    """A study-specific option: `tcplab study NAME --option name=value` (or a flag the CLI
    maps onto it). `parse` turns the text given on the command line into the value (raising
    ValueError if it is not one); values given from Python are taken as they are."""

    name: str
    default: Any
    help: str
    parse: Callable[[str], Any] = str


def parse_bool(text: str) -> bool:
    """'true'/'false' (also yes/no, on/off, 1/0) -> bool."""
    t = text.strip().lower()
    if t in ("1", "true", "yes", "on"):
        return True
    if t in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"{text!r} is not a boolean (true or false)")


def _jsonable(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and (math.isnan(v) or math.isinf(v)):
        return None
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    if isinstance(v, Path):
        return str(v)
    return v


# ----------------------------------------------------------------------------------------------
# The study


class Study:
    """Base class of a reproduced study. See the module docstring."""

    #: Registry name (``tcplab study NAME``).
    name: ClassVar[str] = ""
    #: One line: what the study reproduces.
    title: ClassVar[str] = ""
    #: A short description (a paragraph).
    description: ClassVar[str] = ""
    #: The paper, as a citation.
    citation: ClassVar[str] = ""
    #: Seeds per case by default.
    default_seeds: ClassVar[int] = 10
    #: Keep the event log of every run (for `metrics`), not only of the traced ones.
    keep_events: ClassVar[bool] = False
    #: Study-specific options (see `StudyOption`); their values are in `StudyResult.options`.
    options: ClassVar[tuple[StudyOption, ...]] = ()

    # -- to implement -----------------------------------------------------------------------

    def scenario(self) -> Scenario:
        raise NotImplementedError

    def cases(self) -> list[Case]:
        raise NotImplementedError

    def references(self) -> dict[str, Any]:
        return {}

    def metrics(self, result: Result) -> dict[str, Any]:
        """Extra per-run columns computed from a run's Result (summary, traces if kept)."""
        return {}

    def analyse(self, res: StudyResult) -> None:
        """Fill res.tables, res.checks, res.findings."""

    def figures(self, res: StudyResult) -> Iterable[FigureSpec]:
        return ()

    def summary_table(self, res: StudyResult) -> TableOut | None:
        """The table the CLI prints (default: the first table)."""
        return res.tables[0] if res.tables else None

    def check_options(self, options: Mapping[str, Any]) -> None:
        """Raise (ValueError or a more specific error) if the resolved `options` cannot run
        here; called before anything runs."""

    def configure(self, options: Mapping[str, Any]) -> Study:
        """The study that runs with the resolved `options`: for options that change the grid,
        a configured copy; `self` when they change nothing (the default)."""
        return self

    def extend(self, res: StudyResult, *, progress: bool = False) -> None:
        """Work the options ask for after the simulations, before `analyse` (default: none).
        It may add rows to `res.runs` (with a `group` of its own) and fill `res.extra`."""

    # -- options ----------------------------------------------------------------------------

    def resolve_options(self, given: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The study's options with `given` applied over the defaults. Text values are parsed
        with the option's `parse`; an unknown name or a bad value raises ValueError naming it."""
        known = {o.name: o for o in self.options}
        out = {o.name: o.default for o in self.options}
        for name, value in (given or {}).items():
            if name not in known:
                names = ", ".join(known) or "none"
                raise ValueError(f"study {self.name!r} has no option {name!r} (options: {names})")
            if isinstance(value, str):
                try:
                    value = known[name].parse(value)
                except ValueError as e:
                    raise ValueError(f"option {name!r} = {value!r}: {e}") from None
            out[name] = value
        return out

    # -- running ----------------------------------------------------------------------------

    def case_scenario(self, base: Scenario, case: Case) -> Scenario:
        """The scenario of one case: `base` with the case's overrides (the default). A study
        whose cases differ in topology (more hosts, another builder argument) builds it here
        from `case.params` instead."""
        return base.with_overrides(dict(case.overrides)) if case.overrides else base

    def scenarios(
        self, seeds: int | Sequence[int] | None = None
    ) -> list[tuple[Case, int, Scenario]]:
        """Every (case, seed, scenario) the study runs, in a stable order."""
        seeds_ = seed_list(self.default_seeds if seeds is None else seeds)
        base = self.scenario()
        out = []
        for case in self.cases():
            sc = self.case_scenario(base, case)
            use = seeds_ if case.max_seeds is None else seeds_[: case.max_seeds]
            for i, seed in enumerate(use):
                keep = i == 0 and case.traces
                out_ov: dict[str, Any] = {
                    "seed": seed,
                    "output.trace": keep or case.trace_all,
                    "output.events": keep or case.trace_all or self.keep_events,
                    "output.packets": keep and case.packets,
                }
                out.append((case, seed, sc.with_overrides(out_ov)))
        return out

    def run(
        self,
        seeds: int | Sequence[int] | None = None,
        *,
        jobs: int | None = None,
        out: str | os.PathLike[str] | None = None,
        progress: bool = False,
        options: Mapping[str, Any] | None = None,
        store: str | os.PathLike[str] | None = None,
        scheduler: str | None = None,
    ) -> StudyResult:
        """Run the study over `seeds` (a count N = seeds 1..N, or a list; default
        `default_seeds`) on `jobs` threads (default: one per CPU), analyse it and, with `out`,
        write the report there. `progress` shows a progress bar (rich, on stderr). `options`
        sets the study's own options (`Study.options`).

        With `store` (a directory) every run's row is kept in a results store as it finishes
        and a rerun computes only what the store lacks (an interrupted study resumes);
        `scheduler` runs the simulations on a Dask cluster (``local:N`` or
        ``tcp://HOST:PORT``), with the same rows as here."""
        from tcplab.sweep.execute import execute, parse_scheduler

        t0 = time.perf_counter()
        opts = self.resolve_options(options)
        self.check_options(opts)
        configured = self.configure(opts)
        if configured is not self:
            return configured.run(
                seeds,
                jobs=jobs,
                out=out,
                progress=progress,
                options=opts,
                store=store,
                scheduler=scheduler,
            )
        parse_scheduler(scheduler)
        seeds_ = seed_list(self.default_seeds if seeds is None else seeds)
        plan = self.scenarios(seeds_)
        tasks = self._tasks(plan)
        maker = _StudyRows(self, {case.key: case for case, _, _ in plan})
        kept: dict[str, Result] = {}
        label = f"{self.name}: simulating"
        if store is None:
            rows: dict[str, dict[str, Any]] = {}

            def sink(done: list[tuple[Any, dict[str, Any], Any]]) -> None:
                for task, row, result in done:
                    rows[task.run_id] = row
                    if result is not None:
                        kept[task.labels["case"]] = result

            execute(
                tasks,
                maker,
                sink,
                jobs=jobs,
                scheduler=scheduler,
                progress=progress,
                description=label,
            )
            import pandas as pd

            runs = pd.DataFrame([rows[t.run_id] for t in tasks]).drop(columns=["run_id"])
        else:
            runs, kept = self._run_into_store(store, tasks, maker, jobs, scheduler, progress)
        res = StudyResult(
            study=self,
            seeds=seeds_,
            runs=runs,
            traced=kept,
            run_seconds=time.perf_counter() - t0,
            options=opts,
        )
        self.extend(res, progress=progress)
        res.run_seconds = time.perf_counter() - t0
        self.analyse(res)
        if out is not None:
            res.write(out, progress=progress)
        return res

    def _tasks(self, plan: list[tuple[Case, int, Scenario]]) -> list[Any]:
        from tcplab.sweep import run_id, scenario_key
        from tcplab.sweep.execute import Task

        keys: dict[str, str] = {}
        tasks = []
        for i, (case, seed, sc) in enumerate(plan):
            if case.key not in keys:
                keys[case.key] = scenario_key(sc.to_dict(normalized=True))
            first = i == 0 or plan[i - 1][0].key != case.key
            tasks.append(
                Task(
                    run_id(keys[case.key], seed, case.key),
                    seed,
                    {"case": case.key},
                    sc._json,
                    keep=case.traces and first,
                )
            )
        return tasks

    def _run_into_store(
        self,
        path: str | os.PathLike[str],
        tasks: list[Any],
        maker: Any,
        jobs: int | None,
        scheduler: str | None,
        progress: bool,
    ) -> tuple[Any, dict[str, Result]]:
        from tcplab import Result
        from tcplab.sweep import Store, rows_of, run_tasks, scenario_key

        st = Store(path)
        base = self.scenario().to_dict(normalized=True)
        params = sorted({k for t in tasks for k in maker.cases[t.labels["case"]].params})
        with open_writer(
            st,
            kind=f"study:{self.name}",
            base=base,
            base_hash=scenario_key(base),
            grid_paths=["group", "variant", *params],
        ) as writer:
            have = st.run_ids()
            traces = st.path / "traces"
            todo = [
                t
                for t in tasks
                if t.run_id not in have or (t.keep and not (traces / t.run_id).exists())
            ]
            run_tasks(
                todo,
                maker,
                writer,
                jobs=jobs,
                scheduler=scheduler,
                progress=progress,
                description=f"{self.name}: simulating",
            )
        runs = rows_of(st, tasks).drop(columns=["run_id"])
        kept = {t.labels["case"]: Result.from_dir(traces / t.run_id) for t in tasks if t.keep}
        return runs, kept

    def _row(self, case: Case, seed: int, r: Result) -> dict[str, Any]:
        row: dict[str, Any] = {
            "study": self.name,
            "case": case.key,
            "group": case.group,
            "variant": case.variant,
            "seed": seed,
        }
        row.update(case.params)
        row["overrides"] = json.dumps(dict(case.overrides), sort_keys=True, default=str)
        row.update(self.metrics(r))
        for k, v in flatten_summary(self.row_summary(r.summary)).items():
            row[f"s.{k}"] = v
        return row

    def row_summary(self, summary: Mapping[str, Any]) -> Mapping[str, Any]:
        """The part of a run's summary kept as `s.*` columns of its row (default: all of
        it). A study whose runs hold hundreds of applications keeps what it reads, so that
        its rows stay narrow."""
        return summary

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "citation": self.citation,
            "default_seeds": self.default_seeds,
            "options": [
                {"name": o.name, "default": o.default, "help": o.help} for o in self.options
            ],
        }


class _StudyRows:
    """A study's row maker (see `tcplab.sweep.execute.RowMaker`): the run's Result, then
    `Study._row`; the Result itself for the runs whose traces the study keeps."""

    def __init__(self, study: Study, cases: Mapping[str, Case]) -> None:
        self.study = study
        self.cases = dict(cases)

    def __call__(self, task: Any, summary_json: str, tables: Mapping[str, Any]) -> Any:
        from tcplab.api import Result

        r = Result._from_core(task.scenario, summary_json, tables)
        row = self.study._row(self.cases[task.labels["case"]], task.seed, r)
        row["run_id"] = task.run_id
        return row, (r if task.keep else None)


class _NoBar:
    def add_task(self, *_: Any, **__: Any) -> int:
        return 0

    def advance(self, *_: Any) -> None:
        pass

    def __enter__(self) -> _NoBar:
        return self

    def __exit__(self, *_: Any) -> None:
        pass


def _progress(enabled: bool) -> Any:
    if not enabled:
        return _NoBar()
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=False,
    )


# ----------------------------------------------------------------------------------------------
# The result


@dataclass
class StudyResult:
    """What a study run produced. `runs` has one row per run; `traced` maps a case key to
    the Result (with traces) of its first seed, for the cases that keep traces."""

    study: Study
    seeds: list[int]
    runs: pd.DataFrame
    traced: dict[str, Result]
    run_seconds: float
    tables: list[TableOut] = field(default_factory=list)
    checks: list[Check] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    figure_files: dict[str, dict[str, Path]] = field(default_factory=dict)
    report_path: Path | None = None

    def table(self, name: str) -> TableOut:
        for t in self.tables:
            if t.name == name:
                return t
        raise KeyError(f"no table {name!r} (tables: {[t.name for t in self.tables]})")

    def group(self, group: str, variant: str | None = None) -> pd.DataFrame:
        """The rows of `runs` of a group (and variant)."""
        m = self.runs["group"] == group
        if variant is not None:
            m &= self.runs["variant"] == variant
        return self.runs[m]

    def to_dict(self) -> dict[str, Any]:
        """What summary.json holds."""
        import tcplab

        return _jsonable(
            {
                "study": self.study.describe(),
                "tcplab_version": tcplab.__version__,
                "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                "seeds": self.seeds,
                "runs": len(self.runs),
                "run_seconds": round(self.run_seconds, 3),
                "references": self.study.references(),
                "tables": [t.to_dict() for t in self.tables],
                "checks": [c.to_dict() for c in self.checks],
                "verdicts": {
                    "headline": headline(self.findings),
                    "kinds": {k: KINDS[k] for k in verdict_counts(self.findings)},
                    "counts": verdict_counts(self.findings),
                },
                "findings": [f.to_dict() for f in self.findings],
                "options": self.options,
                "extra": self.extra,
                "figures": {
                    k: {f: p.name for f, p in v.items()} for k, v in self.figure_files.items()
                },
            }
        )

    # -- writing ----------------------------------------------------------------------------

    def write(self, out: str | os.PathLike[str], *, progress: bool = False) -> Path:
        """Write figures/ (PNG + SVG), results.parquet, summary.json and report.html (one
        self-contained page) into `out`; return the report's path. The directory is complete
        or absent: everything is written beside it and renamed into place, replacing an
        earlier study's output whole (a directory holding other files is refused)."""
        from tcplab._atomic import write_dir
        from tcplab.report.plots import save_figure

        final = Path(out)
        specs = list(self.study.figures(self))

        def fill(outdir: Path) -> None:
            from tcplab.report.netdraw import draw_network
            from tcplab.report.plots import palette

            with _progress(progress) as bar:
                task = bar.add_task(f"{self.study.name}: figures", total=len(specs) + 1)
                for spec in specs:
                    with palette():  # colour-blind safe colours where a figure sets none
                        fig = spec.draw()
                    self.figure_files[spec.name] = save_figure(fig, outdir / "figures", spec.name)
                    bar.advance(task)
                network = draw_network(self.study.scenario().to_dict(normalized=True))
                self.figure_files[NETWORK] = save_figure(network, outdir / "figures", NETWORK)
                bar.advance(task)
            runs = self.runs.copy()
            for col in runs.columns:
                if runs[col].dtype == object:
                    runs[col] = runs[col].map(
                        lambda v: v if v is None or isinstance(v, str) else str(v)
                    )
            runs.to_parquet(outdir / "results.parquet", index=False)
            (outdir / "summary.json").write_text(json.dumps(self.to_dict(), indent=2) + "\n")
            self._write_html(outdir / "report.html", specs)

        write_dir(final, fill, _is_study_entry, what="a study's output")
        self.figure_files = {  # where they are now
            name: {fmt: final / "figures" / p.name for fmt, p in paths.items()}
            for name, paths in self.figure_files.items()
        }
        self.report_path = final / "report.html"
        return self.report_path

    def _write_html(self, path: Path, specs: list[FigureSpec]) -> Path:
        import tcplab
        from tcplab.report.html import HtmlReport

        st = self.study
        rep = HtmlReport(
            st.title,
            f"tcplab {tcplab.__version__} - study '{st.name}' - {len(self.runs)} runs, seeds "
            f"{_seed_text(self.seeds)} - simulated in {self.run_seconds:.1f} s",
        )
        rep.p(st.citation, cls="note")
        rep.p(st.description)
        if NETWORK in self.figure_files:
            rep.h2("Network", NETWORK)
            rep.figure(
                self.figure_files[NETWORK]["png"].read_bytes(),
                "The study's base scenario (figures/network.svg); each case changes it as its "
                "table says.",
                alt="network",
            )
        if self.findings:
            rep.h2("Verdicts", "findings")
            rep.p(
                "Each verdict says what it is worth. Only the paper's claims are the headline; "
                "the others are our own hypotheses, sanity invariants, arithmetic on the paper's "
                "numbers, or true by construction. " + _sentence(headline(self.findings))
            )
            for kind, counts in verdict_counts(self.findings).items():
                mine = [f for f in self.findings if f.kind == kind]
                label = KINDS[kind]
                rep.h3(f"{label[0].upper()}{label[1:]}: " + count_text(kind, counts))
                rep.raw(findings_html(mine))
        for t in self.tables:
            rep.h2(t.title, t.name)
            rep.table(t.display, note=t.note)
        if self.checks:
            rep.h2("Analytic checks", "checks")
            rep.table(
                [
                    (c.source, c.name, c.formula, c.paper, c.model, c.simulated, c.unit, c.note)
                    for c in self.checks
                ],
                columns=(
                    "paper",
                    "check",
                    "formula",
                    "paper value",
                    "our model",
                    "simulated",
                    "unit",
                    "note",
                ),
                left=("paper", "check", "formula", "unit", "note"),
            )
        if specs:
            rep.h2("Figures", "figures")
            for spec in specs:
                png = self.figure_files[spec.name]["png"]
                cap = spec.caption + (f" (paper: {spec.paper_figure})" if spec.paper_figure else "")
                rep.figure(png.read_bytes(), cap, alt=spec.name)
        rep.h2("Files", "files")
        rep.bullets(
            [
                "results.parquet: one row per run (grid parameters, seed, summary counters)",
                "summary.json: the tables, checks, findings and the paper's reference numbers",
                "figures/: every figure as PNG and SVG",
            ]
        )
        return rep.write(path)


#: The name of the network diagram among a study's figures (figures/network.png and .svg).
NETWORK = "network"


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "."


def _seed_text(seeds: list[int]) -> str:
    if seeds == list(range(seeds[0], seeds[0] + len(seeds))) and len(seeds) > 2:
        return f"{seeds[0]}..{seeds[-1]}"
    return ", ".join(map(str, seeds))
