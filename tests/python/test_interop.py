"""MSCCL XML in and out through the CLI, and GOAL out checked against its documented grammar
(docs/interchange.md)."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest
from topocoll import _core
from topocoll.formats import goal, schedule_files

SAMPLES = Path(__file__).resolve().parents[1] / "data" / "msccl"
NAMES = [
    "allreduce_ring_8_1.xml",
    "allgather_recursive_doubling_8_1.xml",
    "alltoall_allpairs_8_1.xml",
]


def write(tmp_path: Path, text: str, name: str = "algo.xml") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize("name", NAMES)
def test_samples_verify_and_name_fallbacks(run_cli, name):
    code, out, err = run_cli("verify", "--schedule", str(SAMPLES / name), "--json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["ok"] and doc["ranks"] == 8
    assert any("exactly 8 ranks" in n for n in doc["msccl_fallback"])
    assert any("nchunksperloop = 8" in n for n in doc["msccl_fallback"])
    assert not any("refuses" in n for n in doc["msccl_fallback"])


@pytest.mark.parametrize("name", NAMES)
def test_dropped_receive_is_wrong(run_cli, tmp_path, name):
    text = (SAMPLES / name).read_text().replace('type="r"', 'type="nop"', 1)
    code, out, _ = run_cli("verify", "--schedule", write(tmp_path, text))
    assert code == 1
    assert "FAIL unmatched operation" in out or "FAIL read of unwritten block" in out


def test_changed_peer_is_wrong(run_cli, tmp_path):
    text = (SAMPLES / NAMES[0]).read_text().replace('send="1"', 'send="3"', 1)
    code, out, _ = run_cli("verify", "--schedule", write(tmp_path, text))
    assert code == 1
    assert "FAIL unmatched operation: rank 0" in out


def test_out_of_range_offset_is_named(run_cli, tmp_path):
    text = (SAMPLES / NAMES[1]).read_text().replace('srcoff="0"', 'srcoff="12"', 1)
    code, _, err = run_cli("verify", "--schedule", write(tmp_path, text))
    assert code == 2
    assert "source offset 12 with cnt 1 is out of range of buffer 'o'" in err
    assert len(err.strip().splitlines()) == 1


def test_malformed_files_are_one_line_input_errors(run_cli, tmp_path):
    """Truncations, wrong attribute types and huge numbers: exit 2, one line, never a crash."""
    text = (SAMPLES / NAMES[2]).read_text()
    rng = random.Random(22)
    cases = [text[: rng.randrange(len(text))] for _ in range(12)]
    for attr in ("ngpus", "cnt", "srcoff", "depid", "send", "chan", "i_chunks", "s"):
        for bad in ("x", "-7", "1.5", "99999999999999999999999", ""):
            cases.append(re.sub(rf' {attr}="[^"]*"', f' {attr}="{bad}"', text, count=1))
    cases += ["<algo/>", "<notalgo/>", "<algo ngpus='2' coll='allreduce'></algo>", "<", "\x00"]
    for i, case in enumerate(cases):
        code, _, err = run_cli("verify", "--schedule", write(tmp_path, case, f"c{i}.xml"))
        assert code in (1, 2), (i, case[:80])
        if code == 2:
            assert len(err.strip().splitlines()) == 1, err


@pytest.mark.parametrize(
    ("collective", "algorithm", "ranks"),
    [("allreduce", "ring", 5), ("allgather", "bruck-bw", 6), ("alltoall", "bruck", 5)],
)
def test_exported_xml_round_trips(run_cli, tmp_path, collective, algorithm, ranks):
    argv = ("schedule", "-c", collective, "-a", algorithm, "-p", str(ranks))
    code, out, _ = run_cli(*argv, "--format", "msccl-xml", "--proto", "LL", "--name", "x<y")
    assert code == 0
    assert 'proto="LL"' in out and 'name="x&lt;y"' in out
    code, out, err = run_cli("verify", "--schedule", write(tmp_path, out))
    assert code == 0, out + err


@pytest.mark.parametrize(
    ("collective", "algorithm", "ranks", "options"),
    [
        ("allreduce", "recdoub-bw", 4, ("--instances", "2", "--proto", "LL128")),
        ("allgather", "ring", 5, ("--instances", "3", "--nchannels", "2")),
        ("reduce-scatter", "ring", 4, ("--instances", "2", "--nchannels", "3", "--proto", "LL")),
        ("alltoall", "bruck", 4, ("--instances", "2")),
    ],
)
def test_exported_instances_and_channels_round_trip(
    run_cli, tmp_path, collective, algorithm, ranks, options
):
    """Instances scale the chunks, threadblocks and channels; the file still imports and
    verifies, with the executor's attributes as asked."""
    argv = ("schedule", "-c", collective, "-a", algorithm, "-p", str(ranks), "--format")
    code, one, err = run_cli(*argv, "msccl-xml")
    assert code == 0, err
    code, out, err = run_cli(*argv, "msccl-xml", *options)
    assert code == 0, err
    given = dict(zip(options[::2], options[1::2], strict=True))
    instances = int(given["--instances"])
    algo = re.search(r"<algo [^>]*>", out).group(0)
    blocks = int(re.search(r'nchunksperloop="(\d+)"', one).group(1))
    assert f'nchunksperloop="{blocks * instances}"' in algo
    channels = int(given.get("--nchannels", "1"))
    assert f'nchannels="{channels * instances}"' in algo
    assert f'proto="{given.get("--proto", "Simple")}"' in algo
    name = {"reduce-scatter": "reducescatter"}.get(collective, collective)
    assert f'coll="{name}"' in algo  # the executors' spelling
    assert out.count("<tb ") == instances * one.count("<tb ")
    used = {int(c) for c in re.findall(r'chan="(\d+)"', out)}
    assert used == set(range(channels * instances))
    code, report, err = run_cli("verify", "--schedule", write(tmp_path, out), "--json")
    assert code == 0, report + err
    doc = json.loads(report)
    assert doc["ok"] and doc["blocks"] == blocks * instances


