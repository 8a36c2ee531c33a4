"""Calibration from the MPI runtime's own measurements (docs/calibration.md).

Runs under `mpirun`/`mpiexec` with 2 or more ranks. The timing loops are the runtime's
(libtopocoll_mpi: `topocoll_measure_loggp`, `topocoll_measure_host`,
`topocoll_time_collective`); this module calls them through ctypes on an mpi4py communicator
and turns their results into a machine-file dict (format `topocoll-machine/1`).

The library is `$TOPOCOLL_MPI_LIBRARY` when set, else `build/cpp/libtopocoll_mpi.so` of the
source checkout this module lies in (`make build` puts it there). mpi4py is the optional
extra `mpi`. This module imports nothing else of topocoll, so it also runs from a source
checkout without the compiled extension.
"""

from __future__ import annotations

import ctypes
import datetime
import json
import os
import re
import socket
import statistics
import sys
from pathlib import Path
from typing import Any

LIBRARY_VARIABLE = "TOPOCOLL_MPI_LIBRARY"
MACHINE_FORMAT = "topocoll-machine/1"
# Reduction classes of the machine file, and the runtime's names for them.
REDUCE_CLASSES = ("float", "double", "int")


class CalibrationError(RuntimeError):
    """One line saying what is missing or failed (the CLI exits 2 with it)."""


class WrongResult(CalibrationError):
    """A timed collective produced wrong output elements (a defect, not a bad input)."""


def library_path() -> Path:
    """Where libtopocoll_mpi.so is: `$TOPOCOLL_MPI_LIBRARY`, else the checkout's build/cpp."""
    configured = os.environ.get(LIBRARY_VARIABLE)
    if configured:
        path = Path(configured)
        if not path.is_file():
            raise CalibrationError(f"{LIBRARY_VARIABLE}={configured} is not a file")
        return path
    checkout = Path(__file__).resolve().parents[2]
    candidate = checkout / "build" / "cpp" / "libtopocoll_mpi.so"
    if candidate.is_file():
        return candidate
    raise CalibrationError(
        f"libtopocoll_mpi.so not found in {candidate.parent}; build it (make build) or set "
        f"{LIBRARY_VARIABLE} to its path"
    )


def _mpi() -> Any:
    try:
        from mpi4py import MPI
    except ImportError as error:
        raise CalibrationError(
            "calibration needs mpi4py (the optional extra: pip install 'topocoll[mpi]')"
        ) from error
    return MPI


def world() -> Any:
    """MPI_COMM_WORLD (mpi4py initialises MPI on import); CalibrationError without mpi4py or
    with fewer than 2 ranks."""
    comm = _mpi().COMM_WORLD
    if comm.Get_size() < 2:
        raise CalibrationError(
            "this needs 2 or more MPI ranks; accepted: a run under mpirun/mpiexec -np 2 or more"
        )
    return comm


def mpi_library() -> str:
    """The first line of MPI_Get_library_version."""
    return _mpi().Get_library_version().replace("\x00", "").strip().splitlines()[0].strip()


