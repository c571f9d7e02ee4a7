"""PostgreSQL: a prepared write appended in one round trip, its domain's lock held only by
the server.

The writers of one domain take turns on its lock (`Journal.held`). Taken first and alone,
the lock is held while its answer travels to the client, while the client (woken, and
scheduled among every other writer's process) works out the chain link, the position and
the read-model rows, and while its append and COMMIT travel back: measured with eight
writers on two cores, 4 ms a turn where the server's part was 1.6 ms, and eight writers
made less than half of what one made alone. A write prepared before the lock
(`prepared`) needs nothing from the lock's answer but the position and the chain head, and
both are the server's to compute: the link is a SHA-256 of length-prefixed fields
(`audit.chain`), which SQL computes as well (`sha256`, `int8send`). So the lock, the
append and the COMMIT go in one round trip: the lock is held for the server's work alone.

What the preparation took for granted is checked by the statement itself, after the lock
(a statement of its own, so this one reads what the previous holder committed): the
charter's last event is still the one it was prepared under, no active entry has its
dedup key, no entry its idempotency key, and no domain is being rebuilt. If any is not so,
the statement writes nothing, and the write is decided again under the lock, as
`Hall.write` always did.

The write's time is the time it takes its place, and not before the log's last: the later
of the client's clock as it sends and the last event's time (its audit row's), chosen by
the statement under the lock, so the log's times do not run backwards within a domain
however the writers' round trips cross (the lock path stamps under the lock, which is
after the last write on the same clock). A clock more than a second behind the log's last
time (frozen, or another host's) is not moved: that write is decided under the lock with
its own time, as before; so is one behind a last time that is not provably a time (an
edited row: the statement compares the times as text and casts nothing, so nothing it
reads can make it fail). The event's bytes hold the time where the stand-in time was
(a fixed-width text: the bytes keep their length).

The rows are the projection's own (`ops_for`), made twice with two stand-ins for the
position and the time: what differs between the two the SQL replaces with the position and
time it assigns; the rest is stored as written. The one merge an entry written makes (its
thread's row) becomes an upsert only when the projection's merge, applied to a row,
does what the upsert does: set columns to the new row's values and count one more.
Anything else is written under the lock.
"""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any

from memhall.audit.chain import tag_field
from memhall.governance.journal import EVENT_COLUMNS
from memhall.governance.projection import ops_for
from memhall.governance.projection.ops import Insert, Merge
from memhall.governance.projection.schema import BY_SUFFIX, iso
from memhall.governance.projection.stored import row_encoder
from memhall.governance.rebuilding import KEY as REBUILDING, SETTINGS
from memhall.governance.streams import planning

if TYPE_CHECKING:
    from memhall.governance.journal import Journal, NewEvent
    from memhall.governance.store import Store

#: the position the rows are made with, replaced in SQL by the one assigned: no real log reaches it
STAND_IN = 8_070_450_532_247_928_831
_STAND_IN_TEXT = str(STAND_IN)
#: the time the event and its rows are made with, replaced in SQL by the one chosen (`iso`'s
#: fixed-width form, which is also the event's own when its microseconds are not 0)
STAND_IN_TIME = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone.utc)
_STAND_IN_ISO = iso(STAND_IN_TIME)
_STAMPED = f'"timestamp":"{_STAND_IN_ISO}"'.encode()
#: the second stand-ins (`_statement`)
_OTHER = 7_070_450_532_247_928_831
_OTHER_TEXT = str(_OTHER)
_OTHER_ISO = iso(datetime(9999, 12, 30, 23, 59, 59, 999998, tzinfo=timezone.utc))

#: SQL text by shape of write (the tables, columns and their expressions)
_SQL: dict[tuple[Any, ...], str] = {}
_KEPT = 256


def may(store: Store) -> bool:
    """Whether a write on `store` may go in one round trip: PostgreSQL, outside a transaction
    a caller opened (whose end commits) and a batch planned elsewhere (`streams.planned`)."""
    return store.dialect == "postgresql" and not store.in_transaction() and not planning()


