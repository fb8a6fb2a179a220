"""Download-time estimate from the binding throughput limit."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ._validate import as_array, finish
from .limits import SARKAR_OVERHEAD_BYTES
from .mathis import mathis_throughput
from .pftk import pftk_throughput

__all__ = ["LIMIT_NAMES", "LOSS_MODELS", "DownloadEstimate", "download_time"]

#: Names of the limits, in the order used to break ties.
LIMIT_NAMES = ("line-rate", "window", "loss")
#: Loss-based throughput models :func:`download_time` accepts.
LOSS_MODELS = ("mathis", "pftk")


class DownloadEstimate(NamedTuple):
    """Result of :func:`download_time`.

    ``seconds`` is the estimated transfer time, ``throughput`` the binding rate in
    bytes/s and ``binding`` the name of the limit that sets it: ``"line-rate"``,
    ``"window"`` or ``"loss"`` (a ``str`` for scalar input, an array of ``str``
    otherwise).  ``line_rate``, ``window`` and ``loss`` are the three candidate rates
    in bytes/s (``inf`` where a limit does not apply); ``loss_model`` names the model
    behind ``loss``.
    """

    seconds: np.ndarray | np.float64
    throughput: np.ndarray | np.float64
    binding: np.ndarray | str
    line_rate: np.ndarray | np.float64
    window: np.ndarray | np.float64
    loss: np.ndarray | np.float64
    loss_model: str


def download_time(
    size,
    rtt,
    *,
    mss=1460,
    rate=np.inf,
    overhead=SARKAR_OVERHEAD_BYTES,
    rwnd=np.inf,
    p=0.0,
    loss_model="mathis",
    rto=1.0,
    b=1,
):
    """Time to move ``size`` bytes at the tightest of three throughput limits.

    Formula: ``t = size / min(T_line, T_window, T_loss)`` where

    * ``T_line = MSS / (MSS + overhead) * rate`` (:func:`tcplab.models.line_rate_limit`),
    * ``T_window = rwnd / RTT`` (:func:`tcplab.models.window_limit`),
    * ``T_loss`` = Mathis (:func:`tcplab.models.mathis_throughput`) or the PFTK goodput
      ``(1 - p) x`` :func:`tcplab.models.pftk_throughput` (with ``rwnd`` as its
      window cap), chosen by ``loss_model``; ``inf`` when ``p = 0``.

    The result says which limit binds.  Ties go to the first of line-rate, window, loss.

    Source: Sarkar 2022 Section 4.4: ``10,000,000 / 219,000 = 45.66 s`` for a 10 MB
    file, ``rwnd`` 8760 bytes and RTT 0.04 s (the window binds: the 10 Mbit/s line
    allows 1,186,605.98 bytes/s).

    Assumptions: the transfer runs at its steady-state rate from the first byte: no
    handshake, slow start, idle time or application delay (Sarkar's measured 60.21 s
    against 45.66 s shows how much those can add; use
    :func:`tcplab.models.cardwell_latency` for short transfers).  ``p`` is the
    per-segment loss probability.

    Parameters: ``size`` >= 0 bytes, ``rtt`` > 0 s, ``mss`` > 0 bytes, ``rate`` > 0
    bytes/s (inf: no line limit), ``overhead`` >= 0 bytes, ``rwnd`` > 0 bytes (inf: no
    window limit), ``p`` in [0, 1], ``loss_model`` in ``LOSS_MODELS``, ``rto`` > 0 s
    (PFTK only), ``b`` >= 1 segments per ACK.  At least one limit must be finite.

    Returns a :class:`DownloadEstimate`.
    """
    if loss_model not in LOSS_MODELS:
        raise ValueError(f"loss_model must be one of {', '.join(LOSS_MODELS)}, got {loss_model!r}")
    size = as_array("size", size, lo=0.0, unit="bytes")
    rtt = as_array("rtt", rtt, lo=0.0, lo_open=True, unit="s")
    mss = as_array("mss", mss, lo=0.0, lo_open=True, unit="bytes")
    rate = as_array("rate", rate, lo=0.0, lo_open=True, finite=False, unit="bytes/s")
    overhead = as_array("overhead", overhead, lo=0.0, unit="bytes")
    rwnd = as_array("rwnd", rwnd, lo=0.0, lo_open=True, finite=False, unit="bytes")
    p = as_array("p", p, lo=0.0, hi=1.0)

    t_line = mss / (mss + overhead) * rate
    t_window = rwnd / rtt
    if loss_model == "mathis":
        t_loss = np.asarray(mathis_throughput(mss, rtt, p, b=b))
    else:
        t_loss = np.asarray(pftk_throughput(mss, rtt, p, rto, b=b, rwnd=rwnd, goodput=True))
    t_line, t_window, t_loss, size = np.broadcast_arrays(t_line, t_window, t_loss, size)
    stack = np.stack([t_line, t_window, t_loss])
    unbounded = np.isinf(stack).all(axis=0)
    if unbounded.any():
        raise ValueError(
            "download_time needs at least one finite limit: give rate (line rate), "
            "rwnd (receive window) or p > 0 (loss)"
        )
    idx = np.argmin(stack, axis=0)
    best = np.take_along_axis(stack, idx[None, ...], axis=0)[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        seconds = np.where(size == 0.0, 0.0, size / best)
    names = np.asarray(LIMIT_NAMES)[idx]
    binding = str(names) if np.ndim(idx) == 0 else names
    return DownloadEstimate(
        seconds=finish(seconds),
        throughput=finish(best),
        binding=binding,
        line_rate=finish(t_line),
        window=finish(t_window),
        loss=finish(t_loss),
        loss_model=loss_model,
    )
