"""packetdrill scripts against tcplab's simulated TCP endpoint.

A packetdrill script (github.com/google/packetdrill) plays the remote peer of one TCP
connection: it injects segments at given times, states each segment the endpoint must send
back, makes the endpoint's socket calls, and asserts its tcp_info in ``%{ }%`` Python blocks.
tcplab reads the language (`parser`), turns the script's shell commands into profile settings
(`shell`), and plays it against one endpoint of its simulator through the step API
(`runner`, `endpoint`), with packetdrill's matching rules and timing tolerance (`matching`).

    >>> from tcplab import packetdrill
    >>> outcome = packetdrill.run_text('''
    ... 0 socket(..., SOCK_STREAM, IPPROTO_TCP) = 3
    ... +0 bind(3, ..., ...) = 0
    ... +0 listen(3, 1) = 0
    ... +0 < S 0:0(0) win 65535 <mss 1000,sackOK,nop,nop,nop,wscale 7>
    ... +0 > S. 0:0(0) ack 1 <mss 1460,nop,nop,sackOK,nop,wscale 7>
    ... +.1 < . 1:1(0) ack 1 win 500
    ... +0 accept(3, ..., ...) = 4
    ... ''')
    >>> outcome.passed
    True

**Scripts are code.** Their ``%{ }%`` blocks are Python and are executed, as packetdrill
executes them; run only scripts you trust. Shell commands are never executed (they are read
as settings, or refused).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .parser import parse, parse_file
from .runner import Failure, Outcome, play
from .shell import Settings, settings_for
from .syntax import Script, ScriptError

__all__ = [
    "Failure",
    "Outcome",
    "Script",
    "ScriptError",
    "Settings",
    "parse",
    "parse_file",
    "run_file",
    "run_script",
    "run_text",
    "settings_for",
]


def run_script(
    script: Script,
    *,
    profile: str = "linux",
    overrides: dict[str, Any] | None = None,
    tolerance_usecs: int | None = None,
) -> Outcome:
    """Play a parsed `script` against a simulated endpoint of `profile`, with the settings
    its shell commands ask for and then `overrides` (scenario paths such as
    ``{"tcp.limited_transmit": False}``). A construct tcplab does not model ends as a failure
    of kind ``unsupported``."""
    from .endpoint import open_stack

    try:
        settings = settings_for(script)
    except ScriptError as e:
        return Outcome(
            script.path, Failure(e.line, "unsupported" if e.unsupported else "error", e.message), 0
        )
    stack = open_stack(profile, settings.tcp, overrides or {})
    if "tcp_min_tso_segs" in settings.sysctls:
        stack.conn.set_min_tso_segs(int(settings.sysctls["tcp_min_tso_segs"], 0))
    outcome = play(script, stack, tolerance_usecs=tolerance_usecs)
    outcome.notes = settings.notes
    return outcome


def run_file(path: str | Path, **kw: Any) -> Outcome:
    """Read and play the script in the file `path` (a `ScriptError` if it is not packetdrill,
    an OSError if it cannot be read)."""
    return run_script(parse_file(path), **kw)


def run_text(text: str, path: str = "<script>", **kw: Any) -> Outcome:
    """Read and play a script given as text."""
    return run_script(parse(text, path), **kw)
