"""The optional embedder: named by MEMHALL_EMBEDDER, never required, never downloaded by the tests."""

from __future__ import annotations

import importlib.util

import pytest

from memhall.domains.errors import InvalidValueError
from memhall.ledgers.recall.embedding_match import ENVIRONMENT, configured


def test_without_an_embedder_named_recall_has_none(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENVIRONMENT, raising=False)

    assert configured() is None


@pytest.mark.skipif(importlib.util.find_spec("model2vec") is not None,
                    reason="model2vec is installed: naming it would fetch a model")
def test_naming_the_model2vec_embedder_without_its_extra_says_how_to_install_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENVIRONMENT, "memhall.ledgers.recall.embedders:model2vec")

    with pytest.raises(InvalidValueError, match=r"pip install 'memhall\[embed\]'"):
        configured()
