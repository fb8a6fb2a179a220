"""Build scenarios of many hosts in a few lines: `dumbbell` and `star`.

Each builder returns a `tcplab.Scenario`, checked by the core before it is returned, that can be
edited (`with_overrides`), run, swept, or saved as TOML (`to_toml`) to start a hand-written file::

    import tcplab
    from tcplab import topology

    sc = topology.dumbbell(4, bottleneck_rate="10Mbps", bottleneck_delay="20ms",
                           access_delay=["1ms", "5ms", "10ms", "20ms"],
                           congestion_control=["reno", "cubic", "bbr", "westwood"])
    res = tcplab.run(sc.with_overrides({"links.bottleneck.ab.error.p": 0.001}))

Names are fixed so that `--set` paths and results address them: in a dumbbell, senders
`s1..sN` reach router `r1` over links `s1..sN`, the bottleneck `bottleneck` joins `r1` to
`r2` (direction ab carries the data), and links `d1..dN` lead to receivers `d1..dN`; flow `i`
is application `flow<i>`. In a star, clients `h1..hN` hang off router `hub` on links `h1..hN`
and the server `server` on link `uplink` (direction ab: server to hub, the downloads' data).

A per-flow parameter (`access_delay`, `congestion_control`, `loss_recovery`, `start`) takes one
value for every flow or a list of exactly one value per flow; anything else is refused with an
`InvalidValueError` naming the parameter, the value and what is allowed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from tcplab.api import Scenario
from tcplab.errors import _invalid

__all__ = ["dumbbell", "star"]

_KINDS = ("bulk", "ftp")


def _count(field: str, n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < 1 or n > 10_000:
        raise _invalid(field, n, "", "an integer from 1 to 10000")
    return n


def _per_flow(field: str, value: Any, n: int) -> list[Any]:
    """One value per flow from a scalar (every flow) or a list of exactly n values."""
    if isinstance(value, str) or not isinstance(value, Sequence):
        return [value] * n
    if len(value) != n:
        raise _invalid(
            field, list(value), f"{len(value)} values for {n} flows", f"one value, or {n} values"
        )
    return list(value)


def _kind(field: str, kind: Any) -> str:
    if kind not in _KINDS:
        raise _invalid(field, kind, "", ", ".join(_KINDS))
    return kind


def _tcp(cc: Any, lr: Any) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if cc is not None:
        out["congestion_control"] = cc
    if lr is not None:
        out["loss_recovery"] = lr
    return out


def _finish(
    data: dict[str, Any], error: Mapping[str, Any] | None, link: str, overrides: Any
) -> Scenario:
    if not isinstance(data["output"]["trace"], bool):
        raise _invalid("trace", data["output"]["trace"], "", "true or false")
    if error is not None:
        if not isinstance(error, Mapping):
            raise _invalid(
                "error", error, "", 'an error model table, e.g. {"model": "per", "p": 0.01}'
            )
        for lk in data["links"]:
            if lk["name"] == link:
                lk["ab"] = {"error": dict(error)}
    sc = Scenario.from_dict(data)
    if overrides:
        sc = sc.with_overrides(overrides)
    sc.describe()  # the core's validation: a bad rate, delay or model is refused here
    return sc


def dumbbell(
    n: int = 2,
    *,
    access_rate: str = "100Mbps",
    access_delay: str | Sequence[str] = "1ms",
    receiver_delay: str = "1ms",
    bottleneck_rate: str = "10Mbps",
    bottleneck_delay: str = "20ms",
    queue: str = "100p",
    error: Mapping[str, Any] | None = None,
    kind: str = "bulk",
    size: str | None = None,
    start: str | Sequence[str] = "0s",
    congestion_control: str | Sequence[str] | None = None,
    loss_recovery: str | Sequence[str] | None = None,
    profile: str = "rfc",
    stop_time: str = "60s",
    name: str = "dumbbell",
    seed: int = 1,
    trace: bool = False,
    overrides: Mapping[str, Any] | None = None,
) -> Scenario:
    """`n` flows from senders `s<i>` to receivers `d<i>` sharing one bottleneck `r1` -> `r2`.

    :param n: the number of flows (sender/receiver pairs), 1 to 10000.
    :param access_rate: rate of every access link (both sides of the bottleneck).
    :param access_delay: one-way delay of each sender's access link (one value, or one per
        flow for flows of different RTTs).
    :param receiver_delay: one-way delay of every receiver's link `d<i>`.
    :param bottleneck_rate: rate of the bottleneck link `bottleneck`.
    :param bottleneck_delay: its one-way delay.
    :param queue: its drop-tail limit ("100p" packets or "64KB" bytes), both directions.
    :param error: the error model of the bottleneck's data direction (`links.bottleneck.ab`),
        e.g. ``{"model": "ber", "ber": 1e-6}``; None: error-free.
    :param kind: "bulk" (the sender writes `size`, or until the stop time) or "ftp" (the
        receiver requests a file of `size` from the sender).
    :param size: bytes per flow; required for "ftp", unlimited for "bulk" when None.
    :param start: each flow's start time (one value, or one per flow).
    :param congestion_control: per-flow congestion control (one value or one per flow); None
        keeps the profile's.
    :param loss_recovery: per-flow loss recovery, likewise.
    :param profile: the scenario's TCP profile ([tcp] profile).
    :param stop_time: the simulated time limit.
    :param name: [run] name.
    :param seed: [run] seed.
    :param trace: record every connection's sender trace ([output] trace).
    :param overrides: dotted-path overrides applied last (as `Scenario.with_overrides`).
    """
    n = _count("n", n)
    kind = _kind("kind", kind)
    if kind == "ftp" and size is None:
        raise _invalid("size", None, 'kind "ftp" downloads a file', 'a size such as "10MB"')
    delays = _per_flow("access_delay", access_delay, n)
    starts = _per_flow("start", start, n)
    ccs = _per_flow("congestion_control", congestion_control, n)
    lrs = _per_flow("loss_recovery", loss_recovery, n)

    nodes = [{"name": f"s{i}", "kind": "host"} for i in range(1, n + 1)]
    nodes += [{"name": f"d{i}", "kind": "host"} for i in range(1, n + 1)]
    nodes += [{"name": "r1", "kind": "router"}, {"name": "r2", "kind": "router"}]
    links: list[dict[str, Any]] = [
        {"name": f"s{i}", "a": f"s{i}", "b": "r1", "rate": access_rate, "delay": delays[i - 1]}
        for i in range(1, n + 1)
    ]
    links.append(
        {
            "name": "bottleneck",
            "a": "r1",
            "b": "r2",
            "rate": bottleneck_rate,
            "delay": bottleneck_delay,
            "queue": queue,
        }
    )
    links += [
        {"name": f"d{i}", "a": "r2", "b": f"d{i}", "rate": access_rate, "delay": receiver_delay}
        for i in range(1, n + 1)
    ]
    apps = []
    for i in range(1, n + 1):
        # bulk: the client writes; ftp: the server sends the file the client asks for.
        client, server = (f"s{i}", f"d{i}") if kind == "bulk" else (f"d{i}", f"s{i}")
        app: dict[str, Any] = {
            "name": f"flow{i}",
            "kind": kind,
            "client": client,
            "server": server,
            "start": starts[i - 1],
        }
        if size is not None:
            app["size"] = size
        tcp = _tcp(ccs[i - 1], lrs[i - 1])
        if tcp:
            app["tcp"] = tcp
        apps.append(app)
    data = {
        "run": {"name": name, "seed": seed, "stop_time": stop_time},
        "tcp": {"profile": profile},
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "output": {"trace": trace},
    }
    return _finish(data, error, "bottleneck", overrides)


def star(
    n: int = 4,
    *,
    rate: str = "100Mbps",
    delay: str | Sequence[str] = "1ms",
    uplink_rate: str = "10Mbps",
    uplink_delay: str = "10ms",
    queue: str = "100p",
    error: Mapping[str, Any] | None = None,
    size: str = "1MB",
    start: str | Sequence[str] = "0s",
    congestion_control: str | Sequence[str] | None = None,
    loss_recovery: str | Sequence[str] | None = None,
    profile: str = "rfc",
    stop_time: str = "600s",
    name: str = "star",
    seed: int = 1,
    trace: bool = False,
    overrides: Mapping[str, Any] | None = None,
) -> Scenario:
    """`n` clients `h<i>` around router `hub`, each downloading `size` (FTP) from `server`,
    which reaches the hub over the shared link `uplink` (direction ab carries the data).

    :param n: the number of clients, 1 to 10000.
    :param rate: rate of every client link `h<i>`.
    :param delay: one-way delay of each client link (one value, or one per client).
    :param uplink_rate: rate of the server's link `uplink`, the shared bottleneck.
    :param uplink_delay: its one-way delay.
    :param queue: the uplink's drop-tail limit, both directions.
    :param error: the error model of the uplink's data direction (`links.uplink.ab`).
    :param size: the file each client downloads.
    :param start: each client's start time (one value, or one per client).
    :param congestion_control: per-client congestion control of the download (the server's
        sender), one value or one per client; None keeps the profile's.
    :param loss_recovery: per-client loss recovery, likewise.
    :param profile, stop_time, name, seed, trace, overrides: as in `dumbbell`.
    """
    n = _count("n", n)
    delays = _per_flow("delay", delay, n)
    starts = _per_flow("start", start, n)
    ccs = _per_flow("congestion_control", congestion_control, n)
    lrs = _per_flow("loss_recovery", loss_recovery, n)
    nodes = [{"name": "server", "kind": "host"}, {"name": "hub", "kind": "router"}]
    nodes += [{"name": f"h{i}", "kind": "host"} for i in range(1, n + 1)]
    links: list[dict[str, Any]] = [
        {
            "name": "uplink",
            "a": "server",
            "b": "hub",
            "rate": uplink_rate,
            "delay": uplink_delay,
            "queue": queue,
        }
    ]
    links += [
        {"name": f"h{i}", "a": "hub", "b": f"h{i}", "rate": rate, "delay": delays[i - 1]}
        for i in range(1, n + 1)
    ]
    apps = []
    for i in range(1, n + 1):
        app: dict[str, Any] = {
            "name": f"ftp{i}",
            "kind": "ftp",
            "client": f"h{i}",
            "server": "server",
            "size": size,
            "start": starts[i - 1],
        }
        tcp = _tcp(ccs[i - 1], lrs[i - 1])
        if tcp:
            app["tcp"] = tcp
        apps.append(app)
    data = {
        "run": {"name": name, "seed": seed, "stop_time": stop_time},
        "tcp": {"profile": profile},
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "output": {"trace": trace},
    }
    return _finish(data, error, "uplink", overrides)
