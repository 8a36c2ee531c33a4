"""`topocoll reproduce` at small scale: each experiment writes its verdict, every claim of its
paper's claims file gets one, and the exact claims (Swing Table 2, CM-200 Table 2, Trivance
Table 1's step counts) agree."""

from __future__ import annotations

import json

import pytest
from topocoll.reproduce import experiments, main, select
from topocoll.reproduce.core import claims_of, judge, load_claims

VERDICTS = {"agree", "differ", "not judged at small scale"}
FAST = ["swing-table2", "swing-fig8", "swing-fig12", "swing-fig13", "swing-fig14", "swing-fig15",
        "cm200-table2", "cm200-tables4-9", "trivance-table1", "trivance-fig6", "canary-fig7a",
        "bine-fig5", "bine-background"]  # fmt: skip


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reproduce")
    assert main([*FAST, "--scale", "small", "--jobs", "1", "--out", str(folder)]) == 0
    return folder


@pytest.mark.parametrize("name", FAST)
def test_every_claim_has_a_verdict(out, name):
    v = json.loads((out / name / "verdict.json").read_text())
    experiment = select([name])[0]
    assert [c["id"] for c in v["claims"]] == [c["id"] for c in claims_of(experiment)]
    assert v["claims"], f"{name} has no claims"
    for claim in v["claims"]:
        assert claim["verdict"] in VERDICTS
        assert claim["ours"] is not None, f"{name}: no result under '{claim['key']}'"
    assert (out / name / "results.json").exists()
    assert list((out / name).glob("*.csv")) and list((out / name).glob("*.png"))


def verdicts(out, name) -> dict[str, str]:
    v = json.loads((out / name / "verdict.json").read_text())
    return {c["id"]: c["verdict"] for c in v["claims"]}


def test_exact_claims_agree(out):
    swing = verdicts(out, "swing-table2")
    assert all(swing[f"T2-swing-D{d}"] == "agree" for d in (2, 3, 4))
    cm200 = verdicts(out, "cm200-table2")
    assert set(cm200.values()) == {"agree"}
    trivance = verdicts(out, "trivance-table1")
    assert all(trivance[f"T1-{a}-Lambda"] == "agree" for a in ("trivance-bw", "trivance-lat"))
    results = json.loads((out / "swing-table2" / "results.json").read_text())
    assert results["swing-bw D=2"] == pytest.approx(1.1846, abs=1e-4)  # the value


def test_hyperx_has_no_congestion_deficiency(out):
    # swing-nsdi24.txt 5.4.2: every Swing peer is one hop away on HyperX
    assert verdicts(out, "swing-fig14")["F14-no-deficiency"] == "agree"
    results = json.loads((out / "swing-fig14" / "results.json").read_text())
    assert results["swing-bw deficiency"] == pytest.approx(1.0, abs=1e-3)


def test_background_load_makes_bine_win_more(out):
    # Bine moves fewer bytes over global links; the more of them other jobs take, the more it
    # gains over binomial trees (a flow model ignoring --global-load would give equal gains)
    r = json.loads((out / "bine-background" / "results.json").read_text())
    for collective in ("bcast", "allreduce"):
        alone = r[f"{collective} median gain % at load 0.0"]
        loaded = r[f"{collective} median gain % at load 0.95"]
        assert loaded > alone + 5, (collective, alone, loaded)


def test_every_claim_names_an_experiment_that_exists():
    names = {e.name for e in experiments()}
    for paper in ("swing", "trivance", "cm200", "canary", "bine"):
        claims = load_claims(paper)["claims"]
        assert claims
        for c in claims:
            assert c["experiment"] in names, c["id"]
            assert {"where", "claim", "key", "value"} <= set(c)


def test_judge():
    claim = {"value": 1.19, "tolerance": {"abs": 0.01}}
    assert judge(claim, 1.1846, "small") == "agree"
    assert judge(claim, 1.21, "small") == "differ"
    assert judge({**claim, "scale": "paper"}, 1.0, "small") == "not judged at small scale"
    assert judge({"value": 1.5, "relation": "at_least"}, 1.4, "paper") == "differ"


def test_unknown_experiment_exits_2(capsys):
    assert main(["no-such-figure", "--out", "/nonexistent"]) == 2
    assert "accepted" in capsys.readouterr().err


def test_list_names_every_experiment_with_paper_and_estimate(capsys):
    assert main(["--list"]) == 0
    listing = capsys.readouterr().out
    for e in experiments():
        line = next(x for x in listing.splitlines() if x.startswith(e.name + " "))
        assert e.paper in line and e.figure in line
        assert e.estimate_s["small"] > 0 and e.estimate_s["paper"] > 0
    papers = {e.paper for e in experiments()}
    assert papers == {"swing", "trivance", "cm200", "canary", "bine"}
