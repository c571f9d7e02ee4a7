"""Who holds what: the one exposure rule every reader asks (recall, beliefs, dynamics).

Chairs (system and session) and the ratify owner hold their whole domain by
role — a rule, so it costs nothing at a million events. Everyone else holds
exactly the entries the exposure read model lists for them (what they wrote,
were told, were present for, or were handed), as of a log position.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol, runtime_checkable

from sqlalchemy import Connection, ColumnElement, select

from memhall.governance.streams import DomainStream

#: roles that hold their domain whole
HOLDING_ROLES = frozenset({"system_chair", "session_chair", "ratify_owner"})


@runtime_checkable
class KnowsRoles(Protocol):
    @property
    def principals(self) -> tuple[str, ...]: ...

    def roles_of(self, principal: str, domain: str) -> frozenset[str]: ...


def holds_domain(gate: object, observer: str, domain: str) -> bool:
    """Whether the observer holds the whole domain by its role."""
    return isinstance(gate, KnowsRoles) and bool(gate.roles_of(observer, domain) & HOLDING_ROLES)


def held_clause(stream: DomainStream, observer: str, *, at: int | None = None) -> ColumnElement[bool]:
    """`entries.id IN (what the observer holds)` for queries over entries."""
    x = stream.tables.exposure
    inner = select(x.c.entry_id).where(x.c.holder == observer)
    if at is not None:
        inner = inner.where(x.c.position <= at)
    return stream.tables.entries.c.id.in_(inner)


def held(conn: Connection, stream: DomainStream, observer: str, ids: Iterable[str], *,
         at: int | None = None) -> set[str]:
    """Which of `ids` the observer holds (by rows; callers check the role rule first)."""
    wanted = sorted(set(ids))
    x = stream.tables.exposure
    found: set[str] = set()
    for start in range(0, len(wanted), 500):
        query = select(x.c.entry_id).where(x.c.holder == observer,
                                           x.c.entry_id.in_(wanted[start:start + 500]))
        if at is not None:
            query = query.where(x.c.position <= at)
        found.update(str(r[0]) for r in conn.execute(query))
    return found


def holders(conn: Connection, stream: DomainStream, entry_id: str, *, at: int | None = None) -> dict[str, list[str]]:
    """Who holds an entry by rows, and how it reached each of them (first first)."""
    x = stream.tables.exposure
    query = select(x.c.holder, x.c.via).where(x.c.entry_id == entry_id).order_by(x.c.position, x.c.id)
    if at is not None:
        query = query.where(x.c.position <= at)
    found: dict[str, list[str]] = {}
    for holder, via in conn.execute(query):
        found.setdefault(str(holder), [])
        if via not in found[holder]:
            found[holder].append(str(via))
    return found
