"""The package's layers (pyproject.toml, [tool.importlinter]; docs/python-api.md) hold: checked
with import-linter on the source tree, shown to fail when a library module imports the command
line, and `import topocoll` loads no command-line module."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")

needs_linter = pytest.mark.skipif(
    not LINT_IMPORTS.exists(), reason="import-linter is not installed (requirements-dev.txt)"
)


def lint_imports(package_parent: Path) -> subprocess.CompletedProcess:
    """lint-imports with the contracts of pyproject.toml on the package under `package_parent`."""
    env = {**os.environ, "PYTHONPATH": str(package_parent)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--config", str(ROOT / "pyproject.toml"), "--no-cache"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


@needs_linter
def test_the_source_tree_keeps_its_layers():
    run = lint_imports(ROOT / "python")
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 broken" in run.stdout


@needs_linter
def test_a_library_module_importing_the_cli_breaks_the_contracts(tmp_path):
    shutil.copytree(ROOT / "python" / "topocoll", tmp_path / "topocoll")
    module = tmp_path / "topocoll" / "simulation.py"
    module.write_text(module.read_text() + "\nimport topocoll.cli  # noqa: E402\n")
    run = lint_imports(tmp_path)
    assert run.returncode != 0, run.stdout
    assert "The library does not import the command line BROKEN" in run.stdout
    assert "topocoll.simulation -> topocoll.cli" in run.stdout


def test_importing_the_package_loads_no_command_line_module():
    program = (
        "import sys, topocoll\n"
        "loaded = [m for m in sys.modules if m.startswith('topocoll.cli')]\n"
        "assert not loaded, loaded\n"
        "import topocoll.simulation, topocoll.comparison, topocoll.reproduce\n"
        "assert not [m for m in sys.modules if m.startswith('topocoll.cli')]\n"
    )
    run = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr


def test_the_modules_and_the_functions_of_the_public_api_are_both_reachable():
    import importlib

    import topocoll

    simulation = importlib.import_module("topocoll.simulation")
    comparison = importlib.import_module("topocoll.comparison")
    assert topocoll.simulate is simulation.simulate and callable(topocoll.simulate)
    assert topocoll.compare is comparison.compare and callable(topocoll.compare)


@needs_linter
def test_no_import_circle():
    """No module reaches itself through the imports of others (the package's own __init__, which
    gathers the public API from above, aside)."""
    grimp = pytest.importorskip("grimp")  # import-linter's graph builder
    sys.path.insert(0, str(ROOT / "python"))
    try:
        graph = grimp.build_graph("topocoll", cache_dir=None)
    finally:
        sys.path.remove(str(ROOT / "python"))
    modules = sorted(m for m in graph.modules if m != "topocoll")
    imports = {
        m: {i for i in graph.find_modules_directly_imported_by(m) if i in modules} for m in modules
    }
    circles = []
    for start in modules:
        seen, frontier = set(), list(imports[start])
        while frontier:
            module = frontier.pop()
            if module == start:
                circles.append(start)
                break
            if module not in seen:
                seen.add(module)
                frontier.extend(imports[module])
    assert circles == []
