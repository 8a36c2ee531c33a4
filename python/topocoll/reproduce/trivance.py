"""trivance.txt: Table 1 (steps, bytes and transmission delay on a ring), Table 2 (transmission
delay on tori) and the completion-time figures (Figs. 6-10) on the `trivance-sst` machine
(its section 6 settings, the per-step overhead alpha included, and SST's per-message host costs,
docs/machines.md); nothing tuned per figure."""

from __future__ import annotations

import math

from topocoll import _core
from topocoll.plots import pyplot

from .core import (
    EQUAL_BLOCKS_BYTES,
    Context,
    Experiment,
    accepted,
    crossover,
    size_label,
    write_csv,
    zero_latency_time,
)

MIB = 1 << 20
FAMILIES = {
    "trivance": ("trivance-lat", "trivance-bw"),
    "bruck": ("bruck-lat", "bruck-bw"),
    "swing": ("swing-lat", "swing-bw"),
    "recdoub": ("recdoub-lat", "recdoub-bw"),
    "bucket": ("bucket",),  # the paper's lock-step form (swing-nsdi24.txt 5.2)
}
# Our variants of bucket, run beside the paper's families and reported as their own series (a
# finding of ours): no figure key reads them, so every ratio stays against the paper's families.
OUR_VARIANTS = {
    "bucket-lanes (ours)": ("bucket-lanes",),
    "bucket-balanced (ours)": ("bucket-balanced",),
}
SERIES = {**FAMILIES, **OUR_VARIANTS}  # every series a sweep runs and plots


def table1_row(algorithm: str, n: int) -> dict:
    m = 1 << 30
    # "All algorithms use both available ports" (Table 1's caption)
    schedule = _core.build(algorithm, "allreduce", n, [n], 2, 0)
    steps = schedule.step_count(0)
    sent = _core.traffic(schedule, [0] * n, m)["bytes"] / n
    time_s, r = zero_latency_time(f"ring:{n}", algorithm, ports=2)
    bw = r.host_bandwidth_gbps * 1e9 / 8 / 2  # one of the two ports (links) per direction
    return {"algorithm": algorithm, "n": n, "steps": steps, "Lambda": steps / math.log(n, 3),
            "Delta": sent / (2 * m), "Theta": time_s / (m / bw)}  # fmt: skip


def table1(ctx: Context) -> dict:
    """Lambda = steps / log3 n, Delta = bytes sent per node / 2m, Theta = zero-latency time /
    (m beta) on a bidirectional ring (Table 1's reference values, section 2.3)."""
    sizes = {"trivance": 81, "bruck": 81, "swing": 64, "recdoub": 64, "ring": 81}
    if ctx.paper:
        sizes = {"trivance": 243, "bruck": 243, "swing": 256, "recdoub": 256, "ring": 243}
    cases = [
        (algorithm, n)
        for family, n in sizes.items()
        for algorithm in (("ring",) if family == "ring" else (f"{family}-bw", f"{family}-lat"))
    ]
    rows, results = ctx.map(lambda case: table1_row(*case), cases), {}
    for row in rows:
        algorithm = row["algorithm"]
        for k in ("Lambda", "Delta", "Theta"):
            results[f"{algorithm} {k}"] = round(row[k], 4)
        results[f"{algorithm} n"] = row["n"]
    write_csv(ctx.out / "table1.csv", rows)
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(10, 3))
    for ax, k in zip(axes, ("Lambda", "Delta", "Theta"), strict=True):
        ax.bar(range(len(rows)), [r[k] for r in rows])
        ax.set_xticks(range(len(rows)), [r["algorithm"] for r in rows], rotation=70, fontsize=7)
        ax.set_yscale("log")
        ax.set_title(k, fontsize=9)
    fig.suptitle("Trivance Table 1 on rings (ours)", fontsize=9)
    fig.tight_layout()
    fig.savefig(ctx.out / "table1.png", dpi=80)
    plt.close(fig)
    return results


