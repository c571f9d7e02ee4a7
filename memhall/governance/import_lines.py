"""Import lines: JSONL lines or Markdown notes read as `Line`s (one clear line per problem,
naming where it is), each line's idempotency key, and the draft a line asks for.

A line's key is its `key` field or a hash of the line itself; lines of one import that
give the same key must hold the same memory (`one_memory_per_key`). Someone else's line
(`author`) is hearsay from them: the importer is the actor (`governance.transfer`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

import orjson

from memhall.domains.entry import EntryDraft, draft
from memhall.domains.errors import InvalidValueError
from memhall.domains.values import normalized_text, principal_name, text_problem

FIELDS = ("text", "kind", "layer", "author", "occurred_at", "tags", "source", "evidence", "thread",
          "supersedes", "key")
KEY_PREFIX = "import:"
#: longest key kept as given; a longer one is hashed (idempotency keys hold 128 characters)
_KEY_CHARS = 100


@dataclass(frozen=True)
class Line:
    """One thing to import: where it came from, its key and its fields."""

    number: int
    key: str
    fields: dict[str, Any]
    #: where it is, as its errors name it: `line N` of a file, `note PATH` of a folder
    where: str = ""

    @property
    def label(self) -> str:
        return self.where or f"line {self.number}"


def line_key(given: Any, raw_line: bytes) -> str:
    if given is not None and str(given).strip():
        text = str(given).strip()
        return text if len(text) <= _KEY_CHARS else "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    return "sha256:" + hashlib.sha256(raw_line.strip()).hexdigest()


_BOM = b"\xef\xbb\xbf"


def jsonl(lines: Iterable[bytes]) -> Iterator[Line]:
    """JSONL lines as import lines; blank lines are skipped, anything else must be an object."""
    for number, raw_line in enumerate(lines, start=1):
        if number == 1 and raw_line.startswith(_BOM):
            raw_line = raw_line[len(_BOM):]  # as some editors save UTF-8: not part of the line, nor of its key
        if not raw_line.strip():
            continue
        try:
            data = orjson.loads(raw_line)
        except orjson.JSONDecodeError as error:
            raise InvalidValueError(f"line {number}: not JSON ({error})") from None
        if not isinstance(data, dict):
            raise InvalidValueError(f"line {number}: expected a JSON object, like {{\"text\": \"…\"}}")
        unknown = sorted(set(data) - set(FIELDS))
        if unknown:
            raise InvalidValueError(f"line {number}: unknown field {unknown[0]!r} (known: {', '.join(FIELDS)})")
        # orjson refuses bytes that are not UTF-8: a NUL or a lone surrogate comes as an escape
        yield Line(number, line_key(data.get("key"), raw_line),
                   storable(f"line {number}", data) if b"\\u" in raw_line else data)


def notes(folder: Path) -> Iterator[Line]:
    """A folder of Markdown notes, one entry per note, in path order."""
    import yaml

    for number, path in enumerate(sorted(folder.rglob("*.md")), start=1):
        content = path.read_bytes()
        where = f"note {path.relative_to(folder).as_posix()}"
        try:
            text = content.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidValueError(f"{where}: not valid UTF-8") from None
        meta: dict[str, Any] = {}
        if text.startswith("---"):
            head, sep, body = text[3:].partition("\n---")
            if sep:
                try:
                    loaded = yaml.safe_load(head)
                except yaml.YAMLError as error:
                    mark = getattr(error, "problem_mark", None)  # the front matter's own line
                    at = f" at its line {mark.line}" if mark is not None else ""
                    problem = " ".join(str(getattr(error, "problem", None) or error).split())
                    raise InvalidValueError(f"{where}: invalid front matter ({problem}{at})") from None
                meta = loaded if isinstance(loaded, dict) else {}
                text = body.partition("\n")[2]
        if not text.strip():
            continue
        fields = {k: v for k, v in meta.items() if k in FIELDS and k != "text"}
        if "date" in meta and "occurred_at" not in fields:
            fields["occurred_at"] = meta["date"]
        fields["text"] = text.strip()
        relative = path.relative_to(folder).as_posix()
        # an edited note is a new memory: its key names the path and the content
        fields["key"] = line_key(meta.get("key"), f"{relative}\0".encode() + content)
        yield Line(number, str(fields["key"]), storable(where, fields), where)


def storable(where: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A line's fields, if every text in them can be stored (a field looked up before it
    reaches an entry, as `supersedes`, too); otherwise one line naming the first that cannot."""
    for name, value in fields.items():
        for text in _texts(value):
            problem = text_problem(text)
            if problem is not None:
                raise InvalidValueError(f"{where}: invalid {name}: {problem}")
    return fields


def _texts(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _texts(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _texts(item)


def _moment(value: Any) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        moment = value
    elif isinstance(value, date):
        moment = datetime(value.year, value.month, value.day)
    else:
        try:
            moment = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
        except ValueError:
            raise InvalidValueError(f"occurred_at {value!r} is not an ISO date or time") from None
    moment = moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)
    if moment > datetime.now(timezone.utc):
        raise InvalidValueError(f"occurred_at {value!r} is later than now")
    return moment


def _strings(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return [str(value)]


def to_draft(line: Line, actor: str) -> EntryDraft:
    """The entry a line asks for. Someone else's line is hearsay from them. A field the line
    does not give is left to the draft's default (not passed as None: pydantic would run its
    checks on each; an import makes one draft per line)."""
    f, n = line.fields, line.label
    if not isinstance(f.get("text"), str):
        raise InvalidValueError(f"{n}: text must be a string")
    tags = f.get("tags") or {}
    if not isinstance(tags, dict):
        tags = {"topics": _strings(tags)}
    try:
        author = principal_name(str(f["author"])) if f.get("author") else actor
        source = str(f.get("source") or "firsthand").lower()
        if author != actor and source == "firsthand":
            source = "hearsay"  # the author saw it; the importer did not
        provenance: dict[str, Any] = {"source_kind": source}
        evidence = _strings(f.get("evidence"))
        if evidence:
            provenance["evidence_refs"] = evidence
        if source == "hearsay":
            provenance["source_agent_id"] = author
        given: dict[str, Any] = {"text": f["text"], "kind": f.get("kind") or "episode",
                                 "layer": str(f.get("layer") or "L1").upper(),
                                 "provenance": provenance, "idempotency_key": KEY_PREFIX + line.key}
        if tags:
            given["tags"] = {k: _strings(v) for k, v in tags.items()}
        if f.get("thread"):
            given["thread"] = str(f["thread"])
        moment = _moment(f.get("occurred_at"))
        if moment is not None:
            given["occurred_at"] = moment
        return draft(**given)
    except InvalidValueError as error:
        raise InvalidValueError(f"{n}: {error}") from None


def one_memory_per_key(keyed: dict[str, tuple[str, int]], line: Line) -> None:
    """Lines of one import that give the same `key` must hold the same memory (its text and
    kind, as a write's idempotency key does): the second is then the first again. Refused
    otherwise, before its batch is written: it would be taken for the first line (when the
    first was already stored) or written, and the next run of the same file refused.
    `keyed`: each key given so far, with the first line giving it and what it holds."""
    text = line.fields.get("text")
    if not line.fields.get("key") or not isinstance(text, str):
        return  # a line's own hash is its key: the same key is the same line
    holds = hash((str(line.fields.get("kind") or "episode"), normalized_text(text)))
    first = keyed.setdefault(line.key, (line.label, holds))
    if first[1] != holds:
        raise InvalidValueError(f"{line.label}: key {line.key!r} is {first[0]}'s too, with other text or kind")
