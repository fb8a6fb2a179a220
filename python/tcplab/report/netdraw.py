"""The scenario as a network diagram, as OPNET, NetSim or Riverbed users see their network:
nodes by kind, each link with its rate, delay, queue, AQM and error model (per direction when
they differ), and the applications as arrows from the data sender to the receiver.
`tcplab draw FILE`, `Scenario.draw()`, the notebook view of a scenario and every study's
report show it.

Layout: the longest path of the network (its diameter, found by two breadth-first searches)
runs left to right, clients on the left; every other node hangs off its nearest node of that
path, one column further out per hop, stacked above and below it. Five or more hosts on one
node that serve no application (a campus's workstations, a star's clients) are drawn as one
group, with their links summarised, so a campus of 100 hosts reads as one of 10.

Everything is read from the scenario's dict (`Scenario.to_dict(normalized=True)`): this
module imports no simulator.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .plots import PALETTE, new_figure, styled

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["GROUP_MIN", "Network", "network", "draw_network"]

#: Hosts on one node, serving no application, that are drawn as one group.
GROUP_MIN = 5
#: Above this many application arrows, the applications are only listed.
MOST_ARROWS = 12
#: Lines of the application list before "... N more".
MOST_APP_LINES = 8

# Inches per column and per row of the layout.
_COL_IN = 1.15
_ROW_IN = 0.78

# Fill and edge colour of each kind of node (the palette's hues, lightened for the fill).
_KIND_STYLE = {
    "host": ("#D6E6F2", PALETTE[0]),
    "router": ("#F9E3C2", "#A66F00"),
    "switch": ("#CDEBE1", "#00694D"),
    "firewall": ("#F6D3C2", PALETTE[3]),
}
_KIND_NAME = {"host": "host", "router": "router", "switch": "switch", "firewall": "router + filter"}
# Which end of an application sends its data: the server answers (ftp gets, pages, queries),
# the client sends (bulk, cbr, udp).
_SERVER_SENDS = {"ftp", "http", "database"}


@dataclass
class Node:
    name: str
    kind: str  # host, router, switch, firewall (a router with filter rules)
    label: str
    members: list[str] = field(default_factory=list)  # the hosts of a group


@dataclass
class Link:
    name: str
    a: str
    b: str
    text: str  # rate, delay, queue, AQM, error; the directions that differ named


@dataclass
class Arrow:
    sender: str
    receiver: str
    kind: str
    label: str
    both: bool = False  # data both ways (ftp with puts)


@dataclass
class Network:
    """What the diagram shows: nodes (after grouping), links, application arrows and the
    application list, and each node's position (column, row)."""

    title: str
    nodes: dict[str, Node]
    links: list[Link]
    arrows: list[Arrow]
    apps: list[str]
    pos: dict[str, tuple[float, float]] = field(default_factory=dict)


# -- text --------------------------------------------------------------------------------------


def _natural(text: str) -> list[Any]:
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.findall(r"\d+|\D+", text)]


def _names_text(names: Sequence[str]) -> str:
    """ "a, b, c" for up to three names, else "first … last" in natural order."""
    ordered = sorted(names, key=_natural)
    return ", ".join(ordered) if len(ordered) <= 3 else f"{ordered[0]} … {ordered[-1]}"


def _size(text: Any) -> str:
    """A size as a reader writes it: "10000000B" -> "10 MB", "5MB" -> "5 MB"."""
    m = re.fullmatch(r"(\d+(?:\.\d+)?) ?([kMGT]?)B", str(text))
    if not m:
        return str(text)
    v = float(m[1]) * {"": 1.0, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}[m[2]]
    for unit, f in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if v >= f:
            return f"{v / f:g} {unit}"
    return f"{v:g} B"


def _error_text(error: Any) -> str:
    if not isinstance(error, Mapping):
        return ""
    model = str(error.get("model", "none"))
    if model == "none":
        return ""
    if model == "per":
        return f"PER {error.get('p')}"
    if model == "ber":
        return f"BER {error.get('ber')}"
    if model == "gilbert-elliott":
        return "Gilbert-Elliott"
    if model == "list":
        n = len(error.get("frames", [])) + len(error.get("segments", []))
        return f"{n} listed losses"
    return model


def _aqm_text(aqm: Any) -> str:
    kind = str(aqm.get("kind", "none")) if isinstance(aqm, Mapping) else "none"
    return {"none": "", "red": "RED", "codel": "CoDel"}.get(kind, kind)


