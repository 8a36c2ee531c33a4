"""Regression tests for inputs that used to crash a process or break the exit-code contract;
each names the crash it guards against."""

from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
import topocoll
from topocoll import _core, limits

CLI = [sys.executable, "-m", "topocoll.cli"]


def run_subprocess(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *argv], capture_output=True, text=True, check=False)


def test_rank_without_steps_is_a_wrong_schedule_not_a_segfault(ring_json, tmp_path):
    # Used to dereference a null operation while diagnosing the stall (SIGSEGV).
    doc, write = ring_json
    broken = copy.deepcopy(doc)
    broken["steps"][3] = []
    result = run_subprocess("verify", "--schedule", write(broken))
    assert result.returncode == 1, result.stderr
    assert "unmatched operation" in result.stdout


def test_every_rank_without_steps_is_checked_against_the_result(ring_json):
    doc, _ = ring_json
    empty = dict(doc, steps=[[] for _ in range(doc["ranks"])])
    report = topocoll.verify(topocoll.load_json(json.dumps(empty)), "exact")
    assert not report["ok"] and report["violation"] == "wrong result"


@pytest.mark.parametrize("rank", [-1, 6, 2**31, 2**62])
def test_step_count_out_of_range_is_an_index_error(rank):
    # Used to index past the steps of an explicit schedule (a crash of the interpreter).
    schedule = topocoll.build("ring", "allreduce", 6)
    for s in (schedule, topocoll.load_json(schedule.to_json())):
        with pytest.raises(IndexError, match=r"rank .* is out of range; accepted: 0\.\.5"):
            s.step_count(rank)


@pytest.mark.parametrize(
    ("torus", "message"),
    [([0], "sizes must be >= 1|out of range"), ([-3], "out of range"), ([2, 2], "holds 4 ranks")],
)
def test_adjacency_torus_is_validated(torus, message):
    # [0] used to divide by zero in the adjacency check (SIGFPE).
    schedule = topocoll.build("ring", "allreduce", 6)
    with pytest.raises(ValueError, match=message):
        topocoll.verify(schedule, adjacency_torus=torus)


@pytest.mark.parametrize(
    ("option", "value", "accepted"),
    [
        ("--ranks", "2147483648", "accepted: 2..16777216"),
        ("--root", str(2**40), "accepted: 0..P-1"),
        ("--ports", str(2**40), "accepted: 1 or more"),
        ("--ports", "0", "omit --ports for the algorithm's default"),
        ("--ranks", "-5", "accepted: 2..16777216"),
        ("--ranks", "eight", "not an integer"),
    ],
)
def test_integer_options_beyond_their_range_exit_2(run_cli, option, value, accepted):
    code, out, err = run_cli(
        "verify", "-c", "bcast", "-a", "binomial-halving", "-p", "8", option, value
    )
    assert code == 2
    assert accepted in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("dims", ["2147483648x2", "65536x65536x2", "0x4", "4x", "x".join("1" * 40)])
def test_huge_or_bad_dimensions_exit_2(run_cli, dims):
    code, _, err = run_cli("verify", "-c", "allreduce", "-a", "swing-bw", "--dims", dims)
    assert code == 2 and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"ranks": 2**31},
        {"ranks": -1},
        {"ranks": 8, "root": 2**40},
        {"ranks": 8, "ports": 2**33},
        {"ranks": 8, "ports": -1},
        {"dims": [2**31, 2]},
        {"dims": [4096, 4096, 4096]},
        {"dims": [0, 4]},
        {"dims": [1] * 40},
    ],
)
def test_build_checks_integer_ranges(kwargs):
    with pytest.raises(ValueError, match="accepted"):
        topocoll.build("ring", "allreduce", **kwargs)


@pytest.mark.parametrize(
    ("args", "exception"),
    [
        (("ring", "allreduce", None), TypeError),
        ((None, "allreduce", 8), TypeError),
        (("ring", "allreduce", 8, "4x2"), TypeError),
        (("ring", "nothing", 8), ValueError),
        (("", "", 0), ValueError),
        (("ring", "allreduce", 2**80), TypeError),
    ],
)
def test_build_rejects_wrong_types(args, exception):
    with pytest.raises(exception):
        topocoll.build(*args)


