"""The scenario format, field by field, from the core's own list (the one the parser takes
its allowed keys from): `tcplab schema`, `tcplab.schema.fields()`, and the docs' reference
(one page a section, one entry a field: `page`, `anchor` and `doc_link` say where)::

    >>> import tcplab.schema
    >>> section, (mss,) = tcplab.schema.find("tcp.mss")
    >>> mss["type"], mss["unit"], mss["allowed"]
    ('integer', 'bytes', '64 to 65495')
    >>> mss["doc"]
    'reference/scenario/tcp.html#mss'
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from typing import Any

from tcplab import _core, errors

__all__ = [
    "SECTIONS",
    "fields",
    "find",
    "page",
    "anchor",
    "doc_link",
    "example_line",
    "index_markdown",
    "section_markdown",
    "entries_markdown",
    "markdown",
]

#: Where each section's keys are written, in the order the reference lists them.
SECTIONS: dict[str, str] = {
    "": "the top level of the file",
    "run": "`[run]`",
    "tcp": "`[tcp]`, and `tcp = { ... }` inside an application",
    "tcp.ns2": "`[tcp.ns2]`, or `ns2 = { ... }` in a tcp table: ns-2.35's own rules",
    "nodes[]": "each `[[nodes]]`",
    "nodes[].rules[]": "each element of a node's `rules` (a packet filter)",
    "links[]": "each `[[links]]`",
    "direction": "each `[[links]]` (both directions) or its `[links.ab]` / `[links.ba]` table",
    "aqm": "`aqm = { kind = ..., ... }` of a link or one direction",
    "error": "`error = { model = ..., ... }` of a link or one direction",
    "error.segments[]": "each element of a `list` error model's `segments`",
    "apps[]": "each `[[apps]]`",
    "profiles[]": "each `[[profiles]]`",
    "distribution": (
        "a size or time of a `database` or `http` application: a plain value is a constant, "
        'a table such as `{ dist = "exponential", mean = "30s" }` a distribution'
    ),
    "output": "`[output]`",
}


def fields() -> list[dict[str, Any]]:
    """Every field: section, key, path, when (one error model or app kind), type, unit,
    default, allowed, description, example (a valid TOML value), and doc: its entry in the
    docs site (`doc_link`)."""
    rows = json.loads(_core.schema())
    for f in rows:
        f["doc"] = doc_link(f)
    return rows


#: The section a table or list field opens, (its section, its key) -> (the section inside, and
#: whether a path names an element next: `links.wan.rate`, `nodes.fw.rules.0.port`). A field
#: of type "distribution" opens the section "distribution".
_INSIDE: dict[tuple[str, str], tuple[str, bool]] = {
    ("", "run"): ("run", False),
    ("", "tcp"): ("tcp", False),
    ("", "output"): ("output", False),
    ("", "nodes"): ("nodes[]", True),
    ("", "links"): ("links[]", True),
    ("", "apps"): ("apps[]", True),
    ("", "profiles"): ("profiles[]", True),
    ("tcp", "ns2"): ("tcp.ns2", False),
    ("nodes[]", "rules"): ("nodes[].rules[]", True),
    ("links[]", "ab"): ("direction", False),
    ("links[]", "ba"): ("direction", False),
    ("direction", "aqm"): ("aqm", False),
    ("direction", "error"): ("error", False),
    ("error", "segments"): ("error.segments[]", True),
    ("apps[]", "tcp"): ("tcp", False),
    ("profiles[]", "apps"): ("apps[]", True),
}

#: The docs' folder of the scenario reference, below the site's root.
DOCS_DIR = "reference/scenario"


def _sections(rows: list[dict[str, Any]]) -> list[str]:
    """Every section, in SECTIONS' order, then any the core has that SECTIONS does not name."""
    extra = [f["section"] for f in rows if f["section"] not in SECTIONS]
    return list(SECTIONS) + list(dict.fromkeys(extra))


def _title(section: str) -> str:
    return section or "top level"


