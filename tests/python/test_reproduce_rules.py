"""The one tie rule and the one crossover reading of `topocoll reproduce` (core.py) on small
hand-made tables, each beside the answer the per-paper rules they replace gave."""

from __future__ import annotations

import json
from importlib import resources

import pytest
from topocoll.reproduce.core import (
    crossover,
    first_loss_after_crossover,
    gain_loses,
    gain_wins,
    is_loss,
    is_win,
    judge,
    trend,
    win_loss_percent,
)

KIB = 1 << 10


def old_swing_best_up_to(sizes, gains):
    """Swing's former reading: stop at the first gain below 1 (1.0012 counted as a win)."""
    last = 0
    for size, gain in zip(sizes, gains, strict=True):
        if gain is None or gain < 1.0:
            break
        last = size
    return last


def old_trivance_best_up_to(sizes, gains):
    """Trivance's former reading: stop at the first size any other family is faster at all."""
    last = 0
    for size, gain in zip(sizes, gains, strict=True):
        if gain < 1.0 - 1e-9:
            break
        last = size
    return last


def test_a_win_is_more_than_one_percent_faster():
    assert is_win(1.0, 1.0101)
    assert not is_win(1.0, 1.01)  # exactly 1%: a tie
    assert not is_win(1.0, 1.0012)  # Swing's former rule counted this as a win
    assert is_loss(1.0101, 1.0)
    assert not is_loss(1.0, 1.0101)
    assert gain_wins(1.02) and not gain_wins(1.0012) and not gain_loses(0.995)
    assert gain_loses(0.98)


def test_win_and_loss_rates_leave_ties_out():
    # 2 wins, 1 tie (1.005), 1 tie (0.995), 1 loss
    win, loss = win_loss_percent([1.2, 1.02, 1.005, 0.995, 0.9])
    assert (win, loss) == (40.0, 20.0)
    # the old Swing rule (gain >= 1 is a win) counted the tie at 1.005 as a win
    assert sum(g >= 1.0 for g in [1.2, 1.02, 1.005, 0.995, 0.9]) == 3


# Trivance Fig. 6a (ring of 8) as the former reading met it: Swing 1.4% faster at 64 KiB,
# Trivance ahead again up to 512 KiB, beaten at every size from 1 MiB.
RING8_SIZES = [16 * KIB, 32 * KIB, 64 * KIB, 128 * KIB, 256 * KIB, 512 * KIB, 1024 * KIB,
               2048 * KIB]  # fmt: skip
RING8_GAINS = [1.10, 1.05, 0.986, 1.03, 1.02, 1.004, 0.95, 0.90]


def test_crossover_is_where_the_losses_start_for_good():
    assert crossover(RING8_SIZES, RING8_GAINS) == 512 * KIB  # the paper's 512 KiB
    assert first_loss_after_crossover(RING8_SIZES, RING8_GAINS) == 1024 * KIB


def test_the_old_readings_stopped_at_the_first_loss():
    assert old_trivance_best_up_to(RING8_SIZES, RING8_GAINS) == 32 * KIB
    assert old_swing_best_up_to(RING8_SIZES, RING8_GAINS) == 32 * KIB
    assert crossover(RING8_SIZES, RING8_GAINS) != old_trivance_best_up_to(RING8_SIZES, RING8_GAINS)


@pytest.mark.parametrize(
    ("gains", "new", "old_swing"),
    [
        # a tie (0.995) before the last loss does not end it; Swing's old rule stopped there
        ([1.5, 1.2, 0.995, 1.1, 0.9], 4, 2),
        # a gain of 1.0012 at the end: a tie, not lost, so the crossover is the largest size
        ([1.5, 1.2, 1.1, 1.05, 1.0012], 5, 5),
        # a loss by 0.5% at the largest size is a tie: old rule ended a step earlier
        ([1.5, 1.2, 1.1, 1.05, 0.995], 5, 4),
        # losing everywhere
        ([0.9, 0.8, 0.9, 0.95, 0.5], 0, 0),
        # a missing gain counts as a loss
        ([1.5, 1.2, None, None, None], 2, 2),
    ],
)
def test_crossover_table(gains, new, old_swing):
    sizes = [1, 2, 3, 4, 5]
    assert crossover(sizes, gains) == new
    assert old_swing_best_up_to(sizes, gains) == old_swing


def test_trend_needs_more_than_a_tie():
    assert trend([2.0, 2.1, 2.3]) == 1
    assert trend([2.3, 2.1, 2.0]) == -1
    assert trend([2.0, 2.005, 2.01]) == 0  # flat within the tie rule
    assert trend([2.0, 1.5, 2.3]) == 0  # not monotone
    assert trend([2.0]) == 0


