"""How much each host-cost term of docs/validation.md moves the agreement, on the same measured
rows: the rows of `topocoll validate --json` files predicted again on variants of their machine
file, each without one term (nothing measured again, nothing fitted).

    python bench/validation_figures/term_ablation.py docs/validation/vm2-machine.json \
        docs/validation/vm2-{allreduce,allgather,reduce-scatter,bcast}{,-large}.json
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import tempfile
from collections.abc import Callable
from pathlib import Path

from topocoll import simulation, validation

Variant = Callable[[dict], dict]


def unchanged(machine: dict) -> dict:
    return machine


def without_working_set(machine: dict) -> dict:
    machine.pop("working_set", None)
    return machine


def runtime_cpu_as_alpha(machine: dict) -> dict:
    """The model before the runtime's CPU terms: the per-step work as alpha, a delay of each
    lane in parallel with the rank's other lanes, and no per-call term."""
    host = machine["host"]
    host.pop("call_overhead")
    host["step_overhead"] = host.pop("step_cpu")
    return machine


def without_rendezvous_overhead(machine: dict) -> dict:
    """The handshake's CPU time left out (the round trip of wire latency stays)."""
    machine["host"].pop("rendezvous_overhead", None)
    return machine


def without_lent_rates(machine: dict) -> dict:
    """Writes into bytes a node peer read cost what any write costs."""
    for point in machine.get("working_set", {}).get("value", []):
        point.pop("lent_copy_rate", None)
        point.pop("lent_reduce_rate", None)
    machine.get("host", {}).pop("lent_copy_rate", None)
    machine.get("host", {}).pop("lent_reduce_rate", None)
    return machine


def none_of_them(machine: dict) -> dict:
    return runtime_cpu_as_alpha(without_working_set(machine))


# (label, machine variant, in place: without the call's copies)
VARIANTS: list[tuple[str, Variant, bool]] = [
    ("every term (as validate predicts)", unchanged, False),
    ("without rates by working set", without_working_set, False),
    ("without the call's copies", unchanged, True),
    ("the runtime's CPU work as alpha, no call term", runtime_cpu_as_alpha, False),
    ("without the rendezvous overhead", without_rendezvous_overhead, False),
    ("without the lent rates", without_lent_rates, False),
    ("none of the three", none_of_them, True),
]


def summary(rows: list[validation.Row]) -> str:
    validation.finish_rows(rows)
    s = validation.summarize(rows, validation.size_verdicts(rows))
    large = [abs(r.error) for r in rows if r.size_bytes >= 2**21 and r.error is not None]
    small = [abs(r.error) for r in rows if r.size_bytes <= 2048 and r.error is not None]
    return (
        f"| {100 * s['median_abs_error']:.1f}% | {100 * statistics.median(small):.1f}% | "
        f"{100 * statistics.median(large):.1f}% | {s['sizes_best_within_10pct']} of "
        f"{s['sizes']} | {s['median_kendall_tau']:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("machine", type=Path)
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    documents = [json.loads(f.read_text()) for f in args.files]
    base = json.loads(args.machine.read_text())
    print(
        "| prediction | median \\|error\\| | up to 2 KiB | from 2 MiB | best within 10% | tau-b |"
    )
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as folder:
        for index, (label, variant, in_place) in enumerate(VARIANTS):
            path = Path(folder) / f"m{index}.json"
            path.write_text(json.dumps(variant(copy.deepcopy(base))))
            rows = []
            for document in documents:
                for row in validation.saved_rows(document):
                    row.predicted_s = simulation.simulate(
                        None,
                        row.collective,
                        row.algorithm,
                        row.size_bytes,
                        ranks=document["ranks"],
                        machine=str(path),
                        datatype=validation.DATATYPE,
                        in_place=in_place,
                    ).time_s
                    rows.append(row)
            print(f"| {label} {summary(rows)}")


if __name__ == "__main__":
    main()
