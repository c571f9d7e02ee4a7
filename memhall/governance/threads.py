"""The latest state of each thread, read with plain SQL on a DBAPI connection.

An entry's thread is `--thread` if given, else its first topic, else its
author's own (`@author`); the `threads` read model lists them, newest write
first. A thread's latest state is its newest active `state` / `wrap-up` /
`handoff` entry at L2 or above (one index seek per kind and layer); its
candidate is the newest such entry at L1, listed apart: a seat's L1 state is
never the latest state. A thread with no active state is not open and is not
listed.

Stdlib only (plus orjson): the same reads serve `memhall handoff` and
`memhall state` on the main path and the fast path, on sqlite3 and psycopg.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple

from memhall.governance.projection.schema import ENTRIES, from_sql, iso

__all__ = ["iso"]

#: threads a handoff lists by default, and open loops
HANDOFF_LATEST = 10
HANDOFF_LOOPS = 20
STATE_KINDS = ("state", "wrap-up", "handoff")
STATE_LAYERS = ("L2", "L3", "L4")
CANDIDATE_LAYERS = ("L1",)
#: threads read per page while looking for open ones
_PAGE = 200
#: state entries a handoff reads newest first before it walks the threads instead
SCAN_BUDGET = 2000

Row = dict[str, Any]


class Reader(NamedTuple):
    """One domain's read models on a DBAPI connection (qmark for sqlite3, format for psycopg)."""

    db: Any
    prefix: str
    dialect: str = "sqlite"

    def rows(self, sql: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        cursor = self.db.cursor()
        cursor.execute(sql if self.dialect == "sqlite" else sql.replace("?", "%s"), tuple(params))
        return list(cursor.fetchall())

    def entries(self, ids: Sequence[str]) -> dict[str, Row]:
        """Entry rows by id, decoded as the projection wrote them (times as ISO text)."""
        found: dict[str, Row] = {}
        for start in range(0, len(ids), 500):
            chunk = list(ids[start:start + 500])
            marks = ", ".join("?" for _ in chunk)
            for values in self.rows(f"SELECT {', '.join(ENTRIES.names)} FROM {self.prefix}entries "
                                    f"WHERE id IN ({marks})", chunk):
                row = from_sql(ENTRIES, values)
                found[row["id"]] = row
        return found


def _latest_sql(prefix: str, layers: Sequence[str]) -> str:
    """The newest active state entry of thread `t.thread` at `layers`: the newest of each
    (kind, layer) pair, each one seek down the thread index, then the newest of those. One
    ORDER BY over `kind IN (...) AND layer IN (...)` sorts every state entry of the thread
    instead (4 ms at 100k entries, growing with the store; this stays under 1 ms)."""
    newest = ", ".join(
        f"(SELECT s.id FROM {prefix}entries s WHERE s.thread = t.thread AND s.status = 'active' "
        f"AND s.kind = '{kind}' AND s.layer = '{layer}' ORDER BY s.created_position DESC LIMIT 1)"
        for kind in STATE_KINDS for layer in layers)
    return f"SELECT e.id FROM {prefix}entries e WHERE e.id IN ({newest}) ORDER BY e.created_position DESC LIMIT 1"


def _newest_sql(prefix: str, layers: Sequence[str], page: int, below: bool) -> str:
    """The `page` newest active state entries of each (kind, layer) pair, below a position
    when `below`, each row led by its pair's number: one seek each down the index `entries_newest`
    (layer, status, kind, created_position)."""
    cut = " AND created_position < ?" if below else ""
    return " UNION ALL ".join(
        f"SELECT * FROM (SELECT {n} AS pair, thread, id, created_position FROM {prefix}entries "
        f"WHERE layer = '{layer}' AND status = 'active' AND kind = '{kind}'{cut} "
        f"ORDER BY created_position DESC LIMIT {int(page)}) AS p{n}"
        for n, (kind, layer) in enumerate((k, l) for k in STATE_KINDS for l in layers))


def latest(reader: Reader, *, limit: int, layers: Sequence[str] = STATE_LAYERS,
           threads: Sequence[str] | None = None, budget: int = SCAN_BUDGET) -> list[Row]:
    """The latest state at `layers` of each open thread (or of `threads`), newest first.

    The domain's state entries are read newest first, a page at a time (the next few of
    each kind and layer); the first one met of each thread is its latest state. The cost
    follows the entries read, not the size of the domain or its number of threads. When
    `budget` entries go by without `limit` threads (one thread flooding the newest state
    entries), the threads are walked instead, newest write first, a seek per kind and layer;
    so are they at once when there are no more of them than `limit`."""
    if threads is not None:
        if not threads:
            return []
        marks = ", ".join("?" for _ in threads)
        pairs = reader.rows(f"SELECT t.thread, ({_latest_sql(reader.prefix, layers)}) FROM {reader.prefix}threads t "
                            f"WHERE t.thread IN ({marks})", list(threads))
        return _ordered(reader, (ident for _, ident in pairs), limit)
    if len(reader.rows(f"SELECT 1 FROM {reader.prefix}threads LIMIT {int(limit) + 1}")) <= limit:
        # no more threads than asked for (`state` asks for up to 100): each one is walked, a
        # seek per kind and layer, rather than reading state entries until the budget runs out
        return _by_thread(reader, limit, layers)
    page = max(2 * limit, 16)
    pairs_n = len(STATE_KINDS) * len(layers)
    found: dict[str, str] = {}
    below: int | None = None
    read = 0
    while len(found) < limit and read < budget:
        rows = reader.rows(_newest_sql(reader.prefix, layers, page, below is not None),
                           [below] * pairs_n if below is not None else [])
        read += len(rows)
        filled = Counter(int(r[0]) for r in rows)
        # a pair that filled its page may have more entries below its last one: the rows
        # read are complete only down to the highest such last position
        lows = [min(int(r[3]) for r in rows if int(r[0]) == pair) for pair, n in filled.items() if n == page]
        cut = max(lows, default=None)
        for _, thread, ident, position in sorted(rows, key=lambda r: int(r[3]), reverse=True):
            if (cut is not None and int(position) < cut) or len(found) == limit:
                break
            found.setdefault(str(thread), str(ident))
        if cut is None:
            return _ordered(reader, found.values(), limit)
        below = cut
    if len(found) < limit:
        return _by_thread(reader, limit, layers)
    return _ordered(reader, found.values(), limit)


def _by_thread(reader: Reader, limit: int, layers: Sequence[str]) -> list[Row]:
    inner = _latest_sql(reader.prefix, layers)
    ids: list[str] = []
    offset = 0
    while len(ids) < limit:
        page = reader.rows(f"SELECT t.thread, ({inner}) FROM {reader.prefix}threads t "
                           f"ORDER BY t.position DESC LIMIT {_PAGE} OFFSET {offset}")
        ids += [str(ident) for _, ident in page if ident is not None]
        if len(page) < _PAGE:
            break
        offset += _PAGE
    return _ordered(reader, ids, limit)


def _ordered(reader: Reader, ids: Iterable[Any], limit: int) -> list[Row]:
    wanted = [str(i) for i in ids if i is not None]
    rows = sorted(reader.entries(wanted).values(), key=lambda r: r["created_position"], reverse=True)
    return rows[:limit]


def candidates(reader: Reader, *, limit: int, threads: Sequence[str] | None = None) -> list[Row]:
    """The newest L1 state of each thread, newest first: proposals, not the state."""
    return latest(reader, limit=limit, layers=CANDIDATE_LAYERS, threads=threads)


def open_loops(reader: Reader, *, limit: int, thread: str | None = None) -> list[Row]:
    """Active open loops, newest first (of one thread, when given)."""
    where, params = "kind = 'open-loop' AND status = 'active'", []
    if thread is not None:
        where = "thread = ? AND status = 'active' AND kind = 'open-loop'"
        params = [thread]
    ids = [str(r[0]) for r in reader.rows(
        f"SELECT id FROM {reader.prefix}entries WHERE {where} "
        f"ORDER BY created_at DESC, created_position DESC LIMIT {int(limit)}", params)]
    found = reader.entries(ids)
    return [found[i] for i in ids if i in found]


def thread_names(reader: Reader) -> list[str]:
    return [str(r[0]) for r in reader.rows(f"SELECT thread FROM {reader.prefix}threads ORDER BY position DESC")]


def reusable_session(reader: Reader, actor: str, since: str, named: str | None = None) -> str | None:
    """The actor's open session a handoff continues instead of opening another: the one
    named (MEMHALL_SESSION) if it is the actor's and open, else its newest open session
    opened at `since` (ISO text) or later."""
    base = f"SELECT id FROM {reader.prefix}sessions WHERE principal = ? AND closed = ?"
    if named:
        found = reader.rows(base + " AND id = ?", [actor, False, named])
        if found:
            return str(found[0][0])
    found = reader.rows(base + " AND opened_at >= ? ORDER BY position DESC LIMIT 1", [actor, False, since])
    return str(found[0][0]) if found else None
