"""topocoll.comparison: the best run per size is the fastest, the summary's columns keep the
papers' algorithms, topocoll's own variants and the baselines apart, and the result does not
depend on how many processes ran it."""

from __future__ import annotations

import pytest
import topocoll
from topocoll.comparison import size_range

# Its module-scoped fixture runs once: every test of the module on one pytest-xdist worker
# (`--dist loadgroup`, Makefile).
pytestmark = pytest.mark.xdist_group("comparison")

ALGORITHMS = "swing-bw,swing-lat,bucket,bucket-balanced,recdoub-lat"


@pytest.fixture(scope="module")
def comparison():
    return topocoll.compare(
        "torus:4x4", "allreduce", algorithms=ALGORITHMS, sizes="64B:1MiB", model="analytic"
    )


def test_size_ranges_are_the_powers_of_two_between_the_bounds():
    assert size_range("32B:128B") == [32, 64, 128]
    assert size_range("100,1KiB,100") == [100, 1024]
    with pytest.raises(ValueError, match="hold no power of two"):
        size_range("33B:63B")


def test_the_best_of_each_size_is_the_fastest_algorithm(comparison):
    for s in comparison.summary:
        rows = [
            e for e in comparison.entries if e.size_bytes == s.size_bytes and e.kind == "algorithm"
        ]
        assert len(rows) == 5
        fastest = min(rows, key=lambda e: e.time_s)
        assert s.best == fastest.algorithm and s.best_time_s == fastest.time_s
        assert [e.algorithm for e in rows if e.best] == [fastest.algorithm]


def test_the_summary_keeps_papers_variants_and_baselines_apart(comparison):
    origins = {e.algorithm: e.origin for e in comparison.entries if e.kind == "algorithm"}
    assert origins == {
        "swing-bw": "paper",
        "swing-lat": "paper",
        "bucket": "baseline",
        "bucket-balanced": "variant",
        "recdoub-lat": "baseline",
    }
    for s in comparison.summary:
        rows = {
            e.algorithm: e
            for e in comparison.entries
            if e.size_bytes == s.size_bytes and e.kind == "algorithm"
        }
        assert s.best_paper in ("swing-bw", "swing-lat")
        assert s.best_variant == "bucket-balanced"
        assert s.best_baseline in ("bucket", "recdoub-lat")
        paper = max(rows[a].goodput_gbps for a in ("swing-bw", "swing-lat"))
        base = max(rows[a].goodput_gbps for a in ("bucket", "recdoub-lat"))
        assert s.best_paper_goodput_gbps == paper
        assert s.gain == pytest.approx(paper / base)


def test_two_processes_give_the_comparison_of_one(comparison):
    spread = topocoll.compare(
        "torus:4x4",
        "allreduce",
        algorithms=ALGORITHMS,
        sizes="64B:1MiB",
        model="analytic",
        jobs=2,
        use_mpi=False,
    )
    assert spread.to_dict() == comparison.to_dict()
