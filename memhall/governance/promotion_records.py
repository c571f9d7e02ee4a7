"""Promotion read models: the promotions table, its projection, the handoff section."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, select

from memhall.domains.promotion import CANON_REMINDERS
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
