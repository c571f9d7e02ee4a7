"""An event's row operations in two parts: those of the append-only read models, which
`audit verify` checks as the chain walk reads the log, and the rest, replayed beside it.
Together they are exactly what a write applies."""

from __future__ import annotations

from typing import Any
from uuid import UUID

import orjson

from memhall.domains.belief import EvidenceKind
from memhall.domains.entry import draft
from memhall.domains.values import Layer
from memhall.governance import evidence, promotions, requests, sessions
from memhall.governance.hall import Hall
from memhall.governance.projection import ops_for
from memhall.governance.projection.ops import LOGGED, Insert, Merge, Op, logged_ops, replayed_ops
from memhall.governance.replay import events_of
from memhall.governance.store import raw
from memhall.governance.tables import tables_for
from memhall.ledgers.materialize import materialize


def varied_history(hall: Hall) -> None:
    """Writes told and witnessed (the author among those told), evidence, a nomination, a
    materialization, a request answered, a handoff, a supersede and a retirement."""
    claim = UUID(hall.write("codex", "company", draft(
        layer="L2", kind="claim", text="the NAS is backed up nightly", addressees=("codex", "gemini"),
        participants=("maki", "gemini"), provenance={"source_kind": "hearsay", "source_agent_id": "claude"},
        tags={"topics": ("nas",)})).entry_id)
    evidence.record(hall, "maki", "company", claim, EvidenceKind.CONTRADICTS, text="no backup job")
    promotions.nominate(hall, "claude", "company", claim, Layer.L3, "unchanged for months")
    materialize(hall, "claude", "company", seat="gemini", task="where are the backups")
    asked = requests.request_memory(hall, "gemini", "company", "gemini", "who approves billing?")
    fact = UUID(hall.write("codex", "company", draft(layer="L2", kind="claim", text="maki approves billing")).entry_id)
    requests.answer(hall, "claude", "company", UUID(asked.id), fact)
    sessions.handoff(hall, "codex", "company")
    hall.write("codex", "company", draft(text="maki and kim approve billing", layer="L2"), supersedes=fact,
               reason="kim joined")
    hall.retire("maki", "company", claim, "the NAS moved")


def shape(op: Op) -> tuple[Any, ...]:
    """An operation as comparable data (a merge's change is a function: its table and key)."""
    if isinstance(op, Merge):
        return ("merge", op.table, op.key, repr(op.default))
    return (type(op).__name__, op.table, repr(op[1:]))


def test_the_two_parts_of_each_event_are_its_operations_split_by_table(hall: Hall) -> None:
    varied_history(hall)
    with hall.store.read() as conn:
        events = [row for rows in events_of(raw(conn), tables_for("company").events_name, hall.store.dialect)
                  for row in rows]

    logged_tables: set[str] = set()
    for position, topic, data in events:
        state = orjson.loads(data)
        logged, rest, whole = (part(topic, state, position) for part in (logged_ops, replayed_ops, ops_for))

        assert all(isinstance(op, Insert) and op.table in LOGGED for op in logged), (topic, logged)
        assert not any(op.table in LOGGED for op in rest), (topic, rest)
        assert sorted(map(shape, logged + rest)) == sorted(map(shape, whole)), topic
        logged_tables.update(op.table for op in logged)

    assert logged_tables == LOGGED
