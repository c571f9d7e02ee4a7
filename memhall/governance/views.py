"""What the hall hands back: read models as pydantic views, ready for JSON."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict

from memhall.domains.moments import age, as_utc

__all__ = ["age", "as_utc"]


class View(BaseModel):
    model_config = ConfigDict(frozen=True)


class EntryView(View):
    id: str
    domain: str
    layer: str
    kind: str
    text: str
    interpretation: str | None = None
    author: str
    session_id: str | None = None
    status: str
    state: str
    confidence: int
    source_kind: str
    source_agent_id: str | None = None
    claim_root_id: str | None = None
    evidence_refs: list[str] = []
    people: list[str] = []
    places: list[str] = []
    topics: list[str] = []
    pending_requests: list[str] = []
    pointers: list[str] = []
    superseded_by: str | None = None
    thread: str
    occurred_at: datetime
    created_at: datetime
    updated_at: datetime
    position: int

    @classmethod
    def from_row(cls, domain: str, row: Any) -> EntryView:
        data = dict(row._mapping)
        data.pop("dedup_key", None)
        data.pop("idempotency_key", None)
        data.pop("created_position", None)
        for key in ("occurred_at", "created_at", "updated_at"):
            data[key] = as_utc(data[key])
        return cls(domain=domain, **data)

    @classmethod
    def of(cls, domain: str, row: dict[str, Any]) -> EntryView:
        """From a read-model row as `projection.schema.from_sql` decodes it."""
        data = {k: v for k, v in row.items() if k not in _HIDDEN}
        return cls(domain=domain, **data)


_HIDDEN = ("dedup_key", "idempotency_key", "created_position")


class EventView(View):
    position: int
    at: datetime
    topic: str
    actor: str
    rule: str
    stream_id: str
    version: int
    data: dict[str, Any]


class WriteResult(View):
    entry_id: str
    domain: str
    layer: str
    duplicate_of: str | None = None
    #: True when an idempotency key matched an earlier write: nothing new was written
    replayed: bool = False
    #: the duplicate reinforced the stored claim (another principal, or new evidence refs)
    corroborated: bool = False
    rule: str = ""

    @property
    def duplicate(self) -> bool:
        return self.duplicate_of is not None


class WrapUpResult(View):
    entry_id: str
    session_id: str
    domain: str
    thread: str = ""
    closed_loops: list[str] = []
    opened_loops: list[str] = []
    pointers: list[str] = []
    #: the thread's previous wrap-up(s), superseded by this one
    superseded: list[str] = []
    #: drift (seed 002): the thread's open loops this wrap-up neither points to nor closes
    unmentioned_loops: list[str] = []
    #: pointers naming entries that are no longer active (closed, superseded, retired)
    closed_pointers: list[str] = []
    #: pointers naming no entry of the domain
    unknown_pointers: list[str] = []
    replayed: bool = False


class HandoffView(View):
    domain: str
    as_of: datetime
    session_id: str | None = None
    #: True when the handoff continued the actor's open session instead of opening one
    session_reused: bool = False
    #: the latest L2+ state of each open thread, newest first
    latest: list[EntryView] = []
    #: the newest L1 state of each thread: candidates, never the state
    candidates: list[EntryView] = []
    open_loops: list[EntryView] = []
    pending_nominations: list[dict[str, Any]] = []
    open_requests: list[dict[str, Any]] = []
    #: unresolved contradictions and open questions (SPEC §7), oldest first
    incubation: list[dict[str, Any]] = []

    @property
    def empty(self) -> bool:
        return not (self.latest or self.candidates or self.open_loops or self.pending_nominations or self.open_requests
                    or self.incubation)


class TopicValue(View):
    #: the topic, which is the thread its entries continue
    topic: str
    #: the current value: the thread's latest L2+ state
    entry: EntryView
    #: a newer L1 state of the thread: proposed, not the value
    candidate: EntryView | None = None


class StateView(View):
    domain: str
    topic: str | None = None
    values: list[TopicValue] = []


class SearchView(View):
    domain: str
    query: str
    notice: str = "search results are history, not current state: use `memhall handoff` for where things stand"
    results: list[EntryView] = []


class ShowView(View):
    entry: EntryView
    history: list[EventView]


