"""Source trust in the hall: the subjective claims of category `trust`, read and set.

Trust is not a second structure (issue 12): each number is a SubjectiveClaim
of its observer about a source, category `trust`, per topic (none: general).
`table` folds their recorded steps into the pure `TrustTable` as of a cut; the
owner's `trust set` and a correction's penalty both revise the claim, so every
number keeps the events behind it.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from sqlalchemy import Connection, select

from memhall.domains.belief import AsOf, SourceCorrected, TrustSet, TrustTable
from memhall.domains.belief.trust import TrustEvent, TrustRow
from memhall.domains.opinion import (
    TRUST,
    Cause,
    SubjectiveClaim,
    opinion_id,
    stance_of,
    trust_statement,
)
from memhall.domains.belief import check_confidence
from memhall.domains.belief.hearsay import NEUTRAL_TRUST
from memhall.domains.entry import EntryDraft
from memhall.domains.errors import GuardrailError, InvalidValueError, NotFoundError
from memhall.domains.values import SourceKind, clean_text, principal_name
from memhall.governance.hall import Hall
from memhall.governance.projection.schema import from_iso
from memhall.governance.streams import DomainStream
from memhall.governance.views import View
from memhall.policies.model import Action, PolicyRequest, ResourceType

#: the observer whose trust the hall's own view (what show, handoff and ledger B print) uses;
#: not a valid principal name, so no agent can be it
HALL_VIEW = "@hall"


def _events(rows: Iterable[Any]) -> list[TrustEvent]:
    """The recorded steps of trust claims as the pure model's events. One correction that
    cost a source several topics is one event (its steps share a position)."""
    events: list[TrustEvent] = []
    corrected: dict[tuple[int, str, str], list[tuple[str | None, dict[str, Any]]]] = {}
    for row in rows:
        for step in row.history:
            if step["cause"] == Cause.CORRECTED.value:
                key = (int(step["position"]), row.observer, row.entity)
                corrected.setdefault(key, []).append((row.topic, step))
            elif step["value"] is not None:
                events.append(TrustSet(
                    observer=row.observer, source=row.entity, topic=row.topic,
                    value=float(step["value"]), by=step["by"], reason=step["detail"],
                    position=int(step["position"]), occurred_at=from_iso(step["occurred_at"]),
                    recorded_at=from_iso(step["recorded_at"])))
    for (position, observer, source), steps in corrected.items():
        first = steps[0][1]
        events.append(SourceCorrected(
            observer=observer, source=source,
            topics=tuple(sorted(t for t, _ in steps if t is not None)),
            claim_root=first["detail"], by=first["by"], position=position,
            occurred_at=from_iso(first["occurred_at"]),
            recorded_at=from_iso(first["recorded_at"])))
    return events


def table(conn: Connection, stream: DomainStream, cut: AsOf | None = None) -> TrustTable:
    """Every observer's trust as of `cut` (everything recorded when None)."""
    o = stream.tables.opinions
    rows = conn.execute(select(o.c.observer, o.c.entity, o.c.topic, o.c.history)
                        .where(o.c.category == TRUST)).all()
    return TrustTable.fold(_events(rows), cut)


def corrections(stream: DomainStream, trust: TrustTable, caught: Iterable[SourceCorrected], *,
                load: Any, actor: str, rule: str) -> tuple[TrustTable, list[SubjectiveClaim]]:
    """Revise (or state) the trust claims a correction costs its source: one per observer and
    topic, each saying which claim root caught the source out."""
    changed: list[SubjectiveClaim] = []
    for event in caught:
        trust = trust.applied(event)
        for topic in event.topics or (None,):
            value = trust.score(event.observer, event.source, topic).value
            changed.append(_claim(stream, load, event.observer, event.source, topic, value,
                                  Cause.CORRECTED, event.claim_root, event.occurred_at,
                                  actor=actor, rule=rule))
    return trust, changed


