"""`topocoll sim` and `topocoll compare`: outputs, JSON fields, input errors (exit 2), the best
marking and determinism across --jobs. Small tori only, to keep the suite fast."""

from __future__ import annotations

import csv
import io
import json

import pytest
import topocoll
from topocoll.comparison import size_range
from topocoll.simulation import is_baseline

SIM = ("sim", "-t", "torus:4x4", "-c", "allreduce")


def sim_json(run_cli, *extra: str) -> dict:
    code, out, err = run_cli(*SIM, "--json", *extra)
    assert code == 0, err
    return json.loads(out)


def test_sim_json_fields_and_goodput_definition(run_cli):
    doc = sim_json(run_cli, "-a", "swing-bw", "-s", "1MiB")
    assert doc["time_s"] > 0 and doc["messages"] > 0
    assert doc["goodput_gbps"] == pytest.approx((1 << 20) * 8 / doc["time_s"] / 1e9)
    # 4 links of 400 Gb/s per host; allreduce bound 2(P-1)/P x n / (1600 Gb/s).
    assert doc["host_bandwidth_gbps"] == pytest.approx(1600)
    assert doc["peak_goodput_gbps"] == pytest.approx(1600 / (2 * 15 / 16))
    assert 0 < doc["peak_percent"] <= 100
    assert doc["dims"] == "4x4"  # the torus shape comes from the topology
    assert len(doc["rank_finish_s"]) == 16
    assert max(doc["rank_finish_s"]) == pytest.approx(doc["time_s"])
    assert 0 < doc["mean_link_utilization"] <= doc["max_link_utilization"] <= 1


def test_sim_dims_override_and_ring_algorithms_run_1d(run_cli):
    assert sim_json(run_cli, "-a", "swing-bw", "-s", "64KiB", "--dims", "16")["dims"] == "16"
    assert sim_json(run_cli, "-a", "ring", "-s", "64KiB")["dims"] == "16"


def test_sim_rooted_and_chunked_collectives(run_cli):
    code, out, _ = run_cli(
        "sim",
        "-t",
        "torus:4x4",
        "-c",
        "bcast",
        "-a",
        "bine-torus",
        "-s",
        "1MiB",
        "--root",
        "5",
        "--json",
    )
    doc = json.loads(out)
    assert code == 0 and doc["root"] == 5
    assert doc["peak_goodput_gbps"] == pytest.approx(1600)  # bcast bound: size / H
    # reduce-scatter: the size is P x count; 1000 B over 16 ranks moves 16 x 62 B.
    doc = sim_json(run_cli, "-c", "reduce-scatter", "-a", "swing-bw", "-s", "1000")
    assert doc["size_bytes"] == 16 * 62
    assert doc["goodput_gbps"] == pytest.approx(16 * 62 * 8 / doc["time_s"] / 1e9)


@pytest.mark.parametrize(
    "topology, algorithm, dims, host_gbps",
    [
        ("hypercube:4", "hamiltonian-d-cycles", "2x2x2x2", 1600),  # 4 links per host
        ("fattree:2:4:4:4", "swing-bw", "16", 400),  # no grid: a ring of ranks; 1 NIC port
        ("mesh:4x4", "swing-bw", "4x4", 800),  # a corner host has 2 links
    ],
)
def test_sim_shape_and_host_bandwidth_follow_the_topology(
    run_cli, topology, algorithm, dims, host_gbps
):
    code, out, err = run_cli(
        "sim", "-t", topology, "-c", "allreduce", "-a", algorithm, "-s", "64KiB", "--json"
    )
    assert code == 0, err
    doc = json.loads(out)
    assert doc["dims"] == dims and doc["host_bandwidth_gbps"] == pytest.approx(host_gbps)


def test_sim_text_names_time_goodput_and_peak(run_cli):
    code, out, _ = run_cli(*SIM, "-a", "bucket", "-s", "256KiB", "--params", "trivance")
    assert code == 0
    assert "time" in out and "% of the peak" in out and "messages" in out
    assert "3200 Gb/s per host" in out  # trivance preset: 800 Gb/s links, 4 per host


