"""The materialize use case: authorize, recall at one log position, place, record."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from memhall.domains.entry import Tags
from memhall.domains.errors import InvalidValueError
from memhall.domains.materialization import Excluded
from memhall.domains.values import PrincipalType, principal_name
from memhall.governance import logged
from memhall.governance.hall import Hall
from memhall.governance.streams import DomainStream
from memhall.governance.memory_records import Scope
from memhall.governance.store import raw
from memhall.ledgers import council, records
from memhall.ledgers.recall import fusion, understanding
from memhall.ledgers.recall.gather import gather
from memhall.ledgers.recall.pool import Pool, Reader, position
from memhall.ledgers.recall.query import Query
from memhall.ledgers.budget import Budget
from memhall.ledgers.ledger import Ledgers, Spent


@runtime_checkable
class KnowsPrincipals(Protocol):
    def principal_type(self, principal: str) -> PrincipalType: ...


@dataclass(frozen=True)
class Materialized:
    ledgers: Ledgers
    #: the Materialization record's id (not part of the ledgers: it differs per run)
    record_id: str


def materialize(
    hall: Hall, actor: str, domain: str, *, seat: str, task: str, tags: Tags | None = None,
    budget: Budget | None = None, explain: bool = False,
) -> Materialized:
    """Hand `seat` the memory it may rely on for `task`, as ledgers A, B and C.

    The ledgers are computed from one snapshot at position N (the newest entry
    event) and recorded afterwards; the record is not an entry event, so a
    re-run with nothing new written sees N again and prints the same bytes.
    """
    actor, seat = principal_name(actor), principal_name(seat)
    if not task.strip():
        raise InvalidValueError("materialize needs a task (--task)")
    budget = budget or Budget()
    tags = tags or Tags()
    stream, _ = records.authorize_materialization(hall, actor, domain, seat)
    pool = _recall(hall, actor, stream, Query.of(task, actor, tags))
    scored = fusion.fuse(pool)
    placed = council.place(scored, is_human=_humans(hall), words=pool.words, budget=budget)
    # ledger B is handed over as fact: each item as its events say, active (the pool's snapshot)
    with hall.store.read() as conn:
        logged.require(raw(conn), stream.journal, stream.tables.entries.name,
                       [{"id": f.id, "layer": f.layer, "kind": f.kind, "text": f.text, "author": f.author,
                         "status": "active"} for f in placed.b], at=pool.position)
    # a corrected claim goes out with what it is now understood to say, never the disproved text alone
    now_understood = understanding.current(hall, stream, placed.b, pool.position)
    facts = [f.model_copy(update={"understanding": now_understood[f.id]}) if f.id in now_understood else f
             for f in placed.b]
    ledgers = Ledgers(
        domain=stream.name, seat=seat, task=task, as_of_position=pool.position,
        tags=list(pool.tags),
        budget=Spent(max_items=budget.max_items, max_tokens=budget.max_tokens,
                     quote_tokens=budget.quote_tokens, used_tokens=placed.used_tokens),
        knowledge_available=any(f.layer in ("L3", "L4") for f in placed.b),
        a=placed.a, b=facts, c=placed.c,
    ).with_digest()
    if explain:
        ledgers = ledgers.model_copy(update={"explain": council.explained(scored, placed)})
    record_id = records.record_materialization(
        hall, actor, stream, seat=seat, task=task, log_position=pool.position,
        ledger_a=[q.id for q in placed.a], ledger_b=[f.id for f in placed.b],
        ledger_c=[Excluded(id=x.id, reason=x.reason) for x in placed.c], digest=ledgers.digest,
    )
    return Materialized(ledgers=ledgers, record_id=record_id)


def _recall(hall: Hall, chair: str, stream: DomainStream, query: Query) -> Pool:
    """The pool as the system chair holds it (its role holds the whole domain), with the
    L3/L4 entries on the same claims, which decide conflicts."""
    store = hall.store
    with store.read() as conn:
        if store.dialect != "sqlite":
            conn = conn.execution_options(isolation_level="REPEATABLE READ")
        reader = Reader(conn, stream, store.dialect, chair, Scope.of(hall.gate, chair, stream.name).whole,
                        position(conn, stream))
        return gather(reader, query, conflicts=True)


def _humans(hall: Hall) -> Callable[[str], bool]:
    """Who counts as a human is the policy's declaration, never the entry's claim."""
    gate = hall.gate
    if not isinstance(gate, KnowsPrincipals):
        return lambda _name: False
    return lambda name: gate.principal_type(name) is PrincipalType.HUMAN
