"""`topocoll sim` (one schedule on a network) and `topocoll compare` (every algorithm over a range
of sizes). Definitions of size, goodput and peak: topocoll/simulate.py; docs/simulator.md."""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from topocoll import _core, parameters
from topocoll.compare import MAX_JOBS, Comparison, compare
from topocoll.shapes import InputError
from topocoll.simulate import (
    ROOTED,
    Network,
    Setup,
    SimResult,
    check_outputs,
    input_files,
    make_setup,
    parse_size,
)
from topocoll.units import format_bytes, format_duration

DEFAULT_TOPOLOGY = "torus:8x8"
DEFAULT_COLLECTIVE = "allreduce"
DEFAULT_SIZES = "32B:512MiB"
LINK_COLUMNS = ("link", "label", "from", "to", "bytes", "busy_s", "utilization")


def add_network_arguments(p: argparse.ArgumentParser, defaults: bool) -> None:
    topo = DEFAULT_TOPOLOGY if defaults else None
    coll = DEFAULT_COLLECTIVE if defaults else None
    p.add_argument("--topology", "-t", default=topo, help="e.g. torus:8x8, ring:16, hypercube:6")
    p.add_argument("--collective", "-c", default=coll, help="allreduce, reduce-scatter, ...")
    p.add_argument("--model", default="flow", help="analytic, flow (default), packet or simgrid")
    p.add_argument("--routing", default="minimal", help="minimal (default), dor, ecmp, valiant")
    p.add_argument("--mapping", default="linear", help="linear (default), random:SEED, FILE")
    p.add_argument("--params", help="parameter preset: swing (default), trivance, canary")
    p.add_argument("--bandwidth", help="link bandwidth per direction, e.g. 400Gbps")
    p.add_argument("--latency", help="link latency, e.g. 100ns")
    p.add_argument("--hop-latency", help="latency per link crossed, e.g. 300ns")
    p.add_argument("--alpha", help="software overhead per step, e.g. 1.5us")
    p.add_argument("--reduce-cost", help="time to reduce one byte, e.g. 0.01ns")
    p.add_argument("--nic-ports", help="host-to-switch links per host (fat trees, dragonflies)")
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
    p.add_argument("--force", action="store_true", help="run even beyond the estimated limits")
    p.add_argument("--progress", action="store_true", help="show progress on stderr")


def network_options(args: argparse.Namespace) -> dict:
    """The keyword options of `make_setup` and `compare` that the network arguments give."""
    if not args.topology:
        forms = [line.split()[0] for line in _core.topology_help().splitlines() if line[:1].strip()]
        raise InputError(f"--topology is required; accepted: {', '.join(forms)}")
    if not args.collective:
        raise InputError(f"--collective is required; accepted: {', '.join(_core.collectives())}")
    names = ("model", "routing", "mapping", "params", "bandwidth", "latency", "hop_latency")
    names += ("alpha", "reduce_cost", "nic_ports", "ranks", "dims", "ports", "root")
    names += ("mtu", "header", "buffer", "global_load")
    return {name: getattr(args, name) for name in names}


def setup_from(args: argparse.Namespace) -> Setup:
    return make_setup(args.topology, args.collective, **network_options(args))


def bound_text(collective: str) -> str:
    if collective == "allreduce":
        return "2(P-1)/P x size"
    if collective in ("bcast", "reduce"):
        return "size"
    return "(P-1)/P x size"


def print_result(r: SimResult) -> None:
    shape = f"dims {r.dims}" if "x" in r.dims else "1D"
    root = f", root {r.root}" if r.collective in ROOTED else ""
    print(
        f"{r.collective} {r.algorithm} on {r.topology}: {r.ranks} ranks ({shape}), {r.ports} "
        f"ports{root}, {format_bytes(r.size_bytes)}, {r.model} model, {r.routing} routing"
        + (f", global links {100 * r.global_load:g}% taken by other jobs" if r.global_load else "")
    )
    print(f"time              {format_duration(r.time_s)}")
    print(
        f"goodput           {r.goodput_gbps:.2f} Gb/s, {r.peak_percent:.1f}% of the peak "
        f"{r.peak_goodput_gbps:.2f} Gb/s (bound {bound_text(r.collective)} at "
        f"{r.host_bandwidth_gbps:.0f} Gb/s per host)"
    )
    print(
        f"link utilization  max {100 * r.max_link_utilization:.1f}%, "
        f"mean {100 * r.mean_link_utilization:.1f}% (of links that carried data)"
    )
    print(f"messages          {r.messages} ({r.transfers} transfers)")


