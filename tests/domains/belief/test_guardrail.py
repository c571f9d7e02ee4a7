"""Guardrails: a confidence may not exceed what the claim's provenance allows."""

from __future__ import annotations

import pytest

from memhall.domains.belief import check_confidence, initial_confidence, max_confidence
from memhall.domains.errors import GuardrailError, InvalidValueError
from memhall.domains.values import SourceKind

from .examples import claim

FIRST, HEAR, IMPLANTED = SourceKind.FIRSTHAND, SourceKind.HEARSAY, SourceKind.IMPLANTED


def test_the_ceiling_follows_provenance() -> None:
    assert max_confidence(FIRST) == 100
    assert max_confidence(HEAR, 0.5) == 58
    assert max_confidence(HEAR, 0.9) == 75
    assert max_confidence(IMPLANTED, implanted=40) == 40


def test_hearsay_above_its_trust_derived_value_is_refused_with_exit_code_3() -> None:
    with pytest.raises(GuardrailError) as refused:
        check_confidence(100, HEAR, 0.5, source_agent="codex")

    assert str(refused.value) == (
        "refused: hearsay from codex (trust 0.50) may be written with confidence at most 58, "
        "not 100"
    )
    assert refused.value.exit_code == 3


def test_an_explicit_confidence_at_or_below_the_ceiling_is_the_writers_choice() -> None:
    assert check_confidence(58, HEAR, 0.5) == 58
    assert check_confidence(12, HEAR, 0.5) == 12
    assert check_confidence(100, FIRST) == 100


def test_implanted_memories_are_capped_by_policy() -> None:
    with pytest.raises(GuardrailError):
        check_confidence(41, IMPLANTED, implanted=40)


def test_a_confidence_outside_0_to_100_is_invalid_not_refused() -> None:
    with pytest.raises(InvalidValueError):
        check_confidence(101, FIRST)


def test_the_same_rumour_starts_where_each_observers_trust_puts_it() -> None:
    rumour = claim()

    assert [initial_confidence(rumour, t) for t in (0.9, 0.5, 0.2)] == [75, 58, 35]


def test_an_explicit_confidence_is_kept_but_capped_by_the_observers_own_ceiling() -> None:
    rumour = claim(confidence=50)

    assert initial_confidence(rumour, 0.9) == 50
    assert initial_confidence(rumour, 0.2) == 35


def test_firsthand_starts_at_78_and_implanted_at_the_policy_value() -> None:
    assert initial_confidence(claim(source_kind=FIRST)) == 78
    assert initial_confidence(claim(source_kind=IMPLANTED), implanted=44) == 44
