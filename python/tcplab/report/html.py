"""One self-contained HTML page: styles inline, images embedded as base64 PNG (or inline
SVG), no scripts and nothing fetched from elsewhere."""

from __future__ import annotations

import base64
import html
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["HtmlReport", "fmt_number"]

_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2em auto;
max-width:1200px;padding:0 1em;color:#222;line-height:1.45}
h1{font-size:1.6em;margin-bottom:.2em}h2{margin-top:1.8em;border-bottom:1px solid #ccc}
h3{margin-top:1.3em}.sub{color:#555;margin-top:0}
table{border-collapse:collapse;margin:.6em 0;font-size:.86em}
th,td{border:1px solid #d0d0d0;padding:.25em .5em;text-align:right;vertical-align:top}
th{background:#f1f3f5}td.l,th.l{text-align:left}caption{caption-side:top;text-align:left;
font-weight:600;padding:.3em 0}
.note{color:#555;font-size:.86em}.fig{margin:1em 0}.fig img{max-width:100%;
border:1px solid #eee}.fig figcaption{font-size:.88em;color:#444}
.ok{color:#0a7a32;font-weight:600}.no{color:#b3261e;font-weight:600}.na{color:#777}
ul.find li{margin:.35em 0}code{background:#f4f4f4;padding:0 .2em}
.scroll{overflow-x:auto}
"""


def fmt_number(v: Any, digits: int = 5) -> str:
    """A number for a table cell: '-' for missing; integers with thousands separators;
    floats with `digits` significant digits (two decimals from 1000 up, scientific notation
    below 1e-3 and from 1e7)."""
    if v is None:
        return "-"
    if isinstance(v, bool | np.bool_):
        return "yes" if v else "no"
    if isinstance(v, int | np.integer):
        return f"{int(v):,}"
    if isinstance(v, float | np.floating):
        v = float(v)
        if math.isnan(v):
            return "-"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if v != 0 and (abs(v) >= 1e7 or abs(v) < 1e-3):
            return f"{v:.4g}"
        if abs(v) >= 1000:
            return f"{v:,.0f}" if v == round(v) else f"{v:,.2f}"
        return f"{v:.{digits}g}"
    return str(v)


class HtmlReport:
    """Build the page part by part; `to_html` returns it, `write` saves it."""

    def __init__(self, title: str, subtitle: str = "") -> None:
        self.title = title
        self.subtitle = subtitle
        self._parts: list[str] = []

    # -- text -------------------------------------------------------------------------------

    def h2(self, text: str, anchor: str | None = None) -> None:
        aid = f' id="{html.escape(anchor)}"' if anchor else ""
        self._parts.append(f"<h2{aid}>{html.escape(text)}</h2>")

    def h3(self, text: str) -> None:
        self._parts.append(f"<h3>{html.escape(text)}</h3>")

    def p(self, text: str, *, cls: str | None = None) -> None:
        c = f' class="{cls}"' if cls else ""
        self._parts.append(f"<p{c}>{html.escape(text)}</p>")

    def raw(self, markup: str) -> None:
        """Trusted markup, added as is."""
        self._parts.append(markup)

    def bullets(self, items: Iterable[str]) -> None:
        lis = "".join(f"<li>{html.escape(i)}</li>" for i in items)
        self._parts.append(f"<ul>{lis}</ul>")

    def findings(self, items: Iterable[tuple[str, bool | None, str]]) -> None:
        """Statements with a verdict: (claim, holds, detail)."""
        out = []
        for claim, holds, detail in items:
            if holds is None:
                mark = '<span class="na">[info]</span>'
            elif holds:
                mark = '<span class="ok">[yes]</span>'
            else:
                mark = '<span class="no">[no]</span>'
            out.append(
                f"<li>{mark} <b>{html.escape(claim)}</b><br>"
                f'<span class="note">{html.escape(detail)}</span></li>'
            )
        self._parts.append(f'<ul class="find">{"".join(out)}</ul>')

    # -- tables -----------------------------------------------------------------------------

    def table(
        self,
        frame: pd.DataFrame | Sequence[Sequence[Any]],
        *,
        columns: Sequence[str] | None = None,
        caption: str = "",
        note: str = "",
        left: Iterable[str] = (),
    ) -> None:
        """A table from a DataFrame (its columns) or rows (with `columns`). Numbers are
        formatted with `fmt_number`; strings are shown as they are. Columns named in `left`
        (default: the first) are left-aligned."""
        if isinstance(frame, pd.DataFrame):
            cols = [str(c) for c in frame.columns]
            rows = frame.itertuples(index=False, name=None)
        else:
            if columns is None:
                raise ValueError("columns are required when rows are given")
            cols = [str(c) for c in columns]
            rows = iter(frame)
        lefts = set(left) or {cols[0]}
        head = "".join(
            f'<th class="l">{html.escape(c)}</th>' if c in lefts else f"<th>{html.escape(c)}</th>"
            for c in cols
        )
        body = []
        for row in rows:
            cells = []
            for c, v in zip(cols, row, strict=True):
                cls = ' class="l"' if c in lefts else ""
                cells.append(f"<td{cls}>{html.escape(fmt_number(v))}</td>")
            body.append(f"<tr>{''.join(cells)}</tr>")
        cap = f"<caption>{html.escape(caption)}</caption>" if caption else ""
        self._parts.append(
            f'<div class="scroll"><table>{cap}<thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>"
        )
        if note:
            self.p(note, cls="note")

    # -- figures ----------------------------------------------------------------------------

    def figure(self, image: bytes | str | Path, caption: str = "", *, alt: str = "") -> None:
        """An embedded figure: PNG bytes, a path to a .png or .svg file, or SVG text."""
        if isinstance(image, Path) or (
            isinstance(image, str) and not image.lstrip().startswith("<")
        ):
            path = Path(image)
            data = path.read_bytes()
            if path.suffix.lower() == ".svg":
                img = _inline_svg(data.decode("utf-8"))
            else:
                img = _img_tag(data, alt or caption)
        elif isinstance(image, bytes):
            img = _img_tag(image, alt or caption)
        else:
            img = _inline_svg(image)
        cap = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
        self._parts.append(f'<figure class="fig">{img}{cap}</figure>')

    # -- output -----------------------------------------------------------------------------

    def to_html(self) -> str:
        sub = f'<p class="sub">{html.escape(self.subtitle)}</p>' if self.subtitle else ""
        return (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>{html.escape(self.title)}</title><style>{_CSS}</style></head><body>"
            f"<h1>{html.escape(self.title)}</h1>{sub}\n"
            + "\n".join(self._parts)
            + "\n</body></html>\n"
        )

    def write(self, path: str | Path) -> Path:
        """Write the page to `path`, whole or not at all (`tcplab._atomic.write_file`)."""
        from tcplab._atomic import write_file

        return write_file(Path(path), self.to_html().encode("utf-8"))


def _img_tag(png: bytes, alt: str) -> str:
    b64 = base64.b64encode(png).decode("ascii")
    return f'<img alt="{html.escape(alt)}" src="data:image/png;base64,{b64}">'


def _inline_svg(text: str) -> str:
    start = text.find("<svg")
    return text[start:] if start >= 0 else text
