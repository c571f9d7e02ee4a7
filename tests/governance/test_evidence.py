"""Evidence moves beliefs: revision, corroboration, time travel and exposure, in the hall."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from uuid import UUID

import pytest
from freezegun import freeze_time

from memhall.domains.belief import EvidenceKind
from memhall.domains.entry import draft
from memhall.domains.errors import InvalidValueError
from memhall.domains.values import SourceKind
from memhall.governance import beliefs, evidence, trust
from memhall.governance.hall import Hall
from memhall.governance.rebuild import rebuild
from memhall.governance.recompute import verify_read_models

T0 = datetime(2026, 3, 2, 9, 0, tzinfo=timezone.utc)
CON, SUP = EvidenceKind.CONTRADICTS, EvidenceKind.SUPPORTS


def day(n: float) -> datetime:
    return T0 + timedelta(days=n)


def rumour(hall: Hall, text: str = "the NAS is backed up nightly", **extra: object) -> UUID:
    written = hall.write("maki", "company", draft(
        layer="L2", kind="claim", text=text, tags={"topics": ("nas",)},
        provenance={"source_kind": "hearsay", "source_agent_id": "codex"}, **extra))
    return UUID(written.entry_id)


def hall_belief(hall: Hall, entry: UUID, **kw: object) -> dict[str, object]:
    return beliefs.belief_of(hall, "claude", "company", entry, **kw).belief  # type: ignore[arg-type]


def test_a_rumour_fades_by_eight_every_week_and_is_past_at_the_floor(hall: Hall) -> None:
    with freeze_time(day(0)):
        claim = rumour(hall)

    with freeze_time(day(15)):
        two_weeks = hall_belief(hall, claim)
    with freeze_time(day(22)):
        three_weeks = hall_belief(hall, claim)

    assert (two_weeks["state"], two_weeks["confidence"]) == ("influencing", 42)
    assert (three_weeks["state"], three_weeks["confidence"]) == ("past", 34)


def test_two_firsthand_contradictions_doubt_then_correct_a_rumour(hall: Hall) -> None:
    with freeze_time(day(0)):
        claim = rumour(hall)
    with freeze_time(day(1)):
        doubted = evidence.record(hall, "maki", "company", claim, CON, text="no backup job")
    with freeze_time(day(2)):
        corrected = evidence.record(hall, "maki", "company", claim, CON,
                                    text="backups run weekly")

    with freeze_time(day(2)):
        view = beliefs.belief_of(hall, "claude", "company", claim)

    assert (doubted.state, doubted.confidence) == ("doubtful", 38)
    assert (corrected.state, corrected.confidence) == ("corrected", 72)
    assert view.belief["subject"] == "backups run weekly"
    assert view.used_to_think == ["the NAS is backed up nightly"]


def test_the_corrected_source_loses_trust_and_its_other_rumour_on_the_topic_drops(hall: Hall) -> None:
    with freeze_time(day(0)):
        claim = rumour(hall)
        other = rumour(hall, "the NAS has 8 TB free")
        evidence.record(hall, "maki", "company", claim, CON, text="no backup job")
        corrected = evidence.record(hall, "maki", "company", claim, CON, text="weekly backups")

        other_now = hall_belief(hall, other)

    table = {(r.observer, r.topic): r.value for r in trust.rows(hall, "claude", "company")}
    assert table[(trust.HALL_VIEW, "nas")] == 0.35
    assert [(r.entry_id, r.before, r.after) for r in corrected.rescored] == [(str(other), 58, 47)]
    assert other_now["confidence"] == 47


def test_an_agent_that_never_heard_the_correction_keeps_the_old_belief(hall: Hall) -> None:
    with freeze_time(day(0)):
        claim = rumour(hall, addressees=("gemini",))
        evidence.record(hall, "maki", "company", claim, CON, text="no backup job")
        evidence.record(hall, "maki", "company", claim, CON, text="weekly backups")

        gemini = beliefs.belief_of(hall, "claude", "company", claim, holder="gemini").belief
        spread = {h.holder: h.state for h in beliefs.holders_of(hall, "claude", "company", claim)}

    assert (gemini["state"], gemini["confidence"]) == ("influencing", 58)
    assert spread["gemini"] == "influencing" and spread["maki"] == "corrected"


def test_as_of_a_position_before_the_correction_shows_the_belief_as_it_was(hall: Hall) -> None:
    with freeze_time(day(0)):
        claim = rumour(hall)
        first = evidence.record(hall, "maki", "company", claim, CON, text="no backup job")
        evidence.record(hall, "maki", "company", claim, CON, text="weekly backups")

        then = hall_belief(hall, claim, as_of=first.position)
        graph = beliefs.why_of(hall, "claude", "company", claim, as_of=first.position)

    assert (then["state"], then["confidence"]) == ("doubtful", 38)
    assert [e.kind.value for e in graph.edges] == ["heard_from", "contradicts", "witnessed"]


def test_another_principal_writing_the_same_memory_corroborates_it(hall: Hall) -> None:
    text = dict(layer="L2", kind="claim", text="the printer is on floor 2")
    first = hall.write("maki", "company", draft(**text))

    again = hall.write("maki", "company", draft(**text))
    other = hall.write("codex", "company", draft(**text))

    view = beliefs.belief_of(hall, "claude", "company", UUID(first.entry_id))
    assert (again.duplicate, again.corroborated) == (True, False)
    assert (other.duplicate_of, other.corroborated) == (first.entry_id, True)
    assert view.belief["confidence"] == 86
    assert [c["principal"] for c in view.corroborated_by] == ["codex"]


def test_a_later_write_with_the_same_claim_root_is_evidence_not_a_second_belief(hall: Hall) -> None:
    claim = rumour(hall)

    hall.write("codex", "company", draft(layer="L2", kind="claim", text="I checked: no job",
                                         contradicts=True,
                                         provenance={"claim_root_id": str(claim)}))

    listed = beliefs.beliefs(hall, "claude", "company")
    assert [(b.entry_id, b.belief["state"]) for b in listed.beliefs] == [(str(claim), "doubtful")]


def test_evidence_dated_after_its_recording_is_refused(hall: Hall) -> None:
    claim = rumour(hall)

    with pytest.raises(InvalidValueError, match="later than now"):
        evidence.record(hall, "maki", "company", claim, SUP,
                        occurred_at=datetime.now(timezone.utc) + timedelta(days=1))


def test_beliefs_and_their_read_models_are_the_same_after_a_rebuild(hall: Hall) -> None:
    with freeze_time(day(0)):
        claim = rumour(hall)
        rumour(hall, "the NAS has 8 TB free")
        evidence.record(hall, "maki", "company", claim, CON, text="no backup job")
        evidence.record(hall, "maki", "company", claim, CON, text="weekly backups")
        evidence.record(hall, "codex", "company", claim, SUP, source_kind=SourceKind.HEARSAY,
                        from_agent="gemini")
        before = beliefs.beliefs(hall, "claude", "company")

        rebuild(hall)
        after = beliefs.beliefs(hall, "claude", "company")

    assert before == after
    assert all(r.ok for r in verify_read_models(hall.streams))


def ratify_to_l3(hall: Hall, text: str) -> UUID:
    from memhall.domains.values import Layer
    from memhall.governance import promotions

    entry = UUID(hall.write("codex", "company", draft(layer="L2", kind="claim", text=text)).entry_id)
    nomination = promotions.nominate(hall, "claude", "company", entry, Layer.L3, "held for a quarter")
    promotions.ratify(hall, "maki", "company", nomination.id)
    return entry


def test_evidence_contests_ratified_knowledge_without_rewriting_it_and_asks_the_owner(hall: Hall) -> None:
    from memhall.governance import history

    known = ratify_to_l3(hall, "deploys go out on tuesdays")

    first = evidence.record(hall, "maki", "company", known, CON, text="deployed on a monday")
    evidence.record(hall, "maki", "company", known, CON, text="and again on a monday")

    shown = history.show(hall, "claude", "company", known)
    loops = [e for e in history.log(hall, "claude", "company", limit=20)
             if e.topic == "memhall.Entry.Written" and e.data["kind"] == "open-loop"]
    assert (first.state, first.contested) == ("doubtful", True)
    assert (shown.entry.text, shown.entry.layer, shown.entry.state) == (
        "deploys go out on tuesdays", "L3", "doubtful")
    assert len(loops) == 1 and loops[0].data["pointers"] == [str(known)]
    assert loops[0].data["addressees"] == ["maki"]


def test_knowledge_as_of_an_earlier_position_shows_what_was_ratified_then(hall: Hall) -> None:
    from memhall.domains.values import Layer
    from memhall.governance import promotions

    known = ratify_to_l3(hall, "deploys go out on tuesdays")
    before = beliefs.cut_of(hall, "company", None)
    promotions.demote(hall, "maki", "company", known, Layer.L2, "contested")

    then = beliefs.ratified_as_of(hall, "claude", "company", "L3", before.at)
    now = beliefs.ratified_as_of(hall, "claude", "company", "L3", None)

    assert [e.id for e in then.entries] == [str(known)]
    assert not now.available and now.message.startswith("L3 unavailable")


def test_a_corrected_claim_is_still_served_as_written_with_its_state(hall: Hall) -> None:
    from memhall.ledgers.materialize import materialize

    claim = rumour(hall)
    evidence.record(hall, "maki", "company", claim, CON, text="no backup job")
    evidence.record(hall, "maki", "company", claim, CON, text="weekly backups")

    done = materialize(hall, "claude", "company", seat="gemini", task="is the NAS backed up")

    served = [c for c in done.ledgers.b if c.id == str(claim)]
    assert [(c.text, c.state) for c in served] in ([], [("the NAS is backed up nightly", "corrected")])


def test_handoff_as_of_an_earlier_position_hands_the_state_as_it_was(hall: Hall) -> None:
    from memhall.governance import sessions
    from memhall.governance.timetravel import handoff_as_of

    sessions.wrap_up(hall, "codex", "company", "billing paused")
    then = beliefs.cut_of(hall, "company", None)
    sessions.wrap_up(hall, "codex", "company", "billing resumed")

    past = handoff_as_of(hall, "claude", "company", then.at)
    now = sessions.handoff(hall, "claude", "company", open_session=False)

    assert [e.text for e in past.latest] == ["billing paused"]
    assert [e.text for e in now.latest] == ["billing resumed"]
