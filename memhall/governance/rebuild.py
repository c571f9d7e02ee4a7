"""Drop every projection, recreate it in this version's schema, and replay the
log into it, in batches.

One transaction per batch of ~1,000 events (one per event is 40× slower).
The hash chain is not touched: it is evidence, not a read model.
"""

from __future__ import annotations

from memhall.governance import projections
from memhall.governance.hall import Hall
from memhall.governance.tables import SYSTEM

BATCH = 1000


def rebuild(hall: Hall, domains: list[str] | None = None, batch: int = BATCH) -> dict[str, int]:
    """Rebuild the projections of the given domains (default all); events replayed per domain."""
    names = domains if domains is not None else [*hall.domain_names(), SYSTEM]
    replayed: dict[str, int] = {}
    for name in names:
        stream = hall.streams.system() if name == SYSTEM else hall.streams.stream(name)
        count = 0
        with hall.store.write() as session:
            stream.reset_projections(session)
        start = 1
        while True:
            with hall.store.write() as session:
                records = stream.recorder.select_notifications(start, batch)
                for record in records:
                    event = hall.streams.decode(name, record)
                    projections.apply(session, stream.tables, event, record.id)
            count += len(records)
            if len(records) < batch:
                break
            start = records[-1].id + 1
        replayed[name] = count
    return replayed