def test_sim_congestion_free_ring_matches_closed_form(run_cli):
    # Ring allreduce on a ring of 4 with one port: 2(P-1) steps of n/P bytes over one link,
    # each paying link + hop latency (400 ns with the swing preset) plus n/P / 50 GB/s.
    n, p = 1 << 20, 4
    step = 400e-9 + n / p / 50e9
    for model in ("flow", "analytic"):
        doc = json.loads(
            run_cli(
                "sim",
                "-t",
                "ring:4",
                "-c",
                "allreduce",
                "-a",
                "ring",
                "-s",
                "1MiB",
                "--ports",
                "1",
                "--model",
                model,
                "--json",
            )[1]
        )
        assert doc["time_s"] == pytest.approx(2 * (p - 1) * step, rel=1e-6)


def test_sim_output_paths_that_cannot_be_written_are_exit_2(run_cli, tmp_path):
    for option in ("--links", "--trace"):
        code, _, err = run_cli(*SIM, "-a", "ring", "-s", "1KiB", option, str(tmp_path))
        assert code == 2 and "directory" in err


def test_sim_links_csv_and_trace(run_cli, tmp_path):
    links, trace = tmp_path / "links.csv", tmp_path / "trace.json"
    doc = sim_json(
        run_cli, "-a", "swing-bw", "-s", "64KiB", "--links", str(links), "--trace", str(trace)
    )
    rows = list(csv.DictReader(links.open()))
    assert rows and set(rows[0]) == {
        "link",
        "label",
        "kind",
        "from",
        "to",
        "bytes",
        "busy_s",
        "utilization",
    }
    assert all(0 <= float(r["busy_s"]) <= doc["time_s"] * (1 + 1e-9) for r in rows)
    assert sum(float(r["bytes"]) for r in rows) > 0
    events = json.loads(trace.read_text())["traceEvents"]
    assert len(events) >= doc["messages"]


@pytest.mark.parametrize(
    "extra, words",
    [
        (("-t", "torus:4xq"), ("torus:4xq", "accepted", "ring:N")),
        (("-t", "cube:3"), ("cube:3", "accepted")),
        (("-s", "4XB"), ("4XB", "accepted")),
        (("-s", "0"), ("out of range", "1B to 1TiB")),
        (("-s", "2TiB"), ("out of range", "1B to 1TiB")),
        (("--bandwidth", "400Gbq"), ("400Gbq", "Gbps")),
        (("--latency", "5parsec"), ("5parsec", "ns")),
        (("--model", "pakket"), ("pakket", "analytic, flow, packet, simgrid")),
        (("--routing", "spiral"), ("spiral", "accepted")),
        (("--params", "nope"), ("nope", "swing")),
        (("-a", "hamiltonian-cycle"), ("binary cube", "accepted")),
        (("-a", "nope"), ("nope", "swing-bw")),
        (("-c", "alltoall", "-a", "swing-bw"), ("alltoall", "accepted")),
        (("--ranks", "99"), ("99", "accepted: 2..16", "16 rank slots", "--topology")),
        (("--ranks", "99", "--ranks-per-node", "2"), ("32 rank slots, nodes of 2 ranks",)),
        (("--ranks", "abc"), ("'abc'", "accepted: an integer")),
        (("--root", "3"), ("root", "accepted")),
    ],
)
def test_sim_invalid_input_is_exit_2_naming_accepted_values(run_cli, extra, words):
    args = {"-a": "swing-bw", "-s": "1MiB"}
    argv = list(SIM)
    for key, value in zip(extra[::2], extra[1::2], strict=True):
        if key in ("-t", "-c"):
            argv[argv.index(key) + 1] = value
        else:
            args[key] = value
    for key, value in args.items():
        argv += [key, value]
    code, out, err = run_cli(*argv)
    assert code == 2, out
    assert len(err.strip().splitlines()) == 1
    for word in words:
        assert word in err


COMPARE = ("compare", "-t", "torus:4x4", "-c", "allreduce", "--sizes", "1KiB:1MiB")
FEW = ("--algorithms", "swing-lat,swing-bw,bucket,ring", "--sizes", "1KiB,1MiB")


def compare_json(run_cli, *extra: str) -> dict:
    code, out, err = run_cli(*COMPARE, "--format", "json", *extra)
    assert code == 0, err
    return json.loads(out)