class _Runtime:
    """libtopocoll_mpi's measurement functions, typed for ctypes."""

    def __init__(self) -> None:
        mpi = _mpi()
        self.MPI = mpi
        # MPI_Comm is a pointer in Open MPI and an int in MPICH.
        self.comm_type = ctypes.c_void_p if mpi._sizeof(mpi.Comm) == 8 else ctypes.c_int
        try:
            lib = ctypes.CDLL(str(library_path()), mode=ctypes.RTLD_GLOBAL)
        except OSError as error:
            raise CalibrationError(f"cannot load the MPI runtime: {error}") from error
        out = ctypes.POINTER(ctypes.c_void_p)
        lib.topocoll_measure_loggp.argtypes = [
            self.comm_type,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.c_char_p,
            out,
        ]
        lib.topocoll_measure_host.argtypes = [ctypes.c_char_p, out]
        lib.topocoll_time_collective.argtypes = [
            self.comm_type,
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_longlong,
            ctypes.c_int,
            ctypes.c_int,
            ctypes.POINTER(ctypes.c_double),
            ctypes.POINTER(ctypes.c_longlong),
        ]
        lib.topocoll_measure_error.restype = ctypes.c_char_p
        lib.topocoll_last_algorithm.restype = ctypes.c_char_p
        lib.topocoll_free.argtypes = [ctypes.c_void_p]
        for name in ("topocoll_measure_loggp", "topocoll_measure_host", "topocoll_time_collective"):
            getattr(lib, name).restype = ctypes.c_int
        self.lib = lib

    def handle(self, comm: Any) -> Any:
        return self.comm_type(self.MPI._handleof(comm))

    def failed(self, what: str) -> CalibrationError:
        return CalibrationError(f"{what}: {self.lib.topocoll_measure_error().decode()}")

    def result(self, rc: int, text: ctypes.c_void_p, what: str) -> dict[str, Any]:
        if rc != 0:
            raise self.failed(what)
        try:
            return json.loads(ctypes.string_at(text.value).decode())
        finally:
            self.lib.topocoll_free(text)

    def loggp(self, comm: Any, a: int, b: int, options: dict[str, Any] | None) -> dict[str, Any]:
        text = ctypes.c_void_p()
        encoded = json.dumps(options or {}).encode()
        rc = self.lib.topocoll_measure_loggp(self.handle(comm), a, b, encoded, ctypes.byref(text))
        return self.result(rc, text, f"LogGP measurement of ranks {a} and {b}")

    def host(self, options: dict[str, Any] | None) -> dict[str, Any]:
        text = ctypes.c_void_p()
        rc = self.lib.topocoll_measure_host(json.dumps(options or {}).encode(), ctypes.byref(text))
        return self.result(rc, text, "copy and reduction measurement")


_runtime: _Runtime | None = None


def _the_runtime() -> _Runtime:
    global _runtime
    if _runtime is None:
        _runtime = _Runtime()
    return _runtime


def measure_collective(
    comm: Any,
    collective: str,
    algorithm: str | None,
    nbytes: int,
    repetitions: int,
    warmup: int = 1,
) -> list[float]:
    """Seconds per repetition (slowest rank) of `collective` run by the runtime with
    `algorithm` (a registry name, `auto`, `mpi`, `file:PATH`; None: TOPOCOLL_<COLL>_ALGORITHM)
    on `nbytes` per rank of MPI_INT data, after `warmup` calls. Collective over `comm`; every
    rank gets the same list. A wrong result or an algorithm the runtime did not run raises."""
    rt = _the_runtime()
    times = (ctypes.c_double * max(repetitions, 1))()
    wrong = ctypes.c_longlong(0)
    rc = rt.lib.topocoll_time_collective(
        rt.handle(comm),
        collective.encode(),
        algorithm.encode() if algorithm else None,
        nbytes,
        warmup,
        repetitions,
        times,
        ctypes.byref(wrong),
    )
    what = f"{collective} with {algorithm or 'TOPOCOLL_' + collective.upper() + '_ALGORITHM'}"
    if rc != 0:
        raise rt.failed(what)
    if wrong.value:
        raise WrongResult(f"{what} at {nbytes} B: {wrong.value} wrong elements")
    return list(times[:repetitions])


def measure_pairs(comm: Any, options: dict[str, Any] | None = None) -> dict[str, dict[str, Any]]:
    """The runtime's LogGP results for a pair of ranks on one node (`intra_node`) and, when the
    ranks span nodes, a pair on different nodes (`inter_node`). Collective over `comm`."""
    if comm.Get_size() < 2:
        raise CalibrationError("calibration needs 2 or more ranks (run it under mpirun -np 2)")
    leaders = node_layout(comm)
    pairs: dict[str, tuple[int, int]] = {}
    for rank, own in enumerate(leaders):
        if own == leaders[0] and rank != 0 and "intra_node" not in pairs:
            pairs["intra_node"] = (0, rank)
        if own != leaders[0] and "inter_node" not in pairs:
            pairs["inter_node"] = (0, rank)
    if "intra_node" not in pairs:  # rank 0 alone on its node: a pair on another node
        for rank, own in enumerate(leaders):
            partner = next((r for r in range(rank + 1, len(leaders)) if leaders[r] == own), None)
            if partner is not None:
                pairs["intra_node"] = (rank, partner)
                break
    rt = _the_runtime()
    return {kind: rt.loggp(comm, a, b, options) for kind, (a, b) in pairs.items()}


