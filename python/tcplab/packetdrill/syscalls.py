"""A script's system calls on the simulated endpoint's sockets: the file descriptors, which
calls block and when they return, and the value and errno each returns
(run_system_call.c's semantics for the calls TCP scripts make).

A call written ``+a...b name(...)`` blocks: it starts at a and must return at b (within the
tolerance) while the script goes on with the events between. A call without ``...`` must
return at once; one that would block fails the script (as packetdrill's timing check would).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from . import matching
from .matching import show_time
from .syntax import ELLIPSIS, Event, Or, Struct, Syscall

#: The names a %{ }% block may use besides the tcpi_* fields (packetdrill's code.c).
CODE_CONSTANTS: dict[str, Any] = {
    "TCP_CA_Open": 0, "TCP_CA_Disorder": 1, "TCP_CA_CWR": 2, "TCP_CA_Recovery": 3,
    "TCP_CA_Loss": 4,
    "TCP_ESTABLISHED": 1, "TCP_SYN_SENT": 2, "TCP_SYN_RECV": 3, "TCP_FIN_WAIT1": 4,
    "TCP_FIN_WAIT2": 5, "TCP_TIME_WAIT": 6, "TCP_CLOSE": 7, "TCP_CLOSE_WAIT": 8,
    "TCP_LAST_ACK": 9, "TCP_LISTEN": 10, "TCP_CLOSING": 11,
}  # fmt: skip

#: Symbols of the calls' arguments (Linux's values).
SYMBOLS = {
    "O_RDONLY": 0, "O_WRONLY": 1, "O_RDWR": 2, "O_NONBLOCK": 0o4000,
    "SHUT_RD": 0, "SHUT_WR": 1, "SHUT_RDWR": 2, "MSG_MORE": 0x8000, "MSG_DONTWAIT": 0x40,
    "F_GETFL": 3, "F_SETFL": 4, "SOCK_STREAM": 1, "IPPROTO_TCP": 6,
}  # fmt: skip

#: Socket options the endpoint models (SOL_TCP / SOL_SOCKET / SOL_IP); the IP ones change
#: the IP header only, which an outbound line without [tos] does not check.
SOCKOPTS = {
    "SOL_TCP": ("TCP_NODELAY", "TCP_CORK", "TCP_MAXSEG", "TCP_CONGESTION"),
    "IPPROTO_TCP": ("TCP_NODELAY", "TCP_CORK", "TCP_MAXSEG", "TCP_CONGESTION"),
    "SOL_SOCKET": ("SO_SNDBUF", "SO_RCVBUF", "SO_REUSEADDR", "SO_ERROR"),
    "SOL_IP": ("IP_TOS", "IP_MTU_DISCOVER"),
    "SOL_IPV6": ("IPV6_TCLASS",),
}
_CALLS = "socket, bind, listen, accept, connect, write, send, sendmsg, read, recv, close, " \
    "shutdown, setsockopt, getsockopt, fcntl"  # fmt: skip


class SocketErrno(Exception):
    """A call that fails with an errno (the endpoint says which: EPIPE, ENOTCONN, ...)."""

    def __init__(self, errno: str):
        super().__init__(errno)
        self.errno = errno


class WouldBlock(Exception):
    """A call that cannot complete yet."""


@dataclass
class _Fd:
    sock: Any
    nonblocking: bool = False
    listening: bool = False


@dataclass
class _Pending:
    event: Event
    call: Syscall
    start: int
    fd: _Fd
    left: int = 0  # bytes a blocking write still has to hand over
    done: int = 0


class Sockets:
    """The script's file descriptors on `runner`'s stack."""

    def __init__(self, runner: Any):
        self.r = runner
        self.fds: dict[int, _Fd] = {}
        self.under_test: Any = None  # the connected (or accepted) socket tcp_info reads
        self.pending: _Pending | None = None

    def _stop(self, event: Event, message: str, kind: str = "syscall") -> Exception:
        return self.r._stop(event.line, kind, message, time_us=self.r.now)

    def _fd(self, event: Event, value: Any) -> _Fd:
        if not isinstance(value, int) or value not in self.fds:
            raise self._stop(event, f"bad file descriptor {value!r}: no socket has it")
        return self.fds[value]

    def tcp_info(self, line: int) -> dict[str, Any]:
        if self.under_test is None:
            raise self.r._stop(line, "error", "%{ }% block before any connection: no tcp_info")
        info = dict(self.r.stack.tcp_info(self.under_test))
        return info

    # -- a call ------------------------------------------------------------------------------

    def call(self, event: Event, call: Syscall, at: int) -> None:
        if self.pending is not None:
            raise self._stop(
                event, "a blocking call is still running: packetdrill runs one at a time"
            )
        handler = getattr(self, f"_{call.name}", None)
        if handler is None:
            raise self.r._stop(
                event.line, "unsupported",
                f"system call {call.name} is not modelled; allowed: {_CALLS}",
            )  # fmt: skip
        errno = None
        try:
            value = handler(event, call)
        except SocketErrno as e:
            value, errno = -1, e.errno
        except WouldBlock:
            fd = self.fds.get(call.args[0]) if call.args else None
            if call.end is None or fd is None:
                raise self._stop(
                    event,
                    f"{call.name} blocked, but the script gives it no end time (+a...b)",
                    "timing",
                ) from None
            self.pending = _Pending(event, call, at, fd, left=self._bytes(call))
            self.r.collect()
            return
        if call.end is not None:
            self._check_end(event, call, at, self.r.now)
        self._returned(event, call, value, errno)
        self.r.collect()

    def _returned(self, event: Event, call: Syscall, value: int, errno: str | None) -> None:
        want = call.ret
        if want == ELLIPSIS:
            return
        if call.name in ("socket", "accept") and isinstance(want, int) and want >= 0:
            ok = value >= 0
        else:
            ok = value == want
        if not ok or (call.errno or None) != errno:
            got = f"{value}" + (f" {errno}" if errno else "")
            exp = f"{want}" + (f" {call.errno}" if call.errno else "")
            raise self._stop(event, f"{call.name}: expected result {exp} but got {got}")

    def _check_end(self, event: Event, call: Syscall, start: int, t: int) -> None:
        assert call.end is not None
        end = call.end.start + (start - event.time.start if event.time.kind == "relative" else 0)
        tol = matching.tolerance(end - start, self.r.tol_us, self.r.tol_pct)
        if abs(t - end) > tol:
            raise self.r._stop(
                event.line, "timing",
                f"timing error: expected system call return at {show_time(end)} sec but "
                f"happened at {show_time(t)} sec; tolerance {show_time(tol)} sec", time_us=t,
            )  # fmt: skip

    def poll(self) -> None:
        """Finish a blocking call that can now return."""
        p = self.pending
        if p is None:
            return
        try:
            value = self._resume(p)
        except SocketErrno as e:
            self.pending = None
            self._check_end(p.event, p.call, p.start, self.r.now)
            self._returned(p.event, p.call, -1, e.errno)
            return
        except WouldBlock:
            return
        self.pending = None
        self._check_end(p.event, p.call, p.start, self.r.now)
        self._returned(p.event, p.call, value, None)

    def finish(self) -> None:
        if self.pending is not None:
            raise self._stop(
                self.pending.event,
                f"{self.pending.call.name} never returned before the script ended",
                "timing",
            )

    def _resume(self, p: _Pending) -> int:
        name, stack = p.call.name, self.r.stack
        if name == "connect":
            return self._connected(p.fd)
        if name == "accept":
            return self._accept(p.event, p.call)
        if name in ("write", "send", "sendmsg"):
            more = self._more(p.call)
            p.done += stack.write(p.fd.sock, p.left, more)
            p.left = self._bytes(p.call) - p.done
            if p.left:
                raise WouldBlock
            return p.done
        if name in ("read", "recv"):
            return self._read(p.event, p.call)
        raise WouldBlock

    # -- the calls ---------------------------------------------------------------------------

    def _socket(self, event: Event, call: Syscall) -> int:
        fd = call.ret if isinstance(call.ret, int) and call.ret >= 0 else 3 + len(self.fds)
        self.fds[fd] = _Fd(self.r.stack.socket())
        return fd

    def _bind(self, event: Event, call: Syscall) -> int:
        self._fd(event, call.args[0])
        return 0

    def _listen(self, event: Event, call: Syscall) -> int:
        fd = self._fd(event, call.args[0])
        self.r.stack.listen(fd.sock)
        fd.listening = True
        return 0

    def _accept(self, event: Event, call: Syscall) -> int:
        fd = self._fd(event, call.args[0])
        child = self.r.stack.accept(fd.sock)
        if child is None:
            if fd.nonblocking:
                raise SocketErrno("EAGAIN")
            raise WouldBlock
        new = call.ret if isinstance(call.ret, int) and call.ret >= 0 else 3 + len(self.fds)
        self.fds[new] = _Fd(child)
        self.under_test = child
        return new

    def _connected(self, fd: _Fd) -> int:
        state = self.r.stack.state(fd.sock)
        if state in ("SYN_SENT", "SYN_RECV"):
            raise WouldBlock
        if state == "CLOSED":
            raise SocketErrno(self.r.stack.error(fd.sock) or "ECONNREFUSED")
        return 0

    def _connect(self, event: Event, call: Syscall) -> int:
        fd = self._fd(event, call.args[0])
        self.r.stack.connect(fd.sock)
        self.under_test = fd.sock
        self.r.collect()
        if fd.nonblocking:
            raise SocketErrno("EINPROGRESS")
        return self._connected(fd)

    def _bytes(self, call: Syscall) -> int:
        if call.name == "sendmsg":
            msg = call.args[1] if len(call.args) > 1 else None
            iov = msg.get("msg_iov") if isinstance(msg, Struct) else None
            if not isinstance(iov, list):
                return 0
            return sum(v.fields[-1][1] for v in iov if isinstance(v, Struct))
        n = call.args[2] if len(call.args) > 2 else 0
        return n if isinstance(n, int) else 0

    def _more(self, call: Syscall) -> bool:
        flags = call.args[3] if call.name == "send" and len(call.args) > 3 else (
            call.args[2] if call.name == "sendmsg" and len(call.args) > 2 else 0)  # fmt: skip
        return bool(_value(flags) & SYMBOLS["MSG_MORE"])

    def _write(self, event: Event, call: Syscall) -> int:
        fd = self._fd(event, call.args[0])
        n = self._bytes(call)
        done = self.r.stack.write(fd.sock, n, self._more(call))
        if done < n:
            if fd.nonblocking:
                if done:
                    return done
                raise SocketErrno("EAGAIN")
            raise WouldBlock
        return done

    _send = _write
    _sendmsg = _write

    def _read(self, event: Event, call: Syscall) -> int:
        fd = self._fd(event, call.args[0])
        n = call.args[2] if isinstance(call.args[2], int) else 1 << 30
        got = self.r.stack.read(fd.sock, n)
        if got is None:
            if fd.nonblocking:
                raise SocketErrno("EAGAIN")
            raise WouldBlock
        return got

    _recv = _read

    def _close(self, event: Event, call: Syscall) -> int:
        fd = self._fd(event, call.args[0])
        self.r.stack.close(fd.sock)
        del self.fds[call.args[0]]
        return 0

    def _shutdown(self, event: Event, call: Syscall) -> int:
        fd = self._fd(event, call.args[0])
        how = call.args[1]
        if how not in ("SHUT_RD", "SHUT_WR", "SHUT_RDWR"):
            raise self._stop(event, f"shutdown how {how!r}; allowed: SHUT_RD, SHUT_WR, SHUT_RDWR")
        self.r.stack.shutdown(fd.sock, how)
        return 0

    def _fcntl(self, event: Event, call: Syscall) -> int:
        fd = self._fd(event, call.args[0])
        cmd = call.args[1] if len(call.args) > 1 else None
        if cmd == "F_GETFL":
            return SYMBOLS["O_RDWR"] | (SYMBOLS["O_NONBLOCK"] if fd.nonblocking else 0)
        if cmd == "F_SETFL" and len(call.args) > 2:
            fd.nonblocking = bool(_value(call.args[2]) & SYMBOLS["O_NONBLOCK"])
            return 0
        raise self.r._stop(event.line, "unsupported", f"fcntl {cmd}: allowed: F_GETFL, F_SETFL")

    def _sockopt(self, event: Event, call: Syscall) -> tuple[_Fd, str]:
        if len(call.args) < 4:
            raise self._stop(event, f"{call.name}(fd, level, name, value, len): too few arguments")
        fd = self._fd(event, call.args[0])
        level, name = call.args[1], call.args[2]
        if name not in SOCKOPTS.get(level, ()):
            allowed = "; ".join(f"{k}: {', '.join(v)}" for k, v in SOCKOPTS.items())
            raise self.r._stop(
                event.line, "unsupported",
                f"socket option {level} {name} is not modelled; allowed: {allowed}",
            )  # fmt: skip
        return fd, name

    def _setsockopt(self, event: Event, call: Syscall) -> int:
        fd, name = self._sockopt(event, call)
        value = call.args[3]
        value = value[0] if isinstance(value, list) and value else value
        if name in ("SO_REUSEADDR", "IP_TOS", "IP_MTU_DISCOVER", "IPV6_TCLASS"):
            return 0  # nothing a TCP segment shows (the IP header is not compared without [tos])
        self.r.stack.setsockopt(fd.sock, name, value if isinstance(value, str) else _value(value))
        return 0

    def _getsockopt(self, event: Event, call: Syscall) -> int:
        fd, name = self._sockopt(event, call)
        got = self.r.stack.getsockopt(fd.sock, name)
        want = call.args[3]
        want = want[0] if isinstance(want, list) and want else want
        if want != ELLIPSIS and _value(want) != got:
            raise self._stop(event, f"getsockopt {name}: expected {want} but got {got}")
        return 0


def _value(v: Any) -> int:
    """An argument as a number: an int, a known symbol, or symbols OR-ed together."""
    if isinstance(v, int):
        return v
    if isinstance(v, Or):
        out = 0
        for t in v.terms:
            out |= _value(t)
        return out
    if isinstance(v, str) and v in SYMBOLS:
        return SYMBOLS[v]
    return 0
