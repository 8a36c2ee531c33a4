"""swing-nsdi24.txt: Table 2 (congestion deficiency of the bandwidth-optimal algorithms), the
goodput figures on tori (Figs. 6, 7, 8, 10, 11) and on torus-like networks (Figs. 12-14,
section 5.4) and the summary over all of them (Fig. 15, section 5.5), all on the `swing-sst` machine
(its section 5 settings: 400 Gb/s, 100 ns links, 300 ns per hop, and the per-message host costs
of the SST models it ran, docs/machines.md) and nothing tuned per figure."""

from __future__ import annotations

import statistics
from collections.abc import Callable

from topocoll.plots import pyplot
from topocoll.simulation import simulate

from .core import (
    EQUAL_BLOCKS_BYTES,
    Context,
    Experiment,
    accepted,
    crossover,
    first_loss_after_crossover,
    grid_dims,
    size_label,
    trend,
    write_csv,
    zero_latency_time,
)
from .swing_stored import GAIN_TABLES, stored_sweep, stored_sweeps, summaries_by_case

MIB = 1 << 20
# The algorithms of the paper's plots (section 2.3): ring is the Hamiltonian rings on 2D tori.
ALGORITHMS = [
    "swing-lat", "swing-bw", "recdoub-lat", "recdoub-bw", "bucket", "ring", "hamiltonian-rings",
]  # fmt: skip
# Our variants of bucket (registry origin "variant"): `bucket-lanes` lets each lane switch
# dimension on its own, `bucket-balanced` splits the data unevenly on 2D tori. They run beside
# the paper's algorithms and are reported in their own columns, a finding of ours: the gain the
# claims judge stays Swing's over the paper's baselines, among them `bucket`, the paper's
# lock-step form (sections 2.3.4, 5.2, Fig. 9).
OUR_VARIANTS = ["bucket-lanes", "bucket-balanced"]


def deficiency(topology: str, algorithm: str) -> float:
    """Flow-model time with no latency of a large vector (EQUAL_BLOCKS_BYTES) over the bound
    2(p-1)/p n/(2D B): the bandwidth term Table 2 models (section 4.1)."""
    _, r = zero_latency_time(topology, algorithm, EQUAL_BLOCKS_BYTES)
    return 100.0 / r.peak_percent


def table2(ctx: Context) -> dict:
    # Cheap at 4,096 nodes (rank symmetry), so both scales run the sizes the table's limits need.
    shapes = {2: "torus:64x64", 3: "torus:16x16x16", 4: "torus:8x8x8x8"}
    cases = [(dims, topology, algorithm) for dims, topology in shapes.items()
             for algorithm in ("swing-bw", "bucket", "recdoub-bw")]  # fmt: skip
    values = ctx.map(lambda case: deficiency(case[1], case[2]), cases)
    rows, results = [], {}
    for (dims, topology, algorithm), value in zip(cases, values, strict=True):
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


# Comparisons already run in this process, with whether they were pruned: Fig. 15 summarizes the
# scenarios of Figs. 6-14, so `reproduce swing` runs each once (the results do not depend on
# --jobs).
_SWEEPS: dict[tuple, tuple[object, bool]] = {}


def sweep(ctx: Context, topology: str, sizes: str, prune: bool = False, **options):
    """The comparison of the paper's algorithms. `prune`: the figure reads only the summary (the
    best, the best baseline and the gain per size), which compare(prune=True) gives exactly
    while skipping the baselines whose lower bound exceeds a faster baseline's time (the O(P)
    rings at small sizes on 128x128: hours of runs); a full comparison also serves a pruned
    request, not the reverse."""
    key = (topology, sizes, tuple(sorted(options.items())))
    cached = _SWEEPS.get(key)
    if cached is None or (cached[1] and not prune):
        algorithms = [a for a in ALGORITHMS + OUR_VARIANTS if accepted(topology, a)]
        c = ctx.compare(topology, "allreduce", algorithms=algorithms, sizes=sizes,
                        machine=ctx.machine_for("swing-sst"), force=True, prune=prune,
                        **options)  # fmt: skip
        _SWEEPS[key] = (c, prune)
    return _SWEEPS[key][0]


