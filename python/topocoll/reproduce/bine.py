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
from topocoll.simulation import simulate, simulate_sizes
from topocoll.traffic import measure

from .core import Context, Experiment, is_loss, is_win, size_label, write_csv

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


# Bine's tie rule (section 5.1: "the remaining 12% showing minimal differences (below 1%)"):
# one algorithm wins a case only when it is more than 1% faster than the other.
def outcome(bine_s: float, other_s: float) -> int:
    """+1 where Bine wins, -1 where the other algorithm does, 0 for a tie: the one rule of
    every claim (core.is_win, more than 1% faster)."""
    if is_win(bine_s, other_s):
        return 1
    if is_loss(bine_s, other_s):
        return -1
    return 0


# The vector sizes of section 5 ("32 B to 512 MiB"; Appendix B's nine rows, a factor 8 apart).
PAPER_SIZES = tuple(32 << (3 * k) for k in range(9))
ALLOCATIONS_WIN_LOSS = 5  # random allocations per node count (the paper's are not public)

# The binomial algorithms each machine's MPI library runs (Table 2: Cray MPICH on LUMI, Open
# MPI 4.1 on Leonardo and MareNostrum 5, Fujitsu MPI, based on Open MPI, on Fugaku), per
# collective: small- and large-vector forms where the library has both, each case timed with
# the faster (the paper forces every algorithm and compares the best, section 5).
# MPICH: recursive doubling and Rabenseifner allreduce, recursive-doubling allgather,
# recursive-halving reduce-scatter, distance-halving binomial bcast and scatter + allgather
# (section 5.2.1: "MPICH relying on distance-halving broadcast"). Open MPI: the same butterflies
# (coll_tuned's recursive_doubling, rabenseifner, recursive_halving) and its distance-doubling
# binomial bcast (section 5.2.1). The registry names: python/topocoll/formats/mpi_tuning.py.
BINOMIAL = {
    "mpich": {"allreduce": ("recdoub-lat", "recdoub-bw"), "allgather": ("recdoub-bw",),
              "reduce-scatter": ("recdoub-bw-distance-halving",),
              "bcast": ("binomial-halving", "binomial-large")},
    "openmpi": {"allreduce": ("recdoub-lat", "recdoub-bw"), "allgather": ("recdoub-bw",),
                "reduce-scatter": ("recdoub-bw-distance-halving",),
                "bcast": ("binomial-doubling",)},
}  # fmt: skip
# Bine's algorithms per collective (sections 4.3-4.5): the small-vector form beside the large
# one; `default` uses the registry's default non-contiguous strategy (send), `best` the best
# of the four strategies of section 4.3.1 per case, as Appendix B counts them.
STRATEGIES = ("bine-bw", "bine-bw-block", "bine-bw-permute", "bine-bw-two")  # send is bine-bw
BINE = {
    "allreduce": {"default": ("bine-lat", "bine-bw"), "best": ("bine-lat", *STRATEGIES)},
    "allgather": {"default": ("bine-bw",), "best": STRATEGIES},
    "reduce-scatter": {"default": ("bine-bw",), "best": STRATEGIES},
    "bcast": {"default": ("bine-halving", "bine-large"), "best": ("bine-halving", "bine-large")},
}
# Section 5.1.1: on LUMI the block-by-block variants of reduce-scatter and allreduce "were
# excluded from the analysis" (MPICH's butterflies send contiguous blocks).
LUMI_EXCLUDED = {"allreduce": ("bine-bw-block",), "reduce-scatter": ("bine-bw-block",)}
# Fugaku (section 5.4): Bine for tori on the six TNIs; the Open MPI binomial algorithms on one
# port (section 5.4.2's "not optimized for toroidal networks"), and beside them the same
# butterflies on all 2D ports (six on a 3D torus), the multi-port baseline the paper does not
# run.
TORUS_BINE = {
    "allreduce": {"default": ("bine-lat-torus", "bine-bw-torus"),
                  "best": ("bine-lat-torus", "bine-bw-torus")},
    "allgather": {"default": ("bine-bw-torus",), "best": ("bine-bw-torus",)},
    "reduce-scatter": {"default": ("bine-bw-torus",), "best": ("bine-bw-torus",)},
    "bcast": {"default": ("bine-torus",), "best": ("bine-torus",)},
}  # fmt: skip
TORUS_MULTIPORT = {"allreduce": ("recdoub-lat", "recdoub-bw"), "allgather": ("recdoub-bw",),
                   "reduce-scatter": ("recdoub-bw",), "bcast": ()}  # fmt: skip


