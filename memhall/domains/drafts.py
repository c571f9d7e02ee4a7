"""What a writer asks to record (`EntryDraft`, its tags and provenance), validated into one
clear line per problem before anything is decided or stored (`draft`, `one_line`)."""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from memhall.domains.errors import InvalidValueError
from memhall.domains.values import (
    DEFAULT_IMPLANTED_CONFIDENCE,
    INITIAL_CONFIDENCE,
    Kind,
    Layer,
    SourceKind,
    normalized_text,
    principal_name,
    text_problem,
)


def _storable(value: Any) -> Any:
    """Every string in a draft, however deeply nested, must be storable text."""
    if isinstance(value, str):
        problem = text_problem(value)
        if problem is not None:
            raise ValueError(problem)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _storable(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            _storable(key)
            _storable(item)
    return value


class Tags(BaseModel):
    """Entity tags: the nodes an entry connects (SPEC §5, §7)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    people: tuple[str, ...] = ()
    places: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()

    @field_validator("people", "places", "topics", mode="before")
    @classmethod
    def _storable(cls, values: Any) -> Any:
        return _storable(values)

    @field_validator("people", "places", "topics")
    @classmethod
    def _clean(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted({v.strip().lower() for v in values if v.strip()}))

    def all(self) -> tuple[str, ...]:
        return self.people + self.places + self.topics


class Provenance(BaseModel):
    """Where a memory came from: who saw it, who said it, what backs it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    source_kind: SourceKind = SourceKind.FIRSTHAND
    source_agent_id: str | None = None
    evidence_refs: tuple[str, ...] = ()
    claim_root_id: str | None = None

    @field_validator("source_agent_id", "evidence_refs", "claim_root_id", mode="before")
    @classmethod
    def _storable(cls, value: Any) -> Any:
        return _storable(value)

    @model_validator(mode="after")
    def _hearsay_names_its_source(self) -> Provenance:
        if self.source_kind is SourceKind.HEARSAY and not self.source_agent_id:
            raise ValueError("hearsay needs a source agent (--source-agent)")
        if self.source_kind is not SourceKind.HEARSAY and self.source_agent_id:
            raise ValueError(
                f"a source agent is only allowed for hearsay, not {self.source_kind.value}"
            )
        return self


#: the longest tag a draft may carry: a topic names a thread, which is a key (thread names hold 128)
TAG_CHARS = 128
#: the years a memory's time may fall in (as the CLI's --at): a window reaching below year 1
#: would not be a date
FIRST_YEAR, LAST_YEAR = 1900, 9000


def foreign_owner(thread: str | None, actor: str, hearsay_from: str | None = None) -> str | None:
    """Whose own thread (`@NAME`, where NAME's entries with no thread or topic go) `thread`
    is, when NAME is neither the writer nor the one its entry is hearsay from: an entry in
    another's own thread would read as their state at handoff. Else None."""
    if thread is None or not thread.startswith("@"):
        return None
    owner = thread[1:]
    return None if owner in (actor, hearsay_from) else owner


class EntryDraft(BaseModel):
    """What a caller asks to write, validated at the edge before anything is stored."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    layer: Layer = Layer.L1
    kind: Kind = Kind.EPISODE
    text: str
    interpretation: str | None = None
    tags: Tags = Field(default_factory=Tags)
    provenance: Provenance = Field(default_factory=Provenance)
    confidence: int | None = Field(default=None, ge=0, le=100)
    #: a memhall session's id, or a label of one's own (an imported conversation's): a key, so short
    session_id: str | None = Field(default=None, min_length=1, max_length=128)
    pending_requests: tuple[str, ...] = ()
    #: ids this entry points to (a wrap-up's open loops, related entries)
    pointers: tuple[str, ...] = ()
    #: set by a caller that may retry after a crash: the same key is the same write
    idempotency_key: str | None = Field(default=None, min_length=1, max_length=128)
    #: the thread this continues (default: the first topic, else the author's own)
    thread: str | None = Field(default=None, min_length=1, max_length=128)
    #: when it happened or was said (default: when it is recorded; never later)
    occurred_at: datetime | None = None
    #: who it was said or written to, and who else was there: they hold it too
    addressees: tuple[str, ...] = ()
    participants: tuple[str, ...] = ()
    #: with a claim root that already has a claim: this contradicts it (default: supports)
    contradicts: bool = False

    @field_validator("addressees", "participants")
    @classmethod
    def _principals(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted({principal_name(n) for n in names}))

    @field_validator("text", "interpretation", "session_id", "pending_requests", "pointers",
                     "idempotency_key", "thread", mode="before")
    @classmethod
    def _storable(cls, value: Any) -> Any:
        return _storable(value)

    @field_validator("text")
    @classmethod
    def _not_empty(cls, text: str) -> str:
        if not text.strip():
            raise ValueError("text must not be empty")
        return text

    @field_validator("tags")
    @classmethod
    def _names(cls, tags: Tags) -> Tags:
        # on the draft, not on Tags: events an older version logged are read back through Tags
        for kind, values in (("people", tags.people), ("places", tags.places), ("topics", tags.topics)):
            for value in values:
                if len(value) > TAG_CHARS:
                    raise ValueError(f"a tag in {kind} holds at most {TAG_CHARS} characters (a topic names "
                                     f"a thread), not {len(value)}")
        return tags

    @field_validator("occurred_at")
    @classmethod
    def _a_date(cls, moment: datetime | None) -> datetime | None:
        if moment is not None and not FIRST_YEAR <= moment.year <= LAST_YEAR:
            raise ValueError(f"{moment.isoformat()} is out of range (years {FIRST_YEAR} to {LAST_YEAR})")
        return moment

    @field_validator("thread")
    @classmethod
    def _thread_name(cls, thread: str | None) -> str | None:
        if thread is None:
            return None
        name = thread.strip()
        if not name:
            raise ValueError("a thread name must not be blank")
        if name == "@":
            raise ValueError("'@' alone names nobody: @NAME is the thread of NAME's own entries")
        return name

    def initial_confidence(self, implanted: int = DEFAULT_IMPLANTED_CONFIDENCE) -> int:
        if self.confidence is not None:
            return self.confidence
        return INITIAL_CONFIDENCE.get(self.provenance.source_kind, implanted)

    def foreign_thread(self, actor: str) -> str | None:
        """Whose own thread this draft names, if not its writer's (`thread_owner`)."""
        return foreign_owner(self.thread, actor, self.provenance.source_agent_id)

    def dedup_key(self) -> str:
        """Same normalized text, kind and claim root → the same memory (SPEC §2)."""
        root = self.provenance.claim_root_id or ""
        material = "\x1f".join((self.kind.value, root, normalized_text(self.text)))
        return hashlib.sha256(material.encode()).hexdigest()


def draft(**fields: Any) -> EntryDraft:
    """Build a draft, turning pydantic's report into one clear line."""
    return one_line(EntryDraft, (), "entry", **fields)


def tags(**fields: Any) -> Tags:
    """People, places and topics, or one clear line."""
    return one_line(Tags, ("tags",), "tags", **fields)


M = TypeVar("M", bound=BaseModel)


def one_line(model: type[M], under: tuple[str, ...], whole: str, **fields: Any) -> M:
    """`model(**fields)`, or pydantic's first complaint as one clear line (`InvalidValueError`)
    naming the field (after `under`), or `whole` when it is about the whole model."""
    from pydantic import ValidationError

    try:
        return model(**fields)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join([*under, *(str(p) for p in first["loc"])]) or whole
        message = str(first["msg"]).removeprefix("Value error, ")
        raise InvalidValueError(f"invalid {where}: {message}") from None
