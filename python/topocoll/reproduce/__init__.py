"""`topocoll reproduce`: one experiment per figure or table of the seed papers. Each writes CSV,
a PNG shaped like the paper's figure and verdict.json (per claim: the paper's value, ours, the
tolerance, agree/differ). The claims are data: claims/<paper>.json."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import traceback
from pathlib import Path

from topocoll.cli import one_line
from topocoll.compare import broadcast, mpi_world
from topocoll.shapes import InputError

from .core import SCALES, Context, Experiment, claims_of, verdict


def experiments() -> list[Experiment]:
    from . import bine, canary, cm200, swing, trivance

    return [*swing.EXPERIMENTS, *trivance.EXPERIMENTS, *cm200.EXPERIMENTS, *canary.EXPERIMENTS,
            *bine.EXPERIMENTS]  # fmt: skip


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


def run_one(experiment: Experiment, scale: str, jobs: int, out: Path, world=None) -> dict:
    folder = out / experiment.name
    folder.mkdir(parents=True, exist_ok=True)
    ctx = Context(scale=scale, jobs=jobs, out=folder, world=world)
    start = time.monotonic()
    results = experiment.run(ctx)
    seconds = time.monotonic() - start
    (folder / "results.json").write_text(json.dumps(results, indent=1, sort_keys=True))
    v = verdict(experiment, results, ctx, seconds)
    (folder / "verdict.json").write_text(json.dumps(v, indent=1))
    return v


def print_list() -> None:
    known = experiments()
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


def command(args: argparse.Namespace) -> int:
    # Under mpirun with several processes every rank runs the experiments' code, each runs its
    # share of their units of work (core.Context.map, .compare, canary.Deferred) and gets the
    # merged results; rank 0 alone prints and writes DIR, the others write into a scratch
    # folder. Bad input is found by every rank before any communication.
    world = mpi_world("reproduce")
    if args.list:
        if world is None or world[1] == 0:
            print_list()
        return 0
    if args.scale not in SCALES:
        raise ValueError(f"--scale {args.scale}; accepted: {', '.join(SCALES)}")
    if not 1 <= args.jobs <= 64:
        raise ValueError(f"--jobs {args.jobs} out of range; accepted: 1..64")
    chosen = select(args.names)
    prepare_out(Path(args.out), world)
    if world is None or world[1] == 0:
        return run_all(chosen, args, Path(args.out), world)
    with tempfile.TemporaryDirectory(prefix=f"topocoll-reproduce-rank{world[1]}-") as scratch:
        return run_all(chosen, args, Path(scratch), world)


def run_all(chosen: list[Experiment], args: argparse.Namespace, out: Path, world) -> int:
    report = world is None or world[1] == 0
    try:
        summary = []
        for e in chosen:
            if report:
                print(f"{e.name} ({e.paper} {e.figure}, scale {args.scale}) ...", file=sys.stderr)
            v = run_one(e, args.scale, args.jobs, out, world)
            summary.append(v)
            if not report:
                continue
            for c in v["claims"]:
                print(f"  {c['verdict']:26} {c['id']}: paper {c['paper']} {c['unit']}, "
                      f"ours {c['ours']}")  # fmt: skip
            print(f"  {v['agree']} agree, {v['differ']} differ, {v['seconds']:.1f} s")
        agree = sum(v["agree"] for v in summary)
        differ = sum(v["differ"] for v in summary)
        claims = sum(len(v["claims"]) for v in summary)
        if report:
            (out / "summary.json").write_text(json.dumps(
                {"scale": args.scale, "agree": agree, "differ": differ, "claims": claims,
                 "experiments": [{k: v[k] for k in ("experiment", "agree", "differ", "seconds")}
                                 for v in summary]}, indent=1))  # fmt: skip
            print(f"{claims} claims: {agree} agree, {differ} differ, "
                  f"{claims - agree - differ} not judged")  # fmt: skip
    except Exception as error:
        if world is not None and not getattr(error, "on_every_rank", False):
            # Raised on this rank alone (a write of rank 0, say): the others would wait for it
            # in their next exchange, so it ends them all.
            if isinstance(error, (ValueError, OSError, TypeError)):
                print(f"topocoll reproduce: {one_line(error)}", file=sys.stderr)
                code = 2
            else:
                traceback.print_exc()
                code = 1
            sys.stderr.flush()
            world[0].Abort(code)
        raise
    return 0


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("names", nargs="*", metavar="NAME", help="experiments, papers or all (default)")
    p.add_argument("--scale", default="small", help="small (default, CI) or paper")
    p.add_argument("--jobs", "-j", type=int, default=1, help="local processes/threads (default 1)")
    p.add_argument("--out", default="reproduce-out", help="output folder (default reproduce-out)")
    p.add_argument("--list", action="store_true", help="list the experiments and exit")


def register(subparsers) -> argparse.ArgumentParser:
    """Adds `reproduce` to the `topocoll` subcommands; handler in `run` as the others."""
    p = subparsers.add_parser("reproduce", help="rerun the papers' figures and tables")
    add_arguments(p)
    p.set_defaults(run=command)
    return p


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="topocoll reproduce", description=__doc__.splitlines()[0])
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        return command(args)
    except (ValueError, OSError, TypeError) as e:
        print(f"topocoll reproduce: {one_line(e)}", file=sys.stderr)
        return 2
