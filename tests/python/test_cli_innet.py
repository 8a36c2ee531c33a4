"""`topocoll innet`: exact results, counters, determinism and the exit-code contract, on a small
fat tree (fattree:2:4:4:4, 16 hosts) so each run takes well under a second."""

from __future__ import annotations

import csv
import json

import pytest
from topocoll.cli import main

SMALL = ["innet", "--topology", "fattree:2:4:4:4", "--hosts", "10", "--size", "32KiB"]
SMALL += ["--rto", "30us"]
# back-to-back congestion messages adaptively routed (the earlier congestion model)
BUSY = ["--background-load", "1", "--background-routing", "adaptive"]


def run_json(capsys, *extra: str) -> dict:
    assert main([*SMALL, "--json", *extra]) == 0
    return json.loads(capsys.readouterr().out)


def test_all_algorithms_exact_under_congestion(capsys):
    out = run_json(capsys, "--seed", "3")
    assert list(out) == ["canary", "ring", "static-1", "static-4"]  # sorted keys
    for r in out.values():
        assert r["exact"] and r["completed"] and r["goodput_gbps"] > 0
    assert out["canary"]["aggregated"] > 0
    assert out["ring"]["aggregated"] == 0


def test_drops_collisions_failure_tenants_stay_exact(capsys):
    out = run_json(
        capsys,
        "--algorithms",
        "canary",
        "--drop",
        "0.01",
        "--table-entries",
        "3",
        "--tenants",
        "2",
        "--fail-switch",
        "spine1@3us",
    )
    r = out["canary"]
    assert r["exact"]
    assert r["collisions"] > 0 and r["drops"] > 0 and r["retransmissions"] > 0
    assert len(r["tenant_time_s"]) == 2


def test_a_failed_cable_between_switches_stays_exact(capsys):
    out = run_json(capsys, "--algorithms", "canary,static-1", "--fail-link", "leaf0->spine1@2us")
    for r in out.values():
        assert r["exact"] and r["completed"]
    assert out["static-1"]["drops"] + out["canary"]["drops"] > 0


def test_same_seed_same_bytes(capsys, tmp_path):
    outputs = []
    for i in range(2):
        links = tmp_path / f"links{i}.csv"
        # static trees and the ring cannot recover from drops: incomplete, exit 1
        assert main([*SMALL, "--drop", "0.005", "--jobs", "2", "--links", str(links)]) == 1
        captured = capsys.readouterr()
        assert "incomplete: ring" in captured.err
        outputs.append((captured.out.replace(str(links), "X"), links.read_bytes()))
    assert outputs[0] == outputs[1]
    rows = list(csv.DictReader(outputs[0][1].decode().splitlines()))
    assert {r["algorithm"] for r in rows} == {"canary", "static-1", "static-4", "ring"}
    assert any(float(r["utilization"]) > 0 for r in rows)


