"""Source trust: the hearsay mapping, the table and its causes, corrections, re-scoring."""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhall.domains.belief import (
    AsOf,
    EvidenceKind,
    Rescore,
    SourceCorrected,
    TrustSet,
    TrustTable,
    heard,
    hearsay_confidence,
    rescored,
    revise,
    source_corrected,
)
from memhall.domains.belief.trust import TrustChange, TrustEvent
from memhall.domains.errors import InvalidValueError
from memhall.domains.values import BeliefState, SourceKind

from .examples import ROOT, belief, claim, day, evidence

trusts = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


def owner_sets(value: float, *, topic: str | None = "nas", position: int = 1,
               observer: str = "hall", at: int = 0) -> TrustSet:
    return TrustSet(observer, "codex", topic, value, by="maki", reason="track record",
                    position=position, occurred_at=day(at), recorded_at=day(at))


def caught(position: int, *, topics: tuple[str, ...] = ("nas",), at: int = 0) -> SourceCorrected:
    return SourceCorrected("hall", "codex", topics, ROOT, by="claude", position=position,
                           occurred_at=day(at), recorded_at=day(at))


@pytest.mark.parametrize(("trust", "confidence"),
                         [(0.0, 10), (0.2, 35), (0.5, 58), (0.9, 75), (1.0, 77)])
def test_hearsay_confidence_passes_through_its_anchors(trust: float, confidence: int) -> None:
    assert hearsay_confidence(trust) == confidence


@given(trusts, trusts)
def test_hearsay_confidence_is_monotone(a: float, b: float) -> None:
    low, high = sorted((a, b))

    assert hearsay_confidence(low) <= hearsay_confidence(high)


@given(trusts)
def test_hearsay_is_always_believed_less_than_seeing_it(trust: float) -> None:
    assert 10 <= hearsay_confidence(trust) < 78


@pytest.mark.parametrize("bad", [-0.01, 1.01, float("nan")])
def test_trust_outside_0_to_1_is_refused(bad: float) -> None:
    with pytest.raises(InvalidValueError):
        hearsay_confidence(bad)


def test_a_teller_is_heard_down_to_a_trust_of_about_a_fifth() -> None:
    assert heard(0.2) and not heard(0.19) and not heard(0.05)


def test_an_unknown_source_is_trusted_neutrally() -> None:
    row = TrustTable().trust("hall", "codex", ("nas",))

    assert (row.value, row.causes) == (0.5, ())


def test_a_topic_nobody_scored_falls_back_to_the_general_trust() -> None:
    table = TrustTable.fold([owner_sets(0.9, topic=None)])

    assert table.trust("hall", "codex", ("nas",)).value == 0.9
    assert table.trust("hall", "codex").value == 0.9


def test_a_claim_with_several_topics_uses_the_lowest() -> None:
    table = TrustTable.fold([owner_sets(0.8, topic="nas"), owner_sets(0.3, topic="dns",
                                                                     position=2)])

    row = table.trust("hall", "codex", ("nas", "dns", "mail"))

    assert (row.topic, row.value) == ("dns", 0.3)


def test_trust_is_per_observer() -> None:
    table = TrustTable.fold([owner_sets(0.9, observer="gemini")])

    assert table.seen_by("gemini").of("codex", ("nas",)) == 0.9
    assert table.seen_by("grok").of("codex", ("nas",)) == 0.5


def test_each_correction_costs_the_source_015_on_that_topic_only() -> None:
    table = TrustTable.fold([caught(3), caught(5), caught(8)])

    assert [c.value for c in table.score("hall", "codex", "nas").causes] == [0.35, 0.2, 0.05]
    assert table.trust("hall", "codex", ("dns",)).value == 0.5


def test_a_correction_on_a_claim_without_topics_costs_the_general_trust() -> None:
    table = TrustTable.fold([caught(3, topics=())])

    assert table.trust("hall", "codex").value == 0.35
    assert table.trust("hall", "codex", ("nas",)).value == 0.35


def test_every_number_carries_the_evidence_behind_it() -> None:
    table = TrustTable.fold([owner_sets(0.9, topic=None, position=1), caught(4, at=2)])

    row = table.trust("hall", "codex", ("nas",))

    assert row.value == 0.75
    assert [(c.change, c.position, c.by, c.value, c.detail) for c in row.causes] == [
        (TrustChange.SET, 1, "maki", 0.9, "track record"),
        (TrustChange.CORRECTED, 4, "claude", 0.75, ROOT),
    ]