def append(journal: Journal, connection: Any, event: NewEvent, *, now: datetime, charter: Any,
           charter_last: tuple[int, bytes], dedup_key: str, idempotency_key: str | None) -> int | None:
    """Lock the domain, append `event` (made at `STAND_IN_TIME`: it takes the later of `now`
    and the log's last time) if what it was prepared under still holds, and commit, in one
    round trip on `connection` (a psycopg connection, outside any transaction); its position,
    or None when nothing was written (the write must be decided under the lock)."""
    statement = _statement(event)
    at = event.data.find(_STAMPED)
    # a time whose microseconds are 0 is a shorter text in the event ('…:05Z'): under the lock
    if statement is None or at < 0 or event.data.find(_STAMPED, at + 1) >= 0 or now.microsecond == 0:
        return None
    shape, values = statement
    o, v, t = str(event.originator_id).encode(), str(event.version).encode(), event.topic.encode()
    fields = b"".join(len(x).to_bytes(8, "big") + x for x in (o, v, t))  # the link's, before the state's
    stamp_at = at + len(_STAMPED) - len(_STAND_IN_ISO) - 1  # where the time's text begins
    # in the order the statement names them
    guards = [iso(now), iso(now + timedelta(seconds=1)), tag_field(journal.domain), fields, event.data, stamp_at,
              charter, charter_last[0], charter_last[1], dedup_key]
    if idempotency_key is not None:
        guards.append(idempotency_key)
    key = (journal.prefix, idempotency_key is not None, shape)
    sql = _SQL.get(key)
    if sql is None:
        if len(_SQL) >= _KEPT:
            _SQL.clear()
        sql = _SQL[key] = _numbered(_text(journal, idempotency_key is not None, shape))
    from psycopg import RawCursor  # loaded already: this is a psycopg connection

    with connection.pipeline():
        connection.cursor().execute(journal.head_sql)
        cursor = RawCursor(connection)
        cursor.execute(sql, [*guards, *values])
        connection.cursor().execute("COMMIT")
    row = cursor.fetchone()
    return int(row[0]) if row is not None else None


def _statement(event: NewEvent) -> tuple[tuple[Any, ...], list[Any]] | None:
    """The event's rows as (shape, values): per table, its columns' expressions ("%s" a value,
    "@" the position, "@…" the position's text and a value after it, "T" the time, "D" the
    event's bytes), and the values in order. None when a row is not one this statement can write.

    The rows are made twice, with two stand-ins for the position and the time: a value that
    differs between the two is the position's or the time's, one that does not is stored as
    it is (a writer's text holding a stand-in included)."""
    shape: list[Any] = [("events", ("@", "%s", "%s", "%s", "D"))]
    values: list[Any] = [event.originator_id, event.version, event.topic]
    made = ops_for(event.topic, event.state, STAND_IN)
    other = ops_for(event.topic, {**event.state, "timestamp": _OTHER_ISO}, _OTHER)
    if len(made) != len(other):
        return None
    # a row inserted again replaces the earlier one, in its place (as `Projector` keeps them)
    ops: dict[tuple[str, str], tuple[Insert | Merge, Insert | Merge]] = {}
    for op, twin in zip(made, other):
        if type(op) is Insert and type(twin) is Insert and op.table == twin.table:
            key = (op.table, str(op.row[BY_SUFFIX[op.table].key]))
            if type(ops.get(key, (None,))[0]) is Merge:
                return None
            ops[key] = (op, twin)
        elif type(op) is Merge and type(twin) is Merge and (op.table, op.key) not in ops:
            ops[(op.table, op.key)] = (op, twin)
        else:
            return None
    for op, twin in ops.values():
        if type(op) is Insert and type(twin) is Insert:
            if op.table == "search":
                continue  # PostgreSQL indexes the entries table itself
            columns = _columns(op.table, op.row, twin.row, values)
            if columns is None:
                return None
            shape.append((op.table, columns))
        elif type(op) is Merge and type(twin) is Merge:
            counted = _counted(op)
            if counted is None or op.default is None or twin.default is None:
                return None
            columns = _columns(op.table, op.default, twin.default, values)
            if columns is None:
                return None
            shape.append((op.table, columns, counted))
    return tuple(shape), values


def _columns(table: str, row: dict[str, Any], twin: dict[str, Any], values: list[Any]) -> tuple[str, ...] | None:
    """A row's expressions (made with the stand-ins, and with the others), its values added to `values`."""
    encode = row_encoder(BY_SUFFIX[table])
    out = []
    for value, other in zip(encode(row), encode(twin)):
        if value == other:
            out.append("%s")
            values.append(value)
        elif value == STAND_IN and other == _OTHER:
            out.append("@")
        elif value == _STAND_IN_ISO and other == _OTHER_ISO:
            out.append("T")
        elif type(value) is str and type(other) is str and value.startswith(_STAND_IN_TEXT) \
                and other.startswith(_OTHER_TEXT) and value[len(_STAND_IN_TEXT):] == other[len(_OTHER_TEXT):]:
            out.append("@…")
            values.append(value[len(_STAND_IN_TEXT):])
        else:
            return None
    return tuple(out)


