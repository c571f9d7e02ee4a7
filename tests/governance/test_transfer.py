"""Bulk import through the governed batch path, idempotent by line; export writes the same lines."""

from __future__ import annotations

import json
from pathlib import Path
from uuid import UUID

import pytest

from memhall.domains.entry import draft
from memhall.domains.errors import InvalidValueError, PolicyDeniedError
from memhall.governance import history, sessions, transfer
from memhall.governance.hall import Hall

FLIPS = [
    {"text": "x is 1", "kind": "state", "layer": "L2", "tags": ["x"], "key": "a"},
    {"text": "x is 2", "kind": "state", "layer": "L2", "tags": ["x"], "key": "b", "supersedes": "a"},
    {"text": "x is 1", "kind": "state", "layer": "L2", "tags": ["x"], "key": "c", "supersedes": "b"},
    {"text": "the auditor liked it", "author": "gemini", "occurred_at": "2026-01-05T10:00:00Z",
     "tags": {"people": ["auditor"]}, "evidence": ["mail-7"], "layer": "L2"},
]


def lines(rows: list[dict[str, object]]) -> list[bytes]:
    return [json.dumps(r).encode() for r in rows]


def test_importing_the_same_lines_twice_writes_nothing_even_when_a_value_flips_back(hall: Hall) -> None:
    first = transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(FLIPS)))
    again = transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(FLIPS)))

    assert (first.written, again.written, again.already) == (4, 0, 4)
    value = sessions.current_state(hall, "codex", "company", topic="x").values[0].entry
    assert value.text == "x is 1" and value.id == first.entries["c"]


def test_a_refused_line_is_named_by_its_number_and_the_refusal_is_recorded(hall: Hall) -> None:
    rows: list[dict[str, object]] = [{"text": f"note {i}"} for i in range(5)]
    rows[3] = {"text": "we decided to move billing to v2", "kind": "decision", "layer": "L2"}
    refusals = len([t for t in hall.streams.topics("company") if "Refus" in t])

    with pytest.raises(PolicyDeniedError, match=r"^line 4: refused: .*decision") as refused:
        transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(rows)))

    assert refused.value.rule == "decisions-only-by-ratification"
    assert len([t for t in hall.streams.topics("company") if "Refus" in t]) == refusals + 1
    assert not [t for t in hall.streams.topics("company") if t.endswith("Entry.Written")]  # the batch: none of it


def test_a_lines_author_is_provenance_and_the_importer_is_the_actor(hall: Hall) -> None:
    report = transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(FLIPS[3:])))

    (entry_id,) = report.entries.values()
    entry = history.show(hall, "codex", "company", UUID(entry_id)).entry
    assert (entry.author, entry.source_kind, entry.source_agent_id) == ("codex", "hearsay", "gemini")
    assert entry.occurred_at.isoformat().startswith("2026-01-05T10:00")


def test_the_importer_is_asked_about_every_line(hall: Hall) -> None:
    with pytest.raises(PolicyDeniedError):
        transfer.run_import(hall, "gemini", "company", transfer.jsonl(lines(FLIPS[:1])))


def test_export_writes_back_the_lines_it_imported(hall: Hall) -> None:
    transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(FLIPS)))

    exported = list(transfer.export(hall, "codex", "company"))

    assert [(e["key"], e["text"], e.get("supersedes")) for e in exported[:3]] == [
        ("a", "x is 1", None), ("b", "x is 2", "a"), ("c", "x is 1", "b")]
    assert exported[3]["author"] == "gemini" and exported[3]["tags"] == {"people": ["auditor"]}
    again = transfer.run_import(hall, "codex", "company", transfer.jsonl([json.dumps(e).encode() for e in exported]))
    assert again.written == 0


def test_an_export_of_entries_written_one_by_one_imports_into_the_same_store_as_nothing(hall: Hall) -> None:
    old = hall.write("codex", "company", draft(text="x is 1", kind="state", layer="L2", tags={"topics": ["x"]}))
    hall.write("codex", "company", draft(text="x is 2", kind="state", layer="L2", tags={"topics": ["x"]}),
               supersedes=UUID(old.entry_id), reason="changed")

    exported = [json.dumps(e).encode() for e in transfer.export(hall, "codex", "company")]
    again = transfer.run_import(hall, "codex", "company", transfer.jsonl(exported))

    assert (again.read, again.written, again.already) == (2, 0, 2)


def test_a_folder_of_notes_is_one_entry_per_note_with_its_front_matter(hall: Hall, tmp_path: Path) -> None:
    (tmp_path / "deploy.md").write_text("---\ntags: [deploy]\ndate: 2026-02-01\nlayer: L2\nkind: state\n---\n"
                                        "# Deploy\n\nWe ship on Fridays.\n\n## Why\nQuiet weekend.\n")
    (tmp_path / "empty.md").write_text("---\ntags: [x]\n---\n")

    report = transfer.run_import(hall, "codex", "company", transfer.notes(tmp_path))

    value = sessions.current_state(hall, "codex", "company", topic="deploy").values[0].entry
    assert (report.read, report.written) == (1, 1)
    assert value.text.startswith("# Deploy") and "Quiet weekend." in value.text
    assert value.occurred_at.isoformat().startswith("2026-02-01")


def full_text_segments(hall: Hall) -> int:
    with hall.store.read() as conn:
        return int(conn.exec_driver_sql("SELECT count(DISTINCT segid) FROM mh_company_search_idx").scalar_one())