def table2(ctx: Context) -> dict:
    """Zero-latency time over the bound 2(p-1)/p m/(2D B) (section 5)."""
    # Each algorithm on the sides it is built for (powers of three for the ternary ones, of two
    # for the binary ones), as Table 2's limits assume; the same shapes at both scales (cheap).
    ternary = {2: "81x81", 3: "27x27x27", 4: "9x9x9x9"}
    binary = {2: "64x64", 3: "16x16x16", 4: "8x8x8x8"}
    if not ctx.paper:  # 27x27 is within 4% of the limit
        ternary.update({2: "27x27", 3: "9x9x9"})

    def run(case: tuple[int, str]) -> dict:
        dims, algorithm = case
        shape = (binary if algorithm in ("swing-bw", "recdoub-bw", "bucket") else ternary)[dims]
        ports = {"ports": 2 * dims} if algorithm == "recdoub-bw" else {}
        row = {"torus": shape, "D": dims, "algorithm": algorithm}
        try:
            _, r = zero_latency_time(f"torus:{shape}", algorithm, EQUAL_BLOCKS_BYTES, **ports)
        except ValueError as e:
            return {**row, "error": str(e)}
        return {**row, "Theta": 100.0 / r.peak_percent}

    algorithms = ("trivance-bw", "swing-bw", "recdoub-bw", "bruck-bw", "bucket")
    cases = [(dims, algorithm) for dims in (2, 3, 4) for algorithm in algorithms]
    rows, results = ctx.map(run, cases), {}
    for row in rows:
        if "Theta" in row:
            results[f"{row['algorithm']} D={row['D']}"] = round(row["Theta"], 4)
    write_csv(ctx.out / "table2.csv", rows)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for algorithm in ("trivance-bw", "swing-bw", "recdoub-bw", "bruck-bw", "bucket"):
        ys = [results.get(f"{algorithm} D={d}", float("nan")) for d in (2, 3, 4)]
        ax.plot([2, 3, 4], ys, "o-", label=algorithm)
    ax.set_yscale("log")
    ax.set_xticks([2, 3, 4])
    ax.set_xlabel("D")
    ax.set_ylabel("time / (m beta / D)")
    ax.legend(fontsize=7)
    ax.set_title("Trivance Table 2: transmission delay on tori (ours)", fontsize=9)
    fig.tight_layout()
    fig.savefig(ctx.out / "table2.png", dpi=80)
    plt.close(fig)
    return results


def sweep(ctx: Context, topology: str, **options):
    algorithms = [a for names in SERIES.values() for a in names if accepted(topology, a)]
    return ctx.compare(topology, "allreduce", algorithms=algorithms, sizes="32B:128MiB",
                       machine=ctx.machine_for("trivance-sst"), force=True, **options)  # fmt: skip


def relative(c) -> dict[str, dict[int, float]]:
    """Per family and size: its best time over Trivance's best, minus 1 (positive: Trivance
    faster), the figures' y axis."""
    best: dict[str, dict[int, float]] = {}
    for e in c.entries:
        if e.kind != "algorithm":
            continue
        fam = next((f for f, names in SERIES.items() if e.algorithm in names), None)
        if fam:
            cur = best.setdefault(fam, {}).get(e.size_bytes, math.inf)
            best[fam][e.size_bytes] = min(cur, e.time_s)
    tri = best["trivance"]
    return {
        f: {s: t / tri[s] - 1 for s, t in v.items()} for f, v in best.items() if f != "trivance"
    }


def ratio_to_best(rel: dict) -> dict[int, float]:
    """Per size: the best other family's time over Trivance's (above 1: Trivance faster)."""
    return {size: 1 + min(v[size] for v in rel.values()) for size in next(iter(rel.values()))}


def best_up_to(rel: dict) -> float:
    """Trivance's crossover (MiB) by the one reading (core.crossover): the largest size after
    which another family is more than 1% faster at every larger size."""
    ratio = ratio_to_best(rel)
    return crossover(list(ratio), list(ratio.values())) / MIB


# The size ranges the paper's percentages speak of (abstract, 6.2, 6.3).
RANGES = {"8KiB": 8 << 10, "2MiB": 2 * MIB, "8MiB": 8 * MIB, "128MiB": 128 * MIB}


def range_results(label: str, rel: dict) -> dict:
    """Per size range: the smallest and largest ratio of the best other family's time to
    Trivance's, and the Swing family's ratio at 128 MiB (Fig. 10's "8% better than Swing")."""
    ratio = ratio_to_best(rel)
    out = {}
    for name, limit in RANGES.items():
        within = [r for size, r in ratio.items() if size <= limit]
        out[f"{label} min ratio up to {name}"] = round(min(within), 4)
        out[f"{label} max ratio up to {name}"] = round(max(within), 4)
    swing = rel.get("swing", {}).get(128 * MIB)
    out[f"{label} swing ratio at 128MiB"] = None if swing is None else round(1 + swing, 4)
    return out


def plot_relative(ctx: Context, name: str, cases: dict, title: str) -> None:
    plt = pyplot()
    fig, axes = plt.subplots(1, len(cases), figsize=(4.2 * len(cases), 3.4), squeeze=False)
    for ax, (label, rel) in zip(axes[0], cases.items(), strict=True):
        for fam, v in rel.items():
            xs = sorted(v)
            style = "--" if fam in OUR_VARIANTS else "o-"
            ax.plot(xs, [100 * v[x] for x in xs], style, ms=3, label=fam)
        ax.axhline(0, color="k", lw=0.6)
        ax.set_xscale("log", base=2)
        xs = sorted(next(iter(rel.values())))[::3]
        ax.set_xticks(xs, [size_label(x) for x in xs], rotation=45, fontsize=7)
        ax.set_title(label, fontsize=9)
        ax.set_ylabel("time relative to Trivance (%)")
        ax.legend(fontsize=7)
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(ctx.out / f"{name}.png", dpi=80)
    plt.close(fig)


