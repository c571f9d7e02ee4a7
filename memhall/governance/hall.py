"""The hall: use cases over per-domain streams, each asking the policy first.

Every use case follows one shape: open a write transaction (the write lock is taken
up front), read the facts the policy needs, ask the policy, act on the aggregates,
save. A refusal is saved as an event in the same transaction and committed before
the caller sees the error, so every refused action stays in the log.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from datetime import datetime, timezone
from typing import Any, NoReturn, TypeVar
from uuid import UUID

from sqlalchemy import Connection

from memhall.domains.dynamics.encoding import Encoder
from memhall.domains.entry import Entry, EntryDraft
from memhall.domains.errors import (
    DomainExistsError,
    InvalidValueError,
    MemhallError,
    RefusedError,
    UnknownDomainError,
)
from memhall.domains.records import DomainStream as DomainOpened
from memhall.domains.session import Session as WorkSession
from memhall.domains.values import (
    DEFAULT_IMPLANTED_CONFIDENCE,
    HANDOFF_KINDS,
    domain_name,
    principal_name,
)
from memhall.governance.encodings import default_encoder, encoded
from memhall.governance.facts import draft_facts, entry_facts, write_action
from memhall.governance import prepared, rebuilding
from memhall.governance.gate import Gate, Refused, denial
from memhall.governance.projection.entries import thread_of
from memhall.governance.refusals import Refusals
from memhall.governance.seal import POLICY_NOT_ADOPTED, Seal, not_adopted_message
from memhall.governance.store import Store
from memhall.governance.streams import DomainStream, Streams
from memhall.governance.views import WriteResult
from memhall.governance.write_checks import (
    active_duplicate,
    check_draft,
    check_pending,
    session_owners,
    replayed_entry,
)
from memhall.policies.files import PolicySource
from memhall.policies.model import Action, Decision, PolicyRequest, ResourceType

T = TypeVar("T")


class Hall:
    """One store, one policy set, one acting principal per call."""

    def __init__(
        self,
        store: Store,
        gate: Gate,
        *,
        implanted_confidence: int = DEFAULT_IMPLANTED_CONFIDENCE,
        clock: Callable[[], datetime] | None = None,
        encoder: Encoder | None = None,
        warn: Callable[[str], None] | None = None,
    ) -> None:
        self.store = store
        #: what each new entry is encoded with (emotion, entities), recorded in its event
        self.encoder = encoder or default_encoder()
        self.gate = gate
        source = getattr(gate, "source", None)
        #: the policy in force, pinned to each domain's adopted one (None for a gate without files)
        self.seal = Seal(source) if isinstance(source, PolicySource) else None
        self.streams = Streams(store, self.seal)
        self.refusals = Refusals(store, self.streams, gate)
        self.implanted_confidence = implanted_confidence
        self.clock = clock or (lambda: datetime.now(timezone.utc))
        #: how the hall tells the person at the terminal something that is not an error
        self.warn = warn or (lambda message: print(message, file=sys.stderr))

    # -- transactions and policy -------------------------------------------------

    @contextmanager
    def writing(self, stream: DomainStream | None = None, *, dedup: Sequence[str] = (),
                replay: Sequence[str] = (), rows: Sequence[tuple[str, str]] = (),
                open_only: bool = False) -> Iterator[Connection]:
        """A write transaction that commits a recorded refusal, then raises it.
        Given a stream, it holds that domain's lock from its first statement,
        so whatever the use case reads cannot change before it saves; `dedup`,
        `replay` and `rows` are read with the lock, and with `open_only` the rebuild
        mark (`DomainStream.locked`)."""
        refused: Refused | None = None
        with self.store.write() as session, (
                stream.locked(session, dedup=dedup, replay=replay, rows=rows, open_only=open_only)
                if stream is not None else nullcontext()):
            try:
                yield session
            except Refused as error:
                refused = error
        if refused is not None:
            raise refused.error

    def stream(self, domain: str, *, actor: str, action: Action, in_lock: bool = False) -> DomainStream:
        """The domain's stream; an unknown domain is refused and recorded, and a domain being
        rebuilt is refused (`rebuilding`). `in_lock`: the caller acts on nothing it reads before
        it takes the domain's lock with `writing(open_only=True)`; on PostgreSQL the mark of a stream
        this process has open is looked at there, in the lock's round trip, not in one of its own."""
        name = domain_name(domain)
        # first: its read models are partial meanwhile, and opening its stream would build
        # the indexes the rebuild dropped (`bulkload.restore`) under it (the registry first:
        # a store older than its settings table gets one)
        self.streams.ensure_registry()
        if not (in_lock and self.store.dialect == "postgresql" and self.streams.opened(name)):
            rebuilding.check(self.store, name)
        try:
            return self.streams.stream(name)
        except UnknownDomainError as error:
            self.refusals.record_system(actor, action, name, str(error))
            raise

    def authorize(
        self, session: Connection, stream: DomainStream, request: PolicyRequest
    ) -> Decision:
        self.require_adopted(session, stream, request)
        decision = self.decide(stream, request)
        if not decision.allowed:
            self.refuse(session, stream, request, denial(decision), rule=decision.rule_id)
        return decision

    def decide(self, stream: DomainStream, request: PolicyRequest) -> Decision:
        """The policy's answer; a backup system chair holding the chair by handover decides as chair."""
        acting = self.seal.acting_chair(self.gate, stream, request) if self.seal is not None else None
        return acting or self.gate.decide(request)

    def require_adopted(self, session: Connection, stream: DomainStream, request: PolicyRequest) -> None:
        """Fail closed: a write decided under a policy its owner has not adopted is refused
        (the seal refuses it again at save, whatever the use case)."""
        adopted = self.seal.differs(stream) if self.seal is not None else ""
        if adopted:
            self.refuse(session, stream, request, RefusedError(
                not_adopted_message(adopted), rule=POLICY_NOT_ADOPTED, domain=stream.name), rule=POLICY_NOT_ADOPTED)

    def unadopted_read(self, stream: DomainStream) -> bool:
        """Reads still work under a policy not adopted; they record nothing and say so."""
        adopted = self.seal.differs(stream) if self.seal is not None else ""
        if adopted:
            self.warn(f"warning: {not_adopted_message(adopted)} (this read is decided under the policy on "
                      "disk and records nothing)")
        return bool(adopted)

    def refuse(self, session: Connection, stream: DomainStream, request: PolicyRequest,
               error: MemhallError, *, rule: str) -> NoReturn:
        """Record a refusal (see `Refusals.refuse`), then abort the use case."""
        self.refusals.refuse(session, stream, request, error, rule=rule)

    def ask(self, actor: str, action: Action, domain: str, **facts: Any) -> tuple[DomainStream, Decision]:
        """For reads: check the domain and the policy; a denial is recorded."""
        actor = principal_name(actor)
        stream = self.stream(domain, actor=actor, action=action)
        request = PolicyRequest(
            principal=actor,
            action=action,
            domain=stream.name,
            resource_type=facts.pop("resource_type", ResourceType.DOMAIN),
            **facts,
        )
        unadopted = self.unadopted_read(stream)
        decision = self.decide(stream, request)
        if not decision.allowed:
            if unadopted:
                raise denial(decision)
            with self.writing(stream) as session:
                self.refuse(session, stream, request, denial(decision), rule=decision.rule_id)
        return stream, decision

    # -- domains -----------------------------------------------------------------

    def create_domain(self, actor: str, name: str) -> str:
        actor = principal_name(actor)
        name = domain_name(name)
        request = PolicyRequest(
            principal=actor, action=Action.DOMAIN_CREATE, domain=name,
            resource_type=ResourceType.DOMAIN, resource_id=name,
        )
        system = self.streams.system()
        adopted = self.seal.differs(system) if self.seal is not None else ""
        if adopted:
            message = not_adopted_message(adopted)
            self.refusals.record_system(actor, Action.DOMAIN_CREATE, name, message, rule=POLICY_NOT_ADOPTED)
            raise RefusedError(message, rule=POLICY_NOT_ADOPTED, domain=name)
        decision = self.gate.decide(request)
        if not decision.allowed:
            self.refusals.record_system(actor, Action.DOMAIN_CREATE, name, str(denial(decision)))
            raise denial(decision)
        if self.seal is not None and not self.seal.adopted(system):
            from memhall.governance.charters import first_adoption

            first_adoption(self, system, actor)
        if self.streams.exists(name):
            raise DomainExistsError(name)
        stream = self.streams.prepare(name)
        with self.writing(stream) as session:
            if self.streams.exists(name):
                raise DomainExistsError(name)
            opened = DomainOpened(name=name, actor=actor, rule=decision.rule_id)
            self.streams.register(session, name, actor, self.clock())
            stream.save(session, opened)
        return name

    def domain_names(self) -> list[str]:
        return self.streams.names()

    # -- writes ------------------------------------------------------------------

    def write(
        self,
        actor: str,
        domain: str,
        entry: EntryDraft,
        *,
        supersedes: UUID | None = None,
        claimed_principal: str = "",
        claimed_domain: str = "",
        claimed_layer: str = "",
        reason: str = "",
    ) -> WriteResult:
        """Write an L1 or L2 entry; the same memory written twice is stored once.
        Superseding is a second decision, on the target entry (`supersede`)."""
        actor = principal_name(actor)
        action = write_action(entry)
        stream = self.stream(domain, actor=actor, action=action, in_lock=True)
        # The encoding depends on the draft alone: made before the domain's lock, so
        # other writers of the domain do not wait on it (a duplicate throws it away).
        encoding = encoded(self.encoder, entry, actor, self.clock())
        # Read with the lock, in its round trip on PostgreSQL: the duplicate check, the
        # idempotency key's entry, and the row the entry's projection merges into (its thread).
        thread = thread_of({"tags": {"topics": entry.tags.topics}, "thread": entry.thread, "actor": actor})
        request = PolicyRequest(
            principal=actor, action=action, domain=stream.name, **draft_facts(entry, actor),
            claimed_principal=claimed_principal, claimed_domain=claimed_domain, claimed_layer=claimed_layer,
        )
        # A new entry is made before the lock where it can be (`prepared`), so the writers
        # of a domain overlap in all but taking their turn in its log.
        ready = (prepared.prepare(self, stream, request, entry, encoding)
                 if supersedes is None and self._own_session(stream, entry, actor) else None)
        if ready is not None:  # on PostgreSQL, in one round trip if nothing it assumed moved
            done = prepared.commit_at_once(self, stream, ready, entry.idempotency_key)
            if done is not None:
                return done
        keyed = [entry.idempotency_key] if entry.idempotency_key else []
        with self.writing(stream, dedup=[entry.dedup_key()], replay=keyed,
                          rows=[("threads", thread)], open_only=True) as session:
            if ready is not None and prepared.holds(self, session, stream, ready, entry.idempotency_key):
                return prepared.commit(self, session, stream, ready)
            decision = self.authorize(session, stream, request)
            check_draft(self.refusals, session, stream, request, entry, actor, self.implanted_confidence)
            target = (self.supersede_target(session, stream, actor, entry, supersedes)
                      if supersedes is not None else None)
            if target is not None and not (reason.strip() or entry.provenance.evidence_refs
                                           or entry.kind in HANDOFF_KINDS):
                # A thread's newer state, wrap-up or handoff is its own reason.
                self.refuse(session, stream, target[1], InvalidValueError(
                    "superseding needs a reason (--reason) or evidence (--evidence): "
                    "say why the old entry no longer holds [supersede-needs-a-reason]"),
                    rule="supersede-needs-a-reason")
            check_pending(self.refusals, session, stream, request, entry, self.clock())
            replayed = replayed_entry(session, stream, entry)
            if replayed is not None:
                return WriteResult(entry_id=replayed, domain=stream.name, layer=entry.layer.value,
                                   duplicate_of=replayed, replayed=True, rule=decision.rule_id)
            duplicate = active_duplicate(session, stream, entry)
            if duplicate is not None:
                from memhall.governance.evidence import corroboration

                corroborating = corroboration(self, session, stream, entry, duplicate,
                                              actor=actor, rule=decision.rule_id)
                stream.save(session, *corroborating)
                return WriteResult(entry_id=duplicate, domain=stream.name, layer=entry.layer.value,
                                   duplicate_of=duplicate, corroborated=bool(corroborating),
                                   rule=decision.rule_id)
            new = Entry.write(stream.name, entry, actor=actor, rule=decision.rule_id,
                              implanted=self.implanted_confidence, encoding=encoding)
            changed: list[Any] = [new]
            if target is not None:
                self.supersede_entry(session, stream, target, new, reason.strip() or None)
                changed.append(target[0])
            # Without a claim root nothing follows the entry (`evidence.on_write` has nothing
            # to weigh): on PostgreSQL its save commits in its own round trip.
            last = not entry.provenance.claim_root_id
            stream.save(session, *changed, last=last)
            if not last:
                from memhall.governance.evidence import on_write

                stream.save(session, *on_write(self, session, stream, entry, new, actor=actor,
                                               rule=decision.rule_id))
        return WriteResult(entry_id=str(new.id), domain=stream.name, layer=entry.layer.value,
                           rule=decision.rule_id)

    def _own_session(self, stream: DomainStream, entry: EntryDraft, actor: str) -> bool:
        """Whether the draft names no memhall session of another principal (else it is
        decided, and refused, under the lock)."""
        if not entry.session_id:
            return True
        with self.store.read() as conn:
            return session_owners(conn, stream, [entry.session_id]).get(entry.session_id, actor) == actor

    def supersede_target(self, session: Connection, stream: DomainStream, actor: str,
                          entry: EntryDraft, target_id: UUID) -> tuple[Entry, PolicyRequest, Decision]:
        """Superseding acts on the target: the policy decides with the target's
        layer, kind and author (from its events) and the layer of the new entry."""
        old: Entry = stream.get(target_id, kind=Entry)
        request = PolicyRequest(principal=actor, action=Action.SUPERSEDE, domain=stream.name,
                                **{**entry_facts(old), "target_layer": entry.layer.value})
        return old, request, self.authorize(session, stream, request)

    def supersede_entry(self, session: Connection, stream: DomainStream,
                   target: tuple[Entry, PolicyRequest, Decision], new: Entry,
                   reason: str | None = None) -> None:
        old, request, decision = target
        try:
            old.supersede(new.id, actor=request.principal, rule=decision.rule_id, reason=reason)
        except MemhallError as error:
            self.refuse(session, stream, request, error, rule=decision.rule_id)

    def write_many(self, actor: str, domain: str, entries: list[EntryDraft],
                   supersedes: Sequence[UUID | None] = ()) -> list[WriteResult]:
        """The batched import path: many entries, one transaction, each one
        authorized and deduplicated (against the active entries of the store and
        within the batch), with the outcome of writing them one by one in order.
        `supersedes[i]`, when given, is what entry i replaces. The policy is asked
        once for the whole batch, before the write lock is taken."""
        from memhall.governance.batch import write_batch
        from memhall.governance.memory_records import collector_paused

        with collector_paused():  # a batch makes thousands of acyclic objects: no cycles to look for
            return write_batch(self, actor, domain, entries, supersedes)

    def entry_action(
        self,
        actor: str,
        domain: str,
        entry_id: UUID,
        action: Action,
        act: Callable[[Entry, Decision], None],
        **facts: Any,
    ) -> Entry:
        """Load an entry, ask the policy with its stored facts, act, save."""
        actor = principal_name(actor)
        stream = self.stream(domain, actor=actor, action=action)
        with self.writing(stream) as session:
            entry: Entry = stream.get(entry_id, kind=Entry)
            request = PolicyRequest(principal=actor, action=action, domain=stream.name,
                                    **{**entry_facts(entry), **facts})
            decision = self.authorize(session, stream, request)
            try:
                act(entry, decision)
            except MemhallError as error:
                self.refuse(session, stream, request, error, rule=decision.rule_id)
            stream.save(session, entry)
        return entry

    def retire(self, actor: str, domain: str, entry_id: UUID, reason: str) -> Entry:
        return self.entry_action(
            actor, domain, entry_id, Action.RETIRE,
            lambda e, d: e.retire(reason, actor=d.request.principal, rule=d.rule_id),
        )

    def close_loop(self, actor: str, domain: str, loop_id: UUID, note: str = "",
                   by_entry: UUID | None = None) -> Entry:
        return self.entry_action(
            actor, domain, loop_id, Action.CLOSE_LOOP,
            lambda e, d: e.close_loop(by_entry, note, actor=d.request.principal, rule=d.rule_id),
        )

    # -- sessions ----------------------------------------------------------------

    def open_session(self, session: Connection, stream: DomainStream, actor: str, rule: str) -> WorkSession:
        work = WorkSession.open(stream.name, actor, actor=actor, rule=rule)
        stream.save(session, work)
        return work
