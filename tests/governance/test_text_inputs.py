"""Free text given to any use case (a reason, a need, a note, a thread) is stored as text on
both backends or refused with one line: PostgreSQL cannot store a NUL, so SQLite must not
either, and neither may end in an internal error."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any
from uuid import UUID

import pytest

from memhall.domains.entry import draft
from memhall.domains.errors import MemhallError
from memhall.domains.opinion import Stance as OpinionStance
from memhall.domains.promotion import Stance
from memhall.domains.relationship import Visibility
from memhall.domains.values import Layer
from memhall.governance import perspective, promotions, requests, sessions, trust
from memhall.governance.hall import Hall
from memhall.governance.recompute import verify_read_models

NUL = "the disk\x00is full"
_count = itertools.count()


def entry(hall: Hall) -> UUID:
    return UUID(hall.write("codex", "company", draft(text=f"the nas is full ({next(_count)})", layer="L2")).entry_id)


def nominated(hall: Hall) -> UUID:
    return promotions.nominate(hall, "claude", "company", entry(hall), Layer.L3, "held for a week").id


CASES: dict[str, Callable[[Hall], Any]] = {
    "a request's need": lambda h: requests.request_memory(h, "codex", "company", "gemini", NUL),
    "a retirement's reason": lambda h: h.retire("maki", "company", entry(h), NUL),
    "a supersede's reason": lambda h: h.write("codex", "company", draft(text="the nas has room", layer="L2"),
                                              supersedes=entry(h), reason=NUL),
    "a nomination's reason": lambda h: promotions.nominate(h, "claude", "company", entry(h), Layer.L3, NUL),
    "a rejection's reason": lambda h: promotions.reject(h, "maki", "company", nominated(h), NUL),
    "a withdrawal's reason": lambda h: promotions.withdraw(h, "claude", "company", nominated(h), NUL),
    "a dissent's reason": lambda h: promotions.dissent(h, "gemini", "company", nominated(h), Stance.DISAGREE, NUL),
    "a trust setting's reason": lambda h: trust.set_trust(h, "maki", "company", source="codex", value=0.5,
                                                          reason=NUL),
    "a wrap-up's open loop": lambda h: sessions.wrap_up(h, "codex", "company", "done", opens=[NUL]),
    "an entry's thread": lambda h: h.write("codex", "company", draft(text="x", thread=NUL)),
    "a relationship's entity": lambda h: perspective.relate(h, "codex", "company", NUL, "kura", kind="owns",
                                                            visibility=Visibility.PUBLIC),
    "a relationship's note": lambda h: perspective.relate(h, "codex", "company", "maki", "kura", kind="owns",
                                                          visibility=Visibility.PUBLIC, note=NUL),
    "an opinion's statement": lambda h: perspective.opinion(h, "codex", "company", "kura", category="disk",
                                                            statement=NUL, stance=OpinionStance.NEGATIVE),
}


@pytest.mark.parametrize("what", ["entity", "category"])
def test_an_entity_or_category_longer_than_a_tag_is_one_line(hall: Hall, what: str) -> None:
    names = {"entity": "kura", "category": "disk", what: "k" * 129}
    with pytest.raises(MemhallError, match=f"holds at most 128 characters, not 129"):
        perspective.opinion(hall, "codex", "company", names["entity"], category=names["category"],
                            statement="it is failing", stance=OpinionStance.NEGATIVE)


@pytest.mark.parametrize("case", list(CASES))
def test_text_holding_a_nul_is_refused_with_one_line_and_nothing_of_it_is_stored(hall: Hall, case: str) -> None:
    with pytest.raises(MemhallError) as refused:
        CASES[case](hall)

    assert "contains a NUL character" in str(refused.value) and "\n" not in str(refused.value)
    assert all(report.ok for report in verify_read_models(hall.streams, ["company"]))


def test_a_seat_asked_for_that_no_principal_could_have_is_one_line_not_a_query(hall: Hall) -> None:
    with pytest.raises(MemhallError, match="invalid principal name"):
        requests.pending(hall, "codex", "company", seat="gem\x00ini")
