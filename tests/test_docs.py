"""Every code example of the docs site runs (issues 17, 32), each page in order in an empty
directory (with `examples/` beside it):

* ``<!-- file: NAME -->`` before a block writes it to NAME for the blocks after it;
* ``sh`` blocks are `tcplab` commands, run through the CLI (testbed commands only where a
  testbed can run); ``python`` blocks run in one namespace a page;
* ``toml`` blocks are scenarios the parser accepts: a whole scenario, or, after
  ``<!-- fragment -->``, tables added to a small one;
* ``<!-- output -->`` before a ``text`` block: what the block before it printed (its last
  command's output, or the Python block's stdout), line by line in order; ``...`` stands for
  any text within a line, or alone on a line for any lines;
* a ``text`` block is not code (a layout, a listing); any other block says why it does not
  run: ``<!-- not run: REASON -->``.

The examples in the docstrings the API pages show run as doctests.
"""

from __future__ import annotations

import contextlib
import doctest
import importlib
import inspect
import io
import os
import re
import shlex
import shutil
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from typer.testing import CliRunner

DOCS = ROOT / "docs"
BLOCK = re.compile(
    r"(?:<!-- (?P<mark>file|fragment|output|not run)(?::\s*(?P<arg>[^>]*?))? -->\n)?"
    r"^```(?P<lang>\w*)\n(?P<body>.*?)^```",
    re.M | re.S,
)
PAGES = sorted(p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md"))


def _runs_the_testbed(name: str) -> bool:
    """Whether a page has a command that _run_page runs on the testbed where it can (as root)."""
    for m in BLOCK.finditer((DOCS / name).read_text()):
        for line in m["body"].splitlines() if m["lang"] == "sh" else ():
            argv = shlex.split(line, comments=True)
            if argv and ("testbed" in argv[1:3] or "--testbed" in argv):
                return True
    return False


#: The pages, those that run the testbed as `serial` tests (as every testbed test is).
PAGE_PARAMS = [
    pytest.param(p, marks=pytest.mark.serial) if _runs_the_testbed(p) else p for p in PAGES
]

#: The scenario a ``<!-- fragment -->`` block's tables are added to.
_BASE = """
[[nodes]]
name = "client"
[[nodes]]
name = "server"
[[links]]
name = "wan"
a = "client"
b = "server"
rate = "10Mbps"
[[apps]]
name = "ftp"
kind = "ftp"
client = "client"
server = "server"
size = "100kB"
"""


def _testbed_ready() -> bool:
    return (
        sys.platform == "linux"
        and os.geteuid() == 0
        and all(shutil.which(c) for c in ("ip", "ethtool", "sysctl"))
    )


def _merge(base: dict[str, Any], extra: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        elif isinstance(value, list) and isinstance(out.get(key), list):
            out[key] = out[key] + value
        else:
            out[key] = value
    return out


def _expect(expected: str, actual: str, where: str) -> None:
    """Every line of `expected` is a line of `actual`, in the same order; other lines may come
    between (progress on stderr, what the page leaves out: ``...`` alone on a line says so),
    and ``...`` within a line stands for any text (a time, a path)."""
    lines = [line.rstrip() for line in actual.splitlines()]
    at = 0
    for want in expected.rstrip().splitlines():
        if want.strip() == "...":
            continue
        pattern = re.compile(".*".join(re.escape(p) for p in want.rstrip().split("...")) + "$")
        while at < len(lines) and not pattern.match(lines[at]):
            at += 1
        assert at < len(lines), f"{where}: no line {want!r} in order in:\n{actual}"
        at += 1


def _run_page(page: Path, workdir: Path) -> int:
    from tcplab.api import Scenario
    from tcplab.cli import app

    runner = CliRunner()
    namespace: dict[str, object] = {}
    ran = 0
    last = ""
    for m in BLOCK.finditer(page.read_text()):
        mark, lang, body = m["mark"], m["lang"], m["body"]
        where = f"{page.relative_to(DOCS)}:{page.read_text()[: m.start()].count(chr(10)) + 1}"
        if mark == "not run":
            assert m["arg"], f"{where}: say why the block does not run"
            continue
        if mark == "file":
            (workdir / m["arg"]).write_text(body)
            if lang == "toml":
                Scenario.from_toml(workdir / m["arg"])
            ran += 1
        elif mark == "output":
            assert lang == "text", f"{where}: an output block is text"
            _expect(body, last, where)
            ran += 1
        elif lang == "sh":
            for line in body.splitlines():
                argv = shlex.split(line, comments=True)
                if not argv:
                    continue
                assert argv[0] == "tcplab", f"{where}: {line}"
                if ("testbed" in argv[1:3] or "--testbed" in argv) and not _testbed_ready():
                    last = ""
                    continue
                res = runner.invoke(app, argv[1:], env={"COLUMNS": "100"})
                assert res.exit_code == 0, (where, line, res.output)
                last = res.output
            ran += 1
        elif lang == "python":
            out = io.StringIO()
            with contextlib.redirect_stdout(out):
                exec(compile(body, where, "exec"), namespace)
            last = out.getvalue()
            ran += 1
        elif lang == "toml":
            if mark == "fragment":
                Scenario.from_dict(_merge(tomllib.loads(_BASE), tomllib.loads(body)))
            else:
                Scenario.from_toml(body)
            ran += 1
        elif lang != "text":  # text: a layout or a listing, not code
            raise AssertionError(f"{where}: a {lang or 'plain'} block that does not run must "
                                 "say why: <!-- not run: REASON -->")  # fmt: skip
    return ran


@pytest.mark.parametrize("name", PAGE_PARAMS)
def test_docs_code_blocks_run(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    ran = _run_page(DOCS / name, tmp_path)
    if name == "tutorial.md":
        for fig in ("windows", "time_sequence", "queues"):
            assert (tmp_path / "figures" / f"{fig}.png").stat().st_size > 2000
            assert (tmp_path / "runs" / "first" / "plots" / f"{fig}.svg").exists()
            # from Python without output.queues: no queue figure
            assert (tmp_path / "figures-py" / f"{fig}.png").exists() == (fig != "queues")
        assert (tmp_path / "store" / "plots").is_dir()
    if name in ("tutorial.md", "guide/sweeps.md", "reference/api/index.md"):
        assert ran > 0


def test_an_output_block_is_checked() -> None:
    _expect("a\n...\nc ... d", "a\nb\nc 1 2 d\n", "here")
    with pytest.raises(AssertionError):
        _expect("c\na", "a\nb\nc\n", "here")  # out of order
    with pytest.raises(AssertionError):
        _expect("x 1", "x 2\n", "here")


def _documented() -> list[tuple[str, object]]:
    """Each object the API pages show a docstring of: the public modules and their names."""
    from tcplab import _docs

    out: list[tuple[str, object]] = []
    for module in _docs.API_MODULES:
        mod = importlib.import_module(module)
        out.append((module, mod))
        for name in _docs._public(module):
            obj = getattr(mod, name)
            if inspect.isclass(obj) or inspect.isroutine(obj):
                out.append((f"{module}.{name}", obj))
    return out


def test_docstring_examples_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    seen: set[int] = set()
    for name, obj in _documented():
        for test in finder.find(obj, name, module=False, globs={}):
            if test.examples and id(test.docstring) not in seen:
                seen.add(id(test.docstring))
                assert "+SKIP" not in test.docstring, f"{test.name}: every example runs"
                runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 15 and result.failed == 0
