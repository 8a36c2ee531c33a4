"""Bine trees (bine-trees-sc25.txt) against binomial trees on the paper's four machines.

Fig. 5 and Table 3's traffic column: the reduction of global-link traffic over job allocations
on LUMI. LUMI's allocations are not public, so ours are random: ranks placed on random nodes
of `dragonfly:lumi`'s 24 groups of 124 nodes (section 5.1), ten allocations per node count.
Bytes crossing a group boundary are counted from the schedules (minimal paths, as the paper
assumes). Tables 3-5 and section 5.4.2: win/loss in the flow model on LUMI-, Leonardo- and
MareNostrum 5-like networks and on 3D tori (Fugaku). Under load: the same on LUMI while other
jobs take a share of every global link."""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from topocoll.groups import random_allocation, random_nodes
from topocoll.plots import pyplot
from topocoll.simulation import simulate
from topocoll.traffic import measure

from .core import Context, Experiment, size_label, write_csv

GROUPS, GROUP_NODES = 24, 31 * 4  # dragonfly:lumi = 24:31:4:16
ALLOCATIONS = 10
PAIRS = {  # collective: (Bine, the binomial tree / butterfly it replaces)
    "allreduce": ("bine-bw", "recdoub-bw"),
    "allgather": ("bine-bw", "recdoub-bw"),
    "reduce-scatter": ("bine-bw", "recdoub-bw"),
    "bcast": ("bine-large", "binomial-large"),
}


def reductions(collective: str, ranks: int) -> list[float]:
    bine, binomial = PAIRS[collective]
    out = []
    for seed in range(1, ALLOCATIONS + 1):
        group_of = random_allocation(ranks, GROUPS, GROUP_NODES, seed)
        a = measure(binomial, collective, ranks, [ranks], 0, group_of, 1 << 20, force=True)
        b = measure(bine, collective, ranks, [ranks], 0, group_of, 1 << 20, force=True)
        base = a.inter_group_bytes
        out.append(1 - b.inter_group_bytes / base if base else 0.0)
    return out


def fig5(ctx: Context) -> dict:
    counts = (16, 32, 64, 128, 256, 512, 1024, 2048) if ctx.paper else (16, 64, 256)
    cases = [(collective, n) for collective in PAIRS for n in counts]
    data = dict(zip(cases, ctx.map(lambda case: reductions(*case), cases), strict=True))
    rows = [{"collective": collective, "nodes": n, "allocation": i + 1, "reduction": round(r, 5)}
            for (collective, n), red in data.items() for i, r in enumerate(red)]  # fmt: skip
    write_csv(ctx.out / "fig5.csv", rows)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.boxplot([[100 * r for r in data[("allreduce", n)]] for n in counts], showfliers=False)
    ax.set_xticks(range(1, len(counts) + 1), [str(n) for n in counts])
    ax.axhline(100 / 3, color="r", ls="--", lw=0.8, label="bound 33% (Eq. 2)")
    ax.set_xlabel("nodes (random allocations on dragonfly:lumi)")
    ax.set_ylabel("global traffic reduction (%)")
    ax.set_title("Bine Fig. 5: allreduce, Bine against binomial butterflies", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.out / "fig5.png", dpi=80)
    plt.close(fig)
    ar = [r for n in counts for r in data[("allreduce", n)]]
    results = {
        "allreduce max reduction %": round(100 * max(ar), 2),
        "allreduce median reduction % at largest": round(
            100 * statistics.median(data[("allreduce", counts[-1])]), 2),
    }  # fmt: skip
    for collective in PAIRS:
        all_red = [r for n in counts for r in data[(collective, n)]]
        results[f"{collective} mean reduction %"] = round(100 * statistics.mean(all_red), 2)
        results[f"{collective} max reduction %"] = round(100 * max(all_red), 2)
    return results


