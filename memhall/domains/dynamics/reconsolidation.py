"""Reconsolidation: a recall nudges a memory's retrieval metadata toward the current context.

Only salience, stance and emotional colour move, each by update_strength of the
way toward the context measured on its own scale (so never more than 0.05);
the text and the facts of a memory are not part of what this module can see.
The hall records the nudge in the recall's event and the projection applies it.
"""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from memhall.domains.dynamics.config import ReconsolidationConfig


class RetrievalMeta(BaseModel):
    """What recall may reweigh about a memory, per holder."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    salience: float = Field(default=0.5, ge=0, le=1)
    stance: float = Field(default=0.0, ge=-1, le=1)
    #: the emotional colour: valence and arousal as the holder now feels them
    valence: float = Field(default=0.0, ge=-1, le=1)
    arousal: float = Field(default=0.0, ge=0, le=1)


class Context(BaseModel):
    """Where the current context pulls each field; None leaves the field alone."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    salience: float | None = Field(default=None, ge=0, le=1)
    stance: float | None = Field(default=None, ge=-1, le=1)
    valence: float | None = Field(default=None, ge=-1, le=1)
    arousal: float | None = Field(default=None, ge=0, le=1)


#: the width of each field's scale
_WIDTH = {"salience": 1.0, "stance": 2.0, "valence": 2.0, "arousal": 1.0}


@dataclass(frozen=True)
class Nudge:
    before: RetrievalMeta
    after: RetrievalMeta

    @property
    def changes(self) -> dict[str, float]:
        """The non-zero deltas, field by field: what the recall's event carries."""
        old, new = self.before.model_dump(), self.after.model_dump()
        return {name: new[name] - old[name] for name in _WIDTH if new[name] != old[name]}


def reconsolidate(meta: RetrievalMeta, toward: Context, config: ReconsolidationConfig) -> Nudge:
    current = meta.model_dump()
    moved = dict(current)
    for name, target in toward.model_dump().items():
        if target is not None:
            step = config.update_strength * (target - current[name]) / _WIDTH[name]
            # clamp: float rounding must not let a step exceed the bound it is defined by
            moved[name] = current[name] + max(-config.update_strength, min(config.update_strength, step))
    return Nudge(before=meta, after=RetrievalMeta.model_validate(moved))
