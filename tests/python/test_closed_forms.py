"""Simulated times against closed forms on every topology type (flow model).

Each case is one whose time follows from the topology's cables alone: a message crosses h links
and pays h x (link latency + per-hop latency) before moving its bytes at the bottleneck rate
(docs/design.md, "Simulator semantics"). The congestion-free cases put two ranks on hosts 0
and 1; the known-congestion ones load an oversubscribed fat tree's up-link and a dragonfly's
global cable.
Each test also runs with a different link speed and a different latency and checks that the
closed form of the nominal parameters then fails, so a topology built with wrong cables (a
dragonfly whose global cables were made 4x slower passed every earlier test) cannot pass.
"""

from __future__ import annotations

import json

import pytest

MIB = 1 << 20
BANDWIDTH = 50e9  # bytes/s: 400 Gb/s
LINK_LATENCY = 100e-9
HOP_LATENCY = 300e-9
HOP = LINK_LATENCY + HOP_LATENCY


def sim_time(run_cli, topology: str, algorithm: str, *, bandwidth: str = "400Gbps",
             latency: str = "100ns", extra: tuple[str, ...] = ()) -> float:  # fmt: skip
    code, out, err = run_cli(
        "sim", "--topology", topology, "--collective", "allreduce", "--algorithm", algorithm,
        "--size", "1MiB", "--bandwidth", bandwidth, "--latency", latency,
        "--hop-latency", "300ns", "--alpha", "0ns", "--reduce-cost", "0ns", "--json", *extra,
    )  # fmt: skip
    assert code == 0, err
    return json.loads(out)["time_s"]


def assert_closed_form(run_cli, topology: str, algorithm: str, expected: float, extra=()) -> None:
    assert sim_time(run_cli, topology, algorithm, extra=extra) == pytest.approx(expected, rel=1e-9)
    # The same formula must fail when the cables are slower or the latency larger.
    slower = sim_time(run_cli, topology, algorithm, bandwidth="100Gbps", extra=extra)
    assert slower != pytest.approx(expected, rel=1e-3)
    later = sim_time(run_cli, topology, algorithm, latency="1us", extra=extra)
    assert later != pytest.approx(expected, rel=1e-3)


# (topology, links crossed from host 0 to host 1, parallel paths between them)
TWO_HOSTS = [
    ("ring:2", 1, 2),  # a size-2 dimension has two parallel cables
    ("torus:2x3", 1, 2),
    ("mesh:2", 1, 1),
    ("hypercube:1", 1, 1),
    ("hyperx:2", 1, 1),
    ("fattree:2:1:2:1", 2, 1),  # host, leaf, host
    ("fattree:2:2:4:1", 2, 1),  # same leaf, oversubscribed tree
    ("dragonfly:2:1:1:1", 3, 1),  # host, router, global cable, router, host
    ("dragonfly+:2:1:1:1:1", 5, 1),  # host, leaf, spine, global cable, spine, leaf, host
    ("hammingmesh:1x1:2x1", 2, 2),  # both board edges of a one-host board reach the row switch
]


@pytest.mark.parametrize(("topology", "hops", "paths"), TWO_HOSTS)
def test_two_hosts_exchange_at_the_cables_rate(run_cli, topology, hops, paths):
    # recdoub-lat on two ranks: one exchange of the whole vector.
    expected = MIB / (BANDWIDTH * paths) + hops * HOP
    assert_closed_form(run_cli, topology, "recdoub-lat", expected, extra=("--ranks", "2"))


def test_graph_file_exchange(run_cli, tmp_path):
    graph = {
        "nodes": [{"name": "h0", "host": True}, {"name": "h1", "host": True}, {"name": "s0"}],
        "links": [
            {"from": "h0", "to": "s0", "bidirectional": True},
            {"from": "s0", "to": "h1", "bidirectional": True},
        ],
    }
    path = tmp_path / "two.json"
    path.write_text(json.dumps(graph))
    assert_closed_form(run_cli, f"graph:{path}", "recdoub-lat", MIB / BANDWIDTH + 2 * HOP)


def test_permutation_through_an_oversubscribed_fat_tree(run_cli):
    # 2 leaves of 4 hosts, one spine (4:1). Recursive doubling's distance-1 and -2 exchanges
    # stay in a leaf; at distance 4 the four hosts of a leaf share its one up-link, each at a
    # quarter of the rate, over host-leaf-spine-leaf-host.
    expected = 2 * (MIB / BANDWIDTH + 2 * HOP) + (4 * MIB / BANDWIDTH + 4 * HOP)
    assert_closed_form(run_cli, "fattree:2:2:4:1", "recdoub-lat", expected)


def test_ring_allreduce_across_a_dragonflys_global_cable(run_cli):
    # Two groups of one router with two hosts; the ring 0-1-2-3 crosses the one global cable
    # in each direction once per step (3 links) and stays on a router otherwise (2 links).
    # Every rank waits one 3-link latency per step: 2(P-1) steps of m/P bytes.
    expected = 6 * (MIB / 4 / BANDWIDTH + 3 * HOP)
    assert_closed_form(run_cli, "dragonfly:2:1:2:1", "ring", expected)


def test_ring_allreduce_on_a_mesh_waits_for_the_long_way_back(run_cli):
    # mesh:8 has no wrap-around cable: rank 7's message to rank 0 crosses 7 links every step.
    expected = 14 * (MIB / 8 / BANDWIDTH + 7 * HOP)
    assert_closed_form(run_cli, "mesh:8", "ring", expected)


def test_hyperx_peak_counts_two_ports_per_dimension(run_cli):
    # A host of hyperx:64x64 has 126 cables; a collective's peak counts 2 per dimension.
    code, out, err = run_cli(
        "sim", "--topology", "hyperx:4x8", "--collective", "allreduce", "--algorithm", "ring",
        "--size", "1MiB", "--json",
    )  # fmt: skip
    assert code == 0, err
    result = json.loads(out)
    assert result["host_bandwidth_gbps"] == pytest.approx(4 * 400)