def test_a_large_import_leaves_the_full_text_index_in_one_segment(sqlite_hall: Hall,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite's FTS5 index (PostgreSQL's GIN index has no segments to merge)."""
    hall = sqlite_hall
    notes: list[dict[str, object]] = [{"text": f"note {n} on the export job", "layer": "L2", "key": f"n{n}"}
                                      for n in range(60)]
    monkeypatch.setattr(transfer, "OPTIMIZE_MIN", 10**9)
    transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(notes[:30])), batch=5)
    assert full_text_segments(hall) > 1  # a transaction a batch, a segment each

    monkeypatch.setattr(transfer, "OPTIMIZE_MIN", 30)
    report = transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(notes[30:])), batch=5)

    assert report.written == 30
    assert full_text_segments(hall) == 1
    found = history.search(hall, "codex", "company", "export job", limit=100)
    assert len(found.results) == 60


@pytest.mark.parametrize("field", ["text", "author", "occurred_at", "thread", "supersedes", "key", "tags",
                                   "evidence", "kind"])
def test_a_line_with_text_that_cannot_be_stored_is_one_line_naming_it_and_nothing_is_written(
        hall: Hall, field: str) -> None:
    bad = {"text": "the nas is full", "layer": "L2", field: "disk\u0000full"}
    if field in ("tags", "evidence"):
        bad[field] = ["disk\u0000full"]

    with pytest.raises(InvalidValueError) as refused:
        transfer.run_import(hall, "codex", "company", transfer.jsonl(lines([FLIPS[0], bad])))

    assert str(refused.value) == f"line 2: invalid {field}: contains a NUL character"
    assert history.search(hall, "codex", "company", "nas").results == []


@pytest.mark.parametrize(("field", "value", "message"), [
    ("author", "Not A Name!", "line 1: invalid principal name 'Not A Name!'"),
    ("occurred_at", "yesterday", "line 1: occurred_at 'yesterday' is not an ISO date or time"),
])
def test_a_bad_author_or_time_names_its_line_once(hall: Hall, field: str, value: str, message: str) -> None:
    with pytest.raises(InvalidValueError) as refused:
        transfer.run_import(hall, "codex", "company", transfer.jsonl(lines([{"text": "x", field: value}])))

    assert str(refused.value) == message


@pytest.mark.parametrize(("content", "message"), [
    (b"\xff\xfe not text", "note b/bad.md: not valid UTF-8"),
    (b"---\ntags: [a\n---\nbody\n", "note b/bad.md: invalid front matter (expected ',' or ']', but got "
                                    "'<stream end>' at its line 1)"),
    (b"---\ndate: 12345\n---\nbody\n", "note b/bad.md: occurred_at 12345 is not an ISO date or time"),
    (b"---\nthread: \"a\\0b\"\n---\nbody\n", "note b/bad.md: invalid thread: contains a NUL character"),
])
def test_a_bad_note_is_one_line_naming_the_note(hall: Hall, tmp_path: Path, content: bytes, message: str) -> None:
    (tmp_path / "a.md").write_text("a good note\n")
    (tmp_path / "b").mkdir()
    (tmp_path / "b" / "bad.md").write_bytes(content)

    with pytest.raises(InvalidValueError) as refused:
        transfer.run_import(hall, "codex", "company", transfer.notes(tmp_path))

    assert str(refused.value) == message


def test_a_file_saved_with_a_byte_order_mark_imports_as_the_same_lines_without_it(hall: Hall) -> None:
    rows = lines([{"text": "saved on windows"}, {"text": "second line"}])

    marked = transfer.run_import(hall, "codex", "company", transfer.jsonl([b"\xef\xbb\xbf" + rows[0], *rows[1:]]))
    plain = transfer.run_import(hall, "codex", "company", transfer.jsonl(rows))

    assert (marked.written, plain.written, plain.already) == (2, 0, 2)


@pytest.mark.parametrize("stored_before", [False, True])
def test_two_lines_giving_one_key_to_different_memories_are_refused_on_the_first_run(
        hall: Hall, stored_before: bool) -> None:
    if stored_before:  # the first line is then a duplicate: its key is stored nowhere
        hall.write("codex", "company", draft(text="x is 1"))
    rows = [{"text": "before"}, {"text": "x is 1", "key": "k"}, {"text": "x is 2", "key": "k"}]

    with pytest.raises(InvalidValueError) as refused:
        transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(rows)))

    assert str(refused.value) == "line 3: key 'k' is line 2's too, with other text or kind"
    texts = [e["text"] for e in transfer.export(hall, "codex", "company")]
    assert texts == (["x is 1"] if stored_before else [])  # nothing of the batch was written


def test_two_lines_giving_one_key_to_the_same_memory_write_it_once(hall: Hall) -> None:
    rows = [{"text": "x is 1", "key": "k", "tags": ["x"]}, {"text": "X is  1", "key": "k"}]

    first = transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(rows)))
    again = transfer.run_import(hall, "codex", "company", transfer.jsonl(lines(rows)))

    assert (first.written, again.written, again.already) == (1, 0, 2)
    assert [e["text"] for e in transfer.export(hall, "codex", "company")] == ["x is 1"]


@pytest.mark.parametrize("unreadable", [b"not json at all", b'{"text": "x", "colour": "red"}',
                                        b'{"text": "a NUL \\u0000 here"}'])
def test_a_bad_file_reports_its_first_bad_line_whatever_kind_of_fault_comes_later(
        hall: Hall, unreadable: bytes) -> None:
    rows = [*lines([{"text": "fine"}, {"text": "also fine"}, {"text": ""}, {"text": "fine again"}]), unreadable]

    with pytest.raises(InvalidValueError, match=r"^line 3: .*empty"):
        transfer.run_import(hall, "codex", "company", transfer.jsonl(rows))

    assert not [t for t in hall.streams.topics("company") if t.endswith("Entry.Written")]
