"""Reconsolidation: a recall nudges retrieval metadata toward the context, by 0.05 at most."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memhall.domains.dynamics.config import ReconsolidationConfig
from memhall.domains.dynamics.reconsolidation import Context, RetrievalMeta, reconsolidate

CONFIG = ReconsolidationConfig()


def test_each_field_moves_a_twentieth_of_its_scale_toward_the_context() -> None:
    meta = RetrievalMeta(salience=0.5, stance=0.0, valence=-1.0, arousal=0.2)

    nudge = reconsolidate(meta, Context(salience=1.0, stance=1.0, valence=1.0), CONFIG)

    assert nudge.after.salience == pytest.approx(0.525)  # 0.05 · (1 − 0.5) / 1
    assert nudge.after.stance == pytest.approx(0.025)  # 0.05 · (1 − 0) / 2
    assert nudge.after.valence == pytest.approx(-0.95)  # 0.05 · (1 + 1) / 2: the largest step
    assert nudge.after.arousal == 0.2  # no pull, no change
    assert set(nudge.changes) == {"salience", "stance", "valence"}


def test_a_memory_already_in_tune_with_the_context_does_not_move() -> None:
    meta = RetrievalMeta(salience=0.7)

    assert reconsolidate(meta, Context(salience=0.7), CONFIG).changes == {}


scale = st.floats(0, 1)
signed = st.floats(-1, 1)
metas = st.builds(RetrievalMeta, salience=scale, stance=signed, valence=signed, arousal=scale)
contexts = st.builds(Context, salience=st.none() | scale, stance=st.none() | signed,
                     valence=st.none() | signed, arousal=st.none() | scale)


@given(metas, contexts, st.floats(0, 0.05))
def test_no_recall_moves_any_field_by_more_than_005_nor_past_the_context(
    meta: RetrievalMeta, context: Context, strength: float
) -> None:
    nudge = reconsolidate(meta, context, ReconsolidationConfig(update_strength=strength))

    before, after, target = meta.model_dump(), nudge.after.model_dump(), context.model_dump()
    for name, delta in nudge.changes.items():
        assert abs(delta) <= 0.05 + 1e-12  # the stored floats differ by at most 0.05 up to rounding
        assert min(before[name], target[name]) <= after[name] <= max(before[name], target[name])
