//! Thin wrappers over the Linux system calls the forwarder uses: AF_PACKET sockets with batched
//! receive/send (recvmmsg/sendmmsg), an absolute-deadline timerfd, epoll, clocks.
//!
//! Every `unsafe` block is a single system call on file descriptors this module owns, with
//! buffers whose lengths are passed alongside.

use std::ffi::CString;
use std::io;
use std::mem::{size_of, zeroed};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::ptr;

/// `<linux/if_packet.h>` values missing from some libc versions.
const PACKET_IGNORE_OUTGOING: libc::c_int = 23;
const PACKET_STATISTICS: libc::c_int = 6;
/// `sll_pkttype` of frames this host sent.
pub const PACKET_OUTGOING: u8 = 4;

fn cvt(r: libc::c_int) -> io::Result<libc::c_int> {
    if r < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(r)
    }
}

fn setsockopt<T>(fd: RawFd, level: libc::c_int, name: libc::c_int, val: &T) -> io::Result<()> {
    // SAFETY: `val` points to a live T of the size we pass.
    cvt(unsafe {
        libc::setsockopt(
            fd,
            level,
            name,
            (val as *const T).cast(),
            size_of::<T>() as libc::socklen_t,
        )
    })
    .map(drop)
}

pub fn monotonic_ns() -> u64 {
    clock_ns(libc::CLOCK_MONOTONIC)
}

pub fn realtime_ns() -> u64 {
    clock_ns(libc::CLOCK_REALTIME)
}

fn clock_ns(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: valid clock id and out-pointer.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// Make sleeps wake on time: the default timer slack is 50 us.
pub fn set_timer_slack_ns(ns: u64) -> io::Result<()> {
    // SAFETY: prctl with integer arguments.
    cvt(unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, ns as libc::c_ulong, 0, 0, 0) }).map(drop)
}

pub fn set_realtime(priority: i32) -> io::Result<()> {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: valid policy and parameter for this process.
    cvt(unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &param) }).map(drop)
}

pub fn pin_to_cpu(cpu: usize) -> io::Result<()> {
    // SAFETY: cpu_set_t is plain data; CPU_SET bounds-checks against its size.
    unsafe {
        let mut set: libc::cpu_set_t = zeroed();
        libc::CPU_SET(cpu, &mut set);
        cvt(libc::sched_setaffinity(
            0,
            size_of::<libc::cpu_set_t>(),
            &set,
        ))
        .map(drop)
    }
}

/// Per-frame result of a batched receive.
#[derive(Clone, Copy, Debug, Default)]
pub struct Received {
    pub len: usize,
    pub truncated: bool,
    pub pkttype: u8,
    /// Kernel receive time (CLOCK_REALTIME, SO_TIMESTAMPNS), when the kernel gave one.
    pub kernel_ts_ns: Option<u64>,
}

/// Scratch arrays for recvmmsg/sendmmsg, reused across calls.
pub struct Batch {
    iov: Vec<libc::iovec>,
    hdr: Vec<libc::mmsghdr>,
    addr: Vec<libc::sockaddr_ll>,
    /// Control-message space per frame (u64 elements: cmsghdr alignment).
    ctrl: Vec<[u64; CTRL_WORDS]>,
}

/// Room for one SCM_TIMESTAMPNS (16 + 16 bytes) and then some.
const CTRL_WORDS: usize = 8;

impl Batch {
    pub fn new(n: usize) -> Batch {
        // SAFETY: these C structs are valid when zeroed (null pointers, zero lengths).
        let (iov, hdr, addr) = unsafe { (zeroed(), zeroed(), zeroed()) };
        Batch {
            iov: vec![iov; n],
            hdr: vec![hdr; n],
            addr: vec![addr; n],
            ctrl: vec![[0u64; CTRL_WORDS]; n],
        }
    }
}

/// An AF_PACKET raw socket bound to one interface, in promiscuous mode, not seeing its own
/// transmissions.
pub struct PacketSocket {
    fd: OwnedFd,
}

