"""The incubation pool: unresolved contradictions and open questions (the handoff lists it: `waiting`).

The pool is the pure rule's (memhall.domains.dynamics.incubation) over a
bounded read: active claims left doubtful or anomalous, influencing memories
that contradict each other, and open loops asked as a question. Resolving one
— evidence or ratification moving the claim out of doubt, the loop closed, the
entry superseded or retired — takes it out of the rows read, so out of the pool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, or_, select

from memhall.domains.dynamics.incubation import IncubationItem, incubation_pool
from memhall.domains.values import BeliefState, Kind, Status
from memhall.governance import memory_records as records

if TYPE_CHECKING:
    from memhall.governance.streams import DomainStream

#: how many items a handoff lists, oldest first (the longest unresolved)
HANDOFF_INCUBATING = 20
_UNSETTLED = (BeliefState.DOUBTFUL.value, BeliefState.ANOMALOUS.value)


def pool(conn: Connection, stream: DomainStream, limit: int = HANDOFF_INCUBATING) -> list[IncubationItem]:
    e = stream.tables.entries
    query = select(e.c.id).where(e.c.status == Status.ACTIVE.value, or_(
        e.c.state.in_(_UNSETTLED), e.c.kind == Kind.OPEN_LOOP.value))
    ids = [str(r[0]) for r in conn.execute(query)]
    found = records.by_ids(conn, stream, None, ids)
    return incubation_pool(found.values())[:limit]
