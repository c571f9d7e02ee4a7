"""The one stored form of a moment: fixed width and parseable for every year a datetime has."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

import pytest

from memhall.domains.moments import from_iso, iso
from memhall.ledgers.recall.pool import moment


@pytest.mark.parametrize("year", [1, 999, 1000, 2026, 9999])
def test_every_year_is_stored_in_four_digits_and_read_back(year: int) -> None:
    when = datetime(year, 3, 2, 9, 30, 1, 7, tzinfo=timezone.utc)

    stored = iso(when)

    assert len(stored) == 27 and stored.startswith(f"{year:04d}-")
    assert from_iso(stored) == moment(stored) == when


def test_a_time_an_older_version_stored_without_padding_is_still_read() -> None:
    assert from_iso("1-01-01T00:00:00.000000Z") == moment("1-01-01T00:00:00.000000Z") == datetime(
        1, 1, 1, tzinfo=timezone.utc)


def test_an_offset_is_stored_as_the_same_instant_in_utc() -> None:
    assert iso(datetime(2026, 3, 2, 11, 0, tzinfo=timezone(timedelta(hours=2)))) == "2026-03-02T09:00:00.000000Z"