def family_goodput(c) -> dict[str, dict[int, float]]:
    """Best variant of each family per size (the paper plots Swing and recursive doubling as the
    best of their latency- and bandwidth-optimal versions)."""
    out: dict[str, dict[int, float]] = {}
    for e in c.entries:
        if e.kind == "algorithm":
            # Our variants are series of their own, not members of the paper's family.
            fam = f"{e.algorithm} (ours)" if e.origin == "variant" else e.family
            out.setdefault(fam, {})
            out[fam][e.size_bytes] = max(out[fam].get(e.size_bytes, 0.0), e.goodput_gbps)
    return out


def gains(c) -> tuple[list[int], list[float | None]]:
    return [s.size_bytes for s in c.summary], [s.gain for s in c.summary]


def swing_best_up_to(c) -> float:
    """Swing's crossover (MiB) by the one reading (core.crossover): the largest size after
    which the best baseline wins, by more than 1%, at every larger size."""
    return crossover(*gains(c)) / MIB


def first_win(c, family: str) -> float:
    """The size (MiB) from which the baselines win at every larger size, if the best baseline
    there is of `family`; NaN otherwise."""
    size = first_loss_after_crossover(*gains(c))
    for s in c.summary:
        if s.size_bytes == size and s.best_baseline and family in s.best_baseline:
            return size / MIB
    return float("nan")


def gain_at(c, size: int) -> float:
    for s in c.summary:
        if s.size_bytes == size and s.gain is not None:
            return round(s.gain, 3)
    return float("nan")


def variant_gain(s) -> float | None:
    """Swing's goodput (the best paper algorithm) over the best of our bucket variants at one
    size: a finding beside the gain, not the gain."""
    if not s.best_paper_goodput_gbps or not s.best_variant_goodput_gbps:
        return None
    return s.best_paper_goodput_gbps / s.best_variant_goodput_gbps


def gain_with_variants(s) -> float | None:
    """Swing's gain were our bucket variants counted among the baselines (a finding): the
    smaller of the gain and `variant_gain`."""
    vg = variant_gain(s)
    if s.gain is None or vg is None:
        return s.gain
    return min(s.gain, vg)


def summary_rows(label: str, c) -> list[dict]:
    rows = []
    for s in c.summary:
        vg, gv = variant_gain(s), gain_with_variants(s)
        rows.append({"case": label, "size_bytes": s.size_bytes, "best": s.best,
                     "best_paper": s.best_paper, "best_baseline": s.best_baseline,
                     "gain": None if s.gain is None else round(s.gain, 4),
                     "best_variant": s.best_variant,
                     "variant_gain": None if vg is None else round(vg, 4),
                     "gain_with_variants": None if gv is None else round(gv, 4)})  # fmt: skip
    return rows


