"""Shared by the fuzzers (test_fuzz.py, test_fuzz_sim.py)."""

from __future__ import annotations


def assert_reached(counts: dict, share: float, what: str) -> None:
    """Reports how many examples got past validation, and asserts that enough did."""
    reached, examples = counts["reached"], counts["examples"]
    print(f"{what}: {reached} of {examples} examples reached the engine")
    assert examples > 0
    assert reached >= share * examples, (
        f"{what}: only {reached} of {examples} examples reached the engine; the fuzzer mostly "
        "tests validation"
    )
