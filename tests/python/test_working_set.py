"""Rates by working set (topocoll.working_set, docs/machines.md "Rates by working set") and the
runtime's copies of an out-of-place call (docs/host-costs.md, "The call's own copies"): each
checked on a case computed by hand."""

from __future__ import annotations

import json
import math

import pytest
from topocoll import simulation, working_set

MIB = 1 << 20
POINTS = (
    (MIB, (("copy_s_per_byte", 1 / 20e9),)),
    (4 * MIB, (("copy_s_per_byte", 1 / 5e9), ("fabric_bandwidth", 4e9))),
)


def test_a_point_gives_its_own_value_and_the_ends_extend_flat():
    assert working_set.rates_at(POINTS, MIB) == {
        "copy_s_per_byte": 1 / 20e9,
        "fabric_bandwidth": 4e9,  # the only point that gives it, below it too
    }
    assert working_set.rates_at(POINTS, 8)["copy_s_per_byte"] == 1 / 20e9
    assert working_set.rates_at(POINTS, 1 << 30)["copy_s_per_byte"] == 1 / 5e9


def test_between_two_points_the_rate_is_linear_in_log_size_and_log_rate():
    """2 MiB is halfway between 1 and 4 MiB in log size: the geometric mean of 20 and 5 GB/s,
    10 GB/s, whether interpolated as a rate or as its inverse."""
    assert working_set.rates_at(POINTS, 2 * MIB)["copy_s_per_byte"] == pytest.approx(1 / 10e9)


def test_points_keep_the_datatype_class_and_drop_what_an_option_overrides():
    table = [
        (
            MIB,
            {"reduce_s_per_byte:int": 1.0, "reduce_s_per_byte:float": 2.0, "copy_s_per_byte": 3.0},
        )
    ]
    assert working_set.points_for(table, "int", set()) == (
        (MIB, (("copy_s_per_byte", 3.0), ("reduce_s_per_byte", 1.0))),
    )
    assert working_set.points_for(table, "double", {"copy_s_per_byte"}) == ()


def _machine(tmp_path, **extra) -> str:
    doc = {
        "format": "topocoll-machine/1",
        "name": "sized",
        "description": "a copy rate by working set",
        "topology": {"value": "fattree:2:1:2:1", "source": "test"},
        "host": {"copy_rate": {"value": "10GBps", "source": "test"}},
        **extra,
    }
    path = tmp_path / f"m{len(extra)}.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_a_run_takes_the_rates_of_its_own_size(tmp_path):
    """An allreduce of 4 MiB out of place on 2 ranks: the table's 5 GB/s copy at 4 MiB gives
    the same time as a machine whose copy rate is 5 GB/s; 1 MiB takes the 20 GB/s point."""
    table = {"value": [{"bytes": "1MiB", "copy_rate": "20GBps"},
                       {"bytes": "4MiB", "copy_rate": "5GBps"}], "source": "test"}  # fmt: skip
    sized = _machine(tmp_path, working_set=table)
    plain = _machine(tmp_path)

    def time(machine: str, size: int, **options) -> float:
        return simulation.simulate(None, "allreduce", "ring", size, ranks=2, machine=machine,
                                   **options).time_s  # fmt: skip

    assert time(sized, 4 * MIB) == time(plain, 4 * MIB, copy_rate="5GBps")
    assert time(sized, MIB) == time(plain, MIB, copy_rate="20GBps")
    # a single option wins over the table, as over any machine value
    assert time(sized, 4 * MIB, copy_rate="10GBps") == time(plain, 4 * MIB)
    both = simulation.simulate_sizes(None, "allreduce", "ring", [MIB, 4 * MIB], ranks=2,
                                     machine=sized)  # fmt: skip
    assert [r.time_s for r in both] == [time(sized, MIB), time(sized, 4 * MIB)]


def test_an_out_of_place_allreduce_pays_its_input_copy(tmp_path):
    """At 10 GB/s the 2-rank allreduce of 1 MiB out of place first copies the 1 MiB input on
    each rank: 2^20 / 1e10 s more than in place, nothing else."""
    machine = _machine(tmp_path)
    out, in_place = (
        simulation.simulate(
            None, "allreduce", "ring", MIB, ranks=2, machine=machine, in_place=flag
        ).time_s  # fmt: skip
        for flag in (False, True)
    )
    assert out - in_place == pytest.approx(MIB / 1e10, rel=1e-9)
    assert not math.isclose(out, in_place)