def plot_gains(ctx: Context, name: str, cases: dict, title: str) -> None:
    """Swing's gain over the best baseline per case (solid) and, dashed, where our bucket
    variants run, over the best of the baselines and our variants (a finding, not the paper's
    comparison)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 3.5))
    for label, c in cases.items():
        xs = [s.size_bytes for s in c.summary if s.gain is not None]
        ys = [100 * (s.gain - 1) for s in c.summary if s.gain is not None]
        (line,) = ax.plot(xs, ys, "o-", ms=3, label=label)
        ours = [(s.size_bytes, gain_with_variants(s)) for s in c.summary
                if variant_gain(s) is not None]  # fmt: skip
        ours = [(x, g) for x, g in ours if g is not None]
        if ours:
            ys = [100 * (g - 1) for _, g in ours]
            ax.plot([x for x, _ in ours], ys, "--", color=line.get_color(), lw=0.9,
                    label=f"{label}, our variants counted")  # fmt: skip
    ax.axhline(0, color="k", lw=0.6)
    ax.set_xscale("log", base=2)
    ticks = [s for s in next(iter(cases.values())).sizes][::3]
    ax.set_xticks(ticks, [size_label(t) for t in ticks], rotation=45, fontsize=7)
    ax.set_ylabel("Swing goodput gain (%)")
    ax.set_title(title, fontsize=9)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(ctx.out / f"{name}.png", dpi=80)
    plt.close(fig)


def plot_goodput(ctx: Context, name: str, c, title: str) -> None:
    """Goodput per family (best variant per size) beside the gain of Swing over the best
    baseline: the main plot and the gain inset of the paper's Figs. 6 and 12-14."""
    fams = family_goodput(c)
    plt = pyplot()
    fig, (ax, inset) = plt.subplots(1, 2, figsize=(9, 3.6))
    for fam, points in fams.items():
        xs = sorted(points)
        ax.plot(xs, [points[x] for x in xs], "o-", ms=3, label=fam)
    ax.set_xscale("log", base=2)
    ax.set_ylabel("goodput (Gb/s)")
    ax.set_title(title, fontsize=9)
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
    fig.savefig(ctx.out / f"{name}.png", dpi=80)
    plt.close(fig)


def fig6(ctx: Context) -> dict:
    topology = "torus:64x64" if ctx.paper else "torus:16x16"
    sizes = "32B:512MiB" if ctx.paper else "32B:512MiB"
    c = sweep(ctx, topology, sizes)
    write_csv(ctx.out / "fig6.csv", c.rows())
    write_csv(ctx.out / "fig6-gain.csv", summary_rows(topology, c))
    plot_goodput(ctx, "fig6", c, f"Swing Fig. 6: allreduce on {topology} (swing-sst machine)")
    swing512 = max(
        (e.peak_percent for e in c.entries if e.size_bytes == 512 * MIB and e.family == "swing"),
        default=float("nan"),
    )
    return {**fig6_results({topology: c}), "swing peak percent at 512MiB": round(swing512, 1)}


def fig6_results(cases: dict) -> dict:
    (c,) = cases.values()
    return {
        "swing best up to MiB": swing_best_up_to(c),
        "bucket wins from MiB": first_win(c, "bucket"),
        "gain at 2MiB": gain_at(c, 2 * MIB),
        "max gain": max_gain(c),
    }


def fig7(ctx: Context) -> dict:
    sides = (8, 16, 32, 64, 128) if ctx.paper else (8, 16)
    cases = {f"{s}x{s}": sweep(ctx, f"torus:{s}x{s}", "32B:512MiB", prune=True) for s in sides}
    rows = [r for label, c in cases.items() for r in summary_rows(label, c)]
    write_csv(ctx.out / "fig7.csv", rows)
    plot_gains(ctx, "fig7", cases, "Swing Fig. 7: gain on square tori (swing-sst machine)")
    return fig7_results(cases)


def fig7_results(cases: dict) -> dict:
    per_side = [max_gain(c) for c in cases.values()]  # sides in increasing order
    return {
        "min over shapes of swing best up to MiB": min(swing_best_up_to(c) for c in cases.values()),
        "max gain": round(max(s.gain for c in cases.values() for s in c.summary if s.gain), 3),
        "max gain per side": per_side,
        "max gain trend over torus side": trend(per_side),
    }


def fig8(ctx: Context) -> dict:
    rates = ("100Gbps", "200Gbps", "400Gbps", "800Gbps", "1600Gbps", "3200Gbps")
    if not ctx.paper:
        rates = ("100Gbps", "400Gbps", "3200Gbps")
    cases = {r: sweep(ctx, "torus:8x8", "32B:512MiB", prune=True, bandwidth=r) for r in rates}
    rows = [r for label, c in cases.items() for r in summary_rows(label, c)]
    write_csv(ctx.out / "fig8.csv", rows)
    plot_gains(ctx, "fig8", cases, "Swing Fig. 8: gain on 8x8 per link bandwidth")
    return fig8_results(cases)


