"""topocoll: topology-aware collective communication (schedules, verifier, CLI)."""

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

__all__ = [
    "Schedule",
    "accepted_ports",
    "algorithms",
    "build",
    "collectives",
    "estimate_verify",
    "load_json",
    "measure_traffic",
    "partition_sizes",
    "verify",
]
