"""topocoll: topology-aware collective communication (schedules, verifier, simulator, CLI)."""

from topocoll._core import (
    Schedule,
    accepted_ports,
    algorithms,
    build,
    collectives,
    estimate_verify,
    load_json,
    partition_sizes,
    verify,
)
from topocoll._core import traffic as measure_traffic
from topocoll.comparison import Comparison, compare
from topocoll.simulation import SimResult, network_params, simulate

__all__ = [
    "Comparison",
    "Schedule",
    "SimResult",
    "accepted_ports",
    "algorithms",
    "build",
    "collectives",
    "compare",
    "estimate_verify",
    "load_json",
    "measure_traffic",
    "network_params",
    "partition_sizes",
    "simulate",
    "verify",
]
