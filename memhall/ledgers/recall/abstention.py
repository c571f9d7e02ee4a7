"""Saying "I don't know": recall declines rather than hand out the least irrelevant items.

A candidate *covers* the query by the share of the query's words it holds
(by stem), each word weighed by its idf: holding the one rare word of a
question counts more than holding three common ones. When no relevant
candidate covers at least FLOOR of the query, the answer is "no memory of
that". When the query attributes something to a person ("did codex say …")
and none of the candidates that person said or did covers it, the answer is
"no memory of codex saying that" — however well other people's words match.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

from memhall.governance import fulltext
from memhall.ledgers.recall.fusion import Scored
from memhall.ledgers.recall.pool import Reader
from memhall.ledgers.recall.query import Query

FLOOR = 0.15
#: the best relevant candidates whose coverage is measured
CHECKED = 20


@dataclass(frozen=True)
class Verdict:
    abstained: bool
    #: what recall says instead of items ("no memory of that"), or None
    answer: str | None = None
    #: why, for --explain
    reason: str = ""
    #: id -> coverage of the query, for the candidates checked
    coverage: dict[str, float] = field(default_factory=dict)


def judge(reader: Reader, query: Query, ranked: Sequence[Scored]) -> Verdict:
    relevant = [s for s in ranked if s.relevant]
    person = query.attributed_to
    if person is not None:
        checked = [s for s in relevant if s.candidate.by(person)][:CHECKED]
    else:
        checked = relevant[:CHECKED]
    if not query.about:  # only tags asked for: carrying them is the relevance
        return Verdict(abstained=not relevant, answer=None if relevant else "no memory of that",
                       reason="" if relevant else "nothing carries the tags asked for")
    weights = _idf(reader, query.about)
    total = sum(weights.values()) or 1.0
    coverage = {}
    for s in checked:
        held = fulltext.stems(s.candidate.body)
        coverage[s.id] = round(sum(w for t, w in weights.items() if fulltext.stem(t) in held) / total, 4)
    best = max(coverage.values(), default=0.0)
    if best >= FLOOR:
        return Verdict(False, coverage=coverage)
    if person is not None:
        why = (f"none of the {len(checked)} relevant memories by {person} covers {FLOOR:.0%} of the query"
               if checked else f"no relevant memory is by {person}")
        return Verdict(True, f"no memory of {person} saying that", why, coverage)
    why = (f"the best of {len(checked)} relevant memories covers {best:.0%} of the query "
           f"(floor {FLOOR:.0%})" if checked else "nothing relevant")
    return Verdict(True, "no memory of that", why, coverage)


def _idf(reader: Reader, words: Sequence[str]) -> dict[str, float]:
    counts = reader.counts(words)
    total = reader.total
    return {w: math.log(1 + (total + 1) / (1 + counts.get(w, 0))) for w in words}
