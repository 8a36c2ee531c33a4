"""Sizes with units, as users write them: 32B, 4KiB, 512MiB, 1GB, or a plain byte count."""

from __future__ import annotations

import re

from topocoll.shapes import InputError

_FACTORS = {
    "": 1,
    "b": 1,
    "k": 1000,
    "kb": 1000,
    "m": 1000**2,
    "mb": 1000**2,
    "g": 1000**3,
    "gb": 1000**3,
    "kib": 1024,
    "mib": 1024**2,
    "gib": 1024**3,
    "tib": 1024**4,
}


def parse_bytes(text: str) -> int:
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*", text)
    unit = match.group(2).lower() if match else None
    if not match or unit not in _FACTORS:
        raise InputError(
            f"size '{text}' is not understood; accepted: a byte count with an optional unit "
            "B, KB, MB, GB, KiB, MiB, GiB, TiB (e.g. 4KiB, 512MiB)"
        )
    value = float(match.group(1)) * _FACTORS[unit]
    if value != int(value):
        raise InputError(f"size '{text}' is not a whole number of bytes")
    return int(value)


def format_bytes(value: float) -> str:
    for unit, factor in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if value >= factor:
            return f"{value / factor:.2f} {unit}"
    return f"{value:.0f} B"
