"""Shapes of canary-fgcs24 Figs. 2, 7a, 7b, 8, 9, 10a, 10b and 11 from `topocoll innet` runs:
goodput of Canary, one and four static trees and the ring, with and without congestion, against
the share of hosts, the size, the number of tenants, host noise and the timeout, and (7b, 10b)
the distribution of link utilization. Five random allocations (seeds) per point, as the paper
does.

    python -m topocoll.reproduce.canary_figures fig7a --topology fattree:canary --jobs 2
    python -m topocoll.reproduce.canary_figures fig8 --topology fattree:2:8:8:8 --size 256KiB
    (figures: fig2, fig7a, fig7b, fig8, fig9, fig10, fig10b, fig11)
    python -m topocoll.reproduce.canary_figures calibrate --seeds 2 --jobs 2
    python -m topocoll.reproduce.canary_figures headline --congestion uniform --jobs 2
    python -m topocoll.reproduce.canary_figures sensitivity --congestion uniform --seeds 3 --jobs 2

`calibrate` runs Fig. 7b's case (half the hosts congesting) over congestion loads and routings
and prints each one's mean link utilization against the paper's (Canary 40.2%, four static
trees 29.5%, one 20.9%, 5.2.1); `headline` is the claim (Canary >= 1.5x one static tree,
>= 1.2x four); `sensitivity` turns each choice of the congestion model (docs/innet.md) back to
its earlier value, one at a time, and prints the two ratios.

Each point is the mean over the seeds; the JSON of every run is written next to the plot, and a
Markdown table of the means is printed. --jobs runs that many simulations at once (threads: the
engine releases the GIL)."""

from __future__ import annotations

import argparse
import json
import statistics
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from topocoll import _core
from topocoll.innet import utilization_shares
from topocoll.machine import load_machine
from topocoll.plots import plot_shares, pyplot
from topocoll.simulation import parse_size

ALGORITHMS = ("canary", "static-1", "static-4", "ring")


@dataclass
class FigureRun:
    """What a figure's runs share: the size and seeds of every point, where the runs go (a
    thread pool, or reproduce's canary.Deferred: anything with `submit(fn, *args)`) and the
    engine options every run gets (--congestion, --flow-control)."""

    size: int
    seeds: int
    pool: object
    engine: dict = field(default_factory=dict)


def run_one(topology, algorithm: str, options: dict) -> dict:
    r = _core.innet_run(topology, algorithm, options)
    links = r.pop("links")
    if options.get("links"):  # kept as the share of links per 10% utilization bin
        r["utilization_shares"] = utilization_shares(links)
    return r


def goodput(
    args: FigureRun,
    topology,
    algorithm: str,
    hosts: int,
    size: int,
    congestion: bool,
    seed: int,
    **extra,
) -> Future:
    options = {"hosts": hosts, "size_bytes": size, "congestion": congestion, "seed": seed}
    return args.pool.submit(run_one, topology, algorithm, {**options, **args.engine, **extra})


def fig7a(args, topology) -> tuple[dict, str]:
    hosts = topology.hosts // 2
    runs = {}
    for congestion in (False, True):
        for algorithm in ALGORITHMS[:3]:
            key = f"{algorithm} {'congested' if congestion else 'idle'}"
            runs[key] = [
                goodput(args, topology, algorithm, hosts, args.size, congestion, seed)
                for seed in range(1, args.seeds + 1)
            ]
    return runs, "Fig. 7a: goodput with and without congestion"


def fig8(args, topology) -> tuple[dict, str]:
    runs = {}
    for share in (0.05, 0.25, 0.5, 0.75):
        hosts = max(2, round(share * topology.hosts))
        for algorithm in ALGORITHMS:
            runs[f"{algorithm} {int(share * 100)}%"] = [
                goodput(args, topology, algorithm, hosts, args.size, True, seed)
                for seed in range(1, args.seeds + 1)
            ]
    return runs, "Fig. 8: goodput against the share of hosts in the allreduce (rest congest)"


def seeds(args, topology, algorithm, hosts, size, congestion, **extra) -> list[Future]:
    return [
        goodput(args, topology, algorithm, hosts, size, congestion, seed, **extra)
        for seed in range(1, args.seeds + 1)
    ]


