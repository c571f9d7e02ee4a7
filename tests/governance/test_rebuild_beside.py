"""A large rebuild's SQL runs in a process beside it: its errors come back once, and a
writer that is gone is an error, never a wait."""

from __future__ import annotations

import pytest

from memhall.domains.errors import MemhallError
from memhall.governance.hall import Hall
from memhall.governance.pipelined import Beside
from memhall.governance.projection.plans import ONE


def test_an_error_in_the_writer_process_is_raised_once_and_it_runs_nothing_more(hall: Hall) -> None:
    writer = Beside(hall.store, "mh_company_")
    writer.submit([(ONE, "INSERT INTO mh_company_nowhere VALUES (1)", ())], 1)
    writer.submit([(ONE, "DELETE FROM mh_company_audit", ())], 1)

    with pytest.raises(Exception, match="nowhere"):
        writer.close()

    assert writer.done == 0
    assert writer._process.returncode == 0


def test_a_writer_process_that_died_is_an_error_not_a_wait(hall: Hall) -> None:
    writer = Beside(hall.store, "mh_company_")
    writer._process.kill()
    writer._process.wait()

    with pytest.raises(MemhallError, match="writer process stopped"):
        writer.read(("fetch", "threads", "alpha"))
    writer.close(failed=True)


def test_the_writer_process_answers_reads_after_the_plans_before_them(hall: Hall) -> None:
    writer = Beside(hall.store, "mh_company_")
    writer.submit([(ONE, "INSERT INTO mh_company_threads (thread, entries, last_entry, last_at, position) "
                         "VALUES ('alpha', 3, 'e', '2026-12-01T00:00:00.000000Z', 9)", ())], 1)

    found = writer.read(("fetch", "threads", "alpha"))
    writer.close()

    assert found is not None and found["entries"] == 3
    assert writer.done == 1
