"""Encoding a write: anchoring it in time and people, and tagging its emotion.

The default encoder is a deterministic, offline lexicon; an LLM-backed encoder
is a second implementation of `Encoder` that the hall may be given (SPEC §7).
Either way the hall records the `Encoding` with the entry, naming encoder and
version, and a rebuild reads that record back: it never encodes again, so an
LLM is never needed to reproduce the log and never called in tests.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache
from datetime import datetime
from typing import Any, Protocol, TypeVar

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field

from memhall.domains.dynamics.lexicon import (
    CLAUSE_BREAKS,
    INTENSIFIERS,
    NEGATION_SCOPE,
    NEGATORS,
    SIGNIFICANCE_MARKERS,
    Sense,
    cjk_vocabulary,
    lexicon,
)


class Emotion(BaseModel):
    """The seed's emotion tag of one memory."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    valence: float = Field(default=0.0, ge=-1, le=1)
    arousal: float = Field(default=0.0, ge=0, le=1)
    tags: tuple[str, ...] = ()
    significance: float = Field(default=0.0, ge=0, le=1)

    @property
    def priority(self) -> float:
        """Consolidation priority = significance · |valence| · arousal (seed 001, layer 3)."""
        return self.significance * abs(self.valence) * self.arousal

    @property
    def intensity(self) -> float:
        """How strongly felt, 0..1, whichever the sign: what draws a wandering jump."""
        return (abs(self.valence) + self.arousal) / 2


class Encoding(BaseModel):
    """A write made explicit: who said it to whom, when, about whom, and how it felt."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    encoder: str
    encoder_version: str
    text: str
    #: the text anchored in time, speaker and addressee (the seed's "entity completion")
    content: str
    speaker: str
    addressee: str | None
    participants: tuple[str, ...]
    #: tag-form (lower-case) names of the people and things the text is about
    entities: tuple[str, ...]
    occurred_at: AwareDatetime
    emotion: Emotion

    def record(self) -> EncodingRecord:
        # every field was validated on this model already
        return _made(EncodingRecord, encoder=self.encoder, encoder_version=self.encoder_version,
                     content=self.content, entities=self.entities, emotion=self.emotion)


class EncodingRecord(BaseModel):
    """What an entry keeps of its encoding: the encoder's output, named and versioned.

    The inputs (text, speaker, addressees, participants, occurred_at) are the
    entry's own fields; a rebuild reads this record back and never encodes again.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    encoder: str
    encoder_version: str
    #: the text anchored in time and people ("entity completion")
    content: str
    entities: tuple[str, ...] = ()
    emotion: Emotion = Emotion()


M = TypeVar("M", bound=BaseModel)


def _made(model: type[M], **values: Any) -> M:
    """`model` with every field given, set as is: for values already validated on another
    model (pydantic's model_construct, less its walk field by field: half the time)."""
    made = model.__new__(model)
    object.__setattr__(made, "__dict__", values)
    object.__setattr__(made, "__pydantic_fields_set__", set(values))
    object.__setattr__(made, "__pydantic_extra__", None)
    object.__setattr__(made, "__pydantic_private__", None)
    return made


class Encoder(Protocol):
    """What the hall needs from an encoder.

    An LLM-backed implementation completes entities and rates emotion with a
    model; its `version` must name the model and prompt, because the recorded
    Encoding, not a second call, is what a rebuild uses.
    """

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    def encode(self, text: str, *, speaker: str, addressee: str | None,
               participants: Sequence[str], occurred_at: datetime) -> Encoding: ...


_TOKEN = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?|[\u3400-\u9fff]+|[.,;:!?，。；：！？、]")
_MENTION = re.compile(r"[@#]([\w.-]+)")
_NAME = re.compile(r"(?<![.!?。！？]\s)(?<!^)\b([A-Z][a-z]+)\b")
_SUFFIXES = ("s", "es", "d", "ed", "ing", "ly")
_NEGATED_VALENCE = -0.5  # "not happy" is mildly negative, not the opposite of happy
_NEGATED_AROUSAL = 0.5
_NEUTRAL_AROUSAL = 0.1
_NOT_NAMES = frozenset({"I", "The", "A", "An", "It", "We", "You", "He", "She", "They"})


class LexiconEncoder:
    """The deterministic, offline default: a word lexicon with negation and intensifiers."""

    name = "lexicon"
    version = "1"

    def encode(self, text: str, *, speaker: str, addressee: str | None,
               participants: Sequence[str], occurred_at: datetime) -> Encoding:
        clean = " ".join(text.split())
        people = tuple(sorted({p.strip() for p in (speaker, addressee or "", *participants)
                               if p.strip()}))
        values: dict[str, Any] = dict(
            encoder=self.name, encoder_version=self.version, text=clean,
            content=anchored(clean, speaker, addressee, people, occurred_at),
            speaker=speaker, addressee=addressee, participants=people,
            entities=entities(clean, people), occurred_at=occurred_at,
            emotion=appraise(clean),
        )
        # every value is built here from typed arguments; the one check left is pydantic's
        # refusal of a naive time, so only then is the model validated (a third of its cost)
        return Encoding(**values) if occurred_at.utcoffset() is None else _made(Encoding, **values)


