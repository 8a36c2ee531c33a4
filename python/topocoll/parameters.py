"""The arguments of `sim`, `compare`, `tune` and of their Python functions, checked in one place.

Numeric parameters and their ranges come from the core's table (`_core.parameter_ranges()`,
src/topology/parameter_ranges.cpp), which also checks the network parameters and graph files,
and which docs/simulator.md lists. A value is a number in SI units (bytes, bytes per second,
seconds) or a string with a unit (`"4KiB"`, `"400Gbps"`, `"100ns"`). What goes wrong is a
`TypeError` (not a number, or a fraction where a count is expected) or a ValueError
(`InputError`) naming the parameter and the accepted values, never an OverflowError.
"""

from __future__ import annotations

import math
import numbers
import operator
import os

from topocoll import _core
from topocoll.errors import InputError
from topocoll.units import parse_bytes, parse_duration, parse_rate

RANGES: dict[str, dict] = {r["name"]: r for r in _core.parameter_ranges()}

_PARSERS = {"B": parse_bytes, "B/s": parse_rate, "s": parse_duration, "s/B": parse_duration}
_EXAMPLES = {"B": "'4KiB'", "B/s": "'400Gbps'", "s": "'100ns'", "s/B": "'0.01ns'"}


def _kind(name: str) -> str:
    r = RANGES[name]
    if r["unit"] == "":
        return "an integer"
    number = "an integer number of bytes" if r["integer"] else "a number"
    return f"{number} or a string with a unit such as {_EXAMPLES[r['unit']]}"


def number(name: str, value: object, what: str | None = None) -> int | float:
    """`value` of parameter `name` (a key of RANGES), in SI units, checked against its range;
    messages call it `what` (default: its command-line option)."""
    r = RANGES[name]
    option = what or r["option"]
    if isinstance(value, str):
        if r["unit"] == "":
            try:
                value = int(value.strip())
            except ValueError:
                raise InputError(
                    f"{option} {value!r} is not an integer; accepted: {r['accepted']}"
                ) from None
        else:
            value = _PARSERS[r["unit"]](value)
    elif isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{option} must be {_kind(name)}, not {type(value).__name__}")
    if r["integer"]:  # a float is refused even when whole: a count has no fraction
        if not isinstance(value, numbers.Integral):
            raise TypeError(f"{option} must be {_kind(name)}, not {type(value).__name__}")
        value = operator.index(value)
        if not r["low"] <= value <= r["high"]:
            raise InputError(f"{option} {value} is out of range; accepted: {r['accepted']}")
        return value
    try:
        as_float = float(value)
    except OverflowError:  # an int past the largest double
        raise InputError(f"{option} {value} is out of range; accepted: {r['accepted']}") from None
    if not math.isfinite(as_float) or not r["low"] <= as_float <= r["high"]:
        raise InputError(f"{option} {value} is out of range; accepted: {r['accepted']}")
    return as_float


def count(name: str, value: object, accepted: str) -> int:
    """An integer argument (ranks, ports, root, jobs) whose range depends on the run."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(
            f"{name} must be an integer, not {type(value).__name__}; accepted: {accepted}"
        )
    return operator.index(value)


def text(name: str, value: object) -> str:
    """A string argument (topology, collective, algorithm, model, routing, mapping, preset):
    a str without control characters, which a C++ path or a one-line message cannot hold."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, not {type(value).__name__}")
    if any(not c.isprintable() for c in value):
        shown = "".join(c if c.isprintable() else ascii(c)[1:-1] for c in value)
        raise InputError(f"{name} '{shown}' contains a control character")
    return value


def path(name: str, value: object) -> str | None:
    """An output path (None: no output), as a string."""
    if value is None:
        return None
    if not isinstance(value, (str, os.PathLike)):
        raise TypeError(f"{name} must be a path (str or os.PathLike), not {type(value).__name__}")
    return text(name, os.fspath(value)) or None


def _same_file(a: str, b: str) -> bool:
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)  # hard links
    except OSError:
        return False


def outputs(named: dict[str, str | None], inputs: dict[str, str], suffixes=None) -> None:
    """Checks output files before a run that may take minutes: each one a writable path
    (not a directory, in an existing directory, with one of `suffixes[option]` if given), no two
    of them the same file, and none of them an input of the run (`inputs`: what -> path)."""
    given = {option: p for option, p in named.items() if p}
    for option, target in given.items():
        if os.path.isdir(target):
            raise InputError(f"{option} {target} is a directory; accepted: a file path")
        folder = os.path.dirname(os.path.abspath(target))
        if not os.path.isdir(folder):
            raise InputError(f"{option} {target}: no such directory")
        if not os.access(folder, os.W_OK) or (
            os.path.exists(target) and not os.access(target, os.W_OK)
        ):
            raise InputError(f"{option} {target}: not writable; accepted: a file you may write")
        accepted = (suffixes or {}).get(option)
        if accepted and os.path.splitext(target)[1].lower() not in accepted:
            raise InputError(f"{option} {target}: unknown format; accepted: {', '.join(accepted)}")
        for what, source in inputs.items():
            if _same_file(target, source):
                raise InputError(
                    f"{option} {target} is the {what} the run reads; accepted: another file"
                )
    options = list(given)
    for i, first in enumerate(options):
        for second in options[i + 1 :]:
            if _same_file(given[first], given[second]):
                raise InputError(
                    f"{first} and {second} name the same file {given[second]}; accepted: two "
                    "different files"
                )


def flag(name: str, value: object) -> bool:
    """A True/False argument."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__}")
    return value
