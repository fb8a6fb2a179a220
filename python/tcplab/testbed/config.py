"""What a testbed run is asked to do: `TestbedConfig`, the kernel stack profiles, and the
translation of link settings into the forwarder's JSON configuration.

Directions are named from the client's side: ``c2s`` carries the request and the ACKs, ``s2c``
carries the data. In the forwarder, side A faces the client, so ``c2s`` is its ``a_to_b``.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import Any

from .errors import TestbedConfigError

FRAMINGS = ("ethernet", "ppp", "none")
QUEUE_UNITS = ("packets", "bytes")
ERROR_MODELS = ("none", "per", "ber", "gilbert-elliott", "list")

# Stack profiles: per-namespace sysctls (applied to client and server alike), route options
# (`ip route ... initcwnd N rto_min T`), socket options, and what Linux cannot express.
# The values cite where they come from; everything is overridable from TestbedConfig.
PROFILES: dict[str, dict[str, Any]] = {
    # Mainline Linux as shipped: SACK, timestamps, window scaling, RACK-TLP, F-RTO, PRR, IW10
    # and min RTO 200 ms (kernel built-ins). The congestion control is per socket
    # (TestbedConfig.congestion_control; set congestion_control="cubic" for Linux's default).
    "linux": {
        "sysctls": {
            "net.ipv4.tcp_sack": 1,
            "net.ipv4.tcp_timestamps": 1,
            "net.ipv4.tcp_window_scaling": 1,
            "net.ipv4.tcp_recovery": 1,
            "net.ipv4.tcp_early_retrans": 3,
            "net.ipv4.tcp_frto": 2,
        },
        "route": {},
        "socket": {},
        "not_expressible": [],
    },
    # RFC 5681 congestion control with RFC 6298 timers, as close as Linux gets: Reno, no
    # SACK (so recovery is NewReno, RFC 6582), no RACK/TLP/F-RTO, IW 3 segments for a 1460-byte
    # MSS (RFC 5681 section 3.1: min(4 MSS, max(2 MSS, 4380))), min RTO 1 s (RFC 6298 2.4).
    "rfc": {
        "sysctls": {
            "net.ipv4.tcp_sack": 0,
            "net.ipv4.tcp_dsack": 0,
            "net.ipv4.tcp_timestamps": 1,
            "net.ipv4.tcp_window_scaling": 1,
            "net.ipv4.tcp_recovery": 0,
            "net.ipv4.tcp_early_retrans": 0,
            "net.ipv4.tcp_frto": 0,
        },
        "route": {"initcwnd": 3, "rto_min_ms": 1000},
        "socket": {},
        "not_expressible": [
            "PRR (RFC 6937) is always on in Linux",
            "initial RTO is 1 s (RFC 6298) - Linux's built-in, not settable",
        ],
    },
    # Riverbed Modeler defaults, Table 2 of Sarkar et al. 2022 (seed 000): Reno, no SACK, no
    # timestamps, no window scaling, slow-start initial count 2 MSS, min RTO 1 s, Nagle off,
    # receive buffer 8760 bytes (set rcv_window_clamp=8760: the forwarder clamps the window).
    "riverbed": {
        "sysctls": {
            "net.ipv4.tcp_sack": 0,
            "net.ipv4.tcp_dsack": 0,
            "net.ipv4.tcp_timestamps": 0,
            "net.ipv4.tcp_window_scaling": 0,
            "net.ipv4.tcp_recovery": 0,
            "net.ipv4.tcp_early_retrans": 0,
            "net.ipv4.tcp_frto": 0,
            "net.ipv4.tcp_ecn": 0,
        },
        "route": {"initcwnd": 2, "rto_min_ms": 1000},
        "socket": {"nodelay": True},
        "not_expressible": [
            "initial RTO 3 s (Linux: 1 s)",
            "maximum RTO 64 s (Linux: 120 s)",
            "timer granularity 0.5 s (Linux: jiffies)",
            "maximum ACK delay 0.2 s, every 2nd segment (Linux: adaptive delayed ACK, 40 ms min)",
            "PRR is always on in Linux",
            "Riverbed's 8760-byte receive buffer: emulated by the forwarder's window clamp",
        ],
    },
}

DEFAULT_FORWARDER_OPTIONS: dict[str, Any] = {"realtime_priority": 10}

_SYSCTL_NAME = re.compile(r"^net\.(ipv4|core|ipv6)\.[a-z0-9_.]+$")


@dataclass
class TestbedConfig:
    """One testbed run: an FTP-style download of `size_bytes` from server to client through
    the impairment forwarder. Times in seconds, rates in bits per second, sizes in bytes."""

    __test__ = False  # not a pytest test class

    size_bytes: int = 1_000_000
    # TCP_MAXSEG on both sockets (the MSS option sent); None = derived from the MTU. With
    # timestamps on, data segments carry 12 bytes less (1448 for 1460).
    mss: int | None = 1460
    mtu: int = 1500
    # Link rate, both directions; None = unlimited (no serialisation, no queue).
    rate_bps: float | None = 10e6
    delay_c2s_s: float = 0.020
    delay_s2c_s: float = 0.020
    framing: str = "ethernet"
    # Drop-tail queue behind the transmitter, per direction; None = unlimited.
    queue_limit: int | None = 100
    queue_unit: str = "packets"
    # Error models, per direction: {"model": "none"}, {"model": "per", "p": 0.01},
    # {"model": "ber", "ber": 1e-6}, {"model": "list", "frames": [...], "segments": [[seq, k]]},
    # {"model": "gilbert-elliott", "good": {"per": 0}, "bad": {"ber": 1e-4},
    #  "p_good_to_bad": 0.01, "p_bad_to_good": 0.1}.
    error_c2s: dict = field(default_factory=lambda: {"model": "none"})
    error_s2c: dict = field(default_factory=lambda: {"model": "none"})
    seed: int = 1
    # TCP_CONGESTION of both sockets (must be in tcp_available_congestion_control).
    congestion_control: str = "reno"
    profile: str = "linux"
    # sysctl overrides on top of the profile, e.g. {"net.ipv4.tcp_sack": 0}.
    sysctls: dict = field(default_factory=dict)
    initcwnd: int | None = None  # route option; None = the profile's (or the kernel's)
    rto_min_s: float | None = None  # route option; None = the profile's (or 200 ms)
    rcv_window_clamp: int | None = None  # the forwarder clamps advertised windows (bytes)
    pcap_path: str | None = None
    pcap_snaplen: int = 65535
    tcp_info_interval_s: float = 0.010
    time_budget_s: float = 300.0
    # Names: namespaces are tcplab-<run_id>-{client,router,server}; None = random.
    run_id: str | None = None
    # Random streams of the two directions are `<stream_prefix>:c2s` and `:s2c`, unless named
    # here: the simulator's id of the scenario's link direction (`link:<name>:<ab|ba>`), so that
    # the testbed and the simulator draw the same loss decisions frame by frame.
    stream_prefix: str = "testbed"
    stream_c2s: str | None = None
    stream_s2c: str | None = None
    # Extra forwarder settings (crates/tcplab-netem/src/config.rs): realtime_priority,
    # busy_poll_ns, cpu, batch, ... SCHED_FIFO keeps the endpoints' CPU use on a 2-core machine
    # from delaying departures by a scheduler slice.
    forwarder_options: dict = field(default_factory=lambda: dict(DEFAULT_FORWARDER_OPTIONS))
    netem_binary: str | None = None  # default: $TCPLAB_NETEM or <repo>/target/release
    keep_workdir: bool = False

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    def validate(self) -> None:
        """Raise TestbedConfigError naming the first bad field."""

        def bad(name: str, allowed: str) -> TestbedConfigError:
            return TestbedConfigError(f"TestbedConfig.{name} = {getattr(self, name)!r}: {allowed}")

        if not isinstance(self.size_bytes, int) or self.size_bytes < 1:
            raise bad("size_bytes", "must be a positive integer")
        if self.mss is not None and not 88 <= self.mss <= self.mtu - 40:
            raise bad("mss", f"must be in 88..{self.mtu - 40} (MTU - 40) or None")
        if not 576 <= self.mtu <= 9000:
            raise bad("mtu", "must be in 576..9000")
        if self.rate_bps is not None and not (
            math.isfinite(self.rate_bps) and 0 <= self.rate_bps <= 1e11
        ):
            raise bad("rate_bps", "must be in [0, 1e11] bits/s or None (unlimited)")
        for name in ("delay_c2s_s", "delay_s2c_s"):
            v = getattr(self, name)
            if not (math.isfinite(v) and 0 <= v <= 10):
                raise bad(name, "must be a one-way delay in [0, 10] seconds")
        if self.framing not in FRAMINGS:
            raise bad("framing", f"must be one of {FRAMINGS}")
        if self.queue_limit is not None and (
            not isinstance(self.queue_limit, int) or self.queue_limit < 0
        ):
            raise bad("queue_limit", "must be a non-negative integer or None (unlimited)")
        if self.queue_unit not in QUEUE_UNITS:
            raise bad("queue_unit", f"must be one of {QUEUE_UNITS}")
        for name in ("error_c2s", "error_s2c"):
            check_error_model(name, getattr(self, name))
        if not isinstance(self.seed, int) or not 0 <= self.seed < 2**64:
            raise bad("seed", "must be an integer in [0, 2^64)")
        if not re.fullmatch(r"[a-z0-9_]{1,15}", self.congestion_control):
            raise bad("congestion_control", "must be a kernel congestion control name")
        if self.profile not in PROFILES:
            raise bad("profile", f"must be one of {sorted(PROFILES)}")
        for k in self.sysctls:
            if not _SYSCTL_NAME.match(k):
                raise TestbedConfigError(
                    f"TestbedConfig.sysctls key {k!r}: must be a per-namespace net.ipv4/core/ipv6 "
                    "sysctl name such as 'net.ipv4.tcp_sack'"
                )
        if self.initcwnd is not None and not 1 <= self.initcwnd <= 1000:
            raise bad("initcwnd", "must be in 1..1000 segments or None")
        if self.rto_min_s is not None and not 0.001 <= self.rto_min_s <= 120:
            raise bad("rto_min_s", "must be in [0.001, 120] seconds or None")
        if self.rcv_window_clamp is not None and not 1 <= self.rcv_window_clamp < 2**30:
            raise bad("rcv_window_clamp", "must be a positive number of bytes or None")
        if not 0.001 <= self.tcp_info_interval_s <= 10:
            raise bad("tcp_info_interval_s", "must be in [0.001, 10] seconds")
        if not 1 <= self.time_budget_s <= 86400:
            raise bad("time_budget_s", "must be in [1, 86400] seconds")
        if self.run_id is not None and not re.fullmatch(r"[a-z0-9]{1,8}", self.run_id):
            raise bad("run_id", "must be 1 to 8 lowercase letters or digits")
        if not 1 <= self.pcap_snaplen <= 262144:
            raise bad("pcap_snaplen", "must be in 1..262144")


def check_error_model(name: str, m: Any) -> None:
    """Validate an error-model dict (the forwarder validates again, naming its own field)."""
    if not isinstance(m, dict) or m.get("model") not in ERROR_MODELS:
        raise TestbedConfigError(
            f"TestbedConfig.{name} = {m!r}: must be a dict with 'model' in {ERROR_MODELS}"
        )
    required = {
        "none": set(),
        "per": {"p"},
        "ber": {"ber"},
        "gilbert-elliott": {"good", "bad", "p_good_to_bad", "p_bad_to_good"},
        "list": set(),
    }[m["model"]]
    missing = required - set(m)
    if missing:
        raise TestbedConfigError(
            f"TestbedConfig.{name} = {m!r}: model {m['model']!r} needs {sorted(missing)}"
        )
    for key in ("p", "ber", "p_good_to_bad", "p_bad_to_good"):
        if key in m and not (isinstance(m[key], int | float) and 0 <= m[key] <= 1):
            raise TestbedConfigError(
                f"TestbedConfig.{name}[{key!r}] = {m[key]!r}: must be a probability in [0, 1]"
            )


def link_spec(
    *,
    rate_bps: float | None,
    delay_s: float,
    framing: str = "ethernet",
    queue_limit: int | None = 1000,
    queue_unit: str = "packets",
    error: dict | None = None,
    stream: str | None = None,
) -> dict[str, Any]:
    """One direction of the forwarder's configuration (crates/tcplab-netem/src/config.rs)."""
    spec: dict[str, Any] = {
        "rate_bps": float(rate_bps or 0),
        "delay_ns": round(delay_s * 1e9),
        "framing": framing,
        "queue": {"limit": queue_limit, "unit": queue_unit},
        "error": dict(error or {"model": "none"}),
    }
    if stream is not None:
        spec["stream"] = stream
    return spec


