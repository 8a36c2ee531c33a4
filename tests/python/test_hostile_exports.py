"""Exports under hostile input: `schedule --format msccl-xml` passes --non-commutative and
--force to the core and refuses up front from the core's estimate; `--format goal` follows the
core's block partition exactly and refuses what GOAL cannot hold (docs/interchange.md)."""

from __future__ import annotations

import re

import pytest
from topocoll import _core
from topocoll.formats import goal, schedule_files

RING = ("schedule", "-c", "allreduce", "-a", "ring")


def exit_2(run_cli, *argv: str) -> str:
    code, out, err = run_cli(*argv)
    assert code == 2, (argv, out[:200], err)
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err and not out
    return err


def test_msccl_export_refuses_a_non_commutative_reduction(run_cli):
    """Once silently dropped: the file would combine operands in arrival order."""
    argv = ("schedule", "-c", "allreduce", "-a", "recdoub-bw", "-p", "4", "--format", "msccl-xml")
    code, out, _ = run_cli(*argv)
    assert code == 0 and out.startswith("<algo")
    err = exit_2(run_cli, *argv, "--non-commutative")
    assert "non-commutative" in err and "accepted: a commutative operator" in err
    # Without a reduction the operator's order means nothing: the export goes on.
    argv = ("schedule", "-c", "allgather", "-a", "recdoub-bw", "-p", "4", "--format", "msccl-xml")
    code, out, _ = run_cli(*argv, "--non-commutative")
    assert code == 0 and out.startswith("<algo")


def test_msccl_export_estimate_is_the_cores():
    """The up-front refusal uses the core's estimate: ring at P = 20000 walks 8e8 rank-steps,
    past 10 minutes before a step is written; P = 8 takes a fraction of a second."""
    small = schedule_files.msccl_estimate(_core.build("ring", "allreduce", 8))
    assert 0 < small["seconds"] < 1 and small["xml_steps"] > 0
    large = schedule_files.msccl_estimate(_core.build("ring", "allreduce", 20000))
    assert large["rank_steps"] == 20000 * 2 * 19999
    assert large["seconds"] > _core.MSCCL_EXPORT_MAX_SECONDS


def test_msccl_export_refuses_up_front_and_names_the_estimate(run_cli):
    err = exit_2(run_cli, *RING, "-p", "20000", "--format", "msccl-xml")
    assert "estimated 799960000 rank-steps" in err and "force" in err
    # The old check looked at the output size only and let this one through.
    code, out, _ = run_cli(*RING, "-p", "8", "--format", "msccl-xml", "--force")
    assert code == 0 and out.startswith("<algo")


def test_msccl_export_name_with_a_control_character_is_refused(run_cli):
    err = exit_2(run_cli, *RING, "-p", "4", "--format", "msccl-xml", "--name", "a\x01b")
    assert "control" in err


def goal_sends(text: str) -> list[int]:
    return [int(n) for n in re.findall(r"send (\d+)b", text)]


def test_goal_bytes_follow_the_block_partition(run_cli):
    """1001 B over 4 ranks (4 blocks): 251, 250, 250, 250, never 250 x 4 with a byte dropped.
    Ring allreduce sends every block P - 1 times in its reduce-scatter and P - 1 times in its
    allgather: 2 x 3 x 1001 B in all (the old 250 B blocks gave 6000)."""
    code, text, err = run_cli(*RING, "-p", "4", "--format", "goal", "--size", "1001B")
    assert code == 0, err
    sends = goal_sends(text)
    assert sorted(set(sends)) == [250, 251]
    assert sum(sends) == 2 * 3 * 1001


def test_goal_of_a_chunked_collective_is_p_times_count(run_cli):
    """allgather, 4 ranks, 4099 B: count floor(4099 / 4) = 1024 per rank, as `sim` counts."""
    argv = ("schedule", "-c", "allgather", "-a", "ring", "-p", "4", "--format", "goal")
    code, text, err = run_cli(*argv, "--size", "4099B")
    assert code == 0, err
    assert set(goal_sends(text)) == {1024}


def test_goal_size_below_the_block_count_is_refused(run_cli):
    """Once `send 0b`: 3 bytes over 4 blocks."""
    err = exit_2(run_cli, *RING, "-p", "4", "--format", "goal", "--size", "3B")
    assert "accepted: at least 4 B" in err


def test_goal_numbers_past_what_loggopsim_holds_are_refused(run_cli):
    """1 TiB reduced at 1e9 ns per byte: 2.7e20 ns, past 2^64 (once printed as is)."""
    argv = (*RING, "-p", "2", "--format", "goal", "--size", "1TiB")
    err = exit_2(run_cli, *argv, "--reduce-ns-per-byte", "1e9")
    assert "2^63 - 1" in err
    code, text, _ = run_cli(*argv, "--reduce-ns-per-byte", "1")
    assert code == 0 and max(int(n) for n in re.findall(r"\d+", text)) < 2**63


def test_goal_refuses_up_front_beyond_its_estimate(run_cli, monkeypatch):
    """The estimate covers memory (the schedule's JSON and its parsed form): with a machine of
    1 MiB the export of ring on 64 ranks is refused, naming the estimate; --force goes on."""
    from topocoll import limits

    monkeypatch.setattr(limits, "physical_memory", lambda: 1 << 20)
    argv = (*RING, "-p", "64", "--format", "goal")
    err = exit_2(run_cli, *argv)
    assert "GOAL export: estimated" in err and "memory" in err and "--force" in err
    code, text, _ = run_cli(*argv, "--force")
    assert code == 0 and text.startswith("num_ranks 64")


def test_goal_estimate_grows_with_the_schedule():
    small = goal.goal_estimate(_core.build("ring", "allreduce", 8))
    large = goal.goal_estimate(_core.build("ring", "allreduce", 64))
    assert large["memory_bytes"] > 50 * small["memory_bytes"] > 0


@pytest.mark.parametrize("size", [4, 5, 4097, 1 << 20])
def test_goal_total_bytes_equal_the_simulators(size):
    """Per rank the bytes GOAL sends equal the sum the core's partition gives its messages."""
    schedule = _core.build("ring", "allreduce", 4)
    text = goal.goal_document(schedule, size)
    sizes = _core.partition_sizes(schedule, size)
    assert sum(sizes) == size
    assert sum(goal_sends(text)) == 2 * 3 * size  # each rank sends every block but its own twice
