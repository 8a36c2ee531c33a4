"""`topocoll calibrate` and `topocoll validate` under mpiexec (2 ranks), small settings: both
exit 0, the machine file parses and states its topology with every value sourced, validate's
JSON has its rows, per-size verdicts and summary, and an unwritable --out is one line and exit
2. Skips (77) when the python given has no topocoll package with its extension.

usage: validation_program.py MPIEXEC NP_FLAG PYTHON WORKDIR"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

mpiexec, np_flag, python, workdir = sys.argv[1:5]
work = Path(workdir)
work.mkdir(parents=True, exist_ok=True)
if subprocess.run([python, "-c", "import topocoll._core, mpi4py"], capture_output=True).returncode:
    print(f"skipped: {python} has no topocoll package (make build-python) or no mpi4py")
    sys.exit(77)
failures: list[str] = []


def expect(ok: bool, what: str) -> None:
    if not ok:
        failures.append(what)


def topocoll(*args: str) -> subprocess.CompletedProcess:
    command = [mpiexec, np_flag, "2", python, "-m", "topocoll.cli", *args]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    print("$", " ".join(command), "->", done.returncode)
    print(done.stderr[-2000:], file=sys.stderr)
    return done


machine_path = work / "m.json"
done = topocoll("calibrate", "--out", str(machine_path), "--name", "test-machine")
expect(done.returncode == 0, f"calibrate exits 0 (got {done.returncode})")
machine = json.loads(machine_path.read_text())
expect(machine["format"] == "topocoll-machine/1" and machine["name"] == "test-machine", "header")
expect(machine["topology"]["value"] == "fattree:2:1:2:1", "a switch with 2 hosts")
# Two ranks of one node (mpiexec -n 2 here): a shared-memory node of 2 ranks, measured.
nodes = machine.get("nodes", {})
expect(nodes.get("ranks_per_node", {}).get("value") == 2, "a node of the 2 ranks")
expect(nodes.get("fabric", {}).get("value") == "shared-memory", "shared-memory fabric")
for key in ("memory_bandwidth", "fabric_bandwidth"):
    expect(nodes.get(key, {}).get("value", "").endswith("Bps"), f"nodes.{key} is a rate")
expect(nodes.get("fabric_latency", {}).get("value", "").endswith("s"), "fabric latency")
for key in ("step_cpu", "call_overhead"):
    expect(machine["host"][key]["value"].endswith("s"), f"host.{key} is a duration")
# Rates by working set: one point per calibrated size, each with the node's rates.
points = machine.get("working_set", {}).get("value", [])
expect(len(points) == 17, f"17 working-set points, 1 KiB to 64 MiB (got {len(points)})")
expect([p["bytes"] for p in points[:2]] == ["1KiB", "2KiB"], "working sets from 1 KiB by 2")
expect(points[-1]["bytes"] == "64MiB", "working sets up to 64 MiB")
for point in points:
    expect(point.get("copy_rate", "").endswith("Bps"), f"working_set {point['bytes']}: copy_rate")
for point in points[10:]:  # from 1 MiB an exchange's time is far above an empty one's
    key = "memory_bandwidth"
    expect(point.get(key, "").endswith("Bps"), f"working_set {point['bytes']}: {key}")
    expect(set(point.get("reduce_rate", {})) == {"float", "double", "int"}, "reductions per class")
expect("topocoll calibrate" in machine["working_set"]["source"], "working_set: its source")
# The simulator's reader (src/topology/machine_file.cpp, through the binding) accepts it.
read = subprocess.run(
    [
        python,
        "-c",
        f"from topocoll.machine import load_machine; load_machine({str(machine_path)!r})",
    ],
    capture_output=True,
    text=True,
)
expect(read.returncode == 0, f"the C++ reader reads the machine file: {read.stderr.strip()}")
for section in ("network", "host", "nodes"):
    for key, leaf in machine.get(section, {}).items():
        expect("topocoll calibrate" in leaf["source"], f"{section}.{key}: source names the command")

done = topocoll(
    "validate",
    "--machine",
    str(machine_path),
    "--collectives",
    "allreduce",
    "--sizes",
    "8B:4KiB",
    "--repetitions",
    "3",
    "--max-repetitions",
    "8",
    "--json",
    # A machine calibrated under load (2 ranks beside a test suite on 2 cores) can predict
    # milliseconds per call and put these few sizes past the estimate's limit; the refusal
    # itself is checked below.
    "--force",
)
expect(done.returncode == 0, f"validate exits 0 (got {done.returncode}): {done.stderr.strip()}")
result = json.loads(done.stdout)
expect(result["ranks"] == 2 and result["repetitions"] == 3, "ranks and repetitions")
expect(result["max_repetitions"] == 8, "the most repetitions")
expect(len(result["rows"]) > 0, "rows")
counts: dict[int, set[int]] = {}
imprecise: set[int] = set()
for row in result["rows"]:
    expect(row["predicted_s"] > 0 and row["measured_s"] > 0, f"{row['algorithm']}: times")
    # Under 6 samples a median has no 95% interval: every row goes on to 6, and its size stops
    # before 8 only when every row's interval is within the precision.
    n = len(row["samples_s"])
    low, high = row["interval_s"]
    expect(6 <= n <= 8 and low <= row["measured_s"] <= high, f"{row['algorithm']}: samples")
    counts.setdefault(row["size_bytes"], set()).add(n)
    if (high - low) / 2 > result["precision"] * row["measured_s"]:
        imprecise.add(row["size_bytes"])
    expect(
        abs(row["error"] - (row["predicted_s"] - row["measured_s"]) / row["measured_s"]) < 1e-9,
        f"{row['algorithm']}: error",
    )
for size, taken in counts.items():
    expect(len(taken) == 1, f"{size} B: every row takes the same rounds ({sorted(taken)})")
    expect(taken == {8} or size not in imprecise, f"{size} B: stopped while imprecise")
expect({v["size_bytes"] for v in result["verdicts"]} == {8, 32, 128, 512, 2048, 4096}, "sizes")
for verdict in result["verdicts"]:
    expect(isinstance(verdict["best_within_10pct"], bool), "within is a verdict")
    expect(verdict["kendall_tau"] is None or -1 <= verdict["kendall_tau"] <= 1, "tau range")
expect(result["summary"]["sizes"] == 6, "summary over the sizes")
expect(0 <= result["summary"]["fraction_best_within_10pct"] <= 1, "summary fraction")


def our_lines(done: subprocess.CompletedProcess) -> list[str]:
    """topocoll's error lines (mpiexec adds its own report of the exit code)."""
    return [line for line in done.stderr.splitlines() if line.startswith("error:")]


done = topocoll("calibrate", "--out", "/nonexistent/x.json")
expect(done.returncode == 2 and len(our_lines(done)) == 1, "unwritable --out: one line, exit 2")
done = topocoll(
    "validate",
    "--machine",
    str(machine_path),
    "--collectives",
    "allreduce",
    "--max-seconds",
    "0.000001",
)
expect(
    done.returncode == 2 and len(our_lines(done)) == 1 and "estimated" in done.stderr,
    "a run beyond --max-seconds: one line, exit 2",
)

done = topocoll(
    "validate", "--machine", str(machine_path), "--repetitions", "15", "--max-repetitions", "5"
)
expect(
    done.returncode == 2 and len(our_lines(done)) == 1 and "below --repetitions" in done.stderr,
    "--max-repetitions below --repetitions: one line, exit 2",
)

for line in failures:
    print(f"FAILED: {line}", file=sys.stderr)
print(f"validation: {len(failures)} failed check(s)")
sys.exit(1 if failures else 0)
