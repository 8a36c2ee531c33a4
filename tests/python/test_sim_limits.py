"""`sim`, `compare` and `tune` estimate a run's memory and work before it starts
(src/sim/run_estimate.cpp, python/topocoll/limits.py) and stop with exit 2 and the estimate
beyond this machine's memory or about ten minutes, unless --force. The issue's examples used
to run silently for minutes or until the kernel killed them; here each is refused in about a
second."""

from __future__ import annotations

import pytest
import topocoll
from topocoll import _core, limits
from topocoll.simulation import Network, make_setup


def refused(run_cli, *argv: str) -> str:
    code, out, err = run_cli(*argv)
    assert code == 2, (out, err)
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    return err


def test_a_ring_on_a_million_ranks_is_refused_with_its_estimate(run_cli):
    err = refused(
        run_cli, "sim", "-t", "ring:1048576", "-c", "allreduce", "-a", "ring", "-s", "1MiB"
    )
    assert "1,048,576 ranks, 2,199,021,158,400 rank-steps" in err
    assert "days" in err and "longer than 10 min" in err and "--force" in err


def test_a_mesh_of_a_million_hosts_is_refused_for_its_memory(run_cli):
    argv = ["sim", "-t", "hammingmesh:1024x1024:1x1", "-c", "allreduce", "-a", "swing-bw"]
    err = refused(run_cli, *argv, "-s", "1MiB")
    assert "GiB of memory" in err and "this machine can give it" in err


def test_the_packet_model_at_a_billion_packets_is_refused(run_cli):
    argv = ["sim", "-t", "torus:64x64", "-c", "allreduce", "-a", "bucket", "-s", "1GiB"]
    err = refused(run_cli, *argv, "--model", "packet")
    assert "2,146,959,360 packets" in err and "longer than 10 min" in err


def test_compare_on_a_128x128_torus_is_refused(run_cli):
    err = refused(run_cli, "compare", "-t", "torus:128x128")
    assert "the comparison needs" in err and "x 25 sizes" in err and "16,384 ranks" in err


def test_tune_is_refused_the_same_way(run_cli):
    err = refused(run_cli, "tune", "-t", "torus:128x128", "-p", "16384")
    assert "the comparison needs" in err


def test_the_python_functions_refuse_too_unless_forced():
    with pytest.raises(ValueError, match="longer than 10 min"):
        topocoll.simulate("ring:1048576", "allreduce", "ring", "1MiB")
    with pytest.raises(ValueError, match="the comparison needs"):
        topocoll.compare("torus:128x128", "allreduce")
    with pytest.raises(TypeError, match="force must be True or False"):
        topocoll.simulate("ring:4", "allreduce", "ring", 64, force="yes")


def test_force_runs_what_the_limits_refuse(run_cli, monkeypatch):
    monkeypatch.setattr(limits, "TIME_LIMIT_S", 0)
    argv = ["sim", "-t", "torus:4x4", "-c", "allreduce", "-a", "ring", "-s", "1MiB"]
    assert "longer than 0 s" in refused(run_cli, *argv)
    code, out, _ = run_cli(*argv, "--force")
    assert code == 0 and "time" in out
    assert topocoll.simulate("ring:4", "allreduce", "ring", 64, force=True).time_s > 0


def test_a_trace_the_writer_cannot_hold_is_refused_before_the_run(run_cli, tmp_path):
    trace = tmp_path / "trace.json"
    argv = ["sim", "-t", "torus:64x64", "-c", "allreduce", "-a", "ring", "-s", "64MiB"]
    err = refused(run_cli, *argv, "--trace", str(trace))
    assert "messages; accepted: up to 2,000,000 in a trace" in err
    assert not trace.exists()


def test_progress_lines_without_a_terminal(run_cli):
    code, _, err = run_cli(
        "compare",
        "-t",
        "torus:4x4",
        "--algorithms",
        "ring,bucket",
        "--sizes",
        "1KiB,4KiB",
        "--progress",
    )
    assert code == 0 and "4/4 runs in" in err
    code, _, err = run_cli(*SIM_SMALL, "--progress")
    assert code == 0 and "estimated about" in err and "done in" in err


SIM_SMALL = ("sim", "-t", "torus:4x4", "-c", "allreduce", "-a", "swing-bw", "-s", "1MiB")


@pytest.mark.parametrize(
    "spec, algorithm",
    [("torus:8x8", "swing-bw"), ("ring:64", "recdoub-bw"), ("fattree:2:4:4:4", "ring")],
)
def test_the_estimate_counts_what_the_engine_sends(spec, algorithm):
    """Small runs are read in full: messages and transfers are the engine's exactly."""
    network = Network(make_setup(spec, "allreduce"))
    estimate = network.estimate(algorithm, 1 << 20)
    result = network.run(algorithm, 1 << 20)
    assert estimate["exact"] or estimate["sampled_steps"] > 0
    assert estimate["messages"] == pytest.approx(result.messages, rel=0.02)
    assert estimate["transfers"] == pytest.approx(result.transfers, rel=0.02)


def test_the_estimate_finds_the_symmetry_the_engine_uses():
    network = Network(make_setup("torus:8x8", "allreduce"))
    estimate = network.estimate("bucket", 1 << 20)
    assert estimate["symmetry_group"] == network.run("bucket", 1 << 20).symmetry_group == 64
    assert network.estimate("bucket", 1 << 20, trace=True)["symmetry_group"] == 1


def test_estimate_arguments_are_checked():
    topology = _core.make_topology("ring:4")
    router = _core.make_router(topology)
    schedule = _core.build("ring", "allreduce", 4)
    for bad in ({"vector_bytes": 0}, {"vector_bytes": 64, "element_bytes": 0}, {"mtu": 8}):
        kwargs = {"vector_bytes": 64, **bad}
        with pytest.raises(ValueError):
            _core.estimate_simulation(schedule, topology, router, **kwargs)