def fig2(args, topology) -> tuple[dict, str]:
    runs = {}
    for share in (0.01, 0.75):
        hosts = max(2, round(share * topology.hosts))
        for congestion in (False, True):
            for algorithm in ("ring", "static-1", "canary"):
                key = f"{algorithm} {int(share * 100)}% {'congested' if congestion else 'idle'}"
                runs[key] = seeds(args, topology, algorithm, hosts, args.size, congestion)
    return runs, "Fig. 2: goodput on 1% and 75% of the hosts"


def fig9(args, topology) -> tuple[dict, str]:
    runs = {}
    hosts = max(2, round(0.2 * topology.hosts))
    for size in (1 << 10, 16 << 10, 256 << 10, args.size):
        for congestion in (False, True):
            for algorithm in ("canary", "static-4", "ring"):
                key = f"{algorithm} {size >> 10}KiB {'congested' if congestion else 'idle'}"
                runs[key] = seeds(args, topology, algorithm, hosts, size, congestion)
    return runs, "Fig. 9: 20% of the hosts in the allreduce, goodput per size"


def fig10(args, topology) -> tuple[dict, str]:
    runs = {}
    for tenants in (1, 2, 4, 8):
        for algorithm in ("canary", "static-1", "static-4", "ring"):
            runs[f"{algorithm} x{tenants}"] = seeds(
                args,
                topology,
                algorithm,
                topology.hosts,
                args.size,
                False,
                tenants=tenants,
                partition_table=True,
            )
    return runs, "Fig. 10a: mean goodput of concurrent allreduces (all hosts, partitioned tables)"


def fig11(args, topology) -> tuple[dict, str]:
    runs = {}
    hosts = topology.hosts // 2
    for congestion in (False, True):
        for noise in (0.0001, 0.001, 0.01, 0.1):
            state = "congested" if congestion else "idle"
            for timeout in (1e-6, 2e-6, 3e-6):
                runs[f"canary {timeout * 1e6:.0f}us noise {noise} {state}"] = seeds(
                    args,
                    topology,
                    "canary",
                    hosts,
                    args.size,
                    congestion,
                    noise=noise,
                    timeout_s=timeout,
                )
            runs[f"static-4 noise {noise} {state}"] = seeds(
                args, topology, "static-4", hosts, args.size, congestion, noise=noise
            )
    return runs, "Fig. 11: goodput against host noise (1us delays) and the Canary timeout"


def fig7b(args, topology) -> tuple[dict, str]:
    hosts = topology.hosts // 2
    runs = {}
    for algorithm in ALGORITHMS[:3]:
        runs[f"{algorithm} congested"] = seeds(
            args, topology, algorithm, hosts, args.size, True, links=True
        )
    return runs, "Fig. 7b: link utilization, half the hosts in the allreduce, the rest congesting"


def fig10b(args, topology) -> tuple[dict, str]:
    tenants = 20
    runs = {}
    for algorithm in ALGORITHMS[:3]:
        runs[f"{algorithm} x{tenants}"] = seeds(
            args,
            topology,
            algorithm,
            topology.hosts // tenants * tenants,
            args.size,
            False,
            tenants=tenants,
            partition_table=True,
            links=True,
        )
    return runs, "Fig. 10b: link utilization of 20 concurrent allreduces (partitioned tables)"


# canary-fgcs24 5.2.1: mean link utilization under congestion (Fig. 7b's case)
PAPER_UTILIZATION = {"canary": 40.2, "static-4": 29.5, "static-1": 20.9}
LOADS = (0.1, 0.2, 0.3, 0.4, 0.6, 1.0)
ROUTINGS = ("default", "ecmp", "adaptive")


def calibrate(args, topology) -> tuple[dict, str]:
    hosts = topology.hosts // 2
    runs = {}
    for routing in ROUTINGS:
        for load in LOADS:
            for algorithm in PAPER_UTILIZATION:
                runs[f"{algorithm} {routing} load {load}"] = seeds(
                    args,
                    topology,
                    algorithm,
                    hosts,
                    args.size,
                    True,
                    background_load=load,
                    background_routing=routing,
                )
    return runs, "Congestion load and routing against Fig. 7b's mean link utilization"


