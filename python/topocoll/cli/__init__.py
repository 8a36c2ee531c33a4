"""The `topocoll` command line.

Exit codes: 0 success; 1 a well-formed schedule is wrong (the line names the violation); 2 any
input that is invalid, unsupported or too large (one line naming the problem and the accepted
values)."""

from __future__ import annotations

import argparse
import sys
from importlib.metadata import PackageNotFoundError, version

from topocoll.cli import (
    algorithms,
    calibrate,
    compare,
    innet,
    reproduce,
    schedule,
    sim,
    traffic,
    tune,
    validate,
    verify,
)
from topocoll.cli.common import EXIT_INPUT, Parser
from topocoll.errors import InputError, one_line

# One module per subcommand, in the order of `topocoll --help`; each has `register(subparsers)`,
# which adds its parser with `run(args)` as the handler.
COMMANDS = (algorithms, verify, traffic, schedule, sim, compare, tune, innet, reproduce)
COMMANDS += (calibrate, validate)  # under mpirun: the MPI runtime measures
# What to try after running out of memory, per command (only verify has a cheaper mode).
OUT_OF_MEMORY_HINTS = {
    "verify": "the instance is larger than this machine holds (try a smaller one or "
    "--mode fingerprint)",
    "sim": "the run is larger than this machine holds (fewer ranks, a smaller --size)",
    "compare": "the runs are larger than this machine holds (fewer ranks or --jobs)",
    "tune": "the runs are larger than this machine holds (fewer ranks or --jobs)",
}


def package_version() -> str:
    try:
        return version("topocoll")
    except PackageNotFoundError:
        return "unknown"


def parser() -> argparse.ArgumentParser:
    top = Parser(prog="topocoll", description=__doc__)
    top.add_argument("--version", action="version", version=f"topocoll {package_version()}")
    sub = top.add_subparsers(dest="command", required=True, parser_class=Parser)
    for command in COMMANDS:
        command.register(sub)
    return top


# Options whose value is a file Python opens or hands to the core as bytes (os.fsencode): a
# file name need not be UTF-8. Every other text goes to the core as UTF-8.
PATH_OPTIONS = frozenset({"schedule", "links", "trace", "plot", "output", "out", "outdir"})


def check_text(args: argparse.Namespace) -> None:
    """InputError naming the first option whose text is not UTF-8 (a byte the locale could not
    decode reaches Python as a lone surrogate, which the core cannot take), or a file option
    given as an empty path (which would otherwise read as "not given")."""
    for name, value in vars(args).items():
        values = value if isinstance(value, list) else [value]
        for v in values:
            if not isinstance(v, str):
                continue
            if name in PATH_OPTIONS:
                if not v:
                    option = "--" + name.replace("_", "-")
                    raise InputError(f"{option}: the path is empty; accepted: a file path")
                continue
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                shown = ascii(v.encode("utf-8", "surrogateescape"))[2:-1]
                option = "--" + name.replace("_", "-")
                raise InputError(
                    f"{option} '{shown}' is not UTF-8 text; accepted: UTF-8 text"
                ) from None


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else EXIT_INPUT
    try:
        check_text(args)
        return args.run(args)
    except ValueError as error:  # InputError, and the core's input errors
        print(f"error: {one_line(error)}", file=sys.stderr)
        return EXIT_INPUT
    except OSError as error:
        where = f"{error.filename}: " if error.filename else ""
        print(f"error: {where}{one_line(error.strerror or error)}", file=sys.stderr)
        return EXIT_INPUT
    except MemoryError:
        hint = OUT_OF_MEMORY_HINTS.get(args.command, "try a smaller instance")
        print(f"error: out of memory; {hint}", file=sys.stderr)
        return EXIT_INPUT
