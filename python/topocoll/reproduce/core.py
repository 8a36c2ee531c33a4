"""The frame every experiment runs in: its scale, its output folder, the claims of its paper
(data in claims/*.json) and the verdict it writes beside its CSV and PNG."""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from topocoll.comparison import compare
from topocoll.parallel import broadcast, spread_over_ranks

SCALES = ("small", "paper")


@dataclass
class Context:
    scale: str
    jobs: int
    out: Path  # this experiment's folder (on MPI ranks other than 0: a scratch copy)
    world: tuple | None = None  # (comm, rank, size) under mpirun with several processes
    machine: str | None = None  # reproduce --machine: replaces every experiment's machine file

    def machine_for(self, paper_machine: str) -> str:
        """The machine an experiment runs on: its paper's machine file (a name of
        python/topocoll/machines/), unless --machine replaces it."""
        return self.machine or paper_machine

    @property
    def paper(self) -> bool:
        return self.scale == "paper"

    def map(self, run: Callable, items: Iterable) -> list:
        """[run(item) for item in items], the items spread over the MPI ranks and, within a
        rank's share, over --jobs threads (the simulator releases the GIL while it runs, as
        `innet --jobs` relies on); the results on every rank in item order."""

        def run_share(share: list) -> list:
            if self.jobs <= 1 or len(share) <= 1:
                return [run(item) for item in share]
            with ThreadPoolExecutor(max_workers=min(self.jobs, len(share))) as pool:
                return list(pool.map(run, share))

        return spread_over_ranks(list(items), run_share, self.world, everywhere=True)

    def compare(self, topology: str, collective: str, **options):
        """`topocoll.compare` with this run's --jobs, its cases spread over the MPI ranks; the
        comparison on every rank."""
        c = compare(topology, collective, jobs=self.jobs, use_mpi=self.world is not None,
                    **options)  # fmt: skip
        return broadcast(c, self.world)


@dataclass
class Experiment:
    name: str
    paper: str  # the claims file's stem: swing, trivance, cm200, canary, bine
    figure: str  # "Table 2", "Fig. 6", ...
    run: Callable[[Context], dict]  # returns the results the claims' keys name
    estimate_s: dict[str, float] = field(default_factory=dict)  # per scale, measured
    what: str = ""


def load_claims(paper: str) -> dict:
    text = resources.files("topocoll.reproduce").joinpath("claims", f"{paper}.json").read_text()
    return json.loads(text)


def claims_of(experiment: Experiment) -> list[dict]:
    return [
        c for c in load_claims(experiment.paper)["claims"] if c["experiment"] == experiment.name
    ]


def judge(claim: dict, ours: float | None, scale: str) -> str:
    """agree / differ against the claim's tolerance; claims about the paper's sizes only are
    'not judged at small scale' there (the small run uses smaller shapes)."""
    if claim.get("scale") == "paper" and scale != "paper":
        return "not judged at small scale"
    if ours is None or (isinstance(ours, float) and math.isnan(ours)):
        return "differ"
    value, tol = claim["value"], claim.get("tolerance", {})
    relation = claim.get("relation", "equal")
    if relation == "at_least":
        return "agree" if ours >= value - tol.get("abs", 0) else "differ"
    if relation == "at_most":
        return "agree" if ours <= value + tol.get("abs", 0) else "differ"
    if relation == "sign":  # same sign as the paper's value (a trend)
        return "agree" if (ours > 0) == (value > 0) else "differ"
    bound = tol.get("abs", 0.0) + tol.get("rel", 0.0) * abs(value)
    return "agree" if abs(ours - value) <= bound + 1e-12 else "differ"


FORMULA_NAMES = {"log2": math.log2, "log3": lambda x: math.log(x, 3), "sqrt": math.sqrt}


def claim_value(claim: dict, results: dict) -> dict:
    """A claim whose value is a closed form in n (Trivance Table 1) is evaluated at the n the
    experiment ran (results[claim["n_key"]]); the formula is data, evaluated without builtins."""
    if "formula" not in claim:
        return claim
    n = results.get(claim["n_key"])
    if n is None:
        return {**claim, "value": float("nan")}
    value = eval(claim["formula"], {"__builtins__": {}}, {**FORMULA_NAMES, "n": n})  # noqa: S307
    return {**claim, "value": round(float(value), 4)}


def verdict(experiment: Experiment, results: dict, ctx: Context, seconds: float) -> dict:
    rows = []
    for claim in claims_of(experiment):
        claim = claim_value(claim, results)
        ours = results.get(claim["key"])
        rows.append(
            {
                "id": claim["id"],
                "where": claim["where"],
                "claim": claim["claim"],
                "paper": claim["value"],
                "unit": claim.get("unit", ""),
                "relation": claim.get("relation", "equal"),
                "tolerance": claim.get("tolerance", {}),
                "ours": ours,
                "key": claim["key"],
                "verdict": judge(claim, ours, ctx.scale),
                "note": claim.get("note", ""),
            }
        )
    return {
        "experiment": experiment.name,
        "paper": experiment.paper,
        "figure": experiment.figure,
        "scale": ctx.scale,
        "seconds": round(seconds, 2),
        "claims": rows,
        "agree": sum(r["verdict"] == "agree" for r in rows),
        "differ": sum(r["verdict"] == "differ" for r in rows),
    }


def write_csv(path: Path, rows: list[dict]) -> None:
    if not rows:
        path.write_text("")
        return
    keys: list[str] = []
    for row in rows:
        keys += [k for k in row if k not in keys]
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=keys)
        writer.writeheader()
        writer.writerows(rows)


def grid_dims(topology: str) -> list[int]:
    """The grid shape torus algorithms get on a torus, ring, HyperX or HammingMesh spec
    (`hammingmesh:AxB:XxY` is an (A·X) x (B·Y) grid, docs/simulator.md)."""
    kind, *fields = topology.split(":")
    dims = [int(x) for x in fields[0].split("x")]
    if kind == "hammingmesh":
        grid = [int(x) for x in fields[1].split("x")]
        return [d * g for d, g in zip(dims, grid, strict=True)]
    return dims


def accepted(topology: str, algorithm: str, collective: str = "allreduce") -> bool:
    """Whether the algorithm builds on this grid (the figures skip it elsewhere)."""
    from topocoll import _core

    dims = grid_dims(topology)
    try:
        _core.build(algorithm, collective, math.prod(dims), dims, 0, 0)
    except ValueError:
        return False
    return True


def size_label(size: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size >> shift}{unit}"
    return f"{size}B"
