"""`topocoll algorithms --json` states every requirement: a caller that reads only the JSON knows
whether a request will be served. For every algorithm and a spread of shapes, port counts, roots
and operators, the answer read from the JSON equals what building the schedule does."""

from __future__ import annotations

import contextlib
import io
import json
from math import gcd, prod

import pytest
from topocoll import _core, cli

# Its module-scoped fixture runs once: every test of the module on one pytest-xdist worker
# (`--dist loadgroup`, Makefile).
pytestmark = pytest.mark.xdist_group("algorithms_json")

RINGS = [[p] for p in range(2, 41)]
TORI = [
    [2, 2], [2, 3], [3, 3], [4, 4], [3, 4], [5, 5], [4, 6], [1, 8], [8, 1],
    [2, 2, 2], [3, 3, 3], [2, 3, 4], [4, 4, 2], [2, 1, 4], [2, 2, 2, 2], [2, 2, 2, 2, 2],
]  # fmt: skip


def is_power_of(n: int, base: int) -> bool:
    while n > 1 and n % base == 0:
        n //= base
    return n == 1


def just_above_power_of_three(n: int) -> bool:
    p = 1
    while p * 3 <= n:
        p *= 3
    return n >= 10 and p < n <= p + p // 3


RANK_RULES = {
    "any": lambda p: True,
    "even": lambda p: p % 2 == 0,
    "power-of-two": lambda p: is_power_of(p, 2),
    "power-of-three": lambda p: is_power_of(p, 3),
}
SIDE_RULES = {
    "any": lambda dims: True,
    "even": lambda dims: all(s % 2 == 0 or s == 1 for s in dims),
    "binary-cube": lambda dims: len(dims) == 1 or all(s == 2 for s in dims),
    "power-of-two": lambda dims: len(dims) == 1 or all(is_power_of(s, 2) for s in dims),
    "hamiltonian-pair": lambda dims: len(dims) == 2
    and any(c >= 2 and r % c == 0 and gcd(r, c - 1) == 1 for r, c in (dims, dims[::-1])),
    "some-odd": lambda dims: any(s % 2 == 1 and s >= 3 for s in dims),
    "some-just-above-power-of-three": lambda dims: any(just_above_power_of_three(s) for s in dims),
}


def ports_of(symbols: list[str], d: int) -> set[int]:
    return {{"1": 1, "2": 2, "D": d, "2D": 2 * d}[s] for s in symbols}


def json_accepts(algo: dict, collective: str, dims: list[int], ports: int, root: int,
                 commutative: bool) -> bool:  # fmt: skip
    req = algo["requirements"]
    p, d = prod(dims), len(dims)
    return (
        collective in algo["collectives"]
        and p >= req["min_ranks"]
        and RANK_RULES[req["ranks"]](p)
        and d >= req["min_dimensions"]
        and (req["max_dimensions"] is None or d <= req["max_dimensions"])
        and SIDE_RULES[req["sides"]](dims)
        and (ports == 0 or ports in ports_of(req["ports"], d))
        and (commutative or not req["commutative_op"])
        and (
            commutative
            or not req["commutative_op_beyond_one_port_ring"]
            or (d == 1 and (ports or ports_of([req["default_ports"]], d).pop()) == 1)
        )
        and (collective not in req["root_collectives"] or 0 <= root < p)
    )


def builds(name: str, collective: str, dims: list[int], ports: int, root: int,
           commutative: bool) -> bool:  # fmt: skip
    try:
        _core.build(name, collective, prod(dims), dims, ports, root, commutative)
    except ValueError:
        return False
    return True


@pytest.fixture(scope="module")
def algorithms() -> list[dict]:
    """The document `topocoll algorithms --json` prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert cli.main(["algorithms", "--json"]) == 0
    return json.loads(out.getvalue())


def test_every_algorithm_states_its_rules(algorithms):
    for algo in algorithms:
        req = algo["requirements"]
        assert req["ranks"] in RANK_RULES, algo["name"]
        assert req["sides"] in SIDE_RULES, algo["name"]
        assert req["default_ports"] in req["ports"], algo["name"]
        for d, accepted in req["ports_by_dimensions"].items():
            assert set(accepted) == ports_of(req["ports"], int(d)), algo["name"]
        assert set(req["root_collectives"]) <= set(algo["collectives"]), algo["name"]


def test_named_rules(algorithms):
    by_name = {a["name"]: a["requirements"] for a in algorithms}
    assert by_name["hamiltonian-d-cycles"]["sides"] == "binary-cube"
    assert by_name["rotated-binomial"]["sides"] == "binary-cube"
    assert by_name["bine-bw-torus"]["sides"] == "even"
    assert by_name["ring"]["max_dimensions"] == 1
    assert by_name["swing-bw"]["ports"] == ["1", "2D"]
    assert by_name["trivance-bw"]["ports"] == ["2D"]
    assert set(by_name["gather-bcast"]["root_collectives"]) == {
        "allgather",
        "reduce-scatter",
        "allreduce",
    }
    assert by_name["binomial-halving"]["root_collectives"] == ["bcast", "reduce"]


@pytest.mark.parametrize("dims", RINGS + TORI, ids=lambda dims: "x".join(map(str, dims)))
def test_json_answers_what_build_does(algorithms, dims):
    d, p = len(dims), prod(dims)
    mismatches = []
    for algo in algorithms:
        for collective in algo["collectives"]:
            roots = [0, p - 1, p] if collective in algo["requirements"]["root_collectives"] else [0]
            for ports in sorted({0, 1, 2, d, 2 * d, 2 * d + 1}):
                for root in roots:
                    for commutative in (True, False):
                        case = (algo["name"], collective, dims, ports, root, commutative)
                        expected = json_accepts(algo, *case[1:])
                        if builds(*case) != expected:
                            mismatches.append((case, expected))
    assert not mismatches, mismatches[:5]
