"""The forgetting curve: strength = s0 · exp(−t / stability), stability = base · (1 + reviews · boost)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhall.domains.dynamics.config import ForgettingConfig
from memhall.domains.dynamics.forgetting import retention, retention_of, stability, strength
from tests.domains.dynamics.memories import day, memory

CONFIG = ForgettingConfig(faded_weight=0.5)  # base 7 days, boost 1, threshold 0.2


def test_stability_grows_by_one_base_per_review() -> None:
    assert stability(0, CONFIG) == 7.0
    assert stability(3, CONFIG) == 28.0
    assert stability(2, ForgettingConfig(review_boost=0.5)) == 14.0


def test_after_one_stability_a_memory_keeps_one_over_e() -> None:
    assert strength(1.0, 7.0, 0, CONFIG) == pytest.approx(math.exp(-1))
    assert strength(0.5, 14.0, 1, CONFIG) == pytest.approx(0.5 * math.exp(-1))
    assert strength(1.0, 0.0, 0, CONFIG) == 1.0


def test_age_counts_from_the_last_review_known_at_the_as_of_time() -> None:
    held = retention(day(0), [day(7), day(30)], as_of=day(21), config=CONFIG)

    assert held.reviews == 1  # the review on day 30 was not known on day 21
    assert held.elapsed_days == 14.0
    assert held.stability_days == 14.0
    assert held.strength == pytest.approx(math.exp(-1))
    assert not held.faded and held.weight == 1.0


def test_below_the_threshold_a_memory_only_weighs_less() -> None:
    # 7 · ln 5 ≈ 11.27 days: the threshold 0.2 is crossed between day 11 and day 12
    day_11 = retention(day(0), [], as_of=day(11), config=CONFIG)
    day_12 = retention(day(0), [], as_of=day(12), config=CONFIG)

    assert day_11.strength == pytest.approx(math.exp(-11 / 7))  # 0.2079
    assert (day_11.faded, day_11.weight) == (False, 1.0)
    assert day_12.strength == pytest.approx(math.exp(-12 / 7))  # 0.1801
    assert (day_12.faded, day_12.weight) == (True, 0.5)


def test_a_memory_reviewed_daily_outlives_one_never_used() -> None:
    daily = memory("daily", reviews=tuple(day(n) for n in range(1, 31)))
    unused = memory("unused")

    assert retention_of(daily, day(40), CONFIG).weight == 1.0
    assert retention_of(unused, day(40), CONFIG).weight == 0.5
    assert retention_of(daily, day(40), CONFIG).strength > 0.9


positive = st.floats(min_value=1e-6, max_value=1.0)
days = st.floats(min_value=0, max_value=1e7)
configs = st.builds(ForgettingConfig, base_stability_days=st.floats(min_value=1e-3, max_value=1e4),
                    review_boost=st.floats(min_value=0, max_value=10))


@given(positive, days, st.integers(min_value=0, max_value=10_000), configs)
def test_strength_stays_above_zero_and_never_exceeds_its_start(
    s0: float, elapsed: float, reviews: int, config: ForgettingConfig
) -> None:
    assert 0 < strength(s0, elapsed, reviews, config) <= s0


@given(positive, days, st.integers(min_value=0, max_value=1000),
       st.integers(min_value=1, max_value=1000), configs)
def test_more_reviews_never_make_a_memory_weaker(
    s0: float, elapsed: float, reviews: int, more: int, config: ForgettingConfig
) -> None:
    assert strength(s0, elapsed, reviews, config) <= strength(s0, elapsed, reviews + more, config)


@given(positive, days, days, st.integers(min_value=0, max_value=1000), configs)
def test_more_time_never_makes_a_memory_stronger(
    s0: float, elapsed: float, later: float, reviews: int, config: ForgettingConfig
) -> None:
    assert strength(s0, elapsed + later, reviews, config) <= strength(s0, elapsed, reviews, config)
