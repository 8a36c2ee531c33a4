"""Global-link traffic of Bine against binomial trees (bine-trees-sc25.txt sections 2.4, 5.1.1)."""

from __future__ import annotations

import statistics

import pytest
import topocoll
from topocoll.groups import parse_groups, random_allocation

# (collective, binomial baseline, Bine counterpart): the same tree or butterfly, Bine peers.
PAIRS = [
    ("bcast", "binomial-halving", "bine-halving"),
    ("bcast", "binomial-doubling", "bine-doubling"),
    ("reduce", "binomial-halving", "bine-halving"),
    ("gather", "binomial", "bine"),
    ("scatter", "binomial", "bine"),
    ("allreduce", "recdoub-lat", "bine-lat"),
    ("allreduce", "recdoub-bw", "bine-bw"),
    ("reduce-scatter", "recdoub-bw", "bine-bw"),
    ("allgather", "recdoub-bw", "bine-bw"),
]


def inter_group_bytes(schedule: topocoll.Schedule, group_of: list[int]) -> int:
    return topocoll.measure_traffic(schedule, group_of, 1 << 20)["inter_group_bytes"]


@pytest.mark.parametrize(("collective", "binomial", "bine"), PAIRS)
def test_bine_removes_at_most_a_third_in_the_bound_setting(collective, binomial, bine):
    # Section 2.4.1: groups of 2^k consecutive ranks, the size at which every message of a
    # binomial step crosses a boundary. Bine's peers are 2/3 as far, so it can spare at most a
    # third of the inter-group bytes; at small scale it may even add some (section 2.2).
    for s in range(2, 11):
        ranks = 1 << s
        base = topocoll.build(binomial, collective, ranks)
        other = topocoll.build(bine, collective, ranks)
        for k in range(s):
            group_of = parse_groups(f"contiguous:{1 << k}", ranks)
            a = inter_group_bytes(base, group_of)
            b = inter_group_bytes(other, group_of)
            assert a > 0
            assert 1 - b / a <= 1 / 3, f"P={ranks} groups of {1 << k}: {a} -> {b} bytes"


LARGE_JOB_PAIRS = [p for p in PAIRS if p[1] != "binomial-doubling"] + [
    ("alltoall", "bruck", "bine"),
]


@pytest.mark.parametrize(("collective", "binomial", "bine"), LARGE_JOB_PAIRS)
def test_bine_reduces_inter_group_traffic_on_large_spread_allocations(collective, binomial, bine):
    # Section 2.4.2 / Fig. 5: 1024 nodes drawn at random from 24 groups of 128 (a LUMI-like
    # Dragonfly), ranks in node order. Every allocation must see fewer inter-group bytes.
    ranks = 1024
    base = topocoll.build(binomial, collective, ranks)
    other = topocoll.build(bine, collective, ranks)
    reductions = []
    for seed in range(6):
        group_of = random_allocation(ranks, 24, 128, seed)
        a = inter_group_bytes(base, group_of)
        reductions.append(1 - inter_group_bytes(other, group_of) / a)
    assert min(reductions) > 0, reductions
    assert statistics.median(reductions) > 0.05, reductions


def test_distance_doubling_trees_gain_little_because_the_last_step_dominates():
    # In a distance-doubling bcast half of the messages go in the last step, at distance P/2
    # (binomial) or about P/3 (Bine): on a spread allocation nearly all of them cross anyway.
    ranks = 1024
    base = topocoll.build("binomial-doubling", "bcast", ranks)
    other = topocoll.build("bine-doubling", "bcast", ranks)
    group_of = random_allocation(ranks, 24, 128, 0)
    a, b = inter_group_bytes(base, group_of), inter_group_bytes(other, group_of)
    assert abs(1 - b / a) < 0.02


def test_large_vector_bcast_removes_most_inter_group_traffic_by_phase_order():
    # Section 5.1.1: binomial-large scatters with distance halving and gathers with distance
    # doubling, so both of its heaviest steps cross the widest distance; bine-large reverses
    # both phases and keeps its heaviest steps between neighbours (88-94% on LUMI).
    ranks = 1024
    base = topocoll.build("binomial-large", "bcast", ranks)
    other = topocoll.build("bine-large", "bcast", ranks)
    for seed in range(3):
        group_of = random_allocation(ranks, 24, 128, seed)
        a, b = inter_group_bytes(base, group_of), inter_group_bytes(other, group_of)
        assert 1 - b / a > 0.85, (seed, a, b)