def fig8_results(cases: dict) -> dict:
    per_rate = [max_gain(c) for c in cases.values()]  # rates in increasing order
    return {
        "gain at 512MiB, 3.2Tb/s": gain_at(cases["3200Gbps"], 512 * MIB),
        "min over bandwidths of max gain": round(
            min(max(s.gain for s in c.summary if s.gain) for c in cases.values()), 3
        ),
        "min over bandwidths of median gain": min(median_gain(c) for c in cases.values()),
        "max gain per bandwidth": per_rate,
        "max gain trend over bandwidth": trend(per_rate),
    }


def fig10(ctx: Context) -> dict:
    shapes = ("64x16", "128x8", "256x4") if ctx.paper else ("16x4", "32x2")
    cases = {s: sweep(ctx, f"torus:{s}", "32B:512MiB", prune=True) for s in shapes}
    rows = [r for label, c in cases.items() for r in summary_rows(label, c)]
    write_csv(ctx.out / "fig10.csv", rows)
    plot_gains(ctx, "fig10", cases, "Swing Fig. 10: gain on rectangular tori")
    return fig10_results(cases)


def fig10_results(cases: dict) -> dict:
    per_shape = [max_gain(c) for c in cases.values()]  # aspect ratios in increasing order
    return {
        "min over shapes of swing best up to MiB": min(swing_best_up_to(c) for c in cases.values()),
        "max gain": round(max(s.gain for c in cases.values() for s in c.summary if s.gain), 3),
        "swing best up to MiB per shape": [swing_best_up_to(c) for c in cases.values()],
        "max gain per shape": per_shape,
        "max gain trend over aspect ratio": trend(per_shape),
    }


def fig11(ctx: Context) -> dict:
    shapes = ("8x8", "8x8x8", "8x8x8x8") if ctx.paper else ("8x8", "4x4x4", "4x4x4x4")
    cases = {s: sweep(ctx, f"torus:{s}", "32B:512MiB", prune=True) for s in shapes}
    rows = [r for label, c in cases.items() for r in summary_rows(label, c)]
    write_csv(ctx.out / "fig11.csv", rows)
    plot_gains(ctx, "fig11", cases, "Swing Fig. 11: gain on 2D, 3D and 4D tori")
    return fig11_results(cases)


def fig11_results(cases: dict) -> dict:
    higher = [c for label, c in cases.items() if label.count("x") >= 2]
    return {
        "min gain on 3D and 4D": round(min(s.gain for c in higher for s in c.summary if s.gain), 3),
        "max gain on 3D and 4D": round(max(s.gain for c in higher for s in c.summary if s.gain), 3),
    }


# Section 5.4's networks of 4,096 nodes, each beside the torus of the same grid (Fig. 6's 64x64);
# small: the same kinds on an 8x8 grid (64 nodes).
TORUS_LIKE = {
    "hx2mesh": ("hammingmesh:2x2:32x32", "hammingmesh:2x2:4x4"),
    "hx4mesh": ("hammingmesh:4x4:16x16", "hammingmesh:4x4:2x2"),
    "hyperx": ("hyperx:64x64", "hyperx:8x8"),
}


def torus_like(ctx: Context, kind: str) -> str:
    return TORUS_LIKE[kind][0 if ctx.paper else 1]


def same_grid_torus(topology: str) -> str:
    return "torus:" + "x".join(str(d) for d in grid_dims(topology))


def min_gain(c) -> float:
    return round(min(s.gain for s in c.summary if s.gain is not None), 3)


def max_gain(c) -> float:
    return round(max(s.gain for s in c.summary if s.gain is not None), 3)


