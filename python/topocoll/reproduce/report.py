"""Markdown tables of the verdicts under an output folder of `topocoll reproduce` (the tables of
docs/reproduction.md): python -m topocoll.reproduce.report DIR [DIR2] (DIR2: a second scale,
whose values are added as a column)."""

from __future__ import annotations

import json
import sys
from pathlib import Path


def load(folder: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in sorted(folder.glob("*/verdict.json"))}


def fmt(x) -> str:
    if isinstance(x, float):
        return f"{x:.4g}"
    return "-" if x is None else str(x)


def main(argv: list[str]) -> int:
    first = load(Path(argv[0]))
    second = load(Path(argv[1])) if len(argv) > 1 else {}
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
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