@dataclass(frozen=True)
class System:
    """A machine of the paper's section 5 as our flow model sees it, for the win/loss tables."""

    machine: str  # the paper's name
    figure: str  # the table or section it reproduces
    table: str  # the stem of the CSV and PNG
    topology: str  # a spec; for a torus, "torus" and the shapes below are the node counts
    nodes: int  # hosts the allocations are drawn from (0: a whole torus, coordinate order)
    counts: dict[str, tuple]  # per scale: node counts (torus: shapes)
    pairs: dict[str, tuple[str, str]]  # collective: (Bine, the binomial algorithm it replaces)


TORUS_PAIRS = {  # section 5.4: Bine for tori, one port per direction (2D), against Open MPI's
    "allreduce": ("bine-bw-torus", "recdoub-bw"),
    "allgather": ("bine-bw-torus", "recdoub-bw"),
    "reduce-scatter": ("bine-bw-torus", "recdoub-bw"),
    "bcast": ("bine-torus", "binomial-large"),
}
SYSTEMS = {
    # section 5.1: 24 groups of 124 nodes
    "bine-table3": System("LUMI", "Table 3 (win/loss)", "table3", "dragonfly:lumi",
                          GROUPS * GROUP_NODES, {"paper": (64, 256, 1024), "small": (64,)}, PAIRS),
    # section 5.2: 23 groups of 180 nodes, two-level fat trees (18 leaves of 10)
    "bine-table4": System("Leonardo", "Table 4 (win/loss)", "table4", "dragonfly+:leonardo",
                          23 * 180, {"paper": (64, 256, 1024), "small": (64,)}, PAIRS),
    # section 5.3: full-bandwidth subtrees of 160 nodes, 2:1 above them; 4 to 64 nodes
    "bine-table5": System("MareNostrum 5", "Table 5 (win/loss)", "table5", "fattree:2:8:160:80",
                          8 * 160, {"paper": (16, 32, 64), "small": (16,)}, PAIRS),
    # section 5.4: a job gets a 3D sub-torus; 2x2x2, 4x4x4 and 8x8x8 among the paper's shapes
    "bine-fugaku": System("Fugaku", "Sec. 5.4.2", "fugaku", "torus", 0,
                          {"paper": ("2x2x2", "4x4x4", "8x8x8"), "small": ("4x4x4",)},
                          TORUS_PAIRS),
}  # fmt: skip
# The machine file of each system (python/topocoll/machines/, docs/machines.md), by table stem:
# its links and host costs; the topology stays the system's (a torus job gets its sub-torus).
MACHINE_FILES = {"table3": "lumi", "table4": "leonardo", "table5": "marenostrum5",
                 "fugaku": "fugaku"}  # fmt: skip


