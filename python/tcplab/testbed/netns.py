"""Network namespaces, veth links and processes of one testbed instance.

Topology (one IPv4 subnet; the router namespace is a bridge made of the forwarder)::

    client ns                 router ns                          server ns
    tlb<id>c 198.18.0.1 ---- tlb<id>ra  [tcplab-netem]  tlb<id>rb ---- tlb<id>s 198.18.0.2

198.18.0.0/15 is the range reserved for benchmarking network devices (RFC 2544); nothing here
is routed anywhere: the namespaces have no other interface. The router namespace keeps kernel
forwarding off and has no address, so frames pass only through the forwarder, and if the
forwarder dies nothing passes. IPv6 is off and neighbours are static, so the links carry only
the traffic a run makes. TSO, GSO, GRO and checksum offloads are off on every veth: the
forwarder then sees wire-sized frames with real checksums.

`Testbed` builds it (as a context manager) and always tears it down, killing every process
inside the namespaces before deleting them; `cleanup()` removes leftovers by name prefix.
"""

from __future__ import annotations

import json
import os
import platform
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from .errors import TestbedRunError, TestbedUnavailable

PREFIX = "tcplab-"
IF_PREFIX = "tlb"
ROLES = ("client", "router", "server")
SUBNET = "198.18.0.0/24"
ADDR = {"client": "198.18.0.1", "server": "198.18.0.2"}
MAC = {
    "client": "02:74:6c:62:00:01",
    "server": "02:74:6c:62:00:02",
    "router_a": "02:74:6c:62:00:0a",
    "router_b": "02:74:6c:62:00:0b",
}
HERE = Path(__file__).resolve().parent
ENDPOINT = HERE / "endpoint.py"
TOOLS = HERE / "tools.py"
OFFLOADS = ("tso", "gso", "gro", "tx", "rx")


def netem_binary(explicit: str | None = None) -> Path:
    """The forwarder: `explicit`, else $TCPLAB_NETEM, else <repo>/target/release/tcplab-netem."""
    if explicit:
        return Path(explicit)
    env = os.environ.get("TCPLAB_NETEM")
    if env:
        return Path(env)
    return HERE.parents[2] / "target" / "release" / "tcplab-netem"


def check_available(netem: str | None = None) -> None:
    """Raise TestbedUnavailable saying what is missing for a testbed run."""
    if platform.system() != "Linux":
        raise TestbedUnavailable(
            f"the testbed needs Linux network namespaces; this is {platform.system()}"
        )
    if os.geteuid() != 0:
        raise TestbedUnavailable(
            "the testbed needs root (CAP_NET_ADMIN and CAP_SYS_ADMIN) to create network "
            "namespaces; run as root"
        )
    missing = [t for t in ("ip", "ethtool", "sysctl") if shutil.which(t) is None]
    if missing:
        raise TestbedUnavailable(
            f"the testbed needs the commands {missing}: apt-get install -y iproute2 ethtool procps"
        )
    b = netem_binary(netem)
    if not (b.is_file() and os.access(b, os.X_OK)):
        raise TestbedUnavailable(
            f"forwarder binary {b} not found: build it with "
            "`cargo build --release -p tcplab-netem` or set TCPLAB_NETEM"
        )


def _run(args: list[str], *, check: bool = True, timeout: float = 30) -> str:
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired as e:
        raise TestbedRunError(f"command timed out after {timeout} s: {' '.join(args)}") from e
    if check and p.returncode != 0:
        raise TestbedRunError(
            f"command failed ({p.returncode}): {' '.join(args)}: {p.stderr.strip()}"
        )
    return p.stdout


def list_namespaces(prefix: str = PREFIX) -> list[str]:
    out = _run(["ip", "netns", "list"], check=False)
    names = [line.split()[0] for line in out.splitlines() if line.strip()]
    return [n for n in names if n.startswith(prefix)]


