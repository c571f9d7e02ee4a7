"""What a materialization hands a seat: ledgers A, B and C, and their digest."""

from __future__ import annotations

import hashlib
import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel, ConfigDict


class Item(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Quote(Item):
    """Ledger A: the human's own words, verbatim; `text` is `source[start:end]`."""

    id: str
    layer: str
    author: str
    text: str
    start: int
    end: int
    elided_start: bool
    elided_end: bool
    tokens: int


class Provenance(Item):
    source_kind: str
    source_agent_id: str | None = None
    evidence_refs: list[str] = []
    claim_root_id: str | None = None
    session_id: str | None = None
    written_at: datetime
    written_position: int


class Fact(Item):
    """Ledger B: one layer-tagged, cited fact."""

    id: str
    layer: str
    kind: str
    text: str
    author: str
    confidence: int
    state: str
    provenance: Provenance
    tokens: int
    #: what a corrected claim is now understood to say (`text` is what was written, since
    #: disproved); None when that is still its text (`recall.understanding`)
    understanding: str | None = None


class Exclusion(Item):
    """Ledger C: a related id that was not materialized, and why."""

    id: str
    layer: str
    kind: str
    reason: str


class Explained(Item):
    """--explain: how one candidate scored and where it landed."""

    id: str
    layer: str
    channels: dict[str, dict[str, float]]
    fused: float
    salience: float
    recency: float
    final: float
    ledger: str
    reason: str


class Spent(Item):
    max_items: int
    max_tokens: int
    quote_tokens: int
    used_tokens: int


class Ledgers(Item):
    domain: str
    seat: str
    task: str
    as_of_position: int
    tags: list[str]
    budget: Spent
    #: False when B holds no L3/L4 item: the seat must not read L2 as knowledge
    knowledge_available: bool
    a: list[Quote]
    b: list[Fact]
    c: list[Exclusion]
    digest: str = ""
    explain: list[Explained] | None = None

    def with_digest(self) -> Ledgers:
        return self.model_copy(update={"digest": digest(self)})


def canonical(payload: Any) -> bytes:
    return json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def digest(ledgers: Ledgers) -> str:
    """sha256 of what was handed over (the explanation is not part of it)."""
    body = ledgers.model_dump(mode="json", exclude={"digest", "explain"})
    return hashlib.sha256(canonical(body)).hexdigest()
