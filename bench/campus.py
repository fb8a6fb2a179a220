"""Campus scale (issue 10): a campus built with `tcplab.topology.campus`, each user running 10
applications, 30 minutes simulated on one core (part of `make bench`).

    python bench/campus.py [USERS ...]        (default: 100 and 1000 users)

Each user runs 4 HTTP browsers (OPNET heavy browsing: a page every exponential(60 s)), 3
database clients (a 32 KB answer every exponential(12 s)) and 3 FTP clients (a 50 kB get every
exponential(360 s), each on a new connection), from a start drawn in 100-110 s, over a 100 Mbit/s
campus. Printed: build and validation time, simulation wall time (one `tcplab.run`, which uses
one core), events, and the process's peak memory.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from typing import Any


def campus(users: int) -> Any:
    import tcplab
    from tcplab import topology

    sc = topology.campus(users, stop_time="1800s", link_series="10s")
    d = sc.to_dict()
    hosts = [f"node_{i}" for i in range(users)]
    start = {"dist": "uniform", "min": "100s", "max": "110s"}
    http = {"kind": "http", "server": "http_server",
            "think_time": {"dist": "exponential", "mean": "60s"}}  # fmt: skip
    db = {"kind": "database", "server": "db_server", "response_size": "32768B",
          "interval": {"dist": "exponential", "mean": "12s"}}  # fmt: skip
    d["apps"] = []
    d["profiles"] = [
        {
            "name": "browse",
            "hosts": hosts,
            "start": start,
            "apps": [{"name": f"web{k}", **http} for k in range(4)]
            + [{"name": f"db{k}", **db} for k in range(3)],
        },
        {
            "name": "files",
            "hosts": hosts,
            "server": "ftp_server",
            "start": start,
            "repetitions": 20,
            "inter_repetition": {"dist": "exponential", "mean": "360s"},
            "apps": [{"name": f"get{k}", "kind": "ftp", "size": "50000B"} for k in range(3)],
        },
    ]
    return tcplab.Scenario.from_dict(d)


def measure(users: int) -> dict[str, Any]:
    import tcplab

    t0 = time.perf_counter()
    sc = campus(users)
    built = time.perf_counter() - t0
    t0 = time.perf_counter()
    r = tcplab.run(sc)
    wall = time.perf_counter() - t0
    s = r.summary
    apps = s["apps"]
    out = {
        "figure": f"campus, {users} users x 10 applications, 30 min simulated, one core",
        "users": users,
        "hosts": users + 3,
        "app_instances": len(apps),
        "build_s": built,
        "run_s": wall,
        "events": s.get("events"),
        "events_per_s": (s.get("events") or 0) / wall,
        "pages_and_queries": int(
            sum((a.get("transactions") or {}).get("completed", 0) for a in apps)
        ),
        "ftp_gets": sum(1 for a in apps if a["kind"] == "ftp" and a.get("completed")),
        "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "command": f"python bench/campus.py {users}",
    }
    return out


def main(argv: list[str]) -> int:
    ns = [int(a) for a in argv] or [100, 1000]
    for n in ns:
        if len(ns) > 1:  # one process per size, so that peak memory is its own
            import subprocess

            line = (
                subprocess.run(
                    [sys.executable, __file__, str(n)], check=True, capture_output=True, text=True
                )
                .stdout.strip()
                .splitlines()[-1]
            )
            r = json.loads(line)
            print(
                f"{r['figure']}: {r['run_s']:.2f} s wall ({r['events']:,} events, "
                f"{r['events_per_s'] / 1e6:.1f} M events/s), built in {r['build_s']:.2f} s, "
                f"{r['app_instances']:,} application instances, {r['pages_and_queries']:,} pages "
                f"and queries, {r['ftp_gets']:,} FTP gets, peak {r['peak_rss_mb']:.0f} MB"
            )
            print(f"    command: {r['command']}")
        else:
            print(json.dumps(measure(n)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
