"""A belief recomputed from its claim and the events an observer is exposed to, as of a time."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime

from memhall.domains.belief.aging import aged, settled
from memhall.domains.belief.belief import Belief
from memhall.domains.belief.guardrail import initial_confidence
from memhall.domains.belief.hearsay import NEUTRAL_TRUST
from memhall.domains.belief.records import AsOf, BeliefEvent, Claim, LayerMove
from memhall.domains.belief.revision import weigh
from memhall.domains.belief.trust import ObserverTrust, TrustTable
from memhall.domains.errors import InvalidValueError
from memhall.domains.values import DEFAULT_IMPLANTED_CONFIDENCE, BeliefState

#: The view of an observer nobody has recorded any trust for: everyone neutral.
NEUTRAL_VIEW = TrustTable().seen_by("")


def as_cut(as_of: datetime | AsOf) -> AsOf:
    return as_of if isinstance(as_of, AsOf) else AsOf(as_of)


def known(claim: Claim, as_of: datetime | AsOf) -> bool:
    """Whether the claim had been recorded by then (before that, there is no belief)."""
    return as_cut(as_of).counts(claim.recorded_at, claim.position)


def believe(
    claim: Claim,
    trust: ObserverTrust = NEUTRAL_VIEW,
    implanted: int = DEFAULT_IMPLANTED_CONFIDENCE,
) -> Belief:
    """The belief the claim starts, for the observer whose trust is given."""
    teller = trust.of(claim.source_agent, claim.topics) if claim.source_agent else NEUTRAL_TRUST
    belief = Belief(
        claim_root=claim.claim_root,
        subject=claim.subject,
        interpretation=claim.interpretation,
        source_kind=claim.source_kind,
        source_agent=claim.source_agent,
        topics=claim.topics,
        layer=claim.layer,
        confidence=initial_confidence(claim, teller, implanted),
        state=BeliefState.INFLUENCING,
        last_evidence_at=claim.occurred_at,
        as_of=claim.occurred_at,
        origin=claim.principal,
    )
    return settled(belief)


def counted(
    claim_root: str, events: Iterable[BeliefEvent], as_of: datetime | AsOf
) -> tuple[BeliefEvent, ...]:
    """The events on this claim root known at `as_of`, once each, in log order. An event
    delivered twice (a replay, an overlapping page) counts once: events are identified by
    their position, and two different events claiming one position are refused."""
    cut = as_cut(as_of)
    chosen: dict[int, BeliefEvent] = {}
    for event in events:
        if event.claim_root != claim_root or not cut.counts(event.recorded_at, event.position):
            continue
        if chosen.setdefault(event.position, event) != event:
            raise InvalidValueError(f"two different events at @{event.position}")
    return tuple(chosen[p] for p in sorted(chosen))


def fold(
    claim: Claim,
    events: Iterable[BeliefEvent],
    as_of: datetime | AsOf,
    trust: ObserverTrust = NEUTRAL_VIEW,
    *,
    implanted: int = DEFAULT_IMPLANTED_CONFIDENCE,
) -> Belief:
    """The observer's belief in the claim as of `as_of`: R(B, e) over the events recorded
    by then, in log order, with aging applied up to each event's occurred_at and finally
    up to the as-of time. `trust` is this observer's view of trust *as of the same time*
    (fold the TrustTable with the same cut): a source caught out since is re-scored."""
    cut = as_cut(as_of)
    if not known(claim, cut):
        raise InvalidValueError(
            f"claim {claim.claim_root} was not yet recorded as of {cut.at.isoformat()}"
        )
    belief = believe(claim, trust, implanted)
    for event in counted(claim.claim_root, events, cut):
        belief = aged(belief, event.occurred_at)
        if isinstance(event, LayerMove):
            belief = belief.evolve(layer=event.layer)
            continue
        teller = trust.of(event.from_agent, belief.topics) if event.from_agent else NEUTRAL_TRUST
        belief = weigh(belief, event, teller).belief
    return aged(belief, cut.at)
