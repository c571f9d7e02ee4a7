"""MEMORY REQUESTs and materialization records in the read models."""

from __future__ import annotations

from collections.abc import Iterable

from memhall.governance.projection.ops import Insert, Op, State, Update, fixed, projects
from memhall.governance.projection.schema import iso


@projects("memhall.MemoryRequest.Requested")
def _requested(e: State, position: int) -> Iterable[Op]:
    yield Insert("requests", {
        "id": e["originator_id"], "seat": e["seat"], "need": e["need"], "requested_by": e["actor"],
        "status": "open", "answer_entry": None, "answered_by": None,
        "created_at": iso(e["requested_at"]), "expires_at": iso(e["expires_at"]), "position": position,
    })


@projects("memhall.MemoryRequest.Answered")
def _answered(e: State, position: int) -> Iterable[Op]:
    yield Update("requests", e["originator_id"], {
        "status": "answered", "answer_entry": e["entry_id"], "answered_by": e["actor"],
        "position": position})


@projects("memhall.MemoryRequest.Expired")
def _expired(e: State, position: int) -> Iterable[Op]:
    yield Update("requests", e["originator_id"], {"status": "expired", "position": position})


@projects("memhall.Materialization.Recorded")
def _materialized(e: State, position: int) -> Iterable[Op]:
    yield Insert("materializations", {
        "id": e["originator_id"], "seat": e["seat"], "task": e["task"], "by": e["actor"],
        "log_position": e["log_position"], "ledger_a": list(e["ledger_a"]),
        "ledger_b": list(e["ledger_b"]), "ledger_c": list(e["ledger_c"]), "digest": e["digest"],
        "created_at": iso(e["materialized_at"]), "position": position,
    })


fixed("request", "memhall.MemoryRequest.Requested")
fixed("answer", "memhall.MemoryRequest.Answered")
fixed("request_expired", "memhall.MemoryRequest.Expired")
fixed("materialize", "memhall.Materialization.Recorded")
fixed("recall", "memhall.Recall.Recorded")