def _claim(stream: DomainStream, load: Any, observer: str, source: str, topic: str | None,
           value: float, cause: Cause, detail: str, at: datetime, *, actor: str,
           rule: str) -> SubjectiveClaim:
    ident = opinion_id(stream.name, observer, source, TRUST, topic)
    statement = trust_statement(source, topic, value)
    confidence = round(value * 100)
    try:
        claim: SubjectiveClaim = load(ident)
    except NotFoundError:
        return SubjectiveClaim.state(stream.name, observer, source, TRUST, topic=topic,
                                     statement=statement, stance=stance_of(value),
                                     confidence=confidence, value=value, cause=cause,
                                     detail=detail, occurred_at=at, actor=actor, rule=rule)
    claim.revise(statement=statement, stance=stance_of(value), confidence=confidence,
                 value=value, cause=cause, detail=detail, occurred_at=at, actor=actor, rule=rule)
    return claim


class TrustCauseView(View):
    change: str
    position: int
    at: datetime
    by: str
    value: float
    detail: str


class TrustView(View):
    observer: str
    source: str
    topic: str | None
    value: float
    causes: list[TrustCauseView]


def _view(row: TrustRow) -> TrustView:
    return TrustView(observer=row.observer, source=row.source, topic=row.topic, value=row.value,
                     causes=[TrustCauseView(change=c.change.value, position=c.position, at=c.at,
                                            by=c.by, value=c.value, detail=c.detail)
                             for c in row.causes])


def rows(hall: Hall, actor: str, domain: str, *, observer: str | None = None,
         source: str | None = None, topic: str | None = None,
         cut: AsOf | None = None) -> list[TrustView]:
    """`memhall trust`: the recorded numbers, each with the events behind it."""
    stream, _ = hall.ask(actor, Action.READ, domain)
    with hall.store.read() as conn:
        trust = table(conn, stream, cut)
    return [_view(r) for r in trust.rows(observer, source, topic)]


def set_trust(hall: Hall, actor: str, domain: str, *, source: str, value: float,
              reason: str, observer: str = HALL_VIEW, topic: str | None = None) -> TrustView:
    """The ratify owner sets Trust(observer ← source, topic); recorded, with the reason."""
    actor = principal_name(actor)
    source = principal_name(source)
    if observer != HALL_VIEW:
        observer = principal_name(observer)
    if not reason.strip():
        raise InvalidValueError("setting trust needs a reason (--reason)")
    clean_text(reason, "reason")
    if not 0.0 <= value <= 1.0:
        raise InvalidValueError(f"trust must be between 0 and 1, not {value}")
    topic = topic.strip().lower() if topic else None
    stream = hall.stream(domain, actor=actor, action=Action.RATIFY)
    with hall.writing(stream) as session:
        request = PolicyRequest(principal=actor, action=Action.RATIFY, domain=stream.name,
                                resource_type=ResourceType.PROMOTION,
                                resource_id=f"trust:{observer}:{source}:{topic or ''}")
        decision = hall.authorize(session, stream, request)
        claim = _claim(stream, lambda i: stream.get(i, "trust claim", kind=SubjectiveClaim),
                       observer, source, topic, round(value, 2), Cause.SET, reason,
                       hall.clock(), actor=actor, rule=decision.rule_id)
        stream.save(session, claim)
    found = rows(hall, actor, domain, observer=observer, source=source)
    return next(v for v in found if v.topic == topic)


def ceiling_problem(conn: Connection, stream: DomainStream, entry: EntryDraft,
                    implanted: int) -> GuardrailError | None:
    """Why an explicit write confidence exceeds what the entry's provenance allows, if it does."""
    if entry.confidence is None:
        return None
    provenance = entry.provenance
    teller = NEUTRAL_TRUST
    if provenance.source_kind is SourceKind.HEARSAY and provenance.source_agent_id:
        teller = table(conn, stream).seen_by(HALL_VIEW).of(provenance.source_agent_id,
                                                            entry.tags.topics)
    try:
        check_confidence(entry.confidence, provenance.source_kind, teller, implanted,
                         source_agent=provenance.source_agent_id)
    except GuardrailError as error:
        return error
    return None
