"""Perspective: an observer's own opinions of entities, relationships between entities, and
`about` — what one observer holds about an entity (SPEC §6; issue 12 §3).

An opinion is a SubjectiveClaim stated by its observer itself (a new version each
time); `trust` is the category `memhall trust set` owns. A relationship is governed
like a write of its visibility's layer: objective and public ones are L2 facts of
the domain, a private one is L1, its observer's own reading. Both may cite only
memories their author holds: nobody builds a portrait out of what it never saw.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from uuid import UUID

from sqlalchemy import Connection, and_, or_, select

from memhall.domains.errors import InvalidValueError, MemhallError, NotFoundError
from memhall.domains.opinion import TRUST, Cause, Stance, SubjectiveClaim, opinion_id
from memhall.domains.relationship import Relationship, Visibility, normalized, relationship_id
from memhall.domains.values import principal_name
from memhall.governance.exposure import held, holds_domain
from memhall.governance.hall import Hall
from memhall.governance.streams import DomainStream
from memhall.governance.views import View
from memhall.policies.model import Action, PolicyRequest, ResourceType


class EvidenceView(View):
    id: str
    #: the observer holds it; an evidence id it does not hold is counted, never shown
    layer: str
    author: str
    text: str


class OpinionView(View):
    id: str
    observer: str
    entity: str
    category: str
    topic: str | None
    statement: str
    stance: str
    confidence: int
    version: int
    active: bool
    evidence: list[str]
    #: memories that speak against it
    contradicting: list[str] = []


class RelationshipView(View):
    id: str
    source: str
    target: str
    kind: str
    visibility: str
    perspective: str | None
    evidence: list[str]
    note: str
    version: int
    active: bool
    history: list[dict[str, Any]]


class AboutView(View):
    domain: str
    observer: str
    entity: str
    portrait: list[OpinionView]
    relationships: list[RelationshipView]
    #: evidence id -> the memory, for every cited id the observer holds
    evidence: dict[str, EvidenceView]
    #: cited ids the observer does not hold (not shown)
    unheld_evidence: int


def opinion(hall: Hall, actor: str, domain: str, entity: str, *, category: str, statement: str,
            stance: Stance, evidence: Sequence[str] = (), contradicting: Sequence[str] = (),
            confidence: int = 70, topic: str | None = None) -> OpinionView:
    """State (or revise, as a new version) the actor's own judgement of `entity`, with the
    memories that support it and those that speak against it (each one it holds)."""
    actor = principal_name(actor)
    entity, category = normalized(entity, "entity"), normalized(category, "category (--category)")
    if category == TRUST:
        raise InvalidValueError("trust is set by the ratify owner with `memhall trust set`, not as an opinion")
    stream = hall.stream(domain, actor=actor, action=Action.READ)
    with hall.writing(stream) as session:
        request = PolicyRequest(principal=actor, action=Action.READ, domain=stream.name,
                                resource_type=ResourceType.DOMAIN, resource_id=f"opinion:{entity}:{category}")
        decision = hall.authorize(session, stream, request)
        cited = _held_evidence(hall, session, stream, request, actor, evidence)
        against = _held_evidence(hall, session, stream, request, actor, contradicting)
        ident = opinion_id(stream.name, actor, entity, category, topic)
        try:
            claim: SubjectiveClaim = stream.get(ident, "opinion", kind=SubjectiveClaim)
            claim.revise(statement=statement, stance=stance, confidence=confidence, evidence=cited,
                         contradicting=against, cause=Cause.STATED, occurred_at=hall.clock(), actor=actor,
                         rule=decision.rule_id)
        except NotFoundError:
            claim = SubjectiveClaim.state(stream.name, actor, entity, category, statement=statement,
                                          stance=stance, confidence=confidence, evidence=cited,
                                          contradicting=against, topic=topic, occurred_at=hall.clock(),
                                          actor=actor, rule=decision.rule_id)
        stream.save(session, claim)
    return OpinionView(id=str(claim.id), observer=actor, entity=entity, category=category, topic=topic,
                       statement=claim.statement, stance=Stance(claim.stance).value,
                       confidence=claim.confidence, version=claim.version, active=claim.active,
                       evidence=list(claim.evidence), contradicting=list(claim.contradicting))


def relate(hall: Hall, actor: str, domain: str, source: str, target: str, *, kind: str,
           visibility: Visibility, evidence: Sequence[str] = (), note: str = "") -> RelationshipView:
    """Record (or revise, as a new version) a relationship, governed like a write of its
    visibility's layer; a private one is the actor's own reading."""
    actor = principal_name(actor)
    layer = visibility.layer
    action = Action.WRITE_L1 if layer == "L1" else Action.WRITE_L2
    perspective = actor if visibility is Visibility.PRIVATE else None
    stream = hall.stream(domain, actor=actor, action=action)
    with hall.writing(stream) as session:
        request = PolicyRequest(principal=actor, action=action, domain=stream.name,
                                resource_type=ResourceType.ENTRY, target_layer=layer,
                                resource_id=f"relationship:{normalized(source, 'first entity')}:"
                                            f"{normalized(target, 'second entity')}")
        decision = hall.authorize(session, stream, request)
        cited = _held_evidence(hall, session, stream, request, actor, evidence)
        ident = relationship_id(stream.name, normalized(source, "first entity"),
                                normalized(target, "second entity"), normalized(kind, "kind (--kind)"),
                                perspective)
        try:
            found: Relationship = stream.get(ident, "relationship", kind=Relationship)
            found.revise(evidence=cited, note=note, occurred_at=hall.clock(), actor=actor, rule=decision.rule_id)
        except NotFoundError:
            found = Relationship.record(stream.name, source, target, kind, visibility, perspective=perspective,
                                        evidence=cited, note=note, occurred_at=hall.clock(), actor=actor,
                                        rule=decision.rule_id)
        stream.save(session, found)
    with hall.store.read() as conn:
        return _relationships(conn, stream, actor, ids=[str(found.id)])[0]


def about(hall: Hall, actor: str, domain: str, entity: str) -> AboutView:
    """What the actor holds about `entity`: its own portrait (opinions), the relationships
    it can see, and the evidence behind each that it holds."""
    actor = principal_name(actor)
    entity = normalized(entity, "entity")
    stream, _ = hall.ask(actor, Action.READ, domain)
    o = stream.tables.opinions
    with hall.store.read() as conn:
        portrait = [_opinion(r) for r in conn.execute(
            select(o).where(o.c.observer == actor, o.c.entity == entity, o.c.active.is_(True),
                            o.c.category != TRUST).order_by(o.c.category, o.c.position))]
        # the read model keeps supporting evidence only: what speaks against a judgement
        # is read from its own events
        portrait = [v.model_copy(update={"contradicting": list(
            stream.get(UUID(v.id), "opinion", kind=SubjectiveClaim).contradicting)}) for v in portrait]
        relationships = _relationships(conn, stream, actor, entity=entity)
        cited = list(dict.fromkeys([*(i for v in portrait for i in (*v.evidence, *v.contradicting)),
                                    *(i for r in relationships for i in r.evidence)]))
        whole = holds_domain(hall.gate, actor, stream.name)
        shown = set(cited) if whole else held(conn, stream, actor, cited)
        e = stream.tables.entries
        rows = {r.id: r for r in conn.execute(select(e).where(e.c.id.in_(sorted(shown))))}
    evidence = {i: EvidenceView(id=i, layer=rows[i].layer, author=rows[i].author, text=rows[i].text)
                for i in cited if i in rows}
    return AboutView(domain=stream.name, observer=actor, entity=entity, portrait=portrait,
                     relationships=relationships, evidence=evidence,
                     unheld_evidence=len(cited) - len(evidence))


def visible_clause(stream: DomainStream, observer: str) -> Any:
    """Relationships an observer can see: objective and public ones, and its own private ones."""
    r = stream.tables.relationships
    return and_(r.c.active.is_(True), or_(r.c.visibility != Visibility.PRIVATE.value,
                                          r.c.perspective == observer))


def _relationships(conn: Connection, stream: DomainStream, observer: str, *, entity: str | None = None,
                   ids: Sequence[str] = ()) -> list[RelationshipView]:
    r = stream.tables.relationships
    query = select(r)
    if ids:
        query = query.where(r.c.id.in_(list(ids)))
    else:
        query = query.where(visible_clause(stream, observer), or_(r.c.source == entity, r.c.target == entity))
    return [RelationshipView(id=row.id, source=row.source, target=row.target, kind=row.kind,
                             visibility=row.visibility, perspective=row.perspective,
                             evidence=list(row.evidence), note=row.note, version=row.version,
                             active=bool(row.active), history=list(row.history))
            for row in conn.execute(query.order_by(r.c.kind, r.c.position))]


def _opinion(row: Any) -> OpinionView:
    return OpinionView(id=row.id, observer=row.observer, entity=row.entity, category=row.category,
                       topic=row.topic, statement=row.statement, stance=row.stance,
                       confidence=int(row.confidence), version=int(row.version), active=bool(row.active),
                       evidence=list(row.evidence))


def _held_evidence(hall: Hall, session: Connection, stream: DomainStream, request: PolicyRequest,
                   actor: str, evidence: Sequence[str]) -> tuple[str, ...]:
    """The cited ids, each an entry of the domain the actor holds; else a recorded refusal."""
    wanted = tuple(dict.fromkeys(str(i) for i in evidence))
    if not wanted:
        return wanted
    e = stream.tables.entries
    known = {str(r[0]) for r in session.execute(select(e.c.id).where(e.c.id.in_(list(wanted))))}
    missing = [i for i in wanted if i not in known]
    if missing:
        raise NotFoundError("entry", missing[0], stream.name)
    mine = set(wanted) if holds_domain(hall.gate, actor, stream.name) else held(session, stream, actor, wanted)
    unheld = [i for i in wanted if i not in mine]
    if unheld:
        error: MemhallError = InvalidValueError(
            f"{actor} cites {unheld[0]} as evidence but does not hold it: evidence must be a memory you hold")
        hall.refuse(session, stream, request, error, rule="evidence-must-be-held")
    return wanted

