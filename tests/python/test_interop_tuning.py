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
    tree = json.loads(out)["collective=allreduce"]["comm_type=intra"]
    for sizes in (tree["comm_size<=8"], tree["comm_size=any"]):
        keys = list(sizes)
        assert keys[-1] == "avg_msg_size=any" and len(keys) >= 2
        for leaf in sizes.values():
            (name,) = leaf
            assert name.startswith("algorithm=MPIR_Allreduce_intra_")


@pytest.mark.skipif(not open_mpi(), reason="needs Open MPI's mpicc and mpiexec")
def test_open_mpi_runs_what_the_rules_file_names(run_cli, tmp_path):
    rules = tmp_path / "rules.txt"
    code, _, err = run_cli(*TUNE, "-c", "allreduce", "--format", "ompi-rules", "-o", str(rules))
    assert code == 0, err
    bands = rules_lines(rules.read_text())[5:]
    probe = tmp_path / "probe"
    subprocess.run(["mpicc", "-O1", "-rdynamic", "-o", str(probe), str(PROBE), "-ldl"], check=True)
    env = dict(
        os.environ,
        OMPI_ALLOW_RUN_AS_ROOT="1",
        OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
        OMPI_MCA_rmaps_base_oversubscribe="1",
    )
    mca = ["--mca", "coll_tuned_use_dynamic_rules", "1"]
    mca += ["--mca", "coll_tuned_dynamic_rules_filename", str(rules)]

    def ran(nbytes: int) -> str:
        argv = ["mpiexec", "-n", "8", *mca, str(probe), "allreduce", str(nbytes)]
        result = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=120)
        assert result.returncode == 0, result.stderr[-2000:]
        found = [line.split()[1] for line in result.stdout.splitlines() if "ompi-algorithm" in line]
        assert len(found) == 1, result.stdout
        return found[0]

    # The first byte of each band and the byte just below the next one.
    for i, (low, ident, _, _) in enumerate(bands):
        assert ran(max(low, 8)) == OMPI_ALLREDUCE[ident]
        if i + 1 < len(bands):
            assert ran(bands[i + 1][0] - 1) == OMPI_ALLREDUCE[ident]
