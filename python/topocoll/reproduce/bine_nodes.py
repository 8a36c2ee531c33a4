"""Bine trees (bine-trees-sc25.txt) with several ranks per node: section 6.1 (one and four
processes per node on 64 LUMI nodes, every collective) and section 6.2 (the hierarchical Bine
allreduce on four fully connected GPUs per node against flat Bine and against NCCL-like ring
and tree schedules, on MareNostrum 5 and Leonardo node shapes). Nodes are the simulator's node
model (docs/nodes.md); the compositions are `hier:INNER` and `leader:INNER`
(docs/hierarchical.md)."""

from __future__ import annotations

import json
import statistics

from topocoll.groups import random_nodes
from topocoll.machine import machine_path
from topocoll.plots import pyplot
from topocoll.simulation import simulate, simulate_sizes

from .bine import BINE, BINOMIAL, LUMI_EXCLUDED, PAPER_SIZES, outcome
from .core import Context, Experiment, size_label, write_csv

PAPER = "bine-trees-sc25.txt"
LUMI_NICS = (
    f"{PAPER} section 5.1: each LUMI-G node has 'four 200Gb/s Cassini-1 NICs'; section 6.1: "
    "four processes per node because 'LUMI has four NICs per node'"
)
NODE_SHAPES = {
    # section 5.1: 24 groups of 124 nodes; with four NICs per node a group has 496 NIC ports,
    # 16 on each of its 31 switches (dragonfly:lumi has 4, one per node, and 16 global ports)
    "lumi": {
        "topology": ("dragonfly:24:31:16:16", f"{PAPER} section 5.1 ('24-group', '124 nodes per "
                     "group', four NICs per node): dragonfly:lumi's groups, switches and global "
                     "ports with 16 NIC ports per switch (4 nodes of 4 NICs)"),
        "nodes": {"nics": (4, LUMI_NICS), "nic_bandwidth": ("200Gbps", LUMI_NICS)},
        "system_nodes": 24 * 124,
    },
    # section 5.3: 160-node full-bandwidth subtrees, 2:1 above; four 200 Gb/s NICs and four
    # fully connected Hopper GPUs per node (section 6.2)
    "marenostrum5": {
        "topology": ("fattree:2:8:640:320", f"{PAPER} sections 5.3 and 6.2: subtrees of 160 "
                     "nodes of four NICs (640 NIC ports per subtree, 2:1: 320 up-links), 8 "
                     "subtrees as marenostrum5.json"),
        "nodes": {
            "nics": (4, f"{PAPER} section 5.3: 'four 200 Gb/s NICs' per node"),
            "nic_bandwidth": ("200Gbps", f"{PAPER} section 5.3: 'InfiniBand NDR200'"),
            "fabric": ("gpu-mesh", f"{PAPER} section 6.2: 'four GPUs, fully connected to one "
                       "another'"),
            "fabric_bandwidth": ("150GBps", "NVIDIA H100 Tensor Core GPU datasheet: NVLink "
                                 "900 GB/s per GPU (both directions); 4 fully connected GPUs "
                                 "split it over 3 peers: 900 / 2 / 3 = 150 GB/s each way"),
        },
        "system_nodes": 8 * 160,
    },
    # section 5.2: 23 groups of 180 nodes (18 leaves of 10), two dual-port 200 Gb/s NICs (four
    # ports, docs/nodes.md) and four fully connected A100 GPUs per node (section 6.2)
    "leonardo": {
        "topology": ("dragonfly+:23:18:40:18:22", f"{PAPER} sections 5.2 and 6.2: "
                     "dragonfly+:leonardo's 23 groups of 18 leaves and 18 spines with 10 nodes "
                     "of four NIC ports per leaf"),
        "nodes": {
            "nics": (4, f"{PAPER} section 5.2: 'two 200 Gb/s dual-port NVIDIA Connect-X6 NICs' "
                     "(four ports)"),
            "nic_bandwidth": ("200Gbps", f"{PAPER} section 5.2"),
            "fabric": ("gpu-mesh", f"{PAPER} section 6.2: 'Each MareNostrum 5 (and Leonardo) "
                       "node has four GPUs, fully connected to one another'"),
            "fabric_bandwidth": ("100GBps", "NVIDIA A100 Tensor Core GPU datasheet: NVLink "
                                 "600 GB/s per GPU (both directions); 4 fully connected GPUs "
                                 "split it over 3 peers: 600 / 2 / 3 = 100 GB/s each way"),
        },
        "system_nodes": 23 * 180,
    },
}  # fmt: skip


