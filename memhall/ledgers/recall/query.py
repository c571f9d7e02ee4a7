"""A recall query, analysed once: its words, their stems, the tags it names, whom it attributes to.

"Did codex say the Seagate was broken?" attributes to codex: the observer must
hold something *codex* said or did about it, or recall says "no memory of
codex saying that". The attribution's name and verb are not what the query is
about, so they are left out of the words relevance is measured by.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from memhall.domains.entry import Tags
from memhall.governance import fulltext

_VERBS = (
    "say|said|says|tell|told|tells|mention|mentioned|recommend|recommended|suggest|suggested|"
    "admit|admitted|ask|asked|think|thought|promise|promised|claim|claimed|agree|agreed|want|"
    "wanted|propose|proposed|report|reported|write|wrote|warn|warned|decide|decided|confirm|"
    "confirmed|complain|complained|explain|explained|insist|insisted|approve|approved|pass|passed"
)
_ATTRIBUTION = re.compile(
    r"\b(?:did|does|do|has|had|have|what|when|where|how|why|whether|that)\s+(?:did\s+|has\s+|had\s+)?"
    r"(?P<name>[A-Za-z][\w]*(?:-[\w]+)?)\s+(?:ever\s+|really\s+|actually\s+|once\s+)?"
    rf"(?P<verb>{_VERBS})\b", re.IGNORECASE)
_NOT_A_NAME = frozenset(
    "i you we they he she it anyone someone somebody anybody everyone everybody nobody people "
    "the a an this that who what which me us them there one my your our their his her its "
    "did does do has had have".split())


@dataclass(frozen=True)
class Query:
    """What recall looks for, for whom."""

    text: str
    observer: str
    tags: Tags = field(default_factory=Tags)
    #: content words (stop words out), each once, in order
    terms: tuple[str, ...] = ()
    #: the person the query attributes something to, lower case ("codex" in "did codex say …")
    attributed_to: str | None = None
    #: the terms relevance is measured by: `terms` without the attribution's name and verb
    about: tuple[str, ...] = ()

    @classmethod
    def of(cls, text: str, observer: str, tags: Tags | None = None) -> Query:
        terms = fulltext.terms_of(text)
        person, verb = _attribution(text)
        about = tuple(t for t in terms if t not in {person, verb})
        return cls(text=text, observer=observer, tags=tags or Tags(), terms=terms,
                   attributed_to=person, about=about or terms)

    @property
    def empty(self) -> bool:
        return not self.terms and not self.tags.all()

    @property
    def stems(self) -> frozenset[str]:
        return frozenset(fulltext.stem(t) for t in self.about)


def _attribution(text: str) -> tuple[str | None, str | None]:
    for found in _ATTRIBUTION.finditer(text):
        name = found.group("name").casefold()
        if name not in _NOT_A_NAME and name not in fulltext.STOP_WORDS:
            return name, found.group("verb").casefold()
    return None, None