def measure_host(comm: Any, options: dict[str, Any] | None = None) -> dict[str, Any]:
    """Copy, packing and reduction throughput of the runtime's code on rank 0, sent to all."""
    result = _the_runtime().host(options) if comm.Get_rank() == 0 else None
    return comm.bcast(result, root=0)


# Node memory measurement (docs/calibration.md, "Nodes"): buffers well past any cache, few
# repetitions (each copies 64 MiB).
LARGE_COPY_OPTIONS = {"bytes": 64 << 20, "repetitions": 5, "warmup": 1}


def node_layout(comm: Any) -> list[int]:
    """For every rank of `comm`, the lowest rank on its node (MPI_COMM_TYPE_SHARED)."""
    mpi = _mpi()
    node = comm.Split_type(mpi.COMM_TYPE_SHARED)
    leader = node.allreduce(comm.Get_rank(), op=mpi.MIN)
    node.Free()
    return comm.allgather(leader)


def measure_node_memory(comm: Any, options: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """The node's memory as the runtime's copy loop sees it (topocoll_measure_host's `copy`,
    large buffers): `alone_Bps`, the copy rate of the lowest rank of rank 0's node while its
    node mates wait; `together_Bps`, the per-rank rates while every rank of that node copies
    at the same time (a barrier, then the measurement); `node_Bps`, their sum: the node-wide
    bandwidth the node's copies share. None when rank 0 has its node to itself. Collective."""
    options = options or LARGE_COPY_OPTIONS
    leaders = node_layout(comm)
    mates = [r for r, own in enumerate(leaders) if own == leaders[0]]
    if len(mates) < 2:
        return None
    rank = comm.Get_rank()
    rt = _the_runtime()
    comm.Barrier()
    alone = rt.host(options)["copy"]["rate_Bps"] if rank == mates[0] else None
    comm.Barrier()
    together = rt.host(options)["copy"]["rate_Bps"] if rank in mates else None
    rates = comm.allgather(together)
    alone = comm.bcast(alone, root=mates[0])
    per_rank = [rates[r] for r in mates]
    if alone is None or any(r is None for r in per_rank):
        raise CalibrationError("the large-buffer copy measurement gave no rate")
    return {
        "ranks": mates,
        "bytes": options.get("bytes"),
        "alone_Bps": alone,
        "together_Bps": per_rank,
        "node_Bps": sum(per_rank),
    }


# Rates by working set (docs/calibration.md, "Rates by working set"): from 1 KiB, eager messages
# whose bytes an MPI library copies through its own buffers, to 64 MiB, well past this kind of
# machine's caches, at every power of two (a cache's edge falls between two points; steps of 4
# left 32 MiB 19-30% optimistic, docs/validation.md); few repetitions (the largest copies
# 64 MiB each).
WORKING_SET_SIZES = tuple(1 << 10 << k for k in range(17))
WORKING_SET_REPETITIONS = 5


def measure_working_set(
    comm: Any, pairs: dict[str, dict[str, Any]], sizes: tuple[int, ...] = WORKING_SET_SIZES
) -> list[dict[str, Any]]:
    """Per size in `sizes`: each measured pair's ping-pong rate (`bandwidth_Bps` by pair kind:
    the size over the median half round trip less that of an empty message) and exchange rate
    (`exchange_Bps`: per direction, the size over the median time of both ranks sending it to
    each other at once, less an empty exchange's), the rates at which each pair's ranks copy
    and reduce (MPI_INT) into bytes the other just read (`lent_Bps`: the size over the median
    write time, by pair kind, then "copy" and "reduce"), and rank 0's copy and reduction rates
    (topocoll_measure_host with `bytes` set). Collective."""
    rt = _the_runtime()
    options = {"repetitions": WORKING_SET_REPETITIONS, "warmup": 1}
    trains = {"train_sizes": [8, 64], "train_counts": [1, 2]}
    one_way, both_ways, lent = {}, {}, {}
    for kind, loggp in pairs.items():
        a, b = loggp["peers"]
        sized = {"pingpong_sizes": [0, *sizes], "exchange_sizes": [0, *sizes]}
        sized |= {"lent_sizes": list(sizes), "repetitions": 2 * WORKING_SET_REPETITIONS}
        points = rt.loggp(comm, a, b, options | trains | sized)["points"]
        one_way[kind] = {p["bytes"]: p["half_round_trip_s"] for p in points["pingpong"]}
        both_ways[kind] = {p["bytes"]: p["seconds"] for p in points["exchange"]}
        lent[kind] = {p["bytes"]: p for p in points["lent"]}
    out = []
    for size in sizes:
        host = measure_host(comm, options | {"bytes": size})
        handshakes = {kind: _handshake(loggp, size) for kind, loggp in pairs.items()}
        out.append(
            {
                "bytes": size,
                "bandwidth_Bps": _rates(one_way, size, handshakes),
                "exchange_Bps": _rates(both_ways, size, handshakes),
                "lent_Bps": {
                    kind: {w: size / at[size][f"{w}_s"] for w in ("copy", "reduce")}
                    for kind, at in lent.items()
                    if at[size]["copy_s"] > 0 and at[size]["reduce_s"] > 0
                },
                "copy_Bps": host["copy"]["rate_Bps"],
                "reduce_Bps": {cls: host["reduce"][cls]["rate_Bps"] for cls in REDUCE_CLASSES},
            }
        )
    return out


def _handshake(loggp: dict[str, Any], size: int) -> float:
    """What a message of `size` bytes takes for its rendezvous handshake on this pair (0 when
    it is eager): the model charges it apart (the round trip and host.rendezvous_overhead), so
    the transfer rates leave it out."""
    knee = loggp.get("eager_threshold_bytes")
    return loggp.get("rendezvous_handshake_s", 0.0) if knee is not None and size > knee else 0.0


def _rates(
    times: dict[str, dict[int, float]], size: int, handshakes: dict[str, float]
) -> dict[str, float]:
    """Per pair kind, `size` over its time less an empty message's and less its handshake: the
    bandwidth term alone (none where that difference is not positive, as on a disturbed
    run)."""
    moving = {kind: t[size] - t[0] - handshakes.get(kind, 0.0) for kind, t in times.items()}
    return {kind: size / m for kind, m in moving.items() if m > 0}


def _working_set_section(
    points: list[dict[str, Any]], kind: str, nodes: bool, source: str
) -> dict[str, Any]:
    """The `working_set` leaf of a machine whose network values come from the `kind` pair: its
    ping-pong rate as the network's bandwidth, or as the fabric's on a machine of one node (whose
    ranks never use the network); the intra-node pair's as the fabric's on a machine with both."""
    table = []
    for point in points:
        entry: dict[str, Any] = {"bytes": _size(point["bytes"])}
        bandwidth = point["bandwidth_Bps"]
        if kind in bandwidth and not (nodes and kind == "intra_node"):
            entry["bandwidth"] = _rate(bandwidth[kind])
        if nodes and "intra_node" in bandwidth:
            entry["fabric_bandwidth"] = _rate(bandwidth["intra_node"])
        # Two messages at once share the node's memory link (docs/nodes.md): its rate is what
        # both directions of an exchange move together.
        if nodes and "intra_node" in point["exchange_Bps"]:
            entry["memory_bandwidth"] = _rate(2 * point["exchange_Bps"]["intra_node"])
        entry["copy_rate"] = _rate(point["copy_Bps"])
        entry["reduce_rate"] = {cls: _rate(r) for cls, r in point["reduce_Bps"].items()}
        # Only ranks of one node lend their bytes (docs/host-costs.md, "Bytes a node peer read").
        if nodes and "intra_node" in point.get("lent_Bps", {}):
            entry["lent_copy_rate"] = _rate(point["lent_Bps"]["intra_node"]["copy"])
            entry["lent_reduce_rate"] = _rate(point["lent_Bps"]["intra_node"]["reduce"])
        table.append(entry)
    return _sourced(
        table,
        source + f"; per buffer size, median of {WORKING_SET_REPETITIONS}: ping-pong of the pair "
        "(size over the half round trip less an empty message's) as the transfer rate; twice "
        "the on-node pair's exchange rate per direction as the node's memory; the on-node "
        "pair's copy_elements and MPI_Reduce_local (MPI_SUM, MPI_INT) into bytes the other "
        "just read as the lent rates; rank 0's copy_elements and MPI_Reduce_local (MPI_SUM)",
    )


# The runtime's CPU work per step and per call (docs/calibration.md, "The runtime's CPU work"):
# two ring workloads of one MPI_INT per rank's chunk, one message per rank per step, that differ
# only in their step count: allreduce, 2(P-1) steps, and allgather, P-1 steps.
CPU_WORKLOADS = (("allreduce", "ring"), ("allgather", "ring"))
CPU_REPETITIONS = 1000
CPU_ROUNDS = 20


def measure_runtime_cpu(comm: Any, loggp: dict[str, Any]) -> dict[str, Any]:
    """The runtime's own CPU time beyond LogGP: per step of a lane (`step_cpu_s`) and per call
    (`call_overhead_s`), from the medians of CPU_WORKLOADS on all ranks (4P bytes each,
    CPU_REPETITIONS calls in CPU_ROUNDS alternated rounds). Their
    difference is P-1 steps, each costing step_cpu + o_send + o_recv + L of `loggp` (what the
    model charges a step of one small message); what the allgather's P-1 steps leave of its
    time is the call's. Both at least 0. Collective."""
    ranks = comm.Get_size()
    nbytes = 4 * ranks
    # Alternated in rounds, so that a slow spell of the machine hits both workloads alike.
    samples: dict[str, list[float]] = {collective: [] for collective, _ in CPU_WORKLOADS}
    for _ in range(CPU_ROUNDS):
        for collective, algorithm in CPU_WORKLOADS:
            samples[collective] += measure_collective(
                comm, collective, algorithm, nbytes, CPU_REPETITIONS // CPU_ROUNDS, 2
            )
    medians = {collective: statistics.median(times) for collective, times in samples.items()}
    per_step = (medians["allreduce"] - medians["allgather"]) / (ranks - 1)
    modelled = loggp["send_overhead_s"] + loggp["recv_overhead_s"] + loggp["latency_s"]
    return {
        "bytes": nbytes,
        "allreduce_ring_s": medians["allreduce"],
        "allgather_ring_s": medians["allgather"],
        "steps": ranks - 1,
        "per_step_s": per_step,
        "loggp_per_step_s": modelled,
        "step_cpu_s": max(0.0, per_step - modelled),
        "call_overhead_s": max(0.0, medians["allgather"] - (ranks - 1) * per_step),
    }


def _plain(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".") or "0"


def _duration(seconds: float) -> str:
    for unit, factor in (("ms", 1e-3), ("us", 1e-6)):
        if seconds >= factor:
            return _plain(seconds / factor) + unit
    return _plain(seconds / 1e-9) + "ns"


def _rate(bytes_per_second: float) -> str:
    for unit, factor in (("GBps", 1e9), ("MBps", 1e6), ("KBps", 1e3)):
        if bytes_per_second >= factor:
            return _plain(bytes_per_second / factor) + unit
    return _plain(bytes_per_second) + "Bps"


def _size(nbytes: int) -> str:
    for unit, factor in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if nbytes >= factor and nbytes % factor == 0:
            return f"{nbytes // factor}{unit}"
    return f"{nbytes}B"


def _sourced(value: Any, source: str) -> dict[str, Any]:
    return {"value": value, "source": source}


def single_switch(hosts: int) -> str:
    """The topology a calibrated machine states: `hosts` hosts on one switch (a one-level
    fat tree), so that every pair of ranks is two links apart, as measured."""
    return f"fattree:2:1:{hosts}:1"


def _largest_pingpong(loggp: dict[str, Any]) -> dict[str, Any] | None:
    points = [p for p in loggp.get("points", {}).get("pingpong", []) if p.get("fastest_s", 0) > 0]
    return max(points, key=lambda p: p["bytes"], default=None)


def _link_costs(loggp: dict[str, Any], source: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(network, host) of one pair's LogGP result, as machine-file sections."""
    network: dict[str, Any] = {
        # End to end L over the two links host-switch-host of single_switch(): half per link,
        # nothing per hop, so that a path between two hosts costs L.
        "link_latency": _sourced(
            _duration(loggp["latency_s"] / 2), source + "; LogGP L / 2 (two links per path)"
        ),
        "hop_latency": _sourced("0ns", source + "; end-to-end latency is 2 x link_latency"),
    }
    bandwidth = loggp.get("pingpong_bandwidth_Bps") or loggp.get("train_bandwidth_Bps")
    if bandwidth:
        network["bandwidth"] = _sourced(_rate(bandwidth), source + "; ping-pong per-byte slope")
    elif largest := _largest_pingpong(loggp):
        # Under load neither slope may come out positive; without a bandwidth the file would
        # leave the simulator's default in place, so the largest ping-pong's rate stands in.
        network["bandwidth"] = _sourced(
            _rate(largest["bytes"] / largest["fastest_s"]),
            source + f"; largest ping-pong ({largest['bytes']} B) over its fastest half round trip",
        )
    knee = loggp.get("eager_threshold_bytes")
    host = {
        "send_overhead": _sourced(_duration(loggp["send_overhead_s"]), source + "; MPI_Isend post"),
        "recv_overhead": _sourced(
            _duration(loggp["recv_overhead_s"]), source + "; MPI_Recv of an arrived message"
        ),
        "gap": _sourced(_duration(loggp["gap_s"]), source + "; message trains, slope over n"),
        "eager_threshold": _sourced(
            _size(int(knee)) if knee is not None else "none",
            source
            + ("; ping-pong's largest jump" if knee is not None else "; no ping-pong jump found"),
        ),
    }
    if knee is not None:
        # The model's round trip for a rendezvous is 2L; the rest of the measured jump is the
        # handshake's software cost, charged on the receiver's CPU.
        handshake = loggp.get("rendezvous_handshake_s", 0.0)
        host["rendezvous_overhead"] = _sourced(
            _duration(max(0.0, handshake - 2 * loggp["latency_s"])),
            source + f"; the ping-pong's jump at the eager threshold ({_duration(handshake)}, "
            "medians) less the round trip 2L",
        )
    return network, host


def _node_section(
    memory: dict[str, Any], ranks_per_node: int, loggp: dict[str, Any], source: str
) -> dict[str, Any]:
    """The `nodes` section (docs/nodes.md) of a node measured by measure_node_memory, with
    the on-node pair's one-way latency as the fabric's."""
    ranks = memory["ranks"]
    size = _size(int(memory["bytes"]))
    return {
        "ranks_per_node": _sourced(
            ranks_per_node, source + "; ranks per node (MPI_COMM_TYPE_SHARED)"
        ),
        "fabric": _sourced("shared-memory", source + "; ranks of one node share its memory"),
        "memory_bandwidth": _sourced(
            _rate(memory["node_Bps"]),
            source + f"; copy_elements of {size} on ranks {ranks[0]}-{ranks[-1]} at once "
            "(barrier, then measure), sum of their rates",
        ),
        "fabric_bandwidth": _sourced(
            _rate(memory["alone_Bps"]),
            source + f"; copy_elements of {size} on rank {ranks[0]} alone",
        ),
        "fabric_latency": _sourced(
            _duration(loggp["latency_s"]),
            source + f"; LogGP L of on-node ranks {loggp['peers'][0]} and {loggp['peers'][1]}",
        ),
    }


def _runtime_cpu(cpu: dict[str, Any], source: str) -> dict[str, Any]:
    workloads = (
        f"ring allreduce and ring allgather of {cpu['bytes']} B: medians "
        f"{_duration(cpu['allreduce_ring_s'])} and {_duration(cpu['allgather_ring_s'])}"
    )
    return {
        "step_cpu": _sourced(
            _duration(cpu["step_cpu_s"]),
            source + f"; {workloads}, their difference over {cpu['steps']} step(s) less o_send + "
            f"o_recv + L ({_duration(cpu['loggp_per_step_s'])})",
        ),
        "call_overhead": _sourced(
            _duration(cpu["call_overhead_s"]),
            source + f"; {workloads}, the allgather's less its {cpu['steps']} step(s)",
        ),
    }


def _host_rates(local: dict[str, Any], source: str) -> dict[str, Any]:
    rates = {cls: _rate(local["reduce"][cls]["rate_Bps"]) for cls in REDUCE_CLASSES}
    return {
        "copy_rate": _sourced(_rate(local["copy"]["rate_Bps"]), source + "; copy_elements"),
        "reduce_rate": _sourced(rates, source + "; MPI_Reduce_local, MPI_SUM"),
    }


def calibrate_all(
    comm: Any,
    *,
    name: str | None = None,
    command: str | None = None,
    loggp_options: dict[str, Any] | None = None,
    host_options: dict[str, Any] | None = None,
    node_options: dict[str, Any] | None = None,
    working_set_sizes: tuple[int, ...] = WORKING_SET_SIZES,
) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(machine, on-node machine): machine-file dicts measured on the ranks of `comm`
    (collective; every rank gets them).

    `machine`'s `network` and LogGP `host` values come from a pair of ranks on different nodes
    when the ranks span nodes, else from a pair on one node. With both kinds of pair, the
    on-node pair's values form a second machine (named NAME-intra-node; None otherwise).
    `host.step_cpu` and `host.call_overhead` are measure_runtime_cpu's on all ranks. When rank 0
    shares its node, `machine` has a `nodes` section (measure_node_memory with `node_options`,
    the on-node pair's L) and the topology single_switch(max(2, nodes)), a host per node; otherwise
    single_switch(P) for the P ranks of `comm`. `working_set` holds the rates at each of
    `working_set_sizes` (measure_working_set; none for an empty tuple). Each value's source
    names the host, the MPI library, the date and `command` (default: this process's command
    line).
    """
    pairs = measure_pairs(comm, loggp_options)
    local = measure_host(comm, host_options)
    memory = measure_node_memory(comm, node_options)
    by_size = measure_working_set(comm, pairs, working_set_sizes) if working_set_sizes else []
    machine_kind = "inter_node" if "inter_node" in pairs else "intra_node"
    cpu = measure_runtime_cpu(comm, pairs[machine_kind])
    leaders = node_layout(comm)
    nodes = len(set(leaders))
    per_node = max(leaders.count(own) for own in set(leaders))
    library = mpi_library()
    date = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d")
    hostname = socket.gethostname()
    run = command if command is not None else " ".join(sys.argv)
    source = f"calibration on {hostname}, {library}, {date}, command: {run}"
    slug = re.sub(r"[^a-z0-9-]+", "-", hostname.lower()).strip("-") or "host"
    base = name or f"calibrated-{slug}"[:64].rstrip("-")
    ranks = comm.Get_size()

    def machine_of(kind: str, machine_name: str, what: str) -> dict[str, Any]:
        a, b = pairs[kind]["peers"]
        network, host = _link_costs(pairs[kind], f"{source}; ranks {a} and {b}")
        host.update(_host_rates(local, f"{source}; rank 0"))
        host.update(_runtime_cpu(cpu, f"{source}; all {ranks} ranks"))
        machine = {
            "format": MACHINE_FORMAT,
            "name": machine_name,
            "description": f"measured by topocoll calibrate on {hostname} ({ranks} ranks{what})",
            "topology": _sourced(
                single_switch(ranks), f"{source}; one switch, a host per rank (assumed)"
            ),
            "network": network,
            "host": host,
        }
        if memory is not None and kind == machine_kind:
            # Nodes of ranks sharing memory, one NIC each, on one switch (at least 2 hosts: a
            # fat tree's least); a single node's ranks never use the network.
            machine["topology"] = _sourced(
                single_switch(max(2, nodes)),
                f"{source}; one switch, a host per node ({nodes} node(s) measured; assumed)",
            )
            machine["nodes"] = _node_section(memory, per_node, pairs["intra_node"], source)
        if by_size:
            machine["working_set"] = _working_set_section(
                by_size, kind, "nodes" in machine, f"{source}; ranks {a} and {b}"
            )
        return machine

    if "inter_node" not in pairs:
        return machine_of("intra_node", base, ""), None
    machine = machine_of("inter_node", base, "; a pair on different nodes")
    if "intra_node" not in pairs:
        return machine, None
    intra = machine_of("intra_node", base[:53].rstrip("-") + "-intra-node", "; a pair on one node")
    return machine, intra


def calibrate(
    comm: Any,
    *,
    name: str | None = None,
    command: str | None = None,
    loggp_options: dict[str, Any] | None = None,
    host_options: dict[str, Any] | None = None,
    node_options: dict[str, Any] | None = None,
    working_set_sizes: tuple[int, ...] = WORKING_SET_SIZES,
) -> dict[str, Any]:
    """The first machine of calibrate_all: from a pair on different nodes when the ranks span
    nodes, else from a pair on one node. Collective; every rank gets the same dict."""
    machine, _ = calibrate_all(
        comm,
        name=name,
        command=command,
        loggp_options=loggp_options,
        host_options=host_options,
        node_options=node_options,
        working_set_sizes=working_set_sizes,
    )
    return machine
