"""R(B, e) over the whole table: every (state × evidence kind × source) cell, and keep."""

from __future__ import annotations

import pytest

from memhall.domains.belief import TABLE, EvidenceKind, Revision, revise, rule, weigh
from memhall.domains.values import BeliefState, SourceKind

from .examples import ROOT, belief, day, evidence

I, P, D, A, C = (
    BeliefState.INFLUENCING,
    BeliefState.PAST,
    BeliefState.DOUBTFUL,
    BeliefState.ANOMALOUS,
    BeliefState.CORRECTED,
)
SUP, CON, ANO = EvidenceKind.SUPPORTS, EvidenceKind.CONTRADICTS, EvidenceKind.ANOMALY
FIRST, HEAR = SourceKind.FIRSTHAND, SourceKind.HEARSAY
R, CF, DB, AN, CR = (
    Revision.REINFORCE,
    Revision.CONFIRM,
    Revision.DOUBT,
    Revision.ANOMALY,
    Revision.CORRECT,
)

# (state, kind, source) → (revision, confidence from 58, resulting state)
CELLS = [
    (I, SUP, HEAR, R, 66, I),
    (I, SUP, FIRST, R, 66, I),
    (I, CON, HEAR, DB, 38, D),
    (I, CON, FIRST, DB, 38, D),
    (I, ANO, HEAR, AN, 28, A),
    (I, ANO, FIRST, AN, 28, A),
    (P, SUP, HEAR, R, 66, I),
    (P, SUP, FIRST, R, 66, I),
    (P, CON, HEAR, DB, 38, D),
    (P, CON, FIRST, DB, 38, D),
    (P, ANO, HEAR, AN, 28, A),
    (P, ANO, FIRST, AN, 28, A),
    (D, SUP, HEAR, R, 66, D),
    (D, SUP, FIRST, CF, 72, I),
    (D, CON, HEAR, DB, 38, D),
    (D, CON, FIRST, CR, 72, C),
    (D, ANO, HEAR, AN, 28, A),
    (D, ANO, FIRST, AN, 28, A),
    (A, SUP, HEAR, R, 66, A),
    (A, SUP, FIRST, CF, 72, I),
    (A, CON, HEAR, DB, 38, A),
    (A, CON, FIRST, CR, 72, C),
    (A, ANO, HEAR, AN, 28, A),
    (A, ANO, FIRST, AN, 28, A),
    (C, SUP, HEAR, R, 66, C),
    (C, SUP, FIRST, R, 66, C),
    (C, CON, HEAR, DB, 38, D),
    (C, CON, FIRST, DB, 38, D),
    (C, ANO, HEAR, AN, 28, A),
    (C, ANO, FIRST, AN, 28, A),
]


def _id(cell: tuple[object, ...]) -> str:
    state, kind, source = cell[:3]
    return f"{state.value}-{kind.value}-{source.value}"  # type: ignore[attr-defined]


def test_the_table_has_a_cell_for_every_state_kind_and_source() -> None:
    expected = {(s, k, f) for s in BeliefState for k in EvidenceKind for f in (FIRST, HEAR)}

    assert set(TABLE) == expected
    assert {cell[:3] for cell in CELLS} == expected


@pytest.mark.parametrize(("state", "kind", "source", "revision", "confidence", "after"),
                         CELLS, ids=[_id(c) for c in CELLS])
def test_each_cell_of_the_revision_table(
    state: BeliefState, kind: EvidenceKind, source: SourceKind, revision: Revision,
    confidence: int, after: BeliefState,
) -> None:
    before = belief(state, 58)

    outcome = weigh(before, evidence(kind, source, at=day(1)))

    assert outcome.revision is revision
    assert (outcome.belief.confidence, outcome.belief.state) == (confidence, after)
    assert outcome.belief.history[-1].state is state
    assert outcome.belief.history[-1].confidence == 58
    assert outcome.belief.last_evidence_at == day(1)
    assert not outcome.nominate_demotion


def test_reinforcing_never_goes_above_100() -> None:
    assert revise(belief(I, 96), evidence(SUP)).confidence == 100


def test_a_doubt_never_takes_confidence_below_10() -> None:
    assert revise(belief(I, 25), evidence(CON)).confidence == 10


