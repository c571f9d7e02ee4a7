"""The lexical_match channel: BM25 over the observer's held entries, stemmed, any word.

SQLite FTS5 with the porter tokenizer, or PostgreSQL's `english` configuration
with the query's lexemes OR-ed (governance.fulltext holds the one analyser
`search` uses too). The channel that says *what* a memory is about: the fusion
lets it lead.

A match costs in proportion to the postings of its words (FTS5 scores every
row that holds one), and a common word has the longest list and the smallest
idf: at 100k entries the OR of a question's common words ("going", "new") was
most of a recall's time while moving little of its ranking. So the words
matched on are cut by document frequency (`matched`): rarest first, within a
budget of postings; the rarest word some entry holds is always kept, so a
query of common words still finds what holds them. Below the budget nothing
is cut: a domain of a few thousand entries ranks exactly as plain BM25 would.
(Cutting every word on more than 5 % of the domain while a rarer one is there
was tried too: it cost the multi-agent story 7 points of R@5 at 414 entries.)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from memhall.governance import fulltext
from memhall.ledgers.recall.pool import Candidate, Reader
from memhall.ledgers.recall.query import Query

NAME = "lexical_match"
K = 100
#: at most this many postings matched per query, rarest words first (about 3 µs each on SQLite)
POSTINGS = 1_000
#: words are counted up to this many times the budget: enough to tell the rarest of
#: several common ones apart, without reading the whole posting list of each
COUNTED = 4


def find(reader: Reader, query: Query, k: int = K) -> list[tuple[Candidate, float]]:
    words = list(query.terms) + [t for t in query.tags.all() if t not in query.terms]
    hits = fulltext.match(reader.conn, reader.stream.tables, reader.dialect,
                          matched(words, counted(reader, words)), any_word=True,
                          limit=k, holder=reader.holder, at=reader.at)
    rows = reader.rows([i for i, _ in hits])
    return [(rows[i], score) for i, score in hits if i in rows]


def counted(reader: Reader, words: Sequence[str]) -> dict[str, int]:
    """Each word's document frequency, as far as `matched` needs it."""
    return reader.counts(words, at_most=min(COUNTED * POSTINGS, reader.total + 1))


def matched(words: Sequence[str], counts: Mapping[str, int], postings: int | None = None) -> list[str]:
    """The words worth matching on, in their order: rarest first while their postings
    stay within the budget, and always the rarest word some entry holds. A word no entry
    holds costs nothing and is kept (the index's tokenizer may see it differently), but
    it does not stand in for the rarest."""
    budget = POSTINGS if postings is None else postings
    unique = list(dict.fromkeys(words))
    kept: set[str] = set()
    spent, found = 0, False
    for word in sorted(unique, key=lambda w: counts.get(w, 0)):
        df = counts.get(word, 0)
        if found and spent + df > budget:
            break  # rarest first: every later word is over the budget too
        kept.add(word)
        spent, found = spent + df, found or df > 0
    return [w for w in unique if w in kept]
