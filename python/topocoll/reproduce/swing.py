"""swing-nsdi24.txt: Table 2 (congestion deficiency of the bandwidth-optimal algorithms) and the
goodput figures on tori (Figs. 6, 7, 8, 10, 11), all with the `swing` preset (its section 5
settings: 400 Gb/s, 100 ns links, 300 ns per hop) and nothing tuned per figure."""

from __future__ import annotations

from topocoll.compare import compare
from topocoll.simulate import simulate

from .core import Context, Experiment, accepted, pyplot, size_label, write_csv

MIB = 1 << 20
# The algorithms of the paper's plots (section 2.3): ring is the Hamiltonian rings on 2D tori.
ALGORITHMS = [
    "swing-lat", "swing-bw", "recdoub-lat", "recdoub-bw", "bucket", "ring", "hamiltonian-rings",
]  # fmt: skip


def deficiency(topology: str, algorithm: str) -> float:
    """Flow-model time with no latency at 1 GiB over the bound 2(p-1)/p n/(2D B): the bandwidth
    term Table 2 models (section 4.1)."""
    r = simulate(
        topology, "allreduce", algorithm, "1GiB", latency="0ns", hop_latency="0ns",
        alpha="0ns", force=True,
    )  # fmt: skip
    return 100.0 / r.peak_percent


def table2(ctx: Context) -> dict:
    # Cheap at 4,096 nodes (rank symmetry), so both scales run the sizes the table's limits need.
    shapes = {2: "torus:64x64", 3: "torus:16x16x16", 4: "torus:8x8x8x8"}
    rows, results = [], {}
    for dims, topology in shapes.items():
        for algorithm in ("swing-bw", "bucket", "recdoub-bw"):
            value = deficiency(topology, algorithm)
            rows.append({"topology": topology, "D": dims, "algorithm": algorithm,
                         "deficiency": round(value, 6)})  # fmt: skip
            results[f"{algorithm} D={dims}"] = round(value, 4)
    write_csv(ctx.out / "table2.csv", rows)
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for algorithm in ("swing-bw", "bucket", "recdoub-bw"):
        ax.plot([2, 3, 4], [results[f"{algorithm} D={d}"] for d in (2, 3, 4)], "o-",
                label=algorithm)  # fmt: skip
    ax.plot([2, 3, 4], [1.19, 1.03, 1.008], "kx", label="paper Table 2 (Swing B)")
    ax.set_xlabel("torus dimensions D (4,096 nodes)")
    ax.set_ylabel("time / bandwidth bound")
    ax.set_xticks([2, 3, 4])
    ax.legend(fontsize=7)
    ax.set_title("Swing Table 2: congestion deficiency (flow model)", fontsize=9)
    fig.tight_layout()
    fig.savefig(ctx.out / "table2.png", dpi=80)
    plt.close(fig)
    return results


def sweep(ctx: Context, topology: str, sizes: str, **options):
    algorithms = [a for a in ALGORITHMS if accepted(topology, a)]
    c = compare(topology, "allreduce", algorithms=algorithms, sizes=sizes, jobs=ctx.jobs,
                params="swing", force=True, use_mpi=False, **options)  # fmt: skip
    return c


def family_goodput(c) -> dict[str, dict[int, float]]:
    """Best variant of each family per size (the paper plots Swing and recursive doubling as the
    best of their latency- and bandwidth-optimal versions)."""
    out: dict[str, dict[int, float]] = {}
    for e in c.entries:
        if e.kind == "algorithm":
            fam = e.family
            out.setdefault(fam, {})
            out[fam][e.size_bytes] = max(out[fam].get(e.size_bytes, 0.0), e.goodput_gbps)
    return out


def swing_best_up_to(c) -> float:
    """Largest size (MiB) up to which Swing is best at every size (gain >= 1)."""
    last = 0
    for s in c.summary:
        if s.gain is None or s.gain < 1.0:
            break
        last = s.size_bytes
    return last / MIB