def median_gain(c) -> float:
    return round(statistics.median(s.gain for s in c.summary if s.gain is not None), 3)


def swing_peak_percent(c, size: int) -> float:
    return max(
        (e.peak_percent for e in c.entries if e.size_bytes == size and e.family == "swing"),
        default=float("nan"),
    )


def small_time_ratio(ctx: Context, c, topology: str) -> float:
    """Largest ratio, over the algorithms, of the 32 B time on `topology` to that on the torus
    of the same grid (section 5.4.1: every algorithm runs faster on HammingMesh for small
    vectors)."""
    torus = sweep(ctx, same_grid_torus(topology), "32B")
    on_torus = {e.algorithm: e.time_s for e in torus.entries if e.kind == "algorithm"}
    small = [e for e in c.entries if e.kind == "algorithm" and e.size_bytes == 32]
    ratios = [e.time_s / on_torus[e.algorithm] for e in small if e.algorithm in on_torus]
    return round(max(ratios), 3)


def goodput_figure(ctx: Context, name: str, kind: str, title: str):
    topology = torus_like(ctx, kind)
    c = sweep(ctx, topology, "32B:512MiB")
    write_csv(ctx.out / f"{name}.csv", c.rows())
    write_csv(ctx.out / f"{name}-gain.csv", summary_rows(topology, c))
    plot_goodput(ctx, name, c, f"Swing {title}: allreduce on {topology} (swing-sst machine)")
    return topology, c


def fig12(ctx: Context) -> dict:
    topology, c = goodput_figure(ctx, "fig12", "hx2mesh", "Fig. 12")
    torus = same_grid_torus(topology)
    (on_torus,) = ctx.map(
        lambda t: simulate(
            t, "allreduce", "swing-bw", "512MiB", machine=ctx.machine_for("swing-sst"), force=True
        ),
        [torus],
    )
    return {
        **fig12_results({topology: c}),
        "swing peak percent at 512MiB minus torus": round(
            swing_peak_percent(c, 512 * MIB) - on_torus.peak_percent, 2),
        "max 32B time ratio to torus": small_time_ratio(ctx, c, topology),
    }  # fmt: skip


def fig12_results(cases: dict) -> dict:
    (c,) = cases.values()
    return {"min gain": min_gain(c), "gain at 2MiB": gain_at(c, 2 * MIB), "max gain": max_gain(c)}


def fig13(ctx: Context) -> dict:
    topology, c = goodput_figure(ctx, "fig13", "hx4mesh", "Fig. 13")
    hx2 = torus_like(ctx, "hx2mesh")
    # Section 5.4.1: Hx4Mesh has fewer extra links than Hx2Mesh, more than the torus.
    shapes = (hx2, topology, same_grid_torus(topology))
    d = dict(zip(shapes, ctx.map(lambda t: deficiency(t, "swing-bw"), shapes), strict=True))
    return {
        **fig13_results({topology: c}),
        "swing-bw deficiency": round(d[topology], 4),
        "deficiency Hx4Mesh minus Hx2Mesh": round(d[topology] - d[hx2], 4),
        "deficiency torus minus Hx4Mesh": round(d[same_grid_torus(topology)] - d[topology], 4),
    }


def fig13_results(cases: dict) -> dict:
    (c,) = cases.values()
    return {"swing best up to MiB": swing_best_up_to(c), "max gain": max_gain(c)}


def fig14(ctx: Context) -> dict:
    topology, c = goodput_figure(ctx, "fig14", "hyperx", "Fig. 14")
    (value,) = ctx.map(lambda t: deficiency(t, "swing-bw"), [topology])
    return {**fig14_results({topology: c}), "swing-bw deficiency": round(value, 4)}


def fig14_results(cases: dict) -> dict:
    (c,) = cases.values()
    return {"min gain": min_gain(c), "max gain": max_gain(c)}


