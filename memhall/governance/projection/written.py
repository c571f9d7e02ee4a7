"""Entry.Written in every read model it touches, as two functions: the rows that are
only ever inserted (`ops.LOGGED`: which `audit verify` checks in the process that walks
the chains) and the others (which it replays beside it).

Nearly every event of a log is an entry written, so a rebuild, an import and
`audit verify` each run these once per event: their rows are built in one pass each,
with the entry's time, thread and id worked out once, and returned as a list
(no generator per read model). The rules themselves stay with their read
models: `entries` (what a row and its full-text body hold), `exposure` (who
holds it), `threads`, and `dynamics` (its encoding).
"""

from __future__ import annotations

from typing import Any

from memhall.governance.projection.entries import WRITTEN, search_body, thread_of
from memhall.governance.projection.exposure import held
from memhall.governance.projection.ops import Op, State, insert, merge, projects
from memhall.governance.projection.schema import iso


@projects(WRITTEN)
def _written(e: State, position: int) -> list[Op]:
    entry, actor = e["originator_id"], e["actor"]
    at = iso(e["timestamp"])
    occurred = iso(e.get("occurred_at") or e["timestamp"])
    thread = thread_of(e)
    provenance, tags, encoding = e["provenance"], e["tags"], e.get("encoding")
    ops: list[Op] = []
    # the lists are the event's own, not copies: a row's values are replaced, never changed in place
    ops.append(insert("entries", {
        "id": entry, "layer": e["layer"], "kind": e["kind"], "text": e["text"],
        "interpretation": e["interpretation"], "author": actor, "session_id": e["session_id"],
        "status": "active", "state": "influencing", "confidence": e["confidence"],
        "source_kind": provenance["source_kind"], "source_agent_id": provenance["source_agent_id"],
        "claim_root_id": provenance["claim_root_id"],
        "evidence_refs": provenance["evidence_refs"], "people": tags["people"],
        "places": tags["places"], "topics": tags["topics"],
        "pending_requests": e["pending_requests"], "pointers": e["pointers"],
        "dedup_key": e["dedup_key"], "idempotency_key": e.get("idempotency_key"),
        "superseded_by": None, "thread": thread, "occurred_at": occurred,
        "created_at": at, "updated_at": at, "created_position": position, "position": position,
    }))
    ops.append(insert("search", {"entry_id": entry, "body": search_body(e)}))

    def moved(row: dict[str, Any]) -> dict[str, Any]:
        return {"entries": row["entries"] + 1, "last_entry": entry, "last_at": at, "position": position}

    ops.append(merge("threads", thread, moved, default={
        "thread": thread, "entries": 1, "last_entry": entry, "last_at": at, "position": position}))
    return ops


@projects(WRITTEN, logged=True)
def _recorded(e: State, position: int) -> list[Op]:
    """The append-only rows of an entry written: its encoding, and who holds it (the author
    holds what it wrote; those told and present hold it too)."""
    entry, actor, encoding = e["originator_id"], e["actor"], e.get("encoding")
    ops: list[Op] = []
    if encoding:
        ops.append(insert("encodings", {
            "entry_id": entry, "encoder": encoding["encoder"],
            "encoder_version": encoding["encoder_version"], "emotion": encoding["emotion"],
            "entities": encoding["entities"],
        }))
    if actor and entry:
        ops.append(insert("exposure", {"id": f"{position}:{actor}:{entry}", "holder": actor, "entry_id": entry,
                                       "via": "wrote", "position": position, "at": iso(e["timestamp"])}))
    told, present = e.get("addressees"), e.get("participants")
    if told:
        ops.extend(held(e, position, "told", [(p, entry) for p in told]))
    if present:
        ops.extend(held(e, position, "present", [(p, entry) for p in present]))
    return ops
