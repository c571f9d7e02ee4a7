"""A write made ready before its domain's lock commits only if what it was made under still
holds once it has the lock: the charter, the dedup and idempotency answers (another process
writes meanwhile); and its time is the time it takes its place in the log."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path
from uuid import UUID, uuid4

import pytest
from sqlalchemy import text

from memhall.domains.entry import draft
from memhall.domains.errors import RefusedError
from memhall.governance import charters, prepared
from memhall.governance.encodings import encoded
from memhall.governance.facts import draft_facts, write_action
from memhall.governance.hall import Hall
from memhall.governance.seal import POLICY_NOT_ADOPTED
from memhall.governance.store import Store
from memhall.governance.tables import tables_for
from memhall.policies.engine import PolicySet, init_policy_dir
from memhall.policies.model import PolicyRequest
from tests.governance.test_concurrency import wait_until_waiting_on_a_lock

ROOT = Path(__file__).resolve().parents[2]

#: a writer process: one write to read the charter (so its next writes are prepared before the
#: lock, under the charter it read then), then one write per line of stdin: TEXT<tab>KEY
WRITER = """
import sys
from pathlib import Path
from memhall.domains.entry import draft
from memhall.governance.hall import Hall
from memhall.governance.store import Store
from memhall.policies.engine import PolicySet
hall = Hall(Store(sys.argv[1]), PolicySet.load(Path(sys.argv[2]) if sys.argv[2] else None), warn=lambda _message: None)
hall.write("codex", "company", draft(text="warm-up: this process reads the charter"))
print("ready", flush=True)
for line in sys.stdin:
    said, key = line.rstrip("\\n").split("\\t")
    try:
        done = hall.write("codex", "company", draft(text=said, idempotency_key=key or None))
        print(f"wrote {done.entry_id} duplicate_of={done.duplicate_of} replayed={done.replayed}", flush=True)
    except Exception as error:
        print(f"refused {getattr(error, 'rule', type(error).__name__)}", flush=True)