def test_judge_by_the_one_rule():
    assert judge({"value": 1.0, "relation": "wins"}, 1.0012, "small") == "differ"
    assert judge({"value": 1.0, "relation": "wins"}, 1.02, "small") == "agree"
    # the former ">= 1" claim agreed with the same 1.0012
    assert judge({"value": 1.0, "relation": "at_least"}, 1.0012, "small") == "agree"
    assert judge({"value": 1.0, "relation": "loses"}, 0.98, "small") == "agree"
    cross = {"value": 4.0, "relation": "crossover", "tolerance": {"steps": 1}}
    assert [judge(cross, x, "small") for x in (2.0, 8.0, 1.0, 16.0, 0.0)] == [
        "agree", "agree", "differ", "differ", "differ"]  # fmt: skip
    # Trivance F8-200G was "2 +/- 2 MiB", which a crossover of 16 KiB met
    old = {"value": 2.0, "relation": "equal", "tolerance": {"abs": 2.0}}
    assert judge(old, 16 / 1024, "paper") == "agree"
    assert judge({**cross, "value": 4.0}, 16 / 1024, "paper") == "differ"
    assert judge({"value": 1, "relation": "trend"}, 0, "small") == "differ"
    assert judge({"value": 1.2, "relation": "at_least", "tolerance": {"rel": 0.1}}, 1.09,
                 "small") == "agree"  # fmt: skip


DEFAULT = {"rel": 0.1, "abs_percent": 10.0, "steps": 1}


@pytest.mark.parametrize("paper", ["swing", "trivance", "canary"])
def test_claims_use_one_rule_and_justify_wider_tolerances(paper):
    text = resources.files("topocoll.reproduce").joinpath("claims", f"{paper}.json").read_text()
    for c in json.loads(text)["claims"]:
        assert c.get("kind") in ("performance", "closed-form"), c["id"]
        tol = c.get("tolerance", {})
        wider = (
            tol.get("rel", 0) > DEFAULT["rel"]
            or tol.get("steps", 0) > DEFAULT["steps"]
            or (c.get("unit") == "%" and tol.get("abs", 0) > DEFAULT["abs_percent"])
            or (c.get("unit") != "%" and c["relation"] == "equal" and "abs" in tol
                and tol["abs"] > DEFAULT["rel"] * abs(c["value"]) + 1e-9
                and c["kind"] == "performance")
        )  # fmt: skip
        assert not wider or c.get("note"), f"{c['id']}: wider tolerance without a note"
        if c["kind"] == "performance" and "best up to" in c["key"]:
            assert c["relation"] == "crossover", c["id"]
        # no "ratio >= 1" where the paper states a number: wins/loses, or the paper's number
        if c["kind"] == "performance" and c["relation"] == "at_least" and c.get("unit") == "x":
            assert c["value"] != 1.0, f"{c['id']}: '>= 1' instead of the tie rule"


def write_fig10(folder, gains_per_shape: dict[str, list[float]]) -> None:
    """A stored swing-fig10 run: its verdict (no claims needed) and its summary CSV, sizes
    1 MiB to 64 MiB."""
    rows = ["case,size_bytes,best,best_paper,best_baseline,gain"]
    for shape, gains in gains_per_shape.items():
        for k, gain in enumerate(gains):
            rows.append(f"{shape},{(1 << 20) << k},swing-bw,swing-bw,bucket,{gain}")
    (folder / "swing-fig10.csv").write_text("\n".join(rows) + "\n")
    stored = {"experiment": "swing-fig10", "paper": "swing", "figure": "Fig. 10",
              "scale": "paper", "seconds": 1.0, "claims": []}  # fmt: skip
    (folder / "swing-fig10.verdict.json").write_text(json.dumps(stored))


def test_rejudge_reads_the_stored_csv_by_todays_rules(tmp_path):
    from topocoll.reproduce import rejudge

    # 64x16 ties at 8 MiB (0.995), wins again at 16 and 32 MiB, loses at 64 MiB: crossover
    # 32 MiB (the old reading stopped at 4 MiB); the max gain grows with the aspect ratio.
    write_fig10(tmp_path, {"64x16": [2.0, 1.5, 1.2, 0.995, 1.05, 1.02, 0.9],
                           "128x8": [2.5, 1.5, 1.2, 1.1, 1.05, 1.02, 0.9],
                           "256x4": [3.0, 1.5, 1.2, 1.1, 1.05, 1.02, 0.9]})  # fmt: skip
    (v,) = rejudge(tmp_path)
    by_id = {c["id"]: c for c in v["claims"]}
    assert by_id["F10-32MiB"]["ours"] == 32.0
    assert by_id["F10-32MiB"]["verdict"] == "agree"
    assert by_id["F10-gain-grows"]["ours"] == 1
    assert by_id["F10-gain-grows"]["verdict"] == "agree"
    assert by_id["F10-3x"]["ours"] == 3.0
    stored = json.loads((tmp_path / "swing-fig10.verdict.json").read_text())
    assert stored["by_kind"]["performance"]["agree"] == 3