def node_machine(ctx: Context, name: str, ranks_per_node: int) -> str:
    """A machine file in the experiment's folder: the shipped `name` (its links and host
    costs, docs/machines.md) on the node shape above, K ranks per node; --machine replaces it
    as is."""
    if ctx.machine:
        return ctx.machine
    shape = NODE_SHAPES[name]
    doc = json.loads(machine_path(name).read_text())
    doc["name"] = f"{name}-nodes"
    doc["description"] += f"; {ranks_per_node} rank(s) per node on the node shape of {PAPER}"
    value, source = shape["topology"]
    doc["topology"] = {"value": value, "source": source}
    nodes = {key: {"value": v, "source": s} for key, (v, s) in shape["nodes"].items()}
    nodes["ranks_per_node"] = {"value": ranks_per_node, "source": f"{PAPER} sections 6.1-6.2"}
    doc["nodes"] = nodes
    path = ctx.out / f"{name}-nodes-{ranks_per_node}.json"
    path.write_text(json.dumps(doc, indent=1))
    return str(path)


def node_allocation(ctx: Context, name: str, nodes: int, ranks_per_node: int, seed: int) -> str:
    """`file:PATH` placing K ranks on each of `nodes` random nodes of the machine, in node
    order (the allocations of bine.py's win/loss tables, on nodes)."""
    chosen = random_nodes(nodes, NODE_SHAPES[name]["system_nodes"], seed)
    path = ctx.out / f"nodes-{name}-{nodes}x{ranks_per_node}-{seed}.csv"
    lines = (f"{rank},{chosen[rank // ranks_per_node]}\n" for rank in range(nodes * ranks_per_node))
    path.write_text("".join(lines))
    return f"file:{path}"


# --- section 6.1: one and four processes per node on 64 LUMI nodes --------------------------

# Every collective of Table 3, Bine against Cray MPICH's binomial algorithm (section 5.1.1;
# alltoall against Bruck's, "the closest to binomial algorithms").
PPN_PAIRS = {
    **{c: (tuple(a for a in BINE[c]["best"] if a not in LUMI_EXCLUDED.get(c, ())),
           BINOMIAL["mpich"][c]) for c in BINE},
    "alltoall": (("bine",), ("bruck",)),
    "reduce": (("bine-halving", "bine-large"), ("binomial-halving", "binomial-large")),
    "gather": (("bine",), ("binomial",)),
    "scatter": (("bine",), ("binomial",)),
}  # fmt: skip
PPN_CHUNKED = ("allgather", "reduce-scatter", "alltoall", "gather", "scatter")
PPN_NODES = 64


