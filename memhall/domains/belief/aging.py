"""Hearsay aging: influence decays with time, derived from the events and an as-of time."""

from __future__ import annotations

from datetime import datetime, timedelta

from memhall.domains.belief.belief import Belief, Cause, Revision
from memhall.domains.belief.confidence import FADE_PERIOD, PAST_FLOOR, faded
from memhall.domains.values import BeliefState

_FADE = Cause(Revision.FADE)


def fade_period(belief: Belief) -> timedelta:
    """7 days per distinct principal vouching for it: the origin plus each corroborator.
    A rumour two people told you independently lasts twice as long (S0 §30: "confirmed
    by many, slow to fade")."""
    return FADE_PERIOD * (1 + len(belief.corroborators))


def settled(belief: Belief) -> Belief:
    """Hearsay that is at or below the floor is `past` at once."""
    if belief.fades and belief.confidence <= PAST_FLOOR:
        return belief.moved(
            confidence=belief.confidence,
            state=BeliefState.PAST,
            at=belief.last_evidence_at,
            cause=_FADE,
        )
    return belief


def _periods(elapsed: timedelta, period: timedelta) -> int:
    return max(0, elapsed // period)


def aged(belief: Belief, as_of: datetime) -> Belief:
    """The belief at `as_of`: an influencing, unwitnessed hearsay belief loses 8 confidence
    for each whole period since its last evidence, never below 34, and becomes `past` there.

    Each step is kept in the history at the moment it happened (the period boundary), so
    aging in two hops equals aging in one: aged(aged(b, t1), t2) == aged(b, t2). A time
    before the belief's own as-of changes nothing: a value cannot be un-aged; fold again
    for an earlier as-of."""
    if as_of <= belief.as_of:
        return belief
    belief = settled(belief)
    if not belief.fades:
        return belief.evolve(as_of=as_of)
    period = fade_period(belief)
    start = belief.last_evidence_at
    done = _periods(belief.as_of - start, period)
    total = _periods(as_of - start, period)
    for step in range(done + 1, total + 1):
        confidence = faded(belief.confidence)
        state = BeliefState.PAST if confidence <= PAST_FLOOR else BeliefState.INFLUENCING
        belief = belief.moved(
            confidence=confidence, state=state, at=start + period * step, cause=_FADE
        )
        if state is BeliefState.PAST:
            break
    return belief.evolve(as_of=as_of)