def test_rejudge_keeps_the_runs_a_summary_was_made_from(tmp_path):
    from topocoll.reproduce import rejudge

    stored = {"experiment": "swing-fig15", "paper": "swing", "figure": "Fig. 15",
              "scale": "paper", "seconds": 1.0, "from_runs": "docs/reproduction/paper",
              "claims": [{"key": "min median gain", "ours": 1.3}]}  # fmt: skip
    (tmp_path / "swing-fig15.verdict.json").write_text(json.dumps(stored))
    (v,) = rejudge(tmp_path)
    assert v["from_runs"] == "docs/reproduction/paper"
    assert {c["id"]: c["verdict"] for c in v["claims"]}["F15-median-low"] == "agree"


@pytest.mark.parametrize(
    "files, message",
    [
        ({"swing-fig7.csv": "case,size_bytes,gain\n8x8,32,1.1\n"}, "verdict.json is missing"),
        ({"swing-fig7.csv": "case,size_bytes,gain\n8x8,32,1.1\n",
          "swing-fig7.verdict.json": "{not json"}, "not a verdict"),
        ({"swing-fig7.csv": "case,size\n8x8,32\n",
          "swing-fig7.verdict.json": '{"scale": "small"}'}, "not a gain table"),
    ],
)  # fmt: skip
def test_from_runs_refuses_a_stored_run_it_cannot_read(tmp_path, capsys, files, message):
    from topocoll.cli.reproduce import main

    for name, text in files.items():
        (tmp_path / name).write_text(text)
    assert main(["swing-fig15", "--from-runs", str(tmp_path), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert message in err and "accepted" in err


def test_report_counts_performance_and_closed_form_apart(capsys):
    from topocoll.reproduce.report import counts

    verdicts = {"x": {"claims": [
        {"kind": "performance", "verdict": "agree"},
        {"kind": "performance", "verdict": "differ"},
        {"kind": "closed-form", "verdict": "agree"},
        {"verdict": "not judged at small scale"},
    ]}}  # fmt: skip
    c = counts(verdicts)
    assert c["performance"] == {"claims": 3, "agree": 1, "differ": 1, "not judged": 1}
    assert c["closed-form"] == {"claims": 1, "agree": 1, "differ": 0, "not judged": 0}
    assert c["all"]["claims"] == 4


def test_rejudge_of_a_broken_stored_run_is_one_line_exit_2(tmp_path):
    import subprocess
    import sys

    (tmp_path / "swing-fig10.verdict.json").write_text("{not json")
    done = subprocess.run([sys.executable, "-m", "topocoll.reproduce.report", "--rejudge",
                           str(tmp_path)], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    missing = subprocess.run([sys.executable, "-m", "topocoll.reproduce.report", "--rejudge",
                              str(tmp_path / "none")], capture_output=True, text=True,
                             timeout=120)  # fmt: skip
    assert missing.returncode == 2
    paper = subprocess.run([sys.executable, "-m", "topocoll.reproduce.report", "--rejudge",
                            str(tmp_path), "cm200"], capture_output=True, text=True,
                           timeout=120)  # fmt: skip
    assert paper.returncode == 2
    assert "paper cm200; accepted: swing, trivance, canary, bine" in paper.stderr


def expected_row(claim: dict) -> str:
    """The start of a claim's row in the report: its paper cell too, unless the value is a
    closed form evaluated at the n each scale ran."""
    from topocoll.reproduce.report import paper_cell

    row = f"| {claim['id']}: {claim['claim']} | {claim['where']} |"
    if "formula" in claim:
        return row
    tol = ", ".join(f"{k} {t}" for k, t in claim.get("tolerance", {}).items())
    as_judged = {"paper": claim["value"], "unit": claim.get("unit", ""),
                 "relation": claim.get("relation", "equal")}  # fmt: skip
    return f"{row} {paper_cell(as_judged, tol)} |"


def test_the_report_lists_every_claim_with_its_tolerance_and_note():
    # docs/reproduction.md, "Every claim": per claim of the claims files, its row with the
    # paper's value and tolerance as the report writes them, and its note under the table
    # (a claim added, or a note or tolerance changed, without the page would fail here)
    from pathlib import Path

    from topocoll.reproduce import experiments
    from topocoll.reproduce.core import claims_of
    from topocoll.reproduce.report import notes_block

    page = (Path(__file__).parents[2] / "docs" / "reproduction.md").read_text(encoding="utf-8")
    every = page[page.index("## Every claim") :]
    for experiment in experiments():
        section = every[every.index(f"#### {experiment.name} (") :]
        end = section.find("\n#### ", 1)
        section = section[: end if end > 0 else None]
        claims = claims_of(experiment)
        for c in claims:
            assert expected_row(c) in section, c["id"]
        assert notes_block(claims) in section, experiment.name