_DEFAULTS = {"delay": "0s", "queue": "unlimited", "framing": "ethernet"}


def _direction(link: Mapping[str, Any], d: str) -> dict[str, Any]:
    """One direction's settings: the link's, with its `ab` / `ba` table over them."""
    out = {k: link.get(k, _DEFAULTS.get(k)) for k in ("rate", "delay", "queue", "framing")}
    out["error"] = link.get("error")
    out["aqm"] = link.get("aqm")
    out.update(link.get(d) or {})
    return out


def _parts(s: Mapping[str, Any]) -> list[str]:
    """rate · delay, queue (+ AQM), framing when not Ethernet, error model."""
    head = f"{s.get('rate')} · {s.get('delay')}"
    queue = "queue ∞" if s.get("queue") in (None, "unlimited") else f"queue {s.get('queue')}"
    aqm = _aqm_text(s.get("aqm"))
    parts = [head, queue + (f" {aqm}" if aqm else "")]
    if s.get("framing") not in (None, "ethernet"):
        parts.append(str(s.get("framing")))
    err = _error_text(s.get("error"))
    if err:
        parts.append(err)
    return parts


def _link_text(link: Mapping[str, Any]) -> str:
    a, b = str(link["a"]), str(link["b"])
    ab, ba = _parts(_direction(link, "ab")), _parts(_direction(link, "ba"))
    lines = [] if link.get("name") in (a, b) else [str(link.get("name"))]
    lines += [p for p in ab if p in ba]
    lines += [f"→{b}: {p}" for p in ab if p not in ba]
    lines += [f"→{a}: {p}" for p in ba if p not in ab]
    return "\n".join(lines)


def _summarised(texts: Sequence[str], count: int) -> str:
    """One label for the links of a group: each line shared by all as it is, the others as
    "k different"."""
    rows = [t.split("\n") for t in texts]
    first = rows[0]
    shared = [line for line in first if all(line in r for r in rows[1:])]
    differ = len({tuple(line for line in r if line not in shared) for r in rows})
    out = [f"{count} links"] + shared
    if differ > 1:
        out.append(f"{differ} settings differ")
    return "\n".join(out)


# -- the network, grouped ----------------------------------------------------------------------


def _app_sends(app: Mapping[str, Any]) -> tuple[bool, bool]:
    """(the server sends data, the client sends data)."""
    kind = str(app.get("kind"))
    if kind == "ftp":
        frac = app.get("get_fraction")
        gets = frac is None or float(frac) > 0
        puts = frac is not None and float(frac) < 1
        return gets, puts
    return (kind in _SERVER_SENDS, kind not in _SERVER_SENDS)


def network(d: Mapping[str, Any]) -> Network:
    """The diagram's contents, laid out, from a scenario's dict."""
    nodes_in = [n for n in d.get("nodes", [])]
    links_in = [link for link in d.get("links", [])]
    apps = [a for a in d.get("apps", [])]
    profiles = [p for p in d.get("profiles", []) or []]
    servers = {str(a.get("server")) for a in apps}
    for p in profiles:
        servers |= {str(p.get("server"))} | {str(a.get("server")) for a in p.get("apps", [])}
    kind = {}
    for n in nodes_in:
        k = str(n.get("kind", "host"))
        kind[str(n["name"])] = "firewall" if k == "router" and n.get("rules") else k
    neigh: dict[str, list[tuple[str, Mapping[str, Any]]]] = {name: [] for name in kind}
    for link in links_in:
        neigh[str(link["a"])].append((str(link["b"]), link))
        neigh[str(link["b"])].append((str(link["a"]), link))
    # Group the idle or client hosts hanging off one node.
    member_of: dict[str, str] = {}
    groups: dict[str, tuple[str, list[str], list[Mapping[str, Any]]]] = {}
    for hub in kind:
        leaves = [(v, link) for v, link in neigh[hub]
                  if kind[v] == "host" and len(neigh[v]) == 1 and v not in servers]  # fmt: skip
        if len(leaves) >= GROUP_MIN:
            gid = f"{hub} hosts"
            names = sorted((v for v, _ in leaves), key=_natural)
            groups[gid] = (hub, names, [link for _, link in leaves])
            member_of.update({v: gid for v in names})
    nodes: dict[str, Node] = {}
    for n in nodes_in:
        name = str(n["name"])
        if name in member_of:
            continue
        extra = []
        if str(n.get("processing_delay", "0s")) not in ("0s", "0ns", "0"):
            extra.append(f"{n.get('processing_delay')} processing")
        if n.get("rules"):
            extra.append(f"{len(n['rules'])} filter rules")
        nodes[name] = Node(name, kind[name], "\n".join([name, *extra]))
    links: list[Link] = []
    for gid, (hub, names, group_links) in groups.items():
        nodes[gid] = Node(gid, "host", f"{_names_text(names)}\n{len(names)} hosts", list(names))
        texts = [_link_text(link) for link in group_links]
        links.append(Link(f"{gid} links", gid, hub, _summarised(texts, len(names))))
    for link in links_in:
        a, b = str(link["a"]), str(link["b"])
        if a in member_of or b in member_of:
            continue
        links.append(Link(str(link.get("name")), a, b, _link_text(link)))
    arrows, listed = _applications(apps, profiles, member_of, nodes)
    run = d.get("run", {})
    title = f"{run.get('name') or 'scenario'}: {len(kind)} nodes, {len(links_in)} links"
    net = Network(title, nodes, links, arrows, listed)
    net.pos = _layout(net)
    return net