def test_executor_limits_are_named(run_cli, tmp_path):
    """Files past the executor's load-time limits verify, with a note naming the limit; spreading
    the connections over two channels removes the one on threadblocks per channel."""

    def notes(*argv: str) -> list[str]:
        code, out, err = run_cli("schedule", *argv, "--format", "msccl-xml")
        assert code == 0, err
        code, report, err = run_cli("verify", "--schedule", write(tmp_path, out), "--json")
        assert code == 0, report + err
        return [n for n in json.loads(report)["msccl_fallback"] if "refuses" in n]

    alltoall = ("-c", "alltoall", "-a", "pairwise", "-p", "40")
    (note,) = notes(*alltoall)
    assert "gpu 0 has 39 sending threadblocks on channel 0" in note
    assert "MSCCL_MAX_NUM_THREAD_BLOCKS_PER_CHANNEL" in note
    assert notes(*alltoall, "--nchannels", "2") == []
    (note,) = notes("-c", "allreduce", "-a", "ring", "-p", "40")
    assert "has a step s = 64; accepted: s below 64 (MSCCL_MAX_NUM_STEPS)" in note
    assert notes("-c", "reduce-scatter", "-a", "ring", "-p", "4") == []
    code, out, _ = run_cli(
        *("schedule", "-c", "reduce-scatter", "-a", "ring", "-p", "4"), "--format", "msccl-xml"
    )
    text = out.replace('coll="reducescatter"', 'coll="reduce_scatter"')  # msccl-tools' spelling
    code, report, err = run_cli("verify", "--schedule", write(tmp_path, text), "--json")
    assert code == 0, err
    (note,) = [n for n in json.loads(report)["msccl_fallback"] if "refuses" in n]
    assert "coll = 'reduce_scatter'; accepted: 'reducescatter'" in note


