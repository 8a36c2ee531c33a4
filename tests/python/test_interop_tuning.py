"""Tuning files for Open MPI and MPICH (docs/interchange.md, "Tuning files"): the rules file
`topocoll tune --format ompi-rules` writes makes Open MPI run the algorithm it names, on each
side of a band boundary (observed with tests/interop/ompi_algorithm_probe.c)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

PROBE = Path(__file__).resolve().parents[1] / "interop" / "ompi_algorithm_probe.c"
TUNE = ("tune", "-t", "torus:4x2", "-p", "8", "--sizes", "8B:64MiB")
# Open MPI 4.1 allreduce ids -> the function coll_tuned calls for them.
OMPI_ALLREDUCE = {
    3: "ompi_coll_base_allreduce_intra_recursivedoubling",
    4: "ompi_coll_base_allreduce_intra_ring",
    6: "ompi_coll_base_allreduce_intra_redscat_allgather",
}


def rules_lines(text: str) -> list[list[int]]:
    """The numbers of an Open MPI rules file, line by line, without its # comments."""
    lines = [line.split("#")[0].split() for line in text.splitlines()]
    return [[int(x) for x in line] for line in lines if line]


def open_mpi() -> bool:
    if not (shutil.which("mpicc") and shutil.which("mpiexec")):
        return False
    version = subprocess.run(["mpiexec", "--version"], capture_output=True, text=True).stdout
    return "Open MPI" in version or "OpenRTE" in version


def test_ompi_rules_start_at_zero_and_name_library_ids(run_cli):
    code, out, err = run_cli(*TUNE, "-c", "allreduce", "--format", "ompi-rules")
    assert code == 0, err
    lines = rules_lines(out)
    assert lines[:4] == [[1], [2], [1], [8]]
    count, bands = lines[4][0], lines[5:]
    assert count == len(bands) >= 2  # the best algorithm changes with size on this torus
    assert bands[0][0] == 0
    assert all(b[1] in OMPI_ALLREDUCE and b[2:] == [0, 0] for b in bands)
    assert [b[0] for b in bands] == sorted(b[0] for b in bands)
    # The same bands as topocoll's own rules, each algorithm under its Open MPI id.
    library = ("--algorithms", "recdoub-lat,ring,recdoub-bw")
    code, out, err = run_cli(*TUNE, "-c", "allreduce", *library)
    assert code == 0, err
    ids = {"recdoub-lat": 3, "ring": 4, "recdoub-bw": 6}
    own = [(r["min_bytes"], ids[r["algorithm"]]) for r in json.loads(out)["rules"]]
    assert [(b[0], b[1]) for b in bands] == own


def test_library_formats_rank_only_library_algorithms(run_cli):
    code, _, err = run_cli(
        *TUNE, "-c", "allreduce", "--format", "ompi-rules", "--algorithms", "swing-bw"
    )
    assert code == 2 and "accepted: recdoub-lat, ring, recdoub-bw" in err
    code, _, err = run_cli(*TUNE, "-c", "reduce", "--format", "ompi-rules")
    assert code == 2 and "accepted:" in err


def test_mpich_json_tree(run_cli):
    code, out, err = run_cli(*TUNE, "-c", "allreduce", "--format", "mpich-json")
    assert code == 0, err
    assert list(json.loads(out)) == ["collective=allreduce"]
    tree = json.loads(out)["collective=allreduce"]["comm_type=intra"]
    for sizes in (tree["comm_size=any"],):
        keys = list(sizes)
        assert keys[-1] == "avg_msg_size=any" and len(keys) >= 2
        for leaf in sizes.values():
            (name,) = leaf
            assert name.startswith("algorithm=MPIR_Allreduce_intra_")


# The function coll_tuned calls for each mapped (collective, topocoll algorithm).
OMPI_FUNCTIONS = {
    ("allreduce", "recdoub-lat"): "ompi_coll_base_allreduce_intra_recursivedoubling",
    ("allreduce", "ring"): "ompi_coll_base_allreduce_intra_ring",
    ("allreduce", "recdoub-bw"): "ompi_coll_base_allreduce_intra_redscat_allgather",
    ("allgather", "recdoub-bw"): "ompi_coll_base_allgather_intra_recursivedoubling",
    ("allgather", "ring"): "ompi_coll_base_allgather_intra_ring",
    ("alltoall", "pairwise"): "ompi_coll_base_alltoall_intra_pairwise",
    ("alltoall", "bruck"): "ompi_coll_base_alltoall_intra_bruck",
    ("bcast", "binomial-doubling"): "ompi_coll_base_bcast_intra_binomial",
    ("reduce-scatter", "recdoub-bw-distance-halving"): (
        "ompi_coll_base_reduce_scatter_intra_basic_recursivehalving"
    ),
    ("reduce-scatter", "ring"): "ompi_coll_base_reduce_scatter_intra_ring",
}


