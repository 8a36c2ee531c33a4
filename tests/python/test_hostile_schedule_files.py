"""Schedule files under hostile input: every command that reads one (`verify`, `sim`,
`compare --schedule`, the Python API) goes through the core's reader policy (regular files only,
the size checked on the bytes read, the file named), and `sim`/`compare` time only a schedule
that verifies (docs/interchange.md, "Reader policy and limits")."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from topocoll import _core
from topocoll.errors import InputError
from topocoll.formats import schedule_files

ALLREDUCE_XML = Path(__file__).resolve().parents[1] / "data" / "msccl" / "allreduce_ring_8_1.xml"
COMMANDS = (
    ("verify", "--schedule"),
    ("sim", "-t", "ring:6", "-s", "6KiB", "--schedule"),
    ("compare", "-t", "ring:6", "--algorithms", "none", "--sizes", "6KiB", "--schedule"),
)


def exit_2(run_cli, *argv: str) -> str:
    code, out, err = run_cli(*argv)
    assert code == 2, (argv, out, err)
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    return err


def cli(*argv, timeout: float = 60):
    """The command line in a child process (a hang is a timeout, not a stuck test run)."""
    return subprocess.run(
        [sys.executable, "-m", "topocoll.cli", *argv], capture_output=True, timeout=timeout
    )


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_fifo_is_refused_without_blocking(tmp_path, command):
    """Nobody writes to the FIFO: a reader that opened it blocking would wait forever."""
    fifo = tmp_path / "schedule.fifo"
    os.mkfifo(fifo)
    done = cli(*command, str(fifo), timeout=60)
    err = done.stderr.decode()
    assert done.returncode == 2, err
    assert "is a FIFO; accepted: a regular file" in err and str(fifo) in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_dev_zero_is_refused_and_named(run_cli, command):
    """/dev/zero has st_size 0 and never ends: a reader that trusted st_size read to OOM."""
    err = exit_2(run_cli, *command, "/dev/zero")
    assert "'/dev/zero': is a character device; accepted: a regular file" in err


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_directory_and_a_missing_file_are_refused(run_cli, tmp_path, command):
    assert str(tmp_path) in exit_2(run_cli, *command, str(tmp_path))
    missing = tmp_path / "missing.json"
    assert str(missing) in exit_2(run_cli, *command, str(missing))


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_an_empty_file_says_so_with_its_name(run_cli, tmp_path, command):
    empty = tmp_path / "empty.json"
    empty.write_text("")
    err = exit_2(run_cli, *command, str(empty))
    assert str(empty) in err and "empty" in err


def test_the_python_api_reads_with_the_same_policy(tmp_path):
    with pytest.raises(InputError, match="accepted: a regular file"):
        schedule_files.read_schedule_file("/dev/zero")
    with pytest.raises(InputError, match="the file name is empty"):
        schedule_files.read_schedule_file("")
    # A file name need not be UTF-8: the path goes to the core as bytes.
    name = tmp_path / os.fsdecode(b"ring-\xff.json")
    name.write_text(_core.build("ring", "allreduce", 4).to_json())
    assert schedule_files.read_schedule_file(str(name)).info["ranks"] == 4


def test_verify_non_commutative_of_msccl_xml_is_exit_2(run_cli):
    """MSCCL XML cannot state a reduction's operand order: exit 2, not a made-up violation."""
    sample = ALLREDUCE_XML
    code, out, err = run_cli("verify", "--schedule", str(sample))
    assert code == 0, out + err
    err = exit_2(run_cli, "verify", "--schedule", str(sample), "--non-commutative")
    assert "--non-commutative" in err and "MSCCL XML" in err


def dropping_a_block(doc: dict) -> dict:
    """The ring allreduce without its last message: rank 0's last send and its receive."""
    doc = json.loads(json.dumps(doc))
    steps = doc["steps"]
    last = len(steps[0]) - 1
    send = next(op for op in steps[0][last] if op["op"] == "send")
    peer = send["peer"]
    steps[0][last].remove(send)
    recv = next(op for op in steps[peer][last] if op["op"] == "recv" and op["peer"] == 0)
    steps[peer][last].remove(recv)
    return doc


def test_sim_refuses_to_time_a_schedule_verify_rejects(run_cli, ring_json):
    """Once scored 1,310% of the peak: a schedule that drops a block is faster than the bound."""
    doc, write = ring_json
    path = write(dropping_a_block(doc))
    code, out, _ = run_cli("verify", "--schedule", path)
    assert code == 1
    code, out, err = run_cli("sim", "-t", "ring:6", "-s", "6KiB", "--schedule", path)
    assert code == 1, out + err
    assert out.startswith("FAIL") and path in out and "goodput" not in out


def test_compare_refuses_to_rank_a_schedule_verify_rejects(run_cli, ring_json):
    doc, write = ring_json
    path = write(dropping_a_block(doc))
    argv = ("compare", "-t", "ring:6", "--sizes", "6KiB", "--schedule", path)
    code, out, err = run_cli(*argv)
    assert code == 1, out + err
    assert out.startswith("FAIL") and path in out


def test_an_empty_schedule_takes_no_zero_time(run_cli, ring_json):
    """No steps at all: once 0.0 ns; now the verifier's finding (exit 1)."""
    doc, write = ring_json
    doc = {**doc, "steps": [[] for _ in doc["steps"]]}
    path = write(doc)
    code, out, err = run_cli("sim", "-t", "ring:6", "-s", "6KiB", "--schedule", path)
    assert code == 1, out + err
    assert "FAIL" in out and "0.0" not in out


def test_a_right_schedule_file_is_still_timed(run_cli, ring_json):
    doc, write = ring_json
    code, out, err = run_cli("sim", "-t", "ring:6", "-s", "6KiB", "--schedule", write(doc))
    assert code == 0, err
    assert "goodput" in out
