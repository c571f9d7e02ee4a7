"""R(B, e): how one piece of evidence revises a belief (SPEC §5, S0 §9–13), as a table."""

from __future__ import annotations

from collections.abc import Callable, Mapping

from memhall.domains.belief.aging import settled
from memhall.domains.belief.belief import Belief, Cause, Revision
from memhall.domains.belief.confidence import CORRECTED, anomalous, confirmed, doubted, reinforced
from memhall.domains.belief.contest import Outcome, bears_on, contest
from memhall.domains.belief.hearsay import NEUTRAL_TRUST
from memhall.domains.belief.records import Evidence, EvidenceKind
from memhall.domains.values import BeliefState, SourceKind

_I, _P, _D, _A, _C = (
    BeliefState.INFLUENCING,
    BeliefState.PAST,
    BeliefState.DOUBTFUL,
    BeliefState.ANOMALOUS,
    BeliefState.CORRECTED,
)
_SUP, _CON, _ANO = EvidenceKind.SUPPORTS, EvidenceKind.CONTRADICTS, EvidenceKind.ANOMALY
_FIRST, _HEAR = SourceKind.FIRSTHAND, SourceKind.HEARSAY
_R, _CF, _DB, _AN, _CR = (
    Revision.REINFORCE,
    Revision.CONFIRM,
    Revision.DOUBT,
    Revision.ANOMALY,
    Revision.CORRECT,
)

Move = tuple[Revision, BeliefState]

#: (state, evidence kind, evidence source) → (revision, resulting state), for L1/L2 claims.
#: Evidence is judged against the belief as it stands now (after a correction: the new
#: subject). Only firsthand evidence settles a doubt, either way; hearsay can only move
#: confidence within it. `past` is faded, not dismissed: support revives it.
TABLE: Mapping[tuple[BeliefState, EvidenceKind, SourceKind], Move] = {
    (_I, _SUP, _HEAR): (_R, _I),
    (_I, _SUP, _FIRST): (_R, _I),
    (_I, _CON, _HEAR): (_DB, _D),
    (_I, _CON, _FIRST): (_DB, _D),  # contradiction is not immediate correction (S0 §10)
    (_I, _ANO, _HEAR): (_AN, _A),
    (_I, _ANO, _FIRST): (_AN, _A),
    (_P, _SUP, _HEAR): (_R, _I),  # new evidence revives a faded rumour
    (_P, _SUP, _FIRST): (_R, _I),
    (_P, _CON, _HEAR): (_DB, _D),
    (_P, _CON, _FIRST): (_DB, _D),
    (_P, _ANO, _HEAR): (_AN, _A),
    (_P, _ANO, _FIRST): (_AN, _A),
    (_D, _SUP, _HEAR): (_R, _D),  # one more rumour does not settle a doubt
    (_D, _SUP, _FIRST): (_CF, _I),  # seeing it settles it: influencing, at least 72
    (_D, _CON, _HEAR): (_DB, _D),  # contrary hearsay deepens the doubt, never corrects
    (_D, _CON, _FIRST): (_CR, _C),  # SPEC §5 correct
    (_D, _ANO, _HEAR): (_AN, _A),
    (_D, _ANO, _FIRST): (_AN, _A),
    (_A, _SUP, _HEAR): (_R, _A),  # anomalous is the stronger doubt: the same rules,
    (_A, _SUP, _FIRST): (_CF, _I),  # and hearsay never lowers it back to doubtful
    (_A, _CON, _HEAR): (_DB, _A),
    (_A, _CON, _FIRST): (_CR, _C),
    (_A, _ANO, _HEAR): (_AN, _A),
    (_A, _ANO, _FIRST): (_AN, _A),
    (_C, _SUP, _HEAR): (_R, _C),  # `corrected` stays the mark of a revised understanding
    (_C, _SUP, _FIRST): (_R, _C),
    (_C, _CON, _HEAR): (_DB, _D),  # the corrected understanding can be doubted in turn
    (_C, _CON, _FIRST): (_DB, _D),
    (_C, _ANO, _HEAR): (_AN, _A),
    (_C, _ANO, _FIRST): (_AN, _A),
}

_STEP: Mapping[Revision, Callable[[int], int]] = {
    Revision.REINFORCE: reinforced,
    Revision.CONFIRM: confirmed,
    Revision.DOUBT: doubted,
    Revision.ANOMALY: anomalous,
}


def rule(belief: Belief, evidence: Evidence, trust: float = NEUTRAL_TRUST) -> Move:
    """Which revision the evidence calls for on an L1/L2 belief (keep: nothing)."""
    if not bears_on(belief, evidence, trust):
        return Revision.KEEP, belief.state
    revision, state = TABLE[belief.state, evidence.kind, evidence.source_kind]
    if revision is Revision.CORRECT and not (evidence.text or "").strip():
        # Correction replaces the subject with what was seen instead; evidence that says
        # only "no" has nothing to put there, so it deepens the doubt.
        return Revision.DOUBT, belief.state
    return revision, state


def correction_note(evidence: Evidence, earlier: str) -> str:
    """The interpretation a correction leaves: a fixed label, never generated prose."""
    return (
        f"corrected by firsthand evidence @{evidence.position} from {evidence.actor}; "
        f"earlier understanding: {earlier}"
    )


def weigh(belief: Belief, evidence: Evidence, trust: float = NEUTRAL_TRUST) -> Outcome:
    """Apply R(B, e) on an L1/L2 belief, the L3/L4 rule (`contest`) on a ratified one."""
    if belief.ratified:
        return contest(belief, evidence, trust)
    revision, state = rule(belief, evidence, trust)
    if revision is Revision.KEEP:
        return Outcome(belief, revision)
    noted = belief.noted(evidence)
    cause = Cause(revision, evidence.position, evidence.principal)
    if revision is Revision.CORRECT:
        moved = noted.moved(
            confidence=CORRECTED,
            state=state,
            at=evidence.occurred_at,
            cause=cause,
            subject=(evidence.text or "").strip(),
            interpretation=correction_note(evidence, belief.subject),
        )
        # The new understanding rests on the corrector's own eyes; those who supported
        # the old one did not support this one (they stay in the history and the graph).
        moved = moved.evolve(
            origin=evidence.actor, corroborators=(), witnessed_by=(evidence.actor,)
        )
    else:
        moved = noted.moved(
            confidence=_STEP[revision](belief.confidence),
            state=state,
            at=evidence.occurred_at,
            cause=cause,
        )
    return Outcome(settled(moved), revision)


def revise(belief: Belief, evidence: Evidence, trust: float = NEUTRAL_TRUST) -> Belief:
    """R(B, e). `trust` is the observer's trust in the evidence's teller (hearsay only)."""
    return weigh(belief, evidence, trust).belief