def forwarder_links(cfg: TestbedConfig) -> dict[str, dict[str, Any]]:
    """The two directions of `cfg` in the forwarder's terms (A = client side)."""
    common = {
        "rate_bps": cfg.rate_bps,
        "framing": cfg.framing,
        "queue_limit": cfg.queue_limit,
        "queue_unit": cfg.queue_unit,
    }
    return {
        "a_to_b": link_spec(
            delay_s=cfg.delay_c2s_s,
            error=cfg.error_c2s,
            stream=cfg.stream_c2s or f"{cfg.stream_prefix}:c2s",
            **common,
        ),
        "b_to_a": link_spec(
            delay_s=cfg.delay_s2c_s,
            error=cfg.error_s2c,
            stream=cfg.stream_s2c or f"{cfg.stream_prefix}:s2c",
            **common,
        ),
    }


def stack_settings(cfg: TestbedConfig) -> dict[str, Any]:
    """Profile merged with the config's overrides: sysctls, route options, socket options."""
    prof = PROFILES[cfg.profile]
    sysctls = dict(prof["sysctls"])
    sysctls.update(cfg.sysctls)
    route = dict(prof["route"])
    if cfg.initcwnd is not None:
        route["initcwnd"] = cfg.initcwnd
    if cfg.rto_min_s is not None:
        route["rto_min_ms"] = max(1, round(cfg.rto_min_s * 1000))
    return {
        "profile": cfg.profile,
        "sysctls": sysctls,
        "route": route,
        "socket": dict(prof["socket"]),
        "not_expressible": list(prof["not_expressible"]),
    }