def _kill_pids(pids: list[int], grace: float = 1.0) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        alive = []
        for pid in pids:
            try:
                os.kill(pid, sig)
                alive.append(pid)
            except ProcessLookupError:
                pass
        if not alive:
            return
        end = time.monotonic() + grace
        while time.monotonic() < end:
            alive = [p for p in alive if Path(f"/proc/{p}").exists() and not _zombie(p)]
            if not alive:
                return
            time.sleep(0.02)
        pids = alive


def _zombie(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1].startswith("Z")
    except (OSError, IndexError):
        return True


def delete_namespace(name: str) -> None:
    """Kill every process inside `name` (deleting a netns does not), then delete it."""
    out = _run(["ip", "netns", "pids", name], check=False)
    pids = [int(x) for x in out.split() if x.isdigit() and int(x) != os.getpid()]
    _kill_pids(pids)
    _run(["ip", "netns", "del", name], check=False)


def _start_time(pid: int) -> str | None:
    """The start time of process `pid` (clock ticks since boot, /proc/PID/stat field 22), or
    None when there is no such process: with the pid it names one process, reuse or not."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]


def _owner_file(workdir: Path) -> Path:
    return workdir / "owner.json"


def run_workdirs(run_id: str) -> list[Path]:
    """The working directories a run `run_id` made (logs, configs, its owner file)."""
    return sorted(Path(tempfile.gettempdir()).glob(f"{PREFIX}{run_id}-*"))


def owner_alive(run_id: str) -> bool:
    """Whether the process that made run `run_id` still runs (its owner file names a live
    process with the same start time). A run without an owner file counts as dead."""
    for wd in run_workdirs(run_id):
        try:
            owner = json.loads(_owner_file(wd).read_text())
        except (OSError, ValueError):
            continue
        if _start_time(int(owner.get("pid", -1))) == owner.get("start"):
            return True
    return False


def _run_id_of(namespace: str) -> str:
    return namespace.removeprefix(PREFIX).rsplit("-", 1)[0]


def cleanup(prefix: str = PREFIX, *, only_dead: bool = False) -> list[str]:
    """Remove every namespace whose name starts with `prefix` (and the processes in them), the
    interfaces and working directories of the same runs. With `only_dead`, leave the runs whose
    owning process is alive (a run in progress on a shared machine). Returns what was removed:
    namespaces, then interfaces and directories."""
    if not prefix:
        raise ValueError("cleanup() needs a non-empty prefix")
    removed: list[str] = []
    runs: set[str] = set()
    for ns in list_namespaces(prefix):
        rid = _run_id_of(ns)
        if only_dead and owner_alive(rid):
            continue
        delete_namespace(ns)
        removed.append(ns)
        runs.add(rid)
    out = _run(["ip", "-o", "link", "show"], check=False)
    for line in out.splitlines():
        parts = line.split(":", 2)
        if len(parts) > 1:
            name = parts[1].strip().split("@", 1)[0]
            if not (name.startswith(IF_PREFIX) and len(name) <= 15):
                continue
            everything = prefix == PREFIX and not only_dead
            if not everything and not any(name.startswith(f"{IF_PREFIX}{r}") for r in runs):
                continue
            _run(["ip", "link", "del", name], check=False)
            removed.append(name)
    # Working directories under the prefix (with only_dead: whose owner is gone; a run being
    # set up right now may not have written its owner file yet, so a directory younger than a
    # minute without one is left alone).
    for wd in sorted(Path(tempfile.gettempdir()).glob(f"{prefix}*")):
        rid = wd.name.removeprefix(PREFIX).rsplit("-", 1)[0]
        if not wd.is_dir() or (only_dead and owner_alive(rid)):
            continue
        if not _owner_file(wd).exists() and time.time() - wd.stat().st_mtime < 60:
            continue
        shutil.rmtree(wd, ignore_errors=True)
        removed.append(str(wd))
    return removed


class Forwarder:
    """A running tcplab-netem in the router namespace."""

    def __init__(self, tb: Testbed, config: dict[str, Any], name: str) -> None:
        self.tb = tb
        self.config_path = tb.workdir / f"{name}.json"
        self.output_path = tb.workdir / f"{name}.out.json"
        self.log_path = tb.workdir / f"{name}.log"
        self.config_path.write_text(json.dumps(config, indent=1))
        self.proc = tb.popen(
            "router",
            [str(tb.netem), "--config", str(self.config_path), "--output", str(self.output_path)],
            stdout=subprocess.PIPE,
            log=self.log_path,
        )
        tb.wait_ready(self.proc, self.log_path, "tcplab-netem")
        self.report: dict[str, Any] | None = None

    def stop(self, timeout: float = 10.0) -> dict[str, Any]:
        """SIGTERM the forwarder and return its report (counters, drop log)."""
        if self.report is not None:
            return self.report
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired as e:
            self.proc.kill()
            self.proc.wait()
            raise TestbedRunError(f"tcplab-netem ignored SIGTERM for {timeout} s") from e
        finally:
            self.tb.forget(self.proc)
        if not self.output_path.exists():
            raise TestbedRunError(
                f"tcplab-netem exited {self.proc.returncode} without a report: "
                f"{_tail(self.log_path)}"
            )
        self.report = json.loads(self.output_path.read_text())
        return self.report


def _tail(path: Path, n: int = 2000) -> str:
    try:
        return path.read_text(errors="replace")[-n:].strip()
    except OSError:
        return ""


class Testbed:
    """Three namespaces (client, router, server) and two veth pairs; a context manager.

    `run_id` names everything (random when None). Processes started with `popen` are tracked
    and killed on exit; so is anything else found inside the namespaces.
    """

    __test__ = False  # not a pytest test class, despite the name

    def __init__(
        self,
        run_id: str | None = None,
        *,
        mtu: int = 1500,
        netem: str | None = None,
        keep_workdir: bool = False,
    ) -> None:
        self.run_id = run_id or secrets.token_hex(3)
        self.mtu = mtu
        self.netem = netem_binary(netem)
        self.keep_workdir = keep_workdir
        self.ns = {role: f"{PREFIX}{self.run_id}-{role}" for role in ROLES}
        rid = self.run_id
        self.ifname = {
            "client": f"{IF_PREFIX}{rid}c",
            "router_a": f"{IF_PREFIX}{rid}ra",
            "router_b": f"{IF_PREFIX}{rid}rb",
            "server": f"{IF_PREFIX}{rid}s",
        }
        self.addr = dict(ADDR)
        self.workdir = Path(tempfile.mkdtemp(prefix=f"{PREFIX}{self.run_id}-"))
        # Who owns this run: `cleanup --dead` leaves the run alone while this process lives.
        _owner_file(self.workdir).write_text(
            json.dumps({"pid": os.getpid(), "start": _start_time(os.getpid())})
        )
        self._procs: list[subprocess.Popen] = []
        self._logs: list[Any] = []
        self._created: list[str] = []
        self._nfwd = 0

    # -- lifecycle ---------------------------------------------------------------------------

    def __enter__(self) -> Testbed:
        try:
            self.up()
        except BaseException:
            self.down()
            raise
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        # A run that failed keeps its working directory (configs, the forwarder's and the
        # endpoints' logs) and says where; `tcplab testbed cleanup` removes it later.
        failed = exc is not None and not isinstance(exc, KeyboardInterrupt)
        if failed and not self.keep_workdir:
            self.keep_workdir = True
            if isinstance(exc, BaseException):
                exc.add_note(f"the run's logs are kept in {self.workdir}")
        self.down()

    def up(self) -> None:
        check_available(str(self.netem))
        for role in ROLES:
            if self.ns[role] in list_namespaces():
                raise TestbedRunError(f"namespace {self.ns[role]} exists already")
        for role in ROLES:
            _run(["ip", "netns", "add", self.ns[role]])
            self._created.append(self.ns[role])
            self.sysctl(
                role,
                {
                    "net.ipv6.conf.all.disable_ipv6": 1,
                    "net.ipv6.conf.default.disable_ipv6": 1,
                },
                check=False,
            )
            _run(["ip", "-n", self.ns[role], "link", "set", "lo", "up"])
        self.sysctl("router", {"net.ipv4.ip_forward": 0})
        pairs = [("client", "client", "router_a"), ("server", "server", "router_b")]
        for end, a, b in pairs:
            _run(
                [
                    "ip", "link", "add", "name", self.ifname[a], "netns", self.ns[end],
                    "address", MAC[a], "mtu", str(self.mtu), "type", "veth",
                    "peer", "name", self.ifname[b], "netns", self.ns["router"],
                    "address", MAC[b], "mtu", str(self.mtu),
                ]
            )  # fmt: skip
        for role, key in (
            ("client", "client"),
            ("router", "router_a"),
            ("router", "router_b"),
            ("server", "server"),
        ):
            dev = self.ifname[key]
            _run(["ip", "netns", "exec", self.ns[role], "ethtool", "-K", dev, *_offargs()])
            _run(["ip", "-n", self.ns[role], "link", "set", dev, "up"])
        for role, peer in (("client", "server"), ("server", "client")):
            dev = self.ifname[role]
            _run(["ip", "-n", self.ns[role], "addr", "add", f"{self.addr[role]}/24", "dev", dev])
            _run(
                [
                    "ip", "-n", self.ns[role], "neigh", "replace", self.addr[peer],
                    "lladdr", MAC[peer], "dev", dev, "nud", "permanent",
                ]
            )  # fmt: skip

    def down(self) -> None:
        """Stop everything and delete the namespaces; safe to call twice, never raises."""
        old = None
        try:
            old = signal.signal(signal.SIGINT, signal.SIG_IGN)  # a 2nd Ctrl-C must not cut this
        except ValueError:
            pass  # not the main thread
        try:
            for p in list(self._procs):
                if p.poll() is None:
                    p.terminate()
            end = time.monotonic() + 2
            for p in list(self._procs):
                try:
                    p.wait(max(0.01, end - time.monotonic()))
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()
                self.forget(p)
            for ns in reversed(self._created):
                delete_namespace(ns)
            self._created.clear()
            for f in self._logs:
                f.close()
            self._logs.clear()
            if not self.keep_workdir:
                shutil.rmtree(self.workdir, ignore_errors=True)
        finally:
            if old is not None:
                signal.signal(signal.SIGINT, old)

    # -- processes ---------------------------------------------------------------------------

    def popen(
        self,
        role: str,
        args: list[str],
        *,
        stdout: Any = subprocess.DEVNULL,
        log: Path | None = None,
    ) -> subprocess.Popen:
        """Start `args` inside `role`'s namespace (own session: a terminal's Ctrl-C reaches
        only us, and we stop the children in order)."""
        err: Any = subprocess.DEVNULL
        if log is not None:
            err = open(log, "w")  # noqa: SIM115 - closed in down()
            self._logs.append(err)
        p = subprocess.Popen(
            ["ip", "netns", "exec", self.ns[role], *args],
            stdin=subprocess.DEVNULL,
            stdout=stdout,
            stderr=err,
            start_new_session=True,
        )
        self._procs.append(p)
        return p

    def forget(self, p: subprocess.Popen) -> None:
        if p in self._procs:
            self._procs.remove(p)
            if p.stdout is not None:
                p.stdout.close()

    def wait_ready(self, p: subprocess.Popen, log: Path, what: str, timeout: float = 10) -> None:
        """Wait for the READY line a child prints once it listens."""
        assert p.stdout is not None
        sel = selectors.DefaultSelector()
        sel.register(p.stdout, selectors.EVENT_READ)
        try:
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                if sel.select(max(0.0, end - time.monotonic())):
                    line = p.stdout.readline()
                    if line.strip() == b"READY":
                        return
                    if not line:
                        break
            try:
                p.wait(1)
            except subprocess.TimeoutExpired:
                pass
            raise TestbedRunError(
                f"{what} did not start (exit {p.returncode}): {_tail(log) or 'no output'}"
            )
        finally:
            sel.close()

    def python(self, role: str, script: Path, args: list[str], **kw: Any) -> subprocess.Popen:
        """Run one of the stdlib-only helper scripts inside `role`'s namespace."""
        return self.popen(
            role, [sys.executable, "-u", str(script), *args, "--tag", self.run_id], **kw
        )

    def start_forwarder(
        self,
        links: dict[str, dict[str, Any]],
        *,
        seed: int = 1,
        rwnd_clamp_bytes: int | None = None,
        pcap: str | None = None,
        pcap_snaplen: int = 65535,
        **extra: Any,
    ) -> Forwarder:
        """Start tcplab-netem between the client (A) and server (B) sides."""
        cfg: dict[str, Any] = {
            "iface_a": self.ifname["router_a"],
            "iface_b": self.ifname["router_b"],
            "seed": seed,
            "links": links,
            "rwnd_clamp_bytes": rwnd_clamp_bytes,
            **extra,
        }
        if pcap:
            cfg["pcap"] = {"path": str(Path(pcap).resolve()), "snaplen": pcap_snaplen}
        self._nfwd += 1
        return Forwarder(self, cfg, f"netem{self._nfwd}")

    # -- kernel settings ---------------------------------------------------------------------

    def sysctl(self, role: str, values: dict[str, Any], *, check: bool = True) -> None:
        """Set sysctls in `role`'s namespace, one by one so a failure names its key."""
        for k, v in values.items():
            _run(
                ["ip", "netns", "exec", self.ns[role], "sysctl", "-q", "-w", f"{k}={v}"],
                check=check,
            )

    def read_sysctls(self, role: str, names: list[str]) -> dict[str, str]:
        out = {}
        for k in names:
            v = _run(["ip", "netns", "exec", self.ns[role], "sysctl", "-n", k], check=False)
            out[k] = " ".join(v.split())
        return out

    def apply_stack(
        self, settings: dict[str, Any], congestion_control: str | None = None
    ) -> dict[str, Any]:
        """Apply sysctls and route options to the client and server namespaces; return what the
        kernel reports back (the record a result carries as `kernel_settings`).

        `congestion_control` also becomes the namespaces' default when the kernel allows it: a
        namespace other than the initial one may only default to an algorithm listed in the
        global tcp_allowed_congestion_control. The endpoints set TCP_CONGESTION per socket
        anyway, which is what counts."""
        sysctls = settings["sysctls"]
        route = settings["route"]
        applied: dict[str, Any] = {
            "profile": settings["profile"],
            "requested": {"sysctls": dict(sysctls), "route": dict(route)},
            "socket": settings["socket"],
            "not_expressible": settings["not_expressible"],
        }
        for role, peer in (("client", "server"), ("server", "client")):
            self.sysctl(role, sysctls)
            if congestion_control:
                key = "net.ipv4.tcp_congestion_control"
                self.sysctl(role, {key: congestion_control}, check=False)
            opts: list[str] = []
            if "initcwnd" in route:
                opts += ["initcwnd", str(route["initcwnd"])]
            if "rto_min_ms" in route:
                opts += ["rto_min", f"{route['rto_min_ms']}ms"]
            if opts:
                _run(
                    [
                        "ip", "-n", self.ns[role], "route", "replace", f"{self.addr[peer]}/32",
                        "dev", self.ifname[role], "src", self.addr[role], *opts,
                    ]
                )  # fmt: skip
            names = sorted(
                set(sysctls)
                | {
                    "net.ipv4.tcp_congestion_control",
                    "net.ipv4.tcp_sack",
                    "net.ipv4.tcp_dsack",
                    "net.ipv4.tcp_timestamps",
                    "net.ipv4.tcp_window_scaling",
                    "net.ipv4.tcp_recovery",
                    "net.ipv4.tcp_early_retrans",
                    "net.ipv4.tcp_frto",
                    "net.ipv4.tcp_ecn",
                    "net.ipv4.tcp_rmem",
                    "net.ipv4.tcp_wmem",
                    "net.ipv4.tcp_no_metrics_save",
                }
            )
            applied[role] = {
                "sysctls": self.read_sysctls(role, names),
                "route": _run(
                    ["ip", "-n", self.ns[role], "route", "get", self.addr[peer]], check=False
                ).strip(),
            }
        return applied


def _offargs() -> list[str]:
    out: list[str] = []
    for f in OFFLOADS:
        out += [f, "off"]
    return out