def test_in_place_is_a_cli_flag(run_cli):
    """`sim --in-place` drops the 8 KiB input copy of every rank: 8192 B at 1 GB/s."""

    def time(*extra: str) -> float:
        code, out, err = run_cli("sim", "-t", "ring:4", "-c", "allreduce", "-a", "ring", "--size",
                                 "8KiB", "--copy-rate", "1GBps", "--json", *extra)  # fmt: skip
        assert code == 0, err
        return json.loads(out)["time_s"]

    assert time() - time("--in-place") == pytest.approx(8192 / 1e9, rel=1e-9)
    with pytest.raises(TypeError, match="in_place must be True or False"):
        simulation.simulate("ring:4", "allreduce", "ring", 8192, in_place="yes")


def test_calibrate_puts_each_pairs_rate_where_its_messages_go():
    """A machine measured on one node takes its on-node ping-pong as the fabric's rate (its
    ranks never use the network); one that spans nodes takes the other pair's as the network's
    and keeps the on-node pair's for the fabric."""
    from topocoll import calibration

    point = {
        "bytes": MIB,
        "bandwidth_Bps": {"intra_node": 8e9, "inter_node": 12.5e9},
        "copy_Bps": 20e9,
        "reduce_Bps": {"float": 10e9, "double": 10e9, "int": 10e9},
        "exchange_Bps": {"intra_node": 20e9},
        "lent_Bps": {"intra_node": {"copy": 10e9, "reduce": 4e9},
                     "inter_node": {"copy": 19e9, "reduce": 9e9}},
    }  # fmt: skip
    one_node = calibration._working_set_section([point], "intra_node", True, "s")["value"][0]
    assert one_node == {
        "bytes": "1MiB",
        "fabric_bandwidth": "8GBps",
        "memory_bandwidth": "40GBps",
        "copy_rate": "20GBps",
        "reduce_rate": {"float": "10GBps", "double": "10GBps", "int": "10GBps"},
        "lent_copy_rate": "10GBps",
        "lent_reduce_rate": "4GBps",
    }
    spanning = calibration._working_set_section([point], "inter_node", True, "s")["value"][0]
    assert spanning["bandwidth"] == "12.5GBps" and spanning["fabric_bandwidth"] == "8GBps"
    # only ranks of one node lend their bytes: the on-node pair's rates, whatever the network's
    assert spanning["lent_copy_rate"] == "10GBps"
    no_nodes = calibration._working_set_section([point], "inter_node", False, "s")["value"][0]
    assert "fabric_bandwidth" not in no_nodes and "memory_bandwidth" not in no_nodes
    assert "lent_copy_rate" not in no_nodes


def test_calibrate_charges_the_rendezvous_handshake_once():
    """The ping-pong's jump at the eager threshold goes to host.rendezvous_overhead (less the
    round trip 2L the engine charges) and out of the transfer rates above the threshold: a
    pair with L = 0.1 us and a 1.5 us jump above 2 KiB gives 1.3 us, and a 4 KiB message whose
    half round trip is 2.5 us beyond an empty one's moves its bytes in 1 us."""
    from topocoll import calibration

    loggp = {"latency_s": 0.1e-6, "send_overhead_s": 0.2e-6, "recv_overhead_s": 0.2e-6,
             "gap_s": 0.2e-6, "eager_threshold_bytes": 2048, "rendezvous_handshake_s": 1.5e-6,
             "pingpong_bandwidth_Bps": 8e9}  # fmt: skip
    _, host = calibration._link_costs(loggp, "s")
    assert host["eager_threshold"]["value"] == "2KiB"
    assert host["rendezvous_overhead"]["value"] == "1.3us"
    times = {"intra_node": {0: 0.5e-6, 2048: 1.0e-6, 4096: 3.0e-6}}
    shake = {"intra_node": calibration._handshake(loggp, 4096)}
    assert calibration._rates(times, 4096, shake) == {"intra_node": pytest.approx(4096 / 1e-6)}
    eager = {"intra_node": calibration._handshake(loggp, 2048)}
    assert calibration._rates(times, 2048, eager) == {"intra_node": pytest.approx(2048 / 0.5e-6)}
    _, none = calibration._link_costs(loggp | {"eager_threshold_bytes": None}, "s")
    assert none["eager_threshold"]["value"] == "none" and "rendezvous_overhead" not in none