def write_links(path: str, result: SimResult) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=LINK_COLUMNS)
        writer.writeheader()
        for row in result.links or []:
            writer.writerow({k: row[k] for k in LINK_COLUMNS})


PLOT_FORMATS = (".png", ".pdf", ".svg")


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


def cmd_sim(args: argparse.Namespace) -> int:
    if not args.algorithm:
        names = ", ".join(a["name"] for a in _core.algorithms())
        raise InputError(f"--algorithm is required; accepted: {names}")
    if not args.size:
        raise InputError("--size is required, e.g. 1MiB; accepted: 1B to 1TiB")
    size = parse_size(args.size)
    setup = setup_from(args)
    check_outputs(setup, args.links, args.trace)
    network = Network(setup)
    cost = network.check_limits(args.algorithm, size, args.force, args.trace)
    with running(args, cost, f"simulating {args.algorithm} on {args.topology}"):
        result = network.run(args.algorithm, size, links=bool(args.links), trace=args.trace)
    if args.links:
        write_output(args.links, "--links", lambda path: write_links(path, result))
    if args.json:
        print(json.dumps(result.to_dict()))
    else:
        print_result(result)
        if args.links:
            print(f"per-link bytes and busy time written to {args.links}")
        if args.trace:
            print(f"trace written to {args.trace} (open it in https://ui.perfetto.dev)")
    return 0


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


def run_compare(args: argparse.Namespace, schedules: Sequence[str] = ()) -> Comparison | None:
    if not 1 <= args.jobs <= MAX_JOBS:
        raise InputError(f"--jobs {args.jobs} out of range; accepted: 1..{MAX_JOBS}")
    setup_from(args)  # validates before the pool starts
    options = network_options(args)
    bar = progress_bar(f"simulating on {args.topology}", args)
    with bar or contextlib.nullcontext():
        task = bar.add_task("runs", total=None) if bar else None
        return compare(
            args.topology,
            args.collective,
            algorithms=args.algorithms,
            sizes=args.sizes,
            jobs=args.jobs,
            progress=(lambda done, total: bar.update(task, completed=done, total=total))
            if bar
            else None,
            force=args.force,
            schedules=schedules,
            **options,
        )


def print_table(c: Comparison) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console(width=120)
    table = Table(
        title=f"{c.collective} on {c.topology} ({c.ranks} ranks, {c.model} model, {c.routing} "
        f"routing): goodput per size; * the best; peak {c.peak_goodput_gbps:.1f} Gb/s"
    )
    for column in ("size", "algorithm", "kind", "time", "goodput Gb/s", "% peak", "best"):
        table.add_column(column, justify="left" if column in ("algorithm", "kind") else "right")
    by_size: dict[int, list] = {}
    for e in c.entries:
        by_size.setdefault(e.size_bytes, []).append(e)
    for size, entries in by_size.items():
        for n, e in enumerate(entries):
            kind = ("paper" if e.paper else "baseline") if e.kind == "algorithm" else "best-of"
            if e.family == "file":
                kind = "file"
            name = e.algorithm + (f" = {e.chosen}" if e.chosen else "")
            table.add_row(
                format_bytes(size) if n == 0 else "",
                name,
                kind,
                format_duration(e.time_s),
                f"{e.goodput_gbps:.3f}",
                f"{e.peak_percent:.1f}",
                "*" if e.best else "",
                end_section=n == len(entries) - 1,
                style="dim" if e.kind == "best-of" else None,
            )
    console.print(table)
    summary = Table(
        title="best per size; gain = goodput of the best paper algorithm / best baseline"
    )
    for column in ("size", "best", "time", "goodput Gb/s", "best paper", "best baseline", "gain"):
        summary.add_column(column, justify="left" if "best" in column else "right")
    for s in c.summary:
        summary.add_row(
            format_bytes(s.size_bytes),
            s.best,
            format_duration(s.best_time_s),
            f"{s.best_goodput_gbps:.3f}",
            s.best_paper or "-",
            s.best_baseline or "-",
            f"{s.gain:.2f}x" if s.gain is not None else "-",
        )
    console.print(summary)