def figure(name: str, title: str, shapes: dict) -> callable:
    def run(ctx: Context) -> dict:
        chosen = shapes["paper" if ctx.paper else "small"]
        cases, rows = {}, []
        for label, (topology, options) in chosen.items():
            rel = relative(sweep(ctx, topology, **options))
            cases[label] = rel
            for fam, v in rel.items():
                rows += [{"case": label, "family": fam, "size_bytes": s, "relative": round(x, 5)}
                         for s, x in sorted(v.items())]  # fmt: skip
        write_csv(ctx.out / f"{name}.csv", rows)
        plot_relative(ctx, name, cases, title)
        return figure_results(cases)

    return run


def figure_results(cases: dict[str, dict]) -> dict:
    """The keys of a completion-time figure from its cases' relative times (label -> family ->
    size -> relative), as run or as read back from its CSV."""
    results = {}
    # The claims compare against the paper's families only (our variants are a finding).
    cases = {label: {f: v for f, v in rel.items() if f not in OUR_VARIANTS}
             for label, rel in cases.items()}  # fmt: skip
    for label, rel in cases.items():
        results[f"{label} trivance best up to MiB"] = best_up_to(rel)
        small = [min(v[s] for v in rel.values()) for s in sorted(rel["bucket"]) if s <= 8192]
        results[f"{label} min gain up to 8KiB"] = round(min(small), 4)
        results.update(range_results(label, rel))
    for upto in RANGES:  # over the figure's cases (Fig. 8: every bandwidth)
        results[f"min over cases of min ratio up to {upto}"] = min(
            results[f"{label} min ratio up to {upto}"] for label in cases
        )
        results[f"max over cases of max ratio up to {upto}"] = max(
            results[f"{label} max ratio up to {upto}"] for label in cases
        )
    return results


def results_from_csv(name: str, rows: list[dict]) -> dict:
    """figure_results from a stored figure CSV (case, family, size_bytes, relative); {} for the
    other CSVs; for Table 1, the ring size each algorithm ran, which its closed forms read."""
    if name == "trivance-table1" and rows and "n" in rows[0]:
        return {f"{r['algorithm']} n": int(r["n"]) for r in rows}
    if name not in FIGS or not rows or "relative" not in rows[0]:
        return {}
    cases: dict[str, dict] = {}
    for r in rows:
        family = cases.setdefault(r["case"], {}).setdefault(r["family"], {})
        family[int(r["size_bytes"])] = float(r["relative"])
    return figure_results(cases)


def ring(n):
    return f"ring:{n}", {}


FIGS = {
    "trivance-fig6": ("Fig. 6", "completion time relative to Trivance on rings of 8 and 64", {
        "small": {"ring 8": ring(8), "ring 64": ring(64)},
        "paper": {"ring 8": ring(8), "ring 64": ring(64)}}),
    "trivance-fig7": ("Fig. 7", "relative to Trivance on 8x8 and 32x32 tori", {
        "small": {"8x8": ("torus:8x8", {}), "16x16": ("torus:16x16", {})},
        "paper": {"8x8": ("torus:8x8", {}), "32x32": ("torus:32x32", {})}}),
    "trivance-fig8": ("Fig. 8", "32x32 torus at 200 Gb/s to 3.2 Tb/s", {
        "small": {f"16x16 {b}": ("torus:16x16", {"bandwidth": b})
                  for b in ("200Gbps", "3200Gbps")},
        "paper": {f"32x32 {b}": ("torus:32x32", {"bandwidth": b})
                  for b in ("200Gbps", "400Gbps", "800Gbps", "1600Gbps", "2400Gbps",
                            "3200Gbps")}}),
    "trivance-fig9": ("Fig. 9", "27x27 torus", {
        "small": {"9x9": ("torus:9x9", {})}, "paper": {"27x27": ("torus:27x27", {})}}),
    "trivance-fig10": ("Fig. 10", "16x16x16 torus", {
        # small: 4x4x4 (8x8x8 took 23 CPU s, 2026-11-30; the claims are about 16x16x16 and
        # are not judged at small scale on either)
        "small": {"4x4x4": ("torus:4x4x4", {})},
        "paper": {"16x16x16": ("torus:16x16x16", {})}}),
}  # fmt: skip

# Wall seconds measured at paper scale (docs/reproduction.md, "Run time")
PAPER_S = {"trivance-fig6": 2, "trivance-fig7": 22, "trivance-fig8": 150, "trivance-fig9": 21,
           "trivance-fig10": 364}  # fmt: skip

EXPERIMENTS = [
    Experiment("trivance-table1", "trivance", "Table 1", table1, {"small": 1, "paper": 1},
               "steps, bytes and transmission delay on a ring (81/64; paper scale 243/256)"),
    Experiment("trivance-table2", "trivance", "Table 2", table2, {"small": 9, "paper": 18},
               "transmission delay of the bandwidth-optimal algorithms on 2D-4D tori"),
] + [
    Experiment(name, "trivance", fig, figure(name.split("-")[1], f"Trivance {fig}: {t}", shapes),
               {"small": 15, "paper": PAPER_S[name]}, t)
    for name, (fig, t, shapes) in FIGS.items()
]  # fmt: skip
