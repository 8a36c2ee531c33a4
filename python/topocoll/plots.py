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


def plot_comparison(c: Comparison, path: str) -> None:
    """Goodput vs size, one line per algorithm (log x), and below it the gain of the best paper
    algorithm over the best baseline (the inset of swing-nsdi24.txt Fig. 6)."""
    plt = pyplot("--plot")
    fig, (ax, gain_ax) = plt.subplots(
        2, 1, figsize=(11, 7.5), sharex=True, gridspec_kw={"height_ratios": [3, 1]}
    )
    colors = plt.get_cmap("tab20").colors
    for n, name in enumerate(c.algorithms):
        rows = [e for e in c.entries if e.algorithm == name]
        ax.plot(
            [e.size_bytes for e in rows],
            [e.goodput_gbps for e in rows],
            marker="o",
            markersize=3,
            linestyle="-" if rows[0].paper else "--",
            color=colors[n % len(colors)],
            label=name,
        )
    ax.set_xscale("log", base=2)
    ax.set_ylabel("goodput (Gb/s)")
    ax.set_title(
        f"{c.collective} on {c.topology} ({c.ranks} ranks), {c.model} model; solid: paper "
        f"algorithms, dashed: baselines; peak {c.peak_goodput_gbps:.0f} Gb/s"
    )
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    gains = [(s.size_bytes, s.gain) for s in c.summary if s.gain is not None]
    if gains:
        gain_ax.plot([g[0] for g in gains], [g[1] for g in gains], color="black", marker=".")
    gain_ax.axhline(1.0, color="grey", linewidth=0.5)
    gain_ax.set_ylabel("gain (x)")
    gain_ax.set_xlabel("vector size (bytes)")
    gain_ax.set_title("best paper algorithm / best baseline", fontsize=9)
    gain_ax.grid(True, which="both", alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
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
