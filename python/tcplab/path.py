"""The resolved path of a scenario's application: the link directions its data and its ACKs
cross, and what one frame costs on each (wire bytes, serialisation, bytes exposed to bit
errors, the chance it is lost).

This is the one reader of the paths in `Scenario.describe()` (the core's resolved view of a
scenario): the analytic models' inputs (`tcplab.analytic`) and the testbed's plan
(`tcplab.testbed.plan`) both take their hops from here. What the core states is taken as it
states it: each hop's rate, delay, the sending node's processing delay, MTU, queue, queue
discipline and error model, and its framing's overheads (the wire and exposed bytes it adds to
a full frame, the smallest frame on the wire). What the core does not state is derived here,
once:

- a frame's wire and exposed bytes at any IP size, from those overheads (an Ethernet frame is
  padded to 84 bytes on the wire, of which 64 are exposed: no preamble or gap);
- the segment sizes: a full data segment is the MSS plus 40 bytes of IP and TCP header (with
  timestamps, MSS - 12 bytes of payload and the 12-byte option, RFC 7323); a pure ACK is 40
  bytes (52 with timestamps);
- a frame's error probability on a hop (`frame_error`): the PER as given, or
  PER = 1 - (1 - BER)^(8 x exposed bytes) (`tcplab.models.per_from_ber`, the rule of the
  core's ``ber`` model); for Gilbert-Elliott the stationary mean of its two states;
- the loss of a direction over several hops (`path_loss`, `combined`): 1 - prod(1 - PER_hop).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tcplab.api import Scenario

__all__ = [
    "HEADERS",
    "TIMESTAMP_OPTION",
    "AppPath",
    "Framing",
    "Hop",
    "LinkDirection",
    "app_paths",
    "combined",
    "frame_error",
    "path_loss",
]

#: IP (20) + TCP (20) header bytes of a segment without options.
HEADERS = 40
#: TCP timestamp option bytes per segment (RFC 7323: 10, padded to 12).
TIMESTAMP_OPTION = 12


@dataclass(frozen=True)
class Framing:
    """A link framing as `describe()` states it: the bytes it adds to a full frame on the wire
    and of those the bytes exposed to errors, and the smallest frame on the wire."""

    name: str
    wire_overhead: int
    exposed_overhead: int
    min_wire_bytes: int

    @classmethod
    def of(cls, framing: Mapping[str, Any]) -> Framing:
        return cls(
            name=str(framing["name"]),
            wire_overhead=int(framing["wire_overhead"]),
            exposed_overhead=int(framing["exposed_overhead"]),
            min_wire_bytes=int(framing["min_wire_bytes"]),
        )

    def wire_bytes(self, ip_bytes: int) -> int:
        """The frame of an IP packet of `ip_bytes` on the wire (what serialisation takes)."""
        return max(ip_bytes + self.wire_overhead, self.min_wire_bytes)

    def exposed_bytes(self, ip_bytes: int) -> int:
        """The bytes of that frame exposed to bit errors."""
        min_exposed = self.min_wire_bytes - (self.wire_overhead - self.exposed_overhead)
        return max(ip_bytes + self.exposed_overhead, min_exposed)  # Ethernet: 84 - 20 = 64


def _per_from_ber(ber: float, exposed: int) -> float:
    from tcplab.models import per_from_ber  # numpy: not for the testbed's start-up

    return float(per_from_ber(ber, exposed))


def _law_per(law: Mapping[str, Any], exposed: int) -> float:
    if "per" in law:
        return float(law["per"])
    if "p" in law:
        return float(law["p"])
    return _per_from_ber(float(law["ber"]), exposed)


def frame_error(error: Mapping[str, Any], exposed: int) -> tuple[float, str | None]:
    """The error probability of a frame of `exposed` bytes under an error model as
    `describe()` states it, and a note when the model is not a plain rate (NaN: unknown)."""
    model = error.get("model", "none")
    if model == "none":
        return 0.0, None
    if model == "per":
        return float(error["p"]), None
    if model == "ber":
        return _per_from_ber(float(error["ber"]), exposed), None
    if model == "gilbert-elliott":
        gb, bg = float(error["p_gb"]), float(error["p_bg"])
        pi_bad = 0.5 if gb + bg == 0 else gb / (gb + bg)
        good = _law_per(error["good"], exposed)
        bad = _law_per(error["bad"], exposed)
        per = (1 - pi_bad) * good + pi_bad * bad
        return per, (
            f"Gilbert-Elliott: the stationary mean PER {per:.4g} (bad state {pi_bad:.3g} of the "
            "time); losses come in bursts, which the models (independent losses) do not assume"
        )
    if model == "list":
        n = len(error.get("frames") or []) + len(error.get("segments") or [])
        return 0.0, (
            f"a deterministic loss list ({n} entries) is not a rate: the models use p = 0 for it"
        )
    return math.nan, f"unknown error model {model!r}"


def combined(probabilities: Iterable[float]) -> float:
    """1 - prod(1 - p): the chance that at least one of independent events happens (a frame
    lost on one of several hops; a bit flipped by one of several BERs on the same bits)."""
    return 1.0 - math.prod((1.0 - p for p in probabilities), start=1.0)


@dataclass(frozen=True)
class Hop:
    """One link direction of a path, with what one frame costs on it."""

    link: str
    dir: str
    src: str
    dst: str
    rate_bps: float
    delay_s: float  # the link's delay and the sending node's processing delay
    framing: str
    wire_bytes: int  # the frame on the wire (serialisation)
    exposed_bytes: int  # the bytes exposed to bit errors
    error_model: str
    per: float  # frame error probability of this frame on this hop (NaN: not a rate)

    @property
    def name(self) -> str:
        return f"{self.link}.{self.dir}"

    @property
    def serialisation_s(self) -> float:
        return self.wire_bytes * 8.0 / self.rate_bps


def path_loss(path: Sequence[Hop]) -> float:
    """The loss of a frame over `path`: 1 - prod(1 - PER) over its lossy hops (one lossy hop:
    its PER exactly)."""
    lossy = [h.per for h in path if h.per != 0.0]
    if len(lossy) == 1:
        return lossy[0]
    return combined(lossy)


@dataclass(frozen=True)
class LinkDirection:
    """One direction of a link on a path, as the core resolved it (an entry of a
    ``describe()`` application's ``data_path`` or ``ack_path``). `queue`, `aqm` and `error`
    are as `describe()` writes them."""

    link: str
    dir: str  # "ab" or "ba"
    src: str
    dst: str
    rate_bps: float
    delay_s: float
    processing_delay_s: float  # the sending node's, before this hop
    mtu: int
    framing: Framing
    queue: Any  # {"packets": n}, {"bytes": n} or "unlimited"
    aqm: Mapping[str, Any]
    error: Mapping[str, Any]

    @classmethod
    def of(cls, hop: Mapping[str, Any]) -> LinkDirection:
        return cls(
            link=str(hop["link"]),
            dir=str(hop["dir"]),
            src=str(hop["from"]),
            dst=str(hop["to"]),
            rate_bps=float(hop["rate_bps"]),
            delay_s=float(hop["delay_s"]),
            processing_delay_s=float(hop.get("processing_delay_s", 0.0)),
            mtu=int(hop["mtu"]),
            framing=Framing.of(hop["framing"]),
            queue=hop["queue"],
            aqm=hop.get("aqm", {}),
            error=hop["error"],
        )

    @property
    def name(self) -> str:
        """``link.dir``."""
        return f"{self.link}.{self.dir}"

    @property
    def field(self) -> str:
        """The scenario path of this direction, ``links.link.dir``."""
        return f"links.{self.link}.{self.dir}"

    @property
    def latency_s(self) -> float:
        """The link's delay and the sending node's processing delay: a pure delay before the
        frame arrives, latency like the link's."""
        return self.delay_s + self.processing_delay_s

    @property
    def error_model(self) -> str:
        return str(self.error.get("model", "none"))

    def wire_bytes(self, ip_bytes: int) -> int:
        return self.framing.wire_bytes(ip_bytes)

    def exposed_bytes(self, ip_bytes: int) -> int:
        return self.framing.exposed_bytes(ip_bytes)

    def serialisation_s(self, ip_bytes: int) -> float:
        """Store-and-forward time of a frame of an IP packet of `ip_bytes` on this hop."""
        return self.wire_bytes(ip_bytes) * 8.0 / self.rate_bps

    def frame_error(self, ip_bytes: int) -> tuple[float, str | None]:
        """`frame_error` of this hop's error model for a frame of an IP packet of `ip_bytes`."""
        return frame_error(self.error, self.exposed_bytes(ip_bytes))

    def carrying(self, ip_bytes: int) -> tuple[Hop, str | None]:
        """This hop with what a frame of an IP packet of `ip_bytes` costs on it, and the note
        of its error model (None for a plain rate)."""
        exposed = self.exposed_bytes(ip_bytes)
        per, note = frame_error(self.error, exposed)
        hop = Hop(
            link=self.link,
            dir=self.dir,
            src=self.src,
            dst=self.dst,
            rate_bps=self.rate_bps,
            delay_s=self.latency_s,
            framing=self.framing.name,
            wire_bytes=self.wire_bytes(ip_bytes),
            exposed_bytes=exposed,
            error_model=self.error_model,
            per=per,
        )
        return hop, note


@dataclass(frozen=True)
class AppPath:
    """The resolved path of one application (an entry of ``describe()["apps"]``): the
    directions its data and its ACKs cross, the segments it sends, and what a full data frame
    and an ACK frame cost on each hop (worked out when first asked for: the testbed's plan
    needs the hops, not their error rates). Make one with `AppPath.of`."""

    app: str
    sender: str  # the node that sends the data
    data: tuple[LinkDirection, ...]
    ack: tuple[LinkDirection, ...]
    mss_bytes: int  # configured
    timestamps: bool

    @classmethod
    def of(cls, app: Mapping[str, Any]) -> AppPath:
        tcp = app["tcp"]
        return cls(
            app=str(app["name"]),
            sender=str(app.get("sender")),
            data=tuple(LinkDirection.of(h) for h in app["data_path"]),
            ack=tuple(LinkDirection.of(h) for h in app["ack_path"]),
            mss_bytes=int(tcp["mss"]),
            timestamps=bool(tcp.get("timestamps", False)),
        )

    @property
    def eff_mss_bytes(self) -> int:
        """Payload of a full segment: the MSS less the timestamp option when it is on."""
        return self.mss_bytes - (TIMESTAMP_OPTION if self.timestamps else 0)

    @property
    def data_ip_bytes(self) -> int:
        """A full data segment as an IP packet."""
        return self.eff_mss_bytes + HEADERS + (TIMESTAMP_OPTION if self.timestamps else 0)

    @property
    def ack_ip_bytes(self) -> int:
        """A pure ACK as an IP packet."""
        return HEADERS + (TIMESTAMP_OPTION if self.timestamps else 0)

    @cached_property
    def _carried(self) -> tuple[tuple[Hop, ...], tuple[Hop, ...], tuple[str, ...]]:
        notes: list[str] = []

        def carry(hops: Sequence[LinkDirection], ip_bytes: int) -> tuple[Hop, ...]:
            out = []
            for h in hops:
                hop, note = h.carrying(ip_bytes)
                if note:
                    notes.append(f"{h.name}: {note}")
                out.append(hop)
            return tuple(out)

        data = carry(self.data, self.data_ip_bytes)
        ack = carry(self.ack, self.ack_ip_bytes)
        return data, ack, tuple(notes)

    @property
    def data_frames(self) -> tuple[Hop, ...]:
        """A full data frame on every hop of the data path."""
        return self._carried[0]

    @property
    def ack_frames(self) -> tuple[Hop, ...]:
        """An ACK frame on every hop of the ACK path."""
        return self._carried[1]

    @property
    def notes(self) -> tuple[str, ...]:
        """What the hops' error models do not say as a rate, data path first."""
        return self._carried[2]

    @property
    def p(self) -> float:
        """A full data frame's loss over the data path."""
        return path_loss(self.data_frames)

    @property
    def p_ack(self) -> float:
        """An ACK frame's loss over the ACK path."""
        return path_loss(self.ack_frames)


def app_paths(scenario: Scenario) -> list[AppPath]:
    """The resolved path of every application of `scenario`."""
    return [AppPath.of(a) for a in scenario.describe()["apps"]]