def _counted(op: Merge) -> tuple[str, ...] | None:
    """The columns an upsert counts (one more each) when the merge does to an existing row
    what `INSERT … ON CONFLICT DO UPDATE` would: every column it changes either takes the new
    row's value or counts one more (the new row holding 1); None when it does anything else."""
    default = op.default
    if default is None:
        return None
    spec = BY_SUFFIX[op.table]
    if set(default) != set(spec.names):
        return None
    before = {name: _other(value) for name, value in default.items()}
    before[spec.key] = default[spec.key]
    after = {**before, **op.change(dict(before))}
    counted = []
    for name in spec.names:
        if name == spec.key or after[name] == default[name]:
            continue
        if type(default[name]) is int and default[name] == 1 and after[name] == before[name] + 1:
            counted.append(name)
        else:
            return None
    return tuple(counted)


def _other(value: Any) -> Any:
    """A value unlike `value`, of its type (an existing row's, unlike the new row's)."""
    if type(value) is int:
        return value + 1000
    if type(value) is str:
        return value + "~"
    return value


def _text(journal: Journal, keyed: bool, shape: tuple[Any, ...]) -> str:
    p = journal.prefix
    idempotent = f" AND NOT EXISTS (SELECT 1 FROM {p}entries WHERE idempotency_key = %s)" if keyed else ""
    # the time: the later of the client's and the log's last, compared as text (fixed-width ISO
    # times sort as text), no cast: a later last time is taken only when it provably is a time
    # within the second after the client's (its date, hour and minute the client's or that
    # second's end's, its seconds 00-59); anything else (a clock more than a second behind,
    # or an edited row) sends the write under the lock, where it keeps its own time
    s = ("s AS (SELECT CASE WHEN l.at <= k.now THEN k.now WHEN l.at <= k.soon AND length(l.at) = 27"
         " AND l.at ~ '^.{17}[0-5][0-9][.][0-9]{6}Z$' AND left(l.at, 17) IN (left(k.now, 17), left(k.soon, 17))"
         f" THEN l.at END AS at FROM (SELECT %s::text AS now, %s::text AS soon) k, LATERAL (SELECT"
         f" coalesce((SELECT at FROM {p}audit ORDER BY position DESC LIMIT 1), k.now) AS at) l)")
    # the position, the event's bytes with the time, and the chain's link (`chain.next_head`)
    d = (f"d AS (SELECT position + 1 AS pos, head, s.at, %s::bytea AS tag, %s::bytea AS ovt,"
         " overlay(%s::bytea placing convert_to(s.at, 'UTF8') from %s::int + 1) AS data"
         f" FROM {p}head, s WHERE id = 1 AND s.at IS NOT NULL AND right(s.at, 8) <> '.000000Z'"
         f" AND EXISTS (SELECT 1 FROM ({journal.last_sql}) lc (v, t) WHERE lc.v = %s AND lc.t = %s)"
         f" AND NOT EXISTS (SELECT 1 FROM {p}entries WHERE dedup_key = %s AND status = 'active')"
         f"{idempotent} AND NOT EXISTS (SELECT 1 FROM {SETTINGS} WHERE key = '{REBUILDING}'))")
    n = ("n AS (SELECT pos, at, data, encode(sha256(tag || int8send(octet_length(pos::text)::bigint)"
         " || convert_to(pos::text, 'UTF8') || int8send(octet_length(head)::bigint) || convert_to(head, 'UTF8')"
         " || ovt || int8send(octet_length(data)::bigint) || data), 'hex') AS nh FROM d)")
    parts = [s, d, n, f"c AS (INSERT INTO {p}chain (position, head) SELECT pos, nh FROM n)"]
    expression = {"@": "n.pos", "@…": "n.pos::text || %s", "T": "n.at", "D": "n.data"}
    for i, (table, columns, *counted) in enumerate(shape):
        names = EVENT_COLUMNS if table == "events" else BY_SUFFIX[table].names
        sql = (f"INSERT INTO {p}{table} ({', '.join(names)}) "
               f"SELECT {', '.join(expression.get(c, c) for c in columns)} FROM n")
        if counted:
            spec = BY_SUFFIX[table]
            sets = ", ".join(f"{name} = {p}{table}.{name} + 1" if name in counted[0] else f"{name} = EXCLUDED.{name}"
                             for name in spec.names if name != spec.key)
            sql += f" ON CONFLICT ({spec.key}) DO UPDATE SET {sets}"
        parts.append(f"w{i} AS ({sql})")
    return (f"WITH {', '.join(parts)} UPDATE {p}head SET position = n.pos, head = n.nh FROM n "
            f"WHERE {p}head.id = 1 RETURNING n.pos")


def _numbered(sql: str) -> str:
    """The statement's placeholders numbered in the order they are written ($1…): psycopg parses
    a statement's %s again at every call when it has more than 50 parameters."""
    pieces = sql.split("%s")
    if any("%" in piece for piece in pieces):
        raise ValueError(f"not a placeholder: {sql}")
    return "".join(f"{piece}${n}" for n, piece in enumerate(pieces[:-1], 1)) + pieces[-1]
