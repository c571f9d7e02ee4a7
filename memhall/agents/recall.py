"""Recall for an agent, for now: the ledgers' relevance channels and fusion, layer-tagged.

One function, `recall`, so the observer-centred recall (SPEC §6: what *this*
agent holds, with its own confidence and salience) can replace it without the
MCP tool changing shape.
"""

from __future__ import annotations

from datetime import datetime

from memhall.domains.entry import Tags
from memhall.domains.errors import InvalidValueError
from memhall.governance.hall import Hall
from memhall.governance.views import View
from memhall.ledgers.fusion import fuse
from memhall.ledgers.recall import RELATED, gather, task_words
from memhall.policies.model import Action

MAX_ITEMS = 50


class RecalledItem(View):
    """One memory as recall found it: its layer always shown, never implied."""

    id: str
    layer: str
    kind: str
    text: str
    author: str
    state: str
    confidence: int
    tags: list[str]
    created_at: datetime
    #: the channels that found it (lexical, entity, claim; recent only adds weight;
    #: every candidate is also ranked by authority, which is not listed)
    found_by: list[str]
    score: float


class Recalled(View):
    domain: str
    query: str
    #: the log position the candidates were read at
    as_of_position: int
    items: list[RecalledItem] = []
    notice: str = ("recall ranks by relevance: it is neither where things stand (get_handoff) "
                   "nor authority; trust each item only as far as its layer")


def recall(hall: Hall, actor: str, domain: str, query: str, *, tags: Tags | None = None,
           max_items: int = 10) -> Recalled:
    """Active entries related to `query` (by its words, its tags or a shared
    claim), best first, at most `max_items`."""
    if not 1 <= max_items <= MAX_ITEMS:
        raise InvalidValueError(f"max_items must be between 1 and {MAX_ITEMS}")
    tags = tags or Tags()
    stream, _ = hall.ask(actor, Action.SEARCH, domain)
    if not task_words(query) and not tags.all():
        raise InvalidValueError("recall needs at least one word or tag to look for")
    pool = gather(hall.store, stream, query, tags)
    # Recency alone says nothing about the query (ledgers' RELATED); retired,
    # superseded and closed entries are history, which search_history serves.
    related = [s for s in fuse(pool) if s.candidate.status == "active" and s.found_by(*RELATED)]
    items = [
        RecalledItem(
            id=s.id, layer=s.candidate.layer, kind=s.candidate.kind, text=s.candidate.text,
            author=s.candidate.author, state=s.candidate.state, confidence=s.candidate.confidence,
            tags=sorted(s.candidate.tags), created_at=s.candidate.created_at,
            found_by=sorted(c for c in s.channels if c != "authority"), score=round(s.final, 6),
        )
        for s in related[:max_items]
    ]
    return Recalled(domain=stream.name, query=query, as_of_position=pool.position, items=items)
