"""Evidence on ratified (L3/L4) claims: it contests the belief, never rewrites the claim."""

from __future__ import annotations

from dataclasses import dataclass

from memhall.domains.belief.belief import Belief, Cause, Revision
from memhall.domains.belief.confidence import anomalous, doubted
from memhall.domains.belief.hearsay import NEUTRAL_TRUST, heard
from memhall.domains.belief.records import Evidence, EvidenceKind
from memhall.domains.values import BeliefState


@dataclass(frozen=True, slots=True)
class Outcome:
    """What weighing one piece of evidence did. `mark` and `nominate_demotion` are set only
    when the evidence contested a ratified claim: its text and layer stay as ratified, its
    belief state is marked, and the owner is to be asked whether to demote it."""

    belief: Belief
    revision: Revision
    mark: BeliefState | None = None
    nominate_demotion: bool = False


def bears_on(belief: Belief, evidence: Evidence, trust: float = NEUTRAL_TRUST) -> bool:
    """Identity is the claim root, never text similarity; and hearsay from a teller the
    observer no longer hears (see `heard`) moves nothing. `trust` is the observer's trust in
    the evidence's teller on the belief's topics; firsthand evidence ignores it."""
    if evidence.claim_root != belief.claim_root:
        return False
    return evidence.firsthand or heard(trust)


def contest(belief: Belief, evidence: Evidence, trust: float = NEUTRAL_TRUST) -> Outcome:
    """The L3/L4 rule. Supporting evidence is recorded (corroborator, witness, clock) and
    changes nothing else. Contradicting evidence takes the doubt step and marks the belief
    `doubtful` (an `anomalous` mark is kept, being the stronger), an anomaly takes the
    anomaly step and marks it `anomalous`; both ask for a demotion nomination. There is no
    correction here: replacing the subject would rewrite ratified text, which only a
    demotion may undo. The hall opens at most one nomination while one is pending."""
    if not bears_on(belief, evidence, trust):
        return Outcome(belief, Revision.KEEP)
    noted = belief.noted(evidence)
    if evidence.kind is EvidenceKind.SUPPORTS:
        return Outcome(noted, Revision.KEEP)
    if evidence.kind is EvidenceKind.CONTRADICTS:
        revision, confidence = Revision.DOUBT, doubted(belief.confidence)
        keep_anomalous = belief.state is BeliefState.ANOMALOUS
        mark = BeliefState.ANOMALOUS if keep_anomalous else BeliefState.DOUBTFUL
    else:
        revision, confidence = Revision.ANOMALY, anomalous(belief.confidence)
        mark = BeliefState.ANOMALOUS
    moved = noted.moved(
        confidence=confidence,
        state=mark,
        at=evidence.occurred_at,
        cause=Cause(revision, evidence.position, evidence.principal),
    )
    moved = moved.evolve(contested_by=(*moved.contested_by, evidence.position))
    return Outcome(moved, revision, mark=mark, nominate_demotion=True)
