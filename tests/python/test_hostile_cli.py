"""The command line under hostile input: bytes that are not UTF-8 in argv, empty output paths,
options that cannot apply, outputs that cannot be written, `reproduce` estimates and its report
on bad input. Each is one line and exit 2, never a traceback."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest


def exit_2(run_cli, *argv: str) -> str:
    code, out, err = run_cli(*argv)
    assert code == 2, (argv, out[:300], err)
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    return err


def child(*argv: bytes | str, module: str = "topocoll.cli", timeout: float = 120):
    """A command in a child process, argv given as bytes where they are not UTF-8."""
    args = [os.fsencode(a) for a in (sys.executable, "-m", module, *argv)]
    return subprocess.run(args, capture_output=True, timeout=timeout)


NOT_UTF8 = b"ring\xff"
COMMANDS_WITH_TEXT = [
    ("verify", "-c", "allreduce", "-p", "4", "-a", NOT_UTF8),
    ("schedule", "-c", "allreduce", "-p", "4", "-a", NOT_UTF8),
    ("schedule", "-c", "allreduce", "-p", "4", "-a", "ring", "--format", "msccl-xml", "--name")
    + (NOT_UTF8,),
    ("traffic", "-c", "allreduce", "-p", "4", "--groups", "contiguous:2", "-a", NOT_UTF8),
    ("innet", "--size", "64KiB", "-a", NOT_UTF8),
]


@pytest.mark.parametrize("argv", COMMANDS_WITH_TEXT, ids=lambda a: a[0] + ":" + a[-2])
def test_bytes_that_are_not_utf8_are_one_line_exit_2(argv):
    """Once nanobind's TypeError and a traceback."""
    done = child(*argv)
    err = done.stderr.decode(errors="replace")
    assert done.returncode == 2, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "is not UTF-8 text" in err and "\\xff" in err


@pytest.mark.parametrize(
    "argv, option",
    [
        (
            ("sim", "-t", "ring:4", "-c", "allreduce", "-a", "ring", "-s", "4KiB", "--links", ""),
            "--links",
        ),
        (
            ("sim", "-t", "ring:4", "-c", "allreduce", "-a", "ring", "-s", "4KiB", "--trace", ""),
            "--trace",
        ),
        (("compare", "-t", "ring:4", "--sizes", "4KiB", "--plot", ""), "--plot"),
        (("tune", "-t", "ring:4", "-p", "4", "--sizes", "4KiB", "-o", ""), "--output"),
        (("innet", "--size", "64KiB", "-a", "ring", "--links", ""), "--links"),
        (("reproduce", "cm200-table2", "--out", ""), "--out"),
    ],
    ids=lambda a: a if isinstance(a, str) else a[0],
)
def test_an_empty_output_path_is_exit_2_naming_the_option(run_cli, argv, option):
    """Once read as 'not given': the run went on and wrote nothing."""
    err = exit_2(run_cli, *argv)
    assert option in err and "empty" in err


INNET = ("innet", "--size", "64KiB")


@pytest.mark.parametrize(
    "extra, words",
    [
        (("--congestion", "none", "--background-load", "0.5"), "--background-load does not apply"),
        (("--congestion", "none", "--background-message", "4KiB"), "--congestion none"),
        (("-a", "ring", "--timeout", "2us"), "--timeout does not apply to --algorithms ring"),
        (("-a", "ring", "--table-entries", "8"), "--table-entries does not apply"),
        (("-a", "ring", "--window", "8"), "--window does not apply"),
        (("-a", "ring", "--max-time", "0ns"), "--max-time 0ns"),
        (
            (
                "-a",
                "static-33",
            ),
            "static-33: 33 static trees need 33 distinct spines",
        ),
    ],
)
def test_innet_options_that_cannot_apply_are_refused(run_cli, extra, words):
    assert words in exit_2(run_cli, *INNET, *extra)