def test_export_options_out_of_range_are_one_line(run_cli):
    argv = ("schedule", "-c", "allreduce", "-a", "ring", "-p", "4", "--format", "msccl-xml")
    cases = {
        ("--instances", "0"): "accepted: 1..32",
        ("--nchannels", "40"): "accepted: 1..32",
        ("--proto", "LL64"): "Simple",
        ("--instances", "20", "--nchannels", "2"): "accepted: instances 1..16 with 2 channels",
    }
    for options, accepted in cases.items():
        code, _, err = run_cli(*argv, *options)
        assert code == 2 and accepted in err, (options, err)
        assert len(err.strip().splitlines()) == 1
    # bucket on a 2x3 torus has 4 ports: each needs a channel of its own.
    torus = ("schedule", "-c", "allreduce", "-a", "bucket", "--dims", "2x3", "--format")
    code, _, err = run_cli(*torus, "msccl-xml", "--nchannels", "3")
    assert code == 2 and "accepted: 4..32 (at least one per port)" in err
    assert len(err.strip().splitlines()) == 1
    code, out, _ = run_cli(*torus, "msccl-xml", "--nchannels", "8", "--instances", "2")
    assert code == 0 and 'nchannels="16"' in out
    code, _, err = run_cli(*argv[:-2], "--format", "goal", "--instances", "2")
    assert code == 2 and "--instances does not apply" in err


def test_export_rejects_other_collectives(run_cli):
    argv = ("schedule", "-c", "bcast", "-a", "binomial-doubling", "-p", "4", "--format")
    code, _, err = run_cli(*argv, "msccl-xml")
    assert code == 2 and "accepted: allreduce, allgather, reduce-scatter, alltoall" in err


# GOAL: a parser written from the grammar of docs/interchange.md, "GOAL out".
GOAL_OP = re.compile(
    r"^(l\d+): (?:send (\d+)b to (\d+) tag (\d+)|recv (\d+)b from (\d+) tag (\d+)|calc (\d+))$"
)
GOAL_DEP = re.compile(r"^(l\d+) (requires|irequires) (l\d+)$")


def parse_goal(text: str) -> tuple[int, list[dict]]:
    lines = text.split("\n")
    assert lines[-1] == "", "the document ends with a newline"
    m = re.fullmatch(r"num_ranks (\d+)", lines[0])
    assert m, lines[0]
    ranks, out, i = int(m.group(1)), [], 1
    for r in range(ranks):
        assert lines[i] == f"rank {r} {{", lines[i]
        i += 1
        ops, deps = {}, set()
        while lines[i] != "}":
            line = lines[i]
            assert line == line.strip(), "no indentation"
            if op := GOAL_OP.match(line):
                assert op.group(1) not in ops, "labels are unique in a rank"
                ops[op.group(1)] = op.groups()[1:]
            else:
                dep = GOAL_DEP.match(line)
                assert dep, line
                assert dep.group(1) in ops and dep.group(3) in ops, "labels defined before use"
                deps.add((dep.group(3), dep.group(1)))
            i += 1
        out.append({"ops": ops, "deps": deps})
        i += 1
    assert lines[i:] == [""]
    return ranks, out


def closure(edges: set, nodes) -> set:
    succ = {n: set() for n in nodes}
    for a, b in edges:
        succ[a].add(b)
    reach = set()
    for n in nodes:
        stack, seen = list(succ[n]), set()
        while stack:
            x = stack.pop()
            if x not in seen:
                seen.add(x)
                stack.extend(succ[x])
        reach |= {(n, x) for x in seen}
    return reach


