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

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from memhall.domains.dynamics.encoding import EncodingRecord
from memhall.domains.entry import EntryDraft
from memhall.domains.errors import InvalidValueError, MemhallError
from memhall.domains.moments import iso
from memhall.domains.values import principal_name
from memhall.governance import bulkload, fulltext, threads
from memhall.governance.batch import Pending, write_batch
from memhall.governance.hall import Hall
from memhall.governance.import_lines import (
    FIELDS,
    KEY_PREFIX,
    Line,
    jsonl,
    line_key,
    notes,
    one_memory_per_key,
    storable,
    to_draft,
)
from memhall.governance.memory_records import collector_paused
from memhall.governance.store import raw
from memhall.policies.model import Action

__all__ = ["BATCH", "FIELDS", "KEY_PREFIX", "ImportReport", "Line", "export", "jsonl", "line_key", "notes",
           "run_import", "storable", "to_draft", "write_lines"]

BATCH = 1000


@dataclass
class ImportReport:
    read: int = 0
    written: int = 0
    #: lines whose key was imported before: nothing written
    already: int = 0
    #: lines whose memory is already stored (active, same text): nothing written
    duplicates: int = 0
    entries: dict[str, str] = field(default_factory=dict, repr=False)


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
    keyed: dict[str, tuple[str, int]] = {}

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
            try:
                for line in lines:
                    report.read += 1
                    one_memory_per_key(keyed, line)
                    ref = line.fields.get("supersedes")
                    if ref is not None and str(ref) in pending_keys:
                        ready(report.read)
                        flush()  # it names a line of this batch: write that one first
                    pending.append(line)
                    pending_keys.add(line.key)
                    if len(pending) >= batch:
                        ready(report.read)
                        flush()
            except InvalidValueError:
                # a line that cannot be read, read before the values of the lines ahead of it
                # in its batch were made: an earlier line's own error is the one to report
                for earlier in pending:
                    to_draft(earlier, actor)
                raise
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
        try:
            results = hall.write_many(actor, domain, [entry for _, entry in todo],
                                      targets if any(t is not None for t in targets) else ())
        except MemhallError as error:  # refused (and recorded): say which line
            if error.item is not None and 0 <= error.item < len(todo):
                error.args = (f"{todo[error.item][0].label}: {error}", *error.args[1:])
            raise
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
