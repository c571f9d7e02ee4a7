"""The batched write (`Hall.write_many`, what an import writes through): many entries in
one transaction, each authorized and deduplicated, with the outcome of writing them one
by one in order (a Hypothesis test holds the two equal)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from uuid import UUID

from memhall.domains.dynamics.encoding import EncodingRecord
from memhall.domains.entry import Entry, EntryDraft
from memhall.domains.errors import InvalidValueError, MemhallError
from memhall.domains.values import principal_name
from memhall.governance.encodings import encoded
from memhall.governance.facts import draft_requests
from memhall.governance.gate import Refused, decide_all, denial
from memhall.governance.streams import DomainStream, planned
from memhall.governance.views import WriteResult
from memhall.governance.write_checks import (
    check_draft,
    check_pending,
    session_owners,
    replayed_in,
    same_active,
)
from memhall.policies.model import Action

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from memhall.governance.hall import Hall


@dataclass
class Pending:
    """Entries of planned batches not committed yet (`governance.piped`): those of the batches
    ahead of this one, which its reads do not find yet (by dedup key, and by idempotency key
    with their dedup key), and this batch's own, added as it plans them."""

    live_before: dict[str, str] = field(default_factory=dict)
    keyed_before: dict[str, tuple[str, str]] = field(default_factory=dict)
    live: dict[str, str] = field(default_factory=dict)
    keyed: dict[str, tuple[str, str]] = field(default_factory=dict)


def write_batch(hall: Hall, actor: str, domain: str, entries: list[EntryDraft],
                supersedes: Sequence[UUID | None], *, encodings: Sequence[EncodingRecord] = (),
                plan: Any = None, pending: Pending | None = None,
                replays: dict[str, tuple[str, str]] | None = None) -> list[WriteResult]:
    """`Hall.write_many`, with the cyclic collector already paused. `encodings`: each entry's,
    made already. `plan`: where the batch's events go, to be appended in a transaction
    elsewhere (`governance.piped`), after the batches in `pending`; the reads are this
    process's, with no lock held, and nothing is written here (a refusal too is only
    planned, and raised: `Refused`). `replays`: for a planned batch, the entries stored under
    its idempotency keys, read already by the caller (an import reads them to skip the lines
    imported before; the writer's unique index on the key catches one written since)."""
    actor = principal_name(actor)
    if supersedes and len(supersedes) != len(entries):
        raise InvalidValueError("write_many: give one supersedes value per entry (or none)")
    if plan is not None and any(target is not None for target in supersedes):
        raise ValueError("a planned batch supersedes nothing")
    stream = hall.stream(domain, actor=actor, action=Action.WRITE_L1)
    requests = draft_requests(actor, stream.name, entries)
    decisions = decide_all(hall.gate, requests)
    keys = [entry.dedup_key() for entry in entries]
    results: list[WriteResult] = []
    with hall.writing(stream) if plan is None else _planning(hall, stream, plan) as session:
        fresh: list[Entry] = []
        written: set[str] = set()
        replaced: dict[UUID, Entry] = {}
        seen = stream.live_entries(session, keys)
        owners = session_owners(session, stream, [e.session_id for e in entries if e.session_id])
        if replays is None or plan is None:
            replays = stream.replays(session, [e.idempotency_key for e in entries if e.idempotency_key])
        else:
            replays = {e.idempotency_key: replays[e.idempotency_key] for e in entries
                       if e.idempotency_key in replays}
        if pending is not None:  # what the batches ahead wrote, as if committed
            for key in keys:
                if key in pending.live_before:
                    written.add(ident := pending.live_before[key])
                    seen[key] = ident
            for entry in entries:
                if entry.idempotency_key in pending.keyed_before:
                    replays[entry.idempotency_key] = pending.keyed_before[entry.idempotency_key]
        index = -1
        try:
            for index, (entry, request, decision, key) in enumerate(zip(entries, requests, decisions, keys)):
                if not decision.allowed:
                    hall.refuse(session, stream, request, denial(decision), rule=decision.rule_id)
                check_draft(hall.refusals, session, stream, request, entry, actor, hall.implanted_confidence,
                            owners)
                target_id = supersedes[index] if supersedes else None
                target = (hall.supersede_target(session, stream, actor, entry, target_id)
                          if target_id is not None and target_id not in replaced else None)
                check_pending(hall.refusals, session, stream, request, entry, hall.clock())
                replayed = replayed_in(replays, entry, key)
                duplicate = replayed or seen.get(key)
                if (replayed is None and duplicate is not None and duplicate not in written
                        and not same_active(stream, duplicate, key)):
                    del seen[key]  # the entries row says so, the entry's events do not
                    duplicate = None
                if duplicate is None:
                    new = Entry.write(stream.name, entry, actor=actor, rule=decision.rule_id,
                                      implanted=hall.implanted_confidence,
                                      encoding=encodings[index] if encodings else
                                      encoded(hall.encoder, entry, actor, hall.clock()),
                                      dedup_key=key)
                    fresh.append(new)
                    written.add(ident := str(new.id))
                    seen[key] = ident
                    if entry.idempotency_key:
                        replays[entry.idempotency_key] = (ident, key)
                    if pending is not None:
                        pending.live.setdefault(key, ident)
                        if entry.idempotency_key:
                            pending.keyed[entry.idempotency_key] = (ident, key)
                    if target is not None:
                        old = target[0]
                        hall.supersede_entry(session, stream, target, new)
                        replaced[old.id] = old
                        if seen.get(old.dedup_key) == str(old.id):
                            del seen[old.dedup_key]  # no longer active: the same text again is a new write
                results.append(WriteResult(entry_id=duplicate or seen[key], domain=stream.name,
                                           layer=entry.layer.value, duplicate_of=duplicate,
                                           replayed=replayed is not None, rule=decision.rule_id))
        except Refused as refused:  # which entry: an import names its line
            if isinstance(refused.error, MemhallError):
                refused.error.item = index
            raise
        stream.save(session, *fresh, *replaced.values())
    return results


@contextmanager
def _planning(hall: Hall, stream: DomainStream, plan: Any) -> Iterator[Connection]:
    """A read connection whose saves go to `plan` (`streams.planned`)."""
    with hall.store.read() as session, planned(session, plan):
        yield session
