"""The per-size gains that Swing Figs. 6-14 stored (their `summary_rows` CSVs), read back for
Fig. 15, the summary over their scenarios, so that `reproduce swing-fig15 --from-runs DIR` judges
its claims on the machine-file runs of those figures instead of rerunning hours of sweeps.

A folder is either a `reproduce --out` folder (DIR/swing-fig7/fig7.csv) or the flat layout of
docs/reproduction/<scale>/ (DIR/swing-fig7.csv); each figure's verdict.json names the scale it
ran at, which must be the scale asked for."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace

from topocoll.errors import InputError
from topocoll.simulation import parse_size

# Per figure: the stem of its gain CSV and how a row's case names the sweep it came from
# (topology, link bandwidth option or None), as the figures' code labels them (swing.py).
Key = tuple[str, str | None]
GAIN_TABLES: dict[str, tuple[str, Callable[[str], Key]]] = {
    "swing-fig6": ("fig6-gain", lambda case: (case, None)),
    "swing-fig7": ("fig7", lambda case: (f"torus:{case}", None)),
    "swing-fig8": ("fig8", lambda case: ("torus:8x8", case)),
    "swing-fig10": ("fig10", lambda case: (f"torus:{case}", None)),
    "swing-fig11": ("fig11", lambda case: (f"torus:{case}", None)),
    "swing-fig12": ("fig12-gain", lambda case: (case, None)),
    "swing-fig13": ("fig13-gain", lambda case: (case, None)),
    "swing-fig14": ("fig14-gain", lambda case: (case, None)),
}


def summaries_by_case(rows: list[dict]) -> dict[str, SimpleNamespace]:
    """A stored summary CSV's rows (columns case, size_bytes, gain, best_baseline) as the
    comparisons they came from, by case: each with the `summary` the figures read (size_bytes,
    gain, best_baseline per size), in the order the cases appear, sizes ascending."""
    cases: dict[str, SimpleNamespace] = {}
    for r in rows:
        gain = float(r["gain"]) if r["gain"] not in ("", "None") else None
        # A gain is a ratio of two times: NaN, infinity or a value <= 0 was never simulated.
        if gain is not None and not (math.isfinite(gain) and gain > 0):
            raise ValueError(f"gain {r['gain']!r} is not a positive number")
        point = SimpleNamespace(size_bytes=parse_size(r["size_bytes"], "size_bytes"), gain=gain,
                                best_baseline=r.get("best_baseline") or None)  # fmt: skip
        cases.setdefault(r["case"], SimpleNamespace(summary=[])).summary.append(point)
    for c in cases.values():
        c.summary.sort(key=lambda p: p.size_bytes)
    return cases


def stored_file(folder: Path, experiment: str, name: str) -> Path | None:
    """`name` of `experiment` in either layout, or None: DIR/swing-fig7/fig7.csv and
    DIR/swing-fig7/verdict.json, or DIR/swing-fig7.csv and DIR/swing-fig7.verdict.json."""
    paper = experiment.partition("-")[0]
    flat = f"{experiment}.verdict.json" if name == "verdict.json" else f"{paper}-{name}"
    for path in (folder / experiment / name, folder / flat):
        if path.is_file():
            return path
    return None


def stored_sweeps(folder: Path, scale: str) -> dict[Key, SimpleNamespace]:
    """Every stored sweep in `folder`, by (topology, bandwidth); where two figures ran the same
    sweep (8x8 in Figs. 7 and 11, 64x64 in Figs. 6 and 7) the first in figure order is kept."""
    sweeps: dict[Key, SimpleNamespace] = {}
    for experiment, (stem, key_of) in GAIN_TABLES.items():
        table = stored_file(folder, experiment, f"{stem}.csv")
        if table is None:
            continue
        check_scale(folder, experiment, scale)
        try:
            with table.open(newline="") as f:
                cases = summaries_by_case(list(csv.DictReader(f)))
        except (KeyError, ValueError, TypeError) as e:
            raise InputError(
                f"--from-runs {table}: not a gain table ({type(e).__name__}: {e}); accepted: "
                "the CSV a figure writes (columns case, size_bytes, gain)"
            ) from e
        for case, sweep in cases.items():
            sweeps.setdefault(key_of(case), sweep)
    return sweeps


def check_scale(folder: Path, experiment: str, scale: str) -> None:
    verdict = stored_file(folder, experiment, "verdict.json")
    if verdict is None:
        raise InputError(
            f"--from-runs {folder}: {experiment}'s verdict.json is missing, so its scale is "
            "unknown; accepted: a folder with each figure's CSV and verdict.json"
        )
    try:
        ran = json.loads(verdict.read_text()).get("scale")
    except (ValueError, AttributeError) as e:  # not UTF-8, not JSON, or not an object
        raise InputError(
            f"--from-runs {verdict}: not a verdict ({type(e).__name__}); accepted: the "
            "verdict.json a reproduce run writes"
        ) from e
    if ran != scale:
        raise InputError(
            f"--from-runs {folder}: {experiment} ran at scale {ran}, not {scale}; accepted: "
            f"runs at --scale {scale}"
        )


def stored_sweep(sweeps: dict[Key, SimpleNamespace], folder: Path, topology: str,
                 bandwidth: str | None) -> SimpleNamespace:  # fmt: skip
    found = sweeps.get((topology, bandwidth))
    if found is None:
        raise InputError(
            f"--from-runs {folder}: no stored sweep of {topology}"
            + (f" at {bandwidth}" if bandwidth else "")
            + f"; accepted: a folder with the gain CSVs of {', '.join(GAIN_TABLES)} "
            "(their --out folder, or docs/reproduction/<scale>)"
        )
    return found
