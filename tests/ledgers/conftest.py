"""Ledger fixtures: entries written through the hall, and test-only shortcuts
for what other commands will produce later (L3/L4, belief states)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest
from sqlalchemy import update

from memhall.domains.entry import draft
from memhall.domains.values import Layer
from memhall.governance.hall import Hall
from memhall.governance.tables import tables_for

Write = Callable[..., str]
Promote = Callable[[str, Layer], None]
SetState = Callable[[str, str], None]


@pytest.fixture
def write(hall: Hall) -> Write:
    """Write an entry (L2 by codex unless told) and return its id."""

    def do(text: str, *, actor: str = "codex", domain: str = "company", layer: str = "L2",
           kind: str = "claim", **fields: Any) -> str:
        result = hall.write(actor, domain, draft(text=text, layer=layer, kind=kind, **fields))
        return result.entry_id

    return do


@pytest.fixture
def promote(hall: Hall) -> Promote:
    """Test-only shortcut to L3/L4 until promotion exists: one layer at a time."""

    def do(entry_id: str, to: Layer) -> None:
        with hall.store.write() as session:
            stream = hall.streams.stream("company")
            entry = stream.get(UUID(entry_id))
            while entry.layer.rank < to.rank:
                entry.promote(entry.layer.next(), promotion_id=None, answers={}, actor="maki",
                              rule="test")
            stream.save(session, entry)

    return do


@pytest.fixture
def set_state(hall: Hall) -> SetState:
    """Test-only: belief states other than influencing are not produced by any
    command yet, so the projection's `state` column is set directly."""

    def do(entry_id: str, state: str) -> None:
        entries = tables_for("company").entries
        with hall.store.write() as session:
            session.execute(update(entries).where(entries.c.id == entry_id).values(state=state))

    return do
