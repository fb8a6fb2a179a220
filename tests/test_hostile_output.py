"""Hostile names and data (issue 35): names that would leave the output directory, symbolic
links inside a store, text in a store meant for the terminal, a query that is more than a
query, killed writers' leftovers, and `run_many` given things that are not scenarios."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import tcplab
import tomli_w
from conftest import EXAMPLE
from tcplab import errors
from tcplab._atomic import check_name, inside, write_dir, write_file
from tcplab.sweep import Sweep

TCPLAB = str(Path(sys.executable).parent / "tcplab")


def _cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [TCPLAB, *args], capture_output=True, text=True, cwd=cwd,
        env=dict(os.environ, COLUMNS="200"),
    )  # fmt: skip


@pytest.mark.parametrize(
    "name", ["../evil", "../../evil", "/tmp/tcplab-abs-evil", "a/b", "..", ".", "", "a\x00b"]
)
def test_a_name_is_a_name(name: str) -> None:
    with pytest.raises(errors.InvalidValueError, match="nodes.x.name: invalid value"):
        check_name("nodes.x.name", name)


@pytest.mark.parametrize("name", ["client", "h-1", "srv_2.a", "..a", "a.."])
def test_names_that_are_names(tmp_path: Path, name: str) -> None:
    assert inside(tmp_path, name, field="f").parent == tmp_path


@pytest.mark.parametrize("target", ["../../evil", "ABSOLUTE"])
def test_run_pcap_refuses_a_node_named_as_a_path_and_writes_nothing(
    tmp_path: Path, target: str
) -> None:
    victim = tmp_path / "victim"
    victim.write_text("keep")
    name = str(victim) if target == "ABSOLUTE" else target
    data = tomllib.loads(EXAMPLE.read_text())
    old = data["nodes"][0]["name"]
    data["nodes"][0]["name"] = name
    for link in data["links"]:
        for end in ("a", "b"):
            if link[end] == old:
                link[end] = name
    for app in data["apps"]:
        for end in ("client", "server"):
            if app[end] == old:
                app[end] = name
    work = tmp_path / "a" / "b"
    work.mkdir(parents=True)
    (work / "s.toml").write_text(tomli_w.dumps(data))
    before = sorted(p for p in tmp_path.rglob("*"))
    r = _cli("run", "s.toml", "--pcap", "pcap", "--set", "apps.ftp.size=50kB", cwd=work)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith("error: nodes") and ".name: invalid value" in r.stderr
    assert repr(name).strip("'") in r.stderr or f'"{name}"' in r.stderr
    assert len(r.stderr.splitlines()) == 1
    assert victim.read_text() == "keep"
    assert sorted(p for p in tmp_path.rglob("*")) == before  # not even the pcap directory


def test_a_store_with_a_symbolic_link_inside_is_not_written_through(tmp_path: Path) -> None:
    st = tmp_path / "st"
    Sweep(EXAMPLE, grid={"tcp.congestion_control": ["reno"]}, seeds=1).run(store=st)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    parts = st / "parts"
    for p in parts.iterdir():
        p.rename(elsewhere / p.name)
    parts.rmdir()
    parts.symlink_to(elsewhere)
    before = sorted(p.name for p in elsewhere.iterdir())
    r = _cli("sweep", str(EXAMPLE), "--grid", "tcp.congestion_control=reno,cubic", "--store",
             str(st))  # fmt: skip
    assert r.returncode == 2 and "a symbolic link" in r.stderr and str(parts) in r.stderr
    assert sorted(p.name for p in elsewhere.iterdir()) == before
    # a file replaced by a link is replaced, never written through
    target = tmp_path / "target"
    target.write_text("keep")
    link = tmp_path / "out.json"
    link.symlink_to(target)
    write_file(link, b"new")
    assert target.read_text() == "keep" and not link.is_symlink() and link.read_text() == "new"


def test_text_in_a_store_is_printed_as_data(tmp_path: Path) -> None:
    st = tmp_path / "st"
    names = ["\x1b[2J\x1b]0;pwned\x07", "[link=https://evil.example]click[/link]"]
    Sweep(EXAMPLE, grid={"run.name": names}, seeds=1).run(store=st)
    r = _cli("results", str(st), "--sql", 'SELECT "run.name" FROM runs ORDER BY 1')
    assert r.returncode == 0, r.stderr
    assert "\x1b" not in r.stdout and "\x07" not in r.stdout
    assert "\\x1b[2J\\x1b]0;pwned\\x07" in r.stdout
    assert "[link=https://evil.example]click[/link]" in r.stdout  # shown, not a hyperlink
    r = _cli("results", str(st))
    assert r.returncode == 0 and "\x1b" not in r.stdout and "[link=https:/" in r.stdout
    r = _cli("results", str(st), "--json", "--sql", 'SELECT "run.name" FROM runs')
    assert "\x1b" not in r.stdout and "\\u001b" in r.stdout
    # an error that quotes data from the store does not pass it on either
    r = _cli("plot", str(st), "--x", "seed", "--y", "apps.ftp.response_time_s")
    assert r.returncode == 2 and "\x1b" not in r.stderr and "\\x1b" in r.stderr


@pytest.mark.parametrize(
    ("option", "text"),
    [
        ("--sql", "SELECT 1; COPY (SELECT 1) TO 'OUT'"),
        ("--sql", "COPY (SELECT * FROM runs) TO 'OUT'"),
        ("--sql", "ATTACH 'OUT' AS x"),
        ("--where", "1=1; COPY (SELECT 1) TO 'OUT'"),
        ("--where", "1=1) UNION ALL SELECT * FROM runs; COPY (SELECT 1) TO 'OUT'; SELECT (1"),
        ("--where", ""),
    ],
)
def test_a_query_is_one_select(tmp_path: Path, option: str, text: str) -> None:
    st = tmp_path / "st"
    Sweep(EXAMPLE, grid={"tcp.congestion_control": ["reno", "cubic"]}, seeds=1).run(store=st)
    out = tmp_path / "written.csv"
    text = text.replace("OUT", str(out))
    if option == "--sql":
        r = _cli("results", str(st), "--sql", text)
    else:
        fig = str(tmp_path / "f.png")
        r = _cli("plot", str(st), "--x", "tcp.congestion_control", "--y",
                 "apps.ftp.response_time_s", "--where", text, "--out", fig)  # fmt: skip
    assert r.returncode == 2, r.stdout + r.stderr
    assert r.stderr.startswith(f"error: {option}: invalid") and len(r.stderr.splitlines()) == 1
    assert not out.exists()


def test_a_default_figure_name_from_the_store_stays_in_the_store(tmp_path: Path) -> None:
    st = tmp_path / "st"
    Sweep(EXAMPLE, grid={"tcp.congestion_control": ["reno", "cubic"]}, seeds=1).run(store=st)
    r = _cli("plot", str(st), "--x", "tcp.congestion_control", "--y", "../../evil")
    assert r.returncode == 2 and "--y" in r.stderr  # no such column
    assert not (tmp_path / "evil.png").exists()
    from tcplab._atomic import as_name

    assert as_name("../../evil") == ".._.._evil" and as_name("..") == "figure"
    assert as_name("apps.engineers:get:u0:0.response_time_s") == (
        "apps.engineers_get_u0_0.response_time_s"
    )


def test_a_killed_writers_leftovers_are_removed_by_the_next_write(tmp_path: Path) -> None:
    dead = 2**22 + 12345  # above the default pid_max: no such process
    stale = tmp_path / f".out.writing-{dead}-abcd1234"
    stale.mkdir()
    (stale / "summary.json").write_text("{")
    stale_file = tmp_path / f".fig.png.writing-{dead}-abcd1234"
    stale_file.write_bytes(b"\x89PNG half")
    mine = tmp_path / f".out.writing-{os.getpid()}-abcd1234"  # a live writer's: kept
    mine.mkdir()
    write_dir(tmp_path / "out", lambda d: (d / "summary.json").write_text("{}"), lambda p: True)
    write_file(tmp_path / "fig.png", b"\x89PNG")
    assert not stale.exists() and not stale_file.exists() and mine.exists()


def test_run_out_on_an_unwritable_place_leaves_no_directory(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    r = _cli("run", str(EXAMPLE), "--out", str(blocker / "deep" / "out"))
    assert r.returncode == 2 and "cannot write there" in r.stderr
    r = _cli("run", str(EXAMPLE), "--set", "tcp.mss=1", "--out", str(tmp_path / "a" / "b"))
    assert r.returncode == 2 and not (tmp_path / "a").exists()


def test_run_many_returns_a_non_scenario_items_error_in_its_place() -> None:
    out = tcplab.run_many([42, None, EXAMPLE], errors="return")
    assert [type(x).__name__ for x in out] == ["TypeError", "TypeError", "Result"]
    assert out[0].__notes__ == ["raised by scenario 0 of 3 given to run_many"]
    assert out[1].__notes__ == ["raised by scenario 1 of 3 given to run_many"]
    with pytest.raises(TypeError) as e:
        tcplab.run_many([EXAMPLE, 42])
    assert e.value.__notes__ == ["raised by scenario 1 of 2 given to run_many"]
