"""Beliefs read from the log: the hall's and each agent's, as of a cut (SPEC §5, issue 11).

Everything here is derived at read time from the stored facts (claims, the
evidence on their roots, layer moves, trust claims) through the pure rules of
`memhall.domains.belief`; nothing read here is stored, so a rebuild cannot
disagree with it and aging needs no background job.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, overload
from uuid import UUID

import orjson
from sqlalchemy import Connection, or_, select

from memhall.domains.belief import (
    AsOf,
    Belief,
    Claim,
    Evidence,
    EvidenceKind,
    LayerMove,
    TrustTable,
    fold,
    known,
    why,
)
from memhall.domains.belief.why import EvidenceGraph
from memhall.domains.belief.drawing import belief_dict
from memhall.domains.belief.records import BeliefEvent
from memhall.domains.errors import InvalidValueError, NotFoundError
from memhall.domains.values import INITIAL_CONFIDENCE, Layer, SourceKind, domain_name, principal_name
# the as-of cut lives in as_of; named here too, as its callers know it
from memhall.governance.as_of import AsOfArg as AsOfArg, cut_of as cut_of, parse_as_of as parse_as_of
from memhall.governance.as_of import ratified_as_of as ratified_as_of, resolve_cut as resolve_cut
from memhall.governance.exposure import KnowsRoles, held_clause, holds_domain
from memhall.governance.hall import Hall
from memhall.governance.projection.schema import from_iso, iso
from memhall.governance.store import raw
from memhall.governance.streams import DomainStream
from memhall.governance.trust import HALL_VIEW
from memhall.governance.trust import table as trust_table
from memhall.governance.views import View
from memhall.policies.model import Action, ResourceType

# -- the facts a belief is folded from -----------------------------------------------------

#: kinds that carry a session's state, not a belief about the world
NOT_BELIEFS = ("state", "wrap-up", "handoff", "open-loop")
#: the ways of being handed an entry that hand over the hall's belief in it as it stood
HANDED = ("materialize", "answer", "handoff", "recall")
WRITTEN, PROMOTED, DEMOTED = ("memhall.Entry.Written", "memhall.Entry.Promoted", "memhall.Entry.Demoted")


@dataclass(frozen=True)
class Facts:
    """One claim root as the log has it: its claim, the evidence on it, its layer moves."""

    entry_id: str
    claim: Claim
    events: tuple[BeliefEvent, ...]
    #: evidence position -> (carrier entry, recorder)
    carriers: dict[int, tuple[str | None, str]]


def _claim(entry_id: str, state: dict[str, Any], position: int) -> Claim:
    provenance = state["provenance"]
    source = SourceKind(provenance["source_kind"])
    recorded = from_iso(iso(state["timestamp"]))
    confidence: int | None = int(state["confidence"])
    if confidence == INITIAL_CONFIDENCE.get(source):
        confidence = None  # the provenance default: each observer's trust decides
    return Claim(
        claim_root=provenance.get("claim_root_id") or entry_id, subject=state["text"],
        source_kind=source, author=state["actor"],
        # never after it was recorded: an older version's entry saying so is read as then
        occurred_at=min(from_iso(iso(state.get("occurred_at") or state["timestamp"])), recorded),
        recorded_at=recorded, position=position, interpretation=state.get("interpretation"),
        source_agent=provenance.get("source_agent_id"), topics=tuple(state["tags"]["topics"]),
        confidence=confidence, layer=Layer(state["layer"]),
        refs=tuple(provenance.get("evidence_refs") or ()))


def _entry_events(conn: Connection, stream: DomainStream,
                  ids: Iterable[str]) -> dict[str, list[tuple[int, str, dict[str, Any]]]]:
    """The Written, Promoted and Demoted events of these entries, from the log itself."""
    db = raw(conn)
    m = "?" if stream.store.dialect == "sqlite" else "%s"
    found: dict[str, list[tuple[int, str, dict[str, Any]]]] = {}
    wanted = sorted(set(ids))
    for start in range(0, len(wanted), 500):
        chunk = wanted[start:start + 500]
        params = [stream.journal.uuid_param(UUID(i)) for i in chunk]
        cursor = db.cursor()
        cursor.execute(
            f"SELECT id, originator_id, topic, state FROM {stream.tables.events_name} "
            f"WHERE originator_id IN ({', '.join([m] * len(chunk))}) "
            f"AND topic IN ('{WRITTEN}', '{PROMOTED}', '{DEMOTED}') ORDER BY id", params)
        for position, originator, topic, data in cursor.fetchall():
            ident = str(UUID(bytes=bytes(originator)) if isinstance(originator, (bytes, memoryview))
                        else originator)
            found.setdefault(ident, []).append((int(position), str(topic), orjson.loads(data)))
    return found


def _evidence(row: Any) -> Evidence:
    return Evidence(
        claim_root=row.claim_root, kind=EvidenceKind(row.kind),
        source_kind=SourceKind(row.source_kind), actor=row.actor, occurred_at=row.occurred_at,
        recorded_at=row.recorded_at, position=int(row.position), from_agent=row.from_agent,
        ref=row.ref, text=row.text)


def facts(conn: Connection, stream: DomainStream, claim_entries: Iterable[str]) -> list[Facts]:
    """The facts of the claim roots these entries start, in log order of their claims."""
    events = _entry_events(conn, stream, claim_entries)
    claims: dict[str, tuple[str, Claim, list[BeliefEvent]]] = {}
    for entry_id, rows in events.items():
        written = [(p, s) for p, t, s in rows if t == WRITTEN]
        if not written:
            continue
        claim = _claim(entry_id, written[0][1], written[0][0])
        moves: list[BeliefEvent] = [
            LayerMove(claim.claim_root, Layer(s["to_layer"]), p, from_iso(iso(s["timestamp"])))
            for p, t, s in rows if t != WRITTEN]
        if claim.claim_root not in claims or claim.position < claims[claim.claim_root][1].position:
            claims[claim.claim_root] = (entry_id, claim, moves)  # the first entry is the claim
    carriers: dict[str, dict[int, tuple[str | None, str]]] = {root: {} for root in claims}
    e = stream.tables.evidence
    roots = sorted(claims)
    for start in range(0, len(roots), 500):
        for row in conn.execute(select(e).where(e.c.claim_root.in_(roots[start:start + 500]))
                                .order_by(e.c.position)):
            claims[row.claim_root][2].append(_evidence(row))
            carriers[row.claim_root][int(row.position)] = (row.entry_id, row.actor)
    found = [Facts(entry_id, claim, tuple(sorted(moves, key=lambda x: x.position)),
                   carriers[claim.claim_root]) for entry_id, claim, moves in claims.values()]
    return sorted(found, key=lambda f: f.claim.position)


def claim_entry(conn: Connection, stream: DomainStream, entry_id: str) -> str:
    """The entry that started the belief this entry belongs to: its claim root's own entry,
    else the first entry written with that root."""
    x = stream.tables.entries
    row = conn.execute(select(x.c.id, x.c.claim_root_id).where(x.c.id == entry_id)).first()
    if row is None:
        raise NotFoundError("entry", entry_id, stream.name)
    root = row.claim_root_id or row.id
    first = conn.execute(
        select(x.c.id).where(or_(x.c.id == root, x.c.claim_root_id == root))
        .order_by(x.c.created_position).limit(1)).scalar()
    return str(first or row.id)


# -- whose evidence counts ------------------------------------------------------------------

#: one exposure row: (entry id, via, position)
Held = tuple[str, str, int]


def held_rows(conn: Connection, stream: DomainStream, holder: str) -> dict[str, list[Held]]:
    """Every exposure row of one holder, by entry (one query for a whole listing)."""
    x = stream.tables.exposure
    found: dict[str, list[Held]] = {}
    for entry_id, via, position in conn.execute(
            select(x.c.entry_id, x.c.via, x.c.position).where(x.c.holder == holder)):
        found.setdefault(str(entry_id), []).append((str(entry_id), str(via), int(position)))
    return found


def exposed(conn: Connection, stream: DomainStream, holder: str, fact: Facts,
            cut: AsOf, held: dict[str, list[Held]] | None = None) -> tuple[BeliefEvent, ...] | None:
    """The events of this root the holder is exposed to (None: it does not hold the claim).
    An agent sees evidence it recorded, evidence carried by an entry it holds, and whatever
    was on the claim when it was handed the claim (materialize, answer, handoff, recall)."""
    if held is None:
        x = stream.tables.exposure
        found = [(str(e), str(v), int(p)) for e, v, p in conn.execute(
            select(x.c.entry_id, x.c.via, x.c.position).where(
                x.c.holder == holder, x.c.entry_id.in_(_entries_of(fact))))]
    else:
        found = [row for entry in _entries_of(fact) for row in held.get(entry, ())]
    rows = [_Row(*r) for r in found if cut.position is None or r[2] <= cut.position]
    held_claim = [r for r in rows if r.entry_id == fact.entry_id]
    if not held_claim and not any(a == holder for _, a in fact.carriers.values()):
        return None
    carried = {r.entry_id for r in rows}
    handed = max((int(r.position) for r in held_claim if r.via in HANDED), default=-1)
    chosen: list[BeliefEvent] = []
    for event in fact.events:
        if isinstance(event, LayerMove):
            chosen.append(event)
            continue
        carrier, actor = fact.carriers.get(event.position, (None, ""))
        if actor == holder or (carrier is not None and carrier in carried) or \
                event.position < handed:
            chosen.append(event)
    return tuple(chosen)


@dataclass(frozen=True)
class _Row:
    entry_id: str
    via: str
    position: int


def _entries_of(fact: Facts) -> list[str]:
    return sorted({fact.entry_id, *(c for c, _ in fact.carriers.values() if c)})


# -- beliefs ------------------------------------------------------------------------------

class HolderBelief(View):
    holder: str
    state: str
    confidence: int
    subject: str


class BeliefView(View):
    """One belief as a holder (or the hall) has it, as of a cut, with its history."""

    entry_id: str
    holder: str
    as_of: datetime
    as_of_position: int | None = None
    belief: dict[str, Any]
    used_to_think: list[str] = []
    corroborated_by: list[dict[str, Any]] = []


def _view(entry_id: str, holder: str, belief: Belief, cut: AsOf) -> BeliefView:
    data = belief_dict(belief)
    return BeliefView(entry_id=entry_id, holder=holder, as_of=cut.at, as_of_position=cut.position,
                      belief=data, used_to_think=list(dict.fromkeys(u.subject for u in belief.used_to_think)),
                      corroborated_by=data["corroborators"])


def hall_belief(conn: Connection, stream: DomainStream, fact: Facts, cut: AsOf,
                trust: TrustTable | None = None) -> Belief | None:
    """The chairs' view: every event of the root, the hall's trust. None before the claim."""
    if not known(fact.claim, cut):
        return None
    trust = trust if trust is not None else trust_table(conn, stream, cut)
    return fold(fact.claim, fact.events, cut, trust.seen_by(HALL_VIEW))


def holder_belief(conn: Connection, stream: DomainStream, gate: object, holder: str,
                  fact: Facts, cut: AsOf, trust: TrustTable | None = None, *,
                  whole: bool | None = None,
                  held: dict[str, list[Held]] | None = None) -> Belief | None:
    """The holder's own belief: the evidence it is exposed to, its own trust. Chairs and the
    ratify owner hold the domain whole: theirs is the hall's."""
    if not known(fact.claim, cut):
        return None
    trust = trust if trust is not None else trust_table(conn, stream, cut)
    if whole if whole is not None else holds_domain(gate, holder, stream.name):
        return fold(fact.claim, fact.events, cut, trust.seen_by(HALL_VIEW))
    events = exposed(conn, stream, holder, fact, cut, held)
    if events is None:
        return None
    return fold(fact.claim, events, cut, trust.seen_by(holder))


