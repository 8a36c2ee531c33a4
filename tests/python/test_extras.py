"""Commands that need an optional extra (pyproject.toml: `plot` for matplotlib) say so in one line
and exit with 2 when it is missing, before any run; here matplotlib is hidden from a fresh
interpreter (`sys.modules['matplotlib'] = None` makes every import of it fail)."""

from __future__ import annotations

import subprocess
import sys

import pytest

HIDE_MATPLOTLIB = (
    "import sys\n"
    "sys.modules['matplotlib'] = None\n"
    "from topocoll.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def run_without_matplotlib(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", HIDE_MATPLOTLIB, *argv], capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize(
    "argv",
    [
        ("reproduce", "cm200-table2", "--out", "{tmp}/out"),
        ("compare", "-t", "ring:4", "--sizes", "64", "--plot", "{tmp}/plot.png"),
        ("innet", "--topology", "fattree:2:4:4:4", "--size", "4KiB", "--plot", "{tmp}/i.png"),
    ],
    ids=["reproduce", "compare", "innet"],
)
def test_a_command_that_needs_matplotlib_names_the_missing_extra(tmp_path, argv):
    run = run_without_matplotlib(*(a.format(tmp=tmp_path) for a in argv))
    assert run.returncode == 2, run.stderr
    lines = run.stderr.splitlines()
    assert len(lines) == 1, run.stderr
    assert "needs matplotlib" in lines[0] and "pip install 'topocoll[plot]'" in lines[0]
    assert "Traceback" not in run.stderr
    assert not (tmp_path / "plot.png").exists() and not (tmp_path / "i.png").exists()


def test_commands_without_figures_run_without_matplotlib():
    run = run_without_matplotlib("reproduce", "--list")
    assert run.returncode == 0 and "cm200-table2" in run.stdout, run.stderr
    run = run_without_matplotlib("compare", "-t", "ring:4", "--sizes", "64", "--format", "csv")
    assert run.returncode == 0 and "ring" in run.stdout, run.stderr