def plot(c: Comparison, path: str) -> None:
    """Goodput vs size, one line per algorithm (log x), and below it the gain of the best paper
    algorithm over the best baseline (the inset of swing-nsdi24.txt Fig. 6)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, gain_ax) = plt.subplots(
        2, 1, figsize=(11, 7.5), sharex=True, gridspec_kw={"height_ratios": [3, 1]}
    )
    colors = plt.get_cmap("tab20").colors
    for n, name in enumerate(c.algorithms):
        rows = [e for e in c.entries if e.algorithm == name]
        ax.plot(
            [e.size_bytes for e in rows],
            [e.goodput_gbps for e in rows],
            marker="o",
            markersize=3,
            linestyle="-" if rows[0].paper else "--",
            color=colors[n % len(colors)],
            label=name,
        )
    ax.set_xscale("log", base=2)
    ax.set_ylabel("goodput (Gb/s)")
    ax.set_title(
        f"{c.collective} on {c.topology} ({c.ranks} ranks), {c.model} model; solid: paper "
        f"algorithms, dashed: baselines; peak {c.peak_goodput_gbps:.0f} Gb/s"
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    gains = [(s.size_bytes, s.gain) for s in c.summary if s.gain is not None]
    if gains:
        gain_ax.plot([g[0] for g in gains], [g[1] for g in gains], color="black", marker=".")
    gain_ax.axhline(1.0, color="grey", linewidth=0.5)
    gain_ax.set_ylabel("gain (x)")
    gain_ax.set_xlabel("vector size (bytes)")
    gain_ax.set_title("best paper algorithm / best baseline", fontsize=9)
    gain_ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def cmd_compare(args: argparse.Namespace) -> int:
    if args.format not in ("table", "csv", "json"):
        raise InputError(f"unknown --format '{args.format}'; accepted: table, csv, json")
    writable(args.plot, "--plot", setup_from(args))
    result = run_compare(args, args.schedule)
    if result is None:  # an MPI rank other than 0: rank 0 prints
        return 0
    if result.skipped:
        print(
            f"skipped {len(result.skipped)} algorithms that do not fit {result.topology} "
            f"(ranks {result.ranks}): {', '.join(result.skipped)}",
            file=sys.stderr,
        )
        for name, reason in result.skipped.items():
            print(f"  {name}: {reason}", file=sys.stderr)
    if result.skipped_sizes:
        sizes = ", ".join(format_bytes(s) for s in result.skipped_sizes)
        print(f"skipped sizes below P = {result.ranks} bytes: {sizes}", file=sys.stderr)
    if args.format == "json":
        print(json.dumps(result.to_dict()))
    elif args.format == "csv":
        rows = result.rows()
        writer = csv.DictWriter(sys.stdout, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    else:
        print_table(result)
    if args.plot:
        write_output(args.plot, "--plot", lambda path: plot(result, path))
        where = Path(args.plot).resolve()
        print(f"plot written to {where}", file=sys.stderr if args.format != "table" else None)
    return 0


def add_parsers(sub) -> None:
    """Registers `sim` and `compare` on the CLI's subparsers."""
    p = sub.add_parser("sim", help="simulate one schedule on a network")
    add_network_arguments(p, defaults=False)
    p.add_argument("--algorithm", "-a", help="a name from `topocoll algorithms`")
    p.add_argument("--size", "-s", help="bytes of the vector, e.g. 1MiB (1B to 1TiB)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--links", help="write per-link bytes and busy time to this CSV file")
    p.add_argument("--trace", help="write a Chrome trace-event JSON file (Perfetto)")
    p.set_defaults(run=cmd_sim)

    p = sub.add_parser("compare", help="simulate every algorithm over a range of sizes")
    add_network_arguments(p, defaults=True)
    p.add_argument(
        "--algorithms", default="all", help="A,B,... or all (default); none: the --schedule files"
    )
    p.add_argument(
        "--schedule",
        action="append",
        default=[],
        help="a schedule file (JSON or MSCCL XML) run beside the algorithms; repeatable",
    )
    p.add_argument(
        "--sizes", default=DEFAULT_SIZES, help="LOW:HIGH (powers of two) or A,B,... (bytes)"
    )
    p.add_argument("--format", default="table", help="table (default), csv, json")
    p.add_argument("--plot", help="write goodput vs size to this PNG file")
    p.add_argument("--jobs", "-j", type=int, default=1, help="local processes (default 1)")
    p.set_defaults(run=cmd_compare)
