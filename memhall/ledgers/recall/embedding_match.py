"""The embedding_match channel: semantic similarity, when an embedder is installed.

An embedder is anything with `embed(texts) -> vectors`; none is required and
memhall downloads no weights. Name one with `MEMHALL_EMBEDDER=module:factory`
(the factory returns the embedder), or pass it to `recall`; the optional extra
`pip install 'memhall[embed]'` makes `memhall.ledgers.recall.embedders:model2vec` one. Without one, the
lexical channel serves alone. There is no vector index yet: the channel scores
the pool the other channels gathered (plus the observer's newest memories), so
it reorders and can rescue a paraphrase the lexical channel ranked low, but it
cannot find what no other channel reached.
"""

from __future__ import annotations

import importlib
import math
import os
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from memhall.domains.errors import InvalidValueError
from memhall.ledgers.recall.pool import Candidate

NAME = "embedding_match"
K = 50
#: below this cosine a candidate is not similar at all
FLOOR = 0.2
ENVIRONMENT = "MEMHALL_EMBEDDER"


@runtime_checkable
class Embedder(Protocol):
    def embed(self, texts: Sequence[str]) -> Sequence[Sequence[float]]: ...


def configured() -> Embedder | None:
    """The embedder `MEMHALL_EMBEDDER` names, or None."""
    spec = os.environ.get(ENVIRONMENT, "").strip()
    if not spec:
        return None
    module, _, attribute = spec.partition(":")
    try:
        factory = getattr(importlib.import_module(module), attribute or "embedder")
    except (ImportError, AttributeError) as error:
        raise InvalidValueError(f"{ENVIRONMENT}={spec}: cannot load the embedder ({error})") from None
    made = factory()
    if not isinstance(made, Embedder):
        raise InvalidValueError(f"{ENVIRONMENT}={spec}: not an embedder (it needs embed(texts))")
    return made


def find(embedder: Embedder, text: str, candidates: Sequence[Candidate],
         k: int = K) -> list[tuple[Candidate, float]]:
    if not candidates:
        return []
    vectors = embedder.embed([text, *(c.body for c in candidates)])
    query, rest = vectors[0], vectors[1:]
    scored = [(c, cosine(query, v)) for c, v in zip(candidates, rest)]
    scored = [(c, s) for c, s in scored if s >= FLOOR]
    scored.sort(key=lambda pair: (-pair[1], -pair[0].occurred_at.timestamp(), -pair[0].created_position))
    return scored[:k]


def cosine(a: Sequence[float], b: Sequence[float]) -> float:
    dot = sum(x * y for x, y in zip(a, b))
    norm = math.sqrt(sum(x * x for x in a)) * math.sqrt(sum(y * y for y in b))
    return dot / norm if norm else 0.0