def ompi_env() -> dict:
    return dict(
        os.environ,
        OMPI_ALLOW_RUN_AS_ROOT="1",
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
        OMPI_MCA_rmaps_base_oversubscribe="1",
    )


def probe_run(probe: Path, rules: Path, ranks: int, collective: str, nbytes: int) -> str:
    """The coll_base function Open MPI called for one call under the rules file."""
    argv = ["mpiexec", "-n", str(ranks), "--mca", "coll_tuned_use_dynamic_rules", "1"]
    argv += ["--mca", "coll_tuned_dynamic_rules_filename", str(rules)]
    argv += [str(probe), collective, str(nbytes)]
    result = subprocess.run(argv, capture_output=True, text=True, env=ompi_env(), timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    found = [line.split()[1] for line in result.stdout.splitlines() if "ompi-algorithm" in line]
    assert len(found) == 1, result.stdout
    return found[0]


@pytest.mark.skipif(not open_mpi(), reason="needs Open MPI's mpicc and mpiexec")
def test_open_mpi_runs_every_mapped_algorithm(tmp_path):
    """Every pair of the mapping, alone in a rules file: Open MPI calls that algorithm (its
    collective id and algorithm id are right)."""
    from topocoll.formats import mpi_tuning as interop_tuning

    probe = tmp_path / "probe"
    subprocess.run(["mpicc", "-O1", "-rdynamic", "-o", str(probe), str(PROBE), "-ldl"], check=True)
    assert set(OMPI_FUNCTIONS) == {
        (c, a) for c, m in interop_tuning.OMPI_ALGORITHMS.items() for a in m
    }
    for (collective, algorithm), function in OMPI_FUNCTIONS.items():
        rules = tmp_path / f"{collective}-{algorithm}.txt"
        document = {"source": {"best": {"8": algorithm}}}
        rules.write_text(interop_tuning.ompi_rules(document, collective, 4))
        assert probe_run(probe, rules, 4, collective, 4096) == function, (collective, algorithm)


@pytest.mark.skipif(not open_mpi(), reason="needs Open MPI's mpicc and mpiexec")
def test_open_mpi_runs_what_the_rules_file_names(run_cli, tmp_path):
    rules = tmp_path / "rules.txt"
    code, _, err = run_cli(*TUNE, "-c", "allreduce", "--format", "ompi-rules", "-o", str(rules))
    assert code == 0, err
    bands = rules_lines(rules.read_text())[5:]
    probe = tmp_path / "probe"
    subprocess.run(["mpicc", "-O1", "-rdynamic", "-o", str(probe), str(PROBE), "-ldl"], check=True)

    def ran(nbytes: int) -> str:
        return probe_run(probe, rules, 8, "allreduce", nbytes)

    # The first byte of each band and the byte just below the next one.
    for i, (low, ident, _, _) in enumerate(bands):
        assert ran(max(low, 8)) == OMPI_ALLREDUCE[ident]
        if i + 1 < len(bands):
            assert ran(bands[i + 1][0] - 1) == OMPI_ALLREDUCE[ident]


CHECK = Path(__file__).resolve().parents[1] / "interop" / "mpich_collective_check.c"


def mpich() -> bool:
    return bool(shutil.which("mpicc.mpich") and shutil.which("mpiexec.mpich"))


@pytest.mark.skipif(not mpich(), reason="needs MPICH's mpicc.mpich and mpiexec.mpich")
def test_mpich_runs_every_mapped_algorithm_correctly(tmp_path):
    """Each algorithm name of the mapping, alone in a selection file of the shape mpich_json
    writes: MPICH reads it at start-up (and aborts on a name it does not have) and computes
    the collective right (which one ran: the tests below)."""
    from topocoll.formats import mpi_tuning as interop_tuning

    check = tmp_path / "check"
    subprocess.run(["mpicc.mpich", "-O1", "-o", str(check), str(CHECK)], check=True)
    for collective, mapping in interop_tuning.MPICH_ALGORITHMS.items():
        for algorithm in mapping:
            document = {"source": {"best": {"8": algorithm}}}
            path = tmp_path / f"{collective}-{algorithm}.json"
            path.write_text(interop_tuning.mpich_json(document, collective, 4))
            argv = ["mpiexec.mpich", "-n", "4", "-genv"]
            argv += ["MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", str(path)]
            argv += [str(check), collective, "1000"]
            result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
            lines = sorted(result.stdout.split("\n"))[1:]
            expected = [f"rank {r} wrong 0" for r in range(4)]
            assert lines == expected, (collective, algorithm, result.stderr[-500:])


# Which algorithm MPICH ran, seen through the messages it sent (tests/interop/
# mpich_algorithm_probe.c interposes UCX's ucp_tag_send_nbx, which ch4:ucx sends every message
# of a collective with).
MPICH_PROBE = Path(__file__).resolve().parents[1] / "interop" / "mpich_algorithm_probe.c"


def mpich_ucx() -> bool:
    if not (mpich() and shutil.which("mpichversion")):
        return False
    version = subprocess.run(["mpichversion"], capture_output=True, text=True).stdout
    return "ch4:ucx" in version


def build_mpich_probe(tmp_path: Path) -> Path:
    probe = tmp_path / "mpich_probe"
    argv = ["mpicc.mpich", "-O1", "-rdynamic", "-o", str(probe), str(MPICH_PROBE), "-ldl"]
    subprocess.run(argv, check=True)
    return probe


def mpich_sends(probe: Path, selection: Path, ranks: int, collective: str, nbytes: int):
    """Per rank, the bytes of each message MPICH sent for one call under the selection file."""
    out = selection.with_suffix(".sends")
    for r in range(ranks):
        out.with_name(f"{out.name}.{r}").unlink(missing_ok=True)
    argv = ["mpiexec.mpich", "-n", str(ranks), "-genv"]
    argv += ["MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE", str(selection)]
    argv += [str(probe), collective, str(nbytes), str(out)]
    result = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr[-2000:]
    sends = []
    for r in range(ranks):
        words = out.with_name(f"{out.name}.{r}").read_text().split()
        assert words[0] == "sends"
        sends.append([int(w) for w in words[1:]])
    return sends


def every(sizes: list[int]) -> list[list[int]]:
    return [sizes] * 4


# Per MPICH 4.0.2 algorithm, the bytes each of 4 ranks sends for 1024 B (allreduce, bcast: the
# vector; the others: each rank's block), from the algorithm's definition: recursive doubling
# sends the whole vector log P times, reduce-scatter + allgather halves it and doubles it back,
# a ring or pairwise exchange sends P - 1 blocks, Bruck's alltoall log P half buffers,
# recursive halving halves the buffer, the binomial bcast sends from the root to 2 then 1 and
# from 2 to 3.
MPICH_SENDS_P4 = {
    "MPIR_Allreduce_intra_recursive_doubling": every([1024, 1024]),
    "MPIR_Allreduce_intra_reduce_scatter_allgather": every([512, 256, 256, 512]),
    "MPIR_Allgather_intra_recursive_doubling": every([1024, 2048]),
    "MPIR_Allgather_intra_ring": every([1024, 1024, 1024]),
    "MPIR_Alltoall_intra_pairwise": every([1024, 1024, 1024]),
    "MPIR_Alltoall_intra_brucks": every([2048, 2048]),
    "MPIR_Bcast_intra_binomial": [[1024, 1024], [], [1024], []],
    "MPIR_Reduce_scatter_intra_recursive_halving": every([2048, 1024]),
    # Controls: another algorithm of a collective the mapping has one name for.
    "MPIR_Bcast_intra_scatter_recursive_doubling_allgather": None,
    "MPIR_Reduce_scatter_intra_pairwise": every([1024, 1024, 1024]),
}
MPICH_CONTROLS = {
    "bcast": "MPIR_Bcast_intra_scatter_recursive_doubling_allgather",
    "reduce-scatter": "MPIR_Reduce_scatter_intra_pairwise",
}


def schedule_message_bytes(collective: str, algorithm: str, ranks: int, nbytes: int):
    """The bytes of every message of topocoll's schedule (all ranks, sorted), with the probe's
    meaning of nbytes."""
    from topocoll import _core
    from topocoll.formats import goal

    doc = json.loads(_core.build(algorithm, collective, ranks).to_json())
    vector = nbytes if collective in ("allreduce", "bcast") else nbytes * ranks
    block = vector // doc["blocks"]
    lanes = goal._lanes(doc)
    ops = [op for rank in lanes for lane in rank for step in lane for op in step["ops"]]
    return sorted(goal._count(op["blocks"]) * block for op in ops if op["op"] == "send")


@pytest.mark.skipif(not mpich_ucx(), reason="needs MPICH on the ch4:ucx device")
def test_mpich_runs_every_mapped_algorithm(tmp_path):
    """Every name of the mapping, alone in a selection file of the shape mpich_json writes:
    MPICH sends the messages of that algorithm (the table), which are those of the topocoll
    algorithm it is mapped to, and of no other name of the collective (a file naming another
    algorithm is seen as that one)."""
    from topocoll.formats import mpi_tuning as interop_tuning

    probe = build_mpich_probe(tmp_path)
    for collective, mapping in interop_tuning.MPICH_ALGORITHMS.items():
        names = dict(mapping)
        if len(mapping) == 1:
            names["(control)"] = MPICH_CONTROLS[collective]
        template_algorithm, template_name = next(iter(mapping.items()))
        document = {"source": {"best": {"8": template_algorithm}}}
        template = interop_tuning.mpich_json(document, collective, 4)
        seen = {}
        for algorithm, name in names.items():
            path = tmp_path / f"{name}.json"
            path.write_text(template.replace(template_name, name))
            seen[name] = mpich_sends(probe, path, 4, collective, 1024)
            if MPICH_SENDS_P4[name] is not None:
                assert seen[name] == MPICH_SENDS_P4[name], (collective, name, seen[name])
            if algorithm in mapping:
                observed = sorted(b for sends in seen[name] for b in sends)
                assert observed == schedule_message_bytes(collective, algorithm, 4, 1024), name
        fingerprints = [str(f) for f in seen.values()]
        assert len(set(fingerprints)) == len(fingerprints), (collective, seen)


def allreduce_algorithm(sends: list[list[int]], nbytes: int, ranks: int) -> str:
    """The MPICH allreduce that sends these messages (P a power of two)."""
    steps = ranks.bit_length() - 1
    if all(s == [nbytes] * steps for s in sends):
        return "MPIR_Allreduce_intra_recursive_doubling"
    if all(len(s) == 2 * steps and max(s) < nbytes and s[:steps] == s[steps:][::-1] for s in sends):
        return "MPIR_Allreduce_intra_reduce_scatter_allgather"
    return f"unknown: {sends}"


def selection_bands(text: str, name: str) -> list[tuple[int, int | None, str]]:
    """(first byte, last byte or None, MPICH function) of each band of a selection file."""
    tree = json.loads(text)[f"collective={name}"]["comm_type=intra"]["comm_size=any"]
    bands, low = [], 0
    for key, leaf in tree.items():
        (algorithm,) = leaf
        high = None if key == "avg_msg_size=any" else int(key.removeprefix("avg_msg_size<="))
        bands.append((low, high, algorithm.removeprefix("algorithm=")))
        low = (high or 0) + 1
    return bands


@pytest.mark.skipif(not mpich_ucx(), reason="needs MPICH on the ch4:ucx device")
def test_mpich_runs_what_the_selection_file_names(run_cli, tmp_path):
    """The tuned file on 8 ranks: at the first and last byte of each band MPICH runs the
    algorithm the file names; the same file with the names exchanged runs the other one."""
    path = tmp_path / "selection.json"
    code, _, err = run_cli(*TUNE, "-c", "allreduce", "--format", "mpich-json", "-o", str(path))
    assert code == 0, err
    from topocoll.formats import mpi_tuning as interop_tuning

    bands = selection_bands(path.read_text(), "allreduce")
    assert len(bands) >= 2  # recursive doubling below 128 KiB, then Rabenseifner
    mapping = interop_tuning.MPICH_ALGORITHMS["allreduce"]
    # The same bands as topocoll's own rules, each algorithm under its MPICH name.
    code, out, err = run_cli(*TUNE, "-c", "allreduce", "--algorithms", ",".join(mapping))
    assert code == 0, err
    own = [(r["min_bytes"], mapping[r["algorithm"]]) for r in json.loads(out)["rules"]]
    assert [(low, function) for low, _, function in bands] == own
    a, b = mapping.values()
    swapped = tmp_path / "swapped.json"
    swapped.write_text(path.read_text().replace(a, "@").replace(b, a).replace("@", b))
    probe = build_mpich_probe(tmp_path)

    def ran(selection: Path, nbytes: int) -> str:
        return allreduce_algorithm(mpich_sends(probe, selection, 8, "allreduce", nbytes), nbytes, 8)

    for low, high, function in bands:
        other = b if function == a else a
        for nbytes in (max(low, 8), high or 4 * low):
            assert ran(path, nbytes) == function, nbytes
        assert ran(swapped, max(low, 8)) == other, low
