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


def _scenario(
    *,
    name: str,
    seed: int,
    stop_time: str,
    profile: str,
    nodes: list[dict[str, Any]],
    links: list[dict[str, Any]],
    apps: list[dict[str, Any]],
    output: dict[str, Any],
    error: Mapping[str, Any] | None = None,
    error_link: str = "",
    overrides: Mapping[str, Any] | None = None,
) -> Scenario:
    """The built scenario, with `error` on `error_link`'s data direction and `overrides` applied
    last, checked by the core."""
    if not isinstance(output["trace"], bool):
        raise _invalid("trace", output["trace"], "", "true or false")
    if error is not None:
        if not isinstance(error, Mapping):
            raise _invalid(
                "error", error, "", 'an error model table, e.g. {"model": "per", "p": 0.01}'
            )
        for lk in links:
            if lk["name"] == error_link:
                lk["ab"] = {"error": dict(error)}
    data = {
        "run": {"name": name, "seed": seed, "stop_time": stop_time},
        "tcp": {"profile": profile},
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "output": output,
    }
    sc = Scenario.from_dict(data)
    if overrides:
        sc = sc.with_overrides(overrides)
    sc.check()  # set up by the core: a path through a host, or an MSS above an MTU, is refused
    return sc


def _with_tcp(app: dict[str, Any], cc: Any, lr: Any) -> dict[str, Any]:
    """`app` with a tcp table for a per-flow congestion control or loss recovery, if any."""
    tcp = _tcp(cc, lr)
    if tcp:
        app["tcp"] = tcp
    return app


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
        apps.append(_with_tcp(app, ccs[i - 1], lrs[i - 1]))
    return _scenario(
        name=name, seed=seed, stop_time=stop_time, profile=profile, nodes=nodes, links=links,
        apps=apps, output={"trace": trace}, error=error, error_link="bottleneck",
        overrides=overrides,
    )  # fmt: skip


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
    :param profile: as in `dumbbell`.
    :param stop_time: as in `dumbbell`.
    :param name: as in `dumbbell`.
    :param seed: as in `dumbbell`.
    :param trace: as in `dumbbell`.
    :param overrides: as in `dumbbell`.
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
        apps.append(_with_tcp(app, ccs[i - 1], lrs[i - 1]))
    return _scenario(
        name=name, seed=seed, stop_time=stop_time, profile=profile, nodes=nodes, links=links,
        apps=apps, output={"trace": trace}, error=error, error_link="uplink",
        overrides=overrides,
    )  # fmt: skip


#: The applications a campus user can run, and the server each talks to.
_CAMPUS_SERVERS = {"http": "http_server", "database": "db_server", "ftp": "ftp_server"}


