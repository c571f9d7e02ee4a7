"""The dynamics as recall uses them: one read of the observer's memory, then pure weights."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import UUID

import pytest
from freezegun import freeze_time

from memhall.domains.belief import EvidenceKind
from memhall.domains.dynamics.config import DynamicsConfig
from memhall.domains.entry import draft
from memhall.domains.recall import Recall
from memhall.governance import evidence
from memhall.governance.hall import Hall
from memhall.ledgers import dynamics_weights
from memhall.ledgers.materialize import materialize

CONFIG = DynamicsConfig()
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def write(hall: Hall, text: str, **tags: tuple[str, ...]) -> str:
    return hall.write("codex", "company", draft(layer="L2", kind="claim", text=text, tags=tags,
                                                addressees=("gemini",))).entry_id


def snapshot(hall: Hall, observer: str, ids: list[str]) -> dynamics_weights.Snapshot:
    stream = hall.streams.stream("company")
    with hall.store.read() as conn:
        return dynamics_weights.read_snapshot(conn, stream, hall.gate, observer, ids, CONFIG)


def record_recall(hall: Hall, observer: str, handed: list[str], nudges: dict[str, dict[str, float]]) -> None:
    stream = hall.streams.stream("company")
    with hall.store.write() as session:
        stream.save(session, Recall(domain="company", observer=observer, query="billing", handed=tuple(handed),
                                    recalled_at=hall.clock(), actor=observer, rule="test", nudges=nudges))


def test_reviews_count_for_the_observer_they_were_handed_to(hall: Hall) -> None:
    with freeze_time(day(0)):
        billing = write(hall, "billing runs on fridays", topics=("billing",))
    with freeze_time(day(1)):
        materialize(hall, "claude", "company", seat="gemini", task="when does billing run")

    seat = snapshot(hall, "gemini", [billing]).records[billing]
    chair = snapshot(hall, "codex", [billing]).records[billing]

    assert len(seat.reviews) == 1 and chair.reviews == ()


def test_supporting_evidence_reviews_the_claim_for_whoever_recorded_it(hall: Hall) -> None:
    with freeze_time(day(0)):
        billing = write(hall, "billing runs on fridays", topics=("billing",))
    with freeze_time(day(3)):
        evidence.record(hall, "codex", "company", UUID(billing), EvidenceKind.SUPPORTS, ref="runbook#billing")
    with freeze_time(day(4)):
        evidence.record(hall, "gemini", "company", UUID(billing), EvidenceKind.CONTRADICTS, ref="chat#7")

    assert snapshot(hall, "codex", [billing]).records[billing].reviews == (day(3),)
    assert snapshot(hall, "gemini", [billing]).records[billing].reviews == ()  # a doubt is no review
    assert snapshot(hall, "claude", [billing]).records[billing].reviews == ()


def test_a_recall_s_nudges_are_applied_by_the_projection_and_move_the_next_weights(hall: Hall) -> None:
    billing = write(hall, "billing runs on fridays", topics=("billing",))
    first = snapshot(hall, "gemini", [billing])
    moved = dynamics_weights.nudges([billing], hall.clock(), first)

    record_recall(hall, "gemini", [billing], moved)
    record_recall(hall, "gemini", [billing], dynamics_weights.nudges([billing], hall.clock(),
                                                                      snapshot(hall, "gemini", [billing])))

    after = snapshot(hall, "gemini", [billing])
    assert moved[billing]["salience"] == pytest.approx(0.025)
    assert after.nudges[billing]["salience"] == pytest.approx(0.025 + 0.05 * (1 - 0.525))
    weights = dynamics_weights.weigh([billing], hall.clock(), after)[billing]
    assert weights.salience_meta == pytest.approx(0.5 + after.nudges[billing]["salience"])
    assert weights.salience > 1.0
    assert snapshot(hall, "codex", [billing]).nudges == {}  # another holder's memory is its own


def test_only_relevant_candidates_are_reweighed(hall: Hall) -> None:
    with freeze_time(day(0)):
        old = write(hall, "billing ran on mondays", topics=("billing",))
    with freeze_time(day(40)):
        new = write(hall, "billing runs on fridays", topics=("billing",))
    weights = dynamics_weights.weigh([old, new], day(40), snapshot(hall, "codex", [old, new]))

    scores = dynamics_weights.reweighed({old: 1.0, new: 1.0, "recent-only": 1.0}, weights, [old, new])

    assert weights[old].faded and not weights[new].faded
    assert scores[old] < scores[new] and scores["recent-only"] == 1.0


def test_explain_shows_strength_reviews_and_tier(hall: Hall) -> None:
    billing = write(hall, "billing runs on fridays", topics=("billing",))
    weights = dynamics_weights.weigh([billing], hall.clock(), snapshot(hall, "codex", [billing]))
    tier = dynamics_weights.tiers([billing], 1, CONFIG.tiers)[billing]

    shown = dynamics_weights.explained(weights[billing], tier.value)

    assert shown["tier"] == "working" and shown["reviews"] == 0
    assert shown["strength"] == pytest.approx(1.0, abs=1e-3)
