"""Closed forms of every allreduce, reduce-scatter and allgather schedule's large-vector time.

`expected(algorithm, collective, shape)` gives the % of peak that `topocoll sim` should print
with no latency, no per-step overhead and a large vector (bench/efficiency.py, docs/efficiency.md)
under the flow model's assumptions: links shared max-min fairly, minimal routing as `topocoll
sim` uses by default (docs/simulator.md "Routing": a message split evenly over the cyclic
rotations of the dimension order, ties of n/2 split over both directions), lanes that progress
independently, and a bound that counts every port the topology gives a host (2D on a D-dim
torus, 2 on a ring).

Units: a time is in m / b (m the vector, b a link's bandwidth); the bound is f(P) / (2D) with
f = 2(P-1)/P for allreduce and (P-1)/P for reduce-scatter and allgather, so
% of peak = 100 x bound / time.

Two kinds of forms (docs/efficiency.md, "Closed forms", has every derivation):

- Paper forms, written from the papers' definitions of the algorithm (peers and data per step)
  and independent of the generators in src/algorithms: a sum over steps of (data per message)
  x (congestion of the busiest link direction of the step), each cited where it is defined.
- Derived forms, for what the papers do not define at this size (odd P, folds, pruned trees,
  rectangular tori, side folds): the same sum taken over the schedule's own steps
  (`topocoll.build(...).to_json()`), with one rule for when messages run at once and for how
  long (`congestion_time`). It is a formula evaluated over the schedule's messages, not a flow
  simulation: every message has a fixed duration, its bytes times the fair share of the
  busiest link on its route among the messages of its round.
"""

from __future__ import annotations

import functools
import json
import math
from collections import defaultdict
from dataclasses import dataclass

import numpy as np

COLLECTIVES = ("allreduce", "reduce-scatter", "allgather")


# ---------------------------------------------------------------------------------------------
# Shapes and the bound


@dataclass(frozen=True)
class Shape:
    dims: tuple[int, ...]

    @staticmethod
    def parse(spec: str) -> Shape:
        kind, _, rest = spec.partition(":")
        if kind == "ring":
            return Shape((int(rest),))
        if kind == "torus":
            return Shape(tuple(int(x) for x in rest.split("x")))
        raise ValueError(f"closed forms know rings and tori, not {spec!r}")

    @property
    def ranks(self) -> int:
        return math.prod(self.dims)

    @property
    def ports(self) -> int:
        return 2 * len(self.dims)

    def strides(self) -> list[int]:
        out, s = [], 1
        for n in self.dims:
            out.append(s)
            s *= n
        return out

    def coords(self, rank: int) -> list[int]:
        out = []
        for n in self.dims:
            out.append(rank % n)
            rank //= n
        return out

    def rank(self, coords) -> int:
        r = 0
        for n, c in zip(reversed(self.dims), reversed(list(coords)), strict=True):
            r = r * n + c % n
        return r


def factor(collective: str, p: int) -> float:
    """f(P): what every rank must inject, in vectors (docs/simulator.md, "Peak goodput")."""
    return 2 * (p - 1) / p if collective == "allreduce" else (p - 1) / p


def bound(collective: str, shape: Shape) -> float:
    """The bandwidth bound in m / b: f(P) over the 2D ports of a host."""
    return factor(collective, shape.ranks) / shape.ports


def percent(collective: str, shape: Shape, time: float) -> float:
    return 100.0 * bound(collective, shape) / time


# ---------------------------------------------------------------------------------------------
# Minimal routing and link loads


def link_id(shape: Shape, node: int, dim: int, sign: int) -> int:
    """The link leaving `node` along `dim` in direction `sign` (+1 or -1)."""
    return (node * len(shape.dims) + dim) * 2 + (0 if sign > 0 else 1)