def print_calibration(runs: dict) -> None:
    print("| routing | load | " + " | ".join(f"{a} util %" for a in PAPER_UTILIZATION), end="")
    print(" | rms error (points) | " + " | ".join(f"{a} Gb/s" for a in PAPER_UTILIZATION) + " |")
    print("|---" * (3 + 2 * len(PAPER_UTILIZATION)) + "|")
    for routing in ROUTINGS:
        for load in LOADS:
            util, good = [], []
            for algorithm in PAPER_UTILIZATION:
                rs = runs[f"{algorithm} {routing} load {load}"]
                util.append(100 * statistics.mean(r["mean_link_utilization"] for r in rs))
                good.append(statistics.mean(r["goodput_gbps"] for r in rs))
            paper = list(PAPER_UTILIZATION.values())
            rms = statistics.mean((u - p) ** 2 for u, p in zip(util, paper, strict=True)) ** 0.5
            cells = " | ".join(f"{u:.1f}" for u in util)
            print(f"| {routing} | {load} | {cells} | {rms:.1f} | ", end="")
            print(" | ".join(f"{g:.1f}" for g in good) + " |")


def headline(args, topology) -> tuple[dict, str]:
    hosts = topology.hosts // 2
    runs = {}
    for algorithm in ALGORITHMS:
        runs[algorithm] = seeds(args, topology, algorithm, hosts, args.size, True)
    return runs, "Headline: Canary against one and four static trees under congestion"


# Each choice of the congestion model (docs/innet.md) set back to the one before it, one at a time.
VARIANTS = {
    "defaults": {},
    "table: shared hash": {"table_index": "shared-hash"},
    "table: per-switch hash": {"table_index": "switch-hash"},
    "timer: 200 us minimum (RFC 6298 above)": {"rto_s": 200e-6},
    "window: unbounded": {"window": 0},
    "background routing: adaptive": {"background_routing": "adaptive"},
    "background routing: ecmp": {"background_routing": "ecmp"},
    "background load: 1 (back to back)": {"background_load": 1.0},
    "all earlier choices": {
        "table_index": "shared-hash",
        "rto_s": 200e-6,
        "window": 0,
        "background_routing": "adaptive",
        "background_load": 1.0,
    },
}


def sensitivity(args, topology) -> tuple[dict, str]:
    hosts = topology.hosts // 2
    runs = {}
    for variant, extra in VARIANTS.items():
        for algorithm in ALGORITHMS[:3]:
            runs[f"{algorithm} | {variant}"] = seeds(
                args, topology, algorithm, hosts, args.size, True, **extra
            )
    return runs, "Sensitivity of the headline ratios to each model choice"


def print_ratios(runs: dict) -> None:
    print(
        "| variant | canary Gb/s | static-1 | static-4 | canary/static-1 | canary/static-4 "
        "| canary retransmissions | canary collisions |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for variant in VARIANTS:
        g = {
            a: statistics.mean(r["goodput_gbps"] for r in runs[f"{a} | {variant}"])
            for a in ALGORITHMS[:3]
        }
        canary = runs[f"canary | {variant}"]
        retx = statistics.mean(r["retransmissions"] for r in canary)
        collisions = statistics.mean(r["collisions"] for r in canary)
        print(
            f"| {variant} | {g['canary']:.1f} | {g['static-1']:.1f} | {g['static-4']:.1f} | "
            f"{g['canary'] / max(g['static-1'], 1e-9):.2f} | "
            f"{g['canary'] / max(g['static-4'], 1e-9):.2f} | {retx:.0f} | {collisions:.0f} |"
        )


FIGURES = {"fig2": fig2, "fig7a": fig7a, "fig8": fig8, "fig9": fig9, "fig10": fig10}
FIGURES["fig11"] = fig11
FIGURES["fig7b"] = fig7b
FIGURES["fig10b"] = fig10b
FIGURES["calibrate"] = calibrate
FIGURES["headline"] = headline
FIGURES["sensitivity"] = sensitivity


def plot(runs: dict, title: str, path: Path) -> None:
    plt = pyplot()

    names = list(runs)
    means = [statistics.mean(r["goodput_gbps"] for r in runs[n]) for n in names]
    fig, ax = plt.subplots(figsize=(max(6, len(names) * 0.6), 4))
    ax.bar(range(len(names)), means)
    ax.set_xticks(range(len(names)), names, rotation=60, ha="right")
    ax.set_ylabel("goodput (Gb/s)")
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path)


