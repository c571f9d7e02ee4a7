"""Promotion through the layers, each step decided by the real default policy."""

from __future__ import annotations

from uuid import UUID

import pytest

from memhall.domains.entry import draft
from memhall.domains.errors import (
    PolicyDeniedError,
    RefusedError,
)
from memhall.domains.values import Layer
from memhall.governance import history, promotions, sessions
from memhall.governance.hall import Hall

POSITIONS = {"gemini": ("agree", "matches the runbook"), "codex": ("disagree", "too early"),
             "claude": ("abstain", "nominated it")}


def session(hall: Hall, actor: str = "codex") -> str:
    """A session the actor opens now, by handoff (or continues, if one is open)."""
    opened = sessions.handoff(hall, actor, "company").session_id
    assert opened is not None
    return opened


def end(hall: Hall, session_id: str, actor: str = "codex") -> None:
    sessions.wrap_up(hall, actor, "company", "done for today", session_id=session_id)


def full_council(hall: Hall, promotion: UUID) -> None:
    for member, (position, reason) in POSITIONS.items():
        promotions.dissent(hall, member, "company", promotion, position, reason)


def l1(hall: Hall, text: str = "retries fix the flaky deploy") -> UUID:
    return UUID(hall.write("gemini", "company", draft(text=text)).entry_id)


def to_l2(hall: Hall, entry: UUID) -> None:
    promotions.promote(hall, "codex", "company", entry, useful=True, evidence=("ci-run-42",),
                       not_temporary=True, safe=True)


def to_l3(hall: Hall, entry: UUID) -> None:
    nomination = promotions.nominate(hall, "claude", "company", entry, Layer.L3, "has held for a month")
    promotions.ratify(hall, "maki", "company", nomination.id)


def layer_of(hall: Hall, entry: UUID) -> str:
    return history.show(hall, "maki", "company", entry).entry.layer


def last_event(hall: Hall) -> dict[str, object]:
    event = history.log(hall, "maki", "company", limit=1)[0]
    return {"topic": event.topic, "actor": event.actor, "rule": event.rule, **event.data}


def test_the_session_chair_promotes_a_seat_answer_to_l2_recording_all_four_answers(hall: Hall) -> None:
    entry = l1(hall)

    to_l2(hall, entry)

    view = history.show(hall, "maki", "company", entry)
    assert view.entry.layer == "L2"
    promoted = view.history[-1]
    assert promoted.topic == "memhall.Entry.Promoted"
    assert promoted.data["answers"] == {"useful": "yes", "not_temporary": "yes", "safe": "yes",
                                        "evidence": "ci-run-42"}


@pytest.mark.parametrize(("answers", "question"), [
    ({"useful": False}, "useful in future?"),
    ({"not_temporary": False}, "not a temporary narrative?"),
    ({"safe": False}, "safe"),
])
def test_any_no_refuses_l1_to_l2_naming_the_question(hall: Hall, answers: dict[str, bool], question: str) -> None:
    entry = l1(hall)
    given = {"useful": True, "not_temporary": True, "safe": True, **answers}

    with pytest.raises(RefusedError, match=question.replace("?", r"\?")):
        promotions.promote(hall, "codex", "company", entry, evidence=("ref",), **given)

    assert layer_of(hall, entry) == "L1"
    assert last_event(hall)["topic"] == "memhall.Refusal.Recorded"


def test_promotion_without_evidence_is_refused(hall: Hall) -> None:
    entry = l1(hall)

    with pytest.raises(PolicyDeniedError, match="evidence"):
        promotions.promote(hall, "codex", "company", entry, useful=True, evidence=(),
                           not_temporary=True, safe=True)

    assert layer_of(hall, entry) == "L1"


def test_a_stale_fact_nomination_is_accepted_by_the_owner(hall: Hall) -> None:
    entry = l1(hall)
    to_l2(hall, entry)
    nomination = promotions.nominate(hall, "claude", "company", entry, Layer.L3, "true since March")

    assert layer_of(hall, entry) == "L2"
    pending = sessions.handoff(hall, "codex", "company", open_session=False).pending_nominations
    assert [p["id"] for p in pending] == [str(nomination.id)]

    promotions.ratify(hall, "maki", "company", nomination.id)

    assert layer_of(hall, entry) == "L3"
    assert sessions.handoff(hall, "codex", "company", open_session=False).pending_nominations == []
    assert [e.id for e in promotions.ratified(hall, "maki", "company", "L3").entries] == [str(entry)]


def test_only_l2_entries_are_nominated_for_l3(hall: Hall) -> None:
    entry = l1(hall)

    with pytest.raises(PolicyDeniedError):
        promotions.nominate(hall, "claude", "company", entry, Layer.L3, "stale fact")