@dataclass(frozen=True)
class System:
    """A machine of the paper's section 5 as our flow model sees it, for the win/loss tables."""

    machine: str  # the paper's name
    figure: str  # the table or section it reproduces
    table: str  # the stem of the CSV and PNG
    topology: str  # a spec; for a torus, "torus" and the shapes below are the node counts
    nodes: int  # hosts the allocations are drawn from (0: a whole torus, coordinate order)
    counts: dict[str, tuple]  # per scale: node counts (torus: shapes)
    library: str  # the MPI library the paper ran there (Table 2): a key of BINOMIAL
    machine_file: str  # python/topocoll/machines/<name>.json: links and host costs
    large_only: tuple = ()  # node counts where only `large_collectives` run
    large_collectives: tuple = ("allreduce", "allgather")


SYSTEMS = {
    # section 5.1: 24 groups of 124 nodes, 16 to 1,024 nodes
    "bine-table3": System("LUMI", "Table 3 (win/loss)", "table3", "dragonfly:lumi",
                          GROUPS * GROUP_NODES,
                          {"paper": (16, 32, 64, 128, 256, 512, 1024), "small": (16, 64)},
                          "mpich", "lumi"),
    # section 5.2: 23 groups of 180 nodes, 16 to 2,048 nodes; above 256 allreduce and
    # allgather only (section 5.2.1)
    "bine-table4": System("Leonardo", "Table 4 (win/loss)", "table4", "dragonfly+:leonardo",
                          23 * 180,
                          {"paper": (16, 32, 64, 128, 256, 512, 1024, 2048), "small": (16, 64)},
                          "openmpi", "leonardo", (512, 1024, 2048)),
    # section 5.3: full-bandwidth subtrees of 160 nodes, 2:1 above them; 4 to 64 nodes
    "bine-table5": System("MareNostrum 5", "Table 5 (win/loss)", "table5", "fattree:2:8:160:80",
                          8 * 160, {"paper": (4, 8, 16, 32, 64), "small": (4, 16, 64)},
                          "openmpi", "marenostrum5"),
    # section 5.4: a job gets a sub-torus (5.4.3: 2x2x2, 4x4x4, 8x8x8, 64x64, 32x256), every
    # collective on each (bine-bw-torus's allgather and reduce-scatter have no translation
    # symmetry: on 32x256 a run takes up to about 3 CPU min, docs/simulator-benchmark.md)
    "bine-fugaku": System("Fugaku", "Sec. 5.4.2", "fugaku", "torus", 0,
                          {"paper": ("2x2x2", "4x4x4", "8x8x8", "64x64", "32x256"),
                           "small": ("2x2x2", "4x4x4")},
                          "openmpi", "fugaku"),
}  # fmt: skip
COLLECTIVES = ("allreduce", "allgather", "reduce-scatter", "bcast")
CHUNKED = ("allgather", "reduce-scatter")


def sizes_for(collective: str, ranks: int) -> tuple[int, ...]:
    """The sizes a case runs at: a chunked collective needs one 32-bit integer per rank, the
    "N/A" cells of Appendix B's Fig. 14 (256 B up to 64 nodes, 2 KiB up to 512)."""
    least = 4 * ranks if collective in CHUNKED else 1
    return tuple(s for s in PAPER_SIZES if s >= least)