@pytest.mark.parametrize(
    "extra",
    [
        ["--timeout", "0us"],
        ["--table-entries", "0"],
        ["--hosts", "17"],
        ["--drop", "1"],
        ["--drop", "-0.5"],
        ["--fail-switch", "spine1@1s"],
        ["--fail-switch", "spine9@1us"],
        ["--fail-switch", "nonsense"],
        ["--fail-link", "h0->leaf0@1us"],
        ["--fail-link", "leaf0->spine9@1us"],
        ["--fail-link", "leaf0->spine1@1s"],
        ["--fail-link", "leaf0->spine1"],
        ["--fail-link", "99999@1us"],
        ["--algorithms", "static-0"],
        ["--algorithms", "swing"],
        ["--congestion", "heavy"],
        ["--flow-control", "pfc"],
        ["--topology", "torus:4x4"],
        ["--jobs", "0"],
        ["--seed", "-1"],
        ["--table-entries", "99999999999"],
        ["--tenants", "0"],
        ["--elements", "0"],
    ],
)
def test_invalid_parameters_exit_2_with_one_line(capsys, extra):
    assert main([*SMALL, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "\n" not in err


def test_values_beyond_32_bits_name_the_accepted_range(capsys):
    assert main([*SMALL, "--hosts", str(2**70)]) == 2
    assert "accepted: 1..2^31-1" in capsys.readouterr().err


def test_model_options_stay_exact_and_lossless(capsys):
    """Both congestion patterns, both lossless flow controls and the fixed timer."""
    runs = {}
    for extra in (
        [],
        ["--congestion", "uniform"],
        ["--flow-control", "output"],
        ["--fixed-rto", "--rto", "5us"],
    ):
        out = run_json(capsys, "--algorithms", "canary,static-4", "--buffer", "8KiB", *BUSY, *extra)
        for r in out.values():
            assert r["exact"] and r["drops"] == 0
        runs[" ".join(extra)] = out["canary"]
    assert runs[""]["events"] != runs["--congestion uniform"]["events"]
    assert runs[""]["events"] != runs["--flow-control output"]["events"]
    # a fixed 5us timer is below the block latency: spurious requests the adaptive one avoids
    assert runs["--fixed-rto --rto 5us"]["retransmissions"] > runs[""]["retransmissions"]


def test_link_utilization_plot(capsys, tmp_path):
    plot = tmp_path / "links.png"
    assert main([*SMALL, "--algorithms", "canary", "--plot", str(plot)]) == 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main([*SMALL, "--plot", str(tmp_path / "links.txt")]) == 2


def test_a_long_ring_finishes_within_the_default_horizon(capsys):
    """598 ring steps under congestion take longer than the in-network horizon of 20x
    size/bandwidth + 500 us; the ring's default horizon grows with its steps."""
    args = ["innet", "--topology", "fattree:2:32:16:16", "--hosts", "300", "--size", "1KiB"]
    assert main([*args, "--algorithms", "ring", "--json"]) == 0
    ring = json.loads(capsys.readouterr().out)["ring"]
    assert ring["completed"] and ring["exact"] and ring["time_s"] > 500e-6


def test_api_failure_lists_must_pair_names_with_times():
    from topocoll import _core

    topology = _core.make_topology("fattree:2:4:4:4", _core.network_preset("canary"))
    options = {"hosts": 10, "size_bytes": 32 << 10, "fail_links": ["leaf0->spine1"]}
    with pytest.raises(ValueError, match="one failure time per link"):
        _core.innet_run(topology, "canary", {**options, "fail_link_times": []})
    with pytest.raises(ValueError, match="accepted: a link label such as leaf0->spine1"):
        _core.innet_run(
            topology, "canary", {**options, "fail_links": ["x"], "fail_link_times": [1e-6]}
        )


def test_runs_beyond_the_limits_are_refused_before_they_start(capsys):
    big = ["innet", "--topology", "fattree:canary", "--hosts", "1024", "--size", "1GiB"]
    assert main([*big, "--congestion", "none"]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "memory" in err and "--force" in err
    from topocoll import _core

    topology = _core.make_topology("fattree:canary", _core.network_preset("canary"))
    options = {"hosts": 1024, "size_bytes": 1 << 30}
    with pytest.raises(ValueError, match="--force"):
        _core.innet_run(topology, "canary", options)
    estimate = _core.innet_estimate(topology, "canary", options)
    assert estimate["memory_bytes"] > 1 << 30 and estimate["seconds"] > 600


def test_incomplete_runs_exit_1_and_say_so(capsys):
    assert main([*SMALL, "--algorithms", "canary,ring", "--drop", "0.01"]) == 1
    captured = capsys.readouterr()
    assert "incomplete: ring" in captured.err and "canary" not in captured.err
    assert "incomplete" in captured.out  # the ring's row


def test_messages_name_the_option_at_fault(capsys):
    assert main(["innet", "--topology", "fattree:2:4:4:4", "--tenants", "9"]) == 2
    err = capsys.readouterr().err
    assert "--tenants 9 out of range; accepted: 1..8" in err


def test_a_horizon_cut_short_reports_at_most_full_links(capsys):
    assert main([*SMALL, "--algorithms", "canary", "--max-time", "1ns", "--json"]) == 1
    r = json.loads(capsys.readouterr().out)["canary"]
    assert not r["completed"] and 0 < r["mean_link_utilization"] <= 1


def test_the_default_timer_never_fires_without_losses(capsys):
    out = json.loads(
        (
            main([*SMALL[:-2], "--json", "--congestion", "uniform", *BUSY]),
            capsys.readouterr().out,
        )[1]
    )
    for name in ("canary", "static-1", "static-4"):
        assert out[name]["exact"] and out[name]["retransmissions"] == 0
    assert out["canary"]["max_block_rtt_s"] < out["canary"]["rto_s"]


@pytest.mark.parametrize(
    "extra",
    [
        ["--table-index", "cuckoo"],
        ["--background-routing", "random"],
        ["--background-load", "0"],
        ["--background-load", "1.5"],
        ["--background-message", "0B"],
        ["--window", "-1"],
        ["--rto", "soon"],
        ["--tenants", "9"],
    ],
)
def test_invalid_model_choices_exit_2_with_one_line(capsys, extra):
    assert main([*SMALL, *extra]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error:") and "\n" not in err
