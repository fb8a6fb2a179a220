"""What the testbed will do for a scenario: `plan(scenario)` maps a scenario (the same TOML
`tcplab run` takes) onto a `TestbedConfig`, reading the core's resolved view of it
(`Scenario.describe()`): the application's TCP settings after the profile is applied, and its
data and ACK paths hop by hop. What the testbed cannot emulate is refused, naming the field
(`UnsupportedScenario`); `tcplab.testbed.result` runs the plan and returns the run in the
simulator's schema.

The mapping (`TestbedPlan.approximations` lists, per scenario, what it could not carry exactly):

- one application, an FTP-style download (the testbed's client fetches N bytes from its server);
  anything else is refused with the field named (`UnsupportedScenario`, a TestbedConfigError);
- the data path (server -> client) becomes the forwarder's ``s2c`` direction and the ACK path
  ``c2s``: delays are summed per direction; the slowest data hop sets the rate (both ways) and
  the queue; the forwarder serialises a frame once, so the store-and-forward time of the other
  hops (one full data frame per data hop, one ACK frame per ACK hop) is added to the delay;
- error models: the one errored hop per direction is carried over as is (PER, BER,
  Gilbert-Elliott, list); PER-only or BER-only (same framing) hops are combined exactly;
- TCP: congestion control per socket; SACK, timestamps, window scaling, RACK-TLP, F-RTO,
  dupthresh (tcp_reordering), max RTO and retries as per-namespace sysctls; initial window and
  min RTO as route options; the receive buffer as the forwarder's window clamp (what the sender
  is offered); Nagle through the testbed profile. What Linux cannot be told (initial RTO, clock
  granularity, delayed-ACK timing, the per-ACK growth rule, no limited transmit, no PRR) is
  listed, naming the field.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tcplab.path import HEADERS, TIMESTAMP_OPTION, AppPath, LinkDirection, combined

from .config import PROFILES, TestbedConfig
from .errors import TestbedConfigError

if TYPE_CHECKING:
    from tcplab.api import Scenario

__all__ = [
    "CONGESTION_CONTROLS",
    "TestbedPlan",
    "UnsupportedScenario",
    "check_congestion_control",
    "describe_plan",
    "plan",
    "window_limited_time",
]

#: Sizes at or above this are "unlimited" in the core (u64::MAX / 4).
_UNLIMITED = 2**60
#: Simulator congestion controls -> Linux TCP_CONGESTION (and a note when approximated).
CONGESTION_CONTROLS: dict[str, tuple[str, str]] = {
    "reno": ("reno", ""),
    "newreno": ("reno", "Linux 'reno' (NewReno recovery is Linux's loss recovery, not its CC)"),
    "cubic": ("cubic", ""),
    "bbr": ("bbr", "Linux's bbr is BBRv1 as in the simulator, with Linux's pacing details"),
    "vegas": ("vegas", ""),
    "veno": ("veno", ""),
    "westwood": ("westwood", "Linux's westwood is Westwood+ (one bandwidth sample per RTT)"),
    "westwood+": ("westwood", ""),
    "westwood_plus": ("westwood", ""),
}
SYSCTL_DIR = Path("/proc/sys")


class UnsupportedScenario(TestbedConfigError):
    """The scenario has something the testbed cannot express; `field` names it."""

    def __init__(self, field_: str, message: str) -> None:
        super().__init__(f"{field_}: {message}")
        self.field = field_


@dataclass
class TestbedPlan:
    """A scenario mapped onto the testbed: the config, the link whose counters the forwarder's
    stand for, and what is approximated."""

    __test__ = False  # not a pytest test class

    config: TestbedConfig
    app: dict[str, Any]  # the application as Scenario.describe() gives it
    link: str  # the data-path link the forwarder's counters are reported under
    data_dir: str  # "ab" or "ba": the direction of `link` that carries the data
    rtt_s: float  # RTT of a full data segment and its ACK on the scenario's path (no queueing)
    approximations: list[str] = field(default_factory=list)
    scenario_name: str = ""

    @property
    def ack_dir(self) -> str:
        return "ba" if self.data_dir == "ab" else "ab"

    def to_dict(self) -> dict[str, Any]:
        return {
            "config": self.config.to_dict(),
            "app": self.app["name"],
            "link": self.link,
            "data_dir": self.data_dir,
            "rtt_s": self.rtt_s,
            "approximations": list(self.approximations),
        }


# ----------------------------------------------------------------------------------------------
# The mapping


def _queue(q: Any, where: str) -> tuple[int | None, str]:
    if q == "unlimited" or q is None:
        return None, "packets"
    if isinstance(q, Mapping) and len(q) == 1:
        ((unit, n),) = q.items()
        if unit in ("packets", "bytes"):
            return int(n), unit
    raise UnsupportedScenario(f"{where}.queue", f"{q!r}: only drop-tail queues map to the testbed")


def _error_model(e: Mapping[str, Any], where: str) -> dict[str, Any]:
    """The simulator's error model (as describe() writes it) in the forwarder's terms."""
    m = e.get("model", "none")
    if m == "none":
        return {"model": "none"}
    if m == "per":
        return {"model": "per", "p": float(e["p"])}
    if m == "ber":
        return {"model": "ber", "ber": float(e["ber"])}
    if m == "gilbert-elliott":
        return {
            "model": "gilbert-elliott",
            "good": dict(e["good"]),
            "bad": dict(e["bad"]),
            "p_good_to_bad": float(e["p_gb"]),
            "p_bad_to_good": float(e["p_bg"]),
            "start_bad": bool(e.get("start_bad", False)),
        }
    if m == "list":
        return {
            "model": "list",
            "frames": [int(x) for x in e.get("frames", [])],
            "segments": [[int(s["seq"]), int(s["tx"])] for s in e.get("segments", [])],
        }
    raise UnsupportedScenario(f"{where}.error", f"model {m!r} has no testbed counterpart")


def _path_error(hops: list[LinkDirection], notes: list[str]) -> tuple[dict, LinkDirection | None]:
    """One error model for a direction of the testbed, and the hop it came from (or None)."""
    errored = [h for h in hops if h.error_model != "none"]
    if not errored:
        return {"model": "none"}, None
    if len(errored) == 1:
        return _error_model(errored[0].error, errored[0].field), errored[0]
    kinds = {h.error_model for h in errored}
    names = ", ".join(h.field for h in errored)
    framings = {h.framing.name for h in errored}
    if kinds == {"per"}:
        p = combined(float(h.error["p"]) for h in errored)
        notes.append(f"{names}: PER combined into one, 1 - prod(1 - p) = {p:.6g}")
        return {"model": "per", "p": p}, errored[0]
    if kinds == {"ber"} and len(framings) == 1:
        # Bits that cross every hop: a bit survives all of them with prod(1 - ber).
        ber = combined(float(h.error["ber"]) for h in errored)
        notes.append(f"{names}: BER combined into one, 1 - prod(1 - ber) = {ber:.6g}")
        return {"model": "ber", "ber": ber}, errored[0]
    raise UnsupportedScenario(
        f"{errored[1].field}.error",
        f"the testbed has one error model per direction, and {names} carry {sorted(kinds)} "
        "models that do not combine into one (only PER with PER, or BER with BER on the same "
        "framing, do)",
    )


def _sim_stream(hops: list[LinkDirection], notes: list[str], side: str) -> str | None:
    """The simulator's random-stream id of the one errored hop of a direction, so that the
    forwarder draws the same uniform number for the k-th frame as the simulator does (common
    random numbers: a testbed run and a simulated run of the same seed lose the same frames as
    long as they send the same frames). None where several hops' models were combined."""
    errored = [h for h in hops if h.error_model != "none"]
    if len(errored) == 1:
        return f"link:{errored[0].link}:{errored[0].dir}"
    if errored:
        notes.append(
            f"{side}: several hops' error models combined into one, so the testbed's loss draws "
            "are not the simulator's (seeds are not paired)"
        )
    return None


