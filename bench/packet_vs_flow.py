"""The flow model checked against the packet model (docs/simulator-packet.md): allreduce time of
each algorithm under both models on one topology over a range of sizes, as a Markdown table
(time per model and packet / flow), and the wall time of the packet runs.

    .venv/bin/python bench/packet_vs_flow.py --topology torus:8x8 --sizes 32KiB:64MiB
    .venv/bin/python bench/packet_vs_flow.py --topology fattree:2:8:8:8 --sizes 32KiB:64MiB

Options --mtu, --header, --buffer pass to the packet model; --algorithms lists the algorithms
(default swing-bw, bucket, recdoub-bw, ring, trivance-bw; those that do not fit are skipped)."""

from __future__ import annotations

import argparse
import sys
import time

import topocoll
from topocoll.comparison import size_range
from topocoll.units import format_bytes, format_duration

ALGORITHMS = "swing-bw,bucket,recdoub-bw,ring,trivance-bw"


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--topology", default="torus:8x8")
    p.add_argument("--algorithms", default=ALGORITHMS)
    p.add_argument("--sizes", default="32KiB:64MiB")
    p.add_argument("--mtu")
    p.add_argument("--header")
    p.add_argument("--buffer")
    args = p.parse_args()
    packet_options = {k: getattr(args, k) for k in ("mtu", "header", "buffer") if getattr(args, k)}
    sizes = size_range(args.sizes)
    print(f"allreduce on {args.topology}, swing preset (400 Gb/s, 100 ns + 300 ns per hop)")
    print()
    print("| algorithm | size | flow | packet | packet / flow |")
    print("|---|---:|---:|---:|---:|")
    wall = 0.0
    for algorithm in args.algorithms.split(","):
        for size in sizes:
            try:
                flow = topocoll.simulate(args.topology, "allreduce", algorithm, size, model="flow")
            except ValueError as error:
                print(f"skipped {algorithm}: {error}", file=sys.stderr)
                break
            start = time.perf_counter()
            packet = topocoll.simulate(
                args.topology, "allreduce", algorithm, size, model="packet", **packet_options
            )
            wall += time.perf_counter() - start
            print(
                f"| {algorithm} | {format_bytes(size)} | {format_duration(flow.time_s)} | "
                f"{format_duration(packet.time_s)} | {packet.time_s / flow.time_s:.3f} |",
                flush=True,
            )
    print()
    print(f"packet model wall time: {wall:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