def campus(
    users: int = 10,
    *,
    apps: Sequence[str] = ("http", "database", "ftp"),
    access_rate: str = "100Mbps",
    access_delay: str = "10us",
    core_rate: str = "100Mbps",
    core_delay: str = "1ms",
    server_rate: str = "100Mbps",
    queue: str = "100p",
    firewall_delay: str = "50us",
    start_spread: str = "0s",
    http: Mapping[str, Any] | None = None,
    database: Mapping[str, Any] | None = None,
    ftp_size: str = "5MB",
    congestion_control: str | None = None,
    loss_recovery: str | None = None,
    profile: str = "rfc",
    stop_time: str = "1800s",
    name: str = "campus",
    seed: int = 1,
    trace: bool = False,
    link_series: str | None = "1s",
    app_series: str | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Scenario:
    """A campus as seed 004 draws it: workstations `node_0..` on a `switch` (links `node_<i>`),
    the switch to `router_main` (`uplink`), `router_main` through a `firewall` (a router with a
    processing delay) to `router_hq` (links `main_fw`, `fw_hq`), and behind `router_hq` the
    `http_server`, `db_server` and `ftp_server` (links `http`, `db`, `ftp`; direction ab carries
    the servers' answers). Every user runs each of `apps` against its server: `http_<i>`,
    `db_<i>`, `ftp_<i>`, user `i` starting `i x start_spread / users` into the run; each
    application's responses count in its kind's group (`http`, `database`, `ftp`) of the
    `app_series` table.

    :param users: the number of workstations, 1 to 10000.
    :param apps: which of "http", "database", "ftp" each user runs.
    :param access_rate: the workstations' links to the switch (seed 004: "100T").
    :param access_delay: their one-way delay.
    :param core_rate: the uplink and the links through the firewall.
    :param core_delay: the one-way delay of each of those three links.
    :param server_rate: the servers' links to `router_hq`.
    :param queue: every link's drop-tail limit.
    :param firewall_delay: the firewall's processing delay per packet.
    :param start_spread: users start evenly spread over this time.
    :param http: settings of every `http` application (as its scenario fields: `think_time`,
        `objects`, ...); None: the format's defaults.
    :param database: settings of every `database` application likewise.
    :param ftp_size: the file each `ftp` application downloads.
    :param congestion_control: every connection's congestion control; None keeps the
        profile's.
    :param loss_recovery: every connection's loss recovery likewise.
    :param link_series: `output.link_series` (statistics per interval of every link); None: off.
    :param app_series: `output.app_series` (response times per interval of each application
        kind over every user); None: off.
    :param profile: as in `dumbbell`.
    :param stop_time: as in `dumbbell`.
    :param name: as in `dumbbell`.
    :param seed: as in `dumbbell`.
    :param trace: as in `dumbbell`.
    :param overrides: as in `dumbbell`.
    """
    users = _count("users", users)
    apps = list(apps) if not isinstance(apps, str) else [apps]
    bad = [a for a in apps if a not in _CAMPUS_SERVERS]
    if bad or not apps:
        raise _invalid("apps", apps, "", "one or more of " + ", ".join(_CAMPUS_SERVERS))
    for field, table in (("http", http), ("database", database)):
        if table is not None and not isinstance(table, Mapping):
            raise _invalid(field, table, "", "a table of the application's fields")
    nodes: list[dict[str, Any]] = [{"name": f"node_{i}", "kind": "host"} for i in range(users)]
    nodes += [
        {"name": "switch", "kind": "switch"},
        {"name": "router_main", "kind": "router"},
        {"name": "firewall", "kind": "router", "processing_delay": firewall_delay},
        {"name": "router_hq", "kind": "router"},
    ]
    servers = [_CAMPUS_SERVERS[a] for a in dict.fromkeys(apps)]
    nodes += [{"name": s, "kind": "host"} for s in servers]

    def link(name: str, a: str, b: str, rate: str, delay: str) -> dict[str, Any]:
        return {"name": name, "a": a, "b": b, "rate": rate, "delay": delay, "queue": queue}

    links = [
        link(f"node_{i}", "switch", f"node_{i}", access_rate, access_delay) for i in range(users)
    ]
    links += [
        link("uplink", "router_main", "switch", core_rate, core_delay),
        link("main_fw", "firewall", "router_main", core_rate, core_delay),
        link("fw_hq", "router_hq", "firewall", core_rate, core_delay),
    ]
    short = {"http_server": "http", "db_server": "db", "ftp_server": "ftp"}
    links += [link(short[s], s, "router_hq", server_rate, access_delay) for s in servers]
    spread_s = _seconds("start_spread", start_spread)
    app_list: list[dict[str, Any]] = []
    for i in range(users):
        start = f"{round(spread_s * 1e9) * i // users}ns"
        for a in apps:
            app: dict[str, Any] = {
                "name": f"{'db' if a == 'database' else a}_{i}",
                "kind": a,
                "client": f"node_{i}",
                "server": _CAMPUS_SERVERS[a],
                "start": start,
                "group": a,
            }
            if a == "ftp":
                app["size"] = ftp_size
            extra = http if a == "http" else database if a == "database" else None
            app.update(dict(extra or {}))
            app_list.append(_with_tcp(app, congestion_control, loss_recovery))
    output: dict[str, Any] = {"trace": trace}
    if link_series is not None:
        output["link_series"] = link_series
    if app_series is not None:
        output["app_series"] = app_series
    return _scenario(
        name=name, seed=seed, stop_time=stop_time, profile=profile, nodes=nodes, links=links,
        apps=app_list, output=output, overrides=overrides,
    )  # fmt: skip


def _seconds(field: str, text: Any) -> float:
    from tcplab.models.units import parse_duration

    try:
        return parse_duration(text)
    except (TypeError, ValueError):
        raise _invalid(field, text, "", 'a duration with its unit, such as "60s"') from None
