"""Options of the CLI: what each command accepts, rejects, and prints."""

from __future__ import annotations

import json
from importlib.metadata import version

import pytest


def test_version_is_the_package_version(run_cli):
    code, out, _ = run_cli("--version")
    assert code == 0 and out.strip() == f"topocoll {version('topocoll')}"


def test_schedule_accepts_non_commutative_and_exports_what_verify_checks(run_cli, tmp_path):
    base = ("-c", "reduce", "-a", "binomial-halving", "-p", "6", "--root", "2")
    code, _, err = run_cli("schedule", *base, "--non-commutative", "--format", "json")
    assert code == 0, err
    code, out, _ = run_cli("schedule", *base, "--non-commutative", "--format", "json")
    path = tmp_path / "s.json"
    path.write_text(out)
    code, out, _ = run_cli("verify", "--schedule", str(path), "--non-commutative")
    assert code == 0 and "non-commutative" in out
    code, _, err = run_cli(
        "schedule", "-c", "allreduce", "-a", "ring", "-p", "4", "--non-commutative"
    )
    assert code == 2 and "commutative" in err


def test_verify_json_is_one_object(run_cli):
    code, out, _ = run_cli(
        "verify", "-c", "bcast", "-a", "binomial-halving", "-p", "6", "--root", "3", "--json"
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["ok"] is True and "violation" not in doc
    assert doc["algorithm"] == "binomial-halving" and doc["collective"] == "bcast"
    assert (doc["ranks"], doc["dims"], doc["root"], doc["mode"]) == (6, [6], 3, "exact")
    assert doc["steps"] > 0 and doc["messages"] == 5 and doc["ports"] >= 1


def test_verify_json_names_the_violation(run_cli, ring_json):
    doc, write = ring_json
    doc["steps"][2][0] = [op for op in doc["steps"][2][0] if op["op"] != "recv"]
    code, out, _ = run_cli("verify", "--schedule", write(doc), "--json")
    assert code == 1
    result = json.loads(out)
    assert result["ok"] is False
    violation = result["violation"]
    assert violation["violation"] in ("unmatched operation", "block set mismatch")
    assert violation["rank"] >= 0 and violation["message"].startswith(violation["violation"])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (("verify", "--all", "-c", "bcast"), "--collective does not apply to verify --all"),
        (("verify", "--all", "--ranks", "8"), "--ranks does not apply"),
        (("verify", "--all", "--mode", "exact"), "--mode does not apply"),
        (("verify", "--all", "--json"), "--json does not apply"),
        (("verify", "-c", "allreduce", "-a", "ring", "-p", "4", "--max-ranks", "8"), "--max-ranks"),
        (("verify", "-c", "allreduce", "-a", "ring", "-p", "4", "--root", "1"), "--root does not"),
        (("verify", "-c", "allreduce", "-a", "ring", "-p", "4", "--ports", "0"), "omit --ports"),
        (
            (
                "verify",
                "-c",
                "allreduce",
                "-a",
                "ring",
                "-p",
                "4",
                "--mode",
                "exact",
                "--seed",
                "1",
            ),
            "--seed applies to fingerprint mode only",
        ),
        (("verify", "--schedule", "x.json", "-c", "allreduce"), "--collective does not apply"),
        (("verify", "--schedule", "x.json", "--all"), "not both"),
        (("schedule", "-c", "allreduce", "-a", "ring", "-p", "4", "--pretty"), "--pretty"),
        (
            ("traffic", "-c", "allreduce", "-a", "ring", "-p", "4", "--groups", "contiguous:2")
            + ("--root", "1"),
            "--root does not apply",
        ),
        (("verify", "--bogus"), "unrecognized arguments"),
        (("frobnicate",), "invalid choice"),
        (("verify", "--all", "--max-ranks", "100000"), "accepted: 2..4096"),
        (("verify", "--all", "--max-ranks", "4096"), "--force"),
    ],
)
def test_options_that_do_not_apply_are_rejected(run_cli, argv, message):
    code, _, err = run_cli(*argv)
    assert code == 2
    assert message in err and len(err.strip().splitlines()) == 1, err