def routes(shape: Shape, src: int, dst: int) -> list[tuple[float, list[int]]]:
    """The paths of a message and their shares (docs/simulator.md, "Routing", `minimal`): evenly
    over the cyclic rotations of the increasing order of the dimensions that differ, each
    corrected along its shortest direction; tied dimensions (offset n/2) once all + and once
    all -."""
    a, b = shape.coords(src), shape.coords(dst)
    differ, tied = [], False
    moves = {}
    for d, n in enumerate(shape.dims):
        off = (b[d] - a[d]) % n
        if off == 0:
            continue
        differ.append(d)
        if 2 * off == n:
            tied = True
            moves[d] = None
        elif off < n - off:
            moves[d] = (+1, off)
        else:
            moves[d] = (-1, n - off)
    if not differ:
        return []
    k = len(differ)
    variants = [+1, -1] if tied else [+1]
    out = []
    for i in range(k):
        order = differ[i:] + differ[:i]
        for tie_sign in variants:
            c = list(a)
            links = []
            for d in order:
                n = shape.dims[d]
                sign, length = moves[d] if moves[d] is not None else (tie_sign, n // 2)
                for _ in range(length):
                    links.append(link_id(shape, shape.rank(c), d, sign))
                    c[d] = (c[d] + sign) % n
            out.append((1.0 / (k * len(variants)), links))
    return out


@functools.lru_cache(maxsize=1 << 16)
def _routes_cached(dims: tuple[int, ...], src: int, dst: int):
    return routes(Shape(dims), src, dst)


def link_count(shape: Shape) -> int:
    return shape.ranks * len(shape.dims) * 2


def max_load(shape: Shape, messages) -> float:
    """The largest load (in vectors) of a link direction under `messages` = [(src, dst, amount)]."""
    load = np.zeros(link_count(shape))
    for src, dst, amount in messages:
        for share, links in _routes_cached(shape.dims, src, dst):
            np.add.at(load, links, amount * share)
    return float(load.max()) if len(messages) else 0.0


# ---------------------------------------------------------------------------------------------
# The congestion time of a schedule's own steps (derived forms)


@dataclass
class _Node:
    rank: int
    lane: int
    step: int
    after: list  # (lane, step) of the same rank
    sends: list  # (peer, port, amount)
    recvs: list  # (peer, port)


def _steps_of(document: dict):
    """Yields (rank, lane, step, ops, after) of a schedule document (either format version)."""
    if "lanes" in document:
        for rank, lanes in enumerate(document["lanes"]):
            for lane, steps in enumerate(lanes):
                for step, entry in enumerate(steps):
                    if isinstance(entry, dict):
                        yield rank, lane, step, entry.get("ops", []), entry.get("after", [])
                    else:
                        yield rank, lane, step, entry, []
    else:
        for rank, steps in enumerate(document["steps"]):
            for step, entry in enumerate(steps):
                if isinstance(entry, dict):
                    yield rank, 0, step, entry.get("ops", []), entry.get("after", [])
                else:
                    yield rank, 0, step, entry, []


def _block_count(ranges) -> int:
    return sum(end - begin for begin, end in ranges)


def _parse(document: dict):
    """The steps of a schedule document as nodes (rank, lane, step), and its messages as
    (sender node, receiver node, source host, destination host, sizes of its ranges)."""
    blocks = document["blocks"]
    # Rank r runs on node placement[r] (the Gray-code hypercube variants); rank r otherwise.
    host = document.get("placement") or list(range(document["ranks"]))
    nodes: dict[tuple[int, int, int], _Node] = {}
    for rank, lane, step, ops, after in _steps_of(document):
        node = _Node(rank, lane, step, [tuple(a) for a in after], [], [])
        for op in ops:
            if op["op"] == "send":
                sizes = tuple((end - begin) / blocks for begin, end in op["blocks"])
                node.sends.append((op["peer"], op.get("port", 0), sizes))
            elif op["op"] == "recv":
                node.recvs.append((op["peer"], op.get("port", 0)))
        nodes[(rank, lane, step)] = node
    # Match sends and receives in posting order per (sender, receiver, port).
    posted_sends: dict[tuple[int, int, int], list] = defaultdict(list)
    posted_recvs: dict[tuple[int, int, int], list] = defaultdict(list)
    for key in sorted(nodes):
        node = nodes[key]
        for peer, port, sizes in node.sends:
            posted_sends[(node.rank, peer, port)].append((key, sizes))
        for peer, port in node.recvs:
            posted_recvs[(peer, node.rank, port)].append(key)
    messages = []
    for channel, sends in posted_sends.items():
        recvs = posted_recvs.get(channel, [])
        if len(recvs) != len(sends):
            raise ValueError(f"unmatched messages on channel {channel}")
        for (skey, sizes), rkey in zip(sends, recvs, strict=True):
            messages.append((skey, rkey, host[channel[0]], host[channel[1]], sizes))
    return nodes, messages


def _rounds(nodes: dict, messages: list, rule: str) -> dict:
    """The round of every step: the least solution of "after the previous step of its lane and
    after its `after` steps" and, for rule "matched", "in the round of the steps it exchanges
    messages with"; rule "sender" leaves a receive where its own lane puts it (eager sends).
    Matched steps are merged into groups (union-find), then rounds are longest paths in the
    group graph, in topological order."""
    parent = {key: key for key in nodes}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    if rule == "matched":
        for skey, rkey, *_ in messages:
            a, b = find(skey), find(rkey)
            if a != b:
                parent[a] = b
    group = {key: find(key) for key in nodes}
    successors: dict[tuple, list] = defaultdict(list)
    indegree: dict[tuple, int] = dict.fromkeys(set(group.values()), 0)
    for key, node in nodes.items():
        rank, lane, step = key
        before = [(rank, lane, step - 1)] if step > 0 else []
        before += [(rank, a_lane, a_step) for a_lane, a_step in node.after]
        for b in before:
            successors[group[b]].append(group[key])
            indegree[group[key]] += 1
    round_of = dict.fromkeys(indegree, 0)
    ready = [g for g, d in indegree.items() if d == 0]
    seen = 0
    while ready:
        g = ready.pop()
        seen += 1
        for h in successors.get(g, ()):
            round_of[h] = max(round_of[h], round_of[g] + 1)
            indegree[h] -= 1
            if indegree[h] == 0:
                ready.append(h)
    if seen != len(indegree):
        raise ValueError("the schedule's steps wait on each other in a cycle")
    return {key: round_of[group[key]] for key in nodes}


def congestion_time(
    shape: Shape, document: dict, rounds: str = "matched", lockstep: bool = True
) -> float:
    """The schedule's time in m / b, priced round by round (docs/efficiency.md, "Derived
    forms"):

    1. Rounds. Every step gets the earliest round its lane order, its `after` dependencies and
       its messages allow: a step comes after the previous step of its lane and after the steps
       it waits for, and a send is in the round of its receive (matched in posting order per
       sender, receiver and port). The messages of one round run at once.
    2. Duration. Every range of a send is a message of a bytes (in vectors: its blocks / B), as
       the flow model counts them, split over its minimal paths; a path of share s carries a x s.
       On a link, a flow of size x that meets flows of sizes y_i finishes after sum_i min(x, y_i)
       (max-min fair sharing of one link by flows that start together); its duration is the
       largest such sum over its links, and a send's duration the largest over its flows: equal
       messages give load x congestion.
    3. Time. With `lockstep` (the closed form), the sum over rounds of the longest duration in
       the round: the flow model's time when every round waits for the one before everywhere
       (`synchronous_rounds`) and every send is one message (`one_message_per_send`); the
       explanations in docs/efficiency.md compare the flow model with both. Without it, the
       critical path: a step starts when the previous step of its lane and its `after` steps
       have ended, its sends start with it (eager sends), it ends when its sends and the sends
       it receives have ended.
    """
    nodes, messages = _parse(document)
    level = _rounds(nodes, messages, rounds)
    # 2. Durations, round by round.
    by_round: dict[int, list[int]] = defaultdict(list)
    for i, (skey, _rkey, *_rest) in enumerate(messages):
        by_round[level[skey]].append(i)
    duration = [0.0] * len(messages)
    nlinks = link_count(shape)
    for ids in by_round.values():
        flows = []  # (message index, size, links)
        for i in ids:
            _s, _r, src, dst, sizes = messages[i]
            for amount in sizes:
                if amount == 0:
                    continue
                for share, links in _routes_cached(shape.dims, src, dst):
                    flows.append((i, amount * share, links))
        if not flows:
            continue
        classes = sorted({round(size, 15) for _, size, _ in flows})
        counts = {v: np.zeros(nlinks) for v in classes}
        for _, size, links in flows:
            np.add.at(counts[round(size, 15)], links, 1.0)
        weight = {}
        for b in classes:
            w = np.zeros(nlinks)
            for v in classes:
                w += min(v, b) * counts[v]
            weight[b] = w
        for i, size, links in flows:
            t = float(weight[round(size, 15)][links].max())
            duration[i] = max(duration[i], t)
    if lockstep:
        # Every round waits for the previous one: the sum of the rounds' longest messages.
        longest: dict[int, float] = defaultdict(float)
        for i, (skey, *_rest) in enumerate(messages):
            longest[level[skey]] = max(longest[level[skey]], duration[i])
        return sum(longest.values())
    # 3. Critical path over the events "step starts" (S) and "step ends" (F):
    # S(step) = max F(previous step of the lane, steps in `after`);
    # F(step) = max(S(step), S(sender) + duration of every send it makes or receives).
    incoming: dict[tuple, list[int]] = defaultdict(list)
    for i, (skey, rkey, *_rest) in enumerate(messages):
        incoming[skey].append(i)
        incoming[rkey].append(i)
    preds: dict[tuple, list] = {}
    for key, node in nodes.items():
        rank, lane, step = key
        before = [(rank, lane, step - 1)] if step > 0 else []
        before += [(rank, a_lane, a_step) for a_lane, a_step in node.after]
        preds[key] = before
    # Kahn's order on events ("S", key) and ("F", key).
    waiting: dict[tuple, int] = {}
    successors: dict[tuple, list] = defaultdict(list)
    for key in nodes:
        waiting[("S", key)] = len(preds[key])
        for b in preds[key]:
            successors[("F", b)].append(("S", key))
        senders = [messages[i][0] for i in incoming.get(key, ()) if messages[i][0] != key]
        waiting[("F", key)] = 1 + len(senders)
        successors[("S", key)].append(("F", key))
        for sk in senders:
            successors[("S", sk)].append(("F", key))
    value: dict[tuple, float] = {}
    ready = [event for event, count in waiting.items() if count == 0]
    while ready:
        event = ready.pop()
        kind, key = event
        if kind == "S":
            value[event] = max((value[("F", b)] for b in preds[key]), default=0.0)
        else:
            t = value[("S", key)]
            for i in incoming.get(key, ()):
                t = max(t, value[("S", messages[i][0])] + duration[i])
            value[event] = t
        for nxt in successors.get(event, ()):
            waiting[nxt] -= 1
            if waiting[nxt] == 0:
                ready.append(nxt)
    if len(value) != len(waiting):
        raise ValueError("the schedule's steps wait on each other in a cycle")
    finish = {key: value[("F", key)] for key in nodes}
    return max(finish.values()) if finish else 0.0


@functools.cache
def _registry() -> dict[str, dict]:
    import topocoll

    return {a["name"]: a for a in topocoll.algorithms()}


def schedule_document(algorithm: str, collective: str, shape: Shape) -> dict:
    """The schedule `topocoll sim` runs on this shape (ring-only algorithms see P ranks)."""
    import topocoll

    req = _registry()[algorithm]["requirements"]
    one_d = req.get("max_dimensions") == 1
    dims = [] if one_d else list(shape.dims)
    schedule = topocoll.build(algorithm, collective, shape.ranks, dims=dims)
    return json.loads(schedule.to_json())


# Schedules whose lanes take turns on the links by `after` dependencies (a plan), not in global
# rounds: their derived form is the critical path (congestion_time with lockstep=False).
TURN_TAKING = frozenset({"bucket-balanced"})


def derived(algorithm: str, collective: str, shape: Shape) -> float:
    """% of peak of the congestion time of the schedule's own steps."""
    document = schedule_document(algorithm, collective, shape)
    lockstep = algorithm not in TURN_TAKING
    return percent(collective, shape, congestion_time(shape, document, lockstep=lockstep))


# ---------------------------------------------------------------------------------------------
# Paper forms: the algorithms as their papers define them, written as message lists


def _document(shape: Shape, blocks: int, lanes: list) -> dict:
    """A schedule document of `lanes` (each a list of steps, each a list of (src, dst, blocks)),
    one message per send, so that `congestion_time` prices the paper's steps."""
    p = shape.ranks
    ops = [[[[] for _ in lane] for lane in lanes] for _ in range(p)]
    for j, lane in enumerate(lanes):
        for t, step in enumerate(lane):
            for src, dst, count in step:
                blocks_sent = [[0, count]]
                ops[src][j][t].append({"op": "send", "peer": dst, "port": j, "blocks": blocks_sent})
                ops[dst][j][t].append({"op": "recv", "peer": src, "port": j, "blocks": blocks_sent})
    return {"ranks": p, "blocks": blocks, "lanes": ops}


def _paper_time(shape: Shape, blocks: int, lanes: list) -> float:
    """The paper's steps priced as `congestion_time` prices a schedule's: the sum over steps of
    the message size times the congestion of the busiest link direction."""
    return congestion_time(shape, _document(shape, blocks, lanes))


def _is_power(n: int, base: int) -> bool:
    while n > 1 and n % base == 0:
        n //= base
    return n == 1


def rho(s: int) -> int:
    """Swing's and Bine's peer distance of step s: sum_{i<=s} (-2)^i (swing-nsdi24.txt Eq. 2)."""
    return (1 - (-2) ** (s + 1)) // 3


def dimension_order(steps_per_dim: list[int], start: int) -> list[tuple[int, int]]:
    """(dimension, step within it) of each step of a lane that starts on `start` and takes the
    dimensions in turn, skipping exhausted ones (swing-nsdi24.txt 4.1; trivance.txt 5)."""
    d = len(steps_per_dim)
    done = [0] * d
    out = []
    for t in range(sum(steps_per_dim)):
        for i in range(d):
            e = (start + t + i) % d
            if done[e] < steps_per_dim[e]:
                out.append((e, done[e]))
                done[e] += 1
                break
    return out


def _moved(shape: Shape, rank: int, dim: int, to: int) -> int:
    c = shape.coords(rank)
    c[dim] = to % shape.dims[dim]
    return shape.rank(c)


def _phases(collective: str, rs_steps: list) -> list:
    """Reduce-scatter steps, the allgather (their reverse: every message turned around), or
    both."""
    ag = [[(dst, src, n) for src, dst, n in step] for step in reversed(rs_steps)]
    if collective == "reduce-scatter":
        return rs_steps
    if collective == "allgather":
        return ag
    return rs_steps + ag


def ring_form(collective: str, shape: Shape) -> float:
    """swing-nsdi24.txt 2.3.1: P - 1 steps per phase, each rank sends one block of m/P to rank
    r + 1 (one port). On a torus the ranks sit in host order, so the shift r -> r + 1 also
    crosses rows; every step has the congestion c of that shift."""
    p = shape.ranks
    shift = [(r, (r + 1) % p, 1) for r in range(p)]
    c_step = _paper_time(shape, p, [[shift]])  # one step's time: c / P
    phases = 2 if collective == "allreduce" else 1
    return phases * (p - 1) * c_step


def bucket_form(collective: str, shape: Shape) -> float:
    """swing-nsdi24.txt 2.3.4: 2D concurrent collectives on m/(2D) each, one per start
    dimension and direction, ring reduce-scatters along the dimensions in turn (each on what is
    left: 1/d of it per dimension done). A link direction of dimension k carries, per phase,
    sum over the D lanes of its direction of (d_k - 1)/d_k x m/(2D) x prod(1/d_i, i visited
    before k). This is the busiest link direction's load: the time of `bucket-lanes`, whose
    lanes switch dimensions at their own pace and share links, exact where that link never
    idles (2D tori, equal sides; reduce-scatter and allreduce, and the allgather with one
    message per send: docs/efficiency.md, `bucket_allgather_ranges`). The paper's lock-step
    form is `bucket_phase_form`."""
    dims = [n for n in shape.dims if n >= 2]
    d = len(dims)
    x = 1.0 / (2 * d)
    loads = []
    for k in range(d):
        total = 0.0
        for start in range(d):
            order = [(start + i) % d for i in range(d)]
            before = 1.0
            for e in order:
                if e == k:
                    break
                before /= dims[e]
            total += x * (dims[k] - 1) / dims[k] * before
        loads.append(total)
    phases = 2 if collective == "allreduce" else 1
    return phases * max(loads)


def bucket_phase_form(collective: str, shape: Shape) -> float:
    """`bucket`, the paper's lock-step form (swing-nsdi24.txt 5.2, Fig. 9): in dimension phase
    j the lane that started on dimension s runs its ring on dimension (s + j) mod D, on
    x prod(1/d_i, i visited before) of the vector, and no lane starts phase j + 1 before every
    lane of the rank ended phase j. One lane per direction uses each dimension in a phase, so
    a phase takes its slowest ring, (d_k - 1)/d_k of that lane's data, and the time is the sum
    over phases. On 2D tori and on equal sides this is the busiest link's load (`bucket_form`);
    on three or more unequal sides it can be more (6x3x4 reduce-scatter: 71/83 of the bound,
    85.5%, against the link load's 88.75%)."""
    dims = [n for n in shape.dims if n >= 2]
    d = len(dims)
    x = 1.0 / (2 * d)
    total = 0.0
    for phase in range(d):
        slowest = 0.0
        for start in range(d):
            before = 1.0
            for i in range(phase):
                before /= dims[(start + i) % d]
            k = (start + phase) % d
            slowest = max(slowest, x * (dims[k] - 1) / dims[k] * before)
        total += slowest
    phases = 2 if collective == "allreduce" else 1
    return phases * total


def bucket_allgather_ranges(shape: Shape) -> float:
    """Bucket's allgather on an a x b torus (a > b) as the flow model runs it, in m / b:
    MPI's chunk layout makes a lane's message of its second dimension one range per block, so
    a message of c blocks is c flows. Per ring direction: lane A (short side first) sends b - 1
    blocks on the short side, then a - 1 steps of b blocks (b flows) on the long side; lane B
    sends a - 1 single blocks on the long side, then b - 1 steps of a blocks on the short side.
    While B's single-block steps share the long links with A's b-flow steps, each B step gets
    1/(b+1) of the link: both advance one step every b + 1 block times. In block times
    (m / (4P) each): T = (b - 1) + (a - b)(b + 1) + a(b - 1), against the bound P - 1
    (docs/efficiency.md, "bucket's allgather")."""
    a, b = max(shape.dims), min(shape.dims)
    p = shape.ranks
    return ((b - 1) + (a - b) * (b + 1) + a * (b - 1)) / (4 * p)


def recdoub_lanes(collective: str, shape: Shape, halving: bool = False, latency: bool = False):
    """swing-nsdi24.txt 2.3.2-2.3.3 on P = 2^L ranks, one port: step s pairs r with r XOR 2^s
    (2^(L-1-s) for the distance-halving order) and moves m/2^(s+1) (the whole vector for the
    latency-optimal one). On a torus with power-of-two sides the bits are the coordinates' bits,
    dimensions in turn from dimension 0 (section 2.3.2, Fig. 2): a step flips bit l of one
    coordinate, 2^l hops along one line. Distance halving is the ring order mapped onto the
    hosts."""
    p = shape.ranks
    torus = len(shape.dims) > 1 and not halving
    if torus:
        order = dimension_order([int(math.log2(n)) for n in shape.dims], 0)
    else:
        order = [(None, s) for s in range(int(math.log2(p)))]
    if halving:
        order = list(reversed(order))
    steps = []
    for s, (dim, bit) in enumerate(order):
        count = 1 if latency else p >> (s + 1)
        step = []
        for r in range(p):
            if dim is None:
                q = r ^ (1 << bit)
            else:
                c = shape.coords(r)[dim]
                q = _moved(shape, r, dim, c ^ (1 << bit))
            step.append((r, q, count))
        steps.append(step)
    if latency:
        return 1, [steps]
    return p, [_phases(collective, steps)]


def swing_lanes(collective: str, shape: Shape, latency: bool = False):
    """swing-nsdi24.txt 3.1 and 4.1 on sides that are powers of two: 2D collectives (D plain
    starting on dimension j, D mirrored), each on m/(2D); step t of a lane works on one
    dimension (in turn from its start) and pairs coordinate x with x + rho(s) (x even) or
    x - rho(s) (x odd), mirrored lanes the other way round; the bandwidth-optimal one moves
    1/2^(t+1) of its slice at step t, the latency-optimal one all of it. Bine's torus
    butterfly (bine-trees-sc25.txt Appendix D) has the same peers and data per step."""
    p, dd = shape.ranks, len(shape.dims)
    logs = [int(math.log2(n)) for n in shape.dims]
    lanes = []
    for j in range(2 * dd):
        mirrored = j >= dd
        steps = []
        for t, (dim, s) in enumerate(dimension_order(logs, j % dd)):
            count = 1 if latency else p >> (t + 1)
            step = []
            for r in range(p):
                x = shape.coords(r)[dim]
                sign = 1 if (x % 2 == 0) != mirrored else -1
                step.append((r, _moved(shape, r, dim, x + sign * rho(s)), count))
            steps.append(step)
        lanes.append(steps if latency else _phases(collective, steps))
    return (2 * dd if latency else 2 * dd * p), lanes


def bine_lanes(collective: str, shape: Shape, two: bool = False, latency: bool = False):
    """bine-trees-sc25.txt 3.1 and 4.3 on P = 2^L ranks (one port, ranks in ring order): rank r
    pairs with r + rho(k) (r even) or r - rho(k) (r odd) at distance index k; the
    reduce-scatter doubles the distance (k = 0, 1, ...; the two-transmission variant halves
    it, k = L-1, ...) and moves m/2^(s+1) at its step s."""
    p = shape.ranks
    big = int(math.log2(p))
    ks = list(range(big - 1, -1, -1)) if two else list(range(big))
    steps = []
    for s, k in enumerate(ks):
        count = 1 if latency else p >> (s + 1)
        steps.append([(r, (r + (rho(k) if r % 2 == 0 else -rho(k))) % p, count) for r in range(p)])
    if latency:
        return 1, [steps]
    return p, [_phases(collective, steps)]


def ternary_lanes(collective: str, shape: Shape, bruck: bool = False, latency: bool = False):
    """trivance.txt 4.1-4.2 and 5 (Trivance) and 2.4 (Bruck): D collectives on m/D each; step t
    of collective c works on one dimension, in turn from dimension c (section 5, Fig. 5). On a
    side of n = 3^s, step k of a dimension sends on port 0 to x + 3^k and on port 1 to x - 3^k
    (Trivance) or to x + 3^k and x + 2 * 3^k (Bruck). Bandwidth-optimal: each port carries a
    third of what the rank still holds (m/3^(k+1) of the slice on a ring); Bruck's blocks at
    distance h with digit k equal to the port's (h < n) serve any n. Latency-optimal: the
    whole slice on both ports, at sizes whose windows tile the ring (3^s; 2 * 3^(s-1) whose
    last step has one port)."""
    p, dd = shape.ranks, len(shape.dims)
    steps_per_dim = [max(1, math.ceil(round(math.log(n, 3), 9))) for n in shape.dims]

    def bruck_count(n, k, port):
        step, first = 3**k, (port + 1) * 3**k
        return len(range(first, n, 3 * step)) if first < n else 0

    def held(n, k):
        return len(range(0, n, 3**k))

    lanes = []
    for c in range(dd):
        walk = dimension_order(steps_per_dim, c)
        done = [0] * dd
        steps = []
        for dim, k in walk:
            n = shape.dims[dim]
            other = 1
            for e in range(dd):
                if e != dim:
                    other *= held(shape.dims[e], done[e]) if not latency else shape.dims[e]
            step = []
            for r in range(p):
                x = shape.coords(r)[dim]
                for port in (0, 1):
                    if bruck:
                        dist = (port + 1) * 3**k
                        if latency and dist + 3**k > n:
                            continue
                        count = n * other if latency else bruck_count(n, k, port) * other
                    else:
                        dist = 3**k if port == 0 else -(3**k)
                        last = k == steps_per_dim[dim] - 1
                        if latency and last and not _is_power(n, 3) and port == 0:
                            continue
                        count = n * other if latency else (n // 3 ** (k + 1)) * other
                    if count:
                        step.append((r, _moved(shape, r, dim, x + dist), count))
            steps.append(step)
            done[dim] += 1
        lanes.append(steps if latency else _phases(collective, steps))
    return dd * p, lanes


def _all(dims, test) -> bool:
    return all(test(n) for n in dims)


def _tiles(n: int) -> bool:
    """Whole windows tile a ring of n (trivance.txt 4.2): 3^s or 2 * 3^(s-1)."""
    return _is_power(n, 3) or (n % 2 == 0 and _is_power(n // 2, 3))


def paper_time(algorithm: str, collective: str, shape: Shape) -> float | None:
    """The paper form's time in m / b, or None where the paper does not define this size."""
    p, dims = shape.ranks, shape.dims
    pow2 = _is_power(p, 2)
    sides2 = _all(dims, lambda n: _is_power(n, 2))
    sides3 = _all(dims, lambda n: _is_power(n, 3))
    ar = collective == "allreduce"
    if algorithm == "ring":
        return ring_form(collective, shape)
    if algorithm == "bucket":
        return bucket_phase_form(collective, shape)
    if algorithm == "bucket-lanes":
        return bucket_form(collective, shape)
    if algorithm == "hamiltonian-rings":
        # swing-nsdi24.txt 2.3.1: four rings on two edge-disjoint Hamiltonian cycles, one per
        # direction, each a ring collective on m/4 over link directions of its own: the bound.
        return bound(collective, shape)
    lanes = None
    if algorithm in ("recdoub-bw", "recdoub-lat") and sides2:
        lanes = recdoub_lanes(collective, shape, latency=algorithm == "recdoub-lat")
    elif algorithm == "recdoub-bw-distance-halving" and pow2:
        lanes = recdoub_lanes(collective, shape, halving=True)
    elif algorithm in ("swing-bw", "swing-lat", "bine-lat-torus") and sides2:
        lanes = swing_lanes(collective, shape, latency=algorithm != "swing-bw")
    elif algorithm == "bine-bw-torus" and sides2 and ar:
        lanes = swing_lanes(collective, shape)
    elif algorithm in ("bine-bw", "bine-bw-send") and pow2 and ar:
        lanes = bine_lanes(collective, shape)
    elif algorithm in ("bine-bw-block", "bine-bw-permute") and pow2:
        lanes = bine_lanes(collective, shape)
    elif algorithm == "bine-bw-two" and pow2:
        lanes = bine_lanes(collective, shape, two=True)
    elif algorithm == "bine-lat" and pow2:
        lanes = bine_lanes(collective, shape, latency=True)
    elif algorithm == "bruck-bw":
        lanes = ternary_lanes(collective, shape, bruck=True)
    elif algorithm == "bruck-lat" and _all(dims, _tiles):
        lanes = ternary_lanes(collective, shape, bruck=True, latency=True)
    elif algorithm == "trivance-bw" and sides3:
        lanes = ternary_lanes(collective, shape)
    elif algorithm == "trivance-lat" and _all(dims, _tiles):
        lanes = ternary_lanes(collective, shape, latency=True)
    if lanes is None:
        return None
    blocks, lane_steps = lanes
    return _paper_time(shape, blocks, lane_steps)


def accepted(algorithm: str, collective: str, shape: Shape) -> bool:
    """Whether `topocoll sim` builds this algorithm on this shape."""
    import topocoll

    req = _registry()[algorithm]["requirements"]
    dims = [] if req.get("max_dimensions") == 1 else list(shape.dims)
    try:
        topocoll.build(algorithm, collective, shape.ranks, dims=dims)
    except (ValueError, RuntimeError):
        return False
    return True


@dataclass
class Form:
    percent: float | None  # None: no closed form ("-")
    kind: str  # "paper", "derived", or "-" (not accepted)


def check_rank_limit(max_derived_ranks: int) -> None:
    """ValueError for a negative limit of `expected`'s derived forms (0: every shape)."""
    if max_derived_ranks < 0:
        raise ValueError(
            f"--max-derived-ranks {max_derived_ranks} is negative; accepted: 0 (every shape) or "
            "a positive rank count"
        )


def expected(algorithm: str, collective: str, spec: str, max_derived_ranks: int = 0) -> Form:
    """The closed form of one cell of bench/efficiency.py: the paper form where the paper
    defines the algorithm at this size, else the derived form of the schedule's own steps (not
    evaluated, kind "skipped", above `max_derived_ranks` ranks when that is > 0: the sum runs
    in Python over every message and takes many minutes on the largest tori)."""
    shape = Shape.parse(spec)
    if not accepted(algorithm, collective, shape):
        return Form(None, "-")
    t = paper_time(algorithm, collective, shape)
    if t is not None:
        return Form(percent(collective, shape, t), "paper")
    if 0 < max_derived_ranks < shape.ranks:
        return Form(None, "skipped")
    return Form(derived(algorithm, collective, shape), "derived")


# ---------------------------------------------------------------------------------------------
# Experiments behind docs/efficiency.md's explanations: the same schedule with one message per
# send, or with every lane's steps made synchronous, run through `topocoll sim --schedule`.


def _each_step(document: dict):
    """Yields the op list of every step (either format version), for editing in place."""
    if "lanes" in document:
        for lanes in document["lanes"]:
            for steps in lanes:
                for entry in steps:
                    yield entry["ops"] if isinstance(entry, dict) else entry
    else:
        for steps in document["steps"]:
            for entry in steps:
                yield entry["ops"] if isinstance(entry, dict) else entry


def one_message_per_send(document: dict) -> dict:
    """Every send (and its receive) carries one range of its block count, as if the rank packed
    its blocks: the flow model then sees one message where it saw one per range. Local copies
    are dropped (they cost nothing). The data no longer lands where it should; only the timing
    is of interest."""
    out = json.loads(json.dumps(document))
    for ops in _each_step(out):
        kept = []
        for op in ops:
            if op["op"] in ("send", "recv"):
                n = _block_count(op["blocks"])
                op["blocks"] = [[0, n]] if n else []
                kept.append(op)
        ops[:] = kept
    out["keeps_positions"] = False
    return out


def synchronous_rounds(document: dict) -> dict:
    """The schedule in the rounds of `congestion_time` (rule "matched"), with a barrier after
    every round: an extra lane in which every rank sends a zero-byte message to every other
    rank and receives one from each, after its steps of that round and before its steps of the
    next. No step of round k + 1 starts before every step of round k has ended anywhere: the
    rounds of the derived form made real (its `lockstep` sum)."""
    nodes, messages = _parse(document)
    level = _rounds(nodes, messages, "matched")
    p = document["ranks"]
    source = {}
    for rank, lane, step, ops, after in _steps_of(document):
        source[(rank, lane, step)] = (ops, after)
    port = 1 + max((op.get("port", 0) for ops, _ in source.values() for op in ops), default=0)
    lanes = 1 + max(lane for _, lane, _ in nodes)
    last = max(level.values(), default=-1)
    out = {k: v for k, v in document.items() if k not in ("steps", "lanes")}
    out["version"] = 2
    out["lanes"] = []
    for rank in range(p):
        rank_lanes = [[{"ops": []} for _ in range(last + 1)] for _ in range(lanes)]
        for (r, lane, step), (ops, after) in source.items():
            if r != rank:
                continue
            k = level[(r, lane, step)]
            waits = [[a, level[(rank, a, s)]] for a, s in after]
            if k > 0:
                waits.append([lanes, k - 1])  # the barrier that ends round k - 1
            rank_lanes[lane][k] = {"ops": list(ops), "after": waits}
        for lane in range(lanes):
            for k in range(1, last + 1):
                if not rank_lanes[lane][k]["ops"]:
                    rank_lanes[lane][k]["after"] = [[lanes, k - 1]]
        barriers = []
        for k in range(last + 1):
            ops = []
            for q in range(p):
                if q != rank:
                    ops.append({"op": "send", "peer": q, "port": port, "blocks": []})
                    ops.append({"op": "recv", "peer": q, "port": port, "blocks": []})
            barriers.append({"ops": ops, "after": [[lane, k] for lane in range(lanes)]})
        rank_lanes.append(barriers)
        out["lanes"].append(rank_lanes)
    out["ports"] = max(document.get("ports", 1), port + 1) * p
    return out


def simulate_document(document: dict, collective: str, topology: str) -> float:
    """The flow model's % of peak for a schedule document (zero latency, 1 GiB)."""
    import os
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    topocoll_cli = str(Path(sys.executable).with_name("topocoll"))
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(document, f)
        path = f.name
    try:
        run = subprocess.run(
            [
                topocoll_cli, "sim", "--topology", topology, "--collective", collective,
                "--schedule", path, "--size", "1GiB", "--latency", "0ns", "--hop-latency",
                "0ns", "--alpha", "0ns", "--json", "--force",
            ],
            capture_output=True,
            text=True,
            check=True,
        )  # fmt: skip
    finally:
        os.unlink(path)
    return json.loads(run.stdout)["peak_percent"]


BARRIER_MESSAGES = 1_500_000


def explain(algorithm: str, collective: str, topology: str, lockstep: bool = True) -> dict:
    """The numbers behind a deviation: the flow model on the schedule as built, with one message
    per send, with synchronous lanes, and with both; the closed forms next to them."""
    shape = Shape.parse(topology)
    document = schedule_document(algorithm, collective, shape)
    out = {"algorithm": algorithm, "collective": collective, "topology": topology}
    out["flow"] = simulate_document(document, collective, topology)
    merged = one_message_per_send(document)
    out["flow, one message per send"] = simulate_document(merged, collective, topology)
    if lockstep:
        # The barriers cost P (P - 1) zero-byte messages per round: skip schedules of many
        # rounds (CM-200 trees: one broadcast per source) where that would be millions.
        nodes, messages = _parse(document)
        rounds = 1 + max(_rounds(nodes, messages, "matched").values(), default=0)
        lockstep = rounds * shape.ranks * (shape.ranks - 1) <= BARRIER_MESSAGES
    if lockstep:
        out["flow, synchronous rounds"] = simulate_document(
            synchronous_rounds(document), collective, topology
        )
        out["flow, both"] = simulate_document(synchronous_rounds(merged), collective, topology)
    t = paper_time(algorithm, collective, shape)
    out["formula"] = percent(collective, shape, t) if t is not None else None
    lockstep = algorithm not in TURN_TAKING
    out["derived"] = percent(collective, shape, congestion_time(shape, document, lockstep=lockstep))
    return out


def main(argv=None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        description="Closed forms and the experiments behind docs/efficiency.md's explanations"
    )
    parser.add_argument("algorithm")
    parser.add_argument("collective", choices=COLLECTIVES)
    parser.add_argument("topology", help="ring:P or torus:AxB[x...]")
    parser.add_argument(
        "--no-lockstep", action="store_true", help="skip the synchronous-lanes runs (large P)"
    )
    args = parser.parse_args(argv)
    for key, value in explain(
        args.algorithm, args.collective, args.topology, not args.no_lockstep
    ).items():
        print(f"{key:28s} {value:.2f}" if isinstance(value, float) else f"{key:28s} {value}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
