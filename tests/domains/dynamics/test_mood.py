"""Mood: a weighted mean of recent emotions that reweights retrieval slightly."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhall.domains.dynamics.config import MoodConfig
from memhall.domains.dynamics.encoding import Emotion
from memhall.domains.dynamics.mood import Mood, is_calm, mood, mood_factor
from tests.domains.dynamics.memories import day, memory


def test_the_newest_memories_weigh_most() -> None:
    records = [memory("new", at=2, valence=0.8, arousal=0.6),
               memory("old", at=1, valence=-0.4, arousal=0.1),
               memory("future", at=9, valence=-1.0, arousal=1.0)]

    felt = mood("maki", records, day(3), MoodConfig(decay=0.5))

    # weights 1 and 0.5: (0.8 − 0.2) / 1.5 and (0.6 + 0.05) / 1.5; the future is not yet felt
    assert felt.valence == pytest.approx(0.4)
    assert felt.arousal == pytest.approx(0.65 / 1.5)
    assert felt.count == 2


def test_only_the_window_counts_and_proposals_are_not_experiences() -> None:
    records = [memory("a", at=1, valence=-1.0), memory("b", at=2, valence=0.5),
               memory("insight", at=3, valence=1.0, source="wandering")]

    felt = mood("maki", records, day(4), MoodConfig(window=1))

    assert (felt.valence, felt.count) == (0.5, 1)


def test_nothing_remembered_is_a_neutral_mood() -> None:
    assert mood("maki", [], day(0), MoodConfig()) == Mood("maki", 0.0, 0.0, 0)


def test_a_memory_that_matches_the_mood_weighs_a_little_more() -> None:
    low = Mood("maki", valence=-0.5, arousal=0.2, count=3)

    assert mood_factor(low, Emotion(valence=-0.8), MoodConfig()) == pytest.approx(1.04)
    assert mood_factor(low, Emotion(valence=0.8), MoodConfig()) == pytest.approx(0.96)
    assert mood_factor(low, Emotion(), MoodConfig()) == 1.0


def test_a_calm_mood_may_wander_and_an_agitated_one_not() -> None:
    assert is_calm(Mood("maki", 0.0, 0.3, 5), MoodConfig())
    assert not is_calm(Mood("maki", 0.0, 0.31, 5), MoodConfig())


unit = st.floats(-1, 1)


@given(unit, st.floats(0, 1), unit, st.floats(0, 0.5))
def test_mood_never_moves_a_weight_beyond_its_bound(valence: float, arousal: float,
                                                     memory_valence: float, bound: float) -> None:
    factor = mood_factor(Mood("maki", valence, arousal, 1), Emotion(valence=memory_valence),
                         MoodConfig(max_reweight=bound))

    assert 1 - bound <= factor <= 1 + bound
