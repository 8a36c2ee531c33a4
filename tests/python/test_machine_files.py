"""Every shipped machine file follows format topocoll-machine/1: known keys only, the name is the
file stem, every leaf is {"value", "source"} with a non-empty source, and every value parses in
topocoll's unit grammar. A small local checker stands in for the C++ reader here."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

MACHINES = Path(__file__).resolve().parents[2] / "python" / "topocoll" / "machines"
SHIPPED = sorted(MACHINES.glob("*.json"))

NUMBER = r"\s*(\d+(?:\.\d+)?|\.\d+)\s*"
RATE = re.compile(NUMBER + r"[kKMGT]?(bps|bit/s|Bps|B/s)\s*")
DURATION = re.compile(NUMBER + r"(ns|us|µs|ms|s)\s*")
SIZE = re.compile(NUMBER + r"(|b|k|m|g|t|kb|mb|gb|tb|kib|mib|gib|tib)\s*", re.IGNORECASE)


def is_rate(text: object) -> bool:
    match = isinstance(text, str) and RATE.fullmatch(text)
    return bool(match) and float(match.group(1)) > 0  # a rate of 0 is invalid


def is_duration(text: object) -> bool:
    return isinstance(text, str) and bool(DURATION.fullmatch(text))


def is_size_or_none(text: object) -> bool:
    return text == "none" or (isinstance(text, str) and bool(SIZE.fullmatch(text)))


def is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def is_topology(value: object) -> bool:
    return isinstance(value, str) and bool(re.fullmatch(r"[a-z+]+:[A-Za-z0-9:x=.+]+", value))


def is_reduce_rate(value: object) -> bool:
    if isinstance(value, dict):
        return (
            bool(value)
            and set(value) <= {"float", "double", "int"}
            and all(is_rate(v) for v in value.values())
        )
    return is_rate(value)


NETWORK = {"bandwidth": is_rate, "link_latency": is_duration, "hop_latency": is_duration,
           "nic_ports": is_count}  # fmt: skip
HOST = {"step_overhead": is_duration, "send_overhead": is_duration, "recv_overhead": is_duration,
        "step_cpu": is_duration, "call_overhead": is_duration,
        "gap": is_duration, "copy_rate": is_rate, "overhead_rate": is_rate,
        "reduce_rate": is_reduce_rate,
        "eager_threshold": is_size_or_none, "rendezvous_overhead": is_duration}  # fmt: skip
TOP = {"format", "name", "description", "topology", "network", "host", "nodes", "working_set"}


def problems(path: Path) -> list[str]:
    """Every way the file departs from format 1, one line each (empty: the file is valid)."""
    doc = json.loads(path.read_text())
    found = [f"unknown key {key!r}" for key in doc if key not in TOP]
    if doc.get("format") != "topocoll-machine/1":
        found.append(f"format {doc.get('format')!r}")
    if doc.get("name") != path.stem or not re.fullmatch(r"[a-z0-9-]+", str(doc.get("name"))):
        found.append(f"name {doc.get('name')!r} is not the file stem {path.stem!r}")
    if not isinstance(doc.get("description"), str) or not doc["description"].strip():
        found.append("description missing")

    def leaf(where: str, entry: object, check) -> None:
        if not isinstance(entry, dict) or set(entry) != {"value", "source"}:
            found.append(f"{where}: not {{'value', 'source'}}")
            return
        if not isinstance(entry["source"], str) or not entry["source"].strip():
            found.append(f"{where}: empty source")
        if not check(entry["value"]):
            found.append(f"{where}: value {entry['value']!r} does not parse")

    if "topology" in doc:
        leaf("topology", doc["topology"], is_topology)
    for section, keys in (("network", NETWORK), ("host", HOST)):
        for key, entry in doc.get(section, {}).items():
            if key not in keys:
                found.append(f"{section}.{key}: unknown key")
            else:
                leaf(f"{section}.{key}", entry, keys[key])
    return found


def test_the_expected_machines_ship():
    names = {path.stem for path in SHIPPED}
    assert names >= {"swing-sst", "trivance-sst", "canary", "cm200", "lumi", "leonardo",
                     "marenostrum5", "fugaku"}  # fmt: skip


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_machine_file_follows_format_1(path: Path):
    assert problems(path) == []


def test_the_checker_finds_each_defect(tmp_path: Path):
    bad = {
        "format": "topocoll-machine/1", "name": "other", "description": "x", "extra": 1,
        "network": {"bandwidth": {"value": "0Gbps", "source": "s"},
                    "hop_latency": {"value": "300", "source": "s"},
                    "link_latency": {"value": "100ns", "source": " "},
                    "speed": {"value": "1Gbps", "source": "s"}},
        "host": {"gap": "50ns", "eager_threshold": {"value": "12 apples", "source": "s"}},
    }  # fmt: skip
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    found = problems(path)
    for expected in ("unknown key 'extra'", "name 'other'", "network.bandwidth: value",
                     "network.hop_latency: value", "network.link_latency: empty source",
                     "network.speed: unknown key", "host.gap: not",
                     "host.eager_threshold: value"):  # fmt: skip
        assert any(line.startswith(expected) for line in found), (expected, found)


def test_values_match_the_papers():
    """A few values read back against the papers' sentences, so a typo cannot slip through."""
    load = {p.stem: json.loads(p.read_text()) for p in SHIPPED}
    assert load["swing-sst"]["network"]["bandwidth"]["value"] == "400Gbps"
    assert load["swing-sst"]["network"]["hop_latency"]["value"] == "300ns"
    assert load["trivance-sst"]["host"]["step_overhead"]["value"] == "1.5us"
    assert load["trivance-sst"]["network"]["bandwidth"]["value"] == "800Gbps"
    assert load["canary"]["network"]["bandwidth"]["value"] == "100Gbps"
    # 54.4 Gb/s per TNI (bine-trees-sc25.txt section 5.4) is 6.8 GB/s
    assert load["fugaku"]["network"]["bandwidth"]["value"] == "6.8GBps"
    # CM-200 section 6.1: b1 = 41.94 us per step, b3 = 24.18 us per pair of 32-bit words each
    # way on a link, b2 = 0.17 us per two 4-byte memory accesses (one read, one write)
    cm200 = load["cm200"]
    assert cm200["host"]["step_overhead"]["value"] == "41.94us"
    assert cm200["network"]["bandwidth"]["value"] == f"{8 / 24.18e-6 / 1e6:.5f}MBps"
    assert cm200["host"]["overhead_rate"]["value"] == f"{4 / 0.085e-6 / 1e6:.3f}MBps"