def print_shares(runs: dict, caption: str, path: Path) -> None:
    """The mean over the seeds of each bin's share of links, plotted and printed."""
    means = {
        name: [statistics.mean(r["utilization_shares"][b] for r in rs) for b in range(10)]
        for name, rs in runs.items()
    }
    plot_shares(str(path), means, caption)
    print("| run | " + " | ".join(f"{10 * b}-{10 * b + 10}%" for b in range(10)) + " |")
    print("|---" * 11 + "|")
    for name, shares in means.items():
        print(f"| {name} | " + " | ".join(f"{v:.1f}" for v in shares) + " |")


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("figure", choices=sorted(FIGURES))
    p.add_argument("--topology", default="fattree:canary")
    p.add_argument("--size", default="4MiB")
    p.add_argument("--seeds", type=int, default=5)
    p.add_argument("--out", default="docs/img")
    p.add_argument("--jobs", type=int, default=1, help="simulations at once (default 1)")
    p.add_argument("--congestion", default="permutation", choices=("permutation", "uniform"))
    p.add_argument("--flow-control", default="input", choices=("input", "output"))
    p.add_argument("--suffix", default="", help="appended to the output file names")
    p.add_argument(
        "--earlier-model",
        action="store_true",
        help="the congestion model's earlier choices (shared-hash tables, 200 us timer minimum, "
        "no window, back-to-back congestion routed adaptively): how the figures in "
        "docs/innet.md were made",
    )
    args = p.parse_args()
    if not 1 <= args.jobs <= 64:
        p.error(f"--jobs {args.jobs} out of range; accepted: 1..64")
    engine = {"permutation": args.congestion == "permutation", "adaptive_rto": True}
    engine["force"] = True  # the figures' runs are long on purpose
    if args.earlier_model:
        engine.update(VARIANTS["all earlier choices"])
    engine["input_credits"] = args.flow_control == "input"
    args.size = parse_size(args.size)
    run = FigureRun(args.size, args.seeds, ThreadPoolExecutor(max_workers=args.jobs), engine)
    topology = _core.make_topology(args.topology, load_machine("canary").params)
    futures, title = FIGURES[args.figure](run, topology)
    runs = {name: [f.result() for f in fs] for name, fs in futures.items()}
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    stem = f"innet-{args.figure}{args.suffix}"
    (out / f"{stem}.json").write_text(json.dumps(runs, indent=1, sort_keys=True))
    engine = f"congestion {args.congestion}, flow control {args.flow_control}"
    caption = f"{title}\n{args.topology}, {args.size >> 10} KiB, {engine}"
    if all("utilization_shares" in r for rs in runs.values() for r in rs):
        print_shares(runs, caption, out / f"{stem}.png")
    else:
        plot(runs, caption, out / f"{stem}.png")
    if args.figure == "calibrate":
        print_calibration(runs)
    if args.figure == "sensitivity":
        print_ratios(runs)
    print("| run | goodput Gb/s (mean) | min | max | exact | link util % | retx (mean) |")
    print("|---|---|---|---|---|---|---|")
    for name, rs in runs.items():
        g = [r["goodput_gbps"] for r in rs]
        exact = "yes" if all(r["exact"] for r in rs) else "NO"
        util = 100 * statistics.mean(r["mean_link_utilization"] for r in rs)
        retx = statistics.mean(r["retransmissions"] for r in rs)
        print(
            f"| {name} | {statistics.mean(g):.2f} | {min(g):.2f} | {max(g):.2f} | {exact} | "
            f"{util:.1f} | {retx:.0f} |"
        )
    if args.figure == "headline":
        mean = {n: statistics.mean(r["goodput_gbps"] for r in rs) for n, rs in runs.items()}
        print(
            f"canary/static-1 {mean['canary'] / max(mean['static-1'], 1e-9):.2f} (claim >= 1.5), "
            f"canary/static-4 {mean['canary'] / max(mean['static-4'], 1e-9):.2f} (claim >= 1.2)"
        )


if __name__ == "__main__":
    main()