def test_explicit_options_still_work(run_cli):
    code, out, _ = run_cli(
        "verify", "-c", "allreduce", "-a", "ring", "-p", "5", "--mode", "fingerprint", "--seed", "0"
    )
    assert code == 0 and "(fingerprint, commutative)" in out
    code, out, _ = run_cli("verify", "--all", "--max-ranks", "4", "--algorithm", "ring")
    assert code == 0 and out.strip().splitlines()[-1].startswith("OK")


def test_verify_all_progress_goes_to_stderr(run_cli):
    code, out, err = run_cli(
        "verify", "--all", "--max-ranks", "4", "--algorithm", "ring", "--progress"
    )
    assert code == 0 and out.strip().splitlines()[-1].startswith("OK")


def test_verify_progress_without_a_terminal_prints_start_and_end(run_cli):
    """--progress where stderr is no terminal (a log, CI): one line before, one after."""
    code, out, err = run_cli(
        "verify", "-c", "allreduce", "-a", "swing-bw", "-p", "64", "--progress"
    )
    assert code == 0 and out.strip().splitlines()[-1].startswith("OK")
    lines = err.strip().splitlines()
    assert lines[0].startswith("verifying allreduce swing-bw P=64") and "estimated" in lines[0]
    assert "done in" in lines[-1]
    code, _, err = run_cli("verify", "-c", "allreduce", "-a", "swing-bw", "-p", "64")
    assert code == 0 and err == ""


def test_export_of_a_huge_schedule_stops_with_its_size(run_cli):
    code, _, err = run_cli("schedule", "-c", "allreduce", "-a", "ring", "-p", "100000")
    assert code == 2 and "rank-steps" in err and "--force" in err


V = ("verify", "-c", "allreduce", "-a", "ring")


@pytest.mark.parametrize(
    ("argv", "code", "message"),
    [
        (("verify", "-c", "allsum", "-a", "ring", "-p", "4"), 2, "unknown collective 'allsum'"),
        (("verify", "-c", "allreduce", "-a", "nope", "-p", "4"), 2, "unknown algorithm 'nope'"),
        (("verify", "-c", "allgather", "-a", "hamiltonian-cycle", "-p", "6"), 2, "power-of-two"),
        ((*V, "--dims", "4xq"), 2, "not a torus shape"),
        ((*V, "--dims", "4x4"), 2, "ring (1D) only"),
        (("verify", "-c", "bcast", "-a", "binomial-halving", "-p", "4", "--root", "4"), 2, "0..3"),
        ((*V, "-p", "4", "--ports", "3"), 2, "accepted: 1, 2"),
        ((*V, "-p", "4100", "--mode", "exact"), 2, "use --mode fingerprint"),
        # bruck-bw: the ring at P = 1e6 needs only MiB since its translation symmetry
        (("verify", "-c", "allreduce", "-a", "bruck-bw", "-p", "1000000"), 2, "GiB of memory"),
        ((*V, "-p", "4"), 0, ""),
    ],
)
def test_exit_code_contract(run_cli, argv, code, message):
    got, out, err = run_cli(*argv)
    assert got == code, out + err
    assert message in err
    if code == 2:
        assert len(err.strip().splitlines()) == 1 and not out


@pytest.mark.parametrize(
    ("mutate", "code", "message"),
    [
        (lambda d: "{not json", 2, "not valid JSON"),
        (lambda d: {**d, "format": "x"}, 2, "'format' must be"),
        (lambda d: {**d, "ports": 0}, 2, "'ports' = 0 is out of range"),
        (lambda d: _set(d, ["steps", 0, 0, 0, "blocks"], [[0, 99]]), 2, "accepted: 0..6"),
        (lambda d: _set(d, ["steps", 0, 0, 0, "peer"], 3), 1, "unmatched operation"),
        (lambda d: d, 0, ""),
    ],
)
def test_exit_code_contract_for_files(run_cli, ring_json, mutate, code, message):
    doc, write = ring_json
    changed = mutate(json.loads(json.dumps(doc)))
    path = write(doc)
    with open(path, "w") as handle:
        handle.write(changed if isinstance(changed, str) else json.dumps(changed))
    got, out, err = run_cli("verify", "--schedule", path)
    assert got == code, out + err
    assert message in out + err


def _set(doc, path, value):
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return doc