def test_the_owner_may_set_a_value_after_corrections() -> None:
    table = TrustTable.fold([caught(2), caught(3), owner_sets(0.6, position=4)])

    assert table.trust("hall", "codex", ("nas",)).value == 0.6


def test_trust_as_of_a_time_counts_only_what_was_recorded_by_then() -> None:
    events = [caught(2, at=1), caught(3, at=5)]

    assert TrustTable.fold(events, AsOf(day(2))).trust("hall", "codex", ("nas",)).value == 0.35
    assert TrustTable.fold(events, AsOf(day(9), position=2)).trust(
        "hall", "codex", ("nas",)).value == 0.35


def test_folding_trust_ignores_the_order_events_are_given_in() -> None:
    events: list[TrustEvent] = [owner_sets(0.9, position=1), caught(2), caught(3)]

    assert TrustTable.fold(events) == TrustTable.fold(reversed(events))


def test_rows_list_the_recorded_numbers_in_a_stable_order() -> None:
    table = TrustTable.fold([owner_sets(0.9, topic=None), caught(2), owner_sets(
        0.4, observer="gemini", position=3)])

    rows = table.rows(source="codex")

    assert [(r.observer, r.topic, r.value) for r in rows] == [
        ("gemini", "nas", 0.4), ("hall", None, 0.9), ("hall", "nas", 0.75)]
    assert [r.observer for r in table.rows(observer="gemini")] == ["gemini"]


def test_a_trust_set_outside_0_to_1_is_refused() -> None:
    with pytest.raises(InvalidValueError):
        owner_sets(1.5)


def test_correcting_a_doubted_rumour_catches_out_its_teller() -> None:
    doubted = belief(BeliefState.DOUBTFUL, 38)
    correction = evidence(EvidenceKind.CONTRADICTS, position=7, at=day(3), actor="claude")

    event = source_corrected(doubted, correction, observer="hall")

    assert event == SourceCorrected("hall", "codex", ("nas",), ROOT, by="claude", position=7,
                                    occurred_at=day(3), recorded_at=day(3))


def test_a_doubt_or_a_firsthand_claim_catches_out_nobody() -> None:
    contra = evidence(EvidenceKind.CONTRADICTS)

    assert source_corrected(belief(BeliefState.INFLUENCING), contra, "hall") is None
    firsthand = belief(BeliefState.DOUBTFUL, source_kind=SourceKind.FIRSTHAND, author="codex")
    assert source_corrected(firsthand, contra, "hall") is None


def test_correcting_a_corrected_understanding_does_not_blame_the_first_teller_again() -> None:
    corrected = revise(belief(BeliefState.DOUBTFUL, 38), evidence(EvidenceKind.CONTRADICTS))
    doubted = revise(corrected, evidence(EvidenceKind.CONTRADICTS, position=3))

    assert source_corrected(doubted, evidence(EvidenceKind.CONTRADICTS, position=4),
                            "hall") is None


def test_the_sources_other_hearsay_on_that_topic_is_rescored() -> None:
    before = TrustTable()
    after = TrustTable.fold([caught(2)])
    claims = [claim(claim_root="printer", position=5),
              claim(claim_root="dns", topics=("dns",), position=6),
              claim(claim_root="told-by-grok", source_agent="grok", position=7),
              claim(claim_root="low", confidence=30, position=8)]

    changes = rescored(claims, before.seen_by("hall"), after.seen_by("hall"), source="codex")

    assert changes == (Rescore("printer", "codex", "nas", 58, 47),)


def test_one_correction_can_catch_a_source_out_for_several_observers() -> None:
    for_gemini = replace(caught(3), observer="gemini")

    table = TrustTable.fold([caught(3), for_gemini])

    assert table.trust("hall", "codex", ("nas",)).value == 0.35
    assert table.trust("gemini", "codex", ("nas",)).value == 0.35


def test_two_different_trust_events_for_one_observer_at_one_position_are_refused() -> None:
    with pytest.raises(InvalidValueError, match="@3"):
        TrustTable.fold([caught(3), replace(caught(3), claim_root="other")])