def _applications(
    apps: Sequence[Mapping[str, Any]],
    profiles: Sequence[Mapping[str, Any]],
    member_of: Mapping[str, str],
    nodes: Mapping[str, Node],
) -> tuple[list[Arrow], list[str]]:
    """One arrow per (kind, sender, receiver) of the drawn nodes, and a line per application
    group (same kind, server and group or name) for the list."""
    shown = {n: member_of.get(n, n) for n in nodes} | dict(member_of)
    ends: dict[tuple[str, str, str, bool], int] = {}
    lines: dict[tuple[str, str, str, str], list[Mapping[str, Any]]] = {}

    def add(app: Mapping[str, Any], client: str, server: str, group: str) -> None:
        kind = str(app.get("kind"))
        server_sends, client_sends = _app_sends(app)
        c, s = shown.get(client, client), shown.get(server, server)
        sender, receiver = (s, c) if server_sends else (c, s)
        key = (kind, sender, receiver, server_sends and client_sends)
        ends[key] = ends.get(key, 0) + 1
        way = "↔" if server_sends and client_sends else ("←" if server_sends else "→")
        lines.setdefault((kind, server, group, way), []).append({**app, "client": client})

    for a in apps:
        add(a, str(a.get("client")), str(a.get("server")), str(a.get("group") or a.get("name")))
    for p in profiles:
        for a in p.get("apps", []):
            server = str(a.get("server") or p.get("server"))
            for host in p.get("hosts", []):
                add(a, str(host), server, f"profile {p.get('name')}: {a.get('name')}")
    arrows = [
        Arrow(sender, receiver, kind, kind if n == 1 else f"{kind} ×{n}", both)
        for (kind, sender, receiver, both), n in ends.items()
    ]
    if len(lines) > MOST_APP_LINES:  # too many to list one by one: by kind and server
        merged: dict[tuple[str, str, str, str], list[Mapping[str, Any]]] = {}
        for (kind, server, _, way), members in lines.items():
            merged.setdefault((kind, server, kind, way), []).extend(members)
        lines = merged
    listed = []
    for (kind, server, group, way), members in lines.items():
        clients = _names_text(sorted({str(m["client"]) for m in members}))
        what = f"{kind} ×{len(members)}" if len(members) > 1 else kind
        single = len(members) == 1 and not group.startswith("profile ")
        name = str(members[0].get("name")) if single else group
        sizes = {str(m.get("size")) for m in members if m.get("size") is not None}
        extra = f", {_size(next(iter(sizes)))}" if len(sizes) == 1 else ""
        if len(sizes) == 1 and len(members) > 1:
            extra += " each"
        head = what if name == kind else f"{name} ({what})"
        listed.append(f"{head}: {clients} {way} {server}{extra}")
    return arrows, listed


# -- layout ------------------------------------------------------------------------------------


def _bfs(adj: Mapping[str, Sequence[str]], start: str) -> dict[str, str | None]:
    parent: dict[str, str | None] = {start: None}
    todo = deque([start])
    while todo:
        u = todo.popleft()
        for v in adj[u]:
            if v not in parent:
                parent[v] = u
                todo.append(v)
    return parent


