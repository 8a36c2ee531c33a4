"""Schedule files (docs/interchange.md): reading JSON schedules and MSCCL XML algorithms, and
writing MSCCL XML.

Files are read by the core's reader (src/interop/schedule_file.cpp, `_core.read_schedule_file`),
the one reader policy of every file topocoll reads (docs/interchange.md, "Reader policy and
limits"): regular files only (a FIFO, a device, a socket or a directory is refused before
anything is read, without blocking), at most `SCHEDULE_FILE_LIMIT` bytes read, the file named in
every error."""

from __future__ import annotations

import os
from dataclasses import dataclass

from topocoll import _core
from topocoll.errors import InputError, one_line

SCHEDULE_FILE_LIMIT = _core.SCHEDULE_FILE_LIMIT


@dataclass(frozen=True)
class ScheduleFile:
    schedule: _core.Schedule
    notes: list[str]  # what would make the MSCCL executor fall back (empty for JSON)
    msccl: bool  # MSCCL XML: the format cannot state a reduction's operand order


def is_xml(text: str) -> bool:
    """Whether a schedule file's text is XML (MSCCL) rather than JSON."""
    return text.lstrip("\ufeff \t\r\n").startswith("<")


def load_schedule_text(text: str) -> tuple[_core.Schedule, list[str]]:
    """A schedule from the text of a JSON schedule or an MSCCL XML algorithm, with the notes on
    what would make the MSCCL executor fall back (empty for JSON). ValueError names a problem."""
    if is_xml(text):
        schedule, notes = _core.load_msccl_xml(text)
        return schedule, list(notes)
    return _core.load_json(text), []


def read_schedule_document(name: str | os.PathLike, option: str = "--schedule") -> ScheduleFile:
    """A JSON schedule or an MSCCL XML algorithm file, read with the core's reader policy;
    InputError (one line, naming `option` and the file) for a file that cannot be read or is no
    schedule."""
    try:
        path = os.fsencode(name)
    except TypeError:
        raise InputError(f"{option}: a file path is required, not {type(name).__name__}") from None
    if not path:
        raise InputError(f"{option}: the file name is empty; accepted: a JSON or MSCCL XML file")
    try:
        schedule, notes, msccl = _core.read_schedule_file(path)
    except ValueError as error:
        raise InputError(f"{option}: {one_line(error)}") from None
    return ScheduleFile(schedule, list(notes), bool(msccl))


def read_schedule_path(name: str) -> tuple[_core.Schedule, list[str]]:
    """A JSON schedule or an MSCCL XML algorithm file, with the MSCCL executor's fallback notes."""
    file = read_schedule_document(name)
    return file.schedule, file.notes


def read_schedule_file(name: str) -> _core.Schedule:
    """The schedule of a JSON or MSCCL XML file (its fallback notes dropped)."""
    return read_schedule_document(name).schedule


def msccl_document(
    schedule: _core.Schedule,
    proto: str | None = None,
    name: str | None = None,
    nchannels: int | None = None,
    instances: int | None = None,
    *,
    commutative: bool = True,
    force: bool = False,
) -> str:
    """The schedule as MSCCL XML (docs/interchange.md, "MSCCL XML out"): protocol (default
    Simple), the algorithm's name (default its registry name), channels of one instance
    (default one per port) and instances (default 1). ValueError names an option out of range,
    a name XML cannot carry, a non-commutative reduction (the format cannot state operand
    order), or an export estimated beyond about 10 minutes or half this machine's memory
    (`msccl_estimate`) unless `force`."""
    return _core.to_msccl_xml(
        schedule, proto or "Simple", name or "", nchannels or 0, instances or 1, commutative, force
    )


def msccl_estimate(schedule: _core.Schedule, instances: int | None = None) -> dict:
    """What an MSCCL XML export of `schedule` will cost, before it runs (no XML written):
    rank_steps, xml_steps, chunk_visits, output_bytes, memory_bytes, seconds."""
    return dict(_core.estimate_msccl_export(schedule, instances or 1))
