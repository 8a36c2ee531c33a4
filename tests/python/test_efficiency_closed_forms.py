"""The flow model's zero-latency, large-vector % of peak against the closed forms of
topocoll.closed_forms (docs/efficiency.md), on small cells whose schedules are symmetric, so the
two must agree to the printed digit. The closed forms are also checked against hand-computed
values, so a wrong formula fails here as much as a wrong simulator or a wrong schedule does."""

from __future__ import annotations

import pytest
import topocoll
from topocoll import closed_forms as cf


def measured(algorithm: str, collective: str, topology: str) -> float:
    result = topocoll.simulate(
        topology, collective, algorithm, "1GiB", latency="0ns", hop_latency="0ns", alpha="0ns"
    )
    return result.peak_percent


# (algorithm, collective, topology, % of peak by hand from the paper's steps)
CELLS = [
    # One port of the ring's two: 50%.
    ("ring", "allreduce", "ring:8", 50.0),
    # Every link direction carries one ring per direction: the bound.
    ("bucket", "allreduce", "torus:8x8", 100.0),
    # Rectangular: the busiest direction (long side) carries 15/16 (1/4 + 1/16) per phase
    # against the bound 63/256: 63/75.
    ("bucket", "reduce-scatter", "torus:16x4", 100.0 * 63 / 75),
    # The independent-lanes form has the same busiest link and, on a 2D torus, never idles it.
    ("bucket-lanes", "reduce-scatter", "torus:16x4", 100.0 * 63 / 75),
    # Three unequal sides, lock-step phases (swing-nsdi24.txt 5.2): each phase takes its slowest
    # ring, x = 1/6: 5/36 + (3/4)/18 + (5/6)/72 = 83/432 against the bound 71/432, 71/83. The
    # busiest link's load (bucket-lanes' form) would give 88.75%.
    ("bucket", "reduce-scatter", "torus:6x3x4", 100.0 * 71 / 83),
    # swing-nsdi24.txt 4.1: sum_s |rho(s)| / 2^(s+2) = 1/4 + 1/8 + 3/16 per phase against 7/16.
    ("swing-bw", "allreduce", "ring:8", 100.0 * (7 / 16) / (1 / 4 + 1 / 8 + 3 / 16)),
    # Four lanes on 8x8, steps (1, 1, 1, 3, 3, 3... by dimension): the sum of section 4.1 with
    # sigma(t) = t div 2: (1/16 + 1/32 + 1/64 + 3/128 + 3/256 + ... ) per phase, see below.
    ("swing-bw", "allreduce", "torus:8x8", None),
    # Rabenseifner on 8 ranks, one port: 1/2 x 1 + 1/4 x 2 + 1/8 x 2 per phase (congestion
    # 2^s, but the last step at distance 4 = P/2 is split over both directions: 4 x 1/2).
    ("recdoub-bw", "allreduce", "ring:8", 100.0 * (7 / 8) / (2 * (1 / 2 + 2 / 4 + 2 / 8))),
    # Trivance on 27: s/3 = 1 per phase against 26/54 (trivance.txt Table 1, finite form).
    ("trivance-bw", "reduce-scatter", "ring:27", 100.0 * 26 / 54),
    # Trivance on 9x9, two collectives on m/2: steps 3^0 twice then 3^1 twice:
    # (1/2)(1/3 + 1/9 + 3/27 + 3/81) per phase against 80/(81*4).
    ("trivance-bw", "allgather", "torus:9x9", None),
]


def swing_torus_8x8() -> float:
    # 2D = 4 lanes of m/4; step t works on dimension (j + t) mod 2 at its step t div 2, so every
    # link direction carries |rho(t div 2)| messages of m / (4 * 2^(t+1)) per step.
    per_phase = sum(abs(cf.rho(t // 2)) / (4 * 2 ** (t + 1)) for t in range(6))
    return 100.0 * (2 * 63 / 64 / 4) / (2 * per_phase)


def trivance_torus_9x9() -> float:
    per_phase = 0.5 * (1 / 3 + 1 / 9 + 3 / 27 + 3 / 81)
    return 100.0 * (80 / 81 / 4) / per_phase


HAND = {
    ("swing-bw", "torus:8x8"): swing_torus_8x8,
    ("trivance-bw", "torus:9x9"): trivance_torus_9x9,
}


@pytest.mark.parametrize(("algorithm", "collective", "topology", "by_hand"), CELLS)
def test_flow_model_matches_the_closed_form(algorithm, collective, topology, by_hand):
    form = cf.expected(algorithm, collective, topology)
    assert form.kind == "paper"
    if by_hand is None:
        by_hand = HAND[(algorithm, topology)]()
    # The formula as coded is the formula by hand ...
    assert form.percent == pytest.approx(by_hand, rel=1e-6)
    # ... and the simulator moves the data at that cost.
    assert measured(algorithm, collective, topology) == pytest.approx(form.percent, rel=0.005)


def test_the_schedule_sends_what_the_paper_says():
    # The derived form prices the generator's own steps; on these sizes it equals the paper's.
    for algorithm, collective, topology in [
        ("swing-bw", "allreduce", "torus:8x8"),
        ("bine-bw", "allreduce", "ring:16"),
        ("bruck-bw", "reduce-scatter", "ring:27"),
    ]:
        shape = cf.Shape.parse(topology)
        paper = cf.percent(collective, shape, cf.paper_time(algorithm, collective, shape))
        assert cf.derived(algorithm, collective, shape) == pytest.approx(paper, rel=1e-6)


def test_a_wrong_formula_is_caught():
    # Bucket on 16x4 is not the bound: the naive 100% would fail the comparison above.
    assert measured("bucket", "reduce-scatter", "torus:16x4") < 99.0
    # A recursive-doubling form that forgot that the last step (distance 4 = P/2) is split
    # over both directions (congestion 4 instead of 2) gives 29.2% instead of 35%.
    wrong = 100.0 * (7 / 8) / (2 * (1 / 2 + 2 / 4 + 4 / 8))
    assert measured("recdoub-bw", "allreduce", "ring:8") != pytest.approx(wrong, rel=0.005)


def test_efficiency_refuses_a_negative_rank_limit():
    # bench/efficiency.py turns this error into its usage error (exit 2).
    with pytest.raises(ValueError) as error:
        cf.check_rank_limit(-1)
    assert "--max-derived-ranks -1 is negative; accepted: 0 (every shape)" in str(error.value)
    cf.check_rank_limit(0)
    cf.check_rank_limit(300)
