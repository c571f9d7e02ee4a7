"""Reviewing the audit log: filters, a reproducible sample, CSV export."""

from __future__ import annotations

import csv
import io
from datetime import datetime, timedelta, timezone

import pytest

from memhall.audit import review
from memhall.audit.review import AuditRow, AuditSource, Filters
from memhall.domains.entry import draft
from memhall.domains.errors import InvalidValueError, PolicyDeniedError
from memhall.governance.hall import Hall
from memhall.governance.tables import tables_for

COMPANY = [AuditSource("company", tables_for("company").audit.name)]


def rows(hall: Hall, filters: Filters = Filters(), sources: list[AuditSource] = COMPANY) -> list[AuditRow]:
    with hall.store.read() as conn:
        return review.rows(conn, sources, filters)


@pytest.fixture
def reviewed(hall: Hall) -> Hall:
    """company: opened by maki, 12 writes by codex (L1 and L2), 2 refusals of gemini."""
    for n in range(12):
        hall.write("codex", "company", draft(text=f"fact {n}", layer="L2" if n % 2 else "L1"))
    for n in range(2):
        with pytest.raises(PolicyDeniedError):
            hall.write("gemini", "company", draft(text=f"seat fact {n}", layer="L2"))
    return hall


def test_every_row_names_the_rule_that_decided_it(reviewed: Hall) -> None:
    found = rows(reviewed)

    assert len(found) == 16  # the domain's opening, its charter (the policy adopted on first use), 12 writes, 2 refusals
    assert all(r.rule for r in found)
    assert {r.rule for r in found if r.decision == "refused"} == {"no-rule-permits"}


def test_filters_narrow_by_actor_decision_action_and_layer(reviewed: Hall) -> None:
    assert len(rows(reviewed, Filters(actor="gemini"))) == 2
    assert len(rows(reviewed, Filters(decision="refused", action="write_l2", layer="L2"))) == 2
    assert len(rows(reviewed, Filters(actor="codex", layer="L1"))) == 6
    assert rows(reviewed, Filters(actor="nobody")) == []


def test_time_bounds_keep_what_happened_between_them(reviewed: Hall) -> None:
    now = datetime.now(timezone.utc)
    today = now.date().isoformat()

    assert len(rows(reviewed, Filters(since=review.moment(today), until=review.moment(today, end=True)))) == 16  # the domain's opening, its charter (the policy adopted on first use), 12 writes, 2 refusals
    assert rows(reviewed, Filters(since=now + timedelta(minutes=5))) == []
    assert rows(reviewed, Filters(until=now - timedelta(days=1))) == []


def test_the_same_seed_samples_the_same_rows(reviewed: Hall) -> None:
    first = review.sample(rows(reviewed), 5, "2025-06")

    assert review.sample(rows(reviewed), 5, "2025-06") == first
    assert review.sample(rows(reviewed), 5, "2025-07") != first
    assert len(first) == 5 and first == sorted(first, key=lambda r: (r.at, r.domain, r.position))


def test_rows_appended_later_never_reshuffle_a_sample(reviewed: Hall) -> None:
    before = {r.position for r in review.sample(rows(reviewed), 5, "seed")}
    reviewed.write("codex", "company", draft(text="appended later", layer="L2"))

    after = {r.position for r in review.sample(rows(reviewed), 5, "seed")}

    assert len(before - after) <= 1


def test_the_csv_export_has_a_header_and_one_line_per_row(reviewed: Hall) -> None:
    exported = list(csv.DictReader(io.StringIO(review.to_csv(rows(reviewed)))))

    assert len(exported) == 16  # the domain's opening, its charter (the policy adopted on first use), 12 writes, 2 refusals
    assert list(exported[0]) == list(review.COLUMNS)
    assert exported[-1]["decision"] == "refused" and exported[-1]["rule"] == "no-rule-permits"


def test_a_bare_until_date_includes_that_whole_day() -> None:
    assert review.moment("2025-03-31", end=True) == datetime(2025, 4, 1, tzinfo=timezone.utc)
    assert review.moment("2025-03-31T12:00+02:00") == datetime(2025, 3, 31, 10, tzinfo=timezone.utc)


def test_a_date_that_is_not_iso_is_refused() -> None:
    with pytest.raises(InvalidValueError, match="31/03/2025"):
        review.moment("31/03/2025")
