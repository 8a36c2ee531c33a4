"""What the subcommands share: the exit codes, argument types, the shape and network options,
progress on stderr and output files."""

from __future__ import annotations

import argparse
import contextlib
import sys
import time

from topocoll import _core, limits, parameters
from topocoll.collectives import ROOTED
from topocoll.errors import InputError, one_line
from topocoll.formats import schedule_files
from topocoll.machine import load_machine
from topocoll.plots import PLOT_FORMATS
from topocoll.shapes import MAX_RANKS, format_dims, parse_dims
from topocoll.simulation import MAX_PORTS, Setup, input_files, make_setup
from topocoll.units import format_duration

EXIT_OK, EXIT_WRONG, EXIT_INPUT = 0, 1, 2
DEFAULT_TOPOLOGY = "torus:8x8"
DEFAULT_COLLECTIVE = "allreduce"


# argparse's own type errors name the value but not what is accepted; the range checks after
# parsing name the ranges.
_ACCEPTED_BY_TYPE = {"invalid int value": "an integer", "invalid float value": "a number"}


class Parser(argparse.ArgumentParser):
    """argparse with the exit-code contract: a usage error is one line and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        for words, accepted in _ACCEPTED_BY_TYPE.items():
            if words in message and "accepted:" not in message:
                message += f"; accepted: {accepted}"
        self.exit(EXIT_INPUT, f"error: {self.prog}: {one_line(message)}\n")


def _bounded(name: str, convert, kind: str, low, high, accepted: str):
    """An argparse type: `convert(text)` in [low, high] (NaN is in no range), else a one-line
    error naming the accepted values."""

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {kind}; accepted: {accepted}"
            ) from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range; accepted: {accepted}")
        return value

    parse.__name__ = name
    return parse


def bounded_int(name: str, low: int, high: int, accepted: str | None = None):
    """An argparse type: an integer in [low, high] (any base Python reads, 0x10 too)."""
    return _bounded(name, lambda text: int(text, 0), "an integer", low, high,
                    accepted or f"{low}..{high}")  # fmt: skip


def bounded_float(name: str, low: float, high: float):
    """An argparse type: a number in [low, high]."""
    return _bounded(name, float, "a number", low, high, f"{low:g} to {high:g}")


def given(args: argparse.Namespace, *names: str) -> list[str]:
    """The options among `names` the user gave (their defaults are None or False)."""
    return [
        "--" + n.replace("_", "-") for n in names if getattr(args, n, None) not in (None, False)
    ]


def reject(args: argparse.Namespace, names: tuple[str, ...], context: str) -> None:
    extra = given(args, *names)
    if extra:
        raise InputError(f"{', '.join(extra)} does not apply to {context}")


def add_shape_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--collective", "-c", help="allreduce, reduce-scatter, allgather, ...")
    parser.add_argument("--algorithm", "-a", help="a name from `topocoll algorithms`")
    parser.add_argument(
        "--ranks",
        "-p",
        type=bounded_int("ranks", 1, MAX_RANKS, f"2..{MAX_RANKS}"),
        help=f"number of ranks P (2..{MAX_RANKS})",
    )
    parser.add_argument("--dims", help="torus shape D0xD1x... (default: a ring of P ranks)")
    parser.add_argument(
        "--ports",
        type=bounded_int(
            "ports", 1, MAX_PORTS, "1 or more (omit --ports for the algorithm's default)"
        ),
        help="ports (default: the algorithm's)",
    )
    parser.add_argument(
        "--root",
        type=bounded_int("root", -MAX_RANKS, MAX_RANKS, "0..P-1"),
        help="root of rooted collectives (default 0)",
    )
    parser.add_argument(
        "--non-commutative", action="store_true", help="the reduction operator does not commute"
    )
    add_ranks_per_node(parser)


def add_ranks_per_node(parser: argparse.ArgumentParser) -> None:
    """--ranks-per-node K: nodes of K ranks (rank r on node r / K); the compositions hier:INNER
    and leader:INNER run INNER on the P / K nodes, the simulator runs the node model."""
    parser.add_argument(
        "--ranks-per-node",
        type=bounded_int("ranks-per-node", 1, MAX_RANKS, f"1..{MAX_RANKS}"),
        help="ranks per node K (default 1; docs/nodes.md, docs/hierarchical.md)",
    )


def build_from_args(args: argparse.Namespace) -> _core.Schedule:
    if not args.collective:
        raise InputError(f"--collective is required; accepted: {', '.join(_core.collectives())}")
    if not args.algorithm:
        names = ", ".join(a["name"] for a in _core.algorithms())
        raise InputError(f"--algorithm is required; accepted: {names}")
    if args.collective not in _core.collectives():
        raise InputError(
            f"unknown collective '{args.collective}'; accepted: {', '.join(_core.collectives())}"
        )
    if args.root is not None and args.collective not in ROOTED:
        raise InputError(
            f"--root does not apply to {args.collective}; it applies to {', '.join(ROOTED)}"
        )
    dims = parse_dims(args.dims) if args.dims else []
    if not args.ranks and not dims:
        raise InputError("--ranks is required (a number of ranks >= 2), or give --dims")
    return _core.build(
        args.algorithm,
        args.collective,
        args.ranks or 0,
        dims,
        args.ports or 0,
        args.root or 0,
        not args.non_commutative,
        getattr(args, "ranks_per_node", None) or 1,
    )


def describe(info: dict) -> str:
    shape = format_dims(info["dims"]) if len(info["dims"]) > 1 else str(info["ranks"])
    text = f"{info['collective']} {info['algorithm']} P={shape} ports={info['ports']}"
    if info["collective"] in ROOTED:
        text += f" root={info['root']}"
    return text


def non_negative_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 <= value <= 1e9:
        raise argparse.ArgumentTypeError(f"{value} is out of range; accepted: 0..1e9")
    return value


def read_schedule(name: str) -> tuple[_core.Schedule, list[str]]:
    """A JSON schedule or an MSCCL XML algorithm file, with the MSCCL executor's fallback notes."""
    return schedule_files.read_schedule_path(name)


