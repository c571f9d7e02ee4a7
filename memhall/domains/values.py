"""Value objects of the model: layers, kinds, provenance, belief states, names."""

from __future__ import annotations

import re
import unicodedata
from enum import Enum

from memhall.domains.errors import InvalidValueError


class Layer(str, Enum):
    """Authority layers. Each answers one kind of question (SPEC §2)."""

    L1 = "L1"  # working memory of a session: candidates
    L2 = "L2"  # the hall: what was recorded, by whom, with what evidence
    L3 = "L3"  # verified knowledge
    L4 = "L4"  # ratified canon

    @property
    def rank(self) -> int:
        return int(self.value[1])

    def next(self) -> Layer | None:
        return _LAYERS[self.rank] if self.rank < 4 else None

    def previous(self) -> Layer | None:
        return _LAYERS[self.rank - 2] if self.rank > 1 else None

    @classmethod
    def parse(cls, value: str) -> Layer:
        try:
            return cls(value.strip().upper())
        except ValueError:
            raise InvalidValueError(
                f"unknown layer {value!r} (expected one of L1, L2, L3, L4)"
            ) from None


_LAYERS = (Layer.L1, Layer.L2, Layer.L3, Layer.L4)


class Kind(str, Enum):
    STATE = "state"
    WRAP_UP = "wrap-up"
    HANDOFF = "handoff"
    OPEN_LOOP = "open-loop"
    EPISODE = "episode"
    CLAIM = "claim"
    LESSON = "lesson"
    DECISION = "decision"  # only at L4, through ratification (a forbid rule refuses writes)
    QUOTE = "quote"
    RESULT = "result"  # work done: needs evidence

    @classmethod
    def parse(cls, value: str) -> Kind:
        try:
            return cls(value.strip().lower())
        except ValueError:
            names = ", ".join(k.value for k in cls)
            raise InvalidValueError(
                f"unknown kind {value!r} (expected one of {names})"
            ) from None


#: The kinds handoff reads, latest first (SPEC §2: "handoff uses latest, not search").
HANDOFF_KINDS = (Kind.STATE, Kind.WRAP_UP, Kind.HANDOFF)


class SourceKind(str, Enum):
    FIRSTHAND = "firsthand"
    HEARSAY = "hearsay"
    IMPLANTED = "implanted"

    @classmethod
    def parse(cls, value: str) -> SourceKind:
        try:
            return cls(value.strip().lower())
        except ValueError:
            raise InvalidValueError(
                f"unknown source kind {value!r} (expected firsthand, hearsay or implanted)"
            ) from None


class BeliefState(str, Enum):
    INFLUENCING = "influencing"
    PAST = "past"
    DOUBTFUL = "doubtful"
    ANOMALOUS = "anomalous"
    CORRECTED = "corrected"


class Status(str, Enum):
    """Where an entry stands in the hall, apart from its belief state."""

    ACTIVE = "active"
    SUPERSEDED = "superseded"
    RETIRED = "retired"
    CLOSED = "closed"  # an open loop that was closed


class PrincipalType(str, Enum):
    AGENT = "agent"
    HUMAN = "human"


#: Initial confidence by provenance (SPEC §5); implanted comes from configuration.
INITIAL_CONFIDENCE = {SourceKind.FIRSTHAND: 78, SourceKind.HEARSAY: 58}
DEFAULT_IMPLANTED_CONFIDENCE = 50

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,30}$")
_PRINCIPAL = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$")


def domain_name(value: str) -> str:
    """A domain name doubles as part of table names, so it is strictly a slug."""
    name = (value or "").strip()
    if not name:
        raise InvalidValueError("domain must not be empty")
    if not _NAME.match(name):
        raise InvalidValueError(
            f"invalid domain {value!r}: use 1-31 lowercase letters, digits or '_', "
            "starting with a letter"
        )
    return name


def principal_name(value: str | None) -> str:
    name = (value or "").strip()
    if not name:
        raise InvalidValueError("no acting principal: pass --as NAME or set MEMHALL_AGENT")
    if not _PRINCIPAL.match(name):
        raise InvalidValueError(f"invalid principal name {value!r}")
    return name


def text_problem(value: str) -> str | None:
    """Why `value` cannot be stored as text, or None. NUL is refused everywhere
    (PostgreSQL cannot store it, so SQLite must not either); a lone surrogate is
    what Python makes of bytes that were not UTF-8."""
    if "\x00" in value:
        return "contains a NUL character"
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return "is not valid UTF-8"
    return None


def scrubbed(value: str) -> str:
    """`value` with each character text cannot hold (a NUL, a lone surrogate) replaced by
    U+FFFD: for text nobody typed at memhall (an agent's reply, a transcript, a file it wrote),
    which is kept rather than refused."""
    if text_problem(value) is None:
        return value
    return "".join("\ufffd" if c == "\x00" or "\ud800" <= c <= "\udfff" else c for c in value)


def clean_text(value: str, what: str) -> str:
    """`value`, if it can be stored as text; otherwise one clear error."""
    problem = text_problem(value)
    if problem is not None:
        raise InvalidValueError(f"invalid {what}: {problem}")
    return value


def normalized_text(text: str) -> str:
    """The form dedup compares: NFKC, case-folded, whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())
