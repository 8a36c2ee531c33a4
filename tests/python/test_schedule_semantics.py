"""What docs/schedule-format.md states the verifier accepts and an MPI runtime must honour:
snapshot semantics within a step, empty block sets, matching per operation in posting order."""

from __future__ import annotations

import json

import topocoll


def doc(collective: str, ranks: int, blocks: int, steps: list, ports: int = 2) -> str:
    return json.dumps(
        {
            "format": "topocoll-schedule",
            "version": 1,
            "collective": collective,
            "ranks": ranks,
            "blocks": blocks,
            "ports": ports,
            "steps": steps,
        }
    )


def send(peer, blocks, port=0):
    return {"op": "send", "peer": peer, "port": port, "blocks": blocks}


def recv(peer, blocks, combine="copy", port=0):
    return {"op": "recv", "peer": peer, "port": port, "blocks": blocks, "combine": combine}


def verify(text: str, mode: str = "exact") -> dict:
    return topocoll.verify(topocoll.load_json(text), mode)


def test_send_and_receive_on_one_slot_in_one_step_use_the_value_at_step_start():
    # Two ranks exchange and reduce block 0 in place: each send must carry the rank's own
    # contribution, not what the receive of the same step lands there.
    steps = [
        [[send(1, [[0, 1]]), recv(1, [[0, 1]], "reduce")]],
        [[send(0, [[0, 1]]), recv(0, [[0, 1]], "reduce")]],
    ]
    for mode in ("exact", "fingerprint"):
        report = verify(doc("allreduce", 2, 1, steps), mode)
        assert report["ok"], report["message"]


def test_empty_block_sets_match_and_carry_nothing():
    steps = [[[send(1, [[0, 1]])], [send(1, [])]], [[recv(0, [[0, 1]])], [recv(0, [])]]]
    report = verify(doc("bcast", 2, 1, steps))
    assert report["ok"], report["message"]
    assert report["messages"] == 2 and report["block_transfers"] == 1


def test_matching_is_per_operation_in_posting_order():
    two_sends = [send(1, [[0, 1]]), send(1, [[1, 2]])]
    in_order = [recv(0, [[0, 1]]), recv(0, [[1, 2]])]
    report = verify(doc("bcast", 2, 2, [[two_sends], [in_order]]))
    assert report["ok"], report["message"]
    # The receiver lists them the other way round: its first receive matches the first send.
    swapped = [recv(0, [[1, 2]]), recv(0, [[0, 1]])]
    report = verify(doc("bcast", 2, 2, [[two_sends], [swapped]]))
    assert not report["ok"] and report["violation"] == "block set mismatch"


def test_a_send_of_several_ranges_is_one_message():
    one_send = [send(1, [[0, 1], [2, 3]])]
    report = verify(
        doc(
            "bcast",
            2,
            3,
            [[one_send, [send(1, [[1, 2]])]], [[recv(0, [[0, 1], [2, 3]])], [recv(0, [[1, 2]])]]],
        )
    )
    assert report["ok"], report["message"]
    assert report["messages"] == 2 and report["ranges"] == 3
    # Split into two receives: the first one matches the whole send and disagrees on blocks.
    split = [recv(0, [[0, 1]]), recv(0, [[2, 3]])]
    report = verify(doc("bcast", 2, 3, [[one_send], [split]]))
    assert not report["ok"]
    assert report["violation"] == "block set mismatch"
