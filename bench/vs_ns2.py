"""tcplab against ns-2.35, run for run (issue 34): `make bench`, or

    python bench/vs_ns2.py            # dumbbell at 1, 100, 1000 flows and ns-2's chain, 5 pairs
    python bench/vs_ns2.py --quick    # dumbbell at 1 and 10 flows, a 300 s chain, 2 pairs
    python bench/vs_ns2.py --flows 1 100 --pairs 7 --json

Cases. The dumbbell: s_i --(100 Mb/s, 1 ms)-- r1 ==(1 Gb/s, 10 ms, drop-tail 1000 packets each
way)== r2 --(100 Mb/s, 1 ms)-- d_i, one bulk flow s_i -> d_i per pair from 0 s to the stop time:
for ns-2 a Tcl script written here (Agent/TCP/Newreno, Agent/TCPSink, Application/FTP,
packetSize_ 1000, window_ 20; the access links keep ns-2's 50-packet queues, which a window of
20 never fills), for tcplab the same scenario with the `ns2` profile (newreno, mss 1000, a
20-packet window as rcv_buf, no link framing: ns-2's packets are 1040 bytes on the wire, ours
too). ns-2's chain: `conformance/ns2/chain.tcl` (newreno, 1 % loss, 4 ms) for 3000 s, and its
paired tcplab scenario (`tcplab.conformance.ns2.scenario(..., paired=True)`: ns-2's loss
sequence and tick phase), so both sides run the same packets.

Each pair runs ns-2 then tcplab, each in its own process, and the pairs follow one another
(ns-2, tcplab, ns-2, tcplab, ...), so that a change of load on a shared machine hits both sides.
Both processes run on the same one CPU (the last this process may use), so that neither side
is moved between CPUs mid-run. Run-only time: for ns-2, Tcl's `clock microseconds` from an event
at 0 s scheduled before any other (so after the script's set-up and `$ns run`'s route
computation) to the event at the stop time, before the script tallies what its agents counted;
for tcplab, likewise the events to the end of the run (`Sim::run_to_end` in the Rust `bench`
example, its `events_s`), before the summary and tables are made (`output_s`, shown beside the
set-up: a few per cent of the run at 1,000 flows, nothing at one). Set-up: for ns-2 the
process's wall time minus its run; for tcplab the Python build and validation of the scenario,
plus the core's JSON parse and `Sim::new`. Peak memory: each process's ru_maxrss (VmHWM). Data
segments: ns-2's agents' `ndatapack_` summed, tcplab's `data_segments_sent` summed; the two must
agree within 3 % (the script says so and exits 1 if not).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BENCH_BIN = ROOT / "target" / "release" / "examples" / "bench"
CHAIN_P, CHAIN_DELAY_MS, CHAIN_SEED = 0.01, 4, 1
#: Simulated seconds per dumbbell size: each ns-2 run a few seconds long.
DUMBBELL_STOP_S = {1: 300.0, 10: 60.0, 100: 10.0, 1000: 5.0}
AGREE = 0.03

DUMBBELL_TCL = r"""# issue 34's dumbbell: N bulk Newreno flows over one bottleneck until STOP s.
# usage: ns dumbbell.tcl N STOP      prints one line of key=value pairs at STOP
set n    [lindex $argv 0]
set stop [lindex $argv 1]
set ns [new Simulator]
# Before any other event at 0 s: the run's start, after every set-up step.
$ns at 0.0 {set ::t_run [clock microseconds]}
set r1 [$ns node]
set r2 [$ns node]
$ns duplex-link $r1 $r2 1Gb 10ms DropTail
$ns queue-limit $r1 $r2 1000
$ns queue-limit $r2 $r1 1000
for {set i 0} {$i < $n} {incr i} {
    set s [$ns node]
    set d [$ns node]
    $ns duplex-link $s $r1 100Mb 1ms DropTail
    $ns duplex-link $r2 $d 100Mb 1ms DropTail
    set tcp($i) [new Agent/TCP/Newreno]
    $tcp($i) set packetSize_ 1000
    $tcp($i) set window_ 20
    set sink [new Agent/TCPSink]
    $ns attach-agent $s $tcp($i)
    $ns attach-agent $d $sink
    $ns connect $tcp($i) $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp($i)
    $ns at 0.0 "$ftp start"
}
proc finish {} {
    global tcp n
    set run_us [expr {[clock microseconds] - $::t_run}]
    set data 0
    set rexmit 0
    for {set i 0} {$i < $n} {incr i} {
        incr data [$tcp($i) set ndatapack_]
        incr rexmit [$tcp($i) set nrexmitpack_]
    }
    puts "bench_run_us=$run_us data_pkts_sent=$data retransmitted_pkts=$rexmit"
    exit 0
}
$ns at $stop "finish"
$ns run
"""

#: Added to chain.tcl (through its NS_EXTRA hook, evaluated before its own events are made):
#: the same two clock readings as in the dumbbell.
CHAIN_EXTRA = (
    "$ns at 0.0 {set ::t_run [clock microseconds]}; "
    '$ns at $stop {puts "bench_run_us=[expr {[clock microseconds] - $::t_run}]"}'
)


def dumbbell(n: int, stop_s: float) -> dict[str, Any]:
    """The tcplab side of the dumbbell. Built here rather than by `tcplab.topology.dumbbell`,
    which has no parameter for the links' framing (ns-2 has none)."""

    def link(name: str, a: str, b: str, rate: str, delay: str, **more: Any) -> dict[str, Any]:
        return {"name": name, "a": a, "b": b, "rate": rate, "delay": delay,
                "framing": "none", **more}  # fmt: skip

    nodes = [{"name": "r1", "kind": "router"}, {"name": "r2", "kind": "router"}]
    links = [link("bottleneck", "r1", "r2", "1Gbps", "10ms", queue="1000p")]
    apps = []
    for i in range(n):
        nodes += [{"name": f"s{i}", "kind": "host"}, {"name": f"d{i}", "kind": "host"}]
        links += [link(f"s{i}", f"s{i}", "r1", "100Mbps", "1ms"),
                  link(f"d{i}", "r2", f"d{i}", "100Mbps", "1ms")]  # fmt: skip
        apps.append({"name": f"flow{i}", "kind": "bulk", "client": f"s{i}",
                     "server": f"d{i}", "start": "0s"})  # fmt: skip
    return {
        "run": {"name": f"vs-ns2-dumbbell-{n}", "seed": 1, "stop_time": f"{stop_s:g}s"},
        # ns-2's window_ of 20 packets as the receive buffer, as the conformance suite does.
        "tcp": {
            "profile": "ns2",
            "congestion_control": "newreno",
            "loss_recovery": "newreno",
            "mss": 1000,
            "rcv_buf": 20 * 1000,
        },
        "nodes": nodes,
        "links": links,
        "apps": apps,
        "output": {"trace": False},
    }


