"""Distribution of Bine's inter-group traffic reduction over synthetic job allocations.

Reproduces the shape of bine-trees-sc25.txt Fig. 5: for each node count, many jobs whose nodes
are drawn at random from a Dragonfly-like system (groups of nodes; ranks follow node order), the
reduction of inter-group bytes of a Bine algorithm against its binomial counterpart, as boxplots.

    .venv/bin/python bench/figures/traffic_reduction.py --output docs/img/traffic-reduction.png
"""

from __future__ import annotations

import argparse
import statistics
import sys

import topocoll
from topocoll.groups import random_allocation

DEFAULT_PAIRS = (
    "bcast:binomial-halving:bine-halving,allreduce:recdoub-lat:bine-lat,"
    "allreduce:recdoub-bw:bine-bw,bcast:binomial-large:bine-large"
)


def reductions(
    collective: str,
    base: str,
    bine: str,
    nodes: int,
    jobs: int,
    groups: int,
    group_size: int,
    size: int,
) -> list[float]:
    base_schedule = topocoll.build(base, collective, nodes)
    bine_schedule = topocoll.build(bine, collective, nodes)
    out = []
    for seed in range(jobs):
        group_of = random_allocation(nodes, groups, group_size, seed)
        a = topocoll.measure_traffic(base_schedule, group_of, size)["inter_group_bytes"]
        b = topocoll.measure_traffic(bine_schedule, group_of, size)["inter_group_bytes"]
        if a:
            out.append(100.0 * (1.0 - b / a))
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--pairs", default=DEFAULT_PAIRS, help="collective:base:bine,...")
    parser.add_argument("--nodes", default="16,32,64,128,256,512,1024,2048")
    parser.add_argument("--jobs", type=int, default=40, help="allocations per node count")
    parser.add_argument("--groups", type=int, default=24, help="groups in the system")
    parser.add_argument("--group-size", type=int, default=128, help="nodes per group")
    parser.add_argument("--size", type=int, default=1 << 24, help="vector bytes")
    parser.add_argument("--output", help="PNG file for the plot")
    args = parser.parse_args()
    known = {a["name"] for a in topocoll.algorithms()}
    node_counts = [int(n) for n in args.nodes.split(",")]
    panels = []
    for pair in args.pairs.split(","):
        collective, base, bine = pair.split(":")
        if base not in known or bine not in known:
            print(f"skipping {pair}: not registered", file=sys.stderr)
            continue
        data = []
        for n in node_counts:
            values = reductions(
                collective, base, bine, n, args.jobs, args.groups, args.group_size, args.size
            )
            data.append(values)
            print(
                f"{collective} {bine} vs {base} N={n}: median {statistics.median(values):.1f}% "
                f"min {min(values):.1f}% max {max(values):.1f}% ({len(values)} jobs)",
                flush=True,
            )
        panels.append((f"{collective}: {bine} vs {base}", data))
    if args.output and panels:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        columns = min(2, len(panels))
        rows = (len(panels) + columns - 1) // columns
        fig, axes = plt.subplots(rows, columns, figsize=(6 * columns, 4 * rows), squeeze=False)
        for ax, (title, data) in zip(axes.flat, panels, strict=False):
            ax.boxplot(data, showfliers=False)
            ax.set_xticks(range(1, len(node_counts) + 1), [str(n) for n in node_counts])
            # Section 2.4.1 bounds Bine against the same tree with binomial peers; the
            # large-vector pair also reverses the phase order, which the bound does not cover.
            if "large" not in title:
                ax.axhline(100 / 3, color="red", linestyle="--", linewidth=1, label="33% bound")
                ax.legend(loc="lower right", fontsize=8)
            ax.axhline(0, color="black", linewidth=0.5)
            ax.set_title(title, fontsize=10)
            ax.set_xlabel("nodes")
            ax.set_ylabel("inter-group traffic reduction (%)")
        for ax in list(axes.flat)[len(panels) :]:
            ax.set_visible(False)
        fig.suptitle(
            f"Random allocations on {args.groups} groups x {args.group_size} nodes, "
            f"{args.jobs} jobs per size"
        )
        fig.tight_layout()
        fig.savefig(args.output, dpi=110)
        print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
