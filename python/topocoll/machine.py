"""Machine files (format `topocoll-machine/1`, docs/host-costs.md and docs/machines.md): a
machine's network parameters, host costs and default topology, each value with its source.

`load_machine(spec)` takes the name of a shipped machine (a file of python/topocoll/machines/,
without `.json`) or the path of a machine file; the core reads and checks the file
(src/topology/machine_file.cpp) and returns a `_core.Machine`: `name`, `description`,
`topology` (a spec, or None), `params` (NetworkParams, host costs in `params.host`),
`reduce_s_per_byte_by_class`, `sources` (key -> source) and `params_for(datatype_class)`.
"""

from __future__ import annotations

import os
from pathlib import Path

from topocoll import _core
from topocoll.errors import InputError

MACHINE_DIR = Path(__file__).parent / "machines"

# MPI datatypes (C names without MPI_, and short forms) and the reduction class whose rate a
# machine file gives for them ("float", "double", "int": src/topology/machine_file.cpp).
DATATYPE_CLASSES: dict[str, str] = {
    "float": "float",
    "double": "double",
    "int": "int",
    "char": "int",
    "short": "int",
    "long": "int",
    "int8": "int",
    "int16": "int",
    "int32": "int",
    "int64": "int",
    "uint8": "int",
    "uint16": "int",
    "uint32": "int",
    "uint64": "int",
}


def shipped_machines() -> list[str]:
    """The names of the machine files shipped with topocoll, sorted."""
    return sorted(p.stem for p in MACHINE_DIR.glob("*.json"))


def machine_path(name: str) -> Path | None:
    """The path of shipped machine `name`, or None when there is none of that name."""
    return MACHINE_DIR / f"{name}.json" if name in shipped_machines() else None


def load_machine(spec: str) -> _core.Machine:
    """The machine `spec` names: a shipped machine's name or the path of a machine file.
    InputError (a ValueError) with one line naming the file and the problem, or the shipped
    names when `spec` is neither."""
    if not isinstance(spec, (str, os.PathLike)):
        raise TypeError(f"machine must be a name or a path, not {type(spec).__name__}")
    spec = os.fspath(spec)
    if any(not c.isprintable() for c in spec):
        raise InputError(f"--machine {ascii(spec)} contains a control character")
    shipped = machine_path(spec)
    if shipped is not None:
        return _core.read_machine_file(str(shipped))
    if os.path.exists(spec) or os.sep in spec or spec.endswith(".json"):
        return _core.read_machine_file(spec)
    raise InputError(
        f"unknown machine '{spec}'; accepted: {', '.join(shipped_machines())} or the path of a "
        "machine file (docs/machines.md)"
    )


def datatype_class(datatype: str) -> str:
    """The reduction class of an MPI datatype name ("float" -> "float", "int32" -> "int")."""
    if not isinstance(datatype, str):
        raise TypeError(f"datatype must be a string, not {type(datatype).__name__}")
    found = DATATYPE_CLASSES.get(datatype.lower())
    if found is None:
        raise InputError(
            f"unknown datatype '{ascii(datatype)[1:-1]}'; accepted: {', '.join(DATATYPE_CLASSES)}"
        )
    return found
