"""The recall yardstick runs end to end and its frozen question set stays frozen."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.evaluation.datasets import STORY, load_multiagent

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "benchmarks" / "recall_eval.py"
#: the question set was committed before any tuning; a change is a new set, not an edit
FROZEN = {
    "turns.jsonl": "6c254ba8748218797894a614320229a6013e5afee5a29ea0b1fc6ce7f738fd87",
    "questions.jsonl": "937d453406a3d09ffba48cfc9862cbeb003ae425abd36ac18ab5a8b0b77dabd1",
}
CELL = r"(\d+\.\d|–)"


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """`--keep` a folder shared by this module's runs: the story is written once per worker
    (about ten seconds through the governed write path), then reopened."""
    return ["--keep", str(tmp_path_factory.mktemp("recall-eval"))]


def test_the_eval_prints_one_well_formed_row_per_system_for_a_slice_of_the_story(kept: list[str]) -> None:
    run = subprocess.run([sys.executable, str(SCRIPT), "--limit", "30", "--systems", "fts", *kept],
                         capture_output=True, text=True, timeout=300, check=False)

    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert lines[0].startswith("recall eval · multiagent · 30 questions")
    assert lines[2] == ("| system | R@1 | R@5 | R@10 | abst-P | abst-R | leak@5 | p50 ms | p95 ms "
                        "| cpu p50 | cpu p95 |")
    assert re.fullmatch(rf"\| fts( \| {CELL}){{10}} \|", lines[4])


def test_the_json_output_carries_every_score_of_every_system(kept: list[str]) -> None:
    run = subprocess.run([sys.executable, str(SCRIPT), "--limit", "3", "--systems", "fts", "--json", *kept],
                         capture_output=True, text=True, timeout=300, check=False)

    scores = json.loads(run.stdout)["systems"]["fts"]

    assert scores["questions"] == 3
    assert {"R@1", "R@5", "R@10", "abstain_precision", "abstain_recall", "leak@5", "p50_ms",
            "p95_ms", "cpu_p50_ms", "cpu_p95_ms", "by_type"} <= set(scores)


def test_repeat_asks_each_question_again_for_its_latency_and_scores_the_same_answers(kept: list[str]) -> None:
    def scores(*extra: str) -> dict[str, object]:
        run = subprocess.run([sys.executable, str(SCRIPT), "--limit", "10", "--systems", "fts", "--json", *kept,
                              *extra],
                             capture_output=True, text=True, timeout=300, check=True)
        return dict(json.loads(run.stdout))

    once, thrice = scores(), scores("--repeat", "3")

    assert (once["repeat"], thrice["repeat"]) == (1, 3)
    quality = ("R@1", "R@5", "R@10", "abstain_precision", "abstain_recall", "leak@5")
    fts_once, fts_thrice = once["systems"]["fts"], thrice["systems"]["fts"]  # type: ignore[index]
    assert {k: fts_once[k] for k in quality} == {k: fts_thrice[k] for k in quality}


def test_an_unknown_system_is_a_usage_error() -> None:
    run = subprocess.run([sys.executable, str(SCRIPT), "--systems", "oracle"],
                         capture_output=True, text=True, timeout=60, check=False)

    assert run.returncode == 2
    assert "unknown system oracle" in run.stderr


def test_the_story_has_enough_turns_and_questions_and_every_evidence_is_held_by_its_asker() -> None:
    dataset = load_multiagent()

    story = dataset.conversations[0]
    assert len(story.turns) >= 400
    assert len(story.questions) >= 100
    assert any(q.abstain for q in story.questions)


def test_the_committed_story_and_questions_are_unchanged() -> None:
    digests = {name: hashlib.sha256((STORY / name).read_bytes()).hexdigest() for name in FROZEN}

    assert digests == FROZEN


def test_the_table_states_each_target_against_the_figure_and_the_baseline_of_the_same_run() -> None:
    from benchmarks.evaluation.datasets import Question
    from benchmarks.evaluation.scores import Outcome, Report, targets

    asked = Question("q1", "where is the nas?", "maki", ("t1",))

    def ran(found_at: int | None, cpu_ms: float) -> list[Outcome]:
        return [Outcome(asked, found_at, False, False, cpu_ms / 500, cpu_ms / 1000)]

    report = Report("multiagent", entries=414, distractors=100_000,
                    outcomes={"bm25": ran(7, 1), "fused": ran(1, 42), "fused-every-word": ran(1, 130)})

    lines = targets(report)

    assert ("- p95 <= 50 ms at 100,000 entries: fused p95 42.0 ms CPU (84.0 ms wall) over 100,414 entries; "
            "baseline fused-every-word 130.0 ms CPU (260.0 ms wall), same run -> met") in lines
    assert "- story: fused R@5 >= bm25 + 10 points: +100.0 points -> met" in lines
