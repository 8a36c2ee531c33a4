"""Why a schedule with an uneven first step loses bandwidth in the flow model (docs/efficiency.md,
"Found defects"): the schedule as built, with a barrier after its first step only, with a
rendezvous handshake before every step, and with the ranks idle in the first step waiting for
the ranks they send to next.

    .venv/bin/python bench/bine_send_exchange.py bine-bw allgather fattree:2:8:160:160 \
        --ranks 32 --size 16MiB
    .venv/bin/python bench/bine_send_exchange.py bine-bw-torus allgather torus:8x8 --ideal

The flow model injects a send when its step is posted (eager, sender-driven;
docs/simulator-engines.md). A barrier after the first step shows whether that step's unevenness
is what desynchronises the ranks; the handshake (every rank first sends a zero-byte message to
the ranks it will receive from and waits for one from the ranks it will send to, as an MPI
rendezvous protocol does for large messages) shows whether the loss needs data sent to a rank
that has not reached the matching receive.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import topocoll


def lanes_of(document: dict) -> list[list[list[dict]]]:
    """Per rank, per lane, the steps as {"ops", "after"} (either format version)."""
    if "lanes" in document:
        source = document["lanes"]
    else:
        source = [[steps] for steps in document["steps"]]
    return [
        [
            [e if isinstance(e, dict) else {"ops": e, "after": []} for e in lane]
            for lane in rank_lanes
        ]
        for rank_lanes in source
    ]


def with_lanes(document: dict, lanes: list) -> dict:
    out = {k: v for k, v in document.items() if k not in ("steps", "lanes")}
    out["version"] = 2
    out["lanes"] = lanes
    out["keeps_positions"] = False
    return out


def barrier_after_first(document: dict) -> dict:
    """A barrier lane: no rank starts its second step before every rank ended its first."""
    lanes = lanes_of(document)
    p = len(lanes)
    count = len(lanes[0])
    port = 1 + max(
        (op.get("port", 0) for r in lanes for ln in r for s in ln for op in s["ops"]), default=0
    )
    for rank, rank_lanes in enumerate(lanes):
        for lane in rank_lanes:
            if len(lane) > 1:
                lane[1] = {**lane[1], "after": list(lane[1].get("after", [])) + [[count, 0]]}
        ops = []
        for q in range(p):
            if q != rank:
                ops.append({"op": "send", "peer": q, "port": port, "blocks": []})
                ops.append({"op": "recv", "peer": q, "port": port, "blocks": []})
        rank_lanes.append([{"ops": ops, "after": [[j, 0] for j in range(count)]}])
    out = with_lanes(document, lanes)
    out["ports"] = max(document.get("ports", 1), port + 1) * p
    return out


def rendezvous(document: dict) -> dict:
    """Before every step a handshake step: a zero-byte message to every rank this step receives
    from, and one from every rank it sends to; the data then leave only once the receiver has
    reached its matching step."""
    lanes = lanes_of(document)
    for rank_lanes in lanes:
        for j, lane in enumerate(rank_lanes):
            new = []
            for step in lane:
                ops = []
                for op in step["ops"]:
                    port = op.get("port", 0)
                    if op["op"] == "recv":
                        ops.append({"op": "send", "peer": op["peer"], "port": port, "blocks": []})
                    elif op["op"] == "send":
                        ops.append({"op": "recv", "peer": op["peer"], "port": port, "blocks": [],
                                    "combine": "copy"})  # fmt: skip
                after = [[a, 2 * s + 1] for a, s in step.get("after", [])]
                new.append({"ops": ops, "after": after})
                new.append({"ops": step["ops"], "after": []})
            rank_lanes[j] = new
    return with_lanes(document, lanes)


def idle_ranks_wait(document: dict) -> dict:
    """A rank with nothing to do in its first step waits there for a zero-byte message from each
    rank it sends to in its second step, which that rank sends when its own second step starts
    (on a port of its own)."""
    lanes = lanes_of(document)
    ports = document.get("ports", 1)
    for j in range(len(lanes[0])):
        idle = {r for r, rank_lanes in enumerate(lanes) if not rank_lanes[j][0]["ops"]}
        for f in idle:
            for op in lanes[f][j][1]["ops"] if len(lanes[f][j]) > 1 else []:
                if op["op"] != "send" or op["peer"] in idle:
                    continue
                q, port = op["peer"], ports + op.get("port", 0)
                lanes[f][j][0]["ops"].append(
                    {"op": "recv", "peer": q, "port": port, "blocks": [], "combine": "copy"}
                )
                lanes[q][j][1]["ops"].insert(
                    0, {"op": "send", "peer": f, "port": port, "blocks": []}
                )
    out = with_lanes(document, lanes)
    out["ports"] = 2 * ports
    return out


def simulate(document: dict, args) -> dict:
    cli = str(Path(sys.executable).with_name("topocoll"))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(document, f)
        path = f.name
    command = [cli, "sim", "--topology", args.topology, "--collective", args.collective,
               "--schedule", path, "--size", args.size, "--json", "--force"]  # fmt: skip
    if args.ideal:
        command += ["--latency", "0ns", "--hop-latency", "0ns", "--alpha", "0ns"]
    for option in ("machine", "mapping"):
        if getattr(args, option, None):
            command += [f"--{option}", getattr(args, option)]
    try:
        run = subprocess.run(command, capture_output=True, text=True, check=False)
        if run.returncode:
            raise SystemExit(run.stderr.strip())
    finally:
        os.unlink(path)
    return json.loads(run.stdout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("algorithm")
    parser.add_argument("collective")
    parser.add_argument("topology")
    parser.add_argument("--ranks", type=int, help="default: every host of the topology")
    parser.add_argument("--size", default="1GiB")
    parser.add_argument("--ideal", action="store_true", help="zero latency and alpha")
    parser.add_argument("--machine", help="a machine file or shipped name (its links, host costs)")
    parser.add_argument("--mapping", help="as `topocoll sim --mapping`")
    args = parser.parse_args(argv)
    kind, spec = args.topology.split(":", 1)
    dims = [int(s) for s in spec.split("x")] if kind in ("torus", "ring") else []
    if args.ranks is None:
        if not dims:
            parser.error("--ranks is required on this topology")
        args.ranks = 1
        for side in dims:
            args.ranks *= side
    if len(dims) == 1:
        dims = []
    schedule = topocoll.build(args.algorithm, args.collective, args.ranks, dims=dims)
    document = json.loads(schedule.to_json())
    for name, transform in (
        ("as built", lambda d: d),
        ("barrier after the first step", barrier_after_first),
        ("rendezvous before every step", rendezvous),
        ("idle ranks wait for their peers", idle_ranks_wait),
    ):
        result = simulate(transform(document), args)
        print(f"{name:32s} {result['time_s'] * 1e6:10.3f} us {result['peak_percent']:7.2f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