"""


def writer(url: str, policy: Path | None = None, name: str = "") -> subprocess.Popen[str]:
    if name:
        url = f"{url}{'&' if '?' in url else '?'}application_name={name}"
    process = subprocess.Popen([sys.executable, "-c", WRITER, url, str(policy or "")], cwd=ROOT,
                               env={"PYTHONPATH": str(ROOT)}, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "ready", process.communicate(timeout=60)[1]
    return process


def ask(process: subprocess.Popen[str], said: str, key: str = "") -> None:
    assert process.stdin is not None
    process.stdin.write(f"{said}\t{key}\n")
    process.stdin.flush()


def answer(process: subprocess.Popen[str]) -> str:
    assert process.stdout is not None
    line = process.stdout.readline().strip()
    assert line, process.communicate(timeout=60)[1]
    return line


def finish(process: subprocess.Popen[str]) -> None:
    error = process.communicate(timeout=120)[1]
    assert process.returncode == 0, error


def rows(store: Store, sql: str) -> list[tuple[object, ...]]:
    with store.read() as conn:
        return [tuple(r) for r in conn.execute(text(sql))]


def test_a_plain_write_is_made_before_the_lock_once_the_process_has_read_the_charter(hall: Hall) -> None:
    """On PostgreSQL a process's first write reads the charter itself, before the lock (its
    write then takes the lock in the round trip of its append: `at_once`); on SQLite the first
    write reads it under the lock."""
    stream = hall.streams.stream("company")
    entry = draft(text="the export job moved to fridays")
    request = PolicyRequest(principal="codex", action=write_action(entry), domain="company",
                            **draft_facts(entry, "codex"))
    encoding = encoded(hall.encoder, entry, "codex", hall.clock())
    hall.seal._read.clear()  # type: ignore[union-attr] # a process that has not read the charter yet

    first = prepared.prepare(hall, stream, request, entry, encoding)
    hall.write("codex", "company", draft(text="anything, read under the lock"))
    then = prepared.prepare(hall, stream, request, entry, encoding)

    assert (first is None) is (hall.store.dialect == "sqlite")
    assert then is not None and then.events[0].state["policy"] == hall.seal.digest  # type: ignore[union-attr]


def test_a_write_made_under_a_charter_replaced_before_it_commits_is_refused(
        store_url: str, tmp_path: Path) -> None:
    ours = tmp_path / "ours"
    init_policy_dir(ours)
    theirs = tmp_path / "theirs"
    shutil.copytree(ours, theirs)
    roles = theirs / "roles.yaml"
    roles.write_text(roles.read_text().replace("codex: agent", "codex: human"))
    hall = Hall(Store(store_url), PolicySet.load(ours), warn=lambda _message: None)
    hall.create_domain("maki", "company")
    process = writer(store_url, ours)  # read the charter adopting `ours`

    charters.adopt(Hall(hall.store, PolicySet.load(theirs), warn=lambda _message: None), "maki", "company")
    ask(process, "the export job moved to fridays")
    outcome = answer(process)
    finish(process)

    assert outcome == f"refused {POLICY_NOT_ADOPTED}"
    entries = tables_for("company").entries.name
    assert rows(hall.store, f"SELECT count(*) FROM {entries} WHERE text = 'the export job moved to fridays'") == [(0,)]
    refusals = [t for (t,) in rows(hall.store, f"SELECT topic FROM {tables_for('company').events_name} ORDER BY id")
                if t == "memhall.Refusal.Recorded"]
    assert len(refusals) == 1  # recorded under the lock, by the write decided again there
    hall.store.dispose()


def test_a_memory_written_meanwhile_by_another_process_makes_a_prepared_write_a_duplicate(
        store_url: str) -> None:
    hall = Hall(Store(store_url), PolicySet.load(None))
    hall.create_domain("maki", "company")
    process = writer(store_url)

    first = hall.write("codex", "company", draft(text="the export job moved to fridays"))
    keyed = hall.write("codex", "company", draft(text="payroll closes on the 25th", idempotency_key="k1"))
    hall.retire("maki", "company", UUID(keyed.entry_id), "kept by its key alone")  # no active duplicate
    ask(process, "the export job moved to fridays")
    ask(process, "payroll closes on the 25th", "k1")
    outcomes = [answer(process), answer(process)]
    finish(process)

    assert outcomes == [f"wrote {first.entry_id} duplicate_of={first.entry_id} replayed=False",
                        f"wrote {keyed.entry_id} duplicate_of={keyed.entry_id} replayed=True"]  # by its key
    entries = tables_for("company").entries.name
    assert rows(hall.store, f"SELECT count(*) FROM {entries} WHERE text <> "
                            "'warm-up: this process reads the charter'") == [(2,)]
    hall.store.dispose()


def test_on_postgresql_a_write_made_before_another_commits_after_it_is_timed_after_it(store_url: str) -> None:
    if not store_url.startswith("postgresql"):
        pytest.skip("SQLite's writers wait for its write lock before they are seen waiting")
    hall = Hall(Store(store_url), PolicySet.load(None))
    hall.create_domain("maki", "company")
    name = f"memhall_prepared_{uuid4().hex[:8]}"
    process = writer(store_url, name=name)
    with hall.writing(hall.streams.stream("company")):  # the domain's lock, held until the block ends
        ask(process, "the export job moved to fridays")  # made now, then waits for the lock
        wait_until_waiting_on_a_lock(store_url, name, process)
        hall.write("codex", "company", draft(text="payroll closes on the 25th"))  # made and logged first
    outcome = answer(process)
    finish(process)

    assert outcome.startswith("wrote ")
    entries = tables_for("company").entries.name
    order = rows(hall.store, f"SELECT text, created_at, created_position FROM {entries} "
                             "WHERE text <> 'warm-up: this process reads the charter' ORDER BY created_position")
    assert [t for t, _, _ in order] == ["payroll closes on the 25th", "the export job moved to fridays"]
    assert order[0][1] <= order[1][1]  # type: ignore[operator] # its time is when it took its place
    hall.store.dispose()


def test_a_charter_edited_in_place_after_this_process_read_it_is_read_again_before_a_write(
        store_url: str) -> None:
    hall = Hall(Store(store_url), PolicySet.load(None), warn=lambda _message: None)
    hall.create_domain("maki", "company")
    hall.write("codex", "company", draft(text="the charter is read, and kept"))
    events = tables_for("company").events_name
    with hall.store.write() as conn:  # the charter's one event, its digest changed (the same length)
        ident, state = conn.execute(text(f"SELECT id, state FROM {events} "
                                         "WHERE topic = 'memhall.Charter.Opened'")).one()
        adopted = f'"digest":"{hall.seal.digest}"'.encode()  # type: ignore[union-attr]
        assert adopted in bytes(state)
        conn.execute(text(f"UPDATE {events} SET state = :state WHERE id = :id"),
                     {"state": bytes(state).replace(adopted, b'"digest":"' + b"0" * 64 + b'"'), "id": ident})

    with pytest.raises(RefusedError) as refused:
        hall.write("codex", "company", draft(text="the export job moved to fridays"))

    assert refused.value.rule == POLICY_NOT_ADOPTED
    hall.store.dispose()


def test_a_key_replayed_by_writers_waiting_on_the_lock_returns_the_first_write_and_writes_nothing(
        store_url: str) -> None:
    hall = Hall(Store(store_url), PolicySet.load(None))
    hall.create_domain("maki", "company")
    names = [f"memhall_replay_{uuid4().hex[:8]}" for _ in range(3)]
    processes = [writer(store_url, name=name) for name in names]
    events = tables_for("company").events_name
    before = rows(hall.store, f"SELECT count(*) FROM {events}")[0][0]

    with hall.writing(hall.streams.stream("company")):  # the domain's lock, held until the block ends
        for process in processes:
            ask(process, "payroll closes on the 25th", "k1")  # prepared now, then waits for the lock
        if store_url.startswith("postgresql"):
            for name, process in zip(names, processes):
                wait_until_waiting_on_a_lock(store_url, name, process)
        first = hall.write("codex", "company", draft(text="payroll closes on the 25th", idempotency_key="k1"))
    outcomes = [answer(process) for process in processes]
    for process in processes:
        finish(process)

    assert outcomes == [f"wrote {first.entry_id} duplicate_of={first.entry_id} replayed=True"] * 3
    assert rows(hall.store, f"SELECT count(*) FROM {events}")[0][0] == before + 1  # the first write's event
    hall.store.dispose()