# Exact mode keeps every contribution of every slot: its memory grows with ranks x slots x
# contributions. Auto mode stays well below the verifier's hard limit (EXACT_SLOT_LIMIT).
AUTO_EXACT_SLOTS = 1 << 19


def auto_mode(schedule: _core.Schedule) -> str:
    """`verify --mode auto`: exact where it is small, else fingerprint."""
    info = schedule.info
    small = info["ranks"] * info["slots"] <= AUTO_EXACT_SLOTS
    return "exact" if small and _core.exact_mode_fits(schedule) else "fingerprint"


def schedule_violation(schedule: _core.Schedule, force: bool) -> str | None:
    """What `verify` finds wrong with a schedule from a file (None: it is right), before it is
    timed: a wrong schedule's time means nothing (one that drops a block can beat the bound).
    The check is bounded as `verify`'s is (limits.check_verify; InputError beyond it)."""
    mode = auto_mode(schedule)
    limits.check_verify(schedule, mode, True, force)
    report = _core.verify(schedule, mode, True)
    return None if report["ok"] else str(report["message"])


def add_network_arguments(p: argparse.ArgumentParser, defaults: bool) -> None:
    topo = DEFAULT_TOPOLOGY if defaults else None
    coll = DEFAULT_COLLECTIVE if defaults else None
    p.add_argument(
        "--topology",
        "-t",
        help="e.g. torus:8x8, ring:16, hypercube:6 (default: the --machine's"
        + (f", else {topo})" if topo else ")"),
    )
    p.set_defaults(default_topology=topo)
    p.add_argument("--collective", "-c", default=coll, help="allreduce, reduce-scatter, ...")
    p.add_argument("--model", default="flow", help="analytic, flow (default), packet or simgrid")
    p.add_argument("--routing", default="minimal", help="minimal (default), dor, ecmp, valiant")
    p.add_argument("--mapping", default="linear", help="linear (default), random:SEED, FILE")
    p.add_argument(
        "--machine",
        help="a machine: a shipped name (swing-sst, trivance-sst, canary, cm200, lumi, "
        "leonardo, marenostrum5, fugaku) or a machine file; its network and host costs are "
        "the base that the single options below override",
    )
    p.add_argument(
        "--params",
        help="link-only preset: swing (default), trivance, canary: the link values of the "
        "machines swing-sst, trivance-sst, canary without their host costs",
    )
    p.add_argument(
        "--datatype", default="float", help="datatype reduced, for the machine's reduction rate"
    )
    p.add_argument("--bandwidth", help="link bandwidth per direction, e.g. 400Gbps")
    p.add_argument("--latency", help="link latency, e.g. 100ns")
    p.add_argument("--hop-latency", help="latency per link crossed, e.g. 300ns")
    p.add_argument("--alpha", help="software overhead per step, e.g. 1.5us")
    p.add_argument("--reduce-cost", help="time to reduce one byte, e.g. 0.01ns")
    p.add_argument("--nic-ports", help="host-to-switch links per host (fat trees, dragonflies)")
    p.add_argument("--send-overhead", help="host CPU time per message sent (LogGP o), e.g. 1us")
    p.add_argument("--recv-overhead", help="host CPU time per message received, e.g. 1us")
    p.add_argument("--gap", help="least interval between messages of one port (LogGP g)")
    p.add_argument("--step-cpu", help="the runtime's CPU time per step of a lane, e.g. 500ns")
    p.add_argument("--call-overhead", help="the runtime's CPU time per call, e.g. 1us")
    p.add_argument("--copy-rate", help="host copy and packing rate, e.g. 10GBps, or none")
    p.add_argument(
        "--overhead-rate",
        help="host CPU rate per byte sent and per byte received (LogGOPS O), e.g. 5GBps, or none",
    )
    p.add_argument("--eager-threshold", help="largest eager message, e.g. 12000B, or none")
    p.add_argument(
        "--rendezvous-overhead",
        help="the receiver's CPU time per message above the eager threshold, beyond o, e.g. 1us",
    )
    p.add_argument(
        "--message-per-range",
        action="store_true",
        help="send each range of a send as its own message (a runtime without derived datatypes)",
    )
    p.add_argument(
        "--in-place",
        action="store_true",
        help="the call passes MPI_IN_PLACE: no copy of the input outside the schedule "
        "(default: out of place, its copies at the copy rate)",
    )
    p.add_argument("--ranks", "-p", type=int, help="ranks (default: every host)")
    p.add_argument("--dims", help="torus shape given to torus algorithms (default: the grid's)")
    p.add_argument("--ports", type=int, help="algorithm ports (default: its own)")
    p.add_argument("--root", type=int, help="root of rooted collectives (default 0)")
    p.add_argument("--mtu", help="packet model: payload bytes per packet (default 4KiB)")
    p.add_argument("--header", help="packet model: header bytes per packet (default 0B)")
    p.add_argument("--buffer", help="packet model: bytes per port and hop class (default 64KiB)")
    p.add_argument(
        "--global-load",
        help="flow model, dragonflies: fraction of each global link taken by other jobs (0..0.99)",
    )
    add_ranks_per_node(p)
    p.add_argument("--force", action="store_true", help="run even beyond the estimated limits")
    p.add_argument("--progress", action="store_true", help="show progress on stderr")


