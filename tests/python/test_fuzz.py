"""Property-based fuzzing of every input path: schedule documents, allocation files,
CLI option values and Python API arguments. Whatever goes in, the outcome is a clean one:
exit code 0 or 2 (1 only for a well-formed but wrong schedule), or ValueError / IndexError /
TypeError from the API, never a crash and never a traceback. Example counts are bounded so the
suite stays fast; the sanitizer build (make test-asan) runs this file against an extension
built with AddressSanitizer and UndefinedBehaviorSanitizer."""

from __future__ import annotations

import copy
import json
import os

import pytest
import topocoll
from fuzz_support import assert_reached
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from topocoll import cli, limits
from topocoll.errors import InputError
from topocoll.groups import parse_groups

EXAMPLES = int(os.environ.get("TOPOCOLL_FUZZ_EXAMPLES", "150"))
FUZZ = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

# Estimated seconds (limits.WORK_PER_SECOND) of a verification the fuzzers run.
VERIFY_SECONDS = 1.0

# Integers around every boundary the core has: 0, 1, 2^k +- 1 for 8-, 16-, 24-, 31-, 32-, 63-
# and 64-bit widths, their negatives, and small values.
BOUNDARIES = sorted(
    {v for k in (8, 16, 24, 31, 32, 63, 64) for v in (2**k - 1, 2**k, 2**k + 1)} | {0, 1, 2, 3}
)
INTS = st.one_of(
    st.integers(-3, 70),
    st.sampled_from(BOUNDARIES),
    st.sampled_from([-v for v in BOUNDARIES]),
    st.integers(),
)
JSON_SCALARS = st.one_of(
    st.none(), st.booleans(), INTS, st.floats(allow_nan=False), st.text(max_size=8)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def small_schedules() -> list[dict]:
    """Valid documents of several kinds, as mutation seeds."""
    docs = []
    for algorithm, collective, ranks, root in (
        ("ring", "allreduce", 4, 0),
        ("binomial-halving", "bcast", 5, 2),
        ("pairwise", "alltoall", 4, 0),
        ("ring", "allgather", 3, 0),
    ):
        schedule = topocoll.build(algorithm, collective, ranks, root=root)
        docs.append(json.loads(schedule.to_json()))
    return docs


SEEDS = small_schedules()


def paths(value, prefix=()):
    """Every path into a JSON document."""
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, (*prefix, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from paths(item, (*prefix, index))


def replaced(doc, path, value):
    if not path:
        return value
    out = copy.deepcopy(doc)
    target = out
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value
    return out


def load_and_verify(text: str) -> bool:
    """Loading either fails with ValueError or yields a schedule every function handles.
    True when the document got past loading to the verifier (the engine behind validation)."""
    try:
        schedule = topocoll.load_json(text)
    except ValueError as error:
        assert "\n" not in str(error)
        return False
    info = schedule.info
    assert info["ranks"] >= 1
    for rank in range(info["ranks"]):
        assert schedule.step_count(rank) >= 0
    schedule.to_text()
    topocoll.load_json(schedule.to_json())
    for mode in ("exact", "fingerprint"):
        for commutative in (True, False):
            # The API leaves the time a run may take to its caller (limits.py); this caller
            # gives each about a second, as the CLI gives 600 s before it asks for --force.
            if limits.estimate(schedule, mode, commutative).seconds > VERIFY_SECONDS:
                continue
            try:
                report = topocoll.verify(schedule, mode, commutative)
            except ValueError as error:  # a limit of the mode
                assert "\n" not in str(error)
                continue
            assert report["ok"] or report["message"]
    if info["blocks"] <= 1 << 16:
        topocoll.measure_traffic(schedule, list(range(info["ranks"])), 4096)
        topocoll.partition_sizes(schedule, 1000)
    return True


# Values an operation's fields take, for mutations that keep a document well-formed.
ENUMS = {
    "op": ["send", "recv", "copy"],
    "combine": ["copy", "reduce"],
    "order": ["received-first", "local-first"],
}


def small_mutation(data, doc):
    """One small change that mostly keeps the document loadable, so the verifier sees a
    plausible but wrong schedule: an integer nudged by one or set to a small value, an enum
    swapped, an operation dropped, duplicated, swapped or moved, or (rarely) any JSON value."""
    kind = data.draw(st.sampled_from(["nudge"] * 5 + ["enum"] * 2 + ["ops"] * 4 + ["wild"]))
    every = list(paths(doc))
    if kind == "nudge":
        ranges = [p for p in every if _is_range(_at(doc, p))]
        numbers = [
            p for p in every if p and type(_at(doc, p)) is int and not _is_range(_at(doc, p[:-1]))
        ]
        if ranges and data.draw(st.booleans()):  # a block range moved, or one block instead
            path = data.draw(st.sampled_from(ranges))
            begin, end = _at(doc, path)
            block = data.draw(st.integers(0, _small(_field(doc, "blocks")) - 1))
            shift = data.draw(st.sampled_from([-1, 1]))
            choice = data.draw(st.sampled_from([[begin + shift, end + shift], [block, block + 1]]))
            return replaced(doc, path, choice)
        inside = [p for p in numbers if p[0] == "steps"]  # header fields rarely
        if inside and data.draw(st.integers(0, 4)):
            numbers = inside
        if numbers:
            path = data.draw(st.sampled_from(numbers))
            value = _at(doc, path)
            bound = _bound(doc, path)
            new = data.draw(
                st.one_of(st.sampled_from([value - 1, value + 1]), st.integers(0, bound - 1))
            )
            return replaced(doc, path, new)
    if kind == "enum":
        fields = [p for p in every if p and p[-1] in ENUMS and isinstance(_at(doc, p), str)]
        if fields:
            path = data.draw(st.sampled_from(fields))
            return replaced(doc, path, data.draw(st.sampled_from(ENUMS[path[-1]])))
    if kind == "ops":
        lists = [p for p in every if isinstance(_at(doc, p), list) and _ops(_at(doc, p))]
        if lists:
            path = data.draw(st.sampled_from(lists))
            ops = list(_at(doc, path))
            i = data.draw(st.integers(0, len(ops) - 1))
            j = data.draw(st.integers(0, len(ops) - 1))
            action = data.draw(st.sampled_from(["drop", "duplicate", "swap", "move"]))
            if action == "drop":
                del ops[i]
            elif action == "duplicate":
                ops.insert(j, copy.deepcopy(ops[i]))
            elif action == "swap":
                ops[i], ops[j] = ops[j], ops[i]
            else:  # to another step of the same rank, or to the same one
                others = [p for p in lists if p[:-1] == path[:-1]] or [path]
                target = data.draw(st.sampled_from(others))
                moved = ops.pop(i)
                doc = replaced(doc, path, ops)
                return replaced(doc, target, [*_at(doc, target), moved])
            return replaced(doc, path, ops)
    path = data.draw(st.sampled_from(every))
    return replaced(doc, path, data.draw(JSON_VALUES))


def _bound(doc, path) -> int:
    """Values 0..bound-1 of the integer at `path` keep a document well-formed."""
    key = path[-1] if isinstance(path[-1], str) else path[-3] if len(path) > 2 else None
    ranks, ports, blocks = (_small(_field(doc, k)) for k in ("ranks", "ports", "blocks"))
    return {"peer": ranks, "root": ranks, "port": ports, "blocks": blocks + 1}.get(key, ranks + 1)


def _field(doc, key):
    """A header field of a document a mutation may have made something else than an object."""
    return doc.get(key) if isinstance(doc, dict) else None


def _small(value) -> int:
    """A document's rank or block count as a bound for drawing, whatever a mutation left."""
    return value if type(value) is int and 1 <= value <= 64 else 2


def _is_range(value) -> bool:
    return isinstance(value, list) and len(value) == 2 and all(type(v) is int for v in value)


def _ops(items) -> bool:
    return bool(items) and all(isinstance(item, dict) and "op" in item for item in items)


def test_mutated_schedule_documents():
    """Mostly well-formed documents with one (sometimes two or three) small mutations: about
    half load (43 to 55% in runs of 150), so the verifier's checks (not only the loader's) meet
    wrong schedules. The bar is 35%, well below what random draws give, so the test does not
    fail by chance."""
    counts = {"reached": 0, "examples": 0}

    @FUZZ
    @given(st.data())
    def run(data):
        doc = copy.deepcopy(data.draw(st.sampled_from(SEEDS)))
        for _ in range(data.draw(st.sampled_from([1, 1, 1, 1, 2, 3]))):
            doc = small_mutation(data, doc)
        counts["examples"] += 1
        counts["reached"] += load_and_verify(json.dumps(doc))

    run()
    assert_reached(counts, 0.35, "mutated schedule documents")


def test_schedule_documents_with_random_numbers():
    """Keeps the structure, puts integers in one or two numeric fields: boundary values
    (refused by the loader, naming the field) or values within the document's own ranges
    (loaded, and wrong for the verifier to find)."""
    counts = {"reached": 0, "examples": 0}

    @FUZZ
    @given(st.data())
    def run(data):
        doc = copy.deepcopy(data.draw(st.sampled_from(SEEDS)))
        numeric = [p for p in paths(doc) if p and type(_at(doc, p)) is int]
        for path in data.draw(st.lists(st.sampled_from(numeric), min_size=1, max_size=2)):
            small = st.integers(0, _bound(doc, path) - 1)
            value = data.draw(st.one_of(small, small, small, INTS))
            doc = replaced(doc, path, value)
        counts["examples"] += 1
        counts["reached"] += load_and_verify(json.dumps(doc))

    run()
    # 202 of 1,000 examples reached the engine (2026-11-30): at 100 examples (the sanitizer
    # pass) 12% failed on an unlucky draw (10 of 100); 5% is 3.75 standard deviations below
    # the rate and still fails a generator whose examples stop reaching the engine.
    assert_reached(counts, 0.05, "schedule documents with random integers")


def _at(doc, path):
    for key in path:
        doc = doc[key]
    return doc


@FUZZ
@given(JSON_VALUES)
def test_random_json_documents(value):
    load_and_verify(json.dumps(value))


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes_as_a_schedule_file(run_cli, tmp_path, content):
    path = tmp_path / "fuzz.json"
    path.write_bytes(content)
    code, _, err = run_cli("verify", "--schedule", str(path))
    assert code == 2
    assert len(err.strip().splitlines()) == 1


@pytest.fixture
def fast_limits(monkeypatch):
    """Limits low enough that no fuzzed instance runs for more than about a second: a larger
    one must stop with exit 2 like any run beyond the real limits."""
    monkeypatch.setattr(limits, "TIME_LIMIT_S", 0.5)
    monkeypatch.setattr(limits, "EXPORT_LIMIT_BYTES", 1 << 20)


OPTION_VALUES = st.one_of(
    INTS.map(str),
    st.text(alphabet="0123456789x-+ .kKMGiBe", max_size=12),
    st.text(max_size=6),
)


@FUZZ
@given(
    command=st.sampled_from(["verify", "schedule"]),
    option=st.sampled_from(["--ranks", "--ports", "--root", "--dims", "--seed", "--mode"]),
    value=OPTION_VALUES,
    collective=st.sampled_from(["allreduce", "bcast", "alltoall", "allgather"]),
    algorithm=st.sampled_from(["ring", "binomial-halving", "pairwise", "swing-bw", "bine"]),
)
def test_cli_option_values(run_cli, fast_limits, command, option, value, collective, algorithm):
    argv = [command, "-c", collective, "-a", algorithm]
    if option not in ("--ranks", "--dims"):
        argv += ["-p", "6"]
    if command == "schedule" and option in ("--seed", "--mode"):
        return
    code, out, err = run_cli(*argv, f"{option}={value}")
    assert code in (0, 2), (argv, value, out, err)
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err


@FUZZ
@given(
    spec=st.one_of(
        st.builds(
            lambda k, v: f"{k}:{v}", st.sampled_from(["contiguous", "random"]), OPTION_VALUES
        ),
        st.builds(
            lambda a, b, c: f"random:{a}:{b}:{c}", OPTION_VALUES, OPTION_VALUES, OPTION_VALUES
        ),
        st.text(max_size=10),
    ),
    size=OPTION_VALUES,
)
def test_traffic_group_specs_and_sizes(run_cli, fast_limits, spec, size):
    code, _, err = run_cli(
        "traffic", "-c", "allreduce", "-a", "ring", "-p", "8", "--groups", spec, "--size", size
    )
    assert code in (0, 2), err
    if code == 2:
        assert len(err.strip().splitlines()) == 1, err


@FUZZ
@given(
    content=st.one_of(
        st.binary(max_size=120),
        st.lists(st.tuples(INTS, INTS).map(lambda t: f"{t[0]},{t[1]}"), max_size=10).map(
            lambda rows: "\n".join(rows).encode()
        ),
        st.text(max_size=60).map(lambda t: t.encode("utf-8", "surrogatepass")),
    )
)
def test_allocation_files(tmp_path, content):
    path = tmp_path / "groups.csv"
    path.write_bytes(content)
    try:
        groups = parse_groups(str(path), 4)
    except InputError as error:
        assert "\n" not in str(error)
    else:
        assert len(groups) == 4


@FUZZ
@given(
    algorithm=st.one_of(
        st.sampled_from(["ring", "bine", "swing-bw", "binomial-halving"]), st.text(max_size=6)
    ),
    collective=st.one_of(st.sampled_from(["allreduce", "bcast", "alltoall"]), st.text(max_size=6)),
    ranks=st.one_of(INTS, st.none(), st.text(max_size=3)),
    dims=st.one_of(st.lists(INTS, max_size=4), st.none(), st.just("4x4")),
    ports=INTS,
    root=INTS,
)
def test_build_arguments(algorithm, collective, ranks, dims, ports, root):
    try:
        schedule = topocoll.build(algorithm, collective, ranks, dims, ports, root)
    except (ValueError, TypeError) as error:
        if isinstance(error, ValueError):
            assert "\n" not in str(error)
        return
    info = schedule.info
    if info["ranks"] <= 64:
        topocoll.verify(schedule, "fingerprint")


@FUZZ
@given(
    rank=INTS,
    indent=INTS,
    mode=st.one_of(st.sampled_from(["exact", "fingerprint"]), st.text(max_size=5)),
    torus=st.lists(INTS, max_size=3),
    threads=INTS,
    budget=INTS,
    seed=INTS,
    dimensions=INTS,
    count=INTS,
)
def test_api_arguments(rank, indent, mode, torus, threads, budget, seed, dimensions, count):
    schedule = topocoll.build("ring", "allreduce", 6)
    calls = [
        lambda: schedule.step_count(rank),
        lambda: schedule.to_json(indent),
        lambda: topocoll.verify(schedule, mode, True, seed, torus, threads, budget),
        lambda: topocoll.accepted_ports("ring", dimensions),
        lambda: topocoll.partition_sizes(schedule, count),
        lambda: topocoll.measure_traffic(schedule, [rank] * 6, count),
    ]
    for call in calls:
        try:
            call()
        except (ValueError, IndexError, TypeError):
            pass


@pytest.mark.parametrize("seed", SEEDS, ids=lambda d: f"{d['algorithm']}-{d['collective']}")
def test_seed_documents_verify(seed):
    report = topocoll.verify(topocoll.load_json(json.dumps(seed)))
    assert report["ok"], report["message"]


def test_cli_main_never_raises_on_a_bad_command_line():
    assert cli.main(["verify", "--ranks"]) == 2
    assert cli.main([]) == 2