def fig15_scenarios(ctx: Context) -> dict[str, list[tuple[str, str, dict]]]:
    """Fig. 15's groups of scenarios: (label, topology, compare options) per box."""
    rates = ("100Gbps", "200Gbps", "400Gbps", "800Gbps", "1600Gbps", "3200Gbps")
    square = ("8x8", "16x16", "32x32", "64x64", "128x128")
    rect = ("64x16", "128x8", "256x4")
    higher = ("8x8x8", "8x8x8x8")
    if not ctx.paper:
        rates, square, rect, higher = (
            ("100Gbps", "400Gbps", "3200Gbps"),
            ("8x8",),
            ("16x4",),
            ("4x4x4",),
        )
    return {
        "square torus": [(s, f"torus:{s}", {}) for s in square],
        "rectangular torus": [(s, f"torus:{s}", {}) for s in rect],
        "8x8 bandwidth": [(r, "torus:8x8", {"bandwidth": r}) for r in rates],
        "3D/4D torus": [(s, f"torus:{s}", {}) for s in higher],
        "torus-like": [(k, torus_like(ctx, k), {}) for k in TORUS_LIKE],
    }


def fig15_sweeps(ctx: Context) -> Callable[..., object]:
    """How Fig. 15 gets a scenario's gains: its pruned sweep, or with --from-runs (ctx.runs) the
    gains the figure that ran it stored (swing_stored)."""
    if ctx.runs is None:
        return lambda topology, **options: sweep(ctx, topology, "32B:512MiB", prune=True,
                                                 **options)  # fmt: skip
    sweeps = stored_sweeps(ctx.runs, ctx.scale)
    return lambda topology, **options: stored_sweep(sweeps, ctx.runs, topology,
                                                    options.get("bandwidth"))  # fmt: skip


def fig15(ctx: Context) -> dict:
    groups = fig15_scenarios(ctx)
    gains_of = fig15_sweeps(ctx)
    cases = {
        (group, label): gains_of(topology, **options)
        for group, scenarios in groups.items()
        for label, topology, options in scenarios
    }
    rows = []
    for (group, label), c in cases.items():
        gains = [s.gain for s in c.summary if s.gain is not None]
        rows.append({"group": group, "scenario": label, "median_gain": median_gain(c),
                     "min_gain": min(gains), "max_gain": max(gains),
                     "q1": statistics.quantiles(gains, n=4)[0],
                     "q3": statistics.quantiles(gains, n=4)[2]})  # fmt: skip
    write_csv(ctx.out / "fig15.csv", rows)
    plt = pyplot()
    labels = [f"{g}: {label}" for g, label in cases]
    fig, ax = plt.subplots(figsize=(7, 0.3 * len(cases) + 1.5))
    data = [[100 * (s.gain - 1) for s in c.summary if s.gain is not None] for c in cases.values()]
    ax.boxplot(data, orientation="horizontal", whis=1.5, showmeans=True)
    ax.set_yticks(range(1, len(labels) + 1), labels, fontsize=7)
    ax.axvline(0, color="k", lw=0.6)
    ax.set_xlabel("Swing goodput gain over the best baseline, 32 B to 512 MiB (%)")
    ax.set_title("Swing Fig. 15: summary of the gains (swing-sst machine)", fontsize=9)
    fig.tight_layout()
    fig.savefig(ctx.out / "fig15.png", dpi=80)
    plt.close(fig)
    medians = [median_gain(c) for c in cases.values()]
    bandwidth = [median_gain(cases[("8x8 bandwidth", r)]) for r, _, _ in groups["8x8 bandwidth"]]
    hx2 = cases[("torus-like", "hx2mesh")]
    torus = gains_of(same_grid_torus(torus_like(ctx, "hx2mesh")))
    results = {
        "min median gain": min(medians),
        "max median gain": max(medians),
        "max gain": max(max_gain(c) for c in cases.values()),
        "median gain over bandwidths": round(statistics.median(bandwidth), 3),
        "min gain on square tori": min(
            min_gain(c) for (g, _), c in cases.items() if g == "square torus"
        ),
        "median gain Hx2Mesh minus torus": round(median_gain(hx2) - median_gain(torus), 3),
    }
    flattest = groups["rectangular torus"][-1][0]  # 256x4 (small: 16x4)
    results["gain at 512MiB, flattest rectangle"] = gain_at(
        cases[("rectangular torus", flattest)], 512 * MIB)  # fmt: skip
    return results