def test_other_api_functions_check_their_arguments():
    schedule = topocoll.build("ring", "allreduce", 6)
    with pytest.raises(ValueError, match="accepted: 1..32"):
        topocoll.accepted_ports("ring", 0)
    with pytest.raises(ValueError, match="accepted: 1..32"):
        topocoll.accepted_ports("ring", 2**40)
    with pytest.raises(ValueError, match="unknown algorithm"):
        topocoll.accepted_ports("nope", 1)
    with pytest.raises(ValueError, match="accepted: -1"):
        schedule.to_json(10**6)
    with pytest.raises(ValueError, match="unknown mode 'slow'; accepted: exact, fingerprint"):
        topocoll.verify(schedule, "slow")
    with pytest.raises(ValueError, match="threads"):
        topocoll.verify(schedule, threads=10**7)
    with pytest.raises(ValueError, match="threads"):
        topocoll.verify(schedule, threads=-2)
    with pytest.raises(ValueError, match="memory_budget"):
        topocoll.verify(schedule, "fingerprint", memory_budget=1)
    with pytest.raises(TypeError):
        topocoll.verify(schedule, seed=-1)
    with pytest.raises(TypeError):
        topocoll.verify(None)
    with pytest.raises(ValueError, match="group map covers 2 ranks"):
        topocoll.measure_traffic(schedule, [0, 1], 1024)
    with pytest.raises(ValueError, match="vector_bytes"):
        topocoll.measure_traffic(schedule, [0] * 6, 2**60)
    with pytest.raises(TypeError):
        topocoll.measure_traffic(schedule, [0] * 6, -1)
    # Group ids are labels: any integers work.
    totals = topocoll.measure_traffic(schedule, [2**40, -(2**40), 7, 7, 7, 7], 1024)
    assert totals["inter_group_messages"] > 0
    with pytest.raises(TypeError):
        topocoll.partition_sizes(schedule, -5)
    with pytest.raises(ValueError, match="not valid JSON"):
        topocoll.load_json("")
    with pytest.raises(TypeError):
        topocoll.load_json(None)


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda d: d["steps"][0][0][0].update(blocks=[[5, 9]]), "accepted: 0..6"),
        (lambda d: d["steps"][0][0][0].update(blocks=[[0, 3], [2, 4]]), "sorted and disjoint"),
        (lambda d: d["steps"][0][0][0].update(blocks=[[3, 4], [0, 1]]), "sorted and disjoint"),
        (
            lambda d: d["steps"][0][0][0].update(port=1),
            "'port' = 1 is out of range; accepted: 0..0",
        ),
        (lambda d: d["steps"][0][0][0].update(peer=0), "is the rank itself"),
        (lambda d: d["steps"][0][0][0].update(blocks=[[0, 2**32]]), "out of range"),
        (lambda d: d["steps"][0][0][0].update(blocks=[[0, 2**70]]), "'blocks' must be an integer"),
        (lambda d: d["steps"][0][0][0].update(peer=-(2**63)), "out of range"),
        (lambda d: d.update(blocks=2**31), "'blocks'"),
        (lambda d: d.update(slots=2), "smaller than the user buffer"),
        (lambda d: d.update(slots=2**40), "'slots'"),
        (lambda d: d.update(dims=[2, 2]), "'dims' multiply to 4"),
        (lambda d: d.update(dims=[0]), "'dims'"),
        (lambda d: d.update(ports=0), "'ports' = 0 is out of range"),
        (lambda d: d.update(ranks=2**40), "'ranks'"),
        (lambda d: d.update(algorithm=7), "'algorithm' must be a string"),
        (lambda d: d.update(version=2**64 + 1), "version"),
        (
            lambda d: d["steps"][0][0].append({"op": "copy", "from": [[0, 1]], "blocks": [[1, 2]]}),
            "keeps_positions",
        ),
        (
            lambda d: d["steps"][0][0].append({"op": "copy", "from": [[0, 2]], "blocks": [[1, 2]]}),
            "same number of blocks",
        ),
    ],
)
def test_malformed_schedule_semantics_are_input_errors(run_cli, ring_json, mutate, message):
    # Blocks past B, overlapping ranges and ports beyond `ports` used to exit 1 ("malformed
    # operation"), although the format promises 2 for errors in the file.
    doc, write = ring_json
    broken = copy.deepcopy(doc)
    mutate(broken)
    code, out, err = run_cli("verify", "--schedule", write(broken))
    assert code == 2, out
    assert message in err and len(err.strip().splitlines()) == 1


def test_chunked_schedule_with_indivisible_blocks_is_an_input_error(run_cli, tmp_path):
    code, out, _ = run_cli(
        "schedule", "-c", "allgather", "-a", "ring", "-p", "4", "--format", "json"
    )
    doc = json.loads(out)
    doc["blocks"] = 6
    path = tmp_path / "s.json"
    path.write_text(json.dumps(doc))
    code, _, err = run_cli("verify", "--schedule", str(path))
    assert code == 2 and "divisible" in err


@pytest.mark.parametrize(
    "content", [b"\x00\xff\xfe binary", b"[" * 200_000, b'{"format": "topocoll-schedule"}', b""]
)
def test_unreadable_schedule_files_exit_2(run_cli, tmp_path, content):
    path = tmp_path / "s.json"
    path.write_bytes(content)
    code, _, err = run_cli("verify", "--schedule", str(path))
    assert code == 2 and len(err.strip().splitlines()) == 1


