from __future__ import annotations

import json

import pytest
from topocoll.errors import InputError
from topocoll.groups import parse_groups
from topocoll.units import parse_bytes


def test_units():
    assert parse_bytes("32B") == 32
    assert parse_bytes("4KiB") == 4096
    assert parse_bytes("512MiB") == 512 * 1024**2
    assert parse_bytes("1000") == 1000
    with pytest.raises(InputError, match="accepted"):
        parse_bytes("4 parsecs")


def test_contiguous_groups():
    assert parse_groups("contiguous:3", 7) == [0, 0, 0, 1, 1, 1, 2]


def test_random_groups_follow_node_order_and_are_seeded():
    a = parse_groups("random:8:4:7", 10)
    assert a == parse_groups("random:8:4:7", 10)
    assert a == sorted(a)
    assert all(a.count(g) <= 4 for g in set(a))
    assert a != parse_groups("random:8:4:8", 10) or a != parse_groups("random:8:4:9", 10)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("contiguous:0", "out of range; accepted: 1.."),
        ("contiguous:x", "not an integer"),
        ("random:2:2:1", "fewer than the 8 ranks"),
        ("random:2:2", "expected random:NGROUPS:GROUPSIZE:SEED"),
        ("dragonfly", "accepted: contiguous:G"),
        ("missing.csv", "no such file"),
    ],
)
def test_bad_group_specs(spec, message):
    with pytest.raises(InputError, match=message):
        parse_groups(spec, 8)


def test_csv_allocation(tmp_path):
    path = tmp_path / "alloc.csv"
    path.write_text("rank,group\n0,5\n1,5\n2,9\n3,9\n")
    assert parse_groups(str(path), 4) == [5, 5, 9, 9]
    path.write_text("0,5\n1,5\n2,9\n")
    with pytest.raises(InputError, match="no group for rank"):
        parse_groups(str(path), 4)
    path.write_text("0,5\n0,6\n1,1\n")
    with pytest.raises(InputError, match="listed twice"):
        parse_groups(str(path), 2)
    path.write_text("0,5\n7,1\n")
    with pytest.raises(InputError, match="out of range"):
        parse_groups(str(path), 2)


def test_ring_traffic_counts_boundary_crossings(run_cli):
    # 8 ranks in groups of 4: a one-way ring crosses the boundary on 2 of its 8 links.
    code, out, _ = run_cli(
        "traffic",
        "-c",
        "allreduce",
        "-a",
        "ring",
        "-p",
        "8",
        "--groups",
        "contiguous:4",
        "--size",
        "8KiB",
        "--json",
    )
    assert code == 0
    result = json.loads(out)["results"][0]
    per_message = 8 * 1024 // 8
    assert result["messages"] == 8 * 2 * 7
    assert result["bytes"] == result["messages"] * per_message
    assert result["inter_group_messages"] == 2 * 2 * 7
    assert result["inter_group_bytes"] == result["inter_group_messages"] * per_message


def test_traffic_input_errors(run_cli):
    base = ("traffic", "-c", "allreduce", "-p", "8", "--groups", "contiguous:4")
    assert run_cli(*base)[0] == 2
    assert run_cli(*base, "-a", "ring", "--compare", "ring,ring")[0] == 2
    code, _, err = run_cli(*base, "--compare", "ring")
    assert code == 2 and "two algorithms" in err
    code, _, err = run_cli(*base, "-a", "ring", "--size", "lots")
    assert code == 2 and "accepted" in err
