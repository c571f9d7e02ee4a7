"""The lexical_match channel: BM25 over the observer's held entries, stemmed, any word.

SQLite FTS5 with the porter tokenizer, or PostgreSQL's `english` configuration
with the query's lexemes OR-ed (governance.fulltext holds the one analyser
`search` uses too). The channel that says *what* a memory is about: the fusion
lets it lead.
"""

from __future__ import annotations

from memhall.governance import fulltext
from memhall.ledgers.recall.pool import Candidate, Reader
from memhall.ledgers.recall.query import Query

NAME = "lexical_match"
K = 100


def find(reader: Reader, query: Query, k: int = K) -> list[tuple[Candidate, float]]:
    words = list(query.terms) + [t for t in query.tags.all() if t not in query.terms]
    hits = fulltext.match(reader.conn, reader.stream.tables, reader.dialect, words, any_word=True,
                          limit=k, holder=reader.holder, at=reader.at)
    rows = reader.rows([i for i, _ in hits])
    return [(rows[i], score) for i, score in hits if i in rows]
