"""Quantities with units, as users write them; the grammar is the core's (src/topology/units.cpp
for rates and durations, src/mpi/runtime/byte_size.hpp for sizes), which the MPI runtime's
settings read too.

Sizes: a byte count with an optional unit. `KB`, `MB`, `GB`, `TB` are powers of ten; `KiB`,
`MiB`, `GiB`, `TiB` and the bare `K`, `M`, `G`, `T` are powers of two, as in nccl-tests and the
OSU micro-benchmarks (`-b 8 -e 128M`).
Rates: `400Gbps`, `100Mbps` (bits per second), `50GBps` (bytes per second), in bytes per second.
Durations: `100ns`, `1.5us`, `2ms`, `1s`, in seconds.
"""

from __future__ import annotations

from collections.abc import Callable

from topocoll import _core
from topocoll.errors import InputError

# The largest size topocoll handles (1 PiB): beyond, byte counts of whole runs leave 64 bits.
MAX_BYTES: int = _core.MAX_BYTES


def _parsed(parse: Callable, text: object):
    try:
        return parse(str(text))
    except ValueError as error:  # the core's message names the accepted forms
        raise InputError(str(error)) from None


def parse_bytes(text: str) -> int:
    """`4KiB` -> 4096, `1KB` -> 1000, `128M` -> 134217728, `32` -> 32."""
    return _parsed(_core.parse_bytes, text)


def parse_rate(text: str) -> float:
    """`400Gbps` -> 5e10, `100Mbps` -> 1.25e7, `50GBps` -> 5e10 (bytes per second)."""
    return _parsed(_core.parse_rate, text)


def parse_duration(text: str) -> float:
    """`100ns` -> 1e-7, `1.5us` -> 1.5e-6, `2ms` -> 0.002, `1s` -> 1.0 (seconds)."""
    return _parsed(_core.parse_time, text)


def format_bytes(value: float) -> str:
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if value >= factor:
            return f"{value / factor:.2f} {unit}"
    return f"{value:.0f} B"


def format_duration(seconds: float) -> str:
    for unit, factor in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= factor:
            return f"{seconds / factor:.3f} {unit}"
    return f"{seconds / 1e-9:.1f} ns"
