"""Attacks on a SQLite store by someone holding the file; each must be detected."""

from __future__ import annotations

import hashlib
import sqlite3
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from memhall.audit import checkpoints
from memhall.audit.chain import GENESIS, ChainedEvent, link
from memhall.audit.verify import Problem
from memhall.policies.engine import PolicySet
from tests.audit.conftest import (
    LAST,
    REFUSAL,
    copy_store,
    raw,
    take_checkpoint,
    verify,
    write_more,
)

EVENTS, CHAIN = "mh_company_events", "mh_company_chain"

Run = Callable[[Path, Path, PolicySet], None]


@dataclass(frozen=True)
class Attack:
    name: str
    run: Run  # (store file, checkpoint file, policies)
    domain: str
    position: int
    problem: Problem


def state_at(conn: sqlite3.Connection, position: int) -> bytes:
    return bytes(conn.execute(f"SELECT state FROM {EVENTS} WHERE id = ?", (position,)).fetchone()[0])


def set_state(conn: sqlite3.Connection, position: int, state: bytes) -> None:
    conn.execute(f"UPDATE {EVENTS} SET state = ? WHERE id = ?", (state, position))


def edited(state: bytes) -> bytes:
    changed = state.replace(b"company fact number", b"company fact NUMBER")
    assert changed != state
    return changed


def edit_a_payload(db: Path, _file: Path, _policies: PolicySet) -> None:
    with raw(db) as conn:
        set_state(conn, 4, edited(state_at(conn, 4)))


def store_an_edited_payload_as_text(db: Path, _file: Path, _policies: PolicySet) -> None:
    """SQLite keeps whatever type an edit gives a column: here TEXT, not the BLOB the hall writes."""
    with raw(db) as conn:
        set_state(conn, 4, edited(state_at(conn, 4)).decode())  # type: ignore[arg-type]


def rewrite_an_originator_as_text(db: Path, _file: Path, _policies: PolicySet) -> None:
    with raw(db) as conn:
        conn.execute(f"UPDATE {EVENTS} SET originator_id = 'not a uuid at all' WHERE id = 4")


def delete_an_event(db: Path, _file: Path, _policies: PolicySet) -> None:
    with raw(db) as conn:
        conn.execute(f"DELETE FROM {EVENTS} WHERE id = 4")


def erase_a_refusal_with_its_chain_row(db: Path, _file: Path, _policies: PolicySet) -> None:
    with raw(db) as conn:
        conn.execute(f"DELETE FROM {EVENTS} WHERE id = ?", (REFUSAL,))
        conn.execute(f"DELETE FROM {CHAIN} WHERE position = ?", (REFUSAL,))


def swap_two_payloads(db: Path, _file: Path, _policies: PolicySet) -> None:
    with raw(db) as conn:
        third, fifth = state_at(conn, 3), state_at(conn, 5)
        set_state(conn, 3, fifth)
        set_state(conn, 5, third)


def reorder_two_events(db: Path, _file: Path, _policies: PolicySet) -> None:
    with raw(db) as conn:
        conn.execute(f"UPDATE {EVENTS} SET id = -3 WHERE id = 3")
        conn.execute(f"UPDATE {EVENTS} SET id = 3 WHERE id = 4")
        conn.execute(f"UPDATE {EVENTS} SET id = 4 WHERE id = -3")


def insert_a_forged_event(db: Path, _file: Path, _policies: PolicySet) -> None:
    with raw(db) as conn:
        forged = state_at(conn, 2).replace(b"company fact number 0", b"the owner approved everything")
        conn.execute(
            f"INSERT INTO {EVENTS} (id, originator_id, originator_version, topic, state) VALUES (?, ?, 1, ?, ?)",
            (LAST + 1, uuid.uuid4().bytes, "memhall.Entry.Written", forged),
        )


def edit_a_chain_row(db: Path, _file: Path, _policies: PolicySet) -> None:
    with raw(db) as conn:
        conn.execute(f"UPDATE {CHAIN} SET head = ? WHERE position = 5", (hashlib.sha256(b"x").hexdigest(),))


def truncate_the_tail(db: Path, file: Path, _policies: PolicySet) -> None:
    take_checkpoint(db, file)
    with raw(db) as conn:
        conn.execute(f"DELETE FROM {EVENTS} WHERE id > ?", (REFUSAL,))
        conn.execute(f"DELETE FROM {CHAIN} WHERE position > ?", (REFUSAL,))


def restore_an_older_copy(db: Path, file: Path, policies: PolicySet) -> None:
    older = db.with_name("older.db")
    copy_store(db, older)
    write_more(db, policies, 3)
    take_checkpoint(db, file)
    copy_store(older, db)


def restore_an_older_copy_then_write_on(db: Path, file: Path, policies: PolicySet) -> None:
    restore_an_older_copy(db, file, policies)
    write_more(db, policies, 4)


