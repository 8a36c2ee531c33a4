"""python/topocoll/calibration.py under mpiexec (2 ranks or more): calibrate() gives a
machine-file dict with every value sourced and sane, measure_collective() gives positive
times, and a bad argument raises CalibrationError with the runtime's message. Loads the module
by path (no compiled extension needed); TOPOCOLL_MPI_LIBRARY names the runtime. Exits 1 with
one line per failed check."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

from mpi4py import MPI

MODULE = Path(__file__).resolve().parents[2] / "python" / "topocoll" / "calibration.py"
spec = importlib.util.spec_from_file_location("calibration", MODULE)
assert spec and spec.loader
calibration = importlib.util.module_from_spec(spec)
spec.loader.exec_module(calibration)

comm = MPI.COMM_WORLD
failures: list[str] = []


def expect(ok: bool, what: str) -> None:
    if not ok:
        failures.append(what)


def sourced_leaves(tree: dict, path: str = "") -> list[tuple[str, dict]]:
    out = []
    for key, value in tree.items():
        if isinstance(value, dict) and "value" in value:
            out.append((path + key, value))
        elif isinstance(value, dict):
            out += sourced_leaves(value, path + key + ".")
    return out


machine = calibration.calibrate(
    comm,
    command="calibration_program.py",
    loggp_options={
        "repetitions": 5,
        "pingpong_sizes": [0, 1024, 65536, 131072],
        "train_sizes": [8, 1024],
        "train_counts": [1, 4, 8],
    },
    host_options={"bytes": 262144, "repetitions": 3},
    node_options={"bytes": 1 << 20, "repetitions": 2, "warmup": 1},
)
expect(machine["format"] == "topocoll-machine/1", "format")
sections = ("network", "host", "nodes")
leaves = sourced_leaves({key: machine[key] for key in sections if key in machine})
names = {name for name, _ in leaves}
for wanted in (
    "network.link_latency",
    "network.bandwidth",
    "host.send_overhead",
    "host.recv_overhead",
    "host.gap",
    "host.copy_rate",
    "host.reduce_rate",
    "host.eager_threshold",
    "host.step_cpu",
    "host.call_overhead",
):
    expect(wanted in names, f"{wanted} present")
hostname = __import__("socket").gethostname()
for name, leaf in leaves:
    expect(
        hostname in leaf["source"] and "calibration_program.py" in leaf["source"],
        f"{name}: source names the host and command",
    )
    expect(
        MPI.Get_library_version().replace("\x00", "").splitlines()[0].strip() in leaf["source"],
        f"{name}: source names the MPI library",
    )
expect(machine["host"]["copy_rate"]["value"].endswith("Bps"), "copy rate is a rate")
expect(set(machine["host"]["reduce_rate"]["value"]) == {"float", "double", "int"}, "classes")
expect(machine["network"]["link_latency"]["value"].endswith("s"), "latency is a duration")
for key in ("step_cpu", "call_overhead"):
    expect(machine["host"][key]["value"].endswith("s"), f"host.{key} is a duration")
if machine["host"]["eager_threshold"]["value"] != "none":  # a jump: its handshake's CPU time
    expect(machine["host"]["rendezvous_overhead"]["value"].endswith("s"), "rendezvous overhead")
node = comm.Split_type(MPI.COMM_TYPE_SHARED)
shared = comm.bcast(node.Get_size() > 1, root=0)
node.Free()
if shared:  # rank 0 shares its node: the node's memory, measured
    for wanted in ("ranks_per_node", "fabric", "memory_bandwidth", "fabric_bandwidth"):
        expect(f"nodes.{wanted}" in names, f"nodes.{wanted} present")
    expect(machine["nodes"]["fabric"]["value"] == "shared-memory", "shared-memory fabric")
expect(machine == comm.bcast(machine, root=0), "every rank has the same machine")

times = calibration.measure_collective(comm, "allreduce", "ring", 65536, 3)
expect(len(times) == 3 and all(t > 0 for t in times), "allreduce ring: 3 positive times")
times = calibration.measure_collective(comm, "alltoall", "auto", 4096, 2, warmup=0)
expect(len(times) == 2 and all(t > 0 for t in times), "alltoall auto: 2 positive times")
try:
    calibration.measure_collective(comm, "allreduce", "no-such-algorithm", 64, 1)
    expect(False, "an unknown algorithm raises")
except calibration.CalibrationError as error:
    expect("no-such-algorithm" in str(error), "the error names the algorithm")

for line in failures:
    print(f"rank {comm.Get_rank()}: FAILED: {line}", file=sys.stderr)
total = comm.allreduce(len(failures))
if comm.Get_rank() == 0:
    print(f"calibration: {total} failed check(s)")
sys.exit(1 if total else 0)
