"""Bytes a node peer read (docs/host-costs.md, "Bytes a node peer read"): a copy or a reduction
into bytes a rank of the node read since the writer last wrote them pays the machine's lent
rate instead of its plain one. Each case is computed by hand on 2 ranks of one node, 1 MiB:
copy and reduction at 10 GB/s, into lent bytes at 5 and 2 GB/s, so a lent byte costs 0.1 ns
more to copy and 0.4 ns more to reduce."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from topocoll import simulation

MIB = 1 << 20
EXTRA_COPY = 1 / 5e9 - 1 / 10e9
EXTRA_REDUCE = 1 / 2e9 - 1 / 10e9


def _machine(tmp_path: Path, lent: bool, nodes: bool = True, **host: str) -> str:
    values = {"copy_rate": "10GBps", "reduce_rate": "10GBps"}
    if lent:
        values |= {"lent_copy_rate": "5GBps", "lent_reduce_rate": "2GBps"}
    values |= host
    doc: dict[str, object] = {
        "format": "topocoll-machine/1",
        "name": "lent",
        "description": "lent rates worked by hand",
        "topology": {"value": "fattree:2:1:2:1", "source": "test"},
        "host": {key: {"value": value, "source": "test"} for key, value in values.items()},
    }
    if nodes:
        doc["nodes"] = {"ranks_per_node": {"value": 2, "source": "test"}}
    path = tmp_path / f"m-{lent}-{nodes}-{len(host)}.json"
    path.write_text(json.dumps(doc))
    return str(path)


def _extra(tmp_path: Path, collective: str, algorithm: str, **options: object) -> float:
    """The time the lent rates add to one run."""
    nodes = bool(options.pop("nodes", True))
    host = options.pop("host", {})
    times = [
        simulation.simulate(None, collective, algorithm, MIB, ranks=2,
                            machine=_machine(tmp_path, lent, nodes, **host), **options).time_s
        for lent in (False, True)
    ]  # fmt: skip
    return times[1] - times[0]


@pytest.mark.parametrize("model", ["flow", "analytic", "packet"])
def test_a_reduction_into_what_the_step_sent_pays_the_lent_rate(tmp_path, model):
    """recdoub-lat: the whole vector goes to the peer and the received one is reduced into it,
    so every byte is reduced while lent; the reduction leaves nothing lent."""
    extra = _extra(tmp_path, "allreduce", "recdoub-lat", model=model)
    assert extra == pytest.approx(MIB * EXTRA_REDUCE, rel=1e-9)


@pytest.mark.parametrize("algorithm", ["ring", "recdoub-bw"])
def test_what_the_call_leaves_lent_the_next_calls_input_copy_pays(tmp_path, algorithm):
    """Two steps: the half a rank reduces into was never sent; the half it sends last is still
    lent at the end, and the next call's input copy writes it first: half the vector at the
    copy's extra cost. The half received last lands on lent bytes, which the transfer rate
    already holds (a ping-pong's)."""
    assert _extra(tmp_path, "allreduce", algorithm) == pytest.approx(MIB / 2 * EXTRA_COPY)


def test_an_allgather_pays_for_its_own_block_and_a_bcast_for_nothing(tmp_path):
    """allgather: the own block, copied in by the call, is what the rank sends. bcast: the
    root's buffer is never written by the call, and the other rank only receives."""
    assert _extra(tmp_path, "allgather", "ring") == pytest.approx(MIB / 2 * EXTRA_COPY)
    assert _extra(tmp_path, "bcast", "binomial-halving") == 0


def test_in_place_the_next_call_reduces_first_into_what_this_one_sent_last(tmp_path):
    """In place there is no input copy: the ring's first write of the half it sends last is its
    reduction, so the next call pays for that half at the reduction's extra cost."""
    extra = _extra(tmp_path, "allreduce", "ring", in_place=True)
    assert extra == pytest.approx(MIB / 2 * EXTRA_REDUCE)
    extra = _extra(tmp_path, "allreduce", "recdoub-lat", in_place=True)
    assert extra == pytest.approx(MIB * EXTRA_REDUCE)


def test_ranks_on_different_nodes_lend_nothing(tmp_path):
    assert _extra(tmp_path, "allreduce", "recdoub-lat", nodes=False) == 0


def test_a_lent_rate_above_the_plain_one_costs_nothing(tmp_path):
    fast = {"lent_copy_rate": "20GBps", "lent_reduce_rate": "20GBps"}
    assert _extra(tmp_path, "allreduce", "recdoub-lat", host=fast) == 0
    assert _extra(tmp_path, "allreduce", "ring", host=fast) == 0


def test_a_working_set_table_gives_the_lent_rates_at_the_runs_size(tmp_path):
    """The table's lent reduction rate at 1 MiB (2 GB/s) and at 4 MiB (the plain 10 GB/s:
    past the caches, nothing to take back)."""
    points = [
        {"bytes": "1MiB", "lent_reduce_rate": "2GBps"},
        {"bytes": "4MiB", "lent_reduce_rate": "10GBps"},
    ]
    table = {"value": points, "source": "test"}
    plain = _machine(tmp_path, lent=False)
    doc = json.loads(Path(plain).read_text()) | {"working_set": table}
    sized = tmp_path / "sized.json"
    sized.write_text(json.dumps(doc))

    def time(machine: str, size: int) -> float:
        return simulation.simulate(None, "allreduce", "recdoub-lat", size, ranks=2,
                                   machine=machine).time_s  # fmt: skip

    assert time(str(sized), MIB) - time(plain, MIB) == pytest.approx(MIB * EXTRA_REDUCE)
    assert time(str(sized), 4 * MIB) == time(plain, 4 * MIB)
