"""Allgather of the Bine strategies against recdoub-bw on MareNostrum 5 (docs/efficiency.md,
"Found defects"): the node counts and sizes of `reproduce bine-table5`, one random allocation
per node count (seed 1, ranks in node order), the machine file `marenostrum5`; a win or a loss
is a difference of more than 1% (bine-trees-sc25.txt section 5.1).

    .venv/bin/python bench/bine_table5_allgather.py
"""

import tempfile
from pathlib import Path

import topocoll
from topocoll.groups import random_nodes

rows = []
for n in (16, 32, 64):
    path = str(Path(tempfile.gettempdir()) / f"bine-table5-allocation-{n}.csv")
    open(path, "w").write("".join(f"{r},{v}\n" for r, v in enumerate(random_nodes(n, 1280, 1))))
    for k in range(10, 27, 2):
        t = {
            a: topocoll.simulate(
                "fattree:2:8:160:80",
                "allgather",
                a,
                1 << k,
                machine="marenostrum5",
                ranks=n,
                mapping=path,
            ).time_s
            for a in ("recdoub-bw", "bine-bw", "bine-bw-send-wait", "bine-bw-permute")
        }
        rows.append((n, k, t))
        print(n, f"2^{k}", " ".join(f"{a}={v * 1e6:.1f}" for a, v in t.items()), flush=True)


def wins(a: str) -> tuple[int, int]:
    won = sum(1 for n, k, t in rows if t["recdoub-bw"] / t[a] > 1.01)
    lost = sum(1 for n, k, t in rows if t[a] / t["recdoub-bw"] > 1.01)
    return won, lost


for a in ("bine-bw", "bine-bw-send-wait", "bine-bw-permute"):
    print(a, "wins, losses of 27:", wins(a))
