"""The scenario drawn as a network (issue 32): what each node, link and application shows,
the layout (readable from a chain to a campus of 100 hosts), `tcplab draw`, the notebook
view and `Scenario.draw`."""

from __future__ import annotations

import subprocess
import sys
from itertools import combinations
from pathlib import Path

import matplotlib.text
import pytest
import tcplab
from conftest import EXAMPLE, ROOT
from tcplab import errors, topology
from tcplab.report.netdraw import GROUP_MIN, draw_network, network
from tcplab.report.plots import MIN_FONT_PT

TCPLAB = [str(Path(sys.executable).parent / "tcplab")]
CAMPUS = ROOT / "examples" / "campus.toml"


def _net(sc: tcplab.Scenario):
    return network(sc.to_dict(normalized=True))


def _texts(fig) -> list[matplotlib.text.Text]:
    return [t for t in fig.findobj(matplotlib.text.Text) if t.get_text().strip()]


def _boxes_apart(fig) -> None:
    """No two node boxes (the bold or bordered labels) overlap on the canvas, and every text
    lies inside the figure."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    page = fig.bbox
    boxes = []
    for t in _texts(fig):
        ext = t.get_window_extent(renderer)
        assert page.x0 - 1 <= ext.x0 and ext.x1 <= page.x1 + 1, t.get_text()
        assert page.y0 - 1 <= ext.y0 and ext.y1 <= page.y1 + 1, t.get_text()
        patch = t.get_bbox_patch()
        if patch is not None and t.get_zorder() == 4:  # a node
            boxes.append((t.get_text(), patch.get_window_extent(renderer)))
    assert len(boxes) >= 3
    for (na, a), (nb, b) in combinations(boxes, 2):
        assert not a.overlaps(b), (na, nb)


def test_the_example_shows_its_links_and_its_download() -> None:
    net = _net(tcplab.Scenario.from_toml(EXAMPLE))
    assert set(net.nodes) == {"client", "cloud", "server"}
    wan = next(link for link in net.links if link.name == "wan")
    # 1 % PER on the data direction only (server -> cloud): named with its direction.
    assert wan.text.split("\n") == ["wan", "10Mbps · 20ms", "queue ∞", "→cloud: PER 1%"]
    (ftp,) = net.arrows
    assert (ftp.sender, ftp.receiver, ftp.label) == ("server", "client", "ftp")
    assert net.apps == ["ftp: client ← server, 10 MB"]
    # clients on the left, the path left to right
    assert net.pos["client"][0] < net.pos["cloud"][0] < net.pos["server"][0]
    assert net.pos["client"][1] == net.pos["cloud"][1] == net.pos["server"][1]


def test_a_campus_of_100_hosts_reads_as_one_of_ten() -> None:
    small, big = _net(tcplab.Scenario.from_toml(CAMPUS)), _net(topology.campus(100))
    for net, n in ((small, 10), (big, 100)):
        group = net.nodes["switch hosts"]
        assert len(group.members) == n and group.label.endswith(f"{n} hosts")
        assert len(net.nodes) == 8  # the group, switch, 3 routers, 3 servers
        text = next(link.text for link in net.links if link.a == "switch hosts")
        assert text.split("\n")[:2] == [f"{n} links", "100Mbps · 10us"]
        assert {a.label for a in net.arrows} == {f"http ×{n}", f"database ×{n}", f"ftp ×{n}"}
    fig_small, fig_big = draw_network(small), draw_network(big)
    assert fig_small.get_size_inches() == pytest.approx(fig_big.get_size_inches())
    for fig in (fig_small, fig_big):
        assert all(t.get_fontsize() >= MIN_FONT_PT for t in _texts(fig))
        _boxes_apart(fig)
    # The firewall's processing delay is on its box; servers are drawn one by one.
    assert "50us processing" in small.nodes["firewall"].label
    assert {"http_server", "db_server", "ftp_server"} <= set(small.nodes)


def test_hosts_below_the_group_size_and_servers_stay_apart() -> None:
    net = _net(topology.dumbbell(GROUP_MIN - 1, error={"model": "ber", "ber": 1e-6}))
    assert {f"s{i}" for i in range(1, GROUP_MIN)} <= set(net.nodes)
    bottleneck = next(link for link in net.links if link.name == "bottleneck")
    assert "queue 100p" in bottleneck.text and "→r2: BER 1e-06" in bottleneck.text
    # each flow's two ends on the same row, senders on the right
    for i in range(1, GROUP_MIN):
        assert net.pos[f"s{i}"][1] == net.pos[f"d{i}"][1]
        assert net.pos[f"s{i}"][0] > net.pos[f"d{i}"][0]
    _boxes_apart(draw_network(net))
    star = _net(topology.star(20))
    assert "server" in star.nodes and len(star.nodes["hub hosts"].members) == 20
    assert star.apps == ["ftp ×20: h1 … h20 ← server, 1 MB each"]


def test_directions_queues_aqm_errors_filters_and_profiles_are_shown() -> None:
    d = tcplab.Scenario.from_toml(EXAMPLE).to_dict()
    d["nodes"][1]["rules"] = [{"action": "drop", "protocol": "udp"}]
    d["links"][0]["queue"] = "20p"
    d["links"][0]["aqm"] = {"kind": "red", "min_th": 5, "max_th": 15}
    d["links"][0]["framing"] = "ppp"
    d["links"][0]["ba"] = {"rate": "1Mbps", "error": {"model": "gilbert-elliott", "p_gb": 0.01,
                                                        "p_bg": 0.5, "bad_per": 1}}  # fmt: skip
    d["profiles"] = [{"name": "office", "hosts": ["client"], "server": "server",
                      "apps": [{"name": "get", "kind": "ftp", "size": "1MB"}]}]  # fmt: skip
    net = network(tcplab.Scenario.from_dict(d).to_dict(normalized=True))
    wan = next(link for link in net.links if link.name == "wan").text.split("\n")
    a, b = d["links"][0]["a"], d["links"][0]["b"]
    assert "queue 20p RED" in wan and "ppp" in wan
    assert f"→{b}: 10Mbps · 20ms" in wan and f"→{a}: 1Mbps · 20ms" in wan
    assert f"→{b}: PER 1%" in wan and f"→{a}: Gilbert-Elliott" in wan
    assert net.nodes["cloud"].kind == "firewall" and "1 filter rules" in net.nodes["cloud"].label
    assert "profile office: get (ftp): client ← server, 1 MB" in net.apps
    assert len(net.arrows) == 1 and net.arrows[0].label == "ftp ×2"  # the app and the profile's


def test_tcplab_draw_writes_the_drawing(tmp_path: Path) -> None:
    done = subprocess.run([*TCPLAB, "draw", str(CAMPUS)], cwd=tmp_path, capture_output=True,
                          text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "wrote campus.png and campus.svg"
    assert (tmp_path / "campus.png").read_bytes()[:4] == b"\x89PNG"
    out = tmp_path / "d" / "net.pdf"
    done = subprocess.run([*TCPLAB, "draw", str(EXAMPLE), "--out", str(out), "--set",
                           "links.wan.rate=5Mbps"], capture_output=True, text=True)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert out.read_bytes()[:5] == b"%PDF-" and (tmp_path / "d" / "net.svg").exists()
    for args, message in (
        (["--out", "x.jpg"], "error: --out: invalid value 'x.jpg'"),
        (["--set", "links.wan.rate=5M"], 'error: links.wan.rate: invalid value "5M"'),
    ):
        bad = subprocess.run([*TCPLAB, "draw", str(EXAMPLE), *args], cwd=tmp_path,
                             capture_output=True, text=True)  # fmt: skip
        assert bad.returncode == 2 and bad.stderr.startswith(message), bad.stderr
        assert "Traceback" not in bad.stderr


def test_notebook_view_and_scenario_draw(tmp_path: Path) -> None:
    sc = tcplab.Scenario.from_toml(EXAMPLE)
    html = sc._repr_html_()
    assert "<h4>Network</h4>" in html and "<svg" in html and "<?xml" not in html
    assert html.index("<h4>Network</h4>") < html.index("<h4>Nodes</h4>")
    fig = sc.draw(tmp_path / "n.svg")
    assert (tmp_path / "n.svg").exists() and (tmp_path / "n.png").exists()
    assert any(t.get_text() == "cloud" for t in _texts(fig))
    with pytest.raises(errors.InvalidValueError, match="path: invalid value"):
        sc.draw(tmp_path / "n.gif")