EXPERIMENTS = [
    Experiment("swing-table2", "swing", "Table 2", table2, {"small": 6, "paper": 5},
               "congestion deficiency of Swing (B), bucket, recursive doubling (B) at 4,096 nodes"),
    Experiment("swing-fig6", "swing", "Fig. 6", fig6, {"small": 12, "paper": 1430},
               "goodput and gain on a 64x64 torus (small: 16x16)"),
    Experiment("swing-fig7", "swing", "Fig. 7", fig7, {"small": 12, "paper": 1980},
               "gain on square tori 8x8..128x128 (small: 8x8, 16x16)"),
    Experiment("swing-fig8", "swing", "Fig. 8", fig8, {"small": 4, "paper": 1},
               "gain on 8x8 at 100 Gb/s..3.2 Tb/s (small: 3 rates)"),
    Experiment("swing-fig10", "swing", "Fig. 10", fig10, {"small": 16, "paper": 660},
               "gain on 64x16, 128x8, 256x4 (small: 16x4, 32x2)"),
    Experiment("swing-fig11", "swing", "Fig. 11", fig11, {"small": 3, "paper": 18},
               "gain on 8x8, 8x8x8, 8x8x8x8 (small: 8x8, 4x4x4, 4x4x4x4)"),
    Experiment("swing-fig12", "swing", "Fig. 12", fig12, {"small": 2, "paper": 3430},
               "goodput on a 4,096-node Hx2Mesh, hammingmesh:2x2:32x32 (small: 2x2:4x4)"),
    Experiment("swing-fig13", "swing", "Fig. 13", fig13, {"small": 2, "paper": 1760},
               "goodput on a 4,096-node Hx4Mesh, hammingmesh:4x4:16x16 (small: 4x4:2x2)"),
    Experiment("swing-fig14", "swing", "Fig. 14", fig14, {"small": 2, "paper": 2070},
               "goodput on a 4,096-node HyperX, hyperx:64x64 (small: 8x8)"),
    # paper: the sum of Figs. 6-14's estimates, whose sweeps it reruns; `--from-runs DIR`
    # reads their stored gains instead (seconds)
    Experiment("swing-fig15", "swing", "Fig. 15", fig15, {"small": 10, "paper": 11400},
               "distribution of the gain over sizes per scenario of Figs. 6-14 (small: 9)",
               tuple(GAIN_TABLES)),
]  # fmt: skip


# The keys each figure computes from its gains alone, which a stored summary CSV (columns case,
# size_bytes, best_baseline, gain) gives again: `rejudge` judges stored runs by today's rules.
FROM_GAINS = {"swing-fig6": fig6_results, "swing-fig7": fig7_results, "swing-fig8": fig8_results,
              "swing-fig10": fig10_results, "swing-fig11": fig11_results,
              "swing-fig12": fig12_results, "swing-fig13": fig13_results,
              "swing-fig14": fig14_results}  # fmt: skip


def results_from_csv(name: str, rows: list[dict]) -> dict:
    """The keys of FROM_GAINS[name] from a stored summary CSV's rows ({} for other
    experiments or CSVs): cases in the order they appear, sizes ascending."""
    if name not in FROM_GAINS or not rows or "gain" not in rows[0]:
        return {}
    cases = summaries_by_case(rows)
    return FROM_GAINS[name](cases)