def schedule_order(doc: dict, rank: int):
    """The operations of a rank in JSON order, and the order the schedule imposes on them:
    (lane, step) pairs ordered by their lane and `after`, through empty steps; inside a step a
    reduction's receive comes before its reduction, and an after-receives copy after the
    step's receives."""
    lanes = goal._lanes(doc)[rank]
    step_edges = set()
    for lane, steps in enumerate(lanes):
        for k, step in enumerate(steps):
            if k:
                step_edges.add(((lane, k - 1), (lane, k)))
            step_edges |= {((a, b), (lane, k)) for a, b in step.get("after", [])}
    steps_all = [(lane, k) for lane, s in enumerate(lanes) for k in range(len(s))]
    before = closure(step_edges, steps_all)
    vertices = []  # (step, index, kind)
    for lane, steps in enumerate(lanes):
        for k, step in enumerate(steps):
            for j, op in enumerate(step["ops"]):
                vertices.append(((lane, k), j, op["op"]))
                if op["op"] == "recv" and op.get("combine") == "reduce":
                    vertices.append(((lane, k), j, "reduce"))
    order = set()
    for a in vertices:
        for b in vertices:
            if (a[0], b[0]) in before:
                order.add((a, b))
            elif a[0] == b[0]:
                step = lanes[a[0][0]][a[0][1]]
                late = b[2] == "copy" and step["ops"][b[1]].get("reads") == "after-receives"
                if a[2] == "recv" and b[2] == "reduce" and a[1] == b[1]:
                    order.add((a, b))
                elif late and a[2] in ("recv", "reduce"):
                    order.add((a, b))
    return vertices, order


