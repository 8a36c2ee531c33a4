"""`topocoll reproduce`: one experiment per figure or table of the seed papers (topocoll.reproduce)
rerun, with a verdict per claim."""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import traceback
from pathlib import Path

from topocoll.errors import one_line, require
from topocoll.machine import load_machine
from topocoll.parallel import MAX_THREADS, mpi_world
from topocoll.reproduce import (
    check_estimate,
    check_from_runs,
    prepare_out,
    print_list,
    run_one,
    select,
)
from topocoll.reproduce.core import SCALES, Experiment


def run(args: argparse.Namespace) -> int:
    # Under mpirun with several processes every rank runs the experiments' code, each runs its
    # share of their units of work (core.Context.map, .compare, canary.Deferred) and gets the
    # merged results; rank 0 alone prints and writes DIR, the others write into a scratch
    # folder. Bad input is found by every rank before any communication.
    world = mpi_world("reproduce")
    if args.list:  # NAME...: those experiments only (a paper's stem: its experiments)
        chosen = select(args.names)
        if world is None or world[1] == 0:
            print_list(chosen)
        return 0
    if args.scale not in SCALES:
        raise ValueError(f"--scale {args.scale}; accepted: {', '.join(SCALES)}")
    if not 1 <= args.jobs <= MAX_THREADS:
        raise ValueError(f"--jobs {args.jobs} out of range; accepted: 1..{MAX_THREADS}")
    if not args.out:
        raise ValueError("--out: the path is empty; accepted: a folder path")
    chosen = select(args.names)
    if getattr(args, "machine", None) is not None:
        load_machine(args.machine)  # a bad file is exit 2 before any experiment runs
    runs = getattr(args, "from_runs", None)
    if runs == "":
        raise ValueError("--from-runs: the path is empty; accepted: a folder path")
    if runs is not None:  # a summary of stored runs simulates nothing: no estimate applies
        check_from_runs(chosen, Path(runs))
    else:
        check_estimate(chosen, args.scale, args.force)  # before any experiment runs
    require("matplotlib", "reproduce")  # every experiment draws its figure
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
            runs = getattr(args, "from_runs", None)
            v = run_one(e, args.scale, args.jobs, out, world, getattr(args, "machine", None),
                        None if runs is None else Path(runs), getattr(args, "resume", False),
                        Path(args.out))  # fmt: skip
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
    p.add_argument(
        "--list", action="store_true", help="list the experiments (or the NAMEs given) and exit"
    )
    p.add_argument(
        "--machine",
        help="run every experiment that simulates on a machine file on this one (a shipped name "
        "or a file, e.g. a calibrated machine) instead of its paper's; default: each paper's",
    )
    p.add_argument(
        "--force", action="store_true", help="run even beyond the estimate's limit (10 minutes)"
    )
    p.add_argument(
        "--resume",
        action="store_true",
        help="reuse the units of work an earlier, stopped run into the same --out finished "
        "(kept in <out>/<experiment>/units by the same build and machine files); default: "
        "run every unit",
    )
    p.add_argument(
        "--from-runs",
        metavar="DIR",
        help="summaries only (swing-fig15): read the stored results of the experiments they "
        "summarise from DIR (an --out folder or docs/reproduction/<scale>), not rerun them",
    )


def register(sub) -> None:
    p = sub.add_parser("reproduce", help="rerun the papers' figures and tables")
    add_arguments(p)
    p.set_defaults(run=run)


def main(argv: list[str] | None = None) -> int:
    """`python -m topocoll.reproduce ARGS`: the same as `topocoll reproduce ARGS`."""
    p = argparse.ArgumentParser(prog="topocoll reproduce", description=__doc__.splitlines()[0])
    add_arguments(p)
    args = p.parse_args(argv)
    try:
        return run(args)
    except (ValueError, OSError, TypeError) as e:
        print(f"topocoll reproduce: {one_line(e)}", file=sys.stderr)
        return 2
