"""A damaged store (issue 35): every kind of store file truncated, overwritten with garbage,
deleted, replaced by something of the wrong type, or a part copied in twice, at random.
Afterwards every reading command (results, results --sql, plot, plot --series) either gives
exactly the undamaged store's answer or ends in one `error:` line with status 2 (never a
silently partial or averaged-over-duplicates answer), and `tcplab sweep --repair` or the
sweeps run again restore the undamaged store's rows exactly, kept tables included.

TRIALS damages of each kind and way: 1 here (35 damaged stores, about a minute);
``python bench/store_damage.py`` runs the thorough version, 20 of each (700 damaged stores).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import EXAMPLE, cli_in_process

TRIALS = int(os.environ.get("TCPLAB_DAMAGE_TRIALS", "1"))
KINDS = {
    "store.json": "store.json",
    "part": "parts/part-*.parquet",
    "run id list": "parts/part-*.parquet.ids",
    "plan": "plans/*.json",
    "plan id list": "plans/*.ids",
    "kept table": "tables/trace/part-*.parquet",
    "lock": ".lock",
}
WAYS = ("truncate", "garbage", "delete", "wrong type", "copy")
SWEEPS = [  # three sweeps into one store: several parts and plans
    ["--seeds", "1..2"],
    ["--seeds", "1..3"],
    ["--seeds", "1..4", "--grid", "links.wan.ab.error.p=0,0.01,0.02"],
]
BASE = ["--grid", "tcp.congestion_control=reno,cubic", "--set", "apps.ftp.size=100kB",
        "--keep", "trace", "-j", "2"]  # fmt: skip
GRID = ["--grid", "links.wan.ab.error.p=0,0.01"]


def _sweep_args(store: Path, i: int) -> list[str]:
    extra = SWEEPS[i]
    grid = [] if "--grid" in extra else GRID
    return ["sweep", str(EXAMPLE), *grid, *BASE, *extra, "--store", str(store), "--json"]


READS = {
    "results": lambda d: ["results", str(d), "--csv"],
    "sql": lambda d: [
        "results",
        str(d),
        "--json",
        "--sql",
        "SELECT count(*) AS n, count(DISTINCT run_id) AS ids, "
        'avg("apps.ftp.response_time_s") AS rt FROM runs',
    ],  # fmt: skip
    "trace": lambda d: [
        "results",
        str(d),
        "--json",
        "--sql",
        "SELECT count(*) AS n, sum(cwnd) AS c FROM trace JOIN runs USING (run_id)",
    ],  # fmt: skip
    "plot": lambda d: [
        "plot",
        str(d),
        "--x",
        "links.wan.ab.error.p",
        "--y",
        "apps.ftp.response_time_s",
        "--hue",
        "tcp.congestion_control",
        "--out",
        str(d.parent / f"{d.name}-fig.svg"),
    ],  # fmt: skip
    "series": lambda d: [
        "plot",
        str(d),
        "--series",
        "cwnd",
        "--where",
        'seed = 1 AND "links.wan.ab.error.p" = 0.01',
        "--out",
        str(d.parent / f"{d.name}-series.svg"),
    ],  # fmt: skip
}


def _answers(store: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, tuple[Any, str]]:
    got = {}
    for name, args in READS.items():
        code, out, err = cli_in_process(args(store), capsys)
        if name in ("plot", "series") and code == 0:
            suffix = "fig" if name == "plot" else "series"
            out = (store.parent / f"{store.name}-{suffix}.svg").read_text()
        got[name] = (code, out if code == 0 else err)
    return got


def _rows(store: Path) -> pd.DataFrame:
    from tcplab.sweep import Store

    st = Store(store)
    df = st.df()
    return df[sorted(df.columns)].sort_values("run_id").reset_index(drop=True)


def _trace(store: Path) -> pd.DataFrame:
    from tcplab.sweep import Store

    df = Store(store).sql("SELECT * FROM trace")
    return df.sort_values(["run_id", "time_s", "conn", "end"], kind="stable").reset_index(drop=True)


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import subprocess

    d = tmp_path_factory.mktemp("ref") / "st"
    tcplab = str(Path(sys.executable).parent / "tcplab")
    for i in range(len(SWEEPS)):
        subprocess.run([tcplab, *_sweep_args(d, i)], check=True, capture_output=True)
    return d


def _damage(store: Path, kind: str, way: str, rng: random.Random) -> str:
    files = sorted(p for p in store.glob(KINDS[kind]) if p.is_file())
    if not files:
        return "nothing to damage"
    f = rng.choice(files)
    data = f.read_bytes()
    if way == "truncate":
        f.write_bytes(data[: rng.randrange(0, max(1, len(data)))])
    elif way == "garbage":
        if data and rng.random() < 0.5:  # the same size, some bytes changed
            b = bytearray(data)
            for _ in range(rng.randint(1, 8)):
                i = rng.randrange(len(b))
                b[i] = (b[i] + rng.randint(1, 255)) % 256
            f.write_bytes(bytes(b))
        else:
            f.write_bytes(rng.randbytes(rng.randint(0, 4000)))
    elif way == "delete":
        f.unlink()
    elif way == "wrong type":
        choice = rng.randrange(3)
        if choice == 0 or not f.name.endswith(".json"):
            f.unlink()
            f.mkdir()
            (f / "x").write_text("a directory where a file was")
        elif choice == 1:
            f.write_text(json.dumps(["a", "list"]))
        else:
            doc = json.loads(data)
            key = rng.choice(sorted(doc))
            doc[key] = "a string" if not isinstance(doc[key], str) else [1, 2]
            f.write_text(json.dumps(doc))
    elif way == "copy":  # the same file again under another name of its kind
        if f.suffix == ".parquet" and f.parent.name == "parts":
            twin = f.with_name(f.name.replace("part-", "part-99990101T000000000000-copy-"))
            shutil.copy(f, twin)
            shutil.copy(f.with_name(f.name + ".ids"), twin.with_name(twin.name + ".ids"))
        else:
            shutil.copy(f, f.with_name("copy-" + f.name))
    return f"{way} {f.relative_to(store)}"


def _one_line(err: str) -> bool:
    lines = [ln for ln in err.splitlines() if not ln.startswith(("  (", "warning:"))]
    return len(lines) == 1 and lines[0].startswith("error: ") and "Traceback" not in err


def _trial(
    reference: Path,
    want: dict[str, tuple[Any, str]],
    rows: pd.DataFrame,
    trace: pd.DataFrame,
    tmp: Path,
    kind: str,
    way: str,
    rng: random.Random,
    capsys: pytest.CaptureFixture[str],
    tally: dict[str, int],
) -> None:
    store = tmp / "st"
    if store.exists():
        shutil.rmtree(store)
    shutil.copytree(reference, store)
    what = _damage(store, kind, way, rng)
    for name, (code, text) in _answers(store, capsys).items():
        if code == 0:
            assert (code, text.replace(str(store), "ST")) == (
                want[name][0],
                want[name][1].replace(str(reference), "ST"),
            ), f"{what}: {name} answered differently"
            tally["same answer"] += 1
        else:
            assert code == 2 and _one_line(text), f"{what}: {name}: {code} {text[-1500:]}"
            tally["one error line"] += 1
    if rng.random() < 0.5:  # repair, then every sweep again (nothing left to compute)
        code, out, err = cli_in_process(
            ["sweep", "--repair", "--store", str(store), "--json"], capsys
        )
        assert code == 0 or (code == 2 and _one_line(err)), f"{what}: repair: {code} {err}"
        tally["repaired" if code == 0 else "repair refused"] += 1
    for i in range(len(SWEEPS)):
        code, out, err = cli_in_process(_sweep_args(store, i), capsys)
        assert code == 0, f"{what}: sweep {i} again: {code} {err[-1500:]}"
    pd.testing.assert_frame_equal(_rows(store), rows, check_exact=True, obj=what)
    pd.testing.assert_frame_equal(_trace(store), trace, check_exact=True, obj=what)
    after = _answers(store, capsys)
    for name in READS:
        assert after[name][0] == 0, f"{what}: {name} after repair: {after[name][1]}"
        assert after[name][1].replace(str(store), "ST") == want[name][1].replace(
            str(reference), "ST"
        ), f"{what}: {name} after repair"


def _run_all(
    reference: Path, tmp: Path, trials: int, capsys: pytest.CaptureFixture[str]
) -> dict[str, int]:
    want = _answers(reference, capsys)
    assert all(code == 0 for code, _ in want.values()), want
    rows, trace = _rows(reference), _trace(reference)
    tally = {"same answer": 0, "one error line": 0, "repaired": 0, "repair refused": 0}
    rng = random.Random(35)
    for kind in KINDS:
        for way in WAYS:
            for _ in range(trials):
                _trial(reference, want, rows, trace, tmp, kind, way, rng, capsys, tally)
    return tally


def test_every_kind_of_damage(
    reference: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tally = _run_all(reference, tmp_path, TRIALS, capsys)
    with capsys.disabled():
        print(f"\n{len(KINDS)} kinds x {len(WAYS)} ways x {TRIALS} trials: {tally}")
    assert tally["one error line"] > 0 and tally["repaired"] > 0
