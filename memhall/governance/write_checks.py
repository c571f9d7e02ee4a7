"""The checks a draft passes on the write path before it becomes an entry:
provenance ceiling, open pending requests, idempotent replay, and dedup
against the active entries of its domain."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from uuid import UUID
from weakref import WeakKeyDictionary

from sqlalchemy import Connection, select

from memhall.domains.entry import Entry, EntryDraft, foreign_owner
from memhall.domains.errors import GuardrailError, InvalidValueError, NotFoundError
from memhall.domains.values import Layer
from memhall.governance.refusals import Refusals
from memhall.governance.requests import unresolved_pending
from memhall.governance.streams import DomainStream
from memhall.policies.model import PolicyRequest


def replayed_in(replays: dict[str, tuple[str, str]], entry: EntryDraft, key: str) -> str | None:
    """The entry stored under the draft's idempotency key; the key reused for other content is refused."""
    if entry.idempotency_key is None or entry.idempotency_key not in replays:
        return None
    ident, dedup = replays[entry.idempotency_key]
    if dedup != key:
        raise InvalidValueError(
            f"idempotency key {entry.idempotency_key!r} was already used for entry {ident} "
            "with different content")
    return ident


def replayed_entry(session: Connection, stream: DomainStream, entry: EntryDraft) -> str | None:
    """The entry an earlier write with the same idempotency key stored, if any.
    A key reused for different content is refused: it would hide a write."""
    if entry.idempotency_key is None:
        return None
    return replayed_in(stream.replays(session, [entry.idempotency_key]), entry, entry.dedup_key())


def same_active(stream: DomainStream, ident: str, key: str) -> bool:
    """Whether the entry is, by its events, active with this dedup key: a duplicate
    the entries table names is checked before a write is dropped for it (an
    edited row must not swallow a write)."""
    try:
        entry: Entry = stream.get(UUID(ident), kind=Entry)
    except (NotFoundError, ValueError):
        return False
    return entry.is_active and entry.dedup_key == key


def active_duplicate(session: Connection, stream: DomainStream, entry: EntryDraft) -> str | None:
    """The active entry of the domain the draft repeats, if any."""
    key = entry.dedup_key()
    found = stream.live_entries(session, [key]).get(key)
    return found if found is not None and same_active(stream, found, key) else None


def check_draft(refusals: Refusals, session: Connection, stream: DomainStream, request: PolicyRequest,
                entry: EntryDraft, actor: str, implanted: int, owners: dict[str, str] | None = None) -> None:
    """What a write of `entry` must hold beside the policy's answer, in the order a single
    write and a batch check it: a layer one may write at, its provenance, its thread, its
    session (`owners`: looked up already, for a batch)."""
    if entry.layer not in (Layer.L1, Layer.L2):
        refusals.refuse(session, stream, request, InvalidValueError(
            f"cannot write at {entry.layer.value}: L3 and L4 are reached only by promotion"
        ), rule="layers-by-promotion-only")
    check_provenance(refusals, session, stream, request, entry, implanted)
    check_thread(refusals, session, stream, request, entry.thread, actor, entry.provenance.source_agent_id)
    check_session(refusals, session, stream, request, entry.session_id, actor, owners)


def check_provenance(refusals: Refusals, session: Connection, stream: DomainStream,
                     request: PolicyRequest, entry: EntryDraft, implanted: int) -> None:
    """An explicit confidence may not lift a claim above what its provenance allows
    (hearsay: what the hall's trust in its teller gives); below it is the writer's call."""
    from memhall.governance.trust import ceiling_problem

    problem = ceiling_problem(session, stream, entry, implanted)
    if problem is not None:
        refusals.refuse(session, stream, request, GuardrailError(f"{problem} [confidence-by-provenance]"),
                        rule="confidence-by-provenance")


def check_thread(refusals: Refusals, session: Connection, stream: DomainStream, request: PolicyRequest,
                 thread: str | None, actor: str, hearsay_from: str | None = None) -> None:
    """A principal's own thread (`@NAME`) takes only what NAME writes, or what is hearsay
    from NAME: nobody else's entry may stand as NAME's latest state at handoff."""
    owner = foreign_owner(thread, actor, hearsay_from)
    if owner is not None:
        refusals.refuse(session, stream, request, GuardrailError(
            f"thread {thread!r} is {owner}'s own: write to yours (@{actor}) or to a shared "
            "thread (a topic name) [own-thread-only]"), rule="own-thread-only")


#: per stream, the principal of each memhall session looked up (a session's owner never changes)
_OWNERS: WeakKeyDictionary[DomainStream, dict[str, str]] = WeakKeyDictionary()


def session_owners(conn: Connection, stream: DomainStream, session_ids: Iterable[str]) -> dict[str, str]:
    """Who opened each of these memhall sessions (ids naming none are left out: an entry's
    session may also be a label of its own, as a conversation's in an import)."""
    known = _OWNERS.setdefault(stream, {})
    wanted = sorted({s for s in session_ids if s and s not in known})
    if wanted:
        t = stream.tables.sessions
        for ident, principal in conn.execute(select(t.c.id, t.c.principal).where(t.c.id.in_(wanted))):
            known[str(ident)] = str(principal)
    return {s: known[s] for s in session_ids if s in known}


def check_session(refusals: Refusals, session: Connection, stream: DomainStream, request: PolicyRequest,
                  session_id: str | None, actor: str, owners: dict[str, str] | None = None) -> None:
    """An entry joins only a memhall session of its writer's own: another's would put it in
    their session's working memory (and its wrap-up draft). `owners`: looked up already."""
    if not session_id:
        return
    owner = (owners if owners is not None else session_owners(session, stream, [session_id])).get(session_id)
    if owner is not None and owner != actor:
        refusals.refuse(session, stream, request, GuardrailError(
            f"session {session_id} belongs to {owner}, not {actor}: write in a session of your own "
            "[own-session-only]"), rule="own-session-only")


def check_pending(refusals: Refusals, session: Connection, stream: DomainStream,
                  request: PolicyRequest, entry: EntryDraft, now: datetime) -> None:
    """MEMORY PENDING must name a request that is open now: a dangling mark
    would read as "asked" when nobody was asked."""
    if entry.pending_requests:
        problem = unresolved_pending(stream, entry.pending_requests, now)
        if problem is not None:
            refusals.refuse(session, stream, request, InvalidValueError(problem),
                            rule="pending-names-an-open-request")