@overload
def belief_of(hall: Hall, actor: str, domain: str, entry_id: UUID, *, holder: str | None = ...,
              as_of: AsOfArg = ..., missing_ok: Literal[False] = ...) -> BeliefView: ...


@overload
def belief_of(hall: Hall, actor: str, domain: str, entry_id: UUID, *, holder: str | None = ...,
              as_of: AsOfArg = ..., missing_ok: bool) -> BeliefView | None: ...


def belief_of(hall: Hall, actor: str, domain: str, entry_id: UUID, *, holder: str | None = None,
              as_of: AsOfArg = None, missing_ok: bool = False) -> BeliefView | None:
    """`show`'s belief: the hall's (or one holder's) belief in the root ENTRY_ID belongs to."""
    stream, _ = hall.ask(actor, Action.READ, domain, resource_type=ResourceType.ENTRY,
                         resource_id=str(entry_id))
    with hall.store.read() as conn:
        cut = resolve_cut(conn, stream, as_of, hall.clock())
        first = claim_entry(conn, stream, str(entry_id))
        [fact] = facts(conn, stream, [first])
        if holder is None:
            belief = hall_belief(conn, stream, fact, cut)
        else:
            belief = holder_belief(conn, stream, hall.gate, principal_name(holder), fact, cut)
    if belief is None:
        if missing_ok:
            return None
        who = "the hall" if holder is None else holder
        raise InvalidValueError(f"{who} held no belief in {first} as of {cut.at.isoformat()}")
    return _view(fact.entry_id, holder or HALL_VIEW, belief, cut)


