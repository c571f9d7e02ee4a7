"""Materialization records: who may materialize for whom, the record, and the listing."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import select

from memhall.domains.errors import PolicyDeniedError
from memhall.domains.materialization import Excluded, Materialization
from memhall.domains.values import principal_name
from memhall.governance import requests  # noqa: F401 (registers the record's projection)
from memhall.governance.exposure import KnowsRoles
from memhall.governance.hall import Hall
from memhall.governance.streams import DomainStream
from memhall.governance.views import View, as_utc
from memhall.policies.model import Action, Decision, PolicyRequest, ResourceType


class MaterializationView(View):
    id: str
    domain: str
    seat: str
    task: str
    by: str
    log_position: int
    ledger_a: list[str]
    ledger_b: list[str]
    ledger_c: list[dict[str, str]]
    digest: str
    created_at: datetime


def authorize_materialization(hall: Hall, actor: str, domain: str, seat: str) -> tuple[DomainStream, Decision]:
    """The policy's word, then two isolation rules the policy cannot see:
    a chair never materializes for itself, and the seat must belong to the domain."""
    actor, seat = principal_name(actor), principal_name(seat)
    stream, decision = hall.ask(actor, Action.MATERIALIZE, domain, seat=seat)
    policy = PolicyRequest(principal=actor, action=Action.MATERIALIZE, domain=stream.name,
                           resource_type=ResourceType.DOMAIN, seat=seat)
    problem: tuple[str, str] | None = None
    if seat == actor:
        problem = ("no-self-materialization",
                   f"refused: {actor} cannot materialize memory for itself; the system chair "
                   "materializes for another seat")
    elif isinstance(hall.gate, KnowsRoles) and not hall.gate.roles_of(seat, stream.name):
        problem = ("seat-belongs-to-the-domain",
                   f"refused: {seat} holds no role in {stream.name}; nothing is materialized "
                   "across domains")
    if problem is not None:
        with hall.writing(stream) as session:
            hall.refuse(session, stream, policy, PolicyDeniedError(problem[1], rule=problem[0]),
                        rule=problem[0])
    return stream, decision


def record_materialization(
    hall: Hall, actor: str, stream: DomainStream, *, seat: str, task: str, log_position: int,
    ledger_a: Sequence[str], ledger_b: Sequence[str], ledger_c: Sequence[Excluded], digest: str,
) -> str:
    """Record what was handed to the seat (after the policy allowed it again, in the write)."""
    with hall.writing(stream) as session:
        policy = PolicyRequest(principal=actor, action=Action.MATERIALIZE, domain=stream.name,
                               resource_type=ResourceType.DOMAIN, seat=seat)
        decision = hall.authorize(session, stream, policy)
        record = Materialization.record(
            stream.name, seat, task, log_position=log_position, ledger_a=tuple(ledger_a),
            ledger_b=tuple(ledger_b), ledger_c=tuple(ledger_c), digest=digest, now=hall.clock(),
            actor=actor, rule=decision.rule_id)
        stream.save(session, record)
    return str(record.id)


def materializations(hall: Hall, actor: str, domain: str, *, seat: str | None = None,
                     limit: int = 20) -> list[MaterializationView]:
    """What each seat was shown, newest first."""
    stream, _ = hall.ask(actor, Action.READ, domain)
    t = stream.tables.materializations
    query = select(t)
    if seat:
        query = query.where(t.c.seat == seat)
    with hall.store.read() as conn:
        rows = conn.execute(query.order_by(t.c.position.desc()).limit(limit)).all()
    views = []
    for row in rows:
        data = dict(row._mapping)
        data.pop("position")
        data["created_at"] = as_utc(data["created_at"])
        views.append(MaterializationView(domain=stream.name, **data))
    return views