impl PacketSocket {
    pub fn open(ifname: &str, buffer_bytes: usize) -> io::Result<PacketSocket> {
        let cname = CString::new(ifname).map_err(|_| io::Error::other("NUL in interface name"))?;
        // SAFETY: NUL-terminated string.
        let ifindex = unsafe { libc::if_nametoindex(cname.as_ptr()) } as i32;
        if ifindex == 0 {
            return Err(io::Error::other(format!(
                "no interface named {ifname:?} in this network namespace"
            )));
        }
        // Protocol 0 first: the socket receives nothing until it is bound to the interface,
        // so no frame of another interface slips in between socket() and bind().
        // SAFETY: plain socket(2).
        let raw =
            cvt(unsafe { libc::socket(libc::AF_PACKET, libc::SOCK_RAW | libc::SOCK_CLOEXEC, 0) })?;
        // SAFETY: `raw` is a fresh descriptor we own.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        let s = PacketSocket { fd };
        let bufsize = buffer_bytes.min(i32::MAX as usize) as libc::c_int;
        // FORCE variants (root) go past net.core.rmem_max; fall back to the plain ones.
        if setsockopt(raw, libc::SOL_SOCKET, libc::SO_RCVBUFFORCE, &bufsize).is_err() {
            setsockopt(raw, libc::SOL_SOCKET, libc::SO_RCVBUF, &bufsize)?;
        }
        if setsockopt(raw, libc::SOL_SOCKET, libc::SO_SNDBUFFORCE, &bufsize).is_err() {
            setsockopt(raw, libc::SOL_SOCKET, libc::SO_SNDBUF, &bufsize)?;
        }
        // Best effort (Linux >= 4.20); frames marked PACKET_OUTGOING are skipped anyway.
        let _ = setsockopt(
            raw,
            libc::SOL_PACKET,
            PACKET_IGNORE_OUTGOING,
            &1 as &libc::c_int,
        );
        // Kernel receive timestamps: a frame's arrival time must not include our wake-up delay.
        setsockopt(
            raw,
            libc::SOL_SOCKET,
            libc::SO_TIMESTAMPNS,
            &1 as &libc::c_int,
        )?;
        // SAFETY: zeroed sockaddr_ll is valid; we fill the fields bind() reads.
        let mut sll: libc::sockaddr_ll = unsafe { zeroed() };
        sll.sll_family = libc::AF_PACKET as u16;
        sll.sll_protocol = (libc::ETH_P_ALL as u16).to_be();
        sll.sll_ifindex = ifindex;
        // SAFETY: sll is a valid sockaddr_ll of the size passed.
        cvt(unsafe {
            libc::bind(
                raw,
                (&sll as *const libc::sockaddr_ll).cast(),
                size_of::<libc::sockaddr_ll>() as libc::socklen_t,
            )
        })?;
        // SAFETY: zeroed packet_mreq is valid.
        let mut mreq: libc::packet_mreq = unsafe { zeroed() };
        mreq.mr_ifindex = ifindex;
        mreq.mr_type = libc::PACKET_MR_PROMISC as u16;
        setsockopt(raw, libc::SOL_PACKET, libc::PACKET_ADD_MEMBERSHIP, &mreq)?;
        Ok(s)
    }

    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Receive up to `bufs.len()` frames without blocking; returns how many arrived.
    pub fn recv_batch(
        &self,
        batch: &mut Batch,
        bufs: &mut [Vec<u8>],
        out: &mut [Received],
    ) -> io::Result<usize> {
        let n = bufs.len().min(batch.hdr.len()).min(out.len());
        for (i, buf) in bufs.iter_mut().take(n).enumerate() {
            batch.iov[i] = libc::iovec {
                iov_base: buf.as_mut_ptr().cast(),
                iov_len: buf.len(),
            };
            let h = &mut batch.hdr[i];
            h.msg_len = 0;
            h.msg_hdr.msg_name = (&mut batch.addr[i] as *mut libc::sockaddr_ll).cast();
            h.msg_hdr.msg_namelen = size_of::<libc::sockaddr_ll>() as libc::socklen_t;
            h.msg_hdr.msg_iov = &mut batch.iov[i];
            h.msg_hdr.msg_iovlen = 1;
            h.msg_hdr.msg_control = batch.ctrl[i].as_mut_ptr().cast();
            h.msg_hdr.msg_controllen = size_of::<[u64; CTRL_WORDS]>() as _;
            h.msg_hdr.msg_flags = 0;
        }
        // SAFETY: n headers point to n live buffers of the lengths given.
        let r = unsafe {
            libc::recvmmsg(
                self.fd(),
                batch.hdr.as_mut_ptr(),
                n as libc::c_uint,
                libc::MSG_DONTWAIT,
                ptr::null_mut(),
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            return match e.kind() {
                io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted => Ok(0),
                _ => Err(e),
            };
        }
        let r = r as usize;
        for ((o, h), a) in out.iter_mut().zip(&batch.hdr).zip(&batch.addr).take(r) {
            *o = Received {
                len: h.msg_len as usize,
                truncated: h.msg_hdr.msg_flags & libc::MSG_TRUNC != 0,
                pkttype: a.sll_pkttype,
                kernel_ts_ns: timestamp(&h.msg_hdr),
            };
        }
        Ok(r)
    }

    /// Send the frames (blocking until the kernel takes them all). Returns the number of
    /// frames the kernel refused.
    pub fn send_batch(&self, batch: &mut Batch, frames: &[&[u8]]) -> usize {
        let mut failed = 0;
        let mut done = 0;
        while done < frames.len() {
            let n = (frames.len() - done).min(batch.hdr.len());
            for i in 0..n {
                let f = frames[done + i];
                batch.iov[i] = libc::iovec {
                    iov_base: f.as_ptr() as *mut libc::c_void,
                    iov_len: f.len(),
                };
                let h = &mut batch.hdr[i];
                h.msg_len = 0;
                h.msg_hdr.msg_name = ptr::null_mut();
                h.msg_hdr.msg_namelen = 0;
                h.msg_hdr.msg_iov = &mut batch.iov[i];
                h.msg_hdr.msg_iovlen = 1;
                h.msg_hdr.msg_control = ptr::null_mut();
                h.msg_hdr.msg_controllen = 0;
                h.msg_hdr.msg_flags = 0;
            }
            // SAFETY: n headers point to n live frames; the kernel only reads them.
            let r =
                unsafe { libc::sendmmsg(self.fd(), batch.hdr.as_mut_ptr(), n as libc::c_uint, 0) };
            if r < 0 {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    continue;
                }
                // The first frame of the batch was refused (ENOBUFS, ENETDOWN, ...): count it
                // and go on with the rest.
                failed += 1;
                done += 1;
            } else {
                done += r as usize;
            }
        }
        failed
    }