def algorithm_sets(
    system: System, collective: str, n: int | str | None = None
) -> dict[str, tuple[str, ...]]:
    """The algorithm sets one case is timed with: Bine's default and best, the binomial
    baseline of the system's MPI library and, on a torus (`n`, its shape), the multi-port
    baseline on all 2D ports."""
    if not system.nodes:
        ports = 2 * len(str(n).split("x"))
        multiport = tuple(f"{a}@{ports}" for a in TORUS_MULTIPORT[collective])
        return {**TORUS_BINE[collective], "binomial": BINOMIAL[system.library][collective],
                "multiport": multiport}  # fmt: skip
    bine = dict(BINE[collective])
    if system.library == "mpich":
        excluded = LUMI_EXCLUDED.get(collective, ())
        bine["best"] = tuple(a for a in bine["best"] if a not in excluded)
    return {**bine, "binomial": BINOMIAL[system.library][collective]}


def win_loss(ctx: Context, system: System) -> dict:
    """Win/loss of Bine against the binomial algorithms of the system's MPI library per
    collective (the first columns of Tables 3-5), flow model, no other jobs. Each node count
    runs on ALLOCATIONS_WIN_LOSS random allocations numbered in node order (the paper requested
    no placement, section 5), each (node count, size) case is one configuration, and the rates
    are given per allocation: their mean, least and greatest. A torus job gets a whole
    sub-torus, ranks in coordinate order: one allocation."""
    counts = system.counts["paper" if ctx.paper else "small"]
    seeds = range(1, (ALLOCATIONS_WIN_LOSS if system.nodes else 1) + 1)
    machine = ctx.machine_for(system.machine_file)

    def collectives_at(n) -> tuple[str, ...]:
        return system.large_collectives if n in system.large_only else COLLECTIVES

    def placement(n, seed) -> tuple[str, dict]:
        if not system.nodes:
            return f"torus:{n}", {}
        return system.topology, {
            "ranks": n,
            "mapping": allocation_mapping(ctx, n, seed, system.nodes),
        }

    where = {(n, s): placement(n, s) for n in counts for s in seeds}
    # One unit of work per (collective, algorithm, allocation), every size on one network; the
    # largest node counts first, so that the --jobs threads end together.
    groups = sorted({(collective, algorithm, n, s) for n in counts for s in seeds
                     for collective in collectives_at(n)
                     for algorithms in algorithm_sets(system, collective, n).values()
                     for algorithm in algorithms},
                    key=lambda g: (-ranks_of(g[2]), g))  # fmt: skip

    def run(group) -> list[float]:
        collective, algorithm, n, seed = group
        topology, options = where[(n, seed)]
        name, ports = with_ports(algorithm)
        sizes = sizes_for(collective, ranks_of(n))
        results = simulate_sizes(topology, collective, name, sizes, force=True, machine=machine,
                                 **options, **ports)  # fmt: skip
        return [r.time_s for r in results]

    time_of = ctx.map_sizes(run, groups, lambda g: sizes_for(g[0], ranks_of(g[2])))
    rows = []
    for collective in COLLECTIVES:
        for n in counts:
            if collective not in collectives_at(n):
                continue
            sets = algorithm_sets(system, collective, n)
            for seed in seeds:
                for size in sizes_for(collective, ranks_of(n)):
                    best = {}
                    for kind, algorithms in sets.items():
                        if algorithms:
                            t, a = min((time_of[(collective, x, n, seed, size)], x)
                                       for x in algorithms)  # fmt: skip
                            best[kind] = (t, a)
                    row = {"collective": collective, "nodes": n, "allocation": seed,
                           "size_bytes": size}  # fmt: skip
                    for kind, (t, a) in best.items():
                        row[f"{kind}_s"], row[f"{kind}_algorithm"] = t, a
                    for kind in ("default", "best"):
                        row[f"{kind}_gain"] = round(best["binomial"][0] / best[kind][0] - 1, 5)
                        row[f"{kind}_outcome"] = outcome(best[kind][0], best["binomial"][0])
                    if "multiport" in best:
                        row["best_gain_multiport"] = round(
                            best["multiport"][0] / best["best"][0] - 1, 5)  # fmt: skip
                        row["best_outcome_multiport"] = outcome(
                            best["best"][0], best["multiport"][0]
                        )
                    rows.append(row)
    write_csv(ctx.out / f"{system.table}.csv", rows)
    results = summarize(rows, seeds)
    plot_win_loss(results, system, ctx.out / f"{system.table}.png")
    return results


