"""The batched write (`Hall.write_many`, what an import writes through): many entries in
one transaction, each authorized and deduplicated, with the outcome of writing them one
by one in order (a Hypothesis test holds the two equal)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING
from uuid import UUID

from memhall.domains.entry import Entry, EntryDraft
from memhall.domains.errors import InvalidValueError
from memhall.domains.values import Layer, principal_name
from memhall.governance.encodings import encoded
from memhall.governance.facts import draft_requests
from memhall.governance.gate import decide_all, denial
from memhall.governance.views import WriteResult
from memhall.governance.write_checks import check_pending, check_provenance, replayed_in, same_active
from memhall.policies.model import Action

if TYPE_CHECKING:
    from memhall.governance.hall import Hall


def write_batch(hall: Hall, actor: str, domain: str, entries: list[EntryDraft],
                supersedes: Sequence[UUID | None]) -> list[WriteResult]:
    """`Hall.write_many`, with the cyclic collector already paused."""
    actor = principal_name(actor)
    if supersedes and len(supersedes) != len(entries):
        raise InvalidValueError("write_many: give one supersedes value per entry (or none)")
    stream = hall.stream(domain, actor=actor, action=Action.WRITE_L1)
    requests = draft_requests(actor, stream.name, entries)
    decisions = decide_all(hall.gate, requests)
    keys = [entry.dedup_key() for entry in entries]
    results: list[WriteResult] = []
    with hall.writing(stream) as session:
        fresh: list[Entry] = []
        written: set[str] = set()
        replaced: dict[UUID, Entry] = {}
        seen = stream.live_entries(session, keys)
        replays = stream.replays(session, [e.idempotency_key for e in entries if e.idempotency_key])
        for index, (entry, request, decision, key) in enumerate(zip(entries, requests, decisions, keys)):
            if not decision.allowed:
                hall.refuse(session, stream, request, denial(decision), rule=decision.rule_id)
            if entry.layer not in (Layer.L1, Layer.L2):
                hall.refuse(session, stream, request, InvalidValueError(
                    f"cannot write at {entry.layer.value}: L3 and L4 are reached only by promotion"
                ), rule="layers-by-promotion-only")
            check_provenance(hall.refusals, session, stream, request, entry, hall.implanted_confidence)
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
                                  encoding=encoded(hall.encoder, entry, actor, hall.clock()),
                                  dedup_key=key)
                fresh.append(new)
                written.add(ident := str(new.id))
                seen[key] = ident
                if entry.idempotency_key:
                    replays[entry.idempotency_key] = (ident, key)
                if target is not None:
                    old = target[0]
                    hall.supersede_entry(session, stream, target, new)
                    replaced[old.id] = old
                    if seen.get(old.dedup_key) == str(old.id):
                        del seen[old.dedup_key]  # no longer active: the same text again is a new write
            results.append(WriteResult(entry_id=duplicate or seen[key], domain=stream.name,
                                       layer=entry.layer.value, duplicate_of=duplicate,
                                       replayed=replayed is not None, rule=decision.rule_id))
        stream.save(session, *fresh, *replaced.values())
    return results
