"""Quantities with units, as users write them.

Sizes: a byte count with an optional unit. `KB`, `MB`, `GB`, `TB` are powers of ten; `KiB`,
`MiB`, `GiB`, `TiB` and the bare `K`, `M`, `G`, `T` are powers of two, as in nccl-tests and the
OSU micro-benchmarks (`-b 8 -e 128M`).
Rates: `400Gbps`, `100Mbps` (bits per second), `50GBps` (bytes per second), in bytes per second.
Durations: `100ns`, `1.5us`, `2ms`, `1s`, in seconds.
"""

from __future__ import annotations

import math
import re

from topocoll.errors import InputError

_SIZE_FACTORS = {
    "": 1,
    "b": 1,
    "k": 1024,
    "m": 1024**2,
    "g": 1024**3,
    "t": 1024**4,
    "kb": 1000,
    "mb": 1000**2,
    "gb": 1000**3,
    "tb": 1000**4,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
}
# Rates are case sensitive in the unit's last letters: b is bits, B is bytes.
_RATE_PREFIXES = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_RATE_UNITS = {"bps": 1 / 8, "bit/s": 1 / 8, "Bps": 1, "B/s": 1}
_DURATIONS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
# The largest size topocoll handles (1 PiB): beyond, byte counts of whole runs leave 64 bits.
MAX_BYTES = 1 << 50
_NUMBER = r"\s*(\d+(?:\.\d+)?|\.\d+)\s*"


def parse_bytes(text: str) -> int:
    """`4KiB` -> 4096, `1KB` -> 1000, `128M` -> 134217728, `32` -> 32."""
    match = re.fullmatch(_NUMBER + r"([a-zA-Z]*)\s*", str(text))
    unit = match.group(2).lower() if match else None
    if not match or unit not in _SIZE_FACTORS:
        raise InputError(
            f"size {text!r} is not understood; accepted: a byte count with an optional unit "
            "B, KB, MB, GB, TB (powers of 10), KiB, MiB, GiB, TiB or K, M, G, T (powers of 2), "
            "e.g. 4KiB, 128M, 1GB"
        )
    value = float(match.group(1)) * _SIZE_FACTORS[unit]
    if value > MAX_BYTES:
        raise InputError(f"size {text!r} is out of range; accepted: 0 to 1PiB")
    if value != int(value):
        raise InputError(f"size {text!r} is not a whole number of bytes")
    return int(value)


def parse_rate(text: str) -> float:
    """`400Gbps` -> 5e10, `100Mbps` -> 1.25e7, `50GBps` -> 5e10 (bytes per second)."""
    match = re.fullmatch(_NUMBER + r"([kKMGT]?)(bps|bit/s|Bps|B/s)\s*", str(text))
    if not match:
        raise InputError(
            f"rate {text!r} is not understood; accepted: a number with a unit bps, kbps, Mbps, "
            "Gbps, Tbps (bits per second) or Bps, KBps, MBps, GBps, TBps (bytes per second), "
            "e.g. 400Gbps, 50GBps"
        )
    value = float(match.group(1)) * _RATE_PREFIXES[match.group(2)] * _RATE_UNITS[match.group(3)]
    if value <= 0 or not math.isfinite(value):
        raise InputError(f"rate {text!r} must be positive")
    return value


def parse_duration(text: str) -> float:
    """`100ns` -> 1e-7, `1.5us` -> 1.5e-6, `2ms` -> 0.002, `1s` -> 1.0 (seconds)."""
    match = re.fullmatch(_NUMBER + r"(ns|us|µs|ms|s)\s*", str(text))
    if not match:
        raise InputError(
            f"duration {text!r} is not understood; accepted: a number with a unit ns, us, ms "
            "or s, e.g. 100ns, 1.5us, 2ms"
        )
    value = float(match.group(1)) * _DURATIONS[match.group(2)]
    if not math.isfinite(value):
        raise InputError(f"duration {text!r} is out of range")
    return value


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