def _have_sysctl(name: str) -> bool:
    return (SYSCTL_DIR / name.replace(".", "/")).exists()


# The [tcp] settings the planner applies as kernel settings or explains one by one above; every
# other one (a rule of the simulator's profiles) is compared with the linux profile's value, so
# that a new profile rule is noted without a line here.
_PLANNED = frozenset(
    "profile congestion_control loss_recovery cc_params lr_params sack timestamps window_scaling "
    "dupthresh max_retries prr rto_initial_s rto_min_s rto_max_s clock_granularity_s "
    "delayed_ack delack_max_s delack_segments ca_rule limited_transmit cwnd_validation "
    "ssthresh_from ssthresh_every_timeout rto_restart syn_loss rto_keeps_recovery_ssthresh ns2 "
    "recover_guard_all quick_acks nagle nagle_minshall cwnd_packets initial_ssthresh "
    "initial_cwnd rcv_buf rcv_buf_max snd_buf rcv_read_rate_Bps mss".split()
)


@functools.cache
def _linux_rules() -> dict[str, Any]:
    """The linux profile's resolved [tcp] settings: what the kernel does, as the simulator
    models it (`tcp/profile.rs`)."""
    from tcplab.api import Scenario

    two_hosts = {
        "tcp": {"profile": "linux"},
        "nodes": [{"name": "a"}, {"name": "b"}],
        "links": [{"name": "l", "a": "a", "b": "b", "rate": "1Mbps"}],
        "apps": [{"name": "x", "kind": "bulk", "client": "a", "server": "b", "size": "1kB"}],
    }
    return Scenario.from_dict(two_hosts).describe()["apps"][0]["tcp"]


