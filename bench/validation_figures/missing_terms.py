"""The two terms docs/validation.md finds missing, tried on saved validation rows without
measuring again: the saved rows are predicted again (1) as `topocoll validate` predicts them,
(2) with the rates measured at each row's buffer size (a rates-by-size file) in place of the
calibration's cache-sized ones, and (3) with (2) plus the runtime's own copies of an
out-of-place call (allreduce: the input into the output; allgather: the own block;
reduce-scatter: the input into a work vector and the own block out), at the copy rate of (2).

    cd docs/validation && python ../../bench/validation_figures/missing_terms.py \
        vm2-machine.json vm2-rates-by-size.json vm2-{allreduce,allgather,reduce-scatter,bcast}.json
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import statistics
import tempfile
from pathlib import Path

from topocoll import validation

# Bytes the runtime copies outside the schedule per byte of the row's size, at 2 ranks
# (src/mpi/runtime/reductions.cpp and data_movement.cpp).
CALL_COPIES_AT_2_RANKS = {"allreduce": 1.0, "allgather": 0.5, "reduce-scatter": 1.5, "bcast": 0.0}


def nearest(table: dict[str, float], size: int) -> float:
    sizes = sorted(int(s) for s in table)
    best = min(sizes, key=lambda s: abs(math.log(s / max(size, 1))))
    return table[str(best)]


class SizedMachines:
    """A machine file per set of rates: the base machine with the rates measured nearest to a
    row's size (the ping-pong rate as the network and fabric bandwidth, copy and reduction)."""

    def __init__(self, base: dict, rates: dict, folder: Path) -> None:
        self.base, self.rates, self.folder, self.cache = base, rates, folder, {}

    def rates_at(self, size: int) -> tuple[float | None, float, float]:
        floor = min(int(s) for s in self.rates["copy_GBps"])
        bandwidth = nearest(self.rates["pingpong_GBps"], size) if size >= 65536 else None
        at = max(size, floor)
        return (
            bandwidth,
            nearest(self.rates["copy_GBps"], at),
            nearest(self.rates["reduce_int_GBps"], at),
        )

    def predict(self, row: validation.Row) -> float:
        key = self.rates_at(row.size_bytes)
        if key not in self.cache:
            bandwidth, copy_rate, reduce_rate = key
            m = copy.deepcopy(self.base)
            source = {"source": "measured at the row's size (rates-by-size file)"}
            if bandwidth:
                m["network"]["bandwidth"] = {"value": f"{bandwidth}GBps", **source}
                m["nodes"]["fabric_bandwidth"] = {"value": f"{bandwidth}GBps", **source}
            m["host"]["copy_rate"] = {"value": f"{copy_rate}GBps", **source}
            m["host"]["reduce_rate"]["value"] = {
                c: f"{reduce_rate}GBps" for c in ("int", "float", "double")
            }
            path = self.folder / f"m{len(self.cache)}.json"
            path.write_text(json.dumps(m))
            self.cache[key] = validation.machine_prediction(str(path))[1]
        seconds, _ = self.cache[key](row.collective, row.algorithm, row.size_bytes, 2)
        return seconds


def summary(label: str, documents: list[dict], predict) -> None:
    every = []
    for document in documents:
        for row in validation.saved_rows(document):
            row.predicted_s = predict(row)
            every.append(row)
    validation.finish_rows(every)
    s = validation.summarize(every, validation.size_verdicts(every))
    large = [abs(r.error) for r in every if r.size_bytes >= 2**21 and r.error is not None]
    print(
        f"{label}: median |error| {100 * s['median_abs_error']:.1f}% (from 2 MiB "
        f"{100 * statistics.median(large):.1f}%), predicted best within 10% at "
        f"{s['sizes_best_within_10pct']} of {s['sizes']} sizes, median tau-b "
        f"{s['median_kendall_tau']:.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("machine", type=Path)
    parser.add_argument("rates", type=Path)
    parser.add_argument("files", nargs="+", type=Path)
    args = parser.parse_args()
    documents = [json.loads(f.read_text()) for f in args.files]
    if any(d["ranks"] != 2 for d in documents):
        raise SystemExit(
            "error: the call copies here are those of 2 ranks; accepted: files of 2 ranks"
        )
    base = json.loads(args.machine.read_text())
    rates = json.loads(args.rates.read_text())
    _, as_is = validation.machine_prediction(str(args.machine))
    with tempfile.TemporaryDirectory() as folder:
        sized = SizedMachines(base, rates, Path(folder))
        summary(
            "(1) as validate predicts",
            documents,
            lambda r: as_is(r.collective, r.algorithm, r.size_bytes, 2)[0],
        )
        summary("(2) rates at the row's size", documents, sized.predict)

        def with_copies(r: validation.Row) -> float:
            copy_rate = sized.rates_at(r.size_bytes)[1] * 1e9
            return (
                sized.predict(r) + CALL_COPIES_AT_2_RANKS[r.collective] * r.size_bytes / copy_rate
            )

        summary("(3) (2) and the call's copies", documents, with_copies)


if __name__ == "__main__":
    main()
