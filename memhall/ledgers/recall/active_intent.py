"""The active_intent channel: memories tied to the observer's open loops, memory requests
and current task.

An open loop the observer holds, a MEMORY REQUEST for it, and the task of its
current session are intents; the ones whose words meet the query's are in
play, ordered by that match and then by their deadline (a request's expiry;
a loop or a task has none, so it follows). The channel yields the loop itself
and the entries it points to, the entry that answered the request, and what
was handed to the observer for the task.

A session's task is what the system chair materialized for the seat: the
materializations made for it since its last session closed (before its
current session opened, or during it). A task from a session that has ended
is no longer an intent.
"""

from __future__ import annotations

import orjson

from memhall.governance import fulltext
from memhall.ledgers.recall.pool import Candidate, Reader
from memhall.ledgers.recall.query import Query

NAME = "active_intent"
K = 20
#: open loops and requests read per recall
INTENTS = 100


def find(reader: Reader, query: Query, k: int = K) -> list[tuple[Candidate, float]]:
    wanted = query.stems
    if not wanted:
        return []
    loops = reader.select("e.kind = 'open-loop' AND e.status = 'active'", order="e.created_position DESC",
                          limit=INTENTS)
    scored: dict[str, float] = {}
    deadline: dict[str, str] = {}
    matching = {loop.id: share for loop in loops if (share := _share(wanted, loop.body)) > 0}
    for ident, share in matching.items():
        scored[ident] = max(scored.get(ident, 0.0), share)
    if matching:
        marks = ", ".join("?" for _ in matching)
        for ident, pointers in reader.sql(f"SELECT id, pointers FROM {reader.entries} WHERE id IN ({marks})",
                                          list(matching)):
            for pointer in orjson.loads(pointers) if pointers else ():
                scored[str(pointer)] = max(scored.get(str(pointer), 0.0), matching[str(ident)])
    requests = reader.stream.tables.requests.name
    for need, answer, expires in reader.sql(
            f"SELECT need, answer_entry, expires_at FROM {requests} WHERE seat = ? AND answer_entry IS NOT NULL "
            "AND position <= ? ORDER BY position DESC LIMIT ?", [reader.observer, reader.at, INTENTS]):
        share = _share(wanted, str(need))
        if share > 0:
            scored[str(answer)] = max(scored.get(str(answer), 0.0), share)
            deadline[str(answer)] = str(expires)
    for task, handed in session_tasks(reader):
        share = _share(wanted, task)
        for ident in handed if share > 0 else ():
            scored[ident] = max(scored.get(ident, 0.0), share)
    rows = reader.rows(sorted(scored))
    ranked = sorted(rows.values(), key=lambda c: (-scored[c.id], deadline.get(c.id, "~"), -c.created_position))
    return [(c, scored[c.id]) for c in ranked[:k]]


def session_tasks(reader: Reader) -> list[tuple[str, list[str]]]:
    """(task, the ids handed for it) of the observer's current session, newest first."""
    tables = reader.stream.tables
    found = reader.sql(
        f"SELECT task, ledger_a, ledger_b FROM {tables.materializations.name} WHERE seat = ? AND position <= ? "
        f"AND position > coalesce((SELECT max(position) FROM {tables.sessions.name} WHERE principal = ? "
        "AND closed = ? AND position <= ?), 0) ORDER BY position DESC LIMIT ?",
        [reader.observer, reader.at, reader.observer, True, reader.at, INTENTS])
    return [(str(task), [str(i) for part in (a, b) for i in _ids(part)]) for task, a, b in found]


def _ids(stored: object) -> list[str]:
    loaded = orjson.loads(stored) if isinstance(stored, (str, bytes)) else stored
    return [str(i) for i in loaded] if isinstance(loaded, list) else []


def _share(wanted: frozenset[str], text: str) -> float:
    return len(wanted & fulltext.stems(text)) / len(wanted)
