"""Nodes of several ranks in the CLI and the Python API (docs/nodes.md, docs/hierarchical.md):
--ranks-per-node K on verify, schedule, sim, compare and tune, the compositions hier:INNER and
leader:INNER, and the link kinds of --links."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
import topocoll
from topocoll import _core
from topocoll.simulation import make_setup, simulate

FAT_TREE = "fattree:2:4:4:4"  # 16 hosts


def test_verify_hier_ring_on_nodes_of_two(run_cli):
    code, out, err = run_cli(
        "verify", "--ranks-per-node", "2", "-a", "hier:ring", "-c", "allreduce", "--ranks", "8"
    )
    assert code == 0, out + err


def test_ranks_not_a_multiple_of_k_names_k(run_cli):
    code, out, err = run_cli(
        "verify", "--ranks-per-node", "3", "-a", "hier:ring", "-c", "allreduce", "--ranks", "8"
    )
    assert code == 2
    line = (out + err).strip()
    assert "multiple of 3" in line and len(line.splitlines()) == 1


def test_ranks_per_node_zero_is_refused(run_cli):
    code, _, err = run_cli("verify", "--ranks-per-node", "0", "-a", "ring", "-c", "allreduce")
    assert code == 2 and "ranks-per-node" in err


def test_schedule_of_a_composition_has_its_name(run_cli):
    code, out, _ = run_cli(
        "schedule", "-c", "allgather", "-a", "leader:ring", "-p", "8", "--ranks-per-node", "4",
        "--format", "json",
    )  # fmt: skip
    assert code == 0
    assert json.loads(out)["algorithm"] == "leader:ring"


def test_sim_links_of_nodes_have_intra_node_rows(run_cli, tmp_path):
    links = tmp_path / "links.csv"
    code, out, err = run_cli(
        "sim", "-t", FAT_TREE, "-c", "allreduce", "-a", "hier:ring", "-s", "64KiB",
        "--ranks", "16", "--ranks-per-node", "4", "--links", str(links), "--json",
    )  # fmt: skip
    assert code == 0, err
    rows = list(csv.DictReader(links.open()))
    kinds = {r["kind"] for r in rows}
    assert {"intra-node", "nic", "network"} <= kinds
    # The intra-node reduce-scatter and allgather move bytes on the fabric of every node.
    intra = [r for r in rows if r["kind"] == "intra-node" and float(r["bytes"]) > 0]
    assert {r["label"].split(".")[0] for r in intra} == {"n0", "n1", "n2", "n3"}


def test_links_without_nodes_are_network_links(run_cli, tmp_path):
    links = tmp_path / "links.csv"
    code, _, err = run_cli(
        "sim", "-t", FAT_TREE, "-c", "allreduce", "-a", "ring", "-s", "64KiB",
        "--links", str(links), "--json",
    )  # fmt: skip
    assert code == 0, err
    assert {r["kind"] for r in csv.DictReader(links.open())} == {"network"}


def test_k_equal_one_is_the_run_without_k(run_cli):
    base = ("sim", "-t", FAT_TREE, "-c", "allreduce", "-a", "ring", "-s", "1MiB", "--json")
    code, plain, _ = run_cli(*base)
    assert code == 0
    code, one, _ = run_cli(*base, "--ranks-per-node", "1")
    assert code == 0
    assert json.loads(one) == json.loads(plain)


def test_nodes_change_the_flat_run():
    """Four ranks share a NIC: the flat ring's time is not the one-rank-per-host time."""
    plain = simulate(FAT_TREE, "allreduce", "ring", "1MiB", ranks=16)
    nodes = simulate(FAT_TREE, "allreduce", "ring", "1MiB", ranks=16, ranks_per_node=4)
    assert nodes.time_s != plain.time_s


