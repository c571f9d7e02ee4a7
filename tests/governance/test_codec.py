"""Stored JSON is orjson's bytes, whether the standard library or orjson wrote it (`projection.codec`)."""

from __future__ import annotations

import json
from datetime import datetime, timezone
from typing import Any

import orjson
from hypothesis import given
from hypothesis import strategies as st

from memhall.domains.session import Session
from memhall.domains.values import Layer
from memhall.governance import fast_handoff
from memhall.governance.mapper import new_mapper
from memhall.governance.projection.codec import stdlib_dumps

#: any text, lone surrogates and control characters included
TEXT = st.text(st.characters(codec=None, exclude_categories=()))
INTS = st.integers(min_value=-(2**63), max_value=2**64 - 1)
SCALARS = st.none() | st.booleans() | INTS | TEXT
FLOATS = st.floats(allow_nan=False, allow_infinity=False)


def values(scalars: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                        | st.dictionaries(TEXT, inner, max_size=4), max_leaves=20)


def encodable(value: Any) -> bool:
    try:
        orjson.dumps(value)
    except orjson.JSONEncodeError:
        return False
    return True


@given(values(SCALARS))
def test_the_standard_library_writes_orjsons_bytes_or_leaves_the_value_to_orjson(value: Any) -> None:
    encoded = stdlib_dumps(value)

    if encodable(value):
        assert encoded == orjson.dumps(value)
    else:
        assert encoded is None  # a lone surrogate: orjson says what is wrong


@given(values(SCALARS | FLOATS))
def test_text_only_decoded_again_decodes_to_orjsons_values(value: Any) -> None:
    encoded = stdlib_dumps(value, floats=True)

    if encodable(value):
        assert encoded is not None
        assert json.loads(encoded) == orjson.loads(orjson.dumps(value))


@given(values(SCALARS | FLOATS))
def test_json_orjson_wrote_decodes_to_the_same_values_by_the_standard_library(value: Any) -> None:
    if encodable(value):
        stored = orjson.dumps(value)

        assert json.loads(stored) == orjson.loads(stored)


def test_what_the_two_could_spell_differently_is_left_to_orjson() -> None:
    nested: Any = 1
    for _ in range(255):
        nested = [nested]

    for value in (1e16, [0.5], {"at": datetime(2026, 12, 1, tzinfo=timezone.utc)}, Layer.L2, 2**64, -(2**63) - 1,
                  {1: "a"}, nested, float("nan")):
        assert stdlib_dumps(value) is None
    assert stdlib_dumps(float("inf"), floats=True) is None


def test_the_session_event_the_standard_library_writes_is_the_mappers() -> None:
    work = Session.open("company", "codex-ü", actor="codex-ü", rule="r\n\"1\"", handed=("a", "b"))
    (event,) = work.collect_events()
    _, _, data = new_mapper().encode(event)

    lean = fast_handoff.session_opened(str(work.id), "company", "codex-ü", "r\n\"1\"", event.timestamp,
                                       ("a", "b"), "d" * 64)

    assert stdlib_dumps(lean.state) == lean.data
    assert list(orjson.loads(lean.data)) == list(orjson.loads(data))
