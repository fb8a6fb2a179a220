"""What a study's verdict is worth: a `Finding` says whether a statement holds and of which
kind the statement is (`KINDS`): a claim of the paper, our hypothesis, a sanity invariant,
arithmetic on the paper's own numbers, true by construction, or a note without a verdict. Only
the paper's claims make a study's headline (`headline`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["KINDS", "Finding", "count_text", "findings_html", "headline", "verdict_counts"]


#: What a verdict is (`Finding.kind`), in the order the report prints them. Only "claim"
#: counts in a study's headline: the others cannot tell whether the paper was right.
KINDS: dict[str, str] = {
    "claim": "claims of the paper (each names the sentence or table cell it tests; can fail)",
    "hypothesis": "our hypotheses (explanations of our own, tested on our runs)",
    "invariant": "sanity invariants (what any correct run must show)",
    "arithmetic": "arithmetic on the paper's own numbers",
    "construction": "true by construction (a setup calibrated to the answer)",
    "note": "notes without a verdict (settings, readings, explanations)",
}


@dataclass
class Finding:
    """A statement the report makes about our results and whether it holds (None: no verdict,
    e.g. an explanation, or a claim this run could not judge).

    `kind` says what the verdict is worth (`KINDS`): a "claim" of the paper must name in
    `tests` the paper's sentence or table cell it tests, and must be able to fail; a "note"
    has no verdict. `evidence` is one line of what we measured (the CLI prints it under the
    title); `detail` the full explanation."""

    claim: str
    holds: bool | None
    detail: str
    kind: str
    tests: str = ""
    evidence: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(
                f"finding {self.claim!r}: kind {self.kind!r} is not one of {', '.join(KINDS)}"
            )
        if self.holds is not None:
            self.holds = bool(self.holds)
        if self.kind == "claim" and not self.tests.strip():
            raise ValueError(
                f"claim {self.claim!r} does not name the paper's sentence or table cell it tests"
            )
        if self.kind == "note" and self.holds is not None:
            raise ValueError(f"note {self.claim!r} has a verdict; a note has none")
        if self.kind != "note" and self.holds is not None and not self.evidence.strip():
            raise ValueError(f"verdict {self.claim!r} has no one-line evidence")

    @property
    def verdict(self) -> str:
        """'yes', 'no' or 'info' (no verdict)."""
        return {True: "yes", False: "no", None: "info"}[self.holds]

    def to_dict(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "kind": self.kind,
            "holds": self.holds,
            "verdict": self.verdict,
            "tests": self.tests,
            "evidence": self.evidence,
            "detail": self.detail,
        }


def verdict_counts(findings: Iterable[Finding]) -> dict[str, dict[str, int]]:
    """Per kind (in `KINDS` order, kinds with no finding left out): how many findings say
    yes, no and info."""
    out: dict[str, dict[str, int]] = {}
    for f in findings:
        out.setdefault(f.kind, {"yes": 0, "no": 0, "info": 0})[f.verdict] += 1
    return {k: out[k] for k in KINDS if k in out}


def headline(findings: Iterable[Finding]) -> str:
    """The study's headline: the paper's claims that hold and fail (the other kinds after)."""
    counts = verdict_counts(findings)
    parts = []
    for kind, c in counts.items():
        label = KINDS[kind].split(" (")[0]
        if kind == "note":
            parts.append(f"{label}: {c['info']}")
            continue
        text = f"{label}: {c['yes']} yes, {c['no']} no"
        if c["info"]:
            text += f", {c['info']} not judged"
        parts.append(text)
    return "; ".join(parts) if parts else "no verdicts"


def count_text(kind: str, counts: Mapping[str, int]) -> str:
    if kind == "note":
        return f"{counts['info']}"
    text = f"{counts['yes']} yes, {counts['no']} no"
    return text + (f", {counts['info']} not judged" if counts["info"] else "")


def findings_html(findings: Iterable[Finding]) -> str:
    """The findings of one kind as the report's list: verdict, title, what it tests, the
    one-line evidence and the explanation."""
    import html

    marks = {"yes": ("ok", "[yes]"), "no": ("no", "[no]"), "info": ("na", "[info]")}
    items = []
    for f in findings:
        cls, text = marks[f.verdict]
        lines = [f'<span class="{cls}">{text}</span> <b>{html.escape(f.claim)}</b>']
        if f.tests:
            lines.append(f"<i>tests</i>: {html.escape(f.tests)}")
        if f.evidence:
            lines.append(f"<i>evidence</i>: {html.escape(f.evidence)}")
        if f.detail:
            lines.append(f'<span class="note">{html.escape(f.detail)}</span>')
        items.append("<li>" + "<br>".join(lines) + "</li>")
    return f'<ul class="find">{"".join(items)}</ul>'
