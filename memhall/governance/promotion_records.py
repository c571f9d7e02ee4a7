"""Promotion read models: the promotions table, its projection, the handoff section."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, select

from memhall.governance import waiting
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
    #: who must record a position (the council when it was nominated; [] for stale facts)
    council: list[str] = []
    decided_by: str | None = None
    created_at: datetime

    @property
    def missing(self) -> list[str]:
        """Council members who have not recorded a dissent position."""
        return waiting.missing_members(self.council, self.dissent)

    @property
    def progress(self) -> str:
        return waiting.standing(self.path, self.reminder_sessions, self.dissent, self.council)

    @property
    def summary(self) -> str:
        return waiting.nomination_summary(self.model_dump())


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
