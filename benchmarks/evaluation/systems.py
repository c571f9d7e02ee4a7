"""The recall systems under test: name -> callable(context, question) -> Answer.

A new recall function (one per channel, or the rebuilt fused recall) is one
more line in SYSTEMS. A system returns entry ids best first (at most TOP are
scored) and, if it can say "no memory of that", whether it abstained.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from memhall.domains.entry import Tags
from memhall.governance import fulltext
from memhall.ledgers.recall import (
    active_intent,
    entity_neighborhood,
    lexical_match,
    portrait_evidence,
    recent_event,
    relationship_evidence,
)
from memhall.ledgers.recall.gather import gather
from memhall.ledgers.recall.observer import MAX_TOKENS, recall
from memhall.ledgers.recall.pool import Reader, position
from memhall.ledgers.recall.query import Query

from .datasets import Question
from .ingest import DOMAIN, Context, principal

TOP = 10


@dataclass(frozen=True)
class Answer:
    ids: list[str]
    #: None: this system cannot abstain (it always returns something)
    abstained: bool | None = None


System = Callable[[Context, Question], Answer]


def bm25(context: Context, question: Question) -> Answer:
    """Plain BM25 (bm25s, English stop words, Snowball English stemmer) over
    the same text memhall indexes: each entry's text and tags."""
    index = context.cache.get("bm25")
    if index is None:
        index = context.cache["bm25"] = _Bm25(context.documents)
    ids = index.top(question.text, TOP)
    return Answer(ids, abstained=not ids)


def fts(context: Context, question: Question) -> Answer:
    """memhall's full-text index over every entry (no observer), any word of the query
    (stop words out), as `search` ranks them (FTS5 porter BM25 on SQLite)."""
    store = context.hall.store
    with store.read() as conn:
        hits = fulltext.match(conn, context.stream.tables, store.dialect,
                              fulltext.terms_of(question.text), any_word=True, limit=TOP)
    ids = [i for i, _ in hits]
    return Answer(ids, abstained=not ids)


def fused(context: Context, question: Question) -> Answer:
    """`memhall recall` as the asking observer, recording nothing: every channel fused,
    the dynamics in, abstention on."""
    done = recall(context.hall, principal(question.observer), DOMAIN, question.text, max_items=TOP,
                  max_tokens=MAX_TOKENS, record=False, as_of=None)
    return Answer([i.id for i in done.items], abstained=done.abstained)


def fused_without_dynamics(context: Context, question: Question) -> Answer:
    """`fused` with the memory dynamics left out of the order (they must not cost R@5)."""
    done = recall(context.hall, principal(question.observer), DOMAIN, question.text, max_items=TOP,
                  max_tokens=MAX_TOKENS, record=False, with_dynamics=False)
    return Answer([i.id for i in done.items], abstained=done.abstained)


def fused_every_word(context: Context, question: Question) -> Answer:
    """`fused` matching on every word of the query: the lexical channel's cut of common
    words by document frequency left out (the baseline that cut is measured against)."""
    budget = lexical_match.POSTINGS
    lexical_match.POSTINGS = 1 << 62
    try:
        return fused(context, question)
    finally:
        lexical_match.POSTINGS = budget


def channel(name: str) -> System:
    """One channel alone, as the asking observer sees it: its own order, no fusion."""
    def alone(context: Context, question: Question) -> Answer:
        store = context.hall.store
        observer = principal(question.observer)
        with store.read() as conn:
            whole = observer == "maki"  # the ratify owner holds the whole domain by role
            reader = Reader(conn, context.stream, store.dialect, observer, whole, position(conn, context.stream))
            pool = gather(reader, Query.of(question.text, observer, Tags()))
        return Answer([i for i, _ in pool.channels.get(name, [])][:TOP])
    alone.__doc__ = f"the {name} channel alone"
    return alone


SYSTEMS: dict[str, System] = {
    "bm25": bm25,
    "fts": fts,
    "fused": fused,
    "fused-dynamics": fused_without_dynamics,
    "fused-every-word": fused_every_word,
    **{c.NAME: channel(c.NAME) for c in (lexical_match, entity_neighborhood, recent_event, active_intent,
                                         relationship_evidence, portrait_evidence)},
}


class _Bm25:
    def __init__(self, documents: dict[str, str]) -> None:
        import bm25s
        import Stemmer

        self._bm25s: Any = bm25s
        self._stemmer = Stemmer.Stemmer("english")
        self._ids = list(documents)
        self._retriever = bm25s.BM25()
        self._retriever.index(self._tokens(list(documents.values())), show_progress=False)

    def _tokens(self, texts: list[str]) -> Any:
        return self._bm25s.tokenize(texts, stopwords="en", stemmer=self._stemmer,
                                    show_progress=False)

    def top(self, text: str, k: int) -> list[str]:
        found, scores = self._retriever.retrieve(self._tokens([text]), k=min(k, len(self._ids)),
                                                 show_progress=False)
        return [self._ids[int(i)] for i, s in zip(found[0], scores[0]) if s > 0]
