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
from memhall.ledgers import fusion, recall

from .datasets import Question
from .ingest import Context

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
    """memhall's full-text channel alone: the words recall.gather would send,
    any-word, as fulltext.match ranks them (FTS5 BM25 on SQLite)."""
    store = context.hall.store
    with store.read() as conn:
        hits = fulltext.match(conn, context.stream.tables, store.dialect,
                              recall.task_words(question.text), any_word=True, limit=TOP)
    ids = [i for i, _ in hits]
    return Answer(ids, abstained=not ids)


def fused(context: Context, question: Question) -> Answer:
    """The recall behind materialize today: gather every channel, fuse, rank."""
    pool = recall.gather(context.hall.store, context.stream, question.text, Tags())
    return Answer([s.id for s in fusion.fuse(pool)[:TOP]])


SYSTEMS: dict[str, System] = {
    "bm25": bm25,
    "fts": fts,
    "fused": fused,
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
