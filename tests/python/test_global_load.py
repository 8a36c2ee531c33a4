"""--global-load (the flow model's background load, docs/simulator.md "Background load"): other
jobs take a fixed share of every global link of a Dragonfly or Dragonfly+, the job's flows get
the rest. Closed forms on two-group networks where the global cable is the only bottleneck."""

from __future__ import annotations

import json

import pytest
from topocoll.comparison import compare
from topocoll.simulation import simulate

MIB = 1 << 20
BANDWIDTH = 400e9 / 8  # the swing preset: 400 Gb/s per direction
PER_LINK = 100e-9 + 300e-9  # link latency + per-hop latency


def one_transfer(topology: str, load: float | None, size: int = MIB) -> float:
    """A 2-rank bcast: one message of `size` bytes from rank 0 to rank 1."""
    return simulate(topology, "bcast", "binomial-halving", size, ranks=2, params="swing",
                    global_load=load).time_s  # fmt: skip


@pytest.mark.parametrize("load", [0.0, 0.5, 0.9, 0.99])
def test_transfer_over_a_loaded_global_link_takes_the_predicted_time(load):
    # dragonfly:2:1:1:1: host -> router -> global cable -> router -> host, 3 links; every link
    # has the preset's bandwidth, so with load > 0 the global cable is the bottleneck.
    expected = 3 * PER_LINK + MIB / (BANDWIDTH * (1 - load))
    assert one_transfer("dragonfly:2:1:1:1", load) == pytest.approx(expected, rel=1e-9)


def test_dragonfly_plus_global_link_is_loaded_too():
    # leaf -> spine -> global -> spine -> leaf, 5 links
    expected = 5 * PER_LINK + MIB / (BANDWIDTH * 0.25)
    assert one_transfer("dragonfly+:2:1:1:1:1", 0.75) == pytest.approx(expected, rel=1e-9)


def test_local_links_keep_their_capacity():
    # ranks 0 and 1 of dragonfly:2:2:1:1 are in group 0: router to router, no global cable
    alone = one_transfer("dragonfly:2:2:1:1", None)
    assert one_transfer("dragonfly:2:2:1:1", 0.9) == pytest.approx(alone, rel=1e-12)
    assert alone == pytest.approx(3 * PER_LINK + MIB / BANDWIDTH, rel=1e-9)


def test_compare_passes_the_load_to_every_run():
    c = compare("dragonfly:2:1:1:1", "bcast", algorithms=["binomial-halving"], sizes=[MIB],
                ranks=2, global_load="0.5", use_mpi=False)  # fmt: skip
    (entry,) = [e for e in c.entries if e.kind == "algorithm"]
    assert c.global_load == 0.5 and all(r["global_load"] == 0.5 for r in c.rows())
    assert entry.time_s == pytest.approx(3 * PER_LINK + MIB / (BANDWIDTH * 0.5), rel=1e-9)


def test_sim_command_line_reports_the_load(run_cli):
    code, out, _ = run_cli("sim", "-t", "dragonfly:2:1:1:1", "-c", "bcast", "-a",
                           "binomial-halving", "-p", "2", "-s", "1MiB", "--global-load", "0.5",
                           "--json")  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert doc["global_load"] == 0.5
    assert doc["time_s"] == pytest.approx(3 * PER_LINK + MIB / (BANDWIDTH * 0.5), rel=1e-9)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"topology": "torus:4x4"}, "no global links"),
        ({"model": "packet"}, "flow model only"),
        ({"model": "analytic"}, "flow model only"),
        ({"global_load": 1.0}, "out of range"),
        ({"global_load": -0.1}, "out of range"),
        ({"global_load": float("nan")}, "out of range"),
        ({"global_load": "half"}, "not a number"),
    ],
)
def test_invalid_requests_name_the_accepted_values(options, message):
    kwargs = {"topology": "dragonfly:2:1:1:1", "global_load": 0.5, **options}
    topology = kwargs.pop("topology")
    with pytest.raises(ValueError, match=message) as error:
        simulate(topology, "bcast", "binomial-halving", MIB, ranks=2, **kwargs)
    assert "accepted" in str(error.value)


def test_a_load_of_the_wrong_type_is_a_type_error():
    with pytest.raises(TypeError, match="global-load"):
        simulate("dragonfly:2:1:1:1", "bcast", "binomial-halving", MIB, ranks=2,
                 global_load=[0.5])  # fmt: skip


def test_command_line_exit_code_2_on_a_torus(run_cli):
    code, _, err = run_cli("sim", "-t", "torus:4x4", "-c", "allreduce", "-a", "ring", "-s",
                           "1MiB", "--global-load", "0.5")  # fmt: skip
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "accepted" in err
