"""Generate the docs' pages that come from the code: `python -m tcplab._docs` (make docs).

* ``docs/reference/scenario.md``: `tcplab.schema.markdown()`, the parser's own field list;
* ``.docs-generated/studies.md``: the registered studies, what each reproduces, its options.
"""

from __future__ import annotations

import sys
from pathlib import Path


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


def main(root: Path) -> int:
    from tcplab import schema

    (root / "docs" / "reference").mkdir(parents=True, exist_ok=True)
    (root / "docs" / "reference" / "scenario.md").write_text(schema.markdown() + "\n")
    gen = root / ".docs-generated"
    gen.mkdir(exist_ok=True)
    (gen / "studies.md").write_text(studies_markdown() + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path.cwd()))