def _other_rules(tcp: Mapping[str, Any], notes: list[str]) -> None:
    """A note for each rule the scenario sets otherwise than the kernel behaves."""
    linux = _linux_rules()
    for key in sorted(set(tcp) - _PLANNED):
        if key in linux and tcp[key] != linux[key]:
            shown = json.dumps(tcp[key])
            notes.append(
                f"tcp.{key.removesuffix('_s')} = {shown}: not applied; Linux behaves as the "
                f"linux profile's {json.dumps(linux[key])} (tcplab schema describes the rule)"
            )


def _tcp_stack(
    tcp: Mapping[str, Any], have_sysctl: Callable[[str], bool], notes: list[str]
) -> dict[str, Any]:
    """Kernel settings for the scenario's resolved TCP settings."""
    t = "tcp"
    sysctls: dict[str, int] = {
        "net.ipv4.tcp_sack": int(bool(tcp["sack"])),
        "net.ipv4.tcp_dsack": int(bool(tcp["sack"])),
        "net.ipv4.tcp_timestamps": int(bool(tcp["timestamps"])),
        "net.ipv4.tcp_window_scaling": int(bool(tcp["window_scaling"])),
        "net.ipv4.tcp_ecn": 0,
        "net.ipv4.tcp_reordering": int(tcp["dupthresh"]),
        "net.ipv4.tcp_retries2": int(tcp["max_retries"]),
    }
    # Congestion control, per socket.
    cc_name = str(tcp["congestion_control"])
    if cc_name not in CONGESTION_CONTROLS:
        raise UnsupportedScenario(
            f"{t}.congestion_control",
            f"{cc_name!r} has no Linux counterpart; the testbed runs "
            f"{', '.join(sorted(CONGESTION_CONTROLS))}",
        )
    cc, cc_note = CONGESTION_CONTROLS[cc_name]
    if cc_note:
        notes.append(f"{t}.congestion_control = {cc_name!r}: {cc_note}")
    # Loss recovery.
    lr = str(tcp["loss_recovery"])
    if lr in ("rack-tlp", "rack"):
        sysctls.update(
            {"net.ipv4.tcp_recovery": 1, "net.ipv4.tcp_early_retrans": 3, "net.ipv4.tcp_frto": 2}
        )
        notes.append(
            f"{t}.loss_recovery = {lr!r}: Linux RACK-TLP, with F-RTO (RFC 5682) on as Linux "
            "ships it (the simulator has no F-RTO)"
        )
        if not tcp["sack"]:
            notes.append(f"{t}.loss_recovery = {lr!r} with sack = false: RACK without SACK")
    elif lr in ("dupack", "rfc5681", "newreno", "sack"):
        sysctls.update(
            {"net.ipv4.tcp_recovery": 0, "net.ipv4.tcp_early_retrans": 0, "net.ipv4.tcp_frto": 0}
        )
        if tcp["sack"] and lr != "sack":
            notes.append(
                f"{t}.loss_recovery = {lr!r} with sack = true: Linux recovers with the SACK "
                "scoreboard whenever SACK is negotiated"
            )
        elif not tcp["sack"] and lr in ("dupack", "rfc5681"):
            notes.append(
                f"{t}.loss_recovery = {lr!r}: Linux without SACK recovers NewReno-style "
                "(RFC 6582 partial ACKs retransmit further holes), not one retransmission per "
                "recovery as RFC 5681"
            )
        elif lr == "sack" and not tcp["sack"]:
            notes.append(f"{t}.loss_recovery = 'sack' with sack = false: NewReno-style recovery")
    else:
        raise UnsupportedScenario(
            f"{t}.loss_recovery",
            f"{lr!r} has no Linux counterpart (dupack, newreno, sack, rack-tlp)",
        )
    if tcp.get("prr") is not True:
        notes.append(f"{t}.prr: Linux always reduces cwnd in recovery with PRR (RFC 6937)")
    # Timers.
    if not math.isclose(float(tcp["rto_initial_s"]), 1.0):
        notes.append(
            f"{t}.rto_initial = {tcp['rto_initial_s']:g} s: Linux's initial RTO is 1 s "
            "(TCP_TIMEOUT_INIT), not settable"
        )
    rto_min = float(tcp["rto_min_s"])
    if not 0.001 <= rto_min <= 120:
        raise UnsupportedScenario(f"{t}.rto_min", f"{rto_min:g} s: Linux takes 1 ms to 120 s")
    rto_max = float(tcp["rto_max_s"])
    if not math.isclose(rto_max, 120.0):
        if have_sysctl("net.ipv4.tcp_rto_max_ms") and 1.0 <= rto_max <= 120.0:
            sysctls["net.ipv4.tcp_rto_max_ms"] = round(rto_max * 1000)
        else:
            notes.append(
                f"{t}.rto_max = {rto_max:g} s: Linux's maximum RTO stays 120 s (this kernel has "
                "no net.ipv4.tcp_rto_max_ms, or the value is outside 1..120 s)"
            )
    g = float(tcp["clock_granularity_s"])
    if g > 0.004 and not math.isclose(g, rto_min):
        notes.append(
            f"{t}.clock_granularity = {g:g} s: Linux computes RTO = SRTT + max(4 RTTVAR, "
            "rto_min) on a fine clock; the granularity term is not reproduced"
        )
    # ACKs and window growth.
    linux_delack = (
        tcp["delayed_ack"]
        and math.isclose(float(tcp["delack_max_s"]), 0.04)
        and int(tcp["delack_segments"]) == 2
    )
    if not linux_delack:
        what = (
            f"max {tcp['delack_max_s']:g} s, every {tcp['delack_segments']} segments"
            if tcp["delayed_ack"]
            else "off"
        )
        notes.append(
            f"{t}.delayed_ack ({what}): Linux delays ACKs adaptively (40 ms minimum ACK "
            "timeout, quick ACKs at the start, an ACK at least every 2 full segments)"
        )
    if tcp["ca_rule"] == "per_ack":
        notes.append(
            f"{t}.ca_rule = 'per_ack': Linux grows cwnd by the segments acknowledged (byte "
            "counting), faster than MSS*MSS/cwnd per ACK when ACKs are delayed"
        )
    if not tcp["limited_transmit"]:
        notes.append(
            f"{t}.limited_transmit = false: Linux always sends new data on the first duplicate "
            "ACKs (RFC 3042)"
        )
    if not tcp.get("cwnd_validation", True):
        notes.append(
            f"{t}.cwnd_validation = false: Linux grows cwnd only while the flight uses it "
            "(tcp_is_cwnd_limited; in slow start up to twice the largest flight)"
        )
    if tcp.get("ssthresh_from", "cwnd") != "cwnd":
        notes.append(
            f"{t}.ssthresh_from = '{tcp['ssthresh_from']}': Linux's reno and cubic reduce "
            "cwnd, not the flight, at a congestion event (tcp_reno_ssthresh, "
            "cubictcp_recalc_ssthresh)"
        )
    if tcp.get("ssthresh_every_timeout"):
        notes.append(
            f"{t}.ssthresh_every_timeout = true: Linux lowers ssthresh once per loss episode "
            "(tcp_enter_loss)"
        )
    if tcp.get("rto_restart", "head") != "head":
        notes.append(
            f"{t}.rto_restart = '{tcp['rto_restart']}': Linux re-arms the retransmission timer "
            "when it resends the head of the retransmit queue (tcp_xmit_retransmit_queue)"
        )
    if tcp.get("syn_loss", "one_after_two") != "one_after_two":
        notes.append(
            f"{t}.syn_loss = '{tcp['syn_loss']}': Linux starts from one segment only after "
            "more than one SYN or SYN-ACK retransmission (tcp_init_transfer)"
        )
    if not tcp.get("rto_keeps_recovery_ssthresh", True):
        notes.append(
            f"{t}.rto_keeps_recovery_ssthresh = false: a Linux timeout inside fast recovery "
            "keeps the ssthresh the fast retransmit set (tcp_enter_loss)"
        )
    ns2_rules = [k for k, v in (tcp.get("ns2") or {}).items() if v is True]
    if ns2_rules:
        notes.append(
            f"{t}.ns2 ({', '.join(ns2_rules)}): ns-2.35's own rules; the Linux kernel follows "
            "none of them"
        )
    if tcp.get("recover_guard_all"):
        notes.append(
            f"{t}.recover_guard_all = true: Linux has no ns-2 bug_fix_ guard; its recovery "
            "state machine decides when a new recovery may start"
        )
    if tcp.get("loss_recovery") == "sack" and (tcp.get("lr_params") or {}).get("rescue"):
        notes.append(f"{t}.lr_params.rescue = true: Linux sends no RFC 6675 rescue retransmission")
    if int(tcp.get("quick_acks", 16)) != 16:
        notes.append(
            f"{t}.quick_acks = {tcp['quick_acks']}: Linux acknowledges the first segments of a "
            "connection at once (tcp_incr_quickack, up to 16 ACKs)"
        )
    if not tcp.get("nagle_minshall", True) and tcp.get("nagle", True):
        notes.append(
            f"{t}.nagle_minshall = false: Linux's Nagle holds a short segment only while an "
            "earlier short one is unacknowledged (tcp_minshall_check)"
        )
    if not tcp.get("cwnd_packets", True):
        notes.append(f"{t}.cwnd_packets = false: Linux counts cwnd and ssthresh in whole packets")
    linux_cubic = {
        "hystart": True,
        "alpha_to_one": False,
        "target_min_rtt": True,
        "unknown_max_growth": True,
        "packets": True,
    }
    for k, want in linux_cubic.items():
        v = (tcp.get("cc_params") or {}).get(k)
        if tcp.get("congestion_control") == "cubic" and v is not None and v != want:
            notes.append(
                f"{t}.cc_params.{k} = {str(v).lower()}: Linux's tcp_cubic.c has "
                f"{k} = {str(want).lower()}"
            )
    if tcp.get("initial_ssthresh") is not None and tcp["initial_ssthresh"] < _UNLIMITED:
        notes.append(f"{t}.initial_ssthresh: not applied (Linux starts unlimited)")
    # Windows and buffers.
    rcv_buf = int(tcp["rcv_buf"])
    rcv_buf_max = int(tcp.get("rcv_buf_max") or rcv_buf)
    clamp = None
    if rcv_buf_max > rcv_buf:
        # Autotuning: the kernel's own, from the same start and bound (tcp_rmem is per network
        # namespace); no clamp, and no SO_RCVBUF, which would lock the buffer.
        if not rcv_buf_max < 2**31:
            raise UnsupportedScenario(
                f"{t}.rcv_buf_max", f"{rcv_buf_max}: tcp_rmem takes up to 2 GiB - 1"
            )
        sysctls["net.ipv4.tcp_rmem"] = f"4096 {rcv_buf} {rcv_buf_max}"
        sysctls["net.ipv4.tcp_moderate_rcvbuf"] = 1
        notes.append(
            f"{t}.rcv_buf = {rcv_buf}, rcv_buf_max = {rcv_buf_max}: the kernel's buffers "
            "(tcp_rmem); it offers the share of its buffer that it expects payload to take "
            "(tcp_win_from_space, about half at first), the simulator the whole buffer"
        )
    elif rcv_buf < _UNLIMITED:
        clamp = rcv_buf if tcp["window_scaling"] else min(rcv_buf, 65535)
        if not 1 <= clamp < 2**30:
            raise UnsupportedScenario(f"{t}.rcv_buf", f"{rcv_buf}: the clamp takes 1 B to 1 GiB")
        if tcp["window_scaling"] and clamp <= 65535:
            # The forwarder clamps the 16-bit window field, in units of 2^wscale: with Linux's
            # usual shift (7 to 10) 8760 B would become 8704 or 8192 B. A window that fits in
            # 16 bits needs no scaling (a Linux receiver with so small a buffer negotiates
            # shift 0), so scaling goes off and the clamp is exact.
            sysctls["net.ipv4.tcp_window_scaling"] = 0
            notes.append(
                f"{t}.window_scaling = true: off on the testbed, as the {clamp}-byte window "
                "fits in 16 bits (a Linux receiver with that buffer would scale by 2^0); the "
                "forwarder's clamp is then exact"
            )
        elif tcp["window_scaling"] and clamp % (1 << 14):
            notes.append(
                f"{t}.rcv_buf = {rcv_buf}: the forwarder clamps the window field in units of "
                "the receiver's 2^wscale, so the sender may be offered up to 2^wscale - 1 bytes "
                "less (max_rcv_window_seen says what it saw)"
            )
    if tcp.get("rcv_read_rate_Bps") is not None:
        raise UnsupportedScenario(
            f"{t}.rcv_read_rate",
            "the testbed's client reads as fast as it can; a paced receiver is not supported",
        )
    snd_buf = int(tcp.get("snd_buf") or _UNLIMITED)
    if snd_buf < _UNLIMITED:
        notes.append(f"{t}.snd_buf = {snd_buf} B: not applied (Linux autotunes its send buffer)")
    icw = int(tcp["initial_cwnd"])
    if not 1 <= icw <= 1000:
        raise UnsupportedScenario(f"{t}.initial_cwnd", f"{icw}: Linux routes take 1..1000")
    # The testbed profile: the scenario's when the testbed has it (socket options such as
    # TCP_NODELAY come from it), else linux; every sysctl above overrides the profile's.
    prof_name = str(tcp.get("profile") or "linux")
    profile = prof_name if prof_name in PROFILES else "linux"
    nodelay = bool(PROFILES[profile]["socket"].get("nodelay"))
    if nodelay == bool(tcp["nagle"]):
        notes.append(
            f"{t}.nagle = {str(tcp['nagle']).lower()}: the testbed's {profile!r} profile has "
            f"Nagle {'off' if nodelay else 'on'} (it only matters for the last partial segment)"
        )
    _other_rules(tcp, notes)
    return {
        "profile": profile,
        "sysctls": sysctls,
        "initcwnd": icw,
        "rto_min_s": rto_min,
        "rcv_window_clamp": clamp,
        "congestion_control": cc,
    }