    /// Kernel counters since the last call: (frames queued to the socket, frames dropped
    /// because its receive buffer was full).
    pub fn take_stats(&self) -> io::Result<(u64, u64)> {
        let mut st = [0u32; 2];
        let mut len = size_of::<[u32; 2]>() as libc::socklen_t;
        // SAFETY: tpacket_stats is two u32s; `len` says so.
        cvt(unsafe {
            libc::getsockopt(
                self.fd(),
                libc::SOL_PACKET,
                PACKET_STATISTICS,
                st.as_mut_ptr().cast(),
                &mut len,
            )
        })?;
        Ok((u64::from(st[0]), u64::from(st[1])))
    }
}

/// The SCM_TIMESTAMPNS control message of a received message, if present.
fn timestamp(msg: &libc::msghdr) -> Option<u64> {
    // SAFETY: the kernel filled msg_control up to msg_controllen; the CMSG_* macros stay
    // within it, and the timespec is read unaligned-safe.
    unsafe {
        let mut c = libc::CMSG_FIRSTHDR(msg);
        while !c.is_null() {
            if (*c).cmsg_level == libc::SOL_SOCKET && (*c).cmsg_type == libc::SCM_TIMESTAMPNS {
                let ts: libc::timespec = ptr::read_unaligned(libc::CMSG_DATA(c).cast());
                return Some(ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64);
            }
            c = libc::CMSG_NXTHDR(msg, c);
        }
    }
    None
}

