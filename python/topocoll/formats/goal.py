"""LogGOPSim's GOAL text out (docs/interchange.md, "GOAL out")."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from topocoll import _core

GOAL_DEFAULT_SIZE = 1 << 20


@dataclass
class GoalOp:
    label: str
    line: str
    requires: list[str] = field(default_factory=list)


def _lanes(doc: dict) -> list[list[list[dict]]]:
    """Per rank, per lane, the steps as {"ops": [...], "after": [[lane, step], ...]}."""
    if doc["version"] == 1:
        return [[[{"ops": s, "after": []} for s in steps]] for steps in doc["steps"]]
    out = []
    for lanes in doc["lanes"]:
        rank = []
        for lane in lanes:
            rank.append([s if isinstance(s, dict) else {"ops": s, "after": []} for s in lane])
        out.append(rank)
    return out


def _count(blocks: list[list[int]]) -> int:
    return sum(end - begin for begin, end in blocks)


def goal_document(
    schedule: _core.Schedule, size: int = GOAL_DEFAULT_SIZE, reduce_ns_per_byte: float = 0.0
) -> str:
    """The schedule as LogGOPSim GOAL text (grammar in docs/interchange.md, "GOAL out").

    A block is size // blocks bytes. Every operation is one statement; a reduction adds a
    `calc` of bytes x reduce_ns_per_byte nanoseconds (rounded) that requires its receive or
    stands for the local reduction; a local copy is a `calc 0`. A statement requires every
    statement of the step before it in its lane and of the steps its `after` names (through
    empty steps); the `calc` of an after-receives copy also requires the step's receives and
    reductions. Tags number the messages of each (sender, receiver, port) in order."""
    doc = json.loads(schedule.to_json())
    ranks, blocks, ports = doc["ranks"], doc["blocks"], doc.get("ports", 1)
    block_bytes = max(size // blocks, 0)
    lanes = _lanes(doc)
    sent: dict[tuple[int, int, int], int] = {}
    received: dict[tuple[int, int, int], int] = {}
    lines = [f"num_ranks {ranks}"]
    for rank in range(ranks):
        ops = _rank_goal(rank, lanes[rank], block_bytes, reduce_ns_per_byte, ports, sent, received)
        lines.append(f"rank {rank} {{")
        for op in ops:
            lines.append(f"{op.label}: {op.line}")
        for op in ops:
            lines.extend(f"{op.label} requires {r}" for r in op.requires)
        lines.append("}")
    return "\n".join(lines) + "\n"


def _vertices(op: dict) -> int:
    """GOAL statements of one operation: a receive that reduces has its `calc` too."""
    return 2 if op["op"] == "recv" and op.get("combine", "copy") == "reduce" else 1


def _rank_goal(rank, lanes, block_bytes, ns_per_byte, ports, sent, received) -> list[GoalOp]:
    # Labels go lane by lane, step by step, operation by operation (a reduction's calc right
    # after its recv); dependencies and tags follow the order the steps can run in.
    first: dict[tuple[int, int], int] = {}
    count = 0
    for lane, steps in enumerate(lanes):
        for k, step in enumerate(steps):
            first[(lane, k)] = count
            count += sum(_vertices(op) for op in step["ops"])
    ops: list[GoalOp | None] = [None] * count
    # Per (lane, step): the labels whose completion completes the step (through empty steps).
    done: dict[tuple[int, int], list[str]] = {}
    for lane, k in _step_order(lanes):
        step = lanes[lane][k]
        before: list[str] = []
        if k > 0:
            before += done[(lane, k - 1)]
        for other_lane, other_step in step.get("after", []):
            before += done[(other_lane, other_step)]
        before = list(dict.fromkeys(before))
        mine: list[str] = []
        received_here: list[str] = []
        late: list[GoalOp] = []
        at = first[(lane, k)]
        for op in step["ops"]:
            n = _count(op["blocks"]) * block_bytes
            label = f"l{at + 1}"
            port = op.get("port", 0)
            mine.append(label)
            if op["op"] == "send":
                key = (rank, op["peer"], port)
                seq = sent.get(key, 0)
                sent[key] = seq + 1
                line = f"send {n}b to {op['peer']} tag {seq * ports + port}"
                ops[at] = GoalOp(label, line, before)
            elif op["op"] == "recv":
                key = (op["peer"], rank, port)
                seq = received.get(key, 0)
                received[key] = seq + 1
                line = f"recv {n}b from {op['peer']} tag {seq * ports + port}"
                ops[at] = GoalOp(label, line, before)
                received_here.append(label)
                if _vertices(op) == 2:
                    calc = GoalOp(f"l{at + 2}", f"calc {round(n * ns_per_byte)}", [label])
                    ops[at + 1] = calc
                    mine.append(calc.label)
                    received_here.append(calc.label)
            else:
                cost = round(n * ns_per_byte) if op.get("combine", "copy") == "reduce" else 0
                ops[at] = GoalOp(label, f"calc {cost}", before)
                if op.get("reads") == "after-receives":
                    late.append(ops[at])
            at += _vertices(op)
        for calc in late:
            calc.requires = list(dict.fromkeys(calc.requires + received_here))
        done[(lane, k)] = mine if mine else before
    return [op for op in ops if op is not None]


def _step_order(lanes) -> list[tuple[int, int]]:
    """Every (lane, step) after the steps it waits for (Kahn's order over lanes and `after`)."""
    remaining = {(lane, k) for lane in range(len(lanes)) for k in range(len(lanes[lane]))}
    placed: set[tuple[int, int]] = set()
    order: list[tuple[int, int]] = []
    position = [0] * len(lanes)
    while remaining:
        progressed = False
        for lane in range(len(lanes)):
            while position[lane] < len(lanes[lane]):
                k = position[lane]
                waits = [tuple(a) for a in lanes[lane][k].get("after", [])]
                if any(w not in placed for w in waits):
                    break
                order.append((lane, k))
                placed.add((lane, k))
                remaining.discard((lane, k))
                position[lane] += 1
                progressed = True
        if not progressed:
            raise ValueError("the schedule's lanes wait for each other in a cycle; no GOAL order")
    return order