def ppn(ctx: Context) -> dict:
    """Section 6.1: every collective with one and with four ranks per node on 64 random LUMI
    nodes (numbered in node order), each rank on its own 200 Gb/s NIC; Bine's gain over the
    binomial algorithm per (collective, size), mean over the allocations."""
    seeds = range(1, (5 if ctx.paper else 1) + 1)
    sizes = PAPER_SIZES if ctx.paper else (16 << 10, 1 << 20, 64 << 20)
    per_node = (1, 4)
    machine = {k: node_machine(ctx, "lumi", k) for k in per_node}
    mapping = {(k, s): node_allocation(ctx, "lumi", PPN_NODES, k, s) for k in per_node
               for s in seeds}  # fmt: skip

    def valid(collective, k, size) -> bool:
        return collective not in PPN_CHUNKED or size >= 4 * PPN_NODES * k

    # One unit of work per (collective, algorithm, ranks per node, allocation), its sizes on
    # one network.
    groups = [(c, a, k, s) for k in reversed(per_node) for c, (bine, other) in PPN_PAIRS.items()
              for a in (*bine, *other) for s in seeds]  # fmt: skip

    def sizes_of(collective, k) -> list[int]:
        return [size for size in sorted(sizes, reverse=True) if valid(collective, k, size)]

    def run(group) -> list[float]:
        collective, algorithm, k, seed = group
        results = simulate_sizes(None, collective, algorithm, sizes_of(collective, k),
                                 machine=machine[k], ranks=PPN_NODES * k, ranks_per_node=k,
                                 mapping=mapping[(k, seed)], force=True)  # fmt: skip
        return [r.time_s for r in results]

    time_of = ctx.map_sizes(run, groups, lambda g: sizes_of(g[0], g[2]))
    rows = []
    for c, (bine, other) in PPN_PAIRS.items():
        for size in sizes:
            for k in per_node:
                if not valid(c, k, size):
                    continue
                for s in seeds:
                    tb, ab = min((time_of[(c, a, k, s, size)], a) for a in bine)
                    to, ao = min((time_of[(c, a, k, s, size)], a) for a in other)
                    rows.append({"collective": c, "size_bytes": size, "ranks_per_node": k,
                                 "allocation": s, "bine_s": tb, "bine_algorithm": ab,
                                 "binomial_s": to, "binomial_algorithm": ao,
                                 "gain": round(to / tb - 1, 5),
                                 "outcome": outcome(tb, to)})  # fmt: skip
    write_csv(ctx.out / "ppn.csv", rows)

    def gain(c, size, k) -> float | None:
        g = [r["gain"] for r in rows if (r["collective"], r["size_bytes"], r["ranks_per_node"])
             == (c, size, k)]  # fmt: skip
        return 100 * statistics.mean(g) if g else None

    results: dict = {"allocations": len(seeds)}
    same = changed = 0
    for c in PPN_PAIRS:
        for size in sizes:
            g = {k: gain(c, size, k) for k in per_node}
            if None in g.values():
                continue
            for k in per_node:
                results[f"{c} {size_label(size)} gain % at {k} ppn"] = round(g[k], 1)
            one = [r["outcome"] for r in rows if (r["collective"], r["size_bytes"],
                   r["ranks_per_node"]) == (c, size, 1)]  # fmt: skip
            four = [r["outcome"] for r in rows if (r["collective"], r["size_bytes"],
                    r["ranks_per_node"]) == (c, size, 4)]  # fmt: skip
            same += sum(a == b for a, b in zip(one, four, strict=True))
            changed += sum(a != b for a, b in zip(one, four, strict=True))
    results["same outcome at 1 and 4 ppn %"] = round(100 * same / (same + changed), 1)
    rs1, rs4 = (results[f"reduce-scatter 1MiB gain % at {k} ppn"] for k in per_node)
    results["reduce-scatter 1MiB gain change points"] = round(rs4 - rs1, 1)
    for k in per_node:
        mine = [r for r in rows if r["ranks_per_node"] == k]
        results[f"win % at {k} ppn"] = round(100 * sum(r["outcome"] == 1 for r in mine)
                                             / len(mine), 1)  # fmt: skip
        results[f"loss % at {k} ppn"] = round(100 * sum(r["outcome"] == -1 for r in mine)
                                              / len(mine), 1)  # fmt: skip
    results.update(ppn_under_load(ctx))
    plot_ppn(rows, sizes, ctx.out / "ppn.png")
    return results


LOADS = (0.0, 0.5, 0.8, 0.9, 0.95)


def ppn_under_load(ctx: Context) -> dict:
    """Isolates what one rank per node lacks on an idle machine: the 1 MiB reduce-scatter on
    64 random nodes of `dragonfly:lumi` (one NIC per node, no node model) while other jobs
    take the share F of every global link (`--global-load`, which the node model does not
    take); the paper measured a shared machine."""
    machine = ctx.machine_for("lumi")
    mapping = allocation_file(ctx, PPN_NODES, 1)
    bine, other = PPN_PAIRS["reduce-scatter"]
    cases = [(a, f) for f in LOADS for a in (*bine, *other)]

    def run(case) -> float:
        algorithm, load = case
        return simulate("dragonfly:lumi", "reduce-scatter", algorithm, 1 << 20, machine=machine,
                        ranks=PPN_NODES, mapping=mapping, global_load=load or None,
                        force=True).time_s  # fmt: skip

    time_of = dict(zip(cases, ctx.map(run, cases), strict=True))
    rows, results = [], {}
    for f in LOADS:
        tb = min(time_of[(a, f)] for a in bine)
        to = min(time_of[(a, f)] for a in other)
        rows.append({"global_load": f, "bine_s": tb, "binomial_s": to,
                     "gain": round(to / tb - 1, 5)})  # fmt: skip
        results[f"reduce-scatter 1MiB gain % at 1 ppn, global load {f}"] = round(
            100 * (to / tb - 1), 1)  # fmt: skip
    write_csv(ctx.out / "ppn-load.csv", rows)
    return results


def allocation_file(ctx: Context, ranks: int, seed: int) -> str:
    """`ranks` random nodes of dragonfly:lumi in node order, one rank each (a mapping file)."""
    chosen = random_nodes(ranks, NODE_SHAPES["lumi"]["system_nodes"], seed)
    path = ctx.out / f"allocation-lumi-{ranks}-{seed}.csv"
    path.write_text("".join(f"{rank},{node}\n" for rank, node in enumerate(chosen)))
    return str(path)


