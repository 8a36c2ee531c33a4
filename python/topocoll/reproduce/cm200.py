"""cm200-all-to-all-tr0293.txt: Table 2's element transfers in sequence for all-to-all broadcast
(allgather) on a d-cube, measured as our zero-latency flow time at one 32-bit element per time
unit, and the measured communication times of Tables 4, 5, 7 and 8 (the "AABC" columns) run on
the cm200 machine file, whose constants are the paper's d-cycles fit (section 6.1: b1, b2, b3,
fitted by the paper on Tables 4 and 5); the one-cycle columns and Tables 7 and 8 are the test."""

from __future__ import annotations

import math
import statistics

from topocoll.plots import pyplot
from topocoll.simulation import simulate

from .core import Context, Experiment, write_csv

ELEMENT = 4  # bytes: the paper counts 32-bit elements
# Section 6.1, the paper's fits: one cycle a1, a2 (on Table 4); d cycles b1, b2, b3 (Tables 4, 5).
A1_US, A2_US = 24.3, 5.69
B1_US, B2_US, B3_US = 41.94, 0.17, 24.18
ALGORITHMS = {"hamiltonian-cycle": 2, "hamiltonian-d-cycles": 0, "reduce-and-spread": 0}


def transfers(d: int, algorithm: str, elements: int) -> float:
    ports = ALGORITHMS[algorithm]
    r = simulate(
        f"hypercube:{d}", "allgather", algorithm, elements * ELEMENT, latency="0ns",
        hop_latency="0ns", alpha="0ns", bandwidth=f"{8 * ELEMENT}Gbps", force=True,
        **({"ports": ports} if ports else {}),
    )  # fmt: skip
    return r.time_s * 1e9  # one element per ns


def table2_formula(d: int, algorithm: str, m: int) -> int:
    """Table 2, column-major rows. The d-cycles row as printed in our text copy reads
    ceil(M / (2^d 2^d))(2^d - 1), below the bound M (2^d - 1) / (d 2^d) of d links per node;
    we use d 2^d (the rotated-binomial-tree row of the same table has the same form)."""
    p = 2**d
    if algorithm == "hamiltonian-cycle":
        return math.ceil(m / (2 * p)) * (p - 1)
    return math.ceil(m / (d * p)) * (p - 1)


def table2(ctx: Context) -> dict:
    ds = range(2, 10) if ctx.paper else range(2, 8)  # d = 10, 11: over 5 min, not run
    per_node = 4096
    cases = [(d, algorithm, per_node * 2**d) for d in ds for algorithm in ALGORITHMS]
    measured = ctx.map(lambda case: transfers(*case), cases)
    rows, results = [], {}
    for (d, algorithm, m), ours in zip(cases, measured, strict=True):
        paper = table2_formula(d, algorithm, m)
        rows.append({"d": d, "M": m, "algorithm": algorithm, "ours": ours, "table2": paper,
                     "ratio": ours / paper})  # fmt: skip
        results[f"{algorithm} d={d} ratio"] = round(ours / paper, 4)
    for algorithm in ALGORITHMS:
        ratios = [r["ratio"] for r in rows if r["algorithm"] == algorithm]
        results[f"{algorithm} worst ratio"] = round(max(ratios, key=lambda x: abs(x - 1)), 4)
    write_csv(ctx.out / "table2.csv", rows)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5.5, 3.4))
    for algorithm in ALGORITHMS:
        pts = [r for r in rows if r["algorithm"] == algorithm]
        ax.plot([r["d"] for r in pts], [r["ours"] for r in pts], "o-", label=f"{algorithm} (ours)")
        ax.plot([r["d"] for r in pts], [r["table2"] for r in pts], "kx")
    ax.set_yscale("log")
    ax.set_xlabel("d (2^d nodes), 4,096 elements per node")
    ax.set_ylabel("element transfers in sequence")
    ax.set_title("CM-200 Table 2 (x: the paper's formula)", fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.out / "table2.png", dpi=80)
    plt.close(fig)
    return results