def page(section: str) -> str:
    """The docs page of a section, below the docs' root: ``reference/scenario/links.md`` for
    ``links[]``, ``reference/scenario/top-level.md`` for the top level."""
    slug = section.replace("[]", "").replace(".", "-") or "top-level"
    return f"{DOCS_DIR}/{slug}.md"


def anchor(field: dict[str, Any]) -> str:
    """A field's anchor on its section's page: its key, and for a field of one kind or model
    (`when`), that kind too: ``rate``, ``size-ftp``, ``mean-exponential``."""
    when = field["when"].partition("=")[2]
    return f"{field['key']}-{when}" if when else field["key"]


def doc_link(field: dict[str, Any], *, html: bool = True) -> str:
    """Where the site documents a field: ``reference/scenario/tcp.html#mss`` (`html`: the built
    site's file, below site/), or the Markdown source's path below docs/."""
    target = page(field["section"])
    if html:
        target = target.removesuffix(".md") + ".html"
    return f"{target}#{anchor(field)}"


def example_line(field: dict[str, Any]) -> str:
    """The field's example as a line of TOML (``mss = 1000``), or "" when it has none worth
    showing (an empty table)."""
    ex = field["example"]
    return "" if ex in ("", "{}") else f"{field['key']} = {ex}"


def _no_field(path: str, key: str, where: str, keys: list[str]) -> errors.TcplabError:
    near = difflib.get_close_matches(key, keys, n=1)
    hint = f" (did you mean {near[0]!r}?)" if near else ""
    allowed = ", ".join(dict.fromkeys(keys))
    return errors._make(
        errors.UnknownFieldError,
        f"{path}: no field {key!r} in {where}{hint}; allowed: {allowed}",
        field=path,
        value=key,
        allowed=allowed,
    )


def find(path: str, rows: list[dict[str, Any]] | None = None) -> tuple[str, list[dict[str, Any]]]:
    """The fields a path names, and their section: a scenario path as ``--set`` writes it
    (``tcp.mss``, ``links.wan.rate``, ``links.wan.ab.error.p``, ``apps.web.think_time.mean``),
    a path of the reference (``links[].rate``, ``direction.rate``), or a section (``tcp``,
    ``links[]``, ``links.wan``: all its fields). A key that several kinds or models have
    (``apps[].size``) names each of them. Raises `tcplab.errors.UnknownFieldError` naming the
    path and the keys allowed where it went wrong (with the nearest one)."""
    rows = fields() if rows is None else rows
    by_section: dict[str, list[dict[str, Any]]] = {}
    for f in rows:
        by_section.setdefault(f["section"], []).append(f)
    path = path.strip()
    if path in by_section:
        return path, by_section[path]
    exact = [f for f in rows if f["path"] == path]
    if exact:
        return exact[0]["section"], exact
    tokens = [t for t in re.split(r"\.", path) if t] or [""]
    section, i = "", 0
    while True:
        token = tokens[i]
        key = token.removesuffix("[]")
        mine = [f for f in by_section.get(section, []) if f["key"] == key]
        if not mine and section == "links[]":  # a link's direction fields, on the link itself
            mine = [f for f in by_section["direction"] if f["key"] == key]
        if not mine:
            keys = [f["key"] for f in by_section.get(section, [])]
            if section == "links[]":
                keys += [f["key"] for f in by_section["direction"]]
            raise _no_field(path, key, section or "the top level", keys)
        i += 1
        if i == len(tokens):
            return mine[0]["section"], mine
        inside = _INSIDE.get((mine[0]["section"], key))
        if inside is None and mine[0]["type"] == "distribution":
            inside = ("distribution", False)
        if inside is None:
            done = ".".join(tokens[:i])
            raise errors._make(
                errors.UnknownFieldError,
                f"{path}: {done} ({mine[0]['type']}) has no fields below it",
                field=path,
                value=path,
                allowed=done,
            )
        section, named = inside
        if named and not token.endswith("[]"):
            i += 1  # the element's name (or index)
        if i == len(tokens):
            return section, by_section[section]


_ESCAPE = re.compile(r"([\\*_\[\]])")