def test_compare_marks_the_fastest_and_reports_the_gain(run_cli):
    doc = compare_json(run_cli, *FEW)
    assert doc["sizes"] == [1024, 1 << 20]
    for size, summary in zip(doc["sizes"], doc["summary"], strict=True):
        rows = [r for r in doc["rows"] if r["size_bytes"] == size and r["kind"] == "algorithm"]
        assert len(rows) == 4
        best = [r for r in rows if r["best"]]
        assert len(best) == 1 and best[0]["time_s"] == min(r["time_s"] for r in rows)
        paper = max((r for r in rows if r["paper"]), key=lambda r: r["goodput_gbps"])
        base = max((r for r in rows if not r["paper"]), key=lambda r: r["goodput_gbps"])
        assert summary["best_paper"] == paper["algorithm"]
        assert summary["best_baseline"] == base["algorithm"]
        assert summary["gain"] == pytest.approx(paper["goodput_gbps"] / base["goodput_gbps"])
        family = [r for r in doc["rows"] if r["size_bytes"] == size and r["kind"] == "best-of"]
        assert [r["algorithm"] for r in family] == ["swing (best of lat/bw)"]
        swing = [r for r in rows if r["family"] == "swing"]
        assert family[0]["time_s"] == min(r["time_s"] for r in swing)
    # Latency-optimal wins small, bandwidth-optimal large (the papers' crossover).
    chosen = [r["chosen"] for r in doc["rows"] if r["kind"] == "best-of"]
    assert chosen == ["swing-lat", "swing-bw"]


def test_compare_is_the_same_whatever_the_jobs(run_cli):
    one = compare_json(run_cli, *FEW, "--jobs", "1")
    two = compare_json(run_cli, *FEW, "--jobs", "2")
    assert one == two


def test_compare_all_skips_what_does_not_fit_and_lists_it_once(run_cli):
    code, out, err = run_cli(*COMPARE, "--sizes", "64KiB", "--format", "csv")
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    names = {r["algorithm"] for r in rows if r["kind"] == "algorithm"}
    assert {"swing-bw", "bucket", "ring", "trivance-bw"} <= names
    assert "hamiltonian-cycle" not in names
    assert err.count("hamiltonian-cycle:") == 1 and "do not fit torus:4x4" in err
    assert sum(r["best"] == "True" for r in rows) == 1


def test_compare_table_and_plot(run_cli, tmp_path):
    png = tmp_path / "goodput.png"
    code, out, _ = run_cli(*COMPARE, *FEW, "--plot", str(png))
    assert code == 0
    assert "best paper" in out and "gain" in out and str(png) in out
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_comparison_title_names_the_machine_when_one_gave_the_parameters():
    from topocoll.plots import comparison_title

    few = dict(topology="torus:4x4", collective="allreduce", sizes=[1024])
    on_machine = topocoll.compare(**few, algorithms=["ring"], machine="swing-sst")
    on_preset = topocoll.compare(**few, algorithms=["ring"])
    assert "flow model, machine swing-sst:" in comparison_title(on_machine)
    assert "flow model: time relative" in comparison_title(on_preset)


@pytest.mark.parametrize(
    "extra, words",
    [
        (("--sizes", "1KiB:1B"), ("lower bound",)),
        (("--sizes", "3:3"), ("no power of two",)),
        (("--sizes", "0:1KiB"), ("out of range",)),
        (("--algorithms", "hamiltonian-cycle"), ("binary cube",)),
        (("--format", "xml"), ("table, csv, json",)),
        (("--model", "pakket"), ("analytic, flow, packet, simgrid",)),
        (("--jobs", "0"), ("--jobs", "1..256")),
        (("--plot", "out.xyz"), (".png",)),
        (("--plot", "/no/such/dir/out.png"), ("no such directory",)),
    ],
)
def test_compare_invalid_input_is_exit_2(run_cli, extra, words):
    code, _, err = run_cli(*COMPARE, *extra)
    assert code == 2
    for word in words:
        assert word in err


def test_compare_chunked_collective_drops_sizes_below_p(run_cli):
    code, out, err = run_cli(
        "compare",
        "-t",
        "ring:8",
        "-c",
        "reduce-scatter",
        "--algorithms",
        "ring,bucket",
        "--sizes",
        "2B:32B",
        "--format",
        "json",
    )
    assert code == 0
    assert json.loads(out)["sizes"] == [8, 16, 32]
    assert "below P = 8" in err


def test_python_api_returns_rows():
    result = topocoll.simulate("ring:8", "allgather", "ring", "8KiB", model="analytic")
    assert result.size_bytes == 8192 and result.rows()[0]["algorithm"] == "ring"
    comparison = topocoll.compare(
        "ring:8", "allreduce", algorithms=["ring", "swing-bw"], sizes=[64, 4096]
    )
    rows = comparison.rows()
    assert len([r for r in rows if r["kind"] == "algorithm"]) == 4
    assert {r["size_bytes"] for r in rows} == {64, 4096}


