"""How well the simulator's pre-run estimate (limits.simulation_cost over
`_core.estimate_simulation`) predicts a run's CPU time and peak memory.

Each workload runs in a child process (its own peak RSS) as `topocoll sim` runs it: the flow
model with its symmetry reduction where the run has one (the estimate finds it the same way).
Prints a Markdown table of estimated against measured CPU seconds and memory; `--json FILE`
keeps the raw figures. The rates in limits.py come from these figures (docs/simulator.md,
"Limits before long runs").

    .venv/bin/python bench/sim_estimate_fit.py [--quick | --drift] [--json FILE]

`--drift` runs only the workloads whose ranks drift apart (no translation symmetry: a
Dragonfly's random allocations, Fugaku's chunked collectives on 32x256), which fit
limits.DRIFT_SECONDS.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

# (topology, collective, algorithm, size, model[, options of make_setup])
WORKLOADS = [
    ("torus:32x32", "allreduce", "bucket", 1 << 26, "flow"),
    ("torus:64x64", "allreduce", "bucket", 1 << 26, "flow"),
    ("torus:64x64", "allreduce", "swing-bw", 1 << 26, "flow"),
    ("torus:64x64", "allreduce", "bine-bw-block", 1 << 20, "flow"),
    ("torus:32x32", "allreduce", "bine-bw-two", 1 << 20, "flow"),
    ("torus:64x64", "allreduce", "bine-bw-two", 1 << 20, "flow"),
    ("torus:64x64", "allreduce", "trivance-bw", 1 << 20, "flow"),
    ("torus:64x64", "allreduce", "bruck-bw", 1 << 20, "flow"),
    ("torus:128x128", "allreduce", "swing-bw", 1 << 26, "flow"),
    ("torus:64x64", "allreduce", "ring", 1 << 26, "flow"),
    ("torus:32x32", "allreduce", "trivance-bw", 1 << 26, "flow"),
    ("torus:16x16", "alltoall", "bruck", 1 << 26, "flow"),
    ("ring:2048", "allreduce", "ring", 1 << 26, "flow"),
    ("ring:1024", "allreduce", "recdoub-bw", 1 << 26, "flow"),
    ("ring:2048", "allreduce", "recdoub-bw", 1 << 26, "flow"),
    ("ring:4096", "allreduce", "recdoub-bw", 1 << 26, "flow"),
    ("fattree:2:16:16:16", "alltoall", "pairwise", 1 << 26, "flow"),
    ("fattree:2:32:32:8", "allreduce", "ring", 1 << 26, "flow"),
    ("hammingmesh:64x64:1x1", "allreduce", "swing-bw", 1 << 20, "flow"),
    ("dragonfly:8:4:4:4", "allreduce", "swing-bw", 1 << 26, "flow"),
    ("ring:2048", "allreduce", "ring", 1 << 26, "analytic"),
    ("torus:64x64", "allreduce", "bucket", 1 << 26, "analytic"),
    ("ring:1024", "allreduce", "recdoub-bw", 1 << 26, "analytic"),
    ("fattree:2:16:16:16", "alltoall", "pairwise", 1 << 26, "analytic"),
    ("torus:16x16", "allreduce", "bucket", 1 << 26, "packet"),
    ("torus:16x16", "allreduce", "swing-bw", 1 << 26, "packet"),
    ("torus:16x16", "alltoall", "bruck", 1 << 24, "packet"),
    ("ring:256", "allreduce", "ring", 1 << 26, "packet"),
    ("ring:256", "allreduce", "recdoub-bw", 1 << 24, "packet"),
    ("ring:512", "allreduce", "recdoub-bw", 1 << 24, "packet"),
    ("fattree:2:16:16:16", "alltoall", "pairwise", 1 << 24, "packet"),
    ("torus:16x16", "allreduce", "bucket", 1 << 24, "simgrid"),
    ("torus:32x32", "allreduce", "bucket", 1 << 24, "simgrid"),
    ("ring:512", "allreduce", "recdoub-bw", 1 << 24, "simgrid"),
]
QUICK = [w for w in WORKLOADS if w[0] in ("torus:32x32", "ring:1024", "torus:16x16", "ring:256")]
LUMI = {"machine": "lumi", "mapping": "random:1"}
DRIFT = [
    ("dragonfly:lumi", "allreduce", "bine-bw", 1 << 26, "flow", {**LUMI, "ranks": 512}),
    ("dragonfly:lumi", "allreduce", "bine-bw", 1 << 26, "flow", {**LUMI, "ranks": 1024}),
    ("dragonfly:lumi", "allreduce", "recdoub-bw", 1 << 26, "flow", {**LUMI, "ranks": 1024}),
    ("dragonfly:lumi", "allreduce", "bine-bw", 1 << 26, "flow", {**LUMI, "ranks": 2048}),
    ("dragonfly:lumi", "allreduce", "bine-bw-two", 1 << 20, "flow", {**LUMI, "ranks": 1024}),
    ("dragonfly+:leonardo", "allreduce", "bine-bw", 1 << 29, "flow",
     {"machine": "leonardo", "mapping": "random:1", "ranks": 2048}),
    ("torus:32x256", "allgather", "bine-bw-torus", 1 << 20, "flow", {"machine": "fugaku"}),
    ("torus:32x256", "allgather", "bine-bw-torus", 1 << 29, "flow", {"machine": "fugaku"}),
    ("torus:32x256", "reduce-scatter", "bine-bw-torus", 1 << 29, "flow", {"machine": "fugaku"}),
]  # fmt: skip

CHILD = """
import json, resource, sys, time
from topocoll.simulation import Network, make_setup
spec, collective, algorithm, size, model, options = sys.argv[1:7]
size = int(size)
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # the interpreter and modules
network = Network(make_setup(spec, collective, model=model,
                             routing="dor" if model == "simgrid" else "minimal",
                             **json.loads(options)))
