"""Hearsay fades with time, never disappears; firsthand, witnessed and ratified beliefs do not."""

from __future__ import annotations

from datetime import timedelta

from memhall.domains.belief import EvidenceKind, Revision, aged, believe, fade_period, revise
from memhall.domains.values import BeliefState, Layer, SourceKind

from .examples import belief, claim, day, evidence

I, P = BeliefState.INFLUENCING, BeliefState.PAST


def test_a_rumour_loses_8_per_whole_week_and_is_past_at_34() -> None:
    rumour = believe(claim())

    seen = [(aged(rumour, day(d)).confidence, aged(rumour, day(d)).state) for d in
            (6.9, 7, 13, 14, 20, 21, 400)]

    assert seen == [(58, I), (50, I), (50, I), (42, I), (42, I), (34, P), (34, P)]


def test_each_step_is_kept_in_the_history_at_the_moment_it_happened() -> None:
    faded = aged(believe(claim()), day(30))

    assert [(u.confidence, u.state, u.at) for u in faded.history] == [
        (58, I, day(7)), (50, I, day(14)), (42, I, day(21))]
    assert {u.cause.revision for u in faded.history} == {Revision.FADE}


def test_hearsay_that_starts_at_or_below_34_is_past_at_once() -> None:
    assert believe(claim(confidence=34)).state is P
    assert believe(claim(confidence=40)).state is I
    assert aged(believe(claim(confidence=40)), day(7)).state is P


def test_firsthand_claims_never_fade() -> None:
    seen = aged(believe(claim(source_kind=SourceKind.FIRSTHAND)), day(365))

    assert (seen.confidence, seen.state) == (78, I)


def test_implanted_claims_do_not_fade_this_way() -> None:
    assert aged(believe(claim(source_kind=SourceKind.IMPLANTED)), day(365)).confidence == 50


def test_a_witnessed_rumour_no_longer_fades() -> None:
    witnessed = revise(believe(claim()), evidence(at=day(1)))

    assert aged(witnessed, day(100)).confidence == 66


def test_ratified_claims_do_not_fade() -> None:
    assert aged(belief(I, 58, layer=Layer.L3), day(100)).confidence == 58


def test_new_evidence_restarts_the_clock() -> None:
    rumour = aged(believe(claim()), day(10))  # 50
    told_again = revise(rumour, evidence(source=SourceKind.HEARSAY, from_agent="codex",
                                         at=day(10)))  # 58

    assert aged(told_again, day(16.9)).confidence == 58
    assert aged(told_again, day(17)).confidence == 50


def test_each_corroborator_adds_a_week_to_the_period() -> None:
    rumour = believe(claim())
    twice = revise(rumour, evidence(source=SourceKind.HEARSAY, from_agent="grok"))
    thrice = revise(twice, evidence(source=SourceKind.HEARSAY, from_agent="claude", position=3))

    assert [fade_period(b) for b in (rumour, twice, thrice)] == [
        timedelta(days=7), timedelta(days=14), timedelta(days=21)]
    assert aged(twice, day(13)).confidence == 66
    assert aged(twice, day(14)).confidence == 58


def test_aging_in_two_hops_equals_aging_in_one() -> None:
    rumour = believe(claim())

    assert aged(aged(rumour, day(9)), day(22)) == aged(rumour, day(22))


def test_an_as_of_before_the_value_cannot_un_age_it() -> None:
    old = aged(believe(claim()), day(15))

    assert aged(old, day(3)) == old


def test_doubtful_and_past_beliefs_do_not_fade_further() -> None:
    doubted = revise(believe(claim()), evidence(EvidenceKind.CONTRADICTS))

    assert aged(doubted, day(100)).confidence == doubted.confidence
