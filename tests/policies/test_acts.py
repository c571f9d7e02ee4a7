"""An act has exactly one canonical encoding: the bytes a human's signature covers."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhall.domains.errors import InvalidValueError
from memhall.policies.acts import MAX_EXACT_INTEGER, canonical_act

RATIFY = {
    "domain": "company",
    "action": "ratify",
    "resource": "0b6f1c1e-3f7a-4c11-9d7e-1f2a3b4c5d6e",
    "version": 3,
    "actor": "maki",
    "policy": "9f86d081884c",
    "reason": None,
}


def test_an_act_is_sorted_compact_json_with_the_act_tag() -> None:
    assert canonical_act(RATIFY) == (
        b'{"action":"ratify","actor":"maki","domain":"company","memhall":"act-v1",'
        b'"policy":"9f86d081884c","reason":null,"resource":"0b6f1c1e-3f7a-4c11-9d7e-1f2a3b4c5d6e",'
        b'"version":3}'
    )


def test_the_order_fields_are_given_in_does_not_matter() -> None:
    assert canonical_act(dict(reversed(list(RATIFY.items())))) == canonical_act(RATIFY)


def test_strings_are_escaped_as_rfc_8785_writes_them() -> None:
    act = canonical_act({"reason": 'say "no"\\ \n\t\x01\x7f é 漢 \u2028 😀'})

    assert act == '{"memhall":"act-v1","reason":"say \\"no\\"\\\\ \\n\\t\\u0001\x7f é 漢 \u2028 😀"}'.encode()


def test_names_sort_by_utf16_code_units_as_rfc_8785_requires() -> None:
    act = canonical_act({"\U0001f600": 1, "\ufb01": 2})  # code points sort 😀 last, UTF-16 first

    assert act == '{"memhall":"act-v1","😀":1,"ﬁ":2}'.encode()


@pytest.mark.parametrize(
    "fields",
    [
        {"memhall": "act-v2"},
        {"approved": True},
        {"weight": 0.5},
        {"ids": ["a"]},  # type: ignore[dict-item]
        {"big": MAX_EXACT_INTEGER + 1},
        {"bad": "\ud800"},
        {1: "x"},  # type: ignore[dict-item]
    ],
)
def test_what_has_no_single_encoding_is_refused(fields: dict[str, str | int | None]) -> None:
    with pytest.raises(InvalidValueError):
        canonical_act(fields)


unicode = st.characters(exclude_categories=("Cs",))  # every character but lone surrogates
fields_strategy = st.dictionaries(
    st.text(unicode, min_size=1, max_size=8).filter(lambda name: name != "memhall"),
    st.none() | st.integers(-MAX_EXACT_INTEGER, MAX_EXACT_INTEGER) | st.text(unicode, max_size=12),
    max_size=6,
)


@given(fields_strategy)
def test_an_act_reads_back_as_its_fields_plus_the_tag(fields: dict[str, str | int | None]) -> None:
    assert json.loads(canonical_act(fields)) == {**fields, "memhall": "act-v1"}


@given(fields_strategy)
def test_an_act_is_a_fixed_point_of_compact_sorted_json(fields: dict[str, str | int | None]) -> None:
    act = canonical_act(fields)

    if all(ord(c) < 0xD800 for name in fields for c in name):  # there UTF-16 and code-point order agree
        assert json.dumps(json.loads(act), ensure_ascii=False, sort_keys=True, separators=(",", ":")).encode() == act
