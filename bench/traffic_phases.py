"""Step-by-step inter-group bytes of two algorithms on one allocation, as a Markdown table.

Shows where the inter-group traffic of a collective comes from, e.g. why Bine's large-vector
broadcast (scatter + allgather in reversed distance order, bine-trees-sc25.txt section 5.1.1)
removes most of the inter-group bytes of the binomial one:

    .venv/bin/python bench/traffic_phases.py --collective bcast \
        --algorithms binomial-large,bine-large --ranks 1024 --groups random:24:128:0
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import dataclass, field

import topocoll
from topocoll.groups import parse_groups
from topocoll.units import format_bytes, parse_bytes


@dataclass
class StepTraffic:
    bytes: int = 0
    inter_group_bytes: int = 0
    distances: set[int] = field(default_factory=set)


def per_step(schedule: topocoll.Schedule, group_of: list[int], size: int) -> list[StepTraffic]:
    document = json.loads(schedule.to_json())
    ranks = document["ranks"]
    block_bytes = topocoll.partition_sizes(schedule, size)
    steps: list[StepTraffic] = []
    for rank, rank_steps in enumerate(document["steps"]):
        for index, ops in enumerate(rank_steps):
            while len(steps) <= index:
                steps.append(StepTraffic())
            for op in ops:
                if op["op"] != "send":
                    continue
                sent = sum(sum(block_bytes[lo:hi]) for lo, hi in op["blocks"])
                peer = op["peer"]
                steps[index].bytes += sent
                steps[index].distances.add(min((peer - rank) % ranks, (rank - peer) % ranks))
                if group_of[rank] != group_of[peer]:
                    steps[index].inter_group_bytes += sent
    return steps


def distance_label(distances: set[int]) -> str:
    values = sorted(distances)
    return ",".join(map(str, values)) if len(values) <= 3 else f"{values[0]}..{values[-1]}"


def table(name: str, steps: list[StepTraffic]) -> str:
    total = sum(s.inter_group_bytes for s in steps)
    lines = [
        f"**{name}**: {format_bytes(total)} across groups, "
        f"{format_bytes(sum(s.bytes for s in steps))} in all",
        "",
        "| step | ring distance | bytes sent | inter-group bytes | share of inter-group |",
        "|---:|---|---:|---:|---:|",
    ]
    for index, step in enumerate(steps):
        share = 100.0 * step.inter_group_bytes / total if total else 0.0
        lines.append(
            f"| {index} | {distance_label(step.distances)} | {format_bytes(step.bytes)} | "
            f"{format_bytes(step.inter_group_bytes)} | {share:.1f}% |"
        )
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collective", default="bcast")
    parser.add_argument("--algorithms", default="binomial-large,bine-large")
    parser.add_argument("--ranks", type=int, default=1024)
    parser.add_argument("--groups", default="random:24:128:0")
    parser.add_argument("--size", default="64MiB")
    args = parser.parse_args()
    size = parse_bytes(args.size)
    group_of = parse_groups(args.groups, args.ranks)
    totals = []
    for name in args.algorithms.split(","):
        schedule = topocoll.build(name, args.collective, args.ranks)
        steps = per_step(schedule, group_of, size)
        totals.append(sum(s.inter_group_bytes for s in steps))
        print(table(name, steps), end="\n\n")
    if len(totals) == 2 and totals[0]:
        print(f"reduction of inter-group bytes: {100.0 * (1 - totals[1] / totals[0]):.1f}%")
    return 0


if __name__ == "__main__":
    sys.exit(main())