def why_of(hall: Hall, actor: str, domain: str, entry_id: UUID, *, holder: str | None = None,
           as_of: AsOfArg = None) -> EvidenceGraph:
    """"Why do you believe X?": the evidence graph behind the hall's (or a holder's) belief,
    from the events only."""
    stream, _ = hall.ask(actor, Action.READ, domain, resource_type=ResourceType.ENTRY,
                         resource_id=str(entry_id))
    with hall.store.read() as conn:
        cut = resolve_cut(conn, stream, as_of, hall.clock())
        first = claim_entry(conn, stream, str(entry_id))
        [fact] = facts(conn, stream, [first])
        trust = trust_table(conn, stream, cut)
        if not known(fact.claim, cut):
            raise InvalidValueError(f"{first} was not yet recorded as of {cut.at.isoformat()}")
        events = fact.events
        observer = HALL_VIEW
        if holder is not None and not holds_domain(hall.gate, holder, stream.name):
            observer = principal_name(holder)
            seen = exposed(conn, stream, observer, fact, cut)
            if seen is None:
                raise InvalidValueError(f"{holder} does not hold {first}")
            events = seen
    return why(fact.claim, events, cut, trust.seen_by(observer))


def holders_of(hall: Hall, actor: str, domain: str, entry_id: UUID, *,
               as_of: AsOfArg = None) -> list[HolderBelief]:
    """`show --holders`: who holds the belief, at what confidence and state. The chairs and
    the ratify owner hold it by role, with the hall's belief."""
    stream, _ = hall.ask(actor, Action.READ, domain, resource_type=ResourceType.ENTRY,
                         resource_id=str(entry_id))
    with hall.store.read() as conn:
        cut = resolve_cut(conn, stream, as_of, hall.clock())
        first = claim_entry(conn, stream, str(entry_id))
        [fact] = facts(conn, stream, [first])
        trust = trust_table(conn, stream, cut)
        x = stream.tables.exposure
        by_rows = {str(h) for h in conn.execute(
            select(x.c.holder).where(x.c.entry_id.in_(_entries_of(fact)))).scalars()}
        by_role = set()
        if isinstance(hall.gate, KnowsRoles):
            by_role = {p for p in hall.gate.principals if holds_domain(hall.gate, p, stream.name)}
        found = []
        for holder in sorted(by_rows | by_role):
            belief = holder_belief(conn, stream, hall.gate, holder, fact, cut, trust)
            if belief is not None:
                found.append(HolderBelief(holder=holder, state=belief.state.value,
                                          confidence=belief.confidence, subject=belief.subject))
    return found


