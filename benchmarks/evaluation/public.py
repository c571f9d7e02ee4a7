"""Loaders of public long-term-memory benchmarks with evidence labels.

Their data stays out of git (both are CC BY-NC 4.0 or unlicensed); the caller
points at a local copy. Each loader maps dialogue turns, with their speakers
and dates, to Turns, and each question's reference memory to evidence turn ids.
"""

from __future__ import annotations

import json
import re
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from .datasets import Conversation, Dataset, Question, Turn

#: where a benchmark gives no usable date, turns are spaced from here in order
EPOCH = datetime(2020, 1, 1, tzinfo=timezone.utc)
_FORMATS = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d", "%Y/%m/%d %H:%M", "%Y/%m/%d",
            "%Y-%m", "%Y", "%B %d, %Y", "%d %B %Y", "%I:%M %p on %d %B, %Y")


def parse_date(value: Any) -> datetime | None:
    text = re.sub(r"\s+", " ", str(value or "")).strip()
    for form in _FORMATS:
        try:
            return datetime.strptime(text, form).replace(tzinfo=timezone.utc)
        except ValueError:
            continue
    return None


# -- PerLTQA ------------------------------------------------------------------

def load_perltqa(path: Path) -> Dataset:
    """PerLTQA (github Elvin-Yiming-Du/PerLTQA, Dataset/en_v2 or Dataset/en): a
    folder with perltmem*.json (memories) and perltqa*.json (questions).

    Events and dialogue turns become entries, one character a store. Event
    questions point at their event; dialogue questions at the dialogue's turns
    that contain one of the question's memory anchors (all of its turns when
    none does). Profile and social-relationship questions ask about semantic
    memory that is not written as turns here, so they are left out."""
    mem_file = _one(path, "perltmem*.json")
    qa_file = _one(path, "perltqa*.json")
    memories = _by_name(json.loads(mem_file.read_text(encoding="utf-8")),
                        lambda r: r["profile"]["Protagonist"])
    asked = _by_name(json.loads(qa_file.read_text(encoding="utf-8")), None)
    conversations, skipped = [], 0
    for name in sorted(set(memories) & set(asked)):
        turns, events, dialogues = _perltqa_turns(name, memories[name])
        questions, left_out = _perltqa_questions(name, asked[name], turns, events, dialogues)
        skipped += left_out
        if questions:
            conversations.append(Conversation(name, turns, questions))
    notes = [f"PerLTQA {mem_file.parent.name}: {len(conversations)} characters; "
             f"{skipped} profile, relationship or unresolvable questions left out"]
    return Dataset("perltqa", conversations, notes)


def _one(folder: Path, pattern: str) -> Path:
    found = sorted(folder.glob(pattern))
    if not found:
        raise FileNotFoundError(f"no {pattern} in {folder}")
    return found[0]


def _by_name(data: Any, name_of: Any) -> dict[str, Any]:
    """en_v2 keys records by name; en keeps a list (of records, or of one-key dicts)."""
    if isinstance(data, dict):
        return dict(data)
    out: dict[str, Any] = {}
    for item in data:
        if name_of is not None:
            out.setdefault(name_of(item), item)
        else:
            out.update(item)
    return out


def _perltqa_turns(name: str, memory: dict[str, Any]) -> tuple[
        list[Turn], dict[str, str], dict[str, list[Turn]]]:
    turns: list[Turn] = []
    events: dict[str, str] = {}
    clock = EPOCH
    for key, event in _items(memory.get("events")):
        event = event if isinstance(event, dict) else {"content": event}
        text = str(event.get("content") or event.get("Content") or event.get("summary") or "")
        if not text.strip():
            continue
        when = parse_date(event.get("Creation Time") or event.get("creation_time")) or clock
        clock = when + timedelta(minutes=1)
        people = _names(event.get("Characters") or event.get("characters"))
        turn = Turn(id=f"event/{key}", session=f"event-{key}", occurred_at=when, speaker=name,
                    text=text, people=people)
        turns.append(turn)
        events[key] = turn.id
    dialogues: dict[str, list[Turn]] = {}
    for key, dialogue in _items(memory.get("dialogues")):
        contents = dialogue.get("contents", {}) if isinstance(dialogue, dict) else {}
        said: list[Turn] = []
        for stamp, lines in sorted(contents.items()):
            when = parse_date(stamp) or clock
            for line in lines if isinstance(lines, list) else [lines]:
                speaker, text = _speaker_and_text(line, name)
                if text.strip():
                    said.append(Turn(id=f"dialogue/{key}/{len(said)}", session=f"dialogue-{key}",
                                     occurred_at=when + timedelta(seconds=len(said)),
                                     speaker=speaker, text=text))
            clock = when + timedelta(minutes=1)
        turns.extend(said)
        dialogues[key] = said
    return turns, events, dialogues


