"""The experiments of `topocoll reproduce`: one per figure or table of the seed papers. Each
writes CSV, a PNG shaped like the paper's figure (matplotlib: the `plot` extra) and verdict.json
(per claim: the paper's value, ours, the tolerance, agree/differ). The claims are data:
claims/<paper>.json. The command line is topocoll.cli.reproduce."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

from topocoll.errors import InputError
from topocoll.parallel import broadcast

from .core import Context, Experiment, claims_of, verdict
from .journal import FOLDER as JOURNAL_FOLDER
from .journal import UnitJournal, build_fingerprint


def experiments() -> list[Experiment]:
    from . import (
        bine,
        bine_nodes,
        bine_sota,
        bine_swing_allgather,
        canary,
        cm200,
        cm200_speedups,
        swing,
        trivance,
    )

    return [*swing.EXPERIMENTS, *trivance.EXPERIMENTS, *cm200.EXPERIMENTS,
            *cm200_speedups.EXPERIMENTS, *canary.EXPERIMENTS, *bine.EXPERIMENTS,
            *bine_swing_allgather.EXPERIMENTS, *bine_sota.EXPERIMENTS,
            *bine_nodes.EXPERIMENTS]  # fmt: skip


def select(names: list[str]) -> list[Experiment]:
    known = experiments()
    if not names or names == ["all"]:
        return known
    by_name = {e.name: e for e in known}
    chosen = []
    for name in names:
        # a paper's stem (swing, canary, ...) selects all its experiments
        matches = [by_name[name]] if name in by_name else [e for e in known if e.paper == name]
        if not matches:
            raise ValueError(
                f"unknown experiment '{name}'; accepted: all, a paper "
                f"({', '.join(sorted({e.paper for e in known}))}) or one of: "
                f"{', '.join(by_name)}"
            )
        chosen += [m for m in matches if m not in chosen]
    return chosen


def run_one(
    experiment: Experiment,
    scale: str,
    jobs: int,
    out: Path,
    world=None,
    machine=None,
    runs: Path | None = None,
    resume: bool = False,
    kept: Path | None = None,
) -> dict:
    """Runs one experiment; `machine` (reproduce --machine) replaces the machine files of the
    experiments that run on one (Context.machine_for); `runs` (reproduce --from-runs) is the
    folder of stored runs a summary reads (check_from_runs). Its finished units of work are
    written down in `kept/<name>/units` (default `out`: under mpirun every rank's own file in
    rank 0's --out folder), and with `resume` those of an earlier run by the same build are
    not run again (journal.py)."""
    folder = out / experiment.name
    folder.mkdir(parents=True, exist_ok=True)
    identity = {"experiment": experiment.name, "scale": scale, "machine": machine,
                "build": build_fingerprint(machine)}  # fmt: skip
    journal = UnitJournal((kept or out) / experiment.name / JOURNAL_FOLDER, identity, resume,
                          world)  # fmt: skip
    ctx = Context(scale=scale, jobs=jobs, out=folder, world=world, machine=machine, runs=runs,
                  journal=journal)  # fmt: skip
    start = time.monotonic()
    results = experiment.run(ctx)
    seconds = time.monotonic() - start
    (folder / "results.json").write_text(json.dumps(results, indent=1, sort_keys=True))
    v = verdict(experiment, results, ctx, seconds)
    (folder / "verdict.json").write_text(json.dumps(v, indent=1))
    return v


def check_from_runs(chosen: list[Experiment], folder: Path) -> None:
    """InputError unless every chosen experiment summarises others (reads their stored runs
    with --from-runs) and `folder` is a folder."""
    rerun = [e.name for e in chosen if not e.summarises]
    if rerun:
        summaries = [e.name for e in experiments() if e.summarises]
        raise InputError(
            f"--from-runs: {', '.join(rerun)} summarise(s) no other experiment; accepted: "
            f"{', '.join(summaries)}"
        )
    if not folder.is_dir():
        raise InputError(
            f"--from-runs {folder}: not a folder; accepted: the --out folder of the runs a "
            "summary reads, or docs/reproduction/<scale>"
        )


# Runs estimated longer than this (the sum of the experiments' `--list` estimates) need --force.
TIME_LIMIT_S = 600


def estimated_seconds(chosen: list[Experiment], scale: str) -> float:
    """The run's estimate: the sum of the chosen experiments' measured times at `scale` (the
    figures `--list` shows)."""
    return float(sum(e.estimate_s.get(scale, 0) for e in chosen))


def check_estimate(chosen: list[Experiment], scale: str, force: bool) -> None:
    """InputError for a run estimated beyond TIME_LIMIT_S, naming the estimate, unless forced."""
    seconds = estimated_seconds(chosen, scale)
    if seconds <= TIME_LIMIT_S or force:
        return
    longest = sorted(chosen, key=lambda e: -e.estimate_s.get(scale, 0))[:3]
    named = ", ".join(f"{e.name} {e.estimate_s.get(scale, 0):.0f} s" for e in longest)
    raise InputError(
        f"--scale {scale}: the {len(chosen)} experiment(s) are estimated at {seconds:.0f} s "
        f"(longest: {named}; `--list` shows every estimate), more than {TIME_LIMIT_S} s; "
        "choose fewer experiments, or add --force to run them anyway"
    )


def print_list(chosen: list[Experiment] | None = None) -> None:
    """The experiments (all, or those chosen) with their estimates at both scales."""
    known = experiments() if chosen is None else chosen
    width = max(len(e.figure) for e in known)  # the columns stay aligned
    head = f"{'experiment':18} {'paper':9} {'figure':{width}} {'small':>7} {'paper':>8}"
    print(f"{head}  claims  what")
    for e in known:
        est = e.estimate_s
        print(f"{e.name:18} {e.paper:9} {e.figure:{width}} {est.get('small', 0):>6.0f}s "
              f"{est.get('paper', 0):>7.0f}s  {len(claims_of(e)):>6}  {e.what}")  # fmt: skip


def prepare_out(out: Path, world) -> None:
    """Creates the output folder (rank 0, the only one that writes there); a failure is raised
    on every rank, before any experiment runs."""
    problem = None
    if world is None or world[1] == 0:
        try:
            out.mkdir(parents=True, exist_ok=True)
        except OSError as error:
            problem = f"--out {out}: cannot create it ({error.strerror or error})"
    problem = broadcast(problem, world)
    if problem:
        raise InputError(f"{problem}; accepted: a folder that can be created and written")


# The papers whose stored runs `rejudge` reads back by default, and every paper it can (their
# modules' results_from_csv).
REJUDGED = ("swing", "trivance", "canary")
REJUDGEABLE = (*REJUDGED, "bine")


def rejudge(folder: Path, papers: tuple[str, ...] = REJUDGED) -> list[dict]:
    """Judges stored runs again by today's claims and rules, without running them: for each
    NAME.verdict.json of `folder` (docs/reproduction/paper's layout) of one of `papers`, the
    results are the stored values of its claims' keys, replaced by what today's code computes
    from the stored NAME-gain.csv or NAME.csv (crossovers, win rules, trends, ratios); the
    verdict is rewritten with the stored scale and seconds. Returns the new verdicts."""
    from . import bine, canary, swing, trivance

    modules = {"swing": swing, "trivance": trivance, "canary": canary, "bine": bine}
    by_name = {e.name: e for e in experiments()}
    out = []
    for path in sorted(folder.glob("*.verdict.json")):
        name = path.name.removesuffix(".verdict.json")
        experiment = by_name.get(name)
        if experiment is None or experiment.paper not in papers:
            continue
        old = json.loads(path.read_text(encoding="utf-8"))
        results = {c["key"]: c["ours"] for c in old["claims"]}
        for stored in (folder / f"{name}-gain.csv", folder / f"{name}.csv"):
            if stored.is_file():
                with stored.open(newline="") as f:
                    rows = list(csv.DictReader(f))
                results.update(modules[experiment.paper].results_from_csv(name, rows))
        runs = old.get("from_runs")  # a summary keeps the runs it was made from
        ctx = Context(scale=old["scale"], jobs=1, out=folder, runs=Path(runs) if runs else None)
        v = verdict(experiment, results, ctx, old["seconds"])
        path.write_text(json.dumps(v, indent=1))
        out.append(v)
    return out