def plan(
    scenario: Scenario,
    *,
    seed: int | None = None,
    time_budget_s: float | None = None,
    have_sysctl: Callable[[str], bool] | None = None,
    **overrides: Any,
) -> TestbedPlan:
    """Map `scenario` onto the testbed (pure: no root needed, nothing is run).

    `seed` overrides the scenario's; `time_budget_s` (wall time) defaults to the scenario's
    stop time plus 60 s; `overrides` set further TestbedConfig fields (pcap_path, ...).
    `have_sysctl(name)` says whether the kernel has a sysctl (default: looks in /proc/sys).
    Raises `UnsupportedScenario` naming the field the testbed cannot express."""
    desc = scenario.describe()
    apps = desc["apps"]
    if len(apps) != 1:
        names = [a["name"] for a in apps]
        raise UnsupportedScenario(
            "apps", f"the testbed runs exactly one application; this scenario has {names}"
        )
    app = apps[0]
    kind = app["app"]["kind"]
    if kind != "ftp":
        raise UnsupportedScenario(
            "apps[0].kind",
            f"{kind!r}: the testbed runs an FTP-style download (kind = 'ftp') only",
        )
    size = app["app"].get("size")
    if not isinstance(size, int) or size < 1:
        raise UnsupportedScenario("apps[0].size", f"{size!r}: needs a positive size in bytes")
    path = AppPath.of(app)
    data, ack = list(path.data), list(path.ack)
    if not data or not ack:
        raise UnsupportedScenario("links", "the client and the server must be joined by links")
    notes: list[str] = []
    tcp = app["tcp"]

    # Rate, queue, framing, MTU: the bottleneck hop of the data path (every link has a rate:
    # the core refuses one without).
    bott = min(data, key=lambda h: h.rate_bps)
    rate = bott.rate_bps
    ack_bott = min(ack, key=lambda h: h.rate_bps)
    if ack_bott.rate_bps != rate:
        notes.append(
            f"{ack_bott.field}.rate: the ACK path's bottleneck "
            f"({ack_bott.rate_bps:g} bit/s) differs from the data path's; the testbed uses "
            f"{rate:g} bit/s both ways"
        )
    qlimit, qunit = _queue(bott.queue, bott.field)
    for hop in data + ack:
        kind = hop.aqm.get("kind", "none")
        if kind != "none":
            raise UnsupportedScenario(
                f"{hop.field}.aqm",
                f"{kind!r}: the testbed's forwarder queues drop-tail only (use kind = 'none')",
            )
    for i, node in enumerate(scenario.to_dict(normalized=True)["nodes"]):
        if node.get("rules"):
            raise UnsupportedScenario(
                f"nodes[{i}].rules",
                f"{node['name']!r} filters packets: the testbed's forwarder has no packet filter",
            )
    err_s2c, err_hop = _path_error(data, notes)
    err_c2s, _ = _path_error(ack, notes)
    fhop = err_hop or bott
    framing = fhop.framing.name
    if any(h.framing.name != framing for h in data + ack):
        notes.append(
            f"{fhop.field}.framing: the path mixes framings; the testbed uses {framing!r} "
            "(for the rate and the bytes exposed to errors) on both directions"
        )
    mtu = min(h.mtu for h in data + ack)
    if not 576 <= mtu <= 9000:
        raise UnsupportedScenario(f"{bott.field}.mtu", f"{mtu}: the testbed takes 576..9000")
    mss = path.mss_bytes
    if not 88 <= mss <= mtu - HEADERS:
        raise UnsupportedScenario("tcp.mss", f"{mss}: the testbed takes 88..{mtu - HEADERS}")
    data_ip, ack_ip = path.data_ip_bytes, path.ack_ip_bytes

    # Delays: propagation summed per direction, plus the store-and-forward time of the hops
    # the forwarder does not serialise on (it serialises once, at the testbed's rate).
    def extra(hops: list[LinkDirection], ip_len: int) -> float:
        ref = fhop.framing.wire_bytes(ip_len) * 8.0 / rate
        return max(0.0, sum(h.serialisation_s(ip_len) for h in hops) - ref)

    x_data, x_ack = extra(data, data_ip), extra(ack, ack_ip)
    # A router's processing delay is a pure delay: on the testbed it joins the path's latency.
    d_s2c = sum(h.latency_s for h in data) + x_data
    d_c2s = sum(h.latency_s for h in ack) + x_ack
    if len(data) > 1 or len(ack) > 1:
        nodes = [data[0].src, *(h.dst for h in data)]
        notes.append(
            f"links: the data path has {len(data)} hops ({' -> '.join(nodes)}), the "
            f"ACK path {len(ack)}; the testbed has one forwarder: delays summed, the bottleneck "
            f"{bott.field} serialises, and the other hops' store-and-forward time "
            f"({x_data * 1e3:.3f} ms per full data frame, {x_ack * 1e3:.3f} ms per ACK) is "
            "added to the delay (exact for full-size frames and pure ACKs)"
        )
    for h in data + ack:
        if h is not bott and h.queue != "unlimited":
            notes.append(f"{h.field}.queue: only the bottleneck's queue is emulated")
    if ack_bott.queue != bott.queue:
        notes.append(
            f"{ack_bott.field}.queue: the testbed uses the data bottleneck's queue "
            f"({bott.queue}) on both directions"
        )
    if float(app.get("start_s") or 0) > 0:
        notes.append(
            f"apps[0].start = {app['start_s']:g} s: the testbed starts at once; times count "
            "from the connection's start either way"
        )

    stack = _tcp_stack(tcp, have_sysctl or _have_sysctl, notes)
    budget = time_budget_s
    if budget is None:
        budget = min(float(desc.get("stop_time_s") or 3600.0) + 60.0, 86400.0)
    # The link whose counters the forwarder's stand for: the errored data hop, else the
    # bottleneck.
    link, data_dir = fhop.link, fhop.dir
    cfg = TestbedConfig(
        size_bytes=size,
        mss=mss,
        mtu=mtu,
        rate_bps=rate,
        delay_c2s_s=d_c2s,
        delay_s2c_s=d_s2c,
        framing=framing,
        queue_limit=qlimit,
        queue_unit=qunit,
        error_c2s=err_c2s,
        error_s2c=err_s2c,
        seed=int(desc["seed"] if seed is None else seed),
        congestion_control=stack["congestion_control"],
        profile=stack["profile"],
        sysctls=stack["sysctls"],
        initcwnd=stack["initcwnd"],
        rto_min_s=stack["rto_min_s"],
        rcv_window_clamp=stack["rcv_window_clamp"],
        time_budget_s=float(budget),
        stream_prefix=f"link:{link}",
        stream_c2s=_sim_stream(ack, notes, "ACK path"),
        stream_s2c=_sim_stream(data, notes, "data path"),
    )
    for k, v in overrides.items():
        if not hasattr(cfg, k):
            raise TypeError(f"TestbedConfig has no field {k!r}")
        setattr(cfg, k, v)
    cfg.validate()
    rtt = sum(h.latency_s + h.serialisation_s(data_ip) for h in data) + sum(
        h.latency_s + h.serialisation_s(ack_ip) for h in ack
    )
    return TestbedPlan(
        config=cfg,
        app=app,
        link=link,
        data_dir=data_dir,
        rtt_s=rtt,
        approximations=notes,
        scenario_name=str(desc.get("name") or ""),
    )


