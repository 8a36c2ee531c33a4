"""Markdown tables of the verdicts under an output folder of `topocoll reproduce` (the tables of
docs/reproduction.md): python -m topocoll.reproduce.report DIR [DIR2] (DIR2: a second scale,
whose values are added as a column)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from topocoll.errors import one_line

USAGE = "python -m topocoll.reproduce.report DIR [DIR2]"
# The keys the tables read from a verdict.json and from each of its claims.
VERDICT_KEYS = ("scale", "figure", "seconds", "claims")
CLAIM_KEYS = ("id", "claim", "where", "paper", "unit", "ours", "verdict", "tolerance", "relation")


class ReportError(ValueError):
    """An output folder that cannot be reported on (one line naming it)."""


def load(folder: Path) -> dict[str, dict]:
    """The verdicts of an output folder of `topocoll reproduce`; ReportError for a folder that
    is missing, holds none, or holds a verdict.json that is not one."""
    if not folder.is_dir():
        raise ReportError(f"{folder}: not a folder; accepted: an output folder of reproduce")
    out = {}
    for path in sorted(folder.glob("*/verdict.json")):
        try:
            v = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise ReportError(f"{path}: cannot be read as JSON ({error})") from None
        if not isinstance(v, dict) or any(k not in v for k in VERDICT_KEYS):
            raise ReportError(f"{path}: not a verdict; accepted: keys {', '.join(VERDICT_KEYS)}")
        claims = v["claims"]
        if not isinstance(claims, list) or not all(
            isinstance(c, dict) and all(k in c for k in CLAIM_KEYS) for c in claims
        ):
            raise ReportError(f"{path}: a claim lacks a key; accepted: {', '.join(CLAIM_KEYS)}")
        out[path.parent.name] = v
    if not out:
        raise ReportError(f"{folder}: holds no */verdict.json; accepted: an output folder of "
                          "reproduce")  # fmt: skip
    return out


def fmt(x) -> str:
    if isinstance(x, float):
        return f"{x:.4g}"
    return "-" if x is None else str(x)


def main(argv: list[str]) -> int:
    if not 1 <= len(argv) <= 2:
        print(f"error: usage: {USAGE}", file=sys.stderr)
        return 2
    try:
        first = load(Path(argv[0]))
        second = load(Path(argv[1])) if len(argv) > 1 else {}
        print_tables(first, second)
    except (ValueError, TypeError, AttributeError, KeyError) as error:
        # Beyond ReportError: a verdict whose values are not of the kinds written.
        print(f"error: {one_line(error)}", file=sys.stderr)
        return 2
    return 0


def print_tables(first: dict[str, dict], second: dict[str, dict]) -> None:
    for name, v in first.items():
        other = {c["id"]: c for c in second.get(name, {}).get("claims", [])}
        head = f"| claim | where | paper | ours ({v['scale']}) | verdict |"
        if second:
            head += " ours (paper scale) | verdict |"
        print(f"\n**{name}** ({v['figure']}; {v['seconds']:.0f} s at {v['scale']} scale)\n")
        print(head)
        print("|---" * (head.count("|") - 1) + "|")
        for c in v["claims"]:
            tol = ", ".join(f"{k} {t}" for k, t in c["tolerance"].items())
            rel = {"equal": "", "at_least": ">= ", "at_most": "<= "}.get(c["relation"], "")
            paper = f"{rel}{fmt(c['paper'])} {c['unit']}".strip() + (f" ({tol})" if tol else "")
            row = f"| {c['id']}: {c['claim']} | {c['where']} | {paper} | {fmt(c['ours'])} | "
            row += f"{c['verdict']} |"
            if second:
                o = other.get(c["id"])
                row += f" {fmt(o['ours']) if o else 'not run'} | {o['verdict'] if o else '-'} |"
            print(row)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
