"""A script's shell commands (its backtick lines) as settings of the simulated endpoint.

packetdrill runs them with /bin/sh on the test machine; tcplab runs nothing: it reads the
commands TCP scripts use and turns each into the profile settings it stands for, or refuses
it with the line and what it would need. Read, never executed:

* ``sysctl [-q] [-e] [-w] net.ipv4.NAME=VALUE ...`` (dots or slashes), and packetdrill's
  ``set_sysctls.py /proc/sys/net/ipv4/NAME=VALUE ...``;
* a shell file named by the command (``../common/defaults.sh``): its lines are read the same
  way, from the file beside the script when it is there, else from `DEFAULTS_SH`, the
  sysctls packetdrill's ``gtests/net/common/defaults.sh`` sets (a table of facts: tcplab
  does not carry the file);
* ``ip tcp_metrics flush all`` (the simulated host keeps no metrics), ``tc qdisc add|replace
  dev tun0 root pfifo`` (the device queue packetdrill sets; nothing is dropped or paced),
  ``ethtool -K tun0 tso off gso off`` (the endpoint sends MSS-sized segments either way, and
  a script line of several MSS matches them), the cleanup ``/tmp/sysctl_restore_*.sh``
  (every run starts fresh), ``echo 3 > /sys/module/tcp_cubic/parameters/hystart_detect``
  (HyStart's default detections).

Each sysctl is either a profile setting (`SETTINGS`), or one whose value must be the one the
`linux` profile models (`FIXED`: a script asking for another value is refused as
unsupported), or unknown (refused). Nothing is silently ignored.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .syntax import ScriptError

#: packetdrill's gtests/net/common/defaults.sh, its sysctls (as of 2024; the TCP ones).
DEFAULTS_SH = """
ip tcp_metrics flush all
sysctl -q net.ipv4.tcp_rmem="4096 540000 15728640"
sysctl -q net.ipv4.tcp_wmem="4096 262144 4194304"
sysctl -q net.ipv4.tcp_timestamps=1
sysctl -q net.ipv4.tcp_syn_retries=5
sysctl -q net.ipv4.tcp_synack_retries=5
sysctl -q net.ipv4.tcp_frto=2
sysctl -q net.ipv4.tcp_sack=1
sysctl -q net.ipv4.tcp_dsack=1
sysctl -q net.ipv4.tcp_fack=0
sysctl -q net.ipv4.tcp_reordering=3
sysctl -q net.ipv4.tcp_congestion_control=cubic
sysctl -q net.ipv4.tcp_slow_start_after_idle=0
sysctl -q net.ipv4.tcp_early_retrans=4 net.ipv4.tcp_recovery=1
sysctl -q net.ipv4.tcp_tso_win_divisor=3
sysctl -q net.ipv4.tcp_ecn=0
sysctl -q net.ipv4.tcp_ecn_option=2
sysctl -q net.ipv4.tcp_pacing_ss_ratio=200
sysctl -q net.ipv4.tcp_pacing_ca_ratio=120
sysctl -q net.ipv4.tcp_notsent_lowat=4294967295
sysctl -q net.ipv4.tcp_fastopen=0x70403
sysctl -q net.ipv4.tcp_fastopen_key=a1a1a1a1-b2b2b2b2-c3c3c3c3-d4d4d4d4
sysctl -q net.ipv4.tcp_syncookies=1
tc qdisc add dev tun0 root pfifo
"""


@dataclass
class Settings:
    """What a script's commands ask for: `tcp` the scenario's tcp fields (``{"sack":
    False}``), `sysctls` every sysctl read (name -> value, the last one kept) and `notes` what
    was read and how."""

    tcp: dict[str, Any] = field(default_factory=dict)
    sysctls: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


def _flag(name: str) -> Callable[[str], dict[str, Any]]:
    def set_flag(value: str) -> dict[str, Any]:
        n = int(value, 0)
        if n not in (0, 1):
            raise ValueError("allowed: 0 or 1")
        return {name: bool(n)}

    return set_flag


def _rmem(value: str) -> dict[str, Any]:
    low, default, high = (int(x) for x in value.split())
    if not low <= default <= high:
        raise ValueError("allowed: three sizes MIN DEFAULT MAX in increasing order")
    return {"rcv_buf": f"{default}B", "rcv_buf_max": f"{high}B"}


def _cc(value: str) -> dict[str, Any]:
    if value not in ("cubic", "reno"):
        raise ValueError("allowed: cubic, reno (Linux's modules tcplab models)")
    return {"congestion_control": value}


def _reordering(value: str) -> dict[str, Any]:
    return {"dupthresh": int(value, 0)}


def _max_reordering(value: str) -> dict[str, Any]:
    return {"max_reordering": int(value, 0)}


def _recovery(value: str) -> dict[str, Any]:
    if int(value, 0) & 1 != 1:
        raise ValueError(
            "allowed: an odd value (RACK on); loss detection without RACK is not modelled"
        )
    return {}


def _early_retrans(value: str) -> dict[str, Any]:
    """0-2: no tail loss probes (RACK-TLP's `tlp` parameter off); 3, 4: TLP, the profile's."""
    n = int(value, 0)
    if not 0 <= n <= 4:
        raise ValueError("allowed: 0 to 4 (3 and 4 send tail loss probes)")
    return {} if n >= 3 else {"lr_params": {"tlp": False}}


#: sysctl (below net.ipv4.) -> its scenario tcp fields.
SETTINGS: dict[str, Callable[[str], dict[str, Any]]] = {
    "tcp_sack": _flag("sack"),
    "tcp_timestamps": _flag("timestamps"),
    "tcp_window_scaling": _flag("window_scaling"),
    "tcp_congestion_control": _cc,
    "tcp_reordering": _reordering,
    "tcp_max_reordering": _max_reordering,
    "tcp_rmem": _rmem,
    "tcp_recovery": _recovery,
    "tcp_early_retrans": _early_retrans,
    "tcp_slow_start_after_idle": _flag("slow_start_after_idle"),
}

#: sysctl -> the values the `linux` profile models (None: any value, the sysctl does not
#: matter to a simulated endpoint), with why.
FIXED: dict[str, tuple[tuple[str, ...] | None, str]] = {
    "tcp_wmem": (None, "the send buffer is sized by SO_SNDBUF or the profile"),
    "tcp_syn_retries": (None, "no script here loses a SYN"),
    "tcp_synack_retries": (None, "no script here loses a SYN-ACK"),
    "tcp_frto": (("2",), "F-RTO as Linux's default"),
    "tcp_dsack": (("1",), "D-SACK blocks as Linux sends them"),
    "tcp_fack": (("0",), "FACK is gone from Linux; RACK replaces it"),
    "tcp_tso_win_divisor": (None, "a script line of several MSS matches MSS-sized segments"),
    "tcp_min_tso_segs": (None, "the endpoint's TSO packets (where PSH falls), any value"),
    "tcp_ecn": (("0",), "ECN is not negotiated"),
    "tcp_ecn_option": (None, "only with ECN"),
    "tcp_pacing_ss_ratio": (None, "only with the fq qdisc, which is not modelled"),
    "tcp_pacing_ca_ratio": (None, "only with the fq qdisc, which is not modelled"),
    "tcp_notsent_lowat": (("4294967295", "-1"), "no limit on unsent data"),
    "tcp_fastopen": (None, "no script here sends a Fast Open option"),
    "tcp_fastopen_key": (None, "no script here sends a Fast Open option"),
    "tcp_syncookies": (None, "one SYN at a time: the backlog never overflows"),
}


def _arith(text: str) -> str:
    """$((...)) of digits and + - * / ( ), the only expansion defaults.sh uses."""

    def value(m: re.Match[str]) -> str:
        expr = m.group(1)
        if not re.fullmatch(r"[\d\s+\-*/()]+", expr):
            raise ValueError(f"arithmetic $(({expr})) other than numbers and + - * /")
        return str(int(eval(expr.replace("/", "//"), {"__builtins__": {}}, {})))  # noqa: S307

    return re.sub(r"\$\(\((.*?)\)\)", value, text)


class Shell:
    """Reads the commands of one script (`path`, whose directory resolves relative files)."""

    def __init__(self, path: str, settings: Settings | None = None):
        self.path = path
        self.settings = settings or Settings()

    def run(self, text: str, line: int) -> None:
        """Read the command text of the backtick block at `line`."""
        for raw, words in self._commands(text, line):
            self._command(raw, words, line)

    def _commands(self, text: str, line: int) -> list[tuple[str, list[str]]]:
        out = []
        text = re.sub(r"\\\n", " ", text)  # a backslash continues the line
        for raw in re.split(r"\n|;|&&", text):
            raw = raw.strip()
            if not raw or raw.startswith("#"):
                continue
            try:
                words = shlex.split(_arith(raw), comments=True)
            except ValueError as e:
                raise ScriptError(self.path, line, f"shell command {raw!r}: {e}") from None
            # Redirections to /dev/null do not change what a command does.
            words = [w for w in words if not re.fullmatch(r"\d?>+(&\d|/dev/null)?|/dev/null", w)]
            if words:
                out.append((raw, words))
        return out

    def _unsupported(self, line: int, what: str) -> ScriptError:
        return ScriptError(self.path, line, what, unsupported=True)

    def _command(self, raw: str, words: list[str], line: int) -> None:
        name = Path(words[0]).name
        if name == "sysctl":
            for w in words[1:]:
                if not w.startswith("-"):
                    self.sysctl(w, line)
        elif name == "set_sysctls.py":
            for w in words[1:]:
                self.sysctl(w.removeprefix("/proc/sys/"), line)
        elif name.startswith("sysctl_restore") or words[:3] == ["ip", "tcp_metrics", "flush"]:
            self.settings.notes.append(f"{' '.join(words)}: nothing to do in a fresh simulation")
        elif name == "tc":
            text = " ".join(words)
            if re.fullmatch(r"tc qdisc (add|replace) dev \S+ root pfifo", text):
                self.settings.notes.append(f"{text}: the device queue drops nothing")
            else:
                raise self._unsupported(
                    line, f"shell command {text!r}: only `tc qdisc add dev tun0 root pfifo` is "
                    "modelled (no fq pacing, no pfifo limit)",
                )  # fmt: skip
        elif name == "echo" and len(words) == 3 and words[2].startswith("/sys/module/tcp_cubic/"):
            param = Path(words[2]).name
            if (param, words[1]) != ("hystart_detect", "3"):
                raise self._unsupported(
                    line, f"shell command {raw!r}: allowed: hystart_detect 3 (ACK train and "
                    "delay, the default the profile's HyStart models)",
                )  # fmt: skip
            self.settings.notes.append(f"{raw}: HyStart's two detections, as modelled")
        elif name == "ethtool":
            self.settings.notes.append(
                f"{' '.join(words)}: a line of several MSS matches MSS-sized segments anyway"
            )
        elif name.endswith(".sh"):
            self._file(words[0], line)
        else:
            raise self._unsupported(
                line,
                f"shell command {raw!r} is not modelled; allowed: sysctl, "
                "set_sysctls.py, a .sh file of those, tc qdisc ... pfifo, ethtool, "
                "ip tcp_metrics flush",
            )

    def _file(self, name: str, line: int) -> None:
        beside = Path(self.path).parent / name
        if beside.is_file():
            text = beside.read_text(errors="replace")
            self.settings.notes.append(f"{name}: read from {beside}")
        elif Path(name).name == "defaults.sh":
            text = DEFAULTS_SH
            self.settings.notes.append(f"{name}: not found, packetdrill's defaults.sh taken")
        else:
            raise ScriptError(self.path, line, f"shell file {name} not found beside the script")
        for n, raw in enumerate(text.splitlines(), 1):
            raw = raw.strip()
            if raw and not raw.startswith("#"):
                try:
                    self.run(raw, line)
                except ScriptError as e:
                    raise ScriptError(
                        self.path, line, f"{name} line {n}: {e.message}", unsupported=e.unsupported
                    ) from None

    def sysctl(self, assignment: str, line: int) -> None:
        """Read one ``net.ipv4.NAME=VALUE`` (or net/ipv4/NAME=VALUE)."""
        key, eq, value = assignment.partition("=")
        key = key.replace("/", ".")
        if not eq:
            raise ScriptError(self.path, line, f"sysctl {assignment!r}: expected NAME=VALUE")
        name = key.removeprefix("net.ipv4.")
        self.settings.sysctls[name] = value
        if name in SETTINGS:
            try:
                self.settings.tcp.update(SETTINGS[name](value))
            except ValueError as e:
                msg = str(e) if "allowed" in str(e) else "allowed: a number"
                raise self._unsupported(line, f"sysctl {key}={value}: {msg}") from None
        elif name in FIXED:
            values, why = FIXED[name]
            if values is not None and value not in values:
                raise self._unsupported(
                    line,
                    f"sysctl {key}={value} is not modelled; allowed: {' or '.join(values)} ({why})",
                )
        else:
            raise self._unsupported(
                line,
                f"sysctl {key} is not modelled; allowed: {', '.join(sorted([*SETTINGS, *FIXED]))}",
            )


def settings_for(script: Any) -> Settings:
    """The settings a parsed script's init, timed and cleanup commands ask for (timed
    commands at their time are read here too: none of those modelled changes mid-run)."""
    shell = Shell(script.path)
    if script.init is not None:
        shell.run(script.init[1].text, script.init[0])
    for event in script.events:
        if type(event.action).__name__ == "Command":
            shell.run(event.action.text, event.line)
    if script.cleanup is not None:
        shell.run(script.cleanup[1].text, script.cleanup[0])
    return shell.settings
