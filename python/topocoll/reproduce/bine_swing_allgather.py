"""Bine's allgather against Swing's on Leonardo (bine-trees-sc25.txt section 5.2.2, Fig. 10b):
"for allgather on 2,048 nodes, vectors smaller than 64 MiB benefit from the remapping approach
described in Sec. 4.4, achieving 2x performance improvements compared to algorithms like Swing
or sparbit, which send non-contiguous data"; section 4.4: Swing "always sends non-contiguous
data and needs to issue multiple sends at each step". sparbit is not in the registry; Swing's
allgather is `swing-bw`, run as the paper ran it (one message per contiguous range,
`message_per_range`) and as our runtime sends it (one packed message per send)."""

from __future__ import annotations

import statistics

from topocoll.plots import pyplot
from topocoll.simulation import simulate_sizes

from .bine import ALLOCATIONS_WIN_LOSS, BINE, SYSTEMS, allocation_mapping, sizes_for
from .core import Context, Experiment, size_label, write_csv

SWING = "swing-bw"
# The two ways to send Swing's non-contiguous blocks: a message per range (the paper's) and one
# packed message per send (ours, docs/host-costs.md).
SWING_FORMS = {"per-range": True, "packed": False}
LARGEST = 64 << 20  # the paper's "vectors smaller than 64 MiB"
# Every algorithm runs on one port, as an MPI program on a node of one NIC does (swing-bw's
# registry default on a ring is two, its two directions).
PORTS = 1


def swing_allgather(ctx: Context) -> dict:
    """Per allocation and size below 64 MiB: the best of Bine's four non-contiguous strategies
    (as Appendix B counts them) against swing-bw, on the Leonardo allocations of bine-table4
    (2,048 nodes at paper scale, five allocations; 64 nodes and one at small scale)."""
    system = SYSTEMS["bine-table4"]
    nodes = 2048 if ctx.paper else 64
    seeds = range(1, (ALLOCATIONS_WIN_LOSS if ctx.paper else 1) + 1)
    sizes = tuple(s for s in sizes_for("allgather", nodes) if s < LARGEST)
    machine = ctx.machine_for(system.machine_file)
    strategies = BINE["allgather"]["best"]
    mappings = {seed: allocation_mapping(ctx, nodes, seed, system.nodes) for seed in seeds}

    def run(group: tuple) -> list[float]:
        algorithm, form, seed = group
        results = simulate_sizes(system.topology, "allgather", algorithm, sizes, force=True,
                                 machine=machine, ranks=nodes, mapping=mappings[seed],
                                 message_per_range=SWING_FORMS.get(form, False),
                                 ports=PORTS)  # fmt: skip
        return [r.time_s for r in results]

    runs = [(a, "", seed) for seed in seeds for a in strategies]
    runs += [(SWING, form, seed) for seed in seeds for form in SWING_FORMS]
    time_of = ctx.map_sizes(run, runs, lambda group: sizes)
    rows = []
    for seed in seeds:
        for size in sizes:
            bine_s, bine = min((time_of[(a, "", seed, size)], a) for a in strategies)
            row = {"nodes": nodes, "allocation": seed, "size_bytes": size, "bine_s": bine_s,
                   "bine_algorithm": bine}  # fmt: skip
            for form in SWING_FORMS:
                swing_s = time_of[(SWING, form, seed, size)]
                row[f"swing_{form}_s"] = swing_s
                row[f"speedup_{form}"] = round(swing_s / bine_s, 5)
            rows.append(row)
    write_csv(ctx.out / "swing-allgather.csv", rows)
    plot(rows, sizes, nodes, ctx.out / "swing-allgather.png")
    results: dict = {"allocations": len(seeds)}
    for form in SWING_FORMS:
        speedups = [r[f"speedup_{form}"] for r in rows]
        results[f"allgather max speedup x over swing-bw {form}"] = max(speedups)
        results[f"allgather median speedup x over swing-bw {form}"] = statistics.median(speedups)
    return results


def plot(rows: list[dict], sizes: tuple[int, ...], nodes: int, path) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3))
    for form, style in zip(SWING_FORMS, ("o-", "s:"), strict=True):
        for seed in sorted({r["allocation"] for r in rows}):
            ax.plot(range(len(sizes)), [r[f"speedup_{form}"] for r in rows
                                        if r["allocation"] == seed], style, ms=3,
                    label=f"{form}, allocation {seed}")  # fmt: skip
    ax.axhline(2.0, color="tab:red", lw=0.8, ls="--", label="paper: 2x")
    ax.axhline(1.0, color="k", lw=0.6)
    ax.set_xticks(range(len(sizes)), [size_label(s) for s in sizes])
    ax.set_ylabel("swing-bw's time / Bine's best")
    ax.set_title(f"Allgather on {nodes} Leonardo-like nodes (dragonfly+:leonardo), flow model",
                 fontsize=8)  # fmt: skip
    ax.legend(fontsize=5, ncol=2)
    fig.tight_layout()
    fig.savefig(path, dpi=80)
    plt.close(fig)


EXPERIMENTS = [
    Experiment("bine-swing-allgather", "bine", "Fig. 10b (allgather)", swing_allgather,
               {"small": 2, "paper": 260},
               "Bine's allgather against Swing's on 2,048 Leonardo nodes, below 64 MiB"),
]  # fmt: skip
