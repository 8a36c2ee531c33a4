"""LogGOPSim's GOAL text out (docs/interchange.md, "GOAL out")."""

from __future__ import annotations

import io
import json
from dataclasses import dataclass, field
from typing import TextIO

from topocoll import _core
from topocoll.collectives import CHUNKED

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


# The largest integer a statement may carry: the largest a signed 64-bit integer holds, so that
# a reader with 64-bit fields (signed or not, as LogGOPSim's) takes it exactly; Python would
# print any integer, and a wrapped number would be a wrong size or time.
GOAL_MAX_INT = (1 << 63) - 1
# What a document costs, per rank-step of the schedule (`_core.estimate_verify`'s rank_steps),
# measured with write_goal on ring allreduce and allgather at P = 64 and 256 and recdoub-bw at
# P = 64 (2 shared cores under load, 2025-11-28): output 130-178 B (a statement and its
# `requires` lines), peak Python memory 1,250-1,450 B (tracemalloc: the schedule's JSON and
# its parsed form), 147-180 us; rounded up.
GOAL_BYTES_PER_RANK_STEP = 200
GOAL_MEMORY_PER_RANK_STEP = 2048
GOAL_SECONDS_PER_RANK_STEP = 2e-4


@dataclass(frozen=True)
class GoalBytes:
    """Bytes of a block range, as the simulator counts them (src/sim/message_bytes.cpp): user
    blocks from the core's partition (`_core.partition_sizes`, early/late block sizes), the
    alltoall receive buffer [B, 2B) mirroring the send buffer, scratch slots as large as the
    largest block."""

    offsets: tuple[int, ...]  # B + 1 prefix sums
    alltoall: bool
    largest: int  # the largest block: the bytes of a scratch slot

    def range(self, begin: int, end: int) -> int:
        blocks = len(self.offsets) - 1
        total = 0
        b, e = min(begin, blocks), min(end, blocks)
        if b < e:
            total += self.offsets[e] - self.offsets[b]
        scratch = blocks
        if self.alltoall:
            b, e = max(begin, blocks), min(end, 2 * blocks)
            if b < e:
                total += self.offsets[e - blocks] - self.offsets[b - blocks]
            scratch = 2 * blocks
        if end > scratch:
            total += (end - max(begin, scratch)) * self.largest
        return total

    def of(self, blocks: list[list[int]]) -> int:
        return sum(self.range(begin, end) for begin, end in blocks)


def block_bytes(schedule: _core.Schedule, size: int) -> GoalBytes:
    """The bytes of each block for a vector of `size` bytes, with the meaning `sim --size` has
    (docs/simulator.md, "What is measured"): the vector for allreduce, bcast and reduce; P x
    count for the chunked collectives, per-rank count floor(size / P). ValueError for a size
    whose blocks would carry no bytes (below the block count)."""
    info = schedule.info
    ranks, blocks = info["ranks"], info["blocks"]
    count = size // ranks if info["collective"] in CHUNKED else size
    if count * (ranks if info["collective"] in CHUNKED else 1) < blocks or size < 1:
        raise ValueError(
            f"size {size} B is below the schedule's {blocks} blocks: some messages would carry "
            f"0 bytes; accepted: at least {blocks} B"
        )
    sizes = _core.partition_sizes(schedule, count)
    offsets = [0]
    for n in sizes:
        offsets.append(offsets[-1] + n)
    return GoalBytes(tuple(offsets), info["collective"] == "alltoall", max(sizes))


def _largest_statement(doc: dict, sizes: GoalBytes, reduce_ns_per_byte: float) -> int:
    """The largest integer a statement of the document would carry (bytes or ns)."""
    largest = 0
    for rank in _lanes(doc):
        for lane in rank:
            for step in lane:
                for op in step["ops"]:
                    n = sizes.of(op["blocks"])
                    largest = max(largest, n, round(n * reduce_ns_per_byte))
    return largest


