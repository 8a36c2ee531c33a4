"""canary-fgcs24.txt Figs. 2, 7a, 7b, 8, 9, 10 and 11: goodput of Canary, one and four static
trees and the ring on a 2-level fat tree, five random allocations (seeds) per point, the
`canary` machine file and the congestion defaults (chosen on Fig. 7b's utilisation,
docs/innet.md). The runs are those of canary_figures.py (bench/figures/innet.py runs them alone)."""

from __future__ import annotations

import statistics
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor

from topocoll import _core
from topocoll.machine import load_machine
from topocoll.parallel import spread_over_ranks
from topocoll.plots import pyplot

from . import canary_figures as cf
from .core import Context, Experiment, write_csv

SEEDS = 5


def topology_for(ctx: Context):
    spec = "fattree:canary" if ctx.paper else "fattree:2:8:8:8"
    size = (4 << 20) if ctx.paper else (256 << 10)
    return spec, size


class Deferred:
    """Stands for the thread pool of canary_figures.FigureRun: records the runs a figure submits,
    then `run` spreads them over the MPI ranks and, on each, over --jobs threads (the engine
    releases the GIL), and sets every future on every rank from the merged results."""

    def __init__(self) -> None:
        self.calls: list[tuple[Future, Callable, tuple]] = []

    def submit(self, run: Callable, *args) -> Future:
        future: Future = Future()
        self.calls.append((future, run, args))
        return future

    def run(self, ctx: Context) -> None:
        def share(calls: list) -> list:
            with ThreadPoolExecutor(max_workers=ctx.jobs) as pool:
                return list(pool.map(lambda call: call[1](*call[2]), calls))

        results = spread_over_ranks(self.calls, share, ctx.world, everywhere=True)
        for (future, _, _), result in zip(self.calls, results, strict=True):
            future.set_result(result)


def run_figure(ctx: Context, figure: str) -> tuple[dict, str, str, int]:
    spec, size = topology_for(ctx)
    pool = Deferred()
    engine = {"permutation": True, "adaptive_rto": True, "force": True, "input_credits": True}
    topology = _core.make_topology(spec, load_machine("canary").params)
    futures, title = cf.FIGURES[figure](cf.FigureRun(size, SEEDS, pool, engine), topology)
    pool.run(ctx)
    runs = {name: [f.result() for f in fs] for name, fs in futures.items()}
    return runs, title, spec, size


def mean(runs: dict, name: str, key: str = "goodput_gbps") -> float:
    return statistics.mean(r[key] for r in runs[name])


def ratio(runs: dict, a: str, b: str) -> float:
    return round(mean(runs, a) / max(mean(runs, b), 1e-9), 3)


