"""What an evaluation is made of: turns, questions, conversations; and the
loader of the committed multi-agent story."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

STORY = Path(__file__).resolve().parents[1] / "data" / "multiagent_story"


@dataclass(frozen=True)
class Turn:
    """One utterance (or narrated event), written as one entry."""

    id: str
    session: str
    occurred_at: datetime
    speaker: str
    text: str
    people: tuple[str, ...] = ()
    places: tuple[str, ...] = ()
    topics: tuple[str, ...] = ()
    #: who holds it (speaker, addressees, those present); empty: everyone
    holders: frozenset[str] = frozenset()

    def held_by(self, observer: str) -> bool:
        return not self.holders or observer in self.holders


@dataclass(frozen=True)
class Question:
    id: str
    text: str
    observer: str
    #: turn ids; any one of them in the top k counts as found
    evidence: tuple[str, ...]
    #: the observer holds nothing that answers it
    abstain: bool = False
    type: str = ""


@dataclass
class Conversation:
    """Turns that share one store, and the questions asked of them."""

    name: str
    turns: list[Turn]
    questions: list[Question]


@dataclass
class Dataset:
    name: str
    conversations: list[Conversation]
    notes: list[str] = field(default_factory=list)

    @property
    def questions(self) -> list[Question]:
        return [q for c in self.conversations for q in c.questions]

    def limited(self, n: int | None) -> Dataset:
        """The first n questions; conversations left without one are dropped,
        so a short run ingests only what it asks about."""
        if n is None:
            return self
        kept: list[Conversation] = []
        left = n
        for c in self.conversations:
            if left <= 0:
                break
            kept.append(Conversation(c.name, c.turns, c.questions[:left]))
            left -= len(kept[-1].questions)
        return Dataset(self.name, [c for c in kept if c.questions], self.notes)


def load_multiagent(folder: Path = STORY) -> Dataset:
    turns = [_turn(json.loads(line)) for line in _lines(folder / "turns.jsonl")]
    known = {t.id: t for t in turns}
    questions = []
    for line in _lines(folder / "questions.jsonl"):
        row = json.loads(line)
        question = Question(id=row["id"], text=row["question"], observer=row["observer"],
                            evidence=tuple(row["evidence"]), abstain=bool(row["abstain"]),
                            type=row["type"])
        unheld = [e for e in question.evidence if not known[e].held_by(question.observer)]
        if unheld or (question.abstain == bool(question.evidence)):
            raise ValueError(f"question {question.id}: evidence {unheld or 'missing'} does not fit")
        questions.append(question)
    return Dataset("multiagent", [Conversation("story", turns, questions)])


def _turn(row: dict[str, object]) -> Turn:
    tags = row["tags"]
    assert isinstance(tags, dict)
    addressees = row.get("addressees") or []
    present = row.get("present") or []
    assert isinstance(addressees, list) and isinstance(present, list)
    return Turn(
        id=str(row["id"]), session=str(row["session"]),
        occurred_at=datetime.fromisoformat(str(row["occurred_at"])),
        speaker=str(row["speaker"]), text=str(row["text"]),
        people=tuple(tags.get("people", ())), places=tuple(tags.get("places", ())),
        topics=tuple(tags.get("topics", ())),
        holders=frozenset([str(row["speaker"]), *addressees, *present]),
    )


def _lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