def chain(stop_s: float) -> dict[str, Any]:
    """The tcplab side of ns-2's chain for `stop_s` seconds: the conformance suite's paired
    scenario, its loss list long enough for the whole run."""
    from tcplab.conformance import ns2

    data = ns2.scenario("newreno", CHAIN_P, CHAIN_DELAY_MS, CHAIN_SEED, paired=True)
    data["run"]["stop_time"] = f"{stop_s:g}s"
    packets = int(stop_s * 2e6 / 8 / ns2.PKTSIZE) + 1000  # more than 2 Mb/s can carry
    frames = ns2.ns2_losses(CHAIN_P, CHAIN_SEED, packets)
    data["links"][1]["ab"] = {"error": {"model": "list", "frames": list(frames)}}
    return data


def measured(cmd: list[str], env: dict[str, str] | None = None) -> tuple[str, float, float]:
    """Run `cmd`; its stdout, wall seconds and peak resident memory (MB, ru_maxrss)."""
    t0 = time.perf_counter()
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env, cwd=ROOT)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {err.read()[-500:]}")
        return out.read(), wall, usage.ru_maxrss / 1024


def _fields(line: str) -> dict[str, str]:
    return dict(item.partition("=")[::2] for item in line.split())


@dataclass
class Case:
    name: str
    ns_cmd: list[str]
    ns_env: dict[str, str] | None
    build: Callable[[], dict[str, Any]]
    flows: int | None = None
    runs: list[dict[str, float]] = field(default_factory=list)
    build_s: float = 0.0

    def pair(self, json_path: str) -> dict[str, float]:
        out, wall, rss = measured(self.ns_cmd, self.ns_env)
        f = {}
        for line in out.splitlines():
            f.update(_fields(line))
        run_s = int(f["bench_run_us"]) / 1e6
        ns = {"ns2_run_s": run_s, "ns2_setup_s": wall - run_s, "ns2_peak_mb": rss,
              "ns2_segments": int(f["data_pkts_sent"])}  # fmt: skip
        out, wall, rss = measured([str(BENCH_BIN), json_path])
        r = json.loads(out)
        row = {
            **ns,
            "tcplab_run_s": r["events_s"],
            "tcplab_output_s": r["output_s"],
            "tcplab_setup_s": self.build_s + r["parse_s"] + r["setup_s"],
            "tcplab_core_setup_s": r["parse_s"] + r["setup_s"],
            "tcplab_peak_mb": rss,
            "tcplab_segments": int(r["data_segments"]),
        }
        row["ns2_us_per_segment"] = row["ns2_run_s"] * 1e6 / max(row["ns2_segments"], 1)
        row["tcplab_ns_per_segment"] = row["tcplab_run_s"] * 1e9 / max(row["tcplab_segments"], 1)
        row["ratio"] = row["ns2_us_per_segment"] * 1e3 / row["tcplab_ns_per_segment"]
        self.runs.append(row)
        return row


