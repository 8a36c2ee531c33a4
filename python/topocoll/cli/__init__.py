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
from topocoll.errors import one_line

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


def main(argv: list[str] | None = None) -> int:
    try:
        args = parser().parse_args(argv)
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else EXIT_INPUT
    try:
        return args.run(args)
    except ValueError as error:  # InputError, and the core's input errors
        print(f"error: {one_line(error)}", file=sys.stderr)
        return EXIT_INPUT
    except OSError as error:
        print(f"error: {error.strerror or error}: {error.filename or ''}", file=sys.stderr)
        return EXIT_INPUT
    except MemoryError:
        hint = OUT_OF_MEMORY_HINTS.get(args.command, "try a smaller instance")
        print(f"error: out of memory; {hint}", file=sys.stderr)
        return EXIT_INPUT