class BeliefsView(View):
    domain: str
    holder: str
    as_of: datetime
    as_of_position: int | None = None
    beliefs: list[BeliefView]


def beliefs(hall: Hall, actor: str, domain: str, *, holder: str | None = None,
            topic: str | None = None, as_of: AsOfArg = None, limit: int = 1000) -> BeliefsView:
    """`memhall beliefs`: each claim a holder (default: the hall) believes, as of a cut."""
    stream, _ = hall.ask(actor, Action.READ, domain)
    who = principal_name(holder) if holder else HALL_VIEW
    with hall.store.read() as conn:
        cut = resolve_cut(conn, stream, as_of, hall.clock())
        x = stream.tables.entries
        other = x.alias("root_entry")
        query = select(x.c.id, x.c.topics, x.c.created_position).where(
            x.c.status == "active", x.c.kind.notin_(NOT_BELIEFS),
            or_(x.c.claim_root_id.is_(None), x.c.claim_root_id == x.c.id,
                ~select(other.c.id).where(other.c.id == x.c.claim_root_id).exists()))
        if cut.position is not None:
            query = query.where(x.c.created_position <= cut.position)
        whole = holder is None or holds_domain(hall.gate, who, stream.name)
        wanted = topic.strip().lower() if topic else None
        held = None if whole else held_rows(conn, stream, who)
        if held is None:
            query = query.order_by(x.c.created_position.desc())
            rows = conn.execute(query if wanted else query.limit(limit)).all()
        else:
            # a holder's own rows first (its index), then only those entries
            mine = sorted(e for e, found in held.items()
                          if any(cut.position is None or p <= cut.position for _, _, p in found))
            rows = [r for start in range(0, len(mine), 500)
                    for r in conn.execute(query.where(x.c.id.in_(mine[start:start + 500])))]
            rows.sort(key=lambda r: -int(r.created_position))
        ids = [str(r.id) for r in rows if wanted is None or wanted in r.topics]
        ids = ids[:limit]  # newest first: a holder's beliefs are read from its newest claims
        trust = trust_table(conn, stream, cut)
        views = []
        for fact in reversed(facts(conn, stream, ids)):
            belief = (hall_belief(conn, stream, fact, cut, trust) if whole else
                      holder_belief(conn, stream, hall.gate, who, fact, cut, trust, whole=False,
                                    held=held))
            if belief is not None:
                views.append(_view(fact.entry_id, who, belief, cut))
            if len(views) >= limit:
                break
    return BeliefsView(domain=stream.name, holder=who, as_of=cut.at, as_of_position=cut.position,
                       beliefs=views)
