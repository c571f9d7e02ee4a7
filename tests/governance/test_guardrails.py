"""Guardrails (issue 11 §9): provenance caps confidence, decisions come only by ratification,
results need evidence, and a manual supersede says why."""

from __future__ import annotations

from uuid import UUID

import pytest

from memhall.domains.entry import draft
from memhall.domains.errors import RefusedError
from memhall.governance import history, trust
from memhall.governance.hall import Hall


def hearsay(confidence: int) -> object:
    return draft(layer="L2", kind="claim", text="the NAS is full", confidence=confidence,
                 tags={"topics": ("nas",)},
                 provenance={"source_kind": "hearsay", "source_agent_id": "codex"})


def test_hearsay_cannot_be_written_above_what_trust_in_its_teller_allows(hall: Hall) -> None:
    trust.set_trust(hall, "maki", "company", source="codex", value=0.2, topic="nas", reason="lied")

    with pytest.raises(RefusedError, match="at most 35, not 90") as refused:
        hall.write("maki", "company", hearsay(90))  # type: ignore[arg-type]
    lower = hall.write("maki", "company", hearsay(30))  # type: ignore[arg-type]

    assert refused.value.rule == "confidence-by-provenance"
    assert not lower.duplicate


def test_a_batched_write_cannot_lift_hearsay_above_that_ceiling_either(hall: Hall) -> None:
    trust.set_trust(hall, "maki", "company", source="codex", value=0.2, topic="nas", reason="lied")
    plain = draft(layer="L2", kind="claim", text="the NAS has two disks")

    with pytest.raises(RefusedError, match="at most 35, not 90") as refused:
        hall.write_many("maki", "company", [plain, hearsay(90)])  # type: ignore[list-item]

    assert refused.value.rule == "confidence-by-provenance"
    assert not hall.write("maki", "company", plain).duplicate  # nothing of the refused batch was written


def test_a_decision_below_l4_is_refused_by_a_forbid_rule(hall: Hall) -> None:
    with pytest.raises(RefusedError) as refused:
        hall.write("codex", "company", draft(layer="L2", kind="decision", text="we ship friday"))

    assert refused.value.rule == "decisions-only-by-ratification"


def test_a_result_needs_evidence(hall: Hall) -> None:
    with pytest.raises(RefusedError) as refused:
        hall.write("codex", "company", draft(layer="L2", kind="result", text="migration done"))
    done = hall.write("codex", "company", draft(layer="L2", kind="result", text="migration done",
                                                provenance={"evidence_refs": ("ci-run-88",)}))

    assert refused.value.rule == "results-need-evidence"
    assert not done.duplicate


def test_a_manual_supersede_needs_a_reason_and_records_it(hall: Hall) -> None:
    old = hall.write("codex", "company", draft(layer="L2", kind="claim", text="deploys on fridays"))

    with pytest.raises(RefusedError) as refused:
        hall.write("codex", "company", draft(layer="L2", kind="claim", text="deploys on mondays"),
                   supersedes=UUID(old.entry_id))
    hall.write("codex", "company", draft(layer="L2", kind="claim", text="deploys on thursdays"),
               supersedes=UUID(old.entry_id), reason="the release train moved")

    shown = history.show(hall, "maki", "company", UUID(old.entry_id))
    assert refused.value.rule == "supersede-needs-a-reason"
    assert shown.history[-1].data["reason"] == "the release train moved"
