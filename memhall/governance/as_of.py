"""The as-of cut of a question ("what was known then"), and what was ratified as of it.

A time counts what was recorded by then; `@N` counts events up to position N.
Ages are measured from when things happened to the cut's time (SPEC §5, issue 11).
"""

from __future__ import annotations

from datetime import datetime, timezone
from uuid import UUID

import orjson
from sqlalchemy import Connection, func, select

from memhall.domains.belief import AsOf
from memhall.domains.errors import InvalidValueError
from memhall.domains.values import domain_name
from memhall.governance.hall import Hall
from memhall.governance.projection.schema import from_iso, iso
from memhall.governance.promotion_records import LayerView
from memhall.governance.store import raw
from memhall.governance.streams import DomainStream
from memhall.governance.views import EntryView
from memhall.policies.model import Action

#: what `--as-of` takes: a time (what was recorded by then) or a log position
AsOfArg = datetime | int | None


def parse_as_of(text: str | None) -> AsOfArg:
    """An as-of as typed by an agent: an ISO time (UTC when it names no zone) or @POSITION."""
    if text is None or not text.strip():
        return None
    text = text.strip()
    try:
        if text.startswith("@"):
            return int(text[1:])
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise InvalidValueError(f"as-of {text!r} is neither an ISO time nor @POSITION") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def resolve_cut(conn: Connection, stream: DomainStream, as_of: AsOfArg, now: datetime) -> AsOf:
    """The cut of an as-of question. A time counts what was recorded by then; `@N` counts
    events up to position N, and ages are measured to the time N was recorded."""
    if as_of is None:
        return AsOf(now)
    if isinstance(as_of, datetime):
        return AsOf(as_of if as_of.tzinfo else as_of.replace(tzinfo=timezone.utc))
    audit = stream.tables.audit
    at = conn.execute(select(audit.c.at).where(audit.c.position == as_of)).scalar()
    if at is None:
        last = conn.execute(select(func.max(audit.c.position))).scalar() or 0
        raise InvalidValueError(f"no event at @{as_of} in {stream.name} (the log ends at @{last})")
    return AsOf(at, as_of)


def cut_of(hall: Hall, domain: str, as_of: AsOfArg) -> AsOf:
    """The cut for a command's `--as-of` (now when None); the caller has asked the policy."""
    stream = hall.streams.stream(domain_name(domain))
    with hall.store.read() as conn:
        return resolve_cut(conn, stream, as_of, hall.clock())



PROMOTED, DEMOTED = "memhall.Entry.Promoted", "memhall.Entry.Demoted"
LAYER_EVENTS = (PROMOTED, DEMOTED, "memhall.Entry.Superseded", "memhall.Entry.Retired",
                "memhall.Entry.OpenLoopClosed")


def ratified_as_of(hall: Hall, actor: str, domain: str, layer: str, as_of: AsOfArg) -> LayerView:
    """`knowledge` / `canon --as-of`: what was ratified at `layer` in the log as it stood
    then (promotions and demotions, supersedes and retirements counted up to the cut)."""
    stream, _ = hall.ask(actor, Action.READ, domain)
    with hall.store.read() as conn:
        cut = resolve_cut(conn, stream, as_of, hall.clock())
        db = raw(conn)
        cursor = db.cursor()
        topics = ", ".join(f"'{t}'" for t in LAYER_EVENTS)
        cursor.execute(f"SELECT id, originator_id, topic, state FROM {stream.tables.events_name} "
                       f"WHERE topic IN ({topics}) ORDER BY id")
        layer_at: dict[str, str] = {}
        gone: set[str] = set()
        for position, originator, topic, data in cursor.fetchall():
            state = orjson.loads(data)
            if not cut.counts(from_iso(iso(state["timestamp"])), int(position)):
                continue
            ident = str(UUID(bytes=bytes(originator)) if isinstance(originator, (bytes, memoryview))
                        else originator)
            if topic in (PROMOTED, DEMOTED):
                layer_at[ident] = state["to_layer"]
            else:
                gone.add(ident)
        ids = sorted(i for i, at in layer_at.items() if at == layer and i not in gone)
        x = stream.tables.entries
        rows = conn.execute(select(x).where(x.c.id.in_(ids))).all() if ids else []
    found = [EntryView.from_row(stream.name, r).model_copy(update={"layer": layer}) for r in rows]
    name = {"L3": "knowledge", "L4": "canon"}[layer]
    when = f" as of {cut.at.isoformat()}" + (f" @{cut.position}" if cut.position is not None else "")
    message = (f"{layer} {name} of {stream.name}{when}: {len(found)} ratified" if found
               else f"{layer} unavailable{when}: nothing ratified in {stream.name}")
    return LayerView(domain=stream.name, layer=layer, available=bool(found), message=message,
                     entries=found)
