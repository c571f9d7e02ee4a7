"""What every saved event carries: the adopted policy's digest, and a human's signature.

The seal sits on the one save path (`DomainStream.save`). Before a domain's
events are appended it reads the domain's charter from the log, in the same
write transaction: the policy in force (on disk) must be the adopted one, or
nothing but the refusal is written. A domain with no adoption yet adopts the
policy in force there and then (trust on first use). Each event is stamped
with the adopted digest; a human act of a principal who has a key in the
adopted allowed_signers is signed, or refused.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cached_property
from typing import TYPE_CHECKING
from uuid import UUID

from sqlalchemy import Connection

from memhall.domains.charter import TRUST_ON_FIRST_USE, Charter, charter_id
from memhall.domains.errors import NotFoundError, RefusedError, SignatureError, SigningKeyError
from memhall.domains.moments import from_iso
from memhall.domains.records import Refusal
from memhall.governance.gate import Refused
from memhall.governance.journal import NewEvent
from memhall.governance.store import raw
from memhall.policies.acts import event_act
from memhall.policies.digest import digest_summary, policy_digest
from memhall.policies.engine import PolicySet
from memhall.policies.files import PolicySource
from memhall.policies.model import Decision, PolicyRequest
from memhall.policies.roles import Role
from memhall.policies.signers import AllowedSigners
from memhall.policies.signing import verify

if TYPE_CHECKING:
    from memhall.governance.streams import DomainStream

#: a human's binding acts: once the human has a key, each carries a signature
SIGNED_TOPICS = frozenset({
    "memhall.Promotion.Ratified", "memhall.Promotion.Rejected", "memhall.Entry.Demoted",
    "memhall.Policy.Adopted", "memhall.Chair.HandedOver", "memhall.Chair.HandedBack",
})
ADOPTED = "memhall.Policy.Adopted"
#: a domain's first adoption (trust on first use) opens its charter
OPENED = "memhall.Charter.Opened"
REFUSAL = "memhall.Refusal.Recorded"
#: the rules refusals by the seal are recorded under
POLICY_NOT_ADOPTED = "policy-not-adopted"
ACTS_ARE_SIGNED = "human-acts-are-signed"
#: the action of an adoption in refusals and the audit log
ADOPT_ACTION = "policy_adopt"

#: `Seal.assumed`: the domain was not pinned before
_NOT_HELD = object()

#: signs the canonical bytes of an act; returns an armored sshsig signature
Signer = Callable[[bytes], str]


def not_adopted_message(adopted: str) -> str:
    return (f"the policy on disk differs from the adopted policy {digest_summary(adopted)}: review with "
            "`memhall policy diff --adopted`, then `memhall policy adopt`")


def encoded_files(source: PolicySource) -> dict[str, str]:
    return {file.path: base64.b64encode(file.data).decode("ascii") for file in source.files}


class Seal:
    """The policy in force (read from disk), and how this process signs."""

    def __init__(self, source: PolicySource) -> None:
        self.source = source
        self.digest = policy_digest(source)
        #: set by the CLI for the acts of a human who signs (`--key`, ssh-keygen)
        self.signer: Signer | None = None
        #: each domain's charter as last read, with its version: every write asks for it
        #: (the adopted digest, the chair), and decoding its events is most of a write's CPU
        self._read: dict[str, tuple[tuple[int, bytes], Charter | None]] = {}
        self._ids: dict[str, UUID] = {}
        #: per thread, the domains whose lock it holds, and those of them whose charter it has
        #: read under that lock (nobody else can append to the domain until it commits)
        self._locked = threading.local()

    @cached_property
    def signers(self) -> AllowedSigners:
        return AllowedSigners.of(self.source)

    # -- reading the charter ---------------------------------------------------

    def charter(self, stream: DomainStream) -> Charter | None:
        """The domain's charter, rebuilt from the log: the caller's own copy to act on."""
        try:
            found: Charter = stream.get(self.charter_ident(stream.name), "charter", kind=Charter)
        except NotFoundError:
            return None
        return found

    @contextmanager
    def locked(self, domain: str, last: tuple[int, bytes] | None = None) -> Iterator[None]:
        """While this thread holds `domain`'s write lock: its charter, once read under the
        lock, is not read again (a write asks for it several times) until this thread
        appends to it or lets the lock go. `last`: the charter's last event, if the lock
        was taken with it (one round trip on PostgreSQL)."""
        held: dict[str, tuple[Charter | None] | None] = self._locked.__dict__.setdefault("held", {})
        ahead: dict[str, tuple[int, bytes]] = self._locked.__dict__.setdefault("ahead", {})
        held[domain] = None
        if last is not None:
            ahead[domain] = last
        try:
            yield
        finally:
            held.pop(domain, None)
            ahead.pop(domain, None)

    def current(self, stream: DomainStream) -> Charter | None:
        """The domain's charter as the log has it now (in this transaction, if any), to
        read and never to act on: rebuilt only when its last stored event is another one
        (compared by version and bytes, on PostgreSQL by version and row version, `Journal.last`:
        so neither a rolled-back adoption nor an edited event is taken for the stored one)."""
        held: dict[str, tuple[Charter | None] | None] = self._locked.__dict__.get("held", {})
        pinned = held.get(stream.name)
        if pinned is not None:
            return pinned[0]
        ident = self.charter_ident(stream.name)
        ahead: dict[str, tuple[int, bytes]] = self._locked.__dict__.get("ahead", {})
        with stream.store.read() as conn:
            # the last event first: a charter adopted between the two reads is read again next time
            last = ahead.pop(stream.name, None) or stream.journal.last(raw(conn), ident)
        known = self._read.get(stream.name)
        if known is not None and known[0] == last:
            charter = known[1]
        else:  # (after that read's connection is back: outside a transaction, one connection at a time)
            charter = self.charter(stream) if last[0] else None
            self._read[stream.name] = (last, charter)
        if stream.name in held:
            held[stream.name] = (charter,)  # read under the lock: good until this thread appends to it
        return charter

    def known(self, domain: str) -> Charter | None:
        """The domain's charter as this process last read it from the log, without reading
        it again (None if never read or none adopted): what a write prepares under before it
        takes the domain's lock, where `current` tells whether it is still the one."""
        known = self._read.get(domain)
        return known[1] if known is not None else None

    def known_last(self, domain: str, charter: Charter) -> tuple[int, bytes] | None:
        """The last event of `domain`'s charter when this process read `charter` (`known`),
        if that is still the charter it knows: what a write prepared under it checks the log
        against under the lock (`at_once`)."""
        known = self._read.get(domain)
        return known[0] if known is not None and known[1] is charter else None

    @contextmanager
    def assumed(self, domain: str, charter: Charter) -> Iterator[None]:
        """While this thread prepares a write without the domain's lock: `current` answers
        `charter` (`known`) without reading the log; the write checks it under the lock."""
        held: dict[str, tuple[Charter | None] | None] = self._locked.__dict__.setdefault("held", {})
        before = held.get(domain, _NOT_HELD)
        held[domain] = (charter,)
        try:
            yield
        finally:
            if before is _NOT_HELD:
                held.pop(domain, None)
            else:
                held[domain] = before  # type: ignore[assignment]

    def stamped(self, stream: DomainStream, events: Sequence[NewEvent], charter: Charter) -> list[NewEvent] | None:
        """`events` sealed as `seal` seals them under `charter`, when that needs no transaction:
        the charter adopts the policy in force and no event is an act to sign or an adoption.
        Else None (the write seals under the lock)."""
        if charter.digest != self.digest or any(e.topic in SIGNED_TOPICS or e.topic in (ADOPTED, OPENED)
                                                for e in events):
            return None
        sealed = []
        for event in events:
            state = {**event.state, "policy": self.digest}
            sealed.append(NewEvent(event.originator_id, event.version, event.topic, state,
                                   stream.mapper.transcoder.encode(state)))
        return sealed

    def charter_ident(self, domain: str) -> UUID:
        """The id of `domain`'s charter aggregate (worked out once per domain)."""
        ident = self._ids.get(domain)
        if ident is None:
            ident = self._ids[domain] = charter_id(domain)
        return ident

    def adopted(self, stream: DomainStream) -> str:
        """The domain's adopted digest ("" when nothing is adopted yet)."""
        charter = self.current(stream)
        return charter.digest if charter is not None else ""

    def differs(self, stream: DomainStream) -> str:
        """The adopted digest when the policy in force is another one, else ""."""
        adopted = self.adopted(stream)
        return adopted if adopted and adopted != self.digest else ""

    def acting_chair(self, gate: object, stream: DomainStream, request: PolicyRequest) -> Decision | None:
        """A backup system chair decides as system chair while the owner has handed it the chair."""
        if not isinstance(gate, PolicySet) or request.principal not in gate.roles.backups.get(stream.name, ()):
            return None
        charter = self.current(stream)
        if charter is None or charter.chair_to != request.principal:
            return None
        held = {Role(r) for r in gate.roles_of(request.principal, stream.name)} | {Role.SYSTEM_CHAIR}
        return gate.decide_as(request, gate.principal_type(request.principal), held)

    # -- sealing a save ----------------------------------------------------------

    def seal(self, conn: Connection, stream: DomainStream, events: Sequence[NewEvent]) -> list[NewEvent]:
        """The events to append: stamped, signed, and after a first adoption if there was none."""
        if not events:
            return []
        charter = self.current(stream)
        adopted = charter.digest if charter is not None else ""
        tail: list[NewEvent] = []
        opened = [e for e in events if e.topic == OPENED]
        if not adopted and opened:
            adopted = str(opened[0].state["digest"])  # an explicit first adoption
        if not adopted:
            tail = encode(stream, first_charter(self, stream.name, str(events[0].state["actor"])))
            adopted = self.digest
        elif adopted != self.digest and not all(self._allowed_unadopted(e) for e in events):
            self._refuse_unadopted(conn, stream, events[0], adopted)
        signers = self.signers if adopted == self.digest else None
        sealed: list[NewEvent] = []
        for event in [*events, *tail]:
            state = {**event.state, "policy": adopted}
            if event.topic in SIGNED_TOPICS:
                state = self._signed(conn, stream, event.topic, state, signers or self._adopted_signers(charter))
            if event.topic in (ADOPTED, OPENED):
                adopted = str(state["digest"])
            sealed.append(NewEvent(event.originator_id, event.version, event.topic, state,
                                   stream.mapper.transcoder.encode(state)))
        held: dict[str, tuple[Charter | None] | None] = self._locked.__dict__.get("held", {})
        if held.get(stream.name) and any(e.originator_id == self.charter_ident(stream.name) for e in sealed):
            held[stream.name] = None  # the charter moves in this transaction: read it again
        return sealed

    def _allowed_unadopted(self, event: NewEvent) -> bool:
        """Under a policy not adopted, only its adoption and the refusals it meets are written."""
        if event.topic == ADOPTED:
            return bool(event.state["digest"] == self.digest)
        if event.topic == REFUSAL:
            return bool(event.state["rule"] in (POLICY_NOT_ADOPTED, ACTS_ARE_SIGNED)
                        or event.state["action"] == ADOPT_ACTION)
        return event.topic == OPENED and bool(event.state["digest"] == self.digest)

    def _adopted_signers(self, charter: Charter | None) -> AllowedSigners:
        from memhall.governance.charters import adopted_source

        if charter is None:
            return self.signers
        return AllowedSigners.of(adopted_source(charter))

    def _signed(self, conn: Connection, stream: DomainStream, topic: str, state: dict[str, object],
                signers: AllowedSigners) -> dict[str, object]:
        actor = str(state["actor"])
        if not signers.has_key(actor):
            return state
        message = event_act(stream.name, topic, state)
        try:
            if self.signer is None:
                raise SigningKeyError(
                    f"{actor} has a key in allowed_signers, so this act must be signed: pass --key PATH "
                    "(default ~/.ssh/id_ed25519) or --ssh-keygen")
            signature = self.signer(message)
            verify(message, signature, signers, actor, at=from_iso(str(state["timestamp"])))
        except (SigningKeyError, SignatureError) as error:
            self._record(conn, stream, Refusal(
                action=_action(topic), resource_type="", resource_id=str(state["originator_id"]),
                layer="", reason=str(error), actor=actor, rule=ACTS_ARE_SIGNED))
            raise Refused(RefusedError(f"refused: {error}", rule=ACTS_ARE_SIGNED, domain=stream.name)) from None
        return {**state, "signature": signature}

    def _refuse_unadopted(self, conn: Connection, stream: DomainStream, event: NewEvent, adopted: str) -> None:
        message = not_adopted_message(adopted)
        self._record(conn, stream, Refusal(
            action=_action(event.topic), resource_type="", resource_id=str(event.state["originator_id"]),
            layer="", reason=message, actor=str(event.state["actor"]), rule=POLICY_NOT_ADOPTED))
        raise Refused(RefusedError(f"refused: {message}", rule=POLICY_NOT_ADOPTED, domain=stream.name))

    @staticmethod
    def _record(conn: Connection, stream: DomainStream, refusal: Refusal) -> None:
        stream.save(conn, refusal)


def first_charter(seal: Seal, domain: str, actor: str) -> Charter:
    """Trust on first use: the charter binding `domain` to the policy in force."""
    return Charter(domain=domain, digest=seal.digest, source=seal.source.root,
                   summary="first adoption: trust on first use", files=encoded_files(seal.source),
                   actor=actor, rule=TRUST_ON_FIRST_USE)


def encode(stream: DomainStream, *aggregates: Charter) -> list[NewEvent]:
    new: list[NewEvent] = []
    for aggregate in aggregates:
        for event in aggregate.collect_events():
            topic, state, data = stream.mapper.encode(event)
            new.append(NewEvent(event.originator_id, event.originator_version, topic, state, data))
    return new


def _action(topic: str) -> str:
    """What a refused event was doing, as the audit log names actions."""
    return {
        ADOPTED: ADOPT_ACTION, "memhall.Promotion.Ratified": "ratify", "memhall.Promotion.Rejected": "reject",
        "memhall.Entry.Demoted": "demote", "memhall.Chair.HandedOver": "chair_handover",
        "memhall.Chair.HandedBack": "chair_handover",
    }.get(topic, topic.rsplit(".", 1)[-1].lower())

