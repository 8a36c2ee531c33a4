"""`--model packet` (docs/simulator-packet.md): the closed form of a congestion-free run,
agreement with the flow model on large vectors, determinism, and the exit-2 errors of its
options. Small networks only, to keep the suite fast."""

from __future__ import annotations

import csv
import json
import math

import pytest
import topocoll


def sim(run_cli, *extra: str) -> dict:
    code, out, err = run_cli("sim", "-c", "allreduce", "--json", *extra)
    assert code == 0, err
    return json.loads(out)


def test_ring_on_a_ring_is_the_closed_form_plus_headers(run_cli):
    # 2(P-1) steps of n/P bytes over one link: 400 ns + wire bytes / 50 GB/s per step, the
    # wire bytes being n/P plus one header per packet of at most --mtu bytes.
    n, p, mtu, header = 1 << 20, 4, 1024, 57
    block = n // p
    wire = block + math.ceil(block / mtu) * header
    ring = ("-t", "ring:4", "-a", "ring", "-s", "1MiB", "--ports", "1", "--model", "packet")
    doc = sim(run_cli, *ring, "--mtu", "1KiB", "--header", "57B")
    assert doc["time_s"] == pytest.approx(2 * (p - 1) * (400e-9 + wire / 50e9), rel=1e-9)
    assert doc["model"] == "packet"
    # No header: exactly the flow model's time, since nothing is congested.
    flow = sim(run_cli, *ring[:-2])
    assert sim(run_cli, *ring)["time_s"] == pytest.approx(flow["time_s"], rel=1e-9)


@pytest.mark.parametrize(
    "topology, algorithm",
    [
        ("torus:4x4", "swing-bw"),
        ("torus:4x4", "bucket"),
        ("torus:4x4", "recdoub-bw"),
        ("fattree:2:4:4:4", "recdoub-bw"),
        ("fattree:2:4:4:4", "ring"),
    ],
)
def test_packet_and_flow_agree_on_large_vectors(topology, algorithm):
    # Where they do not (swing-bw and bucket on fat trees), docs/simulator-packet.md says why.
    flow = topocoll.simulate(topology, "allreduce", algorithm, "16MiB", model="flow")
    packet = topocoll.simulate(topology, "allreduce", algorithm, "16MiB", model="packet")
    assert packet.time_s == pytest.approx(flow.time_s, rel=0.03)
    assert packet.messages == flow.messages


def test_same_input_same_output(run_cli):
    args = ("-t", "fattree:2:4:4:4", "-a", "bucket", "-s", "2MiB", "--model", "packet")
    code_a, out_a, _ = run_cli("sim", "-c", "allreduce", "--json", *args)
    code_b, out_b, _ = run_cli("sim", "-c", "allreduce", "--json", *args)
    assert code_a == code_b == 0 and out_a == out_b


def test_compare_runs_the_packet_model(run_cli):
    code, out, err = run_cli(
        "compare",
        "-t",
        "torus:4x4",
        "--model",
        "packet",
        "--algorithms",
        "swing-bw,ring",
        "--sizes",
        "4KiB,64KiB",
        "--mtu",
        "2KiB",
        "--format",
        "json",
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["model"] == "packet" and len(doc["rows"]) >= 4


def test_links_count_wire_bytes(run_cli, tmp_path):
    links = tmp_path / "links.csv"
    doc = sim(
        run_cli,
        "-t",
        "hypercube:3",
        "-a",
        "recdoub-lat",
        "-s",
        "10000B",
        "--model",
        "packet",
        "--header",
        "64B",
        "--links",
        str(links),
    )
    total = sum(float(row["bytes"]) for row in csv.DictReader(links.open()))
    # 3 steps, 8 ranks, each sending 10000 B in 3 packets of 4 KiB at most.
    assert total == pytest.approx(3 * 8 * (10000 + 3 * 64))
    assert doc["messages"] == 24


@pytest.mark.parametrize(
    "extra, words",
    [
        (("--mtu", "8B"), ("--mtu", "16B to 1MiB")),
        (("--mtu", "2MiB"), ("--mtu", "16B to 1MiB")),
        (("--mtu", "4XB"), ("4XB", "accepted")),
        (("--header", "8KiB"), ("--header", "0B to 4KiB")),
        (("--buffer", "1KiB"), ("--buffer", "one packet", "4096")),
        (("--buffer", "2GiB"), ("--buffer", "1GiB")),
        (("-s", "1TiB", "--mtu", "16B"), ("packets", "accepted", "--mtu")),
    ],
)
def test_bad_packet_options_are_exit_2(run_cli, extra, words):
    argv = ["sim", "-t", "torus:4x4", "-c", "allreduce", "-a", "ring", "-s", "1MiB"]
    if "-s" in extra:
        argv = argv[:-2]
    code, out, err = run_cli(*argv, "--model", "packet", *extra)
    assert code == 2, out
    assert len(err.strip().splitlines()) == 1
    for word in words:
        assert word in err


def test_packet_options_need_the_packet_model(run_cli):
    argv = ("sim", "-t", "torus:4x4", "-c", "allreduce", "-a", "ring", "-s", "1MiB")
    code, _, err = run_cli(*argv, "--mtu", "1KiB")
    assert code == 2 and "--model packet" in err


def test_python_api_rejects_bad_packet_options():
    with pytest.raises(ValueError, match="16B to 1MiB"):
        topocoll.simulate("ring:4", "allreduce", "ring", "1MiB", model="packet", mtu=1)
