"""Promotion read models: the promotions table, its projection, the handoff section."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, insert, select, update

from memhall.domains.promotion import CANON_REMINDERS, Promotion
from memhall.governance.projections import Db, audits, described_as, projects, utc
from memhall.governance.tables import DomainTables
from memhall.governance.views import EntryView, View

if TYPE_CHECKING:
    from memhall.governance.streams import DomainStream


class PromotionView(View):
    id: str
    entry_id: str
    from_layer: str
    to_layer: str
    path: str
    nominated_by: str
    reason: str
    status: str
    reminder_sessions: list[str]
    reminders: int
    dissent: list[dict[str, str]]
    decided_by: str | None = None
    created_at: datetime

    @property
    def progress(self) -> str:
        if self.path != "canon":
            return "awaiting the ratify owner"
        count = len(self.reminder_sessions)
        dissent = f"dissent recorded ({len(self.dissent)} positions)" if self.dissent else "no dissent recorded"
        return f"{min(count, CANON_REMINDERS)} of {CANON_REMINDERS} reminders; {dissent}"

    @property
    def summary(self) -> str:
        return (f"promotion {self.id}: entry {self.entry_id} {self.from_layer} -> {self.to_layer} "
                f"({self.path}, nominated by {self.nominated_by}; {self.progress})")


class LayerView(View):
    domain: str
    layer: str
    available: bool
    message: str
    entries: list[EntryView] = []


def promotion_rows(conn: Connection, stream: "DomainStream", status: str | None) -> list[PromotionView]:
    p = stream.tables.promotions
    query = select(p).order_by(p.c.created_at, p.c.id)
    if status:
        query = query.where(p.c.status == status)
    views = []
    for row in conn.execute(query):
        data = {k: v for k, v in row._mapping.items() if k not in ("updated_at", "position")}
        views.append(PromotionView(**data))
    return views


def pending_section(conn: Connection, stream: "DomainStream") -> dict[str, list[dict[str, Any]]]:
    views = promotion_rows(conn, stream, "open")
    return {"pending_nominations": [{**v.model_dump(mode="json"), "summary": v.summary} for v in views]}



@projects(Promotion.Nominated)
def _nominated(db: Db, t: DomainTables, e: Promotion.Nominated, position: int) -> None:
    at = utc(e.timestamp)
    db.execute(insert(t.promotions), dict(
        id=str(e.originator_id), entry_id=str(e.entry_id), from_layer=e.from_layer.value,
        to_layer=e.to_layer.value, path=e.path.value, nominated_by=e.actor, reason=e.reason,
        status="open", reminder_sessions=[], reminders=0, dissent=[], created_at=at, updated_at=at,
        position=position,
    ))


def _promotion(db: Db, t: DomainTables, e: Any) -> dict[str, Any]:
    row = db.execute(select(t.promotions).where(t.promotions.c.id == str(e.originator_id))).one()
    return dict(row._mapping)


def _set(db: Db, t: DomainTables, e: Any, position: int, **values: Any) -> None:
    db.execute(update(t.promotions).where(t.promotions.c.id == str(e.originator_id))
               .values(updated_at=utc(e.timestamp), position=position, **values))


@projects(Promotion.ReminderRecorded)
def _reminded(db: Db, t: DomainTables, e: Promotion.ReminderRecorded, position: int) -> None:
    row = _promotion(db, t, e)
    counted = list(row["reminder_sessions"]) + ([e.session_id] if e.counted else [])
    _set(db, t, e, position, reminder_sessions=counted, reminders=row["reminders"] + 1)


@projects(Promotion.DissentRecorded)
def _dissented(db: Db, t: DomainTables, e: Promotion.DissentRecorded, position: int) -> None:
    recorded = {d["member"]: d for d in _promotion(db, t, e)["dissent"]}
    recorded.update({p.member: p.model_dump(mode="json") for p in e.positions})
    _set(db, t, e, position, dissent=[recorded[m] for m in sorted(recorded)])


@projects(Promotion.Ratified)
def _ratified(db: Db, t: DomainTables, e: Promotion.Ratified, position: int) -> None:
    _set(db, t, e, position, status="ratified", decided_by=e.actor)


@projects(Promotion.Rejected)
def _rejected(db: Db, t: DomainTables, e: Promotion.Rejected, position: int) -> None:
    _set(db, t, e, position, status="rejected", decided_by=e.actor)


@projects(Promotion.Withdrawn)
def _withdrawn(db: Db, t: DomainTables, e: Promotion.Withdrawn, position: int) -> None:
    _set(db, t, e, position, status="withdrawn", decided_by=e.actor)


for _cls, _action in ((Promotion.Nominated, "nominate"), (Promotion.ReminderRecorded, "remind"),
                      (Promotion.DissentRecorded, "dissent"), (Promotion.Ratified, "ratify"),
                      (Promotion.Rejected, "reject"), (Promotion.Withdrawn, "withdraw")):
    audits(_cls)(described_as(_action))
