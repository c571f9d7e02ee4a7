"""The entity_neighborhood channel: memories sharing entities (people, places, topics)
with the query and with its strongest candidates.

The entities in play are the tags the query names (weight 1) and the tags of
the strongest lexical candidates (weight 1/2: they co-occur with what is
asked), each weighed by how rare it is: an entity on a tenth of the domain
(the speaker of every other turn) says nothing and is dropped. A candidate's
score is the weight of the entities it shares: co-occurrence, never "newest
of this speaker".
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from memhall.governance import fulltext
from memhall.ledgers.recall import lexical_match
from memhall.ledgers.recall.pool import Candidate, Reader
from memhall.ledgers.recall.query import Query

NAME = "entity_neighborhood"
K = 50
#: rows read to find entity neighbours (the full-text index holds the tags too)
SCAN = 200
#: strongest candidates whose entities count as co-occurring
CO_OCCURRING = 3
CO_WEIGHT = 0.5
#: an entity held by more than this share of the domain's entries is no signal (and its
#: posting list was most of a recall's time at 100k entries: 0.25 -> 0.1 took p95 from 339
#: to 132 ms CPU there, with the same ranking on the story)
COMMON = 0.1


def in_play(reader: Reader, query: Query, anchors: Sequence[Candidate]) -> dict[str, float]:
    """Entity -> weight: the query's own (explicit tags, or words that are a tag of a
    candidate) and those of the strongest candidates, times their idf."""
    words = set(query.terms)
    named = set(query.tags.all())
    seen = {t for c in anchors for t in c.tags}
    named |= {t for t in seen if set(fulltext.words_of(t.casefold())) <= words}
    weights = {t: 1.0 for t in named}
    for c in anchors[:CO_OCCURRING]:
        for t in c.tags:
            weights.setdefault(t, CO_WEIGHT)
    if not weights:
        return {}
    total = reader.total
    # counted only as far as COMMON: an entity past it is dropped whatever its count
    counts = reader.counts([w for t in weights for w in fulltext.words_of(t.casefold())],
                           at_most=int(COMMON * total) + 1)
    out: dict[str, float] = {}
    for tag, weight in sorted(weights.items()):
        df = min((counts.get(w, 0) for w in fulltext.words_of(tag.casefold())), default=0)
        if total and df > COMMON * total and tag not in query.tags.all():
            continue
        out[tag] = weight * math.log(1 + total / (1 + df)) if total else weight
    return out


def find(reader: Reader, entities: dict[str, float], k: int = K) -> list[tuple[Candidate, float]]:
    if not entities:
        return []
    words = list(dict.fromkeys(w for t in sorted(entities) for w in fulltext.words_of(t.casefold())))
    # the rarest entities first, within the lexical channel's budget of postings
    hits = fulltext.match(reader.conn, reader.stream.tables, reader.dialect,
                          lexical_match.matched(words, lexical_match.counted(reader, words)), any_word=True,
                          limit=SCAN, holder=reader.holder, at=reader.at)
    # score the scanned rows by their tags alone; build candidates of the best k only
    glimpsed = reader.glimpse([i for i, _ in hits])
    scores = {i: sum(w for t, w in entities.items() if t in tags) for i, (tags, _, _) in glimpsed.items()}
    best = sorted((i for i, s in scores.items() if s > 0),
                  key=lambda i: (-scores[i], -glimpsed[i][1].timestamp(), -glimpsed[i][2]))[:k]
    rows = reader.rows(best)
    return [(rows[i], scores[i]) for i in best if i in rows]
