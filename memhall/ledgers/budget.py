"""Budgets of a materialization: the token estimate and verbatim cutting at the ends.

The token estimate is `ceil(utf8_bytes(text) / 4) + overhead`. Four bytes per
token is close for English (about four characters a token) and deliberately
pessimistic for CJK text (three bytes a character, so 0.75 token per
character, where real tokenizers give 0.6–1.0): an estimate that errs high
gives the seat slightly less rather than overflowing its prompt, and it needs
no tokenizer, so it is the same on every machine (a materialization must be
byte-identical wherever it is re-run). The overhead pays for what each item
carries besides its text: id, layer tag, author, provenance line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field

from memhall.domains.errors import InvalidValueError

BYTES_PER_TOKEN = 4
#: id (36 chars), layer, kind, author, confidence, state, provenance: ~96 bytes
FACT_OVERHEAD = 24
#: id, layer, author: ~64 bytes
QUOTE_OVERHEAD = 16
#: ledger A may use at most this share of the token budget, so that the
#: human's words never crowd out every fact (and vice versa)
QUOTE_SHARE = 3
MAX_QUOTES = 5
#: a cut quote shorter than this is not worth showing: it goes to C instead
MIN_QUOTE_TOKENS = 8
ELISION = "[…]"
MAX_FACTS = 10  # SPEC §4: ledger B holds at most 10 facts


class Budget(BaseModel):
    """What one materialization may spend: B items, and tokens over A and B."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    max_items: int = Field(default=MAX_FACTS)
    max_tokens: int = Field(default=800)
    max_quotes: int = Field(default=MAX_QUOTES)

    def model_post_init(self, _context: object) -> None:
        if not 1 <= self.max_items <= MAX_FACTS:
            raise InvalidValueError(f"--max-items must be between 1 and {MAX_FACTS}")
        if self.max_tokens < 1:
            raise InvalidValueError("--max-tokens must be at least 1")
        if self.max_quotes < 0:
            raise InvalidValueError("the quote budget cannot be negative")

    @property
    def quote_tokens(self) -> int:
        return self.max_tokens // QUOTE_SHARE


def text_tokens(text: str) -> int:
    return math.ceil(len(text.encode("utf-8")) / BYTES_PER_TOKEN)


def fact_tokens(text: str) -> int:
    return text_tokens(text) + FACT_OVERHEAD


def quote_tokens(text: str) -> int:
    return text_tokens(text) + QUOTE_OVERHEAD


@dataclass(frozen=True)
class Cut:
    """A verbatim piece of a source text: `source[start:end]`, with marks where it was cut."""

    text: str
    start: int
    end: int
    source_length: int

    @property
    def elided_start(self) -> bool:
        return self.start > 0

    @property
    def elided_end(self) -> bool:
        return self.end < self.source_length

    @property
    def shown(self) -> str:
        head = f"{ELISION} " if self.elided_start else ""
        tail = f" {ELISION}" if self.elided_end else ""
        return head + self.text + tail


def cut_verbatim(source: str, max_tokens: int, focus: int = 0) -> Cut | None:
    """The longest contiguous piece of `source` around `focus` that fits, never
    rewritten inside; None when not even a useful piece fits."""
    whole = Cut(source, 0, len(source), len(source))
    if quote_tokens(source) <= max_tokens:
        return whole
    room = (max_tokens - QUOTE_OVERHEAD) * BYTES_PER_TOKEN - 2 * len(f"{ELISION} ".encode())
    if room < MIN_QUOTE_TOKENS * BYTES_PER_TOKEN:
        return None
    # Start a little before the focus (the first task word found), at a word
    # boundary, so the cut shows why the quote was chosen.
    start = 0 if focus < room // 4 else _word_start(source, focus - room // 4)
    end, used = start, 0
    for char in source[start:]:
        used += len(char.encode())
        if used > room:
            break
        end += 1
    if end < len(source):
        space = source.rfind(" ", start, end)
        end = space if space > start else end
    piece = source[start:end]
    lead = len(piece) - len(piece.lstrip())
    piece = piece.strip()
    if not piece:
        return None
    return Cut(piece, start + lead, start + lead + len(piece), len(source))


def _word_start(source: str, at: int) -> int:
    space = source.find(" ", max(0, at))
    return space + 1 if 0 <= space < len(source) - 1 else max(0, at)