def _spine(adj: Mapping[str, Sequence[str]], comp: Sequence[str]) -> list[str]:
    """A longest shortest path of the component (two breadth-first searches)."""
    far = list(_bfs(adj, comp[0]))[-1]
    parent = _bfs(adj, far)
    end: str | None = list(parent)[-1]
    path = []
    while end is not None:
        path.append(end)
        end = parent[end]
    return path


def _layout(net: Network) -> dict[str, tuple[float, float]]:
    adj: dict[str, list[str]] = {n: [] for n in net.nodes}
    for link in net.links:
        adj[link.a].append(link.b)
        adj[link.b].append(link.a)
    for n in adj:
        adj[n].sort(key=_natural)
    senders = {a.sender for a in net.arrows}
    receivers = {a.receiver for a in net.arrows}
    pos: dict[str, tuple[float, float]] = {}
    top = 0.0
    seen: set[str] = set()
    for start in sorted(net.nodes, key=_natural):
        if start in seen:
            continue
        comp = list(_bfs(adj, start))
        seen |= set(comp)
        spine = _spine(adj, comp)
        # Receivers (clients of a download) on the left, senders on the right.
        left, right = spine[0], spine[-1]
        if (left in senders and left not in receivers) or (
            right in receivers and right not in senders
        ):
            spine.reverse()
        k = len(spine) - 1
        col = {n: i for i, n in enumerate(spine)}
        # Each other node: its nearest spine node and how far from it.
        where: dict[str, tuple[int, int]] = {n: (i, 0) for i, n in enumerate(spine)}
        todo = deque(spine)
        while todo:
            u = todo.popleft()
            i, depth = where[u]
            for v in adj[u]:
                if v not in where:
                    where[v] = (i, depth + 1)
                    todo.append(v)
        for n, (i, depth) in where.items():
            if depth == 0:
                continue
            if 2 * i < k:
                col[n] = i - depth
            elif 2 * i > k:
                col[n] = i + depth
            else:
                col[n] = min(k, i + depth - 1)
        # The spine's inner nodes on row 0; its two ends, when they are leaves, sorted with
        # the other nodes of their column.
        ends = {n for n in (spine[0], spine[-1]) if len(adj[n]) == 1 and len(spine) > 1}
        rows: dict[str, float] = {n: 0.0 for n in spine if n not in ends}
        by_col: dict[int, list[str]] = {}
        for n in sorted(where, key=lambda n: (where[n][1], _natural(n))):
            if n not in rows:
                by_col.setdefault(col[n], []).append(n)
        for c in sorted(by_col, key=lambda c: abs(2 * c - k)):  # from the middle out
            others = sorted(by_col[c], key=lambda n: (-_bary(n, adj, rows), _natural(n)))
            pinned = any(col[s] == c for s in spine if s in rows)
            for n, r in zip(others, _slots(len(others), pinned), strict=True):
                rows[n] = r
        lo = min(rows.values())
        hi = max(rows.values())
        for n in comp:
            pos[n] = (float(col[n]), top + (rows[n] - hi))
        top -= hi - lo + 1.5
    return pos


def _bary(n: str, adj: Mapping[str, Sequence[str]], rows: Mapping[str, float]) -> float:
    """The mean row of `n`'s neighbours placed so far (0 when none is)."""
    placed = [rows[v] for v in adj[n] if v in rows]
    return sum(placed) / len(placed) if placed else 0.0


def _slots(n: int, pinned: bool) -> list[float]:
    """Rows for `n` nodes of a column, top first: centred on row 0, or around a node pinned
    there (half of them above it, half below)."""
    if pinned:
        above = (n + 1) // 2
        return [float(above - i) for i in range(above)] + [float(-1 - i) for i in range(n - above)]
    return [(n - 1) / 2 - i for i in range(n)]


# -- drawing -----------------------------------------------------------------------------------


def _box(ax: Any, x: float, y: float, node: Node) -> None:
    fill, edge = _KIND_STYLE.get(node.kind, _KIND_STYLE["host"])
    style = "round,pad=0.35" if node.kind != "switch" else "square,pad=0.35"
    common = {"ha": "center", "va": "center", "fontsize": 7, "zorder": 4}
    if node.members:  # a stack of hosts
        for dx in (0.05, 0.025):
            ax.text(x + dx, y + dx * 1.6, node.label, color=(0, 0, 0, 0), zorder=3,
                    ha="center", va="center", fontsize=7,
                    bbox={"boxstyle": style, "fc": fill, "ec": edge, "lw": 0.8})  # fmt: skip
    weight = "bold" if node.kind != "host" else "normal"
    ax.text(x, y, node.label, fontweight=weight, **common,
            bbox={"boxstyle": style, "fc": fill, "ec": edge, "lw": 0.9})  # fmt: skip


