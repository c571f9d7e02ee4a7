"""Evidence on a claim root: `memhall evidence`, later writes, corroborations (issue 11 §1–2).

Each applies R(B, e) to the hall's belief in the same transaction that records
it. A correction of hearsay costs its teller trust on the claim's topics, in
the hall's view and its corrector's, and re-scores the teller's other hearsay;
all of it is recorded in the one event, so replay needs no rule but the log.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any
from uuid import UUID

from sqlalchemy import Connection, Text, or_, select, type_coerce

from memhall.domains.belief import AsOf, Evidence, EvidenceKind, SourceCorrected, fold, weigh
from memhall.domains.belief import source_corrected as caught_out
from memhall.domains.belief.hearsay import NEUTRAL_TRUST
from memhall.domains.entry import Entry, EntryDraft, draft
from memhall.domains.errors import InvalidValueError
from memhall.domains.evidence import Evidence as EvidenceRecord
from memhall.domains.evidence import Outcome, Rescored, Via
from memhall.domains.opinion import SubjectiveClaim
from memhall.domains.values import SourceKind, clean_text, principal_name
from memhall.governance.beliefs import Facts, claim_entry, facts
from memhall.governance.exposure import KnowsRoles
from memhall.governance.hall import Hall
from memhall.governance.projection.schema import json_text
from memhall.governance.store import raw
from memhall.governance.streams import DomainStream
from memhall.governance.trust import HALL_VIEW, corrections
from memhall.governance.trust import table as trust_table
from memhall.governance.views import View
from memhall.policies.model import Action, PolicyRequest, ResourceType


class EvidenceResult(View):
    evidence_id: str
    claim_entry: str
    claim_root: str
    position: int
    revision: str
    state: str
    confidence: int
    subject: str
    contested: bool = False
    trust_changed: list[str] = []
    rescored: list[Rescored] = []


def _rescored(conn: Connection, stream: DomainStream, caught: SourceCorrected, now: datetime,
              before: Any, after: Any) -> list[Rescored]:
    """The teller's other active hearsay whose hall confidence the new trust moves: only
    claims on a topic it was caught out on can move (with no topic, its general trust)."""
    x = stream.tables.entries
    query = select(x.c.id).where(
        x.c.source_agent_id == caught.source, x.c.source_kind == SourceKind.HEARSAY.value,
        x.c.status == "active")
    if caught.topics:
        # topics are stored as a JSON list of strings: match the quoted name in its text
        text = type_coerce(x.c.topics, Text)
        query = query.where(or_(*(text.like(f"%{json_text(t)}%") for t in caught.topics)))
    ids = [str(i) for i in conn.execute(query).scalars()]
    skip = caught.claim_root
    moved = []
    cut = AsOf(now)
    for fact in facts(conn, stream, ids):
        if fact.claim.claim_root == skip or fact.entry_id not in ids:
            continue
        old = fold(fact.claim, fact.events, cut, before.seen_by(HALL_VIEW)).confidence
        new = fold(fact.claim, fact.events, cut, after.seen_by(HALL_VIEW)).confidence
        if old != new:
            moved.append(Rescored(entry_id=fact.entry_id, claim_root=fact.claim.claim_root,
                                  before=old, after=new))
    return moved


def weigh_in(hall: Hall, conn: Connection, stream: DomainStream, claim_of: str, *,
             kind: EvidenceKind, source_kind: SourceKind, from_agent: str | None,
             ref: str | None, text: str | None, occurred_at: datetime | None, via: Via,
             entry_id: str | None, actor: str, rule: str) -> tuple[list[Any], EvidenceResult]:
    """The aggregates to save for one piece of evidence on the belief `claim_of` belongs to,
    and what it did. Call it after saving anything it should come after."""
    now = hall.clock()
    at = occurred_at or now
    if at > now:
        raise InvalidValueError(f"--at {at.isoformat()} is later than now: evidence is recorded "
                                "after it happens, never before")
    first = claim_entry(conn, stream, claim_of)
    [fact] = facts(conn, stream, [first])
    position = stream.journal.head(raw(conn))[0] + 1
    evidence = Evidence(claim_root=fact.claim.claim_root, kind=kind, source_kind=source_kind,
                        actor=actor, occurred_at=at, recorded_at=now, position=position,
                        from_agent=from_agent, ref=ref, text=text)
    trust = trust_table(conn, stream)
    hall_view = trust.seen_by(HALL_VIEW)
    cut = AsOf(now)
    before = fold(fact.claim, fact.events, cut, hall_view)
    teller = hall_view.of(from_agent, before.topics) if from_agent else NEUTRAL_TRUST
    weighed = weigh(before, evidence, teller)
    caught: list[SourceCorrected] = []
    hall_caught = caught_out(before, evidence, HALL_VIEW, teller)
    if hall_caught is not None:
        caught = [hall_caught]
        if actor != hall_caught.source:
            caught.append(replace(hall_caught, observer=actor))
    load = lambda ident: stream.get(ident, "trust claim", kind=SubjectiveClaim)  # noqa: E731
    after_trust, trust_claims = corrections(stream, trust, caught, load=load, actor=actor,
                                            rule=rule)
    after = fold(fact.claim, (*fact.events, evidence), cut, after_trust.seen_by(HALL_VIEW))
    rescored = (_rescored(conn, stream, hall_caught, now, trust, after_trust)
                if hall_caught else [])
    outcome = Outcome(revision=weighed.revision.value, state=after.state.value,
                      confidence=after.confidence, subject=after.subject,
                      interpretation=after.interpretation, contested=weighed.nominate_demotion)
    record = EvidenceRecord(domain=stream.name, claim_root=fact.claim.claim_root,
                            claim_entry=fact.entry_id, kind=kind, source_kind=source_kind,
                            from_agent=from_agent, ref=ref, text=text, occurred_at=at, via=via,
                            entry_id=entry_id, outcome=outcome, rescored=tuple(rescored),
                            actor=actor, rule=rule)
    loop = (_demotion_loop(hall, conn, stream, fact, weighed.belief.layer.value, position,
                           actor=actor, rule=rule)
            if weighed.nominate_demotion else None)
    result = EvidenceResult(
        evidence_id=str(record.id), claim_entry=fact.entry_id, claim_root=fact.claim.claim_root,
        position=position, revision=outcome.revision, state=outcome.state,
        confidence=outcome.confidence, subject=outcome.subject, contested=outcome.contested,
        trust_changed=[f"{c.observer}: {c.statement}" for c in trust_claims], rescored=rescored)
    return [record, *trust_claims, *([loop] if loop else [])], result


#: the idempotency-key prefix of the open loop that asks the owner whether to demote
CONTESTED = "contested:"


def _demotion_loop(hall: Hall, conn: Connection, stream: DomainStream, fact: Facts, layer: str,
                   position: int, *, actor: str, rule: str) -> Entry | None:
    """Contested ratified knowledge asks its owner whether to demote it: one open loop,
    pointing at the claim, while none is open (evidence never rewrites L3/L4 itself)."""
    x = stream.tables.entries
    key = f"{CONTESTED}{fact.entry_id}:"
    if conn.execute(select(x.c.id).where(x.c.idempotency_key.like(f"{key}%"),
                                         x.c.status == "active").limit(1)).first():
        return None
    owners: tuple[str, ...] = ()
    if isinstance(hall.gate, KnowsRoles):
        owners = tuple(p for p in hall.gate.principals
                       if "ratify_owner" in hall.gate.roles_of(p, stream.name))
    loop = draft(layer="L1", kind="open-loop", pointers=(fact.entry_id,), addressees=owners,
                 text=f"demotion nominated: {layer} claim {fact.entry_id} is "
                      f"contested by evidence @{position}; the ratify owner may demote it",
                 idempotency_key=f"{key}{position}")
    return Entry.write(stream.name, loop, actor=actor, rule=rule,
                       implanted=hall.implanted_confidence)


def record(hall: Hall, actor: str, domain: str, claim: UUID, kind: EvidenceKind, *,
           source_kind: SourceKind = SourceKind.FIRSTHAND, from_agent: str | None = None,
           ref: str | None = None, text: str | None = None,
           occurred_at: datetime | None = None) -> EvidenceResult:
    """`memhall evidence CLAIM`: record evidence on the belief CLAIM belongs to."""
    actor = principal_name(actor)
    if source_kind is SourceKind.IMPLANTED:
        raise InvalidValueError("evidence is firsthand or hearsay, never implanted")
    if source_kind is SourceKind.HEARSAY and not from_agent:
        raise InvalidValueError("hearsay evidence needs the agent it was heard from (--from)")
    if source_kind is SourceKind.FIRSTHAND and from_agent:
        raise InvalidValueError("--from names the teller of hearsay; firsthand evidence has none")
    from_agent = principal_name(from_agent) if from_agent else None
    text = clean_text(text, "text") if text else None
    ref = clean_text(ref, "ref") if ref else None
    stream = hall.stream(domain, actor=actor, action=Action.WRITE_L1)
    with hall.writing(stream) as session:
        entry: Entry = stream.get(claim, kind=Entry)
        request = PolicyRequest(principal=actor, action=Action.WRITE_L1, domain=stream.name,
                                resource_type=ResourceType.ENTRY, resource_id=str(claim),
                                target_layer="L1", kind=entry.kind.value, author=actor,
                                has_evidence=True)
        decision = hall.authorize(session, stream, request)
        changed, result = weigh_in(hall, session, stream, str(claim), kind=kind,
                                   source_kind=source_kind, from_agent=from_agent, ref=ref,
                                   text=text, occurred_at=occurred_at, via=Via.EVIDENCE,
                                   entry_id=None, actor=actor, rule=decision.rule_id)
        stream.save(session, *changed)
    return result


def on_write(hall: Hall, conn: Connection, stream: DomainStream, draft: EntryDraft,
             written: Entry, *, actor: str, rule: str) -> list[Any]:
    """A later write with an existing claim root is evidence on that belief (supports,
    unless it says it contradicts). Call after the entry is saved."""
    root = draft.provenance.claim_root_id
    if not root:
        return []
    first = claim_entry(conn, stream, str(written.id))
    if first == str(written.id):
        return []  # the first entry with this root: it starts the belief
    kind = EvidenceKind.CONTRADICTS if draft.contradicts else EvidenceKind.SUPPORTS
    refs = draft.provenance.evidence_refs
    changed, _ = weigh_in(hall, conn, stream, first, kind=kind,
                          source_kind=draft.provenance.source_kind
                          if draft.provenance.source_kind is not SourceKind.IMPLANTED
                          else SourceKind.FIRSTHAND,
                          from_agent=draft.provenance.source_agent_id,
                          ref=refs[0] if refs else None, text=draft.text,
                          occurred_at=draft.occurred_at, via=Via.WRITE,
                          entry_id=str(written.id), actor=actor, rule=rule)
    return changed


def corroboration(hall: Hall, conn: Connection, stream: DomainStream, draft: EntryDraft,
                  duplicate: str, *, actor: str, rule: str) -> list[Any]:
    """The same memory written again: by another principal, or with new evidence refs, it
    reinforces the stored claim and names its corroborator; the same principal repeating
    itself with nothing new changes nothing."""
    existing: Entry = stream.get(UUID(duplicate), kind=Entry)
    new_refs = [r for r in draft.provenance.evidence_refs
                if r not in existing.provenance.evidence_refs]
    if actor == existing.author and not new_refs:
        return []
    source = draft.provenance.source_kind
    changed, _ = weigh_in(hall, conn, stream, duplicate, kind=EvidenceKind.SUPPORTS,
                          source_kind=SourceKind.FIRSTHAND if source is SourceKind.IMPLANTED
                          else source, from_agent=draft.provenance.source_agent_id,
                          ref=new_refs[0] if new_refs else None, text=None,
                          occurred_at=draft.occurred_at, via=Via.CORROBORATION, entry_id=None,
                          actor=actor, rule=rule)
    return changed
