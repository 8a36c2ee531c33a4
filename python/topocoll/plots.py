"""Figures (matplotlib, the `plot` extra): the comparison of `compare --plot`, the link
utilization of `innet --plot` and the figures of `reproduce`. matplotlib is imported only when a
figure is drawn; without it, `pyplot` raises MissingExtra naming the extra."""

from __future__ import annotations

from topocoll.comparison import Comparison
from topocoll.errors import require
from topocoll.innet import utilization_shares

PLOT_FORMATS = (".png", ".pdf", ".svg")


def pyplot(what: str = "this command"):
    """matplotlib.pyplot on the file-only Agg backend; MissingExtra when matplotlib is missing."""
    matplotlib = require("matplotlib", what)
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# Line style per origin (simulation.origin): the papers' algorithms solid, topocoll's own
# variants dotted, baselines dashed, schedule files dash-dotted.
ORIGIN_STYLES = {"paper": "-", "variant": ":", "baseline": "--", "file": "-."}
ORIGIN_NAMES = {"paper": "paper", "variant": "topocoll variant", "baseline": "baseline"}


def comparison_title(c: Comparison) -> str:
    """What was compared, on which model and machine, and how to read the lines."""
    machine = f", machine {c.machine}" if c.machine else ""
    return (
        f"{c.collective} on {c.topology} ({c.ranks} ranks), {c.model} model{machine}: time "
        f"relative to the fastest per size\nsolid: papers' algorithms, dotted: topocoll's own "
        f"variants, dashed: baselines; grey: every algorithm"
    )


def plot_comparison(c: Comparison, path: str) -> None:
    """Time relative to the fastest run of each size (1 = the best; log axes), so that every size
    reads alike from 32 B to 512 MiB: one thick line per family and origin (the best of its
    members at each size), every algorithm as a thin grey line behind them; below, the gain of
    the best paper algorithm over the best baseline (the inset of swing-nsdi24.txt Fig. 6)."""
    plt = pyplot("--plot")
    from topocoll.simulation import origin

    fig, (ax, gain_ax) = plt.subplots(
        2, 1, figsize=(10, 8), sharex=True, gridspec_kw={"height_ratios": [3, 1]}
    )
    best = {s.size_bytes: s.best_time_s for s in c.summary}
    rows = [e for e in c.entries if e.kind == "algorithm"]
    worst = 1.0
    for name in c.algorithms:
        mine = [e for e in rows if e.algorithm == name]
        ratios = [e.time_s / best[e.size_bytes] for e in mine]
        worst = max(worst, *ratios)
        ax.plot([e.size_bytes for e in mine], ratios, color="0.8", linewidth=0.7, zorder=1)
    groups: dict[tuple[str, str], list[str]] = {}
    for name in c.algorithms:
        kind = origin(name)
        family = next(e.family for e in rows if e.algorithm == name)
        groups.setdefault((family, kind), []).append(name)
    colors = plt.get_cmap("tab10").colors
    for n, ((family, kind), members) in enumerate(groups.items()):
        sizes = sorted(best)
        envelope = []
        for size in sizes:
            times = [e.time_s for e in rows if e.size_bytes == size and e.algorithm in members]
            envelope.append(min(times) / best[size] if times else float("nan"))
        label = members[0] if len(members) == 1 else f"{family} (best of {len(members)})"
        ax.plot(
            sizes,
            envelope,
            linestyle=ORIGIN_STYLES.get(kind, "-"),
            linewidth=2.2,
            marker="o",
            markersize=3,
            color=colors[n % len(colors)],
            label=f"{label} ({ORIGIN_NAMES.get(kind, kind)})",
            alpha=0.85,
            zorder=2,
        )
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_ylim(0.95, min(worst * 1.1, 64))
    ax.axhline(1.0, color="black", linewidth=0.6)
    ax.set_ylabel("time / fastest at that size (log)")
    ax.set_title(comparison_title(c), fontsize=10)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    gains = [(s.size_bytes, s.gain) for s in c.summary if s.gain is not None]
    if gains:
        gain_ax.plot([g[0] for g in gains], [g[1] for g in gains], color="black", marker=".")
    gain_ax.axhline(1.0, color="grey", linewidth=0.5)
    gain_ax.set_ylabel("gain (x)")
    gain_ax.set_xlabel("vector size (bytes)")
    gain_ax.set_title("goodput of the best paper algorithm / best baseline", fontsize=9)
    gain_ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)


def plot_links(path: str, results: dict[str, dict]) -> None:
    """The distribution of link utilization per algorithm (the shape of canary-fgcs24 Fig. 7b):
    the share of links in each 10% utilization bin."""
    plot_shares(path, {name: utilization_shares(r["links"]) for name, r in results.items()})


def plot_shares(path: str, shares: dict[str, list[float]], title: str = "") -> None:
    plt = pyplot("--plot")
    fig, ax = plt.subplots(figsize=(6, 4))
    for name, values in shares.items():
        ax.plot([10 * b + 5 for b in range(10)], values, marker="o", label=name)
    if title:
        ax.set_title(title, fontsize=9)
    ax.set_xlabel("link utilization (%)")
    ax.set_ylabel("links (%)")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path)
