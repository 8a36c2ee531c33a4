"""`reproduce --resume`: the units of work a stopped run finished are written down as they finish
(reproduce/journal.py) and reused by the next run into the same folder, only when the same build,
machine files and scale made them; every other unit runs again."""

from __future__ import annotations

import ast
import csv
import json
import math

import pytest
from topocoll.cli.reproduce import main
from topocoll.reproduce.core import Context
from topocoll.reproduce.journal import UnitJournal

IDENTITY = {"experiment": "test", "scale": "small", "machine": None, "build": "a"}
ITEMS = [("allreduce", n) for n in range(6)]


def context(folder, resume: bool, identity=IDENTITY, jobs: int = 1) -> Context:
    journal = UnitJournal(folder / "units", identity, resume)
    return Context(scale="small", jobs=jobs, out=folder, journal=journal)


def value_of(item) -> list[float]:
    return [item[1] / 3, float(item[1])]


def recording(compute):
    """A unit runner that notes each item it runs."""
    ran: list = []

    def run(item):
        ran.append(item)
        return compute(item)

    return ran, run


class Stopped(Exception):
    pass


def run_until_stopped(folder, stop_after: int) -> None:
    """A run that finishes `stop_after` units and is then stopped."""
    finished = []

    def run(item):
        if len(finished) == stop_after:
            raise Stopped
        finished.append(item)
        return value_of(item)

    with pytest.raises(Stopped):
        context(folder, resume=False).map(run, ITEMS)


def test_a_resumed_run_runs_only_the_units_not_written_down(tmp_path):
    run_until_stopped(tmp_path, stop_after=3)
    ran, run = recording(value_of)

    assert context(tmp_path, resume=True).map(run, ITEMS) == [value_of(i) for i in ITEMS]
    assert ran == ITEMS[3:]
    # Resumed once more, nothing is left to run; without --resume everything runs.
    ran.clear()
    assert context(tmp_path, resume=True).map(run, ITEMS) == [value_of(i) for i in ITEMS]
    assert ran == []
    assert context(tmp_path, resume=False).map(run, ITEMS) == [value_of(i) for i in ITEMS]
    assert ran == ITEMS


def test_threads_write_every_unit_down(tmp_path):
    assert context(tmp_path, resume=False, jobs=4).map(value_of, ITEMS) == [
        value_of(i) for i in ITEMS
    ]
    lines = (tmp_path / "units" / "rank0.jsonl").read_text().splitlines()
    assert json.loads(lines[0]) == {"identity": IDENTITY}
    assert sorted(json.loads(line)["unit"] for line in lines[1:]) == sorted(
        f"1:{item!r}" for item in ITEMS
    )


def test_units_of_another_build_run_again(tmp_path, capsys):
    run_until_stopped(tmp_path, stop_after=3)
    ran, run = recording(value_of)

    other = {**IDENTITY, "build": "b"}
    assert context(tmp_path, resume=True, identity=other).map(run, ITEMS) == [
        value_of(i) for i in ITEMS
    ]
    assert ran == ITEMS
    assert "another build, machine file or scale" in capsys.readouterr().err


def test_a_line_cut_short_by_the_stop_is_left_out(tmp_path):
    run_until_stopped(tmp_path, stop_after=3)
    path = tmp_path / "units" / "rank0.jsonl"
    path.write_text(path.read_text()[:-10])  # the third unit's line, cut
    ran, run = recording(value_of)

    assert context(tmp_path, resume=True).map(run, ITEMS) == [value_of(i) for i in ITEMS]
    assert ran == ITEMS[2:]


def test_results_json_would_change_are_not_written_down(tmp_path):
    values = {0: (1.0, 2.0), 1: [math.nan], 2: {1: 2.0}, 3: [1.5]}
    context(tmp_path, resume=False).map(lambda item: values[item], list(values))
    ran, run = recording(values.__getitem__)

    assert context(tmp_path, resume=True).map(run, list(values))[0] == (1.0, 2.0)
    assert ran == [0, 1, 2]  # the tuple, NaN and int keys would come back as something else


