"""Markdown tables of the verdicts under an output folder of `topocoll reproduce` (the tables of
docs/reproduction.md): python -m topocoll.reproduce.report DIR [DIR2] (DIR2: a second scale,
whose values are added as a column), with the counts per kind of claim; `--rejudge DIR
[PAPER ...]` judges the stored runs of DIR (docs/reproduction/paper's NAME.verdict.json beside
its CSV) of those papers (default: swing, trivance, canary) again by today's claims and rules
and prints the counts."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from topocoll.errors import one_line

USAGE = "python -m topocoll.reproduce.report DIR [DIR2] | --rejudge DIR [PAPER ...]"
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


RELATION = {"equal": "", "at_least": ">= ", "at_most": "<= ", "crossover": "crossover ",
            "trend": "trend "}  # fmt: skip


def paper_cell(c: dict, tol: str) -> str:
    """The paper's value as the claim judges it: wins/loses say the rule, not a bound."""
    if c["relation"] == "wins":
        lower = "" if c["paper"] == 1 else f"; the paper's lower end {fmt(c['paper'])} {c['unit']}"
        return f"a win (> 1% faster{lower.rstrip()})"
    if c["relation"] == "loses":
        return "a loss (> 1% slower)"
    if c["relation"] == "trend":
        return {1: "grows", -1: "shrinks"}.get(c["paper"], "flat")
    rel = RELATION.get(c["relation"], "")
    return f"{rel}{fmt(c['paper'])} {c['unit']}".strip() + (f" ({tol})" if tol else "")


def fmt(x) -> str:
    if isinstance(x, float):
        return f"{x:.4g}"
    return "-" if x is None else str(x)


def main(argv: list[str]) -> int:
    if argv[:1] == ["--rejudge"]:
        return rejudge_main(argv[1:])
    if not 1 <= len(argv) <= 2:
        print(f"error: usage: {USAGE}", file=sys.stderr)
        return 2
    try:
        first = load(Path(argv[0]))
        second = load(Path(argv[1])) if len(argv) > 1 else {}
        print_tables(first, second)
        print_counts(first, "first folder")
        if second:
            print_counts(second, "second folder")
    except (ValueError, TypeError, AttributeError, KeyError) as error:
        # Beyond ReportError: a verdict whose values are not of the kinds written.
        print(f"error: {one_line(error)}", file=sys.stderr)
        return 2
    return 0


def rejudge_main(argv: list[str]) -> int:
    from . import REJUDGEABLE, REJUDGED, rejudge

    if not argv or not Path(argv[0]).is_dir():
        print(f"error: usage: {USAGE} (DIR: an existing folder)", file=sys.stderr)
        return 2
    papers = tuple(argv[1:]) or REJUDGED
    unknown = [p for p in papers if p not in REJUDGEABLE]
    if unknown:
        print(f"error: --rejudge: paper {', '.join(unknown)}; accepted: "
              f"{', '.join(REJUDGEABLE)}", file=sys.stderr)  # fmt: skip
        return 2
    try:
        verdicts = rejudge(Path(argv[0]), papers)
    except (OSError, ValueError, TypeError, KeyError, AttributeError) as error:
        # a stored verdict or CSV that is not one the experiments wrote
        print(f"error: {argv[0]}: {one_line(error)}; accepted: a folder of NAME.verdict.json "
              "and NAME.csv as reproduce writes them", file=sys.stderr)  # fmt: skip
        return 2
    print_counts({v["experiment"]: v for v in verdicts}, argv[0])
    return 0


def counts(verdicts: dict[str, dict]) -> dict[str, dict[str, int]]:
    """Claims, agree, differ and not judged per kind of claim (and "all") over the verdicts."""
    rows = [c for v in verdicts.values() for c in v["claims"]]
    total: dict[str, dict[str, int]] = {}
    for c in rows:
        for kind in (c.get("kind", "performance"), "all"):
            k = total.setdefault(kind, {"claims": 0, "agree": 0, "differ": 0, "not judged": 0})
            k["claims"] += 1
            k[c["verdict"] if c["verdict"] in ("agree", "differ") else "not judged"] += 1
    return total


def print_counts(verdicts: dict[str, dict], label: str) -> None:
    print(f"\nCounts ({label}):")
    for kind, k in sorted(counts(verdicts).items()):
        print(f"- {kind}: {k['claims']} claims, {k['agree']} agree, {k['differ']} differ, "
              f"{k['not judged']} not judged")  # fmt: skip


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
            paper = paper_cell(c, tol)
            row = f"| {c['id']}: {c['claim']} | {c['where']} | {paper} | {fmt(c['ours'])} | "
            row += f"{c['verdict']} |"
            if second:
                o = other.get(c["id"])
                row += f" {fmt(o['ours']) if o else 'not run'} | {o['verdict'] if o else '-'} |"
            print(row)
        print_notes(v["claims"])


def notes_block(claims: list[dict]) -> str:
    """The claims' notes (the reading behind a value, a tolerance wider than the default),
    one item per claim that has one, under a table; "" when none has."""
    items = [f"- {c['id']}: {c['note']}" for c in claims if c.get("note")]
    return "\n".join(["Notes:", "", *items]) if items else ""


def print_notes(claims: list[dict]) -> None:
    block = notes_block(claims)
    if block:
        print(f"\n{block}")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
