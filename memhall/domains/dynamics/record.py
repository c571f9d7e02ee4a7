"""MemoryRecord: the snapshot of one memory that every dynamic reads (filled by the hall)."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, field_validator

from memhall.domains.dynamics.encoding import Emotion
from memhall.domains.values import BeliefState, Kind, Status

#: `source` of the memories the dynamics themselves proposed; walks and
#: consolidation read around them, so that re-running proposes nothing new.
WANDERING = "wandering"
CONSOLIDATION = "consolidation"


class MemoryRecord(BaseModel):
    """One memory as the hall's read models know it at the as-of time.

    The hall fills it from an entry: `people`/`places`/`topics` from its tags,
    `emotion` from its recorded encoding, `reviews` from the recall,
    materialize and handoff events that handed it out, `causes` from the
    entries it was inferred from, `contradicts` from the evidence graph.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    text: str
    occurred_at: AwareDatetime
    kind: Kind = Kind.EPISODE
    people: tuple[str, ...] = ()
    places: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    emotion: Emotion = Emotion()
    confidence: int = Field(default=78, ge=0, le=100)
    #: the observer's trust in the source, 0..1 (1 until source trust exists)
    trust: float = Field(default=1.0, ge=0, le=1)
    #: who it came from: a principal, or a dynamic (`wandering`, `consolidation`)
    source: str = ""
    state: BeliefState = BeliefState.INFLUENCING
    status: Status = Status.ACTIVE
    reviews: tuple[AwareDatetime, ...] = ()
    causes: tuple[str, ...] = ()
    contradicts: tuple[str, ...] = ()
    #: a question left open (a pending memory request, an open loop asked as a question)
    open_question: bool = False

    @field_validator("people", "places", "topics")
    @classmethod
    def _tag_form(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        """The same normal form as an entry's tags, so nodes match across records."""
        return tuple(sorted({v.strip().lower() for v in values if v.strip()}))

    @property
    def proposed_by_a_dynamic(self) -> bool:
        return self.source in (WANDERING, CONSOLIDATION)


M = TypeVar("M", bound=BaseModel)


def _defaults(model: type[BaseModel]) -> dict[str, Any]:
    return {name: field.default for name, field in model.model_fields.items() if not field.is_required()}


_DEFAULTS: dict[type[BaseModel], dict[str, Any]] = {MemoryRecord: _defaults(MemoryRecord),
                                                    Emotion: _defaults(Emotion)}


def _built(model: type[M], values: dict[str, Any]) -> M:
    """pydantic's model_construct, less its per-field bookkeeping: no validation, for values
    already in normal form (the hall's own read models); a walk builds one per memory."""
    made = model.__new__(model)
    object.__setattr__(made, "__dict__", {**_DEFAULTS[model], **values})
    object.__setattr__(made, "__pydantic_fields_set__", set(values))
    object.__setattr__(made, "__pydantic_extra__", None)
    object.__setattr__(made, "__pydantic_private__", None)
    return made


def constructed(**values: Any) -> MemoryRecord:
    return _built(MemoryRecord, values)


def felt(valence: float, arousal: float, tags: tuple[str, ...] = (), significance: float = 0.0) -> Emotion:
    return _built(Emotion, {"valence": valence, "arousal": arousal, "tags": tags, "significance": significance})