ONE, MANY = "hamiltonian-cycle", "hamiltonian-d-cycles"
# The measured communication times of section 6.1 (the "AABC" columns, ms; 64-bit elements, S = 2),
# per table: (words per node M', {algorithm: times at 2, 4, 8, ... nodes}). Table 4 varies M'
# on 16 nodes instead. Table 5's one-node row moves nothing and is left out.
TABLE4_WORDS = (4, 8, 16, 32, 64, 128, 256, 512, 1024)
TABLE4 = {
    ONE: (1.00, 1.66, 3.03, 5.76, 11.21, 22.13, 43.97, 87.63, 175.00),
    MANY: (1.00, 1.10, 1.85, 3.35, 6.41, 12.55, 24.82, 49.43, 98.49),
}
BY_NODES = {
    "Table 5": (256, {
        ONE: (2.93, 8.79, 20.51, 43.97, 90.91, 184.80, 372.80, 748.80),
        MANY: (5.70, 9.33, 15.16, 24.82, 42.51, 74.38, 131.80, 228.80),
    }),
    "Table 7": (128, {
        MANY: (2.95, 4.79, 7.90, 12.64, 21.64, 37.82, 69.90, 116.50, 232.40, 416.40, 738.40),
    }),
    "Table 8": (256, {
        ONE: (2.93, 8.80, 20.54, 44.05, 91.08, 185.10, 373.40, 750.20, 1504.00),
        MANY: (5.84, 9.47, 15.31, 24.97, 42.69, 74.59, 132.10, 229.20, 434.00),
    }),
}  # fmt: skip
# The machine file's constants (b1, b2, b3) are the paper's fit on the d-cycles columns of
# Tables 4 and 5: those cells are shown, not judged.
FITTED = {("Table 4", MANY), ("Table 5", MANY)}
NAMES = {ONE: "one cycle", MANY: "d cycles"}


def measured_cells(max_d: int) -> list[dict]:
    cells = [
        {"table": "Table 4", "words": w, "d": 4, "algorithm": a, "measured ms": t}
        for a, times in TABLE4.items()
        for w, t in zip(TABLE4_WORDS, times, strict=True)
    ]
    for table, (words, columns) in BY_NODES.items():
        cells += [
            {"table": table, "words": words, "d": d, "algorithm": a, "measured ms": t}
            for a, times in columns.items()
            for d, t in enumerate(times, 1)
            if d <= max_d
        ]
    return cells


def comm_ms(case: tuple, machine: str, collective: str = "allgather") -> float:
    """One allgather (all-to-all broadcast; reduce-scatter: all-to-all reduction) of M' 64-bit
    words per node on 2^d nodes, run on the machine file: the "AABC" communication only
    (transpose, addressing and reordering are separate phases)."""
    words, d, algorithm = case
    ports = {"ports": ALGORITHMS[algorithm]} if ALGORITHMS[algorithm] else {}
    size = words * 2 * ELEMENT * 2**d  # the gathered vector, or the vector reduced
    r = simulate(f"hypercube:{d}", collective, algorithm, size, machine=machine, force=True,
                 **ports)  # fmt: skip
    return r.time_s * 1e3


def worst(ratios: list[float]) -> float:
    """The ratio farthest from 1 (by factor: 0.5 and 2 are equally far)."""
    return round(max(ratios, key=lambda x: abs(math.log(x))), 4) if ratios else math.nan


def faster_from(nodes: list[int], one: list[float], many: list[float]) -> float:
    """The fewest nodes from which d cycles win (more than 1% faster) at every larger count."""
    first = math.nan
    for n, t1, tm in reversed(list(zip(nodes, one, many, strict=True))):
        if tm * 1.01 >= t1:
            break
        first = n
    return first


def paper_formula_us(d: int, algorithm: str, words: int, halve: bool = False) -> float:
    """Section 6.1's communication models, per step times 2^d - 1. One cycle as the paper's
    expanded total T_1-H charges it (a2 per 32-bit word); halve=True reads the printed
    ceil(M'S/2)."""
    ms = words * 2
    if algorithm == ONE:
        per_step = A1_US + A2_US * (math.ceil(ms / 2) if halve else ms)
    else:
        per_step = B1_US + (B2_US * 2 * d + B3_US) * math.ceil(ms / (2 * d))
    return per_step * (2**d - 1)


