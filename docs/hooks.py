"""mkdocs hooks (mkdocs.yml's `hooks:`): the pages that come from the code, made during the
build so that `mkdocs build` alone makes the whole site and nothing generated is written into
docs/.

* The scenario reference (a page a section) and the Python API (a page a public module) come
  from `tcplab._docs.pages()`; their nav entries in mkdocs.yml ("Scenario format", "Python
  API") are filled with those pages.
* A line ``<!-- generated: NAME -->`` of a hand-written page is replaced by NAME's text: the
  command line's reference (``commands``, read from the commands by
  `tcplab.cli._reference`), the studies (``studies``), the table of API modules.
* ARCHITECTURE.md, when the repository has one, is the page "Architecture".
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File
from tcplab import _docs, schema

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "ARCHITECTURE.md"


@cache
def _pages() -> dict[str, str]:
    return _docs.pages()


def _commands() -> str:
    from tcplab.cli import _reference

    return _reference.markdown()


def _expand(nav: list[Any], index: str, children: list[Any]) -> bool:
    """Make the nav entry whose page is `index` a section: `index`, then `children`."""
    for n, item in enumerate(nav):
        if isinstance(item, dict):
            (title, value), *_ = item.items()
            if value == index:
                nav[n] = {title: [{title: index}, *children]}
                return True
            if isinstance(value, list) and _expand(value, index, children):
                return True
    return False


def on_config(config: Any) -> Any:
    pages = _pages()
    sections = [
        {(s or "top level"): schema.page(s)}
        for s in dict.fromkeys(f["section"] for f in schema.fields())
    ]
    apis = [{module: _docs.api_page(module)} for module in _docs.API_MODULES]
    for index, children in (
        (f"{schema.DOCS_DIR}/index.md", sections),
        (f"{_docs.API_DIR}/index.md", apis),
    ):
        if not _expand(config.nav, index, children):
            raise ValueError(f"mkdocs.yml: the nav has no entry for {index}")
    assert all(next(iter(c.values())) in pages for c in sections + apis)
    if ARCHITECTURE.is_file():
        config.nav.append({"Architecture": "architecture.md"})
        config.watch.append(str(ARCHITECTURE))
    return config


def on_files(files: Any, config: Any) -> Any:
    for path, text in _pages().items():
        files.append(File.generated(config, path, content=text))
    if ARCHITECTURE.is_file():
        text = _docs.architecture_markdown(ARCHITECTURE.read_text())
        files.append(File.generated(config, "architecture.md", content=text))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    return _docs.fill(markdown, {**_docs.makers(), "commands": _commands})
