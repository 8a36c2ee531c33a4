"""topocoll.simulation: the definitions of size, goodput and peak (the module's docstring), on
runs small enough to check by hand, and where an algorithm comes from (paper, topocoll's own
variant, baseline)."""

from __future__ import annotations

import importlib

import pytest
import topocoll
from topocoll import simulation
from topocoll.collectives import bandwidth_factor


def test_the_module_and_the_function_have_different_names():
    assert importlib.import_module("topocoll.simulation") is simulation
    assert topocoll.simulate is simulation.simulate


@pytest.mark.parametrize("collective", ["allreduce", "bcast", "allgather", "reduce-scatter"])
def test_goodput_is_size_times_8_over_time(collective):
    algorithm = "binomial-halving" if collective == "bcast" else "ring"
    r = topocoll.simulate("ring:8", collective, algorithm, "64KiB", model="analytic")
    assert r.size_bytes == 64 << 10  # 8 ranks divide 64 KiB: nothing rounded away
    assert r.time_s > 0
    assert r.goodput_gbps == pytest.approx(r.size_bytes * 8 / r.time_s / 1e9)


def test_a_chunked_size_is_rounded_down_to_whole_chunks():
    r = topocoll.simulate("ring:6", "allgather", "ring", 1000, model="analytic")
    assert r.size_bytes == 996  # 6 chunks of 166 B
    assert r.goodput_gbps == pytest.approx(996 * 8 / r.time_s / 1e9)


def test_peak_is_the_bandwidth_bound_of_the_collective():
    # ring:8 under the swing preset: every host has one link each way to each neighbour.
    r = topocoll.simulate("ring:8", "allreduce", "ring", "1MiB")
    f = 2 * 7 / 8  # allreduce: every rank injects 2(P-1)/P x size
    assert bandwidth_factor("allreduce", 8) == f
    assert r.peak_goodput_gbps == pytest.approx(r.host_bandwidth_gbps / f)
    assert r.peak_percent == pytest.approx(100 * r.goodput_gbps / r.peak_goodput_gbps)
    # The ring allreduce sends 2(P-1)/P x size per rank over one of its two directions at a time
    # on a ring, so it reaches at most half of the peak of both directions.
    assert 0 < r.peak_percent <= 50.0 + 1e-9


@pytest.mark.parametrize(
    ("algorithm", "origin"),
    [
        ("swing-bw", "paper"),
        ("bine-bw-torus", "paper"),
        ("bucket-balanced", "variant"),
        ("swing-bw-fold", "variant"),
        ("trivance-bw-fold", "variant"),
        ("bucket", "baseline"),
        ("recdoub-bw", "baseline"),
        ("file:x.json", "file"),
    ],
)
def test_the_origin_of_an_algorithm_comes_from_the_registry(algorithm, origin):
    assert simulation.origin(algorithm) == origin


def test_simulate_sizes_gives_simulate_at_each_size():
    # One network for every size: the same results as one network per size, in the given order;
    # on a random mapping, which both must place the same way.
    options = dict(machine="lumi", ranks=16, mapping="random:3")
    sizes = [64 << 10, "1KiB", 4 << 20]
    each = simulation.simulate_sizes("dragonfly:lumi", "allreduce", "bine-bw", sizes, **options)
    alone = [simulation.simulate("dragonfly:lumi", "allreduce", "bine-bw", s, **options)
             for s in sizes]  # fmt: skip
    assert [r.size_bytes for r in each] == [64 << 10, 1 << 10, 4 << 20]
    assert [r.to_dict() for r in each] == [r.to_dict() for r in alone]


def test_simulate_sizes_names_a_bad_size():
    with pytest.raises(ValueError, match="size"):
        simulation.simulate_sizes("ring:8", "allreduce", "ring", ["1KiB", "lots"])
    with pytest.raises(ValueError, match="a list of sizes, not str"):
        simulation.simulate_sizes("ring:8", "allreduce", "ring", "1KiB")