@dataclass
class _Arc:
    arrow: Arrow
    start: tuple[float, float]  # data coordinates
    end: tuple[float, float]
    rad: float  # matplotlib's arc3 rad
    label_at: tuple[float, float]
    top: float  # the highest point of the arc


def _arcs(net: Network, arrows: Sequence[Arrow]) -> list[_Arc]:
    """Each application's arc, from the top of one box to the top of the other, bulging
    upwards over the nodes between them, each later arc of a node higher; its label at the
    first of the middle, a third or a quarter of the way from the sender, and so on, that
    is clear of every node and earlier label. Computed in inches (`_COL_IN` by `_ROW_IN` per
    unit), as matplotlib draws arc3."""
    out = []
    used: dict[str, int] = {}
    taken = [(x * _COL_IN, y * _ROW_IN) for x, y in net.pos.values()]

    def height(a: Arrow) -> tuple[float, list[Any]]:
        return net.pos[a.sender][1] + net.pos[a.receiver][1], _natural(a.sender + a.receiver)

    for a in sorted(arrows, key=height):  # the lowest pairs first, nearest their line
        (x0, y0), (x1, y1) = net.pos[a.sender], net.pos[a.receiver]
        p0 = (x0 * _COL_IN, (y0 + 0.2) * _ROW_IN)
        p1 = (x1 * _COL_IN, (y1 + 0.2) * _ROW_IN)
        k = max(used.get(a.sender, 0), used.get(a.receiver, 0))
        used[a.sender] = used[a.receiver] = k + 1
        dx, dy = p1[0] - p0[0], p1[1] - p0[1]
        dist = max((dx * dx + dy * dy) ** 0.5, 1e-6)
        # Over the nodes between the two ends, by a little more for each earlier arc of
        # either end (in rows, then inches).
        between = [y for x, y in net.pos.values() if min(x0, x1) < x < max(x0, x1)]
        clear = max(between, default=-1e9) + 0.5 - (y0 + y1 + 0.4) / 2
        rise = (max(0.28, clear) + 0.22 * k) * _ROW_IN
        sign = 1.0 if dx >= 0 else -1.0
        normal = (-dy / dist * sign, dx / dist * sign)  # unit, upwards
        ctrl = ((p0[0] + p1[0]) / 2 + 2 * rise * normal[0],
                (p0[1] + p1[1]) / 2 + 2 * rise * normal[1])  # fmt: skip

        def at(t: float) -> tuple[float, float]:
            u = 1 - t
            x = u * u * p0[0] + 2 * t * u * ctrl[0] + t * t * p1[0]  # noqa: B023
            y = u * u * p0[1] + 2 * t * u * ctrl[1] + t * t * p1[1]  # noqa: B023
            return x / _COL_IN, y / _ROW_IN

        top = max(at(i / 20)[1] for i in range(21))

        def clearance(t: float) -> float:
            x, y = at(t)
            return min(
                (((x * _COL_IN - u) / 1.6) ** 2 + (y * _ROW_IN - v) ** 2) ** 0.5 for u, v in taken
            )

        tries = (0.5, 0.35, 0.65, 0.25, 0.75, 0.15, 0.85)
        t = next((t for t in tries if clearance(t) > 0.3), max(tries, key=clearance))
        label = at(t)
        taken.append((label[0] * _COL_IN, label[1] * _ROW_IN))
        out.append(_Arc(a, (x0, y0 + 0.2), (x1, y1 + 0.2), -2 * rise / dist * sign, label, top))
    return out


