"""An agent's session start on the fast path: its keyed session, the handoff, canon and knowledge.

The hook's main path (`agents.lifecycle.start`) opens the memhall session keyed
by the agent's own session (`agent_sessions.open_keyed`), reads a handoff that
opens nothing (`sessions.handoff`) and the ratified L4 and L3 entries
(`promotions.ratified`), each checked against its entry's events
(`logged`). This does the same with stdlib sqlite3 over the
read models, or returns None for the caller to take that path:

- both decisions it needs (handoff, read) are cached allowed answers under the
  policy the domain still has adopted (`fast_handoff.allowed`);
- every entry it would hand out (the handoff's and the ratified ones) says what
  its events say: they are replayed through the one projection (`logged`), and
  a row that differs is left to the main path, which refuses to serve it;
- the key has a generation left.

Everything that can decline is read before the one write, the main path's
`Session.Opened` appended by the shared journal.
"""

from __future__ import annotations

import sqlite3
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, NamedTuple

from memhall.domains.errors import StoreBusyError
from memhall.governance import fast_handoff, logged, threads
from memhall.governance.journal import Journal
from memhall.governance.keyed import GENERATIONS, keyed_ids
from memhall.governance.projection.schema import ENTRIES, from_sql


class Start(NamedTuple):
    store: Path
    policy_dir: Path | None
    actor: str
    domain: str
    #: `keyed.session_key` of the agent's session
    key: str
    limit: int = threads.HANDOFF_LATEST
    loops: int = threads.HANDOFF_LOOPS
    #: the longest the session's write waits for another process's lock (`StoreBusyError`)
    lock_wait_s: float | None = None


class Started(NamedTuple):
    session_id: str
    #: the session was open already (a resumed or compacted agent session): nothing was written
    reused: bool
    #: `HandoffView.model_dump(mode="json")` of a handoff that opens nothing
    view: dict[str, Any]
    #: the ratified L4 and L3 entries, as `EntryView.model_dump(mode="json")`
    canon: list[dict[str, Any]]
    knowledge: list[dict[str, Any]]


def session_start(start: Start, now: datetime | None = None) -> Started | None:
    now = now or datetime.now(timezone.utc)
    found = fast_handoff.allowed(start.store, start.policy_dir, start.actor, start.domain,
                                 (fast_handoff.HANDOFF, fast_handoff.READ, fast_handoff.AGENT))
    if found is None:
        return None
    try:
        at = fast_handoff.newest(found.reader, start.domain)  # before the rows (`logged`)
        view = fast_handoff.view(found.reader, start.domain, now, start.limit, start.loops)
        if not fast_handoff.handed_as_logged(found.reader, start.domain, view, at):
            return None
        journal = Journal(start.domain, "sqlite")
        canon = ratified(found.reader, journal, "L4", at)
        knowledge = ratified(found.reader, journal, "L3", at)
        if canon is None or knowledge is None:
            return None
        opened = _open_keyed(found, journal, start, now)
        if opened is None:
            return None
        name = start.domain
        return Started(opened[0], opened[1], view, [fast_handoff.entry_json(name, r) for r in canon],
                       [fast_handoff.entry_json(name, r) for r in knowledge])
    finally:
        found.conn.close()


def ratified(reader: threads.Reader, journal: Journal, layer: str, at: int) -> list[dict[str, Any]] | None:
    """The active entries at `layer`, as `promotions.ratified` lists them; None when one
    of them is not what its events say (the main path refuses to serve it)."""
    rows = [from_sql(ENTRIES, values) for values in reader.rows(
        f"SELECT {', '.join(ENTRIES.names)} FROM {reader.prefix}entries WHERE layer = ? AND status = 'active' "
        "ORDER BY updated_at DESC, id", [layer])]
    return rows if logged.first_unlike(reader.db, journal, rows, at=at) is None else None


def _open_keyed(found: fast_handoff.Allowed, journal: Journal, start: Start,
                now: datetime) -> tuple[str, bool] | None:
    """`agent_sessions.open_keyed`: the key's session found open, or its next generation opened."""
    conn = found.conn
    ids = [str(i) for i in keyed_ids(start.key)]
    if start.lock_wait_s is not None:
        conn.execute(f"PRAGMA busy_timeout = {int(start.lock_wait_s * 1000)}")
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        if start.lock_wait_s is not None and "locked" in str(error):
            raise StoreBusyError(start.lock_wait_s) from None
        raise
    try:
        marks = ", ".join("?" for _ in ids)
        closed = {str(i): bool(c) for i, c in found.reader.rows(
            f"SELECT id, closed FROM {found.reader.prefix}sessions WHERE id IN ({marks})", ids)}
        current = max((g for g, i in enumerate(ids) if i in closed), default=None)
        if current is not None and not closed[ids[current]]:
            conn.execute("COMMIT")
            return ids[current], True
        generation = 0 if current is None else current + 1
        if generation >= GENERATIONS:
            conn.execute("ROLLBACK")
            return None  # the main path says why
        decided = found.decided
        journal.append(conn, [fast_handoff.session_opened(ids[generation], start.domain, start.actor,
                                                          decided.rule, now, (), decided.policy)])
        conn.execute("COMMIT")
        return ids[generation], False
    except BaseException:
        conn.execute("ROLLBACK")
        raise
