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
    from topocoll import interop_tuning

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
    the collective right. Which algorithm ran is not observable in a release build of MPICH."""
    from topocoll import interop_tuning

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