def test_the_system_chair_cannot_ratify(hall: Hall) -> None:
    entry = l1(hall)
    to_l2(hall, entry)
    nomination = promotions.nominate(hall, "claude", "company", entry, Layer.L3, "stale fact")

    with pytest.raises(PolicyDeniedError):
        promotions.ratify(hall, "claude", "company", nomination.id)

    assert layer_of(hall, entry) == "L2"
    refusal = last_event(hall)
    assert refusal["topic"] == "memhall.Refusal.Recorded"
    assert refusal["action"] == "ratify"
    assert refusal["actor"] == "claude"


def test_canon_needs_three_reminders_from_distinct_sessions_and_dissent(hall: Hall) -> None:
    entry = l1(hall)
    to_l2(hall, entry)
    to_l3(hall, entry)
    canon = promotions.nominate(hall, "claude", "company", entry, Layer.L4, "binding for every deploy")
    a = session(hall)
    promotions.remind(hall, "codex", "company", canon.id, a)
    end(hall, a)
    b = session(hall)
    promotions.remind(hall, "codex", "company", canon.id, b)
    promotions.remind(hall, "codex", "company", canon.id, b)  # recorded, not counted
    end(hall, b)
    c = session(hall)

    with pytest.raises(PolicyDeniedError, match="2 of 3 reminders"):
        promotions.ratify(hall, "maki", "company", canon.id)

    promotions.remind(hall, "codex", "company", canon.id, c)
    with pytest.raises(PolicyDeniedError, match="no dissent recorded"):
        promotions.ratify(hall, "maki", "company", canon.id)

    full_council(hall, canon.id)
    promotions.ratify(hall, "maki", "company", canon.id)

    assert layer_of(hall, entry) == "L4"
    (row,) = promotions.promotions(hall, "maki", "company", all_=True)[-1:]
    assert row.reminders == 4
    assert row.reminder_sessions == [a, b, c]
    assert history.show(hall, "maki", "company", entry).entry.layer == "L4"


def test_a_promotion_is_not_shown_at_its_target_layer_before_ratification(hall: Hall) -> None:
    entry = l1(hall)
    to_l2(hall, entry)
    promotions.nominate(hall, "claude", "company", entry, Layer.L3, "stale fact")

    knowledge = promotions.ratified(hall, "maki", "company", "L3")

    assert not knowledge.available
    assert knowledge.message == "L3 unavailable: nothing ratified in company"
    assert promotions.ratified(hall, "maki", "company", "L4").message == "L4 unavailable: nothing ratified in company"


def test_reject_and_withdraw_close_a_nomination_without_moving_the_entry(hall: Hall) -> None:
    first, second = l1(hall, "one"), l1(hall, "two")
    for entry in (first, second):
        to_l2(hall, entry)
    rejected = promotions.nominate(hall, "claude", "company", first, Layer.L3, "stale")
    withdrawn = promotions.nominate(hall, "claude", "company", second, Layer.L3, "stale")

    promotions.reject(hall, "maki", "company", rejected.id, "not verified")
    promotions.withdraw(hall, "claude", "company", withdrawn.id, "premature")

    assert promotions.promotions(hall, "maki", "company") == []
    assert layer_of(hall, first) == layer_of(hall, second) == "L2"
    with pytest.raises(RefusedError, match="is rejected"):
        promotions.ratify(hall, "maki", "company", rejected.id)


def test_demotion_is_governed_and_audited(hall: Hall) -> None:
    entry = l1(hall)
    to_l2(hall, entry)
    to_l3(hall, entry)

    with pytest.raises(PolicyDeniedError):
        promotions.demote(hall, "claude", "company", entry, Layer.L2, "wrong")
    promotions.demote(hall, "maki", "company", entry, Layer.L2, "superseded by the new runbook")

    view = history.show(hall, "maki", "company", entry)
    assert view.entry.layer == "L2"
    assert view.history[-1].topic == "memhall.Entry.Demoted"
    assert view.history[-1].rule == "ratify-owner-demotes-one-layer"


def test_a_second_open_nomination_of_the_same_entry_is_refused(hall: Hall) -> None:
    entry = l1(hall)
    to_l2(hall, entry)
    promotions.nominate(hall, "claude", "company", entry, Layer.L3, "stale")

    with pytest.raises(RefusedError, match="already has an open nomination"):
        promotions.nominate(hall, "claude", "company", entry, Layer.L3, "again")


def test_a_dissent_record_needs_every_council_member_and_only_them(hall: Hall) -> None:
    entry = l1(hall)
    to_l2(hall, entry)
    to_l3(hall, entry)
    canon = promotions.nominate(hall, "claude", "company", entry, Layer.L4, "binding")

    promotions.dissent(hall, "gemini", "company", canon.id, "agree", "matches the runbook")
    with pytest.raises(PolicyDeniedError):
        promotions.dissent(hall, "maki", "company", canon.id, "agree", "not a member")

    (row,) = promotions.promotions(hall, "maki", "company")
    assert row.missing == ["claude", "codex"]
    assert row.dissent == [{"member": "gemini", "position": "agree", "reason": "matches the runbook"}]
    assert "missing claude, codex" in row.progress