def anchored(text: str, speaker: str, addressee: str | None, people: Sequence[str],
             occurred_at: datetime) -> str:
    """"On 2026-03-02 xiaomei told liu (with …): …" — time and people made explicit."""
    told = f"{speaker} told {addressee}" if addressee else f"{speaker} said"
    others = [p for p in people if p not in (speaker, addressee)]
    with_ = f" (with {', '.join(others)})" if others else ""
    return f"On {occurred_at.date().isoformat()} {told}{with_}: {text}"


def entities(text: str, people: Sequence[str]) -> tuple[str, ...]:
    """Participants, @mentions and #topics, and capitalised names inside a sentence."""
    found = {p.lower() for p in people}
    for mention in _MENTION.findall(text):
        found.add(mention.lower())
    for name in _NAME.findall(text):
        if name not in _NOT_NAMES:
            found.add(name.lower())
    return tuple(sorted(found))


_BREAK, _NEGATOR, _INTENSIFIER, _WORD = range(4)
#: token -> (its role, whether it marks significance, its intensifier boost, its sense):
#: filled as tokens are met, so a write costs one lookup per token after the first few
_ROLES: dict[str, tuple[int, bool, float, Sense | None]] = {}


def _role(token: str) -> tuple[int, bool, float, Sense | None]:
    role = _ROLES.get(token)
    if role is None:
        if token in CLAUSE_BREAKS:
            kind = _BREAK
        elif token in NEGATORS or token.endswith("n't"):
            kind = _NEGATOR
        elif token in INTENSIFIERS:
            kind = _INTENSIFIER
        else:
            kind = _WORD
        role = (kind, token in SIGNIFICANCE_MARKERS, INTENSIFIERS.get(token, 1.0),
                sense_of(token) if kind == _WORD else None)
        if len(_ROLES) < 200_000:
            _ROLES[token] = role
    return role


def appraise(text: str) -> Emotion:
    hits: list[Sense] = []
    scope, boost, marked = 0, 1.0, False
    known = _ROLES.get
    for token in tokens(text):
        kind, marks, intensity, sense = known(token) or _role(token)
        marked = marked or marks
        if kind == _BREAK:
            scope, boost = 0, 1.0
        elif kind == _NEGATOR:
            scope = NEGATION_SCOPE
        elif kind == _INTENSIFIER:
            boost = intensity
            continue  # an intensifier shades only the word right after it
        else:
            if sense is not None:
                hits.append(_shaded(sense, boost, negated=scope > 0))
            if scope:
                scope -= 1
        boost = 1.0
    exclaimed = 0.1 * min(2, text.count("!") + text.count("！"))
    if not hits:
        valence, arousal = 0.0, _NEUTRAL_AROUSAL + exclaimed
    else:
        valence = sum(h.valence for h in hits) / len(hits)
        arousal = sum(h.arousal for h in hits) / len(hits) + exclaimed
    arousal = _clamp(arousal, 0.0, 1.0)
    significance = 0.2 + 0.3 * abs(valence) + 0.3 * arousal + (0.2 if marked else 0.0)
    # each value a float (the bounds are) clamped into its field's range and rounded, the tags
    # a sorted tuple of str: what Emotion's validation checks, so it is made as is (its validation
    # was a sixth of an appraisal's time)
    return _made(Emotion, valence=round(_clamp(valence, -1.0, 1.0), 3), arousal=round(arousal, 3),
                 tags=tuple(sorted({h.tag for h in hits if h.tag})),
                 significance=round(_clamp(significance, 0.0, 1.0), 3))


def _shaded(sense: Sense, boost: float, *, negated: bool) -> Sense:
    valence, arousal = sense.valence * boost, sense.arousal * boost
    if negated:
        return Sense(valence * _NEGATED_VALENCE, arousal * _NEGATED_AROUSAL, "")
    return Sense(_clamp(valence, -1, 1), _clamp(arousal, 0, 1), sense.tag)


@lru_cache(maxsize=65_536)
def sense_of(token: str) -> Sense | None:
    """A word's sense (through its suffixes); memoized, as everyday words repeat endlessly."""
    table = lexicon()
    if token in table:
        return table[token]
    for suffix in _SUFFIXES:
        stem = token[: -len(suffix)]
        if token.endswith(suffix) and len(stem) >= 3 and stem in table:
            return table[stem]
    return None


def tokens(text: str) -> list[str]:
    """Lower-case words; Chinese runs cut by longest match against the lexicon."""
    if text.isascii():  # most writes: the same tokens, found in the lower-cased text at once
        return _TOKEN.findall(text.lower())
    out: list[str] = []
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token.isascii():
            out.append(token.lower())
        else:
            out.extend(_cut(token))
    return out


def _cut(run: str) -> list[str]:
    vocabulary, longest = cjk_vocabulary()
    pieces, i = [], 0
    while i < len(run):
        for size in range(min(longest, len(run) - i), 0, -1):
            if size == 1 or run[i:i + size] in vocabulary:
                pieces.append(run[i:i + size])
                i += size
                break
    return pieces


def _clamp(value: float, low: float, high: float) -> float:
    return max(low, min(high, value))