def test_size_range_and_baselines_are_data():
    assert size_range("32B:512MiB")[0] == 32 and size_range("32B:512MiB")[-1] == 512 << 20
    assert len(size_range("32B:512MiB")) == 25
    assert size_range("33:128") == [64, 128]
    assert is_baseline("ring") and is_baseline("bruck-bw") and is_baseline("reduce-and-spread")
    assert not is_baseline("swing-bw") and not is_baseline("trivance-lat")
    assert not is_baseline("hamiltonian-d-cycles") and is_baseline("spanning-trees")


def test_compare_under_mpirun_merges_like_one_process(run_cli, tmp_path):
    import os
    import shutil
    import subprocess
    import sys

    pytest.importorskip("mpi4py.MPI")
    mpirun = shutil.which("mpirun")
    if mpirun is None:
        pytest.skip("mpirun (openmpi-bin) is not installed")
    argv = ["compare", "-t", "torus:4x4", *FEW, "--format", "json"]
    env = {**os.environ, "OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}
    launched = subprocess.run(
        [mpirun, "--oversubscribe", "-n", "2", sys.executable, "-m", "topocoll.cli", *argv],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert launched.returncode == 0, launched.stderr
    # Rank 0 alone prints, and what it prints is the single-process answer.
    assert json.loads(launched.stdout) == compare_json(run_cli, *FEW)


def test_symmetry_reduction_is_reported_and_changes_no_result():
    """The flow model runs one host per orbit of a translation symmetry (docs/simulator-
    engines.md, "Symmetry"); the core's switch gives the full run to compare with."""
    from topocoll import _core

    topology = _core.make_topology("torus:8x8", _core.network_preset("swing"))
    router = _core.make_router(topology, "minimal")
    schedule = _core.build("swing-bw", "allreduce", 64, [8, 8], 0, 0, True)
    reduced = _core.simulate(schedule, topology, router, vector_bytes=1 << 20, record_links=True)
    full = _core.simulate(
        schedule, topology, router, vector_bytes=1 << 20, record_links=True, symmetry=False
    )
    assert reduced["symmetry_group"] == 16 and full["symmetry_group"] == 1
    assert reduced["time_s"] == pytest.approx(full["time_s"], rel=1e-9)
    assert reduced["messages"] == full["messages"]
    assert [link["bytes"] for link in reduced["links"]] == pytest.approx(
        [link["bytes"] for link in full["links"]], rel=1e-9
    )
    result = topocoll.simulate("torus:8x8", "allreduce", "bucket", "1MiB")
    assert result.symmetry_group == 64
    assert topocoll.simulate("torus:8x8", "allreduce", "bucket", "1000B").symmetry_group == 1


def test_compare_prune_skips_baselines_that_cannot_win_and_keeps_the_summary():
    """compare(prune=True): the rings' lower bound (126 one-link steps on 8x8) exceeds
    recursive doubling's time at small sizes, so they are not run there; every size's best,
    best baseline and gain are those of the full comparison, and the pruned runs have no rows."""
    algorithms = ["swing-lat", "swing-bw", "recdoub-lat", "bucket", "ring", "hamiltonian-rings"]
    options = {"algorithms": algorithms, "sizes": "32B:1MiB", "params": "swing"}
    full = topocoll.compare("torus:8x8", "allreduce", **options)
    pruned = topocoll.compare("torus:8x8", "allreduce", prune=True, **options)
    assert pruned.summary == full.summary
    skipped = {(p["algorithm"], p["size_bytes"]) for p in pruned.pruned}
    assert ("hamiltonian-rings", 32) in skipped and ("ring", 32) in skipped
    for p in pruned.pruned:
        assert p["lower_bound_s"] > p["beaten_time_s"]
        ran = {e.algorithm: e.time_s for e in full.entries if e.size_bytes == p["size_bytes"]}
        assert ran[p["algorithm"]] >= p["lower_bound_s"]  # the bound held where it pruned
    rows = {(e.algorithm, e.size_bytes) for e in pruned.entries if e.kind == "algorithm"}
    assert not rows & skipped
    assert len(rows) + len(skipped) == len(algorithms) * len(full.sizes)