def summary(case: Case, command: str) -> dict[str, Any]:
    med = lambda k: statistics.median(r[k] for r in case.runs)  # noqa: E731
    ratios = sorted(r["ratio"] for r in case.runs)
    seg_ns2, seg_us = case.runs[0]["ns2_segments"], case.runs[0]["tcplab_segments"]
    return {
        "figure": f"vs ns-2: {case.name}",
        "flows": case.flows,
        "pairs": len(case.runs),
        "ns2_us_per_segment": med("ns2_us_per_segment"),
        "tcplab_ns_per_segment": med("tcplab_ns_per_segment"),
        "ratio_median": statistics.median(ratios),
        "ratio_min": ratios[0],
        "ratio_max": ratios[-1],
        "ratios": ratios,
        "ns2_segments": seg_ns2,
        "tcplab_segments": seg_us,
        "segments_agree": abs(seg_us - seg_ns2) <= AGREE * max(seg_ns2, 1),
        "ns2_setup_s": med("ns2_setup_s"),
        "tcplab_setup_s": med("tcplab_setup_s"),
        "tcplab_build_s": case.build_s,
        "tcplab_core_setup_s": med("tcplab_core_setup_s"),
        "tcplab_output_s": med("tcplab_output_s"),
        "ns2_peak_mb": max(r["ns2_peak_mb"] for r in case.runs),
        "tcplab_peak_mb": max(r["tcplab_peak_mb"] for r in case.runs),
        "command": command,
    }


def build_bench() -> None:
    subprocess.run(
        ["cargo", "build", "--release", "-q", "-p", "tcplab-sim", "--example", "bench"],
        cwd=ROOT,
        check=True,
    )


def run(flows: list[int], chain_s: float, pairs: int, command: str) -> Iterator[dict[str, Any]]:
    """Each case's summary (a generator, so that each is shown when done)."""
    import tcplab

    ns = shutil.which("ns")
    assert ns is not None
    # Under target/ (ignored by git), away from cleaners of /tmp: a 1000-flow case lasts minutes.
    with tempfile.TemporaryDirectory(prefix="vs_ns2-", dir=ROOT / "target") as tmp:
        tcl = Path(tmp) / "dumbbell.tcl"
        tcl.write_text(DUMBBELL_TCL)
        cases = []
        for n in flows:
            stop = DUMBBELL_STOP_S.get(n, 5.0)
            cases.append(Case(f"dumbbell, {n} flow{'s' * (n > 1)}, {stop:g} s",
                              [ns, str(tcl), str(n), f"{stop:g}"], None,
                              lambda n=n, stop=stop: dumbbell(n, stop), n))  # fmt: skip
        if chain_s > 0:
            from tcplab.conformance import ns2

            env = {**os.environ, "NS_EXTRA": CHAIN_EXTRA}
            args = ["newreno", repr(CHAIN_P), str(CHAIN_DELAY_MS), str(CHAIN_SEED), f"{chain_s:g}"]
            cases.append(Case(f"ns-2's chain, 1 % loss, {chain_s:g} s",
                              [ns, str(ns2.tcl_script()), *args], env,
                              lambda: chain(chain_s)))  # fmt: skip
        for case in cases:
            # The Python side's set-up: the scenario built and checked (for the chain, not the
            # replay of ns-2's RNG that gives its loss list).
            data = case.build() if case.ns_env else None
            t0 = time.perf_counter()
            sc = tcplab.Scenario.from_dict(data or case.build())
            case.build_s = time.perf_counter() - t0
            path = Path(tmp) / "scenario.json"
            path.write_text(sc.to_json())
            for i in range(pairs):
                row = case.pair(str(path))
                # Progress, for long cases (1000 flows: minutes of ns-2 set-up per pair).
                print(f"  {case.name}: pair {i + 1}/{pairs}: ratio {row['ratio']:.2f}, ns-2 "
                      f"{row['ns2_us_per_segment']:.3f} us/seg, set-up {row['ns2_setup_s']:.1f} s; "
                      f"tcplab {row['tcplab_ns_per_segment']:.0f} ns/seg", file=sys.stderr,
                      flush=True)  # fmt: skip
            yield summary(case, command)