def plot_ppn(rows: list[dict], sizes, path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(8, 3.4), sharey=True)
    for ax, k in zip(axes, (1, 4), strict=True):
        for c in PPN_PAIRS:
            pts = [(s, statistics.mean([r["gain"] for r in rows if r["collective"] == c
                    and r["size_bytes"] == s and r["ranks_per_node"] == k]) * 100)
                   for s in sizes if any(r["collective"] == c and r["size_bytes"] == s
                                         and r["ranks_per_node"] == k for r in rows)]  # fmt: skip
            if pts:
                ax.plot(*zip(*pts, strict=True), "o-", ms=3, label=c)
        ax.set_xscale("log", base=2)
        ax.axhline(0, color="k", lw=0.6)
        ax.set_title(f"{k} process(es) per node, 64 LUMI-like nodes", fontsize=8)
        ax.set_xlabel("vector size (bytes)")
    axes[0].set_ylabel("Bine gain over binomial (%)")
    axes[1].legend(fontsize=6)
    fig.suptitle("Bine section 6.1: processes per node (flow model, node model)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


# --- section 6.2: hierarchical Bine on GPU nodes --------------------------------------------

# The schedules of one allreduce (`algorithm`, or the sum of a reduce and a bcast).
GPU_ALGORITHMS = {
    "hier-bine": ("allreduce", "hier:bine-bw"),  # section 6.2's design
    "flat-bine": ("allreduce", "bine-bw"),  # Bine over all GPUs, no node awareness
    # NCCL-like: a ring through the GPUs in node order (one channel, one NIC per node), rings
    # among equal local indices after an intra-node reduce-scatter (one per NIC: NCCL's
    # channels on rail-aligned NICs), and a tree: reduce to a node leader over NVLink, a
    # binomial tree among leaders, and back (NCCL pipelines its tree; this one is not)
    "nccl-ring": ("allreduce", "ring"),
    "nccl-ring-per-nic": ("allreduce", "hier:ring"),
    "nccl-tree": ("reduce+bcast", "leader:binomial-halving"),
    # Open MPI's allreduce algorithms on all GPUs (section 6.2 compares with MPI too)
    "mpi-rabenseifner": ("allreduce", "recdoub-bw"),
    "mpi-ring": ("allreduce", "ring"),
}
NCCL = ("nccl-ring", "nccl-ring-per-nic", "nccl-tree")
MPI = ("mpi-rabenseifner", "mpi-ring")
GPUS_PER_NODE = 4


def gpu(ctx: Context) -> dict:
    """Section 6.2: allreduce of 4 MiB and more on 16 to 512 GPUs, 4 per node, on the
    MareNostrum 5 and Leonardo node shapes."""
    seeds = range(1, (5 if ctx.paper else 1) + 1)
    # small: 16 and 64 GPUs (256 as well took 40 CPU s, two thirds of it on MareNostrum 5's
    # 256 GPUs, 2026-11-30)
    gpus = (16, 32, 64, 128, 256, 512) if ctx.paper else (16, 64)
    sizes = tuple(4 << (20 + 2 * i) for i in range(4)) if ctx.paper else (4 << 20, 64 << 20)
    systems = ("marenostrum5", "leonardo")
    machine = {m: node_machine(ctx, m, GPUS_PER_NODE) for m in systems}
    mapping = {(m, g, s): node_allocation(ctx, m, g // GPUS_PER_NODE, GPUS_PER_NODE, s)
               for m in systems for g in gpus for s in seeds}  # fmt: skip
    algorithms = sorted({spec for spec in GPU_ALGORITHMS.values()})
    # One unit of work per (system, GPUs, allocation, algorithm), its sizes on one network per
    # part of a composed collective.
    groups = [(m, g, s, spec) for g in reversed(gpus) for m in systems for s in seeds
              for spec in algorithms]  # fmt: skip

    def run(group) -> list[float]:
        m, g, seed, (collective, algorithm) = group
        options = dict(machine=machine[m], ranks=g, ranks_per_node=GPUS_PER_NODE,
                       mapping=mapping[(m, g, seed)], force=True)  # fmt: skip
        per_part = [simulate_sizes(None, c, algorithm, sizes, **options)
                    for c in collective.split("+")]  # fmt: skip
        return [sum(r.time_s for r in results) for results in zip(*per_part, strict=True)]

    time_of = ctx.map_sizes(run, groups, lambda _: sizes)
    rows = []
    for m in systems:
        for g in gpus:
            for size in sizes:
                for s in seeds:
                    t = {name: time_of[(m, g, s, spec, size)]
                         for name, spec in GPU_ALGORITHMS.items()}  # fmt: skip
                    nccl = min(NCCL, key=lambda n: t[n])
                    mpi = min(MPI, key=lambda n: t[n])
                    rows.append({"machine": m, "gpus": g, "size_bytes": size, "allocation": s,
                                 **{f"{n}_s": v for n, v in t.items()},
                                 "nccl_best": nccl, "mpi_best": mpi,
                                 "gain_vs_nccl": round(t[nccl] / t["hier-bine"] - 1, 5),
                                 "gain_vs_flat_bine": round(t["flat-bine"] / t["hier-bine"] - 1, 5),
                                 "gain_vs_mpi": round(t[mpi] / t["hier-bine"] - 1, 5),
                                 "outcome_vs_nccl": outcome(t["hier-bine"], t[nccl])})  # fmt: skip
    write_csv(ctx.out / "gpu.csv", rows)
    results: dict = {"allocations": len(seeds)}
    # MareNostrum 5, 16 to 256 GPUs, sizes above 4 MiB (the paper's "larger than 4 MiB")
    mn5 = [r for r in rows if r["machine"] == "marenostrum5" and r["gpus"] <= 256
           and r["size_bytes"] > 4 << 20]  # fmt: skip
    results["MN5 hier:bine beats NCCL-like best %"] = round(
        100 * sum(r["outcome_vs_nccl"] == 1 for r in mn5) / len(mn5), 1)  # fmt: skip
    results["MN5 avg gain over NCCL-like best %"] = round(
        100 * (statistics.geometric_mean([1 + r["gain_vs_nccl"] for r in mn5]) - 1), 1
    )
    results["MN5 max gain over NCCL-like best %"] = round(
        100 * max(r["gain_vs_nccl"] for r in mn5), 1)  # fmt: skip
    results["MN5 avg gain over flat Bine %"] = round(
        100 * (statistics.geometric_mean([1 + r["gain_vs_flat_bine"] for r in mn5]) - 1), 1
    )
    big = max(gpus)
    leo = [r for r in rows if r["machine"] == "leonardo" and r["gpus"] == big]
    results["Leonardo largest GPUs"] = big
    results["Leonardo hier:bine slower than NCCL-like best, at most %"] = round(
        100 * max(-r["gain_vs_nccl"] / (1 + r["gain_vs_nccl"]) for r in leo), 1
    )
    results["Leonardo avg gain over MPI %"] = round(
        100 * (statistics.geometric_mean([1 + r["gain_vs_mpi"] for r in leo]) - 1), 1
    )
    for m in systems:
        mine = [r for r in rows if r["machine"] == m]
        for name in NCCL:
            results[f"{m} NCCL-like best is {name} %"] = round(
                100 * sum(r["nccl_best"] == name for r in mine) / len(mine), 1)  # fmt: skip
    plot_gpu(rows, gpus, sizes, systems, ctx.out / "gpu.png")
    return results


def plot_gpu(rows, gpus, sizes, systems, path) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, len(systems), figsize=(8, 3.4), sharey=True)
    for ax, m in zip(axes, systems, strict=True):
        for size in sizes:
            for key, style in (("gain_vs_nccl", "o-"), ("gain_vs_flat_bine", "s--")):
                ys = [100 * statistics.mean([r[key] for r in rows if r["machine"] == m
                      and r["gpus"] == g and r["size_bytes"] == size]) for g in gpus]  # fmt: skip
                label = "NCCL-like best" if key == "gain_vs_nccl" else "flat bine-bw"
                ax.plot(gpus, ys, style, ms=3, label=f"vs {label}, {size_label(size)}")
        ax.set_xscale("log", base=2)
        ax.axhline(0, color="k", lw=0.6)
        ax.set_title(f"{m} node shape, 4 GPUs per node", fontsize=8)
        ax.set_xlabel("GPUs")
    axes[0].set_ylabel("hier:bine-bw gain (%)")
    axes[-1].legend(fontsize=5)
    fig.suptitle("Bine section 6.2: hierarchical Bine allreduce (flow model)", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


EXPERIMENTS = [
    Experiment("bine-ppn", "bine", "Sec. 6.1", ppn, {"small": 20, "paper": 300},
               "one and four processes per node on 64 LUMI-like nodes, every collective"),
    Experiment("bine-gpu", "bine", "Sec. 6.2", gpu, {"small": 8, "paper": 2300},
               "hier:bine-bw against flat Bine and NCCL-like rings and tree, 4 GPUs per node"),
]  # fmt: skip
