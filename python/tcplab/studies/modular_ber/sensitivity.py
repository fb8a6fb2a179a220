"""The declared sensitivity of `modular-ber`: the paper gives neither the bottleneck's queue nor
the receive window, so the whole grid runs again with other guesses (`paper.QUEUES` x
`paper.WINDOWS`) and every claim is judged under each. Here: the table of those verdicts, and
the claims' findings annotated with how many settings they hold under."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import pandas as pd

from .._base import Finding, TableOut
from .paper import config_name

__all__ = ["annotate", "records", "table"]

Judged = Mapping[tuple[int, int], Mapping[str, Finding]]

_MARK = {True: "yes", False: "no", None: "-"}


def records(judged: Judged) -> list[dict[str, Any]]:
    """One record per (setting, claim): queue, window, claim label, verdict, evidence."""
    return [
        {
            "queue_p": q,
            "window_B": w,
            "setting": config_name(q, w),
            "claim": label,
            "holds": f.holds,
            "evidence": f.evidence,
        }
        for (q, w), claims in judged.items()
        for label, f in claims.items()
    ]


def table(judged: Judged) -> TableOut:
    """Claims down, (queue, window) settings across: each claim's verdict under each."""
    settings = list(judged)
    labels = list(next(iter(judged.values())))
    rows, disp = [], []
    for label in labels:
        first = judged[settings[0]][label]
        verdicts = [judged[s][label].holds for s in settings]
        title = first.claim.split(" (section")[0].split(" (Conclusions")[0]
        rows.append({"claim": label, "title": first.claim} | {
            config_name(*s): v for s, v in zip(settings, verdicts, strict=True)})  # fmt: skip
        disp.append(
            (title[:90] + ("..." if len(title) > 90 else ""),
             *[_MARK[v] for v in verdicts],
             f"{sum(v is True for v in verdicts)}/{sum(v is not None for v in verdicts)}")
        )  # fmt: skip
    cols = ["claim", *[config_name(*s) for s in settings], "holds"]
    return TableOut(
        "sensitivity",
        "Every claim under each guessed queue and window (declared sensitivity)",
        pd.DataFrame(rows),
        pd.DataFrame(disp, columns=cols),
        "The paper gives neither the bottleneck's queue nor the receive window. The main grid "
        f"guesses {config_name(*settings[0])}; the same grid (every RTT, BER, pair and seed) "
        "runs again with each other combination, and every claim is judged on it the same "
        "way. A claim whose verdict changes across the row rests on a setting the paper does "
        "not state.",
    )


def annotate(findings: Sequence[Finding], judged: Judged) -> list[Finding]:
    """`findings` with each claim's evidence and detail saying how it fares under every
    setting, and a note on which verdicts depend on the guesses."""
    settings = list(judged)
    out, robust, depends = [], [], []
    for f in findings:
        label = f.claim[1] if f.kind == "claim" and f.claim[:1] == "(" else None
        if label is None or label not in judged[settings[0]]:
            out.append(f)
            continue
        verdicts = [judged[s][label].holds for s in settings]
        n_yes = sum(v is True for v in verdicts)
        n = sum(v is not None for v in verdicts)
        (robust if len({v for v in verdicts if v is not None}) <= 1 else depends).append(
            f"({label})"
        )
        each = "; ".join(
            f"{config_name(*s)}: {_MARK[judged[s][label].holds]} ({judged[s][label].evidence})"
            for s in settings
        )
        out.append(
            replace(
                f,
                evidence=f"{f.evidence}; holds under {n_yes} of {n} guessed queue/window settings",
                detail=f"{f.detail} Under each guessed queue and window: {each}.",
            )
        )
    out.append(
        Finding(
            "Which verdicts depend on the guessed queue and window",
            None,
            "A verdict that changes with the queue or the window rests on a setting the paper "
            "does not give; one that does not change is a verdict on the paper's claim under "
            f"every setting we tried ({len(settings)}: "
            + ", ".join(config_name(*s) for s in settings)
            + ").",
            "note",
            evidence=f"the same under every setting: {', '.join(robust) or 'none'}; depends on "
            f"the setting: {', '.join(depends) or 'none'}",
        )
    )
    return out