def show(r: dict[str, Any]) -> None:
    print(
        f"{r['figure']:<40} ns-2 {r['ns2_us_per_segment']:7.3f} us/seg  "
        f"tcplab {r['tcplab_ns_per_segment']:7.1f} ns/seg  ratio {r['ratio_median']:5.2f}x "
        f"({r['ratio_min']:.2f}-{r['ratio_max']:.2f}, {r['pairs']} pairs)"
    )
    print(
        f"    segments ns-2 {r['ns2_segments']:,} tcplab {r['tcplab_segments']:,}"
        f" ({'within' if r['segments_agree'] else 'NOT within'} 3 %);"
        f" set-up ns-2 {r['ns2_setup_s']:.2f} s, tcplab {r['tcplab_setup_s']:.3f} s"
        f" (Python {r['tcplab_build_s']:.3f} s, core {r['tcplab_core_setup_s']:.3f} s),"
        f" output {r['tcplab_output_s']:.3f} s;"
        f" peak ns-2 {r['ns2_peak_mb']:.0f} MB, tcplab {r['tcplab_peak_mb']:.0f} MB"
    )
    print(f"    command: {r['command']}", flush=True)


def scaling(rows: list[dict[str, Any]], command: str) -> Iterator[dict[str, Any]]:
    """tcplab's cost per data segment at each dumbbell size against one flow's, from the medians
    of one run of this script (issue 34 asks at most 2.5 at 1,000 flows)."""
    one = next((r for r in rows if r["flows"] == 1), None)
    for r in rows:
        if one is not None and r["flows"] is not None and r["flows"] > 1:
            yield {
                "figure": f"tcplab scaling: {r['flows']} flows against 1",
                "flows": r["flows"],
                "tcplab_ns_per_segment": r["tcplab_ns_per_segment"],
                "one_flow_ns_per_segment": one["tcplab_ns_per_segment"],
                "ratio": r["tcplab_ns_per_segment"] / one["tcplab_ns_per_segment"],
                "command": command,
            }


def show_scaling(r: dict[str, Any]) -> None:
    print(
        f"{r['figure']:<40} {r['tcplab_ns_per_segment']:.1f} against "
        f"{r['one_flow_ns_per_segment']:.1f} ns/seg: {r['ratio']:.2f}x (medians of this run)"
    )
    print(f"    command: {r['command']}", flush=True)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="tcplab against ns-2.35, run for run (issue 34)")
    ap.add_argument("--quick", action="store_true", help="1 and 10 flows, a 300 s chain, 2 pairs")
    ap.add_argument(
        "--flows", type=int, nargs="*", help="dumbbell sizes (default 1 100 1000; none given: none)"
    )
    ap.add_argument("--chain", type=float, help="simulated seconds of the chain (0: none)")
    ap.add_argument("--pairs", type=int, help="pairs of runs per case (default 5)")
    ap.add_argument("--json", action="store_true", help="one JSON line per case")
    a = ap.parse_args(argv)
    flows = a.flows if a.flows is not None else ([1, 10] if a.quick else [1, 100, 1000])
    chain_s = a.chain if a.chain is not None else (300.0 if a.quick else 3000.0)
    pairs = a.pairs if a.pairs is not None else (2 if a.quick else 5)
    for name, v, ok in (("--flows", flows, all(1 <= n <= 10_000 for n in flows)),
                        ("--chain", chain_s, 0 <= chain_s <= 100_000),
                        ("--pairs", pairs, pairs >= 1)):  # fmt: skip
        if not ok:
            print(f"error: {name}: invalid value {v}; allowed: flows 1 to 10000, chain 0 to "
                  "100000 s, pairs at least 1", file=sys.stderr)  # fmt: skip
            return 2
    if shutil.which("ns") is None:
        print("vs ns-2: skipped (ns-2 is not installed: apt-get install -y ns2)")
        return 0
    build_bench()
    # One CPU for this process and so for both simulators, which inherit it (set here rather
    # than in each child before `exec`, which is unsafe once a library has started threads).
    os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
    sys.path.insert(0, str(ROOT / "python"))
    command = "python bench/vs_ns2.py " + " ".join(argv)
    ok = True
    rows = []
    for r in run(flows, chain_s, pairs, command.strip()):
        print(json.dumps(r), flush=True) if a.json else show(r)
        ok = ok and r["segments_agree"]
        rows.append(r)
    for r in scaling(rows, command.strip()):
        print(json.dumps(r), flush=True) if a.json else show_scaling(r)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