@styled
def draw_network(d: Mapping[str, Any] | Network) -> Figure:
    """The diagram of a scenario's dict (or of a `network` made from one): one unit of the
    layout is `_COL_IN` inches across and `_ROW_IN` down, whatever the network's size."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch

    net = d if isinstance(d, Network) else network(d)
    xs = [p[0] for p in net.pos.values()] or [0.0]
    ys = [p[1] for p in net.pos.values()] or [0.0]
    arrows = net.arrows if len(net.arrows) <= MOST_ARROWS else []
    arcs = _arcs(net, arrows)
    listed = net.apps[:MOST_APP_LINES]
    if len(net.apps) > MOST_APP_LINES:
        listed.append(f"… {len(net.apps) - MOST_APP_LINES} more")
    kinds = sorted({n.kind for n in net.nodes.values()})
    # Room: the title, the arcs above, the link labels below, the list and the legend.
    foot_lines = max(len(listed) + 1 if listed else 0, len(kinds) + (1 if arrows else 0))
    left, right = min(xs) - 0.6, max(xs) + 0.6
    top = max([max(ys) + 0.5, *(a.top + 0.25 for a in arcs)]) + 0.35
    bottom = min(ys) - 0.85 - (0.2 + 0.15 * foot_lines) / _ROW_IN
    width, height = (right - left) * _COL_IN, (top - bottom) * _ROW_IN
    if width < 3.5:
        left, right = left - (3.5 - width) / _COL_IN / 2, right + (3.5 - width) / _COL_IN / 2
        width = 3.5
    fig, ax = new_figure(figsize=(width, height))
    fig.set_layout_engine("none")
    ax.set_position((0.0, 0.0, 1.0, 1.0))  # one data unit = _COL_IN by _ROW_IN inches
    ax.set_axis_off()
    ax.set_xlim(left, right)
    ax.set_ylim(bottom, top)
    degree: dict[str, int] = {}
    for link in net.links:
        degree[link.a] = degree.get(link.a, 0) + 1
        degree[link.b] = degree.get(link.b, 0) + 1
    for link in net.links:
        (x0, y0), (x1, y1) = net.pos[link.a], net.pos[link.b]
        ax.plot([x0, x1], [y0, y1], color="#555555", lw=1.3, zorder=1, solid_capstyle="round")
        leaf = link.a if degree[link.a] == 1 else (link.b if degree[link.b] == 1 else None)
        if leaf is not None:  # under the end node, in its own row: fanned links stay apart
            (tx, ty), va = net.pos[leaf], "top"
            ty -= 0.24 + (0.1 if net.nodes[leaf].members else 0.0)
        elif y0 == y1:  # below a horizontal link (the applications' arcs run above), and
            # below the boxes at its ends when one is taller than a line
            tall = max(net.nodes[n].label.count("\n") for n in (link.a, link.b))
            tx, ty, va = (x0 + x1) / 2, y0 - 0.1 - 0.22 * tall, "top"
        else:
            tx, ty, va = (x0 + x1) / 2, (y0 + y1) / 2, "center"
        ax.text(tx, ty, link.text, ha="center", va=va, fontsize=7, color="#333333",
                zorder=2, linespacing=1.1,
                bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                      "alpha": 0.85})  # fmt: skip
    for name, node in net.nodes.items():
        _box(ax, *net.pos[name], node)
    app_kinds = sorted({a.kind for a in arrows})
    colour = {k: PALETTE[(i + 2) % len(PALETTE)] for i, k in enumerate(app_kinds)}
    for arc in arcs:
        a = arc.arrow
        ax.add_patch(FancyArrowPatch(arc.start, arc.end, connectionstyle=f"arc3,rad={arc.rad}",
                                     arrowstyle="<|-|>" if a.both else "-|>", mutation_scale=9,
                                     lw=1.0, color=colour[a.kind], ls=(0, (4, 2)), zorder=3,
                                     shrinkA=2, shrinkB=2))  # fmt: skip
        ax.text(*arc.label_at, a.label, ha="center", va="center", fontsize=7,
                color=colour[a.kind], zorder=5,
                bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none"})  # fmt: skip
    handles = [
        Line2D([], [], marker="s", ls="", ms=7, mfc=fill, mec=edge, label=_KIND_NAME[k])
        for k, (fill, edge) in _KIND_STYLE.items()
        if k in kinds
    ]
    if arrows:
        handles.append(Line2D([], [], color="#555555", ls=(0, (4, 2)), lw=1.0,
                              label="application: data sender → receiver"))  # fmt: skip
    ax.legend(handles=handles, loc="lower right", ncol=1, frameon=False,
              borderaxespad=0.4, handletextpad=0.4)  # fmt: skip
    if listed:
        ax.text(left + 0.05, bottom + 0.12, "Applications\n" + "\n".join(listed), ha="left",
                va="bottom", fontsize=7, color="#222222", linespacing=1.25)  # fmt: skip
    ax.text(left + 0.05, top - 0.1, net.title, ha="left", va="top", fontsize=8)
    return fig
