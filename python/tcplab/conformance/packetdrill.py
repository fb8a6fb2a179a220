"""packetdrill conformance: a directory of packetdrill scripts (a fetched google/packetdrill's
``gtests/net/tcp``, or the kernel's ``tools/testing/selftests/net/packetdrill``) played
against one profile, with a verdict per script and a count per category.

The category of a script is the first folder of its path below the directory (``sack`` for
``DIR/sack/sack-shift-sacked-7-3-4-8-9-fack.pkt``). The kernel keeps its copies in one folder,
named ``tcp_<category>_<script>.pkt`` (``tcp_fast_recovery_prr-ss-10pkt-lost-1.pkt``): a
script directly in the directory is in the category its name says (google/packetdrill's
folder names, the longest that fits; else the word after ``tcp_``), or in ``.`` when its name
says none. A verdict is one of:

* ``pass``;
* ``fail``: the endpoint did otherwise than the script says (the first mismatch: a segment,
  its timing, a system call's result or a tcp_info assertion);
* ``unsupported``: the script uses something tcplab does not model (a shell command, a
  sysctl value, a system call, an option), named in the detail;
* ``invalid``: not a packetdrill script tcplab can read (the line and why).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from tcplab import packetdrill

VERDICTS = ("pass", "fail", "unsupported", "invalid")


@dataclass(frozen=True)
class Verdict:
    path: str  # below the directory
    category: str
    verdict: str
    line: int | None = None
    kind: str | None = None  # the failure's kind (mismatch, timing, ...)
    detail: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def scripts_in(directory: str | Path) -> list[Path]:
    """Every ``*.pkt`` below `directory`, sorted (an OSError when it is not a directory)."""
    root = Path(directory)
    if not root.is_dir():
        raise NotADirectoryError(20, "not a directory", str(root))
    return sorted(p for p in root.rglob("*.pkt") if p.is_file())


#: google/packetdrill's folders below gtests/net/tcp, as the kernel's selftests name their
#: copies of its scripts (tcp_<folder with / as _>_<script>.pkt).
_CATEGORIES = sorted(
    ("blocking", "close", "cubic", "cwnd_moderation", "dsack", "ecn", "eor", "fast_recovery",
     "fast_retransmit", "fastopen_client", "fastopen_server", "inq", "limited_transmit", "md5",
     "mss", "mtu_probe", "nagle", "notsent_lowat", "rack", "receiver", "sack", "shutdown",
     "slow_start", "splice", "syscall_bad_arg", "tcp_info", "timestamping", "ts_recent",
     "user_timeout", "validate", "zerocopy"),
    key=len, reverse=True,
)  # fmt: skip


def category_of(rel: Path) -> str:
    """A script's category: its first folder, or what a kernel-style name says."""
    if len(rel.parts) > 1:
        return rel.parts[0]
    name = rel.name
    if not name.startswith("tcp_"):
        return "."
    rest = name[len("tcp_") :]
    for c in _CATEGORIES:
        if rest.startswith(c + "_"):
            return c
    word, sep, _ = rest.partition("_")
    return word if sep else "."


def judge(root: Path, path: Path, **kw: Any) -> Verdict:
    rel = path.relative_to(root)
    category = category_of(rel)
    try:
        outcome = packetdrill.run_file(path, **kw)
    except packetdrill.ScriptError as e:
        kind = "unsupported" if e.unsupported else "invalid"
        return Verdict(str(rel), category, kind, e.line, kind, e.message)
    except (OSError, UnicodeDecodeError) as e:
        return Verdict(str(rel), category, "invalid", None, "invalid", str(e))
    f = outcome.failure
    if f is None:
        return Verdict(str(rel), category, "pass")
    verdict = (
        "unsupported" if f.kind == "unsupported" else "invalid" if f.kind == "error" else "fail"
    )
    detail = " | ".join(f.lines(str(rel))[1:])
    detail = f.message + (f" | {detail}" if detail else "")
    return Verdict(str(rel), category, verdict, f.line, f.kind, detail)


def run_corpus(directory: str | Path, **kw: Any) -> list[Verdict]:
    """A verdict for every script below `directory` (`kw` as `packetdrill.run_file` takes)."""
    root = Path(directory)
    return [judge(root, p, **kw) for p in scripts_in(root)]


def table(verdicts: list[Verdict]) -> list[dict[str, Any]]:
    """Per category: how many scripts, and how many of each verdict (a row ``all`` last)."""
    rows: dict[str, dict[str, Any]] = {}
    for v in verdicts:
        row = rows.setdefault(v.category, {"category": v.category, "scripts": 0,
                                           **{k: 0 for k in VERDICTS}})  # fmt: skip
        row["scripts"] += 1
        row[v.verdict] += 1
    out = [rows[k] for k in sorted(rows)]
    total = {"category": "all", "scripts": len(verdicts),
             **{k: sum(r[k] for r in out) for k in VERDICTS}}  # fmt: skip
    return [*out, total]
