"""The node size K of a hier:/leader: composition in the files topocoll writes: the JSON schedule
(`ranks_per_node`, read back), MSCCL XML (a comment, which the executors' parser and ours skip)
and GOAL (a `//` line, which LogGOPSim's txt2bin skips where a statement may start)."""

from __future__ import annotations

import json
import re

from topocoll import _core
from topocoll.formats.schedule_files import load_schedule_text

GOAL_COMMENT = re.compile(r"^// ranks_per_node (\d+): ")


def test_json_round_trip_keeps_k():
    schedule = _core.build("hier:ring", "allreduce", 8, ranks_per_node=2)
    doc = json.loads(schedule.to_json())
    assert doc["ranks_per_node"] == 2
    again, notes = load_schedule_text(schedule.to_json())
    assert notes == []
    assert json.loads(again.to_json())["ranks_per_node"] == 2


def test_leader_composition_carries_its_k():
    schedule = _core.build("leader:ring", "allgather", 12, ranks_per_node=4)
    assert json.loads(schedule.to_json())["ranks_per_node"] == 4


def test_a_flat_schedule_writes_no_k():
    doc = json.loads(_core.build("ring", "allreduce", 8).to_json())
    assert "ranks_per_node" not in doc


def test_json_reader_refuses_k_that_does_not_divide_the_ranks():
    doc = json.loads(_core.build("hier:ring", "allreduce", 8, ranks_per_node=2).to_json())
    doc["ranks_per_node"] = 3
    try:
        load_schedule_text(json.dumps(doc))
    except ValueError as error:
        assert "'ranks_per_node' = 3 does not divide 'ranks' = 8" in str(error)
    else:
        raise AssertionError("a node size that does not divide the ranks was accepted")


def test_msccl_export_records_k_and_still_imports(run_cli):
    code, out, err = run_cli(
        "schedule", "-c", "allreduce", "-a", "hier:ring", "-p", "8", "--ranks-per-node", "2",
        "--format", "msccl-xml",
    )  # fmt: skip
    assert code == 0, err
    first = out.splitlines()[0]
    assert first.startswith('<!-- topocoll ranks_per_node="2"') and first.endswith("-->")
    assert "--" not in first[4:-3], "XML forbids -- inside a comment"
    assert out.splitlines()[1].startswith("<algo ")
    schedule, _ = load_schedule_text(out)
    assert schedule.info["ranks"] == 8


def test_flat_msccl_export_has_no_comment(run_cli):
    code, out, _ = run_cli(
        "schedule", "-c", "allreduce", "-a", "ring", "-p", "8", "--format", "msccl-xml"
    )
    assert code == 0 and out.startswith("<algo ")


def test_goal_export_records_k_after_num_ranks(run_cli):
    code, out, err = run_cli(
        "schedule", "-c", "allreduce", "-a", "hier:ring", "-p", "8", "--ranks-per-node", "2",
        "--format", "goal", "--size", "64KiB",
    )  # fmt: skip
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "num_ranks 8"
    m = GOAL_COMMENT.match(lines[1])
    assert m and int(m.group(1)) == 2
    assert lines[2] == "rank 0 {"
    # No other comment: the rest is the grammar of docs/interchange.md.
    assert not any(line.startswith("//") for line in lines[2:])


def test_flat_goal_export_has_no_comment(run_cli):
    code, out, _ = run_cli(
        "schedule", "-c", "allreduce", "-a", "ring", "-p", "4", "--format", "goal"
    )
    assert code == 0 and not any(line.startswith("//") for line in out.splitlines())