start = time.process_time()
estimate = network.estimate(algorithm, size)
estimate_s = time.process_time() - start
cost = network.cost(algorithm, size, estimate)
start = time.process_time()
raw = network.run(algorithm, size)
seconds = time.process_time() - start
children = resource.getrusage(resource.RUSAGE_CHILDREN)
seconds += children.ru_utime + children.ru_stime
peak = max(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, children.ru_maxrss) * 1024
print(json.dumps({"estimate": estimate, "estimated_s": cost.seconds, "estimate_s": estimate_s,
                  "estimated_bytes": cost.memory_bytes, "measured_s": seconds,
                  "peak_bytes": peak, "baseline_bytes": before * 1024,
                  "transfers": raw.transfers, "messages": raw.messages}))
"""


def run(workload: tuple) -> dict:
    spec, collective, algorithm, size, model = workload[:5]
    options = workload[5] if len(workload) > 5 else {}
    argv = [spec, collective, algorithm, str(size), model, json.dumps(options)]
    done = subprocess.run(
        [sys.executable, "-c", CHILD, *argv],
        capture_output=True,
        text=True,
        check=True,
        timeout=1800,
    )
    out = json.loads(done.stdout)
    out.update(spec=spec, collective=collective, algorithm=algorithm, size=size, model=model,
               options=options)  # fmt: skip
    return out


def options_label(options: dict) -> str:
    return "".join(f" {key} {value}" for key, value in options.items())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a few small workloads only")
    parser.add_argument("--drift", action="store_true", help="the drifting workloads only")
    parser.add_argument("--json", help="write the raw figures to this file")
    args = parser.parse_args()
    rows = []
    start = time.time()
    print(
        "| model | topology | collective | algorithm | size | transfers | estimated s | "
        "measured CPU s | ratio | estimated MiB | measured MiB | ratio |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for workload in QUICK if args.quick else DRIFT if args.drift else WORKLOADS:
        r = run(workload)
        rows.append(r)
        # What the user waits for: the estimate (which runs the flow model's symmetry search,
        # cached for the run) and the run.
        r["measured_s"] += r["estimate_s"]
        used = max(r["peak_bytes"] - r["baseline_bytes"], 1 << 20)
        print(
            f"| {r['model']} | {r['spec']}{options_label(r['options'])} | {r['collective']} | "
            f"{r['algorithm']} | "
            f"{r['size']:,} | {r['transfers']:,} | {r['estimated_s']:.2f} | "
            f"{r['measured_s']:.2f} | {r['estimated_s'] / max(r['measured_s'], 1e-3):.1f} | "
            f"{r['estimated_bytes'] / 2**20:.0f} | {used / 2**20:.0f} | "
            f"{r['estimated_bytes'] / used:.1f} |",
            flush=True,
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    print(
        f"\n{len(rows)} workloads, {time.time() - start:.0f} s wall, "
        f"{usage.ru_utime + usage.ru_stime:.0f} CPU s"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