def window_limited_time(p: TestbedPlan) -> float:
    """size x RTT / rwnd: the download time when the receive window binds (the scenario's RTT
    for a full segment and its ACK, no queueing), or size over the line rate if that binds."""
    cfg = p.config
    rmem = str(cfg.sysctls.get("net.ipv4.tcp_rmem", "")).split()
    rwnd = cfg.rcv_window_clamp or (int(rmem[2]) if len(rmem) == 3 else 65535)
    t_win = cfg.size_bytes * p.rtt_s / rwnd
    if not cfg.rate_bps:
        return t_win
    payload = cfg.mss - (TIMESTAMP_OPTION if cfg.sysctls.get("net.ipv4.tcp_timestamps") else 0)
    hop = next(h for h in AppPath.of(p.app).data if (h.link, h.dir) == (p.link, p.data_dir))
    wire = hop.wire_bytes(cfg.mss + HEADERS)
    return max(t_win, cfg.size_bytes / (cfg.rate_bps / 8 * payload / wire))


def check_congestion_control(cc: str) -> None:
    """Refuse, naming the field, a congestion control this kernel does not offer."""
    path = SYSCTL_DIR / "net/ipv4/tcp_available_congestion_control"
    try:
        avail = path.read_text().split()
    except OSError:
        return
    if cc not in avail:
        raise UnsupportedScenario(
            "tcp.congestion_control",
            f"Linux {cc!r} is not available in this kernel (available: {' '.join(avail)}); "
            f"try `modprobe tcp_{cc}`",
        )


def describe_plan(p: TestbedPlan) -> Iterable[str]:
    """Lines saying what the testbed will run, for people."""
    c = p.config
    rate = "unlimited" if not c.rate_bps else f"{c.rate_bps / 1e6:g} Mbit/s"
    yield (
        f"testbed: {c.size_bytes} B download, {rate}, one-way delay {c.delay_s2c_s * 1e3:.3f} ms "
        f"(data) / {c.delay_c2s_s * 1e3:.3f} ms (ACKs), {c.framing} framing, data-direction "
        f"errors {c.error_s2c}, Linux {c.congestion_control}, window clamp "
        f"{c.rcv_window_clamp or 'none'}, seed {c.seed}"
    )
    for n in p.approximations:
        yield f"  approximated: {n}"