def _perltqa_questions(name: str, asked: dict[str, Any], turns: list[Turn], events: dict[str, str],
                       dialogues: dict[str, list[Turn]]) -> tuple[list[Question], int]:
    questions: list[Question] = []
    skipped = sum(len(list(_groups(asked.get(s)))) for s in ("profile", "social_relationship"))
    for section in ("events", "dialogues"):
        for key, items in _groups(asked.get(section)):
            for item in items:
                refs = [key, *_refs(item.get("Reference Memory"))]
                if section == "events":
                    evidence = [events[r] for r in refs if r in events][:1]
                else:
                    said = next((dialogues[r] for r in refs if r in dialogues), [])
                    evidence = _anchored(said, item.get("Memory Anchors") or [])
                if not evidence or not str(item.get("Question", "")).strip():
                    skipped += 1
                    continue
                questions.append(Question(id=f"{name}/{section}/{key}/{len(questions)}",
                                          text=str(item["Question"]), observer=name,
                                          evidence=tuple(evidence), type=section))
    return questions, skipped


def _items(section: Any) -> list[tuple[str, Any]]:
    if isinstance(section, dict):
        return [(str(k), v) for k, v in section.items()]
    if isinstance(section, list):
        return [(str(i), v) for i, v in enumerate(section)]
    return []


def _groups(section: Any) -> list[tuple[str, list[dict[str, Any]]]]:
    """{key: [questions]}, or a list of such one-key dicts, or a bare list of questions."""
    groups: list[tuple[str, list[dict[str, Any]]]] = []
    for key, value in _items(section):
        if isinstance(value, dict) and "Question" not in value:
            groups.extend((str(k), v if isinstance(v, list) else [v]) for k, v in value.items())
        else:
            groups.append((key, value if isinstance(value, list) else [value]))
    return groups


def _refs(value: Any) -> list[str]:
    if isinstance(value, list):
        return [str(v) for v in value]
    return re.findall(r"[\w.-]+", str(value or ""))


def _anchored(said: list[Turn], anchors: list[Any]) -> list[str]:
    named = [str(k).lower() for a in anchors if isinstance(a, dict)
             for k, span in a.items() if span != [-1, -1]]
    hit = [t.id for t in said if any(n in t.text.lower() for n in named)]
    return hit or [t.id for t in said]


def _names(value: Any) -> tuple[str, ...]:
    if isinstance(value, str):
        value = re.split(r"[,;、]", value)
    return tuple(str(v).strip() for v in value or () if str(v).strip())


def _speaker_and_text(line: Any, protagonist: str) -> tuple[str, str]:
    if isinstance(line, dict):
        speaker = line.get("speaker") or line.get("role") or protagonist
        return str(speaker), str(line.get("text") or line.get("content") or "")
    head, sep, rest = str(line).partition(":")
    if sep and 0 < len(head) <= 40 and len(head.split()) <= 4:
        return head.strip(), rest.strip()
    return protagonist, str(line)


# -- LoCoMo -------------------------------------------------------------------

_CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}


def load_locomo(path: Path) -> Dataset:
    """LoCoMo (github snap-research/locomo, data/locomo10.zip or locomo10.json):
    ten long two-person conversations; each turn an entry, one conversation a
    store. Categories 1-4 point at their evidence turns; category 5
    (adversarial: it asks what a person said that only the other one said)
    is asked as an abstention."""
    conversations: list[Conversation] = []
    for name, sample in _locomo_samples(path):
        conv = sample.get("conversation", sample)
        sessions = sorted((int(m.group(1)), k) for k in conv
                          if (m := re.fullmatch(r"session_(\d+)", k)) and isinstance(conv[k], list))
        turns: list[Turn] = []
        for number, key in sessions:
            start = parse_date(conv.get(f"{key}_date_time")) or EPOCH + timedelta(days=number)
            for i, row in enumerate(conv[key]):
                text = str(row.get("text", ""))
                if row.get("blip_caption"):
                    text += f" [shares a photo: {row['blip_caption']}]"
                turns.append(Turn(id=str(row["dia_id"]), session=key, text=text,
                                  occurred_at=start + timedelta(seconds=30 * i),
                                  speaker=str(row["speaker"])))
        known = {t.id for t in turns}
        questions = []
        for i, qa in enumerate(sample.get("qa", [])):
            category = int(qa.get("category", 0))
            evidence = tuple(e for e in re.findall(r"D\d+:\d+", " ".join(map(str, qa.get("evidence", []))))
                             if e in known)
            if category != 5 and not evidence:
                continue
            questions.append(Question(id=f"{name}/{i}", text=str(qa["question"]),
                                      observer=str(conv.get("speaker_a", "")),
                                      evidence=() if category == 5 else evidence,
                                      abstain=category == 5, type=_CATEGORIES.get(category, "")))
        conversations.append(Conversation(name, turns, questions))
    return Dataset("locomo", conversations)


def _locomo_samples(path: Path) -> list[tuple[str, dict[str, Any]]]:
    if path.suffix == ".zip":
        with zipfile.ZipFile(path) as archive:
            named = [(Path(n).stem, json.loads(archive.read(n))) for n in sorted(archive.namelist())
                     if n.endswith(".json")]
    elif path.is_dir():
        named = [(p.stem, json.loads(p.read_text(encoding="utf-8"))) for p in sorted(path.rglob("*.json"))]
    else:
        named = [(path.stem, json.loads(path.read_text(encoding="utf-8")))]
    samples: list[tuple[str, dict[str, Any]]] = []
    for stem, data in named:
        for i, sample in enumerate(data if isinstance(data, list) else [data]):
            samples.append((str(sample.get("sample_id") or (stem if len(named) > 1 else f"{stem}-{i}")),
                            sample))
    return samples