def recompute_the_chain(conn: sqlite3.Connection) -> None:
    head, rows = GENESIS, []
    for position, oid, version, topic, state in conn.execute(
        f"SELECT id, originator_id, originator_version, topic, state FROM {EVENTS} ORDER BY id"
    ).fetchall():
        head = link("company", head, ChainedEvent(position, uuid.UUID(bytes=bytes(oid)), version,
                                                  topic, bytes(state)))
        rows.append((position, head))
    conn.execute(f"DELETE FROM {CHAIN}")
    conn.executemany(f"INSERT INTO {CHAIN} (position, head) VALUES (?, ?)", rows)
    conn.execute("UPDATE mh_company_head SET position = ?, head = ?", rows[-1])


def edit_then_recompute_the_chain(db: Path, file: Path, _policies: PolicySet) -> None:
    take_checkpoint(db, file)
    with raw(db) as conn:
        set_state(conn, 4, edited(state_at(conn, 4)))
        recompute_the_chain(conn)


def erase_after_the_checkpoint_and_recompute(db: Path, file: Path, policies: PolicySet) -> None:
    take_checkpoint(db, file)
    write_more(db, policies, 3)
    with raw(db) as conn:
        conn.execute(f"DELETE FROM {EVENTS} WHERE id = ?", (LAST + 2,))
        recompute_the_chain(conn)


def drop_a_whole_domain(db: Path, file: Path, _policies: PolicySet) -> None:
    take_checkpoint(db, file)
    with raw(db) as conn:
        names = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name LIKE 'mh_family_%' "
            "AND name NOT LIKE 'mh_family_search_%'")]
        for name in names:
            conn.execute(f"DROP TABLE {name}")
        conn.execute("DELETE FROM mh_domains WHERE name = 'family'")


ATTACKS = [
    Attack("edit a payload", edit_a_payload, "company", 4, Problem.EDITED),
    Attack("store an edited payload as text", store_an_edited_payload_as_text, "company", 4, Problem.EDITED),
    Attack("rewrite an originator id as text", rewrite_an_originator_as_text, "company", 4, Problem.EDITED),
    Attack("delete an event", delete_an_event, "company", 4, Problem.EVENT_MISSING),
    Attack("erase a refusal and its chain row", erase_a_refusal_with_its_chain_row, "company",
           REFUSAL, Problem.GAP),
    Attack("erase an event after the checkpoint, recompute the chain",
           erase_after_the_checkpoint_and_recompute, "company", LAST + 2, Problem.GAP),
    Attack("swap two payloads", swap_two_payloads, "company", 3, Problem.EDITED),
    Attack("reorder two events", reorder_two_events, "company", 3, Problem.DIVERGED),
    Attack("insert a forged event", insert_a_forged_event, "company", LAST + 1, Problem.UNCHAINED),
    Attack("edit a chain row", edit_a_chain_row, "company", 5, Problem.CHAIN_EDITED),
    Attack("truncate the tail", truncate_the_tail, "company", LAST, Problem.TRUNCATED),
    Attack("restore an older copy", restore_an_older_copy, "company", LAST + 3, Problem.TRUNCATED),
    Attack("restore an older copy, then write on", restore_an_older_copy_then_write_on, "company",
           LAST + 3, Problem.REWRITTEN),
    Attack("edit, then recompute the whole chain", edit_then_recompute_the_chain, "company", LAST,
           Problem.REWRITTEN),
    Attack("drop a whole domain", drop_a_whole_domain, "family", 3, Problem.STREAM_MISSING),
]


def detects(attack: Attack, db: Path, policies: PolicySet) -> bool:
    file = db.parent / "checkpoints.jsonl"
    attack.run(db, file, policies)
    reports = verify(db, checkpoints.load(file) if file.exists() else None)
    broken = reports[attack.domain].broken
    others = [r.domain for r in reports.values() if r.domain != attack.domain and not r.ok]
    return (broken is not None and broken.position == attack.position
            and broken.problem is attack.problem and not others)


@pytest.mark.parametrize("attack", ATTACKS, ids=[a.name for a in ATTACKS])
def test_each_attack_is_detected_where_it_happened(attack: Attack, db: Path, policies: PolicySet) -> None:
    file = db.parent / "checkpoints.jsonl"

    attack.run(db, file, policies)

    reports = verify(db, checkpoints.load(file) if file.exists() else None)
    broken = reports[attack.domain].broken
    assert broken is not None, f"{attack.name}: not detected"
    assert (broken.position, broken.problem) == (attack.position, attack.problem), broken.detail
    assert [r.domain for r in reports.values() if not r.ok] == [attack.domain]


def test_every_attack_tried_is_detected(db: Path, tmp_path: Path, policies: PolicySet) -> None:
    copies = []
    for n, _attack in enumerate(ATTACKS):
        (tmp_path / f"attack{n}").mkdir()
        copies.append(tmp_path / f"attack{n}" / "memhall.db")
        copy_store(db, copies[-1])

    detected = sum(detects(attack, copy, policies) for attack, copy in zip(ATTACKS, copies))

    print(f"detected {detected} of {len(ATTACKS)} tried")
    assert detected == len(ATTACKS)


def test_a_recomputed_chain_passes_without_checkpoints_which_is_why_they_exist(
    db: Path, policies: PolicySet
) -> None:
    edit_then_recompute_the_chain(db, db.parent / "unused.jsonl", policies)

    assert verify(db)["company"].ok
