"""Bounded memory (issue 16): every table stops at output.max_rows and says what it left out,
so a run ten times longer does not take ten times the memory."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
import tcplab
from conftest import ROOT

BULK = ROOT / "examples" / "bulk_1gb.toml"

_PEAK = """
import json, sys, tcplab
sc = tcplab.Scenario.from_toml(sys.argv[1]).with_overrides(json.loads(sys.argv[2]))
res = tcplab.run(sc)
peak = next(l for l in open("/proc/self/status") if l.startswith("VmHWM:")).split()[1]
print(json.dumps({"peak_kb": int(peak), "rows": len(res.traces["trace"]),
                  "truncated": res.summary.get("tables_truncated", [])}))
"""


def test_a_table_stops_at_max_rows_and_says_so() -> None:
    sc = tcplab.Scenario.from_toml(BULK).with_overrides(
        {"apps.download.size": "20MB", "output.trace": True, "output.max_rows": 500}
    )
    res = tcplab.run(sc)
    assert len(res.traces["trace"]) == 500
    (t,) = res.summary["tables_truncated"]
    assert t["table"] == "trace" and t["rows_kept"] == 500 and t["rows_dropped"] > 1000
    assert t["first_dropped_s"] > res.traces["trace"]["time_s"].iloc[-1]  # the first rows kept
    assert any("'trace' kept its first 500 rows" in w for w in res.warnings)
    full = tcplab.run(sc.with_overrides({"output.max_rows": 10**7}))
    assert "tables_truncated" not in full.summary  # absent when nothing was left out
    assert len(full.traces["trace"]) == 500 + t["rows_dropped"]
    with pytest.raises(tcplab.errors.InvalidValueError, match="output.max_rows"):
        sc.with_overrides({"output.max_rows": 0})


@pytest.mark.slow
def test_peak_memory_stays_flat_for_a_run_ten_times_longer() -> None:
    def peak(size: str) -> dict:
        ov = {"apps.download.size": size, "output.trace": True, "output.max_rows": 20_000}
        out = subprocess.run(
            [sys.executable, "-c", _PEAK, str(BULK), json.dumps(ov)],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        return json.loads(out.stdout)

    short, long = peak("100MB"), peak("1GB")
    assert short["rows"] == long["rows"] == 20_000
    # without the cap the trace alone would grow by ~10x (about 700,000 rows, 60 MB, per 100 MB)
    assert long["peak_kb"] < 1.15 * short["peak_kb"], (short, long)
    assert long["truncated"][0]["rows_dropped"] > 9 * short["truncated"][0]["rows_dropped"]