def test_a_doubt_never_raises_a_confidence_already_below_10() -> None:
    assert revise(belief(I, 4), evidence(CON)).confidence == 4


def test_an_anomaly_stops_at_the_doubt_floor_too() -> None:
    assert revise(belief(I, 35), evidence(ANO)).confidence == 10
    assert revise(belief(I, 7), evidence(ANO)).confidence == 7


def test_firsthand_support_confirms_a_doubt_above_72_when_reinforcing_gives_more() -> None:
    assert revise(belief(D, 90), evidence(SUP)).confidence == 98


def test_evidence_on_another_claim_root_keeps_the_belief_unchanged() -> None:
    before = belief(I, 58)

    outcome = weigh(before, evidence(CON, claim_root="door-open"))

    assert outcome.revision is Revision.KEEP
    assert outcome.belief == before


def test_hearsay_from_a_teller_the_observer_no_longer_hears_changes_nothing() -> None:
    before = belief(D, 58)

    assert rule(before, evidence(CON, HEAR), trust=0.1) == (Revision.KEEP, D)
    assert revise(before, evidence(CON, HEAR), trust=0.1) == before
    assert revise(before, evidence(CON, HEAR), trust=0.2).confidence == 38


def test_firsthand_evidence_is_heard_whatever_the_trust() -> None:
    assert revise(belief(I, 58), evidence(CON, FIRST), trust=0.0).state is D


def test_a_correction_replaces_the_subject_and_keeps_the_old_understanding() -> None:
    doubted = revise(belief(I, 58), evidence(CON, FIRST, at=day(1), position=2))

    corrected = revise(doubted, evidence(CON, FIRST, at=day(2), position=3, actor="claude",
                                         text="the NAS is up, the switch was down"))

    assert corrected.state is C and corrected.confidence == 72
    assert corrected.subject == "the NAS is up, the switch was down"
    assert corrected.interpretation == (
        "corrected by firsthand evidence @3 from claude; earlier understanding: the NAS is down"
    )
    assert [u.subject for u in corrected.used_to_think] == ["the NAS is down"] * 2
    assert corrected.history[-1].cause.revision is Revision.CORRECT
    assert corrected.history[-1].at == day(2)
    assert corrected.origin == "claude" and corrected.witnessed_by == ("claude",)
    assert corrected.source_agent == "codex"  # the claim's provenance is never rewritten


def test_contrary_firsthand_evidence_without_text_only_deepens_a_doubt() -> None:
    outcome = weigh(belief(D, 38), evidence(CON, FIRST, text=None))

    assert outcome.revision is Revision.DOUBT
    assert (outcome.belief.state, outcome.belief.confidence) == (D, 18)


def test_support_by_another_principal_makes_it_a_corroborator() -> None:
    after = revise(belief(I, 58), evidence(SUP, HEAR, from_agent="grok", position=5, at=day(3)))

    assert [(c.principal, c.position, c.at) for c in after.corroborators] == [("grok", 5, day(3))]


def test_the_origin_repeating_itself_reinforces_but_does_not_corroborate() -> None:
    after = revise(belief(I, 58), evidence(SUP, HEAR, from_agent="codex"))

    assert after.confidence == 66
    assert after.corroborators == ()


def test_firsthand_support_marks_the_belief_witnessed() -> None:
    after = revise(belief(I, 58), evidence(SUP, FIRST, actor="gemini"))

    assert after.witnessed_by == ("gemini",)
    assert not after.fades


def test_reviving_a_past_rumour_at_the_floor_leaves_it_past() -> None:
    after = weigh(belief(P, 20), evidence(SUP, HEAR))

    assert after.revision is Revision.REINFORCE
    assert (after.belief.state, after.belief.confidence) == (P, 28)
    assert [u.cause.revision for u in after.belief.history] == [Revision.REINFORCE, Revision.FADE]


def test_evidence_is_filed_under_its_claim_root_not_its_text() -> None:
    same_words = evidence(CON, FIRST, claim_root=ROOT + "-other", text="the NAS is down")

    assert revise(belief(D, 38), same_words) == belief(D, 38)
