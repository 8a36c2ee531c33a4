"""`sim`, `compare`, `tune` and `topocoll.simulate` keep the exit-code contract. Every
case here went wrong before (a traceback, an OverflowError or RuntimeError, a bare codec error,
a misleading message, or nonsense accepted); each asserts the one-line answer it gets now."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import topocoll
from topocoll import _core

ROOT = Path(__file__).resolve().parents[2]
SIM = ("sim", "-t", "torus:4x4", "-c", "allreduce", "-a", "ring", "-s", "1MiB")


def one_line_exit_2(run_cli, *argv: str) -> str:
    code, out, err = run_cli(*argv)
    assert code == 2, (argv, out, err)
    assert len(err.strip().splitlines()) == 1, err
    assert "Traceback" not in err
    return err


def test_the_docs_list_every_parameter_range():
    """docs/simulator.md's table is the core's table, row for row."""
    doc = (ROOT / "docs/simulator.md").read_text()
    for r in _core.parameter_ranges():
        row = f"| `{r['option']}` | `{r['name']}` | {r['accepted']} | {r['why']} |"
        assert row in doc, row


@pytest.mark.parametrize(
    "option, value, accepted",
    [
        ("--ports", "99999999999999999999999", "accepted: 1..1048576"),
        ("--ranks", "99999999999999999999999", "accepted: 2..16777216"),
        ("--ranks", "0", "omit it for every host"),
        ("--ports", "0", "omit it for the algorithm's default"),
        ("--bandwidth", "9999999999999999999999999Tbps", "accepted: 1Mbps to 1Pbps"),
        ("--bandwidth", "0.0000000000000001bps", "accepted: 1Mbps to 1Pbps"),
        ("--latency", "99999999999999999999999999999s", "accepted: 0s to 1s"),
        ("--reduce-cost", "1000000s", "accepted: 0s to 1us per byte"),
        ("--alpha=-1us", None, "duration '-1us' is not understood"),
    ],
)
def test_numbers_beyond_their_range_are_exit_2(run_cli, option, value, accepted):
    argv = [*SIM, option] + ([value] if value is not None else [])
    assert accepted in one_line_exit_2(run_cli, *argv)


@pytest.mark.parametrize(
    "options, exception, words",
    [
        ({"size": float("inf")}, ValueError, "--size inf is not a finite number of bytes"),
        ({"size": float("nan")}, ValueError, "--size nan is not a finite number of bytes"),
        ({"size": 5e-324}, TypeError, "--size must be an integer"),
        ({"size": 2**70}, ValueError, "accepted: 1B to 1TiB"),
        ({"bandwidth": float("inf")}, ValueError, "accepted: 1Mbps to 1Pbps"),
        ({"bandwidth": 5e-324}, ValueError, "accepted: 1Mbps to 1Pbps"),  # was a "deadlock"
        ({"bandwidth": 2**2000}, ValueError, "accepted: 1Mbps to 1Pbps"),  # past a double
        ({"latency": float("inf")}, ValueError, "accepted: 0s to 1s"),  # was a "deadlock"
        ({"alpha": float("nan")}, ValueError, "accepted: 0s to 1s"),
        ({"reduce_cost": float("inf")}, ValueError, "1us per byte"),
        ({"model": "packet", "mtu": float("inf")}, TypeError, "--mtu must be an integer"),
        ({"model": "packet", "mtu": 5e-324}, TypeError, "--mtu must be an integer"),
        ({"model": "packet", "buffer": 2**80}, ValueError, "to 1GiB"),
        ({"ranks": 4.5}, TypeError, "--ranks must be an integer"),
        ({"ranks": "4"}, TypeError, "--ranks must be an integer"),
        ({"ports": 2**70}, ValueError, "accepted: 1..1048576"),
        ({"dims": [4.5, 4]}, TypeError, "dims must be an integer"),
        ({"routing": None}, TypeError, "routing must be a string"),
        ({"topology": "torus:4x4\x00"}, ValueError, r"torus:4x4\x00' contains a control"),
        ({"mapping": "random:1\n2"}, ValueError, "contains a control character"),
        ({"links": 1}, TypeError, "links must be True or False"),
    ],
)
def test_simulate_arguments_raise_value_or_type_errors(options, exception, words):
    kwargs = dict(options)
    topology = kwargs.pop("topology", "torus:4x4")
    size = kwargs.pop("size", 4096)
    with pytest.raises(exception) as error:
        topocoll.simulate(topology, "allreduce", "ring", size, **kwargs)
    assert words in str(error.value) and "\n" not in str(error.value)


def test_nic_ports_from_python_is_checked_like_the_option():
    for bad in (float("inf"), 5e-324):
        with pytest.raises(TypeError, match="--nic-ports must be an integer"):
            topocoll.network_params(nic_ports=bad)
    with pytest.raises(ValueError, match=r"accepted: 1\.\.64"):
        topocoll.network_params(nic_ports=2**70)
    assert topocoll.network_params(nic_ports=4).nic_ports == 4


def test_a_denormal_latency_is_a_zero_latency():
    """In range (a non-negative time), and it changes nothing a double can show."""
    tiny = topocoll.simulate("ring:4", "allreduce", "ring", 4096, latency=5e-324, hop_latency=0)
    zero = topocoll.simulate("ring:4", "allreduce", "ring", 4096, latency=0, hop_latency=0)
    assert tiny.time_s == zero.time_s and math.isfinite(tiny.time_s)


@pytest.mark.parametrize("kind", ["graph", "mapping"])
def test_a_directory_or_binary_file_where_a_file_is_expected(run_cli, tmp_path, kind):
    binary = tmp_path / "binary.json"
    binary.write_bytes(b'{"nodes": [\xff\xfe]}')
    for path, words in ((tmp_path, "is a directory"), (binary, "not UTF-8 text (byte 11)")):
        if kind == "graph":
            argv = ["sim", "-t", f"graph:{path}", "-c", "allreduce", "-a", "ring", "-s", "1KiB"]
        else:
            argv = [*SIM, "--mapping", str(path)]
        err = one_line_exit_2(run_cli, *argv)
        assert f"{kind} file '{path}'" in err and words in err


def test_graph_files_name_the_unknown_key_and_the_accepted_ones(run_cli, tmp_path):
    graph = tmp_path / "net.json"
    nodes = [{"name": "a", "host": True}, {"name": "b", "host": True}]
    graph.write_text(json.dumps({"nodes": nodes, "links": [{"from": "a", "to": "b", "lat": "1s"}]}))
    err = one_line_exit_2(run_cli, "sim", "-t", f"graph:{graph}", *SIM[3:])
    assert f"graph file '{graph}': links[0]: unknown key 'lat'; accepted keys: from, to" in err


def test_hypercube_dimensions_match_the_docs(run_cli):
    doc = (ROOT / "docs/simulator.md").read_text()
    high = int(re.search(r"hypercube:D` \| 2\^D hosts \(1 <= D <= (\d+)", doc).group(1))
    err = one_line_exit_2(run_cli, "sim", "-t", f"hypercube:{high + 1}", *SIM[3:])
    assert f"hypercube dimension {high + 1} is out of range [1, {high}]" in err


@pytest.mark.parametrize(
    "argv, words",
    [
        ((*SIM, "--root", "0"), "--root does not apply to allreduce"),
        ((*SIM, "--nic-ports", "2"), "--nic-ports does not apply to torus:4x4"),
        ((*SIM, "--mapping", "random:99999999999999999999999"), "not a seed (an integer in 0.."),
        (
            (
                "sim",
                "-t",
                "ring:4",
                "-c",
                "allgather",
                "-a",
                "ring",
                "-s",
                "1KiB",
                "--reduce-cost=1ns",
            ),
            "--reduce-cost does not apply to allgather (it reduces nothing)",
        ),
    ],
)
def test_options_that_do_not_apply_or_do_not_fit(run_cli, argv, words):
    assert words in one_line_exit_2(run_cli, *argv)


@pytest.fixture
def mapping_file(tmp_path):
    path = tmp_path / "map.csv"
    path.write_text("".join(f"{r},{(r + 1) % 16}\n" for r in range(16)))
    return path


def test_two_outputs_naming_one_file_are_refused(run_cli, tmp_path):
    links = tmp_path / "out.csv"
    err = one_line_exit_2(run_cli, *SIM, "--links", str(links), "--trace", f"{tmp_path}/./out.csv")
    assert "--trace and --links name the same file" in err
    assert not links.exists()  # refused before the run
    # A symbolic link to the other output is the same file too.
    (tmp_path / "alias.csv").symlink_to(links)
    err = one_line_exit_2(run_cli, *SIM, "--links", str(links), "--trace", f"{tmp_path}/alias.csv")
    assert "name the same file" in err


@pytest.mark.parametrize("command", ["sim", "compare", "tune"])
def test_an_output_may_not_overwrite_an_input(run_cli, mapping_file, command):
    if command == "sim":
        argv = [*SIM, "--trace", str(mapping_file)]
    elif command == "compare":
        argv = ["compare", "-t", "torus:4x4", "--plot", str(mapping_file.with_suffix(".png"))]
        mapping_file.rename(mapping_file.with_suffix(".png"))
        mapping_file = mapping_file.with_suffix(".png")
    else:
        argv = ["tune", "-t", "torus:4x4", "-p", "16", "-o", str(mapping_file)]
    before = mapping_file.read_bytes()
    err = one_line_exit_2(run_cli, *argv, "--mapping", f"file:{mapping_file}")
    assert "is the mapping file the run reads" in err
    assert mapping_file.read_bytes() == before
    if command == "sim":  # the Python function checks the same
        with pytest.raises(ValueError, match="is the mapping file the run reads"):
            topocoll.simulate(*SIM[2:9:2], mapping=str(mapping_file), trace=mapping_file)


def test_graph_file_is_an_input_too(run_cli, tmp_path):
    graph = tmp_path / "net.json"
    nodes = [{"name": "a", "host": True}, {"name": "b", "host": True}]
    graph.write_text(json.dumps({"nodes": nodes, "links": [{"from": "a", "to": "b"}]}))
    argv = ["sim", "-t", f"graph:{graph}", "-c", "allreduce", "-a", "ring", "-s", "1KiB"]
    err = one_line_exit_2(run_cli, *argv, "--links", str(graph))
    assert "is the graph file the run reads" in err


@pytest.mark.parametrize("option", ["--links", "--trace"])
def test_simgrid_has_no_per_link_or_per_message_output(run_cli, tmp_path, option):
    argv = [*SIM, "--model", "simgrid", "--routing", "dor", option, str(tmp_path / "out")]
    assert "not available with the simgrid model" in one_line_exit_2(run_cli, *argv)


def test_a_key_given_twice_is_refused(run_cli, tmp_path):
    """JSON leaves duplicate keys to the reader, which kept the last one silently."""
    graph = tmp_path / "net.json"
    nodes = '[{"name": "a", "host": true}, {"name": "b", "host": true}]'
    graph.write_text(f'{{"nodes": {nodes}, "links": [{{"from": "a", "to": "b"}}], "nodes": []}}')
    err = one_line_exit_2(run_cli, "sim", "-t", f"graph:{graph}", *SIM[3:])
    assert "the key 'nodes' appears twice in one object" in err
    spec = "fattree:radix=8:levels=3:levels=2"
    assert "'levels' is given twice" in one_line_exit_2(run_cli, "sim", "-t", spec, *SIM[3:])


@pytest.mark.parametrize(
    "options, exception, words",
    [
        ({"algorithms": [None]}, TypeError, "an algorithm must be a string"),
        ({"algorithms": 5}, TypeError, "algorithms must be 'all', 'A,B,...' or a list"),
        ({"sizes": []}, ValueError, "sizes is empty"),
        ({"sizes": 5}, TypeError, "sizes must be a string or a list of sizes"),
        ({"sizes": [1.5]}, TypeError, "size must be an integer number of bytes"),
        ({"jobs": 2.5}, TypeError, "jobs must be an integer"),
        ({"progress": 5}, TypeError, "progress must be a function"),
        ({"use_mpi": "x"}, TypeError, "use_mpi must be True or False"),
        ({"prune": "yes"}, TypeError, "prune must be True or False"),
    ],
)
def test_compare_arguments_raise_value_or_type_errors(options, exception, words):
    with pytest.raises(exception) as error:
        topocoll.compare("ring:4", "allreduce", **{"sizes": [64], **options})
    assert words in str(error.value) and "\n" not in str(error.value)


def test_a_negative_root_names_the_range_of_the_run(run_cli):
    argv = ["sim", "-t", "torus:4x4", "-c", "bcast", "-a", "binomial-halving", "-s", "1KiB"]
    assert "--root -1 is out of range; accepted: 0..P-1" in one_line_exit_2(
        run_cli, *argv, "--root=-1"
    )
    assert "--root 16 is out of range; accepted: 0..15" in one_line_exit_2(
        run_cli, *argv, "--root", "16"
    )


@pytest.mark.parametrize("command", ["sim", "compare"])
def test_running_out_of_memory_names_what_to_try_for_the_command(run_cli, monkeypatch, command):
    """verify's hint (--mode fingerprint) used to be given for every command."""
    from topocoll import simulation
    from topocoll.cli import compare, sim

    def exhausted(*args, **kwargs):
        raise MemoryError

    if command == "sim":
        monkeypatch.setattr(sim, "run", exhausted)
    else:
        monkeypatch.setattr(compare, "run_compare", exhausted)
    monkeypatch.setattr(simulation.Network, "run", exhausted)
    argv = [*SIM] if command == "sim" else ["compare", "-t", "ring:4", "--sizes", "64"]
    code, _, err = run_cli(*argv)
    assert code == 2 and "out of memory" in err and "--mode fingerprint" not in err


def test_an_output_in_a_folder_that_cannot_be_written_is_refused_before_the_run(
    run_cli, tmp_path, monkeypatch
):
    import os

    real_access = os.access
    monkeypatch.setattr(
        os, "access", lambda p, mode: False if str(p) == str(tmp_path) else real_access(p, mode)
    )
    err = one_line_exit_2(run_cli, *SIM, "--links", str(tmp_path / "links.csv"))
    assert "not writable" in err