def with_ports(algorithm: str) -> tuple[str, dict]:
    """An algorithm set's entry NAME or NAME@PORTS as the registry name and the simulation
    options it implies ({"ports": PORTS}, or none for the registry's default)."""
    name, _, ports = algorithm.partition("@")
    return name, ({"ports": int(ports)} if ports else {})


def ranks_of(n) -> int:
    return math.prod(int(x) for x in str(n).split("x"))


def rates(rows: list[dict], key: str) -> tuple[float, float]:
    """% of rows won and lost by Bine (`key`: an outcome column)."""
    won = sum(r[key] == 1 for r in rows)
    lost = sum(r[key] == -1 for r in rows)
    return 100 * won / len(rows), 100 * lost / len(rows)


def against_every_baseline(row: dict) -> dict:
    """The row with Bine's best against the fastest of every baseline it was timed with (on a
    torus the 1-port binomial trees and the multi-port butterflies: section 5.4.3 compares
    with every algorithm the MPI offers)."""
    fastest = min(row[f"{kind}_s"] for kind in ("binomial", "multiport") if f"{kind}_s" in row)
    return {**row, "best_outcome_baselines": outcome(row["best_s"], fastest),
            "best_gain_baselines": round(fastest / row["best_s"] - 1, 5)}  # fmt: skip


def summarize(rows: list[dict], seeds) -> dict:
    """Per collective and comparison: win and loss % per allocation (mean, least, greatest),
    the geometric-mean and greatest gain where Bine wins (Table 3's columns), and the
    greatest speedup over every case; on a torus also against the multi-port butterflies and
    against the fastest of all baselines (`... vs best baseline`)."""
    results: dict = {}
    for collective in COLLECTIVES:
        mine = [r for r in rows if r["collective"] == collective]
        if not mine:
            continue
        comparisons = {"": "best_outcome", " (default)": "default_outcome"}
        if "best_outcome_multiport" in mine[0]:
            comparisons[" vs multi-port"] = "best_outcome_multiport"
            comparisons[" vs best baseline"] = "best_outcome_baselines"
            mine = [against_every_baseline(r) for r in mine]
            results[f"{collective} max speedup x vs best baseline"] = round(
                1 + max(r["best_gain_baselines"] for r in mine), 3
            )
        for suffix, key in comparisons.items():
            per_seed = [rates([r for r in mine if r["allocation"] == s], key) for s in seeds]
            for i, what in enumerate(("win", "loss")):
                values = [p[i] for p in per_seed]
                results[f"{collective} {what} %{suffix}"] = round(statistics.mean(values), 1)
                results[f"{collective} {what} % min{suffix}"] = round(min(values), 1)
                results[f"{collective} {what} % max{suffix}"] = round(max(values), 1)
        gains = [r["best_gain"] for r in mine if r["best_outcome"] == 1]
        results[f"{collective} avg gain % where Bine wins"] = (
            round(100 * (statistics.geometric_mean([1 + g for g in gains]) - 1), 1)
            if gains else 0.0)  # fmt: skip
        results[f"{collective} max gain %"] = round(100 * max(r["best_gain"] for r in mine), 1)
    results["max speedup x"] = round(1 + max(r["best_gain"] for r in rows), 3)
    if any("best_gain_multiport" in r for r in rows):
        results["max speedup x vs multi-port"] = round(
            1 + max(r["best_gain_multiport"] for r in rows if "best_gain_multiport" in r), 3
        )
    results["allocations"] = len(list(seeds))
    return results