def _text(text: str) -> str:
    """Plain text as Markdown: code spans kept, everything else shown as written."""
    parts = re.split(r"(`[^`]*`)", text)
    out = []
    for n, part in enumerate(parts):
        if n % 2:
            out.append(part)
        else:
            part = _ESCAPE.sub(r"\\\1", part)
            out.append(part.replace("<", "&lt;").replace(">", "&gt;"))
    return "".join(out)


def _value(text: str) -> str:
    """A default or allowed value: a code span when it is a TOML value, else text."""
    try:
        tomllib.loads(f"v = {text}")
    except tomllib.TOMLDecodeError:
        return _text(text)
    return f"`{text}`"


def _heading(field: dict[str, Any]) -> str:
    kind, _, value = field["when"].partition("=")
    when = f' (`{kind} = "{value}"`)' if value else ""
    return f"### `{field['key']}`{when} {{ #{anchor(field)} }}"


def _entry(field: dict[str, Any]) -> list[str]:
    type_ = field["type"] + (f", in {field['unit']}" if field["unit"] else "")
    default = _value(field["default"]) if field["default"] else "none"
    lines = [
        _heading(field),
        "",
        f"- **Type**: {_text(type_)}",
        f"- **Default**: {default}",
        f"- **Allowed**: {_text(field['allowed'])}",
        "",
        _text(field["description"]),
        "",
    ]
    example = example_line(field)
    if example:
        lines += [f"Example: `{example}`", ""]
    lines += [f"Path: `{field['path']}` (`tcplab schema {field['path']}` prints this entry)", ""]
    return lines


def entries_markdown(rows: list[dict[str, Any]]) -> str:
    """The reference's entries of these fields, as Markdown."""
    return "\n".join(line for f in rows for line in _entry(f))


def section_markdown(section: str, rows: list[dict[str, Any]] | None = None) -> str:
    """One section's page of the scenario reference: where it is written, then an entry per
    field (type and unit, default, allowed values, description, an example)."""
    rows = fields() if rows is None else rows
    mine = [f for f in rows if f["section"] == section]
    where = SECTIONS.get(section, "")
    out = [f"# Scenario reference: {_title(section)}", ""]
    if where:
        out += [f"Written in {where}.", ""]
    for f in mine:
        out += _entry(f)
    return "\n".join(out)


def index_markdown(rows: list[dict[str, Any]] | None = None) -> str:
    """The reference's first page: how quantities are written, then each section with a link
    to its page and to each of its fields."""
    rows = fields() if rows is None else rows
    out = [
        "# Scenario reference",
        "",
        "Generated from the core's field list (`tcplab schema`), the same list the parser",
        "accepts: a field missing here is refused in a scenario. `tcplab schema PATH` prints a",
        "field's entry (`tcplab schema links.wan.rate`) and the page that documents it.",
        "",
        'Quantities are written with their units, as strings: rates (`"10Mbps"`,',
        '`"1.5Mbps"`, `"100kbps"`), durations (`"20ms"`, `"1.5s"`, `"2min"`), sizes',
        '(`"10MB"`, `"64KiB"`, `"1460B"`; decimal prefixes, binary ones spelled KiB, MiB,',
        'GiB, TiB) and probabilities (`0.01`, `"1e-6"`, `"1%"`). The reference gives each',
        "field's unit in SI (bit/s, s, bytes), as `tcplab validate --json` prints values.",
        "",
    ]
    for section in _sections(rows):
        mine = [f for f in rows if f["section"] == section]
        if not mine:
            continue
        name = page(section).rpartition("/")[2]
        out += [f"## [{_title(section)}]({name})", ""]
        if SECTIONS.get(section):
            out += [f"Written in {SECTIONS[section]}.", ""]
        links = [f"[`{f['key']}`]({name}#{anchor(f)})" for f in mine]
        out += [", ".join(dict.fromkeys(links)), ""]
    return "\n".join(out)


def markdown() -> str:
    """The whole scenario reference as Markdown (`tcplab schema --markdown`): the first page,
    then each section's."""
    rows = fields()
    pages = [index_markdown(rows)]
    pages += [
        section_markdown(s, rows) for s in _sections(rows) if any(f["section"] == s for f in rows)
    ]
    return "\n".join(pages)