def goal_estimate(schedule: _core.Schedule) -> dict:
    """What `write_goal` will cost before it runs: output bytes, memory bytes, seconds (from
    the schedule's rank-steps; the rates above)."""
    rank_steps = _core.estimate_verify(schedule, "fingerprint")["rank_steps"]
    return {
        "rank_steps": rank_steps,
        "output_bytes": rank_steps * GOAL_BYTES_PER_RANK_STEP,
        "memory_bytes": rank_steps * GOAL_MEMORY_PER_RANK_STEP,
        "seconds": rank_steps * GOAL_SECONDS_PER_RANK_STEP,
    }


def goal_document(
    schedule: _core.Schedule, size: int = GOAL_DEFAULT_SIZE, reduce_ns_per_byte: float = 0.0
) -> str:
    """The schedule as LogGOPSim GOAL text (`write_goal`), as one string."""
    out = io.StringIO()
    write_goal(schedule, out, size, reduce_ns_per_byte)
    return out.getvalue()


def write_goal(
    schedule: _core.Schedule,
    out: TextIO,
    size: int = GOAL_DEFAULT_SIZE,
    reduce_ns_per_byte: float = 0.0,
) -> None:
    """Writes the schedule as LogGOPSim GOAL text (grammar in docs/interchange.md, "GOAL out")
    to `out`, rank by rank (nothing is written when the schedule cannot be written).

    Message bytes follow the core's block partition of `size` (`block_bytes`). Every operation
    is one statement; a reduction adds a `calc` of bytes x reduce_ns_per_byte nanoseconds
    (rounded) that requires its receive or stands for the local reduction; a local copy is a
    `calc 0`. A statement requires every statement of the step before it in its lane and of
    the steps its `after` names (through empty steps); the `calc` of an after-receives copy
    also requires the step's receives and reductions. Tags number the messages of each
    (sender, receiver, port) in order. ValueError for a size below the block count or a
    statement whose bytes or nanoseconds exceed GOAL_MAX_INT."""
    sizes = block_bytes(schedule, size)
    doc = json.loads(schedule.to_json())
    largest = _largest_statement(doc, sizes, reduce_ns_per_byte)
    if largest > GOAL_MAX_INT:
        raise ValueError(
            f"a GOAL statement would carry {largest:,} (bytes, or ns of a reduction at "
            f"--reduce-ns-per-byte {reduce_ns_per_byte:g}), more than 2^63 - 1, what a "
            "64-bit field holds; accepted: a smaller --size or --reduce-ns-per-byte"
        )
    ranks, ports = doc["ranks"], doc.get("ports", 1)
    lanes = _lanes(doc)
    sent: dict[tuple[int, int, int], int] = {}
    received: dict[tuple[int, int, int], int] = {}
    out.write(f"num_ranks {ranks}\n")
    per_node = doc.get("ranks_per_node", 0)
    if per_node > 1:
        # LogGOPSim's txt2bin skips a "//" line where a statement may start: the node size of a
        # hier:/leader: composition, which GOAL has no field for.
        out.write(f"// ranks_per_node {per_node}: ranks nK to nK+K-1 share node n\n")
    for rank in range(ranks):
        ops = _rank_goal(rank, lanes[rank], sizes, reduce_ns_per_byte, ports, sent, received)
        lines = [f"rank {rank} {{"]
        lines.extend(f"{op.label}: {op.line}" for op in ops)
        lines.extend(f"{op.label} requires {r}" for op in ops for r in op.requires)
        lines.append("}")
        out.write("\n".join(lines) + "\n")


def _vertices(op: dict) -> int:
    """GOAL statements of one operation: a receive that reduces has its `calc` too."""
    return 2 if op["op"] == "recv" and op.get("combine", "copy") == "reduce" else 1


def _rank_goal(rank, lanes, sizes, ns_per_byte, ports, sent, received) -> list[GoalOp]:
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
            n = sizes.of(op["blocks"])
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