def measured_tables(ctx: Context) -> dict:
    max_d = 11 if ctx.paper else 8
    machine = ctx.machine_for("cm200")
    cells = measured_cells(max_d)
    cases = sorted({(c["words"], c["d"], c["algorithm"]) for c in cells})
    ours = dict(zip(cases, ctx.map(lambda case: comm_ms(case, machine), cases), strict=True))
    rows = []
    for c in cells:
        t = ours[(c["words"], c["d"], c["algorithm"])]
        rows.append({**c, "nodes": 2 ** c["d"], "ours ms": round(t, 4),
                     "ratio": round(t / c["measured ms"], 4),
                     "judged": (c["table"], c["algorithm"]) not in FITTED})  # fmt: skip
    write_csv(ctx.out / "tables.csv", rows)
    results: dict = {}
    for table in ("Table 4", *BY_NODES):
        for algorithm in (ONE, MANY):
            key = (table, algorithm)
            ratios = [r["ratio"] for r in rows if (r["table"], r["algorithm"]) == key]
            if ratios:
                results[f"{table} {NAMES[algorithm]} worst ratio"] = worst(ratios)
                results[f"{table} {NAMES[algorithm]} median ratio"] = round(
                    statistics.median(ratios), 4
                )
    for algorithm in (ONE, MANY):
        judged = [r for r in rows if r["judged"] and r["algorithm"] == algorithm]
        name = NAMES[algorithm]
        results[f"{name} worst ratio"] = worst([r["ratio"] for r in judged])
        results[f"{name} median ratio"] = round(statistics.median(r["ratio"] for r in judged), 4)
        results[f"{name} worst ratio from 4 nodes"] = worst(
            [r["ratio"] for r in judged if r["nodes"] >= 4]
        )
        results[f"{name} cells within 20%"] = (
            f"{sum(abs(r['ratio'] - 1) <= 0.2 for r in judged)}/{len(judged)}"
        )
    t8 = {(r["algorithm"], r["nodes"]): r for r in rows if r["table"] == "Table 8"}
    nodes = sorted({n for _, n in t8})
    for label, column in (("", "ours ms"), ("measured (Table 8): ", "measured ms")):
        results[f"{label}d cycles communication faster from nodes"] = faster_from(
            nodes, [t8[(ONE, n)][column] for n in nodes], [t8[(MANY, n)][column] for n in nodes]
        )
    ds = range(1, max_d + 1)
    for label, halve in (("", False), (" (one cycle as printed, ceil(M'S/2))", True)):
        results[f"paper model{label}: d cycles communication faster from nodes"] = faster_from(
            [2**d for d in ds],
            [paper_formula_us(d, ONE, 256, halve) for d in ds],
            [paper_formula_us(d, MANY, 256) for d in ds],
        )
    results["communication speedup at 256 nodes"] = round(
        t8[(ONE, 256)]["ours ms"] / t8[(MANY, 256)]["ours ms"], 3
    )
    plot_tables(ctx, rows)
    return results


def plot_tables(ctx: Context, rows: list[dict]) -> None:
    plt = pyplot()
    fig, (left, right) = plt.subplots(1, 2, figsize=(9, 3.6))
    styles = {("Table 8", ONE): "C0", ("Table 8", MANY): "C1", ("Table 7", MANY): "C2"}
    for (table, algorithm), color in styles.items():
        pts = [r for r in rows if (r["table"], r["algorithm"]) == (table, algorithm)]
        label = f"{NAMES[algorithm]}, {table} ({pts[0]['words']} words)"
        left.plot([r["nodes"] for r in pts], [r["ours ms"] for r in pts], "-", color=color,
                  label=f"{label}: ours")  # fmt: skip
        left.plot([r["nodes"] for r in pts], [r["measured ms"] for r in pts], "x", color=color)
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.set_xlabel("nodes along the axis (2^d)")
    left.set_ylabel("communication time (ms)")
    left.set_title("line: cm200 machine file; x: measured", fontsize=9)
    left.legend(fontsize=6)
    markers = {"Table 4": "s", "Table 5": "o", "Table 7": "^", "Table 8": "v"}
    for r in rows:
        x = r["words"] * 16 if r["table"] == "Table 4" else r["nodes"]  # Table 4: 16 nodes
        right.plot(x, r["ratio"], markers[r["table"]], color="C0" if r["algorithm"] == ONE
                   else "C1", fillstyle="full" if r["judged"] else "none", ms=4)  # fmt: skip
    right.axhspan(0.8, 1.2, color="0.9")
    right.axhline(1, color="k", lw=0.6)
    right.set_xscale("log", base=2)
    right.set_xlabel("nodes (Tables 5, 7, 8); 16 x words (Table 4)")
    right.set_ylabel("ours / measured")
    right.set_title("blue one cycle, orange d cycles; hollow: fitted cells", fontsize=9)
    fig.suptitle("CM-200 Tables 4, 5, 7, 8: communication time", fontsize=9)
    fig.tight_layout()
    fig.savefig(ctx.out / "tables.png", dpi=80)
    plt.close(fig)


EXPERIMENTS = [
    Experiment("cm200-table2", "cm200", "Table 2", table2, {"small": 3, "paper": 6},
               "element transfers in sequence of one and d Hamiltonian cycles, reduce-and-spread"),
    Experiment("cm200-tables4-9", "cm200", "Tables 4-9", measured_tables,
               {"small": 3, "paper": 130},
               "one and d Hamiltonian cycles on the cm200 machine file against measured times"),
]  # fmt: skip
