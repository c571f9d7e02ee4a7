"""A belief is its claim folded with the evidence an observer is exposed to, as of a time."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest

from memhall.domains.belief import (
    AsOf,
    Evidence,
    EvidenceKind,
    LayerMove,
    Revision,
    TrustSet,
    TrustTable,
    fold,
    known,
    source_corrected,
)
from memhall.domains.belief.records import BeliefEvent
from memhall.domains.errors import InvalidValueError
from memhall.domains.values import BeliefState, Layer, SourceKind

from .examples import ROOT, claim, day, evidence

CON = EvidenceKind.CONTRADICTS
RUMOUR = claim()
DOUBT = evidence(CON, at=day(3), position=2, actor="maki", text="the NAS is up")
CORRECTION = evidence(CON, at=day(4), position=3, actor="claude",
                      text="the NAS is up; the switch was down")
STORY: list[BeliefEvent] = [DOUBT, CORRECTION]


def state_at(at: datetime | AsOf, events: list[BeliefEvent] = STORY) -> tuple[BeliefState, int]:
    belief = fold(RUMOUR, events, at)
    return belief.state, belief.confidence


def test_a_firsthand_contradiction_doubts_and_a_second_one_corrects_at_72() -> None:
    belief = fold(RUMOUR, STORY, day(10))

    assert (belief.state, belief.confidence) == (BeliefState.CORRECTED, 72)
    assert belief.subject == "the NAS is up; the switch was down"
    assert [(u.state, u.confidence, u.subject) for u in belief.used_to_think] == [
        (BeliefState.INFLUENCING, 58, "the NAS is down"),
        (BeliefState.DOUBTFUL, 38, "the NAS is down"),
    ]


def test_as_of_before_the_correction_shows_the_belief_as_it_was() -> None:
    assert state_at(day(2)) == (BeliefState.INFLUENCING, 58)
    assert state_at(day(3.5)) == (BeliefState.DOUBTFUL, 38)
    assert state_at(AsOf(day(30), position=2)) == (BeliefState.DOUBTFUL, 38)


def test_which_events_count_is_cut_on_recorded_time_not_occurred_time() -> None:
    imported = evidence(CON, at=day(1), position=4, recorded_at=day(20))

    assert state_at(day(10), [imported]) == (BeliefState.INFLUENCING, 50)
    assert state_at(day(20), [imported]) == (BeliefState.DOUBTFUL, 38)


def test_an_observer_who_never_saw_the_correction_keeps_the_old_belief_and_it_fades() -> None:
    assert state_at(day(10), []) == (BeliefState.INFLUENCING, 50)
    assert state_at(day(21), []) == (BeliefState.PAST, 34)


def test_evidence_heard_after_fading_applies_to_the_faded_belief() -> None:
    again = evidence(source=SourceKind.HEARSAY, from_agent="codex", at=day(30), position=2)

    assert state_at(day(30), [again]) == (BeliefState.INFLUENCING, 42)


def test_the_liars_other_rumour_drops_once_its_trust_does() -> None:
    caught = source_corrected(fold(RUMOUR, [DOUBT], day(4)), CORRECTION, observer="hall")
    assert caught is not None
    other = claim(claim_root="printer", subject="the printer is out of toner", position=9,
                  occurred_at=day(5), recorded_at=day(5))

    before = fold(other, [], day(5))
    after = fold(other, [], day(5), TrustTable.fold([caught]).seen_by("hall"))

    assert (before.confidence, after.confidence) == (58, 47)


def test_the_same_rumour_is_believed_by_each_observer_according_to_its_trust() -> None:
    table = TrustTable.fold([
        TrustSet("claude", "codex", None, 0.9, "maki", "reliable", 1, day(0), day(0)),
        TrustSet("grok", "codex", None, 0.2, "maki", "unreliable", 2, day(0), day(0)),
    ])

    seen = [fold(RUMOUR, [], day(0), table.seen_by(o)).confidence for o in ("claude", "grok")]

    assert seen == [75, 35]


def test_a_claim_promoted_to_l3_is_contested_not_corrected() -> None:
    events: list[BeliefEvent] = [
        LayerMove(ROOT, Layer.L3, position=2, recorded_at=day(1)),
        evidence(CON, at=day(2), position=3),
        evidence(CON, at=day(3), position=4),
    ]

    belief = fold(RUMOUR, events, day(5))

    assert belief.subject == "the NAS is down" and belief.layer is Layer.L3
    assert (belief.state, belief.confidence) == (BeliefState.DOUBTFUL, 18)
    assert belief.contested_by == (3, 4)


def test_a_ratified_claim_stops_fading_and_resumes_after_demotion_without_back_pay() -> None:
    events: list[BeliefEvent] = [LayerMove(ROOT, Layer.L3, position=2, recorded_at=day(8)),
                                 LayerMove(ROOT, Layer.L2, position=3, recorded_at=day(40))]

    assert state_at(day(39), events) == (BeliefState.INFLUENCING, 50)
    assert state_at(day(41), events) == (BeliefState.INFLUENCING, 50)
    assert state_at(day(42), events) == (BeliefState.INFLUENCING, 42)


def test_the_order_events_are_given_in_and_duplicates_do_not_matter() -> None:
    events: list[BeliefEvent] = [*STORY, evidence(position=5, at=day(6), actor="gemini")]

    once = fold(RUMOUR, events, day(20))

    assert fold(RUMOUR, list(reversed(events)), day(20)) == once
    assert fold(RUMOUR, events + events, day(20)) == once


def test_log_order_matters_where_it_should() -> None:
    doubt_then_correct = fold(RUMOUR, STORY, day(10))
    swapped = [evidence(CON, at=day(3), position=3, text="the NAS is up"),
               evidence(CON, at=day(4), position=2, actor="claude", text="the switch")]

    assert doubt_then_correct.state is BeliefState.CORRECTED
    assert fold(RUMOUR, swapped, day(10)).subject == "the NAS is up"


def test_evidence_on_other_claim_roots_is_not_counted() -> None:
    assert state_at(day(5), [evidence(CON, claim_root="door", position=2)]) == (
        BeliefState.INFLUENCING, 58)


def test_two_different_events_at_one_position_are_refused() -> None:
    with pytest.raises(InvalidValueError, match="@2"):
        fold(RUMOUR, [DOUBT, evidence(position=2)], day(5))


def test_a_claim_not_yet_recorded_has_no_belief() -> None:
    later = claim(occurred_at=day(3), recorded_at=day(3))

    assert not known(later, day(2))
    with pytest.raises(InvalidValueError, match="not yet recorded"):
        fold(later, [], day(2))


def test_history_names_the_event_and_principal_behind_each_change() -> None:
    belief = fold(RUMOUR, STORY, day(10))

    assert [(u.cause.revision, u.cause.position, u.cause.principal) for u in belief.history] == [
        (Revision.DOUBT, 2, "maki"), (Revision.CORRECT, 3, "claude")]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"occurred_at": day(2), "recorded_at": day(1)}, "later than the time recorded"),
        ({"occurred_at": datetime(2025, 3, 1)}, "timezone"),
        ({"from_agent": None, "source_kind": SourceKind.HEARSAY}, "heard from"),
        ({"from_agent": "codex"}, "only allowed for hearsay"),
        ({"source_kind": SourceKind.IMPLANTED}, "never implanted"),
        ({"position": -1}, "negative"),
    ],
)
def test_evidence_is_validated_at_the_edge(fields: dict[str, object], message: str) -> None:
    values: dict[str, object] = {
        "claim_root": ROOT, "kind": EvidenceKind.SUPPORTS, "source_kind": SourceKind.FIRSTHAND,
        "actor": "maki", "occurred_at": day(0), "recorded_at": day(1), "position": 2,
    }
    values.update(fields)

    with pytest.raises(InvalidValueError, match=message):
        Evidence(**values)  # type: ignore[arg-type]


def test_a_claim_validates_its_provenance_and_confidence() -> None:
    with pytest.raises(InvalidValueError, match="heard from"):
        claim(source_agent=None)
    with pytest.raises(InvalidValueError, match="0..100"):
        claim(confidence=101)


def test_at_a_position_the_log_decides_what_counts_not_a_records_own_time() -> None:
    # evidence's recorded_at is set as its transaction runs: microseconds past the time of a
    # later event of that transaction, whose position is the cut
    cut = AsOf(day(3), position=5)

    assert cut.counts(day(3) + timedelta(microseconds=4), 5)
    assert not cut.counts(day(2), 6)
    assert not AsOf(day(3)).counts(day(3) + timedelta(microseconds=4), 5)