def win_loss(ctx: Context, system: System) -> dict:
    """Win/loss of Bine against binomial trees per collective (the first columns of Tables 3-5)
    in the flow model with no other jobs: a win or loss is a difference of more than 1% (the
    paper's threshold, section 5.1). Each node count runs on one random allocation numbered in
    node order, as a batch scheduler numbers it (the paper requested no placement, section 5);
    a torus job gets a whole sub-torus, ranks in coordinate order."""
    counts = system.counts["paper" if ctx.paper else "small"]
    sizes = [1 << k for k in (range(10, 27, 2) if ctx.paper else (10, 20, 24))]
    collectives = list(system.pairs) if ctx.paper else ["allreduce", "bcast"]

    def placement(n) -> tuple[str, dict]:
        if not system.nodes:
            return f"torus:{n}", {}
        return system.topology, {"ranks": n, "mapping": allocation_mapping(ctx, n, 1, system.nodes)}

    where = {n: placement(n) for n in counts}
    # largest runs first, so that --jobs threads (or MPI ranks) end together
    cases = [(collective, a, n, size) for n in reversed(counts)
             for size in sorted(sizes, reverse=True) for collective in collectives
             for a in system.pairs[collective]]  # fmt: skip

    def run(case) -> float:
        collective, algorithm, n, size = case
        topology, options = where[n]
        machine = ctx.machine_for(MACHINE_FILES[system.table])
        return simulate(topology, collective, algorithm, size, force=True, machine=machine,
                        **options).time_s  # fmt: skip

    time_of = dict(zip(cases, ctx.map(run, cases), strict=True))
    rows, results, gains_all = [], {}, []
    for collective in collectives:
        bine, binomial = system.pairs[collective]
        gains = []
        for n in counts:
            for size in sizes:
                t = {a: time_of[(collective, a, n, size)] for a in (bine, binomial)}
                gains.append(t[binomial] / t[bine] - 1)
                rows.append({"collective": collective, "nodes": n, "size_bytes": size,
                             "bine_s": t[bine], "binomial_s": t[binomial],
                             "gain": round(gains[-1], 5)})  # fmt: skip
        results[f"{collective} win %"] = round(100 * sum(g > 0.01 for g in gains) / len(gains), 1)
        results[f"{collective} loss %"] = round(
            100 * sum(g < -0.01 for g in gains) / len(gains), 1)  # fmt: skip
        gains_all += gains
    results["max speedup x"] = round(1 + max(gains_all), 3)
    write_csv(ctx.out / f"{system.table}.csv", rows)
    plot_win_loss(results, collectives, system, ctx.out / f"{system.table}.png")
    return results