def write(ctx: Context, figure: str, runs: dict, title: str, spec: str, size: int) -> None:
    rows = []
    for name, rs in runs.items():
        g = [r["goodput_gbps"] for r in rs]
        rows.append({"run": name, "goodput_gbps_mean": statistics.mean(g), "min": min(g),
                     "max": max(g), "stdev": statistics.pstdev(g),
                     "mean_link_utilization": mean(runs, name, "mean_link_utilization"),
                     "exact": all(r["exact"] for r in rs), "seeds": len(rs)})  # fmt: skip
    write_csv(ctx.out / f"{figure}.csv", rows)
    caption = f"Canary {title}\n{spec}, {size >> 10} KiB, {SEEDS} seeds"
    if all("utilization_shares" in r for rs in runs.values() for r in rs):
        caption += " (share of links per bin: mean of the seeds)"
        means = {n: [statistics.mean(r["utilization_shares"][b] for r in rs) for b in range(10)]
                 for n, rs in runs.items()}  # fmt: skip
        from topocoll.plots import plot_shares

        plot_shares(str(ctx.out / f"{figure}.png"), means, caption)
        return
    plt = pyplot()
    names = list(runs)
    fig, ax = plt.subplots(figsize=(max(6, len(names) * 0.45), 4))
    ys = [r["goodput_gbps_mean"] for r in rows]
    pairs = list(zip(ys, rows, strict=True))
    err = [[y - r["min"] for y, r in pairs], [r["max"] - y for y, r in pairs]]
    ax.bar(range(len(names)), ys, yerr=err, capsize=2)
    ax.set_xticks(range(len(names)), names, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("goodput (Gb/s)")
    ax.set_title(caption + " (bars: min..max)", fontsize=8)
    fig.tight_layout()
    fig.savefig(ctx.out / f"{figure}.png", dpi=80)
    plt.close(fig)


def experiment(figure: str, results) -> callable:
    def run(ctx: Context) -> dict:
        runs, title, spec, size = run_figure(ctx, figure)
        write(ctx, figure, runs, title, spec, size)
        out = results(runs)
        out["all exact"] = float(all(r["exact"] for rs in runs.values() for r in rs))
        return out

    return run


def fig2(runs):
    return {"canary/ring 1% idle": ratio(runs, "canary 1% idle", "ring 1% idle"),
            "canary/static-1 75% congested": ratio(runs, "canary 75% congested",
                                                   "static-1 75% congested")}  # fmt: skip


def fig7a(runs):
    return {"canary/static-1 congested": ratio(runs, "canary congested", "static-1 congested"),
            "canary/static-4 congested": ratio(runs, "canary congested", "static-4 congested"),
            "canary/static-1 idle": ratio(runs, "canary idle", "static-1 idle")}  # fmt: skip


def fig7b(runs):
    return {f"{a} mean link utilization %": round(100 * mean(runs, f"{a} congested",
                                                             "mean_link_utilization"), 1)
            for a in ("canary", "static-4", "static-1")}  # fmt: skip


def fig8(runs):
    return {f"canary/static-1 at {s}%": ratio(runs, f"canary {s}%", f"static-1 {s}%")
            for s in (5, 25, 50, 75)}  # fmt: skip


def fig9(runs):
    big = max(int(k.split()[1][:-3]) for k in runs)
    return {"canary/ring largest size congested": ratio(
                runs, f"canary {big}KiB congested", f"ring {big}KiB congested"),
            "canary/ring 1KiB idle": ratio(runs, "canary 1KiB idle", "ring 1KiB idle")}  # fmt: skip


def fig10(runs):
    return {"canary/static-1 with 8 tenants": ratio(runs, "canary x8", "static-1 x8"),
            "canary x8 / canary x1": ratio(runs, "canary x8", "canary x1"),
            "static-1 x8 / static-1 x1": ratio(runs, "static-1 x8", "static-1 x1")}  # fmt: skip


def fig11(runs):
    return {"canary 1us at noise 0.01 / at 0.0001, idle": ratio(
                runs, "canary 1us noise 0.01 idle", "canary 1us noise 0.0001 idle"),
            "canary 1us / static-4 at noise 0.0001, congested": ratio(
                runs, "canary 1us noise 0.0001 congested",
                "static-4 noise 0.0001 congested"),
            # Fig. 11 under congestion: Canary above four static trees at every noise level
            # and timeout (section 5.2.5); the smallest of those ratios.
            "min canary / static-4 over noise and timeout, congested": min(
                ratio(runs, name, f"static-4 noise {name.split()[3]} congested")
                for name in runs
                if name.startswith("canary") and name.endswith("congested"))}  # fmt: skip


FIGS = {"fig2": ("Fig. 2", fig2), "fig7a": ("Fig. 7a", fig7a), "fig7b": ("Fig. 7b", fig7b),
        "fig8": ("Fig. 8", fig8), "fig9": ("Fig. 9", fig9), "fig10": ("Fig. 10a", fig10),
        "fig11": ("Fig. 11", fig11)}  # fmt: skip
PAPER_S = {"fig2": 780, "fig7a": 410, "fig7b": 90, "fig8": 2730, "fig9": 660, "fig10": 960,
           "fig11": 2340}  # fmt: skip  # docs/innet.md, measured with --jobs 2

EXPERIMENTS = [
    Experiment(f"canary-{f}", "canary", fig, experiment(f, results),
               {"small": 4, "paper": PAPER_S[f]},
               f"{fig} on fattree:canary, 4 MiB (small: fattree:2:8:8:8, 256 KiB), 5 seeds")
    for f, (fig, results) in FIGS.items()
]  # fmt: skip


def results_from_csv(name: str, rows: list[dict]) -> dict:
    """A figure's ratios from its stored CSV: the ratio of two runs' mean goodputs is what
    `ratio` computes from the seeds' runs (the mean of the seeds is the CSV's column)."""
    figure = name.removeprefix("canary-")
    if figure not in FIGS or figure == "fig7b" or not rows or "goodput_gbps_mean" not in rows[0]:
        return {}
    runs = {r["run"]: [{"goodput_gbps": float(r["goodput_gbps_mean"])}] for r in rows}
    return FIGS[figure][1](runs)
