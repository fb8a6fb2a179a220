"""The docs site's pages that come from the code; docs/hooks.py adds them to `mkdocs build`:

* the scenario reference, a page a section and an entry a field (`tcplab.schema`);
* the Python API, a page a public module: every name of its ``__all__`` with its signature
  (mkdocstrings), each exception on one page whatever module defines it;
* the list of studies, put into studies.md where it says ``<!-- generated: studies -->``;
* ARCHITECTURE.md as the page architecture.md, when the repository has one.

The command line's page comes from the commands themselves (`tcplab.cli._reference`, which
nothing outside tcplab.cli imports).
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable
from typing import Any

#: The public modules, in the order of the API reference, -> what each holds. The package's
#: own names (``dir(tcplab)``) come first; every name of each module's ``__all__`` is on the site.
API_MODULES: dict[str, str] = {
    "tcplab": "scenarios, runs and results: what `import tcplab` gives",
    "tcplab.errors": "every exception tcplab raises, one tree",
    "tcplab.models": "the analytic models (Mathis, PFTK, Cardwell, BER to PER, limits)",
    "tcplab.topology": "scenario builders: dumbbell, star, campus",
    "tcplab.sweep": "sweeps, their grids and the results store",
    "tcplab.studies": "the reproduced studies and the framework they share",
    "tcplab.compare": "the analytic models against the simulator over a sweep",
    "tcplab.testbed": "the same scenario on real Linux TCP",
    "tcplab.schema": "the scenario format's fields",
    "tcplab.pcap": "captures for Wireshark",
    "tcplab.step": "one endpoint stepped by hand: segments in and out, tcp_info",
    "tcplab.report": "figures, HTML reports and statistics the studies share",
}

#: Modules whose exceptions are documented on the errors page though not in an ``__all__``.
_MORE_EXCEPTIONS = ("tcplab.conformance.ns2", "tcplab.testbed.plan")

API_DIR = "reference/api"

#: How every API entry is shown (mkdocstrings' options; the rest are in mkdocs.yml).
_OPTIONS = """\
    options:
      heading_level: {level}
      show_root_heading: true
      members: {members}"""


def api_page(module: str) -> str:
    """The page of a public module, below the docs' root: ``reference/api/models.md``."""
    return f"{API_DIR}/{module.rpartition('.')[2] if '.' in module else 'tcplab'}.md"


def _public(module: str) -> list[str]:
    mod = importlib.import_module(module)
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in dir(mod) if not n.startswith("_")]
    return list(names)


def _is_exception(obj: object) -> bool:
    from tcplab.errors import TcplabError

    return isinstance(obj, type) and issubclass(obj, TcplabError)


def _exceptions() -> list[tuple[str, type]]:
    """(public path, class) of every exception, tcplab.errors' first, then the others'
    below the module that makes them public."""
    out: dict[type, str] = {}
    for name in _public("tcplab.errors"):
        out[getattr(importlib.import_module("tcplab.errors"), name)] = f"tcplab.errors.{name}"
    for module in [*API_MODULES, *_MORE_EXCEPTIONS]:
        mod = importlib.import_module(module)
        for name in _public(module) if module in API_MODULES else dir(mod):
            obj = getattr(mod, name, None)
            if _is_exception(obj) and obj not in out:
                out[obj] = f"{module}.{name}"
    return [(path, cls) for cls, path in out.items()]


def api_plan() -> dict[str, list[tuple[str, str]]]:
    """Module -> (name, where it is documented) for each public name: ``""`` when its own page
    documents it, else the page and anchor that do (an object re-exported by several modules,
    or an exception, is documented once)."""
    errors_page = api_page("tcplab.errors")
    exceptions = {cls: path for path, cls in _exceptions()}
    documented: dict[int, str] = {}
    plan: dict[str, list[tuple[str, str]]] = {}
    for module in API_MODULES:
        mod = importlib.import_module(module)
        plan[module] = []
        names = _public(module)
        # an object under its own name first, its aliases (models.mathis) pointing at it
        own_name = [n for n in names if getattr(getattr(mod, n), "__name__", None) == n]
        for name in own_name + [n for n in names if n not in own_name]:
            obj = getattr(mod, name)
            if module == "tcplab" and type(obj).__name__ == "module":
                plan[module].append((name, api_page(obj.__name__)))
                continue
            if _is_exception(obj) and obj in exceptions and module != "tcplab.errors":
                plan[module].append((name, f"{errors_page}#{exceptions[obj]}"))
                continue
            if isinstance(obj, type) or callable(obj):
                if id(obj) in documented:
                    plan[module].append((name, documented[id(obj)]))
                    continue
                documented[id(obj)] = f"{api_page(module)}#{module}.{name}"
            plan[module].append((name, ""))
    return plan


