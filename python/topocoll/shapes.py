"""Parsing of torus shapes and the standard shape list used by `verify --all`."""

from __future__ import annotations

from topocoll import _core
from topocoll.errors import InputError

# The most ranks topocoll handles (the fingerprint verifier counts contributions in 24 bits) and
# the most torus dimensions: the bindings' bounds.
MAX_RANKS: int = _core.MAX_RANKS
MAX_DIMS: int = _core.MAX_DIMS


def parse_dims(text: str) -> list[int]:
    """Parse `D0xD1x...` (for example `4x4` or `2x8x2`) into sizes."""
    parts = text.lower().split("x")
    try:
        dims = [int(p) for p in parts]
    except ValueError:
        raise InputError(
            f"--dims '{text}' is not a torus shape; "
            "accepted: sizes joined by 'x', e.g. 8, 4x4, 2x8x2"
        ) from None
    if any(d < 1 for d in dims):
        raise InputError(f"--dims '{text}': every size must be >= 1")
    if len(dims) > MAX_DIMS:
        raise InputError(
            f"--dims '{text}' has {len(dims)} dimensions; accepted: at most {MAX_DIMS}"
        )
    if product(dims) > MAX_RANKS:
        raise InputError(
            f"--dims '{text}' holds {product(dims):,} ranks; accepted: at most {MAX_RANKS:,}"
        )
    return dims


def format_dims(dims: list[int]) -> str:
    return "x".join(str(d) for d in dims)


def product(dims: list[int]) -> int:
    result = 1
    for d in dims:
        result *= d
    return result


def standard_tori() -> list[list[int]]:
    """The torus shapes the foundation issue asks every torus algorithm to verify on."""
    shapes = [[a, b] for a in range(2, 9) for b in range(2, 9)]
    shapes += [[4, 6], [6, 6], [2, 8, 2], [4, 6, 4], [10, 10], [3, 9], [9, 9], [27, 27]]
    unique: list[list[int]] = []
    for s in shapes:
        if s not in unique:
            unique.append(s)
    return unique
