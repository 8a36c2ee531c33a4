"""Schedule files (docs/interchange.md): reading JSON schedules and MSCCL XML algorithms, and
writing MSCCL XML."""

from __future__ import annotations

from pathlib import Path

from topocoll import _core
from topocoll.errors import InputError

SCHEDULE_FILE_LIMIT = 1 << 31


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


def read_schedule_path(name: str) -> tuple[_core.Schedule, list[str]]:
    """A JSON schedule or an MSCCL XML algorithm file, with the MSCCL executor's fallback notes."""
    path = Path(name)
    accepted = "a JSON schedule or an MSCCL XML file"
    if path.is_dir():
        raise InputError(f"--schedule: '{path}' is a directory; accepted: {accepted}")
    if not path.exists():
        raise InputError(f"--schedule: no such file '{path}'")
    if path.stat().st_size > SCHEDULE_FILE_LIMIT:
        raise InputError(f"--schedule: '{path}' is larger than 2 GiB")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise InputError(f"--schedule: '{path}' is not UTF-8 text ({accepted})") from None
    return load_schedule_text(text)


def read_schedule_file(name: str) -> _core.Schedule:
    """The schedule of a JSON or MSCCL XML file (its fallback notes dropped)."""
    return read_schedule_path(name)[0]


def msccl_document(
    schedule: _core.Schedule,
    proto: str | None = None,
    name: str | None = None,
    nchannels: int | None = None,
    instances: int | None = None,
) -> str:
    """The schedule as MSCCL XML (docs/interchange.md, "MSCCL XML out"): protocol (default
    Simple), the algorithm's name (default its registry name), channels of one instance
    (default one per port) and instances (default 1); ValueError names an option out of range."""
    return _core.to_msccl_xml(
        schedule, proto or "Simple", name or "", nchannels or 0, instances or 1
    )
