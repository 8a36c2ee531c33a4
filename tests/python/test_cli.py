from __future__ import annotations

import json
import subprocess
import sys


def test_algorithms_lists_ring_with_its_collectives(run_cli):
    code, out, _ = run_cli("algorithms", "--json")
    assert code == 0
    algos = {a["name"]: a for a in json.loads(out)}
    assert algos["ring"]["collectives"] == ["allreduce", "reduce-scatter", "allgather"]
    assert algos["ring"]["requirements"]["ports_1d"] == [1, 2]


def test_algorithms_filter_by_collective(run_cli):
    code, out, _ = run_cli("algorithms", "--collective", "allgather", "--json")
    assert code == 0
    assert all("allgather" in a["collectives"] for a in json.loads(out))


def test_unknown_collective_is_input_error(run_cli):
    code, _, err = run_cli("algorithms", "--collective", "allsum")
    assert code == 2
    assert "allsum" in err and "reduce-scatter" in err


def test_verify_ok_prints_ok_last(run_cli):
    code, out, _ = run_cli(
        "verify", "-c", "reduce-scatter", "-a", "ring", "-p", "7", "--ports", "2"
    )
    assert code == 0
    assert out.strip().splitlines()[-1].startswith("OK")


def test_verify_rejects_unsupported_ports_with_accepted_values(run_cli):
    code, _, err = run_cli("verify", "-c", "allreduce", "-a", "ring", "-p", "8", "--ports", "3")
    assert code == 2
    assert "accepted: 1, 2" in err


def test_verify_rejects_unknown_algorithm(run_cli):
    code, _, err = run_cli("verify", "-c", "allreduce", "-a", "nope", "-p", "8")
    assert code == 2
    assert "unknown algorithm 'nope'" in err and "ring" in err


def test_verify_rejects_bad_shapes(run_cli):
    assert run_cli("verify", "-c", "allreduce", "-a", "ring", "--dims", "4xq")[0] == 2
    code, _, err = run_cli("verify", "-c", "allreduce", "-a", "ring", "-p", "8", "--dims", "3x3")
    assert code == 2 and "must agree" in err
    code, _, err = run_cli("verify", "-c", "allreduce", "-a", "ring", "-p", "1")
    assert code == 2 and "at least 2 ranks" in err
    code, _, err = run_cli("verify", "-c", "allreduce", "-a", "ring", "--dims", "4x4")
    assert code == 2 and "ring (1D) only" in err


def test_verify_rejects_a_collective_the_algorithm_lacks(run_cli):
    code, _, err = run_cli("verify", "-c", "bcast", "-a", "ring", "-p", "4")
    assert code == 2
    assert "does not implement bcast" in err


def test_non_commutative_requirement_is_enforced(run_cli):
    code, _, err = run_cli(
        "verify", "-c", "allreduce", "-a", "ring", "-p", "4", "--non-commutative"
    )
    assert code == 2
    assert "commutative" in err


def test_schedule_json_round_trips_through_verify(run_cli, ring_json):
    doc, write = ring_json
    assert doc["format"] == "topocoll-schedule" and doc["ranks"] == 6
    code, out, _ = run_cli("verify", "--schedule", write(doc))
    assert code == 0, out
    assert out.strip().splitlines()[-1].startswith("OK")


def test_schedule_text_lists_every_rank_and_step(run_cli):
    code, out, _ = run_cli("schedule", "-c", "allgather", "-a", "ring", "-p", "4")
    assert code == 0
    lines = [line for line in out.splitlines() if line.startswith("rank")]
    assert len(lines) == 4 * 3
    assert "send to 1 port 0 blocks {0}" in out


def test_entry_point_runs_as_a_program():
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "topocoll.cli",
            "verify",
            "-c",
            "allreduce",
            "-a",
            "ring",
            "-p",
            "5",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1].startswith("OK")


def test_rooted_collectives_take_any_root(run_cli):
    code, out, _ = run_cli("verify", "-c", "bcast", "-a", "bine-halving", "-p", "13", "--root", "7")
    assert code == 0 and out.strip().splitlines()[-1].startswith("OK")
    assert "root=7" in out


def test_invalid_roots_and_unsupported_rank_counts_are_input_errors(run_cli):
    for root in ("13", "-1"):
        code, _, err = run_cli("verify", "-c", "gather", "-a", "bine", "-p", "13", "--root", root)
        assert code == 2 and f"root {root} is out of range; accepted: 0..12" in err
    code, _, err = run_cli("verify", "-c", "allgather", "-a", "hamiltonian-cycle", "-p", "6")
    assert code == 2 and "power-of-two" in err and "accepted: 2, 4, 8" in err
    base = ("traffic", "-c", "bcast", "-a", "bine-halving", "-p", "8", "--groups", "contiguous:4")
    code, _, err = run_cli(*base, "--root", "9")
    assert code == 2 and "accepted: 0..7" in err


def test_exact_mode_refuses_what_it_cannot_hold(run_cli):
    # recdoub-bw on 8192 ranks has 8192 x 8192 slot states, more than exact mode holds: auto
    # mode switches to fingerprints, an explicit exact request names the alternative.
    base = ("verify", "-c", "allreduce", "-a", "recdoub-bw", "-p", "8192")
    code, out, _ = run_cli(*base)
    assert code == 0 and "(fingerprint, commutative)" in out
    code, _, err = run_cli(*base, "--mode", "exact")
    assert code == 2 and "use --mode fingerprint" in err