def test_schedule_path_that_is_a_directory_exits_2(run_cli, tmp_path):
    code, _, err = run_cli("verify", "--schedule", str(tmp_path))
    assert code == 2 and "is a directory" in err


@pytest.mark.parametrize(
    ("argv", "figure"),
    [
        # bruck-bw has no translation symmetry (the ring's needs only MiB at this size)
        (("-c", "allreduce", "-a", "bruck-bw", "-p", "1000000"), "GiB of memory"),
        (("-c", "alltoall", "-a", "pairwise", "-p", "100000"), "GiB of memory"),
        (("-c", "allreduce", "-a", "ring", "-p", "100000", "--mode", "fingerprint"), "longer"),
    ],
)
def test_runs_beyond_the_machine_stop_before_they_start(run_cli, argv, figure):
    # Used to run until killed, or to end in MemoryError.
    code, _, err = run_cli("verify", *argv)
    assert code == 2
    assert figure in err and ("--force" in err or "smaller instance" in err)
    assert len(err.strip().splitlines()) == 1


def test_fingerprint_rank_limit_is_an_input_error_not_a_wrong_schedule():
    # Used to return a failed report (exit 1 in the CLI).
    schedule = topocoll.build("recdoub-lat", "allreduce", 1 << 24)
    with pytest.raises(ValueError, match="at most 16777215 ranks"):
        topocoll.verify(schedule, "fingerprint")


def test_exact_limit_is_an_input_error_in_the_api():
    schedule = topocoll.build("ring", "allreduce", 4100)
    with pytest.raises(ValueError, match="use fingerprint mode"):
        topocoll.verify(schedule, "exact")


def test_estimate_counts_memory_and_work_from_the_schedule_info():
    schedule = topocoll.build("bruck-bw", "allreduce", 100)  # no translation symmetry
    e = _core.estimate_verify(schedule, "fingerprint")
    assert e["slot_states"] == 100 * 100
    assert e["passes"] == 1
    assert e["work"] == 4 * e["rank_steps"] + 3 * e["slot_states"]
    small = _core.estimate_verify(schedule, "fingerprint", memory_budget=1 << 20)
    assert small["passes"] == 1  # 10,000 states of 8 bytes fit in 1 MiB
    big = topocoll.build("bruck-bw", "allreduce", 2000)
    windows = _core.estimate_verify(big, "fingerprint", memory_budget=1 << 20)
    assert windows["passes"] > 1 and windows["memory_bytes"] < 8 << 20
    # The ring commutes with the ring's shifts: one block checked, plus the proof's walk.
    ring = _core.estimate_verify(topocoll.build("ring", "allreduce", 100), "fingerprint")
    assert ring["rank_steps"] == 100 * 2 * 99
    assert ring["slot_states"] == 100 and ring["passes"] == 1
    assert ring["work"] == 12 * ring["rank_steps"] + 3 * 100


def test_a_verification_beyond_the_time_limit_is_refused_without_a_symmetry_search(
    run_cli, monkeypatch
):
    # Neither the ring's translation symmetry (its proof alone: 8 units per rank-step) nor a
    # run over every block fits in 1,000 units: the estimate refuses before its search walks
    # the lanes of sampled ranks. --force runs whatever it costs, so the estimate searches.
    monkeypatch.setattr(limits, "TIME_LIMIT_S", 1000 / limits.WORK_PER_SECOND)
    argv = ("verify", "-c", "allreduce", "-a", "ring", "-p", "100", "--mode", "fingerprint")
    code, _, err = run_cli(*argv)
    assert code == 2 and "add --force" in err
    assert "translation symmetry not searched: with it the run would still take at least " in err
    code, out, err = run_cli(*argv, "--force")
    assert code == 0, err
    assert "translation symmetry: translations of the ring of 100" in out + err


def test_groups_files_that_cannot_be_read_exit_2(run_cli, tmp_path):
    base = ("traffic", "-c", "allreduce", "-a", "ring", "-p", "4")
    binary = tmp_path / "b.csv"
    binary.write_bytes(b"\xff\xfe\x00\x01")
    nul = tmp_path / "n.csv"
    nul.write_bytes(b"0,1\n1,\x002\n")
    for spec, message in (
        (str(binary), "not a text file|not a readable CSV"),
        (str(nul), "not a text file|not a readable CSV|must be integers"),
        (str(tmp_path), "is a directory"),
        (str(tmp_path / "missing.csv"), "no such file"),
    ):
        code, _, err = run_cli(*base, "--groups", spec)
        assert code == 2, spec
        assert len(err.strip().splitlines()) == 1
        assert any(m in err for m in message.split("|")), err


