"""Vectorised analytic models of TCP over lossy links.

All functions accept scalars or numpy arrays (broadcast against each other) and use SI
units: seconds, bytes and bytes per second; probabilities are plain numbers in [0, 1].
Bad input raises ``ValueError`` naming the argument, the value and what is allowed.

``mathis``, ``pftk`` and ``cardwell`` are the models' short names (the throughput of Mathis
and of PFTK in bytes/s, Cardwell's latency)::

    >>> import tcplab
    >>> round(tcplab.models.mathis(1460, 0.1, 1.2e-3))
    516188

* :mod:`.ber`: BER -> PER (exact and Sarkar's linear rule), segment counts, retransmissions.
* :mod:`.limits`: line-rate and window ceilings, congestion-avoidance window growth.
* :mod:`.mathis`: Mathis et al. 1997 square-root formula.
* :mod:`.pftk`: Padhye-Firoiu-Towsley-Kurose 1998, full model and closed form.
* :mod:`.cardwell`: Cardwell-Savage-Anderson 2000 latency of finite transfers.
* :mod:`.estimate`: download time from the binding limit, and which one binds.
* :mod:`.units`: parse "100ms", "10Mbps", "10MB", "0.1%".

The command-line front end is :mod:`.cli` (mounted as ``tcplab model``).
"""

from .ber import (
    ber_from_per,
    expected_retransmissions,
    per_from_ber,
    per_from_ber_linear,
    segments_needed,
)
from .cardwell import CardwellLatency, cardwell_latency
from .estimate import LIMIT_NAMES, LOSS_MODELS, DownloadEstimate, download_time
from .limits import (
    SARKAR_OVERHEAD_BYTES,
    bytes_per_s_to_mbps,
    cwnd_growth_ca,
    line_rate_limit,
    mbps_to_bytes_per_s,
    window_limit,
)
from .mathis import mathis_constant, mathis_throughput
from .pftk import (
    pftk_approx_throughput,
    pftk_backoff_factor,
    pftk_expected_window,
    pftk_throughput,
    pftk_timeout_probability,
)
from .units import parse_duration, parse_probability, parse_rate, parse_size

# The names users try first are the models themselves: ``tcplab.models.mathis(mss, rtt, p)``.
# They replace the attributes naming the submodules, which stay importable by their full names
# (``from tcplab.models.mathis import mathis_constant``).
mathis = mathis_throughput
pftk = pftk_throughput
cardwell = cardwell_latency

__all__ = [
    "mathis",
    "pftk",
    "cardwell",
    "LIMIT_NAMES",
    "LOSS_MODELS",
    "SARKAR_OVERHEAD_BYTES",
    "CardwellLatency",
    "DownloadEstimate",
    "ber_from_per",
    "bytes_per_s_to_mbps",
    "cardwell_latency",
    "cwnd_growth_ca",
    "download_time",
    "expected_retransmissions",
    "line_rate_limit",
    "mathis_constant",
    "mathis_throughput",
    "mbps_to_bytes_per_s",
    "parse_duration",
    "parse_probability",
    "parse_rate",
    "parse_size",
    "per_from_ber",
    "per_from_ber_linear",
    "pftk_approx_throughput",
    "pftk_backoff_factor",
    "pftk_expected_window",
    "pftk_throughput",
    "pftk_timeout_probability",
    "segments_needed",
    "window_limit",
]