def network_options(args: argparse.Namespace) -> dict:
    """The keyword options of `make_setup` and `compare` that the network arguments give; sets
    `args.topology` to the --machine's topology when none was given."""
    topology = args.topology or (None if args.machine else getattr(args, "default_topology", None))
    if not topology and not args.machine:
        forms = [line.split()[0] for line in _core.topology_help().splitlines() if line[:1].strip()]
        raise InputError(f"--topology is required; accepted: {', '.join(forms)}")
    if not args.collective:
        raise InputError(f"--collective is required; accepted: {', '.join(_core.collectives())}")
    names = ("model", "routing", "mapping", "params", "bandwidth", "latency", "hop_latency")
    names += ("alpha", "reduce_cost", "nic_ports", "ranks", "dims", "ports", "root")
    names += ("mtu", "header", "buffer", "global_load", "machine", "datatype", "send_overhead")
    names += ("recv_overhead", "gap", "copy_rate", "overhead_rate", "eager_threshold")
    names += ("step_cpu", "call_overhead", "rendezvous_overhead")
    names += ("message_per_range", "in_place")
    names += ("ranks_per_node",)
    if not topology:  # the machine's default topology, named for the messages of every command
        topology = load_machine(args.machine).topology
        if topology is None:
            raise InputError(
                f"--topology is required (machine {args.machine} gives none); accepted: a "
                "topology spec such as torus:8x8"
            )
    args.topology = topology
    return {name: getattr(args, name) for name in names}