/// A CLOCK_MONOTONIC timerfd armed with absolute deadlines.
pub struct Timer {
    fd: OwnedFd,
}

impl Timer {
    pub fn new() -> io::Result<Timer> {
        // SAFETY: plain timerfd_create(2).
        let raw = cvt(unsafe {
            libc::timerfd_create(
                libc::CLOCK_MONOTONIC,
                libc::TFD_NONBLOCK | libc::TFD_CLOEXEC,
            )
        })?;
        // SAFETY: `raw` is the fresh descriptor timerfd_create just returned (cvt checked it),
        // owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(raw) };
        Ok(Timer { fd })
    }

    pub fn fd(&self) -> RawFd {
        self.fd.as_raw_fd()
    }

    /// Fire at monotonic time `at_ns` (0 disarms).
    pub fn arm_at(&self, at_ns: u64) -> io::Result<()> {
        let ts = libc::itimerspec {
            it_interval: libc::timespec {
                tv_sec: 0,
                tv_nsec: 0,
            },
            it_value: libc::timespec {
                tv_sec: (at_ns / 1_000_000_000) as libc::time_t,
                tv_nsec: (at_ns % 1_000_000_000) as libc::c_long,
            },
        };
        // SAFETY: valid itimerspec; old value not requested.
        cvt(unsafe {
            libc::timerfd_settime(self.fd(), libc::TFD_TIMER_ABSTIME, &ts, ptr::null_mut())
        })
        .map(drop)
    }

    /// Consume an expiry, if any.
    pub fn clear(&self) {
        let mut n = 0u64;
        // SAFETY: reading 8 bytes into a u64; EAGAIN when nothing expired is fine.
        unsafe { libc::read(self.fd(), (&mut n as *mut u64).cast(), 8) };
    }
}

pub struct Epoll {
    fd: OwnedFd,
    events: Vec<libc::epoll_event>,
}

impl Epoll {
    pub fn new() -> io::Result<Epoll> {
        // SAFETY: plain epoll_create1(2).
        let raw = cvt(unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) })?;
        Ok(Epoll {
            // SAFETY: fresh descriptor we own.
            fd: unsafe { OwnedFd::from_raw_fd(raw) },
            events: vec![libc::epoll_event { events: 0, u64: 0 }; 8],
        })
    }

    /// Watch `fd` for input, reporting it with `token`.
    pub fn add(&self, fd: RawFd, token: u64) -> io::Result<()> {
        let mut ev = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: token,
        };
        // SAFETY: valid descriptors and event.
        cvt(unsafe { libc::epoll_ctl(self.fd.as_raw_fd(), libc::EPOLL_CTL_ADD, fd, &mut ev) })
            .map(drop)
    }

    /// Wait up to `timeout_ms` (-1 = forever); returns a bit mask of the tokens (< 64) of the
    /// ready descriptors, 0 on timeout or signal.
    pub fn wait(&mut self, timeout_ms: i32) -> io::Result<u64> {
        // SAFETY: the events buffer has the length passed.
        let r = unsafe {
            libc::epoll_wait(
                self.fd.as_raw_fd(),
                self.events.as_mut_ptr(),
                self.events.len() as libc::c_int,
                timeout_ms,
            )
        };
        if r < 0 {
            let e = io::Error::last_os_error();
            return if e.kind() == io::ErrorKind::Interrupted {
                Ok(0)
            } else {
                Err(e)
            };
        }
        Ok(self.events[..r as usize]
            .iter()
            .fold(0, |m, e| m | 1u64 << (e.u64 & 63)))
    }
}