def first_win(c, family: str) -> float:
    """Smallest size (MiB) at which the best baseline beats Swing and is of `family`."""
    for s in c.summary:
        if s.gain is not None and s.gain < 1.0 and s.best_baseline and family in s.best_baseline:
            return s.size_bytes / MIB
    return float("nan")


def gain_at(c, size: int) -> float:
    for s in c.summary:
        if s.size_bytes == size and s.gain is not None:
            return round(s.gain, 3)
    return float("nan")


def summary_rows(label: str, c) -> list[dict]:
    return [
        {"case": label, "size_bytes": s.size_bytes, "best": s.best,
         "best_paper": s.best_paper, "best_baseline": s.best_baseline,
         "gain": None if s.gain is None else round(s.gain, 4)}
        for s in c.summary
    ]  # fmt: skip


def plot_gains(ctx: Context, name: str, cases: dict, title: str) -> None:
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    for label, c in cases.items():
        xs = [s.size_bytes for s in c.summary if s.gain is not None]
        ys = [100 * (s.gain - 1) for s in c.summary if s.gain is not None]
        ax.plot(xs, ys, "o-", ms=3, label=label)
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xscale("log", base=2)
    ticks = [s for s in next(iter(cases.values())).sizes][::3]
    ax.set_xticks(ticks, [size_label(t) for t in ticks], rotation=45, fontsize=7)
    ax.set_ylabel("Swing goodput gain over best baseline (%)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.out / f"{name}.png", dpi=80)
    plt.close(fig)


def fig6(ctx: Context) -> dict:
    topology = "torus:64x64" if ctx.paper else "torus:16x16"
    sizes = "32B:512MiB" if ctx.paper else "32B:512MiB"
    c = sweep(ctx, topology, sizes)
    write_csv(ctx.out / "fig6.csv", c.rows())
    write_csv(ctx.out / "fig6-gain.csv", summary_rows(topology, c))
    fams = family_goodput(c)
    plt = pyplot()
    fig, (ax, inset) = plt.subplots(1, 2, figsize=(9, 3.6))
    for fam, points in fams.items():
        xs = sorted(points)
        ax.plot(xs, [points[x] for x in xs], "o-", ms=3, label=fam)
    ax.set_xscale("log", base=2)
    ax.set_ylabel("goodput (Gb/s)")
    ax.set_title(f"Swing Fig. 6: allreduce on {topology} (swing preset)", fontsize=9)
    ax.legend(fontsize=7)
    xs = [s.size_bytes for s in c.summary if s.gain is not None]
    inset.plot(xs, [100 * (s.gain - 1) for s in c.summary if s.gain is not None], "o-", ms=3)
    inset.axhline(0, color="k", lw=0.6)
    inset.set_xscale("log", base=2)
    inset.set_title("gain of Swing over the best baseline (%)", fontsize=9)
    for a in (ax, inset):
        ticks = c.sizes[::3]
        a.set_xticks(ticks, [size_label(t) for t in ticks], rotation=45, fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.out / "fig6.png", dpi=80)
    plt.close(fig)
    swing512 = max(
        (e.peak_percent for e in c.entries if e.size_bytes == 512 * MIB and e.family == "swing"),
        default=float("nan"),
    )
    return {
        "swing best up to MiB": swing_best_up_to(c),
        "bucket wins from MiB": first_win(c, "bucket"),
        "gain at 2MiB": gain_at(c, 2 * MIB),
        "swing peak percent at 512MiB": round(swing512, 1),
        "max gain": round(max(s.gain for s in c.summary if s.gain is not None), 3),
    }


def fig7(ctx: Context) -> dict:
    sides = (8, 16, 32, 64, 128) if ctx.paper else (8, 16)
    cases = {f"{s}x{s}": sweep(ctx, f"torus:{s}x{s}", "32B:512MiB") for s in sides}
    rows = [r for label, c in cases.items() for r in summary_rows(label, c)]
    write_csv(ctx.out / "fig7.csv", rows)
    plot_gains(ctx, "fig7", cases, "Swing Fig. 7: gain on square tori (swing preset)")
    return {
        "min over shapes of swing best up to MiB": min(swing_best_up_to(c) for c in cases.values()),
        "max gain": round(max(s.gain for c in cases.values() for s in c.summary if s.gain), 3),
    }


def fig8(ctx: Context) -> dict:
    rates = ("100Gbps", "200Gbps", "400Gbps", "800Gbps", "1600Gbps", "3200Gbps")
    if not ctx.paper:
        rates = ("100Gbps", "400Gbps", "3200Gbps")
    cases = {r: sweep(ctx, "torus:8x8", "32B:512MiB", bandwidth=r) for r in rates}
    rows = [r for label, c in cases.items() for r in summary_rows(label, c)]
    write_csv(ctx.out / "fig8.csv", rows)
    plot_gains(ctx, "fig8", cases, "Swing Fig. 8: gain on 8x8 per link bandwidth")
    return {
        "gain at 512MiB, 3.2Tb/s": gain_at(cases["3200Gbps"], 512 * MIB),
        "min over bandwidths of max gain": round(
            min(max(s.gain for s in c.summary if s.gain) for c in cases.values()), 3
        ),
    }


def fig10(ctx: Context) -> dict:
    shapes = ("64x16", "128x8", "256x4") if ctx.paper else ("16x4", "32x2")
    cases = {s: sweep(ctx, f"torus:{s}", "32B:512MiB") for s in shapes}
    rows = [r for label, c in cases.items() for r in summary_rows(label, c)]
    write_csv(ctx.out / "fig10.csv", rows)
    plot_gains(ctx, "fig10", cases, "Swing Fig. 10: gain on rectangular tori")
    return {
        "min over shapes of swing best up to MiB": min(swing_best_up_to(c) for c in cases.values()),
        "max gain": round(max(s.gain for c in cases.values() for s in c.summary if s.gain), 3),
    }


def fig11(ctx: Context) -> dict:
    shapes = ("8x8", "8x8x8", "8x8x8x8") if ctx.paper else ("8x8", "4x4x4", "4x4x4x4")
    cases = {s: sweep(ctx, f"torus:{s}", "32B:512MiB") for s in shapes}
    rows = [r for label, c in cases.items() for r in summary_rows(label, c)]
    write_csv(ctx.out / "fig11.csv", rows)
    plot_gains(ctx, "fig11", cases, "Swing Fig. 11: gain on 2D, 3D and 4D tori")
    higher = [c for label, c in cases.items() if label.count("x") >= 2]
    return {
        "min gain on 3D and 4D": round(min(s.gain for c in higher for s in c.summary if s.gain), 3),
        "max gain on 3D and 4D": round(max(s.gain for c in higher for s in c.summary if s.gain), 3),
    }


EXPERIMENTS = [
    Experiment("swing-table2", "swing", "Table 2", table2, {"small": 20, "paper": 30},
               "congestion deficiency of Swing (B), bucket, recursive doubling (B) at 4,096 nodes"),
    Experiment("swing-fig6", "swing", "Fig. 6", fig6, {"small": 12, "paper": 1800},
               "goodput and gain on a 64x64 torus (small: 16x16)"),
    Experiment("swing-fig7", "swing", "Fig. 7", fig7, {"small": 12, "paper": 3600},
               "gain on square tori 8x8..128x128 (small: 8x8, 16x16)"),
    Experiment("swing-fig8", "swing", "Fig. 8", fig8, {"small": 4, "paper": 11},
               "gain on 8x8 at 100 Gb/s..3.2 Tb/s (small: 3 rates)"),
    Experiment("swing-fig10", "swing", "Fig. 10", fig10, {"small": 2, "paper": 600},
               "gain on 64x16, 128x8, 256x4 (small: 16x4, 32x2)"),
    Experiment("swing-fig11", "swing", "Fig. 11", fig11, {"small": 3, "paper": 600},
               "gain on 8x8, 8x8x8, 8x8x8x8 (small: 8x8, 4x4x4, 4x4x4x4)"),
]  # fmt: skip
