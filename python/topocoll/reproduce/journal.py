"""The units of work an experiment has finished, written down as they finish, so that a run
stopped part-way (a paper-scale table that takes hours) can go on where it stopped with
`reproduce --resume` instead of starting again.

A journal is one folder, `<out>/<experiment>/units/`, with one file per process (`rank<R>.jsonl`
under mpirun, `rank0.jsonl` otherwise): a first line naming what made the units (the
experiment, its scale, the --machine given and a fingerprint of the simulator's build and the
shipped machine files), then one line per finished unit. Units are reused only when that first
line matches the run's exactly: another build, another machine file or another scale makes them
stale, and the run starts afresh."""

from __future__ import annotations

import hashlib
import json
import sys
import threading
from importlib import resources
from pathlib import Path

from topocoll.parallel import broadcast

FOLDER = "units"


def build_fingerprint(machine: str | None) -> str:
    """SHA-256 over what a unit's result depends on besides its key: the simulator's compiled
    core, every shipped machine file and, for `--machine FILE`, that file."""
    from topocoll import _core

    digest = hashlib.sha256(Path(_core.__file__).read_bytes())
    shipped = resources.files("topocoll.machines")
    for entry in sorted(shipped.iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            digest.update(entry.name.encode())
            digest.update(entry.read_bytes())
    if machine and Path(machine).is_file():
        digest.update(Path(machine).read_bytes())
    return digest.hexdigest()


def reusable(value) -> bool:
    """Whether `value` comes back from JSON as itself (floats, lists, str-keyed dicts; not
    tuples, NaN or objects): only such results are written down."""
    try:
        return json.loads(json.dumps(value, allow_nan=False)) == value
    except (TypeError, ValueError):
        return False


class UnitJournal:
    """The finished units of one experiment's run: `done` (from earlier runs, when resumed)
    and `record` (thread-safe appends). Under mpirun rank 0 reads every rank's file and
    broadcasts what it found, so that all ranks skip the same units."""

    def __init__(self, folder: Path, identity: dict, resume: bool, world=None) -> None:
        self.folder = folder
        self.identity = identity
        rank = 0 if world is None else world[1]
        self.path = folder / f"rank{rank}.jsonl"
        found = self._read() if resume and rank == 0 else {}
        self.done: dict[str, object] = broadcast(found, world)
        self._lock = threading.Lock()
        self._calls = 0
        folder.mkdir(parents=True, exist_ok=True)
        # Every process starts its own file afresh: the units worth keeping are in `done`
        # and written again below, so a file never mixes two builds.
        with self.path.open("w") as f:
            f.write(json.dumps({"identity": identity}) + "\n")
            if rank == 0:
                for key, value in self.done.items():
                    f.write(json.dumps({"unit": key, "value": value}) + "\n")

    def _read(self) -> dict[str, object]:
        units: dict[str, object] = {}
        stale, unreadable = [], []
        for path in sorted(self.folder.glob("rank*.jsonl")):
            if not path.is_file():  # a directory or FIFO of that name holds no units
                unreadable.append(path.name)
                continue
            # Bytes that are not UTF-8 spoil their line only, like a line cut short.
            lines = path.read_bytes().decode("utf-8", errors="replace").splitlines()
            try:
                head = json.loads(lines[0]) if lines else {}
            except (json.JSONDecodeError, RecursionError):
                head = {}
            if not isinstance(head, dict) or head.get("identity") != self.identity:
                stale.append(path.name)
                continue
            for line in lines[1:]:
                try:
                    entry = json.loads(line)
                except (json.JSONDecodeError, RecursionError):
                    continue  # a line cut short when the run was stopped, or not ours
                # Only what record() could have written: no NaN, no infinity.
                if (isinstance(entry, dict) and isinstance(entry.get("unit"), str)
                        and "value" in entry and reusable(entry["value"])):  # fmt: skip
                    units[entry["unit"]] = entry["value"]
        if unreadable:
            print(f"  --resume: {', '.join(unreadable)} in {self.folder} are not regular files; "
                  "their units are run again", file=sys.stderr)  # fmt: skip
        if stale:
            print(f"  --resume: {', '.join(stale)} in {self.folder} were made by another build, "
                  "machine file or scale; their units are run again", file=sys.stderr)  # fmt: skip
        return units

    def next_call(self) -> int:
        """The number of this `Context.map` call within the run: keys are per call, since one
        experiment may map different work over equal items."""
        self._calls += 1
        return self._calls

    def record(self, key: str, value) -> None:
        if not reusable(value):
            return
        line = json.dumps({"unit": key, "value": value}) + "\n"
        with self._lock, self.path.open("a") as f:
            f.write(line)
