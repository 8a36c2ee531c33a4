"""Simulating a schedule on a network: `topocoll.simulate` returns a plain dataclass that converts
to rows (a list of dicts: `csv.DictWriter` or `pandas.DataFrame(result.rows())`); `Network` is
the topology, router and schedules that `topocoll.compare` (compare.py) reuses across runs.

Sizes: `size` is the largest buffer of the MPI call, in bytes: the vector of allreduce, bcast and
reduce; P x count for the chunked collectives (the receive buffer of allgather and gather, the
send buffer of reduce-scatter, scatter and alltoall). Goodput is size x 8 / time (Gb/s), as the
papers define it.

Peak goodput is the bandwidth bound of the collective: every rank must inject (and eject) at
least f(P) x size bytes, f = 2(P-1)/P for allreduce, (P-1)/P for reduce-scatter, allgather,
alltoall, gather and scatter, 1 for bcast and reduce (the factors of nccl-tests' busbw). With H
the smallest host bandwidth of the job (the smaller of the sum of a host's outgoing and of its
incoming link bandwidths: 2D links on a D-dimensional torus, D on a hypercube, the NIC ports on
switched networks), the bound is f(P) x size / H, and the peak goodput H x 8 / f(P) / 1e9.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field, fields

from topocoll import _core
from topocoll.shapes import InputError, format_dims, parse_dims, product
from topocoll.units import parse_bytes, parse_duration, parse_rate

MODELS = ("analytic", "flow", "packet", "simgrid")
MAX_SIM_BYTES = 1 << 40  # 1 TiB: beyond, byte counts of a whole run overflow the engines' doubles'
# exactness for per-block sizes and no paper goes near it.
CHUNKED = frozenset({"reduce-scatter", "allgather", "gather", "scatter", "alltoall"})
ROOTED = frozenset({"bcast", "reduce", "gather", "scatter"})


def is_baseline(algorithm: str) -> bool:
    """Whether the registry marks `algorithm` as a state-of-the-art baseline that the papers
    compare their algorithms against (compare's gain)."""
    return algorithm in _baselines()


@functools.cache
def _baselines() -> frozenset[str]:
    return frozenset(name for name, info in algorithm_infos().items() if info["baseline"])


def bandwidth_factor(collective: str, ranks: int) -> float:
    """f(P): the bytes every rank must inject or eject, as a multiple of the size."""
    if collective == "allreduce":
        return 2 * (ranks - 1) / ranks
    if collective in ("bcast", "reduce"):
        return 1.0
    return (ranks - 1) / ranks


def parse_size(value: int | str, what: str = "size") -> int:
    size = parse_bytes(value) if isinstance(value, str) else int(value)
    if not 1 <= size <= MAX_SIM_BYTES:
        raise InputError(f"{what} {value!r} is out of range; accepted: 1B to 1TiB")
    return size


def _rate(value: float | str) -> float:
    rate = parse_rate(value) if isinstance(value, str) else float(value)
    if not rate > 0:
        raise InputError(f"bandwidth {value!r} must be positive")
    return rate


def _duration(value: float | str, what: str) -> float:
    seconds = parse_duration(value) if isinstance(value, str) else float(value)
    if not seconds >= 0:
        raise InputError(f"{what} {value!r} must be >= 0")
    return seconds


def network_params(
    preset: str | None = None,
    *,
    bandwidth: float | str | None = None,
    latency: float | str | None = None,
    hop_latency: float | str | None = None,
    alpha: float | str | None = None,
    reduce_cost: float | str | None = None,
    nic_ports: int | None = None,
) -> _core.NetworkParams:
    """Link parameters: a preset (`swing`, `trivance`, ...; default `swing`) with overrides.
    Numbers are SI (bytes/s, seconds); strings take units (`400Gbps`, `100ns`). `reduce_cost`
    is the time to reduce one received byte."""
    params = _core.network_preset(preset or "swing")
    if bandwidth is not None:
        params.bandwidth_bytes_per_s = _rate(bandwidth)
    if latency is not None:
        params.link_latency_s = _duration(latency, "latency")
    if hop_latency is not None:
        params.hop_latency_s = _duration(hop_latency, "hop latency")
    if alpha is not None:
        params.alpha_s = _duration(alpha, "alpha")
    if reduce_cost is not None:
        params.reduce_s_per_byte = _duration(reduce_cost, "reduce cost")
    if nic_ports is not None:
        if not 1 <= int(nic_ports) <= 64:
            raise InputError(f"NIC ports {nic_ports} out of range; accepted: 1..64")
        params.nic_ports = int(nic_ports)
    return params


def algorithm_infos() -> dict[str, dict]:
    return {a["name"]: a for a in _core.algorithms()}


# The packet model's parameters (docs/simulator-packet.md): name -> (default, lowest, highest).
# The buffer's lowest is one packet (mtu + header); the C++ core checks the same ranges.
PACKET_DEFAULTS = {"mtu": 4096, "header": 0, "buffer": 64 << 10}
PACKET_RANGES = {"mtu": (16, 1 << 20, "16B to 1MiB"), "header": (0, 4096, "0B to 4KiB")}
MAX_BUFFER = 1 << 30
# The packet model moves about ranks x size / mtu packets (twice that for allreduce) at some
# millions per second: beyond 2^30 a run would take hours, so it is refused (exit 2).
MAX_PACKETS = 1 << 30


def packet_params(
    model: str,
    mtu: int | str | None = None,
    header: int | str | None = None,
    buffer: int | str | None = None,
) -> tuple[int, int, int]:
    """(mtu, header, buffer) in bytes for the packet model, defaults where None; InputError
    for a value out of range or given to another model."""
    given = {"mtu": mtu, "header": header, "buffer": buffer}
    named = [name for name, value in given.items() if value is not None]
    if named and model != "packet":
        raise InputError(f"--{named[0]} applies to the packet model only; accepted: --model packet")
    values = {}
    for name, value in given.items():
        if value is None:
            values[name] = PACKET_DEFAULTS[name]
            continue
        values[name] = parse_bytes(value) if isinstance(value, str) else int(value)
        if name in PACKET_RANGES:
            low, high, text = PACKET_RANGES[name]
            if not low <= values[name] <= high:
                raise InputError(f"--{name} {value} is out of range; accepted: {text}")
    packet = values["mtu"] + values["header"]
    if not packet <= values["buffer"] <= MAX_BUFFER:
        raise InputError(
            f"--buffer {buffer if buffer is not None else values['buffer']} is out of range; "
            f"accepted: one packet (mtu + header = {packet} B) to 1GiB"
        )
    return values["mtu"], values["header"], values["buffer"]


def _check_collective(collective: str) -> None:
    if collective not in _core.collectives():
        raise InputError(
            f"unknown collective '{collective}'; accepted: {', '.join(_core.collectives())}"
        )


def _check_model(model: str) -> None:
    if model not in MODELS:
        raise InputError(f"unknown model '{model}'; accepted: {', '.join(MODELS)}")


@dataclass(frozen=True)
class Setup:
    """What a run needs besides the algorithm and size; picklable, so that worker processes and
    MPI ranks rebuild the same network from it."""

    topology: str
    collective: str
    model: str = "flow"
    routing: str = "minimal"
    mapping: str = "linear"
    params: tuple[tuple[str, float], ...] = ()
    ranks: int = 0  # 0: every host of the topology
    dims: tuple[int, ...] = ()  # () : the topology's grid shape for torus algorithms
    ports: int = 0
    root: int = 0
    packet: tuple[int, int, int] = (  # mtu, header, buffer bytes: the packet model's
        PACKET_DEFAULTS["mtu"],
        PACKET_DEFAULTS["header"],
        PACKET_DEFAULTS["buffer"],
    )

    def network_params(self) -> _core.NetworkParams:
        p = _core.NetworkParams()
        for name, value in self.params:
            setattr(p, name, int(value) if name == "nic_ports" else value)
        return p


def _params_tuple(params: _core.NetworkParams) -> tuple[tuple[str, float], ...]:
    return tuple(sorted(params.to_dict().items()))


class Network:
    """A topology and its router built once, with the schedules of the algorithms run on it."""

    def __init__(self, setup: Setup) -> None:
        _check_collective(setup.collective)
        _check_model(setup.model)
        self.setup = setup
        self.topology = _core.make_topology(setup.topology, setup.network_params())
        self.router = _core.make_router(self.topology, setup.routing)
        hosts = self.topology.hosts
        self.ranks = setup.ranks or hosts
        if not 2 <= self.ranks <= hosts:
            raise InputError(
                f"ranks {self.ranks} out of range for {setup.topology}; accepted: 2..{hosts}"
            )
        if setup.root and not (setup.collective in ROOTED and 0 <= setup.root < self.ranks):
            raise InputError(
                f"root {setup.root} invalid for {setup.collective}; accepted: 0..{self.ranks - 1}"
                f" for {', '.join(sorted(ROOTED))}"
            )
        self._infos = algorithm_infos()
        self._schedules: dict[str, _core.Schedule] = {}

    def dims_for(self, algorithm: str) -> list[int]:
        """The torus shape given to `algorithm`: --dims if set, else the topology's grid shape
        for torus-aware algorithms when it holds the job, else a ring of the ranks."""
        if self.setup.dims:
            return list(self.setup.dims)
        grid = list(self.topology.grid_dims)
        torus = self._infos[algorithm]["requirements"]["torus"]
        if torus and len(grid) > 1 and product(grid) == self.ranks:
            return grid
        return []

    def info(self, algorithm: str) -> dict:
        if algorithm not in self._infos:
            raise InputError(
                f"unknown algorithm '{algorithm}'; accepted: {', '.join(sorted(self._infos))}"
            )
        return self._infos[algorithm]

    def schedule(self, algorithm: str) -> _core.Schedule:
        """Builds (once) the schedule; ValueError names why the algorithm does not fit."""
        if algorithm not in self._schedules:
            info = self.info(algorithm)
            if self.setup.collective not in info["collectives"]:
                raise InputError(
                    f"{algorithm} does not implement {self.setup.collective}; accepted: "
                    + ", ".join(info["collectives"])
                )
            self._schedules[algorithm] = _core.build(
                algorithm,
                self.setup.collective,
                self.ranks,
                self.dims_for(algorithm),
                self.setup.ports,
                self.setup.root,
                True,
            )
        return self._schedules[algorithm]

    def vector_bytes(self, size: int) -> tuple[int, int]:
        """(bytes given to the engine, bytes the run moves as `size`): chunked collectives get
        the per-rank count, size // P; the whole is then that times P."""
        if self.setup.collective not in CHUNKED:
            return size, size
        if size < self.ranks:
            raise InputError(
                f"size {size} B is smaller than the {self.ranks} chunks of "
                f"{self.setup.collective}; accepted: at least {self.ranks} B (P x count)"
            )
        chunk = size // self.ranks
        return chunk, chunk * self.ranks

    def run(
        self, algorithm: str, size: int, links: bool = False, trace: str | None = None
    ) -> SimResult:
        schedule = self.schedule(algorithm)
        engine_bytes, whole = self.vector_bytes(size)
        if self.setup.model == "packet":
            mtu = self.setup.packet[0]
            packets = schedule.info["ranks"] * -(-whole // mtu)
            if packets > MAX_PACKETS:
                raise InputError(
                    f"the packet model would move about {packets} packets (ranks x size / mtu);"
                    f" accepted: up to {MAX_PACKETS} (a larger --mtu or a smaller --size)"
                )
        raw = _core.simulate(
            schedule,
            self.topology,
            self.router,
            mapping=self.setup.mapping,
            model=self.setup.model,
            vector_bytes=engine_bytes,
            record_links=links,
            trace_path=trace or "",
            mtu=self.setup.packet[0],
            header=self.setup.packet[1],
            buffer=self.setup.packet[2],
        )
        info = schedule.info
        goodput = whole * 8 / raw["time_s"] / 1e9 if raw["time_s"] > 0 else 0.0
        peak = (
            raw["host_bandwidth_bytes_per_s"]
            * 8
            / 1e9
            / bandwidth_factor(self.setup.collective, info["ranks"])
        )
        return SimResult(
            topology=self.setup.topology,
            collective=self.setup.collective,
            algorithm=algorithm,
            family=self._infos[algorithm]["family"],
            model=self.setup.model,
            routing=self.router.name,
            mapping=self.setup.mapping,
            ranks=info["ranks"],
            dims=format_dims(info["dims"]) if info["dims"] else str(info["ranks"]),
            ports=info["ports"],
            root=info["root"],
            size_bytes=whole,
            time_s=raw["time_s"],
            goodput_gbps=goodput,
            peak_goodput_gbps=peak,
            peak_percent=100 * goodput / peak if peak > 0 else 0.0,
            host_bandwidth_gbps=raw["host_bandwidth_bytes_per_s"] * 8 / 1e9,
            messages=raw["messages"],
            transfers=raw["transfers"],
            max_link_utilization=raw["max_link_utilization"],
            mean_link_utilization=raw["mean_link_utilization"],
            symmetry_group=raw["symmetry_group"],
            rank_finish_s=list(raw["rank_finish_s"]),
            links=raw.get("links"),
        )


@dataclass
class SimResult:
    """One simulated run. `rows()` gives one row of its scalar fields (per-link usage is in
    `links` when asked for, per-rank finish times in `rank_finish_s`)."""

    topology: str
    collective: str
    algorithm: str
    family: str
    model: str
    routing: str
    mapping: str
    ranks: int
    dims: str
    ports: int
    root: int
    size_bytes: int
    time_s: float
    goodput_gbps: float
    peak_goodput_gbps: float
    peak_percent: float
    host_bandwidth_gbps: float  # the smallest host bandwidth of the job (in and out)
    messages: int
    transfers: int
    max_link_utilization: float
    mean_link_utilization: float
    # hosts per orbit of the translation symmetry the flow model simulated once (1: none)
    symmetry_group: int = 1
    rank_finish_s: list[float] = field(default_factory=list, repr=False)
    links: list[dict] | None = field(default=None, repr=False)

    def row(self) -> dict:
        return {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name not in ("rank_finish_s", "links")
        }

    def rows(self) -> list[dict]:
        return [self.row()]

    to_rows = rows

    def to_dict(self) -> dict:
        doc = self.row()
        doc["rank_finish_s"] = self.rank_finish_s
        return doc


def make_setup(
    topology: str,
    collective: str,
    *,
    model: str = "flow",
    routing: str = "minimal",
    mapping: str = "linear",  # hamiltonian-rings belongs to family "ring"
    params: str | None = None,
    bandwidth: float | str | None = None,
    latency: float | str | None = None,
    hop_latency: float | str | None = None,
    alpha: float | str | None = None,
    reduce_cost: float | str | None = None,
    nic_ports: int | None = None,
    ranks: int = 0,
    dims: Sequence[int] | str | None = None,
    ports: int = 0,
    root: int = 0,
    mtu: int | str | None = None,
    header: int | str | None = None,
    buffer: int | str | None = None,
) -> Setup:
    _check_collective(collective)
    _check_model(model)
    packet = packet_params(model, mtu, header, buffer)
    if isinstance(dims, str):
        dims = parse_dims(dims)
    if ports < 0:
        raise InputError(f"ports {ports} must be >= 1 (0: the algorithm's default)")
    net = network_params(
        params,
        bandwidth=bandwidth,
        latency=latency,
        hop_latency=hop_latency,
        alpha=alpha,
        reduce_cost=reduce_cost,
        nic_ports=nic_ports,
    )
    return Setup(
        topology=topology,
        collective=collective,
        model=model,
        routing=routing,
        mapping=mapping,
        params=_params_tuple(net),
        ranks=ranks or 0,
        dims=tuple(dims or ()),
        ports=ports,
        root=root,
        packet=packet,
    )


def simulate(
    topology: str,
    collective: str,
    algorithm: str,
    size: int | str,
    *,
    links: bool = False,
    trace: str | None = None,
    **options,
) -> SimResult:
    """Simulates `algorithm` for `collective` on `topology` (a spec such as `torus:8x8`) with a
    vector of `size` bytes (`"1MiB"` or an int). Options: model, routing, mapping, params
    (preset), bandwidth, latency, hop_latency, alpha, reduce_cost, nic_ports, ranks, dims,
    ports, root, and for model="packet" mtu, header, buffer (see `make_setup`). Raises
    ValueError naming the accepted values."""
    network = Network(make_setup(topology, collective, **options))
    return network.run(algorithm, parse_size(size), links=links, trace=trace)