def plot_win_loss(results: dict, collectives: list[str], system: System, path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    xs = range(len(collectives))
    ax.bar([x - 0.2 for x in xs], [results[f"{c} win %"] for c in collectives], 0.4, label="win")
    ax.bar([x + 0.2 for x in xs], [results[f"{c} loss %"] for c in collectives], 0.4,
           label="loss")  # fmt: skip
    ax.set_xticks(list(xs), collectives)
    ax.set_ylabel("% of (nodes, size) cases")
    ax.set_title(f"Bine against binomial trees on a {system.machine}-like {system.topology}\n"
                 "win/loss, flow model, no other jobs", fontsize=8)  # fmt: skip
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


def allocation_mapping(
    ctx: Context, ranks: int, seed: int, nodes: int = GROUPS * GROUP_NODES
) -> str:
    """A mapping file placing the ranks on `ranks` random nodes of `nodes` (by default those of
    dragonfly:lumi) in node order, as a batch scheduler numbers an allocation (the allocations
    of Fig. 5 and bine-fig5); `--mapping random:SEED` instead shuffles ranks over hosts, which
    leaves Bine no locality between rank distance and group to exploit."""
    chosen = random_nodes(ranks, nodes, seed)
    path = ctx.out / f"allocation-{nodes}-{ranks}-{seed}.csv"
    path.write_text("".join(f"{rank},{node}\n" for rank, node in enumerate(chosen)))
    return str(path)


def background(ctx: Context) -> dict:
    """Bine against binomial trees on dragonfly:lumi while other jobs take a share of every
    global link (`--global-load`, docs/simulator.md "Background load"): per load, the share of
    sizes where Bine wins or loses by more than 1% (section 5.1's threshold)."""
    ranks = 1024 if ctx.paper else 128
    loads = (0.0, 0.5, 0.8, 0.9, 0.95) if ctx.paper else (0.0, 0.8, 0.95)
    sizes = [1 << k for k in (range(10, 27, 2) if ctx.paper else (16, 22))]
    collectives = ("bcast", "allreduce")
    mapping = allocation_mapping(ctx, ranks, seed=1)
    machine = ctx.machine_for("lumi")
    # One unit of work per run, largest sizes first: the longest runs start first, so that
    # --jobs threads (or MPI ranks) end together.
    cases = [(collective, algorithm, load, size) for size in sorted(sizes, reverse=True)
             for collective in collectives for load in loads
             for algorithm in PAIRS[collective]]  # fmt: skip
    times = ctx.map(lambda case: simulate("dragonfly:lumi", case[0], case[1], case[3],
                                          ranks=ranks, mapping=mapping, machine=machine,
                                          global_load=case[2] or None, force=True).time_s,
                    cases)  # fmt: skip
    time_of = dict(zip(cases, times, strict=True))
    rows, results = [], {}
    for collective in collectives:
        bine, binomial = PAIRS[collective]
        results[f"{collective} lowest load where Bine wins most sizes"] = float("nan")
        for load in loads:
            t = {(a, s): time_of[(collective, a, load, s)] for a in (bine, binomial) for s in sizes}
            gains = [t[(binomial, s)] / t[(bine, s)] - 1 for s in sizes]
            rows += [{"collective": collective, "ranks": ranks, "global_load": load,
                      "size_bytes": s, "bine_s": t[(bine, s)], "binomial_s": t[(binomial, s)],
                      "gain": round(g, 5)} for s, g in zip(sizes, gains, strict=True)]  # fmt: skip
            win = 100 * sum(g > 0.01 for g in gains) / len(gains)
            results[f"{collective} win % at load {load}"] = round(win, 1)
            results[f"{collective} loss % at load {load}"] = round(
                100 * sum(g < -0.01 for g in gains) / len(gains), 1)  # fmt: skip
            results[f"{collective} median gain % at load {load}"] = round(
                100 * statistics.median(gains), 2)  # fmt: skip
            lowest = f"{collective} lowest load where Bine wins most sizes"
            if win > 50 and math.isnan(results[lowest]):  # the first such load
                results[lowest] = load
        results[f"{collective} win % at the highest load"] = results[
            f"{collective} win % at load {loads[-1]}"]  # fmt: skip
    write_csv(ctx.out / "background.csv", rows)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for collective in collectives:
        for size in sizes[:: max(1, len(sizes) // 4)]:
            ys = [100 * r["gain"] for r in rows
                  if r["collective"] == collective and r["size_bytes"] == size]  # fmt: skip
            ax.plot(loads, ys, "o-", ms=3, label=f"{collective} {size_label(size)}")
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xlabel("share of every global link taken by other jobs (--global-load)")
    ax.set_ylabel("Bine gain over binomial trees (%)")
    ax.set_title(f"Bine under background load: dragonfly:lumi, {ranks} ranks", fontsize=9)
    ax.legend(fontsize=6)
    fig.tight_layout()
    fig.savefig(ctx.out / "background.png", dpi=80)
    plt.close(fig)
    return results


def win_loss_experiment(name: str, estimate_s: dict[str, float], what: str) -> Experiment:
    system = SYSTEMS[name]
    return Experiment(name, "bine", system.figure, lambda ctx: win_loss(ctx, system), estimate_s,
                      what)  # fmt: skip


EXPERIMENTS = [
    Experiment("bine-fig5", "bine", "Fig. 5, Table 3 (traffic column)", fig5,
               {"small": 1, "paper": 8},
               "global-link traffic reduction over random LUMI-like allocations"),
    win_loss_experiment("bine-table3", {"small": 1, "paper": 1160},
                        "win/loss against binomial trees on dragonfly:lumi (LUMI), no other jobs"),
    win_loss_experiment("bine-table4", {"small": 1, "paper": 260},
                        "win/loss on dragonfly+:leonardo (Leonardo), no other jobs"),
    win_loss_experiment("bine-table5", {"small": 1, "paper": 15},
                        "win/loss on a 2:1 fat tree of 160-node subtrees (MareNostrum 5)"),
    win_loss_experiment("bine-fugaku", {"small": 1, "paper": 100},
                        "torus-optimized Bine against binomial trees on 3D tori (Fugaku)"),
    Experiment("bine-background", "bine", "Table 3 (under load)", background,
               {"small": 6, "paper": 1630},
               "win/loss against binomial trees as other jobs load the global links"),
]  # fmt: skip