def test_two_maps_over_equal_items_keep_their_own_units(tmp_path):
    first = context(tmp_path, resume=False)
    first.map(value_of, ITEMS)
    first.map(lambda item: [-1.0], ITEMS)
    again = context(tmp_path, resume=True)
    assert again.map(value_of, ITEMS) == [value_of(i) for i in ITEMS]
    assert again.map(lambda item: [-1.0], ITEMS) == [[-1.0]] * len(ITEMS)


def best_times(folder) -> dict[tuple, float]:
    with (folder / "bine-fugaku" / "fugaku.csv").open(newline="") as f:
        return {(r["collective"], r["nodes"], r["size_bytes"]): float(r["best_s"])
                for r in csv.DictReader(f)}  # fmt: skip


def test_reproduce_resume_reuses_the_written_units(tmp_path):
    """End to end (bine-fugaku at small scale, about 2 s a run): a unit edited in the journal
    shows in the table of the resumed run, and a run without --resume computes it again."""
    argv = ["bine-fugaku", "--out", str(tmp_path)]
    assert main(argv) == 0
    before = best_times(tmp_path)
    journal = tmp_path / "bine-fugaku" / "units" / "rank0.jsonl"
    lines = journal.read_text().splitlines()
    edited = next(i for i, line in enumerate(lines) if "'allgather', 'bine-bw-torus'" in line)
    unit = json.loads(lines[edited])
    nodes = ast.literal_eval(unit["unit"].split(":", 1)[1])[2]
    lines[edited] = json.dumps({"unit": unit["unit"], "value": [1.0] * len(unit["value"])})
    journal.write_text("\n".join(lines) + "\n")

    assert main([*argv, "--resume"]) == 0
    resumed = best_times(tmp_path)
    changed = {key for key in before if resumed[key] != before[key]}
    assert changed and all(key[:2] == ("allgather", nodes) for key in changed)
    assert all(resumed[key] == 1.0 for key in changed)

    assert main(argv) == 0
    assert best_times(tmp_path) == before


def test_a_unit_edited_out_of_shape_is_exit_2(tmp_path, capsys):
    argv = ["bine-fugaku", "--out", str(tmp_path)]
    assert main(argv) == 0
    journal = tmp_path / "bine-fugaku" / "units" / "rank0.jsonl"
    original = journal.read_text().splitlines()
    unit = json.loads(original[1])
    times = unit["value"]
    # One time short; text where times were (a TypeError in the tables before); times below 0.
    for edited in (times[:-1], ["x"] * len(times), [-1.0] * len(times)):
        lines = [*original]
        lines[1] = json.dumps({"unit": unit["unit"], "value": edited})
        journal.write_text("\n".join(lines) + "\n")
        assert main([*argv, "--resume"]) == 2, edited
        err = capsys.readouterr().err
        assert "--resume: the unit" in err and "accepted:" in err, err


def test_lines_no_run_could_write_are_run_again(tmp_path, capsys):
    """NaN, bytes that are not UTF-8, nesting deeper than the JSON reader recurses, a unit
    that is not a string, a first line that is not an object: those units run again; a
    directory named like a journal file is passed over with a line."""
    context(tmp_path, resume=False).map(value_of, ITEMS)
    path = tmp_path / "units" / "rank0.jsonl"
    head, *units = path.read_bytes().splitlines()
    units[0] = units[0].replace(b"0.0", b"NaN", 1)
    units[1] = b"\xff\xfe" + units[1]
    units[2] = b"[" * 100_000 + b"]" * 100_000
    units[3] = json.dumps({"unit": 3, "value": [1.0]}).encode()
    path.write_bytes(b"\n".join([head, *units]) + b"\n")
    (tmp_path / "units" / "rank1.jsonl").mkdir()
    ran, run = recording(value_of)

    assert context(tmp_path, resume=True).map(run, ITEMS) == [value_of(i) for i in ITEMS]
    assert ran == ITEMS[:4]
    err = capsys.readouterr().err
    assert "rank1.jsonl" in err and "not regular files" in err

    path.write_bytes(b"[1, 2]\n" + b"\n".join(units[4:]) + b"\n")
    ran, run = recording(value_of)
    assert context(tmp_path, resume=True).map(run, ITEMS) == [value_of(i) for i in ITEMS]
    assert ran == ITEMS
