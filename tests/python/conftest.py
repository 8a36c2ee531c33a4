from __future__ import annotations

import json

import pytest
from topocoll import cli


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Under pytest-xdist (`--dist loadgroup`, Makefile) a group's tests run on one worker in
    # collection order: the longest groups (test_reproduce's two fixtures, about 80 and 100 CPU
    # s) first, one on each worker, so that the other tests fill the time beside them.
    def longest_first(item: pytest.Item) -> int:
        group = item.get_closest_marker("xdist_group")
        return 0 if group is not None and group.args[0].startswith("reproduce-") else 1

    items.sort(key=longest_first)


@pytest.fixture
def run_cli(capsys):
    """Run the CLI in-process; return (exit code, stdout, stderr)."""

    def run(*argv: str) -> tuple[int, str, str]:
        code = cli.main(list(argv))
        out, err = capsys.readouterr()
        return code, out, err

    return run


@pytest.fixture
def ring_json(run_cli, tmp_path):
    """A ring allreduce schedule on 6 ranks as a parsed JSON document and a writer."""
    code, out, _ = run_cli(
        "schedule", "-c", "allreduce", "-a", "ring", "-p", "6", "--format", "json"
    )
    assert code == 0
    doc = json.loads(out)

    def write(document: dict) -> str:
        path = tmp_path / "schedule.json"
        path.write_text(json.dumps(document))
        return str(path)

    return doc, write
