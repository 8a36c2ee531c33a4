"""`topocoll reproduce`: one experiment per figure or table of the seed papers. Each writes CSV,
a PNG shaped like the paper's figure and verdict.json (per claim: the paper's value, ours, the
tolerance, agree/differ). The claims are data: claims/<paper>.json."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

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


def run_one(experiment: Experiment, scale: str, jobs: int, out: Path) -> dict:
    folder = out / experiment.name
    folder.mkdir(parents=True, exist_ok=True)
    ctx = Context(scale=scale, jobs=jobs, out=folder)
    start = time.monotonic()
    results = experiment.run(ctx)
    seconds = time.monotonic() - start
    (folder / "results.json").write_text(json.dumps(results, indent=1, sort_keys=True))
    v = verdict(experiment, results, ctx, seconds)
    (folder / "verdict.json").write_text(json.dumps(v, indent=1))
    return v


def print_list() -> None:
    print(f"{'experiment':18} {'paper':9} {'figure':16} {'small':>7} {'paper':>8}  claims  what")
    for e in experiments():
        est = e.estimate_s
        print(f"{e.name:18} {e.paper:9} {e.figure:16} {est.get('small', 0):>6.0f}s "
              f"{est.get('paper', 0):>7.0f}s  {len(claims_of(e)):>6}  {e.what}")  # fmt: skip


def command(args: argparse.Namespace) -> int:
    if args.list:
        print_list()
        return 0
    if args.scale not in SCALES:
        raise ValueError(f"--scale {args.scale}; accepted: {', '.join(SCALES)}")
    if not 1 <= args.jobs <= 64:
        raise ValueError(f"--jobs {args.jobs} out of range; accepted: 1..64")
    chosen = select(args.names)
    out = Path(args.out)
    summary = []
    for e in chosen:
        print(f"{e.name} ({e.paper} {e.figure}, scale {args.scale}) ...", file=sys.stderr)
        v = run_one(e, args.scale, args.jobs, out)
        summary.append(v)
        for c in v["claims"]:
            print(f"  {c['verdict']:26} {c['id']}: paper {c['paper']} {c['unit']}, "
                  f"ours {c['ours']}")  # fmt: skip
        print(f"  {v['agree']} agree, {v['differ']} differ, {v['seconds']:.1f} s")
    agree = sum(v["agree"] for v in summary)
    differ = sum(v["differ"] for v in summary)
    claims = sum(len(v["claims"]) for v in summary)
    (out / "summary.json").write_text(json.dumps(
        {"scale": args.scale, "agree": agree, "differ": differ, "claims": claims,
         "experiments": [{k: v[k] for k in ("experiment", "agree", "differ", "seconds")}
                         for v in summary]}, indent=1))  # fmt: skip
    print(f"{claims} claims: {agree} agree, {differ} differ, {claims - agree - differ} not judged")
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
        print(f"topocoll reproduce: {e}", file=sys.stderr)
        return 2
