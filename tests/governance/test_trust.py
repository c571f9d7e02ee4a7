"""Source trust is the subjective claim of category `trust`: set, recorded, read with its causes."""

from __future__ import annotations

import pytest

from memhall.domains.errors import RefusedError
from memhall.domains.opinion import TRUST, SubjectiveClaim, opinion_id
from memhall.governance import trust
from memhall.governance.hall import Hall
from memhall.governance.recompute import verify_read_models


def test_the_owner_sets_trust_and_each_number_keeps_the_events_behind_it(hall: Hall) -> None:
    trust.set_trust(hall, "maki", "company", source="codex", value=0.3, topic="nas", reason="flaky")

    view = trust.set_trust(hall, "maki", "company", source="codex", value=0.2, topic="NAS",
                           reason="worse")

    assert (view.observer, view.source, view.topic, view.value) == ("@hall", "codex", "nas", 0.2)
    assert [(c.change, c.value, c.detail) for c in view.causes] == [("set", 0.3, "flaky"),
                                                                    ("set", 0.2, "worse")]
    assert all(r.ok for r in verify_read_models(hall.streams))


def test_trust_is_stored_as_one_subjective_claim_per_observer_source_and_topic(hall: Hall) -> None:
    trust.set_trust(hall, "maki", "company", source="codex", value=0.8, reason="reliable")

    claim = hall.streams.stream("company").get(
        opinion_id("company", "@hall", "codex", TRUST, None), kind=SubjectiveClaim)

    assert (claim.category, claim.entity, claim.value, claim.confidence, claim.active) == (
        "trust", "codex", 0.8, 80, True)


def test_only_the_ratify_owner_sets_trust(hall: Hall) -> None:
    with pytest.raises(RefusedError):
        trust.set_trust(hall, "codex", "company", source="codex", value=1.0, reason="me")

    assert trust.rows(hall, "codex", "company") == []