def setup_from(args: argparse.Namespace) -> Setup:
    options = network_options(args)
    return make_setup(args.topology, args.collective, **options)


def writable(path: str | None, option: str, setup: Setup | None = None) -> None:
    """Checks an output path before a run that may take minutes (parameters.outputs): also
    that it is none of the files the run of `setup` reads."""
    inputs = input_files(setup) if setup else {}
    parameters.outputs({option: path}, inputs, suffixes={"--plot": PLOT_FORMATS})


def write_output(path: str, option: str, write) -> None:
    try:
        write(path)
    except OSError as error:
        raise InputError(f"{option} {path}: cannot write ({error.strerror})") from None


def show_progress(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "progress", False)) or sys.stderr.isatty()


@contextlib.contextmanager
def running(args: argparse.Namespace, cost, label: str):
    """While one run goes: on a terminal a status line with the elapsed time and the estimate;
    with --progress elsewhere a line when it starts and one when it ends. (The engine reports
    no progress of its own; it runs with the interpreter released.)"""
    if sys.stderr.isatty() and cost.seconds >= 2:
        from rich.console import Console

        with Console(stderr=True).status(f"{label}: estimated {cost.describe()}"):
            yield
        return
    if not getattr(args, "progress", False):
        yield
        return
    start = time.monotonic()
    print(f"{label}: estimated {cost.describe()}", file=sys.stderr, flush=True)
    yield
    print(f"{label}: done in {format_duration(time.monotonic() - start)}", file=sys.stderr)


class LineProgress:
    """Progress of a sweep as plain lines on stderr (--progress without a terminal): one per
    finished run, at most one every PERIOD_S seconds, and the last."""

    PERIOD_S = 5.0

    def __init__(self, label: str) -> None:
        self.label = label
        self.start = time.monotonic()
        self.printed = -self.PERIOD_S

    def __enter__(self) -> LineProgress:
        return self

    def __exit__(self, *exc) -> None:
        return None

    def add_task(self, *args, **kwargs) -> int:
        return 0

    def update(self, task: int, completed: int, total: int) -> None:
        now = time.monotonic() - self.start
        if completed and (completed == total or now - self.printed >= self.PERIOD_S):
            self.printed = now
            print(
                f"{self.label}: {completed}/{total} runs in {format_duration(now)}",
                file=sys.stderr,
                flush=True,
            )


def progress_bar(total_hint: str, args: argparse.Namespace):
    """A rich progress bar on stderr when it is a terminal, lines with --progress elsewhere;
    else None."""
    if not show_progress(args):
        return None
    if not sys.stderr.isatty():
        return LineProgress(total_hint)
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

    return Progress(
        f"[bold]{total_hint}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    )
