"""Deliberately broken schedules, written as JSON files, must be rejected by `verify --schedule`
with the right diagnosis (exit 1); unreadable files are input errors (exit 2)."""

from __future__ import annotations

import copy

import pytest


def ops_of(doc: dict, rank: int, step: int) -> list[dict]:
    return doc["steps"][rank][step]


def first(doc: dict, rank: int, step: int, kind: str) -> dict:
    return next(op for op in ops_of(doc, rank, step) if op["op"] == kind)


def verify_doc(run_cli, write, doc: dict, *extra: str) -> tuple[int, str]:
    code, out, err = run_cli("verify", "--schedule", write(doc), *extra)
    return code, out + err


@pytest.mark.parametrize("mode", ["exact", "fingerprint"])
def test_dropped_receive(run_cli, ring_json, mode):
    doc, write = ring_json
    broken = copy.deepcopy(doc)
    last = len(broken["steps"][2]) - 1
    broken["steps"][2][last] = [op for op in ops_of(broken, 2, last) if op["op"] != "recv"]
    code, out = verify_doc(run_cli, write, broken, "--mode", mode)
    assert code == 1
    assert "unmatched operation: rank 1" in out and "send to 2" in out


@pytest.mark.parametrize("mode", ["exact", "fingerprint"])
def test_doubled_reduction(run_cli, ring_json, mode):
    doc, write = ring_json
    broken = copy.deepcopy(doc)
    recv = first(broken, 3, 0, "recv")
    ops_of(broken, 3, 0).append(
        {"op": "copy", "from": recv["blocks"], "blocks": recv["blocks"], "combine": "reduce"}
    )
    code, out = verify_doc(run_cli, write, broken, "--mode", mode)
    assert code == 1
    assert "wrong result" in out
    assert (
        ("counted 2 times" in out) if mode == "exact" else ("7 contributions (expected 6)" in out)
    )


def test_wrong_peer(run_cli, ring_json):
    doc, write = ring_json
    broken = copy.deepcopy(doc)
    first(broken, 0, 1, "send")["peer"] = 4
    code, out = verify_doc(run_cli, write, broken)
    assert code == 1
    assert "unmatched operation" in out and "send to 4" in out


def test_mismatched_block_set(run_cli, ring_json):
    doc, write = ring_json
    broken = copy.deepcopy(doc)
    first(broken, 5, 3, "recv")["blocks"] = [[0, 2]]
    code, out = verify_doc(run_cli, write, broken)
    assert code == 1
    assert "block set mismatch: rank 5 step 3" in out


def test_non_adjacent_peer_is_reported_when_asked(run_cli, ring_json):
    doc, write = ring_json
    assert verify_doc(run_cli, write, doc, "--adjacent")[0] == 0
    broken = copy.deepcopy(doc)
    for rank in range(6):
        for step in broken["steps"][rank]:
            for op in step:
                if op["op"] == "send":
                    op["peer"] = (rank + 2) % 6
                elif op["op"] == "recv":
                    op["peer"] = (rank - 2) % 6
    code, out = verify_doc(run_cli, write, broken, "--adjacent")
    assert code == 1
    assert "peer not adjacent" in out


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d.update(format="other"), "'format' must be"),
        (lambda d: d.update(collective="allsum"), "'collective' must be one of"),
        (lambda d: d.update(ranks=0), "'ranks' = 0 is out of range"),
        (lambda d: d["steps"].pop(), "one list of steps per rank"),
        (lambda d: d["steps"][1][0][0].update(peer=9), "rank 1 step 0 op 0: 'peer' = 9"),
        (lambda d: d["steps"][0][0][0].update(op="put"), "'op' must be one of: send, recv, copy"),
        (lambda d: d["steps"][0][0][0].update(blocks=[[3, 1]]), "empty or reversed range"),
        (lambda d: d["steps"][0][0][1].update(combine="sum"), "'combine' must be one of"),
    ],
)
def test_malformed_files_are_input_errors(run_cli, ring_json, mutate, message):
    doc, write = ring_json
    broken = copy.deepcopy(doc)
    mutate(broken)
    code, out = verify_doc(run_cli, write, broken)
    assert code == 2
    assert message in out


def test_invalid_json_text_is_an_input_error(run_cli, tmp_path):
    path = tmp_path / "bad.json"
    path.write_text("{not json")
    code, _, err = run_cli("verify", "--schedule", str(path))
    assert code == 2 and "not valid JSON" in err
    code, _, err = run_cli("verify", "--schedule", str(tmp_path / "missing.json"))
    assert code == 2 and "no such file" in err


def test_out_of_range_block_is_an_input_error(run_cli, ring_json):
    # An error in the file itself (exit 2, as docs/schedule-format.md promises), not a wrong
    # schedule (exit 1).
    doc, write = ring_json
    broken = copy.deepcopy(doc)
    first(broken, 0, 0, "send")["blocks"] = [[5, 9]]
    code, out = verify_doc(run_cli, write, broken)
    assert code == 2
    assert "rank 0 step 0 op 0: 'blocks' = 9 is out of range; accepted: 0..6" in out
