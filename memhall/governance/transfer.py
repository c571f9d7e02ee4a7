"""Bulk import and export: JSONL lines (or Markdown notes) in, the same JSONL out.

Every imported line goes through the governed batch path (`Hall.write_many`):
the importing principal is the actor and is asked about every line; a line's
`author` is provenance, who said it, never an actor — a line by someone else is
recorded as hearsay from them. Each line carries an idempotency key, its `key`
field or a hash of the line itself, so importing a file again writes nothing
new, even for a value that flips back (x=1, x=2, x=1): idempotent by line, not
by content. `supersedes` names an entry id or the key of an earlier line.

Markdown: one entry per note (a file), its front matter (between `---` lines)
giving tags, date, kind, layer, thread, author, source and evidence; the body
is the text. One per note because a note is what its author wrote as one
thought; headings inside it are its structure, not separate memories.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any
from uuid import UUID

import orjson

from memhall.domains.dynamics.encoding import EncodingRecord
from memhall.domains.entry import EntryDraft, draft
from memhall.domains.errors import InvalidValueError
from memhall.domains.moments import iso
from memhall.domains.values import principal_name, text_problem
from memhall.governance import bulkload, fulltext, threads
from memhall.governance.batch import Pending, write_batch
from memhall.governance.hall import Hall
from memhall.governance.memory_records import collector_paused
from memhall.governance.store import raw
from memhall.policies.model import Action

FIELDS = ("text", "kind", "layer", "author", "occurred_at", "tags", "source", "evidence", "thread",
          "supersedes", "key")
KEY_PREFIX = "import:"
BATCH = 1000
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


@dataclass
class ImportReport:
    read: int = 0
    written: int = 0
    #: lines whose key was imported before: nothing written
    already: int = 0
    #: lines whose memory is already stored (active, same text): nothing written
    duplicates: int = 0
    entries: dict[str, str] = field(default_factory=dict, repr=False)


def line_key(given: Any, raw_line: bytes) -> str:
    if given is not None and str(given).strip():
        text = str(given).strip()
        return text if len(text) <= _KEY_CHARS else "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    return "sha256:" + hashlib.sha256(raw_line.strip()).hexdigest()


def jsonl(lines: Iterable[bytes]) -> Iterator[Line]:
    """JSONL lines as import lines; blank lines are skipped, anything else must be an object."""
    for number, raw_line in enumerate(lines, start=1):
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


Progress = Callable[[int], None]

#: an import that wrote this many entries merges the full-text index when it is done
OPTIMIZE_MIN = 10_000


def run_import(hall: Hall, actor: str, domain: str, lines: Iterable[Line], *, batch: int = BATCH,
               progress: Progress | None = None, defer_from: int = bulkload.DEFER_MIN,
               beside_from: int | None = None) -> ImportReport:
    """Import `lines` in batches of `batch` (one transaction each, so a crash loses at
    most the batch in flight; running it again finishes the rest). From `defer_from` lines
    on, SQLite builds some indexes at the end instead (see `bulkload`); from `beside_from`
    (default `piped.BESIDE_FROM`) on, a SQLite file's batches are written by a process
    beside this one (see `piped`)."""
    from memhall.governance import piped as beside

    actor = principal_name(actor)
    stream, _ = hall.ask(actor, Action.READ, domain)
    report = ImportReport()
    pending: list[Line] = []
    pending_keys: set[str] = set()
    start = beside.BESIDE_FROM if beside_from is None else beside_from
    writer: beside.Piped | None = None

    def flush() -> None:
        nonlocal writer
        if not pending:
            return
        if writer is None and report.read >= start and beside.available(hall):
            writer = beside.Piped(hall, actor, stream.name)
        if writer is not None:
            writer.write(pending, report)
        else:
            write_lines(hall, actor, stream.name, pending, report)
        if progress is not None:
            progress(len(pending))
        pending.clear()
        pending_keys.clear()

    # the collector paused for the whole import, reading lines too: a batch's lines, drafts,
    # events and rows are acyclic, thousands of them, and collections set off while the next
    # batch was read walked the ones alive again (~4 % of an import's CPU)
    with bulkload.tuned(hall.store), bulkload.deferring(hall.store, stream.tables, defer_from) as ready, \
            collector_paused():
        try:
            for line in lines:
                report.read += 1
                ref = line.fields.get("supersedes")
                if ref is not None and str(ref) in pending_keys:
                    ready(report.read)
                    flush()  # it names a line of this batch: write that one first
                pending.append(line)
                pending_keys.add(line.key)
                if len(pending) >= batch:
                    ready(report.read)
                    flush()
            ready(report.read)
            flush()
        except BaseException:
            if writer is not None:
                try:
                    writer.close(report)  # the batches before the failure are written
                except Exception:  # noqa: BLE001 - the first error is the one to report
                    writer.abort()
            raise
        if writer is not None:
            writer.close(report)
    if report.written >= OPTIMIZE_MIN:
        with hall.store.write() as conn:
            for statement in fulltext.optimize_sql(stream.tables, hall.store.dialect):
                conn.exec_driver_sql(statement)
    return report


def write_lines(hall: Hall, actor: str, domain: str, lines: list[Line], report: ImportReport, *,
                drafts: list[EntryDraft] | None = None, encodings: Sequence[EncodingRecord] = (),
                plan: Any = None, pending: Pending | None = None) -> None:
    """One batch (`drafts` and `encodings`: its lines', made already); `plan`: planned, not
    written, after the batches in `pending` (see `piped`)."""
    stream = hall.streams.stream(domain)
    drafts = drafts if drafts is not None else [to_draft(line, actor) for line in lines]
    with hall.store.read() as conn:
        wanted = [KEY_PREFIX + line.key for line in lines] + [
            KEY_PREFIX + str(line.fields["supersedes"]) for line in lines if line.fields.get("supersedes") is not None]
        stored = stream.replays(conn, wanted)
        if pending is not None:
            stored.update({key: pending.keyed_before[key] for key in wanted if key in pending.keyed_before})
        # an exported entry that was not imported has its id as key: it is already here
        reader = threads.Reader(raw(conn), stream.tables.prefix, conn.dialect.name)
        ids = [line.key for line in lines if _is_id(line.key) and KEY_PREFIX + line.key not in stored]
        for ident, row in reader.entries(ids).items():
            stored[KEY_PREFIX + ident] = (ident, str(row["dedup_key"]))
    todo: list[tuple[Line, EntryDraft]] = []
    encoded: list[EncodingRecord] = []
    for index, (line, entry) in enumerate(zip(lines, drafts)):
        found = stored.get(KEY_PREFIX + line.key)
        if found is None:
            todo.append((line, entry))
            if encodings:
                encoded.append(encodings[index])
            continue
        if found[1] != entry.dedup_key():
            raise InvalidValueError(f"{line.label}: key {line.key!r} was imported before "
                                    f"with different content (entry {found[0]})")
        report.already += 1
        report.entries[line.key] = found[0]
    if not todo:
        return
    targets = [_target(line, stored, report) for line, _ in todo]
    if plan is None:
        results = hall.write_many(actor, domain, [entry for _, entry in todo],
                                  targets if any(t is not None for t in targets) else ())
    else:
        results = write_batch(hall, actor, domain, [entry for _, entry in todo], (), encodings=encoded, plan=plan,
                              pending=pending, replays=stored)
    for (line, _), result in zip(todo, results):
        report.entries[line.key] = result.entry_id
        if result.duplicate:
            report.duplicates += 1
        else:
            report.written += 1


def _is_id(text: str) -> bool:
    if len(text) != 36:  # what str(UUID) always is; most keys are not ids
        return False
    try:
        return str(UUID(text)) == text
    except ValueError:
        return False


def _target(line: Line, stored: dict[str, tuple[str, str]], report: ImportReport) -> UUID | None:
    ref = line.fields.get("supersedes")
    if ref is None or ref == "":
        return None
    text = str(ref)
    known = report.entries.get(text) or (stored.get(KEY_PREFIX + text) or (None,))[0]
    if known is not None:
        return UUID(known)
    try:
        return UUID(text)
    except ValueError:
        raise InvalidValueError(f"{line.label}: supersedes {text!r} names no entry id and no "
                                "earlier line's key") from None


def export(hall: Hall, actor: str, domain: str) -> Iterator[dict[str, Any]]:
    """Every entry of the domain that is not retired, in log order, as import lines."""
    actor = principal_name(actor)
    stream, _ = hall.ask(actor, Action.READ, domain)
    with hall.store.read() as conn:
        reader = threads.Reader(raw(conn), stream.tables.prefix, conn.dialect.name)
        ids = [str(r[0]) for r in reader.rows(
            f"SELECT id FROM {reader.prefix}entries WHERE status != 'retired' ORDER BY created_position")]
        replaced = {str(new): str(old) for old, new in reader.rows(
            f"SELECT id, superseded_by FROM {reader.prefix}entries WHERE superseded_by IS NOT NULL")}
        keys: dict[str, str] = {}
        for start in range(0, len(ids), 2000):
            rows = reader.entries(ids[start:start + 2000])
            for ident in ids[start:start + 2000]:
                row = rows[ident]
                keys[ident] = _export_key(row)
                yield _line(row, keys, replaced.get(ident))


def _export_key(row: dict[str, Any]) -> str:
    key = row.get("idempotency_key") or ""
    return key[len(KEY_PREFIX):] if key.startswith(KEY_PREFIX) else str(row["id"])


def _line(row: dict[str, Any], keys: dict[str, str], replaced: str | None) -> dict[str, Any]:
    hearsay = row["source_kind"] == "hearsay" and row["source_agent_id"]
    tags = {k: row[k] for k in ("people", "places", "topics") if row[k]}
    line: dict[str, Any] = {
        "text": row["text"], "kind": row["kind"], "layer": row["layer"],
        "author": row["source_agent_id"] if hearsay else row["author"],
        "occurred_at": iso(row["occurred_at"]),
        "tags": tags["topics"] if set(tags) == {"topics"} else tags,
        "source": "firsthand" if hearsay else row["source_kind"],
        "evidence": row["evidence_refs"], "thread": row["thread"],
    }
    if replaced is not None:
        line["supersedes"] = keys.get(replaced, replaced)
    line["key"] = keys[str(row["id"])]
    return line