def test_traffic_sizes_beyond_a_petabyte_exit_2(run_cli):
    code, _, err = run_cli(
        "traffic",
        "-c",
        "allreduce",
        "-a",
        "ring",
        "-p",
        "4",
        "--groups",
        "contiguous:2",
        "--size",
        "99999999TiB",
    )
    assert code == 2 and "out of range" in err


def test_api_refuses_a_verification_beyond_the_machine_memory():
    # Pairwise alltoall at 100,000 ranks in exact mode: 2e10 slot states, terabytes of state;
    # it used to end in MemoryError or the OOM killer.
    schedule = topocoll.build("pairwise", "alltoall", 100_000)
    with pytest.raises(ValueError, match=r"GiB .* more than the .* GiB of this machine"):
        topocoll.verify(schedule, "exact")


VERIFY_WITHIN_ESTIMATE = """
import json, resource, topocoll
n, h = 1 << 28, 1 << 27
doc = json.loads(topocoll.build("ring", "allreduce", 2).to_json())
doc["blocks"] = doc["slots"] = n
for lane in doc["steps"]:
    for step in lane:
        for op in step:
            op["blocks"] = [[0, h]] if op["blocks"] == [[0, 1]] else [[h, n]]
schedule = topocoll.load_json(json.dumps(doc))
estimate = topocoll.limits.estimate(schedule, "fingerprint")
with open("/proc/self/status") as status:
    used = next(int(line.split()[1]) << 10 for line in status if line.startswith("VmData"))
limit = used + estimate.memory_bytes + (256 << 20)
resource.setrlimit(resource.RLIMIT_DATA, (limit, limit))
report = topocoll.verify(schedule, "fingerprint")
print(report["ok"], report["checked_slots"])
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc/self/status")
def test_a_verification_of_a_huge_vector_stays_within_its_estimated_memory():
    # The fingerprint verifier kept a random key per block, 2 GiB here, that its estimate left
    # out (8 GiB at 2^30 blocks: the fuzzers' boundary integers ran the sanitizer pass out of
    # memory). The data segment is capped at the estimate plus 256 MiB.
    result = subprocess.run(
        [sys.executable, "-c", VERIFY_WITHIN_ESTIMATE], capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.split() == ["True", str(1 << 27)]


# Found by the fuzzers (tests/python/test_fuzz.py); kept as plain regression tests.


def test_huge_random_group_sizes_are_input_errors(run_cli):
    # random.sample over NGROUPS x GROUPSIZE nodes raised OverflowError (a traceback).
    code, _, err = run_cli(
        "traffic",
        "-c",
        "allreduce",
        "-a",
        "ring",
        "-p",
        "8",
        "--groups",
        "random:1:9223372036854775808:0",
    )
    assert code == 2 and "accepted: 1..1073741824" in err


@pytest.mark.parametrize("value", ["\x1e", "\n", "4\x0b2", "\x85"])
def test_control_characters_in_values_stay_on_one_line(run_cli, value):
    # A record separator or newline in a value split the one-line error message.
    for argv in (
        ("verify", "-c", "allreduce", "-a", "ring", f"--ranks={value}"),
        (
            "traffic",
            "-c",
            "allreduce",
            "-a",
            "ring",
            "-p",
            "4",
            "--groups",
            "contiguous:2",
            f"--size={value}",
        ),
    ):
        code, _, err = run_cli(*argv)
        assert code == 2 and len(err.strip().splitlines()) == 1, err


def test_sizes_with_huge_numbers_are_input_errors(run_cli):
    # int(float('inf')) raised OverflowError; sizes past 2^64 raised TypeError in the core.
    for size in ("9" * 400, "99999999999999999999999"):
        code, _, err = run_cli(
            "traffic",
            "-c",
            "allreduce",
            "-a",
            "ring",
            "-p",
            "4",
            "--groups",
            "contiguous:2",
            "--size",
            size,
        )
        assert code == 2 and "out of range" in err


def test_traffic_at_a_size_that_would_run_for_hours_stops_first(run_cli):
    code, _, err = run_cli(
        "traffic", "-c", "allreduce", "-a", "ring", "-p", "1000000", "--groups", "contiguous:64"
    )
    assert code == 2 and "rank-steps" in err and "--force" in err


@pytest.mark.parametrize("collective", ["\n", "all\rreduce", "x\x00y", "\x1b[2J"])
def test_errors_quoting_the_input_stay_on_one_line(collective):
    """Found by test_fuzz: a newline in a collective name split the ValueError's message."""
    with pytest.raises(ValueError) as error:
        topocoll.build("ring", collective, 4)
    message = str(error.value)
    assert message.startswith("unknown collective")
    assert len(message.splitlines()) == 1 and message.isprintable()