def _relative(target: str, page: str) -> str:
    """`target` (a path below the docs' root, maybe with an anchor) as a link from `page`."""
    here = page.rpartition("/")[0]
    path, _, frag = target.partition("#")
    if path.startswith(here + "/"):
        path = path[len(here) + 1 :]
    else:
        path = "../" * (here.count("/") + 1) + path
    return f"{path}#{frag}" if frag else path


def api_markdown(module: str, plan: dict[str, list[tuple[str, str]]]) -> str:
    """The page of one public module: its docstring and its own names, then a line for each
    name documented elsewhere."""
    page = api_page(module)
    own = [name for name, where in plan[module] if not where]
    out = [f"::: {module}", _OPTIONS.format(level=1, members=own or "false"), ""]
    if module == "tcplab.errors":
        for path, _cls in _exceptions():
            if not path.startswith("tcplab.errors."):
                out += [f"::: {path}", _OPTIONS.format(level=2, members="true"), ""]
    elsewhere = [(name, where) for name, where in plan[module] if where]
    if elsewhere:
        out += ["## Documented elsewhere", ""]
        for name, where in elsewhere:
            out.append(f"- `{module}.{name}`: [{where.partition('#')[2] or where}]"
                       f"({_relative(where, page)})")  # fmt: skip
        out.append("")
    return "\n".join(out)


def api_index_markdown() -> str:
    """The table of the API's pages (for reference/api/index.md)."""
    out = ["| module | what it holds |", "|---|---|"]
    for module, what in API_MODULES.items():
        link = _relative(api_page(module), f"{API_DIR}/index.md")
        out.append(f"| [`{module}`]({link}) | {what} |")
    return "\n".join(out)


def studies_markdown() -> str:
    from tcplab.studies import get, names

    out = ["| study | reproduces | default seeds |", "|---|---|---|"]
    details = []
    for st in (get(n) for n in names()):
        out.append(f"| `{st.name}` | {st.title} | {st.default_seeds} |")
        details += [f"## {st.name}", "", st.title + ".", ""]
        if st.citation:
            details += [f"*{' '.join(st.citation.split())}*", ""]
        if st.description:
            details += [" ".join(st.description.split()), ""]
        if st.options:
            details += ["Options (`--option key=value`):", ""]
            for opt in st.options:
                details.append(f"- `{opt.name}` (default `{opt.default}`): {opt.help}")
            details.append("")
    return "\n".join(out + [""] + details)


_LINK = re.compile(r"(?<!!)\[([^\]]+)\]\(([^)\s]+)\)")


def architecture_markdown(text: str) -> str:
    """ARCHITECTURE.md (written for the repository) as a page of the site: a link into docs/
    points at the page, a link to another file of the repository becomes its path in code,
    since the site holds only the docs."""

    def link(m: re.Match[str]) -> str:
        label, target = m[1], m[2]
        if re.match(r"[a-z]+:|#", target):
            return m[0]
        if target.startswith("docs/"):
            return f"[{label}]({target.removeprefix('docs/')})"
        return label if label.strip("`") == target else f"{label} (`{target}`)"

    return _LINK.sub(link, text)


def pages() -> dict[str, str]:
    """Every generated page: path below the docs' root -> Markdown."""
    from tcplab import schema

    rows = schema.fields()
    out = {f"{schema.DOCS_DIR}/index.md": schema.index_markdown(rows)}
    for section in dict.fromkeys(f["section"] for f in rows):
        out[schema.page(section)] = schema.section_markdown(section, rows)
    plan = api_plan()
    for module in API_MODULES:
        out[api_page(module)] = api_markdown(module, plan)
    return out


_MARK = re.compile(r"^<!-- generated: ([\w-]+) -->$", re.M)


def fill(markdown: str, makers: dict[str, Callable[[], str]]) -> str:
    """Put each ``<!-- generated: NAME -->`` line's text in its place (`makers[NAME]()`)."""

    def one(m: re.Match[str]) -> str:
        if m[1] not in makers:
            raise KeyError(f"no generated text called {m[1]!r}: one of {', '.join(makers)}")
        return makers[m[1]]()

    return _MARK.sub(one, markdown)


def makers() -> dict[str, Callable[[], Any]]:
    """The generated texts a hand-written page can hold, by name."""
    return {"studies": studies_markdown, "api-modules": api_index_markdown}
