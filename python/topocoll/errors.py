"""The errors every layer raises, and how the command line shows them.

An `InputError` is input that is invalid, unsupported or too large: the command line prints it on
one line and exits with code 2. A `MissingExtra` is an `InputError` for an optional dependency
that is not installed (`pip install 'topocoll[plot]'`)."""

from __future__ import annotations

import importlib

# The optional extras of pyproject.toml: the module each one installs.
EXTRAS = {"matplotlib": "plot", "mpi4py": "mpi"}


class InputError(ValueError):
    """Invalid command-line input; the CLI prints it and exits with code 2."""


class MissingExtra(InputError):
    """An optional dependency that this command needs is not installed."""

    def __init__(self, module: str, what: str = "this command") -> None:
        super().__init__(f"{what} needs {module}: pip install 'topocoll[{EXTRAS[module]}]'")
        self.module = module


def require(module: str, what: str = "this command"):
    """The module `module` of an optional extra, or MissingExtra naming the extra."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise MissingExtra(module, what) from None


def one_line(error: Exception | str) -> str:
    """The message on one line: whitespace runs become one space, other control characters
    (which a terminal or `splitlines` could treat as line breaks) are escaped."""
    text = " ".join(str(error).split())
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)