# The CSV columns of a win/loss row that are not text: win_loss's rows read back from a stored
# CSV (an empty cell: a comparison the row does not have).
INTEGER_COLUMNS = ("allocation", "size_bytes")
TEXT_COLUMNS = ("collective", "nodes")


def row_from_csv(row: dict) -> dict:
    typed: dict = {}
    for column, text in row.items():
        if text in ("", None):
            continue
        if column in TEXT_COLUMNS or column.endswith("_algorithm"):
            typed[column] = text
        elif column in INTEGER_COLUMNS or "_outcome" in column:
            typed[column] = int(text)
        else:
            typed[column] = float(text)
    return typed


def results_from_csv(name: str, rows: list[dict]) -> dict:
    """The results of a win/loss experiment (SYSTEMS) from its stored CSV, as summarize gives
    them ({} for the other experiments or an older CSV without allocations): `rejudge`
    judges stored runs by today's claims."""
    if name not in SYSTEMS or not rows or "allocation" not in rows[0]:
        return {}
    typed = [row_from_csv(r) for r in rows]
    return summarize(typed, sorted({r["allocation"] for r in typed}))


def plot_win_loss(results: dict, system: System, path) -> None:
    collectives = [c for c in COLLECTIVES if f"{c} win %" in results]
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6, 3.4))
    xs = range(len(collectives))
    bars = [
        ("win", "", -0.3, "tab:green"),
        ("loss", "", -0.1, "tab:red"),
        ("win", " (default)", 0.1, "palegreen"),
        ("loss", " (default)", 0.3, "salmon"),
    ]
    for what, suffix, dx, color in bars:
        mean = [results[f"{c} {what} %{suffix}"] for c in collectives]
        low = [
            m - results[f"{c} {what} % min{suffix}"] for c, m in zip(collectives, mean, strict=True)
        ]
        high = [
            results[f"{c} {what} % max{suffix}"] - m for c, m in zip(collectives, mean, strict=True)
        ]
        ax.bar([x + dx for x in xs], mean, 0.2, yerr=[low, high], capsize=2, color=color,
               label=f"{what}{suffix or ' (best strategy)'}")  # fmt: skip
    ax.set_xticks(list(xs), collectives)
    ax.set_ylabel("% of (nodes, size) cases")
    ax.set_title(f"Bine against {system.library} binomial trees, {system.machine}-like "
                 f"{system.topology}\nmean over {results['allocations']} allocation(s), "
                 "bars: least-greatest; flow model, no other jobs", fontsize=8)  # fmt: skip
    ax.legend(fontsize=6)
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
    # estimates: CPU seconds (2026-11-28, 2 shared cores); at paper scale measured for
    # table5, table3, table4 and fugaku (2026-11-29, 959818b: 1,074, 2,097 and, with every
    # collective on 64x64 and 32x256, 1,797 CPU s)
    win_loss_experiment("bine-table3", {"small": 21, "paper": 1100},
                        "win/loss against Cray MPICH's binomial trees on dragonfly:lumi (LUMI)"),
    win_loss_experiment("bine-table4", {"small": 20, "paper": 2100},
                        "win/loss against Open MPI's on dragonfly+:leonardo (Leonardo)"),
    win_loss_experiment("bine-table5", {"small": 20, "paper": 32},
                        "win/loss on a 2:1 fat tree of 160-node subtrees (MareNostrum 5)"),
    win_loss_experiment("bine-fugaku", {"small": 2, "paper": 1800},
                        "Bine for tori against 1-port and 6-port butterflies on 3D tori (Fugaku)"),
    Experiment("bine-background", "bine", "Table 3 (under load)", background,
               {"small": 6, "paper": 300},
               "win/loss against binomial trees as other jobs load the global links"),
]  # fmt: skip
