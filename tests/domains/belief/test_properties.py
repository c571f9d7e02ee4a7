"""Properties of revision, aging and folding, over generated logs (Hypothesis)."""

from __future__ import annotations

import random
from dataclasses import replace
from datetime import timedelta

from hypothesis import given, settings
from hypothesis import strategies as st

from memhall.domains.belief import (
    Belief,
    Claim,
    Evidence,
    EvidenceKind,
    LayerMove,
    TrustSet,
    TrustTable,
    aged,
    believe,
    fold,
    revise,
)
from memhall.domains.belief.records import BeliefEvent
from memhall.domains.values import BeliefState, Layer, SourceKind

from .examples import ROOT, T0, claim, day

PRINCIPALS = ("codex", "gemini", "grok", "claude", "maki")

# A fold is cheap, but the machine is shared: enough examples to find an edge, no more.
fast = settings(max_examples=60, deadline=None)


@st.composite
def evidence_log(draw: st.DrawFn, *, kinds: tuple[EvidenceKind, ...] = tuple(EvidenceKind),
                 moves: bool = True) -> list[BeliefEvent]:
    """A log after the claim (position 1 at T0): recorded times ascend with position,
    occurred times lie anywhere from the claim up to the time recorded."""
    events: list[BeliefEvent] = []
    recorded = T0
    for position in range(2, 2 + draw(st.integers(0, 12))):
        recorded += timedelta(hours=draw(st.integers(0, 24 * 20)))
        if moves and draw(st.integers(0, 9)) == 0:
            layer = draw(st.sampled_from(list(Layer)))
            events.append(LayerMove(ROOT, layer, position, recorded))
            continue
        occurred = recorded - (recorded - T0) * draw(st.sampled_from([0, 0, 0.25, 1]))
        source = draw(st.sampled_from([SourceKind.FIRSTHAND, SourceKind.HEARSAY]))
        events.append(Evidence(
            claim_root=ROOT,
            kind=draw(st.sampled_from(kinds)),
            source_kind=source,
            actor=draw(st.sampled_from(PRINCIPALS)),
            occurred_at=occurred,
            recorded_at=recorded,
            position=position,
            from_agent=draw(st.sampled_from(PRINCIPALS)) if source is SourceKind.HEARSAY else None,
            text=draw(st.sampled_from([None, "the NAS is up", "the switch is down"])),
        ))
    return events


claims = st.builds(
    claim,
    confidence=st.one_of(st.none(), st.integers(0, 100)),
    source_kind=st.sampled_from(list(SourceKind)),
)
trusts = st.floats(0.0, 1.0, allow_nan=False)
beliefs = st.builds(
    lambda state, confidence, layer: replace(believe(claim()), state=state,
                                             confidence=confidence, layer=layer),
    st.sampled_from(list(BeliefState)), st.integers(0, 100), st.sampled_from(list(Layer)),
)
contradictions = st.builds(
    lambda kind, source: Evidence(ROOT, kind, source, "maki", T0, T0, 2,
                                  from_agent="grok" if source is SourceKind.HEARSAY else None,
                                  text="the NAS is up"),
    st.just(EvidenceKind.CONTRADICTS), st.sampled_from([SourceKind.FIRSTHAND, SourceKind.HEARSAY]),
)


@fast
@given(claims, evidence_log(), st.integers(0, 400), trusts)
def test_confidence_always_stays_within_0_and_100(
    c: Claim, events: list[BeliefEvent], days: int, trust: float
) -> None:
    table = TrustTable.fold([TrustSet("hall", "codex", None, trust, "maki", "", 0, T0, T0)])

    belief = fold(c, events, day(days), table.seen_by("hall"))

    assert 0 <= belief.confidence <= 100
    assert all(0 <= u.confidence <= 100 for u in belief.history)


@fast
@given(beliefs, contradictions, trusts)
def test_a_doubt_never_takes_confidence_below_10_nor_raises_it(
    belief: Belief, evidence: Evidence, trust: float
) -> None:
    after = revise(belief, evidence, trust)

    assert after.confidence >= min(10, belief.confidence)
    assert after.confidence <= max(belief.confidence, 72)  # only a correction may set 72


@fast
@given(evidence_log(), st.integers(0, 400), st.randoms(use_true_random=False))
def test_folding_the_same_events_gives_the_same_belief_in_any_given_order(
    events: list[BeliefEvent], days: int, rng: random.Random
) -> None:
    as_of = max(day(days), events[-1].recorded_at if events else T0)
    shuffled = list(events) + list(events)
    rng.shuffle(shuffled)

    assert fold(claim(), events, as_of) == fold(claim(), events, as_of)
    assert fold(claim(), shuffled, as_of) == fold(claim(), events, as_of)


@fast
@given(evidence_log(kinds=(EvidenceKind.SUPPORTS,), moves=False), st.randoms(use_true_random=False))
def test_support_alone_commutes(events: list[BeliefEvent], rng: random.Random) -> None:
    same_time = [replace(e, occurred_at=T0, recorded_at=T0) for e in events
                 if isinstance(e, Evidence)]
    positions = [e.position for e in same_time]
    rng.shuffle(positions)
    permuted = [replace(e, position=p) for e, p in zip(same_time, positions)]

    one, other = fold(claim(), same_time, T0), fold(claim(), permuted, T0)

    assert (one.confidence, one.state) == (other.confidence, other.state)
    assert {c.principal for c in one.corroborators} == {c.principal for c in other.corroborators}


@fast
@given(claims, evidence_log(), st.integers(0, 200), st.integers(0, 200))
def test_aging_in_two_hops_equals_aging_in_one(
    c: Claim, events: list[BeliefEvent], first: int, second: int
) -> None:
    start = fold(c, events, events[-1].recorded_at if events else T0)
    t1 = start.as_of + timedelta(days=first)
    t2 = t1 + timedelta(days=second)

    assert aged(aged(start, t1), t2) == aged(start, t2)


@fast
@given(st.integers(0, 100), st.integers(0, 400), st.integers(0, 400))
def test_aging_only_ever_lowers_confidence_and_never_below_34(
    confidence: int, a: int, b: int
) -> None:
    rumour = believe(claim(confidence=confidence))
    earlier, later = sorted((a, b))

    first, second = aged(rumour, day(earlier)), aged(rumour, day(later))

    assert second.confidence <= first.confidence <= confidence
    assert second.confidence >= min(confidence, 34)
    assert second.state in (BeliefState.INFLUENCING, BeliefState.PAST)


@fast
@given(claims, evidence_log(), st.integers(0, 300))
def test_an_as_of_counts_exactly_the_events_recorded_by_then(
    c: Claim, events: list[BeliefEvent], days: int
) -> None:
    known = [e for e in events if e.recorded_at <= day(days)]

    assert fold(c, events, day(days)) == fold(c, known, day(days))
