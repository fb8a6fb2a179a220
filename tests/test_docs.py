"""Every code block of the docs site runs (issue 17): the tutorial in order in an empty
directory (files from ``<!-- file: NAME -->`` blocks, commands through the CLI, Python in one
namespace), and the other pages' blocks likewise."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from conftest import ROOT
from typer.testing import CliRunner

DOCS = ROOT / "docs"
BLOCK = re.compile(r"(?:<!-- file: (?P<file>[\w./-]+) -->\n)?^```(?P<lang>\w*)\n(?P<body>.*?)^```",
                   re.M | re.S)  # fmt: skip


def _testbed_ready() -> bool:
    return (
        sys.platform == "linux"
        and os.geteuid() == 0
        and all(shutil.which(c) for c in ("ip", "ethtool", "sysctl"))
    )


def _run_page(page: Path, workdir: Path) -> int:
    from tcplab.cli import app

    runner = CliRunner()
    namespace: dict[str, object] = {}
    ran = 0
    for m in BLOCK.finditer(page.read_text()):
        lang, body = m["lang"], m["body"]
        if m["file"]:
            (workdir / m["file"]).write_text(body)
            ran += 1
        elif lang == "sh":
            for line in body.splitlines():
                argv = shlex.split(line, comments=True)
                if not argv:
                    continue
                assert argv[0] == "tcplab", line
                if argv[1] == "testbed" and not _testbed_ready():
                    continue
                res = runner.invoke(app, argv[1:], env={"COLUMNS": "160"})
                assert res.exit_code == 0, (page.name, line, res.output)
            ran += 1
        elif lang == "python":
            exec(compile(body, str(page), "exec"), namespace)
            ran += 1
    return ran


@pytest.mark.parametrize("name", ["tutorial.md", "studies.md", "reference/api.md"])
def test_docs_code_blocks_run(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)
    assert _run_page(DOCS / name, tmp_path) > 0
    if name == "tutorial.md":
        for fig in ("windows", "time_sequence", "queues"):
            assert (tmp_path / "figures" / f"{fig}.png").stat().st_size > 2000
            assert (tmp_path / "runs" / "first" / "plots" / f"{fig}.svg").exists()
            # from Python without output.queues: no queue figure
            assert (tmp_path / "figures-py" / f"{fig}.png").exists() == (fig != "queues")
        assert (tmp_path / "store" / "plots").is_dir()


def test_every_page_with_code_is_tested() -> None:
    tested = {"tutorial.md", "studies.md", "reference/api.md"}
    for page in DOCS.rglob("*.md"):
        rel = page.relative_to(DOCS).as_posix()
        runnable = [
            m for m in BLOCK.finditer(page.read_text()) if m["lang"] in ("sh", "python", "toml")
        ]
        assert not runnable or rel in tested, f"{rel} has code blocks no test runs"
