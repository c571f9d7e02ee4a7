"""Embedders that can be named in MEMHALL_EMBEDDER (none is required, none is imported unless named).

    pip install 'memhall[embed]'
    MEMHALL_EMBEDDER=memhall.ledgers.recall.embedders:model2vec memhall recall "…"

`model2vec` loads a static embedding model (MEMHALL_EMBEDDER_MODEL, default
DEFAULT_MODEL): the model is fetched by model2vec on first use, at the user's
request, never by memhall's tests or install.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Sequence
from typing import Any

from memhall.domains.errors import InvalidValueError

DEFAULT_MODEL = "minishlab/potion-base-8M"
MODEL_ENVIRONMENT = "MEMHALL_EMBEDDER_MODEL"


class StaticEmbedder:
    """A model2vec model behind the `embed(texts)` protocol."""

    def __init__(self, model: Any) -> None:
        self._model = model

    def embed(self, texts: Sequence[str]) -> Sequence[Sequence[float]]:
        return [[float(x) for x in row] for row in self._model.encode(list(texts))]


def model2vec() -> StaticEmbedder:
    try:
        module = importlib.import_module("model2vec")
    except ImportError:
        raise InvalidValueError("the model2vec embedder needs the embed extra: pip install 'memhall[embed]'") \
            from None
    name = os.environ.get(MODEL_ENVIRONMENT, "").strip() or DEFAULT_MODEL
    return StaticEmbedder(module.StaticModel.from_pretrained(name))
