"""Plot of the flow model's speed against SimGrid from the CSV of
`build/cpp/topocoll_sim_bench simgrid --csv FILE` (transfers simulated per CPU second, per
workload, for the flow model with `minimal` and `dor` routing and SimGrid with `dor`).

    .venv/bin/python bench/figures/sim_speed.py docs/img/sim-speed.csv --out docs/img/sim-speed.png

A SimGrid run stopped at its CPU limit is drawn hatched at transfers / limit, an upper bound of
its rate (the true rate is lower), and labelled "<"."""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

SERIES = (
    ("flow", "minimal", "flow model, minimal routing", "tab:blue"),
    ("flow", "dor", "flow model, dor routing", "tab:cyan"),
    ("simgrid", "dor", "SimGrid 3.32, dor routing", "tab:orange"),
)


def read_rows(path: Path) -> list[dict]:
    with path.open() as f:
        return list(csv.DictReader(f))


def rate(row: dict) -> tuple[float, bool]:
    """Transfers per CPU second, and whether it is an upper bound (the run hit its limit)."""
    transfers = float(row["transfers"])
    if row["limited"] == "1":
        return transfers / float(row["limit_s"]), True
    return transfers / max(float(row["cpu_s"]), 1e-3), False


def plot(rows: list[dict], out: Path) -> None:
    workloads = list(dict.fromkeys((r["torus"], r["algorithm"]) for r in rows))
    by_key = {(r["torus"], r["algorithm"], r["model"], r["routing"]): r for r in rows}
    # A SimGrid run that hit its limit has no transfer count of its own: the flow dor run's.
    fig, ax = plt.subplots(figsize=(11, 4.8))
    width = 0.27
    for s, (model, routing, label, color) in enumerate(SERIES):
        xs, heights, bounded = [], [], []
        for i, (torus, algorithm) in enumerate(workloads):
            row = by_key.get((torus, algorithm, model, routing))
            if row is None:
                continue
            if float(row["transfers"]) == 0:
                dor = by_key.get((torus, algorithm, "flow", "dor"))
                if dor is None:
                    continue
                row = {**row, "transfers": dor["transfers"]}
            value, bound = rate(row)
            xs.append(i + (s - 1) * width)
            heights.append(value)
            bounded.append(bound)
        bars = ax.bar(xs, heights, width, label=label, color=color)
        for bar, bound in zip(bars, bounded, strict=True):
            if bound:
                bar.set_hatch("//")
                bar.set_alpha(0.6)
                ax.annotate(
                    "<",
                    (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                    ha="center",
                    va="bottom",
                )
    ax.set_yscale("log")
    ax.set_ylabel("transfers simulated per CPU second")
    ax.set_xticks(range(len(workloads)))
    ax.set_xticklabels([f"{a}\n{t}" for t, a in workloads], fontsize=8)
    ax.set_title("Allreduce of 64 MiB on tori (swing parameters): flow model vs SimGrid")
    ax.grid(axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv", type=Path, help="CSV of topocoll_sim_bench simgrid --csv")
    parser.add_argument("--out", type=Path, default=Path("docs/img/sim-speed.png"))
    args = parser.parse_args()
    plot(read_rows(args.csv), args.out)


if __name__ == "__main__":
    main()