def test_compare_ranks_flat_and_composed_forms(run_cli):
    code, out, err = run_cli(
        "compare", "-t", FAT_TREE, "-c", "allreduce", "--ranks", "8", "--ranks-per-node", "2",
        "--sizes", "1KiB,1MiB", "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    assert doc["ranks_per_node"] == 2
    names = {r["algorithm"] for r in doc["rows"] if r["kind"] == "algorithm"}
    assert "ring" in names
    assert any(n.startswith("hier:") for n in names)
    assert any(n.startswith("leader:") for n in names)
    origins = {r["origin"] for r in doc["rows"] if r["algorithm"].startswith("hier:")}
    assert origins == {"composition"}


def test_compare_without_nodes_has_no_compositions(run_cli):
    code, out, err = run_cli(
        "compare", "-t", FAT_TREE, "-c", "allreduce", "--ranks", "8", "--sizes", "1KiB",
        "--format", "json",
    )  # fmt: skip
    assert code == 0, err
    assert not any(":" in a for a in json.loads(out)["algorithms"])


def test_tune_writes_compositions_and_notes_them_for_open_mpi(run_cli, tmp_path):
    code, out, err = run_cli(
        "tune", "-t", FAT_TREE, "-c", "allreduce", "--ranks", "8", "--ranks-per-node", "2",
        "--sizes", "1KiB,4MiB", "--algorithms", "ring,hier:ring,leader:ring",
    )  # fmt: skip
    assert code == 0, err
    doc = json.loads(out)
    assert doc["source"]["ranks_per_node"] == 2
    assert {r["algorithm"] for r in doc["rules"]} <= {"ring", "hier:ring", "leader:ring"}
    path = tmp_path / "rules.conf"
    code, _, err = run_cli(
        "tune", "-t", FAT_TREE, "-c", "allreduce", "--ranks", "8", "--ranks-per-node", "2",
        "--sizes", "1KiB,4MiB", "--format", "ompi-rules", "-o", str(path),
    )  # fmt: skip
    assert code == 0, err
    text = path.read_text()
    assert "hier:INNER" in text and "TOPOCOLL_RULES" in text


def test_algorithms_lists_the_forms(run_cli):
    code, out, _ = run_cli("algorithms", "--json", "--compositions")
    assert code == 0
    doc = json.loads(out)
    assert {f["name"] for f in doc["forms"]} == {"hier", "leader"}
    names = {c["name"] for c in doc["compositions"]}
    assert {"hier:ring", "leader:ring"} <= names


def test_algorithms_says_which_compositions_run_on_nodes(run_cli):
    code, out, _ = run_cli(
        "algorithms", "--json", "--compositions", "-c", "allreduce", "--nodes", "6",
        "--ranks-per-node", "4",
    )  # fmt: skip
    assert code == 0
    listed = {c["name"]: c for c in json.loads(out)["compositions"]}
    assert listed["hier:ring"]["accepted"]
    # The Hamiltonian cycle needs a power of two: not on 6 nodes, and the reason says so.
    assert not listed["hier:hamiltonian-cycle"]["accepted"]
    assert "6 nodes" in listed["hier:hamiltonian-cycle"]["rejection"]
    assert "power-of-two" in listed["hier:hamiltonian-cycle"]["rejection"]
    code, out, _ = run_cli("algorithms", "-c", "allreduce", "--nodes", "6")
    assert code == 0 and "hier:ring" in out


@pytest.mark.parametrize("k", [2, 4])
def test_the_composition_runs_what_build_builds(k):
    schedule = _core.build("hier:ring", "allreduce", 8, ranks_per_node=k)
    assert schedule.info["algorithm"] == "hier:ring"
    assert _core.verify(schedule)["ok"]


def test_verify_of_a_file_refuses_ranks_per_node(run_cli, ring_json):
    doc, write = ring_json
    code, _, err = run_cli("verify", "--schedule", write(doc), "--ranks-per-node", "2")
    assert code == 2 and "--ranks-per-node" in err


def _machine_with_nodes(tmp_path, k: int) -> str:
    doc = json.loads((Path(topocoll.__file__).parent / "machines" / "swing-sst.json").read_text())
    doc["name"] = "swing-sst-nodes"
    doc["topology"] = {"value": FAT_TREE, "source": "a test's fat tree"}
    doc["nodes"] = {
        "ranks_per_node": {"value": k, "source": "a test"},
        "fabric": {"value": "gpu-mesh", "source": "a test"},
        "fabric_bandwidth": {"value": "1600Gbps", "source": "a test"},
    }
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_a_machine_files_nodes_are_the_base_and_k_overrides_them(tmp_path):
    machine = _machine_with_nodes(tmp_path, 4)
    setup = make_setup(None, "allreduce", machine=machine, ranks=16)
    assert setup.ranks_per_node == 4 and dict(setup.nodes)["fabric"] == "gpu-mesh"
    over = make_setup(None, "allreduce", machine=machine, ranks=16, ranks_per_node=2)
    assert over.ranks_per_node == 2 and dict(over.nodes)["fabric"] == "gpu-mesh"
    # The machine's K = 4 and --ranks-per-node 4 are the same run.
    same = simulate(None, "allreduce", "hier:ring", "1MiB", machine=machine, ranks=16)
    given = simulate(
        None, "allreduce", "hier:ring", "1MiB", machine=machine, ranks=16, ranks_per_node=4
    )
    assert same.time_s == given.time_s


def test_a_mapping_that_does_not_place_on_nodes_is_refused():
    with pytest.raises(ValueError, match="accepted with nodes: block, cyclic, file:PATH"):
        make_setup(FAT_TREE, "allreduce", ranks_per_node=2, mapping="random:1")


def test_sim_json_says_the_nodes(run_cli):
    code, out, err = run_cli(
        "sim", "-t", FAT_TREE, "-c", "allreduce", "-a", "hier:ring", "-s", "64KiB",
        "--ranks", "16", "--ranks-per-node", "4", "--json",
    )  # fmt: skip
    assert code == 0, err
    assert json.loads(out)["ranks_per_node"] == 4
