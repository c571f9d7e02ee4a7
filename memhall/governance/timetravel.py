"""Handoff as of an earlier cut: the same read models and the same thread rules, replayed.

`handoff --as-of` answers "what would a session have been handed then" by
replaying the domain's log up to the cut into an in-memory SQLite copy of its
read models (the projection handlers every writer uses) and asking the same
thread reader the live handoff asks. Nothing is recorded and no session opens:
the past is read, never rewritten.
"""

from __future__ import annotations

import orjson
from sqlalchemy import create_engine, text

from memhall.domains.values import principal_name
from memhall.governance import fulltext, threads
from memhall.governance.as_of import AsOfArg, resolve_cut
from memhall.governance.hall import Hall
from memhall.governance.projection import ops_for
from memhall.governance.projection.apply import Projector, SqlBackend
from memhall.governance.projection.schema import from_iso, iso
from memhall.governance.replay import events_of
from memhall.governance.store import raw
from memhall.governance.views import EntryView, HandoffView
from memhall.policies.model import Action

HANDOFF_LOOPS = 50


def handoff_as_of(hall: Hall, actor: str, domain: str, as_of: AsOfArg,
                  limit: int = 20) -> HandoffView:
    """The handoff a session would have received at the cut (read only)."""
    actor = principal_name(actor)
    stream, _ = hall.ask(actor, Action.HANDOFF, domain)
    engine = create_engine("sqlite://")
    try:
        stream.tables.metadata.create_all(engine, tables=list(stream.tables.projections))
        with engine.begin() as memory:
            for statement in fulltext.create_sql(stream.tables, "sqlite"):
                memory.execute(text(statement))
            projector = Projector(SqlBackend(raw(memory), "sqlite", stream.tables.prefix))
            with hall.store.read() as conn:
                cut = resolve_cut(conn, stream, as_of, hall.clock())
                for batch in events_of(raw(conn), stream.tables.events_name, stream.store.dialect):
                    for position, topic, data in batch:
                        state = orjson.loads(data)
                        if cut.counts(from_iso(iso(state["timestamp"])), position):
                            projector.apply(ops_for(topic, state, position))
            projector.flush()
            reader = threads.Reader(raw(memory), stream.tables.prefix, "sqlite")
            return HandoffView.model_validate({
                "domain": stream.name, "as_of": cut.at,
                "latest": [EntryView.of(stream.name, r) for r in threads.latest(reader, limit=limit)],
                "candidates": [EntryView.of(stream.name, r)
                               for r in threads.candidates(reader, limit=limit)],
                "open_loops": [EntryView.of(stream.name, r)
                               for r in threads.open_loops(reader, limit=HANDOFF_LOOPS)],
            })
    finally:
        engine.dispose()
