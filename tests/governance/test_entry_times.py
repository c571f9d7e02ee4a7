"""When a memory happened is never after it was recorded: a write saying so is refused with
one line, and an entry of an older version that says so is read as happening when recorded
(it made every listing of the domain's beliefs fail)."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from itertools import chain, repeat
from uuid import UUID

import pytest

from memhall.domains.entry import Entry, draft
from memhall.domains.errors import InvalidValueError
from memhall.governance import beliefs, history, transfer
from memhall.governance.hall import Hall

LATER = datetime.now(timezone.utc) + timedelta(days=365)


def test_a_memory_dated_after_now_is_refused_and_nothing_is_stored(hall: Hall) -> None:
    with pytest.raises(InvalidValueError, match="is later than now"):
        hall.write("codex", "company", draft(text="the audit passed", occurred_at=LATER))
    with pytest.raises(InvalidValueError, match="^line 1: occurred_at .* is later than now$"):
        transfer.run_import(hall, "codex", "company", transfer.jsonl([
            f'{{"text": "the audit passed", "occurred_at": "{LATER.isoformat()}"}}'.encode()]))

    assert history.search(hall, "codex", "company", "audit").results == []


def test_an_older_entry_dated_after_its_recording_is_read_as_happening_when_recorded(
        hall: Hall, monkeypatch: pytest.MonkeyPatch) -> None:
    real = Entry.Written.create_timestamp
    times = chain([LATER + timedelta(days=1)], repeat(None))  # the write's own check passes once

    def stamped() -> datetime:
        made = next(times)
        return made if made is not None else real()

    monkeypatch.setattr(Entry.Written, "create_timestamp", staticmethod(stamped))
    written = hall.write("codex", "company", draft(text="the audit passed", occurred_at=LATER))
    monkeypatch.undo()

    shown = history.show(hall, "codex", "company", UUID(written.entry_id))
    listed = beliefs.beliefs(hall, "codex", "company")

    assert shown.entry.text == "the audit passed"
    assert written.entry_id in [b.entry_id for b in listed.beliefs]