@pytest.mark.parametrize(
    ("collective", "algorithm", "ranks", "extra"),
    [
        ("allreduce", "ring", 4, ()),
        ("allreduce", "recdoub-bw", 8, ()),
        ("reduce-scatter", "swing-bw", 6, ()),
        ("allgather", "bine-bw", 5, ()),
        ("alltoall", "bruck", 6, ()),
        ("bcast", "binomial-doubling", 6, ()),
        ("allreduce", "bucket", 12, ("--dims", "4x3")),
    ],
)
def test_goal_parses_and_its_dependencies_are_the_schedules(
    run_cli, collective, algorithm, ranks, extra
):
    argv = ["schedule", "-c", collective, "-a", algorithm, "-p", str(ranks), *extra]
    code, out, err = run_cli(*argv, "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    code, text, err = run_cli(*argv, "--format", "goal", "--size", "64KiB")
    assert code == 0, err
    check_goal(doc, text)


@pytest.mark.parametrize("name", NAMES)
def test_goal_of_imported_msccl_lanes_and_dependencies(name):
    """The imported samples have lanes and `after` dependencies (the allgather's depid/deps)."""
    schedule, _ = schedule_files.load_schedule_text((SAMPLES / name).read_text())
    check_goal(json.loads(schedule.to_json()), goal.goal_document(schedule, 1 << 16, 0.25))


def check_goal(doc: dict, text: str) -> None:
    ranks = doc["ranks"]
    n, blocks = parse_goal(text)
    assert n == ranks
    messages = {}
    for r, block in enumerate(blocks):
        vertices, order = schedule_order(doc, r)
        labels = list(block["ops"])  # in order of appearance: one per vertex
        assert len(labels) == len(vertices)
        name = dict(zip(vertices, labels, strict=True))
        for v, label in name.items():
            fields = block["ops"][label]
            kind = "send" if fields[0] else "recv" if fields[3] else "calc"
            assert kind == {"send": "send", "recv": "recv"}.get(v[2], "calc")
            if kind != "calc":
                peer, tag = (fields[1], fields[2]) if kind == "send" else (fields[4], fields[5])
                key = (r, int(peer)) if kind == "send" else (int(peer), r)
                size = fields[0] or fields[3]
                messages.setdefault((*key, int(tag)), []).append((kind, size))
        goal_order = closure(block["deps"], labels)
        assert goal_order == {(name[a], name[b]) for a, b in order}
    for key, pair in messages.items():
        assert sorted(k for k, _ in pair) == ["recv", "send"], key
        assert pair[0][1] == pair[1][1], key


def test_goal_reduce_cost(run_cli):
    argv = ("schedule", "-c", "allreduce", "-a", "ring", "-p", "2", "--format", "goal")
    code, text, _ = run_cli(*argv, "--size", "2KiB", "--reduce-ns-per-byte", "0.5")
    assert code == 0
    assert "calc 512" in text  # one 1 KiB block reduced at 0.5 ns/B


def test_load_schedule_text_detects_xml():
    schedule, notes = schedule_files.load_schedule_text((SAMPLES / NAMES[0]).read_text())
    assert schedule.info["collective"] == "allreduce" and notes
    with pytest.raises(ValueError):
        _core.load_msccl_xml("<algo")


def sim_time(run_cli, *argv: str) -> float:
    code, out, err = run_cli("sim", "--topology", "torus:4x2", "--size", "1MiB", "--json", *argv)
    assert code == 0, err
    return json.loads(out)["time_s"]


def test_sim_of_the_msccl_ring_equals_topocolls_ring(run_cli):
    """The same ring, imported from MSCCL (receive lanes, staging copies) or built by topocoll,
    takes the same simulated time: the import adds no waiting of its own."""
    imported = sim_time(run_cli, "--schedule", str(SAMPLES / NAMES[0]))
    built = sim_time(run_cli, "-c", "allreduce", "-a", "ring")
    assert imported == pytest.approx(built, rel=1e-9)


def test_compare_runs_files_beside_the_registry(run_cli):
    """compare --schedule: the imported ring beside topocoll's, in one table, with the same
    time; worker processes (--jobs 2) read the file again and agree."""
    path = str(SAMPLES / NAMES[0])
    argv = ("compare", "-t", "torus:4x2", "-c", "allreduce", "--sizes", "1KiB,1MiB")
    code, out, err = run_cli(*argv, "--algorithms", "ring", "--schedule", path, "--format", "json")
    assert code == 0, err
    rows = [r for r in json.loads(out)["rows"] if r["kind"] == "algorithm"]
    times = {(r["size_bytes"], r["algorithm"]): r["time_s"] for r in rows}
    label = "file:" + NAMES[0]
    for size in (1024, 1 << 20):
        assert times[(size, label)] == pytest.approx(times[(size, "ring")], rel=1e-9)
    assert {r["family"] for r in rows if r["algorithm"] == label} == {"file"}
    code, out, err = run_cli(
        *argv, "--algorithms", "none", "--schedule", path, "--jobs", "2", "--format", "json"
    )
    assert code == 0, err
    assert {r["algorithm"] for r in json.loads(out)["rows"]} == {label}
    # A file of another collective than the comparison's is refused, naming both.
    code, _, err = run_cli(
        "compare", "-t", "torus:4x2", "-c", "allgather", "--sizes", "1MiB", "--schedule", path
    )
    assert code == 2 and "accepted: a allgather of 8 ranks" in err


def test_compare_schedules_must_be_a_list_of_paths():
    from topocoll.comparison import compare

    with pytest.raises(TypeError, match="schedules must be a list of paths, not str"):
        compare("torus:4x2", "allreduce", sizes="1KiB", schedules=str(SAMPLES / NAMES[0]))


def test_sim_schedule_rejects_conflicting_options(run_cli):
    path = str(SAMPLES / NAMES[0])
    code, _, err = run_cli("sim", "--schedule", path, "-t", "ring:8", "-s", "1KiB", "-a", "ring")
    assert code == 2 and "--algorithm does not apply" in err
    code, _, err = run_cli(
        "sim", "--schedule", path, "-t", "ring:8", "-s", "1KiB", "-c", "alltoall"
    )
    assert code == 2 and "accepted: allreduce" in err


def test_sim_of_a_deadlocked_file_is_a_wrong_schedule(run_cli, tmp_path):
    """Two threadblocks of gpu 0 wait for each other: verify and sim both say so (exit 1)."""
    gpu = (
        '<gpu id="{g}" i_chunks="1"><tb id="0" send="{p}" recv="-1" chan="0">'
        '<step s="0" type="s" srcoff="0" dstoff="0" cnt="1" depid="{d}" deps="0"/></tb>'
        '<tb id="1" send="-1" recv="{p}" chan="0">'
        '<step s="0" type="rrc" srcoff="0" dstoff="0" cnt="1" depid="0" deps="0"/></tb></gpu>'
    )
    text = '<algo name="cycle" ngpus="2" coll="allreduce" inplace="1">'
    text += gpu.format(g=0, p=1, d=1) + gpu.format(g=1, p=0, d=-1) + "</algo>"
    path = write(tmp_path, text)
    code, out, _ = run_cli("verify", "--schedule", path)
    assert code == 1 and "cycle" in out
    code, out, err = run_cli("sim", "--schedule", path, "-t", "ring:2", "-s", "1KiB")
    # verified before it is timed: the verifier names the cycle (exit 1, as `verify`)
    assert code == 1 and out.startswith("FAIL") and "deadlock" in out, err


STEP = '<step s="{s}" type="{t}" srcbuf="{sb}" srcoff="{so}" dstbuf="{db}" dstoff="{do}" cnt="1"/>'


def two_gpu_doc(coll: str, inplace: int, chunks: str, steps) -> str:
    """A 2-gpu algorithm: steps(gpu) lists (type, srcbuf, srcoff, dstbuf, dstoff), sends and
    receives on one threadblock that talks to the other gpu."""
    text = f'<algo name="t" ngpus="2" coll="{coll}" inplace="{inplace}">'
    for g in range(2):
        text += f'<gpu id="{g}" {chunks}><tb id="0" send="{1 - g}" recv="{1 - g}" chan="0">'
        for s, (t, sb, so, db, do) in enumerate(steps(g)):
            text += STEP.format(s=s, t=t, sb=sb, so=so, db=db, do=do)
        text += "</tb></gpu>"
    return text + "</algo>"


OUT_OF_PLACE = {
    # allreduce: send the input, receive and reduce with the input into the output
    "allreduce": (
        'i_chunks="1" o_chunks="1"',
        lambda g: [("s", "i", 0, "o", 0), ("rrc", "i", 0, "o", 0)],
    ),
    # reduce-scatter: send the other's part, reduce the received one with mine into o
    "reduce_scatter": (
        'i_chunks="2" o_chunks="1"',
        lambda g: [("s", "i", 1 - g, "o", 0), ("rrc", "i", g, "o", 0)],
    ),
    # allgather: copy mine into place, send it, receive the other's
    "allgather": (
        'i_chunks="1" o_chunks="2"',
        lambda g: [("cpy", "i", 0, "o", g), ("s", "i", 0, "o", 0), ("r", "i", 0, "o", 1 - g)],
    ),
}


@pytest.mark.parametrize("coll", sorted(OUT_OF_PLACE))
def test_out_of_place_buffers(run_cli, tmp_path, coll):
    chunks, steps = OUT_OF_PLACE[coll]
    code, out, err = run_cli(
        "verify", "--schedule", write(tmp_path, two_gpu_doc(coll, 0, chunks, steps))
    )
    assert code == 0, out + err
    assert "out-of-place calls (inplace=0)" in out

    # allgather without copying its own chunk into o; the others receiving without reducing.
    if coll == "allgather":
        broken = two_gpu_doc(coll, 0, chunks, lambda g: steps(g)[1:])
    else:
        broken = two_gpu_doc(coll, 0, chunks, lambda g: steps(g)[:-1] + [("r", "i", 0, "o", 0)])
    code, out, _ = run_cli("verify", "--schedule", write(tmp_path, broken, "broken.xml"))
    assert code == 1
    assert "FAIL read of unwritten block" in out or "FAIL wrong result" in out, out


def test_goal_of_every_algorithm_and_collective():
    """Every registry algorithm and collective at P = 5, 8 and on a 2x3 torus (about 130
    schedules, 3 s): the GOAL document parses and its order is the schedule's."""
    checked = 0
    for algorithm in _core.algorithms():
        for collective in algorithm["collectives"]:
            for ranks, dims in ((5, []), (8, []), (6, [2, 3])):
                try:
                    schedule = _core.build(algorithm["name"], collective, ranks, dims, 0, 0, True)
                except ValueError:
                    continue  # the algorithm does not take this shape
                doc = json.loads(schedule.to_json())
                check_goal(doc, goal.goal_document(schedule, 1 << 20, 0.1))
                checked += 1
    assert checked > 100