def test_innet_defaults_and_applicable_options_still_run(run_cli):
    code, out, err = run_cli(*INNET, "-a", "ring", "--congestion", "none", "--json")
    assert code == 0, err
    assert "ring" in json.loads(out)
    # A Canary option with Canary among the algorithms applies.
    code, _, err = run_cli(*INNET, "-a", "canary,ring", "--congestion", "none", "--timeout", "2us")
    assert code == 0, err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_tune_output_that_cannot_be_written_names_the_path(run_cli):
    """Once 'No space left on device: ' with no path."""
    argv = ("tune", "-t", "ring:4", "-p", "4", "--sizes", "4KiB", "--algorithms", "ring")
    argv += ("-o", "/dev/full")
    err = exit_2(run_cli, *argv)
    assert "/dev/full" in err and "No space left on device" in err


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_sim_links_that_cannot_be_written_name_the_path(run_cli):
    argv = ("sim", "-t", "ring:4", "-c", "allreduce", "-a", "ring", "-s", "4KiB")
    argv += ("--links", "/dev/full")
    err = exit_2(run_cli, *argv)
    assert "--links /dev/full" in err and "No space left on device" in err


def test_reproduce_refuses_a_run_beyond_its_estimate(run_cli, tmp_path):
    """swing-fig12 is estimated at 3430 s at paper scale (`--list`): refused before it starts."""
    argv = ("reproduce", "swing-fig12", "--scale", "paper", "--out", str(tmp_path / "out"))
    err = exit_2(run_cli, *argv)
    assert "3430 s" in err and "--force" in err
    assert not (tmp_path / "out").exists()


def test_reproduce_list_names_lists_those_experiments(run_cli):
    code, out, _ = run_cli("reproduce", "--list", "cm200")
    assert code == 0
    rows = out.strip().splitlines()[1:]
    assert rows and all(row.split()[1] == "cm200" for row in rows)
    assert "unknown experiment" in exit_2(run_cli, "reproduce", "--list", "nonsense")


REPORT = "topocoll.reproduce.report"


def report(*argv: str):
    done = child(*argv, module=REPORT)
    return done.returncode, done.stdout.decode(), done.stderr.decode()


def test_report_on_bad_input_is_one_line_exit_2(tmp_path):
    """Once IndexError, JSONDecodeError, KeyError or IsADirectoryError."""
    cases = {"no argument": (), "missing": (str(tmp_path / "missing"),)}
    empty = tmp_path / "empty"
    empty.mkdir()
    cases["no verdicts"] = (str(empty),)
    bad_json = tmp_path / "bad" / "x"
    bad_json.mkdir(parents=True)
    (bad_json / "verdict.json").write_text("{not json")
    cases["bad JSON"] = (str(tmp_path / "bad"),)
    no_keys = tmp_path / "keys" / "x"
    no_keys.mkdir(parents=True)
    (no_keys / "verdict.json").write_text("{}")
    cases["missing keys"] = (str(tmp_path / "keys"),)
    a_dir = tmp_path / "dir" / "x" / "verdict.json"
    a_dir.mkdir(parents=True)
    cases["verdict.json a folder"] = (str(tmp_path / "dir"),)
    for what, argv in cases.items():
        code, out, err = report(*argv)
        assert code == 2, (what, err)
        assert len(err.strip().splitlines()) == 1 and "Traceback" not in err, (what, err)


def test_report_of_a_real_verdict(tmp_path):
    folder = tmp_path / "exp"
    folder.mkdir()
    claim = {"id": "c1", "claim": "x", "where": "Fig. 1", "paper": 2.0, "unit": "x"}
    claim |= {"ours": 2.1, "verdict": "agree", "tolerance": {"rel": 0.1}, "relation": "equal"}
    verdict = {"scale": "small", "figure": "Fig. 1", "seconds": 1.0, "claims": [claim]}
    (folder / "verdict.json").write_text(json.dumps(verdict))
    code, out, err = report(str(tmp_path))
    assert code == 0, err
    assert "| c1: x | Fig. 1 | 2 x (rel 0.1) | 2.1 | agree |" in out
