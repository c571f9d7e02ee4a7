"""Evidence on a ratified (L3/L4) claim marks its belief and asks for demotion, never rewrites it."""

from __future__ import annotations

import pytest

from memhall.domains.belief import EvidenceKind, Revision, contest, revise, weigh
from memhall.domains.values import BeliefState, Layer, SourceKind

from .examples import belief, day, evidence

SUP, CON, ANO = EvidenceKind.SUPPORTS, EvidenceKind.CONTRADICTS, EvidenceKind.ANOMALY
FIRST, HEAR = SourceKind.FIRSTHAND, SourceKind.HEARSAY
I, D, A = BeliefState.INFLUENCING, BeliefState.DOUBTFUL, BeliefState.ANOMALOUS

# (layer, state, kind, source) → (revision, mark, confidence from 80, state, nominate)
CELLS = [
    (layer, state, kind, source, *expected)
    for layer in (Layer.L3, Layer.L4)
    for source in (FIRST, HEAR)
    for state, kind, expected in [
        (I, SUP, (Revision.KEEP, None, 80, I, False)),
        (I, CON, (Revision.DOUBT, D, 60, D, True)),
        (I, ANO, (Revision.ANOMALY, A, 50, A, True)),
        (D, SUP, (Revision.KEEP, None, 80, D, False)),
        (D, CON, (Revision.DOUBT, D, 60, D, True)),  # no correction on canon, even firsthand
        (D, ANO, (Revision.ANOMALY, A, 50, A, True)),
        (A, CON, (Revision.DOUBT, A, 60, A, True)),  # the stronger mark stays
    ]
]


@pytest.mark.parametrize(
    ("layer", "state", "kind", "source", "revision", "mark", "confidence", "after", "nominate"),
    CELLS,
)
def test_evidence_on_a_ratified_claim_yields_a_mark_and_a_nomination_flag(
    layer: Layer, state: BeliefState, kind: EvidenceKind, source: SourceKind,
    revision: Revision, mark: BeliefState | None, confidence: int, after: BeliefState,
    nominate: bool,
) -> None:
    ratified = belief(state, 80, layer=layer)

    outcome = weigh(ratified, evidence(kind, source, at=day(1), position=9))

    assert (outcome.revision, outcome.mark, outcome.nominate_demotion) == (revision, mark, nominate)
    assert (outcome.belief.confidence, outcome.belief.state) == (confidence, after)
    assert outcome.belief.contested_by == ((9,) if nominate else ())


def test_contrary_firsthand_evidence_never_rewrites_ratified_text_or_layer() -> None:
    ratified = belief(D, 60, layer=Layer.L4)

    after = revise(ratified, evidence(CON, FIRST, text="the NAS is up"))

    assert after.subject == "the NAS is down"
    assert after.interpretation == ratified.interpretation
    assert after.layer is Layer.L4


def test_corroboration_of_ratified_canon_is_recorded_but_changes_nothing_else() -> None:
    ratified = belief(I, 80, layer=Layer.L3)

    outcome = contest(ratified, evidence(SUP, HEAR, from_agent="grok", position=4, at=day(2)))

    assert [c.principal for c in outcome.belief.corroborators] == ["grok"]
    assert outcome.belief.confidence == 80 and outcome.belief.history == ()
    assert outcome.belief.last_evidence_at == day(2)


def test_an_unheard_teller_cannot_contest_canon() -> None:
    ratified = belief(I, 80, layer=Layer.L4)

    outcome = weigh(ratified, evidence(CON, HEAR), trust=0.05)

    assert outcome.revision is Revision.KEEP and not outcome.nominate_demotion
    assert outcome.belief == ratified
