"""Property tests of the block partition and of schedules over random shapes."""

from __future__ import annotations

import topocoll
from hypothesis import given, settings
from hypothesis import strategies as st


@given(ranks=st.integers(2, 40), count=st.integers(0, 10_000))
def test_allreduce_partition_is_early_late(ranks, count):
    schedule = topocoll.build("ring", "allreduce", ranks)
    sizes = topocoll.partition_sizes(schedule, count)
    assert len(sizes) == schedule.info["blocks"]
    assert sum(sizes) == count
    assert max(sizes) - min(sizes) <= 1
    assert sizes == sorted(sizes, reverse=True)


@given(ranks=st.integers(2, 40), count=st.integers(0, 1000), ports=st.sampled_from([1, 2]))
def test_chunked_partition_splits_every_chunk(ranks, count, ports):
    schedule = topocoll.build("ring", "reduce-scatter", ranks, ports=ports)
    sizes = topocoll.partition_sizes(schedule, count)
    per_chunk = schedule.info["blocks"] // ranks
    chunks = [sizes[r * per_chunk : (r + 1) * per_chunk] for r in range(ranks)]
    assert all(sum(c) == count for c in chunks)
    assert all(c == chunks[0] for c in chunks)


def test_count_smaller_than_blocks_and_zero():
    schedule = topocoll.build("ring", "allreduce", 8)
    assert topocoll.partition_sizes(schedule, 3) == [1, 1, 1, 0, 0, 0, 0, 0]
    assert topocoll.partition_sizes(schedule, 0) == [0] * 8


@settings(max_examples=25, deadline=None)
@given(
    algorithm=st.sampled_from([a["name"] for a in topocoll.algorithms()]),
    ranks=st.integers(2, 96),
    data=st.data(),
)
def test_every_supported_request_verifies(algorithm, ranks, data):
    info = next(a for a in topocoll.algorithms() if a["name"] == algorithm)
    collective = data.draw(st.sampled_from(info["collectives"]))
    root = data.draw(st.integers(0, ranks - 1))
    try:
        schedule = topocoll.build(algorithm, collective, ranks, root=root)
    except ValueError as unsupported:
        assert algorithm in str(unsupported)
        return
    for mode in ("exact", "fingerprint"):
        report = topocoll.verify(schedule, mode)
        assert report["ok"], report["message"]
