"""Rates and durations with units, for the simulator's link parameters: `400Gbps`, `50GBps`,
`100ns`, `1.5us`. The `harden` branch adds the same `parse_rate` and `parse_duration` to
`topocoll.units`; once both are merged this module should import them from there."""

from __future__ import annotations

import math
import re

from topocoll.shapes import InputError

# b is bits, B is bytes: the unit's last letters are case sensitive.
_RATE_PREFIXES = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_RATE_UNITS = {"bps": 1 / 8, "bit/s": 1 / 8, "Bps": 1, "B/s": 1}
_DURATIONS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
_NUMBER = r"\s*(\d+(?:\.\d+)?|\.\d+)\s*"


def parse_rate(text: str) -> float:
    """`400Gbps` -> 5e10, `50GBps` -> 5e10 (bytes per second)."""
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
    """`100ns` -> 1e-7, `1.5us` -> 1.5e-6, `2ms` -> 0.002 (seconds)."""
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


def format_duration(seconds: float) -> str:
    for unit, factor in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= factor:
            return f"{seconds / factor:.3f} {unit}"
    return f"{seconds / 1e-9:.1f} ns"
