"""Simulating a schedule on a network: `topocoll.simulate` returns a plain dataclass that converts
to rows (a list of dicts: `csv.DictWriter` or `pandas.DataFrame(result.rows())`); `Network` is
the topology, router and schedules that `topocoll.compare` (comparison.py) reuses across runs.

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

The binding computes size, goodput and peak from the engine's run, in one place
(src/bindings/simulator.cpp, `simulate_config`); `Setup.sim_config` is the one object that
carries a run's configuration to the engine.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass, field, fields, replace

from topocoll import _core, limits, parameters, working_set
from topocoll.collectives import CHUNKED, REDUCING, ROOTED
from topocoll.errors import InputError
from topocoll.formats.schedule_files import read_schedule_file
from topocoll.machine import datatype_class, load_machine
from topocoll.shapes import MAX_RANKS, format_dims, parse_dims, product

MODELS = ("analytic", "flow", "packet", "simgrid")
# Topology kinds whose hosts reach the network through a NIC (`--nic-ports` cables to the
# switch); direct networks have one cable per port, graph files give every link.
NIC_PORT_KINDS = ("fattree", "dragonfly", "dragonfly+")
# Topologies with global links, where --global-load applies (docs/simulator.md, "Background load")
GLOBAL_LINK_KINDS = ("dragonfly", "dragonfly+")
MAX_PORTS: int = _core.MAX_PORTS  # as the schedule reader: more is no machine
# The packet model moves about ranks x size / mtu packets (twice that for allreduce); past 2^30
# it is refused even with --force: no run of it was ever checked that far.
MAX_PACKETS = 1 << 30


def is_baseline(algorithm: str) -> bool:
    """Whether the registry marks `algorithm` as a state-of-the-art baseline that the papers
    compare their algorithms against (compare's gain)."""
    return algorithm in _baselines()


# Where the registry's `paper` field says an algorithm departs from its paper: topocoll's own
# variant of a paper's algorithm (bucket-balanced, the fold variants), not the paper's.
_OWN_VARIANT_MARKS = ("are ours", "not the paper's")


def origin(algorithm: str) -> str:
    """Where an algorithm comes from: "baseline" (the state of the art the papers compare
    against), "variant" (topocoll's own variant of a paper's algorithm), "paper" (a paper's
    algorithm) or "file" (a schedule file, not in the registry)."""
    info = _registry().get(algorithm)
    if info is None:
        return "composition" if algorithm in composition_infos() else "file"
    if info["baseline"]:
        return "baseline"
    return "variant" if any(m in info["paper"] for m in _OWN_VARIANT_MARKS) else "paper"


@functools.cache
def _registry() -> dict[str, dict]:
    return algorithm_infos()


@functools.cache
def _baselines() -> frozenset[str]:
    return frozenset(name for name, info in algorithm_infos().items() if info["baseline"])


def parse_size(value: int | str, what: str = "--size") -> int:
    """Bytes of a size: an int or a string with a unit, 1 B to 1 TiB (parameters.py)."""
    if isinstance(value, float) and not math.isfinite(value):
        # A value, not a type, that is wrong: ValueError, as for every other infinite number.
        raise InputError(f"{what} {value} is not a finite number of bytes; accepted: 1B to 1TiB")
    return int(parameters.number("size", value, what))


# The `--params` presets and the machine file each one is the link-only part of. The values stay
# those of src/topology/params.cpp: the machine files give the same values as text ("100ns"),
# which the unit parser turns into doubles one rounding away (1.0000000000000001e-07), and the
# presets' results must not move (tests/python/test_machine.py checks the two agree).
PRESET_MACHINES = {"swing": "swing-sst", "trivance": "trivance-sst", "canary": "canary"}


def preset_params(name: str) -> _core.NetworkParams:
    """The link-only parameters of preset `name`: the network values and step overhead of its
    machine file (PRESET_MACHINES), no host costs and no reduction cost."""
    name = parameters.text("params (preset)", name)
    if name not in PRESET_MACHINES:
        raise InputError(
            f"unknown parameter preset '{name}'; accepted: {', '.join(PRESET_MACHINES)} (or "
            "--machine for a whole machine)"
        )
    return _core.network_preset(name)


# Host-cost options: (keyword, the field of HostCosts, the parameter of the table).
HOST_OPTIONS = (
    ("send_overhead", "send_overhead_s"),
    ("recv_overhead", "recv_overhead_s"),
    ("gap", "gap_s"),
    ("step_cpu", "step_cpu_s"),
    ("call_overhead", "call_overhead_s"),
    ("rendezvous_overhead", "rendezvous_s"),
)


def _host_overrides(
    host: _core.HostCosts,
    values: dict[str, object],
) -> _core.HostCosts:
    for name, field_name in HOST_OPTIONS:
        if values.get(name) is not None:
            setattr(host, field_name, parameters.number(name, values[name]))
    # Rates whose field is the inverse; 'none': free. O as a rate has copy_rate's range (a
    # processor touching memory), as the C++ check (src/topology/parameter_ranges.cpp) gives it.
    rates = (("copy_rate", "copy_s_per_byte", None), ("overhead_rate", "overhead_s_per_byte",
             "--overhead-rate"))  # fmt: skip
    for name, field_name, option in rates:
        rate = values.get(name)
        if rate is not None:
            none = isinstance(rate, str) and rate.strip() == "none"
            per_byte = 0.0 if none else 1.0 / parameters.number("copy_rate", rate, option)
            setattr(host, field_name, per_byte)
    eager = values.get("eager_threshold")
    if eager is not None:  # 'none': every message is eager
        none = isinstance(eager, str) and eager.strip() == "none"
        host.eager_threshold_bytes = (
            _core.ALWAYS_EAGER if none else int(parameters.number("eager_threshold", eager))
        )
    return host


def network_params(
    preset: str | None = None,
    *,
    machine: str | _core.Machine | None = None,
    datatype: str = "float",
    bandwidth: float | str | None = None,
    latency: float | str | None = None,
    hop_latency: float | str | None = None,
    alpha: float | str | None = None,
    reduce_cost: float | str | None = None,
    nic_ports: int | str | None = None,
    send_overhead: float | str | None = None,
    recv_overhead: float | str | None = None,
    gap: float | str | None = None,
    step_cpu: float | str | None = None,
    call_overhead: float | str | None = None,
    copy_rate: float | str | None = None,
    overhead_rate: float | str | None = None,
    eager_threshold: int | str | None = None,
    rendezvous_overhead: float | str | None = None,
) -> _core.NetworkParams:
    """Network and host parameters: a machine (a shipped name, a machine file's path or a
    loaded `_core.Machine`, with its reduction rate for `datatype`) or a link-only preset
    (`swing`, `trivance`, `canary`; default `swing`, no host costs), with single overrides.
    Numbers are SI (bytes/s, seconds); strings take units (`400Gbps`, `100ns`). `reduce_cost`
    is the time to reduce one received byte; `step_cpu` and `call_overhead` are the MPI runtime's
    CPU time per step of a lane and per call; `rendezvous_overhead` is the receiver's CPU time per
    message above `eager_threshold`; `overhead_rate` is LogGOPS's O as bytes per second
    of CPU time per byte sent and received; `copy_rate`, `overhead_rate` and `eager_threshold`
    also take 'none' (free, every message eager). Ranges: docs/simulator.md, "Parameter ranges"."""
    if machine is not None and preset is not None:
        raise InputError(
            "--params and --machine both give the parameters; accepted: one of them (--params "
            "is the link-only preset of a machine file)"
        )
    if machine is not None:
        if not isinstance(machine, _core.Machine):
            machine = load_machine(machine)
        params = machine.params_for(datatype_class(datatype))
    else:
        datatype_class(datatype)
        params = preset_params("swing" if preset is None else preset)
    overrides = {
        "bandwidth_bytes_per_s": ("bandwidth", bandwidth),
        "link_latency_s": ("latency", latency),
        "hop_latency_s": ("hop_latency", hop_latency),
        "alpha_s": ("alpha", alpha),
        "reduce_s_per_byte": ("reduce_cost", reduce_cost),
        "nic_ports": ("nic_ports", nic_ports),
    }
    for field_name, (name, value) in overrides.items():
        if value is not None:
            setattr(params, field_name, parameters.number(name, value))
    host = {"send_overhead": send_overhead, "recv_overhead": recv_overhead, "gap": gap}
    host |= {"step_cpu": step_cpu, "call_overhead": call_overhead}
    host |= {"copy_rate": copy_rate, "overhead_rate": overhead_rate}
    host |= {"eager_threshold": eager_threshold, "rendezvous_overhead": rendezvous_overhead}
    params.host = _host_overrides(params.host, host)
    return params


def algorithm_infos() -> dict[str, dict]:
    return {a["name"]: a for a in _core.algorithms()}


@functools.cache
def _composition_list() -> tuple[dict, ...]:
    return tuple(_core.compositions())


def composition_infos() -> dict[str, dict]:
    """Every composition FORM:INNER (docs/hierarchical.md), as `algorithm_infos` gives the flat
    algorithms, with its `form` and `inner`."""
    return {a["name"]: dict(a) for a in _composition_list()}


def all_infos() -> dict[str, dict]:
    """The flat algorithms and the compositions."""
    return algorithm_infos() | composition_infos()


# NodeSpec's fields that Setup.nodes carries (intra_host apart: HostCosts, as pairs).
_NODE_FIELDS = (
    "ranks_per_node",
    "mapping",
    "fabric",
    "fabric_bandwidth",
    "memory_bandwidth",
    "nic_bandwidth",
    "fabric_latency",
    "nics",
)
_HOST_COST_FIELDS = (
    "send_overhead_s",
    "recv_overhead_s",
    "gap_s",
    "step_cpu_s",
    "call_overhead_s",
    "rendezvous_s",
    "copy_s_per_byte",
    "overhead_s_per_byte",
    "eager_threshold_bytes",
)
# --mapping values that place ranks on nodes (docs/nodes.md, "Placement"); "linear" is block.
NODE_MAPPINGS = ("block", "cyclic", "file:PATH")


def _node_pairs(spec: _core.NodeSpec) -> tuple[tuple[str, object], ...]:
    pairs: list[tuple[str, object]] = [(name, getattr(spec, name)) for name in _NODE_FIELDS]
    if spec.intra_host is not None:
        host = tuple((name, getattr(spec.intra_host, name)) for name in _HOST_COST_FIELDS)
        pairs.append(("intra_host", host))
    return tuple(pairs)


def node_spec(
    machine: _core.Machine | None, ranks_per_node: int | None, mapping: str
) -> _core.NodeSpec | None:
    """The nodes of a run (docs/nodes.md): the machine's `nodes` section as the base, K from
    `ranks_per_node` over it (the defaults of docs/nodes.md, the topology's hosts as NICs, where
    the machine has none); None without either. `mapping` places the ranks on the nodes."""
    spec = machine.nodes if machine is not None else None
    if spec is None and ranks_per_node in (None, 1):
        return None  # K = 1 without a machine's nodes: the plain network, as without K
    if ranks_per_node is not None:
        high = _core.MAX_RANKS_PER_NODE
        k = parameters.count("ranks_per_node", ranks_per_node, f"1..{high}")
        if not 1 <= k <= high:
            raise InputError(f"--ranks-per-node {k} is out of range; accepted: 1..{high}")
        spec = spec or _core.NodeSpec()
        spec.ranks_per_node = k
    if spec is None:
        return None
    if mapping != "linear":
        if mapping not in ("block", "cyclic") and not mapping.startswith("file:"):
            raise InputError(
                f"--mapping {mapping} does not place ranks on nodes; accepted with nodes: "
                f"{', '.join(NODE_MAPPINGS)}"
            )
        spec.mapping = mapping
    _core.check_node_spec(spec)
    return spec


# The packet model's defaults (docs/simulator-packet.md); their ranges are in the table.
PACKET_DEFAULTS = {"mtu": 4096, "header": 0, "buffer": 64 << 10}


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
    values = {
        name: PACKET_DEFAULTS[name] if value is None else int(parameters.number(name, value))
        for name, value in given.items()
    }
    packet = values["mtu"] + values["header"]
    if values["buffer"] < packet:
        raise InputError(
            f"--buffer {values['buffer']} B is out of range; accepted: one packet "
            f"(mtu + header = {packet} B) to 1GiB"
        )
    return values["mtu"], values["header"], values["buffer"]


def global_load_value(model: str, topology: str, load: float | str | None) -> float:
    """--global-load: the fraction (0 to 0.99) of every global link's capacity that other jobs
    take, flow model on a Dragonfly or Dragonfly+ only; 0.0 where None."""
    if load is None:
        return 0.0
    high = _core.MAX_GLOBAL_LOAD
    accepted = f"accepted: a fraction from 0 to {high}"
    if isinstance(load, str):
        try:
            load = float(load.strip())
        except ValueError:
            raise InputError(f"--global-load {load!r} is not a number; {accepted}") from None
    elif isinstance(load, bool) or not isinstance(load, numbers.Real):
        raise TypeError(f"--global-load must be a number, not {type(load).__name__}")
    load = float(load)
    if not 0.0 <= load <= high:  # also NaN
        raise InputError(f"--global-load {load} is out of range; {accepted}")
    if model != "flow":
        raise InputError("--global-load applies to the flow model only; accepted: --model flow")
    if topology_kind(topology) not in GLOBAL_LINK_KINDS:
        raise InputError(
            f"--global-load does not apply to {topology} (it has no global links); accepted: a "
            f"topology of kind {', '.join(GLOBAL_LINK_KINDS)}"
        )
    return load


def _root_does_not_apply(collective: str) -> str:
    return (
        f"--root does not apply to {collective}; accepted: --root with a rooted collective "
        f"({', '.join(sorted(ROOTED))})"
    )


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
    global_load: float = 0.0  # flow model: share of each global link taken by other jobs
    # (label, path) of schedule files (JSON or MSCCL XML) run beside the registry's algorithms
    schedule_files: tuple[tuple[str, str], ...] = ()
    # each send range its own message (SimConfig::message_per_range), not one message per send
    message_per_range: bool = False
    # the call passes MPI_IN_PLACE (SimConfig::in_place): the runtime's copies of an
    # out-of-place call outside the schedule are not charged (docs/host-costs.md)
    in_place: bool = False
    machine: str = ""  # the machine's name when a machine file gave the parameters
    # NodeSpec's fields as pairs (docs/nodes.md); () : one rank per host, no node model
    nodes: tuple[tuple[str, object], ...] = ()
    # the machine's rates by working set (working_set.Points); () : the same rates at every size
    working_set: working_set.Points = ()

    @property
    def ranks_per_node(self) -> int:
        """K: the ranks of one node (1 without nodes)."""
        return int(dict(self.nodes).get("ranks_per_node", 1))

    def at_working_set(self, nbytes: int) -> Setup:
        """This setup with the rates of its working-set table at a vector of `nbytes` (itself
        without a table): the table's fields replace those of the parameters and of the nodes."""
        if not self.working_set:
            return self
        rates = working_set.rates_at(self.working_set, nbytes)
        params = dict(self.params) | {
            k: v for k, v in rates.items() if k in working_set.PARAM_FIELDS
        }
        nodes = tuple(
            (name, rates.get(name, value) if name in working_set.NODE_FIELDS else value)
            for name, value in self.nodes
        )
        return replace(self, params=tuple(sorted(params.items())), nodes=nodes, working_set=())

    def node_spec(self) -> _core.NodeSpec | None:
        if not self.nodes:
            return None
        spec = _core.NodeSpec()
        for name, value in self.nodes:
            if value is None:  # unset optional: NodeSpec's own default
                continue
            if name == "intra_host":
                host = _core.HostCosts()
                for host_field, host_value in value:
                    setattr(host, host_field, host_value)
                value = host
            setattr(spec, name, value)
        return spec

    def network_params(self) -> _core.NetworkParams:
        p = _core.NetworkParams()
        host = _core.HostCosts()
        for name, value in self.params:
            if name == "eager_threshold_bytes":
                host.eager_threshold_bytes = _core.ALWAYS_EAGER if value < 0 else int(value)
            elif name in _HOST_FIELDS:
                setattr(host, name, value)
            else:
                setattr(p, name, int(value) if name == "nic_ports" else value)
        p.host = host
        return p

    def sim_config(
        self, vector_bytes: int, links: bool = False, trace: str | None = None
    ) -> _core.SimConfig:
        """The engine's configuration of one run (src/sim/simulate.hpp, SimConfig), whole: the
        one object the binding takes."""
        config = _core.SimConfig()
        config.model = self.model
        config.vector_bytes = vector_bytes
        config.record_links = links
        config.trace_path = trace or ""
        config.mtu, config.header, config.buffer = self.packet
        config.global_load = self.global_load
        config.message_per_range = self.message_per_range
        config.in_place = self.in_place
        return config


_HOST_FIELDS = (
    "send_overhead_s",
    "recv_overhead_s",
    "gap_s",
    "step_cpu_s",
    "call_overhead_s",
    "rendezvous_s",
    "copy_s_per_byte",
    "overhead_s_per_byte",
    "lent_copy_s_per_byte",
    "lent_reduce_s_per_byte",
)


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
        # With nodes, the engines run on the node model (docs/nodes.md): rank slots as hosts,
        # the network's hosts as NICs. A spec that changes nothing leaves the network as is.
        self.nodes: _core.NodeNetwork | None = None
        spec = setup.node_spec()
        if spec is not None:
            nodes = _core.NodeNetwork(self.topology, self.router, spec)
            if nodes.has_nodes:
                self.nodes = nodes
                self.topology, self.router = nodes.topology, nodes.router
        hosts = self.topology.hosts
        self.ranks = setup.ranks or hosts
        if not 2 <= self.ranks <= hosts:
            slots = f"{hosts} rank slots" + (
                f", nodes of {spec.ranks_per_node} ranks" if self.nodes else ""
            )
            raise InputError(
                f"ranks {self.ranks} out of range for {setup.topology} ({slots}); accepted: "
                f"2..{hosts}, or a topology with more hosts (--topology)"
            )
        if setup.root and setup.collective not in ROOTED:
            raise InputError(_root_does_not_apply(setup.collective))
        if not 0 <= setup.root < self.ranks:
            raise InputError(f"--root {setup.root} is out of range; accepted: 0..{self.ranks - 1}")
        self._infos = all_infos()
        self._schedules: dict[str, _core.Schedule] = {}
        self._mapping: _core.Mapping | None = None  # placed once, at the first run
        self._sized: dict[Setup, Network] = {}  # per working set's rates (at_working_set)
        for label, path in setup.schedule_files:
            self.add_schedule(label, read_schedule_file(path))

    def add_schedule(self, label: str, schedule: _core.Schedule) -> None:
        """Runs `schedule` (read from a file) under `label`; it must be of this network's
        collective and rank count."""
        info = schedule.info
        if info["collective"] != self.setup.collective or info["ranks"] != self.ranks:
            raise InputError(
                f"{label} is a {info['collective']} of {info['ranks']} ranks; accepted: a "
                f"{self.setup.collective} of {self.ranks} ranks (this comparison's)"
            )
        self._schedules[label] = schedule
        self._infos[label] = {
            "family": "file",
            "collectives": [info["collective"]],
            "requirements": {"torus": False},
        }

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
            flat = sorted(a for a in self._infos if ":" not in a)
            forms = [f"{f['name']}:INNER" for f in _core.composition_forms()]
            raise InputError(
                f"unknown algorithm '{algorithm}'; accepted: {', '.join(flat + forms)} "
                "(`topocoll algorithms`)"
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
                self.setup.ranks_per_node,
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

    def mapping(self) -> _core.Mapping:
        """The hosts of the ranks (--mapping), placed once for every run on this network."""
        if self._mapping is None and self.nodes is not None:
            self._mapping = self.nodes.mapping(self.ranks)  # the node spec's placement
        if self._mapping is None:
            self._mapping = _core.place(self.setup.mapping, self.ranks, self.topology)
        return self._mapping

    def estimate(self, algorithm: str, size: int, trace: bool = False, search: bool = True) -> dict:
        """The counts a run's work and memory grow with (`_core.estimate_simulation`);
        `search`: run the flow model's symmetry search where it is small enough."""
        engine_bytes, _ = self.vector_bytes(size)
        config = self.setup.sim_config(engine_bytes, trace="trace" if trace else None)
        return _core.estimate_simulation(
            self.schedule(algorithm),
            self.topology,
            self.router,
            self.mapping(),
            config,
            search=search,
        )

    def cost(
        self, algorithm: str, size: int, estimate: dict | None = None, search: bool = True
    ) -> limits.SimulationCost:
        """What running `algorithm` at `size` will cost (limits.simulation_cost)."""
        mtu, header, buffer = self.setup.packet
        return limits.simulation_cost(
            estimate or self.estimate(algorithm, size, search=search),
            self.setup.model,
            links=self.topology.link_count,
            nodes=self.topology.nodes,
            graph=topology_kind(self.setup.topology) == "graph",
            buffer_packets=buffer // (mtu + header),
        )

    def check_limits(
        self,
        algorithm: str,
        size: int,
        force: bool,
        trace: str | None = None,
        search: bool = True,
    ):
        """Refuses a run beyond the machine or about ten minutes (limits.check_simulation),
        a packet run of more than MAX_PACKETS packets and a trace the writer cannot hold.
        `search`: let the estimate run the flow model's symmetry search (see estimate)."""
        schedule = self.schedule(algorithm)
        _, whole = self.vector_bytes(size)
        if self.setup.model == "packet":
            mtu = self.setup.packet[0]
            packets = schedule.info["ranks"] * -(-whole // mtu)
            if packets > MAX_PACKETS:
                raise InputError(
                    f"the packet model would move about {packets} packets (ranks x size / mtu);"
                    f" accepted: up to {MAX_PACKETS} (a larger --mtu or a smaller --size)"
                )
        estimate = self.estimate(algorithm, size, trace=bool(trace), search=search)
        if trace and estimate["messages"] > _core.MAX_TRACE_MESSAGES:
            raise InputError(
                f"--trace: the run sends about {estimate['messages']:,.0f} messages; accepted: "
                f"up to {_core.MAX_TRACE_MESSAGES:,} in a trace (trace a smaller run)"
            )
        cost = self.cost(algorithm, size, estimate)
        limits.check_simulation(cost, force, f"simulating {algorithm} at {size:,} B")
        return cost

    def at_working_set(self, size: int) -> Network:
        """The network with the machine's rates at a vector of `size` bytes (Setup.at_working_set;
        itself without a table), built once per set of rates; it shares this one's schedules."""
        sized = self.setup.at_working_set(size)
        if sized is self.setup:
            return self
        if sized not in self._sized:
            network = Network(sized)
            network._infos, network._schedules = self._infos, self._schedules
            self._sized[sized] = network
        return self._sized[sized]

    def run(
        self, algorithm: str, size: int, links: bool = False, trace: str | None = None
    ) -> SimResult:
        sized = self.at_working_set(size)
        if sized is not self:
            return sized.run(algorithm, size, links, trace)
        schedule = self.schedule(algorithm)
        engine_bytes, _ = self.vector_bytes(size)
        config = self.setup.sim_config(engine_bytes, links, trace)
        raw = _core.simulate(schedule, self.topology, self.router, self.mapping(), config)
        info = schedule.info
        # Size, goodput and peak as the binding defines them (src/bindings/simulator.cpp).
        goodput, peak = raw["goodput_gbps"], raw["peak_goodput_gbps"]
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
            size_bytes=raw["size_bytes"],
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
            global_load=self.setup.global_load,
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
    # share of each global link's capacity taken by other jobs (--global-load; 0: alone)
    global_load: float = 0.0
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


def _dims(dims: Sequence[int] | str | None) -> tuple[int, ...]:
    if dims is None:
        return ()
    if isinstance(dims, str):
        return tuple(parse_dims(dims))
    if not isinstance(dims, Sequence):
        raise TypeError(
            f"dims must be a string such as '4x4' or a list of ints, not {type(dims).__name__}"
        )
    sizes = tuple(parameters.count("dims", d, "sizes >= 1") for d in dims)
    return tuple(parse_dims("x".join(str(d) for d in sizes))) if sizes else ()


def _optional_count(name: str, value: int | None, low: int, high: int, omit: str) -> int:
    """0 for None (the default); else an int in [low, high] (`omit` tells the accepted values
    when it starts with a digit, else how to get the default)."""
    if value is None:
        return 0
    accepted = omit if omit[:1].isdigit() else f"{low}..{high} ({omit})"
    value = parameters.count(name, value, accepted)
    if not low <= value <= high:
        raise InputError(f"{name} {value} is out of range; accepted: {accepted}")
    return value


def input_files(setup: Setup) -> dict[str, str]:
    """The files a run reads: the graph file of `graph:FILE` and a mapping file."""
    files = {}
    if topology_kind(setup.topology) == "graph":
        files["graph file"] = setup.topology.split(":", 1)[1]
    spec = setup.node_spec()
    if spec is not None and spec.mapping.startswith("file:"):
        files["node mapping file"] = spec.mapping[len("file:") :]
    elif setup.mapping.startswith("file:"):
        files["mapping file"] = setup.mapping[len("file:") :]
    elif setup.mapping != "linear" and not setup.mapping.startswith("random:"):
        files["mapping file"] = setup.mapping
    return {what: path for what, path in files.items() if path}


def check_outputs(setup: Setup, links: str | bool | None, trace: str | None) -> None:
    """The outputs of one run: the models that have them, and the files (parameters.outputs)."""
    if setup.model == "simgrid":
        for option, value in (("--links", links), ("--trace", trace)):
            if value:
                raise InputError(
                    f"{option} is not available with the simgrid model (it reports the "
                    "completion times only); accepted: --model analytic, flow or packet"
                )
    named = {"--trace": trace}
    if isinstance(links, str):
        named["--links"] = links
    parameters.outputs(named, input_files(setup))


def topology_kind(topology: str) -> str:
    """`fattree` of `fattree:canary`: the kind before the first ':'."""
    return topology.split(":", 1)[0]


def make_setup(
    topology: str | None,
    collective: str,
    *,
    model: str = "flow",
    routing: str = "minimal",
    mapping: str = "linear",
    params: str | None = None,
    machine: str | None = None,
    datatype: str = "float",
    send_overhead: float | str | None = None,
    recv_overhead: float | str | None = None,
    gap: float | str | None = None,
    step_cpu: float | str | None = None,
    call_overhead: float | str | None = None,
    copy_rate: float | str | None = None,
    overhead_rate: float | str | None = None,
    eager_threshold: int | str | None = None,
    rendezvous_overhead: float | str | None = None,
    message_per_range: bool = False,
    in_place: bool = False,
    bandwidth: float | str | None = None,
    latency: float | str | None = None,
    hop_latency: float | str | None = None,
    alpha: float | str | None = None,
    reduce_cost: float | str | None = None,
    nic_ports: int | str | None = None,
    ranks: int | None = None,
    dims: Sequence[int] | str | None = None,
    ports: int | None = None,
    root: int | None = None,
    mtu: int | str | None = None,
    header: int | str | None = None,
    buffer: int | str | None = None,
    global_load: float | str | None = None,
    ranks_per_node: int | None = None,
) -> Setup:
    """Every option of `sim`, `compare` and `tune` (and of their Python functions) checked in
    one place: types, ranges (docs/simulator.md, "Parameter ranges") and whether the option
    applies to the topology, the model and the collective. None means the default: every host
    (`ranks`), the algorithm's own port count (`ports`), root 0 (`root`), the machine's topology
    (`topology`, when `machine` is given). `machine` (a shipped name or a machine file) is the
    base of the parameters, `params` a link-only preset; single options override single
    values. `datatype` picks the machine's reduction rate (docs/host-costs.md). `ranks_per_node`
    (K) runs the node model of docs/nodes.md over the machine's `nodes` section, or over its
    defaults; with nodes, `mapping` is block (also for "linear"), cyclic or file:PATH."""
    loaded = None
    if machine is not None:
        loaded = load_machine(parameters.text("machine", machine))
    if topology is None:
        if loaded is None or loaded.topology is None:
            given = f"machine '{loaded.name}' gives none" if loaded else "no --machine gives one"
            raise InputError(f"--topology is required ({given}); accepted: a topology spec")
        topology = loaded.topology
    topology = parameters.text("topology", topology)
    _check_collective(parameters.text("collective", collective))
    _check_model(parameters.text("model", model))
    routing = parameters.text("routing", routing)
    mapping = parameters.text("mapping", mapping)
    nodes = node_spec(loaded, ranks_per_node, mapping)
    packet = packet_params(model, mtu, header, buffer)
    load = global_load_value(model, topology, global_load)
    if nic_ports is not None and topology_kind(topology) not in NIC_PORT_KINDS:
        raise InputError(
            f"--nic-ports does not apply to {topology} (it sets the host-to-switch cables); "
            f"accepted: a topology of kind {', '.join(NIC_PORT_KINDS)}"
        )
    if root is not None and collective not in ROOTED:
        raise InputError(_root_does_not_apply(collective))
    if reduce_cost is not None and collective not in REDUCING:
        raise InputError(
            f"--reduce-cost does not apply to {collective} (it reduces nothing); accepted: "
            f"--reduce-cost with {', '.join(sorted(REDUCING))}"
        )
    net = network_params(
        params,
        machine=loaded,
        datatype=parameters.text("datatype", datatype),
        send_overhead=send_overhead,
        recv_overhead=recv_overhead,
        gap=gap,
        step_cpu=step_cpu,
        call_overhead=call_overhead,
        copy_rate=copy_rate,
        overhead_rate=overhead_rate,
        eager_threshold=eager_threshold,
        rendezvous_overhead=rendezvous_overhead,
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
        ranks=_optional_count("--ranks", ranks, 2, MAX_RANKS, "omit it for every host"),
        dims=_dims(dims),
        ports=_optional_count(
            "--ports", ports, 1, MAX_PORTS, "omit it for the algorithm's default"
        ),
        root=_optional_count("--root", root, 0, MAX_RANKS - 1, "0..P-1"),
        packet=packet,
        global_load=load,
        message_per_range=parameters.flag("message_per_range", message_per_range),
        in_place=parameters.flag("in_place", in_place),
        machine=loaded.name if loaded else "",
        nodes=_node_pairs(nodes) if nodes is not None else (),
        working_set=_working_set_points(
            loaded, datatype, bandwidth=bandwidth, copy_rate=copy_rate, reduce_cost=reduce_cost
        ),
    )


def _working_set_points(
    machine: _core.Machine | None, datatype: str, **overrides: object
) -> working_set.Points:
    """The machine's rates by working set for one run: its datatype's reduction rate, less what
    a single option gives (an option wins over the table as over any machine value)."""
    if machine is None or not machine.working_set:
        return ()
    fields = {"bandwidth": "bandwidth_bytes_per_s", "copy_rate": "copy_s_per_byte"}
    fields["reduce_cost"] = "reduce_s_per_byte"
    overridden = {fields[name] for name, value in overrides.items() if value is not None}
    return working_set.points_for(machine.working_set, datatype_class(datatype), overridden)


def simulate(
    topology: str | None,
    collective: str,
    algorithm: str,
    size: int | str,
    *,
    links: bool = False,
    trace: str | None = None,
    force: bool = False,
    **options,
) -> SimResult:
    """Simulates `algorithm` for `collective` on `topology` (a spec such as `torus:8x8`) with a
    vector of `size` bytes (`"1MiB"` or an int); `topology` may be None when `machine` gives
    one. Options: model, routing, mapping, machine (a shipped name or a machine file), datatype
    (the machine's reduction rate), params (link-only preset), bandwidth, latency, hop_latency,
    alpha, reduce_cost, nic_ports, send_overhead, recv_overhead, gap, step_cpu, call_overhead,
    copy_rate, overhead_rate, eager_threshold, rendezvous_overhead, message_per_range, in_place
    (no copies of an out-of-place call), ranks, dims, ports, root, ranks_per_node (nodes of K
    ranks, docs/nodes.md), for model="packet" mtu, header, buffer, and for model="flow" on a
    Dragonfly global_load (see `make_setup`). Raises
    ValueError naming the accepted values, also for a run estimated beyond this machine's
    memory or about ten minutes (limits.py) unless `force`."""
    setup = make_setup(topology, collective, **options)
    links = parameters.flag("links", links)
    trace = parameters.path("trace", trace)
    check_outputs(setup, links, trace)
    network = Network(setup)
    algorithm, size = parameters.text("algorithm", algorithm), parse_size(size)
    network.check_limits(algorithm, size, parameters.flag("force", force), trace)
    return network.run(algorithm, size, links=links, trace=trace)


def simulate_sizes(
    topology: str | None,
    collective: str,
    algorithm: str,
    sizes: Sequence[int | str],
    *,
    force: bool = False,
    **options,
) -> list[SimResult]:
    """`simulate` at each of `sizes` (a list of ints or strings such as "1MiB"), in order, on
    one network: the topology, its router, the mapping and the schedule are built once, where a
    small run costs about as much as building them (Bine's Table 3 at small scale: 14 s this
    way, 28 s with `simulate` per size, the same results). The same options and checks as
    `simulate`, without `links` and `trace`."""
    if isinstance(sizes, str | bytes) or not isinstance(sizes, Sequence):
        raise InputError(
            f"sizes must be a list of sizes, not {type(sizes).__name__}; accepted: e.g. "
            "[1024, '1MiB']"
        )
    setup = make_setup(topology, collective, **options)
    check_outputs(setup, False, None)
    network = Network(setup)
    algorithm, force = parameters.text("algorithm", algorithm), parameters.flag("force", force)
    results = []
    for size in sizes:
        size = parse_size(size)
        network.check_limits(algorithm, size, force)
        results.append(network.run(algorithm, size))
    return results
